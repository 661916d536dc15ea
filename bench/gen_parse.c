/* bench/gen_parse.c: how long shimgen takes to load and parse PyTorch's whole
 * native_functions.yaml, beside a bare libyaml event scan of the same file.
 *
 *   bare scan    yaml_parser_parse over every event, nothing kept (file read included)
 *   full load    sg_context_new + sg_load_dir(file) + sg_finalize + sg_context_free:
 *                YAML tree, model, every schema parsed, derived functions, all checks
 *   YAML tree    sg_yaml_parse_file alone (the loader's share of the full load)
 *
 * Best of N runs each (N = $BENCH_RUNS, default 30). Run from the repository root;
 * the file is $SHIMGEN_SHARED/pytorch/native_functions.yaml (`make bench` sets it: the
 * torch wheel's file, .ci/pytorch-data); skipped when it is not set.
 * The target is a ratio of at most 1.5. Nothing is asserted: this prints a table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yaml.h>

#include "model.h"
#include "shimgen.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Returns the number of events, or -1. */
static long bare_scan(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return -1;
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_file(&p, fp);
    long n = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            n = -1;
            break;
        }
        n++;
        int end = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
        if (end) break;
    }
    yaml_parser_delete(&p);
    fclose(fp);
    return n;
}

static int tree_only(const char *path) {
    sg_context *ctx = sg_context_new(NULL, NULL);
    FILE *fp = fopen(path, "rb");
    int ok = ctx && fp && sg_yaml_parse_file(ctx, path, fp) != NULL;
    if (fp) fclose(fp);
    sg_context_free(ctx);
    return ok ? 0 : -1;
}

static long full_load(const char *path, size_t *n_funcs, size_t *n_written) {
    sg_context *ctx = sg_context_new(NULL, NULL);
    if (!ctx) return -1;
    sg_load_dir(ctx, path);
    sg_finalize(ctx);
    long errors = (long)sg_error_count(ctx);
    sg_model *m = sg_context_model_mut(ctx);
    *n_funcs = m->n_funcs;
    *n_written = m->n_written;
    sg_context_free(ctx);
    return errors;
}

int main(void) {
    const char *shared = getenv("SHIMGEN_SHARED");
    if (!shared || !*shared) {
        printf(
            "| gen_parse | skipped: SHIMGEN_SHARED not set (PyTorch's data, .ci/pytorch-data) |\n");
        return 0;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/pytorch/native_functions.yaml", shared);
    int runs = 30;
    const char *r = getenv("BENCH_RUNS");
    if (r && atoi(r) > 0) runs = atoi(r);

    double best_bare = 1e9, best_full = 1e9, best_tree = 1e9;
    long events = 0, errors = 0;
    size_t n_funcs = 0, n_written = 0;
    for (int i = 0; i < runs; i++) {
        double t0 = now();
        events = bare_scan(path);
        double t1 = now();
        errors = full_load(path, &n_funcs, &n_written);
        double t2 = now();
        int tree = tree_only(path);
        double t3 = now();
        if (events < 0 || tree < 0) {
            fprintf(stderr, "gen_parse: cannot scan %s\n", path);
            return 1;
        }
        if (t1 - t0 < best_bare) best_bare = t1 - t0;
        if (t2 - t1 < best_full) best_full = t2 - t1;
        if (t3 - t2 < best_tree) best_tree = t3 - t2;
    }
    printf("gen_parse: %s, best of %d runs\n", path, runs);
    printf("  %-34s %10.3f ms  (%ld events)\n", "bare libyaml event scan", best_bare * 1e3, events);
    printf("  %-34s %10.3f ms  (%zu schemas, %zu derived, %ld errors)\n",
           "full load+parse+finalize", best_full * 1e3, n_written, n_funcs - n_written, errors);
    printf("  %-34s %10.2f x  (target <= 1.50)\n", "ratio full / bare", best_full / best_bare);
    printf("  %-34s %10.3f ms  (%.2f x bare)\n", "YAML tree only (sg_yaml_parse_file)",
           best_tree * 1e3, best_tree / best_bare);
    printf("  %-34s %10.3f us\n", "time per schema (full load)",
           n_written ? best_full * 1e6 / (double)n_written : 0.0);
    return 0;
}

/* bench/gen_pipeline.c: the whole shimgen pipeline on PyTorch's data (load and parse every
 * input, derive, plan and render c_shim_{cpu,cuda,mps,xpu,aten}.h in compatibility mode,
 * compare with the files on disk) beside a bare libyaml event scan of the same inputs.
 * Prints one table row: the best of N runs of each, and their ratio (target: within 2x).
 * Data: $SHIMGEN_SHARED/pytorch (`make bench` sets it: the torch wheel's, .ci/pytorch-data). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

#include "shimgen.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Reads the file and walks every libyaml event: the floor for any YAML-driven tool. */
static long scan(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return -1;
    yaml_parser_t p;
    yaml_event_t ev;
    long n = 0;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_file(&p, fp);
    for (;;) {
        if (!yaml_parser_parse(&p, &ev)) {
            n = -1;
            break;
        }
        int done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
        n++;
        if (done) break;
    }
    yaml_parser_delete(&p);
    fclose(fp);
    return n;
}

/* One run; *front gets the time of loading and sg_finalize, *emit that of sg_generate. */
static int pipeline(const char *dir, const char *out, double *front, double *emit) {
    static const char *const backends[] = {"cpu", "cuda", "mps", "xpu"};
    double t0 = now();
    sg_context *ctx = sg_context_new(NULL, NULL);
    if (!ctx) return -1;
    sg_options o = {.out_dir = out,
                    .backends = backends,
                    .n_backends = 4,
                    .compat_torchgen = true,
                    .verbosity = -1};
    int rc = sg_load_dir(ctx, dir);
    if (rc == 0) rc = sg_finalize(ctx);
    double t1 = now();
    if (rc == 0) rc = sg_generate(ctx, &o);
    sg_context_free(ctx);
    *front = t1 - t0;
    *emit = now() - t1;
    return rc;
}

int main(void) {
    const char *shared = getenv("SHIMGEN_SHARED");
    char dir[4096], files[3][4200];
    snprintf(dir, sizeof dir, "%s/pytorch", shared && *shared ? shared : ".");
    static const char *const names[] = {"native_functions.yaml", "tags.yaml", "shim_ops.yaml"};
    for (int i = 0; i < 3; i++) snprintf(files[i], sizeof files[i], "%s/%s", dir, names[i]);
    if (access(files[0], R_OK) != 0) {
        printf("| gen_pipeline | skipped: no %s |\n", files[0]);
        return 0;
    }
    char out[] = "/tmp/bench_gen_pipeline_XXXXXX";
    if (!mkdtemp(out)) return 1;
    const int runs = 15;
    double best_scan = 1e9, best_pipe = 1e9, best_front = 1e9, best_emit = 1e9;
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        for (int i = 0; i < 3; i++)
            if (scan(files[i]) < 0) {
                fprintf(stderr, "gen_pipeline: libyaml cannot scan %s\n", files[i]);
                return 1;
            }
        double t1 = now();
        double front = 0, emit = 0;
        if (pipeline(dir, out, &front, &emit) != 0) {
            fprintf(stderr, "gen_pipeline: the pipeline failed on %s\n", dir);
            return 1;
        }
        double t2 = now();
        if (t1 - t0 < best_scan) best_scan = t1 - t0;
        if (t2 - t1 < best_pipe) best_pipe = t2 - t1;
        if (front < best_front) best_front = front;
        if (emit < best_emit) best_emit = emit;
    }
    static const char *const outs[] = {"c_shim_cpu.h", "c_shim_cuda.h", "c_shim_mps.h",
                                       "c_shim_xpu.h", "c_shim_aten.h"};
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s", out, outs[i]);
        unlink(p);
    }
    rmdir(out);
    printf("| benchmark | libyaml scan (ms) | shimgen pipeline (ms) | of which load+finalize "
           "| of which emit | ratio | target |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- |\n");
    printf("| gen_pipeline: parse + cpu,cuda,mps,xpu,aten headers | %.1f | %.1f | %.1f | %.1f "
           "| %.2fx | <= 2x |\n",
           best_scan * 1e3, best_pipe * 1e3, best_front * 1e3, best_emit * 1e3,
           best_pipe / best_scan);
    return 0;
}

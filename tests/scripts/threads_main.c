/* tests/scripts/threads_main.c: the two-thread native_functions loader (gen/model.c,
 * sg_nf_loader_*) gives exactly what the sequential one gives. Built and run by
 * tests/scripts/threads.sh against libshimgen.a.
 *
 *   threads_main [FILE...]
 * checks the policy (SHIMGEN_THREADS, input size), inline inputs, and each FILE (loaded
 * through sg_load_dir) with SHIMGEN_THREADS=1 and =2: same return codes, same diagnostics
 * in the same order, same --print-schemas=all output. Exit 0 means pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "shimgen.h"

static int failures;
#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            failures++;                                                                            \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

typedef struct text {
    char *buf;
    size_t len;
    FILE *f;
} text;

static void diag_to_text(void *user, sg_diag_level level, sg_loc loc, const char *msg) {
    text *t = user;
    fprintf(t->f, "%s:%u:%u: %d: %s\n", loc.file ? loc.file : "-", (unsigned)loc.line,
            (unsigned)loc.col, (int)level, msg);
}

/* Everything observable about one load: rcs, diagnostics, schemas. Free with free(). */
typedef struct outcome {
    int rc_load, rc_fin;
    size_t errors;
    text diags, schemas;
} outcome;

static void run(outcome *o, const char *threads, const char *path, const char *data) {
    setenv("SHIMGEN_THREADS", threads, 1);
    memset(o, 0, sizeof *o);
    o->diags.f = open_memstream(&o->diags.buf, &o->diags.len);
    o->schemas.f = open_memstream(&o->schemas.buf, &o->schemas.len);
    if (!o->diags.f || !o->schemas.f) {
        printf("FAIL: open_memstream\n");
        exit(1);
    }
    sg_context *ctx = sg_context_new(diag_to_text, &o->diags);
    o->rc_load = data ? sg_load_buffer(ctx, "native_functions", path, data, strlen(data))
                      : sg_load_dir(ctx, path);
    o->rc_fin = sg_finalize(ctx);
    sg_print_schemas(ctx, true, o->schemas.f);
    o->errors = sg_error_count(ctx);
    sg_context_free(ctx);
    fclose(o->diags.f);
    fclose(o->schemas.f);
}

static void done(outcome *o) {
    free(o->diags.buf);
    free(o->schemas.buf);
}

/* Loads with one thread and with two; the outcomes must be identical. Returns the
 * sequential outcome's diagnostics (caller frees) for further checks. */
static char *same_both_ways(const char *path, const char *data) {
    outcome a, b;
    run(&a, "1", path, data);
    run(&b, "2", path, data);
    CHECK(a.rc_load == b.rc_load, "%s: load rc %d vs %d", path, a.rc_load, b.rc_load);
    CHECK(a.rc_fin == b.rc_fin, "%s: finalize rc %d vs %d", path, a.rc_fin, b.rc_fin);
    CHECK(a.errors == b.errors, "%s: %zu vs %zu errors", path, a.errors, b.errors);
    CHECK(a.diags.len == b.diags.len && memcmp(a.diags.buf, b.diags.buf, a.diags.len) == 0,
          "%s: diagnostics differ:\n--- one thread\n%s--- two threads\n%s", path, a.diags.buf,
          b.diags.buf);
    CHECK(a.schemas.len == b.schemas.len &&
              memcmp(a.schemas.buf, b.schemas.buf, a.schemas.len) == 0,
          "%s: schemas differ (%zu vs %zu bytes)", path, a.schemas.len, b.schemas.len);
    char *d = a.diags.buf;
    a.diags.buf = NULL;
    done(&a);
    done(&b);
    return d;
}

static size_t count(const char *hay, const char *needle) {
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++) n++;
    return n;
}

/* Appends printf output to a growing heap string. */
static void add(char **s, size_t *len, const char *fmt, int i) {
    char line[256];
    int n = snprintf(line, sizeof line, fmt, i, i, i);
    char *g = realloc(*s, *len + (size_t)n + 1);
    if (!g) exit(1);
    memcpy(g + *len, line, (size_t)n + 1);
    *s = g;
    *len += (size_t)n;
}

static void test_policy(void) {
    sg_context *ctx = sg_context_new(NULL, NULL);
    setenv("SHIMGEN_THREADS", "1", 1);
    sg_nf_loader *l = sg_nf_loader_start(ctx, 100u << 20);
    CHECK(l == NULL, "SHIMGEN_THREADS=1 must turn the thread off");
    sg_nf_loader_finish(ctx, l, NULL);
    unsetenv("SHIMGEN_THREADS");
    l = sg_nf_loader_start(ctx, 1000);
    CHECK(l == NULL, "a small input must not start a thread");
    sg_nf_loader_finish(ctx, l, NULL);
    setenv("SHIMGEN_THREADS", "2", 1);
    l = sg_nf_loader_start(ctx, 10);
    CHECK(l != NULL, "SHIMGEN_THREADS=2 must force the thread on");
    /* Work that is dropped (the parse failed): -1, nothing added, nothing reported. */
    static const char src[] = "- func: a(Tensor self) -> Tensor\n- func: b(\n";
    const sg_ynode *root =
        sg_yaml_parse_items(ctx, "drop", src, sizeof src - 1, NULL, sg_nf_loader_item, l);
    CHECK(root != NULL, "the drop input parses");
    CHECK(sg_nf_loader_finish(ctx, l, NULL) == -1, "a dropped load returns -1");
    CHECK(sg_context_model_mut(ctx)->n_funcs == 0 && sg_error_count(ctx) == 0,
          "a dropped load adds and reports nothing");
    /* The same tree, kept: one function, one error (b's schema). */
    l = sg_nf_loader_start(ctx, 10);
    root = sg_yaml_parse_items(ctx, "keep", src, sizeof src - 1, NULL, sg_nf_loader_item, l);
    CHECK(sg_nf_loader_finish(ctx, l, root) == -1, "b's schema is an error");
    CHECK(sg_context_model_mut(ctx)->n_funcs == 1 && sg_error_count(ctx) == 1,
          "kept: %zu functions, %zu errors", sg_context_model_mut(ctx)->n_funcs,
          sg_error_count(ctx));
    sg_context_free(ctx);
}

int main(int argc, char **argv) {
    test_policy();

    /* Errors in many entries (more than one batch), valid ones between them. */
    char *many = NULL;
    size_t len = 0;
    for (int i = 0; i < 150; i++) {
        add(&many, &len, "- func: ok%d(Tensor self) -> Tensor\n", i);
        switch (i % 5) {
        case 0: add(&many, &len, "- func: bad%d(Tensor self, Tensor self) -> Tensor\n", i); break;
        case 1:
            add(&many, &len, "- func: v%d(Tensor self) -> Tensor\n  variants: nope\n", i);
            break;
        case 2: add(&many, &len, "- dispatch: {CPU: k%d}\n", i); break;
        case 3: add(&many, &len, "- not an entry %d\n", i); break;
        default: add(&many, &len, "- func: s%d(Tensor self) -> Tensor\n  structured: maybe\n", i);
        }
    }
    char *d = same_both_ways("many.yaml", many);
    CHECK(count(d, ": 0: ") == 150, "many.yaml: %zu errors, expected 150", count(d, ": 0: "));

    /* Model errors first, then broken YAML: only the YAML error is reported. */
    size_t mlen = len;
    add(&many, &len, "- func: [unclosed%d\n", 0);
    free(d);
    d = same_both_ways("yaml_error_last.yaml", many);
    CHECK(count(d, ": 0: ") == 1 && count(d, "yaml_error_last.yaml:") == count(d, "\n") &&
              strstr(d, "flow") != NULL,
          "yaml_error_last.yaml: expected only libyaml's error, got:\n%s", d);
    free(d);
    many[mlen] = '\0';

    /* Other roots and empty inputs take the same path. */
    static const char *const small[] = {
        "",
        "# only a comment\n",
        "a: b\n",
        "just text\n",
        "[]\n",
        "- 1\n- [2]\n- {a: b}\n",
        "- func: a(Tensor self) -> Tensor\n- func: a(Tensor self) -> Tensor\n",
        "- func: a(Tensor self) -> Tensor\n---\n- func: b() -> ()\n",
    };
    for (size_t i = 0; i < sizeof small / sizeof *small; i++)
        free(same_both_ways("small", small[i]));
    free(many);

    for (int i = 1; i < argc; i++) free(same_both_ways(argv[i], NULL));
    printf("threads: %s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}

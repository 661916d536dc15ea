/* tests/gen/test_frontend.c: the shimgen front end: YAML loader, model builders,
 * whole-model checks, lookups and --print-schemas (through the library). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"
#include "shimgen.h"

/* ---- helpers ----------------------------------------------------------------------------- */

typedef struct diags {
    char *text; /* every diagnostic as "file:line:col: level: message\n" */
    size_t len, cap;
} diags;

static void collect(void *user, sg_diag_level level, sg_loc loc, const char *message) {
    diags *d = user;
    static const char *const lv[] = {"error", "warning", "note"};
    char line[4096];
    int n = loc.line ? snprintf(line, sizeof line, "%s:%u:%u: %s: %s\n", loc.file ? loc.file : "-",
                                (unsigned)loc.line, (unsigned)loc.col, lv[level], message)
                     : snprintf(line, sizeof line, "%s: %s: %s\n", loc.file ? loc.file : "-",
                                lv[level], message);
    if (n < 0) return;
    if ((size_t)n >= sizeof line) n = sizeof line - 1;
    if (d->len + (size_t)n + 1 > d->cap) {
        d->cap = (d->len + (size_t)n + 1) * 2;
        d->text = realloc(d->text, d->cap);
        cr_assert(d->text);
    }
    memcpy(d->text + d->len, line, (size_t)n + 1);
    d->len += (size_t)n;
}

static diags D;
static sg_context *ctx;

static void setup(void) {
    memset(&D, 0, sizeof D);
    ctx = sg_context_new(collect, &D);
    cr_assert(ctx);
}
static void teardown(void) {
    sg_context_free(ctx);
    free(D.text);
}

static const char *dtext(void) { return D.text ? D.text : ""; }

static int load(const char *role, const char *name, const char *yaml) {
    return sg_load_buffer(ctx, role, name, yaml, strlen(yaml));
}

#define expect_diag(sub)                                                                           \
    cr_expect(strstr(dtext(), (sub)) != NULL, "expected diagnostic containing\n  %s\ngot:\n%s",    \
              (sub), dtext())

static const sg_native_function *fn_at(size_t i) {
    const sg_model *m = sg_context_model_mut(ctx);
    cr_assert(i < m->n_funcs, "only %zu functions", m->n_funcs);
    return m->funcs[i];
}

static const char *shared_dir(void) {
    const char *s = getenv("SHIMGEN_SHARED");
    if (!s || !*s) cr_skip_test("SHIMGEN_SHARED not set: no PyTorch data (.ci/pytorch-data)");
    return s;
}

static char *read_all(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    rewind(fp);
    char *b = malloc((size_t)n + 1);
    size_t got = fread(b, 1, (size_t)n, fp);
    fclose(fp);
    b[got] = '\0';
    *len = got;
    return b;
}

TestSuite(frontend, .init = setup, .fini = teardown);

/* ---- --print-schemas on PyTorch's file ------------------------------------------------------ */

Test(frontend, print_schemas_gives_back_every_func_string_in_order) {
    char path[4096];
    snprintf(path, sizeof path, "%s/pytorch/native_functions.yaml", shared_dir());
    size_t len;
    char *yaml = read_all(path, &len);
    cr_assert(yaml, "cannot read %s", path);

    cr_assert_eq(sg_load_dir(ctx, path), 0, "%s", dtext());
    char *out = NULL;
    size_t out_len = 0;
    FILE *mem = open_memstream(&out, &out_len);
    cr_assert(mem);
    cr_assert_eq(sg_print_schemas(ctx, false, mem), 0);
    fclose(mem);

    /* the expectation: every line of the file that starts with "- func: ", rest of line */
    size_t n_expected = 0;
    const char *o = out;
    for (const char *p = yaml; p && *p;) {
        const char *eol = strchr(p, '\n');
        size_t ll = eol ? (size_t)(eol - p) : strlen(p);
        if (ll > 8 && strncmp(p, "- func: ", 8) == 0) {
            n_expected++;
            size_t fl = ll - 8;
            const char *oe = strchr(o, '\n');
            cr_assert(oe, "output ends before schema %zu", n_expected);
            cr_assert(fl == (size_t)(oe - o) && memcmp(o, p + 8, fl) == 0,
                      "schema %zu differs:\n  file:   %.*s\n  output: %.*s", n_expected, (int)fl,
                      p + 8, (int)(oe - o), o);
            o = oe + 1;
        }
        p = eol ? eol + 1 : NULL;
    }
    cr_expect_eq(n_expected, 2590); /* torch 2.15.0's file */
    cr_expect_eq(*o, '\0', "extra output after the last schema");
    free(out);
    free(yaml);
}

/* ---- loader values and locations ------------------------------------------------------------- */

Test(frontend, native_function_keys_values_and_locations) {
    const char *y = "# comment\n"
                    "- func: abs(Tensor self) -> Tensor\n"
                    "  variants: function, method\n"
                    "  dispatch:\n"
                    "    CPU, CUDA: abs_out\n"
                    "    SparseCPU,SparseCUDA: abs_sparse\n"
                    "  tags: [core, pointwise]\n"
                    "  structured_delegate: abs.out\n"
                    "  autogen: abs.out, _abs_functional\n"
                    "  device_check: NoCheck\n"
                    "  device_guard: False\n"
                    "  manual_cpp_binding: True\n"
                    "  python_module: nn\n"
                    "  my_unknown_key: [1, 2]\n"
                    "\n"
                    "- func: abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
                    "  structured: True\n"
                    "  structured_inherits: TensorIteratorBase\n"
                    "  tags: pointwise\n"
                    "  ufunc_inner_loop:\n"
                    "    Generic: abs (AllAndComplex)\n";
    cr_assert_eq(load("native_functions", "nf.yaml", y), 0, "%s", dtext());
    const sg_model *m = sg_context_model_mut(ctx);
    cr_assert_eq(m->n_funcs, 2);
    const sg_native_function *f = fn_at(0);
    cr_expect_str_eq(f->op_key, "aten.abs.default");
    cr_expect_str_eq(f->func_text, "abs(Tensor self) -> Tensor");
    cr_expect_eq(f->loc.line, 2);
    cr_expect_eq(f->loc.col, 3);
    cr_expect_eq(f->func_loc.line, 2);
    cr_expect_eq(f->func_loc.col, 9);
    cr_expect_str_eq(f->func_loc.file, "nf.yaml");
    cr_expect_str_eq(f->variants, "function, method");
    cr_assert_eq(f->n_dispatch, 4);
    cr_expect(f->has_dispatch);
    const char *keys[] = {"CPU", "CUDA", "SparseCPU", "SparseCUDA"};
    const char *kernels[] = {"abs_out", "abs_out", "abs_sparse", "abs_sparse"};
    const uint32_t cols[] = {5, 10, 5, 15};
    for (int i = 0; i < 4; i++) {
        cr_expect_str_eq(f->dispatch[i].key, keys[i]);
        cr_expect_str_eq(f->dispatch[i].kernel, kernels[i]);
        cr_expect_eq(f->dispatch[i].loc.line, i < 2 ? 5u : 6u);
        cr_expect_eq(f->dispatch[i].loc.col, cols[i], "key %d col %u", i, f->dispatch[i].loc.col);
    }
    cr_assert_eq(f->n_tags, 2);
    cr_expect_str_eq(f->tags[0], "core");
    cr_expect_str_eq(f->tags[1], "pointwise");
    cr_expect_eq(f->tag_locs[1].line, 7);
    cr_expect_eq(f->tag_locs[1].col, 16);
    cr_expect_str_eq(f->structured_delegate, "abs.out");
    cr_expect_eq(f->structured_delegate_loc.line, 8);
    cr_expect_eq(f->structured_delegate_loc.col, 24);
    cr_assert_eq(f->n_autogen, 2);
    cr_expect_str_eq(f->autogen[0], "abs.out");
    cr_expect_str_eq(f->autogen[1], "_abs_functional");
    cr_expect_eq(f->autogen_locs[1].line, 9);
    cr_expect_eq(f->autogen_locs[1].col, 21);
    cr_expect_str_eq(f->device_check, "NoCheck");
    cr_expect_not(f->device_guard);
    cr_expect(f->manual_cpp_binding);
    cr_expect_not(f->structured);
    cr_expect_str_eq(f->python_module, "nn");
    cr_expect(f->is_abstract);
    /* the unknown key is kept in the entry's node */
    bool seen = false;
    for (uint32_t i = 0; i < f->node->n_items; i += 2)
        if (strcmp(f->node->items[i]->scalar, "my_unknown_key") == 0) {
            seen = true;
            cr_expect_eq(f->node->items[i + 1]->kind, SG_Y_SEQ);
            cr_expect_eq(f->node->items[i + 1]->n_items, 2);
        }
    cr_expect(seen);

    const sg_native_function *g = fn_at(1);
    cr_expect_str_eq(g->op_key, "aten.abs.out");
    cr_expect(g->structured);
    cr_expect_str_eq(g->structured_inherits, "TensorIteratorBase");
    cr_expect(g->has_ufunc_inner_loop);
    cr_expect_not(g->has_dispatch);
    cr_expect(g->device_guard);
    cr_expect_null(g->variants);
    cr_assert_eq(g->n_tags, 1);
    cr_expect_str_eq(g->tags[0], "pointwise");

    cr_expect_eq(sg_model_find(ctx, "aten.abs.out"), g);
    cr_expect_eq(sg_model_find(ctx, "aten.abs.default"), f);
    cr_expect_eq(sg_model_find_by_name(ctx, "abs", ""), f);
    cr_expect_eq(sg_model_find_by_name(ctx, "abs", NULL), f);
    cr_expect_eq(sg_model_find_by_name(ctx, "abs", "out"), g);
    cr_expect_eq(sg_model_find_by_name(ctx, "aten::abs", "out"), g);
    cr_expect_null(sg_model_find(ctx, "aten.abs.nope"));
    cr_expect_null(sg_model_find_by_name(ctx, "absx", ""));
}

Test(frontend, tags_and_shim_ops_loaders) {
    cr_assert_eq(
        load("tags", "tags.yaml", "- tag: core\n  desc: |\n    core ops\n- tag: pointwise\n"), 0,
        "%s", dtext());
    cr_assert_eq(load("shim_ops", "ops.yaml",
                      "fallback_ops:\n"
                      "  aten.abs.default: {}\n"
                      "  aten.add.Tensor: {since: \"2.12\", versions: {v3: [c], v2: [a, b]}}\n"
                      "aten_ops:\n"
                      "  aten.abs.out: {}\n"),
                 0, "%s", dtext());
    const sg_model *m = sg_context_model_mut(ctx);
    cr_expect(m->have_tags_file);
    cr_assert_eq(m->n_tags, 2);
    cr_expect_str_eq(m->tags[0].name, "core");
    cr_expect_str_eq(m->tags[0].desc, "core ops\n");
    cr_expect_eq(m->tags[1].loc.line, 4);
    cr_expect_eq(m->tags[1].loc.col, 8);
    cr_expect_null(m->tags[1].desc);
    cr_assert_eq(m->n_shim_ops, 3);
    cr_expect_str_eq(m->shim_ops[0].key, "aten.abs.default");
    cr_expect_not(m->shim_ops[0].aten);
    cr_expect_eq(m->shim_ops[0].loc.line, 2);
    cr_expect_eq(m->shim_ops[0].loc.col, 3);
    const sg_shim_op *add = &m->shim_ops[1];
    cr_expect_str_eq(add->since, "2.12");
    cr_expect_eq(add->since_major, 2);
    cr_expect_eq(add->since_minor, 12);
    cr_assert_eq(add->n_versions, 2);
    cr_expect_eq(add->versions[0].number, 2);
    cr_expect_eq(add->versions[0].n_args, 2);
    cr_expect_str_eq(add->versions[0].args[1], "b");
    cr_expect_eq(add->versions[1].number, 3);
    cr_expect(m->shim_ops[2].aten);
    cr_expect_eq(m->n_inputs, 2);
    cr_expect_str_eq(m->inputs[1].role, "shim_ops");
}

Test(frontend, schema_error_points_into_the_func_string) {
    /* plain scalar: column = value column + byte offset */
    load("native_functions", "a.yaml", "- func: foo(Tensr self) -> Tensor\n");
    expect_diag("a.yaml:1:13: error: unknown type");
    /* quoted scalar: one more for the quote */
    load("native_functions", "b.yaml", "- func: 'foo(Tensr self) -> Tensor'\n");
    expect_diag("b.yaml:1:14: error: unknown type");
    /* a scalar with an escape: the start of the value */
    load("native_functions", "c.yaml", "- func: \"foo(Tensr\\x20self) -> Tensor\"\n");
    expect_diag("c.yaml:1:9: error: unknown type");
    cr_expect_eq(sg_context_model_mut(ctx)->n_funcs, 0);
}

Test(frontend, malformed_values_are_errors_at_their_location) {
    const char *y = "- func: a(Tensor self) -> Tensor\n"
                    "  dispatch: CPU\n"
                    "- func: b(Tensor self) -> Tensor\n"
                    "  tags: {x: y}\n"
                    "- func: c(Tensor self) -> Tensor\n"
                    "  structured: 'True'\n"
                    "- func: [d]\n"
                    "- just a string\n"
                    "- func: e(Tensor self) -> Tensor\n"
                    "  variants: function, methd\n"
                    "- func: f(Tensor self) -> Tensor\n"
                    "  device_check: Sometimes\n"
                    "- variants: function\n"
                    "- func: g(Tensor self) -> Tensor\n"
                    "  func: g(Tensor self) -> Tensor\n"
                    "- func: h(Tensor self) -> Tensor\n"
                    "  dispatch:\n"
                    "    CPU, : h_cpu\n"
                    "    CUDA: [x]\n"
                    "- func: i(Tensor self) -> Tensor\n"
                    "  autogen: [i.out]\n"
                    "  precomputed: x\n";
    cr_expect_neq(load("native_functions", "m.yaml", y), 0);
    expect_diag("m.yaml:2:13: error: 'dispatch' must be a mapping");
    expect_diag("m.yaml:4:9: error: 'tags' must be a tag name or a list");
    expect_diag("m.yaml:6:15: error: 'structured' must be a bool");
    expect_diag("m.yaml:7:9: error: 'func' must be a schema string, not a list");
    expect_diag("m.yaml:8:3: error: an entry must be a mapping");
    expect_diag("m.yaml:10:23: error: unknown variant 'methd'");
    expect_diag("m.yaml:12:17: error: unknown device_check 'Sometimes'");
    expect_diag("m.yaml:13:3: error: this entry has no 'func:' key");
    expect_diag("m.yaml:15:3: error: key 'func' appears twice");
    expect_diag("m.yaml:18:9: error: empty dispatch key in 'CPU,'");
    expect_diag("m.yaml:19:11: error: the kernel for dispatch key 'CUDA' must be a name");
    expect_diag("m.yaml:21:12: error: 'autogen' must be a string");
    expect_diag("m.yaml:22:16: error: 'precomputed' must be a list of strings");
    cr_expect_eq(sg_error_count(ctx), 13, "%s", dtext());
}

Test(frontend, top_level_shapes) {
    load("native_functions", "map.yaml", "func: a(Tensor self) -> Tensor\n");
    expect_diag("map.yaml:1:1: error: expected a list of native function entries");
    load("native_functions", "empty.yaml", "");
    expect_diag("empty.yaml:1:1: error: expected a list of native function entries ('- func: "
                "...'), found an empty document");
    load("tags", "t.yaml", "tag: x\n");
    expect_diag("t.yaml:1:1: error: expected a list of tags");
    load("shim_ops", "s.yaml", "- aten.abs.default\n");
    expect_diag("s.yaml:1:1: error: expected a mapping with 'fallback_ops'");
    load("shim_ops", "s2.yaml",
         "fallbak_ops: {}\naten_ops:\n  abs.default: {}\n  aten.a.b: {since: 2.x}\n");
    expect_diag("s2.yaml:1:1: error: unknown section 'fallbak_ops'");
    expect_diag("s2.yaml:3:3: error: bad op key 'abs.default'");
    expect_diag("s2.yaml:4:21: error: bad since '2.x'");
    cr_expect_eq(sg_load_buffer(ctx, "bogus", "x", "", 0), -1);
    expect_diag("x: error: unknown input role 'bogus'");
}

/* ---- YAML corner cases --------------------------------------------------------------------- */

Test(frontend, yaml_syntax_errors_have_locations) {
    load("native_functions", "tab.yaml", "- func: a(Tensor self) -> Tensor\n\tdispatch: x\n");
    expect_diag("tab.yaml:2:");
    load("native_functions", "q.yaml", "- func: 'a(Tensor self) -> Tensor\n  tags: x\n");
    expect_diag("q.yaml:3:1: error: found unexpected end of stream while scanning a quoted scalar");
    expect_diag("q.yaml:1:9: note:");
    load("native_functions", "alias.yaml", "- &x {func: 'a() -> ()'}\n- *x\n");
    expect_diag("alias.yaml:2:3: error: YAML aliases ('*x') are not supported");
    load("native_functions", "two.yaml", "- func: a() -> ()\n---\n- func: b() -> ()\n");
    expect_diag("two.yaml:2:1: error: more than one YAML document");
    static const char nul[] = "- func: a() -> ()\n- fu\0nc: b\n";
    sg_load_buffer(ctx, "native_functions", "nul.yaml", nul, sizeof nul - 1);
    expect_diag("nul.yaml:2:5: error: control characters are not allowed");
    static const char bin[] = "\x7f"
                              "ELF\x02\x01\xff\xfe";
    sg_load_buffer(ctx, "native_functions", "bin.yaml", bin, sizeof bin - 1);
    expect_diag("bin.yaml:1:");
}

Test(frontend, deep_nesting_is_bounded) {
    size_t depth = 100000;
    char *y = malloc(depth * 2 + 1);
    memset(y, '[', depth);
    memset(y + depth, ']', depth);
    y[2 * depth] = '\0';
    cr_expect_eq(load("native_functions", "deep.yaml", y), -1);
    expect_diag("deep.yaml:1:65: error: YAML nested deeper than 64 levels");
    free(y);
    /* 64 levels are fine for the YAML layer (the model then rejects the shape) */
    char ok[200];
    memset(ok, '[', 64);
    memset(ok + 64, ']', 64);
    ok[128] = '\0';
    load("native_functions", "ok.yaml", ok);
    expect_diag("ok.yaml:1:2: error: an entry must be a mapping");
}

Test(frontend, very_long_line_is_an_error_not_a_huge_scalar) {
    size_t n = 3u << 20;
    char *y = malloc(n + 32);
    strcpy(y, "- func: ");
    memset(y + 8, 'a', n);
    strcpy(y + 8 + n, "\n");
    cr_expect_eq(load("native_functions", "long.yaml", y), -1);
    expect_diag("long.yaml:1:1048577: error: line is longer than 1048576 bytes");
    cr_expect_lt(sg_arena_used(sg_context_arena(ctx)), (size_t)1 << 20);
    free(y);
}

/* ---- whole-model checks ------------------------------------------------------------------- */

static const char *const TAGS = "- tag: core\n- tag: pointwise\n- tag: generated\n";

Test(frontend, unknown_tag_needs_a_tags_file) {
    const char *y = "- func: a(Tensor self) -> Tensor\n  tags: [core, pointwize]\n";
    cr_assert_eq(load("native_functions", "nf.yaml", y), 0, "%s", dtext());
    cr_expect_eq(sg_finalize(ctx), 0, "no tags file: no check, got %s", dtext());

    sg_context_free(ctx);
    free(D.text);
    memset(&D, 0, sizeof D);
    ctx = sg_context_new(collect, &D);
    cr_assert_eq(load("native_functions", "nf.yaml", y), 0);
    cr_assert_eq(load("tags", "tags.yaml", TAGS), 0);
    cr_expect_eq(sg_finalize(ctx), -1);
    expect_diag("nf.yaml:2:16: error: unknown tag 'pointwize'");
    cr_expect_eq(sg_error_count(ctx), 1, "%s", dtext());
    cr_expect_eq(sg_finalize(ctx), -1, "finalize twice gives the same answer");
    cr_expect_eq(sg_error_count(ctx), 1);
}

Test(frontend, unknown_dispatch_key) {
    const char *y = "- func: a(Tensor self) -> Tensor\n"
                    "  dispatch:\n"
                    "    CPU, CUDA, MPS, SparseCsrMeta, NestedTensorHPU: a_k\n"
                    "    CompositeExplicitAutogradNonFunctional, QuantizedXPU: a_c\n"
                    "    CPU2: a_x\n"
                    "    XLA,Cuda: a_y\n";
    cr_assert_eq(load("native_functions", "nf.yaml", y), 0, "%s", dtext());
    cr_expect_eq(load("native_functions", "dup.yaml",
                      "- func: b(Tensor self) -> Tensor\n  dispatch:\n    CPU: x\n"
                      "    MPS,CPU: y\n"),
                 -1);
    expect_diag("dup.yaml:4:9: error: dispatch key 'CPU' appears twice");
    cr_expect_eq(sg_finalize(ctx), -1);
    expect_diag("nf.yaml:5:5: error: unknown dispatch key 'CPU2'");
    expect_diag("nf.yaml:6:9: error: unknown dispatch key 'Cuda'");
    cr_expect_eq(sg_error_count(ctx), 3, "%s", dtext());
}

Test(frontend, duplicate_op_names_both_places) {
    cr_assert_eq(load("native_functions", "one.yaml", "- func: a(Tensor self) -> Tensor\n"), 0);
    cr_assert_eq(load("native_functions", "two.yaml",
                      "- func: b(Tensor self) -> Tensor\n- func: a(Tensor x) -> Tensor\n"),
                 0);
    cr_expect_eq(sg_finalize(ctx), -1);
    expect_diag(
        "two.yaml:2:9: error: duplicate op 'aten.a.default' (first defined at one.yaml:1:9)");
    expect_diag("one.yaml:1:9: note: 'aten.a.default' first defined here");
}

Test(frontend, dangling_structured_delegate) {
    const char *y = "- func: a(Tensor self) -> Tensor\n"
                    "  structured_delegate: a.out\n"
                    "- func: b(Tensor self) -> Tensor\n"
                    "  structured_delegate: b.out\n"
                    "- func: b.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
                    "  structured: True\n";
    cr_assert_eq(load("native_functions", "nf.yaml", y), 0, "%s", dtext());
    cr_expect_eq(sg_finalize(ctx), -1);
    expect_diag("nf.yaml:2:24: error: structured_delegate 'a.out' names no function");
    cr_expect_eq(sg_error_count(ctx), 1, "%s", dtext());
    cr_expect_eq(fn_at(1)->delegate, fn_at(2));
}

Test(frontend, shim_op_naming_nothing) {
    cr_assert_eq(load("native_functions", "nf.yaml", "- func: a(Tensor self) -> Tensor\n"), 0);
    cr_assert_eq(load("shim_ops", "ops.yaml",
                      "fallback_ops:\n  aten.a.default: {}\n  aten.a.out: {}\naten_ops:\n"
                      "  aten.zz.default: {}\n"),
                 0, "%s", dtext());
    cr_expect_eq(sg_finalize(ctx), -1);
    expect_diag("ops.yaml:3:3: error: op 'aten.a.out' in fallback_ops names no function");
    expect_diag("ops.yaml:5:3: error: op 'aten.zz.default' in aten_ops names no function");
    cr_expect_eq(sg_error_count(ctx), 2, "%s", dtext());
    cr_expect_eq(sg_context_model_mut(ctx)->shim_ops[0].fn, fn_at(0));
}

Test(frontend, bad_since_and_versions) {
    load("shim_ops", "ops.yaml",
         "fallback_ops:\n"
         "  aten.a.default: {since: \"2\"}\n"
         "  aten.b.default: {since: \"2.12.1\"}\n"
         "  aten.c.default: {versions: {v1: [x]}}\n"
         "  aten.d.default: {versions: {v2: x}}\n"
         "  aten.e.default: {}\n"
         "  aten.e.default: {}\n");
    expect_diag("ops.yaml:2:27: error: bad since '2'");
    expect_diag("ops.yaml:3:27: error: bad since '2.12.1'");
    expect_diag("ops.yaml:4:31: error: bad version 'v1'");
    expect_diag("ops.yaml:5:35: error: 'v2' must be a list of strings");
    expect_diag("ops.yaml:7:3: error: op 'aten.e.default' appears twice in 'fallback_ops' (first "
                "at ops.yaml:6:3)");
}

/* ---- directories ---------------------------------------------------------------------------- */

static void write_file(const char *path, const char *text) {
    FILE *fp = fopen(path, "w");
    cr_assert(fp, "cannot write %s", path);
    fputs(text, fp);
    fclose(fp);
}

Test(frontend, merging_directories_reports_duplicates_across_them) {
    char base[] = "/tmp/shimgen-fe-XXXXXX";
    cr_assert(mkdtemp(base));
    char d1[300], d2[300], p[400];
    snprintf(d1, sizeof d1, "%s/core", base);
    snprintf(d2, sizeof d2, "%s/ext", base);
    mkdir(d1, 0700);
    mkdir(d2, 0700);
    snprintf(p, sizeof p, "%s/native_functions.yaml", d1);
    write_file(p, "- func: a(Tensor self) -> Tensor\n- func: b(Tensor self) -> Tensor\n");
    snprintf(p, sizeof p, "%s/tags.yaml", d1);
    write_file(p, "- tag: core\n");
    snprintf(p, sizeof p, "%s/native_functions.yaml", d2);
    write_file(p, "# ext\n- func: c(Tensor self) -> Tensor\n  tags: core\n"
                  "- func: b(Tensor self) -> Tensor\n");
    snprintf(p, sizeof p, "%s/shim_ops.yaml", d2);
    write_file(p, "fallback_ops:\n  aten.c.default: {}\n");

    cr_expect_eq(sg_load_dir(ctx, d1), 0, "%s", dtext());
    cr_expect_eq(sg_load_dir(ctx, d2), 0, "%s", dtext());
    cr_expect_eq(sg_finalize(ctx), -1);
    char want[1200];
    snprintf(want, sizeof want,
             "%s/native_functions.yaml:4:9: error: duplicate op 'aten.b.default' (first defined "
             "at %s/native_functions.yaml:2:9)",
             d2, d1);
    expect_diag(want);
    const sg_model *m = sg_context_model_mut(ctx);
    cr_expect_eq(m->n_inputs, 4);
    cr_expect_eq(m->n_written, 4);

    /* a directory without native_functions.yaml */
    sg_context *c2 = sg_context_new(collect, &D);
    cr_expect_eq(sg_load_dir(c2, base), -1);
    snprintf(want, sizeof want, "%s: error: no native_functions.yaml in this directory", base);
    expect_diag(want);
    cr_expect_eq(sg_load_dir(c2, "/nonexistent/shimgen"), -1);
    expect_diag("/nonexistent/shimgen: error: no such file or directory");
    sg_context_free(c2);

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    cr_expect_eq(system(cmd), 0);
}

Test(frontend, several_errors_in_one_run_are_all_reported) {
    const char *y = "- func: a(Tensr self) -> Tensor\n"
                    "- func: b(Tensor self, Tensor self) -> Tensor\n"
                    "- func: c(Tensor self, *) -> Tensor\n"
                    "- func: d(Tensor self) -> Tensor\n";
    cr_expect_eq(load("native_functions", "nf.yaml", y), -1);
    cr_expect_eq(sg_error_count(ctx), 3, "%s", dtext());
    expect_diag("nf.yaml:1:11: error:");
    expect_diag("nf.yaml:2:");
    expect_diag("nf.yaml:3:");
    cr_expect_eq(sg_context_model_mut(ctx)->n_funcs, 1);
}

Test(frontend, null_and_edge_arguments) {
    sg_context_free(NULL);
    cr_expect_eq(sg_error_count(NULL), 0);
    sg_context *c = sg_context_new(NULL, NULL);
    cr_assert(c);
    cr_expect_eq(sg_load_buffer(c, "native_functions", NULL, "- func: [", 9), -1);
    cr_expect_eq(sg_error_count(c), 1, "errors are counted even without a callback");
    cr_expect_null(sg_model_find(c, "aten.x.default"));
    sg_context_free(c);
}

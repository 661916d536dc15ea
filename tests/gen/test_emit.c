/* tests/gen/test_emit.c: the emitters (gen/emit*.c, gen/template.c) through the library:
 * the template engine, the parameter table, the kernel choice, reading declarations back,
 * and sg_generate's error paths (each reports and writes nothing). The end-to-end checks
 * on PyTorch's data are in tests/scripts/emit_*.sh. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <shimrt/codes.h>

#include "emit.h"
#include "model.h"
#include "shimgen.h"

/* ---- helpers ---------------------------------------------------------------------------- */
typedef struct diags {
    char *text;
    size_t len, cap;
} diags;

static void collect(void *user, sg_diag_level level, sg_loc loc, const char *message) {
    diags *d = user;
    static const char *const lv[] = {"error", "warning", "note"};
    char line[4096];
    int n = snprintf(line, sizeof line, "%s:%u:%u: %s: %s\n", loc.file ? loc.file : "-",
                     (unsigned)loc.line, (unsigned)loc.col, lv[level], message);
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
static sg_arena *A;
static char tmpdir[64];

static void setup(void) {
    memset(&D, 0, sizeof D);
    ctx = sg_context_new(collect, &D);
    A = sg_arena_new();
    cr_assert(ctx && A);
    strcpy(tmpdir, "/tmp/test_emit_XXXXXX");
    cr_assert(mkdtemp(tmpdir));
}

static void rm_rf(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char sub[1024];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            rm_rf(sub);
        }
        if (d) closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void teardown(void) {
    sg_context_free(ctx);
    sg_arena_free(A);
    free(D.text);
    rm_rf(tmpdir);
}

static const char *dtext(void) { return D.text ? D.text : ""; }
#define expect_diag(sub)                                                                           \
    cr_expect(strstr(dtext(), (sub)) != NULL, "expected diagnostic containing\n  %s\ngot:\n%s",    \
              (sub), dtext())

static int load(const char *role, const char *yaml) {
    return sg_load_buffer(ctx, role, role, yaml, strlen(yaml));
}

static const sg_schema *parse(const char *text) {
    sg_schema_error err;
    const sg_schema *s = sg_schema_parse(A, text, strlen(text), &err);
    cr_assert(s, "parse %s: %s", text, err.message);
    return s;
}

/* The C parameter list of a schema, "type name, ..." (or "NONE: why"). */
static const char *params_of(const char *schema, const char *const *omit, int n_omit) {
    sg_cparam *p = NULL;
    int n = 0, bad = -2;
    const char *why = NULL;
    if (sg_shim_params(A, parse(schema), omit, n_omit, &p, &n, &why, &bad) != 0)
        return sg_arena_printf(A, "NONE(%d): %s", bad, why);
    sg_buf b = {0};
    for (int i = 0; i < n; i++) sg_buf_printf(&b, "%s%s %s", i ? ", " : "", p[i].type, p[i].name);
    return b.len ? sg_buf_to_arena(&b, A) : "";
}

static int count_entries(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static void write_file(const char *path, const char *text) {
    FILE *fp = fopen(path, "wb");
    cr_assert(fp, "cannot write %s", path);
    fputs(text, fp);
    fclose(fp);
}

TestSuite(emit, .init = setup, .fini = teardown);

/* ---- the template engine ------------------------------------------------------------------ */
Test(emit, template_fills_slots_and_keeps_other_braces) {
    const char *text = "a {{x}} b {{ y }} {{}} {{x}}{{z_1}} {{open\n";
    const sg_template *t = sg_tpl_parse(A, text, strlen(text));
    cr_assert(t);
    sg_buf b = {0};
    const sg_slot slots[] = {{"x", "X", 0}, {"z_1", "Zed", 2}};
    cr_assert_eq(sg_tpl_render(t, &b, slots, 2, NULL), 0);
    /* The section's final newline is not part of the template; `{{ y }}` is not a slot. */
    cr_expect_str_eq(b.data, "a X b {{ y }} {{}} XZe {{open");
    sg_buf_free(&b);
}

Test(emit, template_missing_slot_is_an_error_naming_it) {
    const sg_template *t = sg_tpl_parse(A, "<{{here}}>", 10);
    sg_buf b = {0};
    const char *missing = NULL;
    const sg_slot slots[] = {{"there", "x", 0}};
    cr_expect_eq(sg_tpl_render(t, &b, slots, 1, &missing), -1);
    cr_expect_str_eq(missing, "here");
    sg_buf_free(&b);
}

Test(emit, template_load_failure_has_a_message) {
    char err[256] = "";
    cr_expect_null(sg_tpl_set_load(A, tmpdir, "absent.in", err, sizeof err));
    cr_expect(strstr(err, "absent.in") && strstr(err, "no such file"), "%s", err);
}

Test(emit, template_dir_explicit_and_env) {
    cr_expect_str_eq(sg_tpl_find_dir(A, "/some/where"), "/some/where");
    setenv("SHIMGEN_TEMPLATES", tmpdir, 1);
    cr_expect_str_eq(sg_tpl_find_dir(A, NULL), tmpdir);
    unsetenv("SHIMGEN_TEMPLATES");
    /* From the test binary (build/<b>/tests/gen/) the repository's templates/ is found. */
    const char *d = sg_tpl_find_dir(A, NULL);
    cr_assert(d);
    cr_expect(strstr(d, "templates") != NULL, "%s", d);
}

Test(emit, json_escaping) {
    sg_buf b = {0};
    sg_buf_put_json(&b, "a\"b\\c\nd\te\x01'");
    cr_expect_str_eq(b.data, "a\\\"b\\\\c\\nd\\te\\u0001'");
    sg_buf_free(&b);
}

/* ---- the parameter table ----------------------------------------------------------------- */
Test(emit, params_every_row_of_the_table) {
    cr_expect_str_eq(
        params_of("f(Tensor a, Tensor? b, Tensor[] c, Tensor?[] d) -> Tensor", NULL, 0),
        "AtenTensorHandle a, AtenTensorHandle* b, const AtenTensorHandle* c, "
        "int64_t c_len_, const AtenTensorHandle** d, int64_t d_len_, "
        "AtenTensorHandle* ret0");
    cr_expect_str_eq(params_of("f(int a, SymInt? b, int[2] c, SymInt[]? d) -> ()", NULL, 0),
                     "int64_t a, int64_t* b, const int64_t* c, int64_t c_len_, "
                     "const int64_t** d, int64_t d_len_");
    cr_expect_str_eq(params_of("f(float a, float? b, float[] c, float[]? d) -> ()", NULL, 0),
                     "double a, double* b, const double* c, int64_t c_len_, const double** d, "
                     "int64_t d_len_");
    cr_expect_str_eq(params_of("f(bool a, bool? b, bool[3] c, str d, str? e) -> ()", NULL, 0),
                     "int32_t a, int32_t* b, const int32_t* c, int64_t c_len_, const char* d, "
                     "const char** e");
    cr_expect_str_eq(params_of("f(Scalar a, Scalar? b, Scalar[] c) -> ()", NULL, 0),
                     "double a, double* b, const double* c, int64_t c_len_");
    cr_expect_str_eq(params_of("f(ScalarType a, Layout? b, MemoryFormat c, DeviceIndex d, "
                               "ScalarType[] e) -> ()",
                               NULL, 0),
                     "int32_t a, int32_t* b, int32_t c, int32_t d, const int32_t* e, "
                     "int64_t e_len_");
    cr_expect_str_eq(params_of("f(Device a, Device? b, Generator c, Generator? d) -> ()", NULL, 0),
                     "int32_t a, int32_t a_index_, int32_t* b, int32_t b_index_, "
                     "AtenGeneratorHandle c, AtenGeneratorHandle* d");
}

Test(emit, params_returns) {
    cr_expect_str_eq(params_of("f(Tensor a) -> (Tensor, int, float, Scalar, bool, ScalarType, "
                               "str, Generator, SymInt, Layout)",
                               NULL, 0),
                     "AtenTensorHandle a, AtenTensorHandle* ret0, int64_t* ret1, double* ret2, "
                     "double* ret3, int32_t* ret4, int32_t* ret5, const char** ret6, "
                     "AtenGeneratorHandle* ret7, int64_t* ret8, int32_t* ret9");
    /* A Tensor[] return: the kernel's malloc'ed array of new references, then its length. */
    cr_expect_str_eq(params_of("f(Tensor[] a) -> Tensor[]", NULL, 0),
                     "const AtenTensorHandle* a, int64_t a_len_, AtenTensorHandle** ret0, "
                     "int64_t* ret0_len_");
    cr_expect_str_eq(params_of("f(Tensor a) -> (Tensor[], Tensor)", NULL, 0),
                     "AtenTensorHandle a, AtenTensorHandle** ret0, int64_t* ret0_len_, "
                     "AtenTensorHandle* ret1");
}

Test(emit, params_out_inplace_and_tensor_options) {
    cr_expect_str_eq(
        params_of("mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)", NULL, 0),
        "AtenTensorHandle out, AtenTensorHandle self, AtenTensorHandle mat2");
    cr_expect_str_eq(params_of("f.out(Tensor self, *, Tensor(a!) values, Tensor(b!) indices) -> "
                               "(Tensor(a!) values, Tensor(b!) indices)",
                               NULL, 0),
                     "AtenTensorHandle values, AtenTensorHandle indices, AtenTensorHandle self");
    cr_expect_str_eq(
        params_of("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", NULL, 0),
        "AtenTensorHandle self, double value");
    cr_expect_str_eq(params_of("r(int n, *, ScalarType? dtype=None, Layout? layout=None, Device? "
                               "device=None, bool? pin_memory=None) -> Tensor",
                               NULL, 0),
                     "int64_t n, int32_t* dtype, int32_t* layout, int32_t* device, "
                     "int32_t device_index_, int32_t* pin_memory, AtenTensorHandle* ret0");
    cr_expect_str_eq(params_of("g() -> ()", NULL, 0), "");
}

Test(emit, params_omit_the_arguments_of_later_versions) {
    const char *omit[] = {"b", "out"};
    cr_expect_str_eq(params_of("f(Tensor a, int b=0, int c=1) -> Tensor", omit, 1),
                     "AtenTensorHandle a, int64_t c, AtenTensorHandle* ret0");
    cr_expect_str_eq(
        params_of("f.out(Tensor a, int b=0, *, Tensor(a!) out) -> Tensor(a!)", omit, 1),
        "AtenTensorHandle out, AtenTensorHandle a");
}

Test(emit, params_without_a_c_form) {
    cr_expect_str_eq(params_of("f(Tensor a, Dimname d) -> Tensor", NULL, 0),
                     "NONE(1): argument 'd' has type 'Dimname', which has no C form");
    cr_expect_str_eq(params_of("f(Tensor[]? a) -> ()", NULL, 0),
                     "NONE(0): argument 'a' has type 'Tensor[]?', which has no C form");
    cr_expect_str_eq(params_of("f(str[] a) -> ()", NULL, 0),
                     "NONE(0): argument 'a' has type 'str[]', which has no C form");
    cr_expect_str_eq(params_of("f(Layout[] a) -> ()", NULL, 0),
                     "NONE(0): argument 'a' has type 'Layout[]', which has no C form");
    cr_expect_str_eq(params_of("f(Storage a) -> ()", NULL, 0),
                     "NONE(0): argument 'a' has type 'Storage', which has no C form");
    cr_expect_str_eq(params_of("f(Tensor a) -> int[]", NULL, 0),
                     "NONE(-1): return 0 has type 'int[]', which has no C form");
    cr_expect_str_eq(params_of("f(Tensor a) -> Tensor?[]", NULL, 0),
                     "NONE(-1): return 0 has type 'Tensor?[]', which has no C form");
    cr_expect_str_eq(params_of("f(Tensor a) -> (Tensor, Tensor?)", NULL, 0),
                     "NONE(-1): return 1 has type 'Tensor?', which has no C form");
    cr_expect_str_eq(params_of("f(Tensor a) -> Device", NULL, 0),
                     "NONE(-1): return 0 has type 'Device', which has no C form");
    /* In-place and out functions have no return pointers, so their returns never block. */
    cr_expect_str_eq(params_of("f_(Tensor(a!) self) -> Tensor(a!)[]", NULL, 0),
                     "AtenTensorHandle self");
}

Test(emit, c_names) {
    cr_expect_str_eq(sg_shim_c_name(A, "cpu", parse("add.Tensor(Tensor a) -> Tensor"), 1),
                     "aoti_torch_cpu_add_Tensor");
    cr_expect_str_eq(
        sg_shim_c_name(A, "cuda", parse("fill_.Scalar(Tensor(a!) a) -> Tensor(a!)"), 1),
        "aoti_torch_cuda_fill__Scalar");
    cr_expect_str_eq(sg_shim_c_name(A, "aten", parse("resize_(Tensor(a!) a) -> Tensor(a!)"), 3),
                     "aoti_torch_aten_resize__v3");
}

/* ---- kernel choice ------------------------------------------------------------------------- */
static const char *kNative = "- func: own(Tensor self) -> Tensor\n"
                             "  dispatch:\n"
                             "    CPU,CUDA: own_kernel\n"
                             "    NestedTensorCPU: nested\n"
                             "    CompositeExplicitAutograd: own_cea\n"
                             "- func: del(Tensor self) -> Tensor\n"
                             "  structured_delegate: del.out\n"
                             "- func: del.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
                             "  structured: True\n"
                             "  dispatch:\n"
                             "    MPS: del_out_mps\n"
                             "- func: uf.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
                             "  structured: True\n"
                             "  ufunc_inner_loop:\n"
                             "    Generic: uf (AllAndComplex)\n"
                             "- func: uf(Tensor self) -> Tensor\n"
                             "  structured_delegate: uf.out\n"
                             "- func: order(Tensor self) -> Tensor\n"
                             "  dispatch:\n"
                             "    CompositeImplicitAutograd: order_cia\n"
                             "    CompositeExplicitAutogradNonFunctional: order_ceanf\n"
                             "- func: plain(Tensor self) -> Tensor\n"
                             "- func: nested_only(Tensor self) -> Tensor\n"
                             "  dispatch:\n"
                             "    NestedTensorCPU: nested_only\n";

static void pick(const char *name, const char *overload, const char *key, const char *want_key,
                 const char *want_kernel) {
    const sg_native_function *fn = sg_model_find_by_name(ctx, name, overload);
    cr_assert(fn, "no %s", name);
    const char *k = NULL, *kernel = NULL;
    bool ok = sg_pick_kernel(A, fn, key, &k, &kernel);
    if (!want_key) {
        cr_expect(!ok, "%s/%s: unexpected kernel %s:%s", name, key, k, kernel);
        return;
    }
    cr_assert(ok, "%s/%s: no kernel", name, key);
    cr_expect_str_eq(k, want_key, "%s/%s", name, key);
    if (want_kernel) cr_expect_str_eq(kernel, want_kernel, "%s/%s", name, key);
}

Test(emit, kernel_choice_follows_the_rules) {
    cr_assert_eq(load("native_functions", kNative), 0, "%s", dtext());
    cr_assert_eq(sg_finalize(ctx), 0, "%s", dtext());
    pick("own", "", "CPU", "CPU", "own_kernel"); /* own entry; CPU,CUDA without spaces */
    pick("own", "", "CUDA", "CUDA", "own_kernel");
    pick("own", "", "MPS", "CompositeExplicitAutograd", "own_cea");
    pick("del", "", "MPS", "MPS", "del_out_mps"); /* the delegate's device entry */
    pick("del", "", "CPU", NULL, NULL);           /* delegates never fall back */
    pick("uf", "", "CPU", "CPU", NULL);           /* ufunc_inner_loop: CPU and CUDA */
    pick("uf", "", "CUDA", "CUDA", NULL);
    pick("uf", "", "XPU", NULL, NULL);
    pick("order", "", "CPU", "CompositeExplicitAutogradNonFunctional", "order_ceanf");
    pick("plain", "", "XPU", "CompositeImplicitAutograd", "plain");
    pick("nested_only", "", "CPU", NULL, NULL); /* NestedTensor keys never count */
    const sg_model *m = sg_context_model_mut(ctx);
    cr_expect_str_eq(sg_backend_dispatch_key(m, "mps"), "MPS");
    cr_expect_str_eq(sg_backend_dispatch_key(m, "cuda"), "CUDA");
    cr_expect_null(sg_backend_dispatch_key(m, "xpu"));
    cr_expect_null(sg_backend_dispatch_key(m, "nestedtensorcpu"));
}

/* ---- declarations read back ------------------------------------------------------------------ */
Test(emit, abi_scan_reads_declarations) {
    const char *h = "// x\n"
                    "AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_a(AtenTensorHandle self, "
                    "const int64_t *dims, int64_t dims_len_);\n"
                    "#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_12_0\n"
                    "AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_b(\n"
                    "    const  char **  s,\n    AtenTensorHandle* ret0);\n"
                    "#endif // TORCH_FEATURE_VERSION >= TORCH_VERSION_2_12_0\n"
                    "AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_c(void);\n"
                    "AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_d();\n";
    sg_abi_decl *d = NULL;
    char err[200];
    int n = sg_abi_scan(A, "h.h", h, strlen(h), &d, err, sizeof err);
    cr_assert_eq(n, 4, "%s", err);
    cr_expect_str_eq(d[0].name, "aoti_torch_cpu_a");
    cr_assert_eq(d[0].n_params, 3);
    cr_expect_str_eq(d[0].params[1].type, "const int64_t*");
    cr_expect_str_eq(d[0].params[1].name, "dims");
    cr_expect_null(d[0].gate);
    cr_expect_eq(d[0].loc.line, 2);
    cr_expect_str_eq(d[1].params[0].type, "const char**");
    cr_expect_str_eq(d[1].params[1].name, "ret0");
    cr_expect_str_eq(d[1].gate, "TORCH_VERSION_2_12_0");
    cr_expect_eq(d[1].loc.line, 4);
    cr_expect_eq(d[2].n_params, 0);
    cr_expect_eq(d[2].loc.line, 8);
    cr_expect_eq(d[3].n_params, 0);
}

Test(emit, abi_scan_malformed) {
    sg_abi_decl *d = NULL;
    char err[200];
    const char *a = "AOTI_TORCH_EXPORT AOTITorchError f(int64_t);\n";
    cr_expect_eq(sg_abi_scan(A, "h.h", a, strlen(a), &d, err, sizeof err), -1);
    cr_expect(strstr(err, "has no name"), "%s", err);
    const char *b = "AOTI_TORCH_EXPORT AOTITorchError f(int64_t x,, int64_t y);\n";
    cr_expect_eq(sg_abi_scan(A, "h.h", b, strlen(b), &d, err, sizeof err), -1);
    cr_expect(strstr(err, "empty parameter"), "%s", err);
    const char *c = "AOTI_TORCH_EXPORT AOTITorchError (int64_t x);\n";
    cr_expect_eq(sg_abi_scan(A, "h.h", c, strlen(c), &d, err, sizeof err), -1);
    cr_expect(strstr(err, "h.h:1: malformed"), "%s", err);
}

/* ---- sg_generate: error paths write nothing ---------------------------------------------- */
static const char *kOps = "- func: a(Tensor self, int n=0, float x=1.0) -> Tensor\n"
                          "  dispatch:\n"
                          "    CompositeExplicitAutograd: a\n"
                          "- func: b_c(Tensor self) -> Tensor\n"
                          "  dispatch:\n"
                          "    CPU, CUDA, MPS: b_c\n"
                          "- func: b.c(Tensor self) -> Tensor\n"
                          "  dispatch:\n"
                          "    CPU: b_c_overload\n";

static int gen(const char *shim_ops, sg_options *o) {
    cr_assert_eq(load("native_functions", kOps), 0, "%s", dtext());
    cr_assert_eq(load("shim_ops", shim_ops), 0, "%s", dtext());
    cr_assert_eq(sg_finalize(ctx), 0, "%s", dtext());
    char *out = sg_arena_printf(A, "%s/out", tmpdir);
    if (!o->out_dir) o->out_dir = out;
    return sg_generate(ctx, o);
}

Test(emit, generate_writes_headers_and_manifest) {
    sg_options o = {0};
    cr_assert_eq(gen("fallback_ops:\n  aten.a.default: {}\naten_ops:\n  aten.a.default: {}\n", &o),
                 0, "%s", dtext());
    /* 3 headers, 3 bodies, 2 boxed pairs, 3 kernel headers, the manifest */
    cr_expect_eq(count_entries(o.out_dir), 14);
    char *text = NULL;
    size_t len;
    cr_assert_eq(sg_fs_read(sg_arena_printf(A, "%s/shim_manifest.json", o.out_dir), &text, &len),
                 0);
    cr_expect(strstr(text, "\"name\": \"aoti_torch_aten_a\""), "%s", text);
    cr_expect(strstr(text, "\"kernel\": {\"dispatch_key\": \"CompositeExplicitAutograd\", "
                           "\"name\": \"a\"}"),
              "%s", text);
    cr_expect(strstr(text, "{\"name\": \"n\", \"type\": \"int64_t\"}"), "%s", text);
    /* cuda runs a.default itself (a composite): its fallback list is there, and empty */
    cr_expect(strstr(text, "\"backend_fallback\": {\n    \"cuda\": []\n  }"), "%s", text);
    free(text);
}

Test(emit, generate_unknown_and_invalid_backends) {
    const char *const backends[] = {"cpu", "quux", "c-p-u"};
    sg_options o = {.backends = backends, .n_backends = 3};
    cr_expect_eq(gen("fallback_ops:\n  aten.a.default: {}\n", &o), -1);
    expect_diag("unknown backend 'quux': no dispatch key of that name in the inputs");
    expect_diag("invalid backend name 'c-p-u'");
    cr_expect_eq(count_entries(tmpdir), 0);
}

Test(emit, generate_backend_names_fold_case_and_repeat) {
    const char *const backends[] = {"MPS", "mps", "aten"};
    sg_options o = {.backends = backends, .n_backends = 3};
    cr_expect_eq(gen("fallback_ops:\n  aten.a.default: {}\n", &o), 0, "%s", dtext());
    /* c_shim_mps.{h,c}, c_boxed_mps.{h,c}, mps_kernels.h (it includes
     * compositeexplicitautograd_kernels.h) and the manifest */
    cr_expect_eq(count_entries(o.out_dir), 7);
    struct stat st;
    cr_expect_eq(stat(sg_arena_printf(A, "%s/c_shim_mps.h", o.out_dir), &st), 0);
}

Test(emit, generate_bad_versions) {
    sg_options o = {0};
    cr_expect_eq(gen("fallback_ops:\n"
                     "  aten.a.default: {versions: {v2: [nope], v3: [self, n, n]}}\n",
                     &o),
                 -1);
    expect_diag("aten.a.default: v2 adds 'nope', which is not an argument of the op");
    expect_diag("aten.a.default: v3 adds 'self', which has no default");
    expect_diag("aten.a.default: v3 adds 'n', which an earlier version already names");
    cr_expect_eq(count_entries(tmpdir), 0);
}

Test(emit, generate_c_name_collision) {
    sg_options o = {0};
    const char *const backends[] = {"cpu"};
    o.backends = backends;
    o.n_backends = 1;
    cr_expect_eq(gen("fallback_ops:\n  aten.b_c.default: {}\n  aten.b.c: {}\n", &o), -1);
    expect_diag("aten.b_c.default: its C name aoti_torch_cpu_b_c is also the C name of aten.b.c");
    cr_expect_eq(count_entries(tmpdir), 0);
}

Test(emit, generate_missing_templates) {
    sg_options o = {.templates_dir = "/nonexistent/templates"};
    cr_expect_eq(gen("fallback_ops:\n  aten.a.default: {}\n", &o), -1);
    expect_diag("cannot read template /nonexistent/templates/");
    cr_expect_eq(count_entries(tmpdir), 0);
}

Test(emit, generate_template_with_an_unknown_slot) {
    /* A copy of the real templates with one slot misspelt. */
    const char *src = sg_tpl_find_dir(A, NULL);
    cr_assert(src);
    char *dir = sg_arena_printf(A, "%s/tpl", tmpdir);
    cr_assert_eq(mkdir(dir, 0777), 0);
    DIR *d = opendir(src);
    cr_assert(d);
    struct dirent *ent;
    while ((ent = readdir(d))) {
        if (!strstr(ent->d_name, ".in")) continue;
        char *text = NULL;
        size_t len;
        cr_assert_eq(sg_fs_read(sg_arena_printf(A, "%s/%s", src, ent->d_name), &text, &len), 0);
        if (strcmp(ent->d_name, "headers.in") == 0) { /* section decl: {{name}} -> {{nmae}} */
            char *slot = strstr(text, "{{name}}({{params}})");
            cr_assert(slot);
            memcpy(slot + 2, "nmae", 4);
        }
        write_file(sg_arena_printf(A, "%s/%s", dir, ent->d_name), text);
        free(text);
    }
    closedir(d);
    sg_options o = {.templates_dir = dir};
    cr_expect_eq(gen("fallback_ops:\n  aten.a.default: {}\n", &o), -1);
    expect_diag("/tpl/headers.in:0:0: error: section 'decl' uses the unknown slot {{nmae}}\n");
    cr_expect_null(strstr(strstr(dtext(), "{{nmae}}") + 1, "{{nmae}}"), "reported twice");
    cr_expect_eq(count_entries(tmpdir), 1); /* only tpl/ */
}

Test(emit, generate_unwritable_output_leaves_nothing) {
    /* The output directory is a file: nothing can be written, and no temporary remains. */
    char *file = sg_arena_printf(A, "%s/plain", tmpdir);
    write_file(file, "x");
    sg_options o = {.out_dir = file};
    cr_expect_eq(gen("fallback_ops:\n  aten.a.default: {}\n", &o), -1);
    expect_diag("the output directory (-o) exists and is not a directory");
    cr_expect_eq(count_entries(tmpdir), 1);
}

Test(emit, commit_failure_removes_temporaries) {
    /* The second target's directory is read-only (skipped when running as root, which
     * ignores permissions): the first file must not be renamed into place either. */
    if (geteuid() == 0) return;
    char *ok = sg_arena_printf(A, "%s/ok", tmpdir), *ro = sg_arena_printf(A, "%s/ro", tmpdir);
    cr_assert_eq(mkdir(ok, 0777), 0);
    cr_assert_eq(mkdir(ro, 0555), 0);
    sg_out_file f[2] = {
        {.path = sg_arena_printf(A, "%s/a.h", ok), .data = "a", .len = 1, .changed = true},
        {.path = sg_arena_printf(A, "%s/b.h", ro), .data = "b", .len = 1, .changed = true}};
    cr_expect_eq(sg_fs_commit(ctx, f, 2), -1);
    cr_expect_eq(count_entries(ok), 0);
    chmod(ro, 0777);
}

/* A '::'-qualified kernel (torchgen's form) loads, but default mode calls kernels from C:
 * an error at the dispatch row, nothing written; compat mode writes only declarations. */
Test(emit, qualified_kernel_is_an_error_in_default_mode) {
    const char *nf = "- func: q(Tensor self) -> Tensor\n"
                     "  dispatch:\n"
                     "    CPU: at::native::q_cpu\n";
    cr_assert_eq(load("native_functions", nf), 0, "%s", dtext());
    cr_assert_eq(load("shim_ops", "fallback_ops:\n  aten.q.default: {}\n"), 0, "%s", dtext());
    cr_assert_eq(sg_finalize(ctx), 0, "%s", dtext());
    const char *const backends[] = {"cpu"};
    sg_options o = {
        .backends = backends, .n_backends = 1, .out_dir = sg_arena_printf(A, "%s/out", tmpdir)};
    cr_expect_eq(sg_generate(ctx, &o), -1);
    expect_diag("native_functions:3:5: error: aten.q.default: kernel 'at::native::q_cpu' for "
                "dispatch key CPU is not a C identifier");
    cr_expect_eq(count_entries(tmpdir), 0);
}

Test(emit, qualified_kernel_is_accepted_in_compat_mode) {
    const char *nf = "- func: q(Tensor self) -> Tensor\n"
                     "  dispatch:\n"
                     "    CPU: at::native::q_cpu\n";
    cr_assert_eq(load("native_functions", nf), 0, "%s", dtext());
    cr_assert_eq(load("shim_ops", "fallback_ops:\n  aten.q.default: {}\n"), 0, "%s", dtext());
    cr_assert_eq(sg_finalize(ctx), 0, "%s", dtext());
    const char *const backends[] = {"cpu"};
    sg_options o = {.backends = backends,
                    .n_backends = 1,
                    .compat_torchgen = true,
                    .out_dir = sg_arena_printf(A, "%s/out", tmpdir)};
    cr_expect_eq(sg_generate(ctx, &o), 0, "%s", dtext());
    char *text = NULL;
    size_t len;
    cr_assert_eq(sg_fs_read(sg_arena_printf(A, "%s/c_shim_cpu.h", o.out_dir), &text, &len), 0);
    cr_expect(strstr(text, "aoti_torch_cpu_q(AtenTensorHandle self, AtenTensorHandle* ret0);"),
              "%s", text);
    free(text);
}

Test(emit, check_mode_writes_nothing) {
    sg_options o = {.check = true};
    FILE *saved = stdout;
    stdout = fopen("/dev/null", "w");
    int rc = gen("fallback_ops:\n  aten.a.default: {}\n", &o);
    fclose(stdout);
    stdout = saved;
    cr_expect_eq(rc, 1, "%s", dtext());
    cr_expect_eq(count_entries(tmpdir), 0);
}

Test(emit, no_shim_is_an_error_by_default_and_a_warning_in_compat) {
    /* only backend cuda, which has no kernel for b.c: no listed backend runs it */
    const char *const backends[] = {"cuda"};
    sg_options o = {.backends = backends, .n_backends = 1};
    cr_expect_eq(gen("fallback_ops:\n  aten.b.c: {}\n", &o), -1);
    expect_diag("error: aten.b.c: no C shim for backend cuda: no kernel for backend cuda");
    expect_diag("shim_ops:2:3: note: aten.b.c is listed here");
    cr_expect_eq(count_entries(tmpdir), 0);
}

Test(emit, a_backend_without_the_kernel_leaves_the_op_to_the_backend_fallback) {
    /* b.c has a CPU kernel only: the manifest lists it under "backend_fallback" and its
     * aoti_torch_cuda_ shim goes through the dispatcher (whose CPU fallback runs it) */
    sg_options o = {0};
    cr_assert_eq(gen("fallback_ops:\n  aten.b.c: {}\n", &o), 0, "%s", dtext());
    char *text = NULL;
    size_t len;
    cr_assert_eq(sg_fs_read(sg_arena_printf(A, "%s/shim_manifest.json", o.out_dir), &text, &len),
                 0);
    cr_expect(strstr(text, "\"backend_fallback\": {\n    \"cuda\": [\"aten.b.c\"]\n  }"), "%s",
              text);
    free(text);
    cr_assert_eq(sg_fs_read(sg_arena_printf(A, "%s/c_shim_cuda.h", o.out_dir), &text, &len), 0);
    cr_expect(strstr(text, "aoti_torch_cuda_b_c(AtenTensorHandle self, AtenTensorHandle* ret0);"));
    free(text);
    cr_assert_eq(sg_fs_read(sg_arena_printf(A, "%s/c_shim_cuda.c", o.out_dir), &text, &len), 0);
    cr_expect(strstr(text, "shimrt_pack_call(&pack_, &op_, \"aten::b\", \"c\")"), "%s", text);
    free(text);
    /* nothing registered for CUDA: the dispatcher must not find a CUDA kernel */
    cr_assert_eq(sg_fs_read(sg_arena_printf(A, "%s/c_boxed_cuda.c", o.out_dir), &text, &len), 0);
    cr_expect_null(strstr(text, "b_c_overload"), "%s", text);
    free(text);
    cr_assert_eq(sg_fs_read(sg_arena_printf(A, "%s/c_shim_cpu.h", o.out_dir), &text, &len), 0);
    cr_expect(strstr(text, "aoti_torch_cpu_b_c(AtenTensorHandle self, AtenTensorHandle* ret0);"));
    free(text);
}

Test(emit, an_op_without_any_kernel_gets_a_failing_shim_on_its_backends) {
    /* `dispatch: {}`: no kernel anywhere; `backends: [cuda]`: only c_shim_cuda.h lists it */
    cr_assert_eq(load("native_functions", "- func: z(Tensor self) -> Tensor\n  dispatch: {}\n"), 0,
                 "%s", dtext());
    cr_assert_eq(load("shim_ops", "fallback_ops:\n  aten.z.default: {backends: [cuda]}\n"), 0, "%s",
                 dtext());
    cr_assert_eq(sg_finalize(ctx), 0, "%s", dtext());
    sg_options o = {.out_dir = sg_arena_printf(A, "%s/out", tmpdir)};
    cr_assert_eq(sg_generate(ctx, &o), 0, "%s", dtext());
    char *text = NULL;
    size_t len;
    cr_assert_eq(sg_fs_read(sg_arena_printf(A, "%s/c_shim_cuda.c", o.out_dir), &text, &len), 0);
    cr_expect(strstr(text, "Could not run 'aten::z' with arguments from the 'CUDA' backend"), "%s",
              text);
    free(text);
    cr_assert_eq(sg_fs_read(sg_arena_printf(A, "%s/c_shim_cpu.h", o.out_dir), &text, &len), 0);
    cr_expect_null(strstr(text, "aoti_torch_cpu_z"));
    free(text);
}

Test(emit, op_backends_must_be_a_list) {
    cr_assert_eq(load("native_functions", "- func: z(Tensor self) -> Tensor\n  dispatch: {}\n"), 0,
                 "%s", dtext());
    cr_expect_neq(load("shim_ops", "fallback_ops:\n  aten.z.default: {backends: cuda}\n"), 0);
    expect_diag("'backends' of op 'aten.z.default' must be a list like [cuda]");
}

Test(emit, compat_drops_with_a_warning) {
    sg_options o = {.compat_torchgen = true};
    cr_expect_eq(gen("fallback_ops:\n  aten.b.c: {}\n", &o), 0, "%s", dtext());
    expect_diag(
        "warning: aten.b.c: no C shim for backend cuda: no kernel for backend cuda (dropped)");
    char *text = NULL;
    size_t len;
    cr_assert_eq(sg_fs_read(sg_arena_printf(A, "%s/c_shim_cuda.h", o.out_dir), &text, &len), 0);
    cr_expect_null(strstr(text, "AOTI_TORCH_EXPORT"));
    free(text);
    cr_expect_eq(sg_fs_read(sg_arena_printf(A, "%s/c_shim_cpu.h", o.out_dir), &text, &len), 0);
    cr_expect(strstr(text, "aoti_torch_cpu_b_c(AtenTensorHandle self, AtenTensorHandle* ret0);"));
    free(text);
}

Test(emit, null_arguments) {
    cr_expect_eq(sg_generate(NULL, NULL), -1);
    sg_buf b = {0};
    sg_buf_free(&b); /* empty buffer: no-op */
    cr_expect_null(b.data);
}

/* ---- template sets (templates/bodies.in) --------------------------------------------------- */
Test(emit, template_set_sections) {
    const char *text = "a comment\n%% one\nline {{x}}\n%% two\nfirst\nsecond\n\n%% empty\n";
    char err[256] = "";
    const sg_tpl_set *s = sg_tpl_set_parse(A, "set.in", text, strlen(text), err, sizeof err);
    cr_assert(s, "%s", err);
    cr_expect_eq(sg_tpl_set_count(s), 3);
    cr_expect_null(sg_tpl_set_get(s, "comment"));
    sg_buf b = {0};
    cr_expect_eq(
        sg_tpl_render(sg_tpl_set_get(s, "one"), &b, (const sg_slot[]){{"x", "X", 0}}, 1, NULL), 0);
    cr_expect_str_eq(b.data, "line X"); /* the last newline is not part of a section */
    sg_buf_free(&b);
    cr_expect_eq(sg_tpl_render(sg_tpl_set_get(s, "two"), &b, NULL, 0, NULL), 0);
    cr_expect_str_eq(b.data, "first\nsecond\n");
    sg_buf_free(&b);
    cr_expect_eq(sg_tpl_render(sg_tpl_set_get(s, "empty"), &b, NULL, 0, NULL), 0);
    cr_expect_eq(b.len, 0);
    sg_buf_free(&b);
}

Test(emit, template_set_errors) {
    char err[256] = "";
    const char *dup = "%% a\nx\n%% a\ny\n";
    cr_expect_null(sg_tpl_set_parse(A, "set.in", dup, strlen(dup), err, sizeof err));
    cr_expect(strstr(err, "set.in:3: section 'a' appears twice"), "%s", err);
    const char *bad = "%% a b\nx\n";
    cr_expect_null(sg_tpl_set_parse(A, "set.in", bad, strlen(bad), err, sizeof err));
    cr_expect(strstr(err, "set.in:1: bad section name"), "%s", err);
    cr_expect_null(sg_tpl_set_load(A, "/nonexistent", "bodies.in", err, sizeof err));
    cr_expect(strstr(err, "cannot read template /nonexistent/bodies.in"), "%s", err);
}

/* ---- kinds, kernel parameter types, names with a namespace -------------------------------- */
Test(emit, arg_kinds_and_kernel_types) {
    const sg_schema *s = parse("f(Tensor a, Tensor? b, Tensor[] c, Tensor?[] d, int[1]? e, "
                               "float[]? g, Device? h, int i, Scalar j, bool[3] k, str? l, "
                               "Dimname m) -> Tensor");
    const char *kinds[] = {"tensor",       "opt_tensor",     "tensor_list", "opt_tensor_list",
                           "opt_int_list", "opt_float_list", "opt_device",  "int",
                           "scalar",       "bool_list",      "opt_str"};
    for (int i = 0; i < 11; i++) cr_expect_str_eq(sg_arg_kind(s->args[i].type), kinds[i]);
    cr_expect_null(sg_arg_kind(s->args[11].type));
    cr_expect_str_eq(sg_ret_kind(s->rets[0].type), "tensor");
    cr_expect_str_eq(sg_ret_kind(parse("f() -> Tensor[]")->rets[0].type), "tensor_list");
    cr_expect_null(sg_ret_kind(parse("f() -> int[]")->rets[0].type));
    /* docs/kernels.md: the kernel form of each shim parameter */
    sg_cparam *p = NULL;
    int n = 0, bad = 0;
    const char *why = NULL;
    const sg_schema *k = parse("f(Tensor a, Tensor? b, Tensor?[] d, int[1]? e, float[]? g, "
                               "Device? h, int[] q) -> Tensor");
    cr_assert_eq(sg_shim_params(A, k, NULL, 0, &p, &n, &why, &bad), 0);
    sg_buf b = {0};
    for (int i = 0; i < n; i++)
        sg_buf_printf(&b, "%s%s %s", i ? ", " : "", sg_kernel_param_type(k, &p[i]), p[i].name);
    cr_expect_str_eq(b.data, "AtenTensorHandle a, AtenTensorHandle b, const AtenTensorHandle* d, "
                             "int64_t d_len_, const int64_t* e, int64_t e_len_, const double* g, "
                             "int64_t g_len_, int32_t* h, int32_t h_index_, const int64_t* q, "
                             "int64_t q_len_, AtenTensorHandle* ret0");
    sg_buf_free(&b);
}

Test(emit, c_names_with_a_namespace) {
    cr_expect_str_eq(
        sg_shim_c_name(A, "cpu", parse("myops::add_scalar(Tensor input, float scalar) -> Tensor"),
                       1),
        "aoti_torch_cpu_myops_add_scalar");
    cr_expect_str_eq(sg_shim_c_name(A, "aten", parse("myops::f.out(Tensor a) -> Tensor"), 2),
                     "aoti_torch_aten_myops_f_out_v2");
    cr_expect_str_eq(sg_shim_c_name(A, "cpu", parse("aten::abs(Tensor a) -> Tensor"), 1),
                     "aoti_torch_cpu_abs");
}

/* ---- bodies, boxed kernels, registration: the shape of examples/golden/ ------------------- */
static const char *kGolden =
    "- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
    "  dispatch:\n"
    "    CPU: shimrt_cpu_add_tensor\n"
    "  tags: [core, pointwise]\n"
    "- func: copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)\n"
    "  dispatch:\n"
    "    CPU: shimrt_cpu_copy_\n"
    "- func: sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? "
    "dtype=None) -> Tensor\n"
    "  dispatch:\n"
    "    CPU: shimrt_cpu_sum_dim_intlist\n"
    "  tags: core\n"
    "- func: view(Tensor(a) self, SymInt[] size) -> Tensor(a)\n"
    "  dispatch:\n"
    "    CompositeExplicitAutograd: shimrt_view\n"
    "- func: myops::add_scalar(Tensor input, float scalar) -> Tensor\n"
    "  dispatch:\n"
    "    CompositeExplicitAutograd: myops_add_scalar\n";
static const char *kGoldenOps =
    "backends: [cpu]\n"
    "fallback_ops:\n  aten.add.Tensor: {}\n  aten.copy_.default: {}\n  aten.sum.dim_IntList: {}\n"
    "  aten.view.default: {}\n  myops.add_scalar.default: {}\n"
    "aten_ops:\n  aten.add.Tensor: {}\n  aten.copy_.default: {}\n  aten.sum.dim_IntList: {}\n";
static const char *kTags = "- tag: core\n  desc: c\n- tag: pointwise\n  desc: p\n";

static char *out_text(const sg_options *o, const char *file) {
    char *text = NULL;
    size_t len;
    cr_assert_eq(sg_fs_read(sg_arena_printf(A, "%s/%s", o->out_dir, file), &text, &len), 0, "no %s",
                 file);
    char *copy = sg_arena_strdup(A, text);
    free(text);
    return copy;
}
#define expect_in(text, sub)                                                                       \
    cr_expect(strstr((text), (sub)) != NULL, "expected\n%s\nin\n%s", (sub), (text))

static void gen_golden(sg_options *o) {
    cr_assert_eq(load("native_functions", kGolden), 0, "%s", dtext());
    cr_assert_eq(load("tags", kTags), 0, "%s", dtext());
    cr_assert_eq(load("shim_ops", kGoldenOps), 0, "%s", dtext());
    cr_assert_eq(sg_finalize(ctx), 0, "%s", dtext());
    o->out_dir = sg_arena_printf(A, "%s/out", tmpdir);
    cr_assert_eq(sg_generate(ctx, o), 0, "%s", dtext());
}

Test(emit, bodies_have_the_golden_shape) {
    sg_options o = {0};
    gen_golden(&o); /* no --backends: `backends: [cpu]` of shim_ops.yaml */
    cr_expect_eq(count_entries(o.out_dir), 9,
                 "c_shim_{cpu,aten}.{h,c}, c_boxed_cpu.{h,c}, "
                 "2 kernel headers, manifest");
    const char *k = out_text(&o, "cpu_kernels.h");
    expect_in(k, "#include \"compositeexplicitautograd_kernels.h\"\n");
    expect_in(k,
              "AOTITorchError shimrt_cpu_sum_dim_intlist(AtenTensorHandle self, const int64_t* "
              "dim, int64_t dim_len_, int32_t keepdim, int32_t* dtype, AtenTensorHandle* ret0);");
    expect_in(k, "AOTITorchError shimrt_cpu_copy_(AtenTensorHandle self, AtenTensorHandle src, "
                 "int32_t non_blocking);");
    const char *ce = out_text(&o, "compositeexplicitautograd_kernels.h");
    expect_in(ce, "AOTITorchError myops_add_scalar(AtenTensorHandle input, double scalar, "
                  "AtenTensorHandle* ret0);");
    expect_in(ce, "AOTITorchError shimrt_view(AtenTensorHandle self, const int64_t* size, "
                  "int64_t size_len_, AtenTensorHandle* ret0);");
    cr_expect_null(strstr(ce, "shimrt_cpu_"));

    const char *c = out_text(&o, "c_shim_cpu.c");
    expect_in(c, "#include <shimrt/shim_support.h>\n\n#include \"c_shim_cpu.h\"\n"
                 "#include \"compositeexplicitautograd_kernels.h\"\n#include \"cpu_kernels.h\"\n");
    expect_in(
        c,
        "/* aten.add.Tensor: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
        " * kernel: shimrt_cpu_add_tensor (CPU) */\n"
        "AOTITorchError shimrt_entry_cpu_add_Tensor(AtenTensorHandle self, AtenTensorHandle "
        "other, shimrt_scalar alpha, AtenTensorHandle* ret0) {\n"
        "    SHIMRT_ARG_TENSOR(self);\n    SHIMRT_ARG_TENSOR(other);\n"
        "    SHIMRT_ARG_RET(ret0);\n"
        "    return shimrt_cpu_add_tensor(self, other, alpha, ret0);\n}\n");
    /* the C shim: its double is a floating Scalar, and its entry does the rest */
    expect_in(c, "AOTITorchError aoti_torch_cpu_add_Tensor(AtenTensorHandle self, AtenTensorHandle "
                 "other, double alpha, AtenTensorHandle* ret0) {\n"
                 "    SHIMRT_ARG_TENSOR(self);\n    SHIMRT_ARG_TENSOR(other);\n"
                 "    SHIMRT_ARG_RET(ret0);\n"
                 "    return shimrt_entry_cpu_add_Tensor(self, other, shimrt_scalar_double(alpha), "
                 "ret0);\n}\n");
    expect_in(c, "    SHIMRT_ARG_OPT_LIST(dim);\n    SHIMRT_ARG_RET(ret0);\n"
                 "    return shimrt_cpu_sum_dim_intlist(self, SHIMRT_OPT_LIST(dim), "
                 "SHIMRT_OPT_LIST_LEN(dim), keepdim, dtype, ret0);\n");
    expect_in(c, "AOTITorchError aoti_torch_cpu_myops_add_scalar(AtenTensorHandle input, double "
                 "scalar, AtenTensorHandle* ret0) {\n    SHIMRT_ARG_TENSOR(input);\n"
                 "    SHIMRT_ARG_RET(ret0);\n    return myops_add_scalar(input, scalar, ret0);\n}");

    const char *a = out_text(&o, "c_shim_aten.c");
    expect_in(a,
              "AOTITorchError aoti_torch_aten_copy_(AtenTensorHandle self, AtenTensorHandle src, "
              "int32_t non_blocking) {\n    static shimrt_op_cache op_;\n"
              "    StableIValue stack_[3];\n    shimrt_pack pack_;\n"
              "    shimrt_pack_begin(&pack_, __func__, stack_, 3);\n"
              "    shimrt_pack_tensor(&pack_, \"self\", self);\n"
              "    shimrt_pack_tensor(&pack_, \"src\", src);\n"
              "    shimrt_pack_bool(&pack_, non_blocking);\n"
              "    SHIMRT_TRY(shimrt_pack_call(&pack_, &op_, \"aten::copy_\", \"\"));\n"
              "    shimrt_pop_discard(SHIMRT_KIND_TENSOR, stack_[0]);\n"
              "    return AOTI_TORCH_SUCCESS;\n}");
    expect_in(a,
              "    SHIMRT_ARG_RET(ret0);\n    shimrt_pack_begin(&pack_, __func__, stack_, 4);\n");
    expect_in(a,
              "    shimrt_pack_opt_int_list(&pack_, \"dim\", dim, dim_len_);\n"
              "    shimrt_pack_bool(&pack_, keepdim);\n    shimrt_pack_opt_code(&pack_, dtype);\n"
              "    SHIMRT_TRY(shimrt_pack_call(&pack_, &op_, \"aten::sum\", \"dim_IntList\"));\n"
              "    *ret0 = siv_to_tensor(stack_[0]);\n");

    const char *b = out_text(&o, "c_boxed_cpu.c");
    expect_in(
        b,
        "void boxed_cpu_copy_(StableIValue* stack_, uint64_t num_args_, uint64_t num_outputs_) {\n"
        "    static const unsigned char arg_kinds_[3] = {SHIMRT_KIND_TENSOR, SHIMRT_KIND_TENSOR, "
        "SHIMRT_KIND_NONE};\n"
        "    shimrt_box box_;\n"
        "    if (shimrt_box_begin(&box_, \"copy_\", stack_, num_args_, 3, num_outputs_, 1, "
        "arg_kinds_) != AOTI_TORCH_SUCCESS) return;\n"
        "    AtenTensorHandle self = shimrt_box_tensor(&box_, 0);\n"
        "    AtenTensorHandle src = shimrt_box_tensor(&box_, 1);\n"
        "    int32_t non_blocking = shimrt_box_bool(&box_, 2);\n"
        "    shimrt_box_keep(&box_, 0);\n"
        "    SHIMRT_BOX_CALL(&box_, aoti_torch_cpu_copy_(self, src, non_blocking));\n"
        "    shimrt_box_release_args(&box_);\n"
        "    shimrt_box_push_alias(&box_, 0, 0);\n    shimrt_box_finish(&box_);\n}");
    expect_in(b, "    static const unsigned char arg_kinds_[4] = {SHIMRT_KIND_TENSOR, "
                 "SHIMRT_KIND_OPT_INT_LIST, SHIMRT_KIND_NONE, SHIMRT_KIND_OPT_CODE};\n");
    expect_in(b,
              "    const int64_t* dim_v_ = NULL;\n    int64_t dim_len_ = 0;\n"
              "    const int64_t** dim = shimrt_box_opt_int_list(&box_, 1, &dim_v_, &dim_len_);\n");
    /* a Scalar keeps its ScalarHandle's kind: the boxed kernel calls the shim's entry */
    expect_in(b, "    shimrt_scalar alpha = shimrt_box_scalar_value(&box_, 2);\n");
    expect_in(b, "AOTITorchError shimrt_entry_cpu_add_Tensor(AtenTensorHandle self, "
                 "AtenTensorHandle other, shimrt_scalar alpha, AtenTensorHandle* ret0);\n");
    expect_in(b, "SHIMRT_BOX_CALL(&box_, shimrt_entry_cpu_add_Tensor(self, other, alpha, &ret0));");
    /* Registration: one function per namespace, schemas without the namespace, tags. */
    expect_in(b, "static const shimrt_def_entry defs_aten[4] = {\n"
                 "    {\"add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\", "
                 "SHIMRT_TAG_BIT(CORE) | SHIMRT_TAG_BIT(POINTWISE)},\n"
                 "    {\"copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> "
                 "Tensor(a!)\", 0},\n");
    expect_in(b, "static const shimrt_impl_entry impls_aten_cpu[4] = {\n"
                 "    {\"add.Tensor\", boxed_cpu_add_Tensor},\n");
    expect_in(b,
              "AOTITorchError shimgen_register_aten_cpu(TorchLibraryHandle* ret_def, "
              "TorchLibraryHandle* ret_impl) {\n    return shimrt_register_ops(\"aten\", \"CPU\", "
              "__FILE__, __LINE__, defs_aten, 4, impls_aten_cpu, 4, ret_def, ret_impl);\n}");
    expect_in(b, "    {\"add_scalar(Tensor input, float scalar) -> Tensor\", 0},\n");
    expect_in(b, "    {\"add_scalar\", boxed_cpu_myops_add_scalar},\n");
    expect_in(b, "shimrt_register_ops(\"myops\", \"CPU\", __FILE__, __LINE__, defs_myops, 1, "
                 "impls_myops_cpu, 1, ret_def, ret_impl);");
    const char *bh = out_text(&o, "c_boxed_cpu.h");
    expect_in(bh, "AOTI_TORCH_EXPORT AOTITorchError shimgen_register_myops_cpu(TorchLibraryHandle* "
                  "ret_def, TorchLibraryHandle* ret_impl);");
    expect_in(
        bh,
        "void boxed_cpu_view(StableIValue* stack_, uint64_t num_args_, uint64_t num_outputs_);");
    const char *m = out_text(&o, "shim_manifest.json");
    expect_in(m, "\"name\": \"shimgen_register_myops_cpu\", \"namespace\": \"myops\"");
    expect_in(m, "\"c_boxed_cpu.c\"");
    cr_expect_null(strstr(dtext(), "warning"), "%s", dtext());
}

Test(emit, backends_from_shim_ops) {
    /* Only CPU kernels: the default cpu,cuda fails; `backends: [cpu]` makes it pass; the
     * lists of two directories are merged; --backends still wins. */
    const char *ops = "- func: f(Tensor self) -> Tensor\n  dispatch:\n    CPU: f_cpu\n";
    cr_assert_eq(load("native_functions", ops), 0, "%s", dtext());
    cr_assert_eq(load("shim_ops", "backends: [CPU]\nfallback_ops:\n  aten.f.default: {}\n"), 0);
    cr_assert_eq(load("shim_ops", "backends: [cpu, mps]\n"), 0, "%s", dtext());
    int n = 0;
    const char *const *b = sg_context_backends(ctx, &n);
    cr_assert_eq(n, 2);
    cr_expect_str_eq(b[0], "cpu");
    cr_expect_str_eq(b[1], "mps");
    cr_assert_eq(sg_finalize(ctx), 0, "%s", dtext());
    sg_options o = {.out_dir = sg_arena_printf(A, "%s/out", tmpdir)};
    cr_expect_eq(sg_generate(ctx, &o), -1); /* mps: no dispatch key of that name */
    expect_diag("unknown backend 'mps'");
    const char *const cpu[] = {"cpu"};
    o.backends = cpu;
    o.n_backends = 1;
    cr_expect_eq(sg_generate(ctx, &o), 0, "%s", dtext());
    struct stat st;
    cr_expect_eq(stat(sg_arena_printf(A, "%s/c_shim_cpu.c", o.out_dir), &st), 0);
    cr_expect_neq(stat(sg_arena_printf(A, "%s/c_shim_cuda.h", o.out_dir), &st), 0);
}

Test(emit, backends_bad_values) {
    cr_expect_eq(load("shim_ops", "backends: cpu\n"), -1);
    expect_diag("'backends' must be a list of backend names like [cpu, cuda], not a string");
    cr_expect_eq(load("shim_ops", "backends: [c-p-u, [x]]\n"), -1);
    expect_diag("bad backend name 'c-p-u'");
    expect_diag("bad backend name 'a list'");
    cr_expect_eq(load("shim_ops", "backend: [cpu]\n"), -1);
    expect_diag("unknown section 'backend' (expected 'fallback_ops', 'aten_ops' or 'backends')");
}

Test(emit, versions_call_the_highest_with_defaults) {
    const char *ops = "- func: n(Tensor self, float[] w, Tensor? bias=None, float eps=1e-05, "
                      "int[2] st=1, str mode=\"a\\\"b\", bool flag=True, int[] dims=[0,-1], "
                      "MemoryFormat fmt=contiguous_format) -> Tensor\n"
                      "  dispatch:\n    CPU: n_cpu\n";
    cr_assert_eq(load("native_functions", ops), 0, "%s", dtext());
    cr_assert_eq(load("shim_ops", "backends: [cpu]\nfallback_ops:\n  aten.n.default: "
                                  "{versions: {v2: [bias, eps], v3: [st, mode, flag, dims, fmt]}}\n"
                                  "aten_ops:\n  aten.n.default: {versions: {v2: [bias]}}\n"),
                 0, "%s", dtext());
    cr_assert_eq(sg_finalize(ctx), 0, "%s", dtext());
    sg_options o = {.out_dir = sg_arena_printf(A, "%s/out", tmpdir)};
    cr_assert_eq(sg_generate(ctx, &o), 0, "%s", dtext());
    const char *c = out_text(&o, "c_shim_cpu.c");
    expect_in(c, "    return aoti_torch_cpu_n_v3(self, w, w_len_, bias, eps, (const int64_t[])"
                 "{INT64_C(1), INT64_C(1)}, 2, \"a\\\"b\", 1, (const int64_t[]){INT64_C(0), "
                 "INT64_C(-1)}, 2, 0, ret0);");
    expect_in(c, "    return aoti_torch_cpu_n_v3(self, w, w_len_, NULL, (double)1e-05, ");
    const char *a = out_text(&o, "c_shim_aten.c");
    expect_in(a, "AOTITorchError aoti_torch_aten_n(AtenTensorHandle self, const double* w, int64_t "
                 "w_len_, double eps, ");
    expect_in(a, "    return aoti_torch_aten_n_v2(self, w, w_len_, NULL, eps, st, st_len_, mode, "
                 "flag, dims, dims_len_, fmt, ret0);");
}

/* Only the structured_delegate conflict is left without a body: every argument and return
 * kind of the C shim rules has a dispatcher (pack_/pop_) and a boxed (box_/ret_/push_) form. */
Test(emit, bodies_without_a_form_fail_at_run_time_with_a_warning) {
    const char *ops =
        "- func: blend(Tensor self, float w=0.5) -> Tensor\n  structured_delegate: blend.out\n"
        "- func: blend.out(Tensor self, float w=0.5, *, Tensor(a!) out) -> Tensor(a!)\n"
        "  structured: True\n  dispatch:\n    CPU: blend_out_cpu\n"
        "- func: masked(Tensor self, bool[3] mask, int[]? o=None, DeviceIndex? di=None) -> Tensor\n"
        "  dispatch:\n    CPU: masked_cpu\n";
    cr_assert_eq(load("native_functions", ops), 0, "%s", dtext());
    cr_assert_eq(load("shim_ops",
                      "backends: [cpu]\nfallback_ops:\n  aten.blend.default: {}\n"
                      "  aten.blend.out: {}\n  aten.masked.default: {versions: {v2: [o]}}\n"
                      "aten_ops:\n  aten.masked.default: {}\n"),
                 0, "%s", dtext());
    cr_assert_eq(sg_finalize(ctx), 0, "%s", dtext());
    sg_options o = {.out_dir = sg_arena_printf(A, "%s/out", tmpdir)};
    cr_assert_eq(sg_generate(ctx, &o), 0, "%s", dtext());
    expect_diag("warning: aten.blend.default: aoti_torch_cpu_blend: its CPU kernel blend_out_cpu "
                "is declared with the prototype of aten.blend.out (it comes from the "
                "structured_delegate)");
    /* bool[3] and DeviceIndex? now have forms: no warning about masked */
    cr_expect_null(strstr(dtext(), "aten.masked"), "%s", dtext());
    const char *c = out_text(&o, "c_shim_cpu.c");
    expect_in(c,
              "AOTITorchError aoti_torch_cpu_blend(AtenTensorHandle self, double w, "
              "AtenTensorHandle* ret0) {\n    (void)self;\n    (void)w;\n    (void)ret0;\n"
              "    return shimrt_set_error(__func__, \"its CPU kernel blend_out_cpu is declared");
    /* `int[]? o=None` has a C default: v1 calls v2 with NULL, 0. */
    expect_in(c, "    return aoti_torch_cpu_masked_v2(self, mask, mask_len_, NULL, 0, di, ret0);");
    const char *k = out_text(&o, "cpu_kernels.h");
    expect_in(
        k, "AOTITorchError blend_out_cpu(AtenTensorHandle out, AtenTensorHandle self, double w);");
    const char *at = out_text(&o, "c_shim_aten.c");
    expect_in(at, "    shimrt_pack_bool_list(&pack_, \"mask\", mask, mask_len_);\n"
                  "    shimrt_pack_opt_int_list(&pack_, \"o\", o, o_len_);\n"
                  "    shimrt_pack_opt_device_index(&pack_, di);\n");
    cr_expect_null(strstr(at, "shimrt_set_error"), "%s", at);
    const char *b = out_text(&o, "c_boxed_cpu.c");
    expect_in(b, "    int32_t* di = shimrt_box_opt_device_index(&box_, 3, &di_v_);\n");
    expect_in(b, "    {\"masked\", boxed_cpu_masked_v2},");
    expect_in(
        b, "\"masked(Tensor self, bool[3] mask, int[]? o=None, DeviceIndex? di=None) -> Tensor\"");
    /* -q: the same output, no warnings */
    free(D.text);
    memset(&D, 0, sizeof D);
    o.verbosity = -1;
    o.check = true;
    FILE *saved = stdout;
    stdout = fopen("/dev/null", "w");
    int rc = sg_generate(ctx, &o);
    fclose(stdout);
    stdout = saved;
    cr_expect_eq(rc, 0, "%s", dtext());
    cr_expect_null(strstr(dtext(), "warning"), "%s", dtext());
}

/* The shipped template set has every form for every kind of gen/kinds.c
 * (templates/bodies.in): pack_ and box_ for an argument kind, pop_, ret_ and push_ for a
 * kind that returns. */
Test(emit, every_kind_has_every_form) {
    char err[256];
    const sg_tpl_set *t =
        sg_tpl_set_load(A, sg_tpl_find_dir(A, NULL), "bodies.in", err, sizeof err);
    cr_assert(t, "%s", err);
    int n_rets = 0;
    for (int k = 1; k < SG_K_COUNT_; k++) {
        const sg_kind_info *ki = sg_kind_get((sg_kind)k);
        cr_assert(ki && ki->name && ki->c_type && ki->kernel_type && ki->siv);
        char types[128];
        cr_expect_gt(sg_kind_schema_types((sg_kind)k, false, types, sizeof types), 0,
                     "kind %s: no schema type", ki->name);
        for (int f = 0; f < 2; f++) {
            const char *sec = sg_arena_printf(A, "%s_%s", f ? "box" : "pack", ki->name);
            cr_expect(sg_tpl_set_get(t, sec) != NULL, "no section %s", sec);
        }
        bool returns = sg_kind_schema_types((sg_kind)k, true, types, sizeof types) > 0;
        cr_expect_eq(returns, ki->ret_type != NULL, "kind %s: returns and ret_type disagree",
                     ki->name);
        if (!returns) continue;
        n_rets++;
        for (int f = 0; f < 3; f++) {
            static const char *const form[] = {"pop", "ret", "push"};
            const char *sec = sg_arena_printf(A, "%s_%s", form[f], ki->name);
            cr_expect(sg_tpl_set_get(t, sec) != NULL, "no section %s", sec);
        }
    }
    cr_expect_eq(n_rets, 9);
    cr_expect_null(sg_tpl_set_get(t, "pack_no_such_kind"));
}

/* The kinds table of templates/README.md is gen/kinds.c's table, rendered. */
static void kinds_markdown(sg_buf *b) {
    sg_buf_puts(b, "| kind | argument types | return types | shim parameter | kernel parameter | "
                   "StableIValue | owns | runtime code |\n| --- | --- | --- | --- | --- | --- | "
                   "--- | --- |\n");
    for (int k = 1; k < SG_K_COUNT_; k++) {
        const sg_kind_info *ki = sg_kind_get((sg_kind)k);
        char at[128], rt[128];
        sg_kind_schema_types((sg_kind)k, false, at, sizeof at);
        sg_kind_schema_types((sg_kind)k, true, rt, sizeof rt);
        const char *extra = ki->shape == SG_SHAPE_LIST     ? ", `int64_t x_len_`"
                            : ki->shape == SG_SHAPE_DEVICE ? ", `int32_t x_index_`"
                                                           : "";
        const char *ret = *rt ? sg_arena_printf(A, "%s (`%s retN`)", rt, ki->ret_type) : "-";
        sg_buf_printf(b, "| `%s` | %s | %s | `%s x`%s | `%s` | %s | %s | %d |\n", ki->name, at, ret,
                      ki->c_type, extra, ki->kernel_type, ki->siv, ki->owns ? "yes" : "no",
                      ki->code);
    }
}

Test(emit, kinds_table_is_documented) {
    sg_buf want = {0};
    kinds_markdown(&want);
    char *readme = NULL;
    size_t len = 0;
    const char *dir = sg_tpl_find_dir(A, NULL);
    cr_assert(dir);
    cr_assert_eq(sg_fs_read(sg_arena_printf(A, "%s/README.md", dir), &readme, &len), 0);
    bool found = strstr(readme, want.data) != NULL;
    if (!found) {
        FILE *f = fopen(sg_arena_printf(A, "%s/kinds.md", tmpdir), "w");
        if (f) {
            fputs(want.data, f);
            fclose(f);
        }
    }
    cr_expect(found, "templates/README.md does not hold gen/kinds.c's table; it is:\n%s",
              want.data);
    free(readme);
    sg_buf_free(&want);
}

Test(emit, default_without_a_c_form_gives_a_failing_version) {
    const char *ops =
        "- func: g(Tensor self, int[]? o=[1]) -> Tensor\n  dispatch:\n    CPU: g_cpu\n";
    cr_assert_eq(load("native_functions", ops), 0, "%s", dtext());
    cr_assert_eq(load("shim_ops",
                      "backends: [cpu]\nfallback_ops:\n  aten.g.default: {versions: {v2: [o]}}\n"),
                 0);
    cr_assert_eq(sg_finalize(ctx), 0, "%s", dtext());
    sg_options o = {.out_dir = sg_arena_printf(A, "%s/out", tmpdir)};
    cr_assert_eq(sg_generate(ctx, &o), 0, "%s", dtext());
    expect_diag(
        "aten.g.default: aoti_torch_cpu_g: v1: the default '[1]' of argument 'o' has no C form");
    expect_in(out_text(&o, "c_shim_cpu.c"), "    return shimrt_set_error(__func__, \"v1: the "
                                            "default '[1]' of argument 'o' has no C form\");");
}

Test(emit, bodies_template_set_missing_a_section) {
    const char *src = sg_tpl_find_dir(A, NULL);
    cr_assert(src);
    char *dir = sg_arena_printf(A, "%s/tpl", tmpdir);
    cr_assert_eq(mkdir(dir, 0777), 0);
    DIR *d = opendir(src);
    cr_assert(d);
    struct dirent *ent;
    while ((ent = readdir(d))) {
        if (!strstr(ent->d_name, ".in")) continue;
        char *text = NULL;
        size_t len;
        cr_assert_eq(sg_fs_read(sg_arena_printf(A, "%s/%s", src, ent->d_name), &text, &len), 0);
        if (strcmp(ent->d_name, "bodies.in") == 0) *strstr(text, "%% shim_body\n") = '\0';
        write_file(sg_arena_printf(A, "%s/%s", dir, ent->d_name), text);
        free(text);
    }
    closedir(d);
    sg_options o = {.templates_dir = dir};
    cr_expect_eq(gen("fallback_ops:\n  aten.a.default: {}\n", &o), -1);
    expect_diag("/tpl/bodies.in:0:0: error: template set has no section '");
    cr_expect_eq(count_entries(tmpdir), 1); /* only tpl/ */
}

/* `fallback_ops: all` / `aten_ops: all`: every function written in the native_functions.yaml
 * of the same directory, none of another directory's, no derived one; listed ops are not
 * repeated; any other scalar is an error. */
Test(emit, shim_ops_all) {
    const char *a = "- func: f(Tensor self) -> Tensor\n  dispatch:\n    CPU: f_cpu\n"
                    "- func: g.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
                    "  dispatch:\n    CPU: g_out\n  autogen: g\n";
    const char *b = "- func: h(Tensor self) -> Tensor\n  dispatch:\n    CPU: h_cpu\n";
    cr_assert_eq(sg_load_buffer(ctx, "native_functions", "a/native_functions.yaml", a, strlen(a)),
                 0, "%s", dtext());
    cr_assert_eq(sg_load_buffer(ctx, "native_functions", "b/native_functions.yaml", b, strlen(b)),
                 0, "%s", dtext());
    const char *ops = "fallback_ops: all\naten_ops:\n  aten.f.default: {since: \"2.12\"}\n";
    const char *ops_a = "aten_ops: all\n";
    cr_assert_eq(sg_load_buffer(ctx, "shim_ops", "a/shim_ops.yaml", ops, strlen(ops)), 0, "%s",
                 dtext());
    cr_assert_eq(sg_load_buffer(ctx, "shim_ops", "a/x/shim_ops.yaml", ops_a, strlen(ops_a)), 0,
                 "%s", dtext());
    cr_assert_eq(sg_finalize(ctx), 0, "%s", dtext());
    const sg_model *m = sg_context_model_mut(ctx);
    /* a/: f and g.out in fallback_ops; f listed in aten_ops with its since; a/x/ has no
     * functions, so its `all` adds nothing. */
    cr_assert_eq(m->n_shim_ops, 3);
    cr_expect_str_eq(m->shim_ops[0].key, "aten.f.default");
    cr_expect(m->shim_ops[0].aten);
    cr_expect_str_eq(m->shim_ops[0].since, "2.12");
    cr_expect_str_eq(m->shim_ops[1].key, "aten.f.default");
    cr_expect(!m->shim_ops[1].aten);
    cr_expect_str_eq(m->shim_ops[2].key, "aten.g.out");
    cr_expect(!m->shim_ops[2].aten);
    for (int i = 0; i < 3; i++) cr_expect(m->shim_ops[i].fn != NULL);
}

Test(emit, shim_ops_all_only_all) {
    const char *ops = "fallback_ops: every\n";
    cr_expect_neq(load("shim_ops", ops), 0);
    expect_diag(
        "shim_ops:1:15: error: 'fallback_ops' must be a mapping of op keys or 'all', not a string");
}

/* gen/kinds.c and the runtime's list of kind codes (shimrt/codes.h) agree: every kind that
 * owns something has the code of its name, and the schema type the runtime releases that
 * code like is of the same kind; a kind that owns nothing is SHIMRT_KIND_NONE. */
Test(emit, kind_codes_match_the_runtime) {
#define ROW_(N, name, code, type) {#N, #name, code, type},
    static const struct {
        const char *upper, *name;
        int code;
        const char *type;
    } rt[] = {SHIMRT_KINDS(ROW_)};
#undef ROW_
    int owning = 0;
    for (int k = 1; k < SG_K_COUNT_; k++) {
        const sg_kind_info *ki = sg_kind_get((sg_kind)k);
        if (!ki->owns) {
            cr_expect_str_eq(sg_kind_code_name(ki), "SHIMRT_KIND_NONE", "%s", ki->name);
            continue;
        }
        owning++;
        size_t r = 0;
        while (r < sizeof rt / sizeof *rt && strcmp(rt[r].name, ki->name) != 0) r++;
        cr_assert_lt(r, sizeof rt / sizeof *rt, "kind %s has no runtime code", ki->name);
        cr_expect_eq(rt[r].code, ki->code, "%s", ki->name);
        cr_expect_str_eq(sg_kind_code_name(ki), sg_arena_printf(A, "SHIMRT_KIND_%s", rt[r].upper));
        const sg_schema *s = parse(sg_arena_printf(A, "f(%s x) -> ()", rt[r].type));
        cr_expect_eq(sg_kind_of_arg(s->args[0].type), (sg_kind)k, "%s: %s", ki->name, rt[r].type);
    }
    cr_expect_eq(owning + 1, SHIMRT_NUM_KINDS);
}

/* Derived (`autogen`) out variants get a generated kernel in derived_kernels.c, as torchgen
 * generates them: the functional op through the dispatcher (its arguments packed in the
 * kernel's C form: a Tensor? kernel argument is a handle, packed by address), then
 * shimrt_autogen_out. One derived from an in-place function gets none, with a warning. */
Test(emit, derived_out_kernels) {
    const char *nf = "- func: f(Tensor self, Tensor? w, int k=2) -> (Tensor, Tensor)\n"
                     "  dispatch:\n    CPU: f_cpu\n  autogen: f.out\n"
                     "- func: g_(Tensor(a!) self) -> Tensor(a!)\n"
                     "  dispatch:\n    CPU: g_cpu_\n  autogen: g.out, g\n";
    cr_assert_eq(load("native_functions", nf), 0, "%s", dtext());
    cr_assert_eq(load("shim_ops", "fallback_ops:\n  aten.f.out: {}\n  aten.g.out: {}\n"), 0, "%s",
                 dtext());
    cr_assert_eq(sg_finalize(ctx), 0, "%s", dtext());
    sg_options o = {0};
    o.out_dir = sg_arena_printf(A, "%s/out", tmpdir);
    cr_assert_eq(sg_generate(ctx, &o), 0, "%s", dtext());
    char *text = NULL;
    size_t len;
    cr_assert_eq(sg_fs_read(sg_arena_printf(A, "%s/derived_kernels.c", o.out_dir), &text, &len), 0);
    cr_expect(strstr(text, "#include \"compositeexplicitautograd_kernels.h\""), "%s", text);
    cr_expect(strstr(text, "AOTITorchError f_out(AtenTensorHandle out0, AtenTensorHandle out1, "
                           "AtenTensorHandle self, AtenTensorHandle w, int64_t k) {"),
              "%s", text);
    cr_expect(strstr(text, "shimrt_pack_opt_tensor(&pack_, \"w\", w ? &w : NULL);"), "%s", text);
    cr_expect(strstr(text, "shimrt_pack_call(&pack_, &op_, \"aten::f\", \"\")"), "%s", text);
    cr_expect(strstr(text, "return shimrt_autogen_out(__func__, stack_, outs_, 2);"), "%s", text);
    cr_expect(strstr(text, "g_out") == NULL, "%s", text);
    expect_diag("aten.g.out: g_out: only out variants derived from a functional function");
    free(text);
}

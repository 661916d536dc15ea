/* tests/stable_ext/runner.c: loads a stable-ABI extension (argv[1]) with RTLD_NOW into a
 * process that has libshimrt and no libtorch, calls each of its ops through
 * torch_call_dispatcher and prints the results in the format of reference.py, which runs
 * the same extension built against libtorch and compares. Inputs are made here exactly as
 * reference.py makes them. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <shimrt/shimrt.h>

#define MAXRET 4

static AtenTensorHandle make(int64_t r, int64_t c, int kind) {
    int64_t sizes[2] = {r, c}, strides[2] = {c, 1};
    AtenTensorHandle t = NULL;
    int32_t dt = kind == 2 ? aoti_torch_dtype_int64() : aoti_torch_dtype_float32();
    if (aoti_torch_empty_strided(kind == 2 ? 1 : 2, kind == 2 ? (int64_t[]){3} : sizes,
                                 kind == 2 ? (int64_t[]){1} : strides, dt,
                                 aoti_torch_device_type_cpu(), 0, &t))
        return NULL;
    void *p;
    aoti_torch_get_data_ptr(t, &p);
    if (kind == 0) /* x[i] = i * 0.37 - 1.1 (float32) */
        for (int64_t i = 0; i < r * c; i++) ((float *)p)[i] = (float)((double)i * 0.37 - 1.1);
    else if (kind == 1) /* ties[i] = (i * 7) % 5 */
        for (int64_t i = 0; i < r * c; i++) ((float *)p)[i] = (float)((i * 7) % 5);
    else { /* idx = [2, 0, 3] */
        int64_t v[3] = {2, 0, 3};
        memcpy(p, v, sizeof v);
    }
    return t;
}

static const char *dtype_name(int32_t dt) {
    static const char *names[] = {"uint8",   "int8",    "int16", "int32",   "int64", "float16",
                                  "float32", "float64", NULL,    NULL,      NULL,    "bool",
                                  NULL,      NULL,      NULL,    "bfloat16"};
    return dt >= 0 && dt < 16 && names[dt] ? names[dt] : "other";
}

static int mask32; /* print integer values modulo 2^32 (the threads case) */

static void print_tensor(AtenTensorHandle t) {
    int64_t dim, numel, *sizes;
    int32_t dt;
    aoti_torch_get_dim(t, &dim);
    aoti_torch_get_numel(t, &numel);
    aoti_torch_get_sizes(t, &sizes);
    aoti_torch_get_dtype(t, &dt);
    /* read through a contiguous float64 copy (the runtime's conversions) */
    AtenTensorHandle c = NULL;
    int64_t n1[1] = {numel}, s1[1] = {1};
    aoti_torch_empty_strided(1, n1, s1, aoti_torch_dtype_float64(), aoti_torch_device_type_cpu(), 0,
                             &c);
    AtenTensorHandle cv = NULL;
    int64_t st[64];
    for (int64_t d = dim - 1, acc = 1; d >= 0; d--) st[d] = acc, acc *= sizes[d];
    aoti_torch__reinterpret_tensor(c, dim, sizes, st, 0, &cv);
    aoti_torch_copy_(cv, t, 0);
    double *v;
    aoti_torch_get_data_ptr(c, (void **)&v);
    printf("tensor %s [", dtype_name(dt));
    for (int64_t d = 0; d < dim; d++) printf(d ? ",%lld" : "%lld", (long long)sizes[d]);
    printf("]");
    for (int64_t i = 0; i < numel; i++)
        printf(" %.9g", mask32 ? (double)((int64_t)v[i] & 0xffffffffLL) : v[i]);
    printf("\n");
    aoti_torch_delete_tensor_object(cv);
    aoti_torch_delete_tensor_object(c);
}

static void run(const char *name, StableIValue *stack, int nrets) {
    printf("case %s\n", name);
    char qual[128];
    snprintf(qual, sizeof qual, "dropin_ext::%s", name);
    if (torch_call_dispatcher(qual, "", stack, TORCH_ABI_VERSION) != AOTI_TORCH_SUCCESS) {
        /* PyTorch's rule: the failed call owns (and released) the arguments */
        const char *msg = torch_exception_get_what();
        printf("error %s\n", strstr(msg, "need more than 100") ? "need more than 100 elements"
                             : strstr(msg, "out of range") || strstr(msg, "out of bounds")
                                 ? "index out of range"
                                 : msg);
        return;
    }
    for (int k = 0; k < nrets; k++) {
        print_tensor(siv_to_tensor(stack[k]));
        aoti_torch_delete_tensor_object(siv_to_tensor(stack[k]));
    }
}

/* "strides S0,S1,... offset" after a tensor line: the layout the op chose */
static void print_layout(AtenTensorHandle t) {
    int64_t dim, *st, off;
    aoti_torch_get_dim(t, &dim);
    aoti_torch_get_strides(t, &st);
    aoti_torch_get_storage_offset(t, &off);
    printf("strides");
    for (int64_t d = 0; d < dim; d++) printf(d ? ",%lld" : " %lld", (long long)st[d]);
    printf(" offset %lld\n", (long long)off);
}

static void print_str(StringHandle h) {
    const char *p;
    size_t n;
    torch_string_c_str(h, &p);
    torch_string_length(h, &n);
    printf("str %.*s\n", (int)n, p);
    torch_delete_string(h);
}

/* One return of kind k: T tensor (and its layout), B bool, I int, S str, V device, l int[],
 * w str[], x Tensor[]. Frees what it prints. */
static void print_value(char k, StableIValue v) {
    size_t n;
    StableIValue e;
    switch (k) {
    case 'T':
        print_tensor(siv_to_tensor(v));
        print_layout(siv_to_tensor(v));
        aoti_torch_delete_tensor_object(siv_to_tensor(v));
        break;
    case 'B': printf("bool %d\n", siv_to_bool(v)); break;
    case 'I': printf("int %lld\n", (long long)siv_to_int(v)); break;
    case 'S': print_str(siv_to_string(v)); break;
    case 'V': printf("device %d %d\n", siv_to_device_type(v), siv_to_device_index(v)); break;
    default: /* lists */
        torch_list_size(siv_to_list(v), &n);
        printf("list %zu\n", n);
        for (size_t i = 0; i < n; i++) {
            torch_list_get_item(siv_to_list(v), i, &e);
            print_value(k == 'l' ? 'I' : k == 'w' ? 'S' : 'T', e);
        }
        torch_delete_list(siv_to_list(v));
    }
}

/* Calls dropin_ext::name with stack; prints the returns by kinds (one letter each, see
 * print_value), then `after` (a tensor the op may have written; freed here) if given. */
static void call(const char *name, StableIValue *stack, const char *kinds, AtenTensorHandle after) {
    printf("case %s\n", name);
    char qual[128];
    snprintf(qual, sizeof qual, "dropin_ext::%s", name);
    if (torch_call_dispatcher(qual, "", stack, TORCH_ABI_VERSION) != AOTI_TORCH_SUCCESS)
        printf("error\n");
    else
        for (size_t k = 0; kinds[k]; k++) print_value(kinds[k], stack[k]);
    if (after) {
        print_tensor(after);
        aoti_torch_delete_tensor_object(after);
    }
}

static StableIValue str(const char *s) {
    StringHandle h = NULL;
    torch_new_string_handle(s, strlen(s), &h);
    return siv_from_string(h);
}

static StableIValue int_list(int n, const int64_t *v) {
    StableListHandle l = NULL;
    torch_new_list_reserve_size((size_t)n, &l);
    for (int i = 0; i < n; i++) torch_list_push_back(l, siv_from_int(v[i]));
    return siv_from_list(l);
}

static StableIValue opt(StableIValue v) {
    StableIValue o = 0;
    return siv_new_optional(v, &o) ? 0 : o;
}

static AtenTensorHandle another(AtenTensorHandle t) {
    AtenTensorHandle c = NULL;
    aoti_torch_new_tensor_handle(t, &c);
    return c;
}

/* The cases of the API ops (reference.py's api_cases() makes the same inputs). old: the
 * extension targets 2.10, without the ops of later releases. */
static void api_cases(int old) {
    StableIValue s[8];
    AtenTensorHandle x, t;
#define X() siv_from_tensor(make(4, 3, 0))
    s[0] = siv_from_device(aoti_torch_device_type_cuda(), 0), s[1] = siv_from_int(3);
    s[2] = str("cuda:2"), call("devices", s, "VVBIB", NULL);
    /* a returned Device whose index does not fit c10::DeviceIndex (int8): an error */
    s[0] = siv_from_device(aoti_torch_device_type_cuda(), 0), s[1] = siv_from_int(129);
    s[2] = str("cuda:2"), call("devices", s, "VVBIB", NULL);
    s[0] = X(), s[1] = str("numel"), s[2] = str("tail"), s[3] = str("ab");
    call("strings", s, "wSI", NULL);
    s[0] = X(), s[1] = str("bogus"), s[2] = str(""), s[3] = str(""),
    call("strings", s, "wSI", NULL);
    s[0] = X(), call("shapes", s, "ll", NULL);
    x = make(4, 3, 0);
    aoti_torch__reinterpret_tensor(x, 2, (int64_t[]){2, 4}, (int64_t[]){1, 3}, 1, &t);
    aoti_torch_delete_tensor_object(x);
    s[0] = siv_from_tensor(t), call("shapes", s, "ll", NULL);
    s[0] = X(), s[1] = siv_from_tensor(make(4, 3, 1)), s[2] = siv_from_double(0.5);
    s[3] = siv_from_tensor(make(0, 0, 2)), call("arith", s, "TTTTTTT", NULL);
    s[0] = X(), call("conversions", s, "TTTTTTT", NULL);
    aoti_torch_empty_strided(1, (int64_t[]){3}, (int64_t[]){1}, aoti_torch_dtype_float64(),
                             aoti_torch_device_type_cpu(), 0, &t);
    aoti_torch_zero_(t);
    s[0] = siv_from_tensor(another(t)), s[1] = X(), s[2] = opt(int_list(1, (int64_t[]){0}));
    s[3] = siv_from_bool(false), s[4] = opt(siv_from_scalar_type(aoti_torch_dtype_float64()));
    call("sum_into", s, "T", t);
    StableListHandle l = NULL;
    torch_new_list_reserve_size(2, &l);
    torch_list_push_back(l, X());
    torch_list_push_back(l, siv_from_tensor(make(3, 4, 1)));
    s[0] = siv_from_list(l), s[1] = opt(int_list(1, (int64_t[]){1})), s[2] = opt(X());
    call("lists", s, "x", NULL);
    torch_new_list_reserve_size(1, &l);
    torch_list_push_back(l, X());
    s[0] = siv_from_list(l), s[1] = 0, s[2] = 0, call("lists", s, "x", NULL);
    s[0] = X(), s[1] = siv_from_scalar_type(aoti_torch_dtype_float16());
    s[2] = siv_from_layout(aoti_torch_layout_strided());
    s[3] = siv_from_memory_format(aoti_torch_memory_format_channels_last());
    call("typed", s, "BIT", NULL);
    s[0] = X(), s[1] = siv_from_scalar_type(aoti_torch_dtype_int32());
    s[2] = siv_from_layout(aoti_torch_layout_strided());
    s[3] = siv_from_memory_format(aoti_torch_memory_format_contiguous_format());
    call("typed", s, "BIT", NULL);
    s[0] = X(), s[1] = siv_from_scalar_type(aoti_torch_dtype_bfloat16());
    s[2] = siv_from_layout(aoti_torch_layout_sparse_coo());
    s[3] = siv_from_memory_format(aoti_torch_memory_format_contiguous_format());
    call("typed", s, "BIT", NULL);
    /* uninitialized 2x3 tensors of these dtypes, each asked for as itself and as float32 */
    static const int32_t dts[] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,
                                  10, 11, 15, 23, 24, 25, 26, 27, 28, 29};
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++)
        for (int as_float = 0; as_float < 2; as_float++) {
            aoti_torch_empty_strided(2, (int64_t[]){2, 3}, (int64_t[]){3, 1}, dts[k],
                                     aoti_torch_device_type_cpu(), 0, &t);
            s[0] = siv_from_tensor(t);
            s[1] = siv_from_scalar_type(as_float ? aoti_torch_dtype_float32() : dts[k]);
            call("typed_ptr", s, "B", NULL);
        }
    s[0] = X(), call("empty_ptrs", s, "BBBB", NULL);
    t = make(4, 3, 0);
    s[0] = siv_from_tensor(another(t)), s[1] = siv_from_double(1.5), call("fill_rows", s, "", t);
    mask32 = 1;
    s[0] = siv_from_int(1000), s[1] = siv_from_int(7), call("threads", s, "T", NULL);
    /* a body throwing in the calling thread, in a worker, in a serial run; then none */
    static const int64_t throws[][3] = {{1000, 7, 0}, {1000, 7, 999}, {10, 100, 3}, {1000, 7, -1}};
    for (size_t k = 0; k < sizeof throws / sizeof *throws; k++) {
        s[0] = siv_from_int(throws[k][0]), s[1] = siv_from_int(throws[k][1]);
        s[2] = siv_from_int(throws[k][2]), call("threads_throw", s, "T", NULL);
    }
    mask32 = 0;
    s[0] = X(), call("legacy", s, "TT", NULL);
    if (old) return;
    s[0] = X(), call("tagged", s, "T", NULL);
    ShimrtOpHandle op = NULL;
    bool pw = false, core = false, inplace = true, cea = false, cpu = true;
    if (!shimrt_op_find("dropin_ext::tagged", "", &op)) {
        shimrt_op_has_tag(op, torch_tag_pointwise(), &pw);
        shimrt_op_has_tag(op, torch_tag_core(), &core);
        shimrt_op_has_tag(op, torch_tag_inplace(), &inplace);
        shimrt_op_has_kernel(op, "CompositeExplicitAutograd", &cea);
        shimrt_op_has_kernel(op, "CPU", &cpu);
    }
    printf("tags %d %d %d kernels %d %d\n", pw, core, inplace, cea, cpu);
    AtenGeneratorHandle g = NULL;
    shimrt_generator_new(aoti_torch_device_type_cpu(), -1, 42, &g);
    s[0] = int_list(2, (int64_t[]){2, 3}), s[1] = siv_from_generator(g);
    call("seeded", s, "T", NULL);
    s[0] = X(), s[1] = siv_from_tensor(make(3, 4, 1)), call("last_error", s, "BBB", NULL);
    s[0] = X(), s[1] = siv_from_tensor(make(3, 4, 1)), call("checked_subtract", s, "T", NULL);
#undef X
}

int main(int argc, char **argv) {
    if (argc != 2 && !(argc == 3 && !strcmp(argv[2], "old"))) {
        fprintf(stderr, "usage: runner EXTENSION.so [old]\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "runner: dlopen: %s\n", dlerror());
        return 1;
    }
#define X() siv_from_tensor(make(4, 3, 0))
    StableIValue s[MAXRET + 2];
    s[0] = X(), s[1] = siv_from_tensor(make(0, 0, 2)), run("pipeline", s, 1);
    s[0] = X(), run("reductions", s, 4);
    s[0] = X(), run("views", s, 1);
    s[0] = X(), s[1] = siv_from_double(1.75), run("creation", s, 3);
    s[0] = X(), run("info", s, 1);
    s[0] = X(), run("squares", s, 1);
    s[0] = X(), run("blobs", s, 1);
    s[0] = X(), s[1] = siv_from_tensor(make(3, 4, 1)), run("sorts", s, 3);
    s[0] = X(), s[1] = 0, run("opt_fill", s, 1); /* None */
    s[0] = X();
    if (siv_new_optional(siv_from_double(0.5), &s[1])) return 1;
    run("opt_fill", s, 1);
    s[0] = X(), run("foreach_mul", s, 3);
    s[0] = X(), s[1] = siv_from_tensor(make(0, 0, 2)), run("norms", s, 3);
    s[0] = X(), run("must_be_big", s, 1);
    s[0] = X(), run("bad_index", s, 1);
#undef X
    api_cases(argc == 3);
    printf("done\n");
    dlclose(h);
    return 0;
}

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
    printf("tensor %s [", dt == aoti_torch_dtype_float32()   ? "float32"
                          : dt == aoti_torch_dtype_float64() ? "float64"
                          : dt == aoti_torch_dtype_int64()   ? "int64"
                          : dt == aoti_torch_dtype_float16() ? "float16"
                                                             : "other");
    for (int64_t d = 0; d < dim; d++) printf(d ? ",%lld" : "%lld", (long long)sizes[d]);
    printf("]");
    for (int64_t i = 0; i < numel; i++) printf(" %.9g", v[i]);
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

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: runner EXTENSION.so\n");
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
    printf("done\n");
    dlclose(h);
    return 0;
}

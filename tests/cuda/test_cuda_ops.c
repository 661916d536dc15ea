/* tests/cuda/test_cuda_ops.c: CUDA ops end to end, with or without a GPU. On a machine
 * whose driver (libcuda.so.1) loads and has devices, the suite runs on the real GPU;
 * otherwise (and always when SHIMRT_TEST_FAKE_GPU=1) the fake driver built with
 * the grid emulator (libfakecuda_emu.so) stands in for libcuda: the runtime JIT-compiles
 * each kernel with the real NVRTC, "loads" the image and launches it, and the fake runs the
 * same kernel source compiled as C. Results are copied back (D2H) and compared with the CPU
 * kernels. Every (kind, row) of the catalogue is exercised; nothing lists ops. Skips when
 * NVRTC is not installed. */
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../runtime/shimrt_test.h"
#include "../../runtime/cpu/iter.h"
#include "../../runtime/cuda/cuda_internal.h"
#include "../../runtime/cuda/kernels.h"
#include "c_shim_aten.h"
#include "c_shim_cpu.h"
#include "c_shim_cuda.h"

static long (*launches)(void);
static bool real_gpu;

static long no_count(void) { return 1; }

/* True when the machine's own driver loads and reports a device. */
static bool have_gpu(void) {
    const char *f = getenv("SHIMRT_TEST_FAKE_GPU");
    if (f && !strcmp(f, "1")) return false;
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return false;
    int (*init)(unsigned) = NULL, (*count)(int *) = NULL;
    *(void **)&init = dlsym(h, "cuInit");
    *(void **)&count = dlsym(h, "cuDeviceGetCount");
    int n = 0;
    return init && count && init(0) == 0 && count(&n) == 0 && n >= 1;
}

static void setup(void) {
    char exe[PATH_MAX], buf[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    cr_assert(n > 0);
    exe[n] = '\0';
    *strrchr(exe, '/') = '\0';
    snprintf(buf, sizeof buf, "%s/jit-cache", exe);
    setenv("SHIMRT_CACHE_DIR", buf, 1);
    unsetenv("SHIMRT_CACHE_DISABLE");
    if ((real_gpu = have_gpu())) {
        launches = no_count; /* the real driver: nothing to count */
        return;
    }
    snprintf(buf, sizeof buf, "%s/libfakecuda_emu.so", exe);
    setenv("SHIMRT_LIBCUDA", buf, 1);
    void *h = dlopen(buf, RTLD_NOW);
    cr_assert_not_null(h, "%s", dlerror());
    *(void **)&launches = dlsym(h, "fake_cuda_launches");
}

static void need_nvrtc(void) {
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("NVRTC is not run under AddressSanitizer (its own allocations); the plain pass runs this");
#endif
    if (!shimrt_nvrtc("test")) cr_skip_test("NVRTC is not installed: %s", torch_exception_get_what());
}

TestSuite(cuda_ops, .init = setup);

static unsigned long long rng = 12345;
static double urand(void) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static AtenTensorHandle cpu_rand(int32_t dt, int64_t nd, const int64_t *sizes) {
    AtenTensorHandle t = NULL;
    OK(aoti_torch_empty_strided(nd, sizes, NULL, dt, aoti_torch_device_type_cpu(), 0, &t));
    for (int64_t i = 0; i < shimrt_numel(t); i++) {
        char *p = (char *)shimrt_data(t) + i * (int64_t)shimrt_dtype_size(dt);
        if (shimrt_k_is_floating(dt)) shimrt_k_store_f64(p, dt, urand() * 4 - 2);
        else shimrt_k_store_i64(p, dt, (int64_t)(urand() * 19) - 9);
    }
    return t;
}

/* A CUDA copy of a CPU tensor (H2D through copy_), on device dev. */
static AtenTensorHandle to_cuda(AtenTensorHandle c, int32_t dev) {
    AtenTensorHandle g = NULL;
    OK(aoti_torch_empty_strided(c->ndim, c->sizes, NULL, c->dtype, aoti_torch_device_type_cuda(),
                                dev, &g));
    OK(shimrt_cuda_do_copy(g, c));
    return g;
}

static AtenTensorHandle to_cpu(AtenTensorHandle g) {
    AtenTensorHandle c = NULL;
    OK(aoti_torch_empty_strided(g->ndim, g->sizes, NULL, g->dtype, aoti_torch_device_type_cpu(),
                                0, &c));
    OK(shimrt_cuda_do_copy(c, g));
    return c;
}

static void same(const char *what, AtenTensorHandle want, AtenTensorHandle got_cuda) {
    cr_assert_eq(got_cuda->device_type, aoti_torch_device_type_cuda(), "%s", what);
    AtenTensorHandle got = to_cpu(got_cuda);
    cr_assert_eq(got->dtype, want->dtype, "%s: dtype %d vs CPU %d", what, got->dtype, want->dtype);
    cr_assert_eq(got->ndim, want->ndim, "%s", what);
    for (int64_t d = 0; d < want->ndim; d++) cr_assert_eq(got->sizes[d], want->sizes[d], "%s", what);
    AtenTensorHandle wc = NULL;
    OK(aoti_torch_cpu_contiguous(want, 0, &wc));
    for (int64_t i = 0; i < shimrt_numel(got); i++) {
        size_t es = shimrt_dtype_size(got->dtype);
        double a = shimrt_k_load_f64((char *)shimrt_data(wc) + i * (int64_t)es, got->dtype);
        double b = shimrt_k_load_f64((char *)shimrt_data(got) + i * (int64_t)es, got->dtype);
        cr_assert((isnan(a) && isnan(b)) || fabs(a - b) <= 1e-5 * fmax(1, fabs(a)),
                  "%s: element %lld: CUDA %.9g, CPU %.9g", what, (long long)i, b, a);
    }
    OK(aoti_torch_delete_tensor_object(wc));
    OK(aoti_torch_delete_tensor_object(got));
}

static void *cpu_shim(const char *fmt, const char *op) {
    char name[128];
    snprintf(name, sizeof name, fmt, op);
    void *f = dlsym(RTLD_DEFAULT, name);
    cr_assert_not_null(f, "no CPU shim %s", name);
    return f;
}

Test(cuda_ops, every_elementwise_row_matches_cpu, .timeout = 300) {
    need_nvrtc();
    int64_t sa[2] = {4, 33}, sb[1] = {33};
    size_t n = shimrt_cuda_kernel_count();
    const char *done[64];
    int ndone = 0;
    for (size_t i = 0; i < n; i++) {
        shimrt_cuda_kdesc k;
        shimrt_cuda_kernel_at(i, &k);
        if (k.kind != SHK_UNARY && k.kind != SHK_BINARY) continue;
        bool seen = false;
        for (int j = 0; j < ndone; j++) seen |= !strcmp(done[j], k.op);
        if (seen) continue;
        done[ndone++] = k.op;
        /* float32 with a broadcast float32, then int32 with float32 (promotion) */
        for (int mix = 0; mix < 2; mix++) {
            AtenTensorHandle a = cpu_rand(mix ? SHIMRT_INT32 : SHIMRT_FLOAT32, 2, sa);
            AtenTensorHandle b = cpu_rand(SHIMRT_FLOAT32, 1, sb);
            AtenTensorHandle ga = to_cuda(a, 0), gb = to_cuda(b, 0), want = NULL, got = NULL;
            char what[64];
            snprintf(what, sizeof what, "%s (case %d)", k.op, mix);
            if (k.kind == SHK_UNARY) {
                AOTITorchError (*f)(AtenTensorHandle, AtenTensorHandle *);
                *(void **)&f = cpu_shim("aoti_torch_cpu_%s", k.op);
                OK(f(a, &want));
                OK(shimrt_cuda_unary(k.op, ga, &got));
            } else {
                char opname[64];
                snprintf(opname, sizeof opname, "aten::%s", k.op);
                ShimrtOpHandle op;
                uint64_t nargs;
                OK(shimrt_op_find(opname, "Tensor", &op));
                OK(shimrt_op_arity(op, &nargs, NULL));
                if (nargs == 3) {
                    AOTITorchError (*f)(AtenTensorHandle, AtenTensorHandle, double, AtenTensorHandle *);
                    *(void **)&f = cpu_shim("aoti_torch_cpu_%s_Tensor", k.op);
                    OK(f(a, b, 2.0, &want));
                    OK(shimrt_cuda_binary(k.op, ga, gb, 2.0, &got));
                } else {
                    AOTITorchError (*f)(AtenTensorHandle, AtenTensorHandle, AtenTensorHandle *);
                    *(void **)&f = cpu_shim("aoti_torch_cpu_%s_Tensor", k.op);
                    OK(f(a, b, &want));
                    OK(shimrt_cuda_binary(k.op, ga, gb, 1.0, &got));
                }
            }
            same(what, want, got);
            AtenTensorHandle all[] = {a, b, ga, gb, want, got};
            for (size_t j = 0; j < 6; j++) OK(aoti_torch_delete_tensor_object(all[j]));
        }
    }
    cr_assert(ndone > 0);
    cr_assert(launches() > 0, "the kernels ran on the (fake) device");
    no_leaks();
}

Test(cuda_ops, add_scalar_and_reductions_match_cpu, .timeout = 300) {
    need_nvrtc();
    int64_t s[3] = {3, 4, 5};
    AtenTensorHandle a = cpu_rand(SHIMRT_FLOAT32, 3, s), ga = to_cuda(a, 0), want = NULL, got = NULL;
    OK(aoti_torch_cpu_add_Scalar(a, 1.5, 2.0, &want));
    OK(shimrt_cuda_binary_scalar("add", ga, 1.5, 2.0, &got));
    same("add.Scalar", want, got);
    OK(aoti_torch_delete_tensor_object(want));
    OK(aoti_torch_delete_tensor_object(got));
    int64_t dims_inner[1] = {2}, dims_outer[2] = {0, 1}, dims_mid[1] = {1};
    const int64_t *cases[] = {dims_inner, dims_outer, dims_mid};
    int64_t ncases[] = {1, 2, 1};
    for (int c = 0; c < 3; c++) {
        const int64_t *d = cases[c];
        OK(aoti_torch_cpu_sum_dim_IntList(a, &d, ncases[c], c == 2, NULL, &want));
        OK(shimrt_cuda_reduce("sum", ga, cases[c], ncases[c], c == 2, &got));
        same("sum", want, got);
        OK(aoti_torch_delete_tensor_object(want));
        OK(aoti_torch_delete_tensor_object(got));
        OK(aoti_torch_cpu_amax(a, cases[c], ncases[c], 0, &want));
        OK(shimrt_cuda_reduce("amax", ga, cases[c], ncases[c], false, &got));
        same("amax", want, got);
        OK(aoti_torch_delete_tensor_object(want));
        OK(aoti_torch_delete_tensor_object(got));
    }
    OK(aoti_torch_delete_tensor_object(a));
    OK(aoti_torch_delete_tensor_object(ga));
    no_leaks();
}

Test(cuda_ops, copies_fill_and_errors, .timeout = 300) {
    need_nvrtc();
    int64_t s[2] = {6, 7}, ts[2] = {7, 6}, tst[2] = {1, 7};
    AtenTensorHandle a = cpu_rand(SHIMRT_INT32, 2, s);
    /* H2D with conversion into a transposed-strided float64 CUDA tensor */
    AtenTensorHandle g = NULL, g1 = NULL, want = NULL;
    OK(aoti_torch_empty_strided(2, s, (int64_t[]){1, 6}, SHIMRT_FLOAT64,
                                aoti_torch_device_type_cuda(), 0, &g));
    OK(shimrt_cuda_do_copy(g, a));
    OK(aoti_torch_empty_strided(2, s, NULL, SHIMRT_FLOAT64, aoti_torch_device_type_cpu(), 0, &want));
    OK(aoti_torch_cpu_copy_(want, a, 0));
    same("copy_ H2D", want, g);
    /* device 0 -> device 1 (the fake driver has two; a real machine may have one) */
    int32_t ndev = 0;
    OK(shimrt_cuda_device_count(&ndev));
    int32_t other_dev = ndev > 1 ? 1 : 0;
    OK(aoti_torch_empty_strided(2, s, NULL, SHIMRT_FLOAT64, aoti_torch_device_type_cuda(),
                                other_dev, &g1));
    OK(shimrt_cuda_do_copy(g1, g));
    same("copy_ D2D", want, g1);
    /* fill_ on a strided view of the CUDA tensor */
    OK(shimrt_cuda_do_fill(g, -3.25));
    OK(aoti_torch_cpu_fill__Scalar(want, -3.25));
    same("fill_", want, g);
    (void)ts;
    (void)tst;
    AtenTensorHandle bad = NULL;
    FAILS(shimrt_cuda_binary("add", g, a, 1.0, &bad), "add", "same device");
    if (ndev > 1) FAILS(shimrt_cuda_binary("add", g, g1, 1.0, &bad), "add", "cuda:0 and cuda:1");
    FAILS(shimrt_cuda_unary("nope", g, &bad), "nope", "is not implemented");
    AtenTensorHandle all[] = {a, g, g1, want};
    for (size_t j = 0; j < 4; j++) OK(aoti_torch_delete_tensor_object(all[j]));
    no_leaks();
}

Test(cuda_ops, schema_shims_route_cuda_tensors_to_cuda_kernels, .timeout = 300) {
    need_nvrtc();
    int64_t s[2] = {3, 8};
    AtenTensorHandle a = cpu_rand(SHIMRT_FLOAT32, 2, s), b = cpu_rand(SHIMRT_FLOAT32, 2, s);
    AtenTensorHandle ga = to_cuda(a, 0), gb = to_cuda(b, 0), want = NULL, got = NULL;
    /* through the dispatcher (aten shim): the CUDA key is picked from the tensors */
    OK(aoti_torch_aten_add_Tensor(ga, gb, 0.5, &got));
    OK(aoti_torch_cpu_add_Tensor(a, b, 0.5, &want));
    same("aten add.Tensor", want, got);
    OK(aoti_torch_delete_tensor_object(want));
    OK(aoti_torch_delete_tensor_object(got));
    /* the direct CUDA shim */
    OK(aoti_torch_cuda_mul_Tensor(ga, gb, &got));
    OK(aoti_torch_cpu_mul_Tensor(a, b, &want));
    same("cuda mul.Tensor", want, got);
    OK(aoti_torch_delete_tensor_object(want));
    OK(aoti_torch_delete_tensor_object(got));
    /* reshape of a transposed view (a copy), pad, to.dtype, sum with a dtype */
    AtenTensorHandle gt = NULL, t = NULL;
    OK(aoti_torch_aten_transpose_int(ga, 0, 1, &gt));
    OK(aoti_torch_aten_transpose_int(a, 0, 1, &t));
    int64_t shape[1] = {24}, pad[4] = {1, 2, 0, 1};
    OK(aoti_torch_aten_reshape(gt, shape, 1, &got));
    OK(aoti_torch_aten_reshape(t, shape, 1, &want));
    same("reshape", want, got);
    OK(aoti_torch_delete_tensor_object(want));
    OK(aoti_torch_delete_tensor_object(got));
    double v = 7.0;
    OK(aoti_torch_aten_pad(gt, pad, 4, "constant", &v, &got));
    OK(aoti_torch_aten_pad(t, pad, 4, "constant", &v, &want));
    same("pad", want, got);
    OK(aoti_torch_delete_tensor_object(want));
    OK(aoti_torch_delete_tensor_object(got));
    int32_t f64 = SHIMRT_FLOAT64;
    const int64_t dim1[1] = {1}, *pd = dim1;
    OK(aoti_torch_aten_sum_dim_IntList(gt, &pd, 1, 1, &f64, &got));
    OK(aoti_torch_aten_sum_dim_IntList(t, &pd, 1, 1, &f64, &want));
    same("sum(dtype=float64)", want, got);
    OK(aoti_torch_delete_tensor_object(want));
    OK(aoti_torch_delete_tensor_object(got));
    FAILS(aoti_torch_cuda_mm(ga, gt, &got), "mm", "not implemented for CUDA");
    AtenTensorHandle all[] = {a, b, ga, gb, gt, t};
    for (size_t j = 0; j < 6; j++) OK(aoti_torch_delete_tensor_object(all[j]));
    no_leaks();
}

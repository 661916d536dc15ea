/* tests/cuda/test_cuda_ops.c: CUDA ops end to end, with or without a GPU. On a machine
 * whose driver (libcuda.so.1) loads and has devices, the suite runs on the real GPU;
 * otherwise (and always when SHIMRT_TEST_FAKE_GPU=1) the fake driver built with
 * the grid emulator (libfakecuda_emu.so) stands in for libcuda: the runtime JIT-compiles
 * each kernel with the real NVRTC, "loads" the image and launches it, and the fake runs the
 * same kernel source compiled as C. Results are copied back (D2H) and compared with the CPU
 * kernels. Every (kind, row) of the catalogue is exercised; nothing lists ops. Skips when
 * NVRTC is not installed. */
#include <math.h>
#include <pthread.h>

#include "cuda_test.h"
#include "../../runtime/cpu/iter.h"
#include "../../runtime/cuda/catalogue.h"
#include "c_shim_aten.h"
#include "compositeexplicitautograd_kernels.h"
#include "c_shim_cpu.h"
#include "c_shim_cuda.h"

static long (*launches)(void);
static long *blas_calls; /* the fake cuBLAS's counter (NULL on a real GPU) */
static struct {
    int batched, transa, transb, m, n, k, lda, ldb, ldc, atype, compute, batch;
    long long stride_a, stride_b, stride_c;
} * blas_last;
static bool real_gpu;
static void (*last_copy)(int *, void **); /* the fake driver's (NULL on a real GPU) */
typedef struct {
    void *handle, *stream, *ws;
    unsigned long thread;
} blas_use;
static long *blas_races, *blas_nuses; /* the fake cuBLAS's handle log */
static blas_use *blas_uses;
static int (*fake_cur_dev)(void);
static long (*fake_copies)(void), (*fake_syncs)(void);
static void (*emu_caps)(unsigned, unsigned, unsigned *, unsigned *); /* the fake's launch caps */

static long no_count(void) { return 0; } /* the real driver counts nothing */

static void setup(void) {
    char exe[PATH_MAX], buf[PATH_MAX + 64];
    exe_dir(exe);
    jit_cache_in(exe);
    if ((real_gpu = have_gpu())) {
        launches = no_count; /* the real driver: nothing to count */
        return;
    }
    snprintf(buf, sizeof buf, "%s/libfakecuda_emu.so", exe);
    setenv("SHIMRT_LIBCUDA", buf, 1);
    void *h = dlopen(buf, RTLD_NOW);
    cr_assert_not_null(h, "%s", dlerror());
    *(void **)&launches = dlsym(h, "fake_cuda_launches");
    *(void **)&last_copy = dlsym(h, "fake_cuda_last_copy");
    *(void **)&fake_cur_dev = dlsym(h, "fake_cuda_current_device");
    *(void **)&fake_copies = dlsym(h, "fake_cuda_copies");
    *(void **)&fake_syncs = dlsym(h, "fake_cuda_syncs");
    *(void **)&emu_caps = dlsym(h, "fake_cuda_emu_caps");
    snprintf(buf, sizeof buf, "%s/libfakecublas.so", exe);
    setenv("SHIMRT_LIBCUBLAS", buf, 1);
    void *b = dlopen(buf, RTLD_NOW);
    cr_assert_not_null(b, "%s", dlerror());
    blas_calls = dlsym(b, "fake_cublas_calls");
    *(void **)&blas_last = dlsym(b, "fake_cublas_last");
    blas_races = dlsym(b, "fake_cublas_races");
    blas_nuses = dlsym(b, "fake_cublas_nuses");
    blas_uses = dlsym(b, "fake_cublas_uses");
}

/* Every test has the same .timeout: Criterion 2.4 leaks 48 bytes (LeakSanitizer, in the ASan
 * pass, where every test here skips) when tests of different timeouts run in parallel. */
TestSuite(cuda_ops, .init = setup);

static unsigned long long rng = 12345;
static double urand(void) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static AtenTensorHandle cpu_rand(int32_t dt, int64_t nd, const int64_t *sizes) {
    AtenTensorHandle t = NULL;
    OK(empty_contig(nd, sizes, dt, aoti_torch_device_type_cpu(), 0, &t));
    for (int64_t i = 0; i < shimrt_numel(t); i++) {
        char *p = (char *)shimrt_data(t) + i * (int64_t)shimrt_dtype_size(dt);
        if (shimrt_k_is_floating(dt))
            shimrt_k_store_f64(p, dt, urand() * 4 - 2);
        else
            shimrt_k_store_i64(p, dt, (int64_t)(urand() * 19) - 9);
    }
    return t;
}

/* A CUDA copy of a CPU tensor (H2D through copy_), on device dev. */
static AtenTensorHandle to_cuda(AtenTensorHandle c, int32_t dev) {
    AtenTensorHandle g = NULL;
    OK(empty_contig(c->ndim, c->sizes, c->dtype, aoti_torch_device_type_cuda(), dev, &g));
    OK(shimrt_cuda_do_copy(g, c));
    return g;
}

static AtenTensorHandle to_cpu(AtenTensorHandle g) {
    AtenTensorHandle c = NULL;
    OK(empty_contig(g->ndim, g->sizes, g->dtype, aoti_torch_device_type_cpu(), 0, &c));
    OK(shimrt_cuda_do_copy(c, g));
    return c;
}

static void same(const char *what, AtenTensorHandle want, AtenTensorHandle got_cuda) {
    cr_assert_eq(got_cuda->device_type, aoti_torch_device_type_cuda(), "%s", what);
    AtenTensorHandle got = to_cpu(got_cuda);
    cr_assert_eq(got->dtype, want->dtype, "%s: dtype %d vs CPU %d", what, got->dtype, want->dtype);
    cr_assert_eq(got->ndim, want->ndim, "%s", what);
    for (int64_t d = 0; d < want->ndim; d++)
        cr_assert_eq(got->sizes[d], want->sizes[d], "%s", what);
    AtenTensorHandle wc = NULL;
    OK(aoti_torch_cpu_contiguous(want, 0, &wc));
    for (int64_t i = 0; i < shimrt_numel(got); i++) {
        size_t es = shimrt_dtype_size(got->dtype);
        double a = shimrt_k_load_f64((char *)shimrt_data(wc) + i * (int64_t)es, got->dtype);
        double b = shimrt_k_load_f64((char *)shimrt_data(got) + i * (int64_t)es, got->dtype);
        double tol = got->dtype == SHIMRT_FLOAT16    ? 2e-3
                     : got->dtype == SHIMRT_BFLOAT16 ? 1.6e-2
                                                     : 1e-5;
        cr_assert((isnan(a) && isnan(b)) || a == b || fabs(a - b) <= tol * fmax(1, fabs(a)),
                  "%s: element %lld: CUDA %.9g, CPU %.9g", what, (long long)i, b, a);
    }
    OK(aoti_torch_delete_tensor_object(wc));
    OK(aoti_torch_delete_tensor_object(got));
}

static void *shim(const char *backend, const char *row, const char *ovl) {
    char name[128];
    snprintf(name, sizeof name, "aoti_torch_%s_%s%s%s", backend, row, *ovl ? "_" : "", ovl);
    return dlsym(RTLD_DEFAULT, name);
}

/* The arity of aten::<row>.<ovl>, or -1 when no such op. */
static int64_t arity_of(const char *row, const char *ovl) {
    char opname[64];
    snprintf(opname, sizeof opname, "aten::%s", row);
    ShimrtOpHandle op;
    if (shimrt_op_find(opname, ovl, &op) != AOTI_TORCH_SUCCESS) return -1;
    uint64_t nargs = 0;
    OK(shimrt_op_arity(op, &nargs, NULL));
    return (int64_t)nargs;
}

/* Calls the op of an element-wise row through the C shim of `backend` ("cpu", "cuda"): the
 * op named after the row (the overload "Tensor", else "self" for a ternary row, else the
 * default, else "Tensor_Scalar"), found by its schema's arity. NULL shim: returns -1. */
static int call_row(const char *backend, const shimrt_cuda_kdesc *k, AtenTensorHandle a,
                    AtenTensorHandle b, AtenTensorHandle c, AtenTensorHandle *out) {
    if (k->kind == SHK_TERNARY) {
        AOTITorchError (*f)(AtenTensorHandle, AtenTensorHandle, AtenTensorHandle,
                            AtenTensorHandle *);
        if (!(*(void **)&f = shim(backend, k->op, "self"))) return -1;
        return f(c, a, b, out);
    }
    if (k->kind == SHK_BINARY) {
        const char *ovl = arity_of(k->op, "Tensor") >= 0 ? "Tensor" : "";
        if (arity_of(k->op, ovl) == 3) {
            AOTITorchError (*f)(AtenTensorHandle, AtenTensorHandle, double, AtenTensorHandle *);
            if (!(*(void **)&f = shim(backend, k->op, ovl))) return -1;
            return f(a, b, 2.0, out);
        }
        AOTITorchError (*f)(AtenTensorHandle, AtenTensorHandle, AtenTensorHandle *);
        if (!(*(void **)&f = shim(backend, k->op, ovl))) return -1;
        return f(a, b, out);
    }
    if (arity_of(k->op, "") == 1) {
        AOTITorchError (*f)(AtenTensorHandle, AtenTensorHandle *);
        if (!(*(void **)&f = shim(backend, k->op, ""))) return -1;
        return f(a, out);
    }
    if (arity_of(k->op, "") == 3) { /* clamp(self, min?, max?) */
        double lo = -1, hi = 1.5;
        AOTITorchError (*f)(AtenTensorHandle, double *, double *, AtenTensorHandle *);
        if (!(*(void **)&f = shim(backend, k->op, ""))) return -1;
        return f(a, &lo, &hi, out);
    }
    if (arity_of(k->op, "Tensor_Scalar") == 2) { /* pow(self, exponent) */
        AOTITorchError (*f)(AtenTensorHandle, double, AtenTensorHandle *);
        if (!(*(void **)&f = shim(backend, k->op, "Tensor_Scalar"))) return -1;
        return f(a, 3.0, out);
    }
    return -1;
}

/* Every element-wise row of ops.def, through its op's CUDA C shim (runtime/cuda/aten.c)
 * and its CPU C shim, on three dtype mixes: float32 with a broadcast float32, int32 with
 * float32 (promotion), int32 with int64 (integer ops). Where the CPU op refuses the inputs,
 * the CUDA op must refuse them too. */
Test(cuda_ops, every_elementwise_row_matches_cpu, .timeout = 600) {
    need_nvrtc();
    int64_t sa[2] = {4, 33}, sb[1] = {33};
    size_t n = shimrt_cuda_kernel_count();
    const char *done[64];
    int ndone = 0, compared = 0;
    for (size_t i = 0; i < n; i++) {
        shimrt_cuda_kdesc k;
        shimrt_cuda_kernel_at(i, &k);
        if (k.kind != SHK_UNARY && k.kind != SHK_BINARY && k.kind != SHK_TERNARY) continue;
        bool seen = false;
        for (int j = 0; j < ndone; j++) seen |= !strcmp(done[j], k.op);
        if (seen || ndone == 64) continue;
        done[ndone++] = k.op;
        static const int32_t mixes[3][2] = {{SHIMRT_FLOAT32, SHIMRT_FLOAT32},
                                            {SHIMRT_INT32, SHIMRT_FLOAT32},
                                            {SHIMRT_INT32, SHIMRT_INT64}};
        for (int mix = 0; mix < 3; mix++) {
            AtenTensorHandle a = cpu_rand(mixes[mix][0], 2, sa);
            AtenTensorHandle b = cpu_rand(mixes[mix][1], 1, sb);
            AtenTensorHandle c = cpu_rand(SHIMRT_INT32, 2, sa), cb = NULL;
            OK(aoti_torch_cpu_gt_Scalar(c, 0, &cb));
            AtenTensorHandle ga = to_cuda(a, 0), gb = to_cuda(b, 0), gc = to_cuda(cb, 0);
            AtenTensorHandle want = NULL, got = NULL;
            char what[80];
            snprintf(what, sizeof what, "%s (case %d)", k.op, mix);
            int rc = call_row("cpu", &k, a, b, cb, &want);
            if (rc < 0) { /* the row names no op (copy: the runtime's own conversions) */
                cr_assert(!shim("cuda", k.op, ""), "%s", what);
            } else if (rc) {
                cr_assert_neq(call_row("cuda", &k, ga, gb, gc, &got), 0,
                              "%s: the CPU op refuses the inputs, the CUDA op does not", what);
            } else {
                int crc = call_row("cuda", &k, ga, gb, gc, &got);
                cr_assert_eq(crc, 0, "%s: %s", what,
                             crc < 0 ? "no CUDA shim" : torch_exception_get_what());
                same(what, want, got);
                compared++;
            }
            AtenTensorHandle all[] = {a, b, c, cb, ga, gb, gc, want, got};
            for (size_t j = 0; j < 9; j++)
                if (all[j]) OK(aoti_torch_delete_tensor_object(all[j]));
        }
    }
    cr_assert(compared > 0);
    cr_assert(real_gpu || launches() > 0, "the kernels ran on the fake device");
    no_leaks();
}

Test(cuda_ops, add_scalar_and_reductions_match_cpu, .timeout = 600) {
    need_nvrtc();
    int64_t s[3] = {3, 4, 5};
    AtenTensorHandle a = cpu_rand(SHIMRT_FLOAT32, 3, s), ga = to_cuda(a, 0), want = NULL,
                     got = NULL;
    OK(aoti_torch_cpu_add_Scalar(a, 1.5, 2.0, &want));
    OK(shimrt_cuda_binary_scalar("add", ga, shimrt_scalar_double(1.5), 2.0, &got));
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

Test(cuda_ops, copies_fill_and_errors, .timeout = 600) {
    need_nvrtc();
    int64_t s[2] = {6, 7}, ts[2] = {7, 6}, tst[2] = {1, 7};
    AtenTensorHandle a = cpu_rand(SHIMRT_INT32, 2, s);
    /* H2D with conversion into a transposed-strided float64 CUDA tensor */
    AtenTensorHandle g = NULL, g1 = NULL, want = NULL;
    OK(aoti_torch_empty_strided(2, s, (int64_t[]){1, 6}, SHIMRT_FLOAT64,
                                aoti_torch_device_type_cuda(), 0, &g));
    OK(shimrt_cuda_do_copy(g, a));
    OK(empty_contig(2, s, SHIMRT_FLOAT64, aoti_torch_device_type_cpu(), 0, &want));
    OK(aoti_torch_cpu_copy_(want, a, 0));
    same("copy_ H2D", want, g);
    /* device 0 -> device 1 (the fake driver has two; a real machine may have one) */
    int32_t ndev = 0;
    OK(shimrt_cuda_device_count(&ndev));
    int32_t other_dev = ndev > 1 ? 1 : 0;
    OK(empty_contig(2, s, SHIMRT_FLOAT64, aoti_torch_device_type_cuda(), other_dev, &g1));
    OK(shimrt_cuda_do_copy(g1, g));
    same("copy_ D2D", want, g1);
    /* the public aoti_torch_copy_ (torch::stable's Tensor::copy_) takes the same paths */
    OK(aoti_torch_zero_(want));
    OK(aoti_torch_copy_(want, g1, 0));
    same("aoti_torch_copy_ D2H", want, g);
    OK(aoti_torch_copy_(g1, a, 0));
    OK(aoti_torch_cpu_copy_(want, a, 0));
    same("aoti_torch_copy_ H2D", want, g1);
    OK(aoti_torch_copy_(g, want, 0));
    /* clone, zero_ and item of a CUDA tensor (core API): device work, never a host access */
    AtenTensorHandle gc = NULL;
    OK(aoti_torch_clone(g, &gc));
    cr_assert_eq(gc->device_type, aoti_torch_device_type_cuda());
    same("aoti_torch_clone of a CUDA tensor", want, gc);
    double got = -1; /* item of the 0-dim view of element [0][0] */
    AtenTensorHandle g00 = NULL;
    OK(aoti_torch__reinterpret_tensor(gc, 0, NULL, NULL, 0, &g00));
    OK(aoti_torch_item_float64(g00, &got));
    cr_assert_eq(got, ((double *)shimrt_data(want))[0], "item %g", got);
    OK(aoti_torch_zero_(gc));
    OK(aoti_torch_zero_(want));
    same("aoti_torch_zero_ of a CUDA tensor", want, gc);
    OK(aoti_torch_delete_tensor_object(g00));
    OK(aoti_torch_delete_tensor_object(gc));
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

Test(cuda_ops, schema_shims_route_cuda_tensors_to_cuda_kernels, .timeout = 600) {
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
    AtenTensorHandle all[] = {a, b, ga, gb, gt, t};
    for (size_t j = 0; j < 6; j++) OK(aoti_torch_delete_tensor_object(all[j]));
    no_leaks();
}

/* The dispatcher's CPU fallback for the CUDA key: an op with no CUDA kernel takes CUDA
 * tensors, runs on the CPU kernel and gives CUDA results. No op of schemas/ uses it any more
 * (the manifest's "backend_fallback" is empty), so an op of the user's own library with only
 * a CPU kernel and two tensor returns keeps the multi-return path tested: lo and hi, the
 * element-wise minimum and maximum of two float32 tensors, new host tensors the fallback
 * copies to the device. A size mismatch fails in the kernel (shimrt_kernel_fail). */
static void k_minmax(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    cr_assert_eq(num_args, 2);
    cr_assert_eq(num_outputs, 2);
    AtenTensorHandle a = siv_to_tensor(stack[0]), b = siv_to_tensor(stack[1]);
    cr_assert_eq(a->device_type, aoti_torch_device_type_cpu(), "the kernel sees host tensors");
    cr_assert_eq(b->device_type, aoti_torch_device_type_cpu());
    int64_t n = shimrt_numel(a);
    int64_t nb = shimrt_numel(b);
    if (n != nb) {
        OK(aoti_torch_delete_tensor_object(a)); /* the kernel owns its arguments */
        OK(aoti_torch_delete_tensor_object(b));
        stack[0] = stack[1] = 0;
        shimrt_kernel_fail("minmax: %lld elements vs %lld", (long long)n, (long long)nb);
        return;
    }
    AtenTensorHandle lo = NULL, hi = NULL, ac = NULL, bc = NULL;
    OK(aoti_torch_cpu_contiguous(a, 0, &ac));
    OK(aoti_torch_cpu_contiguous(b, 0, &bc));
    OK(empty_contig(a->ndim, a->sizes, SHIMRT_FLOAT32, aoti_torch_device_type_cpu(), 0, &lo));
    OK(empty_contig(a->ndim, a->sizes, SHIMRT_FLOAT32, aoti_torch_device_type_cpu(), 0, &hi));
    const float *pa = shimrt_data(ac), *pb = shimrt_data(bc);
    float *pl = shimrt_data(lo), *ph = shimrt_data(hi);
    for (int64_t j = 0; j < n; j++) {
        pl[j] = pa[j] < pb[j] ? pa[j] : pb[j];
        ph[j] = pa[j] < pb[j] ? pb[j] : pa[j];
    }
    AtenTensorHandle own[] = {a, b, ac, bc};
    for (size_t j = 0; j < 4; j++) OK(aoti_torch_delete_tensor_object(own[j]));
    stack[0] = siv_from_tensor(lo);
    stack[1] = siv_from_tensor(hi);
}

Test(cuda_ops, ops_without_a_cuda_kernel_run_through_the_cpu_fallback, .timeout = 600) {
    need_nvrtc();
    TorchLibraryHandle ld = NULL, li = NULL;
    OK(aoti_torch_library_init_def("fbtest2", __FILE__, __LINE__, &ld));
    OK(aoti_torch_library_def(ld, "minmax(Tensor a, Tensor b) -> (Tensor lo, Tensor hi)"));
    OK(aoti_torch_library_init_impl("fbtest2", "CPU", __FILE__, __LINE__, &li));
    OK(aoti_torch_library_impl(li, "minmax", k_minmax));
    int64_t s[2] = {5, 9};
    AtenTensorHandle a = cpu_rand(SHIMRT_FLOAT32, 2, s), ga = to_cuda(a, 0);
    AtenTensorHandle b = cpu_rand(SHIMRT_FLOAT32, 2, s), gb = to_cuda(b, 0);
    AtenTensorHandle want = NULL, got = NULL, want1 = NULL, got1 = NULL;
    /* two returns, through the boxed dispatcher (it takes the argument handles) */
    AtenTensorHandle ga1 = NULL, gb1 = NULL;
    OK(aoti_torch_new_tensor_handle(ga, &ga1));
    OK(aoti_torch_new_tensor_handle(gb, &gb1));
    StableIValue st[2] = {siv_from_tensor(ga1), siv_from_tensor(gb1)};
    OK(torch_call_dispatcher("fbtest2::minmax", "", st, TORCH_ABI_VERSION));
    got = siv_to_tensor(st[0]);
    got1 = siv_to_tensor(st[1]);
    cr_assert_eq(got->device_index, 0);
    cr_assert_eq(got1->device_index, 0);
    OK(aoti_torch_clone(a, &want));
    OK(aoti_torch_clone(b, &want1));
    float *wl = shimrt_data(want), *wh = shimrt_data(want1);
    for (int64_t j = 0; j < 45; j++)
        if (wh[j] < wl[j]) {
            float t = wl[j];
            wl[j] = wh[j];
            wh[j] = t;
        }
    same("fbtest2::minmax lo through the fallback", want, got);
    same("fbtest2::minmax hi through the fallback", want1, got1);
    AtenTensorHandle r[] = {want, got, want1, got1};
    for (size_t j = 0; j < 4; j++) OK(aoti_torch_delete_tensor_object(r[j]));
    const int64_t d0[1] = {0}, *pd = d0;
    /* a mutated Tensor(a!) argument: sum.IntList_out, which now has a CUDA kernel, keeps the
     * out tensor's device memory (no op with an out argument is left in the fallback, so
     * the fallback's write-back path is no longer exercised here) */
    int64_t so[1] = {9};
    AtenTensorHandle out = cpu_rand(SHIMRT_FLOAT32, 1, so), gout = to_cuda(out, 0);
    void *before = shimrt_data(gout);
    OK(aoti_torch_aten_sum_IntList_out(gout, ga, &pd, 1, 0, NULL));
    OK(aoti_torch_aten_sum_IntList_out(out, a, &pd, 1, 0, NULL));
    cr_assert_eq(shimrt_data(gout), before, "the out tensor keeps its device memory");
    same("sum.IntList_out", out, gout);
    /* a Tensor[] argument through the boxed dispatcher (cat: now its CUDA kernel) */
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(2, &l));
    AtenTensorHandle g2 = to_cuda(a, 0), g3 = to_cuda(a, 0);
    OK(torch_list_push_back(l, (StableIValue)(uintptr_t)g2));
    OK(torch_list_push_back(l, (StableIValue)(uintptr_t)g3));
    StableIValue stack[2] = {(StableIValue)(uintptr_t)l, 1};
    OK(torch_call_dispatcher("aten::cat", "", stack, 0));
    got = (AtenTensorHandle)(uintptr_t)stack[0];
    cr_assert_eq(got->device_type, aoti_torch_device_type_cuda());
    cr_assert_eq(got->sizes[0], 5);
    cr_assert_eq(got->sizes[1], 18);
    AtenTensorHandle half = NULL;
    OK(aoti_torch_aten_narrow(got, 1, 9, 9, &half));
    same("cat", a, half);
    OK(aoti_torch_delete_tensor_object(half));
    OK(aoti_torch_delete_tensor_object(got));
    /* the CPU kernel's error comes back with the op, the key and "CPU fallback"; nothing leaks */
    int64_t s3[1] = {3};
    AtenTensorHandle c = cpu_rand(SHIMRT_FLOAT32, 1, s3), gc = to_cuda(c, 0);
    OK(aoti_torch_new_tensor_handle(ga, &ga1));
    StableIValue bad[2] = {siv_from_tensor(ga1), siv_from_tensor(gc)};
    FAILS(torch_call_dispatcher("fbtest2::minmax", "", bad, TORCH_ABI_VERSION), "",
          "(key CUDA, CPU fallback): kernel failed: minmax: 45 elements vs 3");
    AtenTensorHandle all[] = {a, ga, b, gb, c, out, gout};
    for (size_t j = 0; j < 7; j++) OK(aoti_torch_delete_tensor_object(all[j]));
    OK(aoti_torch_delete_library_object(li));
    OK(aoti_torch_delete_library_object(ld));
    no_leaks();
}

/* The fallback for an op of the user's own library with only a CPU kernel: a Tensor[]
 * argument (each CUDA item staged on the host) and a mutated Tensor(a!) argument (written
 * back into the same device memory, and returned as the CUDA tensor itself). This keeps
 * both paths tested whichever aten ops have CUDA kernels. */
static void k_acc(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    cr_assert_eq(num_args, 2);
    cr_assert_eq(num_outputs, 1);
    AtenTensorHandle out = siv_to_tensor(stack[0]);
    StableListHandle xs = (StableListHandle)(uintptr_t)stack[1];
    cr_assert_eq(out->device_type, aoti_torch_device_type_cpu(), "the kernel sees host tensors");
    size_t n = 0;
    OK(torch_list_size(xs, &n));
    float *o = shimrt_data(out);
    for (size_t k = 0; k < n; k++) {
        StableIValue v = 0;
        OK(torch_list_get_item(xs, k, &v));
        AtenTensorHandle x = siv_to_tensor(v);
        cr_assert_eq(x->device_type, aoti_torch_device_type_cpu());
        for (int64_t j = 0; j < shimrt_numel(out); j++) o[j] += ((const float *)shimrt_data(x))[j];
        OK(aoti_torch_delete_tensor_object(x)); /* the kernel owns its arguments */
    }
    OK(torch_delete_list(xs));
    stack[0] = siv_from_tensor(out); /* returns its mutated argument */
}

Test(cuda_ops, user_op_with_tensor_list_and_mutation_through_the_cpu_fallback, .timeout = 600) {
    need_nvrtc();
    TorchLibraryHandle d = NULL, i = NULL;
    OK(aoti_torch_library_init_def("fbtest", __FILE__, __LINE__, &d));
    OK(aoti_torch_library_def(d, "acc(Tensor(a!) out, Tensor[] xs) -> Tensor(a!)"));
    OK(aoti_torch_library_init_impl("fbtest", "CPU", __FILE__, __LINE__, &i));
    OK(aoti_torch_library_impl(i, "acc", k_acc));
    int64_t s[2] = {3, 5};
    AtenTensorHandle o = cpu_rand(SHIMRT_FLOAT32, 2, s), x = cpu_rand(SHIMRT_FLOAT32, 2, s),
                     y = cpu_rand(SHIMRT_FLOAT32, 2, s);
    AtenTensorHandle go = to_cuda(o, 0), gx = to_cuda(x, 0), gy = to_cuda(y, 0), go1 = NULL;
    void *before = shimrt_data(go);
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(2, &l));
    OK(torch_list_push_back(l, siv_from_tensor(gx))); /* the dispatcher takes every argument */
    OK(torch_list_push_back(l, siv_from_tensor(gy)));
    OK(aoti_torch_new_tensor_handle(go, &go1));
    StableIValue st[2] = {siv_from_tensor(go1), (StableIValue)(uintptr_t)l};
    OK(torch_call_dispatcher("fbtest::acc", "", st, TORCH_ABI_VERSION));
    AtenTensorHandle r = siv_to_tensor(st[0]);
    cr_assert_eq(r->device_type, aoti_torch_device_type_cuda());
    cr_assert_eq(shimrt_data(r), before, "the result is the out tensor's own device memory");
    cr_assert_eq(shimrt_data(go), before);
    float *po = shimrt_data(o);
    for (int64_t j = 0; j < 15; j++)
        po[j] += ((float *)shimrt_data(x))[j] + ((float *)shimrt_data(y))[j];
    same("fbtest::acc through the fallback", o, go);
    AtenTensorHandle all[] = {r, o, x, y, go};
    for (size_t j = 0; j < 5; j++) OK(aoti_torch_delete_tensor_object(all[j]));
    OK(aoti_torch_delete_library_object(i));
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

/* The aoti_torch_cuda_* shims of PyTorch's c_shim_cuda.h whose op has only a CPU kernel
 * (generated from schemas/, routed through the dispatcher's CPU fallback), a sample, on
 * CUDA tensors against the same op's CPU shim: one return (cumsum), two (topk), a mutated
 * out argument (scatter.value_out: written back into out's own device memory), a Tensor?[]
 * argument (index_put), a data-dependent shape (masked_select), a factory with device=cuda
 * (hann_window: made on the host, moved to the device asked for); and a CUDA-only op
 * without any kernel (PyTorch's "Could not run" message, nothing leaks). */
Test(cuda_ops, fallback_routed_cuda_shims_match_cpu_shims, .timeout = 600) {
    need_nvrtc();
    int64_t s[2] = {6, 7};
    AtenTensorHandle a = cpu_rand(SHIMRT_FLOAT32, 2, s), ga = to_cuda(a, 0);
    AtenTensorHandle want = NULL, got = NULL, want1 = NULL, got1 = NULL;
    int32_t f64 = SHIMRT_FLOAT64;
    OK(aoti_torch_cpu_cumsum(a, 1, &f64, &want));
    OK(aoti_torch_cuda_cumsum(ga, 1, &f64, &got));
    same("cumsum", want, got);
    OK(aoti_torch_delete_tensor_object(want));
    OK(aoti_torch_delete_tensor_object(got));
    OK(aoti_torch_cpu_topk(a, 3, 0, 1, 1, &want, &want1));
    OK(aoti_torch_cuda_topk(ga, 3, 0, 1, 1, &got, &got1));
    same("topk values", want, got);
    same("topk indices", want1, got1);
    AtenTensorHandle r4[] = {want, got, want1, got1};
    for (size_t j = 0; j < 4; j++) OK(aoti_torch_delete_tensor_object(r4[j]));
    /* scatter.value_out(out, self, dim, index, value) */
    int64_t sb[2] = {2, 7}, so[2] = {6, 7};
    AtenTensorHandle b = NULL;
    OK(empty_contig(2, sb, SHIMRT_INT64, aoti_torch_device_type_cpu(), 0, &b));
    for (int64_t j = 0; j < 14; j++) ((int64_t *)shimrt_data(b))[j] = (j * 5) % 6;
    AtenTensorHandle gb = to_cuda(b, 0);
    AtenTensorHandle out = cpu_rand(SHIMRT_FLOAT32, 2, so), gout = to_cuda(out, 0);
    void *before = shimrt_data(gout);
    OK(aoti_torch_cpu_scatter_value_out(out, a, 0, b, 2.5));
    OK(aoti_torch_cuda_scatter_value_out(gout, ga, 0, gb, 2.5));
    cr_assert_eq(shimrt_data(gout), before, "scatter.value_out keeps out's device memory");
    same("scatter.value_out", out, gout);
    /* index_put(self, [idx], values, accumulate=True) with a repeated index */
    int64_t si[1] = {4}, sv[2] = {4, 7};
    AtenTensorHandle idx = NULL;
    OK(empty_contig(1, si, SHIMRT_INT64, aoti_torch_device_type_cpu(), 0, &idx));
    int64_t *ip = shimrt_data(idx);
    ip[0] = 5, ip[1] = 0, ip[2] = 5, ip[3] = -1;
    AtenTensorHandle gidx = to_cuda(idx, 0), v = cpu_rand(SHIMRT_FLOAT32, 2, sv),
                     gv = to_cuda(v, 0);
    const AtenTensorHandle *ind[1] = {&idx}, *gind[1] = {&gidx};
    OK(aoti_torch_cpu_index_put(a, ind, 1, v, 1, &want));
    OK(aoti_torch_cuda_index_put(ga, gind, 1, gv, 1, &got));
    same("index_put", want, got);
    OK(aoti_torch_delete_tensor_object(want));
    OK(aoti_torch_delete_tensor_object(got));
    AtenTensorHandle mask = NULL, gmask = NULL;
    OK(aoti_torch_cpu_gt_Scalar(a, 0.0, &mask));
    OK(aoti_torch_cuda_gt_Scalar(ga, 0.0, &gmask));
    OK(aoti_torch_cpu_masked_select(a, mask, &want));
    OK(aoti_torch_cuda_masked_select(ga, gmask, &got));
    same("masked_select", want, got);
    OK(aoti_torch_delete_tensor_object(want));
    OK(aoti_torch_delete_tensor_object(got));
    int32_t cpu = aoti_torch_device_type_cpu(), cuda = aoti_torch_device_type_cuda();
    OK(aoti_torch_cpu_hann_window(9, &f64, NULL, &cpu, -1, NULL, &want));
    OK(aoti_torch_cuda_hann_window(9, &f64, NULL, &cuda, 0, NULL, &got));
    cr_assert_eq(got->device_index, 0);
    same("hann_window", want, got);
    OK(aoti_torch_delete_tensor_object(want));
    OK(aoti_torch_delete_tensor_object(got));
    /* convolution (what AOTInductor's CUDA models call for a conv): with and without bias,
     * stride 2 and padding 1 */
    int64_t sx[4] = {2, 3, 16, 16}, sw[4] = {16, 3, 3, 3}, sbias[1] = {16};
    AtenTensorHandle x = cpu_rand(SHIMRT_FLOAT32, 4, sx), w = cpu_rand(SHIMRT_FLOAT32, 4, sw),
                     bias = cpu_rand(SHIMRT_FLOAT32, 1, sbias), gx = to_cuda(x, 0),
                     gw = to_cuda(w, 0), gbias = to_cuda(bias, 0);
    const int64_t st2[2] = {2, 2}, pad1[2] = {1, 1}, dil1[2] = {1, 1}, opad[2] = {0, 0};
    for (int with_bias = 0; with_bias < 2; with_bias++) {
        OK(aoti_torch_cpu_convolution(x, w, with_bias ? &bias : NULL, st2, 2, pad1, 2, dil1, 2, 0,
                                      opad, 2, 1, &want));
        OK(aoti_torch_cuda_convolution(gx, gw, with_bias ? &gbias : NULL, st2, 2, pad1, 2, dil1, 2,
                                       0, opad, 2, 1, &got));
        same(with_bias ? "convolution with bias" : "convolution", want, got);
        OK(aoti_torch_delete_tensor_object(want));
        OK(aoti_torch_delete_tensor_object(got));
    }
    /* a channels-last input (as AOTInductor's layout optimization passes it): the CPU
     * fallback keeps the layout both ways, so the result has PyTorch's channels-last strides */
    int64_t clst[4] = {768, 1, 48, 3};
    AtenTensorHandle xc = NULL, gxc = NULL;
    OK(aoti_torch_empty_strided(4, sx, clst, SHIMRT_FLOAT32, cpu, 0, &xc));
    OK(aoti_torch_copy_(xc, x, 0));
    OK(aoti_torch_empty_strided(4, sx, clst, SHIMRT_FLOAT32, cuda, 0, &gxc));
    OK(aoti_torch_copy_(gxc, x, 0));
    OK(aoti_torch_cpu_convolution(xc, w, &bias, st2, 2, pad1, 2, dil1, 2, 0, opad, 2, 1, &want));
    OK(aoti_torch_cuda_convolution(gxc, gw, &gbias, st2, 2, pad1, 2, dil1, 2, 0, opad, 2, 1, &got));
    for (int64_t d = 0; d < 4; d++)
        cr_assert_eq(got->strides[d], want->strides[d], "channels-last convolution: stride %lld",
                     (long long)d);
    cr_assert_eq(want->strides[1], 1, "the CPU result is channels-last");
    same("channels-last convolution", want, got);
    OK(aoti_torch_delete_tensor_object(want));
    OK(aoti_torch_delete_tensor_object(got));
    OK(aoti_torch_delete_tensor_object(xc));
    OK(aoti_torch_delete_tensor_object(gxc));
    /* _scaled_dot_product_efficient_attention (PyTorch's pick for float32 attention on a
     * GPU): the CPU's flash attention's values, PyTorch's CUDA layouts (output [B, H, M, Kv]
     * laid out as [B, M, H, Kv], the log-sum-exp padded to a multiple of 32, host 0-dim
     * seed and offset), causal or with an additive bias; dropout refused */
    int64_t sq[4] = {2, 3, 5, 8}, sk[4] = {2, 3, 7, 8}, svv[4] = {2, 3, 7, 8},
            sab[4] = {2, 3, 5, 7};
    AtenTensorHandle q = cpu_rand(SHIMRT_FLOAT32, 4, sq), k = cpu_rand(SHIMRT_FLOAT32, 4, sk),
                     vv = cpu_rand(SHIMRT_FLOAT32, 4, svv), ab = cpu_rand(SHIMRT_FLOAT32, 4, sab),
                     gq = to_cuda(q, 0), gk = to_cuda(k, 0), gvv = to_cuda(vv, 0),
                     gab = to_cuda(ab, 0);
    for (int variant = 0; variant < 2; variant++) {
        AtenTensorHandle wo = NULL, wl = NULL, go = NULL, gl = NULL, gs = NULL, gf = NULL;
        double sc = 0.3;
        OK(aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(
            q, k, vv, 0.0, variant == 0, variant ? &ab : NULL, variant ? &sc : NULL, &wo, &wl));
        OK(aoti_torch_cuda__scaled_dot_product_efficient_attention(
            gq, gk, gvv, variant ? &gab : NULL, 1, 0.0, variant == 0, variant ? &sc : NULL, &go,
            &gl, &gs, &gf));
        const int64_t ost[4] = {5 * 3 * 8, 8, 3 * 8, 1};
        for (int d = 0; d < 4; d++) {
            cr_assert_eq(go->sizes[d], wo->sizes[d]);
            cr_assert_eq(go->strides[d], ost[d], "efficient attention output stride %d", d);
        }
        AtenTensorHandle goc = to_cpu(go), glc = to_cpu(gl);
        const float *a = shimrt_data(goc), *bo = NULL;
        AtenTensorHandle woc = NULL;
        int32_t cf = aoti_torch_memory_format_contiguous_format();
        OK(aoti_torch_cpu_clone(wo, &cf, &woc));
        AtenTensorHandle goc2 = NULL;
        OK(aoti_torch_cpu_clone(goc, &cf, &goc2));
        a = shimrt_data(goc2), bo = shimrt_data(woc);
        for (int64_t j = 0; j < shimrt_numel(woc); j++)
            cr_assert_eq(a[j], bo[j], "efficient attention output %lld", (long long)j);
        cr_assert_eq(gl->ndim, 3);
        cr_assert_eq(gl->sizes[2], 32, "the log-sum-exp padded to 32");
        cr_assert_eq(gl->dtype, SHIMRT_FLOAT32);
        AtenTensorHandle wlc = NULL; /* (the CPU's log-sum-exp is laid out [B, M, H]) */
        OK(aoti_torch_cpu_clone(wl, &cf, &wlc));
        const float *lc = shimrt_data(glc), *lw = shimrt_data(wlc);
        for (int64_t r = 0; r < 6; r++)
            for (int64_t j = 0; j < 32; j++)
                cr_assert_eq(lc[r * 32 + j], j < 5 ? lw[r * 5 + j] : 0.0f, "lse [%lld, %lld]",
                             (long long)r, (long long)j);
        cr_assert_eq(gs->ndim, 0);
        cr_assert_eq(gs->device_type, cpu);
        cr_assert_eq(gf->dtype, SHIMRT_INT64);
        AtenTensorHandle r8[] = {wo, wl, go, gl, gs, gf, goc, glc, woc, goc2, wlc};
        for (size_t j = 0; j < 11; j++) OK(aoti_torch_delete_tensor_object(r8[j]));
    }
    AtenTensorHandle g0 = NULL, g1 = NULL, g2 = NULL, g3 = NULL;
    FAILS(aoti_torch_cuda__scaled_dot_product_efficient_attention(gq, gk, gvv, NULL, 1, 0.1, 0,
                                                                  NULL, &g0, &g1, &g2, &g3),
          "_scaled_dot_product_efficient_attention", "without dropout");
    AtenTensorHandle g3d = NULL; /* a 3-d query (a view of gq without its batch dim) */
    int64_t s3[3] = {3, 5, 8}, st3[3] = {40, 8, 1};
    OK(aoti_torch__reinterpret_tensor(gq, 3, s3, st3, 0, &g3d));
    FAILS(aoti_torch_cuda__scaled_dot_product_efficient_attention(g3d, gk, gvv, NULL, 1, 0.0, 0,
                                                                  NULL, &g0, &g1, &g2, &g3),
          "_scaled_dot_product_efficient_attention", "to be 4-d");
    OK(aoti_torch_delete_tensor_object(g3d));
    AtenTensorHandle att[] = {q, k, vv, ab, gq, gk, gvv, gab};
    for (size_t j = 0; j < 8; j++) OK(aoti_torch_delete_tensor_object(att[j]));
    AtenTensorHandle convs[] = {x, w, bias, gx, gw, gbias};
    for (size_t j = 0; j < 6; j++) OK(aoti_torch_delete_tensor_object(convs[j]));
    got = NULL;
    FAILS(aoti_torch_cuda__weight_int4pack_mm(ga, gout, 32, gout, &got),
          "aoti_torch_cuda__weight_int4pack_mm",
          "Could not run 'aten::_weight_int4pack_mm' with arguments from the 'CUDA' backend");
    cr_assert_null(got);
    AtenTensorHandle all[] = {a, ga, b, gb, out, gout, idx, gidx, v, gv, mask, gmask};
    for (size_t j = 0; j < sizeof all / sizeof *all; j++)
        OK(aoti_torch_delete_tensor_object(all[j]));
    no_leaks();
}

/* GEMM through cuBLAS (the fake cuBLAS computing on the host, or the real one on a GPU),
 * compared with the CPU kernels (OpenBLAS). */
static void gemm_case(const char *what, int32_t dt, int64_t na, const int64_t *sa, int64_t nb,
                      const int64_t *sb, bool transpose_b) {
    AtenTensorHandle a0 = cpu_rand(SHIMRT_FLOAT32, na, sa), b0 = cpu_rand(SHIMRT_FLOAT32, nb, sb);
    AtenTensorHandle a = NULL, b = NULL, bt = NULL;
    OK(aoti_torch_cpu_to_dtype(a0, dt, 0, 1, NULL, &a));
    OK(aoti_torch_cpu_to_dtype(b0, dt, 0, 1, NULL, &b));
    AtenTensorHandle ga = to_cuda(a, 0), gb = to_cuda(b, 0), want = NULL, got = NULL;
    if (transpose_b) { /* b given as the transpose of a contiguous [n, k] matrix */
        OK(aoti_torch_aten_transpose_int(b, 0, 1, &bt));
        AtenTensorHandle c = NULL, gc = NULL;
        OK(aoti_torch_cpu_contiguous(bt, 0, &c));
        gc = to_cuda(c, 0);
        OK(aoti_torch_delete_tensor_object(gb));
        OK(aoti_torch_aten_transpose_int(gc, 0, 1, &gb)); /* strides (1, k): column-major */
        OK(aoti_torch_delete_tensor_object(gc));
        OK(aoti_torch_delete_tensor_object(c));
    }
    OK(aoti_torch_aten_matmul(a, b, &want));
    OK(aoti_torch_aten_matmul(ga, gb, &got));
    same(what, want, got);
    AtenTensorHandle all[] = {a0, b0, a, b, bt, ga, gb, want, got};
    for (size_t j = 0; j < 9; j++)
        if (all[j]) OK(aoti_torch_delete_tensor_object(all[j]));
}

Test(cuda_ops, gemm_through_cublas_matches_cpu, .timeout = 600) {
    need_nvrtc();
    long before = blas_calls ? *blas_calls : 0;
    int64_t m_k[2] = {5, 7}, k_n[2] = {7, 3}, k[1] = {7}, bmk[3] = {4, 5, 7}, bkn[3] = {4, 7, 3};
    int64_t b2mk[4] = {2, 1, 5, 7}, nbk[3] = {3, 7, 3};
    gemm_case("mm f32", SHIMRT_FLOAT32, 2, m_k, 2, k_n, false);
    if (blas_last) { /* row-major C = A @ B as column-major C^T = B^T @ A^T */
        cr_assert_eq(blas_last->batched, 0);
        cr_assert_eq(blas_last->m, 3, "m of the swapped call is n");
        cr_assert_eq(blas_last->n, 5, "n of the swapped call is m");
        cr_assert_eq(blas_last->k, 7);
        cr_assert_eq(blas_last->transa, 0);
        cr_assert_eq(blas_last->transb, 0);
        cr_assert_eq(blas_last->lda, 3, "B's leading dimension: its row length");
        cr_assert_eq(blas_last->ldb, 7, "A's leading dimension: its row length");
        cr_assert_eq(blas_last->ldc, 3);
        cr_assert_eq(blas_last->compute, 68, "float32 computes in CUBLAS_COMPUTE_32F (no TF32)");
    }
    gemm_case("mm f32, B transposed", SHIMRT_FLOAT32, 2, m_k, 2, k_n, true);
    if (blas_last) {
        cr_assert_eq(blas_last->transa, 1, "a column-major B is passed with op T, no copy");
        cr_assert_eq(blas_last->lda, 7);
    }
    gemm_case("mm f64", SHIMRT_FLOAT64, 2, m_k, 2, k_n, false);
    if (blas_last) cr_assert_eq(blas_last->compute, 70);
    gemm_case("mm f16", SHIMRT_FLOAT16, 2, m_k, 2, k_n, false);
    gemm_case("mm bf16", SHIMRT_BFLOAT16, 2, m_k, 2, k_n, false);
    gemm_case("matmul 1-D @ 2-D", SHIMRT_FLOAT32, 1, k, 2, k_n, false);
    gemm_case("matmul 2-D @ 1-D", SHIMRT_FLOAT32, 2, m_k, 1, k, false);
    gemm_case("matmul 1-D @ 1-D", SHIMRT_FLOAT32, 1, k, 1, k, false);
    gemm_case("matmul batched", SHIMRT_FLOAT32, 3, bmk, 3, bkn, false);
    if (blas_last) {
        cr_assert_eq(blas_last->batched, 1);
        cr_assert_eq(blas_last->batch, 4);
        cr_assert_eq(blas_last->stride_a, 21, "B's batch stride");
        cr_assert_eq(blas_last->stride_b, 35, "A's batch stride");
        cr_assert_eq(blas_last->stride_c, 15);
    }
    gemm_case("matmul broadcast batch dims", SHIMRT_FLOAT32, 4, b2mk, 3, nbk, false);
    /* bmm and addmm */
    AtenTensorHandle a = cpu_rand(SHIMRT_FLOAT32, 3, bmk), b = cpu_rand(SHIMRT_FLOAT32, 3, bkn);
    AtenTensorHandle ga = to_cuda(a, 0), gb = to_cuda(b, 0), want = NULL, got = NULL;
    OK(aoti_torch_aten_bmm(a, b, &want));
    OK(aoti_torch_aten_bmm(ga, gb, &got));
    same("bmm", want, got);
    OK(aoti_torch_delete_tensor_object(want));
    OK(aoti_torch_delete_tensor_object(got));
    int64_t nbias[1] = {3};
    AtenTensorHandle m1 = cpu_rand(SHIMRT_FLOAT32, 2, m_k), m2 = cpu_rand(SHIMRT_FLOAT32, 2, k_n);
    AtenTensorHandle bias = cpu_rand(SHIMRT_FLOAT32, 1, nbias);
    AtenTensorHandle g1 = to_cuda(m1, 0), g2 = to_cuda(m2, 0), gbias = to_cuda(bias, 0);
    OK(aoti_torch_aten_addmm(bias, m1, m2, 0.5, 2.0, &want));
    OK(aoti_torch_aten_addmm(gbias, g1, g2, 0.5, 2.0, &got));
    same("addmm", want, got);
    OK(aoti_torch_delete_tensor_object(want));
    OK(aoti_torch_delete_tensor_object(got));
    /* the .out forms AOTInductor's extern GEMMs call: cuBLAS into out (straight into a
     * contiguous out of the result's shape, else through a temporary: a transposed out, an
     * out of another shape resized), against the CPU shims */
    {
        int64_t m_n[2] = {5, 3}, n_m[2] = {3, 5}, one[1] = {1}, b_m_k[3] = {2, 5, 7},
                b_k_n[3] = {2, 7, 3}, b_m_n[3] = {2, 5, 3};
        AtenTensorHandle b1 = cpu_rand(SHIMRT_FLOAT32, 3, b_m_k),
                         b2 = cpu_rand(SHIMRT_FLOAT32, 3, b_k_n);
        AtenTensorHandle gb1 = to_cuda(b1, 0), gb2 = to_cuda(b2, 0);
        AtenTensorHandle o = cpu_rand(SHIMRT_FLOAT32, 2, m_n), go = to_cuda(o, 0);
        AtenTensorHandle ot = cpu_rand(SHIMRT_FLOAT32, 2, n_m), got_t = to_cuda(ot, 0), gtv = NULL;
        OK(aoti_torch_aten_transpose_int(got_t, 0, 1, &gtv)); /* a [5, 3] column-major out */
        AtenTensorHandle g1o = cpu_rand(SHIMRT_FLOAT32, 1, one), gsmall = to_cuda(g1o, 0);
        AtenTensorHandle bo = cpu_rand(SHIMRT_FLOAT32, 3, b_m_n), gbo = to_cuda(bo, 0);
        long calls = blas_calls ? *blas_calls : 0;
        void *direct = shimrt_data(go);
        OK(aoti_torch_cpu_mm_out(o, m1, m2));
        OK(aoti_torch_cuda_mm_out(go, g1, g2));
        cr_assert_eq(shimrt_data(go), direct, "mm.out writes into out's own memory");
        same("mm.out", o, go);
        OK(aoti_torch_cuda_mm_out(gtv, g1, g2));
        same("mm.out into a transposed out", o, gtv);
        OK(aoti_torch_cuda_mm_out(gsmall, g1, g2)); /* resized from [1] to [5, 3] */
        same("mm.out into a resized out", o, gsmall);
        OK(aoti_torch_cpu_addmm_out(o, bias, m1, m2, 0.5, 2.0));
        OK(aoti_torch_cuda_addmm_out(go, gbias, g1, g2, 0.5, 2.0));
        same("addmm.out", o, go);
        OK(aoti_torch_cuda_addmm_out(gtv, gbias, g1, g2, 0.5, 2.0));
        same("addmm.out into a transposed out", o, gtv);
        OK(aoti_torch_cpu_bmm_out(bo, b1, b2));
        OK(aoti_torch_cuda_bmm_out(gbo, gb1, gb2));
        same("bmm.out", bo, gbo);
        OK(aoti_torch_cpu_baddbmm_out(bo, bias, b1, b2, -1.5, 0.25));
        OK(aoti_torch_cuda_baddbmm_out(gbo, gbias, gb1, gb2, -1.5, 0.25));
        same("baddbmm.out", bo, gbo);
        /* mm.dtype_out: float16 and bfloat16 matrices into a float32 out, against the CPU mm
         * of their float32 values; PyTorch's checks */
        for (int hb = 0; hb < 2; hb++) {
            int32_t dt = hb ? SHIMRT_BFLOAT16 : SHIMRT_FLOAT16;
            AtenTensorHandle h1 = NULL, h2 = NULL, f1 = NULL, f2 = NULL;
            OK(aoti_torch_cpu_to_dtype(m1, dt, 0, 1, NULL, &h1));
            OK(aoti_torch_cpu_to_dtype(m2, dt, 0, 1, NULL, &h2));
            OK(aoti_torch_cpu_to_dtype(h1, SHIMRT_FLOAT32, 0, 1, NULL, &f1));
            OK(aoti_torch_cpu_to_dtype(h2, SHIMRT_FLOAT32, 0, 1, NULL, &f2));
            AtenTensorHandle gh1 = to_cuda(h1, 0), gh2 = to_cuda(h2, 0);
            OK(aoti_torch_cpu_mm_out(o, f1, f2));
            OK(aoti_torch_cuda_mm_dtype_out(go, gh1, gh2, SHIMRT_FLOAT32));
            same(hb ? "mm.dtype_out bfloat16 -> float32" : "mm.dtype_out float16 -> float32", o,
                 go);
            FAILS(aoti_torch_cuda_mm_dtype_out(go, gh1, g2, SHIMRT_FLOAT32), "mm.dtype_out",
                  "input dtypes must be the same");
            FAILS(aoti_torch_cuda_mm_dtype_out(go, gh1, gh2, SHIMRT_FLOAT64), "mm.dtype_out",
                  "out_dtype must be the same as the dtype of the provided out tensor");
            AtenTensorHandle h[] = {h1, h2, f1, f2, gh1, gh2};
            for (size_t j = 0; j < 6; j++) OK(aoti_torch_delete_tensor_object(h[j]));
        }
        FAILS(aoti_torch_cuda_mm_dtype_out(go, gb1, g2, SHIMRT_FLOAT32), "mm.dtype_out",
              "self must be a matrix, got 3-D tensor");
        if (blas_calls) cr_assert_eq(*blas_calls, calls + 9, "each .out is one cuBLAS call");
        AtenTensorHandle d = NULL;
        OK(empty_contig(2, m_n, SHIMRT_FLOAT64, aoti_torch_device_type_cuda(), 0, &d));
        FAILS(aoti_torch_cuda_mm_out(d, g1, g2), "mm.out",
              "Expected out tensor to have dtype float, but got double instead");
        FAILS(aoti_torch_cuda_mm_out(o, g1, g2), "mm.out", "out");
        AtenTensorHandle r[] = {b1, b2, gb1, gb2, o, go, ot, got_t, gtv, g1o, gsmall, bo, gbo, d};
        for (size_t j = 0; j < sizeof r / sizeof *r; j++) OK(aoti_torch_delete_tensor_object(r[j]));
    }
    if (blas_calls) cr_assert(*blas_calls > before, "the GEMMs went through cuBLAS");
    /* PyTorch's errors */
    AtenTensorHandle ia = cpu_rand(SHIMRT_INT64, 2, m_k), ib = cpu_rand(SHIMRT_INT64, 2, k_n);
    AtenTensorHandle gia = to_cuda(ia, 0), gib = to_cuda(ib, 0);
    FAILS(aoti_torch_cuda_mm(gia, gib, &got), "mm", "\"addmm_cuda\" not implemented for 'Long'");
    FAILS(aoti_torch_cuda_mm(g1, g1, &got), "mm",
          "mat1 and mat2 shapes cannot be multiplied (5x7 and 5x7)");
    AtenTensorHandle all[] = {a, b, ga, gb, m1, m2, bias, g1, g2, gbias, ia, ib, gia, gib};
    for (size_t j = 0; j < sizeof all / sizeof *all; j++)
        OK(aoti_torch_delete_tensor_object(all[j]));
    no_leaks();
}

/* A transposed (non-contiguous) CUDA view of a CUDA copy of the CPU tensor c's transpose:
 * the view holds c's values with c's shape, strides reversed. *cpu_t gets the same view of
 * c on the CPU side (both new references). */
static AtenTensorHandle strided_pair(AtenTensorHandle c, AtenTensorHandle *cpu_t) {
    AtenTensorHandle t = NULL, tc = NULL, g = NULL, gv = NULL;
    int64_t last = c->ndim - 1;
    OK(aoti_torch_aten_transpose_int(c, 0, last, &t));
    OK(aoti_torch_cpu_contiguous(t, 0, &tc)); /* the values transposed, dense */
    g = to_cuda(tc, 0);
    OK(aoti_torch_aten_transpose_int(g, 0, last, &gv)); /* back to c's shape, strided */
    cr_assert(!shimrt_is_contiguous(gv));
    *cpu_t = c;
    OK(aoti_torch_delete_tensor_object(t));
    OK(aoti_torch_delete_tensor_object(tc));
    OK(aoti_torch_delete_tensor_object(g));
    return gv;
}

static void set_f64(AtenTensorHandle t, int64_t i, double v) {
    shimrt_k_store_f64((char *)shimrt_data(t) + i * (int64_t)shimrt_dtype_size(t->dtype), t->dtype,
                       v);
}

/* Both backends refuse: the CPU op through its C shim, the CUDA one through its own, each
 * message holding PyTorch's text `what`. */
#define BOTH_FAIL(cpu_call, cuda_call, what)                                                       \
    do {                                                                                           \
        cr_assert_eq((cpu_call), AOTI_TORCH_FAILURE, "%s should fail", #cpu_call);                 \
        cr_assert(strstr(torch_exception_get_what(), what), "CPU: '%s' lacks '%s'",                \
                  torch_exception_get_what(), what);                                               \
        cr_assert_eq((cuda_call), AOTI_TORCH_FAILURE, "%s should fail", #cuda_call);               \
        cr_assert(strstr(torch_exception_get_what(), what), "CUDA: '%s' lacks '%s'",               \
                  torch_exception_get_what(), what);                                               \
    } while (0)

/* An index out of range (issue 21, item 5): the CPU op fails at once; the CUDA op neither
 * copies anything nor synchronizes (the fake driver counts both), its kernel sets the
 * device's error flag, and the next synchronizing call fails with the CPU's message (as
 * PyTorch reports a device-side assert later); the flag is cleared after. *ret is freed. */
#define DEVICE_FAIL(cpu_call, cuda_call, ret, what)                                                \
    do {                                                                                           \
        cr_assert_eq((cpu_call), AOTI_TORCH_FAILURE, "%s should fail", #cpu_call);                 \
        cr_assert(strstr(torch_exception_get_what(), what), "CPU: '%s' lacks '%s'",                \
                  torch_exception_get_what(), what);                                               \
        long c0_ = fake_copies ? fake_copies() : 0, s0_ = fake_syncs ? fake_syncs() : 0;           \
        OK(cuda_call);                                                                             \
        if (fake_copies) {                                                                         \
            cr_assert_eq(fake_copies(), c0_, "%s copied to or from the host", #cuda_call);         \
            cr_assert_eq(fake_syncs(), s0_, "%s synchronized", #cuda_call);                        \
        }                                                                                          \
        cr_assert_eq(torch_cuda_stream_synchronize(NULL, 0), AOTI_TORCH_FAILURE,                   \
                     "the sync after %s should report the bad index", #cuda_call);                 \
        cr_assert(strstr(torch_exception_get_what(), what), "CUDA: '%s' lacks '%s'",               \
                  torch_exception_get_what(), what);                                               \
        cr_assert(strstr(torch_exception_get_what(), "device-side assert triggered"));             \
        OK(torch_cuda_stream_synchronize(NULL, 0));                                                \
        if (ret) OK(aoti_torch_delete_tensor_object(ret));                                         \
        ret = NULL;                                                                                \
    } while (0)

/* mean.dim, max.dim, argmax, softmax.int, log_softmax.int: their CUDA kernels (no CPU
 * fallback) against the CPU kernels on random inputs of several dtypes and odd sizes,
 * contiguous and transposed, every dim (negative ones too), keepdim, a planted NaN and
 * ties (max/argmax exact: the first NaN, else the first maximum), empty dims, and PyTorch's
 * errors from both. */
Test(cuda_ops, mean_max_argmax_softmax_match_cpu, .timeout = 600) {
    need_nvrtc();
    long before = launches();
    static const int32_t dts[] = {SHIMRT_FLOAT32,  SHIMRT_FLOAT64, SHIMRT_FLOAT16,
                                  SHIMRT_BFLOAT16, SHIMRT_INT32,   SHIMRT_BOOL};
    int64_t s[3] = {3, 21, 5};
    char what[96];
    for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
        int32_t dt = dts[di];
        bool flt = shimrt_k_is_floating(dt);
        AtenTensorHandle c0 = cpu_rand(dt == SHIMRT_BOOL ? SHIMRT_INT32 : dt, 3, s), c = NULL;
        if (dt == SHIMRT_BOOL) {
            OK(aoti_torch_cpu_gt_Scalar(c0, 0, &c));
            OK(aoti_torch_delete_tensor_object(c0));
        } else {
            c = c0;
        }
        if (flt) { /* a NaN in one line, a tie at the top of another */
            set_f64(c, 7, NAN);
            set_f64(c, 40, 9);
            set_f64(c, 50, 9);
        }
        for (int layout = 0; layout < 2; layout++) {
            AtenTensorHandle cc = c, g = layout ? strided_pair(c, &cc) : to_cuda(c, 0);
            static const int64_t dims[3] = {-3, 1, 2}; /* every dim, a negative one */
            for (int di2 = 0; di2 < 3; di2++) {
                int64_t dim = dims[di2];
                int keep = di2 == 1;
                {
                    AtenTensorHandle wv = NULL, wi = NULL, gv = NULL, gi = NULL;
                    snprintf(what, sizeof what, "max.dim %s dim %lld keepdim %d %s",
                             shimrt_dtype_name(dt), (long long)dim, keep,
                             layout ? "strided" : "contiguous");
                    OK(aoti_torch_cpu_max_dim(cc, dim, keep, &wv, &wi));
                    OK(aoti_torch_cuda_max_dim(g, dim, keep, &gv, &gi));
                    same(what, wv, gv);
                    same(what, wi, gi);
                    AtenTensorHandle r[] = {wv, wi, gv, gi};
                    for (size_t j = 0; j < 4; j++) OK(aoti_torch_delete_tensor_object(r[j]));
                    if (dt == SHIMRT_BOOL) continue;
                    snprintf(what, sizeof what, "argmax %s dim %lld keepdim %d %s",
                             shimrt_dtype_name(dt), (long long)dim, keep,
                             layout ? "strided" : "contiguous");
                    OK(aoti_torch_cpu_argmax(cc, &dim, keep, &wi));
                    OK(aoti_torch_cuda_argmax(g, &dim, keep, &gi));
                    same(what, wi, gi);
                    OK(aoti_torch_delete_tensor_object(wi));
                    OK(aoti_torch_delete_tensor_object(gi));
                    if (dim >= 0) { /* over the flattened tensor */
                        OK(aoti_torch_cpu_argmax(cc, NULL, keep, &wi));
                        OK(aoti_torch_cuda_argmax(g, NULL, keep, &gi));
                        same("argmax (flattened)", wi, gi);
                        OK(aoti_torch_delete_tensor_object(wi));
                        OK(aoti_torch_delete_tensor_object(gi));
                    }
                }
            }
            /* mean: floating dtypes, and integers with a dtype */
            int32_t f32 = SHIMRT_FLOAT32;
            const int64_t one[1] = {-1}, two[2] = {0, 2}, *lists[3] = {one, two, NULL};
            int64_t lens[3] = {1, 2, 0};
            for (int li = 0; li < 3; li++) {
                int keep = li == 1;
                if (dt == SHIMRT_BOOL) break;
                {
                    AtenTensorHandle w = NULL, gm = NULL;
                    int32_t *odt = flt ? NULL : &f32;
                    const int64_t *pd = lists[li];
                    snprintf(what, sizeof what, "mean.dim %s list %d keepdim %d %s",
                             shimrt_dtype_name(dt), li, keep, layout ? "strided" : "contiguous");
                    OK(aoti_torch_cpu_mean_dim(cc, pd ? &pd : NULL, lens[li], keep, odt, &w));
                    OK(aoti_torch_cuda_mean_dim(g, pd ? &pd : NULL, lens[li], keep, odt, &gm));
                    same(what, w, gm);
                    OK(aoti_torch_delete_tensor_object(w));
                    OK(aoti_torch_delete_tensor_object(gm));
                }
            }
            /* softmax, log_softmax: floating dtypes; integers and float32 with a dtype */
            for (int64_t dim = -1; dim < 1; dim++)
                for (int logsm = 0; logsm < 2; logsm++) {
                    if (dt == SHIMRT_BOOL) break;
                    AOTITorchError (*cf)(AtenTensorHandle, int64_t, int32_t *, AtenTensorHandle *) =
                        logsm ? aoti_torch_cpu_log_softmax_int : aoti_torch_cpu_softmax_int;
                    AOTITorchError (*gf)(AtenTensorHandle, int64_t, int32_t *, AtenTensorHandle *) =
                        logsm ? aoti_torch_cuda_log_softmax_int : aoti_torch_cuda_softmax_int;
                    int32_t f64 = SHIMRT_FLOAT64, *odt = flt && dt != SHIMRT_FLOAT32 ? NULL : &f64;
                    AtenTensorHandle w = NULL, gm = NULL;
                    snprintf(what, sizeof what, "%s %s dim %lld %s",
                             logsm ? "log_softmax" : "softmax", shimrt_dtype_name(dt),
                             (long long)dim, layout ? "strided" : "contiguous");
                    OK(cf(cc, dim, odt, &w));
                    OK(gf(g, dim, odt, &gm));
                    same(what, w, gm);
                    OK(aoti_torch_delete_tensor_object(w));
                    OK(aoti_torch_delete_tensor_object(gm));
                }
            OK(aoti_torch_delete_tensor_object(g));
        }
        OK(aoti_torch_delete_tensor_object(c));
    }
    /* empty dims: mean over an empty dim is NaN; max/argmax/softmax of nothing */
    int64_t se[3] = {3, 0, 5};
    AtenTensorHandle e = cpu_rand(SHIMRT_FLOAT32, 3, se), ge = to_cuda(e, 0), w = NULL, gw = NULL,
                     w1 = NULL, g1 = NULL;
    const int64_t d1[1] = {1}, *pd1 = d1;
    OK(aoti_torch_cpu_mean_dim(e, &pd1, 1, 0, NULL, &w));
    OK(aoti_torch_cuda_mean_dim(ge, &pd1, 1, 0, NULL, &gw));
    same("mean over an empty dim", w, gw);
    OK(aoti_torch_delete_tensor_object(w));
    OK(aoti_torch_delete_tensor_object(gw));
    OK(aoti_torch_cpu_max_dim(e, 2, 1, &w, &w1));
    OK(aoti_torch_cuda_max_dim(ge, 2, 1, &gw, &g1));
    same("max.dim over a non-empty dim of an empty tensor", w, gw);
    same("max.dim indices, empty", w1, g1);
    AtenTensorHandle r[] = {w, gw, w1, g1};
    for (size_t j = 0; j < 4; j++) OK(aoti_torch_delete_tensor_object(r[j]));
    OK(aoti_torch_cpu_softmax_int(e, 1, NULL, &w));
    OK(aoti_torch_cuda_softmax_int(ge, 1, NULL, &gw));
    same("softmax of an empty tensor", w, gw);
    OK(aoti_torch_delete_tensor_object(w));
    OK(aoti_torch_delete_tensor_object(gw));
    /* PyTorch's errors, from both backends */
    int64_t big = 3, neg = -4;
    BOTH_FAIL(aoti_torch_cpu_max_dim(e, 1, 0, &w, &w1), aoti_torch_cuda_max_dim(ge, 1, 0, &gw, &g1),
              "max(): Expected reduction dim 1 to have non-zero size.");
    int64_t one = 1;
    BOTH_FAIL(aoti_torch_cpu_argmax(e, &one, 0, &w), aoti_torch_cuda_argmax(ge, &one, 0, &gw),
              "argmax(): Expected reduction dim 1 to have non-zero size.");
    BOTH_FAIL(aoti_torch_cpu_argmax(e, NULL, 0, &w), aoti_torch_cuda_argmax(ge, NULL, 0, &gw),
              "Expected reduction dim to be specified for input.numel() == 0.");
    BOTH_FAIL(aoti_torch_cpu_max_dim(e, big, 0, &w, &w1),
              aoti_torch_cuda_max_dim(ge, big, 0, &gw, &g1), "Dimension out of range");
    BOTH_FAIL(aoti_torch_cpu_softmax_int(e, neg, NULL, &w),
              aoti_torch_cuda_softmax_int(ge, neg, NULL, &gw), "Dimension out of range");
    const int64_t twice[2] = {0, -3}, *pt = twice;
    BOTH_FAIL(aoti_torch_cpu_mean_dim(e, &pt, 2, 0, NULL, &w),
              aoti_torch_cuda_mean_dim(ge, &pt, 2, 0, NULL, &gw),
              "dim 0 appears multiple times in the list of dims");
    AtenTensorHandle i = cpu_rand(SHIMRT_INT64, 3, s), gi = to_cuda(i, 0), b = NULL, gb = NULL;
    BOTH_FAIL(aoti_torch_cpu_mean_dim(i, &pd1, 1, 0, NULL, &w),
              aoti_torch_cuda_mean_dim(gi, &pd1, 1, 0, NULL, &gw),
              "mean(): could not infer output dtype. Input dtype must be either a floating point "
              "or complex dtype. Got: ");
    BOTH_FAIL(aoti_torch_cpu_softmax_int(i, 0, NULL, &w),
              aoti_torch_cuda_softmax_int(gi, 0, NULL, &gw), "not implemented for 'Long'");
    FAILS(aoti_torch_cuda_log_softmax_int(gi, 0, NULL, &gw), "log_softmax.int",
          "\"host_softmax\" not implemented for 'Long'");
    OK(aoti_torch_cpu_gt_Scalar(i, 0, &b));
    gb = to_cuda(b, 0);
    BOTH_FAIL(aoti_torch_cpu_argmax(b, NULL, 0, &w), aoti_torch_cuda_argmax(gb, NULL, 0, &gw),
              "not implemented for 'Bool'");
    FAILS(aoti_torch_cuda_argmax(gb, NULL, 0, &gw), "argmax", "\"argmax_cuda\" not implemented");
    AtenTensorHandle all[] = {e, ge, i, gi, b, gb};
    for (size_t j = 0; j < 6; j++) OK(aoti_torch_delete_tensor_object(all[j]));
    cr_assert(real_gpu || launches() > before, "the kernels ran on the fake device");
    no_leaks();
}

/* A new CUDA tensor of t's shape and dtype with column-major strides (a non-contiguous out). */
static AtenTensorHandle cuda_out_colmajor(AtenTensorHandle t) {
    int64_t st[16], acc = 1;
    for (int64_t d = 0; d < t->ndim; d++) {
        st[d] = acc;
        acc *= t->sizes[d] > 1 ? t->sizes[d] : 1;
    }
    AtenTensorHandle o = NULL;
    OK(aoti_torch_empty_strided(t->ndim, t->sizes, t->ndim ? st : NULL, t->dtype,
                                aoti_torch_device_type_cuda(), 0, &o));
    return o;
}

/* index_select's CUDA kernel against the CPU kernel: element sizes 1, 2, 4, 8, int32 and
 * int64 indices (negative ones, a strided index vector), contiguous and transposed self,
 * both dims (a negative one), an empty index, a 0-dim self, and PyTorch's errors. */
Test(cuda_ops, index_select_matches_cpu, .timeout = 600) {
    need_nvrtc();
    long before = launches();
    static const int32_t dts[] = {SHIMRT_FLOAT32, SHIMRT_FLOAT16, SHIMRT_INT64, SHIMRT_BOOL};
    int64_t s[2] = {5, 7};
    char what[96];
    for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
        AtenTensorHandle c0 = cpu_rand(dts[di] == SHIMRT_BOOL ? SHIMRT_INT32 : dts[di], 2, s),
                         c = c0;
        if (dts[di] == SHIMRT_BOOL) {
            OK(aoti_torch_cpu_gt_Scalar(c0, 0, &c));
            OK(aoti_torch_delete_tensor_object(c0));
        }
        for (int layout = 0; layout < 2; layout++) {
            AtenTensorHandle cc = c, g = layout ? strided_pair(c, &cc) : to_cuda(c, 0);
            for (int it = 0; it < 2; it++)
                for (int64_t dim = -1; dim < 1; dim++) {
                    int64_t len = s[dim < 0 ? 1 : 0], isz[1] = {6}, ist[1] = {2};
                    AtenTensorHandle ix = NULL, gx = NULL, gxv = NULL, w = NULL, gw = NULL;
                    int32_t idt = it ? SHIMRT_INT64 : SHIMRT_INT32;
                    int64_t full[1] = {12};
                    OK(empty_contig(1, full, idt, aoti_torch_device_type_cpu(), 0, &ix));
                    for (int64_t j = 0; j < 12; j++)
                        shimrt_k_store_i64((char *)shimrt_data(ix) +
                                               j * (int64_t)shimrt_dtype_size(idt),
                                           idt, (int64_t)(urand() * len)); /* PyTorch refuses < 0 */
                    gx = to_cuda(ix, 0);
                    AtenTensorHandle ixv = NULL; /* every other element: stride 2 */
                    OK(aoti_torch__reinterpret_tensor(ix, 1, isz, ist, 0, &ixv));
                    OK(aoti_torch__reinterpret_tensor(gx, 1, isz, ist, 0, &gxv));
                    snprintf(what, sizeof what, "index_select %s dim %lld index %s %s",
                             shimrt_dtype_name(dts[di]), (long long)dim, shimrt_dtype_name(idt),
                             layout ? "strided" : "contiguous");
                    OK(aoti_torch_cpu_index_select(cc, dim, ixv, &w));
                    OK(aoti_torch_cuda_index_select(g, dim, gxv, &gw));
                    same(what, w, gw);
                    AtenTensorHandle go = cuda_out_colmajor(w); /* index_select.out */
                    OK(aoti_torch_cuda_index_select_out(go, g, dim, gxv));
                    same(what, w, go);
                    OK(aoti_torch_delete_tensor_object(go));
                    AtenTensorHandle r[] = {ix, gx, ixv, gxv, w, gw};
                    for (size_t j = 0; j < 6; j++) OK(aoti_torch_delete_tensor_object(r[j]));
                }
            OK(aoti_torch_delete_tensor_object(g));
        }
        OK(aoti_torch_delete_tensor_object(c));
    }
    /* an empty index; a 0-dim self through the dispatcher */
    AtenTensorHandle a = cpu_rand(SHIMRT_FLOAT32, 2, s), ga = to_cuda(a, 0), w = NULL, gw = NULL;
    int64_t zero[1] = {0}, one[1] = {1};
    AtenTensorHandle e = NULL, ge = NULL, sc = NULL, gsc = NULL, i1 = NULL, gi1 = NULL;
    OK(empty_contig(1, zero, SHIMRT_INT64, aoti_torch_device_type_cpu(), 0, &e));
    ge = to_cuda(e, 0);
    OK(aoti_torch_cpu_index_select(a, 1, e, &w));
    OK(aoti_torch_cuda_index_select(ga, 1, ge, &gw));
    same("index_select, empty index", w, gw);
    OK(aoti_torch_delete_tensor_object(w));
    OK(aoti_torch_delete_tensor_object(gw));
    sc = cpu_rand(SHIMRT_FLOAT64, 0, NULL);
    gsc = to_cuda(sc, 0);
    i1 = cpu_rand(SHIMRT_INT64, 1, one);
    shimrt_k_store_i64(shimrt_data(i1), SHIMRT_INT64, 0); /* PyTorch refuses -1 even here */
    gi1 = to_cuda(i1, 0);
    OK(aoti_torch_cpu_index_select(sc, 0, i1, &w));
    AtenTensorHandle gsc1 = NULL, gi11 = NULL; /* the boxed dispatcher takes the handles */
    OK(aoti_torch_new_tensor_handle(gsc, &gsc1));
    OK(aoti_torch_new_tensor_handle(gi1, &gi11));
    StableIValue st[3] = {(StableIValue)(uintptr_t)gsc1, 0, (StableIValue)(uintptr_t)gi11};
    OK(torch_call_dispatcher("aten::index_select", "", st, 0));
    gw = (AtenTensorHandle)(uintptr_t)st[0];
    same("index_select of a 0-dim tensor", w, gw);
    OK(aoti_torch_delete_tensor_object(w));
    OK(aoti_torch_delete_tensor_object(gw));
    /* errors from both backends */
    shimrt_k_store_i64(shimrt_data(i1), SHIMRT_INT64, 7);
    AtenTensorHandle gbad = to_cuda(i1, 0), f = cpu_rand(SHIMRT_FLOAT32, 1, one),
                     gf = to_cuda(f, 0);
    gw = NULL;
    DEVICE_FAIL(aoti_torch_cpu_index_select(a, 1, i1, &w),
                aoti_torch_cuda_index_select(ga, 1, gbad, &gw), gw, "index out of range in self");
    BOTH_FAIL(aoti_torch_cpu_index_select(a, 0, f, &w),
              aoti_torch_cuda_index_select(ga, 0, gf, &gw),
              "index_select(): Expected dtype int32 or int64 for index");
    BOTH_FAIL(aoti_torch_cpu_index_select(a, 0, a, &w),
              aoti_torch_cuda_index_select(ga, 0, ga, &gw), "Expected dtype int32 or int64");
    BOTH_FAIL(aoti_torch_cpu_index_select(a, 2, i1, &w),
              aoti_torch_cuda_index_select(ga, 2, gbad, &gw), "Dimension out of range");
    shimrt_k_store_i64(shimrt_data(i1), SHIMRT_INT64, 2);
    AtenTensorHandle gi2 = to_cuda(i1, 0), wrong = NULL;
    OK(empty_contig(2, s, SHIMRT_FLOAT32, aoti_torch_device_type_cpu(), 0, &wrong));
    AtenTensorHandle gwrong = to_cuda(wrong, 0);
    /* an out of another shape is resized on both backends, as PyTorch resizes outs */
    OK(aoti_torch_cpu_index_select_out(wrong, a, 1, i1));
    OK(aoti_torch_cuda_index_select_out(gwrong, ga, 1, gi2));
    cr_assert(gwrong->ndim == 2 && gwrong->sizes[1] == i1->sizes[0]);
    same("index_select.out into a resized out", wrong, gwrong);
    /* one that must grow: its storage moves to a larger device block, old bytes copied */
    int64_t one1[1] = {1};
    AtenTensorHandle small = NULL, gsmall = NULL;
    OK(empty_contig(1, one1, SHIMRT_FLOAT32, aoti_torch_device_type_cpu(), 0, &small));
    gsmall = to_cuda(small, 0);
    OK(aoti_torch_cuda_index_select_out(gsmall, ga, 1, gi2));
    cr_assert(gsmall->storage->nbytes >= 5 * sizeof(float));
    same("index_select.out into a grown out", wrong, gsmall);
    OK(aoti_torch_delete_tensor_object(small));
    OK(aoti_torch_delete_tensor_object(gsmall));
    BOTH_FAIL(aoti_torch_cpu_index_select_out(a, sc, 0, i1),
              aoti_torch_cuda_index_select_out(ga, gsc, 0, gi2),
              "index_select(): self and result must have the same scalar type");
    OK(aoti_torch_delete_tensor_object(gi2));
    OK(aoti_torch_delete_tensor_object(wrong));
    OK(aoti_torch_delete_tensor_object(gwrong));
    AtenTensorHandle all[] = {a, ga, e, ge, sc, gsc, i1, gi1, gbad, f, gf};
    for (size_t j = 0; j < sizeof all / sizeof *all; j++)
        OK(aoti_torch_delete_tensor_object(all[j]));
    cr_assert(real_gpu || launches() > before, "the kernels ran on the fake device");
    no_leaks();
}

/* A CPU int64 tensor of the given shape with random values in [-len, len). */
static AtenTensorHandle rand_index(int64_t nd, const int64_t *sizes, int64_t len) {
    AtenTensorHandle t = NULL;
    OK(empty_contig(nd, sizes, SHIMRT_INT64, aoti_torch_device_type_cpu(), 0, &t));
    for (int64_t j = 0; j < shimrt_numel(t); j++)
        ((int64_t *)shimrt_data(t))[j] = (int64_t)(urand() * len); /* PyTorch refuses < 0 */
    return t;
}

/* gather's CUDA kernel against the CPU kernel: element sizes 1, 2, 4, 8, an index larger
 * than self along dim and smaller elsewhere, negative indices, transposed self and index,
 * both dims (a negative one), an empty index, a 0-dim self, and PyTorch's errors. */
Test(cuda_ops, gather_matches_cpu, .timeout = 600) {
    need_nvrtc();
    static const int32_t dts[] = {SHIMRT_FLOAT32, SHIMRT_BFLOAT16, SHIMRT_INT64, SHIMRT_UINT8};
    int64_t s[2] = {5, 7};
    char what[96];
    for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
        AtenTensorHandle c = cpu_rand(dts[di], 2, s);
        for (int layout = 0; layout < 2; layout++) {
            AtenTensorHandle cc = c, g = layout ? strided_pair(c, &cc) : to_cuda(c, 0);
            for (int64_t dim = -1; dim < 1; dim++) {
                int64_t isz[2] = {dim == 0 ? 8 : 3, dim == 0 ? 4 : 9};
                AtenTensorHandle ix = rand_index(2, isz, s[dim < 0 ? 1 : 0]), gix = NULL;
                AtenTensorHandle w = NULL, gw = NULL;
                if (layout) { /* a transposed index too */
                    AtenTensorHandle ignored = NULL;
                    gix = strided_pair(ix, &ignored);
                } else {
                    gix = to_cuda(ix, 0);
                }
                snprintf(what, sizeof what, "gather %s dim %lld %s", shimrt_dtype_name(dts[di]),
                         (long long)dim, layout ? "strided" : "contiguous");
                OK(aoti_torch_cpu_gather(cc, dim, ix, 0, &w));
                OK(aoti_torch_cuda_gather(g, dim, gix, 0, &gw));
                same(what, w, gw);
                AtenTensorHandle go = cuda_out_colmajor(w); /* gather.out */
                OK(aoti_torch_cuda_gather_out(go, g, dim, gix, 0));
                same(what, w, go);
                OK(aoti_torch_delete_tensor_object(go));
                AtenTensorHandle r[] = {ix, gix, w, gw};
                for (size_t j = 0; j < 4; j++) OK(aoti_torch_delete_tensor_object(r[j]));
            }
            OK(aoti_torch_delete_tensor_object(g));
        }
        OK(aoti_torch_delete_tensor_object(c));
    }
    /* an empty index, a 0-dim self */
    AtenTensorHandle a = cpu_rand(SHIMRT_FLOAT32, 2, s), ga = to_cuda(a, 0), w = NULL, gw = NULL;
    int64_t ez[2] = {0, 3};
    AtenTensorHandle e = rand_index(2, ez, 1), ge = to_cuda(e, 0);
    OK(aoti_torch_cpu_gather(a, 1, e, 0, &w));
    OK(aoti_torch_cuda_gather(ga, 1, ge, 0, &gw));
    same("gather, empty index", w, gw);
    OK(aoti_torch_delete_tensor_object(w));
    OK(aoti_torch_delete_tensor_object(gw));
    AtenTensorHandle sc = cpu_rand(SHIMRT_FLOAT64, 0, NULL), gsc = to_cuda(sc, 0);
    AtenTensorHandle i0 = rand_index(0, NULL, 1), gi0 = to_cuda(i0, 0);
    OK(aoti_torch_cpu_gather(sc, 0, i0, 0, &w));
    OK(aoti_torch_cuda_gather(gsc, -1, gi0, 0, &gw));
    same("gather of a 0-dim tensor", w, gw);
    OK(aoti_torch_delete_tensor_object(w));
    OK(aoti_torch_delete_tensor_object(gw));
    /* errors from both backends */
    int64_t one[2] = {1, 1}, three[1] = {3}, big[2] = {6, 1};
    AtenTensorHandle bad = rand_index(2, one, 1), gbad = NULL;
    ((int64_t *)shimrt_data(bad))[0] = 7;
    gbad = to_cuda(bad, 0);
    gw = NULL;
    DEVICE_FAIL(aoti_torch_cpu_gather(a, 1, bad, 0, &w),
                aoti_torch_cuda_gather(ga, 1, gbad, 0, &gw), gw,
                "index 7 is out of bounds for dimension 1 with size 7");
    AtenTensorHandle i32 = cpu_rand(SHIMRT_INT16, 2, one), gi32 = to_cuda(i32, 0);
    BOTH_FAIL(aoti_torch_cpu_gather(a, 1, i32, 0, &w), aoti_torch_cuda_gather(ga, 1, gi32, 0, &gw),
              "gather(): Expected dtype int32/int64 for index");
    AtenTensorHandle i1 = rand_index(1, three, 1), gi1 = to_cuda(i1, 0);
    BOTH_FAIL(aoti_torch_cpu_gather(a, 1, i1, 0, &w), aoti_torch_cuda_gather(ga, 1, gi1, 0, &gw),
              "Index tensor must have the same number of dimensions as input tensor");
    AtenTensorHandle ib = rand_index(2, big, 1), gib = to_cuda(ib, 0);
    BOTH_FAIL(aoti_torch_cpu_gather(a, 1, ib, 0, &w), aoti_torch_cuda_gather(ga, 1, gib, 0, &gw),
              "Size does not match at dimension 0 expected index [6, 1] to be no larger than "
              "self [5, 7] apart from dimension 1");
    BOTH_FAIL(aoti_torch_cpu_gather(a, -3, ib, 0, &w), aoti_torch_cuda_gather(ga, -3, gib, 0, &gw),
              "Dimension out of range");
    ((int64_t *)shimrt_data(bad))[0] = 2;
    AtenTensorHandle gok = to_cuda(bad, 0);
    BOTH_FAIL(aoti_torch_cpu_gather_out(a, a, 1, bad, 0),
              aoti_torch_cuda_gather_out(ga, ga, 1, gok, 0),
              "some elements of the input tensor and the written-to tensor refer to a single "
              "memory location");
    OK(aoti_torch_delete_tensor_object(gok));
    AtenTensorHandle all[] = {a,   ga,   e,   ge,   sc, gsc, i0, gi0,
                              bad, gbad, i32, gi32, i1, gi1, ib, gib};
    for (size_t j = 0; j < sizeof all / sizeof *all; j++)
        OK(aoti_torch_delete_tensor_object(all[j]));
    no_leaks();
}

/* cat and cat.out on CUDA against the CPU kernel: several dtypes, inputs of different
 * lengths along dim (a transposed one, an empty one, a legacy empty 1-D one), a negative
 * dim, and PyTorch's errors from both backends. */
Test(cuda_ops, cat_matches_cpu, .timeout = 600) {
    need_nvrtc();
    static const int32_t dts[] = {SHIMRT_FLOAT32, SHIMRT_FLOAT16, SHIMRT_INT64};
    int64_t s0[2] = {4, 3}, s1[2] = {4, 5}, s2[2] = {4, 0}, le[1] = {0};
    char what[64];
    for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
        AtenTensorHandle c[4] = {cpu_rand(dts[di], 2, s0), cpu_rand(dts[di], 2, s1),
                                 cpu_rand(dts[di], 2, s2), cpu_rand(dts[di], 1, le)};
        AtenTensorHandle g[4], ignored = NULL;
        g[0] = to_cuda(c[0], 0);
        g[1] = strided_pair(c[1], &ignored);
        g[2] = to_cuda(c[2], 0);
        g[3] = to_cuda(c[3], 0);
        for (int64_t dim = -1; dim < 2; dim += 2) {
            AtenTensorHandle w = NULL, gw = NULL;
            snprintf(what, sizeof what, "cat %s dim %lld", shimrt_dtype_name(dts[di]),
                     (long long)dim);
            OK(aoti_torch_cpu_cat(c, 4, dim, &w));
            OK(aoti_torch_cuda_cat(g, 4, dim, &gw));
            same(what, w, gw);
            /* cat.out into a CUDA tensor of the result's size */
            AtenTensorHandle go = NULL;
            OK(empty_contig(w->ndim, w->sizes, dts[di], aoti_torch_device_type_cuda(), 0, &go));
            OK(aoti_torch_cuda_cat_out(go, g, 4, dim));
            same("cat.out", w, go);
            AtenTensorHandle r[] = {w, gw, go};
            for (size_t j = 0; j < 3; j++) OK(aoti_torch_delete_tensor_object(r[j]));
        }
        for (int k = 0; k < 4; k++) {
            OK(aoti_torch_delete_tensor_object(c[k]));
            OK(aoti_torch_delete_tensor_object(g[k]));
        }
    }
    /* stack (CompositeExplicitAutograd) of CUDA tensors: on the device, as on the CPU */
    AtenTensorHandle p0 = cpu_rand(SHIMRT_FLOAT32, 2, s0), p1 = cpu_rand(SHIMRT_FLOAT32, 2, s0);
    AtenTensorHandle pc[2] = {p0, p1}, pg[2] = {to_cuda(p0, 0), to_cuda(p1, 0)}, sw = NULL,
                     sg = NULL;
    for (int64_t dim = -1; dim < 2; dim += 2) {
        OK(shimrt_stack(pc, 2, dim, &sw));
        OK(shimrt_stack(pg, 2, dim, &sg));
        same("stack", sw, sg);
        OK(aoti_torch_delete_tensor_object(sw));
        OK(aoti_torch_delete_tensor_object(sg));
    }
    AtenTensorHandle st[] = {p0, p1, pg[0], pg[1]};
    for (size_t j = 0; j < 4; j++) OK(aoti_torch_delete_tensor_object(st[j]));
    /* errors from both backends */
    int64_t s3[2] = {3, 3};
    AtenTensorHandle a = cpu_rand(SHIMRT_FLOAT32, 2, s0), b = cpu_rand(SHIMRT_FLOAT32, 2, s3);
    AtenTensorHandle i = cpu_rand(SHIMRT_INT64, 2, s0), z = cpu_rand(SHIMRT_FLOAT32, 0, NULL);
    AtenTensorHandle ga = to_cuda(a, 0), gb = to_cuda(b, 0), gi = to_cuda(i, 0), gz = to_cuda(z, 0);
    AtenTensorHandle w = NULL, gw = NULL;
    AtenTensorHandle ab[2] = {a, b}, gab[2] = {ga, gb}, ai[2] = {a, i}, gai[2] = {ga, gi};
    AtenTensorHandle zz[2] = {z, z}, gzz[2] = {gz, gz}, mixed[2] = {ga, a};
    BOTH_FAIL(aoti_torch_cpu_cat(ab, 2, 1, &w), aoti_torch_cuda_cat(gab, 2, 1, &gw),
              "Sizes of tensors must match except in dimension 1. Expected size 4 but got size 3 "
              "for tensor number 1 in the list.");
    /* cat promotes its inputs as PyTorch does (float32 with int64: float32) */
    OK(aoti_torch_cpu_cat(ai, 2, 0, &w));
    OK(aoti_torch_cuda_cat(gai, 2, 0, &gw));
    same("cat float32+int64", w, gw);
    OK(aoti_torch_delete_tensor_object(w));
    OK(aoti_torch_delete_tensor_object(gw));
    w = gw = NULL;
    BOTH_FAIL(aoti_torch_cpu_cat(zz, 2, 0, &w), aoti_torch_cuda_cat(gzz, 2, 0, &gw),
              "zero-dimensional tensor (at position 0) cannot be concatenated");
    BOTH_FAIL(aoti_torch_cpu_cat(ab, 0, 0, &w), aoti_torch_cuda_cat(gab, 0, 0, &gw),
              "expected a non-empty list of Tensors");
    BOTH_FAIL(aoti_torch_cpu_cat(ab, 2, 2, &w), aoti_torch_cuda_cat(gab, 2, 2, &gw),
              "Dimension out of range");
    FAILS(aoti_torch_cuda_cat(mixed, 2, 0, &gw), "cat",
          "Expected all tensors to be on the same device");
    AtenTensorHandle all[] = {a, b, i, z, ga, gb, gi, gz};
    for (size_t j = 0; j < 8; j++) OK(aoti_torch_delete_tensor_object(all[j]));
    no_leaks();
}

/* sum.IntList_out on CUDA against the CPU kernel: several dtypes, contiguous and transposed
 * self, dim lists (negative dims, none), keepdim, a column-major out, an explicit dtype,
 * and PyTorch's errors from both backends. */
Test(cuda_ops, sum_intlist_out_matches_cpu, .timeout = 600) {
    need_nvrtc();
    static const int32_t dts[] = {SHIMRT_FLOAT32, SHIMRT_FLOAT64, SHIMRT_FLOAT16,
                                  SHIMRT_INT32,   SHIMRT_INT64,   SHIMRT_BOOL};
    static const int64_t dl[4][2] = {{0, 0}, {-1, 0}, {0, 2}, {1, -3}};
    static const int64_t dn[4] = {1, 1, 2, 2};
    int64_t s[3] = {5, 7, 3};
    char what[128];
    for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
        AtenTensorHandle c = cpu_rand(dts[di], 3, s);
        for (int layout = 0; layout < 2; layout++) {
            AtenTensorHandle cc = c, g = layout ? strided_pair(c, &cc) : to_cuda(c, 0);
            for (int li = -1; li < 4; li++)
                for (int keep = 0; keep < 2; keep++) {
                    const int64_t *pd = li >= 0 ? dl[li] : NULL;
                    int64_t nd = li >= 0 ? dn[li] : 0;
                    AtenTensorHandle w = NULL, co = NULL, go = NULL;
                    OK(aoti_torch_cpu_sum_dim_IntList(cc, li >= 0 ? &pd : NULL, nd, keep, NULL,
                                                      &w));
                    OK(empty_contig(w->ndim, w->sizes, w->dtype, aoti_torch_device_type_cpu(), 0,
                                    &co));
                    go = cuda_out_colmajor(w);
                    snprintf(what, sizeof what, "sum.IntList_out %s dims %d keepdim %d %s",
                             shimrt_dtype_name(dts[di]), li, keep,
                             layout ? "strided" : "contiguous");
                    OK(aoti_torch_cpu_sum_IntList_out(co, cc, li >= 0 ? &pd : NULL, nd, keep,
                                                      NULL));
                    OK(aoti_torch_cuda_sum_IntList_out(go, g, li >= 0 ? &pd : NULL, nd, keep,
                                                       NULL));
                    same(what, co, go);
                    AtenTensorHandle r[] = {w, co, go};
                    for (size_t j = 0; j < 3; j++) OK(aoti_torch_delete_tensor_object(r[j]));
                }
            OK(aoti_torch_delete_tensor_object(g));
        }
        OK(aoti_torch_delete_tensor_object(c));
    }
    /* sum.dim_IntList with dtype int32 of an int32 self stays int32 (the sum row gives int64) */
    int64_t i2[2] = {5, 7};
    int32_t i32 = SHIMRT_INT32;
    const int64_t d1[1] = {1}, *pd1 = d1;
    AtenTensorHandle ci = cpu_rand(SHIMRT_INT32, 2, i2), gi = to_cuda(ci, 0), wi = NULL, gwi = NULL;
    OK(aoti_torch_cpu_sum_dim_IntList(ci, &pd1, 1, 0, &i32, &wi));
    OK(aoti_torch_cuda_sum_dim_IntList(gi, &pd1, 1, 0, &i32, &gwi));
    same("sum.dim_IntList dtype int32", wi, gwi);
    AtenTensorHandle ri[] = {ci, gi, wi, gwi};
    for (size_t j = 0; j < 4; j++) OK(aoti_torch_delete_tensor_object(ri[j]));
    /* an explicit dtype (float64 out of a float32 self), then errors from both backends */
    AtenTensorHandle a = cpu_rand(SHIMRT_FLOAT32, 3, s), ga = to_cuda(a, 0);
    int64_t os[2] = {7, 3}, bad[2] = {7, 4};
    const int64_t d0[1] = {0}, *pd = d0;
    int32_t f64 = SHIMRT_FLOAT64, f32 = SHIMRT_FLOAT32;
    AtenTensorHandle co = NULL, go = NULL, cb = NULL, gb = NULL;
    OK(empty_contig(2, os, SHIMRT_FLOAT64, aoti_torch_device_type_cpu(), 0, &co));
    OK(empty_contig(2, os, SHIMRT_FLOAT64, aoti_torch_device_type_cuda(), 0, &go));
    OK(aoti_torch_cpu_sum_IntList_out(co, a, &pd, 1, 0, &f64));
    OK(aoti_torch_cuda_sum_IntList_out(go, ga, &pd, 1, 0, &f64));
    same("sum.IntList_out to float64", co, go);
    BOTH_FAIL(aoti_torch_cpu_sum_IntList_out(co, a, &pd, 1, 0, &f32),
              aoti_torch_cuda_sum_IntList_out(go, ga, &pd, 1, 0, &f32),
              "Expected the dtype for input and out to match, but got float32 for input's dtype "
              "and float64 for out's dtype.");
    OK(empty_contig(2, bad, SHIMRT_FLOAT32, aoti_torch_device_type_cpu(), 0, &cb));
    OK(empty_contig(2, bad, SHIMRT_FLOAT32, aoti_torch_device_type_cuda(), 0, &gb));
    /* an out of another shape is resized on both backends, as PyTorch resizes outs */
    OK(aoti_torch_cpu_sum_IntList_out(cb, a, &pd, 1, 0, NULL));
    OK(aoti_torch_cuda_sum_IntList_out(gb, ga, &pd, 1, 0, NULL));
    cr_assert(gb->ndim == 2 && gb->sizes[0] == 7 && gb->sizes[1] == 3);
    same("sum.IntList_out into a resized out", cb, gb);
    FAILS(aoti_torch_cuda_sum_IntList_out(cb, ga, &pd, 1, 0, NULL), "", "");
    AtenTensorHandle all[] = {a, ga, co, go, cb, gb};
    for (size_t j = 0; j < sizeof all / sizeof *all; j++)
        OK(aoti_torch_delete_tensor_object(all[j]));
    no_leaks();
}

/* One scatter op on both backends (kind 0 scatter.src, 1 scatter.reduce with its legacy
 * name, 2 scatter_reduce.two), then its .out variant into a column-major CUDA out. Where
 * the CPU kernel refuses the inputs, the CUDA kernel must refuse them too. */
static void scatter_both(const char *what, int kind, const char *reduce, int include_self,
                         AtenTensorHandle cs, AtenTensorHandle ci, AtenTensorHandle csrc,
                         AtenTensorHandle gs, AtenTensorHandle gi, AtenTensorHandle gsrc,
                         int64_t dim) {
    AtenTensorHandle w = NULL, g = NULL;
    AOTITorchError rc = kind == 0   ? aoti_torch_cpu_scatter_src(cs, dim, ci, csrc, &w)
                        : kind == 1 ? aoti_torch_cpu_scatter_reduce(cs, dim, ci, csrc, reduce, &w)
                                    : aoti_torch_cpu_scatter_reduce_two(cs, dim, ci, csrc, reduce,
                                                                        include_self, &w);
    AOTITorchError grc = kind == 0   ? aoti_torch_cuda_scatter_src(gs, dim, gi, gsrc, &g)
                         : kind == 1 ? aoti_torch_cuda_scatter_reduce(gs, dim, gi, gsrc, reduce, &g)
                                     : aoti_torch_cuda_scatter_reduce_two(gs, dim, gi, gsrc, reduce,
                                                                          include_self, &g);
    cr_assert_eq(grc, rc, "%s: CUDA %d, CPU %d (%s)", what, grc, rc, torch_exception_get_what());
    if (rc) return;
    same(what, w, g);
    AtenTensorHandle go = cuda_out_colmajor(w);
    OK(kind == 0 ? aoti_torch_cuda_scatter_src_out(go, gs, dim, gi, gsrc)
       : kind == 1
           ? aoti_torch_cuda_scatter_reduce_out(go, gs, dim, gi, gsrc, reduce)
           : aoti_torch_cuda_scatter_reduce_two_out(go, gs, dim, gi, gsrc, reduce, include_self));
    same(what, w, go);
    AtenTensorHandle r[] = {w, g, go};
    for (size_t j = 0; j < 3; j++) OK(aoti_torch_delete_tensor_object(r[j]));
}

/* scatter.src, scatter.reduce, scatter_reduce.two and their .out variants on CUDA against
 * the CPU kernels: several dtypes, an index longer than self along dim (repeated targets:
 * the last write wins, reductions accumulate in order) and shorter elsewhere, negative
 * indices, every reduction with and without include_self, a planted NaN (amax/amin
 * propagate it), contiguous and transposed self, src and index, both dims (a negative
 * one), an empty index, 0-dim tensors, and PyTorch's errors from both backends. */
Test(cuda_ops, scatter_matches_cpu, .timeout = 600) {
    need_nvrtc();
    long before = launches();
    static const int32_t dts[] = {SHIMRT_FLOAT32,  SHIMRT_FLOAT64, SHIMRT_FLOAT16,
                                  SHIMRT_BFLOAT16, SHIMRT_INT64,   SHIMRT_INT32,
                                  SHIMRT_INT8,     SHIMRT_UINT8,   SHIMRT_BOOL};
    static const char *const reds[] = {"sum", "prod", "mean", "amax", "amin"};
    int64_t s[2] = {5, 7}, ss[2] = {8, 10};
    char what[128];
    for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
        AtenTensorHandle c = cpu_rand(dts[di], 2, s), src = cpu_rand(dts[di], 2, ss);
        if (shimrt_k_is_floating(dts[di])) {
            set_f64(c, 3, NAN);
            set_f64(src, 12, NAN);
        }
        for (int layout = 0; layout < 2; layout++) {
            AtenTensorHandle cc = c, csrc = src, ignored = NULL;
            AtenTensorHandle g = layout ? strided_pair(c, &cc) : to_cuda(c, 0);
            AtenTensorHandle gsrc = layout ? strided_pair(src, &csrc) : to_cuda(src, 0);
            for (int64_t dim = -1; dim < 1; dim++) {
                int64_t isz[2] = {dim == 0 ? 8 : 3, dim == 0 ? 4 : 9};
                AtenTensorHandle ix = rand_index(2, isz, s[dim < 0 ? 1 : 0]);
                AtenTensorHandle gix = layout ? strided_pair(ix, &ignored) : to_cuda(ix, 0);
                snprintf(what, sizeof what, "scatter.src %s dim %lld %s",
                         shimrt_dtype_name(dts[di]), (long long)dim,
                         layout ? "strided" : "contiguous");
                scatter_both(what, 0, NULL, 1, cc, ix, csrc, g, gix, gsrc, dim);
                static const char *const legacy[] = {"add", "multiply"};
                for (int l = 0; l < 2; l++) {
                    snprintf(what, sizeof what, "scatter.reduce %s %s dim %lld %s", legacy[l],
                             shimrt_dtype_name(dts[di]), (long long)dim,
                             layout ? "strided" : "contiguous");
                    scatter_both(what, 1, legacy[l], 1, cc, ix, csrc, g, gix, gsrc, dim);
                }
                /* every reduction on five dtypes (the emulator is slow) */
                bool all_reds = dts[di] == SHIMRT_FLOAT32 || dts[di] == SHIMRT_FLOAT64 ||
                                dts[di] == SHIMRT_FLOAT16 || dts[di] == SHIMRT_INT32 ||
                                dts[di] == SHIMRT_BOOL;
                for (size_t r = 0; all_reds && r < sizeof reds / sizeof reds[0]; r++)
                    for (int inc = 0; inc < 2; inc++) {
                        snprintf(what, sizeof what,
                                 "scatter_reduce.two %s include_self %d %s dim %lld %s", reds[r],
                                 inc, shimrt_dtype_name(dts[di]), (long long)dim,
                                 layout ? "strided" : "contiguous");
                        scatter_both(what, 2, reds[r], inc, cc, ix, csrc, g, gix, gsrc, dim);
                    }
                OK(aoti_torch_delete_tensor_object(ix));
                OK(aoti_torch_delete_tensor_object(gix));
            }
            OK(aoti_torch_delete_tensor_object(g));
            OK(aoti_torch_delete_tensor_object(gsrc));
        }
        OK(aoti_torch_delete_tensor_object(c));
        OK(aoti_torch_delete_tensor_object(src));
    }
    /* an empty index; 0-dim self, index and src */
    AtenTensorHandle a = cpu_rand(SHIMRT_FLOAT32, 2, s), ga = to_cuda(a, 0);
    AtenTensorHandle b = cpu_rand(SHIMRT_FLOAT32, 2, ss), gb = to_cuda(b, 0);
    int64_t ez[2] = {0, 3};
    AtenTensorHandle e = rand_index(2, ez, 1), ge = to_cuda(e, 0);
    scatter_both("scatter.src, empty index", 0, NULL, 1, a, e, b, ga, ge, gb, 1);
    scatter_both("scatter_reduce.two, empty index", 2, "mean", 0, a, e, b, ga, ge, gb, 1);
    AtenTensorHandle sc = cpu_rand(SHIMRT_FLOAT64, 0, NULL), gsc = to_cuda(sc, 0);
    AtenTensorHandle sv = cpu_rand(SHIMRT_FLOAT64, 0, NULL), gsv = to_cuda(sv, 0);
    AtenTensorHandle i0 = rand_index(0, NULL, 1), gi0 = to_cuda(i0, 0);
    scatter_both("scatter.src of 0-dim tensors", 0, NULL, 1, sc, i0, sv, gsc, gi0, gsv, -1);
    scatter_both("scatter_reduce.two of 0-dim tensors", 2, "prod", 1, sc, i0, sv, gsc, gi0, gsv, 0);
    /* errors from both backends */
    AtenTensorHandle w = NULL, gw = NULL;
    int64_t one[2] = {1, 1}, three[2] = {3, 3}, big[2] = {6, 11};
    AtenTensorHandle bad = rand_index(2, one, 1), gbad = NULL;
    ((int64_t *)shimrt_data(bad))[0] = 7;
    gbad = to_cuda(bad, 0);
    DEVICE_FAIL(aoti_torch_cpu_scatter_src(a, 1, bad, b, &w),
                aoti_torch_cuda_scatter_src(ga, 1, gbad, gb, &gw), gw,
                "index 7 is out of bounds for dimension 1 with size 7");
    DEVICE_FAIL(aoti_torch_cpu_scatter_reduce_two(a, -1, bad, b, "amax", 1, &w),
                aoti_torch_cuda_scatter_reduce_two(ga, -1, gbad, gb, "amax", 1, &gw), gw,
                "index 7 is out of bounds for dimension 1 with size 7");
    AtenTensorHandle i32 = cpu_rand(SHIMRT_INT16, 2, one), gi32 = to_cuda(i32, 0);
    BOTH_FAIL(aoti_torch_cpu_scatter_src(a, 1, i32, b, &w),
              aoti_torch_cuda_scatter_src(ga, 1, gi32, gb, &gw),
              "scatter(): Expected dtype int32/int64 for index");
    AtenTensorHandle d64 = cpu_rand(SHIMRT_FLOAT64, 2, ss), gd64 = to_cuda(d64, 0);
    AtenTensorHandle ok = rand_index(2, three, 5), gok = to_cuda(ok, 0);
    BOTH_FAIL(aoti_torch_cpu_scatter_src(a, 1, ok, d64, &w),
              aoti_torch_cuda_scatter_src(ga, 1, gok, gd64, &gw),
              "Expected self.dtype to be equal to src.dtype");
    BOTH_FAIL(aoti_torch_cpu_scatter_reduce_two(a, 1, ok, b, "median", 1, &w),
              aoti_torch_cuda_scatter_reduce_two(ga, 1, gok, gb, "median", 1, &gw),
              "reduce argument must be either sum, prod, mean, amax or amin, got median");
    BOTH_FAIL(aoti_torch_cpu_scatter_reduce(a, 1, ok, b, "sum", &w),
              aoti_torch_cuda_scatter_reduce(ga, 1, gok, gb, "sum", &gw),
              "reduce argument must be either add or multiply.");
    AtenTensorHandle ib = rand_index(2, big, 1), gib = to_cuda(ib, 0);
    BOTH_FAIL(aoti_torch_cpu_scatter_src(a, 1, ib, b, &w),
              aoti_torch_cuda_scatter_src(ga, 1, gib, gb, &gw),
              "Expected index [6, 11] to be no larger than self [5, 7] apart from dimension 1 "
              "and to be no larger size than src [8, 10]");
    BOTH_FAIL(aoti_torch_cpu_scatter_src(a, 2, ok, b, &w),
              aoti_torch_cuda_scatter_src(ga, 2, gok, gb, &gw), "Dimension out of range");
    BOTH_FAIL(aoti_torch_cpu_scatter_src_out(b, a, 1, ok, b),
              aoti_torch_cuda_scatter_src_out(gb, ga, 1, gok, gb),
              "some elements of the input tensor and the written-to tensor refer to a single "
              "memory location");
    AtenTensorHandle all[] = {a,   ga,  b,    gb,  e,    ge,  sc,   gsc, sv,  gsv, i0,
                              gi0, bad, gbad, i32, gi32, d64, gd64, ok,  gok, ib,  gib};
    for (size_t j = 0; j < sizeof all / sizeof *all; j++)
        OK(aoti_torch_delete_tensor_object(all[j]));
    cr_assert(real_gpu || launches() > before, "the kernels ran on the fake device");
    no_leaks();
}

/* native_layer_norm on CUDA against the CPU kernel: the floating dtypes, contiguous and
 * transposed input, one and two normalized dims, no weight, weight only, weight and bias,
 * empty rows and empty normalized dims, and PyTorch's errors from both backends. */
Test(cuda_ops, native_layer_norm_matches_cpu, .timeout = 600) {
    need_nvrtc();
    static const int32_t dts[] = {SHIMRT_FLOAT32, SHIMRT_FLOAT64, SHIMRT_FLOAT16, SHIMRT_BFLOAT16};
    int64_t s[3] = {4, 6, 37};
    char what[128];
    for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
        AtenTensorHandle c = cpu_rand(dts[di], 3, s);
        for (int layout = 0; layout < 2; layout++) {
            AtenTensorHandle cc = c, g = layout ? strided_pair(c, &cc) : to_cuda(c, 0);
            for (int64_t nn = 1; nn <= 2; nn++) {
                const int64_t *ns = s + 3 - nn;
                AtenTensorHandle cw = cpu_rand(dts[di], nn, ns), cb = cpu_rand(dts[di], nn, ns);
                AtenTensorHandle gw = to_cuda(cw, 0), gb = to_cuda(cb, 0);
                for (int wm = 0; wm < 3; wm++) {
                    AtenTensorHandle w[3] = {0}, gr[3] = {0};
                    OK(aoti_torch_cpu_native_layer_norm(cc, ns, nn, wm ? &cw : NULL,
                                                        wm > 1 ? &cb : NULL, 1e-5, &w[0], &w[1],
                                                        &w[2]));
                    OK(aoti_torch_cuda_native_layer_norm(g, ns, nn, wm ? &gw : NULL,
                                                         wm > 1 ? &gb : NULL, 1e-5, &gr[0], &gr[1],
                                                         &gr[2]));
                    for (int k = 0; k < 3; k++) {
                        snprintf(what, sizeof what, "native_layer_norm %s %s nn %lld w %d ret %d",
                                 shimrt_dtype_name(dts[di]), layout ? "strided" : "contiguous",
                                 (long long)nn, wm, k);
                        if (k == 0) {
                            same(what, w[k], gr[k]);
                        } else { /* mean, rstd: PyTorch's CUDA accumulate type */
                            int32_t acc =
                                dts[di] == SHIMRT_FLOAT64 ? SHIMRT_FLOAT64 : SHIMRT_FLOAT32;
                            cr_assert_eq(gr[k]->dtype, acc, "%s: dtype %d", what, gr[k]->dtype);
                            AtenTensorHandle conv = NULL;
                            OK(aoti_torch_empty_strided(gr[k]->ndim, gr[k]->sizes, gr[k]->strides,
                                                        dts[di], aoti_torch_device_type_cuda(), 0,
                                                        &conv));
                            OK(aoti_torch_copy_(conv, gr[k], 0));
                            same(what, w[k], conv);
                            OK(aoti_torch_delete_tensor_object(conv));
                        }
                        OK(aoti_torch_delete_tensor_object(w[k]));
                        OK(aoti_torch_delete_tensor_object(gr[k]));
                    }
                }
                AtenTensorHandle r[] = {cw, cb, gw, gb};
                for (size_t j = 0; j < 4; j++) OK(aoti_torch_delete_tensor_object(r[j]));
            }
            OK(aoti_torch_delete_tensor_object(g));
        }
        OK(aoti_torch_delete_tensor_object(c));
    }
    /* empty rows, an empty normalized dim (mean 0, rstd NaN) */
    static const int64_t shapes[2][2] = {{0, 5}, {3, 0}};
    for (int k = 0; k < 2; k++) {
        AtenTensorHandle c = cpu_rand(SHIMRT_FLOAT32, 2, shapes[k]), g = to_cuda(c, 0);
        AtenTensorHandle w[3] = {0}, gr[3] = {0};
        OK(aoti_torch_cpu_native_layer_norm(c, shapes[k] + 1, 1, NULL, NULL, 1e-5, &w[0], &w[1],
                                            &w[2]));
        OK(aoti_torch_cuda_native_layer_norm(g, shapes[k] + 1, 1, NULL, NULL, 1e-5, &gr[0], &gr[1],
                                             &gr[2]));
        for (int j = 0; j < 3; j++) {
            same("native_layer_norm, empty", w[j], gr[j]);
            OK(aoti_torch_delete_tensor_object(w[j]));
            OK(aoti_torch_delete_tensor_object(gr[j]));
        }
        OK(aoti_torch_delete_tensor_object(c));
        OK(aoti_torch_delete_tensor_object(g));
    }
    /* errors from both backends */
    AtenTensorHandle a = cpu_rand(SHIMRT_FLOAT32, 3, s), ga = to_cuda(a, 0);
    AtenTensorHandle ia = cpu_rand(SHIMRT_INT64, 3, s), gia = to_cuda(ia, 0);
    int64_t wrong[1] = {6}, ws[1] = {5};
    AtenTensorHandle cw = cpu_rand(SHIMRT_FLOAT32, 1, ws), gw = to_cuda(cw, 0);
    AtenTensorHandle r0 = NULL, r1 = NULL, r2 = NULL;
    BOTH_FAIL(aoti_torch_cpu_native_layer_norm(a, s, 0, NULL, NULL, 1e-5, &r0, &r1, &r2),
              aoti_torch_cuda_native_layer_norm(ga, s, 0, NULL, NULL, 1e-5, &r0, &r1, &r2),
              "Expected normalized_shape to be at least 1-dimensional");
    BOTH_FAIL(aoti_torch_cpu_native_layer_norm(a, wrong, 1, NULL, NULL, 1e-5, &r0, &r1, &r2),
              aoti_torch_cuda_native_layer_norm(ga, wrong, 1, NULL, NULL, 1e-5, &r0, &r1, &r2),
              "Given normalized_shape=[6], expected input with shape [*, 6], but got input of "
              "size[4, 6, 37]");
    BOTH_FAIL(aoti_torch_cpu_native_layer_norm(a, s + 2, 1, &cw, NULL, 1e-5, &r0, &r1, &r2),
              aoti_torch_cuda_native_layer_norm(ga, s + 2, 1, &gw, NULL, 1e-5, &r0, &r1, &r2),
              "Expected weight to be of same shape as normalized_shape, but got weight of shape "
              "[5] and normalized_shape = [37]");
    BOTH_FAIL(aoti_torch_cpu_native_layer_norm(ia, s + 2, 1, NULL, NULL, 1e-5, &r0, &r1, &r2),
              aoti_torch_cuda_native_layer_norm(gia, s + 2, 1, NULL, NULL, 1e-5, &r0, &r1, &r2),
              "\"LayerNormKernelImpl\" not implemented for 'Long'");
    AtenTensorHandle all[] = {a, ga, ia, gia, cw, gw};
    for (size_t j = 0; j < sizeof all / sizeof *all; j++)
        OK(aoti_torch_delete_tensor_object(all[j]));
    no_leaks();
}

/* ---- sort, sort.stable ---- */

/* got_cuda holds want's bits exactly: sort copies values and computes integer indices, so
 * nothing is rounded (-0.0 and NaN payloads included); same shape, dtype and strides. */
static void same_bits(const char *what, AtenTensorHandle want, AtenTensorHandle got_cuda) {
    cr_assert_eq(got_cuda->device_type, aoti_torch_device_type_cuda(), "%s", what);
    cr_assert_eq(got_cuda->dtype, want->dtype, "%s: dtype %d vs CPU %d", what, got_cuda->dtype,
                 want->dtype);
    cr_assert_eq(got_cuda->ndim, want->ndim, "%s", what);
    /* the CPU result keeps a non-contiguous input's layout (PyTorch's sort meta); the CUDA
     * kernel writes contiguous results (a known gap): strides are compared where the CPU's
     * are contiguous, values always, in logical order */
    bool cpu_contig = shimrt_is_contiguous(want);
    for (int64_t d = 0; d < want->ndim; d++) {
        cr_assert_eq(got_cuda->sizes[d], want->sizes[d], "%s: size %lld", what, (long long)d);
        if (cpu_contig)
            cr_assert_eq(got_cuda->strides[d], want->strides[d], "%s: stride %lld", what,
                         (long long)d);
    }
    int32_t cf = aoti_torch_memory_format_contiguous_format();
    AtenTensorHandle got = to_cpu(got_cuda), wc = NULL, gc = NULL;
    OK(aoti_torch_cpu_clone(want, &cf, &wc));
    OK(aoti_torch_cpu_clone(got, &cf, &gc));
    size_t es = shimrt_dtype_size(want->dtype);
    for (int64_t i = 0; i < shimrt_numel(want); i++) {
        const char *a = (const char *)shimrt_data(wc) + i * (int64_t)es;
        const char *b = (const char *)shimrt_data(gc) + i * (int64_t)es;
        uint64_t ab = 0, bb = 0;
        memcpy(&ab, a, es);
        memcpy(&bb, b, es);
        cr_assert(!memcmp(a, b, es),
                  "%s: element %lld: CUDA %.9g (bits %#llx), CPU %.9g (bits %#llx)", what,
                  (long long)i, shimrt_k_load_f64(b, want->dtype), (unsigned long long)bb,
                  shimrt_k_load_f64(a, want->dtype), (unsigned long long)ab);
    }
    OK(aoti_torch_delete_tensor_object(gc));
    OK(aoti_torch_delete_tensor_object(wc));
    OK(aoti_torch_delete_tensor_object(got));
}

/* Random values from a small range, so keys tie often: integers in [-3, 3] (bool 0/1, uint8
 * wrapping), floating multiples of 0.5 in [-1.5, 1.5] with NaN, -0.0, 0.0, inf and -inf
 * planted. */
static AtenTensorHandle tie_rand(int32_t dt, int64_t nd, const int64_t *sizes) {
    AtenTensorHandle t = NULL;
    OK(empty_contig(nd, sizes, dt, aoti_torch_device_type_cpu(), 0, &t));
    for (int64_t i = 0; i < shimrt_numel(t); i++) {
        char *p = (char *)shimrt_data(t) + i * (int64_t)shimrt_dtype_size(dt);
        double r = urand(), v = ((int)(urand() * 7) - 3) * 0.5;
        if (!shimrt_k_is_floating(dt))
            shimrt_k_store_i64(p, dt, (int64_t)(urand() * 7) - 3);
        else
            shimrt_k_store_f64(p, dt,
                               r < 0.06   ? NAN
                               : r < 0.14 ? -0.0
                               : r < 0.22 ? 0.0
                               : r < 0.25 ? INFINITY
                               : r < 0.28 ? -INFINITY
                                          : v);
    }
    return t;
}

/* sort (variant 0) or sort.stable (1: stable NULL, 2: true, 3: false) on both backends,
 * values and indices compared bit for bit. */
static void sort_both(const char *what, AtenTensorHandle c, AtenTensorHandle g, int64_t dim,
                      int desc, int variant) {
    AtenTensorHandle wv = NULL, wi = NULL, gv = NULL, gi = NULL;
    int32_t flag = variant == 2, *sp = variant == 1 ? NULL : &flag, one = 1;
    /* the CUDA sort is always stable (ties in index order, a valid unstable sort too); the
     * CPU's unstable sort orders ties as PyTorch's std::sort: the reference is its stable one */
    OK(aoti_torch_cpu_sort_stable(c, &one, dim, desc, &wv, &wi));
    if (variant == 0)
        OK(aoti_torch_cuda_sort(g, dim, desc, &gv, &gi));
    else
        OK(aoti_torch_cuda_sort_stable(g, sp, dim, desc, &gv, &gi));
    char buf[256];
    snprintf(buf, sizeof buf, "%s: values", what);
    same_bits(buf, wv, gv);
    snprintf(buf, sizeof buf, "%s: indices", what);
    same_bits(buf, wi, gi);
    AtenTensorHandle r[] = {wv, wi, gv, gi};
    for (size_t j = 0; j < 4; j++) OK(aoti_torch_delete_tensor_object(r[j]));
}

/* Both backends refuse with the very same message. */
static void sort_both_fail(AtenTensorHandle c, AtenTensorHandle g, int64_t dim, const char *what) {
    AtenTensorHandle v = NULL, i = NULL;
    char cpu[512];
    cr_assert_eq(aoti_torch_cpu_sort(c, dim, 0, &v, &i), AOTI_TORCH_FAILURE);
    snprintf(cpu, sizeof cpu, "%s", torch_exception_get_what());
    cr_assert(strstr(cpu, what), "CPU: '%s' lacks '%s'", cpu, what);
    cr_assert_eq(aoti_torch_cuda_sort(g, dim, 0, &v, &i), AOTI_TORCH_FAILURE);
    cr_assert_str_eq(torch_exception_get_what(), cpu);
    int32_t st = 1;
    cr_assert_eq(aoti_torch_cpu_sort_stable(c, &st, dim, 1, &v, &i), AOTI_TORCH_FAILURE);
    snprintf(cpu, sizeof cpu, "%s", torch_exception_get_what());
    cr_assert_eq(aoti_torch_cuda_sort_stable(g, &st, dim, 1, &v, &i), AOTI_TORCH_FAILURE);
    cr_assert_str_eq(torch_exception_get_what(), cpu);
}

/* sort and sort.stable on CUDA (sort keys, merge passes, writer) against the CPU kernel,
 * bit for bit: every dtype, many ties (stability decides the indices), planted NaN, -0.0,
 * 0.0 and infinities, lengths 0, 1, 2, 3, 7, 64, 1000 and 5000 (powers of two and not),
 * ascending and descending, sort and sort.stable (stable NULL/true/false), contiguous and
 * transposed self, every dim of a 3-d tensor (negative ones too), a view with a storage
 * offset and a stride-0 dim, lines of length 1, 0-dim and empty tensors, the dispatcher's
 * route, and out-of-range dims refused with identical messages. */
Test(cuda_ops, sort_matches_cpu, .timeout = 600) {
    need_nvrtc();
    long before = launches();
    static const int32_t dts[] = {SHIMRT_FLOAT32, SHIMRT_FLOAT64, SHIMRT_FLOAT16, SHIMRT_BFLOAT16,
                                  SHIMRT_INT64,   SHIMRT_INT32,   SHIMRT_INT16,   SHIMRT_INT8,
                                  SHIMRT_UINT8,   SHIMRT_BOOL};
    static const int64_t lens[] = {0, 1, 2, 3, 7, 64, 1000, 5000};
    char what[160];
    int variant = 0;
    for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
        int32_t dt = dts[di];
        const char *dn = shimrt_dtype_name(dt);
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            int64_t len = lens[li];
            /* the long rows on a few dtypes (the emulator is slow): 5000 ascending for
             * float32, descending for int64 */
            if (len == 5000 && dt != SHIMRT_FLOAT32 && dt != SHIMRT_INT64) continue;
            if (len == 1000 && dt != SHIMRT_FLOAT32 && dt != SHIMRT_FLOAT16 && dt != SHIMRT_INT64 &&
                dt != SHIMRT_BOOL)
                continue;
            AtenTensorHandle c = tie_rand(dt, 1, &len), g = to_cuda(c, 0);
            for (int desc = 0; desc < 2; desc++, variant = (variant + 1) % 4) {
                if (len == 5000 && desc != (dt == SHIMRT_INT64)) continue;
                snprintf(what, sizeof what, "%s len %lld %s variant %d", dn, (long long)len,
                         desc ? "descending" : "ascending", variant);
                sort_both(what, c, g, desc ? 0 : -1, desc, variant);
            }
            OK(aoti_torch_delete_tensor_object(c));
            OK(aoti_torch_delete_tensor_object(g));
        }
        /* every dim of a 3-d tensor (four dtypes; dims 0 and -1 for the others: the
         * emulator is slow), contiguous and transposed (dims 0 and 2 swapped), ascending
         * and descending in turn */
        int64_t s3[3] = {9, 4, 6};
        AtenTensorHandle c = tie_rand(dt, 3, s3);
        bool every =
            dt == SHIMRT_FLOAT32 || dt == SHIMRT_FLOAT64 || dt == SHIMRT_INT64 || dt == SHIMRT_BOOL;
        for (int layout = 0; layout < 2; layout++) {
            AtenTensorHandle cc = c, g = layout ? strided_pair(c, &cc) : to_cuda(c, 0);
            for (int64_t dim = -3; dim < 3; dim++)
                for (int desc = (int)((dim + 3 + layout) & 1); desc < 2;
                     desc += 2, variant = (variant + 1) % 4) {
                    if (!every && dim != 0 && dim != -1) continue;
                    snprintf(what, sizeof what, "%s [9, 4, 6] %s dim %lld %s variant %d", dn,
                             layout ? "transposed" : "contiguous", (long long)dim,
                             desc ? "descending" : "ascending", variant);
                    sort_both(what, cc, g, dim, desc, variant);
                }
            OK(aoti_torch_delete_tensor_object(g));
        }
        OK(aoti_torch_delete_tensor_object(c));
    }
    /* a long transposed line: [300, 3] sorted along dim 0 (stride 1 after the transpose) and
     * dim 1 (stride 300) */
    int64_t sl[2] = {300, 3};
    AtenTensorHandle lc = tie_rand(SHIMRT_FLOAT32, 2, sl), lcc = lc, lg = strided_pair(lc, &lcc);
    sort_both("float32 [300, 3] transposed dim 0", lcc, lg, 0, 1, 0);
    sort_both("float32 [300, 3] transposed dim 1", lcc, lg, 1, 0, 2);
    /* views: a storage offset and a stride-0 (expanded) dim, along every dim, and a line
     * of length 1 */
    int64_t sv[1] = {40}, vsz[3] = {3, 5, 4}, vst[3] = {0, 1, 5}, one[2] = {6, 1};
    AtenTensorHandle vb = tie_rand(SHIMRT_FLOAT16, 1, sv), gvb = to_cuda(vb, 0), v = NULL,
                     gv0 = NULL;
    OK(aoti_torch__reinterpret_tensor(vb, 3, vsz, vst, 7, &v));
    OK(aoti_torch__reinterpret_tensor(gvb, 3, vsz, vst, 7, &gv0));
    for (int64_t dim = 0; dim < 3; dim++) {
        snprintf(what, sizeof what, "float16 view (offset 7, strides 0/1/5) dim %lld",
                 (long long)dim);
        sort_both(what, v, gv0, dim, (int)(dim & 1), (int)dim);
    }
    AtenTensorHandle oc = tie_rand(SHIMRT_INT8, 2, one), og = to_cuda(oc, 0);
    sort_both("int8 [6, 1] dim 1", oc, og, 1, 1, 3);
    AtenTensorHandle views[] = {vb, gvb, v, gv0, oc, og};
    for (size_t j = 0; j < 6; j++) OK(aoti_torch_delete_tensor_object(views[j]));
    /* 0-dim and empty tensors */
    AtenTensorHandle z = tie_rand(SHIMRT_FLOAT64, 0, NULL), gz = to_cuda(z, 0);
    sort_both("0-dim dim 0", z, gz, 0, 0, 0);
    sort_both("0-dim dim -1", z, gz, -1, 1, 1);
    static const int64_t empties[3][2] = {{0, 5}, {3, 0}, {0, 0}};
    for (int e = 0; e < 3; e++) {
        AtenTensorHandle ec = tie_rand(SHIMRT_INT32, 2, empties[e]), eg = to_cuda(ec, 0);
        for (int64_t dim = -2; dim < 2; dim++) {
            snprintf(what, sizeof what, "empty [%lld, %lld] dim %lld", (long long)empties[e][0],
                     (long long)empties[e][1], (long long)dim);
            sort_both(what, ec, eg, dim, (int)(dim & 1), (int)(dim + 2));
        }
        OK(aoti_torch_delete_tensor_object(ec));
        OK(aoti_torch_delete_tensor_object(eg));
    }
    /* the boxed dispatcher routes CUDA tensors to the CUDA kernel (no CPU fallback) */
    int64_t sd[2] = {5, 9};
    AtenTensorHandle a = tie_rand(SHIMRT_FLOAT32, 2, sd), ga = to_cuda(a, 0), ga1 = NULL;
    OK(aoti_torch_new_tensor_handle(ga, &ga1));
    long mid = launches();
    StableIValue st[3] = {siv_from_tensor(ga1), (StableIValue)1, 1};
    OK(torch_call_dispatcher("aten::sort", "", st, 0));
    cr_assert(real_gpu || launches() > mid, "aten::sort ran the CUDA kernels");
    AtenTensorHandle gv = siv_to_tensor(st[0]), gi = siv_to_tensor(st[1]), wv = NULL, wi = NULL;
    int32_t stable = 1;
    OK(aoti_torch_cpu_sort_stable(a, &stable, 1, 1, &wv, &wi));
    same_bits("aten::sort through the dispatcher: values", wv, gv);
    same_bits("aten::sort through the dispatcher: indices", wi, gi);
    /* out-of-range dims: the same message from both backends */
    int64_t s3[3] = {9, 4, 6};
    AtenTensorHandle c3 = tie_rand(SHIMRT_INT16, 3, s3), g3 = to_cuda(c3, 0);
    sort_both_fail(c3, g3, 3,
                   "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    sort_both_fail(c3, g3, -4,
                   "Dimension out of range (expected to be in range of [-3, 2], but got -4)");
    sort_both_fail(z, gz, 1,
                   "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    AtenTensorHandle all[] = {lc, lg, z, gz, a, ga, gv, gi, wv, wi, c3, g3};
    for (size_t j = 0; j < sizeof all / sizeof *all; j++)
        OK(aoti_torch_delete_tensor_object(all[j]));
    cr_assert(real_gpu || launches() > before, "the kernels ran on the fake device");
    no_leaks();
}

/* Issue 21, items 1 and 7: with device 0 current and a pool stream current on device 1,
 * kernels on cuda:1 tensors launch on device 1's stream (the fake refuses a launch into a
 * stream of another context), the D2H copy of their result is queued on that same stream
 * (so it is ordered after them) with device 1's context current, index_select's index check
 * reads the index the same way, and nothing leaves device 1 current. */
Test(cuda_ops, cuda1_copies_follow_the_kernels_on_its_stream, .timeout = 600) {
    need_nvrtc();
    int32_t ndev = 0;
    OK(shimrt_cuda_device_count(&ndev));
    if (ndev < 2) cr_skip_test("one CUDA device");
    CUDAGuardHandle g = NULL;
    OK(aoti_torch_create_cuda_guard(0, &g));
    void *s1 = NULL, *stream = NULL;
    int dev = -1;
    OK(torch_get_cuda_stream_from_pool(false, 1, &s1));
    OK(torch_set_current_cuda_stream(s1, 1));
    int64_t sz[2] = {3, 40};
    AtenTensorHandle c = cpu_rand(SHIMRT_FLOAT32, 2, sz), g1 = to_cuda(c, 1), y = NULL, w = NULL;
    OK(aoti_torch_cuda_mul_Tensor(g1, g1, &y));
    OK(aoti_torch_cpu_mul_Tensor(c, c, &w));
    if (fake_cur_dev) cr_assert_eq(fake_cur_dev(), 0, "the launch put device 0 back");
    AtenTensorHandle h = to_cpu(y);
    if (last_copy) {
        last_copy(&dev, &stream);
        cr_assert_eq(dev, 1, "the D2H copy of a cuda:1 tensor runs in device 1's context");
        cr_assert_eq(stream, s1, "... on device 1's current stream, after the kernel");
        cr_assert_eq(fake_cur_dev(), 0);
    }
    same("mul on cuda:1", w, y);
    /* index_select's index check copies the index to the host: also on device 1's stream */
    int64_t isz[1] = {2};
    AtenTensorHandle ix = NULL, gix = NULL, r = NULL, rc = NULL;
    OK(empty_contig(1, isz, SHIMRT_INT64, aoti_torch_device_type_cpu(), 0, &ix));
    ((int64_t *)shimrt_data(ix))[0] = 2;
    ((int64_t *)shimrt_data(ix))[1] = 0;
    gix = to_cuda(ix, 1);
    OK(aoti_torch_cuda_index_select(g1, 0, gix, &r));
    OK(aoti_torch_cpu_index_select(c, 0, ix, &rc));
    if (last_copy) {
        last_copy(&dev, &stream);
        cr_assert_eq(dev, 1);
        cr_assert_eq(stream, s1);
        cr_assert_eq(fake_cur_dev(), 0);
    }
    same("index_select on cuda:1", rc, r);
    AtenTensorHandle all[] = {c, g1, y, w, h, ix, gix, r, rc};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        OK(aoti_torch_delete_tensor_object(all[i]));
    OK(torch_set_current_cuda_stream(NULL, 1));
    OK(aoti_torch_delete_cuda_guard(g));
}

/* Issue 21, item 2: GEMMs from several threads, each on its own stream of device (thread
 * % 2): every call finds its handle bound to the calling thread's stream for its whole
 * duration (the fake holds the handle 0.2 ms per call and counts a concurrent use or a
 * stream changed under it), no two live threads share a handle, and each (handle, stream)
 * has its own workspace. */
enum { BLAS_THREADS = 4, BLAS_ITERS = 6 };
typedef struct {
    int dev;
    void *stream;
    AtenTensorHandle a, b, want;
    int failures;
    unsigned long self;
} blas_job;
static pthread_barrier_t blas_bar;

static void *blas_thread(void *arg) {
    blas_job *j = arg;
    j->self = (unsigned long)pthread_self();
    if (torch_set_current_cuda_stream(j->stream, j->dev)) j->failures++;
    for (int i = 0; i < BLAS_ITERS; i++) {
        AtenTensorHandle c = NULL;
        if (aoti_torch_cuda_mm(j->a, j->b, &c)) {
            j->failures++;
            continue;
        }
        AtenTensorHandle h = NULL;
        int64_t st[2] = {c->sizes[1], 1};
        if (aoti_torch_empty_strided(2, c->sizes, st, c->dtype, aoti_torch_device_type_cpu(), 0,
                                     &h) ||
            shimrt_cuda_do_copy(h, c))
            j->failures++;
        else
            for (int64_t k = 0; k < shimrt_numel(h); k++)
                if (fabsf(((float *)shimrt_data(h))[k] - ((float *)shimrt_data(j->want))[k]) >
                    1e-4f)
                    j->failures++;
        aoti_torch_delete_tensor_object(h);
        aoti_torch_delete_tensor_object(c);
    }
    pthread_barrier_wait(&blas_bar); /* every thread alive until all are done */
    return NULL;
}

Test(cuda_ops, gemm_threads_get_their_own_handle_and_stream, .timeout = 600) {
    need_nvrtc();
    if (!blas_uses) cr_skip_test("the real cuBLAS keeps no log");
    int32_t ndev = 0;
    OK(shimrt_cuda_device_count(&ndev));
    int64_t sa[2] = {8, 12}, sb[2] = {12, 5};
    blas_job jobs[BLAS_THREADS];
    pthread_t th[BLAS_THREADS];
    long base = *blas_nuses;
    for (int t = 0; t < BLAS_THREADS; t++) {
        blas_job *j = &jobs[t];
        memset(j, 0, sizeof *j);
        j->dev = t % (ndev < 2 ? 1 : 2);
        OK(torch_get_cuda_stream_from_pool(false, j->dev, &j->stream));
        AtenTensorHandle ca = cpu_rand(SHIMRT_FLOAT32, 2, sa), cb = cpu_rand(SHIMRT_FLOAT32, 2, sb);
        OK(aoti_torch_cpu_mm(ca, cb, &j->want));
        j->a = to_cuda(ca, j->dev);
        j->b = to_cuda(cb, j->dev);
        OK(aoti_torch_delete_tensor_object(ca));
        OK(aoti_torch_delete_tensor_object(cb));
    }
    pthread_barrier_init(&blas_bar, NULL, BLAS_THREADS);
    for (int t = 0; t < BLAS_THREADS; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, blas_thread, &jobs[t]), 0);
    for (int t = 0; t < BLAS_THREADS; t++) pthread_join(th[t], NULL);
    pthread_barrier_destroy(&blas_bar);
    for (int t = 0; t < BLAS_THREADS; t++) cr_assert_eq(jobs[t].failures, 0, "thread %d", t);
    cr_assert_eq(*blas_races, 0, "a handle was used by two threads at once or rebound mid-call");
    cr_assert_eq(*blas_nuses - base, BLAS_THREADS * BLAS_ITERS);
    for (long u = base; u < *blas_nuses; u++) {
        const blas_use *x = &blas_uses[u];
        int t = 0;
        while (t < BLAS_THREADS && jobs[t].self != x->thread) t++;
        cr_assert(t < BLAS_THREADS);
        cr_assert_eq(x->stream, jobs[t].stream,
                     "use %ld: the handle is bound to its thread's stream", u);
        cr_assert_not_null(x->ws, "a workspace of the caching allocator is set");
        for (long v = base; v < *blas_nuses; v++) {
            const blas_use *y = &blas_uses[v];
            if (y->thread != x->thread)
                cr_assert_neq(y->handle, x->handle, "threads share a handle");
            if (y->handle == x->handle && y->stream != x->stream)
                cr_assert_neq(y->ws, x->ws, "one workspace for two streams");
        }
    }
    for (int t = 0; t < BLAS_THREADS; t++) {
        OK(aoti_torch_delete_tensor_object(jobs[t].a));
        OK(aoti_torch_delete_tensor_object(jobs[t].b));
        OK(aoti_torch_delete_tensor_object(jobs[t].want));
    }
}

/* Reductions with few outputs over long extents split across blocks (docs/cuda.md,
 * "Reductions"): two launches (partials, then their merge in order), run by the emulator at
 * their full launch shape (every block, 256 threads); sum, mean, amax, max.dim, argmax
 * (first NaN, lowest index of tied maxima in other chunks), all and any against the CPU
 * kernels, contiguous (transposed too for float32); the same call twice gives the same bits. */
Test(cuda_ops, reductions_split_across_blocks_match_cpu, .timeout = 600) {
    need_nvrtc();
    unsigned og = 0, ob = 0;
    if (emu_caps) emu_caps(0, 0, &og, &ob);
    static const int32_t dts[] = {SHIMRT_FLOAT32, SHIMRT_FLOAT16, SHIMRT_INT32};
    int64_t s[2] = {3, 13001};
    char what[96];
    for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
        int32_t dt = dts[di];
        bool flt = shimrt_k_is_floating(dt);
        AtenTensorHandle c = cpu_rand(dt, 2, s);
        set_f64(c, 700, 50); /* line 0: tied maxima in chunks 0 and 2 */
        set_f64(c, 9000, 50);
        if (flt) { /* line 2: NaNs in chunks 3 and 1 */
            set_f64(c, 2 * s[1] + 12500, NAN);
            set_f64(c, 2 * s[1] + 5000, NAN);
        }
        for (int layout = 0; layout < (dt == SHIMRT_FLOAT32 ? 2 : 1); layout++) { /* emu time */
            AtenTensorHandle cc = c, g = layout ? strided_pair(c, &cc) : to_cuda(c, 0);
            const char *lname = layout ? "strided" : "contiguous";
            AtenTensorHandle w = NULL, gr = NULL, gr2 = NULL, wi = NULL, gi = NULL;
            long l0 = launches();
            OK(aoti_torch_cpu_sum_dim_IntList(cc, NULL, 0, 0, NULL, &w));
            OK(aoti_torch_cuda_sum_dim_IntList(g, NULL, 0, 0, NULL, &gr));
            if (!real_gpu) cr_assert_eq(launches() - l0, 2, "a split sum is two launches");
            snprintf(what, sizeof what, "sum %s %s", shimrt_dtype_name(dt), lname);
            same(what, w, gr);
            OK(aoti_torch_cuda_sum_dim_IntList(g, NULL, 0, 0, NULL, &gr2));
            AtenTensorHandle h1 = to_cpu(gr), h2 = to_cpu(gr2);
            cr_assert(!memcmp(shimrt_data(h1), shimrt_data(h2), shimrt_dtype_size(h1->dtype)),
                      "%s: not deterministic", what);
            AtenTensorHandle tmp[] = {w, gr, gr2, h1, h2};
            for (size_t j = 0; j < 5; j++) OK(aoti_torch_delete_tensor_object(tmp[j]));
            if (flt) {
                OK(aoti_torch_cpu_mean_dim(cc, NULL, 0, 0, NULL, &w));
                OK(aoti_torch_cuda_mean_dim(g, NULL, 0, 0, NULL, &gr));
                snprintf(what, sizeof what, "mean %s %s", shimrt_dtype_name(dt), lname);
                same(what, w, gr);
                OK(aoti_torch_delete_tensor_object(w));
                OK(aoti_torch_delete_tensor_object(gr));
            }
            int64_t d1 = 1;
            OK(aoti_torch_cpu_amax(cc, &d1, 1, 0, &w));
            OK(aoti_torch_cuda_amax(g, &d1, 1, 0, &gr));
            snprintf(what, sizeof what, "amax dim 1 %s %s", shimrt_dtype_name(dt), lname);
            same(what, w, gr);
            OK(aoti_torch_delete_tensor_object(w));
            OK(aoti_torch_delete_tensor_object(gr));
            OK(aoti_torch_cpu_max_dim(cc, 1, 0, &w, &wi));
            OK(aoti_torch_cuda_max_dim(g, 1, 0, &gr, &gi));
            snprintf(what, sizeof what, "max.dim 1 %s %s", shimrt_dtype_name(dt), lname);
            same(what, w, gr);
            same(what, wi, gi);
            AtenTensorHandle tmp2[] = {w, gr, wi, gi};
            for (size_t j = 0; j < 4; j++) OK(aoti_torch_delete_tensor_object(tmp2[j]));
            OK(aoti_torch_cpu_argmax(cc, NULL, 0, &wi));
            OK(aoti_torch_cuda_argmax(g, NULL, 0, &gi));
            snprintf(what, sizeof what, "argmax %s %s", shimrt_dtype_name(dt), lname);
            same(what, wi, gi);
            OK(aoti_torch_delete_tensor_object(wi));
            OK(aoti_torch_delete_tensor_object(gi));
            if (dt == SHIMRT_INT32) { /* all / any over a bool tensor of n elements */
                AtenTensorHandle cb = NULL, gb = NULL;
                OK(aoti_torch_cpu_ne_Scalar(cc, 3, &cb));
                OK(aoti_torch_cuda_ne_Scalar(g, 3, &gb));
                OK(aoti_torch_cpu_all(cb, &w));
                OK(aoti_torch_cuda_all(gb, &gr));
                same("all", w, gr);
                OK(aoti_torch_delete_tensor_object(w));
                OK(aoti_torch_delete_tensor_object(gr));
                OK(aoti_torch_cpu_any(cb, &w));
                OK(aoti_torch_cuda_any(gb, &gr));
                same("any", w, gr);
                AtenTensorHandle tmp3[] = {w, gr, cb, gb};
                for (size_t j = 0; j < 4; j++) OK(aoti_torch_delete_tensor_object(tmp3[j]));
            }
            if (cc != c) OK(aoti_torch_delete_tensor_object(cc));
            OK(aoti_torch_delete_tensor_object(g));
        }
        OK(aoti_torch_delete_tensor_object(c));
    }
    if (emu_caps) emu_caps(og, ob, NULL, NULL);
    no_leaks();
}

/* tests/cuda/test_cuda_composite.c: the composite kernels (CompositeExplicitAutograd and
 * CompositeImplicitAutograd, the prototypes of generated/composite*_kernels.h) that the
 * generated CUDA shims call, each through its aoti_torch_cuda_* shim on CUDA tensors,
 * against the aoti_torch_cpu_* shim on the same values. Without a GPU the fake driver runs
 * in its guard mode (SHIMRT_FAKE_CUDA_GUARD=1, tests/cuda/fake_cuda.c): device memory is
 * PROT_NONE outside the driver's own copies, memsets and launches, so a composite that
 * loads or stores element data with host code faults here as it would on a GPU. Skips
 * when NVRTC is not installed. */
#include <math.h>

#include "cuda_test.h"
#include "../../runtime/core/internal.h"
#include "c_shim_cpu.h"
#include "c_shim_cuda.h"

static void setup(void) {
    char exe[PATH_MAX], buf[PATH_MAX + 64];
    exe_dir(exe);
    jit_cache_in(exe);
    if (have_gpu()) return;
    snprintf(buf, sizeof buf, "%s/libfakecuda_emu.so", exe);
    setenv("SHIMRT_LIBCUDA", buf, 1);
    setenv("SHIMRT_FAKE_CUDA_GUARD", "1", 1); /* read when the fake loads, next line */
    void *h = dlopen(buf, RTLD_NOW);
    cr_assert_not_null(h, "%s", dlerror());
    int (*guarded)(void) = NULL;
    *(void **)&guarded = dlsym(h, "fake_cuda_guarded");
    cr_assert(guarded && guarded(), "the fake driver is not in its guard mode");
}

TestSuite(cuda_composite, .init = setup);

static int32_t CPU(void) { return aoti_torch_device_type_cpu(); }
static int32_t CUDA(void) { return aoti_torch_device_type_cuda(); }

/* A contiguous tensor of dtype dt on dev holding vals[i % nvals] (copied through copy_). */
static AtenTensorHandle make(int32_t dt, int32_t dev, int64_t nd, const int64_t *sizes,
                             const double *vals, int64_t nvals) {
    AtenTensorHandle c = NULL, t = NULL;
    OK(aoti_torch_empty_strided(nd, sizes, shimrt_test_strides(nd, sizes), dt, CPU(), 0, &c));
    for (int64_t i = 0; i < shimrt_numel(c); i++) {
        double v = vals[i % nvals];
        shimrt_dtype_convert((char *)shimrt_data(c) + i * (int64_t)shimrt_dtype_size(dt), dt, &v,
                             SHIMRT_FLOAT64);
    }
    if (dev == CPU()) return c;
    OK(aoti_torch_empty_strided(nd, sizes, shimrt_test_strides(nd, sizes), dt, dev, 0, &t));
    OK(aoti_torch_copy_(t, c, 0));
    OK(aoti_torch_delete_tensor_object(c));
    return t;
}

static const double vals[] = {1.5, -2.25, 3, 0.5, -7, 4.75, 2, -0.125, 6, 9, -3.5};
#define NV ((int64_t)(sizeof vals / sizeof vals[0]))

/* got (CUDA) equals want (CPU): device, dtype, shape, values (copied back with copy_);
 * tolerance for floating ops computed by other kernels. Frees both. */
static void same(const char *what, AtenTensorHandle want, AtenTensorHandle got, double tol) {
    cr_assert_eq(got->device_type, CUDA(), "%s: result on device type %d", what, got->device_type);
    cr_assert_eq(got->dtype, want->dtype, "%s: dtype %d vs CPU %d", what, got->dtype, want->dtype);
    cr_assert_eq(got->ndim, want->ndim, "%s: ndim", what);
    for (int64_t d = 0; d < want->ndim; d++)
        cr_assert_eq(got->sizes[d], want->sizes[d], "%s: size %lld", what, (long long)d);
    AtenTensorHandle h = NULL, w = NULL;
    int64_t nd = want->ndim;
    OK(aoti_torch_empty_strided(nd, want->sizes, shimrt_test_strides(nd, want->sizes), want->dtype,
                                CPU(), 0, &h));
    OK(aoti_torch_empty_strided(nd, want->sizes, shimrt_test_strides(nd, want->sizes), want->dtype,
                                CPU(), 0, &w));
    OK(aoti_torch_copy_(h, got, 0));
    OK(aoti_torch_copy_(w, want, 0));
    size_t es = shimrt_dtype_size(want->dtype);
    for (int64_t i = 0; i < shimrt_numel(h); i++) {
        double a = shimrt_k_load_f64((char *)shimrt_data(w) + i * (int64_t)es, want->dtype);
        double b = shimrt_k_load_f64((char *)shimrt_data(h) + i * (int64_t)es, want->dtype);
        cr_assert(a == b || (isnan(a) && isnan(b)) || fabs(a - b) <= tol * fmax(1, fabs(a)),
                  "%s: element %lld: CUDA %.9g, CPU %.9g", what, (long long)i, b, a);
    }
    OK(aoti_torch_delete_tensor_object(h));
    OK(aoti_torch_delete_tensor_object(w));
    OK(aoti_torch_delete_tensor_object(want));
    OK(aoti_torch_delete_tensor_object(got));
}

static void drop(AtenTensorHandle t) { OK(aoti_torch_delete_tensor_object(t)); }

Test(cuda_composite, full_and_likes, .timeout = 120) {
    need_nvrtc();
    static const int32_t dts[] = {SHIMRT_FLOAT32, SHIMRT_FLOAT64, SHIMRT_INT64,   SHIMRT_INT32,
                                  SHIMRT_BOOL,    SHIMRT_FLOAT16, SHIMRT_BFLOAT16};
    int64_t sz[] = {3, 5};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        int32_t dt = dts[k], cpu = CPU(), cuda = CUDA();
        double v = dt == SHIMRT_BOOL ? 1 : shimrt_dtype_is_floating(dt) ? -2.5 : 7;
        AtenTensorHandle w = NULL, g = NULL;
        OK(aoti_torch_cpu_full(sz, 2, v, (int32_t[]){dt}, NULL, &cpu, 0, NULL, &w));
        OK(aoti_torch_cuda_full(sz, 2, v, (int32_t[]){dt}, NULL, &cuda, 0, NULL, &g));
        same("full", w, g, 0);
        AtenTensorHandle sc = make(dt, CPU(), 2, sz, vals, NV);
        AtenTensorHandle sg = make(dt, CUDA(), 2, sz, vals, NV);
        OK(aoti_torch_cpu_full_like(sc, v, NULL, NULL, NULL, 0, NULL, NULL, &w));
        OK(aoti_torch_cuda_full_like(sg, v, NULL, NULL, NULL, 0, NULL, NULL, &g));
        same("full_like", w, g, 0);
        OK(aoti_torch_cpu_zeros_like(sc, NULL, NULL, NULL, 0, NULL, NULL, &w));
        OK(aoti_torch_cuda_zeros_like(sg, NULL, NULL, NULL, 0, NULL, NULL, &g));
        same("zeros_like", w, g, 0);
        OK(aoti_torch_cpu_ones_like(sc, NULL, NULL, NULL, 0, NULL, NULL, &w));
        OK(aoti_torch_cuda_ones_like(sg, NULL, NULL, NULL, 0, NULL, NULL, &g));
        same("ones_like", w, g, 0);
        /* full.out resizes out (here: grows it) and fills it */
        int64_t big[] = {4, 6};
        OK(aoti_torch_cpu_full_out(sc, big, 2, v));
        OK(aoti_torch_cuda_full_out(sg, big, 2, v));
        same("full.out", sc, sg, 0);
    }
    /* a large int64 keeps its exact value; the dtype inferred from the Scalar */
    int32_t cpu = CPU(), cuda = CUDA();
    AtenTensorHandle w = NULL, g = NULL;
    OK(aoti_torch_cpu_full(sz, 2, 3.0, (int32_t[]){SHIMRT_INT64}, NULL, &cpu, 0, NULL, &w));
    OK(aoti_torch_cuda_full(sz, 2, 3.0, (int32_t[]){SHIMRT_INT64}, NULL, &cuda, 0, NULL, &g));
    same("full int64", w, g, 0);
    OK(aoti_torch_cpu_full(sz, 2, 0.75, NULL, NULL, &cpu, 0, NULL, &w));
    OK(aoti_torch_cuda_full(sz, 2, 0.75, NULL, NULL, &cuda, 0, NULL, &g));
    same("full, inferred dtype", w, g, 0);
    no_leaks();
}

Test(cuda_composite, arange, .timeout = 120) {
    need_nvrtc();
    int32_t cpu = CPU(), cuda = CUDA();
    static const int32_t dts[] = {SHIMRT_FLOAT32, SHIMRT_FLOAT64, SHIMRT_INT64, SHIMRT_INT32,
                                  SHIMRT_FLOAT16};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        AtenTensorHandle w = NULL, g = NULL;
        OK(aoti_torch_cpu_arange(11, (int32_t[]){dts[k]}, NULL, &cpu, 0, NULL, &w));
        OK(aoti_torch_cuda_arange(11, (int32_t[]){dts[k]}, NULL, &cuda, 0, NULL, &g));
        same("arange", w, g, 0);
        OK(aoti_torch_cpu_arange_start_step(-3, 4.5, 0.5, (int32_t[]){dts[k]}, NULL, &cpu, 0, NULL,
                                            &w));
        OK(aoti_torch_cuda_arange_start_step(-3, 4.5, 0.5, (int32_t[]){dts[k]}, NULL, &cuda, 0,
                                             NULL, &g));
        same("arange.start_step", w, g, 0);
    }
    AtenTensorHandle w = NULL, g = NULL;
    OK(aoti_torch_cpu_arange_start_step(5, -5, -1.5, NULL, NULL, &cpu, 0, NULL, &w));
    OK(aoti_torch_cuda_arange_start_step(5, -5, -1.5, NULL, NULL, &cuda, 0, NULL, &g));
    same("arange.start_step, negative step", w, g, 0);
    OK(aoti_torch_cpu_arange(0, NULL, NULL, &cpu, 0, NULL, &w));
    OK(aoti_torch_cuda_arange(0, NULL, NULL, &cuda, 0, NULL, &g));
    same("arange, empty", w, g, 0);
    no_leaks();
}

Test(cuda_composite, stack_embedding_foreach, .timeout = 120) {
    need_nvrtc();
    int64_t sz[] = {3, 4};
    AtenTensorHandle c[3], g[3];
    for (int k = 0; k < 3; k++) {
        c[k] = make(SHIMRT_FLOAT32, CPU(), 2, sz, vals + k, NV - 3);
        g[k] = make(SHIMRT_FLOAT32, CUDA(), 2, sz, vals + k, NV - 3);
    }
    for (int64_t dim = -3; dim < 3; dim++) {
        AtenTensorHandle w = NULL, r = NULL;
        OK(aoti_torch_cpu_stack(c, 3, dim, &w));
        OK(aoti_torch_cuda_stack(g, 3, dim, &r));
        same("stack", w, r, 0);
    }
    /* embedding: rows of weight picked by indices (contiguous and transposed) */
    int64_t wsz[] = {10, 4}, isz[] = {2, 3};
    static const double idx[] = {0, 9, 3, 3, 7, 1};
    AtenTensorHandle wc = make(SHIMRT_FLOAT32, CPU(), 2, wsz, vals, NV);
    AtenTensorHandle wg = make(SHIMRT_FLOAT32, CUDA(), 2, wsz, vals, NV);
    AtenTensorHandle ic = make(SHIMRT_INT64, CPU(), 2, isz, idx, 6);
    AtenTensorHandle ig = make(SHIMRT_INT64, CUDA(), 2, isz, idx, 6);
    AtenTensorHandle w = NULL, r = NULL;
    OK(aoti_torch_cpu_embedding(wc, ic, -1, 0, 0, &w));
    OK(aoti_torch_cuda_embedding(wg, ig, -1, 0, 0, &r));
    same("embedding", w, r, 0);
    AtenTensorHandle ict = NULL, igt = NULL;
    OK(aoti_torch_cpu_transpose_int(ic, 0, 1, &ict));
    OK(aoti_torch_cuda_transpose_int(ig, 0, 1, &igt));
    OK(aoti_torch_cpu_embedding(wc, ict, -1, 0, 0, &w));
    OK(aoti_torch_cuda_embedding(wg, igt, -1, 0, 0, &r));
    same("embedding, transposed indices", w, r, 0);
    drop(ict), drop(igt), drop(wc), drop(wg), drop(ic), drop(ig);
    /* _foreach_mul.List and _foreach_mul_.List */
    AtenTensorHandle *lw = NULL, *lg = NULL;
    int64_t nw = 0, ng = 0;
    OK(aoti_torch_cpu__foreach_mul_List(c, 3, c, 3, &lw, &nw));
    OK(aoti_torch_cuda__foreach_mul_List(g, 3, g, 3, &lg, &ng));
    cr_assert_eq(nw, 3);
    cr_assert_eq(ng, 3);
    for (int k = 0; k < 3; k++) same("_foreach_mul.List", lw[k], lg[k], 0);
    free(lw), free(lg);
    OK(aoti_torch_cpu__foreach_mul__List(c, 3, c, 3));
    OK(aoti_torch_cuda__foreach_mul__List(g, 3, g, 3));
    for (int k = 0; k < 3; k++) same("_foreach_mul_.List", c[k], g[k], 0);
    /* the in-place op's checks: a float product into an int64 self is refused, and a
     * product of another shape; both with the CPU's message */
    AtenTensorHandle ic2 = make(SHIMRT_INT64, CPU(), 2, sz, vals, NV);
    AtenTensorHandle ig2 = make(SHIMRT_INT64, CUDA(), 2, sz, vals, NV);
    AtenTensorHandle fc = make(SHIMRT_FLOAT32, CPU(), 2, sz, vals, NV);
    AtenTensorHandle fg = make(SHIMRT_FLOAT32, CUDA(), 2, sz, vals, NV);
    int64_t bsz[] = {2, 3, 4};
    AtenTensorHandle bc2 = make(SHIMRT_INT64, CPU(), 3, bsz, vals, NV);
    AtenTensorHandle bg2 = make(SHIMRT_INT64, CUDA(), 3, bsz, vals, NV);
    const AtenTensorHandle cases[2][4] = {{ic2, fc, ig2, fg}, {ic2, bc2, ig2, bg2}};
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(aoti_torch_cpu__foreach_mul__List(&cases[k][0], 1, &cases[k][1], 1),
                     AOTI_TORCH_FAILURE);
        char want[512];
        const char *m = strstr(torch_exception_get_what(), ": ");
        cr_assert_not_null(m);
        snprintf(want, sizeof want, "%s", m + 2); /* the CPU's message after the op's name */
        FAILS(aoti_torch_cuda__foreach_mul__List(&cases[k][2], 1, &cases[k][3], 1),
              "_foreach_mul_.List", want);
    }
    drop(ic2), drop(ig2), drop(fc), drop(fg), drop(bc2), drop(bg2);
    no_leaks();
}

Test(cuda_composite, layer_norm_and_to, .timeout = 120) {
    need_nvrtc();
    int64_t sz[] = {4, 6}, ns[] = {6};
    AtenTensorHandle xc = make(SHIMRT_FLOAT32, CPU(), 2, sz, vals, NV);
    AtenTensorHandle xg = make(SHIMRT_FLOAT32, CUDA(), 2, sz, vals, NV);
    AtenTensorHandle wc = make(SHIMRT_FLOAT32, CPU(), 1, ns, vals + 2, 5);
    AtenTensorHandle wg = make(SHIMRT_FLOAT32, CUDA(), 1, ns, vals + 2, 5);
    AtenTensorHandle bc = make(SHIMRT_FLOAT32, CPU(), 1, ns, vals + 4, 3);
    AtenTensorHandle bg = make(SHIMRT_FLOAT32, CUDA(), 1, ns, vals + 4, 3);
    AtenTensorHandle w = NULL, r = NULL;
    OK(aoti_torch_cpu_layer_norm(xc, ns, 1, &wc, &bc, 1e-5, 1, &w));
    OK(aoti_torch_cuda_layer_norm(xg, ns, 1, &wg, &bg, 1e-5, 1, &r));
    same("layer_norm", w, r, 1e-5);
    OK(aoti_torch_cpu_layer_norm(xc, ns, 1, NULL, NULL, 1e-5, 1, &w));
    OK(aoti_torch_cuda_layer_norm(xg, ns, 1, NULL, NULL, 1e-5, 1, &r));
    same("layer_norm, no weight or bias", w, r, 1e-5);
    /* native_layer_norm.out (a derived out kernel: the functional op, copied) */
    int64_t ms[] = {4, 1};
    AtenTensorHandle oc[3] = {make(SHIMRT_FLOAT32, CPU(), 2, sz, vals, 1),
                              make(SHIMRT_FLOAT32, CPU(), 2, ms, vals, 1),
                              make(SHIMRT_FLOAT32, CPU(), 2, ms, vals, 1)};
    AtenTensorHandle og[3] = {make(SHIMRT_FLOAT32, CUDA(), 2, sz, vals, 1),
                              make(SHIMRT_FLOAT32, CUDA(), 2, ms, vals, 1),
                              make(SHIMRT_FLOAT32, CUDA(), 2, ms, vals, 1)};
    OK(aoti_torch_cpu_native_layer_norm_out(oc[0], oc[1], oc[2], xc, ns, 1, &wc, &bc, 1e-5));
    OK(aoti_torch_cuda_native_layer_norm_out(og[0], og[1], og[2], xg, ns, 1, &wg, &bg, 1e-5));
    for (int k = 0; k < 3; k++) same("native_layer_norm.out", oc[k], og[k], 1e-5);
    /* to.dtype_layout: on the device, converted */
    int32_t i32 = SHIMRT_INT32, f64 = SHIMRT_FLOAT64;
    OK(aoti_torch_cpu_to_dtype_layout(xc, &i32, NULL, NULL, 0, NULL, 0, 0, NULL, &w));
    OK(aoti_torch_cuda_to_dtype_layout(xg, &i32, NULL, NULL, 0, NULL, 0, 0, NULL, &r));
    same("to.dtype_layout int32", w, r, 0);
    OK(aoti_torch_cpu_to_dtype_layout(xc, &f64, NULL, NULL, 0, NULL, 0, 1, NULL, &w));
    OK(aoti_torch_cuda_to_dtype_layout(xg, &f64, NULL, NULL, 0, NULL, 0, 1, NULL, &r));
    same("to.dtype_layout float64", w, r, 0);
    /* nothing to change: self itself, as PyTorch (the default and a matching format) */
    int32_t f32 = SHIMRT_FLOAT32, contig = SHIMRT_MEMORY_FORMAT_CONTIGUOUS;
    OK(aoti_torch_cuda_to_dtype_layout(xg, &f32, NULL, NULL, 0, NULL, 0, 0, NULL, &r));
    cr_assert_eq(shimrt_data(r), shimrt_data(xg), "to.dtype_layout aliases self");
    drop(r);
    OK(aoti_torch_cuda_to_dtype_layout(xg, &f32, NULL, NULL, 0, NULL, 0, 0, &contig, &r));
    cr_assert_eq(shimrt_data(r), shimrt_data(xg), "to.dtype_layout(contiguous) aliases self");
    drop(r);
    /* to the CPU and back: the rows' copies */
    int32_t cpu_dev = CPU(), cuda_dev = CUDA();
    AtenTensorHandle h = NULL;
    OK(aoti_torch_cuda_to_dtype_layout(xg, NULL, NULL, &cpu_dev, -1, NULL, 0, 0, NULL, &h));
    cr_assert_eq(h->device_type, CPU());
    OK(aoti_torch_cpu_to_dtype_layout(h, NULL, NULL, &cuda_dev, 0, NULL, 0, 0, NULL, &r));
    OK(aoti_torch_cpu_clone(xc, NULL, &w));
    same("to.dtype_layout cpu and back", w, r, 0);
    drop(h);
    drop(wc), drop(wg), drop(bc), drop(bg);
    /* the views and predicates: shapes and values through their aliases */
    OK(aoti_torch_cpu_slice_Tensor(xc, 1, (int64_t[]){1}, (int64_t[]){5}, 2, &w));
    OK(aoti_torch_cuda_slice_Tensor(xg, 1, (int64_t[]){1}, (int64_t[]){5}, 2, &r));
    same("slice.Tensor", w, r, 0);
    OK(aoti_torch_cpu_narrow(xc, 0, 1, 2, &w));
    OK(aoti_torch_cuda_narrow(xg, 0, 1, 2, &r));
    same("narrow", w, r, 0);
    OK(aoti_torch_cpu_select_int(xc, 1, -2, &w));
    OK(aoti_torch_cuda_select_int(xg, 1, -2, &r));
    same("select.int", w, r, 0);
    OK(aoti_torch_cpu_permute(xc, (int64_t[]){1, 0}, 2, &w));
    OK(aoti_torch_cuda_permute(xg, (int64_t[]){1, 0}, 2, &r));
    same("permute", w, r, 0);
    OK(aoti_torch_cpu_unsqueeze(xc, 1, &w));
    OK(aoti_torch_cuda_unsqueeze(xg, 1, &r));
    AtenTensorHandle w2 = NULL, r2 = NULL;
    OK(aoti_torch_cpu_squeeze_dim(w, 1, &w2));
    OK(aoti_torch_cuda_squeeze_dim(r, 1, &r2));
    same("unsqueeze", w, r, 0);
    same("squeeze.dim", w2, r2, 0);
    OK(aoti_torch_cpu_view(xc, (int64_t[]){3, 8}, 2, &w));
    OK(aoti_torch_cuda_view(xg, (int64_t[]){3, 8}, 2, &r));
    same("view", w, r, 0);
    OK(aoti_torch_cpu_view_dtype(xc, SHIMRT_INT32, &w));
    OK(aoti_torch_cuda_view_dtype(xg, SHIMRT_INT32, &r));
    same("view.dtype", w, r, 0);
    int32_t leaf = 0, pinned = 1;
    OK(aoti_torch_cuda_is_leaf(xg, &leaf));
    OK(aoti_torch_cuda_is_pinned(xg, NULL, 0, &pinned));
    cr_assert(leaf == 1 && pinned == 0);
    /* empty_like and new_empty: device and shape only (the values are unset) */
    OK(aoti_torch_cuda_empty_like(xg, NULL, NULL, NULL, 0, NULL, NULL, &r));
    cr_assert(r->device_type == CUDA() && r->ndim == 2 && r->sizes[1] == 6);
    drop(r);
    OK(aoti_torch_cuda_new_empty(xg, (int64_t[]){5}, 1, NULL, NULL, NULL, 0, NULL, &r));
    cr_assert(r->device_type == CUDA() && r->ndim == 1 && r->sizes[0] == 5);
    drop(r);
    drop(xc), drop(xg);
    no_leaks();
}

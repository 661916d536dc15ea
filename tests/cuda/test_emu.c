/* tests/cuda/test_emu.c: every kernel of the CUDA catalogue, run on the CPU by the grid
 * emulator (sh_emu.h: threads, blocks, barriers, shared memory, warp shuffles), compared
 * with the CPU kernels on random inputs. The CPU oracle of a row is found from the row's
 * name and the schema's overload ("aten::<name>", "Tensor" for binary rows), its C shim by
 * name (aoti_torch_cpu_<name>...); nothing here lists ops. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../runtime/shimrt_test.h"
#include "../runtime/sv.h"
#include "../../runtime/cpu/iter.h"
#include "cpu_kernels.h"
#include "c_shim_cpu.h"
#include "sh_emu.h"

static const int32_t all_dtypes[] = {SHIMRT_BOOL,    SHIMRT_UINT8,  SHIMRT_INT8,    SHIMRT_INT16,
                                     SHIMRT_INT32,   SHIMRT_INT64,  SHIMRT_FLOAT16, SHIMRT_BFLOAT16,
                                     SHIMRT_FLOAT32, SHIMRT_FLOAT64};

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static double urand(void) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static AtenTensorHandle rand_tensor(int32_t dtype, int64_t ndim, const int64_t *sizes,
                                    const int64_t *strides) {
    AtenTensorHandle t = NULL;
    int64_t cst[2] = {ndim == 2 ? sizes[1] : 1, 1};
    if (!strides && ndim) strides = ndim == 2 ? cst : cst + 1;
    OK(aoti_torch_empty_strided(ndim, sizes, strides, dtype, aoti_torch_device_type_cpu(), 0, &t));
    size_t es = shimrt_dtype_size(dtype);
    int64_t span = t->storage->nbytes / es;
    char *base = t->storage->data;
    for (int64_t i = 0; i < span; i++) {
        char *p = base + i * es;
        if (shimrt_k_is_floating(dtype))
            shimrt_k_store_f64(p, dtype, urand() * 6.0 - 3.0);
        else if (dtype == SHIMRT_BOOL)
            shimrt_k_store_i64(p, dtype, urand() < 0.5);
        else if (dtype == SHIMRT_UINT8)
            shimrt_k_store_i64(p, dtype, (int64_t)(urand() * 40));
        else
            shimrt_k_store_i64(p, dtype, (int64_t)(urand() * 41) - 20);
    }
    return t;
}

static sh_emu_kernel emu_fn(const char *name) {
    for (size_t i = 0; i < sh_emu_kernel_count; i++)
        if (!strcmp(sh_emu_kernels[i].name, name)) return sh_emu_kernels[i].fn;
    return NULL;
}

static void *cpu_shim(const char *fmt, const char *op) {
    char name[128];
    snprintf(name, sizeof name, fmt, op);
    void *f = dlsym(RTLD_DEFAULT, name);
    cr_assert_not_null(f, "no CPU shim %s", name);
    return f;
}

/* aten::<op>.<overload> through the dispatcher; the result (stack slot 0) in *ret. */
static AOTITorchError dispatch(const char *op, const char *overload, StableIValue *stack,
                               AtenTensorHandle *ret) {
    char name[96];
    snprintf(name, sizeof name, "aten::%s", op);
    AOTITorchError e = torch_call_dispatcher(name, overload, stack, TORCH_ABI_VERSION);
    if (e == AOTI_TORCH_SUCCESS) *ret = siv_to_tensor(stack[0]);
    return e;
}

static double tol(int32_t dt) {
    switch (dt) {
    case SHIMRT_FLOAT16: return 2e-3;
    case SHIMRT_BFLOAT16: return 1e-2;
    case SHIMRT_FLOAT32: return 1e-5;
    case SHIMRT_FLOAT64: return 1e-12;
    default: return 0;
    }
}

/* Compares the emulator's output (data `got`, element strides `gst`) with the CPU tensor. */
static void compare(const char *kname, AtenTensorHandle want, const char *got, const int64_t *gst) {
    cr_assert_eq(want->ndim <= 2, true);
    int64_t s0 = want->ndim == 2 ? want->sizes[0] : 1,
            s1 = want->ndim >= 1 ? want->sizes[want->ndim - 1] : 1;
    size_t es = shimrt_dtype_size(want->dtype);
    const char *w = shimrt_data(want);
    for (int64_t i = 0; i < s0; i++)
        for (int64_t j = 0; j < s1; j++) {
            int64_t wo = want->ndim == 2   ? i * want->strides[0] + j * want->strides[1]
                         : want->ndim == 1 ? j * want->strides[0]
                                           : 0;
            int64_t go = want->ndim == 2   ? i * gst[0] + j * gst[1]
                         : want->ndim == 1 ? j * gst[0]
                                           : 0;
            double a = shimrt_k_load_f64(w + wo * (int64_t)es, want->dtype);
            double b = shimrt_k_load_f64(got + go * (int64_t)es, want->dtype);
            if (isnan(a) && isnan(b)) continue;
            double t = tol(want->dtype);
            bool ok = t == 0 ? a == b : (a == b || fabs(a - b) <= t * fmax(1.0, fabs(a)));
            cr_assert(ok, "%s: element [%lld,%lld]: emulated %.17g, CPU %.17g", kname, (long long)i,
                      (long long)j, b, a);
        }
}

static void params_2d(sh_params *p, const int64_t *sizes, const int64_t *so,
                      const AtenTensorHandle a, const AtenTensorHandle b) {
    memset(p, 0, sizeof *p);
    p->ndim = 2;
    p->n = sizes[0] * sizes[1];
    for (int d = 0; d < 2; d++) {
        p->sizes[d] = sizes[d];
        p->st[0][d] = so[d];
        p->st[1][d] = a->sizes[d] == 1 ? 0 : a->strides[d];
        if (b) p->st[2][d] = b->sizes[d] == 1 ? 0 : b->strides[d];
    }
}

/* The op of a row and overload ("aten::<row>" and "Tensor", ...); its arity, or -1. */
static int64_t arity_of(const char *row, const char *overload) {
    char opname[64];
    snprintf(opname, sizeof opname, "aten::%s", row);
    ShimrtOpHandle op;
    if (shimrt_op_find(opname, overload, &op) != AOTI_TORCH_SUCCESS) return -1;
    uint64_t nargs = 0;
    OK(shimrt_op_arity(op, &nargs, NULL));
    return (int64_t)nargs;
}

/* integer operands that divide: no zeros (integer division by zero is an error) */
static void no_zeros(AtenTensorHandle t) {
    if (shimrt_k_is_floating(t->dtype) || t->dtype == SHIMRT_BOOL) return;
    size_t es = shimrt_dtype_size(t->dtype);
    for (int64_t i = 0; i < (int64_t)(t->storage->nbytes / es); i++) {
        char *p = (char *)t->storage->data + i * es;
        if (shimrt_k_load_f64(p, t->dtype) == 0) shimrt_k_store_i64(p, t->dtype, 7);
    }
}

static void run_elementwise(const shimrt_cuda_kdesc *k) {
    bool strided = k->layout == SHL_STRIDED, bin = k->kind == SHK_BINARY,
         ter = k->kind == SHK_TERNARY;
    int64_t shape[2] = {strided ? 5 : 3, strided ? 7 : 37}, tstr[2] = {1, 5}, bshape[2] = {1, 7};
    AtenTensorHandle a = rand_tensor(k->in_dtype, 2, shape, strided ? tstr : NULL);
    AtenTensorHandle b =
        bin || ter ? rand_tensor(k->in_dtype, 2, strided ? bshape : shape, NULL) : NULL;
    AtenTensorHandle c = ter ? rand_tensor(SHIMRT_BOOL, 2, shape, NULL) : NULL;
    AtenTensorHandle want = NULL;
    double alpha = 1, p0 = 0, p1 = 0;
    if (ter) { /* where.self(condition, self, other) */
        AOTITorchError (*f)(AtenTensorHandle, AtenTensorHandle, AtenTensorHandle,
                            AtenTensorHandle *);
        *(void **)&f = cpu_shim("aoti_torch_cpu_%s_self", k->op);
        OK(f(c, a, b, &want));
    } else if (bin) {
        const char *ovl = arity_of(k->op, "Tensor") >= 0 ? "Tensor" : "";
        char fmt[64];
        snprintf(fmt, sizeof fmt, "aoti_torch_cpu_%%s%s%s", *ovl ? "_" : "", ovl);
        no_zeros(b);
        if (arity_of(k->op, ovl) == 3) {
            alpha = k->in_dtype == SHIMRT_BOOL ? 1 : 2;
            /* Scalars as a dispatcher caller passes a Python int (sv_int), so that the CPU
             * reference keeps the integral dtypes (a C shim's double is a floating Scalar) */
            StableIValue st[3] = {sv_tensor_ref(a), sv_tensor_ref(b), sv_int((int64_t)alpha)};
            OK(dispatch(k->op, ovl, st, &want));
        } else {
            AOTITorchError (*f)(AtenTensorHandle, AtenTensorHandle, AtenTensorHandle *);
            *(void **)&f = cpu_shim(fmt, k->op);
            if (f(a, b, &want) != AOTI_TORCH_SUCCESS) {
                /* the op refuses the dtype (shifts of bool): so does its CUDA entry point */
                OK(aoti_torch_delete_tensor_object(a));
                OK(aoti_torch_delete_tensor_object(b));
                return;
            }
        }
    } else if (arity_of(k->op, "") == 1) {
        AOTITorchError (*f)(AtenTensorHandle, AtenTensorHandle *);
        *(void **)&f = cpu_shim("aoti_torch_cpu_%s", k->op);
        OK(f(a, &want));
    } else if (arity_of(k->op, "Tensor_Scalar") == 2) { /* pow: p0 = the Scalar */
        p0 = 2;
        StableIValue st[2] = {sv_tensor_ref(a), sv_int(2)};
        OK(dispatch(k->op, "Tensor_Scalar", st, &want));
        if (want->dtype != k->out_dtype) { /* bool ** 2 is int64 in PyTorch: same values */
            AtenTensorHandle w = rand_tensor(k->out_dtype, 2, shape, NULL);
            OK(aoti_torch_cpu_copy_(w, want, 0));
            OK(aoti_torch_delete_tensor_object(want));
            want = w;
        }
    } else if (arity_of(k->op, "") == 3) { /* clamp: p0, p1 = the two Scalar? bounds */
        p0 = k->in_dtype == SHIMRT_UINT8 ? 3 : -1;
        p1 = k->in_dtype == SHIMRT_UINT8 ? 30 : 2;
        StableIValue lo = 0, hi = 0;
        OK(siv_new_optional(sv_int((int64_t)p0), &lo));
        OK(siv_new_optional(sv_int((int64_t)p1), &hi));
        StableIValue st[3] = {sv_tensor_ref(a), lo, hi};
        OK(dispatch(k->op, "", st, &want));
    } else { /* a row no op is named after (copy): the identity, as clone gives it */
        OK(aoti_torch_cpu_clone(a, NULL, &want));
    }
    cr_assert_eq(want->dtype, k->out_dtype, "%s: CPU result dtype %d", k->name, (int)want->dtype);
    size_t es = shimrt_dtype_size(k->out_dtype);
    char *out = aligned_alloc(64, 64 * ((size_t)(shape[0] * shape[1]) * es / 64 + 1));
    int64_t so[2] = {shape[1], 1};
    sh_params p;
    if (ter) {
        params_2d(&p, shape, so, c, a);
        for (int d = 0; d < 2; d++) p.st[3][d] = b->sizes[d] == 1 ? 0 : b->strides[d];
        p.in0 = shimrt_data(c);
        p.in1 = shimrt_data(a);
        p.in2 = shimrt_data(b);
    } else {
        params_2d(&p, shape, so, a, b);
        p.in0 = shimrt_data(a);
        p.in1 = b ? shimrt_data(b) : NULL;
    }
    p.out = out;
    p.alpha = alpha;
    p.p0 = p0;
    p.p1 = p1;
    p.vec_ok = !strided;
    cr_assert_eq(sh_emu_launch(emu_fn(k->name), 2, 64, &p), 0);
    compare(k->name, want, out, so);
    if (strided) { /* again with 32-bit offsets and magic-number division (SH_OFFSETS) */
        memset(out, 0, (size_t)(shape[0] * shape[1]) * es);
        shimrt_cuda_index32(&p);
        cr_assert_eq(p.idx32, 1, "%s", k->name);
        cr_assert_eq(sh_emu_launch(emu_fn(k->name), 3, 256, &p), 0);
        compare(k->name, want, out, so);
    }
    free(out);
    OK(aoti_torch_delete_tensor_object(want));
    OK(aoti_torch_delete_tensor_object(a));
    if (b) OK(aoti_torch_delete_tensor_object(b));
    if (c) OK(aoti_torch_delete_tensor_object(c));
}

/* Every kernel with barriers runs at 256-thread blocks, the runtime's block size (12 s for
 * the suite on the 2-core VM against 6 s at 64 threads); SHIMRT_EMU_FULL=0 keeps 256 for a
 * few dtypes only, 64 threads for the rest (a quicker local run). */
static bool full_blocks(void) {
    const char *e = getenv("SHIMRT_EMU_FULL");
    return !(e && !strcmp(e, "0"));
}

/* The split scheme of a reduction or argmax kernel (docs/cuda.md, "Reductions") over p at
 * real launch shape (256-thread blocks, for three element sizes; 64 threads for the others:
 * emulated barriers cost), several blocks: pass 1 writes one partial per (output, chunk)
 * into a scratch, pass 2 merges them in order; 32-bit offsets on. */
static void run_split(const shimrt_cuda_kdesc *k, sh_params *p, long long chunk) {
    unsigned block = full_blocks() || k->in_dtype == SHIMRT_FLOAT32 ||
                             k->in_dtype == SHIMRT_BFLOAT16 || k->in_dtype == SHIMRT_UINT8
                         ? 256
                         : 64;
    long long n = p->n, ns = (p->rn + chunk - 1) / chunk;
    long long *scratch = calloc((size_t)(n * ns * 2), 8);
    cr_assert_not_null(scratch);
    p->in2 = (const char *)scratch;
    p->rchunk = chunk;
    p->rsplit = (int)ns;
    p->vec_ok = 1;
    shimrt_cuda_index32(p);
    cr_assert_eq(p->idx32, 1, "%s", k->name);
    p->rpass = 1;
    p->n = n * ns;
    cr_assert_eq(sh_emu_launch(emu_fn(k->name), 2, block, p), 0);
    p->rpass = 2;
    p->n = n;
    cr_assert_eq(sh_emu_launch(emu_fn(k->name), 3, block, p), 0);
    free(scratch);
}

/* A reduction split over blocks: [2, 5000] (contiguous, or transposed for the strided
 * kernels) reduced over dim 1, or over everything for ops without dims; chunks of 4100
 * elements, so chunk starts fall off 16-byte boundaries (the vector loop's head and tail),
 * and the four-loads-in-flight loop runs (4-byte and wider elements). */
static void run_reduce_split(const shimrt_cuda_kdesc *k, bool full) {
    bool strided = k->layout == SHL_STRIDED;
    int64_t shape[2] = {2, 5000}, tstr[2] = {1, 2}, dim = 1;
    AtenTensorHandle a = rand_tensor(k->in_dtype, 2, shape, strided ? tstr : NULL), want = NULL;
    if (full) {
        AOTITorchError (*f)(AtenTensorHandle, AtenTensorHandle *);
        *(void **)&f = cpu_shim("aoti_torch_cpu_%s", k->op);
        OK(f(a, &want));
    } else if (arity_of(k->op, "dim_IntList") >= 0) {
        AOTITorchError (*f)(AtenTensorHandle, const int64_t **, int64_t, int32_t, int32_t *,
                            AtenTensorHandle *);
        *(void **)&f = cpu_shim("aoti_torch_cpu_%s_dim_IntList", k->op);
        const int64_t *dims = &dim;
        OK(f(a, &dims, 1, 0, NULL, &want));
    } else {
        AOTITorchError (*f)(AtenTensorHandle, const int64_t *, int64_t, int32_t,
                            AtenTensorHandle *);
        *(void **)&f = cpu_shim("aoti_torch_cpu_%s", k->op);
        OK(f(a, &dim, 1, 0, &want));
    }
    char out[2 * 8];
    sh_params p;
    memset(&p, 0, sizeof p);
    p.out = out;
    p.in0 = shimrt_data(a);
    if (full) {
        p.n = 1;
        p.rn = 10000;
        p.rndim = 2;
        for (int d = 0; d < 2; d++) {
            p.rsizes[d] = shape[d];
            p.rst[d] = a->strides[d];
        }
    } else {
        p.n = 2;
        p.ndim = 1;
        p.sizes[0] = 2;
        p.st[0][0] = 1;
        p.st[1][0] = a->strides[0];
        p.rn = 5000;
        p.rndim = 1;
        p.rsizes[0] = 5000;
        p.rst[0] = a->strides[1];
    }
    run_split(k, &p, 4100);
    int64_t so[1] = {1};
    compare(k->name, want, out, so);
    OK(aoti_torch_delete_tensor_object(want));
    OK(aoti_torch_delete_tensor_object(a));
}

static void run_reduce(const shimrt_cuda_kdesc *k) {
    bool strided = k->layout == SHL_STRIDED;
    int64_t shape[2] = {4, 70}, tstr[2] = {1, 4}, dim = 1;
    AtenTensorHandle a = rand_tensor(k->in_dtype, 2, shape, strided ? tstr : NULL), want = NULL;
    bool full = false; /* a reduction op without dims (all, any): over every element */
    if (arity_of(k->op, "dim_IntList") >= 0) {
        AOTITorchError (*f)(AtenTensorHandle, const int64_t **, int64_t, int32_t, int32_t *,
                            AtenTensorHandle *);
        *(void **)&f = cpu_shim("aoti_torch_cpu_%s_dim_IntList", k->op);
        const int64_t *dims = &dim;
        OK(f(a, &dims, 1, 0, NULL, &want));
    } else if (arity_of(k->op, "") == 1) {
        full = true;
        AOTITorchError (*f)(AtenTensorHandle, AtenTensorHandle *);
        *(void **)&f = cpu_shim("aoti_torch_cpu_%s", k->op);
        OK(f(a, &want));
    } else {
        AOTITorchError (*f)(AtenTensorHandle, const int64_t *, int64_t, int32_t,
                            AtenTensorHandle *);
        *(void **)&f = cpu_shim("aoti_torch_cpu_%s", k->op);
        OK(f(a, &dim, 1, 0, &want));
    }
    cr_assert_eq(want->dtype, k->out_dtype, "%s: CPU result dtype %d", k->name, (int)want->dtype);
    char out[4 * 8];
    sh_params p;
    memset(&p, 0, sizeof p);
    p.out = out;
    p.in0 = shimrt_data(a);
    if (full) {
        p.n = 1;
        p.rn = 280;
        p.rndim = 2;
        p.rsizes[0] = 4;
        p.rsizes[1] = 70;
        p.rst[0] = a->strides[0];
        p.rst[1] = a->strides[1];
    } else {
        p.n = 4;
        p.ndim = 1;
        p.sizes[0] = 4;
        p.st[0][0] = 1;
        p.st[1][0] = a->strides[0];
        p.rn = 70;
        p.rndim = 1;
        p.rsizes[0] = 70;
        p.rst[0] = a->strides[1];
    }
    cr_assert_eq(sh_emu_launch(emu_fn(k->name), 3, 64, &p), 0);
    int64_t so[1] = {1};
    compare(k->name, want, out, so);
    OK(aoti_torch_delete_tensor_object(want));
    OK(aoti_torch_delete_tensor_object(a));
    run_reduce_split(k, full);
}

static void run_copy_fill(const shimrt_cuda_kdesc *k) {
    bool strided = k->layout == SHL_STRIDED;
    int64_t shape[2] = {5, 7}, tstr[2] = {1, 5};
    size_t es = shimrt_dtype_size(k->out_dtype);
    for (size_t si = 0; si < sizeof all_dtypes / sizeof all_dtypes[0]; si++) {
        int32_t sdt = all_dtypes[si];
        AtenTensorHandle src = rand_tensor(sdt, 2, shape, strided ? tstr : NULL);
        AtenTensorHandle want = rand_tensor(k->out_dtype, 2, shape, strided ? tstr : NULL);
        AtenTensorHandle got = rand_tensor(k->out_dtype, 2, shape, strided ? tstr : NULL);
        sh_params p;
        params_2d(&p, shape, want->strides, src, NULL);
        p.out = shimrt_data(got);
        p.in0 = shimrt_data(src);
        p.src_dtype = sdt;
        double value = shimrt_k_is_floating(k->out_dtype) ? -2.75 : 3;
        if (k->kind == SHK_FILL) {
            OK(aoti_torch_cpu_fill__Scalar(want, value));
            p.alpha = value;
        } else {
            OK(aoti_torch_cpu_copy_(want, src, 0));
        }
        cr_assert_eq(sh_emu_launch(emu_fn(k->name), 1, 32, &p), 0);
        compare(k->name, want, shimrt_data(got), want->strides);
        (void)es;
        OK(aoti_torch_delete_tensor_object(src));
        OK(aoti_torch_delete_tensor_object(want));
        OK(aoti_torch_delete_tensor_object(got));
        if (k->kind == SHK_FILL) break;
    }
}

/* argmax split over blocks: [2, 5000] (transposed for the strided kernels) over dim 1 in
 * chunks of 4100; ties and NaNs planted in different chunks, so the pass-2 merge must keep
 * the lowest index of the maximum and the first NaN. */
static void run_argmax_split(const shimrt_cuda_kdesc *k) {
    bool strided = k->layout == SHL_STRIDED;
    int64_t shape[2] = {2, 5000}, tstr[2] = {1, 2}, dim = 1;
    AtenTensorHandle a = rand_tensor(k->in_dtype, 2, shape, strided ? tstr : NULL);
    size_t es = shimrt_dtype_size(k->in_dtype);
    char *base = shimrt_data(a);
    int64_t lst = a->strides[1], ost = a->strides[0];
    double top = k->in_dtype == SHIMRT_BOOL ? 1 : 100;
    static const int64_t ties[] = {4500, 4999, 100, 4200}; /* line 0: 100 wins */
    for (size_t i = 0; i < 4; i++)
        shimrt_k_store_f64(base + (ties[i] * lst) * (int64_t)es, k->in_dtype, top);
    if (shimrt_k_is_floating(k->in_dtype)) { /* line 1: NaNs in chunks 1 and 0: 3000 wins */
        shimrt_k_store_f64(base + (ost + 4300 * lst) * (int64_t)es, k->in_dtype, NAN);
        shimrt_k_store_f64(base + (ost + 3000 * lst) * (int64_t)es, k->in_dtype, NAN);
    }
    AtenTensorHandle wv = NULL, wi = NULL;
    OK(aoti_torch_cpu_max_dim(a, dim, 0, &wv, &wi));
    char vals[2 * 8];
    long long idx[2];
    sh_params p;
    memset(&p, 0, sizeof p);
    p.out = (char *)idx;
    p.in0 = base;
    p.in1 = vals;
    p.n = 2;
    p.ndim = 1;
    p.sizes[0] = 2;
    p.st[0][0] = 1;
    p.st[1][0] = ost;
    p.rn = 5000;
    p.rndim = 1;
    p.rsizes[0] = 5000;
    p.rst[0] = lst;
    run_split(k, &p, 4100);
    int64_t so[1] = {1};
    compare(k->name, wv, vals, so);
    compare(k->name, wi, (const char *)idx, so);
    AtenTensorHandle all[] = {a, wv, wi};
    for (size_t j = 0; j < 3; j++) OK(aoti_torch_delete_tensor_object(all[j]));
}

/* argmax kernels against the CPU's max.dim (values and indices) and argmax: a [5, 70]
 * input reduced over dim 1 (contig) or, transposed ([70, 5] strides (1, 70)), over dim 0
 * (strided); a NaN and ties planted so the first NaN / first maximum must win. */
static void run_argmax(const shimrt_cuda_kdesc *k) {
    bool strided = k->layout == SHL_STRIDED;
    int64_t shape[2] = {5, 70}, tshape[2] = {70, 5}, tstr[2] = {1, 70};
    AtenTensorHandle a =
        rand_tensor(k->in_dtype, 2, strided ? tshape : shape, strided ? tstr : NULL);
    int64_t dim = strided ? 0 : 1, len = 70;
    size_t es = shimrt_dtype_size(k->in_dtype);
    char *base = shimrt_data(a);
    int64_t lst = strided ? a->strides[0] : a->strides[1],
            ost = strided ? a->strides[1] : a->strides[0];
    if (shimrt_k_is_floating(k->in_dtype)) { /* line 1: two NaNs; line 2: a tie at the top */
        shimrt_k_store_f64(base + (ost * 1 + lst * 9) * (int64_t)es, k->in_dtype, NAN);
        shimrt_k_store_f64(base + (ost * 1 + lst * 40) * (int64_t)es, k->in_dtype, NAN);
        shimrt_k_store_f64(base + (ost * 2 + lst * 3) * (int64_t)es, k->in_dtype, 100);
        shimrt_k_store_f64(base + (ost * 2 + lst * 66) * (int64_t)es, k->in_dtype, 100);
    }
    AtenTensorHandle wv = NULL, wi = NULL;
    OK(aoti_torch_cpu_max_dim(a, dim, 0, &wv, &wi));
    char vals[5 * 8];
    long long idx[5];
    sh_params p;
    memset(&p, 0, sizeof p);
    p.out = (char *)idx;
    p.in0 = base;
    p.in1 = vals;
    p.n = 5;
    p.ndim = 1;
    p.sizes[0] = 5;
    p.st[0][0] = 1;
    p.st[1][0] = ost;
    p.rn = len;
    p.rndim = 1;
    p.rsizes[0] = len;
    p.rst[0] = lst;
    cr_assert_eq(sh_emu_launch(emu_fn(k->name), 2, 64, &p), 0);
    int64_t so[1] = {1};
    compare(k->name, wv, vals, so);
    compare(k->name, wi, (const char *)idx, so);
    if (k->in_dtype != SHIMRT_BOOL) { /* argmax refuses bool */
        AtenTensorHandle wa = NULL;
        OK(aoti_torch_cpu_argmax(a, &dim, 0, &wa));
        p.in1 = NULL; /* indices only */
        cr_assert_eq(sh_emu_launch(emu_fn(k->name), 3, 32, &p), 0);
        compare(k->name, wa, (const char *)idx, so);
        OK(aoti_torch_delete_tensor_object(wa));
    }
    AtenTensorHandle all[] = {a, wv, wi};
    for (size_t j = 0; j < 3; j++) OK(aoti_torch_delete_tensor_object(all[j]));
    run_argmax_split(k);
}

/* softmax / log_softmax kernels against the CPU ops: a [6, 45] input (strides (1, 6):
 * non-contiguous) along dim 1 and along dim 0. */
static void run_softmax(const shimrt_cuda_kdesc *k) {
    bool logsm = !strcmp(k->op, "log_softmax");
    int64_t shape[2] = {6, 45}, tstr[2] = {1, 6};
    AtenTensorHandle a = rand_tensor(k->in_dtype, 2, shape, tstr);
    AOTITorchError (*f)(AtenTensorHandle, int64_t, int32_t *, AtenTensorHandle *) =
        logsm ? aoti_torch_cpu_log_softmax_int : aoti_torch_cpu_softmax_int;
    for (int64_t dim = 0; dim < 2; dim++) {
        AtenTensorHandle want = NULL;
        OK(f(a, dim, NULL, &want));
        char out[6 * 45 * 8];
        int64_t ost[2] = {45, 1}; /* the result: contiguous */
        sh_params p;
        memset(&p, 0, sizeof p);
        p.out = out;
        p.in0 = shimrt_data(a);
        p.n = shape[1 - dim];
        p.ndim = 1;
        p.sizes[0] = shape[1 - dim];
        p.st[0][0] = ost[1 - dim];
        p.st[1][0] = a->strides[1 - dim];
        p.rndim = 1;
        p.rn = p.rsizes[0] = shape[dim];
        p.rst[0] = a->strides[dim];
        p.rst[1] = ost[dim];
        /* float32's 6 lines: 8-warp blocks (real launch shape; emulated barriers cost) */
        unsigned block = full_blocks() || (k->in_dtype == SHIMRT_FLOAT32 && p.n <= 6) ? 256 : 64;
        cr_assert_eq(sh_emu_launch(emu_fn(k->name), 4, block, &p), 0);
        compare(k->name, want, out, ost);
        OK(aoti_torch_delete_tensor_object(want));
    }
    OK(aoti_torch_delete_tensor_object(a));
}

/* index kernels against the CPU's index_select (and gather for int64 indices): a [6, 9] input (strides (1, 6)) of a dtype
 * of the kernel's element size, a strided index vector, both dims (indices in [0, size):
 * PyTorch, and the CPU here, refuse negative ones). */
static void run_index(const shimrt_cuda_kdesc *k) {
    int64_t shape[2] = {6, 9}, tstr[2] = {1, 6}, isz[1] = {7}, ist[1] = {2};
    AtenTensorHandle a = rand_tensor(k->out_dtype, 2, shape, tstr), ix = NULL;
    OK(aoti_torch_empty_strided(1, isz, ist, k->in_dtype, aoti_torch_device_type_cpu(), 0, &ix));
    for (int64_t dim = 0; dim < 2; dim++) {
        for (int64_t j = 0; j < 7; j++) /* in [0, size) */
            shimrt_k_store_i64((char *)shimrt_data(ix) +
                                   j * 2 * (int64_t)shimrt_dtype_size(ix->dtype),
                               ix->dtype, (int64_t)(urand() * shape[dim]));
        AtenTensorHandle want = NULL;
        OK(aoti_torch_cpu_index_select(a, dim, ix, &want));
        char out[9 * 9 * 8];
        int64_t ost[2] = {want->sizes[1], 1};
        sh_params p;
        memset(&p, 0, sizeof p);
        p.out = out;
        p.in0 = shimrt_data(a);
        p.in1 = shimrt_data(ix);
        p.n = want->sizes[0] * want->sizes[1];
        p.ndim = 2;
        for (int d = 0; d < 2; d++) {
            p.sizes[d] = want->sizes[d];
            p.st[0][d] = ost[d];
            p.st[1][d] = d == dim ? 0 : a->strides[d];
            p.st[2][d] = d == dim ? ix->strides[0] : 0;
        }
        p.rsizes[0] = shape[dim];
        p.rst[0] = a->strides[dim];
        cr_assert_eq(sh_emu_launch(emu_fn(k->name), 2, 32, &p), 0);
        compare(k->name, want, out, ost);
        OK(aoti_torch_delete_tensor_object(want));
    }
    if (k->in_dtype == SHIMRT_INT64) { /* gather: a [4, 3] index (strides (1, 4)) on dim 1 */
        int64_t gsz[2] = {4, 3}, gst[2] = {1, 4};
        AtenTensorHandle gi = NULL, want = NULL;
        OK(aoti_torch_empty_strided(2, gsz, gst, SHIMRT_INT64, aoti_torch_device_type_cpu(), 0,
                                    &gi));
        for (int64_t j = 0; j < 12; j++)
            ((int64_t *)shimrt_data(gi))[j] =
                (int64_t)(urand() * 9); /* [0, 9): PyTorch refuses < 0 */
        OK(aoti_torch_cpu_gather(a, 1, gi, 0, &want));
        char out[12 * 8];
        int64_t ost[2] = {3, 1};
        sh_params p;
        memset(&p, 0, sizeof p);
        p.out = out;
        p.in0 = shimrt_data(a);
        p.in1 = shimrt_data(gi);
        p.n = 12;
        p.ndim = 2;
        for (int d = 0; d < 2; d++) {
            p.sizes[d] = gsz[d];
            p.st[0][d] = ost[d];
            p.st[1][d] = d == 1 ? 0 : a->strides[d];
            p.st[2][d] = gi->strides[d];
        }
        p.rsizes[0] = shape[1];
        p.rst[0] = a->strides[1];
        cr_assert_eq(sh_emu_launch(emu_fn(k->name), 1, 32, &p), 0);
        compare(k->name, want, out, ost);
        OK(aoti_torch_delete_tensor_object(want));
        OK(aoti_torch_delete_tensor_object(gi));
    }
    OK(aoti_torch_delete_tensor_object(a));
    OK(aoti_torch_delete_tensor_object(ix));
}

/* scatter: one thread per line of a [4, 9] index along dim 0 (values in [-6, 6), so
 * targets repeat) into a contiguous out holding a transposed [6, 9] self, from a [5, 9]
 * src: the copy and every reduction, with and without include_self, against scatter.src
 * and scatter_reduce.two on the CPU. */
static void run_scatter(const shimrt_cuda_kdesc *k) {
    static const char *const names[] = {NULL, "sum", "prod", "mean", "amax", "amin"};
    int32_t dt = k->out_dtype;
    int64_t shape[2] = {6, 9}, tstr[2] = {1, 6}, ssz[2] = {5, 9}, isz[2] = {4, 9}, ist[2] = {9, 1};
    AtenTensorHandle a = rand_tensor(dt, 2, shape, tstr), src = rand_tensor(dt, 2, ssz, NULL);
    AtenTensorHandle ix = NULL;
    OK(aoti_torch_empty_strided(2, isz, ist, SHIMRT_INT64, aoti_torch_device_type_cpu(), 0, &ix));
    for (int64_t j = 0; j < 36; j++)
        ((int64_t *)shimrt_data(ix))[j] = (int64_t)(urand() * 6); /* [0, 6) */
    size_t es = shimrt_dtype_size(dt);
    for (int m = SHS_COPY; m <= SHS_AMIN; m++)
        for (int inc = 0; inc < (m == SHS_COPY ? 1 : 2); inc++) {
            /* the mean of bool: refused by both ops (PyTorch has no such kernel; the CUDA op
             * checks before it launches, test_cuda_ops compares the refusals) */
            if (m == SHS_MEAN && dt == SHIMRT_BOOL) continue;
            AtenTensorHandle want = NULL;
            if (m == SHS_COPY)
                OK(aoti_torch_cpu_scatter_src(a, 0, ix, src, &want));
            else
                OK(aoti_torch_cpu_scatter_reduce_two(a, 0, ix, src, names[m], inc, &want));
            char out[6 * 9 * 8];
            long long scratch[2 * 9 * 6];
            int64_t ost[2] = {9, 1};
            for (int64_t i = 0; i < 6; i++) /* out starts as self */
                for (int64_t j = 0; j < 9; j++)
                    memcpy(out + (i * 9 + j) * (int64_t)es,
                           (const char *)shimrt_data(a) +
                               (i * a->strides[0] + j * a->strides[1]) * (int64_t)es,
                           es);
            sh_params p;
            memset(&p, 0, sizeof p);
            p.out = out;
            p.in0 = shimrt_data(src);
            p.in1 = shimrt_data(ix);
            p.in2 = (const char *)scratch;
            p.ndim = 2;
            p.n = 9;
            p.sizes[0] = 1;
            p.sizes[1] = 9;
            p.st[0][1] = ost[1];
            p.st[1][1] = src->strides[1];
            p.st[2][1] = ix->strides[1];
            p.rsizes[0] = 4;
            p.rsizes[1] = 6;
            p.rst[0] = ost[0];
            p.rst[1] = src->strides[0];
            p.rst[2] = ix->strides[0];
            p.b_scalar = m;
            p.vec_ok = inc;
            p.rn = 9 * 6;
            cr_assert_eq(sh_emu_launch(emu_fn(k->name), 1, 32, &p), 0);
            compare(k->name, want, out, ost);
            OK(aoti_torch_delete_tensor_object(want));
        }
    OK(aoti_torch_delete_tensor_object(a));
    OK(aoti_torch_delete_tensor_object(src));
    OK(aoti_torch_delete_tensor_object(ix));
}

/* layer norm: 5 rows of 37 over two 64-thread blocks (the merge crosses warps, the blocks
 * stride over the rows), with weight and bias, against native_layer_norm on the CPU: the
 * output, mean and rstd. */
static void run_layer_norm(const shimrt_cuda_kdesc *k) {
    int32_t dt = k->in_dtype;
    int64_t shape[2] = {5, 37}, ns[1] = {37};
    AtenTensorHandle x = rand_tensor(dt, 2, shape, NULL), w = rand_tensor(dt, 1, ns, NULL),
                     b = rand_tensor(dt, 1, ns, NULL), r[3] = {0};
    OK(aoti_torch_cpu_native_layer_norm(x, ns, 1, &w, &b, 1e-5, &r[0], &r[1], &r[2]));
    double wbd[74];
    float wbf[74];
    for (int64_t j = 0; j < 74; j++) { /* weight then bias in the compute type */
        AtenTensorHandle t = j < 37 ? w : b;
        double v = shimrt_k_load_f64(
            (const char *)shimrt_data(t) + (j % 37) * (int64_t)shimrt_dtype_size(dt), dt);
        wbd[j] = v;
        wbf[j] = (float)v;
    }
    char out[5 * 37 * 8], stats[2 * 5 * 8];
    sh_params p;
    memset(&p, 0, sizeof p);
    p.out = out;
    p.in0 = shimrt_data(x);
    p.in1 = dt == SHIMRT_FLOAT64 ? (const char *)wbd : (const char *)wbf;
    p.in2 = stats;
    p.n = 5;
    p.rn = 37;
    p.alpha = 1e-5;
    /* float32 at the real block size (8 warps), the others at 64 threads (emulator time) */
    cr_assert_eq(
        sh_emu_launch(emu_fn(k->name), 2, full_blocks() || dt == SHIMRT_FLOAT32 ? 256 : 64, &p), 0);
    int64_t ost[2] = {37, 1};
    compare(k->name, r[0], out, ost);
    /* mean and rstd in the compute type (float, or double for float64: PyTorch's CUDA
     * accumulate type), against the CPU's in the input dtype */
    int32_t ct = dt == SHIMRT_FLOAT64 ? SHIMRT_FLOAT64 : SHIMRT_FLOAT32;
    for (int h = 1; h <= 2; h++)
        for (int64_t i = 0; i < 5; i++) {
            double a = shimrt_k_load_f64((const char *)shimrt_data(r[h]) +
                                             i * r[h]->strides[0] * (int64_t)shimrt_dtype_size(dt),
                                         dt);
            double g =
                shimrt_k_load_f64(stats + ((h - 1) * 5 + i) * (int64_t)shimrt_dtype_size(ct), ct);
            cr_assert(fabs(a - g) <= tol(dt) * fmax(1.0, fabs(a)),
                      "%s: %s of row %lld: emulated %.17g, CPU %.17g", k->name,
                      h == 1 ? "mean" : "rstd", (long long)i, g, a);
        }
    AtenTensorHandle all[] = {x, w, b, r[0], r[1], r[2]};
    for (size_t j = 0; j < 6; j++) OK(aoti_torch_delete_tensor_object(all[j]));
}

/* sort: the three sort kernels in a row (order keys with tiles of 32 sorted in shared
 * memory, merge passes, writer) over a transposed [5, 37] tensor (values with many ties,
 * NaN, -0.0 and 0.0 planted) along dim 1 (37: a tile of 32 and one of 5, merged) ascending
 * and along dim 0 descending, two blocks,
 * against sort on the CPU bit for bit. Each sort entry runs the chain on its dtype (keys),
 * on float32 (merge), or on the dtype of its element size (writer). */
static void run_sort(const shimrt_cuda_kdesc *k) {
    int32_t dt = !strcmp(k->op, "sort_keys")    ? k->in_dtype
                 : !strcmp(k->op, "sort_merge") ? SHIMRT_FLOAT32
                                                : k->out_dtype;
    size_t es = shimrt_dtype_size(dt);
    char name[96];
    snprintf(name, sizeof name, "sh_sort_keys_%s_strided", shimrt_cuda_dtype_tag(dt));
    sh_emu_kernel keys = emu_fn(name), merge = emu_fn("sh_sort_merge_i64_contig");
    snprintf(name, sizeof name, "sh_sort_write_e%zu_strided", es);
    sh_emu_kernel write = emu_fn(name);
    cr_assert(keys && merge && write, "%s: the sort kernels", k->name);
    int64_t shape[2] = {5, 37}, tstr[2] = {1, 5};
    AtenTensorHandle a = rand_tensor(dt, 2, shape, tstr);
    for (int64_t j = 0; j < 5 * 37; j++) { /* ties: few distinct values */
        char *e = (char *)shimrt_data(a) + j * (int64_t)es;
        double r = urand();
        if (shimrt_k_is_floating(dt))
            shimrt_k_store_f64(e, dt, r < 0.1 ? NAN : r < 0.2 ? -0.0 : (int)(r * 5) * 0.5 - 1);
        else
            shimrt_k_store_i64(e, dt, (int64_t)(r * 4) - 1);
    }
    for (int dim = 1; dim >= 0; dim--) {
        int desc = dim == 0, od = 1 - dim; /* the other dim */
        AtenTensorHandle wv = NULL, wi = NULL;
        int32_t stable = 1; /* the CUDA sort is stable: the CPU's stable sort is its reference */
        OK(aoti_torch_cpu_sort_stable(a, &stable, dim, desc, &wv, &wi));
        { /* the CPU keeps a's layout (PyTorch's sort meta): compare in row-major order */
            int32_t cf = aoti_torch_memory_format_contiguous_format();
            AtenTensorHandle c0 = NULL, c1 = NULL;
            OK(aoti_torch_cpu_clone(wv, &cf, &c0));
            OK(aoti_torch_cpu_clone(wi, &cf, &c1));
            OK(aoti_torch_delete_tensor_object(wv));
            OK(aoti_torch_delete_tensor_object(wi));
            wv = c0, wi = c1;
        }
        int64_t n = 5 * 37, len = shape[dim];
        unsigned long long buf[2][2 * 5 * 37];
        char vals[5 * 37 * 8];
        long long idx[5 * 37];
        sh_params p;
        memset(&p, 0, sizeof p);
        p.ndim = 2; /* the sort dim last; out contiguous [5, 37] */
        p.sizes[0] = shape[od];
        p.sizes[1] = len;
        p.st[0][0] = od == 0 ? 37 : 1;
        p.st[0][1] = dim == 0 ? 37 : 1;
        p.st[1][0] = a->strides[od];
        p.st[1][1] = a->strides[dim];
        p.n = n;
        p.rn = len;
        p.rst[0] = a->strides[dim];
        p.b_scalar = desc;
        p.out = (char *)buf[0];
        p.in0 = shimrt_data(a);
        sh_params kp = p; /* tiles of 32 (two per line of 37), two blocks striding */
        kp.n = n / len * ((len + 31) / 32);
        kp.rsizes[1] = n;
        kp.rsizes[2] = 32;
        cr_assert_eq(sh_emu_launch(keys, 2, 32, &kp), 0);
        int cur = 0;
        for (long long w = 32; w < len; w *= 2, cur ^= 1) {
            sh_params m = p;
            m.in0 = (const char *)buf[cur];
            m.out = (char *)buf[cur ^ 1];
            m.rsizes[0] = w;
            cr_assert_eq(sh_emu_launch(merge, 2, 64, &m), 0);
        }
        p.out = vals;
        p.in1 = (const char *)(buf[cur] + n);
        p.in2 = (const char *)idx;
        cr_assert_eq(sh_emu_launch(write, 2, 64, &p), 0);
        for (int64_t j = 0; j < n; j++) {
            cr_assert(!memcmp(vals + j * (int64_t)es,
                              (const char *)shimrt_data(wv) + j * (int64_t)es, es),
                      "%s (%s dim %d): value %lld differs", k->name, shimrt_dtype_name(dt), dim,
                      (long long)j);
            cr_assert_eq(idx[j], ((const int64_t *)shimrt_data(wi))[j],
                         "%s (%s dim %d): index %lld", k->name, shimrt_dtype_name(dt), dim,
                         (long long)j);
        }
        OK(aoti_torch_delete_tensor_object(wv));
        OK(aoti_torch_delete_tensor_object(wi));
    }
    OK(aoti_torch_delete_tensor_object(a));
}

Test(emulator, every_kernel_matches_the_cpu_kernels, .timeout = 600) {
    size_t n = shimrt_cuda_kernel_count();
    cr_assert_eq(n, sh_emu_kernel_count, "the emulated catalogue is stale");
    for (size_t i = 0; i < n; i++) {
        shimrt_cuda_kdesc k;
        cr_assert(shimrt_cuda_kernel_at(i, &k));
        cr_assert_not_null(emu_fn(k.name), "%s missing from the emulated catalogue", k.name);
        switch (k.kind) {
        case SHK_UNARY:
        case SHK_BINARY:
        case SHK_TERNARY: run_elementwise(&k); break;
        case SHK_REDUCE: run_reduce(&k); break;
        case SHK_ARGMAX: run_argmax(&k); break;
        case SHK_SOFTMAX: run_softmax(&k); break;
        case SHK_INDEX: run_index(&k); break;
        case SHK_SCATTER: run_scatter(&k); break;
        case SHK_LAYERNORM: run_layer_norm(&k); break;
        case SHK_SORT: run_sort(&k); break;
        default: run_copy_fill(&k); break;
        }
    }
    no_leaks();
}

Test(emulator, shuffles_and_shared_memory) {
    /* the reductions' block step really crosses warps: a 256-thread block over 1000 items */
    shimrt_cuda_kdesc k;
    cr_assert(shimrt_cuda_kernel_find("sh_sum_i64_i64_contig", &k));
    long long in[1000], out = -1, want = 0;
    for (int i = 0; i < 1000; i++) want += in[i] = i * 7 - 300;
    sh_params p;
    memset(&p, 0, sizeof p);
    p.out = (char *)&out;
    p.in0 = (const char *)in;
    p.n = 1;
    p.ndim = 1;
    p.sizes[0] = 1;
    p.rn = 1000;
    p.rndim = 1;
    p.rsizes[0] = 1000;
    p.rst[0] = 1;
    cr_assert_eq(sh_emu_launch(emu_fn(k.name), 1, 256, &p), 0);
    cr_assert_eq(out, want);
    cr_assert_eq(sh_emu_launch(emu_fn(k.name), 1, 48, &p), -1,
                 "block size must be a multiple of 32");
}

/* The 32-bit fast path's magic numbers divide exactly (SH_DIV32 of the prelude: (umulhi(n,
 * m) + n) >> s) for every n < 2^31 tried, edge divisors included; offsets or indices that
 * reach 2^31, and negative strides, keep the 64-bit path. */
Test(emulator, index32_magic_division_and_fallback) {
    static const long long divisors[] = {1,       2,
                                         3,       5,
                                         7,       10,
                                         16,      37,
                                         255,     256,
                                         641,     1000,
                                         65535,   65536,
                                         65537,   1000003,
                                         1 << 20, (1 << 30) - 1,
                                         1 << 30, (1u << 31) - 1};
    unsigned long long r = 99;
    for (size_t i = 0; i < sizeof divisors / sizeof divisors[0] + 2000; i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        long long d = i < sizeof divisors / sizeof divisors[0] ? divisors[i]
                                                               : (long long)(r >> 40) % 100000 + 1;
        sh_params p;
        memset(&p, 0, sizeof p);
        p.n = 1;
        p.ndim = 1;
        p.sizes[0] = d;
        p.rndim = 1;
        p.rsizes[0] = d;
        shimrt_cuda_index32(&p);
        cr_assert_eq(p.idx32, 1);
        cr_assert_eq(p.mg[0], p.rmg[0]);
        for (int t = 0; t < 200; t++) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            unsigned n = t < 4 ? (t < 2 ? (unsigned)t : 0x7fffffffu - (unsigned)(t - 2))
                               : (unsigned)(r >> 33);
            if (t == 4) n = (unsigned)(d - 1);
            if (t == 5) n = (unsigned)d;
            unsigned hi = (unsigned)(((unsigned long long)n * p.mg[0]) >> 32);
            unsigned q = (hi + n) >> p.msh[0];
            cr_assert_eq(q, (unsigned)(n / (unsigned long long)d), "%u / %lld: %u", n, d, q);
        }
    }
    sh_params p;
    memset(&p, 0, sizeof p);
    p.n = 1ll << 30;
    p.ndim = 2;
    p.sizes[0] = 1 << 15;
    p.sizes[1] = 1 << 15;
    p.st[0][0] = 1 << 15;
    p.st[0][1] = 1;
    p.st[1][0] = 1;
    p.st[1][1] = 1 << 15;
    shimrt_cuda_index32(&p);
    cr_assert_eq(p.idx32, 1, "2^30 elements, offsets below 2^31");
    p.st[1][0] = 1 << 16; /* operand 1 reaches past 2^31 */
    shimrt_cuda_index32(&p);
    cr_assert_eq(p.idx32, 0);
    p.st[1][0] = -1;
    shimrt_cuda_index32(&p);
    cr_assert_eq(p.idx32, 0, "a negative stride");
    p.st[1][0] = 1;
    p.n = 1ll << 31;
    p.sizes[0] = 1 << 16;
    shimrt_cuda_index32(&p);
    cr_assert_eq(p.idx32, 0, "2^31 elements");
    memset(&p, 0, sizeof p);
    p.n = 1;
    p.rn = 1ll << 31;
    p.rndim = 1;
    p.rsizes[0] = 1ll << 31;
    p.rst[0] = 1;
    shimrt_cuda_index32(&p);
    cr_assert_eq(p.idx32, 0, "a reduction over 2^31 elements");
    p.rn = p.rsizes[0] = 1 << 20;
    p.rst[0] = 1 << 12; /* in0 reaches 2^32 */
    shimrt_cuda_index32(&p);
    cr_assert_eq(p.idx32, 0);
    p.rst[0] = 1 << 10;
    shimrt_cuda_index32(&p);
    cr_assert_eq(p.idx32, 1);
}

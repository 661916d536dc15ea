/* runtime/cpu/fft.c: _fft_r2c and _fft_c2c, the FFT functions of c_shim_cpu.h, on kissfft
 * (Debian's libkissfft-dev, BSD-3-Clause). PyTorch's semantics: `dim` lists the transformed
 * dims, `normalization` is PyTorch's fft_norm_mode (0 none, 1 by 1/sqrt(n), 2 by 1/n with n
 * the product of the signal sizes), r2c is forward and keeps size/2+1 bins of the last listed
 * dim when `onesided`, c2c's `forward` picks the sign of the exponent. The result's strides
 * are those of PyTorch's CPU (MKL) kernel: batch dims first in the input's stride order, then
 * the transformed dims in the order the kernel sorts them, all packed.
 *
 * float32 -> complex64 and complex64 -> complex64 run on kissfft's C library (Debian builds
 * only its float variant, libkissfft-float); float64 -> complex128 and complex128 ->
 * complex128 on kissfft's header-only C++ template kissfft<double> (the only double kissfft
 * Debian ships), behind the C functions of fft_double.cc. Both go through the same code here:
 * the transforms run on a dense complex copy of the input (complex64 or complex128), one
 * listed dim after the other: each line along the dim is transformed by the precision's 1-d
 * complex FFT (fft_plan) into a buffer and written back, lines over the runtime's pool. A real
 * input's transform is the complex one of its values, the upper half of the last listed dim
 * dropped when onesided (float32 of even length: kissfft's real transform). Max error vs
 * PyTorch (pocketfft/MKL) in the oracle: about 4e-7 of the largest bin in float, about
 * 1.5e-15 in double. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <kissfft/kiss_fft.h>
#include <kissfft/kiss_fftr.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"
#include "fft_double.h"
#include "shimrt/device.h"

/* The result's strides as PyTorch's _exec_fft gives them: dims not transformed first,
 * ordered by the input's strides (largest first, ties in the order libstdc++'s partition
 * leaves them), then the transformed dims in `sorted` order, packed contiguously over
 * out_sizes (each dim's extent counted at least 1 within the transformed block). */
static void fft_out_strides(AtenTensorHandle self, const int64_t *sorted, int64_t nsig,
                            const int64_t *out_sizes, int64_t *out_strides) {
    int64_t nd = self->ndim, perm[SHIMRT_MAX_DIMS];
    bool tr[SHIMRT_MAX_DIMS] = {0};
    for (int64_t i = 0; i < nsig; i++) tr[sorted[i]] = true;
    for (int64_t i = 0; i < nd; i++) perm[i] = i;
    /* std::partition (bidirectional): swap the first transformed dim from the front with the
     * last batch dim from the back until they meet */
    int64_t lo = 0, hi = nd;
    for (;;) {
        while (lo < hi && !tr[perm[lo]]) lo++;
        if (lo == hi) break;
        hi--;
        while (lo < hi && tr[perm[hi]]) hi--;
        if (lo == hi) break;
        int64_t t = perm[lo];
        perm[lo] = perm[hi];
        perm[hi] = t;
        lo++;
    }
    int64_t nb = lo;
    shimrt_k_sort_by_stride(self, perm, nb); /* (stable, as libstdc++'s for 16 or fewer) */
    int64_t st = 1;
    for (int64_t i = nsig - 1; i >= 0; i--) {
        out_strides[sorted[i]] = st;
        st *= out_sizes[sorted[i]] > 1 ? out_sizes[sorted[i]] : 1;
    }
    int64_t bn = 1;
    for (int64_t i = nb - 1; i >= 0; i--) {
        out_strides[perm[i]] = bn * st;
        bn *= out_sizes[perm[i]];
    }
}

/* A 1-d complex FFT of n points in the working precision: kissfft's C library in float
 * (complex64 = kiss_fft_cpx), kissfft<double> through fft_double.h in double (complex128). */
typedef struct {
    bool dbl;
    void *cfg; /* kiss_fft_cfg or shimrt_fftd * */
} fft_plan;

static fft_plan fft_plan_new(bool dbl, int64_t n, bool inverse) {
    fft_plan p = {dbl, NULL};
    p.cfg = dbl ? (void *)shimrt_fftd_new(n, inverse)
                : (void *)kiss_fft_alloc((int)n, inverse, NULL, NULL);
    return p;
}

static void fft_plan_free(fft_plan p) {
    if (p.dbl)
        shimrt_fftd_free(p.cfg);
    else
        kiss_fft_free(p.cfg);
}

/* The plan one worker runs: kissfft's C transform only reads its cfg, so the float plan is
 * shared; kissfft<double> writes scratch space in its object, so each worker runs a copy. */
static fft_plan fft_plan_worker(fft_plan p) {
    if (p.dbl) p.cfg = shimrt_fftd_clone(p.cfg);
    return p;
}

static void fft_plan_worker_free(fft_plan p) {
    if (p.dbl) shimrt_fftd_free(p.cfg);
}

/* out = the transform of the n points at in (dense, out of place); 0 or -1 (out of memory) */
static int fft_plan_run(fft_plan p, const void *in, void *out) {
    if (p.dbl) return shimrt_fftd_run(p.cfg, in, out);
    kiss_fft_stride(p.cfg, in, out, 1);
    return 0;
}

/* The lines of one fft_along call: line l = (o, i) starts at element o * n * inner + i of w,
 * whose complex elements are es bytes (8: complex64, 16: complex128). */
typedef struct {
    fft_plan plan;
    char *w;
    int64_t n, inner;
    size_t es;
    int oom;
} fft_lines;

/* Gathers (to_blk) m strided lines of n points from base into blk, line j at blk + j * n, or
 * scatters them back; es is a constant at each call so that the copies inline. */
static inline __attribute__((always_inline)) void
fft_block_move(char *blk, char *base, int64_t n, int64_t m, int64_t inner, size_t es, bool to_blk) {
    for (int64_t k = 0; k < n; k++)
        for (int64_t j = 0; j < m; j++) {
            char *bp = blk + (size_t)(j * n + k) * es, *wp = base + (size_t)(k * inner + j) * es;
            if (to_blk)
                memcpy(bp, wp, es);
            else
                memcpy(wp, bp, es);
        }
}

static void fft_block_move_es(char *blk, char *base, int64_t n, int64_t m, int64_t inner, size_t es,
                              bool to_blk) {
    if (es == 8)
        fft_block_move(blk, base, n, m, inner, 8, to_blk);
    else
        fft_block_move(blk, base, n, m, inner, 16, to_blk);
}

/* Lines [b, e) over the runtime's pool. Contiguous lines (inner == 1) go straight through
 * the plan into a buffer and back; strided ones are gathered up to 16 adjacent lines at a
 * time (reading rows of 16 neighbours instead of one element per cache line), each
 * transformed out of place, and scattered back the same way. */
enum { FFT_BLOCK = 16 };
static void fft_lines_run(int64_t b, int64_t e, void *vctx) {
    fft_lines *c = vctx;
    int64_t n = c->n, inner = c->inner;
    size_t es = c->es;
    char *tmp = malloc((size_t)n * (FFT_BLOCK + 1) * es);
    fft_plan plan = fft_plan_worker(c->plan);
    if (!tmp || !plan.cfg) {
        free(tmp);
        fft_plan_worker_free(plan);
        c->oom = 1;
        return;
    }
    char *blk = tmp + (size_t)n * es;
    int fail = 0;
    for (int64_t l = b; l < e && !fail;) {
        int64_t o = l / inner, i = l % inner;
        char *base = c->w + (size_t)(o * n * inner + i) * es;
        if (inner == 1) {
            fail = fft_plan_run(plan, base, tmp);
            memcpy(base, tmp, (size_t)n * es);
            l++;
            continue;
        }
        int64_t m = inner - i; /* lines left in this outer block */
        if (m > e - l) m = e - l;
        if (m > FFT_BLOCK) m = FFT_BLOCK;
        fft_block_move_es(blk, base, n, m, inner, es, true);
        for (int64_t j = 0; j < m && !fail; j++) {
            fail = fft_plan_run(plan, blk + (size_t)(j * n) * es, tmp);
            memcpy(blk + (size_t)(j * n) * es, tmp, (size_t)n * es);
        }
        fft_block_move_es(blk, base, n, m, inner, es, false);
        l += m;
    }
    if (fail) c->oom = 1;
    fft_plan_worker_free(plan);
    free(tmp);
}

/* In place: the 1-d transform of every line along dim d of the dense complex buffer w
 * (complex128 when dbl, else complex64). */
static int fft_along(const char *op, void *w, bool dbl, int64_t nd, const int64_t *sizes, int64_t d,
                     bool inverse) {
    int64_t n = sizes[d], inner = 1, outer = 1;
    if (n <= 1) return 0;
    for (int64_t i = d + 1; i < nd; i++) inner *= sizes[i];
    for (int64_t i = 0; i < d; i++) outer *= sizes[i];
    if (!dbl && (n > INT32_MAX || inner > INT32_MAX)) {
        shimrt_fail(op, "signal of %lld points (line stride %lld) is beyond kissfft's int sizes",
                    (long long)n, (long long)inner);
        return -1;
    }
    fft_lines c = {fft_plan_new(dbl, n, inverse), w, n, inner, dbl ? 16 : 8, 0};
    if (c.plan.cfg) {
        int64_t grain = n >= 16384 ? 1 : 16384 / n;
        torch_parallel_for(0, outer * inner, grain, fft_lines_run, &c);
    }
    fft_plan_free(c.plan);
    if (!c.plan.cfg || c.oom) {
        shimrt_fail(op, "out of memory for an FFT of %lld points", (long long)n);
        return -1;
    }
    return 0;
}

/* The real lines of an even-length onesided r2c along one dim: line l = (o, i) of the dense
 * real input r (n points, stride inner) goes to w (n/2+1 bins, stride inner). */
typedef struct {
    kiss_fftr_cfg cfg;
    const float *r;
    kiss_fft_cpx *w;
    int64_t n, inner;
    int oom;
} fftr_lines;

static void fftr_lines_run(int64_t b, int64_t e, void *vctx) {
    fftr_lines *c = vctx;
    int64_t h = c->n / 2 + 1;
    float *tr = malloc((size_t)c->n * sizeof *tr);
    kiss_fft_cpx *tc = malloc((size_t)h * sizeof *tc);
    if (!tr || !tc) {
        free(tr);
        free(tc);
        c->oom = 1;
        return;
    }
    for (int64_t l = b; l < e; l++) {
        int64_t o = l / c->inner, i = l % c->inner;
        const float *src = c->r + o * c->n * c->inner + i;
        for (int64_t k = 0; k < c->n; k++) tr[k] = src[k * c->inner];
        kiss_fftr(c->cfg, tr, tc);
        kiss_fft_cpx *dst = c->w + o * h * c->inner + i;
        for (int64_t k = 0; k < h; k++) dst[k * c->inner] = tc[k];
    }
    free(tr);
    free(tc);
}

/* Shared by r2c and c2c: checks, transform of every dim in `dim`, normalization, and the
 * copy into a result of PyTorch's sizes and strides (onesided keeps size/2+1 bins of the
 * last listed dim). */
static AOTITorchError fft_run(const char *op, AtenTensorHandle self, const int64_t *dim,
                              int64_t ndims, int64_t normalization, bool real_in, bool onesided,
                              bool forward, AtenTensorHandle *ret0) {
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    int32_t dt = self->dtype;
    bool is_complex = shimrt_dtype_is_complex(dt), is_float = shimrt_dtype_is_floating(dt);
    if (real_in && !is_float)
        return shimrt_fail(op, "Only supports floating-point dtypes, but found: %s",
                           shimrt_dtype_torch_name(dt));
    if (!real_in && !is_complex)
        return shimrt_fail(op, "Only supports complex dtypes, but found: %s",
                           shimrt_dtype_torch_name(dt));
    int64_t nd = self->ndim;
    if (!real_in && ndims == 0) { /* PyTorch's c2c over no dims: self.clone() */
        int64_t st[SHIMRT_MAX_DIMS];
        shimrt_k_preserve_strides(self, st);
        AtenTensorHandle c = shimrt_tensor_empty(op, nd, self->sizes, st, dt, SHIMRT_DEV_CPU, 0);
        if (c && shimrt_copy(op, c, self)) {
            shimrt_tensor_free(c);
            return AOTI_TORCH_FAILURE;
        }
        return shimrt_k_give(c, ret0);
    }
    bool dbl = dt == SHIMRT_FLOAT64 || dt == SHIMRT_COMPLEX128;
    if (!dbl && dt != SHIMRT_FLOAT32 && dt != SHIMRT_COMPLEX64)
        return shimrt_fail(op,
                           "FFT of %s tensors is not supported: libshimrt's FFT is kissfft's "
                           "float and double variants; float32, float64, complex64 and "
                           "complex128 only",
                           shimrt_dtype_torch_name(dt));
    int32_t cdt = dbl ? SHIMRT_COMPLEX128 : SHIMRT_COMPLEX64; /* the result's dtype */
    if (ndims < 1 || ndims > nd)
        return shimrt_fail(op, "dim must list between 1 and %lld dims, got %lld", (long long)nd,
                           (long long)ndims);
    bool seen[SHIMRT_MAX_DIMS] = {0};
    for (int64_t i = 0; i < ndims; i++) {
        if (dim[i] < 0 || dim[i] >= nd)
            return shimrt_fail(op, "dim %lld out of range for a %lld-d tensor", (long long)dim[i],
                               (long long)nd);
        if (seen[dim[i]]) return shimrt_fail(op, "dim %lld appears twice", (long long)dim[i]);
        seen[dim[i]] = true;
    }
    /* PyTorch's MKL path takes the code's low 32 bits as its fft_norm_mode (an int enum):
     * 0 none, 1 by_root_n, any other value by_n (measured on PyTorch 2.15: 3, -1, 2^31 scale
     * by 1/n, 2^32 is none) */
    int32_t low = (int32_t)(uint32_t)(uint64_t)normalization;
    normalization = low == 0 ? 0 : low == 1 ? 1 : 2;

    /* PyTorch's dim order: sorted by the input's strides, largest first (r2c keeps the last
     * listed dim last) */
    int64_t sorted[SHIMRT_MAX_DIMS];
    memcpy(sorted, dim, (size_t)ndims * sizeof *sorted);
    int64_t nsort = real_in ? ndims - 1 : ndims;
    shimrt_k_sort_by_stride(self, sorted, nsort);
    int64_t last = dim[ndims - 1];
    int64_t out_sizes[SHIMRT_MAX_DIMS], out_strides[SHIMRT_MAX_DIMS];
    memcpy(out_sizes, self->sizes, (size_t)nd * sizeof *out_sizes);
    if (real_in && onesided) out_sizes[last] = self->sizes[last] / 2 + 1;
    int64_t numel = shimrt_numel(self), out_numel = 1;
    for (int64_t i = 0; i < nd; i++) out_numel *= out_sizes[i];
    /* PyTorch returns an empty result (contiguous, as allocated) before looking at the input,
     * and fails reshaping an empty input to a non-empty result (r2c onesided over a dim of
     * size 0: 0/2+1 bins) */
    if (out_numel == 0) {
        AtenTensorHandle e = shimrt_tensor_empty(op, nd, out_sizes, NULL, cdt, SHIMRT_DEV_CPU, 0);
        return shimrt_k_give(e, ret0);
    }
    if (numel == 0)
        return shimrt_fail(op,
                           "cannot transform an empty input into a non-empty result (dim "
                           "%lld has size 0)",
                           (long long)last);
    fft_out_strides(self, sorted, ndims, out_sizes, out_strides);
    AtenTensorHandle out =
        shimrt_tensor_empty(op, nd, out_sizes, out_strides, cdt, SHIMRT_DEV_CPU, 0);
    if (!out) return AOTI_TORCH_FAILURE;

    /* a dense copy of the input; the transforms run on w, a dense complex buffer (cdt) of ws
     * sizes: the input's, or the result's for an even-length onesided float32 r2c, whose last
     * dim goes through kissfft's real transform (half the work) */
    AtenTensorHandle d = shimrt_k_new(op, nd, self->sizes, dt);
    bool half =
        !dbl && real_in && onesided && self->sizes[last] % 2 == 0 && self->sizes[last] <= INT32_MAX;
    const int64_t *ws = half ? out_sizes : self->sizes;
    AtenTensorHandle wt = d ? shimrt_k_new(op, nd, ws, cdt) : NULL;
    if (!wt || shimrt_k_copy(op, d, self)) {
        shimrt_tensor_free(d);
        shimrt_tensor_free(wt);
        shimrt_tensor_free(out);
        return AOTI_TORCH_FAILURE;
    }
    void *w = shimrt_data(wt);
    int64_t wn = half ? out_numel : numel;
    int fail = 0;
    if (half) {
        int64_t n = self->sizes[last], inner = 1, outer = 1;
        for (int64_t i = last + 1; i < nd; i++) inner *= self->sizes[i];
        for (int64_t i = 0; i < last; i++) outer *= self->sizes[i];
        fftr_lines c = {kiss_fftr_alloc((int)n, 0, NULL, NULL), shimrt_data(d), w, n, inner, 0};
        if (c.cfg)
            torch_parallel_for(0, outer * inner, n >= 16384 ? 1 : 16384 / n, fftr_lines_run, &c);
        kiss_fftr_free(c.cfg);
        if (!c.cfg || c.oom)
            fail = shimrt_fail(op, "out of memory for an FFT of %lld points", (long long)n) != 0;
    } else if (real_in && dbl) {
        const double *src = shimrt_data(d);
        double *wd = w;
        for (int64_t i = 0; i < numel; i++) wd[2 * i] = src[i], wd[2 * i + 1] = 0.0;
    } else if (real_in) {
        const float *src = shimrt_data(d);
        float *wf = w;
        for (int64_t i = 0; i < numel; i++) wf[2 * i] = src[i], wf[2 * i + 1] = 0.0f;
    } else {
        memcpy(w, shimrt_data(d), (size_t)numel * (dbl ? 16 : 8));
    }
    shimrt_tensor_free(d);

    double n = 1;
    for (int64_t i = 0; i < ndims && !fail; i++) {
        n *= (double)self->sizes[dim[i]];
        if (!(half && dim[i] == last)) fail = fft_along(op, w, dbl, nd, ws, dim[i], !forward);
    }
    if (fail) {
        shimrt_tensor_free(wt);
        shimrt_tensor_free(out);
        return AOTI_TORCH_FAILURE;
    }
    double scale = normalization == 0 ? 1.0 : normalization == 1 ? 1.0 / sqrt(n) : 1.0 / n;
    if (scale != 1.0 && dbl) {
        double *wd = w;
        for (int64_t i = 0; i < 2 * wn; i++) wd[i] *= scale;
    } else if (scale != 1.0) {
        float *wf = w, fscale = (float)scale;
        for (int64_t i = 0; i < 2 * wn; i++) wf[i] *= fscale;
    }

    /* the result: w's elements within out_sizes (a view of w) copied to out's strides by the
     * engine's copy, both seen as float32 (float64) with a trailing (re, im) dim so that the
     * engine's float copy (tiled where out is transposed against w) does it */
    int64_t wstr[SHIMRT_MAX_DIMS], fs[SHIMRT_MAX_DIMS], fws[SHIMRT_MAX_DIMS], fos[SHIMRT_MAX_DIMS];
    shimrt_contiguous_strides(nd, ws, wstr);
    bool flt = nd < SHIMRT_MAX_DIMS;
    int64_t vn = flt ? nd + 1 : nd;
    for (int64_t i = 0; i < nd; i++) {
        fs[i] = out_sizes[i];
        fws[i] = flt ? 2 * wstr[i] : wstr[i];
        fos[i] = flt ? 2 * out_strides[i] : out_strides[i];
    }
    if (flt) {
        fs[nd] = 2;
        fws[nd] = fos[nd] = 1;
    }
    int32_t vdt = flt ? (dbl ? SHIMRT_FLOAT64 : SHIMRT_FLOAT32) : cdt;
    AtenTensorHandle v =
        shimrt_tensor_new(op, wt->storage, vn, fs, fws, wt->storage_offset * (vn - nd + 1), vdt,
                          SHIMRT_DEV_CPU, 0, wt->layout);
    AtenTensorHandle ov =
        v ? shimrt_tensor_new(op, out->storage, vn, fs, fos, out->storage_offset * (vn - nd + 1),
                              vdt, SHIMRT_DEV_CPU, 0, out->layout)
          : NULL;
    AOTITorchError rc = ov ? shimrt_k_copy(op, ov, v) : AOTI_TORCH_FAILURE;
    shimrt_tensor_free(ov);
    shimrt_tensor_free(v);
    shimrt_tensor_free(wt);
    if (rc) {
        shimrt_tensor_free(out);
        return AOTI_TORCH_FAILURE;
    }
    return shimrt_k_give(out, ret0);
}

AOTITorchError shimrt_cpu__fft_r2c(AtenTensorHandle self, const int64_t *dim, int64_t dim_len_,
                                   int64_t normalization, int32_t onesided,
                                   AtenTensorHandle *ret0) {
    return fft_run("_fft_r2c", self, dim, dim_len_, normalization, true, onesided != 0, true, ret0);
}

AOTITorchError shimrt_cpu__fft_c2c(AtenTensorHandle self, const int64_t *dim, int64_t dim_len_,
                                   int64_t normalization, int32_t forward, AtenTensorHandle *ret0) {
    return fft_run("_fft_c2c", self, dim, dim_len_, normalization, false, false, forward != 0,
                   ret0);
}

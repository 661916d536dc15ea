/* runtime/cpu/fft.c: _fft_r2c and _fft_c2c, the FFT functions of c_shim_cpu.h, on kissfft
 * (Debian's libkissfft-dev, BSD-3-Clause). PyTorch's semantics: `dim` lists the transformed
 * dims, `normalization` is PyTorch's fft_norm_mode (0 none, 1 by 1/sqrt(n), 2 by 1/n with n
 * the product of the signal sizes), r2c is forward and keeps size/2+1 bins of the last listed
 * dim when `onesided`, c2c's `forward` picks the sign of the exponent. The result's strides
 * are those of PyTorch's CPU (MKL) kernel: batch dims first in the input's stride order, then
 * the transformed dims in the order the kernel sorts them, all packed.
 *
 * Debian ships only kissfft's float variant (libkissfft-float), so float32 -> complex64 and
 * complex64 -> complex64 are computed; float64 / complex128 inputs are refused with a message
 * (docs/engine.md). The transforms run on a dense complex64 copy of the input, one listed dim
 * after the other: each line along the dim is read in place by kiss_fft_stride into a buffer
 * and written back, lines over the runtime's pool. A real input's transform is the complex
 * one of its values, the upper half of the last listed dim dropped when onesided. Max error
 * vs PyTorch (pocketfft/MKL) in the oracle: about 3.5e-7 of the largest bin. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <kissfft/kiss_fft.h>
#include <kissfft/kiss_fftr.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"
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
    /* stable insertion sort by stride, largest first (libstdc++ sorts 16 or fewer this way) */
    for (int64_t i = 1; i < nb; i++) {
        int64_t v = perm[i], j = i;
        while (j > 0 && self->strides[perm[j - 1]] < self->strides[v]) {
            perm[j] = perm[j - 1];
            j--;
        }
        perm[j] = v;
    }
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

/* The lines of one fft_along call: line l = (o, i) starts at w + o * n * inner + i. */
typedef struct {
    kiss_fft_cfg cfg;
    kiss_fft_cpx *w;
    int64_t n, inner;
    int oom;
} fft_lines;

/* Lines [b, e) over the runtime's pool. Contiguous lines (inner == 1) go straight through
 * kiss_fft_stride into a buffer and back; strided ones are gathered up to 16 adjacent lines
 * at a time (reading rows of 16 neighbours instead of one element per cache line), each
 * transformed by kissfft out of place (it only reads cfg), and scattered back the same way. */
enum { FFT_BLOCK = 16 };
static void fft_lines_run(int64_t b, int64_t e, void *vctx) {
    fft_lines *c = vctx;
    int64_t n = c->n, inner = c->inner;
    kiss_fft_cpx *tmp = malloc((size_t)n * (FFT_BLOCK + 1) * sizeof *tmp);
    if (!tmp) {
        c->oom = 1;
        return;
    }
    kiss_fft_cpx *blk = tmp + n;
    for (int64_t l = b; l < e;) {
        int64_t o = l / inner, i = l % inner;
        kiss_fft_cpx *base = c->w + o * n * inner + i;
        if (inner == 1) {
            kiss_fft_stride(c->cfg, base, tmp, 1);
            memcpy(base, tmp, (size_t)n * sizeof *tmp);
            l++;
            continue;
        }
        int64_t m = inner - i; /* lines left in this outer block */
        if (m > e - l) m = e - l;
        if (m > FFT_BLOCK) m = FFT_BLOCK;
        for (int64_t k = 0; k < n; k++)
            for (int64_t j = 0; j < m; j++) blk[j * n + k] = base[k * inner + j];
        for (int64_t j = 0; j < m; j++) {
            kiss_fft_stride(c->cfg, blk + j * n, tmp, 1);
            memcpy(blk + j * n, tmp, (size_t)n * sizeof *tmp);
        }
        for (int64_t k = 0; k < n; k++)
            for (int64_t j = 0; j < m; j++) base[k * inner + j] = blk[j * n + k];
        l += m;
    }
    free(tmp);
}

/* In place: the 1-d transform of every line along dim d of the dense complex buffer w. */
static int fft_along(const char *op, kiss_fft_cpx *w, int64_t nd, const int64_t *sizes, int64_t d,
                     bool inverse) {
    int64_t n = sizes[d], inner = 1, outer = 1;
    if (n <= 1) return 0;
    for (int64_t i = d + 1; i < nd; i++) inner *= sizes[i];
    for (int64_t i = 0; i < d; i++) outer *= sizes[i];
    if (n > INT32_MAX || inner > INT32_MAX) {
        shimrt_fail(op, "signal of %lld points (line stride %lld) is beyond kissfft's int sizes",
                    (long long)n, (long long)inner);
        return -1;
    }
    fft_lines c = {kiss_fft_alloc((int)n, inverse, NULL, NULL), w, n, inner, 0};
    if (c.cfg) {
        int64_t grain = n >= 16384 ? 1 : 16384 / n;
        torch_parallel_for(0, outer * inner, grain, fft_lines_run, &c);
    }
    kiss_fft_free(c.cfg);
    if (!c.cfg || c.oom) {
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
    if (dt != SHIMRT_FLOAT32 && dt != SHIMRT_COMPLEX64)
        return shimrt_fail(op,
                           "FFT of %s tensors is not supported: libshimrt's FFT is kissfft's "
                           "float variant (Debian ships no double one); complex64 and float32 only",
                           shimrt_dtype_torch_name(dt));
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
    if (normalization < 0 || normalization > 2)
        return shimrt_fail(op,
                           "normalization must be 0 (none), 1 (by_root_n) or 2 (by_n), got %lld",
                           (long long)normalization);

    /* PyTorch's dim order: sorted by the input's strides, largest first (r2c keeps the last
     * listed dim last) */
    int64_t sorted[SHIMRT_MAX_DIMS];
    memcpy(sorted, dim, (size_t)ndims * sizeof *sorted);
    int64_t nsort = real_in ? ndims - 1 : ndims;
    for (int64_t i = 1; i < nsort; i++) {
        int64_t v = sorted[i], j = i;
        while (j > 0 && self->strides[sorted[j - 1]] < self->strides[v]) {
            sorted[j] = sorted[j - 1];
            j--;
        }
        sorted[j] = v;
    }
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
        AtenTensorHandle e =
            shimrt_tensor_empty(op, nd, out_sizes, NULL, SHIMRT_COMPLEX64, SHIMRT_DEV_CPU, 0);
        return shimrt_k_give(e, ret0);
    }
    if (numel == 0)
        return shimrt_fail(op,
                           "cannot transform an empty input into a non-empty result (dim "
                           "%lld has size 0)",
                           (long long)last);
    fft_out_strides(self, sorted, ndims, out_sizes, out_strides);
    AtenTensorHandle out =
        shimrt_tensor_empty(op, nd, out_sizes, out_strides, SHIMRT_COMPLEX64, SHIMRT_DEV_CPU, 0);
    if (!out) return AOTI_TORCH_FAILURE;

    /* a dense copy of the input; the transforms run on w, a dense complex64 buffer of ws
     * sizes: the input's, or the result's for an even-length onesided r2c, whose last dim goes
     * through kissfft's real transform (half the work) */
    AtenTensorHandle d = shimrt_k_new(op, nd, self->sizes, dt);
    bool half = real_in && onesided && self->sizes[last] % 2 == 0 && self->sizes[last] <= INT32_MAX;
    const int64_t *ws = half ? out_sizes : self->sizes;
    AtenTensorHandle wt = d ? shimrt_k_new(op, nd, ws, SHIMRT_COMPLEX64) : NULL;
    if (!wt || shimrt_k_copy(op, d, self)) {
        shimrt_tensor_free(d);
        shimrt_tensor_free(wt);
        shimrt_tensor_free(out);
        return AOTI_TORCH_FAILURE;
    }
    kiss_fft_cpx *w = shimrt_data(wt);
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
    } else if (real_in) {
        const float *src = shimrt_data(d);
        for (int64_t i = 0; i < numel; i++) w[i] = (kiss_fft_cpx){src[i], 0.0f};
    } else {
        memcpy(w, shimrt_data(d), (size_t)numel * sizeof *w);
    }
    shimrt_tensor_free(d);

    double n = 1;
    for (int64_t i = 0; i < ndims && !fail; i++) {
        n *= (double)self->sizes[dim[i]];
        if (!(half && dim[i] == last)) fail = fft_along(op, w, nd, ws, dim[i], !forward);
    }
    if (fail) {
        shimrt_tensor_free(wt);
        shimrt_tensor_free(out);
        return AOTI_TORCH_FAILURE;
    }
    float scale = normalization == 0 ? 1.0f : (float)(normalization == 1 ? 1.0 / sqrt(n) : 1.0 / n);

    if (scale != 1.0f)
        for (int64_t i = 0; i < wn; i++) w[i] = (kiss_fft_cpx){w[i].r * scale, w[i].i * scale};

    /* the result: w's elements within out_sizes (a view of w) copied to out's strides by the
     * engine's copy, both seen as float32 with a trailing (re, im) dim so that the engine's
     * float copy (tiled where out is transposed against w) does it */
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
    int32_t vdt = flt ? SHIMRT_FLOAT32 : SHIMRT_COMPLEX64;
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

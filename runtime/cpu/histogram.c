/* runtime/cpu/histogram.c: histogram.bin_ct and _histogramdd_from_bin_cts as PyTorch's CPU
 * histogramdd kernel computes them: per dimension, bin edges are linspace(leftmost,
 * rightmost, bins + 1) in the input's dtype (leftmost/rightmost from `range`, else the
 * input's min and max; an empty range widened by 0.5 each side; no elements: [0, 1]); an
 * element lands in the bin found by linear interpolation refined by a search among the
 * neighbouring edges (the last bin includes its right edge); elements outside the edges are
 * not counted. `weight` adds its value instead of 1; `density` divides by the total and by
 * each bin's width. float32 and float64; float16 and bfloat16 when a range is given or
 * there is no element (PyTorch's min/max of the input refuses them), computed in their own
 * arithmetic as PyTorch's kernel does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../generic/meta.h"
#include "cpu_kernels.h"
#include "elems.h"
#include "index.h"
#include "iter.h"

/* a value rounded to the element type, as one operation of PyTorch's scalar_t arithmetic */
static double as_dt(int32_t dt, double v) { return shimrt_e_round(dt, v); }

/* PyTorch's linear-interpolation guess of v's bin, (v - lo) * (ne - 1) / (hi - lo), in the
 * element type's arithmetic (each operation rounded), then converted to int64 as x86 does:
 * a NaN or out-of-range value becomes INT64_MIN. PyTorch's local search around that guess
 * then wraps its bounds (pos - 1, pos + 2) and looks at edges 0 and 1 only (v >= edge 0
 * always holds there): returned as -1, "search edges 0..1". */
static int64_t guess_pos(int32_t dt, double v, double lo, double hi, int64_t ne) {
    double q =
        as_dt(dt, as_dt(dt, as_dt(dt, v - lo) * as_dt(dt, (double)(ne - 1))) / as_dt(dt, hi - lo));
    if (!(q >= -0x1p63 && q < 0x1p63)) return -1;
    return (int64_t)q;
}

/* PyTorch 2.15's CPU linspace in dtype dt (measured against it): step = (end - start) /
 * (steps - 1); element i is start + step * i in the first half, end - step * (steps - i - 1)
 * in the second, as one fused multiply-add in float64 / float32. float16 and bfloat16 compute
 * in float: float16 multiplies then adds, bfloat16 fuses, in the vector loop and the scalar
 * tail alike (6,000 random linspaces with its AVX2 and AVX-512 kernels). */
static double lin_at(int32_t dt, double step, int64_t k, double from, bool fused) {
    if (dt == SHIMRT_FLOAT64) return fma(step, (double)k, from);
    float s = (float)step, b = (float)from;
    return fused ? fmaf(s, (float)k, b) : b + s * (float)k;
}

static void linspace_dt(int32_t dt, double start, double end, int64_t steps, double *out) {
    start = as_dt(dt, start), end = as_dt(dt, end);
    if (steps == 1) {
        out[0] = start;
        return;
    }
    bool reduced = dt == SHIMRT_FLOAT16 || dt == SHIMRT_BFLOAT16;
    double step = dt == SHIMRT_FLOAT64 ? (end - start) / (double)(steps - 1)
                                       : (double)((float)(end - start) / (float)(steps - 1));
    int64_t half = steps / 2;
    bool fused = !reduced || dt == SHIMRT_BFLOAT16;
    for (int64_t i = 0; i < steps; i++) {
        double v = i < half ? lin_at(dt, step, i, start, fused)
                            : lin_at(dt, -step, steps - i - 1, end, fused);
        out[i] = as_dt(dt, v);
    }
}

/* The core: x holds n rows of D values (row-major, as doubles of dtype dt), w n weights or
 * NULL; bins[D]; range NULL or 2*D values. Writes hist (prod(bins) cells, row-major) and
 * edges (D arrays of bins[d] + 1). Returns 0, or -1 with the message set. */
static int histdd(const char *op, int32_t dt, const double *x, const double *w, int64_t n,
                  int64_t D, const int64_t *bins, const double *range, bool density, double *hist,
                  double **edges) {
    for (int64_t d = 0; d < D; d++) {
        double lo = 0.0, hi = 1.0;
        if (range) {
            lo = range[2 * d];
            hi = range[2 * d + 1];
        } else if (n > 0) {
            lo = INFINITY;
            hi = -INFINITY;
            for (int64_t i = 0; i < n; i++) {
                double v = x[i * D + d];
                if (isnan(v) || isnan(lo)) {
                    lo = hi = NAN;
                    continue;
                }
                if (v < lo) lo = v;
                if (v > hi) hi = v;
            }
        }
        if (!isfinite(lo) || !isfinite(hi)) {
            shimrt_fail(op, "torch.histogramdd: dimension %lld's range [%g, %g] is not finite",
                        (long long)d, lo, hi);
            return -1;
        }
        if (!(lo <= hi)) {
            shimrt_fail(op,
                        "torch.histogramdd: min should not exceed max, but got min %g max %g "
                        "for dimension %lld",
                        lo, hi, (long long)d);
            return -1;
        }
        if (lo == hi) {
            lo -= 0.5;
            hi += 0.5;
        }
        /* linspace converts start and end to dt with c10's overflow check */
        if (shimrt_k_scalar_fits(op, shimrt_scalar_double(lo), dt, false) ||
            shimrt_k_scalar_fits(op, shimrt_scalar_double(hi), dt, false))
            return -1;
        linspace_dt(dt, lo, hi, bins[d] + 1, edges[d]);
        for (int64_t k = 0; k <= bins[d]; k++) edges[d][k] = as_dt(dt, edges[d][k]);
    }
    int64_t cells = 1;
    for (int64_t d = 0; d < D; d++) cells *= bins[d];
    for (int64_t c = 0; c < cells; c++) hist[c] = 0.0;
    for (int64_t i = 0; i < n; i++) {
        int64_t cell = 0;
        bool skip = false;
        for (int64_t d = 0; d < D && !skip; d++) {
            const double *e = edges[d];
            int64_t ne = bins[d] + 1;
            double v = x[i * D + d], lo = e[0], hi = e[ne - 1];
            if (!(v >= lo && v <= hi)) {
                skip = true;
                break;
            }
            int64_t pos = guess_pos(dt, v, lo, hi, ne);
            /* the first edge above v among pos - 1 .. pos + 1, minus one */
            int64_t a = pos - 1 > 0 ? pos - 1 : 0, b = pos + 2 < ne ? pos + 2 : ne;
            if (pos < 0) a = 0, b = 2;
            if (a >= ne) a = ne - 1; /* (rounding never guesses past the last edge) */
            while (a < b && e[a] <= v) a++;
            pos = a - 1;
            if (pos == ne - 1) pos--;
            if (pos < 0) pos = 0;
            cell = cell * bins[d] + pos;
        }
        if (skip) continue;
        hist[cell] = as_dt(dt, hist[cell] + (w ? w[i] : 1.0));
    }
    if (density) {
        double total = 0.0;
        for (int64_t c = 0; c < cells; c++) total += hist[c];
        for (int64_t c = 0; c < cells; c++) {
            double v = as_dt(dt, hist[c] / as_dt(dt, total));
            int64_t rest = c, k[SHIMRT_MAX_DIMS]; /* (D <= SHIMRT_MAX_DIMS: run checks it) */
            for (int64_t d = D - 1; d >= 0; d--) {
                k[d] = rest % bins[d];
                rest /= bins[d];
            }
            /* PyTorch divides by each dim's bin lengths in turn, dim 0 first (the order
             * decides an overflow or an underflow: 0.33 / 1e38 / 5e-41 is 58.8, 0.33 / 5e-41
             * is inf in float) */
            for (int64_t d = 0; d < D; d++)
                v = as_dt(dt, v / as_dt(dt, edges[d][k[d] + 1] - edges[d][k[d]]));
            hist[c] = v;
        }
    }
    return 0;
}

static void store_all(AtenTensorHandle t, const double *v) {
    char *p = shimrt_data(t);
    size_t es = shimrt_dtype_size(t->dtype);
    int64_t n = shimrt_numel(t);
    for (int64_t i = 0; i < n; i++) shimrt_k_store_f64(p + i * (int64_t)es, t->dtype, v[i]);
}

/* Checks and runs one histogram: self (rows of D values: D = 1 for histogram, the last dim
 * for histogramdd), weight (self's shape without the last dim for dd). hist_out gets the
 * counts (shape bins), edges_out (NULL: not wanted) the D edge tensors. */
static AOTITorchError run(const char *op, AtenTensorHandle self, bool dd, const int64_t *bins,
                          int64_t nbins, const double *range, int64_t range_len,
                          AtenTensorHandle weight, bool density, AtenTensorHandle *hist_out,
                          AtenTensorHandle *edges_out) {
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (weight && shimrt_k_check_cpu(op, weight, "weight")) return AOTI_TORCH_FAILURE;
    int32_t dt = self->dtype;
    /* float16/bfloat16: PyTorch's kernel takes them; only its min/max of the input (no
     * range given, some element) refuses them */
    bool reduced = dt == SHIMRT_FLOAT16 || dt == SHIMRT_BFLOAT16;
    if (dt != SHIMRT_FLOAT32 && dt != SHIMRT_FLOAT64 &&
        !(reduced && (range || shimrt_numel(self) == 0)))
        return shimrt_fail(op, "\"histogramdd\" not implemented for '%s'",
                           shimrt_dtype_torch_name(dt));
    if (dd && self->ndim < 2) /* (PyTorch's histogramdd_check_inputs) */
        return shimrt_fail(op, "torch.histogramdd: input tensor should have at least 2 dimensions");
    int64_t D = dd ? self->sizes[self->ndim - 1] : 1;
    if (dd && nbins != D)
        return shimrt_fail(op, "histogramdd: The size of bins must be equal to the innermost "
                               "dimension of the input.");
    if (D > SHIMRT_MAX_DIMS)
        return shimrt_fail(op, "histogramdd: %lld dimensions are more than supported",
                           (long long)D);
    for (int64_t d = 0; d < D; d++)
        if (bins[d] <= 0)
            return shimrt_fail(op,
                               "torch.histogram(): bins must be > 0, but got %lld for "
                               "dimension %lld",
                               (long long)bins[d], (long long)d);
    if (range && range_len != 2 * D)
        return shimrt_fail(op,
                           "torch.histogramdd: for a %lld-dimensional histogram range should "
                           "have %lld elements, but got %lld",
                           (long long)D, (long long)(2 * D), (long long)range_len);
    int64_t n = D ? shimrt_numel(self) / D : 0;
    if (weight) {
        if (weight->dtype != dt)
            return shimrt_fail(op, "torch.histogramdd: if weight tensor is provided it should have "
                                   "the same dtype as the input tensor");
        /* histogram flattens both (weight to [numel]), histogramdd compares the shapes */
        int64_t wn = self->ndim - 1;
        bool same = dd ? weight->ndim == wn : shimrt_numel(weight) == shimrt_numel(self);
        for (int64_t d = 0; dd && same && d < wn; d++) same = weight->sizes[d] == self->sizes[d];
        if (dd && weight->ndim == 0) /* PyTorch compares a 0-dim weight's shape as [1] */
            same = wn == 1 && self->sizes[0] == 1;
        if (!same)
            return shimrt_fail(op, "torch.histogramdd: if weight tensor is provided, it should "
                                   "have the same shape as the input tensor excluding its "
                                   "innermost dimension");
    }
    int64_t cells = 1;
    for (int64_t d = 0; d < D; d++) {
        if (cells > (INT64_MAX >> 4) / bins[d])
            return shimrt_fail(op, "histogramdd: too many bins");
        cells *= bins[d];
    }
    double *x = shimrt_e_read_f64(op, self), *w = weight ? shimrt_e_read_f64(op, weight) : NULL;
    double *h = malloc((size_t)cells * sizeof *h), *eb[SHIMRT_MAX_DIMS] = {0};
    AOTITorchError rc = AOTI_TORCH_FAILURE;
    AtenTensorHandle ht = NULL, et[SHIMRT_MAX_DIMS] = {0};
    bool ok = x && (!weight || w) && h;
    for (int64_t d = 0; ok && d < D; d++) ok = (eb[d] = malloc((size_t)(bins[d] + 1) * 8)) != 0;
    if (!ok) {
        shimrt_fail(op, "out of memory");
        goto done;
    }
    if (histdd(op, dt, x, w, n, D, bins, range, density, h, eb)) goto done;
    ht = shimrt_tensor_empty(op, dd ? D : 1, bins, NULL, dt, SHIMRT_DEV_CPU, 0);
    if (!ht) goto done;
    store_all(ht, h);
    if (edges_out)
        for (int64_t d = 0; d < D; d++) {
            int64_t ne = bins[d] + 1;
            if (!(et[d] = shimrt_tensor_empty(op, 1, &ne, NULL, dt, SHIMRT_DEV_CPU, 0))) goto done;
            store_all(et[d], eb[d]);
        }
    *hist_out = ht;
    ht = NULL;
    if (edges_out)
        for (int64_t d = 0; d < D; d++) {
            edges_out[d] = et[d];
            et[d] = NULL;
        }
    rc = AOTI_TORCH_SUCCESS;
done:
    free(x);
    free(w);
    free(h);
    for (int64_t d = 0; d < D && d < SHIMRT_MAX_DIMS; d++) {
        free(eb[d]);
        shimrt_tensor_free(et[d]);
    }
    shimrt_tensor_free(ht);
    return rc;
}

AOTITorchError shimrt_cpu_histogram_bin_ct(AtenTensorHandle self, int64_t bins, const double *range,
                                           int64_t range_len_, AtenTensorHandle weight,
                                           int32_t density, AtenTensorHandle *ret0,
                                           AtenTensorHandle *ret1) {
    return run("histogram", self, false, &bins, 1, range, range_len_, weight, density != 0, ret0,
               ret1);
}

AOTITorchError shimrt_cpu__histogramdd_from_bin_cts(AtenTensorHandle self, const int64_t *bins,
                                                    int64_t bins_len_, const double *range,
                                                    int64_t range_len_, AtenTensorHandle weight,
                                                    int32_t density, AtenTensorHandle *ret0) {
    return run("_histogramdd_from_bin_cts", self, true, bins, bins_len_, range, range_len_, weight,
               density != 0, ret0, NULL);
}

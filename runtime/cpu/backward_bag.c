/* runtime/cpu/backward_bag.c: backward ops of c_shim_cpu.h for the reductions over bags and
 * segments: _segment_reduce_backward, _embedding_bag_dense_backward,
 * _embedding_bag_per_sample_weights_backward; and
 * _scaled_dot_product_fused_attention_overrideable_backward, which PyTorch's CPU refuses
 * (an operator for privateuse1 backends): refused with its message.
 *
 * Each follows PyTorch's CPU kernel step by step: the same loops, in the same order, each
 * operation rounded to the dtype as PyTorch's scalar_t arithmetic rounds it (float16 and
 * bfloat16 compute in float, then round). Values are carried as doubles: a double result of
 * one operation on two values of these types, rounded to the type, is the type's correctly
 * rounded result. Where PyTorch's kernels would read or write out of bounds (segments or
 * bags outside the data, indices outside the table, a grad of the wrong size), libshimrt
 * refuses with a message. Checked against PyTorch 2.15 by tests/dropin/aoti_oracle_bwb.py. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"

/* the end of a refusal where PyTorch's kernel reads or writes out of bounds */
#define OOB " (PyTorch's kernel would index out of bounds)"
#include "elems.h"
#include "index.h"

/* v rounded to dt as one operation of PyTorch's scalar_t arithmetic rounds it */
static double rnd(int32_t dt, double v) {
    if (dt == SHIMRT_FLOAT64) return v;
    char b[8];
    shimrt_k_store_f64(b, dt, (float)v);
    return shimrt_k_load_f64(b, dt);
}

/* PyTorch's data_ptr<scalar_t>() check: t must have the dispatched dtype want */
static AOTITorchError same_dtype(const char *op, AtenTensorHandle t, int32_t want) {
    if (t->dtype == want) return AOTI_TORCH_SUCCESS;
    return shimrt_fail(op, "expected scalar type %s but found %s", shimrt_dtype_name(want),
                       shimrt_dtype_name(t->dtype));
}

/* A new contiguous tensor of dt holding v (n doubles, each already a value of dt); v freed */
static AtenTensorHandle from_f64(const char *op, int64_t ndim, const int64_t *sizes, int32_t dt,
                                 double *v) {
    AtenTensorHandle r = v ? shimrt_k_new(op, ndim, sizes, dt) : NULL;
    if (r) {
        size_t es = shimrt_dtype_size(dt);
        int64_t n = shimrt_numel(r);
        for (int64_t i = 0; i < n; i++)
            shimrt_k_store_f64((char *)shimrt_data(r) + (size_t)i * es, dt, v[i]);
    }
    free(v);
    return r;
}

/* ---- _segment_reduce_backward ---- */

/* One segment's gradient (PyTorch's _segment_reduce_cpu_lengths/offsets_backward_kernel1):
 * x the segment's n values (step apart), gi its gradient (zeroed), g and out the segment's
 * grad and output. */
static void seg_grad(int r, int32_t dt, const double *x, double *gi, int64_t n, int64_t step,
                     double g, double out, double init_prod) {
    if (r == SR_MAX || r == SR_MIN) {
        int64_t cnt = 0;
        for (int64_t j = 0; j < n; j++)
            if (isnan(x[j * step]) || x[j * step] == out) {
                gi[j * step] = g;
                cnt++;
            }
        /* (the ties share the gradient: PyTorch divides only the positive ones) */
        if (cnt >= 2)
            for (int64_t j = 0; j < n; j++)
                if (gi[j * step] > 0) gi[j * step] = rnd(dt, gi[j * step] / rnd(dt, (double)cnt));
    } else if (r == SR_MEAN || r == SR_SUM) {
        double v = r == SR_MEAN ? rnd(dt, g / rnd(dt, (double)n)) : g;
        for (int64_t j = 0; j < n; j++) gi[j * step] = v;
    } else {
        double gv = rnd(dt, g * out);
        for (int64_t j = 0; j < n; j++) {
            double xj = x[j * step];
            if (!isnan(xj) && xj != 0) {
                gi[j * step] = rnd(dt, gv / xj);
                continue;
            }
            double ex = init_prod; /* the product of the others, as PyTorch computes it */
            for (int64_t k = 0; k < n; k++)
                if (k != j) ex = rnd(dt, ex * x[k * step]);
            gi[j * step] = rnd(dt, g * ex);
        }
    }
}

AOTITorchError shimrt_cpu__segment_reduce_backward(AtenTensorHandle grad, AtenTensorHandle output,
                                                   AtenTensorHandle data, const char *reduce,
                                                   AtenTensorHandle lengths,
                                                   AtenTensorHandle offsets, int64_t axis,
                                                   const shimrt_scalar *initial,
                                                   AtenTensorHandle *ret0) {
    static const char op[] = "_segment_reduce_backward";
    if (shimrt_k_check_cpu(op, grad, "grad") || shimrt_k_check_cpu(op, output, "output") ||
        shimrt_k_check_cpu(op, data, "data"))
        return AOTI_TORCH_FAILURE;
    if (shimrt_idx_wrap_dim(op, &axis, data->ndim)) return AOTI_TORCH_FAILURE;
    if (!lengths && !offsets)
        return shimrt_fail(op, "segment_reduce(): Either lengths or offsets must be defined.");
    int r = shimrt_e_seg_reduction(op, reduce);
    if (r < 0) return AOTI_TORCH_FAILURE;
    bool offs = offsets != NULL; /* PyTorch takes offsets when both are given */
    AtenTensorHandle seg = offs ? offsets : lengths;
    const char *what = offs ? "offsets" : "lengths";
    if (shimrt_k_check_cpu(op, seg, what)) return AOTI_TORCH_FAILURE;
    if (seg->dtype != SHIMRT_INT64 && seg->dtype != SHIMRT_INT32)
        return shimrt_fail(op,
                           "\"_segment_reduce_cpu_%s_backward_kernel1\" not implemented for '%s'",
                           what, shimrt_dtype_name(seg->dtype));
    int32_t dt = data->dtype;
    if (!shimrt_k_is_floating(dt))
        return shimrt_fail(op, "\"_segment_reduce_cpu\" not implemented for '%s'",
                           shimrt_dtype_name(dt));
    if (same_dtype(op, output, dt) || same_dtype(op, grad, dt)) return AOTI_TORCH_FAILURE;
    /* PyTorch reduces along the last dim of lengths / offsets (the axis argument aside) */
    int64_t ax = seg->ndim - 1;
    if (ax < 0 || ax >= data->ndim || seg->sizes[ax] - (offs ? 1 : 0) < 0)
        return shimrt_fail(op, "segment_reduce(): %s of shape %lld-d does not fit data" OOB, what,
                           (long long)seg->ndim);
    int64_t nseg = seg->sizes[ax] - (offs ? 1 : 0), outer = 1, inner = 1, dlen = data->sizes[ax];
    for (int64_t d = 0; d < ax; d++) {
        if (seg->sizes[d] != data->sizes[d])
            return shimrt_fail(op,
                               "segment_reduce(): Expected all but the last dimension of %s "
                               "to match data." OOB,
                               what);
        outer *= data->sizes[d];
    }
    for (int64_t d = ax + 1; d < data->ndim; d++) inner *= data->sizes[d];
    /* grad and output: data's shape with nseg along ax (PyTorch reads them so) */
    for (int k = 0; k < 2; k++) {
        AtenTensorHandle t = k ? output : grad;
        bool ok = t->ndim == data->ndim;
        for (int64_t d = 0; ok && d < t->ndim; d++)
            ok = t->sizes[d] == (d == ax ? nseg : data->sizes[d]);
        if (!ok)
            return shimrt_fail(op,
                               "segment_reduce(): %s must have data's shape with %lld "
                               "segments along dim %lld" OOB,
                               k ? "output" : "grad", (long long)nseg, (long long)ax);
    }
    int64_t *sv = shimrt_e_read_i64(op, seg);
    double *dv = sv ? shimrt_e_read_f64(op, data) : NULL;
    double *gv = dv ? shimrt_e_read_f64(op, grad) : NULL;
    double *ov = gv ? shimrt_e_read_f64(op, output) : NULL;
    int64_t n = shimrt_numel(data);
    double *gi = ov ? calloc((size_t)(n ? n : 1), sizeof *gi) : NULL;
    AOTITorchError err = gi ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
    if (ov && !gi) shimrt_fail(op, "out of memory");
    double init_prod = initial ? rnd(dt, initial->d) : 1.0;
    int64_t srow = nseg + (offs ? 1 : 0);
    for (int64_t o = 0; !err && o < outer; o++) {
        int64_t pos = 0;
        for (int64_t s = 0; !err && s < nseg; s++) {
            const int64_t *q = sv + o * srow + s;
            int64_t start = offs ? q[0] : pos, len = offs ? q[1] - q[0] : q[0];
            if (len < 0 || start < 0 || start > dlen || len > dlen - start) {
                err = shimrt_fail(op,
                                  "segment_reduce(): Expected all %s to be non-negative "
                                  "and within data.size(axis)" OOB,
                                  what);
                break;
            }
            pos += len;
            for (int64_t i = 0; len && i < inner; i++) {
                int64_t at = (o * dlen + start) * inner + i, oi = (o * nseg + s) * inner + i;
                seg_grad(r, dt, dv + at, gi + at, len, inner, gv[oi], ov[oi], init_prod);
            }
        }
    }
    free(sv);
    free(dv);
    free(gv);
    free(ov);
    if (err) {
        free(gi);
        return AOTI_TORCH_FAILURE;
    }
    return shimrt_k_give(from_f64(op, data->ndim, data->sizes, dt, gi), ret0);
}

/* ---- _embedding_bag_dense_backward, _embedding_bag_per_sample_weights_backward ---- */

static AOTITorchError grad_floating(const char *op, AtenTensorHandle grad) {
    if (shimrt_k_is_floating(grad->dtype)) return AOTI_TORCH_SUCCESS;
    return shimrt_fail(op,
                       "Expected tensor for argument #1 'grad_' to have one of the following "
                       "scalar types: Half, BFloat16, Float, Double; but got %s instead "
                       "(while checking arguments for embedding_bag)",
                       shimrt_dtype_torch_name(grad->dtype));
}

static AOTITorchError index_dtype(const char *op, AtenTensorHandle t) {
    if (t->dtype == SHIMRT_INT64 || t->dtype == SHIMRT_INT32) return AOTI_TORCH_SUCCESS;
    return shimrt_fail(op, "\"%s\" not implemented for '%s'", op, shimrt_dtype_name(t->dtype));
}

/* y += a * x as PyTorch's cpublas::axpy: BLAS (a fused multiply-add) for float32 / float64,
 * a plain loop in the type's arithmetic for float16 / bfloat16 */
static double axpy1(int32_t dt, double a, double x, double y) {
    if (dt == SHIMRT_FLOAT64) return fma(a, x, y);
    if (dt == SHIMRT_FLOAT32) return fmaf((float)a, (float)x, (float)y);
    return rnd(dt, y + rnd(dt, a * x));
}

/* mode max as PyTorch 2.15's _embedding_bag_dense_backward_cpu_max, which assumes no shapes:
 * rows = nonzero(bag_size).view(-1) (each nonzero element's coordinates; a 0-d bag_size gives
 * none), max_indices and grad index_select'ed by rows, then per column d of grad the selected
 * grad column index_add_'ed at the selected max_indices column d (so the errors are those of
 * index_select, select and index_add_, in that order) */
static AOTITorchError bag_max_backward(const char *op, AtenTensorHandle grad, AtenTensorHandle bsz,
                                       AtenTensorHandle mxi, int64_t R, double *gw) {
    int64_t nb = grad->sizes[0], D = grad->sizes[1], nbs = shimrt_numel(bsz);
    double *bv = shimrt_e_read_f64(op, bsz);
    int64_t *rows = bv ? malloc((size_t)(nbs * bsz->ndim + 1) * sizeof *rows) : NULL, m = 0;
    AOTITorchError err = rows ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
    if (bv && !rows) shimrt_fail(op, "out of memory");
    for (int64_t i = 0; !err && i < nbs; i++) {
        if (bv[i] == 0) continue;
        for (int64_t d = bsz->ndim - 1, r = i; d >= 0; d--) {
            rows[m + d] = r % bsz->sizes[d];
            r /= bsz->sizes[d];
        }
        m += bsz->ndim;
    }
    free(bv);
    /* (PyTorch's nonzero result is column-major: its view(-1) fails for two or more nonzero
     * elements of a bag_size of two or more dims) */
    if (!err && bsz->ndim >= 2 && m >= 2 * bsz->ndim)
        err = shimrt_fail(op, "view size is not compatible with input tensor's size and stride (at "
                              "least one dimension spans across two contiguous subspaces). Use "
                              ".reshape(...) instead.");
    int64_t mrows = mxi->ndim ? mxi->sizes[0] : 1, cols = mxi->ndim > 1 ? mxi->sizes[1] : 0;
    if (!err && mxi->ndim == 0 && m != 1)
        err = shimrt_fail(op,
                          "index_select(): Index to scalar can have only 1 value, got %lld "
                          "value(s)",
                          (long long)m);
    for (int64_t j = 0; !err && j < m; j++) /* max_indices, then grad */
        if (rows[j] >= mrows) err = shimrt_fail(op, "index out of range in self");
    for (int64_t j = 0; !err && j < m; j++)
        if (rows[j] >= nb) err = shimrt_fail(op, "index out of range in self");
    if (!err && D > 0) {
        if (mxi->ndim == 0)
            err = shimrt_fail(op, "select() cannot be applied to a 0-dim tensor.");
        else if (mxi->ndim == 1)
            err = shimrt_fail(op, "Dimension out of range (expected to be in range of [-1, 0], "
                                  "but got 1)");
        else if (cols == 0) {
            int64_t sz[SHIMRT_MAX_DIMS];
            char sh[128];
            memcpy(sz, mxi->sizes, (size_t)mxi->ndim * sizeof *sz);
            sz[0] = m;
            err = shimrt_fail(op,
                              "select(): index 0 out of range for tensor of size %s at "
                              "dimension 1",
                              shimrt_k_fmt_shape(sh, sizeof sh, mxi->ndim, sz));
        } else if (mxi->ndim > 2) {
            int64_t sz[SHIMRT_MAX_DIMS];
            char sh[128];
            memcpy(sz, mxi->sizes, (size_t)mxi->ndim * sizeof *sz);
            sz[0] = m;
            memmove(sz + 1, sz + 2, (size_t)(mxi->ndim - 2) * sizeof *sz);
            err = shimrt_fail(op,
                              "index_add_(): Index is supposed to be a vector, but got dim: %lld "
                              "with type: %s and size: %s",
                              (long long)mxi->ndim - 1, shimrt_dtype_torch_name(mxi->dtype),
                              shimrt_k_fmt_shape(sh, sizeof sh, mxi->ndim - 1, sz));
        } else if (mxi->dtype != SHIMRT_INT64 && mxi->dtype != SHIMRT_INT32)
            err = shimrt_fail(op, "index_add_(): Expected dtype int32/int64 for index but got: %s",
                              shimrt_dtype_torch_name(mxi->dtype));
    }
    double *g = !err && m && D ? shimrt_e_read_f64(op, grad) : NULL;
    int64_t *mi = g ? shimrt_e_read_i64(op, mxi) : NULL;
    if (!err && m && D && !mi) err = AOTI_TORCH_FAILURE;
    for (int64_t d = 0; !err && m && d < D; d++) {
        if (d == cols) {
            int64_t sz[2] = {m, cols};
            char sh[64];
            err = shimrt_fail(op,
                              "select(): index %lld out of range for tensor of size %s at "
                              "dimension 1",
                              (long long)d, shimrt_k_fmt_shape(sh, sizeof sh, 2, sz));
            break;
        }
        for (int64_t j = 0; !err && j < m; j++) /* index_add_ checks every index first */
            if (mi[rows[j] * cols + d] < 0 || mi[rows[j] * cols + d] >= R)
                err = shimrt_fail(op, "index out of range in self");
        for (int64_t j = 0; !err && j < m; j++) {
            int64_t row = mi[rows[j] * cols + d], b = rows[j];
            gw[row * D + d] = rnd(grad->dtype, gw[row * D + d] + g[b * D + d]);
        }
    }
    if (!err && !m && D > cols) { /* (no rows: select still runs for every column) */
        int64_t sz[2] = {0, cols};
        char sh[64];
        err = shimrt_fail(op,
                          "select(): index %lld out of range for tensor of size %s at "
                          "dimension 1",
                          (long long)cols, shimrt_k_fmt_shape(sh, sizeof sh, 2, sz));
    }
    free(rows);
    free(g);
    free(mi);
    return err;
}

/* positions 0..n-1 sorted by key, ties in position order (PyTorch's stable CPU sort) */
static const int64_t *sort_keys;
static int by_key(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    int64_t kx = sort_keys[x], ky = sort_keys[y];
    return kx < ky ? -1 : kx > ky ? 1 : (x > y) - (x < y);
}

/* modes sum and mean: PyTorch's _embedding_bag_dense_backward_cpu_sum_mean */
static AOTITorchError bag_sum_backward(const char *op, AtenTensorHandle grad, AtenTensorHandle ind,
                                       AtenTensorHandle o2b, AtenTensorHandle bsz,
                                       AtenTensorHandle psw, int64_t R, bool by_freq, int64_t mode,
                                       int64_t padding_idx, double *gw) {
    int32_t dt = grad->dtype;
    int64_t N = shimrt_numel(ind), nb = grad->sizes[0], D = grad->sizes[1];
    if (ind->ndim != 1 || shimrt_numel(o2b) < N || (psw && shimrt_numel(psw) < N) ||
        (mode == 1 && bsz->ndim != 1))
        return shimrt_fail(op, "embedding_bag: indices must be 1-d, offset2bag and "
                               "per_sample_weights as long" OOB);
    if (index_dtype("_embedding_bag_dense_backward_cpu_sum_mean", ind) ||
        same_dtype(op, o2b, ind->dtype) || (mode == 1 && same_dtype(op, bsz, ind->dtype)) ||
        (psw && same_dtype(op, psw, dt)))
        return AOTI_TORCH_FAILURE;
    int64_t *iv = shimrt_e_read_i64(op, ind), *ov = iv ? shimrt_e_read_i64(op, o2b) : NULL;
    int64_t *bs = ov && mode == 1 ? shimrt_e_read_i64(op, bsz) : NULL;
    double *pv = ov && psw ? shimrt_e_read_f64(op, psw) : NULL, *g = NULL;
    int64_t *perm = malloc((size_t)(N ? N : 1) * sizeof *perm);
    int64_t *cnt = calloc((size_t)(R ? R : 1), sizeof *cnt);
    AOTITorchError err = AOTI_TORCH_SUCCESS;
    if (!ov || (mode == 1 && !bs) || (psw && !pv) || !(g = shimrt_e_read_f64(op, grad)))
        err = AOTI_TORCH_FAILURE;
    else if (!perm || !cnt)
        err = shimrt_fail(op, "out of memory");
    for (int64_t i = 0; !err && i < N; i++) {
        if (iv[i] < 0 || iv[i] >= R)
            err = shimrt_fail(op, "embedding_bag: index %lld out of range [0, %lld)" OOB,
                              (long long)iv[i], (long long)R);
        else if (ov[i] < 0 || ov[i] >= nb || (mode == 1 && ov[i] >= shimrt_numel(bsz)))
            err = shimrt_fail(op, "embedding_bag: offset2bag %lld out of range [0, %lld)" OOB,
                              (long long)ov[i], (long long)nb);
        else
            cnt[iv[i]]++, perm[i] = i;
    }
    if (!err && N > 1) {
        sort_keys = iv;
        qsort(perm, (size_t)N, sizeof *perm, by_key);
    }
    /* groups of equal indices in sorted order */
    for (int64_t a = 0; !err && a < N;) {
        int64_t index = iv[perm[a]], b = a;
        while (b < N && iv[perm[b]] == index) b++;
        if (index != padding_idx && pv && mode != 0) {
            err = shimrt_fail(op, "mode == EmbeddingBagMode::SUM INTERNAL ASSERT FAILED at "
                                  "\"aten/src/ATen/native/EmbeddingBag.cpp\", please report a "
                                  "bug to PyTorch. ");
            break;
        }
        if (index != padding_idx)
            for (int64_t j = a; j < b; j++) {
                int64_t src = ov[perm[j]];
                double scale = pv ? pv[perm[j]] : 1.0;
                if (by_freq) scale /= (double)cnt[index];
                if (mode == 1 && bs[src] != 0) scale /= (double)bs[src];
                double s = rnd(dt, scale);
                for (int64_t k = 0; k < D; k++)
                    gw[index * D + k] = axpy1(dt, s, g[src * D + k], gw[index * D + k]);
            }
        a = b;
    }
    void *bufs[] = {iv, ov, bs, pv, g, perm, cnt};
    for (size_t k = 0; k < sizeof bufs / sizeof *bufs; k++) free(bufs[k]);
    return err;
}

AOTITorchError shimrt_cpu__embedding_bag_dense_backward(
    AtenTensorHandle grad, AtenTensorHandle indices, AtenTensorHandle offset2bag,
    AtenTensorHandle bag_size, AtenTensorHandle maximum_indices, int64_t num_weights,
    int32_t scale_grad_by_freq, int64_t mode, AtenTensorHandle per_sample_weights,
    int64_t padding_idx, AtenTensorHandle *ret0) {
    static const char op[] = "_embedding_bag_dense_backward";
    if (shimrt_k_check_cpu(op, grad, "grad") || shimrt_k_check_cpu(op, indices, "indices") ||
        shimrt_k_check_cpu(op, offset2bag, "offset2bag") ||
        shimrt_k_check_cpu(op, bag_size, "bag_size") ||
        shimrt_k_check_cpu(op, maximum_indices, "maximum_indices") ||
        (per_sample_weights && shimrt_k_check_cpu(op, per_sample_weights, "per_sample_weights")) ||
        grad_floating(op, grad))
        return AOTI_TORCH_FAILURE;
    if (grad->ndim != 2) return shimrt_fail(op, "embedding_bag: grad must be 2-d" OOB);
    if (mode < 0 || mode > 2)
        return shimrt_fail(op,
                           "mode == EmbeddingBagMode::MEAN || mode == EmbeddingBagMode::SUM "
                           "INTERNAL ASSERT FAILED at \"aten/src/ATen/native/EmbeddingBag.cpp\", "
                           "please report a bug to PyTorch. ");
    if (num_weights < 0) /* (PyTorch's at::zeros of the result) */
        return shimrt_fail(op, "zeros: Dimension size must be non-negative.");
    /* PyTorch 2.15 ignores per_sample_weights in mode max; in mode mean its assert fails only
     * at the first index other than padding_idx (bag_sum_backward) */
    if (mode == 2) per_sample_weights = NULL;
    int64_t sz[2] = {num_weights, grad->sizes[1]}, n = num_weights * grad->sizes[1];
    double *gw = calloc((size_t)(n ? n : 1), sizeof *gw);
    if (!gw) return shimrt_fail(op, "out of memory");
    AOTITorchError err =
        mode == 2 ? bag_max_backward(op, grad, bag_size, maximum_indices, num_weights, gw)
                  : bag_sum_backward(op, grad, indices, offset2bag, bag_size, per_sample_weights,
                                     num_weights, scale_grad_by_freq != 0, mode, padding_idx, gw);
    if (err) {
        free(gw);
        return AOTI_TORCH_FAILURE;
    }
    return shimrt_k_give(from_f64(op, 2, sz, grad->dtype, gw), ret0);
}

AOTITorchError shimrt_cpu__embedding_bag_per_sample_weights_backward(
    AtenTensorHandle grad, AtenTensorHandle weight, AtenTensorHandle indices,
    AtenTensorHandle offsets, AtenTensorHandle offset2bag, int64_t mode, int64_t padding_idx,
    AtenTensorHandle *ret0) {
    static const char op[] = "_embedding_bag_per_sample_weights_backward";
    if (shimrt_k_check_cpu(op, grad, "grad") || shimrt_k_check_cpu(op, weight, "weight") ||
        shimrt_k_check_cpu(op, indices, "indices") || shimrt_k_check_cpu(op, offsets, "offsets") ||
        shimrt_k_check_cpu(op, offset2bag, "offset2bag"))
        return AOTI_TORCH_FAILURE;
    int32_t dt = grad->dtype;
    if (!shimrt_k_is_floating(dt))
        return shimrt_fail(op,
                           "\"_embedding_bag_per_sample_weights_backward_cpu\" not "
                           "implemented for '%s'",
                           shimrt_dtype_name(dt));
    if (mode != 0)
        return shimrt_fail(op, "embedding_bag_backward: per_sample_weights only supported for "
                               "mode='sum'");
    if (grad->ndim != 2 || weight->ndim != 2 || indices->ndim != 1 || offsets->ndim != 1 ||
        weight->sizes[1] != grad->sizes[1])
        return shimrt_fail(op, "embedding_bag_backward: grad and weight must be 2-d with the "
                               "same columns, indices and offsets 1-d" OOB);
    if (index_dtype("_embedding_bag_per_sample_weights_backward_cpu_template", indices) ||
        same_dtype(op, weight, dt))
        return AOTI_TORCH_FAILURE;
    int64_t N = indices->sizes[0], nb = grad->sizes[0], D = grad->sizes[1], R = weight->sizes[0];
    bool make = N != 0 && shimrt_numel(offset2bag) == 0;
    if (!make && (same_dtype(op, offset2bag, indices->dtype) || shimrt_numel(offset2bag) < N))
        return shimrt_numel(offset2bag) < N
                   ? shimrt_fail(op, "embedding_bag_backward: offset2bag shorter than indices" OOB)
                   : AOTI_TORCH_FAILURE;
    int64_t *iv = shimrt_e_read_i64(op, indices),
            *bag = iv ? shimrt_e_read_i64(op, make ? offsets : offset2bag) : NULL;
    double *g = bag ? shimrt_e_read_f64(op, grad) : NULL,
           *w = g ? shimrt_e_read_f64(op, weight) : NULL;
    double *out = w ? calloc((size_t)(N ? N : 1), sizeof *out) : NULL;
    AOTITorchError err = out ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
    if (w && !out) shimrt_fail(op, "out of memory");
    if (!err && make) { /* sample i's bag: the offsets at or before i, less one */
        int64_t no = offsets->sizes[0], *m = calloc((size_t)N + 1, sizeof *m);
        if (!m) err = shimrt_fail(op, "out of memory");
        for (int64_t b = 0; !err && b < no; b++)
            if (bag[b] < 0 || bag[b] > N)
                err = shimrt_fail(op, "embedding_bag_backward: offsets out of range" OOB);
            else
                m[bag[b]]++;
        for (int64_t i = 0, c = -1; !err && i < N; i++) m[i] = c += m[i];
        free(bag);
        bag = m;
    }
    for (int64_t i = 0; !err && i < N; i++) {
        if (iv[i] == padding_idx) continue;
        if (iv[i] < 0 || iv[i] >= R || bag[i] < 0 || bag[i] >= nb) {
            err = shimrt_fail(op,
                              "embedding_bag_backward: sample %lld (index %lld, bag %lld) "
                              "out of range" OOB,
                              (long long)i, (long long)iv[i], (long long)bag[i]);
            break;
        }
        /* PyTorch's dot: BLAS for float32 / float64 (its own summation order: within the
         * type's rounding of this double sum), float for the halves (bit-identical here) */
        double acc = 0;
        if (dt == SHIMRT_FLOAT16 || dt == SHIMRT_BFLOAT16) { /* in float, one term at a time */
            float f = 0;
            for (int64_t k = 0; k < D; k++) f += (float)g[bag[i] * D + k] * (float)w[iv[i] * D + k];
            acc = f;
        } else {
            for (int64_t k = 0; k < D; k++) acc += g[bag[i] * D + k] * w[iv[i] * D + k];
        }
        out[i] = rnd(dt, acc);
    }
    free(iv);
    free(bag);
    free(g);
    free(w);
    if (err) {
        free(out);
        return AOTI_TORCH_FAILURE;
    }
    return shimrt_k_give(from_f64(op, 1, &N, dt, out), ret0);
}

/* ---- _scaled_dot_product_fused_attention_overrideable_backward ---- */

AOTITorchError shimrt_cpu__scaled_dot_product_fused_attention_overrideable_backward(
    AtenTensorHandle grad_out, AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value,
    AtenTensorHandle attn_bias, const int32_t *grad_input_mask, int64_t grad_input_mask_len_,
    AtenTensorHandle out, AtenTensorHandle logsumexp, AtenTensorHandle cum_seq_q,
    AtenTensorHandle cum_seq_k, int64_t max_q, int64_t max_k, double dropout_p, int32_t is_causal,
    AtenTensorHandle philox_seed, AtenTensorHandle philox_offset, double *scale,
    AtenTensorHandle *ret0, AtenTensorHandle *ret1, AtenTensorHandle *ret2,
    AtenTensorHandle *ret3) {
    (void)grad_out, (void)query, (void)key, (void)value, (void)attn_bias, (void)grad_input_mask;
    (void)grad_input_mask_len_, (void)out, (void)logsumexp, (void)cum_seq_q, (void)cum_seq_k;
    (void)max_q, (void)max_k, (void)dropout_p, (void)is_causal, (void)philox_seed;
    (void)philox_offset, (void)scale, (void)ret0, (void)ret1, (void)ret2, (void)ret3;
    return shimrt_fail("_scaled_dot_product_fused_attention_overrideable_backward",
                       "_scaled_dot_product_fused_attention_overrideable_backward not "
                       "implemented: This is an operator for privateuse1 backends, please use "
                       "TORCH_LIBRARY_IMPL to override this function ");
}

/* runtime/cpu/misc.c: smaller c_shim_cpu.h functions that AOTInductor CPU graphs call:
 * mul.Scalar, nonzero, nonzero_static, masked_select, slice.Tensor, hann_window,
 * searchsorted.Tensor / .Scalar, bucketize.Tensor, _fused_rms_norm, repeat_interleave.Tensor,
 * histc, gcd. Plain loops with PyTorch's rules (no library does these better); element
 * values go through long double where only comparisons matter (exact for every int64 and
 * double). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aoti_ops.h"
#include "compositeexplicitautograd_kernels.h"
#include "cpu_kernels.h"
#include "elems.h"
#include "engine.h"
#include "index.h"
#include "../ops/ops_math.h"

/* A dense copy of t in dtype dt with shape sizes (t broadcast to it): a new tensor. */
static AtenTensorHandle dense_as(const char *op, AtenTensorHandle t, int64_t nd,
                                 const int64_t *sizes, int32_t dt) {
    AtenTensorHandle r = shimrt_k_new(op, nd, sizes, dt);
    if (r && sh_copy(op, r, t)) {
        shimrt_tensor_free(r);
        return NULL;
    }
    return r;
}

/* The result type *rt of tensor t (argument arg, on the CPU) and Scalar s, by the Scalar's
 * kind: a C shim's (floating) Scalar gives integral and bool tensors the default dtype
 * (float32), an int one keeps an integral dtype; kname's message when it computes no such
 * dtype. */
static AOTITorchError tensor_scalar_type(const char *op, const char *kname, AtenTensorHandle t,
                                         const char *arg, shimrt_scalar s, int32_t *rt) {
    if (shimrt_k_check_cpu(op, t, arg) || shimrt_k_check_dtype(op, t, arg))
        return AOTI_TORCH_FAILURE;
    *rt = shimrt_k_result_type_of(1, (const struct AtenTensorOpaque *const *)&t, 1, &s);
    if (!shimrt_k_dtype_ok(*rt))
        return shimrt_fail(op, "\"%s\" not implemented for '%s'", kname,
                           shimrt_dtype_torch_name(t->dtype));
    return AOTI_TORCH_SUCCESS;
}

/* The result type *rt of self and tensor b (argument bname), both on the CPU with dtypes the
 * kernels take. */
static AOTITorchError two_tensor_type(const char *op, AtenTensorHandle self, const char *bname,
                                      AtenTensorHandle b, int32_t *rt) {
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, b, bname) ||
        shimrt_k_check_dtype(op, self, "self") || shimrt_k_check_dtype(op, b, bname))
        return AOTI_TORCH_FAILURE;
    const struct AtenTensorOpaque *ts[2] = {self, b};
    *rt = shimrt_k_result_type_of(2, ts, 0, NULL);
    return AOTI_TORCH_SUCCESS;
}

/* r (contiguous, shape shape[0..nd)) moved into TensorIterator's layout over ins[0..2) of
 * common dtype rt (a copy when that layout differs; r is freed then); NULL after a
 * failure (r freed). */
static AtenTensorHandle iter_layout(const char *op, AtenTensorHandle r, const AtenTensorHandle *ins,
                                    int32_t rt, int64_t nd, const int64_t *shape) {
    int64_t ost[SHIMRT_MAX_DIMS];
    const struct AtenTensorOpaque *in2[2] = {ins[0], ins[1]};
    shimrt_k_iter_out_strides(2, in2, false, rt, 0, nd, shape, ost);
    if (!r || !nd || !memcmp(ost, r->strides, (size_t)nd * sizeof *ost)) return r;
    AtenTensorHandle laid = shimrt_tensor_empty(op, nd, shape, ost, r->dtype, SHIMRT_DEV_CPU, -1);
    if (laid && shimrt_k_copy(op, laid, r)) {
        shimrt_tensor_free(laid);
        laid = NULL;
    }
    shimrt_tensor_free(r);
    return laid;
}

/* ---- mul.Scalar ------------------------------------------------------------------------- */
AOTITorchError shimrt_cpu_mul_scalar(AtenTensorHandle self, shimrt_scalar sother,
                                     AtenTensorHandle *ret0) {
    static const char op[] = "mul.Scalar";
    int32_t rt;
    if ((self->defined && sh_dtype_wide(self->dtype)) || sother.kind == SHIMRT_SCALAR_KIND_COMPLEX)
        return sh_mul_scalar_wide(op, self, sother, ret0);
    if (tensor_scalar_type(op, "mul_cpu", self, "self", sother, &rt)) return AOTI_TORCH_FAILURE;
    double other = sother.d;
    int64_t iother = shimrt_scalar_is_integral(sother, true) ? sother.i : shimrt_k_f2i(other);
    int64_t st[SHIMRT_MAX_DIMS]; /* TensorIterator's layout with a wrapped 0-d Scalar */
    shimrt_k_iter_out_strides(1, (const struct AtenTensorOpaque *const *)&self, true, rt, 0,
                              self->ndim, self->sizes, st);
    AtenTensorHandle r =
        shimrt_tensor_empty(op, self->ndim, self->sizes, st, rt, SHIMRT_DEV_CPU, 0);
    if (!r) return AOTI_TORCH_FAILURE;
    if (shimrt_k_copy(op, r, self)) {
        shimrt_tensor_free(r);
        return AOTI_TORCH_FAILURE;
    }
    int64_t n = shimrt_numel(r);
    char *p = shimrt_data(r);
    size_t es = shimrt_dtype_size(rt);
    for (int64_t i = 0; i < n; i++) { /* dense: every element of the span, any order */
        char *e = p + (size_t)i * es;
        if (rt == SHIMRT_FLOAT64)
            shimrt_k_store_f64(e, rt, shimrt_k_load_f64(e, rt) * other);
        else if (shimrt_k_is_floating(rt)) /* opmath float: the scalar is not rounded */
            shimrt_k_store_f64(e, rt, (double)((float)shimrt_k_load_f64(e, rt) * (float)other));
        else if (rt == SHIMRT_BOOL)
            shimrt_k_store_i64(e, rt, shimrt_k_load_i64(e, rt) && other != 0);
        else
            shimrt_k_store_i64(e, rt,
                               (int64_t)((uint64_t)shimrt_k_load_i64(e, rt) * (uint64_t)iother));
    }
    return shimrt_k_give(r, ret0);
}

/* ---- nonzero, nonzero_static, masked_select --------------------------------------------- */
static AOTITorchError nonzero_impl(const char *op, AtenTensorHandle self, int64_t size,
                                   int64_t fill, bool fixed, AtenTensorHandle *ret0) {
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (self->dtype == SHIMRT_COMPLEX64 || self->dtype == SHIMRT_COMPLEX128) {
        /* complex: nonzero where either part is (NaN counts), as self.to(bool) gives */
        AtenTensorHandle b = dense_as(op, self, self->ndim, self->sizes, SHIMRT_BOOL);
        AOTITorchError e = b ? nonzero_impl(op, b, size, fill, fixed, ret0) : AOTI_TORCH_FAILURE;
        shimrt_tensor_free(b);
        return e;
    }
    /* PyTorch's nonzero_count_cpu has no uint16/32/64; a nonzero_static of a 0-d self or of
     * size 0 never runs it */
    bool counted = !fixed || (self->ndim > 0 && size != 0);
    if ((self->dtype == SHIMRT_UINT16 || self->dtype == SHIMRT_UINT32 ||
         self->dtype == SHIMRT_UINT64) &&
        counted)
        return shimrt_fail(op, "\"nonzero_count_cpu\" not implemented for '%s'",
                           shimrt_dtype_torch_name(self->dtype));
    if (counted && shimrt_k_check_dtype(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (fixed && size < 0)
        return shimrt_fail(op, "nonzero_static: 'size' must be an non-negative integer");
    int64_t nd = self->ndim, n = shimrt_numel(self), count = 0, idx[SHIMRT_MAX_DIMS] = {0};
    int64_t *hits = malloc(sizeof *hits * (size_t)(n * (nd ? nd : 1) + 1));
    if (!hits) return shimrt_fail(op, "out of memory");
    if (n > 0) do {
            if (shimrt_idx_load(shimrt_idx_at(self, idx), self->dtype) != 0) {
                memcpy(hits + count * nd, idx, sizeof *idx * (size_t)nd);
                count++;
            }
        } while (nd > 0 && shimrt_idx_next(nd, self->sizes, idx));
    int64_t rows = fixed ? size : count, shape[2] = {rows, nd};
    /* PyTorch's nonzero is column-major (strides [1, rows]); nonzero_static row-major */
    int64_t cm[2] = {1, rows};
    AtenTensorHandle r =
        fixed ? shimrt_k_new(op, 2, shape, SHIMRT_INT64)
              : shimrt_tensor_empty(op, 2, shape, cm, SHIMRT_INT64, SHIMRT_DEV_CPU, -1);
    if (r) {
        int64_t *d = shimrt_data(r), rs = fixed ? nd : 1, cs = fixed ? 1 : rows;
        /* nd == 0: no elements, however many rows (nonzero_static(size=INT64_MAX)) */
        for (int64_t i = 0; nd > 0 && i < rows; i++)
            for (int64_t j = 0; j < nd; j++)
                d[i * rs + j * cs] = i < count ? hits[i * nd + j] : fill;
    }
    free(hits);
    return shimrt_k_give(r, ret0);
}

AOTITorchError shimrt_cpu_nonzero(AtenTensorHandle self, AtenTensorHandle *ret0) {
    return nonzero_impl("nonzero", self, 0, 0, false, ret0);
}

AOTITorchError shimrt_cpu_nonzero_static(AtenTensorHandle self, int64_t size, int64_t fill_value,
                                         AtenTensorHandle *ret0) {
    return nonzero_impl("nonzero_static", self, size, fill_value, true, ret0);
}

AOTITorchError shimrt_cpu_masked_select(AtenTensorHandle self, AtenTensorHandle mask,
                                        AtenTensorHandle *ret0) {
    static const char op[] = "masked_select";
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, mask, "mask") ||
        (!sh_dtype_wide(self->dtype) && shimrt_k_check_dtype(op, self, "self")))
        return AOTI_TORCH_FAILURE; /* complex: moved as any dtype; uint16/32/64: below */
    if (mask->dtype != SHIMRT_BOOL)
        return shimrt_fail(op, "masked_select: expected BoolTensor for mask");
    int64_t shape[SHIMRT_MAX_DIMS], nd;
    if (shimrt_k_broadcast(op, self->ndim, self->sizes, mask->ndim, mask->sizes, shape, &nd))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle s = dense_as(op, self, nd, shape, self->dtype);
    AtenTensorHandle m = s ? dense_as(op, mask, nd, shape, SHIMRT_BOOL) : NULL;
    if (!s || !m) {
        shimrt_tensor_free(s);
        return AOTI_TORCH_FAILURE;
    }
    int64_t n = shimrt_numel(s), count = 0;
    const bool *mp = shimrt_data(m);
    for (int64_t i = 0; i < n; i++) count += mp[i] != 0;
    /* PyTorch's kernel (no uint16/32/64) runs only when the mask selects something */
    if (count > 0 && sh_dtype_wide(self->dtype) && !shimrt_dtype_is_complex(self->dtype)) {
        shimrt_tensor_free(s);
        shimrt_tensor_free(m);
        return shimrt_fail(op, "\"masked_select\" not implemented for '%s'",
                           shimrt_dtype_torch_name(self->dtype));
    }
    AtenTensorHandle r = shimrt_k_new(op, 1, &count, self->dtype);
    if (r) {
        size_t es = shimrt_dtype_size(self->dtype);
        const char *sp = shimrt_data(s);
        char *d = shimrt_data(r);
        for (int64_t i = 0, k = 0; i < n; i++)
            if (mp[i]) memcpy(d + (size_t)(k++) * es, sp + (size_t)i * es, es);
    }
    shimrt_tensor_free(s);
    shimrt_tensor_free(m);
    return shimrt_k_give(r, ret0);
}

/* ---- slice.Tensor (a view, any device) ---------------------------------------------------- */
AOTITorchError shimrt_slice_tensor(AtenTensorHandle self, int64_t dim, int64_t *start, int64_t *end,
                                   int64_t step, AtenTensorHandle *ret0) {
    static const char op[] = "slice.Tensor";
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (self->ndim == 0) return shimrt_fail(op, "slice() cannot be applied to a 0-dim tensor.");
    if (step <= 0) return shimrt_fail(op, "slice step must be positive");
    int64_t d;
    if (shimrt_k_wrap_dim(op, dim, self->ndim, &d)) return AOTI_TORCH_FAILURE;
    int64_t n = self->sizes[d], s = start ? *start : 0, e = end ? *end : n;
    if (s < 0) s += n;
    if (e < 0) e += n;
    s = s < 0 ? 0 : (s > n ? n : s);
    e = e < s ? s : (e > n ? n : e);
    int64_t sizes[SHIMRT_MAX_DIMS], strides[SHIMRT_MAX_DIMS];
    memcpy(sizes, self->sizes, sizeof *sizes * (size_t)self->ndim);
    memcpy(strides, self->strides, sizeof *strides * (size_t)self->ndim);
    /* PyTorch's arithmetic, int64 wrapping as its build does: the length rounded up as
     * (len + step - 1) / step, the stride times step, the offset plus start * stride (start
     * clamped, also for an empty result); as_strided then refuses a negative stride, size or
     * offset (a huge step: a wrapped length or stride) */
    sizes[d] = (int64_t)((uint64_t)(e - s) + (uint64_t)step - 1u) / step;
    strides[d] = (int64_t)((uint64_t)self->strides[d] * (uint64_t)step);
    int64_t off =
        (int64_t)((uint64_t)self->storage_offset + (uint64_t)s * (uint64_t)self->strides[d]);
    if (strides[d] < 0)
        return shimrt_fail(op,
                           "as_strided: Negative strides are not supported at the moment, "
                           "got stride %lld in dim %lld",
                           (long long)strides[d], (long long)d);
    if (sizes[d] < 0)
        return shimrt_fail(op,
                           "Storage size calculation overflowed with size %lld and stride "
                           "%lld in dim %lld",
                           (long long)sizes[d], (long long)strides[d], (long long)d);
    if (off < 0) return shimrt_fail(op, "Tensor: invalid storage offset %lld", (long long)off);
    return shimrt_k_give(shimrt_k_alias(op, self, self->ndim, sizes, strides, off), ret0);
}

/* ---- hann_window ---------------------------------------------------------------------------- */
AOTITorchError shimrt_cpu_hann_window(int64_t window_length, int32_t *dtype, int32_t *layout,
                                      int32_t *device, int32_t device_index_, int32_t *pin_memory,
                                      AtenTensorHandle *ret0) {
    static const char op[] = "hann_window";
    (void)device_index_; /* PyTorch accepts any CPU device index */
    int32_t dt = dtype ? *dtype : SHIMRT_FLOAT32;
    if (window_length < 0)
        return shimrt_fail(op,
                           "hann_window requires non-negative window_length, got "
                           "window_length=%lld",
                           (long long)window_length);
    if (layout && *layout != SHIMRT_LAYOUT_STRIDED)
        return shimrt_fail(op, "hann_window is not implemented for sparse types, got: %d",
                           (int)*layout);
    if (device && *device != SHIMRT_DEV_CPU)
        return shimrt_fail(op, "hann_window: only CPU windows are made here");
    bool cplx = dt == SHIMRT_COMPLEX32 || dt == SHIMRT_COMPLEX64 || dt == SHIMRT_COMPLEX128;
    if (!shimrt_k_is_floating(dt) && !cplx)
        return shimrt_fail(op, "hann_window expects floating point dtypes, got: %s",
                           shimrt_dtype_torch_name(dt));
    /* complex passes PyTorch's check; lengths 0 and 1 are made without arange (empty, ones) */
    if (cplx && window_length > 1)
        return shimrt_fail(op, "\"arange_cpu\" not implemented for '%s'",
                           shimrt_dtype_torch_name(dt));
    if (shimrt_k_check_pin(op, pin_memory)) return AOTI_TORCH_FAILURE; /* at the allocation */
    AtenTensorHandle r = shimrt_k_new(op, 1, &window_length, dt);
    if (!r) return AOTI_TORCH_FAILURE;
    char *p = shimrt_data(r);
    size_t es = shimrt_dtype_size(dt);
    /* periodic: PyTorch's steps, each rounded to dt: arange * (2 pi / length), cos, * -0.5,
     * + 0.5 (float32 arithmetic for float32 and the half types) */
    double step = 2.0 * M_PI / (double)window_length;
    for (int64_t i = 0; i < window_length; i++) {
        char *e = p + (size_t)i * es;
        if (window_length == 1) {
            if (cplx) { /* (1, 0) */
                memset(e, 0, es);
                if (dt == SHIMRT_COMPLEX32)
                    shimrt_k_store_f64(e, SHIMRT_FLOAT16, 1.0);
                else
                    shimrt_k_store_f64(e, dt == SHIMRT_COMPLEX64 ? SHIMRT_FLOAT32 : SHIMRT_FLOAT64,
                                       1.0);
                continue;
            }
            shimrt_k_store_f64(e, dt, 1.0);
            continue;
        }
        if (dt == SHIMRT_FLOAT64) {
            shimrt_k_store_f64(e, dt, cos((double)i * step) * -0.5 + 0.5);
            continue;
        }
        shimrt_k_store_f64(e, dt, (double)((float)i * (float)step));
        shimrt_k_store_f64(e, dt, (double)cosf((float)shimrt_k_load_f64(e, dt)));
        shimrt_k_store_f64(e, dt, (double)((float)shimrt_k_load_f64(e, dt) * -0.5f));
        shimrt_k_store_f64(e, dt, (double)((float)shimrt_k_load_f64(e, dt) + 0.5f));
    }
    return shimrt_k_give(r, ret0);
}

/* ---- searchsorted, bucketize ---------------------------------------------------------------- */
static int64_t bound(const char *seq, int32_t sdt, int64_t sstride, const int64_t *sorter,
                     int64_t sorter_stride, int64_t n, long double v, bool right) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int64_t at = sorter ? sorter[mid * sorter_stride] : mid;
        long double x = shimrt_idx_load(seq + (size_t)(at * sstride) * shimrt_dtype_size(sdt), sdt);
        if (right ? !(x > v) : !(x >= v))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* values: a tensor, or NULL with scalar. */
static AOTITorchError searchsorted_impl(const char *op, AtenTensorHandle seq,
                                        AtenTensorHandle values, double scalar, int32_t out_int32,
                                        int32_t right, const char **side, AtenTensorHandle sorter,
                                        AtenTensorHandle *ret0) {
    /* uint16/32/64 and complex: below, with a tensor of values */
    if (shimrt_k_check_cpu(op, seq, "sorted_sequence") ||
        ((!values || !sh_dtype_wide(seq->dtype)) &&
         shimrt_k_check_dtype(op, seq, "sorted_sequence")) ||
        (values && (shimrt_k_check_cpu(op, values, "self") ||
                    (!sh_dtype_wide(values->dtype) && shimrt_k_check_dtype(op, values, "self")))) ||
        (sorter && shimrt_k_check_cpu(op, sorter, "sorter")))
        return AOTI_TORCH_FAILURE;
    if (side && *side) {
        if (strcmp(*side, "left") && strcmp(*side, "right"))
            return shimrt_fail(op,
                               "torch.searchsorted(): side can only be 'left' or 'right' but "
                               "got %s",
                               *side);
        if (right && !strcmp(*side, "left"))
            return shimrt_fail(op, "torch.searchsorted(): side and right can't be set to "
                                   "opposites, got side of left while right was True");
        right = !strcmp(*side, "right");
    }
    if (seq->ndim == 0)
        return shimrt_fail(op, "torch.searchsorted(): boundaries tensor should have positive "
                               "dimension, but got 0 dimension");
    /* PyTorch's kernel runs on the common dtype of both (a bool sequence with int64 values
     * works; a Scalar is wrapped as a number) and not at all for no values */
    if (values && seq->dtype == SHIMRT_BOOL && values->dtype == SHIMRT_BOOL &&
        shimrt_numel(values) > 0)
        return shimrt_fail(op, "\"searchsorted_out_cpu\" not implemented for 'Bool'");
    int64_t vnd = values ? values->ndim : 0;
    if (seq->ndim > 1) {
        bool ok = values && vnd == seq->ndim;
        for (int64_t i = 0; ok && i < seq->ndim - 1; i++) ok = seq->sizes[i] == values->sizes[i];
        if (!ok)
            return shimrt_fail(op, "torch.searchsorted(): boundaries tensor should be 1 dimension "
                                   "or the first N-1 dimensions of boundaries tensor and input "
                                   "value tensor must match");
    }
    if (sorter) {
        if (sorter->dtype != SHIMRT_INT64)
            return shimrt_fail(op,
                               "torch.searchsorted(): sorter must be a tensor of long dtype "
                               "but got dtype %s",
                               shimrt_dtype_torch_name(sorter->dtype));
        bool same = sorter->ndim == seq->ndim;
        for (int64_t i = 0; same && i < seq->ndim; i++) same = sorter->sizes[i] == seq->sizes[i];
        if (!same)
            return shimrt_fail(op, "torch.searchsorted(): boundary and sorter must have the same "
                                   "size");
    }
    if (values && shimrt_numel(values) > 0 &&
        (sh_dtype_wide(seq->dtype) || sh_dtype_wide(values->dtype) ||
         seq->dtype != values->dtype)) {
        /* PyTorch searches in the common dtype of both (no values: no kernel, no promotion;
         * a 0-d int16 255 beside int8 boundaries is searched as int8 -1); its kernel has no
         * uint16/32/64 or complex */
        const struct AtenTensorOpaque *both[2] = {seq, values};
        int32_t rt = sh_result_type_wide(op, "searchsorted_out_cpu", 2, both, NULL);
        if (rt == -2) return AOTI_TORCH_FAILURE;
        if (sh_dtype_wide(rt)) /* (a 0-d uint beside an int8 boundary tensor searches int8) */
            return shimrt_fail(op, "\"searchsorted_out_cpu\" not implemented for '%s'",
                               shimrt_dtype_torch_name(rt));
        AtenTensorHandle cs = dense_as(op, seq, seq->ndim, seq->sizes, rt);
        AtenTensorHandle cv = cs ? dense_as(op, values, values->ndim, values->sizes, rt) : NULL;
        AOTITorchError err =
            cv ? searchsorted_impl(op, cs, cv, scalar, out_int32, right, NULL, sorter, ret0)
               : AOTI_TORCH_FAILURE;
        shimrt_tensor_free(cs);
        shimrt_tensor_free(cv);
        return err;
    }
    int64_t len = seq->sizes[seq->ndim - 1];
    AtenTensorHandle sq = dense_as(op, seq, seq->ndim, seq->sizes, seq->dtype);
    AtenTensorHandle so =
        sq && sorter ? dense_as(op, sorter, seq->ndim, seq->sizes, SHIMRT_INT64) : NULL;
    AtenTensorHandle vv =
        sq && values ? dense_as(op, values, vnd, values->sizes, values->dtype) : NULL;
    AtenTensorHandle r = sq ? shimrt_k_new(op, vnd, values ? values->sizes : NULL,
                                           out_int32 ? SHIMRT_INT32 : SHIMRT_INT64)
                            : NULL;
    if (!sq || (sorter && !so) || (values && !vv) || !r) {
        shimrt_tensor_free(sq);
        shimrt_tensor_free(so);
        shimrt_tensor_free(vv);
        shimrt_tensor_free(r);
        return AOTI_TORCH_FAILURE;
    }
    const int64_t *sorted_ix = so ? shimrt_data(so) : NULL;
    for (int64_t i = 0; sorted_ix && i < shimrt_numel(so); i++)
        if (sorted_ix[i] < 0 || sorted_ix[i] >= len) {
            shimrt_tensor_free(sq);
            shimrt_tensor_free(so);
            shimrt_tensor_free(vv);
            shimrt_tensor_free(r);
            return shimrt_fail(op, "torch.searchsorted(): sorter index out of range");
        }
    int64_t n = values ? shimrt_numel(vv) : 1, vlast = vnd ? values->sizes[vnd - 1] : 1;
    size_t ves = values ? shimrt_dtype_size(values->dtype) : 0;
    const char *sdata = shimrt_data(sq); /* NULL for an empty sequence (len 0) */
    for (int64_t i = 0; i < n; i++) {
        long double v =
            values ? shimrt_idx_load((const char *)shimrt_data(vv) + (size_t)i * ves, values->dtype)
                   : (long double)scalar;
        int64_t row = seq->ndim > 1 ? i / vlast : 0;
        int64_t b =
            bound(sdata ? sdata + (size_t)(row * len) * shimrt_dtype_size(seq->dtype) : NULL,
                  seq->dtype, 1, sorted_ix ? sorted_ix + row * len : NULL, 1, len, v, right != 0);
        if (out_int32)
            ((int32_t *)shimrt_data(r))[i] = (int32_t)b;
        else
            ((int64_t *)shimrt_data(r))[i] = b;
    }
    shimrt_tensor_free(sq);
    shimrt_tensor_free(so);
    shimrt_tensor_free(vv);
    return shimrt_k_give(r, ret0);
}

AOTITorchError shimrt_cpu_searchsorted_tensor(AtenTensorHandle sorted_sequence,
                                              AtenTensorHandle self, int32_t out_int32,
                                              int32_t right, const char **side,
                                              AtenTensorHandle sorter, AtenTensorHandle *ret0) {
    return searchsorted_impl("searchsorted", sorted_sequence, self, 0, out_int32, right, side,
                             sorter, ret0);
}

AOTITorchError shimrt_cpu_searchsorted_scalar(AtenTensorHandle sorted_sequence, shimrt_scalar self,
                                              int32_t out_int32, int32_t right, const char **side,
                                              AtenTensorHandle sorter, AtenTensorHandle *ret0) {
    if (shimrt_k_check_cpu("searchsorted", sorted_sequence, "sorted_sequence"))
        return AOTI_TORCH_FAILURE;
    if (sorted_sequence->ndim > 1)
        return shimrt_fail("searchsorted",
                           "torch.searchsorted(): input value can be a scalar "
                           "only when boundaries tensor dimension is 1, but we "
                           "got boundaries tensor dim(%lld)",
                           (long long)sorted_sequence->ndim);
    if (sh_dtype_wide(sorted_sequence->dtype) && sorted_sequence->ndim > 0) {
        /* PyTorch searches in the common dtype of the sequence and the wrapped Scalar (a
         * floating Scalar with uint16/32/64: float32); its kernel has no uint16/32/64 or
         * complex */
        static const char op[] = "searchsorted";
        int32_t rt =
            sh_result_type_wide(op, "searchsorted_out_cpu", 1,
                                (const struct AtenTensorOpaque *const *)&sorted_sequence, &self);
        if (rt == -2) return AOTI_TORCH_FAILURE;
        if (!shimrt_k_is_floating(rt))
            return shimrt_fail(op, "\"searchsorted_out_cpu\" not implemented for '%s'",
                               shimrt_dtype_torch_name(rt));
        double v = shimrt_scalar_is_integral(self, true) ? (double)self.i : self.d;
        _Alignas(8) char b[8];
        shimrt_dtype_convert(b, rt, &v, SHIMRT_FLOAT64); /* the Scalar in rt */
        shimrt_dtype_convert(&v, SHIMRT_FLOAT64, b, rt);
        AtenTensorHandle cs =
            dense_as(op, sorted_sequence, sorted_sequence->ndim, sorted_sequence->sizes, rt);
        AOTITorchError err =
            cs ? searchsorted_impl(op, cs, NULL, v, out_int32, right, side, sorter, ret0)
               : AOTI_TORCH_FAILURE;
        shimrt_tensor_free(cs);
        return err;
    }
    return searchsorted_impl("searchsorted", sorted_sequence, NULL, self.d, out_int32, right, side,
                             sorter, ret0);
}

AOTITorchError shimrt_cpu_bucketize_tensor(AtenTensorHandle self, AtenTensorHandle boundaries,
                                           int32_t out_int32, int32_t right,
                                           AtenTensorHandle *ret0) {
    if (shimrt_k_check_cpu("bucketize", boundaries, "boundaries")) return AOTI_TORCH_FAILURE;
    if (boundaries->ndim != 1)
        return shimrt_fail("bucketize", "boundaries tensor must be 1 dimension, but got dim(%lld)",
                           (long long)boundaries->ndim);
    return searchsorted_impl("bucketize", boundaries, self, 0, out_int32, right, NULL, NULL, ret0);
}

/* ---- _fused_rms_norm ------------------------------------------------------------------------
 * PyTorch's CPU _fused_rms_norm is its composite rms_norm (rms_norm_composite), op by op:
 * no shape checks of its own: normalized_shape gives only the number of trailing dims to
 * reduce (dims d-1, d-2, ..., none: all), the weight multiplies with broadcasting and type
 * promotion. x = input.to(opmath) (float for the half types), rstd = rsqrt(mean(x^2, dims,
 * keepdim) + eps) (eps a float for float/complex64, the compute type's epsilon by default),
 * out = (x * rstd) [* weight], both made contiguous unless input suggests a channels-last
 * format, out converted to the input's dtype (type_as). */
static AOTITorchError rms_norm_composite(const char *op, AtenTensorHandle input, int64_t nn,
                                         AtenTensorHandle weight, double *eps,
                                         AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    int32_t dt = input->dtype;
    bool cplx = dt == SHIMRT_COMPLEX64 || dt == SHIMRT_COMPLEX128;
    bool dbl = dt == SHIMRT_FLOAT64 || dt == SHIMRT_COMPLEX128;
    int32_t acc = cplx || dbl ? dt : SHIMRT_FLOAT32;
    double e = eps ? *eps : (dbl ? 2.220446049250313e-16 : 1.1920928955078125e-07);
    if (!dbl) e = (float)e;
    int64_t nd = input->ndim, rdims[SHIMRT_MAX_DIMS];
    for (int64_t i = 0; i < nn; i++) rdims[i] = nd - i - 1;
    bool keep_layout = nd >= 4 && nd <= 5 && shimrt_k_strides_like_cl(input);
    shimrt_scalar two = {.kind = SHIMRT_SCALAR_KIND_INT, .d = 2, .i = 2};
    shimrt_scalar es = {.kind = SHIMRT_SCALAR_KIND_FLOAT, .d = e};
    shimrt_scalar one = {.kind = SHIMRT_SCALAR_KIND_INT, .d = 1, .i = 1};
    AtenTensorHandle x = NULL, sq = NULL, ms = NULL, ma = NULL, rs = NULL, p = NULL, pw = NULL,
                     pc = NULL, out = NULL, rc = NULL;
    AOTITorchError err = AOTI_TORCH_FAILURE;
    if (shimrt_k_to(op, input, acc, input->device_type, true, false, SHIMRT_MEMORY_FORMAT_PRESERVE,
                    &x))
        goto done;
    /* pow(x, 2) is x * x in PyTorch's kernel (complex pow is not in the engine: the same) */
    if ((cplx ? shimrt_cpu_mul_tensor(x, x, &sq) : shimrt_cpu_pow_tensor_scalar(x, two, &sq)) ||
        shimrt_cpu_mean_dim(sq, rdims, nn, 1, NULL, &ms) ||
        shimrt_cpu_add_scalar(ms, es, one, &ma) || shimrt_cpu_rsqrt(ma, &rs) ||
        shimrt_cpu_mul_tensor(x, rs, &p) || (weight && shimrt_cpu_mul_tensor(p, weight, &pw)))
        goto done;
    AtenTensorHandle r = weight ? pw : p;
    if (keep_layout) {
        if (shimrt_k_to(op, r, dt, r->device_type, true, false, SHIMRT_MEMORY_FORMAT_PRESERVE,
                        &out))
            goto done;
    } else if (shimrt_cpu_contiguous(r, SHIMRT_MEMORY_FORMAT_CONTIGUOUS, &pc) ||
               shimrt_k_to(op, pc, dt, pc->device_type, true, false, SHIMRT_MEMORY_FORMAT_PRESERVE,
                           &out))
        goto done;
    if (keep_layout) {
        rc = rs;
        rs = NULL;
    } else if (shimrt_cpu_contiguous(rs, SHIMRT_MEMORY_FORMAT_CONTIGUOUS, &rc))
        goto done;
    *ret0 = out;
    *ret1 = rc;
    out = rc = NULL;
    err = AOTI_TORCH_SUCCESS;
done:
    shimrt_tensor_free(x);
    shimrt_tensor_free(sq);
    shimrt_tensor_free(ms);
    shimrt_tensor_free(ma);
    shimrt_tensor_free(rs);
    shimrt_tensor_free(p);
    shimrt_tensor_free(pw);
    shimrt_tensor_free(pc);
    shimrt_tensor_free(out);
    shimrt_tensor_free(rc);
    return err;
}

AOTITorchError shimrt_cpu__fused_rms_norm(AtenTensorHandle input, const int64_t *normalized_shape,
                                          int64_t normalized_shape_len_, AtenTensorHandle weight,
                                          double *eps, AtenTensorHandle *ret0,
                                          AtenTensorHandle *ret1) {
    static const char op[] = "_fused_rms_norm";
    if (shimrt_k_check_cpu(op, input, "input") ||
        (weight && shimrt_k_check_cpu(op, weight, "weight")))
        return AOTI_TORCH_FAILURE;
    int32_t dt = input->dtype;
    bool cplx = dt == SHIMRT_COMPLEX64 || dt == SHIMRT_COMPLEX128;
    if (!shimrt_k_is_floating(dt) && !cplx)
        return shimrt_fail(op, "\"rms_norm\" not implemented for '%s'",
                           shimrt_dtype_torch_name(dt));
    (void)normalized_shape; /* only its length counts (the trailing dims reduced) */
    return rms_norm_composite(op, input, normalized_shape_len_, weight, eps, ret0, ret1);
}

/* ---- repeat_interleave.Tensor --------------------------------------------------------------- */
AOTITorchError shimrt_cpu_repeat_interleave_tensor(AtenTensorHandle repeats, int64_t *output_size,
                                                   AtenTensorHandle *ret0) {
    static const char op[] = "repeat_interleave";
    if (shimrt_k_check_cpu(op, repeats, "repeats")) return AOTI_TORCH_FAILURE;
    /* PyTorch 2.15's kernel: any of its integral types (the result has the repeats' dtype),
     * checked before the rank */
    int32_t rdt = repeats->dtype;
    if (rdt != SHIMRT_UINT8 && rdt != SHIMRT_INT8 && rdt != SHIMRT_INT16 && rdt != SHIMRT_INT32 &&
        rdt != SHIMRT_INT64)
        return shimrt_fail(op, "\"repeat_interleave_cpu\" not implemented for '%s'",
                           shimrt_dtype_torch_name(rdt));
    if (repeats->ndim != 1)
        return shimrt_fail(op, "repeat_interleave only accept 1D vector as repeat");
    int64_t n = repeats->sizes[0], total = 0;
    AtenTensorHandle rp = dense_as(op, repeats, 1, &n, SHIMRT_INT64);
    if (!rp) return AOTI_TORCH_FAILURE;
    const int64_t *v = shimrt_data(rp);
    for (int64_t i = 0; i < n; i++) {
        if (v[i] < 0) {
            shimrt_tensor_free(rp);
            return shimrt_fail(op, "repeats can not be negative");
        }
        total += v[i];
    }
    if (output_size && *output_size != total && n > 0) {
        shimrt_tensor_free(rp);
        return shimrt_fail(op, "allocated size does not match required size");
    }
    AtenTensorHandle r = shimrt_k_new(op, 1, &total, repeats->dtype);
    if (r)
        for (int64_t i = 0, k = 0; i < n; i++)
            for (int64_t j = 0; j < v[i]; j++, k++)
                shimrt_k_store_i64((char *)shimrt_data(r) + (size_t)k * shimrt_dtype_size(r->dtype),
                                   r->dtype, i);
    shimrt_tensor_free(rp);
    return shimrt_k_give(r, ret0);
}

/* ---- histc ------------------------------------------------------------------------------------ */
/* v rounded to floating dtype dt */
static double histc_round(int32_t dt, double v) {
    if (dt == SHIMRT_FLOAT64) return v;
    if (dt == SHIMRT_FLOAT32) return (double)(float)v;
    _Alignas(8) char b[8];
    shimrt_k_store_f64(b, dt, v);
    return shimrt_k_load_f64(b, dt);
}

AOTITorchError shimrt_cpu_histc(AtenTensorHandle self, int64_t bins, shimrt_scalar smin,
                                shimrt_scalar smax, AtenTensorHandle *ret0) {
    double min = smin.d, max = smax.d;
    static const char op[] = "histc";
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (!shimrt_k_is_floating(self->dtype))
        return shimrt_fail(op, "\"histogram_cpu\" not implemented for '%s'",
                           shimrt_dtype_torch_name(self->dtype));
    if (bins <= 0)
        return shimrt_fail(op, "torch.histc(): bins must be > 0, but got %lld for dimension 0",
                           (long long)bins);
    int64_t n = shimrt_numel(self);
    AtenTensorHandle x = dense_as(op, self, self->ndim, self->sizes, SHIMRT_FLOAT64);
    if (!x) return AOTI_TORCH_FAILURE;
    const double *xp = shimrt_data(x);
    double lo = min, hi = max;
    if (lo == hi && n > 0) {
        lo = INFINITY;
        hi = -INFINITY;
        for (int64_t i = 0; i < n; i++) { /* PyTorch's aminmax: NaN propagates */
            lo = isnan(xp[i]) || xp[i] < lo ? xp[i] : lo;
            hi = isnan(xp[i]) || xp[i] > hi ? xp[i] : hi;
            if (isnan(xp[i])) break;
        }
    }
    if (lo == hi) {
        lo -= 1;
        hi += 1;
    }
    if (!isfinite(lo) || !isfinite(hi)) {
        shimrt_tensor_free(x);
        return shimrt_fail(op, "torch.histc: range of [%g, %g] is not finite", lo, hi);
    }
    if (lo > hi) {
        shimrt_tensor_free(x);
        return shimrt_fail(op, "torch.histc: max must be larger than min");
    }
    /* PyTorch's linspace of the bin edges converts them to self's dtype, checked */
    if (shimrt_k_scalar_fits(op, shimrt_scalar_double(lo), self->dtype, false) ||
        shimrt_k_scalar_fits(op, shimrt_scalar_double(hi), self->dtype, false)) {
        shimrt_tensor_free(x);
        return AOTI_TORCH_FAILURE;
    }
    /* the bounds in self's dtype, as PyTorch keeps them */
    AtenTensorHandle r = shimrt_k_new(op, 1, &bins, self->dtype);
    double *cnt = calloc((size_t)bins, sizeof *cnt);
    if (!r || !cnt) {
        shimrt_tensor_free(x);
        shimrt_tensor_free(r);
        free(cnt);
        return r ? shimrt_fail(op, "out of memory") : AOTI_TORCH_FAILURE;
    }
    /* PyTorch's linear bin search in self's dtype: the edges and every step
     * ((v - lo) * bins / (hi - lo)) rounded to it (float32 arithmetic for float32, each
     * operator's result rounded for the half types) */
    int32_t dt = self->dtype;
    double el = histc_round(dt, lo), er = histc_round(dt, hi);
    for (int64_t i = 0; i < n; i++) {
        double v = xp[i], t;
        if (!(v >= el && v <= er)) continue;
        if (dt == SHIMRT_FLOAT64)
            t = (v - el) * (double)bins / (er - el);
        else if (dt == SHIMRT_FLOAT32)
            t = (double)(((float)v - (float)el) * (float)bins / ((float)er - (float)el));
        else
            t = histc_round(
                dt, histc_round(dt, histc_round(dt, v - el) * histc_round(dt, (double)bins)) /
                        histc_round(dt, er - el));
        /* converted to int64 as x86 does: a NaN or out-of-range guess is INT64_MIN, whose
         * element offset into PyTorch's counts wraps to bin 0; the top edge belongs to the
         * last bin */
        int64_t b = t >= -0x1p63 && t < 0x1p63 ? (int64_t)t : 0;
        if (b >= bins) b = bins - 1;
        if (b < 0) b = 0;
        cnt[b] += 1;
    }
    size_t es = shimrt_dtype_size(self->dtype);
    for (int64_t b = 0; b < bins; b++)
        shimrt_k_store_f64((char *)shimrt_data(r) + (size_t)b * es, self->dtype, cnt[b]);
    free(cnt);
    shimrt_tensor_free(x);
    return shimrt_k_give(r, ret0);
}

/* ---- gcd ---------------------------------------------------------------------------------------- */
/* v (any integer) as a value of the integer dtype dt, wrapping */
static int64_t gcd_wrap(uint64_t u, int32_t dt) {
    switch (dt) {
    case SHIMRT_INT8: return (int8_t)(uint8_t)u;
    case SHIMRT_INT16: return (int16_t)(uint16_t)u;
    case SHIMRT_INT32: return (int32_t)(uint32_t)u;
    case SHIMRT_UINT8: return (uint8_t)u;
    default: return (int64_t)u;
    }
}
/* abs(v) as C++ computes it for v converted to the integer dtype dt (TensorIterator's cast
 * to the common dtype: INT64_MAX into int8 is -1, whose abs is 1) and stored back into dt:
 * wrapping (|INT64_MIN| is INT64_MIN, |-128| in int8 is -128). */
static int64_t gcd_abs(int64_t v, int32_t dt) {
    v = gcd_wrap((uint64_t)v, dt);
    return gcd_wrap(v < 0 ? 0 - (uint64_t)v : (uint64_t)v, dt);
}
AOTITorchError shimrt_cpu_gcd(AtenTensorHandle self, AtenTensorHandle other,
                              AtenTensorHandle *ret0) {
    static const char op[] = "gcd";
    /* the operands may have any dtype (a uint64 0-d other of an int64 self: int64); the
     * result type must be one of the kernel's */
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, other, "other"))
        return AOTI_TORCH_FAILURE;
    const struct AtenTensorOpaque *ts[2] = {self, other};
    int32_t rt = shimrt_k_result_type_of(2, ts, 0, NULL);
    if (!shimrt_k_is_integral(rt))
        return shimrt_fail(op, "\"gcd_cpu\" not implemented for '%s'", shimrt_dtype_torch_name(rt));
    int64_t shape[SHIMRT_MAX_DIMS], nd;
    if (shimrt_k_broadcast(op, self->ndim, self->sizes, other->ndim, other->sizes, shape, &nd))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle a = dense_as(op, self, nd, shape, SHIMRT_INT64);
    AtenTensorHandle b = a ? dense_as(op, other, nd, shape, SHIMRT_INT64) : NULL;
    AtenTensorHandle r = b ? shimrt_k_new(op, nd, shape, rt) : NULL;
    if (r) {
        const int64_t *ap = shimrt_data(a), *bp = shimrt_data(b);
        size_t es = shimrt_dtype_size(rt);
        for (int64_t i = 0, n = shimrt_numel(r); i < n; i++) {
            /* PyTorch's calc_gcd in the result type T: a = abs(a), b = abs(b) converted back
             * to T (so INT64_MIN, or -128 in int8, stays negative), then while (a != 0)
             * { c = a; a = b % a; b = c; } and b is the result (negative when a remainder
             * went negative: gcd(5, INT64_MIN) is -1) */
            int64_t x = gcd_abs(ap[i], rt), y = gcd_abs(bp[i], rt);
            while (x != 0) {
                int64_t c = x;
                x = x == -1 ? 0 : y % x; /* INT64_MIN % -1 traps */
                y = c;
            }
            shimrt_k_store_i64((char *)shimrt_data(r) + (size_t)i * es, rt, y);
        }
    }
    shimrt_tensor_free(a);
    shimrt_tensor_free(b);
    AtenTensorHandle ins[2] = {self, other}; /* TensorIterator's layout */
    return shimrt_k_give(iter_layout(op, r, ins, rt, nd, shape), ret0);
}

/* ---- _embedding_bag, _embedding_bag_forward_only ---------------------------------------------- */
/* mode 0 sum, 1 mean, 2 max over bags [offsets[b], offsets[b + 1]) of weight's rows (the last
 * bag runs to the end of indices; with include_last_offset the last offset ends it); rows equal to
 * padding_idx are skipped. The auxiliary results as PyTorch's CPU kernel makes them:
 * offset2bag (empty for sum), bag_size (zeros for sum) and max_indices (bag_size, or for max
 * the row each maximum came from). */
static AOTITorchError embedding_bag(const char *op, AtenTensorHandle weight,
                                    AtenTensorHandle indices, AtenTensorHandle offsets,
                                    int64_t mode, AtenTensorHandle per_sample_weights,
                                    int32_t include_last_offset, int64_t padding_idx,
                                    AtenTensorHandle *ret0, AtenTensorHandle *ret1,
                                    AtenTensorHandle *ret2, AtenTensorHandle *ret3) {
    if (shimrt_k_check_cpu(op, weight, "weight") || shimrt_k_check_cpu(op, indices, "indices") ||
        shimrt_k_check_cpu(op, offsets, "offsets") ||
        (per_sample_weights && shimrt_k_check_cpu(op, per_sample_weights, "per_sample_weights")))
        return AOTI_TORCH_FAILURE;
    if (indices->dtype != SHIMRT_INT64 && indices->dtype != SHIMRT_INT32)
        return shimrt_fail(op, "Expected tensor for argument #1 'indices' to have one of the "
                               "following scalar types: Long, Int");
    if (offsets->dtype != SHIMRT_INT64 && offsets->dtype != SHIMRT_INT32)
        return shimrt_fail(op, "Expected tensor for argument #1 'offsets' to have one of the "
                               "following scalar types: Long, Int");
    if (weight->ndim != 2) return shimrt_fail(op, "weight has to be a 2D Tensor");
    if (indices->ndim != 1) return shimrt_fail(op, "input has to be a 1D or 2D Tensor");
    if (offsets->ndim != 1) return shimrt_fail(op, "offsets has to be a 1D Tensor");
    if (mode < 0 || mode > 2) return shimrt_fail(op, "mode has to be one of sum, mean or max");
    if (!shimrt_k_is_floating(weight->dtype))
        return shimrt_fail(op, "\"embedding_bag_cpu\" not implemented for '%s'",
                           shimrt_dtype_torch_name(weight->dtype));
    if (per_sample_weights && mode != 0)
        return shimrt_fail(op,
                           "embedding_bag: per_sample_weights was not None. "
                           "per_sample_weights is only supported for mode='sum' (got "
                           "mode='%s'). Please open a feature request on GitHub.",
                           mode == 1 ? "mean" : "max");
    int64_t N = indices->sizes[0], nb = offsets->sizes[0] - (include_last_offset ? 1 : 0);
    if (nb < 0) nb = 0;
    int64_t R = weight->sizes[0], D = weight->sizes[1];
    if (per_sample_weights && (per_sample_weights->ndim != 1 || per_sample_weights->sizes[0] != N ||
                               per_sample_weights->dtype != weight->dtype))
        return shimrt_fail(op, "expected per_sample_weights to be 1-D, of the same size as "
                               "indices and of weight's dtype");
    if (padding_idx < -1 || padding_idx >= R)
        padding_idx = padding_idx < 0 ? padding_idx + R : padding_idx;
    int64_t n1 = N, no = offsets->sizes[0], wsz[2] = {R, D};
    AtenTensorHandle ix = dense_as(op, indices, 1, &n1, SHIMRT_INT64);
    AtenTensorHandle of = ix ? dense_as(op, offsets, 1, &no, SHIMRT_INT64) : NULL;
    AtenTensorHandle w = of ? dense_as(op, weight, 2, wsz, SHIMRT_FLOAT64) : NULL;
    AtenTensorHandle ps =
        w && per_sample_weights ? dense_as(op, per_sample_weights, 1, &n1, SHIMRT_FLOAT64) : NULL;
    int64_t osz[2] = {nb, D}, o2b_n = mode == 0 ? 0 : N;
    AtenTensorHandle out = w ? shimrt_k_new(op, 2, osz, weight->dtype) : NULL;
    AtenTensorHandle o2b = out ? shimrt_k_new(op, 1, &o2b_n, SHIMRT_INT64) : NULL;
    AtenTensorHandle bsz = o2b ? shimrt_k_new(op, 1, &nb, SHIMRT_INT64) : NULL;
    AtenTensorHandle mxi = bsz ? shimrt_k_new(op, mode == 2 ? 2 : 1, osz, SHIMRT_INT64) : NULL;
    /* (the auxiliary results serve the backward only; results in indices' dtype below) */
    AOTITorchError err =
        !mxi || (per_sample_weights && !ps) ? AOTI_TORCH_FAILURE : AOTI_TORCH_SUCCESS;
    const int64_t *iv = ix ? shimrt_data(ix) : NULL, *ov = of ? shimrt_data(of) : NULL;
    for (int64_t i = 0; !err && i < N; i++)
        if (iv[i] < 0 || iv[i] >= R)
            err = shimrt_fail(op, "Index %lld is out of bounds: %lld, range 0 to %lld",
                              (long long)i, (long long)iv[i], (long long)R);
    if (!err && no > 0 && ov[0] != 0)
        err = shimrt_fail(op,
                          "offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                          "has to start from position 0. However, got %lld",
                          (long long)ov[0]);
    for (int64_t b = 0; !err && b < no; b++)
        if (ov[b] < 0 || ov[b] > N || (b > 0 && ov[b] < ov[b - 1]))
            err = shimrt_fail(op, "offsets must be non-decreasing and within the indices");
    if (!err) {
        const double *wv = shimrt_data(w), *pv = ps ? shimrt_data(ps) : NULL;
        int64_t *o2bv = shimrt_data(o2b), *bs = shimrt_data(bsz), *mi = shimrt_data(mxi);
        double *acc = malloc(sizeof *acc * (size_t)(D ? D : 1));
        size_t es = shimrt_dtype_size(weight->dtype);
        if (!acc) err = shimrt_fail(op, "out of memory");
        for (int64_t b = 0; !err && b < nb; b++) {
            int64_t s = ov[b], e = b + 1 < no ? ov[b + 1] : N;
            int64_t cnt = 0;
            for (int64_t j = 0; j < D; j++) {
                acc[j] = 0;
                if (mode == 2) mi[b * D + j] = -1;
            }
            for (int64_t i = s; i < e; i++) {
                if (mode != 0) o2bv[i] = b;
                if (iv[i] == padding_idx) continue;
                cnt++;
                for (int64_t j = 0; j < D; j++) {
                    double x = wv[iv[i] * D + j];
                    if (mode == 2) {
                        if (cnt == 1 || x > acc[j]) {
                            acc[j] = x;
                            mi[b * D + j] = iv[i];
                        }
                    } else {
                        acc[j] += pv ? x * pv[i] : x;
                    }
                }
            }
            bs[b] = mode == 0 ? 0 : cnt;
            if (mode == 1) mi[b] = cnt;
            if (mode == 0) mi[b] = 0;
            for (int64_t j = 0; j < D; j++)
                shimrt_k_store_f64((char *)shimrt_data(out) + (size_t)(b * D + j) * es,
                                   weight->dtype,
                                   mode == 1 ? (cnt ? acc[j] / (double)cnt : 0.0) : acc[j]);
        }
        free(acc);
    }
    shimrt_tensor_free(ix);
    shimrt_tensor_free(of);
    shimrt_tensor_free(w);
    shimrt_tensor_free(ps);
    if (err) {
        shimrt_tensor_free(out);
        shimrt_tensor_free(o2b);
        shimrt_tensor_free(bsz);
        shimrt_tensor_free(mxi);
        return AOTI_TORCH_FAILURE;
    }
    *ret0 = out;
    *ret1 = o2b;
    *ret2 = bsz;
    *ret3 = mxi;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu__embedding_bag(AtenTensorHandle weight, AtenTensorHandle indices,
                                         AtenTensorHandle offsets, int32_t scale_grad_by_freq,
                                         int64_t mode, int32_t sparse,
                                         AtenTensorHandle per_sample_weights,
                                         int32_t include_last_offset, int64_t padding_idx,
                                         AtenTensorHandle *ret0, AtenTensorHandle *ret1,
                                         AtenTensorHandle *ret2, AtenTensorHandle *ret3) {
    (void)scale_grad_by_freq; /* gradients only */
    (void)sparse;
    return embedding_bag("_embedding_bag", weight, indices, offsets, mode, per_sample_weights,
                         include_last_offset, padding_idx, ret0, ret1, ret2, ret3);
}

AOTITorchError shimrt_cpu__embedding_bag_forward_only(
    AtenTensorHandle weight, AtenTensorHandle indices, AtenTensorHandle offsets,
    int32_t scale_grad_by_freq, int64_t mode, int32_t sparse, AtenTensorHandle per_sample_weights,
    int32_t include_last_offset, int64_t padding_idx, AtenTensorHandle *ret0,
    AtenTensorHandle *ret1, AtenTensorHandle *ret2, AtenTensorHandle *ret3) {
    (void)scale_grad_by_freq;
    (void)sparse;
    return embedding_bag("_embedding_bag_forward_only", weight, indices, offsets, mode,
                         per_sample_weights, include_last_offset, padding_idx, ret0, ret1, ret2,
                         ret3);
}

/* ---- pow.Tensor_Tensor, pow.Scalar -------------------------------------------------------- */
/* result = a ** b elementwise, a and b dense and of the result's shape, in dtype rt. */
static void pow_fill(AtenTensorHandle r, const char *a, const char *b) {
    int32_t rt = r->dtype;
    size_t es = shimrt_dtype_size(rt);
    char *d = shimrt_data(r);
    for (int64_t i = 0, n = shimrt_numel(r); i < n; i++) {
        const char *x = a + (size_t)i * es, *y = b + (size_t)i * es;
        if (rt == SHIMRT_FLOAT64)
            shimrt_k_store_f64(d + (size_t)i * es, rt,
                               pow(shimrt_k_load_f64(x, rt), shimrt_k_load_f64(y, rt)));
        else if (shimrt_k_is_floating(rt))
            shimrt_k_store_f64(
                d + (size_t)i * es, rt,
                (double)powf((float)shimrt_k_load_f64(x, rt), (float)shimrt_k_load_f64(y, rt)));
        else
            shimrt_k_store_i64(d + (size_t)i * es, rt,
                               sh_powi_(shimrt_k_load_i64(x, rt), shimrt_k_load_i64(y, rt)));
    }
}

/* iter_layout: the result in TensorIterator's layout (pow.Tensor_Tensor), else contiguous
 * (pow.Scalar's meta) */
static AOTITorchError pow_common(const char *op, AtenTensorHandle self, AtenTensorHandle exponent,
                                 int32_t rt, bool iter_layout_, AtenTensorHandle *ret0) {
    if (rt == SHIMRT_BOOL) return shimrt_fail(op, "\"pow\" not implemented for 'Bool'");
    int64_t shape[SHIMRT_MAX_DIMS], nd;
    if (shimrt_k_broadcast(op, self->ndim, self->sizes, exponent->ndim, exponent->sizes, shape,
                           &nd))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle a = dense_as(op, self, nd, shape, rt);
    AtenTensorHandle b = a ? dense_as(op, exponent, nd, shape, rt) : NULL;
    AtenTensorHandle r = b ? shimrt_k_new(op, nd, shape, rt) : NULL;
    AOTITorchError err = r ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
    /* (integer tensors to negative tensor powers follow sh_powi_, as PyTorch's) */
    if (!err) pow_fill(r, shimrt_data(a), shimrt_data(b));
    shimrt_tensor_free(a);
    shimrt_tensor_free(b);
    if (!err && iter_layout_) { /* the result in TensorIterator's layout */
        AtenTensorHandle ins[2] = {self, exponent};
        r = iter_layout(op, r, ins, rt, nd, shape);
        if (!r) err = AOTI_TORCH_FAILURE;
    }
    return shimrt_k_hand_out(err, r, ret0);
}

AOTITorchError shimrt_cpu_pow_tensor_tensor(AtenTensorHandle self, AtenTensorHandle exponent,
                                            AtenTensorHandle *ret0) {
    static const char op[] = "pow.Tensor_Tensor";
    int32_t rt;
    if (!shimrt_k_check_cpu(op, self, "self") && !shimrt_k_check_cpu(op, exponent, "exponent") &&
        (sh_dtype_wide(self->dtype) || sh_dtype_wide(exponent->dtype))) {
        const struct AtenTensorOpaque *ts[2] = {self, exponent};
        if ((rt = sh_result_type_wide(op, "pow", 2, ts, NULL)) == -2) return AOTI_TORCH_FAILURE;
        if (shimrt_dtype_is_complex(rt)) return sh_pow_complex(op, self, exponent, rt, NULL, ret0);
        if (sh_dtype_wide(rt)) /* PyTorch's integral pow has no uint16/32/64 */
            return shimrt_fail(op, "\"pow\" not implemented for '%s'", shimrt_dtype_torch_name(rt));
        return pow_common(op, self, exponent, rt, true, ret0);
    }
    if (two_tensor_type(op, self, "exponent", exponent, &rt)) return AOTI_TORCH_FAILURE;
    return pow_common(op, self, exponent, rt, true, ret0);
}

/* pow.Scalar of a uint16/32/64 or complex exponent, or a complex base: PyTorch's
 * pow_Scalar_out fills 1 for a base equal to 1, else is pow.Tensor_Tensor of the wrapped
 * base (converted to the common dtype) into the contiguous result of its meta */
static AOTITorchError pow_scalar_wide(const char *op, shimrt_scalar self, AtenTensorHandle exponent,
                                      AtenTensorHandle *ret0) {
    int32_t rt =
        sh_result_type_wide(op, "pow", 1, (const struct AtenTensorOpaque *const *)&exponent, &self);
    if (rt == -2) return AOTI_TORCH_FAILURE;
    double re = shimrt_scalar_is_integral(self, true) ? (double)self.i : self.d;
    double im = self.kind == SHIMRT_SCALAR_KIND_COMPLEX ? self.im : 0;
    bool one = re == 1 && im == 0;
    if (!one && !shimrt_dtype_is_complex(rt) && sh_dtype_wide(rt))
        return shimrt_fail(op, "\"pow\" not implemented for '%s'", shimrt_dtype_torch_name(rt));
    AtenTensorHandle r = shimrt_k_new(op, exponent->ndim, exponent->sizes, rt), base = NULL;
    if (!r) return AOTI_TORCH_FAILURE;
    AOTITorchError err = AOTI_TORCH_SUCCESS;
    if (one) {
        double v[2] = {1, 0};
        for (int64_t i = 0, n = shimrt_numel(r), es = (int64_t)shimrt_dtype_size(rt); i < n; i++)
            shimrt_dtype_convert((char *)shimrt_data(r) + i * es, rt, v, SHIMRT_COMPLEX128);
    } else if (shimrt_dtype_is_complex(rt)) {
        double v[2] = {re, im};
        if (!(base = shimrt_k_new(op, 0, NULL, rt)))
            err = AOTI_TORCH_FAILURE;
        else
            shimrt_dtype_convert(shimrt_data(base), rt, v, SHIMRT_COMPLEX128);
        if (!err) err = sh_pow_complex(op, base, exponent, rt, r, NULL);
    } else {
        shimrt_tensor_free(r);
        r = NULL;
        if (!(base = shimrt_k_new(op, 0, NULL, rt))) return AOTI_TORCH_FAILURE;
        shimrt_dtype_convert(shimrt_data(base), rt, &re, SHIMRT_FLOAT64);
        err = pow_common(op, base, exponent, rt, false, ret0);
        shimrt_tensor_free(base);
        return err;
    }
    shimrt_tensor_free(base);
    return shimrt_k_hand_out(err, r, ret0);
}

AOTITorchError shimrt_cpu_pow_scalar(shimrt_scalar self, AtenTensorHandle exponent,
                                     AtenTensorHandle *ret0) {
    static const char op[] = "pow.Scalar";
    int32_t rt;
    if (!shimrt_k_check_cpu(op, exponent, "exponent") &&
        (sh_dtype_wide(exponent->dtype) || self.kind == SHIMRT_SCALAR_KIND_COMPLEX))
        return pow_scalar_wide(op, self, exponent, ret0);
    if (tensor_scalar_type(op, "pow", exponent, "exponent", self, &rt)) return AOTI_TORCH_FAILURE;
    AtenTensorHandle base = shimrt_k_new(op, 0, NULL, rt);
    if (!base) return AOTI_TORCH_FAILURE;
    shimrt_k_fill(base, self.d);
    AOTITorchError err = pow_common(op, base, exponent, rt, false, ret0);
    shimrt_tensor_free(base);
    return err;
}

/* ---- masked_scatter ---------------------------------------------------------------------------- */
AOTITorchError shimrt_cpu_masked_scatter(AtenTensorHandle self, AtenTensorHandle mask,
                                         AtenTensorHandle source, AtenTensorHandle *ret0) {
    static const char op[] = "masked_scatter";
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, mask, "mask") ||
        shimrt_k_check_cpu(op, source, "source") ||
        (!shimrt_dtype_is_complex(self->dtype) && shimrt_k_check_dtype(op, self, "self")))
        return AOTI_TORCH_FAILURE; /* complex: moved as any dtype */
    if (mask->dtype != SHIMRT_BOOL)
        return shimrt_fail(op,
                           "masked_scatter_ only supports boolean masks, but got mask with "
                           "dtype %s",
                           shimrt_dtype_torch_name(mask->dtype));
    if (source->dtype != self->dtype)
        return shimrt_fail(op,
                           "masked_scatter: expected self and source to have same dtypes but "
                           "got %s and %s",
                           shimrt_dtype_torch_name(self->dtype),
                           shimrt_dtype_torch_name(source->dtype));
    int64_t shape[SHIMRT_MAX_DIMS], nd, ns = shimrt_numel(source);
    if (shimrt_k_broadcast(op, self->ndim, self->sizes, mask->ndim, mask->sizes, shape, &nd))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle r = dense_as(op, self, nd, shape, self->dtype);
    AtenTensorHandle m = r ? dense_as(op, mask, nd, shape, SHIMRT_BOOL) : NULL;
    AtenTensorHandle s =
        m ? dense_as(op, source, source->ndim, source->sizes, source->dtype) : NULL;
    AOTITorchError err = s ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
    if (!err) {
        const bool *mp = shimrt_data(m);
        size_t es = shimrt_dtype_size(self->dtype);
        int64_t n = shimrt_numel(r), k = 0;
        for (int64_t i = 0; i < n; i++) k += mp[i] != 0;
        if (k > ns)
            err = shimrt_fail(op,
                              "masked_scatter: expected source to have at least %lld "
                              "elements, got %lld",
                              (long long)k, (long long)ns);
        for (int64_t i = 0, j = 0; !err && i < n; i++)
            if (mp[i])
                memcpy((char *)shimrt_data(r) + (size_t)i * es,
                       (const char *)shimrt_data(s) + (size_t)(j++) * es, es);
    }
    shimrt_tensor_free(m);
    shimrt_tensor_free(s);
    return shimrt_k_hand_out(err, r, ret0);
}

/* ---- _cdist_forward ---------------------------------------------------------------------------- */
/* One distance as PyTorch's CPU kernel computes it, in the dtype T (float for float32):
 * agg = red(agg, map(|a - b|)) from 0 over the columns, std::min / std::max semantics (a NaN
 * difference counts for p = 0, is passed over by p = inf's max unless first), then the
 * finish (sqrt; pow(agg, 1.0 / p) in double). mm: p = 2 through matrix products
 * (_euclidean_dist): [-2 u, |u|^2, 1] . [v, 1, |v|^2], clamped at 0, then sqrt. */
#define CDIST_ONE(T, NAME, SQRT, POW)                                                              \
    static double NAME(const double *u, const double *v, int64_t m, T p, bool mm) {                \
        T agg = 0;                                                                                 \
        if (mm) {                                                                                  \
            T nu = 0, nv = 0;                                                                      \
            for (int64_t x = 0; x < m; x++) nu += (T)u[x] * (T)u[x];                               \
            for (int64_t x = 0; x < m; x++) nv += (T)v[x] * (T)v[x];                               \
            for (int64_t x = 0; x < m; x++) agg += (T)-2 * (T)u[x] * (T)v[x];                      \
            agg += nu;                                                                             \
            agg += nv;                                                                             \
            agg = agg < 0 ? 0 : agg; /* clamp_min(0) keeps NaN */                                  \
            return (double)SQRT(agg);                                                              \
        }                                                                                          \
        for (int64_t x = 0; x < m; x++) {                                                          \
            T d = (T)fabs((double)((T)u[x] - (T)v[x]));                                            \
            if (p == 0) {                                                                          \
                T c = (T)ceil((double)d);                                                          \
                agg += (T)1 < c ? (T)1 : c;                                                        \
            } else if (p == 1)                                                                     \
                agg += d;                                                                          \
            else if (p == 2)                                                                       \
                agg += d * d;                                                                      \
            else if (isinf(p))                                                                     \
                agg = agg < d ? d : agg;                                                           \
            else                                                                                   \
                agg += POW(d, p);                                                                  \
        }                                                                                          \
        if (p == 2) return (double)SQRT(agg);                                                      \
        if (p == 0 || p == 1 || isinf(p)) return (double)agg;                                      \
        return pow((double)agg, 1.0 / (double)p);                                                  \
    }
CDIST_ONE(float, cdist_f, sqrtf, powf)
CDIST_ONE(double, cdist_d, sqrt, pow)

/* _euclidean_dist of float16 / bfloat16 rows: the norms and -2 u rounded to the dtype (its
 * pow, sum and mul), the product accumulated in float and rounded, then clamp and sqrt. */
static double cdist_half(int32_t dt, const double *u, const double *v, int64_t m) {
    float nu = 0, nv = 0, agg = 0;
    for (int64_t x = 0; x < m; x++) nu += (float)shimrt_e_round(dt, u[x] * u[x]);
    for (int64_t x = 0; x < m; x++) nv += (float)shimrt_e_round(dt, v[x] * v[x]);
    nu = (float)shimrt_e_round(dt, nu);
    nv = (float)shimrt_e_round(dt, nv);
    for (int64_t x = 0; x < m; x++) agg += (float)shimrt_e_round(dt, -2 * u[x]) * (float)v[x];
    agg += nu;
    agg += nv;
    agg = (float)shimrt_e_round(dt, agg);
    agg = agg < 0 ? 0 : agg;
    return shimrt_e_round(dt, sqrtf(agg));
}

/* x1 [..., P, M], x2 [..., R, M] (batch dims broadcast) -> [..., P, R] p-norm distances in
 * double: p = 0 counts differing coordinates, p = inf takes the largest difference. */
AOTITorchError shimrt_cpu__cdist_forward(AtenTensorHandle x1, AtenTensorHandle x2, double p,
                                         int64_t *compute_mode, AtenTensorHandle *ret0) {
    static const char op[] = "cdist";
    if (shimrt_k_check_cpu(op, x1, "x1") || shimrt_k_check_cpu(op, x2, "x2"))
        return AOTI_TORCH_FAILURE;
    if (x1->ndim < 2 || x2->ndim < 2)
        return shimrt_fail(op, "cdist only supports at least 2D tensors, X1 got: %lldD",
                           (long long)x1->ndim);
    if (x1->sizes[x1->ndim - 1] != x2->sizes[x2->ndim - 1])
        return shimrt_fail(op, "X1 and X2 must have the same number of columns. X1: %lld X2: %lld",
                           (long long)x1->sizes[x1->ndim - 1], (long long)x2->sizes[x2->ndim - 1]);
    if (!shimrt_k_is_floating(x1->dtype))
        return shimrt_fail(op, "cdist only supports floating-point dtypes, X1 got: %s",
                           shimrt_dtype_torch_name(x1->dtype));
    if (!shimrt_k_is_floating(x2->dtype))
        return shimrt_fail(op, "cdist only supports floating-point dtypes, X2 got: %s",
                           shimrt_dtype_torch_name(x2->dtype));
    if (!(p >= 0)) return shimrt_fail(op, "cdist only supports non-negative p values"); /* NaN */
    if (compute_mode && (*compute_mode < 0 || *compute_mode > 2))
        return shimrt_fail(op, "possible modes: None, 1, 2, but was: %lld",
                           (long long)*compute_mode);
    int64_t bshape[SHIMRT_MAX_DIMS], bn;
    if (shimrt_k_broadcast(op, x1->ndim - 2, x1->sizes, x2->ndim - 2, x2->sizes, bshape, &bn))
        return AOTI_TORCH_FAILURE;
    int64_t P = x1->sizes[x1->ndim - 2], R = x2->sizes[x2->ndim - 2], M = x1->sizes[x1->ndim - 1];
    int64_t s1[SHIMRT_MAX_DIMS], s2[SHIMRT_MAX_DIMS], so[SHIMRT_MAX_DIMS], nb = 1;
    for (int64_t i = 0; i < bn; i++) {
        s1[i] = s2[i] = so[i] = bshape[i];
        nb *= bshape[i];
    }
    s1[bn] = P;
    s1[bn + 1] = M;
    s2[bn] = R;
    s2[bn + 1] = M;
    so[bn] = P;
    so[bn + 1] = R;
    /* PyTorch: an empty result, or zeros for rows of no columns, whatever the dtypes (x2's
     * need not be x1's); p = 2 by matrix products (_euclidean_dist: compute_mode 1, or the
     * default with more than 25 rows on either side), which need one dtype, of any floating
     * kind; else its kernel, float32 / float64, reading x2 as x1's dtype */
    int32_t dt = x1->dtype;
    int64_t mode = compute_mode ? *compute_mode : 0;
    bool mm = p == 2 && (mode == 1 || (mode == 0 && (P > 25 || R > 25)));
    if (nb * P * R > 0 && M == 0) {
        AtenTensorHandle z = shimrt_k_new(op, bn + 2, so, dt);
        if (z) shimrt_k_fill(z, 0);
        return shimrt_k_give(z, ret0);
    }
    if (nb * P * R > 0 && x2->dtype != dt)
        return mm ? shimrt_fail(op, "expected m1 and m2 to have the same dtype, but got: %s != %s",
                                shimrt_dtype_name(dt), shimrt_dtype_name(x2->dtype))
                  : shimrt_fail(op, "expected scalar type %s but found %s",
                                shimrt_dtype_torch_name(dt), shimrt_dtype_torch_name(x2->dtype));
    if (nb * P * R > 0 && !mm && dt != SHIMRT_FLOAT32 && dt != SHIMRT_FLOAT64)
        return shimrt_fail(op, "\"cdist\" not implemented for '%s'", shimrt_dtype_torch_name(dt));
    AtenTensorHandle a = dense_as(op, x1, bn + 2, s1, SHIMRT_FLOAT64);
    AtenTensorHandle b = a ? dense_as(op, x2, bn + 2, s2, SHIMRT_FLOAT64) : NULL;
    AtenTensorHandle r = b ? shimrt_k_new(op, bn + 2, so, x1->dtype) : NULL;
    if (r) {
        const double *ap = shimrt_data(a), *bp = shimrt_data(b);
        bool f32 = x1->dtype == SHIMRT_FLOAT32, half = !f32 && dt != SHIMRT_FLOAT64;
        for (int64_t q = 0; q < nb; q++)
            for (int64_t i = 0; i < P; i++)
                for (int64_t j = 0; j < R; j++) {
                    const double *u = ap + (q * P + i) * M, *v = bp + (q * R + j) * M;
                    double d = half  ? cdist_half(dt, u, v, M)
                               : f32 ? cdist_f(u, v, M, (float)p, mm)
                                     : cdist_d(u, v, M, p, mm);
                    shimrt_k_store_f64((char *)shimrt_data(r) + (size_t)((q * P + i) * R + j) *
                                                                    shimrt_dtype_size(x1->dtype),
                                       x1->dtype, d);
                }
    }
    shimrt_tensor_free(a);
    shimrt_tensor_free(b);
    return shimrt_k_give(r, ret0);
}

/* ---- scatter.value_out -------------------------------------------------------------------------- */
/* scatter.src_out with a source of index's shape holding value in self's dtype. */
AOTITorchError shimrt_cpu_scatter_value_out(AtenTensorHandle out, AtenTensorHandle self,
                                            int64_t dim, AtenTensorHandle index,
                                            shimrt_scalar svalue) {
    double value = svalue.d;
    static const char op[] = "scatter.value_out";
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, index, "index") ||
        (!sh_dtype_wide(self->dtype) && shimrt_k_check_dtype(op, self, "self")))
        return AOTI_TORCH_FAILURE;
    static const struct {
        int32_t dt;
        double lo, hi;
        const char *name;
    } lim[] = {{SHIMRT_UINT8, 0, 255, "uint8_t"},
               {SHIMRT_INT8, -128, 127, "int8_t"},
               {SHIMRT_INT16, -32768, 32767, "int16_t"},
               {SHIMRT_INT32, -2147483648.0, 2147483647.0, "int"},
               {SHIMRT_INT64, -9223372036854775808.0, 9223372036854775807.0, "int64_t"}};
    /* PyTorch's checked conversion: an int Scalar by c10::overflows<To, int64_t> */
    bool bad = false;
    const char *tname = NULL;
    bool listed = false;
    for (size_t i = 0; i < sizeof lim / sizeof *lim; i++)
        listed = listed || lim[i].dt == self->dtype;
    if (shimrt_scalar_is_integral(svalue, true) && shimrt_numel(index) > 0) {
        bad = (shimrt_k_is_integral(self->dtype) || sh_dtype_wide(self->dtype)) &&
              shimrt_k_scalar_fits(op, svalue, self->dtype, false);
    } else if (!listed) { /* floating, complex, uint16/32/64: c10::overflows<To, double> */
        bad = shimrt_numel(index) > 0 && shimrt_k_scalar_fits(op, svalue, self->dtype, false);
    } else {
        for (size_t i = 0; i < sizeof lim / sizeof *lim; i++)
            if (lim[i].dt == self->dtype && shimrt_numel(index) > 0 &&
                !(value >= lim[i].lo && value <= lim[i].hi))
                bad = true, tname = lim[i].name;
    }
    /* PyTorch converts the value in its kernel's loop, after out is resized and an index
     * checked: a value that does not fit fails after those (the elements scattered here
     * meanwhile are zeros) */
    AtenTensorHandle src = shimrt_k_new(op, index->ndim, index->sizes, self->dtype);
    if (!src) return AOTI_TORCH_FAILURE;
    shimrt_k_fill(src, bad ? 0.0 : value);
    AOTITorchError err = shimrt_cpu_scatter_src_out(out, self, dim, index, src);
    shimrt_tensor_free(src);
    if (err || !bad) return err;
    if (tname)
        return shimrt_fail(op, "value cannot be converted to type %s without overflow", tname);
    return shimrt_k_scalar_fits(op, svalue, self->dtype, false);
}

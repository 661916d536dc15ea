/* runtime/cpu/segment.c: index_reduce (scatter_reduce over an index expanded along dim) and
 * segment_reduce's forward (PyTorch's _segment_reduce_cpu_kernel: lengths or offsets along
 * the last dimension of lengths). Written from PyTorch's documented semantics, checked
 * against PyTorch 2.15 by tests/dropin/aoti_oracle_i20.py. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../generic/meta.h"
#include "cpu_kernels.h"
#include "elems.h"
#include "index.h"
#include "iter.h"

/* ---- index_reduce ---- */

AOTITorchError shimrt_cpu_index_reduce(AtenTensorHandle self, int64_t dim, AtenTensorHandle index,
                                       AtenTensorHandle source, const char *reduce,
                                       int32_t include_self, AtenTensorHandle *ret0) {
    static const char op[] = "index_reduce";
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, index, "index") ||
        shimrt_k_check_cpu(op, source, "source"))
        return AOTI_TORCH_FAILURE;
    if (!reduce) return shimrt_fail(op, "argument 'reduce' is NULL");
    if (strcmp(reduce, "prod") && strcmp(reduce, "mean") && strcmp(reduce, "amax") &&
        strcmp(reduce, "amin"))
        return shimrt_fail(op,
                           "index_reduce(): Expected reduce to be one of prod, mean, amax or amin "
                           "but got %s.",
                           reduce);
    if (shimrt_idx_wrap_dim(op, &dim, self->ndim)) return AOTI_TORCH_FAILURE;
    if (index->ndim > 1)
        return shimrt_fail(op, "index_reduce_(): Index is supposed to be a vector");
    if (index->dtype != SHIMRT_INT64 && index->dtype != SHIMRT_INT32)
        return shimrt_fail(op, "index_reduce_(): Expected dtype int32/int64 for index but got: %s",
                           shimrt_dtype_name(index->dtype));
    if (self->dtype != source->dtype)
        return shimrt_fail(op,
                           "index_reduce_(): self (%s) and source (%s) must have the same "
                           "scalar type",
                           shimrt_dtype_name(self->dtype), shimrt_dtype_name(source->dtype));
    /* PyTorch's index_func_meta_impl: the indexed dim within source, one index per source
     * slice, and the shapes equal but for dim (whole shapes when either is 0-d) */
    if (!(dim == 0 || dim < source->ndim))
        return shimrt_fail(op,
                           "index_reduce_(): Indexing dim %lld is out of bounds of the source "
                           "tensor with dim %lld",
                           (long long)dim, (long long)source->ndim);
    int64_t nidx = shimrt_numel(index);
    int64_t ssd = source->ndim ? source->sizes[dim] : 1;
    if (nidx != ssd)
        return shimrt_fail(op,
                           "index_reduce_(): Number of indices (%lld) should be equal to "
                           "source.size(dim): (%lld), for dim: %lld",
                           (long long)nidx, (long long)ssd, (long long)dim);
    bool erase = source->ndim && self->ndim, same = self->ndim == source->ndim;
    for (int64_t d = 0; same && d < self->ndim; d++)
        same = (erase && d == dim) || self->sizes[d] == source->sizes[d];
    if (!same) {
        char a[256], b[256];
        return shimrt_fail(op,
                           "source tensor shape must match self tensor shape, excluding the "
                           "specified dimension. Got self.shape = %s source.shape = %s",
                           shimrt_k_fmt_shape(a, sizeof a, self->ndim, self->sizes),
                           shimrt_k_fmt_shape(b, sizeof b, source->ndim, source->sizes));
    }
    /* PyTorch's kernel fills the excluded positions first, then reduces, each dispatching on
     * all types but bool, complex and uint16/32/64 */
    /* (a self of more than one dim reduces slice by slice with mul_, add_, maximum and
     * minimum instead: no dispatch without an index, and only maximum/minimum refuse a
     * dtype there, complex) */
    int32_t sdt = self->dtype;
    bool cplx = shimrt_dtype_is_complex(sdt);
    bool slices_refuse = cplx && (!strcmp(reduce, "amax") || !strcmp(reduce, "amin"));
    if ((sdt == SHIMRT_BOOL || cplx || sdt == SHIMRT_UINT16 || sdt == SHIMRT_UINT32 ||
         sdt == SHIMRT_UINT64) &&
        (!include_self || self->ndim <= 1 || (nidx > 0 && slices_refuse)))
        return shimrt_fail(op, "\"%s\" not implemented for '%s'",
                           include_self ? "index_func_" : "index_reduce_func_exclude_input_init",
                           shimrt_dtype_torch_name(sdt));
    int64_t limit = self->ndim ? self->sizes[dim] : 1;
    int64_t *iv = malloc((size_t)(nidx ? nidx : 1) * sizeof *iv);
    if (!iv) return shimrt_fail(op, "out of memory");
    const char *ib = shimrt_data(index);
    int64_t ist = index->ndim ? index->strides[0] : 0;
    size_t ies = shimrt_dtype_size(index->dtype);
    for (int64_t i = 0; i < nidx; i++) {
        iv[i] = shimrt_k_load_i64(ib + i * ist * (int64_t)ies, index->dtype);
        if (iv[i] < 0 || iv[i] >= limit) {
            free(iv);
            return shimrt_fail(op, "index out of range in self");
        }
    }
    /* the index expanded to source's shape: element [.., i, ..] (i along dim) is index[i] */
    int64_t snd = source->ndim ? source->ndim : 1, one = 1;
    const int64_t *ssz = source->ndim ? source->sizes : &one;
    AtenTensorHandle ex = shimrt_tensor_empty(op, snd, ssz, NULL, SHIMRT_INT64, SHIMRT_DEV_CPU, 0);
    if (!ex) {
        free(iv);
        return AOTI_TORCH_FAILURE;
    }
    int64_t *ed = shimrt_data(ex), n = shimrt_numel(ex), inner = 1;
    for (int64_t d = dim + 1; d < snd; d++) inner *= ssz[d];
    for (int64_t k = 0; k < n; k++) ed[k] = iv[(k / inner) % ssz[dim]];
    free(iv);
    AtenTensorHandle src = source, view = NULL;
    if (source->ndim == 0) {
        view = shimrt_k_alias(op, source, 1, &one, &one, source->storage_offset);
        if (!view) {
            shimrt_tensor_free(ex);
            return AOTI_TORCH_FAILURE;
        }
        src = view;
    }
    AtenTensorHandle out =
        shimrt_tensor_empty(op, self->ndim, self->sizes, NULL, self->dtype, SHIMRT_DEV_CPU, 0);
    AOTITorchError rc = AOTI_TORCH_FAILURE;
    if (out && !shimrt_k_copy(op, out, self)) {
        if (self->ndim == 0) { /* a 1-element view for the scatter */
            AtenTensorHandle o1 = shimrt_k_alias(op, out, 1, &one, &one, out->storage_offset);
            rc = o1 ? shimrt_idx_scatter_reduce(op, o1, o1, 0, ex, src, reduce, include_self != 0)
                    : AOTI_TORCH_FAILURE;
            shimrt_tensor_free(o1);
        } else {
            rc = shimrt_idx_scatter_reduce(op, out, out, dim, ex, src, reduce, include_self != 0);
        }
    }
    shimrt_tensor_free(ex);
    shimrt_tensor_free(view);
    return shimrt_k_hand_out(rc, out, ret0);
}

/* ---- segment_reduce ---- */

/* segment_reduce's reduction names (SR_* of elems.h), PyTorch's message for another */
int shimrt_e_seg_reduction(const char *op, const char *reduce) {
    static const char *const names[] = {"max", "min", "sum", "mean", "prod"};
    if (!reduce) return shimrt_fail(op, "argument 'reduce' is NULL"), -1;
    for (int r = 0; r < 5; r++)
        if (!strcmp(reduce, names[r])) return r;
    /* PyTorch's get_reduction_enum takes amax / amin for max / min too */
    if (!strcmp(reduce, "amax")) return 0;
    if (!strcmp(reduce, "amin")) return 1;
    shimrt_fail(op, "reduce argument must be either sum, prod, mean, amax or amin, got %s", reduce);
    return -1;
}

/* One reduction, PyTorch's order: start from initial (or the reduction's identity), fold
 * each value in (max/min propagate NaN); mean divides by the count, an empty segment without
 * initial being NaN. */
static double seg_fold(int r, const double *v, int64_t n, int64_t step, const double *initial) {
    double acc;
    if (initial)
        acc = *initial;
    else
        acc = r == SR_MAX ? -INFINITY : r == SR_MIN ? INFINITY : r == SR_PROD ? 1.0 : 0.0;
    for (int64_t j = 0; j < n; j++) {
        double x = v[j * step];
        switch (r) {
        case SR_MAX: acc = isnan(x) ? x : (isnan(acc) || acc >= x ? acc : x); break;
        case SR_MIN: acc = isnan(x) ? x : (isnan(acc) || acc <= x ? acc : x); break;
        case SR_PROD: acc *= x; break;
        default: acc += x; break;
        }
    }
    if (r == SR_MEAN) {
        if (n > 0)
            acc /= (double)n;
        else if (!initial)
            acc = NAN;
    }
    return acc;
}

/* t's elements in row-major order, as doubles or (i64) as int64s: a new array (free()) */
static void *read_elems(const char *op, AtenTensorHandle t, bool i64) {
    int64_t n = shimrt_numel(t);
    char *b = malloc((size_t)(n ? n : 1) * 8);
    if (!b) {
        shimrt_fail(op, "out of memory");
        return NULL;
    }
    int64_t idx[SHIMRT_MAX_DIMS] = {0}, k = 0;
    if (n) do {
            const char *p = shimrt_idx_at(t, idx);
            if (i64)
                ((int64_t *)b)[k++] = shimrt_k_load_i64(p, t->dtype);
            else
                ((double *)b)[k++] = shimrt_k_load_f64(p, t->dtype);
        } while (shimrt_idx_next(t->ndim, t->sizes, idx));
    return b;
}

double *shimrt_e_read_f64(const char *op, AtenTensorHandle t) { return read_elems(op, t, false); }

int64_t *shimrt_e_read_i64(const char *op, AtenTensorHandle t) { return read_elems(op, t, true); }

AOTITorchError shimrt_cpu_segment_reduce(AtenTensorHandle data, const char *reduce,
                                         AtenTensorHandle lengths, AtenTensorHandle indices,
                                         AtenTensorHandle offsets, int64_t axis, int32_t unsafe,
                                         const shimrt_scalar *sinitial, AtenTensorHandle *ret0) {
    static const char op[] = "segment_reduce";
    /* (the fold runs in double: an int Scalar's value as PyTorch's initial.to<double>()) */
    double initial_v = sinitial ? sinitial->d : 0.0, *initial = sinitial ? &initial_v : NULL;
    if (shimrt_k_check_cpu(op, data, "data")) return AOTI_TORCH_FAILURE;
    int r = shimrt_e_seg_reduction(op, reduce);
    if (r < 0) return AOTI_TORCH_FAILURE;
    if (shimrt_idx_wrap_dim(op, &axis, data->ndim)) return AOTI_TORCH_FAILURE;
    if (!shimrt_k_is_floating(data->dtype))
        return shimrt_fail(op, "\"_segment_reduce_cpu\" not implemented for '%s'",
                           shimrt_dtype_name(data->dtype));
    /* PyTorch refuses any indices, and takes offsets when both offsets and lengths are given */
    AtenTensorHandle len = offsets ? NULL : lengths, off = offsets;
    if (indices)
        return shimrt_fail(op, "segment_reduce(): indices based reduction is not supported yet.");
    if (!len && !off)
        return shimrt_fail(op, "segment_reduce(): Either lengths or offsets must be defined");
    AtenTensorHandle seg = len ? len : off;
    if (shimrt_k_check_cpu(op, seg, len ? "lengths" : "offsets")) return AOTI_TORCH_FAILURE;
    if (!shimrt_k_is_integral(seg->dtype) || seg->dtype == SHIMRT_UINT8 ||
        seg->dtype == SHIMRT_INT8 || seg->dtype == SHIMRT_INT16)
        return shimrt_fail(op, "\"_segment_reduce_cpu\" not implemented for '%s'",
                           shimrt_dtype_name(seg->dtype));
    if (seg->ndim < 1 || axis != seg->ndim - 1)
        return shimrt_fail(op,
                           "segment_reduce(): Expected axis to be the last dimension of %s but "
                           "got %lld.",
                           len ? "lengths" : "offsets", (long long)axis);
    /* PyTorch does not compare the leading dims: its kernel reads lengths/offsets as flat
     * rows, one per row of data's leading dims, past its end when data has more rows */
    int64_t drows = 1, srows = 1;
    for (int64_t d = 0; d < axis && d < data->ndim; d++) drows *= data->sizes[d];
    for (int64_t d = 0; d < axis; d++) srows *= seg->sizes[d];
    if (axis > data->ndim || drows > srows)
        return shimrt_fail(op,
                           "segment_reduce(): %s has fewer rows than data (%lld < %lld): "
                           "PyTorch's kernel would index out of bounds",
                           len ? "lengths" : "offsets", (long long)srows, (long long)drows);
    int64_t nseg = len ? seg->sizes[axis] : seg->sizes[axis] - 1;
    if (nseg < 0)
        return shimrt_fail(op, "segment_reduce(): Expected offsets to have at least one element");
    /* outer: the leading dims (shared with lengths), inner: the dims after axis */
    int64_t outer = 1, inner = 1, dlen = data->sizes[axis];
    for (int64_t d = 0; d < axis; d++) outer *= data->sizes[d];
    for (int64_t d = axis + 1; d < data->ndim; d++) inner *= data->sizes[d];
    int64_t osz[SHIMRT_MAX_DIMS];
    memcpy(osz, data->sizes, (size_t)data->ndim * sizeof *osz);
    osz[axis] = nseg;
    /* the segments' starts and lengths, per outer row */
    int64_t nrow = outer * (nseg ? nseg : 1);
    int64_t *st = malloc((size_t)nrow * sizeof *st), *ln = malloc((size_t)nrow * sizeof *ln);
    double *dv = NULL;
    AtenTensorHandle out = NULL;
    AOTITorchError rc = AOTI_TORCH_FAILURE;
    if (!st || !ln) {
        shimrt_fail(op, "out of memory");
        goto done;
    }
    int64_t idx[SHIMRT_MAX_DIMS] = {0};
    for (int64_t o = 0; o < outer; o++) {
        int64_t rest = o;
        for (int64_t d = axis - 1; d >= 0; d--) {
            idx[d] = rest % seg->sizes[d];
            rest /= seg->sizes[d];
        }
        int64_t pos = 0;
        for (int64_t s = 0; s < nseg; s++) {
            int64_t a, b = 0;
            idx[axis] = s;
            a = shimrt_k_load_i64(shimrt_idx_at(seg, idx), seg->dtype);
            if (!len) {
                idx[axis] = s + 1;
                b = shimrt_k_load_i64(shimrt_idx_at(seg, idx), seg->dtype);
            }
            int64_t start = len ? pos : a, n = len ? a : b - a;
            if (n < 0 || start < 0 || start > dlen || n > dlen - start) {
                shimrt_fail(op,
                            "segment_reduce(): Expected all %s to be non-negative and within "
                            "data.size(axis)",
                            len ? "lengths" : "offsets");
                goto done;
            }
            st[o * nseg + s] = start;
            ln[o * nseg + s] = n;
            pos += n;
        }
        if (len && !unsafe && pos != dlen) {
            shimrt_fail(op, "segment_reduce(): Expected all rows of lengths along axis to sum to "
                            "data.size(lengths.dim()-1) when !unsafe.");
            goto done;
        }
    }
    out = shimrt_tensor_empty(op, data->ndim, osz, NULL, data->dtype, SHIMRT_DEV_CPU, 0);
    if (!out || !(dv = shimrt_e_read_f64(op, data))) goto done;
    char *ob = shimrt_data(out);
    size_t es = shimrt_dtype_size(out->dtype);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t s = 0; s < nseg; s++)
            for (int64_t i = 0; i < inner; i++) {
                int64_t start = st[o * nseg + s];
                double v = seg_fold(r, dv + (o * dlen + start) * inner + i, ln[o * nseg + s], inner,
                                    initial);
                shimrt_k_store_f64(ob + ((o * nseg + s) * inner + i) * (int64_t)es, out->dtype, v);
            }
    rc = AOTI_TORCH_SUCCESS;
done:
    free(st);
    free(ln);
    free(dv);
    return shimrt_k_hand_out(rc, out, ret0);
}

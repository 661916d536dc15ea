/* runtime/generic/meta.c: device-neutral kernel helpers (see meta.h). */
#include "meta.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- dtypes ------------------------------------------------------------------------ */

bool shimrt_k_is_floating(int32_t dt) { return shimrt_dtype_is_floating(dt); }

/* the kernel engine's dtypes: the first rows of the dtype table (core/dtype.h) */
bool shimrt_k_is_integral(int32_t dt) {
    int i = shimrt_dtype_engine_index(dt);
    return i >= 0 && (shimrt_dtype_table[i].kind == SHIMRT_KIND_SIGNED ||
                      shimrt_dtype_table[i].kind == SHIMRT_KIND_UNSIGNED);
}

bool shimrt_k_dtype_ok(int32_t dt) { return shimrt_dtype_engine_index(dt) >= 0; }

/* Rank among the signed integers (int8 < int16 < int32 < int64). */
static int int_rank(int32_t dt) {
    switch (dt) {
    case SHIMRT_INT8: return 1;
    case SHIMRT_INT16: return 2;
    case SHIMRT_INT32: return 3;
    default: return 4;
    }
}

int32_t shimrt_k_promote(int32_t a, int32_t b) {
    if (!shimrt_k_dtype_ok(a) || !shimrt_k_dtype_ok(b)) return -1;
    if (a == b) return a;
    if (a == SHIMRT_BOOL) return b;
    if (b == SHIMRT_BOOL) return a;
    bool fa = shimrt_k_is_floating(a), fb = shimrt_k_is_floating(b);
    if (fa && !fb) return a;
    if (fb && !fa) return b;
    if (fa && fb) {
        if (a == SHIMRT_FLOAT64 || b == SHIMRT_FLOAT64) return SHIMRT_FLOAT64;
        return SHIMRT_FLOAT32; /* float32 with a half type, or float16 with bfloat16 */
    }
    /* both integral */
    if (a == SHIMRT_UINT8) return b == SHIMRT_INT8 ? SHIMRT_INT16 : b;
    if (b == SHIMRT_UINT8) return a == SHIMRT_INT8 ? SHIMRT_INT16 : a;
    return int_rank(a) >= int_rank(b) ? a : b;
}

#define RT_NONE (-1)
#define RT_INVALID (-2) /* no dtype the kernels compute on (a complex Scalar with others) */

void shimrt_k_rt_init(shimrt_k_result_type *s) { s->dim = s->zero = s->wrapped = RT_NONE; }

static int32_t promote_none(int32_t acc, int32_t dt) {
    return acc == RT_NONE ? dt : shimrt_k_promote(acc, dt);
}

void shimrt_k_rt_add_tensor(shimrt_k_result_type *s, const struct AtenTensorOpaque *t) {
    if (t->ndim > 0)
        s->dim = promote_none(s->dim, t->dtype);
    else
        s->zero = promote_none(s->zero, t->dtype);
}

int32_t shimrt_k_scalar_dtype(shimrt_scalar v) {
    switch (v.kind) {
    case SHIMRT_SCALAR_KIND_BOOL: return SHIMRT_BOOL;
    case SHIMRT_SCALAR_KIND_INT: return SHIMRT_INT64;
    case SHIMRT_SCALAR_KIND_COMPLEX: return SHIMRT_COMPLEX64;
    default: return SHIMRT_FLOAT32;
    }
}

void shimrt_k_rt_add_scalar(shimrt_k_result_type *s, shimrt_scalar v) {
    int32_t dt = shimrt_k_scalar_dtype(v);
    /* complex64 is no computable dtype (shimrt_k_promote): a complex Scalar makes the result
     * complex in PyTorch, which the kernels refuse (-1) rather than drop its kind */
    if (dt == SHIMRT_COMPLEX64)
        s->wrapped = s->wrapped == RT_NONE || s->wrapped == dt ? dt : RT_INVALID;
    else if (s->wrapped == SHIMRT_COMPLEX64 || s->wrapped == RT_INVALID)
        s->wrapped = RT_INVALID;
    else
        s->wrapped = promote_none(s->wrapped, dt);
}

AOTITorchError shimrt_k_alpha_check(const char *op, int32_t dt, shimrt_scalar alpha) {
    if (alpha.kind == SHIMRT_SCALAR_KIND_BOOL && dt != SHIMRT_BOOL)
        return shimrt_fail(op, "Boolean alpha only supported for Boolean results.");
    bool complex = dt == SHIMRT_COMPLEX64 || dt == SHIMRT_COMPLEX128 || dt == SHIMRT_COMPLEX32;
    if (!shimrt_k_is_floating(dt) && !complex && !shimrt_scalar_is_integral(alpha, true))
        return shimrt_fail(op, "For integral input tensors, argument alpha must not be a "
                               "floating point number.");
    if (!complex && alpha.kind == SHIMRT_SCALAR_KIND_COMPLEX)
        return shimrt_fail(op, "For non-complex input tensors, argument alpha must not be a "
                               "complex number.");
    /* the kernel converts alpha to the compute type, checked (alpha.to<scalar_t>()) */
    return shimrt_k_scalar_fits(op, alpha, dt, false);
}

/* bool < integral < floating < complex */
static int category(int32_t dt) {
    if (dt == SHIMRT_BOOL) return 0;
    if (dt == SHIMRT_COMPLEX32 || dt == SHIMRT_COMPLEX64 || dt == SHIMRT_COMPLEX128) return 3;
    return shimrt_k_is_floating(dt) ? 2 : 1;
}

/* The higher-priority state wins unless the lower one is of a higher category. */
static int32_t combine(int32_t higher, int32_t lower) {
    if (higher == RT_INVALID || lower == RT_INVALID) return RT_INVALID;
    if (higher == RT_NONE) return lower;
    if (lower == RT_NONE) return higher;
    if (category(lower) > category(higher)) {
        int32_t p = shimrt_k_promote(higher, lower);
        return p < 0 ? RT_INVALID : p;
    }
    return higher;
}

int32_t shimrt_k_rt_result(const shimrt_k_result_type *s) {
    int32_t r = combine(s->dim, combine(s->zero, s->wrapped));
    return r == RT_INVALID ? -1 : r;
}

/* ---- shapes ------------------------------------------------------------------------ */

const char *shimrt_k_fmt_shape(char *buf, size_t n, int64_t ndim, const int64_t *sizes) {
    size_t used = 0;
    int w = snprintf(buf, n, "[");
    used = w > 0 ? (size_t)w : 0;
    for (int64_t d = 0; d < ndim && used < n; d++) {
        w = snprintf(buf + used, n - used, "%s%lld", d ? ", " : "", (long long)sizes[d]);
        if (w < 0) break;
        used += (size_t)w;
    }
    if (used < n) snprintf(buf + used, n - used, "]");
    if (used >= n && n > 4) memcpy(buf + n - 4, "...", 4);
    return buf;
}

AOTITorchError shimrt_k_broadcast(const char *op, int64_t na, const int64_t *a, int64_t nb,
                                  const int64_t *b, int64_t *out, int64_t *out_ndim) {
    int64_t n = na > nb ? na : nb;
    for (int64_t i = 0; i < n; i++) {
        int64_t ia = na - n + i, ib = nb - n + i;
        int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1) {
            char ba[128], bb[128];
            return shimrt_fail(op,
                               "shapes %s and %s cannot be broadcast (size %lld vs %lld at "
                               "dimension %lld of the result)",
                               shimrt_k_fmt_shape(ba, sizeof ba, na, a),
                               shimrt_k_fmt_shape(bb, sizeof bb, nb, b), (long long)sa,
                               (long long)sb, (long long)i);
        }
        out[i] = sa == 1 ? sb : sa;
    }
    *out_ndim = n;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_k_wrap_dim(const char *op, int64_t dim, int64_t ndim, int64_t *out) {
    int64_t n = ndim <= 0 ? 1 : ndim;
    if (dim < -n || dim >= n)
        return shimrt_fail(op,
                           "Dimension out of range (expected to be in range of [%lld, %lld], "
                           "but got %lld)",
                           (long long)-n, (long long)(n - 1), (long long)dim);
    *out = dim < 0 ? dim + n : dim;
    return AOTI_TORCH_SUCCESS;
}

bool shimrt_k_numel(int64_t ndim, const int64_t *sizes, int64_t *out) {
    int64_t n = 1;
    bool zero = false, over = false;
    for (int64_t d = 0; d < ndim; d++) {
        if (sizes[d] == 0)
            zero = true;
        else if (!over && __builtin_mul_overflow(n, sizes[d], &n))
            over = true;
    }
    if (zero) {
        *out = 0;
        return true;
    }
    if (over) return false;
    *out = n;
    return true;
}

/* ---- tensors ------------------------------------------------------------------------ */

AOTITorchError shimrt_k_check_defined(const char *op, const struct AtenTensorOpaque *t,
                                      const char *argname) {
    if (!t->defined) return shimrt_fail(op, "'%s' is an undefined tensor", argname);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_k_check_cpu(const char *op, const struct AtenTensorOpaque *t,
                                  const char *argname) {
    if (shimrt_k_check_defined(op, t, argname)) return AOTI_TORCH_FAILURE;
    if (t->device_type != SHIMRT_DEV_CPU) {
        const char *dn = shimrt_device_type_name(t->device_type);
        return shimrt_fail(op, "expected a CPU tensor for '%s', got a %s tensor", argname,
                           dn ? dn : "unknown-device");
    }
    if (t->layout != SHIMRT_LAYOUT_STRIDED)
        return shimrt_fail(op, "expected a strided tensor for '%s'", argname);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_k_check_cpu_or_meta(const char *op, const struct AtenTensorOpaque *t,
                                          const char *argname) {
    if (t->defined && t->device_type == SHIMRT_DEV_META) {
        if (t->layout != SHIMRT_LAYOUT_STRIDED)
            return shimrt_fail(op, "expected a strided tensor for '%s'", argname);
        return AOTI_TORCH_SUCCESS;
    }
    return shimrt_k_check_cpu(op, t, argname);
}

AOTITorchError shimrt_meta_copy_as(const char *op, const struct AtenTensorOpaque *self, int32_t fmt,
                                   int32_t dt, AtenTensorHandle *ret0) {
    int64_t strides[SHIMRT_MAX_DIMS];
    bool use;
    if (shimrt_check_dtype(op, dt) || shimrt_k_format_strides(op, self, fmt, strides, &use))
        return AOTI_TORCH_FAILURE;
    return shimrt_k_give(shimrt_tensor_empty(op, self->ndim, self->sizes, use ? strides : NULL, dt,
                                             SHIMRT_DEV_META, -1),
                         ret0);
}

AOTITorchError shimrt_k_check_dtype(const char *op, const struct AtenTensorOpaque *t,
                                    const char *argname) {
    if (!shimrt_k_dtype_ok(t->dtype)) {
        const char *n = shimrt_dtype_name(t->dtype);
        return shimrt_fail(op, "dtype %s of '%s' is not supported", n ? n : "?", argname);
    }
    return AOTI_TORCH_SUCCESS;
}

AtenTensorHandle shimrt_k_alias(const char *op, const struct AtenTensorOpaque *t, int64_t ndim,
                                const int64_t *sizes, const int64_t *strides,
                                int64_t storage_offset) {
    return shimrt_tensor_new(op, t->storage, ndim, sizes, strides, storage_offset, t->dtype,
                             t->device_type, t->device_index, t->layout);
}

AtenTensorHandle shimrt_k_empty_like_dev(const char *op, const struct AtenTensorOpaque *t,
                                         int64_t ndim, const int64_t *sizes, const int64_t *strides,
                                         int32_t dtype) {
    return shimrt_tensor_empty(op, ndim, sizes, strides, dtype, t->device_type, t->device_index);
}

void shimrt_k_layout_perm(int nd, const int64_t *shape, int nops,
                          const int64_t (*st)[SHIMRT_MAX_DIMS], int *perm) {
    for (int i = 0; i < nd; i++) perm[i] = nd - 1 - i;
    for (int i = 1; i < nd; i++) { /* insertion sort; ambiguous pairs stay where they are */
        int dim1 = i;
        for (int dim0 = i - 1; dim0 >= 0; dim0--) {
            int a = perm[dim0], b = perm[dim1], cmp = 0;
            for (int k = 0; k < nops; k++) {
                int64_t s0 = st[k][a], s1 = st[k][b];
                if (s0 == 0 || s1 == 0) continue; /* broadcast: this operand cannot tell */
                if (s0 != s1) {
                    cmp = s0 < s1 ? -1 : 1;
                    break;
                }
                if (shape[a] > shape[b]) { /* equal strides: the smaller dim goes inner */
                    cmp = 1;
                    break;
                }
            }
            if (cmp > 0) {
                perm[dim0] = b;
                perm[dim1] = a;
                dim1 = dim0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
}

AOTITorchError shimrt_k_scalar_fits(const char *op, shimrt_scalar sv, int32_t dt,
                                    bool one_element) {
    double v = sv.d;
    const char *name;
    double lo, hi; /* the type's range */
    switch (dt) {
    case SHIMRT_UINT8: name = "uint8_t", lo = 0, hi = 255; break;
    case SHIMRT_UINT16: name = "uint16_t", lo = 0, hi = 65535; break;
    case SHIMRT_UINT32: name = "uint32_t", lo = 0, hi = 4294967295.0; break;
    case SHIMRT_UINT64: name = "uint64_t", lo = 0, hi = 18446744073709551615.0; break;
    case SHIMRT_INT8: name = "int8_t", lo = -128, hi = 127; break;
    case SHIMRT_INT16: name = "int16_t", lo = -32768, hi = 32767; break;
    case SHIMRT_INT32: name = "int", lo = -2147483648.0, hi = 2147483647.0; break;
    case SHIMRT_INT64:
        name = "int64_t", lo = -9223372036854775808.0, hi = 9223372036854775808.0;
        break;
    case SHIMRT_FLOAT16: name = "c10::Half", lo = -65504.0, hi = 65504.0; break;
    case SHIMRT_BFLOAT16:
        name = "c10::BFloat16", lo = -3.3895313892515355e38, hi = 3.3895313892515355e38;
        break;
    case SHIMRT_FLOAT32: name = "float", lo = -FLT_MAX, hi = FLT_MAX; break;
    case SHIMRT_COMPLEX64: name = "c10::complex<float>", lo = -FLT_MAX, hi = FLT_MAX; break;
    case SHIMRT_COMPLEX32: name = "c10::complex<c10::Half>", lo = -65504.0, hi = 65504.0; break;
    default: return AOTI_TORCH_SUCCESS; /* bool, float64, complex128: anything converts */
    }
    bool half = dt == SHIMRT_FLOAT16 || dt == SHIMRT_BFLOAT16, bad;
    bool flt = shimrt_k_is_floating(dt) || shimrt_dtype_is_complex(dt);
    /* PyTorch fills a one-element tensor through scalar_fill, which converts to the half
     * types unchecked */
    if (half && one_element) return AOTI_TORCH_SUCCESS;
    /* an int (or bool) Scalar converts as c10::overflows<To, int64_t>, a floating one as
     * c10::overflows<To, double> */
    bool integral = shimrt_scalar_is_integral(sv, true);
    bool unsig = dt == SHIMRT_UINT8 || dt == SHIMRT_UINT16 || dt == SHIMRT_UINT32;
    if (integral && (dt == SHIMRT_INT64 || dt == SHIMRT_UINT64))
        bad = false; /* every int64 converts (to uint64: wrapping) */
    else if (integral && unsig)
        bad = v > hi || v < -hi; /* unsigned: negatives wrap up to -max */
    else if (integral && !flt)
        bad = v > hi || v < (lo == 0 ? -hi : lo); /* unsigned: negatives wrap up to -max */
    else if (integral)
        bad = v < lo || v > hi;
    else if (!flt)                                   /* c10::overflows: NaN and inf never fit */
        bad = !isfinite(v) || v >= hi + 1 || v < lo; /* measured on PyTorch 2.15 */
    else if (dt == SHIMRT_FLOAT16 || dt == SHIMRT_COMPLEX32) /* c10::overflows: beyond 65504
                                                                 (fill_, full, linspace) */
        bad = isfinite(v) && fabs(v) > 65504.0;
    else
        bad = isfinite(v) && (v < lo || v > hi);
    /* a complex Scalar into complex32: c10::overflows checks both parts */
    if (dt == SHIMRT_COMPLEX32 && sv.kind == SHIMRT_SCALAR_KIND_COMPLEX)
        bad = bad || (isfinite(sv.im) && fabs(sv.im) > 65504.0);
    if (bad) return shimrt_fail(op, "value cannot be converted to type %s without overflow", name);
    return AOTI_TORCH_SUCCESS;
}

bool shimrt_k_partial_overlap(const struct AtenTensorOpaque *a, const struct AtenTensorOpaque *b) {
    int64_t na = shimrt_numel(a), nb = shimrt_numel(b);
    if (a == b || na == 0 || nb == 0) return false;
    if (!shimrt_k_dense(a) || !shimrt_k_dense(b)) return false; /* "too hard": not checked */
    if (!a->storage || a->storage != b->storage) return false;
    uintptr_t ab = (uintptr_t)shimrt_data(a), bb = (uintptr_t)shimrt_data(b);
    uintptr_t ae = ab + (uintptr_t)na * shimrt_dtype_size(a->dtype);
    uintptr_t be = bb + (uintptr_t)nb * shimrt_dtype_size(b->dtype);
    if (ab == bb && ae == be) { /* full overlap unless the strides differ */
        if (a->ndim != b->ndim) return true;
        for (int64_t d = 0; d < a->ndim; d++)
            if (a->strides[d] != b->strides[d]) return true;
        return false;
    }
    return ab < be && bb < ae;
}

AOTITorchError shimrt_k_check_pin(const char *op, const int32_t *pin_memory) {
    if (pin_memory && *pin_memory) /* PyTorch needs an accelerator; pinned memory is not ours */
        return shimrt_fail(op, "pin_memory=True is not supported");
    return AOTI_TORCH_SUCCESS;
}

bool shimrt_k_can_cast(int32_t from, int32_t to) {
    bool fc = from == SHIMRT_COMPLEX32 || from == SHIMRT_COMPLEX64 || from == SHIMRT_COMPLEX128;
    bool tc = to == SHIMRT_COMPLEX32 || to == SHIMRT_COMPLEX64 || to == SHIMRT_COMPLEX128;
    if (fc && !tc) return false;
    bool ff = fc || shimrt_k_is_floating(from), tf = tc || shimrt_k_is_floating(to);
    if (ff && !tf) return false;
    return from == SHIMRT_BOOL || to != SHIMRT_BOOL;
}

AOTITorchError shimrt_k_inplace_check(const char *op, const struct AtenTensorOpaque *self,
                                      const struct AtenTensorOpaque *r) {
    char a[128], b[128];
    if (r->ndim != self->ndim || memcmp(r->sizes, self->sizes, (size_t)r->ndim * sizeof *r->sizes))
        return shimrt_fail(op, "output with shape %s doesn't match the broadcast shape %s",
                           shimrt_k_fmt_shape(a, sizeof a, self->ndim, self->sizes),
                           shimrt_k_fmt_shape(b, sizeof b, r->ndim, r->sizes));
    if (!shimrt_k_can_cast(r->dtype, self->dtype))
        return shimrt_fail(op, "result type %s can't be cast to the desired output type %s",
                           shimrt_dtype_torch_name(r->dtype), shimrt_dtype_torch_name(self->dtype));
    return AOTI_TORCH_SUCCESS;
}

void shimrt_k_sort_by_stride(const struct AtenTensorOpaque *t, int64_t *dims, int64_t n) {
    for (int64_t i = 1; i < n; i++) {
        int64_t v = dims[i], j = i;
        while (j > 0 && t->strides[dims[j - 1]] < t->strides[v]) {
            dims[j] = dims[j - 1];
            j--;
        }
        dims[j] = v;
    }
}

void shimrt_k_preserve_strides(const struct AtenTensorOpaque *t, int64_t *strides) {
    if (shimrt_k_dense(t)) {
        for (int64_t d = 0; d < t->ndim; d++) strides[d] = t->strides[d];
        return;
    }
    int64_t st[1][SHIMRT_MAX_DIMS];
    int perm[SHIMRT_MAX_DIMS];
    for (int64_t d = 0; d < t->ndim; d++) st[0][d] = t->strides[d];
    shimrt_k_layout_perm((int)t->ndim, t->sizes, 1, (const int64_t(*)[SHIMRT_MAX_DIMS])st, perm);
    int64_t s = 1;
    for (int64_t i = 0; i < t->ndim; i++) {
        int64_t d = perm[i];
        strides[d] = s;
        if (t->sizes[d] > 1) s *= t->sizes[d];
    }
}

/* [lo, hi) bytes spanned by t (empty when t has no elements). */
static void span(const struct AtenTensorOpaque *t, uintptr_t *lo, uintptr_t *hi) {
    uintptr_t base = (uintptr_t)shimrt_data(t);
    int64_t n = shimrt_numel(t);
    if (n == 0 || base == 0) {
        *lo = *hi = 0;
        return;
    }
    int64_t last = 0; /* offset in elements of the farthest element (strides are >= 0) */
    for (int64_t d = 0; d < t->ndim; d++) last += (t->sizes[d] - 1) * t->strides[d];
    size_t es = shimrt_dtype_size(t->dtype);
    *lo = base;
    *hi = base + (uintptr_t)last * es + es;
}

bool shimrt_k_may_overlap(const struct AtenTensorOpaque *a, const struct AtenTensorOpaque *b) {
    uintptr_t alo, ahi, blo, bhi;
    span(a, &alo, &ahi);
    span(b, &blo, &bhi);
    if (alo == ahi || blo == bhi) return false;
    return alo < bhi && blo < ahi;
}

int64_t shimrt_k_reduced_shape(int64_t ndim, const int64_t *sizes, int64_t d, bool keepdim,
                               int64_t *out) {
    int64_t on = 0;
    for (int64_t k = 0; k < ndim; k++)
        if (k != d)
            out[on++] = sizes[k];
        else if (keepdim)
            out[on++] = 1;
    return on;
}

AOTITorchError shimrt_k_mean_dtype(const char *op, int32_t self_dtype, const int32_t *dtype,
                                   int32_t *out) {
    *out = dtype ? *dtype : self_dtype;
    if (shimrt_k_is_floating(*out)) return AOTI_TORCH_SUCCESS;
    const char *n = shimrt_dtype_name(*out);
    return shimrt_fail(op,
                       "mean(): could not infer output dtype. %s dtype must be either "
                       "a floating point or complex dtype. Got: %s",
                       dtype ? "Optional" : "Input", n ? n : "?");
}

AOTITorchError shimrt_k_softmax_dtype(const char *op, const char *kernel, int32_t self_dtype,
                                      const int32_t *dtype, int32_t *out) {
    *out = dtype ? *dtype : self_dtype;
    if (shimrt_k_is_floating(*out)) return AOTI_TORCH_SUCCESS;
    return shimrt_fail(op, "\"%s\" not implemented for '%s'", kernel,
                       shimrt_dtype_torch_name(*out));
}

AOTITorchError shimrt_k_reduce_dim_nonempty(const char *op, const char *fn,
                                            const struct AtenTensorOpaque *self, int64_t dim,
                                            int64_t *out) {
    if (shimrt_k_wrap_dim(op, dim, self->ndim, out)) return AOTI_TORCH_FAILURE;
    if (self->ndim > 0 && self->sizes[*out] == 0)
        return shimrt_fail(op, "%s(): Expected reduction dim %lld to have non-zero size.", fn,
                           (long long)*out);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_k_index_select_check(const char *op, const struct AtenTensorOpaque *self,
                                           int64_t dim, const struct AtenTensorOpaque *index,
                                           int64_t *out) {
    if (shimrt_k_wrap_dim(op, dim, self->ndim, out)) return AOTI_TORCH_FAILURE;
    if (index->dtype != SHIMRT_INT64 && index->dtype != SHIMRT_INT32)
        return shimrt_fail(op, "index_select(): Expected dtype int32 or int64 for index");
    if (index->ndim > 1) return shimrt_fail(op, "index_select(): Index is supposed to be a vector");
    int64_t k = 1;
    for (int64_t d = 0; d < index->ndim; d++) k *= index->sizes[d];
    if (self->ndim == 0 && k != 1)
        return shimrt_fail(op,
                           "index_select(): Index to scalar can have only 1 value, got %lld "
                           "value(s)",
                           (long long)k);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_k_index_in_range(const char *op, int64_t v, int64_t limit) {
    if (v < 0 || v >= limit) return shimrt_fail(op, "index out of range in self");
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_k_scatter_index_check(const char *op, const struct AtenTensorOpaque *self,
                                            int64_t dim, const struct AtenTensorOpaque *index,
                                            const struct AtenTensorOpaque *src, bool gather) {
    /* PyTorch takes int32 and int64 indices; the CUDA kernels here read int64 only */
    if (index->dtype != SHIMRT_INT64 && index->dtype != SHIMRT_INT32)
        return shimrt_fail(op, "%s(): Expected dtype int32/int64 for index",
                           gather ? "gather" : "scatter");
    if (index->dtype == SHIMRT_INT32 && index->device_type != SHIMRT_DEV_CPU)
        return shimrt_fail(op, "Expected dtype int64 for index, got int32 (the CUDA kernels "
                               "read int64 indices only)");
    /* PyTorch treats a 0-d tensor as one of size [1] here (ensure_nonempty_dim/_size) */
    int64_t sn = self->ndim ? self->ndim : 1, in = index->ndim ? index->ndim : 1, n = 1;
    for (int64_t d = 0; d < index->ndim; d++) n *= index->sizes[d];
    if (n == 0) return AOTI_TORCH_SUCCESS;
    if (in != sn)
        return shimrt_fail(op, "Index tensor must have the same number of dimensions as %s tensor",
                           gather ? "input" : "self");
    if (src && (src->ndim ? src->ndim : 1) != in)
        return shimrt_fail(op, "Index tensor must have the same number of dimensions as src "
                               "tensor");
    for (int64_t d = 0; d < in; d++) {
        int64_t isz = index->ndim ? index->sizes[d] : 1;
        bool over_self = d != dim && isz > (self->ndim ? self->sizes[d] : 1);
        bool over_src = src && isz > (src->ndim ? src->sizes[d] : 1);
        if (!over_self && !over_src) continue;
        char is[256], ss[256], rs[256];
        shimrt_k_fmt_shape(is, sizeof is, index->ndim, index->sizes);
        shimrt_k_fmt_shape(ss, sizeof ss, self->ndim, self->sizes);
        if (gather)
            return shimrt_fail(op,
                               "Size does not match at dimension %lld expected index %s to be "
                               "no larger than self %s apart from dimension %lld",
                               (long long)d, is, ss, (long long)dim);
        if (!src)
            return shimrt_fail(op,
                               "Expected index %s to be no larger than self %s apart from "
                               "dimension %lld",
                               is, ss, (long long)dim);
        shimrt_k_fmt_shape(rs, sizeof rs, src->ndim, src->sizes);
        return shimrt_fail(op,
                           "Expected index %s to be no larger than self %s apart from dimension "
                           "%lld and to be no larger size than src %s",
                           is, ss, (long long)dim, rs);
    }
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError
shimrt_k_sum_out(const char *op, AtenTensorHandle out, AtenTensorHandle self, const int64_t *dim,
                 int64_t dim_len, int32_t keepdim, int32_t *dtype,
                 AOTITorchError (*sum)(AtenTensorHandle self, const int64_t *dim, int64_t dim_len,
                                       int32_t keepdim, int32_t *dtype, AtenTensorHandle *ret)) {
    if (dtype && *dtype != out->dtype)
        return shimrt_fail(op,
                           "Expected the dtype for input and out to match, but got %s "
                           "for input's dtype and %s for out's dtype.",
                           shimrt_dtype_name(*dtype), shimrt_dtype_name(out->dtype));
    int32_t odt = out->dtype;
    /* PyTorch's meta resizes out to the reduced shape before its kernel refuses a dtype
     * (uint16/32/64, complex32): so here, once the dims are valid (else the sum fails) */
    bool red[SHIMRT_MAX_DIMS] = {false}, valid = self->ndim <= SHIMRT_MAX_DIMS;
    int64_t n = self->ndim ? self->ndim : 1, shape[SHIMRT_MAX_DIMS], nd = 0;
    for (int64_t i = 0; valid && i < (dim ? dim_len : 0); i++) {
        int64_t d = dim[i] < 0 ? dim[i] + n : dim[i];
        valid = d >= 0 && d < n && !red[d];
        if (valid) red[d] = true;
    }
    for (int64_t d = 0; valid && d < self->ndim; d++)
        if (!red[d] && dim && dim_len > 0)
            shape[nd++] = self->sizes[d];
        else if (keepdim)
            shape[nd++] = 1;
    if (valid && shimrt_resize_output(op, out, nd, shape)) return AOTI_TORCH_FAILURE;
    AtenTensorHandle s = NULL;
    if (sum(self, dim, dim_len, keepdim, &odt, &s)) return AOTI_TORCH_FAILURE;
    AOTITorchError err = shimrt_resize_output(op, out, s->ndim, s->sizes);
    if (!err) err = shimrt_backend_copy(op, out, s);
    shimrt_tensor_free(s);
    return err;
}

const char *shimrt_k_legacy_reduce(const char *op, const char *reduce) {
    if (reduce && !strcmp(reduce, "add")) return "sum";
    if (reduce && !strcmp(reduce, "multiply")) return "prod";
    shimrt_fail(op, "reduce argument must be either add or multiply.");
    return NULL;
}

AOTITorchError shimrt_k_index_in_bounds(const char *op, int64_t v, int64_t dim, int64_t limit) {
    if (v < 0 || v >= limit) /* negative indices are refused, as PyTorch's CPU kernels do */
        return shimrt_fail(op, "index %lld is out of bounds for dimension %lld with size %lld",
                           (long long)v, (long long)dim, (long long)limit);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_k_mm_shape(const char *op, const struct AtenTensorOpaque *a, const char *an,
                                 const struct AtenTensorOpaque *b, int64_t shape[2]) {
    if (a->ndim != 2) return shimrt_fail(op, "%s must be a matrix", an);
    if (b->ndim != 2) return shimrt_fail(op, "mat2 must be a matrix");
    if (a->sizes[1] != b->sizes[0])
        return shimrt_fail(op,
                           "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                           (long long)a->sizes[0], (long long)a->sizes[1], (long long)b->sizes[0],
                           (long long)b->sizes[1]);
    shape[0] = a->sizes[0];
    shape[1] = b->sizes[1];
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_k_bmm_shape(const char *op, const struct AtenTensorOpaque *a,
                                  const struct AtenTensorOpaque *b, int64_t shape[3]) {
    if (a->ndim != 3) return shimrt_fail(op, "batch1 must be a 3D tensor");
    if (b->ndim != 3) return shimrt_fail(op, "batch2 must be a 3D tensor");
    if (a->sizes[0] != b->sizes[0] || a->sizes[2] != b->sizes[1])
        return shimrt_fail(op,
                           "Expected size for first two dimensions of batch2 tensor to be: "
                           "[%lld, %lld] but got: [%lld, %lld].",
                           (long long)a->sizes[0], (long long)a->sizes[2], (long long)b->sizes[0],
                           (long long)b->sizes[1]);
    shape[0] = a->sizes[0];
    shape[1] = a->sizes[1];
    shape[2] = b->sizes[2];
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_k_matmul_shape(const char *op, const struct AtenTensorOpaque *self,
                                     const struct AtenTensorOpaque *other,
                                     const struct AtenTensorOpaque *a,
                                     const struct AtenTensorOpaque *b, int64_t *full, int64_t *nb,
                                     int64_t *rshape, int64_t *rn) {
    int64_t n = a->sizes[a->ndim - 2], k = a->sizes[a->ndim - 1];
    int64_t k2 = b->sizes[b->ndim - 2], m = b->sizes[b->ndim - 1];
    if (k != k2) {
        if (self->ndim == 1 && other->ndim == 1)
            return shimrt_fail(op,
                               "inconsistent tensor size, expected tensor [%lld] and src "
                               "[%lld] to have the same number of elements, but got %lld "
                               "and %lld elements respectively",
                               (long long)k, (long long)k2, (long long)k, (long long)k2);
        return shimrt_fail(op,
                           "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                           (long long)n, (long long)k, (long long)k2, (long long)m);
    }
    if (shimrt_k_broadcast(op, a->ndim - 2, a->sizes, b->ndim - 2, b->sizes, full, nb))
        return AOTI_TORCH_FAILURE;
    *rn = 0;
    for (int64_t i = 0; i < *nb; i++) rshape[(*rn)++] = full[i];
    if (self->ndim > 1) rshape[(*rn)++] = n;
    if (other->ndim > 1) rshape[(*rn)++] = m;
    full[*nb] = n;
    full[*nb + 1] = m;
    return AOTI_TORCH_SUCCESS;
}

int32_t shimrt_k_result_type_of(int n, const struct AtenTensorOpaque *const *t, int ns,
                                const shimrt_scalar *scalars) {
    shimrt_k_result_type s;
    shimrt_k_rt_init(&s);
    for (int i = 0; i < n; i++) shimrt_k_rt_add_tensor(&s, t[i]);
    for (int i = 0; i < ns; i++) shimrt_k_rt_add_scalar(&s, scalars[i]);
    return shimrt_k_rt_result(&s);
}

AOTITorchError shimrt_k_out_no_overlap(const char *op, const struct AtenTensorOpaque *out,
                                       const struct AtenTensorOpaque *self,
                                       const struct AtenTensorOpaque *index) {
    if (shimrt_k_internal_overlap(out))
        return shimrt_fail(op, "unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.");
    if (shimrt_k_may_overlap(out, self) || shimrt_k_may_overlap(out, index))
        return shimrt_fail(op, "unsupported operation: some elements of the input tensor and "
                               "the written-to tensor refer to a single memory location. Please "
                               "clone() the tensor before performing the operation.");
    return AOTI_TORCH_SUCCESS;
}

static bool norm_dtype(int32_t dt) { return shimrt_dtype_is_floating(dt); }

AOTITorchError shimrt_k_sort_check(const char *op, const struct AtenTensorOpaque *self, int64_t dim,
                                   int32_t device_type, int64_t *out) {
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (self->device_type != device_type)
        return shimrt_fail(op, "expected a %s tensor, got %s",
                           device_type == SHIMRT_DEV_CPU ? "CPU" : "CUDA",
                           shimrt_device_type_name(self->device_type));
    if (shimrt_k_wrap_dim(op, dim, self->ndim, out)) return AOTI_TORCH_FAILURE;
    if (!shimrt_k_dtype_ok(self->dtype))
        return shimrt_fail(op, "dtype %s is not supported", shimrt_dtype_name(self->dtype));
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_k_layer_norm_check(const char *op, const struct AtenTensorOpaque *input,
                                         const int64_t *ns, int64_t nn,
                                         const struct AtenTensorOpaque *weight,
                                         const struct AtenTensorOpaque *bias, int32_t device_type) {
    char a[256], b[256];
    if (nn < 1)
        return shimrt_fail(op, "Expected normalized_shape to be at least 1-dimensional, i.e., "
                               "containing at least one element, but got normalized_shape = []");
    if (shimrt_k_check_defined(op, input, "input")) return AOTI_TORCH_FAILURE;
    if (input->device_type != device_type)
        return shimrt_fail(op, "expected a %s tensor, got %s",
                           device_type == SHIMRT_DEV_CPU ? "CPU" : "CUDA",
                           shimrt_device_type_name(input->device_type));
    if (!norm_dtype(input->dtype))
        return shimrt_fail(op, "\"LayerNormKernelImpl\" not implemented for '%s'",
                           shimrt_dtype_torch_name(input->dtype));
    const struct AtenTensorOpaque *wb[2] = {weight, bias};
    static const char *const names[2] = {"weight", "bias"};
    for (int k = 0; k < 2; k++) {
        const struct AtenTensorOpaque *t = wb[k];
        if (!t) continue;
        if (shimrt_k_check_defined(op, t, names[k])) return AOTI_TORCH_FAILURE;
        bool ok = t->ndim == nn && t->device_type == device_type;
        for (int64_t d = 0; ok && d < nn; d++) ok = t->sizes[d] == ns[d];
        if (!ok)
            return shimrt_fail(op,
                               "Expected %s to be of same shape as normalized_shape, but "
                               "got %s of shape %s and normalized_shape = %s",
                               names[k], names[k],
                               shimrt_k_fmt_shape(a, sizeof a, t->ndim, t->sizes),
                               shimrt_k_fmt_shape(b, sizeof b, nn, ns));
    }
    bool ok = input->ndim >= nn;
    for (int64_t d = 0; ok && d < nn; d++) ok = input->sizes[input->ndim - nn + d] == ns[d];
    if (!ok) {
        shimrt_k_fmt_shape(a, sizeof a, nn, ns);
        shimrt_k_fmt_shape(b, sizeof b, input->ndim, input->sizes);
        return shimrt_fail(op,
                           "Given normalized_shape=%s, expected input with shape [*, %s, "
                           "but got input of size%s",
                           a, a + 1, b);
    }
    return AOTI_TORCH_SUCCESS;
}

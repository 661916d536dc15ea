/* runtime/generic/views.c: views that work for any device (CompositeExplicitAutograd:
 * metadata only): view, transpose.int, permute, narrow, select.int, squeeze.dim, unsqueeze,
 * and the shape and stride rules that reshape shares (see meta.h). Every returned handle is a
 * new reference sharing self's storage. */
#include <string.h>

#include "compositeexplicitautograd_kernels.h"
#include "meta.h"

AOTITorchError shimrt_k_infer_size(const char *op, const int64_t *shape, int64_t n, int64_t numel,
                                   int64_t *out) {
    char b[256];
    if (n > SHIMRT_MAX_DIMS)
        return shimrt_fail(op, "%lld dimensions are too many (at most %d)", (long long)n,
                           SHIMRT_MAX_DIMS);
    int64_t infer = -1, prod = 1;
    bool over = false;
    for (int64_t i = 0; i < n; i++) {
        if (shape[i] == -1) {
            if (infer >= 0) return shimrt_fail(op, "only one dimension can be inferred");
            infer = i;
        } else if (shape[i] < 0) {
            return shimrt_fail(op, "invalid shape dimension %lld", (long long)shape[i]);
        } else if (!over && __builtin_mul_overflow(prod, shape[i], &prod)) {
            over = true;
        }
        out[i] = shape[i];
    }
    if (infer >= 0) {
        if (prod == 0)
            return shimrt_fail(op,
                               "cannot reshape tensor of %lld elements into shape %s because "
                               "the unspecified dimension size -1 can be any value and is "
                               "ambiguous",
                               (long long)numel, shimrt_k_fmt_shape(b, sizeof b, n, shape));
        if (!over && numel % prod == 0) {
            out[infer] = numel / prod;
            return AOTI_TORCH_SUCCESS;
        }
    } else if (!over && prod == numel) {
        return AOTI_TORCH_SUCCESS;
    }
    return shimrt_fail(op, "shape '%s' is invalid for input of size %lld",
                       shimrt_k_fmt_shape(b, sizeof b, n, shape), (long long)numel);
}

/* Wrapping product (no signed-overflow UB on strange strides of size-1 dims). */
static uint64_t umul(int64_t a, int64_t b) { return (uint64_t)a * (uint64_t)b; }

/* Old dims are taken as runs ("chunks") of dims that are contiguous with one another; each
 * chunk must map onto a run of new dims with the same element count. */
bool shimrt_k_view_strides(const struct AtenTensorOpaque *t, int64_t nn, const int64_t *ns,
                           int64_t *out) {
    int64_t numel = shimrt_numel(t);
    if (numel == 0) {
        bool same = nn == t->ndim;
        for (int64_t d = 0; same && d < nn; d++) same = ns[d] == t->sizes[d];
        if (same)
            memcpy(out, t->strides, (size_t)nn * sizeof *out);
        else
            shimrt_contiguous_strides(nn, ns, out);
        return true;
    }
    int64_t nd = nn - 1; /* next new dim to assign, from the right */
    int64_t base = t->ndim ? t->strides[t->ndim - 1] : 1; /* stride of the chunk's last dim */
    int64_t chunk = 1, got = 1;
    for (int64_t od = t->ndim - 1; od >= 0; od--) {
        chunk *= t->sizes[od];
        bool chunk_ends =
            od == 0 || (t->sizes[od - 1] != 1 && (uint64_t)t->strides[od - 1] != umul(chunk, base));
        if (!chunk_ends) continue;
        while (nd >= 0 && (got < chunk || ns[nd] == 1)) {
            out[nd] = (int64_t)umul(got, base);
            got *= ns[nd];
            nd--;
        }
        if (got != chunk) return false;
        if (od > 0) {
            base = t->strides[od - 1];
            chunk = got = 1;
        }
    }
    /* what is left are size-1 dims (a 0-dim input leaves every new dim) */
    while (nd >= 0) {
        if (ns[nd] != 1) return false;
        out[nd] = (int64_t)umul(got, base);
        nd--;
    }
    return true;
}

AOTITorchError shimrt_view(AtenTensorHandle self, const int64_t *size, int64_t size_len_,
                           AtenTensorHandle *ret0) {
    static const char op[] = "view";
    int64_t shape[SHIMRT_MAX_DIMS], strides[SHIMRT_MAX_DIMS];
    if (shimrt_k_check_defined(op, self, "self") ||
        shimrt_k_infer_size(op, size, size_len_, shimrt_numel(self), shape))
        return AOTI_TORCH_FAILURE;
    if (!shimrt_k_view_strides(self, size_len_, shape, strides))
        return shimrt_fail(op, "view size is not compatible with input tensor's size and stride "
                               "(at least one dimension spans across two contiguous subspaces). "
                               "Use .reshape(...) instead.");
    return shimrt_k_give(shimrt_k_alias(op, self, size_len_, shape, strides, self->storage_offset),
                         ret0);
}

AOTITorchError shimrt_transpose_int(AtenTensorHandle self, int64_t dim0, int64_t dim1,
                                    AtenTensorHandle *ret0) {
    static const char op[] = "transpose.int";
    int64_t a, b;
    if (shimrt_k_check_defined(op, self, "self") || shimrt_k_wrap_dim(op, dim0, self->ndim, &a) ||
        shimrt_k_wrap_dim(op, dim1, self->ndim, &b))
        return AOTI_TORCH_FAILURE;
    int64_t sizes[SHIMRT_MAX_DIMS], strides[SHIMRT_MAX_DIMS];
    memcpy(sizes, self->sizes, (size_t)self->ndim * sizeof *sizes);
    memcpy(strides, self->strides, (size_t)self->ndim * sizeof *strides);
    if (self->ndim > 0) {
        sizes[a] = self->sizes[b];
        sizes[b] = self->sizes[a];
        strides[a] = self->strides[b];
        strides[b] = self->strides[a];
    }
    return shimrt_k_give(shimrt_k_alias(op, self, self->ndim, sizes, strides, self->storage_offset),
                         ret0);
}

AOTITorchError shimrt_permute(AtenTensorHandle self, const int64_t *dims, int64_t dims_len_,
                              AtenTensorHandle *ret0) {
    static const char op[] = "permute";
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (dims_len_ != self->ndim)
        return shimrt_fail(op,
                           "number of dimensions in the tensor input does not match the length "
                           "of the desired ordering of dimensions i.e. input.dim() = %lld is not "
                           "equal to len(dims) = %lld",
                           (long long)self->ndim, (long long)dims_len_);
    int64_t sizes[SHIMRT_MAX_DIMS], strides[SHIMRT_MAX_DIMS];
    bool seen[SHIMRT_MAX_DIMS] = {false};
    for (int64_t i = 0; i < dims_len_; i++) {
        int64_t d;
        if (shimrt_k_wrap_dim(op, dims[i], self->ndim, &d)) return AOTI_TORCH_FAILURE;
        if (seen[d])
            return shimrt_fail(op, "duplicate dims are not allowed (dim %lld)", (long long)d);
        seen[d] = true;
        sizes[i] = self->sizes[d];
        strides[i] = self->strides[d];
    }
    return shimrt_k_give(shimrt_k_alias(op, self, self->ndim, sizes, strides, self->storage_offset),
                         ret0);
}

/* narrow's and select's dim check: self defined, not 0-dim, dim wrapped into *d. */
static AOTITorchError dim_of(const char *op, const char *name, AtenTensorHandle self, int64_t dim,
                             int64_t *d) {
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (self->ndim == 0) return shimrt_fail(op, "%s() cannot be applied to a 0-dim tensor.", name);
    return shimrt_k_wrap_dim(op, dim, self->ndim, d);
}

AOTITorchError shimrt_narrow(AtenTensorHandle self, int64_t dim, int64_t start, int64_t length,
                             AtenTensorHandle *ret0) {
    static const char op[] = "narrow";
    int64_t d;
    if (dim_of(op, "narrow", self, dim, &d)) return AOTI_TORCH_FAILURE;
    if (length < 0) return shimrt_fail(op, "narrow(): length must be non-negative.");
    int64_t size = self->sizes[d];
    if (start < -size || start > size)
        return shimrt_fail(
            op, "start out of range (expected to be in range of [%lld, %lld], but got %lld)",
            (long long)-size, (long long)size, (long long)start);
    if (start < 0) start += size;
    if (start > size - length)
        return shimrt_fail(op, "start (%lld) + length (%lld) exceeds dimension size (%lld).",
                           (long long)start, (long long)length, (long long)size);
    int64_t sizes[SHIMRT_MAX_DIMS];
    memcpy(sizes, self->sizes, (size_t)self->ndim * sizeof *sizes);
    sizes[d] = length;
    return shimrt_k_give(shimrt_k_alias(op, self, self->ndim, sizes, self->strides,
                                        self->storage_offset + start * self->strides[d]),
                         ret0);
}

AOTITorchError shimrt_select_int(AtenTensorHandle self, int64_t dim, int64_t index,
                                 AtenTensorHandle *ret0) {
    static const char op[] = "select.int";
    int64_t d;
    if (dim_of(op, "select", self, dim, &d)) return AOTI_TORCH_FAILURE;
    int64_t size = self->sizes[d];
    if (index < -size || index >= size) {
        char b[256];
        return shimrt_fail(
            op, "select(): index %lld out of range for tensor of size %s at dimension %lld",
            (long long)index, shimrt_k_fmt_shape(b, sizeof b, self->ndim, self->sizes),
            (long long)dim);
    }
    if (index < 0) index += size;
    int64_t sizes[SHIMRT_MAX_DIMS], strides[SHIMRT_MAX_DIMS], n = 0;
    for (int64_t i = 0; i < self->ndim; i++) {
        if (i == d) continue;
        sizes[n] = self->sizes[i];
        strides[n++] = self->strides[i];
    }
    return shimrt_k_give(shimrt_k_alias(op, self, n, sizes, strides,
                                        self->storage_offset + index * self->strides[d]),
                         ret0);
}

AOTITorchError shimrt_squeeze_dim(AtenTensorHandle self, int64_t dim, AtenTensorHandle *ret0) {
    static const char op[] = "squeeze.dim";
    int64_t d;
    if (shimrt_k_check_defined(op, self, "self") || shimrt_k_wrap_dim(op, dim, self->ndim, &d))
        return AOTI_TORCH_FAILURE;
    int64_t sizes[SHIMRT_MAX_DIMS], strides[SHIMRT_MAX_DIMS], n = 0;
    for (int64_t i = 0; i < self->ndim; i++) {
        if (i == d && self->sizes[i] == 1) continue;
        sizes[n] = self->sizes[i];
        strides[n++] = self->strides[i];
    }
    return shimrt_k_give(shimrt_k_alias(op, self, n, sizes, strides, self->storage_offset), ret0);
}

AOTITorchError shimrt_unsqueeze(AtenTensorHandle self, int64_t dim, AtenTensorHandle *ret0) {
    static const char op[] = "unsqueeze";
    int64_t d;
    if (shimrt_k_check_defined(op, self, "self") || shimrt_k_wrap_dim(op, dim, self->ndim + 1, &d))
        return AOTI_TORCH_FAILURE;
    if (self->ndim + 1 > SHIMRT_MAX_DIMS)
        return shimrt_fail(op, "the result would have more than %d dimensions", SHIMRT_MAX_DIMS);
    int64_t sizes[SHIMRT_MAX_DIMS], strides[SHIMRT_MAX_DIMS], n = 0;
    for (int64_t i = 0; i <= self->ndim; i++) {
        if (i == d) {
            sizes[n] = 1;
            strides[n++] = d >= self->ndim ? 1 : (int64_t)umul(self->sizes[d], self->strides[d]);
        }
        if (i < self->ndim) {
            sizes[n] = self->sizes[i];
            strides[n++] = self->strides[i];
        }
    }
    return shimrt_k_give(shimrt_k_alias(op, self, n, sizes, strides, self->storage_offset), ret0);
}

/* PyTorch's promote_types over every dtype (cat copies, so complex and uint16/32/64 take
 * part): uint16/32/64 promote only with a floating type (to it), float8 types with none;
 * complex with a real floating type takes the wider of the two precisions. -1: refused. */
static int32_t promote_all(int32_t a, int32_t b) {
    if (a == b) return a;
    bool ua = a == SHIMRT_UINT16 || a == SHIMRT_UINT32 || a == SHIMRT_UINT64;
    bool ub = b == SHIMRT_UINT16 || b == SHIMRT_UINT32 || b == SHIMRT_UINT64;
    if (ua || ub) {
        if (!ua && shimrt_k_is_floating(a)) return a;
        if (!ub && shimrt_k_is_floating(b)) return b;
        return -1;
    }
    bool ca = shimrt_dtype_is_complex(a), cb = shimrt_dtype_is_complex(b);
    if (!ca && !cb) return shimrt_k_promote(a, b);
    /* precision ranks: complex32 / float16 0, complex64 / float32 / bfloat16 1, 128 / 64 2 */
    int ra = -1, rb = -1;
    const int32_t cx[3] = {SHIMRT_COMPLEX32, SHIMRT_COMPLEX64, SHIMRT_COMPLEX128};
    for (int k = 0; k < 2; k++) {
        int32_t t = k ? b : a;
        int r = t == SHIMRT_COMPLEX32 || t == SHIMRT_FLOAT16                           ? 0
                : t == SHIMRT_COMPLEX64 || t == SHIMRT_FLOAT32 || t == SHIMRT_BFLOAT16 ? 1
                : t == SHIMRT_COMPLEX128 || t == SHIMRT_FLOAT64                        ? 2
                : shimrt_k_promote(t, t) >= 0                                          ? -2
                                                                                       : -3;
        if (r == -3) return -1; /* float8 and other types outside the table */
        if (k)
            rb = r;
        else
            ra = r;
    }
    int r = ra > rb ? ra : rb; /* an integral or bool operand (-2) takes the complex one's */
    return cx[r];
}

AOTITorchError shimrt_k_cat_shape(const char *op, const AtenTensorHandle *ts, int64_t n,
                                  int64_t *dim, int64_t *ndim, int64_t *sizes, int32_t *dtype) {
    if (n <= 0) return shimrt_fail(op, "expected a non-empty list of Tensors");
    const struct AtenTensorOpaque *ref = NULL;
    for (int64_t k = 0; k < n; k++) {
        if (!(ts[k]->ndim == 1 && ts[k]->sizes[0] == 0)) {
            ref = ts[k];
            break;
        }
    }
    /* PyTorch's result_type over every input (legacy empty ones included; cat refuses a
     * 0-d one, so every input counts as a tensor with dims): promote_types of them all */
    *dtype = ts[0]->dtype;
    for (int64_t k = 1; k < n; k++) {
        int32_t p = promote_all(*dtype, ts[k]->dtype);
        if (p < 0) {
            bool u = *dtype == SHIMRT_UINT16 || *dtype == SHIMRT_UINT32 ||
                     *dtype == SHIMRT_UINT64 || ts[k]->dtype == SHIMRT_UINT16 ||
                     ts[k]->dtype == SHIMRT_UINT32 || ts[k]->dtype == SHIMRT_UINT64;
            return shimrt_fail(op,
                               "Promotion for %s types is not supported, attempted to promote "
                               "%s and %s",
                               u ? "uint16, uint32, uint64" : "Float8",
                               shimrt_dtype_torch_name(*dtype),
                               shimrt_dtype_torch_name(ts[k]->dtype));
        }
        *dtype = p;
    }
    if (!ref) { /* all legacy-empty */
        *ndim = 1;
        sizes[0] = 0;
        *dim = 0;
        return AOTI_TORCH_SUCCESS;
    }
    if (ref->ndim == 0)
        return shimrt_fail(op, "zero-dimensional tensor (at position 0) cannot be concatenated");
    if (shimrt_k_wrap_dim(op, *dim, ref->ndim, dim)) return AOTI_TORCH_FAILURE;
    *ndim = ref->ndim;
    memcpy(sizes, ref->sizes, (size_t)ref->ndim * sizeof *sizes);
    sizes[*dim] = 0;
    for (int64_t k = 0; k < n; k++) {
        const struct AtenTensorOpaque *t = ts[k];
        if (t->ndim == 1 && t->sizes[0] == 0) continue;
        if (t->ndim != ref->ndim)
            return shimrt_fail(op,
                               "Tensors must have same number of dimensions: got %lld and "
                               "%lld",
                               (long long)ref->ndim, (long long)t->ndim);
        for (int64_t d = 0; d < t->ndim; d++)
            if (d != *dim && t->sizes[d] != ref->sizes[d])
                return shimrt_fail(op,
                                   "Sizes of tensors must match except in dimension %lld. "
                                   "Expected size %lld but got size %lld for tensor number "
                                   "%lld in the list.",
                                   (long long)*dim, (long long)ref->sizes[d],
                                   (long long)t->sizes[d], (long long)k);
        sizes[*dim] += t->sizes[*dim];
    }
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_k_cat_into(const char *op, const AtenTensorHandle *ts, int64_t n, int64_t dim,
                                 AtenTensorHandle out) {
    int64_t at = 0;
    for (int64_t k = 0; k < n; k++) {
        AtenTensorHandle t = ts[k];
        if (t->ndim == 1 && t->sizes[0] == 0 && out->ndim != 1) continue;
        int64_t len = t->ndim ? t->sizes[dim] : 1;
        int64_t sizes[SHIMRT_MAX_DIMS];
        memcpy(sizes, out->sizes, (size_t)out->ndim * sizeof *sizes);
        sizes[dim] = len;
        AtenTensorHandle slice =
            shimrt_tensor_new(op, out->storage, out->ndim, sizes, out->strides,
                              out->storage_offset + at * out->strides[dim], out->dtype,
                              out->device_type, out->device_index, out->layout);
        if (!slice) return AOTI_TORCH_FAILURE;
        AOTITorchError rc =
            shimrt_numel(slice) ? shimrt_backend_copy(op, slice, t) : AOTI_TORCH_SUCCESS;
        shimrt_tensor_free(slice);
        if (rc) return rc;
        at += len;
    }
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_k_cat_new(const char *op, const AtenTensorHandle *ts, int64_t n, int64_t dim,
                                int32_t device_type, AtenTensorHandle *ret0) {
    int64_t ndim, sizes[SHIMRT_MAX_DIMS];
    int32_t dt;
    if (shimrt_k_cat_shape(op, ts, n, &dim, &ndim, sizes, &dt)) return AOTI_TORCH_FAILURE;
    /* cat_shape refuses an empty list: ts[0] exists here */
    int32_t index =
        device_type == SHIMRT_DEV_CPU || device_type == SHIMRT_DEV_META ? -1 : ts[0]->device_index;
    AtenTensorHandle t = shimrt_tensor_empty(op, ndim, sizes, NULL, dt, device_type, index);
    if (!t) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(shimrt_k_cat_into(op, ts, n, dim, t), t, ret0);
}

AOTITorchError shimrt_k_cat_out(const char *op, const AtenTensorHandle *ts, int64_t n, int64_t dim,
                                AtenTensorHandle out) {
    int64_t ndim, sizes[SHIMRT_MAX_DIMS];
    int32_t dt;
    if (shimrt_k_cat_shape(op, ts, n, &dim, &ndim, sizes, &dt)) return AOTI_TORCH_FAILURE;
    if (dt != out->dtype && !shimrt_k_can_cast(dt, out->dtype))
        return shimrt_fail(op,
                           "torch.cat(): input types can't be cast to the desired output type %s",
                           shimrt_dtype_torch_name(out->dtype));
    if (shimrt_resize_output(op, out, ndim, sizes)) return AOTI_TORCH_FAILURE;
    if (shimrt_k_internal_overlap(out)) /* PyTorch's cat.out: assert_no_internal_overlap */
        return shimrt_fail(op, "unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.");
    return shimrt_k_cat_into(op, ts, n, dim, out);
}

/* runtime/core/data.c: element conversion, strided copy, clone, zero_, item, scalars. */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "internal.h"

/* Walks every element of a dst shape with dst and (broadcast) src strides. */
typedef struct {
    int64_t ndim;
    const int64_t *sizes;
    int64_t dstride[SHIMRT_MAX_DIMS], sstride[SHIMRT_MAX_DIMS];
} walk;

static AOTITorchError make_walk(const char *func, walk *w, AtenTensorHandle dst,
                                AtenTensorHandle src) {
    w->ndim = dst->ndim;
    w->sizes = dst->sizes;
    for (int64_t j = 0; j < dst->ndim; j++) w->dstride[j] = dst->strides[j];
    if (!src) return AOTI_TORCH_SUCCESS;
    int64_t lead = src->ndim - dst->ndim;
    for (int64_t i = 0; i < lead; i++)
        if (src->sizes[i] != 1) goto mismatch;
    for (int64_t j = 0; j < dst->ndim; j++) {
        int64_t i = j + lead;
        if (i < 0) {
            w->sstride[j] = 0;
        } else if (src->sizes[i] == dst->sizes[j]) {
            w->sstride[j] = src->strides[i];
        } else if (src->sizes[i] == 1) {
            w->sstride[j] = 0;
        } else {
            goto mismatch;
        }
    }
    return AOTI_TORCH_SUCCESS;
mismatch:
    return shimrt_fail(func,
                       "source of %lld dims (numel %lld) cannot be broadcast to the "
                       "destination's shape (%lld dims, numel %lld)",
                       (long long)src->ndim, (long long)shimrt_numel(src), (long long)dst->ndim,
                       (long long)shimrt_numel(dst));
}

typedef void (*elem_fn)(char *d, const char *s, void *ctx);

static void run_walk(const walk *w, char *dbase, const char *sbase, size_t dsz, size_t ssz,
                     elem_fn fn, void *ctx) {
    int64_t idx[SHIMRT_MAX_DIMS] = {0};
    for (int64_t j = 0; j < w->ndim; j++)
        if (w->sizes[j] == 0) return;
    int64_t inner = w->ndim ? w->sizes[w->ndim - 1] : 1;
    int64_t di = w->ndim ? w->dstride[w->ndim - 1] * (int64_t)dsz : 0;
    int64_t si = w->ndim ? w->sstride[w->ndim - 1] * (int64_t)ssz : 0;
    for (;;) {
        char *d = dbase;
        const char *s = sbase;
        for (int64_t j = 0; j + 1 < w->ndim; j++) {
            d += idx[j] * w->dstride[j] * (int64_t)dsz;
            if (s) s += idx[j] * w->sstride[j] * (int64_t)ssz;
        }
        for (int64_t k = 0; k < inner; k++, d += di, s = s ? s + si : NULL) fn(d, s, ctx);
        int64_t j = w->ndim - 2;
        for (; j >= 0; j--) {
            if (++idx[j] < w->sizes[j]) break;
            idx[j] = 0;
        }
        if (j < 0) return;
    }
}

typedef struct {
    int32_t ddt, sdt;
    size_t size;
} conv_ctx;

static void elem_convert(char *d, const char *s, void *ctx) {
    const conv_ctx *c = ctx;
    shimrt_dtype_convert(d, c->ddt, s, c->sdt);
}
static void elem_bytes(char *d, const char *s, void *ctx) {
    memcpy(d, s, ((const conv_ctx *)ctx)->size);
}
static void elem_zero(char *d, const char *s, void *ctx) {
    (void)s;
    memset(d, 0, ((const conv_ctx *)ctx)->size);
}

static bool ranges_overlap(AtenTensorHandle a, AtenTensorHandle b) {
    if (a->storage != b->storage) return false;
    return shimrt_numel(a) > 0 && shimrt_numel(b) > 0;
}

AOTITorchError shimrt_copy_broadcast_check(const char *func, AtenTensorHandle dst,
                                           AtenTensorHandle src) {
    walk w;
    return make_walk(func, &w, dst, src);
}

/* A tensor whose data is in host memory, or that has none (meta). */
static bool on_host(AtenTensorHandle t) {
    return t->device_type == SHIMRT_DEV_CPU || t->device_type == SHIMRT_DEV_META;
}

AOTITorchError shimrt_copy(const char *func, AtenTensorHandle dst, AtenTensorHandle src) {
    if (!on_host(dst) || !on_host(src))
        return shimrt_fail(func, "a copy from %s to %s is not a host copy (use copy_)",
                           shimrt_device_type_name(src->device_type),
                           shimrt_device_type_name(dst->device_type));
    return shimrt_backend_of(SHIMRT_DEV_CPU)->copy(func, dst, src);
}

AOTITorchError shimrt_host_copy(const char *func, AtenTensorHandle dst, AtenTensorHandle src) {
    walk w;
    if (dst->device_type == SHIMRT_DEV_META) return make_walk(func, &w, dst, src);
    if (src->device_type == SHIMRT_DEV_META)
        return shimrt_fail(func, "cannot copy out of a meta tensor (it has no data)");
    if (dst->device_type != SHIMRT_DEV_CPU || src->device_type != SHIMRT_DEV_CPU)
        return shimrt_fail(func, "the host copy takes CPU tensors (got %s and %s)",
                           shimrt_device_type_name(src->device_type),
                           shimrt_device_type_name(dst->device_type));
    bool same = dst->dtype == src->dtype;
    if (!same &&
        (!shimrt_dtype_is_computable(dst->dtype) || !shimrt_dtype_is_computable(src->dtype)))
        return shimrt_fail(func, "conversion from %s to %s is not supported",
                           shimrt_dtype_name(src->dtype), shimrt_dtype_name(dst->dtype));
    if (make_walk(func, &w, dst, src)) return AOTI_TORCH_FAILURE;
    int64_t n = shimrt_numel(dst);
    if (n == 0) return AOTI_TORCH_SUCCESS;
    /* (the CPU row's copy takes the engine's dtypes and same-dtype copies before this:
     * runtime/cpu/backend.c; uint16/32/64 and complex conversions come here) */
    if (ranges_overlap(dst, src)) {
        if (dst->storage_offset == src->storage_offset && same && dst->ndim == src->ndim &&
            !memcmp(dst->sizes, src->sizes, (size_t)dst->ndim * sizeof(int64_t)) &&
            !memcmp(dst->strides, src->strides, (size_t)dst->ndim * sizeof(int64_t)))
            return AOTI_TORCH_SUCCESS; /* copying a tensor onto itself */
        /* Shared memory: go through a private contiguous copy of src. */
        AtenTensorHandle tmp =
            shimrt_tensor_empty(func, src->ndim, src->sizes, NULL, src->dtype, SHIMRT_DEV_CPU, 0);
        if (!tmp) return AOTI_TORCH_FAILURE;
        AOTITorchError e = shimrt_copy(func, tmp, src);
        if (!e) e = shimrt_copy(func, dst, tmp);
        shimrt_tensor_free(tmp);
        return e;
    }
    conv_ctx c = {dst->dtype, src->dtype, shimrt_dtype_size(dst->dtype)};
    if (same && shimrt_is_contiguous(dst) && shimrt_is_contiguous(src) && shimrt_numel(src) == n) {
        memcpy(shimrt_data(dst), shimrt_data(src), (size_t)n * c.size);
        return AOTI_TORCH_SUCCESS;
    }
    run_walk(&w, shimrt_data(dst), shimrt_data(src), c.size, shimrt_dtype_size(src->dtype),
             same ? elem_bytes : elem_convert, &c);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_copy_(AtenTensorHandle self, AtenTensorHandle src,
                                                  int32_t non_blocking) {
    (void)non_blocking;
    SHIMRT_CHECK_DEFINED(self);
    SHIMRT_CHECK_DEFINED(src);
    if (shimrt_k_internal_overlap(self)) /* PyTorch's copy_: assert_no_internal_overlap */
        return shimrt_fail(__func__, "unsupported operation: more than one element of the "
                                     "written-to tensor refers to a single memory location. "
                                     "Please clone() the tensor before performing the operation.");
    return shimrt_backend_copy(__func__, self, src); /* the devices' rows */
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_tensor_copy_(AtenTensorHandle src,
                                                         AtenTensorHandle dst) {
    SHIMRT_CHECK_DEFINED(src);
    SHIMRT_CHECK_DEFINED(dst);
    return shimrt_backend_copy(__func__, dst, src);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_zero_(AtenTensorHandle self) {
    SHIMRT_CHECK_DEFINED(self);
    if (self->device_type == SHIMRT_DEV_META) return AOTI_TORCH_SUCCESS;
    if (!on_host(self)) return shimrt_backend_fill(__func__, self, 0.0); /* its device row */
    walk w;
    make_walk(__func__, &w, self, NULL);
    conv_ctx c = {self->dtype, self->dtype, shimrt_dtype_size(self->dtype)};
    if (shimrt_numel(self) == 0) return AOTI_TORCH_SUCCESS;
    if (shimrt_is_contiguous(self))
        memset(shimrt_data(self), 0, (size_t)shimrt_numel(self) * c.size);
    else
        run_walk(&w, shimrt_data(self), NULL, c.size, 0, elem_zero, &c);
    return AOTI_TORCH_SUCCESS;
}

/* True when the strides are a permutation of dense contiguous strides (no gaps, no
 * overlap), so a clone may keep them. */
static bool non_overlapping_and_dense(AtenTensorHandle t) {
    int64_t perm[SHIMRT_MAX_DIMS], n = 0;
    if (shimrt_numel(t) == 0) return false;
    for (int64_t i = 0; i < t->ndim; i++)
        if (t->sizes[i] != 1) perm[n++] = i;
    for (int64_t i = 1; i < n; i++) { /* insertion sort by stride */
        int64_t k = perm[i], j = i - 1;
        while (j >= 0 && t->strides[perm[j]] > t->strides[k]) {
            perm[j + 1] = perm[j];
            j--;
        }
        perm[j + 1] = k;
    }
    int64_t expected = 1;
    for (int64_t i = 0; i < n; i++) {
        if (t->strides[perm[i]] != expected) return false;
        expected *= t->sizes[perm[i]];
    }
    return true;
}

static AOTITorchError clone_with(const char *func, AtenTensorHandle self, const int64_t *strides,
                                 AtenTensorHandle *ret) {
    AtenTensorHandle t = shimrt_tensor_empty(func, self->ndim, self->sizes, strides, self->dtype,
                                             self->device_type, self->device_index);
    if (!t) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(shimrt_backend_copy(func, t, self), t, ret);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_clone(AtenTensorHandle self, AtenTensorHandle *ret) {
    SHIMRT_CHECK_DEFINED(self);
    SHIMRT_CHECK_ARG(ret);
    return clone_with(__func__, self, non_overlapping_and_dense(self) ? self->strides : NULL, ret);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_clone_preserve_strides(AtenTensorHandle self,
                                                                   AtenTensorHandle *ret) {
    SHIMRT_CHECK_DEFINED(self);
    SHIMRT_CHECK_ARG(ret);
    return clone_with(__func__, self, self->strides, ret);
}

/* ---- item ---- */
static AOTITorchError item(const char *func, AtenTensorHandle t, int32_t dtype, void *out) {
    if (!shimrt_tensor_valid(t))
        return shimrt_fail(func, "%s", shimrt_tensor_invalid_reason(t, "tensor"));
    if (!t->defined) return shimrt_fail(func, "argument 'tensor' is an undefined tensor");
    if (!out) return shimrt_fail(func, "argument 'ret_value' is NULL");
    int64_t n = shimrt_numel(t);
    if (n != 1)
        return shimrt_fail(func, "a tensor with %lld elements cannot be converted to a scalar",
                           (long long)n);
    if (!on_host(t)) { /* PyTorch's item(): copied to the host */
        AtenTensorHandle h =
            shimrt_tensor_empty(func, t->ndim, t->sizes, NULL, t->dtype, SHIMRT_DEV_CPU, -1);
        AOTITorchError rc = h ? shimrt_backend_copy(func, h, t) : AOTI_TORCH_FAILURE;
        if (!rc) rc = item(func, h, dtype, out);
        shimrt_tensor_free(h);
        return rc;
    }
    if (t->device_type != SHIMRT_DEV_CPU)
        return shimrt_fail(func, "item needs a CPU tensor (device %s)",
                           shimrt_device_type_name(t->device_type));
    if (t->dtype == dtype) {
        memcpy(out, shimrt_data(t), shimrt_dtype_size(dtype));
        return AOTI_TORCH_SUCCESS;
    }
    if (!shimrt_dtype_is_computable(t->dtype))
        return shimrt_fail(func, "conversion from %s to %s is not supported",
                           shimrt_dtype_name(t->dtype), shimrt_dtype_name(dtype));
    shimrt_dtype_convert(out, dtype, shimrt_data(t), t->dtype);
    return AOTI_TORCH_SUCCESS;
}

#define ITEM(name, ctype, code)                                                                    \
    AOTI_TORCH_EXPORT AOTITorchError aoti_torch_item_##name(AtenTensorHandle tensor,               \
                                                            ctype *ret_value) {                    \
        return item(__func__, tensor, code, ret_value);                                            \
    }
ITEM(float16, shimrt_half, SHIMRT_FLOAT16)
ITEM(float32, float, SHIMRT_FLOAT32)
ITEM(float64, double, SHIMRT_FLOAT64)
ITEM(uint8, uint8_t, SHIMRT_UINT8)
ITEM(uint16, uint16_t, SHIMRT_UINT16)
ITEM(uint32, uint32_t, SHIMRT_UINT32)
ITEM(uint64, uint64_t, SHIMRT_UINT64)
ITEM(int8, int8_t, SHIMRT_INT8)
ITEM(int16, int16_t, SHIMRT_INT16)
ITEM(int32, int32_t, SHIMRT_INT32)
ITEM(int64, int64_t, SHIMRT_INT64)
ITEM(bool, bool, SHIMRT_BOOL)
ITEM(bfloat16, shimrt_bfloat16, SHIMRT_BFLOAT16)
ITEM(complex64, shimrt_complex64, SHIMRT_COMPLEX64)

/* ---- scalar_to_tensor ---- */
static AOTITorchError scalar(const char *func, const void *value, int32_t dtype,
                             AtenTensorHandle *ret) {
    if (!ret) return shimrt_fail(func, "argument 'ret_new_tensor' is NULL");
    AtenTensorHandle t = shimrt_tensor_empty(func, 0, NULL, NULL, dtype, SHIMRT_DEV_CPU, 0);
    if (!t) return AOTI_TORCH_FAILURE;
    memcpy(shimrt_data(t), value, shimrt_dtype_size(dtype));
    *ret = t;
    return AOTI_TORCH_SUCCESS;
}

#define SCALAR(name, ctype, code)                                                                  \
    AOTI_TORCH_EXPORT AOTITorchError aoti_torch_scalar_to_tensor_##name(                           \
        ctype value, AtenTensorHandle *ret_new_tensor) {                                           \
        return scalar(__func__, &value, code, ret_new_tensor);                                     \
    }
SCALAR(float32, float, SHIMRT_FLOAT32)
SCALAR(float64, double, SHIMRT_FLOAT64)
SCALAR(uint8, uint8_t, SHIMRT_UINT8)
SCALAR(uint16, uint16_t, SHIMRT_UINT16)
SCALAR(uint32, uint32_t, SHIMRT_UINT32)
SCALAR(uint64, uint64_t, SHIMRT_UINT64)
SCALAR(int8, int8_t, SHIMRT_INT8)
SCALAR(int16, int16_t, SHIMRT_INT16)
SCALAR(int32, int32_t, SHIMRT_INT32)
SCALAR(int64, int64_t, SHIMRT_INT64)
SCALAR(complex64, shimrt_complex64, SHIMRT_COMPLEX64)
SCALAR(complex128, shimrt_complex128, SHIMRT_COMPLEX128)

AOTI_TORCH_EXPORT AOTITorchError
aoti_torch_scalar_to_tensor_bool(bool value, AtenTensorHandle *ret_new_tensor) {
    uint8_t b = value ? 1 : 0;
    return scalar(__func__, &b, SHIMRT_BOOL, ret_new_tensor);
}

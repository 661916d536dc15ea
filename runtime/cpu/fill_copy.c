/* runtime/cpu/fill_copy.c: CPU fills and copies: new_zeros, fill_.Scalar, zero_, copy_, clone,
 * contiguous, to.dtype (empty_like and new_empty are device-generic: runtime/generic/empty.c).
 * Prototypes: generated/cpu_kernels.h (docs/kernels.md). */
#include <float.h>
#include <math.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"
#include "iter.h"

AOTITorchError shimrt_cpu_new_zeros(AtenTensorHandle self, const int64_t *size, int64_t size_len_,
                                    int32_t *dtype, int32_t *layout, int32_t *device,
                                    int32_t device_index_, int32_t *pin_memory,
                                    AtenTensorHandle *ret0) {
    static const char op[] = "new_zeros";
    AtenTensorHandle t;
    if (shimrt_k_new_tensor(op, self, size, size_len_, dtype, layout, device, device_index_,
                            pin_memory, &t))
        return AOTI_TORCH_FAILURE;
    if (t->device_type == SHIMRT_DEV_CPU) {
        shimrt_k_fill(t, 0.0);
    } else if (t->device_type != SHIMRT_DEV_META) {
        shimrt_tensor_free(t);
        return shimrt_fail(op, "the CPU kernel cannot fill a %s tensor",
                           shimrt_device_type_name(t->device_type));
    }
    *ret0 = t;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_fill__scalar(AtenTensorHandle self, shimrt_scalar value) {
    static const char op[] = "fill_.Scalar";
    if (shimrt_k_check_cpu(op, self, "self") ||
        (!shimrt_dtype_is_computable(self->dtype) && shimrt_k_check_dtype(op, self, "self")) ||
        shimrt_k_scalar_fits(op, value, self->dtype, shimrt_numel(self) == 1))
        return AOTI_TORCH_FAILURE;
    shimrt_k_fill(self, value.d);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_zero_(AtenTensorHandle self) {
    if (shimrt_k_check_cpu("zero_", self, "self")) return AOTI_TORCH_FAILURE;
    shimrt_k_fill(self, 0.0); /* every dtype: all-zero bytes are zero */
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_copy_(AtenTensorHandle self, AtenTensorHandle src, int32_t non_blocking) {
    static const char op[] = "copy_";
    (void)non_blocking; /* CPU copies are synchronous */
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, src, "src"))
        return AOTI_TORCH_FAILURE;
    int64_t bshape[SHIMRT_MAX_DIMS], bnd;
    bool ok = src->ndim <= self->ndim &&
              shimrt_k_broadcast(op, self->ndim, self->sizes, src->ndim, src->sizes, bshape,
                                 &bnd) == AOTI_TORCH_SUCCESS;
    for (int64_t d = 0; ok && d < self->ndim; d++) ok = bshape[d] == self->sizes[d];
    if (!ok) {
        char a[256], b[256];
        return shimrt_fail(op, "the shape of src %s cannot be broadcast to the shape of self %s",
                           shimrt_k_fmt_shape(a, sizeof a, src->ndim, src->sizes),
                           shimrt_k_fmt_shape(b, sizeof b, self->ndim, self->sizes));
    }
    if (shimrt_k_internal_overlap(self))
        return shimrt_fail(op, "unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.");
    return shimrt_k_copy(op, self, src);
}

/* A new tensor like self with the strides of memory format fmt and dtype dt, holding
 * self's values converted to dt. */
static AOTITorchError copy_as(const char *op, AtenTensorHandle self, int32_t fmt, int32_t dt,
                              AtenTensorHandle *out) {
    int64_t strides[SHIMRT_MAX_DIMS];
    bool use;
    if (self->device_type == SHIMRT_DEV_META) return shimrt_meta_copy_as(op, self, fmt, dt, out);
    if (shimrt_k_format_strides(op, self, fmt, strides, &use)) return AOTI_TORCH_FAILURE;
    if (dt != self->dtype && /* complex32 converts (shimrt_dtype_convert) */
        !((shimrt_dtype_is_computable(dt) || dt == SHIMRT_COMPLEX32) &&
          (shimrt_dtype_is_computable(self->dtype) || self->dtype == SHIMRT_COMPLEX32)))
        return shimrt_fail(op, "cannot convert %s to %s", shimrt_dtype_name(self->dtype),
                           shimrt_dtype_name(dt));
    AtenTensorHandle t =
        shimrt_k_empty_like_dev(op, self, self->ndim, self->sizes, use ? strides : NULL, dt);
    if (!t) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(shimrt_k_copy(op, t, self), t, out);
}

AOTITorchError shimrt_cpu_clone(AtenTensorHandle self, int32_t *memory_format,
                                AtenTensorHandle *ret0) {
    static const char op[] = "clone";
    if (shimrt_k_check_cpu_or_meta(op, self, "self")) return AOTI_TORCH_FAILURE;
    return copy_as(op, self, memory_format ? *memory_format : SHIMRT_MEMORY_FORMAT_PRESERVE,
                   self->dtype, ret0);
}

/* True when self is laid out as memory format fmt (contiguous or channels-last; preserve:
 * contiguous), size-1 dims ignored. */
static bool is_format(const struct AtenTensorOpaque *self, int32_t fmt) {
    if (fmt == SHIMRT_MEMORY_FORMAT_CONTIGUOUS || fmt == SHIMRT_MEMORY_FORMAT_PRESERVE)
        /* TensorImpl::is_contiguous(preserve): the default; a tensor without elements is */
        return shimrt_numel(self) == 0 || shimrt_is_contiguous(self);
    int64_t want = fmt == SHIMRT_MEMORY_FORMAT_CHANNELS_LAST      ? 4
                   : fmt == SHIMRT_MEMORY_FORMAT_CHANNELS_LAST_3D ? 5
                                                                  : -1;
    if (self->ndim != want) return false;
    int64_t strides[SHIMRT_MAX_DIMS];
    shimrt_k_channels_last_strides(self->ndim, self->sizes, strides);
    for (int64_t d = 0; d < self->ndim; d++)
        if (self->sizes[d] != 1 && self->strides[d] != strides[d]) return false;
    return true;
}

AOTITorchError shimrt_cpu_contiguous(AtenTensorHandle self, int32_t memory_format,
                                     AtenTensorHandle *ret0) {
    static const char op[] = "contiguous";
    if (shimrt_k_check_cpu_or_meta(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (memory_format < SHIMRT_MEMORY_FORMAT_CONTIGUOUS ||
        memory_format > SHIMRT_MEMORY_FORMAT_CHANNELS_LAST_3D)
        return shimrt_fail(op, "unknown memory format code %d", (int)memory_format);
    /* PyTorch's Tensor::contiguous: self when already contiguous in that format (preserve
     * checks the default contiguity), else the op, which refuses preserve */
    if (is_format(self, memory_format)) {
        return shimrt_k_give(shimrt_tensor_share(op, self), ret0); /* PyTorch returns self */
    }
    if (memory_format == SHIMRT_MEMORY_FORMAT_PRESERVE)
        return shimrt_fail(op, "preserve memory format is unsupported by the contiguous operator");
    return copy_as(op, self, memory_format, self->dtype, ret0);
}

/* PyTorch's Tensor::suggest_memory_format: channels-last (3d) when the strides order the
 * dims as that format does (rank 4 / 5), else contiguous. */
static int32_t suggest_format(const struct AtenTensorOpaque *t) {
    if (!shimrt_k_strides_like_cl(t)) return SHIMRT_MEMORY_FORMAT_CONTIGUOUS;
    return t->ndim == 4 ? SHIMRT_MEMORY_FORMAT_CHANNELS_LAST
                        : SHIMRT_MEMORY_FORMAT_CHANNELS_LAST_3D;
}

AOTITorchError shimrt_k_to(const char *op, AtenTensorHandle self, int32_t dt, int32_t dev,
                           bool same_dev, bool copy, int32_t fmt, AtenTensorHandle *ret0) {
    if (fmt < SHIMRT_MEMORY_FORMAT_CONTIGUOUS || fmt > SHIMRT_MEMORY_FORMAT_CHANNELS_LAST_3D)
        return shimrt_fail(op, "unknown memory format code %d", (int)fmt);
    /* to_will_alias: PyTorch returns self */
    if (dt == self->dtype && same_dev && !copy &&
        (fmt == SHIMRT_MEMORY_FORMAT_PRESERVE || fmt == suggest_format(self)))
        return shimrt_k_give(shimrt_tensor_share(op, self), ret0);
    if (dev == SHIMRT_DEV_META) /* PyTorch's Meta kernel: the layout of empty_like */
        return shimrt_meta_copy_as(op, self, fmt, dt, ret0);
    if (self->device_type == SHIMRT_DEV_META)
        return shimrt_fail(op, "Cannot copy out of meta tensor; no data!");
    if (dev != SHIMRT_DEV_CPU || self->device_type != SHIMRT_DEV_CPU)
        return shimrt_fail(op, "only CPU to CPU conversions are supported");
    return copy_as(op, self, fmt, dt, ret0); /* _to_copy */
}

AOTITorchError shimrt_cpu_to_dtype(AtenTensorHandle self, int32_t dtype, int32_t non_blocking,
                                   int32_t copy, int32_t *memory_format, AtenTensorHandle *ret0) {
    static const char op[] = "to.dtype";
    (void)non_blocking;
    if (shimrt_k_check_cpu_or_meta(op, self, "self") || shimrt_check_dtype(op, dtype))
        return AOTI_TORCH_FAILURE;
    return shimrt_k_to(op, self, dtype, self->device_type, true, copy != 0,
                       memory_format ? *memory_format : SHIMRT_MEMORY_FORMAT_PRESERVE, ret0);
}

/* runtime/cpu/alloc.c: allocation, fills and copies: empty_like, new_empty
 * (CompositeExplicitAutograd: device-generic), new_zeros, fill_.Scalar, zero_, copy_,
 * clone, contiguous, to.dtype (CPU). Prototypes: generated/cpu_kernels.h and compositeexplicitautograd_kernels.h (docs/kernels.md). */
#include <float.h>
#include <math.h>

#include "compositeexplicitautograd_kernels.h"
#include "cpu_kernels.h"
#include "iter.h"

enum { MF_CONTIGUOUS = 0, MF_PRESERVE = 1, MF_CHANNELS_LAST = 2, MF_CHANNELS_LAST_3D = 3 };

/* Channels-last strides of sizes (rank 4: NHWC order; rank 5: NDHWC). */
static void channels_last_strides(int64_t ndim, const int64_t *sizes, int64_t *strides) {
    int64_t s = 1;
    strides[1] = s;
    s *= sizes[1] > 1 ? sizes[1] : 1;
    for (int64_t d = ndim - 1; d >= 2; d--) {
        strides[d] = s;
        s *= sizes[d] > 1 ? sizes[d] : 1;
    }
    strides[0] = s;
}

/* The strides a new tensor like self gets for memory format fmt. *use_strides is false for
 * plain contiguous strides. */
static AOTITorchError format_strides(const char *op, const struct AtenTensorOpaque *self,
                                     int32_t fmt, int64_t *strides, bool *use_strides) {
    *use_strides = true;
    switch (fmt) {
    case MF_PRESERVE: shimrt_k_preserve_strides(self, strides); return AOTI_TORCH_SUCCESS;
    case MF_CONTIGUOUS: *use_strides = false; return AOTI_TORCH_SUCCESS;
    case MF_CHANNELS_LAST:
    case MF_CHANNELS_LAST_3D: {
        int64_t want = fmt == MF_CHANNELS_LAST ? 4 : 5;
        if (self->ndim != want)
            return shimrt_fail(op, "required rank %lld tensor to use %s format, got rank %lld",
                               (long long)want,
                               fmt == MF_CHANNELS_LAST ? "channels_last" : "channels_last_3d",
                               (long long)self->ndim);
        channels_last_strides(self->ndim, self->sizes, strides);
        return AOTI_TORCH_SUCCESS;
    }
    default: return shimrt_fail(op, "unknown memory format code %d", (int)fmt);
    }
}

/* Resolves the TensorOptions of a factory: NULL means "as self". */
static AOTITorchError resolve_options(const char *op, const struct AtenTensorOpaque *self,
                                      const int32_t *dtype, const int32_t *layout,
                                      const int32_t *device, int32_t device_index_,
                                      const int32_t *pin_memory, int32_t *out_dtype,
                                      int32_t *out_dev, int32_t *out_idx) {
    *out_dtype = dtype ? *dtype : self->dtype;
    if (shimrt_check_dtype(op, *out_dtype)) return AOTI_TORCH_FAILURE;
    if (layout && *layout != SHIMRT_LAYOUT_STRIDED)
        return shimrt_fail(op, "layout code %d is not supported (only strided, 0)", (int)*layout);
    if (pin_memory && *pin_memory)
        return shimrt_fail(op, "pin_memory=True is not supported");
    if (device) {
        *out_dev = *device;
        *out_idx = device_index_ >= 0 ? device_index_
                   : *device == self->device_type ? self->device_index
                                                  : 0;
    } else {
        *out_dev = self->device_type;
        *out_idx = self->device_index;
    }
    return shimrt_check_device(op, *out_dev, *out_idx);
}

AOTITorchError shimrt_empty_like(AtenTensorHandle self, int32_t *dtype, int32_t *layout,
                                 int32_t *device, int32_t device_index_, int32_t *pin_memory,
                                 int32_t *memory_format, AtenTensorHandle *ret0) {
    static const char op[] = "empty_like";
    int32_t dt, dev, idx;
    int64_t strides[SHIMRT_MAX_DIMS];
    bool use;
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (resolve_options(op, self, dtype, layout, device, device_index_, pin_memory, &dt, &dev,
                        &idx))
        return AOTI_TORCH_FAILURE;
    if (format_strides(op, self, memory_format ? *memory_format : MF_PRESERVE, strides, &use))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle t =
        shimrt_tensor_empty(op, self->ndim, self->sizes, use ? strides : NULL, dt, dev, idx);
    if (!t) return AOTI_TORCH_FAILURE;
    *ret0 = t;
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError new_tensor(const char *op, AtenTensorHandle self, const int64_t *size,
                                 int64_t size_len_, int32_t *dtype, int32_t *layout,
                                 int32_t *device, int32_t device_index_, int32_t *pin_memory,
                                 AtenTensorHandle *out) {
    int32_t dt, dev, idx;
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (size_len_ > SHIMRT_MAX_DIMS)
        return shimrt_fail(op, "%lld dimensions are too many (at most %d)",
                           (long long)size_len_, SHIMRT_MAX_DIMS);
    for (int64_t i = 0; i < size_len_; i++)
        if (size[i] < 0) {
            char b[256];
            return shimrt_fail(op, "Trying to create tensor with negative dimension %lld: %s",
                               (long long)size[i], shimrt_k_fmt_shape(b, sizeof b, size_len_, size));
        }
    if (resolve_options(op, self, dtype, layout, device, device_index_, pin_memory, &dt, &dev,
                        &idx))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle t = shimrt_tensor_empty(op, size_len_, size, NULL, dt, dev, idx);
    if (!t) return AOTI_TORCH_FAILURE;
    *out = t;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_new_empty(AtenTensorHandle self, const int64_t *size, int64_t size_len_,
                                int32_t *dtype, int32_t *layout, int32_t *device,
                                int32_t device_index_, int32_t *pin_memory,
                                AtenTensorHandle *ret0) {
    return new_tensor("new_empty", self, size, size_len_, dtype, layout, device, device_index_,
                      pin_memory, ret0);
}

AOTITorchError shimrt_cpu_new_zeros(AtenTensorHandle self, const int64_t *size,
                                    int64_t size_len_, int32_t *dtype, int32_t *layout,
                                    int32_t *device, int32_t device_index_,
                                    int32_t *pin_memory, AtenTensorHandle *ret0) {
    static const char op[] = "new_zeros";
    AtenTensorHandle t;
    if (new_tensor(op, self, size, size_len_, dtype, layout, device, device_index_, pin_memory,
                   &t))
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

/* PyTorch's checked conversion of a Scalar to a dtype: integers reject values outside their
 * range (unsigned ones accept negatives that wrap), floats reject finite values beyond
 * their largest. */
static AOTITorchError check_scalar_fits(const char *op, double v, int32_t dt) {
    double lo, hi;
    switch (dt) {
    case SHIMRT_BOOL:
    case SHIMRT_FLOAT64: return AOTI_TORCH_SUCCESS;
    case SHIMRT_UINT8: lo = -255.0; hi = 255.0; break;
    case SHIMRT_INT8: lo = -128.0; hi = 127.0; break;
    case SHIMRT_INT16: lo = -32768.0; hi = 32767.0; break;
    case SHIMRT_INT32: lo = -2147483648.0; hi = 2147483647.0; break;
    case SHIMRT_INT64: lo = -9223372036854775808.0; hi = 9223372036854775807.0; break;
    case SHIMRT_FLOAT32: lo = -FLT_MAX; hi = FLT_MAX; break;
    case SHIMRT_FLOAT16: lo = -65504.0; hi = 65504.0; break;
    case SHIMRT_BFLOAT16: lo = -3.3895313892515355e38; hi = 3.3895313892515355e38; break;
    default: return AOTI_TORCH_SUCCESS;
    }
    bool fl = shimrt_k_is_floating(dt);
    bool bad = fl ? (isfinite(v) && (v < lo || v > hi)) : (isnan(v) || v < lo || v > hi);
    if (dt == SHIMRT_INT64 && v >= 9223372036854775807.0) bad = true; /* 2^63 itself */
    if (bad)
        return shimrt_fail(op, "value %g cannot be converted to type %s without overflow", v,
                           shimrt_dtype_name(dt));
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_fill__scalar(AtenTensorHandle self, double value) {
    static const char op[] = "fill_.Scalar";
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_dtype(op, self, "self") ||
        check_scalar_fits(op, value, self->dtype))
        return AOTI_TORCH_FAILURE;
    shimrt_k_fill(self, value);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_zero_(AtenTensorHandle self) {
    if (shimrt_k_check_cpu("zero_", self, "self")) return AOTI_TORCH_FAILURE;
    shimrt_k_fill(self, 0.0); /* every dtype: all-zero bytes are zero */
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_copy_(AtenTensorHandle self, AtenTensorHandle src,
                                int32_t non_blocking) {
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
    if (format_strides(op, self, fmt, strides, &use)) return AOTI_TORCH_FAILURE;
    if (dt != self->dtype && (!shimrt_k_dtype_ok(dt) || !shimrt_k_dtype_ok(self->dtype)))
        return shimrt_fail(op, "cannot convert %s to %s", shimrt_dtype_name(self->dtype),
                           shimrt_dtype_name(dt));
    AtenTensorHandle t =
        shimrt_k_empty_like_dev(op, self, self->ndim, self->sizes, use ? strides : NULL, dt);
    if (!t) return AOTI_TORCH_FAILURE;
    if (shimrt_k_copy(op, t, self)) {
        shimrt_tensor_free(t);
        return AOTI_TORCH_FAILURE;
    }
    *out = t;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_clone(AtenTensorHandle self, int32_t *memory_format,
                                AtenTensorHandle *ret0) {
    static const char op[] = "clone";
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    return copy_as(op, self, memory_format ? *memory_format : MF_PRESERVE, self->dtype, ret0);
}

/* True when self is laid out as memory format fmt (contiguous or channels-last), size-1
 * dims ignored. */
static bool is_format(const struct AtenTensorOpaque *self, int32_t fmt) {
    if (fmt == MF_CONTIGUOUS) return shimrt_is_contiguous(self);
    int64_t want = fmt == MF_CHANNELS_LAST ? 4 : fmt == MF_CHANNELS_LAST_3D ? 5 : -1;
    if (self->ndim != want) return false;
    int64_t strides[SHIMRT_MAX_DIMS];
    channels_last_strides(self->ndim, self->sizes, strides);
    for (int64_t d = 0; d < self->ndim; d++)
        if (self->sizes[d] != 1 && self->strides[d] != strides[d]) return false;
    return true;
}

AOTITorchError shimrt_cpu_contiguous(AtenTensorHandle self, int32_t memory_format,
                                     AtenTensorHandle *ret0) {
    static const char op[] = "contiguous";
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (memory_format == MF_PRESERVE)
        return shimrt_fail(op, "preserve memory format is unsupported by the contiguous operator");
    if (memory_format < MF_CONTIGUOUS || memory_format > MF_CHANNELS_LAST_3D)
        return shimrt_fail(op, "unknown memory format code %d", (int)memory_format);
    if (is_format(self, memory_format)) {
        AtenTensorHandle t =
            shimrt_k_alias(op, self, self->ndim, self->sizes, self->strides, self->storage_offset);
        if (!t) return AOTI_TORCH_FAILURE;
        *ret0 = t;
        return AOTI_TORCH_SUCCESS;
    }
    return copy_as(op, self, memory_format, self->dtype, ret0);
}

AOTITorchError shimrt_cpu_to_dtype(AtenTensorHandle self, int32_t dtype, int32_t non_blocking,
                                   int32_t copy, int32_t *memory_format,
                                   AtenTensorHandle *ret0) {
    static const char op[] = "to.dtype";
    (void)non_blocking;
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_check_dtype(op, dtype))
        return AOTI_TORCH_FAILURE;
    int32_t fmt = memory_format ? *memory_format : MF_PRESERVE;
    if (fmt < MF_CONTIGUOUS || fmt > MF_CHANNELS_LAST_3D)
        return shimrt_fail(op, "unknown memory format code %d", (int)fmt);
    if (dtype == self->dtype && !copy && (fmt == MF_PRESERVE || is_format(self, fmt))) {
        AtenTensorHandle t =
            shimrt_k_alias(op, self, self->ndim, self->sizes, self->strides, self->storage_offset);
        if (!t) return AOTI_TORCH_FAILURE;
        *ret0 = t;
        return AOTI_TORCH_SUCCESS;
    }
    return copy_as(op, self, fmt, dtype, ret0);
}

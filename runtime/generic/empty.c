/* runtime/generic/empty.c: allocation kernels that work for any device
 * (CompositeExplicitAutograd): empty_like and new_empty, and the helpers that pick a new
 * tensor's strides for a memory format and resolve factory options (see meta.h).
 * Prototypes: generated/compositeexplicitautograd_kernels.h (docs/kernels.md). */
#include "compositeexplicitautograd_kernels.h"
#include "meta.h"

void shimrt_k_channels_last_strides(int64_t ndim, const int64_t *sizes, int64_t *strides) {
    /* c10's get_channels_last_strides_2d/_3d: a size of 0 zeroes the strides outside it;
     * a product that overflows saturates (the geometry check that follows refuses it) */
    int64_t s = 1;
    strides[1] = s;
    if (__builtin_mul_overflow(s, sizes[1], &s)) s = INT64_MAX;
    for (int64_t d = ndim - 1; d >= 2; d--) {
        strides[d] = s;
        if (__builtin_mul_overflow(s, sizes[d], &s)) s = INT64_MAX;
    }
    strides[0] = s;
}

AOTITorchError shimrt_k_check_size(const char *op, const int64_t *size, int64_t n) {
    if (n < 0 || n > SHIMRT_MAX_DIMS || (n > 0 && !size))
        return shimrt_fail(op, "bad size length %lld", (long long)n);
    for (int64_t d = 0; d < n; d++)
        if (size[d] < 0)
            return shimrt_fail(op, "Trying to create tensor with negative dimension %lld",
                               (long long)size[d]);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_k_empty_strides(const char *op, int64_t n, const int64_t *size,
                                      const int32_t *memory_format, int64_t *strides,
                                      bool *use_strides) {
    *use_strides = false;
    if (shimrt_k_check_size(op, size, n)) return AOTI_TORCH_FAILURE;
    int32_t mf = memory_format ? *memory_format : SHIMRT_MEMORY_FORMAT_CONTIGUOUS;
    switch (mf) {
    case SHIMRT_MEMORY_FORMAT_CONTIGUOUS: return AOTI_TORCH_SUCCESS;
    case SHIMRT_MEMORY_FORMAT_PRESERVE:
        return shimrt_fail(op, "unsupported memory format Preserve");
    case SHIMRT_MEMORY_FORMAT_CHANNELS_LAST:
    case SHIMRT_MEMORY_FORMAT_CHANNELS_LAST_3D: {
        bool cl2 = mf == SHIMRT_MEMORY_FORMAT_CHANNELS_LAST;
        if (n != (cl2 ? 4 : 5))
            return shimrt_fail(op, "required rank %d tensor to use %s format", cl2 ? 4 : 5,
                               cl2 ? "channels_last" : "channels_last_3d");
        shimrt_k_channels_last_strides(n, size, strides);
        *use_strides = true;
        return AOTI_TORCH_SUCCESS;
    }
    default: return shimrt_fail(op, "unknown memory format code %d", (int)mf);
    }
}

AOTITorchError shimrt_k_format_strides(const char *op, const struct AtenTensorOpaque *self,
                                       int32_t fmt, int64_t *strides, bool *use_strides) {
    *use_strides = true;
    switch (fmt) {
    case SHIMRT_MEMORY_FORMAT_PRESERVE:
        shimrt_k_preserve_strides(self, strides);
        return AOTI_TORCH_SUCCESS;
    case SHIMRT_MEMORY_FORMAT_CONTIGUOUS: *use_strides = false; return AOTI_TORCH_SUCCESS;
    case SHIMRT_MEMORY_FORMAT_CHANNELS_LAST:
    case SHIMRT_MEMORY_FORMAT_CHANNELS_LAST_3D: {
        int64_t want = fmt == SHIMRT_MEMORY_FORMAT_CHANNELS_LAST ? 4 : 5;
        if (self->ndim != want)
            return shimrt_fail(op, "required rank %lld tensor to use %s format", (long long)want,
                               fmt == SHIMRT_MEMORY_FORMAT_CHANNELS_LAST ? "channels_last"
                                                                         : "channels_last_3d");
        shimrt_k_channels_last_strides(self->ndim, self->sizes, strides);
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
    if (shimrt_k_check_pin(op, pin_memory)) return AOTI_TORCH_FAILURE;
    if (device) {
        *out_dev = *device;
        *out_idx = device_index_ >= 0             ? device_index_
                   : *device == self->device_type ? self->device_index
                                                  : 0;
    } else {
        *out_dev = self->device_type;
        *out_idx = self->device_index;
    }
    /* PyTorch's release builds take any index with a CPU or meta device (the tensor made has
     * none) */
    if (*out_dev == SHIMRT_DEV_CPU || *out_dev == SHIMRT_DEV_META) *out_idx = -1;
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
    if (shimrt_k_format_strides(op, self,
                                memory_format ? *memory_format : SHIMRT_MEMORY_FORMAT_PRESERVE,
                                strides, &use))
        return AOTI_TORCH_FAILURE;
    return shimrt_k_give(
        shimrt_tensor_empty(op, self->ndim, self->sizes, use ? strides : NULL, dt, dev, idx), ret0);
}

AOTITorchError shimrt_k_new_tensor(const char *op, AtenTensorHandle self, const int64_t *size,
                                   int64_t size_len_, int32_t *dtype, int32_t *layout,
                                   int32_t *device, int32_t device_index_, int32_t *pin_memory,
                                   AtenTensorHandle *out) {
    int32_t dt, dev, idx;
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (size_len_ > SHIMRT_MAX_DIMS)
        return shimrt_fail(op, "%lld dimensions are too many (at most %d)", (long long)size_len_,
                           SHIMRT_MAX_DIMS);
    for (int64_t i = 0; i < size_len_; i++)
        if (size[i] < 0) {
            char b[256];
            return shimrt_fail(op, "Trying to create tensor with negative dimension %lld: %s",
                               (long long)size[i],
                               shimrt_k_fmt_shape(b, sizeof b, size_len_, size));
        }
    if (resolve_options(op, self, dtype, layout, device, device_index_, pin_memory, &dt, &dev,
                        &idx))
        return AOTI_TORCH_FAILURE;
    return shimrt_k_give(shimrt_tensor_empty(op, size_len_, size, NULL, dt, dev, idx), out);
}

AOTITorchError shimrt_new_empty(AtenTensorHandle self, const int64_t *size, int64_t size_len_,
                                int32_t *dtype, int32_t *layout, int32_t *device,
                                int32_t device_index_, int32_t *pin_memory,
                                AtenTensorHandle *ret0) {
    return shimrt_k_new_tensor("new_empty", self, size, size_len_, dtype, layout, device,
                               device_index_, pin_memory, ret0);
}

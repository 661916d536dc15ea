/* runtime/cpu/resize.c: resize_ and resize_as_ as PyTorch's CPU resize_: the tensor (seen
 * through every one of its handles, core/tensor.c) takes the new sizes with contiguous
 * strides, its storage grown (keeping its bytes) when the new extent needs more; the
 * same sizes without a memory format change nothing (strides included). A memory format
 * then restrides it (empty_tensor_restride: contiguous, channels_last on rank 4,
 * channels_last_3d on rank 5; preserve is refused by resize_ and means the template's
 * suggested format in resize_as_). */
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"

static AOTITorchError resize(const char *op, AtenTensorHandle self, const int64_t *size, int64_t n,
                             const int32_t *memory_format) {
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_size(op, size, n))
        return AOTI_TORCH_FAILURE;
    /* PyTorch's _resize_: the new sizes with contiguous strides first (the same sizes keep
     * the strides), then the memory format's restride, whose checks fail after the resize
     * (self keeps its new sizes, as PyTorch's) */
    bool same = self->ndim == n && (n == 0 || !memcmp(self->sizes, size, (size_t)n * sizeof *size));
    if (!same && shimrt_tensor_set_geometry(op, self, n, size, NULL)) return AOTI_TORCH_FAILURE;
    if (!memory_format) return AOTI_TORCH_SUCCESS;
    if (*memory_format == SHIMRT_MEMORY_FORMAT_PRESERVE)
        return shimrt_fail(op, "Unsupported memory formatPreserve");
    int64_t st[SHIMRT_MAX_DIMS];
    bool use = false;
    if (shimrt_k_empty_strides(op, n, size, memory_format, st, &use)) return AOTI_TORCH_FAILURE;
    return shimrt_tensor_set_geometry(op, self, n, size, use ? st : NULL);
}

AOTITorchError shimrt_cpu_resize_(AtenTensorHandle self, const int64_t *size, int64_t size_len_,
                                  int32_t *memory_format) {
    return resize("resize_", self, size, size_len_, memory_format);
}

AOTITorchError shimrt_cpu_resize_as_(AtenTensorHandle self, AtenTensorHandle the_template,
                                     int32_t *memory_format) {
    static const char OP[] = "resize_as_";
    if (shimrt_k_check_defined(OP, the_template, "the_template")) return AOTI_TORCH_FAILURE;
    int32_t fmt = memory_format ? *memory_format : SHIMRT_MEMORY_FORMAT_CONTIGUOUS;
    if (fmt == SHIMRT_MEMORY_FORMAT_PRESERVE) /* the template's suggest_memory_format */
        fmt = !shimrt_k_strides_like_cl(the_template) ? SHIMRT_MEMORY_FORMAT_CONTIGUOUS
              : the_template->ndim == 4               ? SHIMRT_MEMORY_FORMAT_CHANNELS_LAST
                                                      : SHIMRT_MEMORY_FORMAT_CHANNELS_LAST_3D;
    /* the sizes are copied first: the_template may be self */
    int64_t sz[SHIMRT_MAX_DIMS], n = the_template->ndim;
    if (n) memcpy(sz, the_template->sizes, (size_t)n * sizeof *sz);
    return resize(OP, self, sz, n, memory_format ? &fmt : NULL);
}

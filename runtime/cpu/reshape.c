/* runtime/cpu/reshape.c: reshape and flatten.using_ints, CPU kernels because they copy
 * when no view exists (the views themselves are runtime/generic/views.c). Every returned
 * handle is a new reference, sharing self's storage unless it is a copy. */
#include <string.h>

#include "cpu_kernels.h"
#include "iter.h"

static AOTITorchError give(AtenTensorHandle t, AtenTensorHandle *ret0) {
    if (!t) return AOTI_TORCH_FAILURE;
    *ret0 = t;
    return AOTI_TORCH_SUCCESS;
}

/* A view when one exists, else a contiguous copy with the new shape. */
static AOTITorchError reshape_to(const char *op, AtenTensorHandle self, int64_t n,
                                 const int64_t *shape, AtenTensorHandle *ret0) {
    int64_t strides[SHIMRT_MAX_DIMS];
    if (shimrt_k_view_strides(self, n, shape, strides))
        return give(shimrt_k_alias(op, self, n, shape, strides, self->storage_offset), ret0);
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    AtenTensorHandle tmp =
        shimrt_k_empty_like_dev(op, self, self->ndim, self->sizes, NULL, self->dtype);
    if (!tmp) return AOTI_TORCH_FAILURE;
    AOTITorchError err = shimrt_k_copy(op, tmp, self);
    if (!err) {
        AtenTensorHandle t = shimrt_k_alias(op, tmp, n, shape, NULL, 0);
        err = give(t, ret0);
    }
    shimrt_tensor_free(tmp);
    return err;
}

AOTITorchError shimrt_cpu_reshape(AtenTensorHandle self, const int64_t *shape, int64_t shape_len_,
                                  AtenTensorHandle *ret0) {
    static const char op[] = "reshape";
    int64_t sh[SHIMRT_MAX_DIMS];
    if (shimrt_k_check_defined(op, self, "self") ||
        shimrt_k_infer_size(op, shape, shape_len_, shimrt_numel(self), sh))
        return AOTI_TORCH_FAILURE;
    return reshape_to(op, self, shape_len_, sh, ret0);
}

AOTITorchError shimrt_cpu_flatten_using_ints(AtenTensorHandle self, int64_t start_dim,
                                             int64_t end_dim, AtenTensorHandle *ret0) {
    static const char op[] = "flatten.using_ints";
    int64_t s, e;
    if (shimrt_k_check_defined(op, self, "self") ||
        shimrt_k_wrap_dim(op, start_dim, self->ndim, &s) ||
        shimrt_k_wrap_dim(op, end_dim, self->ndim, &e))
        return AOTI_TORCH_FAILURE;
    if (s > e)
        return shimrt_fail(op, "flatten() has invalid args: start_dim cannot come after end_dim");
    if (self->ndim == 0) {
        int64_t one = 1;
        return reshape_to(op, self, 1, &one, ret0);
    }
    if (s == e) return give(shimrt_tensor_share(op, self), ret0); /* PyTorch returns self */
    int64_t shape[SHIMRT_MAX_DIMS], n = 0, prod = 1;
    for (int64_t d = 0; d < self->ndim; d++) {
        if (d < s || d > e) {
            shape[n++] = self->sizes[d];
        } else {
            prod *= self->sizes[d]; /* cannot overflow: numel fits in int64 */
            if (d == e) shape[n++] = prod;
        }
    }
    return reshape_to(op, self, n, shape, ret0);
}

/* runtime/cuda/aten.c: the CUDA kernels named in schemas/native_functions.yaml (`CUDA:`
 * dispatch entries; prototypes in generated/cuda_kernels.h, docs/kernels.md). Compute ops
 * go to ops.c (the catalogue's kernels); views come from the device-generic
 * CompositeExplicitAutograd kernels; `mm` is not wired to cuBLAS yet and fails clearly. */
#include <string.h>

#include "../cpu/iter.h"
#include "compositeexplicitautograd_kernels.h"
#include "cuda_internal.h"
#include "cuda_kernels.h"

enum { MF_CONTIGUOUS = 0, MF_PRESERVE = 1 };

AOTITorchError shimrt_cuda_add_tensor(AtenTensorHandle self, AtenTensorHandle other, double alpha,
                                      AtenTensorHandle *ret0) {
    return shimrt_cuda_binary("add", self, other, alpha, ret0);
}
AOTITorchError shimrt_cuda_sub_tensor(AtenTensorHandle self, AtenTensorHandle other, double alpha,
                                      AtenTensorHandle *ret0) {
    return shimrt_cuda_binary("sub", self, other, alpha, ret0);
}
AOTITorchError shimrt_cuda_mul_tensor(AtenTensorHandle self, AtenTensorHandle other,
                                      AtenTensorHandle *ret0) {
    return shimrt_cuda_binary("mul", self, other, 1.0, ret0);
}
AOTITorchError shimrt_cuda_div_tensor(AtenTensorHandle self, AtenTensorHandle other,
                                      AtenTensorHandle *ret0) {
    return shimrt_cuda_binary("div", self, other, 1.0, ret0);
}
AOTITorchError shimrt_cuda_add_scalar(AtenTensorHandle self, double other, double alpha,
                                      AtenTensorHandle *ret0) {
    return shimrt_cuda_binary_scalar("add", self, other, alpha, ret0);
}
AOTITorchError shimrt_cuda_neg(AtenTensorHandle self, AtenTensorHandle *ret0) {
    return shimrt_cuda_unary("neg", self, ret0);
}
AOTITorchError shimrt_cuda_relu(AtenTensorHandle self, AtenTensorHandle *ret0) {
    return shimrt_cuda_unary("relu", self, ret0);
}
AOTITorchError shimrt_cuda_exp(AtenTensorHandle self, AtenTensorHandle *ret0) {
    return shimrt_cuda_unary("exp", self, ret0);
}

AOTITorchError shimrt_cuda_sum_dim_intlist(AtenTensorHandle self, const int64_t *dim,
                                           int64_t dim_len_, int32_t keepdim, int32_t *dtype,
                                           AtenTensorHandle *ret0) {
    SHIMRT_CHECK_ARG(ret0);
    if (!dtype || !shimrt_tensor_valid(self) || self->dtype == *dtype)
        return shimrt_cuda_reduce("sum", self, dim, dim ? dim_len_ : 0, keepdim != 0, ret0);
    AtenTensorHandle c = NULL;
    if (shimrt_cuda_to_dtype(self, *dtype, 0, 0, NULL, &c)) return AOTI_TORCH_FAILURE;
    AOTITorchError rc = shimrt_cuda_reduce("sum", c, dim, dim ? dim_len_ : 0, keepdim != 0, ret0);
    shimrt_tensor_free(c);
    return rc;
}

AOTITorchError shimrt_cuda_amax(AtenTensorHandle self, const int64_t *dim, int64_t dim_len_,
                                int32_t keepdim, AtenTensorHandle *ret0) {
    return shimrt_cuda_reduce("amax", self, dim, dim_len_, keepdim != 0, ret0);
}

AOTITorchError shimrt_cuda_copy_(AtenTensorHandle self, AtenTensorHandle src, int32_t non_blocking) {
    (void)non_blocking; /* copies are ordered on the current stream; D2H ones synchronize */
    return shimrt_cuda_do_copy(self, src);
}

AOTITorchError shimrt_cuda_fill__scalar(AtenTensorHandle self, double value) {
    return shimrt_cuda_do_fill(self, value);
}

AOTITorchError shimrt_cuda_zero_(AtenTensorHandle self) { return shimrt_cuda_do_fill(self, 0.0); }

/* A new CUDA tensor like self (strides: preserve or contiguous) holding self's values in dt. */
static AOTITorchError copy_as(const char *op, AtenTensorHandle self, bool preserve, int32_t dt,
                              AtenTensorHandle *ret) {
    SHIMRT_CHECK_ARG(ret);
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    int64_t strides[SHIMRT_MAX_DIMS];
    if (preserve) shimrt_k_preserve_strides(self, strides);
    AtenTensorHandle t = shimrt_tensor_empty(op, self->ndim, self->sizes, preserve ? strides : NULL,
                                             dt, self->device_type, self->device_index);
    if (!t) return AOTI_TORCH_FAILURE;
    if (shimrt_cuda_do_copy(t, self)) {
        shimrt_tensor_free(t);
        return AOTI_TORCH_FAILURE;
    }
    *ret = t;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cuda_clone(AtenTensorHandle self, int32_t *memory_format,
                                 AtenTensorHandle *ret0) {
    int32_t mf = memory_format ? *memory_format : MF_PRESERVE;
    if (mf != MF_PRESERVE && mf != MF_CONTIGUOUS)
        return shimrt_fail("clone", "memory format %d is not implemented for CUDA tensors", (int)mf);
    if (!shimrt_tensor_valid(self)) return shimrt_fail("clone", "argument 'self' is not a tensor");
    return copy_as("clone", self, mf == MF_PRESERVE, self->dtype, ret0);
}

AOTITorchError shimrt_cuda_contiguous(AtenTensorHandle self, int32_t memory_format,
                                      AtenTensorHandle *ret0) {
    static const char op[] = "contiguous";
    SHIMRT_CHECK_ARG(ret0);
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (memory_format != MF_CONTIGUOUS)
        return shimrt_fail(op, "memory format %d is not implemented for CUDA tensors",
                           (int)memory_format);
    if (shimrt_is_contiguous(self)) {
        AtenTensorHandle t = shimrt_k_alias(op, self, self->ndim, self->sizes, self->strides,
                                            self->storage_offset);
        if (!t) return AOTI_TORCH_FAILURE;
        *ret0 = t;
        return AOTI_TORCH_SUCCESS;
    }
    return copy_as(op, self, false, self->dtype, ret0);
}

AOTITorchError shimrt_cuda_to_dtype(AtenTensorHandle self, int32_t dtype, int32_t non_blocking,
                                    int32_t copy, int32_t *memory_format, AtenTensorHandle *ret0) {
    static const char op[] = "to";
    (void)non_blocking;
    SHIMRT_CHECK_ARG(ret0);
    if (shimrt_k_check_defined(op, self, "self") || shimrt_check_dtype(op, dtype))
        return AOTI_TORCH_FAILURE;
    int32_t mf = memory_format ? *memory_format : MF_PRESERVE;
    if (mf != MF_PRESERVE && mf != MF_CONTIGUOUS)
        return shimrt_fail(op, "memory format %d is not implemented for CUDA tensors", (int)mf);
    if (dtype == self->dtype && !copy && (mf == MF_PRESERVE || shimrt_is_contiguous(self))) {
        AtenTensorHandle t = shimrt_k_alias(op, self, self->ndim, self->sizes, self->strides,
                                            self->storage_offset);
        if (!t) return AOTI_TORCH_FAILURE;
        *ret0 = t;
        return AOTI_TORCH_SUCCESS;
    }
    return copy_as(op, self, mf == MF_PRESERVE, dtype, ret0);
}

AOTITorchError shimrt_cuda_new_zeros(AtenTensorHandle self, const int64_t *size, int64_t size_len_,
                                     int32_t *dtype, int32_t *layout, int32_t *device,
                                     int32_t device_index_, int32_t *pin_memory,
                                     AtenTensorHandle *ret0) {
    AtenTensorHandle t = NULL;
    if (shimrt_new_empty(self, size, size_len_, dtype, layout, device, device_index_, pin_memory, &t))
        return AOTI_TORCH_FAILURE;
    AOTITorchError rc = AOTI_TORCH_SUCCESS;
    if (t->device_type == SHIMRT_DEV_CUDA) rc = shimrt_cuda_do_fill(t, 0.0);
    else if (t->device_type == SHIMRT_DEV_CPU) shimrt_k_fill(t, 0.0);
    if (rc) {
        shimrt_tensor_free(t);
        return AOTI_TORCH_FAILURE;
    }
    *ret0 = t;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cuda_reshape(AtenTensorHandle self, const int64_t *shape, int64_t shape_len_,
                                   AtenTensorHandle *ret0) {
    SHIMRT_CHECK_ARG(ret0);
    if (shimrt_view(self, shape, shape_len_, ret0) == AOTI_TORCH_SUCCESS) return AOTI_TORCH_SUCCESS;
    if (!shimrt_tensor_valid(self) || shimrt_is_contiguous(self))
        return AOTI_TORCH_FAILURE; /* not a stride problem: view's message stands */
    AtenTensorHandle c = NULL;
    if (copy_as("reshape", self, false, self->dtype, &c)) return AOTI_TORCH_FAILURE;
    AOTITorchError rc = shimrt_view(c, shape, shape_len_, ret0);
    shimrt_tensor_free(c);
    return rc;
}

AOTITorchError shimrt_cuda_flatten_using_ints(AtenTensorHandle self, int64_t start_dim,
                                              int64_t end_dim, AtenTensorHandle *ret0) {
    static const char op[] = "flatten";
    SHIMRT_CHECK_ARG(ret0);
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (self->ndim == 0) return shimrt_cuda_reshape(self, (int64_t[]){1}, 1, ret0);
    int64_t s, e;
    if (shimrt_k_wrap_dim(op, start_dim, self->ndim, &s) || shimrt_k_wrap_dim(op, end_dim, self->ndim, &e))
        return AOTI_TORCH_FAILURE;
    if (s > e) return shimrt_fail(op, "flatten() has invalid args: start_dim cannot come after end_dim");
    int64_t shape[SHIMRT_MAX_DIMS], n = 0, prod = 1;
    for (int64_t d = 0; d < self->ndim; d++) {
        if (d < s || d > e) shape[n++] = self->sizes[d];
        else {
            prod *= self->sizes[d];
            if (d == e) shape[n++] = prod;
        }
    }
    return shimrt_cuda_reshape(self, shape, n, ret0);
}

AOTITorchError shimrt_cuda_pad(AtenTensorHandle self, const int64_t *pad, int64_t pad_len_,
                               const char *mode, double *value, AtenTensorHandle *ret0) {
    static const char op[] = "pad";
    SHIMRT_CHECK_ARG(ret0);
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (mode && strcmp(mode, "constant"))
        return shimrt_fail(op, "padding mode '%s' is not implemented for CUDA tensors", mode);
    if (pad_len_ % 2 || pad_len_ / 2 > self->ndim || (pad_len_ && !pad))
        return shimrt_fail(op, "Padding length must be divisible by 2 and at most twice the "
                               "number of dimensions of the input");
    int64_t shape[SHIMRT_MAX_DIMS];
    for (int64_t d = 0; d < self->ndim; d++) shape[d] = self->sizes[d];
    for (int64_t i = 0; i < pad_len_ / 2; i++) {
        int64_t d = self->ndim - 1 - i;
        if (pad[2 * i] < 0 || pad[2 * i + 1] < 0)
            return shimrt_fail(op, "negative padding is not implemented for CUDA tensors");
        shape[d] += pad[2 * i] + pad[2 * i + 1];
    }
    AtenTensorHandle out = shimrt_tensor_empty(op, self->ndim, shape, NULL, self->dtype,
                                               SHIMRT_DEV_CUDA, self->device_index);
    if (!out) return AOTI_TORCH_FAILURE;
    AtenTensorHandle view = NULL;
    AOTITorchError rc = shimrt_cuda_do_fill(out, value ? *value : 0.0);
    if (!rc) {
        view = shimrt_k_alias(op, out, out->ndim, out->sizes, out->strides, out->storage_offset);
        rc = view ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
    }
    for (int64_t i = 0; !rc && i < pad_len_ / 2; i++) {
        AtenTensorHandle v = NULL;
        int64_t d = self->ndim - 1 - i;
        rc = shimrt_narrow(view, d, pad[2 * i], self->sizes[d], &v);
        if (!rc) {
            shimrt_tensor_free(view);
            view = v;
        }
    }
    if (!rc) rc = shimrt_cuda_do_copy(view, self);
    shimrt_tensor_free(view);
    if (rc) {
        shimrt_tensor_free(out);
        return AOTI_TORCH_FAILURE;
    }
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cuda_mm(AtenTensorHandle self, AtenTensorHandle mat2, AtenTensorHandle *ret0) {
    (void)self;
    (void)mat2;
    (void)ret0;
    return shimrt_fail("mm", "mm is not implemented for CUDA tensors yet (the cuBLAS GEMM is "
                             "not wired); move the tensors to the CPU");
}

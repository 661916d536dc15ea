/* examples/myops/myops_kernel.c: the kernel of myops::add_scalar, written by the
 * extension author in plain C against the installed headers only.
 *
 * Its prototype is the one shimgen declared in the generated cpu_kernels.h (docs/kernels.md):
 * including that header makes any mismatch a compile error. The generated shim
 * (aoti_torch_cpu_myops_add_scalar) has already checked that `input` is a live tensor handle and
 * that `ret0` is not NULL; the kernel checks what is specific to the op. */
#include <stdint.h>

#include <shimrt/shim_support.h> /* shimrt_set_error, and the whole stable C API */

#include "cpu_kernels.h" /* generated: AOTITorchError myops_add_scalar(...) */

/* out = input + scalar, element by element, for a float32 CPU tensor of any shape and
 * strides; out is a new contiguous tensor (a new reference in *ret0). */
AOTITorchError myops_add_scalar(AtenTensorHandle input, double scalar, AtenTensorHandle *ret0) {
    int32_t dtype = -1, device_type = -1;
    int64_t ndim = 0, *sizes = NULL, *strides = NULL, numel = 0;
    float *src = NULL, *dst = NULL;
    AtenTensorHandle out = NULL;

    if (aoti_torch_get_dtype(input, &dtype) || aoti_torch_get_device_type(input, &device_type) ||
        aoti_torch_get_dim(input, &ndim) || aoti_torch_get_sizes(input, &sizes) ||
        aoti_torch_get_strides(input, &strides) || aoti_torch_get_numel(input, &numel))
        return AOTI_TORCH_FAILURE; /* the runtime's message stands */
    if (dtype != aoti_torch_dtype_float32())
        return shimrt_set_error(__func__, "input must be float32, got dtype code %d", (int)dtype);
    if (device_type != aoti_torch_device_type_cpu())
        return shimrt_set_error(__func__,
                                "input must be on the CPU, got device "
                                "type %d",
                                (int)device_type);

    if (ndim > 64)
        return shimrt_set_error(__func__, "input has %lld dimensions, at most 64 are supported",
                                (long long)ndim);
    /* Contiguous strides for the result (PyTorch's aoti_torch_empty_strided needs them). */
    int64_t out_strides[64];
    for (int64_t d = ndim - 1, step = 1; d >= 0; d--) {
        out_strides[d] = step;
        step *= sizes[d] > 1 ? sizes[d] : 1;
    }
    if (aoti_torch_empty_strided(ndim, sizes, out_strides, dtype, device_type, 0, &out))
        return AOTI_TORCH_FAILURE;
    if (numel > 0 && (aoti_torch_get_data_ptr(input, (void **)&src) ||
                      aoti_torch_get_data_ptr(out, (void **)&dst))) {
        aoti_torch_delete_tensor_object(out);
        return AOTI_TORCH_FAILURE;
    }

    /* Walk the input in row-major order with an index counter per dimension. */
    int64_t index[64] = {0};
    int64_t offset = 0; /* in elements, from src */
    for (int64_t k = 0; k < numel; k++) {
        dst[k] = (float)((double)src[offset] + scalar);
        for (int64_t d = ndim - 1; d >= 0; d--) {
            if (++index[d] < sizes[d]) {
                offset += strides[d];
                break;
            }
            offset -= strides[d] * (sizes[d] - 1);
            index[d] = 0;
        }
    }
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

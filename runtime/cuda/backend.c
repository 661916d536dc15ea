/* runtime/cuda/backend.c: CUDA's row of the backend table (runtime/core/backend.h): the
 * driver's device check, the caching allocator (caching_allocator.c), the copies and fills of ops.c,
 * the generated registration of the CUDA kernels, and the CPU fallback for the ops that
 * have no CUDA kernel (docs/cuda.md, manifest "backend_fallback"). */
#include "../core/backend.h"
#include "c_boxed_cuda.h"
#include "cuda_internal.h"

static AOTITorchError cuda_copy(const char *func, AtenTensorHandle dst, AtenTensorHandle src) {
    (void)func; /* the CUDA copy's messages name copy_, as PyTorch's do */
    return shimrt_cuda_do_copy(dst, src);
}

static AOTITorchError cuda_fill(const char *func, AtenTensorHandle t, double value) {
    (void)func; /* the CUDA fill's messages name fill_ */
    return shimrt_cuda_do_fill(t, value);
}

/* The library lives as long as the process; the schemas are the CPU row's. */
static TorchLibraryHandle aten_cuda_impl;
static AOTITorchError cuda_register(void) {
    return shimgen_register_aten_cuda(NULL, &aten_cuda_impl);
}

const shimrt_backend shimrt_backend_cuda = {
    .name = "cuda",
    .device_type = SHIMRT_DEV_CUDA,
    .dispatch_key = SHIMRT_DISPATCH_KEY_CUDA,
    .check_device = shimrt_cuda_check_device,
    .alloc = shimrt_cuda_storage_alloc,
    .free_data = shimrt_cuda_storage_free,
    .copy = cuda_copy,
    .fill = cuda_fill,
    .register_kernels = cuda_register,
    .cpu_fallback = true,
};

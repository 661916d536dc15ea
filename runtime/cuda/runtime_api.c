/* runtime/cuda/runtime_api.c: the CUDA runtime API's device, memset, event-query and
 * synchronize calls that libshimrt's public API lacked (shimrt/cuda.h), on the driver layer
 * of device.c. libshimrt-cudart (runtime/aoti/cudart/) builds the cuda* functions that
 * AOTInductor's CUDA models call on them. */
#include "cuda_internal.h"

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_set_device(int32_t device_index) {
    if (device_index < 0)
        return shimrt_fail(__func__, "CUDA device index %d is out of range", (int)device_index);
    return shimrt_cuda_use_device(__func__, device_index, NULL);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_get_device(int32_t *ret_device_index) {
    SHIMRT_CHECK_ARG(ret_device_index);
    return shimrt_cuda_resolve_device(__func__, -1, ret_device_index);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_event_query(void *event, bool *ret_done) {
    SHIMRT_CHECK_ARG(event);
    SHIMRT_CHECK_ARG(ret_done);
    const shimrt_cuda_api *cu = shimrt_cuda_driver(__func__);
    if (!cu) return AOTI_TORCH_FAILURE;
    CUresult r = cu->cuEventQuery((CUevent)event);
    if (r != 0 && r != 600) return shimrt_cu_fail(__func__, "cuEventQuery", r);
    *ret_done = r == 0; /* 600: CUDA_ERROR_NOT_READY */
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_memset(void *dst, int32_t value, uint64_t nbytes,
                                                    void *stream, bool sync) {
    if (nbytes == 0) return AOTI_TORCH_SUCCESS;
    SHIMRT_CHECK_ARG(dst);
    shimrt_cuda_ctx_guard g;
    int32_t dev;
    if (shimrt_cuda_enter(__func__, -1, &g, &dev)) return AOTI_TORCH_FAILURE;
    const shimrt_cuda_api *cu = shimrt_cuda_driver(__func__);
    CUstream s = stream ? (CUstream)stream : shimrt_cuda_current_stream(dev);
    CUresult r =
        cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)dst, (unsigned char)value, (size_t)nbytes, s);
    const char *call = "cuMemsetD8Async";
    if (!r && sync) {
        r = cu->cuStreamSynchronize(s);
        call = "cuStreamSynchronize";
    }
    shimrt_cuda_leave(&g);
    if (r) return shimrt_cu_fail(__func__, call, r);
    return sync ? shimrt_cuda_check_async(__func__, dev) : AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_device_synchronize(int32_t device_index) {
    shimrt_cuda_ctx_guard g;
    int32_t dev;
    if (shimrt_cuda_enter(__func__, device_index, &g, &dev)) return AOTI_TORCH_FAILURE;
    const shimrt_cuda_api *cu = shimrt_cuda_driver(__func__);
    CUresult r = cu->cuCtxSynchronize();
    shimrt_cuda_leave(&g);
    if (r) return shimrt_cu_fail(__func__, "cuCtxSynchronize", r);
    return shimrt_cuda_check_async(__func__, dev);
}

/* runtime/aoti/cudart/cudart.c: libshimrt-cudart, the CUDA runtime API functions that an
 * AOTInductor model compiled for CUDA calls (its .so leaves them undefined: PyTorch's process
 * has libcudart loaded), on libshimrt's CUDA layer (shimrt/cuda.h). libshimrt-aoti loads
 * this library into the global scope only when it opens a CUDA package and the process has
 * no cudaMalloc of its own, so an application linked to NVIDIA's libcudart keeps it.
 *
 * Semantics: memory comes from libshimrt's caching allocator (cudaFree returns it to the
 * cache, ordered on the current stream); the device is the device of the thread's current
 * context, as cudart's; a NULL stream is the current stream of the current device (the
 * legacy default stream unless the thread set another); copies find their direction by
 * unified addressing (the cudaMemcpyKind is not needed). Each call returns a cudaError_t;
 * a failure is also kept as the thread's last error (cudaGetLastError returns and clears
 * it) and cudaGetErrorString of that code gives libshimrt's message for it. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "shimrt/cuda.h"
#include "shimrt/error.h"

typedef int cudaError_t;
typedef void *cudaStream_t;
typedef void *cudaEvent_t;
enum {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidDevice = 101,
    cudaErrorNotReady = 600,
    cudaErrorUnknown = 999
};
enum { cudaEventDisableTiming = 2 };

#define EXPORT __attribute__((visibility("default")))

static _Thread_local cudaError_t last_error;
static _Thread_local int last_code;        /* the code last_text belongs to */
static _Thread_local char last_text[1024]; /* libshimrt's message for it */

/* The cudaError_t for a libshimrt call's result: rc 0 is cudaSuccess; a failure becomes
 * code, remembered with libshimrt's message. */
static cudaError_t status(AOTITorchError rc, cudaError_t code) {
    if (rc == AOTI_TORCH_SUCCESS) return cudaSuccess;
    last_error = code;
    last_code = code;
    snprintf(last_text, sizeof last_text, "%s", torch_exception_get_what());
    return code;
}

EXPORT cudaError_t cudaMalloc(void **ptr, size_t size) {
    if (!ptr) return status(AOTI_TORCH_FAILURE, cudaErrorInvalidValue);
    *ptr = NULL;
    if (size == 0) return cudaSuccess;
    return status(aoti_torch_cuda_caching_allocator_raw_alloc(size, ptr),
                  cudaErrorMemoryAllocation);
}

EXPORT cudaError_t cudaFree(void *ptr) {
    if (!ptr) return cudaSuccess;
    return status(aoti_torch_cuda_caching_allocator_raw_delete(ptr), cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, int kind) {
    (void)kind;
    return status(shimrt_cuda_memcpy(dst, src, count, NULL, true), cudaErrorUnknown);
}

EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, int kind,
                                   cudaStream_t stream) {
    (void)kind;
    return status(shimrt_cuda_memcpy(dst, src, count, stream, false), cudaErrorUnknown);
}

EXPORT cudaError_t cudaMemset(void *ptr, int value, size_t count) {
    return status(shimrt_cuda_memset(ptr, value, count, NULL, true), cudaErrorUnknown);
}

EXPORT cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream) {
    return status(shimrt_cuda_memset(ptr, value, count, stream, false), cudaErrorUnknown);
}

EXPORT cudaError_t cudaGetDeviceCount(int *count) {
    if (!count) return status(AOTI_TORCH_FAILURE, cudaErrorInvalidValue);
    int32_t n = 0;
    cudaError_t e = status(shimrt_cuda_device_count(&n), cudaErrorUnknown);
    *count = e ? 0 : (int)n;
    return e;
}

EXPORT cudaError_t cudaGetDevice(int *device) {
    if (!device) return status(AOTI_TORCH_FAILURE, cudaErrorInvalidValue);
    int32_t d = 0;
    cudaError_t e = status(shimrt_cuda_get_device(&d), cudaErrorInvalidDevice);
    if (!e) *device = (int)d;
    return e;
}

EXPORT cudaError_t cudaSetDevice(int device) {
    return status(shimrt_cuda_set_device(device), cudaErrorInvalidDevice);
}

EXPORT cudaError_t cudaDeviceSynchronize(void) {
    return status(shimrt_cuda_device_synchronize(-1), cudaErrorUnknown);
}

EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    return status(torch_cuda_stream_synchronize(stream, -1), cudaErrorUnknown);
}

EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
    if (!event) return status(AOTI_TORCH_FAILURE, cudaErrorInvalidValue);
    return status(shimrt_cuda_event_new(!(flags & cudaEventDisableTiming), event),
                  cudaErrorUnknown);
}

EXPORT cudaError_t cudaEventCreate(cudaEvent_t *event) {
    return cudaEventCreateWithFlags(event, 0);
}

EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event) {
    return status(shimrt_cuda_event_delete(event), cudaErrorUnknown);
}

EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    return status(shimrt_cuda_event_record(event, stream), cudaErrorUnknown);
}

EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    return status(shimrt_cuda_event_synchronize(event), cudaErrorUnknown);
}

/* cudaErrorNotReady while work before the event is pending: not an error (cudart does
 * not keep it as the last error either). */
EXPORT cudaError_t cudaEventQuery(cudaEvent_t event) {
    bool done = false;
    cudaError_t e = status(shimrt_cuda_event_query(event, &done), cudaErrorUnknown);
    return e ? e : done ? cudaSuccess : cudaErrorNotReady;
}

EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
    return status(shimrt_cuda_event_elapsed_ms(start, end, ms), cudaErrorUnknown);
}

EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    (void)flags;
    return status(shimrt_cuda_stream_wait_event(stream, event), cudaErrorUnknown);
}

EXPORT cudaError_t cudaGetLastError(void) {
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

EXPORT cudaError_t cudaPeekAtLastError(void) { return last_error; }

/* The thread's own message for the code of its last failure, else cudart's text. */
EXPORT const char *cudaGetErrorString(cudaError_t error) {
    if (error != cudaSuccess && error == last_code && last_text[0]) return last_text;
    return shimrt_cuda_error_string(error);
}

EXPORT const char *cudaGetErrorName(cudaError_t error) {
    switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    default: return "cudaErrorUnknown";
    }
}

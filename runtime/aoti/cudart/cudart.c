/* runtime/aoti/cudart/cudart.c: libshimrt-cudart, the CUDA runtime API functions that an
 * AOTInductor model compiled for CUDA calls (its .so leaves them undefined: PyTorch's process
 * has libcudart loaded), on libshimrt's CUDA layer (shimrt/cuda.h). libshimrt-aoti loads
 * this library into the global scope only when it opens a CUDA package and the process has
 * no cudaMalloc of its own, so an application linked to NVIDIA's libcudart keeps it. As
 * build/torch-libs/libcudart.so.13 it is also what a CUDA-built stable-ABI extension (e.g.
 * torchaudio's wheel) loads on libshimrt: nvcc's registration and launch entry points are at
 * the end of this file (docs/dropin.md).
 *
 * Semantics: memory comes from libshimrt's caching allocator (cudaFree returns it to the
 * cache, ordered on the current stream); the device is the device of the thread's current
 * context, as cudart's; a NULL stream is the current stream of the current device (the
 * legacy default stream unless the thread set another); copies find their direction by
 * unified addressing (the cudaMemcpyKind is not needed). Each call returns a cudaError_t;
 * a failure is also kept as the thread's last error (cudaGetLastError returns and clears
 * it) and cudaGetErrorString of that code gives libshimrt's message for it. */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "shimrt/cuda.h"
#include "shimrt/error.h"

typedef int cudaError_t;
typedef void *cudaStream_t;
typedef void *cudaEvent_t;
enum {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidPitchValue = 12,
    cudaErrorMissingConfiguration = 52,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorNotReady = 600,
    cudaErrorLaunchFailure = 719,
    cudaErrorNotSupported = 801,
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

/* A failure of this library's own: code, remembered with the message "func: <formatted>". */
__attribute__((format(printf, 3, 4))) static cudaError_t fail(cudaError_t code, const char *func,
                                                              const char *fmt, ...) {
    int n = snprintf(last_text, sizeof last_text, "%s: ", func);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof last_text)
        vsnprintf(last_text + n, sizeof last_text - (size_t)n, fmt, ap);
    va_end(ap);
    last_error = code;
    last_code = code;
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
    case cudaErrorInvalidPitchValue: return "cudaErrorInvalidPitchValue";
    case cudaErrorMissingConfiguration: return "cudaErrorMissingConfiguration";
    case cudaErrorInvalidDeviceFunction: return "cudaErrorInvalidDeviceFunction";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    default: return "cudaErrorUnknown";
    }
}

EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                     size_t width, size_t height, int kind, cudaStream_t stream) {
    (void)kind;
    if (height && (width > dpitch || width > spitch))
        return fail(cudaErrorInvalidPitchValue, "cudaMemcpy2DAsync",
                    "width %zu exceeds a pitch (%zu, %zu)", width, dpitch, spitch);
    for (size_t r = 0; r < height; r++) {
        cudaError_t e =
            status(shimrt_cuda_memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch,
                                      width, stream, false),
                   cudaErrorUnknown);
        if (e) return e;
    }
    return cudaSuccess;
}

/* The registration and launch entry points that nvcc's host code calls (a CUDA extension's
 * .so imports them from libcudart: its static constructors register each fatbinary, kernel
 * and __device__ variable; each <<<...>>> pushes a launch configuration, its stub pops it
 * and launches the kernel). Registration only records (the fatbinary, each kernel's host
 * stub and device name): loading such a library into a process on libshimrt never fails
 * and never aborts. libshimrt does not load the fatbinaries' code into a CUDA context, so
 * a launch returns cudaErrorNoDevice when there is no device and cudaErrorNotSupported
 * otherwise, kept as the thread's last error with a message naming the kernel (what
 * C10_CUDA_KERNEL_LAUNCH_CHECK reports). */
typedef struct {
    unsigned x, y, z;
} dim3;

typedef struct kernel_record {
    struct kernel_record *next;
    const void *host_fun; /* the host stub: __cudaGetKernel's key */
    const char *device_name;
} kernel_record;

typedef struct fatbin_record {
    struct fatbin_record *next;
    void *fatbin; /* nvcc's wrapper (magic, version, data, ...): kept, never read */
    kernel_record *kernels;
    int64_t vars;
    bool ended;
} fatbin_record;

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static fatbin_record *fatbins;

/* The handle is the record itself, so that any record can be found from the handle
 * nvcc's code passes back (a void ** to cudart). */
EXPORT void **__cudaRegisterFatBinary(void *fatCubin) {
    fatbin_record *f = calloc(1, sizeof *f);
    if (!f) { /* cannot record: a handle that names nothing, still not NULL */
        static void *none;
        return &none;
    }
    f->fatbin = fatCubin;
    pthread_mutex_lock(&reg_lock);
    f->next = fatbins;
    fatbins = f;
    pthread_mutex_unlock(&reg_lock);
    return (void **)f;
}

static fatbin_record *find_fatbin(void **handle) {
    for (fatbin_record *f = fatbins; f; f = f->next)
        if ((void **)f == handle) return f;
    return NULL;
}

EXPORT void __cudaRegisterFatBinaryEnd(void **handle) {
    pthread_mutex_lock(&reg_lock);
    fatbin_record *f = find_fatbin(handle);
    if (f) f->ended = true;
    pthread_mutex_unlock(&reg_lock);
}

EXPORT void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun,
                                   const char *deviceName, int thread_limit, void *tid, void *bid,
                                   dim3 *bDim, dim3 *gDim, int *wSize) {
    (void)deviceFun, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
    kernel_record *k = calloc(1, sizeof *k);
    if (!k) return; /* unrecorded: __cudaGetKernel will not find it */
    k->host_fun = hostFun;
    k->device_name = deviceName; /* in the registering library's read-only data */
    pthread_mutex_lock(&reg_lock);
    fatbin_record *f = find_fatbin(handle);
    if (f) {
        k->next = f->kernels;
        f->kernels = k;
    }
    pthread_mutex_unlock(&reg_lock);
    if (!f) free(k);
}

EXPORT void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant,
                              int global) {
    (void)hostVar, (void)deviceAddress, (void)deviceName, (void)ext, (void)size, (void)constant,
        (void)global;
    pthread_mutex_lock(&reg_lock);
    fatbin_record *f = find_fatbin(handle);
    if (f) f->vars++;
    pthread_mutex_unlock(&reg_lock);
}

EXPORT void __cudaUnregisterFatBinary(void **handle) {
    pthread_mutex_lock(&reg_lock);
    fatbin_record **p = &fatbins;
    while (*p && (void **)*p != handle) p = &(*p)->next;
    fatbin_record *f = *p;
    if (f) *p = f->next;
    pthread_mutex_unlock(&reg_lock);
    if (!f) return;
    for (kernel_record *k = f->kernels, *n; k; k = n) n = k->next, free(k);
    free(f);
}

/* A thread's pushed launch configurations (<<<grid, block, shmem, stream>>>): cudart keeps a
 * stack, since a configuration's arguments may themselves launch kernels. */
typedef struct {
    dim3 grid, block;
    size_t shmem;
    void *stream;
} launch_config;
enum { MAX_CONFIGS = 16 };
static _Thread_local launch_config configs[MAX_CONFIGS];
static _Thread_local int nconfigs;

EXPORT unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                            void *stream) {
    if (nconfigs == MAX_CONFIGS)
        return (unsigned)fail(cudaErrorLaunchFailure, "__cudaPushCallConfiguration",
                              "more than %d nested launch configurations", MAX_CONFIGS);
    configs[nconfigs++] = (launch_config){gridDim, blockDim, sharedMem, stream};
    return cudaSuccess;
}

EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                              void *stream) {
    if (!nconfigs)
        return fail(cudaErrorMissingConfiguration, "__cudaPopCallConfiguration",
                    "no launch configuration");
    launch_config c = configs[--nconfigs];
    if (gridDim) *gridDim = c.grid;
    if (blockDim) *blockDim = c.block;
    if (sharedMem) *sharedMem = c.shmem;
    if (stream) *(void **)stream = c.stream;
    return cudaSuccess;
}

/* cudaKernel_t for a registered host stub: its record. */
EXPORT cudaError_t __cudaGetKernel(void **kernelPtr, const void *entryFuncAddr) {
    if (!kernelPtr) return fail(cudaErrorInvalidValue, "__cudaGetKernel", "kernelPtr is NULL");
    kernel_record *found = NULL;
    pthread_mutex_lock(&reg_lock);
    for (fatbin_record *f = fatbins; f && !found; f = f->next)
        for (kernel_record *k = f->kernels; k && !found; k = k->next)
            if (k->host_fun == entryFuncAddr) found = k;
    pthread_mutex_unlock(&reg_lock);
    *kernelPtr = found;
    if (!found)
        return fail(cudaErrorInvalidDeviceFunction, "__cudaGetKernel",
                    "no kernel is registered for host function %p", entryFuncAddr);
    return cudaSuccess;
}

/* A kernel handle (from __cudaGetKernel) is trusted only when it is a live record. */
static cudaError_t launch(const void *kernel, const char *who) {
    char name[256] = "";
    pthread_mutex_lock(&reg_lock);
    for (fatbin_record *f = fatbins; f && !name[0]; f = f->next)
        for (kernel_record *k = f->kernels; k && !name[0]; k = k->next)
            if (k == kernel)
                snprintf(name, sizeof name, "%s", k->device_name ? k->device_name : "(unnamed)");
    pthread_mutex_unlock(&reg_lock);
    if (!name[0])
        return fail(cudaErrorInvalidDeviceFunction, who,
                    "%p is not a kernel of a registered fatbinary", kernel);
    int32_t n = 0;
    if (shimrt_cuda_device_count(&n) != AOTI_TORCH_SUCCESS || n == 0)
        return fail(cudaErrorNoDevice, who, "cannot launch %s: no CUDA device", name);
    return fail(cudaErrorNotSupported, who,
                "cannot launch %s: libshimrt does not load a CUDA library's "
                "own fatbinary kernels",
                name);
}

EXPORT cudaError_t __cudaLaunchKernel(const void *kernel, dim3 gridDim, dim3 blockDim, void **args,
                                      size_t sharedMem, void *stream) {
    (void)gridDim, (void)blockDim, (void)args, (void)sharedMem, (void)stream;
    return launch(kernel, "__cudaLaunchKernel");
}

EXPORT cudaError_t __cudaLaunchKernel_ptsz(const void *kernel, dim3 gridDim, dim3 blockDim,
                                           void **args, size_t sharedMem, void *stream) {
    (void)gridDim, (void)blockDim, (void)args, (void)sharedMem, (void)stream;
    return launch(kernel, "__cudaLaunchKernel_ptsz");
}

/* The host stub's address as the function (the pre-13 stubs and cudaLaunchKernel users). */
EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem, void *stream) {
    (void)gridDim, (void)blockDim, (void)args, (void)sharedMem, (void)stream;
    void *k = NULL;
    cudaError_t e = __cudaGetKernel(&k, func);
    return e ? e : launch(k, "cudaLaunchKernel");
}

/* Marks this library as libshimrt's, not NVIDIA's: libshimrt looks up cudart's error texts
 * in a libcudart.so it opens by name and must not find itself (docs/dropin.md). */
EXPORT const int shimrt_cudart = 1;

/* runtime/cuda/cuda_internal.h: the CUDA backend's private header (never installed).
 *
 * Nothing here includes or links a CUDA header or library: the driver API (libcuda), NVRTC
 * and cuBLAS/cuBLASLt are opened with dlopen at first use and reached through one symbol
 * table. The few types and constants the backend needs are declared here with the values
 * of CUDA's own headers (cuda.h, nvrtc.h, cublas_api.h), which are stable ABI. */
#ifndef SHIMRT_CUDA_INTERNAL_H
#define SHIMRT_CUDA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/internal.h"
#include "shimrt/cuda.h"

/* ---- driver API types (cuda.h) ---- */
typedef int CUresult; /* CUDA_SUCCESS = 0 */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef unsigned long long CUdeviceptr;
enum {
    SH_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    SH_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    SH_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    SH_CU_STREAM_NON_BLOCKING = 1,
    SH_CU_EVENT_DISABLE_TIMING = 2,
    SH_CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    SH_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
    SH_CU_MEMORYTYPE_DEVICE = 2,
    SH_CUDA_ERROR_NOT_READY = 600,
};

/* The driver entry points the backend uses (all from libcuda.so.1). */
typedef struct shimrt_cuda_api {
    int driver_version; /* cuDriverGetVersion: 12040 = 12.4 */
    int device_count;
    CUresult (*cuInit)(unsigned);
    CUresult (*cuDriverGetVersion)(int *);
    CUresult (*cuDeviceGetCount)(int *);
    CUresult (*cuDeviceGet)(CUdevice *, int);
    CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*cuDeviceGetName)(char *, int, CUdevice);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuCtxGetCurrent)(CUcontext *);
    CUresult (*cuCtxGetDevice)(CUdevice *);
    CUresult (*cuCtxSynchronize)(void);
    CUresult (*cuCtxGetStreamPriorityRange)(int *, int *);
    CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
    CUresult (*cuMemFree)(CUdeviceptr);
    CUresult (*cuMemAllocHost)(void **, size_t);
    CUresult (*cuMemFreeHost)(void *);
    CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
    CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
    CUresult (*cuMemGetInfo)(size_t *, size_t *);
    CUresult (*cuPointerGetAttribute)(void *, int, CUdeviceptr);
    CUresult (*cuStreamCreateWithPriority)(CUstream *, unsigned, int);
    CUresult (*cuStreamDestroy)(CUstream);
    CUresult (*cuStreamSynchronize)(CUstream);
    CUresult (*cuStreamQuery)(CUstream);
    CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
    CUresult (*cuEventCreate)(CUevent *, unsigned);
    CUresult (*cuEventDestroy)(CUevent);
    CUresult (*cuEventRecord)(CUevent, CUstream);
    CUresult (*cuEventSynchronize)(CUevent);
    CUresult (*cuEventQuery)(CUevent);
    CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
    CUresult (*cuModuleLoadData)(CUmodule *, const void *);
    CUresult (*cuModuleUnload)(CUmodule);
    CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                               unsigned, unsigned, CUstream, void **, void **);
    CUresult (*cuGetErrorName)(CUresult, const char **);
    CUresult (*cuGetErrorString)(CUresult, const char **);
} shimrt_cuda_api;

/* ---- NVRTC (nvrtc.h) ---- */
typedef int nvrtcResult; /* NVRTC_SUCCESS = 0 */
typedef struct _nvrtcProgram *nvrtcProgram;
typedef struct shimrt_nvrtc_api {
    int major, minor; /* nvrtcVersion */
    char soname[64];  /* the library that was opened */
    nvrtcResult (*nvrtcVersion)(int *, int *);
    const char *(*nvrtcGetErrorString)(nvrtcResult);
    nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *, int,
                                      const char *const *, const char *const *);
    nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram *);
    nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t *);
    nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char *);
    nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t *);
    nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char *);
    nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram, size_t *);
    nvrtcResult (*nvrtcGetPTX)(nvrtcProgram, char *);
    nvrtcResult (*nvrtcGetNumSupportedArchs)(int *);
    nvrtcResult (*nvrtcGetSupportedArchs)(int *);
} shimrt_nvrtc_api;

/* ---- cuBLAS / cuBLASLt (cublas_api.h, cublasLt.h) ---- */
typedef struct shimrt_cublas_api {
    char soname[64];
    int (*cublasCreate)(void **);
    int (*cublasDestroy)(void *);
    int (*cublasSetStream)(void *, CUstream);
    int (*cublasGetVersion)(void *, int *);
    int (*cublasSetWorkspace)(void *, void *, size_t); /* NULL when the library lacks it */
    /* cublasGemmEx(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb,
     * beta, C, Ctype, ldc, computeType, algo): column-major, alpha/beta host pointers */
    int (*cublasGemmEx)(void *, int, int, int, int, int, const void *, const void *, int, int,
                        const void *, int, int, const void *, void *, int, int, int, int);
    /* the same with a batch: strides between the batch's matrices, then batchCount */
    int (*cublasGemmStridedBatchedEx)(void *, int, int, int, int, int, const void *, const void *,
                                      int, int, long long, const void *, int, int, long long,
                                      const void *, void *, int, int, long long, int, int, int);
    void *lt_handle; /* libcublasLt.so, opened beside cuBLAS (may be NULL) */
} shimrt_cublas_api;

/* cuBLAS's enum values (cublas_api.h, library_types.h) */
enum { SH_CUBLAS_OP_N = 0, SH_CUBLAS_OP_T = 1 };
enum { SH_CUDA_R_32F = 0, SH_CUDA_R_64F = 1, SH_CUDA_R_16F = 2, SH_CUDA_R_16BF = 14 };
enum { SH_CUBLAS_COMPUTE_32F = 68, SH_CUBLAS_COMPUTE_64F = 70 };
#define SH_CUBLAS_GEMM_DEFAULT (-1)

/* Lowest driver and NVRTC versions the backend accepts. */
#define SHIMRT_CUDA_MIN_DRIVER 12000
#define SHIMRT_NVRTC_MIN_MAJOR 12

/* Loads libcuda once per process (SHIMRT_LIBCUDA names another file, for tests and odd
 * installs), resolves every symbol, runs cuInit and checks the driver version. On failure
 * returns NULL with the thread's message set to "<func>: the CUDA libraries cannot be used: <why>". */
const shimrt_cuda_api *shimrt_cuda_driver(const char *func);
/* The same for NVRTC: SHIMRT_LIBNVRTC, else libnvrtc.so.13, .so.12, libnvrtc.so. */
const shimrt_nvrtc_api *shimrt_nvrtc(const char *func);
/* The same for cuBLAS (SHIMRT_LIBCUBLAS, else libcublas.so.13, .so.12) and cuBLASLt. */
const shimrt_cublas_api *shimrt_cublas(const char *func);

/* Formats a driver error: "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)". */
AOTITorchError shimrt_cu_fail(const char *func, const char *call, CUresult r);
/* The current device is cudart's: the device whose primary context is current on the
 * thread (whoever made it current), else the last one a guard set (0 at first). */
/* Checks device_index (-1: the current device) against the devices present; *out = the
 * resolved index. Changes nothing. */
AOTITorchError shimrt_cuda_resolve_device(const char *func, int32_t device_index, int32_t *out);
/* Sets the current device (guards): resolves device_index and makes its primary context
 * current on this thread; *out = the resolved index. */
AOTITorchError shimrt_cuda_use_device(const char *func, int32_t device_index, int32_t *out);
/* An operation's device scope (PyTorch's OptionalCUDAGuard around an op): enter makes the
 * device's primary context current for driver calls that act on "the current context"
 * (allocation, module loads, launches, the legacy stream) and leave puts back whatever
 * context the caller had, so an op never leaves the caller's current device changed. */
typedef struct {
    const shimrt_cuda_api *cu; /* NULL: nothing to restore */
    CUcontext prev;
} shimrt_cuda_ctx_guard;
AOTITorchError shimrt_cuda_enter(const char *func, int32_t device_index, shimrt_cuda_ctx_guard *g,
                                 int32_t *out);
void shimrt_cuda_leave(shimrt_cuda_ctx_guard *g);
/* Copies nbytes on device dev's current stream (dev's context current for the call, so the
 * copy is ordered after the kernels queued there), then waits for it when sync. */
AOTITorchError shimrt_cuda_copy_on(const char *func, int32_t dev, void *dst, const void *src,
                                   uint64_t nbytes, bool sync);
/* The calling thread's current stream on a device (NULL = the legacy default stream). */
CUstream shimrt_cuda_current_stream(int32_t device_index);

/* Device dev's error flag (int64 x 4 in pinned, device-mapped memory) that index kernels
 * set on an index out of range: {code (1: index_select's range, 2: bounds along a dim),
 * value, dim, size}. */
AOTITorchError shimrt_cuda_error_flag(const char *func, int32_t dev, long long **out);
/* Reads and clears device dev's error flag after a synchronizing call; a failure with
 * PyTorch's message when a kernel set it. */
AOTITorchError shimrt_cuda_check_async(const char *func, int32_t dev);

/* ---- the caching device allocator (caching_allocator.c) ---- */
/* Device memory of at least nbytes on device_index, for use on stream. */
AOTITorchError shimrt_cuda_alloc(const char *func, size_t nbytes, int32_t device_index,
                                 CUstream stream, void **out);
/* Records that an asynchronous copy on stream reads or writes p (no-op unless p is in a
 * pinned host block of the allocator): the block is reused only after that copy. */
void shimrt_cuda_host_record(const void *p, CUstream stream);
/* Returns a block from shimrt_cuda_alloc to the cache (NULL: no-op); fails for a pointer the
 * allocator does not own. */
AOTITorchError shimrt_cuda_free(const char *func, void *ptr);

/* ---- CUDA ops (ops.c): the catalogue's kernels on CUDA tensors; row = an ops.def name.
 * Results are new references; messages name the row. ---- */
/* One element-wise launch: row of kind SHK_UNARY/BINARY/TERNARY over in[] (a ternary
 * row's bool condition first; a binary row with `scalar` takes bval as its b). */
typedef struct shimrt_cuda_pw {
    const char *op;  /* for messages ("add.Tensor"); NULL: the row */
    const char *row; /* the ops.def row */
    int kind;
    const struct AtenTensorOpaque *in[3];
    bool scalar;
    shimrt_scalar bscalar; /* with `scalar`: b with its kind (the result type); bval its value */
    double bval, alpha, p0, p1;
    int32_t compute; /* -1: PyTorch's result type */
} shimrt_cuda_pw;
AOTITorchError shimrt_cuda_pointwise(const shimrt_cuda_pw *c, AtenTensorHandle *ret);
AOTITorchError shimrt_cuda_unary(const char *row, AtenTensorHandle self, AtenTensorHandle *ret);
AOTITorchError shimrt_cuda_binary(const char *row, AtenTensorHandle self, AtenTensorHandle other,
                                  double alpha, AtenTensorHandle *ret);
AOTITorchError shimrt_cuda_binary_scalar(const char *row, AtenTensorHandle self,
                                         shimrt_scalar other, double alpha, AtenTensorHandle *ret);
AOTITorchError shimrt_cuda_reduce(const char *row, AtenTensorHandle self, const int64_t *dims,
                                  int64_t ndims, bool keepdim, AtenTensorHandle *ret);
/* mean over dims (NULL/0: all) of a floating CUDA tensor: the sum kernel, divided by the
 * count in the compute type before the store. */
AOTITorchError shimrt_cuda_mean(const char *op, AtenTensorHandle self, const int64_t *dims,
                                int64_t ndims, bool keepdim, AtenTensorHandle *ret);
/* argmax over *dim (NULL: the flattened tensor) into *ret_i (int64), and the maxima into
 * *ret_v when ret_v is not NULL (max.dim); new references. */
AOTITorchError shimrt_cuda_argmax_run(const char *op, AtenTensorHandle self, const int64_t *dim,
                                      bool keepdim, AtenTensorHandle *ret_v,
                                      AtenTensorHandle *ret_i);
/* softmax (log_softmax when logsm) along dim, self converted to odt (floating) first; a new
 * contiguous tensor. */
AOTITorchError shimrt_cuda_softmax_run(const char *op, bool logsm, AtenTensorHandle self,
                                       int64_t dim, int32_t odt, AtenTensorHandle *ret);
/* index_select of a CUDA self along dim d (wrapped, checked) with a CUDA int32/int64 index
 * vector (its values checked on the host) into `into` (index_select.out) or, into NULL, a
 * new contiguous tensor in *ret. */
AOTITorchError shimrt_cuda_index_select_run(const char *op, AtenTensorHandle self, int64_t d,
                                            AtenTensorHandle index, AtenTensorHandle into,
                                            AtenTensorHandle *ret);
/* gather of a CUDA self along dim d (wrapped, checked) with a CUDA int64 index (its values
 * checked on the host) into `into` (gather.out: the result's shape and dtype) or, into
 * NULL, a new contiguous tensor of index's shape in *ret. */
AOTITorchError shimrt_cuda_gather_run(const char *op, AtenTensorHandle self, int64_t d,
                                      AtenTensorHandle index, AtenTensorHandle into,
                                      AtenTensorHandle *ret);
/* scatter (reduce NULL: scatter.src's copy) or scatter_reduce (reduce: "sum", "prod",
 * "mean", "amax", "amin", or "max"/"min") of CUDA src into CUDA out along dim, with the
 * CPU kernels' checks and messages; out gets self's values first unless it is self. The
 * index values are checked on the host, nothing is written when one is out of bounds. */
AOTITorchError shimrt_cuda_scatter_run(const char *op, AtenTensorHandle out, AtenTensorHandle self,
                                       int64_t dim, AtenTensorHandle index, AtenTensorHandle src,
                                       const char *reduce, bool include_self);
/* native_layer_norm of a checked CUDA input over its last nn dims (weight, bias: NULL or
 * CUDA tensors of those sizes): out (contiguous), mean and rstd (views of one buffer, the
 * input's dtype), three new references. */
AOTITorchError shimrt_cuda_layer_norm_run(const char *op, AtenTensorHandle input, int64_t nn,
                                          AtenTensorHandle weight, AtenTensorHandle bias,
                                          double eps, AtenTensorHandle *ret0,
                                          AtenTensorHandle *ret1, AtenTensorHandle *ret2);
/* sort of a checked CUDA self along the wrapped dim d (always stable; NaN the largest;
 * -0.0 and 0.0 tie): values and int64 indices, two new contiguous CUDA tensors, equal to
 * the CPU kernel's bit for bit. */
AOTITorchError shimrt_cuda_sort_run(const char *op, AtenTensorHandle self, int64_t d, bool desc,
                                    AtenTensorHandle *ret0, AtenTensorHandle *ret1);
AOTITorchError shimrt_cuda_do_fill(AtenTensorHandle self, double value);
/* t is a defined CUDA tensor (on device dev when dev >= 0) of a dtype the kernels compute
 * on, with at most SH_MAXD dims; else a message naming arg. */
AOTITorchError shimrt_cuda_check_tensor(const char *op, const struct AtenTensorOpaque *t,
                                        const char *arg, int32_t dev);
/* A new contiguous CUDA tensor with t's values (t broadcast to shape when shape is not
 * NULL), converted to dtype. */
AtenTensorHandle shimrt_cuda_dense(const char *op, AtenTensorHandle t, int64_t nd,
                                   const int64_t *shape, int32_t dtype);
/* The calling thread's own cuBLAS handle of device dev (-1: the current one), bound to the
 * thread's current stream there with that (handle, stream)'s workspace. dev's context must
 * be current for the calls that use it. */
AOTITorchError shimrt_cuda_blas_handle(const char *func, int32_t dev, void **out);
AOTITorchError shimrt_cuda_do_copy(AtenTensorHandle self, AtenTensorHandle src);

/* ---- the CUDA row of the backend table (backend.c) ---- */
/* The row's check_device: loads the driver, checks the index (device.c). */
AOTITorchError shimrt_cuda_check_device(const char *func, int32_t device_index);
/* The row's alloc and free_data: device memory from the caching allocator for
 * device_index's current stream, and the storage deleter that returns it
 * (caching_allocator.c). */
AOTITorchError shimrt_cuda_storage_alloc(const char *func, size_t nbytes, int32_t device_index,
                                         void **out);
void shimrt_cuda_storage_free(void *data, void *ctx);
#endif

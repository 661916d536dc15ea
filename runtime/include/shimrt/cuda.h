/* shimrt/cuda.h: the CUDA backend: PyTorch 2.15's CUDA C functions (declared by PyTorch
 * under USE_CUDA in torch/csrc/inductor/aoti_torch/c/shim.h and torch/csrc/stable/c/shim.h;
 * here always) and shimrt's extensions (events, the caching allocator's statistics, pinned
 * host memory, copies, the JIT cache).
 *
 * libshimrt links no CUDA library. The NVIDIA driver (libcuda.so.1), NVRTC (libnvrtc.so.13
 * or .so.12) and cuBLAS are opened with dlopen at first use. When one is missing, every
 * function that needs it fails with AOTI_TORCH_FAILURE and a message retrievable with
 * torch_exception_get_what(), "<function>: the CUDA libraries cannot be used: <reason>".
 *
 * Streams are CUDA driver streams (cudaStream_t == CUstream) passed as void*; NULL is the
 * legacy default stream, every device's current stream until one is set. The current device
 * and the current stream per device are per thread. Handle arguments are borrowed; handles
 * returned through ret* pointers are new, freed with the matching delete function
 * (NULL: no-op success). */
#ifndef SHIMRT_CUDA_H
#define SHIMRT_CUDA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

struct CUDAGuardOpaque;
typedef struct CUDAGuardOpaque *CUDAGuardHandle;
struct CUDAStreamGuardOpaque;
typedef struct CUDAStreamGuardOpaque *CUDAStreamGuardHandle;

/* ---- guards (aoti_torch/c/shim.h) ---- */
/* Makes device_index the calling thread's current CUDA device until the guard is deleted
 * (-1: keep the current one). Returns a new guard; free with aoti_torch_delete_cuda_guard. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_create_cuda_guard(int32_t device_index,
                                                              CUDAGuardHandle *ret_guard);
/* Restores the device that was current when the guard was made, then frees it. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_delete_cuda_guard(CUDAGuardHandle guard);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cuda_guard_set_index(CUDAGuardHandle guard,
                                                                 int32_t device_index);
/* Makes stream (borrowed) the current stream of device_index, and that device current,
 * until the guard is deleted. Returns a new guard; free with
 * aoti_torch_delete_cuda_stream_guard. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_create_cuda_stream_guard(
    void *stream, int32_t device_index, CUDAStreamGuardHandle *ret_guard);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_delete_cuda_stream_guard(CUDAStreamGuardHandle guard);

/* ---- streams ---- */
/* The calling thread's current stream on device_index (-1: current device). Borrowed. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_current_cuda_stream(int32_t device_index,
                                                                    void **ret_stream);
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_10_0
/* Sets the calling thread's current stream on device_index (borrowed: the caller keeps it
 * alive while it is current). */
AOTI_TORCH_EXPORT AOTITorchError torch_set_current_cuda_stream(void *stream, int32_t device_index);
/* A stream of the runtime's pool (round robin over 32 per device and priority, created on
 * first use, owned by the runtime: never destroy it). */
AOTI_TORCH_EXPORT AOTITorchError torch_get_cuda_stream_from_pool(bool isHighPriority,
                                                                 int32_t device_index,
                                                                 void **ret_stream);
AOTI_TORCH_EXPORT AOTITorchError torch_cuda_stream_synchronize(void *stream, int32_t device_index);
/* cuBLAS handle of the calling thread for the current device, bound to its current
 * stream. Owned by the runtime. */
AOTI_TORCH_EXPORT AOTITorchError torch_get_current_cuda_blas_handle(void **ret_handle);
/* err is a cudaError_t. err == 0: success, *error_msg = NULL. Otherwise AOTI_TORCH_FAILURE
 * and *error_msg = a new string naming the error, file, function and line; free it with
 * torch_c10_cuda_free_error_msg. */
AOTI_TORCH_EXPORT AOTITorchError torch_c10_cuda_check_msg(int32_t err, const char *filename,
                                                          const char *function_name,
                                                          uint32_t line_number,
                                                          bool include_device_assertions,
                                                          char **error_msg);
AOTI_TORCH_EXPORT void torch_c10_cuda_free_error_msg(char *error_msg);
#endif

/* ---- the caching allocator ---- */
/* nbytes of device memory on the current device, for its current stream (0 bytes: NULL).
 * Free with aoti_torch_cuda_caching_allocator_raw_delete. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cuda_caching_allocator_raw_alloc(uint64_t nbytes,
                                                                             void **ret_ptr);
/* Returns the block to the cache of the stream it was allocated for (NULL: no-op). */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cuda_caching_allocator_raw_delete(void *ptr);

/* ---- shimrt extensions ---- */
/* Number of CUDA devices (fails when the driver cannot be loaded). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_device_count(int32_t *ret_count);
/* Frees every cached, unused block of every device. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_empty_cache(void);
/* Bytes held by live blocks and by cached free blocks, over every device. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_memory_stats(uint64_t *ret_allocated,
                                                          uint64_t *ret_cached);
/* The caching allocator's counters for one device (-1: the current one), and the pinned
 * host pool's (shared by all devices). Filled by shimrt_cuda_alloc_stats_get. */
typedef struct shimrt_cuda_alloc_stats {
    uint64_t allocated_bytes;             /* in blocks handed out (rounded to 512 bytes) */
    uint64_t requested_bytes;             /* asked for by those blocks' callers */
    uint64_t reserved_bytes;              /* in segments held from the driver */
    uint64_t peak_allocated_bytes;        /* the most allocated_bytes since the process started */
    uint64_t active_blocks;               /* blocks handed out */
    uint64_t segments;                    /* driver allocations held */
    uint64_t pending_blocks;              /* freed blocks waiting for events of other streams */
    uint64_t driver_allocs, driver_frees; /* cuMemAlloc / cuMemFree calls */
    uint64_t splits;                      /* blocks split off a larger free block */
    uint64_t oom_retries;                 /* allocations retried after releasing cached segments */
    uint64_t ooms;                        /* allocations that failed even so */
    uint64_t host_allocated_bytes, host_reserved_bytes, host_pending_blocks;
} shimrt_cuda_alloc_stats;
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_alloc_stats_get(int32_t device_index,
                                                             shimrt_cuda_alloc_stats *ret_stats);
/* PyTorch's Tensor.record_stream for a block of the caching allocator (ptr: the pointer
 * raw_alloc or a CUDA tensor's storage returned): the block is also used on stream, so
 * when it is freed it is reused only after the work queued on stream by then has run. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_record_stream(void *ptr, void *stream);
/* Page-locked host memory (cached like device memory); free with shimrt_cuda_host_free.
 * An asynchronous shimrt_cuda_memcpy from or to a block records its stream: after the free
 * the block is reused only once that copy has completed. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_host_alloc(uint64_t nbytes, void **ret_ptr);
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_host_free(void *ptr);
/* Copies nbytes between any two of host, pinned and device memory (unified addressing) on
 * stream (NULL: the current stream of the current device); synchronous when sync. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_memcpy(void *dst, const void *src, uint64_t nbytes,
                                                    void *stream, bool sync);
/* Events: created on the current device; free with shimrt_cuda_event_delete. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_event_new(bool timing, void **ret_event);
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_event_delete(void *event);
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_event_record(void *event, void *stream);
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_event_synchronize(void *event);
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_stream_wait_event(void *stream, void *event);
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_event_elapsed_ms(void *start, void *end,
                                                              float *ret_ms);

/* The CUDA runtime API's calls of the same names, on libshimrt's contexts (the device's
 * primary context): the current device (cudaSetDevice / cudaGetDevice: the device of the
 * context current on the thread), whether an event has completed (*ret_done false while
 * work before it is pending), nbytes of device memory set to value on stream (NULL: the
 * current stream of the current device; synchronous when sync), and a wait for all work
 * on a device (-1: the current one). shimrt_cuda_error_string: cudaGetErrorString's text
 * for a cudaError_t code (libcudart's when it can be opened); static, never NULL. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_set_device(int32_t device_index);
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_get_device(int32_t *ret_device_index);
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_event_query(void *event, bool *ret_done);
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_memset(void *dst, int32_t value, uint64_t nbytes,
                                                    void *stream, bool sync);
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_device_synchronize(int32_t device_index);
AOTI_TORCH_EXPORT const char *shimrt_cuda_error_string(int32_t err);

/* ---- the JIT (NVRTC) and its cache ---- */
typedef struct shimrt_jit_stats {
    uint64_t memory_hits; /* lookups answered by the in-process table */
    uint64_t disk_hits;   /* images read from the disk cache */
    uint64_t misses;      /* images compiled by NVRTC */
    uint64_t corrupt;     /* disk files rejected (bad checksum, truncated, wrong key) */
    uint64_t evictions;   /* disk files removed by the size bound */
    double compile_ms;    /* total NVRTC time of the misses */
} shimrt_jit_stats;
/* The process's counters since start (or the last reset). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_jit_get_stats(shimrt_jit_stats *ret_stats);
AOTI_TORCH_EXPORT AOTITorchError shimrt_jit_reset_stats(void);
/* The disk cache folder in use: $SHIMRT_CACHE_DIR, else $XDG_CACHE_HOME/shimrt/jit, else
 * $HOME/.cache/shimrt/jit. Borrowed (valid until the next call). NULL when
 * SHIMRT_CACHE_DISABLE is set to a non-empty value other than 0. */
AOTI_TORCH_EXPORT const char *shimrt_jit_cache_dir(void);

#ifdef __cplusplus
}
#endif
#endif

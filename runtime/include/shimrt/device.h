/* shimrt/device.h: devices, the CPU thread pool, device guards, streams, generators.
 *
 * The device guards and streams declared here are the CPU's (device index 0); a GPU's are
 * the CUDA functions of shimrt/cuda.h. A device index other than the CPU's fails with
 * AOTI_TORCH_FAILURE and "<function>: device index N is not available: ...", a CUDA
 * generator without a usable CUDA driver with "<function>: the CUDA libraries cannot be
 * used: <reason>". Handles returned through ret* pointers are new
 * references, freed with the matching delete function (NULL: no-op success); handle
 * arguments are borrowed. */
#ifndef SHIMRT_DEVICE_H
#define SHIMRT_DEVICE_H
#include <stdbool.h>
#include <stdint.h>

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_10_0
/* Parses "cpu", "cuda", "cuda:1", "meta", "xpu:0", "mps", "privateuseone:2" (c10::Device
 * syntax). *out_device_index is -1 when no index is given. */
AOTI_TORCH_EXPORT AOTITorchError torch_parse_device_string(const char *device_string,
                                                           uint32_t *out_device_type,
                                                           int32_t *out_device_index);

/* Calls func(b, e, ctx) on disjoint chunks covering [begin, end), each at least
 * grain_size long (except the last), on the runtime's thread pool. The pool has
 * SHIMRT_NUM_THREADS threads (else one per core), the caller being thread 0. Nested calls,
 * and calls made while another thread's parallel_for runs, run serially in the caller.
 * Returns when every chunk is done. ctx is borrowed. */
typedef void (*ParallelFunc)(int64_t begin, int64_t end, void *ctx);
AOTI_TORCH_EXPORT AOTITorchError torch_parallel_for(int64_t begin, int64_t end, int64_t grain_size,
                                                    ParallelFunc func, void *ctx);
/* The calling thread's index in the running parallel region (0 outside any). */
AOTI_TORCH_EXPORT AOTITorchError torch_get_thread_idx(uint32_t *out_thread_idx);
/* The pool's thread count. */
AOTI_TORCH_EXPORT AOTITorchError torch_get_num_threads(uint32_t *out_num_threads);
#endif

/* ---- device guards: CPU only (index -1 or 0) ---- */
/* Makes device_index the calling thread's current device until the guard is deleted.
 * Returns a new guard in *ret_guard; free it with aoti_torch_delete_device_guard. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_create_device_guard(int32_t device_index,
                                                                DeviceGuardHandle *ret_guard);
/* Restores the device current when the guard was made and frees it. NULL: no-op. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_delete_device_guard(DeviceGuardHandle guard);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_device_guard_set_index(DeviceGuardHandle guard,
                                                                   int32_t device_index);
/* The calling thread's current device index (0: the CPU). */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_current_device_index(int32_t *ret_device_index);

/* ---- streams ---- */
/* The current stream of device_index of the current device type (the CPU default
 * stream, id 0). Returns a new reference; free with aoti_torch_delete_stream. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_current_stream(int32_t device_index,
                                                               StreamHandle *ret_stream);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_delete_stream(StreamHandle stream);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_stream_id(StreamHandle stream, int64_t *ret_stream_id);
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_13_0
/* The backend's native stream (NULL for the CPU stream). Borrowed. */
AOTI_TORCH_EXPORT AOTITorchError torch_stream_native_handle(StreamHandle stream,
                                                            void **ret_native_handle);
#endif

/* CUDA streams and the rest of PyTorch's CUDA functions: shimrt/cuda.h. */

/* ---- generators ---- */
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_13_0
/* A new handle sharing self's RNG state. Returns a new reference; free with
 * torch_delete_generator. */
AOTI_TORCH_EXPORT AOTITorchError torch_new_generator_handle(AtenGeneratorHandle self,
                                                            AtenGeneratorHandle *ret_new_generator);
/* Frees the handle; the state goes with its last handle. NULL: no-op success. */
AOTI_TORCH_EXPORT AOTITorchError torch_delete_generator(AtenGeneratorHandle generator);
AOTI_TORCH_EXPORT AOTITorchError torch_generator_get_device(AtenGeneratorHandle generator,
                                                            int32_t *ret_device_type,
                                                            int32_t *ret_device_index);
#endif
/* shimrt extension: a new generator on a device (CPU or meta) seeded with seed.
 * Returns a new reference; free with torch_delete_generator. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_generator_new(int32_t device_type, int32_t device_index,
                                                      uint64_t seed, AtenGeneratorHandle *ret);
/* shimrt extension: the shared state's seed, and reseeding it (resets the offset). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_generator_get_seed(AtenGeneratorHandle generator,
                                                           uint64_t *ret_seed);
AOTI_TORCH_EXPORT AOTITorchError shimrt_generator_set_seed(AtenGeneratorHandle generator,
                                                           uint64_t seed);
/* shimrt extension: reserves `increment` draws; returns the offset before the increment
 * (Philox-style counter; atomic, so handles sharing the state never reuse draws). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_generator_reserve(AtenGeneratorHandle generator,
                                                          uint64_t increment, uint64_t *ret_offset);
/* shimrt extension: the process's default CPU generator (PyTorch's default_generator: an
 * MT19937 seeded 67280421310721 until shimrt_generator_set_seed reseeds it, which is
 * torch.manual_seed). *ret is borrowed: never delete it. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_generator_default_cpu(AtenGeneratorHandle *ret);
/* shimrt extension: a copy of the generator's CPU stream state (an opaque byte block of
 * *ret_len bytes; buf NULL asks only for the length), and restoring one such copy. The
 * bytes are shimrt's layout, not PyTorch's get_state() layout. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_generator_get_state(AtenGeneratorHandle generator,
                                                            void *buf, size_t len, size_t *ret_len);
AOTI_TORCH_EXPORT AOTITorchError shimrt_generator_set_state(AtenGeneratorHandle generator,
                                                            const void *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif

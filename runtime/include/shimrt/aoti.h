/* shimrt/aoti.h: the rest of PyTorch 2.15's C shim (aoti_torch/c/shim.h and
 * stable/c/shim.h): autograd flags, checks and warnings, debugging prints, boxed
 * C10IValues, record-function hooks, pool allocation, the AOTInductor extern kernels
 * (_mm_plus_mm, index_put, scatter, scatter_reduce) and the functions that need libtorch
 * or a Python interpreter and therefore fail here by design (docs/dropin.md lists them).
 * Same signatures as PyTorch; ownership is stated on each. */
#ifndef SHIMRT_AOTI_H
#define SHIMRT_AOTI_H
#include <stdbool.h>
#include <stdint.h>

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- autograd state (libshimrt has no autograd: these are flags only) ------------- */
/* Grad mode of the calling thread (initially enabled, as in PyTorch). */
AOTI_TORCH_EXPORT bool aoti_torch_grad_mode_is_enabled(void);
AOTI_TORCH_EXPORT void aoti_torch_grad_mode_set_enabled(bool enabled);
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_10_0
/* Sets the handle's requires_grad flag (borrowed tensor). As PyTorch, only floating and
 * complex dtypes may require gradients. */
AOTI_TORCH_EXPORT AOTITorchError torch_set_requires_grad(AtenTensorHandle tensor,
                                                         bool requires_grad);
#endif
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_14_0
/* True for a defined tensor (every defined tensor here has a storage, meta included). */
AOTI_TORCH_EXPORT AOTITorchError torch_has_storage(AtenTensorHandle tensor, bool *ret_has_storage);
#endif

/* ---- checks, warnings, debugging ------------------------------------------------- */
/* When cond is false: in C++ callers this throws std::runtime_error carrying msg (as
 * libtorch throws c10::Error), which the dispatcher and the aten shims turn into
 * AOTI_TORCH_FAILURE; the message names func, file and line. Strings are borrowed. */
AOTI_TORCH_EXPORT void aoti_torch_check(bool cond, const char *func, const char *file,
                                        uint32_t line, const char *msg);
/* Prints "Warning: msg (func at file:line)" to stderr. */
AOTI_TORCH_EXPORT void aoti_torch_warn(const char *func, const char *file, uint32_t line,
                                       const char *msg);
/* Fails with a message naming tensor_name when a floating tensor holds a NaN or an Inf. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_check_inf_and_nan(const char *tensor_name,
                                                              AtenTensorHandle tensor);
/* Prints "[msg]:" then the tensor's shape, dtype and values to stdout (msg may be NULL). */
AOTI_TORCH_EXPORT void aoti_torch_print_tensor_handle(AtenTensorHandle self, const char *msg);
/* By design a no-op that prints why to stderr: PyTorch writes a torch.save pickle. */
AOTI_TORCH_EXPORT void aoti_torch_save_tensor_handle(AtenTensorHandle self, const char *tensor_name,
                                                     const char *launch_prefix,
                                                     const char *kernel_name);

/* ---- creation -------------------------------------------------------------------- */
/* As aoti_torch_empty_strided, on the CPU only: the memory is ordinary CPU memory (there
 * is no CUDA driver to pin it with). Returns a new reference. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_empty_strided_pinned(
    int64_t ndim, const int64_t *sizes_ptr, const int64_t *strides_ptr, int32_t dtype,
    int32_t device_type, int32_t device_index, AtenTensorHandle *ret_new_tensor);
/* A view of self's storage starting offset_bytes into it, with the given dtype, sizes and
 * strides (self borrowed; offset_bytes a multiple of the dtype's size). New reference. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch__alloc_from_pool(AtenTensorHandle self,
                                                             int64_t offset_bytes, int32_t dtype,
                                                             int64_t ndim, const int64_t *sizes_ptr,
                                                             const int64_t *strides_ptr,
                                                             AtenTensorHandle *ret_new_tensor);

/* ---- AOTInductor extern kernels (every handle borrowed; results written into out) ---- */
/* out = a @ b + c @ d. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch__mm_plus_mm_out(AtenTensorHandle out,
                                                            AtenTensorHandle a, AtenTensorHandle b,
                                                            AtenTensorHandle c, AtenTensorHandle d);
/* out = self with out[indices] = values (or += when accumulate). indices: num_indices
 * int64 tensors, one per leading dimension, broadcast together; NULL entries select a
 * whole dimension only after the last non-NULL entry. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_index_put_out(
    AtenTensorHandle out, AtenTensorHandle self, const AtenTensorHandle *indices,
    const uint32_t num_indices, const AtenTensorHandle values, bool accumulate);
/* out = self.scatter(dim, index, src). */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_scatter_out(AtenTensorHandle out, AtenTensorHandle self,
                                                        int64_t dim, AtenTensorHandle index,
                                                        AtenTensorHandle src);
/* out = self.scatter_reduce(dim, index, src, reduce, include_self); reduce is "sum",
 * "prod", "mean", "amax" or "amin". */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_scatter_reduce_out(
    AtenTensorHandle out, AtenTensorHandle self, int64_t dim, AtenTensorHandle index,
    AtenTensorHandle src, const char *reduce, int32_t include_self);

/* ---- boxed values for the proxy executor ------------------------------------------ *
 * Each returns a new boxed value in *ivalue; free it with
 * aoti_torch_delete_c10_value_object (NULL: no-op). Strings are copied; a tensor is held
 * through a new handle of its own. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_int64_to_ivalue(int64_t val, C10IValueHandle *ivalue);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_strlist_to_ivalue(const char **val, int64_t len,
                                                              C10IValueHandle *ivalue);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_str_to_ivalue(const char *val, C10IValueHandle *ivalue);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_tensor_to_ivalue(AtenTensorHandle val,
                                                             C10IValueHandle *ivalue);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_delete_c10_value_object(C10IValueHandle handle);

/* ---- record-function hooks (no profiler here: a guard that records nothing) -------- */
/* name, kwargs and inputs are borrowed and may be NULL; *guard receives a new guard to
 * end with aoti_record_function_end (which frees it; NULL: no-op). */
AOTI_TORCH_EXPORT AOTITorchError aoti_record_function_start(const char *name,
                                                            IValueMapHandle kwargs,
                                                            const C10IValueHandle *inputs,
                                                            const uint64_t n_inputs,
                                                            AtenRecordFunctionHandle *guard);
AOTI_TORCH_EXPORT AOTITorchError aoti_record_function_end(AtenRecordFunctionHandle guard);

/* ---- fail by design (docs/dropin.md) ---------------------------------------------- */
/* Needs AOTInductor's C++ proxy executor object (libtorch). */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_proxy_executor_call_function(
    AOTIProxyExecutorHandle proxy_executor, int extern_node_index, int num_ints,
    int64_t *flatten_int_args, int num_tensors, AtenTensorHandle *flatten_tensor_args);
/* Need FBGEMM / oneDNN packed-weight objects (libtorch's CPU backend). */
AOTI_TORCH_EXPORT AOTITorchError
aoti_torch_cpu_wrapped_fbgemm_pack_gemm_matrix_fp16(AtenTensorHandle weight, AtenTensorHandle *out);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu__wrapped_linear_prepack(
    AtenTensorHandle weight, AtenTensorHandle weight_scale, AtenTensorHandle weight_zero_point,
    AtenTensorHandle bias, AtenTensorHandle *out);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_wrapped_fbgemm_linear_fp16_weight(
    AtenTensorHandle input, AtenTensorHandle weight, AtenTensorHandle bias, int64_t out_channel,
    AtenTensorHandle *out);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu__wrapped_quantized_linear_prepacked(
    AtenTensorHandle input, AtenTensorHandle input_scale, AtenTensorHandle input_zero_point,
    AtenTensorHandle weight, AtenTensorHandle out_scale, AtenTensorHandle out_zeropoint,
    int64_t out_channel, AtenTensorHandle *out);
/* Need a Python interpreter (libshimrt embeds none). */
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_14_0
AOTI_TORCH_EXPORT AOTITorchError torch_tensor_from_pyobject(void *py_obj, AtenTensorHandle *ret);
AOTI_TORCH_EXPORT AOTITorchError torch_tensor_to_pyobject(AtenTensorHandle ath, void *py_type,
                                                          void **ret);
#endif
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_15_0
AOTI_TORCH_EXPORT AOTITorchError torch_is_tensor_pyobject(void *py_obj, bool *ret);
AOTI_TORCH_EXPORT AOTITorchError torch_device_from_pyobject(void *py_obj, int32_t *ret_device_type,
                                                            int32_t *ret_device_index);
AOTI_TORCH_EXPORT AOTITorchError torch_device_to_pyobject(int32_t device_type, int32_t device_index,
                                                          void **ret);
AOTI_TORCH_EXPORT AOTITorchError torch_dtype_from_pyobject(void *py_obj, int32_t *ret_dtype);
AOTI_TORCH_EXPORT AOTITorchError torch_dtype_to_pyobject(int32_t dtype, void **ret);
#endif

#ifdef __cplusplus
}
#endif
#endif

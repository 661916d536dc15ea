/* shimrt/tensor.h: tensors and their storage, as in PyTorch's stable C shim
 * (torch/csrc/inductor/aoti_torch/c/shim.h and torch/csrc/stable/c/shim.h).
 *
 * A tensor handle (AtenTensorHandle) names a tensor, as PyTorch's at::Tensor names a
 * TensorImpl: the tensor holds the metadata (sizes, strides, storage offset in elements,
 * dtype, device, layout) and one reference to a reference-counted storage. Many handles
 * may name one tensor (new_tensor_handle, assign_tensors_out, the tensors a dispatcher call
 * takes and returns): a change of the tensor's shape through one (an out= resized by an
 * op) is seen through all, and the tensor lives until its last handle is deleted. Views
 * (as_strided, _reinterpret_tensor) are new tensors sharing the storage; the memory is
 * freed when the last tensor over it goes.
 * Every handle a function returns through a `ret*` pointer is a new reference: free it
 * with aoti_torch_delete_tensor_object. Every AtenTensorHandle argument is borrowed.
 * Every pointer a getter returns is borrowed from the handle and valid while it lives.
 * A NULL, freed or foreign handle is rejected with AOTI_TORCH_FAILURE and a message
 * (torch_exception_get_what()); nothing here aborts the process.
 * CPU memory is 64-byte aligned. The meta device has no memory (data pointers are NULL).
 * No other device has a backend yet: asking for one fails with a message. */
#ifndef SHIMRT_TENSOR_H
#define SHIMRT_TENSOR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types.h"

/* C spellings of c10::Half, c10::BFloat16, c10::complex<float>, c10::complex<double>
 * (same size, alignment and layout). */
typedef struct {
    uint16_t x;
} shimrt_half;
typedef struct {
    uint16_t x;
} shimrt_bfloat16;
typedef struct {
    float real, imag;
} shimrt_complex64;
typedef struct {
    double real, imag;
} shimrt_complex128;

/* The parameter types of the item/scalar functions below. C++ forbids two extern "C"
 * declarations of one function with different parameter types, so a C++ file that can
 * see PyTorch's header-only types gets PyTorch's exact declarations (c10::Half, ...), and
 * may include PyTorch's aoti_torch/c/shim.h as well, in either order. Everywhere else
 * they are the C structs above (same layout). */
#if defined(__cplusplus) && defined(__has_include)
#if __has_include(<torch/headeronly/util/Half.h>) && \
    __has_include(<torch/headeronly/util/BFloat16.h>) && \
    __has_include(<torch/headeronly/util/complex.h>)
#include <torch/headeronly/util/BFloat16.h>
#include <torch/headeronly/util/Half.h>
#include <torch/headeronly/util/complex.h>
#define SHIMRT_ITEM_TYPES_ARE_C10 1
#endif
#endif
#ifdef SHIMRT_ITEM_TYPES_ARE_C10
typedef c10::Half shimrt_item_half;
typedef c10::BFloat16 shimrt_item_bfloat16;
typedef c10::complex<float> shimrt_item_complex64;
typedef c10::complex<double> shimrt_item_complex128;
#else
typedef shimrt_half shimrt_item_half;
typedef shimrt_bfloat16 shimrt_item_bfloat16;
typedef shimrt_complex64 shimrt_item_complex64;
typedef shimrt_complex128 shimrt_item_complex128;
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- integer codes (same values as PyTorch) ----------------------------------------- */
AOTI_TORCH_EXPORT int32_t aoti_torch_device_type_cpu(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_device_type_cuda(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_device_type_meta(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_device_type_xpu(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_device_type_mps(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_device_type_privateuse1(void);

AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_float8_e5m2(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_float8_e4m3fn(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_float8_e5m2fnuz(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_float8_e4m3fnuz(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_bfloat16(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_float16(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_float32(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_float64(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_uint8(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_uint16(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_uint32(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_uint64(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_int8(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_int16(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_int32(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_int64(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_bool(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_complex32(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_complex64(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_complex128(void);
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_11_0
AOTI_TORCH_EXPORT int32_t torch_dtype_float8_e8m0fnu(void);
AOTI_TORCH_EXPORT int32_t torch_dtype_float4_e2m1fn_x2(void);
#endif
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_12_0
/* The same codes under AOTInductor's names (44 and 45). */
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_float8_e8m0fnu(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_dtype_float4_e2m1fn_x2(void);
#endif
/* Bytes per element of a dtype code; 0 for an unknown code (no message: not fallible). */
AOTI_TORCH_EXPORT size_t aoti_torch_dtype_element_size(int32_t dtype);

AOTI_TORCH_EXPORT int32_t aoti_torch_layout_strided(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_layout_sparse_coo(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_layout_sparse_csr(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_layout_sparse_csc(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_layout_sparse_bsr(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_layout_sparse_bsc(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_layout__mkldnn(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_layout_jagged(void);

AOTI_TORCH_EXPORT int32_t aoti_torch_memory_format_contiguous_format(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_memory_format_channels_last(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_memory_format_channels_last_3d(void);
AOTI_TORCH_EXPORT int32_t aoti_torch_memory_format_preserve_format(void);

/* TORCH_ABI_VERSION of this library. */
AOTI_TORCH_EXPORT uint64_t aoti_torch_abi_version(void);

/* ---- creation ------------------------------------------------------------------------ *
 * sizes_ptr/strides_ptr are borrowed arrays of ndim entries (ndim 0..64; sizes and
 * strides must be >= 0). strides_ptr may be NULL for contiguous strides, except in
 * aoti_torch_empty_strided(_pinned), which, like PyTorch's, require it when ndim > 0. */

/* A new tensor with fresh storage large enough for the given strides (contents
 * uninitialised). Returns a new reference in *ret_new_tensor. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_empty_strided(int64_t ndim, const int64_t *sizes_ptr,
                                                          const int64_t *strides_ptr, int32_t dtype,
                                                          int32_t device_type, int32_t device_index,
                                                          AtenTensorHandle *ret_new_tensor);

/* Wraps caller memory without copying: element 0 is at data + storage_offset elements.
 * The runtime never frees `data`; the caller keeps it alive while any handle uses it.
 * Returns a new reference in *ret. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_create_tensor_from_blob(
    void *data, int64_t ndim, const int64_t *sizes_ptr, const int64_t *strides_ptr,
    int64_t storage_offset, int32_t dtype, int32_t device_type, int32_t device_index,
    AtenTensorHandle *ret);

/* As above with a layout code; only strided is supported. opaque_metadata (borrowed)
 * is for MKL-DNN tensors and must be NULL/0 here. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_create_tensor_from_blob_v2(
    void *data, int64_t ndim, const int64_t *sizes_ptr, const int64_t *strides_ptr,
    int64_t storage_offset, int32_t dtype, int32_t device_type, int32_t device_index,
    AtenTensorHandle *ret, int32_t layout, const uint8_t *opaque_metadata,
    int64_t opaque_metadata_size);

#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_11_0
/* As _v2, and the storage takes ownership of `data`: deleter(data, deleter_ctx) is called
 * exactly once, when the last handle over it is deleted (deleter may be NULL: borrowed
 * memory). On failure the deleter is not called and the caller still owns data. */
AOTI_TORCH_EXPORT AOTITorchError torch_from_blob(
    void *data, int64_t ndim, const int64_t *sizes_ptr, const int64_t *strides_ptr,
    int64_t storage_offset, int32_t dtype, int32_t device_type, int32_t device_index,
    AtenTensorHandle *ret, int32_t layout, const uint8_t *opaque_metadata,
    int64_t opaque_metadata_size, void (*deleter)(void *data, void *ctx), void *deleter_ctx);
#endif

/* A second handle of orig_handle's tensor (PyTorch: a new at::Tensor of the same
 * TensorImpl): a new reference; deleting either leaves the other valid. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_new_tensor_handle(AtenTensorHandle orig_handle,
                                                              AtenTensorHandle *new_handle);

/* A view of self's storage with new sizes/strides/offset (in elements, absolute);
 * the view must lie inside the storage. Returns a new reference. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch__reinterpret_tensor(AtenTensorHandle self, int64_t ndim,
                                                                const int64_t *sizes_ptr,
                                                                const int64_t *strides_ptr,
                                                                int64_t storage_offset,
                                                                AtenTensorHandle *ret_new_tensor);

/* A view with self's dim count and storage offset and the given sizes/strides (both
 * borrowed, self's ndim entries each). Returns a new reference in *ret. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_as_strided(AtenTensorHandle self,
                                                       const int64_t *sizes_ptr,
                                                       const int64_t *strides_ptr,
                                                       AtenTensorHandle *ret);

/* A handle holding an undefined tensor (aoti_torch_is_defined gives false; other getters
 * fail) until aoti_torch_assign_tensors fills it. Returns a new reference. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_new_uninitialized_tensor(AtenTensorHandle *ret);

/* Frees the handle; the tensor (and its storage reference) goes with its last handle. NULL
 * is a no-op success; a freed or foreign handle fails with a message. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_delete_tensor_object(AtenTensorHandle tensor);

/* ---- metadata (all results borrowed or by value) -------------------------------------- */
/* Address of element 0 (NULL for a tensor without elements, as PyTorch's data_ptr()).
 * Borrowed. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_data_ptr(AtenTensorHandle tensor,
                                                         void **ret_data_ptr);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_mutable_data_ptr(AtenTensorHandle tensor,
                                                                 void **ret_data_ptr);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_const_data_ptr(AtenTensorHandle tensor,
                                                               const void **ret_data_ptr);
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_10_0
AOTI_TORCH_EXPORT AOTITorchError torch_get_mutable_data_ptr(AtenTensorHandle tensor,
                                                            void **ret_data_ptr);
AOTI_TORCH_EXPORT AOTITorchError torch_get_const_data_ptr(AtenTensorHandle tensor,
                                                          const void **ret_data_ptr);
#endif
/* Bytes of the underlying storage. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_storage_size(AtenTensorHandle tensor,
                                                             int64_t *ret_size);
/* Elements of the underlying storage (bytes / element size). */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_storage_numel(AtenTensorHandle tensor,
                                                              int64_t *ret_numel);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_dim(AtenTensorHandle tensor, int64_t *ret_dim);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_numel(AtenTensorHandle tensor, int64_t *ret_numel);
/* The sizes/strides arrays (ndim entries), borrowed from the handle. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_sizes(AtenTensorHandle tensor, int64_t **ret_sizes);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_strides(AtenTensorHandle tensor,
                                                        int64_t **ret_strides);
/* One size/stride; d may be negative (counted from the end), |d| must be in range. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_size(AtenTensorHandle tensor, int64_t d,
                                                     int64_t *ret_size);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_stride(AtenTensorHandle tensor, int64_t d,
                                                       int64_t *ret_stride);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_dtype(AtenTensorHandle tensor, int32_t *ret_dtype);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_device_type(AtenTensorHandle tensor,
                                                            int32_t *ret_device_type);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_device_index(AtenTensorHandle tensor,
                                                             int32_t *ret_device_index);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_layout(AtenTensorHandle tensor,
                                                       int32_t *ret_layout);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_storage_offset(AtenTensorHandle tensor,
                                                               int64_t *ret_storage_offset);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_is_contiguous(AtenTensorHandle tensor,
                                                          bool *ret_is_contiguous);
/* False for a handle from aoti_torch_new_uninitialized_tensor (not yet assigned). */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_is_defined(AtenTensorHandle tensor,
                                                       bool *ret_is_defined);

/* ---- data ----------------------------------------------------------------------------- *
 * Copies convert between every dtype among uint8/16/32/64, int8/16/32/64, float16,
 * bfloat16, float32, float64, bool, complex64, complex128 (float to int saturates, NaN
 * gives 0; complex to real drops the imaginary part); other dtypes copy only to
 * themselves. src broadcasts to self's shape. */

/* Copies src into self (both borrowed); non_blocking is ignored on CPU. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_copy_(AtenTensorHandle self, AtenTensorHandle src,
                                                  int32_t non_blocking);
/* Copies src into dst (note the order: source first). */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_tensor_copy_(AtenTensorHandle src,
                                                         AtenTensorHandle dst);
/* Makes dst name src's tensor (PyTorch's *dst = *src): dst leaves its old tensor (freed
 * when dst was its last handle). Both handles stay owned by the caller and are deleted
 * separately. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_assign_tensors(AtenTensorHandle src,
                                                           AtenTensorHandle dst);
/* A new handle of src's tensor (a new reference in *ret_dst). */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_assign_tensors_out(AtenTensorHandle src,
                                                               AtenTensorHandle *ret_dst);
/* A copy in fresh storage: self's strides when they are dense and non-overlapping, else
 * contiguous. Returns a new reference. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_clone(AtenTensorHandle self, AtenTensorHandle *ret);
/* A copy in fresh storage with exactly self's strides (and storage offset 0). */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_clone_preserve_strides(AtenTensorHandle self,
                                                                   AtenTensorHandle *ret);
/* Sets every element of self to zero. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_zero_(AtenTensorHandle self);

/* aoti_torch_item_<name>(tensor, T *ret_value): the single element of a one-element tensor,
 * converted to T. Declared for each (name, T) below. */
#define SHIMRT_DECLARE_ITEM_(name, T)                                                              \
    AOTI_TORCH_EXPORT AOTITorchError aoti_torch_item_##name(AtenTensorHandle tensor, T *ret_value);
SHIMRT_DECLARE_ITEM_(float16, shimrt_item_half)
SHIMRT_DECLARE_ITEM_(float32, float)
SHIMRT_DECLARE_ITEM_(float64, double)
SHIMRT_DECLARE_ITEM_(uint8, uint8_t)
SHIMRT_DECLARE_ITEM_(uint16, uint16_t)
SHIMRT_DECLARE_ITEM_(uint32, uint32_t)
SHIMRT_DECLARE_ITEM_(uint64, uint64_t)
SHIMRT_DECLARE_ITEM_(int8, int8_t)
SHIMRT_DECLARE_ITEM_(int16, int16_t)
SHIMRT_DECLARE_ITEM_(int32, int32_t)
SHIMRT_DECLARE_ITEM_(int64, int64_t)
SHIMRT_DECLARE_ITEM_(bool, bool)
SHIMRT_DECLARE_ITEM_(bfloat16, shimrt_item_bfloat16)
SHIMRT_DECLARE_ITEM_(complex64, shimrt_item_complex64)

/* aoti_torch_scalar_to_tensor_<name>(T value, AtenTensorHandle *ret_new_tensor): a new 0-dim
 * CPU tensor holding value. Returns a new reference in *ret_new_tensor. */
#define SHIMRT_DECLARE_SCALAR_TO_TENSOR_(name, T)                                                  \
    AOTI_TORCH_EXPORT AOTITorchError aoti_torch_scalar_to_tensor_##name(                           \
        T value, AtenTensorHandle *ret_new_tensor);
SHIMRT_DECLARE_SCALAR_TO_TENSOR_(float32, float)
SHIMRT_DECLARE_SCALAR_TO_TENSOR_(float64, double)
SHIMRT_DECLARE_SCALAR_TO_TENSOR_(uint8, uint8_t)
SHIMRT_DECLARE_SCALAR_TO_TENSOR_(uint16, uint16_t)
SHIMRT_DECLARE_SCALAR_TO_TENSOR_(uint32, uint32_t)
SHIMRT_DECLARE_SCALAR_TO_TENSOR_(uint64, uint64_t)
SHIMRT_DECLARE_SCALAR_TO_TENSOR_(int8, int8_t)
SHIMRT_DECLARE_SCALAR_TO_TENSOR_(int16, int16_t)
SHIMRT_DECLARE_SCALAR_TO_TENSOR_(int32, int32_t)
SHIMRT_DECLARE_SCALAR_TO_TENSOR_(int64, int64_t)
SHIMRT_DECLARE_SCALAR_TO_TENSOR_(bool, bool)
SHIMRT_DECLARE_SCALAR_TO_TENSOR_(complex64, shimrt_item_complex64)
SHIMRT_DECLARE_SCALAR_TO_TENSOR_(complex128, shimrt_item_complex128)

#ifdef __cplusplus
}
#endif
#endif

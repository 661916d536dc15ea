/* shimrt/containers.h: the heap objects a StableIValue can point to.
 *
 * Lists (StableListHandle), strings (StringHandle), heap StableIValue cells (the `T?`
 * encoding), scalars (ScalarHandle, PyTorch 2.14) and our own complex cells. Names and
 * signatures match PyTorch's torch/csrc/stable/c/shim.h; each block is visible from the
 * release that introduced it (TORCH_FEATURE_VERSION, see version.h).
 *
 * Every function returns AOTI_TORCH_SUCCESS, or AOTI_TORCH_FAILURE with a message
 * "<function>: <problem>" for the calling thread (torch_exception_get_what()). A NULL,
 * freed or foreign handle is reported, never dereferenced blindly.
 *
 * Ownership: a list owns its item slots, not what the items point to: deleting a list
 * frees the list only (the items' types are not known to it). To free a value with
 * everything it owns, use shimrt_siv_release() (dispatcher.h), which knows the schema
 * type. */
#ifndef SHIMRT_CONTAINERS_H
#define SHIMRT_CONTAINERS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_10_0
/* ---- lists ------------------------------------------------------------------------ */
/* Returns a new, empty list with room for `size` items (its length is 0). Free with
 * torch_delete_list. */
AOTI_TORCH_EXPORT AOTITorchError torch_new_list_reserve_size(size_t size, StableListHandle *ret);
/* The number of items. Borrows list_handle. */
AOTI_TORCH_EXPORT AOTITorchError torch_list_size(StableListHandle list_handle, size_t *size);
/* Copies item `index` into *element (a bitwise copy: the item stays owned by the list).
 * Fails when index >= size. */
AOTI_TORCH_EXPORT AOTITorchError torch_list_get_item(StableListHandle list_handle, size_t index,
                                                     StableIValue *element);
/* Overwrites item `index` (index < size) with element; the previous item is not freed
 * (the caller took it out first, or it owned nothing). */
AOTI_TORCH_EXPORT AOTITorchError torch_list_set_item(StableListHandle list_handle, size_t index,
                                                     StableIValue element);
/* Appends element (the list takes it), growing the list as needed. */
AOTI_TORCH_EXPORT AOTITorchError torch_list_push_back(StableListHandle list_handle,
                                                      StableIValue element);
/* Frees the list (not what its items point to). NULL is a no-op success. */
AOTI_TORCH_EXPORT AOTITorchError torch_delete_list(StableListHandle list_handle);

/* ---- strings ---------------------------------------------------------------------- */
/* Returns a new string holding a copy of data[0..length) (which may hold NUL bytes and
 * need not be NUL-terminated; data may be NULL when length is 0). Free with
 * torch_delete_string. */
AOTI_TORCH_EXPORT AOTITorchError torch_new_string_handle(const char *data, size_t length,
                                                         StringHandle *handle);
/* Frees the string. NULL is a no-op success. */
AOTI_TORCH_EXPORT AOTITorchError torch_delete_string(StringHandle handle);
/* The length in bytes (without the terminating NUL). */
AOTI_TORCH_EXPORT AOTITorchError torch_string_length(StringHandle handle, size_t *length);
/* The bytes, NUL-terminated. Borrowed: valid until the string is deleted. */
AOTI_TORCH_EXPORT AOTITorchError torch_string_c_str(StringHandle handle, const char **data);
#endif /* 2.10 */

#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_13_0
/* ---- heap cells (the `T?` encoding) --------------------------------------------------- */
/* Returns a new heap StableIValue (value 0). Free it with torch_delete_stable_ivalue, or
 * hand it to a dispatch call inside an optional, which frees it. */
AOTI_TORCH_EXPORT AOTITorchError torch_new_stable_ivalue(StableIValue **ret_value);
/* Frees a cell from torch_new_stable_ivalue (not what the value points to). NULL is a
 * no-op success. */
AOTI_TORCH_EXPORT AOTITorchError torch_delete_stable_ivalue(StableIValue *value);
#endif /* 2.13 */

#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_14_0
/* ---- scalars (a tagged bool / int / double / complex double) ------------------------ */
/* Each returns a new ScalarHandle; free with torch_delete_scalar (a dispatch call that
 * receives it frees it). */
AOTI_TORCH_EXPORT AOTITorchError torch_new_scalar_int(int64_t value, ScalarHandle *ret);
AOTI_TORCH_EXPORT AOTITorchError torch_new_scalar_double(double value, ScalarHandle *ret);
AOTI_TORCH_EXPORT AOTITorchError torch_new_scalar_bool(bool value, ScalarHandle *ret);
AOTI_TORCH_EXPORT AOTITorchError torch_new_scalar_complex_double(double real, double imag,
                                                                 ScalarHandle *ret);
/* Exactly one of these is true for a valid scalar. Borrow the handle. */
AOTI_TORCH_EXPORT AOTITorchError torch_scalar_is_int(ScalarHandle handle, bool *ret);
AOTI_TORCH_EXPORT AOTITorchError torch_scalar_is_double(ScalarHandle handle, bool *ret);
AOTI_TORCH_EXPORT AOTITorchError torch_scalar_is_bool(ScalarHandle handle, bool *ret);
AOTI_TORCH_EXPORT AOTITorchError torch_scalar_is_complex_double(ScalarHandle handle, bool *ret);
/* Conversions, as c10::Scalar's: int/double/bool convert among themselves (a double to
 * int truncates toward zero and fails when out of int64 range; anything to bool is
 * "!= 0"); a complex converts to the others only when its imaginary part is 0; every
 * kind converts to complex (imaginary part 0). */
AOTI_TORCH_EXPORT AOTITorchError torch_scalar_to_int(ScalarHandle handle, int64_t *ret);
AOTI_TORCH_EXPORT AOTITorchError torch_scalar_to_double(ScalarHandle handle, double *ret);
AOTI_TORCH_EXPORT AOTITorchError torch_scalar_to_bool(ScalarHandle handle, bool *ret);
AOTI_TORCH_EXPORT AOTITorchError torch_scalar_to_complex_double(ScalarHandle handle,
                                                                double *ret_real, double *ret_imag);
/* Frees a scalar. NULL is a no-op success. */
AOTI_TORCH_EXPORT AOTITorchError torch_delete_scalar(ScalarHandle handle);
#endif /* 2.14 */

/* ---- our extensions (not in PyTorch) ------------------------------------------------- */
/* A complex double on the heap: the StableIValue encoding of schema type `complex`
 * (docs/stableivalue.md). */
typedef struct ShimrtComplex {
    double real, imag;
} ShimrtComplex;
/* Returns a new cell holding (real, imag); free with shimrt_delete_complex. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_new_complex(double real, double imag, ShimrtComplex **ret);
/* Frees a cell from shimrt_new_complex. NULL is a no-op success. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_delete_complex(ShimrtComplex *cell);

/* The number of live objects of a kind in this process: "list", "string", "scalar",
 * "cell" (torch_new_stable_ivalue) or "complex" (leak checks: a balanced program ends at
 * 0 for each). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_live_objects(const char *kind, int64_t *ret);

#ifdef __cplusplus
}
#endif
#endif

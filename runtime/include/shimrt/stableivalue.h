/* shimrt/stableivalue.h: converting C values to and from StableIValue.
 *
 * A StableIValue is a uint64_t; these static inline helpers implement every encoding of
 * docs/stableivalue.md (PyTorch's table for the rows it defines, ours for the rest).
 * "Bitwise" means a raw copy into the leading bytes of a zeroed uint64_t, as PyTorch's
 * from()/to() do. Conventions:
 *   siv_from_X(x)  returns the encoding; for handle types it transfers whatever
 *                  reference the caller holds (the stack owns what it holds).
 *   siv_to_X(v)    decodes; for handle types the result is the reference the value
 *                  held (a kernel that steals its arguments now owns it).
 *   siv_new_X(..., &v) allocates (a heap cell) and can fail: AOTI_TORCH_FAILURE with the
 *                  thread's message set.
 * Freeing a value with everything it owns: shimrt_siv_release() in dispatcher.h. */
#ifndef SHIMRT_STABLEIVALUE_H
#define SHIMRT_STABLEIVALUE_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "codes.h"
#include "containers.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* QScheme codes (c10::QScheme's values): SHIMRT_QSCHEME_* of codes.h. */

/* ---- pointers (Tensor, str, T[], Scalar, Stream, Generator, Storage, tuple, complex) -- */
static inline StableIValue siv_from_ptr_(const void *p) {
    StableIValue v = 0;
    memcpy(&v, &p, sizeof p);
    return v;
}
static inline void *siv_to_ptr_(StableIValue v) {
    void *p;
    memcpy(&p, &v, sizeof p);
    return p;
}

/* siv_from_<name> / siv_to_<name> for a handle (pointer) type T, kept bitwise. */
#define SHIMRT_SIV_HANDLE_(name, T)                                                                \
    static inline StableIValue siv_from_##name(T x) { return siv_from_ptr_(x); }                   \
    static inline T siv_to_##name(StableIValue v) { return (T)siv_to_ptr_(v); }

/* Tensor: the AtenTensorHandle, bitwise. */
SHIMRT_SIV_HANDLE_(tensor, AtenTensorHandle)
/* str: the StringHandle, bitwise. */
SHIMRT_SIV_HANDLE_(string, StringHandle)
/* T[]: the StableListHandle, bitwise; items are StableIValues of T. */
SHIMRT_SIV_HANDLE_(list, StableListHandle)
/* Scalar: the ScalarHandle (PyTorch 2.14), bitwise. */
SHIMRT_SIV_HANDLE_(scalar, ScalarHandle)
/* Stream (ours): the StreamHandle, bitwise; freed with aoti_torch_delete_stream. */
SHIMRT_SIV_HANDLE_(stream, StreamHandle)
/* Generator (ours): the AtenGeneratorHandle, bitwise; freed with torch_delete_generator. */
SHIMRT_SIV_HANDLE_(generator, AtenGeneratorHandle)
/* Storage (ours): an AtenTensorHandle whose storage is the value (its sizes, strides,
 * offset and dtype carry no meaning); freed with aoti_torch_delete_tensor_object. */
SHIMRT_SIV_HANDLE_(storage, AtenTensorHandle)
/* Tuples (ours): a StableListHandle with one item per element, in order, each in its own
 * element type's encoding. */
SHIMRT_SIV_HANDLE_(tuple, StableListHandle)
/* complex (ours): a pointer to a heap ShimrtComplex (shimrt_new_complex). */
SHIMRT_SIV_HANDLE_(complex, ShimrtComplex *)
/* Allocates the cell; *out receives the encoding. */
static inline AOTITorchError siv_new_complex(double real, double imag, StableIValue *out) {
    ShimrtComplex *c = NULL;
    AOTITorchError e = shimrt_new_complex(real, imag, &c);
    if (e == AOTI_TORCH_SUCCESS && out) *out = siv_from_complex(c);
    return e;
}

/* siv_from_<name> / siv_to_<name> for a value of type T kept bitwise in the low bytes
 * (the rest 0). */
#define SHIMRT_SIV_BITWISE_(name, T)                                                               \
    static inline StableIValue siv_from_##name(T x) {                                              \
        StableIValue v = 0;                                                                        \
        memcpy(&v, &x, sizeof x);                                                                  \
        return v;                                                                                  \
    }                                                                                              \
    static inline T siv_to_##name(StableIValue v) {                                                \
        T x;                                                                                       \
        memcpy(&x, &v, sizeof x);                                                                  \
        return x;                                                                                  \
    }

/* ---- plain values ---------------------------------------------------------------- */
/* int / SymInt / DeviceIndex: int64_t, bitwise. SymInt holds a concrete value (the
 * runtime has no symbolic shapes). */
SHIMRT_SIV_BITWISE_(int, int64_t)
static inline StableIValue siv_from_symint(int64_t i) { return siv_from_int(i); }
static inline int64_t siv_to_symint(StableIValue v) { return siv_to_int(v); }
/* float / SymFloat: double, bitwise. */
SHIMRT_SIV_BITWISE_(double, double)
static inline StableIValue siv_from_symfloat(double d) { return siv_from_double(d); }
static inline double siv_to_symfloat(StableIValue v) { return siv_to_double(v); }
/* bool / SymBool: the bool, bitwise (its byte first, the rest 0). */
static inline StableIValue siv_from_bool(bool b) {
    StableIValue v = 0;
    memcpy(&v, &b, sizeof b);
    return v;
}
static inline bool siv_to_bool(StableIValue v) {
    unsigned char c;
    memcpy(&c, &v, 1);
    return c != 0;
}
static inline StableIValue siv_from_symbool(bool b) { return siv_from_bool(b); }
static inline bool siv_to_symbool(StableIValue v) { return siv_to_bool(v); }
/* ScalarType, Layout, MemoryFormat, QScheme: the int32_t code, bitwise. */
SHIMRT_SIV_BITWISE_(code_, int32_t)
static inline StableIValue siv_from_scalar_type(int32_t dtype) { return siv_from_code_(dtype); }
static inline int32_t siv_to_scalar_type(StableIValue v) { return siv_to_code_(v); }
static inline StableIValue siv_from_layout(int32_t layout) { return siv_from_code_(layout); }
static inline int32_t siv_to_layout(StableIValue v) { return siv_to_code_(v); }
static inline StableIValue siv_from_memory_format(int32_t mf) { return siv_from_code_(mf); }
static inline int32_t siv_to_memory_format(StableIValue v) { return siv_to_code_(v); }
static inline StableIValue siv_from_qscheme(int32_t q) { return siv_from_code_(q); }
static inline int32_t siv_to_qscheme(StableIValue v) { return siv_to_code_(v); }
/* Device: low 32 bits the index (as uint32_t, so -1 is 0xffffffff), high 32 bits the
 * device type code. */
static inline StableIValue siv_from_device(int32_t device_type, int32_t device_index) {
    return ((StableIValue)(uint32_t)device_type << 32) | (StableIValue)(uint32_t)device_index;
}
static inline int32_t siv_to_device_type(StableIValue v) { return (int32_t)(uint32_t)(v >> 32); }
static inline int32_t siv_to_device_index(StableIValue v) {
    return (int32_t)(uint32_t)(v & 0xffffffffu);
}

/* ---- T? ---------------------------------------------------------------------------- */
/* None is 0; a present value is a pointer to a heap StableIValue holding it. */
static inline StableIValue siv_none(void) { return 0; }
static inline bool siv_is_none(StableIValue v) { return v == 0; }
/* Borrowed read of a present optional's value (v must not be None). */
static inline StableIValue siv_optional_value(StableIValue v) {
    return *(const StableIValue *)siv_to_ptr_(v);
}
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_13_0
/* Wraps `value` in a new heap cell: *out takes the cell (and the value's reference). */
static inline AOTITorchError siv_new_optional(StableIValue value, StableIValue *out) {
    StableIValue *cell = NULL;
    AOTITorchError e = torch_new_stable_ivalue(&cell);
    if (e != AOTI_TORCH_SUCCESS) return e;
    *cell = value;
    if (out)
        *out = siv_from_ptr_(cell);
    else
        torch_delete_stable_ivalue(cell);
    return AOTI_TORCH_SUCCESS;
}
/* Unwraps and frees the cell: returns false for None, else stores the value (now the
 * caller's) in *value. */
static inline bool siv_take_optional(StableIValue v, StableIValue *value) {
    if (v == 0) return false;
    StableIValue *cell = (StableIValue *)siv_to_ptr_(v);
    if (value) *value = *cell;
    torch_delete_stable_ivalue(cell);
    return true;
}
#endif

#ifdef __cplusplus
}
#endif
#endif

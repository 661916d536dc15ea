/* runtime/core/dtype.h: the dtype traits table (dtype.c), one row per c10::ScalarType code
 * the runtime knows (shimrt/codes.h): size, names, kind, CPU accumulate type, whether the
 * runtime computes with it, the names C kernel sources use for it, and the load and store of
 * one element in host memory. Everything that asks a question about a dtype asks this table
 * (core, generic, cpu, and the CUDA source generator); ggml's type_traits is the model.
 * Private to runtime/; plain C11, no state. */
#ifndef SHIMRT_CORE_DTYPE_H
#define SHIMRT_CORE_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shimrt/codes.h"

typedef enum {
    SHIMRT_KIND_BOOL,
    SHIMRT_KIND_SIGNED,   /* int8..int64 */
    SHIMRT_KIND_UNSIGNED, /* uint8..uint64 */
    SHIMRT_KIND_FLOATING, /* float16, bfloat16, float32, float64 */
    SHIMRT_KIND_COMPLEX,  /* complex32, complex64, complex128 */
    SHIMRT_KIND_FLOAT8,   /* the float8 formats */
    SHIMRT_KIND_PACKED    /* float4_e2m1fn_x2: two elements a byte */
} shimrt_dtype_kind;

typedef struct shimrt_dtype_traits {
    int32_t code;  /* c10::ScalarType */
    unsigned size; /* bytes per element */
    shimrt_dtype_kind kind;
    const char *name;       /* ours and aoti_torch_dtype_<name>: "float32" */
    const char *torch_name; /* c10::ScalarType's, as PyTorch's messages print it: "Float" */
    const char *meta_name;  /* caffe2::TypeMeta's: "float", "long int" */
    int32_t acc;            /* at::acc_type<T, is_cuda=false>; -1 where PyTorch has none */
    bool computable;        /* CPU conversions (copy, to, fill, item) read and write it */
    /* The kernel engine's dtypes (cpu/ kernel tables, CUDA sources) are the table's first
     * SHIMRT_ENGINE_NDT rows, in the engine's order; for them: */
    const char *tag;           /* in kernel names: "f16" */
    const char *ctype;         /* the C storage type: "unsigned short" */
    const char *ctype_compute; /* the C type kernels compute in: "float" */
    /* One element at p (host memory, any alignment), through a wide type. Loads: a floating
     * value to int64 saturates (NaN gives 0), uint64 wraps into int64, complex reads its real
     * part, a dtype that is not computable reads 0. Stores convert as the CPU engine's `to`
     * does (PyTorch's conversions: a floating value to an integer truncates through int32 for
     * int8/16/32 and uint16, through int64 for the others, out of range giving the x86
     * result; integers wrap; bool is v != 0; complex gets a zero imaginary part); a dtype
     * that is not computable is left unwritten. */
    double (*load_f64)(const void *p);
    int64_t (*load_i64)(const void *p);
    void (*store_f64)(void *p, double v);
    void (*store_i64)(void *p, int64_t v);
} shimrt_dtype_traits;

/* Rows 0..SHIMRT_ENGINE_NDT-1 of shimrt_dtype_table: bool, uint8, int8, int16, int32,
 * int64, float16, bfloat16, float32, float64 (the order of the engine's tables). */
#define SHIMRT_ENGINE_NDT 10
extern const shimrt_dtype_traits shimrt_dtype_table[];
extern const size_t shimrt_dtype_table_len;

/* The row of a dtype code, or NULL for a code the runtime does not know. */
const shimrt_dtype_traits *shimrt_dtype_traits_of(int32_t dtype);
/* The row's index in shimrt_dtype_table when it is one of the engine's dtypes, else -1. */
int shimrt_dtype_engine_index(int32_t dtype);
/* dst <- src, one element of computable dtypes (host memory, any alignment), converted as
 * PyTorch's copy_ does (c10::convert): integers wrap, a floating value to an integer as the
 * table's store_f64, an integer to a floating type rounds once (float16 and bfloat16 through
 * float), complex to real keeps the real part (to bool: re != 0 || im != 0), real to complex
 * gives (v, 0). Nothing is written when either dtype is not computable. */
void shimrt_dtype_convert(void *dst, int32_t ddt, const void *src, int32_t sdt);
/* Questions of kind (false for an unknown code). */
bool shimrt_dtype_is_floating(int32_t dtype); /* float16, bfloat16, float32, float64 */
bool shimrt_dtype_is_complex(int32_t dtype);

#endif

/* runtime/cpu/kernels.h: the typed element-wise kernels of runtime/ops/ops.def.
 *
 * Included by pointwise.c for the row ids (OP_<name>) and, with SH_KSUFFIX defined, by
 * kern_base.c, kern_v3.c and kern_v4.c: each expands every SH_UNARY / SH_BINARY /
 * SH_TERNARY row into one contiguous loop per compute type of its class (bool, uint8,
 * int8..int64, float, double) and exports the table sh_rowtabs_<suffix>[OP_COUNT]. The three
 * files are the same code built for baseline x86-64, x86-64-v3 (AVX2+FMA) and x86-64-v4
 * (AVX-512); pointwise.c picks one at run time. */
#ifndef SHIMRT_CPU_KERNELS_H
#define SHIMRT_CPU_KERNELS_H
#include "engine.h"
/* the row ids */
enum {
#define SH_UNARY(name, cls, ...) OP_##name,
#define SH_BINARY(name, cls, ...) OP_##name,
#define SH_TERNARY(name, cls, ...) OP_##name,
#include "../ops/ops.def"
    OP_COUNT
};
#endif

#ifdef SH_KSUFFIX
#include "../ops/ops_math.h"
#define SH_KCAT2(a, b) a##b
#define SH_KCAT(a, b) SH_KCAT2(a, b)
/* shifts compare unsigned operands with 0 in the shared expressions */
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wbool-operation"
#pragma GCC diagnostic ignored "-Wint-in-bool-context"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wbool-compare"
#endif


/* compute types of each class: M(C type, compute index, ...) */
#define SH_TYPES_SH_ALL(M, ...)                                                            \
    M(bool, SH_B, __VA_ARGS__) SH_TYPES_SH_NUMERIC(M, __VA_ARGS__)
#define SH_TYPES_SH_NUMERIC(M, ...)                                                        \
    M(uint8_t, SH_U8, __VA_ARGS__) M(int8_t, SH_I8, __VA_ARGS__)                           \
    M(int16_t, SH_I16, __VA_ARGS__) M(int32_t, SH_I32, __VA_ARGS__)                        \
    M(int64_t, SH_I64, __VA_ARGS__) SH_TYPES_SH_FLOAT(M, __VA_ARGS__)
#define SH_TYPES_SH_FLOAT(M, ...) M(float, SH_F32, __VA_ARGS__) M(double, SH_F64, __VA_ARGS__)
#define SH_TYPES_SH_INTEGRAL(M, ...)                                                       \
    M(bool, SH_B, __VA_ARGS__) M(uint8_t, SH_U8, __VA_ARGS__) M(int8_t, SH_I8, __VA_ARGS__) \
    M(int16_t, SH_I16, __VA_ARGS__) M(int32_t, SH_I32, __VA_ARGS__)                        \
    M(int64_t, SH_I64, __VA_ARGS__)
#define SH_TYPES_SH_COMPARE SH_TYPES_SH_ALL
#define SH_OUT_SH_ALL T
#define SH_OUT_SH_NUMERIC T
#define SH_OUT_SH_FLOAT T
#define SH_OUT_SH_INTEGRAL T
#define SH_OUT_SH_COMPARE bool

/* a double argument in T: floating types round, integers go through int64 (saturating
 * there) and wrap, as PyTorch converts a Scalar to an integer type */
static inline int64_t sh_d2i(double v) {
    return v != v ? 0 : v >= 9223372036854775807.0 ? INT64_MAX
                      : v <= -9223372036854775808.0 ? INT64_MIN : (int64_t)v;
}
#define SH_TO_T(T, v) _Generic((T)0, float: (T)(v), double: (T)(v), bool: (T)((v) != 0), \
                               default: (T)sh_d2i(v))

#define SH_KHEAD(TT, CT, name, OUT)                                                         \
    static void k_##name##_##CT(int64_t n, char *o_, const char *a_, const char *b_, \
                                         const char *c_, int mode, const sh_kargs *k) {     \
        typedef TT T;                                                                       \
        typedef OUT OT;                                                                     \
        OT *restrict o = (OT *)(void *)o_;                                                  \
        const T *restrict A = (const T *)(const void *)a_;                                  \
        const T *restrict B = (const T *)(const void *)b_;                                  \
        const uint8_t *restrict C = (const uint8_t *)c_;                                    \
        const T alpha = SH_TO_T(T, k->alpha), p0 = SH_TO_T(T, k->p0), p1 = SH_TO_T(T, k->p1); \
        (void)alpha; (void)p0; (void)p1; (void)B; (void)C; (void)mode;

#define SH_KU(TT, CT, name, OUT, ...)                                                        \
    SH_KHEAD(TT, CT, name, OUT)                                                             \
        for (int64_t i = 0; i < n; i++) {                                                   \
            const T x = A[i];                                                               \
            o[i] = (OT)(__VA_ARGS__);                                                       \
        }                                                                                   \
    }
#define SH_KB(TT, CT, name, OUT, ...)                                                        \
    SH_KHEAD(TT, CT, name, OUT)                                                             \
        if (mode == 0) {                                                                    \
            for (int64_t i = 0; i < n; i++) {                                               \
                const T a = A[i], b = B[i];                                                 \
                o[i] = (OT)(__VA_ARGS__);                                                   \
            }                                                                               \
        } else if (mode == 1) {                                                             \
            const T a = A[0];                                                               \
            for (int64_t i = 0; i < n; i++) {                                               \
                const T b = B[i];                                                           \
                o[i] = (OT)(__VA_ARGS__);                                                   \
            }                                                                               \
        } else {                                                                            \
            const T b = B[0];                                                               \
            for (int64_t i = 0; i < n; i++) {                                               \
                const T a = A[i];                                                           \
                o[i] = (OT)(__VA_ARGS__);                                                   \
            }                                                                               \
        }                                                                                   \
    }
#define SH_KT(TT, CT, name, OUT, ...)                                                        \
    SH_KHEAD(TT, CT, name, OUT)                                                             \
        for (int64_t i = 0; i < n; i++) {                                                   \
            const bool c = C[i] != 0;                                                       \
            const T a = A[i], b = B[i];                                                     \
            o[i] = (OT)(__VA_ARGS__);                                                       \
        }                                                                                   \
    }
#define SH_TAB_ENT(TT, CT, name, ...) [CT] = k_##name##_##CT,

/* 1. the typed kernels and one table per row */
#define SH_ROW(KM, name, cls, ...)                                                          \
    SH_TYPES_##cls(KM, name, SH_OUT_##cls, __VA_ARGS__)                                     \
    static const sh_kernel tab_##name[SH_NCT] = {SH_TYPES_##cls(SH_TAB_ENT, name, x)};
#define SH_UNARY(name, cls, ...) SH_ROW(SH_KU, name, cls, __VA_ARGS__)
#define SH_BINARY(name, cls, ...) SH_ROW(SH_KB, name, cls, __VA_ARGS__)
#define SH_TERNARY(name, cls, ...) SH_ROW(SH_KT, name, cls, __VA_ARGS__)
#include "../ops/ops.def"


/* 2. dtype conversion loops (sh_cast_run's table): PyTorch's conversions */
#include <string.h>
static inline int64_t f2i64(double v) {
    return (v >= -9223372036854775808.0 && v < 9223372036854775808.0) ? (int64_t)v : INT64_MIN;
}
/* round to nearest even; NaN becomes 0x7fc0 (c10::BFloat16's rule) */
static inline uint16_t f2bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}
static inline float bf16_to_f(uint16_t b) {
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* load: native C value of a storage type */
#define LD_b8(p) (*(const uint8_t *)(p) != 0)
#define LD_u8(p) (*(const uint8_t *)(p))
#define LD_i8(p) (*(const int8_t *)(p))
#define LD_i16(p) (*(const int16_t *)(p))
#define LD_i32(p) (*(const int32_t *)(p))
#define LD_i64(p) (*(const int64_t *)(p))
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && __GNUC__ >= 12
/* gcc's _Float16: F16C instructions in the x86-64-v3/v4 builds (vectorized) */
__extension__ typedef _Float16 sh_half_t;
#define LD_f16(p) ((float)*(const sh_half_t *)(const void *)(p))
#define ST_f16(p, v) (*(sh_half_t *)(void *)(p) = (sh_half_t)(float)(v))
#else
#define LD_f16(p) shimrt_half_to_float(*(const uint16_t *)(p))
#define ST_f16(p, v) (*(uint16_t *)(p) = shimrt_float_to_half((float)(v)))
#endif
#define LD_bf16(p) bf16_to_f(*(const uint16_t *)(p))
#define LD_f32(p) (*(const float *)(p))
#define LD_f64(p) (*(const double *)(p))
static inline int32_t f2i32(double v) {
    return (v > -2147483649.0 && v < 2147483648.0) ? (int32_t)v : INT32_MIN;
}
/* to an integer: floating values as x86 truncates them (PyTorch's static_cast): through
 * int64 for uint8 and int64, through int32 for int8/16/32; integers wrap */
#define TOI(v) _Generic((v), float: f2i64(v), double: f2i64(v), default: (int64_t)(v))
#define TOI32(v) _Generic((v), float: f2i32(v), double: f2i32(v), default: (int64_t)(v))
#define ST_b8(p, v) (*(uint8_t *)(p) = (v) != 0)
#define ST_u8(p, v) (*(uint8_t *)(p) = (uint8_t)TOI(v))
#define ST_i8(p, v) (*(int8_t *)(p) = (int8_t)TOI32(v))
#define ST_i16(p, v) (*(int16_t *)(p) = (int16_t)TOI32(v))
#define ST_i32(p, v) (*(int32_t *)(p) = (int32_t)TOI32(v))
#define ST_i64(p, v) (*(int64_t *)(p) = TOI(v))
#define ST_bf16(p, v) (*(uint16_t *)(p) = f2bf16((float)(v)))
#define ST_f32(p, v) (*(float *)(p) = (float)(v))
#define ST_f64(p, v) (*(double *)(p) = (double)(v))

#define SH_STORAGE_TYPES(M, X)                                                               \
    M(X, b8, 1) M(X, u8, 1) M(X, i8, 1) M(X, i16, 2) M(X, i32, 4) M(X, i64, 8)            \
    M(X, f16, 2) M(X, bf16, 2) M(X, f32, 4) M(X, f64, 8)

#define SZ_b8 1
#define SZ_u8 1
#define SZ_i8 1
#define SZ_i16 2
#define SZ_i32 4
#define SZ_i64 8
#define SZ_f16 2
#define SZ_bf16 2
#define SZ_f32 4
#define SZ_f64 8
/* one loop per (source, destination) pair; the contiguous case with constant strides is
 * the one gcc vectorizes */
#define CAST_FN(S, D, DSZ)                                                                   \
    static void cast_##S##_##D(char *d, int64_t ds, const char *s, int64_t ss, int64_t n) {  \
        if (ds == DSZ && ss == SZ_##S)                                                       \
            for (int64_t i = 0; i < n; i++) ST_##D(d + i * DSZ, LD_##S(s + i * SZ_##S));     \
        else                                                                                 \
            for (int64_t i = 0; i < n; i++) ST_##D(d + i * ds, LD_##S(s + i * ss));          \
    }
#define CAST_ALL(M) M(b8) M(u8) M(i8) M(i16) M(i32) M(i64) M(f16) M(bf16) M(f32) M(f64)
#define CAST_DEF(S) SH_STORAGE_TYPES(CAST_FN, S)
CAST_ALL(CAST_DEF)

#define CAST_ENT(S, D, DSZ) cast_##S##_##D,
#define CAST_TAB(S) {SH_STORAGE_TYPES(CAST_ENT, S)},
const sh_cast_fn SH_KCAT(sh_casttab_, SH_KSUFFIX)[10][10] = {CAST_ALL(CAST_TAB)};


/* 3. the tables of this build, by row id */
const sh_kernel *const SH_KCAT(sh_rowtabs_, SH_KSUFFIX)[OP_COUNT] = {
#define SH_UNARY(name, cls, ...) [OP_##name] = tab_##name,
#define SH_BINARY(name, cls, ...) [OP_##name] = tab_##name,
#define SH_TERNARY(name, cls, ...) [OP_##name] = tab_##name,
#include "../ops/ops.def"
};
#endif

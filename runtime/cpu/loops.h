/* runtime/cpu/loops.h: the typed element-wise kernels of runtime/ops/ops.def.
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
/* the reduction ids */
enum {
#define SH_REDUCE(name, ...) RED_##name,
#include "../ops/ops.def"
    RED_COUNT
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
/* storage type indices (sh_cast_run's table order) */
#define SI_b8 0
#define SI_u8 1
#define SI_i8 2
#define SI_i16 3
#define SI_i32 4
#define SI_i64 5
#define SI_f16 6
#define SI_bf16 7
#define SI_f32 8
#define SI_f64 9

/* float16 <-> float: gcc 12 vectorizes no _Float16 conversion without AVX512-FP16, so the
 * F16C builds (x86-64-v3, v4) convert 8 or 16 at a time with the F16C instructions (the
 * same instruction and rounding, from MXCSR, as the scalar conversion); other dtypes go
 * through a float chunk (PyTorch converts to and from Half through float as well) */
#if defined(__F16C__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define SH_F16C 1
static inline void sh_f2h_v(char *d, const float *s, int64_t n) {
    int64_t i = 0;
#ifdef __AVX512F__
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(void *)(d + 2 * i),
                            _mm512_cvtps_ph(_mm512_loadu_ps(s + i), _MM_FROUND_CUR_DIRECTION));
#endif
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(void *)(d + 2 * i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_CUR_DIRECTION));
    for (; i < n; i++) ST_f16(d + 2 * i, s[i]);
}
static inline void sh_h2f_v(float *d, const char *s, int64_t n) {
    int64_t i = 0;
#ifdef __AVX512F__
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(d + i, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(s + 2 * i))));
#endif
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(s + 2 * i))));
    for (; i < n; i++) d[i] = LD_f16(s + 2 * i);
}
#else
#define SH_F16C 0
static inline void sh_f2h_v(char *d, const float *s, int64_t n) {
    for (int64_t i = 0; i < n; i++) ST_f16(d + 2 * i, s[i]);
}
static inline void sh_h2f_v(float *d, const char *s, int64_t n) {
    for (int64_t i = 0; i < n; i++) d[i] = LD_f16(s + 2 * i);
}
#endif

/* one loop per (source, destination) pair; the contiguous case with constant strides is
 * the one gcc vectorizes */
#define CAST_FN(S, D, DSZ)                                                                   \
    static void cast_##S##_##D(char *d, int64_t ds, const char *s, int64_t ss, int64_t n) {  \
        if (ds == DSZ && ss == SZ_##S && SH_F16C && SI_##S == SI_f32 && SI_##D == SI_f16) {   \
            sh_f2h_v(d, (const float *)(const void *)s, n);                                  \
        } else if (ds == DSZ && ss == SZ_##S && SH_F16C && SI_##S == SI_f16 && SI_##D == SI_f32) { \
            sh_h2f_v((float *)(void *)d, s, n);                                              \
        } else if (ds == DSZ && ss == SZ_##S && SH_F16C && (SI_##S == SI_f16) != (SI_##D == SI_f16)) { \
            float t_[256];                                                                   \
            for (int64_t i0 = 0; i0 < n; i0 += 256) {                                        \
                int64_t c = n - i0 < 256 ? n - i0 : 256;                                     \
                if (SI_##S == SI_f16)                                                        \
                    sh_h2f_v(t_, s + i0 * 2, c);                                             \
                else                                                                         \
                    for (int64_t k = 0; k < c; k++) t_[k] = (float)LD_##S(s + (i0 + k) * SZ_##S); \
                if (SI_##D == SI_f16)                                                        \
                    sh_f2h_v(d + i0 * 2, t_, c);                                             \
                else                                                                         \
                    for (int64_t k = 0; k < c; k++) ST_##D(d + (i0 + k) * DSZ, t_[k]);       \
            }                                                                                \
        } else if (ds == DSZ && ss == SZ_##S)                                                \
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


/* 3. reductions: every SH_REDUCE row as typed loops over (storage type S, accumulator
 * type T) pairs: T is S's compute type ("narrow": float for float16/bfloat16) or the wide
 * type ("wide": double for floating S, int64 for integral and bool S). Elements are
 * converted to T, then combined; gcc vectorizes both loops:
 *   rows: nrows contiguous rows of len elements, one T result per row; each row keeps
 *         256 / sizeof(T) independent lanes (four AVX-512 vectors), merged by the row's
 *         merge step in a fixed tree (so results are deterministic, and do not depend on
 *         the thread count: threads split rows, never lanes)
 *   cols: nc contiguous columns reduced over nrows rows (row stride rs elements) into
 *         nc T accumulators, one lane per column
 *   merge: acc[i] = merge(acc[i], x[i]) over n T values (partial results of split rows) */
#define SH_RLANES(T) ((int)(256 / sizeof(T)))
#define SH_RBLK 16     /* narrow steps per lane between merges into the wide accumulators */
#define SH_RCOLS 1024  /* the most columns a cols call takes */
/* NT: the block type. Wide sums of float16/bfloat16/float32 add SH_RBLK elements per lane
 * in float, then merge that partial sum into the double accumulator (converting every
 * element to double halved the speed of these memory-bound loops); elsewhere NT = T. */
#define SH_RK(S, TT, W, NTT, name, init, combine, merge)                                     \
    static void rr_##name##_##S##_##W(char *out_, const char *in_, int64_t nrows,          \
                                      int64_t len) {                                        \
        typedef TT WT;                                                                      \
        enum { L = SH_RLANES(NTT) };                                                        \
        for (int64_t r = 0; r < nrows; r++) {                                               \
            const char *row = in_ + r * len * SZ_##S;                                       \
            WT a[L];                                                                        \
            for (int l = 0; l < L; l++) {                                                   \
                typedef WT T;                                                               \
                a[l] = (T)(init);                                                           \
            }                                                                               \
            int64_t i = 0;                                                                  \
            for (; i + (int64_t)L * SH_RBLK <= len; i += (int64_t)L * SH_RBLK) {            \
                typedef NTT T;                                                              \
                T b[L];                                                                     \
                for (int l = 0; l < L; l++) b[l] = (T)(init);                               \
                for (int f = 0; f < SH_RBLK; f++)                                           \
                    for (int l = 0; l < L; l++) {                                           \
                        const T acc = b[l],                                                 \
                                x = (T)LD_##S(row + (i + f * L + l) * SZ_##S);              \
                        b[l] = (T)(combine);                                                \
                    }                                                                       \
                for (int l = 0; l < L; l++) {                                               \
                    typedef WT T2;                                                          \
                    const T2 acc = a[l], x = (T2)b[l];                                      \
                    {                                                                       \
                        typedef T2 T;                                                       \
                        a[l] = (T)(merge);                                                  \
                    }                                                                       \
                }                                                                           \
            }                                                                               \
            {                                                                               \
                typedef WT T;                                                               \
                for (; i + L <= len; i += L)                                                \
                    for (int l = 0; l < L; l++) {                                           \
                        const T acc = a[l], x = (T)LD_##S(row + (i + l) * SZ_##S);          \
                        a[l] = (T)(combine);                                                \
                    }                                                                       \
                for (int l = 0; i < len; i++, l++) {                                        \
                    const T acc = a[l], x = (T)LD_##S(row + i * SZ_##S);                    \
                    a[l] = (T)(combine);                                                    \
                }                                                                           \
                for (int w = L / 2; w > 0; w /= 2)                                          \
                    for (int l = 0; l < w; l++) {                                           \
                        const T acc = a[l], x = a[l + w];                                   \
                        a[l] = (T)(merge);                                                  \
                    }                                                                       \
            }                                                                               \
            memcpy(out_ + r * (int64_t)sizeof(WT), &a[0], sizeof(WT));                      \
        }                                                                                   \
    }                                                                                       \
    static void rc_##name##_##S##_##W(char *acc_, const char *in_, int64_t nrows,          \
                                      int64_t nc, int64_t rs) {                             \
        typedef TT WT;                                                                      \
        WT *restrict a = (WT *)(void *)acc_;                                                \
        for (int64_t c = 0; c < nc; c++) {                                                  \
            typedef WT T;                                                                   \
            a[c] = (T)(init);                                                               \
        }                                                                                   \
        int64_t r = 0;                                                                      \
        if (sizeof(NTT) != sizeof(TT))                                                      \
            for (; r + SH_RBLK <= nrows; r += SH_RBLK) {                                    \
                typedef NTT T;                                                              \
                T b[SH_RCOLS];                                                              \
                for (int64_t c = 0; c < nc; c++) b[c] = (T)(init);                          \
                for (int f = 0; f < SH_RBLK; f++) {                                         \
                    const char *restrict p_ = in_ + (r + f) * rs * SZ_##S;                  \
                    for (int64_t c = 0; c < nc; c++) {                                      \
                        const T acc = b[c], x = (T)LD_##S(p_ + c * SZ_##S);                 \
                        b[c] = (T)(combine);                                                \
                    }                                                                       \
                }                                                                           \
                for (int64_t c = 0; c < nc; c++) {                                          \
                    typedef WT T2;                                                          \
                    const T2 acc = a[c], x = (T2)b[c];                                      \
                    {                                                                       \
                        typedef T2 T;                                                       \
                        a[c] = (T)(merge);                                                  \
                    }                                                                       \
                }                                                                           \
            }                                                                               \
        for (; r < nrows; r++) {                                                            \
            typedef WT T;                                                                   \
            const char *restrict p_ = in_ + r * rs * SZ_##S;                                \
            for (int64_t c = 0; c < nc; c++) {                                              \
                const T acc = a[c], x = (T)LD_##S(p_ + c * SZ_##S);                         \
                a[c] = (T)(combine);                                                        \
            }                                                                               \
        }                                                                                   \
    }                                                                                       \
    static void rm_##name##_##S##_##W(char *acc_, const char *x_, int64_t n) {              \
        typedef TT T;                                                                       \
        T *a = (T *)(void *)acc_;                                                           \
        const T *b = (const T *)(const void *)x_;                                           \
        for (int64_t i = 0; i < n; i++) {                                                   \
            const T acc = a[i], x = b[i];                                                   \
            a[i] = (T)(merge);                                                              \
        }                                                                                   \
    }
#define SH_RPAIRS_SH_NUMERIC(M, ...)                                                        \
    M(u8, uint8_t, 0, uint8_t, __VA_ARGS__) M(u8, int64_t, 1, int64_t, __VA_ARGS__)         \
    M(i8, int8_t, 0, int8_t, __VA_ARGS__) M(i8, int64_t, 1, int64_t, __VA_ARGS__)           \
    M(i16, int16_t, 0, int16_t, __VA_ARGS__) M(i16, int64_t, 1, int64_t, __VA_ARGS__)       \
    M(i32, int32_t, 0, int32_t, __VA_ARGS__) M(i32, int64_t, 1, int64_t, __VA_ARGS__)       \
    M(i64, int64_t, 0, int64_t, __VA_ARGS__) M(i64, int64_t, 1, int64_t, __VA_ARGS__)       \
    M(f16, float, 0, float, __VA_ARGS__) M(f16, double, 1, float, __VA_ARGS__)              \
    M(bf16, float, 0, float, __VA_ARGS__) M(bf16, double, 1, float, __VA_ARGS__)            \
    M(f32, float, 0, float, __VA_ARGS__) M(f32, double, 1, float, __VA_ARGS__)              \
    M(f64, double, 0, double, __VA_ARGS__) M(f64, double, 1, double, __VA_ARGS__)
#define SH_RPAIRS_SH_ALL(M, ...)                                                            \
    M(b8, bool, 0, bool, __VA_ARGS__) M(b8, int64_t, 1, int64_t, __VA_ARGS__)               \
    SH_RPAIRS_SH_NUMERIC(M, __VA_ARGS__)
#define SH_RENT(S, TT, W, NTT, name, ...)                                                         \
    [SI_##S][W] = {rr_##name##_##S##_##W, rc_##name##_##S##_##W, rm_##name##_##S##_##W},
#define SH_REDUCE(name, cls, init, combine, merge)                                          \
    SH_RPAIRS_##cls(SH_RK, name, init, combine, merge)
#include "../ops/ops.def"
const sh_red_kern SH_KCAT(sh_redtabs_, SH_KSUFFIX)[RED_COUNT][10][2] = {
#define SH_REDUCE(name, cls, ...) [RED_##name] = {SH_RPAIRS_##cls(SH_RENT, name, x)},
#include "../ops/ops.def"
};

/* argmax along rows or columns (max.dim, argmax): the first index of the largest value,
 * a NaN counting as larger than every number (the first NaN wins), compared in S's
 * compute type. rows: idx[r] (and vals[r] as S when vals is not NULL) for nrows
 * contiguous rows of len >= 1 elements: a vectorized max (NaN-aware) then a search for
 * its first position. cols: nc columns over nrows rows of stride rs elements, into
 * idx[nc] and val[nc] (T accumulators, T = S's compute type). */
#define SH_AK(S, TT, W)                                                                 \
    static void ar_##S(int64_t *idx, char *vals, const char *in_, int64_t nrows, int64_t len) { \
        typedef TT T;                                                                       \
        for (int64_t r = 0; r < nrows; r++) {                                               \
            const char *row = in_ + r * len * SZ_##S;                                       \
            T a[SH_RLANES(T)];                                                              \
            bool nan = false;                                                               \
            for (int l = 0; l < SH_RLANES(T); l++) a[l] = (T)LD_##S(row);                   \
            int64_t i = 0;                                                                  \
            for (; i + SH_RLANES(T) <= len; i += SH_RLANES(T))                              \
                for (int l = 0; l < SH_RLANES(T); l++) {                                    \
                    const T x = (T)LD_##S(row + (i + l) * SZ_##S);                          \
                    a[l] = (x > a[l] || x != x) ? x : a[l];                                 \
                }                                                                           \
            for (int l = 0; i < len; i++, l++) {                                            \
                const T x = (T)LD_##S(row + i * SZ_##S);                                    \
                a[l] = (x > a[l] || x != x) ? x : a[l];                                     \
            }                                                                               \
            T m = a[0];                                                                     \
            for (int l = 1; l < SH_RLANES(T); l++) m = (a[l] > m || a[l] != a[l]) ? a[l] : m; \
            nan = m != m;                                                                   \
            int64_t best = 0;                                                               \
            for (i = 0; i < len; i++) {                                                     \
                const T x = (T)LD_##S(row + i * SZ_##S);                                    \
                if (nan ? x != x : x == m) { best = i; break; }                             \
            }                                                                               \
            idx[r] = best;                                                                  \
            if (vals) memcpy(vals + r * SZ_##S, row + best * SZ_##S, SZ_##S);               \
        }                                                                                   \
    }                                                                                       \
    static void ac_##S(int64_t *restrict idx, char *val_, const char *in_, int64_t nrows,  \
                       int64_t nc, int64_t rs) {                                            \
        typedef TT T;                                                                       \
        T *restrict v = (T *)(void *)val_;                                                  \
        for (int64_t c = 0; c < nc; c++) {                                                  \
            v[c] = (T)LD_##S(in_ + c * SZ_##S);                                             \
            idx[c] = 0;                                                                     \
        }                                                                                   \
        for (int64_t r = 1; r < nrows; r++) {                                               \
            const char *restrict p_ = in_ + r * rs * SZ_##S;                                \
            for (int64_t c = 0; c < nc; c++) {                                              \
                const T x = (T)LD_##S(p_ + c * SZ_##S);                                     \
                bool take = x > v[c] || (x != x && v[c] == v[c]);                           \
                v[c] = take ? x : v[c];                                                     \
                idx[c] = take ? r : idx[c];                                                 \
            }                                                                               \
        }                                                                                   \
    }
#define SH_APAIRS(M)                                                                        \
    M(b8, bool, 0) M(u8, uint8_t, 0) M(i8, int8_t, 0) M(i16, int16_t, 0) M(i32, int32_t, 0) \
    M(i64, int64_t, 0) M(f16, float, 0) M(bf16, float, 0) M(f32, float, 0) M(f64, double, 0)
SH_APAIRS(SH_AK)
#define SH_AENT(S, TT, W) [SI_##S] = {ar_##S, ac_##S},
const sh_argmax_kern SH_KCAT(sh_argtabs_, SH_KSUFFIX)[10] = {SH_APAIRS(SH_AENT)};

/* softmax / log_softmax of one contiguous line of doubles, in place (computed in double;
 * a NaN anywhere makes the line NaN, as max and exp propagate it). The max and the sum
 * keep 32 lanes; exp is SLEEF's (vectorized in the v3/v4 builds, runtime/cpu/vecmath.c). */
static void sm_line(double *x, int64_t n, int logsm) {
    enum { L = 32, CH = 256 };
    double a[L], t[CH];
    for (int l = 0; l < L; l++) a[l] = -INFINITY;
    int64_t i = 0;
    for (; i + L <= n; i += L)
        for (int l = 0; l < L; l++) a[l] = (x[i + l] > a[l] || x[i + l] != x[i + l]) ? x[i + l] : a[l];
    for (int l = 0; i < n; i++, l++) a[l] = (x[i] > a[l] || x[i] != x[i]) ? x[i] : a[l];
    double m = a[0];
    for (int l = 1; l < L; l++) m = (a[l] > m || a[l] != a[l]) ? a[l] : m;
    for (int l = 0; l < L; l++) a[l] = 0;
    for (i = 0; i < n; i += CH) { /* chunks: exp as a plain map, then the sum */
        int64_t c = n - i < CH ? n - i : CH;
        for (int64_t k = 0; k < c; k++) t[k] = SH_EXPD(x[i + k] - m);
        int64_t k = 0;
        for (; k + L <= c; k += L)
            for (int l = 0; l < L; l++) a[l] += t[k + l];
        for (int l = 0; k < c; k++, l++) a[l] += t[k];
        if (!logsm)
            for (k = 0; k < c; k++) x[i + k] = t[k];
    }
    for (int w = L / 2; w > 0; w /= 2)
        for (int l = 0; l < w; l++) a[l] += a[l + w];
    double s = a[0];
    if (logsm) {
        double ls = log(s);
        for (i = 0; i < n; i++) x[i] = x[i] - m - ls;
    } else {
        for (i = 0; i < n; i++) x[i] = x[i] / s;
    }
}
void (*const SH_KCAT(sh_softmax_line_, SH_KSUFFIX))(double *, int64_t, int) = sm_line;

/* 4. the tables of this build, by row id */
const sh_kernel *const SH_KCAT(sh_rowtabs_, SH_KSUFFIX)[OP_COUNT] = {
#define SH_UNARY(name, cls, ...) [OP_##name] = tab_##name,
#define SH_BINARY(name, cls, ...) [OP_##name] = tab_##name,
#define SH_TERNARY(name, cls, ...) [OP_##name] = tab_##name,
#include "../ops/ops.def"
};
#endif

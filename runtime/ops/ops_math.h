/* runtime/ops/ops_math.h: the C side of the sh_* math helpers used by runtime/ops/ops.def
 * (the CUDA side is the NVRTC prelude). Every helper is type-generic over the compute
 * types the CPU engine instantiates rows for: bool, uint8_t, int8_t, int16_t, int32_t,
 * int64_t, float, double (float16 and bfloat16 compute as float).
 *
 * Integer arithmetic wraps: the engine's kernels are built with -fwrapv, as PyTorch's
 * integer ops wrap in two's complement. */
#ifndef SHIMRT_OPS_MATH_H
#define SHIMRT_OPS_MATH_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/* exp, log and tanh: SLEEF's (runtime/cpu/vecmath.c, within 1 ulp as PyTorch's) in the
 * engine's kernels, declared SIMD-callable so that gcc vectorizes the loops calling them
 * (built with -fopenmp-simd and SHIMRT_VECMATH; `const` tells gcc the calls touch no
 * memory, which the vectorizer needs); elsewhere the C library's. */
#if defined(SHIMRT_VECMATH) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SH_VM_DECLARE(fn)                                                                          \
    _Pragma("omp declare simd notinbranch") __attribute__((const)) float shimrt_vm_##fn##f(float); \
    _Pragma("omp declare simd notinbranch") __attribute__((const)) double shimrt_vm_##fn(double);
SH_VM_DECLARE(exp)
SH_VM_DECLARE(log)
SH_VM_DECLARE(tanh)
#define SH_EXPF shimrt_vm_expf
#define SH_EXPD shimrt_vm_exp
#define SH_LOGF shimrt_vm_logf
#define SH_LOGD shimrt_vm_log
#define SH_TANHF shimrt_vm_tanhf
#define SH_TANHD shimrt_vm_tanh
#else
#define SH_EXPF expf
#define SH_EXPD exp
#define SH_LOGF logf
#define SH_LOGD log
#define SH_TANHF tanhf
#define SH_TANHD tanh
#endif

static inline float sh_rsqrtf_(float v) { return 1.0f / sqrtf(v); }
static inline double sh_rsqrt_(double v) { return 1.0 / sqrt(v); }
static inline float sh_sigmoidf_(float v) { return 1.0f / (1.0f + SH_EXPF(-v)); }
static inline double sh_sigmoid_(double v) { return 1.0 / (1.0 + SH_EXPD(-v)); }
static inline int64_t sh_absi_(int64_t v) { return v < 0 ? (int64_t)(0u - (uint64_t)v) : v; }
static inline int sh_isnanf_(float v) { return isnan(v); }
static inline int sh_isnand_(double v) { return isnan(v); }
static inline int sh_isnani_(int64_t v) {
    (void)v;
    return 0;
}

/* PyTorch's integer power: by squaring (wrapping); a negative exponent gives 1 for base 1,
 * +-1 for base -1, 0 otherwise (the engine's pow refuses the other negative exponents
 * before; pow.Tensor_Tensor in cpu/misc.c takes the 0) */
static inline int64_t sh_powi_(int64_t b, int64_t e) {
    if (e < 0) return b == 1 ? 1 : b == -1 ? ((e & 1) ? -1 : 1) : 0;
    uint64_t r = 1, x = (uint64_t)b;
    while (e) {
        if (e & 1) r *= x;
        x *= x;
        e >>= 1;
    }
    return (int64_t)r;
}
/* PyTorch's pow for floating types: exponent 2, 3 and -2 as products (and 1 / b * b), 0.5
 * as sqrt, -0.5 as rsqrt, -1 as reciprocal (its sqrt/rsqrt/reciprocal kernels: sqrt(-0) is
 * -0, rsqrt(-0) -inf, rsqrt(-inf) NaN where pow gives +0, +inf, 0), else pow */
#define SH_POW_F(NAME, T, SQRT, POW)                                                               \
    static inline T NAME(T b, T e) {                                                               \
        return e == (T)2      ? b * b                                                              \
               : e == (T)3    ? b * b * b                                                          \
               : e == (T)0.5  ? SQRT(b)                                                            \
               : e == (T)-0.5 ? (T)1 / SQRT(b)                                                     \
               : e == (T)-1   ? (T)1 / b                                                           \
               : e == (T)-2   ? (T)1 / (b * b)                                                     \
                              : POW(b, e);                                                           \
    }
SH_POW_F(sh_powf_, float, sqrtf, powf)
SH_POW_F(sh_powd_, double, sqrt, pow)

/* PyTorch's div_floor for floating types (c10/util/generic_math.h semantics) */
#define SH_FLOORDIV_F(NAME, T, FMOD, FLOOR, COPYSIGN)                                              \
    static inline T NAME(T a, T b) {                                                               \
        if (b == 0) return a / b;                                                                  \
        T mod = FMOD(a, b);                                                                        \
        T div = (a - mod) / b;                                                                     \
        if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;                                            \
        T fd;                                                                                      \
        if (div != 0) {                                                                            \
            fd = FLOOR(div);                                                                       \
            if (div - fd > (T)0.5) fd += 1;                                                        \
        } else {                                                                                   \
            fd = COPYSIGN((T)0, a / b);                                                            \
        }                                                                                          \
        return fd;                                                                                 \
    }
SH_FLOORDIV_F(sh_floordivf_, float, fmodf, floorf, copysignf)
SH_FLOORDIV_F(sh_floordivd_, double, fmod, floor, copysign)
/* integers: the caller refused a zero divisor; INT64_MIN / -1 wraps */
static inline int64_t sh_floordivi_(int64_t a, int64_t b) {
    if (b == -1) return (int64_t)(0u - (uint64_t)a);
    if (b == 0) return 0;
    int64_t q = a / b, r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}

#define SH_GEN_F(v, F, D, I) _Generic((v), float : F, double : D, default : I)

#define sh_exp(v) SH_GEN_F((v), SH_EXPF, SH_EXPD, SH_EXPD)(v)
#define sh_log(v) SH_GEN_F((v), SH_LOGF, SH_LOGD, SH_LOGD)(v)
#define sh_sqrt(v) SH_GEN_F((v), sqrtf, sqrt, sqrt)(v)
#define sh_rsqrt(v) SH_GEN_F((v), sh_rsqrtf_, sh_rsqrt_, sh_rsqrt_)(v)
#define sh_tanh(v) SH_GEN_F((v), SH_TANHF, SH_TANHD, SH_TANHD)(v)
#define sh_sigmoid(v) SH_GEN_F((v), sh_sigmoidf_, sh_sigmoid_, sh_sigmoid_)(v)
#define sh_floor(v) SH_GEN_F((v), floorf, floor, floor)(v)
#define sh_abs(v) SH_GEN_F((v), fabsf, fabs, sh_absi_)(v)
#define sh_isnan(v) SH_GEN_F((v), sh_isnanf_, sh_isnand_, sh_isnani_)(v)
#define sh_pow(x, e) SH_GEN_F((x), sh_powf_, sh_powd_, sh_powi_)((x), (e))
#define sh_floordiv(a, b) SH_GEN_F((a), sh_floordivf_, sh_floordivd_, sh_floordivi_)((a), (b))
/* NaN in x propagates (x < lo is false for a NaN x) */
#define sh_max(x, y) ((x) < (y) ? (y) : (x))
#define sh_min(x, y) ((x) > (y) ? (y) : (x))
#define sh_fma(x, y, z) SH_GEN_F((z), fmaf, fma, sh_fmai_)((x), (y), (z))
static inline int64_t sh_fmai_(int64_t x, int64_t y, int64_t z) {
    return (int64_t)((uint64_t)x * (uint64_t)y + (uint64_t)z);
}
#define SH_BITS_(a) ((int64_t)sizeof(a) * 8)
#define sh_shl(a, b)                                                                               \
    ((b) < 0 || (int64_t)(b) >= SH_BITS_(a) ? 0 : (unsigned long long)(a) << (int64_t)(b))
#define sh_shr(a, b)                                                                               \
    ((b) < 0 || (int64_t)(b) >= SH_BITS_(a) ? ((a) < 0 ? -1 : 0) : (a) >> (int64_t)(b))

#define sh_lowest(T)                                                                               \
    _Generic((T)0, float                                                                           \
             : -INFINITY, double                                                                   \
             : -INFINITY, bool                                                                     \
             : false, uint8_t : 0, int8_t                                                          \
             : INT8_MIN, int16_t                                                                   \
             : INT16_MIN, int32_t                                                                  \
             : INT32_MIN, int64_t                                                                  \
             : INT64_MIN)
#define sh_highest(T)                                                                              \
    _Generic((T)0, float                                                                           \
             : INFINITY, double                                                                    \
             : INFINITY, bool                                                                      \
             : true, uint8_t                                                                       \
             : UINT8_MAX, int8_t                                                                   \
             : INT8_MAX, int16_t                                                                   \
             : INT16_MAX, int32_t                                                                  \
             : INT32_MAX, int64_t                                                                  \
             : INT64_MAX)

#endif

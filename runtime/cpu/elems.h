/* runtime/cpu/elems.h: element helpers shared by CPU kernels (segment.c, histogram.c,
 * backward_bag.c, the pooling and grid-sampling kernels, multinomial.c). */
#ifndef SHIMRT_CPU_ELEMS_H
#define SHIMRT_CPU_ELEMS_H
#include "../core/internal.h"

/* v rounded to dt as one operation of PyTorch's scalar_t arithmetic rounds it: float32, and
 * float16 / bfloat16 through float (c10's Half and BFloat16 compute in float); v itself for
 * every other dtype. */
static inline double shimrt_e_round(int32_t dt, double v) {
    switch (dt) {
    case SHIMRT_FLOAT32: return (float)v;
    case SHIMRT_FLOAT16: return shimrt_half_to_float(shimrt_float_to_half((float)v));
    case SHIMRT_BFLOAT16: return shimrt_bf16_to_float(shimrt_float_to_bf16((float)v));
    default: return v;
    }
}

/* The bytes of one vector of PyTorch's CPU kernels on this machine (its CPU capability):
 * 64 with AVX-512 (F, BW, VL, DQ), else 32 (AVX2); lanes = bytes / element size. */
static inline int shimrt_e_pt_vec_bytes(void) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
        return 64;
#endif
    return 32;
}

/* t's elements in row-major order as doubles: a new array (free()), or NULL with the
 * thread's message set naming op. */
double *shimrt_e_read_f64(const char *op, AtenTensorHandle t);
/* the same as int64s */
int64_t *shimrt_e_read_i64(const char *op, AtenTensorHandle t);

/* segment_reduce's reductions: the index of reduce's name, or -1 with PyTorch's message set
 * (segment.c; its backward in backward_bag.c) */
enum { SR_MAX, SR_MIN, SR_SUM, SR_MEAN, SR_PROD };
int shimrt_e_seg_reduction(const char *op, const char *reduce);
#endif

/* runtime/cpu/vecmath.c: exp, log and tanh for the kernel engine, from SLEEF (libsleef-dev,
 * PyTorch's own vector math library; its u10 functions are within 1.0 ulp).
 *
 * The engine's kernels call shimrt_vm_expf & co. (runtime/ops/ops_math.h), declared
 * `omp declare simd`, so gcc vectorizes their loops and calls the vector variants under the
 * x86-64 vector-function ABI names (_ZGV<isa>N<lanes>v_<name>): b = SSE2, c = AVX,
 * d = AVX2, e = AVX-512. Each variant here forwards to SLEEF's explicit function for that
 * ISA, and the scalar one (loop remainders, the base build) to SLEEF's scalar function, so
 * every element gets SLEEF's result whatever its position.
 *
 * Why not libsleefgnuabi (SLEEF under glibc's libmvec names): two libraries defining
 * _ZGVdN8v_expf in one process interpose each other, and a process that also loads libmvec
 * (any gcc-vectorized program, an AOTInductor model .so) dies at load time ("Relink ... for
 * IFUNC symbol"). These names are libshimrt's own (hidden in libshimrt.so). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f")))
#define AVX2 __attribute__((target("avx2,fma")))
#define AVX __attribute__((target("avx")))
#define SSE2

/* SLEEF's explicit functions (declared here: sleef.h declares each ISA's only when the
 * translation unit is compiled for that ISA). */
#define SLEEF_DECLS(fn)                                                                            \
    float Sleef_##fn##f_u10(float);                                                                \
    double Sleef_##fn##_u10(double);                                                               \
    SSE2 __m128 Sleef_##fn##f4_u10sse2(__m128);                                                    \
    AVX __m256 Sleef_##fn##f8_u10avx(__m256);                                                      \
    AVX2 __m256 Sleef_##fn##f8_u10avx2(__m256);                                                    \
    AVX512 __m512 Sleef_##fn##f16_u10avx512f(__m512);                                              \
    SSE2 __m128d Sleef_##fn##d2_u10sse2(__m128d);                                                  \
    AVX __m256d Sleef_##fn##d4_u10avx(__m256d);                                                    \
    AVX2 __m256d Sleef_##fn##d4_u10avx2(__m256d);                                                  \
    AVX512 __m512d Sleef_##fn##d8_u10avx512f(__m512d);

/* The scalar function and its four vector variants, float and double. */
#define VM_DEFS(fn)                                                                                \
    float shimrt_vm_##fn##f(float x) { return Sleef_##fn##f_u10(x); }                              \
    double shimrt_vm_##fn(double x) { return Sleef_##fn##_u10(x); }                                \
    SSE2 __m128 _ZGVbN4v_shimrt_vm_##fn##f(__m128 x) { return Sleef_##fn##f4_u10sse2(x); }         \
    AVX __m256 _ZGVcN8v_shimrt_vm_##fn##f(__m256 x) { return Sleef_##fn##f8_u10avx(x); }           \
    AVX2 __m256 _ZGVdN8v_shimrt_vm_##fn##f(__m256 x) { return Sleef_##fn##f8_u10avx2(x); }         \
    AVX512 __m512 _ZGVeN16v_shimrt_vm_##fn##f(__m512 x) { return Sleef_##fn##f16_u10avx512f(x); }  \
    SSE2 __m128d _ZGVbN2v_shimrt_vm_##fn(__m128d x) { return Sleef_##fn##d2_u10sse2(x); }          \
    AVX __m256d _ZGVcN4v_shimrt_vm_##fn(__m256d x) { return Sleef_##fn##d4_u10avx(x); }            \
    AVX2 __m256d _ZGVdN4v_shimrt_vm_##fn(__m256d x) { return Sleef_##fn##d4_u10avx2(x); }          \
    AVX512 __m512d _ZGVeN8v_shimrt_vm_##fn(__m512d x) { return Sleef_##fn##d8_u10avx512f(x); }

#define VM_ALL(X) X(exp) X(log) X(tanh)
VM_ALL(SLEEF_DECLS)
/* Each definition is preceded by its own declaration (-Wmissing-prototypes hygiene). */
#define VM_PROTO(fn)                                                                               \
    float shimrt_vm_##fn##f(float);                                                                \
    double shimrt_vm_##fn(double);                                                                 \
    SSE2 __m128 _ZGVbN4v_shimrt_vm_##fn##f(__m128);                                                \
    AVX __m256 _ZGVcN8v_shimrt_vm_##fn##f(__m256);                                                 \
    AVX2 __m256 _ZGVdN8v_shimrt_vm_##fn##f(__m256);                                                \
    AVX512 __m512 _ZGVeN16v_shimrt_vm_##fn##f(__m512);                                             \
    SSE2 __m128d _ZGVbN2v_shimrt_vm_##fn(__m128d);                                                 \
    AVX __m256d _ZGVcN4v_shimrt_vm_##fn(__m256d);                                                  \
    AVX2 __m256d _ZGVdN4v_shimrt_vm_##fn(__m256d);                                                 \
    AVX512 __m512d _ZGVeN8v_shimrt_vm_##fn(__m512d);
VM_ALL(VM_PROTO)
VM_ALL(VM_DEFS)
#else
/* Other targets: the C library's functions (the engine's kernels call them directly). */
typedef int shimrt_vecmath_unused;
#endif

/* runtime/cpu/fft_double.h: the C side of runtime/cpu/fft_double.cc (private to cpu/): a
 * 1-d complex FFT in double precision on kissfft's C++ template kissfft<double>
 * (/usr/include/kissfft/kissfft.hh, libkissfft-dev, BSD-3-Clause), the only double-precision
 * kissfft Debian ships. No C++ exception leaves these functions. */
#ifndef SHIMRT_CPU_FFT_DOUBLE_H
#define SHIMRT_CPU_FFT_DOUBLE_H
#include <stdint.h>

#ifdef __cplusplus
#define SHIMRT_FFTD_NOEXCEPT noexcept
extern "C" {
#else
#define SHIMRT_FFTD_NOEXCEPT
#endif

/* A plan for transforms of n points (n >= 1), forward (exponent sign -1) or inverse (+1,
 * unscaled), as kiss_fft_alloc's. NULL when out of memory or n < 1. The caller owns it and
 * frees it with shimrt_fftd_free (NULL is a no-op). */
typedef struct shimrt_fftd shimrt_fftd;
shimrt_fftd *shimrt_fftd_new(int64_t n, int inverse) SHIMRT_FFTD_NOEXCEPT;
/* A copy of plan p (NULL when out of memory), owned by the caller. A plan keeps scratch space
 * that a transform writes, so one plan must not run on two threads at once: each thread runs
 * its own copy. */
shimrt_fftd *shimrt_fftd_clone(const shimrt_fftd *p) SHIMRT_FFTD_NOEXCEPT;
void shimrt_fftd_free(shimrt_fftd *p) SHIMRT_FFTD_NOEXCEPT;
/* out[k] = sum_j in[j] e^(-+2 pi i jk/n) for the n points of the plan, complex numbers as
 * (re, im) pairs of doubles (C's double _Complex layout); in and out must not overlap.
 * Returns 0, or -1 when out of memory (out is then unspecified). */
int shimrt_fftd_run(shimrt_fftd *p, const void *in, void *out) SHIMRT_FFTD_NOEXCEPT;

#ifdef __cplusplus
}
#endif
#endif

// runtime/cpu/fft_double.cc: float64/complex128 FFT lines for runtime/cpu/fft.c.
//
// Why C++ here: Debian's libkissfft-dev builds only kissfft's float C library
// (libkissfft-float); its one double-precision kissfft is the header-only C++ template
// kissfft<T> (/usr/include/kissfft/kissfft.hh, the same BSD-3-Clause library). This file
// instantiates it for double behind the C functions of fft_double.h. As at the runtime's
// other C++ boundary (runtime/core/cxx_boundary.cc), no exception crosses into C: every
// function is noexcept and catches everything (std::bad_alloc from the template's vectors),
// answering NULL or -1 instead.
#include <complex>
#include <cstdint>
#include <new>

#include <kissfft/kissfft.hh>

#include "fft_double.h"

struct shimrt_fftd {
    kissfft<double> k;
    shimrt_fftd(int64_t n, bool inverse) : k((std::size_t)n, inverse) {}
};

extern "C" {

shimrt_fftd *shimrt_fftd_new(int64_t n, int inverse) noexcept {
    if (n < 1) return nullptr;
    try {
        return new shimrt_fftd(n, inverse != 0);
    } catch (...) {
        return nullptr;
    }
}

shimrt_fftd *shimrt_fftd_clone(const shimrt_fftd *p) noexcept {
    if (!p) return nullptr;
    try {
        return new shimrt_fftd(*p);
    } catch (...) {
        return nullptr;
    }
}

void shimrt_fftd_free(shimrt_fftd *p) noexcept { delete p; }

int shimrt_fftd_run(shimrt_fftd *p, const void *in, void *out) noexcept {
    try {
        // C's double _Complex and std::complex<double> share their layout (two doubles)
        p->k.transform(static_cast<const std::complex<double> *>(in),
                       static_cast<std::complex<double> *>(out));
        return 0;
    } catch (...) {
        return -1;
    }
}

} // extern "C"

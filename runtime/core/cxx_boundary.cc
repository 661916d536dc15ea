// runtime/core/cxx_boundary.cc: the runtime's C++ boundary with extensions.
//
// Why C++ here: a stable-ABI extension is C++, and PyTorch's stable headers report errors
// by throwing (STD_TORCH_CHECK, TORCH_ERROR_CODE_CHECK, AOTI_TORCH_CHECK). libtorch catches
// those at its C boundary and returns AOTI_TORCH_FAILURE with what() as the message. C
// cannot catch an exception, and letting one unwind through the C dispatcher would skip its
// cleanup or terminate the process. So every boxed kernel is called through
// shimrt_cxx_call_kernel below, which catches everything; torch_parallel_for's bodies (an
// extension's lambdas) go through shimrt_cxx_call_range the same way. The same file provides the
// StableIValue cells with C++ new/delete, because extensions built for PyTorch < 2.13
// allocate optional cells with `new StableIValue` and free them with `delete`, while newer
// ones call torch_new_stable_ivalue/torch_delete_stable_ivalue: with one allocator for all
// four, a cell made either way may be freed either way. aoti_torch_check throws, as
// libtorch's does. The runtime's only other C++ is runtime/cpu/fft_double.cc (kissfft's
// double-precision template behind C functions).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include "cxx_boundary.h"

/* Runs f; a C++ exception it throws stops here: its what() (or a fixed text) goes into msg
 * and 1 is returned, else 0. */
template <typename F> static int guarded(F &&f, char *msg, size_t cap) {
    try {
        f();
        return 0;
    } catch (const std::exception &e) {
        std::snprintf(msg, cap, "%s", e.what());
    } catch (...) {
        std::snprintf(msg, cap, "%s", "unknown C++ exception (not derived from std::exception)");
    }
    return 1;
}

extern "C" {

int shimrt_cxx_call_kernel(void (*fn)(uint64_t *, uint64_t, uint64_t), uint64_t *stack,
                           uint64_t num_args, uint64_t num_outputs, char *msg, size_t cap) {
    return guarded([&] { fn(stack, num_args, num_outputs); }, msg, cap);
}

int shimrt_cxx_call_range(void (*fn)(int64_t, int64_t, void *), int64_t begin, int64_t end,
                          void *ctx, char *msg, size_t cap) {
    return guarded([&] { fn(begin, end, ctx); }, msg, cap);
}

uint64_t *shimrt_cxx_cell_new(void) { return new (std::nothrow) uint64_t(0); }

void shimrt_cxx_cell_delete(uint64_t *cell) { delete cell; }

__attribute__((visibility("default"))) void
aoti_torch_check(bool cond, const char *func, const char *file, uint32_t line, const char *msg) {
    if (cond) return;
    std::string text = msg ? msg : "";
    text += " (in ";
    text += func ? func : "?";
    text += " at ";
    text += file ? file : "?";
    text += ":" + std::to_string(line) + ")";
    throw std::runtime_error(text);
}

} // extern "C"

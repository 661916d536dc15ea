/* tests/runtime/contig.h: contiguous strides for aoti_torch_empty_strided in tests.
 * PyTorch requires strides (libtorch reads ndim of them; NULL crashes it), and so does
 * libshimrt now; the tests pass shimrt_test_strides(ndim, sizes). It returns a
 * thread-local buffer valid until the next call on the thread, or NULL when ndim is 0
 * or out of range or sizes is NULL (so that the runtime's own checks still speak).
 * Sizes below 1 count as 1. */
#ifndef SHIMRT_TEST_CONTIG_H
#define SHIMRT_TEST_CONTIG_H
#include <stddef.h>
#include <stdint.h>

static inline const int64_t *shimrt_test_strides(int64_t ndim, const int64_t *sizes) {
    static _Thread_local int64_t buf[64];
    if (ndim <= 0 || ndim > 64 || !sizes) return NULL;
    int64_t acc = 1;
    for (int64_t d = ndim - 1; d >= 0; d--) {
        buf[d] = acc;
        if (sizes[d] > 1 && acc <= INT64_MAX / sizes[d]) acc *= sizes[d];
    }
    return buf;
}
#endif

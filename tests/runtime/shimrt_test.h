/* tests/runtime/shimrt_test.h: shared assertions for the runtime's Criterion suites. */
#ifndef SHIMRT_TEST_H
#define SHIMRT_TEST_H
#include <criterion/criterion.h>
#include <string.h>

#include <shimrt/shimrt.h>

#include "contig.h"

#define OK(call)                                                                                   \
    cr_assert_eq((call), AOTI_TORCH_SUCCESS, "%s failed: %s", #call, torch_exception_get_what())
/* The call fails and the thread's message names func and contains what. */
#define FAILS(call, func, what)                                                                    \
    do {                                                                                           \
        cr_assert_eq((call), AOTI_TORCH_FAILURE, "%s should fail", #call);                         \
        const char *m_ = torch_exception_get_what();                                               \
        cr_assert(strstr(m_, func) == m_, "message '%s' does not start with %s", m_, func);        \
        cr_assert(strstr(m_, what) != NULL, "message '%s' lacks '%s'", m_, what);                  \
        cr_assert_str_eq(torch_exception_get_what_without_backtrace(), m_);                        \
    } while (0)

/* The message of the thread's last failure contains `needle`. */
#define HAS(needle)                                                                                \
    cr_assert(strstr(torch_exception_get_what(), needle) != NULL, "message '%s' lacks '%s'",       \
              torch_exception_get_what(), needle)

/* Every object kind the runtime counts is back to zero: the stack conventions free each
 * exactly once (a double free fails on the freed handle's check, a leak here). Call it at
 * the end of a test body (Criterion ignores failures in teardown hooks). */
static inline void no_leaks(void) {
    static const char *const kinds[] = {"tensor", "storage", "list",   "string",
                                        "scalar", "cell",    "complex"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        int64_t n = -1;
        OK(shimrt_live_objects(kinds[i], &n));
        cr_assert_eq(n, 0, "%lld %s object(s) left alive", (long long)n, kinds[i]);
    }
}

static inline AtenTensorHandle make_f32(int64_t ndim, const int64_t *sizes) {
    AtenTensorHandle t = NULL;
    OK(aoti_torch_empty_strided(ndim, sizes, shimrt_test_strides(ndim, sizes),
                                aoti_torch_dtype_float32(), aoti_torch_device_type_cpu(), 0, &t));
    return t;
}
#endif

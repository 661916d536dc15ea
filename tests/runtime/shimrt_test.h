/* tests/runtime/shimrt_test.h: shared assertions for the runtime's Criterion suites. */
#ifndef SHIMRT_TEST_H
#define SHIMRT_TEST_H
#include <criterion/criterion.h>
#include <string.h>

#include <shimrt/shimrt.h>

#define OK(call) cr_assert_eq((call), AOTI_TORCH_SUCCESS, "%s failed: %s", #call, torch_exception_get_what())
/* The call fails and the thread's message names func and contains what. */
#define FAILS(call, func, what)                                                              \
    do {                                                                                     \
        cr_assert_eq((call), AOTI_TORCH_FAILURE, "%s should fail", #call);                   \
        const char *m_ = torch_exception_get_what();                                         \
        cr_assert(strstr(m_, func) == m_, "message '%s' does not start with %s", m_, func);   \
        cr_assert(strstr(m_, what) != NULL, "message '%s' lacks '%s'", m_, what);            \
        cr_assert_str_eq(torch_exception_get_what_without_backtrace(), m_);                   \
    } while (0)

static inline AtenTensorHandle make_f32(int64_t ndim, const int64_t *sizes) {
    AtenTensorHandle t = NULL;
    OK(aoti_torch_empty_strided(ndim, sizes, NULL, aoti_torch_dtype_float32(),
                                aoti_torch_device_type_cpu(), 0, &t));
    return t;
}
#endif

/* tests/runtime/sv.h: dispatcher stack values for the suites that call ops through the
 * dispatcher: a Scalar of each kind (a Python int, float or bool) and a new reference to a
 * tensor, each an owning value the call consumes. Include it after shimrt_test.h or
 * test_e2e.h (it uses their OK). */
#ifndef SHIMRT_TEST_SV_H
#define SHIMRT_TEST_SV_H
#include <stdbool.h>
#include <stdint.h>

#include <shimrt/shimrt.h>

static inline StableIValue sv_int(int64_t v) {
    ScalarHandle h = NULL;
    OK(torch_new_scalar_int(v, &h));
    return siv_from_scalar(h);
}
static inline StableIValue sv_double(double v) {
    ScalarHandle h = NULL;
    OK(torch_new_scalar_double(v, &h));
    return siv_from_scalar(h);
}
static inline StableIValue sv_bool(bool v) {
    ScalarHandle h = NULL;
    OK(torch_new_scalar_bool(v, &h));
    return siv_from_scalar(h);
}
static inline StableIValue sv_tensor_ref(AtenTensorHandle t) {
    AtenTensorHandle r = NULL;
    OK(aoti_torch_new_tensor_handle(t, &r));
    return siv_from_tensor(r);
}
#endif

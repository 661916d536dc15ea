/* tests/runtime/sv.h: dispatcher stack values for the suites that call ops through the
 * dispatcher: a Scalar of each kind (a Python int, float or bool) and a new reference to a
 * tensor, each an owning value the call consumes. Include it after shimrt_test.h or
 * test_e2e.h (it uses their OK). */
#ifndef SHIMRT_TEST_SV_H
#define SHIMRT_TEST_SV_H
#include <stdbool.h>
#include <stdint.h>

#include <shimrt/shimrt.h>

#define SHIMRT_TEST_SV_SCALAR(name, T, make)                                                       \
    static inline StableIValue name(T v) {                                                         \
        ScalarHandle h = NULL;                                                                     \
        OK(make(v, &h));                                                                           \
        return siv_from_scalar(h);                                                                 \
    }
SHIMRT_TEST_SV_SCALAR(sv_int, int64_t, torch_new_scalar_int)
SHIMRT_TEST_SV_SCALAR(sv_double, double, torch_new_scalar_double)
SHIMRT_TEST_SV_SCALAR(sv_bool, bool, torch_new_scalar_bool)
static inline StableIValue sv_tensor_ref(AtenTensorHandle t) {
    AtenTensorHandle r = NULL;
    OK(aoti_torch_new_tensor_handle(t, &r));
    return siv_from_tensor(r);
}
#endif

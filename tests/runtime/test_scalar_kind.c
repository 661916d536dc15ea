/* tests/runtime/test_scalar_kind.c: a Scalar's kind reaches the kernel (shimrt/scalar.h).
 * Through a C shim a Scalar is a C double, a floating Scalar (PyTorch's
 * c10::Scalar(double)); through the dispatcher an int (or bool) ScalarHandle stays an int.
 * Every expected value below was measured on PyTorch 2.15 (torch.ops.aten.<op> with a
 * Python int, bool or float for the Scalar, which makes the same c10::Scalar kinds), e.g.
 * `torch.ops.aten.add.Scalar(torch.tensor([2**60+1, -3]), 3)` -> int64 [2**60+4, 0] and
 * `... , 3.0)` -> float32. The C-shim side is also compared with PyTorch's own C shims by
 * the differential fuzzer (tests/torch/diff_fuzz.sh). */
#include "shimrt/shim_support.h"
#include "test_e2e.h"
#include "sv.h"

#define U8 aoti_torch_dtype_uint8()

/* A 1-d CPU tensor of dtype dt holding the n elements (es bytes each) at v. */
static T tensor_of(int32_t dt, int64_t n, const void *v, size_t es) {
    T t = NULL;
    int64_t st = 1;
    OK(aoti_torch_empty_strided(1, &n, &st, dt, CPU, 0, &t));
    void *p = NULL;
    OK(aoti_torch_get_data_ptr(t, &p));
    memcpy(p, v, (size_t)n * es);
    return t;
}
static T tensor_i64(int64_t n, const int64_t *v) { return tensor_of(I64, n, v, sizeof *v); }
static T tensor_u8(int64_t n, const uint8_t *v) { return tensor_of(U8, n, v, sizeof *v); }
static T tensor_bool(int64_t n, const bool *v) { return tensor_of(BOOL, n, v, sizeof *v); }
static void *data(T t) {
    void *p = NULL;
    OK(aoti_torch_get_data_ptr(t, &p));
    return p;
}
static int32_t dtype(T t) {
    int32_t d = -1;
    OK(aoti_torch_get_dtype(t, &d));
    return d;
}

/* The dispatcher's failure message contains needle. */
static void fails_with(AOTITorchError e, const char *needle) {
    cr_assert_eq(e, AOTI_TORCH_FAILURE, "accepted; expected \"%s\"", needle);
    cr_assert(strstr(e2e_dispatch_msg, needle) || strstr(torch_exception_get_what(), needle),
              "message '%s' lacks '%s'",
              e2e_dispatch_msg[0] ? e2e_dispatch_msg : torch_exception_get_what(), needle);
}

Test(scalar_kind, add_result_type_and_alpha) {
    e2e_begin();
    const int64_t big = (INT64_C(1) << 60) + 1, v[2] = {big, -3};
    T i = tensor_i64(2, v), r = NULL;
    /* add.Scalar(i64, 3): int64, exact beyond 2^53 */
    stk s = {0};
    put_tensor(&s, i);
    put(&s, "Scalar", sv_int(3));
    put(&s, "Scalar", sv_int(1));
    OK(run(&s, "aten::add", "Scalar", RET_NEW, &r));
    cr_assert_eq(dtype(r), I64);
    cr_assert_eq(((int64_t *)data(r))[0], big + 3);
    cr_assert_eq(((int64_t *)data(r))[1], 0);
    OK(aoti_torch_delete_tensor_object(r));
    /* add.Scalar(i64, 3.0), through the dispatcher and through the C shim: float32 */
    stk s2 = {0};
    put_tensor(&s2, i);
    put(&s2, "Scalar", sv_double(3.0));
    put(&s2, "Scalar", sv_int(1));
    OK(run(&s2, "aten::add", "Scalar", RET_NEW, &r));
    cr_assert_eq(dtype(r), F32);
    OK(aoti_torch_delete_tensor_object(r));
    OK(aoti_torch_cpu_add_Scalar(i, 3.0, 1.0, &r));
    cr_assert_eq(dtype(r), F32);
    cr_assert_float_eq(((float *)data(r))[1], 0.0f, 0);
    OK(aoti_torch_delete_tensor_object(r));
    /* add.Tensor(i64, i64, alpha=2): int64 3 * (2^60 + 1), -9 */
    stk s3 = {0};
    put_tensor(&s3, i);
    put_tensor(&s3, i);
    put(&s3, "Scalar", sv_int(2));
    OK(run(&s3, "aten::add", "Tensor", RET_NEW, &r));
    cr_assert_eq(dtype(r), I64);
    cr_assert_eq(((int64_t *)data(r))[0], 3 * big);
    cr_assert_eq(((int64_t *)data(r))[1], -9);
    OK(aoti_torch_delete_tensor_object(r));
    /* a floating alpha (the C shim's always is), a bool alpha: refused */
    cr_assert_eq(aoti_torch_cpu_add_Tensor(i, i, 1.0, &r), AOTI_TORCH_FAILURE);
    cr_assert(strstr(torch_exception_get_what(), "alpha must not be a floating point number"), "%s",
              torch_exception_get_what());
    stk s4 = {0};
    put_tensor(&s4, i);
    put_tensor(&s4, i);
    put(&s4, "Scalar", sv_double(1.0));
    fails_with(run(&s4, "aten::add", "Tensor", RET_NEW, &r),
               "alpha must not be a floating point number");
    stk s5 = {0};
    put_tensor(&s5, i);
    put_tensor(&s5, i);
    put(&s5, "Scalar", sv_bool(true));
    fails_with(run(&s5, "aten::add", "Tensor", RET_NEW, &r),
               "Boolean alpha only supported for Boolean results.");
    /* add.Tensor(bool, bool, alpha=True): bool [True, False] */
    const bool bv[2] = {true, false};
    T b = tensor_bool(2, bv);
    stk s6 = {0};
    put_tensor(&s6, b);
    put_tensor(&s6, b);
    put(&s6, "Scalar", sv_bool(true));
    OK(run(&s6, "aten::add", "Tensor", RET_NEW, &r));
    cr_assert_eq(dtype(r), BOOL);
    cr_assert_eq(((bool *)data(r))[0], true);
    cr_assert_eq(((bool *)data(r))[1], false);
    OK(aoti_torch_delete_tensor_object(r));
    /* mul.Scalar(bool, 2): int64 [2, 0]; mul.Scalar(i64, 3) exact */
    stk s7 = {0};
    put_tensor(&s7, b);
    put(&s7, "Scalar", sv_int(2));
    OK(run(&s7, "aten::mul", "Scalar", RET_NEW, &r));
    cr_assert_eq(dtype(r), I64);
    cr_assert_eq(((int64_t *)data(r))[0], 2);
    cr_assert_eq(((int64_t *)data(r))[1], 0);
    OK(aoti_torch_delete_tensor_object(r));
    stk s8 = {0};
    put_tensor(&s8, i);
    put(&s8, "Scalar", sv_int(3));
    OK(run(&s8, "aten::mul", "Scalar", RET_NEW, &r));
    cr_assert_eq(((int64_t *)data(r))[0], 3 * big);
    OK(aoti_torch_delete_tensor_object(r));
    OK(aoti_torch_delete_tensor_object(i));
    OK(aoti_torch_delete_tensor_object(b));
    e2e_end();
}

Test(scalar_kind, pow_negative_integer_powers) {
    e2e_begin();
    const uint8_t v[2] = {1, 2};
    T u = tensor_u8(2, v), r = NULL;
    /* pow(u8, -1.0) through the C shim: float32 [1, 0.5] */
    OK(aoti_torch_cpu_pow_Tensor_Scalar(u, -1.0, &r));
    cr_assert_eq(dtype(r), F32);
    cr_assert_float_eq(((float *)data(r))[1], 0.5f, 0);
    OK(aoti_torch_delete_tensor_object(r));
    /* pow(u8, -1): refused; pow(u8, 2): uint8 [1, 4] */
    stk s = {0};
    put_tensor(&s, u);
    put(&s, "Scalar", sv_int(-1));
    fails_with(run(&s, "aten::pow", "Tensor_Scalar", RET_NEW, &r),
               "Integers to negative integer powers are not allowed.");
    stk s2 = {0};
    put_tensor(&s2, u);
    put(&s2, "Scalar", sv_int(2));
    OK(run(&s2, "aten::pow", "Tensor_Scalar", RET_NEW, &r));
    cr_assert_eq(dtype(r), U8);
    cr_assert_eq(((uint8_t *)data(r))[1], 4);
    OK(aoti_torch_delete_tensor_object(r));
    /* pow.Scalar(2, i64 [3, 4]): int64 [8, 16] */
    const int64_t e[2] = {3, 4};
    T ex = tensor_i64(2, e);
    stk s3 = {0};
    put(&s3, "Scalar", sv_int(2));
    put_tensor(&s3, ex);
    OK(run(&s3, "aten::pow", "Scalar", RET_NEW, &r));
    cr_assert_eq(dtype(r), I64);
    cr_assert_eq(((int64_t *)data(r))[1], 16);
    OK(aoti_torch_delete_tensor_object(r));
    OK(aoti_torch_delete_tensor_object(ex));
    OK(aoti_torch_delete_tensor_object(u));
    e2e_end();
}

Test(scalar_kind, fill_full_arange) {
    e2e_begin();
    const uint8_t v[2] = {1, 2};
    T u = tensor_u8(2, v), r = NULL;
    /* fill_(u8, -1.0) (the C shim): overflow; fill_(u8, -1) (an int): wraps to 255 */
    cr_assert_eq(aoti_torch_cpu_fill__Scalar(u, -1.0), AOTI_TORCH_FAILURE);
    cr_assert(strstr(torch_exception_get_what(), "value cannot be converted to type uint8_t"), "%s",
              torch_exception_get_what());
    stk s = {0};
    put_tensor(&s, u);
    put(&s, "Scalar", sv_int(-1));
    OK(run(&s, "aten::fill_", "Scalar", RET_ALIAS, NULL));
    cr_assert_eq(((uint8_t *)data(u))[0], 255);
    cr_assert_eq(((uint8_t *)data(u))[1], 255);
    OK(aoti_torch_delete_tensor_object(u));
    /* full([1], 2**62 + 1): int64, exact; full([2], True): bool; full([2], 2.0): float32 */
    const int64_t one = 1;
    const int64_t big = (INT64_C(1) << 62) + 1;
    StableListHandle l = NULL;
    stk s2 = {0};
    OK(torch_new_list_reserve_size(1, &l));
    OK(torch_list_push_back(l, siv_from_int(one)));
    put(&s2, "SymInt[]", siv_from_list(l));
    put(&s2, "Scalar", sv_int(big));
    for (int k = 0; k < 4; k++) put(&s2, NULL, siv_none());
    OK(run(&s2, "aten::full", "", RET_NEW, &r));
    cr_assert_eq(dtype(r), I64);
    cr_assert_eq(((int64_t *)data(r))[0], big);
    OK(aoti_torch_delete_tensor_object(r));
    stk s3 = {0};
    OK(torch_new_list_reserve_size(1, &l));
    OK(torch_list_push_back(l, siv_from_int(one)));
    put(&s3, "SymInt[]", siv_from_list(l));
    put(&s3, "Scalar", sv_bool(true));
    for (int k = 0; k < 4; k++) put(&s3, NULL, siv_none());
    OK(run(&s3, "aten::full", "", RET_NEW, &r));
    cr_assert_eq(dtype(r), BOOL);
    OK(aoti_torch_delete_tensor_object(r));
    /* arange(1, 7, 2) of ints: int64 [1, 3, 5]; through the C shim: float32 */
    stk s4 = {0};
    put(&s4, "Scalar", sv_int(1));
    put(&s4, "Scalar", sv_int(7));
    put(&s4, "Scalar", sv_int(2));
    for (int k = 0; k < 4; k++) put(&s4, NULL, siv_none());
    OK(run(&s4, "aten::arange", "start_step", RET_NEW, &r));
    cr_assert_eq(dtype(r), I64);
    cr_assert_eq(((int64_t *)data(r))[2], 5);
    OK(aoti_torch_delete_tensor_object(r));
    e2e_end();
}

/* The kind survives a Scalar's trip through the boxed kernel's entry: a kernel registered
 * for a schema of our own sees it (shimrt_box_scalar_value). */
Test(scalar_kind, box_keeps_the_kind) {
    e2e_begin();
    StableIValue st[4] = {sv_int(-7), sv_double(2.5), sv_bool(true), 0};
    shimrt_box b;
    static const unsigned char kinds[3] = {SHIMRT_KIND_SCALAR, SHIMRT_KIND_SCALAR,
                                           SHIMRT_KIND_SCALAR};
    OK(shimrt_box_begin(&b, "test", st, 3, 3, 0, 0, kinds));
    shimrt_scalar x = shimrt_box_scalar_value(&b, 0), y = shimrt_box_scalar_value(&b, 1),
                  z = shimrt_box_scalar_value(&b, 2);
    cr_assert_eq(x.kind, SHIMRT_SCALAR_KIND_INT);
    cr_assert_eq(x.i, -7);
    cr_assert_eq(y.kind, SHIMRT_SCALAR_KIND_FLOAT);
    cr_assert_float_eq(y.d, 2.5, 0);
    cr_assert_eq(z.kind, SHIMRT_SCALAR_KIND_BOOL);
    cr_assert_eq(z.i, 1);
    shimrt_box_release_args(&b);
    shimrt_box_finish(&b);
    e2e_end();
}

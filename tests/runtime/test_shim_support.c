/* tests/runtime/test_shim_support.c: shimrt/shim_support.h, the support of generated code.
 * The golden sample (tests/scripts/golden.sh) covers the common shapes end to end; this
 * suite covers every other argument and return form, and the failure paths: argument
 * checks and their messages, boxed unpacking of optionals, lists, strings, scalars and
 * devices with ownership (the sanitizer pass sees any leak or double free), packing for
 * dispatcher-routed shims, and all-or-nothing registration. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <shimrt/shim_support.h>

#include "contig.h"

#define MSG() torch_exception_get_what()

static AtenTensorHandle tensor1(float v) {
    int64_t size = 1;
    AtenTensorHandle t = NULL;
    cr_assert_eq(aoti_torch_empty_strided(1, &size, shimrt_test_strides(1, &size),
                                          aoti_torch_dtype_float32(), aoti_torch_device_type_cpu(),
                                          0, &t),
                 AOTI_TORCH_SUCCESS);
    float *d = NULL;
    aoti_torch_get_data_ptr(t, (void **)&d);
    d[0] = v;
    return t;
}
static float value1(AtenTensorHandle t) {
    float *d = NULL;
    aoti_torch_get_data_ptr(t, (void **)&d);
    return d[0];
}

/* ---- shim body checks ----------------------------------------------------------------- */
Test(shim_support, checks_name_function_and_argument) {
    AtenTensorHandle t = tensor1(1.f);
    cr_assert_eq(shimrt_check_tensor("f", "self", t), AOTI_TORCH_SUCCESS);
    cr_assert_eq(shimrt_check_tensor("f", "self", NULL), AOTI_TORCH_FAILURE);
    cr_assert_str_eq(MSG(), "f: argument 'self' is NULL");
    int64_t on_stack = 0;
    cr_assert_eq(shimrt_check_tensor("f", "other", (AtenTensorHandle)(void *)&on_stack),
                 AOTI_TORCH_FAILURE);
    cr_assert(strstr(MSG(), "f: argument 'other'") && strstr(MSG(), "not a tensor handle"));

    AtenTensorHandle none = NULL;
    cr_assert_eq(shimrt_check_opt_tensor("f", "w", NULL), AOTI_TORCH_SUCCESS);
    cr_assert_eq(shimrt_check_opt_tensor("f", "w", &none), AOTI_TORCH_SUCCESS);
    cr_assert_eq(shimrt_check_opt_tensor("f", "w", &t), AOTI_TORCH_SUCCESS);

    int64_t xs[2] = {1, 2};
    const int64_t *xp = xs, *nullp = NULL;
    cr_assert_eq(shimrt_check_list("f", "dim", NULL, 0), AOTI_TORCH_SUCCESS);
    cr_assert_eq(shimrt_check_list("f", "dim", NULL, 2), AOTI_TORCH_FAILURE);
    cr_assert_str_eq(MSG(), "f: argument 'dim' is NULL with length 2");
    cr_assert_eq(shimrt_check_list("f", "dim", xs, -1), AOTI_TORCH_FAILURE);
    cr_assert_str_eq(MSG(), "f: argument 'dim': negative length -1");
    cr_assert_eq(shimrt_check_opt_list("f", "dim", NULL, 5), AOTI_TORCH_SUCCESS);
    cr_assert_eq(shimrt_check_opt_list("f", "dim", (const void *const *)&xp, 2),
                 AOTI_TORCH_SUCCESS);
    cr_assert_eq(shimrt_check_opt_list("f", "dim", (const void *const *)&nullp, 1),
                 AOTI_TORCH_FAILURE);

    AtenTensorHandle list[3] = {t, t, NULL};
    cr_assert_eq(shimrt_check_tensor_list("f", "ts", list, 2), AOTI_TORCH_SUCCESS);
    cr_assert_eq(shimrt_check_tensor_list("f", "ts", list, 3), AOTI_TORCH_FAILURE);
    cr_assert_str_eq(MSG(), "f: argument 'ts[2]' is NULL");
    cr_assert_eq(shimrt_check_ret("f", "ret0", NULL), AOTI_TORCH_FAILURE);
    cr_assert_str_eq(MSG(), "f: return pointer 'ret0' is NULL");
    aoti_torch_delete_tensor_object(t);
}

Test(shim_support, set_error_may_quote_the_current_message) {
    shimrt_check_ret("inner", "ret0", NULL);
    cr_assert_eq(shimrt_set_error("outer", "while calling: %s", MSG()), AOTI_TORCH_FAILURE);
    cr_assert_str_eq(MSG(), "outer: while calling: inner: return pointer 'ret0' is NULL");
}

static AOTITorchError kernel_of_opt_list(const int64_t *x, int64_t len, int *kind) {
    *kind = x == NULL ? 0 : (len == 0 ? 1 : 2);
    return AOTI_TORCH_SUCCESS;
}
/* A shim body with an optional list, written as shimgen writes it. */
static AOTITorchError shim_opt_list(const int64_t **dim, int64_t dim_len_, int *kind) {
    SHIMRT_ARG_OPT_LIST(dim);
    return kernel_of_opt_list(SHIMRT_OPT_LIST(dim), SHIMRT_OPT_LIST_LEN(dim), kind);
}

Test(shim_support, optional_lists_keep_none_and_empty_apart) {
    int kind = -1;
    const int64_t *empty = NULL, one[1] = {3};
    const int64_t *onep = one;
    cr_assert_eq(shim_opt_list(NULL, 7, &kind), AOTI_TORCH_SUCCESS);
    cr_assert_eq(kind, 0); /* None */
    cr_assert_eq(shim_opt_list(&empty, 0, &kind), AOTI_TORCH_SUCCESS);
    cr_assert_eq(kind, 1); /* present, empty: a non-NULL pointer */
    cr_assert_eq(shim_opt_list(&onep, 1, &kind), AOTI_TORCH_SUCCESS);
    cr_assert_eq(kind, 2);
    cr_assert_eq(shim_opt_list(&empty, 3, &kind), AOTI_TORCH_FAILURE);
    cr_assert(strstr(MSG(), "shim_opt_list: argument 'dim' is NULL"));
}

Test(shim_support, optional_tensor_list_array) {
    AtenTensorHandle t = tensor1(2.f), none = NULL;
    const AtenTensorHandle *items[10];
    for (int k = 0; k < 10; k++) items[k] = (k % 3 == 0) ? NULL : (k % 3 == 1 ? &t : &none);
    shimrt_tensor_array arr;
    cr_assert_eq(shimrt_opt_tensor_list("f", "indices", items, 10, &arr), AOTI_TORCH_SUCCESS);
    for (int k = 0; k < 10; k++) cr_assert_eq(arr.items[k], k % 3 == 1 ? t : NULL);
    shimrt_tensor_array_free(&arr);
    int64_t junk = 0;
    AtenTensorHandle bad = (AtenTensorHandle)(void *)&junk;
    items[4] = &bad;
    cr_assert_eq(shimrt_opt_tensor_list("f", "indices", items, 10, &arr), AOTI_TORCH_FAILURE);
    cr_assert(strstr(MSG(), "argument 'indices[4]'"));
    shimrt_tensor_array_free(&arr); /* nothing to free: a no-op */
    shimrt_tensor_array_free(NULL);
    aoti_torch_delete_tensor_object(t);
}

/* ---- boxed wrapper with every other argument form ------------------------------------- *
 * shimtest::mix(Tensor? t, int[] l, str s, Scalar[] sc, Tensor?[] tl, Device d, int? o,
 *               Scalar a) -> (str, Scalar, Tensor, int)
 * The "shim" it calls checks every converted value and returns: whether s is "hello",
 * sum(l) + sum(sc) + a,
 * a new tensor holding t's value plus the number of present tensors in tl, and d's index. */
static AOTITorchError shim_mix(AtenTensorHandle *t, const int64_t *l, int64_t l_len_, const char *s,
                               const double *sc, int64_t sc_len_, const AtenTensorHandle **tl,
                               int64_t tl_len_, int32_t d, int32_t d_index_, int64_t *o,
                               shimrt_scalar a, const char **ret0, double *ret1,
                               AtenTensorHandle *ret2, int64_t *ret3) {
    SHIMRT_ARG_OPT_TENSOR(t);
    SHIMRT_ARG_LIST(l);
    SHIMRT_ARG_LIST(sc);
    if (o != NULL) return shimrt_set_error(__func__, "o must be None here");
    if (d != aoti_torch_device_type_cpu()) return shimrt_set_error(__func__, "bad device");
    double sum = a.d;
    for (int64_t k = 0; k < l_len_; k++) sum += (double)l[k];
    for (int64_t k = 0; k < sc_len_; k++) sum += sc[k];
    int present = 0;
    for (int64_t k = 0; k < tl_len_; k++) present += tl[k] != NULL;
    *ret0 = strcmp(s, "hello") == 0 ? "got hello" : "got something else"; /* static */
    *ret1 = sum;
    *ret2 = tensor1(value1(*t) + (float)present);
    *ret3 = d_index_;
    return AOTI_TORCH_SUCCESS;
}

static void boxed_mix(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    static const unsigned char arg_kinds[8] = {
        SHIMRT_KIND_OPT_TENSOR,  SHIMRT_KIND_INT_LIST,        SHIMRT_KIND_STR,
        SHIMRT_KIND_SCALAR_LIST, SHIMRT_KIND_OPT_TENSOR_LIST, SHIMRT_KIND_NONE,
        SHIMRT_KIND_OPT_INT,     SHIMRT_KIND_SCALAR};
    shimrt_box b;
    if (shimrt_box_begin(&b, "mix", stack, num_args, 8, num_outputs, 4, arg_kinds) !=
        AOTI_TORCH_SUCCESS)
        return;
    AtenTensorHandle t_v_ = NULL;
    AtenTensorHandle *t = shimrt_box_opt_tensor(&b, 0, &t_v_);
    int64_t l_len_ = 0;
    const int64_t *l = shimrt_box_int_list(&b, 1, &l_len_);
    const char *s = shimrt_box_str(&b, 2);
    int64_t sc_len_ = 0;
    const double *sc = shimrt_box_scalar_list(&b, 3, &sc_len_);
    int64_t tl_len_ = 0;
    const AtenTensorHandle **tl = shimrt_box_opt_tensor_list(&b, 4, &tl_len_);
    int32_t d_index_ = 0;
    int32_t d = shimrt_box_device(&b, 5, &d_index_);
    int64_t o_v_ = 0;
    int64_t *o = shimrt_box_opt_int(&b, 6, &o_v_);
    shimrt_scalar a = shimrt_box_scalar_value(&b, 7);
    const char *ret0 = NULL;
    double ret1 = 0;
    AtenTensorHandle ret2 = NULL;
    int64_t ret3 = 0;
    SHIMRT_BOX_CALL(&b, shim_mix(t, l, l_len_, s, sc, sc_len_, tl, tl_len_, d, d_index_, o, a,
                                 &ret0, &ret1, &ret2, &ret3));
    shimrt_box_release_args(&b);
    shimrt_box_push_str(&b, 0, ret0);
    shimrt_box_push_scalar(&b, 1, ret1);
    shimrt_box_push_tensor(&b, 2, ret2);
    shimrt_box_push_int(&b, 3, ret3);
    shimrt_box_finish(&b);
}

static const shimrt_def_entry mix_defs[1] = {
    {"mix(Tensor? t, int[] l, str s, Scalar[] sc, Tensor?[] tl, Device d, int? o, Scalar a) "
     "-> (str, Scalar, Tensor, int)",
     SHIMRT_TAG_BIT(CORE)},
};
static const shimrt_impl_entry mix_impls[1] = {{"mix", boxed_mix}};

static StableIValue opt(StableIValue v) {
    StableIValue out = 0;
    cr_assert_eq(siv_new_optional(v, &out), AOTI_TORCH_SUCCESS);
    return out;
}
static StableIValue scal(double d) {
    ScalarHandle s = NULL;
    cr_assert_eq(torch_new_scalar_double(d, &s), AOTI_TORCH_SUCCESS);
    return siv_from_scalar(s);
}
static StableIValue ref(AtenTensorHandle t) {
    AtenTensorHandle h = NULL;
    cr_assert_eq(aoti_torch_new_tensor_handle(t, &h), AOTI_TORCH_SUCCESS);
    return siv_from_tensor(h);
}

/* Fills the 8 arguments of mix; a is the last Scalar (an owned handle). */
static void mix_stack(StableIValue st[8], AtenTensorHandle t, StableIValue a) {
    StableListHandle l = NULL, sc = NULL, tl = NULL;
    StringHandle s = NULL;
    torch_new_list_reserve_size(2, &l);
    torch_list_push_back(l, siv_from_int(10));
    torch_list_push_back(l, siv_from_int(20));
    torch_new_string_handle("hello", 5, &s);
    torch_new_list_reserve_size(1, &sc);
    torch_list_push_back(sc, scal(0.5));
    torch_new_list_reserve_size(3, &tl);
    torch_list_push_back(tl, opt(ref(t)));
    torch_list_push_back(tl, siv_none());
    torch_list_push_back(tl, opt(ref(t)));
    st[0] = opt(ref(t));
    st[1] = siv_from_list(l);
    st[2] = siv_from_string(s);
    st[3] = siv_from_list(sc);
    st[4] = siv_from_list(tl);
    st[5] = siv_from_device(aoti_torch_device_type_cpu(), 3);
    st[6] = siv_none();
    st[7] = a;
}

Test(shim_support, boxed_wrapper_every_form_through_the_dispatcher) {
    TorchLibraryHandle def = NULL, impl = NULL;
    cr_assert_eq(shimrt_register_ops("shimtest", "CPU", __FILE__, __LINE__, mix_defs, 1, mix_impls,
                                     1, &def, &impl),
                 AOTI_TORCH_SUCCESS, "%s", MSG());
    AtenTensorHandle t = tensor1(5.f);
    StableIValue st[8];
    mix_stack(st, t, scal(0.25));
    cr_assert_eq(torch_call_dispatcher("shimtest::mix", "", st, TORCH_ABI_VERSION),
                 AOTI_TORCH_SUCCESS, "%s", MSG());
    const char *s = NULL;
    cr_assert_eq(torch_string_c_str(siv_to_string(st[0]), &s), AOTI_TORCH_SUCCESS);
    cr_assert_str_eq(s, "got hello");
    double sum = 0;
    cr_assert_eq(torch_scalar_to_double(siv_to_scalar(st[1]), &sum), AOTI_TORCH_SUCCESS);
    cr_assert_float_eq(sum, 30.75, 1e-12);
    cr_assert_float_eq(value1(siv_to_tensor(st[2])), 7.f, 1e-6);
    cr_assert_eq(siv_to_int(st[3]), 3);
    torch_delete_string(siv_to_string(st[0]));
    torch_delete_scalar(siv_to_scalar(st[1]));
    aoti_torch_delete_tensor_object(siv_to_tensor(st[2]));

    /* A complex Scalar cannot become the shim's double: the box fails, releases all
     * eight arguments (the leak check sees any left), pushes nothing, zeroes the stack. */
    ScalarHandle c = NULL;
    cr_assert_eq(torch_new_scalar_complex_double(1.0, 2.0, &c), AOTI_TORCH_SUCCESS);
    mix_stack(st, t, siv_from_scalar(c));
    cr_assert_eq(torch_call_dispatcher("shimtest::mix", "", st, TORCH_ABI_VERSION),
                 AOTI_TORCH_FAILURE);
    cr_assert(strstr(MSG(), "shimtest::mix"), "%s", MSG());
    for (int k = 0; k < 8; k++) cr_assert_eq(st[k], 0);

    /* A failing shim (o given) after a push of nothing: same cleanup. */
    mix_stack(st, t, scal(1.0));
    StableIValue seven = opt(siv_from_int(7));
    st[6] = seven;
    cr_assert_eq(torch_call_dispatcher("shimtest::mix", "", st, TORCH_ABI_VERSION),
                 AOTI_TORCH_FAILURE);
    cr_assert(strstr(MSG(), "shim_mix: o must be None here"), "%s", MSG());

    /* A direct call with the wrong counts: refused, the stack untouched. */
    StableIValue small[4] = {1, 2, 3, 4};
    boxed_mix(small, 3, 4);
    cr_assert(strstr(MSG(), "schema has 8 and 4"), "%s", MSG());
    cr_assert_eq(small[0], 1);

    aoti_torch_delete_tensor_object(t);
    aoti_torch_delete_library_object(impl);
    aoti_torch_delete_library_object(def);
}

/* ---- packing, as a dispatcher-routed shim does ----------------------------------------- */
static AOTITorchError routed_mix(const AtenTensorHandle *t, const int64_t *l, int64_t l_len_,
                                 const char *s, const AtenTensorHandle *const *tl, int64_t tl_len_,
                                 int64_t *ret3, double *ret1) {
    static shimrt_op_cache op;
    StableIValue stack[8];
    shimrt_pack p;
    SHIMRT_ARG_RET(ret3);
    double sc[1] = {1.5};
    shimrt_pack_begin(&p, __func__, stack, 8);
    shimrt_pack_opt_tensor(&p, "t", t);
    shimrt_pack_int_list(&p, "l", l, l_len_);
    shimrt_pack_str(&p, "s", s);
    shimrt_pack_float_list(&p, "sc", sc, 1); /* a float list where Scalar[] is due: */
    shimrt_pack_opt_tensor_list(&p, "tl", tl, tl_len_);
    shimrt_pack_device(&p, aoti_torch_device_type_cpu(), 1);
    shimrt_pack_opt_int(&p, NULL);
    shimrt_pack_scalar(&p, 2.0);
    SHIMRT_TRY(shimrt_pack_call(&p, &op, "shimtest::mix", ""));
    *ret3 = siv_to_int(stack[3]);
    shimrt_pop_discard(SHIMRT_KIND_STR, stack[0]);
    AOTITorchError e = shimrt_pop_scalar(__func__, stack[1], ret1);
    shimrt_pop_discard(SHIMRT_KIND_TENSOR, stack[2]);
    return e;
}

Test(shim_support, pack_and_call_through_cached_op) {
    TorchLibraryHandle def = NULL, impl = NULL;
    cr_assert_eq(shimrt_register_ops("shimtest", "CPU", __FILE__, __LINE__, mix_defs, 1, mix_impls,
                                     1, &def, &impl),
                 AOTI_TORCH_SUCCESS, "%s", MSG());
    AtenTensorHandle t = tensor1(1.f), none = NULL;
    int64_t l[3] = {1, 2, 3};
    const AtenTensorHandle *tl[2] = {&t, &none};
    int64_t idx = -1;
    double sum = 0;
    /* the float list in the Scalar[] slot makes the kernel's scalar read fail: the
     * dispatcher's message comes back prefixed with the shim's name, nothing leaks */
    cr_assert_eq(routed_mix(&t, l, 3, "x", tl, 2, &idx, &sum), AOTI_TORCH_FAILURE);
    cr_assert(strstr(MSG(), "routed_mix: "), "%s", MSG());
    /* bad arguments fail before the call, naming the argument */
    cr_assert_eq(routed_mix(&t, l, 3, NULL, tl, 2, &idx, &sum), AOTI_TORCH_FAILURE);
    cr_assert(strstr(MSG(), "routed_mix: argument 's' is NULL"), "%s", MSG());
    cr_assert_eq(routed_mix(&t, NULL, 3, "x", tl, 2, &idx, &sum), AOTI_TORCH_FAILURE);
    cr_assert(strstr(MSG(), "argument 'l' is NULL with length 3"), "%s", MSG());
    cr_assert_eq(routed_mix(&t, l, 3, "x", tl, 2, NULL, &sum), AOTI_TORCH_FAILURE);
    cr_assert(strstr(MSG(), "'ret3'"), "%s", MSG());
    aoti_torch_delete_tensor_object(t);
    aoti_torch_delete_library_object(impl);
    aoti_torch_delete_library_object(def);
    /* the op is gone: the cached handle now fails cleanly */
    t = tensor1(1.f);
    cr_assert_eq(routed_mix(&t, l, 3, "x", tl, 0, &idx, &sum), AOTI_TORCH_FAILURE);
    aoti_torch_delete_tensor_object(t);
}

/* ---- registration is all or nothing ------------------------------------------------------ */
static void noop_kernel(StableIValue *stack, uint64_t a, uint64_t b) {
    (void)stack, (void)a, (void)b;
}

Test(shim_support, registration_all_or_nothing) {
    static const shimrt_def_entry defs[2] = {
        {"good(Tensor x) -> Tensor", SHIMRT_TAG_BIT(POINTWISE) | (UINT64_C(1) << 63)},
        {"bad(Tensor x -> Tensor", 0},
    };
    static const shimrt_impl_entry impls[1] = {{"good", noop_kernel}};
    TorchLibraryHandle def = (TorchLibraryHandle)1, impl = (TorchLibraryHandle)1;
    cr_assert_eq(shimrt_register_ops("regtest", "CPU", "f.c", 1, defs, 2, impls, 1, &def, &impl),
                 AOTI_TORCH_FAILURE);
    cr_assert(strstr(MSG(), "shimrt_register_ops: namespace regtest: defining 'bad("), "%s", MSG());
    cr_assert_eq(def, (TorchLibraryHandle)1); /* untouched */
    ShimrtOpHandle op = NULL;
    cr_assert_eq(shimrt_op_find("regtest::good", "", &op), AOTI_TORCH_FAILURE);
    /* the good one alone registers, its unknown tag bit skipped; a second kernel for the
     * same key fails and leaves the first in place */
    def = impl = NULL;
    cr_assert_eq(shimrt_register_ops("regtest", "CPU", "f.c", 2, defs, 1, impls, 1, &def, &impl),
                 AOTI_TORCH_SUCCESS, "%s", MSG());
    TorchLibraryHandle impl2 = NULL;
    cr_assert_eq(shimrt_register_ops("regtest", "CPU", "f.c", 3, NULL, 0, impls, 1, NULL, &impl2),
                 AOTI_TORCH_FAILURE);
    cr_assert(strstr(MSG(), "registering CPU kernel 'good'"), "%s", MSG());
    cr_assert_eq(shimrt_op_find("regtest::good", "", &op), AOTI_TORCH_SUCCESS);
    cr_assert_eq(shimrt_register_ops(NULL, "CPU", "f.c", 4, NULL, 0, NULL, 0, NULL, &impl2),
                 AOTI_TORCH_FAILURE);
    aoti_torch_delete_library_object(impl);
    aoti_torch_delete_library_object(def);
}

/* ---- Tensor[] returns: push (boxed kernels) and pop (dispatcher-routed shims) -------- */
Test(shim_support, tensor_list_return_push_and_pop) {
    StableIValue stack[1] = {siv_from_int(7)};
    shimrt_box b;
    cr_assert_eq(shimrt_box_begin(&b, "split", stack, 1, 1, 1, 1, NULL), AOTI_TORCH_SUCCESS);
    AtenTensorHandle *items = malloc(2 * sizeof *items);
    cr_assert(items);
    items[0] = tensor1(1.5f), items[1] = tensor1(-2.0f);
    shimrt_box_release_args(&b);
    shimrt_box_push_tensor_list(&b, 0, items, 2); /* takes the array and both handles */
    shimrt_box_finish(&b);
    size_t n = 0;
    cr_assert_eq(torch_list_size(siv_to_list(stack[0]), &n), AOTI_TORCH_SUCCESS, "%s", MSG());
    cr_assert_eq(n, 2);
    AtenTensorHandle *got = NULL;
    int64_t len = -1;
    cr_assert_eq(shimrt_pop_tensor_list("pop", stack[0], &got, &len), AOTI_TORCH_SUCCESS, "%s",
                 MSG());
    cr_assert_eq(len, 2);
    cr_expect_float_eq(value1(got[0]), 1.5f, 0);
    cr_expect_float_eq(value1(got[1]), -2.0f, 0);
    aoti_torch_delete_tensor_object(got[0]);
    aoti_torch_delete_tensor_object(got[1]);
    free(got);
    /* an empty list: NULL items are fine when n is 0 */
    stack[0] = siv_from_int(7);
    cr_assert_eq(shimrt_box_begin(&b, "split", stack, 1, 1, 1, 1, NULL), AOTI_TORCH_SUCCESS);
    shimrt_box_release_args(&b);
    shimrt_box_push_tensor_list(&b, 0, NULL, 0);
    shimrt_box_finish(&b);
    cr_assert_eq(shimrt_pop_tensor_list("pop", stack[0], &got, &len), AOTI_TORCH_SUCCESS);
    cr_expect_eq(len, 0);
    free(got);
}

Test(shim_support, tensor_list_return_failures_release_everything) {
    StableIValue stack[1] = {siv_from_int(7)};
    shimrt_box b;
    /* a negative length: the box fails, the array and its handles are freed (the sanitizer
     * pass sees a leak otherwise) */
    cr_assert_eq(shimrt_box_begin(&b, "split", stack, 1, 1, 1, 1, NULL), AOTI_TORCH_SUCCESS);
    AtenTensorHandle *items = malloc(sizeof *items);
    cr_assert(items);
    items[0] = tensor1(3.0f);
    shimrt_box_release_args(&b);
    shimrt_box_push_tensor_list(&b, 0, items, -1);
    shimrt_box_finish(&b);
    cr_expect(strstr(MSG(), "invalid tensor list") != NULL, "%s", MSG());
    cr_expect_eq(stack[0], 0);
    /* after an earlier failure the list is released, not pushed */
    cr_assert_eq(shimrt_box_begin(&b, "split", stack, 1, 1, 1, 1, NULL), AOTI_TORCH_SUCCESS);
    shimrt_box_fail(&b, shimrt_set_error("split", "kernel failed"));
    items = malloc(2 * sizeof *items);
    cr_assert(items);
    items[0] = tensor1(1.0f), items[1] = tensor1(2.0f);
    shimrt_box_release_args(&b);
    shimrt_box_push_tensor_list(&b, 0, items, 2);
    shimrt_box_finish(&b);
    cr_expect(strstr(MSG(), "kernel failed") != NULL, "%s", MSG());
    /* pop of something that is not a list handle fails with a message and frees nothing */
    AtenTensorHandle *got = NULL;
    int64_t len = -1;
    cr_expect_eq(shimrt_pop_tensor_list("pop", siv_from_int(12345), &got, &len),
                 AOTI_TORCH_FAILURE);
    cr_expect(strstr(MSG(), "pop") != NULL, "%s", MSG());
    cr_expect_null(got);
    cr_expect_eq(len, -1);
}

/* tests/runtime/test_containers.c: lists, strings, heap cells, complex cells and scalars
 * (shimrt/containers.h), error paths included. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "shimrt/shimrt.h"
#include "shimrt_test.h"

/* A pointer that is no handle of any kind (a stack object), and a zeroed fake. */
static uint64_t fake_object[8];

/* ---- lists ---- */
Test(list, push_get_set_size) {
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(2, &l));
    size_t n = 99;
    OK(torch_list_size(l, &n));
    cr_assert_eq(n, 0);
    for (uint64_t i = 0; i < 100; i++) OK(torch_list_push_back(l, i * 3)); /* grows past 2 */
    OK(torch_list_size(l, &n));
    cr_assert_eq(n, 100);
    StableIValue v = 0;
    OK(torch_list_get_item(l, 57, &v));
    cr_assert_eq(v, 171);
    OK(torch_list_set_item(l, 57, 5));
    OK(torch_list_get_item(l, 57, &v));
    cr_assert_eq(v, 5);
    OK(torch_list_get_item(l, 99, &v));
    cr_assert_eq(v, 297);
    OK(torch_delete_list(l));
    no_leaks();
}

Test(list, reserve_zero_then_push) {
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(0, &l));
    OK(torch_list_push_back(l, 42));
    StableIValue v = 0;
    OK(torch_list_get_item(l, 0, &v));
    cr_assert_eq(v, 42);
    OK(torch_delete_list(l));
    no_leaks();
}

Test(list, out_of_range_index) {
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(8, &l));
    OK(torch_list_push_back(l, 1));
    StableIValue v = 0;
    FAILS(torch_list_get_item(l, 1, &v), "torch_list_get_item", "out of range");
    FAILS(torch_list_get_item(l, SIZE_MAX, &v), "torch_list_get_item", "out of range");
    FAILS(torch_list_set_item(l, 1, 7), "torch_list_set_item", "out of range");
    /* reserve does not make room for reading */
    StableListHandle e = NULL;
    OK(torch_new_list_reserve_size(4, &e));
    FAILS(torch_list_get_item(e, 0, &v), "torch_list_get_item", "size 0");
    OK(torch_delete_list(e));
    OK(torch_delete_list(l));
    no_leaks();
}

Test(list, bad_handles) {
    StableIValue v;
    size_t n;
    FAILS(torch_list_size(NULL, &n), "torch_list_size", "NULL");
    FAILS(torch_list_get_item(NULL, 0, &v), "torch_list_get_item", "NULL");
    FAILS(torch_list_set_item(NULL, 0, 1), "torch_list_set_item", "NULL");
    FAILS(torch_list_push_back(NULL, 1), "torch_list_push_back", "NULL");
    OK(torch_delete_list(NULL)); /* x_free(NULL) is a no-op */
    StableListHandle fake = (StableListHandle)(void *)fake_object;
    FAILS(torch_list_size(fake, &n), "torch_list_size", "not a handle");
    FAILS(torch_delete_list(fake), "torch_delete_list", "not a handle");
    /* a string handle is not a list */
    StringHandle s = NULL;
    OK(torch_new_string_handle("x", 1, &s));
    FAILS(torch_list_push_back((StableListHandle)(void *)s, 1), "torch_list_push_back",
          "not a handle");
    OK(torch_delete_string(s));
    /* freed */
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(1, &l));
    OK(torch_delete_list(l));
    FAILS(torch_list_size(l, &n), "torch_list_size", "freed");
    FAILS(torch_delete_list(l), "torch_delete_list", "freed");
    no_leaks();
}

Test(list, null_out_pointers) {
    FAILS(torch_new_list_reserve_size(1, NULL), "torch_new_list_reserve_size", "NULL");
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(1, &l));
    OK(torch_list_push_back(l, 1));
    FAILS(torch_list_size(l, NULL), "torch_list_size", "NULL");
    FAILS(torch_list_get_item(l, 0, NULL), "torch_list_get_item", "NULL");
    OK(torch_delete_list(l));
    no_leaks();
}

Test(list, huge_reserve_fails) {
    StableListHandle l = NULL;
    FAILS(torch_new_list_reserve_size(SIZE_MAX, &l), "torch_new_list_reserve_size", "too large");
    cr_assert_null(l);
    no_leaks();
}

/* ---- strings ---- */
Test(string, copy_length_cstr) {
    char buf[] = "hello world";
    StringHandle s = NULL;
    OK(torch_new_string_handle(buf, 5, &s));
    buf[0] = 'J'; /* the handle holds a copy */
    size_t n = 0;
    OK(torch_string_length(s, &n));
    cr_assert_eq(n, 5);
    const char *p = NULL;
    OK(torch_string_c_str(s, &p));
    cr_assert_str_eq(p, "hello");
    OK(torch_delete_string(s));
    no_leaks();
}

Test(string, embedded_nul_and_empty) {
    StringHandle s = NULL;
    OK(torch_new_string_handle("a\0b", 3, &s));
    size_t n = 0;
    OK(torch_string_length(s, &n));
    cr_assert_eq(n, 3);
    const char *p = NULL;
    OK(torch_string_c_str(s, &p));
    cr_assert_eq(memcmp(p, "a\0b", 4), 0);
    OK(torch_delete_string(s));
    OK(torch_new_string_handle(NULL, 0, &s));
    OK(torch_string_length(s, &n));
    cr_assert_eq(n, 0);
    OK(torch_string_c_str(s, &p));
    cr_assert_str_eq(p, "");
    OK(torch_delete_string(s));
    no_leaks();
}

Test(string, errors) {
    StringHandle s = NULL;
    FAILS(torch_new_string_handle(NULL, 3, &s), "torch_new_string_handle", "NULL");
    FAILS(torch_new_string_handle("abc", 3, NULL), "torch_new_string_handle", "NULL");
    size_t n;
    const char *p;
    FAILS(torch_string_length(NULL, &n), "torch_string_length", "NULL");
    FAILS(torch_string_c_str(NULL, &p), "torch_string_c_str", "NULL");
    OK(torch_delete_string(NULL));
    FAILS(torch_string_length((StringHandle)(void *)fake_object, &n), "torch_string_length",
          "not a handle");
    OK(torch_new_string_handle("abc", 3, &s));
    FAILS(torch_string_length(s, NULL), "torch_string_length", "NULL");
    FAILS(torch_string_c_str(s, NULL), "torch_string_c_str", "NULL");
    OK(torch_delete_string(s));
    FAILS(torch_string_c_str(s, &p), "torch_string_c_str", "freed");
    FAILS(torch_delete_string(s), "torch_delete_string", "freed");
    no_leaks();
}

/* ---- heap cells ---- */
Test(cell, new_delete) {
    StableIValue *c = NULL;
    OK(torch_new_stable_ivalue(&c));
    cr_assert_not_null(c);
    cr_assert_eq(*c, 0);
    *c = 0x1234;
    OK(torch_delete_stable_ivalue(c));
    FAILS(torch_new_stable_ivalue(NULL), "torch_new_stable_ivalue", "NULL");
    OK(torch_delete_stable_ivalue(NULL));
    no_leaks();
}

Test(complex, new_delete) {
    ShimrtComplex *c = NULL;
    OK(shimrt_new_complex(1.5, -2.25, &c));
    cr_assert_eq(c->real, 1.5);
    cr_assert_eq(c->imag, -2.25);
    OK(shimrt_delete_complex(c));
    FAILS(shimrt_new_complex(0, 0, NULL), "shimrt_new_complex", "NULL");
    OK(shimrt_delete_complex(NULL));
    no_leaks();
}

/* ---- scalars ---- */
static void kinds(ScalarHandle s, bool *i, bool *d, bool *b, bool *c) {
    OK(torch_scalar_is_int(s, i));
    OK(torch_scalar_is_double(s, d));
    OK(torch_scalar_is_bool(s, b));
    OK(torch_scalar_is_complex_double(s, c));
}

Test(scalar, int_kind_and_conversions) {
    ScalarHandle s = NULL;
    OK(torch_new_scalar_int(-7, &s));
    bool i, d, b, c;
    kinds(s, &i, &d, &b, &c);
    cr_assert(i && !d && !b && !c);
    int64_t iv = 0;
    OK(torch_scalar_to_int(s, &iv));
    cr_assert_eq(iv, -7);
    double dv = 0;
    OK(torch_scalar_to_double(s, &dv));
    cr_assert_eq(dv, -7.0);
    bool bv = false;
    OK(torch_scalar_to_bool(s, &bv));
    cr_assert(bv);
    double re = 1, im = 1;
    OK(torch_scalar_to_complex_double(s, &re, &im));
    cr_assert(re == -7.0 && im == 0.0);
    OK(torch_delete_scalar(s));
    no_leaks();
}

Test(scalar, int64_extremes_exact) {
    ScalarHandle s = NULL;
    OK(torch_new_scalar_int(INT64_MIN, &s));
    int64_t iv = 0;
    OK(torch_scalar_to_int(s, &iv));
    cr_assert_eq(iv, INT64_MIN);
    OK(torch_delete_scalar(s));
    no_leaks();
}

Test(scalar, double_kind_and_conversions) {
    ScalarHandle s = NULL;
    OK(torch_new_scalar_double(-2.75, &s));
    bool i, d, b, c;
    kinds(s, &i, &d, &b, &c);
    cr_assert(!i && d && !b && !c);
    int64_t iv = 0;
    OK(torch_scalar_to_int(s, &iv));
    cr_assert_eq(iv, -2); /* truncation toward zero */
    double dv = 0;
    OK(torch_scalar_to_double(s, &dv));
    cr_assert_eq(dv, -2.75);
    OK(torch_delete_scalar(s));
    OK(torch_new_scalar_double(0.0, &s));
    bool bv = true;
    OK(torch_scalar_to_bool(s, &bv));
    cr_assert(!bv);
    OK(torch_delete_scalar(s));
    no_leaks();
}

Test(scalar, double_to_int_overflow_and_nan) {
    ScalarHandle s = NULL;
    OK(torch_new_scalar_double(1e300, &s));
    int64_t iv;
    FAILS(torch_scalar_to_int(s, &iv), "torch_scalar_to_int", "overflow");
    OK(torch_delete_scalar(s));
    OK(torch_new_scalar_double(NAN, &s));
    FAILS(torch_scalar_to_int(s, &iv), "torch_scalar_to_int", "overflow");
    OK(torch_delete_scalar(s));
    no_leaks();
}

Test(scalar, bool_kind) {
    ScalarHandle s = NULL;
    OK(torch_new_scalar_bool(true, &s));
    bool i, d, b, c;
    kinds(s, &i, &d, &b, &c);
    cr_assert(!i && !d && b && !c);
    bool bv = false;
    OK(torch_scalar_to_bool(s, &bv));
    cr_assert(bv);
    int64_t iv = 0;
    OK(torch_scalar_to_int(s, &iv));
    cr_assert_eq(iv, 1);
    OK(torch_delete_scalar(s));
    no_leaks();
}

Test(scalar, complex_kind_and_conversions) {
    ScalarHandle s = NULL;
    OK(torch_new_scalar_complex_double(1.5, -0.5, &s));
    bool i, d, b, c;
    kinds(s, &i, &d, &b, &c);
    cr_assert(!i && !d && !b && c);
    double re = 0, im = 0;
    OK(torch_scalar_to_complex_double(s, &re, &im));
    cr_assert(re == 1.5 && im == -0.5);
    double dv;
    FAILS(torch_scalar_to_double(s, &dv), "torch_scalar_to_double", "imaginary");
    int64_t iv;
    FAILS(torch_scalar_to_int(s, &iv), "torch_scalar_to_int", "imaginary");
    bool bv;
    FAILS(torch_scalar_to_bool(s, &bv), "torch_scalar_to_bool", "imaginary");
    OK(torch_delete_scalar(s));
    OK(torch_new_scalar_complex_double(3.0, 0.0, &s));
    OK(torch_scalar_to_double(s, &dv));
    cr_assert_eq(dv, 3.0);
    OK(torch_delete_scalar(s));
    no_leaks();
}

Test(scalar, bad_handles) {
    bool r;
    int64_t iv;
    double dv, im;
    FAILS(torch_new_scalar_int(1, NULL), "torch_new_scalar_int", "NULL");
    FAILS(torch_new_scalar_double(1, NULL), "torch_new_scalar_double", "NULL");
    FAILS(torch_new_scalar_bool(1, NULL), "torch_new_scalar_bool", "NULL");
    FAILS(torch_new_scalar_complex_double(1, 1, NULL), "torch_new_scalar_complex_double", "NULL");
    FAILS(torch_scalar_is_int(NULL, &r), "torch_scalar_is_int", "NULL");
    FAILS(torch_scalar_is_double(NULL, &r), "torch_scalar_is_double", "NULL");
    FAILS(torch_scalar_is_bool(NULL, &r), "torch_scalar_is_bool", "NULL");
    FAILS(torch_scalar_is_complex_double(NULL, &r), "torch_scalar_is_complex_double", "NULL");
    FAILS(torch_scalar_to_int(NULL, &iv), "torch_scalar_to_int", "NULL");
    FAILS(torch_scalar_to_double(NULL, &dv), "torch_scalar_to_double", "NULL");
    FAILS(torch_scalar_to_bool(NULL, &r), "torch_scalar_to_bool", "NULL");
    FAILS(torch_scalar_to_complex_double(NULL, &dv, &im), "torch_scalar_to_complex_double", "NULL");
    OK(torch_delete_scalar(NULL));
    FAILS(torch_scalar_is_int((ScalarHandle)(void *)fake_object, &r), "torch_scalar_is_int",
          "not a handle");
    ScalarHandle s = NULL;
    OK(torch_new_scalar_int(3, &s));
    FAILS(torch_scalar_is_int(s, NULL), "torch_scalar_is_int", "NULL");
    FAILS(torch_scalar_to_int(s, NULL), "torch_scalar_to_int", "NULL");
    FAILS(torch_scalar_to_complex_double(s, &dv, NULL), "torch_scalar_to_complex_double", "NULL");
    OK(torch_delete_scalar(s));
    FAILS(torch_scalar_to_int(s, &iv), "torch_scalar_to_int", "freed");
    FAILS(torch_delete_scalar(s), "torch_delete_scalar", "freed");
    no_leaks();
}

Test(complex, live_objects_errors) {
    int64_t n;
    FAILS(shimrt_live_objects("widget", &n), "shimrt_live_objects", "unknown kind");
    FAILS(shimrt_live_objects(NULL, &n), "shimrt_live_objects", "NULL");
    FAILS(shimrt_live_objects("list", NULL), "shimrt_live_objects", "NULL");
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(1, &l));
    OK(shimrt_live_objects("list", &n));
    cr_assert_eq(n, 1);
    OK(torch_delete_list(l));
    no_leaks();
}

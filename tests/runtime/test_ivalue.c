/* tests/runtime/test_ivalue.c: every StableIValue encoding (shimrt/stableivalue.h,
 * docs/stableivalue.md) both ways, the bit layouts the contract fixes, and freeing values
 * by schema type (shimrt_siv_release). Valgrind runs this suite to show every cell, list
 * and string is freed exactly once. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "contig.h"
#include "shimrt/shimrt.h"
#include "shimrt_test.h"

static AtenTensorHandle new_tensor(void) {
    int64_t sizes[1] = {4};
    AtenTensorHandle t = NULL;
    OK(aoti_torch_empty_strided(1, sizes, shimrt_test_strides(1, sizes), aoti_torch_dtype_float32(),
                                aoti_torch_device_type_cpu(), 0, &t));
    return t;
}

/* ---- the rows PyTorch defines ---- */
Test(encode, tensor_both_ways) {
    AtenTensorHandle t = new_tensor();
    StableIValue v = siv_from_tensor(t);
    cr_assert_eq(v, (StableIValue)(uintptr_t)t, "bitwise pointer");
    cr_assert_eq(siv_to_tensor(v), t);
    cr_assert_eq(siv_from_tensor(siv_to_tensor(v)), v);
    OK(aoti_torch_delete_tensor_object(siv_to_tensor(v)));
    no_leaks();
}

Test(encode, int_and_symint) {
    const int64_t vals[] = {0, 1, -1, INT64_MAX, INT64_MIN, 123456789012345};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        StableIValue v = siv_from_int(vals[i]);
        cr_assert_eq(v, (uint64_t)vals[i]);
        cr_assert_eq(siv_to_int(v), vals[i]);
        cr_assert_eq(siv_to_symint(siv_from_symint(vals[i])), vals[i]);
        cr_assert_eq(siv_from_int(siv_to_int(v)), v);
    }
    no_leaks();
}

Test(encode, double_and_symfloat) {
    const double vals[] = {0.0, -0.0, 1.5, -3.25e300, DBL_MIN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        StableIValue v = siv_from_double(vals[i]);
        uint64_t bits;
        memcpy(&bits, &vals[i], 8);
        cr_assert_eq(v, bits, "bitwise double");
        cr_assert_eq(memcmp(&(double){siv_to_double(v)}, &vals[i], 8), 0);
        cr_assert_eq(siv_to_symfloat(siv_from_symfloat(vals[i])), vals[i]);
        cr_assert_eq(siv_from_double(siv_to_double(v)), v);
    }
    StableIValue n = siv_from_double(NAN);
    cr_assert(isnan(siv_to_double(n)));
    no_leaks();
}

Test(encode, bool_and_symbool) {
    cr_assert_eq(siv_from_bool(true), 1u, "bool's byte first, the rest zero");
    cr_assert_eq(siv_from_bool(false), 0u);
    cr_assert(siv_to_bool(siv_from_bool(true)));
    cr_assert(!siv_to_bool(siv_from_bool(false)));
    cr_assert(siv_to_symbool(siv_from_symbool(true)));
    cr_assert(!siv_to_symbool(siv_from_symbool(false)));
    /* only the leading byte is read */
    cr_assert(!siv_to_bool(UINT64_C(0xff00)));
    cr_assert(siv_to_bool(UINT64_C(0x01)));
    no_leaks();
}

Test(encode, codes) {
    int32_t dt = aoti_torch_dtype_bfloat16();
    cr_assert_eq(siv_from_scalar_type(dt), 15u);
    cr_assert_eq(siv_to_scalar_type(siv_from_scalar_type(dt)), dt);
    cr_assert_eq(siv_to_layout(siv_from_layout(aoti_torch_layout_sparse_csr())), 2);
    cr_assert_eq(
        siv_to_memory_format(siv_from_memory_format(aoti_torch_memory_format_channels_last())), 2);
    cr_assert_eq(siv_to_qscheme(siv_from_qscheme(SHIMRT_QSCHEME_PER_CHANNEL_SYMMETRIC)), 3);
    cr_assert_eq(siv_from_qscheme(SHIMRT_QSCHEME_PER_TENSOR_AFFINE), 0u);
    for (int32_t c = 0; c < 64; c++) {
        cr_assert_eq(siv_from_scalar_type(siv_to_scalar_type((StableIValue)c)), (StableIValue)c);
        cr_assert_eq(siv_from_layout(siv_to_layout((StableIValue)c)), (StableIValue)c);
        cr_assert_eq(siv_from_memory_format(siv_to_memory_format((StableIValue)c)),
                     (StableIValue)c);
    }
    no_leaks();
}

Test(encode, device_layout) {
    /* low 32 bits: the index as uint32; high 32 bits: the type code */
    StableIValue v = siv_from_device(aoti_torch_device_type_cuda(), 3);
    cr_assert_eq(v, (UINT64_C(1) << 32) | 3u);
    cr_assert_eq(siv_to_device_type(v), 1);
    cr_assert_eq(siv_to_device_index(v), 3);
    StableIValue cpu = siv_from_device(aoti_torch_device_type_cpu(), -1);
    cr_assert_eq(cpu, UINT64_C(0xffffffff));
    cr_assert_eq(siv_to_device_index(cpu), -1);
    cr_assert_eq(siv_to_device_type(cpu), 0);
    StableIValue pu = siv_from_device(aoti_torch_device_type_privateuse1(), 7);
    cr_assert_eq(siv_from_device(siv_to_device_type(pu), siv_to_device_index(pu)), pu);
    no_leaks();
}

Test(encode, string_both_ways) {
    StringHandle s = NULL;
    OK(torch_new_string_handle("abc", 3, &s));
    StableIValue v = siv_from_string(s);
    cr_assert_eq(v, (StableIValue)(uintptr_t)s);
    cr_assert_eq(siv_to_string(v), s);
    const char *p = NULL;
    OK(torch_string_c_str(siv_to_string(v), &p));
    cr_assert_str_eq(p, "abc");
    OK(shimrt_siv_release("str", v));
    no_leaks();
}

Test(encode, optional_both_ways) {
    cr_assert_eq(siv_none(), 0u);
    cr_assert(siv_is_none(siv_none()));
    StableIValue v = 0;
    OK(siv_new_optional(siv_from_int(-5), &v));
    cr_assert(!siv_is_none(v));
    cr_assert_eq(*(StableIValue *)(uintptr_t)v, siv_from_int(-5), "pointer to a heap cell");
    cr_assert_eq(siv_to_int(siv_optional_value(v)), -5);
    StableIValue inner = 0;
    cr_assert(siv_take_optional(v, &inner)); /* frees the cell */
    cr_assert_eq(siv_to_int(inner), -5);
    cr_assert(!siv_take_optional(siv_none(), &inner));
    no_leaks();
}

Test(encode, list_both_ways) {
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(3, &l));
    for (int64_t i = 0; i < 3; i++) OK(torch_list_push_back(l, siv_from_int(i * 10)));
    StableIValue v = siv_from_list(l);
    cr_assert_eq(v, (StableIValue)(uintptr_t)l);
    cr_assert_eq(siv_to_list(v), l);
    StableIValue item;
    OK(torch_list_get_item(siv_to_list(v), 2, &item));
    cr_assert_eq(siv_to_int(item), 20);
    OK(shimrt_siv_release("int[]", v));
    no_leaks();
}

Test(encode, scalar_both_ways) {
    ScalarHandle s = NULL;
    OK(torch_new_scalar_double(2.5, &s));
    StableIValue v = siv_from_scalar(s);
    cr_assert_eq(v, (StableIValue)(uintptr_t)s);
    cr_assert_eq(siv_to_scalar(v), s);
    double d = 0;
    OK(torch_scalar_to_double(siv_to_scalar(v), &d));
    cr_assert_eq(d, 2.5);
    OK(shimrt_siv_release("Scalar", v));
    no_leaks();
}

/* ---- our rows ---- */
Test(encode, stream_both_ways) {
    StreamHandle st = NULL;
    OK(aoti_torch_get_current_stream(0, &st));
    StableIValue v = siv_from_stream(st);
    cr_assert_eq(v, (StableIValue)(uintptr_t)st);
    cr_assert_eq(siv_to_stream(v), st);
    int64_t id = -1;
    OK(aoti_torch_stream_id(siv_to_stream(v), &id));
    OK(shimrt_siv_release("Stream", v));
    no_leaks();
}

Test(encode, complex_both_ways) {
    StableIValue v = 0;
    OK(siv_new_complex(1.25, -4.5, &v));
    ShimrtComplex *c = siv_to_complex(v);
    cr_assert_eq(v, (StableIValue)(uintptr_t)c);
    cr_assert(c->real == 1.25 && c->imag == -4.5);
    cr_assert_eq(siv_from_complex(c), v);
    OK(shimrt_siv_release("complex", v));
    no_leaks();
}

Test(encode, storage_both_ways) {
    AtenTensorHandle t = new_tensor();
    AtenTensorHandle s = NULL;
    OK(aoti_torch_new_tensor_handle(t, &s)); /* the storage's own reference */
    StableIValue v = siv_from_storage(s);
    cr_assert_eq(siv_to_storage(v), s);
    void *a = NULL, *b = NULL;
    OK(aoti_torch_get_data_ptr(t, &a));
    OK(aoti_torch_get_data_ptr(siv_to_storage(v), &b));
    cr_assert_eq(a, b, "the value shares the storage");
    OK(shimrt_siv_release("Storage", v));
    OK(aoti_torch_delete_tensor_object(t));
    no_leaks();
}

Test(encode, generator_both_ways) {
    AtenGeneratorHandle g = NULL;
    OK(shimrt_generator_new(aoti_torch_device_type_cpu(), 0, 42, &g));
    StableIValue v = siv_from_generator(g);
    cr_assert_eq(v, (StableIValue)(uintptr_t)g);
    cr_assert_eq(siv_to_generator(v), g);
    uint64_t seed = 0;
    OK(shimrt_generator_get_seed(siv_to_generator(v), &seed));
    cr_assert_eq(seed, 42u);
    OK(shimrt_siv_release("Generator", v));
    no_leaks();
}

Test(encode, tuple_both_ways) {
    /* (Tensor, int, str): a list of the elements in their own encodings */
    AtenTensorHandle t = new_tensor();
    StringHandle s = NULL;
    OK(torch_new_string_handle("x", 1, &s));
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(3, &l));
    OK(torch_list_push_back(l, siv_from_tensor(t)));
    OK(torch_list_push_back(l, siv_from_int(9)));
    OK(torch_list_push_back(l, siv_from_string(s)));
    StableIValue v = siv_from_tuple(l);
    cr_assert_eq(siv_to_tuple(v), l);
    StableIValue e0, e1, e2;
    OK(torch_list_get_item(siv_to_tuple(v), 0, &e0));
    OK(torch_list_get_item(siv_to_tuple(v), 1, &e1));
    OK(torch_list_get_item(siv_to_tuple(v), 2, &e2));
    cr_assert_eq(siv_to_tensor(e0), t);
    cr_assert_eq(siv_to_int(e1), 9);
    cr_assert_eq(siv_to_string(e2), s);
    /* a tuple is freed element by element, then the list */
    OK(shimrt_siv_release("Tensor", e0));
    OK(shimrt_siv_release("str", e2));
    OK(torch_delete_list(siv_to_tuple(v)));
    no_leaks();
}

/* ---- freeing by type ---- */
Test(release, nested_optional_list_of_strings) {
    /* str?[] holding "a", None, "b" */
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(3, &l));
    const char *words[] = {"a", NULL, "b"};
    for (int i = 0; i < 3; i++) {
        StableIValue item = siv_none();
        if (words[i]) {
            StringHandle s = NULL;
            OK(torch_new_string_handle(words[i], 1, &s));
            OK(siv_new_optional(siv_from_string(s), &item));
        }
        OK(torch_list_push_back(l, item));
    }
    OK(shimrt_siv_release("str?[]", siv_from_list(l)));
    no_leaks();
}

Test(release, optional_tensor_list_and_scalar) {
    StableIValue v = 0;
    OK(siv_new_optional(siv_from_tensor(new_tensor()), &v));
    OK(shimrt_siv_release("Tensor?", v));
    OK(shimrt_siv_release("Tensor?", siv_none()));
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(2, &l));
    OK(torch_list_push_back(l, siv_from_tensor(new_tensor())));
    OK(torch_list_push_back(l, siv_from_tensor(new_tensor())));
    OK(shimrt_siv_release("Tensor[]", siv_from_list(l)));
    ScalarHandle s = NULL;
    OK(torch_new_scalar_int(1, &s));
    StableIValue o = 0;
    OK(siv_new_optional(siv_from_scalar(s), &o));
    OK(shimrt_siv_release("Scalar?", o));
    no_leaks();
}

Test(release, plain_values_own_nothing) {
    OK(shimrt_siv_release("int", siv_from_int(-1)));
    OK(shimrt_siv_release("float", siv_from_double(2.0)));
    OK(shimrt_siv_release("Device", siv_from_device(0, -1)));
    OK(shimrt_siv_release("ScalarType", siv_from_scalar_type(6)));
    OK(shimrt_siv_release("SymInt[]", 0)); /* 0: nothing */
    StableIValue o = 0;
    OK(siv_new_optional(siv_from_int(4), &o));
    OK(shimrt_siv_release("int?", o));
    no_leaks();
}

Test(release, errors) {
    FAILS(shimrt_siv_release(NULL, 0), "shimrt_siv_release", "NULL");
    FAILS(shimrt_siv_release("NotAType", 1), "shimrt_siv_release", "bad type");
    FAILS(shimrt_siv_release("Any", 1), "shimrt_siv_release", "no StableIValue encoding");
    static uint64_t fake[4];
    FAILS(shimrt_siv_release("str", (StableIValue)(uintptr_t)fake), "shimrt_siv_release",
          "not a handle");
    FAILS(shimrt_siv_release("int[]", (StableIValue)(uintptr_t)fake), "shimrt_siv_release",
          "list handle");
    FAILS(shimrt_siv_release("Tensor", (StableIValue)(uintptr_t)fake), "shimrt_siv_release",
          "Tensor");
    no_leaks();
}

/* tests/runtime/test_dtype_table.c: the dtype traits table (runtime/core/dtype.h) is
 * consistent with the codes it is looked up by: one row per code of shimrt/codes.h, its
 * size the one the C shim reports, the engine's rows first and in the engine's order, and
 * every element store read back by the row's load. (Names, accumulate types and conversions
 * against PyTorch itself: tests/scripts/dtype_oracle.sh.) */
#include <criterion/criterion.h>
#include <string.h>

#include "../../runtime/core/internal.h"

Test(dtype_table, one_row_per_code) {
    size_t n = 0;
#define X(NAME, lower, value)                                                                      \
    do {                                                                                           \
        const shimrt_dtype_traits *t = shimrt_dtype_traits_of(value);                              \
        cr_assert_not_null(t, "%s", #lower);                                                       \
        cr_assert_eq(t->code, value, "%s", #lower);                                                \
        cr_assert_str_eq(t->name, #lower);                                                         \
        cr_assert_eq(t->size, aoti_torch_dtype_element_size(value), "%s", #lower);                 \
        cr_assert_gt(t->size, 0u, "%s", #lower);                                                   \
        cr_assert_not_null(t->torch_name, "%s", #lower);                                           \
        cr_assert_not_null(t->meta_name, "%s", #lower);                                            \
        n++;                                                                                       \
    } while (0);
    SHIMRT_DTYPES(X)
#undef X
    cr_assert_eq(n, shimrt_dtype_table_len);
    cr_assert_null(shimrt_dtype_traits_of(-1));
    cr_assert_null(shimrt_dtype_traits_of(12));
    cr_assert_null(shimrt_dtype_traits_of(1000));
}

Test(dtype_table, engine_rows) {
    static const int32_t order[SHIMRT_ENGINE_NDT] = {
        SHIMRT_BOOL,  SHIMRT_UINT8,   SHIMRT_INT8,     SHIMRT_INT16,   SHIMRT_INT32,
        SHIMRT_INT64, SHIMRT_FLOAT16, SHIMRT_BFLOAT16, SHIMRT_FLOAT32, SHIMRT_FLOAT64};
    for (int i = 0; i < SHIMRT_ENGINE_NDT; i++) {
        cr_assert_eq(shimrt_dtype_engine_index(order[i]), i);
        cr_assert_not_null(shimrt_dtype_table[i].tag);
        cr_assert_not_null(shimrt_dtype_table[i].ctype);
        cr_assert_not_null(shimrt_dtype_table[i].ctype_compute);
    }
    for (size_t i = SHIMRT_ENGINE_NDT; i < shimrt_dtype_table_len; i++)
        cr_assert_eq(shimrt_dtype_engine_index(shimrt_dtype_table[i].code), -1);
}

/* a value every computable dtype holds exactly reads back as itself */
Test(dtype_table, store_then_load) {
    for (size_t i = 0; i < shimrt_dtype_table_len; i++) {
        const shimrt_dtype_traits *t = &shimrt_dtype_table[i];
        if (!t->computable) continue;
        _Alignas(16) char e[16];
        memset(e, 0, sizeof e);
        int64_t v = t->kind == SHIMRT_KIND_BOOL ? 1 : 3;
        t->store_i64(e, v);
        cr_assert_eq(t->load_i64(e), v, "%s", t->name);
        t->store_f64(e, 2.0);
        cr_assert_eq(t->load_f64(e), t->kind == SHIMRT_KIND_BOOL ? 1.0 : 2.0, "%s", t->name);
        cr_assert_eq(shimrt_dtype_is_floating(t->code), t->kind == SHIMRT_KIND_FLOATING);
    }
}

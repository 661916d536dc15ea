/* tests/runtime/test_data.c: copies with dtype conversion, clone, zero_, item,
 * scalar_to_tensor, assign_tensors (shimrt/tensor.h "data"). */
#include <math.h>
#include <stdint.h>

#include "contig.h"
#include "shimrt_test.h"

static AtenTensorHandle make(int32_t dtype, int64_t ndim, const int64_t *sizes) {
    AtenTensorHandle t = NULL;
    OK(aoti_torch_empty_strided(ndim, sizes, shimrt_test_strides(ndim, sizes), dtype, 0, 0, &t));
    return t;
}
static void *data(AtenTensorHandle t) {
    void *p;
    OK(aoti_torch_get_data_ptr(t, &p));
    return p;
}

/* Every real dtype the copy converts, with a value each represents exactly. */
static const int32_t real_dtypes[] = {0, 1, 2, 3, 4, 5, 6, 7, 11, 15, 27, 28, 29};

Test(copy, every_pair_of_real_dtypes_round_trips_small_integers) {
    int64_t n[] = {5};
    for (size_t a = 0; a < sizeof real_dtypes / sizeof *real_dtypes; a++) {
        for (size_t b = 0; b < sizeof real_dtypes / sizeof *real_dtypes; b++) {
            int32_t da = real_dtypes[a], db = real_dtypes[b];
            AtenTensorHandle src = make(6, 1, n), x = make(da, 1, n), y = make(db, 1, n),
                             back = make(6, 1, n);
            float *s = data(src);
            bool boolish = da == 11 || db == 11;
            for (int i = 0; i < 5; i++) s[i] = boolish ? (float)(i & 1) : (float)(i * 3);
            OK(aoti_torch_copy_(x, src, 0));
            OK(aoti_torch_copy_(y, x, 0));
            OK(aoti_torch_copy_(back, y, 0));
            float *r = data(back);
            for (int i = 0; i < 5; i++)
                cr_assert_eq(r[i], s[i], "float32 -> %d -> %d -> float32 at %d: %g != %g", da, db,
                             i, (double)r[i], (double)s[i]);
            OK(aoti_torch_delete_tensor_object(src));
            OK(aoti_torch_delete_tensor_object(x));
            OK(aoti_torch_delete_tensor_object(y));
            OK(aoti_torch_delete_tensor_object(back));
        }
    }
}

Test(copy, conversion_rules) {
    int64_t n[] = {6};
    AtenTensorHandle f = make(7, 1, n), i8 = make(1, 1, n), u8 = make(0, 1, n), b = make(11, 1, n),
                     i64 = make(4, 1, n), h = make(5, 1, n), bf = make(15, 1, n);
    double *fd = data(f);
    double vals[6] = {1.75, -2.5, 1000.0, -1000.0, NAN, 0.0};
    for (int i = 0; i < 6; i++) fd[i] = vals[i];
    OK(aoti_torch_copy_(i8, f, 0));
    int8_t *pi8 = data(i8);
    cr_assert(pi8[0] == 1 && pi8[1] == -2, "float to int truncates toward zero");
    /* PyTorch's conversion: through int64 (x86 truncation), then wrapping */
    cr_assert(pi8[2] == -24 && pi8[3] == 24, "and wraps through int64");
    cr_assert_eq(pi8[4], 0, "NaN gives INT64_MIN, whose low byte is 0");
    OK(aoti_torch_copy_(u8, f, 0));
    uint8_t *pu8 = data(u8);
    cr_assert(pu8[1] == 254 && pu8[2] == 232); /* -2 and 1000 wrap */
    OK(aoti_torch_copy_(b, f, 0));
    uint8_t *pb = data(b);
    cr_assert(pb[0] == 1 && pb[1] == 1 && pb[4] == 1 && pb[5] == 0);
    /* integers wrap when narrowed */
    int64_t *p64 = data(i64);
    for (int i = 0; i < 6; i++) p64[i] = 256 + i;
    p64[5] = INT64_MAX;
    OK(aoti_torch_copy_(u8, i64, 0));
    cr_assert(pu8[0] == 0 && pu8[1] == 1 && pu8[5] == 255);
    /* half and bfloat16 round to nearest */
    for (int i = 0; i < 6; i++) fd[i] = 1.0 + i / 1024.0;
    fd[5] = 65504.0;
    OK(aoti_torch_copy_(h, f, 0));
    uint16_t *ph = data(h);
    cr_assert_eq(ph[0], 0x3c00);
    cr_assert_eq(ph[1], 0x3c01);
    cr_assert_eq(ph[5], 0x7bff);
    fd[0] = 3.0;
    OK(aoti_torch_copy_(bf, f, 0));
    uint16_t *pbf = data(bf);
    cr_assert_eq(pbf[0], 0x4040);
    AtenTensorHandle all[] = {f, i8, u8, b, i64, h, bf};
    for (size_t i = 0; i < 7; i++) OK(aoti_torch_delete_tensor_object(all[i]));
}

Test(copy, complex_and_real) {
    int64_t n[] = {2};
    AtenTensorHandle c = make(10, 1, n), f = make(6, 1, n), c64 = make(9, 1, n);
    double *pc = data(c);
    pc[0] = 1.5;
    pc[1] = -2.0;
    pc[2] = 3.0;
    pc[3] = 4.0;
    OK(aoti_torch_copy_(f, c, 0));
    float *pf = data(f);
    cr_assert(pf[0] == 1.5f && pf[1] == 3.0f, "complex to real keeps the real part");
    OK(aoti_torch_copy_(c64, c, 0));
    float *p64 = data(c64);
    cr_assert(p64[0] == 1.5f && p64[1] == -2.0f && p64[3] == 4.0f);
    OK(aoti_torch_copy_(c, f, 0));
    cr_assert(pc[0] == 1.5 && pc[1] == 0.0, "real to complex has a zero imaginary part");
    OK(aoti_torch_delete_tensor_object(c));
    OK(aoti_torch_delete_tensor_object(f));
    OK(aoti_torch_delete_tensor_object(c64));
}

Test(copy, strided_transposed_and_broadcast) {
    int64_t s23[] = {2, 3};
    AtenTensorHandle a = make(3, 2, s23), t, dst;
    int32_t *pa = data(a);
    for (int i = 0; i < 6; i++) pa[i] = i;
    int64_t ts[] = {3, 2}, tst[] = {1, 3};
    OK(aoti_torch_as_strided(a, ts, tst, &t));
    int64_t s32[] = {3, 2};
    dst = make(4, 2, s32);
    OK(aoti_torch_copy_(dst, t, 0));
    int64_t *pd = data(dst);
    int64_t expect[] = {0, 3, 1, 4, 2, 5};
    for (int i = 0; i < 6; i++) cr_assert_eq(pd[i], expect[i]);
    /* broadcast a row of 2 into 3x2 */
    int64_t s2[] = {2};
    AtenTensorHandle row = make(3, 1, s2);
    int32_t *pr = data(row);
    pr[0] = 7;
    pr[1] = 9;
    OK(aoti_torch_tensor_copy_(row, dst));
    for (int i = 0; i < 6; i++) cr_assert_eq(pd[i], i % 2 ? 9 : 7);
    /* a 0-dim source fills everything */
    AtenTensorHandle s;
    OK(aoti_torch_scalar_to_tensor_float64(-4.0, &s));
    OK(aoti_torch_copy_(dst, s, 0));
    for (int i = 0; i < 6; i++) cr_assert_eq(pd[i], -4);
    /* incompatible shapes */
    int64_t s4[] = {4};
    AtenTensorHandle bad = make(3, 1, s4);
    FAILS(aoti_torch_copy_(dst, bad, 0), "aoti_torch_copy_", "cannot be broadcast");
    FAILS(aoti_torch_tensor_copy_(bad, dst), "aoti_torch_tensor_copy_", "cannot be broadcast");
    AtenTensorHandle all[] = {a, t, dst, row, s, bad};
    for (size_t i = 0; i < 6; i++) OK(aoti_torch_delete_tensor_object(all[i]));
}

Test(copy, overlapping_views_of_one_storage) {
    int64_t n[] = {6};
    AtenTensorHandle a = make(4, 1, n), lo, hi;
    int64_t *p = data(a);
    for (int i = 0; i < 6; i++) p[i] = i;
    int64_t s5[] = {5}, st[] = {1};
    OK(aoti_torch__reinterpret_tensor(a, 1, s5, st, 0, &lo));
    OK(aoti_torch__reinterpret_tensor(a, 1, s5, st, 1, &hi));
    /* a partial overlap: PyTorch refuses it (TensorIterator's check) */
    FAILS(aoti_torch_copy_(hi, lo, 0), "aoti_torch_copy_", "refer to a single memory location");
    int64_t expect[] = {0, 1, 2, 3, 4, 5};
    for (int i = 0; i < 6; i++) cr_assert_eq(p[i], expect[i], "at %d", i);
    OK(aoti_torch_copy_(a, a, 0));
    for (int i = 0; i < 6; i++) cr_assert_eq(p[i], expect[i]);
    OK(aoti_torch_delete_tensor_object(lo));
    OK(aoti_torch_delete_tensor_object(hi));
    OK(aoti_torch_delete_tensor_object(a));
}

Test(copy, errors) {
    int64_t n[] = {2};
    AtenTensorHandle a = make(6, 1, n), f8 = make(23, 1, n), m, dead = make(6, 1, n);
    OK(aoti_torch_delete_tensor_object(dead));
    OK(aoti_torch_empty_strided(1, n, shimrt_test_strides(1, n), 6, aoti_torch_device_type_meta(),
                                0, &m));
    FAILS(aoti_torch_copy_(NULL, a, 0), "aoti_torch_copy_", "'self' is NULL");
    FAILS(aoti_torch_copy_(a, dead, 0), "aoti_torch_copy_", "freed");
    FAILS(aoti_torch_tensor_copy_(NULL, a), "aoti_torch_tensor_copy_", "'src' is NULL");
    FAILS(aoti_torch_tensor_copy_(a, dead), "aoti_torch_tensor_copy_", "'dst' is a freed");
    FAILS(aoti_torch_copy_(f8, a, 0), "aoti_torch_copy_",
          "conversion from float32 to float8_e5m2 is not supported");
    FAILS(aoti_torch_copy_(a, m, 0), "aoti_torch_copy_", "meta");
    OK(aoti_torch_copy_(m, a, 0)); /* into meta: nothing to write */
    AtenTensorHandle f8b = make(23, 1, n);
    OK(aoti_torch_copy_(f8b, f8, 0)); /* same dtype: a byte copy */
    AtenTensorHandle u;
    OK(aoti_torch_new_uninitialized_tensor(&u));
    FAILS(aoti_torch_copy_(u, a, 0), "aoti_torch_copy_", "undefined");
    AtenTensorHandle all[] = {a, f8, m, f8b, u};
    for (size_t i = 0; i < 5; i++) OK(aoti_torch_delete_tensor_object(all[i]));
}

Test(clone, copies_into_fresh_storage) {
    int64_t s[] = {2, 3};
    AtenTensorHandle a = make(6, 2, s), c;
    float *pa = data(a);
    for (int i = 0; i < 6; i++) pa[i] = (float)i;
    OK(aoti_torch_clone(a, &c));
    float *pc = data(c);
    cr_assert_neq(pc, pa);
    for (int i = 0; i < 6; i++) cr_assert_eq(pc[i], (float)i);
    pa[0] = 100;
    cr_assert_eq(pc[0], 0.0f);
    /* a view with gaps clones contiguous */
    int64_t vs[] = {2}, vst[] = {3};
    AtenTensorHandle v, cv;
    OK(aoti_torch_as_strided(a, (int64_t[]){2, 2}, (int64_t[]){3, 2}, &v));
    OK(aoti_torch_clone(v, &cv));
    int64_t *st;
    OK(aoti_torch_get_strides(cv, &st));
    cr_assert(st[0] == 2 && st[1] == 1);
    float *pcv = data(cv);
    cr_assert(pcv[0] == 100 && pcv[1] == 2 && pcv[2] == 3 && pcv[3] == 5);
    (void)vs;
    (void)vst;
    FAILS(aoti_torch_clone(NULL, &c), "aoti_torch_clone", "NULL");
    FAILS(aoti_torch_clone(a, NULL), "aoti_torch_clone", "'ret' is NULL");
    AtenTensorHandle all[] = {a, c, v, cv};
    for (size_t i = 0; i < 4; i++) OK(aoti_torch_delete_tensor_object(all[i]));
}

Test(clone, preserve_strides_keeps_gaps) {
    int64_t s[] = {8};
    AtenTensorHandle a = make(3, 1, s), v, c;
    int32_t *pa = data(a);
    for (int i = 0; i < 8; i++) pa[i] = i;
    int64_t vs[] = {3}, vst[] = {3};
    OK(aoti_torch__reinterpret_tensor(a, 1, vs, vst, 1, &v)); /* 1, 4, 7 */
    OK(aoti_torch_clone_preserve_strides(v, &c));
    int64_t *st, off, snumel;
    OK(aoti_torch_get_strides(c, &st));
    cr_assert_eq(st[0], 3);
    OK(aoti_torch_get_storage_offset(c, &off));
    cr_assert_eq(off, 0);
    OK(aoti_torch_get_storage_numel(c, &snumel));
    cr_assert_eq(snumel, 7);
    int32_t *pc = data(c);
    cr_assert(pc[0] == 1 && pc[3] == 4 && pc[6] == 7);
    FAILS(aoti_torch_clone_preserve_strides(NULL, &c), "aoti_torch_clone_preserve_strides", "NULL");
    FAILS(aoti_torch_clone_preserve_strides(v, NULL), "aoti_torch_clone_preserve_strides", "ret");
    AtenTensorHandle all[] = {a, v, c};
    for (size_t i = 0; i < 3; i++) OK(aoti_torch_delete_tensor_object(all[i]));
}

Test(zero, contiguous_and_strided) {
    int64_t s[] = {4, 4};
    AtenTensorHandle a = make(7, 2, s), col;
    double *p = data(a);
    for (int i = 0; i < 16; i++) p[i] = 1.0 + i;
    OK(aoti_torch_as_strided(a, (int64_t[]){4, 1}, (int64_t[]){4, 1}, &col));
    OK(aoti_torch_zero_(col));
    for (int i = 0; i < 16; i++) cr_assert_eq(p[i], i % 4 == 0 ? 0.0 : 1.0 + i, "at %d", i);
    OK(aoti_torch_zero_(a));
    for (int i = 0; i < 16; i++) cr_assert_eq(p[i], 0.0);
    FAILS(aoti_torch_zero_(NULL), "aoti_torch_zero_", "NULL");
    OK(aoti_torch_delete_tensor_object(col));
    OK(aoti_torch_delete_tensor_object(a));
    FAILS(aoti_torch_zero_(a), "aoti_torch_zero_", "freed");
}

Test(item, every_item_function) {
    AtenTensorHandle t;
    OK(aoti_torch_scalar_to_tensor_float64(2.5, &t));
    shimrt_half h;
    float f;
    double d;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    bool b;
    shimrt_bfloat16 bf;
    shimrt_complex64 c;
    OK(aoti_torch_item_float16(t, &h));
    cr_assert_eq(h.x, 0x4100);
    OK(aoti_torch_item_float32(t, &f));
    cr_assert_eq(f, 2.5f);
    OK(aoti_torch_item_float64(t, &d));
    cr_assert_eq(d, 2.5);
    OK(aoti_torch_item_uint8(t, &u8));
    cr_assert_eq(u8, 2);
    OK(aoti_torch_item_uint16(t, &u16));
    cr_assert_eq(u16, 2);
    OK(aoti_torch_item_uint32(t, &u32));
    cr_assert_eq(u32, 2);
    OK(aoti_torch_item_uint64(t, &u64));
    cr_assert_eq(u64, 2);
    OK(aoti_torch_item_int8(t, &i8));
    cr_assert_eq(i8, 2);
    OK(aoti_torch_item_int16(t, &i16));
    cr_assert_eq(i16, 2);
    OK(aoti_torch_item_int32(t, &i32));
    cr_assert_eq(i32, 2);
    OK(aoti_torch_item_int64(t, &i64));
    cr_assert_eq(i64, 2);
    OK(aoti_torch_item_bool(t, &b));
    cr_assert(b);
    OK(aoti_torch_item_bfloat16(t, &bf));
    cr_assert_eq(bf.x, 0x4020);
    OK(aoti_torch_item_complex64(t, &c));
    cr_assert(c.real == 2.5f && c.imag == 0.0f);
    OK(aoti_torch_delete_tensor_object(t));
}

Test(item, errors) {
    int64_t s[] = {2};
    AtenTensorHandle t = make(6, 1, s), e, m, f8;
    float f;
    FAILS(aoti_torch_item_float32(t, &f), "aoti_torch_item_float32",
          "a tensor with 2 elements cannot be converted to a scalar");
    FAILS(aoti_torch_item_int64(NULL, NULL), "aoti_torch_item_int64", "'tensor' is NULL");
    FAILS(aoti_torch_item_bool(t, NULL), "aoti_torch_item_bool", "ret_value");
    int64_t z[] = {0};
    e = make(6, 1, z);
    FAILS(aoti_torch_item_float32(e, &f), "aoti_torch_item_float32", "0 elements");
    OK(aoti_torch_empty_strided(0, NULL, shimrt_test_strides(0, NULL), 6,
                                aoti_torch_device_type_meta(), 0, &m));
    FAILS(aoti_torch_item_float32(m, &f), "aoti_torch_item_float32", "CPU");
    f8 = make(24, 0, NULL);
    FAILS(aoti_torch_item_float32(f8, &f), "aoti_torch_item_float32",
          "conversion from float8_e4m3fn to float32");
    AtenTensorHandle all[] = {t, e, m, f8};
    for (size_t i = 0; i < 4; i++) OK(aoti_torch_delete_tensor_object(all[i]));
    FAILS(aoti_torch_item_float32(t, &f), "aoti_torch_item_float32", "freed");
}

#define CHECK_SCALAR(fn, ctype, value, code)                                                       \
    do {                                                                                           \
        AtenTensorHandle t_;                                                                       \
        OK(fn(value, &t_));                                                                        \
        int32_t dt_;                                                                               \
        int64_t dim_;                                                                              \
        OK(aoti_torch_get_dtype(t_, &dt_));                                                        \
        cr_assert_eq(dt_, code, #fn " dtype");                                                     \
        OK(aoti_torch_get_dim(t_, &dim_));                                                         \
        cr_assert_eq(dim_, 0);                                                                     \
        ctype got_;                                                                                \
        memcpy(&got_, data(t_), sizeof got_);                                                      \
        ctype want_ = value;                                                                       \
        cr_assert(!memcmp(&got_, &want_, sizeof got_), #fn " value");                              \
        OK(aoti_torch_delete_tensor_object(t_));                                                   \
        FAILS(fn(value, NULL), #fn, "ret_new_tensor");                                             \
    } while (0)

Test(scalar_to_tensor, every_function) {
    CHECK_SCALAR(aoti_torch_scalar_to_tensor_float32, float, 1.25f, 6);
    CHECK_SCALAR(aoti_torch_scalar_to_tensor_float64, double, -3.5, 7);
    CHECK_SCALAR(aoti_torch_scalar_to_tensor_uint8, uint8_t, 200, 0);
    CHECK_SCALAR(aoti_torch_scalar_to_tensor_uint16, uint16_t, 60000, 27);
    CHECK_SCALAR(aoti_torch_scalar_to_tensor_uint32, uint32_t, 4000000000u, 28);
    CHECK_SCALAR(aoti_torch_scalar_to_tensor_uint64, uint64_t, UINT64_MAX, 29);
    CHECK_SCALAR(aoti_torch_scalar_to_tensor_int8, int8_t, -100, 1);
    CHECK_SCALAR(aoti_torch_scalar_to_tensor_int16, int16_t, -30000, 2);
    CHECK_SCALAR(aoti_torch_scalar_to_tensor_int32, int32_t, -2000000000, 3);
    CHECK_SCALAR(aoti_torch_scalar_to_tensor_int64, int64_t, INT64_MIN, 4);
    CHECK_SCALAR(aoti_torch_scalar_to_tensor_bool, uint8_t, 1, 11);
    CHECK_SCALAR(aoti_torch_scalar_to_tensor_complex64, shimrt_complex64,
                 ((shimrt_complex64){1.0f, -2.0f}), 9);
    CHECK_SCALAR(aoti_torch_scalar_to_tensor_complex128, shimrt_complex128,
                 ((shimrt_complex128){0.5, 8.0}), 10);
}

Test(assign, assign_tensors_and_out) {
    int64_t s[] = {3}, s2[] = {2, 2};
    AtenTensorHandle a = make(6, 1, s), b = make(4, 2, s2), c;
    OK(aoti_torch_assign_tensors(a, b));
    int64_t dim;
    int32_t dt;
    OK(aoti_torch_get_dim(b, &dim));
    cr_assert_eq(dim, 1);
    OK(aoti_torch_get_dtype(b, &dt));
    cr_assert_eq(dt, 6);
    cr_assert_eq(data(a), data(b));
    OK(aoti_torch_assign_tensors(a, a));
    OK(aoti_torch_assign_tensors_out(a, &c));
    cr_assert_neq(c, a);
    cr_assert_eq(data(c), data(a));
    OK(aoti_torch_delete_tensor_object(a));
    float *pc = data(c);
    pc[2] = 1.0f; /* storage alive through b and c */
    FAILS(aoti_torch_assign_tensors(a, b), "aoti_torch_assign_tensors", "'src' is a freed");
    FAILS(aoti_torch_assign_tensors(b, NULL), "aoti_torch_assign_tensors", "'dst' is NULL");
    FAILS(aoti_torch_assign_tensors_out(NULL, &c), "aoti_torch_assign_tensors_out", "NULL");
    FAILS(aoti_torch_assign_tensors_out(b, NULL), "aoti_torch_assign_tensors_out", "ret_dst");
    AtenTensorHandle u, u2;
    OK(aoti_torch_new_uninitialized_tensor(&u));
    OK(aoti_torch_assign_tensors_out(u, &u2));
    bool def = true;
    OK(aoti_torch_is_defined(u2, &def));
    cr_assert(!def);
    OK(aoti_torch_assign_tensors(u, b)); /* b becomes undefined, releasing its storage */
    OK(aoti_torch_is_defined(b, &def));
    cr_assert(!def);
    AtenTensorHandle all[] = {b, c, u, u2};
    for (size_t i = 0; i < 4; i++) OK(aoti_torch_delete_tensor_object(all[i]));
}

/* tests/runtime/test_engine_layouts.c: the CPU engine's planner on the layouts the
 * differential fuzzer (docs/difffuzz.md) found it wrong on: size-1 dims whose stride is not
 * the contiguous one, permuted (non-monotonic) dense layouts, views with an offset. Checked
 * structurally (every element of the view written, nothing outside it; the ASan build
 * also catches a write past the buffer) and against plain loops over logical indices. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "contig.h"
#include "cpu_kernels.h"
#include "shimrt/shimrt.h"

#define OK(call)                                                                                   \
    cr_assert_eq((call), AOTI_TORCH_SUCCESS, "%s failed: %s", #call, torch_exception_get_what())

#define MAXD 8

typedef struct {
    AtenTensorHandle base, view;
    int64_t total; /* elements of base */
} tview;

static char *data_of(AtenTensorHandle t) {
    void *p;
    OK(aoti_torch_get_data_ptr(t, &p));
    return p;
}

/* A view (sizes, strides, offset) of a 1-d buffer holding exactly the view's footprint plus
 * `slack` elements, every byte of the buffer set to `fillbyte`. */
static tview make_view(int32_t dt, int64_t nd, const int64_t *sizes, const int64_t *strides,
                       int64_t offset, int64_t slack, int fillbyte) {
    tview v = {0};
    int64_t hi = 0;
    for (int64_t d = 0; d < nd; d++) hi += (sizes[d] - 1) * strides[d];
    v.total = offset + hi + 1 + slack;
    OK(aoti_torch_empty_strided(1, &v.total, shimrt_test_strides(1, &v.total), dt,
                                aoti_torch_device_type_cpu(), 0, &v.base));
    memset(data_of(v.base), fillbyte, (size_t)v.total * aoti_torch_dtype_element_size(dt));
    OK(aoti_torch__reinterpret_tensor(v.base, nd, sizes, strides, offset, &v.view));
    return v;
}

static void free_view(tview *v) {
    OK(aoti_torch_delete_tensor_object(v->view));
    OK(aoti_torch_delete_tensor_object(v->base));
}

/* Which elements of the buffer the view covers. */
static void footprint(int64_t nd, const int64_t *sizes, const int64_t *strides, int64_t offset,
                      bool *in, int64_t total) {
    memset(in, 0, (size_t)total);
    int64_t n = 1;
    for (int64_t d = 0; d < nd; d++) n *= sizes[d];
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i, off = offset;
        for (int64_t d = nd - 1; d >= 0; d--) {
            off += (r % sizes[d]) * strides[d];
            r /= sizes[d];
        }
        in[off] = true;
    }
}

/* fill_/zero_ write every element of the view and nothing else. */
static void check_fill(int32_t dt, int64_t nd, const int64_t *sizes, const int64_t *strides,
                       int64_t offset, bool zero) {
    tview v = make_view(dt, nd, sizes, strides, offset, 3, 0x7f);
    if (zero)
        OK(shimrt_cpu_zero_(v.view));
    else
        OK(shimrt_cpu_fill__scalar(v.view, shimrt_scalar_double(3.0)));
    size_t es = aoti_torch_dtype_element_size(dt);
    unsigned char want[8] = {0}, guard[8];
    memset(guard, 0x7f, sizeof guard);
    if (!zero) { /* 3.0 in the dtype */
        if (dt == aoti_torch_dtype_bfloat16()) {
            uint16_t b = 0x4040;
            memcpy(want, &b, 2);
        } else if (dt == aoti_torch_dtype_float32()) {
            float f = 3.0f;
            memcpy(want, &f, 4);
        } else if (dt == aoti_torch_dtype_int32()) {
            int32_t i = 3;
            memcpy(want, &i, 4);
        } else {
            cr_assert_fail("dtype not covered by the test");
        }
    }
    bool in[1024];
    cr_assert(v.total <= 1024);
    footprint(nd, sizes, strides, offset, in, v.total);
    const unsigned char *d = (const unsigned char *)data_of(v.base);
    for (int64_t i = 0; i < v.total; i++)
        cr_assert(memcmp(d + (size_t)i * es, in[i] ? want : guard, es) == 0,
                  "buffer element %lld %s", (long long)i, in[i] ? "not written" : "overwritten");
    free_view(&v);
}

Test(engine_layouts, fill_permuted_and_size1_layouts) {
    int32_t bf16 = aoti_torch_dtype_bfloat16(), i32 = aoti_torch_dtype_int32(),
            f32 = aoti_torch_dtype_float32();
    /* issue 17's reports */
    check_fill(bf16, 4, (int64_t[]){2, 4, 4, 1}, (int64_t[]){4, 8, 1, 1}, 0, false);
    check_fill(bf16, 4, (int64_t[]){3, 4, 4, 2}, (int64_t[]){32, 1, 8, 4}, 0, false);
    check_fill(i32, 4, (int64_t[]){3, 2, 2, 3}, (int64_t[]){12, 1, 6, 2}, 0, true);
    /* size-1 dims with odd strides, offsets */
    check_fill(f32, 4, (int64_t[]){4, 4, 4, 1}, (int64_t[]){1, 4, 16, 1}, 3, false);
    check_fill(f32, 3, (int64_t[]){3, 1, 3}, (int64_t[]){3, 1, 1}, 2, false);
    check_fill(f32, 4, (int64_t[]){2, 1, 3, 1}, (int64_t[]){1, 100, 2, 7}, 1, true);
}

static float f32_at(AtenTensorHandle t, int64_t nd, const int64_t *idx) {
    int64_t *st;
    OK(aoti_torch_get_strides(t, &st));
    int64_t off = 0;
    for (int64_t d = 0; d < nd; d++) off += idx[d] * st[d];
    float f;
    memcpy(&f, data_of(t) + off * 4, 4);
    return f;
}

static void fill_iota(tview *v) {
    float *p = (float *)data_of(v->base);
    for (int64_t i = 0; i < v->total; i++) p[i] = (float)(i * 3 % 17) - 5.0f;
}

Test(engine_layouts, cat_of_a_view_with_a_size1_dim) {
    const int64_t sz[4] = {4, 4, 4, 1}, st[4] = {1, 4, 16, 1};
    for (int64_t dim = 0; dim < 4; dim++) {
        tview v = make_view(aoti_torch_dtype_float32(), 4, sz, st, 3, 0, 0);
        fill_iota(&v);
        AtenTensorHandle r = NULL;
        OK(shimrt_cpu_cat(&v.view, 1, dim, &r));
        int64_t *rs;
        OK(aoti_torch_get_sizes(r, &rs));
        cr_assert(memcmp(rs, sz, sizeof sz) == 0);
        for (int64_t i = 0; i < 64; i++) {
            int64_t idx[4] = {i / 16, i / 4 % 4, i % 4, 0};
            cr_assert_eq(f32_at(r, 4, idx), f32_at(v.view, 4, idx), "dim %lld elem %lld",
                         (long long)dim, (long long)i);
        }
        OK(aoti_torch_delete_tensor_object(r));
        free_view(&v);
    }
}

Test(engine_layouts, binary_with_a_size1_dim_of_odd_stride) {
    /* sub(f32[3], f32[3,1,3] strides [3,1,1]) */
    const int64_t bsz[3] = {3, 1, 3}, bst[3] = {3, 1, 1}, asz[1] = {3}, ast[1] = {1};
    tview a = make_view(aoti_torch_dtype_float32(), 1, asz, ast, 0, 0, 0);
    tview b = make_view(aoti_torch_dtype_float32(), 3, bsz, bst, 0, 0, 0);
    fill_iota(&a);
    fill_iota(&b);
    for (int pass = 0; pass < 2; pass++) {
        AtenTensorHandle r = NULL;
        if (pass == 0)
            OK(shimrt_cpu_sub_tensor(b.view, a.view, shimrt_scalar_int(1), &r));
        else
            OK(shimrt_cpu_sub_tensor(a.view, b.view, shimrt_scalar_int(1), &r));
        for (int64_t i = 0; i < 3; i++)
            for (int64_t k = 0; k < 3; k++) {
                int64_t idx[3] = {i, 0, k};
                float x = f32_at(b.view, 3, idx), y = f32_at(a.view, 1, &idx[2]);
                float want = pass == 0 ? x - y : y - x;
                cr_assert_eq(f32_at(r, 3, idx), want, "pass %d [%lld,0,%lld]", pass, (long long)i,
                             (long long)k);
            }
        OK(aoti_torch_delete_tensor_object(r));
    }
    free_view(&a);
    free_view(&b);
}

Test(engine_layouts, compare_bf16_broadcast_with_a_size1_dim) {
    /* eq(bf16[2], bf16[3,1,3,2] strides [6,1,2,1]): reads of the first operand stay in it */
    int32_t bf16 = aoti_torch_dtype_bfloat16();
    const int64_t asz[1] = {2}, ast[1] = {1}, bsz[4] = {3, 1, 3, 2}, bst[4] = {6, 1, 2, 1};
    tview a = make_view(bf16, 1, asz, ast, 0, 0, 0);
    tview b = make_view(bf16, 4, bsz, bst, 0, 0, 0);
    uint16_t *pa = (uint16_t *)data_of(a.base), *pb = (uint16_t *)data_of(b.base);
    pa[0] = 0x3f80, pa[1] = 0x4000; /* 1, 2 */
    for (int64_t i = 0; i < b.total; i++) pb[i] = i % 3 == 0 ? 0x3f80 : 0x4000;
    AtenTensorHandle r = NULL;
    OK(shimrt_cpu_eq_tensor(a.view, b.view, &r));
    int64_t *rst;
    OK(aoti_torch_get_strides(r, &rst));
    const unsigned char *rd = (const unsigned char *)data_of(r);
    for (int64_t i = 0; i < 3; i++)
        for (int64_t k = 0; k < 3; k++)
            for (int64_t l = 0; l < 2; l++) {
                bool want = pa[l] == pb[i * 6 + k * 2 + l];
                int64_t off = i * rst[0] + k * rst[2] + l * rst[3];
                cr_assert_eq(rd[off], want, "[%lld,0,%lld,%lld]", (long long)i, (long long)k,
                             (long long)l);
            }
    OK(aoti_torch_delete_tensor_object(r));
    free_view(&a);
    free_view(&b);
}

static void want_strides(AtenTensorHandle r, int64_t nd, const int64_t *want) {
    int64_t *st;
    OK(aoti_torch_get_strides(r, &st));
    for (int64_t d = 0; d < nd; d++)
        cr_assert_eq(st[d], want[d], "stride %lld: %lld, PyTorch %lld", (long long)d,
                     (long long)st[d], (long long)want[d]);
    OK(aoti_torch_delete_tensor_object(r));
}

/* The layout of a new output without elements, as PyTorch 2.15 gives it (measured with
 * torch: the inputs are as_strided views of the same sizes and strides). */
Test(engine_layouts, output_strides_of_empty_results) {
    int32_t f32 = aoti_torch_dtype_float32(), u8 = aoti_torch_dtype_uint8(),
            i8 = aoti_torch_dtype_int8();
    AtenTensorHandle r;
    /* eq(u8[1,0] strides (1,1), f32[3,1] strides (1,1)).stride() == (1, 1): the default
     * dim order gives contiguous strides, not (0, 1) */
    tview a = make_view(u8, 2, (int64_t[]){1, 0}, (int64_t[]){1, 1}, 0, 1, 0);
    tview b = make_view(f32, 2, (int64_t[]){3, 1}, (int64_t[]){1, 1}, 0, 0, 0);
    OK(shimrt_cpu_eq_tensor(a.view, b.view, &r));
    want_strides(r, 2, (int64_t[]){1, 1});
    free_view(&a);
    free_view(&b);
    /* mul(i8[1,0,3,3] strides (18,18,6,2), f32[1,0,3,3] strides (9,9,3,1)).stride() ==
     * (9,9,3,1): tensors without elements are contiguous (the fast set-up) */
    a = make_view(i8, 4, (int64_t[]){1, 0, 3, 3}, (int64_t[]){18, 18, 6, 2}, 0, 40, 0);
    b = make_view(f32, 4, (int64_t[]){1, 0, 3, 3}, (int64_t[]){9, 9, 3, 1}, 4, 40, 0);
    OK(shimrt_cpu_mul_tensor(a.view, b.view, &r));
    want_strides(r, 4, (int64_t[]){9, 9, 3, 1});
    /* neg of f32[2,0,3] strides (1,6,2): (3,3,1); add of it and f32[3]: (1,6,2) */
    free_view(&a);
    a = make_view(f32, 3, (int64_t[]){2, 0, 3}, (int64_t[]){1, 6, 2}, 0, 40, 0);
    OK(shimrt_cpu_neg(a.view, &r));
    want_strides(r, 3, (int64_t[]){3, 3, 1});
    tview c = make_view(f32, 1, (int64_t[]){3}, (int64_t[]){1}, 0, 0, 0);
    OK(shimrt_cpu_add_tensor(a.view, c.view, shimrt_scalar_int(1), &r));
    want_strides(r, 3, (int64_t[]){1, 6, 2});
    free_view(&a);
    free_view(&b);
    free_view(&c);
}

/* Ops with a Scalar operand: PyTorch wraps it in a 0-d tensor, so the output always takes
 * the input's dim order (strides measured with torch.add(x.as_strided(...), 2.0)). */
Test(engine_layouts, output_strides_with_a_scalar_operand) {
    int32_t f32 = aoti_torch_dtype_float32();
    static const struct {
        int64_t nd, sizes[4], strides[4], want[4], want_tensor[4];
    } cases[] = {
        {4, {0, 3, 3, 3}, {27, 9, 1, 3}, {27, 9, 1, 3}, {27, 9, 3, 1}},
        {2, {0, 1}, {1, 1}, {1, 0}, {1, 1}},
        {3, {2, 1, 3}, {3, 7, 1}, {3, 6, 1}, {3, 3, 1}},
        {3, {3, 1, 2}, {1, 1, 3}, {1, 1, 3}, {1, 1, 3}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tview a = make_view(f32, cases[i].nd, cases[i].sizes, cases[i].strides, 0, 40, 0);
        AtenTensorHandle r;
        OK(shimrt_cpu_add_scalar(a.view, shimrt_scalar_double(2.0), shimrt_scalar_int(1), &r));
        want_strides(r, cases[i].nd, cases[i].want);
        /* the same input through add.Tensor with itself: the fast set-up's strides */
        OK(shimrt_cpu_add_tensor(a.view, a.view, shimrt_scalar_int(1), &r));
        want_strides(r, cases[i].nd, cases[i].want_tensor);
        free_view(&a);
    }
}

/* A float32 0-d operand of a bfloat16 op is rounded to bfloat16 before the op computes in
 * float32 (PyTorch 2.15: add(bf16 [-3.39e38, inf], tensor(-3.4e38)) is [-inf, nan] and
 * ne(bf16 [-inf, 1], tensor(-3.4e38)) is [false, true]: -3.4e38 rounds to -inf in
 * bfloat16). */
Test(engine_layouts, zero_dim_float_operand_rounds_through_bf16) {
    int32_t bf16 = aoti_torch_dtype_bfloat16(), f32 = aoti_torch_dtype_float32();
    tview a = make_view(bf16, 1, (int64_t[]){2}, (int64_t[]){1}, 0, 0, 0);
    tview b = make_view(f32, 0, NULL, NULL, 0, 0, 0);
    uint16_t *pa = (uint16_t *)data_of(a.base);
    pa[0] = 0xff7f, pa[1] = 0x7f80; /* -3.39e38, inf */
    float v = -3.4e38f;
    memcpy(data_of(b.base), &v, 4);
    AtenTensorHandle r;
    OK(shimrt_cpu_add_tensor(a.view, b.view, shimrt_scalar_int(1), &r));
    const uint16_t *pr = (const uint16_t *)data_of(r);
    cr_assert_eq(pr[0], 0xff80, "add[0] %04x", pr[0]);
    cr_assert_eq(pr[1] & 0x7fc0, 0x7fc0, "add[1] %04x is not NaN", pr[1]);
    OK(aoti_torch_delete_tensor_object(r));
    pa[0] = 0xff80, pa[1] = 0x3f80; /* -inf, 1 */
    OK(shimrt_cpu_ne_tensor(a.view, b.view, &r));
    const uint8_t *pb = (const uint8_t *)data_of(r);
    cr_assert(pb[0] == 0 && pb[1] == 1, "ne %d %d", pb[0], pb[1]);
    OK(aoti_torch_delete_tensor_object(r));
    free_view(&a);
    free_view(&b);
}

/* nonzero_static of a 0-d tensor with size INT64_MAX: PyTorch 2.15 returns an empty
 * [INT64_MAX, 0] tensor at once (the fuzzer's seed 4 call 9385); it must not loop. */
Test(engine_layouts, nonzero_static_of_a_zero_dim_tensor, .timeout = 10) {
    tview a = make_view(aoti_torch_dtype_float32(), 0, NULL, NULL, 0, 0, 0);
    AtenTensorHandle r;
    OK(shimrt_cpu_nonzero_static(a.view, INT64_MAX, -1, &r));
    int64_t *sz;
    OK(aoti_torch_get_sizes(r, &sz));
    cr_assert(sz[0] == INT64_MAX && sz[1] == 0);
    OK(aoti_torch_delete_tensor_object(r));
    free_view(&a);
}

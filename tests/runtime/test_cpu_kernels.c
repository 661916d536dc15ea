/* tests/runtime/test_cpu_kernels.c: the CPU (and CompositeExplicitAutograd) kernels of
 * schemas/native_functions.yaml, called directly through the prototypes of
 * generated/cpu_kernels.h and generated/compositeexplicitautograd_kernels.h.
 * Inputs are built with the runtime's tensor API, contiguous and not (column-major,
 * strided slices with an offset); every expected value is computed here by plain loops
 * over logical indices, never by another kernel. Bad inputs must fail with a message that
 * names the op, and leave the return pointer untouched. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "contig.h"
#include "compositeexplicitautograd_kernels.h"
#include "cpu_kernels.h"
#include "shimrt/shimrt.h"

#define OK(call)                                                                                   \
    cr_assert_eq((call), AOTI_TORCH_SUCCESS, "%s failed: %s", #call, torch_exception_get_what())
/* The kernel call fails, names the op and mentions `needle`. */
#define FAILS(call, opname, needle)                                                                \
    do {                                                                                           \
        cr_assert_eq((call), AOTI_TORCH_FAILURE, "%s should fail", #call);                         \
        const char *w_ = torch_exception_get_what();                                               \
        cr_assert(strstr(w_, opname) != NULL, "message '%s' does not name %s", w_, opname);        \
        cr_assert(strstr(w_, needle) != NULL, "message '%s' lacks '%s'", w_, needle);              \
    } while (0)

/* A Scalar as a C shim passes it (floating), and one whose kind follows its value (an
 * integral value an int Scalar, as a dispatcher caller's Python int). */
#define SD(x) shimrt_scalar_double(x)
static shimrt_scalar SA(double v) {
    return v == floor(v) && fabs(v) < 9e18 ? shimrt_scalar_int((int64_t)v)
                                           : shimrt_scalar_double(v);
}
#define F32 aoti_torch_dtype_float32()
#define F64 aoti_torch_dtype_float64()
#define I64 aoti_torch_dtype_int64()
#define I32 aoti_torch_dtype_int32()
#define I16 aoti_torch_dtype_int16()
#define I8 aoti_torch_dtype_int8()
#define U8 aoti_torch_dtype_uint8()
#define BOOL aoti_torch_dtype_bool()
#define CPU aoti_torch_device_type_cpu()

#define MAXD 8

/* ---- tensor construction and element access (runtime API only) ---- */

enum layout { CONTIG, COLMAJOR, SLICED, NLAYOUTS };

static int64_t numel_of(int64_t nd, const int64_t *sizes) {
    int64_t n = 1;
    for (int64_t d = 0; d < nd; d++) n *= sizes[d];
    return n;
}

static int64_t dim(AtenTensorHandle t) {
    int64_t n;
    OK(aoti_torch_get_dim(t, &n));
    return n;
}
static int64_t *sizes_of(AtenTensorHandle t) {
    int64_t *s;
    OK(aoti_torch_get_sizes(t, &s));
    return s;
}
static int64_t *strides_of(AtenTensorHandle t) {
    int64_t *s;
    OK(aoti_torch_get_strides(t, &s));
    return s;
}
static int32_t dtype_of(AtenTensorHandle t) {
    int32_t d;
    OK(aoti_torch_get_dtype(t, &d));
    return d;
}
static char *data_of(AtenTensorHandle t) {
    void *p;
    OK(aoti_torch_get_data_ptr(t, &p));
    return p;
}
static int64_t numel(AtenTensorHandle t) { return numel_of(dim(t), sizes_of(t)); }

static void *elem_ptr(AtenTensorHandle t, const int64_t *idx) {
    int64_t *st = strides_of(t), off = 0;
    for (int64_t d = 0; d < dim(t); d++) off += idx[d] * st[d];
    return data_of(t) + off * (int64_t)aoti_torch_dtype_element_size(dtype_of(t));
}

static double read_at(AtenTensorHandle t, const int64_t *idx) {
    void *p = elem_ptr(t, idx);
    int32_t dt = dtype_of(t);
    if (dt == F32) return *(float *)p;
    if (dt == F64) return *(double *)p;
    if (dt == I64) return (double)*(int64_t *)p;
    if (dt == I32) return *(int32_t *)p;
    if (dt == I16) return *(int16_t *)p;
    if (dt == I8) return *(int8_t *)p;
    if (dt == U8) return *(uint8_t *)p;
    if (dt == BOOL) return *(uint8_t *)p ? 1.0 : 0.0;
    cr_assert_fail("unexpected dtype %d", dt);
    return 0;
}

static void write_at(AtenTensorHandle t, const int64_t *idx, double v) {
    void *p = elem_ptr(t, idx);
    int32_t dt = dtype_of(t);
    if (dt == F32)
        *(float *)p = (float)v;
    else if (dt == F64)
        *(double *)p = v;
    else if (dt == I64)
        *(int64_t *)p = (int64_t)v;
    else if (dt == I32)
        *(int32_t *)p = (int32_t)v;
    else if (dt == I16)
        *(int16_t *)p = (int16_t)v;
    else if (dt == I8)
        *(int8_t *)p = (int8_t)v;
    else if (dt == U8)
        *(uint8_t *)p = (uint8_t)v;
    else if (dt == BOOL)
        *(uint8_t *)p = v != 0;
    else
        cr_assert_fail("unexpected dtype %d", dt);
}

/* Row-major odometer step; false after the last index. */
static bool next_index(int64_t nd, const int64_t *sizes, int64_t *idx) {
    for (int64_t d = nd - 1; d >= 0; d--) {
        if (++idx[d] < sizes[d]) return true;
        idx[d] = 0;
    }
    return false;
}

/* Every element in logical row-major order, as doubles (caller frees). */
static double *values(AtenTensorHandle t) {
    int64_t n = numel(t), nd = dim(t), idx[MAXD] = {0};
    double *v = calloc((size_t)(n ? n : 1), sizeof *v);
    if (n == 0) return v;
    int64_t i = 0;
    do v[i++] = read_at(t, idx);
    while (next_index(nd, sizes_of(t), idx));
    return v;
}

/* The deterministic test pattern for element i of input number `seed`. */
static double pattern(int32_t dt, int64_t i, int seed) {
    int64_t k = (i * 7 + seed * 5) % 13;
    if (dt == BOOL) return (i + seed) % 3 == 0;
    if (dt == U8) return (double)k;
    if (dt == F32 || dt == F64) return (double)(k - 6) * 0.5 + (seed % 2 ? 0.25 : 0.0);
    return (double)(k - 6);
}

/* A tensor of `sizes` with layout `lay`, filled with pattern(seed) in logical order.
 * COLMAJOR: strides of the reversed dim order. SLICED: every other element of a larger
 * buffer along the last dim, starting at storage offset 1. */
static AtenTensorHandle make(int32_t dt, enum layout lay, int64_t nd, const int64_t *sizes,
                             int seed) {
    int64_t strides[MAXD], extent = 1, offset = 0;
    if (lay == COLMAJOR) {
        int64_t s = 1;
        for (int64_t d = 0; d < nd; d++) {
            strides[d] = s;
            s *= sizes[d] > 1 ? sizes[d] : 1;
        }
        extent = s;
    } else {
        int64_t s = lay == SLICED ? 2 : 1;
        for (int64_t d = nd - 1; d >= 0; d--) {
            strides[d] = s;
            s *= sizes[d] > 1 ? sizes[d] : 1;
        }
        extent = s;
        if (lay == SLICED) offset = 1;
    }
    int64_t total = extent + offset + 1;
    AtenTensorHandle base = NULL, t = NULL;
    OK(aoti_torch_empty_strided(1, &total, shimrt_test_strides(1, &total), dt, CPU, 0, &base));
    memset(data_of(base), 0, (size_t)total * aoti_torch_dtype_element_size(dt));
    OK(aoti_torch__reinterpret_tensor(base, nd, sizes, strides, offset, &t));
    OK(aoti_torch_delete_tensor_object(base));
    if (numel_of(nd, sizes) > 0) {
        int64_t idx[MAXD] = {0}, i = 0;
        do write_at(t, idx, pattern(dt, i++, seed));
        while (next_index(nd, sizes, idx));
    }
    return t;
}

static void del(AtenTensorHandle t) { OK(aoti_torch_delete_tensor_object(t)); }

/* Every test ends here: no tensor handle, storage or container may be left alive. */
static void no_live_objects(void) {
    static const char *const kinds[] = {"tensor", "storage", "list", "string", "scalar", "cell"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        int64_t n = -1;
        OK(shimrt_live_objects(kinds[i], &n));
        cr_assert_eq(n, 0, "%lld %s object(s) left alive", (long long)n, kinds[i]);
    }
}

static bool is_float(int32_t dt) { return dt == F32 || dt == F64; }

/* What storing the exact value v into dtype dt gives (test data stays in range). */
static double as_dtype(double v, int32_t dt) {
    if (dt == BOOL) return v != 0;
    if (dt == F32) return (float)v;
    if (dt == F64) return v;
    return trunc(v);
}

static void assert_close(double got, double want, int32_t dt, const char *what, int64_t i) {
    if (isnan(want)) {
        cr_assert(isnan(got), "%s[%lld]: got %g, want NaN", what, (long long)i, got);
        return;
    }
    if (isinf(want)) {
        cr_assert(got == want, "%s[%lld]: got %g, want %g", what, (long long)i, got, want);
        return;
    }
    double tol = dt == F32 ? 1e-5 * (1 + fabs(want)) : dt == F64 ? 1e-12 * (1 + fabs(want)) : 0;
    cr_assert(fabs(got - want) <= tol, "%s[%lld]: got %.9g, want %.9g", what, (long long)i, got,
              want);
}

static void assert_shape(AtenTensorHandle t, int64_t nd, const int64_t *sizes) {
    cr_assert_eq(dim(t), nd, "ndim %lld, want %lld", (long long)dim(t), (long long)nd);
    for (int64_t d = 0; d < nd; d++)
        cr_assert_eq(sizes_of(t)[d], sizes[d], "size[%lld] = %lld, want %lld", (long long)d,
                     (long long)sizes_of(t)[d], (long long)sizes[d]);
}

/* ---- binary ops: reference by broadcasting indices by hand ---- */
typedef enum { ADD, SUB, MUL, DIV } bop;

static double ref_binop(bop op, double x, double y, double alpha) {
    switch (op) {
    case ADD: return x + alpha * y;
    case SUB: return x - alpha * y;
    case MUL: return x * y;
    default: return x / y;
    }
}

static AOTITorchError call_binop(bop op, AtenTensorHandle a, AtenTensorHandle b, double alpha,
                                 AtenTensorHandle *r) {
    switch (op) {
    case ADD: return shimrt_cpu_add_tensor(a, b, SA(alpha), r);
    case SUB: return shimrt_cpu_sub_tensor(a, b, SA(alpha), r);
    case MUL: return shimrt_cpu_mul_tensor(a, b, r);
    default: return shimrt_cpu_div_tensor(a, b, r);
    }
}

/* Runs op on (a, b) and checks shape, dtype want_dt and every value. */
static void check_binop(bop op, AtenTensorHandle a, AtenTensorHandle b, double alpha,
                        int32_t want_dt) {
    AtenTensorHandle r = NULL;
    OK(call_binop(op, a, b, alpha, &r));
    cr_assert_eq(dtype_of(r), want_dt, "result dtype %d, want %d", dtype_of(r), want_dt);
    int64_t na = dim(a), nb = dim(b), n = na > nb ? na : nb, shape[MAXD] = {0};
    for (int64_t d = 0; d < n; d++) {
        int64_t sa = d - (n - na) >= 0 ? sizes_of(a)[d - (n - na)] : 1;
        int64_t sb = d - (n - nb) >= 0 ? sizes_of(b)[d - (n - nb)] : 1;
        shape[d] = sa == 1 ? sb : sa;
    }
    assert_shape(r, n, shape);
    if (numel_of(n, shape) == 0) {
        del(r);
        return;
    }
    int64_t idx[MAXD] = {0}, ia[MAXD], ib[MAXD], i = 0;
    do {
        for (int64_t d = 0; d < na; d++) ia[d] = sizes_of(a)[d] == 1 ? 0 : idx[d + n - na];
        for (int64_t d = 0; d < nb; d++) ib[d] = sizes_of(b)[d] == 1 ? 0 : idx[d + n - nb];
        double want = as_dtype(ref_binop(op, read_at(a, ia), read_at(b, ib), alpha), want_dt);
        assert_close(read_at(r, idx), want, want_dt, "binop", i++);
    } while (next_index(n, shape, idx));
    del(r);
}

Test(binary, same_dtype_all_layouts) {
    int32_t dts[] = {F32, F64, I64, I32};
    int64_t s[] = {3, 4};
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++)
        for (int la = 0; la < NLAYOUTS; la++)
            for (int lb = 0; lb < NLAYOUTS; lb++) {
                AtenTensorHandle a = make(dts[k], la, 2, s, 1), b = make(dts[k], lb, 2, s, 2);
                /* divisors must not be zero for integer inputs: shift them */
                check_binop(ADD, a, b, 1.0, dts[k]);
                check_binop(ADD, a, b, 3.0, dts[k]);
                check_binop(SUB, a, b, 2.0, dts[k]);
                check_binop(MUL, a, b, 1.0, dts[k]);
                check_binop(DIV, a, b, 1.0, is_float(dts[k]) ? dts[k] : F32);
                del(a);
                del(b);
            }
    no_live_objects();
}

Test(binary, broadcasting) {
    int64_t s34[] = {3, 4}, s4[] = {4}, s31[] = {3, 1}, s14[] = {1, 4}, s234[] = {2, 3, 4};
    for (int la = 0; la < NLAYOUTS; la++) {
        AtenTensorHandle a = make(F32, la, 2, s34, 1), b = make(F32, la, 1, s4, 2);
        AtenTensorHandle c = make(F64, la, 2, s31, 3), d = make(F64, la, 2, s14, 4);
        AtenTensorHandle e = make(I64, la, 3, s234, 5);
        check_binop(ADD, a, b, 1.0, F32);
        check_binop(MUL, b, a, 1.0, F32);
        check_binop(SUB, c, d, 1.5, F64); /* [3,1] - [1,4] -> [3,4] */
        check_binop(ADD, e, a, 1.0, F32); /* [2,3,4] int64 + [3,4] float32 */
        check_binop(MUL, e, c, 1.0, F64);
        del(a), del(b), del(c), del(d), del(e);
    }
    int64_t s03[] = {0, 3}, s3[] = {3};
    AtenTensorHandle z = make(F32, CONTIG, 2, s03, 1), v = make(I64, SLICED, 1, s3, 2);
    check_binop(ADD, z, v, 1.0, F32); /* [0, 3] + [3] -> [0, 3] */
    check_binop(DIV, v, z, 1.0, F32);
    del(z), del(v);
    no_live_objects();
}

Test(binary, type_promotion) {
    int64_t s[] = {2, 3};
    AtenTensorHandle i64 = make(I64, SLICED, 2, s, 1), f32 = make(F32, COLMAJOR, 2, s, 2);
    AtenTensorHandle i32 = make(I32, CONTIG, 2, s, 3), u8 = make(U8, CONTIG, 2, s, 4);
    AtenTensorHandle i8 = make(I8, CONTIG, 2, s, 5), b1 = make(BOOL, SLICED, 2, s, 1);
    AtenTensorHandle b2 = make(BOOL, COLMAJOR, 2, s, 2), f64 = make(F64, CONTIG, 2, s, 6);
    check_binop(ADD, i64, f32, 1.0, F32); /* int64 + float32 -> float32 */
    check_binop(ADD, i32, i64, 2.0, I64);
    check_binop(MUL, u8, i8, 1.0, I16);  /* uint8 * int8 -> int16 */
    check_binop(ADD, b1, b2, 1.0, BOOL); /* bool + bool stays bool (logical or) */
    check_binop(MUL, b1, b2, 1.0, BOOL);
    check_binop(ADD, b1, i32, 1.0, I32);
    check_binop(MUL, f32, f64, 1.0, F64);
    check_binop(DIV, i64, i32, 1.0, F32); /* true division of integers */
    check_binop(DIV, b1, b2, 1.0, F32);
    /* zero-dim tensors rank below dimensioned ones within a category... */
    AtenTensorHandle z64 = make(F64, CONTIG, 0, NULL, 7), zi = make(I64, CONTIG, 0, NULL, 8);
    check_binop(ADD, f32, z64, 1.0, F32);
    check_binop(ADD, i32, zi, 1.0, I32);
    /* ...but a higher category wins */
    check_binop(ADD, i64, z64, 1.0, F64);
    check_binop(MUL, b1, zi, 1.0, I64);
    check_binop(ADD, z64, zi, 1.0, F64);
    del(i64), del(f32), del(i32), del(u8), del(i8), del(b1), del(b2), del(f64), del(z64), del(zi);
    no_live_objects();
}

Test(binary, integer_wraparound) {
    int64_t s[] = {1};
    AtenTensorHandle a = make(I64, CONTIG, 1, s, 0), b = make(I64, CONTIG, 1, s, 0), r = NULL;
    *(int64_t *)data_of(a) = INT64_MAX;
    *(int64_t *)data_of(b) = 1;
    OK(shimrt_cpu_add_tensor(a, b, SA(1.0), &r));
    cr_assert_eq(*(int64_t *)data_of(r), INT64_MIN);
    del(r);
    AtenTensorHandle c = make(I32, CONTIG, 1, s, 0), d = make(I32, CONTIG, 1, s, 0);
    *(int32_t *)data_of(c) = INT32_MAX;
    *(int32_t *)data_of(d) = 2;
    OK(shimrt_cpu_mul_tensor(c, d, &r));
    cr_assert_eq(*(int32_t *)data_of(r), -2);
    /* int64 arithmetic stays exact beyond 2^53 */
    *(int64_t *)data_of(a) = (INT64_C(1) << 60) + 1;
    *(int64_t *)data_of(b) = 3;
    AtenTensorHandle r2 = NULL, r3 = NULL;
    OK(shimrt_cpu_add_tensor(a, b, SA(1.0), &r2));
    cr_assert_eq(*(int64_t *)data_of(r2), (INT64_C(1) << 60) + 4);
    OK(shimrt_cpu_add_scalar(a, SA(1.0), SA(1.0), &r3));
    cr_assert_eq(*(int64_t *)data_of(r3), (INT64_C(1) << 60) + 2);
    del(r2), del(r3);
    del(r), del(a), del(b), del(c), del(d);
    no_live_objects();
}

Test(binary, errors) {
    int64_t s23[] = {2, 3}, s4[] = {4};
    AtenTensorHandle a = make(F32, CONTIG, 2, s23, 1), b = make(F32, CONTIG, 1, s4, 2);
    AtenTensorHandle i = make(I64, CONTIG, 2, s23, 1), bl = make(BOOL, CONTIG, 2, s23, 1);
    AtenTensorHandle r = NULL, cplx = NULL;
    FAILS(shimrt_cpu_add_tensor(a, b, SD(1.0), &r), "add.Tensor", "cannot be broadcast");
    FAILS(shimrt_cpu_sub_tensor(a, b, SD(1.0), &r), "sub.Tensor", "[2, 3] and [4]");
    FAILS(shimrt_cpu_mul_tensor(a, b, &r), "mul.Tensor", "broadcast");
    FAILS(shimrt_cpu_div_tensor(b, a, &r), "div.Tensor", "broadcast");
    FAILS(shimrt_cpu_add_tensor(i, i, SD(1.5), &r), "add.Tensor", "alpha");
    FAILS(shimrt_cpu_sub_tensor(bl, a, SD(1.0), &r), "sub.Tensor", "bool");
    FAILS(shimrt_cpu_add_scalar(i, SA(1.0), SD(0.5), &r), "add.Scalar", "alpha");
    /* a floating alpha with integral inputs: refused, as PyTorch's C shim refuses it */
    FAILS(shimrt_cpu_add_tensor(i, i, SD(1.0), &r), "add.Tensor", "alpha");
    OK(aoti_torch_empty_strided(2, s23, shimrt_test_strides(2, s23), aoti_torch_dtype_complex64(),
                                CPU, 0, &cplx));
    /* complex operands where PyTorch's CPU kernels have none (its messages) */
    FAILS(shimrt_cpu_lt_tensor(a, cplx, &r), "lt.Tensor",
          "\"lt_cpu\" not implemented for 'ComplexFloat'");
    FAILS(shimrt_cpu_relu(cplx, &r), "relu", "clamp is not supported for complex types");
    cr_assert_null(r);
    del(a), del(b), del(i), del(bl), del(cplx);
    no_live_objects();
}

/* ---- add.Scalar ---- */
static void check_add_scalar(AtenTensorHandle a, double other, double alpha, int32_t want_dt) {
    AtenTensorHandle r = NULL;
    OK(shimrt_cpu_add_scalar(a, SA(other), SA(alpha), &r));
    cr_assert_eq(dtype_of(r), want_dt, "dtype %d, want %d", dtype_of(r), want_dt);
    assert_shape(r, dim(a), sizes_of(a));
    double *va = values(a), *vr = values(r);
    for (int64_t i = 0; i < numel(a); i++)
        assert_close(vr[i], as_dtype(va[i] + alpha * other, want_dt), want_dt, "add.Scalar", i);
    free(va), free(vr), del(r);
}

Test(add_scalar, dtypes_and_promotion) {
    int64_t s[] = {3, 4};
    for (int l = 0; l < NLAYOUTS; l++) {
        AtenTensorHandle f = make(F32, l, 2, s, 1), d = make(F64, l, 2, s, 2);
        AtenTensorHandle i = make(I64, l, 2, s, 3), b = make(BOOL, l, 2, s, 4);
        AtenTensorHandle i32 = make(I32, l, 2, s, 5);
        check_add_scalar(f, 2.5, 1.0, F32);
        check_add_scalar(d, -1.25, 2.0, F64);
        check_add_scalar(i, 3.0, 2.0, I64);   /* an integral scalar keeps int64 */
        check_add_scalar(i32, 3.0, 1.0, I32); /* ... and int32 */
        check_add_scalar(i, 2.5, 1.0, F32);   /* a fractional one gives the default float */
        check_add_scalar(b, 1.0, 1.0, I64);   /* bool + int -> int64 */
        check_add_scalar(b, 0.5, 1.0, F32);
        del(f), del(d), del(i), del(b), del(i32);
    }
    no_live_objects();
}

/* ---- unary ---- */
static void check_unary(const char *name, AtenTensorHandle a) {
    AtenTensorHandle r = NULL;
    int32_t dt = dtype_of(a), want_dt = dt;
    if (!strcmp(name, "neg"))
        OK(shimrt_cpu_neg(a, &r));
    else if (!strcmp(name, "relu"))
        OK(shimrt_cpu_relu(a, &r));
    else {
        OK(shimrt_cpu_exp(a, &r));
        if (!is_float(dt)) want_dt = F32;
    }
    cr_assert_eq(dtype_of(r), want_dt);
    assert_shape(r, dim(a), sizes_of(a));
    double *va = values(a), *vr = values(r);
    for (int64_t i = 0; i < numel(a); i++) {
        double x = va[i];
        double want = !strcmp(name, "neg") ? -x : !strcmp(name, "relu") ? (x > 0 ? x : 0) : exp(x);
        assert_close(vr[i], as_dtype(want, want_dt), want_dt, name, i);
    }
    free(va), free(vr), del(r);
}

Test(unary, neg_relu_exp) {
    int64_t s[] = {2, 3, 4};
    int32_t dts[] = {F32, F64, I64, I32, I8};
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++)
        for (int l = 0; l < NLAYOUTS; l++) {
            AtenTensorHandle a = make(dts[k], l, 3, s, (int)k);
            check_unary("neg", a);
            check_unary("relu", a);
            check_unary("exp", a);
            del(a);
        }
    AtenTensorHandle b = make(BOOL, SLICED, 3, s, 1);
    check_unary("exp", b); /* bool -> float32 */
    AtenTensorHandle r = NULL;
    FAILS(shimrt_cpu_neg(b, &r), "neg", "bool");
    FAILS(shimrt_cpu_relu(b, &r), "relu", "Boolean");
    cr_assert_null(r);
    del(b);
    no_live_objects();
}

Test(unary, relu_keeps_nan_zero_dim) {
    AtenTensorHandle a = make(F64, CONTIG, 0, NULL, 0), r = NULL;
    *(double *)data_of(a) = NAN;
    OK(shimrt_cpu_relu(a, &r));
    cr_assert_eq(dim(r), 0);
    cr_assert(isnan(*(double *)data_of(r)));
    del(r), del(a);
    no_live_objects();
}

/* ---- reductions ---- */
/* Reference reduction over mask (NULL: all dims). kind 0: sum, 1: max. */
static void check_reduce(int kind, AtenTensorHandle a, const int64_t *dims, int64_t ndims,
                         bool keepdim, int32_t *dtype, int32_t want_dt) {
    AtenTensorHandle r = NULL;
    if (kind == 0)
        OK(shimrt_cpu_sum_dim_intlist(a, dims, ndims, keepdim, dtype, &r));
    else
        OK(shimrt_cpu_amax(a, dims, ndims, keepdim, &r));
    cr_assert_eq(dtype_of(r), want_dt, "dtype %d, want %d", dtype_of(r), want_dt);
    int64_t nd = dim(a), *sz = sizes_of(a);
    bool red[MAXD];
    for (int64_t d = 0; d < nd; d++) red[d] = ndims == 0 || dims == NULL;
    for (int64_t i = 0; i < ndims && dims && nd > 0; i++) red[(dims[i] + nd) % nd] = true;
    int64_t oshape[MAXD] = {0}, on = 0, kshape[MAXD] = {0};
    for (int64_t d = 0; d < nd; d++) {
        kshape[d] = red[d] ? 1 : sz[d];
        if (!red[d] || keepdim) oshape[on++] = kshape[d];
    }
    assert_shape(r, on, oshape);
    int64_t kn = numel_of(nd, kshape);
    double *acc = calloc((size_t)kn + 1, sizeof *acc);
    for (int64_t i = 0; i < kn; i++) acc[i] = kind == 0 ? 0 : -INFINITY;
    int64_t idx[MAXD] = {0};
    if (numel(a) > 0) do {
            int64_t o = 0;
            for (int64_t d = 0; d < nd; d++) o = o * kshape[d] + (red[d] ? 0 : idx[d]);
            double x = as_dtype(read_at(a, idx), want_dt);
            if (kind == 0)
                acc[o] += x;
            else if (isnan(x) || isnan(acc[o]))
                acc[o] = NAN;
            else if (x > acc[o])
                acc[o] = x;
        } while (next_index(nd, sz, idx));
    double *vr = values(r);
    for (int64_t i = 0; i < kn; i++)
        assert_close(vr[i], as_dtype(acc[i], want_dt), want_dt, kind ? "amax" : "sum", i);
    free(acc), free(vr), del(r);
}

Test(reduce, sum_dims_keepdim_dtypes) {
    int64_t s[] = {2, 3, 4};
    int64_t d0[] = {0}, d12[] = {1, 2}, dm1[] = {-1}, d20[] = {2, 0};
    int32_t dts[] = {F32, F64, I64, I32, BOOL};
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++)
        for (int l = 0; l < NLAYOUTS; l++) {
            AtenTensorHandle a = make(dts[k], l, 3, s, (int)k + 1);
            int32_t want = is_float(dts[k]) ? dts[k] : I64; /* integral and bool sum to int64 */
            for (int keep = 0; keep < 2; keep++) {
                check_reduce(0, a, NULL, 0, keep, NULL, want);
                check_reduce(0, a, d0, 0, keep, NULL, want); /* dim=[]: every dim */
                check_reduce(0, a, d0, 1, keep, NULL, want);
                check_reduce(0, a, d12, 2, keep, NULL, want);
                check_reduce(0, a, dm1, 1, keep, NULL, want);
                check_reduce(0, a, d20, 2, keep, NULL, want);
            }
            int32_t f64 = F64, i32 = I32;
            check_reduce(0, a, d12, 2, false, &f64, F64);
            check_reduce(0, a, d0, 1, true, &i32, I32);
            del(a);
        }
    no_live_objects();
}

Test(reduce, amax_dims_and_nan) {
    int64_t s[] = {2, 3, 4};
    int64_t d0[] = {0}, d12[] = {1, 2}, dm1[] = {-1};
    int32_t dts[] = {F32, F64, I64, I32, BOOL};
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++)
        for (int l = 0; l < NLAYOUTS; l++) {
            AtenTensorHandle a = make(dts[k], l, 3, s, (int)k + 2);
            for (int keep = 0; keep < 2; keep++) {
                check_reduce(1, a, d0, 0, keep, NULL, dts[k]);
                check_reduce(1, a, d0, 1, keep, NULL, dts[k]);
                check_reduce(1, a, d12, 2, keep, NULL, dts[k]);
                check_reduce(1, a, dm1, 1, keep, NULL, dts[k]);
            }
            del(a);
        }
    AtenTensorHandle f = make(F32, SLICED, 3, s, 1);
    int64_t at[] = {1, 2, 3};
    write_at(f, at, NAN);
    check_reduce(1, f, dm1, 1, false, NULL, F32);
    check_reduce(1, f, d0, 0, false, NULL, F32);
    del(f);
    no_live_objects();
}

Test(reduce, zero_dim_and_empty) {
    AtenTensorHandle z = make(F64, CONTIG, 0, NULL, 3), r = NULL;
    int64_t d0[] = {0}, dm1[] = {-1};
    check_reduce(0, z, d0, 1, false, NULL, F64);
    check_reduce(1, z, dm1, 1, true, NULL, F64);
    int64_t s[] = {2, 0};
    AtenTensorHandle e = make(I64, CONTIG, 2, s, 0);
    int64_t d1[] = {1};
    check_reduce(0, e, d1, 1, false, NULL, I64); /* empty sums are 0 */
    FAILS(shimrt_cpu_amax(e, d1, 1, false, &r), "amax", "non-zero size");
    cr_assert_null(r);
    del(z), del(e);
    no_live_objects();
}

Test(reduce, errors) {
    int64_t s[] = {2, 3};
    AtenTensorHandle a = make(F32, CONTIG, 2, s, 1), r = NULL;
    int64_t bad[] = {2}, dup[] = {1, -1};
    int32_t cplx = aoti_torch_dtype_complex64();
    FAILS(shimrt_cpu_sum_dim_intlist(a, bad, 1, false, NULL, &r), "sum.dim_IntList",
          "Dimension out of range");
    FAILS(shimrt_cpu_sum_dim_intlist(a, dup, 2, false, NULL, &r), "sum.dim_IntList",
          "multiple times");
    /* dtype=complex64 sums as PyTorch does (tests/engine/oracle.py compares the values);
     * complex32 has no sum kernel in PyTorch (its message) */
    OK(shimrt_cpu_sum_dim_intlist(a, NULL, 0, false, &cplx, &r));
    cr_assert_eq(dtype_of(r), cplx);
    del(r);
    r = NULL;
    int32_t c32 = aoti_torch_dtype_complex32();
    FAILS(shimrt_cpu_sum_dim_intlist(a, NULL, 0, false, &c32, &r), "sum.dim_IntList",
          "\"sum_cpu\" not implemented for 'ComplexHalf'");
    FAILS(shimrt_cpu_amax(a, bad, 1, false, &r), "amax", "Dimension out of range");
    FAILS(shimrt_cpu_amax(a, dup, 2, true, &r), "amax", "multiple times");
    cr_assert_null(r);
    del(a);
    no_live_objects();
}

/* ---- mm ---- */
Test(mm, values_all_layouts) {
    int64_t sa[] = {3, 4}, sb[] = {4, 5};
    int32_t dts[] = {F32, F64, I64, I32};
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++)
        for (int la = 0; la < NLAYOUTS; la++)
            for (int lb = 0; lb < NLAYOUTS; lb++) {
                AtenTensorHandle a = make(dts[k], la, 2, sa, 1), b = make(dts[k], lb, 2, sb, 2);
                AtenTensorHandle r = NULL;
                OK(shimrt_cpu_mm(a, b, &r));
                int64_t want_shape[] = {3, 5};
                assert_shape(r, 2, want_shape);
                cr_assert_eq(dtype_of(r), dts[k]);
                for (int64_t i = 0; i < 3; i++)
                    for (int64_t j = 0; j < 5; j++) {
                        double acc = 0;
                        for (int64_t p = 0; p < 4; p++)
                            acc += read_at(a, (int64_t[]){i, p}) * read_at(b, (int64_t[]){p, j});
                        assert_close(read_at(r, (int64_t[]){i, j}), acc, dts[k], "mm", i * 5 + j);
                    }
                del(a), del(b), del(r);
            }
    no_live_objects();
}

Test(mm, errors) {
    int64_t s23[] = {2, 3}, s45[] = {4, 5}, s3[] = {3}, s234[] = {2, 3, 4}, s34[] = {3, 4};
    AtenTensorHandle a = make(F32, CONTIG, 2, s23, 1), b = make(F32, CONTIG, 2, s45, 2);
    AtenTensorHandle v = make(F32, CONTIG, 1, s3, 1), t3 = make(F32, CONTIG, 3, s234, 1);
    AtenTensorHandle d = make(F64, CONTIG, 2, s34, 1), bl = make(BOOL, CONTIG, 2, s23, 1);
    AtenTensorHandle bl2 = make(BOOL, CONTIG, 2, s34, 1), r = NULL;
    FAILS(shimrt_cpu_mm(a, b, &r), "mm", "cannot be multiplied (2x3 and 4x5)");
    FAILS(shimrt_cpu_mm(v, a, &r), "mm", "self must be a matrix");
    FAILS(shimrt_cpu_mm(a, t3, &r), "mm", "mat2 must be a matrix");
    FAILS(shimrt_cpu_mm(a, d, &r), "mm", "same dtype");
    FAILS(shimrt_cpu_mm(bl, bl2, &r), "mm", "not implemented for 'Bool'");
    cr_assert_null(r);
    del(a), del(b), del(v), del(t3), del(d), del(bl), del(bl2);
    no_live_objects();
}

/* ---- views ---- */
static bool shares(AtenTensorHandle a, AtenTensorHandle b) {
    int64_t oa, ob;
    OK(aoti_torch_get_storage_offset(a, &oa));
    OK(aoti_torch_get_storage_offset(b, &ob));
    size_t es = aoti_torch_dtype_element_size(dtype_of(a));
    return data_of(a) - oa * (int64_t)es == data_of(b) - ob * (int64_t)es;
}

Test(views, transpose_permute) {
    int64_t s[] = {2, 3, 4};
    for (int l = 0; l < NLAYOUTS; l++) {
        AtenTensorHandle a = make(F32, l, 3, s, 1), t = NULL, p = NULL;
        OK(shimrt_transpose_int(a, 0, -1, &t));
        int64_t ts[] = {4, 3, 2};
        assert_shape(t, 3, ts);
        cr_assert(shares(a, t));
        int64_t dims[] = {1, 2, 0};
        OK(shimrt_permute(a, dims, 3, &p));
        int64_t ps[] = {3, 4, 2};
        assert_shape(p, 3, ps);
        for (int64_t i = 0; i < 2; i++)
            for (int64_t j = 0; j < 3; j++)
                for (int64_t k = 0; k < 4; k++) {
                    double x = read_at(a, (int64_t[]){i, j, k});
                    cr_assert_eq(read_at(t, (int64_t[]){k, j, i}), x);
                    cr_assert_eq(read_at(p, (int64_t[]){j, k, i}), x);
                }
        del(a), del(t), del(p);
    }
    AtenTensorHandle a = make(I64, CONTIG, 3, s, 1), r = NULL;
    int64_t dup[] = {0, 0, 1}, shortd[] = {0, 1};
    FAILS(shimrt_transpose_int(a, 0, 3, &r), "transpose.int", "Dimension out of range");
    FAILS(shimrt_permute(a, dup, 3, &r), "permute", "duplicate");
    FAILS(shimrt_permute(a, shortd, 2, &r), "permute", "does not match");
    cr_assert_null(r);
    del(a);
    no_live_objects();
}

Test(views, view_and_reshape) {
    int64_t s[] = {3, 4}, v26[] = {2, 6}, vm1[] = {-1, 3}, v12[] = {12}, v2x[] = {2, 1, 6, 1};
    AtenTensorHandle a = make(F64, CONTIG, 2, s, 1), v = NULL, r = NULL;
    double *va = values(a);
    const int64_t *shapes[] = {v26, vm1, v12, v2x};
    int64_t lens[] = {2, 2, 1, 4};
    for (int k = 0; k < 4; k++) {
        OK(shimrt_view(a, shapes[k], lens[k], &v));
        cr_assert(shares(a, v));
        double *vv = values(v);
        cr_assert_eq(numel(v), 12);
        for (int i = 0; i < 12; i++) cr_assert_eq(vv[i], va[i]);
        free(vv), del(v);
    }
    int64_t want[] = {4, 3};
    OK(shimrt_view(a, vm1, 2, &v));
    assert_shape(v, 2, want);
    del(v);
    /* a column-major tensor cannot be viewed flat, but can be reshaped (a copy) */
    AtenTensorHandle c = make(F64, COLMAJOR, 2, s, 1);
    v = NULL;
    FAILS(shimrt_view(c, v12, 1, &v), "view", "not compatible");
    cr_assert_null(v);
    OK(shimrt_cpu_reshape(c, v12, 1, &r));
    cr_assert(!shares(c, r));
    double *vc = values(c), *vr = values(r);
    for (int i = 0; i < 12; i++) cr_assert_eq(vr[i], vc[i]);
    free(vc), free(vr), del(r);
    /* splitting a dim of the column-major tensor is a view */
    int64_t split[] = {3, 2, 2};
    OK(shimrt_cpu_reshape(c, split, 3, &r));
    cr_assert(shares(c, r));
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 4; j++)
            cr_assert_eq(read_at(r, (int64_t[]){i, j / 2, j % 2}), read_at(c, (int64_t[]){i, j}));
    del(r);
    OK(shimrt_cpu_reshape(a, v26, 2, &r));
    cr_assert(shares(a, r));
    del(r);
    /* a sliced tensor reshaped: copy, same logical order */
    AtenTensorHandle sl = make(I32, SLICED, 2, s, 2);
    OK(shimrt_cpu_reshape(sl, v12, 1, &r));
    double *vs = values(sl), *vr2 = values(r);
    for (int i = 0; i < 12; i++) cr_assert_eq(vr2[i], vs[i]);
    free(vs), free(vr2), del(r), del(sl);
    int64_t bad[] = {5, 3}, two[] = {-1, -1}, neg[] = {-2, 6};
    r = NULL;
    FAILS(shimrt_view(a, bad, 2, &r), "view", "invalid for input of size 12");
    FAILS(shimrt_view(a, two, 2, &r), "view", "only one dimension");
    FAILS(shimrt_cpu_reshape(a, neg, 2, &r), "reshape", "invalid shape dimension");
    FAILS(shimrt_cpu_reshape(a, bad, 2, &r), "reshape", "invalid");
    cr_assert_null(r);
    free(va), del(a), del(c);
    no_live_objects();
}

Test(views, narrow_select) {
    int64_t s[] = {4, 5};
    for (int l = 0; l < NLAYOUTS; l++) {
        AtenTensorHandle a = make(I64, l, 2, s, 1), n = NULL, sel = NULL;
        OK(shimrt_narrow(a, 1, -4, 3, &n)); /* columns 1..3 */
        int64_t ns[] = {4, 3};
        assert_shape(n, 2, ns);
        cr_assert(shares(a, n));
        OK(shimrt_select_int(a, 0, -2, &sel)); /* row 2 */
        int64_t ss[] = {5};
        assert_shape(sel, 1, ss);
        for (int64_t i = 0; i < 4; i++)
            for (int64_t j = 0; j < 3; j++)
                cr_assert_eq(read_at(n, (int64_t[]){i, j}), read_at(a, (int64_t[]){i, j + 1}));
        for (int64_t j = 0; j < 5; j++)
            cr_assert_eq(read_at(sel, (int64_t[]){j}), read_at(a, (int64_t[]){2, j}));
        del(n), del(sel), del(a);
    }
    AtenTensorHandle a = make(F32, CONTIG, 2, s, 1), z = make(F32, CONTIG, 0, NULL, 1), r = NULL;
    OK(shimrt_narrow(a, 0, 4, 0, &r)); /* an empty slice at the end is fine */
    cr_assert_eq(sizes_of(r)[0], 0);
    del(r);
    r = NULL;
    FAILS(shimrt_narrow(a, 0, 2, 3, &r), "narrow", "exceeds dimension size");
    FAILS(shimrt_narrow(a, 0, 5, 0, &r), "narrow", "start out of range");
    FAILS(shimrt_narrow(a, 0, -6, 1, &r), "narrow", "start out of range");
    FAILS(shimrt_narrow(a, 2, 0, 1, &r), "narrow", "Dimension out of range");
    FAILS(shimrt_narrow(a, 0, 0, -1, &r), "narrow", "non-negative");
    FAILS(shimrt_narrow(z, 0, 0, 1, &r), "narrow", "0-dim");
    FAILS(shimrt_select_int(a, 1, 5, &r), "select.int", "out of range");
    FAILS(shimrt_select_int(a, 0, -5, &r), "select.int", "out of range");
    FAILS(shimrt_select_int(z, 0, 0, &r), "select.int", "0-dim");
    FAILS(shimrt_select_int(a, -3, 0, &r), "select.int", "Dimension out of range");
    cr_assert_null(r);
    del(a), del(z);
    no_live_objects();
}

Test(views, squeeze_unsqueeze_flatten) {
    int64_t s[] = {2, 1, 3};
    AtenTensorHandle a = make(F32, SLICED, 3, s, 1), r = NULL;
    OK(shimrt_squeeze_dim(a, 1, &r));
    int64_t sq[] = {2, 3};
    assert_shape(r, 2, sq);
    cr_assert(shares(a, r));
    for (int64_t i = 0; i < 2; i++)
        for (int64_t j = 0; j < 3; j++)
            cr_assert_eq(read_at(r, (int64_t[]){i, j}), read_at(a, (int64_t[]){i, 0, j}));
    del(r);
    OK(shimrt_squeeze_dim(a, -1, &r)); /* size 3: unchanged */
    assert_shape(r, 3, s);
    del(r);
    OK(shimrt_unsqueeze(a, -1, &r));
    int64_t us[] = {2, 1, 3, 1};
    assert_shape(r, 4, us);
    del(r);
    OK(shimrt_unsqueeze(a, 0, &r));
    int64_t u0[] = {1, 2, 1, 3};
    assert_shape(r, 4, u0);
    for (int64_t i = 0; i < 2; i++)
        for (int64_t j = 0; j < 3; j++)
            cr_assert_eq(read_at(r, (int64_t[]){0, i, 0, j}), read_at(a, (int64_t[]){i, 0, j}));
    del(r);
    r = NULL;
    FAILS(shimrt_squeeze_dim(a, 3, &r), "squeeze.dim", "Dimension out of range");
    FAILS(shimrt_unsqueeze(a, 4, &r), "unsqueeze", "Dimension out of range");
    /* flatten */
    int64_t s4[] = {2, 3, 4, 5};
    for (int l = 0; l < NLAYOUTS; l++) {
        AtenTensorHandle b = make(I64, l, 4, s4, 3);
        double *vb = values(b);
        OK(shimrt_cpu_flatten_using_ints(b, 1, -2, &r));
        int64_t fs[] = {2, 12, 5};
        assert_shape(r, 3, fs);
        double *vr = values(r);
        for (int i = 0; i < 120; i++) cr_assert_eq(vr[i], vb[i]);
        free(vr), del(r);
        OK(shimrt_cpu_flatten_using_ints(b, 0, -1, &r));
        int64_t all[] = {120};
        assert_shape(r, 1, all);
        vr = values(r);
        for (int i = 0; i < 120; i++) cr_assert_eq(vr[i], vb[i]);
        free(vr), free(vb), del(r), del(b);
    }
    AtenTensorHandle z = make(F64, CONTIG, 0, NULL, 1);
    OK(shimrt_cpu_flatten_using_ints(z, 0, -1, &r));
    int64_t one[] = {1};
    assert_shape(r, 1, one);
    del(r);
    OK(shimrt_squeeze_dim(z, -1, &r));
    cr_assert_eq(dim(r), 0);
    del(r);
    r = NULL;
    FAILS(shimrt_cpu_flatten_using_ints(a, 2, 1, &r), "flatten.using_ints", "start_dim");
    FAILS(shimrt_cpu_flatten_using_ints(a, 0, 3, &r), "flatten.using_ints", "out of range");
    cr_assert_null(r);
    del(a), del(z);
    no_live_objects();
}

/* ---- allocation, fills, copies ---- */
Test(alloc, empty_like_new_empty_new_zeros) {
    int64_t s[] = {3, 4};
    AtenTensorHandle c = make(F32, COLMAJOR, 2, s, 1), r = NULL;
    OK(shimrt_empty_like(c, NULL, NULL, NULL, -1, NULL, NULL, &r)); /* preserve format */
    assert_shape(r, 2, s);
    cr_assert_eq(strides_of(r)[0], 1);
    cr_assert_eq(strides_of(r)[1], 3);
    cr_assert_eq(dtype_of(r), F32);
    cr_assert(!shares(c, r));
    del(r);
    int32_t i64 = I64, contig = 0, strided = 0;
    OK(shimrt_empty_like(c, &i64, &strided, NULL, -1, NULL, &contig, &r));
    cr_assert_eq(dtype_of(r), I64);
    cr_assert_eq(strides_of(r)[0], 4);
    del(r);
    /* a sliced input is not dense: preserve gives dense strides in the same order */
    AtenTensorHandle sl = make(F32, SLICED, 2, s, 1);
    OK(shimrt_empty_like(sl, NULL, NULL, NULL, -1, NULL, NULL, &r));
    cr_assert_eq(strides_of(r)[0], 4);
    cr_assert_eq(strides_of(r)[1], 1);
    del(r);
    int64_t s4[] = {2, 3, 4, 5};
    AtenTensorHandle n4 = make(F64, CONTIG, 4, s4, 1);
    int32_t cl = 2;
    OK(shimrt_empty_like(n4, NULL, NULL, NULL, -1, NULL, &cl, &r));
    int64_t cls[] = {60, 1, 15, 3};
    for (int d = 0; d < 4; d++) cr_assert_eq(strides_of(r)[d], cls[d]);
    del(r);
    r = NULL;
    int32_t coo = 1, bad_dt = 99, yes = 1;
    FAILS(shimrt_empty_like(c, NULL, &coo, NULL, -1, NULL, NULL, &r), "empty_like", "layout");
    FAILS(shimrt_empty_like(c, &bad_dt, NULL, NULL, -1, NULL, NULL, &r), "empty_like", "99");
    FAILS(shimrt_empty_like(c, NULL, NULL, NULL, -1, &yes, NULL, &r), "empty_like", "pin_memory");
    FAILS(shimrt_empty_like(c, NULL, NULL, NULL, -1, NULL, &cl, &r), "empty_like", "rank 4");
    cr_assert_null(r);

    int64_t ns[] = {2, 5, 3};
    OK(shimrt_new_empty(c, ns, 3, NULL, NULL, NULL, -1, NULL, &r));
    assert_shape(r, 3, ns);
    cr_assert_eq(dtype_of(r), F32);
    del(r);
    int32_t b = BOOL;
    for (int k = 0; k < 2; k++) {
        OK(shimrt_cpu_new_zeros(c, ns, 3, k ? &b : &i64, NULL, NULL, -1, NULL, &r));
        assert_shape(r, 3, ns);
        cr_assert_eq(dtype_of(r), k ? BOOL : I64);
        double *v = values(r);
        for (int i = 0; i < 30; i++) cr_assert_eq(v[i], 0.0);
        free(v), del(r);
    }
    int32_t cpu = CPU;
    OK(shimrt_cpu_new_zeros(c, ns, 0, NULL, NULL, &cpu, 0, NULL, &r)); /* a 0-dim zero */
    cr_assert_eq(dim(r), 0);
    cr_assert_eq(*(float *)data_of(r), 0.0f);
    del(r);
    r = NULL;
    int64_t negs[] = {2, -1};
    FAILS(shimrt_new_empty(c, negs, 2, NULL, NULL, NULL, -1, NULL, &r), "new_empty", "negative");
    FAILS(shimrt_cpu_new_zeros(c, negs, 2, NULL, NULL, NULL, -1, NULL, &r), "new_zeros",
          "negative");
    cr_assert_null(r);
    del(c), del(sl), del(n4);
    no_live_objects();
}

Test(alloc, fill_and_zero_touch_only_the_view) {
    int64_t total = 40, s[] = {3, 4}, st[] = {8, 2};
    int32_t dts[] = {F32, F64, I64, I32, BOOL, U8};
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++) {
        AtenTensorHandle base = NULL, v = NULL;
        OK(aoti_torch_empty_strided(1, &total, shimrt_test_strides(1, &total), dts[k], CPU, 0,
                                    &base));
        for (int64_t i = 0; i < total; i++) write_at(base, (int64_t[]){i}, 1);
        OK(aoti_torch__reinterpret_tensor(base, 2, s, st, 3, &v));
        double fillv = dts[k] == BOOL ? 1 : dts[k] == U8 ? 200 : -7;
        OK(shimrt_cpu_fill__scalar(v, SD(fillv)));
        for (int64_t i = 0; i < total; i++) {
            bool in = i >= 3 && (i - 3) % 2 == 0 && (i - 3) / 8 < 3 && ((i - 3) % 8) / 2 < 4;
            cr_assert_eq(read_at(base, (int64_t[]){i}), in ? fillv : 1.0, "elem %lld",
                         (long long)i);
        }
        OK(shimrt_cpu_zero_(v));
        for (int64_t i = 0; i < total; i++) {
            bool in = i >= 3 && (i - 3) % 2 == 0 && (i - 3) / 8 < 3 && ((i - 3) % 8) / 2 < 4;
            cr_assert_eq(read_at(base, (int64_t[]){i}), in ? 0.0 : 1.0);
        }
        del(v), del(base);
    }
    /* fractional values truncate into integers; out-of-range values fail */
    AtenTensorHandle i8 = make(I8, CONTIG, 2, s, 0), f = make(F32, CONTIG, 2, s, 0);
    OK(shimrt_cpu_fill__scalar(i8, SD(2.9)));
    cr_assert_eq(read_at(i8, (int64_t[]){2, 3}), 2.0);
    FAILS(shimrt_cpu_fill__scalar(i8, SD(300.0)), "fill_.Scalar", "overflow");
    FAILS(shimrt_cpu_fill__scalar(i8, SD(NAN)), "fill_.Scalar", "overflow");
    FAILS(shimrt_cpu_fill__scalar(f, SD(1e39)), "fill_.Scalar", "overflow");
    OK(shimrt_cpu_fill__scalar(f, SD(INFINITY)));
    cr_assert(isinf(read_at(f, (int64_t[]){0, 0})));
    del(i8), del(f);
    no_live_objects();
}

Test(alloc, copy_broadcast_and_convert) {
    int64_t s[] = {3, 4}, s4[] = {4};
    int32_t dts[] = {F32, F64, I64, I32, BOOL};
    for (size_t a = 0; a < sizeof dts / sizeof *dts; a++)
        for (size_t b = 0; b < sizeof dts / sizeof *dts; b++)
            for (int l = 0; l < NLAYOUTS; l++) {
                AtenTensorHandle dst = make(dts[a], l, 2, s, 0);
                AtenTensorHandle src = make(dts[b], (l + 1) % NLAYOUTS, 2, s, 3);
                AtenTensorHandle row = make(dts[b], l, 1, s4, 4);
                OK(shimrt_cpu_copy_(dst, src, 0));
                double *vs = values(src), *vd = values(dst);
                for (int i = 0; i < 12; i++)
                    cr_assert_eq(vd[i], as_dtype(vs[i], dts[a]), "copy %zu<-%zu [%d]", a, b, i);
                free(vs), free(vd);
                OK(shimrt_cpu_copy_(dst, row, 1)); /* [4] broadcast to [3, 4] */
                vs = values(row), vd = values(dst);
                for (int i = 0; i < 12; i++) cr_assert_eq(vd[i], as_dtype(vs[i % 4], dts[a]));
                free(vs), free(vd), del(dst), del(src), del(row);
            }
    /* float -> int truncates toward zero */
    AtenTensorHandle f = make(F64, CONTIG, 1, s4, 0), i = make(I32, CONTIG, 1, s4, 0);
    double fv[] = {2.7, -2.7, 0.5, -0.5};
    for (int k = 0; k < 4; k++) write_at(f, (int64_t[]){k}, fv[k]);
    OK(shimrt_cpu_copy_(i, f, 0));
    int32_t want[] = {2, -2, 0, 0};
    for (int k = 0; k < 4; k++) cr_assert_eq(((int32_t *)data_of(i))[k], want[k]);
    /* overlapping source and destination (shifted view of one buffer): PyTorch refuses a
     * partial overlap (the engine oracle compares the message) */
    int64_t n = 10, s9[] = {9}, st1[] = {1};
    AtenTensorHandle buf = NULL, lo = NULL, hi = NULL;
    OK(aoti_torch_empty_strided(1, &n, shimrt_test_strides(1, &n), I64, CPU, 0, &buf));
    for (int64_t k = 0; k < 10; k++) ((int64_t *)data_of(buf))[k] = k;
    OK(aoti_torch__reinterpret_tensor(buf, 1, s9, st1, 0, &lo));
    OK(aoti_torch__reinterpret_tensor(buf, 1, s9, st1, 1, &hi));
    FAILS(shimrt_cpu_copy_(hi, lo, 0), "copy_", "refer to a single memory location");
    for (int64_t k = 0; k < 10; k++) cr_assert_eq(((int64_t *)data_of(buf))[k], k);
    /* errors */
    int64_t s3[] = {3}, zst[] = {0, 1};
    AtenTensorHandle m = make(F32, CONTIG, 2, s, 0), v3 = make(F32, CONTIG, 1, s3, 0);
    AtenTensorHandle big = NULL, ex = NULL;
    int64_t s234[] = {2, 3, 4};
    OK(aoti_torch_empty_strided(3, s234, shimrt_test_strides(3, s234), F32, CPU, 0, &big));
    FAILS(shimrt_cpu_copy_(m, v3, 0), "copy_", "cannot be broadcast");
    FAILS(shimrt_cpu_copy_(m, big, 0), "copy_", "[2, 3, 4]");
    OK(aoti_torch__reinterpret_tensor(v3, 2, s, zst, 0, &ex)); /* [3,4] with stride 0 */
    FAILS(shimrt_cpu_copy_(ex, m, 0), "copy_", "single memory location");
    del(f), del(i), del(buf), del(lo), del(hi), del(m), del(v3), del(big), del(ex);
    no_live_objects();
}

Test(alloc, clone_contiguous_to) {
    int64_t s[] = {3, 4};
    for (int l = 0; l < NLAYOUTS; l++) {
        AtenTensorHandle a = make(F32, l, 2, s, 2), r = NULL;
        double *va = values(a);
        OK(shimrt_cpu_clone(a, NULL, &r));
        cr_assert(!shares(a, r));
        if (l == COLMAJOR) cr_assert_eq(strides_of(r)[0], 1); /* layout preserved */
        double *vr = values(r);
        for (int i = 0; i < 12; i++) cr_assert_eq(vr[i], va[i]);
        free(vr), del(r);
        int32_t contig = 0;
        OK(shimrt_cpu_clone(a, &contig, &r));
        cr_assert_eq(strides_of(r)[0], 4);
        del(r);
        OK(shimrt_cpu_contiguous(a, 0, &r));
        bool c;
        OK(aoti_torch_is_contiguous(r, &c));
        cr_assert(c);
        cr_assert_eq(shares(a, r), l == CONTIG); /* already contiguous: same storage */
        cr_assert_eq(data_of(a) == data_of(r), l == CONTIG);
        vr = values(r);
        for (int i = 0; i < 12; i++) cr_assert_eq(vr[i], va[i]);
        free(vr), del(r);
        /* to.dtype: same dtype without copy aliases; otherwise converts */
        OK(shimrt_cpu_to_dtype(a, F32, 0, 0, NULL, &r));
        cr_assert_eq(data_of(a), data_of(r));
        cr_assert_neq(a, r);
        del(r);
        OK(shimrt_cpu_to_dtype(a, F32, 0, 1, NULL, &r));
        cr_assert_neq(data_of(a), data_of(r));
        del(r);
        /* contiguous_format is what any 2-d tensor suggests: PyTorch returns self, whatever
         * the layout (torch.ops.aten.to.dtype(x.t(), torch.float32, False, False,
         * torch.contiguous_format) is x.t()) */
        OK(shimrt_cpu_to_dtype(a, F32, 0, 0, &contig, &r));
        cr_assert_eq(data_of(a), data_of(r));
        del(r);
        int32_t dts[] = {I64, F64, BOOL, I32};
        for (int k = 0; k < 4; k++) {
            OK(shimrt_cpu_to_dtype(a, dts[k], 0, 0, NULL, &r));
            cr_assert_eq(dtype_of(r), dts[k]);
            vr = values(r);
            for (int i = 0; i < 12; i++) cr_assert_eq(vr[i], as_dtype(va[i], dts[k]));
            free(vr), del(r);
        }
        free(va), del(a);
    }
    int64_t s4[] = {2, 3, 4, 5};
    AtenTensorHandle n4 = make(F64, SLICED, 4, s4, 1), r = NULL;
    OK(shimrt_cpu_contiguous(n4, 2, &r)); /* channels_last */
    int64_t cls[] = {60, 1, 15, 3};
    for (int d = 0; d < 4; d++) cr_assert_eq(strides_of(r)[d], cls[d]);
    double *vn = values(n4), *vr = values(r);
    for (int i = 0; i < 120; i++) cr_assert_eq(vr[i], vn[i]);
    free(vn), free(vr), del(r);
    r = NULL;
    FAILS(shimrt_cpu_contiguous(n4, 1, &r), "contiguous", "preserve");
    FAILS(shimrt_cpu_contiguous(n4, 9, &r), "contiguous", "memory format");
    FAILS(shimrt_cpu_to_dtype(n4, 99, 0, 0, NULL, &r), "to.dtype", "99");
    cr_assert_null(r);
    OK(shimrt_cpu_to_dtype(n4, aoti_torch_dtype_complex64(), 0, 0, NULL, &r)); /* as PyTorch */
    del(r);
    del(n4);
    no_live_objects();
}

/* ---- pad ---- */
static void check_pad(AtenTensorHandle a, const int64_t *pad, int64_t npad, double *value) {
    AtenTensorHandle r = NULL;
    OK(shimrt_cpu_pad(a, pad, npad, "constant", value, &r));
    int64_t nd = dim(a), *sz = sizes_of(a), lo[MAXD] = {0}, oshape[MAXD] = {0};
    for (int64_t d = 0; d < nd; d++) {
        int64_t k = nd - 1 - d;
        lo[d] = k < npad / 2 ? pad[2 * k] : 0;
        int64_t hi = k < npad / 2 ? pad[2 * k + 1] : 0;
        oshape[d] = sz[d] + lo[d] + hi;
    }
    assert_shape(r, nd, oshape);
    cr_assert_eq(dtype_of(r), dtype_of(a));
    int64_t idx[MAXD] = {0}, src[MAXD];
    if (numel(r) > 0) do {
            bool inside = true;
            for (int64_t d = 0; d < nd; d++) {
                src[d] = idx[d] - lo[d];
                if (src[d] < 0 || src[d] >= sz[d]) inside = false;
            }
            double want = inside ? read_at(a, src) : as_dtype(value ? *value : 0, dtype_of(a));
            cr_assert_eq(read_at(r, idx), want);
        } while (next_index(nd, oshape, idx));
    del(r);
}

Test(pad, constant_pads_and_crops) {
    int64_t s[] = {2, 3, 4};
    int64_t p1[] = {1, 2}, p2[] = {1, 1, 0, 2}, p3[] = {-1, 1, 2, -2, 1, 0}, p0[] = {0, 0};
    int64_t crop[] = {-2, -2};
    double seven = 7, half = 0.5;
    int32_t dts[] = {F32, F64, I64, I32, BOOL};
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++)
        for (int l = 0; l < NLAYOUTS; l++) {
            AtenTensorHandle a = make(dts[k], l, 3, s, 1);
            check_pad(a, p1, 2, NULL);
            check_pad(a, p2, 4, &seven);
            check_pad(a, p3, 6, &half);
            check_pad(a, p0, 2, NULL);
            check_pad(a, crop, 2, &seven); /* last dim 4 - 2 - 2 = 0 */
            check_pad(a, NULL, 0, NULL);
            del(a);
        }
    AtenTensorHandle a = make(F32, CONTIG, 3, s, 1), r = NULL;
    int64_t odd[] = {1, 1, 1}, toolong[] = {0, 0, 0, 0, 0, 0, 0, 0}, tooneg[] = {-3, -2};
    FAILS(shimrt_cpu_pad(a, odd, 3, "constant", NULL, &r), "pad", "divisible by 2");
    FAILS(shimrt_cpu_pad(a, toolong, 8, "constant", NULL, &r), "pad", "padding length 8");
    /* PyTorch crops with narrow() before anything else */
    FAILS(shimrt_cpu_pad(a, tooneg, 2, "constant", NULL, &r), "pad", "length must be non-negative");
    /* reflect pads less than the dim, takes no value; the modes need 2-5 dims by pad size
     * (values: tests/engine/oracle.py against PyTorch) */
    int64_t toobig[] = {4, 0};
    double one = 1.0;
    FAILS(shimrt_cpu_pad(a, toobig, 2, "reflect", NULL, &r), "pad", "should be less than");
    FAILS(shimrt_cpu_pad(a, p1, 2, "reflect", &one, &r), "pad", "doesn't take in value");
    FAILS(shimrt_cpu_pad(a, p3, 6, "replicate", NULL, &r), "pad", "not supported for 3D");
    int64_t wraps[] = {5, 0};
    FAILS(shimrt_cpu_pad(a, wraps, 2, "circular", NULL, &r), "pad", "wrapping around");
    FAILS(shimrt_cpu_pad(a, p1, 2, "bogus", NULL, &r), "pad", "bogus");
    cr_assert_null(r);
    del(a);
    no_live_objects();
}

/* ---- device and handle checks shared by every CPU kernel ---- */
Test(common, meta_tensors_and_undefined) {
    int64_t s[] = {2, 3};
    AtenTensorHandle m = NULL, r = NULL, u = NULL, c = make(F32, CONTIG, 2, s, 0);
    OK(aoti_torch_empty_strided(2, s, shimrt_test_strides(2, s), F32, aoti_torch_device_type_meta(),
                                0, &m));
    FAILS(shimrt_cpu_add_tensor(m, c, SD(1.0), &r), "add.Tensor", "CPU");
    FAILS(shimrt_cpu_exp(m, &r), "exp", "CPU");
    FAILS(shimrt_cpu_copy_(c, m, 0), "copy_", "src");
    cr_assert_null(r);
    /* the device-generic view kernels work on meta tensors */
    OK(shimrt_transpose_int(m, 0, 1, &r));
    cr_assert_eq(sizes_of(r)[0], 3);
    del(r);
    r = NULL;
    OK(aoti_torch_new_uninitialized_tensor(&u));
    FAILS(shimrt_view(u, s, 2, &r), "view", "undefined");
    FAILS(shimrt_cpu_mm(u, c, &r), "mm", "undefined");
    cr_assert_null(r);
    del(m), del(c), del(u);
    no_live_objects();
}

/* empty.memory_format: contiguous, channels_last (rank 4) and channels_last_3d (rank 5)
 * strides, as PyTorch lays them out (channels innermost, then the spatial dims from the
 * last, then the batch); preserve and wrong ranks refused with PyTorch's messages. */
Test(cpu_kernels, empty_memory_format) {
    int64_t s4[] = {2, 3, 4, 5}, s5[] = {2, 3, 4, 5, 6};
    int32_t cf = aoti_torch_memory_format_contiguous_format(),
            cl = aoti_torch_memory_format_channels_last(),
            cl3 = aoti_torch_memory_format_channels_last_3d(),
            pf = aoti_torch_memory_format_preserve_format();
    struct {
        int64_t n;
        const int64_t *size;
        int32_t *mf;
    } ok[] = {{4, s4, NULL}, {4, s4, &cf}, {4, s4, &cl}, {5, s5, &cl3}, {5, s5, &cf}};
    for (size_t c = 0; c < sizeof ok / sizeof ok[0]; c++) {
        AtenTensorHandle t = NULL;
        OK(shimrt_cpu_empty_memory_format(ok[c].size, ok[c].n, NULL, NULL, NULL, -1, NULL, ok[c].mf,
                                          &t));
        int64_t want[MAXD], acc = 1;
        if (ok[c].mf == &cl || ok[c].mf == &cl3) {
            want[1] = 1;
            acc = ok[c].size[1];
            for (int64_t d = ok[c].n - 1; d >= 2; d--) {
                want[d] = acc;
                acc *= ok[c].size[d];
            }
            want[0] = acc;
        } else {
            for (int64_t d = ok[c].n - 1; d >= 0; d--) {
                want[d] = acc;
                acc *= ok[c].size[d];
            }
        }
        int64_t *st = NULL;
        OK(aoti_torch_get_strides(t, &st));
        cr_assert_eq(dim(t), ok[c].n);
        for (int64_t d = 0; d < ok[c].n; d++)
            cr_assert_eq(st[d], want[d], "case %zu dim %lld: stride %lld, want %lld", c,
                         (long long)d, (long long)st[d], (long long)want[d]);
        OK(aoti_torch_delete_tensor_object(t));
    }
    AtenTensorHandle t = NULL;
    FAILS(shimrt_cpu_empty_memory_format(s4, 4, NULL, NULL, NULL, -1, NULL, &pf, &t),
          "empty.memory_format", "unsupported memory format Preserve");
    FAILS(shimrt_cpu_empty_memory_format(s5, 5, NULL, NULL, NULL, -1, NULL, &cl, &t),
          "empty.memory_format", "required rank 4 tensor to use channels_last format");
    FAILS(shimrt_cpu_empty_memory_format(s4, 4, NULL, NULL, NULL, -1, NULL, &cl3, &t),
          "empty.memory_format", "required rank 5 tensor to use channels_last_3d format");
    cr_assert_null(t);
}

/* full.out: a 0-dim out with the empty size list, which the boxed path passes as NULL (the
 * dispatcher fuzzer found a memcmp on it); an out of another size is resized as PyTorch
 * resizes out arguments (contiguous, its storage grown when it must), unless its storage is
 * not the runtime's (from_blob). */
Test(cpu_kernels, full_out_sizes) {
    AtenTensorHandle z = NULL, m = NULL;
    OK(aoti_torch_empty_strided(0, NULL, NULL, F64, CPU, 0, &z));
    OK(shimrt_full_out(z, NULL, 0, SD(2.5)));
    void *p = NULL;
    OK(aoti_torch_get_data_ptr(z, &p));
    cr_assert_eq(*(double *)p, 2.5);
    int64_t s[] = {2, 3}, st[] = {3, 1}, other[] = {3, 2};
    OK(aoti_torch_empty_strided(2, s, st, F32, CPU, 0, &m));
    OK(shimrt_full_out(m, s, 2, SD(-1.0)));
    OK(aoti_torch_get_data_ptr(m, &p));
    for (int k = 0; k < 6; k++) cr_assert_eq(((float *)p)[k], -1.0f);
    OK(shimrt_full_out(m, other, 2, SD(4.0))); /* same element count: the storage stays */
    OK(aoti_torch_get_data_ptr(m, &p));
    cr_assert_eq(dim(m), 2);
    cr_assert(sizes_of(m)[0] == 3 && sizes_of(m)[1] == 2 && strides_of(m)[0] == 2 &&
              strides_of(m)[1] == 1);
    for (int k = 0; k < 6; k++) cr_assert_eq(((float *)p)[k], 4.0f);
    OK(shimrt_full_out(m, NULL, 0, SD(7.0))); /* to 0-dim */
    cr_assert_eq(dim(m), 0);
    OK(aoti_torch_get_data_ptr(m, &p));
    cr_assert_eq(*(float *)p, 7.0f);
    /* growing the storage moves it: a view of z, sharing it, sees the new block */
    AtenTensorHandle v = NULL;
    int64_t one[] = {1}, st1[] = {1};
    OK(aoti_torch__reinterpret_tensor(z, 1, one, st1, 0, &v));
    OK(shimrt_full_out(z, s, 2, SD(1.5)));
    int64_t nbytes = 0;
    OK(aoti_torch_get_storage_size(z, &nbytes));
    cr_assert_eq(nbytes, 6 * (int64_t)sizeof(double));
    OK(aoti_torch_get_data_ptr(z, &p));
    for (int k = 0; k < 6; k++) cr_assert_eq(((double *)p)[k], 1.5);
    void *pv = NULL;
    OK(aoti_torch_get_data_ptr(v, &pv));
    cr_assert_eq(pv, p);
    /* memory the runtime does not own cannot move */
    double blob[2] = {0, 0};
    AtenTensorHandle b = NULL;
    int64_t two[] = {2};
    OK(aoti_torch_create_tensor_from_blob(blob, 1, two, st1, 0, F64, CPU, 0, &b));
    FAILS(shimrt_full_out(b, s, 2, SD(0.0)), "full.out",
          "Trying to resize storage that is not "
          "resizable");
    cr_assert_eq(dim(b), 1);
    OK(shimrt_full_out(b, two, 1, SD(3.0)));
    cr_assert(blob[0] == 3.0 && blob[1] == 3.0);
    AtenTensorHandle all[] = {z, m, v, b};
    for (size_t k = 0; k < 4; k++) OK(aoti_torch_delete_tensor_object(all[k]));
}

/* scatter's and gather's index/src shape checks, with PyTorch 2.15's messages. The dispatcher
 * fuzzer found scatter copying from the NULL data of an empty src: an index larger than src
 * (or with another dim count) must be refused before any element moves, 0-d tensors counting
 * as size [1]. A valid scatter still writes. */
Test(cpu_kernels, scatter_gather_shape_checks) {
    AtenTensorHandle self = NULL, idx = NULL, idx0 = NULL, empty = NULL, src12 = NULL, src3 = NULL,
                     r = NULL;
    int64_t s[] = {2, 7}, st[] = {7, 1}, i[] = {1, 1}, e[] = {0}, s12[] = {1, 2}, ist[] = {1, 1};
    int64_t s3[] = {1, 1, 1}, st3[] = {1, 1, 1};
    OK(aoti_torch_empty_strided(2, s, st, F32, CPU, 0, &self));
    OK(aoti_torch_empty_strided(2, i, ist, I64, CPU, 0, &idx));
    OK(aoti_torch_empty_strided(0, NULL, NULL, I64, CPU, 0, &idx0));
    OK(aoti_torch_empty_strided(1, e, ist, F32, CPU, 0, &empty));
    OK(aoti_torch_empty_strided(2, s12, (int64_t[]){2, 1}, F32, CPU, 0, &src12));
    OK(aoti_torch_empty_strided(3, s3, st3, F32, CPU, 0, &src3));
    OK(aoti_torch_zero_(self));
    void *p = NULL;
    OK(aoti_torch_get_data_ptr(idx, &p));
    *(int64_t *)p = 3;
    OK(aoti_torch_get_data_ptr(idx0, &p));
    *(int64_t *)p = 0;
    OK(aoti_torch_get_data_ptr(src12, &p));
    ((float *)p)[0] = 4.5f;
    FAILS(shimrt_cpu_scatter_src(self, 1, idx, empty, &r), "scatter",
          "Index tensor must have the same number of dimensions as src tensor");
    FAILS(shimrt_cpu_scatter_src(self, 1, idx, src3, &r), "scatter",
          "Index tensor must have the same number of dimensions as src tensor");
    /* a 0-d index against a [0] src: size 1 > 0 */
    FAILS(shimrt_cpu_scatter_reduce_two(empty, 0, idx0, empty, "sum", 1, &r), "scatter_reduce",
          "Expected index [] to be no larger than self [0] apart from dimension 0 and to be no "
          "larger size than src [0]");
    AtenTensorHandle src10 = NULL;
    int64_t s10[] = {1, 0};
    OK(aoti_torch_empty_strided(2, s10, ist, F32, CPU, 0, &src10));
    FAILS(shimrt_cpu_scatter_reduce(self, 1, idx, src10, "add", &r), "scatter",
          "Expected index [1, 1] to be no larger than self [2, 7] apart from dimension 1 and to "
          "be no larger size than src [1, 0]");
    AtenTensorHandle idx3 = NULL;
    OK(aoti_torch_empty_strided(3, s3, st3, I64, CPU, 0, &idx3));
    OK(aoti_torch_zero_(idx3));
    FAILS(shimrt_cpu_gather(self, 1, idx3, 0, &r), "gather",
          "Index tensor must have the same number of dimensions as input tensor");
    AtenTensorHandle big = NULL;
    int64_t b[] = {6, 1};
    OK(aoti_torch_empty_strided(2, b, ist, I64, CPU, 0, &big));
    OK(aoti_torch_zero_(big));
    FAILS(shimrt_cpu_gather(self, 1, big, 0, &r), "gather",
          "Size does not match at dimension 0 expected index [6, 1] to be no larger than self "
          "[2, 7] apart from dimension 1");
    cr_assert_null(r);
    /* the valid case writes src[0][0] at [0][3] */
    OK(shimrt_cpu_scatter_src(self, 1, idx, src12, &r));
    OK(aoti_torch_get_data_ptr(r, &p));
    for (int k = 0; k < 14; k++) cr_assert_eq(((float *)p)[k], k == 3 ? 4.5f : 0.0f);
    AtenTensorHandle all[] = {self, idx, idx0, empty, src12, src3, src10, big, idx3, r};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        OK(aoti_torch_delete_tensor_object(all[k]));
}

/* native_layer_norm.out, the derived out variant shimgen generates (derived_kernels.c):
 * the functional op's three results copied into the outs, bit for bit, an out of another
 * shape resized first. */
Test(cpu_kernels, native_layer_norm_out_is_the_functional_copied) {
    int64_t s[] = {2, 3}, st[] = {3, 1}, ns[] = {3}, s1[] = {2, 1}, st1[] = {1, 1};
    AtenTensorHandle x = NULL, r[3] = {NULL, NULL, NULL}, o[3] = {NULL, NULL, NULL}, bad = NULL;
    OK(aoti_torch_empty_strided(2, s, st, F32, CPU, 0, &x));
    void *p = NULL;
    OK(aoti_torch_get_data_ptr(x, &p));
    for (int k = 0; k < 6; k++) ((float *)p)[k] = (float)(k * k) * 0.37f - 1.0f;
    OK(shimrt_cpu_native_layer_norm(x, ns, 1, NULL, NULL, 1e-5, &r[0], &r[1], &r[2]));
    OK(aoti_torch_empty_strided(2, s, st, F32, CPU, 0, &o[0]));
    OK(aoti_torch_empty_strided(2, s1, st1, F32, CPU, 0, &o[1]));
    OK(aoti_torch_empty_strided(2, s1, st1, F32, CPU, 0, &o[2]));
    for (int k = 0; k < 3; k++) OK(aoti_torch_zero_(o[k]));
    OK(native_layer_norm_out_symint(o[0], o[1], o[2], x, ns, 1, NULL, NULL, 1e-5));
    for (int k = 0; k < 3; k++) {
        void *a = NULL, *b = NULL;
        OK(aoti_torch_get_data_ptr(o[k], &a));
        OK(aoti_torch_get_data_ptr(r[k], &b));
        cr_assert(memcmp(a, b, (size_t)(k ? 2 : 6) * sizeof(float)) == 0, "result %d differs", k);
    }
    OK(aoti_torch_empty_strided(2, s, st, F32, CPU, 0, &bad));
    OK(native_layer_norm_out_symint(o[0], bad, o[2], x, ns, 1, NULL, NULL, 1e-5));
    cr_assert(sizes_of(bad)[0] == 2 && sizes_of(bad)[1] == 1 && strides_of(bad)[0] == 1);
    void *a = NULL, *b = NULL;
    OK(aoti_torch_get_data_ptr(bad, &a));
    OK(aoti_torch_get_data_ptr(r[1], &b));
    cr_assert(memcmp(a, b, 2 * sizeof(float)) == 0);
    AtenTensorHandle all[] = {x, r[0], r[1], r[2], o[0], o[1], o[2], bad};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        OK(aoti_torch_delete_tensor_object(all[k]));
}

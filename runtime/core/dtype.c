/* runtime/core/dtype.c: the dtype traits table (dtype.h); device type, layout and
 * memory-format codes; half-precision conversions. */
#include <math.h>
#include <string.h>

#include "backend.h"
#include "internal.h"

/* ---- one element's load and store, per storage type ---- */

int64_t shimrt_k_f2i(double v) {
    if (isnan(v)) return 0;
    if (v >= 9223372036854775807.0) return INT64_MAX;
    if (v <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)v;
}

/* a floating value to int64 or int32 as x86's truncating conversion (PyTorch's static_cast)
 * gives it: out of range and NaN give the minimum ("integer indefinite") */
static int64_t trunc64(double v) {
    return (v >= -9223372036854775808.0 && v < 9223372036854775808.0) ? (int64_t)v : INT64_MIN;
}
static int32_t trunc32(double v) {
    return (v > -2147483649.0 && v < 2147483648.0) ? (int32_t)v : INT32_MIN;
}
static uint64_t trunc_u64(double v) { /* GCC's x86-64 double to uint64: from 2^63 up (inf,
                                         huge) the signed conversion of v - 2^63 with the top
                                         bit flipped (so 0 for 2^64 and beyond), else
                                         (NaN too) the signed conversion */
    return v >= 9223372036854775808.0
               ? (uint64_t)trunc64(v - 9223372036854775808.0) ^ 0x8000000000000000ULL
               : (uint64_t)trunc64(v);
}

/* INT_ELEM(tag, T, from_double): the four functions of an integer storage type T; a
 * floating value converts through from_double, an integer wraps (two's complement) */
#define INT_ELEM(tag, T, from_double)                                                              \
    static T get_##tag(const void *p) {                                                            \
        T v;                                                                                       \
        memcpy(&v, p, sizeof v);                                                                   \
        return v;                                                                                  \
    }                                                                                              \
    static void put_##tag(void *p, T v) { memcpy(p, &v, sizeof v); }                               \
    static double ld_f64_##tag(const void *p) { return (double)get_##tag(p); }                     \
    static int64_t ld_i64_##tag(const void *p) { return (int64_t)get_##tag(p); }                   \
    static void st_f64_##tag(void *p, double v) { put_##tag(p, (T)from_double(v)); }               \
    static void st_i64_##tag(void *p, int64_t v) { put_##tag(p, (T)(uint64_t)v); }
INT_ELEM(u8, uint8_t, trunc64)
INT_ELEM(i8, int8_t, trunc32)
INT_ELEM(i16, int16_t, trunc32)
INT_ELEM(i32, int32_t, trunc32)
INT_ELEM(i64, int64_t, trunc64)
INT_ELEM(u16, uint16_t, trunc32)
INT_ELEM(u32, uint32_t, trunc64)
INT_ELEM(u64, uint64_t, trunc_u64)

static double ld_f64_b8(const void *p) { return *(const uint8_t *)p != 0; }
static int64_t ld_i64_b8(const void *p) { return *(const uint8_t *)p != 0; }
static void st_f64_b8(void *p, double v) { *(uint8_t *)p = v != 0; }
static void st_i64_b8(void *p, int64_t v) { *(uint8_t *)p = v != 0; }

/* FLOAT_ELEM(tag, T, to_double, from_double): a floating storage type T; an integer stores
 * through double (as the engine's int64 -> float conversions do) */
#define FLOAT_ELEM(tag, T, to_double, from_double)                                                 \
    static double ld_f64_##tag(const void *p) {                                                    \
        T v;                                                                                       \
        memcpy(&v, p, sizeof v);                                                                   \
        return (double)to_double(v);                                                               \
    }                                                                                              \
    static int64_t ld_i64_##tag(const void *p) { return shimrt_k_f2i(ld_f64_##tag(p)); }           \
    static void st_f64_##tag(void *p, double v) {                                                  \
        T x = from_double(v);                                                                      \
        memcpy(p, &x, sizeof x);                                                                   \
    }                                                                                              \
    static void st_i64_##tag(void *p, int64_t v) { st_f64_##tag(p, (double)v); }
#define AS_IS(v) (v)
#define TO_F32(v) ((float)(v))
#define TO_HALF(v) shimrt_float_to_half((float)(v))
#define TO_BF16(v) shimrt_float_to_bf16((float)(v))
FLOAT_ELEM(f16, uint16_t, shimrt_half_to_float, TO_HALF)
FLOAT_ELEM(bf16, uint16_t, shimrt_bf16_to_float, TO_BF16)
FLOAT_ELEM(f32, float, AS_IS, TO_F32)
FLOAT_ELEM(f64, double, AS_IS, AS_IS)

/* complex: the real part; a store writes a zero imaginary part */
#define COMPLEX_ELEM(tag, T)                                                                       \
    static double ld_f64_##tag(const void *p) {                                                    \
        T v[2];                                                                                    \
        memcpy(v, p, sizeof v);                                                                    \
        return (double)v[0];                                                                       \
    }                                                                                              \
    static int64_t ld_i64_##tag(const void *p) { return shimrt_k_f2i(ld_f64_##tag(p)); }           \
    static void st_f64_##tag(void *p, double v) {                                                  \
        T x[2] = {(T)v, 0};                                                                        \
        memcpy(p, x, sizeof x);                                                                    \
    }                                                                                              \
    static void st_i64_##tag(void *p, int64_t v) { st_f64_##tag(p, (double)v); }
COMPLEX_ELEM(c64, float)
COMPLEX_ELEM(c128, double)

/* the dtypes the runtime does not compute with: reads 0, stores nothing */
static double ld_f64_none(const void *p) {
    (void)p;
    return 0;
}
static int64_t ld_i64_none(const void *p) {
    (void)p;
    return 0;
}
static void st_f64_none(void *p, double v) { (void)p, (void)v; }
static void st_i64_none(void *p, int64_t v) { (void)p, (void)v; }

/* ---- one element converted between any two computable dtypes (dtype.h) ---- */

/* an element in a dtype-independent form: integers (signed or not) exactly, floating values
 * as double, complex as two doubles */
typedef struct {
    shimrt_dtype_kind kind; /* BOOL and SIGNED in i, UNSIGNED in u, FLOATING/COMPLEX in re, im */
    int64_t i;
    uint64_t u;
    double re, im;
} wide;

static wide load_wide(const void *p, const shimrt_dtype_traits *t) {
    wide w = {t->kind, 0, 0, 0, 0};
    if (t->kind == SHIMRT_KIND_COMPLEX && t->size == 4) { /* complex32: two float16 */
        uint16_t v[2];
        memcpy(v, p, sizeof v);
        w.re = shimrt_half_to_float(v[0]), w.im = shimrt_half_to_float(v[1]);
    } else if (t->kind == SHIMRT_KIND_COMPLEX && t->size == 8) {
        float v[2];
        memcpy(v, p, sizeof v);
        w.re = v[0], w.im = v[1];
    } else if (t->kind == SHIMRT_KIND_COMPLEX && t->size == 16) {
        double v[2];
        memcpy(v, p, sizeof v);
        w.re = v[0], w.im = v[1];
    } else if (t->kind == SHIMRT_KIND_FLOATING) {
        w.re = t->load_f64(p);
    } else if (t->kind == SHIMRT_KIND_UNSIGNED) {
        w.u = (uint64_t)t->load_i64(p);
    } else {
        w.kind = SHIMRT_KIND_SIGNED;
        w.i = t->load_i64(p);
    }
    return w;
}

/* an integer as a value of a floating type of `single` (float) or double precision: one
 * rounding, as C++'s static_cast<float>(int64_t) */
static double int_as(const wide *w, bool single) {
    if (w->kind == SHIMRT_KIND_UNSIGNED) return single ? (double)(float)w->u : (double)w->u;
    return single ? (double)(float)w->i : (double)w->i;
}

void shimrt_dtype_convert(void *dst, int32_t ddt, const void *src, int32_t sdt) {
    const shimrt_dtype_traits *d = shimrt_dtype_traits_of(ddt), *s = shimrt_dtype_traits_of(sdt);
    /* complex32 converts (PyTorch's copy_ and to() take it) though no kernel computes in it */
    if (!d || !s || !(d->computable || ddt == SHIMRT_COMPLEX32) ||
        !(s->computable || sdt == SHIMRT_COMPLEX32))
        return;
    wide w = load_wide(src, s);
    bool from_float = w.kind == SHIMRT_KIND_FLOATING || w.kind == SHIMRT_KIND_COMPLEX;
    if (d->kind == SHIMRT_KIND_COMPLEX) { /* a real value becomes (v, 0) */
        double re = from_float ? w.re : int_as(&w, d->size <= 8), im = w.im;
        if (d->size == 4) { /* c10::complex<Half>: each part through float, as PyTorch */
            uint16_t v[2] = {shimrt_float_to_half((float)re), shimrt_float_to_half((float)im)};
            memcpy(dst, v, sizeof v);
        } else if (d->size == 8) {
            float v[2] = {(float)re, (float)im};
            memcpy(dst, v, sizeof v);
        } else {
            double v[2] = {re, im};
            memcpy(dst, v, sizeof v);
        }
    } else if (d->kind == SHIMRT_KIND_BOOL && w.kind == SHIMRT_KIND_COMPLEX) {
        d->store_i64(dst, w.re != 0 || w.im != 0);
    } else if (from_float) { /* complex to real keeps the real part */
        d->store_f64(dst, w.re);
    } else if (d->kind == SHIMRT_KIND_FLOATING) { /* float16/bfloat16 through float */
        d->store_f64(dst, int_as(&w, d->code != SHIMRT_FLOAT64));
    } else { /* integer to integer wraps */
        d->store_i64(dst, w.kind == SHIMRT_KIND_UNSIGNED ? (int64_t)w.u : w.i);
    }
}

/* ---- the table ---- */
#define ELEM(tag) ld_f64_##tag, ld_i64_##tag, st_f64_##tag, st_i64_##tag
#define ROW(NAME, name, size, kind, torch, meta, acc, comp, tag, ctype, compute, elem)             \
    {                                                                                              \
        SHIMRT_##NAME, size, SHIMRT_KIND_##kind, #name, torch, meta, acc, comp, tag, ctype,        \
            compute, ELEM(elem)                                                                    \
    }
const shimrt_dtype_traits shimrt_dtype_table[] = {
    /* the engine's dtypes, in its order (SHIMRT_ENGINE_NDT) */
    ROW(BOOL, bool, 1, BOOL, "Bool", "bool", SHIMRT_BOOL, true, "b8", "unsigned char", "SH_BOOL",
        b8),
    ROW(UINT8, uint8, 1, UNSIGNED, "Byte", "unsigned char", SHIMRT_INT64, true, "u8",
        "unsigned char", "unsigned char", u8),
    ROW(INT8, int8, 1, SIGNED, "Char", "signed char", SHIMRT_INT64, true, "i8", "signed char",
        "signed char", i8),
    ROW(INT16, int16, 2, SIGNED, "Short", "short int", SHIMRT_INT64, true, "i16", "short", "short",
        i16),
    ROW(INT32, int32, 4, SIGNED, "Int", "int", SHIMRT_INT64, true, "i32", "int", "int", i32),
    ROW(INT64, int64, 8, SIGNED, "Long", "long int", SHIMRT_INT64, true, "i64", "long long",
        "long long", i64),
    ROW(FLOAT16, float16, 2, FLOATING, "Half", "c10::Half", SHIMRT_FLOAT32, true, "f16",
        "unsigned short", "float", f16),
    ROW(BFLOAT16, bfloat16, 2, FLOATING, "BFloat16", "c10::BFloat16", SHIMRT_FLOAT32, true, "bf16",
        "unsigned short", "float", bf16),
    ROW(FLOAT32, float32, 4, FLOATING, "Float", "float", SHIMRT_FLOAT64, true, "f32", "float",
        "float", f32),
    ROW(FLOAT64, float64, 8, FLOATING, "Double", "double", SHIMRT_FLOAT64, true, "f64", "double",
        "double", f64),
    /* the others */
    ROW(UINT16, uint16, 2, UNSIGNED, "UInt16", "uint16", -1, true, NULL, NULL, NULL, u16),
    ROW(UINT32, uint32, 4, UNSIGNED, "UInt32", "uint32", -1, true, NULL, NULL, NULL, u32),
    ROW(UINT64, uint64, 8, UNSIGNED, "UInt64", "uint64", -1, true, NULL, NULL, NULL, u64),
    ROW(COMPLEX32, complex32, 4, COMPLEX, "ComplexHalf", "c10::complex<c10::Half>",
        SHIMRT_COMPLEX64, false, NULL, NULL, NULL, none),
    ROW(COMPLEX64, complex64, 8, COMPLEX, "ComplexFloat", "c10::complex<float>", SHIMRT_COMPLEX128,
        true, NULL, NULL, NULL, c64),
    ROW(COMPLEX128, complex128, 16, COMPLEX, "ComplexDouble", "c10::complex<double>",
        SHIMRT_COMPLEX128, true, NULL, NULL, NULL, c128),
    ROW(FLOAT8_E5M2, float8_e5m2, 1, FLOAT8, "Float8_e5m2", "float8_e5m2", SHIMRT_FLOAT32, false,
        NULL, NULL, NULL, none),
    ROW(FLOAT8_E4M3FN, float8_e4m3fn, 1, FLOAT8, "Float8_e4m3fn", "float8_e4m3fn", SHIMRT_FLOAT32,
        false, NULL, NULL, NULL, none),
    ROW(FLOAT8_E5M2FNUZ, float8_e5m2fnuz, 1, FLOAT8, "Float8_e5m2fnuz", "float8_e5m2fnuz",
        SHIMRT_FLOAT32, false, NULL, NULL, NULL, none),
    ROW(FLOAT8_E4M3FNUZ, float8_e4m3fnuz, 1, FLOAT8, "Float8_e4m3fnuz", "float8_e4m3fnuz",
        SHIMRT_FLOAT32, false, NULL, NULL, NULL, none),
    ROW(FLOAT8_E8M0FNU, float8_e8m0fnu, 1, FLOAT8, "Float8_e8m0fnu", "float8_e8m0fnu", -1, false,
        NULL, NULL, NULL, none),
    ROW(FLOAT4_E2M1FN_X2, float4_e2m1fn_x2, 1, PACKED, "Float4_e2m1fn_x2", "float4_e2m1fn_x2", -1,
        false, NULL, NULL, NULL, none),
};
const size_t shimrt_dtype_table_len = sizeof shimrt_dtype_table / sizeof shimrt_dtype_table[0];

const shimrt_dtype_traits *shimrt_dtype_traits_of(int32_t dtype) {
    switch (dtype) { /* the table's rows in order (test_dtype checks every code) */
    case SHIMRT_BOOL: return &shimrt_dtype_table[0];
    case SHIMRT_UINT8: return &shimrt_dtype_table[1];
    case SHIMRT_INT8: return &shimrt_dtype_table[2];
    case SHIMRT_INT16: return &shimrt_dtype_table[3];
    case SHIMRT_INT32: return &shimrt_dtype_table[4];
    case SHIMRT_INT64: return &shimrt_dtype_table[5];
    case SHIMRT_FLOAT16: return &shimrt_dtype_table[6];
    case SHIMRT_BFLOAT16: return &shimrt_dtype_table[7];
    case SHIMRT_FLOAT32: return &shimrt_dtype_table[8];
    case SHIMRT_FLOAT64: return &shimrt_dtype_table[9];
    case SHIMRT_UINT16: return &shimrt_dtype_table[10];
    case SHIMRT_UINT32: return &shimrt_dtype_table[11];
    case SHIMRT_UINT64: return &shimrt_dtype_table[12];
    case SHIMRT_COMPLEX32: return &shimrt_dtype_table[13];
    case SHIMRT_COMPLEX64: return &shimrt_dtype_table[14];
    case SHIMRT_COMPLEX128: return &shimrt_dtype_table[15];
    case SHIMRT_FLOAT8_E5M2: return &shimrt_dtype_table[16];
    case SHIMRT_FLOAT8_E4M3FN: return &shimrt_dtype_table[17];
    case SHIMRT_FLOAT8_E5M2FNUZ: return &shimrt_dtype_table[18];
    case SHIMRT_FLOAT8_E4M3FNUZ: return &shimrt_dtype_table[19];
    case SHIMRT_FLOAT8_E8M0FNU: return &shimrt_dtype_table[20];
    case SHIMRT_FLOAT4_E2M1FN_X2: return &shimrt_dtype_table[21];
    default: return NULL;
    }
}

int shimrt_dtype_engine_index(int32_t dtype) {
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(dtype);
    return t && t - shimrt_dtype_table < SHIMRT_ENGINE_NDT ? (int)(t - shimrt_dtype_table) : -1;
}

bool shimrt_dtype_is_floating(int32_t dtype) {
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(dtype);
    return t && t->kind == SHIMRT_KIND_FLOATING;
}

bool shimrt_dtype_is_complex(int32_t dtype) {
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(dtype);
    return t && t->kind == SHIMRT_KIND_COMPLEX;
}

size_t shimrt_dtype_size(int32_t dtype) {
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(dtype);
    return t ? t->size : 0;
}

const char *shimrt_dtype_name(int32_t dtype) {
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(dtype);
    return t ? t->name : NULL;
}

/* caffe2::TypeMeta names, as messages that print a dtype object show them ("Expected out
 * tensor to have dtype float, but got long int instead"); NULL for an unknown code. */
const char *shimrt_dtype_meta_name(int32_t dtype) {
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(dtype);
    return t ? t->meta_name : NULL;
}

/* PyTorch's ScalarType names, as its messages print them ("not implemented for 'Float'"). */
const char *shimrt_dtype_torch_name(int32_t dtype) {
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(dtype);
    return t ? t->torch_name : "?";
}

bool shimrt_dtype_is_computable(int32_t dtype) {
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(dtype);
    return t && t->computable;
}

const char *shimrt_device_type_name(int32_t device_type) {
    switch (device_type) {
    case SHIMRT_DEV_CPU: return "cpu";
    case SHIMRT_DEV_CUDA: return "cuda";
    case SHIMRT_DEV_XPU: return "xpu";
    case SHIMRT_DEV_MPS: return "mps";
    case SHIMRT_DEV_META: return "meta";
    case SHIMRT_DEV_PRIVATEUSE1: return "privateuseone";
    default: return NULL;
    }
}

AOTITorchError shimrt_check_dtype(const char *func, int32_t dtype) {
    if (!shimrt_dtype_name(dtype)) return shimrt_fail(func, "unknown dtype code %d", (int)dtype);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_check_device(const char *func, int32_t device_type, int32_t device_index) {
    const char *name = shimrt_device_type_name(device_type);
    if (!name) return shimrt_fail(func, "unknown device type code %d", (int)device_type);
    const shimrt_backend *b = shimrt_backend_of(device_type); /* the device's row */
    if (b && b->check_device) return b->check_device(func, device_index);
    return shimrt_fail(func, "device type %s is not available in this runtime", name);
}

/* Half and bfloat16, by bit manipulation (round to nearest even). */
float shimrt_half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: value = man * 2^-24 */
            float f = (float)man * 0x1p-24f;
            return sign ? -f : f;
        }
    } else {
        bits = sign | ((exp + 112u) << 23) | (man << 13);
    }
    return shimrt_f32_of_bits(bits);
}

uint16_t shimrt_float_to_half(float f) {
    uint32_t x = shimrt_f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) /* inf or nan */
        return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* overflows to inf */
    if (ax < 0x38800000u) { /* below the smallest normal half: subnormal or zero */
        float m =
            shimrt_f32_of_bits(ax) * 0x1p24f; /* in units of 2^-24; rint rounds half to even */
        return (uint16_t)(sign | (uint16_t)rintf(m));
    }
    uint32_t mant_odd = (ax >> 13) & 1u;
    ax += 0xfffu + mant_odd;
    ax -= 112u << 23;
    return (uint16_t)(sign | (ax >> 13));
}

float shimrt_bf16_to_float(uint16_t b) { return shimrt_f32_of_bits((uint32_t)b << 16); }

uint16_t shimrt_float_to_bf16(float f) {
    uint32_t x = shimrt_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fc0; /* NaN: c10::BFloat16's */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

/* ---- the code getters of the C shim ---- */
#define CODE_GETTER(name, value)                                                                   \
    AOTI_TORCH_EXPORT int32_t name(void) { return (value); }
CODE_GETTER(aoti_torch_device_type_cpu, SHIMRT_DEV_CPU)
CODE_GETTER(aoti_torch_device_type_cuda, SHIMRT_DEV_CUDA)
CODE_GETTER(aoti_torch_device_type_meta, SHIMRT_DEV_META)
CODE_GETTER(aoti_torch_device_type_xpu, SHIMRT_DEV_XPU)
CODE_GETTER(aoti_torch_device_type_mps, SHIMRT_DEV_MPS)
CODE_GETTER(aoti_torch_device_type_privateuse1, SHIMRT_DEV_PRIVATEUSE1)
CODE_GETTER(aoti_torch_dtype_float8_e5m2, SHIMRT_FLOAT8_E5M2)
CODE_GETTER(aoti_torch_dtype_float8_e4m3fn, SHIMRT_FLOAT8_E4M3FN)
CODE_GETTER(aoti_torch_dtype_float8_e5m2fnuz, SHIMRT_FLOAT8_E5M2FNUZ)
CODE_GETTER(aoti_torch_dtype_float8_e4m3fnuz, SHIMRT_FLOAT8_E4M3FNUZ)
CODE_GETTER(aoti_torch_dtype_bfloat16, SHIMRT_BFLOAT16)
CODE_GETTER(aoti_torch_dtype_float16, SHIMRT_FLOAT16)
CODE_GETTER(aoti_torch_dtype_float32, SHIMRT_FLOAT32)
CODE_GETTER(aoti_torch_dtype_float64, SHIMRT_FLOAT64)
CODE_GETTER(aoti_torch_dtype_uint8, SHIMRT_UINT8)
CODE_GETTER(aoti_torch_dtype_uint16, SHIMRT_UINT16)
CODE_GETTER(aoti_torch_dtype_uint32, SHIMRT_UINT32)
CODE_GETTER(aoti_torch_dtype_uint64, SHIMRT_UINT64)
CODE_GETTER(aoti_torch_dtype_int8, SHIMRT_INT8)
CODE_GETTER(aoti_torch_dtype_int16, SHIMRT_INT16)
CODE_GETTER(aoti_torch_dtype_int32, SHIMRT_INT32)
CODE_GETTER(aoti_torch_dtype_int64, SHIMRT_INT64)
CODE_GETTER(aoti_torch_dtype_bool, SHIMRT_BOOL)
CODE_GETTER(aoti_torch_dtype_complex32, SHIMRT_COMPLEX32)
CODE_GETTER(aoti_torch_dtype_complex64, SHIMRT_COMPLEX64)
CODE_GETTER(aoti_torch_dtype_complex128, SHIMRT_COMPLEX128)
CODE_GETTER(torch_dtype_float8_e8m0fnu, SHIMRT_FLOAT8_E8M0FNU)
CODE_GETTER(torch_dtype_float4_e2m1fn_x2, SHIMRT_FLOAT4_E2M1FN_X2)
CODE_GETTER(aoti_torch_dtype_float8_e8m0fnu, SHIMRT_FLOAT8_E8M0FNU)
CODE_GETTER(aoti_torch_dtype_float4_e2m1fn_x2, SHIMRT_FLOAT4_E2M1FN_X2)
CODE_GETTER(aoti_torch_layout_strided, SHIMRT_LAYOUT_STRIDED)
CODE_GETTER(aoti_torch_layout_sparse_coo, SHIMRT_LAYOUT_SPARSE_COO)
CODE_GETTER(aoti_torch_layout_sparse_csr, SHIMRT_LAYOUT_SPARSE_CSR)
CODE_GETTER(aoti_torch_layout_sparse_csc, SHIMRT_LAYOUT_SPARSE_CSC)
CODE_GETTER(aoti_torch_layout_sparse_bsr, SHIMRT_LAYOUT_SPARSE_BSR)
CODE_GETTER(aoti_torch_layout_sparse_bsc, SHIMRT_LAYOUT_SPARSE_BSC)
CODE_GETTER(aoti_torch_layout__mkldnn, SHIMRT_LAYOUT_MKLDNN)
CODE_GETTER(aoti_torch_layout_jagged, SHIMRT_LAYOUT_JAGGED)
CODE_GETTER(aoti_torch_memory_format_contiguous_format, SHIMRT_MEMORY_FORMAT_CONTIGUOUS)
CODE_GETTER(aoti_torch_memory_format_preserve_format, SHIMRT_MEMORY_FORMAT_PRESERVE)
CODE_GETTER(aoti_torch_memory_format_channels_last, SHIMRT_MEMORY_FORMAT_CHANNELS_LAST)
CODE_GETTER(aoti_torch_memory_format_channels_last_3d, SHIMRT_MEMORY_FORMAT_CHANNELS_LAST_3D)

AOTI_TORCH_EXPORT size_t aoti_torch_dtype_element_size(int32_t dtype) {
    return shimrt_dtype_size(dtype);
}

AOTI_TORCH_EXPORT uint64_t aoti_torch_abi_version(void) { return TORCH_ABI_VERSION; }

/* ---- element values in host memory (the kernels' shimrt_k_load_*, internal.h) ---- */

double shimrt_k_load_f64(const char *p, int32_t dt) {
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(dt);
    return t ? t->load_f64(p) : 0;
}

int64_t shimrt_k_load_i64(const char *p, int32_t dt) {
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(dt);
    return t ? t->load_i64(p) : 0;
}

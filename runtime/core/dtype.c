/* runtime/core/dtype.c: dtype, device type, layout and memory-format codes. */
#include <math.h>
#include <string.h>

#include "backend.h"
#include "internal.h"

size_t shimrt_dtype_size(int32_t dtype) {
    switch (dtype) {
    case SHIMRT_UINT8:
    case SHIMRT_INT8:
    case SHIMRT_BOOL:
    case SHIMRT_FLOAT8_E5M2:
    case SHIMRT_FLOAT8_E4M3FN:
    case SHIMRT_FLOAT8_E5M2FNUZ:
    case SHIMRT_FLOAT8_E4M3FNUZ:
    case SHIMRT_FLOAT8_E8M0FNU:
    case SHIMRT_FLOAT4_E2M1FN_X2: return 1;
    case SHIMRT_INT16:
    case SHIMRT_UINT16:
    case SHIMRT_FLOAT16:
    case SHIMRT_BFLOAT16: return 2;
    case SHIMRT_INT32:
    case SHIMRT_UINT32:
    case SHIMRT_FLOAT32:
    case SHIMRT_COMPLEX32: return 4;
    case SHIMRT_INT64:
    case SHIMRT_UINT64:
    case SHIMRT_FLOAT64:
    case SHIMRT_COMPLEX64: return 8;
    case SHIMRT_COMPLEX128: return 16;
    default: return 0;
    }
}

const char *shimrt_dtype_name(int32_t dtype) {
    switch (dtype) {
#define X(NAME, name, code)                                                                        \
    case SHIMRT_##NAME: return #name;
        SHIMRT_DTYPES(X)
#undef X
    default: return NULL;
    }
}

/* caffe2::TypeMeta names, as messages that print a dtype object show them ("Expected out
 * tensor to have dtype float, but got long int instead"); NULL for others. */
const char *shimrt_dtype_meta_name(int32_t dtype) {
    switch (dtype) {
    case SHIMRT_UINT8: return "unsigned char";
    case SHIMRT_INT8: return "signed char";
    case SHIMRT_INT16: return "short int";
    case SHIMRT_INT32: return "int";
    case SHIMRT_INT64: return "long int";
    case SHIMRT_FLOAT16: return "c10::Half";
    case SHIMRT_BFLOAT16: return "c10::BFloat16";
    case SHIMRT_FLOAT32: return "float";
    case SHIMRT_FLOAT64: return "double";
    case SHIMRT_BOOL: return "bool";
    case SHIMRT_COMPLEX32: return "c10::complex<c10::Half>";
    case SHIMRT_COMPLEX64: return "c10::complex<float>";
    case SHIMRT_COMPLEX128: return "c10::complex<double>";
    default: return shimrt_dtype_name(dtype);
    }
}

/* PyTorch's ScalarType names, as its messages print them ("not implemented for 'Float'"). */
const char *shimrt_dtype_torch_name(int32_t dtype) {
    static const struct {
        int32_t code;
        const char *name;
    } names[] = {
        {SHIMRT_UINT8, "Byte"},
        {SHIMRT_INT8, "Char"},
        {SHIMRT_INT16, "Short"},
        {SHIMRT_INT32, "Int"},
        {SHIMRT_INT64, "Long"},
        {SHIMRT_FLOAT16, "Half"},
        {SHIMRT_FLOAT32, "Float"},
        {SHIMRT_FLOAT64, "Double"},
        {SHIMRT_COMPLEX32, "ComplexHalf"},
        {SHIMRT_COMPLEX64, "ComplexFloat"},
        {SHIMRT_COMPLEX128, "ComplexDouble"},
        {SHIMRT_BOOL, "Bool"},
        {SHIMRT_BFLOAT16, "BFloat16"},
        {SHIMRT_FLOAT8_E5M2, "Float8_e5m2"},
        {SHIMRT_FLOAT8_E4M3FN, "Float8_e4m3fn"},
        {SHIMRT_FLOAT8_E5M2FNUZ, "Float8_e5m2fnuz"},
        {SHIMRT_FLOAT8_E4M3FNUZ, "Float8_e4m3fnuz"},
        {SHIMRT_UINT16, "UInt16"},
        {SHIMRT_UINT32, "UInt32"},
        {SHIMRT_UINT64, "UInt64"},
        {SHIMRT_FLOAT8_E8M0FNU, "Float8_e8m0fnu"},
        {SHIMRT_FLOAT4_E2M1FN_X2, "Float4_e2m1fn_x2"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].code == dtype) return names[i].name;
    return "?";
}

bool shimrt_dtype_is_computable(int32_t dtype) {
    switch (dtype) {
    case SHIMRT_UINT8:
    case SHIMRT_INT8:
    case SHIMRT_INT16:
    case SHIMRT_INT32:
    case SHIMRT_INT64:
    case SHIMRT_FLOAT16:
    case SHIMRT_FLOAT32:
    case SHIMRT_FLOAT64:
    case SHIMRT_COMPLEX64:
    case SHIMRT_COMPLEX128:
    case SHIMRT_BOOL:
    case SHIMRT_BFLOAT16:
    case SHIMRT_UINT16:
    case SHIMRT_UINT32:
    case SHIMRT_UINT64: return true;
    default: return false;
    }
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

static float float_of_bits(uint32_t bits) {
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}
static uint32_t bits_of_float(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return x;
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
    return float_of_bits(bits);
}

uint16_t shimrt_float_to_half(float f) {
    uint32_t x = bits_of_float(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) /* inf or nan */
        return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* overflows to inf */
    if (ax < 0x38800000u) { /* below the smallest normal half: subnormal or zero */
        float m = float_of_bits(ax) * 0x1p24f; /* in units of 2^-24; rint rounds half to even */
        return (uint16_t)(sign | (uint16_t)rintf(m));
    }
    uint32_t mant_odd = (ax >> 13) & 1u;
    ax += 0xfffu + mant_odd;
    ax -= 112u << 23;
    return (uint16_t)(sign | (ax >> 13));
}

float shimrt_bf16_to_float(uint16_t b) { return float_of_bits((uint32_t)b << 16); }

uint16_t shimrt_float_to_bf16(float f) {
    uint32_t x = bits_of_float(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet nan */
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

static bool shimrt_dtype_is_floating(int32_t dt) {
    return dt == SHIMRT_FLOAT16 || dt == SHIMRT_BFLOAT16 || dt == SHIMRT_FLOAT32 ||
           dt == SHIMRT_FLOAT64;
}

int64_t shimrt_k_f2i(double v) {
    if (isnan(v)) return 0;
    if (v >= 9223372036854775807.0) return INT64_MAX;
    if (v <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)v;
}

/* RETURN_AS: the value of type T at p, returned as conv(value). */
#define RETURN_AS(T, conv)                                                                         \
    {                                                                                              \
        T v_;                                                                                      \
        memcpy(&v_, p, sizeof v_);                                                                 \
        return conv(v_);                                                                           \
    }

double shimrt_k_load_f64(const char *p, int32_t dt) {
    switch (dt) {
    case SHIMRT_FLOAT32: RETURN_AS(float, )
    case SHIMRT_FLOAT64: RETURN_AS(double, )
    case SHIMRT_FLOAT16: RETURN_AS(uint16_t, shimrt_half_to_float)
    case SHIMRT_BFLOAT16: RETURN_AS(uint16_t, shimrt_bf16_to_float)
    default: return (double)shimrt_k_load_i64(p, dt);
    }
}

int64_t shimrt_k_load_i64(const char *p, int32_t dt) {
    switch (dt) {
    case SHIMRT_BOOL: return *(const uint8_t *)p != 0;
    case SHIMRT_UINT8: return *(const uint8_t *)p;
    case SHIMRT_INT8: return *(const int8_t *)p;
    case SHIMRT_INT16: RETURN_AS(int16_t, )
    case SHIMRT_INT32: RETURN_AS(int32_t, )
    case SHIMRT_INT64: RETURN_AS(int64_t, )
    default: return shimrt_dtype_is_floating(dt) ? shimrt_k_f2i(shimrt_k_load_f64(p, dt)) : 0;
    }
}

/* runtime/cpu/scaled_mm.c: _scaled_mm and _scaled_mm.out as PyTorch 2.15's CPU computes them
 * without AMX (its emulated path): mat_a and mat_b float8 (e4m3fn, e5m2 and their fnuz
 * variants), scales float32, tensorwise (one element each) or rowwise (scale_a (M, 1),
 * scale_b (1, N)); out = (float(a) * scale_a) @ (float(b) * scale_b) in float32, + bias,
 * times 1 / scale_result when out_dtype is given as a float8 type, then converted to the
 * output type (default mat_a's). float -> float8 rounds to nearest even; a value beyond
 * the largest finite one (infinity too) saturates to it for e4m3fn, becomes infinity for e5m2
 * and NaN for the fnuz types, as PyTorch's CPU casts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../generic/meta.h"
#include "cpu_kernels.h"
#include "index.h"
#include "iter.h"

typedef struct {
    int mbits, bias;
    bool fn, fnuz; /* fn: no infinity (NaN 0x7f); fnuz: no negative zero, NaN 0x80 */
    double max;
} f8fmt;

static bool f8_fmt(int32_t dt, f8fmt *f) {
    switch (dt) {
    case SHIMRT_FLOAT8_E4M3FN: *f = (f8fmt){3, 7, true, false, 448.0}; return true;
    case SHIMRT_FLOAT8_E5M2: *f = (f8fmt){2, 15, false, false, 57344.0}; return true;
    case SHIMRT_FLOAT8_E4M3FNUZ: *f = (f8fmt){3, 8, true, true, 240.0}; return true;
    case SHIMRT_FLOAT8_E5M2FNUZ: *f = (f8fmt){2, 16, true, true, 57344.0}; return true;
    default: return false;
    }
}

static float f8_decode(const f8fmt *f, uint8_t v) {
    int ebits = 7 - f->mbits, e = (v >> f->mbits) & ((1 << ebits) - 1);
    int m = v & ((1 << f->mbits) - 1);
    bool neg = v & 0x80;
    if (f->fnuz && v == 0x80) return NAN;
    if (!f->fnuz && f->fn && (v & 0x7f) == 0x7f) return NAN;
    if (!f->fn && e == (1 << ebits) - 1) return m ? NAN : (neg ? -INFINITY : INFINITY);
    double x =
        e ? ldexp(1.0 + ldexp(m, -f->mbits), e - f->bias) : ldexp(ldexp(m, -f->mbits), 1 - f->bias);
    return (float)(neg ? -x : x);
}

static uint8_t f8_encode(const f8fmt *f, float x) {
    uint8_t nan = f->fnuz ? 0x80 : 0x7f, sign = signbit(x) ? 0x80 : 0;
    if (isnan(x)) return nan;
    double a = fabs((double)x);
    int emin = 1 - f->bias, E;
    if (a == 0) return f->fnuz ? 0 : sign; /* fnuz: no negative zero */
    frexp(a, &E);
    int e = E - 1 < emin ? emin : E - 1;
    double q = nearbyint(ldexp(a, f->mbits - e)); /* round to nearest even in the quantum */
    double r = ldexp(q, e - f->mbits);
    if (r > f->max || isinf(a)) {
        if (f->fn && !f->fnuz) return sign | 0x7e; /* e4m3fn saturates (PyTorch's CPU cast) */
        if (f->fn) return nan;
        return sign | 0x7c; /* e5m2 infinity */
    }
    if (r == 0) return f->fnuz ? 0 : sign;
    frexp(r, &E);
    uint8_t v;
    if (E - 1 < emin) {
        v = (uint8_t)ldexp(r, f->mbits - emin); /* subnormal */
    } else {
        int mant = (int)(ldexp(r, f->mbits - (E - 1)) - ldexp(1.0, f->mbits));
        v = (uint8_t)(((E - 1 + f->bias) << f->mbits) | mant);
    }
    if (f->fnuz && v == 0) return 0; /* no negative zero */
    return sign | v;
}

/* element (i, j) of a 2-d tensor as float (float8 decoded) */
static float load2(AtenTensorHandle t, const f8fmt *f, int64_t i, int64_t j) {
    const char *p = (const char *)shimrt_data(t) +
                    (i * t->strides[0] + j * t->strides[1]) * (int64_t)shimrt_dtype_size(t->dtype);
    return f ? f8_decode(f, *(const uint8_t *)p) : (float)shimrt_k_load_f64(p, t->dtype);
}

static float scalar_of(AtenTensorHandle t, int64_t i) {
    int64_t idx[SHIMRT_MAX_DIMS] = {0};
    if (t->ndim) idx[t->ndim - 1] = i; /* (M, 1): along dim 0 */
    if (t->ndim == 2 && t->sizes[1] == 1) idx[0] = i, idx[1] = 0;
    return *(const float *)(const void *)shimrt_idx_at(t, idx);
}

static AOTITorchError scaled_mm(const char *op, AtenTensorHandle out, bool fresh,
                                AtenTensorHandle a, AtenTensorHandle b, AtenTensorHandle sa,
                                AtenTensorHandle sb, AtenTensorHandle bias,
                                AtenTensorHandle scale_result, int32_t *out_dtype) {
    AtenTensorHandle ts[4] = {a, b, sa, sb};
    static const char *const nm[4] = {"mat_a", "mat_b", "scale_a", "scale_b"};
    for (int k = 0; k < 4; k++)
        if (shimrt_k_check_cpu(op, ts[k], nm[k])) return AOTI_TORCH_FAILURE;
    if (!fresh && out_dtype && *out_dtype != out->dtype)
        return shimrt_fail(op, "out_dtype must match output matrix type");
    f8fmt fa, fb, fo;
    bool a8 = f8_fmt(a->dtype, &fa), b8 = f8_fmt(b->dtype, &fb);
    int64_t M = a->ndim == 2 ? a->sizes[0] : 0, N = b->ndim == 2 ? b->sizes[1] : 0;
    bool tensorwise = a8 && b8 && sa->dtype == SHIMRT_FLOAT32 && sb->dtype == SHIMRT_FLOAT32 &&
                      shimrt_numel(sa) == 1 && shimrt_numel(sb) == 1;
    bool rowwise = a8 && b8 && sa->dtype == SHIMRT_FLOAT32 && sb->dtype == SHIMRT_FLOAT32 &&
                   sa->ndim == 2 && sb->ndim == 2 && sa->sizes[0] == M && sa->sizes[1] == 1 &&
                   sb->sizes[0] == 1 && sb->sizes[1] == N && shimrt_is_contiguous(sa) &&
                   shimrt_is_contiguous(sb);
    if (!tensorwise && !rowwise)
        return shimrt_fail(op,
                           "Invalid scaling configuration.\n- For TensorWise scaling, a and b "
                           "should be float8, scales should be float and singletons.\n- For "
                           "RowWise scaling, a and b should be float8, scales should be float, "
                           "scale_a should be (%lld, 1) and scale_b should be (1, %lld), and both "
                           "should be contiguous.",
                           (long long)M, (long long)N);
    if (a->ndim != 2) return shimrt_fail(op, "mat_a must be a matrix");
    if (b->ndim != 2) return shimrt_fail(op, "mat_b must be a matrix");
    int64_t K = a->sizes[1];
    if (K != b->sizes[0])
        return shimrt_fail(op,
                           "mat_a and mat_b shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                           (long long)M, (long long)K, (long long)b->sizes[0], (long long)N);
    if (scale_result && (shimrt_numel(scale_result) != 1 || scale_result->dtype != SHIMRT_FLOAT32))
        return shimrt_fail(op, "scale_result must be a float scalar");
    if (bias && shimrt_numel(bias) != N)
        return shimrt_fail(op, "Bias must be size %lld but got %lld", (long long)N,
                           (long long)shimrt_numel(bias));
    if (bias && shimrt_k_check_cpu(op, bias, "bias")) return AOTI_TORCH_FAILURE;
    int64_t osz[2] = {M, N};
    if (shimrt_resize_output(op, out, 2, osz)) return AOTI_TORCH_FAILURE;
    bool o8 = f8_fmt(out->dtype, &fo);
    float oscale = 1.0f;
    if (scale_result && out_dtype && f8_fmt(*out_dtype, &(f8fmt){0}))
        oscale = scalar_of(scale_result, 0);
    float *fa_ = malloc((size_t)(M * K + 1) * sizeof *fa_);
    float *fb_ = malloc((size_t)(K * N + 1) * sizeof *fb_);
    if (!fa_ || !fb_) {
        free(fa_), free(fb_);
        return shimrt_fail(op, "out of memory");
    }
    for (int64_t i = 0; i < M; i++)
        for (int64_t k = 0; k < K; k++)
            fa_[i * K + k] = load2(a, &fa, i, k) * scalar_of(sa, tensorwise ? 0 : i);
    for (int64_t k = 0; k < K; k++)
        for (int64_t j = 0; j < N; j++)
            fb_[k * N + j] = load2(b, &fb, k, j) * scalar_of(sb, tensorwise ? 0 : j);
    char *ob = shimrt_data(out);
    size_t es = shimrt_dtype_size(out->dtype);
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            float acc = 0.0f;
            for (int64_t k = 0; k < K; k++) acc += fa_[i * K + k] * fb_[k * N + j];
            if (bias) {
                int64_t bi[SHIMRT_MAX_DIMS] = {0};
                bi[bias->ndim ? bias->ndim - 1 : 0] = j;
                acc += (float)shimrt_k_load_f64(shimrt_idx_at(bias, bi), bias->dtype);
            }
            if (o8 && out_dtype) acc = acc * (1 / oscale);
            char *p = ob + (i * out->strides[0] + j * out->strides[1]) * (int64_t)es;
            if (o8)
                *(uint8_t *)p = f8_encode(&fo, acc);
            else
                shimrt_k_store_f64(p, out->dtype, acc);
        }
    free(fa_), free(fb_);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu__scaled_mm(AtenTensorHandle self, AtenTensorHandle mat2,
                                     AtenTensorHandle scale_a, AtenTensorHandle scale_b,
                                     AtenTensorHandle bias, AtenTensorHandle scale_result,
                                     int32_t *out_dtype, int32_t use_fast_accum,
                                     AtenTensorHandle *ret0) {
    static const char op[] = "_scaled_mm";
    (void)use_fast_accum;
    if (shimrt_k_check_cpu(op, self, "mat_a")) return AOTI_TORCH_FAILURE;
    int64_t zero = 0;
    AtenTensorHandle out = shimrt_tensor_empty(
        op, 1, &zero, NULL, out_dtype ? *out_dtype : self->dtype, SHIMRT_DEV_CPU, 0);
    if (!out) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(
        scaled_mm(op, out, true, self, mat2, scale_a, scale_b, bias, scale_result, out_dtype), out,
        ret0);
}

AOTITorchError shimrt_cpu__scaled_mm_out(AtenTensorHandle out, AtenTensorHandle self,
                                         AtenTensorHandle mat2, AtenTensorHandle scale_a,
                                         AtenTensorHandle scale_b, AtenTensorHandle bias,
                                         AtenTensorHandle scale_result, int32_t *out_dtype,
                                         int32_t use_fast_accum) {
    (void)use_fast_accum;
    if (shimrt_k_check_cpu("_scaled_mm", out, "out")) return AOTI_TORCH_FAILURE;
    return scaled_mm("_scaled_mm", out, false, self, mat2, scale_a, scale_b, bias, scale_result,
                     out_dtype);
}

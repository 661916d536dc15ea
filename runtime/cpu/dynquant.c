/* runtime/cpu/dynquant.c: _dyn_quant_pack_4bit_weight and _dyn_quant_matmul_4bit in the
 * format of PyTorch 2.15's x86 CPU build (its reference path: no KleidiAI there).
 *
 * Packing: a 1-d float32 tensor holding the weight bytes (N rows of K/2 bytes, two 4-bit
 * values a byte, the even k in the low nibble, each stored as value + 8), then the scales
 * (N rows of K / block_size, float32), then the bias (N values) when given.
 *
 * Matmul: each input row is quantized to int8 asymmetrically (scale 255 / (max(0, max) -
 * min(0, min)), zero point from the nearer end, rounded with lrintf; values rounded half
 * away from zero and clamped); per output column and block, an int32 dot product of the
 * int8 row (minus its zero point) and the 4-bit weights (minus 8) is scaled by the block's
 * scale and summed in float, then multiplied by the row's reciprocal scale, plus the bias.
 * Same float32 operations in the same order as PyTorch's, so the values are bit-identical.
 * A bfloat16 input (block_size == in_features) is widened to float and the result rounded
 * back to bfloat16 (PyTorch's bf16 kernel rounds some intermediates: equal within bfloat16's
 * rounding, not bit-identical). PyTorch reads the input's memory as contiguous whatever its
 * strides; libshimrt reads it by its strides. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../generic/meta.h"
#include "cpu_kernels.h"
#include "index.h"
#include "iter.h"

static AOTITorchError check_block(const char *op, int64_t block_size, int64_t K, int64_t N) {
    if (K <= 0 || N <= 0 || K % 2)
        return shimrt_fail(op,
                           "in_features (%lld) must be positive and even, out_features (%lld) "
                           "positive",
                           (long long)K, (long long)N);
    if (!(block_size == K || (block_size > 0 && !(block_size % 32) && !(K % block_size))))
        return shimrt_fail(op,
                           "dyn_quant_matmul_4bit_kernel: Group size should be multiple 32 or "
                           "in_features [%lld]. Provided %lld",
                           (long long)K, (long long)block_size);
    return AOTI_TORCH_SUCCESS;
}

/* appends t's elements (row-major) as floats at *p */
static void put_all(AtenTensorHandle t, float **p) {
    int64_t n = shimrt_numel(t), idx[SHIMRT_MAX_DIMS] = {0};
    if (n) do
            *(*p)++ = (float)shimrt_k_load_f64(shimrt_idx_at(t, idx), t->dtype);
        while (shimrt_idx_next(t->ndim, t->sizes, idx));
}

AOTITorchError shimrt_cpu__dyn_quant_pack_4bit_weight(AtenTensorHandle weights,
                                                      AtenTensorHandle scales_zeros,
                                                      AtenTensorHandle bias, int64_t block_size,
                                                      int64_t in_features, int64_t out_features,
                                                      AtenTensorHandle *ret0) {
    static const char op[] = "_dyn_quant_pack_4bit_weight";
    if (shimrt_k_check_cpu(op, weights, "weights") ||
        shimrt_k_check_cpu(op, scales_zeros, "scales_zeros") ||
        (bias && shimrt_k_check_cpu(op, bias, "bias")) ||
        check_block(op, block_size, in_features, out_features))
        return AOTI_TORCH_FAILURE;
    if (weights->dtype != SHIMRT_UINT8)
        return shimrt_fail(op,
                           "_dyn_quant_pack_4bit_weight: weights must be uint8 (4-bit "
                           "values packed two a byte), got %s",
                           shimrt_dtype_name(weights->dtype));
    int64_t nw, ns;
    if (__builtin_mul_overflow(out_features, in_features, &nw) ||
        __builtin_mul_overflow(out_features, in_features / block_size, &ns))
        return shimrt_fail(op, "_dyn_quant_pack_4bit_weight: in_features * out_features "
                               "overflows");
    nw /= 2;
    if (shimrt_numel(weights) != nw)
        return shimrt_fail(op, "_dyn_quant_pack_4bit_weight: expected %lld weight bytes, got %lld",
                           (long long)nw, (long long)shimrt_numel(weights));
    if (!shimrt_k_is_floating(scales_zeros->dtype) || shimrt_numel(scales_zeros) != ns)
        return shimrt_fail(op,
                           "_dyn_quant_pack_4bit_weight: expected %lld floating scales, got "
                           "%lld of %s",
                           (long long)ns, (long long)shimrt_numel(scales_zeros),
                           shimrt_dtype_name(scales_zeros->dtype));
    if (bias && (!shimrt_k_is_floating(bias->dtype) || shimrt_numel(bias) != out_features))
        return shimrt_fail(op,
                           "_dyn_quant_pack_4bit_weight: bias must hold out_features (%lld) "
                           "floating values",
                           (long long)out_features);
    int64_t total = nw + ns + (bias ? out_features : 0);
    AtenTensorHandle t =
        shimrt_tensor_empty(op, 1, &total, NULL, SHIMRT_FLOAT32, SHIMRT_DEV_CPU, 0);
    if (!t) return AOTI_TORCH_FAILURE;
    float *p = shimrt_data(t);
    put_all(weights, &p);
    put_all(scales_zeros, &p);
    if (bias) put_all(bias, &p);
    *ret0 = t;
    return AOTI_TORCH_SUCCESS;
}

/* one row quantized: q[k] int8 values, *recip and *zp (nudged zero point) */
static void quant_row(const float *x, int64_t K, int8_t *q, float *recip, int32_t *zp) {
    float mx = -FLT_MAX, mn = FLT_MAX;
    for (int64_t k = 0; k < K; k++) {
        mx = x[k] > mx ? x[k] : mx;
        mn = x[k] < mn ? x[k] : mn;
    }
    const float qmin = (float)INT8_MIN, qmax = (float)INT8_MAX;
    float rmin = mn < 0.0f ? mn : 0.0f, rmax = mx > 0.0f ? mx : 0.0f;
    float s = rmin == rmax ? 1.f : (qmax - qmin) / (rmax - rmin);
    *recip = s != 0.0f ? 1.0f / s : 0.0f;
    float dmin = rmin * s, dmax = rmax * s;
    float z = (qmin + dmin) + (qmax + dmax) > 0 ? qmin - dmin : qmax - dmax;
    z = z > qmin ? z : qmin;
    z = z < qmax ? z : qmax;
    int32_t nz = (int32_t)lrintf(z);
    *zp = nz;
    for (int64_t k = 0; k < K; k++) {
        int32_t v = (int32_t)roundf(x[k] * s) + nz;
        v = v < INT8_MIN ? INT8_MIN : v > INT8_MAX ? INT8_MAX : v;
        q[k] = (int8_t)v;
    }
}

AOTITorchError shimrt_cpu__dyn_quant_matmul_4bit(AtenTensorHandle inp,
                                                 AtenTensorHandle packed_weights,
                                                 int64_t block_size, int64_t in_features,
                                                 int64_t out_features, AtenTensorHandle *ret0) {
    static const char op[] = "_dyn_quant_matmul_4bit";
    if (shimrt_k_check_cpu(op, inp, "inp") ||
        shimrt_k_check_cpu(op, packed_weights, "packed_weights") ||
        check_block(op, block_size, in_features, out_features))
        return AOTI_TORCH_FAILURE;
    int32_t dt = inp->dtype;
    if (dt != SHIMRT_FLOAT32 && !(dt == SHIMRT_BFLOAT16 && block_size == in_features))
        return shimrt_fail(op, "_dyn_quant_matmul_4bit_cpu : expect input to be float32 or "
                               "bfloat16 tensor.");
    if (inp->ndim != 2 || inp->sizes[1] != in_features)
        return shimrt_fail(op, "_dyn_quant_matmul_4bit: expected a 2-d input of %lld columns",
                           (long long)in_features);
    if (packed_weights->dtype != SHIMRT_FLOAT32 || packed_weights->ndim != 1)
        return shimrt_fail(op, "_dyn_quant_matmul_4bit: packed_weights must be the 1-d float32 "
                               "tensor of _dyn_quant_pack_4bit_weight");
    int64_t K = in_features, N = out_features, M = inp->sizes[0], nb = K / block_size;
    int64_t nw, ns, total = packed_weights->sizes[0];
    if (__builtin_mul_overflow(N, K, &nw) || __builtin_mul_overflow(N, nb, &ns) ||
        __builtin_add_overflow(nw / 2, ns, &(int64_t){0}) ||
        __builtin_add_overflow(nw / 2 + ns, N, &(int64_t){0}))
        return shimrt_fail(op, "_dyn_quant_matmul_4bit: in_features * out_features overflows");
    nw /= 2;
    bool has_bias = total == nw + ns + N;
    if (total != nw + ns && !has_bias)
        return shimrt_fail(op,
                           "_dyn_quant_matmul_4bit: packed_weights holds %lld values, not "
                           "the %lld (or %lld with a bias) of these sizes",
                           (long long)total, (long long)(nw + ns), (long long)(nw + ns + N));
    int64_t osz[2] = {M, N};
    AtenTensorHandle out = shimrt_tensor_empty(op, 2, osz, NULL, dt, SHIMRT_DEV_CPU, 0);
    float *x = malloc((size_t)(K ? K : 1) * sizeof *x),
          *pw = malloc((size_t)(packed_weights->strides[0] != 1 ? total : 1) * sizeof *pw);
    int8_t *q = malloc((size_t)K);
    uint8_t *w = malloc((size_t)(nw ? nw : 1));
    if (!out || !x || !pw || !q || !w) {
        if (out) shimrt_fail(op, "out of memory");
        shimrt_tensor_free(out);
        free(x), free(pw), free(q), free(w);
        return AOTI_TORCH_FAILURE;
    }
    const float *pb = shimrt_data(packed_weights);
    int64_t pst = packed_weights->strides[0];
    if (pst != 1) { /* a strided view: a contiguous copy first */
        for (int64_t i = 0; i < total; i++) pw[i] = pb[i * pst];
        pb = pw;
    }
    for (int64_t i = 0; i < nw; i++) /* .to(kByte): truncation, wrapping as PyTorch's cast */
        w[i] = (uint8_t)(int64_t)pb[i];
    const float *sc = pb + nw, *bias = has_bias ? pb + nw + ns : NULL;
    char *ob = shimrt_data(out);
    size_t es = shimrt_dtype_size(dt);
    int64_t idx[2];
    for (int64_t m = 0; m < M; m++) {
        idx[0] = m;
        for (int64_t k = 0; k < K; k++) {
            idx[1] = k;
            x[k] = (float)shimrt_k_load_f64(shimrt_idx_at(inp, idx), dt);
        }
        float recip;
        int32_t zp;
        quant_row(x, K, q, &recip, &zp);
        for (int64_t n = 0; n < N; n++) {
            const uint8_t *row = w + n * (K / 2);
            float acc = 0.0f;
            for (int64_t b = 0; b < nb; b++) {
                /* sum over k of (q[k] - zp) * r[k], two 4-bit values a byte (exact in
                 * int32, so the order does not matter) */
                int32_t iacc = 0, rsum = 0;
                for (int64_t k = b * block_size; k < (b + 1) * block_size; k += 2) {
                    uint8_t byte = row[k / 2];
                    int32_t r0 = (int32_t)(byte & 0x0F) - 8, r1 = (int32_t)(byte >> 4) - 8;
                    iacc += (int32_t)q[k] * r0 + (int32_t)q[k + 1] * r1;
                    rsum += r0 + r1;
                }
                iacc -= zp * rsum;
                acc += (float)iacc * sc[n * nb + b];
            }
            acc = acc * recip;
            if (bias) acc = acc + bias[n];
            shimrt_k_store_f64(ob + (m * N + n) * (int64_t)es, dt, acc);
        }
    }
    free(x), free(pw), free(q), free(w);
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

/* runtime/cpu/norm.c: layer_norm and native_layer_norm (CPU; plain row loops, statistics in
 * long double, then rounded to the input's dtype as PyTorch's CPU kernel stores them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../generic/meta.h"
#include "compositeimplicitautograd_kernels.h"
#include "cpu_kernels.h"
#include "index.h"

/* ---- PyTorch's row moments (aten/src/ATen/native/cpu/moments_utils.h, RowwiseMoments) -----
 * Welford's update in VW vector lanes over groups of KV elements (KV = VW, or 2 * VW for the
 * half types, whose vector holds two float vectors, accumulated in turn): chunks of up to 16
 * groups with the factors 1/1 .. 1/16, each chunk added (AddMomentsVec) into a binary stack of
 * depth CeilLog2(chunks), the stack folded into its first entry, the elements after the last
 * whole group in a scalar Welford, and the VW lanes added to it last (AddMoments, whose
 * delta * delta * c * m0 is 0 * inf, NaN, for a huge first lane: PyTorch 2.15's vector form
 * multiplies delta by m0 first). VW is PyTorch's vector
 * width for this kernel (8 floats). Its vector code contracts a * b + c into fused
 * multiply-adds (SH_MFMA, measured), its scalar tail does not. The mean and variance of a
 * row of inf, -inf and NaN come out as PyTorch's (one inf gives a NaN mean: 0 * inf when an
 * empty lane is added). */
#define SH_MFMA(T, a, b, c)                                                                        \
    (sizeof(T) == sizeof(float) ? (T)fmaf((float)(a), (float)(b), (float)(c))                      \
                                : (T)fma((double)(a), (double)(b), (double)(c)))
#define ROW_MOMENTS(T, NAME)                                                                       \
    static void NAME##_add(int64_t m0_add, const T *a1, const T *a2, int64_t *m0, T *m1, T *m2,    \
                           int vw) {                                                               \
        int64_t n = *m0 + m0_add;                                                                  \
        T c = n == 0 ? (T)0 : (T)m0_add / (T)n;                                                    \
        for (int l = 0; l < vw; l++) {                                                             \
            T d = a1[l] - m1[l];                                                                   \
            m1[l] = SH_MFMA(T, c, d, m1[l]);                                                       \
            m2[l] = m2[l] + SH_MFMA(T, d * d * c, (T)*m0, a2[l]);                                  \
        }                                                                                          \
        *m0 = n;                                                                                   \
    }                                                                                              \
    /* AddMomentsVec: m2 = fma(delta * m0, c * delta, m2 + m2_add), m1 + c * delta unfused (no   \
       0 * inf from a huge delta while m0 is 0) */ \
    static void NAME##_addv(int64_t m0_add, const T *a1, const T *a2, int64_t *m0, T *m1, T *m2,   \
                            int vw) {                                                              \
        int64_t n = *m0 + m0_add;                                                                  \
        T c = n == 0 ? (T)0 : (T)m0_add / (T)n;                                                    \
        for (int l = 0; l < vw; l++) {                                                             \
            T d = a1[l] - m1[l], cd = c * d;                                                       \
            m1[l] = m1[l] + cd;                                                                    \
            m2[l] = SH_MFMA(T, d * (T)*m0, cd, m2[l] + a2[l]);                                     \
        }                                                                                          \
        *m0 = n;                                                                                   \
    }                                                                                              \
    static void NAME(const T *X, int64_t N, int vw, int halves, T *mean, T *var) {                 \
        enum { CH = 16, MAXW = 16 };                                                               \
        int64_t kv = (int64_t)vw * halves, n = N / kv, m = (n + CH - 1) / CH;                      \
        int depth = m <= 2 ? 1 : 64 - __builtin_clzll((unsigned long long)(m - 1));                \
        int64_t m0s[64] = {0};                                                                     \
        T m1s[64][MAXW], m2s[64][MAXW], v1[2][MAXW], v2[2][MAXW];                                  \
        memset(m1s, 0, sizeof m1s), memset(m2s, 0, sizeof m2s);                                    \
        for (int64_t i = 0; i < m; i++) {                                                          \
            const T *xp = X + i * CH * kv;                                                         \
            int64_t mm0 = n - i * CH < CH ? n - i * CH : CH;                                       \
            memset(v1, 0, sizeof v1), memset(v2, 0, sizeof v2);                                    \
            for (int64_t j = 0; j < mm0; j++) {                                                    \
                T c = (T)1 / (T)(j + 1);                                                           \
                for (int h = 0; h < halves; h++)                                                   \
                    for (int l = 0; l < vw; l++) {                                                 \
                        T x = xp[j * kv + h * vw + l], d = x - v1[h][l];                           \
                        v1[h][l] = SH_MFMA(T, d, c, v1[h][l]);                                     \
                        v2[h][l] = SH_MFMA(T, d, x - v1[h][l], v2[h][l]);                          \
                    }                                                                              \
            }                                                                                      \
            for (int h = 0; h < halves; h++)                                                       \
                NAME##_addv(mm0, v1[h], v2[h], &m0s[0], m1s[0], m2s[0], vw);                       \
            int64_t mask = i + 1;                                                                  \
            for (int j = 1; j < depth && (mask & 1) == 0; ++j) {                                   \
                NAME##_addv(m0s[j - 1], m1s[j - 1], m2s[j - 1], &m0s[j], m1s[j], m2s[j], vw);      \
                m0s[j - 1] = 0;                                                                    \
                memset(m1s[j - 1], 0, sizeof m1s[0]), memset(m2s[j - 1], 0, sizeof m2s[0]);        \
                mask >>= 1;                                                                        \
            }                                                                                      \
        }                                                                                          \
        for (int i = 1; i < depth; i++)                                                            \
            NAME##_addv(m0s[i], m1s[i], m2s[i], &m0s[0], m1s[0], m2s[0], vw);                      \
        int64_t m0 = 0;                                                                            \
        T m1 = 0, m2 = 0;                                                                          \
        for (int64_t i = n * kv; i < N; ++i) {                                                     \
            T x = X[i], d = x - m1;                                                                \
            ++m0;                                                                                  \
            m1 += d / (T)m0;                                                                       \
            m2 += d * (x - m1);                                                                    \
        }                                                                                          \
        for (int l = 0; l < vw; l++)                                                               \
            NAME##_add(n *kv / vw, &m1s[0][l], &m2s[0][l], &m0, &m1, &m2, 1);                      \
        *mean = m1;                                                                                \
        *var = m2 / (T)N;                                                                          \
    }
ROW_MOMENTS(float, moments_f)
ROW_MOMENTS(double, moments_d)

/* PyTorch's vector width in floats for this kernel: its layer norm is registered for AVX2
 * at most (no AVX-512 variant), whose vectors hold 8 floats, as its default build's. */
static int torch_float_lanes(void) { return 8; }

/* out = (x - mean) * rstd * weight + bias per row of N = prod(normalized_shape) elements;
 * mean and rstd (when not NULL) get one value per row. All three are contiguous. */
static AOTITorchError layer_norm_rows(const char *op, AtenTensorHandle input, int64_t nn,
                                      AtenTensorHandle weight, AtenTensorHandle bias, double eps,
                                      AtenTensorHandle out, AtenTensorHandle mean,
                                      AtenTensorHandle rstd) {
    int64_t axis = input->ndim - nn, M = 1, N = 1;
    for (int64_t d = 0; d < axis; d++) M *= input->sizes[d];
    for (int64_t d = axis; d < input->ndim; d++) N *= input->sizes[d];
    int32_t dt = input->dtype;
    size_t es = shimrt_dtype_size(dt);
    long double *row = malloc((size_t)(N ? N : 1) * sizeof *row);
    long double *w = malloc((size_t)(N ? N : 1) * sizeof *w);
    long double *bb = malloc((size_t)(N ? N : 1) * sizeof *bb);
    void *tmp = malloc((size_t)(N ? N : 1) * sizeof(double));
    if (!row || !w || !bb || !tmp) {
        free(row), free(w), free(bb), free(tmp);
        return shimrt_fail(op, "out of memory");
    }
    int64_t idx[SHIMRT_MAX_DIMS] = {0};
    /* weight and bias in the order of normalized_shape's elements */
    for (int64_t j = 0; j < N; j++) w[j] = 1, bb[j] = 0;
    AtenTensorHandle wb[2] = {weight, bias};
    long double *dst[2] = {w, bb};
    for (int k = 0; k < 2; k++) {
        if (!wb[k] || N == 0) continue;
        memset(idx, 0, sizeof idx);
        int64_t j = 0;
        do dst[k][j++] = shimrt_idx_load(shimrt_idx_at(wb[k], idx), wb[k]->dtype);
        while (shimrt_idx_next(wb[k]->ndim, wb[k]->sizes, idx));
    }
    char *po = shimrt_data(out);
    char *pm = mean ? shimrt_data(mean) : NULL, *pr = rstd ? shimrt_data(rstd) : NULL;
    size_t ses = mean ? shimrt_dtype_size(mean->dtype) : 0; /* mean and rstd: one dtype */
    memset(idx, 0, sizeof idx);
    for (int64_t i = 0; i < M; i++) {
        long double s = 0, var = 0;
        for (int64_t j = 0; j < N; j++) {
            row[j] = shimrt_idx_load(shimrt_idx_at(input, idx), dt);
            s += row[j];
            shimrt_idx_next(input->ndim, input->sizes, idx);
        }
        long double mu = 0, r = NAN;
        if (N && dt == SHIMRT_FLOAT64) { /* PyTorch's kernel, in double */
            double *x = (double *)(void *)tmp, m, v;
            for (int64_t j = 0; j < N; j++) x[j] = (double)row[j];
            moments_d(x, N, torch_float_lanes() / 2, 1, &m, &v);
            double rs = 1.0 / sqrt(v + eps);
            for (int64_t j = 0; j < N; j++)
                row[j] = fma((x[j] - m) * rs, (double)w[j], (double)bb[j]);
            mu = m, r = rs;
        } else if (N) { /* in float: (x - mean) * rstd * w + b for float32; the half types
                         * as x * rstd + (-rstd * mean), then * w + b (PyTorch's mixed kernel) */
            float *x = (float *)(void *)tmp, m, v;
            for (int64_t j = 0; j < N; j++) x[j] = (float)row[j];
            moments_f(x, N, torch_float_lanes(), dt == SHIMRT_FLOAT32 ? 1 : 2, &m, &v);
            float rs = 1.0f / sqrtf(v + (float)eps), bias = -rs * m;
            for (int64_t j = 0; j < N; j++)
                row[j] = dt == SHIMRT_FLOAT32
                             ? fmaf((x[j] - m) * rs, (float)w[j], (float)bb[j])
                             : fmaf(fmaf(x[j], rs, bias), (float)w[j], (float)bb[j]);
            mu = m, r = rs;
        }
        (void)var, (void)s;
        for (int64_t j = 0; j < N; j++) shimrt_idx_store(po + (size_t)(i * N + j) * es, dt, row[j]);
        if (pm) shimrt_idx_store(pm + (size_t)i * ses, mean->dtype, mu);
        if (pr) shimrt_idx_store(pr + (size_t)i * ses, rstd->dtype, N ? r : NAN);
    }
    free(row), free(w), free(bb), free(tmp);
    return AOTI_TORCH_SUCCESS;
}

/* PyTorch's CPU mixed-dtype rule: parameters (the first defined one decides) of another
 * dtype than the input must be float32 and the input float16/bfloat16; mean and rstd then
 * come in float32. Else every parameter has the input's dtype (PyTorch's kernel reads them
 * as that type, also for an empty input). *stat_dt: the dtype of mean and rstd. */
static AOTITorchError mixed_check(const char *op, AtenTensorHandle input, AtenTensorHandle weight,
                                  AtenTensorHandle bias, int32_t *stat_dt) {
    *stat_dt = input->dtype;
    AtenTensorHandle first = weight ? weight : bias;
    if (!first) return AOTI_TORCH_SUCCESS;
    if (first->dtype == input->dtype) {
        if (bias && bias->dtype != input->dtype)
            return shimrt_fail(op, "expected scalar type %s but found %s",
                               shimrt_dtype_torch_name(input->dtype),
                               shimrt_dtype_torch_name(bias->dtype));
        return AOTI_TORCH_SUCCESS;
    }
    if ((weight && weight->dtype != SHIMRT_FLOAT32) || (bias && bias->dtype != SHIMRT_FLOAT32))
        return shimrt_fail(op, "mixed dtype (CPU): expect parameter to have scalar type of Float");
    if (input->dtype != SHIMRT_BFLOAT16 && input->dtype != SHIMRT_FLOAT16)
        return shimrt_fail(op, "mixed dtype (CPU): all inputs must share same datatype.");
    *stat_dt = SHIMRT_FLOAT32;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_native_layer_norm(AtenTensorHandle input, const int64_t *normalized_shape,
                                            int64_t normalized_shape_len_, AtenTensorHandle weight,
                                            AtenTensorHandle bias, double eps,
                                            AtenTensorHandle *ret0, AtenTensorHandle *ret1,
                                            AtenTensorHandle *ret2) {
    static const char op[] = "native_layer_norm";
    int64_t nn = normalized_shape_len_;
    int32_t sdt;
    if (shimrt_k_layer_norm_check(op, input, normalized_shape, nn, weight, bias, SHIMRT_DEV_CPU) ||
        mixed_check(op, input, weight, bias, &sdt))
        return AOTI_TORCH_FAILURE;
    /* mean and rstd: input's leading sizes, then a 1 per normalized dim */
    int64_t stat[SHIMRT_MAX_DIMS];
    for (int64_t d = 0; d < input->ndim; d++) stat[d] = d < input->ndim - nn ? input->sizes[d] : 1;
    AtenTensorHandle out =
        shimrt_tensor_empty(op, input->ndim, input->sizes, NULL, input->dtype, SHIMRT_DEV_CPU, -1);
    AtenTensorHandle mean =
        out ? shimrt_tensor_empty(op, input->ndim, stat, NULL, sdt, SHIMRT_DEV_CPU, -1) : NULL;
    AtenTensorHandle rstd =
        mean ? shimrt_tensor_empty(op, input->ndim, stat, NULL, sdt, SHIMRT_DEV_CPU, -1) : NULL;
    if (!rstd || layer_norm_rows(op, input, nn, weight, bias, eps, out, mean, rstd)) {
        shimrt_tensor_free(out), shimrt_tensor_free(mean), shimrt_tensor_free(rstd);
        return AOTI_TORCH_FAILURE;
    }
    *ret0 = out, *ret1 = mean, *ret2 = rstd;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_layer_norm(AtenTensorHandle input, const int64_t *normalized_shape,
                                 int64_t normalized_shape_len_, AtenTensorHandle weight,
                                 AtenTensorHandle bias, double eps, int32_t cudnn_enable,
                                 AtenTensorHandle *ret0) {
    static const char op[] = "layer_norm";
    (void)cudnn_enable; /* a CUDA-only hint */
    int64_t nn = normalized_shape_len_;
    int32_t sdt;
    /* input on another device: native_layer_norm there, through the dispatcher */
    if (shimrt_tensor_valid(input) && input->device_type != SHIMRT_DEV_CPU)
        return shimrt_k_layer_norm_any(op, input, normalized_shape, nn, weight, bias, eps, ret0);
    if (shimrt_k_layer_norm_check(op, input, normalized_shape, nn, weight, bias, SHIMRT_DEV_CPU) ||
        mixed_check(op, input, weight, bias, &sdt))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle out =
        shimrt_tensor_empty(op, input->ndim, input->sizes, NULL, input->dtype, SHIMRT_DEV_CPU, -1);
    return shimrt_k_hand_out(
        !out || layer_norm_rows(op, input, nn, weight, bias, eps, out, NULL, NULL), out, ret0);
}

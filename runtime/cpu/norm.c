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
    if (!row || !w || !bb) {
        free(row), free(w), free(bb);
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
        long double mu = N ? s / (long double)N : 0;
        for (int64_t j = 0; j < N; j++) var += (row[j] - mu) * (row[j] - mu);
        var = N ? var / (long double)N : 0;
        long double r = 1.0L / sqrtl(var + (long double)eps);
        for (int64_t j = 0; j < N; j++)
            shimrt_idx_store(po + (size_t)(i * N + j) * es, dt, (row[j] - mu) * r * w[j] + bb[j]);
        if (pm) shimrt_idx_store(pm + (size_t)i * ses, mean->dtype, mu);
        if (pr) shimrt_idx_store(pr + (size_t)i * ses, rstd->dtype, N ? r : NAN);
    }
    free(row), free(w), free(bb);
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

/* runtime/cpu/fakequant.c: _fused_moving_avg_obs_fq_helper and its functional form, as
 * PyTorch's CPU kernel (fused_obs_fake_quant.cpp) computes them on float32 tensors:
 *  - observer_on (its one element nonzero): the input's min and max (per tensor, or per row
 *    of a 2-d input with per_row_fake_quant, ch_axis 0) update running_min/running_max by a
 *    moving average (an infinite running value takes the current one);
 *  - fake_quant_on: scale and zero_point from the running min/max (fbgemm's
 *    ChooseQuantizationParams, symmetric_quant preserving sparsity), then the output is the
 *    input fake-quantized, the mask where its quantized value was inside [quant_min,
 *    quant_max]; else the output is a copy of the input and the mask all true.
 * The in-place form writes running_min, running_max, scale and zero_point; the functional
 * one returns new copies of them instead. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../generic/meta.h"
#include "cpu_kernels.h"
#include "index.h"
#include "iter.h"

#define SMALL_SCALE 6.1e-5f

/* fbgemm's ChooseQuantizationParams (force_scale_power_of_two false, no
 * reduce_range), in its float/double mix */
static void choose_qparams(float mn, float mx, int32_t qmin, int32_t qmax, bool sparse,
                           float *scale_out, int32_t *zp_out) {
    /* (fbgemm, which PyTorch's x86 build uses, does not check min <= max) */
    if (mn < 0 && mx > 0 && sparse) {
        int32_t sqmin = -((qmax - qmin) / 2 + 1), sqmax = (qmax - qmin) / 2;
        float a = fabsf(mn / (float)sqmin), b = fabsf(mx / (float)sqmax);
        double ms = a > b ? a : b;
        mn = (float)(ms * sqmin);
        mx = (float)(ms * sqmax);
    }
    mn = mn < 0.f ? mn : 0.f;
    mx = mx > 0.f ? mx : 0.f;
    double scale = ((double)mx - mn) / (qmax - qmin);
    if ((float)scale == 0.0f || isinf(1.0f / (float)scale)) scale = 0.1;
    if (scale < SMALL_SCALE) {
        float org = (float)scale;
        scale = SMALL_SCALE;
        if (mn == 0.0f) {
            mx = SMALL_SCALE * (float)(qmax - qmin);
        } else if (mx == 0.0f) {
            mn = -SMALL_SCALE * (float)(qmax - qmin);
        } else {
            float amp = SMALL_SCALE / org;
            mn *= amp;
            mx *= amp;
        }
    }
    double zmin = qmin - mn / scale, zmax = qmax - mx / scale;
    double emin = abs(qmin) - fabs(mn / scale), emax = abs(qmax) - fabs(mx / scale);
    double z0 = emin < emax ? zmin : zmax;
    if (mn < 0 && mx > 0 && sparse) z0 = (double)(qmin + qmax) / 2;
    int32_t zp = z0 < qmin ? qmin : z0 > qmax ? qmax : (int32_t)nearbyint(z0);
    *scale_out = (float)scale;
    *zp_out = zp;
}

/* one element of a 1-d (or 0-d) float32/int32 tensor */
static char *elem(AtenTensorHandle t, int64_t i) {
    return (char *)shimrt_data(t) +
           (t->ndim ? i * t->strides[0] : 0) * (int64_t)shimrt_dtype_size(t->dtype);
}

static AOTITorchError check_flag(const char *op, AtenTensorHandle t, const char *name, bool *on) {
    if (shimrt_k_check_cpu(op, t, name) || shimrt_k_check_dtype(op, t, name))
        return AOTI_TORCH_FAILURE;
    if (shimrt_numel(t) != 1)
        return shimrt_fail(op, "a Tensor with %lld elements cannot be converted to Scalar (%s)",
                           (long long)shimrt_numel(t), name);
    int64_t idx[SHIMRT_MAX_DIMS] = {0};
    *on = shimrt_k_load_i64(shimrt_idx_at(t, idx), t->dtype) != 0;
    return AOTI_TORCH_SUCCESS;
}

/* rmin, rmax, scale, zp are written in place (the functional form passes copies) */
static AOTITorchError fused(const char *op, AtenTensorHandle self, AtenTensorHandle observer_on,
                            AtenTensorHandle fake_quant_on, AtenTensorHandle rmin,
                            AtenTensorHandle rmax, AtenTensorHandle scale, AtenTensorHandle zp,
                            double averaging_const, int64_t quant_min, int64_t quant_max,
                            int64_t ch_axis, bool per_row, bool symmetric, AtenTensorHandle *ret0,
                            AtenTensorHandle *ret1) {
    bool observe, fq;
    if (shimrt_k_check_cpu(op, self, "self") ||
        check_flag(op, observer_on, "observer_on", &observe) ||
        check_flag(op, fake_quant_on, "fake_quant_on", &fq))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle ts[5] = {self, rmin, rmax, scale, zp};
    static const char *const names[5] = {"self", "running_min", "running_max", "scale",
                                         "zero_point"};
    for (int k = 0; k < 5; k++) {
        if (shimrt_k_check_cpu(op, ts[k], names[k])) return AOTI_TORCH_FAILURE;
        int32_t want = k == 4 ? SHIMRT_INT32 : SHIMRT_FLOAT32;
        if (ts[k]->dtype != want)
            return shimrt_fail(op, "expected scalar type %s but found %s (%s)",
                               shimrt_dtype_name(want), shimrt_dtype_name(ts[k]->dtype), names[k]);
        if (k > 0 && ts[k]->ndim > 1) return shimrt_fail(op, "%s must be a vector", names[k]);
    }
    if (ch_axis >= self->ndim)
        return shimrt_fail(op, "Error in fused_moving_avg_obs_fake_quant_cpu: ch_axis must be < "
                               "self.dim()");
    if (quant_min > INT32_MAX || quant_min < INT32_MIN || quant_max > INT32_MAX ||
        quant_max < INT32_MIN)
        return shimrt_fail(op, "quant_min and quant_max must fit in int32");
    int64_t n = shimrt_numel(self);
    /* per row: a 2-d input's rows (ch_axis 0) */
    int64_t rows = 1, cols = n;
    if (per_row) {
        if (ch_axis != 0)
            return shimrt_fail(op, "Per-channel FakeQuant in fused_moving_avg_obs_fake_quant is "
                                   "only supported on axis == 0");
        if (self->ndim != 2)
            return shimrt_fail(op,
                               "per-row fake quantization takes a 2-d input here, got %lld "
                               "dimensions",
                               (long long)self->ndim);
        rows = self->sizes[0];
        cols = self->sizes[1];
    }
    int64_t nq = per_row ? rows : 1;
    if (shimrt_numel(rmin) < nq || shimrt_numel(rmax) < nq || shimrt_numel(scale) < nq ||
        shimrt_numel(zp) < nq)
        return shimrt_fail(op,
                           "running_min, running_max, scale and zero_point need %lld "
                           "elements",
                           (long long)nq);
    int64_t idx[SHIMRT_MAX_DIMS];
    if (observe) {
        if (cols == 0 || (!per_row && n == 0))
            return shimrt_fail(op, "aminmax(): cannot compute aminmax over an empty dimension as "
                                   "the operation has no identity.");
        float ac = (float)averaging_const;
        for (int64_t r = 0; r < rows; r++) {
            float lo = INFINITY, hi = -INFINITY;
            bool nan = false;
            memset(idx, 0, sizeof idx);
            if (per_row) idx[0] = r;
            for (int64_t c = 0; c < cols; c++) {
                float v = *(const float *)(const void *)shimrt_idx_at(self, idx);
                if (isnan(v)) nan = true;
                if (v < lo) lo = v;
                if (v > hi) hi = v;
                if (per_row)
                    idx[1]++;
                else
                    shimrt_idx_next(self->ndim, self->sizes, idx);
            }
            if (nan) lo = hi = NAN;
            float *pm = (float *)(void *)elem(rmin, r), *px = (float *)(void *)elem(rmax, r);
            *pm = isinf(*pm) ? lo : *pm + ac * (lo - *pm);
            *px = isinf(*px) ? hi : *px + ac * (hi - *px);
        }
    }
    AtenTensorHandle out =
        shimrt_tensor_empty(op, self->ndim, self->sizes, NULL, SHIMRT_FLOAT32, SHIMRT_DEV_CPU, 0);
    AtenTensorHandle mask =
        shimrt_tensor_empty(op, self->ndim, self->sizes, NULL, SHIMRT_BOOL, SHIMRT_DEV_CPU, 0);
    if (!out || !mask) goto fail;
    float *ob = shimrt_data(out);
    uint8_t *mb = shimrt_data(mask);
    float sc = 1.0f;
    int32_t z = 0;
    memset(idx, 0, sizeof idx);
    for (int64_t r = 0; r < rows; r++) {
        if (fq) {
            float *s = (float *)(void *)elem(scale, r);
            int32_t *zz = (int32_t *)(void *)elem(zp, r);
            choose_qparams(*(float *)(void *)elem(rmin, r), *(float *)(void *)elem(rmax, r),
                           (int32_t)quant_min, (int32_t)quant_max, symmetric, s, zz);
            sc = *s;
            z = *zz;
        }
        for (int64_t c = 0; c < cols; c++) {
            int64_t e = r * cols + c;
            float v = *(const float *)(const void *)shimrt_idx_at(self, idx);
            shimrt_idx_next(self->ndim, self->sizes, idx);
            if (!fq) {
                ob[e] = v;
                mb[e] = 1;
                continue;
            }
            float inv = 1.0f / sc;
            float qf = (float)z + nearbyintf(v * inv);
            double cl = fmin(fmax((double)qf, (double)quant_min), (double)quant_max);
            int64_t q = (int64_t)cl;
            ob[e] = (float)(q - z) * sc;
            mb[e] = (double)quant_min <= qf && qf <= (double)quant_max;
        }
    }
    *ret0 = out;
    *ret1 = mask;
    return AOTI_TORCH_SUCCESS;
fail:
    shimrt_tensor_free(out);
    shimrt_tensor_free(mask);
    return AOTI_TORCH_FAILURE;
}

AOTITorchError shimrt_cpu__fused_moving_avg_obs_fq_helper(
    AtenTensorHandle self, AtenTensorHandle observer_on, AtenTensorHandle fake_quant_on,
    AtenTensorHandle running_min, AtenTensorHandle running_max, AtenTensorHandle scale,
    AtenTensorHandle zero_point, double averaging_const, int64_t quant_min, int64_t quant_max,
    int64_t ch_axis, int32_t per_row_fake_quant, int32_t symmetric_quant, AtenTensorHandle *ret0,
    AtenTensorHandle *ret1) {
    return fused("_fused_moving_avg_obs_fq_helper", self, observer_on, fake_quant_on, running_min,
                 running_max, scale, zero_point, averaging_const, quant_min, quant_max, ch_axis,
                 per_row_fake_quant != 0, symmetric_quant != 0, ret0, ret1);
}

/* a contiguous copy of t (a new tensor; NULL: message set) */
static AtenTensorHandle copy_of(const char *op, AtenTensorHandle t) {
    if (shimrt_k_check_cpu(op, t, "argument")) return NULL;
    AtenTensorHandle c =
        shimrt_tensor_empty(op, t->ndim, t->sizes, NULL, t->dtype, SHIMRT_DEV_CPU, 0);
    if (c && shimrt_k_copy(op, c, t)) {
        shimrt_tensor_free(c);
        return NULL;
    }
    return c;
}

AOTITorchError shimrt_cpu__fused_moving_avg_obs_fq_helper_functional(
    AtenTensorHandle self, AtenTensorHandle observer_on, AtenTensorHandle fake_quant_on,
    AtenTensorHandle running_min, AtenTensorHandle running_max, AtenTensorHandle scale,
    AtenTensorHandle zero_point, double averaging_const, int64_t quant_min, int64_t quant_max,
    int64_t ch_axis, int32_t per_row_fake_quant, int32_t symmetric_quant, AtenTensorHandle *ret0,
    AtenTensorHandle *ret1, AtenTensorHandle *ret2, AtenTensorHandle *ret3, AtenTensorHandle *ret4,
    AtenTensorHandle *ret5) {
    static const char op[] = "_fused_moving_avg_obs_fq_helper_functional";
    AtenTensorHandle c[4] = {copy_of(op, running_min), NULL, NULL, NULL};
    if (c[0]) c[1] = copy_of(op, running_max);
    if (c[1]) c[2] = copy_of(op, scale);
    if (c[2]) c[3] = copy_of(op, zero_point);
    if (!c[3] || fused(op, self, observer_on, fake_quant_on, c[0], c[1], c[2], c[3],
                       averaging_const, quant_min, quant_max, ch_axis, per_row_fake_quant != 0,
                       symmetric_quant != 0, ret0, ret1)) {
        for (int k = 0; k < 4; k++) shimrt_tensor_free(c[k]);
        return AOTI_TORCH_FAILURE;
    }
    *ret2 = c[0];
    *ret3 = c[1];
    *ret4 = c[2];
    *ret5 = c[3];
    return AOTI_TORCH_SUCCESS;
}

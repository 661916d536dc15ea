/* runtime/cpu/fakequant.c: _fused_moving_avg_obs_fq_helper and its functional form, as
 * PyTorch's CPU kernel (fused_obs_fake_quant.cpp) computes them, its steps and checks in its
 * order (fused() below):
 *  - observer_on (its one element, as an int32, nonzero): self's min and max (per tensor, or
 *    per channel along ch_axis 0 with per_row_fake_quant) update running_min/running_max by
 *    a moving average (an infinite running value takes the current one); float32 only;
 *    (fake quantization itself takes float16, bfloat16, float32 and float64)
 *  - fake_quant_on: scale and zero_point from the running min/max (fbgemm's
 *    ChooseQuantizationParams, symmetric_quant preserving sparsity), then the output is self
 *    fake-quantized, the mask where its quantized value was inside [quant_min, quant_max];
 *    else the output is a copy of self (its dtype and layout) and the mask all true.
 * PyTorch reads and writes the buffers by raw index (data_ptr<T>()[i]): libshimrt does the
 * same on vectors, refusing where that would run past a buffer. The in-place form writes
 * running_min, running_max, scale and zero_point; the functional one returns new copies. */
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
    mn = 0.f < mn ? 0.f : mn; /* std::min(min, 0.f), std::max(max, 0.f): NaN stays */
    mx = mx < 0.f ? 0.f : mx;
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

/* element i of t's raw data (PyTorch's data_ptr<T>()[i]: strides ignored) */
static char *elem(AtenTensorHandle t, int64_t i) {
    return (char *)shimrt_data(t) + i * (int64_t)shimrt_dtype_size(t->dtype);
}

/* Tensor::item().toInt() of a flag: one element, its value as int32 (c10's overflow check:
 * a floating value outside int32's range, or NaN, fails) */
static AOTITorchError check_flag(const char *op, AtenTensorHandle t, const char *name, bool *on) {
    int32_t dt = t->dtype;
    bool cplx = dt == SHIMRT_COMPLEX64 || dt == SHIMRT_COMPLEX128;
    bool uns = dt == SHIMRT_UINT16 || dt == SHIMRT_UINT32 || dt == SHIMRT_UINT64;
    if (shimrt_k_check_cpu(op, t, name) || (!cplx && !uns && shimrt_k_check_dtype(op, t, name)))
        return AOTI_TORCH_FAILURE;
    if (shimrt_numel(t) != 1)
        return shimrt_fail(op, "a Tensor with %lld elements cannot be converted to Scalar (%s)",
                           (long long)shimrt_numel(t), name);
    int64_t idx[SHIMRT_MAX_DIMS] = {0};
    const char *p = shimrt_idx_at(t, idx);
    if (uns) { /* (item() of uint16/32/64: the value; toInt checks int32's range) */
        uint64_t u = dt == SHIMRT_UINT16   ? *(const uint16_t *)(const void *)p
                     : dt == SHIMRT_UINT32 ? *(const uint32_t *)(const void *)p
                                           : *(const uint64_t *)(const void *)p;
        if (u > INT32_MAX)
            return shimrt_fail(op, "value cannot be converted to type int32_t without overflow");
        *on = u != 0;
        return AOTI_TORCH_SUCCESS;
    }
    if (cplx || shimrt_k_is_floating(dt)) { /* (complex: the real part, the imaginary 0) */
        double v = dt == SHIMRT_COMPLEX64    ? *(const float *)(const void *)p
                   : dt == SHIMRT_COMPLEX128 ? *(const double *)(const void *)p
                                             : shimrt_k_load_f64(p, dt);
        double im = dt == SHIMRT_COMPLEX64    ? ((const float *)(const void *)p)[1]
                    : dt == SHIMRT_COMPLEX128 ? ((const double *)(const void *)p)[1]
                                              : 0.0;
        if (im != 0)
            return shimrt_fail(op, "value cannot be converted to type int32_t without overflow");
        if (isnan(v) || v < -2147483648.0 || v > 2147483647.0)
            return shimrt_fail(op, "value cannot be converted to type int32_t without overflow");
        *on = (int64_t)v != 0;
        return AOTI_TORCH_SUCCESS;
    }
    int64_t v = shimrt_k_load_i64(p, t->dtype);
    if (v < INT32_MIN || v > INT32_MAX)
        return shimrt_fail(op, "value cannot be converted to type int32_t without overflow");
    *on = v != 0;
    return AOTI_TORCH_SUCCESS;
}

/* PyTorch's data_ptr<float>() / data_ptr<int32_t>() of t, then its raw use as n elements from
 * the data pointer (strides ignored there): libshimrt takes vectors of at least n */
static AOTITorchError raw_use(const char *op, AtenTensorHandle t, const char *name, int32_t dt,
                              int64_t n) {
    if (t->dtype != dt)
        return shimrt_fail(op, "expected scalar type %s but found %s (%s)",
                           shimrt_dtype_torch_name(dt), shimrt_dtype_torch_name(t->dtype), name);
    if (t->ndim > 1) return shimrt_fail(op, "%s must be a vector", name);
    size_t have = t->storage ? t->storage->nbytes : 0, es = shimrt_dtype_size(dt);
    size_t from = (size_t)t->storage_offset * es;
    if (shimrt_numel(t) < n || (n > 0 && (have < from || (have - from) / es < (size_t)n)))
        return shimrt_fail(op,
                           "%s needs %lld elements (PyTorch's kernel would index out of bounds)",
                           name, (long long)n);
    return AOTI_TORCH_SUCCESS;
}

/* rmin, rmax, scale, zp are written in place (the functional form passes copies). PyTorch's
 * fused_moving_avg_obs_fake_quant_cpu, step by step: ch_axis < self.dim(); the observer
 * flag; per row: a running_min without elements resizes the four buffers to
 * self.size(ch_axis) (min and max filled with +-inf); with the observer on, self's aminmax
 * (per row: ch_axis 0, a 2-d view) moves running_min/max (float32); the fake-quant flag; on:
 * scale and zero_point from them, the fake-quantized self (float32, zero_point int32);
 * off: a copy of self and an all-true mask, self's dtype and layout. Each tensor is checked
 * where PyTorch uses it. */
static AOTITorchError fused(const char *op, AtenTensorHandle self, AtenTensorHandle observer_on,
                            AtenTensorHandle fake_quant_on, AtenTensorHandle rmin,
                            AtenTensorHandle rmax, AtenTensorHandle scale, AtenTensorHandle zp,
                            double averaging_const, int64_t quant_min, int64_t quant_max,
                            int64_t ch_axis, bool per_row, bool symmetric, AtenTensorHandle *ret0,
                            AtenTensorHandle *ret1) {
    bool observe, fq;
    AtenTensorHandle ts[5] = {self, rmin, rmax, scale, zp};
    static const char *const names[5] = {"self", "running_min", "running_max", "scale",
                                         "zero_point"};
    for (int k = 0; k < 5; k++)
        if (shimrt_k_check_cpu(op, ts[k], names[k])) return AOTI_TORCH_FAILURE;
    if (ch_axis >= self->ndim)
        return shimrt_fail(op, "Error in fused_moving_avg_obs_fake_quant_cpu: ch_axis must be < "
                               "self.dim()");
    if (check_flag(op, observer_on, "observer_on", &observe)) return AOTI_TORCH_FAILURE;
    int64_t n = shimrt_numel(self);
    /* per row: channels along ch_axis (PyTorch's observer permutes ch_axis first and
     * flattens the rest; its fake quantization is per channel along ch_axis) */
    int64_t rows = 1, ax = 0;
    if (per_row) {
        if (self->ndim == 0 || (ch_axis < 0 && self->ndim != 2))
            return shimrt_fail(op,
                               "per-row fake quantization of a %lld-d input along %lld "
                               "(PyTorch's kernel indexes its dims out of bounds)",
                               (long long)self->ndim, (long long)ch_axis);
        if (ch_axis < -self->ndim) /* (self.size(ch_axis)) */
            return shimrt_fail(op,
                               "Dimension out of range (expected to be in range of [%lld, %lld], "
                               "but got %lld)",
                               (long long)-self->ndim, (long long)(self->ndim - 1),
                               (long long)ch_axis);
        ax = ch_axis < 0 ? ch_axis + self->ndim : ch_axis;
        if (self->ndim == 1) /* (y.flatten(1) of the permuted 1-d input) */
            return shimrt_fail(op, "Dimension out of range (expected to be in range of [-1, 0], "
                                   "but got 1)");
        int64_t size = self->sizes[ax];
        if (shimrt_numel(rmin) == 0) {
            const double inf = INFINITY;
            if (shimrt_cpu_resize_(rmin, &size, 1, NULL) ||
                shimrt_cpu_fill__scalar(rmin, shimrt_scalar_double(inf)) ||
                shimrt_cpu_resize_(rmax, &size, 1, NULL) ||
                shimrt_cpu_fill__scalar(rmax, shimrt_scalar_double(-inf)) ||
                shimrt_cpu_resize_(scale, &size, 1, NULL) || shimrt_cpu_resize_(zp, &size, 1, NULL))
                return AOTI_TORCH_FAILURE;
        }
        if (observe && ch_axis != 0)
            return shimrt_fail(op, "Per-channel FakeQuant in fused_moving_avg_obs_fake_quant is "
                                   "only supported on axis == 0");
        rows = size;
    }
    int64_t idx[SHIMRT_MAX_DIMS];
    if (observe) {
        if ((per_row && rows && n == 0) || (!per_row && n == 0))
            return shimrt_fail(op, "aminmax(): cannot compute aminmax over an empty dimension as "
                                   "the operation has no identity.");
        if (self->dtype != SHIMRT_FLOAT32)
            return shimrt_fail(op, "expected scalar type Float but found %s (aminmax of self)",
                               shimrt_dtype_torch_name(self->dtype));
        if (raw_use(op, rmin, "running_min", SHIMRT_FLOAT32, rows) ||
            raw_use(op, rmax, "running_max", SHIMRT_FLOAT32, rows))
            return AOTI_TORCH_FAILURE;
        float *lo = malloc(sizeof *lo * (size_t)(rows ? rows : 1)),
              *hi = malloc(sizeof *hi * (size_t)(rows ? rows : 1));
        bool *nan = calloc((size_t)(rows ? rows : 1), sizeof *nan);
        if (!lo || !hi || !nan) {
            free(lo), free(hi), free(nan);
            return shimrt_fail(op, "out of memory");
        }
        for (int64_t r = 0; r < rows; r++) lo[r] = INFINITY, hi[r] = -INFINITY;
        memset(idx, 0, sizeof idx);
        for (int64_t e = 0; e < n; e++) {
            int64_t r = per_row ? idx[ax] : 0;
            float v = *(const float *)(const void *)shimrt_idx_at(self, idx);
            if (isnan(v)) nan[r] = true;
            if (v < lo[r]) lo[r] = v;
            if (v > hi[r]) hi[r] = v;
            shimrt_idx_next(self->ndim, self->sizes, idx);
        }
        float ac = (float)averaging_const;
        for (int64_t r = 0; r < rows; r++) {
            if (nan[r]) lo[r] = hi[r] = NAN;
            float *pm = (float *)(void *)elem(rmin, r), *px = (float *)(void *)elem(rmax, r);
            *pm = isinf(*pm) ? lo[r] : *pm + ac * (lo[r] - *pm);
            *px = isinf(*px) ? hi[r] : *px + ac * (hi[r] - *px);
        }
        free(lo), free(hi), free(nan);
    }
    if (check_flag(op, fake_quant_on, "fake_quant_on", &fq)) return AOTI_TORCH_FAILURE;
    if (!fq) { /* self.clone() and ones_like(self, bool), self's layout */
        int64_t st[SHIMRT_MAX_DIMS];
        shimrt_k_preserve_strides(self, st);
        AtenTensorHandle c = NULL, m = shimrt_tensor_empty(op, self->ndim, self->sizes, st,
                                                           SHIMRT_BOOL, SHIMRT_DEV_CPU, 0);
        if (!m || shimrt_cpu_clone(self, NULL, &c)) {
            shimrt_tensor_free(m);
            return AOTI_TORCH_FAILURE;
        }
        if (n) memset(shimrt_data(m), 1, (size_t)n);
        *ret0 = c;
        *ret1 = m;
        return AOTI_TORCH_SUCCESS;
    }
    if (per_row && (raw_use(op, rmin, "running_min", SHIMRT_FLOAT32, 0) ||
                    raw_use(op, rmax, "running_max", SHIMRT_FLOAT32, shimrt_numel(rmin))))
        return AOTI_TORCH_FAILURE;
    if (!per_row && (shimrt_numel(rmin) != 1 || shimrt_numel(rmax) != 1))
        return shimrt_fail(
            op, "a Tensor with %lld elements cannot be converted to Scalar",
            (long long)(shimrt_numel(rmin) != 1 ? shimrt_numel(rmin) : shimrt_numel(rmax)));
    int64_t nq = per_row ? shimrt_numel(rmin) : 1;
    for (int k = 0; k < 2; k++) { /* scale[i] = ..., zero_point[i] = ... (select(0, i)) */
        AtenTensorHandle t = k ? zp : scale;
        if (t->ndim == 0) return shimrt_fail(op, "select() cannot be applied to a 0-dim tensor.");
        if (nq > t->sizes[0])
            return shimrt_fail(op, "index %lld is out of bounds for dimension 0 with size %lld",
                               (long long)t->sizes[0], (long long)t->sizes[0]);
    }
    /* per tensor: running_min/max read by item() (any dtype), scale[0] and zero_point[0]
     * written by fill_ (any dtype); the kernel then reads a float32 scale and an int32 (or
     * float32) zero_point when self has elements */
    int32_t zf = 0;
    float sf = 0;
    bool pt = !per_row;
    if (pt) {
        if (shimrt_k_check_dtype(op, rmin, "running_min") ||
            shimrt_k_check_dtype(op, rmax, "running_max") ||
            shimrt_k_check_dtype(op, scale, "scale") || shimrt_k_check_dtype(op, zp, "zero_point"))
            return AOTI_TORCH_FAILURE;
        if (scale->ndim > 1 || zp->ndim > 1)
            return shimrt_fail(op, "scale and zero_point must be a vector");
        int64_t i0[SHIMRT_MAX_DIMS] = {0};
        float mn = (float)shimrt_k_load_f64(shimrt_idx_at(rmin, i0), rmin->dtype);
        float mx = (float)shimrt_k_load_f64(shimrt_idx_at(rmax, i0), rmax->dtype);
        choose_qparams(mn, mx, (int32_t)quant_min, (int32_t)quant_max, symmetric, &sf, &zf);
        /* (fill_'s overflow check of an integral destination) */
        for (int k = 0; k < 2; k++) {
            int32_t tdt = k ? zp->dtype : scale->dtype;
            double v = k ? (double)zf : (double)sf, lo = 0, hi = 0;
            switch (tdt) {
            case SHIMRT_UINT8: lo = 0, hi = 255; break;
            case SHIMRT_INT8: lo = -128, hi = 127; break;
            case SHIMRT_INT16: lo = -32768, hi = 32767; break;
            case SHIMRT_INT32: lo = -2147483648.0, hi = 2147483647.0; break;
            case SHIMRT_INT64: lo = -9223372036854775808.0, hi = 9223372036854775807.0; break;
            default: continue;
            }
            if (isnan(v) || v < lo || v > hi)
                return shimrt_fail(op, "value cannot be converted to type %s without overflow",
                                   shimrt_dtype_name(tdt));
        }
        shimrt_k_store_f64(shimrt_data(scale), scale->dtype, sf);
        shimrt_k_store_i64(shimrt_data(zp), zp->dtype, zf);
        /* the kernel takes both by item(): one element each, read back in their dtypes */
        if (shimrt_numel(scale) != 1 || shimrt_numel(zp) != 1)
            return shimrt_fail(
                op, "a Tensor with %lld elements cannot be converted to Scalar",
                (long long)(shimrt_numel(scale) != 1 ? shimrt_numel(scale) : shimrt_numel(zp)));
        sf = (float)shimrt_k_load_f64(shimrt_data(scale), scale->dtype);
        zf = (int32_t)shimrt_k_load_i64(shimrt_data(zp), zp->dtype);
    } else if (raw_use(op, scale, "scale", SHIMRT_FLOAT32, nq) ||
               raw_use(op, zp, "zero_point", SHIMRT_INT32, nq) ||
               raw_use(op, rmin, "running_min", SHIMRT_FLOAT32, nq) ||
               raw_use(op, rmax, "running_max", SHIMRT_FLOAT32, nq))
        return AOTI_TORCH_FAILURE;
    if (per_row && nq != rows)
        return shimrt_fail(op, "dimensions of scale and zero-point are not consistent with input "
                               "tensor");
    if (per_row && ch_axis < 0)
        return shimrt_fail(op, "`axis` must be between 0 and number of dimensions of input");
    if (quant_min > quant_max) /* (check_quant_min_max) */
        return shimrt_fail(op, "`quant_min` should be less than or equal to `quant_max`.");
    if (quant_min > INT32_MAX || quant_min < INT32_MIN || quant_max > INT32_MAX ||
        quant_max < INT32_MIN)
        return shimrt_fail(op, "quant_min and quant_max must fit in int32");
    if (!shimrt_k_is_floating(self->dtype))
        return shimrt_fail(op,
                           "\"fake_quantize_tensor_cachemask_kernel_type_handling\" not "
                           "implemented for '%s'",
                           shimrt_dtype_torch_name(self->dtype));
    /* Y and the mask: empty_like(self) (its layout) */
    int64_t st[SHIMRT_MAX_DIMS];
    shimrt_k_preserve_strides(self, st);
    AtenTensorHandle out =
        shimrt_tensor_empty(op, self->ndim, self->sizes, st, self->dtype, SHIMRT_DEV_CPU, 0);
    AtenTensorHandle mask =
        shimrt_tensor_empty(op, self->ndim, self->sizes, st, SHIMRT_BOOL, SHIMRT_DEV_CPU, 0);
    if (!out || !mask) goto fail;
    for (int64_t r = 0; per_row && r < nq; r++)
        choose_qparams(*(float *)(void *)elem(rmin, r), *(float *)(void *)elem(rmax, r),
                       (int32_t)quant_min, (int32_t)quant_max, symmetric,
                       (float *)(void *)elem(scale, r), (int32_t *)(void *)elem(zp, r));
    memset(idx, 0, sizeof idx);
    for (int64_t e = 0; e < n; e++) {
        int64_t r = per_row ? idx[ax] : 0;
        float sc = pt ? sf : *(float *)(void *)elem(scale, r);
        int32_t z = pt ? zf : *(int32_t *)(void *)elem(zp, r);
        double v = shimrt_k_load_f64(shimrt_idx_at(self, idx), self->dtype);
        char *o = shimrt_idx_at(out, idx);
        uint8_t *mk = (uint8_t *)shimrt_idx_at(mask, idx);
        shimrt_idx_next(self->ndim, self->sizes, idx);
        /* the quantized value: in double for float64 (scalar_t times a float inv_scale),
         * in float for the others (float16/bfloat16 times float is float) */
        float inv = 1.0f / sc;
        double qf = self->dtype == SHIMRT_FLOAT64 ? (double)z + nearbyint(v * (double)inv)
                                                  : (double)((float)z + nearbyintf((float)v * inv));
        double cl = fmin(fmax(qf, (double)quant_min), (double)quant_max);
        int64_t q = (int64_t)cl;
        shimrt_k_store_f64(o, self->dtype, (double)((float)(q - z) * sc));
        *mk = (double)quant_min <= qf && qf <= (double)quant_max;
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

/* a copy of t (a new tensor; NULL: message set) */
static AtenTensorHandle copy_of(const char *op, AtenTensorHandle t) {
    if (shimrt_k_check_cpu(op, t, "argument")) return NULL;
    AtenTensorHandle c = NULL; /* (t.clone(): its layout when dense) */
    return shimrt_cpu_clone(t, NULL, &c) ? NULL : c;
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

/* runtime/cpu/backward_misc.c: backward ops of c_shim_cpu.h that PyTorch composes from other
 * ops (CompositeExplicitAutograd): masked_scatter_backward and soft_margin_loss_backward.
 * Each runs PyTorch's composition step by step on the runtime's own kernels (masked_select;
 * the engine's neg, mul, exp, add, div and copy), so dtypes, broadcasting, type promotion,
 * the in-place steps' casts and checks, and every intermediate rounding are PyTorch's. */
#include <math.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"
#include "engine.h"

/* masked_scatter_backward: grad_output.masked_select(mask), padded with zeros up to the
 * product of sizes, viewed as sizes (-1 inferred, as view infers it). */
AOTITorchError shimrt_cpu_masked_scatter_backward(AtenTensorHandle grad_output,
                                                  AtenTensorHandle mask, const int64_t *sizes,
                                                  int64_t sizes_len_, AtenTensorHandle *ret0) {
    static const char op[] = "masked_scatter_backward";
    if (sizes_len_ < 0 || sizes_len_ > SHIMRT_MAX_DIMS)
        return shimrt_fail(op, "masked_scatter_backward: %lld sizes (at most %d)",
                           (long long)sizes_len_, SHIMRT_MAX_DIMS);
    AtenTensorHandle sel = NULL;
    if (shimrt_cpu_masked_select(grad_output, mask, &sel)) return AOTI_TORCH_FAILURE;
    /* the product in int64 arithmetic (SymInt's), wrapping as PyTorch's does */
    uint64_t prod = 1;
    for (int64_t i = 0; i < sizes_len_; i++) prod *= (uint64_t)sizes[i];
    int64_t want = (int64_t)prod, k = shimrt_numel(sel), total = want > k ? want : k;
    int64_t shape[SHIMRT_MAX_DIMS];
    AtenTensorHandle r = NULL;
    if (!shimrt_k_infer_size(op, sizes, sizes_len_, total, shape))
        r = shimrt_k_new(op, sizes_len_, shape, sel->dtype);
    if (r && total > 0) {
        size_t es = shimrt_dtype_size(sel->dtype);
        char *d = shimrt_data(r);
        if (k > 0) memcpy(d, shimrt_data(sel), (size_t)k * es);
        memset(d + (size_t)k * es, 0, (size_t)(total - k) * es);
    }
    shimrt_tensor_free(sel);
    return shimrt_k_give(r, ret0);
}

/* acc = acc op (cast to acc's dtype) of t (a new tensor, freed): an in-place step of
 * PyTorch's composition. acc keeps its shape: t's (the broadcast) must equal it. */
static AOTITorchError inplace(const char *op, AtenTensorHandle acc, AtenTensorHandle t) {
    if (!t) return AOTI_TORCH_FAILURE;
    AOTITorchError err = shimrt_k_inplace_check(op, acc, t);
    if (!err) err = shimrt_k_copy(op, acc, t);
    shimrt_tensor_free(t);
    return err;
}

/* soft_margin_loss_backward (PyTorch's soft_margin_loss_backward_out):
 *   z = exp(-target * self); grad_input = target * z  (mul_out into self's dtype)
 *   grad_input *= -norm; z += 1; grad_input /= z; grad_input *= grad_output
 * with norm = 1 / self.numel() for reduction mean (1), else 1. */
AOTITorchError shimrt_cpu_soft_margin_loss_backward(AtenTensorHandle grad_output,
                                                    AtenTensorHandle self, AtenTensorHandle target,
                                                    int64_t reduction, AtenTensorHandle *ret0) {
    static const char op[] = "soft_margin_loss_backward";
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, target, "target") ||
        shimrt_k_check_cpu(op, grad_output, "grad_output") ||
        (!sh_dtype_wide(self->dtype) && shimrt_k_check_dtype(op, self, "self")))
        return AOTI_TORCH_FAILURE; /* uint16/32/64, complex: the steps refuse as PyTorch's */
    double norm = reduction == 1 ? 1.0 / (double)shimrt_numel(self) : 1.0;
    AtenTensorHandle nt = NULL, p = NULL, z = NULL, a = NULL, gi = NULL, t = NULL;
    AOTITorchError err = shimrt_cpu_neg(target, &nt);
    if (!err) err = shimrt_cpu_mul_tensor(nt, self, &p);
    if (!err) err = shimrt_cpu_exp(p, &z);
    /* PyTorch's at::exp of float32 / float64 is MKL VML's vsExp / vdExp (not open, not
     * correctly rounded); the correctly rounded exp agrees with it on about 99% of float
     * inputs (1.1% differ by 1 ulp, measured on 200,000 random ones; SLEEF u10, the engine's
     * exp, differs on 9.9%): that one here, over z's dense storage (p's layout) */
    if (!err && (z->dtype == SHIMRT_FLOAT32 || z->dtype == SHIMRT_FLOAT64) &&
        z->dtype == p->dtype && z->ndim == p->ndim &&
        !memcmp(z->strides, p->strides, (size_t)z->ndim * sizeof *z->strides)) {
        int64_t n = shimrt_numel(z);
        if (z->dtype == SHIMRT_FLOAT32) {
            const float *pv = shimrt_data(p);
            float *zv = shimrt_data(z);
            for (int64_t i = 0; i < n; i++) zv[i] = (float)exp((double)pv[i]);
        } else {
            const double *pv = shimrt_data(p);
            double *zv = shimrt_data(z);
            for (int64_t i = 0; i < n; i++) zv[i] = exp(pv[i]);
        }
    }
    if (!err) err = shimrt_cpu_mul_tensor(target, z, &a);
    if (!err && !shimrt_k_can_cast(a->dtype, self->dtype))
        err = shimrt_fail(op, "result type %s can't be cast to the desired output type %s",
                          shimrt_dtype_torch_name(a->dtype), shimrt_dtype_torch_name(self->dtype));
    if (!err) { /* the out tensor of mul_out: the product's shape and layout, self's dtype */
        gi = shimrt_tensor_empty(op, a->ndim, a->sizes, a->strides, self->dtype, SHIMRT_DEV_CPU, 0);
        err = gi ? shimrt_k_copy(op, gi, a) : AOTI_TORCH_FAILURE;
    }
    /* (PyTorch's mul_(-norm) on a bfloat16 / float16 grad_input takes the scalar rounded to the
     * tensor's dtype: bit-identical for bfloat16, float32 and float64 with it) */
    double s = -norm;
    if (!err && self->dtype == SHIMRT_BFLOAT16)
        s = shimrt_bf16_to_float(shimrt_float_to_bf16((float)s));
    else if (!err && self->dtype == SHIMRT_FLOAT16)
        s = shimrt_half_to_float(shimrt_float_to_half((float)s));
    if (!err) err = shimrt_cpu_mul_scalar(gi, shimrt_scalar_double(s), &t) || inplace(op, gi, t);
    shimrt_tensor_free(a);
    a = NULL;
    if (!err) err = shimrt_cpu_add_scalar(z, shimrt_scalar_int(1), shimrt_scalar_int(1), &a);
    /* in place as PyTorch's div_ and mul_ (complex64 rounds by it: pointwise.c) */
    if (!err) err = sh_div_inplace(op, gi, a);
    if (!err) err = sh_mul_inplace(op, gi, grad_output);
    shimrt_tensor_free(nt);
    shimrt_tensor_free(p);
    shimrt_tensor_free(z);
    shimrt_tensor_free(a);
    if (err) {
        shimrt_tensor_free(gi);
        return AOTI_TORCH_FAILURE;
    }
    *ret0 = gi;
    return AOTI_TORCH_SUCCESS;
}

/* runtime/cpu/pool.c: 2-d pooling of c_shim_cpu.h for AOTInductor CPU graphs:
 * max_pool2d_with_indices, avg_pool2d, _adaptive_avg_pool2d.
 *
 * Direct loops over the planes (N x C) of a dense copy of the input, planes in parallel on
 * the runtime's pool. oneDNN's pooling is not used: its max pooling keeps no PyTorch-style
 * indices (the flat h * W + w position within the input plane), and these loops are memory
 * bound either way. PyTorch's rules: output sizes (ceil_mode drops a last window that would
 * start in the right padding), max takes NaN and keeps the first maximum, avg divides by
 * divisor_override, else by the window clipped to the padded input (count_include_pad) or to
 * the input; adaptive windows are [floor(o * in / out), ceil((o + 1) * in / out)). Sums are in
 * double (int64 for integers, divided with truncation). A channels-last input gives a
 * channels-last result. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"
#include "shimrt/device.h"

typedef struct {
    const char *in;
    char *out;
    int64_t *idx;
    int32_t dt;
    size_t es;
    int64_t H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw;
    bool include_pad, adaptive;
    int64_t divisor; /* 0: none */
    int kind;        /* 0 max, 1 avg */
} pool_ctx;

static void pool_planes(int64_t b, int64_t e, void *vctx) {
    const pool_ctx *c = vctx;
    bool flt = shimrt_k_is_floating(c->dt);
    for (int64_t p = b; p < e; p++) {
        const char *in = c->in + (size_t)(p * c->H * c->W) * c->es;
        for (int64_t oh = 0; oh < c->OH; oh++)
            for (int64_t ow = 0; ow < c->OW; ow++) {
                int64_t pos = (p * c->OH + oh) * c->OW + ow;
                char *dst = c->out + (size_t)pos * c->es;
                int64_t h0, h1, w0, w1;
                if (c->adaptive) {
                    h0 = oh * c->H / c->OH;
                    h1 = ((oh + 1) * c->H + c->OH - 1) / c->OH;
                    w0 = ow * c->W / c->OW;
                    w1 = ((ow + 1) * c->W + c->OW - 1) / c->OW;
                } else {
                    h0 = oh * c->sh - c->ph;
                    w0 = ow * c->sw - c->pw;
                    h1 = h0 + (c->kh - 1) * c->dh + 1;
                    w1 = w0 + (c->kw - 1) * c->dw + 1;
                }
                if (c->kind == 0) {
                    while (h0 < 0) h0 += c->dh;
                    while (w0 < 0) w0 += c->dw;
                    if (h1 > c->H) h1 = c->H;
                    if (w1 > c->W) w1 = c->W;
                    int64_t best = h0 * c->W + w0;
                    long double mx = -INFINITY;
                    bool nan = false;
                    for (int64_t y = h0; y < h1 && !nan; y += c->dh)
                        for (int64_t x = w0; x < w1; x += c->dw) {
                            const char *q = in + (size_t)(y * c->W + x) * c->es;
                            long double v = flt ? (long double)shimrt_k_load_f64(q, c->dt)
                                                : (long double)shimrt_k_load_i64(q, c->dt);
                            if (v > mx || isnan(v)) {
                                mx = v;
                                best = y * c->W + x;
                                if (isnan(v)) {
                                    nan = true;
                                    break;
                                }
                            }
                        }
                    if (best >= 0 && best < c->H * c->W && h0 < h1 && w0 < w1)
                        memcpy(dst, in + (size_t)best * c->es, c->es);
                    else
                        shimrt_k_store_f64(dst, c->dt, -INFINITY);
                    c->idx[pos] = best;
                    continue;
                }
                /* average */
                int64_t size;
                if (c->adaptive) {
                    size = (h1 - h0) * (w1 - w0);
                } else {
                    int64_t he = h0 + c->kh < c->H + c->ph ? h0 + c->kh : c->H + c->ph;
                    int64_t we = w0 + c->kw < c->W + c->pw ? w0 + c->kw : c->W + c->pw;
                    size = (he - h0) * (we - w0);
                    h1 = he;
                    w1 = we;
                    if (h0 < 0) h0 = 0;
                    if (w0 < 0) w0 = 0;
                    if (h1 > c->H) h1 = c->H;
                    if (w1 > c->W) w1 = c->W;
                    if (!c->include_pad) size = (h1 - h0) * (w1 - w0);
                }
                if (c->divisor) size = c->divisor;
                double fs = 0;
                int64_t is = 0;
                for (int64_t y = h0; y < h1; y++)
                    for (int64_t x = w0; x < w1; x++) {
                        const char *q = in + (size_t)(y * c->W + x) * c->es;
                        if (flt)
                            fs += shimrt_k_load_f64(q, c->dt);
                        else
                            is += shimrt_k_load_i64(q, c->dt);
                    }
                if (flt)
                    shimrt_k_store_f64(dst, c->dt, fs / (double)size);
                else
                    shimrt_k_store_i64(dst, c->dt, size ? is / size : 0);
            }
    }
}

/* A 2- or 1-value list: (a[0], a[0]) or (a[0], a[1]); def when empty (stride). */
static AOTITorchError pair(const char *op, const char *what, const int64_t *v, int64_t n,
                           const int64_t *def, int64_t *a, int64_t *b) {
    if (n == 0 && def) {
        *a = def[0];
        *b = def[1];
        return AOTI_TORCH_SUCCESS;
    }
    if (n != 1 && n != 2)
        return shimrt_fail(op, "%s: %s must either be a single int, or a tuple of two ints", op,
                           what);
    *a = v[0];
    *b = n == 2 ? v[1] : v[0];
    return AOTI_TORCH_SUCCESS;
}

/* PyTorch's pooling_output_shape. */
static int64_t out_size(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil) {
    int64_t num = in + 2 * pad - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
    int64_t o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
    if (ceil && (o - 1) * s >= in + pad) o--;
    return o;
}

/* The input as planes; dense copy (c) of self, owned when different. */
static AOTITorchError planes(const char *op, AtenTensorHandle self, AtenTensorHandle *c) {
    if (shimrt_is_contiguous(self)) {
        *c = self;
        return AOTI_TORCH_SUCCESS;
    }
    *c = shimrt_k_new(op, self->ndim, self->sizes, self->dtype);
    if (!*c) return AOTI_TORCH_FAILURE;
    if (shimrt_k_copy(op, *c, self)) {
        shimrt_tensor_free(*c);
        return AOTI_TORCH_FAILURE;
    }
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError input_check(const char *op, AtenTensorHandle self) {
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    bool ok = self->ndim == 3 || self->ndim == 4;
    for (int64_t i = self->ndim == 4 ? 1 : 0; ok && i < self->ndim; i++) ok = self->sizes[i] > 0;
    if (!ok)
        return shimrt_fail(op,
                           "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           "size for input, but got a %lld-d tensor",
                           (long long)self->ndim);
    return AOTI_TORCH_SUCCESS;
}

/* Runs c over self's planes into new results of shape [..., OH, OW] (an index tensor too
 * for max). */
static AOTITorchError run(const char *op, AtenTensorHandle self, pool_ctx *c,
                          AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    int64_t nd = self->ndim, shape[4], planes_n = 1;
    for (int64_t i = 0; i < nd - 2; i++) {
        shape[i] = self->sizes[i];
        planes_n *= self->sizes[i];
    }
    shape[nd - 2] = c->OH;
    shape[nd - 1] = c->OW;
    c->H = self->sizes[nd - 2];
    c->W = self->sizes[nd - 1];
    AtenTensorHandle in = NULL, out = shimrt_k_new(op, nd, shape, self->dtype);
    AtenTensorHandle ix = out && ret1 ? shimrt_k_new(op, nd, shape, SHIMRT_INT64) : NULL;
    if (!out || (ret1 && !ix) || planes(op, self, &in)) {
        shimrt_tensor_free(out);
        shimrt_tensor_free(ix);
        return AOTI_TORCH_FAILURE;
    }
    c->in = shimrt_data(in);
    c->out = shimrt_data(out);
    c->idx = ix ? shimrt_data(ix) : NULL;
    c->dt = self->dtype;
    c->es = shimrt_dtype_size(self->dtype);
    if (planes_n * c->OH * c->OW > 0)
        torch_parallel_for(0, planes_n, 1 + 16384 / (c->OH * c->OW + 1), pool_planes, c);
    if (in != self) shimrt_tensor_free(in);
    AOTITorchError err = AOTI_TORCH_SUCCESS;
    if (nd == 4 && shimrt_k_strides_like_cl(self) && !shimrt_is_contiguous(self)) {
        /* channels-last in, channels-last out */
        AtenTensorHandle *res[2] = {&out, &ix};
        for (int r = 0; r < 2 && !err; r++) {
            if (!*res[r]) continue;
            int64_t st[4];
            shimrt_k_channels_last_strides(4, shape, st);
            AtenTensorHandle cl =
                shimrt_tensor_empty(op, 4, shape, st, (*res[r])->dtype, SHIMRT_DEV_CPU, 0);
            err = cl ? shimrt_k_copy(op, cl, *res[r]) : AOTI_TORCH_FAILURE;
            shimrt_tensor_free(*res[r]);
            *res[r] = cl;
            if (err) break;
        }
    }
    if (err) {
        shimrt_tensor_free(out);
        shimrt_tensor_free(ix);
        return AOTI_TORCH_FAILURE;
    }
    *ret0 = out;
    if (ret1) *ret1 = ix;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_max_pool2d_with_indices(AtenTensorHandle self, const int64_t *kernel_size,
                                                  int64_t kernel_size_len_, const int64_t *stride,
                                                  int64_t stride_len_, const int64_t *padding,
                                                  int64_t padding_len_, const int64_t *dilation,
                                                  int64_t dilation_len_, int32_t ceil_mode,
                                                  AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    static const char op[] = "max_pool2d_with_indices";
    pool_ctx c = {0};
    if (pair(op, "kernel_size", kernel_size, kernel_size_len_, NULL, &c.kh, &c.kw) ||
        pair(op, "stride", stride, stride_len_, (int64_t[]){c.kh, c.kw}, &c.sh, &c.sw) ||
        pair(op, "padding", padding, padding_len_, NULL, &c.ph, &c.pw) ||
        pair(op, "dilation", dilation, dilation_len_, NULL, &c.dh, &c.dw))
        return AOTI_TORCH_FAILURE;
    if (c.kh <= 0 || c.kw <= 0)
        return shimrt_fail(op,
                           "kernel size should be greater than zero, but got kH: %lld kW: "
                           "%lld",
                           (long long)c.kh, (long long)c.kw);
    if (c.sh <= 0 || c.sw <= 0)
        return shimrt_fail(op, "stride should be greater than zero, but got dH: %lld dW: %lld",
                           (long long)c.sh, (long long)c.sw);
    if (c.dh <= 0 || c.dw <= 0)
        return shimrt_fail(op,
                           "dilation should be greater than zero, but got dilationH: %lld "
                           "dilationW: %lld",
                           (long long)c.dh, (long long)c.dw);
    if (c.ph < 0 || c.pw < 0 || c.ph > c.kh / 2 || c.pw > c.kw / 2)
        return shimrt_fail(op,
                           "pad should be at most half of effective kernel size, but got "
                           "pad=%lld, kernel_size=%lld",
                           (long long)c.ph, (long long)c.kh);
    if (input_check(op, self)) return AOTI_TORCH_FAILURE;
    if (self->dtype == SHIMRT_BOOL)
        return shimrt_fail(op, "\"max_pool2d\" not implemented for 'Bool'");
    int64_t nd = self->ndim;
    c.OH = out_size(self->sizes[nd - 2], c.kh, c.ph, c.sh, c.dh, ceil_mode != 0);
    c.OW = out_size(self->sizes[nd - 1], c.kw, c.pw, c.sw, c.dw, ceil_mode != 0);
    if (c.OH < 1 || c.OW < 1)
        return shimrt_fail(op,
                           "Given input size: (%lldx%lldx%lld). Calculated output size: "
                           "(%lldx%lldx%lld). Output size is too small",
                           (long long)self->sizes[nd - 3], (long long)self->sizes[nd - 2],
                           (long long)self->sizes[nd - 1], (long long)self->sizes[nd - 3],
                           (long long)c.OH, (long long)c.OW);
    c.kind = 0;
    return run(op, self, &c, ret0, ret1);
}

AOTITorchError shimrt_cpu_avg_pool2d(AtenTensorHandle self, const int64_t *kernel_size,
                                     int64_t kernel_size_len_, const int64_t *stride,
                                     int64_t stride_len_, const int64_t *padding,
                                     int64_t padding_len_, int32_t ceil_mode,
                                     int32_t count_include_pad, int64_t *divisor_override,
                                     AtenTensorHandle *ret0) {
    static const char op[] = "avg_pool2d";
    pool_ctx c = {0};
    if (pair(op, "kernel_size", kernel_size, kernel_size_len_, NULL, &c.kh, &c.kw) ||
        pair(op, "stride", stride, stride_len_, (int64_t[]){c.kh, c.kw}, &c.sh, &c.sw) ||
        pair(op, "padding", padding, padding_len_, NULL, &c.ph, &c.pw))
        return AOTI_TORCH_FAILURE;
    c.dh = c.dw = 1;
    if (c.kh <= 0 || c.kw <= 0)
        return shimrt_fail(op,
                           "kernel size should be greater than zero, but got kH: %lld kW: "
                           "%lld",
                           (long long)c.kh, (long long)c.kw);
    if (c.sh <= 0 || c.sw <= 0)
        return shimrt_fail(op, "stride should be greater than zero, but got dH: %lld dW: %lld",
                           (long long)c.sh, (long long)c.sw);
    if (c.ph < 0 || c.pw < 0 || c.ph > c.kh / 2 || c.pw > c.kw / 2)
        return shimrt_fail(op,
                           "pad should be at most half of effective kernel size, but got "
                           "pad=%lld, kernel_size=%lld",
                           (long long)c.ph, (long long)c.kh);
    if (divisor_override && *divisor_override == 0)
        return shimrt_fail(op, "divisor must be not zero");
    if (input_check(op, self)) return AOTI_TORCH_FAILURE;
    if (self->dtype == SHIMRT_BOOL)
        return shimrt_fail(op, "\"avg_pool2d_out_frame\" not implemented for 'Bool'");
    int64_t nd = self->ndim;
    c.OH = out_size(self->sizes[nd - 2], c.kh, c.ph, c.sh, 1, ceil_mode != 0);
    c.OW = out_size(self->sizes[nd - 1], c.kw, c.pw, c.sw, 1, ceil_mode != 0);
    if (c.OH < 1 || c.OW < 1)
        return shimrt_fail(op,
                           "Given input size: (%lldx%lldx%lld). Calculated output size: "
                           "(%lldx%lldx%lld). Output size is too small",
                           (long long)self->sizes[nd - 3], (long long)self->sizes[nd - 2],
                           (long long)self->sizes[nd - 1], (long long)self->sizes[nd - 3],
                           (long long)c.OH, (long long)c.OW);
    c.kind = 1;
    c.include_pad = count_include_pad != 0;
    c.divisor = divisor_override ? *divisor_override : 0;
    return run(op, self, &c, ret0, NULL);
}

AOTITorchError shimrt_cpu__adaptive_avg_pool2d(AtenTensorHandle self, const int64_t *output_size,
                                               int64_t output_size_len_, AtenTensorHandle *ret0) {
    static const char op[] = "adaptive_avg_pool2d";
    if (output_size_len_ != 2) return shimrt_fail(op, "adaptive_avg_pool2d: output_size must be 2");
    if (output_size[0] < 0 || output_size[1] < 0)
        return shimrt_fail(op,
                           "adaptive_avg_pool2d: elements of output_size must be greater "
                           "than or equal to 0 but received {%lld, %lld}",
                           (long long)output_size[0], (long long)output_size[1]);
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    bool ok = self->ndim == 3 || self->ndim == 4;
    for (int64_t i = self->ndim - 2; ok && i < self->ndim; i++) ok = self->sizes[i] > 0;
    if (!ok)
        return shimrt_fail(op,
                           "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got a "
                           "%lld-d tensor with a zero non-batch dimension",
                           (long long)self->ndim);
    int64_t n; /* an empty result is made for any dtype */
    bool big = __builtin_mul_overflow(output_size[0], output_size[1], &n);
    for (int64_t i = 0; i < self->ndim - 2; i++)
        big |= __builtin_mul_overflow(n, self->sizes[i], &n);
    if (big) return shimrt_fail(op, "adaptive_avg_pool2d: the output's size does not fit in int64");
    if (n > 0 && !shimrt_k_is_floating(self->dtype))
        return shimrt_fail(op, "\"adaptive_avg_pool2d\" not implemented for '%s'",
                           shimrt_dtype_torch_name(self->dtype));
    pool_ctx c = {0};
    c.OH = output_size[0];
    c.OW = output_size[1];
    c.kind = 1;
    c.adaptive = true;
    return run(op, self, &c, ret0, NULL);
}

AOTITorchError shimrt_cpu_adaptive_max_pool2d(AtenTensorHandle self, const int64_t *output_size,
                                              int64_t output_size_len_, AtenTensorHandle *ret0,
                                              AtenTensorHandle *ret1) {
    static const char op[] = "adaptive_max_pool2d";
    if (output_size_len_ != 2)
        return shimrt_fail(op,
                           "adaptive_max_pool2d(): internal error: output_size.size() must be 2");
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    bool ok = self->ndim == 3 || self->ndim == 4;
    for (int64_t i = 1; ok && i < self->ndim; i++) ok = self->sizes[i] > 0;
    if (!ok)
        return shimrt_fail(op,
                           "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got a "
                           "%lld-d tensor with a zero dimension",
                           (long long)self->ndim);
    if (output_size[0] < 0 || output_size[1] < 0)
        return shimrt_fail(op, "adaptive_max_pool2d(): elements of output_size must be greater "
                               "than or equal to 0");
    if (!shimrt_k_is_floating(self->dtype))
        return shimrt_fail(op, "\"adaptive_max_pool2d\" not implemented for '%s'",
                           shimrt_dtype_torch_name(self->dtype));
    pool_ctx c = {0};
    c.OH = output_size[0];
    c.OW = output_size[1];
    c.dh = c.dw = 1;
    c.kind = 0;
    c.adaptive = true;
    return run(op, self, &c, ret0, ret1);
}

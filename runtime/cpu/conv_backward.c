/* runtime/cpu/conv_backward.c: convolution_backward of c_shim_cpu.h (1-d, 2-d, 3-d; groups,
 * stride, padding, dilation; transposed with output_padding), the three gradients that
 * output_mask asks for (the others undefined, NULL handles).
 *
 * - grad_input is itself a convolution of grad_output with the same weight: transposed for a
 *   forward convolution (output_padding restoring the input's size), plain for a transposed
 *   one. It runs on this runtime's convolution (conv.c: oneDNN for float32 and the half types,
 *   as PyTorch's CPU backward does; a double loop for float64).
 * - grad_weight sums grad_output times the input over batch and positions, in double (one
 *   rounding at the end; PyTorch's oneDNN / slow kernels accumulate in float, so values agree
 *   within float rounding, not bit for bit), weight entries in parallel.
 * - grad_bias sums grad_output over batch and positions, in double.
 * Checks are convolution's (conv_check) plus grad_output's shape and dtype; integer dtypes are
 * refused as PyTorch's slow kernels refuse them (int64 runs in its dilated one); an empty input
 * gives zeros (grad_bias of bias_sizes' shape, as PyTorch). Layout as PyTorch 2.15: a 2-d problem whose
 * input or weight is channels-last gives channels-last grad_input and grad_weight. */
#include <stdlib.h>
#include <string.h>

#include "aoti_ops.h"
#include "conv_internal.h"
#include "cpu_kernels.h"
#include "shimrt/device.h"

typedef struct {
    const conv_p *q;
    const double *p, *r;      /* p: the tensor read at the weight's own positions; r: shifted */
    int64_t pc, rc;           /* their channel counts */
    const int64_t *psz, *rsz; /* spatial sizes (3 slots) */
    int64_t na, nb;           /* weight dims 0 and 1 (per group for dim 1) */
    double *gw;               /* [na, nb, k...] */
} gw_ctx;

/* gw[a, b, k] = sum over n and p positions x of P[n, a, x] * R[n, ch(a, b), x * s - pad + k * d]
 * (forward convolution: P = grad_output, R = input; transposed: P = input, R = grad_output). */
static void gw_rows(int64_t b0, int64_t e, void *vctx) {
    const gw_ctx *c = vctx;
    const conv_p *q = c->q;
    int64_t ksz = q->k[0] * q->k[1] * q->k[2];
    int64_t ps = c->psz[0] * c->psz[1] * c->psz[2], rs = c->rsz[0] * c->rsz[1] * c->rsz[2];
    int64_t per_g = c->na / q->g; /* dim-0 entries per group */
    for (int64_t a = b0; a < e; a++) {
        int64_t g = a / per_g;
        for (int64_t b = 0; b < c->nb; b++) {
            int64_t rch = g * c->nb + b;
            double *out = c->gw + (a * c->nb + b) * ksz;
            for (int64_t k0 = 0; k0 < q->k[0]; k0++)
                for (int64_t k1 = 0; k1 < q->k[1]; k1++)
                    for (int64_t k2 = 0; k2 < q->k[2]; k2++) {
                        double acc = 0;
                        for (int64_t n = 0; n < q->n; n++) {
                            const double *pp = c->p + (n * c->pc + a) * ps;
                            const double *rr = c->r + (n * c->rc + rch) * rs;
                            for (int64_t x0 = 0; x0 < c->psz[0]; x0++) {
                                int64_t y0 = x0 * q->s[0] - q->p[0] + k0 * q->d[0];
                                if (y0 < 0 || y0 >= c->rsz[0]) continue;
                                for (int64_t x1 = 0; x1 < c->psz[1]; x1++) {
                                    int64_t y1 = x1 * q->s[1] - q->p[1] + k1 * q->d[1];
                                    if (y1 < 0 || y1 >= c->rsz[1]) continue;
                                    const double *pr = pp + (x0 * c->psz[1] + x1) * c->psz[2];
                                    const double *rr2 = rr + (y0 * c->rsz[1] + y1) * c->rsz[2];
                                    for (int64_t x2 = 0; x2 < c->psz[2]; x2++) {
                                        int64_t y2 = x2 * q->s[2] - q->p[2] + k2 * q->d[2];
                                        if (y2 >= 0 && y2 < c->rsz[2]) acc += pr[x2] * rr2[y2];
                                    }
                                }
                            }
                        }
                        out[(k0 * q->k[1] + k1) * q->k[2] + k2] = acc;
                    }
        }
    }
}

/* A contiguous float64 copy of t. */
static AtenTensorHandle as_f64(const char *op, AtenTensorHandle t) {
    AtenTensorHandle r = shimrt_k_new(op, t->ndim, t->sizes, SHIMRT_FLOAT64);
    if (r && shimrt_k_copy(op, r, t)) {
        shimrt_tensor_free(r);
        return NULL;
    }
    return r;
}

/* A new tensor of sizes (channels-last when cl) with the values of src (freed). */
static AtenTensorHandle relayout(const char *op, AtenTensorHandle src, int32_t dt, bool cl) {
    if (!src) return NULL;
    int64_t st[SHIMRT_MAX_DIMS];
    if (cl)
        shimrt_k_channels_last_strides(src->ndim, src->sizes, st);
    else
        shimrt_contiguous_strides(src->ndim, src->sizes, st);
    AtenTensorHandle r = shimrt_tensor_empty(op, src->ndim, src->sizes, st, dt, SHIMRT_DEV_CPU, 0);
    if (r && shimrt_k_copy(op, r, src)) {
        shimrt_tensor_free(r);
        r = NULL;
    }
    shimrt_tensor_free(src);
    return r;
}

static AOTITorchError grad_input(const char *op, const conv_p *q, AtenTensorHandle go,
                                 AtenTensorHandle input, AtenTensorHandle weight,
                                 const int64_t *stride, int64_t stride_len, const int64_t *padding,
                                 int64_t padding_len, const int64_t *dilation, int64_t dilation_len,
                                 bool cl, AtenTensorHandle *ret) {
    int64_t adj[3] = {0, 0, 0};
    for (int i = 0; i < q->nsp; i++) {
        int j = 3 - q->nsp + i;
        adj[i] = q->in[j] - ((q->out[j] - 1) * q->s[j] - 2 * q->p[j] + (q->k[j] - 1) * q->d[j] + 1);
    }
    AtenTensorHandle r = NULL;
    AOTITorchError err;
    if (!q->transposed) {
        err = shimrt_cpu_convolution(go, weight, NULL, stride, stride_len, padding, padding_len,
                                     dilation, dilation_len, 1, adj, q->nsp, q->g, &r);
    } else {
        err = shimrt_cpu_convolution(go, weight, NULL, stride, stride_len, padding, padding_len,
                                     dilation, dilation_len, 0, adj, q->nsp, q->g, &r);
    }
    if (err) return AOTI_TORCH_FAILURE;
    /* (transposed, output_padding >= stride: the plain convolution reaches past the input's
     * size; the input's part is its leading corner) */
    if (r->ndim == input->ndim && memcmp(r->sizes, input->sizes, sizeof(int64_t) * r->ndim)) {
        AtenTensorHandle v =
            shimrt_k_alias(op, r, input->ndim, input->sizes, r->strides, r->storage_offset);
        AtenTensorHandle c = v ? shimrt_k_new(op, input->ndim, input->sizes, r->dtype) : NULL;
        if (c && shimrt_k_copy(op, c, v)) {
            shimrt_tensor_free(c);
            c = NULL;
        }
        shimrt_tensor_free(v);
        shimrt_tensor_free(r);
        if (!c) return AOTI_TORCH_FAILURE;
        r = c;
    }
    *ret = relayout(op, r, input->dtype, cl);
    return *ret ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
}

static AOTITorchError grad_weight(const char *op, const conv_p *q, AtenTensorHandle go,
                                  AtenTensorHandle input, AtenTensorHandle weight, bool cl,
                                  AtenTensorHandle *ret) {
    AtenTensorHandle gw = shimrt_k_new(op, weight->ndim, weight->sizes, SHIMRT_FLOAT64);
    AtenTensorHandle x = gw ? as_f64(op, input) : NULL, g = x ? as_f64(op, go) : NULL;
    if (!g) {
        shimrt_tensor_free(gw);
        shimrt_tensor_free(x);
        return AOTI_TORCH_FAILURE;
    }
    gw_ctx c = {.q = q, .gw = shimrt_data(gw)};
    c.na = weight->sizes[0];
    c.nb = weight->sizes[1];
    /* weight [oc, c/g, k]: P = grad_output, R = input; transposed [c, oc/g, k]: the reverse */
    bool t = q->transposed;
    c.p = shimrt_data(t ? x : g);
    c.r = shimrt_data(t ? g : x);
    c.pc = t ? q->c : q->oc;
    c.rc = t ? q->oc : q->c;
    c.psz = t ? q->in : q->out;
    c.rsz = t ? q->out : q->in;
    int64_t ksz = q->k[0] * q->k[1] * q->k[2];
    if (shimrt_numel(gw) > 0) {
        if (q->n == 0 || c.na % q->g != 0)
            memset(c.gw, 0, (size_t)shimrt_numel(gw) * sizeof(double));
        else
            torch_parallel_for(
                0, c.na, 1 + 65536 / (c.nb * ksz * q->n * (q->out[0] * q->out[1] * q->out[2]) + 1),
                gw_rows, &c);
    }
    shimrt_tensor_free(x);
    shimrt_tensor_free(g);
    *ret = relayout(op, gw, weight->dtype, cl);
    return *ret ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
}

static AOTITorchError grad_bias(const char *op, const conv_p *q, AtenTensorHandle go,
                                AtenTensorHandle *ret) {
    AtenTensorHandle g = as_f64(op, go);
    AtenTensorHandle b = g ? shimrt_k_new(op, 1, &q->oc, SHIMRT_FLOAT64) : NULL;
    if (!b) {
        shimrt_tensor_free(g);
        return AOTI_TORCH_FAILURE;
    }
    int64_t os = q->out[0] * q->out[1] * q->out[2];
    const double *gp = shimrt_data(g);
    double *bp = shimrt_data(b);
    for (int64_t o = 0; o < q->oc; o++) {
        double acc = 0;
        for (int64_t n = 0; n < q->n; n++)
            for (int64_t i = 0; i < os; i++) acc += gp[(n * q->oc + o) * os + i];
        bp[o] = acc;
    }
    shimrt_tensor_free(g);
    *ret = relayout(op, b, go->dtype, false);
    return *ret ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
}

AOTITorchError shimrt_cpu_convolution_backward(
    AtenTensorHandle grad_output, AtenTensorHandle input, AtenTensorHandle weight,
    const int64_t *bias_sizes, int64_t bias_sizes_len_, const int64_t *stride, int64_t stride_len_,
    const int64_t *padding, int64_t padding_len_, const int64_t *dilation, int64_t dilation_len_,
    int32_t transposed, const int64_t *output_padding, int64_t output_padding_len_, int64_t groups,
    const int32_t *output_mask, int64_t output_mask_len_, AtenTensorHandle *ret0,
    AtenTensorHandle *ret1, AtenTensorHandle *ret2) {
    static const char op[] = "convolution_backward";
    /* (bias_sizes: grad_bias's shape for an empty input only; else from grad_output) */
    if (output_mask_len_ != 3)
        return shimrt_fail(op,
                           "Tried to convert a List with %lld elements to a fixed-size array of "
                           "size 3",
                           (long long)output_mask_len_);
    conv_p q;
    /* an input without channels passes as an empty batch (PyTorch's backward takes it) */
    bool no_c = input->ndim >= 2 && input->sizes[1] == 0 && input->sizes[0] > 0;
    AtenTensorHandle in0 = input;
    if (no_c) {
        int64_t sz[SHIMRT_MAX_DIMS];
        memcpy(sz, input->sizes, sizeof(int64_t) * input->ndim);
        sz[0] = 0;
        in0 = shimrt_k_alias(op, input, input->ndim, sz, input->strides, input->storage_offset);
        if (!in0) return AOTI_TORCH_FAILURE;
    }
    AOTITorchError bad = shimrt_k_check_cpu(op, grad_output, "grad_output") ||
                         shimrt_k_conv_check(op, in0, weight, NULL, stride, stride_len_, padding,
                                             padding_len_, dilation, dilation_len_, transposed,
                                             output_padding, output_padding_len_, groups, &q);
    if (no_c) {
        shimrt_tensor_free(in0);
        q.n = input->sizes[0];
    }
    if (bad) return AOTI_TORCH_FAILURE;
    int64_t nd = input->ndim, osz[5];
    osz[0] = q.n;
    osz[1] = q.oc;
    for (int i = 0; i < q.nsp; i++) osz[2 + i] = q.out[3 - q.nsp + i];
    bool empty = shimrt_numel(input) == 0;
    bool same = grad_output->ndim == nd; /* (not checked for an empty input: zeros anyway) */
    for (int64_t i = 0; same && i < nd && !empty; i++) same = grad_output->sizes[i] == osz[i];
    char b1[128], b2[128];
    if (!same)
        return shimrt_fail(
            op, "Expected grad_output of size %s (the convolution's output), but got %s",
            shimrt_k_fmt_shape(b1, sizeof b1, nd, osz),
            shimrt_k_fmt_shape(b2, sizeof b2, grad_output->ndim, grad_output->sizes));
    int32_t dt = input->dtype;
    if (grad_output->dtype != dt)
        return shimrt_fail(op, "Expected grad_output of dtype %s (input's), but got %s",
                           shimrt_dtype_torch_name(dt),
                           shimrt_dtype_torch_name(grad_output->dtype));
    if (empty && output_mask[2] && !bias_sizes) /* (PyTorch 2.15 aborts: bad_optional_access) */
        return shimrt_fail(op, "%s: an empty input needs bias_sizes for grad_bias", op);
    /* PyTorch's slow kernels: integers only in the dilated one (int64), nothing to compute
     * for an empty input */
    bool dilated = q.d[0] > 1 || q.d[1] > 1 || q.d[2] > 1;
    if (!empty && !shimrt_k_is_floating(dt) && !(dt == SHIMRT_INT64 && dilated && !q.transposed)) {
        const char *k = q.transposed ? (q.nsp == 3 ? "slow_conv_transpose3d_backward_out_cpu"
                                                   : "slow_conv_transpose2d_backward_out_cpu")
                        : dilated    ? "slow_conv_dilated<>"
                        : q.nsp == 3 ? "slow_conv3d_cpu_grad_input"
                                     : "slow_conv2d_cpu_grad_input";
        return shimrt_fail(op, "\"%s\" not implemented for '%s'", k, shimrt_dtype_torch_name(dt));
    }
    if (empty) { /* zeros: input's, weight's and bias_sizes' shapes */
        AtenTensorHandle r[3] = {NULL, NULL, NULL};
        const struct AtenTensorOpaque *like[2] = {input, weight};
        bool ok = true;
        for (int i = 0; i < 3 && ok; i++) {
            if (!output_mask[i]) continue;
            r[i] = i < 2 ? shimrt_k_new(op, like[i]->ndim, like[i]->sizes, dt)
                         : shimrt_k_new(op, bias_sizes_len_, bias_sizes, dt);
            if (r[i]) shimrt_k_fill(r[i], 0);
            ok = r[i] != NULL;
        }
        if (!ok) {
            for (int i = 0; i < 3; i++) shimrt_tensor_free(r[i]);
            return AOTI_TORCH_FAILURE;
        }
        *ret0 = r[0];
        *ret1 = r[1];
        *ret2 = r[2];
        return AOTI_TORCH_SUCCESS;
    }
    bool cl = nd == 4 && (shimrt_k_strides_like_cl(input) || shimrt_k_strides_like_cl(weight));
    AtenTensorHandle r[3] = {NULL, NULL, NULL};
    AOTITorchError err = AOTI_TORCH_SUCCESS;
    if (output_mask[0])
        err = grad_input(op, &q, grad_output, input, weight, stride, stride_len_, padding,
                         padding_len_, dilation, dilation_len_, cl, &r[0]);
    if (!err && output_mask[1]) err = grad_weight(op, &q, grad_output, input, weight, cl, &r[1]);
    if (!err && output_mask[2]) err = grad_bias(op, &q, grad_output, &r[2]);
    if (err) {
        for (int i = 0; i < 3; i++) shimrt_tensor_free(r[i]);
        return AOTI_TORCH_FAILURE;
    }
    *ret0 = r[0];
    *ret1 = r[1];
    *ret2 = r[2];
    return AOTI_TORCH_SUCCESS;
}

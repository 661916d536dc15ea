/* runtime/cpu/fracpool.c: fractional_max_pool2d and fractional_max_pool3d (forward) as
 * PyTorch's CPU kernels compute them, with the random_samples argument as given (one sample
 * in [0, 1) per batch, plane and pooled dimension: 2-d takes [0] for the width and [1] for
 * the height, 3-d [0] time, [1] height, [2] width). Each dimension's window starts are
 *   alpha = (in - pool) / (out - 1);  start[i] = (int)((i + u) * alpha) - (int)(u * alpha)
 * and the last start is in - pool, computed in the input's type; each output is the max of
 * its pool window (NaN wins, then the first maximum), its index the flat offset in the
 * input plane. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../generic/meta.h"
#include "cpu_kernels.h"
#include "elems.h"
#include "index.h"
#include "iter.h"

static void intervals(int32_t dt, double u, int64_t in, int64_t out, int64_t pool, int64_t *seq) {
    if (out > 1) {
        double alpha = shimrt_e_round(dt, shimrt_e_round(dt, (double)(in - pool)) /
                                              shimrt_e_round(dt, (double)(out - 1)));
        for (int64_t i = 0; i < out - 1; i++)
            seq[i] = (int64_t)shimrt_e_round(dt, shimrt_e_round(dt, (double)i + u) * alpha) -
                     (int64_t)shimrt_e_round(dt, u * alpha);
    }
    if (out > 0) seq[out - 1] = in - pool;
}

/* nd: 2 or 3 pooled dims */
static AOTITorchError frac_pool(const char *op, int nd, AtenTensorHandle self, const int64_t *ks,
                                int64_t ks_len, const int64_t *os, int64_t os_len,
                                AtenTensorHandle samples, AtenTensorHandle *ret0,
                                AtenTensorHandle *ret1) {
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, samples, "random_samples"))
        return AOTI_TORCH_FAILURE;
    /* PyTorch 2.15's order: the meta function's checks (kernel_size and output_size lengths,
     * kernel_size > 0, self's rank and non-batch sizes, each pool against its input, the
     * output's negative sizes at its creation), then the kernel's random_samples checks
     * (fractional_max_pool_check_shape), then an empty result returned before the dtype
     * dispatch (any dtype then) */
    const char *tn = nd == 2 ? "" : "three ";
    if (ks_len != nd)
        return shimrt_fail(op, "%s: kernel_size must either be a single Int or tuple of %sInts", op,
                           tn);
    if (os_len != nd)
        return shimrt_fail(op, "%s: output_size must either be a single Int or tuple of %sInts", op,
                           tn);
    for (int k = 0; k < nd; k++)
        if (ks[k] <= 0) {
            char got[80];
            if (nd == 2)
                snprintf(got, sizeof got, "%lldx%lld", (long long)ks[0], (long long)ks[1]);
            else
                snprintf(got, sizeof got, "%lldx%lldx%lld", (long long)ks[0], (long long)ks[1],
                         (long long)ks[2]);
            return shimrt_fail(op, "%s(): kernel size should be greater than zero, but got %s", op,
                               got);
        }
    /* (3-d's later messages are its out function's) */
    const char *fn = nd == 2 ? "fractional_max_pool2d" : "fractional_max_pool3d_out";
    int32_t dt = self->dtype;
    int64_t ndim = self->ndim;
    char sh[128];
    shimrt_k_fmt_shape(sh, sizeof sh, ndim, self->sizes);
    if (ndim != nd + 1 && ndim != nd + 2)
        return shimrt_fail(op, "%s(): Expected %dD or %dD tensor, but got: %s", fn, nd + 1, nd + 2,
                           sh);
    bool batched = ndim == nd + 2;
    for (int64_t d = 1; d < ndim; d++)
        if (self->sizes[d] <= 0)
            return shimrt_fail(op,
                               "%s(): Expected input to have non-zero size for non-batch "
                               "dimensions, but got%s with dimension %lld being empty.",
                               fn, sh, (long long)d);
    int64_t N = batched ? self->sizes[0] : 1, Cc = self->sizes[batched ? 1 : 0];
    int64_t in[3] = {1, 1, 1}, pool[3] = {1, 1, 1}, out[3] = {1, 1, 1};
    int64_t off = 3 - nd; /* 2-d pools (1, H, W) */
    static const char *const dn[3] = {"time", "height", "width"};
    for (int k = 0; k < nd; k++) {
        in[off + k] = self->sizes[ndim - nd + k];
        pool[off + k] = ks[k];
        out[off + k] = os[k];
        /* PyTorch: out + pool - 1 <= in for 2-d, < in for 3-d */
        if (os[k] + ks[k] - 1 > in[off + k] - (nd == 3))
            return shimrt_fail(op, "%s(): pool %s %lld too large relative to input %s %lld", fn,
                               dn[off + k], (long long)ks[k], dn[off + k], (long long)in[off + k]);
    }
    int64_t osz[5], ond = 0;
    if (batched) osz[ond++] = N;
    osz[ond++] = Cc;
    for (int k = 0; k < nd; k++) osz[ond++] = os[k];
    for (int k = 0; k < nd; k++)
        if (os[k] < 0)
            return shimrt_fail(op, "Trying to create tensor with negative dimension %lld: %s",
                               (long long)os[k], shimrt_k_fmt_shape(sh, sizeof sh, ond, osz));
    if (samples->dtype != dt)
        return shimrt_fail(op, "Expect _random_samples to have the same dtype as input");
    if (samples->ndim != 3)
        return shimrt_fail(op, "Expect _random_samples to have 3 dimensions, got %lld",
                           (long long)samples->ndim);
    if (samples->sizes[0] < N)
        return shimrt_fail(op, "Expect _random_samples.size(0) no less then input batch size.");
    if (samples->sizes[1] != Cc)
        return shimrt_fail(op, "Expect _random_samples.size(1) equals to input channel size.");
    if (samples->sizes[2] != nd)
        return shimrt_fail(op, "Expect _random_samples.size(2) equals to %d; got %lld.", nd,
                           (long long)samples->sizes[2]);
    bool empty = N == 0 || out[0] == 0 || out[1] == 0 || out[2] == 0;
    if (!empty && !shimrt_k_is_floating(dt))
        return shimrt_fail(op, "\"%s_out_frame\" not implemented for '%s'", op,
                           shimrt_dtype_torch_name(dt));
    AtenTensorHandle o = shimrt_tensor_empty(op, ond, osz, NULL, dt, SHIMRT_DEV_CPU, 0);
    AtenTensorHandle ix = shimrt_tensor_empty(op, ond, osz, NULL, SHIMRT_INT64, SHIMRT_DEV_CPU, 0);
    int64_t *seq = malloc((size_t)(out[0] + out[1] + out[2] + 3) * sizeof *seq);
    if (!o || !ix || !seq) {
        if (o && ix) shimrt_fail(op, "out of memory");
        shimrt_tensor_free(o);
        shimrt_tensor_free(ix);
        free(seq);
        return AOTI_TORCH_FAILURE;
    }
    int64_t *st[3] = {seq, seq + out[0] + 1, seq + out[0] + out[1] + 2};
    const char *ib = shimrt_data(self), *sb = shimrt_data(samples);
    char *ob = shimrt_data(o);
    int64_t *xb = shimrt_data(ix);
    size_t es = shimrt_dtype_size(dt);
    int64_t ist[3] = {0, 0, 0}; /* the input's strides over (T, H, W) */
    for (int k = 0; k < nd; k++) ist[off + k] = self->strides[ndim - nd + k];
    int64_t nst = batched ? self->strides[0] : 0, cst = self->strides[batched ? 1 : 0];
    int64_t e = 0;
    for (int64_t b = 0; !empty && b < N; b++)
        for (int64_t c = 0; c < Cc; c++) {
            for (int k = 0; k < nd; k++) {
                const char *sp = sb + (b * samples->strides[0] + c * samples->strides[1] +
                                       k * samples->strides[2]) *
                                          (int64_t)es;
                double u = shimrt_k_load_f64(sp, dt);
                /* 2-d: sample 0 is the width's, 1 the height's; 3-d: time, height, width */
                int dim = nd == 2 ? (k == 0 ? 2 : 1) : k;
                intervals(dt, u, in[dim], out[dim], pool[dim], st[dim]);
            }
            if (nd == 2) st[0][0] = 0;
            const char *plane = ib + (b * nst + c * cst) * (int64_t)es;
            for (int64_t t = 0; t < out[0]; t++)
                for (int64_t h = 0; h < out[1]; h++)
                    for (int64_t w = 0; w < out[2]; w++, e++) {
                        int64_t t0 = st[0][t], h0 = st[1][h], w0 = st[2][w];
                        double best = -INFINITY;
                        int64_t bi = (t0 * in[1] + h0) * in[2] + w0;
                        for (int64_t t2 = t0; t2 < t0 + pool[0]; t2++)
                            for (int64_t h2 = h0; h2 < h0 + pool[1]; h2++)
                                for (int64_t w2 = w0; w2 < w0 + pool[2]; w2++) {
                                    double v = shimrt_k_load_f64(
                                        plane +
                                            (t2 * ist[0] + h2 * ist[1] + w2 * ist[2]) * (int64_t)es,
                                        dt);
                                    if (v > best || isnan(v)) {
                                        best = v;
                                        bi = (t2 * in[1] + h2) * in[2] + w2;
                                    }
                                }
                        shimrt_k_store_f64(ob + e * (int64_t)es, dt, best);
                        xb[e] = bi;
                    }
        }
    free(seq);
    *ret0 = o;
    *ret1 = ix;
    return AOTI_TORCH_SUCCESS;
}

/* fractional_max_pool2d and 3d: frac_pool over N spatial dimensions. */
#define FRACTIONAL_MAX_POOL(N)                                                                     \
    AOTITorchError shimrt_cpu_fractional_max_pool##N##d(                                           \
        AtenTensorHandle self, const int64_t *kernel_size, int64_t kernel_size_len_,               \
        const int64_t *output_size, int64_t output_size_len_, AtenTensorHandle random_samples,     \
        AtenTensorHandle *ret0, AtenTensorHandle *ret1) {                                          \
        return frac_pool("fractional_max_pool" #N "d", N, self, kernel_size, kernel_size_len_,     \
                         output_size, output_size_len_, random_samples, ret0, ret1);               \
    }
FRACTIONAL_MAX_POOL(2)
FRACTIONAL_MAX_POOL(3)

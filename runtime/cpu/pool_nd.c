/* runtime/cpu/pool_nd.c: the pooling engine of pool_nd.h (2-d and 3-d max, avg and adaptive
 * pooling).
 *
 * Direct loops over the planes (N x C) of a dense copy of the input, planes in parallel on
 * the runtime's pool. oneDNN's pooling is not used: its max pooling keeps no PyTorch-style
 * indices (the flat position within the input plane), and these loops are memory bound
 * either way. PyTorch's rules (aten/src/ATen/native/cpu/MaxPoolKernel.cpp, AvgPoolKernel.cpp,
 * AdaptiveAvgPoolKernel.cpp): max takes a NaN over any number and keeps the last NaN, else
 * the first maximum; avg divides by divisor_override, else by the window clipped to the
 * padded input (count_include_pad) or to the input. Sums are in double (int64 for integers,
 * divided with truncation as C++ does). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool_nd.h"

#include "aoti_ops.h"
#include "shimrt/device.h"

void shimrt_pl_window(const shimrt_pl *c, int i, int64_t o, int64_t *lo, int64_t *hi, int64_t *step,
                      int64_t *count) {
    int64_t in = c->in[i];
    if (c->adaptive) {
        *lo = o * in / c->out[i];
        *hi = ((o + 1) * in + c->out[i] - 1) / c->out[i];
        *step = 1;
        *count = *hi - *lo;
        return;
    }
    int64_t b = o * c->s[i] - c->p[i];
    if (c->kind == SHIMRT_PL_MAX) {
        int64_t e = b + (c->k[i] - 1) * c->d[i] + 1;
        while (b < 0) b += c->d[i];
        *lo = b;
        *hi = e < in ? e : in;
        *step = c->d[i];
        *count = 0;
        return;
    }
    int64_t e = b + c->k[i] < in + c->p[i] ? b + c->k[i] : in + c->p[i];
    int64_t padded = e - b;
    if (b < 0) b = 0;
    if (e > in) e = in;
    *lo = b;
    *hi = e;
    *step = 1;
    *count = c->include_pad ? padded : (e > b ? e - b : 0);
}

int64_t shimrt_pl_out_size(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil) {
    int64_t num = in + 2 * pad - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
    int64_t o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
    if (ceil && (o - 1) * s >= in + pad) o--;
    return o;
}

/* One list into v[3] (D first; 2-d: v[0] = 1); def (nsp values) when empty and not NULL. */
static AOTITorchError one_list(const char *op, const char *fn, const char *what, int nsp,
                               const int64_t *a, int64_t n, const int64_t *def, int64_t v[3],
                               bool either) {
    if (n == 0 && def) a = def, n = nsp;
    if (n != 1 && n != nsp)
        return shimrt_fail(op, "%s: %s must %s%sa single int, or a tuple of %s ints", fn, what,
                           either ? "either be " : "be ", def ? "omitted, " : "",
                           nsp == 2 ? "two" : "three");
    v[0] = 1;
    for (int i = 0; i < nsp; i++) {
        v[3 - nsp + i] = a[n == 1 ? 0 : i];
        if (v[3 - nsp + i] > INT32_MAX || v[3 - nsp + i] < INT32_MIN) /* PyTorch's safe_downcast */
            return shimrt_fail(op, "value cannot be converted to type int without overflow");
    }
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_pl_lists(const char *op, const char *fn, shimrt_pl *c, const int64_t *k,
                               int64_t kn, const int64_t *s, int64_t sn, const int64_t *p,
                               int64_t pn, const int64_t *d, int64_t dn) {
    int nsp = c->nsp;
    bool either = !(nsp == 3 && c->kind == SHIMRT_PL_AVG);
    if (one_list(op, fn, "kernel_size", nsp, k, kn, NULL, c->k, either) ||
        one_list(op, fn, "stride", nsp, s, sn, c->k + 3 - nsp, c->s, either) ||
        one_list(op, fn, "padding", nsp, p, pn, NULL, c->p, either))
        return AOTI_TORCH_FAILURE;
    if (!d) {
        c->d[0] = c->d[1] = c->d[2] = 1;
        return AOTI_TORCH_SUCCESS;
    }
    return one_list(op, fn, "dilation", nsp, d, dn, NULL, c->d, either);
}

AOTITorchError shimrt_pl_dense(const char *op, AtenTensorHandle self, AtenTensorHandle *c) {
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

typedef struct {
    const shimrt_pl *c;
    const char *in;
    char *out;
    int64_t *idx;
    int32_t dt;
    size_t es;
} pool_job;

/* The max of one window: its value copied to dst, its flat index returned. */
static int64_t window_max(const pool_job *j, const char *in, const int64_t *lo, const int64_t *hi,
                          const int64_t *st, char *dst) {
    const shimrt_pl *c = j->c;
    bool flt = shimrt_k_is_floating(j->dt);
    int64_t best = (lo[0] * c->in[1] + lo[1]) * c->in[2] + lo[2];
    long double mx = -INFINITY;
    for (int64_t z = lo[0]; z < hi[0]; z += st[0])
        for (int64_t y = lo[1]; y < hi[1]; y += st[1])
            for (int64_t x = lo[2]; x < hi[2]; x += st[2]) {
                int64_t at = (z * c->in[1] + y) * c->in[2] + x;
                const char *q = in + (size_t)at * j->es;
                long double v = flt ? (long double)shimrt_k_load_f64(q, j->dt)
                                    : (long double)shimrt_k_load_i64(q, j->dt);
                if (v > mx || isnan(v)) {
                    mx = v;
                    best = at;
                }
            }
    if (lo[0] < hi[0] && lo[1] < hi[1] && lo[2] < hi[2])
        memcpy(dst, in + (size_t)best * j->es, j->es);
    else
        shimrt_k_store_f64(dst, j->dt, -INFINITY);
    return best;
}

static void window_avg(const pool_job *j, const char *in, const int64_t *lo, const int64_t *hi,
                       int64_t size, char *dst) {
    const shimrt_pl *c = j->c;
    bool flt = shimrt_k_is_floating(j->dt);
    double fs = 0;
    int64_t is = 0;
    for (int64_t z = lo[0]; z < hi[0]; z++)
        for (int64_t y = lo[1]; y < hi[1]; y++)
            for (int64_t x = lo[2]; x < hi[2]; x++) {
                const char *q = in + (size_t)((z * c->in[1] + y) * c->in[2] + x) * j->es;
                if (flt)
                    fs += shimrt_k_load_f64(q, j->dt);
                else /* (wrapping, as PyTorch's int64 accumulation on x86) */
                    is = (int64_t)((uint64_t)is + (uint64_t)shimrt_k_load_i64(q, j->dt));
            }
    if (c->divisor) size = c->divisor;
    if (flt)
        shimrt_k_store_f64(dst, j->dt, fs / (double)size);
    else /* INT64_MIN / -1 wraps to INT64_MIN here; it traps (SIGFPE) in PyTorch's kernel */
        shimrt_k_store_i64(dst, j->dt,
                           !size        ? 0
                           : size == -1 ? (int64_t)(0 - (uint64_t)is)
                                        : is / size);
}

static void pool_planes(int64_t b, int64_t e, void *vctx) {
    const pool_job *j = vctx;
    const shimrt_pl *c = j->c;
    int64_t isz = c->in[0] * c->in[1] * c->in[2], osz = c->out[0] * c->out[1] * c->out[2];
    for (int64_t p = b; p < e; p++) {
        const char *in = j->in + (size_t)(p * isz) * j->es;
        for (int64_t o = 0; o < osz; o++) {
            int64_t oi[3] = {o / (c->out[1] * c->out[2]), o / c->out[2] % c->out[1], o % c->out[2]};
            int64_t lo[3], hi[3], st[3], cnt[3];
            for (int i = 0; i < 3; i++)
                shimrt_pl_window(c, i, oi[i], &lo[i], &hi[i], &st[i], &cnt[i]);
            int64_t pos = p * osz + o;
            char *dst = j->out + (size_t)pos * j->es;
            if (c->kind == SHIMRT_PL_MAX)
                j->idx[pos] = window_max(j, in, lo, hi, st, dst);
            else
                window_avg(j, in, lo, hi, cnt[0] * cnt[1] * cnt[2], dst);
        }
    }
}

AOTITorchError shimrt_pl_channels_last(const char *op, AtenTensorHandle *t) {
    int64_t st[5];
    shimrt_k_channels_last_strides((*t)->ndim, (*t)->sizes, st);
    AtenTensorHandle cl =
        shimrt_tensor_empty(op, (*t)->ndim, (*t)->sizes, st, (*t)->dtype, SHIMRT_DEV_CPU, 0);
    AOTITorchError err = cl ? shimrt_k_copy(op, cl, *t) : AOTI_TORCH_FAILURE;
    shimrt_tensor_free(*t);
    *t = cl;
    return err;
}

AOTITorchError shimrt_pl_run(const char *op, AtenTensorHandle self, shimrt_pl *c,
                             AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    int64_t nd = self->ndim, lead = nd - c->nsp, shape[5], planes_n = 1;
    for (int64_t i = 0; i < lead; i++) {
        shape[i] = self->sizes[i];
        planes_n *= self->sizes[i];
    }
    c->in[0] = 1;
    c->out[0] = c->nsp == 2 ? 1 : c->out[0];
    for (int i = 0; i < c->nsp; i++) {
        c->in[3 - c->nsp + i] = self->sizes[lead + i];
        shape[lead + i] = c->out[3 - c->nsp + i];
    }
    if (c->nsp == 2) c->k[0] = c->s[0] = c->d[0] = 1, c->p[0] = 0;
    AtenTensorHandle in = NULL, out = shimrt_k_new(op, nd, shape, self->dtype);
    bool want_ix = ret1 && c->kind == SHIMRT_PL_MAX;
    AtenTensorHandle ix = out && want_ix ? shimrt_k_new(op, nd, shape, SHIMRT_INT64) : NULL;
    if (!out || (want_ix && !ix) || shimrt_pl_dense(op, self, &in)) {
        shimrt_tensor_free(out);
        shimrt_tensor_free(ix);
        return AOTI_TORCH_FAILURE;
    }
    pool_job j = {.c = c,
                  .in = shimrt_data(in),
                  .out = shimrt_data(out),
                  .idx = ix ? shimrt_data(ix) : NULL,
                  .dt = self->dtype,
                  .es = shimrt_dtype_size(self->dtype)};
    int64_t osz = c->out[0] * c->out[1] * c->out[2];
    if (planes_n * osz > 0) torch_parallel_for(0, planes_n, 1 + 16384 / (osz + 1), pool_planes, &j);
    if (in != self) shimrt_tensor_free(in);
    AOTITorchError err = AOTI_TORCH_SUCCESS;
    /* PyTorch's suggest_memory_format: channels-last for strides like it, also when they are
     * contiguous too (a size-1 C or spatial size) */
    if (!c->dense_out && nd == c->nsp + 2 && shimrt_k_strides_like_cl(self)) {
        err = shimrt_pl_channels_last(op, &out);
        if (!err && ix) err = shimrt_pl_channels_last(op, &ix);
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

/* "a: 1 b: 2 c: 3" of the spatial dims' values v with labels p0 (T H W) */
static const char *fmt3(char *buf, size_t n, const char *pre, int nsp, const int64_t *v) {
    static const char lab[] = "THW";
    size_t at = 0;
    buf[0] = 0;
    for (int i = 3 - nsp; i < 3 && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s%s%c: %lld", i > 3 - nsp ? " " : "", pre,
                               lab[i], (long long)v[i]);
    return buf;
}

AOTITorchError shimrt_pl_check(const char *op, const char *fn, shimrt_pl *c,
                               const struct AtenTensorOpaque *self, bool ceil_mode) {
    char b1[128], b2[128];
    int nsp = c->nsp;
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    if (self->ndim != nsp + 1 && self->ndim != nsp + 2)
        return shimrt_fail(op, "non-empty %dD or %dD (batch mode) tensor expected for input",
                           nsp + 1, nsp + 2);
    for (int i = 3 - nsp; i < 3; i++) {
        if (c->k[i] <= 0)
            return shimrt_fail(op, "kernel size should be greater than zero, but got %s",
                               fmt3(b1, sizeof b1, "k", nsp, c->k));
        if (c->s[i] == 0) return shimrt_fail(op, "stride should not be zero");
        if (c->s[i] < 0)
            return shimrt_fail(op, "stride should be greater than zero, but got %s",
                               fmt3(b1, sizeof b1, "d", nsp, c->s));
        if (c->d[i] <= 0)
            return shimrt_fail(op, "dilation should be greater than zero, but got %s",
                               fmt3(b1, sizeof b1, "dilation", nsp, c->d));
        if (c->p[i] < 0)
            return shimrt_fail(op, "pad must be non-negative, but got pad: %lld",
                               (long long)c->p[i]);
        if (c->p[i] > c->k[i] / 2)
            return shimrt_fail(op,
                               "pad should be smaller than or equal to half of kernel size, "
                               "but got %s %s",
                               fmt3(b1, sizeof b1, "k", nsp, c->k),
                               fmt3(b2, sizeof b2, "pad", nsp, c->p));
    }
    int64_t lead = self->ndim - nsp;
    for (int64_t i = self->ndim == nsp + 2 ? 1 : 0; i < self->ndim; i++)
        if (self->sizes[i] == 0) {
            char sh[128];
            shimrt_k_fmt_shape(sh, sizeof sh, self->ndim, self->sizes);
            if (nsp == 2)
                return shimrt_fail(op,
                                   "Expected 3D or 4D (batch mode) tensor with optional 0 dim "
                                   "batch size for input, but got:%s",
                                   sh);
            return shimrt_fail(op,
                               "%s(): Expected input to have non-zero size for non-batch "
                               "dimensions, but input has sizes %s with dimension %lld being "
                               "empty",
                               fn, sh, (long long)i);
        }
    bool small = false;
    c->out[0] = 1;
    for (int i = 3 - nsp; i < 3; i++) {
        int64_t in = self->sizes[lead - (3 - nsp) + i];
        c->out[i] = shimrt_pl_out_size(in, c->k[i], c->p[i], c->s[i], c->d[i], ceil_mode);
        small |= c->out[i] < 1;
        if (nsp == 3 && c->kind == SHIMRT_PL_AVG && in < c->k[i]) {
            int64_t is[3] = {1, 1, 1};
            for (int j = 3 - nsp; j < 3; j++) is[j] = self->sizes[lead - (3 - nsp) + j];
            return shimrt_fail(op, "input image (%s) smaller than kernel size (%s)",
                               fmt3(b1, sizeof b1, "", nsp, is),
                               fmt3(b2, sizeof b2, "k", nsp, c->k));
        }
    }
    if (small) {
        int64_t ch = self->sizes[lead - 1];
        const int64_t *is = self->sizes + lead;
        if (nsp == 2)
            return shimrt_fail(op,
                               "Given input size: (%lldx%lldx%lld). Calculated output size: "
                               "(%lldx%lldx%lld). Output size is too small",
                               (long long)ch, (long long)is[0], (long long)is[1], (long long)ch,
                               (long long)c->out[1], (long long)c->out[2]);
        return shimrt_fail(op,
                           "Given input size: (%lldx%lldx%lldx%lld). Calculated output size: "
                           "(%lldx%lldx%lldx%lld). Output size is too small",
                           (long long)ch, (long long)is[0], (long long)is[1], (long long)is[2],
                           (long long)ch, (long long)c->out[0], (long long)c->out[1],
                           (long long)c->out[2]);
    }
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_pl_max_pool(int nsp, AtenTensorHandle self, const int64_t *k, int64_t kn,
                                  const int64_t *s, int64_t sn, const int64_t *p, int64_t pn,
                                  const int64_t *d, int64_t dn, int32_t ceil_mode,
                                  AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    const char *op = nsp == 2 ? "max_pool2d_with_indices" : "max_pool3d_with_indices";
    const char *fn = nsp == 2 ? "max_pool2d" : "max_pool3d";
    shimrt_pl c = {.nsp = nsp, .kind = SHIMRT_PL_MAX};
    static const int64_t none = 0; /* an empty dilation list is refused, as in PyTorch */
    if (shimrt_pl_lists(op, fn, &c, k, kn, s, sn, p, pn, d ? d : &none, dn) ||
        shimrt_pl_check(op, nsp == 2 ? fn : "max_pool3d_with_indices_out_cpu_template", &c, self,
                        ceil_mode != 0))
        return AOTI_TORCH_FAILURE;
    if (self->dtype == SHIMRT_BOOL) return shimrt_fail(op, "\"%s\" not implemented for 'Bool'", fn);
    /* PyTorch's channels-last-3d kernel keeps indices in a signed integer as wide as an
     * integral element: a plane of more positions than it holds is refused */
    size_t es = shimrt_dtype_size(self->dtype);
    if (nsp == 3 && shimrt_k_is_integral(self->dtype) && es < 4 && self->ndim == 5 &&
        shimrt_k_strides_like_cl(self) && !shimrt_is_contiguous(self) &&
        self->sizes[2] * self->sizes[3] * self->sizes[4] > (es == 1 ? INT8_MAX : INT16_MAX))
        return shimrt_fail(op, "Expected input_depth * input_height * input_width <= "
                               "std::numeric_limits<integer_t>::max() to be true, but got false.");
    return shimrt_pl_run(op, self, &c, ret0, ret1);
}

AOTITorchError shimrt_pl_avg_pool(int nsp, AtenTensorHandle self, const int64_t *k, int64_t kn,
                                  const int64_t *s, int64_t sn, const int64_t *p, int64_t pn,
                                  int32_t ceil_mode, int32_t count_include_pad,
                                  const int64_t *divisor_override, AtenTensorHandle *ret0) {
    const char *op = nsp == 2 ? "avg_pool2d" : "avg_pool3d";
    /* PyTorch's avg_pool3d returns a contiguous result for a channels-last-3d input */
    shimrt_pl c = {.nsp = nsp,
                   .kind = SHIMRT_PL_AVG,
                   .include_pad = count_include_pad != 0,
                   .dense_out = nsp == 3};
    if (shimrt_pl_lists(op, op, &c, k, kn, s, sn, p, pn, NULL, 0)) return AOTI_TORCH_FAILURE;
    if (divisor_override && *divisor_override == 0)
        return shimrt_fail(op, "divisor must be not zero");
    if (shimrt_pl_check(op, op, &c, self, ceil_mode != 0)) return AOTI_TORCH_FAILURE;
    /* PyTorch's kernels: float, double and int64; avg_pool2d also float16 and bfloat16 */
    int32_t dt = self->dtype;
    bool reduced = dt == SHIMRT_FLOAT16 || dt == SHIMRT_BFLOAT16;
    if (dt != SHIMRT_FLOAT32 && dt != SHIMRT_FLOAT64 && dt != SHIMRT_INT64 &&
        !(nsp == 2 && reduced))
        return shimrt_fail(op, "\"%s_out_frame\" not implemented for '%s'", op,
                           shimrt_dtype_torch_name(dt));
    c.divisor = divisor_override ? *divisor_override : 0;
    return shimrt_pl_run(op, self, &c, ret0, NULL);
}

/* runtime/cpu/backward_pool.c: the 2-d pooling backward ops of c_shim_cpu.h:
 * max_pool2d_with_indices_backward, avg_pool2d_backward, _adaptive_avg_pool2d_backward and
 * adaptive_max_pool2d_backward.
 *
 * Each is a scatter-add of grad_output into a zeroed grad_input, plane by plane (N x C planes
 * in parallel), in PyTorch's CPU order: output positions row by row, each contribution added
 * to grad_input with the dtype's own arithmetic (PyTorch's kernels accumulate in scalar_t:
 * every division and addition is rounded to float32, or to float and then to bfloat16 /
 * float16, as c10's half types compute). Values are carried as doubles: a double result of
 * one operation on two values of these types, rounded to the type, is the type's correctly
 * rounded result, so the sums are bit-identical to PyTorch's contiguous kernels. Integers
 * (int64, avg_pool2d_backward only) divide with truncation and add with wrap-around.
 *
 * Checks and messages are PyTorch's (structured meta functions, pool2d_shape_check,
 * check_dim_size, the dtype dispatch). Where PyTorch reads or writes out of bounds (an index
 * outside the plane, -1 for adaptive max, which PyTorch's kernel does not skip; a grad_output
 * with fewer planes than self for _adaptive_avg_pool2d_backward), libshimrt refuses with a
 * message. grad_input has self's shape, channels-last when self is (suggest_memory_format).
 *
 * One known difference: for a channels-last grad_output PyTorch's adaptive-average kernel
 * divides the vectorized channels by kh * kw at once (the tail by kh, then kw); here always by
 * kh, then kw, as its contiguous kernel does (within one rounding of the delta). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"
#include "elems.h"
#include "pool_nd.h"
#include "shimrt/device.h"

enum { BP_MAX, BP_ADMAX, BP_AVG, BP_ADAVG, BP_REPPAD };

typedef struct {
    const char *go;    /* grad_output, dense planes of OH x OW */
    const int64_t *ix; /* indices, dense planes (max kinds) */
    char *gi;          /* grad_input, dense planes of H x W, zeroed */
    int32_t dt;
    size_t es;
    int kind;
    bool plain; /* grad_input contiguous even for a channels-last self */
    bool three; /* 3-d pooling (else in[0], out[0] are 1) */
    bool geom;  /* planes, H, W, OH, OW set by the caller (else: 2-d pooling, from the shapes) */
    /* planes of in[0] x in[1] x in[2] (D, H, W; D 1 for 2-d), grad_output's of out[]; the
     * window: kernel k, stride s, padding p */
    int64_t planes, in[3], out[3], k[3], s[3], p[3];
    bool include_pad;
    bool strict;     /* BP_MAX: an index -1 refused too (fractional max pooling) */
    int64_t divisor; /* 0: none */
} bp_ctx;

/* grad_input[i] += d, in dt's floating arithmetic (d a value of dt). */
static void bp_add(const bp_ctx *c, char *plane, int64_t i, double d) {
    char *p = plane + (size_t)i * c->es;
    if (c->dt == SHIMRT_FLOAT64) {
        double v;
        memcpy(&v, p, sizeof v);
        v += d;
        memcpy(p, &v, sizeof v);
    } else {
        shimrt_k_store_f64(p, c->dt, shimrt_e_round(c->dt, shimrt_k_load_f64(p, c->dt) + d));
    }
}

/* g / n as PyTorch's scalar_t / int64_t: the divisor converted to scalar_t first. */
static double bp_div(double g, int64_t n, int32_t dt) {
    return shimrt_e_round(dt, g / shimrt_e_round(dt, (double)n));
}

/* The start and end of adaptive window o of out over in (PyTorch's start_index/end_index). */
static int64_t ad_start(int64_t o, int64_t out, int64_t in) { return o * in / out; }
static int64_t ad_end(int64_t o, int64_t out, int64_t in) { return ((o + 1) * in + out - 1) / out; }

/* The input window [*a, *b) of output o along dim i (clipped to the input); *full: its size
 * within the padded input (avg_pool's count_include_pad). */
static void bp_window(const bp_ctx *c, int i, int64_t o, int64_t *a, int64_t *b, int64_t *full) {
    int64_t in = c->in[i];
    if (c->kind == BP_ADAVG) {
        *a = ad_start(o, c->out[i], in);
        *b = ad_end(o, c->out[i], in);
        *full = *b - *a;
        return;
    }
    int64_t a0 = o * c->s[i] - c->p[i];
    int64_t b0 = a0 + c->k[i] < in + c->p[i] ? a0 + c->k[i] : in + c->p[i];
    *full = b0 - a0;
    *a = a0 < 0 ? 0 : a0;
    *b = b0 > in ? in : b0;
}

/* Output position o (od, oh, ow) of an average's plane: its share added to its window. */
static void bp_avg_at(const bp_ctx *c, char *gi, const char *go, const int64_t *o) {
    int64_t a[3], b[3], full[3];
    for (int i = 0; i < 3; i++) bp_window(c, i, o[i], &a[i], &b[i], &full[i]);
    int64_t n = full[0] * full[1] * full[2];
    if (c->divisor)
        n = c->divisor;
    else if (!c->include_pad)
        n = (b[0] - a[0]) * (b[1] - a[1]) * (b[2] - a[2]);
    const char *q = go + (size_t)((o[0] * c->out[1] + o[1]) * c->out[2] + o[2]) * c->es;
    int64_t H = c->in[1], W = c->in[2];
    if (c->dt == SHIMRT_INT64) {
        int64_t g;
        memcpy(&g, q, sizeof g);
        /* (n == -1: -g without the INT64_MIN / -1 trap) */
        g = n == -1 ? (int64_t)(0 - (uint64_t)g) : g / n;
        for (int64_t z = a[0]; z < b[0]; z++)
            for (int64_t y = a[1]; y < b[1]; y++)
                for (int64_t x = a[2]; x < b[2]; x++) {
                    char *p = gi + (size_t)((z * H + y) * W + x) * c->es;
                    int64_t v;
                    memcpy(&v, p, sizeof v);
                    v = (int64_t)((uint64_t)v + (uint64_t)g);
                    memcpy(p, &v, sizeof v);
                }
        return;
    }
    double d = shimrt_k_load_f64(q, c->dt);
    if (c->kind == BP_ADAVG) /* / kd / kh / kw (2-d: kd 1, an exact division) */
        for (int i = 0; i < 3; i++) d = bp_div(d, b[i] - a[i], c->dt);
    else
        d = bp_div(d, n, c->dt);
    for (int64_t z = a[0]; z < b[0]; z++)
        for (int64_t y = a[1]; y < b[1]; y++)
            for (int64_t x = a[2]; x < b[2]; x++) bp_add(c, gi, (z * H + y) * W + x, d);
}

static void bp_planes(int64_t b, int64_t e, void *vctx) {
    const bp_ctx *c = vctx;
    int64_t hw = c->in[0] * c->in[1] * c->in[2], ohw = c->out[0] * c->out[1] * c->out[2];
    for (int64_t p = b; p < e; p++) {
        char *gi = c->gi + (size_t)(p * hw) * c->es;
        const char *go = c->go + (size_t)(p * ohw) * c->es;
        if (c->kind == BP_MAX || c->kind == BP_ADMAX) {
            const int64_t *ix = c->ix + p * ohw;
            for (int64_t o = 0; o < ohw; o++)
                if (ix[o] != -1)
                    bp_add(c, gi, ix[o], shimrt_k_load_f64(go + (size_t)o * c->es, c->dt));
            continue;
        }
        if (c->kind == BP_REPPAD) { /* output (oh, ow) reads input (clamped oh - top, ...) */
            int64_t H = c->in[1], W = c->in[2];
            /* complex64/128: c10::complex's +=, each part summed in its own type */
            bool cx = shimrt_dtype_is_complex(c->dt);
            bp_ctx pc = *c;
            if (cx) {
                pc.dt = c->dt == SHIMRT_COMPLEX64 ? SHIMRT_FLOAT32 : SHIMRT_FLOAT64;
                pc.es = c->es / 2;
            }
            for (int64_t oh = 0; oh < c->out[1]; oh++) {
                int64_t ih = oh - c->p[1] < 0 ? 0 : oh - c->p[1] >= H ? H - 1 : oh - c->p[1];
                for (int64_t ow = 0; ow < c->out[2]; ow++) {
                    int64_t iw = ow - c->p[2] < 0 ? 0 : ow - c->p[2] >= W ? W - 1 : ow - c->p[2];
                    const char *q = go + (size_t)(oh * c->out[2] + ow) * c->es;
                    for (int k = 0; k < (cx ? 2 : 1); k++)
                        bp_add(&pc, gi, (ih * W + iw) * (cx ? 2 : 1) + k,
                               shimrt_k_load_f64(q + (size_t)k * pc.es, pc.dt));
                }
            }
            continue;
        }
        int64_t o[3];
        for (o[0] = 0; o[0] < c->out[0]; o[0]++)
            for (o[1] = 0; o[1] < c->out[1]; o[1]++)
                for (o[2] = 0; o[2] < c->out[2]; o[2]++) bp_avg_at(c, gi, go, o);
    }
}

/* t as a dense tensor: t itself or a new contiguous copy (*owned set). */
static AtenTensorHandle bp_dense(const char *op, AtenTensorHandle t, bool *owned) {
    *owned = false;
    if (shimrt_is_contiguous(t)) return t;
    AtenTensorHandle d = shimrt_k_new(op, t->ndim, t->sizes, t->dtype);
    if (d && shimrt_k_copy(op, d, t)) {
        shimrt_tensor_free(d);
        return NULL;
    }
    *owned = d != NULL;
    return d;
}

/* "Expected a tensor of dimension %d and tensor.size[%d] == %d ..." (check_dim_size). */
static AOTITorchError dim_size(const char *op, AtenTensorHandle t, int64_t nd, int64_t d,
                               int64_t size) {
    if (t->ndim == nd && t->sizes[d] == size) return AOTI_TORCH_SUCCESS;
    return shimrt_fail(op,
                       "Expected a tensor of dimension %lld and tensor.size[%lld] == %lld but "
                       "got: dimension %lld and tensor.size[%lld] = %lld",
                       (long long)nd, (long long)d, (long long)size, (long long)t->ndim,
                       (long long)d, (long long)(d < t->ndim ? t->sizes[d] : 0));
}

/* The dtype dispatch: float32/64, bfloat16, float16 (and int64 when ints). */
static AOTITorchError bp_dtype(const char *op, const char *kernel, int32_t dt, bool ints) {
    if (shimrt_k_is_floating(dt) || (ints && dt == SHIMRT_INT64)) return AOTI_TORCH_SUCCESS;
    return shimrt_fail(op, "\"%s\" not implemented for '%s'", kernel, shimrt_dtype_torch_name(dt));
}

/* indices int64 (PyTorch's message for another dtype) */
static AOTITorchError bp_long(const char *op, AtenTensorHandle indices) {
    if (indices->dtype == SHIMRT_INT64) return AOTI_TORCH_SUCCESS;
    return shimrt_fail(op, "expected scalar type Long but found %s",
                       shimrt_dtype_torch_name(indices->dtype));
}

/* Indices in [0, H * W) (-1 too when skip): PyTorch's kernels index with them unchecked. */
static AOTITorchError bp_indices(const char *op, const int64_t *ix, int64_t n, int64_t hw,
                                 bool skip) {
    for (int64_t i = 0; i < n; i++)
        if ((ix[i] < 0 || ix[i] >= hw) && !(skip && ix[i] == -1))
            return shimrt_fail(op,
                               "%s: index %lld is out of range for an input plane of %lld "
                               "elements (PyTorch's kernel would index out of bounds)",
                               op, (long long)ix[i], (long long)hw);
    return AOTI_TORCH_SUCCESS;
}

/* Zeroed grad_input of self's shape; c filled from grad_output (and indices); the planes
 * run; the result channels-last when self is. */
static AOTITorchError bp_run(const char *op, bp_ctx *c, AtenTensorHandle grad,
                             AtenTensorHandle self, AtenTensorHandle indices,
                             AtenTensorHandle *ret0) {
    int64_t nd = self->ndim, planes = c->planes;
    if (!c->geom) { /* 2-d pooling: planes of H x W */
        planes = 1;
        for (int64_t i = 0; i < nd - 2; i++) planes *= self->sizes[i];
        c->in[1] = self->sizes[nd - 2];
        c->in[2] = self->sizes[nd - 1];
        c->out[1] = grad->sizes[grad->ndim - 2];
        c->out[2] = grad->sizes[grad->ndim - 1];
    }
    if (!c->three) { /* 2-d: one layer, a window of depth 1 */
        c->in[0] = c->out[0] = c->k[0] = c->s[0] = 1;
        c->p[0] = 0;
    }
    c->dt = self->dtype;
    c->es = shimrt_dtype_size(self->dtype);
    AtenTensorHandle gi = shimrt_k_new(op, nd, self->sizes, self->dtype);
    if (!gi) return AOTI_TORCH_FAILURE;
    if (shimrt_numel(gi) > 0) memset(shimrt_data(gi), 0, (size_t)shimrt_numel(gi) * c->es);
    bool own_g = false, own_i = false;
    AtenTensorHandle g = NULL, ix = NULL;
    AOTITorchError err = AOTI_TORCH_SUCCESS;
    int64_t ihw = c->in[0] * c->in[1] * c->in[2], ohw = c->out[0] * c->out[1] * c->out[2];
    if (planes * ohw > 0 && ihw > 0) {
        g = bp_dense(op, grad, &own_g);
        ix = indices && g ? bp_dense(op, indices, &own_i) : NULL;
        err = !g || (indices && !ix) ? AOTI_TORCH_FAILURE : AOTI_TORCH_SUCCESS;
        if (!err && ix)
            err =
                bp_indices(op, shimrt_data(ix), planes * ohw, ihw, c->kind == BP_MAX && !c->strict);
        if (!err) {
            c->go = shimrt_data(g);
            c->ix = ix ? shimrt_data(ix) : NULL;
            c->gi = shimrt_data(gi);
            int64_t work = c->kind == BP_MAX || c->kind == BP_ADMAX ? ohw : ihw + ohw;
            torch_parallel_for(0, planes, 1 + 16384 / (work + 1), bp_planes, c);
        }
    }
    if (own_g) shimrt_tensor_free(g);
    if (own_i) shimrt_tensor_free(ix);
    /* (PyTorch's adaptive average backward takes self's suggest_memory_format, which says
     * channels-last for strides like it even when they are contiguous too, size-1 C) */
    bool adavg2 = c->kind == BP_ADAVG && !c->three;
    if (!err && !c->plain && (nd == 4 || nd == 5) && shimrt_k_strides_like_cl(self) &&
        (adavg2 || !shimrt_is_contiguous(self))) {
        err = shimrt_pl_channels_last(op, &gi);
    }
    if (err) {
        shimrt_tensor_free(gi);
        return AOTI_TORCH_FAILURE;
    }
    *ret0 = gi;
    return AOTI_TORCH_SUCCESS;
}

/* A 1- or 2-value list (or empty, when def is given: stride) as (a, b), with PyTorch's
 * message for another length and "integer out of range" for a value beyond int. */
static AOTITorchError bp_list(const char *msg, const int64_t *v, int64_t n, const int64_t *def,
                              int cnt, int64_t *out) {
    if (n == 0 && def)
        memcpy(out, def, sizeof(int64_t) * (size_t)cnt);
    else if (n == 1 || n == cnt)
        for (int i = 0; i < cnt; i++) out[i] = v[n == 1 ? 0 : i];
    else
        return shimrt_fail("pool_backward", "%s", msg);
    for (int i = 0; i < cnt; i++)
        if (out[i] < INT_MIN || out[i] > INT_MAX)
            return shimrt_fail("pool_backward", "integer out of range");
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError bp_pair(const char *msg, const int64_t *v, int64_t n, const int64_t *def,
                              int64_t *a, int64_t *b) {
    int64_t o[2];
    if (bp_list(msg, v, n, def, 2, o)) return AOTI_TORCH_FAILURE;
    *a = o[0];
    *b = o[1];
    return AOTI_TORCH_SUCCESS;
}

/* PyTorch's pooling_output_shape: its checks, then the output size of one dim. */
static AOTITorchError bp_out_size(const char *op, int64_t in, int64_t k, int64_t p, int64_t s,
                                  int64_t d, bool ceil, int64_t *o) {
    if (s == 0) return shimrt_fail(op, "stride should not be zero");
    if (p < 0) return shimrt_fail(op, "pad must be non-negative, but got pad: %lld", (long long)p);
    if (p > ((k - 1) * d + 1) / 2)
        return shimrt_fail(op,
                           "pad should be at most half of effective kernel size, but got "
                           "pad=%lld, kernel_size=%lld and dilation=%lld",
                           (long long)p, (long long)k, (long long)d);
    int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
    /* div_rtn: rounded toward negative infinity */
    int64_t q = num / s;
    if ((num % s != 0) && ((num < 0) != (s < 0))) q--;
    *o = q + 1;
    if (ceil && (*o - 1) * s >= in + p) --*o;
    return AOTI_TORCH_SUCCESS;
}

/* pooling_output_shape's checks and result, then pool2d_shape_check's and the backward's
 * dimension checks of grad_output (and indices). */
static AOTITorchError bp_pool2d_check(const char *op, const bp_ctx *c, int64_t dh, int64_t dw,
                                      bool ceil, AtenTensorHandle self, AtenTensorHandle grad,
                                      AtenTensorHandle indices) {
    int64_t nd = self->ndim;
    if (nd < 3) /* PyTorch reads self.size(-3) first */
        return shimrt_fail(op,
                           "Dimension out of range (expected to be in range of [%lld, %lld], "
                           "but got -3)",
                           (long long)-(nd ? nd : 1), (long long)(nd ? nd - 1 : 0));
    int64_t d[2] = {dh, dw}, o[2];
    for (int i = 0; i < 2; i++)
        if (bp_out_size(op, self->sizes[nd - 2 + i], c->k[1 + i], c->p[1 + i], c->s[1 + i], d[i],
                        ceil, &o[i]))
            return AOTI_TORCH_FAILURE;
    if (c->k[1] <= 0 || c->k[2] <= 0)
        return shimrt_fail(op, "kernel size should be greater than zero, but got kH: %lld kW: %lld",
                           (long long)c->k[1], (long long)c->k[2]);
    if (c->s[1] <= 0 || c->s[2] <= 0)
        return shimrt_fail(op, "stride should be greater than zero, but got dH: %lld dW: %lld",
                           (long long)c->s[1], (long long)c->s[2]);
    if (dh <= 0 || dw <= 0)
        return shimrt_fail(op,
                           "dilation should be greater than zero, but got dilationH: %lld "
                           "dilationW: %lld",
                           (long long)dh, (long long)dw);
    bool cl = nd == 4 && shimrt_k_strides_like_cl(self) && !shimrt_is_contiguous(self);
    bool valid = self->sizes[1] != 0 && self->sizes[2] != 0;
    if (cl ? !(nd == 4 && valid && self->sizes[3] != 0)
           : !((nd == 3 && self->sizes[0] != 0 && valid) ||
               (nd == 4 && valid && self->sizes[3] != 0))) {
        char buf[128];
        return shimrt_fail(op,
                           cl ? "Expected 4D (batch mode) tensor expected for input with "
                                "channels_last layout with optional 0 dim batch size for "
                                "input, but got: %s"
                              : "Expected 3D or 4D (batch mode) tensor with optional 0 dim "
                                "batch size for input, but got:%s",
                           shimrt_k_fmt_shape(buf, sizeof buf, nd, self->sizes));
    }
    int64_t ekw = (c->k[2] - 1) * dw + 1, ekh = (c->k[1] - 1) * dh + 1;
    if (ekw / 2 < c->p[2] || ekh / 2 < c->p[1])
        return shimrt_fail(op,
                           "pad should be smaller than or equal to half of effective kernel "
                           "size, but got padW = %lld, padH = %lld, effectiveKW = %lld, "
                           "effectiveKH = %lld",
                           (long long)c->p[2], (long long)c->p[1], (long long)ekw, (long long)ekh);
    int64_t C = self->sizes[nd - 3];
    if (o[0] < 1 || o[1] < 1)
        return shimrt_fail(op,
                           "Given input size: (%lldx%lldx%lld). Calculated output size: "
                           "(%lldx%lldx%lld). Output size is too small",
                           (long long)C, (long long)self->sizes[nd - 2],
                           (long long)self->sizes[nd - 1], (long long)C, (long long)o[0],
                           (long long)o[1]);
    AtenTensorHandle ts[2] = {grad, indices};
    for (int t = 0; t < 2; t++) {
        if (!ts[t]) continue;
        if (dim_size(op, ts[t], nd, nd - 3, C) || dim_size(op, ts[t], nd, nd - 2, o[0]) ||
            dim_size(op, ts[t], nd, nd - 1, o[1]))
            return AOTI_TORCH_FAILURE;
    }
    if (nd == 4)
        for (int t = 0; t < 2; t++)
            if (ts[t] && dim_size(op, ts[t], nd, 0, self->sizes[0])) return AOTI_TORCH_FAILURE;
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError bp_same_dtype(const char *op, AtenTensorHandle self, AtenTensorHandle grad,
                                    const char *name) {
    if (grad->dtype == self->dtype) return AOTI_TORCH_SUCCESS;
    return shimrt_fail(op, "expected dtype %s for `%s` but got dtype %s",
                       shimrt_dtype_name(self->dtype), name, shimrt_dtype_name(grad->dtype));
}

AOTITorchError shimrt_cpu_max_pool2d_with_indices_backward(
    AtenTensorHandle grad_output, AtenTensorHandle self, const int64_t *kernel_size,
    int64_t kernel_size_len_, const int64_t *stride, int64_t stride_len_, const int64_t *padding,
    int64_t padding_len_, const int64_t *dilation, int64_t dilation_len_, int32_t ceil_mode,
    AtenTensorHandle indices, AtenTensorHandle *ret0) {
    static const char op[] = "max_pool2d_with_indices_backward";
    bp_ctx c = {0};
    int64_t dh, dw;
    if (bp_pair("max_pool2d: kernel_size must either be a single int, or a tuple of two ints",
                kernel_size, kernel_size_len_, NULL, &c.k[1], &c.k[2]) ||
        bp_pair("max_pool2d: stride must either be omitted, a single int, or a tuple of two ints",
                stride, stride_len_, (int64_t[]){c.k[1], c.k[2]}, &c.s[1], &c.s[2]) ||
        bp_pair("max_pool2d: padding must either be a single int, or a tuple of two ints", padding,
                padding_len_, NULL, &c.p[1], &c.p[2]) ||
        bp_pair("max_pool2d: dilation must be either a single int, or a tuple of two ints",
                dilation, dilation_len_, NULL, &dh, &dw))
        return AOTI_TORCH_FAILURE;
    if (shimrt_k_check_cpu(op, self, "self") ||
        shimrt_k_check_cpu(op, grad_output, "grad_output") ||
        shimrt_k_check_cpu(op, indices, "indices") || shimrt_k_check_dtype(op, self, "self") ||
        bp_same_dtype(op, self, grad_output, "gradOutput"))
        return AOTI_TORCH_FAILURE;
    bool cl = self->ndim == 4 && shimrt_k_strides_like_cl(self) && !shimrt_is_contiguous(self);
    if (cl ? self->ndim != 4 : self->ndim != 3 && self->ndim != 4)
        return shimrt_fail(op, "non-empty 3D or 4D (batch mode) tensor expected for input");
    if (bp_pool2d_check(op, &c, dh, dw, ceil_mode != 0, self, grad_output, indices) ||
        bp_dtype(op, "max_pool2d_backward", self->dtype, false))
        return AOTI_TORCH_FAILURE;
    if (bp_long(op, indices)) return AOTI_TORCH_FAILURE;
    c.kind = BP_MAX;
    return bp_run(op, &c, grad_output, self, indices, ret0);
}

AOTITorchError shimrt_cpu_avg_pool2d_backward(AtenTensorHandle grad_output, AtenTensorHandle self,
                                              const int64_t *kernel_size, int64_t kernel_size_len_,
                                              const int64_t *stride, int64_t stride_len_,
                                              const int64_t *padding, int64_t padding_len_,
                                              int32_t ceil_mode, int32_t count_include_pad,
                                              int64_t *divisor_override, AtenTensorHandle *ret0) {
    static const char op[] = "avg_pool2d_backward";
    bp_ctx c = {0};
    if (bp_pair("avg_pool2d: kernel_size must either be a single int, or a tuple of two ints",
                kernel_size, kernel_size_len_, NULL, &c.k[1], &c.k[2]) ||
        bp_pair("avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints",
                stride, stride_len_, (int64_t[]){c.k[1], c.k[2]}, &c.s[1], &c.s[2]) ||
        bp_pair("avg_pool2d: padding must either be a single int, or a tuple of two ints", padding,
                padding_len_, NULL, &c.p[1], &c.p[2]))
        return AOTI_TORCH_FAILURE;
    if (divisor_override && *divisor_override == 0)
        return shimrt_fail(op, "divisor must be not zero");
    if (shimrt_k_check_cpu(op, self, "self") ||
        shimrt_k_check_cpu(op, grad_output, "grad_output") ||
        shimrt_k_check_dtype(op, self, "self") ||
        bp_same_dtype(op, self, grad_output, "gradOutput") ||
        bp_pool2d_check(op, &c, 1, 1, ceil_mode != 0, self, grad_output, NULL) ||
        bp_dtype(op, "avg_pool2d_backward", self->dtype, true))
        return AOTI_TORCH_FAILURE;
    c.kind = BP_AVG;
    c.include_pad = count_include_pad != 0;
    c.divisor = divisor_override ? *divisor_override : 0;
    return bp_run(op, &c, grad_output, self, NULL, ret0);
}

/* The adaptive ops' common checks: grad_output 3-d or 4-d as self, its non-batch dims
 * non-empty, self's dtype; at least self's planes (PyTorch's kernels read grad_output's
 * planes as a flat sequence of self's planes). */
static AOTITorchError bp_adaptive_check(const char *op, const char *fn, int nsp,
                                        AtenTensorHandle grad, AtenTensorHandle self) {
    int64_t nd = grad->ndim;
    char buf[128];
    for (int64_t i = 1; i < nd; i++)
        if (grad->sizes[i] <= 0)
            return shimrt_fail(op,
                               "%s(): Expected grad_output to have non-zero size for non-batch "
                               "dimensions, but grad_output has sizes %s with dimension %lld "
                               "being empty",
                               fn, shimrt_k_fmt_shape(buf, sizeof buf, nd, grad->sizes),
                               (long long)i);
    if (self->ndim != nsp + 1 && self->ndim != nsp + 2)
        return shimrt_fail(op, "%s(): Expected %dD or %dD tensor, but got %s", fn, nsp + 1, nsp + 2,
                           shimrt_k_fmt_shape(buf, sizeof buf, self->ndim, self->sizes));
    if (nd != self->ndim)
        return shimrt_fail(op,
                           "%s: Expected dimensions %lld for `grad_output` but got dimensions %lld",
                           fn, (long long)self->ndim, (long long)nd);
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError bp_planes_fit(const char *op, AtenTensorHandle grad, AtenTensorHandle self) {
    int64_t gp = 1, sp = 1;
    for (int64_t i = 0; i < self->ndim - 2; i++) {
        gp *= grad->sizes[i];
        sp *= self->sizes[i];
    }
    bool cl_grad = grad->ndim == 4 && shimrt_k_strides_like_cl(grad) && !shimrt_is_contiguous(grad);
    if (gp < sp || (cl_grad && grad->sizes[1] != self->sizes[1]))
        return shimrt_fail(op,
                           "%s: grad_output has %lld planes, self %lld (PyTorch's kernel would "
                           "index out of bounds)",
                           op, (long long)gp, (long long)sp);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu__adaptive_avg_pool2d_backward(AtenTensorHandle grad_output,
                                                        AtenTensorHandle self,
                                                        AtenTensorHandle *ret0) {
    static const char op[] = "_adaptive_avg_pool2d_backward";
    if (shimrt_k_check_cpu(op, self, "self") ||
        shimrt_k_check_cpu(op, grad_output, "grad_output") ||
        shimrt_k_check_dtype(op, self, "self") ||
        bp_adaptive_check(op, "adaptive_avg_pool2d_backward", 2, grad_output, self))
        return AOTI_TORCH_FAILURE;
    if (grad_output->dtype != self->dtype)
        return shimrt_fail(op,
                           "adaptive_avg_pool2d_backward_out_cpu_template: Expected dtype %s for "
                           "`grad_output` but got dtype %s",
                           shimrt_dtype_name(self->dtype), shimrt_dtype_name(grad_output->dtype));
    if (bp_dtype(op, "adaptive_avg_pool2d_backward", self->dtype, false) ||
        bp_planes_fit(op, grad_output, self))
        return AOTI_TORCH_FAILURE;
    bp_ctx c = {0};
    c.kind = BP_ADAVG;
    return bp_run(op, &c, grad_output, self, NULL, ret0);
}

static AOTITorchError bp_geom3(const char *op, bp_ctx *c, AtenTensorHandle self,
                               AtenTensorHandle grad, AtenTensorHandle indices);

/* adaptive_max_pool2d/3d_backward (nsp 2 or 3): grad_output (nsp + 1)-d or (nsp + 2)-d with
 * non-empty non-batch dims, self as it, indices of grad_output's sizes (int64, each inside
 * its plane: PyTorch's kernel adds at -1 too), the float dtypes. */
static AOTITorchError admax_backward(const char *op, int nsp, AtenTensorHandle grad_output,
                                     AtenTensorHandle self, AtenTensorHandle indices,
                                     AtenTensorHandle *ret0) {
    const char *gname = nsp == 2 ? "grad_output" : "gradOutput";
    char b1[128], b2[128];
    if (shimrt_k_check_cpu(op, self, "self") ||
        shimrt_k_check_cpu(op, grad_output, "grad_output") ||
        shimrt_k_check_cpu(op, indices, "indices") || shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    int64_t nd = grad_output->ndim;
    if (nd != nsp + 1 && nd != nsp + 2)
        return shimrt_fail(op,
                           nsp == 2 ? "adaptive_max_pooling2d_backward(): Expected 3D or 4D "
                                      "grad_output, but got: %s"
                                    : "adaptive_max_pool3d_backward(): Expected 4D or 5D "
                                      "gradOutput, but got: %s",
                           shimrt_k_fmt_shape(b1, sizeof b1, nd, grad_output->sizes));
    if (bp_adaptive_check(op, op, nsp, grad_output, self) ||
        bp_same_dtype(op, self, grad_output, gname))
        return AOTI_TORCH_FAILURE;
    bool same = indices->ndim == nd;
    for (int64_t i = 0; same && i < nd; i++) same = indices->sizes[i] == grad_output->sizes[i];
    if (!same)
        return shimrt_fail(op, "expected sizes %s for `%s` but got sizes %s",
                           shimrt_k_fmt_shape(b1, sizeof b1, indices->ndim, indices->sizes), gname,
                           shimrt_k_fmt_shape(b2, sizeof b2, nd, grad_output->sizes));
    if (bp_dtype(op, op, self->dtype, false)) return AOTI_TORCH_FAILURE;
    if (bp_long(op, indices)) return AOTI_TORCH_FAILURE;
    bp_ctx c = {0};
    c.kind = BP_ADMAX;
    if (nsp == 3) {
        c.plain = true; /* (PyTorch 2.15: contiguous for a channels-last self too) */
        if (bp_geom3(op, &c, self, grad_output, indices)) return AOTI_TORCH_FAILURE;
    } else if (bp_planes_fit(op, grad_output, self)) {
        return AOTI_TORCH_FAILURE;
    }
    return bp_run(op, &c, grad_output, self, indices, ret0);
}

AOTITorchError shimrt_cpu_adaptive_max_pool2d_backward(AtenTensorHandle grad_output,
                                                       AtenTensorHandle self,
                                                       AtenTensorHandle indices,
                                                       AtenTensorHandle *ret0) {
    return admax_backward("adaptive_max_pool2d_backward", 2, grad_output, self, indices, ret0);
}

/* replication_pad1d/2d_backward: PyTorch's checks (the padding's length; 2-d: self 3-d or 4-d
 * with non-empty non-batch dims; grad_output's channel and padded sizes), then the sum of
 * grad_output over the positions that replicate each input element, in output order. As
 * PyTorch's kernel, a self of more dims than dim + 2 (which only replication_pad1d_backward
 * takes) is read as size(0) planes of its size(1) (the rest of the result zero). grad_output
 * must hold every plane read and self every plane written (PyTorch would go past them). */
static AOTITorchError reppad_backward(const char *op, int dim, AtenTensorHandle grad,
                                      AtenTensorHandle self, const int64_t *padding, int64_t n,
                                      AtenTensorHandle *ret0) {
    /* (every dtype passes here: an empty self gives an empty result of any dtype, the kernel
     * takes the floating ones and complex64/128 (c10::complex sums), the others are refused
     * below with PyTorch's message) */
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, grad, "grad_output"))
        return AOTI_TORCH_FAILURE;
    if (n != 2 * dim)
        return shimrt_fail(op, "padding size is expected to be %d, but got: %lld", 2 * dim,
                           (long long)n);
    int64_t nd = self->ndim;
    char buf[128];
    if (dim == 2) {
        bool batch = nd == 4, valid = batch || nd == 3;
        for (int64_t d = batch ? 1 : 0; valid && d < nd; d++) valid = self->sizes[d] != 0;
        if (!valid)
            return shimrt_fail(op,
                               "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                               "and other non-zero dimensions for input, but got: %s",
                               shimrt_k_fmt_shape(buf, sizeof buf, nd, self->sizes));
    }
    /* pad_backward_shape_check: the channel dim counted from self's end, a negative one
     * read from grad_output's end (a dim past the start: PyTorch's "Dimension out of
     * range") */
    int64_t cd = nd - dim - 1;
    if (cd < -nd || cd < -grad->ndim || cd >= grad->ndim || nd == 0)
        return shimrt_fail(
            op, "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
            (long long)-(nd ? nd : 1), (long long)(nd ? nd - 1 : 0), (long long)cd);
    int64_t sc = self->sizes[cd < 0 ? cd + nd : cd],
            gc = grad->sizes[cd < 0 ? cd + grad->ndim : cd];
    if (sc != gc)
        return shimrt_fail(op, "grad_output channel unexpected. Expected: %lld, Got: %lld",
                           (long long)sc, (long long)gc);
    static const char *const lab[] = {"width", "height"};
    int64_t osz[2] = {1, 1};
    for (int i = 0; i < dim; i++) {
        /* (grad_output's size at self's dim index, counted from the start: measured) */
        int64_t d = nd - 1 - i, gd = d;
        if (gd >= grad->ndim)
            return shimrt_fail(
                op,
                "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                (long long)-grad->ndim, (long long)grad->ndim - 1, (long long)d);
        if (__builtin_add_overflow(self->sizes[d], padding[2 * i], &osz[i]) ||
            __builtin_add_overflow(osz[i], padding[2 * i + 1], &osz[i]) ||
            osz[i] != grad->sizes[gd])
            return shimrt_fail(op, "grad_output %s unexpected. Expected: %lld, Got: %lld", lab[i],
                               (long long)osz[i], (long long)grad->sizes[gd]);
    }
    /* PaddingParams: batch mode when self has dim + 2 dims (N x C planes), else size(0)
     * planes; the spatial sizes are the dims after those (of grad_output too) */
    int64_t off = nd == dim + 2 ? 2 : 1, last = off + dim - 1;
    bp_ctx c = {0};
    c.kind = BP_REPPAD;
    c.planes = nd == dim + 2 ? self->sizes[0] * self->sizes[1] : self->sizes[0];
    c.in[2] = last < nd ? self->sizes[last] : 0;
    c.in[1] = dim == 2 && off < nd ? self->sizes[off] : 1;
    c.out[2] = last < grad->ndim ? grad->sizes[last] : -1;
    c.out[1] = dim == 2 ? (off < grad->ndim ? grad->sizes[off] : -1) : 1;
    c.p[2] = padding[0];
    c.p[1] = dim == 2 ? padding[2] : 0;
    c.geom = true;
    c.plain = dim == 1; /* (replication_pad1d_backward's meta: self's options, no format) */
    c.planes = nd == dim + 2 ? self->sizes[0] * self->sizes[1] : self->sizes[0];
    if (shimrt_numel(self) == 0) { /* nothing to write (the planes may not be empty) */
        c.planes = 0;
        return bp_run(op, &c, grad, self, NULL, ret0);
    }
    if (grad->dtype != SHIMRT_COMPLEX64 && grad->dtype != SHIMRT_COMPLEX128 &&
        bp_dtype(op, dim == 1 ? "replication_pad1d_backward" : "replication_pad2d_backward",
                 grad->dtype, false))
        return AOTI_TORCH_FAILURE;
    if (grad->dtype != self->dtype)
        return shimrt_fail(op, "expected scalar type %s but found %s",
                           shimrt_dtype_torch_name(grad->dtype),
                           shimrt_dtype_torch_name(self->dtype));
    /* (a 1-d self of 1-d padding: PyTorch takes its size as the plane count) */
    if (c.out[2] < 0 || c.out[1] < 0 || last >= nd ||
        shimrt_numel(grad) < c.planes * c.out[1] * c.out[2] ||
        c.planes * c.in[1] * c.in[2] > shimrt_numel(self))
        return shimrt_fail(
            op,
            "%s: grad_output or self has fewer planes than the kernel reads (PyTorch's "
            "kernel would index out of bounds)",
            op);
    return bp_run(op, &c, grad, self, NULL, ret0);
}

AOTITorchError shimrt_cpu_replication_pad1d_backward(AtenTensorHandle grad_output,
                                                     AtenTensorHandle self, const int64_t *padding,
                                                     int64_t padding_len_, AtenTensorHandle *ret0) {
    return reppad_backward("replication_pad1d_backward", 1, grad_output, self, padding,
                           padding_len_, ret0);
}

AOTITorchError shimrt_cpu_replication_pad2d_backward(AtenTensorHandle grad_output,
                                                     AtenTensorHandle self, const int64_t *padding,
                                                     int64_t padding_len_, AtenTensorHandle *ret0) {
    return reppad_backward("replication_pad2d_backward", 2, grad_output, self, padding,
                           padding_len_, ret0);
}

/* ---- 3-d: max_pool3d_with_indices_backward, avg_pool3d_backward,
 * _adaptive_avg_pool3d_backward, adaptive_max_pool3d_backward ------------------------------ */

/* PyTorch's pool3d_shape_check (its messages; fn names the op in some), then the backward's
 * dim checks of grad_output (and indices): dims -4..-1 = (channels, o[0], o[1], o[2]). */
static AOTITorchError bp_pool3d_check(const char *op, const char *fn, const bp_ctx *c,
                                      const int64_t *dl, const int64_t *o, bool input_size,
                                      AtenTensorHandle self, AtenTensorHandle grad,
                                      AtenTensorHandle indices) {
    const int64_t *k = c->k, *s = c->s, *p = c->p, *in = c->in;
    int64_t nd = self->ndim;
    char buf[128];
    if (k[0] <= 0 || k[1] <= 0 || k[2] <= 0)
        return shimrt_fail(
            op, "kernel size should be greater than zero, but got kT: %lld kH: %lld kW: %lld",
            (long long)k[0], (long long)k[1], (long long)k[2]);
    if (s[0] <= 0 || s[1] <= 0 || s[2] <= 0)
        return shimrt_fail(op,
                           "stride should be greater than zero, but got dT: %lld dH: %lld dW: %lld",
                           (long long)s[0], (long long)s[1], (long long)s[2]);
    if (dl[0] <= 0 || dl[1] <= 0 || dl[2] <= 0)
        return shimrt_fail(op,
                           "dilation should be greater than zero, but got dilationT: %lld "
                           "dilationH: %lld dilationW: %lld",
                           (long long)dl[0], (long long)dl[1], (long long)dl[2]);
    if (nd != 4 && nd != 5)
        return shimrt_fail(op, "%s: Expected 4D or 5D tensor for input, but got: %s", fn,
                           shimrt_k_fmt_shape(buf, sizeof buf, nd, self->sizes));
    for (int64_t i = nd == 5 ? 1 : 0; i < nd; i++)
        if (self->sizes[i] <= 0)
            return shimrt_fail(op,
                               "%s: Expected input's non-batch dimensions to have positive "
                               "length, but input has a shape of %s and non-batch dimension "
                               "%lld has length zero!",
                               fn, shimrt_k_fmt_shape(buf, sizeof buf, nd, self->sizes),
                               (long long)self->sizes[i]);
    if (input_size && (in[0] < k[0] || in[1] < k[1] || in[2] < k[2]))
        return shimrt_fail(op,
                           "input image (T: %lld H: %lld W: %lld) smaller than kernel size (kT: "
                           "%lld kH: %lld kW: %lld)",
                           (long long)in[0], (long long)in[1], (long long)in[2], (long long)k[0],
                           (long long)k[1], (long long)k[2]);
    if (k[0] / 2 < p[0] || k[2] / 2 < p[2] || k[1] / 2 < p[1])
        return shimrt_fail(op,
                           "pad should be smaller than or equal to half of effective kernel "
                           "size, but got padT: %lld padW: %lld padH: %lld effectiveKT: %lld "
                           "effectiveKW: %lld effectiveKH: %lld",
                           (long long)p[0], (long long)p[2], (long long)p[1],
                           (long long)((k[0] - 1) * dl[0] + 1), (long long)((k[2] - 1) * dl[2] + 1),
                           (long long)((k[1] - 1) * dl[1] + 1));
    int64_t C = self->sizes[nd - 4];
    if (o[0] < 1 || o[1] < 1 || o[2] < 1)
        return shimrt_fail(op,
                           "Given input size: (%lldx%lldx%lldx%lld). Calculated output size: "
                           "(%lldx%lldx%lldx%lld). Output size is too small",
                           (long long)C, (long long)in[0], (long long)in[1], (long long)in[2],
                           (long long)C, (long long)o[0], (long long)o[1], (long long)o[2]);
    AtenTensorHandle ts[2] = {grad, indices};
    for (int t = 0; t < 2; t++) {
        if (!ts[t]) continue;
        if (dim_size(op, ts[t], nd, nd - 4, C)) return AOTI_TORCH_FAILURE;
        for (int i = 0; i < 3; i++)
            if (dim_size(op, ts[t], nd, nd - 3 + i, o[i])) return AOTI_TORCH_FAILURE;
    }
    return AOTI_TORCH_SUCCESS;
}

/* The planes of a 4-d / 5-d self; grad_output (and indices) must hold them (PyTorch's 3-d
 * kernels do not check the batch and would read past a smaller one). */
static AOTITorchError bp_geom3(const char *op, bp_ctx *c, AtenTensorHandle self,
                               AtenTensorHandle grad, AtenTensorHandle indices) {
    int64_t nd = self->ndim;
    c->geom = c->three = true;
    c->planes = nd == 5 ? self->sizes[0] * self->sizes[1] : self->sizes[0];
    for (int i = 0; i < 3; i++) {
        c->in[i] = self->sizes[nd - 3 + i];
        c->out[i] = grad->sizes[grad->ndim - 3 + i];
    }
    int64_t need = c->planes * c->out[0] * c->out[1] * c->out[2];
    if (shimrt_numel(grad) < need || (indices && shimrt_numel(indices) < need))
        return shimrt_fail(
            op,
            "%s: grad_output or indices has fewer planes than self (PyTorch's kernel "
            "would index out of bounds)",
            op);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_max_pool3d_with_indices_backward(
    AtenTensorHandle grad_output, AtenTensorHandle self, const int64_t *kernel_size,
    int64_t kernel_size_len_, const int64_t *stride, int64_t stride_len_, const int64_t *padding,
    int64_t padding_len_, const int64_t *dilation, int64_t dilation_len_, int32_t ceil_mode,
    AtenTensorHandle indices, AtenTensorHandle *ret0) {
    static const char op[] = "max_pool3d_with_indices_backward";
    (void)ceil_mode; /* (the output sizes are grad_output's) */
    bp_ctx c = {0};
    int64_t dl[3], o[3];
    if (bp_list("max_pool3d: kernel_size must either be a single int, or a tuple of three ints",
                kernel_size, kernel_size_len_, NULL, 3, c.k) ||
        bp_list("max_pool3d: stride must either be omitted, a single int, or a tuple of three "
                "ints",
                stride, stride_len_, c.k, 3, c.s) ||
        bp_list("max_pool3d: padding must either be a single int, or a tuple of three ints",
                padding, padding_len_, NULL, 3, c.p) ||
        bp_list("max_pool3d: dilation must be either a single int, or a tuple of three ints",
                dilation, dilation_len_, NULL, 3, dl))
        return AOTI_TORCH_FAILURE;
    if (shimrt_k_check_cpu(op, self, "self") ||
        shimrt_k_check_cpu(op, grad_output, "grad_output") ||
        shimrt_k_check_cpu(op, indices, "indices") || shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    if (self->ndim != 4 && self->ndim != 5)
        return shimrt_fail(op, "non-empty 4D or 5D (batch mode) tensor expected for input");
    if (bp_same_dtype(op, self, grad_output, "gradOutput")) return AOTI_TORCH_FAILURE;
    if (grad_output->ndim < 3)
        return shimrt_fail(
            op, "Dimension out of range (expected to be in range of [%lld, %lld], but got -3)",
            (long long)-(grad_output->ndim ? grad_output->ndim : 1),
            (long long)(grad_output->ndim ? grad_output->ndim - 1 : 0));
    for (int i = 0; i < 3; i++) {
        c.in[i] = self->sizes[self->ndim - 3 + i];
        o[i] = grad_output->sizes[grad_output->ndim - 3 + i];
    }
    if (bp_pool3d_check(op, "max_pool3d_with_indices_backward()", &c, dl, o, false, self,
                        grad_output, indices) ||
        bp_dtype(op, "max_pool3d_backward", self->dtype, false))
        return AOTI_TORCH_FAILURE;
    if (bp_long(op, indices)) return AOTI_TORCH_FAILURE;
    c.kind = BP_MAX;
    if (bp_geom3(op, &c, self, grad_output, indices)) return AOTI_TORCH_FAILURE;
    return bp_run(op, &c, grad_output, self, indices, ret0);
}

AOTITorchError shimrt_cpu_avg_pool3d_backward(AtenTensorHandle grad_output, AtenTensorHandle self,
                                              const int64_t *kernel_size, int64_t kernel_size_len_,
                                              const int64_t *stride, int64_t stride_len_,
                                              const int64_t *padding, int64_t padding_len_,
                                              int32_t ceil_mode, int32_t count_include_pad,
                                              int64_t *divisor_override, AtenTensorHandle *ret0) {
    static const char op[] = "avg_pool3d_backward";
    bp_ctx c = {0};
    static const int64_t one[3] = {1, 1, 1};
    int64_t o[3];
    if (bp_list("avg_pool3d: kernel_size must be a single int, or a tuple of three ints",
                kernel_size, kernel_size_len_, NULL, 3, c.k) ||
        bp_list("avg_pool3d: stride must be omitted, a single int, or a tuple of three ints",
                stride, stride_len_, c.k, 3, c.s) ||
        bp_list("avg_pool3d: padding must be a single int, or a tuple of three ints", padding,
                padding_len_, NULL, 3, c.p))
        return AOTI_TORCH_FAILURE;
    if (divisor_override && *divisor_override == 0)
        return shimrt_fail(op, "divisor must be not zero");
    if (shimrt_k_check_cpu(op, self, "self") ||
        shimrt_k_check_cpu(op, grad_output, "grad_output") ||
        shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    if (self->ndim != 4 && self->ndim != 5)
        return shimrt_fail(op, "non-empty 4D or 5D (batch mode) tensor expected for input");
    for (int i = 0; i < 3; i++) {
        c.in[i] = self->sizes[self->ndim - 3 + i];
        if (bp_out_size(op, c.in[i], c.k[i], c.p[i], c.s[i], 1, ceil_mode != 0, &o[i]))
            return AOTI_TORCH_FAILURE;
    }
    if (bp_pool3d_check(op, "avg_pool3d_backward()", &c, one, o, true, self, grad_output, NULL) ||
        bp_dtype(op, "avg_pool3d_backward_out_frame", self->dtype, true))
        return AOTI_TORCH_FAILURE;
    if (grad_output->dtype != self->dtype)
        return shimrt_fail(op, "expected scalar type %s but found %s",
                           shimrt_dtype_torch_name(self->dtype),
                           shimrt_dtype_torch_name(grad_output->dtype));
    if (self->dtype == SHIMRT_BFLOAT16 || self->dtype == SHIMRT_FLOAT16)
        return shimrt_fail(op, "\"avg_pool3d_backward_out_frame\" not implemented for '%s'",
                           shimrt_dtype_torch_name(self->dtype));
    c.kind = BP_AVG;
    c.plain = true; /* (PyTorch 2.15: contiguous for a channels-last self too) */
    c.include_pad = count_include_pad != 0;
    c.divisor = divisor_override ? *divisor_override : 0;
    if (bp_geom3(op, &c, self, grad_output, NULL)) return AOTI_TORCH_FAILURE;
    return bp_run(op, &c, grad_output, self, NULL, ret0);
}

AOTITorchError shimrt_cpu__adaptive_avg_pool3d_backward(AtenTensorHandle grad_output,
                                                        AtenTensorHandle self,
                                                        AtenTensorHandle *ret0) {
    static const char op[] = "_adaptive_avg_pool3d_backward";
    static const char fn[] = "adaptive_avg_pool3d_backward_out_cpu_template";
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, grad_output, "grad_output"))
        return AOTI_TORCH_FAILURE;
    /* PyTorch's adaptive_pool_empty_output_check comes first */
    for (int64_t i = 1; i < grad_output->ndim; i++)
        if (grad_output->sizes[i] <= 0) {
            char buf[128];
            return shimrt_fail(
                op,
                "adaptive_avg_pool3d_backward(): Expected grad_output to have non-zero size for "
                "non-batch dimensions, but grad_output has sizes %s with dimension %lld being "
                "empty",
                shimrt_k_fmt_shape(buf, sizeof buf, grad_output->ndim, grad_output->sizes),
                (long long)i);
        }
    if (shimrt_k_check_dtype(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (grad_output->ndim != self->ndim)
        return shimrt_fail(op,
                           "%s: Expected dimensions %lld for `gradOutput_` but got dimensions %lld",
                           fn, (long long)self->ndim, (long long)grad_output->ndim);
    if (self->ndim < 4)
        return shimrt_fail(
            op, "Dimension out of range (expected to be in range of [%lld, %lld], but got -4)",
            (long long)-(self->ndim ? self->ndim : 1),
            (long long)(self->ndim ? self->ndim - 1 : 0));
    if (self->ndim > 5) {
        char buf[128];
        return shimrt_fail(op,
                           "adaptive_avg_pool3d_backward(): Expected 4D or 5D tensor, but got %s",
                           shimrt_k_fmt_shape(buf, sizeof buf, self->ndim, self->sizes));
    }
    if (bp_dtype(op, "adaptive_avg_pool3d_backward_cpu", self->dtype, false))
        return AOTI_TORCH_FAILURE;
    if (grad_output->dtype != self->dtype)
        return shimrt_fail(op, "expected scalar type %s but found %s",
                           shimrt_dtype_torch_name(self->dtype),
                           shimrt_dtype_torch_name(grad_output->dtype));
    bp_ctx c = {0};
    c.kind = BP_ADAVG;
    c.plain = true;
    if (bp_geom3(op, &c, self, grad_output, NULL)) return AOTI_TORCH_FAILURE;
    return bp_run(op, &c, grad_output, self, NULL, ret0);
}

AOTITorchError shimrt_cpu_adaptive_max_pool3d_backward(AtenTensorHandle grad_output,
                                                       AtenTensorHandle self,
                                                       AtenTensorHandle indices,
                                                       AtenTensorHandle *ret0) {
    return admax_backward("adaptive_max_pool3d_backward", 3, grad_output, self, indices, ret0);
}

/* ---- upsample_linear1d_backward --------------------------------------------------------------
 * PyTorch's cpu_upsample_linear_backward: per plane, for each output position in order, its
 * two source positions and weights (area_pixel_compute_scale / _source_index,
 * guard_index_and_lambda, in opmath: float for float32 and the half types, double for float64)
 * and grad_output times each weight added to them in opmath; the half types accumulate in a
 * float buffer rounded once at the end. Values agree with PyTorch's within an ulp or two, not
 * bit for bit (its kernel's exact summation differs somewhere not yet found). */
typedef struct {
    const char *go;
    char *gi;
    int32_t dt;
    size_t es;
    int64_t iw, ow;
    bool align, f64;
    double scale; /* in opmath */
    double *acc;  /* iw sums (opmath values) */
} up_ctx;

/* v rounded to opmath (float unless f64) */
static double up_r(const up_ctx *c, double v) { return c->f64 ? v : (double)(float)v; }

/* Planes b..e (serial: one sum buffer). */
static void up_planes(const up_ctx *c, int64_t b, int64_t e) {
    double *acc = c->acc;
    for (int64_t p = b; p < e; p++) {
        char *gi = c->gi + (size_t)(p * c->iw) * c->es;
        const char *go = c->go + (size_t)(p * c->ow) * c->es;
        for (int64_t i = 0; i < c->iw; i++) acc[i] = 0;
        for (int64_t o = 0; o < c->ow; o++) {
            int64_t i0, i1;
            double l0, l1;
            if (c->ow == c->iw) {
                i0 = i1 = o;
                l0 = 1;
                l1 = 0;
            } else {
                double real = c->align
                                  ? up_r(c, c->scale * (double)o)
                                  : up_r(c, up_r(c, c->scale * up_r(c, (double)o + 0.5)) - 0.5);
                if (!c->align && real < 0) real = 0;
                int64_t f = (int64_t)floorf((float)real);
                i0 = f < c->iw - 1 ? f : c->iw - 1;
                l1 = up_r(c, real - (double)i0);
                l1 = l1 < 0 ? 0 : l1 > 1 ? 1 : l1;
                i1 = i0 + (i0 < c->iw - 1 ? 1 : 0);
                l0 = up_r(c, 1.0 - l1);
            }
            double g = shimrt_k_load_f64(go + (size_t)o * c->es, c->dt);
            acc[i0] = up_r(c, acc[i0] + up_r(c, l0 * g));
            acc[i1] = up_r(c, acc[i1] + up_r(c, l1 * g));
        }
        for (int64_t i = 0; i < c->iw; i++)
            shimrt_k_store_f64(gi + (size_t)i * c->es, c->dt, acc[i]);
    }
}

AOTITorchError shimrt_cpu_upsample_linear1d_backward(AtenTensorHandle grad_output,
                                                     const int64_t *output_size,
                                                     int64_t output_size_len_,
                                                     const int64_t *input_size,
                                                     int64_t input_size_len_, int32_t align_corners,
                                                     double *scales, AtenTensorHandle *ret0) {
    static const char op[] = "upsample_linear1d_backward";
    if (shimrt_k_check_cpu(op, grad_output, "grad_output") ||
        shimrt_k_check_dtype(op, grad_output, "grad_output"))
        return AOTI_TORCH_FAILURE;
    if (output_size_len_ != 1)
        return shimrt_fail(op, "It is expected output_size equals to 1, but got size %lld",
                           (long long)output_size_len_);
    if (input_size_len_ != 3)
        return shimrt_fail(op, "It is expected input_size equals to 3, but got size %lld",
                           (long long)input_size_len_);
    if (input_size[2] <= 0 || output_size[0] <= 0)
        return shimrt_fail(op,
                           "Input and output sizes should be greater than 0, but got input (W: "
                           "%lld) and output (W: %lld)",
                           (long long)input_size[2], (long long)output_size[0]);
    int64_t full[3] = {input_size[0], input_size[1], output_size[0]};
    for (int i = 0; i < 3; i++)
        if (dim_size(op, grad_output, 3, i, full[i])) return AOTI_TORCH_FAILURE;
    if (shimrt_k_check_size(op, input_size, 3) ||
        bp_dtype(op, "upsample_linear1d_backward", grad_output->dtype, false))
        return AOTI_TORCH_FAILURE;
    up_ctx c = {0};
    c.dt = grad_output->dtype;
    c.es = shimrt_dtype_size(c.dt);
    c.iw = input_size[2];
    c.ow = output_size[0];
    c.align = align_corners != 0;
    c.f64 = c.dt == SHIMRT_FLOAT64;
    /* area_pixel_compute_scale */
    if (c.align)
        c.scale =
            c.ow > 1 ? up_r(&c, up_r(&c, (double)(c.iw - 1)) / up_r(&c, (double)(c.ow - 1))) : 0;
    else if (scales && *scales > 0)
        c.scale = up_r(&c, 1.0 / *scales);
    else
        c.scale = up_r(&c, up_r(&c, (double)c.iw) / up_r(&c, (double)c.ow));
    AtenTensorHandle gi = shimrt_k_new(op, 3, input_size, c.dt);
    if (!gi) return AOTI_TORCH_FAILURE;
    int64_t planes = input_size[0] * input_size[1];
    if (planes > 0) {
        bool own = false;
        AtenTensorHandle g = bp_dense(op, grad_output, &own);
        c.acc = g ? malloc(sizeof(double) * (size_t)c.iw) : NULL;
        if (!c.acc) {
            if (own) shimrt_tensor_free(g);
            shimrt_tensor_free(gi);
            return g ? shimrt_fail(op, "out of memory") : AOTI_TORCH_FAILURE;
        }
        c.go = shimrt_data(g);
        c.gi = shimrt_data(gi);
        up_planes(&c, 0, planes);
        free(c.acc);
        if (own) shimrt_tensor_free(g);
    }
    *ret0 = gi;
    return AOTI_TORCH_SUCCESS;
}

/* ---- fractional_max_pool2d_backward, fractional_max_pool3d_backward -------------------------
 * PyTorch's FractionalMaxPool2d.cpp / 3d.cpp: grad_output added at the indices, plane by plane
 * in output order, in scalar_t (BP_MAX; an index outside the plane, -1 included, refused as
 * PyTorch's assertion refuses it). grad_input is contiguous, self's shape. PyTorch's 3-d kernel
 * reads past a grad_output or indices with fewer batches than self; refused here. */
static AOTITorchError frac_backward(const char *op, int nsp, AtenTensorHandle grad,
                                    AtenTensorHandle self, const int64_t *osz, int64_t osz_len,
                                    AtenTensorHandle indices, AtenTensorHandle *ret0) {
    static const char *const dim_names[3] = {"time", "height", "width"};
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, grad, "grad_output") ||
        shimrt_k_check_cpu(op, indices, "indices") || shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    int64_t nd = self->ndim, first = nd == nsp + 2 ? 1 : 0; /* the plane dim */
    if (first + nsp >= nd) /* PyTorch reads self.size(first + nsp) */
        return shimrt_fail(
            op, "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
            (long long)-(nd ? nd : 1), (long long)(nd ? nd - 1 : 0), (long long)(first + nsp));
    bool fits = osz_len == nsp && grad->ndim == nd;
    for (int64_t i = 0; fits && i < nd; i++)
        fits = grad->sizes[i] == (i <= first ? self->sizes[i] : osz[i - first - 1]);
    if (nsp == 2 && !fits)
        return shimrt_fail(op, "fractional_max_pool2d_backward(): gradOutput sizes unexpected");
    if (nsp == 2 && (indices->ndim != nd ||
                     memcmp(indices->sizes, grad->sizes, sizeof(int64_t) * (size_t)nd) != 0))
        return shimrt_fail(op, "fractional_max_pool2d_backward(): indices sizes unexpected");
    if (nsp == 3 && osz_len != 3)
        return shimrt_fail(op, "fractional_max_pool3d_backward_out(): output_size must have 3 "
                               "values");
    for (int i = 0; nsp == 3 && i < 3; i++)
        if (grad->ndim <= first + 1 + i || grad->sizes[first + 1 + i] != osz[i])
            return shimrt_fail(op, "fractional_max_pool3d_backward_out(): gradOutput %s unexpected",
                               dim_names[i]);
    const char *kernel = nsp == 2 ? "fractional_max_pool2d_backward_out_frame"
                                  : "fractional_max_pool3d_backward_out_frame";
    if (bp_dtype(op, kernel, self->dtype, false)) return AOTI_TORCH_FAILURE;
    if (grad->dtype != self->dtype)
        return shimrt_fail(op, "expected scalar type %s but found %s",
                           shimrt_dtype_torch_name(self->dtype),
                           shimrt_dtype_torch_name(grad->dtype));
    if (bp_long(op, indices)) return AOTI_TORCH_FAILURE;
    bp_ctx c = {0};
    c.kind = BP_MAX;
    c.strict = c.plain = true;
    if (nsp == 3) {
        if (bp_geom3(op, &c, self, grad, indices)) return AOTI_TORCH_FAILURE;
    }
    return bp_run(op, &c, grad, self, indices, ret0);
}

AOTITorchError
shimrt_cpu_fractional_max_pool2d_backward(AtenTensorHandle grad_output, AtenTensorHandle self,
                                          const int64_t *kernel_size, int64_t kernel_size_len_,
                                          const int64_t *output_size, int64_t output_size_len_,
                                          AtenTensorHandle indices, AtenTensorHandle *ret0) {
    (void)kernel_size; /* (PyTorch's backward does not read it) */
    (void)kernel_size_len_;
    return frac_backward("fractional_max_pool2d_backward", 2, grad_output, self, output_size,
                         output_size_len_, indices, ret0);
}

AOTITorchError
shimrt_cpu_fractional_max_pool3d_backward(AtenTensorHandle grad_output, AtenTensorHandle self,
                                          const int64_t *kernel_size, int64_t kernel_size_len_,
                                          const int64_t *output_size, int64_t output_size_len_,
                                          AtenTensorHandle indices, AtenTensorHandle *ret0) {
    (void)kernel_size;
    (void)kernel_size_len_;
    return frac_backward("fractional_max_pool3d_backward", 3, grad_output, self, output_size,
                         output_size_len_, indices, ret0);
}

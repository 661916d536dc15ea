/* runtime/cpu/conv.c: convolution (1-d, 2-d and 3-d; groups, stride, padding, dilation;
 * transposed with output_padding), aoti_torch_cpu_convolution.
 *
 * float32, bfloat16 and float16 run on oneDNN (libdnnl, the library behind PyTorch's own CPU
 * convolutions): a (de)convolution primitive with the layouts oneDNN picks for this machine
 * (format "any"), the tensors reordered in and out of them (any strides: plain, transposed,
 * channels-last). The half types are widened to float32 first and the result rounded once,
 * as PyTorch's float accumulation does. float64, which oneDNN lacks, and empty problems take
 * a direct loop accumulating in double (integer convolutions too, as PyTorch has them: every
 * integral type forward, int64 transposed). A 2-d result is channels-last when the input or the
 * weight is (PyTorch's suggest_memory_format rule), else contiguous. oneDNN runs its OpenMP
 * threads at the runtime's thread count (SHIMRT_NUM_THREADS). */
#include <dnnl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "aoti_ops.h"
#include "conv_internal.h"
#include "cpu_kernels.h"

void omp_set_num_threads(int n);

/* PyTorch's is_channels_last_strides_2d / _3d: the dims visited C, W, H, (D,) N must have
 * non-decreasing strides. */
bool shimrt_k_strides_like_cl(const struct AtenTensorOpaque *t) {
    static const int o4[] = {1, 3, 2, 0}, o5[] = {1, 4, 3, 2, 0};
    if (t->ndim != 4 && t->ndim != 5) return false;
    const int *o = t->ndim == 4 ? o4 : o5;
    int64_t min = 0;
    if (t->strides[1] == 0) return false;
    for (int i = 0; i < t->ndim; i++) {
        int d = o[i];
        if (t->sizes[d] == 0 || t->strides[d] < min) return false;
        if (d == 0 && min == t->strides[1]) return false;
        min = t->strides[d];
        if (t->sizes[d] > 1) min *= t->sizes[d];
    }
    return true;
}

/* ---- the direct loop (double accumulation) ---------------------------------------------- */

/* x (a float64 contiguous copy of input), w (float64 contiguous weight), b (bias or NULL),
 * y (float64 contiguous output [n, oc, out...]). Spatial dims padded to 3 (size 1). */
static void direct_conv(const conv_p *q, const double *x, const double *w, const double *b,
                        double *y) {
    int64_t cg = q->c / q->g, ocg = q->oc / q->g;
    int64_t isz = q->in[0] * q->in[1] * q->in[2], osz = q->out[0] * q->out[1] * q->out[2];
    int64_t ksz = q->k[0] * q->k[1] * q->k[2];
    for (int64_t i = 0; i < q->n * q->oc * osz; i++) y[i] = b ? b[(i / osz) % q->oc] : 0.0;
    for (int64_t n = 0; n < q->n; n++)
        for (int64_t g = 0; g < q->g; g++)
            for (int64_t ci = 0; ci < cg; ci++) {
                int64_t c = g * cg + ci;
                const double *xc = x + (n * q->c + c) * isz;
                for (int64_t oj = 0; oj < ocg; oj++) {
                    int64_t o = g * ocg + oj;
                    double *yo = y + (n * q->oc + o) * osz;
                    /* weight [oc, cg, k] or, transposed, [c, ocg, k] */
                    const double *wk =
                        q->transposed ? w + (c * ocg + oj) * ksz : w + (o * cg + ci) * ksz;
                    for (int64_t k0 = 0; k0 < q->k[0]; k0++)
                        for (int64_t k1 = 0; k1 < q->k[1]; k1++)
                            for (int64_t k2 = 0; k2 < q->k[2]; k2++) {
                                double wv = wk[(k0 * q->k[1] + k1) * q->k[2] + k2];
                                if (!q->transposed) {
                                    for (int64_t a0 = 0; a0 < q->out[0]; a0++) {
                                        int64_t i0 = a0 * q->s[0] - q->p[0] + k0 * q->d[0];
                                        if (i0 < 0 || i0 >= q->in[0]) continue;
                                        for (int64_t a1 = 0; a1 < q->out[1]; a1++) {
                                            int64_t i1 = a1 * q->s[1] - q->p[1] + k1 * q->d[1];
                                            if (i1 < 0 || i1 >= q->in[1]) continue;
                                            for (int64_t a2 = 0; a2 < q->out[2]; a2++) {
                                                int64_t i2 = a2 * q->s[2] - q->p[2] + k2 * q->d[2];
                                                if (i2 < 0 || i2 >= q->in[2]) continue;
                                                yo[(a0 * q->out[1] + a1) * q->out[2] + a2] +=
                                                    wv * xc[(i0 * q->in[1] + i1) * q->in[2] + i2];
                                            }
                                        }
                                    }
                                } else {
                                    for (int64_t a0 = 0; a0 < q->in[0]; a0++) {
                                        int64_t o0 = a0 * q->s[0] - q->p[0] + k0 * q->d[0];
                                        if (o0 < 0 || o0 >= q->out[0]) continue;
                                        for (int64_t a1 = 0; a1 < q->in[1]; a1++) {
                                            int64_t o1 = a1 * q->s[1] - q->p[1] + k1 * q->d[1];
                                            if (o1 < 0 || o1 >= q->out[1]) continue;
                                            for (int64_t a2 = 0; a2 < q->in[2]; a2++) {
                                                int64_t o2 = a2 * q->s[2] - q->p[2] + k2 * q->d[2];
                                                if (o2 < 0 || o2 >= q->out[2]) continue;
                                                yo[(o0 * q->out[1] + o1) * q->out[2] + o2] +=
                                                    wv * xc[(a0 * q->in[1] + a1) * q->in[2] + a2];
                                            }
                                        }
                                    }
                                }
                            }
                }
            }
}

/* ---- oneDNN ----------------------------------------------------------------------------- */
static dnnl_engine_t engine;
static pthread_once_t engine_once = PTHREAD_ONCE_INIT;
static void engine_init(void) {
    if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success) engine = NULL;
}

/* Runs one reorder from (md_from, from) into (md_to, to). */
static bool reorder(dnnl_stream_t st, const dnnl_memory_desc_t *mf, dnnl_memory_t from,
                    const dnnl_memory_desc_t *mt, dnnl_memory_t to) {
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t r = NULL;
    bool ok =
        dnnl_reorder_primitive_desc_create(&pd, mf, engine, mt, engine, NULL) == dnnl_success &&
        dnnl_primitive_create(&r, pd) == dnnl_success;
    if (ok) {
        dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
        ok = dnnl_primitive_execute(r, st, 2, args) == dnnl_success;
    }
    if (r) dnnl_primitive_destroy(r);
    if (pd) dnnl_primitive_desc_destroy(pd);
    return ok;
}

/* A user memory (md over data) and, when the primitive wants another layout (want), a
 * library-allocated memory of that layout (*use; filled by a reorder when in is set). */
typedef struct {
    dnnl_memory_desc_t md;
    dnnl_memory_t user, prim;
} dmem;

static bool dmem_setup(dmem *m, dnnl_stream_t st, const dnnl_memory_desc_t *want, void *data,
                       bool in) {
    if (dnnl_memory_create(&m->user, &m->md, engine, data) != dnnl_success) return false;
    if (dnnl_memory_desc_equal(&m->md, want)) {
        m->prim = m->user;
        return true;
    }
    if (dnnl_memory_create(&m->prim, want, engine, DNNL_MEMORY_ALLOCATE) != dnnl_success)
        return false;
    return !in || reorder(st, &m->md, m->user, want, m->prim);
}

static void dmem_free(dmem *m) {
    if (m->prim && m->prim != m->user) dnnl_memory_destroy(m->prim);
    if (m->user) dnnl_memory_destroy(m->user);
}

static void md_strided(dnnl_memory_desc_t *md, int nd, const int64_t *dims,
                       const int64_t *strides) {
    dnnl_dims_t d, s;
    for (int i = 0; i < nd; i++) {
        d[i] = dims[i];
        s[i] = strides[i];
    }
    dnnl_memory_desc_init_by_strides(md, nd, d, dnnl_f32, s);
}

/* float32 convolution on oneDNN. x, w, y: float32 tensors (any strides), b: float32 [oc]
 * contiguous or NULL. false when oneDNN refuses the problem (the caller takes the loop). */
static bool onednn_conv(const conv_p *q, AtenTensorHandle x, AtenTensorHandle w, const float *b,
                        AtenTensorHandle y) {
    pthread_once(&engine_once, engine_init);
    if (!engine) return false;
    int nd = q->nsp + 2;
    dmem src = {0}, wei = {0}, dst = {0}, bia = {0};
    md_strided(&src.md, nd, x->sizes, x->strides);
    md_strided(&dst.md, nd, y->sizes, y->strides);
    /* weights: [oc, ic, k] (+ a leading group dim) in oneDNN's order */
    int64_t wd[6], ws[6];
    int wn = 0;
    int64_t cg = q->c / q->g, ocg = q->oc / q->g;
    if (q->g > 1) {
        wd[wn] = q->g;
        ws[wn++] = (q->transposed ? cg : ocg) * w->strides[0];
    }
    wd[wn] = ocg;
    ws[wn++] = q->transposed ? w->strides[1] : w->strides[0];
    wd[wn] = cg;
    ws[wn++] = q->transposed ? w->strides[0] : w->strides[1];
    for (int i = 0; i < q->nsp; i++) {
        wd[wn] = q->k[3 - q->nsp + i];
        ws[wn++] = w->strides[2 + i];
    }
    if (q->g == 1) { /* without groups: [oc, ic] are the full counts */
        wd[0] = q->oc;
        wd[1] = q->c;
    }
    md_strided(&wei.md, wn, wd, ws);
    int64_t bd = q->oc, bs = 1;
    if (b) md_strided(&bia.md, 1, &bd, &bs);

    dnnl_memory_desc_t sa, wa, da, ba;
    dnnl_dims_t dims;
    for (int i = 0; i < nd; i++) dims[i] = x->sizes[i];
    dnnl_memory_desc_init_by_tag(&sa, nd, dims, dnnl_f32, dnnl_format_tag_any);
    for (int i = 0; i < nd; i++) dims[i] = y->sizes[i];
    dnnl_memory_desc_init_by_tag(&da, nd, dims, dnnl_f32, dnnl_format_tag_any);
    for (int i = 0; i < wn; i++) dims[i] = wd[i];
    dnnl_memory_desc_init_by_tag(&wa, wn, dims, dnnl_f32, dnnl_format_tag_any);
    dims[0] = q->oc;
    dnnl_memory_desc_init_by_tag(&ba, 1, dims, dnnl_f32, dnnl_a);

    dnnl_dims_t st, dl, pl, pr;
    for (int i = 0; i < q->nsp; i++) {
        int j = 3 - q->nsp + i;
        st[i] = q->s[j];
        dl[i] = q->d[j] - 1;
        pl[i] = q->p[j];
        /* oneDNN: dst = (src + pl + pr - ext) / s + 1 (forward, rounding down as PyTorch), and
         * dst = (src - 1) * s - pl - pr + ext (transposed: output_padding comes off pr) */
        pr[i] = q->p[j] - (q->transposed ? q->op[j] : 0);
    }
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t prim = NULL;
    dnnl_stream_t stream = NULL;
    bool ok;
    if (q->transposed) {
        dnnl_deconvolution_desc_t dd;
        ok = dnnl_dilated_deconvolution_forward_desc_init(
                 &dd, dnnl_forward_inference, dnnl_deconvolution_direct, &sa, &wa, b ? &ba : NULL,
                 &da, st, dl, pl, pr) == dnnl_success &&
             dnnl_primitive_desc_create(&pd, &dd, NULL, engine, NULL) == dnnl_success;
    } else {
        dnnl_convolution_desc_t cd;
        ok = dnnl_dilated_convolution_forward_desc_init(
                 &cd, dnnl_forward_inference, dnnl_convolution_direct, &sa, &wa, b ? &ba : NULL,
                 &da, st, dl, pl, pr) == dnnl_success &&
             dnnl_primitive_desc_create(&pd, &cd, NULL, engine, NULL) == dnnl_success;
    }
    ok = ok && dnnl_primitive_create(&prim, pd) == dnnl_success &&
         dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) == dnnl_success;
    if (ok) {
        omp_set_num_threads((int)shimrt_num_threads());
        ok = dmem_setup(&src, stream, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0),
                        shimrt_data(x), true) &&
             dmem_setup(&wei, stream, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0),
                        shimrt_data(w), true) &&
             (!b || dmem_setup(&bia, stream, &bia.md, (void *)b, true)) &&
             dmem_setup(&dst, stream, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0),
                        shimrt_data(y), false);
    }
    if (ok) {
        dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, src.prim},
                                   {DNNL_ARG_WEIGHTS, wei.prim},
                                   {DNNL_ARG_DST, dst.prim},
                                   {DNNL_ARG_BIAS, bia.prim}};
        ok = dnnl_primitive_execute(prim, stream, b ? 4 : 3, args) == dnnl_success &&
             (dst.prim == dst.user ||
              reorder(stream, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), dst.prim,
                      &dst.md, dst.user)) &&
             dnnl_stream_wait(stream) == dnnl_success;
    }
    dmem_free(&src);
    dmem_free(&wei);
    dmem_free(&dst);
    dmem_free(&bia);
    if (stream) dnnl_stream_destroy(stream);
    if (prim) dnnl_primitive_destroy(prim);
    if (pd) dnnl_primitive_desc_destroy(pd);
    return ok;
}

/* ---- checks and the entry point ----------------------------------------------------------- */

/* A parameter list expanded to nsp values (a single value repeats), PyTorch's message. */
static AOTITorchError expand(const char *op, const char *name, const int64_t *v, int64_t len,
                             int nsp, int64_t *out) {
    if (len != 1 && len != nsp)
        return shimrt_fail(op,
                           "expected %s to be a single integer value or a list of %d values to "
                           "match the convolution dimensions, but got %s of length %lld",
                           name, nsp, name, (long long)len);
    for (int i = 0; i < nsp; i++) out[3 - nsp + i] = v[len == 1 ? 0 : i];
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError conv_check(const char *op, AtenTensorHandle input, AtenTensorHandle weight,
                                 AtenTensorHandle bias, const int64_t *stride, int64_t stride_len,
                                 const int64_t *padding, int64_t padding_len,
                                 const int64_t *dilation, int64_t dilation_len, int32_t transposed,
                                 const int64_t *output_padding, int64_t output_padding_len,
                                 int64_t groups, conv_p *q) {
    if (shimrt_k_check_cpu(op, input, "input") || shimrt_k_check_cpu(op, weight, "weight") ||
        (bias && shimrt_k_check_cpu(op, bias, "bias")))
        return AOTI_TORCH_FAILURE;
    int64_t wd = weight->ndim;
    if (wd < 3 || wd > 5)
        return shimrt_fail(op, "weight should have at least three dimensions (and at most 5)");
    if (input->ndim != wd) {
        char b1[256], b2[256];
        return shimrt_fail(
            op,
            "Expected %lld-dimensional input for %lld-dimensional weight %s, but got "
            "%lld-dimensional input of size %s instead",
            (long long)wd, (long long)wd, shimrt_k_fmt_shape(b1, sizeof b1, wd, weight->sizes),
            (long long)input->ndim, shimrt_k_fmt_shape(b2, sizeof b2, input->ndim, input->sizes));
    }
    memset(q, 0, sizeof *q);
    q->nsp = (int)wd - 2;
    for (int i = 0; i < 3; i++) q->in[i] = q->k[i] = q->out[i] = q->s[i] = q->d[i] = 1;
    if (expand(op, "stride", stride, stride_len, q->nsp, q->s) ||
        expand(op, "padding", padding, padding_len, q->nsp, q->p) ||
        expand(op, "dilation", dilation, dilation_len, q->nsp, q->d))
        return AOTI_TORCH_FAILURE;
    if (transposed &&
        expand(op, "output_padding", output_padding, output_padding_len, q->nsp, q->op))
        return AOTI_TORCH_FAILURE;
    for (int i = 3 - q->nsp; i < 3; i++) {
        if (q->s[i] <= 0) return shimrt_fail(op, "non-positive stride is not supported");
        if (q->p[i] < 0) return shimrt_fail(op, "negative padding is not supported");
        if (q->d[i] <= 0) return shimrt_fail(op, "dilation should be greater than zero");
        if (q->op[i] < 0) return shimrt_fail(op, "negative output_padding is not supported");
        if (transposed && q->op[i] >= q->s[i] && q->op[i] >= q->d[i])
            return shimrt_fail(op, "output padding must be smaller than either stride or "
                                   "dilation");
    }
    if (groups <= 0) return shimrt_fail(op, "non-positive groups is not supported");
    q->g = groups;
    q->transposed = transposed != 0;
    q->n = input->sizes[0];
    q->c = input->sizes[1];
    int64_t w0 = weight->sizes[0], w1 = weight->sizes[1];
    char b1[256], b2[256];
    if (!transposed) {
        q->oc = w0;
        if (w0 % groups)
            return shimrt_fail(op,
                               "Given groups=%lld, expected weight to be divisible by %lld "
                               "at dimension 0, but got weight of size %s instead",
                               (long long)groups, (long long)groups,
                               shimrt_k_fmt_shape(b1, sizeof b1, wd, weight->sizes));
        if (q->c != w1 * groups)
            return shimrt_fail(op,
                               "Given groups=%lld, weight of size %s, expected input%s to have "
                               "%lld channels, but got %lld channels instead",
                               (long long)groups,
                               shimrt_k_fmt_shape(b1, sizeof b1, wd, weight->sizes),
                               shimrt_k_fmt_shape(b2, sizeof b2, input->ndim, input->sizes),
                               (long long)(w1 * groups), (long long)q->c);
    } else {
        q->oc = w1 * groups;
        if (q->c != w0)
            return shimrt_fail(op,
                               "Given transposed=1, weight of size %s, expected input%s to have "
                               "%lld channels, but got %lld channels instead",
                               shimrt_k_fmt_shape(b1, sizeof b1, wd, weight->sizes),
                               shimrt_k_fmt_shape(b2, sizeof b2, input->ndim, input->sizes),
                               (long long)w0, (long long)q->c);
        if (w0 % groups)
            return shimrt_fail(op,
                               "Given groups=%lld, expected weight to be divisible by %lld "
                               "at dimension 0",
                               (long long)groups, (long long)groups);
    }
    if (bias && (bias->ndim != 1 || bias->sizes[0] != q->oc))
        return shimrt_fail(op,
                           "Given weight of size %s, expected bias to be 1-dimensional with %lld "
                           "elements, but got bias of size %s instead",
                           shimrt_k_fmt_shape(b1, sizeof b1, wd, weight->sizes), (long long)q->oc,
                           shimrt_k_fmt_shape(b2, sizeof b2, bias->ndim, bias->sizes));
    for (int i = 0; i < q->nsp; i++) {
        int j = 3 - q->nsp + i;
        q->in[j] = input->sizes[2 + i];
        q->k[j] = weight->sizes[2 + i];
        if (!transposed) {
            int64_t ext = (q->k[j] - 1) * q->d[j] + 1;
            if (q->in[j] + 2 * q->p[j] < ext)
                return shimrt_fail(op,
                                   "Calculated padded input size per channel: (%lld). Kernel "
                                   "size: (%lld). Kernel size can't be greater than actual "
                                   "input size",
                                   (long long)(q->in[j] + 2 * q->p[j]), (long long)ext);
            q->out[j] = (q->in[j] + 2 * q->p[j] - ext) / q->s[j] + 1;
        } else {
            q->out[j] =
                (q->in[j] - 1) * q->s[j] - 2 * q->p[j] + (q->k[j] - 1) * q->d[j] + q->op[j] + 1;
            if (q->out[j] <= 0)
                return shimrt_fail(op,
                                   "Given input size per channel: (%lld). Calculated output "
                                   "size per channel: (%lld). Output size is too small",
                                   (long long)q->in[j], (long long)q->out[j]);
        }
    }
    int32_t dt = input->dtype;
    if (weight->dtype != dt)
        return shimrt_fail(op,
                           "Input type (%s) and weight type (%s) should be the same or input "
                           "should be a MKLDNN tensor and weight is a dense tensor",
                           shimrt_dtype_torch_name(dt), shimrt_dtype_torch_name(weight->dtype));
    if (bias && bias->dtype != dt)
        return shimrt_fail(op,
                           "Input type (%s) and bias type (%s) should be the same or input "
                           "should be a MKLDNN tensor and bias is a dense tensor",
                           shimrt_dtype_torch_name(dt), shimrt_dtype_torch_name(bias->dtype));
    /* integers: forward in every integral type, transposed in int64 only (PyTorch's slow
     * kernels); they take the direct loop */
    if ((q->n > 0 && (dt == SHIMRT_BOOL || !shimrt_k_dtype_ok(dt))) ||
        (q->n > 0 && transposed && !shimrt_k_is_floating(dt) && dt != SHIMRT_INT64))
        return shimrt_fail(op, "\"%s\" not implemented for '%s'",
                           transposed ? "slow_conv_transpose2d_out_cpu" : "slow_conv2d_cpu",
                           shimrt_dtype_torch_name(dt));
    bool dilated = q->d[0] > 1 || q->d[1] > 1 || q->d[2] > 1;
    if (q->n > 0 && !transposed && dilated && !shimrt_k_is_floating(dt) && dt != SHIMRT_INT64)
        return shimrt_fail(op, "\"slow_conv_dilated<>\" not implemented for '%s'",
                           shimrt_dtype_torch_name(dt));
    if (q->n > 0 && q->c == 0 && !transposed)
        return shimrt_fail(op, "Expected input to have non-zero channels");
    return AOTI_TORCH_SUCCESS;
}

/* A new float copy (dtype dt) of t with t's own layout kept when dense (dense strides
 * otherwise); contiguous when contig. */
static AtenTensorHandle widen(const char *op, AtenTensorHandle t, int32_t dt, bool contig) {
    int64_t st[SHIMRT_MAX_DIMS];
    if (!contig) shimrt_k_preserve_strides(t, st);
    AtenTensorHandle r =
        shimrt_tensor_empty(op, t->ndim, t->sizes, contig ? NULL : st, dt, SHIMRT_DEV_CPU, 0);
    if (r && shimrt_k_copy(op, r, t)) {
        shimrt_tensor_free(r);
        return NULL;
    }
    return r;
}

AOTITorchError shimrt_cpu_convolution(AtenTensorHandle input, AtenTensorHandle weight,
                                      AtenTensorHandle bias, const int64_t *stride,
                                      int64_t stride_len_, const int64_t *padding,
                                      int64_t padding_len_, const int64_t *dilation,
                                      int64_t dilation_len_, int32_t transposed,
                                      const int64_t *output_padding, int64_t output_padding_len_,
                                      int64_t groups, AtenTensorHandle *ret0) {
    static const char op[] = "convolution";
    conv_p q;
    if (conv_check(op, input, weight, bias, stride, stride_len_, padding, padding_len_, dilation,
                   dilation_len_, transposed, output_padding, output_padding_len_, groups, &q))
        return AOTI_TORCH_FAILURE;
    int32_t dt = input->dtype;
    int64_t nd = input->ndim, osz[5], ost[5];
    osz[0] = q.n;
    osz[1] = q.oc;
    for (int i = 0; i < q.nsp; i++) osz[2 + i] = q.out[3 - q.nsp + i];
    /* PyTorch 2.15 gives channels-last results for 2-d convolutions only */
    bool cl = nd == 4 && (shimrt_k_strides_like_cl(input) || shimrt_k_strides_like_cl(weight));
    if (cl)
        shimrt_k_channels_last_strides(nd, osz, ost);
    else
        shimrt_contiguous_strides(nd, osz, ost);
    AtenTensorHandle out = shimrt_tensor_empty(op, nd, osz, ost, dt, SHIMRT_DEV_CPU, 0);
    if (!out) return AOTI_TORCH_FAILURE;
    int64_t total = 1;
    for (int i = 0; i < nd; i++) total *= osz[i];
    if (total == 0) return shimrt_k_give(out, ret0);
    AOTITorchError err = AOTI_TORCH_FAILURE;
    AtenTensorHandle x = NULL, w = NULL, b = NULL, y = NULL;
    bool empty_k = q.c == 0 || q.k[0] * q.k[1] * q.k[2] == 0 || q.oc / q.g == 0;
    if (shimrt_k_is_floating(dt) && dt != SHIMRT_FLOAT64 && !empty_k) {
        /* float32 as it is; the half types widened to float32 first */
        bool f32 = dt == SHIMRT_FLOAT32;
        x = f32 ? input : widen(op, input, SHIMRT_FLOAT32, false);
        w = f32 ? weight : widen(op, weight, SHIMRT_FLOAT32, false);
        b = bias ? widen(op, bias, SHIMRT_FLOAT32, true) : NULL;
        y = f32 ? out : shimrt_tensor_empty(op, nd, osz, ost, SHIMRT_FLOAT32, SHIMRT_DEV_CPU, 0);
        if (x && w && y && (!bias || b) && onednn_conv(&q, x, w, b ? shimrt_data(b) : NULL, y))
            err = f32 ? AOTI_TORCH_SUCCESS : shimrt_k_copy(op, out, y);
        if (!f32) {
            shimrt_tensor_free(x);
            shimrt_tensor_free(w);
            shimrt_tensor_free(y);
        }
        shimrt_tensor_free(b);
        if (!err) return shimrt_k_give(out, ret0);
    }
    /* the direct loop in double */
    x = widen(op, input, SHIMRT_FLOAT64, true);
    w = widen(op, weight, SHIMRT_FLOAT64, true);
    b = bias ? widen(op, bias, SHIMRT_FLOAT64, true) : NULL;
    y = shimrt_tensor_empty(op, nd, osz, NULL, SHIMRT_FLOAT64, SHIMRT_DEV_CPU, 0);
    err = AOTI_TORCH_FAILURE;
    if (x && w && y && (!bias || b)) {
        direct_conv(&q, shimrt_data(x), shimrt_data(w), b ? shimrt_data(b) : NULL, shimrt_data(y));
        err = shimrt_k_copy(op, out, y);
    }
    shimrt_tensor_free(x);
    shimrt_tensor_free(w);
    shimrt_tensor_free(b);
    shimrt_tensor_free(y);
    return shimrt_k_hand_out(err, out, ret0);
}

AOTITorchError shimrt_k_conv_check(const char *op, AtenTensorHandle input, AtenTensorHandle weight,
                                   AtenTensorHandle bias, const int64_t *stride, int64_t stride_len,
                                   const int64_t *padding, int64_t padding_len,
                                   const int64_t *dilation, int64_t dilation_len,
                                   int32_t transposed, const int64_t *output_padding,
                                   int64_t output_padding_len, int64_t groups, conv_p *q) {
    return conv_check(op, input, weight, bias, stride, stride_len, padding, padding_len, dilation,
                      dilation_len, transposed, output_padding, output_padding_len, groups, q);
}

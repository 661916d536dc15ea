/* runtime/cpu/upsample_backward.c: upsample_bicubic2d_backward and upsample_trilinear3d_backward
 * of c_shim_cpu.h.
 *
 * Both scatter grad_output into a zeroed grad_input plane by plane (N x C planes in parallel),
 * in PyTorch's CPU order: output positions row by row (depth, height, width), for each its
 * source positions and weights (area_pixel_compute_scale / _source_index,
 * guard_index_and_lambda) computed in opmath (float for float32 and the half types, double for
 * float64), each contribution added in opmath to a per-plane sum (the half types' float
 * buffer, rounded to the type once at the end, as PyTorch's apply_grad_input does). Values are
 * carried as doubles, every operation rounded to opmath, so the sums follow PyTorch's.
 *
 * bicubic (PyTorch's upsample_bicubic2d_backward_out_frame, compiled without FMA): weights
 * get_cubic_upsample_coefficients (A = -0.75), contribution (g * wy) * wx added at the
 * clamped position, x taps outer, y taps inner; equal sizes copy grad_output.
 * trilinear (PyTorch's cpu_upsample_linear_backward, a kernel of aten/native/cpu built for
 * AVX2 / AVX512, where the compiler fuses a * b + c into one FMA): the source index and each
 * addition ((wd * wh) * ww) * g + sum are single roundings (fma), as PyTorch's are on an
 * x86-64 CPU with FMA (the CPUs its AVX2 / AVX512 kernels run on). Checked bit for bit for
 * float32 / float64 against the AVX512 wheel; float16 differs by an ulp in a rare element (its
 * float buffer's kernel path not yet matched exactly).
 *
 * Checks and messages are PyTorch's (upsample_2d/3d_common_check and the structured meta
 * functions). grad_input is contiguous for bicubic, in grad_output's suggested memory format
 * (channels-last-3d) for trilinear. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"
#include "shimrt/device.h"

typedef struct {
    const char *go; /* grad_output, dense planes of out[0] x out[1] x out[2] */
    char *gi;       /* grad_input, dense planes of in[0] x in[1] x in[2] */
    int32_t dt;
    size_t es;
    int64_t in[3], out[3];
    bool align, f64, cubic;
    bool plain_w;    /* the width's source index without FMA (see ub_source) */
    double scale[3]; /* in opmath */
    atomic_int oom;
} ub_ctx;

/* v rounded to opmath */
static double ub_r(const ub_ctx *c, double v) { return c->f64 ? v : (double)(float)v; }

/* a * b + d, one rounding to opmath (the compiler's fused multiply-add in PyTorch's kernel) */
static double ub_fma(const ub_ctx *c, double a, double b, double d) {
    return c->f64 ? fma(a, b, d) : (double)fmaf((float)a, (float)b, (float)d);
}

/* area_pixel_compute_scale of dim i (scale: the optional scales argument) */
static void ub_scale(ub_ctx *c, int i, const double *scale) {
    int64_t in = c->in[i], out = c->out[i];
    if (c->align)
        c->scale[i] = out > 1 ? ub_r(c, ub_r(c, (double)(in - 1)) / ub_r(c, (double)(out - 1))) : 0;
    else if (scale && *scale > 0)
        c->scale[i] = ub_r(c, 1.0 / *scale);
    else
        c->scale[i] = ub_r(c, ub_r(c, (double)in) / ub_r(c, (double)out));
}

/* area_pixel_compute_source_index of output o along dim i, then guard_index_and_lambda: the
 * first source index and its lambda. Linear: clamped at 0, scale * (o + 0.5) - 0.5 fused as
 * in PyTorch's AVX512 kernel, except the width's in its channels-last float kernel (where the
 * compiler kept the multiply and the subtraction apart: found against the wheel); cubic: no
 * clamp, separate roundings. */
static void ub_source(const ub_ctx *c, int i, int64_t o, int64_t *idx, double *lambda) {
    double s = c->scale[i], real;
    if (c->align)
        real = ub_r(c, s * (double)o);
    else if (c->cubic || (i == 2 && c->plain_w))
        real = ub_r(c, ub_r(c, s * ub_r(c, (double)o + 0.5)) - 0.5);
    else
        real = ub_fma(c, s, ub_r(c, (double)o + 0.5), -0.5);
    if (!c->cubic && !c->align && real < 0) real = 0;
    int64_t f = (int64_t)floorf((float)real);
    *idx = f < c->in[i] - 1 ? f : c->in[i] - 1;
    double l = ub_r(c, real - (double)*idx);
    *lambda = l < 0 ? 0 : l > 1 ? 1 : l;
}

/* The cubic convolution weights of the 4 taps around t (get_cubic_upsample_coefficients) */
static double ub_cc1(const ub_ctx *c, double x) { /* ((A + 2) * x - (A + 3)) * x * x + 1 */
    double v = ub_r(c, ub_r(c, 1.25 * x) - 2.25);
    v = ub_r(c, ub_r(c, v * x) * x);
    return ub_r(c, v + 1);
}
static double ub_cc2(const ub_ctx *c, double x) { /* ((A * x - 5 * A) * x + 8 * A) * x - 4 * A */
    double v = ub_r(c, ub_r(c, -0.75 * x) + 3.75);
    v = ub_r(c, ub_r(c, v * x) - 6.0);
    return ub_r(c, ub_r(c, v * x) + 3.0);
}
static void ub_cubic(const ub_ctx *c, double t, double w[4]) {
    double t2 = ub_r(c, 1.0 - t);
    w[0] = ub_cc2(c, ub_r(c, t + 1.0));
    w[1] = ub_cc1(c, t);
    w[2] = ub_cc1(c, t2);
    w[3] = ub_cc2(c, ub_r(c, t2 + 1.0));
}

static int64_t ub_clamp(int64_t v, int64_t n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

/* One plane's sums into acc (zeroed, in[0] * in[1] * in[2] opmath values). */
static void ub_plane(const ub_ctx *c, const char *go, double *acc) {
    int64_t D = c->in[0], H = c->in[1], W = c->in[2];
    int64_t ohw = c->out[1] * c->out[2];
    for (int64_t od = 0; od < c->out[0]; od++) {
        int64_t d[2] = {0, 0};
        double wd[2] = {1, 0};
        if (!c->cubic && c->out[0] != D) {
            ub_source(c, 0, od, &d[0], &wd[1]);
            d[1] = d[0] + (d[0] < D - 1 ? 1 : 0);
            wd[0] = ub_r(c, 1.0 - wd[1]);
        } else if (!c->cubic) {
            d[0] = d[1] = od;
        }
        for (int64_t oh = 0; oh < c->out[1]; oh++)
            for (int64_t ow = 0; ow < c->out[2]; ow++) {
                double g =
                    shimrt_k_load_f64(go + (size_t)(od * ohw + oh * c->out[2] + ow) * c->es, c->dt);
                int64_t o[2] = {oh, ow}, ix[2][2];
                if (c->cubic) {
                    double wy[4], wx[4], t;
                    int64_t y, x;
                    ub_source(c, 1, oh, &y, &t);
                    ub_cubic(c, t, wy);
                    ub_source(c, 2, ow, &x, &t);
                    ub_cubic(c, t, wx);
                    for (int ii = 0; ii < 4; ii++)
                        for (int jj = 0; jj < 4; jj++) {
                            double *p = acc + ub_clamp(y - 1 + jj, H) * W + ub_clamp(x - 1 + ii, W);
                            *p = ub_r(c, *p + ub_r(c, ub_r(c, g * wy[jj]) * wx[ii]));
                        }
                    continue;
                }
                double w[2][2];
                for (int i = 0; i < 2; i++) {
                    if (c->out[1 + i] == c->in[1 + i]) {
                        ix[i][0] = ix[i][1] = o[i];
                        w[i][0] = 1;
                        w[i][1] = 0;
                        continue;
                    }
                    ub_source(c, 1 + i, o[i], &ix[i][0], &w[i][1]);
                    ix[i][1] = ix[i][0] + (ix[i][0] < c->in[1 + i] - 1 ? 1 : 0);
                    w[i][0] = ub_r(c, 1.0 - w[i][1]);
                }
                for (int a = 0; a < 2; a++)
                    for (int b = 0; b < 2; b++)
                        for (int e = 0; e < 2; e++) {
                            double *p = acc + (d[a] * H + ix[0][b]) * W + ix[1][e];
                            double wt = ub_r(c, ub_r(c, wd[a] * w[0][b]) * w[1][e]);
                            *p = ub_fma(c, wt, g, *p);
                        }
            }
    }
}

static void ub_planes(int64_t b, int64_t e, void *vctx) {
    ub_ctx *c = vctx;
    int64_t ihw = c->in[0] * c->in[1] * c->in[2], ohw = c->out[0] * c->out[1] * c->out[2];
    double *acc = malloc(sizeof(double) * (size_t)ihw);
    if (!acc) {
        atomic_store(&c->oom, 1);
        return;
    }
    for (int64_t p = b; p < e; p++) {
        const char *go = c->go + (size_t)(p * ohw) * c->es;
        char *gi = c->gi + (size_t)(p * ihw) * c->es;
        bool copy = c->cubic && c->in[1] == c->out[1] && c->in[2] == c->out[2];
        for (int64_t i = 0; i < ihw; i++)
            acc[i] = copy ? shimrt_k_load_f64(go + (size_t)i * c->es, c->dt) : 0;
        if (!copy) ub_plane(c, go, acc);
        for (int64_t i = 0; i < ihw; i++) shimrt_k_store_f64(gi + (size_t)i * c->es, c->dt, acc[i]);
    }
    free(acc);
}

/* The common checks (upsample_Nd_common_check, the meta function's), then the planes run.
 * nsp: 2 (bicubic) or 3 (trilinear). */
static AOTITorchError ub_run(const char *op, ub_ctx *c, int nsp, AtenTensorHandle grad,
                             const int64_t *osz, int64_t osz_len, const int64_t *isz,
                             int64_t isz_len, const double *const *scales, AtenTensorHandle *ret0) {
    if (shimrt_k_check_cpu(op, grad, "grad_output") ||
        shimrt_k_check_dtype(op, grad, "grad_output"))
        return AOTI_TORCH_FAILURE;
    if (osz_len != nsp)
        return shimrt_fail(op, "It is expected output_size equals to %d, but got size %lld", nsp,
                           (long long)osz_len);
    if (isz_len != nsp + 2)
        return shimrt_fail(op, "It is expected input_size equals to %d, but got size %lld", nsp + 2,
                           (long long)isz_len);
    bool pos = true;
    for (int i = 0; i < nsp; i++) pos = pos && isz[2 + i] > 0 && osz[i] > 0;
    if (!pos) {
        if (nsp == 2)
            return shimrt_fail(op,
                               "Input and output sizes should be greater than 0, but got input "
                               "(H: %lld, W: %lld) output (H: %lld, W: %lld)",
                               (long long)isz[2], (long long)isz[3], (long long)osz[0],
                               (long long)osz[1]);
        return shimrt_fail(op,
                           "Input and output sizes should be greater than 0, but got input (D: "
                           "%lld, H: %lld, W: %lld) output (D: %lld, H: %lld, W: %lld)",
                           (long long)isz[2], (long long)isz[3], (long long)isz[4],
                           (long long)osz[0], (long long)osz[1], (long long)osz[2]);
    }
    if (grad->ndim != nsp + 2)
        return shimrt_fail(op,
                           "Expected grad_output to be a tensor of dimension %d but got: "
                           "dimension %lld",
                           nsp + 2, (long long)grad->ndim);
    for (int i = 0; i < nsp + 2; i++) {
        int64_t want = i < 2 ? isz[i] : osz[i - 2];
        if (grad->sizes[i] != want)
            return shimrt_fail(op,
                               "Expected grad_output to have the same shape as output; "
                               "output.size(%d) = %lld but got grad_output.size(%d) = %lld",
                               i, (long long)want, i, (long long)grad->sizes[i]);
    }
    if (shimrt_k_check_size(op, isz, nsp + 2)) return AOTI_TORCH_FAILURE;
    int32_t dt = grad->dtype;
    if (!shimrt_k_is_floating(dt))
        return shimrt_fail(op, "\"%s\" not implemented for '%s'", op, shimrt_dtype_torch_name(dt));
    c->dt = dt;
    c->es = shimrt_dtype_size(dt);
    c->f64 = dt == SHIMRT_FLOAT64;
    c->in[0] = c->out[0] = 1;
    for (int i = 0; i < nsp; i++) {
        c->in[3 - nsp + i] = isz[2 + i];
        c->out[3 - nsp + i] = osz[i];
    }
    for (int i = 0; i < nsp; i++) ub_scale(c, 3 - nsp + i, scales[i]);
    /* trilinear: PyTorch's channels-last kernel for a channels-last-3d grad_output */
    bool cl = nsp == 3 && shimrt_k_strides_like_cl(grad) && !shimrt_is_contiguous(grad);
    c->plain_w = cl && !c->f64;
    AtenTensorHandle gi = shimrt_k_new(op, nsp + 2, isz, dt);
    if (!gi) return AOTI_TORCH_FAILURE;
    int64_t planes = isz[0] * isz[1];
    AOTITorchError err = AOTI_TORCH_SUCCESS;
    if (planes > 0) {
        AtenTensorHandle g = grad;
        if (!shimrt_is_contiguous(grad)) {
            g = shimrt_k_new(op, grad->ndim, grad->sizes, dt);
            if (g && shimrt_k_copy(op, g, grad)) {
                shimrt_tensor_free(g);
                g = NULL;
            }
        }
        if (!g) err = AOTI_TORCH_FAILURE;
        if (!err) {
            c->go = shimrt_data(g);
            c->gi = shimrt_data(gi);
            int64_t work = c->out[0] * c->out[1] * c->out[2] * (c->cubic ? 16 : 8);
            torch_parallel_for(0, planes, 1 + 32768 / (work + 1), ub_planes, c);
            if (atomic_load(&c->oom)) err = shimrt_fail(op, "out of memory");
        }
        if (g && g != grad) shimrt_tensor_free(g);
    }
    /* trilinear: grad_output's suggested memory format */
    if (!err && cl) {
        AtenTensorHandle t = gi;
        err = shimrt_cpu_contiguous(t, SHIMRT_MEMORY_FORMAT_CHANNELS_LAST_3D, &gi);
        shimrt_tensor_free(t);
        if (err) return AOTI_TORCH_FAILURE;
    }
    if (err) {
        shimrt_tensor_free(gi);
        return AOTI_TORCH_FAILURE;
    }
    *ret0 = gi;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError
shimrt_cpu_upsample_bicubic2d_backward(AtenTensorHandle grad_output, const int64_t *output_size,
                                       int64_t output_size_len_, const int64_t *input_size,
                                       int64_t input_size_len_, int32_t align_corners,
                                       double *scales_h, double *scales_w, AtenTensorHandle *ret0) {
    ub_ctx c = {0};
    c.align = align_corners != 0;
    c.cubic = true;
    const double *sc[2] = {scales_h, scales_w};
    return ub_run("upsample_bicubic2d_backward", &c, 2, grad_output, output_size, output_size_len_,
                  input_size, input_size_len_, sc, ret0);
}

AOTITorchError shimrt_cpu_upsample_trilinear3d_backward(
    AtenTensorHandle grad_output, const int64_t *output_size, int64_t output_size_len_,
    const int64_t *input_size, int64_t input_size_len_, int32_t align_corners, double *scales_d,
    double *scales_h, double *scales_w, AtenTensorHandle *ret0) {
    ub_ctx c = {0};
    c.align = align_corners != 0;
    const double *sc[3] = {scales_d, scales_h, scales_w};
    return ub_run("upsample_trilinear3d_backward", &c, 3, grad_output, output_size,
                  output_size_len_, input_size, input_size_len_, sc, ret0);
}

/* runtime/cpu/grid_sample_backward.c: grid_sampler_3d_backward and grid_sampler_2d_backward of
 * c_shim_cpu.h.
 *
 * PyTorch's CPU kernel (aten/src/ATen/native/GridSampler.cpp, grid_sampler_3d_backward_cpu_impl)
 * as a plain loop, batches in parallel: per output point (d, h, w) in order, the grid's (x, y,
 * z) unnormalized to input coordinates with the derivative of each step
 * (grid_sampler_compute_source_index_set_grad: border clipping counts the border as out of
 * bounds, reflection flips the sign), then per channel: grad_output times each of the eight
 * trilinear weights added to grad_input's neighbour (tnw, tne, tsw, tse, bnw, bne, bsw, bse;
 * outside the input left out), and the neighbour's value times the partial derivatives of its
 * weight summed into gx, gy, gz; grad_grid = multiplier * sum. Nearest adds grad_output to the
 * nearest voxel (half to even) and leaves grad_grid zero. Every operation is rounded to the
 * input's dtype as PyTorch's kernel computes in scalar_t (shimrt_e_round), so the results are
 * its bits. output_mask[0] false: no grad_input (a NULL handle, PyTorch's undefined tensor).
 * Both results are contiguous, as PyTorch's. grid_sampler_2d_backward runs the same loop
 * with depth 1 (z fixed at 0: its weights exact, its terms zero or skipped); PyTorch's 2-d kernel
 * is vectorized over 16 (float) / 8 (double) grid points, adding each corner lane by lane, so
 * sums that meet in one element may be added in another order (within the summation
 * tolerance, not bit for bit). Bicubic (2-d only, as in PyTorch): the grid unnormalized
 * without padding, the 16 taps around it padded one by one (border: clipped, reflection:
 * reflected then clipped, zeros: outside left out), grad_output times the cubic convolution
 * weights (A = -0.75) added to grad_input at each tap, and grad_grid from the weights'
 * derivatives, in the vectorized kernel's order of operations (within the same tolerance). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"
#include "grid_sample.h"
#include "shimrt/device.h"

typedef struct {
    const char *go, *in, *grid; /* dense */
    char *gi, *gg;              /* dense; gi NULL when not asked for */
    int32_t dt;
    size_t es;
    int64_t C, D, H, W, OD, OH, OW;
    int64_t mode, pad;
    bool align;
    int nc; /* grid coordinates: 3, or 2 (2-d: depth 1, z 0) */
} gb_job;

static double gb_r(const gb_job *j, double v) { return shimrt_e_round(j->dt, v); }

/* clip_coordinates_set_grad */
static double gb_clip(const gb_job *j, double x, int64_t size, double *g) {
    if (x <= 0) {
        *g = 0;
        return 0;
    }
    double max = gb_r(j, (double)(size - 1));
    if (x >= max) {
        *g = 0;
        return max;
    }
    *g = 1;
    return x;
}

/* reflect_coordinates_set_grad (twice_low, twice_high: integers) */
static double gb_reflect(const gb_job *j, double x, int64_t tlo, int64_t thi, double *g) {
    if (tlo == thi) {
        *g = 0;
        return 0;
    }
    double min = gb_r(j, gb_r(j, (double)tlo) / 2),
           span = gb_r(j, gb_r(j, (double)(thi - tlo)) / 2);
    x = gb_r(j, x - min);
    int mult = 1;
    if (x < 0) {
        mult = -1;
        x = -x;
    }
    double extra = gb_r(j, fmod(x, span)), q = floor(gb_r(j, x / span));
    /* (int)q: out of int's range (NaN, inf) that gives INT_MIN, even */
    bool even = !(q >= -2147483648.0 && q < 2147483648.0) || fmod(q, 2) == 0;
    *g = even ? mult : -mult;
    return even ? gb_r(j, extra + min) : gb_r(j, gb_r(j, span - extra) + min);
}

/* compute_coordinates_set_grad: c under the padding mode (border: clipped; reflection:
 * reflected, then clipped), *g its derivative (0 or +-1) */
static double gb_pad(const gb_job *j, double c, int64_t size, double *g) {
    double gc, gr = 1;
    *g = 1;
    if (j->pad == 2)
        c = j->align ? gb_reflect(j, c, 0, 2 * (size - 1), &gr)
                     : gb_reflect(j, c, -1, 2 * size - 1, &gr);
    if (j->pad == 1 || j->pad == 2) {
        c = gb_clip(j, c, size, &gc);
        *g = gr * gc;
    }
    return c;
}

/* grid_sampler_compute_source_index_set_grad (bicubic: grid_sampler_unnormalize_set_grad
 * only, padding applied to each tap instead) */
static double gb_source(const gb_job *j, double c, int64_t size, double *g) {
    if (j->align) {
        *g = gb_r(j, gb_r(j, (double)(size - 1)) / 2);
        c = gb_r(j, gb_r(j, gb_r(j, c + 1) / 2) * gb_r(j, (double)(size - 1)));
    } else {
        *g = gb_r(j, gb_r(j, (double)size) / 2);
        c = gb_r(j, gb_r(j, gb_r(j, gb_r(j, c + 1) * gb_r(j, (double)size)) - 1) / 2);
    }
    if (j->mode == 2) return c;
    double gp;
    c = gb_pad(j, c, size, &gp);
    *g = gb_r(j, *g * gp);
    return c;
}

/* (int64_t) of a floor / nearbyint result as x86-64 converts it: INT64_MIN when out of range
 * or NaN (then out of bounds) */
static int64_t gb_i64(double v) {
    return v >= -9223372036854775808.0 && v < 9223372036854775808.0 ? (int64_t)v : INT64_MIN;
}

static bool gb_in(const gb_job *j, int64_t z, int64_t y, int64_t x) {
    return z >= 0 && z < j->D && y >= 0 && y < j->H && x >= 0 && x < j->W;
}

static double gb_load(const gb_job *j, const char *base, int64_t i) {
    return shimrt_k_load_f64(base + (size_t)i * j->es, j->dt);
}

static void gb_add(const gb_job *j, char *base, int64_t i, double v) {
    char *p = base + (size_t)i * j->es;
    shimrt_k_store_f64(p, j->dt, gb_r(j, shimrt_k_load_f64(p, j->dt) + v));
}

/* The cubic convolution weights (A = -0.75) of the 4 taps at t - 1, t, t + 1, t + 2 from the
 * low tap (get_cubic_coefficients of PyTorch's vectorized kernel) in w, and (as its
 * get_cubic_coefficients_grad) minus their derivatives in t in d */
static void gb_cubic(const gb_job *j, double t, double w[4], double d[4]) {
    const double A = -0.75;
    for (int k = 0; k < 4; k++) {
        /* the distance to the tap, and the sign of t in it */
        double x = gb_r(j, k == 0 ? t + 1 : k == 1 ? t : (double)(k - 1) - t);
        if (k == 0 || k == 3)
            w[k] =
                gb_r(j, gb_r(j, gb_r(j, gb_r(j, gb_r(j, gb_r(j, A * x) - 5 * A) * x) + 8 * A) * x) -
                            4 * A);
        else
            w[k] = gb_r(j, gb_r(j, gb_r(j, gb_r(j, gb_r(j, (A + 2) * x) - (A + 3)) * x) * x) + 1);
    }
    double x = gb_r(j, -1 - t);
    d[0] = gb_r(j, gb_r(j, gb_r(j, gb_r(j, -3 * A * x) - 10 * A) * x) - 8 * A);
    x = -t;
    d[1] = gb_r(j, gb_r(j, gb_r(j, -3 * (A + 2) * x) - 2 * (A + 3)) * x);
    x = gb_r(j, 1 - t);
    d[2] = gb_r(j, gb_r(j, gb_r(j, 3 * (A + 2) * x) - 2 * (A + 3)) * x);
    x = gb_r(j, 2 - t);
    d[3] = gb_r(j, gb_r(j, gb_r(j, gb_r(j, 3 * A * x) - 10 * A) * x) + 8 * A);
}

/* A bicubic tap's index under the padding mode (get_value_bounded / add_value_bounded) */
static int64_t gb_tap(const gb_job *j, double x, int64_t size) {
    double g;
    return gb_i64(trunc(gb_pad(j, x, size, &g)));
}

/* Bicubic (2-d only): per channel, grad_output times each of the 16 weights wx[i] * wy[k]
 * added to grad_input at the padded tap (x - 1 + i, y - 1 + k; outside the input left out,
 * zeros padding), and the tap's value times grad_output times the weights' derivatives
 * subtracted from gx, gy, in the order of PyTorch's vectorized kernel */
static void gb_bicubic(const gb_job *j, const double c[2], const double m[2], const char *go,
                       const char *in, char *gi, char *gg, int64_t osp) {
    int64_t isp = j->H * j->W;
    double lo[2], w[2][4], d[2][4];
    for (int a = 0; a < 2; a++) {
        lo[a] = floor(c[a]);
        gb_cubic(j, gb_r(j, c[a] - lo[a]), w[a], d[a]);
    }
    int64_t tx[4], ty[4];
    for (int i = 0; i < 4; i++) {
        tx[i] = gb_tap(j, gb_r(j, lo[0] + (i - 1)), j->W);
        ty[i] = gb_tap(j, gb_r(j, lo[1] + (i - 1)), j->H);
    }
    double gx = 0, gy = 0;
    for (int64_t ch = 0; ch < j->C; ch++) {
        double g = gb_load(j, go, ch * osp);
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 4; k++) {
                bool inb = gb_in(j, 0, ty[k], tx[i]);
                int64_t at = inb ? ch * isp + ty[k] * j->W + tx[i] : 0;
                if (gi && inb) gb_add(j, gi, at, gb_r(j, gb_r(j, g * w[0][i]) * w[1][k]));
                double vg = gb_r(j, (inb ? gb_load(j, in, at) : 0) * g);
                gx = gb_r(j, gx - gb_r(j, gb_r(j, vg * d[0][i]) * w[1][k]));
                gy = gb_r(j, gy - gb_r(j, gb_r(j, vg * d[1][k]) * w[0][i]));
            }
    }
    shimrt_k_store_f64(gg, j->dt, gb_r(j, gx * m[0]));
    shimrt_k_store_f64(gg + j->es, j->dt, gb_r(j, gy * m[1]));
}

static void gb_batches(int64_t b, int64_t e, void *vctx) {
    const gb_job *j = vctx;
    int64_t isp = j->D * j->H * j->W, osp = j->OD * j->OH * j->OW;
    for (int64_t n = b; n < e; n++)
        for (int64_t o = 0; o < osp; o++) {
            const char *gp = j->grid + (size_t)((n * osp + o) * j->nc) * j->es;
            double m[3] = {0, 0, 0}, c[3] = {0, 0, 0}; /* x, y, z: multipliers, coordinates */
            c[0] = gb_source(j, gb_load(j, gp, 0), j->W, &m[0]);
            c[1] = gb_source(j, gb_load(j, gp, 1), j->H, &m[1]);
            if (j->nc == 3) c[2] = gb_source(j, gb_load(j, gp, 2), j->D, &m[2]);
            const char *go = j->go + (size_t)(n * j->C * osp + o) * j->es;
            const char *in = j->in + (size_t)(n * j->C * isp) * j->es;
            char *gi = j->gi ? j->gi + (size_t)(n * j->C * isp) * j->es : NULL;
            char *gg = j->gg + (size_t)((n * osp + o) * j->nc) * j->es;
            if (j->mode == 2) {
                gb_bicubic(j, c, m, go, in, gi, gg, osp);
                continue;
            }
            if (j->mode == 1) {
                int64_t x = gb_i64(nearbyint(c[0])), y = gb_i64(nearbyint(c[1])),
                        z = gb_i64(nearbyint(c[2]));
                if (gi && gb_in(j, z, y, x))
                    for (int64_t ch = 0; ch < j->C; ch++)
                        gb_add(j, gi, ch * isp + (z * j->H + y) * j->W + x,
                               gb_load(j, go, ch * osp));
                continue;
            }
            int64_t lo[3];
            for (int i = 0; i < 3; i++) lo[i] = gb_i64(floor(c[i]));
            /* per axis: the distance to the far corner (a[i][0], weight of the low corner)
             * and to the low corner (a[i][1]) */
            double a[3][2];
            for (int i = 0; i < 3; i++) {
                a[i][0] = gb_r(j, gb_r(j, (double)(lo[i] + 1)) - c[i]);
                a[i][1] = gb_r(j, c[i] - gb_r(j, (double)lo[i]));
            }
            double w[8];
            for (int k = 0; k < 8; k++) /* bit 0 x (w/e), bit 1 y (n/s), bit 2 z (t/b) */
                w[k] = gb_r(j, gb_r(j, a[0][k & 1] * a[1][k >> 1 & 1]) * a[2][k >> 2 & 1]);
            double gx = 0, gy = 0, gz = 0;
            for (int64_t ch = 0; ch < j->C; ch++) {
                double g = gb_load(j, go, ch * osp);
                for (int k = 0; k < 8; k++) {
                    int64_t x = lo[0] + (k & 1), y = lo[1] + (k >> 1 & 1), z = lo[2] + (k >> 2 & 1);
                    if (gi && gb_in(j, z, y, x))
                        gb_add(j, gi, ch * isp + (z * j->H + y) * j->W + x, gb_r(j, w[k] * g));
                }
                for (int k = 0; k < 8; k++) {
                    int64_t x = lo[0] + (k & 1), y = lo[1] + (k >> 1 & 1), z = lo[2] + (k >> 2 & 1);
                    if (!gb_in(j, z, y, x)) continue;
                    double v = gb_load(j, in, ch * isp + (z * j->H + y) * j->W + x);
                    double ax = a[0][k & 1], ay = a[1][k >> 1 & 1], az = a[2][k >> 2 & 1];
                    /* d/dx of the weight: + for the high corner, - for the low */
                    double tx = gb_r(j, gb_r(j, gb_r(j, v * ay) * az) * g);
                    double ty = gb_r(j, gb_r(j, gb_r(j, v * ax) * az) * g);
                    double tz = gb_r(j, gb_r(j, gb_r(j, v * ax) * ay) * g);
                    gx = gb_r(j, k & 1 ? gx + tx : gx - tx);
                    gy = gb_r(j, k & 2 ? gy + ty : gy - ty);
                    gz = gb_r(j, k & 4 ? gz + tz : gz - tz);
                }
            }
            shimrt_k_store_f64(gg, j->dt, gb_r(j, m[0] * gx));
            shimrt_k_store_f64(gg + j->es, j->dt, gb_r(j, m[1] * gy));
            if (j->nc == 3) shimrt_k_store_f64(gg + 2 * j->es, j->dt, gb_r(j, m[2] * gz));
        }
}

/* t dense: t itself or a new contiguous copy in *own */
static const char *gb_dense(const char *op, AtenTensorHandle t, AtenTensorHandle *own) {
    *own = NULL;
    if (shimrt_is_contiguous(t)) return shimrt_data(t);
    *own = shimrt_k_new(op, t->ndim, t->sizes, t->dtype);
    if (*own && shimrt_k_copy(op, *own, t)) {
        shimrt_tensor_free(*own);
        *own = NULL;
    }
    return *own ? shimrt_data(*own) : NULL;
}

static AOTITorchError gb_run(const char *op, int nsp, AtenTensorHandle grad_output,
                             AtenTensorHandle input, AtenTensorHandle grid,
                             int64_t interpolation_mode, int64_t padding_mode,
                             int32_t align_corners, const int32_t *output_mask,
                             int64_t output_mask_len_, AtenTensorHandle *ret0,
                             AtenTensorHandle *ret1) {
    int nd = nsp + 2;
    if (output_mask_len_ != 2)
        return shimrt_fail(op,
                           "Tried to convert a List with %lld elements to a fixed-size array of "
                           "size 2",
                           (long long)output_mask_len_);
    if (shimrt_k_check_cpu(op, grad_output, "grad_output") ||
        shimrt_k_check_cpu(op, input, "input") || shimrt_k_check_cpu(op, grid, "grid") ||
        shimrt_gs_check(op, nsp, input, grid, interpolation_mode))
        return AOTI_TORCH_FAILURE;
    /* N, C, then grid's spatial sizes (2-d: depth 1 in front) */
    int64_t shape[5] = {input->sizes[0], input->sizes[1], 1, 1, 1};
    for (int i = 0; i < nsp; i++) shape[5 - nsp + i] = grid->sizes[1 + i];
    int64_t gshape[4] = {shape[0], shape[1], shape[3], shape[4]};
    const int64_t *want = nsp == 3 ? shape : gshape;
    bool same = grad_output->ndim == nd;
    for (int i = 0; same && i < nd; i++) same = grad_output->sizes[i] == want[i];
    if (!same) {
        char a[128], b[128];
        return shimrt_fail(op,
                           "grid_sampler(): expected grad_output to have sizes %s but got "
                           "grad_output with sizes %s",
                           shimrt_k_fmt_shape(a, sizeof a, nd, want),
                           shimrt_k_fmt_shape(b, sizeof b, grad_output->ndim, grad_output->sizes));
    }
    if (grad_output->dtype != input->dtype)
        return shimrt_fail(op, "expected scalar type %s but found %s",
                           shimrt_dtype_torch_name(input->dtype),
                           shimrt_dtype_torch_name(grad_output->dtype));
    gb_job j = {.dt = input->dtype,
                .es = shimrt_dtype_size(input->dtype),
                .C = shape[1],
                .D = nsp == 3 ? input->sizes[2] : 1,
                .H = input->sizes[nd - 2],
                .W = input->sizes[nd - 1],
                .OD = shape[2],
                .OH = shape[3],
                .OW = shape[4],
                .mode = interpolation_mode,
                .pad = padding_mode,
                .align = align_corners != 0,
                .nc = nsp};
    AtenTensorHandle gi = output_mask[0] ? shimrt_k_new(op, nd, input->sizes, j.dt) : NULL;
    AtenTensorHandle gg = shimrt_k_new(op, nd, grid->sizes, j.dt);
    AtenTensorHandle own[3] = {NULL, NULL, NULL};
    AOTITorchError err = (output_mask[0] && !gi) || !gg ? AOTI_TORCH_FAILURE : AOTI_TORCH_SUCCESS;
    if (!err) {
        if (gi && shimrt_numel(gi)) memset(shimrt_data(gi), 0, (size_t)shimrt_numel(gi) * j.es);
        if (shimrt_numel(gg)) memset(shimrt_data(gg), 0, (size_t)shimrt_numel(gg) * j.es);
        j.gi = gi ? shimrt_data(gi) : NULL;
        j.gg = shimrt_data(gg);
        int64_t points = shape[2] * shape[3] * shape[4];
        if (shape[0] > 0 && points > 0) {
            j.go = gb_dense(op, grad_output, &own[0]);
            j.in = gb_dense(op, input, &own[1]);
            j.grid = gb_dense(op, grid, &own[2]);
            if (!j.go || !j.in || !j.grid)
                err = AOTI_TORCH_FAILURE;
            else
                torch_parallel_for(0, shape[0], 1 + 4096 / (points * (shape[1] * 16 + 1) + 1),
                                   gb_batches, &j);
        }
    }
    for (int i = 0; i < 3; i++) shimrt_tensor_free(own[i]);
    if (err) {
        shimrt_tensor_free(gi);
        shimrt_tensor_free(gg);
        return AOTI_TORCH_FAILURE;
    }
    *ret0 = gi;
    *ret1 = gg;
    return AOTI_TORCH_SUCCESS;
}

/* grid_sampler_2d_backward and grid_sampler_3d_backward */
#define GB_OP(N)                                                                                   \
    AOTITorchError shimrt_cpu_grid_sampler_##N##d_backward(                                        \
        AtenTensorHandle grad_output, AtenTensorHandle input, AtenTensorHandle grid,               \
        int64_t interpolation_mode, int64_t padding_mode, int32_t align_corners,                   \
        const int32_t *output_mask, int64_t output_mask_len_, AtenTensorHandle *ret0,              \
        AtenTensorHandle *ret1) {                                                                  \
        return gb_run("grid_sampler_" #N "d_backward", N, grad_output, input, grid,                \
                      interpolation_mode, padding_mode, align_corners, output_mask,                \
                      output_mask_len_, ret0, ret1);                                               \
    }
GB_OP(2)
GB_OP(3)

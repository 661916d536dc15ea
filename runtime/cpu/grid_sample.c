/* runtime/cpu/grid_sample.c: grid_sampler_3d of c_shim_cpu.h for AOTInductor CPU graphs
 * (torch.nn.functional.grid_sample on 5-d inputs).
 *
 * PyTorch's CPU kernel (aten/src/ATen/native/GridSampler.cpp, grid_sampler_3d_cpu) as a plain
 * loop over the output points, points in parallel on the runtime's pool: grid (x, y, z) is
 * unnormalized to input coordinates (align_corners: -1 and 1 are the corner voxels' centres,
 * else their outer edges), then border padding clips, reflection padding reflects then clips
 * (any other padding mode reads zeros outside, as PyTorch's), a coordinate that is not
 * finite or beyond int range becomes -100 (out of bounds). Trilinear interpolation weighs
 * the eight neighbours in PyTorch's order (tnw, tne, tsw, tse, bnw, bne, bsw, bse; the
 * ones outside the input are left out); nearest rounds half to even. Every operation is
 * rounded to the input's dtype as in PyTorch's kernel, which computes in that dtype. Bicubic is
 * 2-d only: PyTorch's kernel leaves the output unwritten for any mode but 0 and 1, which is
 * refused here. */
#include <limits.h>
#include <math.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"
#include "grid_sample.h"
#include "shimrt/device.h"

typedef struct {
    const struct AtenTensorOpaque *in, *grid;
    char *out;
    int32_t dt;
    size_t es;
    int64_t C, D, H, W, OD, OH, OW;
    int64_t mode, pad;
    bool align;
} gs_job;

/* v rounded to the job's dtype: PyTorch's kernel computes in the input's dtype, every
 * operation rounded to it */
static double rd(int32_t dt, double v) { return shimrt_e_round(dt, v); }

/* std::min / std::max as C++ defines them (a NaN operand is not skipped as fmin skips it) */
static double cxx_min(double a, double b) { return b < a ? b : a; }
static double cxx_max(double a, double b) { return a < b ? b : a; }

static double reflect(int32_t dt, double x, double twice_low, double twice_high) {
    if (twice_low == twice_high) return 0;
    double min = rd(dt, twice_low / 2), span = rd(dt, (twice_high - twice_low) / 2);
    x = rd(dt, fabs(x - min));
    double extra = rd(dt, fmod(x, span)), q = floor(rd(dt, x / span));
    /* PyTorch casts q to int: out of int's range (NaN, inf) that gives INT_MIN, even */
    bool even = !(q >= -2147483648.0 && q < 2147483648.0) || fmod(q, 2) == 0;
    return even ? rd(dt, extra + min) : rd(dt, rd(dt, span - extra) + min);
}

/* PyTorch's grid_sampler_compute_source_index, rounded as its kernel rounds. */
static double source_index(int32_t dt, double c, int64_t size, int64_t pad, bool align) {
    double sz = (double)size;
    c = align ? rd(dt, rd(dt, rd(dt, c + 1) / 2) * rd(dt, sz - 1))
              : rd(dt, rd(dt, rd(dt, rd(dt, c + 1) * rd(dt, sz)) - 1) / 2);
    if (pad == 1 || pad == 2) {
        if (pad == 2) c = align ? reflect(dt, c, 0, 2 * (sz - 1)) : reflect(dt, c, -1, 2 * sz - 1);
        c = cxx_min(rd(dt, sz - 1), cxx_max(c, 0));
    }
    if (c > INT_MAX - 1 || c < INT_MIN || !isfinite(c)) c = -100;
    return c;
}

static double at(const gs_job *j, int64_t n, int64_t ch, int64_t z, int64_t y, int64_t x) {
    if (z < 0 || z >= j->D || y < 0 || y >= j->H || x < 0 || x >= j->W) return 0;
    const int64_t *s = j->in->strides;
    const char *p = (const char *)shimrt_data(j->in) +
                    (size_t)(n * s[0] + ch * s[1] + z * s[2] + y * s[3] + x * s[4]) * j->es;
    return shimrt_k_load_f64(p, j->dt);
}

static void gs_points(int64_t b, int64_t e, void *vctx) {
    const gs_job *j = vctx;
    const int64_t *gs = j->grid->strides;
    const char *g = shimrt_data(j->grid);
    int64_t osp = j->OD * j->OH * j->OW;
    for (int64_t q = b; q < e; q++) {
        int64_t n = q / osp, o = q % osp;
        int64_t od = o / (j->OH * j->OW), oh = o / j->OW % j->OH, ow = o % j->OW;
        const char *gp = g + (size_t)(n * gs[0] + od * gs[1] + oh * gs[2] + ow * gs[3]) * j->es;
        int32_t dt = j->dt;
        double ix = source_index(dt, shimrt_k_load_f64(gp, dt), j->W, j->pad, j->align);
        double iy = source_index(dt, shimrt_k_load_f64(gp + (size_t)gs[4] * j->es, dt), j->H,
                                 j->pad, j->align);
        double iz = source_index(dt, shimrt_k_load_f64(gp + (size_t)(2 * gs[4]) * j->es, dt), j->D,
                                 j->pad, j->align);
        char *dst = j->out + (size_t)(n * j->C * osp + o) * j->es;
        if (j->mode == 1) {
            int64_t x = (int64_t)nearbyint(ix), y = (int64_t)nearbyint(iy),
                    z = (int64_t)nearbyint(iz);
            for (int64_t ch = 0; ch < j->C; ch++)
                shimrt_k_store_f64(dst + (size_t)(ch * osp) * j->es, j->dt, at(j, n, ch, z, y, x));
            continue;
        }
        int64_t x0 = (int64_t)floor(ix), y0 = (int64_t)floor(iy), z0 = (int64_t)floor(iz);
        /* the distances to the far corner (lo) and the near one (hi) along x, y, z */
        double lo[3] = {rd(dt, (double)(x0 + 1) - ix), rd(dt, (double)(y0 + 1) - iy),
                        rd(dt, (double)(z0 + 1) - iz)};
        double hi[3] = {rd(dt, ix - (double)x0), rd(dt, iy - (double)y0), rd(dt, iz - (double)z0)};
        /* tnw, tne, tsw, tse, bnw, bne, bsw, bse: bit 2 z (t/b), bit 1 y (n/s), bit 0 x
         * (w/e); PyTorch's products are x-term * y-term * z-term */
        double w[8];
        for (int k = 0; k < 8; k++)
            w[k] =
                rd(dt, rd(dt, (k & 1 ? hi : lo)[0] * (k & 2 ? hi : lo)[1]) * (k & 4 ? hi : lo)[2]);
        for (int64_t ch = 0; ch < j->C; ch++) {
            double v = 0;
            for (int k = 0; k < 8; k++) {
                int64_t z = z0 + (k >> 2 & 1), y = y0 + (k >> 1 & 1), x = x0 + (k & 1);
                if (z >= 0 && z < j->D && y >= 0 && y < j->H && x >= 0 && x < j->W)
                    v = rd(dt, v + rd(dt, at(j, n, ch, z, y, x) * w[k]));
            }
            shimrt_k_store_f64(dst + (size_t)(ch * osp) * j->es, j->dt, v);
        }
    }
}

AOTITorchError shimrt_gs_check(const char *op, int nsp, AtenTensorHandle input,
                               AtenTensorHandle grid, int64_t interpolation_mode) {
    char a[128], b[128];
    shimrt_k_fmt_shape(a, sizeof a, input->ndim, input->sizes);
    shimrt_k_fmt_shape(b, sizeof b, grid->ndim, grid->sizes);
    if (input->ndim != nsp + 2 || grid->ndim != nsp + 2)
        return shimrt_fail(op,
                           "grid_sampler(): expected %dD input and grid with same number of "
                           "dimensions, but got input with sizes %s and grid with sizes %s",
                           nsp + 2, a, b);
    if (input->sizes[0] != grid->sizes[0])
        return shimrt_fail(op,
                           "grid_sampler(): expected grid and input to have same batch size, "
                           "but got input with sizes %s and grid with sizes %s",
                           a, b);
    if (grid->sizes[nsp + 1] != nsp)
        return shimrt_fail(op,
                           "grid_sampler(): expected grid to have size %d in last dimension, but "
                           "got grid with sizes %s",
                           nsp, b);
    for (int i = 2; i < nsp + 2; i++)
        if (input->sizes[i] == 0)
            return shimrt_fail(op,
                               "grid_sampler(): expected input to have non-empty spatial "
                               "dimensions, but input has sizes %s with dimension %d being empty",
                               a, i);
    if (!shimrt_k_is_floating(input->dtype))
        return shimrt_fail(op, "\"grid_sampler3d_cpu\" not implemented for '%s'",
                           shimrt_dtype_torch_name(input->dtype));
    if (grid->dtype != input->dtype)
        return shimrt_fail(op, "expected scalar type %s but found %s",
                           shimrt_dtype_torch_name(input->dtype),
                           shimrt_dtype_torch_name(grid->dtype));
    if (interpolation_mode != 0 && interpolation_mode != 1 && (nsp == 3 || interpolation_mode != 2))
        return shimrt_fail(op,
                           "%s: interpolation_mode %lld is neither bilinear (0) nor nearest (1)%s",
                           op, (long long)interpolation_mode,
                           nsp == 3 ? " (bicubic only supports 4D input)" : " nor bicubic (2)");
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_grid_sampler_3d(AtenTensorHandle input, AtenTensorHandle grid,
                                          int64_t interpolation_mode, int64_t padding_mode,
                                          int32_t align_corners, AtenTensorHandle *ret0) {
    static const char op[] = "grid_sampler_3d";
    if (shimrt_k_check_cpu(op, input, "input") || shimrt_k_check_cpu(op, grid, "grid"))
        return AOTI_TORCH_FAILURE;
    if (shimrt_gs_check(op, 3, input, grid, interpolation_mode)) return AOTI_TORCH_FAILURE;
    int64_t shape[5] = {input->sizes[0], input->sizes[1], grid->sizes[1], grid->sizes[2],
                        grid->sizes[3]};
    AtenTensorHandle out = shimrt_k_new(op, 5, shape, input->dtype);
    if (!out) return AOTI_TORCH_FAILURE;
    gs_job j = {.in = input,
                .grid = grid,
                .out = shimrt_data(out),
                .dt = input->dtype,
                .es = shimrt_dtype_size(input->dtype),
                .C = shape[1],
                .D = input->sizes[2],
                .H = input->sizes[3],
                .W = input->sizes[4],
                .OD = shape[2],
                .OH = shape[3],
                .OW = shape[4],
                .mode = interpolation_mode,
                .pad = padding_mode,
                .align = align_corners != 0};
    int64_t points = shape[0] * shape[2] * shape[3] * shape[4];
    if (points > 0 && shape[1] > 0)
        torch_parallel_for(0, points, 1 + 4096 / (shape[1] * 8 + 1), gs_points, &j);
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

/* runtime/cpu/pool3d.c: 3-d pooling of c_shim_cpu.h for AOTInductor CPU graphs
 * (max_pool3d_with_indices, avg_pool3d, _adaptive_avg_pool3d, adaptive_max_pool3d) on the
 * pooling engine of pool_nd.c that the 2-d kernels share, and max unpooling (max_unpool2d,
 * max_unpool3d): PyTorch's argument checks and messages, then the engine. As in PyTorch,
 * a channels-last-3d input gives a channels-last-3d result for max_pool3d_with_indices only
 * (and a channels-last one for max_unpool2d). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"
#include "pool_nd.h"

SHIMRT_PL_KERNELS(3)

/* The adaptive 3-d poolings' checks: three output sizes, none negative, self 4-d or 5-d with
 * no empty dim but dim 0, of a floating dtype (kernel: PyTorch's kernel name). */
static AOTITorchError adaptive3d(const char *op, const char *kernel, AtenTensorHandle self,
                                 const int64_t *osz, int64_t n, const char *len_msg, shimrt_pl *c) {
    if (n != 3) return shimrt_fail(op, "%s", len_msg);
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    char sh[128];
    shimrt_k_fmt_shape(sh, sizeof sh, self->ndim, self->sizes);
    if (self->ndim != 4 && self->ndim != 5)
        return shimrt_fail(op, "%s(): Expected 4D or 5D tensor, but got %s", op, sh);
    for (int64_t i = 1; i < self->ndim; i++) /* dim 0 may be empty (4-d: the channels) */
        if (self->sizes[i] == 0)
            return shimrt_fail(op,
                               "%s(): Expected input to have non-zero size for non-batch "
                               "dimensions, but input has sizes %s with dimension %lld being "
                               "empty",
                               op, sh, (long long)i);
    int64_t total = 1;
    for (int i = 0; i < 3; i++)
        if (osz[i] < 0) {
            int64_t shape[5];
            for (int64_t j = 0; j < self->ndim - 3; j++) shape[j] = self->sizes[j];
            memcpy(shape + self->ndim - 3, osz, 3 * sizeof *osz);
            shimrt_k_fmt_shape(sh, sizeof sh, self->ndim, shape);
            return shimrt_fail(op, "Trying to create tensor with negative dimension %lld: %s",
                               (long long)osz[i], sh);
        }
    for (int64_t j = 0; j < self->ndim; j++)
        if (__builtin_mul_overflow(
                total, j < self->ndim - 3 ? self->sizes[j] : osz[j - (self->ndim - 3)], &total))
            return shimrt_fail(op, "numel: integer multiplication overflow");
    if (!shimrt_k_is_floating(self->dtype))
        return shimrt_fail(op, "\"%s\" not implemented for '%s'", kernel,
                           shimrt_dtype_torch_name(self->dtype));
    c->nsp = 3;
    c->adaptive = true;
    c->dense_out = true;
    memcpy(c->out, osz, sizeof c->out);
    return AOTI_TORCH_SUCCESS;
}

/* adaptive3d's checks, then the engine (kind: SHIMRT_PL_AVG or SHIMRT_PL_MAX). */
static AOTITorchError adaptive3d_run(const char *op, const char *kernel, int kind,
                                     AtenTensorHandle self, const int64_t *osz, int64_t n,
                                     const char *len_msg, AtenTensorHandle *ret0,
                                     AtenTensorHandle *ret1) {
    shimrt_pl c = {.kind = kind};
    if (adaptive3d(op, kernel, self, osz, n, len_msg, &c)) return AOTI_TORCH_FAILURE;
    return shimrt_pl_run(op, self, &c, ret0, ret1);
}

AOTITorchError shimrt_cpu__adaptive_avg_pool3d(AtenTensorHandle self, const int64_t *output_size,
                                               int64_t output_size_len_, AtenTensorHandle *ret0) {
    return adaptive3d_run("adaptive_avg_pool3d", "adaptive_avg_pool3d_cpu", SHIMRT_PL_AVG, self,
                          output_size, output_size_len_,
                          "adaptive_avg_pool3d: output_size must be 3", ret0, NULL);
}

AOTITorchError shimrt_cpu_adaptive_max_pool3d(AtenTensorHandle self, const int64_t *output_size,
                                              int64_t output_size_len_, AtenTensorHandle *ret0,
                                              AtenTensorHandle *ret1) {
    return adaptive3d_run("adaptive_max_pool3d", "adaptive_max_pool3d_cpu", SHIMRT_PL_MAX, self,
                          output_size, output_size_len_,
                          "adaptive_max_pool3d(): internal error: output_size.size() must be 3",
                          ret0, ret1);
}

/* ---- max unpooling -------------------------------------------------------------------- */

typedef struct {
    const char *in;
    const int64_t *idx;
    char *out;
    size_t es;
    int64_t isz, osz;             /* elements per plane of input (and indices) and output */
    int64_t bad_plane, bad_index; /* the first invalid index found (plane -1: none) */
} unpool_job;

static void unpool_planes(int64_t b, int64_t e, void *vctx) {
    unpool_job *j = vctx;
    for (int64_t p = b; p < e; p++) {
        const int64_t *ix = j->idx + p * j->isz;
        for (int64_t i = 0; i < j->isz; i++) {
            int64_t at = ix[i];
            if (at < 0 || at >= j->osz) {
                /* planes are split between threads; keep the lowest plane's */
                if (__atomic_load_n(&j->bad_plane, __ATOMIC_RELAXED) < 0 ||
                    p < __atomic_load_n(&j->bad_plane, __ATOMIC_RELAXED)) {
                    __atomic_store_n(&j->bad_plane, p, __ATOMIC_RELAXED);
                    __atomic_store_n(&j->bad_index, at, __ATOMIC_RELAXED);
                }
                return;
            }
            memcpy(j->out + (size_t)(p * j->osz + at) * j->es,
                   j->in + (size_t)(p * j->isz + i) * j->es, j->es);
        }
    }
}

/* max_unpool2d / 3d (nsp spatial dims): self's values scattered into a zero output of
 * out[0..nsp) per plane at the flat positions of indices. Of equal positions in a plane
 * the last wins (PyTorch writes all elements in parallel, so there which one wins is not
 * defined). */
static AOTITorchError unpool(const char *op, const char *fn, int nsp, AtenTensorHandle self,
                             AtenTensorHandle indices, const int64_t *out, AtenTensorHandle *ret0) {
    /* (any dtype of self: PyTorch refuses a dtype its kernel lacks only for a non-empty
     * result, below) */
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, indices, "indices"))
        return AOTI_TORCH_FAILURE;
    if (indices->dtype != SHIMRT_INT64)
        return shimrt_fail(op, "elements in indices should be type int64 but got: %s",
                           shimrt_dtype_torch_name(indices->dtype));
    char a[128], b[128];
    if (self->ndim != indices->ndim ||
        memcmp(self->sizes, indices->sizes, (size_t)self->ndim * sizeof *self->sizes))
        return shimrt_fail(op,
                           "Expected shape of indices to be same as that of the input tensor "
                           "(%s) but got indices tensor with shape: %s",
                           shimrt_k_fmt_shape(a, sizeof a, self->ndim, self->sizes),
                           shimrt_k_fmt_shape(b, sizeof b, indices->ndim, indices->sizes));
    for (int i = 0; i < nsp; i++)
        if (out[i] < 0)
            return shimrt_fail(op,
                               "%s(): output_size must contain non-negative spatial dimensions, "
                               "but got output_size=%s",
                               fn, shimrt_k_fmt_shape(a, sizeof a, nsp, out));
    if (self->ndim != nsp + 1 && self->ndim != nsp + 2)
        return shimrt_fail(op,
                           "Input to %s should be a %dd or %dd Tensor, but got a tensor with %lld "
                           "dimensions.",
                           fn, nsp + 1, nsp + 2, (long long)self->ndim);
    for (int64_t i = self->ndim - nsp - 1; i < self->ndim; i++)
        if (self->sizes[i] == 0)
            return shimrt_fail(op,
                               "%s_forward_out_cpu(): Expected input to have non-zero size for "
                               "non-batch dimensions, but input has sizes %s with dimension "
                               "%lld being empty",
                               fn, shimrt_k_fmt_shape(a, sizeof a, self->ndim, self->sizes),
                               (long long)i);
    int64_t lead = self->ndim - nsp, shape[5], planes = 1, osz = 1, isz = 1;
    for (int64_t i = 0; i < lead; i++) planes *= shape[i] = self->sizes[i];
    bool big = false;
    for (int i = 0; i < nsp; i++) {
        big |= __builtin_mul_overflow(osz, out[i], &osz);
        shape[lead + i] = out[i];
        isz *= self->sizes[lead + i];
    }
    int64_t total;
    if (big || __builtin_mul_overflow(osz, planes, &total))
        return shimrt_fail(op, "numel: integer multiplication overflow");
    /* PyTorch picks the kernel by dtype only for a non-empty result */
    if (planes * osz > 0 && !shimrt_k_is_floating(self->dtype))
        return shimrt_fail(op, "\"%s\" not implemented for '%s'", op,
                           shimrt_dtype_torch_name(self->dtype));
    bool cl = nsp == 2 && self->ndim == 4 && shimrt_k_strides_like_cl(self) &&
              !shimrt_is_contiguous(self);
    AtenTensorHandle res = shimrt_k_new(op, self->ndim, shape, self->dtype), x = NULL, ix = NULL;
    if (!res) return AOTI_TORCH_FAILURE;
    if (planes * osz > 0) /* (an empty result may have no data pointer) */
        memset(shimrt_data(res), 0, (size_t)(planes * osz) * shimrt_dtype_size(self->dtype));
    AOTITorchError err = AOTI_TORCH_SUCCESS;
    if (planes * osz > 0 && planes * isz > 0) {
        err = shimrt_pl_dense(op, self, &x) || shimrt_pl_dense(op, indices, &ix)
                  ? AOTI_TORCH_FAILURE
                  : AOTI_TORCH_SUCCESS;
        unpool_job j = {.in = x ? shimrt_data(x) : NULL,
                        .idx = ix ? shimrt_data(ix) : NULL,
                        .out = shimrt_data(res),
                        .es = shimrt_dtype_size(self->dtype),
                        .isz = isz,
                        .osz = osz,
                        .bad_plane = -1};
        if (!err) torch_parallel_for(0, planes, 1 + 16384 / (isz + 1), unpool_planes, &j);
        if (!err && j.bad_plane >= 0) {
            shimrt_k_fmt_shape(a, sizeof a, nsp, out);
            for (char *q = a; *q; q++) /* "[4, 6, 7]" as "4x6x7" */
                if (*q == ',') *q = 'x';
            char *w = a;
            for (const char *q = a; *q; q++)
                if (*q != '[' && *q != ']' && *q != ' ') *w++ = *q;
            *w = 0;
            err =
                shimrt_fail(op, "Found an invalid max index: %lld (output volumes are of size %s)",
                            (long long)j.bad_index, a);
        }
    }
    if (x && x != self) shimrt_tensor_free(x);
    if (ix && ix != indices) shimrt_tensor_free(ix);
    if (!err && cl) {
        err = shimrt_pl_channels_last(op, &res);
    }
    if (err) {
        shimrt_tensor_free(res);
        return AOTI_TORCH_FAILURE;
    }
    *ret0 = res;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_max_unpool2d(AtenTensorHandle self, AtenTensorHandle indices,
                                       const int64_t *output_size, int64_t output_size_len_,
                                       AtenTensorHandle *ret0) {
    static const char op[] = "max_unpool2d";
    if (output_size_len_ != 2)
        return shimrt_fail(op,
                           "There should be exactly two elements (height, width) in "
                           "output_size, but got %lld elements.",
                           (long long)output_size_len_);
    return unpool(op, "max_unpooling2d", 2, self, indices, output_size, ret0);
}

AOTITorchError shimrt_cpu_max_unpool3d(AtenTensorHandle self, AtenTensorHandle indices,
                                       const int64_t *output_size, int64_t output_size_len_,
                                       const int64_t *stride, int64_t stride_len_,
                                       const int64_t *padding, int64_t padding_len_,
                                       AtenTensorHandle *ret0) {
    static const char op[] = "max_unpool3d";
    const struct {
        const char *what;
        int64_t n;
    } lists[3] = {
        {"output_size", output_size_len_}, {"stride", stride_len_}, {"padding", padding_len_}};
    for (int i = 0; i < 3; i++)
        if (lists[i].n != 3)
            return shimrt_fail(op,
                               "There should be exactly three elements (depth, height, width) in "
                               "%s, but got%s %lld elements.",
                               lists[i].what, i ? ":" : "", (long long)lists[i].n);
    for (int i = 0; i < 3; i++)
        if (stride[i] <= 0) {
            char a[64];
            return shimrt_fail(op, "strides should be greater than zero, but got stride: %s",
                               shimrt_k_fmt_shape(a, sizeof a, 3, stride));
        }
    (void)padding; /* PyTorch's forward checks the stride only */
    return unpool(op, "max_unpooling3d", 3, self, indices, output_size, ret0);
}

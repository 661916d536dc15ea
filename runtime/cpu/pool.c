/* runtime/cpu/pool.c: 2-d pooling of c_shim_cpu.h for AOTInductor CPU graphs:
 * max_pool2d_with_indices, avg_pool2d, _adaptive_avg_pool2d, adaptive_max_pool2d: PyTorch's
 * argument checks, then the pooling engine of pool_nd.c (shared with the 3-d kernels of
 * pool3d.c; its comment says which rules it follows). A channels-last input gives a
 * channels-last result. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"
#include "engine.h"
#include "pool_nd.h"

SHIMRT_PL_KERNELS(2)

/* the adaptive 2-d pools' run once checked: output_size's two sizes */
static AOTITorchError adaptive_run(const char *op, int kind, AtenTensorHandle self,
                                   const int64_t *output_size, AtenTensorHandle *ret0,
                                   AtenTensorHandle *ret1) {
    shimrt_pl c = {.nsp = 2, .kind = kind, .adaptive = true};
    c.out[1] = output_size[0];
    c.out[2] = output_size[1];
    return shimrt_pl_run(op, self, &c, ret0, ret1);
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
    if (shimrt_k_check_cpu(op, self, "self") ||
        (!sh_dtype_wide(self->dtype) && shimrt_k_check_dtype(op, self, "self")))
        return AOTI_TORCH_FAILURE; /* uint16/32/64, complex: an empty result only (below) */
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
    if (n > 0 && !shimrt_k_is_floating(self->dtype)) /* the kernel of self's memory format */
        return shimrt_fail(op, "\"adaptive_avg_pool2d%s\" not implemented for '%s'",
                           self->ndim == 4 && shimrt_k_strides_like_cl(self) ? "_channels_last"
                                                                             : "",
                           shimrt_dtype_torch_name(self->dtype));
    return adaptive_run(op, SHIMRT_PL_AVG, self, output_size, ret0, NULL);
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
    return adaptive_run(op, SHIMRT_PL_MAX, self, output_size, ret0, ret1);
}

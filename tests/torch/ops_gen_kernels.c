/* tests/torch/ops_gen_kernels.c: the Generator kernels of tests/torch/ops_gen (they call
 * functions of PyTorch 2.13: built with --torch-version 2.13 only). */
#include <shimrt/shim_support.h>

#include "compositeexplicitautograd_kernels.h"

/* A new 1-D float64 CPU tensor holding v[0..4). */
static AOTITorchError vec4(const double *v, AtenTensorHandle *ret) {
    int64_t size = 4, stride = 1;
    AtenTensorHandle t = NULL;
    double *data = NULL;
    if (aoti_torch_empty_strided(1, &size, &stride, aoti_torch_dtype_float64(),
                                 aoti_torch_device_type_cpu(), 0, &t))
        return AOTI_TORCH_FAILURE;
    if (aoti_torch_get_data_ptr(t, (void **)&data)) {
        aoti_torch_delete_tensor_object(t);
        return AOTI_TORCH_FAILURE;
    }
    for (int i = 0; i < 4; i++) data[i] = v[i];
    *ret = t;
    return AOTI_TORCH_SUCCESS;
}

/* [device type, device index] of g, then of h (-2, -2 when h is None). */
AOTITorchError sgt_generator_device(AtenGeneratorHandle g, AtenGeneratorHandle *h,
                                    AtenTensorHandle *ret0) {
    int32_t t = 0, i = 0;
    double out[4] = {-2, -2, -2, -2};
    if (torch_generator_get_device(g, &t, &i)) return AOTI_TORCH_FAILURE;
    out[0] = t;
    out[1] = i;
    if (h) {
        if (torch_generator_get_device(*h, &t, &i)) return AOTI_TORCH_FAILURE;
        out[2] = t;
        out[3] = i;
    }
    return vec4(out, ret0);
}

/* A new reference to the same generator (the caller sees the very same object). */
AOTITorchError sgt_same_generator(AtenGeneratorHandle g, AtenGeneratorHandle *ret0) {
    return torch_new_generator_handle(g, ret0);
}

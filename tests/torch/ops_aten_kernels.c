/* tests/torch/ops_aten_kernels.c: the kernels of tests/torch/ops_aten. Each only forwards
 * its arguments to the dispatcher-routed shim aoti_torch_aten_sgt_<op> of the op of the
 * same signature (tests/torch/ops), converting the kernel form of an argument to the shim
 * form where they differ (docs/kernels.md): the call goes through PyTorch's dispatcher. */
#include <shimrt/shim_support.h>

#include "c_shim_aten.h"
#include "compositeexplicitautograd_kernels.h"
#include "cpu_kernels.h"

AOTITorchError sgt_via_echo_ints(int64_t a, int64_t *b, const int64_t *c, int64_t c_len_,
                                 const int64_t *d, int64_t d_len_, int64_t e,
                                 AtenTensorHandle *ret0) {
    return aoti_torch_aten_sgt_echo_ints(a, b, c, c_len_, d ? &d : NULL, d_len_, e, ret0);
}

AOTITorchError sgt_via_echo_floats(double a, double *b, const double *c, int64_t c_len_,
                                   const double *d, int64_t d_len_, AtenTensorHandle *ret0) {
    return aoti_torch_aten_sgt_echo_floats(a, b, c, c_len_, d ? &d : NULL, d_len_, ret0);
}

AOTITorchError sgt_via_echo_bools(int32_t a, int32_t *b, const int32_t *c, int64_t c_len_,
                                  AtenTensorHandle *ret0) {
    return aoti_torch_aten_sgt_echo_bools(a, b, c, c_len_, ret0);
}

AOTITorchError sgt_via_echo_codes(int32_t a, int32_t *b, int32_t c, int32_t *d, const int32_t *e,
                                  int64_t e_len_, AtenTensorHandle *ret0) {
    return aoti_torch_aten_sgt_echo_codes(a, b, c, d, e, e_len_, ret0);
}

AOTITorchError sgt_via_echo_device(int32_t a, int32_t a_index_, int32_t *b, int32_t b_index_,
                                   int32_t c, int32_t *d, AtenTensorHandle *ret0) {
    return aoti_torch_aten_sgt_echo_device(a, a_index_, b, b_index_, c, d, ret0);
}

AOTITorchError sgt_via_echo_str(const char *a, const char **b, const char **ret0) {
    return aoti_torch_aten_sgt_echo_str(a, b, ret0);
}

AOTITorchError sgt_via_sum_tensors(const AtenTensorHandle *xs, int64_t xs_len_,
                                   const AtenTensorHandle *ys, int64_t ys_len_, AtenTensorHandle z,
                                   AtenTensorHandle *ret0) {
    enum { MAX = 16 };
    const AtenTensorHandle *items[MAX];
    if (ys_len_ > MAX) return shimrt_set_error(__func__, "at most %d ys", MAX);
    for (int64_t k = 0; k < ys_len_; k++) items[k] = ys[k] ? &ys[k] : NULL;
    return aoti_torch_aten_sgt_sum_tensors(xs, xs_len_, items, ys_len_, z ? &z : NULL, ret0);
}

AOTITorchError sgt_via_fail_late(AtenTensorHandle x, const AtenTensorHandle *ys, int64_t ys_len_,
                                 AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    return aoti_torch_aten_sgt_fail_late(x, ys, ys_len_, ret0, ret1);
}

AOTITorchError sgt_via_scale_(AtenTensorHandle self, double f) {
    return aoti_torch_aten_sgt_scale_(self, f);
}

AOTITorchError sgt_via_fail(AtenTensorHandle x, const char *message, AtenTensorHandle *ret0) {
    return aoti_torch_aten_sgt_fail(x, message, ret0);
}

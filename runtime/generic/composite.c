/* runtime/generic/composite.c: the device-generic halves of composite kernels
 * (CompositeExplicitAutograd / CompositeImplicitAutograd ops that the generated shims of
 * every device call: embedding, _foreach_mul, layer_norm; their CPU halves are in
 * runtime/cpu/). A composite that touches element data of a tensor that is not on the CPU
 * does so by calling ops through the dispatcher, which runs each on its tensors' device
 * (that device's kernel, else its CPU fallback), or through the device rows' copy and fill
 * (shimrt_backend_copy / shimrt_backend_fill): never with host loads and stores, which on a
 * GPU would go through device pointers (docs/architecture.md, "The runtime's layers";
 * tests/cuda/test_cuda_composite.c checks it with the fake driver's guard mode). */
#include <string.h>

#include <shimrt/shim_support.h>

#include "meta.h"

AOTITorchError shimrt_k_index_select_any(const char *op, AtenTensorHandle self, int64_t dim,
                                         AtenTensorHandle index, AtenTensorHandle *ret0) {
    static shimrt_op_cache cache;
    StableIValue stack[3];
    shimrt_pack p;
    shimrt_pack_begin(&p, op, stack, 3);
    shimrt_pack_tensor(&p, "self", self);
    shimrt_pack_int(&p, dim);
    shimrt_pack_tensor(&p, "index", index);
    if (shimrt_pack_call(&p, &cache, "aten::index_select", "")) return AOTI_TORCH_FAILURE;
    *ret0 = siv_to_tensor(stack[0]);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_k_mul_any(const char *op, AtenTensorHandle self, AtenTensorHandle other,
                                AtenTensorHandle *ret0) {
    static shimrt_op_cache cache;
    StableIValue stack[2];
    shimrt_pack p;
    shimrt_pack_begin(&p, op, stack, 2);
    shimrt_pack_tensor(&p, "self", self);
    shimrt_pack_tensor(&p, "other", other);
    if (shimrt_pack_call(&p, &cache, "aten::mul", "Tensor")) return AOTI_TORCH_FAILURE;
    *ret0 = siv_to_tensor(stack[0]);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_k_mul_inplace_any(const char *op, AtenTensorHandle self,
                                        AtenTensorHandle other) {
    /* self.mul_(other): mul.Tensor on the device, then (as an in-place op's checks: the
     * result's dtype castable to self's, its shape self's) copied into self by the rows */
    AtenTensorHandle r = NULL;
    if (shimrt_k_mul_any(op, self, other, &r)) return AOTI_TORCH_FAILURE;
    AOTITorchError rc = shimrt_k_inplace_check(op, self, r);
    if (!rc) rc = shimrt_backend_copy(op, self, r);
    shimrt_tensor_free(r);
    return rc;
}

AOTITorchError shimrt_k_layer_norm_any(const char *op, AtenTensorHandle input,
                                       const int64_t *normalized_shape, int64_t n,
                                       AtenTensorHandle weight, AtenTensorHandle bias, double eps,
                                       AtenTensorHandle *ret0) {
    static shimrt_op_cache cache;
    StableIValue stack[5];
    shimrt_pack p;
    shimrt_pack_begin(&p, op, stack, 5);
    shimrt_pack_tensor(&p, "input", input);
    shimrt_pack_int_list(&p, "normalized_shape", normalized_shape, n);
    shimrt_pack_opt_tensor(&p, "weight", weight ? &weight : NULL);
    shimrt_pack_opt_tensor(&p, "bias", bias ? &bias : NULL);
    shimrt_pack_float(&p, eps);
    if (shimrt_pack_call(&p, &cache, "aten::native_layer_norm", "")) return AOTI_TORCH_FAILURE;
    /* layer_norm is native_layer_norm's first result; mean and rstd are dropped */
    shimrt_pop_discard(SHIMRT_KIND_TENSOR, stack[1]);
    shimrt_pop_discard(SHIMRT_KIND_TENSOR, stack[2]);
    *ret0 = siv_to_tensor(stack[0]);
    return AOTI_TORCH_SUCCESS;
}

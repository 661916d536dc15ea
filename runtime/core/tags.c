/* runtime/core/tags.c: the torch_tag_*() codes (PyTorch 2.12). The numbers are ours: the
 * getters keep them out of the ABI. */
#include "dispatch_internal.h"

static const char *const tag_names[SHIMRT_NUM_TAGS] = {
    "core", "cudagraph_unsafe", "data_dependent_output", "dynamic_output_shape",
    "flexible_layout", "generated", "inplace_view", "maybe_aliasing_or_mutating",
    "needs_contiguous_strides", "needs_exact_strides", "needs_fixed_stride_order",
    "nondeterministic_bitwise", "nondeterministic_seeded", "out_variant", "pointwise",
    "pt2_compliant_tag", "reduction", "view_copy",
};

const char *shimrt_tag_name(int32_t tag) {
    return tag >= 0 && tag < SHIMRT_NUM_TAGS ? tag_names[tag] : NULL;
}

#define TAG(name, code) \
    AOTI_TORCH_EXPORT int32_t torch_tag_##name(void) { return code; }
TAG(core, 0)
TAG(cudagraph_unsafe, 1)
TAG(data_dependent_output, 2)
TAG(dynamic_output_shape, 3)
TAG(flexible_layout, 4)
TAG(generated, 5)
TAG(inplace_view, 6)
TAG(maybe_aliasing_or_mutating, 7)
TAG(needs_contiguous_strides, 8)
TAG(needs_exact_strides, 9)
TAG(needs_fixed_stride_order, 10)
TAG(nondeterministic_bitwise, 11)
TAG(nondeterministic_seeded, 12)
TAG(out_variant, 13)
TAG(pointwise, 14)
TAG(pt2_compliant_tag, 15)
TAG(reduction, 16)
TAG(view_copy, 17)

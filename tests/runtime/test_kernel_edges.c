/* tests/runtime/test_kernel_edges.c: the error and edge paths the dispatcher fuzzer found in
 * the c_shim_cpu.h kernels (each was undefined behaviour under UBSan): an output size whose
 * element count overflows, a slice step near INT64_MAX, searchsorted of an empty sequence. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "c_shim_cpu.h"
#include "shimrt/shimrt.h"

static AtenTensorHandle f32(int64_t nd, const int64_t *sizes) {
    int64_t st[8], s = 1;
    for (int64_t i = nd - 1; i >= 0; i--) st[i] = s, s *= sizes[i];
    AtenTensorHandle t = NULL;
    cr_assert_eq(aoti_torch_empty_strided(nd, sizes, st, aoti_torch_dtype_float32(),
                                          aoti_torch_device_type_cpu(), 0, &t),
                 0);
    void *p = NULL;
    aoti_torch_get_data_ptr(t, &p);
    for (int64_t i = 0; i < s; i++) ((float *)p)[i] = (float)i;
    return t;
}

Test(kernel_edges, adaptive_avg_pool2d_output_count_overflow_is_refused) {
    int64_t sz[3] = {1, 2, 2}, out[2] = {INT64_C(1) << 62, 4};
    AtenTensorHandle x = f32(3, sz), r = NULL;
    cr_assert_eq(aoti_torch_cpu__adaptive_avg_pool2d(x, out, 2, &r), AOTI_TORCH_FAILURE);
    cr_assert(strstr(torch_exception_get_what(), "does not fit"), "%s", torch_exception_get_what());
    aoti_torch_delete_tensor_object(x);
}

/* PyTorch's own length computation overflows here (it gives 0 elements); ours is ceil(5 / step). */
Test(kernel_edges, slice_with_a_huge_step_has_one_element) {
    int64_t sz[1] = {5}, s = 0, e = 5, n = 0;
    AtenTensorHandle x = f32(1, sz), r = NULL;
    cr_assert_eq(aoti_torch_cpu_slice_Tensor(x, 0, &s, &e, INT64_MAX, &r), 0);
    int64_t *rs = NULL;
    aoti_torch_get_sizes(r, &rs);
    n = rs[0];
    cr_assert_eq(n, 1);
    aoti_torch_delete_tensor_object(r);
    aoti_torch_delete_tensor_object(x);
}

Test(kernel_edges, searchsorted_in_an_empty_sequence_gives_zeros) {
    int64_t z[1] = {0}, three[1] = {3};
    AtenTensorHandle seq = f32(1, z), v = f32(1, three), r = NULL;
    cr_assert_eq(aoti_torch_cpu_searchsorted_Tensor(seq, v, 0, 0, NULL, NULL, &r), 0);
    void *p = NULL;
    aoti_torch_get_data_ptr(r, &p);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(((int64_t *)p)[i], 0); /* torch.searchsorted: [0, 0, 0] */
    aoti_torch_delete_tensor_object(r);
    aoti_torch_delete_tensor_object(seq);
    aoti_torch_delete_tensor_object(v);
}

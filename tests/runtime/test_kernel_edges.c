/* tests/runtime/test_kernel_edges.c: the error and edge paths the dispatcher fuzzer found in
 * the c_shim_cpu.h kernels (each was undefined behaviour under UBSan): an output size whose
 * element count overflows, a slice step near INT64_MAX (and the offset of an empty slice),
 * searchsorted of an empty sequence. */
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

/* A huge step: PyTorch rounds the length up as (len + step - 1) / step in wrapping int64
 * arithmetic. PyTorch 2.15: torch.ops.aten.slice.Tensor(torch.arange(5.), 0, 0, 5, 2**63-1)
 * has shape [0] and storage offset 0; with end 2 it fails ("Storage size calculation
 * overflowed with sizes=[-1]"); from start 5 (or 9) with step 1 it has shape [0] and
 * storage offset 5 (start clamped to the size, the offset moved even for an empty result). */
static int64_t slice_of_5(int64_t s, int64_t e, int64_t step, int64_t *size, int64_t *off) {
    int64_t sz[1] = {5};
    AtenTensorHandle x = f32(1, sz), r = NULL;
    int64_t err = aoti_torch_cpu_slice_Tensor(x, 0, &s, &e, step, &r);
    if (!err) {
        int64_t *rs = NULL;
        aoti_torch_get_sizes(r, &rs);
        *size = rs[0];
        aoti_torch_get_storage_offset(r, off);
        aoti_torch_delete_tensor_object(r);
    }
    aoti_torch_delete_tensor_object(x);
    return err;
}

Test(kernel_edges, slice_with_a_huge_step_wraps_as_pytorch) {
    int64_t n = -1, off = -1;
    cr_assert_eq(slice_of_5(0, 5, INT64_MAX, &n, &off), 0);
    cr_assert_eq(n, 0);
    cr_assert_eq(off, 0);
    cr_assert_eq(slice_of_5(0, 2, INT64_MAX, &n, &off), AOTI_TORCH_FAILURE);
}

Test(kernel_edges, empty_slice_moves_the_storage_offset) {
    int64_t n = -1, off = -1;
    cr_assert_eq(slice_of_5(5, 5, 1, &n, &off), 0);
    cr_assert_eq(n, 0);
    cr_assert_eq(off, 5);
    cr_assert_eq(slice_of_5(9, 2, 1, &n, &off), 0);
    cr_assert_eq(n, 0);
    cr_assert_eq(off, 5);
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

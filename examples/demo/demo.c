/* examples/demo/demo.c: the runtime's own ops, generated from schemas/, called three ways.
 *
 *   1. aoti_torch_cpu_add_Tensor   the direct CPU shim (c_shim_cpu.h): checks, then the kernel
 *   2. aoti_torch_aten_mm          the aten shim (c_shim_aten.h): a stack through the dispatcher
 *   3. torch_call_dispatcher       by name, with a StableIValue stack built by hand
 *
 * Prints each step and its result; exits non-zero on any failure. */
#include <stdio.h>
#include <stdlib.h>

#include <shimrt/shimrt.h>

#include "c_shim_aten.h"
#include "c_shim_cpu.h"

#define CHECK(call)                                                                                \
    do {                                                                                           \
        if ((call) != AOTI_TORCH_SUCCESS) {                                                        \
            fprintf(stderr, "demo: %s failed: %s\n", #call, torch_exception_get_what());           \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static void print_tensor(const char *label, AtenTensorHandle t) {
    int64_t dim, numel;
    int64_t *sizes, *strides;
    void *data;
    CHECK(aoti_torch_get_dim(t, &dim));
    CHECK(aoti_torch_get_numel(t, &numel));
    CHECK(aoti_torch_get_sizes(t, &sizes));
    CHECK(aoti_torch_get_strides(t, &strides));
    CHECK(aoti_torch_get_data_ptr(t, &data));
    printf("  %-28s shape [", label);
    for (int64_t d = 0; d < dim; d++) printf(d ? ", %lld" : "%lld", (long long)sizes[d]);
    printf("] = [");
    /* Walk in logical (row-major) order through the strides. */
    for (int64_t i = 0; i < numel; i++) {
        int64_t rem = i, off = 0;
        for (int64_t d = dim - 1; d >= 0; d--) {
            off += (rem % sizes[d]) * strides[d];
            rem /= sizes[d];
        }
        printf(i ? ", %g" : "%g", (double)((const float *)data)[off]);
    }
    printf("]\n");
}

int main(void) {
    static float a_data[6] = {1, 2, 3, 4, 5, 6};
    static float b_data[6] = {10, 20, 30, 40, 50, 60};
    const int64_t sizes[2] = {2, 3}, strides[2] = {3, 1};
    AtenTensorHandle a, b, sum, bt, prod, total;

    printf("demo: tensors from blobs (float32, 2x3, borrowed memory)\n");
    CHECK(aoti_torch_create_tensor_from_blob(a_data, 2, sizes, strides, 0,
                                             aoti_torch_dtype_float32(),
                                             aoti_torch_device_type_cpu(), 0, &a));
    CHECK(aoti_torch_create_tensor_from_blob(b_data, 2, sizes, strides, 0,
                                             aoti_torch_dtype_float32(),
                                             aoti_torch_device_type_cpu(), 0, &b));
    print_tensor("a", a);
    print_tensor("b", b);

    printf("demo: 1. direct CPU shim aoti_torch_cpu_add_Tensor(a, b, alpha=0.5)\n");
    CHECK(aoti_torch_cpu_add_Tensor(a, b, 0.5, &sum));
    print_tensor("a + 0.5 * b", sum);

    printf("demo: 2. aten shim (dispatcher) aoti_torch_aten_transpose_int, aoti_torch_aten_mm\n");
    CHECK(aoti_torch_aten_transpose_int(b, 0, 1, &bt));
    print_tensor("b.T (a view, strides [1, 3])", bt);
    CHECK(aoti_torch_aten_mm(a, bt, &prod));
    print_tensor("a @ b.T", prod);

    printf("demo: 3. torch_call_dispatcher(\"aten::sum\", \"dim_IntList\", stack)\n");
    StableListHandle dims;
    CHECK(torch_new_list_reserve_size(1, &dims));
    CHECK(torch_list_push_back(dims, siv_from_int(1)));
    StableIValue dim_opt; /* int[1]? dim: a heap cell holding the list */
    CHECK(siv_new_optional(siv_from_list(dims), &dim_opt));
    AtenTensorHandle prod_ref;
    CHECK(aoti_torch_new_tensor_handle(prod, &prod_ref)); /* the stack takes this reference */
    StableIValue stack[4] = {siv_from_tensor(prod_ref), dim_opt, siv_from_bool(false), siv_none()};
    CHECK(torch_call_dispatcher("aten::sum", "dim_IntList", stack, TORCH_ABI_VERSION));
    total = siv_to_tensor(stack[0]); /* a new reference, ours now */
    print_tensor("(a @ b.T).sum(dim=1)", total);

    printf("demo: an error is a code and a message, never a crash\n");
    AtenTensorHandle bad = NULL;
    if (aoti_torch_aten_mm(a, b, &bad) == AOTI_TORCH_SUCCESS) {
        fprintf(stderr, "demo: mm of [2, 3] and [2, 3] should have failed\n");
        return 1;
    }
    printf("  aoti_torch_aten_mm(a, b): %s\n", torch_exception_get_what());

    AtenTensorHandle all[] = {a, b, sum, bt, prod, total};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        CHECK(aoti_torch_delete_tensor_object(all[i]));
    printf("demo: done\n");
    return 0;
}

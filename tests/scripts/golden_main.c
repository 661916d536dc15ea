/* tests/scripts/golden_main.c: runs the golden sample of examples/golden/ end to end
 * (built and run by tests/scripts/golden.sh; not a Criterion suite because it links the
 * golden objects, which define the same symbols as the generated code, ahead of
 * libshimrt.a).
 *
 * For add.Tensor, sum.dim_IntList and copy_: the cpu shim, the aten shim (through the
 * dispatcher) and the boxed wrapper (called directly and through torch_call_dispatcher),
 * each compared with a reference computed here, on contiguous and non-contiguous
 * inputs; and the error paths of shim_support.h (NULL handle, NULL return pointer, bad
 * list, shape mismatch through the dispatcher, wrong stack counts). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shimrt/shim_support.h>

#include "c_boxed_cpu.h"
#include "c_shim_aten.h"
#include "c_shim_cpu.h"

static int failures;
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "golden: %s:%d: check failed: %s (last error: %s)\n", __FILE__,        \
                    __LINE__, #cond, torch_exception_get_what());                                  \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)
#define CHECK_MSG(frag) CHECK(strstr(torch_exception_get_what(), (frag)) != NULL)

/* A float32 CPU tensor of the given sizes and strides over a fresh storage of
 * storage_numel elements, storage element k holding base + k / 2. */
static AtenTensorHandle make(int64_t ndim, const int64_t *sizes, const int64_t *strides,
                             int64_t storage_numel, float base) {
    AtenTensorHandle t = NULL;
    if (aoti_torch_empty_strided(ndim, sizes, strides, aoti_torch_dtype_float32(),
                                 aoti_torch_device_type_cpu(), 0, &t) != AOTI_TORCH_SUCCESS)
        return NULL;
    float *d = NULL;
    aoti_torch_get_data_ptr(t, (void **)&d);
    for (int64_t k = 0; k < storage_numel; k++) d[k] = base + (float)k * 0.5f;
    return t;
}

/* Element (i, j) of a 2-d float32 tensor. */
static float at2(AtenTensorHandle t, int64_t i, int64_t j) {
    float *d = NULL;
    int64_t *st = NULL;
    aoti_torch_get_data_ptr(t, (void **)&d);
    aoti_torch_get_strides(t, &st);
    return d[i * st[0] + j * st[1]];
}
static double at1_f64(AtenTensorHandle t, int64_t i) {
    double *d = NULL;
    int64_t *st = NULL;
    aoti_torch_get_data_ptr(t, (void **)&d);
    aoti_torch_get_strides(t, &st);
    return d[i * st[0]];
}

static int64_t dim_of(AtenTensorHandle t) {
    int64_t d = -1;
    aoti_torch_get_dim(t, &d);
    return d;
}

/* A stack value holding a new reference to t. */
static StableIValue ref(AtenTensorHandle t) {
    AtenTensorHandle h = NULL;
    aoti_torch_new_tensor_handle(t, &h);
    return siv_from_tensor(h);
}
static StableIValue scalar(double d) {
    ScalarHandle s = NULL;
    torch_new_scalar_double(d, &s);
    return siv_from_scalar(s);
}

static void check_add(AtenTensorHandle a, AtenTensorHandle b, AtenTensorHandle out, double alpha) {
    CHECK(out != NULL && dim_of(out) == 2);
    if (out == NULL) return;
    for (int64_t i = 0; i < 2; i++)
        for (int64_t j = 0; j < 3; j++)
            CHECK(fabsf(at2(out, i, j) - (at2(a, i, j) + (float)alpha * at2(b, i, j))) < 1e-5f);
}

static void test_add(AtenTensorHandle a, AtenTensorHandle b) {
    AtenTensorHandle r = NULL;
    /* (a) the cpu shim */
    CHECK(aoti_torch_cpu_add_Tensor(a, b, 2.0, &r) == AOTI_TORCH_SUCCESS);
    check_add(a, b, r, 2.0);
    aoti_torch_delete_tensor_object(r);
    /* (b) the aten shim, through the dispatcher and the boxed wrapper */
    r = NULL;
    CHECK(aoti_torch_aten_add_Tensor(a, b, 0.5, &r) == AOTI_TORCH_SUCCESS);
    check_add(a, b, r, 0.5);
    aoti_torch_delete_tensor_object(r);
    /* (c) torch_call_dispatcher with a stack */
    StableIValue stack[3] = {ref(a), ref(b), scalar(-1.0)};
    CHECK(torch_call_dispatcher("aten::add", "Tensor", stack, TORCH_ABI_VERSION) ==
          AOTI_TORCH_SUCCESS);
    check_add(a, b, siv_to_tensor(stack[0]), -1.0);
    aoti_torch_delete_tensor_object(siv_to_tensor(stack[0]));
    /* (d) the boxed wrapper called directly */
    StableIValue s2[3] = {ref(a), ref(b), scalar(3.0)};
    boxed_cpu_add_Tensor(s2, 3, 1);
    check_add(a, b, siv_to_tensor(s2[0]), 3.0);
    aoti_torch_delete_tensor_object(siv_to_tensor(s2[0]));
}

static void test_sum(AtenTensorHandle a) {
    const int64_t dims[1] = {1};
    const int64_t *dimp = dims;
    int32_t f64 = aoti_torch_dtype_float64();
    AtenTensorHandle r = NULL;
    /* sum over dim 1, as float64 */
    CHECK(aoti_torch_cpu_sum_dim_IntList(a, &dimp, 1, 0, &f64, &r) == AOTI_TORCH_SUCCESS);
    for (int64_t i = 0; r && i < 2; i++)
        CHECK(fabs(at1_f64(r, i) - ((double)at2(a, i, 0) + at2(a, i, 1) + at2(a, i, 2))) < 1e-5);
    aoti_torch_delete_tensor_object(r);
    r = NULL;
    CHECK(aoti_torch_aten_sum_dim_IntList(a, &dimp, 1, 0, &f64, &r) == AOTI_TORCH_SUCCESS);
    for (int64_t i = 0; r && i < 2; i++)
        CHECK(fabs(at1_f64(r, i) - ((double)at2(a, i, 0) + at2(a, i, 1) + at2(a, i, 2))) < 1e-5);
    aoti_torch_delete_tensor_object(r);
    /* dim None: a 0-d total, through the dispatcher with a stack */
    double total = 0;
    for (int64_t i = 0; i < 2; i++)
        for (int64_t j = 0; j < 3; j++) total += at2(a, i, j);
    StableIValue stack[4] = {ref(a), siv_none(), siv_from_bool(false), siv_none()};
    CHECK(torch_call_dispatcher("aten::sum", "dim_IntList", stack, TORCH_ABI_VERSION) ==
          AOTI_TORCH_SUCCESS);
    AtenTensorHandle t = siv_to_tensor(stack[0]);
    float v = 0;
    CHECK(dim_of(t) == 0 && aoti_torch_item_float32(t, &v) == AOTI_TORCH_SUCCESS &&
          fabs(v - total) < 1e-4);
    aoti_torch_delete_tensor_object(t);
    /* dim [1] and dtype float64 through the dispatcher: optional cells and a list */
    StableListHandle l = NULL;
    StableIValue dimv = 0, dtv = 0, listv;
    torch_new_list_reserve_size(1, &l);
    torch_list_push_back(l, siv_from_int(1));
    listv = siv_from_list(l);
    siv_new_optional(listv, &dimv);
    siv_new_optional(siv_from_scalar_type(f64), &dtv);
    StableIValue s2[4] = {ref(a), dimv, siv_from_bool(true), dtv};
    CHECK(torch_call_dispatcher("aten::sum", "dim_IntList", s2, TORCH_ABI_VERSION) ==
          AOTI_TORCH_SUCCESS);
    t = siv_to_tensor(s2[0]);
    CHECK(dim_of(t) == 2);
    aoti_torch_delete_tensor_object(t);
    /* errors: a NULL list pointer with a length, a NULL return pointer */
    const int64_t *nullp = NULL;
    CHECK(aoti_torch_cpu_sum_dim_IntList(a, &nullp, 2, 0, NULL, &r) == AOTI_TORCH_FAILURE);
    CHECK_MSG("aoti_torch_cpu_sum_dim_IntList");
    CHECK_MSG("'dim'");
    CHECK(aoti_torch_cpu_sum_dim_IntList(a, &dimp, -1, 0, NULL, &r) == AOTI_TORCH_FAILURE);
    CHECK_MSG("negative length");
    CHECK(aoti_torch_aten_sum_dim_IntList(a, NULL, 0, 0, NULL, NULL) == AOTI_TORCH_FAILURE);
    CHECK_MSG("'ret0'");
}

static void test_copy(AtenTensorHandle src) {
    const int64_t sizes[2] = {2, 3};
    AtenTensorHandle dst = NULL;
    aoti_torch_empty_strided(2, sizes, (const int64_t[]){3, 1}, aoti_torch_dtype_float32(),
                             aoti_torch_device_type_cpu(), 0, &dst);
    CHECK(aoti_torch_cpu_copy_(dst, src, 0) == AOTI_TORCH_SUCCESS);
    CHECK(at2(dst, 1, 2) == at2(src, 1, 2) && at2(dst, 0, 1) == at2(src, 0, 1));
    aoti_torch_zero_(dst);
    CHECK(aoti_torch_aten_copy_(dst, src, 0) == AOTI_TORCH_SUCCESS);
    CHECK(at2(dst, 1, 0) == at2(src, 1, 0));
    aoti_torch_zero_(dst);
    /* through the dispatcher: the return is an alias of self (same data) */
    StableIValue stack[3] = {ref(dst), ref(src), siv_from_bool(false)};
    CHECK(torch_call_dispatcher("aten::copy_", "", stack, TORCH_ABI_VERSION) == AOTI_TORCH_SUCCESS);
    AtenTensorHandle out = siv_to_tensor(stack[0]);
    void *p1 = NULL, *p2 = NULL;
    aoti_torch_get_data_ptr(out, &p1);
    aoti_torch_get_data_ptr(dst, &p2);
    CHECK(p1 == p2 && at2(dst, 0, 2) == at2(src, 0, 2));
    aoti_torch_delete_tensor_object(out);
    /* error: NULL self names the shim and the argument */
    CHECK(aoti_torch_cpu_copy_(NULL, src, 0) == AOTI_TORCH_FAILURE);
    CHECK_MSG("aoti_torch_cpu_copy_: argument 'self' is NULL");
    aoti_torch_delete_tensor_object(dst);
}

static void test_errors(AtenTensorHandle a) {
    AtenTensorHandle r = NULL;
    CHECK(aoti_torch_cpu_add_Tensor(a, NULL, 1.0, &r) == AOTI_TORCH_FAILURE);
    CHECK_MSG("aoti_torch_cpu_add_Tensor: argument 'other' is NULL");
    CHECK(aoti_torch_cpu_add_Tensor(a, a, 1.0, NULL) == AOTI_TORCH_FAILURE);
    CHECK_MSG("return pointer 'ret0' is NULL");
    CHECK(aoti_torch_aten_add_Tensor(NULL, a, 1.0, &r) == AOTI_TORCH_FAILURE);
    CHECK_MSG("aoti_torch_aten_add_Tensor: argument 'self' is NULL");
    /* shape mismatch through the dispatcher: the kernel's message comes back, the
     * wrapper released its arguments and zeroed the stack */
    const int64_t s4[1] = {4}, st1[1] = {1};
    AtenTensorHandle b = make(1, s4, st1, 4, 0.f);
    StableIValue stack[3] = {ref(a), ref(b), scalar(1.0)};
    CHECK(torch_call_dispatcher("aten::add", "Tensor", stack, TORCH_ABI_VERSION) ==
          AOTI_TORCH_FAILURE);
    CHECK_MSG("add.Tensor");
    CHECK(stack[0] == 0 && stack[1] == 0 && stack[2] == 0);
    CHECK(aoti_torch_aten_add_Tensor(a, b, 1.0, &r) == AOTI_TORCH_FAILURE);
    CHECK_MSG("aoti_torch_aten_add_Tensor");
    aoti_torch_delete_tensor_object(b);
    /* a boxed wrapper called with the wrong counts refuses without touching the stack */
    StableIValue s2[2] = {ref(a), ref(a)};
    boxed_cpu_add_Tensor(s2, 2, 1);
    CHECK_MSG("schema has 3 and 1");
    CHECK(siv_to_tensor(s2[0]) != NULL);
    aoti_torch_delete_tensor_object(siv_to_tensor(s2[0]));
    aoti_torch_delete_tensor_object(siv_to_tensor(s2[1]));
    /* registering the same namespace twice fails and leaves the first registration */
    TorchLibraryHandle d2 = NULL, i2 = NULL;
    CHECK(shimgen_register_aten_cpu(&d2, &i2) == AOTI_TORCH_FAILURE);
    CHECK(d2 == NULL && i2 == NULL);
    r = NULL;
    CHECK(aoti_torch_aten_add_Tensor(a, a, 1.0, &r) == AOTI_TORCH_SUCCESS);
    aoti_torch_delete_tensor_object(r);
}

int main(void) {
    TorchLibraryHandle def = NULL, impl = NULL;
    ShimrtOpHandle op = NULL;
    bool own = shimrt_op_find("aten::add", "Tensor", &op) != AOTI_TORCH_SUCCESS;
    if (own) {
        CHECK(shimgen_register_aten_cpu(&def, &impl) == AOTI_TORCH_SUCCESS);
    } else {
        printf("golden: the runtime registers aten itself; the dispatcher paths run its "
               "generated wrappers, the direct boxed calls run the golden ones\n");
    }
    const int64_t sizes[2] = {2, 3}, cont[2] = {3, 1}, trans[2] = {1, 2};
    AtenTensorHandle a = make(2, sizes, cont, 6, 1.f);   /* contiguous */
    AtenTensorHandle b = make(2, sizes, trans, 6, -2.f); /* non-contiguous (transposed) */
    CHECK(a != NULL && b != NULL);
    if (a && b) {
        test_add(a, b);
        test_add(b, a);
        test_sum(a);
        test_sum(b);
        test_copy(a);
        test_copy(b);
        if (own) test_errors(a);
    }
    aoti_torch_delete_tensor_object(a);
    aoti_torch_delete_tensor_object(b);
    if (impl) aoti_torch_delete_library_object(impl);
    if (def) aoti_torch_delete_library_object(def);
    if (failures) {
        fprintf(stderr, "golden: %d check(s) failed\n", failures);
        return 1;
    }
    printf("golden: add.Tensor, sum.dim_IntList, copy_ ok through the cpu shim, the aten "
           "shim, the dispatcher and the boxed wrappers\n");
    return 0;
}

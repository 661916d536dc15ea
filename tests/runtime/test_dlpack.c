/* tests/runtime/test_dlpack.c: DLPack 1.x export/import without copies (shimrt/dlpack.h). */
#include <stdlib.h>

#include "contig.h"
#include "shimrt_test.h"

Test(dlpack, struct_layout_matches_dlpack_1_0) {
    cr_assert_eq(sizeof(DLPackVersion), 8);
    cr_assert_eq(offsetof(DLManagedTensorVersioned, version), 0);
    cr_assert_eq(offsetof(DLManagedTensorVersioned, manager_ctx), 8);
    cr_assert_eq(offsetof(DLManagedTensorVersioned, deleter), 16);
    cr_assert_eq(offsetof(DLManagedTensorVersioned, flags), 24);
    cr_assert_eq(offsetof(DLManagedTensorVersioned, dl_tensor), 32);
    cr_assert_eq(offsetof(DLTensor, device), 8);
    cr_assert_eq(offsetof(DLTensor, ndim), 16);
    cr_assert_eq(offsetof(DLTensor, dtype), 20);
    cr_assert_eq(offsetof(DLTensor, shape), 24);
    cr_assert_eq(offsetof(DLTensor, strides), 32);
    cr_assert_eq(offsetof(DLTensor, byte_offset), 40);
    cr_assert_eq(sizeof(DLTensor), 48);
}

Test(dlpack, export_then_import_round_trip_shares_memory) {
    int64_t sizes[] = {2, 3};
    AtenTensorHandle t = make_f32(2, sizes), back;
    float *p;
    OK(aoti_torch_get_data_ptr(t, (void **)&p));
    for (int i = 0; i < 6; i++) p[i] = (float)i;
    DLManagedTensorVersioned *m;
    OK(shimrt_to_dlpack(t, &m));
    cr_assert_eq(m->version.major, 1);
    cr_assert_eq(m->dl_tensor.data, (void *)p);
    cr_assert_eq(m->dl_tensor.ndim, 2);
    cr_assert(m->dl_tensor.shape[0] == 2 && m->dl_tensor.shape[1] == 3);
    cr_assert(m->dl_tensor.strides[0] == 3 && m->dl_tensor.strides[1] == 1);
    cr_assert(m->dl_tensor.dtype.code == kDLFloat && m->dl_tensor.dtype.bits == 32 &&
              m->dl_tensor.dtype.lanes == 1);
    cr_assert_eq(m->dl_tensor.device.device_type, kDLCPU);
    OK(aoti_torch_delete_tensor_object(t)); /* the capsule keeps the memory alive */
    OK(shimrt_from_dlpack(m, &back));
    void *q;
    OK(aoti_torch_get_data_ptr(back, &q));
    cr_assert_eq(q, (void *)p, "no copy on either side");
    float x;
    AtenTensorHandle e;
    OK(aoti_torch__reinterpret_tensor(back, 0, NULL, NULL, 5, &e));
    OK(aoti_torch_item_float32(e, &x));
    cr_assert_eq(x, 5.0f);
    OK(aoti_torch_delete_tensor_object(e));
    OK(aoti_torch_delete_tensor_object(back)); /* calls the capsule's deleter */
}

/* A producer of our own: counts its deleter's calls. */
static int producer_deletes;
static void producer_deleter(DLManagedTensorVersioned *self) {
    producer_deletes++;
    free(self->dl_tensor.data);
    free(self);
}

static DLManagedTensorVersioned *produce(int64_t *shape, int64_t *strides, int32_t ndim) {
    DLManagedTensorVersioned *m = calloc(1, sizeof *m);
    m->version.major = 1;
    m->version.minor = 0;
    m->deleter = producer_deleter;
    m->dl_tensor.data = calloc(16, sizeof(int64_t));
    m->dl_tensor.device.device_type = kDLCPU;
    m->dl_tensor.ndim = ndim;
    m->dl_tensor.dtype.code = kDLInt;
    m->dl_tensor.dtype.bits = 64;
    m->dl_tensor.dtype.lanes = 1;
    m->dl_tensor.shape = shape;
    m->dl_tensor.strides = strides;
    return m;
}

Test(dlpack, import_calls_producer_deleter_exactly_once) {
    producer_deletes = 0;
    int64_t shape[] = {2, 2}, strides[] = {1, 2};
    DLManagedTensorVersioned *m = produce(shape, strides, 2);
    m->dl_tensor.byte_offset = 8;
    AtenTensorHandle t, alias;
    OK(shimrt_from_dlpack(m, &t));
    void *q;
    OK(aoti_torch_get_data_ptr(t, &q));
    cr_assert_eq(q, (char *)m->dl_tensor.data + 8, "byte_offset is honoured");
    int64_t *st;
    OK(aoti_torch_get_strides(t, &st));
    cr_assert(st[0] == 1 && st[1] == 2);
    int32_t dt;
    OK(aoti_torch_get_dtype(t, &dt));
    cr_assert_eq(dt, aoti_torch_dtype_int64());
    OK(aoti_torch_new_tensor_handle(t, &alias));
    OK(aoti_torch_delete_tensor_object(t));
    cr_assert_eq(producer_deletes, 0);
    OK(aoti_torch_delete_tensor_object(alias));
    cr_assert_eq(producer_deletes, 1);
}

Test(dlpack, import_null_strides_are_contiguous) {
    producer_deletes = 0;
    int64_t shape[] = {3, 5};
    DLManagedTensorVersioned *m = produce(shape, NULL, 2);
    AtenTensorHandle t;
    OK(shimrt_from_dlpack(m, &t));
    bool c;
    OK(aoti_torch_is_contiguous(t, &c));
    cr_assert(c);
    OK(aoti_torch_delete_tensor_object(t));
    cr_assert_eq(producer_deletes, 1);
}

Test(dlpack, import_errors_leave_ownership_with_caller) {
    producer_deletes = 0;
    int64_t shape[] = {4};
    DLManagedTensorVersioned *m = produce(shape, NULL, 1);
    AtenTensorHandle t;
    FAILS(shimrt_from_dlpack(NULL, &t), "shimrt_from_dlpack", "'managed' is NULL");
    FAILS(shimrt_from_dlpack(m, NULL), "shimrt_from_dlpack", "'ret' is NULL");
    m->version.major = 2;
    FAILS(shimrt_from_dlpack(m, &t), "shimrt_from_dlpack", "major version 2");
    m->version.major = 1;
    m->dl_tensor.device.device_type = kDLCUDA;
    FAILS(shimrt_from_dlpack(m, &t), "shimrt_from_dlpack", "in CUDA memory is not supported");
    m->dl_tensor.device.device_type = kDLVulkan;
    FAILS(shimrt_from_dlpack(m, &t), "shimrt_from_dlpack", "device type 7");
    m->dl_tensor.device.device_type = kDLCPU;
    m->dl_tensor.dtype.lanes = 4;
    FAILS(shimrt_from_dlpack(m, &t), "shimrt_from_dlpack", "lanes 4");
    m->dl_tensor.dtype.lanes = 1;
    m->dl_tensor.dtype.bits = 24;
    FAILS(shimrt_from_dlpack(m, &t), "shimrt_from_dlpack", "bits 24");
    m->dl_tensor.dtype.bits = 64;
    m->dl_tensor.ndim = 70;
    FAILS(shimrt_from_dlpack(m, &t), "shimrt_from_dlpack", "ndim 70");
    m->dl_tensor.ndim = 1;
    int64_t neg[] = {-1};
    m->dl_tensor.strides = neg;
    FAILS(shimrt_from_dlpack(m, &t), "shimrt_from_dlpack", "negative");
    m->dl_tensor.strides = NULL;
    m->dl_tensor.shape = NULL;
    FAILS(shimrt_from_dlpack(m, &t), "shimrt_from_dlpack", "shape is NULL");
    cr_assert_eq(producer_deletes, 0);
    m->deleter(m);
    cr_assert_eq(producer_deletes, 1);
}

Test(dlpack, export_errors_and_dtypes) {
    FAILS(shimrt_to_dlpack(NULL, NULL), "shimrt_to_dlpack", "NULL");
    int64_t s[] = {2};
    AtenTensorHandle f8, meta, ok;
    OK(aoti_torch_empty_strided(1, s, shimrt_test_strides(1, s), aoti_torch_dtype_float8_e5m2(), 0,
                                0, &f8));
    DLManagedTensorVersioned *m;
    FAILS(shimrt_to_dlpack(f8, &m), "shimrt_to_dlpack", "float8_e5m2 has no DLPack code");
    OK(aoti_torch_empty_strided(1, s, shimrt_test_strides(1, s), 6, aoti_torch_device_type_meta(),
                                0, &meta));
    FAILS(shimrt_to_dlpack(meta, &m), "shimrt_to_dlpack", "meta");
    FAILS(shimrt_to_dlpack(meta, NULL), "shimrt_to_dlpack", "'ret' is NULL");
    struct {
        int32_t dtype;
        uint8_t code, bits;
    } rows[] = {{0, kDLUInt, 8},     {1, kDLInt, 8},        {2, kDLInt, 16},   {3, kDLInt, 32},
                {4, kDLInt, 64},     {5, kDLFloat, 16},     {6, kDLFloat, 32}, {7, kDLFloat, 64},
                {9, kDLComplex, 64}, {10, kDLComplex, 128}, {11, kDLBool, 8},  {15, kDLBfloat, 16},
                {27, kDLUInt, 16},   {28, kDLUInt, 32},     {29, kDLUInt, 64}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        OK(aoti_torch_empty_strided(1, s, shimrt_test_strides(1, s), rows[i].dtype, 0, 0, &ok));
        OK(shimrt_to_dlpack(ok, &m));
        cr_assert(m->dl_tensor.dtype.code == rows[i].code &&
                      m->dl_tensor.dtype.bits == rows[i].bits,
                  "dtype %d", rows[i].dtype);
        AtenTensorHandle back;
        OK(shimrt_from_dlpack(m, &back));
        int32_t dt;
        OK(aoti_torch_get_dtype(back, &dt));
        cr_assert_eq(dt, rows[i].dtype);
        OK(aoti_torch_delete_tensor_object(back));
        OK(aoti_torch_delete_tensor_object(ok));
    }
    OK(aoti_torch_delete_tensor_object(f8));
    OK(aoti_torch_delete_tensor_object(meta));
}

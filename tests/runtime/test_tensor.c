/* tests/runtime/test_tensor.c: tensor lifetime, views and metadata (shimrt/tensor.h). */
#include <stdint.h>
#include <stdlib.h>

#include "contig.h"
#include "c_shim_aten.h"
#include "shimrt_test.h"

Test(codes, dtype_device_layout_memory_format_codes) {
    cr_assert_eq(aoti_torch_dtype_uint8(), 0);
    cr_assert_eq(aoti_torch_dtype_int8(), 1);
    cr_assert_eq(aoti_torch_dtype_int16(), 2);
    cr_assert_eq(aoti_torch_dtype_int32(), 3);
    cr_assert_eq(aoti_torch_dtype_int64(), 4);
    cr_assert_eq(aoti_torch_dtype_float16(), 5);
    cr_assert_eq(aoti_torch_dtype_float32(), 6);
    cr_assert_eq(aoti_torch_dtype_float64(), 7);
    cr_assert_eq(aoti_torch_dtype_complex32(), 8);
    cr_assert_eq(aoti_torch_dtype_complex64(), 9);
    cr_assert_eq(aoti_torch_dtype_complex128(), 10);
    cr_assert_eq(aoti_torch_dtype_bool(), 11);
    cr_assert_eq(aoti_torch_dtype_bfloat16(), 15);
    cr_assert_eq(aoti_torch_dtype_float8_e5m2(), 23);
    cr_assert_eq(aoti_torch_dtype_float8_e4m3fn(), 24);
    cr_assert_eq(aoti_torch_dtype_float8_e5m2fnuz(), 25);
    cr_assert_eq(aoti_torch_dtype_float8_e4m3fnuz(), 26);
    cr_assert_eq(aoti_torch_dtype_uint16(), 27);
    cr_assert_eq(aoti_torch_dtype_uint32(), 28);
    cr_assert_eq(aoti_torch_dtype_uint64(), 29);
    cr_assert_eq(torch_dtype_float8_e8m0fnu(), 44);
    cr_assert_eq(torch_dtype_float4_e2m1fn_x2(), 45);
    cr_assert_eq(aoti_torch_device_type_cpu(), 0);
    cr_assert_eq(aoti_torch_device_type_cuda(), 1);
    cr_assert_eq(aoti_torch_device_type_xpu(), 12);
    cr_assert_eq(aoti_torch_device_type_mps(), 13);
    cr_assert_eq(aoti_torch_device_type_meta(), 14);
    cr_assert_eq(aoti_torch_device_type_privateuse1(), 20);
    cr_assert_eq(aoti_torch_layout_strided(), 0);
    cr_assert_eq(aoti_torch_layout_sparse_coo(), 1);
    cr_assert_eq(aoti_torch_layout_sparse_csr(), 2);
    cr_assert_eq(aoti_torch_layout__mkldnn(), 3);
    cr_assert_eq(aoti_torch_layout_sparse_csc(), 4);
    cr_assert_eq(aoti_torch_layout_sparse_bsr(), 5);
    cr_assert_eq(aoti_torch_layout_sparse_bsc(), 6);
    cr_assert_eq(aoti_torch_layout_jagged(), 7);
    cr_assert_eq(aoti_torch_memory_format_contiguous_format(), 0);
    cr_assert_eq(aoti_torch_memory_format_preserve_format(), 1);
    cr_assert_eq(aoti_torch_memory_format_channels_last(), 2);
    cr_assert_eq(aoti_torch_memory_format_channels_last_3d(), 3);
}

Test(codes, element_sizes_and_abi_version) {
    struct {
        int32_t code;
        size_t size;
    } rows[] = {{0, 1},  {1, 1},  {2, 2},   {3, 4},  {4, 8},  {5, 2},  {6, 4},  {7, 8},
                {8, 4},  {9, 8},  {10, 16}, {11, 1}, {15, 2}, {23, 1}, {24, 1}, {25, 1},
                {26, 1}, {27, 2}, {28, 4},  {29, 8}, {44, 1}, {45, 1}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        cr_assert_eq(aoti_torch_dtype_element_size(rows[i].code), rows[i].size, "dtype %d",
                     rows[i].code);
    cr_assert_eq(aoti_torch_dtype_element_size(12), 0);
    cr_assert_eq(aoti_torch_dtype_element_size(-1), 0);
    cr_assert_eq(aoti_torch_dtype_element_size(1000), 0);
    cr_assert_eq(aoti_torch_abi_version(), TORCH_ABI_VERSION);
    cr_assert_eq(aoti_torch_abi_version() >> 56, TORCH_VERSION_MAJOR);
    cr_assert_eq((aoti_torch_abi_version() >> 48) & 0xff, TORCH_VERSION_MINOR);
}

Test(empty_strided, contiguous_metadata_and_alignment) {
    int64_t sizes[] = {2, 3, 4};
    AtenTensorHandle t = make_f32(3, sizes);
    int64_t dim, numel, off, ssize, snumel, *sz, *st, v;
    int32_t dt, dev, idx, layout;
    bool contig, defined;
    void *p;
    const void *cp;
    OK(aoti_torch_get_dim(t, &dim));
    cr_assert_eq(dim, 3);
    OK(aoti_torch_get_numel(t, &numel));
    cr_assert_eq(numel, 24);
    OK(aoti_torch_get_sizes(t, &sz));
    OK(aoti_torch_get_strides(t, &st));
    cr_assert(sz[0] == 2 && sz[1] == 3 && sz[2] == 4);
    cr_assert(st[0] == 12 && st[1] == 4 && st[2] == 1);
    OK(aoti_torch_get_size(t, 1, &v));
    cr_assert_eq(v, 3);
    OK(aoti_torch_get_size(t, -1, &v));
    cr_assert_eq(v, 4);
    OK(aoti_torch_get_stride(t, 0, &v));
    cr_assert_eq(v, 12);
    OK(aoti_torch_get_stride(t, -3, &v));
    cr_assert_eq(v, 12);
    OK(aoti_torch_get_dtype(t, &dt));
    cr_assert_eq(dt, aoti_torch_dtype_float32());
    OK(aoti_torch_get_device_type(t, &dev));
    cr_assert_eq(dev, aoti_torch_device_type_cpu());
    OK(aoti_torch_get_device_index(t, &idx));
    cr_assert_eq(idx, -1, "a CPU tensor's device index is -1, as in PyTorch");
    OK(aoti_torch_get_layout(t, &layout));
    cr_assert_eq(layout, aoti_torch_layout_strided());
    OK(aoti_torch_get_storage_offset(t, &off));
    cr_assert_eq(off, 0);
    OK(aoti_torch_get_storage_size(t, &ssize));
    cr_assert_eq(ssize, 24 * 4);
    OK(aoti_torch_get_storage_numel(t, &snumel));
    cr_assert_eq(snumel, 24);
    OK(aoti_torch_is_contiguous(t, &contig));
    cr_assert(contig);
    OK(aoti_torch_is_defined(t, &defined));
    cr_assert(defined);
    OK(aoti_torch_get_data_ptr(t, &p));
    cr_assert_not_null(p);
    cr_assert_eq((uintptr_t)p % 64, 0, "CPU memory is 64-byte aligned");
    void *p2;
    OK(aoti_torch_get_mutable_data_ptr(t, &p2));
    cr_assert_eq(p2, p);
    OK(aoti_torch_get_const_data_ptr(t, &cp));
    cr_assert_eq(cp, p);
    OK(torch_get_mutable_data_ptr(t, &p2));
    cr_assert_eq(p2, p);
    OK(torch_get_const_data_ptr(t, &cp));
    cr_assert_eq(cp, p);
    memset(p, 0, 24 * 4); /* the whole range is writable (valgrind checks) */
    OK(aoti_torch_delete_tensor_object(t));
}

Test(empty_strided, explicit_strides_size_storage) {
    int64_t sizes[] = {3, 2}, strides[] = {1, 3};
    AtenTensorHandle t;
    OK(aoti_torch_empty_strided(2, sizes, strides, aoti_torch_dtype_int64(),
                                aoti_torch_device_type_cpu(), -1, &t));
    bool contig;
    int64_t snumel, *st;
    int32_t idx;
    OK(aoti_torch_is_contiguous(t, &contig));
    cr_assert(!contig);
    OK(aoti_torch_get_storage_numel(t, &snumel));
    cr_assert_eq(snumel, 6);
    OK(aoti_torch_get_strides(t, &st));
    cr_assert(st[0] == 1 && st[1] == 3);
    OK(aoti_torch_get_device_index(t, &idx));
    cr_assert_eq(idx, -1, "a CPU tensor's device index is -1, as in PyTorch");
    OK(aoti_torch_delete_tensor_object(t));
}

Test(empty_strided, zero_dim_empty_and_many_dims) {
    AtenTensorHandle s, e, big;
    int64_t numel, dim;
    OK(aoti_torch_empty_strided(0, NULL, shimrt_test_strides(0, NULL), aoti_torch_dtype_float64(),
                                0, 0, &s));
    OK(aoti_torch_get_numel(s, &numel));
    cr_assert_eq(numel, 1);
    OK(aoti_torch_get_dim(s, &dim));
    cr_assert_eq(dim, 0);
    int64_t esz[] = {4, 0, 3};
    OK(aoti_torch_empty_strided(3, esz, shimrt_test_strides(3, esz), aoti_torch_dtype_float32(), 0,
                                0, &e));
    OK(aoti_torch_get_numel(e, &numel));
    cr_assert_eq(numel, 0);
    int64_t bsz[10] = {1, 2, 1, 2, 1, 2, 1, 2, 1, 3}; /* beyond the inline dims */
    OK(aoti_torch_empty_strided(10, bsz, shimrt_test_strides(10, bsz), aoti_torch_dtype_int8(), 0,
                                0, &big));
    int64_t *st;
    OK(aoti_torch_get_strides(big, &st));
    cr_assert_eq(st[9], 1);
    cr_assert_eq(st[8], 3);
    cr_assert_eq(st[0], 48);
    OK(aoti_torch_get_numel(big, &numel));
    cr_assert_eq(numel, 48);
    OK(aoti_torch_delete_tensor_object(s));
    OK(aoti_torch_delete_tensor_object(e));
    OK(aoti_torch_delete_tensor_object(big));
}

Test(empty_strided, meta_device_has_no_memory) {
    int64_t sizes[] = {5};
    AtenTensorHandle t;
    void *p = (void *)1;
    OK(aoti_torch_empty_strided(1, sizes, shimrt_test_strides(1, sizes), aoti_torch_dtype_float32(),
                                aoti_torch_device_type_meta(), 0, &t));
    OK(aoti_torch_get_data_ptr(t, &p));
    cr_assert_null(p);
    int32_t dev;
    OK(aoti_torch_get_device_type(t, &dev));
    cr_assert_eq(dev, 14);
    OK(aoti_torch_delete_tensor_object(t));
}

Test(empty_strided, errors) {
    int64_t sizes[] = {2, 3}, neg[] = {2, -1}, nstr[] = {-1, 1};
    AtenTensorHandle t = NULL;
    FAILS(aoti_torch_empty_strided(2, sizes, shimrt_test_strides(2, sizes), 6, 0, 0, NULL),
          "aoti_torch_empty_strided", "ret_new_tensor");
    FAILS(aoti_torch_empty_strided(2, sizes, shimrt_test_strides(2, sizes), 12, 0, 0, &t),
          "aoti_torch_empty_strided", "unknown dtype code 12");
    FAILS(aoti_torch_empty_strided(2, sizes, shimrt_test_strides(2, sizes), 99, 0, 0, &t),
          "aoti_torch_empty_strided", "unknown dtype code 99");
    FAILS(aoti_torch_empty_strided(2, neg, shimrt_test_strides(2, neg), 6, 0, 0, &t),
          "aoti_torch_empty_strided", "negative");
    FAILS(aoti_torch_empty_strided(2, sizes, nstr, 6, 0, 0, &t), "aoti_torch_empty_strided",
          "stride -1");
    FAILS(aoti_torch_empty_strided(-1, sizes, shimrt_test_strides(-1, sizes), 6, 0, 0, &t),
          "aoti_torch_empty_strided", "ndim -1");
    FAILS(aoti_torch_empty_strided(65, sizes, shimrt_test_strides(65, sizes), 6, 0, 0, &t),
          "aoti_torch_empty_strided", "ndim 65");
    FAILS(aoti_torch_empty_strided(2, NULL, shimrt_test_strides(2, NULL), 6, 0, 0, &t),
          "aoti_torch_empty_strided", "sizes_ptr");
    FAILS(aoti_torch_empty_strided(2, sizes, shimrt_test_strides(2, sizes), 6, 1, 0, &t),
          "aoti_torch_empty_strided", "the CUDA libraries cannot be used");
    FAILS(aoti_torch_empty_strided(2, sizes, shimrt_test_strides(2, sizes), 6, 77, 0, &t),
          "aoti_torch_empty_strided", "unknown device type");
    FAILS(aoti_torch_empty_strided(2, sizes, shimrt_test_strides(2, sizes), 6, 12, 0, &t),
          "aoti_torch_empty_strided", "xpu is not available");
    FAILS(aoti_torch_empty_strided(2, sizes, shimrt_test_strides(2, sizes), 6, 0, 3, &t),
          "aoti_torch_empty_strided", "index");
    int64_t huge[] = {INT64_MAX / 2, 4};
    FAILS(aoti_torch_empty_strided(2, huge, shimrt_test_strides(2, huge), 6, 0, 0, &t),
          "aoti_torch_empty_strided", "overflow");
    int64_t big[] = {INT64_C(1) << 40, INT64_C(1) << 20}; /* 2^60 floats: no memory */
    FAILS(aoti_torch_empty_strided(2, big, shimrt_test_strides(2, big), 6, 0, 0, &t),
          "aoti_torch_empty_strided", "too large");
    /* PyTorch's rule: strides are required for ndim > 0 (libtorch would crash) */
    FAILS(aoti_torch_empty_strided(2, sizes, NULL, 6, 0, 0, &t), "aoti_torch_empty_strided",
          "strides_ptr");
    cr_assert_null(t, "no handle is returned on failure");
}

Test(handles, null_freed_and_garbage_handles_are_rejected) {
    int64_t sizes[] = {2};
    AtenTensorHandle t = make_f32(1, sizes);
    int64_t v;
    OK(aoti_torch_delete_tensor_object(t));
    FAILS(aoti_torch_get_dim(t, &v), "aoti_torch_get_dim", "freed tensor handle");
    FAILS(aoti_torch_delete_tensor_object(t), "aoti_torch_delete_tensor_object", "freed");
    FAILS(aoti_torch_get_dim(NULL, &v), "aoti_torch_get_dim", "is NULL");
    long long garbage[32] = {0};
    FAILS(aoti_torch_get_numel((AtenTensorHandle)garbage, &v), "aoti_torch_get_numel",
          "not a tensor handle");
    FAILS(aoti_torch_get_numel((AtenTensorHandle)(uintptr_t)0xdeadbeef, &v), "aoti_torch_get_numel",
          "not a tensor handle");
    void *heap = calloc(1, 256);
    FAILS(aoti_torch_get_sizes((AtenTensorHandle)heap, NULL), "aoti_torch_get_sizes",
          "not a tensor handle");
    free(heap);
    OK(aoti_torch_delete_tensor_object(NULL));
}

Test(handles, every_getter_checks_its_handle_and_out_pointer) {
    int64_t sizes[] = {2};
    AtenTensorHandle t = make_f32(1, sizes), dead = make_f32(1, sizes);
    OK(aoti_torch_delete_tensor_object(dead));
    int64_t i64, *pi64;
    int32_t i32;
    bool b;
    void *p;
    const void *cp;
#define BOTH(fn, out)                                                                              \
    FAILS(fn(dead, out), #fn, "freed");                                                            \
    FAILS(fn(t, NULL), #fn, "is NULL")
    BOTH(aoti_torch_get_data_ptr, &p);
    BOTH(aoti_torch_get_mutable_data_ptr, &p);
    BOTH(aoti_torch_get_const_data_ptr, &cp);
    BOTH(torch_get_mutable_data_ptr, &p);
    BOTH(torch_get_const_data_ptr, &cp);
    BOTH(aoti_torch_get_storage_size, &i64);
    BOTH(aoti_torch_get_storage_numel, &i64);
    BOTH(aoti_torch_get_dim, &i64);
    BOTH(aoti_torch_get_numel, &i64);
    BOTH(aoti_torch_get_sizes, &pi64);
    BOTH(aoti_torch_get_strides, &pi64);
    BOTH(aoti_torch_get_dtype, &i32);
    BOTH(aoti_torch_get_device_type, &i32);
    BOTH(aoti_torch_get_device_index, &i32);
    BOTH(aoti_torch_get_layout, &i32);
    BOTH(aoti_torch_get_storage_offset, &i64);
    BOTH(aoti_torch_is_contiguous, &b);
    BOTH(aoti_torch_is_defined, &b);
#undef BOTH
    FAILS(aoti_torch_get_size(dead, 0, &i64), "aoti_torch_get_size", "freed");
    FAILS(aoti_torch_get_size(t, 0, NULL), "aoti_torch_get_size", "NULL");
    FAILS(aoti_torch_get_stride(dead, 0, &i64), "aoti_torch_get_stride", "freed");
    FAILS(aoti_torch_get_stride(t, 0, NULL), "aoti_torch_get_stride", "NULL");
    OK(aoti_torch_delete_tensor_object(t));
}

Test(handles, bad_dimension_index) {
    int64_t sizes[] = {2, 3};
    AtenTensorHandle t = make_f32(2, sizes), s;
    int64_t v;
    FAILS(aoti_torch_get_size(t, 2, &v), "aoti_torch_get_size", "dimension 2 is out of range");
    FAILS(aoti_torch_get_size(t, -3, &v), "aoti_torch_get_size", "dimension -3");
    FAILS(aoti_torch_get_stride(t, 5, &v), "aoti_torch_get_stride", "out of range");
    OK(aoti_torch_scalar_to_tensor_int32(1, &s));
    FAILS(aoti_torch_get_size(s, 0, &v), "aoti_torch_get_size", "0-dim");
    OK(aoti_torch_delete_tensor_object(t));
    OK(aoti_torch_delete_tensor_object(s));
}

Test(handles, message_is_per_thread_and_kept_after_success) {
    int64_t v;
    FAILS(aoti_torch_get_dim(NULL, &v), "aoti_torch_get_dim", "NULL");
    int64_t sizes[] = {1};
    AtenTensorHandle t = make_f32(1, sizes);
    OK(aoti_torch_get_dim(t, &v));
    cr_assert(strstr(torch_exception_get_what(), "aoti_torch_get_dim") != NULL,
              "a success does not clear the message");
    OK(aoti_torch_delete_tensor_object(t));
}

static int deleter_calls;
static void *deleter_seen_data, *deleter_seen_ctx;
static void count_deleter(void *data, void *ctx) {
    deleter_calls++;
    deleter_seen_data = data;
    deleter_seen_ctx = ctx;
    free(data);
}

Test(from_blob, wraps_memory_without_copy) {
    float buf[12];
    for (int i = 0; i < 12; i++) buf[i] = (float)i;
    int64_t sizes[] = {3, 4}, strides[] = {4, 1};
    AtenTensorHandle t;
    OK(aoti_torch_create_tensor_from_blob(buf, 2, sizes, strides, 0, 6, 0, 0, &t));
    void *p;
    OK(aoti_torch_get_data_ptr(t, &p));
    cr_assert_eq(p, (void *)buf);
    ((float *)p)[5] = 42.0f;
    cr_assert_eq(buf[5], 42.0f);
    int64_t ssize;
    OK(aoti_torch_get_storage_size(t, &ssize));
    cr_assert_eq(ssize, 48);
    OK(aoti_torch_delete_tensor_object(t));
    cr_assert_eq(buf[5], 42.0f, "the caller's memory is untouched by delete");
}

Test(from_blob, storage_offset_and_v2) {
    double buf[10] = {0};
    buf[3] = 7.5;
    int64_t sizes[] = {2};
    AtenTensorHandle t;
    OK(aoti_torch_create_tensor_from_blob_v2(buf, 1, sizes, NULL, 3, 7, 0, 0, &t, 0, NULL, 0));
    void *p;
    int64_t off;
    OK(aoti_torch_get_data_ptr(t, &p));
    cr_assert_eq(p, (void *)&buf[3]);
    OK(aoti_torch_get_storage_offset(t, &off));
    cr_assert_eq(off, 3);
    double x;
    FAILS(aoti_torch_item_float64(t, &x), "aoti_torch_item_float64", "2 elements");
    OK(aoti_torch_delete_tensor_object(t));
}

Test(from_blob, errors) {
    float buf[4];
    int64_t sizes[] = {4};
    AtenTensorHandle t = NULL;
    FAILS(aoti_torch_create_tensor_from_blob(buf, 1, sizes, NULL, 0, 6, 0, 0, NULL),
          "aoti_torch_create_tensor_from_blob", "'ret'");
    FAILS(aoti_torch_create_tensor_from_blob(NULL, 1, sizes, NULL, 0, 6, 0, 0, &t),
          "aoti_torch_create_tensor_from_blob", "'data' is NULL");
    FAILS(aoti_torch_create_tensor_from_blob(buf, 1, sizes, NULL, 0, 13, 0, 0, &t),
          "aoti_torch_create_tensor_from_blob", "unknown dtype code 13");
    FAILS(aoti_torch_create_tensor_from_blob(buf, 1, sizes, NULL, -1, 6, 0, 0, &t),
          "aoti_torch_create_tensor_from_blob", "storage offset -1");
    FAILS(aoti_torch_create_tensor_from_blob(buf, 1, sizes, NULL, 0, 6, 1, 0, &t),
          "aoti_torch_create_tensor_from_blob", "the CUDA libraries cannot be used");
    FAILS(aoti_torch_create_tensor_from_blob_v2(buf, 1, sizes, NULL, 0, 6, 0, 0, &t, 1, NULL, 0),
          "aoti_torch_create_tensor_from_blob_v2", "layout code 1");
    uint8_t meta[4] = {0};
    FAILS(aoti_torch_create_tensor_from_blob_v2(buf, 1, sizes, NULL, 0, 6, 0, 0, &t, 0, meta, 4),
          "aoti_torch_create_tensor_from_blob_v2", "opaque metadata");
    cr_assert_null(t);
}

Test(from_blob, torch_from_blob_deleter_runs_once_at_last_release) {
    deleter_calls = 0;
    int32_t *data = malloc(6 * sizeof *data);
    int64_t sizes[] = {2, 3};
    int ctx_token;
    AtenTensorHandle t, view, alias;
    OK(torch_from_blob(data, 2, sizes, NULL, 0, 3, 0, 0, &t, 0, NULL, 0, count_deleter,
                       &ctx_token));
    OK(aoti_torch_new_tensor_handle(t, &alias));
    int64_t vs[] = {3}, vst[] = {1};
    OK(aoti_torch__reinterpret_tensor(t, 1, vs, vst, 3, &view));
    OK(aoti_torch_delete_tensor_object(t));
    OK(aoti_torch_delete_tensor_object(alias));
    cr_assert_eq(deleter_calls, 0, "a view still holds the storage");
    OK(aoti_torch_delete_tensor_object(view));
    cr_assert_eq(deleter_calls, 1);
    cr_assert_eq(deleter_seen_data, (void *)data);
    cr_assert_eq(deleter_seen_ctx, (void *)&ctx_token);
}

Test(from_blob, torch_from_blob_failure_keeps_ownership) {
    deleter_calls = 0;
    int32_t buf[2];
    int64_t sizes[] = {2};
    AtenTensorHandle t;
    FAILS(torch_from_blob(buf, 1, sizes, NULL, 0, 3, 0, 0, &t, 2, NULL, 0, count_deleter, NULL),
          "torch_from_blob", "layout");
    FAILS(torch_from_blob(buf, 1, sizes, NULL, 0, 200, 0, 0, &t, 0, NULL, 0, count_deleter, NULL),
          "torch_from_blob", "unknown dtype code 200");
    cr_assert_eq(deleter_calls, 0);
}

Test(views, new_handle_shares_storage) {
    int64_t sizes[] = {4};
    AtenTensorHandle t = make_f32(1, sizes), u;
    OK(aoti_torch_new_tensor_handle(t, &u));
    cr_assert_neq(t, u);
    void *pt, *pu;
    OK(aoti_torch_get_data_ptr(t, &pt));
    OK(aoti_torch_get_data_ptr(u, &pu));
    cr_assert_eq(pt, pu);
    OK(aoti_torch_delete_tensor_object(t));
    ((float *)pu)[3] = 1.0f; /* still alive through u */
    OK(aoti_torch_delete_tensor_object(u));
    FAILS(aoti_torch_new_tensor_handle(NULL, &u), "aoti_torch_new_tensor_handle", "NULL");
    t = make_f32(1, sizes);
    FAILS(aoti_torch_new_tensor_handle(t, NULL), "aoti_torch_new_tensor_handle", "new_handle");
    OK(aoti_torch_delete_tensor_object(t));
}

Test(views, reinterpret_adds_offset_and_checks_bounds) {
    int64_t sizes[] = {4, 4};
    AtenTensorHandle t = make_f32(2, sizes), v, w;
    float *base;
    OK(aoti_torch_get_data_ptr(t, (void **)&base));
    for (int i = 0; i < 16; i++) base[i] = (float)i;
    int64_t vs[] = {2, 2}, vst[] = {4, 1};
    OK(aoti_torch__reinterpret_tensor(t, 2, vs, vst, 5, &v));
    float x;
    int64_t off;
    OK(aoti_torch_get_storage_offset(v, &off));
    cr_assert_eq(off, 5);
    AtenTensorHandle e;
    int64_t one[] = {1}, ost[] = {1};
    OK(aoti_torch__reinterpret_tensor(v, 1, one, ost, 5, &e)); /* offset 5 + 5 */
    OK(aoti_torch_item_float32(e, &x));
    cr_assert_eq(x, 10.0f);
    OK(aoti_torch_get_storage_offset(e, &off));
    cr_assert_eq(off, 10);
    int64_t ws[] = {4}, wst[] = {4};
    FAILS(aoti_torch__reinterpret_tensor(t, 1, ws, wst, 4, &w), "aoti_torch__reinterpret_tensor",
          "storage has 64 bytes");
    FAILS(aoti_torch__reinterpret_tensor(t, 1, ws, wst, -1, &w), "aoti_torch__reinterpret_tensor",
          "negative");
    FAILS(aoti_torch__reinterpret_tensor(NULL, 1, ws, wst, 0, &w), "aoti_torch__reinterpret_tensor",
          "'self' is NULL");
    FAILS(aoti_torch__reinterpret_tensor(t, 1, ws, NULL, 0, &w), "aoti_torch__reinterpret_tensor",
          "strides_ptr");
    FAILS(aoti_torch__reinterpret_tensor(t, 1, ws, wst, 0, NULL), "aoti_torch__reinterpret_tensor",
          "ret_new_tensor");
    OK(aoti_torch_delete_tensor_object(e));
    OK(aoti_torch_delete_tensor_object(v));
    OK(aoti_torch_delete_tensor_object(t));
}

Test(views, as_strided_transpose) {
    int64_t sizes[] = {2, 3};
    AtenTensorHandle t = make_f32(2, sizes), tt;
    float *base;
    OK(aoti_torch_get_data_ptr(t, (void **)&base));
    for (int i = 0; i < 6; i++) base[i] = (float)i;
    int64_t ts[] = {3, 2}, tst[] = {1, 3};
    OK(aoti_torch_as_strided(t, ts, tst, &tt));
    bool contig;
    OK(aoti_torch_is_contiguous(tt, &contig));
    cr_assert(!contig);
    AtenTensorHandle c;
    OK(aoti_torch_clone(tt, &c)); /* dense: keeps the transposed strides */
    int64_t *cst;
    OK(aoti_torch_get_strides(c, &cst));
    cr_assert(cst[0] == 1 && cst[1] == 3);
    int64_t bad[] = {3, 3};
    AtenTensorHandle x;
    FAILS(aoti_torch_as_strided(t, bad, tst, &x), "aoti_torch_as_strided", "storage has 24");
    FAILS(aoti_torch_as_strided(t, NULL, tst, &x), "aoti_torch_as_strided", "sizes_ptr");
    FAILS(aoti_torch_as_strided(t, ts, tst, NULL), "aoti_torch_as_strided", "ret");
    FAILS(aoti_torch_as_strided(NULL, ts, tst, &x), "aoti_torch_as_strided", "self");
    OK(aoti_torch_delete_tensor_object(c));
    OK(aoti_torch_delete_tensor_object(tt));
    OK(aoti_torch_delete_tensor_object(t));
}

Test(uninitialized, undefined_until_assigned) {
    AtenTensorHandle u, t;
    bool defined = true;
    int64_t v;
    OK(aoti_torch_new_uninitialized_tensor(&u));
    OK(aoti_torch_is_defined(u, &defined));
    cr_assert(!defined);
    FAILS(aoti_torch_get_dim(u, &v), "aoti_torch_get_dim", "undefined tensor");
    int64_t sizes[] = {3};
    t = make_f32(1, sizes);
    OK(aoti_torch_assign_tensors(t, u));
    OK(aoti_torch_is_defined(u, &defined));
    cr_assert(defined);
    OK(aoti_torch_get_numel(u, &v));
    cr_assert_eq(v, 3);
    void *pt, *pu;
    OK(aoti_torch_get_data_ptr(t, &pt));
    OK(aoti_torch_get_data_ptr(u, &pu));
    cr_assert_eq(pt, pu, "assign makes an alias");
    OK(aoti_torch_delete_tensor_object(t));
    OK(aoti_torch_delete_tensor_object(u));
    FAILS(aoti_torch_new_uninitialized_tensor(NULL), "aoti_torch_new_uninitialized_tensor", "NULL");
}

/* Meta tensors (PyTorch's stable API works on them): the factory and copy ops give meta
 * tensors with PyTorch's sizes, strides and dtype and no data. The expected layouts are
 * PyTorch 2.15's (tests/torch/handles_oracle.sh makes the same calls on libtorch). */
static AtenTensorHandle meta_call(const char *op, const char *overload, StableIValue *st) {
    OK(torch_call_dispatcher(op, overload, st, TORCH_ABI_VERSION));
    return (AtenTensorHandle)(uintptr_t)st[0];
}
static void expect_meta(AtenTensorHandle t, int32_t dtype, int64_t ndim, const int64_t *sizes,
                        const int64_t *strides) {
    int32_t dev = -1, dt = -1;
    int64_t nd = -1, *sz, *st;
    void *p = (void *)1;
    OK(aoti_torch_get_device_type(t, &dev));
    OK(aoti_torch_get_dtype(t, &dt));
    OK(aoti_torch_get_dim(t, &nd));
    OK(aoti_torch_get_sizes(t, &sz));
    OK(aoti_torch_get_strides(t, &st));
    OK(aoti_torch_get_data_ptr(t, &p));
    cr_assert_eq(dev, aoti_torch_device_type_meta());
    cr_assert_eq(dt, dtype);
    cr_assert_eq(nd, ndim);
    cr_assert_null(p, "a meta tensor has no data");
    for (int64_t d = 0; d < ndim; d++) {
        cr_assert_eq(sz[d], sizes[d]);
        cr_assert_eq(st[d], strides[d], "stride %lld", (long long)d);
    }
    OK(aoti_torch_delete_tensor_object(t));
}
static StableIValue meta_cell(StableIValue v) {
    StableIValue *c = NULL;
    OK(torch_new_stable_ivalue(&c));
    *c = v;
    return (StableIValue)(uintptr_t)c;
}
static StableIValue meta_handle(AtenTensorHandle t) {
    AtenTensorHandle h = NULL;
    OK(aoti_torch_new_tensor_handle(t, &h));
    return (StableIValue)(uintptr_t)h;
}

Test(meta, factory_and_copy_ops_make_meta_tensors) {
    const int32_t f32 = aoti_torch_dtype_float32(), f64 = aoti_torch_dtype_float64(),
                  meta = aoti_torch_device_type_meta();
    const StableIValue dev = ((StableIValue)(uint32_t)meta << 32) | 0xffffffffu;
    int64_t s23[2] = {2, 3}, st23[2] = {3, 1}, s32[2] = {3, 2}, st32[2] = {2, 1}, tst[2] = {1, 3},
            s1234[4] = {1, 2, 3, 4}, cl[4] = {24, 1, 8, 2};
    /* empty.memory_format, also channels_last */
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(2, &l));
    OK(torch_list_push_back(l, 2));
    OK(torch_list_push_back(l, 3));
    StableIValue e[6] = {
        (StableIValue)(uintptr_t)l, meta_cell((StableIValue)f64), 0, meta_cell(dev), 0, 0};
    expect_meta(meta_call("aten::empty", "memory_format", e), f64, 2, s23, st23);
    OK(torch_new_list_reserve_size(4, &l));
    for (int i = 0; i < 4; i++) OK(torch_list_push_back(l, (StableIValue)s1234[i]));
    StableIValue e2[6] = {(StableIValue)(uintptr_t)l,
                          0,
                          0,
                          meta_cell(dev),
                          0,
                          meta_cell((StableIValue)aoti_torch_memory_format_channels_last())};
    expect_meta(meta_call("aten::empty", "memory_format", e2), f32, 4, s1234, cl);
    /* a meta tensor and its transpose */
    AtenTensorHandle m = NULL, mt = NULL, r = NULL;
    OK(aoti_torch_empty_strided(2, s23, st23, f32, meta, 0, &m));
    OK(aoti_torch_as_strided(m, s32, tst, &mt));
    /* clone and to keep the layout (preserve_format), contiguous makes it contiguous */
    StableIValue c[2] = {meta_handle(mt), 0};
    expect_meta(meta_call("aten::clone", "", c), f32, 2, s32, tst);
    StableIValue t[8] = {meta_handle(mt), meta_cell((StableIValue)f64), 0, 0, 0, 0, 0, 0};
    expect_meta(meta_call("aten::to", "dtype_layout", t), f64, 2, s32, tst);
    StableIValue t2[5] = {meta_handle(mt), (StableIValue)f64, 0, 0, 0};
    expect_meta(meta_call("aten::to", "dtype", t2), f64, 2, s32, tst);
    StableIValue k[2] = {meta_handle(mt), 0};
    expect_meta(meta_call("aten::contiguous", "", k), f32, 2, s32, st32);
    /* full and new_empty (the stable API's aoti_torch_aten_full / _new_empty) */
    int64_t four = 4, one = 1;
    int32_t i32 = aoti_torch_dtype_int32(), dm = meta;
    OK(aoti_torch_aten_full(s23, 2, 1.5, NULL, NULL, &dm, -1, NULL, &r));
    expect_meta(r, f32, 2, s23, st23);
    OK(aoti_torch_aten_full(&four, 1, 2.0, &i32, NULL, &dm, -1, NULL, &r));
    expect_meta(r, i32, 1, &four, &one);
    int32_t f64v = f64;
    OK(aoti_torch_aten_new_empty(m, &four, 1, &f64v, NULL, NULL, 0, NULL, &r));
    expect_meta(r, f64, 1, &four, &one);
    /* to(cpu tensor, device=meta) */
    AtenTensorHandle cpu = make_f32(2, s23);
    StableIValue tc[8] = {meta_handle(cpu), 0, 0, meta_cell(dev), 0, 0, 0, 0};
    expect_meta(meta_call("aten::to", "dtype_layout", tc), f32, 2, s23, st23);
    /* and back: a meta tensor has no data to copy */
    StableIValue back[8] = {meta_handle(m),
                            0,
                            0,
                            meta_cell((StableIValue)(uint32_t)aoti_torch_device_type_cpu() << 32),
                            0,
                            0,
                            0,
                            0};
    FAILS(torch_call_dispatcher("aten::to", "dtype_layout", back, TORCH_ABI_VERSION),
          "torch_call_dispatcher", "Cannot copy out of meta tensor");
    OK(aoti_torch_delete_tensor_object(cpu));
    OK(aoti_torch_delete_tensor_object(mt));
    OK(aoti_torch_delete_tensor_object(m));
    no_leaks();
}

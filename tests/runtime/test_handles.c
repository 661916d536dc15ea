/* tests/runtime/test_handles.c: many handles, one tensor (PyTorch's at::Tensor and
 * TensorImpl). The expected values are PyTorch 2.15's: tests/torch/handles_oracle.sh runs
 * the same calls (tests/torch/handles_client.c) on libtorch and on libshimrt and compares;
 * these tests pin the same behaviour under ASan and add what the oracle cannot see (live
 * object counts, threads, more than the inline dims). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shimrt_test.h"

static void del(AtenTensorHandle t) { OK(aoti_torch_delete_tensor_object(t)); }

static int64_t live(const char *kind) {
    int64_t n = -1;
    OK(shimrt_live_objects(kind, &n));
    return n;
}

/* A float32 tensor of sizes holding 1, 2, 3, ... */
static AtenTensorHandle iota(int64_t ndim, const int64_t *sizes) {
    AtenTensorHandle t = make_f32(ndim, sizes);
    int64_t n = 0;
    float *p = NULL;
    OK(aoti_torch_get_numel(t, &n));
    OK(aoti_torch_get_data_ptr(t, (void **)&p));
    for (int64_t i = 0; i < n; i++) p[i] = (float)(i + 1);
    return t;
}

static AtenTensorHandle vec(int64_t n) { return iota(1, &n); }

static StableIValue own(AtenTensorHandle t) {
    AtenTensorHandle h = NULL;
    OK(aoti_torch_new_tensor_handle(t, &h));
    return (StableIValue)(uintptr_t)h;
}

/* sum.IntList_out(self, dim=dims, keepdim, out=out) through the dispatcher, as
 * torch::stable::sum_out does it (the stack owns new handles of self and out). Returns
 * the handle the op returns. */
static AtenTensorHandle sum_out(AtenTensorHandle self, int64_t ndims, const int64_t *dims,
                                bool keepdim, AtenTensorHandle out) {
    StableListHandle l = NULL;
    StableIValue *cell = NULL;
    OK(torch_new_list_reserve_size((size_t)ndims, &l));
    for (int64_t i = 0; i < ndims; i++) OK(torch_list_push_back(l, (StableIValue)dims[i]));
    OK(torch_new_stable_ivalue(&cell));
    *cell = (StableIValue)(uintptr_t)l;
    StableIValue stack[5] = {own(self), (StableIValue)(uintptr_t)cell, keepdim, 0, own(out)};
    OK(torch_call_dispatcher("aten::sum", "IntList_out", stack, TORCH_ABI_VERSION));
    return (AtenTensorHandle)(uintptr_t)stack[0];
}

static void expect_dims(AtenTensorHandle t, int64_t ndim, const int64_t *sizes,
                        const int64_t *strides) {
    int64_t nd = -1, *sz = NULL, *st = NULL;
    OK(aoti_torch_get_dim(t, &nd));
    OK(aoti_torch_get_sizes(t, &sz));
    OK(aoti_torch_get_strides(t, &st));
    cr_assert_eq(nd, ndim);
    for (int64_t d = 0; d < ndim; d++) {
        cr_assert_eq(sz[d], sizes[d], "size %lld", (long long)d);
        cr_assert_eq(st[d], strides[d], "stride %lld", (long long)d);
    }
}

static float first(AtenTensorHandle t) {
    float *p = NULL;
    OK(aoti_torch_get_data_ptr(t, (void **)&p));
    return p[0];
}

/* issue 17: PyTorch's out becomes 0-d holding 6; ours stayed [0] */
Test(handles, out_resized_through_the_dispatcher_is_seen_by_the_caller) {
    AtenTensorHandle self = vec(3), out = vec(0);
    int64_t d0 = 0;
    AtenTensorHandle r = sum_out(self, 1, &d0, false, out);
    expect_dims(out, 0, NULL, NULL);
    cr_assert_eq(first(out), 6.0f);
    expect_dims(r, 0, NULL, NULL);
    /* the returned handle names out's tensor: a resize through it is out's */
    int64_t s22[2] = {2, 2}, d1 = 1, two = 2, one = 1;
    AtenTensorHandle m = iota(2, s22), r2 = sum_out(m, 1, &d1, false, r);
    expect_dims(out, 1, &two, &one);
    float *p = NULL;
    OK(aoti_torch_get_data_ptr(out, (void **)&p));
    cr_assert(p[0] == 3.0f && p[1] == 7.0f);
    del(r2);
    del(r);
    del(m);
    del(self);
    del(out);
    no_leaks();
}

Test(handles, a_second_handle_sees_a_resize_and_outlives_the_first) {
    AtenTensorHandle a = vec(0), b = NULL, self = vec(4);
    OK(aoti_torch_new_tensor_handle(a, &b));
    cr_assert_neq(a, b, "a new handle is a new pointer, as PyTorch's new at::Tensor");
    int64_t d0 = 0;
    del(sum_out(self, 1, &d0, false, a));
    expect_dims(b, 0, NULL, NULL);
    cr_assert_eq(first(b), 10.0f);
    cr_assert_eq(live("tensor"), 3);
    cr_assert_eq(live("storage"), 2);
    del(a);
    cr_assert_eq(live("storage"), 2, "the tensor lives while a handle does");
    expect_dims(b, 0, NULL, NULL);
    cr_assert_eq(first(b), 10.0f);
    del(b);
    cr_assert_eq(live("storage"), 1);
    FAILS(aoti_torch_get_dim(a, &d0), "aoti_torch_get_dim", "freed");
    del(self);
    no_leaks();
}

/* more dims than a tensor keeps inline: the arrays move, every handle follows */
Test(handles, resize_past_the_inline_dims) {
    int64_t s7[7] = {2, 1, 2, 1, 2, 1, 2}, st7[7], dims[2] = {1, 3};
    AtenTensorHandle self = iota(7, s7), a = vec(0), b = NULL, c = NULL;
    OK(aoti_torch_new_tensor_handle(a, &b));
    OK(aoti_torch_new_tensor_handle(b, &c));
    del(sum_out(self, 2, dims, true, b));
    memcpy(st7, shimrt_test_strides(7, s7), sizeof st7);
    expect_dims(a, 7, s7, st7);
    expect_dims(c, 7, s7, st7);
    /* and back to one dim */
    int64_t d0 = 0, n8 = 1;
    AtenTensorHandle v = vec(8);
    del(sum_out(v, 1, &d0, true, c));
    expect_dims(a, 1, &n8, &n8);
    expect_dims(b, 1, &n8, &n8);
    cr_assert_eq(first(a), 36.0f);
    del(v);
    del(a);
    del(c);
    del(b);
    del(self);
    no_leaks();
}

Test(handles, assign_tensors_makes_dst_name_srcs_tensor) {
    AtenTensorHandle src = vec(0), dst = vec(2), self = vec(3);
    cr_assert_eq(live("storage"), 3);
    OK(aoti_torch_assign_tensors(src, dst));
    cr_assert_eq(live("storage"), 2, "dst's old tensor had no other handle");
    int64_t d0 = 0, zero = 0, one = 1;
    expect_dims(dst, 1, &zero, &one);
    del(sum_out(self, 1, &d0, false, src));
    expect_dims(dst, 0, NULL, NULL);
    del(src);
    cr_assert_eq(first(dst), 6.0f);
    /* assign_tensors_out: a new handle of the same tensor */
    AtenTensorHandle e = NULL, big = vec(5);
    OK(aoti_torch_assign_tensors_out(dst, &e));
    del(sum_out(big, 1, &d0, false, dst));
    cr_assert_eq(first(e), 15.0f);
    /* assigning a tensor to a handle of itself changes nothing */
    OK(aoti_torch_assign_tensors(e, dst));
    cr_assert_eq(first(dst), 15.0f);
    /* an undefined source makes dst undefined, leaving e's tensor alone */
    AtenTensorHandle u = NULL;
    bool def = true;
    OK(aoti_torch_new_uninitialized_tensor(&u));
    OK(aoti_torch_assign_tensors(u, dst));
    OK(aoti_torch_is_defined(dst, &def));
    cr_assert(!def);
    cr_assert_eq(first(e), 15.0f);
    /* and an undefined dst takes a defined source */
    OK(aoti_torch_assign_tensors(e, u));
    OK(aoti_torch_is_defined(u, &def));
    cr_assert(def);
    cr_assert_eq(first(u), 15.0f);
    del(u);
    del(e);
    del(dst);
    del(big);
    del(self);
    no_leaks();
}

/* PyTorch's contiguous, to and flatten(d, d) return self (the same TensorImpl); views are
 * new tensors over the same storage */
Test(handles, ops_returning_self_share_the_tensor_views_do_not) {
    int64_t s23[2] = {2, 3}, d0 = 0;
    struct {
        const char *op, *overload;
        StableIValue a1, a2;
        bool is_self;
    } cases[] = {{"aten::contiguous", "", 0, 0, true},
                 {"aten::flatten", "using_ints", 1, 1, true},
                 {"aten::transpose", "int", 0, 0, false}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        AtenTensorHandle x = iota(2, s23), four = vec(4);
        StableIValue st[3] = {own(x), cases[i].a1, cases[i].a2};
        OK(torch_call_dispatcher(cases[i].op, cases[i].overload, st, TORCH_ABI_VERSION));
        AtenTensorHandle r = (AtenTensorHandle)(uintptr_t)st[0];
        del(sum_out(four, 1, &d0, false, x)); /* x becomes 0-d */
        int64_t nd = -1;
        OK(aoti_torch_get_dim(r, &nd));
        cr_assert_eq(nd, cases[i].is_self ? 0 : 2, "%s", cases[i].op);
        cr_assert_eq(first(r), 10.0f, "%s: the storage is shared either way", cases[i].op);
        del(r);
        del(x);
        del(four);
    }
    no_leaks();
}

Test(handles, undefined_handles) {
    AtenTensorHandle u = NULL, v = NULL;
    OK(aoti_torch_new_uninitialized_tensor(&u));
    OK(aoti_torch_new_tensor_handle(u, &v));
    bool def = true;
    OK(aoti_torch_is_defined(v, &def));
    cr_assert(!def);
    del(u);
    OK(aoti_torch_is_defined(v, &def));
    del(v);
    no_leaks();
}

/* Handles of one tensor made and freed from many threads at once. */
static AtenTensorHandle g_shared;
static void *churn(void *arg) {
    (void)arg;
    for (int i = 0; i < 2000; i++) {
        AtenTensorHandle h[3];
        for (int k = 0; k < 3; k++)
            if (aoti_torch_new_tensor_handle(g_shared, &h[k])) abort();
        for (int k = 0; k < 3; k++)
            if (aoti_torch_delete_tensor_object(h[2 - k])) abort();
    }
    return NULL;
}
Test(handles, many_threads_make_and_free_handles_of_one_tensor) {
    g_shared = vec(4);
    pthread_t th[4];
    for (int i = 0; i < 4; i++) cr_assert_eq(pthread_create(&th[i], NULL, churn, NULL), 0);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    cr_assert_eq(live("tensor"), 1);
    cr_assert_eq(live("storage"), 1);
    int64_t d0 = 0;
    AtenTensorHandle self = vec(3);
    del(sum_out(self, 1, &d0, false, g_shared));
    expect_dims(g_shared, 0, NULL, NULL);
    del(self);
    del(g_shared);
    no_leaks();
}

/* issue 17: the live-storage counter drifted for from_blob storages */
static int g_deleted;
static void count_delete(void *data, void *ctx) {
    (void)data;
    (void)ctx;
    g_deleted++;
}
Test(handles, from_blob_storages_are_counted) {
    float buf[4] = {1, 2, 3, 4};
    int64_t four = 4, one = 1, neg = -1;
    AtenTensorHandle a = NULL, b = NULL, c = NULL;
    OK(aoti_torch_create_tensor_from_blob(buf, 1, &four, &one, 0, aoti_torch_dtype_float32(),
                                          aoti_torch_device_type_cpu(), 0, &a));
    cr_assert_eq(live("storage"), 1);
    OK(torch_from_blob(buf, 1, &four, &one, 0, aoti_torch_dtype_float32(),
                       aoti_torch_device_type_cpu(), 0, &b, 0, NULL, 0, count_delete, NULL));
    OK(aoti_torch_new_tensor_handle(b, &c));
    cr_assert_eq(live("storage"), 2);
    del(a);
    del(b);
    cr_assert_eq(g_deleted, 0);
    del(c);
    cr_assert_eq(g_deleted, 1);
    /* a failed from_blob leaves nothing behind and does not run the deleter */
    FAILS(torch_from_blob(buf, 1, &neg, &one, 0, aoti_torch_dtype_float32(),
                          aoti_torch_device_type_cpu(), 0, &a, 0, NULL, 0, count_delete, NULL),
          "torch_from_blob", "negative");
    cr_assert_eq(g_deleted, 1);
    no_leaks();
}

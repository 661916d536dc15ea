/* tests/torch/handles_client.c: one C client of the stable C ABI, linked once against
 * libshimrt and once against PyTorch 2.15's libtorch_cpu (tests/torch/handles_oracle.sh
 * compares the two outputs line by line). It prints what a caller sees of tensors and
 * their handles: a second handle after a resize through the first, an out= resized by an
 * op called through torch_call_dispatcher (as the stable API's sum_out does), what
 * assign_tensors shares, which ops return self (PyTorch's same TensorImpl) and which a new
 * view, and meta tensors made by the factory and copy ops.
 * Only functions both libraries export are called; no output depends on pointer values. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "shimrt/shimrt.h"

static int failures;

/* Prints "FAIL" for a failed call (the messages differ between the libraries). */
static int ok(AOTITorchError rc, const char *what) {
    if (rc == AOTI_TORCH_SUCCESS) return 1;
    printf("  %s: FAIL\n", what);
    failures++;
    return 0;
}

/* dtype, sizes, strides, storage offset, device and up to 8 float32 values. */
static void show(const char *tag, AtenTensorHandle t) {
    int64_t nd = 0, *sz = NULL, *st = NULL, off = 0, n = 0;
    int32_t dt = -1, dev = -1;
    if (!ok(aoti_torch_get_dim(t, &nd), tag) || !ok(aoti_torch_get_sizes(t, &sz), tag) ||
        !ok(aoti_torch_get_strides(t, &st), tag) ||
        !ok(aoti_torch_get_storage_offset(t, &off), tag) ||
        !ok(aoti_torch_get_dtype(t, &dt), tag) || !ok(aoti_torch_get_device_type(t, &dev), tag) ||
        !ok(aoti_torch_get_numel(t, &n), tag))
        return;
    printf("  %s: dtype %d device %d sizes [", tag, (int)dt, (int)dev);
    for (int64_t i = 0; i < nd; i++) printf("%s%lld", i ? "," : "", (long long)sz[i]);
    printf("] strides [");
    for (int64_t i = 0; i < nd; i++) printf("%s%lld", i ? "," : "", (long long)st[i]);
    printf("] offset %lld", (long long)off);
    if (dev == aoti_torch_device_type_cpu() && dt == aoti_torch_dtype_float32() && n > 0) {
        float *p = NULL;
        if (!ok(aoti_torch_get_data_ptr(t, (void **)&p), tag)) return;
        printf(" values");
        for (int64_t i = 0; i < n && i < 8; i++) {
            int64_t o = 0, lin = i; /* element i in row-major order */
            for (int64_t d = nd - 1; d >= 0; d--) {
                o += (lin % sz[d]) * st[d];
                lin /= sz[d];
            }
            printf(" %g", (double)p[o]);
        }
    }
    printf("\n");
}

/* A contiguous float32 CPU tensor of sizes[0..nd) holding 1, 2, 3, ... */
static AtenTensorHandle iota(int64_t nd, const int64_t *sizes) {
    int64_t st[8], n = 1;
    for (int64_t d = nd - 1; d >= 0; d--) {
        st[d] = n;
        n *= sizes[d];
    }
    AtenTensorHandle t = NULL;
    if (!ok(aoti_torch_empty_strided(nd, sizes, st, aoti_torch_dtype_float32(),
                                     aoti_torch_device_type_cpu(), 0, &t),
            "empty_strided"))
        return NULL;
    float *p = NULL;
    aoti_torch_get_data_ptr(t, (void **)&p);
    for (int64_t i = 0; i < n; i++) p[i] = (float)(i + 1);
    return t;
}

static StableIValue from_tensor(AtenTensorHandle t) {
    AtenTensorHandle h = NULL; /* the stack's own handle, as the stable API's from() */
    ok(aoti_torch_new_tensor_handle(t, &h), "new_tensor_handle");
    return (StableIValue)(uintptr_t)h;
}
static StableIValue int_list(int64_t n, const int64_t *v) {
    StableListHandle l = NULL;
    ok(torch_new_list_reserve_size((size_t)n, &l), "list");
    for (int64_t i = 0; i < n; i++) ok(torch_list_push_back(l, (StableIValue)v[i]), "push");
    return (StableIValue)(uintptr_t)l;
}
static StableIValue some(StableIValue v) {
    StableIValue *cell = NULL;
    ok(torch_new_stable_ivalue(&cell), "cell");
    *cell = v;
    return (StableIValue)(uintptr_t)cell;
}
static AtenTensorHandle ret_tensor(StableIValue v) { return (AtenTensorHandle)(uintptr_t)v; }

/* sum.IntList_out(self, dim=[d], out=out) through the dispatcher, as torch::stable::sum_out;
 * returns the op's returned handle (NULL after a failure). */
static AtenTensorHandle sum_out(AtenTensorHandle self, int64_t d, AtenTensorHandle out) {
    StableIValue stack[5] = {from_tensor(self), some(int_list(1, &d)), 0, 0, from_tensor(out)};
    if (!ok(torch_call_dispatcher("aten::sum", "IntList_out", stack, TORCH_ABI_VERSION),
            "sum.IntList_out"))
        return NULL;
    return ret_tensor(stack[0]);
}

static void del(AtenTensorHandle t) { ok(aoti_torch_delete_tensor_object(t), "delete"); }

/* An f32 tensor of sizes [n] (n may be 0). */
static AtenTensorHandle vec(int64_t n) { return iota(1, &n); }

static void out_resized_through_dispatcher(void) {
    printf("sum.IntList_out(f32[3], dim=[0], out=f32[0]) through the dispatcher\n");
    AtenTensorHandle self = vec(3), out = vec(0);
    AtenTensorHandle r = sum_out(self, 0, out);
    show("out", out);
    if (r) show("returned", r);
    /* the returned handle is out's tensor: resizing it resizes out */
    int64_t s22[2] = {2, 2};
    AtenTensorHandle m = iota(2, s22);
    if (r) {
        AtenTensorHandle r2 = sum_out(m, 1, r);
        show("out after sum_out(f32[2,2], dim=[1], out=returned)", out);
        if (r2) del(r2);
        del(r);
    }
    printf("the same with out=f32[5] (elements: resized with a warning)\n");
    AtenTensorHandle out5 = vec(5);
    r = sum_out(self, 0, out5);
    show("out", out5);
    if (r) del(r);
    printf("out a view with storage offset 2 of f32[6], sizes [0]\n");
    AtenTensorHandle base = vec(6), v = NULL;
    int64_t z = 0, one = 1;
    if (ok(aoti_torch__reinterpret_tensor(base, 1, &z, &one, 2, &v), "reinterpret")) {
        r = sum_out(m, 0, v);
        show("out", v);
        show("base", base);
        if (r) del(r);
        del(v);
    }
    del(base);
    del(out5);
    del(m);
    del(self);
    del(out);
}

static void second_handle(void) {
    printf("new_tensor_handle: one tensor, two handles\n");
    AtenTensorHandle a = vec(0), b = NULL, self = vec(4);
    if (!ok(aoti_torch_new_tensor_handle(a, &b), "new_tensor_handle")) return;
    AtenTensorHandle r = sum_out(self, 0, a);
    show("b after a resize through a", b);
    if (r) del(r);
    del(a);
    show("b after a is deleted", b);
    del(b);
    del(self);
    printf("new_tensor_handle of an undefined tensor\n");
    AtenTensorHandle u = NULL, u2 = NULL;
    bool def = true;
    if (ok(aoti_torch_new_uninitialized_tensor(&u), "uninitialized") &&
        ok(aoti_torch_new_tensor_handle(u, &u2), "new_tensor_handle") &&
        ok(aoti_torch_is_defined(u2, &def), "is_defined"))
        printf("  defined %d\n", (int)def);
    if (u2) del(u2);
    if (u) del(u);
}

static void assign(void) {
    printf("assign_tensors(src, dst): dst names src's tensor\n");
    AtenTensorHandle src = vec(0), dst = vec(2), self = vec(3);
    if (ok(aoti_torch_assign_tensors(src, dst), "assign_tensors")) {
        show("dst after assign", dst);
        AtenTensorHandle r = sum_out(self, 0, src);
        show("dst after a resize through src", dst);
        if (r) del(r);
        del(src);
        show("dst after src is deleted", dst);
    }
    del(dst);
    printf("assign_tensors_out(src, &dst)\n");
    src = vec(0);
    AtenTensorHandle d2 = NULL;
    if (ok(aoti_torch_assign_tensors_out(src, &d2), "assign_tensors_out")) {
        AtenTensorHandle r = sum_out(self, 0, src);
        show("dst after a resize through src", d2);
        if (r) del(r);
        del(d2);
    }
    del(src);
    printf("assign_tensors(undefined, dst)\n");
    AtenTensorHandle u = NULL;
    dst = vec(2);
    bool def = true;
    if (ok(aoti_torch_new_uninitialized_tensor(&u), "uninitialized") &&
        ok(aoti_torch_assign_tensors(u, dst), "assign_tensors") &&
        ok(aoti_torch_is_defined(dst, &def), "is_defined"))
        printf("  dst defined %d\n", (int)def);
    printf("assign_tensors(src, undefined)\n");
    src = vec(2);
    if (u && ok(aoti_torch_assign_tensors(src, u), "assign_tensors")) show("dst", u);
    del(src);
    if (u) del(u);
    del(dst);
    del(self);
}

/* op(self, args...) through the dispatcher, then self resized by an out= op: a result
 * that is self (PyTorch's same TensorImpl) follows the resize, a view does not. */
static void self_or_view(const char *op, const char *overload, StableIValue *stack, int n,
                         AtenTensorHandle self) {
    printf("%s.%s on f32[2,3]\n", op, overload);
    if (!ok(torch_call_dispatcher(op, overload, stack, TORCH_ABI_VERSION), op)) return;
    (void)n;
    AtenTensorHandle r = ret_tensor(stack[0]);
    show("result", r);
    AtenTensorHandle s4 = vec(4), r2 = sum_out(s4, 0, self); /* self becomes 0-d */
    show("result after self is resized", r);
    if (r2) del(r2);
    del(s4);
    del(r);
}

static void returns_self(void) {
    int64_t s23[2] = {2, 3};
    AtenTensorHandle x;
    x = iota(2, s23);
    {
        StableIValue st[2] = {from_tensor(x),
                              (StableIValue)aoti_torch_memory_format_contiguous_format()};
        self_or_view("aten::contiguous", "", st, 2, x);
    }
    del(x);
    x = iota(2, s23);
    {
        StableIValue st[5] = {from_tensor(x), (StableIValue)aoti_torch_dtype_float32(), 0, 0, 0};
        self_or_view("aten::to", "dtype", st, 5, x);
    }
    del(x);
    x = iota(2, s23);
    {
        StableIValue st[3] = {from_tensor(x), 1, 1};
        self_or_view("aten::flatten", "using_ints", st, 3, x);
    }
    del(x);
    x = iota(2, s23);
    {
        StableIValue st[3] = {from_tensor(x), 0, 0};
        self_or_view("aten::transpose", "int", st, 3, x);
    }
    del(x);
    x = iota(2, s23);
    {
        StableIValue st[2] = {from_tensor(x), int_list(2, s23)};
        self_or_view("aten::view", "", st, 2, x);
    }
    del(x);
    x = iota(2, s23);
    {
        int64_t s6 = 6;
        StableIValue st[2] = {from_tensor(x), int_list(1, &s6)};
        self_or_view("aten::reshape", "", st, 2, x);
    }
    del(x);
    x = iota(2, s23);
    {
        StableIValue st[4] = {from_tensor(x), 0, 0, 2};
        self_or_view("aten::narrow", "", st, 4, x);
    }
    del(x);
}

/* Both libraries export these (c_shim_aten.h); the stable API's full and new_empty. */
AOTITorchError aoti_torch_aten_full(const int64_t *size, int64_t size_len_, double fill_value,
                                    int32_t *dtype, int32_t *layout, int32_t *device,
                                    int32_t device_index_, int32_t *pin_memory,
                                    AtenTensorHandle *ret0);
AOTITorchError aoti_torch_aten_new_empty(AtenTensorHandle self, const int64_t *size,
                                         int64_t size_len_, int32_t *dtype, int32_t *layout,
                                         int32_t *device, int32_t device_index_,
                                         int32_t *pin_memory, AtenTensorHandle *ret0);

static StableIValue meta_device(void) {
    return ((StableIValue)(uint32_t)aoti_torch_device_type_meta() << 32) | 0xffffffffu;
}

/* A meta tensor's data pointer is NULL in both. */
static void show_meta(const char *tag, AtenTensorHandle t) {
    show(tag, t);
    void *p = (void *)1;
    if (ok(aoti_torch_get_data_ptr(t, &p), tag)) printf("  %s: data %s\n", tag, p ? "set" : "NULL");
}

/* the factory and copy ops on meta tensors: metadata only, as PyTorch's Meta kernels */
static void meta(void) {
    int64_t s23[2] = {2, 3}, st23[2] = {3, 1}, s4 = 4;
    int32_t f64 = aoti_torch_dtype_float64(), i32 = aoti_torch_dtype_int32(),
            dev_meta = aoti_torch_device_type_meta();
    AtenTensorHandle m = NULL, r = NULL;
    printf("empty_strided([2,3], meta)\n");
    if (!ok(aoti_torch_empty_strided(2, s23, st23, aoti_torch_dtype_float32(), dev_meta, 0, &m),
            "empty_strided"))
        return;
    show_meta("m", m);
    printf("empty.memory_format([2,3], dtype=float64, device=meta)\n");
    {
        StableIValue st[6] = {
            int_list(2, s23), some((StableIValue)f64), 0, some(meta_device()), 0, 0};
        if (ok(torch_call_dispatcher("aten::empty", "memory_format", st, TORCH_ABI_VERSION),
               "empty")) {
            show_meta("result", ret_tensor(st[0]));
            del(ret_tensor(st[0]));
        }
    }
    printf("empty.memory_format([1,2,3,4], device=meta, channels_last)\n");
    {
        int64_t s1234[4] = {1, 2, 3, 4};
        StableIValue st[6] = {
            int_list(4, s1234),  0, 0,
            some(meta_device()), 0, some((StableIValue)aoti_torch_memory_format_channels_last())};
        if (ok(torch_call_dispatcher("aten::empty", "memory_format", st, TORCH_ABI_VERSION),
               "empty")) {
            show_meta("result", ret_tensor(st[0]));
            del(ret_tensor(st[0]));
        }
    }
    printf("full([2,3], 1.5, device=meta) and full([4], 2, dtype=int32, device=meta)\n");
    if (ok(aoti_torch_aten_full(s23, 2, 1.5, NULL, NULL, &dev_meta, -1, NULL, &r), "full")) {
        show_meta("result", r);
        del(r);
    }
    if (ok(aoti_torch_aten_full(&s4, 1, 2.0, &i32, NULL, &dev_meta, -1, NULL, &r), "full")) {
        show_meta("result", r);
        del(r);
    }
    printf("new_empty(m, [4]) and new_empty(m, [4], dtype=float64)\n");
    if (ok(aoti_torch_aten_new_empty(m, &s4, 1, NULL, NULL, NULL, 0, NULL, &r), "new_empty")) {
        show_meta("result", r);
        del(r);
    }
    if (ok(aoti_torch_aten_new_empty(m, &s4, 1, &f64, NULL, NULL, 0, NULL, &r), "new_empty")) {
        show_meta("result", r);
        del(r);
    }
    printf("new_empty(cpu f32[2,3], [4], device=meta)\n");
    {
        AtenTensorHandle c = iota(2, s23);
        if (ok(aoti_torch_aten_new_empty(c, &s4, 1, NULL, NULL, &dev_meta, -1, NULL, &r),
               "new_empty")) {
            show_meta("result", r);
            del(r);
        }
        del(c);
    }
    /* a transposed view of m: clone and to keep its layout (preserve_format) */
    AtenTensorHandle mt = NULL;
    {
        StableIValue st[3] = {from_tensor(m), 0, 1};
        if (ok(torch_call_dispatcher("aten::transpose", "int", st, TORCH_ABI_VERSION), "transpose"))
            mt = ret_tensor(st[0]);
    }
    printf("clone(m) and clone(m.t())\n");
    {
        StableIValue st[2] = {from_tensor(m), 0};
        if (ok(torch_call_dispatcher("aten::clone", "", st, TORCH_ABI_VERSION), "clone")) {
            show_meta("result", ret_tensor(st[0]));
            del(ret_tensor(st[0]));
        }
    }
    if (mt) {
        StableIValue st[2] = {from_tensor(mt), 0};
        if (ok(torch_call_dispatcher("aten::clone", "", st, TORCH_ABI_VERSION), "clone")) {
            show_meta("result", ret_tensor(st[0]));
            del(ret_tensor(st[0]));
        }
    }
    printf("to(m.t(), dtype=float64), to(m, dtype=float32), to(cpu f32[2,3], device=meta)\n");
    if (mt) {
        StableIValue st[8] = {from_tensor(mt), some((StableIValue)f64), 0, 0, 0, 0, 0, 0};
        if (ok(torch_call_dispatcher("aten::to", "dtype_layout", st, TORCH_ABI_VERSION), "to")) {
            show_meta("result", ret_tensor(st[0]));
            del(ret_tensor(st[0]));
        }
    }
    {
        StableIValue st[8] = {
            from_tensor(m), some((StableIValue)aoti_torch_dtype_float32()), 0, 0, 0, 0, 0, 0};
        if (ok(torch_call_dispatcher("aten::to", "dtype_layout", st, TORCH_ABI_VERSION), "to")) {
            AtenTensorHandle t = ret_tensor(st[0]);
            show_meta("result", t);
            /* the same tensor as m: a resize of m shows through it (meta sum_out) */
            del(t);
        }
    }
    {
        AtenTensorHandle c = iota(2, s23);
        StableIValue st[8] = {from_tensor(c), 0, 0, some(meta_device()), 0, 0, 0, 0};
        if (ok(torch_call_dispatcher("aten::to", "dtype_layout", st, TORCH_ABI_VERSION), "to")) {
            show_meta("result", ret_tensor(st[0]));
            del(ret_tensor(st[0]));
        }
        del(c);
    }
    printf("contiguous(m.t()), empty_like(m.t()), zeros_like(m)\n");
    if (mt) {
        StableIValue st[2] = {from_tensor(mt),
                              (StableIValue)aoti_torch_memory_format_contiguous_format()};
        if (ok(torch_call_dispatcher("aten::contiguous", "", st, TORCH_ABI_VERSION),
               "contiguous")) {
            show_meta("result", ret_tensor(st[0]));
            del(ret_tensor(st[0]));
        }
        StableIValue st2[6] = {from_tensor(mt), 0, 0, 0, 0, 0};
        if (ok(torch_call_dispatcher("aten::empty_like", "", st2, TORCH_ABI_VERSION),
               "empty_like")) {
            show_meta("result", ret_tensor(st2[0]));
            del(ret_tensor(st2[0]));
        }
    }
    {
        StableIValue st[6] = {from_tensor(m), 0, 0, 0, 0, 0};
        if (ok(torch_call_dispatcher("aten::zeros_like", "", st, TORCH_ABI_VERSION),
               "zeros_like")) {
            show_meta("result", ret_tensor(st[0]));
            del(ret_tensor(st[0]));
        }
    }
    printf("to(m, device=cpu): no data to copy\n");
    {
        StableIValue st[8] = {from_tensor(m),
                              0,
                              0,
                              some((StableIValue)(uint32_t)aoti_torch_device_type_cpu() << 32),
                              0,
                              0,
                              0,
                              0};
        AOTITorchError rc =
            torch_call_dispatcher("aten::to", "dtype_layout", st, TORCH_ABI_VERSION);
        printf("  %s\n", rc == AOTI_TORCH_SUCCESS ? "done" : "refused");
        if (rc == AOTI_TORCH_SUCCESS) del(ret_tensor(st[0]));
    }
    if (mt) del(mt);
    del(m);
}

int main(void) {
    out_resized_through_dispatcher();
    second_handle();
    assign();
    returns_self();
    meta();
    printf("failures %d\n", failures);
    return 0;
}

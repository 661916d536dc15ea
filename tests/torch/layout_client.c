/* tests/torch/layout_client.c: one C client of the stable C ABI, linked once against
 * libshimrt and once against PyTorch 2.15's libtorch_cpu (tests/torch/layout_oracle.sh
 * compares the two outputs line by line). It prints the sizes, strides and values of what
 * ops return for inputs of many layouts (contiguous, transposed, channels-last, permuted,
 * expanded, every other element, empty and size-1 dims with odd strides): PyTorch's output
 * layout rules (TensorIterator's, empty_like(preserve_format)'s, nonzero's, cat's), and
 * resize_'s order of resize and memory-format check.
 * Ops are called through torch_call_dispatcher; no output depends on pointer values. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "shimrt/shimrt.h"

static uint64_t g_rng = 12345;
static int64_t rn(int64_t n) { /* 0..n-1 */
    g_rng = g_rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int64_t)((g_rng >> 33) % (uint64_t)n);
}

static void show(const char *tag, AtenTensorHandle t) {
    int64_t nd = 0, *sz = NULL, *st = NULL, n = 0;
    int32_t dt = -1;
    if (aoti_torch_get_dim(t, &nd) || aoti_torch_get_sizes(t, &sz) ||
        aoti_torch_get_strides(t, &st) || aoti_torch_get_dtype(t, &dt) ||
        aoti_torch_get_numel(t, &n)) {
        printf("  %s: ?\n", tag);
        return;
    }
    printf("  %s: dtype %d sizes [", tag, (int)dt);
    for (int64_t i = 0; i < nd; i++) printf("%s%lld", i ? "," : "", (long long)sz[i]);
    printf("] strides [");
    for (int64_t i = 0; i < nd; i++) printf("%s%lld", i ? "," : "", (long long)st[i]);
    printf("]");
    if (dt == aoti_torch_dtype_float32() && n > 0 && strcmp(tag, "self")) {
        float *p = NULL;
        aoti_torch_get_data_ptr(t, (void **)&p);
        printf(" values");
        for (int64_t i = 0; i < n && i < 12; i++) {
            int64_t o = 0, lin = i;
            for (int64_t d = nd - 1; d >= 0; d--) {
                o += (lin % sz[d]) * st[d];
                lin /= sz[d];
            }
            printf(" %.5g", (double)p[o]);
        }
    }
    printf("\n");
}

static int g_int; /* the next views are int32 (1), bool (2), else float32 */

/* A float32 (int32: g_int) view of a fresh buffer holding 1, 2, 3, ...: sizes sz, strides
 * st. */
static AtenTensorHandle view(int64_t nd, const int64_t *sz, const int64_t *st) {
    int64_t span = 1;
    for (int64_t d = 0; d < nd; d++)
        if (sz[d] > 0) span += (sz[d] - 1) * st[d];
    AtenTensorHandle base = NULL, v = NULL;
    int64_t one = 1;
    if (aoti_torch_empty_strided(1, &span, &one,
                                 g_int == 2 ? aoti_torch_dtype_bool()
                                 : g_int    ? aoti_torch_dtype_int32()
                                            : aoti_torch_dtype_float32(),
                                 aoti_torch_device_type_cpu(), 0, &base))
        return NULL;
    void *p = NULL;
    aoti_torch_get_data_ptr(base, &p);
    for (int64_t i = 0; i < span; i++)
        if (g_int == 2)
            ((uint8_t *)p)[i] = (uint8_t)(i % 3 == 0);
        else if (g_int)
            ((int32_t *)p)[i] = (int32_t)(i % 7);
        else
            ((float *)p)[i] = (float)(i + 1);
    aoti_torch__reinterpret_tensor(base, nd, sz, st, 0, &v);
    aoti_torch_delete_tensor_object(base);
    return v;
}

/* A random layout of a random shape: a permutation of dense strides, sometimes a gap,
 * sometimes a stride-0 dim, odd strides on size-1 dims, sometimes an empty dim. */
static AtenTensorHandle rand_tensor(int64_t nd, int64_t *sz_out, int kind) {
    int64_t sz[5], st[5], perm[5];
    for (int64_t d = 0; d < nd; d++) {
        sz[d] = sz_out && sz_out[d] >= 0 ? sz_out[d] : 1 + rn(3);
        perm[d] = d;
    }
    if (kind == 1 && nd > 0) sz[rn(nd)] = 0;
    for (int64_t d = nd - 1; d > 0; d--) { /* a random order */
        int64_t j = rn(d + 1), t = perm[d];
        perm[d] = perm[j];
        perm[j] = t;
    }
    if (kind == 2 && nd == 4) { /* channels-last */
        perm[0] = 0, perm[1] = 2, perm[2] = 3, perm[3] = 1;
    }
    int64_t s = 1 + (kind == 3);
    for (int64_t i = nd - 1; i >= 0; i--) {
        st[perm[i]] = s;
        s *= sz[perm[i]] > 1 ? sz[perm[i]] : 1;
    }
    for (int64_t d = 0; d < nd; d++) {
        if (sz[d] <= 1 && rn(2)) st[d] = rn(5); /* odd strides where they do not matter */
        if (kind == 4 && sz[d] > 1 && rn(3) == 0) st[d] = 0; /* expanded */
    }
    if (sz_out)
        for (int64_t d = 0; d < nd; d++) sz_out[d] = sz[d];
    return view(nd, sz, st);
}

static StableIValue tv(AtenTensorHandle t) {
    AtenTensorHandle h = NULL;
    aoti_torch_new_tensor_handle(t, &h);
    return (StableIValue)(uintptr_t)h;
}
static StableIValue iv(int64_t v) { return (StableIValue)v; }
static StableIValue tlist(int n, AtenTensorHandle *ts) {
    StableListHandle l = NULL;
    torch_new_list_reserve_size((size_t)n, &l);
    for (int i = 0; i < n; i++) torch_list_push_back(l, tv(ts[i]));
    return (StableIValue)(uintptr_t)l;
}
static StableIValue ilist(int64_t n, const int64_t *v) {
    StableListHandle l = NULL;
    torch_new_list_reserve_size((size_t)n, &l);
    for (int64_t i = 0; i < n; i++) torch_list_push_back(l, (StableIValue)v[i]);
    return (StableIValue)(uintptr_t)l;
}
static StableIValue some(StableIValue v) {
    StableIValue *cell = NULL;
    torch_new_stable_ivalue(&cell);
    *cell = v;
    return (StableIValue)(uintptr_t)cell;
}

/* Calls op and shows its first nret results (tensors). */
static void call(const char *op, const char *ov, StableIValue *stack, int nret) {
    if (torch_call_dispatcher(op, ov, stack, TORCH_ABI_VERSION)) {
        printf("  %s.%s: FAIL\n", op, ov);
        return;
    }
    for (int r = 0; r < nret; r++) {
        AtenTensorHandle t = (AtenTensorHandle)(uintptr_t)stack[r];
        char tag[64];
        snprintf(tag, sizeof tag, "%s.%s r%d", op, ov, r);
        show(tag, t);
        aoti_torch_delete_tensor_object(t);
    }
}

static void unary_and_copies(AtenTensorHandle a) {
    StableIValue s[8];
    s[0] = tv(a);
    call("aten::neg", "", s, 1);
    s[0] = tv(a);
    call("aten::tanh", "", s, 1);
    s[0] = tv(a), s[1] = 0;
    call("aten::clone", "", s, 1);
    s[0] = tv(a), s[1] = iv(aoti_torch_dtype_float64()), s[2] = 0, s[3] = 0, s[4] = 0;
    call("aten::to", "dtype", s, 1);
    s[0] = tv(a), s[1] = 0, s[2] = 0, s[3] = 0, s[4] = 0, s[5] = 0;
    call("aten::ones_like", "", s, 1);
    s[0] = tv(a);
    call("aten::nonzero", "", s, 1);
}

static void pads(AtenTensorHandle a, int64_t nd) {
    static const int64_t pv[][4] = {{-1, 0, 0, 0}, {0, -1, -1, 0}, {1, -1, 0, 0}, {2, 1, 0, 1}};
    for (int i = 0; i < 4 && nd > 1; i++) {
        StringHandle m = NULL;
        torch_new_string_handle("constant", 8, &m);
        double v = 2.5;
        StableIValue vd;
        memcpy(&vd, &v, sizeof vd);
        StableIValue s[4] = {tv(a), ilist(4, pv[i]), (StableIValue)(uintptr_t)m, some(vd)};
        call("aten::pad", "", s, 1);
    }
}

static void binary(AtenTensorHandle a, AtenTensorHandle b) {
    StableIValue s[8];
    s[0] = tv(a), s[1] = tv(b);
    call("aten::pow", "Tensor_Tensor", s, 1);
    s[0] = tv(a), s[1] = tv(b);
    call("aten::floor_divide", "", s, 1);
    s[0] = tv(a), s[1] = tv(b);
    call("aten::mul", "Tensor", s, 1);
    s[0] = tv(a), s[1] = tv(b);
    call("aten::eq", "Tensor", s, 1);
}

static void reductions(AtenTensorHandle a, int64_t nd) {
    if (nd == 0) return;
    StableIValue s[8];
    int64_t d = rn(nd);
    for (int keep = 0; keep < 2; keep++) {
        s[0] = tv(a), s[1] = iv(d), s[2] = iv(keep);
        call("aten::max", "dim", s, 2);
        s[0] = tv(a), s[1] = ilist(1, &d), s[2] = iv(keep);
        call("aten::amax", "", s, 1);
        s[0] = tv(a), s[1] = some(ilist(1, &d)), s[2] = iv(keep), s[3] = 0;
        call("aten::sum", "dim_IntList", s, 1);
    }
}

static void cat_stack(int64_t nd, int kind) {
    if (nd == 0) return;
    int64_t sz[5];
    for (int64_t d = 0; d < nd; d++) sz[d] = 1 + rn(3);
    int64_t dim = rn(nd);
    AtenTensorHandle t[3];
    for (int i = 0; i < 3; i++) {
        int64_t s2[5];
        memcpy(s2, sz, sizeof s2);
        s2[dim] = -1;
        t[i] = rand_tensor(nd, s2, i == 0 ? kind : 2 + (int)rn(3));
    }
    printf(" cat/stack along %lld\n", (long long)dim);
    StableIValue s[4];
    s[0] = tlist(3, t), s[1] = iv(dim);
    call("aten::cat", "", s, 1);
    for (int i = 1; i < 3; i++) { /* stack wants equal shapes */
        aoti_torch_delete_tensor_object(t[i]);
        int64_t s2[5];
        memcpy(s2, sz, sizeof s2);
        t[i] = rand_tensor(nd, s2, 2 + (int)rn(3));
    }
    aoti_torch_delete_tensor_object(t[0]);
    t[0] = rand_tensor(nd, sz, kind == 1 ? 0 : kind);
    s[0] = tlist(3, t), s[1] = iv(dim);
    call("aten::stack", "", s, 1);
    for (int i = 0; i < 3; i++) aoti_torch_delete_tensor_object(t[i]);
}

static void resizes(void) {
    static const int64_t sizes[][4] = {{4, 2, -9, 0}, {2, 3, 4, 1}, {0, 3, -9, 0}, {3, 0, 2, 2}};
    static const int ns[] = {2, 4, 2, 4};
    for (int i = 0; i < 4; i++)
        for (int f = -1; f < 4; f++) {
            int64_t sz[2] = {2, 3}, st[2] = {1, 2};
            AtenTensorHandle t = view(2, sz, st);
            StableIValue s[3] = {tv(t), ilist(ns[i], sizes[i]), f < 0 ? 0 : some(iv(f))};
            printf(" resize_ to %d dims, memory format %d\n", ns[i], f);
            if (torch_call_dispatcher("aten::resize_", "", s, TORCH_ABI_VERSION))
                printf("  resize_: FAIL\n");
            else
                aoti_torch_delete_tensor_object((AtenTensorHandle)(uintptr_t)s[0]);
            show("self", t);
            aoti_torch_delete_tensor_object(t);
        }
}

int main(void) {
    for (int round = 0; round < 60; round++) {
        int64_t nd = rn(5), sz[5] = {-1, -1, -1, -1, -1};
        int kind = (int)rn(5);
        AtenTensorHandle a = rand_tensor(nd, sz, kind);
        int64_t *st = NULL;
        aoti_torch_get_strides(a, &st);
        printf("round %d: kind %d sizes [", round, kind);
        for (int64_t d = 0; d < nd; d++) printf("%s%lld", d ? "," : "", (long long)sz[d]);
        printf("] strides [");
        for (int64_t d = 0; d < nd; d++) printf("%s%lld", d ? "," : "", (long long)st[d]);
        printf("]\n");
        unary_and_copies(a);
        reductions(a, nd);
        pads(a, nd);
        /* the other operand: the same shape in another layout, or a broadcast one */
        int64_t sb[5];
        memcpy(sb, sz, sizeof sb);
        for (int64_t d = 0; d < nd; d++)
            if (rn(3) == 0) sb[d] = 1;
        int64_t bnd = nd - (nd > 0 && rn(3) == 0);
        AtenTensorHandle b = rand_tensor(bnd, sb + (nd - bnd), 2 + (int)rn(3));
        binary(a, b);
        binary(b, a);
        aoti_torch_delete_tensor_object(b);
        g_int = 1; /* an int32 operand: converted to float32 first (its to() layout) */
        int64_t sc[5];
        memcpy(sc, sz, sizeof sc);
        b = rand_tensor(nd, sc, 2 + (int)rn(3));
        g_int = 0;
        binary(a, b);
        binary(b, a);
        unary_and_copies(b);
        g_int = 2; /* where(bool condition, bool self, float other) */
        memcpy(sc, sz, sizeof sc);
        AtenTensorHandle c = rand_tensor(nd, sc, 2 + (int)rn(3));
        memcpy(sc, sz, sizeof sc);
        AtenTensorHandle bb = rand_tensor(nd, sc, 2 + (int)rn(3));
        g_int = 0;
        StableIValue s[3] = {tv(c), tv(bb), tv(a)};
        call("aten::where", "self", s, 1);
        s[0] = tv(c), s[1] = tv(a), s[2] = tv(b);
        call("aten::where", "self", s, 1);
        aoti_torch_delete_tensor_object(c);
        aoti_torch_delete_tensor_object(bb);
        aoti_torch_delete_tensor_object(b);
        cat_stack(nd, kind);
        aoti_torch_delete_tensor_object(a);
    }
    printf("cat/stack of channels-last tensors, and of float32, int32, bool\n");
    for (int64_t dim = 0; dim < 4; dim++) {
        AtenTensorHandle t[3];
        int64_t sz[5] = {2, 3, 2, 2, -1};
        for (int i = 0; i < 3; i++) {
            int64_t s2[5];
            memcpy(s2, sz, sizeof s2);
            g_int = i == 0 ? 0 : (int)dim % 3;
            t[i] = rand_tensor(4, s2, 2);
        }
        g_int = 0;
        StableIValue s[2] = {tlist(3, t), iv(dim)};
        call("aten::cat", "", s, 1);
        s[0] = tlist(3, t), s[1] = iv(dim);
        call("aten::stack", "", s, 1);
        for (int i = 0; i < 3; i++) aoti_torch_delete_tensor_object(t[i]);
    }
    printf("stack of empty tensors\n");
    for (int64_t dim = 0; dim < 4; dim++) {
        AtenTensorHandle t[2];
        int64_t sz[3] = {2, 0, 3}, st[3] = {3, 3, 1};
        if (dim == 3) st[0] = 0, st[2] = 2; /* odd strides where nothing is read */
        t[0] = view(3, sz, st);
        t[1] = view(3, sz, st);
        StableIValue s[2] = {tlist(2, t), iv(dim)};
        call("aten::stack", "", s, 1);
        aoti_torch_delete_tensor_object(t[0]);
        aoti_torch_delete_tensor_object(t[1]);
    }
    printf("matmul of float32 and int32 (mixed dtypes: PyTorch's bmm path takes empty ones)\n");
    static const int64_t ms[][2][4] = {
        {{0, 2, 3, -1}, {0, 3, 4, -1}},   {{2, 0, 3, -1}, {2, 3, 4, -1}},
        {{2, 2, 3, -1}, {2, 3, 0, -1}},   {{2, 2, 0, -1}, {2, 0, 4, -1}},
        {{0, 2, 3, -1}, {3, 4, -1, -1}},  {{3, -1, -1, -1}, {0, 3, 4, -1}},
        {{0, 3, -1, -1}, {2, 3, 4, -1}},  {{2, 0, 3, -1}, {1, 3, 4, -1}},
        {{2, 3, -1, -1}, {3, 2, -1, -1}}, {{4, 0, 2, 3}, {3, 2, -1, -1}},
        {{2, 2, 3, -1}, {2, 3, 2, -1}},   {{2, 0, -1, -1}, {0, 3, -1, -1}}};
    for (int i = 0; i < 12; i++) {
        AtenTensorHandle t[2];
        for (int j = 0; j < 2; j++) {
            int64_t n = 0, sz[4], st[4], acc = 1;
            while (n < 4 && ms[i][j][n] >= 0) n++;
            for (int64_t d = n - 1; d >= 0; d--) {
                sz[d] = ms[i][j][d];
                st[d] = acc;
                acc *= sz[d] > 1 ? sz[d] : 1;
            }
            g_int = j;
            t[j] = view(n, sz, st);
        }
        g_int = 0;
        StableIValue s[2] = {tv(t[0]), tv(t[1])};
        printf(" matmul case %d\n", i);
        call("aten::matmul", "", s, 1);
        s[0] = tv(t[1]), s[1] = tv(t[0]);
        call("aten::matmul", "", s, 1);
        aoti_torch_delete_tensor_object(t[0]);
        aoti_torch_delete_tensor_object(t[1]);
    }
    resizes();
    return 0;
}

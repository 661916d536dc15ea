/* runtime/cpu/attention_backward.c: _scaled_dot_product_flash_attention_for_cpu_backward, the
 * gradient of attention.c's forward (PyTorch's cpu_flash_attention_backward).
 *
 * Per batch and head, with P = exp(scale * Q @ K^T + mask - logsumexp) (causal positions 0,
 * after the exp as there), D = rowsum(dO * O) and dS = P * (dO @ V^T - D):
 *   dQ = scale * dS @ K,  dK += scale * dS^T @ Q,  dV += P^T @ dO
 * (a key/value head gathers the gradients of the query heads that share it: head h / (Hq / Hk)).
 * The products run in double through OpenBLAS (linalg.c's gemm), each gradient rounded once
 * to the inputs' dtype. PyTorch runs the same algebra blocked (its q and kv splits) in float
 * for float32 and the half types, so results agree within PyTorch's own attention
 * tolerances, not bit for bit. Checks are PyTorch's, in its order (bw_check; dropout_p
 * ignored, as PyTorch's CPU backward ignores it); where its kernel would read past key,
 * value, grad_out, out or logsumexp, or divide by zero (key heads 0 or above query heads),
 * libshimrt refuses. The gradients have PyTorch's layout: contiguous in [B, L, H, E] order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"

/* the end of a refusal where PyTorch's kernel reads or writes out of bounds */
#define OOB " (PyTorch's kernel would index out of bounds)"

static const char OP[] = "_scaled_dot_product_flash_attention_for_cpu_backward";

/* a new zeroed float64 tensor of sizes (4-d) */
static AtenTensorHandle zeros64(const int64_t *sz) {
    AtenTensorHandle t = shimrt_k_new(OP, 4, sz, SHIMRT_FLOAT64);
    if (t && shimrt_numel(t)) memset(shimrt_data(t), 0, (size_t)shimrt_numel(t) * 8);
    return t;
}

/* element [b, h] of a 4-d double tensor's rows */
static double *head(AtenTensorHandle t, int64_t b, int64_t h) {
    return (double *)shimrt_data(t) + b * t->strides[0] + h * t->strides[1];
}

/* (the gradients of one query head h of batch b; hk its key/value head) */
typedef struct {
    AtenTensorHandle q, k, v, go, o, m, lse, gq, gk, gv;
    const int64_t *mst;
    int64_t L, S, E;
    double sf;
    bool causal;
    double *p, *ds;
} bw_ctx;

static AOTITorchError one_head(bw_ctx *c, int64_t b, int64_t h, int64_t hk) {
    int64_t L = c->L, S = c->S, E = c->E;
    const double *q = head(c->q, b, h), *k = head(c->k, b, hk), *v = head(c->v, b, hk);
    const double *go = head(c->go, b, h), *o = head(c->o, b, h);
    const int64_t *qs = c->q->strides, *ks = c->k->strides, *vs = c->v->strides;
    const int64_t *gs = c->go->strides, *os = c->o->strides;
    AOTITorchError err = shimrt_k_gemm(OP, SHIMRT_FLOAT64, L, E, S, q, qs[2], qs[3], k, ks[3],
                                       ks[2], c->p, c->sf, 0.0);
    if (!err) /* dP = dO @ V^T */
        err = shimrt_k_gemm(OP, SHIMRT_FLOAT64, L, E, S, go, gs[2], gs[3], v, vs[3], vs[2], c->ds,
                            1.0, 0.0);
    for (int64_t i = 0; !err && i < L; i++) {
        double lse = shimrt_k_load_f64(
            (const char *)shimrt_data(c->lse) +
                (size_t)(b * c->lse->strides[0] + h * c->lse->strides[1] + i * c->lse->strides[2]) *
                    shimrt_dtype_size(c->lse->dtype),
            c->lse->dtype);
        double d = 0;
        for (int64_t e = 0; e < E; e++) d += go[i * gs[2] + e * gs[3]] * o[i * os[2] + e * os[3]];
        for (int64_t j = 0; j < S; j++) {
            double x = c->p[i * S + j];
            if (c->m)
                x += ((const double *)shimrt_data(
                    c->m))[b * c->mst[0] + h * c->mst[1] + i * c->mst[2] + j * c->mst[3]];
            double pij =
                c->causal && j > i ? 0.0 : exp(x - lse); /* (PyTorch: exp, then causal 0) */
            c->p[i * S + j] = pij;
            c->ds[i * S + j] = pij * (c->ds[i * S + j] - d);
        }
    }
    double *gq = head(c->gq, b, h), *gk = head(c->gk, b, hk), *gv = head(c->gv, b, hk);
    if (!err) /* dQ = scale * dS @ K */
        err = shimrt_k_gemm(OP, SHIMRT_FLOAT64, L, S, E, c->ds, S, 1, k, ks[2], ks[3], gq, c->sf,
                            0.0);
    if (!err) /* dK += scale * dS^T @ Q */
        err = shimrt_k_gemm(OP, SHIMRT_FLOAT64, S, L, E, c->ds, 1, S, q, qs[2], qs[3], gk, c->sf,
                            1.0);
    if (!err) /* dV += P^T @ dO */
        err =
            shimrt_k_gemm(OP, SHIMRT_FLOAT64, S, L, E, c->p, 1, S, go, gs[2], gs[3], gv, 1.0, 1.0);
    return err;
}

/* PyTorch's gradient layout: zeros(t.transpose(1, 2).sizes()) transposed back, i.e.
 * contiguous in [B, L, H, E] order */
static void grad_strides(const int64_t *sz, int64_t *st) {
    int64_t e = sz[3] > 0 ? sz[3] : 1, h = sz[1] > 0 ? sz[1] : 1, l = sz[2] > 0 ? sz[2] : 1;
    st[3] = 1, st[1] = e, st[2] = h * e, st[0] = l * h * e;
}

/* a result of dt with t's values in the gradient layout (t freed); t NULL: zeros of sz */
static AtenTensorHandle grad_of(AtenTensorHandle t, const int64_t *sz, int32_t dt) {
    int64_t st[4];
    grad_strides(sz, st);
    AtenTensorHandle r = shimrt_tensor_empty(OP, 4, sz, st, dt, SHIMRT_DEV_CPU, 0);
    if (r && !t && shimrt_numel(r))
        memset(shimrt_data(r), 0, (size_t)shimrt_numel(r) * shimrt_dtype_size(dt));
    if (r && t && shimrt_k_copy(OP, r, t)) {
        shimrt_tensor_free(r);
        r = NULL;
    }
    shimrt_tensor_free(t);
    return r;
}

/* c10's "Dimension out of range" of dim d on a tensor of rank nd */
static AOTITorchError dim_range(int64_t nd, int64_t d) {
    int64_t m = nd > 0 ? nd : 1;
    return shimrt_fail(OP,
                       "Dimension out of range (expected to be in range of [%lld, %lld], but "
                       "got %lld)",
                       (long long)-m, (long long)(m - 1), (long long)d);
}

/* PyTorch 2.15's checks, in its order (_scaled_dot_product_flash_attention_cpu_backward and
 * flash_attention_backward_kernel_impl make none of their own): the transposes (1, 2) of
 * grad_out, query, key, value, out and logsumexp; the dispatch on query's dtype (floating)
 * and the mask's (bool or floating); the kernel's head-size check (size(3), so rank 4);
 * reshape_attn_mask_to_4d (a mask with elements: view to [B or 1, H or 1, a, b], expand to
 * [.., L, S]); then each data_ptr<T>() (key, value, grad_out, out in query's dtype,
 * logsumexp in its compute dtype). mst: the mask's strides over [B, H, L, S]; *mask: NULL
 * for a mask without elements (PyTorch ignores it). */
static AOTITorchError bw_check(AtenTensorHandle grad_out, AtenTensorHandle query,
                               AtenTensorHandle key, AtenTensorHandle value, AtenTensorHandle out,
                               AtenTensorHandle logsumexp, AtenTensorHandle *mask, int64_t mst[4]) {
    AtenTensorHandle all[7] = {grad_out, query, key, value, out, logsumexp, *mask};
    static const char *const names[7] = {"grad_out", "query",     "key",      "value",
                                         "out",      "logsumexp", "attn_mask"};
    for (int i = 0; i < 7; i++)
        if (all[i] && shimrt_k_check_cpu(OP, all[i], names[i])) return AOTI_TORCH_FAILURE;
    for (int i = 0; i < 6; i++)
        if (all[i]->ndim < 3) return dim_range(all[i]->ndim, all[i]->ndim < 2 ? 1 : 2);
    int32_t dt = query->dtype, acc = dt == SHIMRT_FLOAT64 ? SHIMRT_FLOAT64 : SHIMRT_FLOAT32;
    if (!shimrt_k_is_floating(dt))
        return shimrt_fail(OP, "\"flash_attention_backward\" not implemented for '%s'",
                           shimrt_dtype_torch_name(dt));
    AtenTensorHandle m = *mask;
    if (m && !shimrt_k_is_floating(m->dtype) && m->dtype != SHIMRT_BOOL)
        return shimrt_fail(OP, "\"flash_attention_mask_backward\" not implemented for '%s'",
                           shimrt_dtype_torch_name(m->dtype));
    if (query->ndim < 4) return dim_range(query->ndim, 3);
    if (value->ndim < 4) return dim_range(value->ndim, 3);
    if (query->sizes[3] == value->sizes[3] && key->ndim < 4) return dim_range(key->ndim, 3);
    if (query->sizes[3] != value->sizes[3] || key->sizes[3] != value->sizes[3])
        return shimrt_fail(OP, "scaled_dot_product_attention_flash_attention_backward: Q/K/V "
                               "should have the same head size");
    if (key->sizes[1] == 0) /* (its Hq / Hk) */
        return shimrt_fail(OP, "key has 0 heads (PyTorch's kernel divides by zero)");
    int64_t B = query->sizes[0], H = query->sizes[1], L = query->sizes[2];
    int64_t S = value->sizes[2];
    mst[0] = mst[1] = mst[2] = mst[3] = 0;
    if (m && shimrt_numel(m) == 0) *mask = m = NULL;
    if (m) {
        int64_t nd = m->ndim;
        if (nd < 2) return dim_range(nd, -2);
        int64_t s0 = nd == 4 && m->sizes[0] == B ? B : 1, s1 = nd == 4 && m->sizes[1] == H ? H : 1;
        int64_t a = m->sizes[nd - 2], b = m->sizes[nd - 1];
        if (shimrt_numel(m) != s0 * s1 * a * b)
            return shimrt_fail(OP,
                               "shape '[%lld, %lld, %lld, %lld]' is invalid for input of "
                               "size %lld",
                               (long long)s0, (long long)s1, (long long)a, (long long)b,
                               (long long)shimrt_numel(m));
        if ((a != 1 && a != L) || (b != 1 && b != S))
            return shimrt_fail(OP,
                               "The expanded size of the tensor (%lld) must match the "
                               "existing size (%lld) at non-singleton dimension %d",
                               (long long)(a != 1 && a != L ? L : S),
                               (long long)(a != 1 && a != L ? a : b), a != 1 && a != L ? 2 : 3);
        /* the view's strides: the mask's own for its dims of size > 1 */
        if (s0 > 1) mst[0] = m->strides[0];
        if (s1 > 1) mst[1] = m->strides[1];
        if (a > 1) mst[2] = m->strides[nd - 2];
        if (b > 1) mst[3] = m->strides[nd - 1];
    }
    const AtenTensorHandle typed[5] = {key, value, grad_out, out, logsumexp};
    for (int i = 0; i < 5; i++) {
        int32_t want = i == 4 ? acc : dt;
        if (typed[i]->dtype != want)
            return shimrt_fail(OP, "expected scalar type %s but found %s",
                               shimrt_dtype_torch_name(want),
                               shimrt_dtype_torch_name(typed[i]->dtype));
    }
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu__scaled_dot_product_flash_attention_for_cpu_backward(
    AtenTensorHandle grad_out, AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value,
    AtenTensorHandle out, AtenTensorHandle logsumexp, double dropout_p, int32_t is_causal,
    AtenTensorHandle attn_mask, double *scale, AtenTensorHandle *ret0, AtenTensorHandle *ret1,
    AtenTensorHandle *ret2) {
    int64_t mst[4];
    (void)dropout_p; /* (PyTorch's CPU backward ignores it: the gradient without dropout) */
    if (bw_check(grad_out, query, key, value, out, logsumexp, &attn_mask, mst))
        return AOTI_TORCH_FAILURE;
    int32_t dt = query->dtype;
    int64_t B = query->sizes[0], Hq = query->sizes[1], L = query->sizes[2], E = query->sizes[3];
    int64_t S = value->sizes[2];
    if (query->ndim != 4 || key->ndim != 4 || value->ndim != 4)
        return shimrt_fail(OP, "query, key and value must be 4-d" OOB);
    /* no element to compute: zero gradients (PyTorch's loops read nothing) */
    if (B == 0 || Hq == 0 || L == 0 || E == 0 || S == 0) {
        *ret0 = grad_of(NULL, query->sizes, dt);
        *ret1 = *ret0 ? grad_of(NULL, key->sizes, dt) : NULL;
        *ret2 = *ret1 ? grad_of(NULL, value->sizes, dt) : NULL;
        if (*ret2) return AOTI_TORCH_SUCCESS;
        shimrt_tensor_free(*ret0);
        shimrt_tensor_free(*ret1);
        return AOTI_TORCH_FAILURE;
    }
    /* PyTorch's kernel: query head h reads key/value head h / (Hq / Hk) (Hk 0, or above Hq,
     * divides by zero there: SIGFPE), key rows up to value's S, grad_out and out as query,
     * logsumexp [B, H, L]: each must be at least that large (larger ones are read in part,
     * as there) */
    int64_t Hk = key->sizes[1];
    if (Hk > Hq)
        return shimrt_fail(OP,
                           "key has %lld heads for %lld query heads (PyTorch's kernel "
                           "divides by zero)",
                           (long long)Hk, (long long)Hq);
    int64_t Hkv = (Hq - 1) / (Hq / Hk) + 1;
    const int64_t need[5][4] = {
        {B, Hkv, S, E}, {B, Hkv, S, E}, {B, Hq, L, E}, {B, Hq, L, E}, {B, Hq, L, 0}};
    const AtenTensorHandle rd[5] = {key, value, grad_out, out, logsumexp};
    static const char *const rn[5] = {"key", "value", "grad_out", "out", "logsumexp"};
    for (int i = 0; i < 5; i++) {
        bool ok = rd[i]->ndim >= (i == 4 ? 3 : 4);
        for (int d = 0; ok && d < (i == 4 ? 3 : 4); d++) ok = rd[i]->sizes[d] >= need[i][d];
        if (!ok)
            return shimrt_fail(
                OP, "%s must be at least [%lld, %lld, %lld%s] (4-d; logsumexp 3-d)" OOB, rn[i],
                (long long)B, (long long)Hq, (long long)need[i][2], i == 4 ? "" : ", E");
    }
    bw_ctx c = {.mst = mst, .L = L, .S = S, .E = E, .causal = is_causal != 0, .lse = logsumexp};
    c.sf = scale ? *scale : 1.0 / sqrt((double)E);
    c.q = shimrt_attn_widen(query, SHIMRT_FLOAT64);
    c.k = c.q ? shimrt_attn_widen(key, SHIMRT_FLOAT64) : NULL;
    c.v = c.k ? shimrt_attn_widen(value, SHIMRT_FLOAT64) : NULL;
    c.go = c.v ? shimrt_attn_widen(grad_out, SHIMRT_FLOAT64) : NULL;
    c.o = c.go ? shimrt_attn_widen(out, SHIMRT_FLOAT64) : NULL;
    c.m = c.o && attn_mask ? shimrt_attn_widen(attn_mask, SHIMRT_FLOAT64) : NULL;
    if (c.m) { /* (the mask's strides as the widened copy has them) */
        int64_t nd = c.m->ndim;
        for (int i = 0; i < 4; i++)
            if (mst[i]) mst[i] = c.m->strides[i < 2 ? i : nd - 4 + i];
    }
    c.gq = c.o && (!attn_mask || c.m) ? zeros64(query->sizes) : NULL;
    c.gk = c.gq ? zeros64(key->sizes) : NULL;
    c.gv = c.gk ? zeros64(value->sizes) : NULL;
    size_t n = (size_t)(L * S > 0 ? L * S : 1);
    c.p = malloc(n * sizeof *c.p);
    c.ds = malloc(n * sizeof *c.ds);
    AOTITorchError err = c.gv ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
    if (!err && (!c.p || !c.ds)) err = shimrt_fail(OP, "out of memory");
    for (int64_t b = 0; !err && L > 0 && S > 0 && b < B; b++)
        for (int64_t h = 0; !err && h < Hq; h++) err = one_head(&c, b, h, h / (Hq / Hk));
    free(c.p);
    free(c.ds);
    const AtenTensorHandle ins[] = {query, key, value, grad_out, out, attn_mask};
    AtenTensorHandle wide[] = {c.q, c.k, c.v, c.go, c.o, c.m};
    for (int i = 0; i < 6; i++)
        if (wide[i] != ins[i]) shimrt_tensor_free(wide[i]);
    AtenTensorHandle gq = NULL, gk = NULL, gv = NULL;
    if (err) {
        shimrt_tensor_free(c.gq);
        shimrt_tensor_free(c.gk);
        shimrt_tensor_free(c.gv);
        return AOTI_TORCH_FAILURE;
    }
    gq = grad_of(c.gq, query->sizes, dt);
    gk = grad_of(c.gk, key->sizes, dt);
    gv = grad_of(c.gv, value->sizes, dt);
    if (!gq || !gk || !gv) {
        shimrt_tensor_free(gq);
        shimrt_tensor_free(gk);
        shimrt_tensor_free(gv);
        return AOTI_TORCH_FAILURE;
    }
    *ret0 = gq;
    *ret1 = gk;
    *ret2 = gv;
    return AOTI_TORCH_SUCCESS;
}

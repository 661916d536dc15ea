/* runtime/cpu/attention_backward.c: _scaled_dot_product_flash_attention_for_cpu_backward, the
 * gradient of attention.c's forward (PyTorch's cpu_flash_attention_backward).
 *
 * Per batch and head, with P = exp(scale * Q @ K^T + mask - logsumexp) (causal positions and
 * -inf scores 0), D = rowsum(dO * O) and dS = P * (dO @ V^T - D):
 *   dQ = scale * dS @ K,  dK += scale * dS^T @ Q,  dV += P^T @ dO
 * (a key/value head gathers the gradients of the query heads that share it). The products run
 * in double through OpenBLAS (linalg.c's gemm), each gradient rounded once to the inputs'
 * dtype. PyTorch runs the same algebra blocked (its q and kv splits) in float for float32 and
 * the half types, so results agree within PyTorch's own attention tolerances, not bit for
 * bit. Checks are the forward's (attention.c; dropout_p ignored, as PyTorch's CPU backward
 * ignores it); grad_out and out must have query's shape and
 * dtype, logsumexp [B, H, L] in the compute dtype (float, or double for float64). */
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
            double pij = (c->causal && j > i) || x == -INFINITY ? 0.0 : exp(x - lse);
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

/* a result of dt with t's values (t freed) */
static AtenTensorHandle narrow_to(AtenTensorHandle t, int32_t dt) {
    AtenTensorHandle r = t ? shimrt_k_new(OP, 4, t->sizes, dt) : NULL;
    if (r && shimrt_k_copy(OP, r, t)) {
        shimrt_tensor_free(r);
        r = NULL;
    }
    shimrt_tensor_free(t);
    return r;
}

/* PyTorch's CPU backward with no element to compute: zero gradients shaped as query, key
 * and value, before any check of their shapes (PyTorch makes none there). */
static AOTITorchError empty_grads(AtenTensorHandle q, AtenTensorHandle k, AtenTensorHandle v,
                                  AtenTensorHandle *r0, AtenTensorHandle *r1,
                                  AtenTensorHandle *r2) {
    const struct AtenTensorOpaque *src[3] = {q, k, v};
    AtenTensorHandle *dst[3] = {r0, r1, r2};
    static const char *const names[3] = {"query", "key", "value"};
    for (int i = 0; i < 3; i++)
        if (shimrt_k_check_cpu(OP, src[i], names[i])) return AOTI_TORCH_FAILURE;
    for (int i = 0; i < 3; i++) {
        AtenTensorHandle t = shimrt_tensor_empty(OP, src[i]->ndim, src[i]->sizes, NULL,
                                                 src[i]->dtype, SHIMRT_DEV_CPU, 0);
        if (!t) {
            for (int j = 0; j < i; j++) shimrt_tensor_free(*dst[j]);
            return AOTI_TORCH_FAILURE;
        }
        if (shimrt_numel(t))
            memset(shimrt_data(t), 0, (size_t)shimrt_numel(t) * shimrt_dtype_size(t->dtype));
        *dst[i] = t;
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
    if (query && key && value && grad_out && query->ndim == 4 && key->ndim == 4 &&
        value->ndim == 4 && grad_out->ndim == 4 &&
        (shimrt_numel(query) == 0 || shimrt_numel(grad_out) == 0))
        return empty_grads(query, key, value, ret0, ret1, ret2);
    if (shimrt_attn_check(query, key, value, 0.0, attn_mask, mst) ||
        shimrt_k_check_cpu(OP, grad_out, "grad_out") || shimrt_k_check_cpu(OP, out, "out") ||
        shimrt_k_check_cpu(OP, logsumexp, "logsumexp"))
        return AOTI_TORCH_FAILURE;
    int32_t dt = query->dtype, acc = dt == SHIMRT_FLOAT64 ? SHIMRT_FLOAT64 : SHIMRT_FLOAT32;
    int64_t B = query->sizes[0], Hq = query->sizes[1], L = query->sizes[2], E = query->sizes[3];
    int64_t Hk = key->sizes[1], S = key->sizes[2];
    for (int k = 0; k < 2; k++) {
        AtenTensorHandle t = k ? out : grad_out;
        bool ok = t->dtype == dt && t->ndim == 4;
        for (int d = 0; ok && d < 4; d++) ok = t->sizes[d] == query->sizes[d];
        if (!ok)
            return shimrt_fail(OP, "%s must have query's shape and dtype" OOB,
                               k ? "out" : "grad_out");
    }
    if (logsumexp->dtype != acc || logsumexp->ndim != 3 || logsumexp->sizes[0] != B ||
        logsumexp->sizes[1] != Hq || logsumexp->sizes[2] != L)
        return shimrt_fail(OP, "logsumexp must be [%lld, %lld, %lld] of %s" OOB, (long long)B,
                           (long long)Hq, (long long)L, shimrt_dtype_torch_name(acc));
    bw_ctx c = {.mst = mst, .L = L, .S = S, .E = E, .causal = is_causal != 0, .lse = logsumexp};
    c.sf = scale ? *scale : 1.0 / sqrt((double)E);
    c.q = shimrt_attn_widen(query, SHIMRT_FLOAT64);
    c.k = c.q ? shimrt_attn_widen(key, SHIMRT_FLOAT64) : NULL;
    c.v = c.k ? shimrt_attn_widen(value, SHIMRT_FLOAT64) : NULL;
    c.go = c.v ? shimrt_attn_widen(grad_out, SHIMRT_FLOAT64) : NULL;
    c.o = c.go ? shimrt_attn_widen(out, SHIMRT_FLOAT64) : NULL;
    c.m = c.o && attn_mask ? shimrt_attn_widen(attn_mask, SHIMRT_FLOAT64) : NULL;
    if (c.m) /* (the mask's strides as the widened copy has them) */
        for (int64_t i = 0, off = 4 - c.m->ndim; i < c.m->ndim; i++)
            mst[off + i] = c.m->sizes[i] == 1 ? 0 : c.m->strides[i];
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
    gq = narrow_to(c.gq, dt);
    gk = narrow_to(c.gk, dt);
    gv = narrow_to(c.gv, dt);
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

/* runtime/cpu/attention.c: _scaled_dot_product_flash_attention_for_cpu, the attention that
 * AOTInductor CPU graphs call for F.scaled_dot_product_attention (causal, an additive float
 * mask, a scale; dropout 0 only, as PyTorch's CPU kernel).
 *
 * Per batch and head: scores = scale * Q @ K^T (OpenBLAS through linalg.c's gemm, operands
 * read in place by their strides), + mask, causal positions (key index above the query
 * index) at -inf, a row softmax with its log-sum-exp, then out = P @ V. float32 and the half
 * types compute in float (the half types widened first, the result rounded once), float64 in
 * double. A fully masked row gives zeros and a log-sum-exp of 0, as PyTorch's kernel. Key and
 * value heads may be fewer than query heads (grouped-query attention): query head h reads
 * key/value head h / (Hq / Hkv). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"

static const char OP[] = "scaled_dot_product_attention_flash_attention";

AtenTensorHandle shimrt_attn_widen(AtenTensorHandle t, int32_t dt) {
    if (t->dtype == dt) return t;
    AtenTensorHandle r = shimrt_k_new(OP, t->ndim, t->sizes, dt);
    if (r && shimrt_k_copy(OP, r, t)) {
        shimrt_tensor_free(r);
        return NULL;
    }
    return r;
}

/* The checks of PyTorch's CPU flash attention (forward and backward); mst: attn_mask's
 * element strides broadcast to [B, Hq, L, S] (zeros without a mask). */
AOTITorchError shimrt_attn_check(AtenTensorHandle query, AtenTensorHandle key,
                                 AtenTensorHandle value, double dropout_p,
                                 AtenTensorHandle attn_mask, int64_t mst[4]) {
    if (shimrt_k_check_cpu(OP, query, "query") || shimrt_k_check_cpu(OP, key, "key") ||
        shimrt_k_check_cpu(OP, value, "value") ||
        (attn_mask && shimrt_k_check_cpu(OP, attn_mask, "attn_mask")))
        return AOTI_TORCH_FAILURE;
    int32_t dt = query->dtype;
    if (!shimrt_k_is_floating(dt))
        return shimrt_fail(OP, "\"flash_attention\" not implemented for '%s'",
                           shimrt_dtype_torch_name(dt));
    if (key->dtype != dt || value->dtype != dt)
        return shimrt_fail(OP, "Q/K/V should have the same data type");
    if (query->ndim != 4 || key->ndim != 4 || value->ndim != 4)
        return shimrt_fail(OP, "Accept only 4 dims inputs shape of {B, H, T, K}");
    if (dropout_p != 0.0) return shimrt_fail(OP, "Currently do not support dropout > 0");
    int64_t B = query->sizes[0], Hq = query->sizes[1], L = query->sizes[2], E = query->sizes[3];
    int64_t Hk = key->sizes[1], S = value->sizes[2];
    if (key->sizes[3] != E || value->sizes[3] != E)
        return shimrt_fail(OP, "Q/K/V should have the same head size");
    mst[0] = mst[1] = mst[2] = mst[3] = 0;
    if (attn_mask) {
        if (attn_mask->dtype != dt && attn_mask->dtype != SHIMRT_FLOAT32)
            return shimrt_fail(OP, "Attention mask is the same data type as query");
        if (attn_mask->ndim != 2 && attn_mask->ndim != 4)
            return shimrt_fail(OP, "Attention mask dim in {2, 4}");
    }
    /* PyTorch's kernel: kvSize is value's S; query head h reads key/value head
     * h / (Hq / Hk) of batch b, key rows up to S. Hk 0 (or above Hq, with rows to compute)
     * divides by zero there (SIGFPE); smaller key/value are read past their ends. */
    bool rows = B > 0 && Hq > 0 && L > 0;
    if (Hk == 0 || (rows && Hk > Hq))
        return shimrt_fail(OP,
                           "key has %lld heads for %lld query heads (PyTorch's kernel "
                           "divides by zero)",
                           (long long)Hk, (long long)Hq);
    if (attn_mask && shimrt_numel(attn_mask)) { /* (an empty mask: none, as in PyTorch) */
        int64_t want[4] = {B, Hq, L, S}, off = 4 - attn_mask->ndim;
        for (int64_t i = 0; i < attn_mask->ndim; i++) {
            int64_t sz = attn_mask->sizes[i];
            if (sz != 1 && sz != want[off + i])
                return shimrt_fail(OP,
                                   "Attention mask of size %lld at dimension %lld cannot "
                                   "be broadcast to %lld",
                                   (long long)sz, (long long)i, (long long)want[off + i]);
            mst[off + i] = sz == 1 ? 0 : attn_mask->strides[i];
        }
    }
    if (L == 0 || S == 0) /* (its block counts (L + qSplit - 1) / qSplit, qSplit = min(32, L)) */
        return shimrt_fail(OP,
                           "query has %lld rows, value %lld (PyTorch's kernel divides by "
                           "zero)",
                           (long long)L, (long long)S);
    int64_t top = Hq > 0 && Hk <= Hq ? (Hq - 1) / (Hq / Hk) : 0;
    if (rows && (key->sizes[0] < B || value->sizes[0] < B || top >= Hk || top >= value->sizes[1] ||
                 key->sizes[2] < S))
        return shimrt_fail(OP, "Q/K/V should have the same batch size, K/V the same number of "
                               "heads and sequence length, and query heads a multiple of K/V "
                               "heads (PyTorch's kernel would index out of bounds)");
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu__scaled_dot_product_flash_attention_for_cpu(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value, double dropout_p,
    int32_t is_causal, AtenTensorHandle attn_mask, double *scale, AtenTensorHandle *ret0,
    AtenTensorHandle *ret1) {
    int64_t mst[4];
    if (shimrt_attn_check(query, key, value, dropout_p, attn_mask, mst)) return AOTI_TORCH_FAILURE;
    if (attn_mask && !shimrt_numel(attn_mask)) attn_mask = NULL;
    int32_t dt = query->dtype;
    int64_t B = query->sizes[0], Hq = query->sizes[1], L = query->sizes[2], E = query->sizes[3];
    int64_t Hk = key->sizes[1], S = value->sizes[2];
    bool f64 = dt == SHIMRT_FLOAT64;
    int32_t acc = f64 ? SHIMRT_FLOAT64 : SHIMRT_FLOAT32;
    /* PyTorch's layouts (a compiled model checks them): the output is empty_like(query)
     * (query's strides when dense), logsumexp is made as [B, L, H] and returned as [B, H, L] */
    int64_t osz[4] = {B, Hq, L, E}, ost[4];
    shimrt_k_preserve_strides(query, ost);
    int64_t lsz[3] = {B, Hq, L}, lst[3] = {L * Hq, 1, Hq};
    AtenTensorHandle out = shimrt_tensor_empty(OP, 4, osz, ost, dt, SHIMRT_DEV_CPU, 0);
    AtenTensorHandle lse =
        out ? shimrt_tensor_empty(OP, 3, lsz, lst, acc, SHIMRT_DEV_CPU, 0) : NULL;
    AtenTensorHandle q = NULL, k = NULL, v = NULL, m = NULL, o = NULL;
    double *sc = NULL;
    AOTITorchError err = AOTI_TORCH_FAILURE;
    if (!out || !lse) goto done;
    q = shimrt_attn_widen(query, acc);
    k = shimrt_attn_widen(key, acc);
    v = shimrt_attn_widen(value, acc);
    m = attn_mask ? shimrt_attn_widen(attn_mask, acc) : NULL;
    o = shimrt_k_new(OP, 4, osz, acc); /* dense [B, H, L, E] rows for the GEMMs, copied to out */
    sc = malloc(sizeof *sc * (size_t)(L * S > 0 ? L * S : 1));
    void *pbuf = malloc((f64 ? 8 : 4) * (size_t)(L * S > 0 ? L * S : 1));
    if (!q || !k || !v || (attn_mask && !m) || !o || !sc || !pbuf) {
        free(pbuf);
        if (!sc || !pbuf) shimrt_fail(OP, "out of memory");
        goto done;
    }
    double sf = scale ? *scale : 1.0 / sqrt((double)E);
    size_t es = f64 ? 8 : 4;
    const char *qd = shimrt_data(q), *kd = shimrt_data(k), *vd = shimrt_data(v);
    const char *md = m ? shimrt_data(m) : NULL;
    char *od = shimrt_data(o);
    char *ld = shimrt_data(lse);
    err = AOTI_TORCH_SUCCESS;
    for (int64_t b = 0; b < B && !err; b++)
        for (int64_t h = 0; h < Hq && !err; h++) {
            int64_t hk = h / (Hq / Hk);
            const char *qp = qd ? qd + (size_t)(b * q->strides[0] + h * q->strides[1]) * es : NULL;
            const char *kp = kd ? kd + (size_t)(b * k->strides[0] + hk * k->strides[1]) * es : NULL;
            const char *vp = vd ? vd + (size_t)(b * v->strides[0] + hk * v->strides[1]) * es : NULL;
            char *op = od ? od + (size_t)((b * Hq + h) * L * E) * es : NULL;
            /* scores in the compute type into pbuf, then rows in double */
            if (L > 0 && S > 0)
                err = shimrt_k_gemm(OP, acc, L, E, S, qp, q->strides[2], q->strides[3], kp,
                                    k->strides[3], k->strides[2], pbuf, sf, 0.0);
            for (int64_t i = 0; i < L && !err; i++) {
                double mx = -INFINITY;
                for (int64_t j = 0; j < S; j++) {
                    double x = f64 ? ((double *)pbuf)[i * S + j] : ((float *)pbuf)[i * S + j];
                    if (md)
                        x += shimrt_k_load_f64(
                            md + (size_t)(b * mst[0] + h * mst[1] + i * mst[2] + j * mst[3]) * es,
                            acc);
                    if (is_causal && j > i) x = -INFINITY;
                    sc[i * S + j] = x;
                    if (x > mx) mx = x;
                }
                double sum = 0;
                for (int64_t j = 0; j < S; j++) {
                    double e = mx == -INFINITY ? 0.0 : exp(sc[i * S + j] - mx);
                    sc[i * S + j] = e;
                    sum += e;
                }
                double l = mx == -INFINITY || sum == 0 ? 0.0 : mx + log(sum);
                shimrt_k_store_f64(ld + (size_t)(b * lst[0] + h * lst[1] + i * lst[2]) * es, acc,
                                   l);
                for (int64_t j = 0; j < S; j++) {
                    double p = sum > 0 ? sc[i * S + j] / sum : 0.0;
                    if (f64)
                        ((double *)pbuf)[i * S + j] = p;
                    else
                        ((float *)pbuf)[i * S + j] = (float)p;
                }
            }
            if (!err && L > 0 && E > 0) {
                if (S > 0)
                    err = shimrt_k_gemm(OP, acc, L, S, E, pbuf, S, 1, vp, v->strides[2],
                                        v->strides[3], op, 1.0, 0.0);
                else
                    memset(op, 0, (size_t)(L * E) * es);
            }
        }
    free(pbuf);
    if (!err && o != out) err = shimrt_k_copy(OP, out, o);
done:
    if (q && q != query) shimrt_tensor_free(q);
    if (k && k != key) shimrt_tensor_free(k);
    if (v && v != value) shimrt_tensor_free(v);
    if (m && m != attn_mask) shimrt_tensor_free(m);
    if (o && o != out) shimrt_tensor_free(o);
    free(sc);
    if (err) {
        shimrt_tensor_free(out);
        shimrt_tensor_free(lse);
        return AOTI_TORCH_FAILURE;
    }
    *ret0 = out;
    *ret1 = lse;
    return AOTI_TORCH_SUCCESS;
}

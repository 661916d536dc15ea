/* runtime/cpu/attention.c: _scaled_dot_product_flash_attention_for_cpu, the attention that
 * AOTInductor CPU graphs call for F.scaled_dot_product_attention (causal, an additive mask, a
 * scale; dropout 0 only, as PyTorch's CPU kernel).
 *
 * PyTorch's blocked online softmax (cpu_flash_attention) step by step in its compute type
 * (float for float32 and the half types, double for float64; fa_head below): scores by
 * OpenBLAS's gemm, its causal -inf, scaling and mask, block max, exp, sums and rescaling, the
 * probabilities @ v, so that rows holding inf/NaN and fully masked rows come out as there.
 * Key and value heads may be fewer than query heads (grouped-query attention): query head h
 * reads key/value head h / (Hq / Hkv). */
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

/* PyTorch's cpu_flash_attention for one batch and head, in the compute type T (float, or
 * double for float64): per query row, kv blocks of 512 keys (q blocks of 32, 64 or 256
 * rows bound a causal row's keys), scores q @ k^T (T's gemm), causal positions -inf, then
 * scaled (qk * scale, or fma(qk, scale, mask) with a mask), the block's max (with a mask
 * NaN-propagating; without, NaN ignored, and the whole vector part of the row ignored
 * when it holds a NaN: its lane max is NaN, which the final std::max drops), a row whose
 * max is -inf contributes zeros, else exp(x - max), its sum, the running sum
 * fma(exp(old max - max), sum, block sum) and the output rows rescaled by exp(old max -
 * max); probabilities (rounded to the half type for float16/bfloat16) @ v added to the
 * output rows; at the end a max of -inf is 0 and a sum of 0 is 1: out = dst * (1 / sum),
 * lse = max + log(sum). */
typedef struct {
    int64_t L, S, E;
    bool causal;
    int32_t rdt; /* float16/bfloat16: the probabilities rounded to it before @ v */
    const char *q, *k, *v, *m;
    const int64_t *qs, *ks, *vs, *ms; /* strides of rows and columns */
    char *o, *lse, *p;
    int64_t lst;
    double *sc; /* scratch: rows' dst (L * E), max and sum (L each) in T */
} fa_head;

static int fa_vec_lanes(bool f64) { /* PyTorch's Vectorized<T>::size() on this CPU */
    static int avx512 = -1;
    if (avx512 < 0)
        avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                 __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
    return (avx512 ? 64 : 32) / (f64 ? 8 : 4);
}

#define FA_HEAD(T, SUF, DT, EXP, LOG, FMA)                                                         \
    static AOTITorchError fa_head_##SUF(fa_head *h, T scale) {                                     \
        int64_t L = h->L, S = h->S, E = h->E;                                                      \
        T *qk = (T *)(void *)h->p, *dst = (T *)(void *)h->sc, *mx = dst + L * E, *sm = mx + L;     \
        const T *mk = (const T *)(const void *)h->m;                                               \
        int V = fa_vec_lanes(DT == SHIMRT_FLOAT64);                                                \
        AOTITorchError err = shimrt_k_gemm(OP, DT, L, E, S, h->q, h->qs[0], h->qs[1], h->k,        \
                                           h->ks[1], h->ks[0], qk, 1.0, 0.0);                      \
        if (err) return err;                                                                       \
        int64_t qsplit = L >= 768 ? 256 : L >= 192 ? 64 : 32;                                      \
        if (qsplit > L) qsplit = L;                                                                \
        for (int64_t i = 0; i < L; i++) mx[i] = -INFINITY, sm[i] = 0;                              \
        for (int64_t n = 0; n < S; n += 512) {                                                     \
            int64_t kvb = S - n < 512 ? S - n : 512;                                               \
            for (int64_t i = 0; i < L; i++) {                                                      \
                int64_t m0 = i / qsplit * qsplit, qb = L - m0 < qsplit ? L - m0 : qsplit;          \
                int64_t nk = h->causal ? (m0 + qb < S ? m0 + qb : S) : S;                          \
                T *x = qk + i * S + n, *d = dst + i * E;                                           \
                if (n >= nk) { /* (no block here: probabilities 0, dst unchanged) */               \
                    for (int64_t j = 0; j < kvb; j++) x[j] = 0;                                    \
                    continue;                                                                      \
                }                                                                                  \
                if (h->causal && nk - n <= 512)                                                    \
                    for (int64_t j = i - n + 1 < 0 ? 0 : i - n + 1; j < kvb; j++)                  \
                        x[j] = -INFINITY;                                                          \
                T bmax = -INFINITY;                                                                \
                if (mk) {                                                                          \
                    bool nan = false;                                                              \
                    for (int64_t j = 0; j < kvb; j++) {                                            \
                        x[j] = FMA(x[j], scale, mk[i * h->ms[0] + (n + j) * h->ms[1]]);            \
                        if (isnan(x[j])) nan = true;                                               \
                        if (x[j] > bmax) bmax = x[j];                                              \
                    }                                                                              \
                    if (nan) bmax = NAN;                                                           \
                } else {                                                                           \
                    int64_t nv = kvb / V * V;                                                      \
                    T vmax = -INFINITY;                                                            \
                    bool vnan = false;                                                             \
                    for (int64_t j = 0; j < kvb; j++) {                                            \
                        x[j] = x[j] * scale;                                                       \
                        if (j < nv) {                                                              \
                            if (isnan(x[j])) vnan = true;                                          \
                            if (x[j] > vmax) vmax = x[j];                                          \
                        } else if (x[j] > bmax) {                                                  \
                            bmax = x[j];                                                           \
                        }                                                                          \
                    }                                                                              \
                    if (!vnan && bmax < vmax) bmax = vmax;                                         \
                }                                                                                  \
                T tmax = mx[i] > bmax ? mx[i] : bmax;                                              \
                if (tmax == -INFINITY) {                                                           \
                    for (int64_t j = 0; j < kvb; j++) x[j] = 0;                                    \
                } else {                                                                           \
                    int64_t nv = kvb / V * V;                                                      \
                    T lanes[16] = {0}, bsum;                                                       \
                    for (int64_t j = 0; j < kvb; j++) {                                            \
                        x[j] = EXP(x[j] - tmax);                                                   \
                        if (j < nv) lanes[j % V] += x[j];                                          \
                    }                                                                              \
                    for (int w = V / 2; w >= 1; w /= 2)                                            \
                        for (int l = 0; l < w; l++) lanes[l] += lanes[l + w];                      \
                    bsum = lanes[0];                                                               \
                    for (int64_t j = nv; j < kvb; j++) bsum += x[j];                               \
                    T et = EXP(mx[i] - tmax);                                                      \
                    sm[i] = FMA(et, sm[i], bsum);                                                  \
                    mx[i] = tmax;                                                                  \
                    if (n > 0)                                                                     \
                        for (int64_t e = 0; e < E; e++) d[e] *= et;                                \
                }                                                                                  \
                if (h->rdt)                                                                        \
                    for (int64_t j = 0; j < kvb; j++) {                                            \
                        char t16[2];                                                               \
                        shimrt_k_store_f64(t16, h->rdt, x[j]);                                     \
                        x[j] = (T)shimrt_k_load_f64(t16, h->rdt);                                  \
                    }                                                                              \
            }                                                                                      \
            if (n == 0) memset(dst, 0, sizeof *dst *(size_t)(L * E));                              \
            if (E > 0)                                                                             \
                err = shimrt_k_gemm(OP, DT, L, kvb, E, qk + n, S, 1,                               \
                                    h->v + (size_t)(n * h->vs[0]) * sizeof(T), h->vs[0], h->vs[1], \
                                    dst, 1.0, n == 0 ? 0.0 : 1.0);                                 \
            if (err) return err;                                                                   \
        }                                                                                          \
        for (int64_t i = 0; i < L; i++) {                                                          \
            if (mx[i] == -INFINITY) mx[i] = 0;                                                     \
            if (sm[i] == 0) sm[i] = 1;                                                             \
            T r = (T)1 / sm[i];                                                                    \
            T *o = (T *)(void *)h->o + i * E;                                                      \
            for (int64_t e = 0; e < E; e++) o[e] = dst[i * E + e] * r;                             \
            ((T *)(void *)h->lse)[i * h->lst] = mx[i] + LOG(sm[i]);                                \
        }                                                                                          \
        return AOTI_TORCH_SUCCESS;                                                                 \
    }
FA_HEAD(float, f32, SHIMRT_FLOAT32, expf, logf, fmaf)
FA_HEAD(double, f64, SHIMRT_FLOAT64, exp, log, fma)

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
    if (m) /* (the mask's strides as the widened copy has them) */
        for (int64_t i = 0, off = 4 - m->ndim; i < m->ndim; i++)
            if (mst[off + i]) mst[off + i] = m->strides[i];
    o = shimrt_k_new(OP, 4, osz, acc); /* dense [B, H, L, E] rows for the GEMMs, copied to out */
    sc = malloc(sizeof *sc * (size_t)(L * (E + 2) > 0 ? L * (E + 2) : 1));
    void *pbuf = malloc((f64 ? 8 : 4) * (size_t)(L * S > 0 ? L * S : 1));
    if (!q || !k || !v || (attn_mask && !m) || !o || !sc || !pbuf) {
        free(pbuf);
        if (!sc || !pbuf) shimrt_fail(OP, "out of memory");
        goto done;
    }
    double sf = scale ? *scale : 1.0 / sqrt((double)E);
    const char *qd = shimrt_data(q), *kd = shimrt_data(k), *vd = shimrt_data(v);
    const char *md = m ? shimrt_data(m) : NULL;
    int32_t rdt = dt == SHIMRT_FLOAT16 || dt == SHIMRT_BFLOAT16 ? dt : 0;
    fa_head h = {.L = L, .S = S, .E = E, .causal = is_causal != 0, .rdt = rdt, .sc = sc};
    err = AOTI_TORCH_SUCCESS;
    for (int64_t b = 0; b < B && !err; b++)
        for (int64_t hq = 0; hq < Hq && !err; hq++) {
            int64_t hk = hq / (Hq / Hk);
            size_t es = f64 ? 8 : 4;
            h.q = qd + (size_t)(b * q->strides[0] + hq * q->strides[1]) * es;
            h.k = kd + (size_t)(b * k->strides[0] + hk * k->strides[1]) * es;
            h.v = vd + (size_t)(b * v->strides[0] + hk * v->strides[1]) * es;
            h.qs = q->strides + 2, h.ks = k->strides + 2, h.vs = v->strides + 2;
            h.m = md ? md + (size_t)(b * mst[0] + hq * mst[1]) * es : NULL;
            h.ms = mst + 2;
            h.o = (char *)shimrt_data(o) + (size_t)((b * Hq + hq) * L * E) * es;
            h.lse = (char *)shimrt_data(lse) + (size_t)(b * lst[0] + hq * lst[1]) * es;
            h.lst = lst[2];
            h.p = pbuf;
            err = f64 ? fa_head_f64(&h, sf) : fa_head_f32(&h, (float)sf);
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

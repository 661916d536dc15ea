/* runtime/cpu/advindex.c: PyTorch's advanced indexing for c_shim_cpu.h: index.Tensor
 * (self[indices]) and index_put (a copy of self with self[indices] = values, or += with
 * accumulate).
 *
 * indices is a Tensor?[] list over self's leading dims: None keeps a dim, an int64 / int32
 * tensor indexes one, a bool (or uint8) mask indexes as many dims as it has (its nonzero()
 * positions). The index tensors broadcast together to B; when the indexed dims are adjacent
 * B takes their place in the result, else B comes first (NumPy's rule, as PyTorch). */
#include <stdlib.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"
#include "index.h"

typedef struct {
    int64_t nd;                           /* self->ndim */
    AtenTensorHandle ix[SHIMRT_MAX_DIMS]; /* per dim: a dense int64 tensor of shape B, or NULL */
    int64_t bnd, bshape[SHIMRT_MAX_DIMS], bnum;
    int64_t first; /* where B goes in the result */
    int64_t rnd, rshape[SHIMRT_MAX_DIMS];
    int64_t rmap[SHIMRT_MAX_DIMS]; /* result dim -> self dim (-1: a B dim) */
} adv;

static void adv_free(adv *a) {
    for (int64_t d = 0; d < a->nd; d++) shimrt_tensor_free(a->ix[d]);
}

static AOTITorchError adv_plan(const char *op, AtenTensorHandle self,
                               const AtenTensorHandle *indices, int64_t n, adv *a) {
    memset(a, 0, sizeof *a);
    a->nd = self->ndim;
    AtenTensorHandle raw[SHIMRT_MAX_DIMS] = {0};
    bool own[SHIMRT_MAX_DIMS] = {0};
    int64_t d = 0;
    AOTITorchError err = AOTI_TORCH_SUCCESS;
    for (int64_t k = 0; k < n && !err; k++) {
        AtenTensorHandle t = indices[k];
        if (t && shimrt_k_check_cpu(op, t, "indices")) {
            err = AOTI_TORCH_FAILURE;
            break;
        }
        bool mask = t && (t->dtype == SHIMRT_BOOL || t->dtype == SHIMRT_UINT8);
        int64_t span = mask ? t->ndim : 1;
        if (d + span > self->ndim) {
            err = shimrt_fail(op, "too many indices for tensor of dimension %lld",
                              (long long)self->ndim);
            break;
        }
        if (!t) {
            d++;
            continue;
        }
        if (!mask) {
            if (t->dtype != SHIMRT_INT64 && t->dtype != SHIMRT_INT32) {
                err = shimrt_fail(op, "tensors used as indices must be long, int, byte or bool "
                                      "tensors");
                break;
            }
            raw[d++] = t;
            continue;
        }
        for (int64_t j = 0; j < t->ndim; j++)
            if (t->sizes[j] != self->sizes[d + j]) {
                err = shimrt_fail(op,
                                  "The shape of the mask [%lld] at index %lld does not match "
                                  "the shape of the indexed tensor [%lld] at index %lld",
                                  (long long)t->sizes[j], (long long)j,
                                  (long long)self->sizes[d + j], (long long)(d + j));
                break;
            }
        if (err) break;
        AtenTensorHandle nz = NULL; /* [count, ndim] */
        if (shimrt_cpu_nonzero(t, &nz)) {
            err = AOTI_TORCH_FAILURE;
            break;
        }
        for (int64_t j = 0; j < t->ndim && !err; j++) {
            int64_t col_st[1] = {nz->strides[0]};
            raw[d + j] = shimrt_k_alias(op, nz, 1, nz->sizes, col_st,
                                        nz->storage_offset + j * nz->strides[1]);
            own[d + j] = raw[d + j] != NULL;
            if (!raw[d + j]) err = AOTI_TORCH_FAILURE;
        }
        if (t->ndim == 0) { /* a 0-dim mask: a new dim of size 1 (true) or 0 (false) */
            err = shimrt_fail(op, "0-dim boolean masks are not supported here");
        }
        shimrt_tensor_free(nz);
        d += t->ndim;
    }
    /* broadcast the index tensors */
    int64_t lo = -1, hi = -1;
    for (int64_t k = 0; k < self->ndim && !err; k++) {
        if (!raw[k]) continue;
        if (lo < 0) lo = k;
        hi = k;
        int64_t ns[SHIMRT_MAX_DIMS], nn;
        if (shimrt_k_broadcast(op, a->bnd, a->bshape, raw[k]->ndim, raw[k]->sizes, ns, &nn)) {
            err = shimrt_fail(op, "shape mismatch: indexing tensors could not be broadcast "
                                  "together");
            break;
        }
        memcpy(a->bshape, ns, sizeof *ns * (size_t)nn);
        a->bnd = nn;
    }
    if (!err && lo < 0) err = shimrt_fail(op, "index: at least one index tensor is needed");
    a->bnum = 1;
    for (int64_t k = 0; k < a->bnd; k++) a->bnum *= a->bshape[k];
    for (int64_t k = 0; k < self->ndim && !err; k++) {
        if (!raw[k]) continue;
        a->ix[k] = shimrt_k_new(op, a->bnd, a->bshape, SHIMRT_INT64);
        if (!a->ix[k] || shimrt_k_copy(op, a->ix[k], raw[k])) {
            err = AOTI_TORCH_FAILURE;
            break;
        }
        int64_t *v = shimrt_data(a->ix[k]);
        for (int64_t i = 0; i < a->bnum && !err; i++) {
            if (v[i] < -self->sizes[k] || v[i] >= self->sizes[k])
                err = shimrt_fail(op,
                                  "index %lld is out of bounds for dimension %lld with size "
                                  "%lld",
                                  (long long)v[i], (long long)k, (long long)self->sizes[k]);
            else if (v[i] < 0)
                v[i] += self->sizes[k];
        }
    }
    for (int64_t k = 0; k < SHIMRT_MAX_DIMS; k++)
        if (own[k]) shimrt_tensor_free(raw[k]);
    if (err) {
        adv_free(a);
        return AOTI_TORCH_FAILURE;
    }
    bool adjacent = true;
    for (int64_t k = lo; k <= hi; k++) adjacent = adjacent && a->ix[k];
    a->first = adjacent ? lo : 0;
    int64_t r = 0;
    for (int64_t k = 0; k < self->ndim; k++) {
        if (k == a->first && (adjacent || k == 0))
            for (int64_t j = 0; j < a->bnd; j++) {
                a->rshape[r] = a->bshape[j];
                a->rmap[r++] = -1;
            }
        if (a->ix[k]) continue;
        a->rshape[r] = self->sizes[k];
        a->rmap[r++] = k;
    }
    a->rnd = r;
    return AOTI_TORCH_SUCCESS;
}

/* Byte offset (from element 0) in t (self's shape) of the element a result index names. */
static int64_t adv_offset(const adv *a, const struct AtenTensorOpaque *t, const int64_t *ridx) {
    int64_t b = 0, off = 0;
    for (int64_t r = 0; r < a->rnd; r++)
        if (a->rmap[r] < 0)
            b = b * a->rshape[r] + ridx[r];
        else
            off += ridx[r] * t->strides[a->rmap[r]];
    for (int64_t k = 0; k < a->nd; k++)
        if (a->ix[k]) off += ((const int64_t *)shimrt_data(a->ix[k]))[b] * t->strides[k];
    return off * (int64_t)shimrt_dtype_size(t->dtype);
}

AOTITorchError shimrt_cpu_index_tensor(AtenTensorHandle self, const AtenTensorHandle *indices,
                                       int64_t indices_len_, AtenTensorHandle *ret0) {
    static const char op[] = "index.Tensor";
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    adv a;
    if (adv_plan(op, self, indices, indices_len_, &a)) return AOTI_TORCH_FAILURE;
    AtenTensorHandle r = shimrt_k_new(op, a.rnd, a.rshape, self->dtype);
    if (r && shimrt_numel(r) > 0) {
        size_t es = shimrt_dtype_size(self->dtype);
        int64_t ridx[SHIMRT_MAX_DIMS] = {0}, i = 0;
        const char *src = shimrt_data(self);
        char *dst = shimrt_data(r);
        do {
            memcpy(dst + (size_t)(i++) * es, src + adv_offset(&a, self, ridx), es);
        } while (a.rnd > 0 && shimrt_idx_next(a.rnd, a.rshape, ridx));
    }
    adv_free(&a);
    return shimrt_k_give(r, ret0);
}

AOTITorchError shimrt_cpu_index_put(AtenTensorHandle self, const AtenTensorHandle *indices,
                                    int64_t indices_len_, AtenTensorHandle values,
                                    int32_t accumulate, AtenTensorHandle *ret0) {
    static const char op[] = "index_put";
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, values, "values") ||
        shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    if (values->dtype != self->dtype)
        return shimrt_fail(op,
                           "Index put requires the source and destination dtypes match, got "
                           "%s for the destination and %s for the source.",
                           shimrt_dtype_torch_name(self->dtype),
                           shimrt_dtype_torch_name(values->dtype));
    adv a;
    if (adv_plan(op, self, indices, indices_len_, &a)) return AOTI_TORCH_FAILURE;
    int64_t tmp[SHIMRT_MAX_DIMS], tn;
    AOTITorchError err =
        shimrt_k_broadcast(op, values->ndim, values->sizes, a.rnd, a.rshape, tmp, &tn);
    if (!err && tn != a.rnd)
        err = shimrt_fail(op, "shape mismatch: value tensor cannot be broadcast to indexing "
                              "result");
    for (int64_t i = 0; !err && i < tn; i++)
        if (tmp[i] != a.rshape[i])
            err = shimrt_fail(op, "shape mismatch: value tensor cannot be broadcast to indexing "
                                  "result");
    int64_t st[SHIMRT_MAX_DIMS];
    shimrt_k_preserve_strides(self, st);
    AtenTensorHandle r =
        err ? NULL
            : shimrt_tensor_empty(op, self->ndim, self->sizes, st, self->dtype, SHIMRT_DEV_CPU, 0);
    AtenTensorHandle v = r ? shimrt_k_new(op, a.rnd, a.rshape, self->dtype) : NULL;
    if (!r || !v || shimrt_k_copy(op, r, self) || shimrt_k_copy(op, v, values)) {
        adv_free(&a);
        shimrt_tensor_free(r);
        shimrt_tensor_free(v);
        return AOTI_TORCH_FAILURE;
    }
    if (shimrt_numel(v) > 0) {
        size_t es = shimrt_dtype_size(self->dtype);
        int64_t ridx[SHIMRT_MAX_DIMS] = {0}, i = 0;
        const char *src = shimrt_data(v);
        char *dst = shimrt_data(r);
        do {
            char *e = dst + adv_offset(&a, r, ridx);
            const char *s = src + (size_t)(i++) * es;
            if (accumulate)
                shimrt_idx_store(e, self->dtype,
                                 self->dtype == SHIMRT_BOOL
                                     ? (long double)(shimrt_idx_load(e, self->dtype) != 0 ||
                                                     shimrt_idx_load(s, self->dtype) != 0)
                                     : shimrt_idx_load(e, self->dtype) +
                                           shimrt_idx_load(s, self->dtype));
            else
                memcpy(e, s, es);
        } while (a.rnd > 0 && shimrt_idx_next(a.rnd, a.rshape, ridx));
    }
    adv_free(&a);
    shimrt_tensor_free(v);
    return shimrt_k_give(r, ret0);
}

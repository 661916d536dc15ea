/* runtime/cpu/rest.c: small c_shim_cpu.h functions of issue 20: _efficientzerotensor (a
 * zero-filled strided tensor: libshimrt has no ZeroTensor dispatch key), to_sparse /
 * _to_sparse (no sparse layout: refused as PyTorch refuses a layout it cannot convert to;
 * docs/dropin.md), _scaled_dot_product_fused_attention_overrideable (refused with PyTorch's
 * CPU message: it is an operator for privateuse1 backends), set_.source_Tensor and
 * _trilinear. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../generic/meta.h"
#include "compositeexplicitautograd_kernels.h"
#include "cpu_kernels.h"
#include "engine.h"
#include "index.h"
#include "iter.h"

AOTITorchError shimrt_cpu__efficientzerotensor(const int64_t *size, int64_t size_len_,
                                               int32_t *dtype, int32_t *layout, int32_t *device,
                                               int32_t device_index_, int32_t *pin_memory,
                                               AtenTensorHandle *ret0) {
    static const char op[] = "_efficientzerotensor";
    (void)device_index_, (void)pin_memory; /* (no memory to pin, as PyTorch's ZeroTensor) */
    if (shimrt_k_check_size(op, size, size_len_)) return AOTI_TORCH_FAILURE;
    if (layout && *layout != SHIMRT_LAYOUT_STRIDED)
        return shimrt_fail(op, "Could not run 'aten::_efficientzerotensor' with arguments from "
                               "the 'Sparse' backend: libshimrt has only the strided layout");
    if (device && *device != SHIMRT_DEV_CPU)
        return shimrt_fail(op, "the CPU kernel cannot make a tensor on %s",
                           shimrt_device_type_name(*device));
    AtenTensorHandle t = shimrt_tensor_empty(op, size_len_, size, NULL,
                                             dtype ? *dtype : SHIMRT_FLOAT32, SHIMRT_DEV_CPU, 0);
    if (!t) return AOTI_TORCH_FAILURE;
    int64_t n = shimrt_numel(t);
    if (n) memset(shimrt_data(t), 0, (size_t)n * shimrt_dtype_size(t->dtype));
    *ret0 = t;
    return AOTI_TORCH_SUCCESS;
}

/* PyTorch's names of the layouts (c10::Layout's operator<<) */
static const char *layout_name(int32_t l) {
    static const char *const names[] = {"Strided",   "Sparse",    "SparseCsr", "SparseCsc",
                                        "SparseBsr", "SparseBsc", "Mkldnn",    "Jagged"};
    return l >= 0 && l < 8 ? names[l] : "an unknown layout";
}

/* to_sparse / _to_sparse: the strided layout asked for returns self (to_sparse; _to_sparse
 * asserts as PyTorch's does); every sparse layout is refused, with PyTorch's argument checks
 * first so that bad arguments get PyTorch's messages. */
static AOTITorchError to_sparse(const char *op, bool underscore, AtenTensorHandle self,
                                int32_t *layout, const int64_t *blocksize, int64_t blocksize_len_,
                                int64_t *dense_dim, AtenTensorHandle *ret0) {
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    int32_t to = layout ? *layout : 1; /* Sparse (COO) by default */
    bool block = blocksize != NULL;
    if (block && blocksize_len_ != 2)
        return shimrt_fail(op, "%s: blocksize needs to be a tuple of size 2, but got %lld",
                           to == SHIMRT_LAYOUT_STRIDED ? "to_sparse" : "dense_to_sparse",
                           (long long)blocksize_len_);
    if (to == SHIMRT_LAYOUT_STRIDED) {
        if (block)
            return shimrt_fail(op, "to_sparse: conversion from Strided to Strided with blocksize "
                                   "argument given is not supported");
        /* (PyTorch's range for a strided result is [0, self.dim() - 2]) */
        if (!underscore && dense_dim && (*dense_dim < 0 || *dense_dim > self->ndim - 2))
            return shimrt_fail(op,
                               "to_sparse: dense_dim argument must be in [0,%lld] range, but %lld "
                               "is given",
                               (long long)(self->ndim - 2), (long long)*dense_dim);
        if (underscore)
            return shimrt_fail(op, "self.layout() != layout_to INTERNAL ASSERT FAILED: "
                                   "dense_to_sparse: unexpected same input and output layout");
        AtenTensorHandle t = shimrt_tensor_share(op, self);
        return shimrt_k_give(t, ret0);
    }
    if (to < 1 || to > 5)
        return shimrt_fail(op, "dense_to_sparse: unexpected source layout Strided");
    if (to == 1 && block)
        return shimrt_fail(op, "dense_to_sparse: conversion from Strided to Sparse with blocksize "
                               "argument given is not supported");
    if ((to == 4 || to == 5) && !block)
        return shimrt_fail(op,
                           "dense_to_sparse: conversion from Strided to %s without blocksize "
                           "argument given is not supported",
                           layout_name(to));
    /* (COO: [0, self.dim()], not self.dim() itself past 0-d; compressed: [0, self.dim() - 2]) */
    int64_t dmax = to == 1 ? self->ndim : self->ndim - 2;
    if (dense_dim && (*dense_dim < 0 || *dense_dim > dmax))
        return shimrt_fail(op,
                           "dense_to_sparse: dense_dim argument must be in [0,%lld] range, but "
                           "%lld is given",
                           (long long)dmax, (long long)*dense_dim);
    if (dense_dim && to == 1 && self->ndim > 0 && *dense_dim == self->ndim)
        return shimrt_fail(op, "dense_to_sparse: dense_dim argument must be !=self.dim() when "
                               "self.dim()>0");
    return shimrt_fail(op,
                       "to_sparse: conversion from Strided to %s is not supported: libshimrt has "
                       "no sparse layout",
                       layout_name(to));
}

AOTITorchError shimrt_cpu_to_sparse(AtenTensorHandle self, int32_t *layout,
                                    const int64_t *blocksize, int64_t blocksize_len_,
                                    int64_t *dense_dim, AtenTensorHandle *ret0) {
    return to_sparse("to_sparse", false, self, layout, blocksize, blocksize_len_, dense_dim, ret0);
}

AOTITorchError shimrt_cpu__to_sparse(AtenTensorHandle self, int32_t *layout,
                                     const int64_t *blocksize, int64_t blocksize_len_,
                                     int64_t *dense_dim, AtenTensorHandle *ret0) {
    return to_sparse("_to_sparse", true, self, layout, blocksize, blocksize_len_, dense_dim, ret0);
}

AOTITorchError shimrt_cpu__scaled_dot_product_fused_attention_overrideable(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value,
    AtenTensorHandle attn_bias, double dropout_p, int32_t is_causal, int32_t return_debug_mask,
    double *scale, AtenTensorHandle *ret0, AtenTensorHandle *ret1, AtenTensorHandle *ret2,
    AtenTensorHandle *ret3, int64_t *ret4, int64_t *ret5, AtenTensorHandle *ret6,
    AtenTensorHandle *ret7, AtenTensorHandle *ret8) {
    (void)query, (void)key, (void)value, (void)attn_bias, (void)dropout_p, (void)is_causal;
    (void)return_debug_mask, (void)scale, (void)ret0, (void)ret1, (void)ret2, (void)ret3;
    (void)ret4, (void)ret5, (void)ret6, (void)ret7, (void)ret8;
    return shimrt_fail("_scaled_dot_product_fused_attention_overrideable",
                       "_scaled_dot_product_fused_attention_overrideable not implemented. This is "
                       "an operator for privateuse1 backends, please use TORCH_LIBRARY_IMPL to "
                       "override this function ");
}

/* set_.source_Tensor: self views source's storage with source's offset, sizes and strides
 * (self's dtype kept, as PyTorch's set_) */
AOTITorchError shimrt_cpu_set__source_tensor(AtenTensorHandle self, AtenTensorHandle source) {
    static const char op[] = "set_";
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, source, "source"))
        return AOTI_TORCH_FAILURE;
    if (!source->defined) return shimrt_fail(op, "source is an undefined tensor");
    int64_t sz[SHIMRT_MAX_DIMS], st[SHIMRT_MAX_DIMS], nd = source->ndim;
    if (nd) {
        memcpy(sz, source->sizes, (size_t)nd * sizeof *sz);
        memcpy(st, source->strides, (size_t)nd * sizeof *st);
    }
    shimrt_storage *stg = source->storage;
    size_t before = stg ? stg->nbytes : 0;
    if (self->impl == source->impl) return AOTI_TORCH_SUCCESS; /* (PyTorch: self unchanged) */
    /* PyTorch's checkSetStorage: where self already has source's sizes and strides, the
     * storage is not grown (resize_impl_cpu_ returns early) but must hold them */
    bool same =
        self->ndim == nd && (nd == 0 || (!memcmp(self->sizes, sz, (size_t)nd * sizeof *sz) &&
                                         !memcmp(self->strides, st, (size_t)nd * sizeof *st)));
    int64_t last = source->storage_offset, need;
    bool empty = false, wide = false;
    for (int64_t d = 0; d < nd; d++) {
        empty |= sz[d] == 0;
        int64_t step;
        wide |= __builtin_mul_overflow(sz[d] - 1, st[d], &step) ||
                __builtin_add_overflow(last, step, &last);
    }
    wide |= __builtin_mul_overflow(last + 1, (int64_t)shimrt_dtype_size(self->dtype), &need);
    if (same && !empty && !wide && stg && (uint64_t)need > before) { /* (wide: refused below) */
        char a[256], b[256];
        return shimrt_fail(op,
                           "setStorage: sizes %s, strides %s, storage offset %lld, and itemsize %d "
                           "requiring a storage size of %lld are out of bounds for storage of "
                           "size %lld",
                           shimrt_k_fmt_shape(a, sizeof a, nd, sz),
                           shimrt_k_fmt_shape(b, sizeof b, nd, st),
                           (long long)source->storage_offset, (int)shimrt_dtype_size(self->dtype),
                           (long long)need, (long long)before);
    }
    if (shimrt_tensor_set_storage(op, self, stg, source->storage_offset, nd, sz, st))
        return AOTI_TORCH_FAILURE;
    /* the bytes a grown storage gains: zeros rather than uninitialized memory */
    if (stg->nbytes > before) memset((char *)stg->data + before, 0, stg->nbytes - before);
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError bitset(const char *op, const int64_t *dims, int64_t n, int64_t total,
                             bool *bits) {
    for (int64_t d = 0; d < total; d++) bits[d] = false;
    for (int64_t k = 0; k < n; k++) {
        int64_t d = dims[k];
        if (d < -total || d >= total)
            return shimrt_fail(op,
                               "Dimension out of range (expected to be in range of [%lld, %lld], "
                               "but got %lld)",
                               (long long)-total, (long long)(total - 1), (long long)d);
        if (d < 0) d += total;
        if (bits[d])
            return shimrt_fail(op, "dim %lld appears multiple times in the list of dims",
                               (long long)d);
        bits[d] = true;
    }
    return AOTI_TORCH_SUCCESS;
}

/* a view of t's storage (t's dtype and device) */
static AtenTensorHandle tri_view(const char *op, AtenTensorHandle t, int64_t nd, const int64_t *sz,
                                 const int64_t *st, int64_t off) {
    return shimrt_tensor_new(op, t->storage, nd, sz, st, off, t->dtype, t->device_type,
                             t->device_index, t->layout);
}

/* t.narrow(dim, start, 1) (PyTorch's check and message) */
static AtenTensorHandle tri_narrow(const char *op, AtenTensorHandle t, int64_t dim, int64_t start) {
    if (start + 1 > t->sizes[dim]) {
        shimrt_fail(op, "start (%lld) + length (1) exceeds dimension size (%lld).",
                    (long long)start, (long long)t->sizes[dim]);
        return NULL;
    }
    int64_t sz[SHIMRT_MAX_DIMS];
    memcpy(sz, t->sizes, (size_t)t->ndim * sizeof *sz);
    sz[dim] = 1;
    return tri_view(op, t, t->ndim, sz, t->strides, t->storage_offset + start * t->strides[dim]);
}

/* PyTorch's sumproduct_pair (keepdim): (left * right) summed over sum_dims (sorted, unique):
 * a dim only one side has (size > 1) is summed on that side first (sum(dim, keepdim), which
 * turns integers to int64), the rest goes through bmm of the operands permuted to
 * (lro, lo, sum) and (lro, sum, ro) (bmm takes one dtype), an empty sum_dims is mul. */
static AOTITorchError tri_pair(const char *op, AtenTensorHandle left_, AtenTensorHandle right_,
                               const int64_t *sum_dims, int64_t nsum, AtenTensorHandle *ret0) {
    if (left_->ndim != right_->ndim) return shimrt_fail(op, "number of dimensions must match");
    if (nsum == 0) return shimrt_cpu_mul_tensor(left_, right_, ret0);
    int64_t dim = left_->ndim;
    bool sb[SHIMRT_MAX_DIMS] = {false};
    for (int64_t k = 0; k < nsum; k++) sb[sum_dims[k]] = true;
    AtenTensorHandle left = left_, right = right_, l3 = NULL, r3 = NULL, lp = NULL, rp = NULL,
                     res = NULL;
    AOTITorchError err = AOTI_TORCH_FAILURE;
    int64_t lro[SHIMRT_MAX_DIMS], lo[SHIMRT_MAX_DIMS], ro[SHIMRT_MAX_DIMS], nlro = 0, nlo = 0,
                                                                            nro = 0;
    int64_t lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
    for (int64_t i = 0; i < dim; i++) {
        bool sl = left->sizes[i] != 1, sr = right->sizes[i] != 1;
        if (sb[i]) {
            if (sl && sr) {
                if (left->sizes[i] != right->sizes[i]) {
                    shimrt_fail(op, "non-broadcast dimensions must match");
                    goto done;
                }
                sum_size *= left->sizes[i];
            } else if (sl || sr) {
                AtenTensorHandle *side = sl ? &left : &right, s = NULL;
                if (shimrt_cpu_sum_dim_intlist(*side, &i, 1, 1, NULL, &s)) goto done;
                if (*side != left_ && *side != right_) shimrt_tensor_free(*side);
                *side = s;
            }
        } else if (sl && sr) {
            if (left->sizes[i] != right->sizes[i]) {
                shimrt_fail(op, "non-broadcast dimensions must match");
                goto done;
            }
            lro[nlro++] = i;
            lro_size *= left->sizes[i];
        } else if (sl) {
            lo[nlo++] = i;
            lo_size *= left->sizes[i];
        } else {
            ro[nro++] = i;
            ro_size *= right->sizes[i];
        }
    }
    /* the permuted views, reshaped to three dims */
    int64_t lperm[SHIMRT_MAX_DIMS], rperm[SHIMRT_MAX_DIMS], operm[SHIMRT_MAX_DIMS], np = 0;
    int64_t osz[SHIMRT_MAX_DIMS], on = 0;
    for (int64_t k = 0; k < nlro; k++) lperm[np++] = lro[k], osz[on++] = left->sizes[lro[k]];
    for (int64_t k = 0; k < nlo; k++) lperm[np++] = lo[k], osz[on++] = left->sizes[lo[k]];
    for (int64_t k = 0; k < nsum; k++) lperm[np++] = sum_dims[k], osz[on++] = 1;
    for (int64_t k = 0; k < nro; k++) lperm[np++] = ro[k], osz[on++] = right->sizes[ro[k]];
    np = 0;
    for (int64_t k = 0; k < nlro; k++) rperm[np++] = lro[k];
    for (int64_t k = 0; k < nsum; k++) rperm[np++] = sum_dims[k];
    for (int64_t k = 0; k < nro; k++) rperm[np++] = ro[k];
    for (int64_t k = 0; k < nlo; k++) rperm[np++] = lo[k];
    for (int64_t k = 0; k < dim; k++) operm[lperm[k]] = k;
    int64_t psz[SHIMRT_MAX_DIMS], pst[SHIMRT_MAX_DIMS];
    for (int64_t k = 0; k < dim; k++)
        psz[k] = left->sizes[lperm[k]], pst[k] = left->strides[lperm[k]];
    if (!(lp = tri_view(op, left, dim, psz, pst, left->storage_offset))) goto done;
    for (int64_t k = 0; k < dim; k++)
        psz[k] = right->sizes[rperm[k]], pst[k] = right->strides[rperm[k]];
    if (!(rp = tri_view(op, right, dim, psz, pst, right->storage_offset))) goto done;
    int64_t ls[3] = {lro_size, lo_size, sum_size}, rs[3] = {lro_size, sum_size, ro_size};
    if (shimrt_cpu_reshape(lp, ls, 3, &l3) || shimrt_cpu_reshape(rp, rs, 3, &r3) ||
        shimrt_cpu_bmm(l3, r3, &res))
        goto done;
    /* bmm's contiguous [lro, lo, ro] viewed as out_size, permuted back */
    int64_t cst[SHIMRT_MAX_DIMS], acc = 1;
    for (int64_t k = on - 1; k >= 0; k--) cst[k] = acc, acc *= osz[k] > 1 ? osz[k] : 1;
    for (int64_t k = 0; k < dim; k++) psz[k] = osz[operm[k]], pst[k] = cst[operm[k]];
    *ret0 = tri_view(op, res, dim, psz, pst, res->storage_offset);
    err = *ret0 ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
done:
    if (left != left_) shimrt_tensor_free(left);
    if (right != right_) shimrt_tensor_free(right);
    shimrt_tensor_free(lp);
    shimrt_tensor_free(rp);
    shimrt_tensor_free(l3);
    shimrt_tensor_free(r3);
    shimrt_tensor_free(res);
    return err;
}

/* ---- _trilinear ------------------------------------------------------------------------------
 * PyTorch's composition (Linear.cpp), step by step, so that its dtype rules, refusals and
 * rounding are those of the ops it calls: the operands unsqueezed at their expand dims, a
 * zero output of i1's dtype sized by the last operand not expanded at each dim (1 at a sum
 * dim), then for each index k of unroll_dim: buf = sumproduct_pair(sumproduct_pair(i1[k],
 * i2[k], sum dims i3 is expanded at), i3[k], the other sum dims) added in place to
 * output[k] (or to the whole output where unroll_dim is summed); the sum dims squeezed. ---- */
AOTITorchError shimrt_cpu__trilinear(AtenTensorHandle i1, AtenTensorHandle i2, AtenTensorHandle i3,
                                     const int64_t *expand1, int64_t expand1_len_,
                                     const int64_t *expand2, int64_t expand2_len_,
                                     const int64_t *expand3, int64_t expand3_len_,
                                     const int64_t *sumdim, int64_t sumdim_len_, int64_t unroll_dim,
                                     AtenTensorHandle *ret0) {
    static const char op[] = "_trilinear";
    AtenTensorHandle in[3] = {i1, i2, i3};
    const int64_t *ex[3] = {expand1, expand2, expand3};
    int64_t exn[3] = {expand1_len_, expand2_len_, expand3_len_};
    for (int k = 0; k < 3; k++)
        if (shimrt_k_check_cpu(op, in[k], k == 0 ? "i1" : k == 1 ? "i2" : "i3"))
            return AOTI_TORCH_FAILURE;
    int64_t total = i1->ndim + expand1_len_;
    if (total > SHIMRT_MAX_DIMS) return shimrt_fail(op, "too many dimensions");
    if (unroll_dim < 0 || unroll_dim >= total)
        return shimrt_fail(op, "unroll_dim must be in [0,%lld]", (long long)(total - 1));
    bool eb[3][SHIMRT_MAX_DIMS], sb[SHIMRT_MAX_DIMS];
    for (int k = 0; k < 3; k++)
        if (bitset(op, ex[k], exn[k], total, eb[k])) return AOTI_TORCH_FAILURE;
    if (bitset(op, sumdim, sumdim_len_, total, sb)) return AOTI_TORCH_FAILURE;
    /* PyTorch does not compare the ranks: an operand with fewer (expanded) dims fails its
     * size(d) (IndexError), one with more keeps them trailing and fails the first
     * sumproduct_pair's rank check, which runs only when no operand is empty */
    for (int k = 1; k < 3; k++)
        if (in[k]->ndim + exn[k] < total) {
            int64_t have = in[k]->ndim + exn[k] - 1;
            return shimrt_fail(op,
                               "Dimension out of range (expected to be in range of [%lld, %lld], "
                               "but got %lld)",
                               (long long)-(have + 1 > 0 ? have + 1 : 1),
                               (long long)(have > 0 ? have : 0), (long long)(have + 1));
        }
    if (i2->ndim + expand2_len_ > SHIMRT_MAX_DIMS || i3->ndim + expand3_len_ > SHIMRT_MAX_DIMS)
        return shimrt_fail(op, "too many dimensions");
    /* the unsqueezed operands (views: an expanded dim of size 1) */
    AtenTensorHandle u[3] = {NULL, NULL, NULL}, out = NULL, res = NULL;
    AOTITorchError err = AOTI_TORCH_FAILURE;
    int64_t osz[SHIMRT_MAX_DIMS], unroll_size = -1, s12[SHIMRT_MAX_DIMS], s23[SHIMRT_MAX_DIMS];
    int64_t n12 = 0, n23 = 0;
    for (int k = 0; k < 3; k++) {
        int64_t sz[SHIMRT_MAX_DIMS], st[SHIMRT_MAX_DIMS], j = 0, nd = in[k]->ndim + exn[k];
        for (int64_t d = 0; d < nd; d++) {
            if (d < total && eb[k][d]) { /* unsqueeze: size 1, the next dim's extent */
                sz[d] = 1;
                st[d] = -1;
                continue;
            }
            sz[d] = in[k]->sizes[j], st[d] = in[k]->strides[j], j++;
        }
        for (int64_t d = nd - 1; d >= 0; d--)
            if (st[d] == -1) st[d] = d + 1 < nd ? sz[d + 1] * st[d + 1] : 1;
        if (!(u[k] = tri_view(op, in[k], nd, sz, st, in[k]->storage_offset))) goto done;
    }
    for (int64_t d = 0; d < total; d++) {
        int64_t s = 0;
        for (int k = 0; k < 3; k++)
            if (!eb[k][d]) s = u[k]->sizes[d];
        if (sb[d] && d != unroll_dim) {
            if (eb[2][d])
                s12[n12++] = d;
            else
                s23[n23++] = d;
        }
        osz[d] = sb[d] ? 1 : s;
        if (d == unroll_dim) unroll_size = s;
    }
    if (!(out = shimrt_tensor_empty(op, total, osz, NULL, i1->dtype, SHIMRT_DEV_CPU, 0))) goto done;
    sh_fill(out, 0);
    if (shimrt_numel(u[0]) && shimrt_numel(u[1]) && shimrt_numel(u[2]))
        for (int64_t k = 0; k < unroll_size; k++) {
            AtenTensorHandle n[3] = {NULL, NULL, NULL}, b1 = NULL, b2 = NULL, dst = NULL,
                             sum = NULL;
            bool ok = true;
            for (int q = 0; q < 3 && ok; q++)
                ok = (n[q] = tri_narrow(op, u[q], unroll_dim, eb[q][unroll_dim] ? 0 : k)) != NULL;
            ok = ok && !tri_pair(op, n[0], n[1], s12, n12, &b1) &&
                 !tri_pair(op, b1, n[2], s23, n23, &b2);
            /* output[k] += buf (the whole output where unroll_dim is summed): add_'s checks */
            ok = ok && (dst = sb[unroll_dim] ? shimrt_tensor_share(op, out)
                                             : tri_narrow(op, out, unroll_dim, k)) != NULL;
            ok = ok && !shimrt_cpu_add_tensor(dst, b2, shimrt_scalar_int(1), &sum) &&
                 !shimrt_k_inplace_check(op, dst, sum) && !sh_copy(op, dst, sum);
            for (int q = 0; q < 3; q++) shimrt_tensor_free(n[q]);
            shimrt_tensor_free(b1);
            shimrt_tensor_free(b2);
            shimrt_tensor_free(dst);
            shimrt_tensor_free(sum);
            if (!ok) goto done;
        }
    /* squeeze the summed dims (size 1: the other dims keep their contiguous strides) */
    int64_t rsz[SHIMRT_MAX_DIMS], rst[SHIMRT_MAX_DIMS], rn = 0;
    for (int64_t d = 0; d < total; d++)
        if (!sb[d]) rsz[rn] = out->sizes[d], rst[rn++] = out->strides[d];
    if (!(res = tri_view(op, out, rn, rsz, rst, 0))) goto done;
    *ret0 = res;
    err = AOTI_TORCH_SUCCESS;
done:
    for (int k = 0; k < 3; k++) shimrt_tensor_free(u[k]);
    shimrt_tensor_free(out);
    return err;
}

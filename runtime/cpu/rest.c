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

/* ---- _trilinear: out = sum over sumdim of i1.unsqueeze(expand1) * i2.unsqueeze(expand2) *
 * i3.unsqueeze(expand3); a dimension's size comes from the operands not expanded there ---- */

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
    /* three operands of one complex dtype (complex64/128): computed in long double pairs */
    bool cplx = shimrt_tensor_valid(i1) && shimrt_tensor_valid(i2) && shimrt_tensor_valid(i3) &&
                i1->defined && i2->defined && i3->defined &&
                (i1->dtype == SHIMRT_COMPLEX64 || i1->dtype == SHIMRT_COMPLEX128) &&
                i2->dtype == i1->dtype && i3->dtype == i1->dtype;
    for (int k = 0; k < 3; k++) {
        if (shimrt_k_check_cpu(op, in[k],
                               k == 0   ? "i1"
                               : k == 1 ? "i2"
                                        : "i3") ||
            (!cplx && shimrt_k_check_dtype(op, in[k], "input")))
            return AOTI_TORCH_FAILURE;
        if (!cplx && !shimrt_idx_numeric(in[k]->dtype))
            return shimrt_fail(op, "dtype %s is not supported", shimrt_dtype_name(in[k]->dtype));
    }
    int64_t total = i1->ndim + expand1_len_;
    if (total > SHIMRT_MAX_DIMS) return shimrt_fail(op, "too many dimensions");
    if (i2->ndim + expand2_len_ != total || i3->ndim + expand3_len_ != total)
        return shimrt_fail(op, "number of dimensions must match");
    if (unroll_dim < 0 || unroll_dim >= total)
        return shimrt_fail(op, "unroll_dim must be in [0,%lld]", (long long)(total - 1));
    bool eb[3][SHIMRT_MAX_DIMS], sb[SHIMRT_MAX_DIMS];
    for (int k = 0; k < 3; k++)
        if (bitset(op, ex[k], exn[k], total, eb[k])) return AOTI_TORCH_FAILURE;
    if (bitset(op, sumdim, sumdim_len_, total, sb)) return AOTI_TORCH_FAILURE;
    /* each operand's size and stride (in elements) over the total dims; 0 where expanded */
    int64_t size[SHIMRT_MAX_DIMS], str[3][SHIMRT_MAX_DIMS];
    for (int64_t d = 0; d < total; d++) size[d] = 1;
    for (int k = 0; k < 3; k++) {
        int64_t j = 0;
        for (int64_t d = 0; d < total; d++) {
            if (eb[k][d]) {
                str[k][d] = 0;
                continue;
            }
            if (j >= in[k]->ndim) return shimrt_fail(op, "number of dimensions must match");
            int64_t s = in[k]->sizes[j];
            str[k][d] = s == 1 ? 0 : in[k]->strides[j];
            j++;
            if (size[d] != 1 && s != 1 && s != size[d])
                return shimrt_fail(op,
                                   "_trilinear: the sizes of the inputs differ at dimension %lld "
                                   "(%lld and %lld)",
                                   (long long)d, (long long)size[d], (long long)s);
            if (s != 1) size[d] = s;
        }
        if (j != in[k]->ndim) return shimrt_fail(op, "number of dimensions must match");
    }
    int32_t dt =
        cplx ? i1->dtype : shimrt_k_promote(shimrt_k_promote(i1->dtype, i2->dtype), i3->dtype);
    int64_t osz[SHIMRT_MAX_DIMS], ond = 0, od[SHIMRT_MAX_DIMS], sd[SHIMRT_MAX_DIMS], snd = 0;
    for (int64_t d = 0; d < total; d++) {
        if (sb[d])
            sd[snd++] = d;
        else {
            od[ond] = d;
            osz[ond++] = size[d];
        }
    }
    AtenTensorHandle out = shimrt_tensor_empty(op, ond, osz, NULL, dt, SHIMRT_DEV_CPU, 0);
    if (!out) return AOTI_TORCH_FAILURE;
    int64_t n = shimrt_numel(out), ssz[SHIMRT_MAX_DIMS];
    for (int64_t k = 0; k < snd; k++) ssz[k] = size[sd[k]];
    const char *base[3];
    size_t es[3];
    for (int k = 0; k < 3; k++) {
        base[k] = shimrt_data(in[k]);
        es[k] = shimrt_dtype_size(in[k]->dtype);
    }
    bool fl = shimrt_k_is_floating(dt);
    char *ob = shimrt_data(out);
    size_t oes = shimrt_dtype_size(dt);
    int64_t oi[SHIMRT_MAX_DIMS] = {0};
    for (int64_t e = 0; e < n; e++) {
        int64_t off0[3] = {0, 0, 0};
        for (int64_t k = 0; k < ond; k++)
            for (int q = 0; q < 3; q++) off0[q] += oi[k] * str[q][od[k]];
        long double acc = 0;
        int64_t si[SHIMRT_MAX_DIMS] = {0};
        bool empty_sum = false;
        for (int64_t k = 0; k < snd; k++) empty_sum |= ssz[k] == 0;
        if (cplx) { /* textbook complex products (ar br - ai bi, ar bi + ai br) */
            bool f = dt == SHIMRT_COMPLEX64;
            long double ar = 0, ai = 0;
            if (!empty_sum) do {
                    long double pr = 1, pi = 0;
                    for (int q = 0; q < 3; q++) {
                        int64_t off = off0[q];
                        for (int64_t k = 0; k < snd; k++) off += si[k] * str[q][sd[k]];
                        const char *src = base[q] + off * (int64_t)es[q];
                        long double vr = f ? ((const float *)(const void *)src)[0]
                                           : ((const double *)(const void *)src)[0];
                        long double vi = f ? ((const float *)(const void *)src)[1]
                                           : ((const double *)(const void *)src)[1];
                        long double tr = pr * vr - pi * vi, ti = pr * vi + pi * vr;
                        /* each product in the dtype (its overflow to inf) */
                        pr = f ? (float)tr : (double)tr, pi = f ? (float)ti : (double)ti;
                    }
                    ar += pr, ai += pi;
                } while (snd && shimrt_idx_next(snd, ssz, si));
            char *dst = ob + e * (int64_t)oes;
            if (f) {
                ((float *)(void *)dst)[0] = (float)ar;
                ((float *)(void *)dst)[1] = (float)ai;
            } else {
                ((double *)(void *)dst)[0] = (double)ar;
                ((double *)(void *)dst)[1] = (double)ai;
            }
            shimrt_idx_next(ond, osz, oi);
            continue;
        }
        if (!empty_sum) do {
                long double p = 1;
                for (int q = 0; q < 3; q++) {
                    int64_t off = off0[q];
                    for (int64_t k = 0; k < snd; k++) off += si[k] * str[q][sd[k]];
                    long double v = shimrt_idx_load(base[q] + off * (int64_t)es[q], in[q]->dtype);
                    p = fl ? p * v : shimrt_idx_mul(dt, p, v);
                }
                acc = fl ? acc + p : shimrt_idx_add(dt, acc, p);
            } while (snd && shimrt_idx_next(snd, ssz, si));
        shimrt_idx_store(ob + e * (int64_t)oes, dt, acc);
        shimrt_idx_next(ond, osz, oi);
    }
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

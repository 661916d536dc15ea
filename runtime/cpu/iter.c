/* runtime/cpu/iter.c: strided iteration, element loads and stores, copies and fills shared
 * by the CPU kernels (see iter.h; the device-neutral helpers are runtime/generic/meta.c). */
#include "iter.h"
#include "cpu_kernels.h"
#include "engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- strided iteration ------------------------------------------------------------- */

void shimrt_k_iter_init(shimrt_k_iter *it, int64_t ndim, const int64_t *shape) {
    it->ndim = ndim;
    it->nops = 0;
    for (int64_t d = 0; d < ndim; d++) it->shape[d] = shape[d];
}

void shimrt_k_iter_add(shimrt_k_iter *it, void *data, int64_t ndim, const int64_t *sizes,
                       const int64_t *strides, size_t elsize) {
    int k = it->nops++;
    it->data[k] = data;
    int64_t lead = it->ndim - ndim;
    for (int64_t d = 0; d < it->ndim; d++) {
        int64_t od = d - lead;
        if (od < 0 || sizes[od] == 1)
            it->strides[k][d] = 0;
        else
            it->strides[k][d] = strides[od] * (int64_t)elsize;
    }
}

void shimrt_k_iter_add_tensor(shimrt_k_iter *it, const struct AtenTensorOpaque *t) {
    shimrt_k_iter_add(it, shimrt_data(t), t->ndim, t->sizes, t->strides,
                      shimrt_dtype_size(t->dtype));
}

/* Merges neighbouring dims (outer d, inner d+1) when every operand steps through them as
 * one; drops size-1 dims. Leaves at least one dim. */
static void coalesce(shimrt_k_iter *it) {
    int64_t out = 0;
    for (int64_t d = 0; d < it->ndim; d++) {
        if (it->shape[d] == 1) continue;
        if (out > 0) {
            bool merge = true;
            for (int k = 0; k < it->nops; k++)
                if (it->strides[k][out - 1] != it->strides[k][d] * it->shape[d]) merge = false;
            if (merge) {
                it->shape[out - 1] *= it->shape[d];
                for (int k = 0; k < it->nops; k++) it->strides[k][out - 1] = it->strides[k][d];
                continue;
            }
        }
        it->shape[out] = it->shape[d];
        for (int k = 0; k < it->nops; k++) it->strides[k][out] = it->strides[k][d];
        out++;
    }
    if (out == 0) {
        it->shape[0] = 1;
        for (int k = 0; k < it->nops; k++) it->strides[k][0] = 0;
        out = 1;
    }
    it->ndim = out;
}

void shimrt_k_iter_run(shimrt_k_iter *it, shimrt_k_loop_fn fn, void *ctx) {
    for (int64_t d = 0; d < it->ndim; d++)
        if (it->shape[d] == 0) return;
    coalesce(it);
    int64_t nd = it->ndim, inner = nd - 1;
    int64_t idx[SHIMRT_MAX_DIMS] = {0};
    char *ptr[SHIMRT_K_MAX_OPS];
    int64_t istr[SHIMRT_K_MAX_OPS];
    for (int k = 0; k < it->nops; k++) {
        ptr[k] = it->data[k];
        istr[k] = it->strides[k][inner];
    }
    for (;;) {
        fn(ptr, istr, it->shape[inner], ctx);
        /* odometer over the outer dims */
        int64_t d = inner - 1;
        for (; d >= 0; d--) {
            idx[d]++;
            for (int k = 0; k < it->nops; k++) ptr[k] += it->strides[k][d];
            if (idx[d] < it->shape[d]) break;
            for (int k = 0; k < it->nops; k++) ptr[k] -= it->strides[k][d] * it->shape[d];
            idx[d] = 0;
        }
        if (d < 0) return;
    }
}

/* ---- output layout ----------------------------------------------------------------- */

/* TensorImpl::is_contiguous(ChannelsLast) of a rank-4 tensor: dims in the order C, W, H,
 * N (size-1 dims skipped) step densely. */
static bool cl_contiguous(const struct AtenTensorOpaque *t) {
    static const int order[4] = {1, 3, 2, 0};
    if (t->ndim != 4) return false;
    int64_t expect = 1;
    for (int i = 0; i < 4; i++) {
        int64_t s = t->sizes[order[i]];
        if (s == 1) continue;
        if (t->strides[order[i]] != expect) return false;
        expect *= s;
    }
    return true;
}

void shimrt_k_iter_out_strides(int nin, const struct AtenTensorOpaque *const *in_,
                               bool scalar_operand, int32_t common, int nkeep, int64_t nd,
                               const int64_t *shape, int64_t *ostr) {
    /* on the CPU, TensorIterator first converts each input of another dtype than the
     * common one with to(): its layout is then to()'s (preserve_format) */
    struct AtenTensorOpaque conv[8];
    const struct AtenTensorOpaque *ins[8];
    int64_t cst[8][SHIMRT_MAX_DIMS];
    if (nin > 8) nin = 8;
    for (int k = 0; k < nin; k++) {
        ins[k] = in_[k];
        if (common < 0 || k < nkeep || in_[k]->dtype == common) continue;
        conv[k] = *in_[k];
        shimrt_k_preserve_strides(in_[k], cst[k]);
        conv[k].strides = cst[k];
        ins[k] = &conv[k];
    }
    bool same = nin > 0 && (!scalar_operand || nd == 0), contig = true, cl = true, dense = true;
    for (int k = 0; k < nin && same; k++) {
        same = ins[k]->ndim == nd && !memcmp(ins[k]->sizes, shape, (size_t)nd * sizeof *shape);
        if (!same) break;
        /* PyTorch's is_contiguous: a tensor without elements is contiguous */
        contig = contig && (shimrt_numel(ins[k]) == 0 || shimrt_is_contiguous(ins[k]));
        cl = cl && cl_contiguous(ins[k]);
        dense = dense && shimrt_k_dense(ins[k]) &&
                !memcmp(ins[k]->strides, ins[0]->strides, (size_t)nd * sizeof *shape);
    }
    if (same && contig) {
        shimrt_contiguous_strides(nd, shape, ostr);
        return;
    }
    if (same && cl) {
        shimrt_k_channels_last_strides(nd, shape, ostr);
        return;
    }
    if (same && dense) {
        memcpy(ostr, ins[0]->strides, (size_t)nd * sizeof *ostr);
        return;
    }
    int64_t st[8][SHIMRT_MAX_DIMS];
    int n = nin, perm[SHIMRT_MAX_DIMS];
    for (int k = 0; k < n; k++) { /* TensorIterator's compute_strides (any unit) */
        int64_t lead = nd - ins[k]->ndim;
        for (int64_t d = 0; d < nd; d++) {
            int64_t od = d - lead;
            st[k][d] =
                od < 0 || (ins[k]->sizes[od] == 1 && shape[d] != 1) ? 0 : ins[k]->strides[od];
        }
    }
    shimrt_k_layout_perm((int)nd, shape, n, (const int64_t(*)[SHIMRT_MAX_DIMS])st, perm);
    bool natural = true;
    for (int64_t i = 0; i < nd; i++) natural = natural && perm[i] == nd - 1 - i;
    if (natural) {
        shimrt_contiguous_strides(nd, shape, ostr);
        return;
    }
    int64_t s = 1;
    for (int64_t i = 0; i < nd; i++) {
        ostr[perm[i]] = s;
        s *= shape[perm[i]];
    }
}

/* ---- element access ------------------------------------------------------------ */

/* the dtype table's stores (the engine's conversions, core/dtype.h) */
void shimrt_k_store_i64(char *p, int32_t dt, int64_t v) {
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(dt);
    if (t) t->store_i64(p, v);
}

void shimrt_k_store_f64(char *p, int32_t dt, double v) {
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(dt);
    if (t) t->store_f64(p, v);
}

AOTITorchError shimrt_k_unsigned_as(AtenTensorHandle self, int32_t as, AtenTensorHandle *as_copy) {
    *as_copy = NULL;
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(self->dtype);
    if (!t || t->kind != SHIMRT_KIND_UNSIGNED || shimrt_k_dtype_ok(self->dtype) ||
        !shimrt_k_dtype_ok(as))
        return AOTI_TORCH_SUCCESS;
    return shimrt_cpu_to_dtype(self, as, 0, 0, NULL, as_copy);
}

/* copies and fills are the engine's (one set of dtype semantics) */
AOTITorchError shimrt_k_copy(const char *op, struct AtenTensorOpaque *dst,
                             const struct AtenTensorOpaque *src) {
    return sh_copy(op, dst, src);
}

void shimrt_k_fill(struct AtenTensorOpaque *t, double v) { sh_fill(t, v); }

/* runtime/cpu/advindex.c: PyTorch's advanced indexing on the CPU: index.Tensor
 * (self[indices]), index_put (a copy of self with self[indices] = values, or += with
 * accumulate) and AOTInductor's aoti_torch_index_put_out. One plan for all three, built in
 * the steps of PyTorch 2.15's make_info / AdvancedIndex (TensorAdvancedIndexing.cpp,
 * IndexingUtils.h), because its quirks are the spec:
 *
 *  1. at most self.dim() entries in `indices` (None included), each index long, int, byte
 *     or bool;
 *  2. a bool/byte mask becomes its nonzero() columns, checked against self's dims from the
 *     current position (a 0-dim mask adds nothing); int32 indices are read as they are, laid
 *     out as their to(int64) copy;
 *  3. the defined indices broadcast together (expand) to B; None pads to self.dim();
 *  4. indices that are not adjacent move to the front (self permuted, transposeToFront);
 *  5. self is restrided: the indexed dims become B with stride 0; each index is reshaped
 *     to [1]*before + B + [1]*after, where after counts every None after the indices, even
 *     one past self's dims (PyTorch then broadcasts to a larger shape, and so do we);
 *  6. one TensorIterator over the restrided self and the indices (index_put: the value
 *     too): its broadcast shape is the result's, its layout the result's strides (index),
 *     its dim order the order index_put writes in (the last write of a repeated index wins,
 *     accumulation rounds in that order);
 *  7. the kernel checks each index it reads (nothing is read when the result is empty).
 * index_put without accumulate, a one-element value and a single mask (bool only) is
 * PyTorch's masked_fill_ path instead (canDispatchToMaskedFill): the value's dtype may
 * differ, it is converted with an overflow check, and the mask is unsqueezed and broadcast
 * against self from the right. */
#include <stdlib.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"
#include "index.h"
#include "iter.h"

#define MD SHIMRT_MAX_DIMS
#define MAXE (2 * SHIMRT_MAX_DIMS) /* entries after expanding masks */

typedef struct { /* one entry of the expanded index list */
    bool def;
    const char *data; /* the index's element 0 */
    int32_t dt;       /* int64 or int32 */
    int64_t nd, sz[MD], st[MD];
} entry;

typedef struct {
    /* self as indexed: after transposeToFront */
    char *sdata;
    int32_t dtype;
    size_t es;
    int64_t snd, ssz[MD], sst[MD];
    /* the iteration */
    int64_t nd, shape[MD];
    int64_t src_nd, src_sz[MD], src_st[MD]; /* the restrided self */
    int nix;
    const char *ixdata[MD];
    int32_t ixdt[MD];
    int64_t ixnd[MD], ixsz[MD][MD], ixst[MD][MD]; /* reshaped: reading strides */
    int64_t ixlst[MD][MD];                        /* reshaped: PyTorch's operand strides */
    int64_t isize[MD], istride[MD];               /* indexed sizes and strides (elements) */
    AtenTensorHandle owned[MD];                   /* nonzero() results */
    int nowned;
} adv;

static void adv_free(adv *a) {
    for (int i = 0; i < a->nowned; i++) shimrt_tensor_free(a->owned[i]);
    a->nowned = 0;
}

/* A stand-in tensor for layout questions (sizes and strides only). */
static struct AtenTensorOpaque fake(int64_t nd, int64_t *sz, int64_t *st, int32_t dt) {
    struct AtenTensorOpaque t;
    memset(&t, 0, sizeof t);
    t.ndim = nd, t.sizes = sz, t.strides = st, t.dtype = dt, t.defined = true;
    return t;
}

/* c10's expand of (nd, sz, st) to (bn, b): new leading dims take the next dim's extent
 * as stride, expanded dims stride 0; a 0-dim tensor expands with strides 0. */
static void expand_to(entry *e, int64_t bn, const int64_t *b) {
    bool same = e->nd == bn && !memcmp(e->sz, b, (size_t)bn * sizeof *b);
    if (same) return;
    int64_t nsz[MD], nst[MD];
    for (int64_t i = bn - 1; i >= 0; i--) {
        int64_t d = e->nd - (bn - i);
        int64_t size = d >= 0 ? e->sz[d] : 1;
        int64_t stride = d >= 0 ? e->st[d] : (i + 1 < bn && e->nd ? nsz[i + 1] * nst[i + 1] : 0);
        if (size != b[i]) size = b[i], stride = 0;
        nsz[i] = size, nst[i] = stride;
    }
    e->nd = bn;
    memcpy(e->sz, nsz, (size_t)bn * sizeof *nsz);
    memcpy(e->st, nst, (size_t)bn * sizeof *nst);
}

static AOTITorchError dim_range(const char *op, int64_t d, int64_t nd) {
    return shimrt_fail(op,
                       "Dimension out of range (expected to be in range of [%lld, %lld], but "
                       "got %lld)",
                       (long long)-(nd ? nd : 1), (long long)(nd ? nd - 1 : 0), (long long)d);
}

/* A mask's sizes against self's from dim `at` on (PyTorch's messages). */
static AOTITorchError mask_fits(const char *op, AtenTensorHandle self, AtenTensorHandle t,
                                int64_t at) {
    char s1[256], s2[256];
    for (int64_t j = 0; j < t->ndim; j++) {
        if (at + j >= self->ndim) return dim_range(op, at + j, self->ndim);
        if (t->sizes[j] != self->sizes[at + j])
            return shimrt_fail(op,
                               "The shape of the mask %s at index %lld does not match the shape "
                               "of the indexed tensor %s at index %lld",
                               shimrt_k_fmt_shape(s1, sizeof s1, t->ndim, t->sizes), (long long)j,
                               shimrt_k_fmt_shape(s2, sizeof s2, self->ndim, self->sizes),
                               (long long)(at + j));
    }
    return AOTI_TORCH_SUCCESS;
}

/* Steps 1-5 over self (index) or the copy index_put writes. */
static AOTITorchError adv_plan(const char *op, AtenTensorHandle self,
                               const AtenTensorHandle *indices, int64_t n, adv *a) {
    memset(a, 0, sizeof *a);
    if (n > self->ndim)
        return shimrt_fail(op, "too many indices for tensor of dimension %lld (got %lld)",
                           (long long)self->ndim, (long long)n);
    for (int64_t k = 0; k < n; k++) {
        AtenTensorHandle t = indices[k];
        if (!t) continue;
        if (shimrt_k_check_cpu(op, t, "indices")) return AOTI_TORCH_FAILURE;
        if (t->dtype != SHIMRT_INT64 && t->dtype != SHIMRT_INT32 && t->dtype != SHIMRT_UINT8 &&
            t->dtype != SHIMRT_BOOL)
            return shimrt_fail(op, "tensors used as indices must be long, int, byte or bool "
                                   "tensors");
    }
    entry *E = calloc(MAXE, sizeof *E);
    if (!E) return shimrt_fail(op, "out of memory");
    int64_t ne = 0;
    AOTITorchError err = AOTI_TORCH_SUCCESS;
    for (int64_t k = 0; k < n && !err; k++) {
        AtenTensorHandle t = indices[k];
        if (!t) {
            E[ne++].def = false;
            continue;
        }
        if (t->dtype == SHIMRT_INT64 || t->dtype == SHIMRT_INT32) {
            entry *x = &E[ne++];
            x->def = true, x->data = shimrt_data(t), x->dt = t->dtype, x->nd = t->ndim;
            memcpy(x->sz, t->sizes, (size_t)t->ndim * sizeof *t->sizes);
            memcpy(x->st, t->strides, (size_t)t->ndim * sizeof *t->strides);
            continue;
        }
        err = mask_fits(op, self, t, ne); /* a mask */
        if (err || t->ndim == 0) continue;
        AtenTensorHandle nz = NULL; /* [count, ndim] */
        if (shimrt_cpu_nonzero(t, &nz)) {
            err = AOTI_TORCH_FAILURE;
            break;
        }
        a->owned[a->nowned++] = nz;
        for (int64_t j = 0; j < t->ndim; j++) {
            entry *x = &E[ne++];
            x->def = true, x->dt = SHIMRT_INT64, x->nd = 1;
            x->data = (const char *)shimrt_data(nz) + j * nz->strides[1] * 8;
            x->sz[0] = nz->sizes[0], x->st[0] = nz->strides[0];
        }
    }
    /* 3: broadcast the defined ones */
    int64_t bn = 0, b[MD];
    for (int64_t k = 0; k < ne && !err; k++) {
        if (!E[k].def) continue;
        int64_t ns[MD], nn;
        if (shimrt_k_broadcast(op, bn, b, E[k].nd, E[k].sz, ns, &nn) || nn > MD) {
            err = shimrt_fail(op, "shape mismatch: indexing tensors could not be broadcast "
                                  "together");
            break;
        }
        memcpy(b, ns, (size_t)nn * sizeof *ns);
        bn = nn;
    }
    for (int64_t k = 0; k < ne && !err; k++)
        if (E[k].def) expand_to(&E[k], bn, b);
    while (!err && ne < self->ndim) E[ne++].def = false;
    /* 4: transposeToFront when the defined ones are not adjacent */
    a->sdata = shimrt_data(self), a->dtype = self->dtype, a->es = shimrt_dtype_size(self->dtype);
    a->snd = self->ndim;
    memcpy(a->ssz, self->sizes, (size_t)self->ndim * sizeof *a->ssz);
    memcpy(a->sst, self->strides, (size_t)self->ndim * sizeof *a->sst);
    int64_t lo = -1, hi = -1;
    for (int64_t k = 0; k < ne; k++)
        if (E[k].def) hi = k, lo = lo < 0 ? k : lo;
    bool adjacent = true;
    for (int64_t k = lo; lo >= 0 && k <= hi; k++) adjacent = adjacent && E[k].def;
    if (!err && !adjacent) {
        entry *T = calloc(MAXE, sizeof *T);
        if (!T) err = shimrt_fail(op, "out of memory");
        int64_t m = 0;
        for (int pass = 0; pass < 2 && !err; pass++)
            for (int64_t k = 0; k < self->ndim; k++)
                if (E[k].def == (pass == 0)) {
                    T[m] = E[k];
                    a->ssz[m] = self->sizes[k], a->sst[m] = self->strides[k];
                    m++;
                }
        if (T) memcpy(E, T, (size_t)m * sizeof *T);
        free(T);
        ne = m;
    }
    /* 5: AdvancedIndex */
    int64_t before = 0, indexed = 0, after = 0;
    bool zero_size = false;
    for (int64_t k = 0; k < ne && !err; k++) {
        if (!E[k].def) {
            if (indexed == 0)
                before++;
            else
                after++;
            continue;
        }
        if (k >= a->snd) {
            err = dim_range(op, k, a->snd);
            break;
        }
        a->isize[indexed] = a->ssz[k], a->istride[indexed] = a->sst[k];
        zero_size = zero_size || a->ssz[k] == 0;
        indexed++;
    }
    bool b_zero = false;
    for (int64_t d = 0; d < bn; d++) b_zero = b_zero || b[d] == 0;
    if (!err && zero_size && !b_zero)
        err = shimrt_fail(op, "index is out of bounds for dimension with size 0");
    if (!err && (before + bn + (a->snd - before - indexed) > MD || before + bn + after > MD))
        err = shimrt_fail(op, "the indexing result has more than %d dims", MD);
    if (err) {
        free(E);
        adv_free(a);
        return AOTI_TORCH_FAILURE;
    }
    /* the restrided self */
    int64_t r = 0;
    for (int64_t d = 0; d < before; d++) a->src_sz[r] = a->ssz[d], a->src_st[r++] = a->sst[d];
    for (int64_t d = 0; d < bn; d++) a->src_sz[r] = b[d], a->src_st[r++] = 0;
    for (int64_t d = before + indexed; d < a->snd; d++)
        a->src_sz[r] = a->ssz[d], a->src_st[r++] = a->sst[d];
    a->src_nd = r;
    /* the reshaped indices */
    for (int64_t k = 0; k < ne; k++) {
        if (!E[k].def) continue;
        int i = a->nix++;
        a->ixdata[i] = E[k].data, a->ixdt[i] = E[k].dt;
        int64_t lst[MD]; /* the operand's strides: an int32 index is its to(int64) copy */
        struct AtenTensorOpaque f = fake(bn, E[k].sz, E[k].st, SHIMRT_INT64);
        if (E[k].dt == SHIMRT_INT32)
            shimrt_k_preserve_strides(&f, lst);
        else
            memcpy(lst, E[k].st, (size_t)bn * sizeof *lst);
        int64_t nn = before + bn + after, ns[MD], vst[MD];
        for (int64_t d = 0; d < nn; d++) ns[d] = d >= before && d < before + bn ? b[d - before] : 1;
        struct AtenTensorOpaque g = fake(bn, E[k].sz, lst, SHIMRT_INT64);
        if (!shimrt_k_view_strides(&g, nn, ns, vst)) /* cannot happen: only size-1 dims added */
            shimrt_contiguous_strides(nn, ns, vst);
        a->ixnd[i] = nn;
        memcpy(a->ixsz[i], ns, (size_t)nn * sizeof *ns);
        memcpy(a->ixlst[i], vst, (size_t)nn * sizeof *vst);
        for (int64_t d = 0; d < nn; d++)
            a->ixst[i][d] = d >= before && d < before + bn ? E[k].st[d - before] : 0;
    }
    free(E);
    /* 6: the iteration shape, the broadcast of every operand */
    a->nd = a->src_nd;
    memcpy(a->shape, a->src_sz, (size_t)a->src_nd * sizeof *a->shape);
    for (int i = 0; i < a->nix && !err; i++) {
        int64_t ns[MD], nn;
        if (shimrt_k_broadcast(op, a->nd, a->shape, a->ixnd[i], a->ixsz[i], ns, &nn) || nn > MD) {
            err = AOTI_TORCH_FAILURE;
            break;
        }
        memcpy(a->shape, ns, (size_t)nn * sizeof *ns);
        a->nd = nn;
    }
    if (err) adv_free(a);
    return err;
}

/* An operand's strides over the iteration dims (aligned right; a missing or broadcast dim
 * gets 0), as TensorIterator's compute_strides. */
static void align(const adv *a, int64_t nd, const int64_t *sz, const int64_t *st, int64_t *out) {
    for (int64_t d = 0; d < a->nd; d++) {
        int64_t od = d - (a->nd - nd);
        out[d] = od < 0 || (sz[od] == 1 && a->shape[d] != 1) ? 0 : st[od];
    }
}

/* The element offset into self (as indexed) of iteration index it, or -1 with the error
 * set when an index is out of bounds. */
static int64_t src_offset(const char *op, const adv *a, const int64_t *srcst, int64_t (*ixst)[MD],
                          const int64_t *it) {
    int64_t off = 0;
    for (int64_t d = 0; d < a->nd; d++) off += it[d] * srcst[d];
    for (int i = 0; i < a->nix; i++) {
        int64_t io = 0, v;
        for (int64_t d = 0; d < a->nd; d++) io += it[d] * ixst[i][d];
        if (a->ixdt[i] == SHIMRT_INT32) {
            int32_t w;
            memcpy(&w, a->ixdata[i] + io * 4, 4);
            v = w;
        } else {
            memcpy(&v, a->ixdata[i] + io * 8, 8);
        }
        if (v < -a->isize[i] || v >= a->isize[i]) {
            shimrt_fail(op, "index %lld is out of bounds for dimension %d with size %lld",
                        (long long)v, i, (long long)a->isize[i]);
            return -1;
        }
        off += (v < 0 ? v + a->isize[i] : v) * a->istride[i];
    }
    return off;
}

/* The per-iteration strides of the restrided self and of the indices (for reading). */
static void read_strides(const adv *a, int64_t *srcst, int64_t (*ixst)[MD]) {
    align(a, a->src_nd, a->src_sz, a->src_st, srcst);
    for (int i = 0; i < a->nix; i++) align(a, a->ixnd[i], a->ixsz[i], a->ixst[i], ixst[i]);
}

AOTITorchError shimrt_cpu_index_tensor(AtenTensorHandle self, const AtenTensorHandle *indices,
                                       int64_t indices_len_, AtenTensorHandle *ret0) {
    static const char op[] = "index.Tensor";
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (indices_len_ == 0) return shimrt_fail(op, "at least one index must be provided");
    adv *a = malloc(sizeof *a);
    if (!a) return shimrt_fail(op, "out of memory");
    if (adv_plan(op, self, indices, indices_len_, a)) {
        free(a);
        return AOTI_TORCH_FAILURE;
    }
    /* the result's layout: TensorIterator's over the restrided self and the indices */
    struct AtenTensorOpaque ops[9];
    const struct AtenTensorOpaque *ins[9];
    int nin = 0;
    ops[nin] = fake(a->src_nd, a->src_sz, a->src_st, a->dtype), ins[nin] = &ops[nin], nin++;
    for (int i = 0; i < a->nix && nin < 9; i++, nin++)
        ops[nin] = fake(a->ixnd[i], a->ixsz[i], a->ixlst[i], SHIMRT_INT64), ins[nin] = &ops[nin];
    int64_t ostr[MD];
    shimrt_k_iter_out_strides(nin, ins, false, -1, 0, a->nd, a->shape, ostr);
    AtenTensorHandle r =
        shimrt_tensor_empty(op, a->nd, a->shape, ostr, a->dtype, SHIMRT_DEV_CPU, 0);
    int64_t numel = r ? shimrt_numel(r) : 0;
    AOTITorchError err = r ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
    if (numel > 0 && a->nix == 0) /* PyTorch's kernel asserts it has an index */
        err = shimrt_fail(op, "at least one index must be defined");
    if (numel > 0 && !err) {
        int64_t srcst[MD], (*ixst)[MD] = malloc(sizeof(int64_t[MD][MD])), it[MD] = {0};
        if (!ixst) err = shimrt_fail(op, "out of memory");
        if (ixst) read_strides(a, srcst, ixst);
        char *dst = shimrt_data(r);
        if (ixst) do {
                int64_t off = src_offset(op, a, srcst, ixst, it), o = 0;
                if (off < 0) {
                    err = AOTI_TORCH_FAILURE;
                    break;
                }
                for (int64_t d = 0; d < a->nd; d++) o += it[d] * ostr[d];
                memcpy(dst + o * (int64_t)a->es, a->sdata + off * (int64_t)a->es, a->es);
            } while (!err && a->nd > 0 && shimrt_idx_next(a->nd, a->shape, it));
        free(ixst);
    }
    adv_free(a);
    free(a);
    if (err) {
        shimrt_tensor_free(r);
        return AOTI_TORCH_FAILURE;
    }
    return shimrt_k_give(r, ret0);
}

/* dst += src in dtype dt, as PyTorch's `*(scalar_t*)dst += *(scalar_t*)src`: integers wrap,
 * float16/bfloat16 add in float and round once, bool is an or, complex adds each part. */
static void acc_add(char *dst, const char *src, int32_t dt) {
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(dt);
    switch (dt) {
    case SHIMRT_FLOAT32: {
        float x, y;
        memcpy(&x, dst, 4), memcpy(&y, src, 4), x += y, memcpy(dst, &x, 4);
        return;
    }
    case SHIMRT_FLOAT64: {
        double x, y;
        memcpy(&x, dst, 8), memcpy(&y, src, 8), x += y, memcpy(dst, &x, 8);
        return;
    }
    case SHIMRT_FLOAT16:
    case SHIMRT_BFLOAT16:
        t->store_f64(dst, (double)((float)t->load_f64(dst) + (float)t->load_f64(src)));
        return;
    case SHIMRT_COMPLEX64: {
        float x[2], y[2];
        memcpy(x, dst, 8), memcpy(y, src, 8), x[0] += y[0], x[1] += y[1], memcpy(dst, x, 8);
        return;
    }
    case SHIMRT_COMPLEX128: {
        double x[2], y[2];
        memcpy(x, dst, 16), memcpy(y, src, 16), x[0] += y[0], x[1] += y[1], memcpy(dst, x, 16);
        return;
    }
    case SHIMRT_COMPLEX32:
        acc_add(dst, src, SHIMRT_FLOAT16);
        acc_add(dst + 2, src + 2, SHIMRT_FLOAT16);
        return;
    case SHIMRT_BOOL: dst[0] = (char)(dst[0] != 0 || src[0] != 0); return;
    default:
        if (t)
            t->store_i64(dst, (int64_t)((uint64_t)t->load_i64(dst) + (uint64_t)t->load_i64(src)));
        return;
    }
}

/* uint16/32/64: PyTorch 2.15's index_put and masked_fill kernels have none (index has) */
static bool barebones_unsigned(int32_t dt) {
    return dt == SHIMRT_UINT16 || dt == SHIMRT_UINT32 || dt == SHIMRT_UINT64;
}

/* The value's element as c10::Scalar (value.item()). */
static shimrt_scalar item(AtenTensorHandle v) {
    const char *p = shimrt_data(v);
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(v->dtype);
    if (v->dtype == SHIMRT_BOOL) return shimrt_scalar_bool(p[0] != 0);
    if (shimrt_dtype_is_complex(v->dtype)) {
        double re = 0, im = 0;
        if (v->dtype == SHIMRT_COMPLEX32) {
            const shimrt_dtype_traits *h = shimrt_dtype_traits_of(SHIMRT_FLOAT16);
            re = h->load_f64(p), im = h->load_f64(p + 2);
        } else if (v->dtype == SHIMRT_COMPLEX64) {
            float c[2];
            memcpy(c, p, 8), re = c[0], im = c[1];
        } else {
            double c[2];
            memcpy(c, p, 16), re = c[0], im = c[1];
        }
        return shimrt_scalar_complex(re, im);
    }
    if (shimrt_dtype_is_floating(v->dtype)) return shimrt_scalar_double(t ? t->load_f64(p) : 0);
    return shimrt_scalar_int(t ? t->load_i64(p) : 0);
}

/* canDispatchToMaskedFill: 1 and *mask (borrowed) when index_put goes to masked_fill_,
 * 0 when not, -1 on an error (a mask that does not fit self). *num_ind: the dims up to the
 * mask's last (the mask is then unsqueezed over the rest). */
static int masked_fill_path(const char *op, AtenTensorHandle self, const AtenTensorHandle *ix,
                            int64_t n, AtenTensorHandle values, AtenTensorHandle *mask,
                            int64_t *num_ind) {
    *mask = NULL, *num_ind = 0;
    if (shimrt_numel(values) != 1) return 0;
    for (int64_t k = 0; k < n; k++) {
        AtenTensorHandle t = ix[k];
        if (!t) { /* (PyTorch 2.15 counts the Nones before the mask only) */
            *num_ind += *mask ? 0 : 1;
            continue;
        }
        if ((t->dtype != SHIMRT_UINT8 && t->dtype != SHIMRT_BOOL) || *mask) return 0;
        *mask = t;
        if (mask_fits(op, self, t, *num_ind)) return -1;
        *num_ind += t->ndim;
    }
    return 1;
}

/* self.masked_fill_(mask unsqueezed to self's rank, value.item()) on out (self's copy). */
static AOTITorchError masked_fill(const char *op, AtenTensorHandle out, AtenTensorHandle mask,
                                  int64_t num_ind, AtenTensorHandle values) {
    if (!mask) return shimrt_fail(op, "masked_fill_: the mask is undefined (no index given)");
    if (mask->dtype != SHIMRT_BOOL)
        return shimrt_fail(op,
                           "masked_fill_ only supports boolean masks, but got mask with "
                           "dtype %s",
                           mask->dtype == SHIMRT_UINT8 ? "unsigned char"
                                                       : shimrt_dtype_torch_name(mask->dtype));
    int64_t mnd = mask->ndim, msz[MD], mst[MD];
    memcpy(msz, mask->sizes, (size_t)mnd * sizeof *msz);
    memcpy(mst, mask->strides, (size_t)mnd * sizeof *mst);
    for (int64_t i = num_ind; i < out->ndim && mnd < MD; i++) msz[mnd] = 1, mst[mnd++] = 1;
    int64_t bs[MD], bn;
    char s1[256], s2[256];
    bool ok = mnd <= out->ndim &&
              !shimrt_k_broadcast(op, out->ndim, out->sizes, mnd, msz, bs, &bn) &&
              bn == out->ndim && !memcmp(bs, out->sizes, (size_t)bn * sizeof *bs);
    if (!ok)
        return shimrt_fail(op,
                           "masked_fill_: the mask of shape %s cannot be broadcast to self "
                           "of shape %s",
                           shimrt_k_fmt_shape(s1, sizeof s1, mnd, msz),
                           shimrt_k_fmt_shape(s2, sizeof s2, out->ndim, out->sizes));
    if (barebones_unsigned(out->dtype))
        return shimrt_fail(op, "\"masked_fill\" not implemented for '%s'",
                           shimrt_dtype_torch_name(out->dtype));
    shimrt_scalar sv = item(values);
    if (sv.kind == SHIMRT_SCALAR_KIND_COMPLEX && sv.im != 0 && !shimrt_dtype_is_complex(out->dtype))
        return shimrt_fail(op, "value cannot be converted to type %s without overflow",
                           shimrt_dtype_torch_name(out->dtype));
    if (values->dtype == SHIMRT_UINT64 && sv.i < 0) { /* a uint64 above INT64_MAX */
        sv.d = (double)(uint64_t)sv.i;
        if (out->dtype == SHIMRT_INT64)
            return shimrt_fail(op, "value cannot be converted to type int64_t without overflow");
    }
    if (shimrt_k_scalar_fits(op, sv, out->dtype, false)) return AOTI_TORCH_FAILURE;
    if (shimrt_numel(out) == 0) return AOTI_TORCH_SUCCESS;
    /* the value in out's dtype, as a 0-dim copy */
    AtenTensorHandle v0 = shimrt_k_new(op, 0, NULL, out->dtype);
    struct AtenTensorOpaque f = *values;
    f.ndim = 0;
    if (!v0 || shimrt_k_copy(op, v0, &f)) {
        shimrt_tensor_free(v0);
        return AOTI_TORCH_FAILURE;
    }
    size_t es = shimrt_dtype_size(out->dtype);
    const char *mp = shimrt_data(mask), *vp = shimrt_data(v0);
    char *op_ = shimrt_data(out);
    int64_t it[MD] = {0};
    do {
        int64_t mo = 0, oo = 0;
        for (int64_t d = 0; d < out->ndim; d++) {
            int64_t md = d - (out->ndim - mnd);
            if (md >= 0 && msz[md] != 1) mo += it[d] * mst[md];
            oo += it[d] * out->strides[d];
        }
        if (mp[mo]) memcpy(op_ + oo * (int64_t)es, vp, es);
    } while (out->ndim > 0 && shimrt_idx_next(out->ndim, out->sizes, it));
    shimrt_tensor_free(v0);
    return AOTI_TORCH_SUCCESS;
}

/* out (a copy of self, or self itself) [indices] = values (+= with accumulate): PyTorch's
 * _index_put_impl_. */
static AOTITorchError index_put_into(const char *op, AtenTensorHandle out,
                                     const AtenTensorHandle *indices, int64_t n,
                                     AtenTensorHandle values, bool accumulate) {
    char s1[256], s2[256];
    if (n > out->ndim)
        return shimrt_fail(op, "too many indices for tensor of dimension %lld (got %lld)",
                           (long long)out->ndim, (long long)n);
    if (!accumulate) {
        AtenTensorHandle mask;
        int64_t num_ind;
        int mf = masked_fill_path(op, out, indices, n, values, &mask, &num_ind);
        if (mf < 0) return AOTI_TORCH_FAILURE;
        if (mf) return masked_fill(op, out, mask, num_ind, values);
    }
    adv *a = malloc(sizeof *a);
    if (!a) return shimrt_fail(op, "out of memory");
    if (adv_plan(op, out, indices, n, a)) {
        free(a);
        return AOTI_TORCH_FAILURE;
    }
    AOTITorchError err = AOTI_TORCH_SUCCESS;
    bool fits = values->ndim <= a->src_nd;
    for (int64_t d = 0; fits && d < values->ndim; d++) {
        int64_t vs = values->sizes[d], ss = a->src_sz[a->src_nd - values->ndim + d];
        fits = vs == ss || vs == 1;
    }
    if (!fits)
        err = shimrt_fail(op,
                          "shape mismatch: value tensor of shape %s cannot be broadcast to "
                          "indexing result of shape %s",
                          shimrt_k_fmt_shape(s1, sizeof s1, values->ndim, values->sizes),
                          shimrt_k_fmt_shape(s2, sizeof s2, a->src_nd, a->src_sz));
    else if (values->dtype != out->dtype)
        err = shimrt_fail(op,
                          "Index put requires the source and destination dtypes match, got %s "
                          "for the destination and %s for the source.",
                          shimrt_dtype_torch_name(out->dtype),
                          shimrt_dtype_torch_name(values->dtype));
    else if (a->nd != a->src_nd || memcmp(a->shape, a->src_sz, (size_t)a->nd * sizeof *a->shape))
        err = shimrt_fail(op, "output with shape %s doesn't match the broadcast shape %s",
                          shimrt_k_fmt_shape(s1, sizeof s1, a->src_nd, a->src_sz),
                          shimrt_k_fmt_shape(s2, sizeof s2, a->nd, a->shape));
    int64_t numel = 1;
    for (int64_t d = 0; d < a->nd; d++) numel *= a->shape[d];
    if (!err && barebones_unsigned(out->dtype))
        err = shimrt_fail(op, "\"index_put\" not implemented for '%s'",
                          shimrt_dtype_torch_name(out->dtype));
    if (!err && numel > 0 && a->nix == 0) /* PyTorch's kernel asserts it has an index */
        err = shimrt_fail(op, "at least one index must be defined");
    int64_t(*st)[MD] = err || numel == 0 ? NULL : malloc(sizeof(int64_t[MD][MD]) * 2);
    if (!err && numel > 0 && !st) err = shimrt_fail(op, "out of memory");
    if (st) {
        /* operands in TensorIterator's order (out, values, indices): their strides pick the
         * dim order, which is the order the elements are written in */
        int64_t(*ixst)[MD] = st + MD, srcst[MD], vst[MD];
        read_strides(a, srcst, ixst);
        align(a, values->ndim, values->sizes, values->strides, vst);
        int nops = 2 + a->nix;
        int64_t(*lay)[MD] = malloc(sizeof(int64_t[MD]) * (size_t)nops);
        int perm[MD];
        if (!lay) err = shimrt_fail(op, "out of memory");
        if (lay) {
            memcpy(lay[0], srcst, sizeof srcst);
            memcpy(lay[1], vst, sizeof vst);
            for (int i = 0; i < a->nix; i++)
                align(a, a->ixnd[i], a->ixsz[i], a->ixlst[i], lay[2 + i]);
            shimrt_k_layout_perm((int)a->nd, a->shape, nops, (const int64_t(*)[MD])lay, perm);
            free(lay);
            int64_t it[MD] = {0};
            const char *vp = shimrt_data(values);
            do {
                int64_t off = src_offset(op, a, srcst, ixst, it), vo = 0;
                if (off < 0) {
                    err = AOTI_TORCH_FAILURE;
                    break;
                }
                for (int64_t d = 0; d < a->nd; d++) vo += it[d] * vst[d];
                char *dp = a->sdata + off * (int64_t)a->es;
                const char *sp = vp + vo * (int64_t)a->es;
                if (accumulate)
                    acc_add(dp, sp, a->dtype);
                else
                    memcpy(dp, sp, a->es);
                int64_t k = 0; /* next index, perm[0] fastest */
                for (; k < a->nd; k++) {
                    int64_t d = perm[k];
                    if (++it[d] < a->shape[d]) break;
                    it[d] = 0;
                }
                if (k == a->nd) break;
            } while (1);
        }
        free(st);
    }
    adv_free(a);
    free(a);
    return err;
}

AOTITorchError shimrt_cpu_index_put(AtenTensorHandle self, const AtenTensorHandle *indices,
                                    int64_t indices_len_, AtenTensorHandle values,
                                    int32_t accumulate, AtenTensorHandle *ret0) {
    static const char op[] = "index_put";
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, values, "values"))
        return AOTI_TORCH_FAILURE;
    /* self.clone(preserve_format).index_put_(...) */
    int64_t st[MD];
    shimrt_k_preserve_strides(self, st);
    AtenTensorHandle r =
        shimrt_tensor_empty(op, self->ndim, self->sizes, st, self->dtype, SHIMRT_DEV_CPU, 0);
    if (!r || shimrt_k_copy(op, r, self) ||
        index_put_into(op, r, indices, indices_len_, values, accumulate != 0)) {
        shimrt_tensor_free(r);
        return AOTI_TORCH_FAILURE;
    }
    return shimrt_k_give(r, ret0);
}

/* AOTInductor's extern kernel: at::index_put_out, the functional result resized into out
 * and copied (indices may hold NULL for None). */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_index_put_out(
    AtenTensorHandle out, AtenTensorHandle self, const AtenTensorHandle *indices,
    const uint32_t num_indices, const AtenTensorHandle values, bool accumulate) {
    static const char op[] = "aoti_torch_index_put_out";
    if (!shimrt_tensor_valid(out) || !shimrt_tensor_valid(self) || !shimrt_tensor_valid(values))
        return shimrt_fail(op, "out, self and values must be live tensor handles");
    if (num_indices && !indices) return shimrt_fail(op, "argument 'indices' is NULL");
    for (uint32_t k = 0; k < num_indices; k++)
        if (indices[k] && !shimrt_tensor_valid(indices[k]))
            return shimrt_fail(op, "indices[%u] is not a live tensor handle", k);
    if (out->dtype != self->dtype)
        return shimrt_fail(op, "Expected out tensor to have dtype %s, but got %s instead",
                           shimrt_dtype_torch_name(self->dtype),
                           shimrt_dtype_torch_name(out->dtype));
    AtenTensorHandle r = NULL;
    if (shimrt_cpu_index_put(self, indices, num_indices, values, accumulate, &r))
        return AOTI_TORCH_FAILURE;
    AOTITorchError err = shimrt_resize_output(op, out, r->ndim, r->sizes);
    if (!err) err = shimrt_k_copy(op, out, r);
    shimrt_tensor_free(r);
    return err;
}

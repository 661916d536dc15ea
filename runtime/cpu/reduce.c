/* runtime/cpu/reduce.c: reductions over dims: sum.dim_IntList and amax (CPU).
 * The input is walked once with an accumulator buffer whose strides are 0 along the
 * reduced dims; floating results accumulate in double, integral and bool ones in int64
 * (wrapping). The result is a new contiguous tensor. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "cpu_kernels.h"
#include "elems.h"
#include "engine.h"
#include "iter.h"
#include "loops.h"

/* Which dims of self are reduced; dims NULL or empty: all. Fails on a bad or repeated dim. */
static AOTITorchError reduced_dims(const char *op, const struct AtenTensorOpaque *self,
                                   const int64_t *dims, int64_t n, bool *mask) {
    int64_t nd = self->ndim > 0 ? self->ndim : 1;
    bool all = dims == NULL || n == 0;
    for (int64_t d = 0; d < nd; d++) mask[d] = all;
    for (int64_t i = 0; !all && i < n; i++) {
        int64_t d;
        if (shimrt_k_wrap_dim(op, dims[i], self->ndim, &d)) return AOTI_TORCH_FAILURE;
        if (mask[d])
            return shimrt_fail(op, "dim %lld appears multiple times in the list of dims",
                               (long long)d);
        mask[d] = true;
    }
    return AOTI_TORCH_SUCCESS;
}

typedef enum { R_SUM, R_MAX } redop;
typedef struct {
    redop op;
    int32_t idt, odt;
    bool flt;
} red_ctx;

/* Neumaier's step in long double */
#define CSUM_ADD(s, comp, xv)                                                                      \
    do {                                                                                           \
        long double x_ = (xv), t_ = (s) + x_;                                                      \
        (comp) += fabsl(s) >= fabsl(x_) ? ((s)-t_) + x_ : (x_ - t_) + (s);                         \
        (s) = t_;                                                                                  \
    } while (0)

/* Operand 0: accumulator (double or int64), operand 1: the input. */
static void red_loop(char **data, const int64_t *st, int64_t n, void *vctx) {
    const red_ctx *c = vctx;
    char *acc = data[0], *in = data[1];
    for (int64_t i = 0; i < n; i++, acc += st[0], in += st[1]) {
        if (c->flt) {
            double a, x = shimrt_k_load_f64(in, c->idt);
            if (c->op == R_SUM && c->odt != c->idt) { /* sum(dtype=...) casts first */
                char tmp[8];
                shimrt_k_store_f64(tmp, c->odt, x);
                x = shimrt_k_load_f64(tmp, c->odt);
            }
            if (c->op == R_SUM) { /* Neumaier's compensated sum in long double: (sum, lost
                                     low part) at acc and acc + 16 */
                long double s, comp;
                memcpy(&s, acc, sizeof s);
                memcpy(&comp, acc + 16, sizeof comp);
                CSUM_ADD(s, comp, x);
                memcpy(acc, &s, sizeof s);
                memcpy(acc + 16, &comp, sizeof comp);
                continue;
            }
            memcpy(&a, acc, sizeof a);
            if (isnan(x) || x > a) a = isnan(a) ? a : x; /* NaN wins and stays */
            memcpy(acc, &a, sizeof a);
        } else {
            int64_t a, x;
            memcpy(&a, acc, sizeof a);
            /* the value as the result dtype sees it (sum(dtype=...) casts first) */
            if (shimrt_k_is_floating(c->idt)) {
                char tmp[8];
                shimrt_k_store_f64(tmp, c->odt, shimrt_k_load_f64(in, c->idt));
                x = shimrt_k_load_i64(tmp, c->odt);
            } else {
                x = shimrt_k_load_i64(in, c->idt);
            }
            if (c->odt == SHIMRT_BOOL) x = x != 0;
            if (c->op == R_SUM)
                a = (int64_t)((uint64_t)a + (uint64_t)x);
            else if (x > a)
                a = x;
            memcpy(acc, &a, sizeof a);
        }
    }
}

typedef struct {
    int32_t odt;
    bool flt, sum; /* sum: a floating sum's accumulator is (sum, compensation) */
} store_ctx;

/* A compensated sum (a, comp) stored in dtype odt: a sum that is inf or NaN keeps it (its
 * compensation is NaN then); else rounded from both parts directly, not through a + comp's
 * own rounding: the nearer neighbour of the first rounding by the residual. */
static void csum_store(char *o, int32_t odt, long double a, long double comp) {
    if (!isfinite(a)) {
        shimrt_k_store_f64(o, odt, (double)a);
        return;
    }
    long double s = a + comp;
    if (odt == SHIMRT_FLOAT32) {
        float h = (float)s, nb;
        long double r = (a - (long double)h) + comp;
        nb = nextafterf(h, r > 0 ? INFINITY : -INFINITY);
        if (r != 0 && isfinite(nb) && fabsl(r) > fabsl((long double)nb - h) / 2) h = nb;
        memcpy(o, &h, sizeof h);
    } else {
        double h = (double)s, nb;
        long double r = (a - (long double)h) + comp;
        nb = nextafter(h, r > 0 ? INFINITY : -INFINITY);
        if (r != 0 && isfinite(nb) && fabsl(r) > fabsl((long double)nb - h) / 2) h = nb;
        shimrt_k_store_f64(o, odt, h);
    }
}

/* The compensated sum's fast path: a contiguous input reduced over its trailing dims (or
 * all), rows of len elements read as their type (float16/bfloat16/float32/float64, no cast:
 * the result dtype is the input's or float64); false when it does not apply. */
static bool csum_rows(AtenTensorHandle self, const bool *mask, int32_t odt, char *out) {
    int32_t dt = self->dtype;
    if (!shimrt_is_contiguous(self) || (odt != dt && odt != SHIMRT_FLOAT64) ||
        (dt != SHIMRT_FLOAT32 && dt != SHIMRT_FLOAT64 && dt != SHIMRT_FLOAT16 &&
         dt != SHIMRT_BFLOAT16))
        return false;
    int64_t first = self->ndim, len = 1, rows = 1;
    while (first > 0 && mask[first - 1]) first--;
    for (int64_t d = 0; d < first; d++)
        if (mask[d]) return false;
    for (int64_t d = 0; d < self->ndim; d++) *(d < first ? &rows : &len) *= self->sizes[d];
    const char *in = shimrt_data(self);
    size_t oes = shimrt_dtype_size(odt);
    for (int64_t r = 0; r < rows; r++) {
        long double s = 0, comp = 0;
        int64_t b = r * len;
        switch (dt) {
        case SHIMRT_FLOAT32:
            for (int64_t i = 0; i < len; i++)
                CSUM_ADD(s, comp, ((const float *)(const void *)in)[b + i]);
            break;
        case SHIMRT_FLOAT64:
            for (int64_t i = 0; i < len; i++)
                CSUM_ADD(s, comp, ((const double *)(const void *)in)[b + i]);
            break;
        case SHIMRT_FLOAT16:
            for (int64_t i = 0; i < len; i++)
                CSUM_ADD(s, comp,
                         shimrt_half_to_float(((const uint16_t *)(const void *)in)[b + i]));
            break;
        default:
            for (int64_t i = 0; i < len; i++)
                CSUM_ADD(s, comp,
                         shimrt_bf16_to_float(((const uint16_t *)(const void *)in)[b + i]));
            break;
        }
        csum_store(out + (size_t)r * oes, odt, s, comp);
    }
    return true;
}

static void store_loop(char **data, const int64_t *st, int64_t n, void *vctx) {
    const store_ctx *c = vctx;
    char *o = data[0], *acc = data[1];
    for (int64_t i = 0; i < n; i++, o += st[0], acc += st[1]) {
        if (c->flt && c->sum) {
            long double a, comp;
            memcpy(&a, acc, sizeof a);
            memcpy(&comp, acc + 16, sizeof comp);
            csum_store(o, c->odt, a, comp);
        } else if (c->flt) {
            double a;
            memcpy(&a, acc, sizeof a);
            shimrt_k_store_f64(o, c->odt, a);
        } else {
            int64_t a;
            memcpy(&a, acc, sizeof a);
            shimrt_k_store_i64(o, c->odt, a);
        }
    }
}

/* Floating sums that take the compensated sum (csum_rows, or red_loop: Neumaier's sum in
 * long double) rather than the engine's vector lanes (plain double lanes merged in a tree):
 * inputs of up to SH_CSUM_MAX elements, where it costs a few microseconds and stays at
 * least as close to the exact sum as PyTorch's cascade where large terms cancel; larger
 * ones keep the lanes' speed (docs/engine.md, Reductions) */
#define SH_CSUM_MAX 1024
static bool compensated_sum(const struct AtenTensorOpaque *self) {
    return shimrt_numel(self) <= SH_CSUM_MAX;
}

/* The engine's reduction path: a contiguous tensor reduced over one block of adjacent
 * dims, seen as outer x len x inner, with the typed loops of the SH_REDUCE row (loops.h,
 * built per ISA). Work is split over the thread pool by rows (inner == 1: each task
 * reduces whole rows; few long rows are cut into parts whose partial results are merged
 * in a fixed order) or by (outer, block of up to RBLOCK inner columns). Results depend on
 * neither the thread count nor the ISA level's vector width beyond the lane order. */
#define RBLOCK 1024
#define RPART 65536 /* elements per part when few long rows are split */
#define RFEW 4      /* "few" rows: fewer than this */

typedef struct {
    const sh_red_kern *k;
    const char *in;
    char *out;
    int32_t tdt, odt;
    size_t ses, tes, oes;
    int64_t outer, len, inner, blocks, parts;
    double div;    /* mean: divide the double results by this (1: none) */
    char *partial; /* parts > 1: outer * parts T values */
} red_job;

/* T values to the output dtype (dividing first for mean) */
static void red_store(const red_job *j, char *dst, char *t, int64_t n) {
    if (j->div != 1.0) {
        double *v = (double *)(void *)t;
        for (int64_t i = 0; i < n; i++) v[i] /= j->div;
    }
    sh_cast_run(dst, j->odt, (int64_t)j->oes, t, j->tdt, (int64_t)j->tes, n);
}

static void red_rows_range(int64_t begin, int64_t end, void *vj) {
    const red_job *j = vj;
    _Alignas(64) char t[256 * 8];
    for (int64_t r = begin; r < end; r += 256) {
        int64_t n = end - r < 256 ? end - r : 256;
        j->k->rows(t, j->in + (size_t)(r * j->len) * j->ses, n, j->len);
        red_store(j, j->out + (size_t)r * j->oes, t, n);
    }
}

static void red_parts_range(int64_t begin, int64_t end, void *vj) {
    const red_job *j = vj;
    for (int64_t u = begin; u < end; u++) {
        int64_t o = u / j->parts, p = u % j->parts, plen = (j->len + j->parts - 1) / j->parts;
        int64_t s0 = p * plen, n = j->len - s0 < plen ? j->len - s0 : plen;
        if (n < 0) n = 0;
        j->k->rows(j->partial + (size_t)u * j->tes, j->in + (size_t)(o * j->len + s0) * j->ses, 1,
                   n);
    }
}

static void red_cols_range(int64_t begin, int64_t end, void *vj) {
    const red_job *j = vj;
    _Alignas(64) char acc[RBLOCK * 8];
    for (int64_t u = begin; u < end; u++) {
        int64_t o = u / j->blocks, c0 = (u % j->blocks) * RBLOCK;
        int64_t nc = j->inner - c0 < RBLOCK ? j->inner - c0 : RBLOCK;
        j->k->cols(acc, j->in + (size_t)(o * j->len * j->inner + c0) * j->ses, j->len, nc,
                   j->inner);
        red_store(j, j->out + (size_t)(o * j->inner + c0) * j->oes, acc, nc);
    }
}

/* Tasks of fewer elements than this run in the calling thread (the engine's grain). */
#define RGRAIN (sh_grain_elems())

/* The memory-order view of a reduction: self dense (any dim order), its dims (size-1 dims
 * left out) sorted by stride; the reduced ones must then be adjacent: outer x len x inner
 * elements. The result's shape (keepdim or not) goes to oshape/on; *ostr_used says whether
 * ostr holds its strides (the kept dims in self's memory order, as TensorIterator lays a
 * reduction's output out) or the result is plain contiguous (self contiguous). */
typedef struct {
    int64_t outer, len, inner;
    int64_t oshape[SHIMRT_MAX_DIMS], ostr[SHIMRT_MAX_DIMS], on;
    bool ostr_used;
} red_layout;

static bool red_layout_of(const struct AtenTensorOpaque *self, const bool *mask, bool keepdim,
                          red_layout *L) {
    int64_t nd = self->ndim, perm[SHIMRT_MAX_DIMS], np = 0;
    if (nd == 0 || shimrt_numel(self) == 0) return false;
    for (int64_t k = 0; k < nd; k++)
        if (self->sizes[k] != 1) {
            int64_t i = np++; /* insertion sort by stride, descending (stable) */
            while (i > 0 && self->strides[perm[i - 1]] < self->strides[k]) {
                perm[i] = perm[i - 1];
                i--;
            }
            perm[i] = k;
        }
    int64_t expect = 1;
    for (int64_t i = np - 1; i >= 0; i--) { /* dense in that order */
        if (self->strides[perm[i]] != expect) return false;
        expect *= self->sizes[perm[i]];
    }
    int64_t first = -1, last = -1;
    for (int64_t i = 0; i < np; i++)
        if (mask[perm[i]]) {
            if (first < 0) first = i;
            last = i;
        }
    for (int64_t i = first; first >= 0 && i <= last; i++)
        if (!mask[perm[i]]) return false;
    L->outer = L->len = L->inner = 1;
    bool identity = true;
    for (int64_t i = 0; i < np; i++) {
        int64_t sz = self->sizes[perm[i]];
        if (first < 0 || i < first)
            L->outer *= sz;
        else if (i > last)
            L->inner *= sz;
        else
            L->len *= sz;
        if (i > 0 && perm[i] < perm[i - 1]) identity = false;
    }
    if (first < 0) { /* only size-1 dims reduced: every element is its own row */
        L->outer = shimrt_numel(self);
        L->len = L->inner = 1;
    }
    /* strides of the kept dims, innermost in memory first */
    int64_t kstr[SHIMRT_MAX_DIMS], s = 1;
    for (int64_t k = 0; k < nd; k++) kstr[k] = 1;
    for (int64_t i = np - 1; i >= 0; i--)
        if (!mask[perm[i]]) {
            kstr[perm[i]] = s;
            s *= self->sizes[perm[i]];
        }
    L->on = 0;
    for (int64_t k = 0; k < nd; k++)
        if (!mask[k] || keepdim) {
            L->oshape[L->on] = mask[k] ? 1 : self->sizes[k];
            L->ostr[L->on] = kstr[k];
            L->on++;
        }
    L->ostr_used = !identity;
    return true;
}

/* PyTorch's reductions allocate their results contiguous (meta's resize_reduction): a
 * result computed in self's memory order (L->ostr_used) is copied into one. */
static AOTITorchError red_contiguous(const char *op, const red_layout *L, AtenTensorHandle *t) {
    if (!L->ostr_used || !*t) return AOTI_TORCH_SUCCESS;
    AtenTensorHandle c = shimrt_k_empty_like_dev(op, *t, L->on, L->oshape, NULL, (*t)->dtype);
    AOTITorchError err = !c || shimrt_k_copy(op, c, *t) ? AOTI_TORCH_FAILURE : AOTI_TORCH_SUCCESS;
    shimrt_tensor_free(*t);
    *t = err ? (shimrt_tensor_free(c), NULL) : c;
    return err;
}

/* Reduces self (dense, see red_layout_of) over the dims in mask into a new tensor of dtype odt with the
 * row `red`'s loops (accumulating in the wide type when wide), dividing by div (mean).
 * Returns false (nothing done) when the path does not apply: the caller goes generic. */
static bool engine_reduce(const char *op, int red, bool wide, AtenTensorHandle self,
                          const bool *mask, bool keepdim, int32_t odt, double div,
                          AtenTensorHandle *ret0, AOTITorchError *err) {
    red_job j;
    memset(&j, 0, sizeof j);
    red_layout L;
    j.k = sh_red_kernel(red, self->dtype, wide, &j.tdt);
    if (!j.k || sh_ct_index(odt) < 0 || !red_layout_of(self, mask, keepdim, &L)) return false;
    j.outer = L.outer;
    j.len = L.len;
    j.inner = L.inner;
    AtenTensorHandle out =
        shimrt_k_empty_like_dev(op, self, L.on, L.oshape, L.ostr_used ? L.ostr : NULL, odt);
    if (!out) {
        *err = AOTI_TORCH_FAILURE;
        return true;
    }
    j.in = shimrt_data(self);
    j.out = shimrt_data(out);
    j.odt = odt;
    j.div = div;
    j.ses = shimrt_dtype_size(self->dtype);
    j.tes = shimrt_dtype_size(j.tdt);
    j.oes = shimrt_dtype_size(odt);
    int64_t numel = shimrt_numel(self);
    *err = AOTI_TORCH_SUCCESS;
    if (j.inner == 1 && j.outer < RFEW && j.len >= 2 * RPART) {
        /* few long rows: parts, merged in order (the same parts at any thread count, so
         * that the result does not depend on it) */
        j.parts = (j.len + RPART - 1) / RPART;
        j.partial = malloc((size_t)(j.outer * j.parts) * j.tes);
        if (!j.partial) {
            shimrt_tensor_free(out);
            *err = shimrt_fail(op, "out of memory");
            return true;
        }
        torch_parallel_for(0, j.outer * j.parts, 1, red_parts_range, &j);
        for (int64_t o = 0; o < j.outer; o++) {
            char *acc = j.partial + (size_t)(o * j.parts) * j.tes;
            for (int64_t p = 1; p < j.parts; p++) j.k->merge(acc, acc + (size_t)p * j.tes, 1);
            red_store(&j, j.out + (size_t)o * j.oes, acc, 1);
        }
        free(j.partial);
    } else if (j.inner == 1) {
        int64_t grain = RGRAIN / j.len;
        if (grain < 1) grain = 1;
        if (numel < RGRAIN || j.outer <= grain)
            red_rows_range(0, j.outer, &j);
        else
            torch_parallel_for(0, j.outer, grain, red_rows_range, &j);
    } else {
        j.blocks = (j.inner + RBLOCK - 1) / RBLOCK;
        int64_t tasks = j.outer * j.blocks;
        int64_t per = j.len * (j.inner < RBLOCK ? j.inner : RBLOCK);
        int64_t grain = RGRAIN / per;
        if (grain < 1) grain = 1;
        if (numel < RGRAIN || tasks <= grain)
            red_cols_range(0, tasks, &j);
        else
            torch_parallel_for(0, tasks, grain, red_cols_range, &j);
    }
    *err = red_contiguous(op, &L, &out);
    *ret0 = out;
    return true;
}

static AOTITorchError reduce(const char *op, redop kind, AtenTensorHandle self, const int64_t *dims,
                             int64_t dims_len, bool keepdim, int32_t odt, AtenTensorHandle *ret0) {
    bool mask[SHIMRT_MAX_DIMS];
    if (reduced_dims(op, self, dims, dims_len, mask)) return AOTI_TORCH_FAILURE;
    AOTITorchError ferr;
    bool empty_max = false; /* amax over an empty dim: the error below */
    for (int64_t k = 0; k < self->ndim; k++)
        if (kind == R_MAX && mask[k] && self->sizes[k] == 0) empty_max = true;
    if (!empty_max) {
        /* sum: floating accumulates in double, integral and bool in int64 (the input is
         * converted to odt first, so only the dtypes where that is exact); amax in the
         * input's compute type */
        bool flt_in = shimrt_k_is_floating(self->dtype);
        bool ok = kind == R_MAX ? odt == self->dtype
                                : (flt_in ? odt == self->dtype && !compensated_sum(self)
                                          : odt == SHIMRT_INT64);
        if (ok && engine_reduce(op, kind == R_MAX ? RED_amax : RED_sum, kind == R_SUM, self, mask,
                                keepdim, odt, 1.0, ret0, &ferr))
            return ferr;
    }
    if (kind == R_MAX)
        for (int64_t d = 0; d < self->ndim; d++)
            if (mask[d] && self->sizes[d] == 0)
                return shimrt_fail(op, "Expected reduction dim %lld to have non-zero size.",
                                   (long long)d);
    /* result shape, and the accumulator's strides over self's dims */
    int64_t oshape[SHIMRT_MAX_DIMS], on = 0, kshape[SHIMRT_MAX_DIMS];
    for (int64_t d = 0; d < self->ndim; d++) {
        kshape[d] = mask[d] ? 1 : self->sizes[d];
        if (!mask[d] || keepdim) oshape[on++] = kshape[d];
    }
    int64_t accstr[SHIMRT_MAX_DIMS];
    shimrt_contiguous_strides(self->ndim, kshape, accstr);
    int64_t onumel = 1;
    for (int64_t d = 0; d < self->ndim; d++) onumel *= kshape[d];

    bool flt = shimrt_k_is_floating(odt), csum = flt && kind == R_SUM;
    if (csum) {
        AtenTensorHandle out = shimrt_k_empty_like_dev(op, self, on, oshape, NULL, odt);
        if (!out) return AOTI_TORCH_FAILURE;
        if (csum_rows(self, mask, odt, shimrt_data(out))) {
            *ret0 = out;
            return AOTI_TORCH_SUCCESS;
        }
        shimrt_tensor_free(out);
    }
    size_t aes = csum ? 32 : 8; /* a floating sum: long double (sum, compensation) */
    char *acc = calloc((size_t)(onumel > 0 ? onumel : 1), aes);
    if (!acc) return shimrt_fail(op, "out of memory");
    for (int64_t i = 0; i < onumel && !csum; i++) { /* (a sum's start: calloc's zeros) */
        if (flt) {
            double v = -INFINITY;
            memcpy(acc + (size_t)i * aes, &v, 8);
        } else {
            int64_t v = kind == R_SUM ? 0 : INT64_MIN;
            memcpy(acc + (size_t)i * aes, &v, 8);
        }
    }
    red_ctx rc = {kind, self->dtype, odt, flt};
    shimrt_k_iter it;
    shimrt_k_iter_init(&it, self->ndim, self->sizes);
    shimrt_k_iter_add(&it, acc, self->ndim, kshape, accstr, aes);
    shimrt_k_iter_add_tensor(&it, self);
    shimrt_k_iter_run(&it, red_loop, &rc);

    AtenTensorHandle out = shimrt_k_empty_like_dev(op, self, on, oshape, NULL, odt);
    if (out) {
        store_ctx sc = {odt, flt, csum};
        shimrt_k_iter_init(&it, self->ndim, kshape);
        shimrt_k_iter_add(&it, shimrt_data(out), self->ndim, kshape, accstr,
                          shimrt_dtype_size(odt));
        shimrt_k_iter_add(&it, acc, self->ndim, kshape, accstr, aes);
        shimrt_k_iter_run(&it, store_loop, &sc);
        *ret0 = out;
    }
    free(acc);
    return out ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
}

/* ---- complex sums and means, and the dtypes PyTorch's sum kernel lacks ---------------- */
static bool is_complex(int32_t dt) { return dt == SHIMRT_COMPLEX64 || dt == SHIMRT_COMPLEX128; }

/* self converted to dt (a new tensor), or NULL with the message set */
static AtenTensorHandle converted(const char *op, AtenTensorHandle self, int32_t dt) {
    AtenTensorHandle c = shimrt_k_empty_like_dev(op, self, self->ndim, self->sizes, NULL, dt);
    if (c && shimrt_k_copy(op, c, self)) {
        shimrt_tensor_free(c);
        return NULL;
    }
    return c;
}

typedef AOTITorchError (*reduce_fn)(AtenTensorHandle self, const int64_t *dim, int64_t dim_len,
                                    int32_t keepdim, int32_t *dtype, AtenTensorHandle *ret0);

/* PyTorch's mean of complex: the sum divided by the count as c10::complex's division by
 * (n, 0) (its scalar form: ((a + b * 0) / n', (b - a * 0) / n') with n' = 1 / n rounded to
 * the part type, so an inf or NaN part makes the other NaN; n = 0 gives NaN parts). The n
 * dense elements of t (a new tensor) in place. */
static void complex_div_count(AtenTensorHandle t, int64_t count) {
    int64_t n = shimrt_numel(t);
    if (t->dtype == SHIMRT_COMPLEX64) {
        float *v = shimrt_data(t), c = (float)count, rat = 0.0f / (c ? c : 1.0f), scl = 1.0f / c;
        for (int64_t i = 0; i < n; i++) {
            float a = v[2 * i], b = v[2 * i + 1];
            v[2 * i] = count ? (a + b * rat) * scl : a / c;
            v[2 * i + 1] = count ? (b - a * rat) * scl : b / c;
        }
    } else {
        double *v = shimrt_data(t), c = (double)count, rat = 0.0 / (c ? c : 1.0), scl = 1.0 / c;
        for (int64_t i = 0; i < n; i++) {
            double a = v[2 * i], b = v[2 * i + 1];
            v[2 * i] = count ? (a + b * rat) * scl : a / c;
            v[2 * i + 1] = count ? (b - a * rat) * scl : b / c;
        }
    }
}

/* sum or mean of a complex64/128 self over dims into a new tensor of self's dtype: complex
 * addition is componentwise, so the real and imaginary parts are summed as the real tensor
 * view_as_real gives (its last dim kept), the result viewed as complex again; a mean then
 * divides as PyTorch's (complex_div_count). */
static AOTITorchError complex_reduce(const char *op, bool mean, AtenTensorHandle self,
                                     const int64_t *dims, int64_t n, int32_t keepdim,
                                     AtenTensorHandle *ret0) {
    bool mask[SHIMRT_MAX_DIMS];
    if (reduced_dims(op, self, dims, n, mask)) return AOTI_TORCH_FAILURE;
    AtenTensorHandle r = NULL;
    int64_t count = 1;
    if (self->ndim == 0) { /* one element: itself */
        r = converted(op, self, self->dtype);
        if (!r) return AOTI_TORCH_FAILURE;
    } else {
        int64_t rd[SHIMRT_MAX_DIMS], nr = 0;
        for (int64_t d = 0; d < self->ndim; d++)
            if (mask[d]) {
                rd[nr++] = d;
                count *= self->sizes[d];
            }
        AtenTensorHandle re = NULL, s = NULL;
        if (shimrt_cpu_view_as_real(self, &re)) return AOTI_TORCH_FAILURE;
        AOTITorchError err = shimrt_cpu_sum_dim_intlist(re, rd, nr, keepdim, NULL, &s);
        shimrt_tensor_free(re);
        if (err) return err;
        err = shimrt_cpu_view_as_complex(s, &r);
        shimrt_tensor_free(s);
        if (err) return err;
    }
    if (mean) complex_div_count(r, count);
    return shimrt_k_give(r, ret0);
}

/* What sum / mean do before their real kernels when self or the dtype asked for is complex,
 * or the dtype is one PyTorch's sum kernel lacks. *done: the call is answered (its status
 * returned); else the caller goes on (with self converted when *conv is set: freed by it). */
static AOTITorchError complex_or_wide(const char *op, reduce_fn fn, AtenTensorHandle self,
                                      const int64_t *dim, int64_t dim_len_, int32_t keepdim,
                                      int32_t *dtype, AtenTensorHandle *ret0, bool *done,
                                      AtenTensorHandle *conv) {
    *done = false;
    *conv = NULL;
    int32_t odt = dtype ? *dtype : self->dtype;
    if (self->dtype == SHIMRT_COMPLEX32 || odt == SHIMRT_COMPLEX32 ||
        (dtype && (odt == SHIMRT_UINT16 || odt == SHIMRT_UINT32 || odt == SHIMRT_UINT64))) {
        if (!shimrt_dtype_is_computable(odt) || shimrt_numel(self) > 0) {
            *done = true;
            return shimrt_fail(op, "\"sum_cpu\" not implemented for '%s'",
                               shimrt_dtype_torch_name(odt));
        }
        /* nothing to add: zeros of the result's shape (PyTorch's kernel is not reached) */
        AtenTensorHandle c = converted(op, self, SHIMRT_INT64), r = NULL;
        AOTITorchError err = c ? fn(c, dim, dim_len_, keepdim, NULL, &r) : AOTI_TORCH_FAILURE;
        shimrt_tensor_free(c);
        *done = true;
        if (err) return err;
        AtenTensorHandle o = converted(op, r, odt);
        shimrt_tensor_free(r);
        return o ? shimrt_k_give(o, ret0) : AOTI_TORCH_FAILURE;
    }
    if (!is_complex(self->dtype) && !is_complex(odt)) return AOTI_TORCH_SUCCESS;
    if (self->dtype != odt) { /* to the dtype asked for first (complex to real: the real part) */
        *conv = converted(op, self, odt);
        if (!*conv) {
            *done = true;
            return AOTI_TORCH_FAILURE;
        }
        if (!is_complex(odt)) return AOTI_TORCH_SUCCESS;
    }
    *done = true;
    AOTITorchError err = complex_reduce(op, fn == shimrt_cpu_mean_dim, *conv ? *conv : self, dim,
                                        dim_len_, keepdim, ret0);
    shimrt_tensor_free(*conv);
    *conv = NULL;
    return err;
}

AOTITorchError shimrt_cpu_sum_dim_intlist(AtenTensorHandle self, const int64_t *dim,
                                          int64_t dim_len_, int32_t keepdim, int32_t *dtype,
                                          AtenTensorHandle *ret0) {
    static const char op[] = "sum.dim_IntList";
    AtenTensorHandle u = NULL;
    if (shimrt_k_check_cpu(op, self, "self") ||
        shimrt_k_unsigned_as(self, dtype ? *dtype : SHIMRT_INT64, &u))
        return AOTI_TORCH_FAILURE;
    if (u) {
        AOTITorchError e = shimrt_cpu_sum_dim_intlist(u, dim, dim_len_, keepdim, dtype, ret0);
        shimrt_tensor_free(u);
        return e;
    }
    bool done;
    AOTITorchError e = complex_or_wide(op, shimrt_cpu_sum_dim_intlist, self, dim, dim_len_, keepdim,
                                       dtype, ret0, &done, &u);
    if (done) return e;
    if (u) {
        e = shimrt_cpu_sum_dim_intlist(u, dim, dim_len_, keepdim, dtype, ret0);
        shimrt_tensor_free(u);
        return e;
    }
    if (shimrt_k_check_dtype(op, self, "self")) return AOTI_TORCH_FAILURE;
    int32_t odt;
    if (dtype) {
        odt = *dtype;
        if (!shimrt_k_dtype_ok(odt)) {
            const char *n = shimrt_dtype_name(odt);
            return n ? shimrt_fail(op, "dtype %s is not supported", n)
                     : shimrt_fail(op, "unknown dtype code %d", (int)odt);
        }
    } else {
        odt = shimrt_k_is_floating(self->dtype) ? self->dtype : SHIMRT_INT64;
    }
    return reduce(op, R_SUM, self, dim, dim_len_, keepdim != 0, odt, ret0);
}

AOTITorchError shimrt_cpu_amax(AtenTensorHandle self, const int64_t *dim, int64_t dim_len_,
                               int32_t keepdim, AtenTensorHandle *ret0) {
    static const char op[] = "amax";
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    /* uint16/32/64 and complex: PyTorch's kernel refuses them, but for an input without
     * elements (an empty result, no kernel) */
    if (!shimrt_k_dtype_ok(self->dtype) && shimrt_dtype_is_computable(self->dtype) &&
        shimrt_numel(self) > 0)
        return shimrt_fail(op, "\"max_values_cpu\" not implemented for '%s'",
                           shimrt_dtype_torch_name(self->dtype));
    if (shimrt_numel(self) > 0 && shimrt_k_check_dtype(op, self, "self")) return AOTI_TORCH_FAILURE;
    return reduce(op, R_MAX, self, dim, dim_len_, keepdim != 0, self->dtype, ret0);
}

/* ---- mean, all, any, sum out ------------------------------------------------------- */

AOTITorchError shimrt_cpu_mean_dim(AtenTensorHandle self, const int64_t *dim, int64_t dim_len_,
                                   int32_t keepdim, int32_t *dtype, AtenTensorHandle *ret0) {
    static const char op[] = "mean.dim";
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    /* PyTorch sums in the dtype given (float32 for float16/bfloat16) over the elements cast
     * to it, divides there, then casts: mean of large int64 in float32 sums in float32,
     * 65535 (uint16) with dtype float16 is 65535 in the float32 sum */
    int32_t odt = dtype ? *dtype : -1;
    int32_t sdt = odt == SHIMRT_FLOAT16 || odt == SHIMRT_BFLOAT16 ? SHIMRT_FLOAT32 : odt;
    if (shimrt_tensor_valid(self) && dtype && shimrt_k_is_floating(odt) && self->dtype != odt &&
        (shimrt_k_is_integral(self->dtype) || shimrt_k_is_floating(self->dtype) ||
         self->dtype == SHIMRT_BOOL ||
         (shimrt_dtype_traits_of(self->dtype) &&
          shimrt_dtype_traits_of(self->dtype)->kind == SHIMRT_KIND_UNSIGNED))) {
        int64_t st[SHIMRT_MAX_DIMS];
        shimrt_k_preserve_strides(self, st);
        AtenTensorHandle x = self->dtype == sdt ? NULL
                                                : shimrt_k_empty_like_dev(op, self, self->ndim,
                                                                          self->sizes, st, sdt);
        AtenTensorHandle m = NULL, r = NULL;
        AOTITorchError e = self->dtype == sdt ? AOTI_TORCH_SUCCESS
                           : x                ? shimrt_k_copy(op, x, self)
                                              : AOTI_TORCH_FAILURE;
        if (!e) e = shimrt_cpu_mean_dim(x ? x : self, dim, dim_len_, keepdim, &sdt, &m);
        shimrt_tensor_free(x);
        if (e || sdt == odt) return shimrt_k_hand_out(e, m, ret0);
        r = shimrt_k_empty_like_dev(op, m, m->ndim, m->sizes, m->strides, odt);
        e = r ? shimrt_k_copy(op, r, m) : AOTI_TORCH_FAILURE;
        shimrt_tensor_free(m);
        return shimrt_k_hand_out(e, r, ret0);
    }
    AtenTensorHandle u = NULL; /* PyTorch: uint16/32/64 with a floating dtype given */
    if (shimrt_k_check_cpu(op, self, "self") ||
        (dtype && shimrt_k_is_floating(*dtype) && shimrt_k_unsigned_as(self, *dtype, &u)))
        return AOTI_TORCH_FAILURE;
    if (u) {
        AOTITorchError e = shimrt_cpu_mean_dim(u, dim, dim_len_, keepdim, dtype, ret0);
        shimrt_tensor_free(u);
        return e;
    }
    if (is_complex(self->dtype) || (dtype && is_complex(*dtype))) {
        bool done;
        AOTITorchError e = complex_or_wide(op, shimrt_cpu_mean_dim, self, dim, dim_len_, keepdim,
                                           dtype, ret0, &done, &u);
        if (done) return e;
        e = shimrt_cpu_mean_dim(u, dim, dim_len_, keepdim, dtype, ret0);
        shimrt_tensor_free(u);
        return e;
    }
    if (shimrt_k_check_dtype(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (shimrt_k_mean_dtype(op, self->dtype, dtype, &odt)) return AOTI_TORCH_FAILURE;
    bool mask[SHIMRT_MAX_DIMS];
    if (reduced_dims(op, self, dim, dim_len_, mask)) return AOTI_TORCH_FAILURE;
    int64_t count = 1;
    for (int64_t d = 0; d < self->ndim; d++)
        if (mask[d]) count *= self->sizes[d];
    AOTITorchError ferr;
    if (odt == self->dtype && !compensated_sum(self) &&
        engine_reduce(op, RED_sum, true, self, mask, keepdim != 0, odt, (double)count, ret0, &ferr))
        return ferr;
    AtenTensorHandle s = NULL;
    if (reduce(op, R_SUM, self, dim, dim_len_, keepdim != 0, SHIMRT_FLOAT64, &s))
        return AOTI_TORCH_FAILURE;
    /* divide in double, then round once to the result dtype */
    int64_t n = shimrt_numel(s);
    double *v = shimrt_data(s);
    for (int64_t i = 0; i < n; i++) v[i] /= (double)count;
    AtenTensorHandle out = shimrt_k_empty_like_dev(op, self, s->ndim, s->sizes, NULL, odt);
    AOTITorchError err = out ? shimrt_k_copy(op, out, s) : AOTI_TORCH_FAILURE;
    shimrt_tensor_free(s);
    return shimrt_k_hand_out(err, out, ret0);
}

/* all/any: the result is bool, uint8 for uint8 input (PyTorch's rule) */
typedef struct {
    bool any;
    bool hit;
    int32_t dt;
} allany_ctx;

static void allany_chunk(char **ptr, const int64_t *st, int64_t n, void *vctx) {
    allany_ctx *c = vctx;
    for (int64_t i = 0; i < n && !c->hit; i++) {
        uint8_t b;
        sh_cast_run((char *)&b, SHIMRT_BOOL, 1, ptr[1] + i * st[1], c->dt, 0, 1);
        if ((b != 0) == c->any) c->hit = true;
    }
}

static AOTITorchError all_any(const char *op, bool any, AtenTensorHandle self,
                              AtenTensorHandle *ret0) {
    AtenTensorHandle u = NULL;
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_unsigned_as(self, SHIMRT_BOOL, &u))
        return AOTI_TORCH_FAILURE;
    if (is_complex(self->dtype)) { /* nonzero: either part (NaN counts) */
        u = converted(op, self, SHIMRT_BOOL);
        if (!u) return AOTI_TORCH_FAILURE;
    }
    if (u) {
        AOTITorchError e = all_any(op, any, u, ret0);
        shimrt_tensor_free(u);
        return e;
    }
    if (shimrt_k_check_dtype(op, self, "self")) return AOTI_TORCH_FAILURE;
    int32_t odt = self->dtype == SHIMRT_UINT8 ? SHIMRT_UINT8 : SHIMRT_BOOL;
    allany_ctx c = {any, false, self->dtype};
    sh_plan p;
    AtenTensorHandle o = self; /* read only: the chunk function writes nothing */
    const struct AtenTensorOpaque *in = self;
    if (sh_plan_build(&p, op, &o, self->dtype, 1, &in)) return AOTI_TORCH_FAILURE;
    sh_walk_serial(&p, allany_chunk, &c);
    AtenTensorHandle out = shimrt_k_empty_like_dev(op, self, 0, NULL, NULL, odt);
    if (!out) return AOTI_TORCH_FAILURE;
    *(uint8_t *)shimrt_data(out) = any ? c.hit : !c.hit;
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_all(AtenTensorHandle self, AtenTensorHandle *ret0) {
    return all_any("all", false, self, ret0);
}

AOTITorchError shimrt_cpu_any(AtenTensorHandle self, AtenTensorHandle *ret0) {
    return all_any("any", true, self, ret0);
}

AOTITorchError shimrt_cpu_sum_intlist_out(AtenTensorHandle out, AtenTensorHandle self,
                                          const int64_t *dim, int64_t dim_len_, int32_t keepdim,
                                          int32_t *dtype) {
    static const char op[] = "sum.IntList_out";
    if (shimrt_k_check_cpu(op, out, "out")) return AOTI_TORCH_FAILURE;
    return shimrt_k_sum_out(op, out, self, dim, dim_len_, keepdim, dtype,
                            shimrt_cpu_sum_dim_intlist);
}

/* ---- max.dim, argmax: first index of the largest value, NaN counting as the largest -- */

typedef struct {
    const char *in;
    int32_t dt;
    int64_t len, stride; /* along the reduced dim, bytes */
} scan_line;

static int64_t line_argmax(const scan_line *l) {
    int64_t best = 0;
    if (shimrt_k_is_floating(l->dt)) {
        double bv = shimrt_k_load_f64(l->in, l->dt);
        for (int64_t i = 1; i < l->len && !isnan(bv); i++) {
            double v = shimrt_k_load_f64(l->in + i * l->stride, l->dt);
            if (isnan(v) || v > bv) {
                bv = v;
                best = i;
            }
        }
    } else {
        int64_t bv = shimrt_k_load_i64(l->in, l->dt);
        for (int64_t i = 1; i < l->len; i++) {
            int64_t v = shimrt_k_load_i64(l->in + i * l->stride, l->dt);
            if (v > bv) {
                bv = v;
                best = i;
            }
        }
    }
    return best;
}

/* For every position of self's other dims: the argmax index along dim d. values (may be
 * NULL) gets the value, indices gets int64 indices; both laid out like self without d. */
static void argmax_along(AtenTensorHandle self, int64_t d, char *values, int64_t *indices) {
    int64_t nd = self->ndim, osz[SHIMRT_MAX_DIMS], ost[SHIMRT_MAX_DIMS], on = 0;
    size_t es = shimrt_dtype_size(self->dtype);
    for (int64_t k = 0; k < nd; k++)
        if (k != d) {
            osz[on] = self->sizes[k];
            ost[on] = self->strides[k];
            on++;
        }
    int64_t count = 1;
    for (int64_t k = 0; k < on; k++) count *= osz[k];
    scan_line l = {NULL, self->dtype, nd ? self->sizes[d] : 1,
                   nd ? self->strides[d] * (int64_t)es : 0};
    const char *base = shimrt_data(self);
    for (int64_t i = 0; i < count; i++) {
        int64_t r = i, off = 0;
        for (int64_t k = on - 1; k >= 0; k--) {
            off += (r % osz[k]) * ost[k];
            r /= osz[k];
        }
        l.in = base + off * (int64_t)es;
        int64_t best = line_argmax(&l);
        indices[i] = best;
        if (values) memcpy(values + (size_t)i * es, l.in + best * l.stride, es);
    }
}

/* argmax over dim d of a contiguous tensor with the engine's loops (loops.h): rows
 * (d is the innermost non-trivial dim) or columns (blocks of RBLOCK), split over the thread
 * pool. values (may be NULL) gets the values in self's dtype. Returns false when the path
 * does not apply. */
typedef struct {
    const sh_argmax_kern *k;
    const char *in;
    char *vals;
    int64_t *idx;
    int32_t sdt, cdt;
    size_t ses;
    int64_t outer, len, inner, blocks;
} arg_job;

static void arg_rows_range(int64_t begin, int64_t end, void *vj) {
    const arg_job *j = vj;
    j->k->rows(j->idx + begin, j->vals ? j->vals + (size_t)begin * j->ses : NULL,
               j->in + (size_t)(begin * j->len) * j->ses, end - begin, j->len);
}

static void arg_cols_range(int64_t begin, int64_t end, void *vj) {
    const arg_job *j = vj;
    _Alignas(64) char v[RBLOCK * 8];
    for (int64_t u = begin; u < end; u++) {
        int64_t o = u / j->blocks, c0 = (u % j->blocks) * RBLOCK;
        int64_t nc = j->inner - c0 < RBLOCK ? j->inner - c0 : RBLOCK;
        j->k->cols(j->idx + o * j->inner + c0, v,
                   j->in + (size_t)(o * j->len * j->inner + c0) * j->ses, j->len, nc, j->inner);
        if (j->vals)
            sh_cast_run(j->vals + (size_t)(o * j->inner + c0) * j->ses, j->sdt, (int64_t)j->ses, v,
                        j->cdt, (int64_t)shimrt_dtype_size(j->cdt), nc);
    }
}

static void argmax_run(const struct AtenTensorOpaque *self, const red_layout *L, char *values,
                       int64_t *indices) {
    arg_job j = {sh_argmax_kernel(self->dtype),
                 shimrt_data(self),
                 values,
                 indices,
                 self->dtype,
                 sh_ct_dtype(sh_ct_index(self->dtype)),
                 shimrt_dtype_size(self->dtype),
                 L->outer,
                 L->len,
                 L->inner,
                 1};
    int64_t numel = shimrt_numel(self);
    if (j.inner == 1) {
        int64_t grain = RGRAIN / j.len;
        if (grain < 1) grain = 1;
        if (numel < RGRAIN || j.outer <= grain)
            arg_rows_range(0, j.outer, &j);
        else
            torch_parallel_for(0, j.outer, grain, arg_rows_range, &j);
    } else {
        j.blocks = (j.inner + RBLOCK - 1) / RBLOCK;
        int64_t tasks = j.outer * j.blocks;
        int64_t grain = RGRAIN / (j.len * (j.inner < RBLOCK ? j.inner : RBLOCK));
        if (grain < 1) grain = 1;
        if (numel < RGRAIN || tasks <= grain)
            arg_cols_range(0, tasks, &j);
        else
            torch_parallel_for(0, tasks, grain, arg_cols_range, &j);
    }
}

/* max.dim / argmax over dim d of a dense self (any dim order) into new tensors laid out as
 * red_layout_of says; *ret_v is skipped when NULL. Returns false when the path does not
 * apply (nothing allocated). */
static bool engine_argmax(const char *op, AtenTensorHandle self, int64_t d, bool keepdim,
                          AtenTensorHandle *ret_v, AtenTensorHandle *ret_i, AOTITorchError *err) {
    bool mask[SHIMRT_MAX_DIMS] = {false};
    red_layout L;
    mask[d] = true;
    if (!sh_argmax_kernel(self->dtype) || !red_layout_of(self, mask, keepdim, &L)) return false;
    const int64_t *ostr = L.ostr_used ? L.ostr : NULL;
    AtenTensorHandle v =
        ret_v ? shimrt_k_empty_like_dev(op, self, L.on, L.oshape, ostr, self->dtype) : NULL;
    AtenTensorHandle ix =
        (v || !ret_v) ? shimrt_k_empty_like_dev(op, self, L.on, L.oshape, ostr, SHIMRT_INT64)
                      : NULL;
    if (!ix) {
        shimrt_tensor_free(v);
        *err = AOTI_TORCH_FAILURE;
        return true;
    }
    argmax_run(self, &L, v ? shimrt_data(v) : NULL, shimrt_data(ix));
    *err = red_contiguous(op, &L, &v) || red_contiguous(op, &L, &ix) ? AOTI_TORCH_FAILURE
                                                                     : AOTI_TORCH_SUCCESS;
    if (*err) {
        shimrt_tensor_free(v);
        shimrt_tensor_free(ix);
        return true;
    }
    if (ret_v) *ret_v = v;
    *ret_i = ix;
    return true;
}

AOTITorchError shimrt_cpu_max_dim(AtenTensorHandle self, int64_t dim, int32_t keepdim,
                                  AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    static const char op[] = "max.dim";
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (is_complex(self->dtype)) return shimrt_fail(op, "max(): does not support complex input");
    int64_t d;
    if (shimrt_k_reduce_dim_nonempty(op, "max", self, dim, &d)) return AOTI_TORCH_FAILURE;
    if (!shimrt_k_dtype_ok(self->dtype) && shimrt_dtype_is_computable(self->dtype)) {
        /* uint16/32/64: no max_cpu kernel, but a 0-d self is copied (index 0) and an empty
         * one gives empty results */
        if (self->ndim > 0 && shimrt_numel(self) > 0)
            return shimrt_fail(op, "\"max_cpu\" not implemented for '%s'",
                               shimrt_dtype_torch_name(self->dtype));
        int64_t osz[SHIMRT_MAX_DIMS];
        int64_t on = shimrt_k_reduced_shape(self->ndim, self->sizes, d, keepdim != 0, osz);
        AtenTensorHandle v = shimrt_k_empty_like_dev(op, self, on, osz, NULL, self->dtype);
        AtenTensorHandle ix =
            v ? shimrt_k_empty_like_dev(op, self, on, osz, NULL, SHIMRT_INT64) : NULL;
        if (!ix || (self->ndim == 0 && shimrt_k_copy(op, v, self))) {
            shimrt_tensor_free(v);
            shimrt_tensor_free(ix);
            return AOTI_TORCH_FAILURE;
        }
        if (self->ndim == 0) *(int64_t *)shimrt_data(ix) = 0;
        *ret0 = v;
        *ret1 = ix;
        return AOTI_TORCH_SUCCESS;
    }
    if (shimrt_k_check_dtype(op, self, "self")) return AOTI_TORCH_FAILURE;
    AOTITorchError ferr;
    if (self->ndim > 0 && engine_argmax(op, self, d, keepdim != 0, ret0, ret1, &ferr)) return ferr;
    int64_t osz[SHIMRT_MAX_DIMS];
    int64_t on = shimrt_k_reduced_shape(self->ndim, self->sizes, d, keepdim != 0, osz);
    AtenTensorHandle v = shimrt_k_empty_like_dev(op, self, on, osz, NULL, self->dtype);
    AtenTensorHandle ix = v ? shimrt_k_empty_like_dev(op, self, on, osz, NULL, SHIMRT_INT64) : NULL;
    if (!ix) {
        shimrt_tensor_free(v);
        return AOTI_TORCH_FAILURE;
    }
    argmax_along(self, d, shimrt_data(v), shimrt_data(ix));
    *ret0 = v;
    *ret1 = ix;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_argmax(AtenTensorHandle self, int64_t *dim, int32_t keepdim,
                                 AtenTensorHandle *ret0) {
    static const char op[] = "argmax";
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (is_complex(self->dtype)) return shimrt_fail(op, "argmax(): does not support complex input");
    if (!shimrt_k_dtype_ok(self->dtype) && shimrt_dtype_is_computable(self->dtype)) {
        /* uint16/32/64: no argmax_cpu kernel; PyTorch fills zeros without it when the reduced
         * dim has size 1 or there is no element */
        int64_t d = 0;
        if (!dim && shimrt_numel(self) == 0)
            return shimrt_fail(op, "argmax(): Expected reduction dim to be specified for "
                                   "input.numel() == 0.");
        if (dim && shimrt_k_reduce_dim_nonempty(op, "argmax", self, *dim, &d))
            return AOTI_TORCH_FAILURE;
        if (!dim || self->ndim == 0 || (shimrt_numel(self) > 0 && self->sizes[d] != 1))
            return shimrt_fail(op, "\"argmax_cpu\" not implemented for '%s'",
                               shimrt_dtype_torch_name(self->dtype));
        int64_t osz[SHIMRT_MAX_DIMS];
        int64_t on = shimrt_k_reduced_shape(self->ndim, self->sizes, d, keepdim != 0, osz);
        AtenTensorHandle ix = shimrt_k_empty_like_dev(op, self, on, osz, NULL, SHIMRT_INT64);
        if (!ix) return AOTI_TORCH_FAILURE;
        shimrt_k_fill(ix, 0);
        return shimrt_k_give(ix, ret0);
    }
    if (shimrt_k_check_dtype(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (self->dtype == SHIMRT_BOOL)
        return shimrt_fail(op, "\"argmax_cpu\" not implemented for 'Bool'");
    if (!dim) {
        if (shimrt_numel(self) == 0)
            return shimrt_fail(op, "argmax(): Expected reduction dim to be specified for "
                                   "input.numel() == 0.");
        /* over the flattened tensor */
        bool own = !shimrt_is_contiguous(self); /* else read self in place */
        AtenTensorHandle flat =
            own ? shimrt_k_empty_like_dev(op, self, self->ndim, self->sizes, NULL, self->dtype)
                : self;
        if (!flat) return AOTI_TORCH_FAILURE;
        if (own && shimrt_k_copy(op, flat, self)) {
            shimrt_tensor_free(flat);
            return AOTI_TORCH_FAILURE;
        }
        int64_t shape1[SHIMRT_MAX_DIMS], on = keepdim ? self->ndim : 0;
        for (int64_t k = 0; k < on; k++) shape1[k] = 1;
        AtenTensorHandle out = shimrt_k_empty_like_dev(op, self, on, shape1, NULL, SHIMRT_INT64);
        if (out) {
            /* one row of numel elements: flat is contiguous */
            int64_t n = shimrt_numel(self);
            red_layout L = {.outer = 1, .len = n, .inner = 1};
            if (sh_argmax_kernel(self->dtype)) {
                argmax_run(flat, &L, NULL, shimrt_data(out));
            } else {
                scan_line l = {shimrt_data(flat), self->dtype, n,
                               (int64_t)shimrt_dtype_size(self->dtype)};
                *(int64_t *)shimrt_data(out) = line_argmax(&l);
            }
            *ret0 = out;
        }
        if (own) shimrt_tensor_free(flat);
        return out ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
    }
    int64_t d;
    if (shimrt_k_reduce_dim_nonempty(op, "argmax", self, *dim, &d)) return AOTI_TORCH_FAILURE;
    AOTITorchError ferr;
    if (self->ndim > 0 && engine_argmax(op, self, d, keepdim != 0, NULL, ret0, &ferr)) return ferr;
    int64_t osz[SHIMRT_MAX_DIMS];
    int64_t on = shimrt_k_reduced_shape(self->ndim, self->sizes, d, keepdim != 0, osz);
    AtenTensorHandle ix = shimrt_k_empty_like_dev(op, self, on, osz, NULL, SHIMRT_INT64);
    if (!ix) return AOTI_TORCH_FAILURE;
    argmax_along(self, d, NULL, shimrt_data(ix));
    *ret0 = ix;
    return AOTI_TORCH_SUCCESS;
}

/* ---- softmax, log_softmax: along one dim, computed in double per line ---------------- */

typedef struct {
    bool logsm;
    const char *in;
    char *out;
    int32_t idt, odt;
    size_t ies, oes;
    int64_t len, inner;
    bool oom; /* set by a task that could not get its line buffer */
} sm_job;

/* float32 along the last dim as PyTorch's kernel (16 lanes with AVX-512, else 8): the row's
 * maximum (NaN if any is), exp(x - max) with SLEEF's vector u10 exp, summed in float as its
 * vec::reduce_all (lanes across the row, the tail into the first lanes, then the lanes
 * halved pairwise: l + W/2, ..., l + 1; a row shorter than W in order);
 * log_softmax: x - max - log(sum), softmax: exp(x - max) * (1 / sum). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
/* SLEEF's vector exp and log (vecmath.c): its vector functions differ from its scalar ones
 * in about 1% of the float inputs, and PyTorch takes the vector ones for every element */
__attribute__((target("avx2,fma"))) __m256 _ZGVdN8v_shimrt_vm_expf(__m256);
__attribute__((target("avx2,fma"))) __m256 _ZGVdN8v_shimrt_vm_logf(__m256);
__attribute__((target("avx2,fma"))) static void sm_vec8(bool lg, const float *x, float *y) {
    __m256 v = _mm256_loadu_ps(x);
    _mm256_storeu_ps(y, lg ? _ZGVdN8v_shimrt_vm_logf(v) : _ZGVdN8v_shimrt_vm_expf(v));
}
/* whether SLEEF's AVX2 vector functions can run here (no cached flag: the pool's workers
 * call this at once, and the probe is cheap) */
static bool sm_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
static void sm_vmath(bool lg, const float *x, float *y, int64_t n) {
    bool avx2 = sm_avx2();
    for (int64_t i = 0; i < n; i += 8) {
        float in[8] = {0}, out[8];
        int64_t c = n - i < 8 ? n - i : 8;
        memcpy(in, x + i, (size_t)c * sizeof(float));
        if (avx2)
            sm_vec8(lg, in, out);
        else
            for (int l = 0; l < 8; l++) out[l] = lg ? logf(in[l]) : expf(in[l]);
        memcpy(y + i, out, (size_t)c * sizeof(float));
    }
}
#else
static void sm_vmath(bool lg, const float *x, float *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = lg ? logf(x[i]) : expf(x[i]);
}
#endif
/* float64 as above: SLEEF's vector exp and log (4 lanes) on every element */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target("avx2,fma"))) __m256d _ZGVdN4v_shimrt_vm_exp(__m256d);
__attribute__((target("avx2,fma"))) __m256d _ZGVdN4v_shimrt_vm_log(__m256d);
__attribute__((target("avx2,fma"))) static void sm_vec4d(bool lg, const double *x, double *y) {
    __m256d v = _mm256_loadu_pd(x);
    _mm256_storeu_pd(y, lg ? _ZGVdN4v_shimrt_vm_log(v) : _ZGVdN4v_shimrt_vm_exp(v));
}
static void sm_vmath_d(bool lg, const double *x, double *y, int64_t n) {
    bool avx2 = sm_avx2();
    for (int64_t i = 0; i < n; i += 4) {
        double in[4] = {0}, out[4];
        int64_t c = n - i < 4 ? n - i : 4;
        memcpy(in, x + i, (size_t)c * sizeof(double));
        if (avx2)
            sm_vec4d(lg, in, out);
        else
            for (int l = 0; l < 4; l++) out[l] = lg ? log(in[l]) : exp(in[l]);
        memcpy(y + i, out, (size_t)c * sizeof(double));
    }
}
#else
static void sm_vmath_d(bool lg, const double *x, double *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = lg ? log(x[i]) : exp(x[i]);
}
#endif

/* PyTorch's float lanes for its softmax kernels on this CPU: 16 with AVX-512 (F, BW, VL, DQ),
 * else 8 */
static int sm_width(void) { return shimrt_e_pt_vec_bytes() / 4; }

static float sm_lanes_sum(const float *e, int64_t n) {
    int W = sm_width();
    if (n < W) {
        float s = e[0];
        for (int64_t i = 1; i < n; i++) s += e[i];
        return s;
    }
    float acc[16];
    for (int l = 0; l < W; l++) acc[l] = e[l];
    int64_t d = W;
    for (; d < n - (n % W); d += W)
        for (int l = 0; l < W; l++) acc[l] += e[d + l];
    for (int64_t l = 0; l < n - d; l++) acc[l] += e[d + l];
    for (int h = W / 2; h >= 1; h /= 2)
        for (int l = 0; l < h; l++) acc[l] += acc[l + h];
    return acc[0];
}

static void sm_row_f32(const float *x, float *out, int64_t n, bool logsm) {
    float mx = x[0];
    for (int64_t i = 1; i < n; i++) mx = isnan(mx) || isnan(x[i]) ? NAN : (x[i] > mx ? x[i] : mx);
    for (int64_t i = 0; i < n; i++) out[i] = x[i] - mx;
    sm_vmath(false, out, out, n);
    float sum = sm_lanes_sum(out, n);
    if (logsm) {
        float ls;
        sm_vmath(true, &sum, &ls, 1);
        for (int64_t i = 0; i < n; i++) out[i] = x[i] - mx - ls;
    } else {
        float r = 1 / sum;
        for (int64_t i = 0; i < n; i++) out[i] *= r;
    }
}

/* float64 along the last dim: the same steps in double (8 lanes with AVX-512, else 4) */
static double sm_lanes_sum_d(const double *e, int64_t n) {
    int W = sm_width() / 2;
    if (n < W) {
        double s = e[0];
        for (int64_t i = 1; i < n; i++) s += e[i];
        return s;
    }
    double acc[8];
    for (int l = 0; l < W; l++) acc[l] = e[l];
    int64_t d = W;
    for (; d < n - (n % W); d += W)
        for (int l = 0; l < W; l++) acc[l] += e[d + l];
    for (int64_t l = 0; l < n - d; l++) acc[l] += e[d + l];
    for (int h = W / 2; h >= 1; h /= 2)
        for (int l = 0; l < h; l++) acc[l] += acc[l + h];
    return acc[0];
}

static void sm_row_f64(const double *x, double *out, int64_t n, bool logsm) {
    double mx = x[0];
    for (int64_t i = 1; i < n; i++) mx = isnan(mx) || isnan(x[i]) ? NAN : (x[i] > mx ? x[i] : mx);
    for (int64_t i = 0; i < n; i++) out[i] = x[i] - mx;
    sm_vmath_d(false, out, out, n);
    double sum = sm_lanes_sum_d(out, n);
    if (logsm) {
        double ls;
        sm_vmath_d(true, &sum, &ls, 1);
        for (int64_t i = 0; i < n; i++) out[i] = x[i] - mx - ls;
    } else {
        double r = 1 / sum;
        for (int64_t i = 0; i < n; i++) out[i] *= r;
    }
}

/* log_softmax of float16 / bfloat16 along the last dim: PyTorch's _vec_log_softmax_lastdim
 * for the reduced types, in float: the row's max (NaN if any is), the sum of exp(x - max)
 * (SLEEF's float vector exp, summed as the float32 kernel sums) stored in the type, its log
 * (SLEEF's vector log) stored in the type, then x - max - log(sum) rounded once. */
static float sm_r16(int32_t dt, float v) {
    return dt == SHIMRT_FLOAT16 ? shimrt_half_to_float(shimrt_float_to_half(v))
                                : shimrt_bf16_to_float(shimrt_float_to_bf16(v));
}

static void sm_logrow_16(int32_t dt, const uint16_t *x, uint16_t *y, int64_t n, float *e) {
    float mx = 0, *t = e + n;
    for (int64_t i = 0; i < n; i++) {
        float v = dt == SHIMRT_FLOAT16 ? shimrt_half_to_float(x[i]) : shimrt_bf16_to_float(x[i]);
        e[i] = v;
        mx = i == 0 ? v : isnan(mx) || isnan(v) ? NAN : (v > mx ? v : mx);
    }
    for (int64_t i = 0; i < n; i++) t[i] = e[i] - mx;
    sm_vmath(false, t, t, n);
    float sum = sm_r16(dt, sm_lanes_sum(t, n)), ls;
    sm_vmath(true, &sum, &ls, 1);
    ls = sm_r16(dt, ls);
    for (int64_t i = 0; i < n; i++) {
        float v = e[i] - mx - ls;
        y[i] = dt == SHIMRT_FLOAT16 ? shimrt_float_to_half(v) : shimrt_float_to_bf16(v);
    }
}

/* log_softmax of float16 / bfloat16 along a dim that is not the last, as PyTorch's reduced
 * type _vec_logsoftmax: in float per outer index and chunk of inner positions (vectors of
 * 32 positions with AVX-512, else 16): the max over the dim without NaN (x > max), the sum
 * of exp(x - max) (SLEEF's vector exp on the whole vectors, the C library's expf on the
 * rest), SLEEF's vector log of the sums, x - max - log(sum) rounded once. One range. */
static bool sm_log_inner_16(int32_t dt, const uint16_t *in, uint16_t *out, int64_t outer,
                            int64_t dim, int64_t inner) {
    int64_t W = sm_width() * 2, chunk = 131072 / (dim ? dim : 1) / 2;
    chunk = (chunk > W ? chunk : W) / W * W;
    float *mx = malloc((size_t)(chunk * 3 + dim * chunk) * sizeof(float));
    if (!mx) return false;
    float *sum = mx + chunk, *t = sum + chunk, *xb = t + chunk;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t c0 = 0; c0 < inner; c0 += chunk) {
            int64_t size = inner - c0 < chunk ? inner - c0 : chunk, nv = size / W * W;
            for (int64_t q = 0; q < size; q++) mx[q] = -INFINITY, sum[q] = 0;
            for (int64_t d = 0; d < dim; d++) {
                const uint16_t *x = in + (o * dim + d) * inner + c0;
                float *xf = xb + d * chunk;
                for (int64_t q = 0; q < size; q++) {
                    xf[q] = dt == SHIMRT_FLOAT16 ? shimrt_half_to_float(x[q])
                                                 : shimrt_bf16_to_float(x[q]);
                    mx[q] = xf[q] > mx[q] ? xf[q] : mx[q];
                }
            }
            for (int64_t d = 0; d < dim; d++) {
                const float *xf = xb + d * chunk;
                for (int64_t q = 0; q < size; q++) t[q] = xf[q] - mx[q];
                sm_vmath(false, t, t, nv);
                for (int64_t q = nv; q < size; q++) t[q] = expf(t[q]);
                for (int64_t q = 0; q < size; q++) sum[q] += t[q];
            }
            sm_vmath(true, sum, sum, size);
            for (int64_t d = 0; d < dim; d++) {
                const float *xf = xb + d * chunk;
                uint16_t *y = out + (o * dim + d) * inner + c0;
                for (int64_t q = 0; q < size; q++) {
                    float v = xf[q] - mx[q] - sum[q];
                    y[q] = dt == SHIMRT_FLOAT16 ? shimrt_float_to_half(v) : shimrt_float_to_bf16(v);
                }
            }
        }
    free(mx);
    return true;
}

/* log_softmax of float32 along a dim that is not the last (inner > 1), as PyTorch's
 * _vec_log_softmax: per outer index and chunk of inner positions (CHUNK of them, at least
 * one vector), the maximum over the dim without NaN (x > max), the sum of exp(x - max) in
 * dim order (SLEEF's vector exp on the chunk's whole vectors of W lanes, the C library's
 * expf on the rest), SLEEF's vector log of the sums, then x - max - log(sum). */
/* (one body for float and double: T, the lanes' divisor of sm_width, the chunk's element
 * size, the vector math and the C library's exp) */
#define SM_LOG_INNER(NAME, T, WDIV, ES, VMATH, EXPF)                                               \
    static void NAME(int64_t begin, int64_t end, void *vj) {                                       \
        sm_job *j = vj;                                                                            \
        int64_t dim = j->len, inner = j->inner, W = sm_width() / (WDIV);                           \
        int64_t chunk = 131072 / (dim ? dim : 1) / (ES);                                           \
        chunk = (chunk > W ? chunk : W) / W * W;                                                   \
        int64_t nchunks = (inner + chunk - 1) / chunk;                                             \
        T *mx = malloc((size_t)chunk * 3 * sizeof(T));                                             \
        if (!mx) {                                                                                 \
            j->oom = true;                                                                         \
            return;                                                                                \
        }                                                                                          \
        T *sum = mx + chunk, *t = sum + chunk;                                                     \
        const T *in = (const T *)(const void *)j->in;                                              \
        T *out = (T *)(void *)j->out;                                                              \
        for (int64_t it = begin; it < end; it++) {                                                 \
            int64_t o = it / nchunks, c0 = it % nchunks * chunk;                                   \
            int64_t size = inner - c0 < chunk ? inner - c0 : chunk, nv = size / W * W;             \
            for (int64_t q = 0; q < size; q++) mx[q] = -INFINITY, sum[q] = 0;                      \
            for (int64_t d = 0; d < dim; d++) {                                                    \
                const T *x = in + (o * dim + d) * inner + c0;                                      \
                for (int64_t q = 0; q < size; q++) mx[q] = x[q] > mx[q] ? x[q] : mx[q];            \
            }                                                                                      \
            for (int64_t d = 0; d < dim; d++) {                                                    \
                const T *x = in + (o * dim + d) * inner + c0;                                      \
                for (int64_t q = 0; q < size; q++) t[q] = x[q] - mx[q];                            \
                VMATH(false, t, t, nv);                                                            \
                for (int64_t q = nv; q < size; q++) t[q] = EXPF(t[q]);                             \
                for (int64_t q = 0; q < size; q++) sum[q] += t[q];                                 \
            }                                                                                      \
            VMATH(true, sum, sum, size);                                                           \
            for (int64_t d = 0; d < dim; d++) {                                                    \
                const T *x = in + (o * dim + d) * inner + c0;                                      \
                T *y = out + (o * dim + d) * inner + c0;                                           \
                for (int64_t q = 0; q < size; q++) y[q] = x[q] - mx[q] - sum[q];                   \
            }                                                                                      \
        }                                                                                          \
        free(mx);                                                                                  \
    }
SM_LOG_INNER(sm_log_inner_range, float, 1, 4, sm_vmath, expf)
SM_LOG_INNER(sm_log_inner_range_d, double, 2, 8, sm_vmath_d, exp)

/* softmax of float32 / float64 along a dim that is not the last (inner > 1), as PyTorch's
 * _vec_softmax over positions (outer, inner) in one range: W consecutive inner positions
 * at a time where they fit in the row (the max over the dim NaN-propagating, exp(x - max)
 * by SLEEF's vector exp, summed from 0 in dim order, then e / sum), the rest one position
 * at a time (std::max from the first element, so a NaN counts only there; the C library's
 * exp; e / sum). */
#define SM_SOFT_INNER(T, SUF, W_, VM, EXP)                                                         \
    static void sm_soft_inner_##SUF(const T *in, T *out, int64_t outer, int64_t dim,               \
                                    int64_t inner, T *e) {                                         \
        int64_t W = W_, total = outer * inner, idx = 0;                                            \
        while (idx < total) {                                                                      \
            int64_t o = idx / inner, c = idx % inner;                                              \
            const T *x = in + o * dim * inner + c;                                                 \
            T *y = out + o * dim * inner + c;                                                      \
            if (c + W <= inner && idx + W <= total) {                                              \
                T mx[16], sm[16];                                                                  \
                for (int64_t l = 0; l < W; l++) mx[l] = x[l], sm[l] = 0;                           \
                for (int64_t d = 1; d < dim; d++)                                                  \
                    for (int64_t l = 0; l < W; l++) {                                              \
                        T v = x[d * inner + l];                                                    \
                        mx[l] = isnan(mx[l]) || isnan(v) ? (T)NAN : (v > mx[l] ? v : mx[l]);       \
                    }                                                                              \
                for (int64_t d = 0; d < dim; d++) {                                                \
                    for (int64_t l = 0; l < W; l++) e[l] = x[d * inner + l] - mx[l];               \
                    VM(false, e, e, W);                                                            \
                    for (int64_t l = 0; l < W; l++) y[d * inner + l] = e[l], sm[l] += e[l];        \
                }                                                                                  \
                for (int64_t d = 0; d < dim; d++)                                                  \
                    for (int64_t l = 0; l < W; l++) y[d * inner + l] /= sm[l];                     \
                idx += W;                                                                          \
            } else {                                                                               \
                int64_t tail = idx + W > total ? total - idx : inner - c;                          \
                for (int64_t i = 0; i < tail; i++) {                                               \
                    int64_t oo = (idx + i) / inner, cc = (idx + i) % inner;                        \
                    const T *xx = in + oo * dim * inner + cc;                                      \
                    T *yy = out + oo * dim * inner + cc, mx = xx[0], sm = 0;                       \
                    for (int64_t d = 1; d < dim; d++)                                              \
                        mx = mx < xx[d * inner] ? xx[d * inner] : mx;                              \
                    for (int64_t d = 0; d < dim; d++) {                                            \
                        yy[d * inner] = EXP(xx[d * inner] - mx);                                   \
                        sm += yy[d * inner];                                                       \
                    }                                                                              \
                    for (int64_t d = 0; d < dim; d++) yy[d * inner] = yy[d * inner] / sm;          \
                }                                                                                  \
                idx += tail;                                                                       \
            }                                                                                      \
        }                                                                                          \
    }
SM_SOFT_INNER(float, f32, sm_width(), sm_vmath, expf)
SM_SOFT_INNER(double, f64, sm_width() / 2, sm_vmath_d, exp)

static void sm_range(int64_t begin, int64_t end, void *vj) {
    sm_job *j = vj;
    if (j->inner == 1 && j->idt == SHIMRT_FLOAT32 && j->odt == SHIMRT_FLOAT32 && j->len > 0) {
        for (int64_t line = begin; line < end; line++)
            sm_row_f32((const float *)(const void *)j->in + line * j->len,
                       (float *)(void *)j->out + line * j->len, j->len, j->logsm);
        return;
    }
    if (j->inner == 1 && j->logsm && j->idt == j->odt &&
        (j->idt == SHIMRT_FLOAT16 || j->idt == SHIMRT_BFLOAT16) && j->len > 0) {
        float *e = malloc((size_t)j->len * 3 * sizeof *e);
        if (!e) {
            j->oom = true;
            return;
        }
        for (int64_t line = begin; line < end; line++)
            sm_logrow_16(j->idt, (const uint16_t *)(const void *)j->in + line * j->len,
                         (uint16_t *)(void *)j->out + line * j->len, j->len, e);
        free(e);
        return;
    }
    if (j->inner == 1 && j->idt == SHIMRT_FLOAT64 && j->odt == SHIMRT_FLOAT64 && j->len > 0) {
        for (int64_t line = begin; line < end; line++)
            sm_row_f64((const double *)(const void *)j->in + line * j->len,
                       (double *)(void *)j->out + line * j->len, j->len, j->logsm);
        return;
    }
    double stackbuf[1024], *buf = stackbuf;
    if (j->len > 1024 && !(buf = malloc((size_t)j->len * sizeof *buf))) {
        j->oom = true;
        return;
    }
    for (int64_t line = begin; line < end; line++) {
        int64_t o = line / j->inner, c = line % j->inner;
        size_t off = (size_t)(o * j->len * j->inner + c);
        sh_cast_run((char *)buf, SHIMRT_FLOAT64, 8, j->in + off * j->ies, j->idt,
                    j->inner * (int64_t)j->ies, j->len);
        sh_softmax_line(buf, j->len, j->logsm);
        sh_cast_run(j->out + off * j->oes, j->odt, j->inner * (int64_t)j->oes, (const char *)buf,
                    SHIMRT_FLOAT64, 8, j->len);
    }
    if (buf != stackbuf) free(buf);
}

static AOTITorchError softmax_impl(const char *op, bool logsm, AtenTensorHandle self, int64_t dim,
                                   int32_t *dtype, AtenTensorHandle *ret0) {
    /* PyTorch's softmax.int: self converted to dtype first (when given), then _softmax of
     * that, whose kernel (floating types only) never runs on an input without elements */
    bool conv = dtype && *dtype != self->dtype;
    if (shimrt_k_check_cpu(op, self, "self") ||
        (!conv && !sh_dtype_wide(self->dtype) && shimrt_k_check_dtype(op, self, "self")))
        return AOTI_TORCH_FAILURE; /* uint16/32/64, complex: refused below unless empty */
    int64_t d;
    if (shimrt_k_wrap_dim(op, dim, self->ndim, &d)) return AOTI_TORCH_FAILURE;
    int32_t odt = dtype ? *dtype : self->dtype;
    if (shimrt_numel(self) > 0 && shimrt_k_softmax_dtype(op,
                                                         logsm ? "log_softmax_lastdim_kernel_impl"
                                                               : "softmax_lastdim_kernel_impl",
                                                         self->dtype, dtype, &odt))
        return AOTI_TORCH_FAILURE;
    /* a contiguous input in dtype (copied when not), then per line: converted to double,
     * computed (sh_softmax_line), converted to the result dtype; lines split over the pool */
    AtenTensorHandle in = self, tmp = NULL;
    if (!shimrt_is_contiguous(self) || conv) {
        tmp = shimrt_k_empty_like_dev(op, self, self->ndim, self->sizes, NULL, odt);
        if (!tmp || shimrt_k_copy(op, tmp, self)) {
            shimrt_tensor_free(tmp);
            return AOTI_TORCH_FAILURE;
        }
        in = tmp;
    }
    AtenTensorHandle out = shimrt_k_empty_like_dev(op, self, self->ndim, self->sizes, NULL, odt);
    if (!out) {
        shimrt_tensor_free(tmp);
        return AOTI_TORCH_FAILURE;
    }
    sm_job j = {logsm,
                shimrt_data(in),
                shimrt_data(out),
                in->dtype,
                odt,
                shimrt_dtype_size(in->dtype),
                shimrt_dtype_size(odt),
                self->ndim ? self->sizes[d] : 1,
                1,
                false};
    for (int64_t k = d + 1; k < self->ndim; k++) j.inner *= self->sizes[k];
    bool f32 = j.idt == SHIMRT_FLOAT32 && odt == SHIMRT_FLOAT32;
    bool f64 = j.idt == SHIMRT_FLOAT64 && odt == SHIMRT_FLOAT64;
    bool h16 = j.idt == odt && (odt == SHIMRT_FLOAT16 || odt == SHIMRT_BFLOAT16);
    /* PyTorch's lastdim kernels only for the last dim; another dim (even with nothing
     * after it) takes the general ones */
    bool inner_k = self->ndim > 0 && d != self->ndim - 1;
    if (shimrt_numel(self) == 0) { /* (no line to compute) */
        shimrt_tensor_free(tmp);
        *ret0 = out;
        return AOTI_TORCH_SUCCESS;
    }
    if (logsm && inner_k && h16 && j.len > 0) {
        bool ok = sm_log_inner_16(odt, shimrt_data(in), shimrt_data(out),
                                  shimrt_numel(self) / (j.len * j.inner), j.len, j.inner);
        shimrt_tensor_free(tmp);
        if (!ok) {
            shimrt_tensor_free(out);
            return shimrt_fail(op, "out of memory");
        }
        *ret0 = out;
        return AOTI_TORCH_SUCCESS;
    }
    if (!logsm && inner_k && (f32 || f64) && j.len > 0) {
        double e[16];
        int64_t outer = shimrt_numel(self) / (j.len * j.inner);
        if (f32)
            sm_soft_inner_f32(shimrt_data(in), shimrt_data(out), outer, j.len, j.inner,
                              (float *)(void *)e);
        else
            sm_soft_inner_f64(shimrt_data(in), shimrt_data(out), outer, j.len, j.inner, e);
        shimrt_tensor_free(tmp);
        *ret0 = out;
        return AOTI_TORCH_SUCCESS;
    }
    if (logsm && inner_k && (f32 || f64) && j.len > 0) {
        int64_t W = f32 ? sm_width() : sm_width() / 2, chunk = 131072 / j.len / (f32 ? 4 : 8);
        chunk = (chunk > W ? chunk : W) / W * W;
        int64_t tasks = shimrt_numel(self) / (j.len * j.inner) * ((j.inner + chunk - 1) / chunk);
        if (tasks * j.len * chunk <= RGRAIN)
            (f32 ? sm_log_inner_range : sm_log_inner_range_d)(0, tasks, &j);
        else
            torch_parallel_for(0, tasks, 1, f32 ? sm_log_inner_range : sm_log_inner_range_d, &j);
        shimrt_tensor_free(tmp);
        if (j.oom) {
            shimrt_tensor_free(out);
            return shimrt_fail(op, "out of memory");
        }
        *ret0 = out;
        return AOTI_TORCH_SUCCESS;
    }
    int64_t lines = j.len > 0 ? shimrt_numel(self) / j.len : 0;
    int64_t grain = RGRAIN / (j.len > 0 ? j.len : 1);
    if (grain < 1) grain = 1;
    if (lines <= grain)
        sm_range(0, lines, &j);
    else
        torch_parallel_for(0, lines, grain, sm_range, &j);
    shimrt_tensor_free(tmp);
    if (j.oom) {
        shimrt_tensor_free(out);
        return shimrt_fail(op, "out of memory");
    }
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

SHIMRT_SOFTMAX_KERNELS(shimrt_cpu, softmax_impl)

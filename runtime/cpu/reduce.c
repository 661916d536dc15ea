/* runtime/cpu/reduce.c: reductions over dims: sum.dim_IntList and amax (CPU).
 * The input is walked once with an accumulator buffer whose strides are 0 along the
 * reduced dims; floating results accumulate in double, integral and bool ones in int64
 * (wrapping). The result is a new contiguous tensor. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "iter.h"

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
typedef struct { redop op; int32_t idt, odt; bool flt; } red_ctx;

/* Operand 0: accumulator (double or int64), operand 1: the input. */
static void red_loop(char **data, const int64_t *st, int64_t n, void *vctx) {
    const red_ctx *c = vctx;
    char *acc = data[0], *in = data[1];
    for (int64_t i = 0; i < n; i++, acc += st[0], in += st[1]) {
        if (c->flt) {
            double a, x = shimrt_k_load_f64(in, c->idt);
            memcpy(&a, acc, sizeof a);
            if (c->op == R_SUM)
                a += x;
            else if (isnan(x) || x > a)
                a = isnan(a) ? a : x; /* NaN wins and stays */
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

typedef struct { int32_t odt; bool flt; } store_ctx;

static void store_loop(char **data, const int64_t *st, int64_t n, void *vctx) {
    const store_ctx *c = vctx;
    char *o = data[0], *acc = data[1];
    for (int64_t i = 0; i < n; i++, o += st[0], acc += st[1]) {
        if (c->flt) {
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

static AOTITorchError reduce(const char *op, redop kind, AtenTensorHandle self,
                             const int64_t *dims, int64_t dims_len, bool keepdim, int32_t odt,
                             AtenTensorHandle *ret0) {
    bool mask[SHIMRT_MAX_DIMS];
    if (reduced_dims(op, self, dims, dims_len, mask)) return AOTI_TORCH_FAILURE;
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

    bool flt = shimrt_k_is_floating(odt);
    char *acc = malloc((size_t)(onumel > 0 ? onumel : 1) * 8);
    if (!acc) return shimrt_fail(op, "out of memory");
    for (int64_t i = 0; i < onumel; i++) {
        if (flt) {
            double v = kind == R_SUM ? 0.0 : -INFINITY;
            memcpy(acc + i * 8, &v, 8);
        } else {
            int64_t v = kind == R_SUM ? 0 : INT64_MIN;
            memcpy(acc + i * 8, &v, 8);
        }
    }
    red_ctx rc = {kind, self->dtype, odt, flt};
    shimrt_k_iter it;
    shimrt_k_iter_init(&it, self->ndim, self->sizes);
    shimrt_k_iter_add(&it, acc, self->ndim, kshape, accstr, 8);
    shimrt_k_iter_add_tensor(&it, self);
    shimrt_k_iter_run(&it, red_loop, &rc);

    AtenTensorHandle out = shimrt_k_empty_like_dev(op, self, on, oshape, NULL, odt);
    if (out) {
        store_ctx sc = {odt, flt};
        shimrt_k_iter_init(&it, self->ndim, kshape);
        shimrt_k_iter_add(&it, shimrt_data(out), self->ndim, kshape, accstr,
                          shimrt_dtype_size(odt));
        shimrt_k_iter_add(&it, acc, self->ndim, kshape, accstr, 8);
        shimrt_k_iter_run(&it, store_loop, &sc);
        *ret0 = out;
    }
    free(acc);
    return out ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
}

AOTITorchError shimrt_cpu_sum_dim_intlist(AtenTensorHandle self, const int64_t *dim,
                                          int64_t dim_len_, int32_t keepdim, int32_t *dtype,
                                          AtenTensorHandle *ret0) {
    static const char op[] = "sum.dim_IntList";
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
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
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    return reduce(op, R_MAX, self, dim, dim_len_, keepdim != 0, self->dtype, ret0);
}

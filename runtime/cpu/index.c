/* runtime/cpu/index.c: indexing kernels over plain stride walks: gather, scatter,
 * scatter_reduce (the AOTInductor extern kernels aoti_torch_scatter_out and
 * aoti_torch_scatter_reduce_out) and index_select. Advanced indexing (index.Tensor,
 * index_put, aoti_torch_index_put_out): runtime/cpu/advindex.c.
 * Data movement copies element bytes; arithmetic (reductions, accumulate) runs in long
 * double, which holds every int64 and every double exactly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../generic/meta.h"
#include "index.h"
#include "iter.h"

static bool is_floatish(int32_t dt) { return shimrt_dtype_is_floating(dt); }

/* ---- element access ---- */
bool shimrt_idx_numeric(int32_t dt) { return shimrt_dtype_engine_index(dt) >= 0; }

long double shimrt_idx_load(const char *p, int32_t dt) {
    /* integers through int64 (exact), floating values through double (exact) */
    return is_floatish(dt) ? (long double)shimrt_k_load_f64(p, dt)
                           : (long double)shimrt_k_load_i64(p, dt);
}

/* v wrapped to integer dtype dt's width (PyTorch accumulates in dt itself) */
static long double wrap_to(int32_t dt, int64_t v) {
    _Alignas(8) char buf[8];
    shimrt_k_store_i64(buf, dt, v);
    return (long double)shimrt_k_load_i64(buf, dt);
}

long double shimrt_idx_add(int32_t dt, long double a, long double b) {
    if (is_floatish(dt) || dt == SHIMRT_BOOL) return a + b;
    return wrap_to(dt, (int64_t)((uint64_t)(int64_t)a + (uint64_t)(int64_t)b));
}

long double shimrt_idx_mul(int32_t dt, long double a, long double b) {
    if (is_floatish(dt) || dt == SHIMRT_BOOL) return a * b;
    return wrap_to(dt, (int64_t)((uint64_t)(int64_t)a * (uint64_t)(int64_t)b));
}

/* Integer targets saturate (NaN gives 0): a cast of an out-of-range value is undefined. */
static int64_t sat_i64(long double x) {
    if (x != x) return 0;
    if (x >= 9223372036854775807.0L) return INT64_MAX;
    if (x <= -9223372036854775808.0L) return INT64_MIN;
    return (int64_t)x;
}

void shimrt_idx_store(char *p, int32_t dt, long double x) {
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(dt);
    if (!t) return;
    if (t->kind == SHIMRT_KIND_BOOL)
        t->store_i64(p, x != 0);
    else if (t->kind != SHIMRT_KIND_FLOATING)
        t->store_i64(p, sat_i64(x)); /* saturated to int64, then wrapped to the width */
    else /* rounded once to the element type (float through float: exact in double) */
        t->store_f64(p, dt == SHIMRT_FLOAT64 ? (double)x : (double)(float)x);
}

/* Address of the element at multi-index idx. */
char *shimrt_idx_at(AtenTensorHandle t, const int64_t *idx) {
    int64_t off = 0;
    for (int64_t d = 0; d < t->ndim; d++) off += idx[d] * t->strides[d];
    char *base = (char *)shimrt_data(t);
    return base ? base + off * (int64_t)shimrt_dtype_size(t->dtype) : NULL; /* NULL: no data */
}

/* Advances a row-major multi-index over sizes; false after the last one. */
bool shimrt_idx_next(int64_t ndim, const int64_t *sizes, int64_t *idx) {
    for (int64_t d = ndim - 1; d >= 0; d--) {
        if (++idx[d] < sizes[d]) return true;
        idx[d] = 0;
    }
    return false;
}

static int64_t index_value(AtenTensorHandle index, const int64_t *idx) {
    const char *p = shimrt_idx_at(index, idx);
    if (index->dtype == SHIMRT_INT32) {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, p, 8);
    return v;
}

AOTITorchError shimrt_idx_wrap_dim(const char *op, int64_t *dim, int64_t ndim) {
    int64_t n = ndim ? ndim : 1;
    if (*dim < -n || *dim >= n)
        return shimrt_fail(op,
                           "Dimension out of range (expected to be in range of [%lld, "
                           "%lld], but got %lld)",
                           (long long)-n, (long long)(n - 1), (long long)*dim);
    if (*dim < 0) *dim += n;
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError check_live(const char *op, AtenTensorHandle t, const char *name) {
    if (!shimrt_tensor_valid(t))
        return shimrt_fail(op, "%s", shimrt_tensor_invalid_reason(t, name));
    if (!t->defined) return shimrt_fail(op, "argument '%s' is an undefined tensor", name);
    if (t->device_type != SHIMRT_DEV_CPU)
        return shimrt_fail(op, "argument '%s' is not a CPU tensor", name);
    return AOTI_TORCH_SUCCESS;
}

/* out <- self unless they are the same tensor; out must have self's dtype, must not overlap
 * index or src (PyTorch's scatter checks) and takes self's shape (resized as PyTorch resizes
 * out arguments). */
static AOTITorchError prepare_out(const char *op, AtenTensorHandle out, AtenTensorHandle self,
                                  AtenTensorHandle index, AtenTensorHandle src) {
    if (out->dtype != self->dtype)
        return shimrt_fail(op, "Expected out tensor to have dtype %s, but got %s instead",
                           shimrt_dtype_name(self->dtype), shimrt_dtype_name(out->dtype));
    /* PyTorch's scatter meta checks the overlaps of out as given, before resizing it
     * (gather's resizes first) */
    if (shimrt_k_out_no_overlap(op, out, src, index)) return AOTI_TORCH_FAILURE;
    if (out == self) return AOTI_TORCH_SUCCESS;
    if (shimrt_resize_output(op, out, self->ndim, self->sizes)) return AOTI_TORCH_FAILURE;
    return shimrt_copy(op, out, self);
}

/* Iterates every element of index: fills tgt (out's multi-index) and pos. */
typedef AOTITorchError (*scatter_fn)(const int64_t *pos, const int64_t *tgt, void *ctx);
static AOTITorchError walk_index(const char *op, AtenTensorHandle index, AtenTensorHandle out,
                                 int64_t dim, scatter_fn fn, void *ctx) {
    int64_t n = shimrt_numel(index);
    if (n == 0) return AOTI_TORCH_SUCCESS;
    int64_t pos[SHIMRT_MAX_DIMS] = {0}, tgt[SHIMRT_MAX_DIMS];
    int64_t limit = out->ndim ? out->sizes[dim] : 1;
    do {
        int64_t v = index_value(index, pos);
        if (shimrt_k_index_in_bounds(op, v, dim, limit)) return AOTI_TORCH_FAILURE;
        memcpy(tgt, pos, (size_t)index->ndim * sizeof *pos);
        if (out->ndim) tgt[dim] = v;
        AOTITorchError rc = fn(pos, tgt, ctx);
        if (rc) return rc;
    } while (shimrt_idx_next(index->ndim, index->sizes, pos));
    return AOTI_TORCH_SUCCESS;
}

/* an element copy between out and src (scatter's and gather's steps) */
typedef struct {
    AtenTensorHandle out, src;
    size_t elsize;
} copy_ctx;
static AOTITorchError scatter_copy(const int64_t *pos, const int64_t *tgt, void *vctx) {
    copy_ctx *c = vctx;
    memcpy(shimrt_idx_at(c->out, tgt), shimrt_idx_at(c->src, pos), c->elsize);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_idx_scatter(const char *op, AtenTensorHandle out, AtenTensorHandle self,
                                  int64_t dim, AtenTensorHandle index, AtenTensorHandle src) {
    if (check_live(op, out, "out") || check_live(op, self, "self") ||
        check_live(op, index, "index") || check_live(op, src, "src"))
        return AOTI_TORCH_FAILURE;
    if (shimrt_idx_wrap_dim(op, &dim, self->ndim)) return AOTI_TORCH_FAILURE;
    if (src->dtype != self->dtype)
        return shimrt_fail(op, "Expected self.dtype to be equal to src.dtype");
    if (shimrt_k_scatter_index_check(op, self, dim, index, src, false) ||
        prepare_out(op, out, self, index, src))
        return AOTI_TORCH_FAILURE;
    copy_ctx c = {out, src, shimrt_dtype_size(out->dtype)};
    return walk_index(op, index, out, dim, scatter_copy, &c);
}

enum { R_SUM, R_PROD, R_MEAN, R_AMAX, R_AMIN };
typedef struct {
    AtenTensorHandle out, src;
    int reduce;
    long double *acc; /* per out element (row-major over out's sizes) */
    int64_t *count;
    bool *touched;
    long double *im; /* complex: the imaginary parts (acc holds the real ones) */
} reduce_ctx;

/* a complex element's parts */
static void cx_load(const char *p, int32_t dt, long double *re, long double *im) {
    double v[2];
    shimrt_dtype_convert(v, SHIMRT_COMPLEX128, p, dt);
    *re = v[0], *im = v[1];
}

static int64_t linear_of(AtenTensorHandle t, const int64_t *idx) {
    int64_t l = 0;
    for (int64_t d = 0; d < t->ndim; d++) l = l * t->sizes[d] + idx[d];
    return l;
}

static AOTITorchError reduce_step(const int64_t *pos, const int64_t *tgt, void *vctx) {
    reduce_ctx *c = vctx;
    int64_t l = linear_of(c->out, tgt);
    long double v, vi = 0;
    if (c->im)
        cx_load(shimrt_idx_at(c->src, pos), c->src->dtype, &v, &vi);
    else
        v = shimrt_idx_load(shimrt_idx_at(c->src, pos), c->src->dtype);
    if (!c->touched[l]) {
        c->touched[l] = true;
        if (c->count[l] == 0 && (c->reduce == R_AMAX || c->reduce == R_AMIN)) {
            c->acc[l] = v; /* include_self false: PyTorch starts from lowest / highest */
            c->count[l] = 1;
            return AOTI_TORCH_SUCCESS;
        }
        if (c->count[l] == 0) { /* include_self false: PyTorch starts from the identity, 0 or
                                 * 1 (0 + -0 is +0; (1 + 0i) (x + inf i) has a NaN part) */
            c->acc[l] = c->reduce == R_PROD ? 1 : 0;
            if (c->im) c->im[l] = 0;
        }
    }
    if (c->im) { /* complex: sum, mean or prod (PyTorch has no complex amax / amin) */
        long double a = c->acc[l], b = c->im[l];
        if (c->reduce == R_PROD && c->out->dtype == SHIMRT_COMPLEX64) {
            /* c10::complex<float>'s *=, each product and sum in float (FLT_MAX (1 + i) *
             * (2 + 2i) has a NaN real part there, not 0) */
            float fa = (float)a, fb = (float)b, fv = (float)v, fvi = (float)vi;
            float re = fa * fv - fb * fvi, im = fa * fvi + fb * fv;
            c->acc[l] = re, c->im[l] = im;
        } else if (c->reduce == R_PROD && c->out->dtype == SHIMRT_COMPLEX128) {
            double da = (double)a, db = (double)b, dv = (double)v, dvi = (double)vi;
            double re = da * dv - db * dvi, im = da * dvi + db * dv;
            c->acc[l] = re, c->im[l] = im;
        } else if (c->reduce == R_PROD)
            c->acc[l] = a * v - b * vi, c->im[l] = a * vi + b * v;
        else
            c->acc[l] = a + v, c->im[l] = b + vi;
        c->count[l]++;
        return AOTI_TORCH_SUCCESS;
    }
    switch (c->reduce) {
    case R_SUM:
    case R_MEAN: c->acc[l] = shimrt_idx_add(c->out->dtype, c->acc[l], v); break;
    case R_PROD: c->acc[l] = shimrt_idx_mul(c->out->dtype, c->acc[l], v); break;
    case R_AMAX:
        if (isnan(v) || v > c->acc[l]) c->acc[l] = v;
        break;
    default:
        if (isnan(v) || v < c->acc[l]) c->acc[l] = v;
        break;
    }
    c->count[l]++;
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError scatter_reduce(const char *op, AtenTensorHandle out, AtenTensorHandle self,
                                     int64_t dim, AtenTensorHandle index, AtenTensorHandle src,
                                     const char *reduce, bool include_self, bool legacy) {
    if (check_live(op, out, "out") || check_live(op, self, "self") ||
        check_live(op, index, "index") || check_live(op, src, "src"))
        return AOTI_TORCH_FAILURE;
    if (!reduce) return shimrt_fail(op, "argument 'reduce' is NULL");
    if (legacy) reduce = !strcmp(reduce, "add") ? "sum" : !strcmp(reduce, "multiply") ? "prod" : "";
    int r = -1;
    if (!strcmp(reduce, "sum"))
        r = R_SUM;
    else if (!strcmp(reduce, "prod"))
        r = R_PROD;
    else if (!strcmp(reduce, "mean"))
        r = R_MEAN;
    else if (!strcmp(reduce, "amax") || !strcmp(reduce, "max"))
        r = R_AMAX; /* PyTorch's */
    else if (!strcmp(reduce, "amin") || !strcmp(reduce, "min"))
        r = R_AMIN; /* aliases */
    if (shimrt_idx_wrap_dim(op, &dim, self->ndim)) return AOTI_TORCH_FAILURE;
    if (src->dtype != self->dtype)
        return shimrt_fail(op, "Expected self.dtype to be equal to src.dtype");
    if (shimrt_k_scatter_index_check(op, self, dim, index, src, false) ||
        prepare_out(op, out, self, index, src))
        return AOTI_TORCH_FAILURE;
    /* the kernel's dtype dispatch: uint16/32/64 sum and prod, complex sum, prod and mean */
    bool cx = self->dtype == SHIMRT_COMPLEX64 || self->dtype == SHIMRT_COMPLEX128;
    bool bare = self->dtype == SHIMRT_UINT16 || self->dtype == SHIMRT_UINT32 ||
                self->dtype == SHIMRT_UINT64;
    /* (an empty index runs no kernel; mean's counts and floor division still run) */
    bool kern = shimrt_numel(index) > 0;
    /* include_self=False first sets the indexed elements to the reduction's identity, in a
     * dispatch of every dtype but uint16/32/64 (before the reduction's own) */
    if (r >= 0 && bare && kern && !include_self)
        return shimrt_fail(op, "\"scatter_reduce_exclude_input_init\" not implemented for '%s'",
                           shimrt_dtype_torch_name(self->dtype));
    if (r >= 0 && (cx || bare) &&
        (((r == R_AMAX || r == R_AMIN) && kern) || (bare && r == R_MEAN))) {
        static const char *const rn[] = {"sum", "prod", "mean", "amax", "amin"};
        char k[64];
        snprintf(k, sizeof k, "scatter_gather_tensor_cpu_reduce_%s", rn[r]);
        /* (mean of an empty index: the counts, in out's dtype, fail at their masked_fill_) */
        return shimrt_fail(op, "\"%s\" not implemented for '%s'", kern ? k : "masked_fill",
                           shimrt_dtype_torch_name(self->dtype));
    }
    if (r >= 0 && !cx && !bare && !shimrt_idx_numeric(self->dtype))
        return shimrt_fail(op, "dtype %s is not supported", shimrt_dtype_name(self->dtype));
    /* PyTorch's meta checks the reduce name after it resized out */
    if (r < 0 && legacy) return shimrt_fail(op, "reduce argument must be either add or multiply.");
    if (r < 0)
        return shimrt_fail(op,
                           "reduce argument must be either sum, prod, mean, amax or amin, "
                           "got %s",
                           reduce);
    /* PyTorch: out holds self by now; its mean kernel, and the floor division by the counts
     * that follows even for an empty index, have no bool case */
    if (r == R_MEAN && out->dtype == SHIMRT_BOOL)
        return shimrt_fail(op, "\"%s\" not implemented for 'Bool'",
                           shimrt_numel(index) ? "scatter_gather_tensor_cpu_reduce_mean"
                                               : "div_floor_cpu");
    int64_t n = shimrt_numel(out);
    size_t cells = n ? (size_t)n : 1;
    reduce_ctx c = {out,
                    src,
                    r,
                    calloc(cells, sizeof(long double)),
                    calloc(cells, sizeof(int64_t)),
                    calloc(cells, sizeof(bool)),
                    cx ? calloc(cells, sizeof(long double)) : NULL};
    AOTITorchError rc = AOTI_TORCH_SUCCESS;
    if (!c.acc || !c.count || !c.touched || (cx && !c.im)) {
        rc = shimrt_fail(op, "out of memory");
        goto done;
    }
    if (include_self) {
        int64_t idx[SHIMRT_MAX_DIMS] = {0};
        if (n) do {
                int64_t l = linear_of(out, idx);
                if (cx)
                    cx_load(shimrt_idx_at(out, idx), out->dtype, &c.acc[l], &c.im[l]);
                else
                    c.acc[l] = shimrt_idx_load(shimrt_idx_at(out, idx), out->dtype);
                c.count[l] = 1;
                c.touched[l] = true;
            } while (shimrt_idx_next(out->ndim, out->sizes, idx));
    }
    rc = walk_index(op, index, out, dim, reduce_step, &c);
    if (rc) goto done;
    int64_t idx[SHIMRT_MAX_DIMS] = {0};
    if (n) do {
            int64_t l = linear_of(out, idx);
            if (!c.touched[l] || c.count[l] == 0) {
                /* complex mean: PyTorch divides every element (by a count of 1 here: an inf
                 * part makes the other NaN in c10's division) */
                if (!(cx && r == R_MEAN)) continue;
                cx_load(shimrt_idx_at(out, idx), out->dtype, &c.acc[l], &c.im[l]);
                c.count[l] = 1;
            }
            long double v = c.acc[l];
            if (cx) { /* rounded to the parts' type; mean: PyTorch's div_ by a complex count,
                         c10's scaled division by (n, 0): each part times 1 / n */
                double p[2] = {(double)v, (double)c.im[l]};
                if (out->dtype == SHIMRT_COMPLEX64) {
                    float a = (float)v, b = (float)c.im[l];
                    if (r == R_MEAN) {
                        float scl = 1.0f / (float)c.count[l];
                        a = fmaf(b, 0.0f, (float)v) * scl;
                        b = fmaf(-(float)v, 0.0f, b) * scl;
                    }
                    p[0] = a, p[1] = b;
                } else if (r == R_MEAN) {
                    double scl = 1.0 / (double)c.count[l];
                    p[0] = fma(p[1], 0.0, (double)v) * scl;
                    p[1] = fma(-(double)v, 0.0, (double)c.im[l]) * scl;
                }
                shimrt_dtype_convert(shimrt_idx_at(out, idx), out->dtype, p, SHIMRT_COMPLEX128);
                continue;
            }
            if (r == R_MEAN) {
                v = v / (long double)c.count[l];
                if (!is_floatish(out->dtype)) v = floorl(v);
            }
            shimrt_idx_store(shimrt_idx_at(out, idx), out->dtype, v);
        } while (shimrt_idx_next(out->ndim, out->sizes, idx));
done:
    free(c.acc);
    free(c.im);
    free(c.count);
    free(c.touched);
    return rc;
}

AOTITorchError shimrt_idx_scatter_reduce(const char *op, AtenTensorHandle out,
                                         AtenTensorHandle self, int64_t dim, AtenTensorHandle index,
                                         AtenTensorHandle src, const char *reduce,
                                         bool include_self) {
    return scatter_reduce(op, out, self, dim, index, src, reduce, include_self, false);
}

AOTITorchError shimrt_idx_scatter_reduce_legacy(const char *op, AtenTensorHandle out,
                                                AtenTensorHandle self, int64_t dim,
                                                AtenTensorHandle index, AtenTensorHandle src,
                                                const char *reduce) {
    return scatter_reduce(op, out, self, dim, index, src, reduce, true, true);
}

static AOTITorchError gather_step(const int64_t *pos, const int64_t *tgt, void *vctx) {
    copy_ctx *c = vctx; /* here out is the gathered result, src is self */
    memcpy(shimrt_idx_at(c->out, pos), shimrt_idx_at(c->src, tgt), c->elsize);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_idx_gather(const char *op, AtenTensorHandle self, int64_t dim,
                                 AtenTensorHandle index, AtenTensorHandle out) {
    if (check_live(op, out, "out") || check_live(op, self, "self") ||
        check_live(op, index, "index"))
        return AOTI_TORCH_FAILURE;
    if (shimrt_idx_wrap_dim(op, &dim, self->ndim)) return AOTI_TORCH_FAILURE;
    if (out->dtype != self->dtype)
        return shimrt_fail(op, "Expected out tensor to have dtype %s, but got %s instead",
                           shimrt_dtype_name(self->dtype), shimrt_dtype_name(out->dtype));
    /* PyTorch's gather meta: out resized to index's shape first, then the overlap, index
     * dtype and shape checks */
    if (shimrt_resize_output(op, out, index->ndim, index->sizes) ||
        shimrt_k_out_no_overlap(op, out, self, index) ||
        shimrt_k_scatter_index_check(op, self, dim, index, NULL, true))
        return AOTI_TORCH_FAILURE;
    copy_ctx c = {out, self, shimrt_dtype_size(self->dtype)};
    return walk_index(op, index, self, dim, gather_step, &c);
}

AOTITorchError shimrt_idx_index_select(const char *op, AtenTensorHandle self, int64_t dim,
                                       AtenTensorHandle index, AtenTensorHandle out) {
    if (check_live(op, out, "out") || check_live(op, self, "self") ||
        check_live(op, index, "index"))
        return AOTI_TORCH_FAILURE;
    if (shimrt_k_index_select_check(op, self, dim, index, &dim)) return AOTI_TORCH_FAILURE;
    int64_t k = shimrt_numel(index), limit = self->ndim ? self->sizes[dim] : 1;
    if (out->dtype != self->dtype)
        return shimrt_fail(op, "index_select(): self and result must have the same scalar type");
    size_t elsize = shimrt_dtype_size(self->dtype);
    int64_t shape[SHIMRT_MAX_DIMS];
    for (int64_t d = 0; d < self->ndim; d++) shape[d] = d == dim ? k : self->sizes[d];
    if (shimrt_k_out_no_overlap(op, out, self, index) ||
        shimrt_resize_output(op, out, self->ndim, shape))
        return AOTI_TORCH_FAILURE;
    /* the indices are checked after the resize, as PyTorch's kernel does */
    int64_t zero[1] = {0};
    for (int64_t j = 0; j < k; j++) {
        int64_t jj[1] = {j};
        if (shimrt_k_index_in_range(op, index_value(index, index->ndim ? jj : zero), limit))
            return AOTI_TORCH_FAILURE;
    }
    if (shimrt_numel(out) == 0) return AOTI_TORCH_SUCCESS;
    int64_t idx[SHIMRT_MAX_DIMS] = {0}, sidx[SHIMRT_MAX_DIMS];
    do {
        memcpy(sidx, idx, (size_t)out->ndim * sizeof *idx);
        if (out->ndim) {
            int64_t jj[1] = {idx[dim]};
            sidx[dim] = index_value(index, index->ndim ? jj : zero);
        }
        memcpy(shimrt_idx_at(out, idx), shimrt_idx_at(self, sidx), elsize);
    } while (shimrt_idx_next(out->ndim, out->sizes, idx));
    return AOTI_TORCH_SUCCESS;
}

/* ---- the AOTInductor extern kernels ---- */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_scatter_out(AtenTensorHandle out, AtenTensorHandle self,
                                                        int64_t dim, AtenTensorHandle index,
                                                        AtenTensorHandle src) {
    return shimrt_idx_scatter(__func__, out, self, dim, index, src);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_scatter_reduce_out(
    AtenTensorHandle out, AtenTensorHandle self, int64_t dim, AtenTensorHandle index,
    AtenTensorHandle src, const char *reduce, int32_t include_self) {
    return shimrt_idx_scatter_reduce(__func__, out, self, dim, index, src, reduce,
                                     include_self != 0);
}

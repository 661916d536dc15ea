/* runtime/cpu/backward_dist.c: the pairwise-distance ops of c_shim_cpu.h that libshimrt had
 * not: _pdist_forward, _pdist_backward, _cdist_backward (float32 / float64, as PyTorch).
 *
 * PyTorch's CPU kernels (DistanceOpsKernel): the norm by p (0, 1, 2, inf, other; the backward
 * of 1 <= p < 2 has its own form), each pair's gradient added to the rows in PyTorch's order
 * (pdist: pair (i, j) adds to row i and subtracts from row j, pairs in order; cdist: each
 * x1 row sums over the x2 rows in order) in the dtype's own arithmetic. PyTorch vectorizes
 * the coordinates with SLEEF's pow and sums the forward norms lane by lane, so values agree
 * within a few ulps, not bit for bit. Where PyTorch's kernels index past a too-small grad,
 * dist or x2 (they check none of their shapes) libshimrt refuses with a message. */
#include <math.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"

/* NaN-propagating sign, as PyTorch's vectorized sign (ceil/floor clamped) gives it. */
static double sgn(double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : v == 0 ? 0.0 : v; }

typedef struct {
    double p;
    int kind; /* 0: p == 0, 1: p == 1, 2: p < 2, 3: p == 2, 4: inf, 5: other */
    bool f32;
} dist_p;

static dist_p dist_kind(double p, bool f32) {
    dist_p d = {p, 5, f32};
    if (p == 0.0)
        d.kind = 0;
    else if (p == 1.0)
        d.kind = 1;
    else if (p < 2.0)
        d.kind = 2;
    else if (p == 2.0)
        d.kind = 3;
    else if (isinf(p))
        d.kind = 4;
    return d;
}

/* One coordinate's gradient for difference diff, pair gradient grad and distance dist
 * (PyTorch's backward of each norm, its operation order; float32 rounded at each step). */
static double dist_grad(const dist_p *q, double diff, double grad, double dist) {
#define R(x) (q->f32 ? (double)(float)(x) : (x))
#define POW(a, b) (q->f32 ? (double)powf((float)(a), (float)(b)) : pow((a), (b)))
    double p = q->p;
    switch (q->kind) {
    case 1: return R(grad * sgn(diff));
    case 2: {
        if (dist == 0.0 || (diff == 0.0 && p < 1)) return 0.0;
        double pm1 = R(p - 1);
        double a = R(sgn(diff) * POW(fabs(diff), pm1));
        return R(R(a * grad) / POW(dist, pm1));
    }
    case 3: return dist == 0.0 ? 0.0 : R(R(grad * diff) / dist);
    case 4: {
        double e = R(fabs(diff) - dist);
        double m = ceil(fabs(e));
        m = m >= 1 ? 1 : m; /* (NaN stays NaN) */
        return R(R(grad * sgn(diff)) * R(1 - m));
    }
    case 5: {
        if (dist == 0.0) return 0.0;
        double a = R(diff * POW(fabs(diff), R(p - 2)));
        return R(R(a * grad) / POW(dist, R(p - 1)));
    }
    default: return 0.0;
    }
#undef R
#undef POW
}

/* The norm of rows a and b (m values). */
static double dist_norm(const dist_p *q, const double *a, const double *b, int64_t m) {
    double agg = 0;
    for (int64_t x = 0; x < m; x++) {
        double d = fabs(a[x] - b[x]), v;
        if (q->f32) d = (float)d;
        switch (q->kind) {
        case 0: v = ceil(d) >= 1 ? 1 : ceil(d); break;
        case 1:
        case 4: v = d; break;
        case 3: v = d * d; break;
        default: v = q->f32 ? (double)powf((float)d, (float)q->p) : pow(d, q->p);
        }
        if (q->kind == 4)
            agg = isnan(v) || v > agg ? v : agg;
        else
            agg += v;
        if (q->f32) agg = (float)agg;
    }
    if (q->kind == 3) return q->f32 ? (double)sqrtf((float)agg) : sqrt(agg);
    if (q->kind == 2 || q->kind == 5) /* std::pow(float agg, 1.0 / p): a double pow, rounded once */
        return q->f32 ? (double)(float)pow((double)(float)agg, 1.0 / q->p) : pow(agg, 1.0 / q->p);
    return agg;
}

/* A contiguous float64 copy of t (the values of float32 exactly). */
static AtenTensorHandle as_f64(const char *op, AtenTensorHandle t, int64_t ndim,
                               const int64_t *sizes) {
    AtenTensorHandle r = shimrt_k_new(op, ndim, sizes, SHIMRT_FLOAT64);
    if (r && shimrt_k_copy(op, r, t)) {
        shimrt_tensor_free(r);
        return NULL;
    }
    return r;
}

static AOTITorchError dist_dtype(const char *op, const char *kernel, int32_t dt) {
    if (dt == SHIMRT_FLOAT32 || dt == SHIMRT_FLOAT64) return AOTI_TORCH_SUCCESS;
    return shimrt_fail(op, "\"%s\" not implemented for '%s'", kernel, shimrt_dtype_torch_name(dt));
}

static AOTITorchError same_scalar(const char *op, int32_t want, AtenTensorHandle t) {
    if (t->dtype == want) return AOTI_TORCH_SUCCESS;
    return shimrt_fail(op, "expected scalar type %s but found %s", shimrt_dtype_torch_name(want),
                       shimrt_dtype_torch_name(t->dtype));
}

/* r (float64 values, freed) into a new tensor of dtype dt. */
static AOTITorchError hand(const char *op, AtenTensorHandle r, int32_t dt, AtenTensorHandle *ret0) {
    AtenTensorHandle o = r ? shimrt_k_new(op, r->ndim, r->sizes, dt) : NULL;
    AOTITorchError err = o ? shimrt_k_copy(op, o, r) : AOTI_TORCH_FAILURE;
    shimrt_tensor_free(r);
    return shimrt_k_hand_out(err, o, ret0);
}

AOTITorchError shimrt_cpu__pdist_forward(AtenTensorHandle self, double p, AtenTensorHandle *ret0) {
    static const char op[] = "_pdist_forward";
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    /* complex and uint16/32/64 selfs pass until the kernel (none for them) is reached */
    int32_t dt = shimrt_tensor_valid(self) && self->defined ? self->dtype : -1;
    bool no_kernel = shimrt_dtype_is_complex(dt) || dt == SHIMRT_UINT16 || dt == SHIMRT_UINT32 ||
                     dt == SHIMRT_UINT64;
    if (!no_kernel && shimrt_k_check_dtype(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (!shimrt_is_contiguous(self))
        return shimrt_fail(op, "_pdist_forward requires contiguous input");
    /* (PyTorch reads size(0), and size(1) only for more than one row) */
    if (self->ndim == 0 || (self->ndim < 2 && self->sizes[0] > 1))
        return shimrt_fail(
            op, "Dimension out of range (expected to be in range of [%lld, %lld], but got %d)",
            (long long)-(self->ndim ? self->ndim : 1), (long long)(self->ndim ? self->ndim - 1 : 0),
            self->ndim ? 1 : 0);
    int64_t n = self->sizes[0], c = n > 1 ? n * (n - 1) / 2 : 0;
    if (c > 0 && self->sizes[1] > 0 && dist_dtype(op, "pdist", self->dtype))
        return AOTI_TORCH_FAILURE;
    if (c > 0 && self->sizes[1] > 0 && shimrt_numel(self) == 0) /* (e.g. [3, 1, 0]) */
        return shimrt_fail(op,
                           "%s: self has no elements but %lld rows of %lld values (PyTorch's "
                           "kernel would index out of bounds)",
                           op, (long long)n, (long long)self->sizes[1]);
    if (no_kernel) { /* no pair, or rows of no values: c zeros */
        AtenTensorHandle z = shimrt_k_new(op, 1, &c, dt);
        if (z && c > 0) memset(shimrt_data(z), 0, (size_t)c * shimrt_dtype_size(dt));
        return shimrt_k_give(z, ret0);
    }
    AtenTensorHandle r = shimrt_k_new(op, 1, &c, SHIMRT_FLOAT64);
    if (!r) return AOTI_TORCH_FAILURE;
    if (c > 0) {
        /* PyTorch's kernel walks the pairs (i, j), i < j, of all the rows of size(1) values
         * the data holds (size(0) of them for a 2-d self), the first c of them */
        int64_t m = self->sizes[1], all = shimrt_numel(self), rows = m ? all / m : n;
        AtenTensorHandle x = as_f64(op, self, self->ndim, self->sizes);
        if (!x) {
            shimrt_tensor_free(r);
            return AOTI_TORCH_FAILURE;
        }
        /* PyTorch's forward kernel takes p in self's dtype, then picks the norm by it (a
         * float32 p of 1e300 is the inf norm, of 1e-300 the 0 norm) */
        bool f32 = self->dtype == SHIMRT_FLOAT32;
        dist_p q = dist_kind(f32 ? (double)(float)p : p, f32);
        if (isinf(q.p)) q.kind = 4; /* -inf too: the forward tests isinf before the rest */
        const double *xv = shimrt_data(x);
        double *rv = shimrt_data(r);
        for (int64_t i = 0, k = 0; i < rows && k < c; i++)
            for (int64_t j = i + 1; j < rows && k < c; j++)
                rv[k++] = m ? dist_norm(&q, xv + i * m, xv + j * m, m) : 0;
        shimrt_tensor_free(x);
    }
    return hand(op, r, self->dtype, ret0);
}

AOTITorchError shimrt_cpu__pdist_backward(AtenTensorHandle grad, AtenTensorHandle self, double p,
                                          AtenTensorHandle pdist, AtenTensorHandle *ret0) {
    static const char op[] = "_pdist_backward";
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, grad, "grad") ||
        shimrt_k_check_cpu(op, pdist, "pdist") || shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    if (!shimrt_is_contiguous(self))
        return shimrt_fail(op, "_pdist_backward requires self to be contiguous");
    if (!shimrt_is_contiguous(pdist))
        return shimrt_fail(op, "_pdist_backward requires pdist to be contiguous");
    AtenTensorHandle r = shimrt_k_new(op, self->ndim, self->sizes, SHIMRT_FLOAT64);
    if (!r) return AOTI_TORCH_FAILURE;
    int64_t total = shimrt_numel(self);
    if (total > 0) memset(shimrt_data(r), 0, (size_t)total * sizeof(double));
    if (dist_dtype(op, "pdist_backward", self->dtype)) {
        shimrt_tensor_free(r);
        return AOTI_TORCH_FAILURE;
    }
    if (p == 0.0) return hand(op, r, self->dtype, ret0);
    /* PyTorch's kernel reads self.size(0), self.size(1), grad.stride(0), then the data of
     * grad and pdist as self's dtype, whatever the sizes */
    AOTITorchError err = AOTI_TORCH_SUCCESS;
    if (self->ndim == 1)
        err = shimrt_fail(op, "Dimension out of range (expected to be in range of [-1, 0], "
                              "but got 1)");
    else if (self->ndim == 0 || grad->ndim == 0)
        err = shimrt_fail(op, "Dimension specified as 0 but tensor has no dimensions");
    if (!err) err = same_scalar(op, self->dtype, grad) || same_scalar(op, self->dtype, pdist);
    if (!err && total == 0) /* (PyTorch dies dividing by 0 rows of more than 0 columns) */
        return hand(op, r, self->dtype, ret0);
    int64_t n = self->ndim ? self->sizes[0] : 0, m = self->ndim > 1 ? self->sizes[1] : 0;
    int64_t c = n * (n - 1) / 2;
    /* grad is read with its stride(0), c values; pdist c values; self as n rows of m */
    if (!err && (self->ndim != 2 || grad->ndim < 1 || shimrt_numel(grad) < c ||
                 shimrt_numel(pdist) < c || (c > 0 && grad->sizes[0] < c)))
        err = shimrt_fail(op,
                          "%s: expected a 2-D self of n rows and grad, pdist of n * (n - 1) / 2 "
                          "values (PyTorch's kernel would index out of bounds)",
                          op);
    AtenTensorHandle x = NULL, g = NULL, d = NULL;
    if (!err) {
        int64_t gs = grad->strides[0];
        g = shimrt_k_new(op, 1, &c, SHIMRT_FLOAT64);
        AtenTensorHandle gv = g ? shimrt_k_alias(op, grad, 1, &c, &gs, grad->storage_offset) : NULL;
        err = !gv || shimrt_k_copy(op, g, gv) ? AOTI_TORCH_FAILURE : AOTI_TORCH_SUCCESS;
        shimrt_tensor_free(gv);
        AtenTensorHandle dv =
            err ? NULL : shimrt_k_alias(op, pdist, 1, &c, (int64_t[]){1}, pdist->storage_offset);
        d = dv ? shimrt_k_new(op, 1, &c, SHIMRT_FLOAT64) : NULL;
        x = d ? as_f64(op, self, 2, self->sizes) : NULL;
        if (!err) err = !x || shimrt_k_copy(op, d, dv) ? AOTI_TORCH_FAILURE : AOTI_TORCH_SUCCESS;
        shimrt_tensor_free(dv);
    }
    if (!err) {
        dist_p q = dist_kind(p, self->dtype == SHIMRT_FLOAT32);
        const double *xv = shimrt_data(x), *gv = shimrt_data(g), *dv = shimrt_data(d);
        double *rv = shimrt_data(r);
        for (int64_t i = 0, k = 0; i < n; i++)
            for (int64_t j = i + 1; j < n; j++, k++)
                for (int64_t t = 0; t < m; t++) {
                    double diff = xv[i * m + t] - xv[j * m + t];
                    if (q.f32) diff = (float)diff;
                    double b = dist_grad(&q, diff, gv[k], dv[k]);
                    rv[i * m + t] += b;
                    rv[j * m + t] -= b;
                    if (q.f32) {
                        rv[i * m + t] = (float)rv[i * m + t];
                        rv[j * m + t] = (float)rv[j * m + t];
                    }
                }
    }
    shimrt_tensor_free(x);
    shimrt_tensor_free(g);
    shimrt_tensor_free(d);
    if (err) {
        shimrt_tensor_free(r);
        return AOTI_TORCH_FAILURE;
    }
    return hand(op, r, self->dtype, ret0);
}

AOTITorchError shimrt_cpu__cdist_backward(AtenTensorHandle grad, AtenTensorHandle x1,
                                          AtenTensorHandle x2, double p, AtenTensorHandle cdist,
                                          AtenTensorHandle *ret0) {
    static const char op[] = "_cdist_backward";
    if (shimrt_k_check_cpu(op, x1, "x1") || shimrt_k_check_cpu(op, x2, "x2") ||
        shimrt_k_check_cpu(op, grad, "grad") || shimrt_k_check_cpu(op, cdist, "cdist"))
        return AOTI_TORCH_FAILURE;
    /* complex and uint16/32/64 pass to the kernel's dtype check (zeros when empty) */
    if (!shimrt_dtype_is_complex(x1->dtype) && x1->dtype != SHIMRT_UINT16 &&
        x1->dtype != SHIMRT_UINT32 && x1->dtype != SHIMRT_UINT64 &&
        shimrt_k_check_dtype(op, x1, "x1"))
        return AOTI_TORCH_FAILURE;
    for (int i = 0; i < 2; i++) {
        AtenTensorHandle t = i ? x2 : x1;
        if (t->ndim < 2)
            return shimrt_fail(
                op, "Dimension out of range (expected to be in range of [%lld, %lld], but got -2)",
                (long long)-(t->ndim ? t->ndim : 1), (long long)(t->ndim ? t->ndim - 1 : 0));
    }
    int64_t c1 = x1->sizes[x1->ndim - 1], c2 = x2->sizes[x2->ndim - 1];
    int64_t r1 = x1->sizes[x1->ndim - 2], r2 = x2->sizes[x2->ndim - 2];
    int64_t bshape[SHIMRT_MAX_DIMS], bnd;
    if (shimrt_k_broadcast(op, x1->ndim - 2, x1->sizes, x2->ndim - 2, x2->sizes, bshape, &bnd))
        return AOTI_TORCH_FAILURE;
    int64_t batch = 1, shape[SHIMRT_MAX_DIMS];
    for (int64_t i = 0; i < bnd; i++) batch *= bshape[i];
    memcpy(shape, bshape, sizeof(int64_t) * (size_t)bnd);
    shape[bnd] = r1;
    shape[bnd + 1] = c1;
    if (r1 == 0 || r2 == 0 || c1 == 0 || batch == 0) { /* zeros_like(x1): its layout */
        int64_t zst[SHIMRT_MAX_DIMS];
        shimrt_k_preserve_strides(x1, zst);
        AtenTensorHandle z =
            shimrt_tensor_empty(op, x1->ndim, x1->sizes, zst, x1->dtype, SHIMRT_DEV_CPU, -1);
        if (z) shimrt_k_fill(z, 0);
        return shimrt_k_give(z, ret0);
    }
    if (dist_dtype(op, "cdist_backward", x1->dtype)) return AOTI_TORCH_FAILURE;
    if (p == 0.0) { /* zeros of x1's expanded shape: PyTorch's kernel reads nothing */
        AtenTensorHandle z = shimrt_k_new(op, bnd + 2, shape, x1->dtype);
        if (z) shimrt_k_fill(z, 0);
        return shimrt_k_give(z, ret0);
    }
    /* (PyTorch's kernel reads grad, cdist, then x2 as x1's dtype) */
    if (same_scalar(op, x1->dtype, grad) || same_scalar(op, x1->dtype, cdist) ||
        same_scalar(op, x1->dtype, x2))
        return AOTI_TORCH_FAILURE;
    int64_t pairs = batch * r1 * r2;
    if (c2 != c1 || shimrt_numel(grad) < pairs || shimrt_numel(cdist) < pairs)
        return shimrt_fail(
            op,
            "%s: x2 must have x1's %lld columns and grad, cdist %lld values (got "
            "%lld columns, %lld and %lld values) (PyTorch's kernel would index out of bounds)",
            op, (long long)c1, (long long)pairs, (long long)c2, (long long)shimrt_numel(grad),
            (long long)shimrt_numel(cdist));
    /* x1 and x2 expanded to the batch (stride 0 where broadcast), then dense */
    int64_t s2[SHIMRT_MAX_DIMS], st1[SHIMRT_MAX_DIMS], st2[SHIMRT_MAX_DIMS];
    memcpy(s2, bshape, sizeof(int64_t) * (size_t)bnd);
    s2[bnd] = r2;
    s2[bnd + 1] = c2;
    AtenTensorHandle srcs[2] = {x1, x2};
    int64_t *sts[2] = {st1, st2};
    for (int t = 0; t < 2; t++) {
        AtenTensorHandle s = srcs[t];
        for (int64_t i = 0; i < bnd + 2; i++) {
            int64_t si = i - (bnd + 2 - s->ndim);
            sts[t][i] = si < 0 || (s->sizes[si] == 1 && i < bnd) ? 0 : s->strides[si];
        }
    }
    AtenTensorHandle e1 = shimrt_k_alias(op, x1, bnd + 2, shape, st1, x1->storage_offset);
    AtenTensorHandle e2 = e1 ? shimrt_k_alias(op, x2, bnd + 2, s2, st2, x2->storage_offset) : NULL;
    AtenTensorHandle a = e2 ? as_f64(op, e1, bnd + 2, shape) : NULL;
    AtenTensorHandle b = a ? as_f64(op, e2, bnd + 2, s2) : NULL;
    shimrt_tensor_free(e1);
    shimrt_tensor_free(e2);
    AtenTensorHandle gv = NULL, dv = NULL, g = NULL, d = NULL;
    if (b) { /* grad and cdist: their first pairs values, dense */
        gv = shimrt_k_new(op, grad->ndim, grad->sizes, SHIMRT_FLOAT64);
        dv = gv ? shimrt_k_new(op, cdist->ndim, cdist->sizes, SHIMRT_FLOAT64) : NULL;
        if (dv && !shimrt_k_copy(op, gv, grad) && !shimrt_k_copy(op, dv, cdist)) {
            g = gv;
            d = dv;
        }
    }
    AtenTensorHandle r = d ? shimrt_k_new(op, bnd + 2, shape, SHIMRT_FLOAT64) : NULL;
    if (r) {
        dist_p q = dist_kind(p, x1->dtype == SHIMRT_FLOAT32);
        const double *av = shimrt_data(a), *bv = shimrt_data(b), *gk = shimrt_data(g),
                     *dk = shimrt_data(d);
        double *rv = shimrt_data(r);
        int64_t m = c1;
        for (int64_t l = 0; l < batch; l++)
            for (int64_t i = 0; i < r1; i++) {
                const double *ai = av + (l * r1 + i) * m;
                double *ri = rv + (l * r1 + i) * m;
                for (int64_t t = 0; t < m; t++) ri[t] = 0;
                for (int64_t j = 0; j < r2; j++) {
                    const double *bj = bv + (l * r2 + j) * m;
                    int64_t k = (l * r1 + i) * r2 + j;
                    for (int64_t t = 0; t < m; t++) {
                        double diff = ai[t] - bj[t];
                        if (q.f32) diff = (float)diff;
                        ri[t] += dist_grad(&q, diff, gk[k], dk[k]);
                        if (q.f32) ri[t] = (float)ri[t];
                    }
                }
            }
    }
    shimrt_tensor_free(a);
    shimrt_tensor_free(b);
    shimrt_tensor_free(gv);
    shimrt_tensor_free(dv);
    if (!r) return AOTI_TORCH_FAILURE;
    return hand(op, r, x1->dtype, ret0);
}

/* runtime/cpu/sortops.c: the line-wise functions of c_shim_cpu.h that AOTInductor CPU graphs
 * call: topk, kthvalue, median, cumsum, cumprod, cummax, cummin, logcumsumexp; sort and
 * sort.stable (argsort and msort are sort's results).
 *
 * Each works on the lines of a dense copy of self along dim (outer x len x inner). Order
 * statistics compare keys read as long double (exact for every int64 and every float), NaN
 * ordered above everything as PyTorch's sort orders it; values are copied from self's own
 * bytes, so they are exact. Scans accumulate as PyTorch's CPU kernels do (at::acc_type:
 * double for float32/float64, float for the half types, int64 for integers) in the result
 * dtype. Lines run in parallel on the runtime's pool. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"
#include "index.h"
#include "shimrt/device.h"

typedef struct {
    AtenTensorHandle c; /* dense (contiguous) self, owned when own */
    bool own;
    int64_t d, outer, len, inner;
    size_t es;
    int32_t dt;
} lines;

static void lines_close(lines *L) {
    if (L->own) shimrt_tensor_free(L->c);
}

/* PyTorch's dispatch failure of `kernel` for a dtype outside the engine's (uint16/32/64,
 * complex): the kernels below compare keys as real numbers */
static AOTITorchError no_kernel(const char *op, const char *kernel, int32_t dt) {
    if (shimrt_k_dtype_ok(dt)) return AOTI_TORCH_SUCCESS;
    return shimrt_fail(op, "\"%s\" not implemented for '%s'", kernel, shimrt_dtype_torch_name(dt));
}

/* self's lines along dim; src_dt: when >= 0, self converted to that dtype first. */
static AOTITorchError lines_open(const char *op, AtenTensorHandle self, int64_t dim, int32_t src_dt,
                                 lines *L) {
    memset(L, 0, sizeof *L);
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    /* the engine's dtypes, and (copied, never compared) uint16/32/64 and complex: the callers
     * refuse them where PyTorch's kernels do */
    if (!shimrt_dtype_is_computable(self->dtype) ||
        (src_dt >= 0 && !shimrt_dtype_is_computable(src_dt)))
        return shimrt_k_check_dtype(op, self, "self");
    int64_t nd = self->ndim ? self->ndim : 1;
    if (shimrt_k_wrap_dim(op, dim, nd, &L->d)) return AOTI_TORCH_FAILURE;
    L->dt = src_dt >= 0 ? src_dt : self->dtype;
    L->es = shimrt_dtype_size(L->dt);
    if (shimrt_is_contiguous(self) && L->dt == self->dtype) {
        L->c = self;
    } else {
        L->c = shimrt_k_new(op, self->ndim, self->sizes, L->dt);
        if (!L->c) return AOTI_TORCH_FAILURE;
        L->own = true;
        if (shimrt_k_copy(op, L->c, self)) {
            lines_close(L);
            return AOTI_TORCH_FAILURE;
        }
    }
    L->outer = L->inner = 1;
    L->len = self->ndim ? self->sizes[L->d] : 1;
    for (int64_t i = 0; i < self->ndim; i++) {
        if (i < L->d) L->outer *= self->sizes[i];
        if (i > L->d) L->inner *= self->sizes[i];
    }
    return AOTI_TORCH_SUCCESS;
}

static inline const char *at(const lines *L, int64_t line, int64_t j) {
    int64_t o = line / L->inner, i = line % L->inner;
    return (const char *)shimrt_data(L->c) + (size_t)((o * L->len + j) * L->inner + i) * L->es;
}

static inline long double key(const char *p, int32_t dt) {
    if (shimrt_k_is_floating(dt)) return (long double)shimrt_k_load_f64(p, dt);
    return (long double)shimrt_k_load_i64(p, dt);
}

typedef struct {
    long double k;
    uint64_t u; /* sort's integer keys (below) */
    int64_t i;
} kv;

/* ---- PyTorch's order among equal keys and NaN -----------------------------------------
 * Which of several equal keys a result takes (its index), and where NaN goes under a
 * comparison that is false for it, follow from the exact algorithms PyTorch's CPU kernels
 * run: topk orders a line with std::partial_sort (k * 64 <= the line's length) or
 * std::nth_element then std::sort of the first k - 1; mode sorts with std::sort and `<`;
 * kthvalue runs ATen's own quickselect (median-of-three pivot, Hoare partition). The wheel
 * is built against GCC's libstdc++, so its introsort/introselect/heap steps are followed
 * here step for step: the same pivots, partitions, heap moves and insertion orders, hence
 * the same permutation of equal keys. libstdc++'s unguarded scans keep a bound here (a
 * comparator that is not a strict weak order, mode's `<` with NaN, must not leave the
 * line); for a valid comparator the bound never stops a scan. */
typedef bool (*kv_less)(const kv *, const kv *);

/* topk, largest: NaN above everything; smallest: NaN after everything */
static bool kv_gt_nan(const kv *x, const kv *y) {
    return (isnan(x->k) && !isnan(y->k)) || x->k > y->k;
}
static bool kv_lt_nan(const kv *x, const kv *y) {
    return (!isnan(x->k) && isnan(y->k)) || x->k < y->k;
}
/* mode: plain `<` (false for NaN either side) */
static bool kv_lt(const kv *x, const kv *y) { return x->k < y->k; }

static inline void kv_swap(kv *a, kv *b) {
    kv t = *a;
    *a = *b;
    *b = t;
}

static int64_t lg2(int64_t n) { return 63 - __builtin_clzll((unsigned long long)n); }

/* the hole at `hole` sifted down to a leaf along the larger children, then val pushed up
 * from there (no higher than top) */
static void heap_adjust(kv *a, int64_t hole, int64_t len, kv val, kv_less lt) {
    int64_t top = hole, child = hole;
    while (child < (len - 1) / 2) {
        child = 2 * (child + 1);
        if (lt(&a[child], &a[child - 1])) child--;
        a[hole] = a[child];
        hole = child;
    }
    if ((len & 1) == 0 && child == (len - 2) / 2) {
        child = 2 * (child + 1);
        a[hole] = a[child - 1];
        hole = child - 1;
    }
    int64_t parent = (hole - 1) / 2;
    while (hole > top && lt(&a[parent], &val)) {
        a[hole] = a[parent];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    a[hole] = val;
}

static void heap_make(kv *a, int64_t len, kv_less lt) {
    if (len < 2) return;
    for (int64_t parent = (len - 2) / 2;; parent--) {
        heap_adjust(a, parent, len, a[parent], lt);
        if (parent == 0) return;
    }
}

/* the top of the heap a[0, len) to *res, *res's old value into the heap */
static void heap_pop(kv *a, int64_t len, kv *res, kv_less lt) {
    kv v = *res;
    *res = a[0];
    heap_adjust(a, 0, len, v, lt);
}

/* std::partial_sort(a, a + mid, a + n) */
static void stl_partial_sort(kv *a, int64_t mid, int64_t n, kv_less lt) {
    heap_make(a, mid, lt);
    for (int64_t i = mid; i < n; i++)
        if (lt(&a[i], &a[0])) heap_pop(a, mid, &a[i], lt);
    for (int64_t len = mid; len > 1;) {
        len--;
        heap_pop(a, len, &a[len], lt);
    }
}

static void median_to_first(kv *r, kv *x, kv *y, kv *z, kv_less lt) {
    if (lt(x, y)) {
        if (lt(y, z))
            kv_swap(r, y);
        else if (lt(x, z))
            kv_swap(r, z);
        else
            kv_swap(r, x);
    } else if (lt(x, z)) {
        kv_swap(r, x);
    } else if (lt(y, z)) {
        kv_swap(r, z);
    } else {
        kv_swap(r, y);
    }
}

/* [lo, hi) split around the median of a[lo + 1], the middle and a[hi - 1] (moved to a[lo]);
 * returns the first position of the upper part */
static int64_t partition_pivot(kv *a, int64_t lo, int64_t hi, kv_less lt) {
    median_to_first(&a[lo], &a[lo + 1], &a[lo + (hi - lo) / 2], &a[hi - 1], lt);
    int64_t f = lo + 1, l = hi;
    for (;;) {
        while (f < hi && lt(&a[f], &a[lo])) f++;
        l--;
        while (l > lo && lt(&a[lo], &a[l])) l--;
        if (!(f < l)) return f;
        kv_swap(&a[f], &a[l]);
        f++;
    }
}

/* a[i] moved down past the larger elements before it (no further than a[0]) */
static void linear_insert(kv *a, int64_t i, kv_less lt) {
    kv v = a[i];
    int64_t j = i;
    while (j > 0 && lt(&v, &a[j - 1])) {
        a[j] = a[j - 1];
        j--;
    }
    a[j] = v;
}

static void insertion_sort(kv *a, int64_t lo, int64_t hi, kv_less lt) {
    for (int64_t i = lo + 1; i < hi; i++) {
        if (lt(&a[i], &a[lo])) {
            kv v = a[i];
            memmove(&a[lo + 1], &a[lo], sizeof *a * (size_t)(i - lo));
            a[lo] = v;
        } else {
            linear_insert(a, i, lt);
        }
    }
}

static void introsort_loop(kv *a, int64_t lo, int64_t hi, int64_t depth, kv_less lt) {
    while (hi - lo > 16) {
        if (depth == 0) {
            stl_partial_sort(a + lo, hi - lo, hi - lo, lt);
            return;
        }
        depth--;
        int64_t cut = partition_pivot(a, lo, hi, lt);
        introsort_loop(a, cut, hi, depth, lt);
        hi = cut;
    }
}

/* std::sort(a, a + n) */
static void stl_sort(kv *a, int64_t n, kv_less lt) {
    if (n <= 0) return;
    introsort_loop(a, 0, n, 2 * lg2(n), lt);
    if (n > 16) {
        insertion_sort(a, 0, 16, lt);
        for (int64_t i = 16; i < n; i++) linear_insert(a, i, lt);
    } else {
        insertion_sort(a, 0, n, lt);
    }
}

/* std::nth_element(a, a + nth, a + n) */
static void stl_nth_element(kv *a, int64_t nth, int64_t n, kv_less lt) {
    if (n <= 0 || nth >= n) return;
    int64_t lo = 0, hi = n, depth = 2 * lg2(n);
    while (hi - lo > 3) {
        if (depth == 0) {
            kv *b = a + lo;
            int64_t mid = nth + 1 - lo, len = hi - lo;
            heap_make(b, mid, lt);
            for (int64_t i = mid; i < len; i++)
                if (lt(&b[i], &b[0])) heap_pop(b, mid, &b[i], lt);
            kv_swap(&a[lo], &a[nth]);
            return;
        }
        depth--;
        int64_t cut = partition_pivot(a, lo, hi, lt);
        if (cut <= nth)
            lo = cut;
        else
            hi = cut;
    }
    insertion_sort(a, lo, hi, lt);
}

/* ATen's quick_select_template (kthvalue): a[k] is the k-th smallest, NaN largest */
static void aten_quick_select(kv *a, int64_t n, int64_t k) {
    int64_t L = 0, R = n - 1;
    for (;;) {
        if (R <= L) return;
        if (R == L + 1) {
            if (kv_gt_nan(&a[L], &a[R])) kv_swap(&a[L], &a[R]);
            return;
        }
        kv_swap(&a[L + (R - L) / 2], &a[L + 1]);
        if (kv_gt_nan(&a[L + 1], &a[R])) kv_swap(&a[L + 1], &a[R]);
        if (kv_gt_nan(&a[L], &a[R])) kv_swap(&a[L], &a[R]);
        if (kv_gt_nan(&a[L + 1], &a[L])) kv_swap(&a[L + 1], &a[L]);
        int64_t i = L + 1, j = R;
        kv piv = a[L];
        for (;;) {
            do i++;
            while (i < R && kv_gt_nan(&piv, &a[i]));
            do j--;
            while (j > L && kv_gt_nan(&a[j], &piv));
            if (j < i) break;
            kv_swap(&a[i], &a[j]);
        }
        kv_swap(&a[L], &a[j]);
        if (j <= k) L = i;
        if (j >= k) R = j - 1;
    }
}

/* The result shape: self's with dim's size replaced by n (keepdim) or removed. */
static int64_t shape_with(const struct AtenTensorOpaque *self, int64_t d, int64_t n, bool keep,
                          int64_t *out) {
    int64_t r = 0;
    for (int64_t i = 0; i < self->ndim; i++) {
        if (i != d)
            out[r++] = self->sizes[i];
        else if (keep)
            out[r++] = n;
    }
    return r;
}

/* ---- order statistics ------------------------------------------------------------------ */
typedef struct {
    const lines *L;
    int64_t k;            /* topk: how many; kthvalue: the (0-based) rank */
    bool desc, kth, sort; /* largest first; kthvalue (one result per line); topk sorted */
    char *vals;           /* [outer, k or 1, inner] */
    int64_t *idx;         /* same shape */
    volatile int oom;     /* a worker could not allocate */
} sel_ctx;

/* A worker's buffer for one line's (key, position) pairs; *oom set when it cannot be had. */
static kv *line_buf(const lines *L, volatile int *oom) {
    kv *buf = malloc(sizeof *buf * (size_t)(L->len ? L->len : 1));
    if (!buf) *oom = 1;
    return buf;
}

/* Line `line`'s keys, each with its position along the line. */
static void line_keys(const lines *L, int64_t line, kv *buf) {
    for (int64_t j = 0; j < L->len; j++) buf[j] = (kv){key(at(L, line, j), L->dt), 0, j};
}

/* The values (self's dtype) and int64 indices results of one shape; NULL each that could not
 * be made (ix too when v could not). */
static void new_pair(const char *op, const struct AtenTensorOpaque *self, int64_t nd,
                     const int64_t *shape, AtenTensorHandle *v, AtenTensorHandle *ix) {
    *v = shimrt_k_new(op, nd, shape, self->dtype);
    *ix = *v ? shimrt_k_new(op, nd, shape, SHIMRT_INT64) : NULL;
}

/* Closes L; on success hands v and ix out, else frees them and returns the failure. */
static AOTITorchError give_pair(lines *L, AOTITorchError err, AtenTensorHandle v,
                                AtenTensorHandle ix, AtenTensorHandle *ret0,
                                AtenTensorHandle *ret1) {
    lines_close(L);
    if (err)
        shimrt_tensor_free(ix);
    else
        *ret1 = ix;
    return shimrt_k_hand_out(err, v, ret0);
}

static void sel_lines(int64_t b, int64_t e, void *vctx) {
    sel_ctx *c = vctx;
    const lines *L = c->L;
    kv *buf = line_buf(L, &c->oom);
    if (!buf) return;
    int64_t nout = c->kth ? 1 : c->k, n = L->len;
    kv_less lt = c->desc ? kv_gt_nan : kv_lt_nan;
    for (int64_t line = b; line < e; line++) {
        line_keys(L, line, buf);
        if (c->kth) {
            aten_quick_select(buf, n, c->k);
        } else if (c->k * 64 <= n) {
            stl_partial_sort(buf, c->k, n, lt);
        } else {
            stl_nth_element(buf, c->k - 1, n, lt);
            if (c->sort) stl_sort(buf, c->k - 1, lt);
        }
        int64_t o = line / L->inner, i = line % L->inner;
        for (int64_t r = 0; r < nout; r++) {
            int64_t src = buf[c->kth ? c->k : r].i;
            int64_t pos = (o * nout + r) * L->inner + i;
            memcpy(c->vals + (size_t)pos * L->es, at(L, line, src), L->es);
            c->idx[pos] = src;
        }
    }
    free(buf);
}

static AOTITorchError select_run(const char *op, lines *L, int64_t k, bool desc, bool kth,
                                 bool sort, AtenTensorHandle v, AtenTensorHandle ix) {
    sel_ctx c = {L, k, desc, kth, sort, shimrt_data(v), shimrt_data(ix), 0};
    int64_t n = L->outer * L->inner;
    if (n > 0 && (kth || k > 0)) torch_parallel_for(0, n, 1, sel_lines, &c);
    if (c.oom) return shimrt_fail(op, "out of memory");
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_topk(AtenTensorHandle self, int64_t k, int64_t dim, int32_t largest,
                               int32_t sorted, AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    static const char op[] = "topk";
    lines L;
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (shimrt_dtype_traits_of(self->dtype) &&
        shimrt_dtype_traits_of(self->dtype)->kind == SHIMRT_KIND_COMPLEX)
        return shimrt_fail(op, " topk does not support complex dtypes on CPU");
    if (self->dtype == SHIMRT_BOOL)
        return shimrt_fail(op, "topk does not support bool dtypes on CPU");
    if (lines_open(op, self, dim, -1, &L)) return AOTI_TORCH_FAILURE;
    if (k < 0 || k > L.len) {
        lines_close(&L);
        return shimrt_fail(op, "selected index k out of range");
    }
    if (self->ndim > 0 && no_kernel(op, "topk_cpu", self->dtype)) { /* a 0-d self is copied */
        lines_close(&L);
        return AOTI_TORCH_FAILURE;
    }
    int64_t shape[SHIMRT_MAX_DIMS];
    int64_t nd = shape_with(self, L.d, k, true, shape);
    AtenTensorHandle v, ix;
    new_pair(op, self, nd, shape, &v, &ix);
    /* a 0-d self is copied whatever k (0 or 1), as PyTorch's topk_out_cpu does */
    int64_t kk = self->ndim == 0 ? 1 : k;
    AOTITorchError err = v && ix ? select_run(op, &L, kk, largest != 0, false, sorted != 0, v, ix)
                                 : AOTI_TORCH_FAILURE;
    return give_pair(&L, err, v, ix, ret0, ret1);
}

AOTITorchError shimrt_cpu_kthvalue(AtenTensorHandle self, int64_t k, int64_t dim, int32_t keepdim,
                                   AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    static const char op[] = "kthvalue";
    lines L;
    if (lines_open(op, self, dim, -1, &L)) return AOTI_TORCH_FAILURE;
    if (self->ndim > 0 && L.len == 0) {
        lines_close(&L);
        return shimrt_fail(op, "kthvalue(): Expected reduction dim %lld to have non-zero size.",
                           (long long)L.d);
    }
    if (k < 1 || k > L.len) {
        lines_close(&L);
        return shimrt_fail(op, "kthvalue(): selected number k out of range for dimension %lld",
                           (long long)L.d);
    }
    if (self->dtype == SHIMRT_BOOL && self->ndim > 0) { /* a 0-d self is copied first */
        lines_close(&L);
        return shimrt_fail(op, "\"kthvalue_cpu\" not implemented for 'Bool'");
    }
    if (self->ndim > 0 && no_kernel(op, "kthvalue_cpu", self->dtype)) {
        lines_close(&L);
        return AOTI_TORCH_FAILURE;
    }
    int64_t shape[SHIMRT_MAX_DIMS];
    int64_t nd = shape_with(self, L.d, 1, keepdim != 0, shape);
    AtenTensorHandle v, ix;
    new_pair(op, self, nd, shape, &v, &ix);
    AOTITorchError err =
        v && ix ? select_run(op, &L, k - 1, false, true, false, v, ix) : AOTI_TORCH_FAILURE;
    return give_pair(&L, err, v, ix, ret0, ret1);
}

/* median and nanmedian of every element (a 0-d result): the lower median; for nanmedian
 * (skip_nan) of the non-NaN values, NaN when there is none; for median NaN when any element is
 * NaN. */
static AOTITorchError median_all(const char *op, AtenTensorHandle self, bool skip_nan,
                                 AtenTensorHandle *ret0) {
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    int64_t n = shimrt_numel(self);
    if (n == 0 && !shimrt_k_dtype_ok(self->dtype) && shimrt_dtype_is_computable(self->dtype)) {
        /* PyTorch: a float NaN converted to self's dtype (uint64: 2^63, complex: NaN + 0i) */
        AtenTensorHandle nan = shimrt_k_new(op, 0, NULL, SHIMRT_FLOAT32);
        AtenTensorHandle r = nan ? shimrt_k_new(op, 0, NULL, self->dtype) : NULL;
        AOTITorchError err = r ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
        if (r) {
            shimrt_k_fill(nan, NAN);
            err = shimrt_k_copy(op, r, nan);
        }
        shimrt_tensor_free(nan);
        return shimrt_k_hand_out(err, r, ret0);
    }
    if (shimrt_dtype_is_computable(self->dtype) && no_kernel(op, "median_cpu", self->dtype))
        return AOTI_TORCH_FAILURE;
    if (shimrt_k_check_dtype(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (self->dtype == SHIMRT_BOOL && n > 0)
        return shimrt_fail(op, "\"median_cpu\" not implemented for 'Bool'");
    AtenTensorHandle flat = shimrt_k_new(op, self->ndim, self->sizes, self->dtype);
    if (!flat) return AOTI_TORCH_FAILURE;
    /* dense, row-major: read as one line */
    AtenTensorHandle r =
        shimrt_k_copy(op, flat, self) ? NULL : shimrt_k_new(op, 0, NULL, self->dtype);
    if (!r) {
        shimrt_tensor_free(flat);
        return AOTI_TORCH_FAILURE;
    }
    lines L = {flat, false, 0, 1, n, 1, shimrt_dtype_size(self->dtype), self->dtype};
    int64_t nans = 0, ix;
    for (int64_t j = 0; j < n && shimrt_k_is_floating(self->dtype); j++)
        nans += isnan(key(at(&L, 0, j), self->dtype)) != 0;
    int64_t valid = skip_nan ? n - nans : n;
    if (valid == 0) {
        shimrt_k_fill(r, NAN);
        shimrt_tensor_free(flat);
        return shimrt_k_give(r, ret0);
    }
    int64_t rank = nans && !skip_nan ? n - 1 : (valid - 1) / 2; /* NaN propagates in median */
    sel_ctx c = {&L, rank, false, true, false, shimrt_data(r), &ix, 0};
    sel_lines(0, 1, &c);
    shimrt_tensor_free(flat);
    if (c.oom) {
        shimrt_tensor_free(r);
        return shimrt_fail(op, "out of memory");
    }
    return shimrt_k_give(r, ret0);
}

AOTITorchError shimrt_cpu_median(AtenTensorHandle self, AtenTensorHandle *ret0) {
    return median_all("median", self, false, ret0);
}

AOTITorchError shimrt_cpu_nanmedian(AtenTensorHandle self, AtenTensorHandle *ret0) {
    return median_all("nanmedian", self, true, ret0);
}

/* ---- scans -------------------------------------------------------------------------------- */
enum { SC_SUM, SC_PROD, SC_MAX, SC_MIN, SC_LSE };
typedef struct {
    const lines *L; /* in the result dtype */
    int kind;
    char *out;
    int64_t *idx; /* cummax / cummin */
} scan_ctx;

/* c10::complex's division z / w (scaled by the larger part of w) as PyTorch's CPU kernels
 * are compiled (AVX2 / AVX-512 with FMA: GCC fuses each a * b + c; measured against
 * logcumsumexp of complex128 on PyTorch 2.15). */
static double complex c10_div_fused(double complex z, double complex w) {
    double a = creal(z), b = cimag(z), c = creal(w), d = cimag(w);
    if (fabs(c) >= fabs(d)) {
        double rat = d / c, scl = 1.0 / fma(d, rat, c);
        return CMPLX(fma(b, rat, a) * scl, fma(-a, rat, b) * scl);
    }
    double rat = c / d, scl = 1.0 / fma(c, rat, d);
    return CMPLX(fma(a, rat, b) * scl, fma(b, rat, -a) * scl);
}

/* PyTorch's complex log-add-exp (logcumsumexp's step, in complex<double>): NaN in either part
 * of either operand gives NaN parts; the operands ordered by real part; equal infinite real
 * parts give the smaller (-inf) or log(exp(min) + exp(max)) (+inf); else
 * log1p(exp(min - max)) + max with c10::complex's log1p (u = 1 + z; z when u == 1; log(u)
 * when u - 1 == z; else log(u) * (z / (u - 1)), the product and quotient fused as compiled). */
static double complex lse_c(double complex x, double complex y) {
    bool xn = isnan(creal(x)) || isnan(cimag(x)), yn = isnan(creal(y)) || isnan(cimag(y));
    if (xn || yn) return CMPLX(NAN, NAN);
    double complex mn = creal(x) < creal(y) ? x : y, mx = creal(x) < creal(y) ? y : x;
    if (!isfinite(creal(mn)) && creal(mn) == creal(mx)) {
        if (creal(mn) < 0) return mn;
        return clog(cexp(mn) + cexp(mx));
    }
    double complex z = cexp(CMPLX(creal(mn) - creal(mx), cimag(mn) - cimag(mx)));
    double complex u = CMPLX(creal(z) + 1.0, cimag(z)), l;
    if (creal(u) == 1.0 && cimag(u) == 0.0) {
        l = z;
    } else {
        l = clog(u);
        double complex um1 = CMPLX(creal(u) - 1.0, cimag(u));
        if (creal(um1) != creal(z) || cimag(um1) != cimag(z)) {
            double complex q = c10_div_fused(z, um1);
            double a = creal(l), b = cimag(l), c = creal(q), d = cimag(q);
            l = CMPLX(fma(a, c, -(b * d)), fma(a, d, b * c));
        }
    }
    return CMPLX(creal(l) + creal(mx), cimag(l) + cimag(mx));
}

/* cumsum / cumprod of complex64 / complex128 lines: PyTorch accumulates in complex<double>
 * (at::acc_type) with c10::complex's operators ((a + bi)(c + di) = (ac - bd) + (ad + bc)i,
 * fused as compiled) and rounds each step to the result dtype. */
static void scan_complex_lines(int64_t b, int64_t e, void *vctx) {
    scan_ctx *c = vctx;
    const lines *L = c->L;
    bool f32 = L->dt == SHIMRT_COMPLEX64;
    for (int64_t line = b; line < e; line++) {
        int64_t o = line / L->inner, i = line % L->inner;
        double re = c->kind == SC_PROD ? 1.0 : (c->kind == SC_LSE ? -INFINITY : 0.0), im = 0.0;
        for (int64_t j = 0; j < L->len; j++) {
            const char *p = at(L, line, j);
            double xr, xi;
            if (f32) {
                float v[2];
                memcpy(v, p, sizeof v);
                xr = v[0];
                xi = v[1];
            } else {
                double v[2];
                memcpy(v, p, sizeof v);
                xr = v[0];
                xi = v[1];
            }
            if (c->kind == SC_LSE) {
                double complex v = lse_c(CMPLX(xr, xi), CMPLX(re, im));
                re = creal(v);
                im = cimag(v);
            } else if (c->kind == SC_SUM) {
                re += xr;
                im += xi;
            } else { /* c10::complex's product as GCC contracts it: (ac - bd) with bd
                        rounded, (ad + bc) with bc rounded (measured: an overflowing bd beside a
                        finite ac gives -inf, not inf - inf) */
                double nr = fma(re, xr, -(im * xi)), ni = fma(re, xi, im * xr);
                re = nr;
                im = ni;
            }
            char *dst = c->out + (size_t)((o * L->len + j) * L->inner + i) * L->es;
            if (f32) {
                float v[2] = {(float)re, (float)im};
                memcpy(dst, v, sizeof v);
            } else {
                double v[2] = {re, im};
                memcpy(dst, v, sizeof v);
            }
        }
    }
}

static void scan_lines(int64_t b, int64_t e, void *vctx) {
    scan_ctx *c = vctx;
    const lines *L = c->L;
    int32_t dt = L->dt;
    bool flt = shimrt_k_is_floating(dt), half = dt == SHIMRT_FLOAT16 || dt == SHIMRT_BFLOAT16;
    for (int64_t line = b; line < e; line++) {
        int64_t o = line / L->inner, i = line % L->inner;
        double fa = c->kind == SC_PROD ? 1.0 : (c->kind == SC_LSE ? -INFINITY : 0.0);
        int64_t ia = c->kind == SC_PROD ? 1 : 0, best = 0;
        for (int64_t j = 0; j < L->len; j++) {
            const char *p = at(L, line, j);
            int64_t pos = (o * L->len + j) * L->inner + i;
            char *dst = c->out + (size_t)pos * L->es;
            if (c->kind == SC_MAX || c->kind == SC_MIN) {
                long double x = key(p, dt), cur = j ? key(at(L, line, best), dt) : 0;
                /* PyTorch: take x when it is NaN, or when the running value is not NaN and
                 * x >= it (max) / x <= it (min): ties move to the later index */
                if (j == 0 || isnan(x) ||
                    (!isnan(cur) && (c->kind == SC_MAX ? x >= cur : x <= cur)))
                    best = j;
                memcpy(dst, at(L, line, best), L->es);
                c->idx[pos] = best;
                continue;
            }
            if (flt) {
                double x = shimrt_k_load_f64(p, dt);
                if (c->kind == SC_SUM) {
                    fa = half ? (double)((float)fa + (float)x) : fa + x;
                } else if (c->kind == SC_PROD) {
                    fa = half ? (double)((float)fa * (float)x) : fa * x;
                } else { /* log(exp(fa) + exp(x)) */
                    double m = fa > x ? fa : x, lo = fa > x ? x : fa;
                    if (isnan(fa) || isnan(x))
                        fa = NAN;
                    else if (isinf(m) && m < 0)
                        fa = -INFINITY;
                    else if (isinf(m))
                        fa = m;
                    else
                        fa = m + log1p(exp(lo - m));
                    if (half) fa = (float)fa;
                }
                shimrt_k_store_f64(dst, dt, fa);
            } else {
                int64_t x = shimrt_k_load_i64(p, dt);
                ia = c->kind == SC_SUM ? (int64_t)((uint64_t)ia + (uint64_t)x)
                                       : (int64_t)((uint64_t)ia * (uint64_t)x);
                shimrt_k_store_i64(dst, dt, ia);
            }
        }
    }
}

/* cumsum / cumprod's result dtype: dtype when given, else int64 for bool and integers. */
static int32_t scan_dtype(const struct AtenTensorOpaque *self, const int32_t *dtype) {
    if (dtype) return *dtype;
    bool cplx = shimrt_dtype_traits_of(self->dtype) &&
                shimrt_dtype_traits_of(self->dtype)->kind == SHIMRT_KIND_COMPLEX;
    return shimrt_k_is_floating(self->dtype) || cplx ? self->dtype : SHIMRT_INT64;
}

/* Whether PyTorch's CPU kernel of the scan takes the result dtype rdt. */
static bool scan_kernel_has(int kind, int32_t rdt) {
    bool cplx = rdt == SHIMRT_COMPLEX64 || rdt == SHIMRT_COMPLEX128;
    switch (kind) {
    case SC_SUM:
    case SC_PROD: return (shimrt_k_dtype_ok(rdt) && rdt != SHIMRT_BOOL) || cplx;
    case SC_LSE: return shimrt_k_is_floating(rdt) || cplx;
    default: return shimrt_k_dtype_ok(rdt);
    }
}

/* kernel: the name of PyTorch's CPU kernel (its dispatch message) */
static AOTITorchError scan(const char *op, const char *kernel, AtenTensorHandle self, int64_t dim,
                           int32_t rdt, int kind, AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    if (!shimrt_dtype_is_computable(rdt)) {
        const char *n = shimrt_dtype_name(rdt);
        return n ? shimrt_fail(op, "\"%s\" not implemented for '%s'", kernel,
                               shimrt_dtype_torch_name(rdt))
                 : shimrt_fail(op, "unknown dtype code %d", (int)rdt);
    }
    lines L;
    if (lines_open(op, self, dim, rdt, &L)) return AOTI_TORCH_FAILURE;
    /* a 0-d self is copied (converted) and an empty one gives empty results: neither reaches
     * PyTorch's kernel, whatever the dtype */
    bool trivial = self->ndim == 0 || shimrt_numel(self) == 0;
    if (!trivial && !scan_kernel_has(kind, rdt)) {
        lines_close(&L);
        return shimrt_fail(op, "\"%s\" not implemented for '%s'", kernel,
                           shimrt_dtype_torch_name(rdt));
    }
    int64_t nd = self->ndim;
    AtenTensorHandle r = shimrt_k_new(op, nd, self->sizes, rdt);
    AtenTensorHandle ix = r && ret1 ? shimrt_k_new(op, nd, self->sizes, SHIMRT_INT64) : NULL;
    if (!r || (ret1 && !ix)) {
        lines_close(&L);
        shimrt_tensor_free(r);
        return AOTI_TORCH_FAILURE;
    }
    scan_ctx c = {&L, kind, shimrt_data(r), ix ? shimrt_data(ix) : NULL};
    int64_t n = L.outer * L.inner;
    if (self->ndim == 0) { /* L holds self as rdt: copied, index 0 */
        memcpy(shimrt_data(r), shimrt_data(L.c), L.es);
        if (ix) *(int64_t *)shimrt_data(ix) = 0;
    } else if (n > 0 && L.len > 0) {
        bool cplx = rdt == SHIMRT_COMPLEX64 || rdt == SHIMRT_COMPLEX128;
        torch_parallel_for(0, n, 1, cplx ? scan_complex_lines : scan_lines, &c);
    }
    lines_close(&L);
    *ret0 = r;
    if (ret1) *ret1 = ix;
    return AOTI_TORCH_SUCCESS;
}

/* cumsum and cumprod: the scan in dtype (self's, promoted, when NULL); an unsigned self is read
 * as that dtype first. */
static AOTITorchError scan_acc(const char *op, AtenTensorHandle self, int64_t dim, int32_t *dtype,
                               int kind, AtenTensorHandle *ret0) {
    AtenTensorHandle u = NULL;
    if (shimrt_k_check_cpu(op, self, "self") ||
        shimrt_k_unsigned_as(self, scan_dtype(self, dtype), &u))
        return AOTI_TORCH_FAILURE;
    AOTITorchError e = scan(op, kind == SC_SUM ? "cumsum_out_cpu" : "cumprod_out_cpu", u ? u : self,
                            dim, scan_dtype(self, dtype), kind, ret0, NULL);
    shimrt_tensor_free(u);
    return e;
}

AOTITorchError shimrt_cpu_cumsum(AtenTensorHandle self, int64_t dim, int32_t *dtype,
                                 AtenTensorHandle *ret0) {
    return scan_acc("cumsum", self, dim, dtype, SC_SUM, ret0);
}

AOTITorchError shimrt_cpu_cumprod(AtenTensorHandle self, int64_t dim, int32_t *dtype,
                                  AtenTensorHandle *ret0) {
    return scan_acc("cumprod", self, dim, dtype, SC_PROD, ret0);
}

AOTITorchError shimrt_cpu_cummax(AtenTensorHandle self, int64_t dim, AtenTensorHandle *ret0,
                                 AtenTensorHandle *ret1) {
    if (shimrt_k_check_cpu("cummax", self, "self")) return AOTI_TORCH_FAILURE;
    return scan("cummax", "cummax_cpu", self, dim, self->dtype, SC_MAX, ret0, ret1);
}

AOTITorchError shimrt_cpu_cummin(AtenTensorHandle self, int64_t dim, AtenTensorHandle *ret0,
                                 AtenTensorHandle *ret1) {
    if (shimrt_k_check_cpu("cummin", self, "self")) return AOTI_TORCH_FAILURE;
    return scan("cummin", "cummin_cpu", self, dim, self->dtype, SC_MIN, ret0, ret1);
}

AOTITorchError shimrt_cpu_logcumsumexp(AtenTensorHandle self, int64_t dim, AtenTensorHandle *ret0) {
    static const char op[] = "logcumsumexp";
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    bool cplx = self->dtype == SHIMRT_COMPLEX64 || self->dtype == SHIMRT_COMPLEX128;
    if (!shimrt_k_is_floating(self->dtype) && !cplx)
        return shimrt_fail(op, "\"logcumsumexp_out_cpu\" not implemented for '%s'",
                           shimrt_dtype_torch_name(self->dtype));
    return scan(op, "logcumsumexp_out_cpu", self, dim, self->dtype, SC_LSE, ret0, NULL);
}

/* mode along dim, as PyTorch's CPU kernel: the line sorted by std::sort with `<`, then the
 * last element of the first longest run of adjacent elements that compare equal (NaN never
 * does), with its position. */
typedef struct {
    const lines *L;
    char *vals;
    int64_t *idx;
    volatile int oom;
} mode_ctx;

static void mode_lines(int64_t b, int64_t e, void *vctx) {
    mode_ctx *c = vctx;
    const lines *L = c->L;
    kv *buf = line_buf(L, &c->oom);
    if (!buf) return;
    for (int64_t line = b; line < e; line++) {
        line_keys(L, line, buf);
        stl_sort(buf, L->len, kv_lt);
        int64_t best = 0, bestn = 0, run = 0;
        for (int64_t j = 0; j < L->len; j++) {
            run++;
            if (j == L->len - 1 || buf[j].k != buf[j + 1].k) {
                if (run > bestn) {
                    bestn = run;
                    best = j;
                }
                run = 0;
            }
        }
        int64_t src = L->len ? buf[best].i : 0;
        memcpy(c->vals + (size_t)line * L->es, at(L, line, src), L->es);
        c->idx[line] = src;
    }
    free(buf);
}

AOTITorchError shimrt_cpu_mode(AtenTensorHandle self, int64_t dim, int32_t keepdim,
                               AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    static const char op[] = "mode";
    lines L;
    if (lines_open(op, self, dim, -1, &L)) return AOTI_TORCH_FAILURE;
    if (L.len == 0 && self->ndim > 0) {
        lines_close(&L);
        return shimrt_fail(op, "mode(): Expected reduction dim %lld to have non-zero size.",
                           (long long)L.d);
    }
    /* a 0-d self is copied; an empty one gives empty results without the kernel */
    if (self->ndim > 0 && shimrt_numel(self) > 0 && no_kernel(op, "mode_cpu", self->dtype)) {
        lines_close(&L);
        return AOTI_TORCH_FAILURE;
    }
    int64_t shape[SHIMRT_MAX_DIMS];
    int64_t nd = shape_with(self, L.d, 1, keepdim != 0, shape);
    AtenTensorHandle v, ix;
    new_pair(op, self, nd, shape, &v, &ix);
    AOTITorchError err = v && ix ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
    if (!err) {
        /* results are [outer, inner]: line = o * inner + i is also the result's position */
        mode_ctx c = {&L, shimrt_data(v), shimrt_data(ix), 0};
        int64_t n = L.outer * L.inner;
        if (n > 0) torch_parallel_for(0, n, 1, mode_lines, &c);
        if (c.oom) err = shimrt_fail(op, "out of memory");
    }
    return give_pair(&L, err, v, ix, ret0, ret1);
}

/* ---- sort and sort.stable -----------------------------------------------------------------
 * PyTorch's CPU kernel sorts each line's (value, index) pairs with std::stable_sort when stable
 * is true, else with std::sort (libstdc++'s introsort, stl_sort above: equal keys of a line
 * longer than 16 leave in its order, not the stable one); ascending NaN last, descending NaN
 * first. Keys: floating dtypes as long double; integers and bool exactly, as uint64 (kv.u,
 * never through long double, which is no wider than double under valgrind): uint16/32/64 as
 * they are, signed ones offset by 2^63. */
static bool kv_u_lt(const kv *x, const kv *y) { return x->u < y->u; }
static bool kv_u_gt(const kv *x, const kv *y) { return x->u > y->u; }

/* std::stable_sort's order (a merge: equal keys keep their order) */
static void merge_sort(kv *x, kv *tmp, int64_t n, kv_less lt) {
    if (n < 2) return;
    int64_t h = n / 2;
    merge_sort(x, tmp, h, lt);
    merge_sort(x + h, tmp, n - h, lt);
    int64_t i = 0, j = h, k = 0;
    while (i < h && j < n) tmp[k++] = lt(&x[j], &x[i]) ? x[j++] : x[i++];
    while (i < h) tmp[k++] = x[i++];
    while (j < n) tmp[k++] = x[j++];
    memcpy(x, tmp, (size_t)n * sizeof *x);
}

static bool is_wide_unsigned(int32_t dt) {
    return dt == SHIMRT_UINT16 || dt == SHIMRT_UINT32 || dt == SHIMRT_UINT64;
}

/* One element's integer sort key (see sort_item.u). */
static uint64_t int_key(const void *p, int32_t dt) {
    switch (dt) {
    case SHIMRT_UINT16: {
        uint16_t v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    case SHIMRT_UINT32: {
        uint32_t v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    case SHIMRT_UINT64: {
        uint64_t v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    default: {
        int64_t v = 0;
        shimrt_dtype_convert(&v, SHIMRT_INT64, p, dt);
        return (uint64_t)v ^ (UINT64_C(1) << 63);
    }
    }
}

/* PyTorch's sort checks on CPU: complex refused by the sort itself, uint16/32/64 taken, any
 * other dtype outside the engine's refused as its dispatch refuses it. */
static AOTITorchError sort_check(const char *op, AtenTensorHandle self, int64_t dim, int64_t *d) {
    if (self && self->device_type == SHIMRT_DEV_CPU && is_wide_unsigned(self->dtype)) {
        if (shimrt_k_wrap_dim(op, dim, self->ndim, d)) return AOTI_TORCH_FAILURE;
        return AOTI_TORCH_SUCCESS;
    }
    if (self && self->device_type == SHIMRT_DEV_CPU && shimrt_dtype_traits_of(self->dtype) &&
        shimrt_dtype_traits_of(self->dtype)->kind == SHIMRT_KIND_COMPLEX)
        return shimrt_fail(op, " Sort does not support complex dtypes on CPU");
    return shimrt_k_sort_check(op, self, dim, SHIMRT_DEV_CPU, d);
}

static AOTITorchError sort_impl(const char *op, AtenTensorHandle self, int64_t dim, bool desc,
                                bool stable, AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    if (sort_check(op, self, dim, &dim)) return AOTI_TORCH_FAILURE;
    bool flt = shimrt_k_is_floating(self->dtype);
    /* PyTorch leaves the indices 0, 1, ... along a dim of stride 0 (equal values); a 1-d
     * ascending sort of at least GRAIN_SIZE (32768) integers goes to its radix sort (stable),
     * whose dispatch has no uint16/32/64 */
    if (self->ndim > 0 && self->strides[dim] == 0)
        stable = true;
    else if (self->ndim == 1 && !desc && !flt && self->dtype != SHIMRT_BOOL &&
             self->sizes[0] >= 32768) {
        if (is_wide_unsigned(self->dtype))
            return shimrt_fail(op, "\"parallel_sort1d_kernel\" not implemented for '%s'",
                               shimrt_dtype_torch_name(self->dtype));
        stable = true;
    }
    kv_less lt = flt ? (desc ? kv_gt_nan : kv_lt_nan) : (desc ? kv_u_gt : kv_u_lt);
    /* PyTorch's sort meta: self's strides when dense, else infer_dense_strides */
    int64_t st[SHIMRT_MAX_DIMS];
    shimrt_k_preserve_strides(self, st);
    AtenTensorHandle vals =
        shimrt_tensor_empty(op, self->ndim, self->sizes, st, self->dtype, SHIMRT_DEV_CPU, -1);
    AtenTensorHandle idxs = vals ? shimrt_tensor_empty(op, self->ndim, self->sizes, st,
                                                       SHIMRT_INT64, SHIMRT_DEV_CPU, -1)
                                 : NULL;
    int64_t len = self->ndim ? self->sizes[dim] : 1;
    kv *buf = malloc((size_t)(len ? len : 1) * 2 * sizeof *buf);
    if (!vals || !idxs || !buf) {
        shimrt_tensor_free(vals);
        shimrt_tensor_free(idxs);
        free(buf);
        return shimrt_fail(op, "out of memory");
    }
    if (shimrt_numel(self) > 0) {
        /* walk every position with index 0 along dim */
        int64_t outer[SHIMRT_MAX_DIMS], idx[SHIMRT_MAX_DIMS] = {0};
        memcpy(outer, self->sizes, (size_t)self->ndim * sizeof *outer);
        if (self->ndim) outer[dim] = 1;
        do {
            int64_t p[SHIMRT_MAX_DIMS];
            memcpy(p, idx, (size_t)self->ndim * sizeof *p);
            for (int64_t j = 0; j < len; j++) {
                if (self->ndim) p[dim] = j;
                const void *e = shimrt_idx_at(self, p);
                if (flt)
                    buf[j].k = shimrt_idx_load(e, self->dtype);
                else
                    buf[j].u = int_key(e, self->dtype);
                buf[j].i = j;
            }
            if (stable)
                merge_sort(buf, buf + len, len, lt);
            else
                stl_sort(buf, len, lt);
            for (int64_t j = 0; j < len; j++) {
                if (self->ndim) p[dim] = j;
                if (self->ndim) idx[dim] = buf[j].i;
                memcpy(shimrt_idx_at(vals, p), shimrt_idx_at(self, idx),
                       shimrt_dtype_size(self->dtype));
                if (self->ndim) idx[dim] = 0;
                shimrt_idx_store(shimrt_idx_at(idxs, p), SHIMRT_INT64, buf[j].i);
            }
        } while (shimrt_idx_next(self->ndim, outer, idx));
    }
    free(buf);
    *ret0 = vals;
    *ret1 = idxs;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_sort(AtenTensorHandle self, int64_t dim, int32_t descending,
                               AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    return sort_impl("sort", self, dim, descending != 0, false, ret0, ret1);
}

AOTITorchError shimrt_cpu_sort_stable(AtenTensorHandle self, int32_t *stable, int64_t dim,
                                      int32_t descending, AtenTensorHandle *ret0,
                                      AtenTensorHandle *ret1) {
    /* stable: None is false */
    return sort_impl("sort.stable", self, dim, descending != 0, stable && *stable, ret0, ret1);
}

/* runtime/cpu/lapack.c: linear algebra through OpenBLAS's LAPACK and BLAS (CPU):
 * cholesky_solve (?potrs), cholesky_inverse (?potri), triangular_solve (?trsm), geqrf (?geqrf),
 * ormqr (?ormqr, ?unmqr) for float32, float64, complex64 and complex128, and lu_unpack (any
 * dtype PyTorch's takes, a plain loop).
 *
 * As PyTorch's CPU kernels, every matrix result is a new batch of column-major (Fortran)
 * matrices: sizes [..., m, n], strides [m * n, 1, m]; batch dimensions of the two operands of
 * cholesky_solve / triangular_solve broadcast. LAPACK is called once per matrix through its
 * Fortran interface (Debian's OpenBLAS has no lapacke.h; 32-bit INTEGERs, hidden string
 * lengths passed). Errors carry PyTorch 2.15's messages after the op prefix ("torch.ormqr: ...",
 * "cholesky_inverse: ..." as PyTorch words them). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"
#include "iter.h"

typedef int lp_int; /* Fortran INTEGER of libopenblas (LP64) */

void spotrs_(const char *uplo, const lp_int *n, const lp_int *nrhs, const float *a,
             const lp_int *lda, float *b, const lp_int *ldb, lp_int *info, size_t);
void dpotrs_(const char *uplo, const lp_int *n, const lp_int *nrhs, const double *a,
             const lp_int *lda, double *b, const lp_int *ldb, lp_int *info, size_t);
void spotri_(const char *uplo, const lp_int *n, float *a, const lp_int *lda, lp_int *info, size_t);
void dpotri_(const char *uplo, const lp_int *n, double *a, const lp_int *lda, lp_int *info, size_t);
void strsm_(const char *side, const char *uplo, const char *transa, const char *diag,
            const lp_int *m, const lp_int *n, const float *alpha, const float *a, const lp_int *lda,
            float *b, const lp_int *ldb, size_t, size_t, size_t, size_t);
void dtrsm_(const char *side, const char *uplo, const char *transa, const char *diag,
            const lp_int *m, const lp_int *n, const double *alpha, const double *a,
            const lp_int *lda, double *b, const lp_int *ldb, size_t, size_t, size_t, size_t);
void sgeqrf_(const lp_int *m, const lp_int *n, float *a, const lp_int *lda, float *tau, float *work,
             const lp_int *lwork, lp_int *info);
void dgeqrf_(const lp_int *m, const lp_int *n, double *a, const lp_int *lda, double *tau,
             double *work, const lp_int *lwork, lp_int *info);
void sormqr_(const char *side, const char *trans, const lp_int *m, const lp_int *n, const lp_int *k,
             const float *a, const lp_int *lda, const float *tau, float *c, const lp_int *ldc,
             float *work, const lp_int *lwork, lp_int *info, size_t, size_t);
void dormqr_(const char *side, const char *trans, const lp_int *m, const lp_int *n, const lp_int *k,
             const double *a, const lp_int *lda, const double *tau, double *c, const lp_int *ldc,
             double *work, const lp_int *lwork, lp_int *info, size_t, size_t);

/* complex64 / complex128: float / double pairs */
void cpotrs_(const char *uplo, const lp_int *n, const lp_int *nrhs, const float *a,
             const lp_int *lda, float *b, const lp_int *ldb, lp_int *info, size_t);
void zpotrs_(const char *uplo, const lp_int *n, const lp_int *nrhs, const double *a,
             const lp_int *lda, double *b, const lp_int *ldb, lp_int *info, size_t);
void cpotri_(const char *uplo, const lp_int *n, float *a, const lp_int *lda, lp_int *info, size_t);
void zpotri_(const char *uplo, const lp_int *n, double *a, const lp_int *lda, lp_int *info, size_t);
void ctrsm_(const char *side, const char *uplo, const char *transa, const char *diag,
            const lp_int *m, const lp_int *n, const float *alpha, const float *a, const lp_int *lda,
            float *b, const lp_int *ldb, size_t, size_t, size_t, size_t);
void ztrsm_(const char *side, const char *uplo, const char *transa, const char *diag,
            const lp_int *m, const lp_int *n, const double *alpha, const double *a,
            const lp_int *lda, double *b, const lp_int *ldb, size_t, size_t, size_t, size_t);

void cgeqrf_(const lp_int *m, const lp_int *n, float *a, const lp_int *lda, float *tau, float *work,
             const lp_int *lwork, lp_int *info);
void zgeqrf_(const lp_int *m, const lp_int *n, double *a, const lp_int *lda, double *tau,
             double *work, const lp_int *lwork, lp_int *info);
void cunmqr_(const char *side, const char *trans, const lp_int *m, const lp_int *n, const lp_int *k,
             const float *a, const lp_int *lda, const float *tau, float *c, const lp_int *ldc,
             float *work, const lp_int *lwork, lp_int *info, size_t, size_t);
void zunmqr_(const char *side, const char *trans, const lp_int *m, const lp_int *n, const lp_int *k,
             const double *a, const lp_int *lda, const double *tau, double *c, const lp_int *ldc,
             double *work, const lp_int *lwork, lp_int *info, size_t, size_t);

/* ?geqrf of dtype dt (float32/64, complex64/128); lwork -1: the workspace query, its size in
 * elements into *wq. */
static void geqrf_any(int32_t dt, const lp_int *m, const lp_int *n, void *a, const lp_int *lda,
                      void *tau, void *work, const lp_int *lwork, lp_int *info, double *wq) {
    double w[2] = {0, 0};
    float wf[2] = {0, 0};
    bool query = *lwork == -1;
    switch (dt) {
    case SHIMRT_FLOAT64: dgeqrf_(m, n, a, lda, tau, query ? w : work, lwork, info); break;
    case SHIMRT_FLOAT32: sgeqrf_(m, n, a, lda, tau, query ? wf : work, lwork, info); break;
    case SHIMRT_COMPLEX128: zgeqrf_(m, n, a, lda, tau, query ? w : work, lwork, info); break;
    default: cgeqrf_(m, n, a, lda, tau, query ? wf : work, lwork, info); break;
    }
    if (query) *wq = dt == SHIMRT_FLOAT64 || dt == SHIMRT_COMPLEX128 ? w[0] : wf[0];
}

/* ?ormqr / ?unmqr of dtype dt, as geqrf_any. */
static void ormqr_any(int32_t dt, const char *side, const char *tr, const lp_int *m,
                      const lp_int *n, const lp_int *k, const void *a, const lp_int *lda,
                      const void *tau, void *c, const lp_int *ldc, void *work, const lp_int *lwork,
                      lp_int *info, double *wq) {
    double w[2] = {0, 0};
    float wf[2] = {0, 0};
    bool query = *lwork == -1;
    switch (dt) {
    case SHIMRT_FLOAT64:
        dormqr_(side, tr, m, n, k, a, lda, tau, c, ldc, query ? w : work, lwork, info, 1, 1);
        break;
    case SHIMRT_FLOAT32:
        sormqr_(side, tr, m, n, k, a, lda, tau, c, ldc, query ? wf : work, lwork, info, 1, 1);
        break;
    case SHIMRT_COMPLEX128:
        zunmqr_(side, tr, m, n, k, a, lda, tau, c, ldc, query ? w : work, lwork, info, 1, 1);
        break;
    default:
        cunmqr_(side, tr, m, n, k, a, lda, tau, c, ldc, query ? wf : work, lwork, info, 1, 1);
        break;
    }
    if (query) *wq = dt == SHIMRT_FLOAT64 || dt == SHIMRT_COMPLEX128 ? w[0] : wf[0];
}

/* "<kernel>" not implemented for '<dtype>' unless dt is float32, float64, complex64 or
 * complex128 (the routines with a complex form here). */
static AOTITorchError check_field(const char *op, const char *kernel, int32_t dt) {
    if (dt == SHIMRT_COMPLEX64 || dt == SHIMRT_COMPLEX128) return AOTI_TORCH_SUCCESS;
    if (dt == SHIMRT_FLOAT32 || dt == SHIMRT_FLOAT64) return AOTI_TORCH_SUCCESS;
    return shimrt_fail(op, "\"%s\" not implemented for '%s'", kernel, shimrt_dtype_torch_name(dt));
}

/* Fails when a matrix dimension does not fit LAPACK's INTEGER. */
static AOTITorchError check_int(const char *op, int64_t nd, const int64_t *sizes) {
    for (int64_t i = 0; i < nd; i++)
        if (sizes[i] > INT_MAX / 2)
            return shimrt_fail(op, "size %lld is too large for LAPACK", (long long)sizes[i]);
    return AOTI_TORCH_SUCCESS;
}

/* A new tensor of sizes [batch..., m, n] in dtype dt with column-major matrices, holding t
 * broadcast to it; NULL with the message set. */
static AtenTensorHandle fortran_copy(const char *op, AtenTensorHandle t, int64_t nd,
                                     const int64_t *sizes, int32_t dt) {
    int64_t st[SHIMRT_MAX_DIMS];
    /* PyTorch's cloneBatchedColumnMajor: mT().clone(contiguous).mT(), contiguous strides
     * taking a size below 1 as 1 */
    int64_t m = sizes[nd - 2], n = sizes[nd - 1], acc = (m > 1 ? m : 1) * (n > 1 ? n : 1);
    st[nd - 2] = 1;
    st[nd - 1] = m > 1 ? m : 1;
    for (int64_t i = nd - 3; i >= 0; i--) {
        st[i] = acc;
        acc *= sizes[i] > 1 ? sizes[i] : 1;
    }
    AtenTensorHandle r = shimrt_tensor_empty(op, nd, sizes, st, dt, SHIMRT_DEV_CPU, 0);
    if (r && t && shimrt_k_copy(op, r, t)) {
        shimrt_tensor_free(r);
        return NULL;
    }
    return r;
}

static int64_t batch_count(int64_t nd, const int64_t *sizes) {
    int64_t b = 1;
    for (int64_t i = 0; i < nd - 2; i++) b *= sizes[i];
    return b;
}

/* The broadcast batch shape of a and b followed by (r, c); *nd its length. */
static AOTITorchError batch_shape(const char *op, AtenTensorHandle a, AtenTensorHandle b,
                                  int64_t *out, int64_t *nd) {
    return shimrt_k_broadcast(op, a->ndim - 2, a->sizes, b->ndim - 2, b->sizes, out, nd);
}

/* ---- float32 trsm / potrs: OpenBLAS's Haswell strsm kernel on inf ------------------------
 * OpenBLAS 0.3.21's strsm kernels for the Haswell family (strsm_kernel_8x4_haswell_L?.c, the
 * core Debian's build picks on Haswell, Zen and Skylake-X without its own) solve four or more
 * right-hand sides a pair of rows at a time in one vector register and subtract the solved row
 * from the pair with a multiplier blended to 0 in that row's own lanes: x - 0 * x, NaN where x
 * is +-inf (measured: diag(1, 1, 1, 1e-40) with a row of 4 right-hand sides [-3, -2, -3, 4]
 * solves to NaN, not -inf, the exact rounded value MKL's and reference BLAS give). Fewer than
 * four right-hand sides take its plain C path. So where a float32 result has a NaN (the only
 * trace that lane leaves), the matrix is solved again from b two columns at a time (the columns
 * are independent). b0 holds the original b (n * k floats), NULL where k < 4. */
static void s_solve(bool potrs, const char *side, const char *uplo, const char *tr,
                    const char *diag, lp_int n, lp_int k, const float *a, lp_int ld, float *x,
                    lp_int *info) {
    const float one = 1.0f;
    if (potrs)
        spotrs_(uplo, &n, &k, a, &ld, x, &ld, info, 1);
    else
        strsm_(side, uplo, tr, diag, &n, &k, &one, a, &ld, x, &ld, 1, 1, 1, 1);
}

static void s_solve_f32(bool potrs, const char *side, const char *uplo, const char *tr,
                        const char *diag, lp_int n, lp_int k, const float *a, lp_int ld, float *x,
                        float *b0, lp_int *info) {
    size_t len = (size_t)n * (size_t)k;
    if (b0) memcpy(b0, x, len * sizeof(float));
    s_solve(potrs, side, uplo, tr, diag, n, k, a, ld, x, info);
    if (!b0 || *info != 0) return;
    size_t i = 0;
    while (i < len && x[i] == x[i]) i++;
    if (i == len) return;
    memcpy(x, b0, len * sizeof(float));
    for (lp_int j = 0; j < k && *info == 0; j += 2)
        s_solve(potrs, side, uplo, tr, diag, n, k - j < 2 ? k - j : 2, a, ld,
                x + (size_t)j * (size_t)n, info);
}

/* ---- a diagonal whose reciprocal overflows --------------------------------------------
 * OpenBLAS's trsm kernels multiply by the reciprocal of each diagonal element, packed once;
 * where that reciprocal overflows (a subnormal float32 diagonal such as 1e-40: 1 / a = inf) they
 * give 0 * inf = NaN for a zero b and inf for a finite quotient. MKL's trsm (PyTorch's) divides
 * (measured on the fuzzer's cases: a division in reference BLAS's order reproduces PyTorch's
 * results where the reciprocal reproduces ours). Such a matrix is solved here by division in
 * that order (netlib's ?TRSM, SIDE = 'L', without its skip of a zero multiplier, which PyTorch's
 * results do not show), column by column; a is n x n column-major, x n x k. */
#define DEF_TRSM_DIV(NAME, T)                                                                      \
    static void NAME(bool upper, bool trans, bool unit, int64_t n, int64_t k, const T *a, T *x) {  \
        for (int64_t j = 0; j < k; j++) {                                                          \
            T *b = x + j * n;                                                                      \
            for (int64_t s = 0; s < n; s++) {                                                      \
                /* back substitution for U x = b and L^T x = b, forward for the others;    \
                 * the rows other than c that column c of A couples: [lo, hi) */       \
                int64_t c = upper != trans ? n - 1 - s : s;                                        \
                int64_t lo = upper ? 0 : c + 1, hi = upper ? c : n;                                \
                if (!trans) {                                                                      \
                    if (!unit) b[c] = b[c] / a[c + c * n];                                         \
                    for (int64_t i = lo; i < hi; i++) b[i] = b[i] - b[c] * a[i + c * n];           \
                } else {                                                                           \
                    T t = b[c];                                                                    \
                    for (int64_t i = lo; i < hi; i++) t = t - a[i + c * n] * b[i];                 \
                    b[c] = unit ? t : t / a[c + c * n];                                            \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
DEF_TRSM_DIV(trsm_div_f32, float)
DEF_TRSM_DIV(trsm_div_f64, double)

/* Whether a non-unit diagonal of the n x n column-major a has an element with 1 / a = inf. */
static bool recip_overflows(bool f32, const void *a, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        if (f32) {
            float d = ((const float *)a)[i + i * n];
            if (d != 0 && isinf(1.0f / d)) return true;
        } else {
            double d = ((const double *)a)[i + i * n];
            if (d != 0 && isinf(1.0 / d)) return true;
        }
    }
    return false;
}

/* op(A) x = b by division (trsm_div_*), or A x = b with A = U^H U / L L^H as potrs (two
 * triangular solves); upper, trans, unit as trsm's uplo, transa, diag. */
static void solve_div(bool f32, bool potrs, bool upper, bool trans, bool unit, int64_t n, int64_t k,
                      const void *a, void *x) {
    bool t1 = potrs ? upper : trans;
    if (f32)
        trsm_div_f32(upper, t1, unit, n, k, a, x);
    else
        trsm_div_f64(upper, t1, unit, n, k, a, x);
    if (!potrs) return;
    if (f32)
        trsm_div_f32(upper, !upper, false, n, k, a, x);
    else
        trsm_div_f64(upper, !upper, false, n, k, a, x);
}

/* ---- complex triangular solves of inf/NaN ----------------------------------------------
 * With an inf or NaN component in b or in the triangle A's solve reads, OpenBLAS's ?trsm
 * (reciprocal of the diagonal by ratios, products in its kernels' lane order) and MKL's (PyTorch's)
 * give different inf/NaN patterns. Measured on the fuzzer's 31 complex cases (seeds 1-10): MKL's
 * results are reference BLAS's order with the plain complex product (ac - bd, ad + bc), and a
 * division that is NaN + NaN i where the divisor has an infinite part (1 / (inf + 0i) too: the
 * exact value and OpenBLAS give 0) and otherwise Smith's, complex64 in double rounded once;
 * 19 of 31 reproduced that way, none by OpenBLAS. Such a system is solved here so, and so is
 * every small one (n <= C_REF_MAX_N): on finite complex64 systems like the fuzzer's (n <= 4,
 * small integers, halves, 1e-40; 1500 random), this solve gave PyTorch's bits for 73% of the
 * elements (OpenBLAS's ctrsm: 65%) and, where they differ, was the closer to the exact solution
 * 2187 times to MKL's 832 (OpenBLAS's ctrsm, whose reciprocal of the diagonal costs ulps: 1666
 * to 3524). Larger systems stay on OpenBLAS's blocked kernels. */
#define C_REF_MAX_N 32
static void cdiv_mkl(double br, double bi, double ar, double ai, double *rr, double *ri) {
    double nan = (double)NAN, q, d;
    if (isinf(ar) || isinf(ai) || (ar == 0 && ai == 0)) {
        *rr = *ri = nan;
    } else if (fabs(ar) >= fabs(ai)) {
        q = ai / ar, d = ar + ai * q;
        *rr = (br + bi * q) / d, *ri = (bi - br * q) / d;
    } else if (fabs(ai) >= fabs(ar)) {
        q = ar / ai, d = ar * q + ai;
        *rr = (br * q + bi) / d, *ri = (bi * q - br) / d;
    } else {
        *rr = *ri = nan; /* a NaN part */
    }
}

/* op(A) x = b, op: A, A^T or (conj) A^H; a n x n, x n x k, column-major interleaved pairs. */
#define DEF_CTRSM_REF(NAME, T)                                                                     \
    static void NAME(bool upper, bool trans, bool conj, bool unit, int64_t n, int64_t k,           \
                     const T *a, T *x) {                                                           \
        for (int64_t j = 0; j < k; j++) {                                                          \
            T *b = x + 2 * j * n;                                                                  \
            for (int64_t s = 0; s < n; s++) {                                                      \
                int64_t c = upper != trans ? n - 1 - s : s;                                        \
                int64_t lo = upper ? 0 : c + 1, hi = upper ? c : n;                                \
                const T *d = a + 2 * (c + c * n);                                                  \
                T dr = d[0], di = trans && conj ? -d[1] : d[1];                                    \
                double qr, qi;                                                                     \
                if (!trans) {                                                                      \
                    if (!unit) {                                                                   \
                        cdiv_mkl(b[2 * c], b[2 * c + 1], dr, di, &qr, &qi);                        \
                        b[2 * c] = (T)qr, b[2 * c + 1] = (T)qi;                                    \
                    }                                                                              \
                    T xr = b[2 * c], xi = b[2 * c + 1];                                            \
                    for (int64_t i = lo; i < hi; i++) {                                            \
                        T ar = a[2 * (i + c * n)], ai = a[2 * (i + c * n) + 1];                    \
                        T pr = xr * ar - xi * ai, pi = xr * ai + xi * ar;                          \
                        b[2 * i] = b[2 * i] - pr, b[2 * i + 1] = b[2 * i + 1] - pi;                \
                    }                                                                              \
                } else {                                                                           \
                    T tr = b[2 * c], ti = b[2 * c + 1];                                            \
                    for (int64_t i = lo; i < hi; i++) {                                            \
                        T ar = a[2 * (i + c * n)], ai = a[2 * (i + c * n) + 1];                    \
                        if (conj) ai = -ai;                                                        \
                        T pr = ar * b[2 * i] - ai * b[2 * i + 1];                                  \
                        T pi = ar * b[2 * i + 1] + ai * b[2 * i];                                  \
                        tr = tr - pr, ti = ti - pi;                                                \
                    }                                                                              \
                    if (!unit) {                                                                   \
                        cdiv_mkl(tr, ti, dr, di, &qr, &qi);                                        \
                        tr = (T)qr, ti = (T)qi;                                                    \
                    }                                                                              \
                    b[2 * c] = tr, b[2 * c + 1] = ti;                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
DEF_CTRSM_REF(ctrsm_ref_f32, float)
DEF_CTRSM_REF(ctrsm_ref_f64, double)

/* Whether the complex n x k x (or the triangle of the n x n a that a solve reads, its diagonal
 * unless unit) has an inf or NaN component; a NULL a: x only. */
static bool c_nonfinite(bool f32, const void *a, bool upper, bool unit, int64_t n, int64_t k,
                        const void *x) {
    for (int64_t c = 0; c < (a ? n : 0); c++)
        for (int64_t i = upper ? 0 : c; i < (upper ? c + 1 : n); i++) {
            if (i == c && unit) continue;
            for (int p = 0; p < 2; p++)
                if (f32 ? !isfinite(((const float *)a)[2 * (i + c * n) + p])
                        : !isfinite(((const double *)a)[2 * (i + c * n) + p]))
                    return true;
        }
    for (int64_t i = 0; i < 2 * n * k; i++)
        if (f32 ? !isfinite(((const float *)x)[i]) : !isfinite(((const double *)x)[i])) return true;
    return false;
}

/* The reference solve: trsm (potrs false: op(A) with trans, no conj) or potrs (A = U^H U or
 * L L^H: two solves, the conjugate transpose first for U, second for L). */
static void c_solve_ref(bool f32, bool potrs, bool upper, bool trans, bool unit, int64_t n,
                        int64_t k, const void *a, void *x) {
    bool t1 = potrs ? upper : trans, c1 = potrs && upper;
    if (f32)
        ctrsm_ref_f32(upper, t1, c1, unit, n, k, a, x);
    else
        ctrsm_ref_f64(upper, t1, c1, unit, n, k, a, x);
    if (!potrs) return;
    if (f32)
        ctrsm_ref_f32(upper, !upper, !upper, false, n, k, a, x);
    else
        ctrsm_ref_f64(upper, !upper, !upper, false, n, k, a, x);
}

/* ---- the common part of cholesky_solve and triangular_solve ---------------------------- */
/* Checks b [..., n, k] against A [..., n, n] (dtypes, squareness, sizes: PyTorch's messages,
 * `name` in the size one, `kernel` in the dtype one) and makes the batch-broadcast
 * column-major copies *x of b and *a of A; *an = n, *bk = k, *nb the batch count. */
static AOTITorchError solve_prep(const char *op, const char *name, const char *kernel,
                                 AtenTensorHandle self, AtenTensorHandle A, AtenTensorHandle *x,
                                 AtenTensorHandle *a, int64_t *an_, int64_t *bk_, int64_t *nb) {
    if (self->dtype != A->dtype)
        return shimrt_fail(op,
                           "Expected b and A to have the same dtype, but found b of type %s and A "
                           "of type %s instead.",
                           shimrt_dtype_torch_name(self->dtype), shimrt_dtype_torch_name(A->dtype));
    int64_t an = A->sizes[A->ndim - 1], am = A->sizes[A->ndim - 2];
    int64_t bn = self->sizes[self->ndim - 2], bk = self->sizes[self->ndim - 1];
    if (am != an)
        return shimrt_fail(
            op, "A must be batches of square matrices, but they are %lld by %lld matrices",
            (long long)am, (long long)an);
    if (bn != an)
        return shimrt_fail(op,
                           "Incompatible matrix sizes for %s: each A matrix is %lld by %lld but "
                           "each b matrix is %lld by %lld",
                           name, (long long)am, (long long)an, (long long)bn, (long long)bk);
    int64_t bs[SHIMRT_MAX_DIMS], nd;
    if (batch_shape(op, self, A, bs, &nd) || check_field(op, kernel, self->dtype))
        return AOTI_TORCH_FAILURE;
    if (nd + 2 > SHIMRT_MAX_DIMS) return shimrt_fail(op, "too many dimensions");
    int64_t xs[SHIMRT_MAX_DIMS], as[SHIMRT_MAX_DIMS];
    memcpy(xs, bs, sizeof(int64_t) * (size_t)nd);
    memcpy(as, bs, sizeof(int64_t) * (size_t)nd);
    xs[nd] = as[nd] = as[nd + 1] = an;
    xs[nd + 1] = bk;
    nd += 2;
    if (check_int(op, nd, xs)) return AOTI_TORCH_FAILURE;
    *x = fortran_copy(op, self, nd, xs, self->dtype);
    *a = *x ? fortran_copy(op, A, nd, as, self->dtype) : NULL;
    if (!*a) {
        shimrt_tensor_free(*x);
        *x = NULL;
        return AOTI_TORCH_FAILURE;
    }
    *an_ = an, *bk_ = bk, *nb = batch_count(nd, xs);
    return AOTI_TORCH_SUCCESS;
}

/* ---- cholesky_solve ----------------------------------------------------------------------- */
AOTITorchError shimrt_cpu_cholesky_solve(AtenTensorHandle self, AtenTensorHandle input2,
                                         int32_t upper, AtenTensorHandle *ret0) {
    static const char op[] = "cholesky_solve";
    shimrt_k_blas_init();
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, input2, "input2"))
        return AOTI_TORCH_FAILURE;
    if (self->ndim < 2)
        return shimrt_fail(op,
                           "b should have at least 2 dimensions, but has %lld dimensions instead",
                           (long long)self->ndim);
    if (input2->ndim < 2)
        return shimrt_fail(op,
                           "u should have at least 2 dimensions, but has %lld dimensions instead",
                           (long long)input2->ndim);
    AtenTensorHandle x, l;
    int64_t an, bk, nb;
    if (solve_prep(op, "cholesky_solve", "cholesky_solve_cpu", self, input2, &x, &l, &an, &bk, &nb))
        return AOTI_TORCH_FAILURE;
    lp_int n = (lp_int)an, k = (lp_int)bk, ld = n > 1 ? n : 1, info = 0;
    const char uplo = upper ? 'U' : 'L';
    float *b0 = NULL;
    if (self->dtype == SHIMRT_FLOAT32 && n > 0 && k >= 4 &&
        !(b0 = malloc((size_t)an * (size_t)bk * sizeof(float)))) {
        shimrt_tensor_free(l);
        shimrt_tensor_free(x);
        return shimrt_fail(op, "out of memory");
    }
    if (n > 0 && k > 0)
        for (int64_t b = 0; b < nb && info == 0; b++) {
            bool real = self->dtype == SHIMRT_FLOAT32 || self->dtype == SHIMRT_FLOAT64;
            bool f32 = self->dtype == SHIMRT_FLOAT32;
            size_t es = shimrt_dtype_size(self->dtype);
            const char *lb = (const char *)shimrt_data(l) + (size_t)(b * an * an) * es;
            char *xb = (char *)shimrt_data(x) + (size_t)(b * an * bk) * es;
            if (real && recip_overflows(f32, lb, an))
                solve_div(f32, true, upper, false, false, an, bk, lb, xb);
            else if (!real && (an <= C_REF_MAX_N || c_nonfinite(self->dtype == SHIMRT_COMPLEX64, lb,
                                                                upper, false, an, bk, xb)))
                c_solve_ref(self->dtype == SHIMRT_COMPLEX64, true, upper, false, false, an, bk, lb,
                            xb);
            else if (self->dtype == SHIMRT_COMPLEX128)
                zpotrs_(&uplo, &n, &k, (double *)shimrt_data(l) + 2 * b * an * an, &ld,
                        (double *)shimrt_data(x) + 2 * b * an * bk, &ld, &info, 1);
            else if (self->dtype == SHIMRT_COMPLEX64)
                cpotrs_(&uplo, &n, &k, (float *)shimrt_data(l) + 2 * b * an * an, &ld,
                        (float *)shimrt_data(x) + 2 * b * an * bk, &ld, &info, 1);
            else if (self->dtype == SHIMRT_FLOAT64)
                dpotrs_(&uplo, &n, &k, (double *)shimrt_data(l) + b * an * an, &ld,
                        (double *)shimrt_data(x) + b * an * bk, &ld, &info, 1);
            else
                s_solve_f32(true, NULL, &uplo, NULL, NULL, n, k,
                            (float *)shimrt_data(l) + b * an * an, ld,
                            (float *)shimrt_data(x) + b * an * bk, b0, &info);
        }
    free(b0);
    shimrt_tensor_free(l);
    if (info < 0) {
        shimrt_tensor_free(x);
        return shimrt_fail(op, "LAPACK potrs: argument %d is invalid", -info);
    }
    return shimrt_k_give(x, ret0);
}

/* ---- cholesky_inverse --------------------------------------------------------------------- */
AOTITorchError shimrt_cpu_cholesky_inverse(AtenTensorHandle self, int32_t upper,
                                           AtenTensorHandle *ret0) {
    static const char op[] = "cholesky_inverse";
    shimrt_k_blas_init();
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (self->ndim < 2)
        return shimrt_fail(op, "The input tensor A must have at least 2 dimensions.");
    int64_t nd = self->ndim, m = self->sizes[nd - 2], n = self->sizes[nd - 1];
    if (m != n)
        return shimrt_fail(op,
                           "A must be batches of square matrices, but they are "
                           "%lld by %lld matrices",
                           (long long)m, (long long)n);
    if (check_field(op, "cholesky_inverse_out_cpu", self->dtype) || check_int(op, nd, self->sizes))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle r = fortran_copy(op, self, nd, self->sizes, self->dtype);
    if (!r) return AOTI_TORCH_FAILURE;
    int64_t nb = batch_count(nd, self->sizes);
    lp_int ln = (lp_int)n, ld = ln > 1 ? ln : 1, info = 0;
    const char uplo = upper ? 'U' : 'L';
    size_t es = shimrt_dtype_size(self->dtype);
    for (int64_t b = 0; b < nb && n > 0; b++) {
        char *p = (char *)shimrt_data(r) + (size_t)(b * n * n) * es;
        /* LAPACK's ?trtri (inside potri) stops at the first exact zero on the diagonal;
         * OpenBLAS's own potri does not check it: the same test first */
        for (int64_t j = 0; j < n && info == 0; j++) {
            const char *d = p + (size_t)(j + j * n) * es;
            bool zero;
            if (self->dtype == SHIMRT_FLOAT32 || self->dtype == SHIMRT_COMPLEX64)
                zero = ((const float *)(const void *)d)[0] == 0 &&
                       (self->dtype == SHIMRT_FLOAT32 || ((const float *)(const void *)d)[1] == 0);
            else
                zero = ((const double *)(const void *)d)[0] == 0 &&
                       (self->dtype == SHIMRT_FLOAT64 || ((const double *)(const void *)d)[1] == 0);
            if (zero) info = (lp_int)(j + 1);
        }
        if (info == 0 && self->dtype == SHIMRT_COMPLEX128)
            zpotri_(&uplo, &ln, (double *)p, &ld, &info, 1);
        else if (info == 0 && self->dtype == SHIMRT_COMPLEX64)
            cpotri_(&uplo, &ln, (float *)p, &ld, &info, 1);
        else if (info == 0 && self->dtype == SHIMRT_FLOAT64)
            dpotri_(&uplo, &ln, (double *)p, &ld, &info, 1);
        else if (info == 0)
            spotri_(&uplo, &ln, (float *)p, &ld, &info, 1);
        if (info != 0) {
            shimrt_tensor_free(r);
            if (info < 0) return shimrt_fail(op, "LAPACK potri: argument %d is invalid", -info);
            char batch[64] = "";
            if (nd > 2) snprintf(batch, sizeof batch, "(Batch element %lld): ", (long long)b);
            return shimrt_fail(op,
                               "%sThe diagonal element %d is zero, the inversion "
                               "could not be completed because the input matrix is singular.",
                               batch, info);
        }
        /* potri wrote one triangle: mirror it (column-major element (i, j) at i + j * n),
         * conjugated for complex (the inverse is Hermitian) */
        bool cx = shimrt_dtype_is_complex(self->dtype);
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = j + 1; i < n; i++) {
                int64_t lo = i + j * n, up = j + i * n;
                char *dst = p + (size_t)(upper ? lo : up) * es;
                memcpy(dst, p + (size_t)(upper ? up : lo) * es, es);
                if (cx && self->dtype == SHIMRT_COMPLEX64)
                    ((float *)(void *)dst)[1] = -((float *)(void *)dst)[1];
                else if (cx)
                    ((double *)(void *)dst)[1] = -((double *)(void *)dst)[1];
            }
    }
    return shimrt_k_give(r, ret0);
}

/* ---- triangular_solve --------------------------------------------------------------------- */
AOTITorchError shimrt_cpu_triangular_solve(AtenTensorHandle self, AtenTensorHandle A, int32_t upper,
                                           int32_t transpose, int32_t unitriangular,
                                           AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    static const char op[] = "torch.triangular_solve";
    shimrt_k_blas_init();
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, A, "A"))
        return AOTI_TORCH_FAILURE;
    if (self->ndim < 2)
        return shimrt_fail(op,
                           "Expected b to have at least 2 dimensions, but "
                           "it has %lld dimensions instead",
                           (long long)self->ndim);
    if (A->ndim < 2)
        return shimrt_fail(op,
                           "Expected A to have at least 2 dimensions, but "
                           "it has %lld dimensions instead",
                           (long long)A->ndim);
    AtenTensorHandle x, a;
    int64_t an, bk, nb;
    if (solve_prep(op, "triangular_solve", "triangular_solve_cpu", self, A, &x, &a, &an, &bk, &nb))
        return AOTI_TORCH_FAILURE;
    lp_int n = (lp_int)an, k = (lp_int)bk, ld = n > 1 ? n : 1;
    const char side = 'L', uplo = upper ? 'U' : 'L', tr = transpose ? 'T' : 'N',
               diag = unitriangular ? 'U' : 'N';
    const double one = 1.0;
    float *b0 = NULL;
    if (self->dtype == SHIMRT_FLOAT32 && n > 0 && k >= 4 &&
        !(b0 = malloc((size_t)an * (size_t)bk * sizeof(float)))) {
        shimrt_tensor_free(a);
        shimrt_tensor_free(x);
        return shimrt_fail(op, "out of memory");
    }
    lp_int info = 0;
    if (n > 0 && k > 0)
        for (int64_t b = 0; b < nb; b++) {
            bool real = self->dtype == SHIMRT_FLOAT32 || self->dtype == SHIMRT_FLOAT64;
            bool f32 = self->dtype == SHIMRT_FLOAT32;
            size_t es = shimrt_dtype_size(self->dtype);
            const char *ab = (const char *)shimrt_data(a) + (size_t)(b * an * an) * es;
            if (real && !unitriangular && recip_overflows(f32, ab, an))
                solve_div(f32, false, upper, transpose, false, an, bk, ab,
                          (char *)shimrt_data(x) + (size_t)(b * an * bk) * es);
            else if (!real &&
                     (an <= C_REF_MAX_N ||
                      c_nonfinite(self->dtype == SHIMRT_COMPLEX64, ab, upper, unitriangular, an, bk,
                                  (char *)shimrt_data(x) + (size_t)(b * an * bk) * es)))
                c_solve_ref(self->dtype == SHIMRT_COMPLEX64, false, upper, transpose, unitriangular,
                            an, bk, ab, (char *)shimrt_data(x) + (size_t)(b * an * bk) * es);
            else if (self->dtype == SHIMRT_COMPLEX128) {
                const double c1[2] = {1, 0};
                ztrsm_(&side, &uplo, &tr, &diag, &n, &k, c1,
                       (double *)shimrt_data(a) + 2 * b * an * an, &ld,
                       (double *)shimrt_data(x) + 2 * b * an * bk, &ld, 1, 1, 1, 1);
            } else if (self->dtype == SHIMRT_COMPLEX64) {
                const float c1[2] = {1, 0};
                ctrsm_(&side, &uplo, &tr, &diag, &n, &k, c1,
                       (float *)shimrt_data(a) + 2 * b * an * an, &ld,
                       (float *)shimrt_data(x) + 2 * b * an * bk, &ld, 1, 1, 1, 1);
            } else if (self->dtype == SHIMRT_FLOAT64)
                dtrsm_(&side, &uplo, &tr, &diag, &n, &k, &one,
                       (double *)shimrt_data(a) + b * an * an, &ld,
                       (double *)shimrt_data(x) + b * an * bk, &ld, 1, 1, 1, 1);
            else
                s_solve_f32(false, &side, &uplo, &tr, &diag, n, k,
                            (float *)shimrt_data(a) + b * an * an, ld,
                            (float *)shimrt_data(x) + b * an * bk, b0, &info);
        }
    free(b0);
    *ret0 = x;
    *ret1 = a;
    return AOTI_TORCH_SUCCESS;
}

/* ---- geqrf -------------------------------------------------------------------------------- */
AOTITorchError shimrt_cpu_geqrf(AtenTensorHandle self, AtenTensorHandle *ret0,
                                AtenTensorHandle *ret1) {
    static const char op[] = "torch.geqrf";
    shimrt_k_blas_init();
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (self->ndim < 2) return shimrt_fail(op, "input must have at least 2 dimensions.");
    if (check_field(op, "geqrf_cpu", self->dtype) || check_int(op, self->ndim, self->sizes))
        return AOTI_TORCH_FAILURE;
    int64_t nd = self->ndim, m = self->sizes[nd - 2], n = self->sizes[nd - 1], k = m < n ? m : n;
    int64_t ts[SHIMRT_MAX_DIMS];
    memcpy(ts, self->sizes, sizeof(int64_t) * (size_t)(nd - 1));
    ts[nd - 2] = k;
    AtenTensorHandle a = fortran_copy(op, self, nd, self->sizes, self->dtype);
    AtenTensorHandle tau = a ? shimrt_k_new(op, nd - 1, ts, self->dtype) : NULL;
    if (!tau) {
        shimrt_tensor_free(a);
        return AOTI_TORCH_FAILURE;
    }
    int64_t nb = batch_count(nd, self->sizes);
    size_t es = shimrt_dtype_size(self->dtype);
    lp_int lm = (lp_int)m, ln = (lp_int)n, ld = lm > 1 ? lm : 1, info = 0, lwork = -1;
    void *work = NULL;
    if (nb > 0 && k > 0) {
        double wq = 0;
        geqrf_any(self->dtype, &lm, &ln, NULL, &ld, NULL, NULL, &lwork, &info, &wq);
        lwork = wq > 1 ? (lp_int)wq : 1;
        work = malloc((size_t)lwork * es);
        if (!work) {
            shimrt_tensor_free(a);
            shimrt_tensor_free(tau);
            return shimrt_fail(op, "out of memory for the LAPACK workspace");
        }
        for (int64_t b = 0; b < nb && info == 0; b++) {
            char *ap = (char *)shimrt_data(a) + (size_t)(b * m * n) * es;
            char *tp = (char *)shimrt_data(tau) + (size_t)(b * k) * es;
            geqrf_any(self->dtype, &lm, &ln, ap, &ld, tp, work, &lwork, &info, NULL);
        }
        free(work);
    }
    if (info != 0) {
        shimrt_tensor_free(a);
        shimrt_tensor_free(tau);
        return shimrt_fail(op, "LAPACK geqrf: argument %d is invalid", -info);
    }
    *ret0 = a;
    *ret1 = tau;
    return AOTI_TORCH_SUCCESS;
}

/* ---- ormqr -------------------------------------------------------------------------------- */
static void shape_str(char *buf, size_t cap, int64_t nd, const int64_t *s) {
    size_t o = (size_t)snprintf(buf, cap, "[");
    for (int64_t i = 0; i < nd && o < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%lld", i ? ", " : "", (long long)s[i]);
    if (o < cap) snprintf(buf + o, cap - o, "]");
}

AOTITorchError shimrt_cpu_ormqr(AtenTensorHandle self, AtenTensorHandle input2,
                                AtenTensorHandle input3, int32_t left, int32_t transpose,
                                AtenTensorHandle *ret0) {
    static const char op[] = "torch.ormqr";
    shimrt_k_blas_init();
    AtenTensorHandle tau = input2, other = input3;
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, tau, "input2") ||
        shimrt_k_check_cpu(op, other, "input3"))
        return AOTI_TORCH_FAILURE;
    if (self->ndim < 2) return shimrt_fail(op, "input must have at least 2 dimensions.");
    if (other->ndim < 2) return shimrt_fail(op, "other must have at least 2 dimensions.");
    int64_t nd = self->ndim, cond = left ? -2 : -1;
    int64_t osz = other->sizes[other->ndim + cond], am = self->sizes[nd - 2],
            an = self->sizes[nd - 1], k = tau->ndim ? tau->sizes[tau->ndim - 1] : 1;
    if (k != (osz < an ? osz : an))
        return shimrt_fail(op,
                           "tau.shape[-1] must be equal to min(other.shape[%lld], "
                           "input.shape[-1])",
                           (long long)cond);
    if (osz != am)
        return shimrt_fail(op, "other.shape[%lld] must be equal to input.shape[-2]",
                           (long long)cond);
    if (nd - tau->ndim != 1)
        return shimrt_fail(op,
                           "Expected tau to have one dimension less than input, but "
                           "got tau.ndim equal to %lld and input.ndim is equal to %lld",
                           (long long)tau->ndim, (long long)nd);
    if (nd != other->ndim)
        return shimrt_fail(
            op,
            "Expected other to have the same number of dimensions as "
            "input, but got other.ndim equal to %lld and input.ndim is equal to %lld",
            (long long)other->ndim, (long long)nd);
    char buf[256];
    for (int64_t i = 0; i < nd - 2; i++)
        if (tau->sizes[i] != self->sizes[i]) {
            shape_str(buf, sizeof buf, nd - 2, tau->sizes);
            return shimrt_fail(op,
                               "Expected batch dimensions of tau to be equal to "
                               "input.shape[:-2], but got %s",
                               buf);
        }
    for (int64_t i = 0; i < nd - 2; i++)
        if (other->sizes[i] != self->sizes[i]) {
            shape_str(buf, sizeof buf, nd - 2, other->sizes);
            return shimrt_fail(op,
                               "Expected batch dimensions of other to be equal to "
                               "input.shape[:-2], but got %s",
                               buf);
        }
    if (tau->dtype != self->dtype)
        return shimrt_fail(op,
                           "Expected input and tau to have the same dtype, but input "
                           "has dtype%s and tau has dtype %s",
                           shimrt_dtype_torch_name(self->dtype),
                           shimrt_dtype_torch_name(tau->dtype));
    if (other->dtype != self->dtype)
        return shimrt_fail(op,
                           "Expected input and other to have the same dtype, but "
                           "input has dtype%s and other has dtype %s",
                           shimrt_dtype_torch_name(self->dtype),
                           shimrt_dtype_torch_name(other->dtype));
    if (check_field(op, "ormqr_cpu", self->dtype) || check_int(op, nd, self->sizes) ||
        check_int(op, nd, other->sizes))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle c = fortran_copy(op, other, nd, other->sizes, self->dtype);
    AtenTensorHandle a = c ? fortran_copy(op, self, nd, self->sizes, self->dtype) : NULL;
    AtenTensorHandle t = a ? shimrt_k_new(op, tau->ndim, tau->sizes, self->dtype) : NULL;
    if (t && shimrt_k_copy(op, t, tau)) {
        shimrt_tensor_free(t);
        t = NULL;
    }
    if (!t) {
        shimrt_tensor_free(c);
        shimrt_tensor_free(a);
        return AOTI_TORCH_FAILURE;
    }
    int64_t cm = other->sizes[nd - 2], cn = other->sizes[nd - 1], nb = batch_count(nd, self->sizes);
    size_t es = shimrt_dtype_size(self->dtype);
    lp_int lm = (lp_int)cm, ln = (lp_int)cn, lk = (lp_int)k, lda = am > 1 ? (lp_int)am : 1,
           ldc = lm > 1 ? lm : 1, info = 0, lwork = -1;
    /* complex: Q's conjugate transpose (?unmqr 'C'), as PyTorch's transpose means there */
    const char side = left ? 'L' : 'R', tr = !transpose                             ? 'N'
                                             : shimrt_dtype_is_complex(self->dtype) ? 'C'
                                                                                    : 'T';
    if (nb > 0 && cm > 0 && cn > 0 && k > 0) {
        double wq = 0;
        ormqr_any(self->dtype, &side, &tr, &lm, &ln, &lk, shimrt_data(a), &lda, shimrt_data(t),
                  shimrt_data(c), &ldc, NULL, &lwork, &info, &wq);
        lwork = wq > 1 ? (lp_int)wq : 1;
        void *work = info == 0 ? malloc((size_t)lwork * es) : NULL;
        for (int64_t b = 0; work && b < nb && info == 0; b++) {
            char *ap = (char *)shimrt_data(a) + (size_t)(b * am * an) * es;
            char *tp = (char *)shimrt_data(t) + (size_t)(b * k) * es;
            char *cp = (char *)shimrt_data(c) + (size_t)(b * cm * cn) * es;
            ormqr_any(self->dtype, &side, &tr, &lm, &ln, &lk, ap, &lda, tp, cp, &ldc, work, &lwork,
                      &info, NULL);
        }
        if (!work && info == 0) info = INT_MIN;
        free(work);
    }
    shimrt_tensor_free(a);
    shimrt_tensor_free(t);
    if (info != 0) {
        shimrt_tensor_free(c);
        if (info == INT_MIN) return shimrt_fail(op, "out of memory for the LAPACK workspace");
        return shimrt_fail(op, "LAPACK ormqr: argument %d is invalid", -info);
    }
    return shimrt_k_give(c, ret0);
}

/* ---- lu_unpack ---------------------------------------------------------------------------- */
/* LU [..., m, n] and pivots [..., k] (int32, 1-based row swaps, k = min(m, n)) -> P [..., m, m]
 * (A = P L U), L [..., m, k] (unit lower), U [..., k, n]; row-major results. unpack_data false:
 * L and U are empty [0]; unpack_pivots false: P is. */
/* 1 into a zeroed element of dtype dt (a complex one: its real component). */
static void store_one(char *p, int32_t dt) {
    switch (dt) {
    case SHIMRT_COMPLEX32: shimrt_k_store_f64(p, SHIMRT_FLOAT16, 1.0); break;
    case SHIMRT_COMPLEX64: shimrt_k_store_f64(p, SHIMRT_FLOAT32, 1.0); break;
    case SHIMRT_COMPLEX128: shimrt_k_store_f64(p, SHIMRT_FLOAT64, 1.0); break;
    default: shimrt_k_store_f64(p, dt, 1.0);
    }
}

AOTITorchError shimrt_cpu_lu_unpack(AtenTensorHandle LU_data, AtenTensorHandle LU_pivots,
                                    int32_t unpack_data, int32_t unpack_pivots,
                                    AtenTensorHandle *ret0, AtenTensorHandle *ret1,
                                    AtenTensorHandle *ret2) {
    static const char op[] = "torch.lu_unpack";
    AtenTensorHandle lu = LU_data, pv = LU_pivots;
    if (shimrt_k_check_cpu(op, lu, "LU_data") || shimrt_k_check_cpu(op, pv, "LU_pivots"))
        return AOTI_TORCH_FAILURE;
    char buf[256], buf2[256];
    int64_t nd = lu->ndim;
    if (nd < 2) {
        shape_str(buf, sizeof buf, nd, lu->sizes);
        return shimrt_fail(op, "Expected tensor with 2 or more dimensions. Got size: %s instead",
                           buf);
    }
    int64_t m = lu->sizes[nd - 2], n = lu->sizes[nd - 1], k = m < n ? m : n;
    /* PyTorch reads the pivots only to unpack them: their dtype, then their shape, then
     * their values (any strides: it takes a contiguous copy) */
    static const char pv_dtype[] = "LU_pivots is expected to be a contiguous tensor of "
                                   "torch.int32 dtype.\nNote: this function is intended to be "
                                   "used with the output produced by torch.linalg.lu_factor";
    if (unpack_pivots && pv->dtype != SHIMRT_INT32) return shimrt_fail(op, pv_dtype);
    int64_t ps[SHIMRT_MAX_DIMS];
    memcpy(ps, lu->sizes, sizeof(int64_t) * (size_t)(nd - 2));
    ps[nd - 2] = k;
    bool same = pv->ndim == nd - 1;
    for (int64_t i = 0; same && i < nd - 1; i++) same = pv->sizes[i] == ps[i];
    if (unpack_pivots && !same) {
        shape_str(buf, sizeof buf, nd - 1, ps);
        shape_str(buf2, sizeof buf2, pv->ndim, pv->sizes);
        return shimrt_fail(op, "Expected LU_pivots to have shape %s but got %s instead.", buf,
                           buf2);
    }
    int32_t dt = lu->dtype;
    bool uint = dt == SHIMRT_UINT16 || dt == SHIMRT_UINT32 || dt == SHIMRT_UINT64;
    if (!uint && !shimrt_dtype_is_complex(dt) && shimrt_k_check_dtype(op, lu, "LU_data"))
        return AOTI_TORCH_FAILURE;
    int64_t nb = batch_count(nd, lu->sizes);
    /* PyTorch unpacks L and U with tril / triu (no uint16/32/64 kernel, not run on an empty
     * LU), then the pivots, whose matrix P it makes with scatter (no complex32 kernel) */
    if (uint && unpack_data && nb * m * n > 0)
        return shimrt_fail(op, "\"tril\" not implemented for '%s'", shimrt_dtype_torch_name(dt));
    AtenTensorHandle pvc = NULL; /* pivots, contiguous */
    if (unpack_pivots && !shimrt_is_contiguous(pv)) {
        pvc = shimrt_k_new(op, pv->ndim, pv->sizes, SHIMRT_INT32);
        if (!pvc || shimrt_k_copy(op, pvc, pv)) {
            shimrt_tensor_free(pvc);
            return AOTI_TORCH_FAILURE;
        }
    }
    const int32_t *piv = unpack_pivots ? shimrt_data(pvc ? pvc : pv) : NULL;
    for (int64_t i = 0; piv && i < nb * k; i++)
        if (piv[i] < 1 || piv[i] > m) {
            shimrt_tensor_free(pvc);
            return shimrt_fail(op, "pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                                   "inclusive.Did you properly pass the result of lu_factor?");
        }
    if (dt == SHIMRT_COMPLEX32 && unpack_pivots && nb * m > 0) {
        shimrt_tensor_free(pvc);
        return shimrt_fail(op, "\"scatter_gather_scalar_cpu\" not implemented for 'ComplexHalf'");
    }
    size_t es = shimrt_dtype_size(lu->dtype);
    int64_t zero = 0, s[SHIMRT_MAX_DIMS];
    AtenTensorHandle P = NULL, L = NULL, U = NULL, d = NULL;
    memcpy(s, lu->sizes, sizeof(int64_t) * (size_t)nd);
    if (unpack_pivots) {
        s[nd - 1] = m;
        P = shimrt_k_new(op, nd, s, lu->dtype);
    } else
        P = shimrt_k_new(op, 1, &zero, lu->dtype);
    if (!P) goto fail;
    if (unpack_data) {
        s[nd - 2] = m;
        s[nd - 1] = k;
        L = shimrt_k_new(op, nd, s, lu->dtype);
        s[nd - 2] = k;
        s[nd - 1] = n;
        U = L ? shimrt_k_new(op, nd, s, lu->dtype) : NULL;
        d = U ? shimrt_k_new(op, nd, lu->sizes, lu->dtype) : NULL;
        if (d && shimrt_k_copy(op, d, lu)) goto fail;
    } else {
        L = shimrt_k_new(op, 1, &zero, lu->dtype);
        U = L ? shimrt_k_new(op, 1, &zero, lu->dtype) : NULL;
    }
    if (!U || (unpack_data && !d)) goto fail;
    if (unpack_pivots && nb * m > 0) {
        char *pp = shimrt_data(P);
        memset(pp, 0, (size_t)(nb * m * m) * es);
        int64_t *perm = malloc(sizeof(int64_t) * (size_t)m);
        if (!perm) {
            shimrt_fail(op, "out of memory");
            goto fail;
        }
        for (int64_t b = 0; b < nb; b++) {
            for (int64_t i = 0; i < m; i++) perm[i] = i;
            for (int64_t i = 0; i < k; i++) {
                int64_t j = piv[b * k + i] - 1, t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            for (int64_t i = 0; i < m; i++)
                store_one(pp + (size_t)((b * m + perm[i]) * m + i) * es, dt);
        }
        free(perm);
    }
    if (unpack_data && nb * m * n > 0) {
        const char *dp = shimrt_data(d);
        char *lp = shimrt_data(L), *up = shimrt_data(U);
        memset(lp, 0, (size_t)(nb * m * k) * es);
        memset(up, 0, (size_t)(nb * k * n) * es);
        for (int64_t b = 0; b < nb; b++)
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < n; j++) {
                    const char *src = dp + (size_t)((b * m + i) * n + j) * es;
                    if (j < k && i > j) memcpy(lp + (size_t)((b * m + i) * k + j) * es, src, es);
                    if (j < k && i == j) store_one(lp + (size_t)((b * m + i) * k + j) * es, dt);
                    if (i < k && j >= i) memcpy(up + (size_t)((b * k + i) * n + j) * es, src, es);
                }
    }
    shimrt_tensor_free(d);
    shimrt_tensor_free(pvc);
    *ret0 = P;
    *ret1 = L;
    *ret2 = U;
    return AOTI_TORCH_SUCCESS;
fail:
    shimrt_tensor_free(P);
    shimrt_tensor_free(L);
    shimrt_tensor_free(U);
    shimrt_tensor_free(d);
    shimrt_tensor_free(pvc);
    return AOTI_TORCH_FAILURE;
}

/* runtime/cpu/linalg.c: mm, bmm, addmm, matmul (CPU).
 *
 * float32 and float64 go to OpenBLAS (cblas_sgemm / cblas_dgemm, row-major), complex64 and
 * complex128 to cblas_cgemm / cblas_zgemm: an operand whose rows or columns are contiguous is
 * passed as it is, transposed or not, with its leading dimension; only an operand with
 * neither is copied first. Other dtypes (float16, bfloat16: accumulated in float as PyTorch
 * does; integers: in int64, wrapping) use a plain loop; bool, uint16/32/64 and complex32, for
 * which PyTorch has no product kernel, only empty products. Results are new contiguous
 * tensors. */
#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"
#include "engine.h"
#include "iter.h"

/* OpenBLAS runs on as many threads as the runtime's pool (SHIMRT_NUM_THREADS). */
void openblas_set_num_threads(int num_threads);
char *openblas_get_corename(void);
void gotoblas_dynamic_init(void);
void gotoblas_dynamic_quit(void);
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
/* Debian's OpenBLAS 0.3.21 picks its kernels by CPU model and falls back to "Prescott"
 * (SSE3, 5x slower) on models it does not know, as on this project's VMs: then, unless the
 * user chose one with OPENBLAS_CORETYPE, select by the CPU's features and re-initialize
 * its dispatch (once, before the first product). */
static void blas_setup(void) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    const char *core = openblas_get_corename();
    if (!getenv("OPENBLAS_CORETYPE") && core && strcmp(core, "Prescott") == 0) {
        __builtin_cpu_init();
        const char *want = NULL;
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512vl"))
            want = "SkylakeX";
        else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
            want = "Haswell";
        if (want && setenv("OPENBLAS_CORETYPE", want, 0) == 0) {
            gotoblas_dynamic_quit();
            gotoblas_dynamic_init();
        }
    }
#endif
    openblas_set_num_threads((int)shimrt_num_threads());
}

/* A matrix operand: element strides per row and per column. */
typedef struct {
    const char *p;
    int64_t rs, cs;
} mat;

/* How BLAS can take an n x k operand: 0 as is (row-major), 1 transposed, -1 neither. */
static int blas_form(mat *a, int64_t n, int64_t k, int64_t *ld) {
    int64_t rs = n == 1 ? (k > 1 ? k : 1) : a->rs, cs = k == 1 ? 1 : a->cs;
    if (cs == 1 && rs >= (k > 1 ? k : 1)) {
        *ld = rs;
        return 0;
    }
    rs = n == 1 ? 1 : a->rs;
    cs = k == 1 ? (n > 1 ? n : 1) : a->cs;
    if (rs == 1 && cs >= (n > 1 ? n : 1)) {
        *ld = cs;
        return 1;
    }
    return -1;
}

/* Copies a (rows x cols) into a new row-major buffer *buf that BLAS can take as is. */
static bool dense_copy(mat *a, int64_t rows, int64_t cols, size_t es, char **buf, int *form,
                       int64_t *ld) {
    char *d = malloc((size_t)(rows * cols) * es + 1);
    if (!d) return true;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            memcpy(d + (size_t)(i * cols + j) * es, a->p + (size_t)(i * a->rs + j * a->cs) * es,
                   es);
    *a = (mat){d, cols, 1};
    *buf = d;
    *form = 0;
    *ld = cols > 1 ? cols : 1;
    return false;
}

void shimrt_k_blas_init(void) { pthread_once(&blas_once, blas_setup); }

/* ---- PyTorch's products of inf, NaN and huge values ----------------------------------------
 * PyTorch's float32/float64 products are MKL's (its wheel's BLAS) or, for a batched product
 * of fewer than 400 multiply-adds per matrix, its own loop (baddbmm_cpu_kernel). Both multiply
 * and add separately where OpenBLAS fuses: MKL's kernels for a result of at most 11 columns or
 * at most 3 rows (sgemm/dgemm of PyTorch's row-major n x m: MKL's M = m, N = n; gemv, dot)
 * and PyTorch's loop (alpha 0 included) do. That decides special values: inf +
 * 3.4e38 * -2 is NaN unfused (the product overflows to -inf) and inf fused. (Measured on
 * PyTorch 2.15's MKL; larger results use MKL's fused kernels, as OpenBLAS.)
 * So OpenBLAS computes every product, and where PyTorch multiplies unfused, the elements whose
 * row of a or column of b holds a non-finite or huge value (one whose product with another
 * can overflow: |x| >= 2^63 in float32, 2^511 in float64) are recomputed unfused in k order:
 * only special values tell the two apart (finite products differ in rounding only, as any two
 * BLAS builds do). */
enum {
    GEMM_BLAS,
    GEMM_UNFUSED,
    GEMM_LOOP,
    GEMM_C_FIRST_A,
    GEMM_C_FIRST_B,
    GEMM_C_AFTER,
    GEMM_C_FUSED,
    /* complex, MKL's: chosen by complex_gemm from the layouts; + GEMM_C_SWAP: PyTorch
     * multiplies b^T a^T (a fold of a batched other); + GEMM_C_ROWS: the rows of a batch
     * folded into one product (more than one) */
    GEMM_C_AUTO = 16,
    GEMM_C_SWAP = 1,
    GEMM_C_ROWS = 2
};

/* The mode of PyTorch's n x m product through MKL's sgemm/dgemm (rows: MKL's N, n unless a
 * batch was folded into it). */
static int mkl_mode(int64_t rows, int64_t m) {
    return m <= 11 || rows <= 3 ? GEMM_UNFUSED : GEMM_BLAS;
}

static bool huge_or_special(const char *p, int32_t dt) {
    double v = dt == SHIMRT_FLOAT32 ? (double)*(const float *)(const void *)p
                                    : *(const double *)(const void *)p;
    return !(fabs(v) < (dt == SHIMRT_FLOAT32 ? 0x1p63 : 0x1p511)); /* NaN too */
}

/* The unfused product of element (i, j), PyTorch's way (see above); cold: c's value before
 * the product. MKL's kernels start from beta * c and add (alpha * a) * b term by term in k
 * order (measured: 1.7e308 + 1.7e308 - 1.7e308 is inf, (2 * 1.5e308) * 0.5 inf); PyTorch's
 * loop sums a * b from 0 and then takes r * beta + alpha * acc. */
#define UNFUSED_DOT(T)                                                                             \
    static T unfused_##T(mat a, mat b, int64_t i, int64_t j, int64_t k, T alpha, T beta, T cold,   \
                         bool loop, bool prod_first) {                                             \
        T acc = loop || beta == 0 ? 0 : beta * cold;                                               \
        for (int64_t p = 0; p < k; p++) {                                                          \
            T x = ((const T *)(const void *)a.p)[i * a.rs + p * a.cs];                             \
            T y = ((const T *)(const void *)b.p)[p * b.rs + j * b.cs];                             \
            acc += loop ? x * y : prod_first ? (x * y) * alpha : (alpha * x) * y;                  \
        }                                                                                          \
        if (!loop) return acc;                                                                     \
        return beta == 0 ? alpha * acc : cold * beta + alpha * acc;                                \
    }
UNFUSED_DOT(float)
UNFUSED_DOT(double)

/* (MKL's kernel for a one-column result of one term, k == 1 and m == 1, multiplies a * b
 * first and then by alpha: measured, (2.5e38 * 0) * 4.5 is 0 where (4.5 * 2.5e38) * 0 is
 * NaN) */
static void unfused_store(int32_t dt, mat a, mat b, int64_t i, int64_t j, int64_t k, int64_t m,
                          double alpha, double beta, char *dst, const char *cold, bool loop) {
    bool pf = k == 1 && m == 1;
    if (dt == SHIMRT_FLOAT32)
        *(float *)(void *)dst =
            unfused_float(a, b, i, j, k, (float)alpha, (float)beta,
                          beta == 0 ? 0 : *(const float *)(const void *)cold, loop, pf);
    else
        *(double *)(void *)dst =
            unfused_double(a, b, i, j, k, alpha, beta,
                           beta == 0 ? 0 : *(const double *)(const void *)cold, loop, pf);
}

/* Flags the rows of a and the columns of b holding a huge or special value; *cold: a copy of
 * c when beta is used and some line is flagged. Returns false when none is (or out of
 * memory: then OpenBLAS's result stands). */
static bool special_lines(int32_t dt, int64_t n, int64_t k, int64_t m, mat a, mat b, const char *c,
                          double alpha, double beta, bool **rows, bool **cols, char **cold,
                          bool *scan_all) {
    size_t es = shimrt_dtype_size(dt);
    bool any = false;
    *rows = calloc((size_t)n, 1);
    *cols = calloc((size_t)m, 1);
    *cold = NULL;
    if (!*rows || !*cols) return false;
    /* a large operand that the product reads only a few times (its other side has at most
     * 11 columns or 3 rows) is not read once more, which would double the product's memory
     * traffic: the elements BLAS leaves non-finite are recomputed instead (missing only
     * overflowing products that cancel in the fused sum) */
    bool scan_a = n * k <= 65536 || m > 11, scan_b = k * m <= 65536 || n > 3;
    *scan_all = scan_a && scan_b;
    for (int64_t i = 0; i < n && scan_a; i++)
        for (int64_t p = 0; p < k && !(*rows)[i]; p++)
            any |= (*rows)[i] = huge_or_special(a.p + (size_t)(i * a.rs + p * a.cs) * es, dt);
    for (int64_t j = 0; j < m && scan_b; j++)
        for (int64_t p = 0; p < k && !(*cols)[j]; p++)
            any |= (*cols)[j] = huge_or_special(b.p + (size_t)(p * b.rs + j * b.cs) * es, dt);
    if (!*scan_all) any = true;
    /* alpha or beta so large that a term or beta * c may overflow: every element the MKL
     * way (beta * c, then (alpha * a) * b term by term; seed 36 call 7547: NaN, not -inf) */
    double lim = dt == SHIMRT_FLOAT32 ? 0x1p63 : 0x1p511;
    if (!(fabs(alpha) < lim) || !(fabs(beta) < lim)) {
        for (int64_t i = 0; i < n; i++) (*rows)[i] = true;
        any = true;
    }
    if (any && beta != 0) {
        *cold = malloc((size_t)(n * m) * es);
        if (!*cold) return false;
        memcpy(*cold, c, (size_t)(n * m) * es);
    }
    return any;
}

/* ---- complex64 / complex128 ---------------------------------------------------------------
 * PyTorch's complex products are its BLAS's cgemm / zgemm (mm, folded matmul, bmm above 400
 * multiply-adds per matrix), here OpenBLAS's; its own loop (bmm's small matrices) multiplies
 * c10::complex values the textbook way, (ar br - ai bi, ar bi + ai br) with no inf/NaN
 * recovery, and sums from 0 in k order: written out the same way (not C's complex *, whose
 * Annex G recovery differs). */
#define CPLX_LOOP(T)                                                                               \
    static void cloop_##T(int64_t n, int64_t k, int64_t m, mat a, mat b, T *c, T alpha, T beta) {  \
        const T *pa = (const T *)(const void *)a.p, *pb = (const T *)(const void *)b.p;            \
        for (int64_t i = 0; i < n; i++)                                                            \
            for (int64_t j = 0; j < m; j++) {                                                      \
                T sr = 0, si = 0;                                                                  \
                for (int64_t p = 0; p < k; p++) {                                                  \
                    const T *x = pa + 2 * (i * a.rs + p * a.cs),                                   \
                            *y = pb + 2 * (p * b.rs + j * b.cs);                                   \
                    T pr = x[0] * y[0] - x[1] * y[1], pi = x[0] * y[1] + x[1] * y[0];              \
                    sr += pr;                                                                      \
                    si += pi;                                                                      \
                }                                                                                  \
                T *d = c + 2 * (i * m + j);                                                        \
                /* bmm stores the sum; baddbmm alpha * sum, a c10::complex product (0 * inf    \
                 * is NaN), taken here for any alpha and beta other than bmm's 1 and 0 */   \
                T rr = alpha * sr - 0 * si, ri = alpha * si + 0 * sr;                              \
                if (alpha == 1 && beta == 0) {                                                     \
                    d[0] = sr, d[1] = si;                                                          \
                } else if (beta == 0) {                                                            \
                    d[0] = rr, d[1] = ri;                                                          \
                } else {                                                                           \
                    T br = d[0] * beta - d[1] * 0, bi = d[0] * 0 + d[1] * beta;                    \
                    d[0] = br + rr, d[1] = bi + ri;                                                \
                }                                                                                  \
            }                                                                                      \
    }
CPLX_LOOP(float)
CPLX_LOOP(double)

/* How MKL's cgemm / zgemm (PyTorch's wheel) takes special values, measured on PyTorch 2.15
 * for a (rows x k) times b (k x cols), PyTorch's row-major shapes, ta / tb: a / b laid out
 * column by column (BLAS's transposed form). Three ways: sum the textbook products
 * (ar br - ai bi, ar bi + ai br) in k order after multiplying the element of a (FIRST_A) or
 * of b (FIRST_B) by the complex alpha (alpha + 0i: an inf component gives NaN, 0 * inf),
 * or before multiplying the sum by it (AFTER); or (its blocked kernel, FUSED) keep four
 * fused sums (ar br, ai bi, ar bi, ai br, each an fma in k order) combined at the end,
 * alpha not applied (cgemm only; zgemm took the first ways on every shape measured). OpenBLAS's kernels differ from all of them on inf/NaN and on
 * overflowing products: only elements whose row or column holds a non-finite or huge
 * component are recomputed this way; finite results differ in rounding only, as any two
 * BLAS builds do. */
static int cplx_mode(int64_t rows, int64_t k, int64_t cols, bool ta, bool tb, bool dbl) {
    if (k == 1) return cols == 1 && rows > 1 ? GEMM_C_AFTER : GEMM_C_FIRST_A;
    if (cols == 1 && rows > 1) return ta ? GEMM_C_FIRST_B : GEMM_C_AFTER;
    if (rows > 1 && k >= 4 && cols >= 4 && !dbl) return GEMM_C_FUSED; /* zgemm: not seen */
    if (!tb || cols == 1) return GEMM_C_FIRST_A;
    return GEMM_C_AFTER;
}

/* GEMM_C_AUTO (+ flags) resolved for a (n x k, BLAS form fa) times b (k x m, form fb). */
static int cplx_auto(int mode, int64_t n, int64_t k, int64_t m, int fa, int fb, bool dbl) {
    bool swap = mode & GEMM_C_SWAP, rows = mode & GEMM_C_ROWS;
    if (!swap) return cplx_mode(rows && n == 1 ? 2 : n, k, m, fa == 1, fb == 1, dbl);
    int r = cplx_mode(rows && m == 1 ? 2 : m, k, n, fb != 1, fa != 1, dbl);
    return r == GEMM_C_FIRST_A ? GEMM_C_FIRST_B : r == GEMM_C_FIRST_B ? GEMM_C_FIRST_A : r;
}

#define CPLX_ELEM(T, FMA)                                                                          \
    static void celem_##T(mat a, mat b, int64_t i, int64_t j, int64_t k, T alpha, T beta,          \
                          const T *cold, T *d, int mode) {                                         \
        const T *pa = (const T *)(const void *)a.p, *pb = (const T *)(const void *)b.p;            \
        T sr = 0, si = 0, s[4] = {0, 0, 0, 0};                                                     \
        for (int64_t p = 0; p < k; p++) {                                                          \
            const T *x = pa + 2 * (i * a.rs + p * a.cs), *y = pb + 2 * (p * b.rs + j * b.cs);      \
            T xr = x[0], xi = x[1], yr = y[0], yi = y[1];                                          \
            if (mode == GEMM_C_FUSED) {                                                            \
                s[0] = FMA(xr, yr, s[0]), s[1] = FMA(xi, yi, s[1]);                                \
                s[2] = FMA(xr, yi, s[2]), s[3] = FMA(xi, yr, s[3]);                                \
                continue;                                                                          \
            }                                                                                      \
            if (mode == GEMM_C_FIRST_A) {                                                          \
                T tr = alpha * xr - 0 * xi, ti = alpha * xi + 0 * xr;                              \
                xr = tr, xi = ti;                                                                  \
            } else if (mode == GEMM_C_FIRST_B) {                                                   \
                T tr = alpha * yr - 0 * yi, ti = alpha * yi + 0 * yr;                              \
                yr = tr, yi = ti;                                                                  \
            }                                                                                      \
            T pr = xr * yr - xi * yi, pi = xr * yi + xi * yr;                                      \
            sr += pr;                                                                              \
            si += pi;                                                                              \
        }                                                                                          \
        if (mode == GEMM_C_FUSED) {                                                                \
            sr = s[0] - s[1], si = s[2] + s[3];                                                    \
            if (alpha != 1) {                                                                      \
                T tr = alpha * sr - 0 * si, ti = alpha * si + 0 * sr;                              \
                sr = tr, si = ti;                                                                  \
            }                                                                                      \
        } else if (mode == GEMM_C_AFTER) {                                                         \
            T tr = alpha * sr - 0 * si, ti = alpha * si + 0 * sr;                                  \
            sr = tr, si = ti;                                                                      \
        }                                                                                          \
        if (beta != 0) {                                                                           \
            sr += cold[0] * beta - cold[1] * 0;                                                    \
            si += cold[0] * 0 + cold[1] * beta;                                                    \
        }                                                                                          \
        d[0] = sr, d[1] = si;                                                                      \
    }
CPLX_ELEM(float, fmaf)
CPLX_ELEM(double, fma)

static bool cplx_huge_or_special(const char *p, bool f) {
    for (int c = 0; c < 2; c++) {
        double v =
            f ? (double)((const float *)(const void *)p)[c] : ((const double *)(const void *)p)[c];
        if (!(fabs(v) < (f ? 0x1p63 : 0x1p511))) return true;
    }
    return false;
}

static AOTITorchError complex_gemm(const char *op, int32_t dt, int64_t n, int64_t k, int64_t m,
                                   mat a, mat b, char *c, double alpha, double beta, int mode) {
    size_t es = shimrt_dtype_size(dt);
    bool f = dt == SHIMRT_COMPLEX64;
    if (mode == GEMM_LOOP) {
        if (f)
            cloop_float(n, k, m, a, b, (float *)(void *)c, (float)alpha, (float)beta);
        else
            cloop_double(n, k, m, a, b, (double *)(void *)c, alpha, beta);
        return AOTI_TORCH_SUCCESS;
    }
    if (mode < GEMM_C_FIRST_A) mode = GEMM_C_AUTO;
    /* k == 0: BLAS would scale c by beta; PyTorch ignores c when beta is 0. alpha == 0: BLAS
     * (MKL's cgemm/zgemm as the reference one) reads neither a nor b, so their inf and NaN
     * do not reach c */
    if (k == 0 || alpha == 0) {
        for (int64_t i = 0; i < 2 * n * m; i++) {
            if (f) {
                float *v = (float *)(void *)c;
                v[i] = beta == 0 ? 0.0f : (float)beta * v[i];
            } else {
                double *v = (double *)(void *)c;
                v[i] = beta == 0 ? 0.0 : beta * v[i];
            }
        }
        return AOTI_TORCH_SUCCESS;
    }
    /* the rows of a and columns of b holding a special value (see cplx_mode) */
    bool *rows = calloc((size_t)n, 1), *cols = calloc((size_t)m, 1), any = false;
    if (!rows || !cols) {
        free(rows), free(cols);
        return shimrt_fail(op, "out of memory");
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t p = 0; p < k && !rows[i]; p++)
            any |= rows[i] = cplx_huge_or_special(a.p + (size_t)(i * a.rs + p * a.cs) * es, f);
    for (int64_t j = 0; j < m; j++)
        for (int64_t p = 0; p < k && !cols[j]; p++)
            any |= cols[j] = cplx_huge_or_special(b.p + (size_t)(p * b.rs + j * b.cs) * es, f);
    char *cold = NULL;
    if (any && beta != 0 && !(cold = malloc((size_t)(n * m) * es))) {
        free(rows), free(cols);
        return shimrt_fail(op, "out of memory");
    }
    if (cold) memcpy(cold, c, (size_t)(n * m) * es);
    mat a0 = a, b0 = b;
    int64_t lda, ldb;
    int fa = blas_form(&a, n, k, &lda), fb = blas_form(&b, k, m, &ldb);
    if (mode >= GEMM_C_AUTO) mode = cplx_auto(mode - GEMM_C_AUTO, n, k, m, fa, fb, !f);
    char *ca = NULL, *cb = NULL;
    if ((fa < 0 && dense_copy(&a, n, k, es, &ca, &fa, &lda)) ||
        (fb < 0 && dense_copy(&b, k, m, es, &cb, &fb, &ldb))) {
        free(ca), free(rows), free(cols), free(cold);
        return shimrt_fail(op, "out of memory");
    }
    if (f) {
        float al[2] = {(float)alpha, 0}, be[2] = {(float)beta, 0};
        cblas_cgemm(CblasRowMajor, fa ? CblasTrans : CblasNoTrans, fb ? CblasTrans : CblasNoTrans,
                    (int)n, (int)m, (int)k, al, a.p, (int)lda, b.p, (int)ldb, be, c, (int)m);
    } else {
        double al[2] = {alpha, 0}, be[2] = {beta, 0};
        cblas_zgemm(CblasRowMajor, fa ? CblasTrans : CblasNoTrans, fb ? CblasTrans : CblasNoTrans,
                    (int)n, (int)m, (int)k, al, a.p, (int)lda, b.p, (int)ldb, be, c, (int)m);
    }
    free(ca);
    free(cb);
    for (int64_t i = 0; any && i < n; i++)
        for (int64_t j = 0; j < m; j++) {
            if (!rows[i] && !cols[j]) continue;
            size_t at = (size_t)(i * m + j) * es;
            if (f)
                celem_float(a0, b0, i, j, k, (float)alpha, (float)beta,
                            cold ? (const float *)(const void *)(cold + at) : NULL,
                            (float *)(void *)(c + at), mode);
            else
                celem_double(a0, b0, i, j, k, alpha, beta,
                             cold ? (const double *)(const void *)(cold + at) : NULL,
                             (double *)(void *)(c + at), mode);
        }
    free(rows);
    free(cols);
    free(cold);
    return AOTI_TORCH_SUCCESS;
}

/* c (n x m, contiguous) = alpha * a(n x k) @ b(k x m) + beta * c; beta == 0 ignores c. mode:
 * how PyTorch computes this product (above). */
static AOTITorchError gemm_mode(const char *op, int32_t dt, int64_t n, int64_t k, int64_t m, mat a,
                                mat b, char *c, double alpha, double beta, int mode) {
    size_t es = shimrt_dtype_size(dt);
    if (n == 0 || m == 0) return AOTI_TORCH_SUCCESS;
    pthread_once(&blas_once, blas_setup);
    if ((dt == SHIMRT_FLOAT32 || dt == SHIMRT_FLOAT64) && mode == GEMM_LOOP) {
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < m; j++) {
                char *dst = c + (size_t)(i * m + j) * es;
                unfused_store(dt, a, b, i, j, k, m, alpha, beta, dst, dst, true);
            }
        return AOTI_TORCH_SUCCESS;
    }
    if (dt == SHIMRT_FLOAT32 || dt == SHIMRT_FLOAT64) {
        bool *rows = NULL, *cols = NULL;
        char *cold = NULL;
        bool scan_all = true;
        bool fix = mode == GEMM_UNFUSED && k > 0 && alpha != 0 &&
                   special_lines(dt, n, k, m, a, b, c, alpha, beta, &rows, &cols, &cold, &scan_all);
        mat a0 = a, b0 = b;
        int64_t lda, ldb;
        int fa = blas_form(&a, n, k, &lda), fb = blas_form(&b, k, m, &ldb);
        char *ca = NULL, *cb = NULL;
        /* MKL's fused kernels multiply a by alpha * b (measured: 1.5e308 * (2 * 0.5) is
         * finite, 0.5 * (2 * 1.5e308) inf): b scaled first, then BLAS with alpha 1 */
        bool scale_b = mode == GEMM_BLAS && alpha != 1 && alpha != 0 && k > 0;
        if ((fa < 0 && dense_copy(&a, n, k, es, &ca, &fa, &lda)) ||
            ((fb < 0 || scale_b) && dense_copy(&b, k, m, es, &cb, &fb, &ldb))) {
            free(ca), free(rows), free(cols), free(cold);
            return shimrt_fail(op, "out of memory");
        }
        if (scale_b) {
            for (int64_t i = 0; i < k * m; i++)
                if (dt == SHIMRT_FLOAT32)
                    ((float *)(void *)cb)[i] *= (float)alpha;
                else
                    ((double *)(void *)cb)[i] *= alpha;
            alpha = 1;
        }
        if (k == 0) { /* BLAS would scale c by beta; PyTorch ignores c when beta is 0 */
            for (int64_t i = 0; i < n * m; i++) {
                if (dt == SHIMRT_FLOAT32) {
                    float *f = (float *)(void *)c;
                    f[i] = beta == 0 ? 0.0f : (float)beta * f[i];
                } else {
                    double *f = (double *)(void *)c;
                    f[i] = beta == 0 ? 0.0 : beta * f[i];
                }
            }
        } else if (dt == SHIMRT_FLOAT32) {
            cblas_sgemm(CblasRowMajor, fa ? CblasTrans : CblasNoTrans,
                        fb ? CblasTrans : CblasNoTrans, (int)n, (int)m, (int)k, (float)alpha,
                        (const float *)(const void *)a.p, (int)lda,
                        (const float *)(const void *)b.p, (int)ldb, (float)beta, (float *)(void *)c,
                        (int)m);
        } else {
            cblas_dgemm(
                CblasRowMajor, fa ? CblasTrans : CblasNoTrans, fb ? CblasTrans : CblasNoTrans,
                (int)n, (int)m, (int)k, alpha, (const double *)(const void *)a.p, (int)lda,
                (const double *)(const void *)b.p, (int)ldb, beta, (double *)(void *)c, (int)m);
        }
        free(ca);
        free(cb);
        for (int64_t i = 0; fix && i < n; i++)
            for (int64_t j = 0; j < m; j++)
                if (rows[i] || cols[j] ||
                    (!scan_all &&
                     !isfinite(dt == SHIMRT_FLOAT32 ? (double)((float *)(void *)c)[i * m + j]
                                                    : ((double *)(void *)c)[i * m + j]))) {
                    size_t at = (size_t)(i * m + j) * es;
                    unfused_store(dt, a0, b0, i, j, k, m, alpha, beta, c + at,
                                  cold ? cold + at : NULL, false);
                }
        free(rows);
        free(cols);
        free(cold);
        return AOTI_TORCH_SUCCESS;
    }
    if (dt == SHIMRT_COMPLEX64 || dt == SHIMRT_COMPLEX128)
        return complex_gemm(op, dt, n, k, m, a, b, c, alpha, beta, mode);
    if (k == 0 && beta == 0 && !shimrt_k_is_floating(dt)) { /* integral: zeros */
        memset(c, 0, (size_t)(n * m) * es);
        return AOTI_TORCH_SUCCESS;
    }
    /* plain loop for the dtypes BLAS lacks */
    bool flt = shimrt_k_is_floating(dt);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < m; j++) {
            char *dst = c + (size_t)(i * m + j) * es;
            if (flt) {
                float acc = 0; /* PyTorch accumulates half types in float */
                for (int64_t p = 0; p < k; p++)
                    acc += (float)shimrt_k_load_f64(a.p + (i * a.rs + p * a.cs) * (int64_t)es, dt) *
                           (float)shimrt_k_load_f64(b.p + (p * b.rs + j * b.cs) * (int64_t)es, dt);
                if (mode == GEMM_LOOP) { /* baddbmm_cpu_kernel: each step in float */
                    float fa = (float)alpha, fb = (float)beta,
                          r = k ? fa * acc : 0; /* k == 0: mul_(beta) */
                    if (fb != 0) r = (float)shimrt_k_load_f64(dst, dt) * fb + r;
                    shimrt_k_store_f64(dst, dt, r);
                    continue;
                }
                double r = alpha * acc;
                if (beta != 0) r += beta * shimrt_k_load_f64(dst, dt);
                shimrt_k_store_f64(dst, dt, r);
            } else {
                uint64_t acc = 0;
                for (int64_t p = 0; p < k; p++)
                    acc +=
                        (uint64_t)shimrt_k_load_i64(a.p + (i * a.rs + p * a.cs) * (int64_t)es, dt) *
                        (uint64_t)shimrt_k_load_i64(b.p + (p * b.rs + j * b.cs) * (int64_t)es, dt);
                uint64_t r = acc * (uint64_t)shimrt_k_f2i(alpha);
                if (beta != 0)
                    r += (uint64_t)shimrt_k_f2i(beta) * (uint64_t)shimrt_k_load_i64(dst, dt);
                if (dt == SHIMRT_BOOL) r = r != 0;
                shimrt_k_store_i64(dst, dt, (int64_t)r);
            }
        }
    return AOTI_TORCH_SUCCESS;
}

/* A product PyTorch hands to MKL as it is. */
static AOTITorchError gemm(const char *op, int32_t dt, int64_t n, int64_t k, int64_t m, mat a,
                           mat b, char *c, double alpha, double beta) {
    return gemm_mode(op, dt, n, k, m, a, b, c, alpha, beta, mkl_mode(n, m));
}

/* The products' dtypes: the engine's, complex64/128 (BLAS), and those PyTorch has no
 * product kernel for (bool, uint16/32/64, complex32) but accepts while the product is empty
 * (shimrt_k_mm_kernel_check). */
bool shimrt_k_mm_no_kernel(int32_t dt) {
    return dt == SHIMRT_BOOL || dt == SHIMRT_UINT16 || dt == SHIMRT_UINT32 || dt == SHIMRT_UINT64 ||
           dt == SHIMRT_COMPLEX32;
}

AOTITorchError shimrt_k_check_mm_dtype(const char *op, AtenTensorHandle t, const char *name) {
    if (shimrt_tensor_valid(t) && t->defined &&
        (t->dtype == SHIMRT_COMPLEX64 || t->dtype == SHIMRT_COMPLEX128 ||
         shimrt_k_mm_no_kernel(t->dtype)))
        return AOTI_TORCH_SUCCESS;
    return shimrt_k_check_dtype(op, t, name);
}

/* PyTorch's kernel refuses those dtypes once the product has a multiply-add (kernel names
 * it: "addmm_impl_cpu_", "bmm"). */
AOTITorchError shimrt_k_mm_kernel_check(const char *op, const char *kernel, int32_t dt, int64_t n,
                                        int64_t k, int64_t m) {
    if (shimrt_k_mm_no_kernel(dt) && n > 0 && k > 0 && m > 0)
        return shimrt_fail(op, "\"%s\" not implemented for '%s'", kernel,
                           shimrt_dtype_torch_name(dt));
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError check_mats(const char *op, AtenTensorHandle a, const char *an,
                                 AtenTensorHandle b, const char *bn) {
    if (shimrt_k_check_cpu(op, a, an) || shimrt_k_check_cpu(op, b, bn) ||
        shimrt_k_check_mm_dtype(op, a, an) || shimrt_k_check_mm_dtype(op, b, bn))
        return AOTI_TORCH_FAILURE;
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError bool_check(const char *op, int32_t dt, int64_t n, int64_t k, int64_t m) {
    return shimrt_k_mm_kernel_check(op, "addmm_impl_cpu_", dt, n, k, m);
}

static AOTITorchError mm_impl(const char *op, AtenTensorHandle self, AtenTensorHandle mat2,
                              AtenTensorHandle bias, double beta, double alpha,
                              AtenTensorHandle *ret0) {
    const char *n1 = bias ? "mat1" : "self", *n2 = "mat2";
    if (check_mats(op, self, n1, mat2, n2)) return AOTI_TORCH_FAILURE;
    int64_t shape[2];
    if (shimrt_k_mm_shape(op, self, n1, mat2, shape)) return AOTI_TORCH_FAILURE;
    if (self->dtype != mat2->dtype)
        return shimrt_fail(op, "expected m1 and m2 to have the same dtype, but got: %s != %s",
                           shimrt_dtype_name(self->dtype), shimrt_dtype_name(mat2->dtype));
    int32_t dt = self->dtype;
    int64_t n = self->sizes[0], k = self->sizes[1], m = mat2->sizes[1];
    if (bias) {
        if (shimrt_k_check_cpu(op, bias, "self") || shimrt_k_check_mm_dtype(op, bias, "self"))
            return AOTI_TORCH_FAILURE;
        if (bias->dtype != dt)
            return shimrt_fail(op, "self and mat2 must have the same dtype, but got %s and %s",
                               shimrt_dtype_name(bias->dtype), shimrt_dtype_name(dt));
        if (!shimrt_k_is_floating(dt) && !shimrt_dtype_is_complex(dt) &&
            !(beta == floor(beta) && alpha == floor(alpha)))
            return shimrt_fail(op, "For integral input tensors, argument alpha must not be a "
                                   "floating point number.");
    }
    if (bool_check(op, dt, n, k, m)) return AOTI_TORCH_FAILURE;
    if (bias && dt == SHIMRT_BOOL && k == 0 && n > 0 && m > 0) /* PyTorch scales by beta */
        return shimrt_fail(op, "result type Long can't be cast to the desired output type Bool");
    if (bias) { /* PyTorch expands self to the result first, whatever beta */
        int64_t tmp[SHIMRT_MAX_DIMS], tn;
        if (shimrt_k_broadcast(op, bias->ndim, bias->sizes, 2, shape, tmp, &tn) || tn != 2 ||
            tmp[0] != n || tmp[1] != m)
            return shimrt_fail(op, "self of shape [%lld...] cannot be broadcast to [%lld, %lld]",
                               (long long)(bias->ndim ? bias->sizes[0] : 0), (long long)n,
                               (long long)m);
    }
    if (bias && shimrt_k_gemm_scalars(op, dt, n, k, m, &beta, &alpha)) return AOTI_TORCH_FAILURE;
    AtenTensorHandle out = shimrt_k_empty_like_dev(op, self, 2, shape, NULL, dt);
    if (!out) return AOTI_TORCH_FAILURE;
    if (bias && beta != 0) {
        if (shimrt_k_copy(op, out, bias)) {
            shimrt_tensor_free(out);
            return AOTI_TORCH_FAILURE;
        }
    }
    mat a = {shimrt_data(self), self->strides[0], self->strides[1]};
    mat b = {shimrt_data(mat2), mat2->strides[0], mat2->strides[1]};
    return shimrt_k_hand_out(
        gemm(op, dt, n, k, m, a, b, shimrt_data(out), bias ? alpha : 1.0, bias ? beta : 0.0), out,
        ret0);
}

AOTITorchError shimrt_cpu_mm(AtenTensorHandle self, AtenTensorHandle mat2, AtenTensorHandle *ret0) {
    return mm_impl("mm", self, mat2, NULL, 0.0, 1.0, ret0);
}

AOTITorchError shimrt_cpu_addmm(AtenTensorHandle self, AtenTensorHandle mat1, AtenTensorHandle mat2,
                                shimrt_scalar beta, shimrt_scalar alpha, AtenTensorHandle *ret0) {
    /* by value: PyTorch's addmm checks an integral product's beta and alpha by value */
    return mm_impl("addmm", mat1, mat2, self, beta.d, alpha.d, ret0);
}

/* base + off bytes; a zero-size tensor has no data (NULL), and offsetting NULL is undefined
 * even by 0, so it stays NULL (gemm never reads it: one of n, k, m is 0). */
static const char *at_offset(const void *base, int64_t off) {
    return base ? (const char *)base + off : NULL;
}

static bool matmul_folds(const struct AtenTensorOpaque *t1, const struct AtenTensorOpaque *t2);

/* Batched product over broadcast batch dims: a is [..., n, k], b is [..., k, m] (already
 * checked), out [batch..., n, m] contiguous. */
/* PyTorch's way with each matrix (see gemm_mode): bmm (both operands batched) takes its own
 * loop below 400 multiply-adds per matrix, else MKL per matrix; matmul folds the batch of a
 * batched operand times a matrix into one MKL product (self's rows times the batch, or, for a
 * batched other, other's transposed columns times the batch). */
static int batched_mode(const struct AtenTensorOpaque *self, const struct AtenTensorOpaque *other,
                        int64_t count, int64_t n, int64_t k, int64_t m) {
    if (shimrt_dtype_is_complex(self->dtype)) { /* folded, else bmm's loop or matrices */
        if ((self->ndim >= 3) != (other->ndim >= 3) && matmul_folds(self, other))
            return GEMM_C_AUTO + (self->ndim >= 3 ? 0 : GEMM_C_SWAP) +
                   (count > 1 ? GEMM_C_ROWS : 0);
        if ((self->ndim >= 3 || other->ndim >= 3) && n * k * m < 400) return GEMM_LOOP;
        return GEMM_C_AUTO;
    }
    if (self->ndim >= 3 && other->ndim <= 2) return mkl_mode(count * n, m);
    if (self->ndim <= 2 && other->ndim >= 3)
        return self->ndim == 1 ? GEMM_UNFUSED : mkl_mode(count * m, n);
    if (self->ndim >= 3 && other->ndim >= 3 && n * k * m < 400) return GEMM_LOOP;
    return mkl_mode(n, m);
}

static AOTITorchError batched(const char *op, const struct AtenTensorOpaque *a,
                              const struct AtenTensorOpaque *b, int64_t nb, const int64_t *bshape,
                              AtenTensorHandle out, const struct AtenTensorOpaque *self,
                              const struct AtenTensorOpaque *other) {
    int64_t n = a->sizes[a->ndim - 2], k = a->sizes[a->ndim - 1], m = b->sizes[b->ndim - 1];
    int64_t count = 1;
    for (int64_t i = 0; i < nb; i++) count *= bshape[i];
    int mode = batched_mode(self, other, count, n, k, m);
    size_t es = shimrt_dtype_size(a->dtype);
    for (int64_t bi = 0; bi < count; bi++) {
        int64_t r = bi, offa = 0, offb = 0;
        for (int64_t d = nb - 1; d >= 0; d--) {
            int64_t idx = r % bshape[d];
            r /= bshape[d];
            int64_t da = d - (nb - (a->ndim - 2)), db = d - (nb - (b->ndim - 2));
            if (da >= 0 && a->sizes[da] != 1) offa += idx * a->strides[da];
            if (db >= 0 && b->sizes[db] != 1) offb += idx * b->strides[db];
        }
        mat ma = {at_offset(shimrt_data(a), offa * (int64_t)es), a->strides[a->ndim - 2],
                  a->strides[a->ndim - 1]};
        mat mb = {at_offset(shimrt_data(b), offb * (int64_t)es), b->strides[b->ndim - 2],
                  b->strides[b->ndim - 1]};
        if (gemm_mode(op, a->dtype, n, k, m, ma, mb,
                      (char *)at_offset(shimrt_data(out), bi * n * m * (int64_t)es), 1.0, 0.0,
                      mode))
            return AOTI_TORCH_FAILURE;
    }
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_bmm(AtenTensorHandle self, AtenTensorHandle mat2,
                              AtenTensorHandle *ret0) {
    static const char op[] = "bmm";
    if (check_mats(op, self, "self", mat2, "mat2")) return AOTI_TORCH_FAILURE;
    int64_t shape[3];
    if (shimrt_k_bmm_shape(op, self, mat2, shape)) return AOTI_TORCH_FAILURE;
    /* PyTorch's result has mat2's dtype; its kernel reads the dtypes only for a product
     * with multiply-adds (an empty result stays empty, k == 0 gives zeros) */
    if (self->dtype != mat2->dtype &&
        (shape[0] == 0 || shape[1] == 0 || shape[2] == 0 || self->sizes[2] == 0)) {
        AtenTensorHandle out = shimrt_k_empty_like_dev(op, mat2, 3, shape, NULL, mat2->dtype);
        if (!out) return AOTI_TORCH_FAILURE;
        shimrt_k_fill(out, 0);
        return shimrt_k_hand_out(AOTI_TORCH_SUCCESS, out, ret0);
    }
    if (self->dtype != mat2->dtype)
        return shimrt_fail(op, "expected scalar type %s but found %s",
                           shimrt_dtype_torch_name(self->dtype),
                           shimrt_dtype_torch_name(mat2->dtype));
    int32_t dt = self->dtype;
    if (bool_check(op, dt, self->sizes[1], self->sizes[2], mat2->sizes[2]))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle out = shimrt_k_empty_like_dev(op, self, 3, shape, NULL, dt);
    if (!out) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(batched(op, self, mat2, 1, shape, out, self, mat2), out, ret0);
}

/* PyTorch's should_fold (no operand of ours requires grad as autograd's would): the
 * larger operand (>= 3 dims, the other <= 2; transposed when it is other) folds its batch
 * into its rows when self is not 2-D and that needs no copy (empty, or batch dims that
 * step as one). */
static bool matmul_folds(const struct AtenTensorOpaque *t1, const struct AtenTensorOpaque *t2) {
    bool larger = t1->ndim >= t2->ndim;
    const struct AtenTensorOpaque *big = larger ? t1 : t2, *small = larger ? t2 : t1;
    int64_t d1 = big->ndim;
    if (!(d1 >= 3 && small->ndim <= 2)) return false;
    if (small->requires_grad) return true;
    if (t1->ndim == 2) return false;
    if (shimrt_numel(big) == 0) return true;
    int64_t sz[SHIMRT_MAX_DIMS], st[SHIMRT_MAX_DIMS];
    memcpy(sz, big->sizes, (size_t)d1 * sizeof *sz);
    memcpy(st, big->strides, (size_t)d1 * sizeof *st);
    if (!larger) { /* other.mT() */
        sz[d1 - 2] = big->sizes[d1 - 1], sz[d1 - 1] = big->sizes[d1 - 2];
        st[d1 - 2] = big->strides[d1 - 1], st[d1 - 1] = big->strides[d1 - 2];
    }
    for (int64_t i = 0; i < d1 - 2; i++)
        if (st[i] != st[i + 1] * sz[i + 1]) return false;
    return true;
}

/* matmul: 1-D operands get a dim of size 1 (removed from the result), batch dims
 * broadcast. */
AOTITorchError shimrt_cpu_matmul(AtenTensorHandle self, AtenTensorHandle other,
                                 AtenTensorHandle *ret0) {
    static const char op[] = "matmul";
    if (check_mats(op, self, "self", other, "other")) return AOTI_TORCH_FAILURE;
    if (self->ndim == 0 || other->ndim == 0)
        return shimrt_fail(op,
                           "both arguments to matmul need to be at least 1D, but they are "
                           "%lldD and %lldD",
                           (long long)self->ndim, (long long)other->ndim);
    /* views with the 1-D operands made 2-D */
    struct AtenTensorOpaque a = *self, b = *other;
    int64_t asz[2], ast[2], bsz[2], bst[2];
    if (self->ndim == 1) {
        a.sizes = asz;
        a.strides = ast;
        a.ndim = 2;
        a.sizes[0] = 1;
        a.sizes[1] = self->sizes[0];
        a.strides[0] = self->sizes[0];
        a.strides[1] = self->strides[0];
    }
    if (other->ndim == 1) {
        b.sizes = bsz;
        b.strides = bst;
        b.ndim = 2;
        b.sizes[0] = other->sizes[0];
        b.sizes[1] = 1;
        b.strides[0] = other->strides[0];
        b.strides[1] = 1;
    }
    int64_t full[SHIMRT_MAX_DIMS], rshape[SHIMRT_MAX_DIMS], nb = 0, rn = 0;
    if (shimrt_k_matmul_shape(op, self, other, &a, &b, full, &nb, rshape, &rn))
        return AOTI_TORCH_FAILURE;
    if (self->dtype != other->dtype) {
        /* PyTorch's bmm path (no fold: batched operands) returns before its kernel checks
         * the dtypes when the result is empty or the contraction is (zeros): the result
         * in bmm's dtype, other's; dot, mv, mm and folded products refuse mixed dtypes */
        int64_t numel = 1, k = a.sizes[a.ndim - 1];
        for (int64_t i = 0; i < rn; i++) numel *= rshape[i];
        if ((self->ndim > 2 || other->ndim > 2) && !matmul_folds(self, other) &&
            (numel == 0 || k == 0)) {
            AtenTensorHandle z = shimrt_k_empty_like_dev(op, self, rn, rshape, NULL, other->dtype);
            if (z && numel) shimrt_k_fill(z, 0);
            return shimrt_k_give(z, ret0);
        }
        return shimrt_fail(op, "expected m1 and m2 to have the same dtype, but got: %s != %s",
                           shimrt_dtype_name(self->dtype), shimrt_dtype_name(other->dtype));
    }
    if (self->ndim == 1 && other->ndim == 1 && shimrt_k_mm_no_kernel(self->dtype))
        return shimrt_fail(op, "\"dot\" not implemented for '%s'", /* (even when empty) */
                           shimrt_dtype_torch_name(self->dtype));
    int64_t rnumel = 1;
    for (int64_t i = 0; i < rn; i++) rnumel *= rshape[i];
    if (rnumel && bool_check(op, self->dtype, full[nb], a.sizes[a.ndim - 1], full[nb + 1]))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle out = shimrt_k_empty_like_dev(op, self, rn, rshape, NULL, self->dtype);
    if (!out) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(batched(op, &a, &b, nb, full, out, self, other), out, ret0);
}

/* One matrix of bmm / baddbmm (runtime/cpu/aoti_ops.h): PyTorch's loop below 400
 * multiply-adds, else MKL. */
AOTITorchError shimrt_k_gemm_bmm(const char *op, int32_t dt, int64_t n, int64_t k, int64_t m,
                                 const void *a, int64_t ars, int64_t acs, const void *b,
                                 int64_t brs, int64_t bcs, void *c, double alpha, double beta) {
    return gemm_mode(op, dt, n, k, m, (mat){a, ars, acs}, (mat){b, brs, bcs}, c, alpha, beta,
                     n * k * m < 400 ? GEMM_LOOP : mkl_mode(n, m));
}

AOTITorchError shimrt_k_gemm_scalars(const char *op, int32_t dt, int64_t n, int64_t k, int64_t m,
                                     double *beta, double *alpha) {
    int32_t opmath = dt == SHIMRT_FLOAT16 || dt == SHIMRT_BFLOAT16 ? SHIMRT_FLOAT32 : dt;
    bool product = n > 0 && k > 0 && m > 0;
    if (product && (shimrt_k_scalar_fits(op, shimrt_scalar_double(*alpha), opmath, false) ||
                    shimrt_k_scalar_fits(op, shimrt_scalar_double(*beta), opmath, false)))
        return AOTI_TORCH_FAILURE;
    if (opmath == SHIMRT_FLOAT32) { /* k == 0: PyTorch's mul_ by beta reads it in float too */
        *beta = (float)*beta;
        if (product) *alpha = (float)*alpha;
    }
    return AOTI_TORCH_SUCCESS;
}

/* gemm for the issue-19 kernels (runtime/cpu/aoti_ops.h). */
AOTITorchError shimrt_k_gemm(const char *op, int32_t dt, int64_t n, int64_t k, int64_t m,
                             const void *a, int64_t ars, int64_t acs, const void *b, int64_t brs,
                             int64_t bcs, void *c, double alpha, double beta) {
    return gemm(op, dt, n, k, m, (mat){a, ars, acs}, (mat){b, brs, bcs}, c, alpha, beta);
}

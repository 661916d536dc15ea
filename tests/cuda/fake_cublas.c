/* tests/cuda/fake_cublas.c: a stand-in for libcublas (loaded through SHIMRT_LIBCUBLAS) for
 * machines without a GPU. The fake driver's device memory is host memory, so cublasGemmEx
 * and cublasGemmStridedBatchedEx compute on the host, column-major, exactly as cuBLAS
 * documents them (op N/T, leading dimensions, batch strides, alpha and beta, beta == 0
 * ignores C), for float32/float64/float16/bfloat16 data. Each call is recorded
 * (fake_cublas_calls, fake_cublas_last) so a test can check the argument mapping.
 *
 * Handles are real objects with the state cuBLAS keeps per handle (stream, workspace):
 * cublasSetStream resets the workspace (as cuBLAS documents). Each GEMM is logged with its
 * handle, the handle's stream and workspace and the calling thread, and it holds the handle
 * for a moment: a second call on the handle meanwhile, or the handle's stream changed
 * under it (another thread's cublasSetStream), counts in fake_cublas_races. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef struct {
    int batched, transa, transb, m, n, k, lda, ldb, ldc, atype, compute, batch;
    long long stride_a, stride_b, stride_c;
} fake_gemm_call;

EXPORT long fake_cublas_calls;
EXPORT fake_gemm_call fake_cublas_last;

typedef struct {
    void *stream, *ws;
    size_t ws_bytes;
    int busy;
} fake_handle;
typedef struct {
    void *handle, *stream, *ws;
    unsigned long thread;
} fake_use;
#define MAX_USES 4096
EXPORT long fake_cublas_handles, fake_cublas_races, fake_cublas_nuses;
EXPORT fake_use fake_cublas_uses[MAX_USES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

EXPORT int cublasCreate_v2(void **h) {
    fake_handle *x = calloc(1, sizeof *x);
    if (!x) return 3; /* CUBLAS_STATUS_ALLOC_FAILED */
    pthread_mutex_lock(&lock);
    fake_cublas_handles++;
    pthread_mutex_unlock(&lock);
    *h = x;
    return 0;
}
EXPORT int cublasDestroy_v2(void *h) {
    pthread_mutex_lock(&lock);
    fake_cublas_handles--;
    pthread_mutex_unlock(&lock);
    free(h);
    return 0;
}
EXPORT int cublasSetStream_v2(void *h, void *s) {
    fake_handle *x = h;
    pthread_mutex_lock(&lock);
    x->stream = s;
    x->ws = NULL; /* back to cuBLAS's own workspace pool */
    x->ws_bytes = 0;
    pthread_mutex_unlock(&lock);
    return 0;
}
EXPORT int cublasSetWorkspace_v2(void *h, void *ws, size_t bytes) {
    fake_handle *x = h;
    pthread_mutex_lock(&lock);
    x->ws = ws;
    x->ws_bytes = bytes;
    pthread_mutex_unlock(&lock);
    return 0;
}

/* A GEMM's hold on its handle: logs the use, then checks nobody touched the handle. */
static void *begin_use(void *h) {
    fake_handle *x = h;
    pthread_mutex_lock(&lock);
    if (x->busy) fake_cublas_races++;
    x->busy = 1;
    void *s = x->stream;
    if (fake_cublas_nuses < MAX_USES)
        fake_cublas_uses[fake_cublas_nuses++] =
            (fake_use){h, s, x->ws, (unsigned long)pthread_self()};
    pthread_mutex_unlock(&lock);
    nanosleep(&(struct timespec){0, 200000}, NULL); /* a kernel's duration: 0.2 ms */
    return s;
}
static void end_use(void *h, void *s) {
    fake_handle *x = h;
    pthread_mutex_lock(&lock);
    if (x->stream != s) fake_cublas_races++;
    x->busy = 0;
    pthread_mutex_unlock(&lock);
}
EXPORT int cublasGetVersion_v2(void *h, int *v) {
    (void)h;
    *v = 130000;
    return 0;
}

static double h2d(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return h & 0x8000 ? -v : v;
}
static uint16_t d2h(double d) { /* round to nearest even through float's bits */
    float f = (float)d;
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000;
    int e = (int)((x >> 23) & 255) - 127 + 15;
    uint32_t m = x & 0x7fffff;
    if (((x >> 23) & 255) == 255) return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
    if (e >= 31) return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10) return (uint16_t)sign;
        m |= 0x800000;
        uint32_t shift = (uint32_t)(14 - e), r = m >> shift, rem = m & ((1u << shift) - 1),
                 half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1))) r++;
        return (uint16_t)(sign | r);
    }
    uint32_t r = m >> 13, rem = m & 0x1fff;
    uint32_t out = sign | ((uint32_t)e << 10) | r;
    if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) out++;
    return (uint16_t)out;
}
static double bf2d(uint16_t b) {
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}
static uint16_t d2bf(double d) {
    float f = (float)d;
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

/* cudaDataType: 0 R_32F, 1 R_64F, 2 R_16F, 14 R_16BF */
static double ld(const void *p, int t, long long i) {
    switch (t) {
    case 0: return ((const float *)p)[i];
    case 1: return ((const double *)p)[i];
    case 2: return h2d(((const uint16_t *)p)[i]);
    default: return bf2d(((const uint16_t *)p)[i]);
    }
}
static void st(void *p, int t, long long i, double v) {
    switch (t) {
    case 0: ((float *)p)[i] = (float)v; break;
    case 1: ((double *)p)[i] = v; break;
    case 2: ((uint16_t *)p)[i] = d2h(v); break;
    default: ((uint16_t *)p)[i] = d2bf(v); break;
    }
}

static int one(int ta, int tb, int m, int n, int k, double alpha, const void *A, int at, int lda,
               const void *B, int bt, int ldb, double beta, void *C, int ct, int ldc) {
    if (m < 0 || n < 0 || k < 0 || lda < (ta ? (k > 1 ? k : 1) : (m > 1 ? m : 1)) ||
        ldb < (tb ? (n > 1 ? n : 1) : (k > 1 ? k : 1)) || ldc < (m > 1 ? m : 1))
        return 7; /* CUBLAS_STATUS_INVALID_VALUE */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double acc = 0;
            for (int p = 0; p < k; p++) {
                double a =
                    ta ? ld(A, at, p + (long long)i * lda) : ld(A, at, i + (long long)p * lda);
                double b =
                    tb ? ld(B, bt, j + (long long)p * ldb) : ld(B, bt, p + (long long)j * ldb);
                acc += a * b;
            }
            long long ci = i + (long long)j * ldc;
            st(C, ct, ci, alpha * acc + (beta == 0 ? 0 : beta * ld(C, ct, ci)));
        }
    return 0;
}

static double scalar(const void *p, int compute) {
    return compute == 70 ? *(const double *)p : *(const float *)p; /* 70: COMPUTE_64F */
}

EXPORT int cublasGemmEx(void *h, int ta, int tb, int m, int n, int k, const void *alpha,
                        const void *A, int at, int lda, const void *B, int bt, int ldb,
                        const void *beta, void *C, int ct, int ldc, int compute, int algo) {
    (void)algo;
    void *s = begin_use(h);
    pthread_mutex_lock(&lock);
    fake_cublas_calls++;
    fake_cublas_last = (fake_gemm_call){0, ta, tb, m, n, k, lda, ldb, ldc, at, compute, 1, 0, 0, 0};
    pthread_mutex_unlock(&lock);
    int rc = one(ta, tb, m, n, k, scalar(alpha, compute), A, at, lda, B, bt, ldb,
                 scalar(beta, compute), C, ct, ldc);
    end_use(h, s);
    return rc;
}

static size_t tsize(int t) { return t == 0 ? 4 : t == 1 ? 8 : 2; }

EXPORT int cublasGemmStridedBatchedEx(void *h, int ta, int tb, int m, int n, int k,
                                      const void *alpha, const void *A, int at, int lda,
                                      long long sa, const void *B, int bt, int ldb, long long sb,
                                      const void *beta, void *C, int ct, int ldc, long long sc,
                                      int batch, int compute, int algo) {
    (void)algo;
    void *s = begin_use(h);
    pthread_mutex_lock(&lock);
    fake_cublas_calls++;
    fake_cublas_last =
        (fake_gemm_call){1, ta, tb, m, n, k, lda, ldb, ldc, at, compute, batch, sa, sb, sc};
    pthread_mutex_unlock(&lock);
    for (int b = 0; b < batch; b++) {
        int rc = one(ta, tb, m, n, k, scalar(alpha, compute),
                     (const char *)A + (size_t)(b * sa) * tsize(at), at, lda,
                     (const char *)B + (size_t)(b * sb) * tsize(bt), bt, ldb, scalar(beta, compute),
                     (char *)C + (size_t)(b * sc) * tsize(ct), ct, ldc);
        if (rc) {
            end_use(h, s);
            return rc;
        }
    }
    end_use(h, s);
    return 0;
}

/* bench/engine/client.c: one stable-ABI C client, linked once against libshimrt and once
 * against libtorch 2.15 (bench/engine/run.sh builds both and prints them side by side).
 *
 * It calls ops only through functions both libraries export with the same C ABI:
 * aoti_torch_empty_strided, aoti_torch_get_data_ptr, aoti_torch_delete_tensor_object,
 * torch_call_dispatcher (StableIValue stacks), torch_new_list_reserve_size /
 * torch_list_push_back / torch_delete_list, torch_new_stable_ivalue. The prototypes are
 * declared here because PyTorch's stable headers are C++.
 *
 * Output: one line per case, "<case> <best ns per call>" (best of RUNS timed runs), and
 * "memcpy <bytes> <best ns>" rows for the bandwidth floor. Short on purpose: each case
 * runs about 0.1 s at most. Threads: the caller sets SHIMRT_NUM_THREADS and
 * OMP_NUM_THREADS / MKL_NUM_THREADS (libtorch's intra-op pool reads them). The `cuda` group
 * (asked for by name only) runs the same calls on CUDA tensors of device 0, each timed run
 * ended by a device-to-host copy that waits for the stream; without a GPU it prints no row
 * and says why on stderr. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct AtenTensorOpaque *AtenTensorHandle;
typedef struct StableListOpaque *StableListHandle;
typedef uint64_t StableIValue;
typedef int32_t AOTITorchError;

AOTITorchError aoti_torch_empty_strided(int64_t ndim, const int64_t *sizes, const int64_t *strides,
                                        int32_t dtype, int32_t device_type, int32_t device_index,
                                        AtenTensorHandle *ret);
AOTITorchError aoti_torch_get_data_ptr(AtenTensorHandle t, void **ret);
AOTITorchError aoti_torch_delete_tensor_object(AtenTensorHandle t);
AOTITorchError aoti_torch_new_tensor_handle(AtenTensorHandle t, AtenTensorHandle *ret);
AOTITorchError torch_call_dispatcher(const char *op, const char *overload, StableIValue *stack,
                                     uint64_t extension_build_version);
AOTITorchError torch_new_list_reserve_size(size_t size, StableListHandle *ret);
AOTITorchError torch_list_push_back(StableListHandle l, StableIValue v);
AOTITorchError torch_delete_list(StableListHandle l);
AOTITorchError torch_new_stable_ivalue(StableIValue **ret);
AOTITorchError torch_delete_stable_ivalue(StableIValue *p);
const char *torch_exception_get_what(void);
int32_t aoti_torch_dtype_float32(void);
int32_t aoti_torch_dtype_float64(void);
int32_t aoti_torch_dtype_float16(void);
int32_t aoti_torch_device_type_cpu(void);
int32_t aoti_torch_device_type_cuda(void);
AOTITorchError aoti_torch_copy_(AtenTensorHandle self, AtenTensorHandle src, int32_t non_blocking);

#define ABI_2_15 ((2ULL << 56) | (15ULL << 48))
#define RUNS 5

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what) {
    fprintf(stderr, "client: %s failed\n", what);
    exit(1);
}

/* Row-major strides of sizes into strides; returns the element count. */
static int64_t contiguous(int64_t ndim, const int64_t *sizes, int64_t *strides) {
    int64_t s = 1;
    for (int64_t d = ndim - 1; d >= 0; d--) {
        strides[d] = s;
        s *= sizes[d];
    }
    return s;
}

static AtenTensorHandle tensor(int64_t ndim, const int64_t *sizes, int32_t dtype) {
    int64_t strides[4], s = contiguous(ndim, sizes, strides);
    AtenTensorHandle t;
    if (aoti_torch_empty_strided(ndim, sizes, strides, dtype, aoti_torch_device_type_cpu(), 0, &t))
        die("empty_strided");
    void *p;
    aoti_torch_get_data_ptr(t, &p);
    size_t es = dtype == aoti_torch_dtype_float64() ? 8 : 4;
    for (int64_t i = 0; i < s; i++) { /* values in [-2, 2), no denormals, no NaN */
        if (es == 4)
            ((float *)p)[i] = (float)((i * 7919) % 4000) / 1000.0f - 2.0f;
        else
            ((double *)p)[i] = (double)((i * 7919) % 4000) / 1000.0 - 2.0;
    }
    return t;
}

/* The same tensor on CUDA device 0 (NULL when there is none: the message on stderr). */
static AtenTensorHandle to_cuda(AtenTensorHandle cpu, int64_t ndim, const int64_t *sizes,
                                int32_t dtype) {
    int64_t strides[4];
    contiguous(ndim, sizes, strides);
    AtenTensorHandle t;
    if (aoti_torch_empty_strided(ndim, sizes, strides, dtype, aoti_torch_device_type_cuda(), 0,
                                 &t)) {
        fprintf(stderr, "client: no CUDA device: %.300s\n", torch_exception_get_what());
        return NULL;
    }
    if (aoti_torch_copy_(t, cpu, 0)) die("copy_ to CUDA");
    return t;
}

/* Timing CUDA work: launches are asynchronous, so a timed run ends with a copy of one
 * element from the device to the host, which waits for everything before it on the
 * stream (g_probe: a CUDA tensor, g_host: a CPU one of the same shape). */
static AtenTensorHandle g_probe, g_host;
static void sync_device(void) {
    if (g_probe && aoti_torch_copy_(g_host, g_probe, 0)) die("copy_ to host");
}

static StableIValue T(AtenTensorHandle t) { /* a new owning reference for a stack */
    AtenTensorHandle r;
    if (aoti_torch_new_tensor_handle(t, &r)) die("new_tensor_handle");
    return (StableIValue)(uintptr_t)r;
}

static StableIValue I(int64_t v) {
    StableIValue s = 0;
    memcpy(&s, &v, sizeof v);
    return s;
}

static StableIValue B(int v) { return v ? 1 : 0; }

static StableIValue LIST1(int64_t v) {
    StableListHandle l;
    if (torch_new_list_reserve_size(1, &l) || torch_list_push_back(l, I(v))) die("list");
    return (StableIValue)(uintptr_t)l;
}

static void call(const char *op, const char *ov, StableIValue *stack, int nret) {
    if (torch_call_dispatcher(op, ov, stack, ABI_2_15)) {
        fprintf(stderr, "client: %s.%s: %s\n", op, ov, torch_exception_get_what());
        exit(1);
    }
    for (int i = 0; i < nret; i++)
        aoti_torch_delete_tensor_object((AtenTensorHandle)(uintptr_t)stack[i]);
}

typedef enum {
    MUL,
    EXP,
    RELU,
    TO,
    CLONE_T,
    SUM,
    AMAX,
    MM,
    BMM,
    GEQRF,
    ORMQR,
    TRSOLVE,
    CHOLSOLVE,
    CHOLINV
} opk;

static AtenTensorHandle g_tau; /* ormqr's tau (the linalg group) */

/* One call of the case; the stack is rebuilt each time (its arguments are owned). */
static void one(opk k, AtenTensorHandle a, AtenTensorHandle b, int64_t dim) {
    StableIValue s[8];
    switch (k) {
    case MUL:
        s[0] = T(a);
        s[1] = T(b);
        call("aten::mul", "Tensor", s, 1);
        break;
    case EXP:
        s[0] = T(a);
        call("aten::exp", "", s, 1);
        break;
    case RELU:
        s[0] = T(a);
        call("aten::relu", "", s, 1);
        break;
    case TO:
        s[0] = T(a);
        s[1] = (StableIValue)aoti_torch_dtype_float16();
        s[2] = B(0);
        s[3] = B(0);
        s[4] = 0;
        call("aten::to", "dtype", s, 1);
        break;
    case CLONE_T: {
        s[0] = T(a);
        s[1] = I(0);
        s[2] = I(1);
        call("aten::transpose", "int", s, 0);
        AtenTensorHandle tr = (AtenTensorHandle)(uintptr_t)s[0];
        s[0] = (StableIValue)(uintptr_t)tr;
        s[1] = 0;
        call("aten::clone", "", s, 1);
        break;
    }
    case SUM: {
        StableIValue *cell;
        if (torch_new_stable_ivalue(&cell)) die("cell");
        *cell = LIST1(dim);
        s[0] = T(a);
        s[1] = (StableIValue)(uintptr_t)cell;
        s[2] = B(0);
        s[3] = 0;
        call("aten::sum", "dim_IntList", s, 1);
        break;
    }
    case AMAX:
        s[0] = T(a);
        s[1] = LIST1(dim);
        s[2] = B(0);
        call("aten::amax", "", s, 1);
        break;
    case MM:
        s[0] = T(a);
        s[1] = T(b);
        call("aten::mm", "", s, 1);
        break;
    case BMM:
        s[0] = T(a);
        s[1] = T(b);
        call("aten::bmm", "", s, 1);
        break;
    case GEQRF: /* a: the matrix */
        s[0] = T(a);
        call("aten::geqrf", "", s, 2);
        break;
    case ORMQR: /* a: geqrf's reflectors, b: the matrix Q multiplies */
        s[0] = T(a);
        s[1] = T(g_tau);
        s[2] = T(b);
        s[3] = B(1);
        s[4] = B(0);
        call("aten::ormqr", "", s, 1);
        break;
    case TRSOLVE: /* a: upper triangular (geqrf's R), b: right-hand sides */
        s[0] = T(b);
        s[1] = T(a);
        s[2] = B(1);
        s[3] = B(0);
        s[4] = B(0);
        call("aten::triangular_solve", "", s, 2);
        break;
    case CHOLSOLVE: /* a: R, the Cholesky factor of R^T R */
        s[0] = T(b);
        s[1] = T(a);
        s[2] = B(1);
        call("aten::cholesky_solve", "", s, 1);
        break;
    case CHOLINV:
        s[0] = T(a);
        s[1] = B(1);
        call("aten::cholesky_inverse", "", s, 1);
        break;
    }
}

static double best(opk k, AtenTensorHandle a, AtenTensorHandle b, int64_t dim, double work_ns) {
    one(k, a, b, dim); /* warm-up: first-touch pages, thread start, lazy registration */
    sync_device();     /* (and on CUDA: the JIT compile or load of the kernel) */
    double t0 = now();
    one(k, a, b, dim);
    sync_device();
    double first = now() - t0;
    long iters = first > 0 ? (long)(work_ns / first) : 1;
    if (iters < 1) iters = 1;
    if (iters > 100000) iters = 100000;
    double bestv = 1e300;
    for (int r = 0; r < RUNS; r++) {
        sync_device();
        t0 = now();
        for (long i = 0; i < iters; i++) one(k, a, b, dim);
        sync_device();
        double per = (now() - t0) / (double)iters;
        if (per < bestv) bestv = per;
    }
    return bestv;
}

int main(int argc, char **argv) {
    const char *only =
        argc > 1 ? argv[1]
                 : NULL; /* one group: overhead, pw, clone, red, gemm, linalg, memcpy, cuda */
    int32_t f32 = aoti_torch_dtype_float32();
    double budget = 2e7; /* ns per timed run */
#define WANT(g) (!only || strcmp(only, g) == 0)
    if (WANT("overhead")) {
        int64_t one1[1] = {1};
        AtenTensorHandle a = tensor(1, one1, f32), b = tensor(1, one1, f32);
        printf("overhead_mul_1 %.1f\n", best(MUL, a, b, 0, budget));
        aoti_torch_delete_tensor_object(a);
        aoti_torch_delete_tensor_object(b);
    }
    if (WANT("pw")) {
        static const int64_t ns[] = {1024, 65536, 1 << 20, 1 << 24};
        static const char *const nn[] = {"1K", "64K", "1M", "16M"};
        for (int i = 0; i < 4; i++) {
            AtenTensorHandle a = tensor(1, &ns[i], f32), b = tensor(1, &ns[i], f32);
            printf("mul_%s %.1f\n", nn[i], best(MUL, a, b, 0, budget));
            printf("exp_%s %.1f\n", nn[i], best(EXP, a, b, 0, budget));
            printf("relu_%s %.1f\n", nn[i], best(RELU, a, b, 0, budget));
            printf("to_f16_%s %.1f\n", nn[i], best(TO, a, b, 0, budget));
            aoti_torch_delete_tensor_object(a);
            aoti_torch_delete_tensor_object(b);
        }
    }
    if (WANT("clone") || WANT("red")) {
        int64_t sz[2] = {4096, 4096};
        AtenTensorHandle a = tensor(2, sz, f32);
        if (WANT("clone"))
            printf("clone_transposed_4096 %.1f\n", best(CLONE_T, a, NULL, 0, budget));
        if (WANT("red")) {
            printf("sum_dim0_4096 %.1f\n", best(SUM, a, NULL, 0, budget));
            printf("sum_dim1_4096 %.1f\n", best(SUM, a, NULL, 1, budget));
            printf("amax_dim0_4096 %.1f\n", best(AMAX, a, NULL, 0, budget));
            printf("amax_dim1_4096 %.1f\n", best(AMAX, a, NULL, 1, budget));
        }
        aoti_torch_delete_tensor_object(a);
    }
    if (WANT("gemm")) {
        static const int64_t ms[] = {256, 512, 1024, 2048};
        for (int i = 0; i < 4; i++) {
            int64_t sz[2] = {ms[i], ms[i]};
            AtenTensorHandle a = tensor(2, sz, f32), b = tensor(2, sz, f32);
            printf("mm_%lld %.1f\n", (long long)ms[i], best(MM, a, b, 0, budget));
            aoti_torch_delete_tensor_object(a);
            aoti_torch_delete_tensor_object(b);
            if (ms[i] <= 512) {
                int64_t bs[3] = {8, ms[i], ms[i]};
                a = tensor(3, bs, f32);
                b = tensor(3, bs, f32);
                printf("bmm_8x%lld %.1f\n", (long long)ms[i], best(BMM, a, b, 0, budget));
                aoti_torch_delete_tensor_object(a);
                aoti_torch_delete_tensor_object(b);
            }
        }
    }
    if (WANT("linalg")) { /* LAPACK through both libraries: float64, n x n, 64 right-hand sides */
        int32_t f64 = aoti_torch_dtype_float64();
        static const int64_t ns[] = {64, 256, 512};
        for (int i = 0; i < 3; i++) {
            int64_t sz[2] = {ns[i], ns[i]}, bz[2] = {ns[i], 64};
            AtenTensorHandle m = tensor(2, sz, f64), b = tensor(2, bz, f64);
            StableIValue s[2] = {T(m), 0};
            if (torch_call_dispatcher("aten::geqrf", "", s, ABI_2_15)) die("geqrf");
            AtenTensorHandle r = (AtenTensorHandle)(uintptr_t)s[0];
            g_tau = (AtenTensorHandle)(uintptr_t)s[1];
            long long n = (long long)ns[i];
            printf("geqrf_%lld %.1f\n", n, best(GEQRF, m, NULL, 0, budget));
            printf("ormqr_%lldx64 %.1f\n", n, best(ORMQR, r, b, 0, budget));
            printf("triangular_solve_%lldx64 %.1f\n", n, best(TRSOLVE, r, b, 0, budget));
            printf("cholesky_solve_%lldx64 %.1f\n", n, best(CHOLSOLVE, r, b, 0, budget));
            printf("cholesky_inverse_%lld %.1f\n", n, best(CHOLINV, r, NULL, 0, budget));
            aoti_torch_delete_tensor_object(g_tau);
            aoti_torch_delete_tensor_object(r);
            aoti_torch_delete_tensor_object(m);
            aoti_torch_delete_tensor_object(b);
        }
    }
    if (only && strcmp(only, "cuda") == 0) { /* not in the default run: needs a GPU */
        int64_t one1[1] = {1}, n16 = INT64_C(1) << 24, sq[2] = {4096, 4096}, mm[2] = {2048, 2048};
        AtenTensorHandle h1 = tensor(1, one1, f32), h16 = tensor(1, &n16, f32),
                         hsq = tensor(2, sq, f32), hmm = tensor(2, mm, f32);
        AtenTensorHandle d1 = to_cuda(h1, 1, one1, f32);
        if (d1) {
            AtenTensorHandle d16 = to_cuda(h16, 1, &n16, f32), d16b = to_cuda(h16, 1, &n16, f32),
                             dsq = to_cuda(hsq, 2, sq, f32), dmm = to_cuda(hmm, 2, mm, f32);
            if (!d16 || !d16b || !dsq || !dmm) die("CUDA tensors");
            g_probe = d1;
            g_host = h1;
            printf("cuda_overhead_mul_1 %.1f\n", best(MUL, d1, d1, 0, budget));
            printf("cuda_mul_16M %.1f\n", best(MUL, d16, d16b, 0, budget));
            printf("cuda_exp_16M %.1f\n", best(EXP, d16, NULL, 0, budget));
            printf("cuda_to_f16_16M %.1f\n", best(TO, d16, NULL, 0, budget));
            printf("cuda_clone_transposed_4096 %.1f\n", best(CLONE_T, dsq, NULL, 0, budget));
            printf("cuda_sum_dim0_4096 %.1f\n", best(SUM, dsq, NULL, 0, budget));
            printf("cuda_sum_dim1_4096 %.1f\n", best(SUM, dsq, NULL, 1, budget));
            printf("cuda_mm_2048 %.1f\n", best(MM, dmm, dmm, 0, budget));
            g_probe = g_host = NULL;
            aoti_torch_delete_tensor_object(d1);
            aoti_torch_delete_tensor_object(d16);
            aoti_torch_delete_tensor_object(d16b);
            aoti_torch_delete_tensor_object(dsq);
            aoti_torch_delete_tensor_object(dmm);
        }
        aoti_torch_delete_tensor_object(h1);
        aoti_torch_delete_tensor_object(h16);
        aoti_torch_delete_tensor_object(hsq);
        aoti_torch_delete_tensor_object(hmm);
    }
    if (WANT("memcpy")) {
        size_t n = (size_t)1 << 26; /* 16M floats */
        char *x = malloc(n), *y = malloc(n);
        if (!x || !y) die("malloc");
        memset(x, 1, n);
        memset(y, 2, n);
        double bv = 1e300;
        for (int r = 0; r < RUNS; r++) {
            double t0 = now();
            memcpy(y, x, n);
            double t = now() - t0;
            if (t < bv) bv = t;
        }
        printf("memcpy_64MB %.1f\n", bv);
        free(x);
        free(y);
    }
    return 0;
}

/* tests/cuda/test_cuda_threads.c: the launch path under concurrency (issue 21, item 9).
 * The catalogue index answers what a scan of the catalogue in its order answers; ops
 * launched from several threads at once on the fake driver's two devices (the grid
 * emulator runs the kernels: tests/cuda/fake_cuda.c built with FAKE_EMU), each thread with
 * its own device, stream and guards, all starting together so that the first launch of
 * each kernel on each device races with the others, give the CPU kernels' results and
 * leave each thread's current device as it was. Without a GPU only (the fake's records);
 * skips when NVRTC is not installed. */
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../runtime/shimrt_test.h"
#include "../../runtime/core/internal.h"
#include "../../runtime/cuda/cuda_internal.h"
#include "../../runtime/cuda/catalogue.h"
#include "c_shim_cpu.h"
#include "c_shim_cuda.h"

static long (*launches)(void);

static void setup(void) {
    char exe[PATH_MAX], buf[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    cr_assert(n > 0);
    exe[n] = '\0';
    *strrchr(exe, '/') = '\0';
    snprintf(buf, sizeof buf, "%s/jit-cache", exe);
    setenv("SHIMRT_CACHE_DIR", buf, 1);
    unsetenv("SHIMRT_CACHE_DISABLE");
    snprintf(buf, sizeof buf, "%s/libfakecuda_emu.so", exe);
    setenv("SHIMRT_LIBCUDA", buf, 1);
    void *h = dlopen(buf, RTLD_NOW);
    cr_assert_not_null(h, "%s", dlerror());
    *(void **)&launches = dlsym(h, "fake_cuda_launches");
    cr_assert_not_null(launches);
}

TestSuite(cuda_threads, .init = setup);

/* The kernel a scan of the catalogue in its order finds for (kind, op, dtype, layout). */
static bool scan_for(int kind, const char *op, int32_t dt, int layout, shimrt_cuda_kdesc *out) {
    size_t n = shimrt_cuda_kernel_count();
    for (size_t i = 0; i < n; i++) {
        shimrt_cuda_kdesc k;
        cr_assert(shimrt_cuda_kernel_at(i, &k));
        if (k.kind == kind && k.layout == layout && !strcmp(k.op, op) &&
            (k.in_dtype == dt || ((kind == SHK_COPY || kind == SHK_FILL) && k.out_dtype == dt))) {
            *out = k;
            return true;
        }
    }
    return false;
}

static void same_answer(int kind, const char *op, int32_t dt, int layout) {
    shimrt_cuda_kdesc a, b;
    bool fa = shimrt_cuda_kernel_for(kind, op, dt, layout, &a),
         fb = scan_for(kind, op, dt, layout, &b);
    cr_assert_eq(fa, fb, "(%d, %s, %d, %d): index %d, scan %d", kind, op, (int)dt, layout, fa, fb);
    if (fa) cr_assert_str_eq(a.name, b.name, "(%d, %s, %d, %d)", kind, op, (int)dt, layout);
}

Test(cuda_threads, catalogue_index_answers_as_a_scan) {
    size_t n = shimrt_cuda_kernel_count();
    cr_assert_gt(n, 100);
    static const int32_t odd[] = {-1, SHIMRT_FLOAT32, SHIMRT_INT64, SHIMRT_BOOL, 99};
    for (size_t i = 0; i < n; i++) {
        shimrt_cuda_kdesc k;
        cr_assert(shimrt_cuda_kernel_at(i, &k));
        same_answer(k.kind, k.op, k.in_dtype, k.layout);
        same_answer(k.kind, k.op, k.out_dtype, k.layout);
        same_answer(k.kind, k.op, k.in_dtype, 1 - k.layout);
        for (size_t j = 0; j < sizeof odd / sizeof odd[0]; j++)
            same_answer(k.kind, k.op, odd[j], k.layout);
    }
    shimrt_cuda_kdesc k;
    cr_assert_not(shimrt_cuda_kernel_for(SHK_UNARY, "no_such_row", SHIMRT_FLOAT32, SHL_CONTIG, &k));
    cr_assert_not(shimrt_cuda_kernel_for(SHK_BINARY, "add", 1234, SHL_CONTIG, &k));
    cr_assert_not(shimrt_cuda_kernel_for(SHK_BINARY, NULL, SHIMRT_FLOAT32, SHL_CONTIG, &k));
}

/* ---- ops from several threads on two devices ---- */
#define THREADS 6
#define ROUNDS 12
#define LEN 300 /* two blocks of the element-wise kernels, one vector tail */

typedef struct {
    int id, dev;
    bool pool_stream, guard;
    pthread_barrier_t *start;
    char failure[512]; /* the first failure, empty when none */
    long ops;
} worker;

#define CHECK(w, cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (!(w)->failure[0]) {                                                                \
                int k_ = snprintf((w)->failure, sizeof(w)->failure, "thread %d: ", (w)->id);       \
                snprintf((w)->failure + k_, sizeof(w)->failure - (size_t)k_, __VA_ARGS__);         \
            }                                                                                      \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)
#define CALL(w, call)                                                                              \
    CHECK(w, (call) == AOTI_TORCH_SUCCESS, "%s: %s", #call, torch_exception_get_what())

/* want (CPU) and got (CUDA, copied back here) hold the same float32 values. */
static bool same_values(AtenTensorHandle want, AtenTensorHandle got, char *why, size_t n) {
    AtenTensorHandle h = NULL;
    int64_t nd = want->ndim;
    if (got->device_type != aoti_torch_device_type_cuda() || got->ndim != nd ||
        aoti_torch_empty_strided(nd, want->sizes, shimrt_test_strides(nd, want->sizes), want->dtype,
                                 aoti_torch_device_type_cpu(), 0, &h) ||
        aoti_torch_copy_(h, got, 0)) {
        snprintf(why, n, "result not comparable: %s", torch_exception_get_what());
        if (h) aoti_torch_delete_tensor_object(h);
        return false;
    }
    bool ok = true;
    const float *a = shimrt_data(want), *b = shimrt_data(h);
    for (int64_t i = 0; i < shimrt_numel(h) && ok; i++)
        if (!(a[i] == b[i] || fabsf(a[i] - b[i]) <= 1e-5f * fmaxf(1.f, fabsf(a[i])))) {
            snprintf(why, n, "element %lld: CUDA %.9g, CPU %.9g", (long long)i, b[i], a[i]);
            ok = false;
        }
    aoti_torch_delete_tensor_object(h);
    return ok;
}

static void *work(void *arg) {
    worker *w = arg;
    int32_t cpu = aoti_torch_device_type_cpu(), cuda = aoti_torch_device_type_cuda();
    int64_t sz[] = {LEN}, sz2[] = {LEN / 10, 10}, st[] = {1};
    AtenTensorHandle ha = NULL, hb = NULL, a = NULL, b = NULL, want = NULL, got = NULL;
    CUDAGuardHandle g = NULL;
    CUDAStreamGuardHandle sg = NULL;
    char why[256];
    int32_t before = -1, after = -1;
    pthread_barrier_wait(w->start);
    if (w->guard) CALL(w, aoti_torch_create_cuda_guard(w->dev, &g));
    if (w->pool_stream) {
        void *s = NULL;
        CALL(w, torch_get_cuda_stream_from_pool(w->id % 4 == 3, w->dev, &s));
        CALL(w, aoti_torch_create_cuda_stream_guard(s, w->dev, &sg));
    }
    CALL(w, shimrt_cuda_resolve_device("test", -1, &before));
    CALL(w, aoti_torch_empty_strided(1, sz, st, SHIMRT_FLOAT32, cpu, 0, &ha));
    CALL(w, aoti_torch_empty_strided(1, sz, st, SHIMRT_FLOAT32, cpu, 0, &hb));
    CALL(w, aoti_torch_empty_strided(1, sz, st, SHIMRT_FLOAT32, cuda, w->dev, &a));
    CALL(w, aoti_torch_empty_strided(1, sz, st, SHIMRT_FLOAT32, cuda, w->dev, &b));
    for (int r = 0; r < ROUNDS; r++) {
        float *pa = shimrt_data(ha), *pb = shimrt_data(hb);
        for (int i = 0; i < LEN; i++) {
            pa[i] = (float)((i * 7 + w->id * 13 + r * 5) % 23) - 11.f;
            pb[i] = (float)((i * 3 + w->id + r) % 17) * 0.25f;
        }
        CALL(w, aoti_torch_copy_(a, ha, 0));
        CALL(w, aoti_torch_copy_(b, hb, 0));
        for (int op = 0; op < 5; op++) {
            const char *name = "";
            switch (op) {
            case 0:
                name = "add.Tensor";
                CALL(w, aoti_torch_cpu_add_Tensor(ha, hb, 0.5, &want));
                CALL(w, aoti_torch_cuda_add_Tensor(a, b, 0.5, &got));
                break;
            case 1:
                name = "mul.Tensor";
                CALL(w, aoti_torch_cpu_mul_Tensor(ha, hb, &want));
                CALL(w, aoti_torch_cuda_mul_Tensor(a, b, &got));
                break;
            case 2:
                name = "neg";
                CALL(w, aoti_torch_cpu_neg(ha, &want));
                CALL(w, aoti_torch_cuda_neg(a, &got));
                break;
            case 3: { /* a reduction over a view: another kernel family and layout (the
                       * emulator runs it on POSIX threads: slow, so in two rounds only) */
                name = "sum.dim_IntList";
                if (r >= 2) continue;
                AtenTensorHandle va = NULL, vh = NULL;
                int64_t dims[] = {1}, st2[] = {10, 1};
                const int64_t *dp = dims;
                CALL(w, aoti_torch_create_tensor_from_blob(shimrt_data(ha), 2, sz2, st2, 0,
                                                           SHIMRT_FLOAT32, cpu, 0, &vh));
                CALL(w, aoti_torch_create_tensor_from_blob(shimrt_data(a), 2, sz2, st2, 0,
                                                           SHIMRT_FLOAT32, cuda, w->dev, &va));
                AOTITorchError e1 = aoti_torch_cpu_sum_dim_IntList(vh, &dp, 1, 0, NULL, &want);
                AOTITorchError e2 = aoti_torch_cuda_sum_dim_IntList(va, &dp, 1, 0, NULL, &got);
                aoti_torch_delete_tensor_object(vh);
                aoti_torch_delete_tensor_object(va);
                CHECK(w, !e1 && !e2, "sum: %s", torch_exception_get_what());
                break;
            }
            default: /* fill_ of a result in place */
                name = "fill_";
                CALL(w, aoti_torch_cpu_neg(ha, &want));
                CALL(w, aoti_torch_cuda_neg(a, &got));
                CALL(w, aoti_torch_cpu_fill__Scalar(want, -0.5 * w->id));
                CALL(w, aoti_torch_cuda_fill__Scalar(got, -0.5 * w->id));
                break;
            }
            CHECK(w, got->device_index == w->dev, "%s: result on cuda:%d", name, got->device_index);
            CHECK(w, same_values(want, got, why, sizeof why), "%s, round %d: %s", name, r, why);
            CALL(w, aoti_torch_delete_tensor_object(want));
            CALL(w, aoti_torch_delete_tensor_object(got));
            want = got = NULL;
            w->ops++;
            CALL(w, shimrt_cuda_resolve_device("test", -1, &after));
            CHECK(w, after == before, "%s left cuda:%d current instead of cuda:%d", name, after,
                  before);
        }
    }
out:
    if (want) aoti_torch_delete_tensor_object(want);
    if (got) aoti_torch_delete_tensor_object(got);
    if (a) aoti_torch_delete_tensor_object(a);
    if (b) aoti_torch_delete_tensor_object(b);
    if (ha) aoti_torch_delete_tensor_object(ha);
    if (hb) aoti_torch_delete_tensor_object(hb);
    if (sg) aoti_torch_delete_cuda_stream_guard(sg);
    if (g) aoti_torch_delete_cuda_guard(g);
    return NULL;
}

Test(cuda_threads, ops_from_threads_on_two_devices, .timeout = 300) {
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("NVRTC is not run under AddressSanitizer (its own allocations); the plain "
                 "pass runs this");
#endif
    if (!shimrt_nvrtc("test"))
        cr_skip_test("NVRTC is not installed: %s", torch_exception_get_what());
    int32_t ndev = 0;
    OK(shimrt_cuda_device_count(&ndev));
    cr_assert_eq(ndev, 2, "the fake driver has two devices");
    /* the kernels compiled (or read from the disk cache) first, on this thread, so the
     * threads race on the per-device loads and launches, not on NVRTC */
    static const struct {
        int kind;
        const char *op;
        int layout;
    } used[] = {{SHK_BINARY, "add", SHL_CONTIG}, {SHK_BINARY, "mul", SHL_CONTIG},
                {SHK_UNARY, "neg", SHL_CONTIG},  {SHK_REDUCE, "sum", SHL_CONTIG},
                {SHK_FILL, "fill", SHL_STRIDED}, {SHK_COPY, "copy", SHL_CONTIG}};
    for (size_t i = 0; i < sizeof used / sizeof used[0]; i++) {
        shimrt_cuda_kdesc k;
        const shimrt_jit_image *img;
        cr_assert(
            shimrt_cuda_kernel_for(used[i].kind, used[i].op, SHIMRT_FLOAT32, used[i].layout, &k),
            "%s", used[i].op);
        OK(shimrt_jit_get("test", &k, 80, &img));
    }
    long launched = launches();
    pthread_barrier_t start;
    cr_assert_eq(pthread_barrier_init(&start, NULL, THREADS), 0);
    worker w[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        /* cuda:0 and cuda:1 alternate; the legacy stream or a pool stream; with or without a
         * device guard (without one, device 0 is current: ops on cuda:1 switch and restore) */
        w[i] = (worker){
            .id = i, .dev = i % 2, .pool_stream = i / 2 % 2 == 1, .guard = i >= 4, .start = &start};
        cr_assert_eq(pthread_create(&th[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < THREADS; i++) {
        cr_assert_str_empty(w[i].failure, "%s", w[i].failure);
        cr_assert_eq(w[i].ops, ROUNDS * 4 + 2);
    }
    /* add, mul, neg: one launch each; fill_: neg then fill; sum in two rounds */
    cr_assert_geq(launches() - launched, (long)THREADS * (ROUNDS * 5 + 2));
    OK(shimrt_cuda_empty_cache());
    no_leaks();
}

/* ---- the first launch of a kernel on a device, from many threads at once ---- */
typedef struct {
    pthread_barrier_t *start;
    const shimrt_cuda_kdesc *k;
    int dev;
    CUfunction fn;
    AOTITorchError rc;
} loader;

static void *load_one(void *arg) {
    loader *l = arg;
    shimrt_cuda_ctx_guard g;
    pthread_barrier_wait(l->start);
    l->rc = shimrt_cuda_enter("test", l->dev, &g, NULL);
    if (!l->rc) {
        l->rc = shimrt_cuda_function("test", l->k, l->dev, &l->fn);
        shimrt_cuda_leave(&g);
    }
    return NULL;
}

Test(cuda_threads, one_function_per_kernel_and_device, .timeout = 300) {
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("NVRTC is not run under AddressSanitizer (its own allocations); the plain "
                 "pass runs this");
#endif
    if (!shimrt_nvrtc("test"))
        cr_skip_test("NVRTC is not installed: %s", torch_exception_get_what());
    /* two kernels no other test of this process launches: one found by its keys (it knows
     * its catalogue position), one by name */
    shimrt_cuda_kdesc ks[2];
    cr_assert(shimrt_cuda_kernel_for(SHK_UNARY, "abs", SHIMRT_FLOAT64, SHL_STRIDED, &ks[0]));
    cr_assert_neq(ks[0].id, 0);
    cr_assert(shimrt_cuda_kernel_find("sh_index_e4_i64_strided", &ks[1]));
    for (int i = 0; i < 2; i++) {
        const shimrt_jit_image *img;
        OK(shimrt_jit_get("test", &ks[i], 80, &img));
    }
    enum { N = 8 };
    pthread_barrier_t start;
    cr_assert_eq(pthread_barrier_init(&start, NULL, N), 0);
    loader l[N];
    pthread_t th[N];
    for (int i = 0; i < N; i++) {
        l[i] = (loader){.start = &start, .k = &ks[i % 2], .dev = i / 2 % 2};
        cr_assert_eq(pthread_create(&th[i], NULL, load_one, &l[i]), 0);
    }
    for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < N; i++) {
        cr_assert_eq(l[i].rc, AOTI_TORCH_SUCCESS, "thread %d: %s", i, torch_exception_get_what());
        cr_assert_not_null(l[i].fn);
        cr_assert_eq(l[i].fn, l[i % 4].fn, "thread %d got another function than thread %d", i,
                     i % 4);
        CUfunction again = NULL;
        shimrt_cuda_ctx_guard g;
        OK(shimrt_cuda_enter("test", l[i].dev, &g, NULL));
        OK(shimrt_cuda_function("test", l[i].k, l[i].dev, &again));
        shimrt_cuda_leave(&g);
        cr_assert_eq(again, l[i].fn, "the published function is the one every thread got");
    }
    shimrt_cuda_kdesc bogus = ks[1];
    snprintf(bogus.name, sizeof bogus.name, "sh_no_such_kernel");
    CUfunction none = NULL;
    FAILS(shimrt_cuda_function("test", &bogus, 0, &none), "test",
          "no CUDA kernel sh_no_such_kernel");
    FAILS(shimrt_cuda_function("test", &ks[0], 64, &none), "test", "bad CUDA device 64");
}

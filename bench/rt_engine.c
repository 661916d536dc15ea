/* bench/rt_engine.c: the engine's thread grain, measured. mul and exp of n float32
 * elements through the direct CPU shims (a fresh result each call), best of 7 runs, at 1
 * thread and at 2 threads with the grain forced down to 1K elements (SHIMRT_GRAIN_ELEMS),
 * so that every size runs in parallel. The ratio 2 threads / 1 thread drops below 1.0 at
 * the size from which splitting pays: the engine's default grain (runtime/cpu/engine.c)
 * is chosen from it. Each configuration runs in a child process of this program (the
 * thread pool reads its settings once). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <shimrt/shimrt.h>

#include "c_shim_cpu.h"

#define RUNS 7
static const int64_t sizes[] = {8192,   16384,  32768,   65536,  131072,
                                262144, 524288, 1048576, 4194304};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what) {
    fprintf(stderr, "rt_engine: %s: %s\n", what, torch_exception_get_what());
    exit(1);
}

static AtenTensorHandle vec(int64_t n) {
    AtenTensorHandle t;
    int64_t st = 1;
    if (aoti_torch_empty_strided(1, &n, &st, aoti_torch_dtype_float32(),
                                 aoti_torch_device_type_cpu(), 0, &t))
        die("empty_strided");
    void *p;
    aoti_torch_get_data_ptr(t, &p);
    for (int64_t i = 0; i < n; i++) ((float *)p)[i] = (float)(i % 1000) / 500.0f - 1.0f;
    return t;
}

static double best(int op, AtenTensorHandle a, AtenTensorHandle b, int64_t n) {
    long iters = (long)(4e6 / (double)n) + 1; /* about 4M elements per timed run */
    double bv = 1e300;
    for (int r = 0; r <= RUNS; r++) { /* run 0 warms up */
        double t0 = now();
        for (long i = 0; i < iters; i++) {
            AtenTensorHandle o = NULL;
            if (op == 0 ? aoti_torch_cpu_mul_Tensor(a, b, &o) : aoti_torch_cpu_exp(a, &o))
                die("op");
            aoti_torch_delete_tensor_object(o);
        }
        double per = (now() - t0) / (double)iters;
        if (r > 0 && per < bv) bv = per;
    }
    return bv;
}

static void child(void) {
    for (int k = 0; k < NSIZES; k++) {
        AtenTensorHandle a = vec(sizes[k]), b = vec(sizes[k]);
        printf("%.1f %.1f\n", best(0, a, b, sizes[k]), best(1, a, b, sizes[k]));
        aoti_torch_delete_tensor_object(a);
        aoti_torch_delete_tensor_object(b);
    }
}

static void run(const char *self, const char *env, double (*t)[2]) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s '%s' --child", env, self);
    FILE *f = popen(cmd, "r");
    if (!f) die("popen");
    for (int k = 0; k < NSIZES; k++)
        if (fscanf(f, "%lf %lf", &t[k][0], &t[k][1]) != 2) die("child output");
    if (pclose(f) != 0) die("child");
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--child") == 0) {
        child();
        return 0;
    }
    if (strchr(argv[0], '\'')) die("program path");
    double one[NSIZES][2], two[NSIZES][2];
    run(argv[0], "SHIMRT_NUM_THREADS=1", one);
    run(argv[0], "SHIMRT_NUM_THREADS=2 SHIMRT_GRAIN_ELEMS=1024", two);
    printf("\nengine thread grain (float32, ns per call, best of %d; 2 threads with the grain "
           "forced to 1K)\n",
           RUNS);
    printf("%-10s %12s %12s %7s %12s %12s %7s\n", "elements", "mul 1 thr", "mul 2 thr", "ratio",
           "exp 1 thr", "exp 2 thr", "ratio");
    for (int k = 0; k < NSIZES; k++)
        printf("%-10lld %12.0f %12.0f %7.2f %12.0f %12.0f %7.2f\n", (long long)sizes[k], one[k][0],
               two[k][0], two[k][0] / one[k][0], one[k][1], two[k][1], two[k][1] / one[k][1]);
    return 0;
}

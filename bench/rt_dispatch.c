/* bench/rt_dispatch.c: the cost of a boxed dispatcher call of a trivial op, by name
 * (torch_call_dispatcher) and through a cached op handle (shimrt_op_call), beside a direct
 * C call of the same function; and the same with one tensor argument (the key is then
 * computed from the tensor's device). Best of several runs, ns per call, ratios.
 * Targets on this machine: <= 100 ns by name, <= 25 ns through a handle. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "shimrt/shimrt.h"

#define ITERS 2000000L
#define RUNS 7

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The trivial op, as a plain C function and as a boxed kernel around it. */
__attribute__((noinline)) static int64_t add_direct(int64_t a, int64_t b) { return a + b; }
static int64_t (*volatile add_ptr)(int64_t, int64_t) = add_direct;

static void add_boxed(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    (void)num_args;
    (void)num_outputs;
    stack[0] = siv_from_int(add_direct(siv_to_int(stack[0]), siv_to_int(stack[1])));
}
/* Tensor in, the same tensor out (the reference passes through). */
static void ident_boxed(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    (void)stack;
    (void)num_args;
    (void)num_outputs;
}

static void die(const char *what) {
    fprintf(stderr, "rt_dispatch: %s: %s\n", what, torch_exception_get_what());
    exit(1);
}

int main(void) {
    TorchLibraryHandle def = NULL, cpu = NULL;
    if (aoti_torch_library_init_def("bench", __FILE__, __LINE__, &def) ||
        aoti_torch_library_def(def, "add(int a, int b) -> int") ||
        aoti_torch_library_def(def, "ident(Tensor x) -> Tensor") ||
        aoti_torch_library_impl(def, "add", add_boxed) ||
        aoti_torch_library_init_impl("bench", "CPU", __FILE__, __LINE__, &cpu) ||
        aoti_torch_library_impl(cpu, "ident", ident_boxed)) {
        die("setup");
    }
    /* a realistic table: a few hundred other ops */
    char schema[64];
    for (int i = 0; i < 500; i++) {
        snprintf(schema, sizeof schema, "filler%d(int x) -> int", i);
        if (aoti_torch_library_def(def, schema)) die("filler");
    }
    ShimrtOpHandle add = NULL, ident = NULL;
    if (shimrt_op_find("bench::add", "", &add) || shimrt_op_find("bench::ident", "", &ident)) {
        die("find");
    }
    int64_t sizes[1] = {4};
    AtenTensorHandle t = NULL;
    if (aoti_torch_empty_strided(1, sizes, (const int64_t[]){1}, aoti_torch_dtype_float32(),
                                 aoti_torch_device_type_cpu(), 0, &t)) {
        die("tensor");
    }

    double best[5] = {1e30, 1e30, 1e30, 1e30, 1e30};
    int64_t sink = 0;
    for (int r = 0; r < RUNS; r++) {
        double t0 = now();
        for (long i = 0; i < ITERS; i++) sink += add_ptr(i, 1);
        double t1 = now();
        for (long i = 0; i < ITERS; i++) {
            StableIValue st[2] = {siv_from_int(i), siv_from_int(1)};
            if (torch_call_dispatcher("bench::add", "", st, TORCH_ABI_VERSION)) die("call");
            sink += siv_to_int(st[0]);
        }
        double t2 = now();
        for (long i = 0; i < ITERS; i++) {
            StableIValue st[2] = {siv_from_int(i), siv_from_int(1)};
            if (shimrt_op_call(add, st, TORCH_ABI_VERSION)) die("call");
            sink += siv_to_int(st[0]);
        }
        double t3 = now();
        for (long i = 0; i < ITERS; i++) {
            StableIValue st[1] = {siv_from_tensor(t)};
            if (torch_call_dispatcher("bench::ident", "", st, TORCH_ABI_VERSION)) die("call");
        }
        double t4 = now();
        for (long i = 0; i < ITERS; i++) {
            StableIValue st[1] = {siv_from_tensor(t)};
            if (shimrt_op_call(ident, st, TORCH_ABI_VERSION)) die("call");
        }
        double t5 = now();
        double d[5] = {t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4};
        for (int k = 0; k < 5; k++) {
            if (d[k] < best[k]) best[k] = d[k];
        }
    }
    double ns[5];
    for (int k = 0; k < 5; k++) ns[k] = best[k] * 1e9 / (double)ITERS;
    printf("rt_dispatch: boxed call of a trivial op, best of %d runs x %ld calls (sink %lld)\n",
           RUNS, ITERS, (long long)(sink & 1));
    printf("  %-44s %8.2f ns\n", "direct C call (through a function pointer)", ns[0]);
    printf("  %-44s %8.2f ns  (%.1f x direct; target <= 100 ns)\n",
           "torch_call_dispatcher by name, add(int,int)", ns[1], ns[1] / ns[0]);
    printf("  %-44s %8.2f ns  (%.1f x direct; target <= 25 ns)\n",
           "shimrt_op_call via cached handle", ns[2], ns[2] / ns[0]);
    printf("  %-44s %8.2f x\n", "ratio by name / by handle", ns[1] / ns[2]);
    printf("  %-44s %8.2f ns\n", "torch_call_dispatcher by name, ident(Tensor)", ns[3]);
    printf("  %-44s %8.2f ns\n", "shimrt_op_call via handle, ident(Tensor)", ns[4]);
    aoti_torch_delete_tensor_object(t);
    aoti_torch_delete_library_object(cpu);
    aoti_torch_delete_library_object(def);
    return 0;
}

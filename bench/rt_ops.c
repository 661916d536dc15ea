/* bench/rt_ops.c: add.Tensor of two one-element float32 tensors, three ways: the direct
 * CPU shim (aoti_torch_cpu_add_Tensor: argument checks, then the kernel), the aten shim
 * (aoti_torch_aten_add_Tensor: a stack through the dispatcher via a cached op handle) and
 * a boxed call by name (torch_call_dispatcher with a stack built by the caller). Every
 * call makes and frees its result tensor, so each row includes one allocation. Best of
 * several runs, ns per call, and the ratio to the direct shim. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <shimrt/shimrt.h>

#include "c_shim_aten.h"
#include "c_shim_cpu.h"

#define ITERS 200000L
#define RUNS 7

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what) {
    fprintf(stderr, "rt_ops: %s: %s\n", what, torch_exception_get_what());
    exit(1);
}

enum { DIRECT, ATEN, BY_NAME, N_WAYS };
static const char *const way_name[N_WAYS] = {
    "aoti_torch_cpu_add_Tensor (direct shim)",
    "aoti_torch_aten_add_Tensor (aten shim)",
    "torch_call_dispatcher(\"aten::add\", \"Tensor\")",
};

static void one_call(int way, AtenTensorHandle a, AtenTensorHandle b) {
    AtenTensorHandle r = NULL;
    switch (way) {
    case DIRECT:
        if (aoti_torch_cpu_add_Tensor(a, b, 1.0, &r)) die("direct");
        break;
    case ATEN:
        if (aoti_torch_aten_add_Tensor(a, b, 1.0, &r)) die("aten");
        break;
    default: {
        /* The stack owns what it holds: new references in, the result out. */
        AtenTensorHandle a2, b2;
        ScalarHandle alpha;
        if (aoti_torch_new_tensor_handle(a, &a2) || aoti_torch_new_tensor_handle(b, &b2) ||
            torch_new_scalar_double(1.0, &alpha))
            die("stack");
        StableIValue stack[3] = {siv_from_tensor(a2), siv_from_tensor(b2), siv_from_scalar(alpha)};
        if (torch_call_dispatcher("aten::add", "Tensor", stack, TORCH_ABI_VERSION)) die("by name");
        r = siv_to_tensor(stack[0]);
    }
    }
    if (aoti_torch_delete_tensor_object(r)) die("delete");
}

int main(void) {
    static float x = 1.0f, y = 2.0f;
    const int64_t size = 1, stride = 1;
    AtenTensorHandle a, b;
    if (aoti_torch_create_tensor_from_blob(&x, 1, &size, &stride, 0, aoti_torch_dtype_float32(),
                                           aoti_torch_device_type_cpu(), 0, &a) ||
        aoti_torch_create_tensor_from_blob(&y, 1, &size, &stride, 0, aoti_torch_dtype_float32(),
                                           aoti_torch_device_type_cpu(), 0, &b))
        die("setup");
    double best[N_WAYS];
    for (int w = 0; w < N_WAYS; w++) {
        best[w] = 1e9;
        for (long i = 0; i < 1000; i++) one_call(w, a, b); /* warm: registration, caches */
    }
    for (int run = 0; run < RUNS; run++) {
        for (int w = 0; w < N_WAYS; w++) {
            double t0 = now();
            for (long i = 0; i < ITERS; i++) one_call(w, a, b);
            double dt = (now() - t0) / ITERS;
            if (dt < best[w]) best[w] = dt;
        }
    }
    printf("rt_ops: add.Tensor of two one-element float32 tensors, best of %d runs x %ld calls\n",
           RUNS, ITERS);
    for (int w = 0; w < N_WAYS; w++)
        printf("  %-48s %8.1f ns  (%.2f x direct)\n", way_name[w], best[w] * 1e9,
               best[w] / best[DIRECT]);
    aoti_torch_delete_tensor_object(a);
    aoti_torch_delete_tensor_object(b);
    return 0;
}

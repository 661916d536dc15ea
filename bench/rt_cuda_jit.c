/* bench/rt_cuda_jit.c: the CUDA JIT's costs, measured without a GPU (NVRTC needs none):
 * a cold NVRTC compile, a disk-cache hit (the image written by another process, read,
 * checksummed), an in-process hit (the lock-free table) and the catalogue lookup that
 * comes before it on every launch, per kernel, over a sample of the catalogue, for sm_90.
 * The GPU rows (elementwise bandwidth against a device-to-device copy) need a GPU and are
 * reported as skipped when there is none; the comparison with PyTorch's CUDA add is not
 * written yet. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../runtime/cuda/cuda_internal.h"
#include "../runtime/cuda/catalogue.h"

#define SAMPLE 12

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Element-wise bandwidth on device 0: add.Tensor over 2^24 float32 (3 x 64 MiB moved)
 * against a device-to-device copy of 64 MiB (2 x 64 MiB moved), best of 10, CUDA events. */
static void gpu_rows(void) {
    const int64_t n = INT64_C(1) << 24;
    AtenTensorHandle a = NULL, b = NULL, c = NULL;
    void *e0 = NULL, *e1 = NULL;
    if (aoti_torch_empty_strided(1, &n, (int64_t[]){1}, SHIMRT_FLOAT32, SHIMRT_DEV_CUDA, 0, &a) ||
        aoti_torch_empty_strided(1, &n, (int64_t[]){1}, SHIMRT_FLOAT32, SHIMRT_DEV_CUDA, 0, &b) ||
        shimrt_cuda_do_fill(a, 1.0) || shimrt_cuda_do_fill(b, 2.0) ||
        shimrt_cuda_event_new(true, &e0) || shimrt_cuda_event_new(true, &e1)) {
        printf("  GPU rows failed: %s\n", torch_exception_get_what());
        return;
    }
    double best_add = 1e30, best_copy = 1e30;
    for (int r = 0; r < 11; r++) {
        float ms = 0;
        shimrt_cuda_event_record(e0, NULL);
        if (shimrt_cuda_binary("add", a, b, 1.0, &c)) break;
        shimrt_cuda_event_record(e1, NULL);
        shimrt_cuda_event_synchronize(e1);
        shimrt_cuda_event_elapsed_ms(e0, e1, &ms);
        if (r) best_add = ms < best_add ? ms : best_add; /* run 0 includes the JIT */
        aoti_torch_delete_tensor_object(c);
        shimrt_cuda_event_record(e0, NULL);
        shimrt_cuda_memcpy(shimrt_data(b), shimrt_data(a), (uint64_t)n * 4, NULL, false);
        shimrt_cuda_event_record(e1, NULL);
        shimrt_cuda_event_synchronize(e1);
        shimrt_cuda_event_elapsed_ms(e0, e1, &ms);
        best_copy = ms < best_copy ? ms : best_copy;
    }
    double gb_add = 3.0 * (double)n * 4 / (best_add * 1e6),
           gb_copy = 2.0 * (double)n * 4 / (best_copy * 1e6);
    printf("  %-44s %10.1f GB/s (%.3f ms)\n", "add.Tensor float32 2^24, bandwidth", gb_add,
           best_add);
    printf("  %-44s %10.1f GB/s (%.3f ms)\n", "device-to-device copy 64 MiB", gb_copy, best_copy);
    printf("  %-44s %10.2f\n", "add / copy bandwidth", gb_add / gb_copy);
    shimrt_cuda_event_delete(e0);
    shimrt_cuda_event_delete(e1);
    aoti_torch_delete_tensor_object(a);
    aoti_torch_delete_tensor_object(b);
}

int main(void) {
    printf("rt_cuda_jit: NVRTC JIT and cache, sm_90, %d kernels spread over the catalogue\n",
           SAMPLE);
    if (!shimrt_nvrtc("rt_cuda_jit")) {
        printf("  skipped: %s\n", torch_exception_get_what());
        return 0;
    }
    char dir[] = "/tmp/shimrt-bench-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    setenv("SHIMRT_CACHE_DIR", dir, 1);
    unsetenv("SHIMRT_CACHE_DISABLE");
    size_t n = shimrt_cuda_kernel_count();
    shimrt_cuda_kdesc ks[SAMPLE];
    for (int i = 0; i < SAMPLE; i++) shimrt_cuda_kernel_at((size_t)i * n / SAMPLE, &ks[i]);
    /* a child compiles (cold, writes the disk cache) */
    double cold = 0;
    int fds[2];
    if (pipe(fds)) return 1;
    pid_t pid = fork();
    if (pid == 0) {
        double t = now();
        for (int i = 0; i < SAMPLE; i++) {
            const shimrt_jit_image *img;
            if (shimrt_jit_get("bench", &ks[i], 90, &img)) _exit(1);
        }
        t = now() - t;
        if (write(fds[1], &t, sizeof t) != sizeof t) _exit(1);
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) || read(fds[0], &cold, sizeof cold) != sizeof cold) {
        printf("  failed: the compiling child did not finish\n");
        return 1;
    }
    double t = now();
    for (int i = 0; i < SAMPLE; i++) {
        const shimrt_jit_image *img;
        if (shimrt_jit_get("bench", &ks[i], 90, &img)) return 1;
    }
    double disk = now() - t;
    const int reps = 2000;
    t = now();
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < SAMPLE; i++) {
            const shimrt_jit_image *img;
            if (shimrt_jit_get("bench", &ks[i], 90, &img)) return 1;
        }
    double mem = (now() - t) / reps;
    /* what every launch does before the JIT: find its kernel in the catalogue (by op, dtype
     * and layout for element-wise rows and reductions, by name for the others) */
    t = now();
    int found = 0;
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < SAMPLE; i++)
            found +=
                shimrt_cuda_kernel_for(ks[i].kind, ks[i].op, ks[i].in_dtype, ks[i].layout, NULL) +
                shimrt_cuda_kernel_find(ks[i].name, NULL);
    double lookup = (now() - t) / reps;
    shimrt_jit_stats s;
    shimrt_jit_get_stats(&s);
    printf("  %-44s %10.2f ms per kernel\n", "NVRTC cold compile (CUBIN)", cold * 1e3 / SAMPLE);
    printf("  %-44s %10.1f us per kernel (%llu disk hits)\n", "disk cache hit (read + checksum)",
           disk * 1e6 / SAMPLE, (unsigned long long)s.disk_hits);
    printf("  %-44s %10.2f us per kernel (lock-free table by kernel name)\n", "in-process hit",
           mem * 1e6 / SAMPLE);
    printf("  %-44s %10.2f us per kernel (%d of %d found)\n",
           "catalogue lookup (op/dtype/layout, name)", lookup * 1e6 / SAMPLE, found / reps,
           2 * SAMPLE);
    int32_t ndev = 0;
    if (shimrt_cuda_device_count(&ndev))
        printf("  GPU rows skipped: %s\n", torch_exception_get_what());
    else
        gpu_rows();
    size_t removed;
    shimrt_jit_cache_clear("bench", dir, &removed);
    rmdir(dir);
    return 0;
}

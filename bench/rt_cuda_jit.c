/* bench/rt_cuda_jit.c: the CUDA JIT's costs, measured without a GPU (NVRTC needs none):
 * a cold NVRTC compile, a disk-cache hit (the image written by another process, read,
 * checksummed) and an in-process hit (the lock-free table), per kernel, over a sample of
 * the catalogue, for sm_90. The GPU rows (elementwise bandwidth against a device-to-device
 * copy and against PyTorch) need a GPU and are reported as skipped when there is none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../runtime/cuda/cuda_internal.h"
#include "../runtime/cuda/kernels.h"

#define SAMPLE 12

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void) {
    printf("rt_cuda_jit: NVRTC JIT and cache, sm_90, %d kernels spread over the catalogue\n", SAMPLE);
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
    shimrt_jit_stats s;
    shimrt_jit_get_stats(&s);
    printf("  %-44s %10.2f ms per kernel\n", "NVRTC cold compile (CUBIN)", cold * 1e3 / SAMPLE);
    printf("  %-44s %10.1f us per kernel (%llu disk hits)\n", "disk cache hit (read + checksum)",
           disk * 1e6 / SAMPLE, (unsigned long long)s.disk_hits);
    printf("  %-44s %10.2f us per kernel (lock-free table by kernel name)\n",
           "in-process hit", mem * 1e6 / SAMPLE);
    int32_t ndev = 0;
    if (shimrt_cuda_device_count(&ndev))
        printf("  GPU rows skipped: %s\n", torch_exception_get_what());
    size_t removed;
    shimrt_jit_cache_clear("bench", dir, &removed);
    rmdir(dir);
    return 0;
}

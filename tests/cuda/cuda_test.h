/* tests/cuda/cuda_test.h: what the CUDA suites share: contiguous CUDA tensors, the test
 * binary's folder (where make puts the fake driver, the fake cuBLAS and the JIT cache), the
 * choice between the machine's GPU and the fakes, and the skip without NVRTC. */
#ifndef SHIMRT_CUDA_TEST_H
#define SHIMRT_CUDA_TEST_H
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runtime/shimrt_test.h"
#include "../../runtime/cuda/cuda_internal.h"

/* aoti_torch_empty_strided with the contiguous strides (PyTorch requires strides). */
static inline AOTITorchError empty_contig(int64_t nd, const int64_t *sizes, int32_t dtype,
                                          int32_t dev, int32_t idx, AtenTensorHandle *out) {
    int64_t st[16], s = 1;
    for (int64_t d = nd; d-- > 0;) {
        st[d] = s;
        s *= sizes[d] > 1 ? sizes[d] : 1;
    }
    return aoti_torch_empty_strided(nd, sizes, nd ? st : NULL, dtype, dev, idx, out);
}

/* The folder of the running test binary, into dir (PATH_MAX bytes). */
static inline void exe_dir(char *dir) {
    ssize_t n = readlink("/proc/self/exe", dir, PATH_MAX - 1);
    cr_assert(n > 0);
    dir[n] = '\0';
    *strrchr(dir, '/') = '\0';
}

/* The JIT cache in dir/jit-cache, enabled. */
static inline void jit_cache_in(const char *dir) {
    char buf[PATH_MAX + 64];
    snprintf(buf, sizeof buf, "%s/jit-cache", dir);
    setenv("SHIMRT_CACHE_DIR", buf, 1);
    unsetenv("SHIMRT_CACHE_DISABLE");
}

/* True when the machine's own driver loads and reports a device (never with
 * SHIMRT_TEST_FAKE_GPU=1). */
static inline bool have_gpu(void) {
    const char *f = getenv("SHIMRT_TEST_FAKE_GPU");
    if (f && !strcmp(f, "1")) return false;
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return false;
    int (*init)(unsigned) = NULL, (*count)(int *) = NULL;
    *(void **)&init = dlsym(h, "cuInit");
    *(void **)&count = dlsym(h, "cuDeviceGetCount");
    int n = 0;
    return init && count && init(0) == 0 && count(&n) == 0 && n >= 1;
}

/* Skips the test where NVRTC cannot run. */
static inline void need_nvrtc(void) {
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test(
        "NVRTC is not run under AddressSanitizer (its own allocations); the plain pass runs this");
#endif
    if (!shimrt_nvrtc("test"))
        cr_skip_test("NVRTC is not installed: %s", torch_exception_get_what());
}
#endif

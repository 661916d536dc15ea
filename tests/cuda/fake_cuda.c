/* tests/cuda/fake_cuda.c: a stand-in for libcuda.so.1 (built as libfakecuda.so) so that the
 * backend's device logic (contexts, guards, streams, the caching allocator, copies,
 * events) runs on machines without a GPU: two devices whose "device memory" is host memory.
 * Module loading and kernel launches fail (CUDA_ERROR_NOT_SUPPORTED). The fake_cuda_*
 * functions let the tests look inside.
 *
 * SHIMRT_FAKE_CUDA_GUARD=1 (read when the library loads) makes device memory what it is on
 * a GPU: out of the host's reach. Each device allocation gets pages of its own, kept
 * PROT_NONE except while the driver itself works on them (cuMemcpyAsync, cuMemsetD8Async,
 * cuLaunchKernel open every device allocation for the call's duration), so a runtime that
 * loads or stores device memory with host code faults at that line (SIGSEGV), as it would
 * on a real GPU, where the fake's host-backed memory otherwise hides it. Another thread's
 * host access while a driver call is open is not caught. The fake cuBLAS reads device
 * memory on the host: GEMMs do not run in this mode. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
#define EXPORT __attribute__((visibility("default")))

static long live_allocs, live_streams, live_events;
static size_t budget = (size_t)-1, used;
static int ctx_ids[2];
static __thread void *current_ctx;
static int driver_version = 13000; /* CUDA 13.0: runs the installed NVRTC 13's code */

/* A stream remembers the context it was created in: a kernel launched into a stream of
 * another context fails (CUDA_ERROR_INVALID_HANDLE), as on the real driver. */
typedef struct {
    int prio;
    void *ctx;
} fake_stream;

static int dev_of_ctx(const void *c) { return c == &ctx_ids[1] ? 1 : c == &ctx_ids[0] ? 0 : -1; }
/* The last copy: the device whose context was current and the stream it was queued on
 * (NULL: that context's legacy stream), so a test can check a copy's ordering. */
static __thread int last_copy_dev = -2;
static __thread void *last_copy_stream;
static __thread long ctx_switches;
EXPORT void fake_cuda_last_copy(int *dev, void **stream) {
    *dev = last_copy_dev;
    *stream = last_copy_stream;
}
EXPORT long fake_cuda_ctx_switches(void) { return ctx_switches; }
/* Host round trips: copies to or from the host and stream synchronizations issued (any
 * thread). */
static long copies, syncs;
EXPORT long fake_cuda_copies(void) { return __atomic_load_n(&copies, __ATOMIC_RELAXED); }
EXPORT long fake_cuda_syncs(void) { return __atomic_load_n(&syncs, __ATOMIC_RELAXED); }
EXPORT void fake_cuda_set_driver_version(int v) { driver_version = v; }
/* What the application (or another library) does with cudaSetDevice: the driver's current
 * context changes behind the runtime's back. */
EXPORT void fake_cuda_app_set_device(int d) { current_ctx = d < 0 ? NULL : &ctx_ids[d]; }

EXPORT long fake_cuda_live_allocs(void) { return live_allocs; }
EXPORT long fake_cuda_live_streams(void) { return live_streams; }
EXPORT int fake_cuda_current_device(void) { return dev_of_ctx(current_ctx); }
EXPORT void fake_cuda_set_budget(size_t bytes) { budget = bytes; }

EXPORT CUresult cuInit(unsigned f) {
    (void)f;
    return 0;
}
EXPORT CUresult cuDriverGetVersion(int *v) {
    *v = driver_version;
    return 0;
}
EXPORT CUresult cuDeviceGetCount(int *n) {
    *n = 2;
    return 0;
}
EXPORT CUresult cuDeviceGet(int *d, int i) {
    *d = i;
    return i < 0 || i > 1 ? 101 : 0;
}
EXPORT CUresult cuDeviceGetAttribute(int *v, int a, int d) {
    (void)d;
    *v = a == 75 ? 8 : a == 76 ? 0 : 4;
    return 0;
}
EXPORT CUresult cuDeviceGetName(char *s, int n, int d) {
    (void)d;
    strncpy(s, "fake", (size_t)n);
    return 0;
}
EXPORT CUresult cuDevicePrimaryCtxRetain(void **c, int d) {
    *c = &ctx_ids[d];
    return 0;
}
EXPORT CUresult cuCtxSetCurrent(void *c) {
    if (c != current_ctx) ctx_switches++;
    current_ctx = c;
    return 0;
}
EXPORT CUresult cuCtxGetCurrent(void **c) {
    *c = current_ctx;
    return 0;
}
EXPORT CUresult cuCtxGetDevice(int *d) {
    if (!current_ctx) return 201;
    *d = dev_of_ctx(current_ctx);
    return 0;
}
EXPORT CUresult cuCtxSynchronize(void) { return 0; }
EXPORT CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest) {
    *least = 0;
    *greatest = -5;
    return 0;
}
/* Every allocation is listed (for cuPointerGetAttribute): its device and kind. */
typedef struct fake_mem {
    char *p;
    size_t n;
    int dev, host;
    struct fake_mem *next;
    size_t mapped; /* guard mode, device memory: the bytes mapped at p (0: malloc'd) */
} fake_mem;
static fake_mem *mems;
static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;
static int guard;      /* SHIMRT_FAKE_CUDA_GUARD=1 */
static int guard_open; /* driver calls now working on device memory (under mem_lock) */
__attribute__((constructor)) static void read_guard(void) {
    const char *g = getenv("SHIMRT_FAKE_CUDA_GUARD");
    guard = g && !strcmp(g, "1");
}
EXPORT int fake_cuda_guarded(void) { return guard; }
/* Opens (prot read-write) or closes (PROT_NONE) every guarded allocation. */
static void guard_protect(int prot) {
    for (fake_mem *m = mems; m; m = m->next)
        if (m->mapped && mprotect(m->p, m->mapped, prot)) abort();
}
/* Around a driver call that reads or writes device memory. */
static void device_access_begin(void) {
    if (!guard) return;
    pthread_mutex_lock(&mem_lock);
    if (guard_open++ == 0) guard_protect(PROT_READ | PROT_WRITE);
    pthread_mutex_unlock(&mem_lock);
}
static void device_access_end(void) {
    if (!guard) return;
    pthread_mutex_lock(&mem_lock);
    if (--guard_open == 0) guard_protect(PROT_NONE);
    pthread_mutex_unlock(&mem_lock);
}
static CUresult mem_alloc(void **p, size_t n, int host) {
    if (!current_ctx) return 201; /* CUDA_ERROR_INVALID_CONTEXT */
    pthread_mutex_lock(&mem_lock);
    fake_mem *m = used + n > budget ? NULL : malloc(sizeof *m);
    char *b = NULL;
    size_t mapped = 0;
    if (m && guard && !host) {
        size_t pg = (size_t)sysconf(_SC_PAGESIZE);
        mapped = (n ? n + pg - 1 : pg) / pg * pg;
        b = mmap(NULL, mapped, guard_open ? PROT_READ | PROT_WRITE : PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (b == MAP_FAILED)
            b = NULL;
        else
            b -= 16; /* the pages start at p */
    } else if (m) {
        b = malloc(n + 16);
    }
    if (!b) {
        free(m);
        pthread_mutex_unlock(&mem_lock);
        return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    }
    *m = (fake_mem){b + 16, n, dev_of_ctx(current_ctx), host, mems, mapped};
    mems = m;
    used += n;
    live_allocs++;
    *p = b + 16;
    pthread_mutex_unlock(&mem_lock);
    return 0;
}
static CUresult mem_free(void *p) {
    pthread_mutex_lock(&mem_lock);
    for (fake_mem **pp = &mems; *pp; pp = &(*pp)->next)
        if ((*pp)->p == p) {
            fake_mem *m = *pp;
            *pp = m->next;
            used -= m->n;
            live_allocs--;
            if (m->mapped)
                munmap(m->p, m->mapped);
            else
                free(m->p - 16);
            free(m);
            pthread_mutex_unlock(&mem_lock);
            return 0;
        }
    pthread_mutex_unlock(&mem_lock);
    return 1; /* CUDA_ERROR_INVALID_VALUE */
}
/* The allocation holding p (copied out under the lock): 0 when there is none. */
static int mem_of(const void *p, fake_mem *out) {
    int found = 0;
    pthread_mutex_lock(&mem_lock);
    for (const fake_mem *m = mems; m && !found; m = m->next)
        if ((const char *)p >= m->p && (const char *)p < m->p + (m->n ? m->n : 1)) {
            *out = *m;
            found = 1;
        }
    pthread_mutex_unlock(&mem_lock);
    return found;
}
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *d, size_t n) {
    void *p;
    CUresult r = mem_alloc(&p, n, 0);
    if (!r) *d = (CUdeviceptr)(size_t)p;
    return r;
}
EXPORT CUresult cuMemFree_v2(CUdeviceptr d) { return mem_free((void *)(size_t)d); }
EXPORT CUresult cuMemAllocHost_v2(void **p, size_t n) { return mem_alloc(p, n, 1); }
EXPORT CUresult cuMemFreeHost(void *p) { return mem_free(p); }
EXPORT CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, void *st) {
    if (!current_ctx) return 201;
    fake_mem md, ms; /* a device-to-device copy is no host round trip */
    if (!(mem_of((const void *)(size_t)d, &md) && !md.host &&
          mem_of((const void *)(size_t)s, &ms) && !ms.host))
        __atomic_fetch_add(&copies, 1, __ATOMIC_RELAXED);
    last_copy_dev = dev_of_ctx(current_ctx);
    last_copy_stream = st;
    device_access_begin();
    memmove((void *)(size_t)d, (const void *)(size_t)s, n);
    device_access_end();
    return 0;
}
EXPORT CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void *st) {
    (void)st;
    device_access_begin();
    memset((void *)(size_t)d, v, n);
    device_access_end();
    return 0;
}
EXPORT CUresult cuMemGetInfo_v2(size_t *f, size_t *t) {
    *f = 1u << 30;
    *t = 1u << 30;
    return 0;
}
EXPORT CUresult cuPointerGetAttribute(void *v, int a, CUdeviceptr p) {
    fake_mem m;
    if (!mem_of((const void *)(size_t)p, &m)) return 1; /* CUDA_ERROR_INVALID_VALUE */
    if (a == 2)                                         /* CU_POINTER_ATTRIBUTE_MEMORY_TYPE */
        *(unsigned *)v = m.host ? 1u : 2u;
    else if (a == 9) /* CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL */
        *(int *)v = m.dev;
    else
        return 1;
    return 0;
}
EXPORT CUresult cuStreamCreateWithPriority(void **s, unsigned f, int prio) {
    (void)f;
    if (!current_ctx) return 201;
    fake_stream *x = malloc(sizeof *x);
    if (!x) return 2;
    x->prio = prio;
    x->ctx = current_ctx;
    live_streams++;
    *s = x;
    return 0;
}
EXPORT CUresult cuStreamDestroy_v2(void *s) {
    free(s);
    live_streams--;
    return 0;
}
EXPORT CUresult cuStreamSynchronize(void *s) {
    (void)s;
    __atomic_fetch_add(&syncs, 1, __ATOMIC_RELAXED);
    return 0;
}
EXPORT CUresult cuStreamQuery(void *s) {
    (void)s;
    return 0;
}
EXPORT CUresult cuStreamWaitEvent(void *s, void *e, unsigned f) {
    (void)s;
    (void)e;
    (void)f;
    return 0;
}
/* Events complete at once, unless a test holds them: while fake_cuda_hold_events(1) is in
 * force, an event recorded stays "not ready" (cuEventQuery) until fake_cuda_release_events
 * or cuEventSynchronize, as work still queued on a stream would. */
typedef struct {
    double t;
    int held;
    long epoch;
} fake_event;
static int hold_events;
static long release_epoch;
EXPORT void fake_cuda_hold_events(int on) { hold_events = on; }
EXPORT void fake_cuda_release_events(void) { release_epoch++; }
EXPORT CUresult cuEventCreate(void **e, unsigned f) {
    (void)f;
    fake_event *t = calloc(1, sizeof *t);
    if (!t) return 2;
    live_events++;
    *e = t;
    return 0;
}
EXPORT CUresult cuEventDestroy_v2(void *e) {
    free(e);
    live_events--;
    return 0;
}
EXPORT CUresult cuEventRecord(void *e, void *s) {
    (void)s;
    fake_event *x = e;
    x->t += 1.5;
    x->held = hold_events;
    x->epoch = release_epoch;
    return 0;
}
EXPORT CUresult cuEventSynchronize(void *e) {
    ((fake_event *)e)->held = 0;
    return 0;
}
EXPORT CUresult cuEventQuery(void *e) {
    fake_event *x = e;
    return x->held && x->epoch == release_epoch ? 600 : 0; /* CUDA_ERROR_NOT_READY */
}
EXPORT CUresult cuEventElapsedTime_v2(float *ms, void *a, void *b) {
    *ms = (float)(((fake_event *)b)->t - ((fake_event *)a)->t);
    return 0;
}
#ifdef FAKE_EMU
/* Built with the grid emulator and the catalogue's kernels compiled as C: a module is any
 * image, a function is found by name, a launch runs the kernel in the emulator (at most two
 * blocks of 64 threads: the kernels' grid-stride loops cover every element). */
#include "sh_emu.h"
static long launches;
static unsigned emu_grid_cap = 2, emu_block_cap = 64;
EXPORT long fake_cuda_launches(void) { return __atomic_load_n(&launches, __ATOMIC_RELAXED); }
/* The caps of threaded launches (0: none); a test runs some launches at full shape. */
EXPORT void fake_cuda_emu_caps(unsigned grid, unsigned block, unsigned *old_grid,
                               unsigned *old_block) {
    if (old_grid) *old_grid = emu_grid_cap;
    if (old_block) *old_block = emu_block_cap;
    emu_grid_cap = grid;
    emu_block_cap = block / 32 * 32;
}
__attribute__((constructor)) static void read_emu_cap(void) {
    const char *c = getenv("SHIMRT_EMU_GRID_CAP");
    if (c && *c) emu_grid_cap = (unsigned)strtoul(c, NULL, 10);
    c = getenv("SHIMRT_EMU_BLOCK_CAP");
    if (c && *c) emu_block_cap = (unsigned)strtoul(c, NULL, 10) / 32 * 32;
}
EXPORT CUresult cuModuleLoadData(void **m, const void *img) {
    *m = (void *)img;
    return img ? 0 : 200;
}
EXPORT CUresult cuModuleUnload(void *m) {
    (void)m;
    return 0;
}
EXPORT CUresult cuModuleGetFunction(void **f, void *m, const char *n) {
    (void)m;
    for (size_t i = 0; i < sh_emu_kernel_count; i++)
        if (!strcmp(sh_emu_kernels[i].name, n)) {
            *f = (void *)&sh_emu_kernels[i];
            return 0;
        }
    return 500; /* CUDA_ERROR_NOT_FOUND */
}
EXPORT CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                               unsigned by, unsigned bz, unsigned shm, void *s, void **p,
                               void **x) {
    (void)gy;
    (void)gz;
    (void)by;
    (void)bz;
    (void)shm;
    (void)s;
    (void)x;
    if (!current_ctx) return 201;
    if (s && ((fake_stream *)s)->ctx != current_ctx) return 400; /* CUDA_ERROR_INVALID_HANDLE */
    const sh_emu_entry *e = f;
    __atomic_fetch_add(&launches, 1, __ATOMIC_RELAXED); /* launches come from any thread */
    /* A kernel whose threads run one after another gets the launch's own shape: the whole
     * grid and the block size asked for (256 threads, 8 warps, from ops.c). A kernel run on
     * POSIX threads (barriers, shared memory, shuffles) gets at most 2 blocks of 64 threads
     * (its grid-stride loops cover every output): at 256 threads a block the emulated
     * barriers made test_cuda_ops 2.5 times slower. SHIMRT_EMU_GRID_CAP and
     * SHIMRT_EMU_BLOCK_CAP change the caps (0: none, the full launch shape). */
    unsigned grid = gx;
    unsigned block = bx;
    if (e->threads && emu_grid_cap && grid > emu_grid_cap) grid = emu_grid_cap;
    if (e->threads && emu_block_cap && block > emu_block_cap) block = emu_block_cap;
    device_access_begin();
    int bad = sh_emu_launch(e->fn, grid, block, (const sh_params *)p[0]);
    device_access_end();
    return bad ? 1 : 0;
}
#else
EXPORT CUresult cuModuleLoadData(void **m, const void *img) {
    (void)m;
    (void)img;
    return 801;
}
EXPORT CUresult cuModuleUnload(void *m) {
    (void)m;
    return 0;
}
EXPORT CUresult cuModuleGetFunction(void **f, void *m, const char *n) {
    (void)f;
    (void)m;
    (void)n;
    return 801;
}
EXPORT CUresult cuLaunchKernel(void *f, unsigned a, unsigned b, unsigned c, unsigned d, unsigned e,
                               unsigned g, unsigned h, void *s, void **p, void **x) {
    (void)f;
    (void)a;
    (void)b;
    (void)c;
    (void)d;
    (void)e;
    (void)g;
    (void)h;
    (void)s;
    (void)p;
    (void)x;
    return 801;
}
#endif
EXPORT CUresult cuGetErrorName(CUresult r, const char **s) {
    *s = r == 2     ? "CUDA_ERROR_OUT_OF_MEMORY"
         : r == 801 ? "CUDA_ERROR_NOT_SUPPORTED"
         : r == 400 ? "CUDA_ERROR_INVALID_HANDLE"
         : r == 201 ? "CUDA_ERROR_INVALID_CONTEXT"
                    : "CUDA_ERROR_UNKNOWN";
    return 0;
}
EXPORT CUresult cuGetErrorString(CUresult r, const char **s) {
    *s = r == 2 ? "out of memory" : r == 801 ? "operation not supported" : "unknown error";
    return 0;
}

/* runtime/cuda/device.c: CUDA devices, the per-thread current device and current stream,
 * the stream pool, device and stream guards, events, copies, cuBLAS handles and
 * torch_c10_cuda_check_msg. Every entry point loads the driver first and fails with
 * "the CUDA libraries cannot be used: <why>" when it cannot. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

#define MAX_DEVICES 64
#define POOL_STREAMS 32

static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext primary[MAX_DEVICES]; /* written once under ctx_lock, read atomically */

/* The thread's current device when the driver's current context is none of the primary
 * contexts (no context yet, or another library's own context): cudart's default, device 0,
 * until a guard or set-device changes it. */
static _Thread_local int32_t tls_device;
static _Thread_local CUstream tls_stream[MAX_DEVICES]; /* current stream per device */

static AOTITorchError check_index(const char *func, const shimrt_cuda_api *cu, int32_t idx) {
    if (idx < 0 || idx >= cu->device_count || idx >= MAX_DEVICES)
        return shimrt_fail(func, "CUDA device index %d is out of range (%d device(s) present)",
                           (int)idx, cu->device_count);
    return AOTI_TORCH_SUCCESS;
}

/* The current device, as cudart defines it: the device of the context current on the
 * thread (whoever made it current: a guard, the application's cudaSetDevice, another
 * library), else tls_device. Asked of the driver every time, never cached: a cached
 * context goes stale as soon as anyone else calls cuCtxSetCurrent. */
static int32_t current_device(const shimrt_cuda_api *cu) {
    CUcontext c = NULL;
    CUdevice d = -1;
    if (cu->cuCtxGetCurrent(&c) == 0 && c && cu->cuCtxGetDevice(&d) == 0 && d >= 0 &&
        d < cu->device_count && d < MAX_DEVICES)
        return d;
    return tls_device;
}

/* Device idx's primary context (retained on first use). */
static AOTITorchError primary_ctx(const char *func, const shimrt_cuda_api *cu, int32_t idx,
                                  CUcontext *out) {
    CUcontext c = __atomic_load_n(&primary[idx], __ATOMIC_ACQUIRE);
    if (c) {
        *out = c;
        return AOTI_TORCH_SUCCESS;
    }
    CUresult r = 0;
    pthread_mutex_lock(&ctx_lock);
    c = primary[idx];
    if (!c) {
        CUdevice dev;
        r = cu->cuDeviceGet(&dev, idx);
        if (r == 0) r = cu->cuDevicePrimaryCtxRetain(&c, dev);
        if (r == 0) __atomic_store_n(&primary[idx], c, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&ctx_lock);
    if (r != 0) return shimrt_cu_fail(func, "cuDevicePrimaryCtxRetain", r);
    *out = c;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cuda_resolve_device(const char *func, int32_t device_index, int32_t *out) {
    const shimrt_cuda_api *cu = shimrt_cuda_driver(func);
    if (!cu) return AOTI_TORCH_FAILURE;
    int32_t idx = device_index < 0 ? current_device(cu) : device_index;
    if (check_index(func, cu, idx)) return AOTI_TORCH_FAILURE;
    if (out) *out = idx;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cuda_use_device(const char *func, int32_t device_index, int32_t *out) {
    const shimrt_cuda_api *cu = shimrt_cuda_driver(func);
    int32_t idx;
    CUcontext c, now = NULL;
    if (shimrt_cuda_resolve_device(func, device_index, &idx) || primary_ctx(func, cu, idx, &c))
        return AOTI_TORCH_FAILURE;
    if (cu->cuCtxGetCurrent(&now) != 0 || now != c) {
        CUresult r = cu->cuCtxSetCurrent(c);
        if (r != 0) return shimrt_cu_fail(func, "cuCtxSetCurrent", r);
    }
    tls_device = idx;
    if (out) *out = idx;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cuda_enter(const char *func, int32_t device_index, shimrt_cuda_ctx_guard *g,
                                 int32_t *out) {
    g->cu = NULL;
    const shimrt_cuda_api *cu = shimrt_cuda_driver(func);
    if (!cu) return AOTI_TORCH_FAILURE;
    int32_t idx = device_index < 0 ? current_device(cu) : device_index;
    CUcontext c, now = NULL;
    if (check_index(func, cu, idx) || primary_ctx(func, cu, idx, &c)) return AOTI_TORCH_FAILURE;
    CUresult r = cu->cuCtxGetCurrent(&now);
    if (r != 0) return shimrt_cu_fail(func, "cuCtxGetCurrent", r);
    if (now != c) {
        if ((r = cu->cuCtxSetCurrent(c)) != 0) return shimrt_cu_fail(func, "cuCtxSetCurrent", r);
        /* As cudart's first call on a thread: with no context current, the current device's
         * primary context stays current (the current device does not change), so the next op
         * switches nothing; any other context of the caller's is put back by leave. */
        if (now || idx != tls_device) {
            g->cu = cu;
            g->prev = now;
        }
    }
    if (out) *out = idx;
    return AOTI_TORCH_SUCCESS;
}

void shimrt_cuda_leave(shimrt_cuda_ctx_guard *g) {
    if (g->cu) (void)g->cu->cuCtxSetCurrent(g->prev);
    g->cu = NULL;
}

CUstream shimrt_cuda_current_stream(int32_t device_index) {
    return device_index >= 0 && device_index < MAX_DEVICES ? tls_stream[device_index] : NULL;
}

AOTITorchError shimrt_cuda_check_device(const char *func, int32_t device_index) {
    return shimrt_cuda_resolve_device(func, device_index, NULL);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_device_count(int32_t *ret_count) {
    SHIMRT_CHECK_ARG(ret_count);
    const shimrt_cuda_api *cu = shimrt_cuda_driver(__func__);
    if (!cu) return AOTI_TORCH_FAILURE;
    *ret_count = cu->device_count;
    return AOTI_TORCH_SUCCESS;
}

/* ---- device guards ---- */
#define CUDA_GUARD_MAGIC UINT64_C(0x5348435547554152)   /* "SHCUGUAR" */
#define STREAM_GUARD_MAGIC UINT64_C(0x5348435553475541) /* "SHCUSGUA" */
struct CUDAGuardOpaque {
    uint64_t magic;
    int32_t prev_device;
};
struct CUDAStreamGuardOpaque {
    uint64_t magic;
    int32_t prev_device, device;
    CUstream prev_stream;
};
static shimrt_pool guard_pool = SHIMRT_POOL_INIT(struct CUDAGuardOpaque);
static shimrt_pool sguard_pool = SHIMRT_POOL_INIT(struct CUDAStreamGuardOpaque);

static AOTITorchError check_handle(const char *func, const shimrt_pool *pool, const void *h,
                                   uint64_t magic, const char *what) {
    if (!h) return shimrt_fail(func, "argument 'guard' is NULL");
    if (!shimrt_pool_contains(pool, h))
        return shimrt_fail(func, "argument 'guard' is not a %s handle", what);
    uint64_t m;
    memcpy(&m, h, sizeof m);
    if (m != magic) return shimrt_fail(func, "argument 'guard' is a freed %s handle", what);
    return AOTI_TORCH_SUCCESS;
}

/* A new guard slot (magic set) after making device_index current (*idx: its index). */
static void *guard_slot(const char *func, shimrt_pool *pool, uint64_t magic, int32_t device_index,
                        int32_t *idx) {
    if (shimrt_cuda_use_device(func, device_index, idx)) return NULL;
    return shimrt_pool_new(func, pool, magic);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_create_cuda_guard(int32_t device_index,
                                                              CUDAGuardHandle *ret_guard) {
    SHIMRT_CHECK_ARG(ret_guard);
    int32_t prev = 0, idx;
    if (shimrt_cuda_resolve_device(__func__, -1, &prev)) return AOTI_TORCH_FAILURE;
    CUDAGuardHandle g = guard_slot(__func__, &guard_pool, CUDA_GUARD_MAGIC, device_index, &idx);
    if (!g) return AOTI_TORCH_FAILURE;
    g->prev_device = prev;
    *ret_guard = g;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_delete_cuda_guard(CUDAGuardHandle guard) {
    if (!guard) return AOTI_TORCH_SUCCESS;
    if (check_handle(__func__, &guard_pool, guard, CUDA_GUARD_MAGIC, "CUDA guard"))
        return AOTI_TORCH_FAILURE;
    int32_t prev = guard->prev_device;
    shimrt_pool_free(&guard_pool, guard);
    return shimrt_cuda_use_device(__func__, prev, NULL);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cuda_guard_set_index(CUDAGuardHandle guard,
                                                                 int32_t device_index) {
    if (check_handle(__func__, &guard_pool, guard, CUDA_GUARD_MAGIC, "CUDA guard"))
        return AOTI_TORCH_FAILURE;
    return shimrt_cuda_use_device(__func__, device_index, NULL);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_create_cuda_stream_guard(
    void *stream, int32_t device_index, CUDAStreamGuardHandle *ret_guard) {
    SHIMRT_CHECK_ARG(ret_guard);
    int32_t prev = 0, idx;
    if (shimrt_cuda_resolve_device(__func__, -1, &prev)) return AOTI_TORCH_FAILURE;
    CUDAStreamGuardHandle g =
        guard_slot(__func__, &sguard_pool, STREAM_GUARD_MAGIC, device_index, &idx);
    if (!g) return AOTI_TORCH_FAILURE;
    g->prev_device = prev;
    g->device = idx;
    g->prev_stream = tls_stream[idx];
    tls_stream[idx] = (CUstream)stream;
    *ret_guard = g;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_delete_cuda_stream_guard(CUDAStreamGuardHandle guard) {
    if (!guard) return AOTI_TORCH_SUCCESS;
    if (check_handle(__func__, &sguard_pool, guard, STREAM_GUARD_MAGIC, "CUDA stream guard"))
        return AOTI_TORCH_FAILURE;
    tls_stream[guard->device] = guard->prev_stream;
    int32_t prev = guard->prev_device;
    shimrt_pool_free(&sguard_pool, guard);
    return shimrt_cuda_use_device(__func__, prev, NULL);
}

/* ---- streams ---- */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_current_cuda_stream(int32_t device_index,
                                                                    void **ret_stream) {
    SHIMRT_CHECK_ARG(ret_stream);
    int32_t idx;
    if (shimrt_cuda_resolve_device(__func__, device_index, &idx)) return AOTI_TORCH_FAILURE;
    *ret_stream = tls_stream[idx];
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_set_current_cuda_stream(void *stream, int32_t device_index) {
    int32_t idx; /* PyTorch's setCurrentCUDAStream: the current device does not change */
    if (shimrt_cuda_resolve_device(__func__, device_index, &idx)) return AOTI_TORCH_FAILURE;
    tls_stream[idx] = (CUstream)stream;
    return AOTI_TORCH_SUCCESS;
}

static struct {
    pthread_mutex_t lock;
    CUstream s[MAX_DEVICES][2][POOL_STREAMS];
    unsigned next[MAX_DEVICES][2];
} spool = {.lock = PTHREAD_MUTEX_INITIALIZER};

AOTI_TORCH_EXPORT AOTITorchError torch_get_cuda_stream_from_pool(bool isHighPriority,
                                                                 int32_t device_index,
                                                                 void **ret_stream) {
    SHIMRT_CHECK_ARG(ret_stream);
    int32_t idx;
    shimrt_cuda_ctx_guard g;
    if (shimrt_cuda_enter(__func__, device_index, &g, &idx)) return AOTI_TORCH_FAILURE;
    const shimrt_cuda_api *cu = shimrt_cuda_driver(__func__);
    int hp = isHighPriority ? 1 : 0, least = 0, greatest = 0;
    pthread_mutex_lock(&spool.lock);
    unsigned k = spool.next[idx][hp]++ % POOL_STREAMS;
    CUresult r = 0;
    if (!spool.s[idx][hp][k]) {
        if (cu->cuCtxGetStreamPriorityRange(&least, &greatest) != 0) least = greatest = 0;
        r = cu->cuStreamCreateWithPriority(&spool.s[idx][hp][k], SH_CU_STREAM_NON_BLOCKING,
                                           hp ? greatest : least);
    }
    CUstream s = spool.s[idx][hp][k];
    pthread_mutex_unlock(&spool.lock);
    shimrt_cuda_leave(&g);
    if (r != 0) return shimrt_cu_fail(__func__, "cuStreamCreateWithPriority", r);
    *ret_stream = s;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_cuda_stream_synchronize(void *stream, int32_t device_index) {
    shimrt_cuda_ctx_guard g;
    int32_t idx;
    if (shimrt_cuda_enter(__func__, device_index, &g, &idx)) return AOTI_TORCH_FAILURE;
    const shimrt_cuda_api *cu = shimrt_cuda_driver(__func__);
    CUresult r = cu->cuStreamSynchronize((CUstream)stream);
    shimrt_cuda_leave(&g);
    if (r) return shimrt_cu_fail(__func__, "cuStreamSynchronize", r);
    return shimrt_cuda_check_async(__func__, idx);
}

/* ---- events ---- */
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_event_new(bool timing, void **ret_event) {
    SHIMRT_CHECK_ARG(ret_event);
    if (shimrt_cuda_use_device(__func__, -1, NULL)) return AOTI_TORCH_FAILURE;
    const shimrt_cuda_api *cu = shimrt_cuda_driver(__func__);
    CUevent e = NULL;
    CUresult r = cu->cuEventCreate(&e, timing ? 0u : (unsigned)SH_CU_EVENT_DISABLE_TIMING);
    if (r) return shimrt_cu_fail(__func__, "cuEventCreate", r);
    *ret_event = e;
    return AOTI_TORCH_SUCCESS;
}

/* Returns the result of the driver call cu->fn(...): success, or a failure naming fn. */
#define CU_RETURN(fn, ...)                                                                         \
    do {                                                                                           \
        const shimrt_cuda_api *cu_ = shimrt_cuda_driver(__func__);                                 \
        if (!cu_) return AOTI_TORCH_FAILURE;                                                       \
        CUresult r_ = cu_->fn(__VA_ARGS__);                                                        \
        return r_ ? shimrt_cu_fail(__func__, #fn, r_) : AOTI_TORCH_SUCCESS;                        \
    } while (0)

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_event_delete(void *event) {
    if (!event) return AOTI_TORCH_SUCCESS;
    CU_RETURN(cuEventDestroy, (CUevent)event);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_event_record(void *event, void *stream) {
    SHIMRT_CHECK_ARG(event);
    CU_RETURN(cuEventRecord, (CUevent)event, (CUstream)stream);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_event_synchronize(void *event) {
    SHIMRT_CHECK_ARG(event);
    CU_RETURN(cuEventSynchronize, (CUevent)event);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_stream_wait_event(void *stream, void *event) {
    SHIMRT_CHECK_ARG(event);
    CU_RETURN(cuStreamWaitEvent, (CUstream)stream, (CUevent)event, 0);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_event_elapsed_ms(void *start, void *end,
                                                              float *ret_ms) {
    SHIMRT_CHECK_ARG(start);
    SHIMRT_CHECK_ARG(end);
    SHIMRT_CHECK_ARG(ret_ms);
    CU_RETURN(cuEventElapsedTime, ret_ms, (CUevent)start, (CUevent)end);
}

/* ---- device-side errors ----
 * Each device has a flag of four int64 in pinned host memory (mapped into the device's
 * address space under unified addressing), which the index kernels set with an atomic
 * compare-and-swap when they meet an index out of range: {code, value, dim, size}, the
 * first error wins. Nothing waits for it: the next synchronizing call on the device
 * (a copy to the host, a stream synchronize) reads it, clears it and fails with PyTorch's
 * message, as PyTorch reports a device-side assert at a later API call. */
static long long *err_flags[MAX_DEVICES];

AOTITorchError shimrt_cuda_error_flag(const char *func, int32_t dev, long long **out) {
    if (dev < 0 || dev >= MAX_DEVICES) return shimrt_fail(func, "bad CUDA device %d", (int)dev);
    long long *f = __atomic_load_n(&err_flags[dev], __ATOMIC_ACQUIRE);
    if (!f) {
        const shimrt_cuda_api *cu = shimrt_cuda_driver(func);
        shimrt_cuda_ctx_guard g;
        if (!cu || shimrt_cuda_enter(func, dev, &g, NULL)) return AOTI_TORCH_FAILURE;
        pthread_mutex_lock(&ctx_lock);
        CUresult r = 0;
        if (!(f = err_flags[dev])) {
            void *p = NULL;
            r = cu->cuMemAllocHost(&p, 4 * sizeof(long long));
            if (!r) {
                memset(p, 0, 4 * sizeof(long long));
                f = p;
                __atomic_store_n(&err_flags[dev], f, __ATOMIC_RELEASE);
            }
        }
        pthread_mutex_unlock(&ctx_lock);
        shimrt_cuda_leave(&g);
        if (r) return shimrt_cu_fail(func, "cuMemAllocHost", r);
    }
    *out = f;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cuda_check_async(const char *func, int32_t dev) {
    if (dev < 0 || dev >= MAX_DEVICES) return AOTI_TORCH_SUCCESS;
    long long *f = __atomic_load_n(&err_flags[dev], __ATOMIC_ACQUIRE);
    if (!f) return AOTI_TORCH_SUCCESS;
    long long code = __atomic_exchange_n(&f[0], 0, __ATOMIC_ACQ_REL);
    if (!code) return AOTI_TORCH_SUCCESS;
    long long v = f[1], dim = f[2], lim = f[3];
    char what[160];
    if (code == 1)
        snprintf(what, sizeof what, "index out of range in self (index %lld, size %lld)", v, lim);
    else
        snprintf(what, sizeof what, "index %lld is out of bounds for dimension %lld with size %lld",
                 v, dim, lim);
    return shimrt_fail(func,
                       "CUDA error: device-side assert triggered: %s (found by a kernel queued "
                       "earlier on cuda:%d; reported at this synchronizing call)",
                       what, (int)dev);
}

/* ---- copies ---- */
AOTITorchError shimrt_cuda_copy_on(const char *func, int32_t dev, void *dst, const void *src,
                                   uint64_t nbytes, bool sync) {
    if (nbytes == 0) return AOTI_TORCH_SUCCESS;
    shimrt_cuda_ctx_guard g;
    if (shimrt_cuda_enter(func, dev, &g, &dev)) return AOTI_TORCH_FAILURE;
    const shimrt_cuda_api *cu = shimrt_cuda_driver(func);
    CUstream s = tls_stream[dev];
    CUresult r = cu->cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src,
                                   (size_t)nbytes, s);
    const char *call = "cuMemcpyAsync";
    if (!r && !sync) {
        shimrt_cuda_host_record(dst, s);
        shimrt_cuda_host_record(src, s);
    }
    if (!r && sync) {
        r = cu->cuStreamSynchronize(s);
        call = "cuStreamSynchronize";
    }
    shimrt_cuda_leave(&g);
    if (r) return shimrt_cu_fail(func, call, r);
    return sync ? shimrt_cuda_check_async(func, dev) : AOTI_TORCH_SUCCESS;
}

/* The device of a device pointer (unified addressing), or -1 for host memory. */
static int32_t device_of(const shimrt_cuda_api *cu, const void *p) {
    int ordinal = -1;
    unsigned type = 0; /* CU_POINTER_ATTRIBUTE_MEMORY_TYPE: 2 device, 1 host */
    if (cu->cuPointerGetAttribute(&type, SH_CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                  (CUdeviceptr)(uintptr_t)p) != 0 ||
        type != SH_CU_MEMORYTYPE_DEVICE)
        return -1;
    if (cu->cuPointerGetAttribute(&ordinal, SH_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                  (CUdeviceptr)(uintptr_t)p) != 0)
        return -1;
    return ordinal;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_memcpy(void *dst, const void *src, uint64_t nbytes,
                                                    void *stream, bool sync) {
    if (nbytes == 0) return AOTI_TORCH_SUCCESS;
    SHIMRT_CHECK_ARG(dst);
    SHIMRT_CHECK_ARG(src);
    const shimrt_cuda_api *cu = shimrt_cuda_driver(__func__);
    if (!cu) return AOTI_TORCH_FAILURE;
    /* the device that owns the memory (dst's, else src's; else the current device), so the
     * copy is ordered after the work queued on that device's current stream */
    int32_t dev = device_of(cu, dst);
    if (dev < 0) dev = device_of(cu, src);
    if (!stream) return shimrt_cuda_copy_on(__func__, dev, dst, src, nbytes, sync);
    shimrt_cuda_ctx_guard g;
    if (shimrt_cuda_enter(__func__, dev, &g, &dev)) return AOTI_TORCH_FAILURE;
    CUresult r = cu->cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src,
                                   (size_t)nbytes, (CUstream)stream);
    const char *call = "cuMemcpyAsync";
    if (!r && !sync) {
        shimrt_cuda_host_record(dst, (CUstream)stream);
        shimrt_cuda_host_record(src, (CUstream)stream);
    }
    if (!r && sync) {
        r = cu->cuStreamSynchronize((CUstream)stream);
        call = "cuStreamSynchronize";
    }
    shimrt_cuda_leave(&g);
    if (r) return shimrt_cu_fail(__func__, call, r);
    return sync ? shimrt_cuda_check_async(__func__, dev) : AOTI_TORCH_SUCCESS;
}

/* ---- cuBLAS ----
 * As PyTorch's handle pool: a cuBLAS handle is used by one thread at a time. Each thread
 * takes one handle per device from the device's pool on first use (a new one when the pool
 * is empty) and gives it back when the thread exits, so a later thread reuses it; only the
 * owner calls cublasSetStream on it, so binding the caller's stream and running the GEMM
 * cannot interleave with another thread. Each (handle, stream) pair gets its own workspace
 * from the caching allocator (allocated for that stream, so its reuse is stream-ordered),
 * set after every cublasSetStream (which resets it to cuBLAS's default). Size: PyTorch's
 * CUBLAS_WORKSPACE_CONFIG (":SIZE_KIB:COUNT" pairs), default ":4096:8" on sm90 and newer,
 * ":4096:2:16:8" before. */
typedef struct blas_ws {
    void *handle;
    CUstream stream;
    void *ptr;
    struct blas_ws *next;
} blas_ws;
static pthread_mutex_t blas_lock = PTHREAD_MUTEX_INITIALIZER;
static void **blas_pool[MAX_DEVICES]; /* free handles per device */
static size_t blas_pool_n[MAX_DEVICES], blas_pool_cap[MAX_DEVICES];
static blas_ws *blas_workspaces;
static pthread_key_t blas_key;
static pthread_once_t blas_key_once = PTHREAD_ONCE_INIT;
static _Thread_local void *tls_blas[MAX_DEVICES]; /* this thread's handle per device */
static _Thread_local bool tls_blas_registered;

/* Thread exit: the thread's handles go back to their devices' pools. */
static void blas_thread_exit(void *unused) {
    (void)unused;
    pthread_mutex_lock(&blas_lock);
    for (int d = 0; d < MAX_DEVICES; d++) {
        if (!tls_blas[d]) continue;
        if (blas_pool_n[d] == blas_pool_cap[d]) {
            size_t cap = blas_pool_cap[d] ? 2 * blas_pool_cap[d] : 8;
            void **p = realloc(blas_pool[d], cap * sizeof *p);
            if (!p) continue; /* the handle is dropped (leaked), never shared */
            blas_pool[d] = p;
            blas_pool_cap[d] = cap;
        }
        blas_pool[d][blas_pool_n[d]++] = tls_blas[d];
        tls_blas[d] = NULL;
    }
    pthread_mutex_unlock(&blas_lock);
}
static void blas_make_key(void) {
    if (pthread_key_create(&blas_key, blas_thread_exit) != 0) blas_key = (pthread_key_t)-1;
}

static size_t blas_workspace_bytes(int32_t dev) {
    const char *cfg = getenv("CUBLAS_WORKSPACE_CONFIG");
    size_t total = 0;
    if (cfg && *cfg == ':') { /* ":SIZE:COUNT[:SIZE:COUNT...]", sizes in KiB */
        const char *p = cfg;
        while (*p == ':') {
            char *e;
            unsigned long long kib = strtoull(p + 1, &e, 10);
            if (*e != ':') break;
            unsigned long long count = strtoull(e + 1, &e, 10);
            if (kib > (1ull << 22) || count > 1024) break;
            total += (size_t)(kib * 1024 * count);
            p = e;
        }
        return total;
    }
    int arch = 0;
    const shimrt_cuda_api *cu = shimrt_cuda_driver("cublas");
    CUdevice d;
    if (cu && cu->cuDeviceGet(&d, dev) == 0 &&
        cu->cuDeviceGetAttribute(&arch, SH_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d) != 0)
        arch = 0;
    return arch >= 9 ? (size_t)4096 * 1024 * 8 : (size_t)4096 * 1024 * 2 + 16 * 1024 * 8;
}

AOTI_TORCH_EXPORT AOTITorchError torch_get_current_cuda_blas_handle(void **ret_handle) {
    SHIMRT_CHECK_ARG(ret_handle);
    int32_t idx;
    /* PyTorch's getCurrentCUDABlasHandle: the current device (its context made current) */
    if (shimrt_cuda_use_device(__func__, -1, &idx)) return AOTI_TORCH_FAILURE;
    return shimrt_cuda_blas_handle(__func__, idx, ret_handle);
}

AOTITorchError shimrt_cuda_blas_handle(const char *func, int32_t dev, void **ret_handle) {
    int32_t idx;
    if (shimrt_cuda_resolve_device(func, dev, &idx)) return AOTI_TORCH_FAILURE;
    const shimrt_cublas_api *bl = shimrt_cublas(func);
    if (!bl) return AOTI_TORCH_FAILURE;
    void *h = tls_blas[idx];
    int st = 0;
    if (!h) {
        pthread_once(&blas_key_once, blas_make_key);
        pthread_mutex_lock(&blas_lock);
        if (blas_pool_n[idx]) h = blas_pool[idx][--blas_pool_n[idx]];
        pthread_mutex_unlock(&blas_lock);
        if (!h && (st = bl->cublasCreate(&h)) != 0)
            return shimrt_fail(func, "cublasCreate failed with status %d", st);
        tls_blas[idx] = h;
        if (!tls_blas_registered && blas_key != (pthread_key_t)-1) {
            (void)pthread_setspecific(blas_key, (void *)1); /* runs blas_thread_exit */
            tls_blas_registered = true;
        }
    }
    CUstream s = tls_stream[idx];
    if ((st = bl->cublasSetStream(h, s)) != 0)
        return shimrt_fail(func, "cublasSetStream failed with status %d", st);
    if (bl->cublasSetWorkspace) {
        pthread_mutex_lock(&blas_lock);
        blas_ws *w = blas_workspaces;
        while (w && (w->handle != h || w->stream != s)) w = w->next;
        pthread_mutex_unlock(&blas_lock);
        size_t bytes = blas_workspace_bytes(idx);
        if (!w && bytes) {
            void *ptr = NULL;
            if (shimrt_cuda_alloc(func, bytes, idx, s, &ptr)) return AOTI_TORCH_FAILURE;
            if (!(w = malloc(sizeof *w))) {
                (void)shimrt_cuda_free(func, ptr);
                return shimrt_fail(func, "out of memory");
            }
            *w = (blas_ws){h, s, ptr, NULL};
            pthread_mutex_lock(&blas_lock); /* only this thread adds entries for h */
            w->next = blas_workspaces;
            blas_workspaces = w;
            pthread_mutex_unlock(&blas_lock);
        }
        if (w && (st = bl->cublasSetWorkspace(h, w->ptr, bytes)) != 0)
            return shimrt_fail(func, "cublasSetWorkspace failed with status %d", st);
    }
    *ret_handle = h;
    return AOTI_TORCH_SUCCESS;
}

/* ---- torch_c10_cuda_check_msg ---- */
/* cudaError_t names (driver_types.h), used when libcudart cannot be opened. */
static const char *cuda_error_name(int32_t err) {
    static const struct {
        int32_t code;
        const char *text;
    } names[] = {{1, "invalid argument"},
                 {2, "out of memory"},
                 {3, "initialization error"},
                 {4, "driver shutting down"},
                 {9, "invalid configuration argument"},
                 {13, "invalid device symbol"},
                 {35, "CUDA driver version is insufficient for CUDA runtime version"},
                 {98, "invalid device function"},
                 {100, "no CUDA-capable device is detected"},
                 {101, "invalid device ordinal"},
                 {200, "device kernel image is invalid"},
                 {209, "no kernel image is available for execution on the device"},
                 {400, "invalid resource handle"},
                 {600, "device not ready"},
                 {700, "an illegal memory access was encountered"},
                 {701, "too many resources requested for launch"},
                 {702, "the launch timed out and was terminated"},
                 {710, "device-side assert triggered"},
                 {719, "unspecified launch failure"},
                 {999, "unknown error"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].code == err) return names[i].text;
    return NULL;
}

static const char *(*cudart_error_string)(int);
static pthread_once_t cudart_once = PTHREAD_ONCE_INIT;
static void load_cudart(void) {
    static const char *const libs[] = {"libcudart.so.13", "libcudart.so.12", NULL};
    for (size_t i = 0; libs[i]; i++) {
        void *h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) continue;
        void *f = dlsym(h, "cudaGetErrorString");
        /* libshimrt-cudart installed as libcudart.so.13 (docs/dropin.md): its texts are ours */
        if (f && !dlsym(h, "shimrt_cudart")) {
            memcpy(&cudart_error_string, &f, sizeof f);
            return;
        }
        dlclose(h);
    }
}

/* cudaGetErrorString's text for err: libcudart's when it can be opened, else the table's;
 * NULL for a code neither knows. */
static const char *error_text(int32_t err) {
    pthread_once(&cudart_once, load_cudart);
    return cudart_error_string ? cudart_error_string(err) : cuda_error_name(err);
}

AOTI_TORCH_EXPORT AOTITorchError torch_c10_cuda_check_msg(int32_t err, const char *filename,
                                                          const char *function_name,
                                                          uint32_t line_number,
                                                          bool include_device_assertions,
                                                          char **error_msg) {
    SHIMRT_CHECK_ARG(error_msg);
    *error_msg = NULL;
    if (err == 0) return AOTI_TORCH_SUCCESS;
    const char *text = error_text(err);
    char code[32];
    if (!text) {
        snprintf(code, sizeof code, "error code %d", (int)err);
        text = code;
    }
    const char *tail = include_device_assertions
                           ? "Device-side assertions are not recorded by this runtime."
                           : "Device-side assertions were explicitly omitted for this error "
                             "check; the error probably arose while initializing the DSA "
                             "handlers.";
    const char *fmt = "CUDA error: %s\nCUDA kernel errors might be asynchronously reported at "
                      "some other API call, so the stacktrace below might be incorrect.\n%s\n"
                      "Error at %s:%u in %s";
    const char *f = filename ? filename : "?", *fn = function_name ? function_name : "?";
    int n = snprintf(NULL, 0, fmt, text, tail, f, (unsigned)line_number, fn);
    char *m = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!m) return shimrt_fail(__func__, "out of memory");
    snprintf(m, (size_t)n + 1, fmt, text, tail, f, (unsigned)line_number, fn);
    *error_msg = m;
    /* As PyTorch: the check itself succeeded; the CUDA error is reported in *error_msg. */
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT void torch_c10_cuda_free_error_msg(char *error_msg) { free(error_msg); }

AOTI_TORCH_EXPORT const char *shimrt_cuda_error_string(int32_t err) {
    if (err == 0) return "no error";
    const char *text = error_text(err);
    return text ? text : "unrecognized error code";
}

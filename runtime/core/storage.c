/* runtime/core/storage.c: reference-counted storage and the per-device allocators. */
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "internal.h"

/* Live storages (shimrt_live_objects("storage")). */
extern _Atomic int64_t shimrt_live_storages;

/* The allocator of a device: CPU memory is 64-byte aligned; meta has none. */
typedef struct {
    void *(*alloc)(size_t nbytes);
    void (*free)(void *data, void *ctx);
} allocator;

/* Blocks of 32 MiB and more are 2 MiB-aligned and asked to be backed by transparent huge
 * pages (where the kernel's THP mode is "madvise"). glibc serves such blocks with a fresh
 * mmap every time (32 MiB is its largest mmap threshold), so each fresh 64 MB output took
 * 16,384 page faults, most of the time of a bandwidth-bound op on it; with huge pages it
 * takes 32 (docs/PERFORMANCE.md). Smaller blocks are left alone: glibc reuses them from
 * its heap without faults once its threshold has moved up, and a huge-page hint there
 * only adds work. */
#define SHIMRT_HUGE_MIN ((size_t)32 << 20)
#define SHIMRT_HUGE_ALIGN ((size_t)2 << 20)
static void *cpu_alloc(size_t nbytes) {
    void *p = NULL;
    if (nbytes == 0) return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (nbytes >= SHIMRT_HUGE_MIN) {
        if (posix_memalign(&p, SHIMRT_HUGE_ALIGN, nbytes) != 0) return NULL;
        (void)madvise(p, nbytes & ~(SHIMRT_HUGE_ALIGN - 1), MADV_HUGEPAGE); /* a hint */
        return p;
    }
#endif
    if (posix_memalign(&p, SHIMRT_CPU_ALIGNMENT, nbytes) != 0) return NULL;
    return p;
}
static void cpu_free(void *data, void *ctx) {
    (void)ctx;
    free(data);
}
static void *meta_alloc(size_t nbytes) {
    (void)nbytes;
    return NULL;
}

static const allocator *allocator_for(int32_t device_type) {
    static const allocator cpu = {cpu_alloc, cpu_free}, meta = {meta_alloc, NULL},
                           cuda = {NULL, shimrt_cuda_storage_free};
    switch (device_type) {
    case SHIMRT_DEV_CPU: return &cpu;
    case SHIMRT_DEV_META: return &meta;
    case SHIMRT_DEV_CUDA: return &cuda;
    default: return NULL;
    }
}

shimrt_storage *shimrt_storage_new(const char *func, size_t nbytes, int32_t device_type,
                                   int32_t device_index) {
    if (shimrt_check_device(func, device_type, device_index)) return NULL;
    const allocator *a = allocator_for(device_type);
    if (!a) {
        shimrt_fail(func, "no allocator for device type %d", (int)device_type);
        return NULL;
    }
    if (device_type != SHIMRT_DEV_META && nbytes > SHIMRT_MAX_ALLOC_BYTES) {
        shimrt_fail(func, "allocation of %zu bytes is too large (limit %llu bytes)", nbytes,
                    (unsigned long long)SHIMRT_MAX_ALLOC_BYTES);
        return NULL;
    }
    shimrt_storage *s = calloc(1, sizeof *s);
    if (!s) {
        shimrt_fail(func, "out of memory");
        return NULL;
    }
    if (device_type == SHIMRT_DEV_CUDA) { /* runtime/cuda/alloc.c */
        if (shimrt_cuda_storage_alloc(func, nbytes, device_index, &s->data)) {
            free(s);
            return NULL;
        }
    } else {
        s->data = a->alloc(nbytes);
    }
    if (nbytes && !s->data && device_type == SHIMRT_DEV_CPU) {
        free(s);
        shimrt_fail(func, "not enough memory: you tried to allocate %zu bytes", nbytes);
        return NULL;
    }
    atomic_init(&s->refcount, 1);
    atomic_fetch_add_explicit(&shimrt_live_storages, 1, memory_order_relaxed);
    s->nbytes = nbytes;
    s->device_type = device_type;
    s->device_index = device_index < 0 ? 0 : device_index;
    s->deleter = a->free;
    return s;
}

shimrt_storage *shimrt_storage_wrap(const char *func, void *data, size_t nbytes,
                                    int32_t device_type, int32_t device_index,
                                    void (*deleter)(void *, void *), void *ctx) {
    shimrt_storage *s = calloc(1, sizeof *s);
    if (!s) {
        shimrt_fail(func, "out of memory");
        return NULL;
    }
    atomic_init(&s->refcount, 1);
    /* counted as shimrt_storage_new's are: every storage is uncounted by the last release */
    atomic_fetch_add_explicit(&shimrt_live_storages, 1, memory_order_relaxed);
    s->data = data;
    s->nbytes = nbytes;
    s->device_type = device_type;
    s->device_index = device_index < 0 ? 0 : device_index;
    s->deleter = deleter;
    s->deleter_ctx = ctx;
    return s;
}

void shimrt_storage_retain(shimrt_storage *s) {
    if (s) atomic_fetch_add_explicit(&s->refcount, 1, memory_order_relaxed);
}

void shimrt_storage_release(shimrt_storage *s) {
    if (!s) return;
    if (atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_acq_rel) != 1) return;
    if (s->deleter) s->deleter(s->data, s->deleter_ctx);
    atomic_fetch_sub_explicit(&shimrt_live_storages, 1, memory_order_relaxed);
    free(s);
}

AOTITorchError shimrt_storage_grow(const char *func, shimrt_storage *s, size_t nbytes) {
    if (nbytes <= s->nbytes) return AOTI_TORCH_SUCCESS;
    const allocator *a = allocator_for(s->device_type);
    if (s->device_type == SHIMRT_DEV_META) {
        s->nbytes = nbytes; /* no data */
        return AOTI_TORCH_SUCCESS;
    }
    /* only memory the runtime allocated itself can move (PyTorch: a storage from_blob is
     * not resizable either) */
    if (!a || s->deleter != a->free || s->deleter_ctx)
        return shimrt_fail(func, "Trying to resize storage that is not resizable");
    shimrt_storage *n = shimrt_storage_new(func, nbytes, s->device_type, s->device_index);
    if (!n) return AOTI_TORCH_FAILURE;
    AOTITorchError err = AOTI_TORCH_SUCCESS;
    if (s->nbytes) { /* the old bytes, through the copy every device has */
        int64_t old = (int64_t)s->nbytes, one = 1;
        AtenTensorHandle from = shimrt_tensor_new(func, s, 1, &old, &one, 0, SHIMRT_UINT8,
                                                  s->device_type, s->device_index,
                                                  SHIMRT_LAYOUT_STRIDED),
                         to = shimrt_tensor_new(func, n, 1, &old, &one, 0, SHIMRT_UINT8,
                                                n->device_type, n->device_index,
                                                SHIMRT_LAYOUT_STRIDED);
        err = from && to ? aoti_torch_copy_(to, from, 0) : AOTI_TORCH_FAILURE;
        shimrt_tensor_free(from);
        shimrt_tensor_free(to);
    }
    if (err == AOTI_TORCH_SUCCESS) { /* s takes the new block; n leaves with the old one */
        void *d = s->data;
        s->data = n->data;
        n->data = d;
        n->nbytes = s->nbytes;
        s->nbytes = nbytes;
    }
    shimrt_storage_release(n);
    return err;
}

/* runtime/cuda/alloc.c: the caching allocator for device memory and pinned host memory.
 *
 * Requests are rounded up to 512 bytes. A freed block goes back to a free list and is
 * reused for a later request on the same device and the same stream (stream-ordered reuse:
 * work queued on that stream before the free finishes before any later use), when it is at
 * least as large as the request and at most twice as large. When the driver runs out of
 * memory the cached blocks are released and the allocation retried. Pinned host blocks are
 * cached the same way. One mutex guards the tables. */
#include <pthread.h>
#include <stdlib.h>

#include "cuda_internal.h"

#define ROUND 512u
#define BUCKETS 1024u

typedef struct block {
    void *ptr;
    size_t size;
    int32_t device;
    CUstream stream;
    bool host, used;
    struct block *next;      /* hash chain */
    struct block *next_free; /* free list */
} block;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static block *table[BUCKETS];
static block *free_list;
static uint64_t bytes_used, bytes_cached;

static size_t bucket_of(const void *p) { return ((uintptr_t)p >> 9) % BUCKETS; }

static block *find(const void *p) {
    for (block *b = table[bucket_of(p)]; b; b = b->next)
        if (b->ptr == p) return b;
    return NULL;
}

static void unlink_block(block *b) {
    block **pp = &table[bucket_of(b->ptr)];
    while (*pp != b) pp = &(*pp)->next;
    *pp = b->next;
}

/* Frees every cached block (lock held). */
static void release_cached(const shimrt_cuda_api *cu) {
    for (block *b = free_list, *n; b; b = n) {
        n = b->next_free;
        if (b->host)
            cu->cuMemFreeHost(b->ptr);
        else
            cu->cuMemFree((CUdeviceptr)(uintptr_t)b->ptr);
        bytes_cached -= b->size;
        unlink_block(b);
        free(b);
    }
    free_list = NULL;
}

static AOTITorchError take(const char *func, size_t nbytes, int32_t device, CUstream stream,
                           bool host, void **out) {
    const shimrt_cuda_api *cu = shimrt_cuda_driver(func);
    if (!cu) return AOTI_TORCH_FAILURE;
    if (nbytes == 0) {
        *out = NULL;
        return AOTI_TORCH_SUCCESS;
    }
    if (nbytes > SHIMRT_MAX_ALLOC_BYTES)
        return shimrt_fail(func, "allocation of %zu bytes is too large", nbytes);
    size_t size = (nbytes + ROUND - 1) / ROUND * ROUND;
    pthread_mutex_lock(&lock);
    block **best = NULL;
    for (block **pp = &free_list; *pp; pp = &(*pp)->next_free) {
        block *b = *pp;
        if (b->host != host || b->size < size || b->size > 2 * size) continue;
        if (!host && (b->device != device || b->stream != stream)) continue;
        if (!best || b->size < (*best)->size) best = pp;
    }
    if (best) {
        block *b = *best;
        *best = b->next_free;
        b->used = true;
        bytes_cached -= b->size;
        bytes_used += b->size;
        pthread_mutex_unlock(&lock);
        *out = b->ptr;
        return AOTI_TORCH_SUCCESS;
    }
    block *b = calloc(1, sizeof *b);
    if (!b) {
        pthread_mutex_unlock(&lock);
        return shimrt_fail(func, "out of memory");
    }
    CUresult r;
    shimrt_cuda_ctx_guard g;
    if (shimrt_cuda_enter(func, host ? -1 : device, &g, NULL)) {
        pthread_mutex_unlock(&lock);
        free(b);
        return AOTI_TORCH_FAILURE;
    }
    for (int attempt = 0;; attempt++) {
        if (host) {
            r = cu->cuMemAllocHost(&b->ptr, size);
        } else {
            CUdeviceptr d = 0;
            r = cu->cuMemAlloc(&d, size);
            b->ptr = (void *)(uintptr_t)d;
        }
        if (r == 0 || attempt == 1 || !free_list) break;
        release_cached(cu); /* out of memory (or another failure): retry once with less held */
    }
    shimrt_cuda_leave(&g);
    if (r != 0) {
        pthread_mutex_unlock(&lock);
        free(b);
        return shimrt_cu_fail(func, host ? "cuMemAllocHost" : "cuMemAlloc", r);
    }
    b->size = size;
    b->device = device;
    b->stream = stream;
    b->host = host;
    b->used = true;
    size_t k = bucket_of(b->ptr);
    b->next = table[k];
    table[k] = b;
    bytes_used += size;
    pthread_mutex_unlock(&lock);
    *out = b->ptr;
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError give(const char *func, void *ptr, bool host) {
    if (!ptr) return AOTI_TORCH_SUCCESS;
    pthread_mutex_lock(&lock);
    block *b = find(ptr);
    if (!b || b->host != host || !b->used) {
        pthread_mutex_unlock(&lock);
        return shimrt_fail(func,
                           "pointer %p was not allocated by the %s caching allocator "
                           "(or was freed already)",
                           ptr, host ? "pinned host" : "CUDA");
    }
    b->used = false;
    b->next_free = free_list;
    free_list = b;
    bytes_used -= b->size;
    bytes_cached += b->size;
    pthread_mutex_unlock(&lock);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cuda_alloc(const char *func, size_t nbytes, int32_t device_index,
                                 CUstream stream, void **out) {
    return take(func, nbytes, device_index, stream, false, out);
}

AOTITorchError shimrt_cuda_free(const char *func, void *ptr) { return give(func, ptr, false); }

/* The storage hooks of runtime/core (storage.c). */
AOTITorchError shimrt_cuda_storage_alloc(const char *func, size_t nbytes, int32_t device_index,
                                         void **out) {
    int32_t idx;
    if (shimrt_cuda_resolve_device(func, device_index, &idx)) return AOTI_TORCH_FAILURE;
    return take(func, nbytes, idx, shimrt_cuda_current_stream(idx), false, out);
}

void shimrt_cuda_storage_free(void *data, void *ctx) {
    (void)ctx;
    (void)give("shimrt_cuda_storage_free", data, false);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cuda_caching_allocator_raw_alloc(uint64_t nbytes,
                                                                             void **ret_ptr) {
    SHIMRT_CHECK_ARG(ret_ptr);
    int32_t idx;
    if (shimrt_cuda_resolve_device(__func__, -1, &idx)) return AOTI_TORCH_FAILURE;
    if (nbytes > SHIMRT_MAX_ALLOC_BYTES)
        return shimrt_fail(__func__, "allocation of %llu bytes is too large",
                           (unsigned long long)nbytes);
    return take(__func__, (size_t)nbytes, idx, shimrt_cuda_current_stream(idx), false, ret_ptr);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cuda_caching_allocator_raw_delete(void *ptr) {
    return give(__func__, ptr, false);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_host_alloc(uint64_t nbytes, void **ret_ptr) {
    SHIMRT_CHECK_ARG(ret_ptr);
    if (shimrt_cuda_resolve_device(__func__, -1, NULL)) return AOTI_TORCH_FAILURE;
    if (nbytes > SHIMRT_MAX_ALLOC_BYTES)
        return shimrt_fail(__func__, "allocation of %llu bytes is too large",
                           (unsigned long long)nbytes);
    return take(__func__, (size_t)nbytes, -1, NULL, true, ret_ptr);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_host_free(void *ptr) {
    return give(__func__, ptr, true);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_empty_cache(void) {
    const shimrt_cuda_api *cu = shimrt_cuda_driver(__func__);
    if (!cu) return AOTI_TORCH_FAILURE;
    pthread_mutex_lock(&lock);
    release_cached(cu);
    pthread_mutex_unlock(&lock);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_memory_stats(uint64_t *ret_allocated,
                                                          uint64_t *ret_cached) {
    SHIMRT_CHECK_ARG(ret_allocated);
    SHIMRT_CHECK_ARG(ret_cached);
    pthread_mutex_lock(&lock);
    *ret_allocated = bytes_used;
    *ret_cached = bytes_cached;
    pthread_mutex_unlock(&lock);
    return AOTI_TORCH_SUCCESS;
}

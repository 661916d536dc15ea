/* runtime/core/pool.c: fixed-size handle slots whose memory is never given back, so that
 * a freed or foreign handle can be recognised without touching unmapped memory. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* One lock for all pools: allocation and free are rare next to use. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

/* Freed slots wait in a FIFO; they are reused only once this many are queued, so a stale
 * handle keeps reading as freed for a while. */
#define POOL_REUSE_AFTER 64

/* Every pool that has a slab (append-only, readers lock-free): shimrt_in_any_pool. */
#define MAX_POOLS 64
static shimrt_pool *_Atomic g_pools[MAX_POOLS];
static _Atomic int g_npools;

static bool add_slab(shimrt_pool *pool) {
    int n = atomic_load_explicit(&pool->nslabs, memory_order_relaxed);
    if (n >= SHIMRT_POOL_MAX_SLABS) return false;
    if (n == 0) {
        int k = atomic_load_explicit(&g_npools, memory_order_relaxed);
        if (k < MAX_POOLS) {
            atomic_store_explicit(&g_pools[k], pool, memory_order_relaxed);
            atomic_store_explicit(&g_npools, k + 1, memory_order_release);
        }
    }
    size_t slots = (size_t)64 << (n < 20 ? n : 20);
    size_t bytes = slots * pool->slot_size;
    char *mem = calloc(1, bytes);
    if (!mem) return false;
    pool->slab_bytes[n] = bytes;
    atomic_store_explicit(&pool->slab_base[n], mem, memory_order_relaxed);
    atomic_store_explicit(&pool->nslabs, n + 1, memory_order_release);
    pool->bump = mem;
    pool->bump_end = mem + bytes;
    return true;
}

void *shimrt_pool_alloc(shimrt_pool *pool) {
    void *slot = NULL;
    pthread_mutex_lock(&pool_lock);
    if (pool->free_count > POOL_REUSE_AFTER) {
        slot = pool->free_head;
        void *next;
        memcpy(&next, (char *)slot + sizeof(uint64_t), sizeof next);
        pool->free_head = next;
        if (!next) pool->free_tail = NULL;
        pool->free_count--;
    } else {
        if (pool->bump == pool->bump_end && !add_slab(pool)) {
            pthread_mutex_unlock(&pool_lock);
            return NULL;
        }
        slot = pool->bump;
        pool->bump += pool->slot_size;
    }
    pthread_mutex_unlock(&pool_lock);
    memset(slot, 0, pool->slot_size);
    return slot;
}

void shimrt_pool_free(shimrt_pool *pool, void *slot) {
    if (!slot) return;
    /* Keep the poisoned magic in the first 8 bytes, the FIFO link in the next 8. */
    memset((char *)slot + sizeof(uint64_t), 0, pool->slot_size - sizeof(uint64_t));
    uint64_t freed = SHIMRT_MAGIC_FREED;
    memcpy(slot, &freed, sizeof freed);
    pthread_mutex_lock(&pool_lock);
    if (pool->free_tail)
        memcpy((char *)pool->free_tail + sizeof(uint64_t), &slot, sizeof slot);
    else
        pool->free_head = slot;
    pool->free_tail = slot;
    pool->free_count++;
    pthread_mutex_unlock(&pool_lock);
}

bool shimrt_pool_contains(const shimrt_pool *pool, const void *p) {
    if (!p) return false;
    uintptr_t a = (uintptr_t)p;
    int n = atomic_load_explicit(&((shimrt_pool *)pool)->nslabs, memory_order_acquire);
    for (int i = 0; i < n; i++) {
        uintptr_t base = (uintptr_t)atomic_load_explicit(&((shimrt_pool *)pool)->slab_base[i],
                                                         memory_order_relaxed);
        if (a >= base && a < base + pool->slab_bytes[i]) return (a - base) % pool->slot_size == 0;
    }
    return false;
}

void *shimrt_pool_new(const char *func, shimrt_pool *pool, uint64_t magic) {
    void *p = shimrt_pool_alloc(pool);
    if (!p) {
        shimrt_fail(func, "out of memory");
        return NULL;
    }
    memcpy(p, &magic, sizeof magic);
    return p;
}

AOTITorchError shimrt_pool_check(const char *func, const shimrt_pool *pool, const void *h,
                                 uint64_t magic, const char *arg, const char *what) {
    if (!h) return shimrt_fail(func, "argument '%s' is NULL", arg);
    if (!shimrt_pool_contains(pool, h))
        return shimrt_fail(func, "argument '%s' is not a %s handle", arg, what);
    uint64_t m;
    memcpy(&m, h, sizeof m);
    if (m != magic) return shimrt_fail(func, "argument '%s' is a freed %s handle", arg, what);
    return AOTI_TORCH_SUCCESS;
}

bool shimrt_in_any_pool(const void *p) {
    uintptr_t a = (uintptr_t)p;
    int np = atomic_load_explicit(&g_npools, memory_order_acquire);
    for (int k = 0; k < np; k++) {
        shimrt_pool *pool = atomic_load_explicit(&g_pools[k], memory_order_relaxed);
        int n = atomic_load_explicit(&pool->nslabs, memory_order_acquire);
        for (int i = 0; i < n; i++) {
            uintptr_t base =
                (uintptr_t)atomic_load_explicit(&pool->slab_base[i], memory_order_relaxed);
            if (a >= base && a < base + pool->slab_bytes[i]) return true;
        }
    }
    return false;
}

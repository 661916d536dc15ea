/* gen/schema/arena.c: bump allocator; see arena.h.
 *
 * An arena starts with one 64 KiB block from malloc (small arenas stay cheap). Every
 * further block is a "big" one: BIG_SIZE bytes mapped straight from the kernel (aligned to
 * BIG_SIZE and marked for transparent huge pages, so that the first touch costs one fault,
 * not hundreds), which go back to a small process-wide pool when their arena is freed, so
 * that the next arena reuses memory that is already mapped instead of faulting it in again.
 * Mapping them directly also keeps them out of malloc's heuristics (its mmap and trim
 * thresholds move when large blocks are freed).
 *
 * Each block knows from which offset on its bytes are still zero (`dirty`): fresh mappings
 * are all zero, and a pooled block is dirty only up to what its last arena used, so
 * sg_arena_alloc clears only bytes that may hold old data.
 *
 * Under AddressSanitizer big blocks come from malloc (its leak checker does not scan raw
 * mappings); the pool works the same. Pooled blocks are never handed back to the kernel
 * before exit: the pool holds at most POOL_MAX of them. */
#include "arena.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define SG_ARENA_MALLOC_BIG 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SG_ARENA_MALLOC_BIG 1
#endif
#endif
#ifndef SG_ARENA_MALLOC_BIG
#include <sys/mman.h>
#endif

enum { B_HEAP = 0, B_BIG = 1 };

typedef struct block {
    struct block *next;
    size_t cap, used;
    size_t dirty; /* bytes at data[dirty..cap) are known to be zero */
    int kind;     /* B_HEAP: malloc'd; B_BIG: BIG_SIZE bytes, pooled */
    max_align_t data[];
} block;

struct sg_arena {
    block *head;
    size_t total;
};

enum { BLOCK_MIN = 64 * 1024 };
#define BIG_SIZE ((size_t)2 << 20)
#define BIG_CAP (BIG_SIZE - sizeof(block))
enum { POOL_MAX = 16 }; /* 32 MiB */

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static block *pool;
static int pool_n;

static block *map_big(void) {
#ifdef SG_ARENA_MALLOC_BIG
    block *b = malloc(BIG_SIZE);
    if (!b) return NULL;
    b->dirty = BIG_CAP;
#else
    /* twice the size, then trim to a BIG_SIZE-aligned window */
    char *raw =
        mmap(NULL, 2 * BIG_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    uintptr_t start = ((uintptr_t)raw + BIG_SIZE - 1) & ~(uintptr_t)(BIG_SIZE - 1);
    size_t head = (size_t)(start - (uintptr_t)raw), tail = BIG_SIZE - head;
    if (head) munmap(raw, head);
    if (tail) munmap((char *)start + BIG_SIZE, tail);
#ifdef MADV_HUGEPAGE
    madvise((void *)start, BIG_SIZE, MADV_HUGEPAGE); /* a hint: failure is harmless */
#endif
    block *b = (block *)start;
    b->dirty = 0;
#endif
    b->kind = B_BIG;
    b->cap = BIG_CAP;
    return b;
}

static void unmap_big(block *b) {
#ifdef SG_ARENA_MALLOC_BIG
    free(b);
#else
    munmap(b, BIG_SIZE);
#endif
}

static block *get_big(void) {
    pthread_mutex_lock(&pool_lock);
    block *b = pool;
    if (b) {
        pool = b->next;
        pool_n--;
    }
    pthread_mutex_unlock(&pool_lock);
    return b ? b : map_big();
}

static void put_big(block *b) {
    if (b->used > b->dirty) b->dirty = b->used;
    pthread_mutex_lock(&pool_lock);
    if (pool_n < POOL_MAX) {
        b->next = pool;
        pool = b;
        pool_n++;
        b = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    if (b) unmap_big(b);
}

sg_arena *sg_arena_new(void) { return calloc(1, sizeof(sg_arena)); }

void sg_arena_free(sg_arena *a) {
    if (!a) return;
    block *b = a->head;
    while (b) {
        block *n = b->next;
        if (b->kind == B_BIG)
            put_big(b);
        else
            free(b);
        b = n;
    }
    free(a);
}

static block *heap_block(size_t cap) {
    if (cap > SIZE_MAX - sizeof(block)) return NULL; /* the header would wrap the size */
    block *b = malloc(sizeof(block) + cap);
    if (!b) return NULL;
    b->kind = B_HEAP;
    b->cap = cap;
    b->dirty = cap;
    return b;
}

/* size bytes (rounded up), zeroed or not. */
static void *alloc(sg_arena *a, size_t size, int zero) {
    const size_t align = sizeof(max_align_t);
    /* no object may exceed PTRDIFF_MAX (and no malloc is asked for more) */
    if (size > (size_t)PTRDIFF_MAX - BIG_SIZE) return NULL;
    size = (size + align - 1) & ~(align - 1);
    if (size == 0) size = align;
    block *b = a->head;
    if (!b || b->cap - b->used < size) {
        block *nb;
        /* the first block, or one too large for a big block: malloc'd; a large one goes
         * behind the current block so that the current block's free space stays usable */
        bool behind = false;
        if (!b) {
            nb = heap_block(size > BLOCK_MIN ? size : BLOCK_MIN);
        } else if (size > BIG_CAP) {
            nb = heap_block(size);
            behind = true;
        } else {
            nb = get_big();
            behind = size > BIG_CAP / 4;
        }
        if (!nb) return NULL;
        nb->used = 0;
        if (behind) {
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    char *p = (char *)b->data + b->used;
    if (zero && b->used < b->dirty) {
        size_t end = b->used + size;
        memset(p, 0, (end < b->dirty ? end : b->dirty) - b->used);
    }
    b->used += size;
    a->total += size;
    return p;
}

void *sg_arena_alloc(sg_arena *a, size_t size) { return alloc(a, size, 1); }

void *sg_arena_alloc_raw(sg_arena *a, size_t size) { return alloc(a, size, 0); }

char *sg_arena_strndup(sg_arena *a, const char *s, size_t len) {
    if (len == SIZE_MAX) return NULL;
    char *p = alloc(a, len + 1, 0);
    if (!p) return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *sg_arena_strdup(sg_arena *a, const char *s) { return sg_arena_strndup(a, s, strlen(s)); }

char *sg_arena_printf(sg_arena *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return NULL;
    char *p = alloc(a, (size_t)n + 1, 0);
    if (!p) return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

size_t sg_arena_used(const sg_arena *a) { return a->total; }

void sg_arena_absorb(sg_arena *dst, sg_arena *src) {
    if (!src) return;
    block *last = src->head;
    if (last) {
        while (last->next) last = last->next;
        /* behind dst's current block, so that its free space stays in use */
        if (dst->head) {
            last->next = dst->head->next;
            dst->head->next = src->head;
        } else {
            dst->head = src->head;
        }
    }
    dst->total += src->total;
    free(src);
}

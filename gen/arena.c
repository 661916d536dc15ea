/* gen/arena.c: bump allocator; see arena.h. */
#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct block {
    struct block *next;
    size_t cap, used;
    max_align_t data[];
} block;

struct sg_arena {
    block *head;
    size_t total;
};

enum { BLOCK_MIN = 64 * 1024 };

sg_arena *sg_arena_new(void) { return calloc(1, sizeof(sg_arena)); }

void sg_arena_free(sg_arena *a) {
    if (!a) return;
    block *b = a->head;
    while (b) {
        block *n = b->next;
        free(b);
        b = n;
    }
    free(a);
}

void *sg_arena_alloc(sg_arena *a, size_t size) {
    const size_t align = sizeof(max_align_t);
    size = (size + align - 1) & ~(align - 1);
    if (size == 0) size = align;
    block *b = a->head;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > BLOCK_MIN ? size : BLOCK_MIN;
        block *nb = malloc(sizeof(block) + cap);
        if (!nb) return NULL;
        nb->cap = cap;
        nb->used = 0;
        /* A large one-off allocation goes behind the current block so that the
         * current block's free space stays usable. */
        if (b && size > BLOCK_MIN) {
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    void *p = (char *)b->data + b->used;
    b->used += size;
    a->total += size;
    memset(p, 0, size);
    return p;
}

char *sg_arena_strndup(sg_arena *a, const char *s, size_t len) {
    char *p = sg_arena_alloc(a, len + 1);
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
    char *p = sg_arena_alloc(a, (size_t)n + 1);
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

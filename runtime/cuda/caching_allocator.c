/* runtime/cuda/caching_allocator.c: the caching allocator for device memory and pinned host memory
 * (docs/cuda.md, "The caching allocator", has the design in prose).
 *
 * Device memory comes from the driver in segments and is handed out in blocks carved from
 * them. Each device has its own lock and, per stream, a pool of free blocks in size-class
 * bins (4 classes per power of two, a bitmap of the non-empty ones): a request takes the
 * best fit of its class, else the smallest block of the next non-empty class, and the
 * block is split when the rest is worth keeping; a freed block merges with its free
 * neighbours in the segment. Requests up to 1 MiB share 2 MiB segments (the small pool);
 * larger ones get 20 MiB segments up to 10 MiB, else their size rounded to 2 MiB (the large
 * pool). A block belongs to the stream it was allocated for: work queued there before the
 * free is ordered before any later use on that stream, so no event is needed; a block also
 * used on other streams (shimrt_cuda_record_stream) gets an event recorded on each of them
 * at its free and is reused only once they have all completed. When the driver runs out of
 * memory: the device's free segments are released and the allocation retried; then the
 * device's outstanding events are waited for, released again and retried once more. Only
 * the device that ran out is touched.
 *
 * Pinned host blocks are cached in bins of power-of-two sizes; an asynchronous copy that
 * reads or writes one records its stream on the block, and a freed block with recorded
 * streams is reused only after events on them have completed (the copy may still run).
 *
 * Pointers are found through an open hash table (Fibonacci hashing of the address),
 * resized as it fills. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

#define MAX_DEV 64
#define ROUND 512u
#define SMALL_REQ ((size_t)1 << 20) /* requests up to 1 MiB: the small pool */
#define SMALL_SEG ((size_t)2 << 20) /* its segments */
#define MID_REQ ((size_t)10 << 20)  /* large requests below 10 MiB ... */
#define MID_SEG ((size_t)20 << 20)  /* ... share 20 MiB segments */
#define SEG_ROUND ((size_t)2 << 20) /* larger ones: their size rounded to 2 MiB */
#define NBINS 256
#define MAX_USES 8

typedef struct spool spool;
typedef struct block {
    char *ptr;
    size_t size;
    size_t req; /* bytes asked for (allocated blocks) */
    int32_t device;
    bool small, allocated;
    int events_left;             /* events to complete before reuse */
    spool *pool;                 /* the stream pool it belongs to */
    struct block *prev, *next;   /* neighbours in the segment, address order */
    struct block *bprev, *bnext; /* bin list (free blocks) */
    CUstream uses[MAX_USES];     /* other streams it was used on (record_stream) */
    int nuses;
} block;

struct spool {
    CUstream stream;
    block *bins[2][NBINS]; /* [small][class] */
    uint64_t mask[2][NBINS / 64];
    spool *next;
};

typedef struct pending {
    CUevent ev;
    block *b;
    struct pending *next;
} pending;

typedef struct {
    pthread_mutex_t lock;
    spool *pools;
    pending *events; /* outstanding events of freed blocks */
    CUevent *free_events;
    size_t nfree_events, cap_events;
    shimrt_cuda_alloc_stats st;
} device_state;

static device_state devs[MAX_DEV];
static pthread_once_t devs_once = PTHREAD_ONCE_INIT;
static void init_devs(void) {
    for (int i = 0; i < MAX_DEV; i++) pthread_mutex_init(&devs[i].lock, NULL);
}

/* ---- configuration: SHIMRT_CUDA_ALLOC_CONF="key:value,key:value" ---- */
static struct {
    size_t max_split; /* blocks this large are never split (SIZE_MAX: no limit) */
    bool caching;     /* 0: every free goes back to the driver (debugging) */
} conf = {(size_t)-1, true};
static pthread_once_t conf_once = PTHREAD_ONCE_INIT;
static void read_conf(void) {
    const char *s = getenv("SHIMRT_CUDA_ALLOC_CONF");
    while (s && *s) {
        char key[32];
        unsigned long long v = 0;
        int n = 0;
        if (sscanf(s, " %31[a-z_]:%llu%n", key, &v, &n) == 2 && n > 0) {
            if (!strcmp(key, "max_split_size_mb") && v > 0) conf.max_split = (size_t)v << 20;
            if (!strcmp(key, "caching")) conf.caching = v != 0;
            s += n;
        } else {
            s = strchr(s, ','); /* an unknown entry: skipped */
            if (!s) break;
        }
        while (*s == ',' || *s == ' ') s++;
    }
}

/* ---- the pointer table (allocated device blocks and every host block) ---- */
typedef struct {
    const void *key;
    void *val; /* block (device) or hblock (host) */
    bool host;
} slot;
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static slot *map;
static size_t map_cap, map_n, map_tomb;
#define TOMB ((const void *)1)

static size_t map_hash(const void *p, size_t cap) {
    uint64_t x = (uint64_t)(uintptr_t)p * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(x >> 20) & (cap - 1);
}
static slot *map_find_slot(const void *p) {
    if (!map_cap) return NULL;
    for (size_t i = map_hash(p, map_cap);; i = (i + 1) & (map_cap - 1)) {
        if (map[i].key == p) return &map[i];
        if (!map[i].key) return NULL;
    }
}
static bool map_put(const void *p, void *val, bool host) {
    if ((map_n + map_tomb + 1) * 2 > map_cap) {
        size_t cap = map_cap ? map_cap * 2 : 1024;
        while ((map_n + 1) * 2 > cap) cap *= 2;
        slot *m = calloc(cap, sizeof *m);
        if (!m) return false;
        for (size_t i = 0; i < map_cap; i++)
            if (map[i].key && map[i].key != TOMB) {
                size_t j = map_hash(map[i].key, cap);
                while (m[j].key) j = (j + 1) & (cap - 1);
                m[j] = map[i];
            }
        free(map);
        map = m;
        map_cap = cap;
        map_tomb = 0;
    }
    size_t i = map_hash(p, map_cap);
    while (map[i].key && map[i].key != TOMB) i = (i + 1) & (map_cap - 1);
    if (map[i].key == TOMB) map_tomb--;
    map[i] = (slot){p, val, host};
    map_n++;
    return true;
}
/* Removes p's entry: its value, NULL when absent or of the other kind. */
static void *map_take(const void *p, bool host) {
    pthread_mutex_lock(&map_lock);
    slot *s = map_find_slot(p);
    void *v = NULL;
    if (s && s->host == host) {
        v = s->val;
        s->key = TOMB;
        map_n--;
        map_tomb++;
    }
    pthread_mutex_unlock(&map_lock);
    return v;
}
static void *map_get(const void *p, bool host) {
    pthread_mutex_lock(&map_lock);
    slot *s = map_find_slot(p);
    void *v = s && s->host == host ? s->val : NULL;
    pthread_mutex_unlock(&map_lock);
    return v;
}
static bool map_add(const void *p, void *val, bool host) {
    pthread_mutex_lock(&map_lock);
    bool ok = map_put(p, val, host);
    pthread_mutex_unlock(&map_lock);
    return ok;
}

/* ---- bins ---- */
static int bin_of(size_t size) {
    uint64_t k = size / ROUND;
    if (k == 0) k = 1;
    int l = 63 - __builtin_clzll(k);
    int sub = l >= 2 ? (int)((k >> (l - 2)) & 3) : 0;
    int b = l * 4 + sub;
    return b < NBINS ? b : NBINS - 1;
}
static void bin_insert(block *b) {
    spool *p = b->pool;
    int k = bin_of(b->size), s = b->small;
    b->bprev = NULL;
    b->bnext = p->bins[s][k];
    if (b->bnext) b->bnext->bprev = b;
    p->bins[s][k] = b;
    p->mask[s][k / 64] |= UINT64_C(1) << (k % 64);
}
static void bin_remove(block *b) {
    spool *p = b->pool;
    int k = bin_of(b->size), s = b->small;
    if (b->bprev)
        b->bprev->bnext = b->bnext;
    else
        p->bins[s][k] = b->bnext;
    if (b->bnext) b->bnext->bprev = b->bprev;
    if (!p->bins[s][k]) p->mask[s][k / 64] &= ~(UINT64_C(1) << (k % 64));
    b->bprev = b->bnext = NULL;
}
/* The best free block of at least size in pool p (small or large). */
static block *bin_find(spool *p, bool small, size_t size) {
    int s = small, k0 = bin_of(size);
    block *best = NULL;
    for (block *b = p->bins[s][k0]; b; b = b->bnext)
        if (b->size >= size && (!best || b->size < best->size)) best = b;
    if (best) return best;
    for (int w = (k0 + 1) / 64; w < NBINS / 64; w++) {
        uint64_t m = p->mask[s][w];
        if (w == (k0 + 1) / 64) m &= ~UINT64_C(0) << ((k0 + 1) % 64);
        if (!m) continue;
        int k = w * 64 + __builtin_ctzll(m);
        for (block *b = p->bins[s][k]; b; b = b->bnext)
            if (!best || b->size < best->size) best = b;
        return best;
    }
    return NULL;
}

static spool *pool_of(device_state *d, CUstream stream, bool create) {
    for (spool *p = d->pools; p; p = p->next)
        if (p->stream == stream) return p;
    if (!create) return NULL;
    spool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->stream = stream;
    p->next = d->pools;
    d->pools = p;
    return p;
}

/* b's next block (in no bin) becomes part of b. */
static void absorb_next(block *b) {
    block *n = b->next;
    b->size += n->size;
    b->next = n->next;
    if (b->next) b->next->prev = b;
    free(n);
}

/* A free block back into its bins, merged with free neighbours (lock held). */
static void release_block(device_state *d, block *b) {
    b->allocated = false;
    b->nuses = 0;
    block *n = b->next, *pr = b->prev;
    if (n && !n->allocated && !n->events_left) {
        bin_remove(n);
        absorb_next(b);
    }
    if (pr && !pr->allocated && !pr->events_left) {
        bin_remove(pr);
        absorb_next(pr);
        b = pr;
    }
    bin_insert(b);
    (void)d;
}

/* Moves blocks whose events have completed (or, wait: all of them, after waiting) back to
 * the bins (lock held; the device's context current). */
static void process_events(const shimrt_cuda_api *cu, device_state *d, bool wait) {
    for (pending **pp = &d->events; *pp;) {
        pending *e = *pp;
        CUresult r = wait ? cu->cuEventSynchronize(e->ev) : cu->cuEventQuery(e->ev);
        if (r == SH_CUDA_ERROR_NOT_READY) {
            pp = &e->next;
            continue;
        }
        *pp = e->next; /* complete (or failed: nothing more to wait for) */
        if (d->nfree_events < d->cap_events)
            d->free_events[d->nfree_events++] = e->ev;
        else
            (void)cu->cuEventDestroy(e->ev);
        if (--e->b->events_left == 0) {
            d->st.pending_blocks--;
            release_block(d, e->b);
        }
        free(e);
    }
}

/* Frees every segment of d that is one free block (lock held; the context current). */
static void release_segments(const shimrt_cuda_api *cu, device_state *d) {
    for (spool *p = d->pools; p; p = p->next)
        for (int s = 0; s < 2; s++)
            for (int k = 0; k < NBINS; k++)
                for (block *b = p->bins[s][k], *n; b; b = n) {
                    n = b->bnext;
                    if (b->prev || b->next) continue;
                    bin_remove(b);
                    (void)cu->cuMemFree((CUdeviceptr)(uintptr_t)b->ptr);
                    d->st.reserved_bytes -= b->size;
                    d->st.segments--;
                    d->st.driver_frees++;
                    free(b);
                }
}

static size_t segment_size(size_t size) {
    if (size <= SMALL_REQ) return SMALL_SEG;
    if (size < MID_REQ) return MID_SEG;
    return (size + SEG_ROUND - 1) / SEG_ROUND * SEG_ROUND;
}

static AOTITorchError device_take(const char *func, size_t nbytes, int32_t dev, CUstream stream,
                                  void **out) {
    const shimrt_cuda_api *cu = shimrt_cuda_driver(func);
    if (!cu) return AOTI_TORCH_FAILURE;
    if (nbytes == 0) {
        *out = NULL;
        return AOTI_TORCH_SUCCESS;
    }
    if (nbytes > SHIMRT_MAX_ALLOC_BYTES)
        return shimrt_fail(func, "allocation of %zu bytes is too large", nbytes);
    if (dev < 0 || dev >= MAX_DEV) return shimrt_fail(func, "bad CUDA device %d", (int)dev);
    pthread_once(&devs_once, init_devs);
    pthread_once(&conf_once, read_conf);
    size_t size = (nbytes + ROUND - 1) / ROUND * ROUND;
    bool small = size <= SMALL_REQ;
    device_state *d = &devs[dev];
    shimrt_cuda_ctx_guard g;
    if (shimrt_cuda_enter(func, dev, &g, NULL)) return AOTI_TORCH_FAILURE;
    pthread_mutex_lock(&d->lock);
    if (d->events) process_events(cu, d, false);
    spool *p = pool_of(d, stream, true);
    block *b = p ? bin_find(p, small, size) : NULL;
    /* an unsplittable (oversize) block serves only a request near its size */
    if (b && b->size >= conf.max_split && (size < conf.max_split || b->size > size + MID_SEG))
        b = NULL;
    if (b) {
        bin_remove(b);
    } else if (p) {
        size_t seg = segment_size(size);
        CUdeviceptr ptr = 0;
        CUresult r = cu->cuMemAlloc(&ptr, seg);
        for (int attempt = 0; r != 0 && attempt < 2; attempt++) {
            d->st.oom_retries++;
            if (attempt == 1) process_events(cu, d, true); /* wait for pending frees */
            release_segments(cu, d);
            r = cu->cuMemAlloc(&ptr, seg);
        }
        if (r != 0) {
            d->st.ooms++;
            shimrt_cuda_alloc_stats st = d->st;
            pthread_mutex_unlock(&d->lock);
            shimrt_cuda_leave(&g);
            (void)shimrt_cu_fail(func, "cuMemAlloc", r);
            char why[256];
            const char *w = torch_exception_get_what();
            size_t fl = strlen(func);
            snprintf(why, sizeof why, "%s",
                     !strncmp(w, func, fl) && !strncmp(w + fl, ": ", 2) ? w + fl + 2 : w);
            return shimrt_fail(func,
                               "%s; tried to allocate %zu bytes (a %zu-byte segment) on "
                               "cuda:%d with %llu bytes allocated and %llu reserved by the "
                               "caching allocator",
                               why, nbytes, seg, (int)dev, (unsigned long long)st.allocated_bytes,
                               (unsigned long long)st.reserved_bytes);
        }
        b = calloc(1, sizeof *b);
        if (!b) {
            (void)cu->cuMemFree(ptr);
            pthread_mutex_unlock(&d->lock);
            shimrt_cuda_leave(&g);
            return shimrt_fail(func, "out of memory");
        }
        b->ptr = (char *)(uintptr_t)ptr;
        b->size = seg;
        b->device = dev;
        b->small = small;
        b->pool = p;
        d->st.reserved_bytes += seg;
        d->st.segments++;
        d->st.driver_allocs++;
    }
    if (!p) {
        pthread_mutex_unlock(&d->lock);
        shimrt_cuda_leave(&g);
        return shimrt_fail(func, "out of memory");
    }
    /* split off the rest when it is worth keeping */
    size_t rest = b->size - size;
    bool split = b->size < conf.max_split && (small ? rest >= ROUND : rest > SMALL_REQ);
    if (split) {
        block *r = calloc(1, sizeof *r);
        if (r) {
            *r = (block){.ptr = b->ptr + size,
                         .size = rest,
                         .device = dev,
                         .small = small,
                         .pool = p,
                         .prev = b,
                         .next = b->next};
            if (b->next) b->next->prev = r;
            b->next = r;
            b->size = size;
            bin_insert(r);
            d->st.splits++;
        }
    }
    b->allocated = true;
    b->req = nbytes;
    b->nuses = 0;
    if (!map_add(b->ptr, b, false)) {
        release_block(d, b);
        pthread_mutex_unlock(&d->lock);
        shimrt_cuda_leave(&g);
        return shimrt_fail(func, "out of memory");
    }
    d->st.allocated_bytes += b->size;
    d->st.requested_bytes += nbytes;
    d->st.active_blocks++;
    if (d->st.allocated_bytes > d->st.peak_allocated_bytes)
        d->st.peak_allocated_bytes = d->st.allocated_bytes;
    pthread_mutex_unlock(&d->lock);
    shimrt_cuda_leave(&g);
    *out = b->ptr;
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError device_give(const char *func, void *ptr) {
    if (!ptr) return AOTI_TORCH_SUCCESS;
    block *b = map_take(ptr, false);
    if (!b)
        return shimrt_fail(func,
                           "pointer %p was not allocated by the CUDA caching allocator (or was "
                           "freed already)",
                           ptr);
    const shimrt_cuda_api *cu = shimrt_cuda_driver(func);
    device_state *d = &devs[b->device];
    shimrt_cuda_ctx_guard g;
    bool entered = b->nuses > 0 || !conf.caching;
    if (entered && shimrt_cuda_enter(func, b->device, &g, NULL)) entered = false;
    pthread_mutex_lock(&d->lock);
    d->st.allocated_bytes -= b->size;
    d->st.requested_bytes -= b->req;
    d->st.active_blocks--;
    b->allocated = false;
    if (d->cap_events == 0 && (d->free_events = malloc(64 * sizeof(CUevent))) != NULL)
        d->cap_events = 64;
    /* used on other streams: reusable once the work queued there so far has finished */
    for (int i = 0; entered && i < b->nuses; i++) {
        CUevent ev = d->nfree_events ? d->free_events[--d->nfree_events] : NULL;
        pending *e = malloc(sizeof *e);
        if (!e || (!ev && cu->cuEventCreate(&ev, SH_CU_EVENT_DISABLE_TIMING) != 0) ||
            cu->cuEventRecord(ev, b->uses[i]) != 0) {
            /* no event: wait for that stream instead */
            if (ev) (void)cu->cuEventDestroy(ev);
            free(e);
            (void)cu->cuStreamSynchronize(b->uses[i]);
            continue;
        }
        e->ev = ev;
        e->b = b;
        e->next = d->events;
        d->events = e;
        if (b->events_left++ == 0) d->st.pending_blocks++;
    }
    if (!b->events_left) release_block(d, b);
    if (!conf.caching && entered) release_segments(cu, d);
    pthread_mutex_unlock(&d->lock);
    if (entered) shimrt_cuda_leave(&g);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cuda_alloc(const char *func, size_t nbytes, int32_t device_index,
                                 CUstream stream, void **out) {
    return device_take(func, nbytes, device_index, stream, out);
}

AOTITorchError shimrt_cuda_free(const char *func, void *ptr) { return device_give(func, ptr); }

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_record_stream(void *ptr, void *stream) {
    SHIMRT_CHECK_ARG(ptr);
    pthread_mutex_lock(&map_lock);
    slot *s = map_find_slot(ptr);
    block *b = s && !s->host ? s->val : NULL;
    pthread_mutex_unlock(&map_lock);
    if (!b)
        return shimrt_fail(__func__,
                           "pointer %p is not the start of a block of the CUDA caching "
                           "allocator",
                           ptr);
    device_state *d = &devs[b->device];
    pthread_mutex_lock(&d->lock);
    bool known = (CUstream)stream == b->pool->stream;
    for (int i = 0; i < b->nuses && !known; i++) known = b->uses[i] == (CUstream)stream;
    AOTITorchError rc = AOTI_TORCH_SUCCESS;
    if (!known && b->nuses < MAX_USES)
        b->uses[b->nuses++] = (CUstream)stream;
    else if (!known)
        rc = shimrt_fail(__func__, "a block can be recorded on at most %d streams", MAX_USES);
    pthread_mutex_unlock(&d->lock);
    return rc;
}

/* The storage hooks of runtime/core (storage.c). */
AOTITorchError shimrt_cuda_storage_alloc(const char *func, size_t nbytes, int32_t device_index,
                                         void **out) {
    int32_t idx;
    if (shimrt_cuda_resolve_device(func, device_index, &idx)) return AOTI_TORCH_FAILURE;
    return device_take(func, nbytes, idx, shimrt_cuda_current_stream(idx), out);
}

void shimrt_cuda_storage_free(void *data, void *ctx) {
    (void)ctx;
    (void)device_give("shimrt_cuda_storage_free", data);
}

/* The current device, for a raw or pinned-host allocation of nbytes (refused beyond
 * SHIMRT_MAX_ALLOC_BYTES). */
static AOTITorchError current_device_for(const char *func, uint64_t nbytes, int32_t *dev) {
    if (shimrt_cuda_resolve_device(func, -1, dev)) return AOTI_TORCH_FAILURE;
    if (nbytes > SHIMRT_MAX_ALLOC_BYTES)
        return shimrt_fail(func, "allocation of %llu bytes is too large",
                           (unsigned long long)nbytes);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cuda_caching_allocator_raw_alloc(uint64_t nbytes,
                                                                             void **ret_ptr) {
    SHIMRT_CHECK_ARG(ret_ptr);
    int32_t idx;
    if (current_device_for(__func__, nbytes, &idx)) return AOTI_TORCH_FAILURE;
    return device_take(__func__, (size_t)nbytes, idx, shimrt_cuda_current_stream(idx), ret_ptr);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cuda_caching_allocator_raw_delete(void *ptr) {
    return device_give(__func__, ptr);
}

/* ---- pinned host memory ---- */
typedef struct hblock {
    void *ptr;
    size_t size;
    int32_t device; /* the context it was allocated in (for its events) */
    bool allocated;
    CUstream uses[MAX_USES];
    int nuses;
    CUevent events[MAX_USES];
    int nevents;
    struct hblock *next; /* free list of its bin */
} hblock;
#define HBINS 64
static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;
static hblock *host_bins[HBINS]; /* free, no event outstanding */
static hblock *host_pending;     /* free, events outstanding */
static uint64_t host_allocated, host_reserved, host_pending_n;

static int hbin(size_t size) { return 63 - __builtin_clzll((unsigned long long)size); }

/* Pending host blocks whose events completed go back to their bins (lock held). */
static void host_process(const shimrt_cuda_api *cu) {
    for (hblock **pp = &host_pending; *pp;) {
        hblock *b = *pp;
        while (b->nevents && cu->cuEventQuery(b->events[b->nevents - 1]) != SH_CUDA_ERROR_NOT_READY)
            (void)cu->cuEventDestroy(b->events[--b->nevents]);
        if (b->nevents) {
            pp = &b->next;
            continue;
        }
        *pp = b->next;
        host_pending_n--;
        b->next = host_bins[hbin(b->size)];
        host_bins[hbin(b->size)] = b;
    }
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_host_alloc(uint64_t nbytes, void **ret_ptr) {
    SHIMRT_CHECK_ARG(ret_ptr);
    int32_t dev;
    if (current_device_for(__func__, nbytes, &dev)) return AOTI_TORCH_FAILURE;
    if (nbytes == 0) {
        *ret_ptr = NULL;
        return AOTI_TORCH_SUCCESS;
    }
    const shimrt_cuda_api *cu = shimrt_cuda_driver(__func__);
    size_t size = ROUND; /* a power of two, as PyTorch's host allocator rounds */
    while (size < nbytes) size *= 2;
    pthread_mutex_lock(&host_lock);
    if (host_pending) host_process(cu);
    hblock *b = host_bins[hbin(size)];
    if (b) {
        host_bins[hbin(size)] = b->next;
    } else {
        shimrt_cuda_ctx_guard g;
        void *p = NULL;
        CUresult r = 1;
        if (!shimrt_cuda_enter(__func__, dev, &g, NULL)) {
            r = cu->cuMemAllocHost(&p, size);
            shimrt_cuda_leave(&g);
            if (r != 0) {
                pthread_mutex_unlock(&host_lock);
                return shimrt_cu_fail(__func__, "cuMemAllocHost", r);
            }
        }
        b = p ? calloc(1, sizeof *b) : NULL;
        if (!b || !map_add(p, b, true)) {
            free(b);
            if (p) (void)cu->cuMemFreeHost(p);
            pthread_mutex_unlock(&host_lock);
            return r ? AOTI_TORCH_FAILURE : shimrt_fail(__func__, "out of memory");
        }
        b->ptr = p;
        b->size = size;
        b->device = dev;
        host_reserved += size;
    }
    b->allocated = true;
    b->nuses = 0;
    host_allocated += b->size;
    pthread_mutex_unlock(&host_lock);
    *ret_ptr = b->ptr;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_host_free(void *ptr) {
    if (!ptr) return AOTI_TORCH_SUCCESS;
    hblock *b = map_get(ptr, true);
    pthread_mutex_lock(&host_lock);
    if (!b || !b->allocated) {
        pthread_mutex_unlock(&host_lock);
        return shimrt_fail(__func__,
                           "pointer %p was not allocated by the pinned host caching allocator "
                           "(or was freed already)",
                           ptr);
    }
    const shimrt_cuda_api *cu = shimrt_cuda_driver(__func__);
    b->allocated = false;
    host_allocated -= b->size;
    shimrt_cuda_ctx_guard g;
    if (b->nuses && !shimrt_cuda_enter(__func__, b->device, &g, NULL)) {
        for (int i = 0; i < b->nuses; i++) {
            CUevent ev = NULL;
            if (cu->cuEventCreate(&ev, SH_CU_EVENT_DISABLE_TIMING) != 0 ||
                cu->cuEventRecord(ev, b->uses[i]) != 0) {
                if (ev) (void)cu->cuEventDestroy(ev);
                (void)cu->cuStreamSynchronize(b->uses[i]);
                continue;
            }
            b->events[b->nevents++] = ev;
        }
        shimrt_cuda_leave(&g);
    }
    b->nuses = 0;
    if (b->nevents) {
        b->next = host_pending;
        host_pending = b;
        host_pending_n++;
    } else {
        b->next = host_bins[hbin(b->size)];
        host_bins[hbin(b->size)] = b;
    }
    pthread_mutex_unlock(&host_lock);
    return AOTI_TORCH_SUCCESS;
}

void shimrt_cuda_host_record(const void *p, CUstream stream) {
    const shimrt_cuda_api *cu = shimrt_cuda_driver("shimrt_cuda_host_record");
    unsigned type = 0;
    if (!cu ||
        cu->cuPointerGetAttribute(&type, SH_CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                  (CUdeviceptr)(uintptr_t)p) != 0 ||
        type != 1) /* CU_MEMORYTYPE_HOST: pinned */
        return;
    hblock *b = map_get(p, true);
    pthread_mutex_lock(&host_lock);
    if (!b) { /* an address inside a block: look through the host entries */
        pthread_mutex_lock(&map_lock);
        for (size_t i = 0; i < map_cap && !b; i++)
            if (map[i].key && map[i].key != TOMB && map[i].host) {
                hblock *h = map[i].val;
                if ((const char *)p >= (const char *)h->ptr &&
                    (const char *)p < (const char *)h->ptr + h->size)
                    b = h;
            }
        pthread_mutex_unlock(&map_lock);
    }
    if (b && b->allocated) {
        bool known = false;
        for (int i = 0; i < b->nuses && !known; i++) known = b->uses[i] == stream;
        if (!known && b->nuses < MAX_USES) b->uses[b->nuses++] = stream;
    }
    pthread_mutex_unlock(&host_lock);
}

/* ---- cache control and statistics ---- */
AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_empty_cache(void) {
    const shimrt_cuda_api *cu = shimrt_cuda_driver(__func__);
    if (!cu) return AOTI_TORCH_FAILURE;
    pthread_once(&devs_once, init_devs);
    for (int i = 0; i < MAX_DEV && i < cu->device_count; i++) {
        device_state *d = &devs[i];
        pthread_mutex_lock(&d->lock);
        if (d->pools || d->events) {
            shimrt_cuda_ctx_guard g;
            if (!shimrt_cuda_enter(__func__, i, &g, NULL)) {
                if (d->events) process_events(cu, d, false);
                release_segments(cu, d);
                for (size_t k = 0; k < d->nfree_events; k++)
                    (void)cu->cuEventDestroy(d->free_events[k]);
                d->nfree_events = 0;
                shimrt_cuda_leave(&g);
            }
        }
        pthread_mutex_unlock(&d->lock);
    }
    pthread_mutex_lock(&host_lock);
    if (host_pending) host_process(cu);
    for (int k = 0; k < HBINS; k++)
        for (hblock *b = host_bins[k], *n; b; b = n) {
            n = b->next;
            (void)map_take(b->ptr, true);
            (void)cu->cuMemFreeHost(b->ptr);
            host_reserved -= b->size;
            free(b);
        }
    memset(host_bins, 0, sizeof host_bins);
    pthread_mutex_unlock(&host_lock);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_alloc_stats_get(int32_t device_index,
                                                             shimrt_cuda_alloc_stats *ret) {
    SHIMRT_CHECK_ARG(ret);
    int32_t idx;
    if (shimrt_cuda_resolve_device(__func__, device_index, &idx)) return AOTI_TORCH_FAILURE;
    if (idx >= MAX_DEV) return shimrt_fail(__func__, "bad CUDA device %d", (int)idx);
    pthread_once(&devs_once, init_devs);
    pthread_mutex_lock(&devs[idx].lock);
    *ret = devs[idx].st;
    pthread_mutex_unlock(&devs[idx].lock);
    pthread_mutex_lock(&host_lock);
    ret->host_allocated_bytes = host_allocated;
    ret->host_reserved_bytes = host_reserved;
    ret->host_pending_blocks = host_pending_n;
    pthread_mutex_unlock(&host_lock);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_cuda_memory_stats(uint64_t *ret_allocated,
                                                          uint64_t *ret_cached) {
    SHIMRT_CHECK_ARG(ret_allocated);
    SHIMRT_CHECK_ARG(ret_cached);
    pthread_once(&devs_once, init_devs);
    uint64_t used = 0, reserved = 0;
    for (int i = 0; i < MAX_DEV; i++) {
        pthread_mutex_lock(&devs[i].lock);
        used += devs[i].st.allocated_bytes;
        reserved += devs[i].st.reserved_bytes;
        pthread_mutex_unlock(&devs[i].lock);
    }
    pthread_mutex_lock(&host_lock);
    used += host_allocated;
    reserved += host_reserved;
    pthread_mutex_unlock(&host_lock);
    *ret_allocated = used;
    *ret_cached = reserved - used;
    return AOTI_TORCH_SUCCESS;
}

/* tests/cuda/sh_emu.c: the grid emulator of sh_emu.h. */
#include "sh_emu.h"

#include <pthread.h>
#include <semaphore.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHARED_BYTES (48 * 1024)
#define MAX_BLOCK 1024

typedef struct {
    pthread_barrier_t block_bar;
    pthread_barrier_t warp_bar[MAX_BLOCK / 32];
    unsigned char xbuf[MAX_BLOCK / 32][32][8];
    _Alignas(16) unsigned char shared[SHARED_BYTES];
    sh_emu_kernel kernel;
    const sh_params *p;
    unsigned bid, bdim, gdim;
} block_ctx;

_Thread_local sh_emu_ids_t sh_emu_ids;
static _Thread_local block_ctx *tls_block;
static _Thread_local size_t tls_shared_used;

/* A kernel that emu_gen found free of barriers, shared memory and shuffles runs on one
 * thread: reaching one of them there means emu_gen's test missed a spelling. */
static void sequential_misuse(const char *what) {
    fprintf(stderr, "sh_emu: %s in a kernel run sequentially (see emu_gen's test)\n", what);
    abort();
}

void *sh_emu_shared(size_t nbytes) {
    if (!tls_block) sequential_misuse("shared memory");
    size_t off = tls_shared_used;
    tls_shared_used += (nbytes + 15) & ~(size_t)15;
    if (tls_shared_used > SHARED_BYTES) abort(); /* a kernel wants more than 48 KiB */
    return tls_block->shared + off;
}

void sh_emu_sync(void) {
    if (!tls_block) sequential_misuse("__syncthreads");
    pthread_barrier_wait(&tls_block->block_bar);
}

void sh_emu_shfl_down(void *value, size_t size, int delta) {
    if (!tls_block) sequential_misuse("a warp shuffle");
    unsigned lane = sh_emu_ids.tid & 31, warp = sh_emu_ids.tid >> 5;
    memcpy(tls_block->xbuf[warp][lane], value, size);
    pthread_barrier_wait(&tls_block->warp_bar[warp]);
    if (lane + (unsigned)delta < 32)
        memcpy(value, tls_block->xbuf[warp][lane + (unsigned)delta], size);
    pthread_barrier_wait(&tls_block->warp_bar[warp]);
}

/* IEEE half through the compiler's _Float16 (round to nearest even): independent of the
 * runtime's own conversions, which the comparisons then check. */
float sh_emu_h2f(unsigned short h) {
    _Float16 x;
    memcpy(&x, &h, sizeof x);
    return (float)x;
}
unsigned short sh_emu_f2h(float f) {
    if (f != f) return 0x7fff; /* PTX's cvt.rn.f16.f32: every NaN becomes the canonical one */
    _Float16 x = (_Float16)f;
    unsigned short h;
    memcpy(&h, &x, sizeof h);
    return h;
}
unsigned sh_emu_f2u(float f) {
    unsigned u;
    memcpy(&u, &f, sizeof u);
    return u;
}
float sh_emu_u2f(unsigned u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
unsigned long long sh_emu_d2u(double d) {
    unsigned long long u;
    memcpy(&u, &d, sizeof u);
    return u;
}
float sh_emu_rsqrtf(float x) { return 1.0f / sqrtf(x); }
double sh_emu_rsqrt(double x) { return 1.0 / sqrt(x); }
float sh_emu_sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }
double sh_emu_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

static void run_thread(block_ctx *b, unsigned tid) {
    tls_block = b;
    tls_shared_used = 0;
    sh_emu_ids.tid = tid;
    sh_emu_ids.bid = b->bid;
    sh_emu_ids.bdim = b->bdim;
    sh_emu_ids.gdim = b->gdim;
    b->kernel(*b->p);
}

/* A pool of worker threads, one per CUDA thread of the largest block seen, created once per
 * process and reused by every block of every launch (creating 256 threads per block cost
 * most of the emulator's time). Worker i waits on its own semaphore; a block posts the
 * first bdim of them and waits until the last one is done. One threaded launch at a time. */
static pthread_mutex_t launch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    pid_t pid; /* the process that created the workers (a fork has none) */
    unsigned n;
    sem_t go[MAX_BLOCK];
    sem_t done;
    unsigned left;
    block_ctx *b;
} pool;

static void *worker_main(void *varg) {
    unsigned tid = (unsigned)(uintptr_t)varg;
    for (;;) {
        while (sem_wait(&pool.go[tid]) != 0) continue;
        run_thread(pool.b, tid);
        if (__atomic_sub_fetch(&pool.left, 1, __ATOMIC_ACQ_REL) == 0) sem_post(&pool.done);
    }
    return NULL;
}

/* Enough workers for a block of n threads (launch_lock held). */
static int pool_grow(unsigned n) {
    if (pool.pid != getpid()) {
        pool.pid = getpid();
        pool.n = 0;
        if (sem_init(&pool.done, 0, 0) != 0) return -1;
    }
    for (; pool.n < n; pool.n++) {
        pthread_t t;
        pthread_attr_t at;
        if (sem_init(&pool.go[pool.n], 0, 0) != 0 || pthread_attr_init(&at) != 0) return -1;
        pthread_attr_setstacksize(&at, 256 * 1024);
        int rc = pthread_create(&t, &at, worker_main, (void *)(uintptr_t)pool.n);
        pthread_attr_destroy(&at);
        if (rc != 0) return -1;
        pthread_detach(t);
    }
    return 0;
}

static int needs_threads(sh_emu_kernel kernel) {
    for (size_t i = 0; i < sh_emu_kernel_count; i++)
        if (sh_emu_kernels[i].fn == kernel) return sh_emu_kernels[i].threads;
    return 1;
}

int sh_emu_launch(sh_emu_kernel kernel, unsigned grid, unsigned block, const sh_params *p) {
    if (!kernel || !p || grid == 0 || block == 0 || block > MAX_BLOCK || block % 32) return -1;
    if (!needs_threads(kernel)) {
        tls_block = NULL;
        for (unsigned bid = 0; bid < grid; bid++)
            for (unsigned t = 0; t < block; t++) {
                sh_emu_ids = (sh_emu_ids_t){t, bid, block, grid};
                kernel(*p);
            }
        return 0;
    }
    block_ctx *b = calloc(1, sizeof *b);
    if (!b) return -1;
    pthread_mutex_lock(&launch_lock);
    int rc = pool_grow(block);
    for (unsigned bid = 0; bid < grid && rc == 0; bid++) {
        memset(b->shared, 0xA5, sizeof b->shared); /* uninitialised shared memory is garbage */
        pthread_barrier_init(&b->block_bar, NULL, block);
        for (unsigned w = 0; w < block / 32; w++) pthread_barrier_init(&b->warp_bar[w], NULL, 32);
        b->kernel = kernel;
        b->p = p;
        b->bid = bid;
        b->bdim = block;
        b->gdim = grid;
        pool.b = b;
        __atomic_store_n(&pool.left, block, __ATOMIC_RELEASE);
        for (unsigned t = 0; t < block; t++) sem_post(&pool.go[t]);
        while (sem_wait(&pool.done) != 0) continue;
        pthread_barrier_destroy(&b->block_bar);
        for (unsigned w = 0; w < block / 32; w++) pthread_barrier_destroy(&b->warp_bar[w]);
    }
    pthread_mutex_unlock(&launch_lock);
    free(b);
    return rc;
}

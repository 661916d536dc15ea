/* runtime/core/threads.c: the CPU thread pool behind torch_parallel_for.
 *
 * Workers start on the first parallel call; the pool has SHIMRT_NUM_THREADS threads in
 * all (else one per online core), the calling thread counting as thread 0. One parallel
 * region runs at a time: a call made while another runs (from another thread, or nested
 * inside a region) runs its range serially in the calling thread. The workers are joined
 * when the library is unloaded or the process exits normally. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cxx_boundary.h"
#include "internal.h"

#define MAX_THREADS 256

static struct {
    pthread_once_t once;
    uint32_t nthreads; /* including the caller */
    uint32_t started;  /* workers running */
    pthread_t workers[MAX_THREADS];
    pthread_mutex_t lock; /* guards the job fields and the condition variables */
    pthread_cond_t wake, done;
    pthread_mutex_t region; /* held by the caller of the running region */
    uint64_t generation;
    bool shutdown;
    /* the running job */
    int64_t begin, end, chunk;
    ParallelFunc func;
    void *ctx;
    _Atomic int64_t next_chunk;
    uint32_t pending; /* workers still busy with this generation */
    bool failed;      /* a chunk threw (under lock): the first one's what() in fail_msg */
    char fail_msg[512];
} pool = {.once = PTHREAD_ONCE_INIT,
          .lock = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER,
          .done = PTHREAD_COND_INITIALIZER,
          .region = PTHREAD_MUTEX_INITIALIZER};

static _Thread_local uint32_t tls_thread_idx;
static _Thread_local bool tls_in_region;

static uint32_t read_num_threads(void) {
    const char *env = getenv("SHIMRT_NUM_THREADS");
    if (env && *env) {
        char *end;
        long v = strtol(env, &end, 10);
        if (*end == '\0' && v >= 1) return v > MAX_THREADS ? MAX_THREADS : (uint32_t)v;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    return n > MAX_THREADS ? MAX_THREADS : (uint32_t)n;
}

static void run_chunks(void) {
    for (;;) {
        int64_t c = atomic_fetch_add_explicit(&pool.next_chunk, 1, memory_order_relaxed);
        int64_t b = pool.begin + c * pool.chunk;
        if (b >= pool.end || b < pool.begin) return;
        int64_t e = pool.end - b > pool.chunk ? b + pool.chunk : pool.end;
        char msg[512];
        /* an extension's body may throw: caught in C++, the first message kept, the other
         * chunks still run (as at::parallel_for), the caller fails after the region */
        if (shimrt_cxx_call_range(pool.func, b, e, pool.ctx, msg, sizeof msg)) {
            pthread_mutex_lock(&pool.lock);
            if (!pool.failed) {
                pool.failed = true;
                memcpy(pool.fail_msg, msg, sizeof msg);
            }
            pthread_mutex_unlock(&pool.lock);
        }
    }
}

static void *worker_main(void *arg) {
    tls_thread_idx = (uint32_t)(uintptr_t)arg;
    tls_in_region = true; /* anything a worker starts runs nested, serially */
    uint64_t seen = 0;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (!pool.shutdown && pool.generation == seen) pthread_cond_wait(&pool.wake, &pool.lock);
        if (pool.shutdown) break;
        seen = pool.generation;
        pthread_mutex_unlock(&pool.lock);
        run_chunks();
        pthread_mutex_lock(&pool.lock);
        if (--pool.pending == 0) pthread_cond_signal(&pool.done);
    }
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

static void pool_init(void) { pool.nthreads = read_num_threads(); }

uint32_t shimrt_num_threads(void) {
    pthread_once(&pool.once, pool_init);
    return pool.nthreads;
}

static void start_workers(void) {
    while (pool.started + 1 < pool.nthreads) {
        if (pthread_create(&pool.workers[pool.started], NULL, worker_main,
                           (void *)(uintptr_t)(pool.started + 1)) != 0)
            break;
        pool.started++;
    }
}

__attribute__((destructor)) static void pool_shutdown(void) {
    pthread_mutex_lock(&pool.lock);
    pool.shutdown = true;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    for (uint32_t i = 0; i < pool.started; i++) pthread_join(pool.workers[i], NULL);
    pool.started = 0;
}

AOTI_TORCH_EXPORT AOTITorchError torch_parallel_for(int64_t begin, int64_t end, int64_t grain_size,
                                                    ParallelFunc func, void *ctx) {
    SHIMRT_CHECK_ARG(func);
    /* a grain below 1 (negative included) is 1, as at::parallel_for treats it in release
     * builds: any range of more than one element may be split */
    if (end <= begin) return AOTI_TORCH_SUCCESS;
    uint32_t n = shimrt_num_threads();
    uint64_t range = (uint64_t)end - (uint64_t)begin;
    uint64_t grain = grain_size < 1 ? 1 : (uint64_t)grain_size;
    if (n == 1 || range <= grain || tls_in_region || pthread_mutex_trylock(&pool.region) != 0) {
        char msg[512];
        if (shimrt_cxx_call_range(func, begin, end, ctx, msg, sizeof msg))
            return shimrt_fail(__func__, "the function threw: %s", msg);
        return AOTI_TORCH_SUCCESS;
    }
    uint64_t chunks = (range + grain - 1) / grain;
    if (chunks > n) chunks = n;
    pthread_mutex_lock(&pool.lock);
    start_workers();
    pool.begin = begin;
    pool.end = end;
    pool.chunk = (int64_t)((range + chunks - 1) / chunks);
    pool.func = func;
    pool.ctx = ctx;
    atomic_store(&pool.next_chunk, 0);
    pool.failed = false;
    pool.pending = pool.started;
    pool.generation++;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);

    tls_in_region = true;
    run_chunks();
    tls_in_region = false;

    pthread_mutex_lock(&pool.lock);
    while (pool.pending > 0) pthread_cond_wait(&pool.done, &pool.lock);
    bool failed = pool.failed;
    char msg[sizeof pool.fail_msg];
    if (failed) memcpy(msg, pool.fail_msg, sizeof msg);
    pthread_mutex_unlock(&pool.lock);
    pthread_mutex_unlock(&pool.region);
    return failed ? shimrt_fail(__func__, "the function threw: %s", msg) : AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_get_thread_idx(uint32_t *out_thread_idx) {
    SHIMRT_CHECK_ARG(out_thread_idx);
    *out_thread_idx = tls_thread_idx;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_get_num_threads(uint32_t *out_num_threads) {
    SHIMRT_CHECK_ARG(out_num_threads);
    *out_num_threads = shimrt_num_threads();
    return AOTI_TORCH_SUCCESS;
}

/* shimrt-jit: the CUDA JIT cache from the command line (installed with libshimrt).
 *   shimrt-jit list                         every kernel of the catalogue, one per line
 *   shimrt-jit warm --arch sm_80,sm_90 [--cache DIR] [--only SUBSTR]
 *                                           compiles every kernel for every arch into the disk
 *                                           cache (NVRTC only: no GPU needed); --only:
 *                                           the kernels whose name contains SUBSTR
 *   shimrt-jit spills --arch sm_80[,...] [--only SUBSTR]
 *                                           compiles every kernel (or those --only names)
 *                                           without the cache, with ptxas -v, and fails
 *                                           when ptxas reports a spill
 *   shimrt-jit stats [--cache DIR]          files and bytes in the disk cache
 *   shimrt-jit clear [--cache DIR]          removes the cache files
 * warm and spills compile on SHIMRT_JIT_THREADS threads (default 2).
 * Exit status: 0 success, 1 a kernel failed to compile or the cache is unusable, 2 usage. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../cuda_internal.h"
#include "../catalogue.h"

static int usage(void) {
    fputs("usage: shimrt-jit list\n"
          "       shimrt-jit warm --arch sm_80[,sm_90...] [--cache DIR] [--only SUBSTR]\n"
          "       shimrt-jit spills --arch sm_80[,sm_90...] [--only SUBSTR]\n"
          "       shimrt-jit stats [--cache DIR]\n"
          "       shimrt-jit clear [--cache DIR]\n",
          stderr);
    return 2;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int parse_archs(const char *archs, int *list, int *na);

/* A ptxas info line with a nonzero spill count ("8 bytes spill stores"). */
static bool has_spill(const char *log) {
    for (const char *p = log; (p = strstr(p, " bytes spill ")) != NULL; p++) {
        const char *q = p;
        while (q > log && q[-1] >= '0' && q[-1] <= '9') q--;
        if (q < p && strtol(q, NULL, 10) != 0) return true;
    }
    return false;
}

/* ---- a small parallel loop: jobs (arch, kernel) over SHIMRT_JIT_THREADS threads (default
 * 2; NVRTC is thread-safe, and so is the JIT cache) ---- */
typedef struct job_set {
    const int *archs;
    size_t n, total;
    atomic_size_t next;
    atomic_size_t bad, infos, failed;
    atomic_bool stop;
    pthread_mutex_t out; /* one report at a time on stderr */
    const char *only;    /* --only: kernels whose name contains it (NULL: all) */
    void (*run)(struct job_set *j, int arch, const shimrt_cuda_kdesc *k);
} job_set;

static void *worker(void *arg) {
    job_set *j = arg;
    for (;;) {
        size_t idx = atomic_fetch_add(&j->next, 1);
        if (idx >= j->total || atomic_load(&j->stop)) return NULL;
        shimrt_cuda_kdesc k;
        shimrt_cuda_kernel_at(idx % j->n, &k);
        if (j->only && !strstr(k.name, j->only)) continue;
        j->run(j, j->archs[idx / j->n], &k);
    }
}

static void run_jobs(job_set *j) {
    const char *e = getenv("SHIMRT_JIT_THREADS");
    long nt = e ? strtol(e, NULL, 10) : 2;
    if (nt < 1) nt = 1;
    if (nt > 64) nt = 64;
    pthread_t t[64];
    long started = 0;
    for (long i = 1; i < nt; i++)
        if (pthread_create(&t[started], NULL, worker, j) == 0) started++;
    worker(j);
    for (long i = 0; i < started; i++) pthread_join(t[i], NULL);
}

static void spill_job(job_set *j, int arch, const shimrt_cuda_kdesc *k) {
    char *src = shimrt_cuda_kernel_source(k), *log = NULL;
    void *img = NULL;
    size_t size;
    bool cubin;
    if (!src || shimrt_jit_compile_uncached("shimrt-jit", src, k->name, arch, true, &img, &size,
                                            &cubin, &log)) {
        pthread_mutex_lock(&j->out);
        fprintf(stderr, "shimrt-jit: sm_%d %s: %s\n", arch, k->name, torch_exception_get_what());
        pthread_mutex_unlock(&j->out);
        atomic_fetch_add(&j->failed, 1);
        atomic_store(&j->stop, true);
    } else {
        if (log && strstr(log, "spill")) atomic_fetch_add(&j->infos, 1);
        if (log && has_spill(log)) {
            pthread_mutex_lock(&j->out);
            fprintf(stderr, "shimrt-jit: sm_%d %s spills:\n%s\n", arch, k->name, log);
            pthread_mutex_unlock(&j->out);
            atomic_fetch_add(&j->bad, 1);
        }
    }
    free(log);
    free(img);
    free(src);
}

/* Runs run for every kernel whose name contains only (all when NULL) on each of the na archs of
 * list, on worker threads; j holds the counts after. Returns how many kernels were selected. */
static size_t run_selected(job_set *j, const int *list, int na, const char *only,
                           void (*run)(job_set *j, int arch, const shimrt_cuda_kdesc *k)) {
    size_t total = shimrt_cuda_kernel_count(), n = 0;
    for (size_t i = 0; i < total; i++) {
        shimrt_cuda_kdesc k;
        shimrt_cuda_kernel_at(i, &k);
        n += !only || strstr(k.name, only);
    }
    *j = (job_set){.archs = list,
                   .n = total,
                   .total = total * (size_t)na,
                   .run = run,
                   .out = PTHREAD_MUTEX_INITIALIZER,
                   .only = only};
    run_jobs(j);
    return n;
}

static int spills(const char *archs, const char *only) {
    int list[16], na;
    if (parse_archs(archs, list, &na)) return 2;
    job_set j;
    size_t n = run_selected(&j, list, na, only, spill_job);
    if (atomic_load(&j.failed)) return 1;
    size_t bad = atomic_load(&j.bad), infos = atomic_load(&j.infos);
    printf("spills: %zu kernels x %d arch(s) compiled, %zu ptxas reports read, %zu with spills\n",
           n, na, infos, bad);
    return bad || infos != n * (size_t)na ? 1 : 0;
}

static int parse_archs(const char *archs, int *list, int *na_out) {
    int na = 0;
    const char *p = archs;
    while (*p && na < 16) {
        if (strncmp(p, "sm_", 3) != 0) goto bad;
        char *end;
        long a = strtol(p + 3, &end, 10);
        if (end == p + 3 || a < 50 || a > 1000 || (*end && *end != ',')) goto bad;
        list[na++] = (int)a;
        p = *end ? end + 1 : end;
    }
    if (na == 0 || *p) goto bad;
    *na_out = na;
    return 0;
bad:
    fprintf(stderr, "shimrt-jit: bad --arch '%s' (want sm_80,sm_90,...)\n", archs);
    return 2;
}

static void warm_job(job_set *j, int arch, const shimrt_cuda_kdesc *k) {
    const shimrt_jit_image *img;
    if (shimrt_jit_get("shimrt-jit", k, arch, &img)) {
        pthread_mutex_lock(&j->out);
        fprintf(stderr, "shimrt-jit: sm_%d %s: %s\n", arch, k->name, torch_exception_get_what());
        pthread_mutex_unlock(&j->out);
        atomic_fetch_add(&j->failed, 1);
        if (strstr(torch_exception_get_what(), "cannot be used")) atomic_store(&j->stop, true);
    }
}

static int warm(const char *archs, const char *only) {
    int list[16], na;
    if (parse_archs(archs, list, &na)) return 2;
    shimrt_jit_reset_stats();
    double t0 = now_ms();
    job_set j;
    size_t n = run_selected(&j, list, na, only, warm_job);
    size_t failed = atomic_load(&j.failed);
    if (atomic_load(&j.stop)) return 1;
    shimrt_jit_stats s;
    shimrt_jit_get_stats(&s);
    const char *dir = shimrt_jit_cache_dir();
    printf("warm: %zu kernels x %d arch(s): %llu compiled, %llu disk hits, %llu corrupt files "
           "rebuilt, %zu failed; NVRTC %.0f ms, wall %.0f ms; cache %s\n",
           n, na, (unsigned long long)s.misses, (unsigned long long)s.disk_hits,
           (unsigned long long)s.corrupt, failed, s.compile_ms, now_ms() - t0,
           dir ? dir : "(disabled)");
    return failed ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return usage();
    const char *cmd = argv[1], *archs = NULL, *only = NULL;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--cache") && i + 1 < argc)
            setenv("SHIMRT_CACHE_DIR", argv[++i], 1);
        else if (!strcmp(argv[i], "--arch") && i + 1 < argc)
            archs = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else
            return usage();
    }
    if (!strcmp(cmd, "list")) {
        size_t n = shimrt_cuda_kernel_count();
        for (size_t i = 0; i < n; i++) {
            shimrt_cuda_kdesc k;
            shimrt_cuda_kernel_at(i, &k);
            puts(k.name);
        }
        return 0;
    }
    if (!strcmp(cmd, "warm")) return archs ? warm(archs, only) : usage();
    if (!strcmp(cmd, "spills")) return archs ? spills(archs, only) : usage();
    const char *dir = shimrt_jit_cache_dir();
    if (!dir) {
        fputs("shimrt-jit: the disk cache is disabled (SHIMRT_CACHE_DISABLE) or has no folder\n",
              stderr);
        return 1;
    }
    if (!strcmp(cmd, "stats")) {
        size_t files;
        uint64_t bytes;
        shimrt_jit_cache_usage("shimrt-jit", dir, &files, &bytes);
        printf("cache %s: %zu files, %llu bytes\n", dir, files, (unsigned long long)bytes);
        return 0;
    }
    if (!strcmp(cmd, "clear")) {
        size_t removed;
        shimrt_jit_cache_clear("shimrt-jit", dir, &removed);
        printf("cache %s: removed %zu files\n", dir, removed);
        return 0;
    }
    return usage();
}

/* runtime/cuda/jit.c: NVRTC compilation and the two-level JIT cache.
 *
 * In process: an open-addressing table of immutable entries published with atomic stores;
 * a hit is an atomic load and a compare, without a lock (writers take a mutex).
 * On disk: one file per (source, options, NVRTC version, architecture), named by a 128-bit
 * hash of those, in $SHIMRT_CACHE_DIR (else $XDG_CACHE_HOME/shimrt/jit, else
 * ~/.cache/shimrt/jit). A file is a header (magic, key, payload size, payload checksum)
 * then the image; it is written to a temp file and renamed, so readers never see a partial
 * file; a file whose header, size or checksum does not match is deleted and the kernel
 * recompiled. After each write the folder is kept under SHIMRT_CACHE_MAX_BYTES (default
 * 512 MiB) by removing the least recently used files (a hit refreshes the file's time).
 * SHIMRT_CACHE_DISABLE=1 turns the disk level off. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuda_internal.h"
#include "catalogue.h"

#define FILE_MAGIC "SHJITv01"
#define SUFFIX ".shk"

static _Atomic uint64_t n_mem, n_disk, n_miss, n_corrupt, n_evict, compile_ns;

AOTI_TORCH_EXPORT AOTITorchError shimrt_jit_get_stats(shimrt_jit_stats *s) {
    SHIMRT_CHECK_ARG(s);
    s->memory_hits = atomic_load(&n_mem);
    s->disk_hits = atomic_load(&n_disk);
    s->misses = atomic_load(&n_miss);
    s->corrupt = atomic_load(&n_corrupt);
    s->evictions = atomic_load(&n_evict);
    s->compile_ms = (double)atomic_load(&compile_ns) / 1e6;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_jit_reset_stats(void) {
    atomic_store(&n_mem, 0);
    atomic_store(&n_disk, 0);
    atomic_store(&n_miss, 0);
    atomic_store(&n_corrupt, 0);
    atomic_store(&n_evict, 0);
    atomic_store(&compile_ns, 0);
    return AOTI_TORCH_SUCCESS;
}

/* ---- hashing: FNV-1a 64 twice with different bases gives the 128-bit key ---- */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}
static uint64_t checksum(const void *p, size_t n) {
    return fnv(UINT64_C(0xcbf29ce484222325), p, n);
}

typedef struct {
    uint64_t h[2];
} key128;

static key128 make_key(const char *source, const char *const *opts, int nopts, int nv_major,
                       int nv_minor, int arch) {
    key128 k = {{UINT64_C(0xcbf29ce484222325), UINT64_C(0x84222325cbf29ce4)}};
    for (int j = 0; j < 2; j++) {
        k.h[j] = fnv(k.h[j], source, strlen(source) + 1);
        for (int i = 0; i < nopts; i++) k.h[j] = fnv(k.h[j], opts[i], strlen(opts[i]) + 1);
        int v[3] = {nv_major, nv_minor, arch};
        k.h[j] = fnv(k.h[j], v, sizeof v);
        k.h[j] = fnv(k.h[j], &j, sizeof j);
    }
    return k;
}

/* ---- options ---- */
static int nvrtc_arch_for(const shimrt_nvrtc_api *nv, int arch, bool *cubin) {
    int n = 0, best = 0;
    *cubin = false;
    if (nv->nvrtcGetNumSupportedArchs(&n) != 0 || n <= 0 || n > 256) return arch;
    int archs[256];
    if (nv->nvrtcGetSupportedArchs(archs) != 0) return arch;
    for (int i = 0; i < n; i++) {
        if (archs[i] == arch) {
            *cubin = true;
            return arch;
        }
        if (archs[i] <= arch && archs[i] > best) best = archs[i];
    }
    return best ? best : arch; /* PTX for the newest virtual arch not above the GPU's */
}

static int base_options(char archopt[48], const char *opts[8], int arch, bool cubin, bool verbose) {
    snprintf(archopt, 48, "--gpu-architecture=%s_%d", cubin ? "sm" : "compute", arch);
    int n = 0;
    opts[n++] = archopt;
    opts[n++] = "--std=c++17";
    opts[n++] = "-default-device";
    if (verbose) opts[n++] = "--ptxas-options=-v";
    return n;
}

static AOTITorchError compile(const char *func, const shimrt_nvrtc_api *nv, const char *source,
                              const char *name, int n, const char *const *opts, bool cubin,
                              void **image, size_t *size, char **log) {
    nvrtcProgram prog = NULL;
    nvrtcResult r = nv->nvrtcCreateProgram(&prog, source, name, 0, NULL, NULL);
    if (r) return shimrt_fail(func, "nvrtcCreateProgram: %s", nv->nvrtcGetErrorString(r));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    nvrtcResult cr = nv->nvrtcCompileProgram(prog, n, opts);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    atomic_fetch_add(&compile_ns, (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL +
                                             (t1.tv_nsec - t0.tv_nsec)));
    size_t ls = 0;
    char *text = NULL;
    if (nv->nvrtcGetProgramLogSize(prog, &ls) == 0 && (text = malloc(ls + 1)) != NULL) {
        if (nv->nvrtcGetProgramLog(prog, text) != 0) ls = 0;
        text[ls] = '\0';
    }
    if (cr) {
        shimrt_fail(func, "NVRTC failed to compile %s (%s): %.600s", name,
                    nv->nvrtcGetErrorString(cr), text ? text : "");
        free(text);
        nv->nvrtcDestroyProgram(&prog);
        return AOTI_TORCH_FAILURE;
    }
    size_t sz = 0;
    r = cubin ? nv->nvrtcGetCUBINSize(prog, &sz) : nv->nvrtcGetPTXSize(prog, &sz);
    void *buf = r == 0 ? malloc(sz ? sz : 1) : NULL;
    if (buf) r = cubin ? nv->nvrtcGetCUBIN(prog, buf) : nv->nvrtcGetPTX(prog, buf);
    nv->nvrtcDestroyProgram(&prog);
    if (!buf || r) {
        free(buf);
        free(text);
        return shimrt_fail(func, "NVRTC could not return the image of %s", name);
    }
    *image = buf;
    *size = sz;
    if (log)
        *log = text;
    else
        free(text);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_jit_compile_uncached(const char *func, const char *source, const char *name,
                                           int arch, bool verbose, void **image, size_t *size,
                                           bool *is_cubin, char **log) {
    const shimrt_nvrtc_api *nv = shimrt_nvrtc(func);
    if (!nv) return AOTI_TORCH_FAILURE;
    bool cubin;
    int a = nvrtc_arch_for(nv, arch, &cubin);
    char archopt[48];
    const char *opts[8];
    int n = base_options(archopt, opts, a, cubin, verbose);
    if (is_cubin) *is_cubin = cubin;
    return compile(func, nv, source, name, n, opts, cubin, image, size, log);
}

/* ---- the disk level ---- */
static _Thread_local char dir_buf[4096];

AOTI_TORCH_EXPORT const char *shimrt_jit_cache_dir(void) {
    const char *off = getenv("SHIMRT_CACHE_DISABLE");
    if (off && *off && strcmp(off, "0") != 0) return NULL;
    const char *d = getenv("SHIMRT_CACHE_DIR");
    if (d && *d)
        snprintf(dir_buf, sizeof dir_buf, "%s", d);
    else if ((d = getenv("XDG_CACHE_HOME")) && *d)
        snprintf(dir_buf, sizeof dir_buf, "%s/shimrt/jit", d);
    else if ((d = getenv("HOME")) && *d)
        snprintf(dir_buf, sizeof dir_buf, "%s/.cache/shimrt/jit", d);
    else
        return NULL;
    return dir_buf;
}

static void mkdirs(const char *dir) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(tmp, 0755);
            *p = '/';
        }
    mkdir(tmp, 0755);
}

typedef struct {
    char magic[8];
    uint64_t key[2];
    uint64_t size, sum;
    uint32_t is_cubin, pad;
} file_header;

static char *path_for(const char *dir, key128 k) {
    size_t n = strlen(dir) + 64;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%016llx%016llx" SUFFIX, dir, (unsigned long long)k.h[0],
                 (unsigned long long)k.h[1]);
    return p;
}

/* 1: loaded; 0: no file; -1: a bad file (deleted). */
static int disk_read(const char *path, key128 k, void **image, size_t *size, bool *cubin) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    file_header h;
    struct stat st;
    int ok = -1;
    void *buf = NULL;
    if (fstat(fileno(f), &st) == 0 && fread(&h, sizeof h, 1, f) == 1 &&
        !memcmp(h.magic, FILE_MAGIC, 8) && h.key[0] == k.h[0] && h.key[1] == k.h[1] &&
        (uint64_t)st.st_size == sizeof h + h.size && h.size < (UINT64_C(1) << 32) &&
        (buf = malloc(h.size ? h.size : 1)) && fread(buf, 1, h.size, f) == h.size &&
        checksum(buf, h.size) == h.sum)
        ok = 1;
    fclose(f);
    if (ok == 1) {
        *image = buf;
        *size = h.size;
        *cubin = h.is_cubin != 0;
        utimensat(AT_FDCWD, path, NULL, 0); /* least-recently-used order for eviction */
    } else {
        free(buf);
        unlink(path);
    }
    return ok;
}

static uint64_t max_bytes(void) {
    const char *m = getenv("SHIMRT_CACHE_MAX_BYTES");
    if (m && *m) {
        char *end;
        unsigned long long v = strtoull(m, &end, 10);
        if (!*end) return v;
    }
    return UINT64_C(512) << 20;
}

typedef struct {
    char *name;
    time_t t;
    long nsec;
    uint64_t size;
} entry;

static int by_age(const void *a, const void *b) {
    const entry *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->nsec < y->nsec ? -1 : x->nsec > y->nsec;
}

/* Lists the cache files of dir (*out: malloc'd, names malloc'd). */
static size_t scan(const char *dir, entry **out, uint64_t *total) {
    *out = NULL;
    *total = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0, cap = 0;
    struct dirent *e;
    char path[4352];
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, SUFFIX) || e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st)) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            entry *ne = realloc(*out, cap * sizeof *ne);
            if (!ne) break;
            *out = ne;
        }
        (*out)[n].name = strdup(e->d_name);
        (*out)[n].t = st.st_mtim.tv_sec;
        (*out)[n].nsec = st.st_mtim.tv_nsec;
        (*out)[n].size = (uint64_t)st.st_size;
        *total += (uint64_t)st.st_size;
        n++;
    }
    closedir(d);
    return n;
}

static void evict(const char *dir) {
    entry *es;
    uint64_t total, bound = max_bytes();
    size_t n = scan(dir, &es, &total);
    if (total > bound) {
        qsort(es, n, sizeof *es, by_age);
        char path[4352];
        for (size_t i = 0; i < n && total > bound; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, es[i].name ? es[i].name : "");
            if (es[i].name && unlink(path) == 0) {
                total -= es[i].size;
                atomic_fetch_add(&n_evict, 1);
            }
        }
    }
    for (size_t i = 0; i < n; i++) free(es[i].name);
    free(es);
}

static void disk_write(const char *dir, const char *path, key128 k, const void *image, size_t size,
                       bool cubin) {
    mkdirs(dir);
    char tmp[4400];
    static _Atomic unsigned seq;
    snprintf(tmp, sizeof tmp, "%s/.tmp.%ld.%u", dir, (long)getpid(), atomic_fetch_add(&seq, 1));
    FILE *f = fopen(tmp, "wb");
    if (!f) return; /* a read-only or missing folder: the cache is only an optimisation */
    file_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, FILE_MAGIC, 8);
    h.key[0] = k.h[0];
    h.key[1] = k.h[1];
    h.size = size;
    h.sum = checksum(image, size);
    h.is_cubin = cubin;
    bool ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(image, 1, size, f) == size;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return;
    }
    evict(dir);
}

AOTITorchError shimrt_jit_cache_clear(const char *func, const char *dir, size_t *removed) {
    SHIMRT_CHECK_ARG(dir);
    entry *es;
    uint64_t total;
    size_t n = scan(dir, &es, &total), k = 0;
    char path[4352];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, es[i].name ? es[i].name : "");
        if (es[i].name && unlink(path) == 0) k++;
        free(es[i].name);
    }
    free(es);
    (void)func;
    if (removed) *removed = k;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_jit_cache_usage(const char *func, const char *dir, size_t *files,
                                      uint64_t *bytes) {
    SHIMRT_CHECK_ARG(dir);
    (void)func;
    entry *es;
    uint64_t total;
    size_t n = scan(dir, &es, &total);
    for (size_t i = 0; i < n; i++) free(es[i].name);
    free(es);
    if (files) *files = n;
    if (bytes) *bytes = total;
    return AOTI_TORCH_SUCCESS;
}

/* ---- the in-process level ---- */
#define SLOTS 4096u
typedef struct mem_entry {
    key128 key;
    int arch;
    shimrt_jit_image img;
} mem_entry;
static _Atomic(mem_entry *) table[SLOTS];
/* The same entries by (kernel name, arch): within a process a name always has the same
 * source, so a hit needs no source generation and no content hash. */
static _Atomic(mem_entry *) by_name[SLOTS];

static uint64_t name_hash(const char *name, int arch) {
    return fnv(checksum(name, strlen(name)), &arch, sizeof arch);
}

static mem_entry *lookup_name(const char *name, int arch) {
    uint64_t h = name_hash(name, arch);
    for (unsigned i = 0; i < SLOTS; i++) {
        mem_entry *e = atomic_load_explicit(&by_name[(h + i) % SLOTS], memory_order_acquire);
        if (!e) return NULL;
        if (e->arch == arch && !strcmp(e->img.name, name)) return e;
    }
    return NULL;
}

/* Publishes e under its name (insert_lock held). */
static void publish_name(mem_entry *e) {
    uint64_t h = name_hash(e->img.name, e->arch);
    for (unsigned i = 0; i < SLOTS; i++) {
        _Atomic(mem_entry *) *slot = &by_name[(h + i) % SLOTS];
        mem_entry *o = atomic_load_explicit(slot, memory_order_relaxed);
        if (!o) {
            atomic_store_explicit(slot, e, memory_order_release);
            return;
        }
        if (o == e || (o->arch == e->arch && !strcmp(o->img.name, e->img.name))) return;
    }
}
static pthread_mutex_t insert_lock = PTHREAD_MUTEX_INITIALIZER;

static mem_entry *lookup(key128 k) {
    for (unsigned i = 0; i < SLOTS; i++) {
        mem_entry *e = atomic_load_explicit(&table[(k.h[0] + i) % SLOTS], memory_order_acquire);
        if (!e) return NULL;
        if (e->key.h[0] == k.h[0] && e->key.h[1] == k.h[1]) return e;
    }
    return NULL;
}

static mem_entry *insert(mem_entry *ne) {
    pthread_mutex_lock(&insert_lock);
    mem_entry *found = NULL;
    for (unsigned i = 0; i < SLOTS; i++) {
        _Atomic(mem_entry *) *slot = &table[(ne->key.h[0] + i) % SLOTS];
        mem_entry *e = atomic_load_explicit(slot, memory_order_relaxed);
        if (!e) {
            atomic_store_explicit(slot, ne, memory_order_release);
            publish_name(ne);
            found = ne;
            break;
        }
        if (e->key.h[0] == ne->key.h[0] && e->key.h[1] == ne->key.h[1]) {
            found = e; /* another thread got there first */
            break;
        }
    }
    pthread_mutex_unlock(&insert_lock);
    return found;
}

static key128 kernel_key(const shimrt_nvrtc_api *nv, const char *source, int arch, bool *cubin,
                         char archopt[48], const char *opts[8], int *nopts) {
    int a = nvrtc_arch_for(nv, arch, cubin);
    *nopts = base_options(archopt, opts, a, *cubin, false);
    return make_key(source, opts, *nopts, nv->major, nv->minor, arch);
}

AOTITorchError shimrt_jit_get(const char *func, const shimrt_cuda_kdesc *k, int arch,
                              const shimrt_jit_image **out) {
    SHIMRT_CHECK_ARG(k);
    SHIMRT_CHECK_ARG(out);
    mem_entry *hit = lookup_name(k->name, arch);
    if (hit) {
        atomic_fetch_add_explicit(&n_mem, 1, memory_order_relaxed);
        *out = &hit->img;
        return AOTI_TORCH_SUCCESS;
    }
    const shimrt_nvrtc_api *nv = shimrt_nvrtc(func);
    if (!nv) return AOTI_TORCH_FAILURE;
    char *src = shimrt_cuda_kernel_source(k);
    if (!src) return shimrt_fail(func, "out of memory");
    bool cubin;
    char archopt[48];
    const char *opts[8];
    int nopts;
    key128 key = kernel_key(nv, src, arch, &cubin, archopt, opts, &nopts);
    mem_entry *e = lookup(key);
    if (e) {
        free(src);
        atomic_fetch_add_explicit(&n_mem, 1, memory_order_relaxed);
        *out = &e->img;
        return AOTI_TORCH_SUCCESS;
    }
    void *image = NULL;
    size_t size = 0;
    const char *dir = shimrt_jit_cache_dir();
    char *path = dir ? path_for(dir, key) : NULL;
    int got = 0;
    if (path) {
        got = disk_read(path, key, &image, &size, &cubin);
        if (got < 0) atomic_fetch_add(&n_corrupt, 1);
    }
    if (got == 1) {
        atomic_fetch_add(&n_disk, 1);
    } else {
        if (compile(func, nv, src, k->name, nopts, opts, cubin, &image, &size, NULL)) {
            free(src);
            free(path);
            return AOTI_TORCH_FAILURE;
        }
        atomic_fetch_add(&n_miss, 1);
        if (path) disk_write(dir, path, key, image, size, cubin);
    }
    free(src);
    free(path);
    e = calloc(1, sizeof *e);
    if (!e) {
        free(image);
        return shimrt_fail(func, "out of memory");
    }
    e->key = key;
    e->arch = arch;
    e->img.data = image;
    e->img.size = size;
    e->img.is_cubin = cubin;
    snprintf(e->img.name, sizeof e->img.name, "%s", k->name);
    mem_entry *won = insert(e);
    if (won != e) {
        free(image);
        free(e);
        if (!won) return shimrt_fail(func, "the in-process JIT table is full (%u kernels)", SLOTS);
    }
    *out = &won->img;
    return AOTI_TORCH_SUCCESS;
}

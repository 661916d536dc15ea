/* runtime/cuda/launch.c: the lookups of an op's launch, built once and then read without a
 * lock (docs/cuda.md, "The launch path"):
 *
 * - The catalogue index: two open-addressing tables over the catalogue, made once per
 *   process (pthread_once) and immutable afterwards: (kind, op, dtype, layout) -> kernel
 *   (shimrt_cuda_kernel_for) and name -> kernel. A descriptor from shimrt_cuda_kernel_for
 *   carries its position (id); one from shimrt_cuda_kernel_find is found by name.
 * - The functions: per device, an array with one CUfunction slot per kernel. A launch reads
 *   its slot with one acquire load. An empty slot is filled once: the image for the
 *   device's architecture (shimrt_jit_get), cuModuleLoadData and cuModuleGetFunction in the
 *   device's context, then a compare-and-swap publishes it; a thread that loses the race
 *   unloads its own module and takes the winner's function. No mutex anywhere. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "catalogue.h"

#define MAX_DEV 64

/* ---- the catalogue index ---- */
static struct {
    pthread_once_t once;
    shimrt_cuda_kdesc *all; /* the catalogue in its order, id = position + 1 */
    uint32_t *by_key;       /* cells (below) or 0 (empty); mask + 1 of them */
    uint32_t *by_name;      /* ids by name, or 0 */
    size_t n, mask;
} ix = {PTHREAD_ONCE_INIT, NULL, NULL, NULL, 0, 0};

static uint64_t str_hash(const char *s) {
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (; *s; s++) h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
    return h;
}
static uint64_t key_hash(int kind, const char *op, int32_t dtype, int layout) {
    uint64_t v = (uint64_t)(uint32_t)dtype << 32 | (uint64_t)(uint8_t)kind << 8 | (uint8_t)layout;
    uint64_t h = (str_hash(op) ^ v) * UINT64_C(0x9e3779b97f4a7c15);
    return h ^ h >> 29;
}

/* A cell of by_key: a kernel's id, with OUT_KEY when it is filed under its output dtype
 * (copies and fills are found by the dtype they write) rather than its input dtype. Each
 * key is filed once, by the first kernel of the catalogue that has it, so a lookup finds
 * what a scan in catalogue order would. */
#define OUT_KEY UINT32_C(0x80000000)
static bool cell_is(uint32_t cell, int kind, const char *op, int32_t dtype, int layout) {
    const shimrt_cuda_kdesc *k = &ix.all[(cell & ~OUT_KEY) - 1];
    return k->kind == kind && k->layout == layout &&
           (cell & OUT_KEY ? k->out_dtype : k->in_dtype) == dtype && !strcmp(k->op, op);
}

static void add_key(uint32_t id, bool out_key) {
    const shimrt_cuda_kdesc *k = &ix.all[id - 1];
    int32_t dtype = out_key ? k->out_dtype : k->in_dtype;
    for (uint64_t i = key_hash(k->kind, k->op, dtype, k->layout);; i++) {
        uint32_t *cell = &ix.by_key[i & ix.mask];
        if (!*cell) {
            *cell = id | (out_key ? OUT_KEY : 0);
            return;
        }
        if (cell_is(*cell, k->kind, k->op, dtype, k->layout)) return; /* an earlier kernel's */
    }
}

static void index_init(void) {
    size_t n = shimrt_cuda_kernel_count(), cells = 16;
    while (cells < 4 * n) cells *= 2; /* at most two keys per kernel: load factor <= 1/2 */
    ix.all = malloc((n ? n : 1) * sizeof *ix.all);
    ix.by_key = calloc(cells, sizeof *ix.by_key);
    ix.by_name = calloc(cells, sizeof *ix.by_name);
    if (!ix.all || !ix.by_key || !ix.by_name || n >= OUT_KEY) goto fail;
    ix.mask = cells - 1;
    for (size_t i = 0; i < n; i++) {
        if (!shimrt_cuda_kernel_at(i, &ix.all[i])) goto fail;
        ix.all[i].id = (uint32_t)i + 1;
    }
    for (size_t i = 0; i < n; i++) {
        const shimrt_cuda_kdesc *k = &ix.all[i];
        add_key((uint32_t)i + 1, false);
        if (k->kind == SHK_COPY || k->kind == SHK_FILL) add_key((uint32_t)i + 1, true);
        for (uint64_t h = str_hash(k->name);; h++) {
            uint32_t *cell = &ix.by_name[h & ix.mask];
            if (!*cell) {
                *cell = (uint32_t)i + 1;
                break;
            }
            if (!strcmp(ix.all[*cell - 1].name, k->name)) break;
        }
    }
    ix.n = n;
    return;
fail: /* every lookup then scans the catalogue, as before the index */
    free(ix.all);
    free(ix.by_key);
    free(ix.by_name);
    ix.all = NULL;
    ix.by_key = ix.by_name = NULL;
}

static bool index_ready(void) {
    pthread_once(&ix.once, index_init);
    return ix.all != NULL;
}

bool shimrt_cuda_kernel_for(int kind, const char *op, int32_t in_dtype, int layout,
                            shimrt_cuda_kdesc *out) {
    if (!op) return false;
    if (index_ready()) {
        for (uint64_t i = key_hash(kind, op, in_dtype, layout);; i++) {
            uint32_t cell = ix.by_key[i & ix.mask];
            if (!cell) return false;
            if (cell_is(cell, kind, op, in_dtype, layout)) {
                if (out) *out = ix.all[(cell & ~OUT_KEY) - 1];
                return true;
            }
        }
    }
    size_t n = shimrt_cuda_kernel_count();
    for (size_t i = 0; i < n; i++) {
        shimrt_cuda_kdesc k;
        if (!shimrt_cuda_kernel_at(i, &k)) break;
        if (k.kind == kind && k.layout == layout && !strcmp(k.op, op) &&
            (k.in_dtype == in_dtype ||
             ((kind == SHK_COPY || kind == SHK_FILL) && k.out_dtype == in_dtype))) {
            if (out) *out = k;
            return true;
        }
    }
    return false;
}

/* The catalogue position (id) of k: its own, else found by name; 0 when unknown. */
static uint32_t id_of(const shimrt_cuda_kdesc *k) {
    if (!index_ready()) return 0;
    if (k->id && k->id <= ix.n) return k->id; /* set by shimrt_cuda_kernel_for */
    for (uint64_t h = str_hash(k->name);; h++) {
        uint32_t id = ix.by_name[h & ix.mask];
        if (!id || !strcmp(ix.all[id - 1].name, k->name)) return id;
    }
}

/* ---- per device: architecture and multiprocessors, asked once ---- */
static int dev_arch[MAX_DEV], dev_sms[MAX_DEV];

AOTITorchError shimrt_cuda_device_info(const char *op, int32_t dev, int *arch, int *sms) {
    if (dev < 0 || dev >= MAX_DEV) return shimrt_fail(op, "bad CUDA device %d", (int)dev);
    int a = __atomic_load_n(&dev_arch[dev], __ATOMIC_ACQUIRE);
    if (!a) {
        const shimrt_cuda_api *cu = shimrt_cuda_driver(op);
        if (!cu) return AOTI_TORCH_FAILURE;
        CUdevice d;
        int major = 0, minor = 0, n = 1;
        CUresult r = cu->cuDeviceGet(&d, dev);
        if (!r)
            r = cu->cuDeviceGetAttribute(&major, SH_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                         d);
        if (!r)
            r = cu->cuDeviceGetAttribute(&minor, SH_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                         d);
        if (!r) r = cu->cuDeviceGetAttribute(&n, SH_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d);
        if (r) return shimrt_cu_fail(op, "cuDeviceGetAttribute", r);
        a = major * 10 + minor;
        if (a <= 0)
            return shimrt_fail(op, "CUDA device %d reports compute capability %d.%d", (int)dev,
                               major, minor);
        __atomic_store_n(&dev_sms[dev], n > 0 ? n : 1, __ATOMIC_RELAXED);
        __atomic_store_n(&dev_arch[dev], a, __ATOMIC_RELEASE);
    }
    if (arch) *arch = a;
    if (sms) *sms = __atomic_load_n(&dev_sms[dev], __ATOMIC_RELAXED);
    return AOTI_TORCH_SUCCESS;
}

/* ---- per (kernel, device): the function ---- */
static CUfunction *fns[MAX_DEV]; /* ix.n slots each, allocated on the device's first launch */

AOTITorchError shimrt_cuda_function(const char *op, const shimrt_cuda_kdesc *k, int32_t dev,
                                    CUfunction *out) {
    if (dev < 0 || dev >= MAX_DEV) return shimrt_fail(op, "bad CUDA device %d", (int)dev);
    if (!index_ready()) return shimrt_fail(op, "out of memory (the CUDA kernel index)");
    uint32_t id = id_of(k);
    if (!id) return shimrt_fail(op, "no CUDA kernel %s in the catalogue", k->name);
    CUfunction *slots = __atomic_load_n(&fns[dev], __ATOMIC_ACQUIRE);
    if (slots) {
        CUfunction f = __atomic_load_n(&slots[id - 1], __ATOMIC_ACQUIRE);
        if (f) {
            *out = f;
            return AOTI_TORCH_SUCCESS;
        }
    } else {
        CUfunction *fresh = calloc(ix.n, sizeof *fresh), *none = NULL;
        if (!fresh) return shimrt_fail(op, "out of memory");
        if (__atomic_compare_exchange_n(&fns[dev], &none, fresh, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            slots = fresh;
        else {
            free(fresh);
            slots = none; /* another thread's array */
        }
    }
    /* first launch of k on dev: load its image in dev's context (current: the caller entered it) */
    int arch = 0;
    const shimrt_jit_image *img;
    if (shimrt_cuda_device_info(op, dev, &arch, NULL) || shimrt_jit_get(op, k, arch, &img))
        return AOTI_TORCH_FAILURE;
    const shimrt_cuda_api *cu = shimrt_cuda_driver(op);
    if (!cu) return AOTI_TORCH_FAILURE;
    CUmodule m = NULL;
    CUfunction f = NULL, none = NULL;
    CUresult r = cu->cuModuleLoadData(&m, img->data);
    if (!r) r = cu->cuModuleGetFunction(&f, m, k->name);
    if (r) {
        if (m) (void)cu->cuModuleUnload(m);
        return shimrt_cu_fail(op, "cuModuleLoadData/cuModuleGetFunction", r);
    }
    if (!__atomic_compare_exchange_n(&slots[id - 1], &none, f, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        (void)cu->cuModuleUnload(m); /* another thread published first; ours never ran */
        f = none;
    }
    *out = f;
    return AOTI_TORCH_SUCCESS;
}

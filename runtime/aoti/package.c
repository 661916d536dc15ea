/* runtime/aoti/package.c: shimrt/aoti_package.h. Opens a .pt2 with libzip, extracts the
 * model .so into a private folder, checks it (elf.c), loads it on top of libshimrt, loads
 * the weights kept outside the .so and drives the .so's own AOTInductorModelContainer*
 * functions. */
#define _GNU_SOURCE /* dladdr: the folder libshimrt-aoti was loaded from */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include "aoti_internal.h"
#include "shimrt/aoti_package.h"
#include "shimrt/tensor.h"
#include "shimrt/cuda.h"
#include "shimrt/device.h"
#include "shimrt/error.h"

/* ---- the thread's error message ------------------------------------------------------ */
static _Thread_local char err_buf[8192];

int aoti_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_buf, sizeof err_buf, fmt, ap);
    va_end(ap);
    return 1;
}

void aoti_fail_append(const char *fmt, ...) {
    size_t n = strlen(err_buf);
    if (n + 1 >= sizeof err_buf) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_buf + n, sizeof err_buf - n, fmt, ap);
    va_end(ap);
}

AOTI_TORCH_EXPORT const char *shimrt_package_last_error(void) { return err_buf; }

/* ---- the .so's C interface (torch/csrc/inductor/aoti_runtime/interface.h) ------------ */
typedef int32_t AotiRtError; /* AOTIRuntimeError: 0 success */
typedef struct AotiContainer *AotiContainerHandle;
typedef AotiRtError (*CreateWithDeviceFn)(AotiContainerHandle *, size_t, const char *,
                                          const char *);
typedef AotiRtError (*DeleteFn)(AotiContainerHandle);
typedef AotiRtError (*RunFn)(AotiContainerHandle, AtenTensorHandle *, size_t, AtenTensorHandle *,
                             size_t, void *, void *);
typedef AotiRtError (*CountFn)(AotiContainerHandle, size_t *);
typedef AotiRtError (*BlobFn)(AotiContainerHandle, const uint8_t *);
typedef AotiRtError (*LastErrorFn)(const char **);
typedef void (*OmpSetFn)(int);

struct ShimrtPackage {
    char dir[2048]; /* the private folder the files were extracted to ("" if none) */
    char so_path[4096];
    void *so;
    AotiContainerHandle container;
    DeleteFn del;
    RunFn run;
    LastErrorFn last_error;
    OmpSetFn omp_set_num_threads;
    size_t num_inputs, num_outputs;
    uint8_t *blob;        /* weights outside the .so; the container reads them while it lives */
    int32_t device_type;  /* the package's: aoti_torch_device_type_cpu() or _cuda() */
    int32_t device_index; /* CUDA: the device the container was created on */
};

/* ---- threads ------------------------------------------------------------------------- */
static int num_threads; /* 0: not decided yet */

static int parse_count(const char *s) {
    if (!s || !*s) return 0;
    char *end;
    long v = strtol(s, &end, 10);
    return *end == '\0' && v >= 1 && v <= 4096 ? (int)v : 0;
}

/* The one count: libshimrt's (SHIMRT_NUM_THREADS, else one per core), taking
 * OMP_NUM_THREADS when only that is set. OpenMP gets it through omp_set_num_threads in
 * the running thread before each run (OMP_NUM_THREADS too, for a libgomp loaded later). */
static pthread_once_t threads_once = PTHREAD_ONCE_INIT;
static void decide_threads_once(void) {
    if (num_threads) return; /* set by shimrt_package_set_num_threads */
    if (!parse_count(getenv("SHIMRT_NUM_THREADS")) && parse_count(getenv("OMP_NUM_THREADS")))
        setenv("SHIMRT_NUM_THREADS", getenv("OMP_NUM_THREADS"), 1);
    uint32_t n = 1;
    if (torch_get_num_threads(&n) != AOTI_TORCH_SUCCESS || n < 1) n = 1;
    num_threads = (int)n;
    char buf[16];
    snprintf(buf, sizeof buf, "%d", num_threads);
    setenv("OMP_NUM_THREADS", buf, 1);
}
static void decide_threads(void) { pthread_once(&threads_once, decide_threads_once); }

AOTI_TORCH_EXPORT int shimrt_package_set_num_threads(int n) {
    if (n < 1) return aoti_fail("shimrt_package_set_num_threads: %d is not a thread count", n);
    char buf[16];
    snprintf(buf, sizeof buf, "%d", n);
    setenv("SHIMRT_NUM_THREADS", buf, 1);
    setenv("OMP_NUM_THREADS", buf, 1);
    uint32_t have = 0;
    if (torch_get_num_threads(&have) != AOTI_TORCH_SUCCESS) have = 0;
    if ((int)have != n)
        return aoti_fail("shimrt_package_set_num_threads: libshimrt's thread pool already "
                         "started with %u threads; set the count before libshimrt's first "
                         "parallel call (or SHIMRT_NUM_THREADS in the environment)",
                         have);
    num_threads = n;
    return 0;
}

/* ---- package files ------------------------------------------------------------------- */
/* Removes the private folder and the files extracted into it (the .so, CUDA kernels). */
static void remove_dir(ShimrtPackage *p) {
    if (!p->dir[0]) return;
    DIR *d = opendir(p->dir);
    if (d) {
        int fd = dirfd(d);
        for (struct dirent *e; (e = readdir(d));)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlinkat(fd, e->d_name, 0);
        closedir(d);
    }
    rmdir(p->dir);
    p->dir[0] = '\0';
}

/* A CUDA model's .so calls the CUDA runtime API (cudaMalloc, cudaEventRecord, ...), which
 * PyTorch's process has from libcudart. Here: the process's own when it has one, else
 * libshimrt-cudart (runtime/aoti/cudart/), from this library's folder or by soname, loaded
 * into the global scope once (never unloaded). */
static int cudart_ready;
static char cudart_error[512];
static pthread_once_t cudart_once = PTHREAD_ONCE_INIT;
static void load_cudart(void) {
    dlerror();
    if (dlsym(RTLD_DEFAULT, "cudaMalloc")) {
        cudart_ready = 1;
        return;
    }
    char path[4096] = "";
    Dl_info info;
    if (dladdr((void *)load_cudart, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        if (slash)
            snprintf(path, sizeof path, "%.*s/libshimrt-cudart.so.0", (int)(slash - info.dli_fname),
                     info.dli_fname);
    }
    if ((path[0] && dlopen(path, RTLD_NOW | RTLD_GLOBAL)) ||
        dlopen("libshimrt-cudart.so.0", RTLD_NOW | RTLD_GLOBAL)) {
        cudart_ready = 1;
        return;
    }
    const char *e = dlerror();
    snprintf(cudart_error, sizeof cudart_error, "%s", e ? e : "not found");
}

/* Reads entry idx (its size known from the archive) into a new buffer of at least
 * `align`-aligned memory, or writes it to fd when fd >= 0 (buffer NULL then). */
static int read_entry(zip_t *z, zip_uint64_t idx, const char *name, int fd, uint8_t **buf_out,
                      uint64_t *size_out) {
    zip_stat_t st;
    if (zip_stat_index(z, idx, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
        return aoti_fail("%s: cannot read the archive's entry: %s", name, zip_strerror(z));
    zip_file_t *f = zip_fopen_index(z, idx, 0);
    if (!f) return aoti_fail("%s: cannot open the archive's entry: %s", name, zip_strerror(z));
    uint8_t *buf = NULL;
    if (fd < 0) {
        if (st.size > SIZE_MAX - 64 ||
            posix_memalign((void **)&buf, 64, st.size ? st.size : 1) != 0) {
            zip_fclose(f);
            return aoti_fail("%s: out of memory for %llu bytes", name, (unsigned long long)st.size);
        }
    }
    uint8_t chunk[1 << 16];
    uint64_t done = 0;
    for (;;) {
        zip_int64_t n = zip_fread(f, chunk, sizeof chunk);
        if (n < 0) {
            free(buf);
            int rc = aoti_fail("%s: the archive's data is damaged: %s", name, zip_file_strerror(f));
            zip_fclose(f);
            return rc;
        }
        if (n == 0) break;
        if (done + (uint64_t)n > st.size) break;
        if (fd >= 0) {
            for (zip_int64_t w = 0; w < n;) {
                ssize_t k = write(fd, chunk + w, (size_t)(n - w));
                if (k < 0) {
                    zip_fclose(f);
                    return aoti_fail("%s: cannot write the extracted file: %s", name,
                                     strerror(errno));
                }
                w += k;
            }
        } else {
            memcpy(buf + done, chunk, (size_t)n);
        }
        done += (uint64_t)n;
    }
    zip_fclose(f);
    if (done != st.size) {
        free(buf);
        return aoti_fail("%s: the archive's entry is truncated (%llu of %llu bytes)", name,
                         (unsigned long long)done, (unsigned long long)st.size);
    }
    if (buf_out) *buf_out = buf;
    if (size_out) *size_out = done;
    return 0;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static void *sym(ShimrtPackage *p, const char *name, bool required) {
    dlerror();
    void *f = dlsym(p->so, name);
    if (!f && required)
        aoti_fail("the model .so does not define %s: not an AOTInductor model of PyTorch 2.x",
                  name);
    return f;
}

static int rt_fail(ShimrtPackage *p, AotiRtError rc, const char *what) {
    const char *msg = NULL;
    if (p->last_error && p->last_error(&msg) != 0) msg = NULL;
    return aoti_fail("%s failed (AOTIRuntimeError %d)%s%s", what, (int)rc, msg && *msg ? ": " : "",
                     msg && *msg ? msg : " (the model printed its reason on stderr)");
}

static int open_package(ShimrtPackage *p, const char *path, const char *model_name) {
    int zerr = 0;
    zip_t *z = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &zerr);
    if (!z) {
        zip_error_t e;
        zip_error_init_with_code(&e, zerr);
        int rc =
            aoti_fail("%s: not a readable .pt2 package (zip): %s", path, zip_error_strerror(&e));
        zip_error_fini(&e);
        return rc;
    }
    /* <root>/data/aotinductor/<model_name>/: the .so, its weights blob, its metadata. */
    char folder[512];
    snprintf(folder, sizeof folder, "/data/aotinductor/%s/", model_name);
    zip_int64_t n = zip_get_num_entries(z, 0);
    zip_int64_t so_idx = -1, blob_idx = -1, meta_idx = -1;
    int n_so = 0;
    zip_int64_t *cubins = NULL; /* a CUDA model's kernels, loaded from the folder when run */
    size_t n_cubins = 0;
    bool pickled_weights = false, any_model = false;
    for (zip_int64_t i = 0; i < n; i++) {
        const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
        if (!name) continue;
        const char *slash = strchr(name, '/');
        if (!slash) continue;
        if (strstr(slash, "/data/aotinductor/") == slash) any_model = true;
        if (strncmp(slash, "/data/weights/", 14) == 0) pickled_weights = true;
        if (strncmp(slash, folder, strlen(folder)) != 0) continue;
        const char *base = slash + strlen(folder);
        if (strchr(base, '/')) continue;
        if (ends_with(base, ".so")) {
            so_idx = i;
            n_so++;
        } else if (ends_with(base, "_weights.blob")) {
            blob_idx = i;
        } else if (ends_with(base, ".wrapper_metadata.json")) {
            meta_idx = i;
        } else if (ends_with(base, ".cubin") && !strchr(base, '/') && base[0] != '.') {
            zip_int64_t *grown = realloc(cubins, (n_cubins + 1) * sizeof *cubins);
            if (!grown) {
                free(cubins);
                zip_discard(z);
                return aoti_fail("%s: out of memory", path);
            }
            cubins = grown;
            cubins[n_cubins++] = i;
        }
    }
    int rc = 0;
    bool cuda = false;
    if (so_idx < 0) {
        rc = any_model
                 ? aoti_fail("%s: the package has no model named '%s'", path, model_name)
                 : aoti_fail("%s: not an AOTInductor package (no data/aotinductor/ folder)", path);
        goto out;
    }
    if (n_so > 1) {
        rc = aoti_fail("%s: model '%s' has %d .so files; expected one (a CPU package)", path,
                       model_name, n_so);
        goto out;
    }
    /* The device the package was compiled for (a cue before the .so is read). */
    if (meta_idx >= 0) {
        uint8_t *meta = NULL;
        uint64_t msize = 0;
        if (read_entry(z, (zip_uint64_t)meta_idx, "metadata", -1, &meta, &msize) == 0) {
            char *text = realloc(meta, msize + 1);
            if (text) {
                text[msize] = '\0';
                const char *key = strstr(text, "\"AOTI_DEVICE_KEY\"");
                const char *q = key ? strchr(key + 17, '"') : NULL;
                if (q && strncmp(q, "\"cuda\"", 6) == 0) {
                    cuda = true;
                } else if (q && strncmp(q, "\"cpu\"", 5) != 0) {
                    char dev[32] = {0};
                    sscanf(q + 1, "%31[^\"]", dev);
                    rc = aoti_fail("%s: compiled for device '%s'; libshimrt runs CPU and CUDA "
                                   "packages: export and compile the model on one of those",
                                   path, dev);
                }
                meta = (uint8_t *)text;
            }
            free(meta);
            if (rc) goto out;
        }
    }
    /* A CUDA package needs a GPU, and the CUDA runtime API for its .so. */
    p->device_type = aoti_torch_device_type_cpu();
    if (cuda) {
        int32_t ndev = 0, cur = 0;
        AOTITorchError drc = shimrt_cuda_device_count(&ndev);
        if (drc != AOTI_TORCH_SUCCESS || ndev < 1) {
            rc = aoti_fail("%s: compiled for CUDA, and this machine cannot run it: %s", path,
                           drc ? torch_exception_get_what() : "no CUDA device");
            goto out;
        }
        if (shimrt_cuda_get_device(&cur) != AOTI_TORCH_SUCCESS) {
            rc = aoti_fail("%s: %s", path, torch_exception_get_what());
            goto out;
        }
        pthread_once(&cudart_once, load_cudart);
        if (!cudart_ready) {
            rc = aoti_fail("%s: compiled for CUDA, whose .so calls the CUDA runtime API, and "
                           "libshimrt-cudart.so.0 cannot be loaded (beside libshimrt-aoti or "
                           "by soname): %s",
                           path, cudart_error);
            goto out;
        }
        p->device_type = aoti_torch_device_type_cuda();
        p->device_index = cur;
    }
    /* Extract the .so into a private folder. */
    const char *tmp = getenv("TMPDIR");
    if (tmp && strlen(tmp) > 1900) tmp = NULL;
    snprintf(p->dir, sizeof p->dir, "%s/shimrt-aoti.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(p->dir)) {
        rc = aoti_fail("cannot make a folder under %s: %s", tmp && *tmp ? tmp : "/tmp",
                       strerror(errno));
        p->dir[0] = '\0';
        goto out;
    }
    snprintf(p->so_path, sizeof p->so_path, "%s/model.so", p->dir);
    int fd = open(p->so_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
    if (fd < 0) {
        rc = aoti_fail("cannot write %s: %s", p->so_path, strerror(errno));
        p->so_path[0] = '\0';
        goto out;
    }
    rc = read_entry(z, (zip_uint64_t)so_idx, zip_get_name(z, (zip_uint64_t)so_idx, 0), fd, NULL,
                    NULL);
    if (close(fd) != 0 && !rc) rc = aoti_fail("cannot write %s: %s", p->so_path, strerror(errno));
    if (rc) goto out;
    /* CUDA kernels, beside the .so: the model loads each from the folder on its first run. */
    for (size_t k = 0; k < n_cubins && !rc; k++) {
        const char *name = zip_get_name(z, (zip_uint64_t)cubins[k], 0);
        const char *base = name ? strrchr(name, '/') : NULL;
        char kpath[4096];
        if (!base ||
            snprintf(kpath, sizeof kpath, "%s/%s", p->dir, base + 1) >= (int)sizeof kpath) {
            rc = aoti_fail("%s: a kernel file's name is too long", path);
            break;
        }
        int kfd = open(kpath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (kfd < 0) {
            rc = aoti_fail("cannot write %s: %s", kpath, strerror(errno));
            break;
        }
        rc = read_entry(z, (zip_uint64_t)cubins[k], name, kfd, NULL, NULL);
        if (close(kfd) != 0 && !rc) rc = aoti_fail("cannot write %s: %s", kpath, strerror(errno));
    }
    if (rc) goto out;
    if (blob_idx >= 0 &&
        (rc = read_entry(z, (zip_uint64_t)blob_idx, zip_get_name(z, (zip_uint64_t)blob_idx, 0), -1,
                         &p->blob, NULL)))
        goto out;

    /* Check it, then load it. */
    char shown[600];
    snprintf(shown, sizeof shown, "%s: model '%s'", path, model_name);
    AotiSoReport report;
    if ((rc = aoti_check_so(p->so_path, shown, cuda, &report))) goto out;
    if (report.external_weights && !p->blob) {
        rc = pickled_weights
                 ? aoti_fail("%s: the weights are stored as Python pickles "
                             "(package_constants_on_disk_format=\"pickle_weights\"), which only "
                             "PyTorch can read: compile with \"binary_blob\" or weights in the .so",
                             shown)
                 : aoti_fail("%s: the constants are missing: the .so was compiled to take its "
                             "weights from outside and the package has no *_weights.blob",
                             shown);
        goto out;
    }
    dlerror();
    p->so = dlopen(p->so_path, RTLD_NOW | RTLD_LOCAL);
    if (!p->so) {
        const char *e = dlerror();
        rc = aoti_fail("%s: cannot load the model .so: %s", shown, e ? e : "unknown reason");
        goto out;
    }
    CreateWithDeviceFn create =
        (CreateWithDeviceFn)sym(p, "AOTInductorModelContainerCreateWithDevice", true);
    p->del = (DeleteFn)sym(p, "AOTInductorModelContainerDelete", true);
    p->run = (RunFn)sym(p, "AOTInductorModelContainerRun", true);
    CountFn get_in = (CountFn)sym(p, "AOTInductorModelContainerGetNumInputs", true);
    CountFn get_out = (CountFn)sym(p, "AOTInductorModelContainerGetNumOutputs", true);
    if (!create || !p->del || !p->run || !get_in || !get_out) {
        rc = 1;
        goto out;
    }
    p->last_error = (LastErrorFn)sym(p, "AOTInductorGetLastError", false);
    /* OpenMP: libshimrt's (oneDNN's libgomp) in the global scope, else the .so's own. */
    p->omp_set_num_threads = (OmpSetFn)dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    if (!p->omp_set_num_threads)
        p->omp_set_num_threads = (OmpSetFn)sym(p, "omp_set_num_threads", false);
    char devstr[32] = "cpu";
    if (cuda) snprintf(devstr, sizeof devstr, "cuda:%d", (int)p->device_index);
    AotiRtError e = create(&p->container, 1, devstr, p->dir);
    if (e != 0 || !p->container) {
        p->container = NULL;
        rc = rt_fail(p, e, "AOTInductorModelContainerCreateWithDevice");
        goto out;
    }
    if ((e = get_in(p->container, &p->num_inputs)) != 0 ||
        (e = get_out(p->container, &p->num_outputs)) != 0) {
        rc = rt_fail(p, e, "AOTInductorModelContainerGetNum{In,Out}puts");
        goto out;
    }
    /* Weights outside the .so: a binary blob the container reads in place. */
    if (p->blob) {
        BlobFn from_blob = (BlobFn)sym(p, "AOTInductorModelUpdateConstantsFromBlob", true);
        if (!from_blob) {
            rc = 1;
            goto out;
        }
        if ((e = from_blob(p->container, p->blob)) != 0) {
            rc = rt_fail(p, e, "AOTInductorModelUpdateConstantsFromBlob");
            goto out;
        }
    }
    /* Loaded and its weights read (a .so with weights appended maps itself during
     * creation): the files are no longer needed, and a crash later leaves nothing behind.
     * A CUDA model loads its kernels from the folder when it first runs them: the folder
     * stays until shimrt_package_free. */
    if (!cuda) remove_dir(p);
out:
    free(cubins);
    zip_discard(z);
    return rc;
}

AOTI_TORCH_EXPORT int shimrt_package_open(const char *path, const char *model_name,
                                          ShimrtPackage **out) {
    if (!out) return aoti_fail("shimrt_package_open: out is NULL");
    *out = NULL;
    if (!path) return aoti_fail("shimrt_package_open: path is NULL");
    if (!model_name) model_name = "model";
    if (!*model_name || strchr(model_name, '/') || strlen(model_name) > 200)
        return aoti_fail("shimrt_package_open: bad model name '%s'", model_name);
    decide_threads();
    /* The model checks its inputs' dtypes, sizes and strides only when this is set. */
    setenv("AOTI_RUNTIME_CHECK_INPUTS", "1", 0);
    ShimrtPackage *p = calloc(1, sizeof *p);
    if (!p) return aoti_fail("shimrt_package_open: out of memory");
    if (open_package(p, path, model_name) != 0) {
        char saved[sizeof err_buf];
        memcpy(saved, err_buf, sizeof saved);
        shimrt_package_free(p);
        memcpy(err_buf, saved, sizeof saved);
        return 1;
    }
    *out = p;
    return 0;
}

AOTI_TORCH_EXPORT void shimrt_package_free(ShimrtPackage *p) {
    if (!p) return;
    if (p->container && p->del) p->del(p->container);
    if (p->so) dlclose(p->so);
    free(p->blob);
    remove_dir(p);
    free(p);
}

AOTI_TORCH_EXPORT size_t shimrt_package_num_inputs(const ShimrtPackage *p) {
    return p ? p->num_inputs : 0;
}
AOTI_TORCH_EXPORT size_t shimrt_package_num_outputs(const ShimrtPackage *p) {
    return p ? p->num_outputs : 0;
}

AOTI_TORCH_EXPORT int32_t shimrt_package_device_type(const ShimrtPackage *p) {
    return p ? p->device_type : -1;
}
AOTI_TORCH_EXPORT int32_t shimrt_package_device_index(const ShimrtPackage *p) {
    return p && p->device_type == aoti_torch_device_type_cuda() ? p->device_index : 0;
}

AOTI_TORCH_EXPORT int shimrt_package_run(ShimrtPackage *p, AtenTensorHandle *inputs,
                                         size_t num_inputs, AtenTensorHandle *outputs,
                                         size_t num_outputs) {
    if (!p || !p->container) return aoti_fail("shimrt_package_run: no package");
    if (num_inputs != p->num_inputs)
        return aoti_fail("shimrt_package_run: the model takes %zu inputs, %zu given", p->num_inputs,
                         num_inputs);
    if (num_outputs != p->num_outputs)
        return aoti_fail("shimrt_package_run: the model returns %zu outputs, room for %zu given",
                         p->num_outputs, num_outputs);
    if ((num_inputs && !inputs) || (num_outputs && !outputs))
        return aoti_fail("shimrt_package_run: inputs or outputs is NULL");
    AtenTensorHandle *own = calloc(num_inputs ? num_inputs : 1, sizeof *own);
    if (!own) return aoti_fail("shimrt_package_run: out of memory");
    bool cuda = p->device_type == aoti_torch_device_type_cuda();
    for (size_t i = 0; i < num_inputs; i++) {
        int32_t dev = -1, idx = -1;
        if (!inputs[i] || aoti_torch_get_device_type(inputs[i], &dev) != AOTI_TORCH_SUCCESS ||
            aoti_torch_get_device_index(inputs[i], &idx) != AOTI_TORCH_SUCCESS ||
            dev != p->device_type || (cuda && idx != p->device_index) ||
            aoti_torch_new_tensor_handle(inputs[i], &own[i]) != AOTI_TORCH_SUCCESS) {
            for (size_t j = 0; j < i; j++) aoti_torch_delete_tensor_object(own[j]);
            free(own);
            if (cuda)
                return aoti_fail("shimrt_package_run: input %zu is not a tensor on cuda:%d "
                                 "(the model was compiled for CUDA)",
                                 i, (int)p->device_index);
            return aoti_fail("shimrt_package_run: input %zu is not a CPU tensor", i);
        }
    }
    for (size_t i = 0; i < num_outputs; i++) outputs[i] = NULL;
    if (p->omp_set_num_threads) p->omp_set_num_threads(num_threads);
    /* libshimrt's message before the run: a C shim call that fails inside it leaves a new
     * one, which the model's own error (it names only the call) does not carry */
    char before[512];
    snprintf(before, sizeof before, "%s", torch_exception_get_what());
    AotiRtError e = p->run(p->container, own, num_inputs, outputs, num_outputs, NULL, NULL);
    free(own); /* the handles were stolen by the container */
    if (e != 0) {
        for (size_t i = 0; i < num_outputs; i++) {
            if (outputs[i]) aoti_torch_delete_tensor_object(outputs[i]);
            outputs[i] = NULL;
        }
        rt_fail(p, e, "AOTInductorModelContainerRun");
        const char *now = torch_exception_get_what();
        if (now[0] && strncmp(now, before, sizeof before - 1) != 0)
            aoti_fail_append("\n  libshimrt: %s", now);
        return 1;
    }
    return 0;
}

/* runtime/cuda/loader.c: opens libcuda, libnvrtc and cuBLAS with dlopen, once per process,
 * and fills the symbol tables of cuda_internal.h. Nothing links against CUDA at build time. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

/* Why a load failed, kept for every later caller (the load is tried once). */
typedef struct {
    pthread_once_t once;
    bool ok;
    char why[1024];
} load_state;

static void *open_first(const char *env, const char *const *names, char *opened, size_t n,
                        char *why, size_t whyn) {
    const char *override = getenv(env);
    if (override && *override) {
        void *h = dlopen(override, RTLD_NOW | RTLD_LOCAL);
        if (h)
            snprintf(opened, n, "%s", override);
        else
            snprintf(why, whyn, "%s=%s could not be loaded: %s", env, override, dlerror());
        return h;
    }
    size_t used = 0;
    why[0] = '\0';
    for (size_t i = 0; names[i]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) {
            snprintf(opened, n, "%s", names[i]);
            return h;
        }
        const char *e = dlerror();
        if (used < whyn) {
            int k = snprintf(why + used, whyn - used, "%s%s", used ? "; " : "", e ? e : names[i]);
            if (k > 0) used += (size_t)k;
        }
    }
    return NULL;
}

/* Resolves each name into the table slot at the same index; names missing set why. */
static bool resolve(void *lib, const char *const *names, void **slots, char *why, size_t n) {
    for (size_t i = 0; names[i]; i++) {
        /* "a|b": try the versioned symbol first */
        char first[64];
        const char *bar = strchr(names[i], '|');
        size_t len = bar ? (size_t)(bar - names[i]) : strlen(names[i]);
        snprintf(first, sizeof first, "%.*s", (int)len, names[i]);
        void *p = dlsym(lib, first);
        if (!p && bar) p = dlsym(lib, bar + 1);
        if (!p) {
            snprintf(why, n, "symbol %s is missing from the library", first);
            return false;
        }
        slots[i] = p;
    }
    return true;
}

/* ---- the driver ---- */
static shimrt_cuda_api cu;
static load_state cu_state = {PTHREAD_ONCE_INIT, false, ""};

/* Loads a library once (load fills state); false, with the reason as func's message, when
 * it is not available. */
static bool loaded(const char *func, load_state *state, void (*load)(void)) {
    pthread_once(&state->once, load);
    if (!state->ok) shimrt_fail(func, "the CUDA libraries cannot be used: %s", state->why);
    return state->ok;
}

#define CU_SLOT(f) (void **)&cu.f
static void load_driver(void) {
    static const char *const libs[] = {"libcuda.so.1", "libcuda.so", NULL};
    static const char *const names[] = {"cuInit",
                                        "cuDriverGetVersion",
                                        "cuDeviceGetCount",
                                        "cuDeviceGet",
                                        "cuDeviceGetAttribute",
                                        "cuDeviceGetName",
                                        "cuDevicePrimaryCtxRetain",
                                        "cuCtxSetCurrent",
                                        "cuCtxGetCurrent",
                                        "cuCtxGetDevice",
                                        "cuCtxSynchronize",
                                        "cuCtxGetStreamPriorityRange",
                                        "cuMemAlloc_v2|cuMemAlloc",
                                        "cuMemFree_v2|cuMemFree",
                                        "cuMemAllocHost_v2|cuMemAllocHost",
                                        "cuMemFreeHost",
                                        "cuMemcpyAsync",
                                        "cuMemsetD8Async",
                                        "cuMemGetInfo_v2|cuMemGetInfo",
                                        "cuPointerGetAttribute",
                                        "cuStreamCreateWithPriority",
                                        "cuStreamDestroy_v2|cuStreamDestroy",
                                        "cuStreamSynchronize",
                                        "cuStreamQuery",
                                        "cuStreamWaitEvent",
                                        "cuEventCreate",
                                        "cuEventDestroy_v2|cuEventDestroy",
                                        "cuEventRecord",
                                        "cuEventSynchronize",
                                        "cuEventQuery",
                                        "cuEventElapsedTime_v2|cuEventElapsedTime",
                                        "cuModuleLoadData",
                                        "cuModuleUnload",
                                        "cuModuleGetFunction",
                                        "cuLaunchKernel",
                                        "cuGetErrorName",
                                        "cuGetErrorString",
                                        NULL};
    void **slots[] = {CU_SLOT(cuInit),
                      CU_SLOT(cuDriverGetVersion),
                      CU_SLOT(cuDeviceGetCount),
                      CU_SLOT(cuDeviceGet),
                      CU_SLOT(cuDeviceGetAttribute),
                      CU_SLOT(cuDeviceGetName),
                      CU_SLOT(cuDevicePrimaryCtxRetain),
                      CU_SLOT(cuCtxSetCurrent),
                      CU_SLOT(cuCtxGetCurrent),
                      CU_SLOT(cuCtxGetDevice),
                      CU_SLOT(cuCtxSynchronize),
                      CU_SLOT(cuCtxGetStreamPriorityRange),
                      CU_SLOT(cuMemAlloc),
                      CU_SLOT(cuMemFree),
                      CU_SLOT(cuMemAllocHost),
                      CU_SLOT(cuMemFreeHost),
                      CU_SLOT(cuMemcpyAsync),
                      CU_SLOT(cuMemsetD8Async),
                      CU_SLOT(cuMemGetInfo),
                      CU_SLOT(cuPointerGetAttribute),
                      CU_SLOT(cuStreamCreateWithPriority),
                      CU_SLOT(cuStreamDestroy),
                      CU_SLOT(cuStreamSynchronize),
                      CU_SLOT(cuStreamQuery),
                      CU_SLOT(cuStreamWaitEvent),
                      CU_SLOT(cuEventCreate),
                      CU_SLOT(cuEventDestroy),
                      CU_SLOT(cuEventRecord),
                      CU_SLOT(cuEventSynchronize),
                      CU_SLOT(cuEventQuery),
                      CU_SLOT(cuEventElapsedTime),
                      CU_SLOT(cuModuleLoadData),
                      CU_SLOT(cuModuleUnload),
                      CU_SLOT(cuModuleGetFunction),
                      CU_SLOT(cuLaunchKernel),
                      CU_SLOT(cuGetErrorName),
                      CU_SLOT(cuGetErrorString)};
    _Static_assert(sizeof slots / sizeof slots[0] == sizeof names / sizeof names[0] - 1,
                   "one slot per driver symbol");
    char opened[256], why[400];
    void *lib = open_first("SHIMRT_LIBCUDA", libs, opened, sizeof opened, why, sizeof why);
    if (!lib) {
        snprintf(cu_state.why, sizeof cu_state.why,
                 "the NVIDIA driver library could not be loaded (%s)", why);
        return;
    }
    void *tmp[sizeof slots / sizeof slots[0]];
    if (!resolve(lib, names, tmp, why, sizeof why)) {
        snprintf(cu_state.why, sizeof cu_state.why, "%s: %s", opened, why);
        dlclose(lib);
        return;
    }
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++) *slots[i] = tmp[i];
    CUresult r = cu.cuInit(0);
    if (r != 0) {
        const char *name = NULL;
        if (cu.cuGetErrorName(r, &name) != 0) name = NULL;
        snprintf(cu_state.why, sizeof cu_state.why, "cuInit failed: %s (code %d)",
                 name ? name : "unknown error", r);
        return; /* the library stays open: its symbols are not used */
    }
    if (cu.cuDriverGetVersion(&cu.driver_version) != 0 ||
        cu.driver_version < SHIMRT_CUDA_MIN_DRIVER) {
        snprintf(cu_state.why, sizeof cu_state.why,
                 "the driver supports CUDA %d.%d; CUDA %d.%d or newer is needed",
                 cu.driver_version / 1000, cu.driver_version % 1000 / 10,
                 SHIMRT_CUDA_MIN_DRIVER / 1000, SHIMRT_CUDA_MIN_DRIVER % 1000 / 10);
        return;
    }
    if (cu.cuDeviceGetCount(&cu.device_count) != 0 || cu.device_count <= 0) {
        snprintf(cu_state.why, sizeof cu_state.why, "no CUDA device is present");
        return;
    }
    cu_state.ok = true;
}

const shimrt_cuda_api *shimrt_cuda_driver(const char *func) {
    return loaded(func, &cu_state, load_driver) ? &cu : NULL;
}

AOTITorchError shimrt_cu_fail(const char *func, const char *call, CUresult r) {
    const char *name = NULL, *text = NULL;
    if (cu.cuGetErrorName && cu.cuGetErrorName(r, &name) != 0) name = NULL;
    if (cu.cuGetErrorString && cu.cuGetErrorString(r, &text) != 0) text = NULL;
    return shimrt_fail(func, "%s failed: %s (%s)", call, name ? name : "CUDA error",
                       text ? text : "no description");
}

/* ---- NVRTC ---- */
static shimrt_nvrtc_api nv;
static load_state nv_state = {PTHREAD_ONCE_INIT, false, ""};

#define NV_SLOT(f) (void **)&nv.f
/* The newest NVRTC major version this runtime knows; libnvrtc.so.<major> is tried from it
 * down to SHIMRT_NVRTC_MIN_MAJOR. */
#define NVRTC_NEWEST_MAJOR 13

/* The driver's CUDA major version (12 for 12.4), or 0 when no driver loads: NVRTC is then
 * not constrained (compiling ahead of time, shimrt-jit). Asks without leaving a message. */
static int driver_major(void) {
    pthread_once(&cu_state.once, load_driver);
    return cu_state.ok ? cu.driver_version / 1000 : 0;
}

static void load_nvrtc(void) {
    static const char *const names[] = {"nvrtcVersion",
                                        "nvrtcGetErrorString",
                                        "nvrtcCreateProgram",
                                        "nvrtcDestroyProgram",
                                        "nvrtcCompileProgram",
                                        "nvrtcGetProgramLogSize",
                                        "nvrtcGetProgramLog",
                                        "nvrtcGetCUBINSize",
                                        "nvrtcGetCUBIN",
                                        "nvrtcGetPTXSize",
                                        "nvrtcGetPTX",
                                        "nvrtcGetNumSupportedArchs",
                                        "nvrtcGetSupportedArchs",
                                        NULL};
    void **slots[] = {NV_SLOT(nvrtcVersion),          NV_SLOT(nvrtcGetErrorString),
                      NV_SLOT(nvrtcCreateProgram),    NV_SLOT(nvrtcDestroyProgram),
                      NV_SLOT(nvrtcCompileProgram),   NV_SLOT(nvrtcGetProgramLogSize),
                      NV_SLOT(nvrtcGetProgramLog),    NV_SLOT(nvrtcGetCUBINSize),
                      NV_SLOT(nvrtcGetCUBIN),         NV_SLOT(nvrtcGetPTXSize),
                      NV_SLOT(nvrtcGetPTX),           NV_SLOT(nvrtcGetNumSupportedArchs),
                      NV_SLOT(nvrtcGetSupportedArchs)};
    _Static_assert(sizeof slots / sizeof slots[0] == sizeof names / sizeof names[0] - 1,
                   "one slot per NVRTC symbol");
    /* The newest NVRTC whose major version the driver supports: a driver of CUDA 12.x
     * refuses the PTX of NVRTC 13 (CUDA_ERROR_UNSUPPORTED_PTX_VERSION). Candidates:
     * libnvrtc.so.<major> from the newest down (in SHIMRT_NVRTC_DIR when set, e.g. a pip
     * wheel's nvidia/cuda_nvrtc/lib), then libnvrtc.so. */
    int dmaj = driver_major();
    const char *dir = getenv("SHIMRT_NVRTC_DIR");
    char paths[NVRTC_NEWEST_MAJOR - SHIMRT_NVRTC_MIN_MAJOR + 2][512];
    const char *libs[NVRTC_NEWEST_MAJOR - SHIMRT_NVRTC_MIN_MAJOR + 3];
    size_t nl = 0;
    for (int m = NVRTC_NEWEST_MAJOR; m >= SHIMRT_NVRTC_MIN_MAJOR; m--) {
        if (dmaj && m > dmaj) continue;
        snprintf(paths[nl], sizeof paths[nl], "%s%slibnvrtc.so.%d", dir && *dir ? dir : "",
                 dir && *dir ? "/" : "", m);
        libs[nl] = paths[nl];
        nl++;
    }
    snprintf(paths[nl], sizeof paths[nl], "%s%slibnvrtc.so", dir && *dir ? dir : "",
             dir && *dir ? "/" : "");
    libs[nl] = paths[nl];
    libs[++nl] = NULL;
    char why[400];
    void *lib = open_first("SHIMRT_LIBNVRTC", libs, nv.soname, sizeof nv.soname, why, sizeof why);
    if (!lib) {
        snprintf(nv_state.why, sizeof nv_state.why, "NVRTC could not be loaded (%s)", why);
        return;
    }
    void *tmp[sizeof slots / sizeof slots[0]];
    if (!resolve(lib, names, tmp, why, sizeof why)) {
        snprintf(nv_state.why, sizeof nv_state.why, "%s: %s", nv.soname, why);
        dlclose(lib);
        return;
    }
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++) *slots[i] = tmp[i];
    if (nv.nvrtcVersion(&nv.major, &nv.minor) != 0 || nv.major < SHIMRT_NVRTC_MIN_MAJOR) {
        snprintf(nv_state.why, sizeof nv_state.why, "%s is NVRTC %d.%d; %d.0 or newer is needed",
                 nv.soname, nv.major, nv.minor, SHIMRT_NVRTC_MIN_MAJOR);
        return;
    }
    if (dmaj && nv.major > dmaj) {
        snprintf(nv_state.why, sizeof nv_state.why,
                 "%s is NVRTC %d.%d, newer than the driver (CUDA %d.%d), which would refuse its "
                 "code; install NVRTC %d (libnvrtc.so.%d) or a newer driver",
                 nv.soname, nv.major, nv.minor, dmaj, cu.driver_version % 1000 / 10, dmaj, dmaj);
        return;
    }
    nv_state.ok = true;
}

const shimrt_nvrtc_api *shimrt_nvrtc(const char *func) {
    return loaded(func, &nv_state, load_nvrtc) ? &nv : NULL;
}

/* ---- cuBLAS ---- */
static shimrt_cublas_api bl;
static load_state bl_state = {PTHREAD_ONCE_INIT, false, ""};

static void load_cublas(void) {
    static const char *const libs[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so", NULL};
    static const char *const lt_libs[] = {"libcublasLt.so.13", "libcublasLt.so.12", NULL};
    static const char *const names[] = {"cublasCreate_v2",
                                        "cublasDestroy_v2",
                                        "cublasSetStream_v2",
                                        "cublasGetVersion_v2",
                                        "cublasGemmEx",
                                        "cublasGemmStridedBatchedEx",
                                        NULL};
    char why[400], lt_name[64];
    void *lib = open_first("SHIMRT_LIBCUBLAS", libs, bl.soname, sizeof bl.soname, why, sizeof why);
    if (!lib) {
        snprintf(bl_state.why, sizeof bl_state.why, "cuBLAS could not be loaded (%s)", why);
        return;
    }
    void *tmp[6];
    if (!resolve(lib, names, tmp, why, sizeof why)) {
        snprintf(bl_state.why, sizeof bl_state.why, "%s: %s", bl.soname, why);
        dlclose(lib);
        return;
    }
    memcpy(&bl.cublasCreate, &tmp[0], sizeof tmp[0]);
    memcpy(&bl.cublasDestroy, &tmp[1], sizeof tmp[1]);
    memcpy(&bl.cublasSetStream, &tmp[2], sizeof tmp[2]);
    memcpy(&bl.cublasGetVersion, &tmp[3], sizeof tmp[3]);
    memcpy(&bl.cublasGemmEx, &tmp[4], sizeof tmp[4]);
    memcpy(&bl.cublasGemmStridedBatchedEx, &tmp[5], sizeof tmp[5]);
    void *ws = dlsym(lib, "cublasSetWorkspace_v2"); /* cuBLAS 11.2 and newer */
    if (!ws) ws = dlsym(lib, "cublasSetWorkspace");
    memcpy(&bl.cublasSetWorkspace, &ws, sizeof ws);
    bl.lt_handle =
        open_first("SHIMRT_LIBCUBLASLT", lt_libs, lt_name, sizeof lt_name, why, sizeof why);
    bl_state.ok = true;
}

const shimrt_cublas_api *shimrt_cublas(const char *func) {
    return loaded(func, &bl_state, load_cublas) ? &bl : NULL;
}

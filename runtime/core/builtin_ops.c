/* runtime/core/builtin_ops.c: registers the runtime's own ops (generated from schemas/ into
 * generated/) with the dispatcher, once per process, before anything looks them up.
 *
 * Registration is lazy rather than a load-time constructor so that it also happens with the
 * static library (an unreferenced constructor object is never linked in). It is triggered
 * by every library creation, op lookup and call by name (pthread_once: a thread
 * that comes while another registers waits for the whole registration); the libraries it creates live as
 * long as the process. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "c_boxed_cpu.h"
#include "c_boxed_cuda.h"
#include "internal.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static TorchLibraryHandle aten_def, aten_cpu_impl, aten_cuda_impl;
static AOTITorchError init_rc;
static char init_error[512];
/* Set while this thread runs the registration, whose own library calls come back here. */
static _Thread_local bool registering;

static void register_builtins(void) {
    registering = true;
    init_rc = shimgen_register_aten_cpu(&aten_def, &aten_cpu_impl);
    if (init_rc == AOTI_TORCH_SUCCESS) /* the CUDA kernels (runtime/cuda/aten.c) */
        init_rc = shimgen_register_aten_cuda(NULL, &aten_cuda_impl);
    /* ops without a CUDA kernel run on the CPU kernels (manifest "backend_fallback") */
    if (init_rc == AOTI_TORCH_SUCCESS)
        shimrt_dispatch_set_cpu_fallback(SHIMRT_DISPATCH_KEY_CUDA, true);
    if (init_rc != AOTI_TORCH_SUCCESS)
        snprintf(init_error, sizeof init_error, "%s", torch_exception_get_what());
    registering = false;
}

/* Set (release) once register_builtins has returned: the fast path of every later call. */
static atomic_bool done;

AOTITorchError shimrt_builtin_ops_ensure(void) {
    if (atomic_load_explicit(&done, memory_order_acquire)) {
        if (init_rc != AOTI_TORCH_SUCCESS)
            return shimrt_fail(__func__, "registering the built-in aten ops failed: %s",
                               init_error);
        return AOTI_TORCH_SUCCESS;
    }
    if (registering) return AOTI_TORCH_SUCCESS;
    /* pthread_once: every other thread waits here until the registration is complete. */
    pthread_once(&once, register_builtins);
    atomic_store_explicit(&done, true, memory_order_release);
    if (init_rc != AOTI_TORCH_SUCCESS)
        return shimrt_fail(__func__, "registering the built-in aten ops failed: %s", init_error);
    return AOTI_TORCH_SUCCESS;
}

/* runtime/core/builtin_ops.c: registers the runtime's own ops (generated from schemas/ into
 * generated/) with the dispatcher, once per process, before anything looks them up: each
 * device row's register_kernels (backend.h) in the order of runtime/backends.c.
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

#include "backend.h"
#include "internal.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static AOTITorchError init_rc;
static char init_error[512];
/* Set while this thread runs the registration, whose own library calls come back here. */
static _Thread_local bool registering;

static void register_builtins(void) {
    registering = true;
    /* each device row's kernels, in the list's order (the CPU row defines the schemas) */
    init_rc = AOTI_TORCH_SUCCESS;
    for (const shimrt_backend *const *b = shimrt_backends; !init_rc && *b; b++)
        if ((*b)->register_kernels) init_rc = (*b)->register_kernels();
    /* ops without a kernel of such a device run on the CPU kernels (manifest
     * "backend_fallback") */
    for (const shimrt_backend *const *b = shimrt_backends; !init_rc && *b; b++)
        if ((*b)->cpu_fallback) shimrt_dispatch_set_cpu_fallback((*b)->dispatch_key, true);
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

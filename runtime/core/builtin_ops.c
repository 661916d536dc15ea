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
#include "shimrt/shim_support.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static TorchLibraryHandle aten_def, aten_cpu_impl, aten_cuda_impl, aten_meta_impl;

/* The Meta kernels (PyTorch's stable API works on meta tensors): the ops whose kernels only
 * build metadata (factories, views, the *_like ops, which skip the fill of a meta tensor)
 * and the copy ops, whose CPU kernels hand a meta tensor to shimrt_meta_copy_as. Their
 * boxed wrappers are the CPU ones: each calls the same kernel. Any other op on a meta
 * tensor fails with "no kernel for dispatch key Meta". */
static const shimrt_impl_entry meta_impls[] = {
    {"empty.memory_format", boxed_cpu_empty_memory_format},
    {"empty_like", boxed_cpu_empty_like},
    {"new_empty", boxed_cpu_new_empty},
    {"new_zeros", boxed_cpu_new_zeros},
    {"full", boxed_cpu_full},
    {"full.out", boxed_cpu_full_out},
    {"full_like", boxed_cpu_full_like},
    {"zeros_like", boxed_cpu_zeros_like},
    {"ones_like", boxed_cpu_ones_like},
    {"clone", boxed_cpu_clone},
    {"contiguous", boxed_cpu_contiguous},
    {"to.dtype", boxed_cpu_to_dtype},
    {"to.dtype_layout", boxed_cpu_to_dtype_layout},
    {"view", boxed_cpu_view},
    {"view.dtype", boxed_cpu_view_dtype},
    {"transpose.int", boxed_cpu_transpose_int},
    {"permute", boxed_cpu_permute},
    {"narrow", boxed_cpu_narrow},
    {"select.int", boxed_cpu_select_int},
    {"squeeze.dim", boxed_cpu_squeeze_dim},
    {"unsqueeze", boxed_cpu_unsqueeze},
};
static AOTITorchError init_rc;
static char init_error[512];
/* Set while this thread runs the registration, whose own library calls come back here. */
static _Thread_local bool registering;

static void register_builtins(void) {
    registering = true;
    init_rc = shimgen_register_aten_cpu(&aten_def, &aten_cpu_impl);
    if (init_rc == AOTI_TORCH_SUCCESS) /* the CUDA kernels (runtime/cuda/aten.c) */
        init_rc = shimgen_register_aten_cuda(NULL, &aten_cuda_impl);
    if (init_rc == AOTI_TORCH_SUCCESS)
        init_rc =
            shimrt_register_ops("aten", "Meta", __FILE__, __LINE__, NULL, 0, meta_impls,
                                sizeof meta_impls / sizeof meta_impls[0], NULL, &aten_meta_impl);
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

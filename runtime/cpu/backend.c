/* runtime/cpu/backend.c: the CPU's row of the backend table (runtime/core/backend.h): host
 * memory, the engine's copies and fills, and the registration of the CPU kernels (with the
 * Meta kernels, which are CPU kernels that only build metadata). */
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "../core/backend.h"
#include "c_boxed_cpu.h"
#include "engine.h"
#include "shimrt/shim_support.h"

/* Blocks of 32 MiB and more are 2 MiB-aligned and asked to be backed by transparent huge
 * pages (where the kernel's THP mode is "madvise"). glibc serves such blocks with a fresh
 * mmap every time (32 MiB is its largest mmap threshold), so each fresh 64 MB output took
 * 16,384 page faults, most of the time of a bandwidth-bound op on it; with huge pages it
 * takes 32 (docs/PERFORMANCE.md). Smaller blocks are left alone: glibc reuses them from
 * its heap without faults once its threshold has moved up, and a huge-page hint there
 * only adds work. */
#define SHIMRT_HUGE_MIN ((size_t)32 << 20)
#define SHIMRT_HUGE_ALIGN ((size_t)2 << 20)
static void *host_alloc(size_t nbytes) {
    void *p = NULL;
    if (nbytes == 0) return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (nbytes >= SHIMRT_HUGE_MIN) {
        if (posix_memalign(&p, SHIMRT_HUGE_ALIGN, nbytes) != 0) return NULL;
        (void)madvise(p, nbytes & ~(SHIMRT_HUGE_ALIGN - 1), MADV_HUGEPAGE); /* a hint */
        return p;
    }
#endif
    if (posix_memalign(&p, SHIMRT_CPU_ALIGNMENT, nbytes) != 0) return NULL;
    return p;
}

static AOTITorchError cpu_alloc(const char *func, size_t nbytes, int32_t device_index, void **out) {
    (void)device_index;
    *out = host_alloc(nbytes);
    if (nbytes && !*out)
        return shimrt_fail(func, "not enough memory: you tried to allocate %zu bytes", nbytes);
    return AOTI_TORCH_SUCCESS;
}

static void cpu_free(void *data, void *ctx) {
    (void)ctx;
    free(data);
}

static AOTITorchError cpu_check(const char *func, int32_t device_index) {
    return shimrt_check_single_device(func, SHIMRT_DEV_CPU, device_index);
}

/* The engine's copy (threaded, tiled) for its dtypes and for same-dtype copies; every other
 * case (meta, the uint16/32/64 and complex conversions, the errors) is core's host copy. */
static AOTITorchError cpu_copy(const char *func, AtenTensorHandle dst, AtenTensorHandle src) {
    if (dst->device_type == SHIMRT_DEV_CPU && src->device_type == SHIMRT_DEV_CPU &&
        shimrt_numel(dst) > 0 &&
        ((sh_ct_index(dst->dtype) >= 0 && sh_ct_index(src->dtype) >= 0) ||
         (dst->dtype == src->dtype && shimrt_dtype_size(dst->dtype) <= 8))) {
        if (shimrt_copy_broadcast_check(func, dst, src)) return AOTI_TORCH_FAILURE;
        return sh_copy(func, dst, src);
    }
    return shimrt_host_copy(func, dst, src);
}

static AOTITorchError cpu_fill(const char *func, AtenTensorHandle t, double value) {
    (void)func;
    sh_fill(t, value);
    return AOTI_TORCH_SUCCESS;
}

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

/* The libraries live as long as the process. */
static TorchLibraryHandle aten_def, aten_cpu_impl, aten_meta_impl;

/* Defines every aten schema, registers the CPU kernels, then the Meta ones. */
static AOTITorchError cpu_register(void) {
    AOTITorchError rc = shimgen_register_aten_cpu(&aten_def, &aten_cpu_impl);
    if (rc == AOTI_TORCH_SUCCESS)
        rc = shimrt_register_ops("aten", "Meta", __FILE__, __LINE__, NULL, 0, meta_impls,
                                 sizeof meta_impls / sizeof meta_impls[0], NULL, &aten_meta_impl);
    return rc;
}

const shimrt_backend shimrt_backend_cpu = {
    .name = "cpu",
    .device_type = SHIMRT_DEV_CPU,
    .dispatch_key = SHIMRT_DISPATCH_KEY_CPU,
    .check_device = cpu_check,
    .alloc = cpu_alloc,
    .free_data = cpu_free,
    .copy = cpu_copy,
    .fill = cpu_fill,
    .register_kernels = cpu_register,
};

/* runtime/core/backend.h: the device backend interface (private to the runtime).
 *
 * One row per device type says everything core/ and generic/ need of a device: its name,
 * dispatch key, how a device index is checked, how its memory is allocated, freed, copied
 * and filled, how its boxed kernels are registered and whether an op it has no kernel for
 * runs on the CPU kernels. core/ and generic/ reach a device only through these rows; a
 * device folder (runtime/cpu/, runtime/cuda/) defines its row and never includes another
 * device folder. The rows are listed once, in runtime/backends.c: adding a backend (MPS,
 * XPU, PrivateUse1 have dispatch keys already) is one folder and one line there
 * (docs/architecture.md). */
#ifndef SHIMRT_BACKEND_H
#define SHIMRT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

typedef struct shimrt_backend {
    const char *name;    /* the device type's name ("cpu", "cuda") */
    int32_t device_type; /* SHIMRT_DEV_* */
    int dispatch_key;    /* SHIMRT_DISPATCH_KEY_*: the key its tensors dispatch to */
    /* Checks device_index for this device type (may load a driver); sets func's message. */
    AOTITorchError (*check_device)(const char *func, int32_t device_index);
    /* nbytes of device memory on device_index into *out (NULL: the device has no data);
     * sets func's message on failure. The storage frees it with free_data(data, NULL). */
    AOTITorchError (*alloc)(const char *func, size_t nbytes, int32_t device_index, void **out);
    void (*free_data)(void *data, void *ctx); /* NULL: nothing to free */
    /* dst <- src (src broadcast to dst's shape, dtypes converted) where one of them is on
     * this device and the other on it, on the CPU or meta. NULL: the device has no data. */
    AOTITorchError (*copy)(const char *func, AtenTensorHandle dst, AtenTensorHandle src);
    /* Sets every element of t (on this device) to value converted to t's dtype. */
    AOTITorchError (*fill)(const char *func, AtenTensorHandle t, double value);
    /* Registers the device's built-in boxed kernels under its dispatch key (NULL: none);
     * called once, in the order of runtime/backends.c's list. Message set on failure. */
    AOTITorchError (*register_kernels)(void);
    /* true: an op with no kernel for this key (and no composite one) runs its CPU kernel,
     * tensors copied to the host and back (the dispatcher's backend fallback). */
    bool cpu_fallback;
} shimrt_backend;

/* The rows, NULL-terminated, CPU first: runtime/backends.c. */
extern const shimrt_backend *const shimrt_backends[];

/* The row of a device type, or NULL when this runtime has none. */
const shimrt_backend *shimrt_backend_of(int32_t device_type);
/* The row whose dispatch key is key, or NULL. */
const shimrt_backend *shimrt_backend_of_key(int key);

/* check_device of a device type with one device (CPU, meta): index -1 or 0. */
AOTITorchError shimrt_check_single_device(const char *func, int32_t device_type,
                                          int32_t device_index);

/* The meta device's row (core/backend.c): tensors without data. */
extern const shimrt_backend shimrt_backend_meta;
/* (shimrt_backend_copy and shimrt_backend_fill, the routers: core/internal.h) */

#endif

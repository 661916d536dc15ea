/* runtime/backends.c: the list of device rows (runtime/core/backend.h), the one file that
 * names every device folder. Adding a backend is its folder and one line here. The CPU row
 * comes first: its kernel registration defines the aten schemas the other rows implement. */
#include "core/backend.h"

extern const shimrt_backend shimrt_backend_cpu;  /* runtime/cpu/backend.c */
extern const shimrt_backend shimrt_backend_cuda; /* runtime/cuda/backend.c */

const shimrt_backend *const shimrt_backends[] = {
    &shimrt_backend_cpu,
    &shimrt_backend_meta,
    &shimrt_backend_cuda,
    NULL,
};

/* runtime/aoti/aoti_internal.h: what the files of libshimrt-aoti share (not installed). */
#ifndef SHIMRT_AOTI_INTERNAL_H
#define SHIMRT_AOTI_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>

#include "shimrt/types.h"

/* Records the calling thread's error (printf-style) and returns 1. */
int aoti_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Appends to the calling thread's error message (truncated to the buffer). */
void aoti_fail_append(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* What the ELF check of a model .so found (elf.c). */
typedef struct {
    int libtorch;         /* needs libtorch / libc10 (compiled with link_libtorch) */
    int cuda;             /* needs CUDA libraries or CUDA shim functions */
    int cuda_package;     /* in: the package was compiled for CUDA (those are expected) */
    size_t missing;       /* aoti_torch_* / torch_* functions not found in the process */
    int external_weights; /* the .so holds no weights: they come from a *_weights.blob */
} AotiSoReport;

/* Checks the .so at path before it is loaded: ELF class, byte order and machine of this
 * host, a shared object; its DT_NEEDED libraries; every undefined aoti_torch_* / torch_*
 * function looked up in the process (libshimrt) and, for a package compiled for CUDA
 * (cuda_package), every cuda* runtime function (libshimrt-cudart). CUDA libraries and CUDA
 * shim functions are a problem only in a CPU package. Returns 0 when it may be loaded;
 * otherwise 1 with every problem in the thread's error message. */
int aoti_check_so(const char *path, const char *shown_name, bool cuda_package,
                  AotiSoReport *report);

#endif

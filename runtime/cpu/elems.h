/* runtime/cpu/elems.h: element helpers shared by issue 20's kernels (segment.c,
 * histogram.c). */
#ifndef SHIMRT_CPU_ELEMS_H
#define SHIMRT_CPU_ELEMS_H
#include "../core/internal.h"

/* t's elements in row-major order as doubles: a new array (free()), or NULL with the
 * thread's message set naming op. */
double *shimrt_e_read_f64(const char *op, AtenTensorHandle t);
#endif

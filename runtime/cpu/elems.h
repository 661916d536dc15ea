/* runtime/cpu/elems.h: element helpers shared by issue 20's kernels (segment.c,
 * histogram.c, backward_bag.c). */
#ifndef SHIMRT_CPU_ELEMS_H
#define SHIMRT_CPU_ELEMS_H
#include "../core/internal.h"

/* t's elements in row-major order as doubles: a new array (free()), or NULL with the
 * thread's message set naming op. */
double *shimrt_e_read_f64(const char *op, AtenTensorHandle t);
/* the same as int64s */
int64_t *shimrt_e_read_i64(const char *op, AtenTensorHandle t);

/* segment_reduce's reductions: the index of reduce's name, or -1 with PyTorch's message set
 * (segment.c; its backward in backward_bag.c) */
enum { SR_MAX, SR_MIN, SR_SUM, SR_MEAN, SR_PROD };
int shimrt_e_seg_reduction(const char *op, const char *reduce);
#endif

/* runtime/cpu/grid_sample.h: what grid_sampler_3d (grid_sample.c) shares with its backward
 * (grid_sample_backward.c). Private to the runtime. */
#ifndef SHIMRT_CPU_GRID_SAMPLE_H
#define SHIMRT_CPU_GRID_SAMPLE_H
#include <stdint.h>

#include "aoti_ops.h"
#include "elems.h"

/* grid_sampler's checks of input and grid (nsp + 2 dims, batch, last dim nsp, non-empty
 * spatial dims, a floating dtype shared by both, interpolation mode 0 or 1, or 2 (bicubic)
 * when nsp is 2, as in PyTorch), PyTorch's messages. */
AOTITorchError shimrt_gs_check(const char *op, int nsp, AtenTensorHandle input,
                               AtenTensorHandle grid, int64_t interpolation_mode);

#endif

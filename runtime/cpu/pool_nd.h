/* runtime/cpu/pool_nd.h: the pooling engine shared by the 2-d (pool.c) and 3-d (pool3d.c)
 * pooling kernels of c_shim_cpu.h, and meant for their backward kernels too: one window
 * rule, one loop over the planes (N x C) of a dense copy of the input, PyTorch's output
 * sizes and argument-list parsing. Private to runtime/cpu/.
 *
 * Spatial dims are always three (D, H, W); a 2-d pooling has D = 1, k = s = d = 1, p = 0
 * there. Indices (max pooling) are PyTorch's flat positions within an input plane,
 * (d * H + h) * W + w. */
#ifndef SHIMRT_CPU_POOL_ND_H
#define SHIMRT_CPU_POOL_ND_H
#include <stdbool.h>
#include <stdint.h>

#include "../core/internal.h"

enum { SHIMRT_PL_MAX = 0, SHIMRT_PL_AVG = 1 };

typedef struct {
    int nsp;               /* spatial dims of the op: 2 or 3 */
    int kind;              /* SHIMRT_PL_MAX or SHIMRT_PL_AVG */
    bool adaptive;         /* windows from the output size (k, s, p, d unused) */
    bool include_pad;      /* avg: count_include_pad */
    int64_t divisor;       /* avg: divisor_override, 0 when none */
    int64_t in[3], out[3]; /* input and output sizes, D H W (in is set by shimrt_pl_run) */
    int64_t k[3], s[3], p[3], d[3];
    bool dense_out; /* a contiguous result even for a channels-last input */
} shimrt_pl;

/* The window of output position o along spatial dim i: input positions lo, lo + step, ...
 * below hi, all inside the input (step is the dilation for max, 1 otherwise). *count is the
 * avg divisor before divisor_override: the window clipped to the padded input when
 * count_include_pad, else to the input; adaptive: [floor(o * in / out), ceil((o + 1) * in /
 * out)). */
void shimrt_pl_window(const shimrt_pl *c, int i, int64_t o, int64_t *lo, int64_t *hi, int64_t *step,
                      int64_t *count);

/* PyTorch's pooling_output_shape (ceil_mode drops a last window that would start in the
 * right padding). */
int64_t shimrt_pl_out_size(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil);

/* kernel_size, stride (empty: the kernel size), padding and dilation (d NULL: 1) of a pooling
 * with c->nsp spatial dims into c, each one value for all dims or one per dim; fails with
 * PyTorch's message naming fn ("max_pool3d: kernel_size must either be a single int, or a
 * tuple of three ints"; avg_pool3d's omit "either"). */
AOTITorchError shimrt_pl_lists(const char *op, const char *fn, shimrt_pl *c, const int64_t *k,
                               int64_t kn, const int64_t *s, int64_t sn, const int64_t *p,
                               int64_t pn, const int64_t *d, int64_t dn);

/* The checks of a (non-adaptive) max or avg pooling with PyTorch's messages, once the lists
 * are parsed into c: self of rank nsp + 1 or nsp + 2 on the CPU, no empty dim but the
 * batch; kernel, stride and dilation positive, padding in [0, kernel / 2]; then c->out gets
 * the output sizes (ceil_mode), which must be positive (avg: the input no smaller than the
 * kernel). fn is PyTorch's kernel name in the messages ("max_pool3d"). */
AOTITorchError shimrt_pl_check(const char *op, const char *fn, shimrt_pl *c,
                               const struct AtenTensorOpaque *self, bool ceil_mode);

/* Pools self ([N,] C, [D,] H, W with c->nsp spatial dims) into a new result of shape
 * [..., out] (and, for max when ret1 is not NULL, a new int64 index tensor of the same
 * shape); a channels-last(-3d) input gives channels-last results. The caller checked the
 * arguments, dtype and sizes. */
AOTITorchError shimrt_pl_run(const char *op, AtenTensorHandle self, shimrt_pl *c,
                             AtenTensorHandle *ret0, AtenTensorHandle *ret1);

/* self as a dense tensor: itself when contiguous, else a new contiguous copy (*c != self:
 * the caller frees it). */
AOTITorchError shimrt_pl_dense(const char *op, AtenTensorHandle self, AtenTensorHandle *c);

#endif

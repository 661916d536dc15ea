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

/* *t (a new contiguous 4-d or 5-d result) replaced by a channels-last(-3d) copy (NULL when
 * that fails, with the thread's message set); the old *t is freed either way. */
AOTITorchError shimrt_pl_channels_last(const char *op, AtenTensorHandle *t);

/* Pools self ([N,] C, [D,] H, W with c->nsp spatial dims) into a new result of shape
 * [..., out] (and, for max when ret1 is not NULL, a new int64 index tensor of the same
 * shape); a channels-last(-3d) input gives channels-last results. The caller checked the
 * arguments, dtype and sizes. */
AOTITorchError shimrt_pl_run(const char *op, AtenTensorHandle self, shimrt_pl *c,
                             AtenTensorHandle *ret0, AtenTensorHandle *ret1);

/* max_pool2d_with_indices / max_pool3d_with_indices (nsp 2 / 3) from their C arguments:
 * the lists, the checks, PyTorch's dtype rules, then the engine. */
AOTITorchError shimrt_pl_max_pool(int nsp, AtenTensorHandle self, const int64_t *k, int64_t kn,
                                  const int64_t *s, int64_t sn, const int64_t *p, int64_t pn,
                                  const int64_t *d, int64_t dn, int32_t ceil_mode,
                                  AtenTensorHandle *ret0, AtenTensorHandle *ret1);
/* avg_pool2d / avg_pool3d the same way. */
AOTITorchError shimrt_pl_avg_pool(int nsp, AtenTensorHandle self, const int64_t *k, int64_t kn,
                                  const int64_t *s, int64_t sn, const int64_t *p, int64_t pn,
                                  int32_t ceil_mode, int32_t count_include_pad,
                                  const int64_t *divisor_override, AtenTensorHandle *ret0);

/* The kernels max_pool<n>d_with_indices and avg_pool<n>d (n: 2 or 3) with PyTorch's C
 * signatures, on shimrt_pl_max_pool / shimrt_pl_avg_pool. */
#define SHIMRT_PL_KERNELS(n)                                                                       \
    AOTITorchError shimrt_cpu_max_pool##n##d_with_indices(                                         \
        AtenTensorHandle self, const int64_t *kernel_size, int64_t kernel_size_len_,               \
        const int64_t *stride, int64_t stride_len_, const int64_t *padding, int64_t padding_len_,  \
        const int64_t *dilation, int64_t dilation_len_, int32_t ceil_mode, AtenTensorHandle *ret0, \
        AtenTensorHandle *ret1) {                                                                  \
        return shimrt_pl_max_pool(n, self, kernel_size, kernel_size_len_, stride, stride_len_,     \
                                  padding, padding_len_, dilation, dilation_len_, ceil_mode, ret0, \
                                  ret1);                                                           \
    }                                                                                              \
    AOTITorchError shimrt_cpu_avg_pool##n##d(                                                      \
        AtenTensorHandle self, const int64_t *kernel_size, int64_t kernel_size_len_,               \
        const int64_t *stride, int64_t stride_len_, const int64_t *padding, int64_t padding_len_,  \
        int32_t ceil_mode, int32_t count_include_pad, int64_t *divisor_override,                   \
        AtenTensorHandle *ret0) {                                                                  \
        return shimrt_pl_avg_pool(n, self, kernel_size, kernel_size_len_, stride, stride_len_,     \
                                  padding, padding_len_, ceil_mode, count_include_pad,             \
                                  divisor_override, ret0);                                         \
    }

/* self as a dense tensor: itself when contiguous, else a new contiguous copy (*c != self:
 * the caller frees it). */
AOTITorchError shimrt_pl_dense(const char *op, AtenTensorHandle self, AtenTensorHandle *c);

#endif

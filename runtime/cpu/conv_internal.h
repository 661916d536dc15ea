/* runtime/cpu/conv_internal.h: the convolution parameters and checks of conv.c, shared with
 * conv_backward.c. Private to the runtime. */
#ifndef SHIMRT_CPU_CONV_INTERNAL_H
#define SHIMRT_CPU_CONV_INTERNAL_H
#include "aoti_ops.h"

typedef struct {
    int nsp;             /* spatial dims: 1, 2 or 3 */
    int64_t n, c, oc, g; /* batch, input channels, output channels, groups */
    int64_t in[3], k[3], out[3], s[3], p[3], d[3], op[3];
    bool transposed;
} conv_p;

/* convolution's checks with PyTorch's messages (bias may be NULL); fills q, its spatial
 * values right-aligned in the 3 slots (unused slots 1, padding 0). */
AOTITorchError shimrt_k_conv_check(const char *op, AtenTensorHandle input, AtenTensorHandle weight,
                                   AtenTensorHandle bias, const int64_t *stride, int64_t stride_len,
                                   const int64_t *padding, int64_t padding_len,
                                   const int64_t *dilation, int64_t dilation_len,
                                   int32_t transposed, const int64_t *output_padding,
                                   int64_t output_padding_len, int64_t groups, conv_p *q);
#endif

/* runtime/cpu/pad.c: pad (CPU), mode "constant" only. pad holds (left, right) pairs from
 * the last dim backwards; a negative amount crops. The result is a new contiguous tensor
 * filled with value (default 0) around a copy of the kept part of self. */
#include <string.h>

#include "cpu_kernels.h"
#include "iter.h"

AOTITorchError shimrt_cpu_pad(AtenTensorHandle self, const int64_t *pad, int64_t pad_len_,
                              const char *mode, double *value, AtenTensorHandle *ret0) {
    static const char op[] = "pad";
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    if (mode == NULL) return shimrt_fail(op, "argument 'mode' is NULL");
    if (strcmp(mode, "constant") != 0) {
        if (strcmp(mode, "reflect") == 0 || strcmp(mode, "replicate") == 0 ||
            strcmp(mode, "circular") == 0)
            return shimrt_fail(op, "mode '%s' is not supported by the CPU kernel (only "
                                   "'constant')", mode);
        return shimrt_fail(op, "Unrecognised padding mode '%s'", mode);
    }
    if (pad_len_ % 2 != 0) return shimrt_fail(op, "Padding length must be divisible by 2");
    if (pad_len_ / 2 > self->ndim)
        return shimrt_fail(op, "Padding length should be less than or equal to two times the "
                               "input dimension but got padding length %lld and input of "
                               "dimension %lld",
                           (long long)pad_len_, (long long)self->ndim);
    int64_t nd = self->ndim;
    int64_t oshape[SHIMRT_MAX_DIMS], lo[SHIMRT_MAX_DIMS], hi[SHIMRT_MAX_DIMS];
    for (int64_t d = 0; d < nd; d++) {
        int64_t k = nd - 1 - d; /* pairs count from the last dim */
        lo[d] = k < pad_len_ / 2 ? pad[2 * k] : 0;
        hi[d] = k < pad_len_ / 2 ? pad[2 * k + 1] : 0;
        int64_t sz;
        if (__builtin_add_overflow(self->sizes[d], lo[d], &sz) ||
            __builtin_add_overflow(sz, hi[d], &sz))
            return shimrt_fail(op, "the padded size of dimension %lld overflows", (long long)d);
        if (sz < 0)
            return shimrt_fail(op, "The input size %lld, plus negative padding %lld and %lld "
                                   "resulted in a negative output size, which is invalid. Check "
                                   "dimension %lld of your input.",
                               (long long)self->sizes[d], (long long)lo[d], (long long)hi[d],
                               (long long)d);
        oshape[d] = sz;
    }
    double v = value ? *value : 0.0;
    AtenTensorHandle out = shimrt_k_empty_like_dev(op, self, nd, oshape, NULL, self->dtype);
    if (!out) return AOTI_TORCH_FAILURE;
    shimrt_k_fill(out, v);
    /* the kept region: in self from max(0, -lo), in out from max(0, lo) */
    int64_t rshape[SHIMRT_MAX_DIMS], in_off = 0, out_off = 0;
    bool empty = false;
    for (int64_t d = 0; d < nd; d++) {
        int64_t in_start = lo[d] < 0 ? -lo[d] : 0, out_start = lo[d] > 0 ? lo[d] : 0;
        int64_t len = self->sizes[d] - in_start - (hi[d] < 0 ? -hi[d] : 0);
        if (len <= 0) empty = true;
        rshape[d] = len > 0 ? len : 0;
        in_off += in_start * self->strides[d];
        out_off += out_start * out->strides[d];
    }
    if (!empty) {
        /* stack views of the two regions (borrowing self's and out's metadata) */
        struct AtenTensorOpaque src = *self, dst = *out;
        src.sizes = dst.sizes = rshape;
        src.storage_offset += in_off;
        dst.storage_offset += out_off;
        if (shimrt_k_copy(op, &dst, &src)) {
            shimrt_tensor_free(out);
            return AOTI_TORCH_FAILURE;
        }
    }
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

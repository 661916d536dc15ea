/* runtime/cpu/pad.c: pad (CPU). pad holds (left, right) pairs from the last dim backwards;
 * a negative amount crops. Mode "constant": a new tensor filled with value (default 0)
 * around a copy of the kept part of self (PyTorch's constant_pad_nd, see there). Modes "reflect", "replicate" and
 * "circular" (PyTorch's reflection_pad{1,2,3}d, replication_pad{1,2,3}d and
 * _pad_circular, with their checks and messages): every output index of a padded dim maps
 * to one input index (a table per dim), and the result is gathered through the tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "engine.h"
#include "iter.h"
#include "aoti_ops.h"

static const char *const mode_names[] = {"constant", "reflect", "replicate", "circular"};

/* reflect, replicate, circular: a contiguous result */
static AOTITorchError pad_index_mode_c(const char *op, int m, AtenTensorHandle self,
                                       const int64_t *pad, int64_t pad_len, const double *value,
                                       AtenTensorHandle *ret0) {
    int64_t nd = self->ndim, k = pad_len / 2; /* k padded dims, the last ones */
    if (value && *value != 0)
        return shimrt_fail(op, "Padding mode \"%s\" doesn't take in value argument", mode_names[m]);
    if (k < 1 || k > 3 || (nd != k + 1 && nd != k + 2))
        return shimrt_fail(op, "Padding size %lld is not supported for %lldD input tensor.",
                           (long long)pad_len, (long long)nd);
    static const char *const kname[] = {"reflection_pad", "replication_pad"};
    static const char *const dn[] = {"D", "H", "W"};
    if (m != 3) {
        if (self->dtype == SHIMRT_BOOL ||
            (sh_dtype_wide(self->dtype) && !shimrt_dtype_is_complex(self->dtype)) ||
            self->dtype == SHIMRT_COMPLEX32) /* (PyTorch's kernels: no ComplexHalf) */
            return shimrt_fail(op, "\"%s%lldd\" not implemented for '%s'", kname[m - 1],
                               (long long)k, shimrt_dtype_torch_name(self->dtype));
        bool ok = true; /* every dim but a batch dim non-empty */
        for (int64_t d = nd == k + 2 ? 1 : 0; d < nd; d++) ok = ok && self->sizes[d] != 0;
        if (!ok) {
            char b[96];
            return shimrt_fail(op,
                               "Expected %lldD or %lldD (batch mode) tensor with possibly 0 "
                               "batch size and other non-zero dimensions for input, but "
                               "got: %s",
                               (long long)(k + 1), (long long)(k + 2),
                               shimrt_k_fmt_shape(b, sizeof b, nd, self->sizes));
        }
    }
    int64_t oshape[SHIMRT_MAX_DIMS];
    for (int64_t d = 0; d < nd; d++) oshape[d] = self->sizes[d];
    /* pairs from the last dim: pad[2i], pad[2i+1] for dim nd-1-i */
    for (int64_t i = 0; i < k; i++) {
        int64_t d = nd - 1 - i, l = pad[2 * i], r = pad[2 * i + 1], n = self->sizes[d];
        if (m == 1 && !(l < n && r < n)) {
            char b[96];
            return shimrt_fail(op,
                               "Argument #%lld: Padding size should be less than the "
                               "corresponding input dimension, but got: padding (%lld, %lld) "
                               "at dimension %lld of input %s",
                               (long long)(4 + 2 * i), (long long)l, (long long)r, (long long)d,
                               shimrt_k_fmt_shape(b, sizeof b, nd, self->sizes));
        }
        if (m == 3 && !(l <= n && r <= n))
            return shimrt_fail(op, "Padding value causes wrapping around more than once.");
        int64_t sz;
        if (__builtin_add_overflow(n, l, &sz) || __builtin_add_overflow(sz, r, &sz))
            return shimrt_fail(op, "the padded size of dimension %lld overflows", (long long)d);
        if (m == 3 && sz < 0)
            return shimrt_fail(op, "Negative padding value is resulting in an empty dimension");
        oshape[d] = sz;
    }
    if (m != 3) {
        bool small = false;
        for (int64_t d = nd - k; d < nd; d++) small = small || oshape[d] < 1;
        if (small) {
            char in[96] = "", outs[96] = "";
            size_t a = 0, b = 0;
            for (int64_t d = nd - k; d < nd; d++) {
                const char *nm = dn[3 - k + (d - (nd - k))];
                a += (size_t)snprintf(in + a, sizeof in - a, "%s%s: %lld", d > nd - k ? ", " : "",
                                      nm, (long long)self->sizes[d]);
                b += (size_t)snprintf(outs + b, sizeof outs - b, "%s%s: %lld",
                                      d > nd - k ? " " : "", nm, (long long)oshape[d]);
            }
            return shimrt_fail(op, "input (%s) is too small. Calculated output %s", in, outs);
        }
    }
    AtenTensorHandle out = shimrt_k_empty_like_dev(op, self, nd, oshape, NULL, self->dtype);
    if (!out) return AOTI_TORCH_FAILURE;
    int64_t total = 0;
    for (int64_t d = 0; d < nd; d++) total += oshape[d];
    int64_t *tab = malloc((size_t)(total > 0 ? total : 1) * sizeof *tab), *t[SHIMRT_MAX_DIMS];
    if (!tab) {
        shimrt_tensor_free(out);
        return shimrt_fail(op, "out of memory");
    }
    /* the input index of every output index, per dim (PyTorch's kernels' formulas) */
    int64_t *p = tab;
    for (int64_t d = 0; d < nd; d++) {
        t[d] = p;
        int64_t i = nd - 1 - d, n = self->sizes[d], l = i < k ? pad[2 * i] : 0;
        int64_t istart = l < 0 ? -l : 0, ostart = l > 0 ? l : 0;
        for (int64_t j = 0; j < oshape[d]; j++) {
            int64_t x;
            if (i >= k)
                x = j;
            else if (m == 1)
                x = (j < l ? 2 * l - j : j < n + l ? j : 2 * (n + l - 1) - j) - ostart + istart;
            else if (m == 2)
                x = (j < l ? l : j < n + l ? j : n + l - 1) - ostart + istart;
            else { /* circular: PyTorch wraps around the kept (cropped) part of the dim */
                int64_t r = i < k ? pad[2 * i + 1] : 0, c = n - istart - (r < 0 ? -r : 0);
                x = c > 0 ? istart + ((j - ostart) % c + c) % c : -1;
            }
            p[j] = x;
        }
        p += oshape[d];
    }
    /* circular padding of a dim whose kept part is empty (a crop of all of it on one side,
     * padding on the other) reads nothing in PyTorch, which leaves the memory as it was:
     * zeros here */
    for (int64_t d = 0; d < nd; d++)
        for (int64_t j = 0; j < oshape[d]; j++)
            if (t[d][j] < 0) {
                sh_fill(out, 0.0);
                free(tab);
                *ret0 = out;
                return AOTI_TORCH_SUCCESS;
            }
    /* gather: odometer over the output, contiguous, row by row */
    int64_t on = shimrt_numel(out), es = (int64_t)shimrt_dtype_size(self->dtype);
    const char *in = shimrt_data(self);
    char *o = shimrt_data(out);
    int64_t idx[SHIMRT_MAX_DIMS] = {0}, inner = oshape[nd - 1];
    const int64_t *ist = self->strides, *tl = t[nd - 1];
    for (int64_t row = 0; inner > 0 && row < on / inner; row++) {
        const char *base = in;
        for (int64_t d = 0; d < nd - 1; d++) base += t[d][idx[d]] * ist[d] * es;
        int64_t sl = ist[nd - 1] * es;
        switch (es) {
        case 1:
            for (int64_t j = 0; j < inner; j++) o[j] = base[tl[j] * sl];
            break;
        case 2:
            for (int64_t j = 0; j < inner; j++) memcpy(o + 2 * j, base + tl[j] * sl, 2);
            break;
        case 4:
            for (int64_t j = 0; j < inner; j++) memcpy(o + 4 * j, base + tl[j] * sl, 4);
            break;
        default:
            for (int64_t j = 0; j < inner; j++) memcpy(o + es * j, base + tl[j] * sl, (size_t)es);
        }
        o += inner * es;
        for (int64_t d = nd - 2; d >= 0; d--) {
            if (++idx[d] < oshape[d]) break;
            idx[d] = 0;
        }
    }
    free(tab);
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

/* reflect, replicate, circular; the batched 2-d and 3-d reflection and replication kernels
 * lay their result out in the memory format self suggests (channels-last(_3d)) */
static AOTITorchError pad_index_mode(const char *op, int m, AtenTensorHandle self,
                                     const int64_t *pad, int64_t pad_len, const double *value,
                                     AtenTensorHandle *ret0) {
    AtenTensorHandle r = NULL;
    if (pad_index_mode_c(op, m, self, pad, pad_len, value, &r)) return AOTI_TORCH_FAILURE;
    int64_t nd = self->ndim, k = pad_len / 2;
    if (m == 3 || !((nd == 4 && k == 2) || (nd == 5 && k == 3)) ||
        !shimrt_k_strides_like_cl(self)) {
        *ret0 = r;
        return AOTI_TORCH_SUCCESS;
    }
    int64_t st[SHIMRT_MAX_DIMS];
    shimrt_k_channels_last_strides(nd, r->sizes, st);
    AtenTensorHandle cl = shimrt_k_empty_like_dev(op, self, nd, r->sizes, st, self->dtype);
    AOTITorchError err = cl ? shimrt_k_copy(op, cl, r) : AOTI_TORCH_FAILURE;
    shimrt_tensor_free(r);
    if (err) {
        shimrt_tensor_free(cl);
        return AOTI_TORCH_FAILURE;
    }
    *ret0 = cl;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_pad(AtenTensorHandle self, const int64_t *pad, int64_t pad_len_,
                              const char *mode, double *value, AtenTensorHandle *ret0) {
    static const char op[] = "pad";
    /* every dtype: the modes move elements (constant fills, circular is narrow / cat / copy);
     * reflect and replicate refuse uint16/32/64 as PyTorch's kernels do (below) */
    if (shimrt_k_check_cpu(op, self, "self") ||
        (!sh_dtype_wide(self->dtype) && shimrt_k_check_dtype(op, self, "self")))
        return AOTI_TORCH_FAILURE;
    if (mode == NULL) return shimrt_fail(op, "argument 'mode' is NULL");
    int m = strcmp(mode, "constant") == 0    ? 0
            : strcmp(mode, "reflect") == 0   ? 1
            : strcmp(mode, "replicate") == 0 ? 2
            : strcmp(mode, "circular") == 0  ? 3
                                             : -1;
    if (m < 0) return shimrt_fail(op, "Unrecognised padding mode %s", mode);
    if (pad_len_ % 2 != 0) return shimrt_fail(op, "Padding length must be divisible by 2");
    if (pad_len_ / 2 > self->ndim)
        return shimrt_fail(op,
                           "Padding length should be less than or equal to two times the "
                           "input dimension but got padding length %lld and input of "
                           "dimension %lld",
                           (long long)pad_len_, (long long)self->ndim);
    if (m != 0) return pad_index_mode(op, m, self, pad, pad_len_, value, ret0);
    int64_t nd = self->ndim;
    int64_t oshape[SHIMRT_MAX_DIMS], lo[SHIMRT_MAX_DIMS], hi[SHIMRT_MAX_DIMS];
    for (int64_t d = 0; d < nd; d++) {
        int64_t k = nd - 1 - d; /* pairs count from the last dim */
        lo[d] = k < pad_len_ / 2 ? pad[2 * k] : 0;
        hi[d] = k < pad_len_ / 2 ? pad[2 * k + 1] : 0;
        /* PyTorch crops with narrow() first: a crop longer than the dim fails there */
        int64_t kept = self->sizes[d] + (lo[d] < 0 ? lo[d] : 0);
        if (kept < 0 || kept + (hi[d] < 0 ? hi[d] : 0) < 0)
            return shimrt_fail(op, "narrow(): length must be non-negative.");
        int64_t sz;
        if (__builtin_add_overflow(self->sizes[d], lo[d], &sz) ||
            __builtin_add_overflow(sz, hi[d], &sz))
            return shimrt_fail(op, "the padded size of dimension %lld overflows", (long long)d);
        if (sz < 0)
            return shimrt_fail(op,
                               "The input size %lld, plus negative padding %lld and %lld "
                               "resulted in a negative output size, which is invalid. Check "
                               "dimension %lld of your input.",
                               (long long)self->sizes[d], (long long)lo[d], (long long)hi[d],
                               (long long)d);
        oshape[d] = sz;
    }
    double v = value ? *value : 0.0;
    /* PyTorch's constant_pad_nd: no positive pad: a clone of the cropped view (its layout:
     * empty_like's); else a new tensor in the format self suggests, fill_(value) (checked:
     * the value must fit the dtype), the kept region copied in */
    bool crop_only = true;
    for (int64_t i = 0; i < pad_len_; i++) crop_only = crop_only && pad[i] <= 0;
    int64_t ost[SHIMRT_MAX_DIMS];
    bool use = true;
    if (crop_only) {
        struct AtenTensorOpaque kept = *self;
        kept.sizes = oshape;
        shimrt_k_preserve_strides(&kept, ost);
    } else if (shimrt_k_strides_like_cl(self)) {
        shimrt_k_channels_last_strides(nd, oshape, ost);
    } else {
        use = false;
    }
    int64_t on = 1;
    for (int64_t d = 0; d < nd; d++) on *= oshape[d];
    if (!crop_only && shimrt_k_scalar_fits(op, shimrt_scalar_double(v), self->dtype, on == 1))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle out =
        shimrt_k_empty_like_dev(op, self, nd, oshape, use ? ost : NULL, self->dtype);
    if (!out) return AOTI_TORCH_FAILURE;
    if (!crop_only) shimrt_k_fill(out, v);
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

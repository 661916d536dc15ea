/* tests/torch/ops_kernels.c: the kernels of tests/torch/ops (namespace sgt), built into a
 * PyTorch extension with `shimgen --target=torch` by tests/torch/torch_target.sh. Plain C
 * against the generated headers only (shimrt/shim_support.h of the torch target).
 *
 * The echo_* kernels return a float64 tensor listing what they received, so that the
 * Python side (torch_target.py) checks every conversion against the values it passed. */
#include <stdio.h>
#include <string.h>

#include <shimrt/shim_support.h>

#include "compositeexplicitautograd_kernels.h"
#include "cpu_kernels.h"

/* A new 1-D float64 CPU tensor holding v[0..n). */
static AOTITorchError vec(const double *v, int64_t n, AtenTensorHandle *ret) {
    int64_t size = n, stride = 1;
    AtenTensorHandle t = NULL;
    double *data = NULL;
    if (aoti_torch_empty_strided(1, &size, &stride, aoti_torch_dtype_float64(),
                                 aoti_torch_device_type_cpu(), 0, &t))
        return AOTI_TORCH_FAILURE;
    if (n > 0 && aoti_torch_get_data_ptr(t, (void **)&data)) {
        aoti_torch_delete_tensor_object(t);
        return AOTI_TORCH_FAILURE;
    }
    if (n > 0) memcpy(data, v, (size_t)n * sizeof *v);
    *ret = t;
    return AOTI_TORCH_SUCCESS;
}

#define PUT(x) (n < 64 ? (void)(out[n++] = (double)(x)) : (void)0)

AOTITorchError sgt_echo_ints(int64_t a, int64_t *b, const int64_t *c, int64_t c_len_,
                             const int64_t *d, int64_t d_len_, int64_t e, AtenTensorHandle *ret0) {
    double out[64];
    int64_t n = 0;
    PUT(a);
    PUT(b != NULL);
    PUT(b ? *b : 0);
    PUT(c_len_);
    for (int64_t i = 0; i < c_len_; i++) PUT(c[i]);
    PUT(d != NULL);
    PUT(d_len_);
    for (int64_t i = 0; d && i < d_len_; i++) PUT(d[i]);
    PUT(e);
    return vec(out, n, ret0);
}

AOTITorchError sgt_echo_floats(double a, double *b, const double *c, int64_t c_len_,
                               const double *d, int64_t d_len_, AtenTensorHandle *ret0) {
    double out[64];
    int64_t n = 0;
    PUT(a);
    PUT(b != NULL);
    PUT(b ? *b : 0);
    PUT(c_len_);
    for (int64_t i = 0; i < c_len_; i++) PUT(c[i]);
    PUT(d != NULL);
    PUT(d_len_);
    for (int64_t i = 0; d && i < d_len_; i++) PUT(d[i]);
    return vec(out, n, ret0);
}

AOTITorchError sgt_echo_bools(int32_t a, int32_t *b, const int32_t *c, int64_t c_len_,
                              AtenTensorHandle *ret0) {
    double out[64];
    int64_t n = 0;
    PUT(a);
    PUT(b != NULL);
    PUT(b ? *b : 0);
    PUT(c_len_);
    for (int64_t i = 0; i < c_len_; i++) PUT(c[i]);
    return vec(out, n, ret0);
}

AOTITorchError sgt_echo_codes(int32_t a, int32_t *b, int32_t c, int32_t *d, const int32_t *e,
                              int64_t e_len_, AtenTensorHandle *ret0) {
    double out[64];
    int64_t n = 0;
    PUT(a);
    PUT(b != NULL);
    PUT(b ? *b : 0);
    PUT(c);
    PUT(d != NULL);
    PUT(d ? *d : 0);
    PUT(e_len_);
    for (int64_t i = 0; i < e_len_; i++) PUT(e[i]);
    return vec(out, n, ret0);
}

AOTITorchError sgt_echo_device(int32_t a, int32_t a_index_, int32_t *b, int32_t b_index_, int32_t c,
                               int32_t *d, AtenTensorHandle *ret0) {
    double out[64];
    int64_t n = 0;
    PUT(a);
    PUT(a_index_);
    PUT(b != NULL);
    PUT(b ? *b : 0);
    PUT(b_index_);
    PUT(c);
    PUT(d != NULL);
    PUT(d ? *d : 0);
    return vec(out, n, ret0);
}

/* The returned string is borrowed: it lives in a per-thread buffer until the next call. */
AOTITorchError sgt_echo_str(const char *a, const char **b, const char **ret0) {
    static _Thread_local char buf[256];
    snprintf(buf, sizeof buf, "%s|%s", a, b ? *b : "<none>");
    *ret0 = buf;
    return AOTI_TORCH_SUCCESS;
}

/* elementwise sum into a new float32 tensor shaped like the first tensor (all must be
 * contiguous float32 of the same numel). */
static AOTITorchError add_into(float *acc, int64_t numel, AtenTensorHandle t) {
    int64_t m = 0;
    int32_t dtype = 0;
    float *p = NULL;
    bool contiguous = false;
    if (aoti_torch_get_numel(t, &m) || aoti_torch_get_dtype(t, &dtype) ||
        aoti_torch_is_contiguous(t, &contiguous))
        return AOTI_TORCH_FAILURE;
    if (m != numel || dtype != aoti_torch_dtype_float32() || !contiguous)
        return shimrt_set_error("sgt_sum_tensors",
                                "every tensor must be contiguous float32 "
                                "with %lld elements",
                                (long long)numel);
    if (numel > 0 && aoti_torch_get_data_ptr(t, (void **)&p)) return AOTI_TORCH_FAILURE;
    for (int64_t i = 0; i < numel; i++) acc[i] += p[i];
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError sgt_sum_tensors(const AtenTensorHandle *xs, int64_t xs_len_,
                               const AtenTensorHandle *ys, int64_t ys_len_, AtenTensorHandle z,
                               AtenTensorHandle *ret0) {
    if (xs_len_ < 1) return shimrt_set_error(__func__, "xs must not be empty");
    int64_t numel = 0, ndim = 0, *sizes = NULL, *strides = NULL;
    AtenTensorHandle out = NULL;
    float *acc = NULL;
    if (aoti_torch_get_numel(xs[0], &numel) || aoti_torch_get_dim(xs[0], &ndim) ||
        aoti_torch_get_sizes(xs[0], &sizes) || aoti_torch_get_strides(xs[0], &strides))
        return AOTI_TORCH_FAILURE;
    if (aoti_torch_empty_strided(ndim, sizes, strides, aoti_torch_dtype_float32(),
                                 aoti_torch_device_type_cpu(), 0, &out))
        return AOTI_TORCH_FAILURE;
    AOTITorchError err = AOTI_TORCH_SUCCESS;
    if (numel > 0 && aoti_torch_get_data_ptr(out, (void **)&acc)) err = AOTI_TORCH_FAILURE;
    for (int64_t i = 0; !err && i < numel; i++) acc[i] = 0;
    for (int64_t k = 0; !err && k < xs_len_; k++) err = add_into(acc, numel, xs[k]);
    for (int64_t k = 0; !err && k < ys_len_; k++)
        if (ys[k]) err = add_into(acc, numel, ys[k]);
    if (!err && z) err = add_into(acc, numel, z);
    if (err) {
        aoti_torch_delete_tensor_object(out);
        return err;
    }
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError scaled_copy(AtenTensorHandle x, double f, double add, AtenTensorHandle *ret) {
    AtenTensorHandle out = NULL;
    if (aoti_torch_clone(x, &out)) return AOTI_TORCH_FAILURE;
    int32_t dtype = 0;
    int64_t numel = 0;
    bool contiguous = false;
    float *p = NULL;
    if (aoti_torch_get_dtype(out, &dtype) || aoti_torch_get_numel(out, &numel) ||
        aoti_torch_is_contiguous(out, &contiguous) ||
        (numel > 0 && aoti_torch_get_data_ptr(out, (void **)&p))) {
        aoti_torch_delete_tensor_object(out);
        return AOTI_TORCH_FAILURE;
    }
    if (dtype != aoti_torch_dtype_float32() || !contiguous) {
        aoti_torch_delete_tensor_object(out);
        return shimrt_set_error("sgt", "expected a contiguous float32 tensor");
    }
    for (int64_t i = 0; i < numel; i++) p[i] = (float)(p[i] * f + add);
    *ret = out;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError sgt_stats(AtenTensorHandle x, AtenTensorHandle *ret0, AtenTensorHandle *ret1,
                         int64_t *ret2, double *ret3, int32_t *ret4, int32_t *ret5) {
    AtenTensorHandle a = NULL, b = NULL;
    int64_t numel = 0;
    float *p = NULL;
    if (scaled_copy(x, 2.0, 0.0, &a)) return AOTI_TORCH_FAILURE;
    if (scaled_copy(x, 1.0, 1.0, &b)) {
        aoti_torch_delete_tensor_object(a);
        return AOTI_TORCH_FAILURE;
    }
    if (aoti_torch_get_numel(x, &numel) || (numel > 0 && aoti_torch_get_data_ptr(b, (void **)&p))) {
        aoti_torch_delete_tensor_object(a);
        aoti_torch_delete_tensor_object(b);
        return AOTI_TORCH_FAILURE;
    }
    double total = 0;
    for (int64_t i = 0; i < numel; i++) total += p[i] - 1.0; /* the sum of x */
    *ret0 = a;
    *ret1 = b;
    *ret2 = numel;
    *ret3 = total;
    *ret4 = numel > 3;
    return aoti_torch_get_dtype(x, ret5);
}

static AOTITorchError scale_in_place(AtenTensorHandle t, double f) {
    int32_t dtype = 0;
    int64_t numel = 0;
    bool contiguous = false;
    float *p = NULL;
    if (aoti_torch_get_dtype(t, &dtype) || aoti_torch_get_numel(t, &numel) ||
        aoti_torch_is_contiguous(t, &contiguous))
        return AOTI_TORCH_FAILURE;
    if (dtype != aoti_torch_dtype_float32() || !contiguous)
        return shimrt_set_error("sgt", "expected a contiguous float32 tensor");
    if (numel > 0 && aoti_torch_get_data_ptr(t, (void **)&p)) return AOTI_TORCH_FAILURE;
    for (int64_t i = 0; i < numel; i++) p[i] = (float)(p[i] * f);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError sgt_scale(AtenTensorHandle self, double f, AtenTensorHandle *ret0) {
    return scaled_copy(self, f, 0.0, ret0);
}

AOTITorchError sgt_scale_(AtenTensorHandle self, double f) { return scale_in_place(self, f); }

AOTITorchError sgt_scale_out(AtenTensorHandle out, AtenTensorHandle self, double f) {
    if (aoti_torch_copy_(out, self, 0)) return AOTI_TORCH_FAILURE;
    return scale_in_place(out, f);
}

AOTITorchError sgt_fail(AtenTensorHandle x, const char *message, AtenTensorHandle *ret0) {
    (void)x;
    (void)ret0;
    return shimrt_set_error(__func__, "%s", message);
}

/* Allocates both results, then fails if any ys is not float32: frees them (the kernel
 * rules) and reports; on success returns x*2 and x+1. */
AOTITorchError sgt_fail_late(AtenTensorHandle x, const AtenTensorHandle *ys, int64_t ys_len_,
                             AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    AtenTensorHandle a = NULL, b = NULL;
    if (scaled_copy(x, 2.0, 0.0, &a)) return AOTI_TORCH_FAILURE;
    if (scaled_copy(x, 1.0, 1.0, &b)) {
        aoti_torch_delete_tensor_object(a);
        return AOTI_TORCH_FAILURE;
    }
    for (int64_t k = 0; k < ys_len_; k++) {
        int32_t dtype = 0;
        if (aoti_torch_get_dtype(ys[k], &dtype) || dtype != aoti_torch_dtype_float32()) {
            aoti_torch_delete_tensor_object(a);
            aoti_torch_delete_tensor_object(b);
            return shimrt_set_error(__func__, "ys[%lld] is not float32", (long long)k);
        }
    }
    *ret0 = a;
    *ret1 = b;
    return AOTI_TORCH_SUCCESS;
}

/* total = a (0 for None) + sum(b) + sum(c); the layout and memory-format codes of strided
 * and channels_last; count = the number of list items received. */
AOTITorchError sgt_echo_symints(int64_t *a, const int64_t *b, int64_t b_len_, const int64_t *c,
                                int64_t c_len_, int64_t *ret0, int32_t *ret1, int32_t *ret2,
                                int32_t *ret3) {
    int64_t total = a ? *a : 0;
    for (int64_t i = 0; i < b_len_; i++) total += b[i];
    for (int64_t i = 0; c && i < c_len_; i++) total += c[i];
    *ret0 = total;
    *ret1 = aoti_torch_layout_strided();
    *ret2 = aoti_torch_memory_format_channels_last();
    *ret3 = (int32_t)(b_len_ + (c ? c_len_ : 0));
    return AOTI_TORCH_SUCCESS;
}

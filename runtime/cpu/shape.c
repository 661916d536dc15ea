/* runtime/cpu/shape.c: creation, shape and indexing ops of schemas/ (issue 8): full,
 * full_like, zeros_like, ones_like, empty.memory_format, arange, is_pinned, is_leaf,
 * view.dtype, index_select, gather, scatter.src, cat, stack, embedding, _foreach_mul_.
 * Plain stride walks over the tensor struct (runtime/cpu/index.c holds the walks shared
 * with the AOTInductor extern kernels). Prototypes: generated/cpu_kernels.h, compositeexplicitautograd_kernels.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../generic/meta.h"
#include "aoti_ops.h"
#include "compositeexplicitautograd_kernels.h"
#include "cpu_kernels.h"
#include "engine.h"
#include "index.h"

/* ---- tensor options (dtype, layout, device, pin_memory) ---- */
static AOTITorchError options(const char *op, int32_t *dtype, int32_t *layout, int32_t *device,
                              int32_t device_index, int32_t default_dtype, int32_t default_device,
                              int32_t *out_dtype, int32_t *out_device) {
    if (layout && *layout != SHIMRT_LAYOUT_STRIDED)
        return shimrt_fail(op, "layout code %d is not supported (only strided)", (int)*layout);
    *out_dtype = dtype ? *dtype : default_dtype;
    *out_device = device ? *device : default_device;
    if (shimrt_check_dtype(op, *out_dtype)) return AOTI_TORCH_FAILURE;
    /* PyTorch's release builds take any index with a CPU or meta device (the tensor made has
     * none) */
    bool any = *out_device == SHIMRT_DEV_CPU || *out_device == SHIMRT_DEV_META;
    return shimrt_check_device(op, *out_device, device && !any ? device_index : -1);
}

/* Fills t with the Scalar sv (an int or bool one by its exact value). */
static AOTITorchError fill(const char *op, AtenTensorHandle t, shimrt_scalar sv) {
    if (shimrt_k_scalar_fits(op, sv, t->dtype, shimrt_numel(t) == 1)) return AOTI_TORCH_FAILURE;
    long double v = sv.d;
    if (t->device_type == SHIMRT_DEV_META || shimrt_numel(t) == 0) return AOTI_TORCH_SUCCESS;
    if (t->device_type != SHIMRT_DEV_CPU) {
        /* another device's memory is not the host's: the element is made here, as the
         * CPU's, and t's device row broadcasts it (its copy) */
        AtenTensorHandle e = shimrt_tensor_empty(op, 0, NULL, NULL, t->dtype, SHIMRT_DEV_CPU, -1);
        AOTITorchError rc =
            !e || fill(op, e, sv) ? AOTI_TORCH_FAILURE : shimrt_backend_copy(op, t, e);
        shimrt_tensor_free(e);
        return rc;
    }
    if (!shimrt_dtype_is_computable(t->dtype))
        return shimrt_fail(op, "filling a %s tensor is not supported", shimrt_dtype_name(t->dtype));
    int64_t idx[SHIMRT_MAX_DIMS] = {0};
    bool integral = shimrt_scalar_is_integral(sv, true);
    if (!integral && shimrt_idx_numeric(t->dtype)) {
        do shimrt_idx_store(shimrt_idx_at(t, idx), t->dtype, v);
        while (shimrt_idx_next(t->ndim, t->sizes, idx));
        return AOTI_TORCH_SUCCESS;
    }
    /* one element, as fill_ converts it: an int or bool Scalar from its exact int64 (not
     * through long double, which is no wider than double under valgrind), uint16/32/64 and
     * complex from the double */
    _Alignas(16) char e[16];
    if (integral) {
        int64_t i = sv.i;
        shimrt_dtype_convert(e, t->dtype, &i, SHIMRT_INT64);
    } else {
        double d = (double)v;
        shimrt_dtype_convert(e, t->dtype, &d, SHIMRT_FLOAT64);
    }
    size_t es = shimrt_dtype_size(t->dtype);
    do memcpy(shimrt_idx_at(t, idx), e, es);
    while (shimrt_idx_next(t->ndim, t->sizes, idx));
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError new_filled(const char *op, int64_t n, const int64_t *size, int32_t dt,
                                 int32_t dev, bool do_fill, shimrt_scalar v,
                                 AtenTensorHandle *ret0) {
    if (shimrt_k_check_size(op, size, n)) return AOTI_TORCH_FAILURE;
    AtenTensorHandle t = shimrt_tensor_empty(op, n, size, NULL, dt, dev, -1);
    if (!t) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(do_fill && fill(op, t, v), t, ret0);
}

AOTITorchError shimrt_full(const int64_t *size, int64_t size_len_, shimrt_scalar fill_value,
                           int32_t *dtype, int32_t *layout, int32_t *device, int32_t device_index_,
                           int32_t *pin_memory, AtenTensorHandle *ret0) {
    if (shimrt_k_check_pin("full", pin_memory)) return AOTI_TORCH_FAILURE;
    int32_t dt = 0, dev = 0;
    /* without a dtype, the Scalar's kind decides: bool, int64, float32 (C shims) or complex64 */
    if (options("full", dtype, layout, device, device_index_, shimrt_k_scalar_dtype(fill_value),
                SHIMRT_DEV_CPU, &dt, &dev))
        return AOTI_TORCH_FAILURE;
    return new_filled("full", size_len_, size, dt, dev, true, fill_value, ret0);
}

AOTITorchError shimrt_full_out(AtenTensorHandle out, const int64_t *size, int64_t size_len_,
                               shimrt_scalar fill_value) {
    /* an empty size list may come as NULL */
    if (shimrt_k_check_size("full.out", size, size_len_) ||
        shimrt_resize_output("full.out", out, size_len_, size))
        return AOTI_TORCH_FAILURE;
    return fill("full.out", out, fill_value);
}

/* full_like / zeros_like / ones_like: empty_like's layout (memory_format, preserve by
 * default: shimrt_k_format_strides) filled with v */
static AOTITorchError like(const char *op, AtenTensorHandle self, int32_t *dtype, int32_t *layout,
                           int32_t *device, int32_t device_index_, int32_t *pin_memory,
                           int32_t *memory_format, bool do_fill, shimrt_scalar v,
                           AtenTensorHandle *ret0) {
    int32_t dt = 0, dev = 0;
    int64_t strides[SHIMRT_MAX_DIMS];
    bool use = false;
    if (shimrt_k_check_pin(op, pin_memory) ||
        options(op, dtype, layout, device, device_index_, self->dtype, self->device_type, &dt,
                &dev) ||
        shimrt_k_format_strides(op, self,
                                memory_format ? *memory_format : SHIMRT_MEMORY_FORMAT_PRESERVE,
                                strides, &use))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle t =
        shimrt_tensor_empty(op, self->ndim, self->sizes, use ? strides : NULL, dt, dev, -1);
    if (!t) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(do_fill && fill(op, t, v), t, ret0);
}

AOTITorchError shimrt_full_like(AtenTensorHandle self, shimrt_scalar fill_value, int32_t *dtype,
                                int32_t *layout, int32_t *device, int32_t device_index_,
                                int32_t *pin_memory, int32_t *memory_format,
                                AtenTensorHandle *ret0) {
    return like("full_like", self, dtype, layout, device, device_index_, pin_memory, memory_format,
                true, fill_value, ret0);
}

AOTITorchError shimrt_zeros_like(AtenTensorHandle self, int32_t *dtype, int32_t *layout,
                                 int32_t *device, int32_t device_index_, int32_t *pin_memory,
                                 int32_t *memory_format, AtenTensorHandle *ret0) {
    return like("zeros_like", self, dtype, layout, device, device_index_, pin_memory, memory_format,
                true, shimrt_scalar_int(0), ret0);
}

AOTITorchError shimrt_ones_like(AtenTensorHandle self, int32_t *dtype, int32_t *layout,
                                int32_t *device, int32_t device_index_, int32_t *pin_memory,
                                int32_t *memory_format, AtenTensorHandle *ret0) {
    return like("ones_like", self, dtype, layout, device, device_index_, pin_memory, memory_format,
                true, shimrt_scalar_int(1), ret0);
}

AOTITorchError shimrt_cpu_empty_memory_format(const int64_t *size, int64_t size_len_,
                                              int32_t *dtype, int32_t *layout, int32_t *device,
                                              int32_t device_index_, int32_t *pin_memory,
                                              int32_t *memory_format, AtenTensorHandle *ret0) {
    static const char op[] = "empty.memory_format";
    if (shimrt_k_check_pin(op, pin_memory)) return AOTI_TORCH_FAILURE;
    int32_t dt = 0, dev = 0;
    int64_t strides[SHIMRT_MAX_DIMS];
    bool use = false;
    if (options(op, dtype, layout, device, device_index_, SHIMRT_FLOAT32, SHIMRT_DEV_CPU, &dt,
                &dev) ||
        shimrt_k_empty_strides(op, size_len_, size, memory_format, strides, &use))
        return AOTI_TORCH_FAILURE;
    return shimrt_k_give(
        shimrt_tensor_empty(op, size_len_, size, use ? strides : NULL, dt, dev, -1), ret0);
}

/* ---- arange ---- */
static AOTITorchError arange(const char *op, shimrt_scalar sstart, shimrt_scalar send,
                             shimrt_scalar sstep, int32_t *dtype, int32_t *layout, int32_t *device,
                             int32_t device_index_, AtenTensorHandle *ret0) {
    /* without a dtype: int64 when all three Scalars are ints (or bools), as PyTorch infers
     * it; else float32 (a C shim's Scalars are floating) */
    int32_t def = shimrt_scalar_is_integral(sstart, true) &&
                          shimrt_scalar_is_integral(send, true) &&
                          shimrt_scalar_is_integral(sstep, true)
                      ? SHIMRT_INT64
                      : SHIMRT_FLOAT32;
    double start = sstart.d, end = send.d, step = sstep.d;
    int32_t dt = 0, dev = 0;
    if (options(op, dtype, layout, device, device_index_, def, SHIMRT_DEV_CPU, &dt, &dev))
        return AOTI_TORCH_FAILURE;
    if (!isfinite(start) || !isfinite(end))
        return shimrt_fail(op, "unsupported range: %g -> %g", start, end);
    if (step == 0 || !isfinite(step)) return shimrt_fail(op, "step must be nonzero");
    if ((step > 0 && end < start) || (step < 0 && end > start))
        return shimrt_fail(op, "upper bound and larger bound inconsistent with step sign");
    double n = ceil((end - start) / step);
    if (n > (double)(INT64_C(1) << 40)) return shimrt_fail(op, "too many elements");
    int64_t size = (int64_t)n;
    AtenTensorHandle t;
    if (new_filled(op, 1, &size, dt, dev, false, shimrt_scalar_int(0), &t))
        return AOTI_TORCH_FAILURE;
    if (dev == SHIMRT_DEV_META) return shimrt_k_give(t, ret0);
    if (!shimrt_idx_numeric(dt)) {
        shimrt_tensor_free(t);
        return shimrt_fail(op, "dtype %s is not supported", shimrt_dtype_name(dt));
    }
    /* the values are computed on the host; on another device into a host tensor that t's
     * device row then copies */
    AtenTensorHandle h = t;
    if (dev != SHIMRT_DEV_CPU &&
        !(h = shimrt_tensor_empty(op, 1, &size, NULL, dt, SHIMRT_DEV_CPU, -1))) {
        shimrt_tensor_free(t);
        return AOTI_TORCH_FAILURE;
    }
    for (int64_t i = 0; i < size; i++)
        shimrt_idx_store(shimrt_idx_at(h, &i), dt, (long double)start + (long double)i * step);
    AOTITorchError rc = h == t ? AOTI_TORCH_SUCCESS : shimrt_backend_copy(op, t, h);
    if (h != t) shimrt_tensor_free(h);
    return shimrt_k_hand_out(rc, t, ret0);
}

AOTITorchError shimrt_arange(shimrt_scalar end, int32_t *dtype, int32_t *layout, int32_t *device,
                             int32_t device_index_, int32_t *pin_memory, AtenTensorHandle *ret0) {
    if (shimrt_k_check_pin("arange", pin_memory)) return AOTI_TORCH_FAILURE;
    return arange("arange", shimrt_scalar_int(0), end, shimrt_scalar_int(1), dtype, layout, device,
                  device_index_, ret0);
}

AOTITorchError shimrt_arange_start_step(shimrt_scalar start, shimrt_scalar end, shimrt_scalar step,
                                        int32_t *dtype, int32_t *layout, int32_t *device,
                                        int32_t device_index_, int32_t *pin_memory,
                                        AtenTensorHandle *ret0) {
    if (shimrt_k_check_pin("arange.start_step", pin_memory)) return AOTI_TORCH_FAILURE;
    return arange("arange.start_step", start, end, step, dtype, layout, device, device_index_,
                  ret0);
}

/* ---- predicates and views ---- */
AOTITorchError shimrt_is_pinned(AtenTensorHandle self, int32_t *device, int32_t device_index_,
                                int32_t *ret0) {
    (void)device, (void)device_index_;
    *ret0 = 0; /* no CUDA driver: no memory is page-locked */
    (void)self;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_is_leaf(AtenTensorHandle self, int32_t *ret0) {
    (void)self;
    *ret0 = 1; /* no autograd graph is ever recorded: every tensor is a leaf */
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_view_dtype(AtenTensorHandle self, int32_t dtype, AtenTensorHandle *ret0) {
    static const char op[] = "view.dtype";
    if (shimrt_check_dtype(op, dtype)) return AOTI_TORCH_FAILURE;
    size_t from = shimrt_dtype_size(self->dtype), to = shimrt_dtype_size(dtype);
    int64_t sizes[SHIMRT_MAX_DIMS], strides[SHIMRT_MAX_DIMS], n = self->ndim;
    memcpy(sizes, self->sizes, (size_t)n * sizeof *sizes);
    memcpy(strides, self->strides, (size_t)n * sizeof *strides);
    int64_t offset = self->storage_offset;
    if (from != to) {
        if (n == 0 || self->strides[n - 1] != 1)
            return shimrt_fail(op,
                               "self.stride(-1) must be 1 to view %s as %s (different "
                               "element sizes)",
                               shimrt_dtype_name(self->dtype), shimrt_dtype_name(dtype));
        if (from > to) {
            int64_t r = (int64_t)(from / to);
            sizes[n - 1] *= r;
            for (int64_t d = 0; d < n - 1; d++) strides[d] *= r;
            offset *= r;
        } else {
            int64_t r = (int64_t)(to / from);
            if (sizes[n - 1] % r || offset % r)
                return shimrt_fail(op,
                                   "self.size(-1) must be divisible by %lld to view %s as "
                                   "%s",
                                   (long long)r, shimrt_dtype_name(self->dtype),
                                   shimrt_dtype_name(dtype));
            for (int64_t d = 0; d < n - 1; d++) {
                if (strides[d] % r)
                    return shimrt_fail(op, "self.stride(%lld) must be divisible by %lld",
                                       (long long)d, (long long)r);
                strides[d] /= r;
            }
            sizes[n - 1] /= r;
            offset /= r;
        }
    }
    return shimrt_k_give(shimrt_tensor_new(op, self->storage, n, sizes, strides, offset, dtype,
                                           self->device_type, self->device_index, self->layout),
                         ret0);
}

/* ---- indexing ---- */
static AOTITorchError cpu_only(const char *op, AtenTensorHandle t) {
    if (t->device_type != SHIMRT_DEV_CPU)
        return shimrt_fail(op, "expected a CPU tensor, got %s",
                           shimrt_device_type_name(t->device_type));
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_index_select(AtenTensorHandle self, int64_t dim, AtenTensorHandle index,
                                       AtenTensorHandle *ret0) {
    static const char op[] = "index_select";
    if (cpu_only(op, self) || shimrt_idx_wrap_dim(op, &dim, self->ndim)) return AOTI_TORCH_FAILURE;
    int64_t sizes[SHIMRT_MAX_DIMS];
    memcpy(sizes, self->sizes, (size_t)self->ndim * sizeof *sizes);
    if (self->ndim) sizes[dim] = shimrt_numel(index);
    AtenTensorHandle t =
        shimrt_tensor_empty(op, self->ndim, sizes, NULL, self->dtype, SHIMRT_DEV_CPU, -1);
    if (!t) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(shimrt_idx_index_select(op, self, dim, index, t), t, ret0);
}

AOTITorchError shimrt_cpu_index_select_out(AtenTensorHandle out, AtenTensorHandle self, int64_t dim,
                                           AtenTensorHandle index) {
    return shimrt_idx_index_select("index_select.out", self, dim, index, out);
}

AOTITorchError shimrt_cpu_gather(AtenTensorHandle self, int64_t dim, AtenTensorHandle index,
                                 int32_t sparse_grad, AtenTensorHandle *ret0) {
    static const char op[] = "gather";
    (void)sparse_grad;
    if (cpu_only(op, self)) return AOTI_TORCH_FAILURE;
    AtenTensorHandle t =
        shimrt_tensor_empty(op, index->ndim, index->sizes, NULL, self->dtype, SHIMRT_DEV_CPU, -1);
    if (!t) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(shimrt_idx_gather(op, self, dim, index, t), t, ret0);
}

AOTITorchError shimrt_cpu_gather_out(AtenTensorHandle out, AtenTensorHandle self, int64_t dim,
                                     AtenTensorHandle index, int32_t sparse_grad) {
    (void)sparse_grad;
    return shimrt_idx_gather("gather.out", self, dim, index, out);
}

AOTITorchError shimrt_cpu_scatter_src(AtenTensorHandle self, int64_t dim, AtenTensorHandle index,
                                      AtenTensorHandle src, AtenTensorHandle *ret0) {
    static const char op[] = "scatter.src";
    if (cpu_only(op, self)) return AOTI_TORCH_FAILURE;
    AtenTensorHandle t =
        shimrt_tensor_empty(op, self->ndim, self->sizes, NULL, self->dtype, SHIMRT_DEV_CPU, -1);
    if (!t) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(shimrt_idx_scatter(op, t, self, dim, index, src), t, ret0);
}

AOTITorchError shimrt_cpu_scatter_src_out(AtenTensorHandle out, AtenTensorHandle self, int64_t dim,
                                          AtenTensorHandle index, AtenTensorHandle src) {
    return shimrt_idx_scatter("scatter.src_out", out, self, dim, index, src);
}

static AOTITorchError scatter_reduce_new(const char *op, AtenTensorHandle self, int64_t dim,
                                         AtenTensorHandle index, AtenTensorHandle src,
                                         const char *reduce, bool include_self,
                                         AtenTensorHandle *ret0) {
    if (!reduce || cpu_only(op, self)) return AOTI_TORCH_FAILURE;
    AtenTensorHandle t =
        shimrt_tensor_empty(op, self->ndim, self->sizes, NULL, self->dtype, SHIMRT_DEV_CPU, -1);
    if (!t) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(
        shimrt_idx_scatter_reduce(op, t, self, dim, index, src, reduce, include_self), t, ret0);
}

AOTITorchError shimrt_cpu_scatter_reduce(AtenTensorHandle self, int64_t dim, AtenTensorHandle index,
                                         AtenTensorHandle src, const char *reduce,
                                         AtenTensorHandle *ret0) {
    static const char op[] = "scatter.reduce";
    return scatter_reduce_new(op, self, dim, index, src, shimrt_k_legacy_reduce(op, reduce), true,
                              ret0);
}

AOTITorchError shimrt_cpu_scatter_reduce_out(AtenTensorHandle out, AtenTensorHandle self,
                                             int64_t dim, AtenTensorHandle index,
                                             AtenTensorHandle src, const char *reduce) {
    return shimrt_idx_scatter_reduce_legacy("scatter.reduce_out", out, self, dim, index, src,
                                            reduce);
}

AOTITorchError shimrt_cpu_scatter_reduce_two(AtenTensorHandle self, int64_t dim,
                                             AtenTensorHandle index, AtenTensorHandle src,
                                             const char *reduce, int32_t include_self,
                                             AtenTensorHandle *ret0) {
    return scatter_reduce_new("scatter_reduce.two", self, dim, index, src, reduce,
                              include_self != 0, ret0);
}

AOTITorchError shimrt_cpu_scatter_reduce_two_out(AtenTensorHandle out, AtenTensorHandle self,
                                                 int64_t dim, AtenTensorHandle index,
                                                 AtenTensorHandle src, const char *reduce,
                                                 int32_t include_self) {
    return shimrt_idx_scatter_reduce("scatter_reduce.two_out", out, self, dim, index, src, reduce,
                                     include_self != 0);
}

/* ---- cat, stack ---- */
/* Shape of cat(tensors, dim) (PyTorch skips legacy 1-d empty tensors), and its dtype. */
/* cat's checks and shape (generic/meta.c) after every input is checked to be on the CPU */
static AOTITorchError cpu_inputs(const char *op, const AtenTensorHandle *ts, int64_t n) {
    for (int64_t k = 0; k < n; k++)
        if (cpu_only(op, ts[k])) return AOTI_TORCH_FAILURE;
    return AOTI_TORCH_SUCCESS;
}
/* PyTorch's cat_compute_output_memory_format: the format every input suggests (channels-
 * last strides: channels_last(_3d)), else contiguous. */
static bool cat_channels_last(const AtenTensorHandle *ts, int64_t n) {
    int64_t nd = -1;
    for (int64_t k = 0; k < n; k++) {
        if (!shimrt_k_strides_like_cl(ts[k])) return false;
        if (nd >= 0 && ts[k]->ndim != nd) return false;
        nd = ts[k]->ndim;
    }
    return true;
}

AOTITorchError shimrt_cpu_cat(const AtenTensorHandle *tensors, int64_t tensors_len_, int64_t dim,
                              AtenTensorHandle *ret0) {
    static const char op[] = "cat";
    if (cpu_inputs(op, tensors, tensors_len_)) return AOTI_TORCH_FAILURE;
    int64_t ndim, sizes[SHIMRT_MAX_DIMS], st[SHIMRT_MAX_DIMS];
    int32_t dt;
    if (shimrt_k_cat_shape(op, tensors, tensors_len_, &dim, &ndim, sizes, &dt))
        return AOTI_TORCH_FAILURE;
    bool cl = cat_channels_last(tensors, tensors_len_);
    if (cl) shimrt_k_channels_last_strides(ndim, sizes, st);
    AtenTensorHandle t =
        shimrt_tensor_empty(op, ndim, sizes, cl ? st : NULL, dt, SHIMRT_DEV_CPU, -1);
    if (!t) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(shimrt_k_cat_into(op, tensors, tensors_len_, dim, t), t, ret0);
}

AOTITorchError shimrt_cpu_cat_out(AtenTensorHandle out, const AtenTensorHandle *tensors,
                                  int64_t tensors_len_, int64_t dim) {
    static const char op[] = "cat.out";
    if (cpu_inputs(op, tensors, tensors_len_)) return AOTI_TORCH_FAILURE;
    /* an out that PyTorch resizes takes the inputs' format (its resize_out restrides a
     * resized out to the meta's memory format): channels-last when every input suggests it */
    int64_t ndim, sizes[SHIMRT_MAX_DIMS], st[SHIMRT_MAX_DIMS], d = dim;
    int32_t dt;
    if (!shimrt_k_cat_shape(op, tensors, tensors_len_, &d, &ndim, sizes, &dt) &&
        shimrt_tensor_valid(out) && out->defined &&
        (dt == out->dtype || shimrt_k_can_cast(dt, out->dtype)) &&
        cat_channels_last(tensors, tensors_len_) &&
        !(out->ndim == ndim && !memcmp(out->sizes, sizes, (size_t)ndim * sizeof *sizes))) {
        shimrt_k_channels_last_strides(ndim, sizes, st);
        if (shimrt_resize_output(op, out, ndim, sizes) ||
            shimrt_tensor_set_geometry(op, out, ndim, sizes, st))
            return AOTI_TORCH_FAILURE;
    }
    return shimrt_k_cat_out(op, tensors, tensors_len_, dim, out);
}

/* stack's cat on its inputs' device (stack is CompositeExplicitAutograd: any device): the
 * CPU kernel, else the device-neutral checks and slice copies of runtime/generic/. */
static AOTITorchError cat_any(const char *op, const AtenTensorHandle *ts, int64_t n, int64_t dim,
                              AtenTensorHandle *ret0) {
    if (ts[0]->device_type == SHIMRT_DEV_CPU) return shimrt_cpu_cat(ts, n, dim, ret0);
    for (int64_t k = 1; k < n; k++)
        if (ts[k]->device_type != ts[0]->device_type || ts[k]->device_index != ts[0]->device_index)
            return shimrt_fail(op, "Expected all tensors to be on the same device");
    int64_t ndim, sizes[SHIMRT_MAX_DIMS];
    int32_t dt;
    if (shimrt_k_cat_shape(op, ts, n, &dim, &ndim, sizes, &dt)) return AOTI_TORCH_FAILURE;
    AtenTensorHandle t =
        shimrt_tensor_empty(op, ndim, sizes, NULL, dt, ts[0]->device_type, ts[0]->device_index);
    if (!t) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(shimrt_k_cat_into(op, ts, n, dim, t), t, ret0);
}

AOTITorchError shimrt_stack(const AtenTensorHandle *tensors, int64_t tensors_len_, int64_t dim,
                            AtenTensorHandle *ret0) {
    static const char op[] = "stack";
    if (tensors_len_ <= 0) return shimrt_fail(op, "stack expects a non-empty TensorList");
    const struct AtenTensorOpaque *ref = tensors[0];
    if (ref->ndim + 1 > SHIMRT_MAX_DIMS) return shimrt_fail(op, "too many dimensions");
    if (shimrt_idx_wrap_dim(op, &dim, ref->ndim + 1)) return AOTI_TORCH_FAILURE;
    for (int64_t k = 1; k < tensors_len_; k++) {
        const struct AtenTensorOpaque *t = tensors[k];
        if (t->ndim != ref->ndim ||
            memcmp(t->sizes, ref->sizes, (size_t)t->ndim * sizeof *t->sizes))
            return shimrt_fail(op,
                               "stack expects each tensor to be equal size, but tensor %lld "
                               "differs from tensor 0",
                               (long long)k);
    }
    if (dim < ref->ndim) { /* PyTorch: cat(tensors, dim), viewed with the new dim */
        AtenTensorHandle c = NULL;
        if (cat_any(op, tensors, tensors_len_, dim, &c)) return AOTI_TORCH_FAILURE;
        int64_t ns[SHIMRT_MAX_DIMS], nst[SHIMRT_MAX_DIMS];
        for (int64_t d = 0, s = 0; d <= ref->ndim; d++)
            ns[d] = d == dim ? tensors_len_ : ref->sizes[s++];
        AtenTensorHandle v = NULL;
        if (shimrt_k_view_strides(c, ref->ndim + 1, ns, nst))
            v = shimrt_k_alias(op, c, ref->ndim + 1, ns, nst, c->storage_offset);
        else
            shimrt_fail(op, "the stacked result cannot be viewed");
        shimrt_tensor_free(c);
        return shimrt_k_give(v, ret0);
    }
    /* the new last dim: unsqueeze each input at dim, then cat */
    AtenTensorHandle *views = calloc((size_t)tensors_len_, sizeof *views);
    if (!views) return shimrt_fail(op, "out of memory");
    AOTITorchError rc = AOTI_TORCH_SUCCESS;
    for (int64_t k = 0; k < tensors_len_ && !rc; k++) {
        const struct AtenTensorOpaque *t = tensors[k];
        int64_t sizes[SHIMRT_MAX_DIMS], strides[SHIMRT_MAX_DIMS];
        for (int64_t d = 0, s = 0; d <= t->ndim; d++) {
            if (d == dim) {
                sizes[d] = 1;
                strides[d] = s < t->ndim ? t->sizes[s] * t->strides[s] : 1;
            } else {
                sizes[d] = t->sizes[s];
                strides[d] = t->strides[s];
                s++;
            }
        }
        views[k] = shimrt_tensor_new(op, t->storage, t->ndim + 1, sizes, strides, t->storage_offset,
                                     t->dtype, t->device_type, t->device_index, t->layout);
        if (!views[k]) rc = AOTI_TORCH_FAILURE;
    }
    if (!rc) rc = cat_any(op, views, tensors_len_, dim, ret0);
    for (int64_t k = 0; k < tensors_len_; k++) shimrt_tensor_free(views[k]);
    free(views);
    return rc;
}

/* ---- embedding, _foreach_mul_ ---- */
AOTITorchError shimrt_embedding(AtenTensorHandle weight, AtenTensorHandle indices,
                                int64_t padding_idx, int32_t scale_grad_by_freq, int32_t sparse,
                                AtenTensorHandle *ret0) {
    static const char op[] = "embedding";
    (void)padding_idx, (void)scale_grad_by_freq, (void)sparse; /* they only affect backward */
    /* weight on another device: index_select through the dispatcher (runtime/generic/) */
    bool cpu = weight->device_type == SHIMRT_DEV_CPU;
    if (weight->ndim != 2) return shimrt_fail(op, "'weight' must be 2-D");
    if (indices->dtype != SHIMRT_INT64 && indices->dtype != SHIMRT_INT32)
        return shimrt_fail(op,
                           "Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got torch.%sTensor instead "
                           "(while checking arguments for embedding)",
                           shimrt_dtype_torch_name(indices->dtype));
    if (indices->ndim + 1 > SHIMRT_MAX_DIMS) return shimrt_fail(op, "too many dimensions");
    /* weight.index_select(0, indices.reshape(-1)).view(indices.sizes() + [embedding_dim]) */
    int64_t n = shimrt_numel(indices), flat_sizes[1] = {n}, flat_strides[1] = {1};
    AtenTensorHandle flat = NULL, rows = NULL;
    if (!shimrt_is_contiguous(indices)) {
        flat = shimrt_tensor_empty(op, indices->ndim, indices->sizes, NULL, indices->dtype,
                                   indices->device_type, indices->device_index);
        if (!flat ||
            (indices->device_type == SHIMRT_DEV_CPU ? shimrt_copy(op, flat, indices)
                                                    : shimrt_backend_copy(op, flat, indices))) {
            shimrt_tensor_free(flat);
            return AOTI_TORCH_FAILURE;
        }
    }
    AtenTensorHandle src = flat ? flat : indices;
    AtenTensorHandle view1d =
        shimrt_tensor_new(op, src->storage, 1, flat_sizes, flat_strides, src->storage_offset,
                          src->dtype, src->device_type, src->device_index, src->layout);
    AOTITorchError rc = !view1d ? AOTI_TORCH_FAILURE
                        : cpu   ? shimrt_cpu_index_select(weight, 0, view1d, &rows)
                                : shimrt_k_index_select_any(op, weight, 0, view1d, &rows);
    shimrt_tensor_free(view1d);
    shimrt_tensor_free(flat);
    if (rc) return rc;
    int64_t sizes[SHIMRT_MAX_DIMS];
    memcpy(sizes, indices->sizes, (size_t)indices->ndim * sizeof *sizes);
    sizes[indices->ndim] = weight->sizes[1];
    AtenTensorHandle t =
        shimrt_tensor_new(op, rows->storage, indices->ndim + 1, sizes, NULL, 0, rows->dtype,
                          rows->device_type, rows->device_index, rows->layout);
    shimrt_tensor_free(rows);
    if (!t) return AOTI_TORCH_FAILURE;
    *ret0 = t;
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError same_lengths(const char *op, int64_t a, int64_t b) {
    if (a == b) return AOTI_TORCH_SUCCESS;
    return shimrt_fail(op, "Tensor lists must have the same number of tensors, got %lld and %lld",
                       (long long)a, (long long)b);
}

/* PyTorch's slow path: one mul.Tensor per pair (its broadcasting and type promotion). */
AOTITorchError shimrt_foreach_mul_list(const AtenTensorHandle *self, int64_t self_len_,
                                       const AtenTensorHandle *other, int64_t other_len_,
                                       AtenTensorHandle **ret0, int64_t *ret0_len_) {
    static const char op[] = "_foreach_mul.List";
    if (same_lengths(op, self_len_, other_len_)) return AOTI_TORCH_FAILURE;
    AtenTensorHandle *out = calloc(self_len_ > 0 ? (size_t)self_len_ : 1, sizeof *out);
    if (!out) return shimrt_fail(op, "out of memory");
    for (int64_t k = 0; k < self_len_; k++) {
        /* CPU tensors: the CPU kernel; else mul.Tensor on their device (the dispatcher) */
        bool cpu =
            self[k]->device_type == SHIMRT_DEV_CPU && other[k]->device_type == SHIMRT_DEV_CPU;
        if (cpu ? shimrt_cpu_mul_tensor(self[k], other[k], &out[k])
                : shimrt_k_mul_any(op, self[k], other[k], &out[k])) {
            while (k-- > 0) shimrt_tensor_free(out[k]);
            free(out);
            return AOTI_TORCH_FAILURE;
        }
    }
    *ret0 = out;
    *ret0_len_ = self_len_;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_foreach_mul__list(const AtenTensorHandle *self, int64_t self_len_,
                                        const AtenTensorHandle *other, int64_t other_len_) {
    static const char op[] = "_foreach_mul_.List";
    if (same_lengths(op, self_len_, other_len_)) return AOTI_TORCH_FAILURE;
    /* PyTorch's CPU path: self[k].mul_(other[k]) in turn (the engine's in-place mul: its
     * result type, cast check, broadcast check and integer wrap-around) */
    for (int64_t k = 0; k < self_len_; k++) {
        bool cpu =
            self[k]->device_type == SHIMRT_DEV_CPU && other[k]->device_type == SHIMRT_DEV_CPU;
        if (cpu ? sh_mul_inplace(op, self[k], other[k])
                : shimrt_k_mul_inplace_any(op, self[k], other[k]))
            return AOTI_TORCH_FAILURE;
    }
    return AOTI_TORCH_SUCCESS;
}

/* ---- to.dtype_layout ---- */
AOTITorchError shimrt_to_dtype_layout(AtenTensorHandle self, int32_t *dtype, int32_t *layout,
                                      int32_t *device, int32_t device_index_, int32_t *pin_memory,
                                      int32_t non_blocking, int32_t copy, int32_t *memory_format,
                                      AtenTensorHandle *ret0) {
    static const char op[] = "to.dtype_layout";
    /* pin_memory: PyTorch pins only the result of a non-blocking copy out of an accelerator */
    (void)pin_memory, (void)non_blocking;
    int32_t dt = 0, dev = 0;
    if (options(op, dtype, layout, device, device_index_, self->dtype, self->device_type, &dt,
                &dev))
        return AOTI_TORCH_FAILURE;
    /* a device given is self's only with self's index (a CPU tensor's is -1; cpu:0 copies) */
    bool same_dev = !device || (dev == self->device_type && device_index_ == self->device_index);
    int32_t fmt = memory_format ? *memory_format : SHIMRT_MEMORY_FORMAT_PRESERVE;
    bool host = (dev == SHIMRT_DEV_CPU && self->device_type == SHIMRT_DEV_CPU) ||
                dev == SHIMRT_DEV_META || self->device_type == SHIMRT_DEV_META;
    if (host) return shimrt_k_to(op, self, dt, dev, same_dev, copy != 0, fmt, ret0);
    /* another device on either side: self itself when nothing changes, else _to_copy: the
     * layout of empty_like (preserve: self's strides when dense) on the target device,
     * filled by the devices' rows (the cross-device copy converts the dtype) */
    int32_t suggested = !shimrt_k_strides_like_cl(self) ? SHIMRT_MEMORY_FORMAT_CONTIGUOUS
                        : self->ndim == 4               ? SHIMRT_MEMORY_FORMAT_CHANNELS_LAST
                                                        : SHIMRT_MEMORY_FORMAT_CHANNELS_LAST_3D;
    if (dt == self->dtype && same_dev && !copy &&
        (fmt == SHIMRT_MEMORY_FORMAT_PRESERVE || fmt == suggested))
        return shimrt_k_give(shimrt_tensor_share(op, self), ret0);
    int64_t strides[SHIMRT_MAX_DIMS];
    bool use = false;
    if (shimrt_k_format_strides(op, self, fmt, strides, &use)) return AOTI_TORCH_FAILURE;
    int32_t idx = device ? (dev == SHIMRT_DEV_CPU ? -1 : device_index_) : self->device_index;
    AtenTensorHandle t =
        shimrt_tensor_empty(op, self->ndim, self->sizes, use ? strides : NULL, dt, dev, idx);
    if (!t) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(shimrt_backend_copy(op, t, self), t, ret0);
}

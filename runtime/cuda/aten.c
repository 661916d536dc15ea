/* runtime/cuda/aten.c: the CUDA kernels named in schemas/native_functions.yaml (`CUDA:`
 * dispatch entries; prototypes in generated/cuda_kernels.h, docs/kernels.md). Compute ops
 * go to ops.c (the catalogue's kernels); views come from the device-generic
 * CompositeExplicitAutograd kernels; GEMM ops are in blas.c. */
#include <math.h>
#include <string.h>

#include <shimrt/shim_support.h>

#include "../generic/meta.h"
#include "compositeexplicitautograd_kernels.h"
#include "cuda_internal.h"
#include "cuda_kernels.h"
#include "catalogue.h"

enum { MF_CONTIGUOUS = 0, MF_PRESERVE = 1 };

AOTITorchError shimrt_cuda_add_scalar(AtenTensorHandle self, shimrt_scalar other,
                                      shimrt_scalar alpha, AtenTensorHandle *ret0) {
    if (!shimrt_tensor_valid(self))
        return shimrt_fail("add.Scalar", "argument 'self' is not a tensor");
    const struct AtenTensorOpaque *t[1] = {self};
    int32_t rt = shimrt_k_result_type_of(1, t, 1, &other);
    if (rt >= 0 && shimrt_k_alpha_check("add.Scalar", rt, alpha)) return AOTI_TORCH_FAILURE;
    return shimrt_cuda_binary_scalar("add", self, other, alpha.d, ret0);
}

AOTITorchError shimrt_cuda_sum_dim_intlist(AtenTensorHandle self, const int64_t *dim,
                                           int64_t dim_len_, int32_t keepdim, int32_t *dtype,
                                           AtenTensorHandle *ret0) {
    SHIMRT_CHECK_ARG(ret0);
    if (!dtype || !shimrt_tensor_valid(self))
        return shimrt_cuda_reduce("sum", self, dim, dim ? dim_len_ : 0, keepdim != 0, ret0);
    /* PyTorch: self.to(dtype) summed, the result in dtype (the sum row gives int64 for
     * integers: converted back, as the sum wraps the same way) */
    AtenTensorHandle c = NULL, r = NULL;
    if (self->dtype != *dtype && shimrt_cuda_to_dtype(self, *dtype, 0, 0, NULL, &c))
        return AOTI_TORCH_FAILURE;
    AOTITorchError rc =
        shimrt_cuda_reduce("sum", c ? c : self, dim, dim ? dim_len_ : 0, keepdim != 0, &r);
    shimrt_tensor_free(c);
    if (rc) return rc;
    if (r->dtype == *dtype) return shimrt_k_give(r, ret0);
    rc = shimrt_cuda_to_dtype(r, *dtype, 0, 0, NULL, ret0);
    shimrt_tensor_free(r);
    return rc;
}

/* sum.IntList_out: the CUDA sum into out (shimrt_k_sum_out) once out is a CUDA tensor on
 * self's device. */
AOTITorchError shimrt_cuda_sum_intlist_out(AtenTensorHandle out, AtenTensorHandle self,
                                           const int64_t *dim, int64_t dim_len_, int32_t keepdim,
                                           int32_t *dtype) {
    static const char op[] = "sum.IntList_out";
    if (shimrt_k_check_defined(op, out, "out") || shimrt_k_check_defined(op, self, "self") ||
        shimrt_cuda_check_tensor(op, out, "out", self->device_index))
        return AOTI_TORCH_FAILURE;
    return shimrt_k_sum_out(op, out, self, dim, dim_len_, keepdim, dtype,
                            shimrt_cuda_sum_dim_intlist);
}

AOTITorchError shimrt_cuda_amax(AtenTensorHandle self, const int64_t *dim, int64_t dim_len_,
                                int32_t keepdim, AtenTensorHandle *ret0) {
    return shimrt_cuda_reduce("amax", self, dim, dim_len_, keepdim != 0, ret0);
}

AOTITorchError shimrt_cuda_copy_(AtenTensorHandle self, AtenTensorHandle src,
                                 int32_t non_blocking) {
    (void)non_blocking; /* copies are ordered on the current stream; D2H ones synchronize */
    return shimrt_cuda_do_copy(self, src);
}

AOTITorchError shimrt_cuda_fill__scalar(AtenTensorHandle self, shimrt_scalar value) {
    if (shimrt_tensor_valid(self) &&
        shimrt_k_scalar_fits("fill_.Scalar", value, self->dtype, shimrt_numel(self) == 1))
        return AOTI_TORCH_FAILURE;
    return shimrt_cuda_do_fill(self, value.d);
}

AOTITorchError shimrt_cuda_zero_(AtenTensorHandle self) { return shimrt_cuda_do_fill(self, 0.0); }

/* A new CUDA tensor like self (strides: preserve or contiguous) holding self's values in dt. */
static AOTITorchError copy_as(const char *op, AtenTensorHandle self, bool preserve, int32_t dt,
                              AtenTensorHandle *ret) {
    SHIMRT_CHECK_ARG(ret);
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    int64_t strides[SHIMRT_MAX_DIMS];
    if (preserve) shimrt_k_preserve_strides(self, strides);
    AtenTensorHandle t = shimrt_tensor_empty(op, self->ndim, self->sizes, preserve ? strides : NULL,
                                             dt, self->device_type, self->device_index);
    if (!t) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(shimrt_cuda_do_copy(t, self), t, ret);
}

AOTITorchError shimrt_cuda_clone(AtenTensorHandle self, int32_t *memory_format,
                                 AtenTensorHandle *ret0) {
    int32_t mf = memory_format ? *memory_format : MF_PRESERVE;
    if (mf != MF_PRESERVE && mf != MF_CONTIGUOUS)
        return shimrt_fail("clone", "memory format %d is not implemented for CUDA tensors",
                           (int)mf);
    if (!shimrt_tensor_valid(self)) return shimrt_fail("clone", "argument 'self' is not a tensor");
    return copy_as("clone", self, mf == MF_PRESERVE, self->dtype, ret0);
}

AOTITorchError shimrt_cuda_contiguous(AtenTensorHandle self, int32_t memory_format,
                                      AtenTensorHandle *ret0) {
    static const char op[] = "contiguous";
    SHIMRT_CHECK_ARG(ret0);
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (memory_format != MF_CONTIGUOUS)
        return shimrt_fail(op, "memory format %d is not implemented for CUDA tensors",
                           (int)memory_format);
    if (shimrt_is_contiguous(self)) {
        return shimrt_k_give(shimrt_tensor_share(op, self), ret0); /* PyTorch returns self */
    }
    return copy_as(op, self, false, self->dtype, ret0);
}

AOTITorchError shimrt_cuda_to_dtype(AtenTensorHandle self, int32_t dtype, int32_t non_blocking,
                                    int32_t copy, int32_t *memory_format, AtenTensorHandle *ret0) {
    static const char op[] = "to";
    (void)non_blocking;
    SHIMRT_CHECK_ARG(ret0);
    if (shimrt_k_check_defined(op, self, "self") || shimrt_check_dtype(op, dtype))
        return AOTI_TORCH_FAILURE;
    int32_t mf = memory_format ? *memory_format : MF_PRESERVE;
    if (mf != MF_PRESERVE && mf != MF_CONTIGUOUS)
        return shimrt_fail(op, "memory format %d is not implemented for CUDA tensors", (int)mf);
    if (dtype == self->dtype && !copy && (mf == MF_PRESERVE || shimrt_is_contiguous(self))) {
        return shimrt_k_give(shimrt_tensor_share(op, self), ret0); /* PyTorch returns self */
    }
    return copy_as(op, self, mf == MF_PRESERVE, dtype, ret0);
}

AOTITorchError shimrt_cuda_new_zeros(AtenTensorHandle self, const int64_t *size, int64_t size_len_,
                                     int32_t *dtype, int32_t *layout, int32_t *device,
                                     int32_t device_index_, int32_t *pin_memory,
                                     AtenTensorHandle *ret0) {
    AtenTensorHandle t = NULL;
    if (shimrt_new_empty(self, size, size_len_, dtype, layout, device, device_index_, pin_memory,
                         &t))
        return AOTI_TORCH_FAILURE;
    AOTITorchError rc = AOTI_TORCH_SUCCESS;
    if (t->device_type == SHIMRT_DEV_CUDA)
        rc = shimrt_cuda_do_fill(t, 0.0);
    else /* another device's new_zeros: its row's fill (meta: nothing) */
        rc = shimrt_backend_fill("new_zeros", t, 0.0);
    return shimrt_k_hand_out(rc, t, ret0);
}

AOTITorchError shimrt_cuda_reshape(AtenTensorHandle self, const int64_t *shape, int64_t shape_len_,
                                   AtenTensorHandle *ret0) {
    SHIMRT_CHECK_ARG(ret0);
    if (shimrt_view(self, shape, shape_len_, ret0) == AOTI_TORCH_SUCCESS) return AOTI_TORCH_SUCCESS;
    if (!shimrt_tensor_valid(self) || shimrt_is_contiguous(self))
        return AOTI_TORCH_FAILURE; /* not a stride problem: view's message stands */
    AtenTensorHandle c = NULL;
    if (copy_as("reshape", self, false, self->dtype, &c)) return AOTI_TORCH_FAILURE;
    AOTITorchError rc = shimrt_view(c, shape, shape_len_, ret0);
    shimrt_tensor_free(c);
    return rc;
}

AOTITorchError shimrt_cuda_flatten_using_ints(AtenTensorHandle self, int64_t start_dim,
                                              int64_t end_dim, AtenTensorHandle *ret0) {
    static const char op[] = "flatten";
    SHIMRT_CHECK_ARG(ret0);
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (self->ndim == 0) return shimrt_cuda_reshape(self, (int64_t[]){1}, 1, ret0);
    int64_t s, e;
    if (shimrt_k_wrap_dim(op, start_dim, self->ndim, &s) ||
        shimrt_k_wrap_dim(op, end_dim, self->ndim, &e))
        return AOTI_TORCH_FAILURE;
    if (s > e)
        return shimrt_fail(op, "flatten() has invalid args: start_dim cannot come after end_dim");
    int64_t shape[SHIMRT_MAX_DIMS], n = 0, prod = 1;
    for (int64_t d = 0; d < self->ndim; d++) {
        if (d < s || d > e)
            shape[n++] = self->sizes[d];
        else {
            prod *= self->sizes[d];
            if (d == e) shape[n++] = prod;
        }
    }
    return shimrt_cuda_reshape(self, shape, n, ret0);
}

AOTITorchError shimrt_cuda_pad(AtenTensorHandle self, const int64_t *pad, int64_t pad_len_,
                               const char *mode, double *value, AtenTensorHandle *ret0) {
    static const char op[] = "pad";
    SHIMRT_CHECK_ARG(ret0);
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (mode && strcmp(mode, "constant"))
        return shimrt_fail(op, "padding mode '%s' is not implemented for CUDA tensors", mode);
    if (pad_len_ % 2 || pad_len_ / 2 > self->ndim || (pad_len_ && !pad))
        return shimrt_fail(op, "Padding length must be divisible by 2 and at most twice the "
                               "number of dimensions of the input");
    int64_t shape[SHIMRT_MAX_DIMS];
    for (int64_t d = 0; d < self->ndim; d++) shape[d] = self->sizes[d];
    for (int64_t i = 0; i < pad_len_ / 2; i++) {
        int64_t d = self->ndim - 1 - i;
        if (pad[2 * i] < 0 || pad[2 * i + 1] < 0)
            return shimrt_fail(op, "negative padding is not implemented for CUDA tensors");
        shape[d] += pad[2 * i] + pad[2 * i + 1];
    }
    AtenTensorHandle out = shimrt_tensor_empty(op, self->ndim, shape, NULL, self->dtype,
                                               SHIMRT_DEV_CUDA, self->device_index);
    if (!out) return AOTI_TORCH_FAILURE;
    AtenTensorHandle view = NULL;
    AOTITorchError rc = shimrt_cuda_do_fill(out, value ? *value : 0.0);
    if (!rc) {
        view = shimrt_k_alias(op, out, out->ndim, out->sizes, out->strides, out->storage_offset);
        rc = view ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
    }
    for (int64_t i = 0; !rc && i < pad_len_ / 2; i++) {
        AtenTensorHandle v = NULL;
        int64_t d = self->ndim - 1 - i;
        rc = shimrt_narrow(view, d, pad[2 * i], self->sizes[d], &v);
        if (!rc) {
            shimrt_tensor_free(view);
            view = v;
        }
    }
    if (!rc) rc = shimrt_cuda_do_copy(view, self);
    shimrt_tensor_free(view);
    return shimrt_k_hand_out(rc, out, ret0);
}

/* mm, bmm, addmm, matmul: blas.c (cuBLAS) */

/* ---- the element-wise and reduction ops of ops.def's rows (the same PyTorch checks as the
 * CPU kernels of runtime/cpu/pointwise.c, then one launch of the row's CUDA kernel) ---- */
#define CUDA_UNARY(NAME)                                                                           \
    AOTITorchError shimrt_cuda_##NAME(AtenTensorHandle self, AtenTensorHandle *ret0) {             \
        return shimrt_cuda_unary(#NAME, self, ret0);                                               \
    }
CUDA_UNARY(neg)
CUDA_UNARY(relu)
CUDA_UNARY(exp)
CUDA_UNARY(abs)
CUDA_UNARY(sqrt)
CUDA_UNARY(rsqrt)
CUDA_UNARY(sigmoid)
CUDA_UNARY(tanh)
CUDA_UNARY(log)

/* PyTorch's result type of two tensors (-1 where they have none) */
static AOTITorchError result_type(const char *op, AtenTensorHandle self, AtenTensorHandle other,
                                  int32_t *rt) {
    if (!shimrt_tensor_valid(self) || !shimrt_tensor_valid(other))
        return shimrt_fail(op, "argument 'self' or 'other' is not a tensor");
    const struct AtenTensorOpaque *t[2] = {self, other};
    *rt = shimrt_k_result_type_of(2, t, 0, NULL);
    return AOTI_TORCH_SUCCESS;
}

/* add/sub: PyTorch's alpha_check on the result type, by alpha's kind */
static AOTITorchError add_sub(const char *op, const char *row, AtenTensorHandle self,
                              AtenTensorHandle other, shimrt_scalar alpha, AtenTensorHandle *ret0) {
    int32_t rt;
    if (result_type(op, self, other, &rt)) return AOTI_TORCH_FAILURE;
    if (rt >= 0 && shimrt_k_alpha_check(op, rt, alpha)) return AOTI_TORCH_FAILURE;
    return shimrt_cuda_binary(row, self, other, alpha.d, ret0);
}

/* the binary ops that are one row of the catalogue: add/sub and their alias subtract (alpha
 * checked by add_sub), mul, div and its alias divide */
#define CUDA_ADD_SUB(FN, OP, ROW)                                                                  \
    AOTITorchError shimrt_cuda_##FN(AtenTensorHandle self, AtenTensorHandle other,                 \
                                    shimrt_scalar alpha, AtenTensorHandle *ret0) {                 \
        return add_sub(OP, ROW, self, other, alpha, ret0);                                         \
    }
#define CUDA_BINARY(FN, ROW)                                                                       \
    AOTITorchError shimrt_cuda_##FN(AtenTensorHandle self, AtenTensorHandle other,                 \
                                    AtenTensorHandle *ret0) {                                      \
        return shimrt_cuda_binary(ROW, self, other, 1.0, ret0);                                    \
    }
CUDA_ADD_SUB(add_tensor, "add.Tensor", "add")
CUDA_ADD_SUB(sub_tensor, "sub.Tensor", "sub")
CUDA_ADD_SUB(subtract_tensor, "subtract.Tensor", "sub")
CUDA_BINARY(mul_tensor, "mul")
CUDA_BINARY(div_tensor, "div")
CUDA_BINARY(divide_tensor, "div")

AOTITorchError shimrt_cuda_floor_divide(AtenTensorHandle self, AtenTensorHandle other,
                                        AtenTensorHandle *ret0) {
    if (shimrt_tensor_valid(self) && shimrt_tensor_valid(other)) {
        const struct AtenTensorOpaque *t[2] = {self, other};
        if (shimrt_k_result_type_of(2, t, 0, NULL) == SHIMRT_BOOL)
            return shimrt_fail("floor_divide", "\"div_floor_cuda\" not implemented for 'Bool'");
    }
    /* an integer division by zero gives 0 on the device (no error can come back from a
     * kernel, as in PyTorch's CUDA kernels); the CPU kernel raises ZeroDivisionError */
    return shimrt_cuda_binary("floor_divide", self, other, 1.0, ret0);
}

/* bitwise ops: integral and bool only; shifts refuse bool */
static AOTITorchError integral_only(const char *op, const char *row, const char *kname, bool nobool,
                                    AtenTensorHandle self, AtenTensorHandle other,
                                    AtenTensorHandle *ret0) {
    int32_t rt;
    if (result_type(op, self, other, &rt)) return AOTI_TORCH_FAILURE;
    if (shimrt_k_is_floating(rt) || (nobool && rt == SHIMRT_BOOL))
        return shimrt_fail(op, "\"%s\" not implemented for '%s'", kname,
                           shimrt_dtype_torch_name(rt));
    shimrt_cuda_pw c = {
        .op = op, .row = row, .kind = SHK_BINARY, .in = {self, other}, .alpha = 1, .compute = rt};
    return shimrt_cuda_pointwise(&c, ret0);
}

#define CUDA_INTEGRAL(NAME, KNAME, NOBOOL)                                                         \
    AOTITorchError shimrt_cuda_##NAME##_tensor(AtenTensorHandle self, AtenTensorHandle other,      \
                                               AtenTensorHandle *ret0) {                           \
        return integral_only(#NAME ".Tensor", #NAME, KNAME, NOBOOL, self, other, ret0);            \
    }
CUDA_INTEGRAL(bitwise_and, "bitwise_and_cuda", false)
CUDA_INTEGRAL(bitwise_or, "bitwise_or_cuda", false)
CUDA_INTEGRAL(bitwise_left_shift, "lshift_cuda", true)
CUDA_INTEGRAL(bitwise_right_shift, "rshift_cuda", true)

#define CUDA_COMPARE(NAME)                                                                         \
    CUDA_BINARY(NAME##_tensor, #NAME)                                                              \
    AOTITorchError shimrt_cuda_##NAME##_scalar(AtenTensorHandle self, shimrt_scalar other,         \
                                               AtenTensorHandle *ret0) {                           \
        return shimrt_cuda_binary_scalar(#NAME, self, other, 1.0, ret0);                           \
    }
SHIMRT_COMPARISONS(CUDA_COMPARE)

AOTITorchError shimrt_cuda_where_self(AtenTensorHandle condition, AtenTensorHandle self,
                                      AtenTensorHandle other, AtenTensorHandle *ret0) {
    shimrt_cuda_pw c = {.op = "where.self",
                        .row = "where",
                        .kind = SHK_TERNARY,
                        .in = {condition, self, other},
                        .alpha = 1,
                        .compute = -1};
    return shimrt_cuda_pointwise(&c, ret0);
}

AOTITorchError shimrt_cuda_pow_tensor_scalar(AtenTensorHandle self, shimrt_scalar sexponent,
                                             AtenTensorHandle *ret0) {
    static const char op[] = "pow.Tensor_Scalar";
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    const struct AtenTensorOpaque *t[1] = {self};
    int32_t rt = shimrt_k_result_type_of(1, t, 1, &sexponent);
    if (!shimrt_k_is_floating(self->dtype) && shimrt_scalar_is_integral(sexponent, true) &&
        sexponent.i < 0)
        return shimrt_fail(op, "Integers to negative integer powers are not allowed.");
    double exponent = sexponent.d;
    shimrt_cuda_pw c = {.op = op,
                        .row = "pow",
                        .kind = SHK_UNARY,
                        .in = {self},
                        .alpha = 1,
                        .p0 = exponent,
                        .compute = rt};
    return shimrt_cuda_pointwise(&c, ret0);
}

AOTITorchError shimrt_cuda_clamp(AtenTensorHandle self, const shimrt_scalar *smin,
                                 const shimrt_scalar *smax, AtenTensorHandle *ret0) {
    static const char op[] = "clamp";
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (!smin && !smax)
        return shimrt_fail(op, "torch.clamp: At least one of 'min' or 'max' must not be None");
    shimrt_scalar sc[2];
    int ns = 0;
    if (smin) sc[ns++] = *smin;
    if (smax) sc[ns++] = *smax;
    const double *min = smin ? &smin->d : NULL, *max = smax ? &smax->d : NULL;
    const struct AtenTensorOpaque *t[1] = {self};
    int32_t rt = shimrt_k_result_type_of(1, t, ns, sc);
    if (rt == SHIMRT_BOOL) return shimrt_fail(op, "\"clamp_cuda\" not implemented for 'Bool'");
    shimrt_cuda_pw c = {.op = op,
                        .row = "clamp",
                        .kind = SHK_UNARY,
                        .in = {self},
                        .alpha = 1,
                        .p0 = min ? *min : -INFINITY,
                        .p1 = max ? *max : INFINITY,
                        .compute = rt};
    if (shimrt_k_is_integral(rt)) { /* as the CPU kernel: bounds must fit the integer type */
        static const double lo[] = {0, INT8_MIN, INT16_MIN, INT32_MIN, (double)INT64_MIN};
        static const double hi[] = {UINT8_MAX, INT8_MAX, INT16_MAX, INT32_MAX, (double)INT64_MAX};
        if (min && *min > hi[rt])
            return shimrt_fail(op, "Clamp min value %g is outside the representable range of %s",
                               *min, shimrt_dtype_torch_name(rt));
        if (max && *max < lo[rt])
            return shimrt_fail(op, "Clamp max value %g is outside the representable range of %s",
                               *max, shimrt_dtype_torch_name(rt));
        if (!min || *min < lo[rt]) c.p0 = lo[rt];
        if (!max || *max > hi[rt]) c.p1 = hi[rt];
    }
    return shimrt_cuda_pointwise(&c, ret0);
}

AOTITorchError shimrt_cuda_all(AtenTensorHandle self, AtenTensorHandle *ret0) {
    return shimrt_cuda_reduce("all", self, NULL, 0, false, ret0);
}

AOTITorchError shimrt_cuda_any(AtenTensorHandle self, AtenTensorHandle *ret0) {
    return shimrt_cuda_reduce("any", self, NULL, 0, false, ret0);
}

/* empty.memory_format on CUDA: a plain allocation from the caching allocator on the named
 * device (the current one when no index is given), no kernel. */
AOTITorchError shimrt_cuda_empty_memory_format(const int64_t *size, int64_t size_len_,
                                               int32_t *dtype, int32_t *layout, int32_t *device,
                                               int32_t device_index_, int32_t *pin_memory,
                                               int32_t *memory_format, AtenTensorHandle *ret0) {
    static const char op[] = "empty.memory_format";
    SHIMRT_CHECK_ARG(ret0);
    if (pin_memory && *pin_memory) return shimrt_fail(op, "Only dense CPU tensors can be pinned");
    if (layout && *layout != SHIMRT_LAYOUT_STRIDED)
        return shimrt_fail(op, "layout code %d is not supported (only strided)", (int)*layout);
    if (device && *device != SHIMRT_DEV_CUDA)
        return shimrt_fail(op, "the CUDA kernel got device %s", shimrt_device_type_name(*device));
    int64_t strides[SHIMRT_MAX_DIMS];
    bool cl = false;
    if (shimrt_k_empty_strides(op, size_len_, size, memory_format, strides, &cl))
        return AOTI_TORCH_FAILURE;
    int32_t idx = device ? device_index_ : -1; /* -1: the thread's current device */
    if (shimrt_cuda_resolve_device(op, idx, &idx)) return AOTI_TORCH_FAILURE;
    return shimrt_k_give(shimrt_tensor_empty(op, size_len_, size, cl ? strides : NULL,
                                             dtype ? *dtype : SHIMRT_FLOAT32, SHIMRT_DEV_CUDA, idx),
                         ret0);
}

AOTITorchError shimrt_cuda_mean_dim(AtenTensorHandle self, const int64_t *dim, int64_t dim_len_,
                                    int32_t keepdim, int32_t *dtype, AtenTensorHandle *ret0) {
    static const char op[] = "mean.dim";
    SHIMRT_CHECK_ARG(ret0);
    int32_t odt;
    if (shimrt_k_check_defined(op, self, "self") ||
        shimrt_k_mean_dtype(op, self->dtype, dtype, &odt))
        return AOTI_TORCH_FAILURE;
    int64_t nd = dim ? dim_len_ : 0;
    if (odt == self->dtype) return shimrt_cuda_mean(op, self, dim, nd, keepdim != 0, ret0);
    AtenTensorHandle c = shimrt_cuda_dense(op, self, 0, NULL, odt); /* PyTorch: self.to(dtype) */
    if (!c) return AOTI_TORCH_FAILURE;
    AOTITorchError rc = shimrt_cuda_mean(op, c, dim, nd, keepdim != 0, ret0);
    shimrt_tensor_free(c);
    return rc;
}

AOTITorchError shimrt_cuda_max_dim(AtenTensorHandle self, int64_t dim, int32_t keepdim,
                                   AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    static const char op[] = "max.dim";
    SHIMRT_CHECK_ARG(ret0);
    int64_t d;
    if (shimrt_k_check_defined(op, self, "self") ||
        shimrt_k_reduce_dim_nonempty(op, "max", self, dim, &d))
        return AOTI_TORCH_FAILURE;
    return shimrt_cuda_argmax_run(op, self, &d, keepdim != 0, ret0, ret1);
}

AOTITorchError shimrt_cuda_argmax(AtenTensorHandle self, int64_t *dim, int32_t keepdim,
                                  AtenTensorHandle *ret0) {
    static const char op[] = "argmax";
    if (shimrt_k_check_defined(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (self->dtype == SHIMRT_BOOL)
        return shimrt_fail(op, "\"argmax_cuda\" not implemented for 'Bool'");
    int64_t d;
    if (!dim) {
        if (shimrt_numel(self) == 0)
            return shimrt_fail(op, "argmax(): Expected reduction dim to be specified for "
                                   "input.numel() == 0.");
        return shimrt_cuda_argmax_run(op, self, NULL, keepdim != 0, NULL, ret0);
    }
    if (shimrt_k_reduce_dim_nonempty(op, "argmax", self, *dim, &d)) return AOTI_TORCH_FAILURE;
    return shimrt_cuda_argmax_run(op, self, &d, keepdim != 0, NULL, ret0);
}

/* PyTorch's CUDA softmax kernels are "host_softmax" (both softmax and log_softmax) */
static AOTITorchError softmax(const char *op, bool logsm, AtenTensorHandle self, int64_t dim,
                              int32_t *dtype, AtenTensorHandle *ret0) {
    int32_t odt;
    if (shimrt_k_check_defined(op, self, "self") ||
        shimrt_k_softmax_dtype(op, "host_softmax", self->dtype, dtype, &odt))
        return AOTI_TORCH_FAILURE;
    return shimrt_cuda_softmax_run(op, logsm, self, dim, odt, ret0);
}

SHIMRT_SOFTMAX_KERNELS(shimrt_cuda, softmax)

AOTITorchError shimrt_cuda_index_select(AtenTensorHandle self, int64_t dim, AtenTensorHandle index,
                                        AtenTensorHandle *ret0) {
    static const char op[] = "index_select";
    int64_t d;
    if (shimrt_k_check_defined(op, self, "self") || shimrt_k_check_defined(op, index, "index") ||
        shimrt_k_index_select_check(op, self, dim, index, &d))
        return AOTI_TORCH_FAILURE;
    return shimrt_cuda_index_select_run(op, self, d, index, NULL, ret0);
}

AOTITorchError shimrt_cuda_gather(AtenTensorHandle self, int64_t dim, AtenTensorHandle index,
                                  int32_t sparse_grad, AtenTensorHandle *ret0) {
    static const char op[] = "gather";
    (void)sparse_grad;
    int64_t d;
    if (shimrt_k_check_defined(op, self, "self") || shimrt_k_check_defined(op, index, "index") ||
        shimrt_k_wrap_dim(op, dim, self->ndim, &d) ||
        shimrt_k_scatter_index_check(op, self, d, index, NULL, true))
        return AOTI_TORCH_FAILURE;
    return shimrt_cuda_gather_run(op, self, d, index, NULL, ret0);
}

/* cat on CUDA: the shared checks, then each input copied into its slice of a new CUDA tensor
 * by the device copy kernel. */
static AOTITorchError cuda_inputs(const char *op, const AtenTensorHandle *ts, int64_t n) {
    for (int64_t k = 0; k < n; k++) {
        if (shimrt_k_check_defined(op, ts[k], "tensors")) return AOTI_TORCH_FAILURE;
        if (ts[k]->device_type != SHIMRT_DEV_CUDA || ts[k]->device_index != ts[0]->device_index)
            return shimrt_fail(
                op,
                "Expected all tensors to be on the same device, but found at "
                "least two devices, %s:%d and %s:%d",
                shimrt_device_type_name(ts[0]->device_type), (int)ts[0]->device_index,
                shimrt_device_type_name(ts[k]->device_type), (int)ts[k]->device_index);
    }
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cuda_cat(const AtenTensorHandle *tensors, int64_t tensors_len_, int64_t dim,
                               AtenTensorHandle *ret0) {
    static const char op[] = "cat";
    SHIMRT_CHECK_ARG(ret0);
    if (tensors_len_ > 0 && (!tensors || cuda_inputs(op, tensors, tensors_len_)))
        return AOTI_TORCH_FAILURE;
    return shimrt_k_cat_new(op, tensors, tensors_len_, dim, SHIMRT_DEV_CUDA, ret0);
}

AOTITorchError shimrt_cuda_cat_out(AtenTensorHandle out, const AtenTensorHandle *tensors,
                                   int64_t tensors_len_, int64_t dim) {
    static const char op[] = "cat.out";
    if (shimrt_k_check_defined(op, out, "out")) return AOTI_TORCH_FAILURE;
    if (tensors_len_ > 0 && (!tensors || cuda_inputs(op, tensors, tensors_len_)))
        return AOTI_TORCH_FAILURE;
    if (tensors_len_ > 0 &&
        (out->device_type != SHIMRT_DEV_CUDA || out->device_index != tensors[0]->device_index))
        return shimrt_fail(op, "out must be on the inputs' device (cuda:%d)",
                           (int)tensors[0]->device_index);
    return shimrt_k_cat_out(op, tensors, tensors_len_, dim, out);
}

AOTITorchError shimrt_cuda_index_select_out(AtenTensorHandle out, AtenTensorHandle self,
                                            int64_t dim, AtenTensorHandle index) {
    static const char op[] = "index_select.out";
    int64_t d;
    if (shimrt_k_check_defined(op, out, "out") || shimrt_k_check_defined(op, self, "self") ||
        shimrt_k_check_defined(op, index, "index") ||
        shimrt_k_index_select_check(op, self, dim, index, &d))
        return AOTI_TORCH_FAILURE;
    return shimrt_cuda_index_select_run(op, self, d, index, out, NULL);
}

AOTITorchError shimrt_cuda_gather_out(AtenTensorHandle out, AtenTensorHandle self, int64_t dim,
                                      AtenTensorHandle index, int32_t sparse_grad) {
    static const char op[] = "gather.out";
    (void)sparse_grad;
    int64_t d;
    if (shimrt_k_check_defined(op, out, "out") || shimrt_k_check_defined(op, self, "self") ||
        shimrt_k_check_defined(op, index, "index") || shimrt_k_wrap_dim(op, dim, self->ndim, &d) ||
        shimrt_k_scatter_index_check(op, self, d, index, NULL, true))
        return AOTI_TORCH_FAILURE;
    return shimrt_cuda_gather_run(op, self, d, index, out, NULL);
}

/* scatter.src, scatter.reduce, scatter_reduce.two and their .out variants: the CPU
 * kernels' checks and messages (runtime/cpu/index.c, shape.c), then the scatter kernel
 * (ops.c) into a new contiguous tensor or into out. */
static AOTITorchError scatter_new(const char *op, AtenTensorHandle self, int64_t dim,
                                  AtenTensorHandle index, AtenTensorHandle src, const char *reduce,
                                  bool include_self, AtenTensorHandle *ret0) {
    SHIMRT_CHECK_ARG(ret0);
    if (shimrt_cuda_check_tensor(op, self, "self", -1)) return AOTI_TORCH_FAILURE;
    AtenTensorHandle t = shimrt_tensor_empty(op, self->ndim, self->sizes, NULL, self->dtype,
                                             SHIMRT_DEV_CUDA, self->device_index);
    if (!t) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(
        shimrt_cuda_scatter_run(op, t, self, dim, index, src, reduce, include_self), t, ret0);
}

AOTITorchError shimrt_cuda_scatter_src(AtenTensorHandle self, int64_t dim, AtenTensorHandle index,
                                       AtenTensorHandle src, AtenTensorHandle *ret0) {
    return scatter_new("scatter.src", self, dim, index, src, NULL, false, ret0);
}

AOTITorchError shimrt_cuda_scatter_src_out(AtenTensorHandle out, AtenTensorHandle self, int64_t dim,
                                           AtenTensorHandle index, AtenTensorHandle src) {
    return shimrt_cuda_scatter_run("scatter.src_out", out, self, dim, index, src, NULL, false);
}

/* scatter.reduce(_out) and scatter_reduce.two(_out): the reduce name checked (scatter.reduce's
 * legacy names, "add" and "multiply", with include_self), then into a new tensor or (into) into out */
static AOTITorchError scatter_reduce(const char *op, bool legacy, bool into, AtenTensorHandle out,
                                     AtenTensorHandle self, int64_t dim, AtenTensorHandle index,
                                     AtenTensorHandle src, const char *reduce, bool include_self,
                                     AtenTensorHandle *ret0) {
    const char *r = legacy ? shimrt_k_legacy_reduce(op, reduce) : reduce;
    if (!r) return legacy ? AOTI_TORCH_FAILURE : shimrt_fail(op, "argument 'reduce' is NULL");
    if (!into) return scatter_new(op, self, dim, index, src, r, include_self, ret0);
    return shimrt_cuda_scatter_run(op, out, self, dim, index, src, r, include_self);
}

AOTITorchError shimrt_cuda_scatter_reduce(AtenTensorHandle self, int64_t dim,
                                          AtenTensorHandle index, AtenTensorHandle src,
                                          const char *reduce, AtenTensorHandle *ret0) {
    return scatter_reduce("scatter.reduce", true, false, NULL, self, dim, index, src, reduce, true,
                          ret0);
}

AOTITorchError shimrt_cuda_scatter_reduce_out(AtenTensorHandle out, AtenTensorHandle self,
                                              int64_t dim, AtenTensorHandle index,
                                              AtenTensorHandle src, const char *reduce) {
    return scatter_reduce("scatter.reduce_out", true, true, out, self, dim, index, src, reduce,
                          true, NULL);
}

AOTITorchError shimrt_cuda_scatter_reduce_two(AtenTensorHandle self, int64_t dim,
                                              AtenTensorHandle index, AtenTensorHandle src,
                                              const char *reduce, int32_t include_self,
                                              AtenTensorHandle *ret0) {
    return scatter_reduce("scatter_reduce.two", false, false, NULL, self, dim, index, src, reduce,
                          include_self != 0, ret0);
}

AOTITorchError shimrt_cuda_scatter_reduce_two_out(AtenTensorHandle out, AtenTensorHandle self,
                                                  int64_t dim, AtenTensorHandle index,
                                                  AtenTensorHandle src, const char *reduce,
                                                  int32_t include_self) {
    return scatter_reduce("scatter_reduce.two_out", false, true, out, self, dim, index, src, reduce,
                          include_self != 0, NULL);
}

AOTITorchError shimrt_cuda_native_layer_norm(AtenTensorHandle input,
                                             const int64_t *normalized_shape,
                                             int64_t normalized_shape_len_, AtenTensorHandle weight,
                                             AtenTensorHandle bias, double eps,
                                             AtenTensorHandle *ret0, AtenTensorHandle *ret1,
                                             AtenTensorHandle *ret2) {
    static const char op[] = "native_layer_norm";
    int64_t nn = normalized_shape_len_;
    if (shimrt_k_layer_norm_check(op, input, normalized_shape, nn, weight, bias, SHIMRT_DEV_CUDA))
        return AOTI_TORCH_FAILURE;
    return shimrt_cuda_layer_norm_run(op, input, nn, weight, bias, eps, ret0, ret1, ret2);
}

/* sort and sort.stable: the CPU kernel's checks and messages (generic/meta.c), then the
 * sort kernels (ops.c); every sort is stable (ties in index order), as PyTorch's CUDA stable sort; the CPU orders an unstable sort's ties as std::sort. */
AOTITorchError shimrt_cuda_sort(AtenTensorHandle self, int64_t dim, int32_t descending,
                                AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    static const char op[] = "sort";
    int64_t d;
    if (shimrt_k_sort_check(op, self, dim, SHIMRT_DEV_CUDA, &d)) return AOTI_TORCH_FAILURE;
    return shimrt_cuda_sort_run(op, self, d, descending != 0, ret0, ret1);
}

AOTITorchError shimrt_cuda_sort_stable(AtenTensorHandle self, int32_t *stable, int64_t dim,
                                       int32_t descending, AtenTensorHandle *ret0,
                                       AtenTensorHandle *ret1) {
    static const char op[] = "sort.stable";
    (void)stable; /* every sort here is stable */
    int64_t d;
    if (shimrt_k_sort_check(op, self, dim, SHIMRT_DEV_CUDA, &d)) return AOTI_TORCH_FAILURE;
    return shimrt_cuda_sort_run(op, self, d, descending != 0, ret0, ret1);
}

/* _scaled_dot_product_efficient_attention (what PyTorch picks for float32 attention on a
 * GPU, hence what AOTInductor's CUDA models call): the same attention as the CPU's
 * _scaled_dot_product_flash_attention_for_cpu (softmax(q k^T * scale + attn_bias) v, causal
 * mask, its log-sum-exp), run through the dispatcher, so on CUDA tensors it takes the CPU
 * fallback; then PyTorch's CUDA layouts (meta__scaled_dot_product_efficient_attention): the
 * output [B, H, M, Kv] laid out as [B, M, H, Kv], the log-sum-exp [B, H, ceil(M/32)*32]
 * float32 (its padding zeroed) or [B, H, 0], and 0-dim int64 philox seed and offset on the
 * host, as PyTorch makes them without dropout. Dropout is refused (inference only). */
AOTITorchError shimrt_cuda_sdpa_efficient(AtenTensorHandle query, AtenTensorHandle key,
                                          AtenTensorHandle value, AtenTensorHandle attn_bias,
                                          int32_t compute_log_sumexp, double dropout_p,
                                          int32_t is_causal, double *scale, AtenTensorHandle *ret0,
                                          AtenTensorHandle *ret1, AtenTensorHandle *ret2,
                                          AtenTensorHandle *ret3) {
    static const char op[] = "_scaled_dot_product_efficient_attention";
    static shimrt_op_cache cache;
    if (shimrt_cuda_check_tensor(op, query, "query", -1) ||
        shimrt_cuda_check_tensor(op, key, "key", query->device_index) ||
        shimrt_cuda_check_tensor(op, value, "value", query->device_index))
        return AOTI_TORCH_FAILURE;
    if (query->ndim != 4 || key->ndim != 4 || value->ndim != 4)
        return shimrt_fail(op,
                           "expected query, key and value to be 4-d ([batch, heads, "
                           "sequence, embedding]), got %lld-d, %lld-d and %lld-d",
                           (long long)query->ndim, (long long)key->ndim, (long long)value->ndim);
    if (dropout_p != 0.0)
        return shimrt_fail(op, "dropout_p=%g: libshimrt runs attention without dropout", dropout_p);
    StableIValue stack[7];
    shimrt_pack p;
    shimrt_pack_begin(&p, op, stack, 7);
    shimrt_pack_tensor(&p, "query", query);
    shimrt_pack_tensor(&p, "key", key);
    shimrt_pack_tensor(&p, "value", value);
    shimrt_pack_float(&p, 0.0);
    shimrt_pack_bool(&p, is_causal);
    shimrt_pack_opt_tensor(&p, "attn_bias", attn_bias ? &attn_bias : NULL);
    shimrt_pack_opt_float(&p, scale);
    if (shimrt_pack_call(&p, &cache, "aten::_scaled_dot_product_flash_attention_for_cpu", ""))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle o = siv_to_tensor(stack[0]), l = siv_to_tensor(stack[1]);
    int64_t B = query->sizes[0], H = query->sizes[1], M = query->sizes[2], Kv = value->sizes[3];
    int64_t osz[4] = {B, H, M, Kv}, ost[4] = {M * H * Kv, Kv, H * Kv, 1};
    int64_t pad = compute_log_sumexp ? (M + 31) / 32 * 32 : 0, lsz[3] = {B, H, pad};
    int32_t dev = query->device_index;
    AtenTensorHandle out = shimrt_tensor_empty(op, 4, osz, ost, query->dtype, SHIMRT_DEV_CUDA, dev);
    AtenTensorHandle lse =
        out ? shimrt_tensor_empty(op, 3, lsz, NULL, SHIMRT_FLOAT32, SHIMRT_DEV_CUDA, dev) : NULL;
    AtenTensorHandle seed =
        lse ? shimrt_tensor_empty(op, 0, NULL, NULL, SHIMRT_INT64, SHIMRT_DEV_CPU, 0) : NULL;
    AtenTensorHandle offset =
        seed ? shimrt_tensor_empty(op, 0, NULL, NULL, SHIMRT_INT64, SHIMRT_DEV_CPU, 0) : NULL;
    AtenTensorHandle lview = NULL;
    int64_t vsz[3] = {B, H, M}, vst[3] = {H * pad, pad, 1};
    AOTITorchError rc = !offset || shimrt_cuda_do_copy(out, o) ||
                        (pad && (shimrt_cuda_do_fill(lse, 0.0) ||
                                 aoti_torch__reinterpret_tensor(lse, 3, vsz, vst, 0, &lview) ||
                                 shimrt_cuda_do_copy(lview, l)));
    if (!rc) {
        *(int64_t *)shimrt_data(seed) = 0;
        *(int64_t *)shimrt_data(offset) = 0;
        *ret0 = out, *ret1 = lse, *ret2 = seed, *ret3 = offset;
        out = lse = seed = offset = NULL;
    }
    shimrt_tensor_free(lview), shimrt_tensor_free(o), shimrt_tensor_free(l);
    shimrt_tensor_free(out), shimrt_tensor_free(lse), shimrt_tensor_free(seed);
    shimrt_tensor_free(offset);
    return rc;
}

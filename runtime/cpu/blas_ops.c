/* runtime/cpu/blas_ops.c: the matrix-product functions of c_shim_cpu.h that AOTInductor
 * CPU graphs call: addmm.out, mm.out, bmm.out, baddbmm.out, addmv, addbmm,
 * _addmm_activation, _int_mm.out.
 *
 * Every product is linalg.c's gemm (OpenBLAS for float32/float64, a plain loop for the
 * other dtypes). An out that already has the result's shape and dtype, is contiguous and
 * shares no memory with the matrices is written in place (the common case in compiled
 * graphs: a preallocated buffer); any other out gets the result through a temporary,
 * resized as PyTorch resizes outs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"

AtenTensorHandle shimrt_k_new(const char *op, int64_t ndim, const int64_t *sizes, int32_t dtype) {
    return shimrt_tensor_empty(op, ndim, sizes, NULL, dtype, SHIMRT_DEV_CPU, 0);
}

AOTITorchError shimrt_k_into_out(const char *op, AtenTensorHandle out, AtenTensorHandle r) {
    if (!r) return AOTI_TORCH_FAILURE;
    AOTITorchError e = shimrt_k_check_cpu(op, out, "out");
    if (!e && out->dtype != r->dtype)
        e = shimrt_fail(op, "Expected out tensor to have dtype %s, but got %s instead",
                        shimrt_dtype_name(r->dtype), shimrt_dtype_name(out->dtype));
    if (!e) e = shimrt_resize_output(op, out, r->ndim, r->sizes);
    if (!e && shimrt_k_internal_overlap(out)) /* PyTorch's final copy_ into out refuses it */
        e = shimrt_fail(op, "unsupported operation: more than one element of the written-to "
                            "tensor refers to a single memory location. Please clone() the "
                            "tensor before performing the operation.");
    if (!e) e = shimrt_k_copy(op, out, r);
    shimrt_tensor_free(r);
    return e;
}

/* out can take the result directly: on the CPU, exactly of shape sizes[0..nd) and dtype dt,
 * contiguous, and sharing no memory with a or b. */
static bool direct(const struct AtenTensorOpaque *out, int64_t nd, const int64_t *sizes, int32_t dt,
                   const struct AtenTensorOpaque *a, const struct AtenTensorOpaque *b) {
    if (!out->defined || out->device_type != SHIMRT_DEV_CPU || out->dtype != dt ||
        out->ndim != nd || !shimrt_is_contiguous(out))
        return false;
    for (int64_t i = 0; i < nd; i++)
        if (out->sizes[i] != sizes[i]) return false;
    return !shimrt_k_may_overlap(out, a) && !shimrt_k_may_overlap(out, b);
}

/* Same storage position, sizes and strides: the same tensor. */
static bool same_view(const struct AtenTensorOpaque *x, const struct AtenTensorOpaque *y) {
    if (shimrt_data(x) != shimrt_data(y) || x->ndim != y->ndim || x->dtype != y->dtype)
        return false;
    for (int64_t i = 0; i < x->ndim; i++)
        if (x->sizes[i] != y->sizes[i] || x->strides[i] != y->strides[i]) return false;
    return true;
}

/* Copies bias (broadcast) into the direct out unless bias already is out; false when bias
 * overlaps out otherwise (the caller takes the temporary path). */
static bool bias_in_place(const char *op, AtenTensorHandle out, AtenTensorHandle bias,
                          AOTITorchError *err) {
    *err = AOTI_TORCH_SUCCESS;
    if (same_view(out, bias)) return true;
    if (shimrt_k_may_overlap(out, bias)) return false;
    *err = shimrt_k_copy(op, out, bias);
    return true;
}

static bool float_blas(int32_t dt) { return dt == SHIMRT_FLOAT32 || dt == SHIMRT_FLOAT64; }

/* The dtypes and shapes the direct float path takes without further checks: the matrices and
 * bias (when given) of one float dtype, mat1 n x k, mat2 k x m, bias broadcastable to n x m. */
static bool simple_mm(AtenTensorHandle bias, AtenTensorHandle a, AtenTensorHandle b) {
    if (a->ndim != 2 || b->ndim != 2 || a->sizes[1] != b->sizes[0] || !float_blas(a->dtype) ||
        a->dtype != b->dtype || a->device_type != SHIMRT_DEV_CPU ||
        b->device_type != SHIMRT_DEV_CPU || !a->defined || !b->defined)
        return false;
    if (!bias) return true;
    if (!bias->defined || bias->device_type != SHIMRT_DEV_CPU || bias->dtype != a->dtype ||
        bias->ndim > 2)
        return false;
    int64_t n = a->sizes[0], m = b->sizes[1];
    int64_t bn = bias->ndim == 2 ? bias->sizes[0] : 1,
            bm = bias->ndim >= 1 ? bias->sizes[bias->ndim - 1] : 1;
    return (bn == n || bn == 1) && (bm == m || bm == 1);
}

/* An empty product (k == 0) of integral or bool matrices into a non-empty result, with beta
 * != 0: PyTorch scales self by the double beta and cannot cast the Float result back. */
static bool inexact(int32_t dt) { return shimrt_k_is_floating(dt) || shimrt_dtype_is_complex(dt); }

static AOTITorchError empty_int_product(const char *op, int32_t dt, int64_t n, int64_t k, int64_t m,
                                        double beta) {
    if (!inexact(dt) && k == 0 && n > 0 && m > 0 && beta != 0)
        return shimrt_fail(op, "result type Float can't be cast to the desired output type %s",
                           shimrt_dtype_torch_name(dt));
    return AOTI_TORCH_SUCCESS;
}

/* PyTorch converts beta and alpha to integral matrices' type (truncating); the empty product
 * check above. Returns nonzero on failure. */
static AOTITorchError int_scalars(AtenTensorHandle self, AtenTensorHandle m1, AtenTensorHandle m2,
                                  double *beta, double *alpha) {
    if (!shimrt_tensor_valid(m1) || !m1->defined || inexact(m1->dtype)) return AOTI_TORCH_SUCCESS;
    if (shimrt_tensor_valid(self) && self->defined && self->dtype == m1->dtype &&
        shimrt_tensor_valid(m2) && m2->defined && m2->dtype == m1->dtype && m1->ndim == 2 &&
        m2->ndim == 2 && m1->sizes[1] == m2->sizes[0] &&
        empty_int_product("addmm", m1->dtype, m1->sizes[0], m1->sizes[1], m2->sizes[1], *beta))
        return AOTI_TORCH_FAILURE;
    /* a product with terms converts both with c10's check (beta -0.5 to uint8 overflows)
     * before they truncate */
    if (m1->ndim == 2 && shimrt_tensor_valid(m2) && m2->defined && m2->ndim == 2 &&
        m1->sizes[0] > 0 && m1->sizes[1] > 0 && m2->sizes[1] > 0 &&
        (shimrt_k_scalar_fits("addmm", shimrt_scalar_double(*alpha), m1->dtype, false) ||
         shimrt_k_scalar_fits("addmm", shimrt_scalar_double(*beta), m1->dtype, false)))
        return AOTI_TORCH_FAILURE;
    *beta = trunc(*beta);
    *alpha = trunc(*alpha);
    return AOTI_TORCH_SUCCESS;
}

/* After a failed product: PyTorch's metas resize out to the result's shape before the
 * kernel refuses a dtype, so out takes it when the operands a [.., n, k] and b [.., k, m]
 * (nd = 2, or 3 with one batch) have one and out has the dtype of the meta's options (dt);
 * the failure (and its message) stands. */
static AOTITorchError resized_failure(const char *op, AtenTensorHandle out, int64_t nd,
                                      AtenTensorHandle a, AtenTensorHandle b, int32_t dt) {
    bool ok = shimrt_tensor_valid(out) && out->defined && out->dtype == dt &&
              shimrt_tensor_valid(a) && a->defined && shimrt_tensor_valid(b) && b->defined &&
              a->ndim == nd && b->ndim == nd && a->sizes[nd - 1] == b->sizes[nd - 2] &&
              (nd == 2 || a->sizes[0] == b->sizes[0]);
    if (ok) {
        int64_t shape[3] = {a->sizes[0], a->sizes[nd - 2], b->sizes[nd - 1]};
        shimrt_resize_output(op, out, nd, nd == 2 ? shape + 1 : shape);
    }
    return AOTI_TORCH_FAILURE;
}

AOTITorchError shimrt_cpu_addmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                    AtenTensorHandle mat1, AtenTensorHandle mat2,
                                    shimrt_scalar sbeta, shimrt_scalar salpha) {
    static const char op[] = "addmm.out";
    double beta = sbeta.d, alpha = salpha.d; /* by value, as PyTorch's addmm reads them */
    if (shimrt_k_check_cpu(op, out, "out")) return AOTI_TORCH_FAILURE;
    if (simple_mm(self, mat1, mat2)) {
        int64_t shape[2] = {mat1->sizes[0], mat2->sizes[1]};
        AOTITorchError err = AOTI_TORCH_SUCCESS;
        if (direct(out, 2, shape, mat1->dtype, mat1, mat2) &&
            (beta == 0 || bias_in_place(op, out, self, &err))) {
            if (err) return err;
            if (shimrt_k_gemm_scalars(op, mat1->dtype, shape[0], mat1->sizes[1], shape[1], &beta,
                                      &alpha))
                return AOTI_TORCH_FAILURE;
            return shimrt_k_gemm(op, mat1->dtype, shape[0], mat1->sizes[1], shape[1],
                                 shimrt_data(mat1), mat1->strides[0], mat1->strides[1],
                                 shimrt_data(mat2), mat2->strides[0], mat2->strides[1],
                                 shimrt_data(out), alpha, beta);
        }
    }
    AtenTensorHandle r = NULL;
    if (int_scalars(self, mat1, mat2, &beta, &alpha) ||
        shimrt_cpu_addmm(self, mat1, mat2, shimrt_scalar_double(beta), shimrt_scalar_double(alpha),
                         &r)) /* addmm's meta checks the dtypes agree before resizing */
        return shimrt_tensor_valid(self) && self->defined && shimrt_tensor_valid(mat2) &&
                       mat2->defined && shimrt_tensor_valid(mat1) && mat1->defined &&
                       self->dtype == mat2->dtype && mat1->dtype == mat2->dtype
                   ? resized_failure(op, out, 2, mat1, mat2, self->dtype)
                   : AOTI_TORCH_FAILURE;
    return shimrt_k_into_out(op, out, r);
}

AOTITorchError shimrt_cpu_mm_out(AtenTensorHandle out, AtenTensorHandle self,
                                 AtenTensorHandle mat2) {
    static const char op[] = "mm.out";
    if (shimrt_k_check_cpu(op, out, "out")) return AOTI_TORCH_FAILURE;
    if (simple_mm(NULL, self, mat2)) {
        int64_t shape[2] = {self->sizes[0], mat2->sizes[1]};
        if (direct(out, 2, shape, self->dtype, self, mat2))
            return shimrt_k_gemm(op, self->dtype, shape[0], self->sizes[1], shape[1],
                                 shimrt_data(self), self->strides[0], self->strides[1],
                                 shimrt_data(mat2), mat2->strides[0], mat2->strides[1],
                                 shimrt_data(out), 1.0, 0.0);
    }
    AtenTensorHandle r = NULL;
    if (shimrt_cpu_mm(self, mat2, &r))
        return shimrt_tensor_valid(self) && self->defined
                   ? resized_failure(op, out, 2, self, mat2, self->dtype)
                   : AOTI_TORCH_FAILURE;
    return shimrt_k_into_out(op, out, r);
}

/* bmm's checks (PyTorch's messages): batch1 [b, n, k] and batch2 [b, k, m] of one dtype
 * (uint16/32/64 taken while the product is empty, as PyTorch). */
static AOTITorchError bmm_check(const char *op, AtenTensorHandle b1, AtenTensorHandle b2,
                                int64_t shape[3]) {
    if (shimrt_k_check_cpu(op, b1, "batch1") || shimrt_k_check_cpu(op, b2, "batch2") ||
        shimrt_k_check_mm_dtype(op, b1, "batch1") || shimrt_k_check_mm_dtype(op, b2, "batch2"))
        return AOTI_TORCH_FAILURE;
    if (shimrt_k_bmm_shape(op, b1, b2, shape)) return AOTI_TORCH_FAILURE;
    if (b1->dtype != b2->dtype)
        return shimrt_fail(op, "expected scalar type %s but found %s",
                           shimrt_dtype_torch_name(b1->dtype), shimrt_dtype_torch_name(b2->dtype));
    return shimrt_k_mm_kernel_check(op, "bmm", b1->dtype, shape[0] * shape[1], b1->sizes[2],
                                    shape[2]);
}

/* dst (contiguous [b, n, m] of dtype dt, batch1's when k > 0) = beta * dst + alpha * b1 @ b2,
 * batch by batch. */
static AOTITorchError bmm_into(const char *op, int32_t dt, char *dst, AtenTensorHandle b1,
                               AtenTensorHandle b2, double beta, double alpha) {
    int64_t nb = b1->sizes[0], n = b1->sizes[1], k = b1->sizes[2], m = b2->sizes[2];
    size_t es = shimrt_dtype_size(dt);
    const char *p1 = k ? shimrt_data(b1) : NULL, *p2 = k ? shimrt_data(b2) : NULL;
    if (n == 0 || m == 0) return AOTI_TORCH_SUCCESS;
    for (int64_t i = 0; i < nb; i++)
        if (shimrt_k_gemm_bmm(op, dt, n, k, m, p1 ? p1 + (size_t)(i * b1->strides[0]) * es : NULL,
                              b1->strides[1], b1->strides[2],
                              p2 ? p2 + (size_t)(i * b2->strides[0]) * es : NULL, b2->strides[1],
                              b2->strides[2], dst + (size_t)(i * n * m) * es, alpha, beta))
            return AOTI_TORCH_FAILURE;
    return AOTI_TORCH_SUCCESS;
}

/* r (contiguous [b, n, m]) into out of r's shape and dtype whose elements share memory (a
 * stride 0): PyTorch's loop below 400 multiply-adds writes out element by element in order,
 * the last write to a place standing; above, addmm_ per batch does so batch by batch, and
 * refuses (as copy_) a matrix whose own elements share memory. */
static AOTITorchError into_overlapping(const char *op, AtenTensorHandle out, AtenTensorHandle r,
                                       int64_t k) {
    const int64_t *sz = r->sizes, *st = out->strides;
    bool loop = sz[1] < 400 && k < 400 && sz[2] < 400 && sz[1] * k * sz[2] < 400;
    if (!loop && ((st[1] == 0 && sz[1] > 1) || (st[2] == 0 && sz[2] > 1)))
        return shimrt_fail(op, "unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.");
    size_t es = shimrt_dtype_size(r->dtype);
    char *o = shimrt_data(out);
    const char *src = shimrt_data(r);
    for (int64_t b = 0; b < sz[0]; b++)
        for (int64_t i = 0; i < sz[1]; i++)
            for (int64_t j = 0; j < sz[2]; j++, src += es)
                memcpy(o + (size_t)(b * st[0] + i * st[1] + j * st[2]) * es, src, es);
    return AOTI_TORCH_SUCCESS;
}

/* baddbmm.out in PyTorch's order (measured on 2.15; TORCH_META_FUNC(baddbmm), then
 * TORCH_IMPL_FUNC(baddbmm_out_cpu)):
 *  1. the meta: self expanded to [batch1.size(0), batch1.size(1), batch2.size(2)], self of
 *     batch1's dtype, batch1 and batch2 3-d with batch2 [b, k, m]; out of batch2's dtype;
 *     any failure here leaves out untouched;
 *  2. out resized to [b, n, m], and with beta != 0 given self's values (copy_);
 *  3. the kernel: nothing for an empty out; k == 0 zeros out or scales it by beta (an
 *     integral or bool out cannot take the float product); below 400 multiply-adds per
 *     matrix PyTorch's loop, dispatched on batch1's dtype (no bool, uint16/32/64), taking
 *     alpha and beta in its opmath type (checked), then out of batch1's dtype; above, MKL
 *     for a contiguous float/complex out and batches it can read, else addmm_ per batch
 *     (batch1 and batch2 of one dtype, no bool, uint16/32/64). Failures here leave out
 *     resized (holding self when beta != 0). */
static AOTITorchError size_at(const char *op, const struct AtenTensorOpaque *t, int64_t d) {
    if (t->ndim == 0)
        return shimrt_fail(op, "Dimension specified as %lld but tensor has no dimensions",
                           (long long)d);
    if (d >= t->ndim)
        return shimrt_fail(op,
                           "Dimension out of range (expected to be in range of [%lld, %lld], "
                           "but got %lld)",
                           -(long long)t->ndim, (long long)t->ndim - 1, (long long)d);
    return AOTI_TORCH_SUCCESS;
}

/* PyTorch's expand of t to the 3 sizes to. */
static AOTITorchError expand_check(const char *op, const struct AtenTensorOpaque *t,
                                   const int64_t to[3]) {
    char a[160], b[160];
    if (t->ndim > 3)
        return shimrt_fail(op,
                           "expand(CPU%sType{%s}, size=%s): the number of sizes provided "
                           "(3) must be greater or equal to the number of dimensions in the "
                           "tensor (%lld)",
                           shimrt_dtype_torch_name(t->dtype),
                           shimrt_k_fmt_shape(a, sizeof a, t->ndim, t->sizes),
                           shimrt_k_fmt_shape(b, sizeof b, 3, to), (long long)t->ndim);
    for (int i = 2; i >= 0; i--) {
        int64_t d = t->ndim - 3 + i, size = d >= 0 ? t->sizes[d] : 1;
        if (size != to[i] && size != 1)
            return shimrt_fail(op,
                               "The expanded size of the tensor (%lld) must match the existing "
                               "size (%lld) at non-singleton dimension %d.  Target sizes: %s.  "
                               "Tensor sizes: %s",
                               (long long)to[i], (long long)size, i,
                               shimrt_k_fmt_shape(a, sizeof a, 3, to),
                               shimrt_k_fmt_shape(b, sizeof b, t->ndim, t->sizes));
    }
    return AOTI_TORCH_SUCCESS;
}

/* common_checks_baddbmm_bmm up to the resize: 3-d batches, batch2 [b, k, m], out of batch2's
 * dtype. */
static AOTITorchError bmm_meta(const char *op, AtenTensorHandle out, AtenTensorHandle b1,
                               AtenTensorHandle b2, int64_t shape[3]) {
    if (shimrt_k_bmm_shape(op, b1, b2, shape)) return AOTI_TORCH_FAILURE;
    if (out->dtype != b2->dtype)
        return shimrt_fail(op, "Expected out tensor to have dtype %s, but got %s instead",
                           shimrt_dtype_meta_name(b2->dtype), shimrt_dtype_meta_name(out->dtype));
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError baddbmm_meta(const char *op, AtenTensorHandle out, AtenTensorHandle self,
                                   AtenTensorHandle b1, AtenTensorHandle b2, int64_t shape[3]) {
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, b1, "batch1") ||
        shimrt_k_check_cpu(op, b2, "batch2") || shimrt_k_check_cpu(op, out, "out") ||
        size_at(op, b1, 0) || size_at(op, b1, 1) || size_at(op, b2, 2))
        return AOTI_TORCH_FAILURE;
    int64_t to[3] = {b1->sizes[0], b1->sizes[1], b2->sizes[2]};
    if (expand_check(op, self, to)) return AOTI_TORCH_FAILURE;
    if (self->dtype != b1->dtype)
        return shimrt_fail(op,
                           "Input dtypes must be the same, got: input %s, batch1: %s, batch2: %s",
                           shimrt_dtype_meta_name(self->dtype), shimrt_dtype_meta_name(b1->dtype),
                           shimrt_dtype_meta_name(b2->dtype));
    return bmm_meta(op, out, b1, b2, shape);
}

/* PyTorch's copy_(out, self) of the meta (self broadcast): nothing when self is out's
 * very view; refused when out has internal overlap or self partly overlaps it. */
static AOTITorchError copy_self(const char *op, AtenTensorHandle out, AtenTensorHandle self) {
    if (same_view(out, self)) return AOTI_TORCH_SUCCESS;
    if (shimrt_k_internal_overlap(out))
        return shimrt_fail(op, "unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.");
    /* an expanded self (stride 0 over a dim > 1) is not dense: PyTorch does not check it */
    if (shimrt_numel(self) == shimrt_numel(out) && shimrt_k_partial_overlap(out, self))
        return shimrt_fail(op, "unsupported operation: some elements of the input tensor and "
                               "the written-to tensor refer to a single memory location. Please "
                               "clone() the tensor before performing the operation.");
    return shimrt_k_copy(op, out, self);
}

/* MKL's condition on a batch of bmm_out_or_baddbmm_: its matrices contiguous or transposed. */
static bool mkl_batch(const struct AtenTensorOpaque *t) {
    const int64_t *s = t->sizes, *st = t->strides;
    return (st[2] == 1 && (s[1] == 1 || st[1] >= s[2])) ||
           (st[1] == 1 && (s[2] == 1 || st[2] >= s[1]));
}

static int32_t opmath(int32_t dt) {
    return dt == SHIMRT_FLOAT16 || dt == SHIMRT_BFLOAT16 ? SHIMRT_FLOAT32 : dt;
}

static AOTITorchError scalars_fit(const char *op, int32_t dt, shimrt_scalar alpha,
                                  shimrt_scalar beta) {
    if (shimrt_k_scalar_fits(op, alpha, opmath(dt), false) ||
        shimrt_k_scalar_fits(op, beta, opmath(dt), false))
        return AOTI_TORCH_FAILURE;
    return AOTI_TORCH_SUCCESS;
}

/* The kernel's refusals (3. above) for a product with multiply-adds; bmm: bmm.out's
 * (no scalars; addmm_impl_cpu_ per batch). */
static AOTITorchError baddbmm_kernel_check(const char *op, AtenTensorHandle out,
                                           AtenTensorHandle b1, AtenTensorHandle b2,
                                           shimrt_scalar alpha, shimrt_scalar beta, bool bmm) {
    int64_t n = b1->sizes[1], k = b1->sizes[2], m = b2->sizes[2];
    int32_t dt = out->dtype;
    if (n < 400 && k < 400 && m < 400 && n * k * m < 400) {
        if (shimrt_k_mm_kernel_check(op, bmm ? "bmm" : "baddbmm", b1->dtype, n, k, m) ||
            shimrt_k_check_mm_dtype(op, b1, "batch1") || scalars_fit(op, b1->dtype, alpha, beta))
            return AOTI_TORCH_FAILURE;
        if (b1->dtype != dt)
            return shimrt_fail(op, "expected scalar type %s but found %s",
                               shimrt_dtype_torch_name(b1->dtype), shimrt_dtype_torch_name(dt));
        return AOTI_TORCH_SUCCESS;
    }
    if ((float_blas(dt) || dt == SHIMRT_COMPLEX64 || dt == SHIMRT_COMPLEX128) && mkl_batch(b1) &&
        mkl_batch(b2) && shimrt_is_contiguous(out)) {
        if (scalars_fit(op, dt, alpha, beta)) return AOTI_TORCH_FAILURE;
        if (b1->dtype != dt)
            return shimrt_fail(op, "expected scalar type %s but found %s",
                               shimrt_dtype_torch_name(dt), shimrt_dtype_torch_name(b1->dtype));
        return AOTI_TORCH_SUCCESS;
    }
    if (b1->dtype != b2->dtype && bmm)
        return shimrt_fail(op, "expected m1 and m2 to have the same dtype, but got: %s != %s",
                           shimrt_dtype_meta_name(b1->dtype), shimrt_dtype_meta_name(b2->dtype));
    if (b1->dtype != b2->dtype)
        return shimrt_fail(op, "mat1 and mat2 must have the same dtype, but got %s and %s",
                           shimrt_dtype_torch_name(b1->dtype), shimrt_dtype_torch_name(b2->dtype));
    if (shimrt_k_mm_kernel_check(op, "addmm_impl_cpu_", dt, n, k, m) ||
        shimrt_k_check_mm_dtype(op, out, "out") || scalars_fit(op, dt, alpha, beta))
        return AOTI_TORCH_FAILURE;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_baddbmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                      AtenTensorHandle batch1, AtenTensorHandle batch2,
                                      shimrt_scalar sbeta, shimrt_scalar salpha) {
    static const char op[] = "baddbmm.out";
    double beta = sbeta.d, alpha = salpha.d;
    int64_t shape[3];
    if (baddbmm_meta(op, out, self, batch1, batch2, shape) ||
        shimrt_resize_output(op, out, 3, shape) || (beta != 0 && copy_self(op, out, self)))
        return AOTI_TORCH_FAILURE;
    if (shimrt_numel(out) == 0) return AOTI_TORCH_SUCCESS;
    int32_t dt = out->dtype;
    if (batch1->sizes[2] == 0) { /* zero_, or mul_(beta): alpha is not read */
        alpha = 0;
        if (beta == 0) {
            shimrt_k_fill(out, 0);
            return AOTI_TORCH_SUCCESS;
        }
        if (!inexact(dt))
            return shimrt_fail(op, "result type Float can't be cast to the desired output type %s",
                               shimrt_dtype_torch_name(dt));
    } else if (baddbmm_kernel_check(op, out, batch1, batch2, salpha, sbeta, false)) {
        return AOTI_TORCH_FAILURE;
    }
    if (!inexact(dt)) {
        beta = trunc(beta);
        alpha = trunc(alpha);
    }
    /* out holds self when beta != 0: the product adds to it in place, or through a
     * temporary when out is not contiguous or shares memory with the batches */
    if (direct(out, 3, shape, dt, batch1, batch2))
        return bmm_into(op, dt, shimrt_data(out), batch1, batch2, beta, alpha);
    AtenTensorHandle r = shimrt_k_new(op, 3, shape, dt);
    if (!r) return AOTI_TORCH_FAILURE;
    AOTITorchError e = (beta != 0 && shimrt_k_copy(op, r, out)) ||
                               bmm_into(op, dt, shimrt_data(r), batch1, batch2, beta, alpha)
                           ? AOTI_TORCH_FAILURE
                       : shimrt_k_internal_overlap(out)
                           ? into_overlapping(op, out, r, batch1->sizes[2])
                           : shimrt_k_copy(op, out, r);
    shimrt_tensor_free(r);
    return e;
}

/* bmm.out in PyTorch's order (TORCH_META_FUNC(bmm), TORCH_IMPL_FUNC(bmm_out_cpu)): the
 * meta's checks leave out untouched; out is resized, then the kernel writes nothing (empty
 * out) or zeros (k == 0) whatever batch1's dtype, or refuses as baddbmm's. */
AOTITorchError shimrt_cpu_bmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                  AtenTensorHandle mat2) {
    static const char op[] = "bmm.out";
    int64_t shape[3];
    if (shimrt_k_check_cpu(op, self, "batch1") || shimrt_k_check_cpu(op, mat2, "batch2") ||
        shimrt_k_check_cpu(op, out, "out") || bmm_meta(op, out, self, mat2, shape) ||
        shimrt_resize_output(op, out, 3, shape))
        return AOTI_TORCH_FAILURE;
    if (shimrt_numel(out) == 0) return AOTI_TORCH_SUCCESS;
    if (self->sizes[2] == 0) {
        shimrt_k_fill(out, 0);
        return AOTI_TORCH_SUCCESS;
    }
    if (baddbmm_kernel_check(op, out, self, mat2, shimrt_scalar_double(1.0),
                             shimrt_scalar_double(0.0), true))
        return AOTI_TORCH_FAILURE;
    int32_t dt = out->dtype;
    if (direct(out, 3, shape, dt, self, mat2))
        return bmm_into(op, dt, shimrt_data(out), self, mat2, 0.0, 1.0);
    AtenTensorHandle r = shimrt_k_new(op, 3, shape, dt);
    if (!r) return AOTI_TORCH_FAILURE;
    if (bmm_into(op, dt, shimrt_data(r), self, mat2, 0.0, 1.0)) {
        shimrt_tensor_free(r);
        return AOTI_TORCH_FAILURE;
    }
    if (shimrt_k_internal_overlap(out)) {
        AOTITorchError e = into_overlapping(op, out, r, self->sizes[2]);
        shimrt_tensor_free(r);
        return e;
    }
    return shimrt_k_into_out(op, out, r);
}

/* r = self (broadcast) when beta is not 0, else zeros: self is not read at all. */
static AOTITorchError self_or_zeros(const char *op, AtenTensorHandle r, AtenTensorHandle self,
                                    double beta) {
    if (beta != 0) return shimrt_k_copy(op, r, self);
    shimrt_k_fill(r, 0);
    return AOTI_TORCH_SUCCESS;
}

/* Each element of t (contiguous) in place: times by (EL_SCALE: in float for float32 and the
 * half types, in double for float64, in int64, wrapping, for the others), or relu / gelu
 * (erf form) computed in float for the half types and float32, in double for float64 (an
 * integer dtype takes relu for both). */
enum { EL_SCALE, EL_RELU, EL_GELU };
static void each_elem(AtenTensorHandle t, int how, double by) {
    int64_t n = shimrt_numel(t);
    char *p = shimrt_data(t);
    size_t es = shimrt_dtype_size(t->dtype);
    bool flt = shimrt_k_is_floating(t->dtype), gelu = how == EL_GELU;
    for (int64_t i = 0; i < n; i++) {
        char *e = p + (size_t)i * es;
        if (!flt) {
            int64_t v = shimrt_k_load_i64(e, t->dtype);
            v = how == EL_SCALE ? (int64_t)((uint64_t)v * (uint64_t)shimrt_k_f2i(by))
                : v > 0         ? v
                                : 0;
            shimrt_k_store_i64(e, t->dtype, v);
            continue;
        }
        double v = shimrt_k_load_f64(e, t->dtype);
        if (how == EL_SCALE) { /* mul_(beta): float types take beta as a float (opmath) */
            v = t->dtype == SHIMRT_FLOAT64 ? v * by : (double)((float)v * (float)by);
        } else if (t->dtype == SHIMRT_FLOAT64) {
            v = gelu ? 0.5 * v * (1.0 + erf(v * M_SQRT1_2)) : (v > 0 || isnan(v) ? v : 0.0);
        } else {
            float f = (float)v;
            /* PyTorch's vectorized float32/bfloat16 GELU (its contiguous path, more than one
             * element) takes its own erf, which gives NaN at +inf (measured) */
            bool vec_inf = gelu && isinf(f) && f > 0 && n > 1 && t->dtype != SHIMRT_FLOAT16;
            f = vec_inf ? NAN
                : gelu  ? 0.5f * f * (1.0f + erff(f * (float)M_SQRT1_2))
                        : (f > 0 || isnan(f) ? f : 0.0f);
            v = f;
        }
        shimrt_k_store_f64(e, t->dtype, v);
    }
}

AOTITorchError shimrt_cpu_addbmm(AtenTensorHandle self, AtenTensorHandle batch1,
                                 AtenTensorHandle batch2, shimrt_scalar sbeta, shimrt_scalar salpha,
                                 AtenTensorHandle *ret0) {
    static const char op[] = "addbmm";
    double beta = sbeta.d, alpha = salpha.d;
    int64_t shape[3];
    if (shimrt_k_check_cpu(op, self, "self") || bmm_check(op, batch1, batch2, shape))
        return AOTI_TORCH_FAILURE;
    if (self->dtype == SHIMRT_BOOL && batch1->dtype == SHIMRT_BOOL && shape[0] > 0 &&
        batch1->sizes[2] == 0 && shape[1] > 0 && shape[2] > 0)
        return shimrt_fail(op, "result type Long can't be cast to the desired output type Bool");
    if (self->dtype == batch1->dtype &&
        empty_int_product(op, self->dtype, shape[1], shape[0] * batch1->sizes[2], shape[2], beta))
        return AOTI_TORCH_FAILURE;
    if (!shimrt_k_is_floating(self->dtype)) {
        beta = trunc(beta);
        alpha = trunc(alpha);
    }
    if (self->dtype != batch1->dtype)
        return shimrt_fail(op, "self and batch1 must have the same dtype, but got %s and %s",
                           shimrt_dtype_name(self->dtype), shimrt_dtype_name(batch1->dtype));
    int64_t rs[2] = {shape[1], shape[2]}, tmp[SHIMRT_MAX_DIMS], tn;
    if (shimrt_k_broadcast(op, self->ndim, self->sizes, 2, rs, tmp, &tn)) return AOTI_TORCH_FAILURE;
    if (tn != 2 || tmp[0] != rs[0] || tmp[1] != rs[1])
        return shimrt_fail(op, "the size of self cannot be broadcast to [%lld, %lld]",
                           (long long)rs[0], (long long)rs[1]);
    /* each batch's addmm_ takes alpha and beta (the first's) in the opmath type, checked,
     * when it has multiply-adds */
    if (shape[0] > 0 && rs[0] > 0 && rs[1] > 0 && batch1->sizes[2] > 0 &&
        scalars_fit(op, self->dtype, salpha, sbeta))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle r = shimrt_k_new(op, 2, rs, self->dtype);
    if (!r) return AOTI_TORCH_FAILURE;
    AOTITorchError err = self_or_zeros(op, r, self, beta);
    /* PyTorch's CPU addbmm: result = beta * self, then result.addmm_(batch1[i], batch2[i],
     * 1, alpha) for each batch in order. */
    size_t es = shimrt_dtype_size(self->dtype);
    const char *p1 = shimrt_data(batch1), *p2 = shimrt_data(batch2);
    for (int64_t i = 0; !err && i < shape[0] && rs[0] > 0 && rs[1] > 0; i++)
        err = shimrt_k_gemm(
            op, self->dtype, rs[0], batch1->sizes[2], rs[1],
            p1 ? p1 + (size_t)(i * batch1->strides[0]) * es : NULL, batch1->strides[1],
            batch1->strides[2], p2 ? p2 + (size_t)(i * batch2->strides[0]) * es : NULL,
            batch2->strides[1], batch2->strides[2], shimrt_data(r), alpha, (i == 0 ? beta : 1.0));
    if (!err && shape[0] == 0) each_elem(r, EL_SCALE, beta);
    return shimrt_k_hand_out(err, r, ret0);
}

AOTITorchError shimrt_cpu_addmv(AtenTensorHandle self, AtenTensorHandle mat, AtenTensorHandle vec,
                                shimrt_scalar sbeta, shimrt_scalar salpha, AtenTensorHandle *ret0) {
    static const char op[] = "addmv";
    double beta = sbeta.d, alpha = salpha.d;
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, mat, "mat") ||
        shimrt_k_check_cpu(op, vec, "vec") || shimrt_k_check_dtype(op, self, "self") ||
        shimrt_k_check_dtype(op, mat, "mat") || shimrt_k_check_dtype(op, vec, "vec"))
        return AOTI_TORCH_FAILURE;
    if (mat->ndim != 2 || vec->ndim != 1 || mat->sizes[1] != vec->sizes[0])
        return shimrt_fail(op, "size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)",
                           (long long)(self->ndim ? self->sizes[0] : 1),
                           (long long)(mat->ndim > 0 ? mat->sizes[0] : 0),
                           (long long)(mat->ndim > 1 ? mat->sizes[1] : 0),
                           (long long)(vec->ndim ? vec->sizes[0] : 0));
    int64_t n = mat->sizes[0], k = mat->sizes[1], tmp[SHIMRT_MAX_DIMS], tn;
    if (shimrt_k_broadcast(op, self->ndim, self->sizes, 1, &n, tmp, &tn) || tn != 1 || tmp[0] != n)
        return shimrt_fail(op, "size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)",
                           (long long)(self->ndim ? self->sizes[0] : 1), (long long)n, (long long)k,
                           (long long)k);
    if (self->dtype != mat->dtype || mat->dtype != vec->dtype)
        return shimrt_fail(
            op, "expected scalar type %s but found %s", shimrt_dtype_torch_name(mat->dtype),
            shimrt_dtype_torch_name(self->dtype != mat->dtype ? self->dtype : vec->dtype));
    int32_t dt = mat->dtype;
    if (dt == SHIMRT_BOOL && n > 0 && k > 0)
        return shimrt_fail(op, "\"addmv_impl_cpu\" not implemented for 'Bool'");
    bool beta0 = beta == 0;
    if (dt == SHIMRT_BOOL) { /* PyTorch converts the scalars to the matrices' type */
        beta = beta != 0;
        alpha = alpha != 0;
    } else if (!shimrt_k_is_floating(dt)) {
        beta = trunc(beta);
        alpha = trunc(alpha);
    }
    if (n * k == 0 && !beta0) { /* PyTorch: self * beta, in self's own shape */
        AtenTensorHandle r = shimrt_k_new(op, self->ndim, self->sizes, dt);
        if (!r) return AOTI_TORCH_FAILURE;
        AOTITorchError err = shimrt_k_copy(op, r, self);
        if (!err) each_elem(r, EL_SCALE, beta);
        return shimrt_k_hand_out(err, r, ret0);
    }
    AtenTensorHandle r = shimrt_k_new(op, 1, &n, dt);
    if (!r) return AOTI_TORCH_FAILURE;
    AOTITorchError err = self_or_zeros(op, r, self, beta);
    if (!err && n > 0)
        err = shimrt_k_gemm(op, dt, n, k, 1, shimrt_data(mat), mat->strides[0], mat->strides[1],
                            shimrt_data(vec), vec->strides[0], 1, shimrt_data(r), alpha, beta);
    return shimrt_k_hand_out(err, r, ret0);
}

AOTITorchError shimrt_cpu__addmm_activation(AtenTensorHandle self, AtenTensorHandle mat1,
                                            AtenTensorHandle mat2, shimrt_scalar sbeta,
                                            shimrt_scalar salpha, int32_t use_gelu,
                                            AtenTensorHandle *ret0) {
    double beta = sbeta.d, alpha = salpha.d;
    AtenTensorHandle r = NULL;
    if (int_scalars(self, mat1, mat2, &beta, &alpha) ||
        shimrt_cpu_addmm(self, mat1, mat2, shimrt_scalar_double(beta), shimrt_scalar_double(alpha),
                         &r))
        return AOTI_TORCH_FAILURE;
    if (use_gelu && !shimrt_k_is_floating(r->dtype)) {
        shimrt_tensor_free(r);
        return shimrt_fail("_addmm_activation", "\"GeluKernelImpl\" not implemented for '%s'",
                           shimrt_dtype_torch_name(self->dtype));
    }
    if (!use_gelu && shimrt_dtype_is_complex(r->dtype)) {
        shimrt_tensor_free(r);
        return shimrt_fail("_addmm_activation", "clamp is not supported for complex types");
    }
    if (!use_gelu && shimrt_k_mm_no_kernel(r->dtype)) { /* relu of bool, uint16/32/64 */
        int32_t dt = r->dtype;
        shimrt_tensor_free(r);
        return shimrt_fail("_addmm_activation", "\"clamp_min_scalar_cpu\" not implemented for '%s'",
                           shimrt_dtype_torch_name(dt));
    }
    each_elem(r, use_gelu != 0 ? EL_GELU : EL_RELU, 0.0);
    return shimrt_k_give(r, ret0);
}

AOTITorchError shimrt_cpu__int_mm_out(AtenTensorHandle out, AtenTensorHandle self,
                                      AtenTensorHandle mat2) {
    static const char op[] = "_int_mm.out";
    if (shimrt_k_check_cpu(op, out, "out") || shimrt_k_check_cpu(op, self, "self") ||
        shimrt_k_check_cpu(op, mat2, "mat2"))
        return AOTI_TORCH_FAILURE;
    if (self->ndim != 2)
        return shimrt_fail(op, "Expected self to be of dimension 2 but got %lld",
                           (long long)self->ndim);
    if (mat2->ndim != 2)
        return shimrt_fail(op, "Expected mat2 to be of dimension 2 but got %lld",
                           (long long)mat2->ndim);
    if (self->sizes[1] != mat2->sizes[0])
        return shimrt_fail(op, "self.size(1) needs to match mat2.size(0) but got %lld and %lld",
                           (long long)self->sizes[1], (long long)mat2->sizes[0]);
    if (self->dtype != SHIMRT_INT8)
        return shimrt_fail(op, "Expected self dtype to be of type int8 but got %s",
                           shimrt_dtype_torch_name(self->dtype));
    if (mat2->dtype != SHIMRT_INT8)
        return shimrt_fail(op, "Expected mat2 dtype to be of type int8 but got %s",
                           shimrt_dtype_torch_name(mat2->dtype));
    if (out->dtype != SHIMRT_INT32)
        return shimrt_fail(op, "Expected result dtype to be of type kInt but got %s",
                           shimrt_dtype_torch_name(out->dtype));
    int64_t n = self->sizes[0], k = self->sizes[1], m = mat2->sizes[1], shape[2] = {n, m};
    if (out->ndim != 2 || out->sizes[0] != n || out->sizes[1] != m) /* never resized */
        return shimrt_fail(op, "Expected result to be of size [%lld, %lld]", (long long)n,
                           (long long)m);
    AtenTensorHandle r = shimrt_k_new(op, 2, shape, SHIMRT_INT32);
    if (!r) return AOTI_TORCH_FAILURE;
    const int8_t *a = shimrt_data(self), *b = shimrt_data(mat2);
    int32_t *c = shimrt_data(r);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < m; j++) {
            uint32_t acc = 0; /* int32 accumulation, wrapping */
            for (int64_t p = 0; p < k; p++)
                acc += (uint32_t)((int32_t)a[i * self->strides[0] + p * self->strides[1]] *
                                  (int32_t)b[p * mat2->strides[0] + j * mat2->strides[1]]);
            c[i * m + j] = (int32_t)acc;
        }
    return shimrt_k_into_out(op, out, r);
}

/* _weight_int8pack_mm: self [m, k] (float32 / bfloat16 / float16) @ mat2 [n, k] (int8)^T, each
 * column scaled by scales [n]; a float32 GEMM (OpenBLAS), rounded once to self's dtype. */
AOTITorchError shimrt_cpu__weight_int8pack_mm(AtenTensorHandle self, AtenTensorHandle mat2,
                                              AtenTensorHandle scales, AtenTensorHandle *ret0) {
    static const char op[] = "_weight_int8pack_mm";
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, mat2, "mat2") ||
        shimrt_k_check_cpu(op, scales, "scales"))
        return AOTI_TORCH_FAILURE;
    int32_t dt = self->dtype;
    if (dt != SHIMRT_FLOAT32 && dt != SHIMRT_BFLOAT16 && dt != SHIMRT_FLOAT16)
        return shimrt_fail(op, "_weight_int8pack_mm : expect A to be either 32-bit or 16-bit "
                               "float tensor.");
    if (self->ndim != 2) return shimrt_fail(op, "_weight_int8pack_mm : expect A to be 2D tensor.");
    if (mat2->dtype != SHIMRT_INT8)
        return shimrt_fail(op, "_weight_int8pack_mm : expect B to be int8 tensor.");
    if (mat2->ndim != 2 || mat2->sizes[1] != self->sizes[1])
        return shimrt_fail(op, "_weight_int8pack_mm : expect B.size(1) == A.size(1).");
    int64_t m = self->sizes[0], k = self->sizes[1], n = mat2->sizes[0];
    if (k > 1 && self->strides[1] != 1)
        return shimrt_fail(op, "_weight_int8pack_mm_cpu : A must be contiguous on the last "
                               "dimension.");
    if (!shimrt_is_contiguous(mat2))
        return shimrt_fail(op, "_weight_int8pack_mm_cpu : B must be contiguous.");
    if (scales->ndim != 1 || scales->sizes[0] != n || scales->dtype != dt)
        return shimrt_fail(op,
                           "_weight_int8pack_mm : expect scales to be 1D tensor with size "
                           "%lld and A's dtype.",
                           (long long)n);
    int64_t as[2] = {m, k}, bs[2] = {n, k}, rs[2] = {m, n};
    AtenTensorHandle a = shimrt_k_new(op, 2, as, SHIMRT_FLOAT32);
    AtenTensorHandle b = a ? shimrt_k_new(op, 2, bs, SHIMRT_FLOAT32) : NULL;
    AtenTensorHandle s = b ? shimrt_k_new(op, 1, &n, SHIMRT_FLOAT32) : NULL;
    AtenTensorHandle c = s ? shimrt_k_new(op, 2, rs, SHIMRT_FLOAT32) : NULL;
    AtenTensorHandle r = c ? shimrt_k_new(op, 2, rs, dt) : NULL;
    AOTITorchError err = !r || shimrt_k_copy(op, a, self) || shimrt_k_copy(op, b, mat2) ||
                                 shimrt_k_copy(op, s, scales)
                             ? AOTI_TORCH_FAILURE
                             : AOTI_TORCH_SUCCESS;
    if (!err && m > 0 && n > 0)
        err = shimrt_k_gemm(op, SHIMRT_FLOAT32, m, k, n, shimrt_data(a), k, 1, shimrt_data(b), 1, k,
                            shimrt_data(c), 1.0, 0.0);
    if (!err) {
        float *cp = shimrt_data(c);
        const float *sp = shimrt_data(s);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) cp[i * n + j] *= sp[j];
        err = shimrt_k_copy(op, r, c);
    }
    shimrt_tensor_free(a);
    shimrt_tensor_free(b);
    shimrt_tensor_free(s);
    shimrt_tensor_free(c);
    return shimrt_k_hand_out(err, r, ret0);
}

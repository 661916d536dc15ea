/* runtime/cuda/blas.c: GEMM on CUDA tensors through cuBLAS (opened with dlopen, loader.c):
 * mm, bmm, addmm and matmul. cuBLAS is column-major; a row-major product C = A @ B is the
 * column-major product C^T = B^T @ A^T, and a row-major matrix read as column-major is its
 * transpose, so the call is gemm(B, A) with m and n swapped (the transpose trick). An
 * operand whose last two dims are row-major or column-major (a transposed view) is passed
 * as it is, with op N or T and its leading dimension; anything else (and batch dims beyond
 * one) is first made contiguous on the device. float32 computes in float32 (no TF32, as
 * PyTorch's default), float64 in float64, float16 and bfloat16 in float32. Integer and bool
 * matrices are refused, as by PyTorch's CUDA kernels. */
#include <limits.h>
#include <string.h>

#include "../generic/meta.h"
#include "cuda_internal.h"
#include "cuda_kernels.h"

/* One operand of a (batched) product: where its matrices are and how cuBLAS reads them. */
typedef struct {
    const char *data;
    int op;               /* SH_CUBLAS_OP_N / _T in the swapped call */
    long long ld, bst;    /* leading dimension, elements between batch matrices */
    AtenTensorHandle own; /* a dense copy made for it (freed by the caller) */
} gemm_operand;

static AOTITorchError gemm_types(const char *op, int32_t dt, int *ctype, int *compute) {
    switch (dt) {
    case SHIMRT_FLOAT32:
        *ctype = SH_CUDA_R_32F;
        *compute = SH_CUBLAS_COMPUTE_32F;
        break;
    case SHIMRT_FLOAT64:
        *ctype = SH_CUDA_R_64F;
        *compute = SH_CUBLAS_COMPUTE_64F;
        break;
    case SHIMRT_FLOAT16:
        *ctype = SH_CUDA_R_16F;
        *compute = SH_CUBLAS_COMPUTE_32F;
        break;
    case SHIMRT_BFLOAT16:
        *ctype = SH_CUDA_R_16BF;
        *compute = SH_CUBLAS_COMPUTE_32F;
        break;
    default:
        return shimrt_fail(op, "\"addmm_cuda\" not implemented for '%s'",
                           shimrt_dtype_torch_name(dt));
    }
    return AOTI_TORCH_SUCCESS;
}

/* x: r x c matrices over x's own batch dims, which broadcast to the product's nb batch dims
 * full_batch (`batch` matrices in all). Passed as it is when it has no batch dim or the
 * product's single one; else copied dense to [full_batch..., r, c]. */
static AOTITorchError operand(const char *op, AtenTensorHandle x, int64_t r, int64_t c,
                              int64_t nbfull, const int64_t *full_batch, int64_t batch,
                              gemm_operand *g) {
    memset(g, 0, sizeof *g);
    int64_t nd = x->ndim, xb = nd - 2; /* x's own batch dims */
    const int64_t *s = x->strides;
    bool plain_batch = xb == 0 || (xb == 1 && nbfull == 1);
    if (plain_batch) {
        int64_t sr = s[nd - 2], sc = s[nd - 1];
        long long rmin = r > 1 ? r : 1, cmin = c > 1 ? c : 1;
        bool row = (c == 1 || sc == 1) && (r == 1 ? true : sr >= cmin);
        bool col = (r == 1 || sr == 1) && (c == 1 ? true : sc >= rmin);
        if (row || col) {
            g->data = shimrt_data(x);
            /* row-major read as column-major is the transpose: op N in the swapped call */
            g->op = row ? SH_CUBLAS_OP_N : SH_CUBLAS_OP_T;
            g->ld = row ? (r == 1 ? cmin : sr) : (c == 1 ? rmin : sc);
            g->bst = xb == 1 && x->sizes[0] != 1 ? s[0] : 0;
            return AOTI_TORCH_SUCCESS;
        }
    }
    /* a dense copy [full_batch..., r, c]: the batch dims broadcast, then read as one */
    int64_t shape[SHIMRT_MAX_DIMS];
    memcpy(shape, full_batch, (size_t)nbfull * sizeof *shape);
    shape[nbfull] = r;
    shape[nbfull + 1] = c;
    g->own = shimrt_cuda_dense(op, x, nbfull + 2, shape, x->dtype);
    if (!g->own) return AOTI_TORCH_FAILURE;
    g->data = shimrt_data(g->own);
    g->op = SH_CUBLAS_OP_N;
    g->ld = c > 1 ? c : 1;
    g->bst = batch > 1 ? r * c : 0;
    return AOTI_TORCH_SUCCESS;
}

/* out (contiguous [batch dims..., m, n], CUDA) = alpha * a @ b + beta * out, for a [..., m,
 * k] and b [..., k, n] whose batch dims broadcast to full_batch (nb dims). */
static AOTITorchError gemm(const char *op, AtenTensorHandle a, AtenTensorHandle b, int64_t nb,
                           const int64_t *full_batch, AtenTensorHandle out, double alpha,
                           double beta) {
    int64_t m = a->sizes[a->ndim - 2], k = a->sizes[a->ndim - 1], n = b->sizes[b->ndim - 1];
    int64_t batch = 1;
    for (int64_t i = 0; i < nb; i++) batch *= full_batch[i];
    if (m == 0 || n == 0 || batch == 0) return AOTI_TORCH_SUCCESS;
    if (k == 0) { /* an empty sum: beta * out */
        if (beta == 0) return shimrt_cuda_do_fill(out, 0.0);
        AtenTensorHandle t = NULL;
        if (shimrt_cuda_binary_scalar("mul", out, shimrt_scalar_double(beta), 1.0, &t))
            return AOTI_TORCH_FAILURE;
        AOTITorchError rc = shimrt_cuda_do_copy(out, t);
        shimrt_tensor_free(t);
        return rc;
    }
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX || batch > INT_MAX)
        return shimrt_fail(op, "matrix sizes beyond %d are not supported by cuBLAS here", INT_MAX);
    int atype, ctype, compute, ccompute; /* out of another dtype: mm.dtype_out's fp32 out */
    if (gemm_types(op, a->dtype, &atype, &compute) || gemm_types(op, out->dtype, &ctype, &ccompute))
        return AOTI_TORCH_FAILURE;
    const shimrt_cublas_api *bl = shimrt_cublas(op);
    if (!bl) return AOTI_TORCH_FAILURE;
    gemm_operand ga, gb;
    if (operand(op, a, m, k, nb, full_batch, batch, &ga)) return AOTI_TORCH_FAILURE;
    if (operand(op, b, k, n, nb, full_batch, batch, &gb)) {
        shimrt_tensor_free(ga.own);
        return AOTI_TORCH_FAILURE;
    }
    void *h = NULL;
    shimrt_cuda_ctx_guard g; /* out's device current for the handle and the GEMM */
    if (shimrt_cuda_enter(op, out->device_index, &g, NULL)) {
        shimrt_tensor_free(ga.own);
        shimrt_tensor_free(gb.own);
        return AOTI_TORCH_FAILURE;
    }
    if (shimrt_cuda_blas_handle(op, out->device_index, &h)) {
        shimrt_cuda_leave(&g);
        shimrt_tensor_free(ga.own);
        shimrt_tensor_free(gb.own);
        return AOTI_TORCH_FAILURE;
    }
    float af = (float)alpha, bf = (float)beta;
    const void *pa = compute == SH_CUBLAS_COMPUTE_64F ? (const void *)&alpha : (const void *)&af;
    const void *pb = compute == SH_CUBLAS_COMPUTE_64F ? (const void *)&beta : (const void *)&bf;
    int st;
    /* row-major C[m,n] = A @ B  <=>  column-major C^T[n,m] = B^T @ A^T */
    if (batch == 1)
        st = bl->cublasGemmEx(h, gb.op, ga.op, (int)n, (int)m, (int)k, pa, gb.data, atype,
                              (int)gb.ld, ga.data, atype, (int)ga.ld, pb, shimrt_data(out), ctype,
                              (int)n, compute, SH_CUBLAS_GEMM_DEFAULT);
    else
        st = bl->cublasGemmStridedBatchedEx(h, gb.op, ga.op, (int)n, (int)m, (int)k, pa, gb.data,
                                            atype, (int)gb.ld, gb.bst, ga.data, atype, (int)ga.ld,
                                            ga.bst, pb, shimrt_data(out), ctype, (int)n, m * n,
                                            (int)batch, compute, SH_CUBLAS_GEMM_DEFAULT);
    shimrt_cuda_leave(&g);
    shimrt_tensor_free(ga.own);
    shimrt_tensor_free(gb.own);
    if (st != 0)
        return shimrt_fail(op, "%s failed with cuBLAS status %d",
                           batch == 1 ? "cublasGemmEx" : "cublasGemmStridedBatchedEx", st);
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError check_pair(const char *op, AtenTensorHandle a, const char *an,
                                 AtenTensorHandle b, const char *bn) {
    if (shimrt_k_check_defined(op, a, an) || shimrt_k_check_defined(op, b, bn))
        return AOTI_TORCH_FAILURE;
    if (a->device_type != SHIMRT_DEV_CUDA || b->device_type != SHIMRT_DEV_CUDA ||
        a->device_index != b->device_index)
        return shimrt_fail(op, "Expected all tensors to be on the same device, but found at "
                               "least two devices");
    if (a->dtype != b->dtype)
        return shimrt_fail(op, "expected m1 and m2 to have the same dtype, but got: %s != %s",
                           shimrt_dtype_name(a->dtype), shimrt_dtype_name(b->dtype));
    int ct, cp;
    return gemm_types(op, a->dtype, &ct, &cp);
}

static AtenTensorHandle new_out(const char *op, AtenTensorHandle like, int64_t nd,
                                const int64_t *shape) {
    return shimrt_tensor_empty(op, nd, shape, NULL, like->dtype, SHIMRT_DEV_CUDA,
                               like->device_index);
}

/* mm (batch false) and bmm (batch true): checks, a new output, one GEMM call. */
static AOTITorchError product(const char *op, AtenTensorHandle self, AtenTensorHandle mat2,
                              bool batch, AtenTensorHandle *ret0) {
    int64_t shape[3];
    if (check_pair(op, self, "self", mat2, "mat2") ||
        (batch ? shimrt_k_bmm_shape(op, self, mat2, shape)
               : shimrt_k_mm_shape(op, self, "self", mat2, shape)))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle out = new_out(op, self, batch ? 3 : 2, shape);
    if (!out) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(gemm(op, self, mat2, batch, batch ? shape : NULL, out, 1.0, 0.0), out,
                             ret0);
}

AOTITorchError shimrt_cuda_mm(AtenTensorHandle self, AtenTensorHandle mat2,
                              AtenTensorHandle *ret0) {
    SHIMRT_CHECK_ARG(ret0);
    return product("mm", self, mat2, false, ret0);
}

AOTITorchError shimrt_cuda_bmm(AtenTensorHandle self, AtenTensorHandle mat2,
                               AtenTensorHandle *ret0) {
    SHIMRT_CHECK_ARG(ret0);
    return product("bmm", self, mat2, true, ret0);
}

AOTITorchError shimrt_cuda_addmm(AtenTensorHandle self, AtenTensorHandle mat1,
                                 AtenTensorHandle mat2, shimrt_scalar sbeta, shimrt_scalar salpha,
                                 AtenTensorHandle *ret0) {
    static const char op[] = "addmm";
    double beta = sbeta.d, alpha = salpha.d; /* by value, as the CPU kernel */
    SHIMRT_CHECK_ARG(ret0);
    if (check_pair(op, mat1, "mat1", mat2, "mat2") || shimrt_k_check_defined(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    int64_t shape[2], bs[SHIMRT_MAX_DIMS], bn;
    if (shimrt_k_mm_shape(op, mat1, "mat1", mat2, shape)) return AOTI_TORCH_FAILURE;
    if (self->dtype != mat1->dtype)
        return shimrt_fail(op, "self and mat2 must have the same dtype, but got %s and %s",
                           shimrt_dtype_name(self->dtype), shimrt_dtype_name(mat2->dtype));
    if (self->ndim > 2 || shimrt_k_broadcast(op, self->ndim, self->sizes, 2, shape, bs, &bn) ||
        bs[0] != shape[0] || bs[1] != shape[1])
        return shimrt_fail(op, "self of shape [%lld...] cannot be broadcast to [%lld, %lld]",
                           (long long)(self->ndim ? self->sizes[0] : 1), (long long)shape[0],
                           (long long)shape[1]);
    AtenTensorHandle out = NULL;
    if (beta == 0) { /* PyTorch ignores self (NaN included) when beta is 0 */
        out = new_out(op, mat1, 2, shape);
    } else {
        out = shimrt_cuda_dense(op, self, 2, shape, self->dtype);
    }
    if (!out) return AOTI_TORCH_FAILURE;
    return shimrt_k_hand_out(gemm(op, mat1, mat2, 0, NULL, out, alpha, beta), out, ret0);
}

static AOTITorchError matmul2(const char *op, AtenTensorHandle self, AtenTensorHandle other,
                              AtenTensorHandle pa, AtenTensorHandle pb, AtenTensorHandle *ret0);

/* matmul: 1-D operands get a dim of size 1 (removed from the result), batch dims
 * broadcast (PyTorch's rules, as the CPU kernel). */
AOTITorchError shimrt_cuda_matmul(AtenTensorHandle self, AtenTensorHandle other,
                                  AtenTensorHandle *ret0) {
    static const char op[] = "matmul";
    SHIMRT_CHECK_ARG(ret0);
    if (shimrt_k_check_defined(op, self, "self") || shimrt_k_check_defined(op, other, "other"))
        return AOTI_TORCH_FAILURE;
    if (self->ndim == 0 || other->ndim == 0)
        return shimrt_fail(op,
                           "both arguments to matmul need to be at least 1D, but they are "
                           "%lldD and %lldD",
                           (long long)self->ndim, (long long)other->ndim);
    if (check_pair(op, self, "self", other, "other")) return AOTI_TORCH_FAILURE;
    /* views with the 1-D operands made 2-D: [1, k] and [k, 1] */
    AtenTensorHandle va = NULL, vb = NULL;
    if (self->ndim == 1 && shimrt_unsqueeze(self, 0, &va)) return AOTI_TORCH_FAILURE;
    if (other->ndim == 1 && shimrt_unsqueeze(other, 1, &vb)) {
        shimrt_tensor_free(va);
        return AOTI_TORCH_FAILURE;
    }
    AOTITorchError rc = matmul2(op, self, other, va ? va : self, vb ? vb : other, ret0);
    shimrt_tensor_free(va);
    shimrt_tensor_free(vb);
    return rc;
}

static AOTITorchError matmul2(const char *op, AtenTensorHandle self, AtenTensorHandle other,
                              AtenTensorHandle pa, AtenTensorHandle pb, AtenTensorHandle *ret0) {
    const struct AtenTensorOpaque a = *pa, b = *pb;
    int64_t full[SHIMRT_MAX_DIMS], rshape[SHIMRT_MAX_DIMS], nb = 0, rn = 0;
    if (shimrt_k_matmul_shape(op, self, other, &a, &b, full, &nb, rshape, &rn))
        return AOTI_TORCH_FAILURE;
    AtenTensorHandle out = new_out(op, self, nb + 2, full);
    if (!out) return AOTI_TORCH_FAILURE;
    /* an operand with fewer batch dims than the product is broadcast by a dense copy
     * (operand() passes only x's own single batch dim through) */
    AOTITorchError rc = gemm(op, pa, pb, nb, full, out, 1.0, 0.0);
    if (!rc && rn != nb + 2) { /* drop the dims of the 1-D operands */
        AtenTensorHandle v = NULL;
        rc = shimrt_view(out, rshape, rn, &v);
        shimrt_tensor_free(out);
        out = v;
    }
    return shimrt_k_hand_out(rc, out, ret0);
}

/* ---- the .out forms (AOTInductor's extern GEMMs call aoti_torch_cuda_mm_out & co) ------ */
/* out: a CUDA tensor on the operands' device of their dtype (PyTorch's out rules), resized
 * to shape when its shape differs. Then target = beta * bias + alpha * a @ b, written straight
 * into out when out is contiguous and shares no memory with an operand, else into a
 * temporary (the bias broadcast densely) copied into out on the device. */
static AOTITorchError gemm_out(const char *op, AtenTensorHandle out, AtenTensorHandle bias,
                               AtenTensorHandle a, AtenTensorHandle b, bool batch,
                               const int64_t *shape, double beta, double alpha, int32_t odt) {
    int64_t nd = batch ? 3 : 2;
    if (shimrt_k_check_defined(op, out, "out") ||
        shimrt_cuda_check_tensor(op, out, "out", a->device_index))
        return AOTI_TORCH_FAILURE;
    if (out->dtype != odt)
        return shimrt_fail(op, "Expected out tensor to have dtype %s, but got %s instead",
                           shimrt_dtype_meta_name(odt), shimrt_dtype_meta_name(out->dtype));
    if (bias && beta != 0) {
        int64_t bs[SHIMRT_MAX_DIMS], bn = 0;
        if (shimrt_cuda_check_tensor(op, bias, "self", a->device_index)) return AOTI_TORCH_FAILURE;
        if (bias->dtype != a->dtype)
            return shimrt_fail(op, "self and mat2 must have the same dtype, but got %s and %s",
                               shimrt_dtype_name(bias->dtype), shimrt_dtype_name(b->dtype));
        bool ok = bias->ndim <= nd &&
                  !shimrt_k_broadcast(op, bias->ndim, bias->sizes, nd, shape, bs, &bn) && bn == nd;
        for (int64_t i = 0; ok && i < nd; i++) ok = bs[i] == shape[i];
        if (!ok)
            return shimrt_fail(op, "the size of self cannot be broadcast to the result's shape");
    } else {
        bias = NULL; /* PyTorch ignores self (NaN included) when beta is 0 */
    }
    if (shimrt_resize_output(op, out, nd, shape)) return AOTI_TORCH_FAILURE;
    bool direct = !bias && shimrt_is_contiguous(out) && !shimrt_k_may_overlap(out, a) &&
                  !shimrt_k_may_overlap(out, b);
    AtenTensorHandle t =
        direct ? out
        : bias ? shimrt_cuda_dense(op, bias, nd, shape, bias->dtype)
               : shimrt_tensor_empty(op, nd, shape, NULL, odt, SHIMRT_DEV_CUDA, a->device_index);
    if (!t) return AOTI_TORCH_FAILURE;
    AOTITorchError rc = gemm(op, a, b, batch, batch ? shape : NULL, t, alpha, bias ? beta : 0.0);
    if (t != out) {
        if (!rc) rc = shimrt_cuda_do_copy(out, t);
        shimrt_tensor_free(t);
    }
    return rc;
}

/* mm, bmm (no self: beta 0, alpha 1) and addmm, baddbmm (with_self: self checked as defined,
 * beta and alpha by value, as the CPU kernel) into out: a and b checked as a pair and for their
 * shapes, batched ([B, n, k] @ [B, k, m]) or not; the result in a's dtype. */
static AOTITorchError gemm_op_out(const char *op, AtenTensorHandle out, bool with_self,
                                  AtenTensorHandle self, AtenTensorHandle a, const char *a_name,
                                  AtenTensorHandle b, const char *b_name, bool batched, double beta,
                                  double alpha) {
    int64_t shape[3];
    if (check_pair(op, a, a_name, b, b_name) ||
        (with_self && shimrt_k_check_defined(op, self, "self")) ||
        (batched ? shimrt_k_bmm_shape(op, a, b, shape)
                 : shimrt_k_mm_shape(op, a, a_name, b, shape)))
        return AOTI_TORCH_FAILURE;
    return gemm_out(op, out, self, a, b, batched, shape, beta, alpha, a->dtype);
}

AOTITorchError shimrt_cuda_mm_out(AtenTensorHandle out, AtenTensorHandle self,
                                  AtenTensorHandle mat2) {
    return gemm_op_out("mm.out", out, false, NULL, self, "self", mat2, "mat2", false, 0.0, 1.0);
}

AOTITorchError shimrt_cuda_bmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                   AtenTensorHandle mat2) {
    return gemm_op_out("bmm.out", out, false, NULL, self, "self", mat2, "mat2", true, 0.0, 1.0);
}

AOTITorchError shimrt_cuda_addmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                     AtenTensorHandle mat1, AtenTensorHandle mat2,
                                     shimrt_scalar beta, shimrt_scalar alpha) {
    return gemm_op_out("addmm.out", out, true, self, mat1, "mat1", mat2, "mat2", false, beta.d,
                       alpha.d);
}

AOTITorchError shimrt_cuda_baddbmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                       AtenTensorHandle batch1, AtenTensorHandle batch2,
                                       shimrt_scalar beta, shimrt_scalar alpha) {
    return gemm_op_out("baddbmm.out", out, true, self, batch1, "batch1", batch2, "batch2", true,
                       beta.d, alpha.d);
}

/* mm.dtype_out: PyTorch's checks (aten/src/ATen/native/cuda/Blas.cpp), then one GEMM with
 * float16/bfloat16 inputs and a float32 out (cuBLAS accumulates in float32 either way). */
AOTITorchError shimrt_cuda_mm_dtype_out(AtenTensorHandle out, AtenTensorHandle self,
                                        AtenTensorHandle mat2, int32_t out_dtype) {
    static const char op[] = "mm.dtype_out";
    if (shimrt_k_check_defined(op, self, "self") || shimrt_k_check_defined(op, mat2, "mat2") ||
        shimrt_k_check_defined(op, out, "out"))
        return AOTI_TORCH_FAILURE;
    if (self->ndim != 2)
        return shimrt_fail(op, "self must be a matrix, got %lld-D tensor", (long long)self->ndim);
    if (mat2->ndim != 2)
        return shimrt_fail(op, "mat2 must be a matrix, got %lld-D tensor", (long long)mat2->ndim);
    int64_t shape[2];
    if (shimrt_k_mm_shape(op, self, "self", mat2, shape)) return AOTI_TORCH_FAILURE;
    if (out->dtype != out_dtype)
        return shimrt_fail(op,
                           "out_dtype must be the same as the dtype of the provided out tensor");
    if (self->dtype != mat2->dtype) return shimrt_fail(op, "input dtypes must be the same");
    if (out_dtype != self->dtype &&
        !(out_dtype == SHIMRT_FLOAT32 &&
          (self->dtype == SHIMRT_FLOAT16 || self->dtype == SHIMRT_BFLOAT16)))
        return shimrt_fail(
            op, "out_dtype must be the same as input dtype or fp32 for fp16/bf16 inputs");
    if (check_pair(op, self, "self", mat2, "mat2")) return AOTI_TORCH_FAILURE;
    return gemm_out(op, out, NULL, self, mat2, false, shape, 0.0, 1.0, out_dtype);
}

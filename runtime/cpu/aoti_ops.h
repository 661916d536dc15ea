/* runtime/cpu/aoti_ops.h: helpers shared by the kernels of the c_shim_cpu.h functions that
 * AOTInductor CPU graphs call (issue 19: blas_ops.c, conv.c, attention.c, sortops.c,
 * pool.c, ...). Private to the runtime. */
#ifndef SHIMRT_CPU_AOTI_OPS_H
#define SHIMRT_CPU_AOTI_OPS_H
#include <stdbool.h>
#include <stdint.h>

#include "../core/internal.h"
#include "../generic/meta.h"
#include "iter.h"

/* C11's CMPLX (a complex from two reals, inf and NaN parts kept as given), which glibc's
 * <complex.h> defines only for GCC (clang builds the fuzzers); for the files that include
 * <complex.h> before this header. */
#if defined(_Complex_I) && !defined(CMPLX)
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif

/* c (n x m, contiguous rows of m) = alpha * a(n x k) @ b(k x m) + beta * c (beta == 0: c is
 * not read). a and b are given by element strides per row and column; float32/float64 go to
 * OpenBLAS, other dtypes to a plain loop (linalg.c). */
AOTITorchError shimrt_k_gemm(const char *op, int32_t dt, int64_t n, int64_t k, int64_t m,
                             const void *a, int64_t ars, int64_t acs, const void *b, int64_t brs,
                             int64_t bcs, void *c, double alpha, double beta);
/* addmm's beta and alpha as PyTorch's gemm takes them, converted (checked) to the product's
 * opmath type (float for float16 and bfloat16, else the dtype itself): a value beyond it
 * fails with PyTorch's message when a product is computed (n, k, m all non-zero); for the
 * float opmath beta (and alpha, with a product) is then rounded to float in place. */
AOTITorchError shimrt_k_gemm_scalars(const char *op, int32_t dt, int64_t n, int64_t k, int64_t m,
                                     double *beta, double *alpha);
/* shimrt_k_gemm for one matrix of bmm / baddbmm: PyTorch's own unfused loop below 400
 * multiply-adds per matrix (special values as PyTorch's, linalg.c). */
AOTITorchError shimrt_k_gemm_bmm(const char *op, int32_t dt, int64_t n, int64_t k, int64_t m,
                                 const void *a, int64_t ars, int64_t acs, const void *b,
                                 int64_t brs, int64_t bcs, void *c, double alpha, double beta);

/* The dtype checks of the products (linalg.c): shimrt_k_check_dtype, also letting through
 * complex64/128 and the dtypes PyTorch has no product kernel for (bool, uint16/32/64,
 * complex32: shimrt_k_mm_no_kernel), which shimrt_k_mm_kernel_check refuses, with PyTorch's
 * message naming kernel, once n, k and m are all nonzero. */
bool shimrt_k_mm_no_kernel(int32_t dt);
AOTITorchError shimrt_k_check_mm_dtype(const char *op, AtenTensorHandle t, const char *name);
AOTITorchError shimrt_k_mm_kernel_check(const char *op, const char *kernel, int32_t dt, int64_t n,
                                        int64_t k, int64_t m);

/* OpenBLAS's one-time setup (core type, thread count) that the first product runs; for
 * callers of OpenBLAS's LAPACK (lapack.c). */
void shimrt_k_blas_init(void);

/* An out variant's last step: out must have r's dtype (PyTorch's message otherwise), is
 * resized to r's shape as PyTorch resizes outs, and takes r's values. r (a new tensor, or
 * NULL after a failure that set the message) is always freed. */
AOTITorchError shimrt_k_into_out(const char *op, AtenTensorHandle out, AtenTensorHandle r);

/* A new contiguous CPU tensor (NULL with the message set). */
AtenTensorHandle shimrt_k_new(const char *op, int64_t ndim, const int64_t *sizes, int32_t dtype);

/* PyTorch's suggest_memory_format test for rank 4 / 5 (is_channels_last_strides_2d / _3d):
 * t's strides order its dims as channels-last does (conv.c). */
bool shimrt_k_strides_like_cl(const struct AtenTensorOpaque *t);

/* PyTorch's to_impl (to.dtype, to.dtype_layout; fill_copy.c): self itself (a new handle) when
 * nothing changes (to_will_alias: dt is self's dtype, same_dev, no copy asked, memory format
 * fmt preserve or the one self suggests), else _to_copy: a new tensor on dev in format fmt
 * (preserve: self's strides when dense, else infer_dense_strides) holding self's values
 * converted to dt. */
AOTITorchError shimrt_k_to(const char *op, AtenTensorHandle self, int32_t dt, int32_t dev,
                           bool same_dev, bool copy, int32_t fmt, AtenTensorHandle *ret0);

/* attention.c, for its backward (attention_backward.c): t itself when it has dtype dt, else
 * a new copy in dt (NULL with the message set); and PyTorch's checks of q, k, v, dropout and
 * the mask (mst: the mask's strides broadcast to [B, Hq, L, S], zeros without one). */
AtenTensorHandle shimrt_attn_widen(AtenTensorHandle t, int32_t dt);
/* c10::complex's x / y (Smith's scaling; 0 / 0 gives NaN parts), each step rounded to float
 * when f (complex<float>), else in double (complex.c) */
double _Complex shimrt_k_cdiv(bool f, double _Complex x, double _Complex y);
AOTITorchError shimrt_attn_check(AtenTensorHandle query, AtenTensorHandle key,
                                 AtenTensorHandle value, double dropout_p,
                                 AtenTensorHandle attn_mask, int64_t mst[4]);
#endif

/* runtime/cpu/iter.h: what the CPU kernels share (private to runtime/cpu/).
 *
 * - shimrt_k_iter: an N-d strided walk over up to SHIMRT_K_MAX_OPS operands that share one
 *   (broadcast) shape. Dimensions are coalesced where every operand allows it, then an inner
 *   loop function gets a run of elements along the innermost dimension.
 * - dtype support for computing: element loads/stores through double or int64, PyTorch's
 *   type promotion (promote_types and the dim / zero-dim / wrapped-number result type).
 * - shape helpers: broadcasting, dimension wrapping, shape formatting for messages.
 * - tensor helpers: argument checks and new tensors that share or own storage.
 * Every function that can fail sets the thread's message (shimrt_fail) with the op name
 * passed in `op` ("add.Tensor") and returns AOTI_TORCH_FAILURE, or NULL for a handle. */
#ifndef SHIMRT_CPU_ITER_H
#define SHIMRT_CPU_ITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/internal.h"

/* ---- strided iteration ------------------------------------------------------------- */
#define SHIMRT_K_MAX_OPS 3

typedef struct shimrt_k_iter {
    int64_t ndim;
    int64_t shape[SHIMRT_MAX_DIMS];
    int nops;
    char *data[SHIMRT_K_MAX_OPS];
    int64_t strides[SHIMRT_K_MAX_OPS][SHIMRT_MAX_DIMS]; /* in bytes */
} shimrt_k_iter;

/* Called for each run of n elements: operand k's first element is at data[k] and the
 * next ones follow every strides[k] bytes. */
typedef void (*shimrt_k_loop_fn)(char **data, const int64_t *strides, int64_t n, void *ctx);

/* Starts an iteration over `shape` (ndim <= SHIMRT_MAX_DIMS; the caller checked). */
void shimrt_k_iter_init(shimrt_k_iter *it, int64_t ndim, const int64_t *shape);
/* Adds an operand. Its sizes are aligned to the right of the iteration shape; a missing or
 * size-1 dimension is broadcast (stride 0). strides are in elements; data is borrowed. */
void shimrt_k_iter_add(shimrt_k_iter *it, void *data, int64_t ndim, const int64_t *sizes,
                       const int64_t *strides, size_t elsize);
/* Adds a tensor's data, sizes and strides as an operand. */
void shimrt_k_iter_add_tensor(shimrt_k_iter *it, const struct AtenTensorOpaque *t);
/* Coalesces dimensions, then calls fn over every element (nothing for 0 elements). */
void shimrt_k_iter_run(shimrt_k_iter *it, shimrt_k_loop_fn fn, void *ctx);

/* ---- dtypes ------------------------------------------------------------------------ */
/* True for the dtypes the kernels compute on: bool, uint8, int8/16/32/64, float16,
 * bfloat16, float32, float64. */
bool shimrt_k_dtype_ok(int32_t dtype);
bool shimrt_k_is_floating(int32_t dtype); /* float16, bfloat16, float32, float64 */
bool shimrt_k_is_integral(int32_t dtype); /* uint8, int8..int64 (not bool) */
/* PyTorch's promote_types over the computable dtypes; -1 if either is not computable. */
int32_t shimrt_k_promote(int32_t a, int32_t b);

/* PyTorch's result_type: tensors with dims outrank zero-dim tensors, which outrank wrapped
 * numbers (Python scalars), except that a higher category (bool < integral < floating)
 * always wins. Start with shimrt_k_rt_init, add operands, read with shimrt_k_rt_result. */
typedef struct { int32_t dim, zero, wrapped; } shimrt_k_result_type;
void shimrt_k_rt_init(shimrt_k_result_type *s);
void shimrt_k_rt_add_tensor(shimrt_k_result_type *s, const struct AtenTensorOpaque *t);
/* A Scalar argument: integral values count as int64 numbers, others as float32 (the
 * default dtype), as PyTorch treats Python ints and floats (the C ABI passes doubles). */
void shimrt_k_rt_add_scalar(shimrt_k_result_type *s, double v);
int32_t shimrt_k_rt_result(const shimrt_k_result_type *s);

/* Element access through a wide type. Float to integer conversion saturates to the
 * target's range (NaN gives 0); any nonzero value stores as true in bool. */
double shimrt_k_load_f64(const char *p, int32_t dtype);
int64_t shimrt_k_load_i64(const char *p, int32_t dtype);
void shimrt_k_store_f64(char *p, int32_t dtype, double v);
void shimrt_k_store_i64(char *p, int32_t dtype, int64_t v);
/* Saturating double -> int64 (NaN gives 0). */
int64_t shimrt_k_f2i(double v);

/* ---- shapes ------------------------------------------------------------------------ */
/* Writes "[2, 3]" (truncated with "...") into buf and returns buf. */
const char *shimrt_k_fmt_shape(char *buf, size_t n, int64_t ndim, const int64_t *sizes);
/* Broadcasts two shapes into out (room for SHIMRT_MAX_DIMS) and *out_ndim; fails naming
 * both shapes when they are incompatible. */
AOTITorchError shimrt_k_broadcast(const char *op, int64_t na, const int64_t *a, int64_t nb,
                                  const int64_t *b, int64_t *out, int64_t *out_ndim);
/* Wraps a possibly negative dim into [0, ndim) (a 0-dim tensor accepts -1 and 0, giving
 * 0); fails with PyTorch's "Dimension out of range" message. */
AOTITorchError shimrt_k_wrap_dim(const char *op, int64_t dim, int64_t ndim, int64_t *out);
/* Product of sizes; false when it overflows int64. */
bool shimrt_k_numel(int64_t ndim, const int64_t *sizes, int64_t *out);

/* ---- tensors ------------------------------------------------------------------------ */
/* Fails when t is an undefined tensor (aoti_torch_new_uninitialized_tensor). */
AOTITorchError shimrt_k_check_defined(const char *op, const struct AtenTensorOpaque *t,
                                      const char *argname);
/* Fails unless t is defined, strided and lives on the CPU (argname names the argument in
 * the message). */
AOTITorchError shimrt_k_check_cpu(const char *op, const struct AtenTensorOpaque *t,
                                  const char *argname);
/* Fails unless t's dtype is computable (shimrt_k_dtype_ok). */
AOTITorchError shimrt_k_check_dtype(const char *op, const struct AtenTensorOpaque *t,
                                    const char *argname);
/* A new handle over t's storage with other sizes/strides/offset (a view): a new
 * reference, or NULL with the message set. */
AtenTensorHandle shimrt_k_alias(const char *op, const struct AtenTensorOpaque *t, int64_t ndim,
                                const int64_t *sizes, const int64_t *strides,
                                int64_t storage_offset);
/* A new tensor with fresh storage on t's device (strides NULL: contiguous). */
AtenTensorHandle shimrt_k_empty_like_dev(const char *op, const struct AtenTensorOpaque *t,
                                         int64_t ndim, const int64_t *sizes,
                                         const int64_t *strides, int32_t dtype);
/* True when t's strides cover its elements densely without overlap (any order). */
bool shimrt_k_dense(const struct AtenTensorOpaque *t);
/* Dense strides with t's layout order (for preserve_format): t's own strides when dense,
 * else dense strides ordered by t's strides (ties keep the row-major order). */
void shimrt_k_preserve_strides(const struct AtenTensorOpaque *t, int64_t *strides);
/* True when two elements of t may share memory (a stride 0 over a dim of size > 1). */
bool shimrt_k_internal_overlap(const struct AtenTensorOpaque *t);
/* True when the memory ranges spanned by a and b intersect. */
bool shimrt_k_may_overlap(const struct AtenTensorOpaque *a, const struct AtenTensorOpaque *b);

/* Copies src into dst (src broadcast to dst's shape, dtypes converted), both on the CPU
 * with computable dtypes or the same dtype. Handles overlapping src/dst via a temporary. */
AOTITorchError shimrt_k_copy(const char *op, struct AtenTensorOpaque *dst,
                             const struct AtenTensorOpaque *src);
/* Sets every element of t (CPU) to v converted to t's dtype: integers truncate toward zero
 * and wrap, bool is v != 0. A dtype that is not computable is filled with zero bytes
 * (callers pass v == 0 only then). */
void shimrt_k_fill(struct AtenTensorOpaque *t, double v);

#endif

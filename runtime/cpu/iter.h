/* runtime/cpu/iter.h: what the CPU kernels share (private to runtime/cpu/), on top of the
 * device-neutral helpers of runtime/generic/meta.h (dtype promotion, shapes, tensor checks).
 *
 * - shimrt_k_iter: an N-d strided walk over up to SHIMRT_K_MAX_OPS operands that share one
 *   (broadcast) shape. Dimensions are coalesced where every operand allows it, then an inner
 *   loop function gets a run of elements along the innermost dimension.
 * - element loads/stores through double or int64.
 * - copies and fills (the engine's).
 * Every function that can fail sets the thread's message (shimrt_fail) with the op name
 * passed in `op` ("add.Tensor") and returns AOTI_TORCH_FAILURE, or NULL for a handle. */
#ifndef SHIMRT_CPU_ITER_H
#define SHIMRT_CPU_ITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/internal.h"
#include "../generic/meta.h"

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

/* PyTorch's TensorIterator layout of a new output of shape[0..nd) over the inputs
 * ins[0..nin) (scalar_operand: one more input, a wrapped 0-d Scalar, as in add.Scalar),
 * strides in elements into ostr. fast_set_up first: inputs all of the output's shape and
 * all contiguous give contiguous strides, all channels-last contiguous (rank 4) channels-
 * last strides, all non-overlapping and dense with equal strides those strides; else the
 * dims sorted by the inputs' strides (reorder_dimensions: shimrt_k_layout_perm, a size-1
 * dim that stays size 1 keeps its stride) and dense strides in that order, a size 0
 * zeroing the ones outside it (compatible_stride), or contiguous when the order is the
 * default one. */
void shimrt_k_iter_out_strides(int nin, const struct AtenTensorOpaque *const *ins,
                               bool scalar_operand, int32_t common, int nkeep, int64_t nd,
                               const int64_t *shape, int64_t *ostr);

/* ---- element access (loads: shimrt_k_load_f64/_i64 in core/internal.h) ------------ */
/* Stores through a wide type: float64 to dtype converts as `to` does (the engine's cast
 * tables, PyTorch's conversions), integer to a narrower integer wraps; any nonzero value
 * stores as true in bool. A dtype that is not computable is left unwritten. */
void shimrt_k_store_f64(char *p, int32_t dtype, double v);
void shimrt_k_store_i64(char *p, int32_t dtype, int64_t v);

/* uint16/32/64 lie outside the kernel engine; PyTorch reduces and scans them as values of
 * another dtype (int64 for sum and cumsum, bool for all/any, the dtype asked for): *as_copy
 * becomes a new self.to(as) when self is one of them and `as` is one of the engine's dtypes,
 * else NULL (the caller frees it). */
AOTITorchError shimrt_k_unsigned_as(struct AtenTensorOpaque *self, int32_t as,
                                    struct AtenTensorOpaque **as_copy);

/* Copies src into dst (src broadcast to dst's shape, dtypes converted), both on the CPU
 * with computable dtypes or the same dtype. Handles overlapping src/dst via a temporary. */
AOTITorchError shimrt_k_copy(const char *op, struct AtenTensorOpaque *dst,
                             const struct AtenTensorOpaque *src);
/* Sets every element of t (CPU) to v converted to t's dtype: integers truncate toward zero
 * and wrap, bool is v != 0. A dtype that is not computable is filled with zero bytes
 * (callers pass v == 0 only then). */
void shimrt_k_fill(struct AtenTensorOpaque *t, double v);

#endif

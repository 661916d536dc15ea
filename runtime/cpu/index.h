/* runtime/cpu/index.h: the indexing kernels of runtime/cpu/index.c (private).
 * Every handle is borrowed; results are written into `out`, which the caller allocated
 * with the result's shape and dtype (for scatter*, index_put: self's). Each returns a code
 * with the thread's message set, naming `op`. */
#ifndef SHIMRT_CPU_INDEX_H
#define SHIMRT_CPU_INDEX_H
#include <stdbool.h>
#include <stdint.h>

#include "../core/internal.h"

/* Element access for the dtypes of shimrt_idx_numeric (bool, uint8, int8..int64, float16,
 * bfloat16, float32, float64) through long double (exact for every int64 and double). */
bool shimrt_idx_numeric(int32_t dtype);
long double shimrt_idx_load(const char *p, int32_t dtype);
void shimrt_idx_store(char *p, int32_t dtype, long double x);
/* a + b and a * b as PyTorch computes them in dtype dt: integer dtypes in 64-bit two's
 * complement wrapped to dt's width (PyTorch accumulates in dt: a uint8 sum wraps at 256), floating and
 * bool exactly in long double (the store rounds). Operands are values of dt. */
long double shimrt_idx_add(int32_t dt, long double a, long double b);
long double shimrt_idx_mul(int32_t dt, long double a, long double b);
/* Address of the element of t at multi-index idx (t->ndim entries). */
char *shimrt_idx_at(AtenTensorHandle t, const int64_t *idx);
/* Advances a row-major multi-index over sizes; false after the last one. */
bool shimrt_idx_next(int64_t ndim, const int64_t *sizes, int64_t *idx);
/* Wraps a possibly negative dim into [0, ndim) (a 0-dim tensor accepts -1 and 0). */
AOTITorchError shimrt_idx_wrap_dim(const char *op, int64_t *dim, int64_t ndim);
AOTITorchError shimrt_idx_scatter(const char *op, AtenTensorHandle out, AtenTensorHandle self,
                                  int64_t dim, AtenTensorHandle index, AtenTensorHandle src);
/* scatter_reduce into out (self's values first when include_self). reduce: sum, prod,
 * mean, amax, amin; _legacy: scatter.reduce's names (add, multiply), self included. As
 * PyTorch's meta, out is resized before the reduce name is checked. */
AOTITorchError shimrt_idx_scatter_reduce(const char *op, AtenTensorHandle out,
                                         AtenTensorHandle self, int64_t dim, AtenTensorHandle index,
                                         AtenTensorHandle src, const char *reduce,
                                         bool include_self);
AOTITorchError shimrt_idx_scatter_reduce_legacy(const char *op, AtenTensorHandle out,
                                                AtenTensorHandle self, int64_t dim,
                                                AtenTensorHandle index, AtenTensorHandle src,
                                                const char *reduce);
AOTITorchError shimrt_idx_gather(const char *op, AtenTensorHandle self, int64_t dim,
                                 AtenTensorHandle index, AtenTensorHandle out);
AOTITorchError shimrt_idx_index_select(const char *op, AtenTensorHandle self, int64_t dim,
                                       AtenTensorHandle index, AtenTensorHandle out);
#endif

/* runtime/generic/meta.h: device-neutral helpers for kernels of any backend (private to
 * runtime/): PyTorch's dtype classes and type promotion, shape helpers (broadcasting,
 * dimension wrapping, formatting for messages) and tensor helpers (argument checks, views
 * over a tensor's storage, new tensors on its device, layout questions). None reads or
 * writes element data itself; the few that move data (shimrt_k_sum_out, the cat helpers)
 * copy through the device rows (shimrt_backend_copy), so runtime/generic/, runtime/cpu/
 * and runtime/cuda/ all use them.
 * Every function that can fail sets the thread's message (shimrt_fail) with the op name
 * passed in `op` ("add.Tensor") and returns AOTI_TORCH_FAILURE, or NULL for a handle. */
#ifndef SHIMRT_GENERIC_META_H
#define SHIMRT_GENERIC_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/internal.h"

/* ---- dtypes ------------------------------------------------------------------------ */
/* True for the dtypes the kernels compute on: bool, uint8, int8/16/32/64, float16,
 * bfloat16, float32, float64. */
bool shimrt_k_dtype_ok(int32_t dtype);
bool shimrt_k_is_floating(int32_t dtype); /* float16, bfloat16, float32, float64 */
bool shimrt_k_is_integral(int32_t dtype); /* uint8, int8..int64 (not bool) */
/* PyTorch's promote_types over the computable dtypes; -1 if either is not computable. */
int32_t shimrt_k_promote(int32_t a, int32_t b);

/* PyTorch's overflow check of a fill value (fill_, full, *_like): "value cannot be converted
 * to type uint8_t without overflow", by v's kind as c10::overflows<To, From>: an int (or
 * bool) Scalar wraps into unsigned types down to -max, a floating one must lie in the
 * type's range; one_element: the tensor has one element (PyTorch's unchecked path for
 * float16/bfloat16 then). */
AOTITorchError shimrt_k_scalar_fits(const char *op, shimrt_scalar v, int32_t dtype,
                                    bool one_element);
/* PyTorch's alpha_check of add/sub for result dtype `dtype`: a bool alpha needs a bool
 * result, a floating one a floating result ("For integral input tensors, argument alpha
 * must not be a floating point number."), a complex one a complex result. */
AOTITorchError shimrt_k_alpha_check(const char *op, int32_t dtype, shimrt_scalar alpha);
/* The dtype of a tensor made from a Scalar alone (full without dtype, scalar_tensor):
 * bool, int64, the default float32, or complex64, by its kind. */
int32_t shimrt_k_scalar_dtype(shimrt_scalar v);
/* PyTorch's get_overlap_status(a, b) == Partial: both dense, same storage, their byte
 * ranges intersect without being the same elements in the same order. */
bool shimrt_k_partial_overlap(const struct AtenTensorOpaque *a, const struct AtenTensorOpaque *b);
/* Fails for pin_memory=True (PyTorch refuses it without an accelerator; libshimrt has no
 * pinned allocator); NULL or false passes. */
AOTITorchError shimrt_k_check_pin(const char *op, const int32_t *pin_memory);
/* c10::canCast: complex to non-complex, floating to integral and non-bool to bool are
 * refused (the out= and in-place check "result type X can't be cast to ..."). */
bool shimrt_k_can_cast(int32_t from, int32_t to);
/* An in-place step's checks (PyTorch's TensorIterator on a given output): the result r of
 * an op on self has self's shape (the broadcast shape) and a dtype castable to self's. */
AOTITorchError shimrt_k_inplace_check(const char *op, const struct AtenTensorOpaque *self,
                                      const struct AtenTensorOpaque *r);

/* PyTorch's result_type: tensors with dims outrank zero-dim tensors, which outrank wrapped
 * numbers (Python scalars), except that a higher category (bool < integral < floating)
 * always wins. Start with shimrt_k_rt_init, add operands, read with shimrt_k_rt_result. */
typedef struct {
    int32_t dim, zero, wrapped;
} shimrt_k_result_type;
void shimrt_k_rt_init(shimrt_k_result_type *s);
void shimrt_k_rt_add_tensor(shimrt_k_result_type *s, const struct AtenTensorOpaque *t);
/* A Scalar argument, a wrapped number of its kind's category: bool, int64, float32 (the
 * default dtype) or complex64. A C shim's Scalar is always floating (c10::Scalar(double)),
 * one from the dispatcher keeps its ScalarHandle's kind (shimrt/scalar.h). */
void shimrt_k_rt_add_scalar(shimrt_k_result_type *s, shimrt_scalar v);
int32_t shimrt_k_rt_result(const shimrt_k_result_type *s);
/* The result type of tensors t[0..n) and scalars[0..ns). */
int32_t shimrt_k_result_type_of(int n, const struct AtenTensorOpaque *const *t, int ns,
                                const shimrt_scalar *scalars);

/* <prefix>_softmax_int and <prefix>_log_softmax_int, the kernels of softmax.int and
 * log_softmax.int, both through impl(op, log, self, dim, dtype, ret0). */
#define SHIMRT_SOFTMAX_KERNELS(prefix, impl)                                                       \
    AOTITorchError prefix##_softmax_int(AtenTensorHandle self, int64_t dim, int32_t *dtype,        \
                                        AtenTensorHandle *ret0) {                                  \
        return impl("softmax.int", false, self, dim, dtype, ret0);                                 \
    }                                                                                              \
    AOTITorchError prefix##_log_softmax_int(AtenTensorHandle self, int64_t dim, int32_t *dtype,    \
                                            AtenTensorHandle *ret0) {                              \
        return impl("log_softmax.int", true, self, dim, dtype, ret0);                              \
    }

/* The comparison ops (eq/ne/lt/le/gt/ge, .Tensor and .Scalar): X(name) each. */
#define SHIMRT_COMPARISONS(X) X(eq) X(ne) X(lt) X(le) X(gt) X(ge)

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
/* The result shape of keeping every dim of sizes[0..ndim) but dim d, which is dropped, or
 * kept with size 1 when keepdim (a reduction's output); returns the output's ndim. */
int64_t shimrt_k_reduced_shape(int64_t ndim, const int64_t *sizes, int64_t d, bool keepdim,
                               int64_t *out);
/* mean's result dtype into *out: *dtype when given, else self_dtype; fails with PyTorch's
 * message unless it is floating. */
AOTITorchError shimrt_k_mean_dtype(const char *op, int32_t self_dtype, const int32_t *dtype,
                                   int32_t *out);
/* softmax's and log_softmax's: the same rule; `kernel` is the backend's kernel name in
 * PyTorch's "not implemented" message. */
AOTITorchError shimrt_k_softmax_dtype(const char *op, const char *kernel, int32_t self_dtype,
                                      const int32_t *dtype, int32_t *out);
/* Wraps dim for a reduction over one dim (max.dim, argmax) into *out; fails when that dim
 * is empty, naming `fn` as PyTorch does ("max(): Expected reduction dim 1 to have non-zero
 * size."). */
AOTITorchError shimrt_k_reduce_dim_nonempty(const char *op, const char *fn,
                                            const struct AtenTensorOpaque *self, int64_t dim,
                                            int64_t *out);
/* index_select's argument checks with PyTorch's messages: dim wrapped into *out, index an
 * int32/int64 vector (a 0-dim self takes exactly one index). */
AOTITorchError shimrt_k_index_select_check(const char *op, const struct AtenTensorOpaque *self,
                                           int64_t dim, const struct AtenTensorOpaque *index,
                                           int64_t *out);
/* Fails unless the index value v is in [0, limit) ("index out of range in self", as
 * index_select and embedding say; negative indices are refused as PyTorch's kernels do). */
AOTITorchError shimrt_k_index_in_range(const char *op, int64_t v, int64_t limit);
/* scatter's and gather's index checks with PyTorch's messages (gather selects gather's
 * wording): an int64 index with self's dim count (an empty index passes), no larger than
 * self except along dim, and, when src is not NULL, src's dim count and no larger than src
 * along every dim. 0-d tensors count as size [1], as in PyTorch. dim is already wrapped. */
AOTITorchError shimrt_k_scatter_index_check(const char *op, const struct AtenTensorOpaque *self,
                                            int64_t dim, const struct AtenTensorOpaque *index,
                                            const struct AtenTensorOpaque *src, bool gather);
/* native_layer_norm's checks (PyTorch's _check_layer_norm_inputs and messages): a
 * non-empty normalized_shape, a floating input on device_type whose trailing sizes are
 * normalized_shape, weight and bias (when not NULL) of exactly normalized_shape there. */
AOTITorchError shimrt_k_layer_norm_check(const char *op, const struct AtenTensorOpaque *input,
                                         const int64_t *ns, int64_t nn,
                                         const struct AtenTensorOpaque *weight,
                                         const struct AtenTensorOpaque *bias, int32_t device_type);
/* sum.IntList_out on any device, once out is checked to be on self's: out's dtype must be
 * the dtype argument's (when given); sum (the device's sum.dim_IntList kernel) computes in
 * out's dtype into a new tensor, out is resized to its shape as PyTorch resizes outs and
 * takes its values (any strides). */
AOTITorchError
shimrt_k_sum_out(const char *op, AtenTensorHandle out, AtenTensorHandle self, const int64_t *dim,
                 int64_t dim_len, int32_t keepdim, int32_t *dtype,
                 AOTITorchError (*sum)(AtenTensorHandle self, const int64_t *dim, int64_t dim_len,
                                       int32_t keepdim, int32_t *dtype, AtenTensorHandle *ret));
/* scatter.reduce's legacy reduce names: "add" and "multiply" are scatter_reduce's "sum" and
 * "prod" (with include_self); NULL, with PyTorch's message set, for any other. */
const char *shimrt_k_legacy_reduce(const char *op, const char *reduce);
/* Fails unless the index value v is in [0, limit) ("index -1 is out of bounds for
 * dimension 1 with size 4": gather, scatter*). */
AOTITorchError shimrt_k_index_in_bounds(const char *op, int64_t v, int64_t dim, int64_t limit);
/* mm's shape checks, with PyTorch's messages (an: the first operand's name, "self" or
 * "mat1"): a and b are matrices that can be multiplied; shape gets [n, m]. */
AOTITorchError shimrt_k_mm_shape(const char *op, const struct AtenTensorOpaque *a, const char *an,
                                 const struct AtenTensorOpaque *b, int64_t shape[2]);
/* bmm's: two 3-D tensors with the same batch whose matrices can be multiplied; shape gets
 * [batch, n, m]. */
AOTITorchError shimrt_k_bmm_shape(const char *op, const struct AtenTensorOpaque *a,
                                  const struct AtenTensorOpaque *b, int64_t shape[3]);
/* matmul's: a and b are self and other with a 1-D operand made 2-D ([1, k] and [k, 1]);
 * full gets [batch..., n, m] (*nb batch dims, broadcast), rshape the result's shape (*rn
 * dims: without the dims that 1-D operands gained). */
AOTITorchError shimrt_k_matmul_shape(const char *op, const struct AtenTensorOpaque *self,
                                     const struct AtenTensorOpaque *other,
                                     const struct AtenTensorOpaque *a,
                                     const struct AtenTensorOpaque *b, int64_t *full, int64_t *nb,
                                     int64_t *rshape, int64_t *rn);

/* ---- tensors ------------------------------------------------------------------------ */
/* Fails when t is an undefined tensor (aoti_torch_new_uninitialized_tensor). */
AOTITorchError shimrt_k_check_defined(const char *op, const struct AtenTensorOpaque *t,
                                      const char *argname);
/* Fails unless t is defined, strided and lives on the CPU (argname names the argument in
 * the message). */
AOTITorchError shimrt_k_check_cpu(const char *op, const struct AtenTensorOpaque *t,
                                  const char *argname);
/* As shimrt_k_check_cpu, and a meta tensor passes too (the CPU kernels of the copy ops
 * hand meta tensors to shimrt_meta_copy_as). */
AOTITorchError shimrt_k_check_cpu_or_meta(const char *op, const struct AtenTensorOpaque *t,
                                          const char *argname);
/* The Meta kernel of the copy ops (clone, to, contiguous), as PyTorch's: a new meta tensor
 * with self's sizes, dtype dt and the strides memory format fmt gives (preserve: self's
 * layout, as empty_like), no data. self may be on any device (to(device=meta)). */
AOTITorchError shimrt_meta_copy_as(const char *op, const struct AtenTensorOpaque *self, int32_t fmt,
                                   int32_t dt, AtenTensorHandle *ret0);
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
                                         int64_t ndim, const int64_t *sizes, const int64_t *strides,
                                         int32_t dtype);
/* PyTorch's output layout order, the one rule behind TensorIterator's outputs and
 * empty_like(preserve_format) (infer_dense_strides): perm[0] is the dim that moves fastest.
 * An insertion sort of the dims, last dim first, by the strides of nops operands in turn
 * (any unit): a stride 0 is ambiguous (that operand is skipped), the smaller stride goes
 * inner, equal strides put the smaller dim inner; pairs no operand orders keep their
 * row-major order. */
void shimrt_k_layout_perm(int nd, const int64_t *shape, int nops,
                          const int64_t (*st)[SHIMRT_MAX_DIMS], int *perm);
/* dims[0..n) (dims of t) sorted by t's strides, largest first, stably (an insertion sort, as
 * libstdc++ sorts 16 or fewer elements). */
void shimrt_k_sort_by_stride(const struct AtenTensorOpaque *t, int64_t *dims, int64_t n);
/* (shimrt_k_dense, PyTorch's is_non_overlapping_and_dense: core/internal.h) */
/* Strides of empty_like(t, preserve_format): t's own strides when dense, else
 * infer_dense_strides (dense strides in shimrt_k_layout_perm's order of t's strides; a
 * size-0 or size-1 dim does not multiply the next stride). */
void shimrt_k_preserve_strides(const struct AtenTensorOpaque *t, int64_t *strides);
/* (shimrt_k_internal_overlap: core/internal.h) */
/* True when the memory ranges spanned by a and b intersect. */
bool shimrt_k_may_overlap(const struct AtenTensorOpaque *a, const struct AtenTensorOpaque *b);
/* An out argument written while two inputs are read (gather, index_select: self and index;
 * scatter: src and index): fails, with PyTorch's messages, when out has internal overlap or
 * shares memory with either input. */
AOTITorchError shimrt_k_out_no_overlap(const char *op, const struct AtenTensorOpaque *out,
                                       const struct AtenTensorOpaque *self,
                                       const struct AtenTensorOpaque *index);

/* ---- views and new tensors (runtime/generic/views.c, empty.c) ---------------------- */
/* Resolves a requested shape (one entry may be -1) against numel into out. */
AOTITorchError shimrt_k_infer_size(const char *op, const int64_t *shape, int64_t n, int64_t numel,
                                   int64_t *out);
/* Strides that let t be viewed with shape ns[0..nn) into out; false when no view exists. */
bool shimrt_k_view_strides(const struct AtenTensorOpaque *t, int64_t nn, const int64_t *ns,
                           int64_t *out);
/* Channels-last strides of sizes (rank 4: NHWC order; rank 5: NDHWC), as c10's: a size 0
 * zeroes the strides outside it. */
void shimrt_k_channels_last_strides(int64_t ndim, const int64_t *sizes, int64_t *strides);
/* A factory's size list, with PyTorch's message: at most SHIMRT_MAX_DIMS sizes, none
 * negative (size may be NULL when n is 0). */
AOTITorchError shimrt_k_check_size(const char *op, const int64_t *size, int64_t n);
/* empty.memory_format's shape checks and strides, with PyTorch's messages: sizes
 * non-negative; memory_format NULL or contiguous (*use_strides false: contiguous),
 * channels_last(_3d) on rank 4 (5); preserve is refused, as PyTorch's empty refuses it. */
AOTITorchError shimrt_k_empty_strides(const char *op, int64_t n, const int64_t *size,
                                      const int32_t *memory_format, int64_t *strides,
                                      bool *use_strides);
/* The strides a new tensor like self gets for memory format fmt (SHIMRT_MEMORY_FORMAT_*).
 * *use_strides is false for plain contiguous strides. */
AOTITorchError shimrt_k_format_strides(const char *op, const struct AtenTensorOpaque *self,
                                       int32_t fmt, int64_t *strides, bool *use_strides);
/* A new contiguous tensor of size[0..size_len_) with self's options unless given (NULL:
 * as self), as new_empty: *out is a new reference; free with aoti_torch_delete_tensor_object. */
AOTITorchError shimrt_k_new_tensor(const char *op, AtenTensorHandle self, const int64_t *size,
                                   int64_t size_len_, int32_t *dtype, int32_t *layout,
                                   int32_t *device, int32_t device_index_, int32_t *pin_memory,
                                   AtenTensorHandle *out);

/* cat's checks with PyTorch's messages (a non-empty list, equal dim counts and sizes but
 * along dim; legacy empty 1-D tensors skipped) and its result: *dim wrapped, the shape in
 * *ndim/sizes, the dtype in *dtype: PyTorch's result_type of every input (views.c). */
AOTITorchError shimrt_k_cat_shape(const char *op, const AtenTensorHandle *ts, int64_t n,
                                  int64_t *dim, int64_t *ndim, int64_t *sizes, int32_t *dtype);
/* Copies each of ts[0..n) into its slice of out along dim (a view over out's storage, then
 * the copy of out's device: CPU or CUDA). */
AOTITorchError shimrt_k_cat_into(const char *op, const AtenTensorHandle *ts, int64_t n, int64_t dim,
                                 AtenTensorHandle out);
/* cat into a new tensor on device (device_type, index of the first input's device when
 * that is CUDA): the shape checks, the result, the slice copies. */
AOTITorchError shimrt_k_cat_new(const char *op, const AtenTensorHandle *ts, int64_t n, int64_t dim,
                                int32_t device_type, AtenTensorHandle *ret0);
/* sort's and sort.stable's checks, shared by the CPU and CUDA kernels: self defined and on
 * device_type, of a dtype the sort takes (bool, the integers, float16, bfloat16, float32,
 * float64); dim wrapped into *out (a 0-dim tensor takes -1 and 0). */
AOTITorchError shimrt_k_sort_check(const char *op, const struct AtenTensorOpaque *self, int64_t dim,
                                   int32_t device_type, int64_t *out);
/* cat into out, resized to the result's size (PyTorch's resize_output) when it has another. */
AOTITorchError shimrt_k_cat_out(const char *op, const AtenTensorHandle *ts, int64_t n, int64_t dim,
                                AtenTensorHandle out);

/* ---- composite.c: composites' device-generic halves, through the dispatcher (each op
 * on its tensors' device); op names the composite in messages. */
/* index_select(self, dim, index) */
AOTITorchError shimrt_k_index_select_any(const char *op, AtenTensorHandle self, int64_t dim,
                                         AtenTensorHandle index, AtenTensorHandle *ret0);
/* mul.Tensor(self, other) and mul_.Tensor(self, other) */
AOTITorchError shimrt_k_mul_any(const char *op, AtenTensorHandle self, AtenTensorHandle other,
                                AtenTensorHandle *ret0);
AOTITorchError shimrt_k_mul_inplace_any(const char *op, AtenTensorHandle self,
                                        AtenTensorHandle other);
/* layer_norm: native_layer_norm's first result (weight, bias: NULL for None) */
AOTITorchError shimrt_k_layer_norm_any(const char *op, AtenTensorHandle input,
                                       const int64_t *normalized_shape, int64_t n,
                                       AtenTensorHandle weight, AtenTensorHandle bias, double eps,
                                       AtenTensorHandle *ret0);

#endif

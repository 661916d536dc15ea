/* runtime/cpu/engine.h: the kernel engine (private to runtime/cpu/).
 *
 * Two halves:
 *   - the PLANNER (sh_plan_*): broadcasting, PyTorch's output layout (the output follows
 *     the inputs' memory layout, as TensorIterator does), dimension coalescing, byte
 *     strides and flags. It reads only metadata and never touches element data.
 *   - the CPU EXECUTOR (sh_exec, sh_cast_run, sh_copy, sh_fill; sh_walk_serial): the plan's
 *     elements are cut into rows and chunks of at most SH_CHUNK elements and split over
 *     the runtime's thread pool (torch_parallel_for). A kernel sees contiguous runs of its
 *     compute type; operands of another dtype or layout go through per-chunk buffers.
 *
 * The element-wise rows of runtime/ops/ops.def are instantiated for the compute types by
 * pointwise.c; this header only knows kernels as function pointers.
 * Every function that can fail sets the thread's message with the op name and returns
 * AOTI_TORCH_FAILURE. */
#ifndef SHIMRT_CPU_ENGINE_H
#define SHIMRT_CPU_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "iter.h"

#define SH_MAX_OPS 4  /* operand 0 is the output */
#define SH_CHUNK 1024 /* elements per kernel call (per-chunk buffers hold this many) */

/* Compute-type indices: the types a kernel is instantiated for. */
enum { SH_B, SH_U8, SH_I8, SH_I16, SH_I32, SH_I64, SH_F32, SH_F64, SH_NCT };

/* Classes of ops.def rows (how the result dtype is chosen). */
enum { SH_ALL, SH_NUMERIC, SH_FLOAT, SH_INTEGRAL, SH_COMPARE };

typedef struct sh_plan {
    int ndim; /* after coalescing; dim 0 is the innermost */
    int64_t shape[SHIMRT_MAX_DIMS];
    int nops; /* operands, output first */
    char *data[SH_MAX_OPS];
    int32_t dtype[SH_MAX_OPS];
    int64_t stride[SH_MAX_OPS][SHIMRT_MAX_DIMS]; /* bytes, in the order of shape */
    int64_t numel;
    /* flags */
    bool contiguous;      /* every operand steps by its element size along one dim */
    bool fits_i32;        /* every byte offset fits in int32 (CUDA 32-bit indexing) */
    bool needs_cast;      /* some operand's dtype differs from the output's */
    uint32_t scalar_mask; /* bit k: operand k has all strides 0 (a broadcast scalar) */
} sh_plan;

/* Plans out = f(ins...). With *out == NULL the output is allocated (dtype odt, on the
 * device of ins[0]) with the broadcast shape and the inputs' layout; its handle is stored
 * in *out (a new reference; on failure nothing is allocated). With *out set the inputs
 * must broadcast to its shape. */
AOTITorchError sh_plan_build(sh_plan *p, const char *op, AtenTensorHandle *out, int32_t odt,
                             int nin, const struct AtenTensorOpaque *const *ins);
/* sh_plan_build for an op with a Scalar operand (add.Scalar, ...): PyTorch wraps the Scalar
 * in a 0-d tensor, so TensorIterator's fast set-up (inputs of the output's shape) never
 * applies and a new output always takes the inputs' dim order. */
AOTITorchError sh_plan_build_scalar(sh_plan *p, const char *op, AtenTensorHandle *out, int32_t odt,
                                    int nin, const struct AtenTensorOpaque *const *ins);

/* sh_plan_build for where(condition, self, other): ins[0], the condition, keeps its dtype
 * (PyTorch converts self and other only). */
AOTITorchError sh_plan_build_where(sh_plan *p, const char *op, AtenTensorHandle *out, int32_t odt,
                                   int nin, const struct AtenTensorOpaque *const *ins);

/* sh_plan_build for an op whose TensorIterator keeps each input's dtype (no common dtype:
 * polar's real inputs and complex result): no input is converted first, so a new output
 * takes the inputs' own layouts. */
AOTITorchError sh_plan_build_keep(sh_plan *p, const char *op, AtenTensorHandle *out, int32_t odt,
                                  int nin, const struct AtenTensorOpaque *const *ins);

/* Index of a computable dtype among the compute types (float16/bfloat16: float), -1 if
 * none. */
int sh_ct_index(int32_t dtype);
/* The shimrt dtype of a compute-type index. */
int32_t sh_ct_dtype(int ct);

/* Called with pointers to the first element of a run of n elements of each operand and
 * their byte strides along the run. */
typedef void (*sh_chunk_fn)(char **ptr, const int64_t *stride, int64_t n, void *ctx);
/* Elements below which work runs in the calling thread (per task above it): measured,
 * see engine.c; SHIMRT_GRAIN_ELEMS overrides it. */
int64_t sh_grain_elems(void);
/* Runs fn over every element of p (in runs of at most SH_CHUNK) in the calling thread only
 * (for chunk functions that gather a result); sh_exec, sh_copy and sh_fill walk over the
 * thread pool. */
void sh_walk_serial(const sh_plan *p, sh_chunk_fn fn, void *ctx);
/* The same walk split over the thread pool in chunks (the ops of complex.c call it with chunk
 * functions that only read their operands' elements and write the result's). */
void sh_walk(const sh_plan *p, sh_chunk_fn fn, void *ctx);

/* Converts n elements from src (dtype sdt, byte stride ss) to dst (ddt, ds). PyTorch's
 * conversions: floating to integer goes through int64 (x86 truncation: out of range and
 * NaN give INT64_MIN) and wraps, any nonzero value is true, float16/bfloat16 round to
 * nearest even through float. */
void sh_cast_run(char *dst, int32_t ddt, int64_t ds, const char *src, int32_t sdt, int64_t ss,
                 int64_t n);

/* A conversion loop: n elements, byte strides (tables in loops.h, one per ISA). */
typedef void (*sh_cast_fn)(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n);
/* The ISA the kernels run with: 0 baseline, 3 x86-64-v3, 4 x86-64-v4 (SHIMRT_ISA=base or
 * v3 forces a lower level). */
int sh_isa_level(void);

/* Scalar arguments of a kernel (converted to the compute type by the kernel). */
typedef struct sh_kargs {
    double alpha, p0, p1;
    /* the second input, when it is a scalar of the whole plan (every stride 0), is read at
     * its own value, not rounded through a float16/bfloat16 common dtype: PyTorch's mul and
     * true division take such an operand's original value in float (original_scalar_value) */
    bool raw_scalar_b;
} sh_kargs;
/* A typed kernel: n outputs into o from the inputs a, b, c (contiguous runs of the compute
 * type; c is where's condition, as bool). mode 0: all vectors; 1: a is one scalar;
 * 2: b is one scalar (binary kernels only). */
typedef void (*sh_kernel)(int64_t n, char *o, const char *a, const char *b, const char *c, int mode,
                          const sh_kargs *k);

/* Runs a typed kernel over a plan, computing in the compute type of the common dtype
 * (float for float16/bfloat16, whose inputs of other dtypes are rounded to it first, as
 * PyTorch casts every input to the common dtype): inputs of another dtype (condition: bool) or
 * not contiguous go through per-chunk buffers, and so does the output when it is not
 * contiguous or not of the kernel's output type (bool when kout_bool). scalar_b, when not
 * NULL, is a binary kernel's second operand: one value of the compute type (the plan then
 * has one input). cond_first: the plan's first input is where's condition. */
void sh_exec(const sh_plan *p, int32_t common, bool kout_bool, bool cond_first, sh_kernel fn,
             const sh_kargs *k, const void *scalar_b);

/* Reduction loops of an SH_REDUCE row for one (storage dtype S, accumulator T) pair
 * (loops.h section 3; T is S's compute type, or double / int64 when wide):
 *   rows(out, in, nrows, len): out[r] (T) = the reduction of contiguous row r of len
 *                              elements (rows back to back)
 *   cols(acc, in, nrows, nc, rs): acc[c] (T) = the reduction over nrows rows (row stride rs
 *                              elements) of the contiguous columns c < nc
 *   merge(acc, x, n): acc[i] = merge(acc[i], x[i]) over n T values */
typedef struct sh_red_kern {
    void (*rows)(char *out, const char *in, int64_t nrows, int64_t len);
    void (*cols)(char *acc, const char *in, int64_t nrows, int64_t nc, int64_t rs);
    void (*merge)(char *acc, const char *x, int64_t n);
} sh_red_kern;
/* The loops of reduction row `red` (RED_<name> in loops.h) for storage dtype sdt, or NULL
 * when the pair is not instantiated (the caller then takes its generic path). *tdt gets
 * the accumulator's dtype. */
const sh_red_kern *sh_red_kernel(int red, int32_t sdt, bool wide, int32_t *tdt);

/* argmax loops for one storage dtype (first index of the largest value, NaN largest):
 *   rows(idx, vals, in, nrows, len): idx[r], and vals[r] (storage dtype) unless NULL
 *   cols(idx, val, in, nrows, nc, rs): idx[c] and val[c] (S's compute type) */
typedef struct sh_argmax_kern {
    void (*rows)(int64_t *idx, char *vals, const char *in, int64_t nrows, int64_t len);
    void (*cols)(int64_t *idx, char *val, const char *in, int64_t nrows, int64_t nc, int64_t rs);
} sh_argmax_kern;
/* NULL for a dtype that is not computable. */
const sh_argmax_kern *sh_argmax_kernel(int32_t sdt);

/* softmax (logsm 0) or log_softmax (1) of n contiguous doubles, in place, in double:
 * max, sum of exp(x - max), then exp(x - max) / sum or x - max - log(sum). */
void sh_softmax_line(double *x, int64_t n, int logsm);

/* copy_ semantics: dst = src broadcast to dst's shape, converted (both CPU and
 * computable, or the same dtype). Overlapping src/dst go through a temporary. */
AOTITorchError sh_copy(const char *op, struct AtenTensorOpaque *dst,
                       const struct AtenTensorOpaque *src);
/* Sets every element of t (CPU) to v converted as sh_cast_run converts a double (a dtype
 * that is not computable is filled with zero bytes; callers pass v == 0 only then). */
void sh_fill(struct AtenTensorOpaque *t, double v);

/* self *= other (mul_.Tensor): other broadcasts to self's shape, computed in the result
 * type, which must cast to self's dtype (PyTorch's checks and messages); op names errors. */
AOTITorchError sh_mul_inplace(const char *op, AtenTensorHandle self, AtenTensorHandle other);
AOTITorchError sh_div_inplace(const char *op, AtenTensorHandle self, AtenTensorHandle other);

/* The dtypes outside the engine's tables (pointwise.c): uint16/32/64 and complex64/128. */
bool sh_dtype_wide(int32_t dt);
/* PyTorch's result type of in[0..nin) and an optional wrapped Scalar with c10's rules for
 * those dtypes; -2 with the message set (kname: the kernel PyTorch names when the result
 * would be its BComplex32). */
int32_t sh_result_type_wide(const char *op, const char *kname, int nin,
                            const struct AtenTensorOpaque *const *in, const shimrt_scalar *scalar);
/* base ** exponent of complex rt (std::pow of c10::complex: glibc's cpow), the operands
 * converted to rt; into out when given (of rt or castable), else a new tensor in
 * TensorIterator's layout into *ret0. */
AOTITorchError sh_pow_complex(const char *op, AtenTensorHandle base, AtenTensorHandle exponent,
                              int32_t rt, AtenTensorHandle out, AtenTensorHandle *ret0);
/* mul.Scalar of a uint16/32/64 or complex self, or by a complex Scalar: mul.Tensor with the
 * Scalar wrapped (PyTorch's). */
AOTITorchError sh_mul_scalar_wide(const char *op, AtenTensorHandle self, shimrt_scalar other,
                                  AtenTensorHandle *ret0);

#endif

/* shimrt/shim_support.h: what the code that shimgen generates leans on.
 *
 * shimgen writes, per op and backend, a shim body (c_shim_<backend>.c), a dispatcher-routed
 * shim (c_shim_aten.c), a boxed wrapper and a registration function (c_boxed_<backend>.c).
 * Everything those have in common lives here, once, so that each generated function is a
 * few lines: one line per argument, one call, one line per return. examples/golden/ shows
 * the exact shape; docs/kernels.md the kernel ABI; docs/runtime-api.md the StableIValue
 * encodings and the stack conventions.
 *
 * Plain C99, usable from C++. The SHIMRT_ARG_* / SHIMRT_OPT_* macros are meant for C
 * (they rely on C's implicit conversion from `const void *`).
 *
 * Conventions:
 * - Every check returns AOTI_TORCH_SUCCESS, or AOTI_TORCH_FAILURE after leaving the
 *   thread's message "<func>: <problem>", where <func> is the function the caller names
 *   (the generated shim's own name, from __func__) and <problem> names the argument.
 * - Every pointer argument of these helpers is borrowed unless stated otherwise.
 *
 * Four parts:
 *   1. shim bodies:     argument checks and conversions before calling a kernel;
 *   2. boxed wrappers:  shimrt_box, which unpacks a StableIValue stack, remembers what the
 *                       wrapper stole, releases it exactly once and pushes results;
 *   3. dispatcher-routed shims: shimrt_pack, which packs C arguments into a stack of owning
 *                       StableIValues and calls an op through a cached op handle;
 *   4. registration:    shimrt_register_ops, one call that defines schemas and registers
 *                       boxed kernels from two static tables. */
#ifndef SHIMRT_SHIM_SUPPORT_H
#define SHIMRT_SHIM_SUPPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types.h"
#include "version.h"
#include "error.h"
#include "tensor.h"
#include "scalar.h"
#include "containers.h"
#include "stableivalue.h"
#include "dispatcher.h"
#include "codes.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SHIMRT_PRINTF_(f, a) __attribute__((format(printf, f, a)))
#else
#define SHIMRT_PRINTF_(f, a)
#endif

/* Sets the calling thread's message to "<func>: <formatted text>" and returns
 * AOTI_TORCH_FAILURE, so that a kernel (ours or an extension's) can write
 *     return shimrt_set_error(__func__, "input must be float32, got %s", name);
 * The arguments may point into the current message (torch_exception_get_what()). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_set_error(const char *func, const char *fmt, ...)
    SHIMRT_PRINTF_(2, 3);

/* Evaluates expr (an AOTITorchError) and returns it from the enclosing function when it
 * is not AOTI_TORCH_SUCCESS. */
#define SHIMRT_TRY(expr)                                                                           \
    do {                                                                                           \
        AOTITorchError shimrt_try_err_ = (expr);                                                   \
        if (shimrt_try_err_ != AOTI_TORCH_SUCCESS) return shimrt_try_err_;                         \
    } while (0)

/* ==== 1. Shim bodies ================================================================ */

/* `Tensor x`: x must be a live tensor handle ("argument 'x' is NULL", "... was freed",
 * "... is not a tensor handle"). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_check_tensor(const char *func, const char *name,
                                                     AtenTensorHandle x);
/* `Tensor? x` (AtenTensorHandle *x): NULL is None; so is a pointer to a NULL handle;
 * anything else must point to a live handle. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_check_opt_tensor(const char *func, const char *name,
                                                         const AtenTensorHandle *x);
/* A list (x, len) of any element type: len >= 0, and x != NULL when len > 0. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_check_list(const char *func, const char *name,
                                                   const void *x, int64_t len);
/* An optional list (const T **x, len): NULL is None; else (*x, len) is checked as a list. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_check_opt_list(const char *func, const char *name,
                                                       const void *const *x, int64_t len);
/* `Tensor[] x`: a list whose every item is a live tensor handle ("argument 'x' item 2: ..."). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_check_tensor_list(const char *func, const char *name,
                                                          const AtenTensorHandle *x, int64_t len);
/* A return out-pointer (retN) must not be NULL. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_check_ret(const char *func, const char *name,
                                                  const void *ret);

/* The kernel form of `Tensor? x`: NULL for None, else the handle. */
static inline AtenTensorHandle shimrt_opt_tensor(const AtenTensorHandle *x) {
    return x != NULL ? *x : NULL;
}
/* A non-NULL address with no elements: what a kernel receives for a present, empty list
 * given as a NULL pointer (so that NULL always means None). */
static inline const void *shimrt_empty_list_(void) {
    static const int64_t shimrt_empty_[1] = {0};
    return shimrt_empty_;
}

/* `Tensor?[] x` (const AtenTensorHandle **x, len) as the kernel takes it: an array of len
 * handles, NULL for None. Items up to SHIMRT_TENSOR_ARRAY_INLINE live inside the struct;
 * longer arrays are allocated. */
#define SHIMRT_TENSOR_ARRAY_INLINE 8
typedef struct shimrt_tensor_array {
    AtenTensorHandle *items; /* points to inline_items or to a heap block */
    AtenTensorHandle inline_items[SHIMRT_TENSOR_ARRAY_INLINE];
} shimrt_tensor_array;
/* Checks (x, len) as a list and each present item as a live handle, then fills *out.
 * On success free *out with shimrt_tensor_array_free; on failure nothing is left to free. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_opt_tensor_list(const char *func, const char *name,
                                                        const AtenTensorHandle *const *x,
                                                        int64_t len, shimrt_tensor_array *out);
/* Frees what shimrt_opt_tensor_list allocated (NULL or an unfilled array: no-op). */
AOTI_TORCH_EXPORT void shimrt_tensor_array_free(shimrt_tensor_array *a);

/* The argument checks of a shim body, one line per argument, naming it. They return
 * from the enclosing function on failure. A list argument `x` comes with `x_len_`. */
#define SHIMRT_ARG_TENSOR(x) SHIMRT_TRY(shimrt_check_tensor(__func__, #x, (x)))
#define SHIMRT_ARG_OPT_TENSOR(x) SHIMRT_TRY(shimrt_check_opt_tensor(__func__, #x, (x)))
#define SHIMRT_ARG_TENSOR_LIST(x) SHIMRT_TRY(shimrt_check_tensor_list(__func__, #x, (x), x##_len_))
#define SHIMRT_ARG_LIST(x) SHIMRT_TRY(shimrt_check_list(__func__, #x, (x), x##_len_))
#define SHIMRT_ARG_OPT_LIST(x)                                                                     \
    SHIMRT_TRY(shimrt_check_opt_list(__func__, #x, (const void *const *)(x), x##_len_))
#define SHIMRT_ARG_RET(r) SHIMRT_TRY(shimrt_check_ret(__func__, #r, (const void *)(r)))

/* Conversions from the shim form to the kernel form (docs/kernels.md), C only. */
/* `T[]? x` -> `const T *` (NULL for None; never NULL for a present list). */
#define SHIMRT_OPT_LIST(x)                                                                         \
    ((x) == NULL ? NULL : (*(x) != NULL ? (const void *)*(x) : shimrt_empty_list_()))
/* Its length: 0 for None. */
#define SHIMRT_OPT_LIST_LEN(x) ((x) == NULL ? (int64_t)0 : x##_len_)
/* `Tensor? x` -> AtenTensorHandle (NULL for None). */
#define SHIMRT_OPT_TENSOR(x) shimrt_opt_tensor(x)

/* ==== 2. Boxed wrappers ============================================================= *
 * void boxed_<backend>_<op>(StableIValue *stack, uint64_t num_args, uint64_t num_outputs)
 *
 *   shimrt_box b;
 *   if (shimrt_box_begin(&b, "add.Tensor", stack, num_args, 3, num_outputs, 1,
 *                        arg_kinds) != AOTI_TORCH_SUCCESS) return;
 *   <one unpack per argument: shimrt_box_tensor(&b, 0), ...>
 *   SHIMRT_BOX_CALL(&b, aoti_torch_cpu_add_Tensor(self, other, alpha, &ret0));
 *   shimrt_box_release_args(&b);
 *   <one push per return: shimrt_box_push_tensor(&b, 0, ret0), ...>
 *   shimrt_box_finish(&b);
 *
 * Ownership: the wrapper steals every argument. The unpack functions only read the
 * stack (a view into what it owns: a handle, a borrowed C string, a temporary C array
 * that the box frees); shimrt_box_release_args releases every argument exactly once, by
 * its schema type, except those moved to an output (shimrt_box_keep, for returns that
 * alias an argument: in-place and out variants). Each push consumes its value: after a
 * failure it releases the value instead of pushing it. After a failure anywhere,
 * shimrt_box_finish releases what was pushed, zeroes the argument slots and reports
 * the first failure's message to the dispatcher (shimrt_kernel_fail); the call then
 * fails with "<op>: <message>". */
#define SHIMRT_BOX_MAX_ARGS 64
#define SHIMRT_BOX_MSG_MAX 512

typedef struct shimrt_box {
    StableIValue *stack;
    uint64_t num_args, num_outputs;
    const char *op;                 /* "add.Tensor": for messages */
    const unsigned char *arg_kinds; /* SHIMRT_KIND_* of each argument (codes.h); NULL: none owns */
    AOTITorchError err;             /* the first failure, or AOTI_TORCH_SUCCESS */
    uint64_t keep;                  /* bit i: argument i moves to an output */
    StableIValue kept[SHIMRT_BOX_MAX_ARGS]; /* the values of kept arguments */
    unsigned char released;                 /* shimrt_box_release_args ran */
    unsigned n_temps;
    void *temps[SHIMRT_BOX_MAX_ARGS];          /* temporary arrays (freed by release) */
    unsigned char pushed[SHIMRT_BOX_MAX_ARGS]; /* kind of output j once pushed (0: none) */
    char msg[SHIMRT_BOX_MSG_MAX];              /* the first failure's message */
} shimrt_box;

/* Starts a wrapper: checks that the dispatcher passed the counts the schema has
 * (expect_args <= SHIMRT_BOX_MAX_ARGS, expect_outputs likewise). On a mismatch reports
 * the failure (shimrt_kernel_fail) and returns AOTI_TORCH_FAILURE: the wrapper must
 * return at once, releasing nothing (the types are unknown). arg_kinds (static, borrowed
 * for the box's life) has expect_args entries: the kind of each argument, a SHIMRT_KIND_*
 * code of shimrt/codes.h (SHIMRT_KIND_TENSOR, SHIMRT_KIND_OPT_INT_LIST, ...), or
 * SHIMRT_KIND_NONE where the value owns nothing (int, float, bool, ScalarType, Layout,
 * MemoryFormat, Device); NULL when no argument owns anything. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_box_begin(shimrt_box *b, const char *op,
                                                  StableIValue *stack, uint64_t num_args,
                                                  uint64_t expect_args, uint64_t num_outputs,
                                                  uint64_t expect_outputs,
                                                  const unsigned char *arg_kinds);
/* Records a failure of the box (the thread's current message is the reason): the first
 * one wins. Returns err. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_box_fail(shimrt_box *b, AOTITorchError err);
/* Runs the call (an AOTITorchError expression) only when nothing failed so far. */
#define SHIMRT_BOX_CALL(b, call)                                                                   \
    do {                                                                                           \
        if ((b)->err == AOTI_TORCH_SUCCESS) {                                                      \
            AOTITorchError shimrt_box_err_ = (call);                                               \
            if (shimrt_box_err_ != AOTI_TORCH_SUCCESS) shimrt_box_fail((b), shimrt_box_err_);      \
        }                                                                                          \
    } while (0)

/* ---- unpack: argument i of the stack, in the shim's C form -------------------------- */
/* Plain values: decoded bitwise (docs/runtime-api.md); they never fail. */
static inline AtenTensorHandle shimrt_box_tensor(const shimrt_box *b, uint64_t i) {
    return siv_to_tensor(b->stack[i]);
}
static inline int64_t shimrt_box_int(const shimrt_box *b, uint64_t i) {
    return siv_to_int(b->stack[i]);
}
static inline double shimrt_box_float(const shimrt_box *b, uint64_t i) {
    return siv_to_double(b->stack[i]);
}
static inline int32_t shimrt_box_bool(const shimrt_box *b, uint64_t i) {
    return siv_to_bool(b->stack[i]) ? 1 : 0;
}
/* ScalarType, Layout, MemoryFormat: the int32_t code. */
static inline int32_t shimrt_box_code(const shimrt_box *b, uint64_t i) {
    return siv_to_code_(b->stack[i]);
}
/* Device: the type code; its index goes to *index (the shim's x_index_). */
static inline int32_t shimrt_box_device(const shimrt_box *b, uint64_t i, int32_t *index) {
    *index = siv_to_device_index(b->stack[i]);
    return siv_to_device_type(b->stack[i]);
}
static inline AtenGeneratorHandle shimrt_box_generator(const shimrt_box *b, uint64_t i) {
    return siv_to_generator(b->stack[i]);
}
/* Scalar: the ScalarHandle's value with its kind (the kernel's form, shimrt/scalar.h: an
 * int stays an int); a complex with an imaginary part, or a bad handle, fails the box
 * (returns an int 0). */
AOTI_TORCH_EXPORT shimrt_scalar shimrt_box_scalar_value(shimrt_box *b, uint64_t i);
/* str: the string's bytes, borrowed from the stack's StringHandle until release. */
AOTI_TORCH_EXPORT const char *shimrt_box_str(shimrt_box *b, uint64_t i);

/* Optionals `T?`: return NULL for None, else `storage` after storing the value in it
 * (the shim's `T *x` form). The cell stays owned by the stack. */
AOTI_TORCH_EXPORT AtenTensorHandle *shimrt_box_opt_tensor(shimrt_box *b, uint64_t i,
                                                          AtenTensorHandle *storage);
AOTI_TORCH_EXPORT int64_t *shimrt_box_opt_int(shimrt_box *b, uint64_t i, int64_t *storage);
AOTI_TORCH_EXPORT double *shimrt_box_opt_float(shimrt_box *b, uint64_t i, double *storage);
AOTI_TORCH_EXPORT int32_t *shimrt_box_opt_bool(shimrt_box *b, uint64_t i, int32_t *storage);
AOTI_TORCH_EXPORT int32_t *shimrt_box_opt_code(shimrt_box *b, uint64_t i, int32_t *storage);
/* Device?: *index receives the index (-1 for None). */
AOTI_TORCH_EXPORT int32_t *shimrt_box_opt_device(shimrt_box *b, uint64_t i, int32_t *storage,
                                                 int32_t *index);
AOTI_TORCH_EXPORT shimrt_scalar *shimrt_box_opt_scalar_value(shimrt_box *b, uint64_t i,
                                                             shimrt_scalar *storage);
AOTI_TORCH_EXPORT const char **shimrt_box_opt_str(shimrt_box *b, uint64_t i, const char **storage);
AOTI_TORCH_EXPORT AtenGeneratorHandle *shimrt_box_opt_generator(shimrt_box *b, uint64_t i,
                                                                AtenGeneratorHandle *storage);
/* DeviceIndex? (int32_t *x, its index; the stack holds an int). */
AOTI_TORCH_EXPORT int32_t *shimrt_box_opt_device_index(shimrt_box *b, uint64_t i, int32_t *storage);

/* Lists `T[]`: a temporary C array of the items (freed by shimrt_box_release_args; may
 * be NULL when *len is 0) and its length in *len. A bad list or item fails the box. */
AOTI_TORCH_EXPORT const int64_t *shimrt_box_int_list(shimrt_box *b, uint64_t i, int64_t *len);
AOTI_TORCH_EXPORT const double *shimrt_box_float_list(shimrt_box *b, uint64_t i, int64_t *len);
/* Scalar[]: each ScalarHandle's value as a double. */
AOTI_TORCH_EXPORT const double *shimrt_box_scalar_list(shimrt_box *b, uint64_t i, int64_t *len);
/* bool[N] (as int32_t 0/1) and ScalarType[] (codes). */
AOTI_TORCH_EXPORT const int32_t *shimrt_box_bool_list(shimrt_box *b, uint64_t i, int64_t *len);
AOTI_TORCH_EXPORT const int32_t *shimrt_box_code_list(shimrt_box *b, uint64_t i, int64_t *len);
AOTI_TORCH_EXPORT const AtenTensorHandle *shimrt_box_tensor_list(shimrt_box *b, uint64_t i,
                                                                 int64_t *len);
/* Tensor?[]: the shim's `const AtenTensorHandle **` form (NULL items for None). */
AOTI_TORCH_EXPORT const AtenTensorHandle **shimrt_box_opt_tensor_list(shimrt_box *b, uint64_t i,
                                                                      int64_t *len);
/* Optional lists `T[]?`: NULL for None (and *len = 0), else `storage` holding the array. */
AOTI_TORCH_EXPORT const int64_t **shimrt_box_opt_int_list(shimrt_box *b, uint64_t i,
                                                          const int64_t **storage, int64_t *len);
AOTI_TORCH_EXPORT const double **shimrt_box_opt_float_list(shimrt_box *b, uint64_t i,
                                                           const double **storage, int64_t *len);
/* Argument i's reference moves to an output (a return that aliases it); it is then not
 * released unless the wrapper fails. Call before shimrt_box_release_args. */
AOTI_TORCH_EXPORT void shimrt_box_keep(shimrt_box *b, uint64_t i);
/* Releases every stolen argument exactly once (kept ones only after a failure) and the
 * temporary arrays. Call once, after the call and before the pushes. */
AOTI_TORCH_EXPORT void shimrt_box_release_args(shimrt_box *b);

/* ---- push: output j (each consumes its value; after a failure it releases it) ------- */
/* A new tensor reference (a kernel's retN). NULL after a failure is fine. */
AOTI_TORCH_EXPORT void shimrt_box_push_tensor(shimrt_box *b, uint64_t j, AtenTensorHandle t);
/* Tensor[]: a kernel's list return. Takes ownership of the n new tensor references in
 * items and of the array itself (allocated with malloc; freed here with free()); output j
 * becomes a new StableListHandle of them. items may be NULL when n is 0, and after a
 * failure (everything is then released). */
AOTI_TORCH_EXPORT void shimrt_box_push_tensor_list(shimrt_box *b, uint64_t j,
                                                   AtenTensorHandle *items, int64_t n);
/* Output j is kept argument i (in-place and out variants returning `Tensor(a!)`). */
AOTI_TORCH_EXPORT void shimrt_box_push_alias(shimrt_box *b, uint64_t j, uint64_t i);
AOTI_TORCH_EXPORT void shimrt_box_push_int(shimrt_box *b, uint64_t j, int64_t v);
AOTI_TORCH_EXPORT void shimrt_box_push_float(shimrt_box *b, uint64_t j, double v);
AOTI_TORCH_EXPORT void shimrt_box_push_bool(shimrt_box *b, uint64_t j, int32_t v);
AOTI_TORCH_EXPORT void shimrt_box_push_code(shimrt_box *b, uint64_t j, int32_t v);
/* Scalar: a new ScalarHandle holding v (a double); can fail (out of memory). */
AOTI_TORCH_EXPORT void shimrt_box_push_scalar(shimrt_box *b, uint64_t j, double v);
/* str: a new StringHandle copying s (borrowed; NULL fails the box). */
AOTI_TORCH_EXPORT void shimrt_box_push_str(shimrt_box *b, uint64_t j, const char *s);
AOTI_TORCH_EXPORT void shimrt_box_push_generator(shimrt_box *b, uint64_t j, AtenGeneratorHandle g);
/* Ends the wrapper. On success does nothing more; after a failure releases the pushed
 * outputs, zeroes stack[0 .. max(num_args, num_outputs)) and calls shimrt_kernel_fail
 * with the first failure's message. */
AOTI_TORCH_EXPORT void shimrt_box_finish(shimrt_box *b);

/* ==== 3. Dispatcher-routed shims (aoti_torch_aten_<op>) ============================== *
 *   static shimrt_op_cache op;
 *   StableIValue stack[3];
 *   shimrt_pack p;
 *   SHIMRT_ARG_RET(ret0);
 *   shimrt_pack_begin(&p, __func__, stack, 3);
 *   shimrt_pack_tensor(&p, "self", self); ... one line per argument, in schema order
 *   SHIMRT_TRY(shimrt_pack_call(&p, &op, "aten::add", "Tensor"));
 *   *ret0 = siv_to_tensor(stack[0]);                  one line per return
 *
 * Each pack puts an owning value on the stack (a new tensor reference, a new list, cell,
 * string or scalar); arguments stay borrowed from the shim's caller. A failing pack
 * (bad argument, out of memory) is remembered; shimrt_pack_call then releases what was
 * packed and returns it. After a failing call, every argument still on the stack is
 * released (a boxed kernel that failed has zeroed what it consumed). On success the
 * stack holds the returns, owned by the shim, which hands them to its caller. */
typedef struct shimrt_op_cache {
    ShimrtOpHandle op; /* set once (atomically) by the first successful lookup */
} shimrt_op_cache;

#define SHIMRT_PACK_MAX_ARGS SHIMRT_BOX_MAX_ARGS
typedef struct shimrt_pack {
    const char *func; /* the shim's name, for messages */
    StableIValue *stack;
    uint64_t cap, n;                           /* stack capacity; values packed so far */
    AOTITorchError err;                        /* the first failure */
    unsigned char kinds[SHIMRT_PACK_MAX_ARGS]; /* how to release slot k */
} shimrt_pack;

/* cap: the stack's size, max(number of arguments, number of returns). */
AOTI_TORCH_EXPORT void shimrt_pack_begin(shimrt_pack *p, const char *func, StableIValue *stack,
                                         uint64_t cap);
/* The argument packers, one per shim parameter form; `name` names the argument in
 * messages. */
AOTI_TORCH_EXPORT void shimrt_pack_tensor(shimrt_pack *p, const char *name, AtenTensorHandle x);
AOTI_TORCH_EXPORT void shimrt_pack_opt_tensor(shimrt_pack *p, const char *name,
                                              const AtenTensorHandle *x);
AOTI_TORCH_EXPORT void shimrt_pack_int(shimrt_pack *p, int64_t x);
AOTI_TORCH_EXPORT void shimrt_pack_opt_int(shimrt_pack *p, const int64_t *x);
AOTI_TORCH_EXPORT void shimrt_pack_float(shimrt_pack *p, double x);
AOTI_TORCH_EXPORT void shimrt_pack_opt_float(shimrt_pack *p, const double *x);
AOTI_TORCH_EXPORT void shimrt_pack_bool(shimrt_pack *p, int32_t x);
AOTI_TORCH_EXPORT void shimrt_pack_opt_bool(shimrt_pack *p, const int32_t *x);
/* ScalarType, Layout, MemoryFormat codes. */
AOTI_TORCH_EXPORT void shimrt_pack_code(shimrt_pack *p, int32_t x);
AOTI_TORCH_EXPORT void shimrt_pack_opt_code(shimrt_pack *p, const int32_t *x);
/* DeviceIndex? (a DeviceIndex itself packs as an int: shimrt_pack_int). */
AOTI_TORCH_EXPORT void shimrt_pack_opt_device_index(shimrt_pack *p, const int32_t *x);
AOTI_TORCH_EXPORT void shimrt_pack_device(shimrt_pack *p, int32_t type, int32_t index);
AOTI_TORCH_EXPORT void shimrt_pack_opt_device(shimrt_pack *p, const int32_t *type, int32_t index);
/* Scalar: a new ScalarHandle holding the double. */
AOTI_TORCH_EXPORT void shimrt_pack_scalar(shimrt_pack *p, double x);
AOTI_TORCH_EXPORT void shimrt_pack_opt_scalar(shimrt_pack *p, const double *x);
/* The same from a kernel's form (a derived out kernel): the ScalarHandle keeps x's kind. */
AOTI_TORCH_EXPORT void shimrt_pack_scalar_value(shimrt_pack *p, shimrt_scalar x);
AOTI_TORCH_EXPORT void shimrt_pack_opt_scalar_value(shimrt_pack *p, const shimrt_scalar *x);
AOTI_TORCH_EXPORT void shimrt_pack_str(shimrt_pack *p, const char *name, const char *x);
AOTI_TORCH_EXPORT void shimrt_pack_opt_str(shimrt_pack *p, const char *name, const char *const *x);
AOTI_TORCH_EXPORT void shimrt_pack_int_list(shimrt_pack *p, const char *name, const int64_t *x,
                                            int64_t len);
AOTI_TORCH_EXPORT void shimrt_pack_opt_int_list(shimrt_pack *p, const char *name,
                                                const int64_t *const *x, int64_t len);
AOTI_TORCH_EXPORT void shimrt_pack_float_list(shimrt_pack *p, const char *name, const double *x,
                                              int64_t len);
AOTI_TORCH_EXPORT void shimrt_pack_opt_float_list(shimrt_pack *p, const char *name,
                                                  const double *const *x, int64_t len);
/* Scalar[]: a list of new ScalarHandles, one per double. */
AOTI_TORCH_EXPORT void shimrt_pack_scalar_list(shimrt_pack *p, const char *name, const double *x,
                                               int64_t len);
/* bool[N] (int32_t items, nonzero is true) and ScalarType[] (codes). */
AOTI_TORCH_EXPORT void shimrt_pack_bool_list(shimrt_pack *p, const char *name, const int32_t *x,
                                             int64_t len);
AOTI_TORCH_EXPORT void shimrt_pack_code_list(shimrt_pack *p, const char *name, const int32_t *x,
                                             int64_t len);
/* Generator: a new reference to x (torch_new_generator_handle); NULL or a bad handle fails
 * the pack. Generator? (AtenGeneratorHandle *x): NULL, or a pointer to NULL, is None. */
AOTI_TORCH_EXPORT void shimrt_pack_generator(shimrt_pack *p, const char *name,
                                             AtenGeneratorHandle x);
AOTI_TORCH_EXPORT void shimrt_pack_opt_generator(shimrt_pack *p, const char *name,
                                                 const AtenGeneratorHandle *x);
AOTI_TORCH_EXPORT void shimrt_pack_tensor_list(shimrt_pack *p, const char *name,
                                               const AtenTensorHandle *x, int64_t len);
/* Tensor?[] (const AtenTensorHandle **x: NULL items are None). */
AOTI_TORCH_EXPORT void shimrt_pack_opt_tensor_list(shimrt_pack *p, const char *name,
                                                   const AtenTensorHandle *const *x, int64_t len);

/* Looks the op up once (cached in *cache; thread-safe) and calls it with the stack, as
 * torch_call_dispatcher does. Returns AOTI_TORCH_SUCCESS with the returns on the stack,
 * or AOTI_TORCH_FAILURE with every packed argument released and the message set
 * ("<func>: <dispatcher's message>"). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_pack_call(shimrt_pack *p, shimrt_op_cache *cache,
                                                  const char *op_name, const char *overload);

/* The end of a derived (`autogen`) out kernel (generated/derived_kernels.c), after its
 * functional op has returned n tensors on stack[0 .. n): resizes outs[j] (borrowed) to
 * result j's shape as PyTorch resizes out arguments, copies the result into it (its dtype
 * may differ, as with aoti_torch_copy_) and releases every result, success or not.
 * Returns the first failure, with the thread's message naming func. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_autogen_out(const char *func, StableIValue *stack,
                                                    const AtenTensorHandle *outs, int n);

/* Returns from a dispatcher-routed shim: the stack's value j, now the caller's.
 * Scalar returns: the value as a double (the handle is freed). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_pop_scalar(const char *func, StableIValue v, double *ret);
/* str returns: consumes the StringHandle v (deleted, success or not) and stores in *ret a
 * runtime-owned, interned copy of its text: valid until the process ends, the same text
 * always gives the same pointer, and the caller frees nothing (like the borrowed string a
 * kernel returns through a direct shim). Fails on a bad handle or out of memory (*ret
 * untouched). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_pop_str(const char *func, StableIValue v, const char **ret);
/* Tensor[] returns: consumes the StableListHandle v (deleted, success or not) and stores in
 * *ret a new array (allocated with malloc; the caller frees it with free()) of its *len
 * tensors, each a new reference the caller owns (free with aoti_torch_delete_tensor_object).
 * Fails on a bad handle or out of memory (*ret and *len untouched, the tensors released). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_pop_tensor_list(const char *func, StableIValue v,
                                                        AtenTensorHandle **ret, int64_t *len);
/* Drops a return that the shim does not hand out (the alias an in-place op returns),
 * releasing it by its kind (SHIMRT_KIND_* of shimrt/codes.h). */
AOTI_TORCH_EXPORT void shimrt_pop_discard(int kind, StableIValue v);

/* ==== 4. Registration ================================================================ */
typedef struct shimrt_def_entry {
    const char *schema; /* "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor" */
    uint64_t tags;      /* SHIMRT_TAG_BIT(CORE) | SHIMRT_TAG_BIT(POINTWISE): codes.h; 0: none */
} shimrt_def_entry;
typedef struct shimrt_impl_entry {
    const char *name; /* "add.Tensor" */
    ShimrtBoxedKernel fn;
} shimrt_impl_entry;

/* Registers a namespace's ops for one dispatch key, all or nothing:
 * - when ret_def is not NULL: a DEF library for ns (aoti_torch_library_init_def) with
 *   every schema of defs, returned in *ret_def;
 * - a library for ns and key (aoti_torch_library_init_impl) with every kernel of impls,
 *   returned in *ret_impl.
 * Both are new libraries: free them with aoti_torch_delete_library_object (which removes
 * the definitions and kernels). file/line name the registering source in diagnostics.
 * On failure nothing stays registered, the out-pointers are untouched, and the message
 * names the schema or op that failed. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_register_ops(const char *ns, const char *key,
                                                     const char *file, uint32_t line,
                                                     const shimrt_def_entry *defs, size_t n_defs,
                                                     const shimrt_impl_entry *impls, size_t n_impls,
                                                     TorchLibraryHandle *ret_def,
                                                     TorchLibraryHandle *ret_impl);

#ifdef __cplusplus
}
#endif
#endif

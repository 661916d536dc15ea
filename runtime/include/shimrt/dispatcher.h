/* shimrt/dispatcher.h: libraries, operator registration and boxed calls.
 *
 * An op is defined once by a schema string ("ns::name.overload(args) -> rets", parsed with
 * the same grammar as shimgen) and implemented by boxed kernels registered per dispatch
 * key. Keys: the backends CPU, CUDA, XPU, MPS, Meta, PrivateUse1 (picked from the devices
 * of the tensor arguments; when they differ, the highest of CPU < CUDA < MPS < XPU <
 * PrivateUse1 < Meta wins) and the composite keys tried after the backend:
 * CompositeExplicitAutogradNonFunctional, CompositeExplicitAutograd,
 * CompositeImplicitAutograd (PyTorch's order). A call without tensor arguments uses the
 * composite keys only. An impl registered from a DEF or FRAGMENT library (no key) goes to
 * CompositeImplicitAutograd, as PyTorch's catch-all does.
 *
 * Stack conventions (PyTorch's): a stack is filled left to right; returns overwrite it
 * from index 0. The caller of a dispatch call puts owning references on the stack and
 * takes ownership of what comes back; a boxed kernel
 *     void fn(StableIValue *stack, uint64_t num_args, uint64_t num_outputs)
 * steals its arguments and pushes new references. The stack must have room for
 * max(number of arguments, number of returns) values. Who owns the arguments after a
 * failed call (PyTorch's rule: the dispatcher takes them once it found the op; the caller
 * keeps them only when the op is unknown or undefined): docs/runtime-api.md, "Ownership".
 *
 * Thread safety: registration and deletion take a mutex; calls take no lock. Op handles
 * stay valid for the life of the process. */
#ifndef SHIMRT_DISPATCHER_H
#define SHIMRT_DISPATCHER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A boxed kernel (see the stack conventions above). */
typedef void (*ShimrtBoxedKernel)(StableIValue *stack, uint64_t num_args, uint64_t num_outputs);

/* ---- libraries --------------------------------------------------------------------- */
/* Each returns a new library; free with aoti_torch_delete_library_object, which also
 * removes every def and impl it registered. file/line are copied (diagnostics).
 * init_def: the one library that may define ops of namespace ns (a second one fails
 * while the first lives). init_fragment: may define more ops of ns. init_impl: registers
 * kernels for ops of ns under dispatch key k (one of the keys above). */
AOTI_TORCH_EXPORT AOTITorchError
aoti_torch_library_init_impl(const char *ns, const char *k, const char *file, uint32_t line,
                             TorchLibraryHandle *ret_new_torch_lib);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_library_init_def(const char *ns, const char *file,
                                                             uint32_t line,
                                                             TorchLibraryHandle *ret_new_torch_lib);
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_library_init_fragment(
    const char *ns, const char *file, uint32_t line, TorchLibraryHandle *ret_new_torch_lib);
/* Defines an op from its schema (borrowed; copied). Fails on a parse error (with the
 * parser's message and offset), a namespace other than the library's, an IMPL library,
 * an op already defined, or an argument type with no StableIValue encoding (Any, ...). */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_library_def(TorchLibraryHandle self,
                                                        const char *schema);
/* Registers fn for op `name` ("name" or "name.overload", optionally "ns::"-prefixed) under
 * the library's key. The op may be defined later. Fails when that op already has a
 * kernel for the key. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_library_impl(TorchLibraryHandle self, const char *name,
                                                         void (*fn)(StableIValue *, uint64_t,
                                                                    uint64_t));
/* Registration failures are deferred by default: aoti_torch_library_def,
 * torch_library_def_with_tags, aoti_torch_library_impl and torch_library_impl then
 * return success; the message is printed on stderr and kept (shimrt_registration_error),
 * and a call of that op by name fails with it. A failed init_* returns failure, leaves
 * *ret_new_torch_lib NULL and keeps its message too. Why: PyTorch's stable headers register
 * from static initializers and throw when a def or impl fails, and an exception out of a
 * static initializer terminates the process that loads the extension. Strict mode
 * (shimrt_registration_set_strict(true), for the whole process) makes def and impl fail. */
AOTI_TORCH_EXPORT void shimrt_registration_set_strict(bool strict);
/* The index-th deferred registration message for `name` ("ns::name" or
 * "ns::name.overload" as registered; a failed init: its namespace; NULL: any), or
 * *ret_message = NULL when there is none. Borrowed: valid for the life of the process. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_registration_error(const char *name, size_t index,
                                                           const char **ret_message);
/* Removes the library's defs and impls and frees it. NULL is a no-op success. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_delete_library_object(TorchLibraryHandle tlh);

/* ---- calls ------------------------------------------------------------------------- */
/* Calls op opName ("ns::name") overload overloadName ("" or NULL: the default one) with
 * the stack (see the conventions above). */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_call_dispatcher(const char *opName,
                                                            const char *overloadName,
                                                            StableIValue *stack);
/* The same; extension_build_version (the caller's TORCH_ABI_VERSION) is accepted for
 * compatibility: ops registered here have one schema, so no adaptation is needed. */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_call_dispatcher_v2(const char *opName,
                                                               const char *overloadName,
                                                               StableIValue *stack,
                                                               uint64_t extension_build_version);

#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_10_0
AOTI_TORCH_EXPORT AOTITorchError torch_call_dispatcher(const char *opName, const char *overloadName,
                                                       StableIValue *stack,
                                                       uint64_t extension_build_version);
/* aoti_torch_library_impl with the extension's build version (accepted, not needed). */
AOTI_TORCH_EXPORT AOTITorchError torch_library_impl(TorchLibraryHandle self, const char *name,
                                                    void (*fn)(StableIValue *, uint64_t, uint64_t),
                                                    uint64_t extension_build_version);
#endif

#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_12_0
/* Tag codes for torch_library_def_with_tags; the numbers are not part of the ABI. */
AOTI_TORCH_EXPORT int32_t torch_tag_core(void);
AOTI_TORCH_EXPORT int32_t torch_tag_cudagraph_unsafe(void);
AOTI_TORCH_EXPORT int32_t torch_tag_data_dependent_output(void);
AOTI_TORCH_EXPORT int32_t torch_tag_dynamic_output_shape(void);
AOTI_TORCH_EXPORT int32_t torch_tag_flexible_layout(void);
AOTI_TORCH_EXPORT int32_t torch_tag_generated(void);
AOTI_TORCH_EXPORT int32_t torch_tag_inplace(void);
AOTI_TORCH_EXPORT int32_t torch_tag_inplace_view(void);
AOTI_TORCH_EXPORT int32_t torch_tag_maybe_aliasing_or_mutating(void);
AOTI_TORCH_EXPORT int32_t torch_tag_needs_contiguous_strides(void);
AOTI_TORCH_EXPORT int32_t torch_tag_needs_exact_strides(void);
AOTI_TORCH_EXPORT int32_t torch_tag_needs_fixed_stride_order(void);
AOTI_TORCH_EXPORT int32_t torch_tag_nondeterministic_bitwise(void);
AOTI_TORCH_EXPORT int32_t torch_tag_nondeterministic_seeded(void);
AOTI_TORCH_EXPORT int32_t torch_tag_out(void);
AOTI_TORCH_EXPORT int32_t torch_tag_out_variant(void);
AOTI_TORCH_EXPORT int32_t torch_tag_pointwise(void);
AOTI_TORCH_EXPORT int32_t torch_tag_pt2_compliant_tag(void);
AOTI_TORCH_EXPORT int32_t torch_tag_reduction(void);
AOTI_TORCH_EXPORT int32_t torch_tag_view_copy(void);
/* aoti_torch_library_def with tags (num_tags codes from torch_tag_*(); tags may be NULL
 * when num_tags is 0). An unknown code fails. */
AOTI_TORCH_EXPORT AOTITorchError torch_library_def_with_tags(TorchLibraryHandle self,
                                                             const char *schema,
                                                             const int32_t *tags, int32_t num_tags);
#endif

#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_13_0
/* Records the Python module for the library's ops (kept for diagnostics only: this
 * runtime has no Python). Both strings are copied; context may be NULL. */
AOTI_TORCH_EXPORT AOTITorchError torch_library_set_python_module(TorchLibraryHandle self,
                                                                 const char *pymodule,
                                                                 const char *context);
#endif

/* ---- our extensions: op handles ------------------------------------------------------- */
typedef struct ShimrtOp *ShimrtOpHandle;
/* Finds the defined op opName ("ns::name") / overloadName ("" or NULL: default). The
 * handle is borrowed and stays valid for the life of the process (a call through it
 * fails cleanly once its def is removed). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_op_find(const char *opName, const char *overloadName,
                                                ShimrtOpHandle *ret);
/* A call like torch_call_dispatcher, without the name lookup. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_op_call(ShimrtOpHandle op, StableIValue *stack,
                                                uint64_t extension_build_version);
/* The op's canonical schema text. Borrowed: valid for the life of the process. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_op_schema(ShimrtOpHandle op, const char **ret);
/* The number of arguments and returns of the schema (either pointer may be NULL). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_op_arity(ShimrtOpHandle op, uint64_t *num_args,
                                                 uint64_t *num_returns);
/* Whether the op was defined with tag (a torch_tag_*() code). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_op_has_tag(ShimrtOpHandle op, int32_t tag, bool *ret);
/* Whether a kernel is registered for the dispatch key named key ("CPU", ...). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_op_has_kernel(ShimrtOpHandle op, const char *key,
                                                      bool *ret);

/* Called by a boxed kernel that cannot complete: it must have released its arguments and
 * pushed nothing. The dispatch call that ran the kernel then returns AOTI_TORCH_FAILURE
 * with this message ("<op>: <message>"). Returns AOTI_TORCH_FAILURE. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_kernel_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Frees a StableIValue of schema type `type` ("Tensor", "str?", "Tensor?[]", "Scalar",
 * ...) with everything it owns, recursively: optional cells, lists and their items,
 * strings, scalars, complex cells, tensors, generators, streams. Plain values (int,
 * float, Device, ...) own nothing. A 0 handle (None, an absent tensor) is a no-op. Fails
 * on a type with no encoding; for a bad handle inside the value it frees what it can and
 * fails. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_siv_release(const char *type, StableIValue value);

#ifdef __cplusplus
}
#endif
#endif

/* tests/runtime/test_dispatcher.c: libraries, defs, impls, boxed calls, key selection with
 * composite fallbacks, op handles, tags, deregistration, and every error path
 * (shimrt/dispatcher.h). Criterion runs each test in its own process, so registrations
 * never leak between tests. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "contig.h"
#include "shimrt/shimrt.h"
#include "shimrt_test.h"

static AtenTensorHandle tensor_on(int32_t device_type) {
    int64_t sizes[1] = {2};
    AtenTensorHandle t = NULL;
    OK(aoti_torch_empty_strided(1, sizes, shimrt_test_strides(1, sizes), aoti_torch_dtype_float32(),
                                device_type, 0, &t));
    return t;
}

/* Kernels that report which one ran: they release their tensor argument and return an
 * int naming themselves. */
#define WHO_KERNEL(name, code)                                                                     \
    static void name(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {               \
        cr_assert_eq(num_args, 1);                                                                 \
        cr_assert_eq(num_outputs, 1);                                                              \
        aoti_torch_delete_tensor_object(siv_to_tensor(stack[0]));                                  \
        stack[0] = siv_from_int(code);                                                             \
    }
WHO_KERNEL(k_cpu, 1)
WHO_KERNEL(k_meta, 2)
WHO_KERNEL(k_cea, 3)
WHO_KERNEL(k_cia, 4)
WHO_KERNEL(k_ceanf, 5)

/* These suites check each registration error where it happens: strict mode, set before
 * Criterion forks the tests (the `deferred` suite turns it off again). */
__attribute__((constructor)) static void strict_registration(void) {
    shimrt_registration_set_strict(true);
}

static TorchLibraryHandle def_lib(const char *ns) {
    TorchLibraryHandle lib = NULL;
    OK(aoti_torch_library_init_def(ns, __FILE__, __LINE__, &lib));
    return lib;
}
static TorchLibraryHandle impl_lib(const char *ns, const char *key) {
    TorchLibraryHandle lib = NULL;
    OK(aoti_torch_library_init_impl(ns, key, __FILE__, __LINE__, &lib));
    return lib;
}

/* Calls t.who(Tensor x) -> int with a fresh tensor on device_type; returns the code. */
static int64_t who(int32_t device_type) {
    StableIValue stack[1] = {siv_from_tensor(tensor_on(device_type))};
    OK(torch_call_dispatcher("t::who", "", stack, TORCH_ABI_VERSION));
    return siv_to_int(stack[0]);
}

/* ---- the basic path ---- */
static void k_add_scalar(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    cr_assert_eq(num_args, 2);
    cr_assert_eq(num_outputs, 1);
    AtenTensorHandle in = siv_to_tensor(stack[0]);
    double s = siv_to_double(stack[1]);
    AtenTensorHandle out = NULL;
    aoti_torch_clone(in, &out);
    float *src = NULL, *dst = NULL;
    aoti_torch_get_data_ptr(in, (void **)&src);
    aoti_torch_get_data_ptr(out, (void **)&dst);
    for (int i = 0; i < 2; i++) dst[i] = src[i] + (float)s;
    aoti_torch_delete_tensor_object(in); /* stolen */
    stack[0] = siv_from_tensor(out);
}

Test(dispatch, def_impl_call) {
    TorchLibraryHandle d = def_lib("myops");
    OK(aoti_torch_library_def(d, "add_scalar(Tensor input, float scalar) -> Tensor"));
    TorchLibraryHandle i = impl_lib("myops", "CPU");
    OK(aoti_torch_library_impl(i, "add_scalar", k_add_scalar));
    AtenTensorHandle t = tensor_on(0);
    float *p = NULL;
    OK(aoti_torch_get_data_ptr(t, (void **)&p));
    p[0] = 1.0f;
    p[1] = -2.0f;
    StableIValue stack[2] = {siv_from_tensor(t), siv_from_double(0.5)};
    OK(torch_call_dispatcher("myops::add_scalar", "", stack, TORCH_ABI_VERSION));
    AtenTensorHandle r = siv_to_tensor(stack[0]);
    float *q = NULL;
    OK(aoti_torch_get_data_ptr(r, (void **)&q));
    cr_assert(q[0] == 1.5f && q[1] == -1.5f);
    OK(aoti_torch_delete_tensor_object(r));
    /* the other entry points */
    stack[0] = siv_from_tensor(tensor_on(0));
    stack[1] = siv_from_double(1.0);
    OK(aoti_torch_call_dispatcher("myops::add_scalar", NULL, stack));
    OK(aoti_torch_delete_tensor_object(siv_to_tensor(stack[0])));
    stack[0] = siv_from_tensor(tensor_on(0));
    OK(aoti_torch_call_dispatcher_v2("myops::add_scalar", "", stack, TORCH_ABI_VERSION));
    OK(aoti_torch_delete_tensor_object(siv_to_tensor(stack[0])));
    OK(aoti_torch_delete_library_object(i));
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

/* ---- key selection and fallbacks ---- */
Test(dispatch, backend_from_tensor_devices) {
    TorchLibraryHandle d = def_lib("t");
    OK(aoti_torch_library_def(d, "who(Tensor x) -> int"));
    TorchLibraryHandle cpu = impl_lib("t", "CPU"), meta = impl_lib("t", "Meta");
    OK(aoti_torch_library_impl(cpu, "who", k_cpu));
    OK(aoti_torch_library_impl(meta, "who", k_meta));
    cr_assert_eq(who(aoti_torch_device_type_cpu()), 1);
    cr_assert_eq(who(aoti_torch_device_type_meta()), 2);
    OK(aoti_torch_delete_library_object(meta));
    /* Meta's kernel is gone and there is no composite: an error naming op, overload, key */
    StableIValue stack[1] = {siv_from_tensor(tensor_on(aoti_torch_device_type_meta()))};
    FAILS(torch_call_dispatcher("t::who", "", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "no kernel for dispatch key Meta");
    HAS("t::who");
    HAS("(default)");
    HAS("registered: [CPU]");
    /* PyTorch's rule: the failed call has taken and released its argument (no_leaks below
     * proves the tensor was freed; the slot is cleared) */
    cr_assert_eq(stack[0], 0);
    OK(aoti_torch_delete_library_object(cpu));
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

static void k_pair(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    cr_assert_eq(num_args, 2);
    cr_assert_eq(num_outputs, 1);
    aoti_torch_delete_tensor_object(siv_to_tensor(stack[0]));
    aoti_torch_delete_tensor_object(siv_to_tensor(stack[1]));
    stack[0] = siv_from_int(100);
}
static void k_pair_meta(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    k_pair(stack, num_args, num_outputs);
    stack[0] = siv_from_int(200);
}

Test(dispatch, highest_backend_wins) {
    TorchLibraryHandle d = def_lib("t");
    OK(aoti_torch_library_def(d, "pair(Tensor a, Tensor b) -> int"));
    TorchLibraryHandle cpu = impl_lib("t", "CPU"), meta = impl_lib("t", "Meta");
    OK(aoti_torch_library_impl(cpu, "pair", k_pair));
    OK(aoti_torch_library_impl(meta, "pair", k_pair_meta));
    StableIValue stack[2] = {siv_from_tensor(tensor_on(0)), siv_from_tensor(tensor_on(14))};
    OK(torch_call_dispatcher("t::pair", "", stack, TORCH_ABI_VERSION));
    cr_assert_eq(siv_to_int(stack[0]), 200);
    stack[0] = siv_from_tensor(tensor_on(0));
    stack[1] = siv_from_tensor(tensor_on(0));
    OK(torch_call_dispatcher("t::pair", "", stack, TORCH_ABI_VERSION));
    cr_assert_eq(siv_to_int(stack[0]), 100);
    OK(aoti_torch_delete_library_object(cpu));
    OK(aoti_torch_delete_library_object(meta));
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

Test(dispatch, composite_order) {
    TorchLibraryHandle d = def_lib("t");
    OK(aoti_torch_library_def(d, "who(Tensor x) -> int"));
    TorchLibraryHandle cia = impl_lib("t", "CompositeImplicitAutograd");
    OK(aoti_torch_library_impl(cia, "who", k_cia));
    cr_assert_eq(who(0), 4);
    TorchLibraryHandle cea = impl_lib("t", "CompositeExplicitAutograd");
    OK(aoti_torch_library_impl(cea, "who", k_cea));
    cr_assert_eq(who(0), 3, "CompositeExplicitAutograd before CompositeImplicitAutograd");
    TorchLibraryHandle nf = impl_lib("t", "CompositeExplicitAutogradNonFunctional");
    OK(aoti_torch_library_impl(nf, "who", k_ceanf));
    cr_assert_eq(who(14), 5, "NonFunctional first among the composites");
    TorchLibraryHandle cpu = impl_lib("t", "CPU");
    OK(aoti_torch_library_impl(cpu, "who", k_cpu));
    cr_assert_eq(who(0), 1, "a backend kernel before any composite");
    cr_assert_eq(who(14), 5, "Meta has no kernel: composite");
    OK(aoti_torch_delete_library_object(nf));
    OK(aoti_torch_delete_library_object(cea));
    cr_assert_eq(who(14), 4);
    OK(aoti_torch_delete_library_object(cia));
    OK(aoti_torch_delete_library_object(cpu));
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

static void k_const(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    cr_assert_eq(num_args, 1);
    cr_assert_eq(num_outputs, 1);
    stack[0] = siv_from_int(siv_to_int(stack[0]) * 2);
}

Test(dispatch, no_tensor_arguments) {
    TorchLibraryHandle d = def_lib("t");
    OK(aoti_torch_library_def(d, "twice(int x) -> int"));
    TorchLibraryHandle cpu = impl_lib("t", "CPU");
    OK(aoti_torch_library_impl(cpu, "twice", k_const));
    StableIValue stack[1] = {siv_from_int(21)};
    FAILS(torch_call_dispatcher("t::twice", "", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "no tensor arguments");
    HAS("t::twice");
    HAS("Undefined");
    cr_assert_eq(stack[0], 0,
                 "as PyTorch, a failed call has taken (and released) the "
                 "arguments of a found op");
    /* an impl from the DEF library is catch-all: CompositeImplicitAutograd */
    OK(aoti_torch_library_impl(d, "twice", k_const));
    stack[0] = siv_from_int(21);
    OK(torch_call_dispatcher("t::twice", "", stack, TORCH_ABI_VERSION));
    cr_assert_eq(siv_to_int(stack[0]), 42);
    ShimrtOpHandle op = NULL;
    OK(shimrt_op_find("t::twice", "", &op));
    bool has = false;
    OK(shimrt_op_has_kernel(op, "CompositeImplicitAutograd", &has));
    cr_assert(has);
    OK(aoti_torch_delete_library_object(cpu));
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

/* ---- tensors inside optionals and lists decide the key too ---- */
static void k_lists(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    cr_assert_eq(num_args, 2);
    cr_assert_eq(num_outputs, 1);
    StableIValue t;
    if (siv_take_optional(stack[0], &t)) aoti_torch_delete_tensor_object(siv_to_tensor(t));
    shimrt_siv_release("Tensor?[]", stack[1]);
    stack[0] = siv_from_int(7);
}
static void k_lists_meta(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    k_lists(stack, num_args, num_outputs);
    stack[0] = siv_from_int(8);
}

Test(dispatch, optional_and_list_arguments) {
    TorchLibraryHandle d = def_lib("t");
    OK(aoti_torch_library_def(d, "lists(Tensor? a, Tensor?[] b) -> int"));
    TorchLibraryHandle cpu = impl_lib("t", "CPU"), meta = impl_lib("t", "Meta");
    OK(aoti_torch_library_impl(cpu, "lists", k_lists));
    OK(aoti_torch_library_impl(meta, "lists", k_lists_meta));
    /* None, [None, cpu] -> CPU */
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(2, &l));
    OK(torch_list_push_back(l, siv_none()));
    StableIValue cell = 0;
    OK(siv_new_optional(siv_from_tensor(tensor_on(0)), &cell));
    OK(torch_list_push_back(l, cell));
    StableIValue stack[2] = {siv_none(), siv_from_list(l)};
    OK(torch_call_dispatcher("t::lists", "", stack, TORCH_ABI_VERSION));
    cr_assert_eq(siv_to_int(stack[0]), 7);
    /* meta optional, [cpu] -> Meta */
    OK(siv_new_optional(siv_from_tensor(tensor_on(14)), &stack[0]));
    OK(torch_new_list_reserve_size(1, &l));
    OK(siv_new_optional(siv_from_tensor(tensor_on(0)), &cell));
    OK(torch_list_push_back(l, cell));
    stack[1] = siv_from_list(l);
    OK(torch_call_dispatcher("t::lists", "", stack, TORCH_ABI_VERSION));
    cr_assert_eq(siv_to_int(stack[0]), 8);
    /* a bad list handle is reported, not followed */
    static uint64_t fake[4];
    stack[0] = siv_none();
    stack[1] = (StableIValue)(uintptr_t)fake;
    FAILS(torch_call_dispatcher("t::lists", "", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "list handle");
    HAS("'b'");
    OK(aoti_torch_delete_library_object(cpu));
    OK(aoti_torch_delete_library_object(meta));
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

Test(dispatch, bad_tensor_argument) {
    TorchLibraryHandle d = def_lib("t");
    OK(aoti_torch_library_def(d, "who(Tensor x) -> int"));
    TorchLibraryHandle cpu = impl_lib("t", "CPU");
    OK(aoti_torch_library_impl(cpu, "who", k_cpu));
    static uint64_t fake[16];
    StableIValue stack[1] = {(StableIValue)(uintptr_t)fake};
    FAILS(torch_call_dispatcher("t::who", "", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "position 0: argument 'x'");
    AtenTensorHandle t = tensor_on(0);
    OK(aoti_torch_delete_tensor_object(t));
    stack[0] = siv_from_tensor(t);
    FAILS(torch_call_dispatcher("t::who", "", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "freed");
    OK(aoti_torch_delete_library_object(cpu));
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

/* ---- name errors ---- */
Test(dispatch, unknown_op_and_overload) {
    TorchLibraryHandle d = def_lib("t");
    OK(aoti_torch_library_def(d, "f.Tensor(Tensor x) -> Tensor"));
    OK(aoti_torch_library_def(d, "f.int(int x) -> int"));
    StableIValue stack[1] = {0};
    FAILS(torch_call_dispatcher("t::nope", "", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "unknown op t::nope");
    FAILS(torch_call_dispatcher("t::f", "Scalar", stack, TORCH_ABI_VERSION),
          "torch_call_dispatcher", "no overload 'Scalar'");
    HAS("'Tensor'");
    HAS("'int'");
    FAILS(torch_call_dispatcher("t::f", "", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "no overload ''");
    FAILS(torch_call_dispatcher("f", "", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "namespace::name");
    FAILS(torch_call_dispatcher(NULL, "", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "NULL");
    FAILS(aoti_torch_call_dispatcher("t::nope", "", stack), "aoti_torch_call_dispatcher",
          "unknown op");
    /* defined, but no kernel at all */
    FAILS(torch_call_dispatcher("t::f", "int", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "no kernel");
    HAS("overload int");
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

Test(dispatch, null_stack) {
    TorchLibraryHandle d = def_lib("t");
    OK(aoti_torch_library_def(d, "twice(int x) -> int"));
    OK(aoti_torch_library_impl(d, "twice", k_const));
    FAILS(torch_call_dispatcher("t::twice", "", NULL, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "'stack' is NULL");
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

/* ---- defs ---- */
Test(library, bad_schema) {
    TorchLibraryHandle d = def_lib("t");
    FAILS(aoti_torch_library_def(d, "f(Tensor x -> Tensor"), "aoti_torch_library_def",
          "bad schema");
    HAS("f(Tensor x -> Tensor");
    HAS("offset");
    FAILS(aoti_torch_library_def(d, "f(Blob x) -> Tensor"), "aoti_torch_library_def", "bad schema");
    FAILS(torch_library_def_with_tags(d, "f(", NULL, 0), "torch_library_def_with_tags",
          "bad schema");
    FAILS(aoti_torch_library_def(d, "g(Any x) -> Tensor"), "aoti_torch_library_def",
          "no StableIValue encoding");
    FAILS(aoti_torch_library_def(d, NULL), "aoti_torch_library_def", "NULL");
    /* nothing was defined */
    ShimrtOpHandle op = NULL;
    FAILS(shimrt_op_find("t::f", "", &op), "shimrt_op_find", "unknown op");
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

Test(library, namespace_and_redefinition) {
    TorchLibraryHandle d = def_lib("t");
    OK(aoti_torch_library_def(d, "t::f(Tensor x) -> Tensor"));
    FAILS(aoti_torch_library_def(d, "u::g(Tensor x) -> Tensor"), "aoti_torch_library_def",
          "namespace 'u'");
    FAILS(aoti_torch_library_def(d, "f(Tensor y) -> Tensor"), "aoti_torch_library_def",
          "already defined");
    HAS("t::f");
    /* a fragment may add ops, not redefine them */
    TorchLibraryHandle fr = NULL;
    OK(aoti_torch_library_init_fragment("t", "frag.c", 7, &fr));
    OK(aoti_torch_library_def(fr, "g(Tensor x) -> Tensor"));
    FAILS(aoti_torch_library_def(fr, "f(Tensor x) -> Tensor"), "aoti_torch_library_def",
          "already defined");
    /* a second DEF library for the namespace is refused while the first lives */
    TorchLibraryHandle d2 = NULL;
    FAILS(aoti_torch_library_init_def("t", "other.c", 3, &d2), "aoti_torch_library_init_def",
          "only one DEF library");
    OK(aoti_torch_delete_library_object(d));
    OK(aoti_torch_library_init_def("t", "other.c", 3, &d2));
    OK(aoti_torch_library_def(d2, "f(Tensor x) -> Tensor")); /* f was removed with d */
    OK(aoti_torch_delete_library_object(d2));
    OK(aoti_torch_delete_library_object(fr));
    no_leaks();
}

Test(library, def_in_impl_library_and_bad_keys) {
    TorchLibraryHandle i = impl_lib("t", "CPU");
    FAILS(aoti_torch_library_def(i, "f(Tensor x) -> Tensor"), "aoti_torch_library_def",
          "IMPL library");
    OK(aoti_torch_delete_library_object(i));
    TorchLibraryHandle l = NULL;
    FAILS(aoti_torch_library_init_impl("t", "Bogus", "x.c", 1, &l), "aoti_torch_library_init_impl",
          "dispatch key 'Bogus'");
    FAILS(aoti_torch_library_init_impl("t", NULL, "x.c", 1, &l), "aoti_torch_library_init_impl",
          "NULL");
    FAILS(aoti_torch_library_init_impl(NULL, "CPU", "x.c", 1, &l), "aoti_torch_library_init_impl",
          "NULL");
    FAILS(aoti_torch_library_init_def("bad ns", "x.c", 1, &l), "aoti_torch_library_init_def",
          "not an identifier");
    FAILS(aoti_torch_library_init_def("t", "x.c", 1, NULL), "aoti_torch_library_init_def", "NULL");
    FAILS(aoti_torch_library_init_fragment("", "x.c", 1, &l), "aoti_torch_library_init_fragment",
          "not an identifier");
    no_leaks();
}

Test(library, impl_errors) {
    TorchLibraryHandle d = def_lib("t");
    OK(aoti_torch_library_def(d, "who(Tensor x) -> int"));
    TorchLibraryHandle cpu = impl_lib("t", "CPU");
    OK(aoti_torch_library_impl(cpu, "t::who", k_cpu));
    FAILS(aoti_torch_library_impl(cpu, "who", k_meta), "aoti_torch_library_impl",
          "already has a kernel for dispatch key CPU");
    FAILS(aoti_torch_library_impl(cpu, "u::who", k_cpu), "aoti_torch_library_impl",
          "another namespace");
    FAILS(aoti_torch_library_impl(cpu, "who.", k_cpu), "aoti_torch_library_impl", "name.overload");
    FAILS(aoti_torch_library_impl(cpu, "wh o", k_cpu), "aoti_torch_library_impl", "name.overload");
    FAILS(aoti_torch_library_impl(cpu, NULL, k_cpu), "aoti_torch_library_impl", "NULL");
    FAILS(aoti_torch_library_impl(cpu, "who", NULL), "aoti_torch_library_impl", "NULL");
    FAILS(torch_library_impl(NULL, "who", k_cpu, TORCH_ABI_VERSION), "torch_library_impl", "NULL");
    OK(aoti_torch_delete_library_object(cpu));
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

Test(library, impl_before_def) {
    TorchLibraryHandle cpu = impl_lib("t", "CPU");
    OK(torch_library_impl(cpu, "who", k_cpu, TORCH_ABI_VERSION));
    StableIValue stack[1] = {siv_from_tensor(tensor_on(0))};
    FAILS(torch_call_dispatcher("t::who", "", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "not defined");
    TorchLibraryHandle d = def_lib("t");
    OK(aoti_torch_library_def(d, "who(Tensor x) -> int"));
    OK(torch_call_dispatcher("t::who", "", stack, TORCH_ABI_VERSION));
    cr_assert_eq(siv_to_int(stack[0]), 1);
    OK(aoti_torch_delete_library_object(d));
    OK(aoti_torch_delete_library_object(cpu));
    no_leaks();
}

Test(library, bad_library_handles) {
    static uint64_t fake[32];
    TorchLibraryHandle f = (TorchLibraryHandle)(void *)fake;
    FAILS(aoti_torch_library_def(NULL, "f() -> ()"), "aoti_torch_library_def", "NULL");
    FAILS(aoti_torch_library_def(f, "f() -> ()"), "aoti_torch_library_def", "not a handle");
    FAILS(aoti_torch_library_impl(f, "f", k_cpu), "aoti_torch_library_impl", "not a handle");
    OK(aoti_torch_delete_library_object(NULL)); /* x_free(NULL) is a no-op */
    FAILS(aoti_torch_delete_library_object(f), "aoti_torch_delete_library_object", "not a handle");
    TorchLibraryHandle d = def_lib("t");
    OK(aoti_torch_delete_library_object(d));
    FAILS(aoti_torch_library_def(d, "f() -> ()"), "aoti_torch_library_def", "freed");
    FAILS(aoti_torch_delete_library_object(d), "aoti_torch_delete_library_object", "freed");
    FAILS(torch_library_set_python_module(d, "m", NULL), "torch_library_set_python_module",
          "freed");
    no_leaks();
}

Test(library, python_module) {
    TorchLibraryHandle d = def_lib("t");
    OK(torch_library_set_python_module(d, "mypkg.ops", "ctx"));
    OK(torch_library_set_python_module(d, "mypkg.ops2", NULL));
    FAILS(torch_library_set_python_module(d, NULL, NULL), "torch_library_set_python_module",
          "NULL");
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

/* ---- tags ---- */
Test(tags, codes_distinct_and_recorded) {
    int32_t (*getters[])(void) = {torch_tag_core,
                                  torch_tag_cudagraph_unsafe,
                                  torch_tag_data_dependent_output,
                                  torch_tag_dynamic_output_shape,
                                  torch_tag_flexible_layout,
                                  torch_tag_generated,
                                  torch_tag_inplace,
                                  torch_tag_inplace_view,
                                  torch_tag_maybe_aliasing_or_mutating,
                                  torch_tag_needs_contiguous_strides,
                                  torch_tag_needs_exact_strides,
                                  torch_tag_needs_fixed_stride_order,
                                  torch_tag_nondeterministic_bitwise,
                                  torch_tag_nondeterministic_seeded,
                                  torch_tag_out,
                                  torch_tag_out_variant,
                                  torch_tag_pointwise,
                                  torch_tag_pt2_compliant_tag,
                                  torch_tag_reduction,
                                  torch_tag_view_copy};
    size_t n = sizeof getters / sizeof getters[0];
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 1; j < n; j++) cr_assert_neq(getters[i](), getters[j]());
    }
    TorchLibraryHandle d = def_lib("t");
    int32_t tags[2] = {torch_tag_pointwise(), torch_tag_core()};
    OK(torch_library_def_with_tags(d, "f(Tensor x) -> Tensor", tags, 2));
    ShimrtOpHandle op = NULL;
    OK(shimrt_op_find("t::f", NULL, &op));
    for (size_t i = 0; i < n; i++) {
        bool has = true;
        OK(shimrt_op_has_tag(op, getters[i](), &has));
        bool want = getters[i]() == torch_tag_pointwise() || getters[i]() == torch_tag_core();
        cr_assert_eq(has, want, "tag %zu", i);
    }
    bool has;
    FAILS(shimrt_op_has_tag(op, 999, &has), "shimrt_op_has_tag", "unknown tag");
    int32_t bad[1] = {-3};
    FAILS(torch_library_def_with_tags(d, "g(Tensor x) -> Tensor", bad, 1),
          "torch_library_def_with_tags", "unknown tag code -3");
    FAILS(torch_library_def_with_tags(d, "g(Tensor x) -> Tensor", NULL, 2),
          "torch_library_def_with_tags", "bad tags");
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

/* ---- op handles ---- */
Test(handles, find_call_inspect) {
    TorchLibraryHandle d = def_lib("t");
    OK(aoti_torch_library_def(d, "twice.overload(int x) -> int"));
    OK(aoti_torch_library_impl(d, "twice.overload", k_const));
    ShimrtOpHandle op = NULL;
    OK(shimrt_op_find("t::twice", "overload", &op));
    StableIValue stack[1] = {siv_from_int(5)};
    OK(shimrt_op_call(op, stack, TORCH_ABI_VERSION));
    cr_assert_eq(siv_to_int(stack[0]), 10);
    const char *text = NULL;
    OK(shimrt_op_schema(op, &text));
    cr_assert_str_eq(text, "t::twice.overload(int x) -> int");
    uint64_t na = 0, nr = 0;
    OK(shimrt_op_arity(op, &na, &nr));
    cr_assert(na == 1 && nr == 1);
    bool has = true;
    OK(shimrt_op_has_kernel(op, "CPU", &has));
    cr_assert(!has);
    FAILS(shimrt_op_has_kernel(op, "Nope", &has), "shimrt_op_has_kernel", "unknown dispatch key");
    /* the handle outlives the def: calls fail cleanly */
    OK(aoti_torch_delete_library_object(d));
    FAILS(shimrt_op_call(op, stack, TORCH_ABI_VERSION), "shimrt_op_call", "not defined");
    FAILS(shimrt_op_schema(op, &text), "shimrt_op_schema", "not defined");
    FAILS(shimrt_op_arity(op, &na, &nr), "shimrt_op_arity", "not defined");
    FAILS(shimrt_op_has_tag(op, torch_tag_core(), &has), "shimrt_op_has_tag", "not defined");
    no_leaks();
}

Test(handles, errors) {
    ShimrtOpHandle op = NULL;
    FAILS(shimrt_op_find(NULL, "", &op), "shimrt_op_find", "NULL");
    FAILS(shimrt_op_find("t::x", "", NULL), "shimrt_op_find", "NULL");
    FAILS(shimrt_op_find("t::x", "", &op), "shimrt_op_find", "unknown op t::x");
    StableIValue stack[1] = {0};
    FAILS(shimrt_op_call(NULL, stack, 0), "shimrt_op_call", "NULL");
    static uint64_t fake[64];
    ShimrtOpHandle f = (ShimrtOpHandle)(void *)fake;
    FAILS(shimrt_op_call(f, stack, 0), "shimrt_op_call", "not a handle");
    const char *t;
    FAILS(shimrt_op_schema(f, &t), "shimrt_op_schema", "not a handle");
    bool b;
    FAILS(shimrt_op_has_kernel(NULL, "CPU", &b), "shimrt_op_has_kernel", "NULL");
    TorchLibraryHandle d = def_lib("t");
    OK(aoti_torch_library_def(d, "x.a(int x) -> int"));
    FAILS(shimrt_op_find("t::x", "b", &op), "shimrt_op_find", "no overload 'b'");
    OK(shimrt_op_find("t::x", "a", &op));
    FAILS(shimrt_op_schema(op, NULL), "shimrt_op_schema", "NULL");
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

/* ---- kernel failures ---- */
static void k_fails(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    (void)num_outputs;
    (void)num_args;
    aoti_torch_delete_tensor_object(siv_to_tensor(stack[0]));
    shimrt_kernel_fail("input must be float32, got %s", "int64");
}

Test(dispatch, kernel_failure) {
    TorchLibraryHandle d = def_lib("t");
    OK(aoti_torch_library_def(d, "who(Tensor x) -> int"));
    TorchLibraryHandle cpu = impl_lib("t", "CPU");
    OK(aoti_torch_library_impl(cpu, "who", k_fails));
    StableIValue stack[1] = {siv_from_tensor(tensor_on(0))};
    FAILS(torch_call_dispatcher("t::who", "", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "kernel failed: input must be float32, got int64");
    HAS("key CPU");
    /* the next successful call is not affected */
    OK(aoti_torch_delete_library_object(cpu));
    cpu = impl_lib("t", "CPU");
    OK(aoti_torch_library_impl(cpu, "who", k_cpu));
    cr_assert_eq(who(0), 1);
    OK(aoti_torch_delete_library_object(cpu));
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

/* ---- the stack conventions with owned values of every container kind ---- */
static void k_own(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    cr_assert_eq(num_args, 4);
    cr_assert_eq(num_outputs, 2);
    /* steal: Tensor x, int? n, str[] words, Scalar s */
    AtenTensorHandle x = siv_to_tensor(stack[0]);
    StableIValue nv = 0;
    int64_t n = siv_take_optional(stack[1], &nv) ? siv_to_int(nv) : -1;
    StableListHandle words = siv_to_list(stack[2]);
    size_t nw = 0;
    torch_list_size(words, &nw);
    size_t total = 0;
    for (size_t i = 0; i < nw; i++) {
        StableIValue w;
        torch_list_get_item(words, i, &w);
        size_t len = 0;
        torch_string_length(siv_to_string(w), &len);
        total += len;
    }
    shimrt_siv_release("str[]", stack[2]);
    int64_t sv = 0;
    torch_scalar_to_int(siv_to_scalar(stack[3]), &sv);
    torch_delete_scalar(siv_to_scalar(stack[3]));
    /* push new references: (x, "n+total+s" as a string) */
    char buf[64];
    int len = snprintf(buf, sizeof buf, "%lld", (long long)(n + (int64_t)total + sv));
    StringHandle out = NULL;
    torch_new_string_handle(buf, (size_t)len, &out);
    stack[0] = siv_from_tensor(x); /* passes its reference through */
    stack[1] = siv_from_string(out);
}

Test(dispatch, ownership_round_trip) {
    TorchLibraryHandle d = def_lib("t");
    OK(aoti_torch_library_def(d, "own(Tensor x, int? n, str[] words, Scalar s) -> (Tensor, str)"));
    TorchLibraryHandle cpu = impl_lib("t", "CPU");
    OK(aoti_torch_library_impl(cpu, "own", k_own));
    StableIValue stack[4];
    AtenTensorHandle x = tensor_on(0);
    stack[0] = siv_from_tensor(x);
    OK(siv_new_optional(siv_from_int(100), &stack[1]));
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(2, &l));
    const char *w[] = {"ab", "cde"};
    for (int i = 0; i < 2; i++) {
        StringHandle s = NULL;
        OK(torch_new_string_handle(w[i], strlen(w[i]), &s));
        OK(torch_list_push_back(l, siv_from_string(s)));
    }
    stack[2] = siv_from_list(l);
    ScalarHandle sc = NULL;
    OK(torch_new_scalar_int(1000, &sc));
    stack[3] = siv_from_scalar(sc);
    OK(torch_call_dispatcher("t::own", "", stack, TORCH_ABI_VERSION));
    cr_assert_eq(siv_to_tensor(stack[0]), x);
    const char *p = NULL;
    OK(torch_string_c_str(siv_to_string(stack[1]), &p));
    cr_assert_str_eq(p, "1105");
    OK(shimrt_siv_release("Tensor", stack[0]));
    OK(shimrt_siv_release("str", stack[1]));
    OK(aoti_torch_delete_library_object(cpu));
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

/* ---- many ops: the table grows while handles stay valid ---- */
Test(dispatch, many_ops) {
    TorchLibraryHandle d = def_lib("many");
    ShimrtOpHandle first = NULL;
    char schema[64];
    for (int i = 0; i < 1000; i++) {
        snprintf(schema, sizeof schema, "op%d(int x) -> int", i);
        OK(aoti_torch_library_def(d, schema));
        if (i == 0) { /* a schema is not an op name */
            FAILS(aoti_torch_library_impl(d, schema, k_const), "aoti_torch_library_impl",
                  "name.overload");
        }
        snprintf(schema, sizeof schema, "op%d", i);
        OK(aoti_torch_library_impl(d, schema, k_const));
        if (i == 0) OK(shimrt_op_find("many::op0", "", &first));
    }
    StableIValue stack[1] = {siv_from_int(3)};
    OK(shimrt_op_call(first, stack, 0));
    cr_assert_eq(siv_to_int(stack[0]), 6);
    OK(torch_call_dispatcher("many::op999", "", stack, 0));
    cr_assert_eq(siv_to_int(stack[0]), 12);
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

/* ---- the dispatcher accepts what torch.library accepts (torchgen's naming rules are
 * the generator's only) ---- */
static void k_sum_out(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    cr_assert_eq(num_args, 2);
    cr_assert_eq(num_outputs, 1);
    aoti_torch_delete_tensor_object(siv_to_tensor(stack[1]));
    /* returns its out argument (Tensor(a!)): the same reference goes back */
}

Test(dispatch, library_rules_not_torchgen_rules) {
    TorchLibraryHandle d = def_lib("t");
    OK(aoti_torch_library_def(d, "my_sum_out(Tensor(a!) out, Tensor a) -> Tensor(a!)"));
    OK(aoti_torch_library_def(d, "scale.out(Tensor a, *, Tensor(a!) out, float f) -> Tensor(a!)"));
    OK(aoti_torch_library_def(d, "__ifoo__(Tensor(a!) self) -> Tensor(a!)"));
    OK(aoti_torch_library_def(d, "bar_functional_(Tensor(a!) self) -> Tensor(a!)"));
    TorchLibraryHandle cpu = impl_lib("t", "CPU");
    OK(aoti_torch_library_impl(cpu, "my_sum_out", k_sum_out));
    AtenTensorHandle out = tensor_on(aoti_torch_device_type_cpu());
    StableIValue stack[2] = {siv_from_tensor(out),
                             siv_from_tensor(tensor_on(aoti_torch_device_type_cpu()))};
    OK(torch_call_dispatcher("t::my_sum_out", "", stack, TORCH_ABI_VERSION));
    cr_assert_eq(siv_to_tensor(stack[0]), out);
    OK(aoti_torch_delete_tensor_object(out));
    /* the grammar is still checked */
    FAILS(aoti_torch_library_def(d, "broken(Tensor a -> Tensor"), "aoti_torch_library_def",
          "broken");
    OK(aoti_torch_delete_library_object(cpu));
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

/* ---- who owns the arguments after a failed call (docs/runtime-api.md, "Ownership") ---- */
static int64_t live(const char *kind) {
    int64_t n = -1;
    OK(shimrt_live_objects(kind, &n));
    return n;
}

/* Fails after releasing both of its arguments, as a kernel must. */
static void k_boom(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    (void)num_outputs;
    (void)num_args;
    aoti_torch_delete_tensor_object(siv_to_tensor(stack[0]));
    shimrt_siv_release("int?", stack[1]);
    shimrt_kernel_fail("boom");
}

Test(ownership, every_failure_class) {
    TorchLibraryHandle d = def_lib("own");
    OK(aoti_torch_library_def(d, "one(Tensor x, int? n) -> int"));
    OK(aoti_torch_library_def(d, "boom(Tensor x, int? n) -> int"));
    TorchLibraryHandle cpu = impl_lib("own", "CPU");
    OK(aoti_torch_library_impl(cpu, "boom", k_boom));
    AtenTensorHandle t = tensor_on(0);
    StableIValue *cell = NULL;
    OK(torch_new_stable_ivalue(&cell));
    *cell = siv_from_int(2);
    StableIValue stack[2] = {siv_from_tensor(t), (StableIValue)(uintptr_t)cell};
    /* 1. unknown op, unknown overload: no op was found, nothing was taken; the stack is as
     * the caller left it and the caller still owns (and here frees) its arguments */
    FAILS(torch_call_dispatcher("own::nope", "", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "unknown op");
    FAILS(torch_call_dispatcher("own::one", "nope", stack, TORCH_ABI_VERSION),
          "torch_call_dispatcher", "no overload");
    cr_assert(stack[0] == siv_from_tensor(t) && stack[1] == (StableIValue)(uintptr_t)cell);
    cr_assert_eq(live("tensor"), 1);
    cr_assert_eq(live("cell"), 1);
    /* 2. no kernel: the op was found, so the dispatcher took every argument and released
     * it; the slots are cleared */
    FAILS(torch_call_dispatcher("own::one", "", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "no kernel for dispatch key CPU");
    cr_assert(stack[0] == 0 && stack[1] == 0);
    cr_assert_eq(live("tensor"), 0);
    cr_assert_eq(live("cell"), 0);
    /* a caller that deleted them anyway is refused, not crashed */
    FAILS(aoti_torch_delete_tensor_object(t), "aoti_torch_delete_tensor_object", "freed");
    FAILS(torch_delete_stable_ivalue(cell), "torch_delete_stable_ivalue", "freed");
    /* 3. a bad argument (a freed tensor) beside a good one: the good one is released too */
    OK(torch_new_stable_ivalue(&cell));
    stack[0] = siv_from_tensor(t); /* freed above */
    stack[1] = (StableIValue)(uintptr_t)cell;
    FAILS(torch_call_dispatcher("own::boom", "", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "position 0");
    cr_assert(stack[0] == 0 && stack[1] == 0);
    cr_assert_eq(live("cell"), 0);
    /* ... and a bad cell beside a good tensor */
    t = tensor_on(0);
    uint64_t local = 0;
    stack[0] = siv_from_tensor(t);
    stack[1] = (StableIValue)(uintptr_t)&local;
    FAILS(torch_call_dispatcher("own::boom", "", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "not a live StableIValue cell");
    cr_assert_eq(live("tensor"), 0);
    /* 4. the kernel fails: it released what it took (the kernel's contract), pushed
     * nothing; nothing is left to the caller */
    t = tensor_on(0);
    OK(torch_new_stable_ivalue(&cell));
    stack[0] = siv_from_tensor(t);
    stack[1] = (StableIValue)(uintptr_t)cell;
    FAILS(torch_call_dispatcher("own::boom", "", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "kernel failed");
    cr_assert_eq(live("tensor"), 0);
    cr_assert_eq(live("cell"), 0);
    /* the same through an op handle */
    ShimrtOpHandle op = NULL;
    OK(shimrt_op_find("own::one", "", &op));
    t = tensor_on(0);
    stack[0] = siv_from_tensor(t);
    stack[1] = 0;
    FAILS(shimrt_op_call(op, stack, TORCH_ABI_VERSION), "shimrt_op_call", "no kernel");
    cr_assert_eq(live("tensor"), 0);
    /* 5. the op's def is gone (its library deleted): like an unknown op, nothing taken */
    OK(aoti_torch_delete_library_object(cpu));
    OK(aoti_torch_delete_library_object(d));
    t = tensor_on(0);
    stack[0] = siv_from_tensor(t);
    FAILS(shimrt_op_call(op, stack, TORCH_ABI_VERSION), "shimrt_op_call", "not defined");
    cr_assert_eq(stack[0], siv_from_tensor(t));
    OK(aoti_torch_delete_tensor_object(t));
    no_leaks();
}

/* ---- deferred registration errors (issue 17: a failure never aborts a load) ---- */
Test(deferred, failures_are_kept_and_reported_by_calls) {
    shimrt_registration_set_strict(false);
    TorchLibraryHandle d = def_lib("dfr");
    /* a schema the parser refuses, an impl for a key that already has one */
    OK(aoti_torch_library_def(d, "bad(Tensor x -> Tensor"));
    OK(aoti_torch_library_def(d, "good(int x) -> int"));
    OK(aoti_torch_library_impl(d, "good", k_const)); /* CompositeImplicitAutograd */
    OK(torch_library_impl(d, "good", k_const, TORCH_ABI_VERSION));
    const char *msg = NULL;
    OK(shimrt_registration_error("dfr::bad", 0, &msg));
    cr_assert(msg && strstr(msg, "aoti_torch_library_def"), "kept: %s", msg ? msg : "(none)");
    OK(shimrt_registration_error("dfr::good", 0, &msg));
    cr_assert(msg && strstr(msg, "already has a kernel"), "kept: %s", msg ? msg : "(none)");
    OK(shimrt_registration_error("dfr::good", 1, &msg));
    cr_assert_null(msg);
    /* a call of the op that failed to register says why */
    StableIValue stack[1] = {0};
    FAILS(torch_call_dispatcher("dfr::bad", "", stack, TORCH_ABI_VERSION), "torch_call_dispatcher",
          "failed to register");
    HAS("aoti_torch_library_def");
    /* the good op works */
    stack[0] = siv_from_int(4);
    OK(torch_call_dispatcher("dfr::good", "", stack, TORCH_ABI_VERSION));
    cr_assert_eq(siv_to_int(stack[0]), 8);
    /* a failed init (a second DEF library of the namespace): NULL, kept; def and impl on
     * the NULL library (what PyTorch's header does next) do not fail */
    TorchLibraryHandle again = (TorchLibraryHandle)(uintptr_t)1;
    cr_assert_eq(aoti_torch_library_init_def("dfr", __FILE__, __LINE__, &again),
                 AOTI_TORCH_FAILURE);
    cr_assert_null(again);
    OK(shimrt_registration_error("dfr", 0, &msg));
    cr_assert(msg && strstr(msg, "only one DEF library"), "kept: %s", msg ? msg : "(none)");
    OK(aoti_torch_library_def(again, "other(int x) -> int"));
    OK(aoti_torch_library_impl(again, "other", k_const));
    FAILS(torch_call_dispatcher("dfr::other", "", stack, TORCH_ABI_VERSION),
          "torch_call_dispatcher", "failed to register");
    OK(aoti_torch_delete_library_object(again));
    /* strict again: the same failures fail */
    shimrt_registration_set_strict(true);
    FAILS(aoti_torch_library_def(d, "bad2(Tensor x -> Tensor"), "aoti_torch_library_def", "");
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

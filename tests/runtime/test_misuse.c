/* tests/runtime/test_misuse.c: misuse of every handle type returns an error with a message
 * (docs/stableivalue.md, "Where the runtime differs from PyTorch on purpose") instead of
 * aborting: a double free, a foreign heap pointer, a stack address, for each kind of handle
 * the runtime hands out, and bad cells on a dispatch stack. Runs clean under ASan (SAN=1)
 * and valgrind (tests/scripts/valgrind_runtime.sh): nothing here reads or frees memory the
 * runtime does not own. */
#include <stdlib.h>

#include "shimrt_test.h"

/* A handle kind: how to make one and how to free one. */
typedef struct kind {
    const char *name;
    const char *del_func; /* the delete function's name, as the message starts */
    void *(*make)(void);
    AOTITorchError (*del)(void *);
} kind;

static void *mk_tensor(void) {
    int64_t sz[1] = {3};
    AtenTensorHandle t = NULL;
    OK(aoti_torch_empty_strided(1, sz, shimrt_test_strides(1, sz), aoti_torch_dtype_float32(),
                                aoti_torch_device_type_cpu(), 0, &t));
    return t;
}
static AOTITorchError rm_tensor(void *p) { return aoti_torch_delete_tensor_object(p); }
static void *mk_list(void) {
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(2, &l));
    return l;
}
static AOTITorchError rm_list(void *p) { return torch_delete_list(p); }
static void *mk_string(void) {
    StringHandle s = NULL;
    OK(torch_new_string_handle("abc", 3, &s));
    return s;
}
static AOTITorchError rm_string(void *p) { return torch_delete_string(p); }
static void *mk_scalar(void) {
    ScalarHandle s = NULL;
    OK(torch_new_scalar_int(7, &s));
    return s;
}
static AOTITorchError rm_scalar(void *p) { return torch_delete_scalar(p); }
static void *mk_cell(void) {
    StableIValue *c = NULL;
    OK(torch_new_stable_ivalue(&c));
    return c;
}
static AOTITorchError rm_cell(void *p) { return torch_delete_stable_ivalue(p); }
static void *mk_complex(void) {
    ShimrtComplex *c = NULL;
    OK(shimrt_new_complex(1.0, 2.0, &c));
    return c;
}
static AOTITorchError rm_complex(void *p) { return shimrt_delete_complex(p); }
static void *mk_generator(void) {
    AtenGeneratorHandle g = NULL;
    OK(shimrt_generator_new(aoti_torch_device_type_cpu(), -1, 42, &g));
    return g;
}
static AOTITorchError rm_generator(void *p) { return torch_delete_generator(p); }
static void *mk_stream(void) {
    StreamHandle s = NULL;
    OK(aoti_torch_get_current_stream(0, &s));
    return s;
}
static AOTITorchError rm_stream(void *p) { return aoti_torch_delete_stream(p); }
static void *mk_guard(void) {
    DeviceGuardHandle g = NULL;
    OK(aoti_torch_create_device_guard(0, &g));
    return g;
}
static AOTITorchError rm_guard(void *p) { return aoti_torch_delete_device_guard(p); }
static void *mk_library(void) {
    TorchLibraryHandle l = NULL;
    OK(aoti_torch_library_init_fragment("misuse", __FILE__, __LINE__, &l));
    return l;
}
static AOTITorchError rm_library(void *p) { return aoti_torch_delete_library_object(p); }
static void *mk_c10(void) {
    C10IValueHandle v = NULL;
    OK(aoti_torch_int64_to_ivalue(5, &v));
    return v;
}
static AOTITorchError rm_c10(void *p) { return aoti_torch_delete_c10_value_object(p); }
static void *mk_record(void) {
    AtenRecordFunctionHandle g = NULL;
    OK(aoti_record_function_start("misuse", NULL, NULL, 0, &g));
    return g;
}
static AOTITorchError rm_record(void *p) { return aoti_record_function_end(p); }

static const kind kinds[] = {
    {"tensor", "aoti_torch_delete_tensor_object", mk_tensor, rm_tensor},
    {"list", "torch_delete_list", mk_list, rm_list},
    {"string", "torch_delete_string", mk_string, rm_string},
    {"scalar", "torch_delete_scalar", mk_scalar, rm_scalar},
    {"cell", "torch_delete_stable_ivalue", mk_cell, rm_cell},
    {"complex", "shimrt_delete_complex", mk_complex, rm_complex},
    {"generator", "torch_delete_generator", mk_generator, rm_generator},
    {"stream", "aoti_torch_delete_stream", mk_stream, rm_stream},
    {"device guard", "aoti_torch_delete_device_guard", mk_guard, rm_guard},
    {"library", "aoti_torch_delete_library_object", mk_library, rm_library},
    {"c10 value", "aoti_torch_delete_c10_value_object", mk_c10, rm_c10},
    {"record-function guard", "aoti_record_function_end", mk_record, rm_record},
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

/* The delete failed, naming its function, with a message saying why. */
static void refused(const kind *k, AOTITorchError rc, const char *what) {
    cr_assert_eq(rc, AOTI_TORCH_FAILURE, "%s: %s was accepted", k->name, what);
    const char *m = torch_exception_get_what();
    cr_assert(strstr(m, k->del_func) == m, "%s: %s: message '%s' does not name %s", k->name, what,
              m, k->del_func);
    cr_assert(strlen(m) > strlen(k->del_func) + 10, "%s: %s: message '%s' says nothing", k->name,
              what, m);
}

Test(misuse, double_free_every_kind) {
    for (size_t i = 0; i < N_KINDS; i++) {
        void *h = kinds[i].make();
        OK(kinds[i].del(h));
        refused(&kinds[i], kinds[i].del(h), "a double free");
        HAS("freed");
    }
    no_leaks();
}

Test(misuse, foreign_heap_pointer_every_kind) {
    /* Heap memory the runtime never handed out, zeroed and then filled with a pattern. */
    for (size_t i = 0; i < N_KINDS; i++) {
        uint64_t *foreign = calloc(8, sizeof *foreign);
        cr_assert(foreign);
        refused(&kinds[i], kinds[i].del(foreign), "a foreign heap pointer");
        memset(foreign, 0x5a, 8 * sizeof *foreign);
        refused(&kinds[i], kinds[i].del(foreign + 2), "a foreign heap pointer (filled)");
        free(foreign);
    }
    no_leaks();
}

Test(misuse, stack_address_every_kind) {
    for (size_t i = 0; i < N_KINDS; i++) {
        uint64_t local[8] = {0};
        refused(&kinds[i], kinds[i].del(local), "a stack address");
        refused(&kinds[i], kinds[i].del(&local[3]), "a stack address inside an array");
    }
    no_leaks();
}

Test(misuse, another_kinds_handle) {
    /* A live handle of one kind given to another kind's delete: refused, and still live. */
    for (size_t i = 0; i < N_KINDS; i++) {
        void *h = kinds[i].make();
        for (size_t j = 0; j < N_KINDS; j++) {
            if (j == i) continue;
            refused(&kinds[j], kinds[j].del(h), kinds[i].name);
        }
        OK(kinds[i].del(h));
    }
    no_leaks();
}

Test(misuse, null_is_a_noop_for_every_kind) {
    for (size_t i = 0; i < N_KINDS; i++) OK(kinds[i].del(NULL));
}

/* ---- bad values on a dispatch stack ---- */
static void k_opt_count(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    (void)num_args;
    (void)num_outputs;
    int64_t n = 0;
    StableIValue v = stack[0];
    if (v) {
        n = siv_to_int(*(StableIValue *)(uintptr_t)v);
        torch_delete_stable_ivalue((StableIValue *)(uintptr_t)v);
    }
    stack[0] = siv_from_int(n);
}

static TorchLibraryHandle opt_lib(void) {
    TorchLibraryHandle d = NULL;
    OK(aoti_torch_library_init_def("misdisp", __FILE__, __LINE__, &d));
    OK(aoti_torch_library_def(d, "f(int? x) -> int"));
    OK(aoti_torch_library_def(d, "g(complex c) -> int"));
    OK(aoti_torch_library_impl(d, "f", k_opt_count));
    return d;
}

Test(misuse, bad_cells_on_a_dispatch_stack) {
    TorchLibraryHandle d = opt_lib();
    StableIValue stack[1];
    /* a good cell */
    StableIValue *cell = NULL;
    OK(torch_new_stable_ivalue(&cell));
    *cell = siv_from_int(9);
    stack[0] = (StableIValue)(uintptr_t)cell;
    OK(torch_call_dispatcher("misdisp::f", "", stack, TORCH_ABI_VERSION));
    cr_assert_eq(siv_to_int(stack[0]), 9);
    /* the same cell again: the kernel freed it */
    stack[0] = (StableIValue)(uintptr_t)cell;
    FAILS(torch_call_dispatcher("misdisp::f", "", stack, TORCH_ABI_VERSION),
          "torch_call_dispatcher", "was freed");
    cr_assert_eq(stack[0], 0, "the dispatcher took (and cleared) the argument");
    /* a stack address, and an odd integer */
    uint64_t local = 3;
    stack[0] = (StableIValue)(uintptr_t)&local;
    FAILS(torch_call_dispatcher("misdisp::f", "", stack, TORCH_ABI_VERSION),
          "torch_call_dispatcher", "not a live StableIValue cell");
    /* wild values: a small integer, a misaligned pointer, a non-canonical address */
    const StableIValue wild[] = {0x10, (StableIValue)(uintptr_t)cell + 3,
                                 UINT64_C(0x4141414141414141)};
    for (size_t i = 0; i < sizeof wild / sizeof wild[0]; i++) {
        stack[0] = wild[i];
        FAILS(torch_call_dispatcher("misdisp::f", "", stack, TORCH_ABI_VERSION),
              "torch_call_dispatcher", "argument 0 ('x'): a cell is not a live StableIValue cell");
    }
    /* another handle passed as a cell: a tensor, a list */
    AtenTensorHandle t = NULL;
    int64_t sz[1] = {2};
    OK(aoti_torch_empty_strided(1, sz, sz, aoti_torch_dtype_float32(), aoti_torch_device_type_cpu(),
                                0, &t));
    stack[0] = siv_from_tensor(t);
    FAILS(torch_call_dispatcher("misdisp::f", "", stack, TORCH_ABI_VERSION),
          "torch_call_dispatcher", "not a live StableIValue cell");
    OK(aoti_torch_delete_tensor_object(t)); /* left alone by the dispatcher */
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(1, &l));
    stack[0] = siv_from_list(l);
    FAILS(torch_call_dispatcher("misdisp::f", "", stack, TORCH_ABI_VERSION),
          "torch_call_dispatcher", "not a live StableIValue cell");
    OK(torch_delete_list(l));
    /* (Heap memory of the caller's cannot be told from an extension's `new StableIValue`,
     * which headers targeting PyTorch < 2.13 pass: docs/stableivalue.md.) */
    /* a complex argument that is not a complex cell */
    stack[0] = (StableIValue)(uintptr_t)&local;
    FAILS(torch_call_dispatcher("misdisp::g", "", stack, TORCH_ABI_VERSION),
          "torch_call_dispatcher", "argument 0 ('c')");
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

Test(misuse, bad_handles_inside_a_list_argument) {
    TorchLibraryHandle d = NULL;
    OK(aoti_torch_library_init_def("mislist", __FILE__, __LINE__, &d));
    OK(aoti_torch_library_def(d, "h(Tensor?[] xs) -> int"));
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size(2, &l));
    uint64_t local = 0;
    OK(torch_list_push_back(l, (StableIValue)(uintptr_t)&local)); /* not a cell */
    StableIValue stack[1] = {(StableIValue)(uintptr_t)l};
    FAILS(torch_call_dispatcher("mislist::h", "", stack, TORCH_ABI_VERSION),
          "torch_call_dispatcher", "not a live StableIValue cell");
    /* the list itself was taken and freed; the bad item was left alone */
    stack[0] = (StableIValue)(uintptr_t)l;
    FAILS(torch_call_dispatcher("mislist::h", "", stack, TORCH_ABI_VERSION),
          "torch_call_dispatcher", "freed");
    OK(aoti_torch_delete_library_object(d));
    no_leaks();
}

Test(misuse, bad_op_handles) {
    uint64_t local[4] = {0};
    StableIValue stack[1] = {0};
    FAILS(shimrt_op_call((ShimrtOpHandle)(void *)local, stack, TORCH_ABI_VERSION), "shimrt_op_call",
          "op handle");
    FAILS(shimrt_op_call(NULL, stack, TORCH_ABI_VERSION), "shimrt_op_call", "NULL");
    const char *text = NULL;
    FAILS(shimrt_op_schema((ShimrtOpHandle)(void *)local, &text), "shimrt_op_schema", "op handle");
}

Test(misuse, siv_release_of_bad_values) {
    uint64_t local = 0;
    FAILS(shimrt_siv_release("int?", (StableIValue)(uintptr_t)&local), "shimrt_siv_release",
          "cell");
    FAILS(shimrt_siv_release("complex", (StableIValue)(uintptr_t)&local), "shimrt_siv_release",
          "complex");
    StableIValue *c = NULL;
    OK(torch_new_stable_ivalue(&c));
    OK(shimrt_siv_release("int?", (StableIValue)(uintptr_t)c));
    FAILS(shimrt_siv_release("int?", (StableIValue)(uintptr_t)c), "shimrt_siv_release", "freed");
    no_leaks();
}

/* ---- writes through overlapping views ---- */
/* PyTorch 2.15 (checked with torch: zeros(1).expand(4).copy_(ones(4)) and
 * zeros(4).as_strided((2,2),(0,1)).copy_(ones(2,2)) raise this RuntimeError; a size-1
 * dim of stride 0 is fine). */
Test(misuse, copy_into_an_expanded_tensor) {
    int64_t one[1] = {1}, four[1] = {4}, zero[1] = {0};
    AtenTensorHandle base = NULL, src = NULL, exp = NULL;
    OK(aoti_torch_empty_strided(1, one, one, aoti_torch_dtype_float32(),
                                aoti_torch_device_type_cpu(), 0, &base));
    OK(aoti_torch_empty_strided(1, four, one, aoti_torch_dtype_float32(),
                                aoti_torch_device_type_cpu(), 0, &src));
    OK(aoti_torch__reinterpret_tensor(base, 1, four, zero, 0, &exp));
    FAILS(aoti_torch_copy_(exp, src, 0), "aoti_torch_copy_",
          "unsupported operation: more than one element of the written-to tensor refers to a "
          "single memory location");
    AtenTensorHandle exp1 = NULL;
    OK(aoti_torch__reinterpret_tensor(base, 1, one, zero, 0, &exp1));
    AtenTensorHandle src1 = NULL;
    OK(aoti_torch_empty_strided(1, one, one, aoti_torch_dtype_float32(),
                                aoti_torch_device_type_cpu(), 0, &src1));
    OK(aoti_torch_copy_(exp1, src1, 0));
    OK(aoti_torch_delete_tensor_object(src1));
    OK(aoti_torch_delete_tensor_object(exp1));
    OK(aoti_torch_delete_tensor_object(exp));
    OK(aoti_torch_delete_tensor_object(src));
    OK(aoti_torch_delete_tensor_object(base));
    no_leaks();
}

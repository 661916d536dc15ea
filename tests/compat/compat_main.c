/* tests/compat/compat_main.c: an extension-style C program written only against PyTorch's
 * include paths and names (none of this runtime's own helpers): it creates and views tensors,
 * copies between dtypes, defines an op from a schema string, registers a boxed kernel and
 * calls it through torch_call_dispatcher with a stack holding a tensor, an optional, a
 * list and a string. The StableIValue encodings are spelled out by hand, as PyTorch's note
 * describes them. tests/scripts/compat.sh builds and runs it and checks its output. */
#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/stable/c/shim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        if ((call) != AOTI_TORCH_SUCCESS) {                                           \
            fprintf(stderr, "FAILED %s: %s\n", #call, torch_exception_get_what());    \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

/* "raw bitwise copy into the leading bytes of a uint64_t" */
static StableIValue from_ptr(const void *p) {
    StableIValue v = 0;
    memcpy(&v, &p, sizeof p);
    return v;
}
static void *to_ptr(StableIValue v) {
    void *p;
    memcpy(&p, &v, sizeof p);
    return p;
}
static StableIValue from_i64(int64_t i) {
    StableIValue v = 0;
    memcpy(&v, &i, sizeof i);
    return v;
}
static int64_t to_i64(StableIValue v) {
    int64_t i;
    memcpy(&i, &v, sizeof i);
    return i;
}

/* compat::scale_join(Tensor x, int? factor, str[] parts, str sep) -> (Tensor, str)
 * Steals its arguments; pushes x * factor (factor 1 when None) and the parts joined. */
static void scale_join_kernel(StableIValue *stack, uint64_t num_args, uint64_t num_outputs) {
    if (num_args != 4 || num_outputs != 2) abort();
    AtenTensorHandle x = (AtenTensorHandle)to_ptr(stack[0]);
    int64_t factor = 1;
    if (stack[1] != 0) {
        StableIValue *cell = (StableIValue *)to_ptr(stack[1]);
        factor = to_i64(*cell);
        CHECK(torch_delete_stable_ivalue(cell));
    }
    StringHandle sep = (StringHandle)to_ptr(stack[3]);
    const char *sep_text = NULL;
    CHECK(torch_string_c_str(sep, &sep_text));
    StableListHandle parts = (StableListHandle)to_ptr(stack[2]);
    size_t n = 0;
    CHECK(torch_list_size(parts, &n));
    char joined[256] = "";
    for (size_t i = 0; i < n; i++) {
        StableIValue item = 0;
        CHECK(torch_list_get_item(parts, i, &item));
        const char *s = NULL;
        CHECK(torch_string_c_str((StringHandle)to_ptr(item), &s));
        if (i) strncat(joined, sep_text, sizeof joined - strlen(joined) - 1);
        strncat(joined, s, sizeof joined - strlen(joined) - 1);
        CHECK(torch_delete_string((StringHandle)to_ptr(item)));
    }
    CHECK(torch_delete_list(parts));
    CHECK(torch_delete_string(sep));

    AtenTensorHandle out = NULL;
    /* a contiguous float32 copy, scaled */
    int64_t *sz = NULL;
    CHECK(aoti_torch_get_sizes(x, &sz));
    CHECK(aoti_torch_empty_strided(2, sz, (const int64_t[]){sz[1], 1}, aoti_torch_dtype_float32(),
                                   aoti_torch_device_type_cpu(), 0, &out));
    CHECK(aoti_torch_copy_(out, x, 0));
    float *p = NULL;
    CHECK(aoti_torch_get_data_ptr(out, (void **)&p));
    for (int64_t i = 0; i < sz[0] * sz[1]; i++) p[i] *= (float)factor;
    CHECK(aoti_torch_delete_tensor_object(x));

    StringHandle res = NULL;
    CHECK(torch_new_string_handle(joined, strlen(joined), &res));
    stack[0] = from_ptr(out);
    stack[1] = from_ptr(res);
}

/* Prints a 2-d float32 tensor's elements in logical (row-major) order. */
static void print_floats(const char *label, AtenTensorHandle t) {
    int64_t *sz = NULL, *st = NULL;
    CHECK(aoti_torch_get_sizes(t, &sz));
    CHECK(aoti_torch_get_strides(t, &st));
    float *p = NULL;
    CHECK(aoti_torch_get_data_ptr(t, (void **)&p));
    printf("%s:", label);
    for (int64_t i = 0; i < sz[0]; i++) {
        for (int64_t j = 0; j < sz[1]; j++) printf(" %g", p[i * st[0] + j * st[1]]);
    }
    printf("\n");
}

static StringHandle str(const char *s) {
    StringHandle h = NULL;
    CHECK(torch_new_string_handle(s, strlen(s), &h));
    return h;
}

static void call(AtenTensorHandle x, int has_factor, int64_t factor) {
    StableIValue stack[4];
    AtenTensorHandle arg = NULL;
    CHECK(aoti_torch_new_tensor_handle(x, &arg)); /* an owning reference for the stack */
    stack[0] = from_ptr(arg);
    stack[1] = 0;
    if (has_factor) {
        StableIValue *cell = NULL;
        CHECK(torch_new_stable_ivalue(&cell));
        *cell = from_i64(factor);
        stack[1] = from_ptr(cell);
    }
    StableListHandle parts = NULL;
    CHECK(torch_new_list_reserve_size(3, &parts));
    CHECK(torch_list_push_back(parts, from_ptr(str("stable"))));
    CHECK(torch_list_push_back(parts, from_ptr(str("abi"))));
    CHECK(torch_list_push_back(parts, from_ptr(str("c"))));
    stack[2] = from_ptr(parts);
    stack[3] = from_ptr(str("-"));
    CHECK(torch_call_dispatcher("compat::scale_join", "", stack, TORCH_ABI_VERSION));
    AtenTensorHandle out = (AtenTensorHandle)to_ptr(stack[0]);
    const char *s = NULL;
    CHECK(torch_string_c_str((StringHandle)to_ptr(stack[1]), &s));
    char label[64];
    snprintf(label, sizeof label, "call factor=%s",
             has_factor ? (factor == 3 ? "3" : "?") : "None");
    print_floats(label, out);
    printf("joined: %s\n", s);
    CHECK(torch_delete_string((StringHandle)to_ptr(stack[1])));
    CHECK(aoti_torch_delete_tensor_object(out));
}

int main(void) {
    printf("abi: %d.%d\n", (int)(aoti_torch_abi_version() >> 56),
           (int)((aoti_torch_abi_version() >> 48) & 0xff));
    /* create a 2x3 float32 tensor and fill it */
    int64_t sizes[2] = {2, 3};
    AtenTensorHandle t = NULL;
    CHECK(aoti_torch_empty_strided(2, sizes, (const int64_t[]){3, 1}, aoti_torch_dtype_float32(),
                                   aoti_torch_device_type_cpu(), 0, &t));
    float *data = NULL;
    CHECK(aoti_torch_get_data_ptr(t, (void **)&data));
    for (int i = 0; i < 6; i++) data[i] = (float)i + 0.5f;
    /* a transposed view: sizes 3x2, strides 1x3, same storage */
    int64_t vsizes[2] = {3, 2}, vstrides[2] = {1, 3};
    AtenTensorHandle v = NULL;
    CHECK(aoti_torch__reinterpret_tensor(t, 2, vsizes, vstrides, 0, &v));
    bool contiguous = true;
    CHECK(aoti_torch_is_contiguous(v, &contiguous));
    int64_t s1 = 0;
    CHECK(aoti_torch_get_stride(v, 1, &s1));
    printf("view: contiguous=%d stride1=%lld\n", (int)contiguous, (long long)s1);
    /* copy the view into an int64 tensor (dtype conversion, strided read) */
    AtenTensorHandle i64 = NULL;
    CHECK(aoti_torch_empty_strided(2, vsizes, (const int64_t[]){2, 1}, aoti_torch_dtype_int64(),
                                   aoti_torch_device_type_cpu(), 0, &i64));
    CHECK(aoti_torch_copy_(i64, v, 0));
    int64_t *ip = NULL;
    CHECK(aoti_torch_get_data_ptr(i64, (void **)&ip));
    printf("copy f32->i64:");
    for (int i = 0; i < 6; i++) printf(" %lld", (long long)ip[i]);
    printf("\n");

    /* define an op from a schema string and register a boxed CPU kernel */
    TorchLibraryHandle def = NULL, impl = NULL;
    CHECK(aoti_torch_library_init_def("compat", __FILE__, __LINE__, &def));
    CHECK(aoti_torch_library_def(
        def, "scale_join(Tensor x, int? factor, str[] parts, str sep) -> (Tensor, str)"));
    CHECK(aoti_torch_library_init_impl("compat", "CPU", __FILE__, __LINE__, &impl));
    CHECK(torch_library_impl(impl, "scale_join", scale_join_kernel, TORCH_ABI_VERSION));

    call(v, 1, 3);
    call(v, 0, 0);

    /* an unknown op fails with a message, and nothing crashes */
    StableIValue stack[1] = {0};
    if (torch_call_dispatcher("compat::nope", "", stack, TORCH_ABI_VERSION) ==
        AOTI_TORCH_FAILURE) {
        printf("unknown op: %s\n", strstr(torch_exception_get_what(), "unknown op") ? "error"
                                                                                      : "?");
    }
    CHECK(aoti_torch_delete_library_object(impl));
    CHECK(aoti_torch_delete_library_object(def));
    CHECK(aoti_torch_delete_tensor_object(i64));
    CHECK(aoti_torch_delete_tensor_object(v));
    CHECK(aoti_torch_delete_tensor_object(t));
    printf("done\n");
    return 0;
}

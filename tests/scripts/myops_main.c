/* tests/scripts/myops_main.c: the custom-op example end to end (built and run by
 * tests/scripts/myops.sh). Loads libmyops.so with dlopen, calls its registration, calls
 * myops::add_scalar through torch_call_dispatcher and through its direct shim, checks
 * values against a reference on contiguous and non-contiguous inputs, and the error
 * paths (wrong dtype, NULL return pointer, calls before registration and after the
 * libraries are deleted). Usage: myops_main path/to/libmyops.so */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <shimrt/shimrt.h>

static int failures;
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "myops: %s:%d: check failed: %s (last error: %s)\n", __FILE__,         \
                    __LINE__, #cond, torch_exception_get_what());                                  \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)
#define CHECK_MSG(frag) CHECK(strstr(torch_exception_get_what(), (frag)) != NULL)

typedef AOTITorchError (*register_fn)(TorchLibraryHandle *, TorchLibraryHandle *);
typedef AOTITorchError (*shim_fn)(AtenTensorHandle, double, AtenTensorHandle *);

/* storage element k = k * 0.25 - 1 */
static AtenTensorHandle make(int32_t dtype, const int64_t *sizes, const int64_t *strides) {
    AtenTensorHandle t = NULL;
    aoti_torch_empty_strided(2, sizes, strides, dtype, aoti_torch_device_type_cpu(), 0, &t);
    if (t && dtype == aoti_torch_dtype_float32()) {
        float *d = NULL;
        aoti_torch_get_data_ptr(t, (void **)&d);
        for (int k = 0; k < 12; k++) d[k] = (float)k * 0.25f - 1.0f;
    }
    return t;
}
static float at(AtenTensorHandle t, int64_t i, int64_t j) {
    float *d = NULL;
    int64_t *st = NULL;
    aoti_torch_get_data_ptr(t, (void **)&d);
    aoti_torch_get_strides(t, &st);
    return d[i * st[0] + j * st[1]];
}

static void check_result(AtenTensorHandle in, AtenTensorHandle out, double s) {
    int64_t dim = 0, *sz = NULL;
    int32_t dt = -1;
    CHECK(out != NULL && out != in);
    if (!out) return;
    aoti_torch_get_dim(out, &dim);
    aoti_torch_get_sizes(out, &sz);
    aoti_torch_get_dtype(out, &dt);
    CHECK(dim == 2 && sz[0] == 3 && sz[1] == 4 && dt == aoti_torch_dtype_float32());
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 4; j++)
            CHECK(fabsf(at(out, i, j) - (at(in, i, j) + (float)s)) < 1e-6f);
}

static AtenTensorHandle call(AtenTensorHandle in, double s, AOTITorchError *rc,
                             StableIValue stack[2]) {
    AtenTensorHandle h = NULL;
    aoti_torch_new_tensor_handle(in, &h);
    stack[0] = siv_from_tensor(h);
    stack[1] = siv_from_double(s);
    *rc = torch_call_dispatcher("myops::add_scalar", "", stack, TORCH_ABI_VERSION);
    return *rc == AOTI_TORCH_SUCCESS ? siv_to_tensor(stack[0]) : NULL;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    const int64_t sizes[2] = {3, 4}, cont[2] = {4, 1}, trans[2] = {1, 3};
    AtenTensorHandle a = make(aoti_torch_dtype_float32(), sizes, cont);
    AtenTensorHandle b = make(aoti_torch_dtype_float32(), sizes, trans); /* non-contiguous */
    AtenTensorHandle i64 = make(aoti_torch_dtype_int64(), sizes, cont);
    StableIValue stack[2];
    AOTITorchError rc;

    /* Before the library is loaded and registered the op does not exist; the stack is
     * untouched and still ours. */
    CHECK(call(a, 1.0, &rc, stack) == NULL && rc == AOTI_TORCH_FAILURE);
    CHECK_MSG("myops::add_scalar");
    aoti_torch_delete_tensor_object(siv_to_tensor(stack[0]));

    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    CHECK(lib != NULL);
    if (!lib) {
        fprintf(stderr, "myops: %s\n", dlerror());
        return 1;
    }
    register_fn reg = (register_fn)(void (*)(void))dlsym(lib, "shimgen_register_myops_cpu");
    shim_fn shim = (shim_fn)(void (*)(void))dlsym(lib, "aoti_torch_cpu_myops_add_scalar");
    CHECK(reg != NULL && shim != NULL);
    CHECK(dlsym(lib, "myops_add_scalar") == NULL); /* the kernel itself stays hidden */
    TorchLibraryHandle def = NULL, impl = NULL;
    if (reg) CHECK(reg(&def, &impl) == AOTI_TORCH_SUCCESS && def != NULL && impl != NULL);

    /* values through the dispatcher, contiguous and not */
    AtenTensorHandle r = call(a, 2.5, &rc, stack);
    check_result(a, r, 2.5);
    aoti_torch_delete_tensor_object(r);
    r = call(b, -0.75, &rc, stack);
    check_result(b, r, -0.75);
    aoti_torch_delete_tensor_object(r);
    /* through the direct shim */
    r = NULL;
    if (shim) {
        CHECK(shim(b, 4.0, &r) == AOTI_TORCH_SUCCESS);
        check_result(b, r, 4.0);
        aoti_torch_delete_tensor_object(r);
        CHECK(shim(a, 1.0, NULL) == AOTI_TORCH_FAILURE);
        CHECK_MSG("aoti_torch_cpu_myops_add_scalar: return pointer 'ret0' is NULL");
        CHECK(shim(NULL, 1.0, &r) == AOTI_TORCH_FAILURE);
        CHECK_MSG("argument 'input' is NULL");
    }
    /* wrong dtype: failure with the kernel's message; the boxed kernel released its
     * arguments (the leak check of the sanitizer pass would see them) and zeroed the stack */
    CHECK(call(i64, 1.0, &rc, stack) == NULL && rc == AOTI_TORCH_FAILURE);
    CHECK_MSG("input must be float32");
    CHECK_MSG("myops::add_scalar");
    CHECK(stack[0] == 0 && stack[1] == 0);
    /* registering twice fails and keeps the first */
    TorchLibraryHandle d2 = NULL, i2 = NULL;
    if (reg) CHECK(reg(&d2, &i2) == AOTI_TORCH_FAILURE && d2 == NULL && i2 == NULL);
    r = call(a, 1.0, &rc, stack);
    check_result(a, r, 1.0);
    aoti_torch_delete_tensor_object(r);

    /* after the libraries are deleted the op is gone again */
    if (impl) aoti_torch_delete_library_object(impl);
    if (def) aoti_torch_delete_library_object(def);
    CHECK(call(a, 1.0, &rc, stack) == NULL && rc == AOTI_TORCH_FAILURE);
    aoti_torch_delete_tensor_object(siv_to_tensor(stack[0]));
    dlclose(lib);

    aoti_torch_delete_tensor_object(a);
    aoti_torch_delete_tensor_object(b);
    aoti_torch_delete_tensor_object(i64);
    if (failures) {
        fprintf(stderr, "myops: %d check(s) failed\n", failures);
        return 1;
    }
    printf(
        "myops: libmyops.so loaded, registered and called through the dispatcher and its shim\n");
    return 0;
}

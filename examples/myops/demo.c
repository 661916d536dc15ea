/* examples/myops/demo.c: loads libmyops.so, registers its ops, calls myops::add_scalar
 * through the dispatcher and prints what happened (the tutorial's last step).
 * Usage: demo path/to/libmyops.so */
#include <dlfcn.h>
#include <stdio.h>

#include <shimrt/shimrt.h>

typedef AOTITorchError (*register_fn)(TorchLibraryHandle *ret_def, TorchLibraryHandle *ret_impl);

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s path/to/libmyops.so\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "demo: %s\n", dlerror());
        return 1;
    }
    register_fn reg = (register_fn)(void (*)(void))dlsym(lib, "shimgen_register_myops_cpu");
    TorchLibraryHandle def = NULL, impl = NULL;
    if (!reg || reg(&def, &impl) != AOTI_TORCH_SUCCESS) {
        fprintf(stderr, "demo: registration failed: %s\n",
                reg ? torch_exception_get_what() : dlerror());
        return 1;
    }
    printf("demo: loaded %s and registered myops::add_scalar for CPU\n", argv[1]);

    /* input: a 2x3 float32 tensor 0..5 */
    float data[6] = {0, 1, 2, 3, 4, 5};
    int64_t sizes[2] = {2, 3}, strides[2] = {3, 1};
    AtenTensorHandle input = NULL;
    aoti_torch_create_tensor_from_blob(data, 2, sizes, strides, 0, aoti_torch_dtype_float32(),
                                       aoti_torch_device_type_cpu(), 0, &input);

    /* The stack owns what it holds: pass a new reference, take the result. */
    AtenTensorHandle arg = NULL;
    aoti_torch_new_tensor_handle(input, &arg);
    StableIValue stack[2] = {siv_from_tensor(arg), siv_from_double(10.0)};
    int rc = 1;
    if (torch_call_dispatcher("myops::add_scalar", "", stack, TORCH_ABI_VERSION) !=
        AOTI_TORCH_SUCCESS) {
        fprintf(stderr, "demo: call failed: %s\n", torch_exception_get_what());
    } else {
        AtenTensorHandle out = siv_to_tensor(stack[0]);
        float *o = NULL;
        aoti_torch_get_data_ptr(out, (void **)&o);
        printf("demo: myops::add_scalar([[0,1,2],[3,4,5]], 10.0) = [[%g,%g,%g],[%g,%g,%g]]\n", o[0],
               o[1], o[2], o[3], o[4], o[5]);
        aoti_torch_delete_tensor_object(out);
        rc = 0;
    }

    /* A float64 input is refused with a message. */
    AtenTensorHandle bad = NULL;
    aoti_torch_empty_strided(2, sizes, strides, aoti_torch_dtype_float64(),
                             aoti_torch_device_type_cpu(), 0, &bad);
    StableIValue stack2[2] = {siv_from_tensor(bad), siv_from_double(1.0)};
    if (torch_call_dispatcher("myops::add_scalar", "", stack2, TORCH_ABI_VERSION) ==
        AOTI_TORCH_SUCCESS) {
        fprintf(stderr, "demo: a float64 input was accepted\n");
        rc = 1;
    } else {
        printf("demo: with a float64 input: %s\n", torch_exception_get_what());
    }

    aoti_torch_delete_tensor_object(input);
    aoti_torch_delete_library_object(impl);
    aoti_torch_delete_library_object(def);
    dlclose(lib);
    return rc;
}

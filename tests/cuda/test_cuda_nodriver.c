/* tests/cuda/test_cuda_nodriver.c: the CUDA entry points on a machine without a usable
 * driver. The suite points SHIMRT_LIBCUDA at a file that does not exist before the first
 * CUDA call, so it exercises the missing-driver path on every machine, GPU or not. */
#include "cuda_test.h"

static void no_driver(void) { setenv("SHIMRT_LIBCUDA", "/nonexistent/libcuda.so.1", 1); }

TestSuite(cuda_nodriver, .init = no_driver);

Test(cuda_nodriver, creating_a_cuda_tensor_fails_clearly_without_leaks) {
    int64_t sizes[] = {2, 3};
    AtenTensorHandle t = NULL;
    FAILS(empty_contig(2, sizes, aoti_torch_dtype_float32(), aoti_torch_device_type_cuda(), 0, &t),
          "aoti_torch_empty_strided", "the CUDA libraries cannot be used");
    HAS("driver library could not be loaded");
    HAS("/nonexistent/libcuda.so.1");
    cr_assert_null(t);
    /* the reason is kept: a second attempt says the same */
    FAILS(empty_contig(2, sizes, aoti_torch_dtype_float32(), aoti_torch_device_type_cuda(), 1, &t),
          "aoti_torch_empty_strided", "the CUDA libraries cannot be used");
    no_leaks();
}

Test(cuda_nodriver, every_cuda_function_fails_cleanly) {
    void *p = (void *)1;
    CUDAGuardHandle g = NULL;
    CUDAStreamGuardHandle sg = NULL;
    FAILS(aoti_torch_create_cuda_guard(0, &g), "aoti_torch_create_cuda_guard",
          "the CUDA libraries cannot be used");
    cr_assert_null(g);
    FAILS(aoti_torch_cuda_guard_set_index((CUDAGuardHandle)&p, 0),
          "aoti_torch_cuda_guard_set_index", "not a CUDA guard handle");
    FAILS(aoti_torch_create_cuda_stream_guard(NULL, 0, &sg), "aoti_torch_create_cuda_stream_guard",
          "the CUDA libraries cannot be used");
    OK(aoti_torch_delete_cuda_guard(NULL));
    OK(aoti_torch_delete_cuda_stream_guard(NULL));
    FAILS(aoti_torch_get_current_cuda_stream(0, &p), "aoti_torch_get_current_cuda_stream",
          "the CUDA libraries cannot be used");
    FAILS(torch_set_current_cuda_stream(NULL, 0), "torch_set_current_cuda_stream",
          "the CUDA libraries cannot be used");
    FAILS(torch_get_cuda_stream_from_pool(true, 0, &p), "torch_get_cuda_stream_from_pool",
          "the CUDA libraries cannot be used");
    FAILS(torch_cuda_stream_synchronize(NULL, 0), "torch_cuda_stream_synchronize",
          "the CUDA libraries cannot be used");
    FAILS(torch_get_current_cuda_blas_handle(&p), "torch_get_current_cuda_blas_handle",
          "the CUDA libraries cannot be used");
    FAILS(aoti_torch_cuda_caching_allocator_raw_alloc(64, &p),
          "aoti_torch_cuda_caching_allocator_raw_alloc", "the CUDA libraries cannot be used");
    OK(aoti_torch_cuda_caching_allocator_raw_delete(NULL));
    int x;
    FAILS(aoti_torch_cuda_caching_allocator_raw_delete(&x),
          "aoti_torch_cuda_caching_allocator_raw_delete", "was not allocated");
    int32_t n = 7;
    FAILS(shimrt_cuda_device_count(&n), "shimrt_cuda_device_count",
          "the CUDA libraries cannot be used");
    cr_assert_eq(n, 7);
    FAILS(shimrt_cuda_host_alloc(16, &p), "shimrt_cuda_host_alloc",
          "the CUDA libraries cannot be used");
    FAILS(shimrt_cuda_memcpy(&x, &n, 4, NULL, true), "shimrt_cuda_memcpy",
          "the CUDA libraries cannot be used");
    FAILS(shimrt_cuda_event_new(true, &p), "shimrt_cuda_event_new",
          "the CUDA libraries cannot be used");
    FAILS(shimrt_cuda_empty_cache(), "shimrt_cuda_empty_cache",
          "the CUDA libraries cannot be used");
    /* the CUDA runtime API calls libshimrt-cudart is built on */
    FAILS(shimrt_cuda_set_device(0), "shimrt_cuda_set_device", "the CUDA libraries cannot be used");
    FAILS(shimrt_cuda_set_device(-1), "shimrt_cuda_set_device", "out of range");
    int32_t dev = 5;
    FAILS(shimrt_cuda_get_device(&dev), "shimrt_cuda_get_device",
          "the CUDA libraries cannot be used");
    cr_assert_eq(dev, 5);
    FAILS(shimrt_cuda_get_device(NULL), "shimrt_cuda_get_device", "ret_device_index");
    bool done = false;
    FAILS(shimrt_cuda_event_query(&x, &done), "shimrt_cuda_event_query",
          "the CUDA libraries cannot be used");
    FAILS(shimrt_cuda_event_query(NULL, &done), "shimrt_cuda_event_query", "event");
    FAILS(shimrt_cuda_memset(&x, 0, 4, NULL, true), "shimrt_cuda_memset",
          "the CUDA libraries cannot be used");
    OK(shimrt_cuda_memset(NULL, 0, 0, NULL, true)); /* nothing to set */
    FAILS(shimrt_cuda_device_synchronize(-1), "shimrt_cuda_device_synchronize",
          "the CUDA libraries cannot be used");
    cr_assert_str_eq(shimrt_cuda_error_string(0), "no error");
    cr_assert(strstr(shimrt_cuda_error_string(2), "out of memory"), "%s",
              shimrt_cuda_error_string(2));
    cr_assert_not_null(shimrt_cuda_error_string(123456));
    FAILS(aoti_torch_get_current_cuda_stream(0, NULL), "aoti_torch_get_current_cuda_stream",
          "ret_stream");
    no_leaks();
}

Test(cuda_nodriver, check_msg_formats_cuda_errors) {
    char *msg = (char *)1;
    OK(torch_c10_cuda_check_msg(0, "f.cu", "fn", 12, true, &msg));
    cr_assert_null(msg);
    OK(torch_c10_cuda_check_msg(2, "f.cu", "fn", 12, false, &msg));
    cr_assert_not_null(msg);
    cr_assert(strstr(msg, "CUDA error: ") == msg, "%s", msg);
    cr_assert(strstr(msg, "out of memory") != NULL, "%s", msg);
    cr_assert(strstr(msg, "f.cu:12 in fn") != NULL, "%s", msg);
    cr_assert(strstr(msg, "explicitly omitted") != NULL, "%s", msg);
    torch_c10_cuda_free_error_msg(msg);
    torch_c10_cuda_free_error_msg(NULL);
    FAILS(torch_c10_cuda_check_msg(2, "f.cu", "fn", 1, true, NULL), "torch_c10_cuda_check_msg",
          "error_msg");
}

/* cuBLAS needs no GPU to load: where the toolkit's libcublas is installed, every symbol the
 * GEMM path uses resolves (the calls themselves are tested on the fake driver with a fake
 * cuBLAS, and on a GPU with the real one). */
Test(cuda_nodriver, the_installed_cublas_loads_with_every_gemm_symbol) {
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("cuBLAS is not loaded under AddressSanitizer; the plain pass runs this");
#endif
    void *h = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libcublas.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!h) cr_skip_test("no libcublas.so.13 or .12 on this machine");
    dlclose(h);
    const shimrt_cublas_api *bl = shimrt_cublas("test");
    cr_assert_not_null(bl, "%s", torch_exception_get_what());
    cr_assert(strstr(bl->soname, "libcublas.so.1") != NULL, "%s", bl->soname);
    cr_assert_not_null(bl->cublasCreate);
    cr_assert_not_null(bl->cublasSetStream);
    cr_assert_not_null(bl->cublasGemmEx);
    cr_assert_not_null(bl->cublasGemmStridedBatchedEx);
}

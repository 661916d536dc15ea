/* tests/cuda/test_cuda_fake.c: the CUDA backend's device logic against a fake driver
 * (tests/cuda/fake_cuda.c: two devices backed by host memory), so guards, streams, the
 * stream pool, the caching allocator, copies, events and CUDA tensors are tested on
 * machines without a GPU. */
#include "cuda_test.h"
#include "c_shim_cpu.h"
#include "c_shim_cuda.h"

static void *fake;
static long (*live_allocs)(void), (*live_streams)(void);
static int (*cur_dev)(void);
static void (*set_budget)(size_t);
static void (*last_copy)(int *, void **);
static void (*app_set_device)(int);
static int (*pointer_attr)(void *, int, unsigned long long);
static void (*set_driver_version)(int);
static void (*hold_events)(int), (*release_events)(void);
static char fake_dir[PATH_MAX];

static void use_fake(void) {
    char exe[PATH_MAX], lib[PATH_MAX + 32];
    exe_dir(exe);
    snprintf(lib, sizeof lib, "%s/libfakecuda.so", exe);
    setenv("SHIMRT_LIBCUDA", lib, 1);
    fake = dlopen(lib, RTLD_NOW);
    cr_assert_not_null(fake, "%s", dlerror());
    *(void **)&live_allocs = dlsym(fake, "fake_cuda_live_allocs");
    *(void **)&live_streams = dlsym(fake, "fake_cuda_live_streams");
    *(void **)&cur_dev = dlsym(fake, "fake_cuda_current_device");
    *(void **)&set_budget = dlsym(fake, "fake_cuda_set_budget");
    *(void **)&last_copy = dlsym(fake, "fake_cuda_last_copy");
    *(void **)&app_set_device = dlsym(fake, "fake_cuda_app_set_device");
    *(void **)&pointer_attr = dlsym(fake, "cuPointerGetAttribute");
    *(void **)&set_driver_version = dlsym(fake, "fake_cuda_set_driver_version");
    *(void **)&hold_events = dlsym(fake, "fake_cuda_hold_events");
    *(void **)&release_events = dlsym(fake, "fake_cuda_release_events");
    snprintf(fake_dir, sizeof fake_dir, "%s", exe);
}

TestSuite(cuda_fake, .init = use_fake);

Test(cuda_fake, devices_and_guards) {
    int32_t n = 0;
    OK(shimrt_cuda_device_count(&n));
    cr_assert_eq(n, 2);
    CUDAGuardHandle g = NULL, g2 = NULL;
    OK(aoti_torch_create_cuda_guard(1, &g));
    cr_assert_eq(cur_dev(), 1);
    OK(aoti_torch_create_cuda_guard(0, &g2));
    cr_assert_eq(cur_dev(), 0);
    OK(aoti_torch_cuda_guard_set_index(g2, 1));
    cr_assert_eq(cur_dev(), 1);
    OK(aoti_torch_delete_cuda_guard(g2));
    cr_assert_eq(cur_dev(), 1);
    OK(aoti_torch_delete_cuda_guard(g));
    cr_assert_eq(cur_dev(), 0);
    FAILS(aoti_torch_delete_cuda_guard(g), "aoti_torch_delete_cuda_guard", "freed");
    FAILS(aoti_torch_create_cuda_guard(2, &g), "aoti_torch_create_cuda_guard",
          "CUDA device index 2 is out of range (2 device(s) present)");
}

Test(cuda_fake, streams_guards_and_pool) {
    void *cur = (void *)1, *s1 = NULL, *s2 = NULL, *hp = NULL;
    OK(aoti_torch_get_current_cuda_stream(0, &cur));
    cr_assert_null(cur, "the default stream is the legacy stream (NULL)");
    OK(torch_get_cuda_stream_from_pool(false, 1, &s1));
    OK(torch_get_cuda_stream_from_pool(false, 1, &s2));
    OK(torch_get_cuda_stream_from_pool(true, 1, &hp));
    cr_assert(s1 && s2 && hp && s1 != s2 && hp != s1);
    cr_assert_eq(*(int *)hp, -5, "high priority streams get the greatest priority");
    for (int i = 0; i < 30; i++) OK(torch_get_cuda_stream_from_pool(false, 1, &cur));
    OK(torch_get_cuda_stream_from_pool(false, 1, &cur));
    cr_assert_eq(cur, s1, "the pool is a ring of 32 streams");
    CUDAStreamGuardHandle sg = NULL;
    OK(aoti_torch_create_cuda_stream_guard(s2, 1, &sg));
    OK(aoti_torch_get_current_cuda_stream(1, &cur));
    cr_assert_eq(cur, s2);
    OK(aoti_torch_get_current_cuda_stream(-1, &cur));
    cr_assert_eq(cur, s2, "the stream guard made device 1 current");
    OK(aoti_torch_get_current_cuda_stream(0, &cur));
    cr_assert_null(cur);
    OK(aoti_torch_delete_cuda_stream_guard(sg));
    OK(aoti_torch_get_current_cuda_stream(1, &cur));
    cr_assert_null(cur);
    OK(torch_set_current_cuda_stream(s1, 0));
    OK(aoti_torch_get_current_cuda_stream(0, &cur));
    cr_assert_eq(cur, s1);
    OK(torch_cuda_stream_synchronize(s1, 0));
    OK(torch_set_current_cuda_stream(NULL, 0));
}

Test(cuda_fake, caching_allocator_reuses_per_stream) {
    void *p = NULL, *q = NULL, *r = NULL, *s = NULL;
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(1000, &p));
    long base = live_allocs();
    OK(aoti_torch_cuda_caching_allocator_raw_delete(p));
    cr_assert_eq(live_allocs(), base, "a freed block stays cached");
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(900, &q));
    cr_assert_eq(q, p, "same stream, fitting size: the cached block is reused");
    OK(torch_get_cuda_stream_from_pool(false, 0, &s));
    OK(torch_set_current_cuda_stream(s, 0));
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(900, &r));
    cr_assert_neq(r, q, "another stream never gets a block in use");
    OK(aoti_torch_cuda_caching_allocator_raw_delete(q));
    void *t = NULL;
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(900, &t));
    cr_assert_neq(t, q, "a block cached for stream A is not handed to stream B");
    OK(torch_set_current_cuda_stream(NULL, 0));
    OK(aoti_torch_cuda_caching_allocator_raw_delete(r));
    OK(aoti_torch_cuda_caching_allocator_raw_delete(t));
    FAILS(aoti_torch_cuda_caching_allocator_raw_delete(t),
          "aoti_torch_cuda_caching_allocator_raw_delete", "freed already");
    uint64_t used = 1, cached = 0;
    OK(shimrt_cuda_memory_stats(&used, &cached));
    cr_assert_eq(used, 0);
    cr_assert(cached >= 3 * 1024);
    OK(shimrt_cuda_empty_cache());
    OK(shimrt_cuda_memory_stats(&used, &cached));
    cr_assert_eq(cached, 0);
    cr_assert_eq(live_allocs(), 0, "empty_cache returned every block to the driver");
}

Test(cuda_fake, out_of_memory_releases_the_cache_and_retries) {
    void *p = NULL, *q = NULL;
    OK(shimrt_cuda_empty_cache());
    set_budget(24 << 20);
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(12 << 20, &p));
    OK(aoti_torch_cuda_caching_allocator_raw_delete(p));
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(14 << 20, &q)); /* fits only without p */
    OK(aoti_torch_cuda_caching_allocator_raw_delete(q));
    shimrt_cuda_alloc_stats st;
    OK(shimrt_cuda_alloc_stats_get(0, &st));
    cr_assert_eq(st.oom_retries, 1, "the failed cuMemAlloc was retried after the release");
    cr_assert_eq(st.reserved_bytes, 14 << 20, "the 12 MiB segment was released");
    FAILS(aoti_torch_cuda_caching_allocator_raw_alloc(40 << 20, &q),
          "aoti_torch_cuda_caching_allocator_raw_alloc",
          "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory); tried to allocate "
          "41943040 bytes");
    OK(shimrt_cuda_alloc_stats_get(0, &st));
    cr_assert_eq(st.ooms, 1);
    set_budget((size_t)-1);
    OK(shimrt_cuda_empty_cache());
    cr_assert_eq(live_allocs(), 0);
}

Test(cuda_fake, cuda_tensors_and_copies) {
    int64_t sizes[] = {4, 8};
    AtenTensorHandle t = NULL;
    OK(empty_contig(2, sizes, aoti_torch_dtype_float32(), aoti_torch_device_type_cuda(), 1, &t));
    int32_t idx = -1, type = -1;
    OK(aoti_torch_get_device_index(t, &idx));
    OK(aoti_torch_get_device_type(t, &type));
    cr_assert_eq(idx, 1);
    cr_assert_eq(type, aoti_torch_device_type_cuda());
    void *dev = NULL;
    OK(aoti_torch_get_data_ptr(t, &dev));
    float host[32], back[32];
    for (int i = 0; i < 32; i++) host[i] = (float)i * 0.5f;
    void *pinned = NULL;
    OK(shimrt_cuda_host_alloc(sizeof host, &pinned));
    memcpy(pinned, host, sizeof host);
    OK(shimrt_cuda_memcpy(dev, pinned, sizeof host, NULL, false)); /* H2D */
    void *dev2 = NULL;
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(sizeof host, &dev2));
    OK(shimrt_cuda_memcpy(dev2, dev, sizeof host, NULL, false)); /* D2D */
    OK(shimrt_cuda_memcpy(back, dev2, sizeof host, NULL, true)); /* D2H */
    cr_assert_arr_eq(back, host, sizeof host);
    void *e0 = NULL, *e1 = NULL;
    float ms = -1;
    OK(shimrt_cuda_event_new(true, &e0));
    OK(shimrt_cuda_event_new(true, &e1));
    OK(shimrt_cuda_event_record(e0, NULL));
    OK(shimrt_cuda_event_record(e1, NULL));
    OK(shimrt_cuda_event_record(e1, NULL));
    OK(shimrt_cuda_stream_wait_event(NULL, e1));
    OK(shimrt_cuda_event_synchronize(e1));
    OK(shimrt_cuda_event_elapsed_ms(e0, e1, &ms));
    cr_assert_float_eq(ms, 1.5f, 1e-6);
    OK(shimrt_cuda_event_delete(e0));
    OK(shimrt_cuda_event_delete(e1));
    OK(shimrt_cuda_host_free(pinned));
    FAILS(shimrt_cuda_host_free(dev2), "shimrt_cuda_host_free", "pinned host");
    OK(aoti_torch_cuda_caching_allocator_raw_delete(dev2));
    OK(aoti_torch_delete_tensor_object(t));
    no_leaks();
    OK(shimrt_cuda_empty_cache());
    cr_assert_eq(live_allocs(), 0);
}

/* empty.memory_format on CUDA: a device allocation (no kernel, no fallback copy: the fake driver without the emulator suffices), on the
 * device asked for, with PyTorch's strides for each memory format and the CPU's errors. */
Test(cuda_fake, empty_memory_format_allocates_on_the_device) {
    int32_t ndev = 0;
    if (shimrt_cuda_device_count(&ndev) || ndev < 1) cr_skip_test("no CUDA device");
    int64_t s[4] = {2, 3, 4, 5};
    int32_t cuda = aoti_torch_device_type_cuda(), f16 = SHIMRT_FLOAT16;
    AtenTensorHandle t = NULL, c = NULL;
    OK(aoti_torch_cuda_empty_memory_format(s, 4, &f16, NULL, &cuda, ndev - 1, NULL, NULL, &t));
    cr_assert_eq(t->device_type, cuda);
    cr_assert_eq(t->device_index, ndev - 1);
    cr_assert_eq(t->dtype, SHIMRT_FLOAT16);
    OK(empty_contig(4, s, SHIMRT_FLOAT16, aoti_torch_device_type_cpu(), 0, &c));
    for (int d = 0; d < 4; d++) {
        cr_assert_eq(t->sizes[d], s[d]);
        cr_assert_eq(t->strides[d], c->strides[d], "contiguous strides");
    }
    OK(aoti_torch_delete_tensor_object(t));
    /* channels_last: C innermost (PyTorch's NHWC order), no device given: the current one */
    int32_t cl = SHIMRT_MEMORY_FORMAT_CHANNELS_LAST;
    OK(aoti_torch_cuda_empty_memory_format(s, 4, NULL, NULL, NULL, -1, NULL, &cl, &t));
    cr_assert_eq(t->dtype, SHIMRT_FLOAT32);
    cr_assert_eq(t->strides[1], 1);
    cr_assert_eq(t->strides[3], s[1]);
    cr_assert_eq(t->strides[2], s[1] * s[3]);
    cr_assert_eq(t->strides[0], s[1] * s[2] * s[3]);
    OK(aoti_torch_delete_tensor_object(t));
    /* zero-size and 0-dim tensors */
    int64_t z[2] = {0, 7};
    OK(aoti_torch_cuda_empty_memory_format(z, 2, NULL, NULL, &cuda, 0, NULL, NULL, &t));
    cr_assert_eq(t->sizes[0], 0);
    OK(aoti_torch_delete_tensor_object(t));
    OK(aoti_torch_cuda_empty_memory_format(NULL, 0, NULL, NULL, &cuda, 0, NULL, NULL, &t));
    cr_assert_eq(t->ndim, 0);
    OK(aoti_torch_delete_tensor_object(t));
    /* errors: as the CPU kernel says them */
    int64_t bad[2] = {2, -1};
    int32_t cpu = aoti_torch_device_type_cpu();
    FAILS(aoti_torch_cpu_empty_memory_format(bad, 2, NULL, NULL, &cpu, 0, NULL, NULL, &t),
          "empty.memory_format", "Trying to create tensor with negative dimension -1");
    FAILS(aoti_torch_cuda_empty_memory_format(bad, 2, NULL, NULL, &cuda, 0, NULL, NULL, &t),
          "empty.memory_format", "Trying to create tensor with negative dimension -1");
    FAILS(aoti_torch_cuda_empty_memory_format(z, 2, NULL, NULL, NULL, -1, NULL, &cl, &t),
          "empty.memory_format", "required rank 4 tensor to use channels_last format");
    int32_t pf = aoti_torch_memory_format_preserve_format();
    FAILS(aoti_torch_cuda_empty_memory_format(s, 4, NULL, NULL, NULL, -1, NULL, &pf, &t),
          "empty.memory_format", "unsupported memory format Preserve");
    FAILS(aoti_torch_cuda_empty_memory_format(z, 2, NULL, NULL, &cuda, 99, NULL, NULL, &t),
          "empty.memory_format", "out of range");
    OK(aoti_torch_delete_tensor_object(c));
    no_leaks();
}

/* The device the fake driver allocated p on. */
static int device_of(const void *p) {
    int d = -1;
    cr_assert_eq(pointer_attr(&d, 9, (unsigned long long)(uintptr_t)p), 0);
    return d;
}

/* Issue 21, item 7: the runtime asks the driver which context is current instead of
 * trusting a per-thread cache (the application or another library may have called
 * cudaSetDevice/cuCtxSetCurrent since), and an operation on another device puts the
 * caller's context back. */
Test(cuda_fake, contexts_follow_the_driver_and_ops_restore_them) {
    CUDAGuardHandle g = NULL;
    OK(aoti_torch_create_cuda_guard(1, &g));
    cr_assert_eq(cur_dev(), 1);
    app_set_device(0); /* the application's cudaSetDevice(0) */
    void *s = NULL, *cur = (void *)1;
    OK(torch_get_cuda_stream_from_pool(false, 1, &s));
    cr_assert_eq(cur_dev(), 0, "taking a stream of device 1 leaves device 0 current");
    OK(torch_set_current_cuda_stream(s, 1));
    cr_assert_eq(cur_dev(), 0, "setting device 1's stream does not change the current device");
    OK(aoti_torch_get_current_cuda_stream(-1, &cur));
    cr_assert_null(cur, "the current device is the application's (0), whose stream is the default");
    /* a cuda:1 tensor: its memory comes from device 1 although device 0 is current and the
     * runtime last made device 1 current itself */
    int64_t sizes[] = {256};
    AtenTensorHandle t = NULL;
    OK(empty_contig(1, sizes, aoti_torch_dtype_float32(), aoti_torch_device_type_cuda(), 1, &t));
    cr_assert_eq(device_of(t->storage->data), 1, "cuda:1 memory is allocated on device 1");
    cr_assert_eq(cur_dev(), 0, "the allocation put the caller's device back");
    void *p = NULL;
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(4096, &p));
    cr_assert_eq(device_of(p), 0, "raw_alloc serves the current device: the application's");
    OK(aoti_torch_cuda_caching_allocator_raw_delete(p));
    /* a stream guard on device 1 makes it current; its deletion restores device 0 */
    CUDAStreamGuardHandle sg = NULL;
    OK(aoti_torch_create_cuda_stream_guard(NULL, 1, &sg));
    cr_assert_eq(cur_dev(), 1);
    OK(aoti_torch_delete_cuda_stream_guard(sg));
    cr_assert_eq(cur_dev(), 0);
    OK(torch_set_current_cuda_stream(NULL, 1));
    OK(aoti_torch_delete_tensor_object(t));
    OK(aoti_torch_delete_cuda_guard(g)); /* back to the device current at its creation: 0 */
    cr_assert_eq(cur_dev(), 0);
    OK(shimrt_cuda_empty_cache());
    no_leaks();
}

/* Issue 21, item 1: a copy of device memory runs on the memory's device and that device's
 * current stream (where the kernels that wrote it were queued), whatever the thread's
 * current device, and leaves the current device as it was. */
Test(cuda_fake, copies_run_on_the_memory_device_and_its_current_stream) {
    CUDAGuardHandle g = NULL;
    OK(aoti_torch_create_cuda_guard(0, &g));
    void *s1 = NULL, *d1 = NULL, *stream = (void *)1;
    int dev = -1;
    OK(torch_get_cuda_stream_from_pool(false, 1, &s1));
    OK(torch_set_current_cuda_stream(s1, 1));
    int64_t sizes[] = {64};
    AtenTensorHandle t = NULL;
    OK(empty_contig(1, sizes, aoti_torch_dtype_float32(), aoti_torch_device_type_cuda(), 1, &t));
    d1 = t->storage->data;
    float host[64], back[64];
    for (int i = 0; i < 64; i++) host[i] = (float)i;
    OK(shimrt_cuda_memcpy(d1, host, sizeof host, NULL, false));
    last_copy(&dev, &stream);
    cr_assert_eq(dev, 1, "H2D into cuda:1 memory runs in device 1's context");
    cr_assert_eq(stream, s1, "... on device 1's current stream");
    OK(shimrt_cuda_memcpy(back, d1, sizeof back, NULL, true));
    last_copy(&dev, &stream);
    cr_assert_eq(dev, 1, "D2H from cuda:1 memory runs in device 1's context");
    cr_assert_eq(stream, s1);
    cr_assert_arr_eq(back, host, sizeof host);
    cr_assert_eq(cur_dev(), 0, "the copies left device 0 current");
    OK(torch_set_current_cuda_stream(NULL, 1));
    OK(aoti_torch_delete_tensor_object(t));
    OK(aoti_torch_delete_cuda_guard(g));
    OK(shimrt_cuda_empty_cache());
    no_leaks();
}

/* Issue 21, item 8: the loader takes the newest NVRTC whose major version the driver
 * supports (fake NVRTCs 12 and 13 in build/tests/cuda/nvrtc, fake driver versions), and
 * refuses an NVRTC forced newer than the driver. Each test is its own process: the driver
 * and NVRTC load once there. */
static void nvrtc_dir(void) {
    char d[PATH_MAX + 16];
    snprintf(d, sizeof d, "%s/nvrtc", fake_dir);
    setenv("SHIMRT_NVRTC_DIR", d, 1);
    unsetenv("SHIMRT_LIBNVRTC");
}
Test(cuda_fake, nvrtc_for_a_cuda12_driver_is_nvrtc12) {
    nvrtc_dir();
    set_driver_version(12040);
    const shimrt_nvrtc_api *nv = shimrt_nvrtc("test");
    cr_assert_not_null(nv, "%s", torch_exception_get_what());
    cr_assert_eq(nv->major, 12, "a 12.4 driver refuses NVRTC 13's PTX: NVRTC 12 is chosen");
}
Test(cuda_fake, nvrtc_for_a_cuda13_driver_is_nvrtc13) {
    nvrtc_dir();
    set_driver_version(13000);
    const shimrt_nvrtc_api *nv = shimrt_nvrtc("test");
    cr_assert_not_null(nv, "%s", torch_exception_get_what());
    cr_assert_eq(nv->major, 13);
}
Test(cuda_fake, nvrtc_newer_than_the_driver_is_refused) {
    char lib[PATH_MAX + 32];
    snprintf(lib, sizeof lib, "%s/nvrtc/libnvrtc.so.13", fake_dir);
    setenv("SHIMRT_LIBNVRTC", lib, 1);
    set_driver_version(12020);
    cr_assert_null(shimrt_nvrtc("test"));
    cr_assert(
        strstr(torch_exception_get_what(), "is NVRTC 13.0, newer than the driver (CUDA 12.2)"),
        "%s", torch_exception_get_what());
}

/* Issue 21, item 6: the allocator carves blocks out of segments (splitting), merges them
 * back on free, keeps per-stream pools, and a block recorded on another stream is reused
 * only after the event recorded there at its free has completed. */
Test(cuda_fake, allocator_splits_merges_and_counts) {
    shimrt_cuda_alloc_stats st;
    void *a = NULL, *b = NULL, *c = NULL;
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(1000, &a));
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(3000, &b));
    OK(shimrt_cuda_alloc_stats_get(0, &st));
    cr_assert_eq(st.segments, 1, "two small blocks share one 2 MiB segment");
    cr_assert_eq(st.reserved_bytes, 2 << 20);
    cr_assert_eq(st.driver_allocs, 1);
    cr_assert_eq(st.splits, 2);
    cr_assert_eq(st.active_blocks, 2);
    cr_assert_eq(st.allocated_bytes, 1024 + 3072, "sizes round up to 512 bytes");
    cr_assert_eq(st.requested_bytes, 4000);
    cr_assert_eq((char *)b, (char *)a + 1024, "b is carved right after a");
    OK(aoti_torch_cuda_caching_allocator_raw_delete(a));
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(512, &c));
    cr_assert_eq(c, a, "the freed 1 KiB block serves a smaller request (best fit)");
    OK(aoti_torch_cuda_caching_allocator_raw_delete(c));
    OK(aoti_torch_cuda_caching_allocator_raw_delete(b));
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(1 << 20, &c)); /* the largest small request */
    cr_assert_eq(c, a, "the freed blocks merged back into the whole segment");
    OK(aoti_torch_cuda_caching_allocator_raw_delete(c));
    /* a large request: its own 20 MiB segment, split; the rest serves the next one */
    void *l1 = NULL, *l2 = NULL;
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(3 << 20, &l1));
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(5 << 20, &l2));
    OK(shimrt_cuda_alloc_stats_get(0, &st));
    cr_assert_eq(st.segments, 2);
    cr_assert_eq(st.reserved_bytes, (2 << 20) + (20 << 20));
    cr_assert_eq((char *)l2, (char *)l1 + (3 << 20));
    cr_assert_eq(st.peak_allocated_bytes, 8 << 20);
    OK(aoti_torch_cuda_caching_allocator_raw_delete(l1));
    OK(aoti_torch_cuda_caching_allocator_raw_delete(l2));
    OK(shimrt_cuda_empty_cache());
    OK(shimrt_cuda_alloc_stats_get(0, &st));
    cr_assert_eq(st.reserved_bytes, 0);
    cr_assert_eq(st.driver_frees, 2);
    cr_assert_eq(live_allocs(), 0);
}

Test(cuda_fake, allocator_reuses_across_streams_only_after_the_event) {
    void *s1 = NULL, *p = NULL, *q = NULL;
    OK(torch_get_cuda_stream_from_pool(false, 0, &s1));
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(4096, &p));
    OK(shimrt_cuda_record_stream(p, s1)); /* p is also read by work queued on s1 */
    hold_events(1);                       /* that work has not run yet */
    OK(aoti_torch_cuda_caching_allocator_raw_delete(p));
    shimrt_cuda_alloc_stats st;
    OK(shimrt_cuda_alloc_stats_get(0, &st));
    cr_assert_eq(st.pending_blocks, 1);
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(4096, &q));
    cr_assert_neq(q, p, "p is not reused while s1's work may still read it");
    OK(aoti_torch_cuda_caching_allocator_raw_delete(q));
    release_events(); /* s1 caught up */
    hold_events(0);
    void *r = NULL;
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(4096, &r));
    cr_assert_eq(r, p, "after the event p is reused");
    OK(shimrt_cuda_alloc_stats_get(0, &st));
    cr_assert_eq(st.pending_blocks, 0);
    OK(aoti_torch_cuda_caching_allocator_raw_delete(r));
    FAILS(shimrt_cuda_record_stream(r, s1), "shimrt_cuda_record_stream", "is not the start");
    /* per-stream pools: a block freed on the default stream is not given to s1 */
    OK(torch_set_current_cuda_stream(s1, 0));
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(4096, &q));
    cr_assert_neq(q, p);
    OK(aoti_torch_cuda_caching_allocator_raw_delete(q));
    OK(torch_set_current_cuda_stream(NULL, 0));
    OK(shimrt_cuda_empty_cache());
    cr_assert_eq(live_allocs(), 0);
}

/* Pinned host blocks: an asynchronous copy records its stream on the block, and the freed
 * block is not handed out again until that copy has completed. */
Test(cuda_fake, pinned_blocks_wait_for_their_async_copies) {
    void *h = NULL, *h2 = NULL, *d = NULL, *s1 = NULL;
    OK(torch_get_cuda_stream_from_pool(false, 0, &s1));
    OK(shimrt_cuda_host_alloc(1000, &h));
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(1000, &d));
    hold_events(1);
    OK(shimrt_cuda_memcpy(d, h, 1000, s1, false)); /* H2D still in flight on s1 */
    OK(shimrt_cuda_host_free(h));
    shimrt_cuda_alloc_stats st;
    OK(shimrt_cuda_alloc_stats_get(0, &st));
    cr_assert_eq(st.host_pending_blocks, 1);
    OK(shimrt_cuda_host_alloc(1000, &h2));
    cr_assert_neq(h2, h, "the pinned block is not reused while the copy may read it");
    OK(shimrt_cuda_host_free(h2));
    release_events();
    hold_events(0);
    OK(shimrt_cuda_host_alloc(1000, &h2));
    cr_assert(h2 == h || h2 != NULL);
    void *h3 = NULL;
    OK(shimrt_cuda_host_alloc(1000, &h3));
    cr_assert(h2 == h || h3 == h, "after the copy the block is reused");
    OK(shimrt_cuda_host_free(h2));
    OK(shimrt_cuda_host_free(h3));
    /* a synchronous copy records nothing: the block is reusable at once */
    OK(shimrt_cuda_host_alloc(1000, &h));
    OK(shimrt_cuda_memcpy(d, h, 1000, s1, true));
    OK(shimrt_cuda_host_free(h));
    OK(shimrt_cuda_host_alloc(1000, &h2));
    cr_assert_eq(h2, h);
    OK(shimrt_cuda_host_free(h2));
    OK(aoti_torch_cuda_caching_allocator_raw_delete(d));
    OK(shimrt_cuda_empty_cache());
    cr_assert_eq(live_allocs(), 0);
}

/* SHIMRT_CUDA_ALLOC_CONF=caching:0 returns every free to the driver. */
Test(cuda_fake, alloc_conf_caching_off) {
    setenv("SHIMRT_CUDA_ALLOC_CONF", "max_split_size_mb:64,caching:0", 1);
    void *p = NULL;
    OK(aoti_torch_cuda_caching_allocator_raw_alloc(4096, &p));
    cr_assert_eq(live_allocs(), 1);
    OK(aoti_torch_cuda_caching_allocator_raw_delete(p));
    cr_assert_eq(live_allocs(), 0, "nothing is cached");
    unsetenv("SHIMRT_CUDA_ALLOC_CONF");
}

/* tests/runtime/test_devices.c: device strings, the thread pool, device guards, streams,
 * the CUDA entry points and generators (shimrt/device.h). */
#include <stdatomic.h>
#include <stdlib.h>

#include "shimrt_test.h"

Test(parse_device, valid_strings) {
    struct {
        const char *s;
        uint32_t type;
        int32_t index;
    } rows[] = {{"cpu", 0, -1},   {"cpu:0", 0, 0},    {"cuda", 1, -1},
                {"cuda:0", 1, 0}, {"cuda:12", 1, 12}, {"meta", 14, -1},
                {"xpu:1", 12, 1}, {"mps", 13, -1},    {"privateuseone:3", 20, 3}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint32_t type = 99;
        int32_t index = 99;
        OK(torch_parse_device_string(rows[i].s, &type, &index));
        cr_assert_eq(type, rows[i].type, "%s", rows[i].s);
        cr_assert_eq(index, rows[i].index, "%s", rows[i].s);
    }
}

Test(parse_device, invalid_strings) {
    uint32_t type;
    int32_t index;
    const char *bad_index[] = {"cuda:", "cuda:01", "cuda:-1", "cuda:1x", "cuda:+1"};
    for (size_t i = 0; i < sizeof bad_index / sizeof *bad_index; i++)
        FAILS(torch_parse_device_string(bad_index[i], &type, &index), "torch_parse_device_string",
              "invalid device index");
    FAILS(torch_parse_device_string("gpu:0", &type, &index), "torch_parse_device_string",
          "unknown device type in device string 'gpu:0'");
    FAILS(torch_parse_device_string("", &type, &index), "torch_parse_device_string",
          "unknown device type");
    FAILS(torch_parse_device_string("cpu:1", &type, &index), "torch_parse_device_string",
          "CPU device index");
    FAILS(torch_parse_device_string("cuda:999", &type, &index), "torch_parse_device_string",
          "too large");
    FAILS(torch_parse_device_string(NULL, &type, &index), "torch_parse_device_string", "NULL");
    FAILS(torch_parse_device_string("cpu", NULL, &index), "torch_parse_device_string",
          "out_device_type");
    FAILS(torch_parse_device_string("cpu", &type, NULL), "torch_parse_device_string",
          "out_device_index");
}

typedef struct {
    _Atomic int64_t sum;
    _Atomic int calls;
    _Atomic uint32_t max_idx;
    int64_t grain;
    _Atomic int too_small;
    int64_t end;
} pf_ctx;

static void pf_body(int64_t b, int64_t e, void *vctx) {
    pf_ctx *c = vctx;
    int64_t s = 0;
    for (int64_t i = b; i < e; i++) s += i;
    atomic_fetch_add(&c->sum, s);
    atomic_fetch_add(&c->calls, 1);
    uint32_t idx, nt;
    torch_get_thread_idx(&idx);
    torch_get_num_threads(&nt);
    uint32_t m = atomic_load(&c->max_idx);
    while (idx > m && !atomic_compare_exchange_weak(&c->max_idx, &m, idx)) {
    }
    if (idx >= nt) atomic_store(&c->too_small, 2);
    if (e - b < c->grain && e != c->end) atomic_store(&c->too_small, 1);
}

Test(parallel_for, covers_the_range_once, .init = NULL) {
    pf_ctx c = {0};
    c.grain = 1000;
    c.end = 100000;
    OK(torch_parallel_for(0, 100000, 1000, pf_body, &c));
    cr_assert_eq(atomic_load(&c.sum), (int64_t)99999 * 100000 / 2);
    cr_assert_eq(atomic_load(&c.too_small), 0, "chunks respect grain_size and thread indices");
    uint32_t nt;
    OK(torch_get_num_threads(&nt));
    cr_assert(atomic_load(&c.calls) <= (int)nt);
    uint32_t idx = 7;
    OK(torch_get_thread_idx(&idx));
    cr_assert_eq(idx, 0, "0 outside a parallel region");
}

Test(parallel_for, small_and_empty_ranges_run_inline) {
    pf_ctx c = {0};
    c.end = 10;
    OK(torch_parallel_for(0, 10, 100, pf_body, &c));
    cr_assert_eq(atomic_load(&c.calls), 1);
    cr_assert_eq(atomic_load(&c.sum), 45);
    OK(torch_parallel_for(5, 5, 1, pf_body, &c));
    OK(torch_parallel_for(5, 2, 1, pf_body, &c));
    cr_assert_eq(atomic_load(&c.calls), 1);
    c.end = 3;
    OK(torch_parallel_for(-3, 3, 0, pf_body, &c)); /* grain 0 counts as 1 */
    cr_assert_eq(atomic_load(&c.sum), 45 + (-3 - 2 - 1 + 0 + 1 + 2));
}

static void nested_body(int64_t b, int64_t e, void *vctx) {
    pf_ctx *inner = vctx;
    for (int64_t i = b; i < e; i++) torch_parallel_for(0, 100, 1, pf_body, inner);
}

Test(parallel_for, nested_calls_run_serially) {
    pf_ctx c = {0};
    c.end = 100;
    OK(torch_parallel_for(0, 8, 1, nested_body, &c));
    cr_assert_eq(atomic_load(&c.sum), 8 * 4950);
}

Test(parallel_for, num_threads_from_environment) {
    /* Criterion runs each test in a fresh process: set the variable before first use. */
    setenv("SHIMRT_NUM_THREADS", "3", 1);
    uint32_t nt;
    OK(torch_get_num_threads(&nt));
    cr_assert_eq(nt, 3);
    pf_ctx c = {0};
    c.end = 3000;
    OK(torch_parallel_for(0, 3000, 1, pf_body, &c));
    cr_assert(atomic_load(&c.calls) <= 3);
    cr_assert(atomic_load(&c.max_idx) <= 2);
    cr_assert_eq(atomic_load(&c.sum), (int64_t)2999 * 3000 / 2);
}

Test(parallel_for, errors) {
    pf_ctx c = {0};
    FAILS(torch_parallel_for(0, 10, 1, NULL, &c), "torch_parallel_for", "'func' is NULL");
    /* a negative grain is accepted, as at::parallel_for takes it (release builds): every
     * index is visited once */
    c.end = 10;
    OK(torch_parallel_for(0, 10, -1, pf_body, &c));
    cr_assert_eq(atomic_load(&c.sum), 45);
    FAILS(torch_get_thread_idx(NULL), "torch_get_thread_idx", "NULL");
    FAILS(torch_get_num_threads(NULL), "torch_get_num_threads", "NULL");
}

Test(device_guard, cpu_guard_sets_and_restores) {
    int32_t idx = 5;
    OK(aoti_torch_get_current_device_index(&idx));
    cr_assert_eq(idx, 0);
    DeviceGuardHandle g;
    OK(aoti_torch_create_device_guard(0, &g));
    OK(aoti_torch_device_guard_set_index(g, -1));
    OK(aoti_torch_get_current_device_index(&idx));
    cr_assert_eq(idx, 0);
    OK(aoti_torch_delete_device_guard(g));
    OK(aoti_torch_delete_device_guard(NULL));
    FAILS(aoti_torch_delete_device_guard(g), "aoti_torch_delete_device_guard", "freed");
    FAILS(aoti_torch_device_guard_set_index(g, 0), "aoti_torch_device_guard_set_index", "freed");
    FAILS(aoti_torch_create_device_guard(1, &g), "aoti_torch_create_device_guard",
          "device index 1 is not available");
    FAILS(aoti_torch_create_device_guard(0, NULL), "aoti_torch_create_device_guard", "NULL");
    OK(aoti_torch_create_device_guard(0, &g));
    FAILS(aoti_torch_device_guard_set_index(g, 2), "aoti_torch_device_guard_set_index",
          "device index 2");
    FAILS(aoti_torch_device_guard_set_index(NULL, 0), "aoti_torch_device_guard_set_index", "NULL");
    long long garbage[4] = {0};
    FAILS(aoti_torch_delete_device_guard((DeviceGuardHandle)garbage),
          "aoti_torch_delete_device_guard", "not a device guard");
    OK(aoti_torch_delete_device_guard(g));
    FAILS(aoti_torch_get_current_device_index(NULL), "aoti_torch_get_current_device_index", "NULL");
}

Test(streams, cpu_default_stream) {
    StreamHandle s;
    OK(aoti_torch_get_current_stream(0, &s));
    int64_t id = 9;
    void *native = (void *)1;
    OK(aoti_torch_stream_id(s, &id));
    cr_assert_eq(id, 0);
    OK(torch_stream_native_handle(s, &native));
    cr_assert_null(native);
    FAILS(aoti_torch_stream_id(s, NULL), "aoti_torch_stream_id", "NULL");
    FAILS(torch_stream_native_handle(s, NULL), "torch_stream_native_handle", "NULL");
    OK(aoti_torch_delete_stream(s));
    OK(aoti_torch_delete_stream(NULL));
    FAILS(aoti_torch_delete_stream(s), "aoti_torch_delete_stream", "freed");
    FAILS(aoti_torch_stream_id(s, &id), "aoti_torch_stream_id", "freed");
    FAILS(torch_stream_native_handle(NULL, &native), "torch_stream_native_handle", "NULL");
    long long garbage[4] = {0};
    FAILS(torch_stream_native_handle((StreamHandle)garbage, &native), "torch_stream_native_handle",
          "not a stream handle");
    FAILS(aoti_torch_get_current_stream(1, &s), "aoti_torch_get_current_stream",
          "device index 1 is not available");
    FAILS(aoti_torch_get_current_stream(0, NULL), "aoti_torch_get_current_stream", "NULL");
}

Test(cuda, every_cuda_function_fails_cleanly) {
    void *stream = NULL;
    FAILS(aoti_torch_get_current_cuda_stream(0, &stream), "aoti_torch_get_current_cuda_stream",
          "the CUDA libraries cannot be used");
    FAILS(torch_set_current_cuda_stream(NULL, 0), "torch_set_current_cuda_stream",
          "the CUDA libraries cannot be used");
    FAILS(torch_get_cuda_stream_from_pool(true, 0, &stream), "torch_get_cuda_stream_from_pool",
          "the CUDA libraries cannot be used");
    FAILS(torch_cuda_stream_synchronize(NULL, 0), "torch_cuda_stream_synchronize",
          "the CUDA libraries cannot be used");
    cr_assert_null(stream);
}

Test(generators, shared_state_and_device) {
    AtenGeneratorHandle g, h;
    OK(shimrt_generator_new(aoti_torch_device_type_cpu(), -1, 42, &g));
    OK(torch_new_generator_handle(g, &h));
    int32_t dt = -5, di = -5;
    OK(torch_generator_get_device(h, &dt, &di));
    cr_assert_eq(dt, 0);
    cr_assert_eq(di, -1, "PyTorch: torch.Generator().device.index is None (-1)");
    uint64_t seed, off;
    OK(shimrt_generator_get_seed(h, &seed));
    cr_assert_eq(seed, 42);
    OK(shimrt_generator_reserve(g, 10, &off));
    cr_assert_eq(off, 0);
    OK(shimrt_generator_reserve(h, 5, &off));
    cr_assert_eq(off, 10, "handles share one counter");
    OK(shimrt_generator_set_seed(h, 7));
    OK(shimrt_generator_get_seed(g, &seed));
    cr_assert_eq(seed, 7);
    OK(shimrt_generator_reserve(g, 1, &off));
    cr_assert_eq(off, 0, "reseeding resets the offset");
    OK(torch_delete_generator(g));
    OK(torch_generator_get_device(h, &dt, &di)); /* state lives on through h */
    OK(torch_delete_generator(h));
    OK(torch_delete_generator(NULL));
    AtenGeneratorHandle m;
    OK(shimrt_generator_new(aoti_torch_device_type_meta(), 0, 1, &m));
    OK(torch_generator_get_device(m, &dt, &di));
    cr_assert_eq(dt, 14);
    OK(torch_delete_generator(m));
}

Test(generators, errors) {
    AtenGeneratorHandle g, h;
    FAILS(shimrt_generator_new(1, 0, 1, &g), "shimrt_generator_new",
          "the CUDA libraries cannot be used");
    FAILS(shimrt_generator_new(55, 0, 1, &g), "shimrt_generator_new", "unknown device type");
    FAILS(shimrt_generator_new(0, 0, 1, NULL), "shimrt_generator_new", "NULL");
    OK(shimrt_generator_new(0, 0, 1, &g));
    OK(torch_delete_generator(g));
    int32_t a, b;
    uint64_t u;
    FAILS(torch_new_generator_handle(g, &h), "torch_new_generator_handle", "freed");
    FAILS(torch_new_generator_handle(NULL, &h), "torch_new_generator_handle", "'self' is NULL");
    FAILS(torch_delete_generator(g), "torch_delete_generator", "freed");
    FAILS(torch_generator_get_device(g, &a, &b), "torch_generator_get_device", "freed");
    FAILS(shimrt_generator_get_seed(g, &u), "shimrt_generator_get_seed", "freed");
    FAILS(shimrt_generator_set_seed(g, 1), "shimrt_generator_set_seed", "freed");
    FAILS(shimrt_generator_reserve(g, 1, &u), "shimrt_generator_reserve", "freed");
    long long garbage[4] = {0};
    FAILS(torch_delete_generator((AtenGeneratorHandle)garbage), "torch_delete_generator",
          "not a generator handle");
    OK(shimrt_generator_new(0, 0, 1, &g));
    FAILS(torch_new_generator_handle(g, NULL), "torch_new_generator_handle", "NULL");
    FAILS(torch_generator_get_device(g, NULL, &b), "torch_generator_get_device", "NULL");
    FAILS(torch_generator_get_device(g, &a, NULL), "torch_generator_get_device", "NULL");
    FAILS(shimrt_generator_get_seed(g, NULL), "shimrt_generator_get_seed", "NULL");
    FAILS(shimrt_generator_reserve(g, 1, NULL), "shimrt_generator_reserve", "NULL");
    OK(torch_delete_generator(g));
}

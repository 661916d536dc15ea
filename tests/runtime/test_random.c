/* tests/runtime/test_random.c: the CPU random stream and the random ops' error paths
 * (runtime/core/generator.c, runtime/cpu/random.c). Values against PyTorch itself:
 * tests/torch/rng_oracle.sh. */
#include <stdlib.h>

#include "../../runtime/core/rng_internal.h"
#include "c_shim_cpu.h"
#include "shimrt_test.h"

/* The C++ standard ([rand.predef]) requires the 10000th output of a default-constructed
 * std::mt19937 (seed 5489) to be 4123659995; PyTorch's engine is that generator. */
Test(random, mt19937_is_std_mt19937) {
    shimrt_mt19937 mt;
    shimrt_mt19937_seed(&mt, 5489);
    uint32_t v = 0;
    for (int i = 0; i < 10000; i++) v = shimrt_mt19937_u32(&mt);
    cr_assert_eq(v, 4123659995u);
    /* only the low 32 bits of a seed count, as in PyTorch */
    shimrt_mt19937 a, b;
    shimrt_mt19937_seed(&a, 7);
    shimrt_mt19937_seed(&b, (UINT64_C(1) << 32) + 7);
    for (int i = 0; i < 100; i++) cr_assert_eq(shimrt_mt19937_u32(&a), shimrt_mt19937_u32(&b));
}

static AtenTensorHandle randn_f32(int64_t n, AtenGeneratorHandle *g) {
    AtenTensorHandle t;
    int32_t f32 = aoti_torch_dtype_float32();
    OK(aoti_torch_cpu_randn_generator(&n, 1, g, &f32, NULL, NULL, 0, NULL, &t));
    return t;
}

static bool same(AtenTensorHandle a, AtenTensorHandle b, size_t nbytes) {
    void *pa, *pb;
    OK(aoti_torch_get_data_ptr(a, &pa));
    OK(aoti_torch_get_data_ptr(b, &pb));
    return memcmp(pa, pb, nbytes) == 0;
}

Test(random, reseed_and_state_round_trip) {
    AtenGeneratorHandle g;
    OK(shimrt_generator_new(aoti_torch_device_type_cpu(), 0, 42, &g));
    AtenTensorHandle a = randn_f32(5, &g); /* odd count: leaves a cached Box-Muller value */
    size_t len;
    OK(shimrt_generator_get_state(g, NULL, 0, &len));
    void *st = malloc(len);
    cr_assert(st);
    OK(shimrt_generator_get_state(g, st, len, &len));
    AtenTensorHandle b = randn_f32(5, &g);
    OK(shimrt_generator_set_state(g, st, len));
    AtenTensorHandle c = randn_f32(5, &g);
    cr_assert(same(b, c, 5 * sizeof(float)), "restoring the state repeats the values");
    FAILS(shimrt_generator_set_state(g, st, len - 1), "shimrt_generator_set_state", "bytes");
    free(st);
    OK(shimrt_generator_set_seed(g, 42));
    AtenTensorHandle d = randn_f32(5, &g);
    cr_assert(same(a, d, 5 * sizeof(float)), "reseeding repeats the values");
    AtenTensorHandle ts[] = {a, b, c, d};
    for (int i = 0; i < 4; i++) OK(aoti_torch_delete_tensor_object(ts[i]));
    OK(torch_delete_generator(g));
}

Test(random, bad_arguments_fail_with_a_message) {
    AtenTensorHandle t;
    int64_t n = 4, one = 1;
    OK(aoti_torch_empty_strided(1, &n, &one, aoti_torch_dtype_float32(),
                                aoti_torch_device_type_cpu(), 0, &t));
    FAILS(aoti_torch_cpu_uniform_(t, 2.0, 1.0, NULL), "uniform_", "from");
    FAILS(aoti_torch_cpu_normal_(t, 0.0, -1.0, NULL), "normal_", "std");
    FAILS(aoti_torch_cpu_bernoulli__float(t, 1.5, NULL), "bernoulli_", "p");
    FAILS(aoti_torch_cpu_exponential_(t, 0.0, NULL), "exponential_", "lambda");
    int64_t to = 3;
    FAILS(aoti_torch_cpu_random__from(t, 5, &to, NULL), "random_", "from");
    AtenTensorHandle r;
    FAILS(aoti_torch_cpu_randperm(-1, NULL, NULL, NULL, 0, NULL, &r), "randperm", "non-negative");
    /* a meta generator, then a freed one */
    AtenGeneratorHandle g;
    OK(shimrt_generator_new(aoti_torch_device_type_meta(), 0, 1, &g));
    FAILS(aoti_torch_cpu_uniform_(t, 0.0, 1.0, &g), "uniform_", "CPU generator");
    OK(torch_delete_generator(g));
    FAILS(aoti_torch_cpu_normal_(t, 0.0, 1.0, &g), "normal_", "generator");
    /* integer tensors have no uniform_ */
    AtenTensorHandle i;
    OK(aoti_torch_empty_strided(1, &n, &one, aoti_torch_dtype_int64(), aoti_torch_device_type_cpu(),
                                0, &i));
    FAILS(aoti_torch_cpu_uniform_(i, 0.0, 1.0, NULL), "uniform_", "not implemented");
    OK(aoti_torch_delete_tensor_object(i));
    OK(aoti_torch_delete_tensor_object(t));
}

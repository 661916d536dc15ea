/* runtime/core/rng_internal.h: the CPU random stream shared by generator.c and the random
 * kernels (runtime/cpu/random.c). The engine is the 32-bit Mersenne Twister (MT19937), seeded
 * as PyTorch's CPUGeneratorImpl seeds it, so that one seed gives PyTorch's CPU stream. */
#ifndef SHIMRT_RNG_INTERNAL_H
#define SHIMRT_RNG_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "shimrt/device.h"

#define SHIMRT_MT_N 624

typedef struct shimrt_mt19937 {
    uint32_t state[SHIMRT_MT_N];
    int32_t next; /* index of the next word of state to temper; N: regenerate first */
    uint64_t seed;
    /* Box-Muller's cached second value (PyTorch's next_double_normal_sample) */
    bool has_normal_f64;
    double normal_f64;
    bool has_normal_f32;
    float normal_f32;
} shimrt_mt19937;

/* Seeds with the low 32 bits of seed (std::mt19937's initialisation) and drops the caches. */
void shimrt_mt19937_seed(shimrt_mt19937 *mt, uint64_t seed);
/* The next 32-bit word. */
uint32_t shimrt_mt19937_u32(shimrt_mt19937 *mt);
/* Two words, the first one high (PyTorch's random64). */
uint64_t shimrt_mt19937_u64(shimrt_mt19937 *mt);

/* Locks the CPU stream of g (NULL: the default CPU generator) and returns it; release with
 * shimrt_rng_release. NULL (message set) when g is not a live CPU generator handle. */
shimrt_mt19937 *shimrt_rng_acquire(const char *op, AtenGeneratorHandle g);
void shimrt_rng_release(AtenGeneratorHandle g);

#endif

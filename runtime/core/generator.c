/* runtime/core/generator.c: generator handles sharing a reference-counted RNG state. */
#include <stdlib.h>

#include "internal.h"

#define GEN_MAGIC UINT64_C(0x53484D5247454E45) /* "SHMRGENE" */

typedef struct gen_state {
    _Atomic int64_t refcount;
    int32_t device_type, device_index;
    _Atomic uint64_t seed;
    _Atomic uint64_t offset;
} gen_state;

struct AtenGeneratorOpaque {
    uint64_t magic;
    gen_state *state;
};
static shimrt_pool gen_pool = SHIMRT_POOL_INIT(struct AtenGeneratorOpaque);

static AOTITorchError check_gen(const char *func, AtenGeneratorHandle g, const char *arg) {
    if (!g) return shimrt_fail(func, "argument '%s' is NULL", arg);
    if (!shimrt_pool_contains(&gen_pool, g))
        return shimrt_fail(func, "argument '%s' is not a generator handle", arg);
    if (g->magic != GEN_MAGIC)
        return shimrt_fail(func, "argument '%s' is a freed generator handle", arg);
    return AOTI_TORCH_SUCCESS;
}

static AtenGeneratorHandle wrap_state(gen_state *st) {
    AtenGeneratorHandle g = shimrt_pool_alloc(&gen_pool);
    if (!g) return NULL;
    atomic_fetch_add(&st->refcount, 1);
    g->state = st;
    g->magic = GEN_MAGIC;
    return g;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_generator_new(int32_t device_type, int32_t device_index,
                                                      uint64_t seed, AtenGeneratorHandle *ret) {
    SHIMRT_CHECK_ARG(ret);
    if (shimrt_check_device(__func__, device_type, device_index)) return AOTI_TORCH_FAILURE;
    gen_state *st = calloc(1, sizeof *st);
    if (!st) return shimrt_fail(__func__, "out of memory");
    atomic_init(&st->refcount, 0);
    st->device_type = device_type;
    /* PyTorch's: a CPU generator's device is plain `cpu` (index -1, whatever was asked);
     * others take the current device (0 here) for -1 */
    st->device_index = device_type == SHIMRT_DEV_CPU ? -1 : device_index < 0 ? 0 : device_index;
    atomic_init(&st->seed, seed);
    atomic_init(&st->offset, 0);
    AtenGeneratorHandle g = wrap_state(st);
    if (!g) {
        free(st);
        return shimrt_fail(__func__, "out of memory");
    }
    *ret = g;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError
torch_new_generator_handle(AtenGeneratorHandle self, AtenGeneratorHandle *ret_new_generator) {
    if (check_gen(__func__, self, "self")) return AOTI_TORCH_FAILURE;
    SHIMRT_CHECK_ARG(ret_new_generator);
    AtenGeneratorHandle g = wrap_state(self->state);
    if (!g) return shimrt_fail(__func__, "out of memory");
    *ret_new_generator = g;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_delete_generator(AtenGeneratorHandle generator) {
    if (!generator) return AOTI_TORCH_SUCCESS;
    if (check_gen(__func__, generator, "generator")) return AOTI_TORCH_FAILURE;
    gen_state *st = generator->state;
    shimrt_pool_free(&gen_pool, generator);
    if (atomic_fetch_sub(&st->refcount, 1) == 1) free(st);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_generator_get_device(AtenGeneratorHandle generator,
                                                            int32_t *ret_device_type,
                                                            int32_t *ret_device_index) {
    if (check_gen(__func__, generator, "generator")) return AOTI_TORCH_FAILURE;
    SHIMRT_CHECK_ARG(ret_device_type);
    SHIMRT_CHECK_ARG(ret_device_index);
    *ret_device_type = generator->state->device_type;
    *ret_device_index = generator->state->device_index;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_generator_get_seed(AtenGeneratorHandle generator,
                                                           uint64_t *ret_seed) {
    if (check_gen(__func__, generator, "generator")) return AOTI_TORCH_FAILURE;
    SHIMRT_CHECK_ARG(ret_seed);
    *ret_seed = atomic_load(&generator->state->seed);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_generator_set_seed(AtenGeneratorHandle generator,
                                                           uint64_t seed) {
    if (check_gen(__func__, generator, "generator")) return AOTI_TORCH_FAILURE;
    atomic_store(&generator->state->seed, seed);
    atomic_store(&generator->state->offset, 0);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_generator_reserve(AtenGeneratorHandle generator,
                                                          uint64_t increment,
                                                          uint64_t *ret_offset) {
    if (check_gen(__func__, generator, "generator")) return AOTI_TORCH_FAILURE;
    SHIMRT_CHECK_ARG(ret_offset);
    *ret_offset = atomic_fetch_add(&generator->state->offset, increment);
    return AOTI_TORCH_SUCCESS;
}

/* runtime/core/generator.c: generator handles sharing a reference-counted RNG state. */
#include <stdlib.h>
#include <threads.h>

#include "internal.h"
#include "rng_internal.h"

#define GEN_MAGIC UINT64_C(0x53484D5247454E45) /* "SHMRGENE" */

typedef struct gen_state {
    _Atomic int64_t refcount;
    int32_t device_type, device_index;
    _Atomic uint64_t seed;
    _Atomic uint64_t offset;
    shimrt_mt19937 mt; /* the CPU stream (PyTorch's CPUGeneratorImpl), guarded by lock */
    mtx_t lock;
} gen_state;

struct AtenGeneratorOpaque {
    uint64_t magic;
    gen_state *state;
};
static shimrt_pool gen_pool = SHIMRT_POOL_INIT(struct AtenGeneratorOpaque);

static AOTITorchError check_gen(const char *func, AtenGeneratorHandle g, const char *arg) {
    return shimrt_pool_check(func, &gen_pool, g, GEN_MAGIC, arg, "generator");
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
    shimrt_mt19937_seed(&st->mt, seed);
    if (mtx_init(&st->lock, mtx_plain) != thrd_success) {
        free(st);
        return shimrt_fail(__func__, "cannot create the generator's lock");
    }
    AtenGeneratorHandle g = wrap_state(st);
    if (!g) {
        mtx_destroy(&st->lock);
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
    if (atomic_fetch_sub(&st->refcount, 1) == 1) {
        mtx_destroy(&st->lock);
        free(st);
    }
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
    gen_state *st = generator->state;
    mtx_lock(&st->lock);
    atomic_store(&st->seed, seed);
    atomic_store(&st->offset, 0);
    shimrt_mt19937_seed(&st->mt, seed);
    mtx_unlock(&st->lock);
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

/* ---- the CPU stream: MT19937 (std::mt19937's recurrence and tempering) ---- */

void shimrt_mt19937_seed(shimrt_mt19937 *mt, uint64_t seed) {
    mt->seed = seed;
    mt->state[0] = (uint32_t)seed;
    for (uint32_t i = 1; i < SHIMRT_MT_N; i++) {
        uint32_t prev = mt->state[i - 1];
        mt->state[i] = 1812433253u * (prev ^ (prev >> 30)) + i;
    }
    mt->next = SHIMRT_MT_N;
    mt->has_normal_f64 = mt->has_normal_f32 = false;
}

static void mt_regenerate(shimrt_mt19937 *mt) {
    enum { M = 397 };
    for (int i = 0; i < SHIMRT_MT_N; i++) {
        uint32_t y =
            (mt->state[i] & 0x80000000u) | (mt->state[(i + 1) % SHIMRT_MT_N] & 0x7fffffffu);
        uint32_t v = mt->state[(i + M) % SHIMRT_MT_N] ^ (y >> 1);
        mt->state[i] = (y & 1u) ? v ^ 0x9908b0dfu : v;
    }
    mt->next = 0;
}

uint32_t shimrt_mt19937_u32(shimrt_mt19937 *mt) {
    if (mt->next >= SHIMRT_MT_N) mt_regenerate(mt);
    uint32_t y = mt->state[mt->next++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

uint64_t shimrt_mt19937_u64(shimrt_mt19937 *mt) {
    uint64_t hi = shimrt_mt19937_u32(mt);
    uint64_t lo = shimrt_mt19937_u32(mt);
    return (hi << 32) | lo;
}

/* PyTorch's default CPU generator: seed 67280421310721 until reseeded. */
#define DEFAULT_CPU_SEED UINT64_C(67280421310721)
static AtenGeneratorHandle default_cpu;
static once_flag default_once = ONCE_FLAG_INIT;
static void make_default_cpu(void) {
    if (shimrt_generator_new(SHIMRT_DEV_CPU, 0, DEFAULT_CPU_SEED, &default_cpu)) default_cpu = NULL;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_generator_default_cpu(AtenGeneratorHandle *ret) {
    SHIMRT_CHECK_ARG(ret);
    call_once(&default_once, make_default_cpu);
    if (!default_cpu) return shimrt_fail(__func__, "cannot create the default CPU generator");
    *ret = default_cpu;
    return AOTI_TORCH_SUCCESS;
}

shimrt_mt19937 *shimrt_rng_acquire(const char *op, AtenGeneratorHandle g) {
    if (!g && shimrt_generator_default_cpu(&g)) return NULL;
    if (check_gen(op, g, "generator")) return NULL;
    if (g->state->device_type != SHIMRT_DEV_CPU) {
        shimrt_fail(op, "expected a CPU generator, got one on %s",
                    shimrt_device_type_name(g->state->device_type));
        return NULL;
    }
    mtx_lock(&g->state->lock);
    return &g->state->mt;
}

void shimrt_rng_release(AtenGeneratorHandle g) {
    if (!g) g = default_cpu;
    mtx_unlock(&g->state->lock);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_generator_get_state(AtenGeneratorHandle generator,
                                                            void *buf, size_t len,
                                                            size_t *ret_len) {
    if (check_gen(__func__, generator, "generator")) return AOTI_TORCH_FAILURE;
    SHIMRT_CHECK_ARG(ret_len);
    *ret_len = sizeof(shimrt_mt19937);
    if (!buf) return AOTI_TORCH_SUCCESS;
    if (len < sizeof(shimrt_mt19937))
        return shimrt_fail(__func__, "the buffer holds %zu bytes; the state needs %zu", len,
                           sizeof(shimrt_mt19937));
    mtx_lock(&generator->state->lock);
    memcpy(buf, &generator->state->mt, sizeof(shimrt_mt19937));
    mtx_unlock(&generator->state->lock);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_generator_set_state(AtenGeneratorHandle generator,
                                                            const void *buf, size_t len) {
    if (check_gen(__func__, generator, "generator")) return AOTI_TORCH_FAILURE;
    SHIMRT_CHECK_ARG(buf);
    shimrt_mt19937 mt;
    if (len != sizeof mt)
        return shimrt_fail(__func__, "a state has %zu bytes, got %zu", sizeof mt, len);
    memcpy(&mt, buf, sizeof mt);
    if (mt.next < 0 || mt.next > SHIMRT_MT_N)
        return shimrt_fail(__func__, "not a generator state (position %d)", (int)mt.next);
    mtx_lock(&generator->state->lock);
    generator->state->mt = mt;
    atomic_store(&generator->state->seed, mt.seed);
    mtx_unlock(&generator->state->lock);
    return AOTI_TORCH_SUCCESS;
}

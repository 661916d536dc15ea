/* runtime/core/internal.h: the runtime's private header (never installed).
 *
 * Error reporting, the handle pools that let every entry point reject a NULL, freed or
 * foreign handle without dereferencing wild memory, and the tensor/storage structs with
 * the helpers that CPU kernels use (element sizes, numel, contiguity, dtype names). */
#ifndef SHIMRT_INTERNAL_H
#define SHIMRT_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "shimrt/shimrt.h"

/* ---- errors (error.c) ------------------------------------------------------------- */

/* Sets the calling thread's message to "func: <formatted message>" and returns
 * AOTI_TORCH_FAILURE, so an entry point can `return shimrt_fail(__func__, ...)`. */
AOTITorchError shimrt_fail(const char *func, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Sets the calling thread's message to exactly text (no prefix). */
void shimrt_set_error_text(const char *text);

/* Fails from the enclosing function when a required out-pointer or argument is NULL. */
#define SHIMRT_CHECK_ARG(p)                                                                        \
    do {                                                                                           \
        if ((p) == NULL) return shimrt_fail(__func__, "argument '%s' is NULL", #p);                \
    } while (0)

/* ---- handle pools (pool.c) --------------------------------------------------------- *
 * Every handle type lives in a pool of fixed-size slots carved from slabs that are never
 * returned to the system. A freed slot keeps its memory, so a stale handle can still be
 * read safely: its magic has been poisoned and the check fails with a message. A pointer
 * that lies in no slab (garbage, a stack address) is rejected without being read.
 * Slabs grow geometrically, so membership is a scan of at most SHIMRT_POOL_MAX_SLABS
 * ranges, lock-free for readers. Freed slots are reused oldest first. */
#define SHIMRT_POOL_MAX_SLABS 40
#define SHIMRT_MAGIC_FREED UINT64_C(0xDEADF4EEDEADF4EE)

typedef struct shimrt_pool {
    size_t slot_size; /* bytes per slot, multiple of 16 */
    _Atomic(char *) slab_base[SHIMRT_POOL_MAX_SLABS];
    size_t slab_bytes[SHIMRT_POOL_MAX_SLABS];
    _Atomic int nslabs;
    /* guarded by the pool's mutex (pool.c): */
    void *free_head, *free_tail; /* FIFO of freed slots */
    size_t free_count;
    char *bump, *bump_end; /* unused tail of the newest slab */
} shimrt_pool;

#define SHIMRT_POOL_INIT(type)                                                                     \
    { .slot_size = (sizeof(type) + 15u) & ~(size_t)15u }

/* Returns a zeroed slot, or NULL when out of memory. */
void *shimrt_pool_alloc(shimrt_pool *pool);
/* Poisons the slot's first 8 bytes with SHIMRT_MAGIC_FREED and queues it for reuse. */
void shimrt_pool_free(shimrt_pool *pool, void *slot);
/* A new slot of pool for an object whose first field is its uint64_t magic, set to magic;
 * NULL with func's "out of memory" message set when memory runs out. */
void *shimrt_pool_new(const char *func, shimrt_pool *pool, uint64_t magic);
/* Checks h, argument `arg` of func, is a live object of pool (first field its uint64_t
 * magic): else fails with "argument '<arg>' is NULL", "... is not a <what> handle" or
 * "... is a freed <what> handle". */
AOTITorchError shimrt_pool_check(const char *func, const shimrt_pool *pool, const void *h,
                                 uint64_t magic, const char *arg, const char *what);
/* True when p is the start of a slot of this pool (live or freed). Never reads *p. */
bool shimrt_pool_contains(const shimrt_pool *pool, const void *p);
/* True when p lies anywhere inside a slab of any pool (a handle or inside one). */
bool shimrt_in_any_pool(const void *p);

/* ---- dtypes (dtype.c) ------------------------------------------------------------- */
/* The dtype, device type, layout and memory-format codes: shimrt/codes.h (shared with gen/). */
#include "shimrt/codes.h"
#include "dtype.h" /* the dtype traits table */

/* Bytes per element of a dtype code; 0 for an unknown code. */
size_t shimrt_dtype_size(int32_t dtype);
/* The dtype's name ("float32"), or NULL for an unknown code. */
const char *shimrt_dtype_name(int32_t dtype);
/* Writes x converted to T at p (p need not be aligned for T). */
#define SHIMRT_STORE(p, T, x)                                                                      \
    do {                                                                                           \
        T shimrt_store_ = (T)(x);                                                                  \
        memcpy((p), &shimrt_store_, sizeof shimrt_store_);                                         \
    } while (0)
/* PyTorch's ScalarType name ("Float", "Long", ...; "?" for an unknown code). */
const char *shimrt_dtype_torch_name(int32_t dtype);
const char *shimrt_dtype_meta_name(int32_t dtype); /* "long int": caffe2::TypeMeta's */
/* True for the dtypes the CPU conversion kernels read and write (ints, uints, float16,
 * bfloat16, float32, float64, bool, complex64, complex128). */
bool shimrt_dtype_is_computable(int32_t dtype);
const char *shimrt_device_type_name(int32_t device_type);

/* Half-precision conversions (round to nearest even). */
float shimrt_half_to_float(uint16_t h);
uint16_t shimrt_float_to_half(float f);
float shimrt_bf16_to_float(uint16_t b);
uint16_t shimrt_float_to_bf16(float f);
/* A float's bits and the float of bits (memcpy: no aliasing question). */
static inline uint32_t shimrt_f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static inline float shimrt_f32_of_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* An element of dtype at p (host memory) read through a wide type (dtype.c): float to
 * integer saturates to int64's range (NaN gives 0); a dtype that is neither integral, bool
 * nor floating reads as 0. */
double shimrt_k_load_f64(const char *p, int32_t dtype);
int64_t shimrt_k_load_i64(const char *p, int32_t dtype);
/* Saturating double -> int64 (NaN gives 0). */
int64_t shimrt_k_f2i(double v);

/* ---- storage (storage.c) ----------------------------------------------------------- */
typedef struct shimrt_storage {
    _Atomic int64_t refcount;
    void *data; /* device memory (CPU: 64-byte aligned when we allocated it) */
    size_t nbytes;
    int32_t device_type, device_index;
    /* Called once with (data, ctx) when the last reference goes; NULL: nothing to free
     * (the runtime's own allocations use shimrt_free_aligned via this hook too). */
    void (*deleter)(void *data, void *ctx);
    void *deleter_ctx;
} shimrt_storage;

#define SHIMRT_CPU_ALIGNMENT 64
/* Larger requests fail with a message instead of reaching the allocator (1 TiB). */
#define SHIMRT_MAX_ALLOC_BYTES (UINT64_C(1) << 40)
/* Allocates nbytes of device memory on (device_type, device_index) and returns a storage
 * with one reference, or NULL with the thread's message set (func names the caller). */
shimrt_storage *shimrt_storage_new(const char *func, size_t nbytes, int32_t device_type,
                                   int32_t device_index);
/* Wraps foreign memory: one reference; deleter(data, ctx) runs at the last release. */
shimrt_storage *shimrt_storage_wrap(const char *func, void *data, size_t nbytes,
                                    int32_t device_type, int32_t device_index,
                                    void (*deleter)(void *, void *), void *ctx);
void shimrt_storage_retain(shimrt_storage *s);
void shimrt_storage_release(shimrt_storage *s); /* NULL: no-op */

/* ---- tensors (tensor.c) ------------------------------------------------------------ */
#define SHIMRT_TENSOR_MAGIC UINT64_C(0x53484D5254454E53) /* "SHMRTENS" */
#define SHIMRT_INLINE_DIMS 6
#define SHIMRT_MAX_DIMS 64

/* A tensor and its handles, as PyTorch's TensorImpl and at::Tensor: every handle of a
 * tensor (aoti_torch_new_tensor_handle, a StableIValue, a kernel's return of self) names
 * the one shimrt_tensor_impl, so a resize through any handle is seen through all; the
 * tensor lives while any handle does. Views are new tensors over the same storage.
 *
 * Each handle carries a mirror of the tensor's metadata (storage, ndim, sizes, strides,
 * offset, dtype, device, layout, requires_grad) so that kernels read t->ndim directly;
 * sizes and strides point to the tensor's own arrays. Only tensor.c changes metadata, and
 * it writes every handle of the tensor at once (shimrt_resize_output,
 * shimrt_tensor_set_requires_grad), under the tensor's lock. As in PyTorch, changing a
 * tensor's metadata while another thread reads it is a race; making and freeing handles
 * of one tensor from many threads is safe. */
typedef struct shimrt_tensor_impl {
    _Atomic int64_t nhandles;      /* its handles; the last one's free frees the tensor */
    atomic_flag lock;              /* guards the ring of handles and metadata changes */
    struct AtenTensorOpaque *ring; /* one of its handles; the others via next/prev */
    int64_t cap;                   /* room for dims in sizes/strides */
    int64_t *sizes, *strides;      /* inline_* or one heap block of 2*cap */
    int64_t inline_sizes[SHIMRT_INLINE_DIMS], inline_strides[SHIMRT_INLINE_DIMS];
} shimrt_tensor_impl;

struct AtenTensorOpaque {
    uint64_t magic;           /* SHIMRT_TENSOR_MAGIC while live, SHIMRT_MAGIC_FREED after */
    shimrt_tensor_impl *impl; /* the tensor; NULL for an undefined one */
    struct AtenTensorOpaque *next, *prev; /* the tensor's other handles (a ring) */
    /* the tensor's metadata, the same in each of its handles: */
    shimrt_storage *storage; /* the tensor's one reference (NULL when undefined) */
    int64_t ndim;
    int64_t *sizes, *strides; /* the tensor's arrays */
    int64_t storage_offset;   /* in elements */
    int32_t dtype, device_type, device_index, layout;
    bool defined;       /* false: from aoti_torch_new_uninitialized_tensor */
    bool requires_grad; /* torch_set_requires_grad; no autograd runs on it */
};

extern shimrt_pool shimrt_tensor_pool;

/* Registers the runtime's own ops (generated/) once per process; see builtin_ops.c.
 * Called before every library creation and after every failed op lookup. */
AOTITorchError shimrt_builtin_ops_ensure(void);

/* True when t is a live tensor handle (checks pool membership, then the magic). */
bool shimrt_tensor_valid(AtenTensorHandle t);
/* Fails from the enclosing function when t is not a live tensor handle. */
#define SHIMRT_CHECK_TENSOR(t)                                                                     \
    do {                                                                                           \
        if (!shimrt_tensor_valid(t))                                                               \
            return shimrt_fail(__func__, "%s", shimrt_tensor_invalid_reason(t, #t));               \
    } while (0)
/* As SHIMRT_CHECK_TENSOR, and the tensor must be defined (not uninitialized). */
#define SHIMRT_CHECK_DEFINED(t)                                                                    \
    do {                                                                                           \
        SHIMRT_CHECK_TENSOR(t);                                                                    \
        if (!(t)->defined)                                                                         \
            return shimrt_fail(__func__, "argument '%s' is an undefined tensor", #t);              \
    } while (0)
/* A message for an invalid handle: "argument 'self' is NULL", "... was freed", ... */
const char *shimrt_tensor_invalid_reason(AtenTensorHandle t, const char *argname);

/* Grows s to at least nbytes (never shrinks), keeping its bytes: the data moves to a new
 * block, which every tensor on s then sees (as PyTorch's storage resize). Fails for storage
 * the runtime did not allocate (from_blob) with "Trying to resize storage that is not
 * resizable". */
AOTITorchError shimrt_storage_grow(const char *func, shimrt_storage *s, size_t nbytes);
/* PyTorch's at::native::resize_output for an out argument: nothing when out already has
 * sizes[0 .. ndim); else (with a warning, once per process, when out had elements) out
 * takes those sizes with contiguous strides, its storage grown as needed; every handle
 * of out's tensor sees the change. Fails (out unchanged) when out is undefined, its
 * storage cannot grow, or out of memory. */
AOTITorchError shimrt_resize_output(const char *func, AtenTensorHandle out, int64_t ndim,
                                    const int64_t *sizes);
/* PyTorch's resize_ / empty_tensor_restride: t (every handle of its tensor) takes sizes
 * and strides (NULL: contiguous), its storage grown to hold them. Fails (t unchanged) when
 * t is undefined, the geometry is bad, its storage cannot grow, or out of memory. */
AOTITorchError shimrt_tensor_set_geometry(const char *func, AtenTensorHandle t, int64_t ndim,
                                          const int64_t *sizes, const int64_t *strides);
/* PyTorch's set_(storage, offset, sizes, strides): t (every handle of its tensor) views s
 * (t's dtype kept; s grown when the geometry needs more bytes), taking a reference on s and
 * dropping its old storage's. Fails (t unchanged) on a bad geometry, another device, or out
 * of memory. */
AOTITorchError shimrt_tensor_set_storage(const char *func, AtenTensorHandle t, shimrt_storage *s,
                                         int64_t storage_offset, int64_t ndim, const int64_t *sizes,
                                         const int64_t *strides);
/* A new tensor (with its first handle) over s, which it takes one new reference on.
 * Validates ndim, sizes, strides (NULL strides: contiguous), dtype, device and layout, and
 * that the viewed range fits the storage. Returns NULL with the thread's message set. */
AtenTensorHandle shimrt_tensor_new(const char *func, shimrt_storage *s, int64_t ndim,
                                   const int64_t *sizes, const int64_t *strides,
                                   int64_t storage_offset, int32_t dtype, int32_t device_type,
                                   int32_t device_index, int32_t layout);
/* Allocates a fresh tensor with its own storage (contiguous when strides is NULL). */
AtenTensorHandle shimrt_tensor_empty(const char *func, int64_t ndim, const int64_t *sizes,
                                     const int64_t *strides, int32_t dtype, int32_t device_type,
                                     int32_t device_index);
/* Frees the handle t; the tensor goes with its last handle. NULL or invalid: no-op. */
void shimrt_tensor_free(AtenTensorHandle t);
/* A new handle of t's tensor (PyTorch: a second at::Tensor of the same TensorImpl; what
 * a kernel returns when PyTorch returns self). NULL with the message set. */
AtenTensorHandle shimrt_tensor_share(const char *func, AtenTensorHandle t);
/* Sets requires_grad of t's tensor (seen through every handle). */
void shimrt_tensor_set_requires_grad(AtenTensorHandle t, bool requires_grad);
/* A kernel's last step: on success (rc 0) out goes to *ret0 (the caller's new reference);
 * on failure out is freed (NULL is fine). Returns rc as AOTI_TORCH_SUCCESS or _FAILURE. */
AOTITorchError shimrt_k_hand_out(AOTITorchError rc, AtenTensorHandle out, AtenTensorHandle *ret0);
/* t (a new tensor, or NULL after a failure that set the message) to *ret0. */
AOTITorchError shimrt_k_give(AtenTensorHandle t, AtenTensorHandle *ret0);

/* Product of sizes (1 for a 0-dim tensor). */
int64_t shimrt_numel(const struct AtenTensorOpaque *t);
/* True when strides are the row-major contiguous strides (size-1 dims ignored), or when t has
 * no elements (as PyTorch's is_contiguous). */
bool shimrt_is_contiguous(const struct AtenTensorOpaque *t);
/* PyTorch's is_non_overlapping_and_dense: the dims of size >= 2, sorted by stride, step
 * densely (any order); dims of size 1 never count; a tensor without elements is dense. */
bool shimrt_k_dense(const struct AtenTensorOpaque *t);
/* Address of element 0 (storage data + storage_offset * element size); NULL if none. */
void *shimrt_data(const struct AtenTensorOpaque *t);
/* True when two elements of t may share memory (a stride 0 over a dim of size > 1). */
bool shimrt_k_internal_overlap(const struct AtenTensorOpaque *t);
/* Fills strides with the contiguous strides of sizes. */
void shimrt_contiguous_strides(int64_t ndim, const int64_t *sizes, int64_t *strides);
/* Checks a dtype code / device pair and sets the message on failure. */
AOTITorchError shimrt_check_dtype(const char *func, int32_t dtype);
AOTITorchError shimrt_check_device(const char *func, int32_t device_type, int32_t device_index);

/* ---- copies (data.c, backend.c) ---------------------------------------------------
 * dst <- src, src broadcast to dst's shape, dtypes converted; each returns a code with the
 * message set. shimrt_copy: host tensors (CPU or meta) through the CPU row's copy (the
 * engine's where it applies). shimrt_host_copy: the element-by-element host copy every
 * dtype has (the CPU row's copy for what the engine does not take); a meta dst is only
 * checked. shimrt_copy_broadcast_check: src's shape broadcasts to dst's (message set). */
AOTITorchError shimrt_copy(const char *func, AtenTensorHandle dst, AtenTensorHandle src);
AOTITorchError shimrt_host_copy(const char *func, AtenTensorHandle dst, AtenTensorHandle src);
AOTITorchError shimrt_copy_broadcast_check(const char *func, AtenTensorHandle dst,
                                           AtenTensorHandle src);

/* ---- the devices' routers (backend.c; the rows: backend.h) ------------------------- */
/* dst <- src on any devices (the cross-device copy): the row of the device that is neither
 * CPU nor meta (dst's first) copies, else the CPU row. The dispatcher's backend fallback
 * copies through it. Returns a code with the message set. */
AOTITorchError shimrt_backend_copy(const char *func, AtenTensorHandle dst, AtenTensorHandle src);
/* Every element of t (any device, any strides) set to value through t's device row; a meta
 * tensor has nothing to fill. Returns a code with the message set. */
AOTITorchError shimrt_backend_fill(const char *func, AtenTensorHandle t, double value);

/* ---- the dispatcher's backend fallback (dispatcher.c) -------------------------------- */
/* Turns the CPU fallback on or off for a backend key (SHIMRT_KEY_*, not CPU): an op with
 * no kernel for that key and no composite kernel runs its CPU kernel, tensors copied to
 * the host and back (docs/cuda.md). */
void shimrt_dispatch_set_cpu_fallback(int key, bool on);

/* ---- thread pool (threads.c) ------------------------------------------------------- */
/* Number of threads of the pool (SHIMRT_NUM_THREADS, else the core count; at least 1). */
uint32_t shimrt_num_threads(void);

#endif

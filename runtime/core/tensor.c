/* runtime/core/tensor.c: tensor handles, views and the metadata getters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

shimrt_pool shimrt_tensor_pool = SHIMRT_POOL_INIT(struct AtenTensorOpaque);

/* Live tensor handles (shimrt_live_objects("tensor")): every slot of the pool is taken
 * and given back through these two. */
extern _Atomic int64_t shimrt_live_tensors;
static AtenTensorHandle tensor_slot_alloc(void) {
    AtenTensorHandle t = shimrt_pool_alloc(&shimrt_tensor_pool);
    if (t) atomic_fetch_add_explicit(&shimrt_live_tensors, 1, memory_order_relaxed);
    return t;
}
static void tensor_slot_free(AtenTensorHandle t) {
    atomic_fetch_sub_explicit(&shimrt_live_tensors, 1, memory_order_relaxed);
    shimrt_pool_free(&shimrt_tensor_pool, t);
}

bool shimrt_tensor_valid(AtenTensorHandle t) {
    return t && shimrt_pool_contains(&shimrt_tensor_pool, t) && t->magic == SHIMRT_TENSOR_MAGIC;
}

const char *shimrt_tensor_invalid_reason(AtenTensorHandle t, const char *argname) {
    static _Thread_local char buf[160];
    if (!t)
        snprintf(buf, sizeof buf, "argument '%s' is NULL", argname);
    else if (!shimrt_pool_contains(&shimrt_tensor_pool, t))
        snprintf(buf, sizeof buf, "argument '%s' (%p) is not a tensor handle", argname, (void *)t);
    else if (t->magic == SHIMRT_MAGIC_FREED)
        snprintf(buf, sizeof buf, "argument '%s' is a freed tensor handle (use after delete)",
                 argname);
    else
        snprintf(buf, sizeof buf, "argument '%s' is not a live tensor handle", argname);
    return buf;
}

int64_t shimrt_numel(const struct AtenTensorOpaque *t) {
    int64_t n = 1;
    for (int64_t i = 0; i < t->ndim; i++) n *= t->sizes[i];
    return n;
}

bool shimrt_is_contiguous(const struct AtenTensorOpaque *t) {
    int64_t expected = 1;
    for (int64_t i = 0; i < t->ndim; i++) /* (no elements: contiguous, as PyTorch) */
        if (t->sizes[i] == 0) return true;
    for (int64_t i = t->ndim - 1; i >= 0; i--) {
        if (t->sizes[i] == 1) continue;
        if (t->strides[i] != expected) return false;
        expected *= t->sizes[i];
    }
    return true;
}

bool shimrt_k_dense(const struct AtenTensorOpaque *t) {
    int64_t n = t->ndim, perm[SHIMRT_MAX_DIMS], m = 0;
    /* PyTorch's: is_contiguous, as every tensor without elements */
    if (shimrt_numel(t) == 0) return true;
    for (int64_t d = 0; d < n; d++) /* dims of size < 2 do not count */
        if (t->sizes[d] >= 2) perm[m++] = d;
    for (int64_t i = 1; i < m; i++) { /* by stride */
        int64_t p = perm[i], j = i;
        while (j > 0 && t->strides[perm[j - 1]] > t->strides[p]) {
            perm[j] = perm[j - 1];
            j--;
        }
        perm[j] = p;
    }
    int64_t expect = 1;
    for (int64_t i = 0; i < m; i++) {
        if (t->strides[perm[i]] != expect) return false;
        expect *= t->sizes[perm[i]];
    }
    return true;
}

void *shimrt_data(const struct AtenTensorOpaque *t) {
    if (!t->storage || !t->storage->data) return NULL;
    return (char *)t->storage->data + t->storage_offset * (int64_t)shimrt_dtype_size(t->dtype);
}

void shimrt_contiguous_strides(int64_t ndim, const int64_t *sizes, int64_t *strides) {
    int64_t s = 1;
    for (int64_t i = ndim - 1; i >= 0; i--) {
        strides[i] = s;
        /* sizes whose product overflows saturate (the geometry check that follows every
         * use refuses them); never signed overflow */
        if (__builtin_mul_overflow(s, sizes[i] > 1 ? sizes[i] : 1, &s)) s = INT64_MAX;
    }
}

/* Checks the geometry and computes the number of elements the view spans from storage
 * element 0 (offset + the largest reachable index + 1; 0 when numel is 0). */
static AOTITorchError check_geometry(const char *func, int64_t ndim, const int64_t *sizes,
                                     const int64_t *strides, int64_t storage_offset,
                                     int64_t *ret_extent) {
    if (ndim < 0 || ndim > SHIMRT_MAX_DIMS)
        return shimrt_fail(func, "ndim %lld is out of range [0, %d]", (long long)ndim,
                           SHIMRT_MAX_DIMS);
    if (ndim > 0 && !sizes) return shimrt_fail(func, "argument 'sizes_ptr' is NULL");
    if (storage_offset < 0)
        return shimrt_fail(func, "storage offset %lld is negative", (long long)storage_offset);
    int64_t numel = 1, last = storage_offset;
    bool empty = false;
    for (int64_t i = 0; i < ndim; i++) {
        if (sizes[i] < 0)
            return shimrt_fail(func, "size %lld of dimension %lld is negative", (long long)sizes[i],
                               (long long)i);
        if (strides && strides[i] < 0)
            return shimrt_fail(func, "stride %lld of dimension %lld is negative",
                               (long long)strides[i], (long long)i);
        if (sizes[i] == 0) empty = true;
        if (__builtin_mul_overflow(numel, sizes[i], &numel))
            return shimrt_fail(func, "the number of elements overflows int64");
    }
    if (empty) {
        *ret_extent = 0;
        return AOTI_TORCH_SUCCESS;
    }
    if (strides) {
        for (int64_t i = 0; i < ndim; i++) {
            int64_t step;
            if (__builtin_mul_overflow(sizes[i] - 1, strides[i], &step) ||
                __builtin_add_overflow(last, step, &last))
                return shimrt_fail(func, "the strided extent overflows int64");
        }
    } else if (__builtin_add_overflow(last, numel - 1, &last)) {
        return shimrt_fail(func, "the extent overflows int64");
    }
    *ret_extent = last + 1;
    return AOTI_TORCH_SUCCESS;
}

/* ---- tensors and their handles ---------------------------------------------------- */

static void impl_lock(shimrt_tensor_impl *m) {
    while (atomic_flag_test_and_set_explicit(&m->lock, memory_order_acquire)) {
    }
}
static void impl_unlock(shimrt_tensor_impl *m) {
    atomic_flag_clear_explicit(&m->lock, memory_order_release);
}

/* The sizes/strides of an undefined tensor's handles (ndim 0: never read). */
static int64_t no_dims[2];

/* Room for ndim dims in m's arrays: the inline ones, or one heap block (*block, which the
 * caller installs with install_dims, or frees). Never changes m. False: out of memory. */
static bool dims_block(const shimrt_tensor_impl *m, int64_t ndim, int64_t **block) {
    *block = NULL;
    if (ndim <= m->cap) return true;
    *block = malloc(2 * (size_t)ndim * sizeof **block);
    return *block != NULL;
}
/* Makes block (from dims_block; NULL: keep the current arrays) m's arrays of capacity ndim. */
static void install_dims(shimrt_tensor_impl *m, int64_t *block, int64_t ndim) {
    if (!block) return;
    if (m->sizes != m->inline_sizes) free(m->sizes);
    m->sizes = block;
    m->strides = block + ndim;
    m->cap = ndim;
}

/* Copies the metadata of handle from into handle to: every field but to's own (its magic and
 * its place in the ring). */
static void mirror(AtenTensorHandle to, const struct AtenTensorOpaque *from) {
    uint64_t magic = to->magic;
    struct AtenTensorOpaque *next = to->next, *prev = to->prev;
    *to = *from;
    to->magic = magic;
    to->next = next;
    to->prev = prev;
}

/* Makes the fresh slot h (magic not yet set) a handle of src's tensor. */
static void handle_join(AtenTensorHandle h, AtenTensorHandle src) {
    shimrt_tensor_impl *m = src->impl;
    if (!m) { /* an undefined tensor: every handle of it stands alone */
        h->impl = NULL;
        h->storage = NULL;
        h->ndim = 0;
        h->sizes = h->strides = no_dims;
        h->storage_offset = 0;
        h->dtype = h->device_type = h->device_index = h->layout = 0;
        h->defined = h->requires_grad = false;
        h->next = h->prev = h;
        return;
    }
    impl_lock(m);
    mirror(h, src);
    h->next = src->next;
    h->prev = src;
    src->next->prev = h;
    src->next = h;
    atomic_fetch_add_explicit(&m->nhandles, 1, memory_order_relaxed);
    impl_unlock(m);
}

/* Takes the handle h off its tensor (h's fields are left as they were); when h was the
 * last handle, the tensor goes: its storage reference, its dims, the impl. */
static void handle_leave(AtenTensorHandle h) {
    shimrt_tensor_impl *m = h->impl;
    if (!m) return;
    bool last;
    /* one handle: nobody else can reach the tensor, no lock needed */
    if (atomic_load_explicit(&m->nhandles, memory_order_acquire) == 1) {
        last = true;
    } else {
        impl_lock(m);
        h->prev->next = h->next;
        h->next->prev = h->prev;
        impl_unlock(m);
        /* after the unlock: a handle that sees the count at 1 (and frees the tensor without
         * the lock) must find this one done with it */
        last = atomic_fetch_sub_explicit(&m->nhandles, 1, memory_order_acq_rel) == 1;
    }
    if (!last) return;
    shimrt_storage_release(h->storage);
    if (m->sizes != m->inline_sizes) free(m->sizes);
    free(m);
}

AtenTensorHandle shimrt_tensor_new(const char *func, shimrt_storage *s, int64_t ndim,
                                   const int64_t *sizes, const int64_t *strides,
                                   int64_t storage_offset, int32_t dtype, int32_t device_type,
                                   int32_t device_index, int32_t layout) {
    int64_t extent;
    if (shimrt_check_dtype(func, dtype)) return NULL;
    if (layout != SHIMRT_LAYOUT_STRIDED) {
        shimrt_fail(func, "layout code %d is not supported (only strided, 0)", (int)layout);
        return NULL;
    }
    if (!s) {
        shimrt_fail(func, "no storage");
        return NULL;
    }
    if (check_geometry(func, ndim, sizes, strides, storage_offset, &extent)) return NULL;
    size_t elsize = shimrt_dtype_size(dtype);
    if (extent > 0 && (uint64_t)extent > s->nbytes / elsize) {
        shimrt_fail(func, "the view needs %lld elements of %zu bytes but the storage has %zu bytes",
                    (long long)extent, elsize, s->nbytes);
        return NULL;
    }
    shimrt_tensor_impl *m = calloc(1, sizeof *m);
    int64_t *block = NULL;
    if (m) {
        m->sizes = m->inline_sizes;
        m->strides = m->inline_strides;
        m->cap = SHIMRT_INLINE_DIMS;
    }
    AtenTensorHandle t = m && dims_block(m, ndim, &block) ? tensor_slot_alloc() : NULL;
    if (!t) {
        free(block);
        free(m);
        shimrt_fail(func, "out of memory");
        return NULL;
    }
    install_dims(m, block, ndim);
    atomic_flag_clear(&m->lock);
    atomic_init(&m->nhandles, 1);
    if (ndim) memcpy(m->sizes, sizes, (size_t)ndim * sizeof *sizes);
    if (strides) {
        if (ndim) memcpy(m->strides, strides, (size_t)ndim * sizeof *strides);
    } else {
        shimrt_contiguous_strides(ndim, sizes, m->strides);
    }
    shimrt_storage_retain(s);
    t->impl = m;
    t->next = t->prev = t;
    t->storage = s;
    t->ndim = ndim;
    t->sizes = m->sizes;
    t->strides = m->strides;
    t->storage_offset = storage_offset;
    t->dtype = dtype;
    t->device_type = device_type;
    /* PyTorch's convention: a CPU (or meta) tensor's device has no index (-1). */
    t->device_index = (device_type == SHIMRT_DEV_CPU || device_type == SHIMRT_DEV_META)
                          ? -1
                          : (device_index < 0 ? 0 : device_index);
    t->layout = layout;
    t->defined = true;
    t->magic = SHIMRT_TENSOR_MAGIC;
    return t;
}

AtenTensorHandle shimrt_tensor_share(const char *func, AtenTensorHandle t) {
    AtenTensorHandle h = tensor_slot_alloc();
    if (!h) {
        shimrt_fail(func, "out of memory");
        return NULL;
    }
    handle_join(h, t);
    h->magic = SHIMRT_TENSOR_MAGIC;
    return h;
}

void shimrt_tensor_set_requires_grad(AtenTensorHandle t, bool requires_grad) {
    shimrt_tensor_impl *m = t->impl;
    if (!m) return;
    impl_lock(m);
    AtenTensorHandle h = t;
    do {
        h->requires_grad = requires_grad;
        h = h->next;
    } while (h != t);
    impl_unlock(m);
}

AtenTensorHandle shimrt_tensor_empty(const char *func, int64_t ndim, const int64_t *sizes,
                                     const int64_t *strides, int32_t dtype, int32_t device_type,
                                     int32_t device_index) {
    int64_t extent;
    if (shimrt_check_dtype(func, dtype)) return NULL;
    if (shimrt_check_device(func, device_type, device_index)) return NULL;
    if (check_geometry(func, ndim, sizes, strides, 0, &extent)) return NULL;
    size_t nbytes;
    if (__builtin_mul_overflow((size_t)extent, shimrt_dtype_size(dtype), &nbytes)) {
        shimrt_fail(func, "the storage size overflows");
        return NULL;
    }
    shimrt_storage *s = shimrt_storage_new(func, nbytes, device_type, device_index);
    if (!s) return NULL;
    AtenTensorHandle t = shimrt_tensor_new(func, s, ndim, sizes, strides, 0, dtype, device_type,
                                           device_index, SHIMRT_LAYOUT_STRIDED);
    shimrt_storage_release(s);
    return t;
}

AOTITorchError shimrt_tensor_set_storage(const char *func, AtenTensorHandle t, shimrt_storage *s,
                                         int64_t storage_offset, int64_t ndim, const int64_t *sizes,
                                         const int64_t *strides) {
    if (!shimrt_tensor_valid(t)) return shimrt_fail(func, "self is not a live tensor handle");
    if (!t->defined) return shimrt_fail(func, "self is an undefined tensor");
    if (!s) return shimrt_fail(func, "the source has no storage");
    if (s->device_type != t->device_type ||
        (t->device_type != SHIMRT_DEV_CPU && s->device_index != t->device_index))
        return shimrt_fail(func, "Expected a storage on the device of self");
    if (ndim < 0 || ndim > SHIMRT_MAX_DIMS)
        return shimrt_fail(func, "%lld dimensions is out of range [0, %d]", (long long)ndim,
                           SHIMRT_MAX_DIMS);
    if (storage_offset < 0)
        return shimrt_fail(func, "Tensor: invalid storage offset %lld", (long long)storage_offset);
    int64_t extent;
    if (check_geometry(func, ndim, sizes, strides, storage_offset, &extent))
        return AOTI_TORCH_FAILURE;
    size_t nbytes;
    if (__builtin_mul_overflow((size_t)extent, shimrt_dtype_size(t->dtype), &nbytes))
        return shimrt_fail(func, "the storage size overflows");
    shimrt_tensor_impl *m = t->impl;
    int64_t *block;
    if (!dims_block(m, ndim, &block)) return shimrt_fail(func, "out of memory");
    if (nbytes > s->nbytes && shimrt_storage_grow(func, s, nbytes)) {
        free(block);
        return AOTI_TORCH_FAILURE;
    }
    shimrt_storage_retain(s);
    shimrt_storage *old = t->storage;
    impl_lock(m);
    install_dims(m, block, ndim);
    if (ndim) {
        memcpy(m->sizes, sizes, (size_t)ndim * sizeof *sizes);
        memcpy(m->strides, strides, (size_t)ndim * sizeof *strides);
    }
    AtenTensorHandle h = t;
    do {
        h->storage = s;
        h->storage_offset = storage_offset;
        h->ndim = ndim;
        h->sizes = m->sizes;
        h->strides = m->strides;
        h = h->next;
    } while (h != t);
    impl_unlock(m);
    shimrt_storage_release(old);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_tensor_set_geometry(const char *func, AtenTensorHandle t, int64_t ndim,
                                          const int64_t *sizes, const int64_t *strides) {
    if (!shimrt_tensor_valid(t)) return shimrt_fail(func, "self is not a live tensor handle");
    if (!t->defined) return shimrt_fail(func, "self is an undefined tensor");
    int64_t sz[SHIMRT_MAX_DIMS], st[SHIMRT_MAX_DIMS];
    if (ndim < 0 || ndim > SHIMRT_MAX_DIMS)
        return shimrt_fail(func, "%lld dimensions is out of range [0, %d]", (long long)ndim,
                           SHIMRT_MAX_DIMS);
    if (ndim > 0 && !sizes) return shimrt_fail(func, "argument 'size' is NULL");
    if (ndim) memcpy(sz, sizes, (size_t)ndim * sizeof *sz);
    if (strides) {
        if (ndim) memcpy(st, strides, (size_t)ndim * sizeof *st);
    } else {
        shimrt_contiguous_strides(ndim, sz, st);
    }
    /* the same storage and offset, the storage grown as the new geometry needs */
    return shimrt_tensor_set_storage(func, t, t->storage, t->storage_offset, ndim, sz, st);
}

AOTITorchError shimrt_resize_output(const char *func, AtenTensorHandle out, int64_t ndim,
                                    const int64_t *sizes) {
    /* a live handle: the change goes round its tensor's ring of handles */
    if (!shimrt_tensor_valid(out)) return shimrt_fail(func, "out is not a live tensor handle");
    if (!out->defined) return shimrt_fail(func, "out is an undefined tensor");
    if (out->ndim == ndim &&
        (ndim == 0 || !memcmp(out->sizes, sizes, (size_t)ndim * sizeof *sizes)))
        return AOTI_TORCH_SUCCESS;
    if (ndim > SHIMRT_MAX_DIMS)
        return shimrt_fail(func, "%lld dimensions is too many (at most %d)", (long long)ndim,
                           SHIMRT_MAX_DIMS);
    int64_t extent;
    if (check_geometry(func, ndim, sizes, NULL, out->storage_offset, &extent))
        return AOTI_TORCH_FAILURE;
    if (shimrt_numel(out) != 0) {
        static atomic_flag warned = ATOMIC_FLAG_INIT;
        if (!atomic_flag_test_and_set(&warned))
            aoti_torch_warn(func, __FILE__, __LINE__,
                            "An output with one or more elements was resized since it had a shape "
                            "that does not match the required output shape. This behavior is "
                            "deprecated in PyTorch: reuse an out tensor by resizing it to zero "
                            "elements first (warned once per process)");
    }
    return shimrt_tensor_set_geometry(func, out, ndim, sizes, NULL);
}

void shimrt_tensor_free(AtenTensorHandle t) {
    if (!shimrt_tensor_valid(t)) return;
    t->magic = SHIMRT_MAGIC_FREED;
    handle_leave(t);
    tensor_slot_free(t);
}

/* ---- creation ---- */

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_empty_strided(int64_t ndim, const int64_t *sizes_ptr,
                                                          const int64_t *strides_ptr, int32_t dtype,
                                                          int32_t device_type, int32_t device_index,
                                                          AtenTensorHandle *ret_new_tensor) {
    SHIMRT_CHECK_ARG(ret_new_tensor);
    /* libtorch reads ndim strides unconditionally (NULL crashes it): a caller relying on
     * NULL meaning "contiguous" would work here and crash there. Checked after the
     * arguments the other messages describe. */
    if (ndim > 0 && ndim <= SHIMRT_MAX_DIMS && sizes_ptr && !strides_ptr &&
        shimrt_dtype_name(dtype) && shimrt_device_type_name(device_type))
        return shimrt_fail(__func__,
                           "argument 'strides_ptr' is NULL for a %lld-dim tensor "
                           "(PyTorch requires the strides: pass the contiguous ones)",
                           (long long)ndim);
    return shimrt_k_give(shimrt_tensor_empty(__func__, ndim, sizes_ptr, strides_ptr, dtype,
                                             device_type, device_index),
                         ret_new_tensor);
}

static AOTITorchError from_blob(const char *func, void *data, int64_t ndim, const int64_t *sizes,
                                const int64_t *strides, int64_t storage_offset, int32_t dtype,
                                int32_t device_type, int32_t device_index, AtenTensorHandle *ret,
                                int32_t layout, const uint8_t *opaque_metadata,
                                int64_t opaque_metadata_size, void (*deleter)(void *, void *),
                                void *deleter_ctx) {
    int64_t extent;
    if (!ret) return shimrt_fail(func, "argument 'ret' is NULL");
    if (shimrt_check_dtype(func, dtype)) return AOTI_TORCH_FAILURE;
    if (shimrt_check_device(func, device_type, device_index)) return AOTI_TORCH_FAILURE;
    if (layout != SHIMRT_LAYOUT_STRIDED)
        return shimrt_fail(func, "layout code %d is not supported (only strided, 0)", (int)layout);
    if (opaque_metadata || opaque_metadata_size != 0)
        return shimrt_fail(func, "opaque metadata (MKL-DNN tensors) is not supported");
    if (check_geometry(func, ndim, sizes, strides, storage_offset, &extent))
        return AOTI_TORCH_FAILURE;
    if (!data && extent > 0 && device_type != SHIMRT_DEV_META)
        return shimrt_fail(func, "argument 'data' is NULL for a tensor with elements");
    size_t nbytes = (size_t)extent * shimrt_dtype_size(dtype);
    shimrt_storage *s =
        shimrt_storage_wrap(func, data, nbytes, device_type, device_index, deleter, deleter_ctx);
    if (!s) return AOTI_TORCH_FAILURE;
    AtenTensorHandle t = shimrt_tensor_new(func, s, ndim, sizes, strides, storage_offset, dtype,
                                           device_type, device_index, layout);
    if (!t) {
        s->deleter = NULL; /* on failure the caller keeps ownership of data */
        shimrt_storage_release(s);
        return AOTI_TORCH_FAILURE;
    }
    shimrt_storage_release(s);
    *ret = t;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_create_tensor_from_blob(
    void *data, int64_t ndim, const int64_t *sizes_ptr, const int64_t *strides_ptr,
    int64_t storage_offset, int32_t dtype, int32_t device_type, int32_t device_index,
    AtenTensorHandle *ret) {
    return from_blob(__func__, data, ndim, sizes_ptr, strides_ptr, storage_offset, dtype,
                     device_type, device_index, ret, SHIMRT_LAYOUT_STRIDED, NULL, 0, NULL, NULL);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_create_tensor_from_blob_v2(
    void *data, int64_t ndim, const int64_t *sizes_ptr, const int64_t *strides_ptr,
    int64_t storage_offset, int32_t dtype, int32_t device_type, int32_t device_index,
    AtenTensorHandle *ret, int32_t layout, const uint8_t *opaque_metadata,
    int64_t opaque_metadata_size) {
    return from_blob(__func__, data, ndim, sizes_ptr, strides_ptr, storage_offset, dtype,
                     device_type, device_index, ret, layout, opaque_metadata, opaque_metadata_size,
                     NULL, NULL);
}

AOTI_TORCH_EXPORT AOTITorchError torch_from_blob(
    void *data, int64_t ndim, const int64_t *sizes_ptr, const int64_t *strides_ptr,
    int64_t storage_offset, int32_t dtype, int32_t device_type, int32_t device_index,
    AtenTensorHandle *ret, int32_t layout, const uint8_t *opaque_metadata,
    int64_t opaque_metadata_size, void (*deleter)(void *data, void *ctx), void *deleter_ctx) {
    return from_blob(__func__, data, ndim, sizes_ptr, strides_ptr, storage_offset, dtype,
                     device_type, device_index, ret, layout, opaque_metadata, opaque_metadata_size,
                     deleter, deleter_ctx);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_new_tensor_handle(AtenTensorHandle orig_handle,
                                                              AtenTensorHandle *new_handle) {
    SHIMRT_CHECK_TENSOR(orig_handle);
    SHIMRT_CHECK_ARG(new_handle);
    *new_handle = shimrt_tensor_share(__func__, orig_handle);
    return *new_handle ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch__reinterpret_tensor(AtenTensorHandle self, int64_t ndim,
                                                                const int64_t *sizes_ptr,
                                                                const int64_t *strides_ptr,
                                                                int64_t storage_offset,
                                                                AtenTensorHandle *ret_new_tensor) {
    SHIMRT_CHECK_DEFINED(self);
    SHIMRT_CHECK_ARG(ret_new_tensor);
    if (ndim > 0) SHIMRT_CHECK_ARG(strides_ptr);
    int64_t offset;
    if (__builtin_add_overflow(self->storage_offset, storage_offset, &offset))
        return shimrt_fail(__func__, "storage offset overflows int64");
    return shimrt_k_give(shimrt_tensor_new(__func__, self->storage, ndim, sizes_ptr, strides_ptr,
                                           offset, self->dtype, self->device_type,
                                           self->device_index, self->layout),
                         ret_new_tensor);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_as_strided(AtenTensorHandle self,
                                                       const int64_t *sizes_ptr,
                                                       const int64_t *strides_ptr,
                                                       AtenTensorHandle *ret) {
    SHIMRT_CHECK_DEFINED(self);
    SHIMRT_CHECK_ARG(ret);
    if (self->ndim > 0) {
        SHIMRT_CHECK_ARG(sizes_ptr);
        SHIMRT_CHECK_ARG(strides_ptr);
    }
    return shimrt_k_give(shimrt_tensor_new(__func__, self->storage, self->ndim, sizes_ptr,
                                           strides_ptr, self->storage_offset, self->dtype,
                                           self->device_type, self->device_index, self->layout),
                         ret);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_new_uninitialized_tensor(AtenTensorHandle *ret) {
    SHIMRT_CHECK_ARG(ret);
    static const struct AtenTensorOpaque undefined = {.impl = NULL};
    return shimrt_k_give(shimrt_tensor_share(__func__, (AtenTensorHandle)&undefined), ret);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_delete_tensor_object(AtenTensorHandle tensor) {
    if (!tensor) return AOTI_TORCH_SUCCESS;
    SHIMRT_CHECK_TENSOR(tensor);
    shimrt_tensor_free(tensor);
    return AOTI_TORCH_SUCCESS;
}

/* PyTorch: *dst = *src, so dst names src's tensor from now on (dst's old tensor is left
 * to its other handles, or freed). */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_assign_tensors(AtenTensorHandle src,
                                                           AtenTensorHandle dst) {
    SHIMRT_CHECK_TENSOR(src);
    SHIMRT_CHECK_TENSOR(dst);
    if (src == dst || (src->impl && src->impl == dst->impl)) return AOTI_TORCH_SUCCESS;
    handle_leave(dst);
    handle_join(dst, src);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_assign_tensors_out(AtenTensorHandle src,
                                                               AtenTensorHandle *ret_dst) {
    SHIMRT_CHECK_TENSOR(src);
    SHIMRT_CHECK_ARG(ret_dst);
    *ret_dst = shimrt_tensor_share(__func__, src);
    return *ret_dst ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;
}

/* ---- getters ---- */
#define GETTER(name, type, expr)                                                                   \
    AOTI_TORCH_EXPORT AOTITorchError name(AtenTensorHandle tensor, type out) {                     \
        SHIMRT_CHECK_DEFINED(tensor);                                                              \
        SHIMRT_CHECK_ARG(out);                                                                     \
        *out = (expr);                                                                             \
        return AOTI_TORCH_SUCCESS;                                                                 \
    }

/* PyTorch's Tensor::data_ptr(): NULL for a tensor without elements, even a view into a
 * storage with memory */
#define DATA_PTR(t) (shimrt_numel(t) ? shimrt_data(t) : NULL)
GETTER(aoti_torch_get_data_ptr, void **, DATA_PTR(tensor))
GETTER(aoti_torch_get_mutable_data_ptr, void **, DATA_PTR(tensor))
GETTER(aoti_torch_get_const_data_ptr, const void **, DATA_PTR(tensor))
GETTER(torch_get_mutable_data_ptr, void **, DATA_PTR(tensor))
GETTER(torch_get_const_data_ptr, const void **, DATA_PTR(tensor))
GETTER(aoti_torch_get_storage_size, int64_t *, (int64_t)tensor->storage->nbytes)
GETTER(aoti_torch_get_storage_numel, int64_t *,
       (int64_t)(tensor->storage->nbytes / shimrt_dtype_size(tensor->dtype)))
GETTER(aoti_torch_get_dim, int64_t *, tensor->ndim)
GETTER(aoti_torch_get_numel, int64_t *, shimrt_numel(tensor))
GETTER(aoti_torch_get_sizes, int64_t **, tensor->sizes)
GETTER(aoti_torch_get_strides, int64_t **, tensor->strides)
GETTER(aoti_torch_get_dtype, int32_t *, tensor->dtype)
GETTER(aoti_torch_get_device_type, int32_t *, tensor->device_type)
GETTER(aoti_torch_get_device_index, int32_t *, tensor->device_index)
GETTER(aoti_torch_get_layout, int32_t *, tensor->layout)
GETTER(aoti_torch_get_storage_offset, int64_t *, tensor->storage_offset)
GETTER(aoti_torch_is_contiguous, bool *, shimrt_is_contiguous(tensor))

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_is_defined(AtenTensorHandle tensor,
                                                       bool *ret_is_defined) {
    SHIMRT_CHECK_TENSOR(tensor);
    SHIMRT_CHECK_ARG(ret_is_defined);
    *ret_is_defined = tensor->defined;
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError wrap_dim(const char *func, AtenTensorHandle t, int64_t d, int64_t *out) {
    if (d < -t->ndim || d >= t->ndim)
        return shimrt_fail(func, "dimension %lld is out of range for a %lld-dim tensor",
                           (long long)d, (long long)t->ndim);
    *out = d < 0 ? d + t->ndim : d;
    return AOTI_TORCH_SUCCESS;
}

/* arr[d] (arr: t's sizes or strides) for a possibly negative dim d. */
static AOTITorchError dim_entry(const char *func, AtenTensorHandle t, const int64_t *arr, int64_t d,
                                int64_t *ret) {
    int64_t i = 0;
    if (wrap_dim(func, t, d, &i)) return AOTI_TORCH_FAILURE;
    *ret = arr[i];
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_size(AtenTensorHandle tensor, int64_t d,
                                                     int64_t *ret_size) {
    SHIMRT_CHECK_DEFINED(tensor);
    SHIMRT_CHECK_ARG(ret_size);
    return dim_entry(__func__, tensor, tensor->sizes, d, ret_size);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_stride(AtenTensorHandle tensor, int64_t d,
                                                       int64_t *ret_stride) {
    SHIMRT_CHECK_DEFINED(tensor);
    SHIMRT_CHECK_ARG(ret_stride);
    return dim_entry(__func__, tensor, tensor->strides, d, ret_stride);
}

AOTITorchError shimrt_k_hand_out(AOTITorchError rc, AtenTensorHandle out, AtenTensorHandle *ret0) {
    if (rc != AOTI_TORCH_SUCCESS) {
        shimrt_tensor_free(out);
        return AOTI_TORCH_FAILURE;
    }
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_k_give(AtenTensorHandle t, AtenTensorHandle *ret0) {
    if (!t) return AOTI_TORCH_FAILURE;
    *ret0 = t;
    return AOTI_TORCH_SUCCESS;
}

bool shimrt_k_internal_overlap(const struct AtenTensorOpaque *t) {
    if (shimrt_numel(t) == 0) return false; /* PyTorch: contiguous, hence no overlap */
    for (int64_t d = 0; d < t->ndim; d++)
        if (t->sizes[d] > 1 && t->strides[d] == 0) return true;
    return false;
}

/* runtime/core/storage.c: reference-counted storage; the memory is each device row's
 * (backend.h: alloc and free_data). */
#include <stdlib.h>

#include "backend.h"

/* Live storages (shimrt_live_objects("storage")). */
extern _Atomic int64_t shimrt_live_storages;

shimrt_storage *shimrt_storage_new(const char *func, size_t nbytes, int32_t device_type,
                                   int32_t device_index) {
    if (shimrt_check_device(func, device_type, device_index)) return NULL;
    const shimrt_backend *a = shimrt_backend_of(device_type);
    if (!a || !a->alloc) {
        shimrt_fail(func, "no allocator for device type %d", (int)device_type);
        return NULL;
    }
    if (device_type != SHIMRT_DEV_META && nbytes > SHIMRT_MAX_ALLOC_BYTES) {
        shimrt_fail(func, "allocation of %zu bytes is too large (limit %llu bytes)", nbytes,
                    (unsigned long long)SHIMRT_MAX_ALLOC_BYTES);
        return NULL;
    }
    shimrt_storage *s = calloc(1, sizeof *s);
    if (!s) {
        shimrt_fail(func, "out of memory");
        return NULL;
    }
    if (a->alloc(func, nbytes, device_index, &s->data)) {
        free(s);
        return NULL;
    }
    atomic_init(&s->refcount, 1);
    atomic_fetch_add_explicit(&shimrt_live_storages, 1, memory_order_relaxed);
    s->nbytes = nbytes;
    s->device_type = device_type;
    s->device_index = device_index < 0 ? 0 : device_index;
    s->deleter = a->free_data;
    return s;
}

shimrt_storage *shimrt_storage_wrap(const char *func, void *data, size_t nbytes,
                                    int32_t device_type, int32_t device_index,
                                    void (*deleter)(void *, void *), void *ctx) {
    shimrt_storage *s = calloc(1, sizeof *s);
    if (!s) {
        shimrt_fail(func, "out of memory");
        return NULL;
    }
    atomic_init(&s->refcount, 1);
    /* counted as shimrt_storage_new's are: every storage is uncounted by the last release */
    atomic_fetch_add_explicit(&shimrt_live_storages, 1, memory_order_relaxed);
    s->data = data;
    s->nbytes = nbytes;
    s->device_type = device_type;
    s->device_index = device_index < 0 ? 0 : device_index;
    s->deleter = deleter;
    s->deleter_ctx = ctx;
    return s;
}

void shimrt_storage_retain(shimrt_storage *s) {
    if (s) atomic_fetch_add_explicit(&s->refcount, 1, memory_order_relaxed);
}

void shimrt_storage_release(shimrt_storage *s) {
    if (!s) return;
    if (atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_acq_rel) != 1) return;
    if (s->deleter) s->deleter(s->data, s->deleter_ctx);
    atomic_fetch_sub_explicit(&shimrt_live_storages, 1, memory_order_relaxed);
    free(s);
}

AOTITorchError shimrt_storage_grow(const char *func, shimrt_storage *s, size_t nbytes) {
    if (nbytes <= s->nbytes) return AOTI_TORCH_SUCCESS;
    const shimrt_backend *a = shimrt_backend_of(s->device_type);
    if (s->device_type == SHIMRT_DEV_META) {
        s->nbytes = nbytes; /* no data */
        return AOTI_TORCH_SUCCESS;
    }
    /* only memory the runtime allocated itself can move (PyTorch: a storage from_blob is
     * not resizable either) */
    if (!a || !a->free_data || s->deleter != a->free_data || s->deleter_ctx)
        return shimrt_fail(func, "Trying to resize storage that is not resizable");
    shimrt_storage *n = shimrt_storage_new(func, nbytes, s->device_type, s->device_index);
    if (!n) return AOTI_TORCH_FAILURE;
    AOTITorchError err = AOTI_TORCH_SUCCESS;
    if (s->nbytes) { /* the old bytes, through the copy every device has */
        int64_t old = (int64_t)s->nbytes, one = 1;
        AtenTensorHandle from = shimrt_tensor_new(func, s, 1, &old, &one, 0, SHIMRT_UINT8,
                                                  s->device_type, s->device_index,
                                                  SHIMRT_LAYOUT_STRIDED),
                         to = shimrt_tensor_new(func, n, 1, &old, &one, 0, SHIMRT_UINT8,
                                                n->device_type, n->device_index,
                                                SHIMRT_LAYOUT_STRIDED);
        err = from && to ? aoti_torch_copy_(to, from, 0) : AOTI_TORCH_FAILURE;
        shimrt_tensor_free(from);
        shimrt_tensor_free(to);
    }
    if (err == AOTI_TORCH_SUCCESS) { /* s takes the new block; n leaves with the old one */
        void *d = s->data;
        s->data = n->data;
        n->data = d;
        n->nbytes = s->nbytes;
        s->nbytes = nbytes;
    }
    shimrt_storage_release(n);
    return err;
}

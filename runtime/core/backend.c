/* runtime/core/backend.c: the registry of device rows (backend.h), the cross-device copy
 * and fill routers, and the meta device's row. */
#include "backend.h"

const shimrt_backend *shimrt_backend_of(int32_t device_type) {
    for (const shimrt_backend *const *b = shimrt_backends; *b; b++)
        if ((*b)->device_type == device_type) return *b;
    return NULL;
}

const shimrt_backend *shimrt_backend_of_key(int key) {
    for (const shimrt_backend *const *b = shimrt_backends; *b; b++)
        if ((*b)->dispatch_key == key) return *b;
    return NULL;
}

AOTITorchError shimrt_check_single_device(const char *func, int32_t device_type,
                                          int32_t device_index) {
    if (device_index != 0 && device_index != -1)
        return shimrt_fail(func, "%s device index must be -1 or 0, got %d",
                           shimrt_device_type_name(device_type), (int)device_index);
    return AOTI_TORCH_SUCCESS;
}

/* A device with its own memory: neither the host (CPU) nor meta (no data). */
static bool has_own_memory(int32_t device_type) {
    return device_type != SHIMRT_DEV_CPU && device_type != SHIMRT_DEV_META;
}

AOTITorchError shimrt_backend_copy(const char *func, AtenTensorHandle dst, AtenTensorHandle src) {
    if (!shimrt_tensor_valid(dst) || !shimrt_tensor_valid(src))
        return shimrt_fail(func, "copy of an invalid tensor handle");
    int32_t dev = has_own_memory(dst->device_type)   ? dst->device_type
                  : has_own_memory(src->device_type) ? src->device_type
                                                     : SHIMRT_DEV_CPU;
    const shimrt_backend *b = shimrt_backend_of(dev);
    if (!b || !b->copy)
        return shimrt_fail(func, "no copy for device type %s in this runtime",
                           shimrt_device_type_name(dev));
    return b->copy(func, dst, src);
}

AOTITorchError shimrt_backend_fill(const char *func, AtenTensorHandle t, double value) {
    if (t->device_type == SHIMRT_DEV_META) return AOTI_TORCH_SUCCESS;
    const shimrt_backend *b = shimrt_backend_of(t->device_type);
    if (!b || !b->fill)
        return shimrt_fail(func, "no fill for device type %s in this runtime",
                           shimrt_device_type_name(t->device_type));
    return b->fill(func, t, value);
}

static AOTITorchError meta_check(const char *func, int32_t device_index) {
    return shimrt_check_single_device(func, SHIMRT_DEV_META, device_index);
}
static AOTITorchError meta_alloc(const char *func, size_t nbytes, int32_t device_index,
                                 void **out) {
    (void)func, (void)nbytes, (void)device_index;
    *out = NULL; /* a meta tensor has no data */
    return AOTI_TORCH_SUCCESS;
}

/* Meta tensors are copied by the CPU row (shape checks only) and have nothing to fill; their
 * kernels (the CPU kernels that only build metadata) are registered by the CPU row. */
const shimrt_backend shimrt_backend_meta = {
    .name = "meta",
    .device_type = SHIMRT_DEV_META,
    .dispatch_key = SHIMRT_DISPATCH_KEY_META,
    .check_device = meta_check,
    .alloc = meta_alloc,
};

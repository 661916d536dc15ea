/* runtime/core/device.c: device strings, device guards, streams and the CUDA entry
 * points' neighbours (the CUDA ones are in runtime/cuda/). */
#include <string.h>

#include "internal.h"

AOTI_TORCH_EXPORT AOTITorchError torch_parse_device_string(const char *device_string,
                                                           uint32_t *out_device_type,
                                                           int32_t *out_device_index) {
    static const struct {
        const char *name;
        int32_t code;
    } names[] = {
        {"cpu", SHIMRT_DEV_CPU},   {"cuda", SHIMRT_DEV_CUDA},
        {"xpu", SHIMRT_DEV_XPU},   {"mps", SHIMRT_DEV_MPS},
        {"meta", SHIMRT_DEV_META}, {"privateuseone", SHIMRT_DEV_PRIVATEUSE1},
    };
    SHIMRT_CHECK_ARG(device_string);
    SHIMRT_CHECK_ARG(out_device_type);
    SHIMRT_CHECK_ARG(out_device_index);
    const char *colon = strchr(device_string, ':');
    size_t len = colon ? (size_t)(colon - device_string) : strlen(device_string);
    int32_t type = -1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == len && !strncmp(names[i].name, device_string, len))
            type = names[i].code;
    if (type < 0)
        return shimrt_fail(__func__, "unknown device type in device string '%.64s'", device_string);
    int64_t index = -1;
    if (colon) {
        const char *p = colon + 1;
        /* c10::Device syntax: 0 or [1-9][0-9]*, no sign, no leading zeros */
        if (!*p || (p[0] == '0' && p[1]))
            return shimrt_fail(__func__, "invalid device index in device string '%.64s'",
                               device_string);
        for (index = 0; *p; p++) {
            if (*p < '0' || *p > '9')
                return shimrt_fail(__func__, "invalid device index in device string '%.64s'",
                                   device_string);
            index = index * 10 + (*p - '0');
            if (index > INT8_MAX)
                return shimrt_fail(__func__, "device index too large in device string '%.64s'",
                                   device_string);
        }
    }
    if (type == SHIMRT_DEV_CPU && index > 0)
        return shimrt_fail(__func__, "CPU device index must be -1 or zero, got %lld",
                           (long long)index);
    *out_device_type = (uint32_t)type;
    *out_device_index = (int32_t)index;
    return AOTI_TORCH_SUCCESS;
}

/* ---- device guards (CPU: one device) ---- */
#define GUARD_MAGIC UINT64_C(0x53484D5247554152) /* "SHMRGUAR" */
struct DeviceGuardOpaque {
    uint64_t magic;
    int32_t prev_index;
};
static shimrt_pool guard_pool = SHIMRT_POOL_INIT(struct DeviceGuardOpaque);
static _Thread_local int32_t tls_current_index; /* the CPU: 0 */

static AOTITorchError check_guard(const char *func, DeviceGuardHandle g) {
    return shimrt_pool_check(func, &guard_pool, g, GUARD_MAGIC, "guard", "device guard");
}

static AOTITorchError check_cpu_index(const char *func, int32_t device_index) {
    if (device_index == 0 || device_index == -1) return AOTI_TORCH_SUCCESS;
    return shimrt_fail(func,
                       "device index %d is not available: these device guards and "
                       "streams are the CPU's (index 0); a GPU's are the CUDA ones "
                       "(shimrt/cuda.h)",
                       (int)device_index);
}

/* A new slot of pool for an object of the CPU device device_index, its first field (the
 * uint64_t magic) set; NULL with the message set when the index is not the CPU's or memory
 * runs out. */
static void *cpu_slot(const char *func, shimrt_pool *pool, int32_t device_index, uint64_t magic) {
    return check_cpu_index(func, device_index) ? NULL : shimrt_pool_new(func, pool, magic);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_create_device_guard(int32_t device_index,
                                                                DeviceGuardHandle *ret_guard) {
    SHIMRT_CHECK_ARG(ret_guard);
    DeviceGuardHandle g = cpu_slot(__func__, &guard_pool, device_index, GUARD_MAGIC);
    if (!g) return AOTI_TORCH_FAILURE;
    g->prev_index = tls_current_index;
    tls_current_index = device_index < 0 ? 0 : device_index;
    *ret_guard = g;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_delete_device_guard(DeviceGuardHandle guard) {
    if (!guard) return AOTI_TORCH_SUCCESS;
    if (check_guard(__func__, guard)) return AOTI_TORCH_FAILURE;
    tls_current_index = guard->prev_index;
    shimrt_pool_free(&guard_pool, guard);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_device_guard_set_index(DeviceGuardHandle guard,
                                                                   int32_t device_index) {
    if (check_guard(__func__, guard)) return AOTI_TORCH_FAILURE;
    if (check_cpu_index(__func__, device_index)) return AOTI_TORCH_FAILURE;
    tls_current_index = device_index < 0 ? 0 : device_index;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_current_device_index(int32_t *ret_device_index) {
    SHIMRT_CHECK_ARG(ret_device_index);
    *ret_device_index = tls_current_index;
    return AOTI_TORCH_SUCCESS;
}

/* ---- streams: the CPU default stream ---- */
#define STREAM_MAGIC UINT64_C(0x53484D5253545245) /* "SHMRSTRE" */
struct StreamOpaque {
    uint64_t magic;
    int32_t device_type, device_index;
    int64_t id;
    void *native;
};
static shimrt_pool stream_pool = SHIMRT_POOL_INIT(struct StreamOpaque);

static AOTITorchError check_stream(const char *func, StreamHandle s) {
    return shimrt_pool_check(func, &stream_pool, s, STREAM_MAGIC, "stream", "stream");
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_get_current_stream(int32_t device_index,
                                                               StreamHandle *ret_stream) {
    SHIMRT_CHECK_ARG(ret_stream);
    StreamHandle s = cpu_slot(__func__, &stream_pool, device_index, STREAM_MAGIC);
    if (!s) return AOTI_TORCH_FAILURE;
    s->device_type = SHIMRT_DEV_CPU;
    s->device_index = 0;
    s->id = 0;
    s->native = NULL;
    *ret_stream = s;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_delete_stream(StreamHandle stream) {
    if (!stream) return AOTI_TORCH_SUCCESS;
    if (check_stream(__func__, stream)) return AOTI_TORCH_FAILURE;
    shimrt_pool_free(&stream_pool, stream);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_stream_id(StreamHandle stream, int64_t *ret_stream_id) {
    if (check_stream(__func__, stream)) return AOTI_TORCH_FAILURE;
    SHIMRT_CHECK_ARG(ret_stream_id);
    *ret_stream_id = stream->id;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_stream_native_handle(StreamHandle stream,
                                                            void **ret_native_handle) {
    if (check_stream(__func__, stream)) return AOTI_TORCH_FAILURE;
    SHIMRT_CHECK_ARG(ret_native_handle);
    *ret_native_handle = stream->native;
    return AOTI_TORCH_SUCCESS;
}

/* The CUDA entry points (aoti_torch_get_current_cuda_stream, torch_*_cuda_*) live in
 * runtime/cuda/device.c. */

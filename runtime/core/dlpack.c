/* runtime/core/dlpack.c: DLPack 1.x export and import without copies. */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

/* DLPack's type code of a dtype, from the dtype table's kind and size (float8 and the packed
 * float4 have no code here) */
static bool dtype_to_dl(int32_t dtype, DLDataType *out) {
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(dtype);
    if (!t) return false;
    switch (t->kind) {
    case SHIMRT_KIND_BOOL: out->code = kDLBool; break;
    case SHIMRT_KIND_SIGNED: out->code = kDLInt; break;
    case SHIMRT_KIND_UNSIGNED: out->code = kDLUInt; break;
    case SHIMRT_KIND_FLOATING: out->code = dtype == SHIMRT_BFLOAT16 ? kDLBfloat : kDLFloat; break;
    case SHIMRT_KIND_COMPLEX: out->code = kDLComplex; break;
    default: return false;
    }
    out->bits = (uint8_t)(t->size * 8);
    out->lanes = 1;
    return true;
}

static int32_t dtype_from_dl(DLDataType t) {
    if (t.lanes != 1) return -1;
    for (size_t i = 0; i < shimrt_dtype_table_len; i++) {
        DLDataType d;
        if (dtype_to_dl(shimrt_dtype_table[i].code, &d) && d.code == t.code && d.bits == t.bits)
            return shimrt_dtype_table[i].code;
    }
    return -1;
}

static void export_deleter(DLManagedTensorVersioned *self) {
    if (!self) return;
    shimrt_tensor_free((AtenTensorHandle)self->manager_ctx);
    free(self);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_to_dlpack(AtenTensorHandle tensor,
                                                  DLManagedTensorVersioned **ret) {
    SHIMRT_CHECK_DEFINED(tensor);
    SHIMRT_CHECK_ARG(ret);
    DLDataType dt;
    if (!dtype_to_dl(tensor->dtype, &dt))
        return shimrt_fail(__func__, "dtype %s has no DLPack code",
                           shimrt_dtype_name(tensor->dtype));
    if (tensor->device_type != SHIMRT_DEV_CPU)
        return shimrt_fail(__func__, "only CPU tensors can be exported (device %s)",
                           shimrt_device_type_name(tensor->device_type));
    if (tensor->ndim > INT32_MAX) return shimrt_fail(__func__, "too many dimensions");
    DLManagedTensorVersioned *m = calloc(1, sizeof *m);
    if (!m) return shimrt_fail(__func__, "out of memory");
    AtenTensorHandle own =
        shimrt_tensor_new(__func__, tensor->storage, tensor->ndim, tensor->sizes, tensor->strides,
                          tensor->storage_offset, tensor->dtype, tensor->device_type,
                          tensor->device_index, tensor->layout);
    if (!own) {
        free(m);
        return AOTI_TORCH_FAILURE;
    }
    m->version.major = 1;
    m->version.minor = 0;
    m->manager_ctx = own;
    m->deleter = export_deleter;
    m->flags = 0;
    m->dl_tensor.data = shimrt_data(own);
    m->dl_tensor.device.device_type = kDLCPU;
    m->dl_tensor.device.device_id = 0;
    m->dl_tensor.ndim = (int32_t)own->ndim;
    m->dl_tensor.dtype = dt;
    m->dl_tensor.shape = own->sizes;
    m->dl_tensor.strides = own->strides;
    m->dl_tensor.byte_offset = 0;
    *ret = m;
    return AOTI_TORCH_SUCCESS;
}

static void import_deleter(void *data, void *ctx) {
    (void)data;
    DLManagedTensorVersioned *m = ctx;
    if (m->deleter) m->deleter(m);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_from_dlpack(DLManagedTensorVersioned *managed,
                                                    AtenTensorHandle *ret) {
    SHIMRT_CHECK_ARG(managed);
    SHIMRT_CHECK_ARG(ret);
    if (managed->version.major != 1)
        return shimrt_fail(__func__, "DLPack major version %u is not supported (need 1)",
                           (unsigned)managed->version.major);
    const DLTensor *d = &managed->dl_tensor;
    if (d->device.device_type == kDLCUDA || d->device.device_type == kDLCUDAManaged)
        return shimrt_fail(__func__, "a DLPack tensor in CUDA memory is not supported "
                                     "(CPU and CUDA host memory are)");
    if (d->device.device_type != kDLCPU && d->device.device_type != kDLCUDAHost)
        return shimrt_fail(__func__, "DLPack device type %d is not supported",
                           (int)d->device.device_type);
    int32_t dtype = dtype_from_dl(d->dtype);
    if (dtype < 0)
        return shimrt_fail(__func__, "DLPack dtype (code %u, bits %u, lanes %u) is not supported",
                           (unsigned)d->dtype.code, (unsigned)d->dtype.bits,
                           (unsigned)d->dtype.lanes);
    if (d->ndim < 0 || d->ndim > SHIMRT_MAX_DIMS)
        return shimrt_fail(__func__, "ndim %d is out of range [0, %d]", (int)d->ndim,
                           SHIMRT_MAX_DIMS);
    if (d->ndim > 0 && !d->shape) return shimrt_fail(__func__, "the DLPack shape is NULL");
    void *data = d->data ? (char *)d->data + d->byte_offset : NULL;
    AtenTensorHandle t;
    if (torch_from_blob(data, d->ndim, d->shape, d->strides, 0, dtype, SHIMRT_DEV_CPU, 0, &t,
                        SHIMRT_LAYOUT_STRIDED, NULL, 0, import_deleter, managed)) {
        /* keep the message, but name this function (copy: it lives in the same buffer) */
        char why[512];
        snprintf(why, sizeof why, "%s", torch_exception_get_what());
        return shimrt_fail(__func__, "%s", why);
    }
    *ret = t;
    return AOTI_TORCH_SUCCESS;
}

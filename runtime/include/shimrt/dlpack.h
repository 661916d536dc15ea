/* shimrt/dlpack.h: zero-copy exchange with other frameworks through DLPack >= 1.0.
 *
 * The DLPack 1.0 structs are declared here with dlpack.h v1.0's exact field layout,
 * unless a real dlpack.h was included first (its guard DLPACK_DLPACK_H_ wins; a 1.x
 * dlpack.h supplies DLManagedTensorVersioned itself, an older one gets it from here). */
#ifndef SHIMRT_DLPACK_H
#define SHIMRT_DLPACK_H
#include <stdint.h>

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0

typedef enum {
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13,
    kDLOneAPI = 14,
    kDLWebGPU = 15,
    kDLHexagon = 16,
    kDLMAIA = 17
} DLDeviceType;

typedef struct {
    DLDeviceType device_type;
    int32_t device_id;
} DLDevice;

typedef enum {
    kDLInt = 0U,
    kDLUInt = 1U,
    kDLFloat = 2U,
    kDLOpaqueHandle = 3U,
    kDLBfloat = 4U,
    kDLComplex = 5U,
    kDLBool = 6U
} DLDataTypeCode;

typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
#endif /* DLPACK_DLPACK_H_ */

#if !defined(DLPACK_MAJOR_VERSION)
/* An older (0.x) dlpack.h came first: add the 1.0 pieces it lacks. */
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0
#define SHIMRT_DLPACK_DECLARE_VERSIONED 1
#elif !defined(DLPACK_FLAG_BITMASK_READ_ONLY)
#define SHIMRT_DLPACK_DECLARE_VERSIONED 1
#endif

#ifdef SHIMRT_DLPACK_DECLARE_VERSIONED
typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)

typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;
#undef SHIMRT_DLPACK_DECLARE_VERSIONED
#endif

/* Exports tensor (borrowed) without copying: *ret is a new DLManagedTensorVersioned
 * (version 1.0) whose dl_tensor.data is the tensor's element 0 and whose shape/strides
 * are in elements. It holds its own reference to the storage: the consumer calls
 * (*ret)->deleter(*ret) exactly once when done; the tensor handle may be deleted before.
 * CPU tensors of dtypes with a DLPack code only (ints, uints, floats, bfloat16, bool,
 * complex). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_to_dlpack(AtenTensorHandle tensor,
                                                  DLManagedTensorVersioned **ret);

/* Imports managed without copying; on success the new tensor owns managed and calls
 * managed->deleter(managed) exactly once, when the last handle over its storage goes.
 * On failure ownership stays with the caller. managed->version.major must be 1; NULL
 * strides mean contiguous. Returns a new reference in *ret; free with
 * aoti_torch_delete_tensor_object. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_from_dlpack(DLManagedTensorVersioned *managed,
                                                    AtenTensorHandle *ret);

#ifdef __cplusplus
}
#endif
#endif

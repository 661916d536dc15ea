/* shimrt/types.h: the basic types of the stable C ABI: error codes, handles, StableIValue.
 * Plain C99, usable from C++. Names and values match PyTorch's stable C shim. */
#ifndef SHIMRT_TYPES_H
#define SHIMRT_TYPES_H
#include <stddef.h>
#include <stdint.h>

#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Spelled as PyTorch's torch/csrc/inductor/aoti_torch/c/macros.h spells it, so both
 * headers can be included in one file in either order. */
#ifndef AOTI_TORCH_EXPORT
#if defined(__GNUC__)
#define AOTI_TORCH_EXPORT __attribute__((__visibility__("default")))
#elif defined(_WIN32)
#define AOTI_TORCH_EXPORT __declspec(dllexport)
#else
#define AOTI_TORCH_EXPORT
#endif
#endif

/* Every fallible call returns one of these; on failure a message for the calling thread
 * is left for torch_exception_get_what(). */
typedef int32_t AOTITorchError;
#define AOTI_TORCH_SUCCESS 0
#define AOTI_TORCH_FAILURE 1

/* A value on a dispatcher stack (encodings: docs/stableivalue.md). */
typedef uint64_t StableIValue;

/* Opaque handles. */
typedef struct AtenTensorOpaque *AtenTensorHandle;
typedef struct AtenGeneratorOpaque *AtenGeneratorHandle;
typedef struct TorchLibraryOpaque *TorchLibraryHandle;
typedef struct StableListOpaque *StableListHandle;
typedef struct StringOpaque *StringHandle;
typedef struct ScalarOpaque *ScalarHandle;
typedef struct StreamOpaque *StreamHandle;
typedef struct DeviceGuardOpaque *DeviceGuardHandle;
/* AOTInductor's handles (aoti_torch/c/shim.h): boxed values for the proxy executor,
 * record-function guards and keyword maps, the proxy executor itself. */
typedef struct C10IValueOpaque *C10IValueHandle;
typedef struct AtenRecordFunctionOpaque *AtenRecordFunctionHandle;
typedef struct IValueMapOpaque *IValueMapHandle;
typedef struct AOTIProxyExecutorOpaque *AOTIProxyExecutorHandle;

#ifdef __cplusplus
}
#endif
#endif

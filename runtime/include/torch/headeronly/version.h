/* Compatibility header at PyTorch's path: TORCH_ABI_VERSION, TORCH_TARGET_VERSION,
 * TORCH_FEATURE_VERSION and the TORCH_VERSION_X_Y_Z macros. */
#ifndef SHIMRT_TORCH_HEADERONLY_VERSION_H
#define SHIMRT_TORCH_HEADERONLY_VERSION_H
#include <shimrt/version.h>
#endif

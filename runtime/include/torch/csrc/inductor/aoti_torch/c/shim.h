/* Compatibility header at PyTorch's path: the AOTInductor C shim, served by libshimrt. */
#ifndef AOTI_TORCH_SHIM
#define AOTI_TORCH_SHIM
#include <shimrt/shimrt.h>
#endif

/* Compatibility header at PyTorch's path: the stable C shim, served by libshimrt. */
#ifndef STABLE_TORCH_SHIM
#define STABLE_TORCH_SHIM
#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/headeronly/version.h>
#endif

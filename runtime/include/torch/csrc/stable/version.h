/* Compatibility header at PyTorch's path (torch/csrc/stable/version.h): the version macros. */
#ifndef SHIMRT_TORCH_STABLE_VERSION_H
#define SHIMRT_TORCH_STABLE_VERSION_H
#include <shimrt/version.h>
#endif

/* shimrt/shimrt.h: everything libshimrt offers, in one include.
 * A libtorch-free implementation of the C side of PyTorch's LibTorch stable ABI. */
#ifndef SHIMRT_SHIMRT_H
#define SHIMRT_SHIMRT_H

#include "types.h"
#include "version.h"
#include "error.h"
#include "tensor.h"
#include "scalar.h"
#include "device.h"
#include "dlpack.h"
#include "stableivalue.h"
#include "containers.h"
#include "dispatcher.h"
#include "aoti.h"
#include "cuda.h"

#endif

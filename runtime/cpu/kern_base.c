/* runtime/cpu/kern_base.c: the kernels of loops.h built for baseline x86-64 (and every other target)
 * (the flags are in runtime/runtime.mk). */
#define SH_KSUFFIX base
#include "loops.h"

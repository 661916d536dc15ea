/* runtime/cpu/kern_v4.c: the kernels of loops.h built for x86-64-v4: AVX-512
 * (the flags are in runtime/runtime.mk). */
#define SH_KSUFFIX v4
#include "loops.h"

/* runtime/cpu/kern_v3.c: the kernels of loops.h built for x86-64-v3: AVX2, FMA, F16C
 * (the flags are in runtime/runtime.mk). */
#define SH_KSUFFIX v3
#include "loops.h"

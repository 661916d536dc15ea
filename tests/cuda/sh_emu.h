/* tests/cuda/sh_emu.h: a small CUDA grid emulator, so the generated kernel sources run on
 * the CPU. Each CUDA thread of a block runs on a POSIX thread (a pool of workers created
 * once per process and reused by every block, one launch at a time); __syncthreads is a barrier of
 * the block; __shared__ memory is one buffer per block handed out in declaration order;
 * a warp shuffle goes through a per-warp exchange buffer between two barriers of the warp's
 * 32 threads. A kernel that uses none of these runs its threads one after another on the
 * caller's thread instead (sh_emu_entry.threads). Blocks run one after another. Block sizes are multiples of 32 (<= 1024). The
 * kernels are compiled as C (gnu11) after this header and the prelude of
 * runtime/cuda/kernels.c. */
#ifndef SH_EMU_H
#define SH_EMU_H
#include <limits.h>
#include <math.h>
#include <stddef.h>

#include "../../runtime/cuda/catalogue.h"

typedef struct {
    unsigned tid, bid, bdim, gdim;
} sh_emu_ids_t;
extern _Thread_local sh_emu_ids_t sh_emu_ids;

void *sh_emu_shared(size_t nbytes);
void sh_emu_sync(void);
void sh_emu_shfl_down(void *value, size_t size, int delta);
float sh_emu_h2f(unsigned short h);
unsigned short sh_emu_f2h(float f);
unsigned sh_emu_f2u(float f);
float sh_emu_u2f(unsigned u);
unsigned long long sh_emu_d2u(double d);
float sh_emu_rsqrtf(float x);
double sh_emu_rsqrt(double x);
float sh_emu_sigmoidf(float x);
double sh_emu_sigmoid(double x);

typedef void (*sh_emu_kernel)(sh_params);
/* Runs kernel over grid x block threads with p; 0 on success, -1 on a bad launch. */
int sh_emu_launch(sh_emu_kernel kernel, unsigned grid, unsigned block, const sh_params *p);

/* The kernels compiled from the catalogue (tests/cuda/emu_gen writes them). */
typedef struct {
    const char *name;
    sh_emu_kernel fn;
    /* 1 when the source uses block barriers, shared memory or warp shuffles: its threads
     * run as POSIX threads; 0: one after another on the caller's thread (a valid schedule
     * for threads that never wait for each other, and far cheaper than thread creation) */
    int threads;
} sh_emu_entry;
extern const sh_emu_entry sh_emu_kernels[];
extern const size_t sh_emu_kernel_count;
#endif

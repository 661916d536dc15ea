/* runtime/cuda/catalogue.h: the CUDA kernel catalogue made from runtime/ops/ops.def (private;
 * used by the JIT, shimrt-jit and the tests, which link libshimrt.a). */
#ifndef SHIMRT_CUDA_KERNELS_H
#define SHIMRT_CUDA_KERNELS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shimrt/types.h"

/* The launch parameters every kernel takes by value (one struct: one launch path, on the
 * GPU and in the host grid emulator). Strides are in elements. Defined once here; the
 * NVRTC prelude gets the same text by stringification. */
#define SH_MAXD 16
#define SH_PARAMS_STRUCT                                                                           \
    typedef struct sh_params {                                                                     \
        char *out;                                                                                 \
        const char *in0, *in1, *in2;                                                               \
        long long n;                                                                               \
        int ndim, vec_ok, b_scalar, src_dtype;                                                     \
        long long sizes[SH_MAXD];                                                                  \
        long long st[4][SH_MAXD];                                                                  \
        double alpha, p0, p1, bval;                                                                \
        long long rn;                                                                              \
        int rndim, pad_;                                                                           \
        long long rsizes[SH_MAXD], rst[SH_MAXD];                                                   \
        long long *err;    /* index kernels: the device's error flag (docs/cuda.md) */             \
        long long rchunk;  /* reductions split over blocks (docs/cuda.md): chunk length */         \
        int rsplit, rpass; /* chunks per output; 0 one pass, 1 partials to in2, 2 in2 to out */    \
        int idx32, pad2_;  /* 1: 32-bit offsets, sizes and rsizes divided by magic numbers */      \
        unsigned mg[SH_MAXD], rmg[SH_MAXD];                                                        \
        unsigned char msh[SH_MAXD], rmsh[SH_MAXD];                                                 \
    } sh_params;
SH_PARAMS_STRUCT
#define SH_PARAMS_DEFINED

/* Kernel kinds: the row kinds of ops.def (a ternary row reads a bool condition in0 and
 * operands in1, in2), then copies and fills, then the kernels that are not rows of ops.def:
 * argmax (one block per output, or per chunk split as the reductions with in2 the scratch:
 * the index of the first maximum, NaN propagating, into out as int64, and its value into in1
 * when in1 is not NULL: max.dim) and softmax /
 * log_softmax (one block per line along the dim: max, sum of exp, then the outputs; the
 * line's length and input stride in rsizes[0]/rst[0], the output's stride along it in
 * rst[1]), then index kernels (index_select: out = in0 at the index read from in1 (int32 or
 * int64), wrapped by rsizes[0] and stepped by rst[0]; elements copied by size, 1/2/4/8 bytes),
 * then scatter kernels (one thread per line of the int64 index in1 along the dim: sizes,
 * st[0..2] = out, src (in0), index over the other dims; rsizes[0] the line's length,
 * rsizes[1] out's size along the dim; rst[0..2] the three strides along it; b_scalar the
 * mode, SHS_*; vec_ok include_self; in2 a scratch of 2 * rn 8-byte cells: accumulators
 * (double, or int64 for integers and bool) then counts, rsizes[1] per line), then layer
 * norm (one block per row of rn contiguous elements of in0, n rows; in1 NULL or weight then
 * bias, N each, in the compute type; in2 receives mean (n values) then rstd (n values) in
 * the input's dtype; alpha = eps), then sort kernels (sort_keys: one block per tile of
 * rsizes[2] (<= 256) elements of a line of in0, n tiles, rsizes[1] elements in all, walked
 * with the sort dim last (sizes, st[1]; rn the line's length): each element's 64-bit order
 * key (unsigned: its order is the sort's, NaN the largest, -0.0 == 0.0, complemented when
 * b_scalar (descending)) and its position along the line, the tile merge-sorted in shared
 * memory, keys to out[j] and positions to out[rsizes[1] + j]; sort_merge: one pass of a merge sort over n / rn lines of such (key,
 * position) pairs, in0 -> out, merging runs of rsizes[0] elements pairwise; sort_write:
 * values out (st[0]) = in0 (st[1]) at the sorted positions in1 (n int64, one line after
 * another), the positions themselves into the int64 tensor in2 (st[0] too); rst[0] in0's
 * stride along the line; elements copied by size, 1/2/4/8 bytes). */
enum {
    SHK_UNARY,
    SHK_BINARY,
    SHK_TERNARY,
    SHK_REDUCE,
    SHK_COPY,
    SHK_FILL,
    SHK_ARGMAX,
    SHK_SOFTMAX,
    SHK_INDEX,
    SHK_SCATTER,
    SHK_LAYERNORM,
    SHK_SORT
};
/* scatter modes (p.b_scalar): a plain copy (scatter.src), then scatter_reduce's reductions */
enum { SHS_COPY, SHS_SUM, SHS_PROD, SHS_MEAN, SHS_AMAX, SHS_AMIN };
enum { SHL_CONTIG, SHL_STRIDED };

typedef struct shimrt_cuda_kdesc {
    char name[96]; /* the kernel's entry point, also its catalogue name */
    int kind, layout;
    const char *op;              /* ops.def row name ("add"), "copy" or "fill" */
    int32_t in_dtype, out_dtype; /* dtype codes (copy: in_dtype -1, chosen at launch) */
    uint32_t id; /* 1 + its position, set by shimrt_cuda_kernel_for (0: found by name) */
} shimrt_cuda_kdesc;

/* Number of kernels; the i-th one (false past the end). Deterministic order. */
size_t shimrt_cuda_kernel_count(void);
bool shimrt_cuda_kernel_at(size_t i, shimrt_cuda_kdesc *out);
/* Finds a kernel by name; false when none. */
bool shimrt_cuda_kernel_find(const char *name, shimrt_cuda_kdesc *out);
/* Sets p->idx32 and the magic numbers of p->sizes and p->rsizes when every index and every
 * offset the kernel computes from them (operands st[0..3], and in0 with rst when rndim > 0)
 * stays below 2^31 with non-negative strides; else leaves the 64-bit path (idx32 = 0). */
void shimrt_cuda_index32(sh_params *p);
/* The NVRTC prelude (borrowed, static). */
const char *shimrt_cuda_prelude(void);
/* The kernel's source without the prelude (a new string; free with free()). The text is
 * CUDA C++ and, with the emulation header, C (it uses only the prelude's macros). */
char *shimrt_cuda_kernel_body(const shimrt_cuda_kdesc *k);
/* Prelude + body: the full NVRTC program (a new string; free with free()). */
char *shimrt_cuda_kernel_source(const shimrt_cuda_kdesc *k);
/* The dtype short name used in kernel names ("f32"). */
const char *shimrt_cuda_dtype_tag(int32_t dtype);
#endif

/* ---- the JIT (jit.c) ---- */
/* A compiled image: CUBIN for an architecture NVRTC knows, else PTX for the newest virtual
 * architecture it knows (the driver JIT-compiles that for newer GPUs). Owned by the
 * in-process cache: valid until the process ends. */
typedef struct shimrt_jit_image {
    const void *data;
    size_t size;
    bool is_cubin;
    char name[96];
} shimrt_jit_image;
/* The image of kernel k for sm_<arch> (80, 90, 100...): the in-process table (no lock on a
 * hit), else the disk cache (checksum verified; a bad file is deleted and recompiled), else
 * NVRTC (and the result written to the disk cache through a temp file and a rename). */
AOTITorchError shimrt_jit_get(const char *func, const shimrt_cuda_kdesc *k, int arch,
                              const shimrt_jit_image **out);
/* Compiles source with NVRTC for sm_<arch> with the runtime's options, bypassing every
 * cache; with verbose, ptxas reports registers and spills in *log. *image and *log are new
 * malloc'd buffers (free()). */
AOTITorchError shimrt_jit_compile_uncached(const char *func, const char *source, const char *name,
                                           int arch, bool verbose, void **image, size_t *size,
                                           bool *is_cubin, char **log);
/* Removes every cache file of the folder; *removed counts them. */
AOTITorchError shimrt_jit_cache_clear(const char *func, const char *dir, size_t *removed);
/* Files and bytes in the folder's cache. */
AOTITorchError shimrt_jit_cache_usage(const char *func, const char *dir, size_t *files,
                                      uint64_t *bytes);

/* ---- launching (launch.c, ops.c) ---- */
/* The kernel of (kind, op, input dtype, layout) from the catalogue (copies and fills: the
 * dtype they write); false when the row rejects that dtype. A hash lookup in an index made
 * once per process; no lock. */
bool shimrt_cuda_kernel_for(int kind, const char *op, int32_t in_dtype, int layout,
                            shimrt_cuda_kdesc *out);
/* Device dev's architecture (major * 10 + minor) and multiprocessor count (either may be
 * NULL), asked of the driver once. */
AOTITorchError shimrt_cuda_device_info(const char *op, int32_t dev, int *arch, int *sms);
/* The function of kernel k on device dev, whose context the caller made current: after the
 * first launch there, one atomic load (the image is compiled for dev's architecture and
 * loaded on first use, then published). */
typedef struct CUfunc_st *CUfunction;
AOTITorchError shimrt_cuda_function(const char *op, const shimrt_cuda_kdesc *k, int32_t dev,
                                    CUfunction *out);

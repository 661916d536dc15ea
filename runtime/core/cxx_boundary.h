/* runtime/core/cxx_boundary.h: the C side of runtime/core/cxx_boundary.cc (private).
 * Why the runtime has this C++ file: see the comment at the top of that file. */
#ifndef SHIMRT_CXX_BOUNDARY_H
#define SHIMRT_CXX_BOUNDARY_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Calls fn(stack, num_args, num_outputs). Returns 0 when it returned normally, 1 when it
 * threw; then msg (cap bytes, NUL-terminated) holds what() of the exception. */
int shimrt_cxx_call_kernel(void (*fn)(uint64_t *, uint64_t, uint64_t), uint64_t *stack,
                           uint64_t num_args, uint64_t num_outputs, char *msg, size_t cap);
/* Calls fn(begin, end, ctx) (a torch_parallel_for body, C++ in an extension). Returns 0
 * when it returned normally, 1 when it threw; then msg as for shimrt_cxx_call_kernel. */
int shimrt_cxx_call_range(void (*fn)(int64_t, int64_t, void *), int64_t begin, int64_t end,
                          void *ctx, char *msg, size_t cap);
/* One StableIValue cell from C++ `new` (0-initialised), or NULL when out of memory. */
uint64_t *shimrt_cxx_cell_new(void);
/* `delete` of a cell from shimrt_cxx_cell_new or an extension's `new StableIValue`. */
void shimrt_cxx_cell_delete(uint64_t *cell);

#ifdef __cplusplus
}
#endif
#endif

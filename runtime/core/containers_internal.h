/* runtime/core/containers_internal.h: private structs of the StableIValue containers and
 * the dispatcher's helpers shared between runtime/core/{containers,scalar,ivalue,
 * dispatcher,library}.c. Never installed. */
#ifndef SHIMRT_CONTAINERS_INTERNAL_H
#define SHIMRT_CONTAINERS_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>

#include "internal.h"
#include "schema.h"

#define SHIMRT_LIST_MAGIC UINT64_C(0x53484D52544C5354)    /* "SHMRTLST" */
#define SHIMRT_STRING_MAGIC UINT64_C(0x53484D5254535452)  /* "SHMRTSTR" */
#define SHIMRT_SCALAR_MAGIC UINT64_C(0x53484D5254534341)  /* "SHMRTSCA" */
#define SHIMRT_LIBRARY_MAGIC UINT64_C(0x53484D52544C4942) /* "SHMRTLIB" */

struct StableListOpaque {
    uint64_t magic;
    size_t size, cap;
    StableIValue *items;
};

struct StringOpaque {
    uint64_t magic;
    size_t length;
    char *data; /* length + 1 bytes, NUL-terminated */
};

/* The tags are shimrt_scalar's kinds (shimrt/scalar.h). */
enum {
    SHIMRT_SCALAR_BOOL = SHIMRT_SCALAR_KIND_BOOL,
    SHIMRT_SCALAR_INT = SHIMRT_SCALAR_KIND_INT,
    SHIMRT_SCALAR_DOUBLE = SHIMRT_SCALAR_KIND_FLOAT,
    SHIMRT_SCALAR_COMPLEX = SHIMRT_SCALAR_KIND_COMPLEX
};

struct ScalarOpaque {
    uint64_t magic;
    int32_t tag;
    union {
        bool b;
        int64_t i;
        double d;
        struct {
            double re, im;
        } c;
    } v;
};

/* Live objects per kind (shimrt_live_objects). */
extern _Atomic int64_t shimrt_live_lists, shimrt_live_strings, shimrt_live_scalars,
    shimrt_live_cells, shimrt_live_complex;
#define SHIMRT_LIVE_ADD(counter, n) atomic_fetch_add_explicit(&(counter), (n), memory_order_relaxed)

extern shimrt_pool shimrt_list_pool;
extern shimrt_pool shimrt_string_pool;
extern shimrt_pool shimrt_scalar_pool;

/* A ScalarHandle's value with its kind (shimrt/scalar.h); fails, naming func, for a bad
 * handle. The handle stays the caller's. */
AOTITorchError shimrt_scalar_get(const char *func, ScalarHandle h, shimrt_scalar *ret);
/* A new ScalarHandle of v's kind and value (the caller owns it: torch_delete_scalar). */
AOTITorchError shimrt_scalar_new_handle(const char *func, shimrt_scalar v, ScalarHandle *ret);

/* NULL when h is a live handle of the pool with that magic, else why not ("is NULL",
 * "was freed", ...). Never reads memory outside the pool's slabs. */
const char *shimrt_handle_problem(const shimrt_pool *pool, const void *h, uint64_t magic);
bool shimrt_list_valid(StableListHandle l);
/* NULL when cell is a live StableIValue cell (torch_new_stable_ivalue, or adopted), else
 * why not. Never reads *cell. */
const char *shimrt_cell_problem(const StableIValue *cell);
/* Records cell, an extension's `new StableIValue` (headers targeting PyTorch < 2.13 make
 * cells so, and pass the same extension_build_version as newer ones), as a live cell. True
 * when it is live now; false for a cell of ours already freed, a pointer that cannot be a
 * heap cell (misaligned, in the first 1 MiB, beyond user space, on the calling thread's
 * stack, inside a runtime handle), or on OOM. */
bool shimrt_cell_adopt(StableIValue *cell);
/* NULL when c is a live complex cell (shimrt_new_complex), else why not. Never reads
 * outside the complex pool. */
const char *shimrt_complex_problem(const ShimrtComplex *c);
/* Fails from the enclosing function when h is not a live handle of the pool; the message
 * names func. */
#define SHIMRT_CHECK_HANDLE_IN(func, pool, h, magic, kind)                                         \
    do {                                                                                           \
        const char *why_ = shimrt_handle_problem(&(pool), (h), (magic));                           \
        if (why_) return shimrt_fail((func), "%s handle '%s' %s", (kind), #h, why_);               \
    } while (0)
#define SHIMRT_CHECK_HANDLE(pool, h, magic, kind)                                                  \
    SHIMRT_CHECK_HANDLE_IN(__func__, pool, h, magic, kind)

/* Frees value of schema type t with everything it owns (see shimrt_siv_release). On a
 * bad handle inside the value it frees what it can and fails with func's name. */
AOTITorchError shimrt_siv_release_type(const char *func, const sg_type *t, StableIValue value);
/* Whether values of type t have a StableIValue encoding (Any, GraphModule, ... do not). */
bool shimrt_type_encodable(const sg_type *t, const char **why);

#endif

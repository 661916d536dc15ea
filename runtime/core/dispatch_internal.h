/* runtime/core/dispatch_internal.h: the dispatcher's private model, shared by
 * runtime/core/{dispatcher,library,tags}.c. Never installed.
 *
 * Concurrency: every write happens under shimrt_dispatch_lock. Readers (calls) take no
 * lock: they read the op table, an op's def and its kernel slots through atomic loads.
 * Nothing a reader can reach is ever freed (ops, defs and old tables live until the
 * process exits), so a reader never touches freed memory. */
#ifndef SHIMRT_DISPATCH_INTERNAL_H
#define SHIMRT_DISPATCH_INTERNAL_H
#include <pthread.h>
#include <stdatomic.h>

#include "containers_internal.h"

/* Dispatch keys: the backends in priority order (highest last), then the composite keys
 * in the order they are tried. */
typedef enum shimrt_key {
    SHIMRT_KEY_CPU = 0,
    SHIMRT_KEY_CUDA,
    SHIMRT_KEY_MPS,
    SHIMRT_KEY_XPU,
    SHIMRT_KEY_PRIVATEUSE1,
    SHIMRT_KEY_META,
    SHIMRT_KEY_CEA_NONFUNCTIONAL, /* CompositeExplicitAutogradNonFunctional */
    SHIMRT_KEY_CEA,               /* CompositeExplicitAutograd */
    SHIMRT_KEY_CIA,               /* CompositeImplicitAutograd */
    SHIMRT_KEY_COUNT
} shimrt_key;
#define SHIMRT_KEY_FIRST_COMPOSITE SHIMRT_KEY_CEA_NONFUNCTIONAL

/* The key's name ("CPU", ...). */
const char *shimrt_key_name(int key);
/* The key named name, or -1. */
int shimrt_key_parse(const char *name);

/* How a dispatch-relevant argument holds its tensors. */
enum { SHIMRT_TA_TENSOR = 0, SHIMRT_TA_OPTIONAL, SHIMRT_TA_LIST, SHIMRT_TA_OPTIONAL_LIST };

typedef struct shimrt_tensor_arg {
    uint32_t index; /* position on the stack */
    uint32_t kind;  /* SHIMRT_TA_* */
} shimrt_tensor_arg;

/* A definition: immutable once published. */
typedef struct shimrt_opdef {
    const sg_schema *schema;
    const char *schema_text; /* canonical */
    uint32_t n_args, n_rets;
    uint32_t n_tensor_args;
    const shimrt_tensor_arg *tensor_args;
    uint32_t tags; /* bit i: tag code i */
    TorchLibraryHandle owner;
} shimrt_opdef;

typedef struct ShimrtOp shimrt_op;

#define SHIMRT_OP_MAGIC UINT64_C(0x53484D52544F5053) /* "SHMRTOPS" */

struct ShimrtOp {
    uint64_t magic;
    char *name;     /* "ns::name" */
    char *overload; /* "" for the default overload */
    uint64_t hash;
    _Atomic(const shimrt_opdef *) def;
    _Atomic(ShimrtBoxedKernel) kernels[SHIMRT_KEY_COUNT];
    /* writers only (under the lock): */
    TorchLibraryHandle kernel_owner[SHIMRT_KEY_COUNT];
};

enum { SHIMRT_LIB_DEF = 0, SHIMRT_LIB_IMPL, SHIMRT_LIB_FRAGMENT };

typedef struct shimrt_impl_reg {
    shimrt_op *op;
    int key;
} shimrt_impl_reg;

struct TorchLibraryOpaque {
    uint64_t magic;
    int kind;
    int key; /* IMPL: its key; DEF/FRAGMENT: CompositeImplicitAutograd */
    char *ns, *file, *pymodule, *pycontext;
    uint32_t line;
    shimrt_op **defs;
    size_t n_defs, cap_defs;
    shimrt_impl_reg *impls;
    size_t n_impls, cap_impls;
};

extern pthread_mutex_t shimrt_dispatch_lock;
extern shimrt_pool shimrt_library_pool;
/* Under the lock: the arena holding every parsed schema. */
sg_arena *shimrt_dispatch_arena(void);

/* Lock-free lookup; NULL when no op of that name and overload exists (defined or not). */
shimrt_op *shimrt_op_lookup(const char *name, const char *overload);
/* Under the lock: the op, created (undefined, no kernels) when missing; NULL on OOM. */
shimrt_op *shimrt_op_get_or_create(const char *name, const char *overload);

/* The torch_tag_*() codes and SHIMRT_NUM_TAGS: shimrt/codes.h. */
const char *shimrt_tag_name(int32_t tag);

/* True when the last dispatch call of the calling thread took ownership of its stack's
 * arguments (PyTorch's rule: the op was found and defined); false when it failed before
 * that (unknown or undefined op, NULL stack, bad op handle), and the caller still owns
 * them. */
bool shimrt_dispatch_took_args(void);

/* The latest deferred registration message of op_name with overload (library.c), or NULL.
 * The text lives as long as the process. */
const char *shimrt_deferred_error_for(const char *op_name, const char *overload);
/* Between enter and leave, the calling thread's registrations fail instead of being
 * deferred (shimrt_register_ops: all or nothing, with an error code). */
void shimrt_registration_strict_enter(void);
void shimrt_registration_strict_leave(void);

#endif

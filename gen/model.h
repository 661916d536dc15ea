/* gen/model.h: what shimgen knows after loading its inputs.
 *
 * Built by the loaders (gen/yaml.c, gen/model.c) and the autogen derivation (gen/derive.c);
 * read by the emitters (gen/emit_*.c). Everything here lives in the context's arena and is
 * borrowed by readers; nothing is freed on its own.
 */
#ifndef SHIMGEN_MODEL_H
#define SHIMGEN_MODEL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schema.h"
#include "shimgen.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- A YAML document as a tree, every node with its location ---------------------- */
typedef enum sg_ynode_kind { SG_Y_SCALAR = 0, SG_Y_SEQ, SG_Y_MAP } sg_ynode_kind;

typedef struct sg_ynode {
    sg_ynode_kind kind;
    sg_loc loc;         /* where the node starts */
    const char *scalar; /* SG_Y_SCALAR: the value (NUL-terminated) */
    uint32_t scalar_len;
    bool quoted;             /* SG_Y_SCALAR: written with quotes or as a block scalar */
    struct sg_ynode **items; /* SG_Y_SEQ: items; SG_Y_MAP: keys and values interleaved */
    uint32_t n_items;        /* SG_Y_MAP: 2 * number of pairs */
    bool verbatim;           /* SG_Y_SCALAR: the value is its source text on one line, so byte k
                            of the value is at column loc.col + quoted + k */
} sg_ynode;

/* ---- native_functions.yaml --------------------------------------------------------- */
typedef struct sg_dispatch {
    const char *key;    /* one dispatch key: "CPU", "CompositeExplicitAutograd", ... */
    const char *kernel; /* "add_out" */
    sg_loc loc;
} sg_dispatch;

typedef struct sg_native_function sg_native_function;
struct sg_native_function {
    const sg_schema *func;
    const char *func_text; /* as written in `func:` (for derived ones: the printed form) */
    sg_loc loc;            /* the entry */
    sg_loc func_loc;       /* the start of the `func:` value */
    const char *op_key;    /* "aten.add.Tensor", "aten.abs.default" (namespace from ctx) */

    /* `dispatch:` split so that each key has its own row ("CPU, CUDA: k" gives two). */
    const sg_dispatch *dispatch;
    int n_dispatch;
    bool has_dispatch; /* the key `dispatch:` was written */

    bool structured;
    const char *structured_delegate; /* op name as written ("add.out"), or NULL */
    sg_loc structured_delegate_loc;
    const sg_native_function *delegate; /* resolved structured_delegate, or NULL */
    const char *structured_inherits;

    const char **autogen; /* names of derived functions ("foo.out", "_bar_functional") */
    const sg_loc *autogen_locs;
    int n_autogen;

    const char **tags;
    const sg_loc *tag_locs;
    int n_tags;

    const char *variants; /* "function, method"; NULL when not written */
    const char *python_module;
    const char *category_override;
    bool manual_cpp_binding;
    bool manual_kernel_registration;
    bool has_ufunc_inner_loop; /* gets CPU and CUDA kernels without naming them */
    bool device_guard;         /* default true */
    const char *device_check;  /* NULL = default */
    bool is_abstract;

    const sg_ynode *node;      /* the whole entry (unknown keys are kept here) */
    const sg_ynode *func_node; /* the `func:` scalar (NULL for derived functions) */

    bool derived; /* made from another entry's `autogen` */
    const sg_native_function *derived_from;

    /* A cache for sg_derive_functions, filled where the entry is built (optional):
     * sg_derive_sig_hash(sig_hash_of), valid only while sig_hash_of == func. */
    const sg_schema *sig_hash_of;
    uint64_t sig_hash;
};

/* ---- tags.yaml ---------------------------------------------------------------------- */
typedef struct sg_tag {
    const char *name;
    const char *desc;
    sg_loc loc;
} sg_tag;

/* ---- shim_ops.yaml ------------------------------------------------------------------ */
typedef struct sg_op_version {
    int number;        /* 2 for v2 */
    const char **args; /* names of the arguments this version added */
    int n_args;
    sg_loc loc;
    const char *since; /* this version's own release gate ("2.12"), or NULL: the op's */
    int since_major, since_minor;
} sg_op_version;

typedef struct sg_shim_op {
    const char *key;   /* "aten.add.Tensor"; "default" stands for no overload */
    bool aten;         /* from `aten_ops` (else `fallback_ops`) */
    const char *since; /* "2.12" or NULL */
    int since_major, since_minor;
    const sg_op_version *versions; /* ascending by number */
    int n_versions;
    sg_loc loc;
    const sg_native_function *fn; /* resolved */
    const char **backends;        /* `backends: [cuda]`: only these backends' headers list it */
    int n_backends;               /* 0: every backend's */
} sg_shim_op;

/* ---- Everything loaded ------------------------------------------------------------- */
typedef struct sg_input_file {
    const char *path;     /* as given (diagnostics, the depfile) */
    const char *recorded; /* as the outputs record it: "<directory name>/<file name>", the
                             same however the path is spelled (docs/cli.md) */
    const char *role;     /* "native_functions", "tags", "shim_ops" */
} sg_input_file;

typedef struct sg_model {
    sg_native_function **funcs; /* written entries in input order, then derived ones */
    size_t n_funcs;
    size_t n_written; /* funcs[0 .. n_written) were written in the input */
    sg_tag *tags;
    size_t n_tags;
    bool have_tags_file;
    sg_shim_op *shim_ops; /* in file order (after sg_finalize: `all` sections expanded) */
    size_t n_shim_ops;
    sg_shim_op *shim_all; /* `fallback_ops: all` / `aten_ops: all`: key NULL, loc the
                                   value (its directory is the one whose functions it takes) */
    size_t n_shim_all;
    sg_input_file *inputs; /* every file read, in reading order (for banners, depfiles) */
    size_t n_inputs;
    const char *ns; /* op namespace, "aten" */
} sg_model;

/* Lookup by op key ("aten.add.Tensor" or "aten.abs.default"); NULL when absent. */
const sg_native_function *sg_model_find(const sg_context *ctx, const char *op_key);
/* Lookup by schema-style name ("add.out", "abs"); NULL when absent. */
const sg_native_function *sg_model_find_by_name(const sg_context *ctx, const char *name,
                                                const char *overload);

/* Internal to gen/: the context's arena, and reporting. */
sg_arena *sg_context_arena(sg_context *ctx);
sg_model *sg_context_model_mut(sg_context *ctx);
void sg_diag(sg_context *ctx, sg_diag_level level, sg_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Parses a stdio stream (FILE *, borrowed) from its current position into a node tree in
 * the arena. Returns NULL after reporting the error through sg_diag (libyaml's problem,
 * with its line and column). */
const sg_ynode *sg_yaml_parse_file(sg_context *ctx, const char *path, void *fp);
/* Called in the parsing thread with each item of a top-level sequence as soon as its subtree
 * is complete; the parser never writes to that item again. `item` is arena memory. */
typedef void (*sg_yaml_item_fn)(void *user, const sg_ynode *item);
/* A YAML buffer (fp NULL: memory data[0..len)) or sg_yaml_parse_file (fp, a FILE *, borrowed)
 * that also calls fn(user, item) for each completed top-level sequence item (fn may be NULL). */
const sg_ynode *sg_yaml_parse_items(sg_context *ctx, const char *path, const char *data, size_t len,
                                    void *fp, sg_yaml_item_fn fn, void *user);
/* Where byte `offset` of scalar `n`'s value is in its file: exact for verbatim scalars,
 * else the scalar's start. */
sg_loc sg_ynode_loc_at(const sg_ynode *n, size_t offset);

/* Builds the native functions of one native_functions.yaml tree into the model. */
int sg_model_add_native_functions(sg_context *ctx, const sg_ynode *root);
int sg_model_add_tags(sg_context *ctx, const sg_ynode *root);

/* Builds native functions in a second thread while the YAML is being parsed (gen/model.c):
 *   sg_nf_loader *l = sg_nf_loader_start(ctx, input_size);   // NULL: load sequentially
 *   root = sg_yaml_parse_items(ctx, ..., l ? sg_nf_loader_item : NULL, l);
 *   rc = sg_nf_loader_finish(ctx, l, root);
 * The thread is used when the input is larger than 64 KiB and two CPUs are online; the
 * environment variable SHIMGEN_THREADS=1 turns it off, SHIMGEN_THREADS=2 forces it on (for
 * tests). The result, the order of the functions and the diagnostics (reported only from
 * the calling thread, in input order) are those of sg_model_add_native_functions. */
typedef struct sg_nf_loader sg_nf_loader;
/* Returns a new loader that owns a running thread, or NULL (then load sequentially). */
sg_nf_loader *sg_nf_loader_start(sg_context *ctx, size_t input_size);
/* The sg_yaml_item_fn to pass to sg_yaml_parse_items with the loader as user. */
void sg_nf_loader_item(void *loader, const sg_ynode *item);
/* Waits for the thread and frees the loader (l may be NULL). With root (the parse
 * succeeded): adds the functions and reports their diagnostics, returning what
 * sg_model_add_native_functions(ctx, root) returns; with root NULL: drops the work, -1. */
int sg_nf_loader_finish(sg_context *ctx, sg_nf_loader *l, const sg_ynode *root);
int sg_model_add_shim_ops(sg_context *ctx, const sg_ynode *root);
/* Adds the derived (autogen) functions of docs/shim-rules.md to the model (gen/derive.c). */
int sg_derive_functions(sg_context *ctx);
/* The hash by which sg_derive_functions groups s with the schemas whose torchgen signature
 * equals its own (equal signatures give equal hashes). Borrows s; pure, thread-safe. */
uint64_t sg_derive_sig_hash(const sg_schema *s);
/* Appends fn (arena memory, borrowed by the model) to model->funcs, growing the array (heap
 * memory owned by the context); fills fn->op_key when NULL. Returns 0, or -1 after
 * reporting out-of-memory. Callers adding derived functions should use this. */
int sg_model_append_function(sg_context *ctx, sg_native_function *fn);

#ifdef __cplusplus
}
#endif
#endif

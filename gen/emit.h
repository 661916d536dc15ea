/* gen/emit.h: the emitters' internal pieces (not part of libshimgen's public API).
 *
 *   sg_buf        a growable byte buffer (gen/buf.h; every output is rendered into one first)
 *   sg_tpl_*      the template engine: files in templates/ of named sections with {{slot}} holes
 *   sg_shim_*     the C form of an op: kernel choice, parameters, names
 *   sg_fs_*       file helpers: read whole file, write-if-changed through temp + rename
 *   sg_abi_*      declarations read back from headers, for --abi-check
 *
 * Everything allocated here lives either in an sg_buf (freed with sg_buf_free) or in the
 * arena passed in (borrowed by the caller for the arena's lifetime).
 */
#ifndef SHIMGEN_EMIT_H
#define SHIMGEN_EMIT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "buf.h"
#include "kinds.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Templates (gen/template.c) ---------------------------------------------------- */
/* Every template file is a template set: one file of named sections. A line `%% name`
 * (name: [A-Za-z0-9_]+) starts section `name`; its text runs to the next such line or the
 * end of the file, its last newline dropped (so a one-line section carries no line end);
 * text before the first section is a comment. A section is a template: text with named
 * slots `{{name}}` (name: [A-Za-z0-9_]+); any other `{{` is literal text. */
typedef struct sg_template sg_template;
typedef struct sg_tpl_set sg_tpl_set;

typedef struct sg_slot {
    const char *name;
    const char *value; /* NUL-terminated unless len is set */
    size_t len;        /* 0: strlen(value) */
} sg_slot;

/* The slots of a render call: SLOTS({"name", value, 0}, ...) expands to the array and its
 * count. */
#define SLOTS(...)                                                                                 \
    ((const sg_slot[]){__VA_ARGS__}),                                                              \
        (int)(sizeof((const sg_slot[]){__VA_ARGS__}) / sizeof(sg_slot))

/* The directory the templates are read from: `explicit_dir` when not NULL, else
 * $SHIMGEN_TEMPLATES, else the first of <exe>/../share/shimgen/templates, and
 * templates/ in the executable's directory or up to four levels above it, and finally
 * ./templates, that holds headers.in. Returns an arena string, or NULL when none is
 * found. */
const char *sg_tpl_find_dir(sg_arena *a, const char *explicit_dir);

/* Loads dir/name (or parses text) into a set, in the arena. Returns NULL and fills err (a
 * message with the line) on a repeated or malformed section name or when the file cannot
 * be read. */
const sg_tpl_set *sg_tpl_set_load(sg_arena *a, const char *dir, const char *name, char *err,
                                  size_t err_cap);
const sg_tpl_set *sg_tpl_set_parse(sg_arena *a, const char *name, const char *text, size_t len,
                                   char *err, size_t err_cap);
/* The section of that name, or NULL (also when s is NULL). */
const sg_template *sg_tpl_set_get(const sg_tpl_set *s, const char *section);
int sg_tpl_set_count(const sg_tpl_set *s);
const char *sg_tpl_set_path(const sg_tpl_set *s); /* NULL when parsed from memory, or s NULL */

/* One section's template from its text (copied; the last newline dropped). Never fails
 * except on out-of-memory. */
const sg_template *sg_tpl_parse(sg_arena *a, const char *text, size_t len);
/* Appends the template with each slot replaced by the value of the same name. Returns 0,
 * or -1 when the template names a slot that `slots` does not give (its name is stored in
 * *missing when missing != NULL). */
int sg_tpl_render(const sg_template *t, sg_buf *out, const sg_slot *slots, int n_slots,
                  const char **missing);

/* ---- Text helpers shared by the emitters (gen/emit_text.c) -------------------------- */
/* Each returns an arena string, never NULL. */
const char *sg_text_comment_safe(sg_arena *a, const char *s); /* no end of comment inside */
const char *sg_text_schema(sg_arena *a, const sg_native_function *fn); /* func: as written */
const char *sg_text_guard(sg_arena *a, const char *file); /* include guard: SHIMGEN_X_H_ */
/* The inside of a C string literal; with percent, also '%' doubled (a format string). */
const char *sg_text_c_escape(sg_arena *a, const char *s, bool percent);
const char *sg_text_json(sg_arena *a, const char *s);    /* the inside of a JSON string */
const char *sg_text_type(sg_arena *a, const sg_type *t); /* "Tensor?[]" */

/* ---- The C form of an op (gen/emit_params.c) ------------------------------------- */
typedef enum sg_cparam_role {
    SG_CP_ARG = 0,      /* the value of schema argument `index` */
    SG_CP_LEN,          /* the length of list argument `index` (x_len_) */
    SG_CP_DEVICE_INDEX, /* the device index of Device argument `index` (x_index_) */
    SG_CP_RET           /* out-pointer of return `index` (retN) */
} sg_cparam_role;

typedef struct sg_cparam {
    const char *type; /* "AtenTensorHandle", "const int64_t*", ... (static strings) */
    const char *name; /* "self", "size_len_", "device_index_", "ret0" (arena) */
    sg_cparam_role role;
    int index; /* argument index in the schema, or return index */
} sg_cparam;

/* The C parameters of a shim for schema `s`, leaving out the arguments named in omit
 * (the ones a later version added). On success returns 0 and sets *params (arena) and
 * *n_params. When the op has no C form returns -1 and sets *why (arena string naming the
 * argument or return and its type) and *bad_arg to the argument index (-1 for a return). */
int sg_shim_params(sg_arena *a, const sg_schema *s, const char *const *omit, int n_omit,
                   sg_cparam **params, int *n_params, const char **why, int *bad_arg);

/* The dispatch key that a backend name stands for: "cpu" -> "CPU", "mps" -> "MPS", ...
 * Looks for a key of the model equal to the name ignoring case (never a NestedTensor
 * key); "cpu" and "cuda" are always known. Returns NULL when the model names no such
 * key. The result is borrowed (static or model memory). */
const char *sg_backend_dispatch_key(const sg_model *m, const char *backend);

/* The kernel a device backend runs for fn (docs/shim-rules.md, "Which ops"). Returns true and
 * fills *key (the dispatch key it was found under) and *kernel; false when there is none.
 * Results are borrowed from the model, or arena strings. */
/* Whether s is a name the C standard library declares (gen/c_names.c). */
bool sg_is_c_library_name(const char *s);
bool sg_pick_kernel(sg_arena *a, const sg_native_function *fn, const char *dispatch_key,
                    const char **key, const char **kernel);

/* The C name: aoti_torch_<backend>_<name>[_<overload>][_v<N> when version > 1]. Arena. */
const char *sg_shim_c_name(sg_arena *a, const char *backend, const sg_schema *s, int version);

/* The kernel parameter type of docs/kernels.md for shim parameter p of schema s (Tensor? ->
 * AtenTensorHandle, Tensor?[] -> const AtenTensorHandle*, T[]? -> const T*; everything
 * else unchanged). Static string. */
const char *sg_kernel_param_type(const sg_schema *s, const sg_cparam *p);

/* The name of the argument kind (gen/kinds.c) the body templates are chosen by ("tensor",
 * "opt_tensor", "int_list", "opt_int_list", "device", "scalar", ...), or NULL when the type
 * has no C form. */
const char *sg_arg_kind(const sg_type *t);
/* The return kind ("tensor", "int", "float", "scalar", "bool", "code", "str",
 * "generator"), or NULL. */
const char *sg_ret_kind(const sg_type *t);

/* ---- The plan (gen/emit_plan.c makes it; every emitter reads it) ------------------- */
typedef struct sg_emit_decl {
    const char *c_name;
    int version;       /* 1 for the plain function */
    const char *since; /* its release gate: the version's own since, else the op's; or NULL */
    int since_major, since_minor;
    sg_cparam *params;
    int n_params;
} sg_emit_decl;

typedef struct sg_emit_shim {
    const sg_shim_op *op;
    const sg_native_function *fn;
    const char *kernel_key, *kernel; /* NULL for aten */
    sg_emit_decl *decls;             /* highest version first */
    int n_decls;
    /* A device header's shim of an op without a kernel for its backend (h->routed): 1 when
     * the dispatcher runs it (the CPU fallback), 2 when no backend has a kernel for it (its
     * body fails with PyTorch's "Could not run" message). 0 otherwise. */
    int route;
} sg_emit_shim;

typedef struct sg_emit_header {
    const char *backend;      /* "cpu", "aten" */
    const char *dispatch_key; /* "CPU"; NULL for aten */
    const char *file;         /* "c_shim_cpu.h" */
    sg_emit_shim *shims;
    int n_shims;
    /* Ops of the list with no kernel for this backend but one for another listed backend:
     * no shim here; at run time the dispatcher's backend fallback runs them (the manifest's
     * "backend_fallback"). Keys as in shim_ops.yaml ("aten.sort.default"). */
    const char **fallback_ops;
    int n_fallback_ops;
    /* Their shims (route 1), and those of listed ops no backend has a kernel for (route 2),
     * in key order: declared in the header with the direct shims, bodies in the same .c
     * file, nothing registered (docs/cuda.md, "Ops without a CUDA kernel"). */
    sg_emit_shim *routed;
    int n_routed;
} sg_emit_header;

/* Backends declared by `backends: [cpu, ...]` in the loaded shim_ops.yaml files (their
 * union, in first-declared order; gen/context.c). Borrowed from the context. */
const char *const *sg_context_backends(const sg_context *ctx, int *n);
/* Adds one (lower case, valid name checked by the caller); duplicates are ignored.
 * name is borrowed for the context's life (arena). Returns 0 or -1 on out-of-memory. */
int sg_context_add_backend(sg_context *ctx, const char *name);

/* ---- Files (gen/emit_fs.c) --------------------------------------------------------- */
/* Reads a whole file into *out (malloc'd, NUL-terminated; free with free()). Returns 0,
 * 1 when the file does not exist (ENOENT, ENOTDIR), -1 on another error (errno kept). */
int sg_fs_read(const char *path, char **out, size_t *len);
/* Creates dir and its parents (like mkdir -p). Returns 0 or -1 (errno kept). */
int sg_fs_mkdirs(const char *dir);

typedef struct sg_out_file {
    const char *path; /* where it goes */
    const char *data; /* full content */
    size_t len;
    bool changed;    /* set by sg_fs_compare: differs from what is on disk */
    const char *old; /* sg_fs_compare: the content on disk (malloc'd) or NULL */
    size_t old_len;
    bool always; /* sg_out_write: written even when unchanged (the --stamp file) */
} sg_out_file;

/* Fills changed/old for each file. Returns 0, or -1 after reporting a read error. */
int sg_fs_compare(sg_context *ctx, sg_out_file *files, int n);
/* Writes every changed file: first all to temporary files beside their targets, then
 * renames them into place; on any failure removes the temporaries and leaves every
 * target as it was. Returns 0 or -1 after reporting. */
int sg_fs_commit(sg_context *ctx, sg_out_file *files, int n);
/* Frees the `old` contents read by sg_fs_compare. */
void sg_fs_release(sg_out_file *files, int n);

/* ---- Output (gen/emit_out.c): what becomes of the rendered files -------------------- */
/* --check: prints each file that would change ("would change" / "would be created"; a
 * short diff when verbosity > 0) and each stale one ("would be removed"). Returns 0
 * (none), 1 (some) or -1 after reporting. */
int sg_out_check(sg_context *ctx, sg_out_file *files, int n, const char *const *stale, int n_stale,
                 int verbosity);
/* --abi-check: compares the declarations of the headers among files with those of the
 * same names in old_dir: a removed function, parameter or changed type or order is an
 * error, an added function a note; every function of a header of old_dir that is not
 * among files was removed. Returns 0, 1 (incompatible) or -1 after reporting. */
int sg_out_abi_check(sg_context *ctx, sg_arena *a, const sg_out_file *files, int n_files,
                     const char *old_dir, int verbosity);
/* The stale files of out_dir: those the shim_manifest.json that shimgen wrote there lists
 * (and that manifest itself) which exist and are not among files. Only a manifest proves
 * that shimgen wrote a file; without one nothing is stale. *stale: full paths (arena).
 * Returns 0 or -1 after reporting. */
int sg_out_stale(sg_context *ctx, sg_arena *a, const char *out_dir, const sg_out_file *files, int n,
                 const char ***stale, int *n_stale);
/* Removes the `<file>.tmp.<pid>.<n>` temporaries beside each of paths left by a process
 * that no longer runs (killed between writing and renaming). */
void sg_out_clean_temps(sg_arena *a, const char *const *paths, int n);
/* Writes the changed files (and those marked `always`) through sg_fs_compare and
 * sg_fs_commit, all or none; then removes the stale ones. With verbosity > 0 a note per
 * file, "written", "unchanged" or "removed". Returns 0 or -1 after reporting. */
int sg_out_write(sg_context *ctx, sg_out_file *files, int n, const char *const *stale, int n_stale,
                 int verbosity);
/* The text of a Make-style depfile: every target depends on every one of deps (in that
 * order), and an empty rule per dep. In arena memory; NULL on out-of-memory. */
const char *sg_out_depfile_text(sg_arena *a, const char *const *targets, int n_targets,
                                const char *const *deps, int n_deps, size_t *len);

/* ---- Declarations read back from a header (gen/emit_abi.c) ---------------------------- */
typedef struct sg_abi_param {
    const char *type, *name;
} sg_abi_param;

typedef struct sg_abi_decl {
    const char *name;
    sg_abi_param *params;
    int n_params;
    sg_loc loc;       /* where it is */
    const char *gate; /* the TORCH_FEATURE_VERSION condition it is under, or NULL */
} sg_abi_decl;

/* Collects every `AOTI_TORCH_EXPORT AOTITorchError name(params);` declaration of a header
 * text (path used for locations). Returns the number found (>= 0) with *out in the arena,
 * or -1 on a malformed declaration (message in err). */
int sg_abi_scan(sg_arena *a, const char *path, const char *text, size_t len, sg_abi_decl **out,
                char *err, size_t err_cap);

#ifdef __cplusplus
}
#endif
#endif

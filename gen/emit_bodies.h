/* gen/emit_bodies.h: what the body emitters share (not part of libshimgen's API).
 *
 * sg_emit_bodies (gen/emit_bodies.c) renders, from the plan of gen/emit.c and the sections of
 * templates/bodies.in, one output family per file:
 *   gen/emit_kernels.c  <key>_kernels.h: the prototype of every kernel the shims call
 *   gen/emit_shims.c    c_shim_<backend>.c: check and convert, call the kernel
 *   gen/emit_aten.c     c_shim_aten.c: pack a stack, call through a cached op handle
 *   gen/emit_boxed.c    c_boxed_<backend>.{h,c}: boxed kernels and registration
 *   gen/emit_derived.c  derived_kernels.c: the kernels of derived (`autogen`) out variants
 * and the helpers below (gen/emit_bodies.c): section rendering, the texts of a shim's
 * parameters, bodies that only fail, and lower versions calling the highest one. */
#ifndef SHIMGEN_EMIT_BODIES_H
#define SHIMGEN_EMIT_BODIES_H
#include "emit.h"

#define BODIES_FILE "bodies.in"

typedef struct bodies {
    sg_context *ctx;
    const sg_model *m;
    sg_arena *a;
    const sg_tpl_set *t;
    const sg_emit_header *headers;
    int n_headers;
    const char *banner;
    sg_emit_sink *sink;
    bool quiet;
    int errors;
    bool reported_missing;
} bodies;

typedef struct kernel_use {
    const sg_emit_shim *shim;
    const char *key, *file;
    const char *params;   /* kernel prototype parameters */
    bool delegated;       /* the kernel is the structured_delegate's */
    bool declared;        /* this use declares it (first of its name) */
    const char *conflict; /* why the shim cannot call it, or NULL */
} kernel_use;

/* Every op of every planned header (fallback and aten), each once, in key order. */
typedef struct def_op {
    const char *key, *ns;
    const sg_emit_shim *shim;
} def_op;

/* ---- Rendering (gen/emit_bodies.c). Strings returned are arena strings, never NULL. -- */
bool bd_has(const bodies *B, const char *section); /* the template set has that section */
/* Appends section (which must exist: else an error is reported once) with its slots. */
void bd_put(bodies *B, sg_buf *out, const char *section, const sg_slot *slots, int n);
const char *bd_str(bodies *B, const char *section, const sg_slot *slots, int n);
const char *bd_join_sep(sg_buf *b);           /* "\n" when b holds something, else "" */
const char *bd_buf_str(bodies *B, sg_buf *b); /* moves b into the arena ("" when empty) */
const char *bd_int(bodies *B, long long v);   /* decimal text */

/* ---- An op's texts ------------------------------------------------------------------- */
const char *bd_def_schema(bodies *B, const sg_native_function *fn); /* without `ns::` */
const char *bd_op_ns(bodies *B, const sg_emit_shim *s);             /* "aten" */
const char *bd_op_name(bodies *B, const sg_schema *s);              /* "add.Tensor" */
/* "AtenTensorHandle self, ..." ("void" when none); with kernel_of, the kernel's types. */
const char *bd_params(bodies *B, const sg_emit_decl *d, const sg_schema *kernel_of);
/* The shim parameter of schema argument a (*param; NULL when the declaration leaves it out)
 * and the section <prefix>_<kind> of its kind (NULL when the template set has none). */
const char *bd_arg_section(bodies *B, const sg_emit_decl *d, const sg_schema *sc, int a,
                           const char *prefix, const sg_cparam **param);
const char *bd_kind_of(const sg_schema *s, const sg_cparam *p); /* sg_arg_kind of its arg */
int bd_alias_arg(const sg_schema *s, int j); /* the argument return j aliases, or -1 */
/* The entry type of parameter p (gen/kinds.h entry_type), or NULL when it has none. */
const char *bd_entry_type(const sg_schema *s, const sg_cparam *p);
/* The name of d's entry ("shimrt_entry_cpu_add_Scalar"), or NULL when no parameter of d
 * has an entry type (the shim is its own entry). */
const char *bd_entry_name(bodies *B, const sg_schema *s, const sg_emit_decl *d);
/* d's parameters with the entry types ("AtenTensorHandle self, shimrt_scalar other, ..."). */
const char *bd_entry_params(bodies *B, const sg_schema *s, const sg_emit_decl *d);
bool bd_returns_handles(const sg_schema *s); /* neither in-place nor out: returns values */

/* ---- Bodies every family uses ---------------------------------------------------------- */
void bd_warn(bodies *B, const sg_emit_shim *s, const char *what, const char *why); /* -q: none */
/* A body that only fails at run time with why (the declaration stays). */
void bd_stub(bodies *B, sg_buf *out, const sg_emit_shim *s, const sg_emit_decl *d, const char *why);
/* A lower version d of s: calls the highest with the defaults of what d leaves out. */
void bd_version_body(bodies *B, sg_buf *out, const sg_emit_shim *s, const sg_emit_decl *d);

/* ---- <key>_kernels.h (gen/emit_kernels.c) --------------------------------------------- */
/* Every (shim, kernel) of the device headers, sorted, with the declaring use of each kernel
 * and the uses whose prototype conflicts; arena array, NULL on out-of-memory. */
kernel_use *bd_plan_kernels(bodies *B, int *n_out);
bool bd_in_list(const char *const *v, int n, const char *s);
void bd_sort_names(const char **v, int n); /* in strcmp order (n is small) */
void bd_emit_kernel_headers(bodies *B, const kernel_use *u, int n);
const kernel_use *bd_find_use(const kernel_use *u, int n, const sg_emit_shim *s);
/* The kernel headers a device header's shims need, in name order (arena array). */
const char **bd_used_files(bodies *B, const sg_emit_header *h, const kernel_use *u, int n_u,
                           int *n_out);

/* ---- The other families -------------------------------------------------------------- */
void bd_emit_shim_c(bodies *B, const sg_emit_header *h, const kernel_use *u, int n_u); /* shims */
void bd_emit_aten_c(bodies *B, const sg_emit_header *h);                               /* aten */
def_op *bd_plan_defs(bodies *B, int *n_out); /* every op once, key order (emit_boxed.c) */
void bd_emit_boxed(bodies *B, const sg_emit_header *h, const def_op *defs, int n_defs);
/* derived_kernels.c: the kernels of derived out variants (gen/emit_derived.c) */
void bd_emit_derived(bodies *B, const kernel_use *u, int n);

#endif

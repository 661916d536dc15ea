/* gen/emit_gen.h: what sg_generate's emitters share (not part of libshimgen's API): the one
 * emitter state, the plan it holds, and one render entry per output family.
 *
 * gen/emit.c holds sg_generate, the driver: it loads the template sets, makes the plan, calls
 * each family's entry once per output and writes the files. Nothing calls back into it:
 *   gen/emit_plan.c      the plan: per header the ops in key order, kernels, declarations;
 *                        the kernels the device headers call; every op once (definitions)
 *   gen/emit_render.c    rendering a section of a template set, adding an output file
 *   gen/emit_pieces.c    the texts several families share: parameter lists, the section of
 *                        an argument's kind, bodies that only fail, lower versions
 * and the families, one file each, with the template set each reads (templates/):
 *   gen/emit_headers.c   c_shim_<backend>.h, c_shim_aten.h (both modes)   headers.in
 *   gen/emit_kernels.c   <key>_kernels.h: every kernel prototype             bodies.in
 *   gen/emit_derived.c   derived_kernels.c: derived (`autogen`) out kernels  bodies.in
 *   gen/emit_shims.c     c_shim_<backend>.c: check and convert, call kernel  bodies.in
 *   gen/emit_boxed.c     c_boxed_<backend>.{h,c}: boxed kernels, registration bodies.in
 *   gen/emit_aten.c      c_shim_aten.c: through the dispatcher              bodies.in
 *   gen/emit_torch.c     --target=torch: the support files                   torch/torch.in
 *   gen/emit_manifest.c  shim_manifest.json                                  manifest.in
 * Every template file is a set of named sections with {{slot}} holes (gen/template.c). */
#ifndef SHIMGEN_EMIT_GEN_H
#define SHIMGEN_EMIT_GEN_H
#include "emit.h"

/* One (shim, kernel) of a device header (the plan of emit_plan.c). */
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

/* The emitter: everything the plan and the families read and write. */
typedef struct emitter {
    sg_context *ctx;
    const sg_model *m;
    sg_arena *a;
    const sg_options *o;
    const char *out_dir;
    bool quiet; /* -q: no warnings about bodies that only fail */
    /* The template sets (templates/), each NULL when the mode reads none. */
    const sg_tpl_set *tpl_headers, *tpl_manifest, *tpl_bodies, *tpl_torch;
    bool tpl_reported; /* a broken template is reported once */
    /* The plan. */
    sg_emit_header *headers;
    int n_headers;
    kernel_use *uses; /* of the device headers, sorted (em_plan_kernels) */
    int n_uses;
    def_op *defs; /* em_plan_defs */
    int n_defs;
    /* What rendering makes. */
    const char *banner; /* the input files, as the banners list them */
    sg_out_file *files;
    int n_files, cap_files;
    sg_buf registrations; /* the manifest's registration functions (JSON, ",\n" between) */
    int errors;
} emitter;

/* ---- Rendering (gen/emit_render.c). Strings returned are arena strings, never NULL. ---- */
bool em_has(const sg_tpl_set *t, const char *section); /* the set has that section */
/* Appends section of set t with its slots; a missing section or a slot the call does not
 * give is an error (reported once) and marks out as failed. */
void em_put(emitter *e, const sg_tpl_set *t, sg_buf *out, const char *section, const sg_slot *slots,
            int n);
const char *em_str(emitter *e, const sg_tpl_set *t, const char *section, const sg_slot *slots,
                   int n);
const char *em_join_sep(sg_buf *b);            /* "\n" when b holds something, else "" */
const char *em_buf_str(emitter *e, sg_buf *b); /* moves b into the arena ("" when empty) */
const char *em_int(emitter *e, long long v);   /* decimal text */
/* Takes the content of output file `name` (relative to the output dir; content emptied). */
void em_add_file(emitter *e, const char *name, sg_buf *content);

/* ---- The plan (gen/emit_plan.c) ---------------------------------------------------------- */
int em_cmp_op_key(const void *x, const void *y);
void em_plan_header(emitter *e, sg_emit_header *h, const sg_shim_op **ops, int n_ops);
/* e->uses: every (shim, kernel) of the device headers, sorted, with the declaring use of
 * each kernel and the uses whose prototype conflicts. e->defs: every op once, key order.
 * Each returns 0, or -1 on out-of-memory. */
int em_plan_kernels(emitter *e);
int em_plan_defs(emitter *e);
const kernel_use *em_find_use(const emitter *e, const sg_emit_shim *s);
/* Every shim of a header, direct and routed, in key order (arena). */
const sg_emit_shim **em_header_shims(emitter *e, const sg_emit_header *h, int *n_out);
/* Whether op goes into backend's header (its `backends:` list, else every backend). */
bool em_op_on_backend(const sg_shim_op *op, const char *backend);
/* The body of a shim routed through the dispatcher (emit_aten.c). */
void em_put_aten_body(emitter *e, sg_buf *out, const sg_emit_shim *s);
/* The kernel headers a device header's shims need, in name order (arena array). */
const char **em_used_files(emitter *e, const sg_emit_header *h, int *n_out);
const char *em_kernel_file(emitter *e, const char *key); /* "<key>_kernels.h" */
bool em_in_list(const char *const *v, int n, const char *s);
void em_sort_names(const char **v, int n); /* in strcmp order (n is small) */

/* ---- An op's texts (gen/emit_pieces.c) -------------------------------------------------- */
const char *em_def_schema(emitter *e, const sg_native_function *fn); /* without `ns::` */
const char *em_op_ns(emitter *e, const sg_emit_shim *s);             /* "aten" */
const char *em_op_name(emitter *e, const sg_schema *s);              /* "add.Tensor" */
const char *em_boxed_name(emitter *e, const sg_emit_shim *s);        /* "boxed_cpu_add_Tensor" */
/* "AtenTensorHandle self, ..." ("void" when none); with kernel_of, the kernel's types. */
const char *em_params(emitter *e, const sg_emit_decl *d, const sg_schema *kernel_of);
/* The shim parameter of schema argument a (*param; NULL when the declaration leaves it out)
 * and the section <prefix>_<kind> of bodies.in for its kind (NULL when there is none). */
const char *em_arg_section(emitter *e, const sg_emit_decl *d, const sg_schema *sc, int a,
                           const char *prefix, const sg_cparam **param);
const char *em_kind_of(const sg_schema *s, const sg_cparam *p); /* sg_arg_kind of its arg */
int em_alias_arg(const sg_schema *s, int j); /* the argument return j aliases, or -1 */
/* The entry type of parameter p (gen/kinds.h entry_type), or NULL when it has none. */
const char *em_entry_type(const sg_schema *s, const sg_cparam *p);
/* The name of d's entry ("shimrt_entry_cpu_add_Scalar"), or NULL when no parameter of d
 * has an entry type (the shim is its own entry). */
const char *em_entry_name(emitter *e, const sg_schema *s, const sg_emit_decl *d);
/* d's parameters with the entry types ("AtenTensorHandle self, shimrt_scalar other, ..."). */
const char *em_entry_params(emitter *e, const sg_schema *s, const sg_emit_decl *d);
bool em_returns_handles(const sg_schema *s); /* neither in-place nor out: returns values */
void em_warn(emitter *e, const sg_emit_shim *s, const char *what, const char *why); /* -q: none */
/* A body that only fails at run time with why (the declaration stays). */
void em_stub(emitter *e, sg_buf *out, const sg_emit_shim *s, const sg_emit_decl *d,
             const char *why);
/* A lower version d of s: calls the highest with the defaults of what d leaves out. */
void em_version_body(emitter *e, sg_buf *out, const sg_emit_shim *s, const sg_emit_decl *d);

/* ---- The families: each renders its files and adds them (em_add_file) -------------------- */
const char *em_render_banner(emitter *e); /* emit_headers.c: the input lines */
void em_render_compat_header(emitter *e, const sg_emit_header *h); /* emit_headers.c */
void em_render_header(emitter *e, const sg_emit_header *h);        /* emit_headers.c */
void em_render_kernel_headers(emitter *e);                         /* emit_kernels.c */
void em_render_derived(emitter *e);                                /* emit_derived.c */
void em_render_shim_c(emitter *e, const sg_emit_header *h);        /* emit_shims.c */
void em_render_boxed(emitter *e, const sg_emit_header *h);         /* emit_boxed.c */
void em_render_aten_c(emitter *e, const sg_emit_header *h);        /* emit_aten.c */
/* emit_torch.c: checks the planned ops against what the target PyTorch carries, then adds
 * shimrt/shimrt.h, shimrt/shim_support.h, shimrt/codes.h, shimgen_torch_support.c and
 * shimgen_torch_boundary.cc. */
void em_render_torch(emitter *e);
void em_render_manifest(emitter *e); /* emit_manifest.c */

#endif

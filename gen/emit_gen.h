/* gen/emit_gen.h: what sg_generate's emitters share (not part of libshimgen's API): the
 * emitter state, the templates by role, and one entry per output family over the plan:
 *   gen/emit_plan.c      the plan: per header the ops in key order, kernels, declarations
 *   gen/emit_headers.c   c_shim_<backend>.h, c_shim_aten.h (default and compat mode)
 *   gen/emit_bodies.c    everything behind the headers (emit_bodies.h)
 *   gen/emit_manifest.c  shim_manifest.json
 *   gen/emit_out.c       --check, --abi-check, writing, the depfile
 * gen/emit.c holds sg_generate, which runs them in that order. */
#ifndef SHIMGEN_EMIT_GEN_H
#define SHIMGEN_EMIT_GEN_H
#include "emit.h"

typedef sg_emit_decl decl;
typedef sg_emit_shim shim;
typedef sg_emit_header header;

/* The templates, by role. */
enum {
    T_COMPAT_HEADER,
    T_COMPAT_ATEN_NOTE,
    T_HEADER,
    T_BANNER_INPUT,
    T_VERSION_MACRO,
    T_DECL,
    T_DECL_GATED,
    T_OP_BLOCK,
    T_MANIFEST,
    T_MANIFEST_FUNCTION,
    T_MANIFEST_PARAM,
    T_MANIFEST_STRING,
    T_MANIFEST_KERNEL,
    T_COUNT_
};

typedef struct emitter {
    sg_context *ctx;
    const sg_model *m;
    sg_arena *a;
    const sg_options *o;
    const char *out_dir;
    const sg_template *t[T_COUNT_];
    header *headers;
    int n_headers;
    sg_out_file *files;
    int n_files, cap_files;
    int errors;
    bool tpl_reported[T_COUNT_]; /* a broken template is reported once */
    const char *extra_deps[8];   /* template files the body emitters read */
    int n_extra_deps;
    sg_buf registrations; /* the manifest's registration functions (JSON) */
    const char *banner;   /* the input files, as the banners list them */
} emitter;

/* The template file of each role (T_*). */
extern const char *const em_template_files[T_COUNT_];

void em_render(emitter *e, int which, sg_buf *out, const sg_slot *slots, int n);
void em_add_file(emitter *e, const char *name, sg_buf *content);
int em_cmp_op_key(const void *x, const void *y);
void em_plan_header(emitter *e, header *h, const sg_shim_op **ops, int n_ops);
void em_render_compat_header(emitter *e, const header *h);
void em_render_header(emitter *e, const header *h);
void em_render_manifest(emitter *e);

#endif

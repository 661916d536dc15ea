/* gen/emit_headers.c: the headers, c_shim_<backend>.h and c_shim_aten.h, from the plan and
 * the sections of templates/headers.in: in the default mode with a banner, an include guard
 * and one commented block per op, in --compat=torchgen mode with PyTorch's exact text
 * (docs/shim-rules.md, "Header text"). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_gen.h"

/* ---- Rendering ----------------------------------------------------------------------- */
/* The banner's list of input files, one banner_input per input (every family's banner). */
const char *em_render_banner(emitter *e) {
    sg_buf inputs = {0};
    for (size_t i = 0; i < e->m->n_inputs; i++) {
        if (i) sg_buf_putc(&inputs, '\n');
        em_put(e, e->tpl_headers, &inputs, "banner_input",
               SLOTS({"path", sg_text_comment_safe(e->a, e->m->inputs[i].recorded), 0}));
    }
    return em_buf_str(e, &inputs);
}

static const char *version_macro(emitter *e, const sg_emit_decl *d) {
    return sg_arena_printf(e->a, "TORCH_VERSION_%d_%d_0", d->since_major, d->since_minor);
}

static void params_text(sg_buf *b, const sg_emit_decl *d, bool compat) {
    if (d->n_params == 0 && !compat) sg_buf_puts(b, "void");
    for (int i = 0; i < d->n_params; i++) {
        if (i) sg_buf_put(b, ", ", 2);
        sg_buf_puts(b, d->params[i].type);
        sg_buf_putc(b, ' ');
        sg_buf_puts(b, d->params[i].name);
    }
}

/* One declaration line, gated when the declaration has `since` (its version's, else the op's). */
static void render_decl(emitter *e, sg_buf *out, const sg_emit_shim *s, const sg_emit_decl *d) {
    sg_buf params = {0}, line = {0};
    (void)s;
    params_text(&params, d, e->o->compat_torchgen);
    em_put(e, e->tpl_headers, d->since ? &line : out, "decl",
           SLOTS({"name", d->c_name, 0}, {"params", params.data ? params.data : "", params.len}));
    if (d->since) {
        em_put(e, e->tpl_headers, out, "decl_gated",
               SLOTS({"version_macro", version_macro(e, d), 0},
                     {"declaration", line.data ? line.data : "", line.len}));
    }
    sg_buf_free(&params);
    sg_buf_free(&line);
}

void em_render_compat_header(emitter *e, const sg_emit_header *h) {
    sg_buf decls = {0}, note = {0}, out = {0};
    for (int i = 0; i < h->n_shims; i++)
        for (int d = 0; d < h->shims[i].n_decls; d++) {
            if (decls.len) sg_buf_putc(&decls, '\n');
            render_decl(e, &decls, &h->shims[i], &h->shims[i].decls[d]);
        }
    if (!h->dispatch_key) em_put(e, e->tpl_headers, &note, "c_shim_compat_aten_note", NULL, 0);
    em_put(e, e->tpl_headers, &out, "c_shim_compat_h",
           SLOTS({"aten_note", note.data ? note.data : "", note.len},
                 {"declarations", decls.data ? decls.data : "", decls.len}));
    sg_buf_free(&decls);
    sg_buf_free(&note);
    em_add_file(e, h->file, &out);
}

void em_render_header(emitter *e, const sg_emit_header *h) {
    sg_buf macros = {0}, decls = {0}, out = {0};
    /* The release macros the gates use, in first-use order, each once. */
    const sg_emit_decl *seen[64];
    int n_seen = 0;
    int n_all = 0;
    const sg_emit_shim **shims = em_header_shims(e, h, &n_all);
    if (!shims) return;
    for (int i = 0; i < n_all; i++)
        for (int d = 0; d < shims[i]->n_decls; d++) {
            const sg_emit_decl *op = &shims[i]->decls[d];
            if (!op->since) continue;
            bool dup = false;
            for (int k = 0; k < n_seen && !dup; k++)
                dup = seen[k]->since_major == op->since_major &&
                      seen[k]->since_minor == op->since_minor;
            if (dup) continue;
            if (n_seen < 64) seen[n_seen++] = op;
            sg_buf_putc(&macros, '\n');
            char maj[16], min[16];
            snprintf(maj, sizeof maj, "%d", op->since_major);
            snprintf(min, sizeof min, "%d", op->since_minor);
            em_put(e, e->tpl_headers, &macros, "version_macro",
                   SLOTS({"macro", version_macro(e, op), 0}, {"major", maj, 0}, {"minor", min, 0},
                         {"patch", "0", 0}));
        }
    if (macros.len) sg_buf_putc(&macros, '\n');
    for (int i = 0; i < n_all; i++) {
        const sg_emit_shim *s = shims[i];
        sg_buf group = {0};
        for (int d = 0; d < s->n_decls; d++) {
            if (d) sg_buf_putc(&group, '\n');
            render_decl(e, &group, s, &s->decls[d]);
        }
        if (i) sg_buf_put(&decls, "\n\n", 2);
        em_put(e, e->tpl_headers, &decls, "op_block",
               SLOTS({"op", s->op->key, 0},
                     {"schema", sg_text_comment_safe(e->a, sg_text_schema(e->a, s->fn)), 0},
                     {"declarations", group.data ? group.data : "", group.len}));
        sg_buf_free(&group);
    }
    const char *desc =
        h->dispatch_key
            ? sg_arena_printf(e->a, "C shims calling the %s kernels of the listed ops directly",
                              h->dispatch_key)
            : "C shims calling the listed ATen ops through the dispatcher";
    em_put(e, e->tpl_headers, &out, "c_shim_h",
           SLOTS({"file", h->file, 0}, {"description", desc, 0},
                 {"generator", "shimgen " SHIMGEN_VERSION, 0}, {"inputs", e->banner, 0},
                 {"guard", sg_text_guard(e->a, h->file), 0},
                 {"version_macros", macros.data ? macros.data : "", macros.len},
                 {"declarations", decls.data ? decls.data : "", decls.len}));
    sg_buf_free(&macros);
    sg_buf_free(&decls);
    em_add_file(e, h->file, &out);
}

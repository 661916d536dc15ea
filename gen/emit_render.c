/* gen/emit_render.c: what every output family renders with: a section of a template set
 * (a file of templates/, gen/template.c) filled from its slots, into a buffer or an arena string,
 * and the list of output files. A broken template (a missing section, a slot the emitter
 * does not give) is an error, reported once, and the output it was rendering is dropped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_gen.h"

bool em_has(const sg_tpl_set *t, const char *section) { return sg_tpl_set_get(t, section) != NULL; }

void em_put(emitter *e, const sg_tpl_set *t, sg_buf *out, const char *section, const sg_slot *slots,
            int n) {
    const sg_template *s = sg_tpl_set_get(t, section);
    const char *missing = NULL;
    if (s && sg_tpl_render(s, out, slots, n, &missing) == 0) return;
    out->oom = true; /* stop filling this output */
    if (e->tpl_reported) return;
    e->tpl_reported = true;
    const char *path = sg_tpl_set_path(t);
    sg_loc loc = {path ? path : "templates", 0, 0};
    if (!s)
        sg_diag(e->ctx, SG_DIAG_ERROR, loc, "template set has no section '%s'", section);
    else
        sg_diag(e->ctx, SG_DIAG_ERROR, loc, "section '%s' uses the unknown slot {{%s}}", section,
                missing);
    e->errors++;
}

const char *em_str(emitter *e, const sg_tpl_set *t, const char *section, const sg_slot *slots,
                   int n) {
    sg_buf b = {0};
    em_put(e, t, &b, section, slots, n);
    return em_buf_str(e, &b);
}

const char *em_join_sep(sg_buf *b) { return b->len ? "\n" : ""; }

const char *em_buf_str(emitter *e, sg_buf *b) {
    if (!b->len || b->oom) {
        sg_buf_free(b);
        return "";
    }
    const char *s = sg_buf_to_arena(b, e->a);
    return s ? s : "";
}

const char *em_int(emitter *e, long long v) { return sg_arena_printf(e->a, "%lld", v); }

void em_add_file(emitter *e, const char *name, sg_buf *content) {
    if (content->oom) {
        if (!e->errors) {
            sg_diag(e->ctx, SG_DIAG_ERROR, (sg_loc){name, 0, 0}, "out of memory");
            e->errors++;
        }
        sg_buf_free(content);
        return;
    }
    if (e->n_files == e->cap_files) {
        int cap = e->cap_files ? 2 * e->cap_files : 8;
        sg_out_file *f = sg_arena_alloc(e->a, sizeof *f * (size_t)cap);
        if (!f) return;
        if (e->n_files) memcpy(f, e->files, sizeof *f * (size_t)e->n_files);
        e->files = f;
        e->cap_files = cap;
    }
    sg_out_file *f = &e->files[e->n_files++];
    memset(f, 0, sizeof *f);
    f->path = sg_arena_printf(e->a, "%s/%s", e->out_dir, name);
    f->len = content->len;
    f->data = sg_buf_to_arena(content, e->a);
}

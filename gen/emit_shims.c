/* gen/emit_shims.c: c_shim_<backend>.c, the direct shims: each checks its handles, lists
 * and return pointers, converts to the kernel form and calls its kernel (emit_gen.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shimrt/codes.h>

#include "emit_gen.h"

/* ---- c_shim_<backend>.c ------------------------------------------------------------------ */
static const char *karg_section(emitter *e, const char *kind) {
    const char *sec = sg_arena_printf(e->a, "karg_%s", kind);
    if (sec && em_has(e->tpl_bodies, sec)) return sec;
    size_t n = strlen(kind);
    return n > 5 && strcmp(kind + n - 5, "_list") == 0 ? "karg_list" : "karg_one";
}

static void put_shim_body(emitter *e, sg_buf *out, const sg_emit_shim *s, const kernel_use *use) {
    const sg_emit_decl *d = &s->decls[0];
    const sg_schema *sc = s->fn->func;
    if (use && use->conflict) {
        em_warn(e, s, d->c_name, use->conflict);
        em_stub(e, out, s, d, use->conflict);
        const char *entry = em_entry_name(e, sc, d);
        sg_cparam *ep = entry ? sg_arena_alloc(e->a, sizeof *ep * (size_t)d->n_params) : NULL;
        if (!ep) return;
        /* the entry the boxed kernel calls fails the same way */
        sg_emit_decl ed = *d;
        ed.c_name = entry;
        ed.params = ep;
        for (int i = 0; i < d->n_params; i++) {
            const char *et = em_entry_type(sc, &d->params[i]);
            ep[i] = d->params[i];
            if (et) ep[i].type = et;
        }
        sg_buf_put(out, "\n\n", 2);
        em_stub(e, out, s, &ed, use->conflict);
        return;
    }
    /* A shim with an argument of an entry type (a Scalar) wraps its entry: the wrapper
     * converts those arguments (karg_<kind>), the entry has the body below and takes them
     * in the kernel form, which it passes on as they are. */
    const char *entry = em_entry_name(e, sc, d);
    sg_buf checks = {0}, arrays = {0}, fills = {0}, frees = {0}, args = {0}, wargs = {0};
    for (int i = 0; i < d->n_params; i++) {
        if (entry) {
            const sg_cparam *p = &d->params[i];
            const char *wsec = em_entry_type(sc, p)
                                   ? sg_arena_printf(e->a, "karg_%s", em_kind_of(sc, p))
                                   : "karg_one";
            if (wargs.len) sg_buf_put(&wargs, ", ", 2);
            em_put(e, e->tpl_bodies, &wargs, wsec, SLOTS({"name", p->name, 0}));
        }
    }
    for (int i = 0; i < d->n_params; i++) {
        const sg_cparam *p = &d->params[i];
        if (p->role == SG_CP_LEN || p->role == SG_CP_DEVICE_INDEX) continue;
        const char *kind = p->role == SG_CP_RET ? "ret" : em_kind_of(sc, p);
        const sg_slot nm[] = {{"name", p->name, 0}};
        const char *sec = sg_arena_printf(e->a, "check_%s", kind);
        if (em_has(e->tpl_bodies, sec)) {
            em_put(e, e->tpl_bodies, &checks, sec, nm, 1);
            sg_buf_putc(&checks, '\n');
        }
        sec = sg_arena_printf(e->a, "array_decl_%s", kind);
        if (em_has(e->tpl_bodies, sec)) {
            em_put(e, e->tpl_bodies, &arrays, sec, nm, 1);
            sg_buf_putc(&arrays, '\n');
            em_put(e, e->tpl_bodies, &fills, sg_arena_printf(e->a, "array_fill_%s", kind), nm, 1);
            sg_buf_putc(&fills, '\n');
            em_put(e, e->tpl_bodies, &frees, sg_arena_printf(e->a, "array_free_%s", kind), nm, 1);
            sg_buf_putc(&frees, '\n');
        }
        if (args.len) sg_buf_put(&args, ", ", 2);
        em_put(e, e->tpl_bodies, &args,
               p->role == SG_CP_RET   ? "karg_ret"
               : em_entry_type(sc, p) ? "karg_one"
                                      : karg_section(e, kind),
               nm, 1);
    }
    bool with_arrays = arrays.len > 0;
    const char *checks_text = em_buf_str(e, &checks);
    const sg_slot slots[] = {
        {"op", s->op->key, 0},
        {"schema", sg_text_comment_safe(e->a, sg_text_schema(e->a, s->fn)), 0},
        {"kernel", s->kernel, 0},
        {"key", s->kernel_key, 0},
        {"name", entry ? entry : d->c_name, 0},
        {"params", entry ? em_entry_params(e, sc, d) : em_params(e, d, NULL), 0},
        {"checks", checks_text, 0},
        {"arrays", em_buf_str(e, &arrays), 0},
        {"fills", em_buf_str(e, &fills), 0},
        {"frees", em_buf_str(e, &frees), 0},
        {"args", em_buf_str(e, &args), 0},
    };
    em_put(e, e->tpl_bodies, out, with_arrays ? "shim_body_arrays" : "shim_body", slots,
           (int)(sizeof slots / sizeof *slots));
    if (!entry) return;
    sg_buf_put(out, "\n\n", 2);
    em_put(e, e->tpl_bodies, out, "shim_body_wrapper",
           SLOTS({"op", s->op->key, 0}, {"name", d->c_name, 0},
                 {"params", em_params(e, d, NULL), 0}, {"checks", checks_text, 0},
                 {"entry", entry, 0}, {"args", em_buf_str(e, &wargs), 0}));
}

void em_render_shim_c(emitter *e, const sg_emit_header *h) {
    sg_buf includes = {0}, out = {0}, all = {0};
    /* The kernel headers this file needs, in name order, each once. */
    int n_used = 0;
    const char **used = em_used_files(e, h, &n_used);
    for (int k = 0; used && k < n_used; k++) {
        sg_buf_puts(&includes, em_join_sep(&includes));
        em_put(e, e->tpl_bodies, &includes, "include", SLOTS({"file", used[k], 0}));
    }
    int n_all = 0;
    const sg_emit_shim **shims = em_header_shims(e, h, &n_all);
    for (int i = 0; shims && i < n_all; i++) {
        const sg_emit_shim *s = shims[i];
        for (int d = 0; d < s->n_decls; d++) {
            if (all.len) sg_buf_put(&all, "\n\n", 2);
            if (d == 0 && s->route == 1)
                em_put_aten_body(e, &all, s);
            else if (d == 0 && s->route == 2)
                em_stub(e, &all, s, &s->decls[0],
                        sg_arena_printf(e->a,
                                        "Could not run '%s::%s' with arguments from the '%s' "
                                        "backend: libshimrt has no %s kernel for it and no CPU "
                                        "kernel to fall back to (docs/cuda.md)",
                                        s->fn->func->ns ? s->fn->func->ns : "aten",
                                        s->fn->func->name, h->dispatch_key, h->dispatch_key));
            else if (d == 0)
                put_shim_body(e, &all, s, em_find_use(e, s));
            else
                em_version_body(e, &all, s, &s->decls[d]);
        }
    }
    const char *file = sg_arena_printf(e->a, "c_shim_%s.c", h->backend);
    em_put(e, e->tpl_bodies, &out, "shim_c",
           SLOTS({"file", file, 0}, {"backend", h->backend, 0},
                 {"generator", "shimgen " SHIMGEN_VERSION, 0}, {"inputs", e->banner, 0},
                 {"header", h->file, 0}, {"includes", em_buf_str(e, &includes), 0},
                 {"bodies", em_buf_str(e, &all), 0}));
    em_add_file(e, file, &out);
}

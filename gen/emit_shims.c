/* gen/emit_shims.c: c_shim_<backend>.c, the direct shims: each checks its handles, lists
 * and return pointers, converts to the kernel form and calls its kernel (see emit_bodies.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shimrt/codes.h>

#include "emit_bodies.h"

/* ---- c_shim_<backend>.c ------------------------------------------------------------------ */
static const char *karg_section(bodies *B, const char *kind) {
    const char *sec = sg_arena_printf(B->a, "karg_%s", kind);
    if (sec && bd_has(B, sec)) return sec;
    size_t n = strlen(kind);
    return n > 5 && strcmp(kind + n - 5, "_list") == 0 ? "karg_list" : "karg_one";
}

static void put_shim_body(bodies *B, sg_buf *out, const sg_emit_shim *s, const kernel_use *use) {
    const sg_emit_decl *d = &s->decls[0];
    const sg_schema *sc = s->fn->func;
    if (use && use->conflict) {
        bd_warn(B, s, d->c_name, use->conflict);
        bd_stub(B, out, s, d, use->conflict);
        const char *entry = bd_entry_name(B, sc, d);
        sg_cparam *ep = entry ? sg_arena_alloc(B->a, sizeof *ep * (size_t)d->n_params) : NULL;
        if (!ep) return;
        /* the entry the boxed kernel calls fails the same way */
        sg_emit_decl e = *d;
        e.c_name = entry;
        e.params = ep;
        for (int i = 0; i < d->n_params; i++) {
            const char *et = bd_entry_type(sc, &d->params[i]);
            ep[i] = d->params[i];
            if (et) ep[i].type = et;
        }
        sg_buf_put(out, "\n\n", 2);
        bd_stub(B, out, s, &e, use->conflict);
        return;
    }
    /* A shim with an argument of an entry type (a Scalar) wraps its entry: the wrapper
     * converts those arguments (karg_<kind>), the entry has the body below and takes them
     * in the kernel form, which it passes on as they are. */
    const char *entry = bd_entry_name(B, sc, d);
    sg_buf checks = {0}, arrays = {0}, fills = {0}, frees = {0}, args = {0}, wargs = {0};
    for (int i = 0; i < d->n_params; i++) {
        if (entry) {
            const sg_cparam *p = &d->params[i];
            const char *wsec = bd_entry_type(sc, p)
                                   ? sg_arena_printf(B->a, "karg_%s", bd_kind_of(sc, p))
                                   : "karg_one";
            if (wargs.len) sg_buf_put(&wargs, ", ", 2);
            bd_put(B, &wargs, wsec, SLOTS({"name", p->name, 0}));
        }
    }
    for (int i = 0; i < d->n_params; i++) {
        const sg_cparam *p = &d->params[i];
        if (p->role == SG_CP_LEN || p->role == SG_CP_DEVICE_INDEX) continue;
        const char *kind = p->role == SG_CP_RET ? "ret" : bd_kind_of(sc, p);
        const sg_slot nm[] = {{"name", p->name, 0}};
        const char *sec = sg_arena_printf(B->a, "check_%s", kind);
        if (bd_has(B, sec)) {
            bd_put(B, &checks, sec, nm, 1);
            sg_buf_putc(&checks, '\n');
        }
        sec = sg_arena_printf(B->a, "array_decl_%s", kind);
        if (bd_has(B, sec)) {
            bd_put(B, &arrays, sec, nm, 1);
            sg_buf_putc(&arrays, '\n');
            bd_put(B, &fills, sg_arena_printf(B->a, "array_fill_%s", kind), nm, 1);
            sg_buf_putc(&fills, '\n');
            bd_put(B, &frees, sg_arena_printf(B->a, "array_free_%s", kind), nm, 1);
            sg_buf_putc(&frees, '\n');
        }
        if (args.len) sg_buf_put(&args, ", ", 2);
        bd_put(B, &args,
               p->role == SG_CP_RET   ? "karg_ret"
               : bd_entry_type(sc, p) ? "karg_one"
                                      : karg_section(B, kind),
               nm, 1);
    }
    bool with_arrays = arrays.len > 0;
    const char *checks_text = bd_buf_str(B, &checks);
    const sg_slot slots[] = {
        {"op", s->op->key, 0},
        {"schema", sg_text_comment_safe(B->a, sg_text_schema(B->a, s->fn)), 0},
        {"kernel", s->kernel, 0},
        {"key", s->kernel_key, 0},
        {"name", entry ? entry : d->c_name, 0},
        {"params", entry ? bd_entry_params(B, sc, d) : bd_params(B, d, NULL), 0},
        {"checks", checks_text, 0},
        {"arrays", bd_buf_str(B, &arrays), 0},
        {"fills", bd_buf_str(B, &fills), 0},
        {"frees", bd_buf_str(B, &frees), 0},
        {"args", bd_buf_str(B, &args), 0},
    };
    bd_put(B, out, with_arrays ? "shim_body_arrays" : "shim_body", slots,
           (int)(sizeof slots / sizeof *slots));
    if (!entry) return;
    sg_buf_put(out, "\n\n", 2);
    bd_put(B, out, "shim_body_wrapper",
           SLOTS({"op", s->op->key, 0}, {"name", d->c_name, 0},
                 {"params", bd_params(B, d, NULL), 0}, {"checks", checks_text, 0},
                 {"entry", entry, 0}, {"args", bd_buf_str(B, &wargs), 0}));
}

void bd_emit_shim_c(bodies *B, const sg_emit_header *h, const kernel_use *u, int n_u) {
    sg_buf includes = {0}, out = {0}, all = {0};
    /* The kernel headers this file needs, in name order, each once. */
    int n_used = 0;
    const char **used = bd_used_files(B, h, u, n_u, &n_used);
    for (int k = 0; used && k < n_used; k++) {
        sg_buf_puts(&includes, bd_join_sep(&includes));
        bd_put(B, &includes, "include", SLOTS({"file", used[k], 0}));
    }
    for (int i = 0; i < h->n_shims; i++) {
        const sg_emit_shim *s = &h->shims[i];
        for (int d = 0; d < s->n_decls; d++) {
            if (all.len) sg_buf_put(&all, "\n\n", 2);
            if (d == 0)
                put_shim_body(B, &all, s, bd_find_use(u, n_u, s));
            else
                bd_version_body(B, &all, s, &s->decls[d]);
        }
    }
    const char *file = sg_arena_printf(B->a, "c_shim_%s.c", h->backend);
    bd_put(B, &out, "shim_c",
           SLOTS({"file", file, 0}, {"backend", h->backend, 0},
                 {"generator", "shimgen " SHIMGEN_VERSION, 0}, {"inputs", B->banner, 0},
                 {"header", h->file, 0}, {"includes", bd_buf_str(B, &includes), 0},
                 {"bodies", bd_buf_str(B, &all), 0}));
    B->sink->add_file(B->sink->user, file, &out);
}

/* gen/emit_aten.c: c_shim_aten.c, the dispatcher-routed shims: each packs a StableIValue
 * stack and calls through a cached op handle (emit_gen.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shimrt/codes.h>

#include "emit_gen.h"

/* ---- c_shim_aten.c ------------------------------------------------------------------------ */
/* Index of the argument return j aliases (`Tensor(a!)` in both), or -1. */
void em_put_aten_body(emitter *e, sg_buf *out, const sg_emit_shim *s) {
    const sg_emit_decl *d = &s->decls[0];
    const sg_schema *sc = s->fn->func;
    sg_buf checks = {0}, packs = {0}, pops = {0};
    const char *why = NULL;
    /* Packs, in schema order (the shim's order puts out arguments first). */
    for (int a = 0; a < sc->n_args && !why; a++) {
        const sg_cparam *p = NULL;
        const char *sec = em_arg_section(e, d, sc, a, "pack", &p);
        if (!p || !sec) {
            why = sg_arena_printf(
                e->a, "argument '%s' of type '%s' cannot be passed through the dispatcher",
                sc->args[a].name, sg_text_type(e->a, sc->args[a].type));
            break;
        }
        em_put(e, e->tpl_bodies, &packs, sec, SLOTS({"name", p->name, 0}));
        sg_buf_putc(&packs, '\n');
    }
    bool rets = em_returns_handles(sc);
    for (int j = 0; j < sc->n_rets && !why; j++) {
        const char *jj = em_int(e, j);
        if (!rets) {
            const sg_kind_info *rk = sg_kind_get(sg_kind_of_arg(sc->rets[j].type));
            if (!rk) {
                why = sg_arena_printf(e->a, "return %d of type '%s' cannot be dropped", j,
                                      sg_text_type(e->a, sc->rets[j].type));
                break;
            }
            em_put(e, e->tpl_bodies, &pops, "pop_discard",
                   SLOTS({"kind", sg_kind_code_name(rk), 0}, {"j", jj, 0}));
            sg_buf_putc(&pops, '\n');
            continue;
        }
        const char *name = sg_arena_printf(e->a, "ret%d", j);
        const char *kind = sg_ret_kind(sc->rets[j].type);
        const char *sec = kind ? sg_arena_printf(e->a, "pop_%s", kind) : NULL;
        if (!sec || !em_has(e->tpl_bodies, sec)) {
            why = sg_arena_printf(e->a,
                                  "return %d of type '%s' cannot come back through the dispatcher",
                                  j, sg_text_type(e->a, sc->rets[j].type));
            break;
        }
        em_put(e, e->tpl_bodies, &checks, "check_ret", SLOTS({"name", name, 0}));
        sg_buf_putc(&checks, '\n');
        em_put(e, e->tpl_bodies, &pops, sec, SLOTS({"name", name, 0}, {"j", jj, 0}));
        sg_buf_putc(&pops, '\n');
    }
    if (why) {
        sg_buf_free(&checks);
        sg_buf_free(&packs);
        sg_buf_free(&pops);
        em_warn(e, s, d->c_name, why);
        em_stub(e, out, s, d, why);
        return;
    }
    int size = sc->n_args > sc->n_rets ? sc->n_args : sc->n_rets;
    const char *qname = sg_arena_printf(e->a, "%s::%s", sc->ns ? sc->ns : "aten", sc->name);
    const sg_slot slots[] = {
        {"op", s->op->key, 0},
        {"schema", sg_text_comment_safe(e->a, sg_text_schema(e->a, s->fn)), 0},
        {"name", d->c_name, 0},
        {"params", em_params(e, d, NULL), 0},
        {"stack_size", em_int(e, size ? size : 1), 0},
        {"checks", em_buf_str(e, &checks), 0},
        {"packs", em_buf_str(e, &packs), 0},
        {"pops", em_buf_str(e, &pops), 0},
        {"qualified_name", qname, 0},
        {"overload", sc->overload ? sc->overload : "", 0},
    };
    em_put(e, e->tpl_bodies, out, "aten_body", slots, (int)(sizeof slots / sizeof *slots));
}

void em_render_aten_c(emitter *e, const sg_emit_header *h) {
    sg_buf all = {0}, out = {0};
    for (int i = 0; i < h->n_shims; i++) {
        const sg_emit_shim *s = &h->shims[i];
        for (int d = 0; d < s->n_decls; d++) {
            if (all.len) sg_buf_put(&all, "\n\n", 2);
            if (d == 0)
                em_put_aten_body(e, &all, s);
            else
                em_version_body(e, &all, s, &s->decls[d]);
        }
    }
    em_put(e, e->tpl_bodies, &out, "aten_c",
           SLOTS({"file", "c_shim_aten.c", 0}, {"generator", "shimgen " SHIMGEN_VERSION, 0},
                 {"inputs", e->banner, 0}, {"header", h->file, 0},
                 {"bodies", em_buf_str(e, &all), 0}));
    em_add_file(e, "c_shim_aten.c", &out);
}

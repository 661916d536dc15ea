/* gen/emit_aten.c: c_shim_aten.c, the dispatcher-routed shims: each packs a StableIValue
 * stack and calls through a cached op handle (see emit_bodies.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shimrt/codes.h>

#include "emit_bodies.h"

/* ---- c_shim_aten.c ------------------------------------------------------------------------ */
/* Index of the argument return j aliases (`Tensor(a!)` in both), or -1. */
static void put_aten_body(bodies *B, sg_buf *out, const sg_emit_shim *s) {
    const sg_emit_decl *d = &s->decls[0];
    const sg_schema *sc = s->fn->func;
    sg_buf checks = {0}, packs = {0}, pops = {0};
    const char *why = NULL;
    /* Packs, in schema order (the shim's order puts out arguments first). */
    for (int a = 0; a < sc->n_args && !why; a++) {
        const sg_cparam *p = NULL;
        const char *sec = bd_arg_section(B, d, sc, a, "pack", &p);
        if (!p || !sec) {
            why = sg_arena_printf(
                B->a, "argument '%s' of type '%s' cannot be passed through the dispatcher",
                sc->args[a].name, sg_text_type(B->a, sc->args[a].type));
            break;
        }
        bd_put(B, &packs, sec, SLOTS({"name", p->name, 0}));
        sg_buf_putc(&packs, '\n');
    }
    bool rets = bd_returns_handles(sc);
    for (int j = 0; j < sc->n_rets && !why; j++) {
        const char *jj = bd_int(B, j);
        if (!rets) {
            const sg_kind_info *rk = sg_kind_get(sg_kind_of_arg(sc->rets[j].type));
            if (!rk) {
                why = sg_arena_printf(B->a, "return %d of type '%s' cannot be dropped", j,
                                      sg_text_type(B->a, sc->rets[j].type));
                break;
            }
            bd_put(B, &pops, "pop_discard",
                   SLOTS({"kind", sg_kind_code_name(rk), 0}, {"j", jj, 0}));
            sg_buf_putc(&pops, '\n');
            continue;
        }
        const char *name = sg_arena_printf(B->a, "ret%d", j);
        const char *kind = sg_ret_kind(sc->rets[j].type);
        const char *sec = kind ? sg_arena_printf(B->a, "pop_%s", kind) : NULL;
        if (!sec || !bd_has(B, sec)) {
            why = sg_arena_printf(B->a,
                                  "return %d of type '%s' cannot come back through the dispatcher",
                                  j, sg_text_type(B->a, sc->rets[j].type));
            break;
        }
        bd_put(B, &checks, "check_ret", SLOTS({"name", name, 0}));
        sg_buf_putc(&checks, '\n');
        bd_put(B, &pops, sec, SLOTS({"name", name, 0}, {"j", jj, 0}));
        sg_buf_putc(&pops, '\n');
    }
    if (why) {
        sg_buf_free(&checks);
        sg_buf_free(&packs);
        sg_buf_free(&pops);
        bd_warn(B, s, d->c_name, why);
        bd_stub(B, out, s, d, why);
        return;
    }
    int size = sc->n_args > sc->n_rets ? sc->n_args : sc->n_rets;
    const char *qname = sg_arena_printf(B->a, "%s::%s", sc->ns ? sc->ns : "aten", sc->name);
    const sg_slot slots[] = {
        {"op", s->op->key, 0},
        {"schema", sg_text_comment_safe(B->a, sg_text_schema(B->a, s->fn)), 0},
        {"name", d->c_name, 0},
        {"params", bd_params(B, d, NULL), 0},
        {"stack_size", bd_int(B, size ? size : 1), 0},
        {"checks", bd_buf_str(B, &checks), 0},
        {"packs", bd_buf_str(B, &packs), 0},
        {"pops", bd_buf_str(B, &pops), 0},
        {"qualified_name", qname, 0},
        {"overload", sc->overload ? sc->overload : "", 0},
    };
    bd_put(B, out, "aten_body", slots, (int)(sizeof slots / sizeof *slots));
}

void bd_emit_aten_c(bodies *B, const sg_emit_header *h) {
    sg_buf all = {0}, out = {0};
    for (int i = 0; i < h->n_shims; i++) {
        const sg_emit_shim *s = &h->shims[i];
        for (int d = 0; d < s->n_decls; d++) {
            if (all.len) sg_buf_put(&all, "\n\n", 2);
            if (d == 0)
                put_aten_body(B, &all, s);
            else
                bd_version_body(B, &all, s, &s->decls[d]);
        }
    }
    bd_put(B, &out, "aten_c",
           SLOTS({"file", "c_shim_aten.c", 0}, {"generator", "shimgen " SHIMGEN_VERSION, 0},
                 {"inputs", B->banner, 0}, {"header", h->file, 0},
                 {"bodies", bd_buf_str(B, &all), 0}));
    B->sink->add_file(B->sink->user, "c_shim_aten.c", &out);
}

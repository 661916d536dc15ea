/* gen/emit_boxed.c: c_boxed_<backend>.{h,c}, a boxed kernel per op (unpack, call the
 * shim, push) and one registration function per namespace (emit_gen.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shimrt/codes.h>

#include "emit_gen.h"

/* ---- c_boxed_<backend>.{h,c} ---------------------------------------------------------- */
/* Renders the boxed kernel of s; returns false (nothing rendered) when it has none. */
static bool put_boxed_body(emitter *e, sg_buf *out, const sg_emit_shim *s) {
    const sg_emit_decl *d = &s->decls[0];
    const sg_schema *sc = s->fn->func;
    sg_buf types = {0}, unpacks = {0}, rets = {0}, keeps = {0}, args = {0}, pushes = {0};
    const char *why = NULL;
    bool owning = false;
    for (int a = 0; a < sc->n_args && !why; a++) {
        const sg_cparam *p = NULL;
        const char *sec = em_arg_section(e, d, sc, a, "box", &p);
        if (!p || !sec) {
            why = sg_arena_printf(e->a, "argument '%s' of type '%s' has no boxed form",
                                  sc->args[a].name, sg_text_type(e->a, sc->args[a].type));
            break;
        }
        em_put(e, e->tpl_bodies, &unpacks, sec,
               SLOTS({"name", p->name, 0}, {"i", em_int(e, a), 0}));
        sg_buf_putc(&unpacks, '\n');
        /* The kind code the box releases the value by (SHIMRT_KIND_NONE: owns nothing). */
        const sg_kind_info *ki = sg_kind_get(sg_kind_of_arg(sc->args[a].type));
        if (types.len) sg_buf_put(&types, ", ", 2);
        owning |= ki->owns;
        em_put(e, e->tpl_bodies, &types, "arg_kind", SLOTS({"kind", sg_kind_code_name(ki), 0}));
    }
    bool handles = em_returns_handles(sc);
    for (int j = 0; j < sc->n_rets && !why; j++) {
        const char *jj = em_int(e, j);
        if (!handles) {
            int i = em_alias_arg(sc, j);
            if (i < 0) {
                why = sg_arena_printf(e->a, "return %d aliases no mutable argument", j);
                break;
            }
            const char *ii = em_int(e, i);
            em_put(e, e->tpl_bodies, &keeps, "keep", SLOTS({"i", ii, 0}));
            sg_buf_putc(&keeps, '\n');
            em_put(e, e->tpl_bodies, &pushes, "push_alias", SLOTS({"i", ii, 0}, {"j", jj, 0}));
            sg_buf_putc(&pushes, '\n');
            continue;
        }
        const char *kind = sg_ret_kind(sc->rets[j].type);
        const char *name = sg_arena_printf(e->a, "ret%d", j);
        const char *rsec = kind ? sg_arena_printf(e->a, "ret_%s", kind) : NULL;
        const char *psec = kind ? sg_arena_printf(e->a, "push_%s", kind) : NULL;
        if (!rsec || !em_has(e->tpl_bodies, rsec) || !em_has(e->tpl_bodies, psec)) {
            why = sg_arena_printf(e->a, "return %d of type '%s' has no boxed form", j,
                                  sg_text_type(e->a, sc->rets[j].type));
            break;
        }
        em_put(e, e->tpl_bodies, &rets, rsec, SLOTS({"name", name, 0}));
        sg_buf_putc(&rets, '\n');
        em_put(e, e->tpl_bodies, &pushes, psec, SLOTS({"name", name, 0}, {"j", jj, 0}));
        sg_buf_putc(&pushes, '\n');
    }
    for (int i = 0; i < d->n_params && !why; i++) {
        if (i) sg_buf_put(&args, ", ", 2);
        em_put(e, e->tpl_bodies, &args,
               d->params[i].role == SG_CP_RET ? "call_arg_ret" : "call_arg",
               SLOTS({"name", d->params[i].name, 0}));
    }
    if (why) {
        sg_buf_free(&types);
        sg_buf_free(&unpacks);
        sg_buf_free(&rets);
        sg_buf_free(&keeps);
        sg_buf_free(&args);
        sg_buf_free(&pushes);
        em_warn(e, s, "no boxed kernel (the op stays defined, without a kernel)", why);
        return false;
    }
    const char *arg_kinds = "", *arg_kinds_ref = "NULL";
    if (owning) {
        arg_kinds =
            em_str(e, e->tpl_bodies, "arg_kinds",
                   SLOTS({"n", em_int(e, sc->n_args), 0}, {"kinds", em_buf_str(e, &types), 0}));
        arg_kinds_ref = em_str(e, e->tpl_bodies, "arg_kinds_ref", NULL, 0);
    } else {
        sg_buf_free(&types);
    }
    /* A shim with Scalar arguments is called through its entry, which takes them in the
     * kernel form: the ScalarHandle's kind reaches the kernel (gen/kinds.h entry_type). */
    const char *entry = em_entry_name(e, sc, d);
    if (entry) {
        em_put(e, e->tpl_bodies, out, "entry_decl",
               SLOTS({"op", s->op->key, 0}, {"name", entry, 0},
                     {"params", em_entry_params(e, sc, d), 0}));
        sg_buf_putc(out, '\n');
    }
    const sg_slot slots[] = {
        {"op", s->op->key, 0},
        {"schema", sg_text_comment_safe(e->a, sg_text_schema(e->a, s->fn)), 0},
        {"name", em_boxed_name(e, s), 0},
        {"op_name", sg_text_c_escape(e->a, em_op_name(e, sc), false), 0},
        {"n_args", em_int(e, sc->n_args), 0},
        {"n_outputs", em_int(e, sc->n_rets), 0},
        {"arg_kinds", arg_kinds, 0},
        {"arg_kinds_ref", arg_kinds_ref, 0},
        {"unpacks", em_buf_str(e, &unpacks), 0},
        {"rets", em_buf_str(e, &rets), 0},
        {"keeps", em_buf_str(e, &keeps), 0},
        {"shim", entry ? entry : d->c_name, 0},
        {"args", em_buf_str(e, &args), 0},
        {"pushes", em_buf_str(e, &pushes), 0},
    };
    em_put(e, e->tpl_bodies, out, "boxed_body", slots, (int)(sizeof slots / sizeof *slots));
    return true;
}

/* The tags of fn that the runtime knows (shimrt/codes.h), as "SHIMRT_TAG_BIT(CORE) | ...";
 * NULL when none. Other tags are left out: the runtime has no code for them. */
static const char *tag_bits(emitter *e, const sg_native_function *fn) {
#define TAG_ROW_(N, name, code) {#name, "SHIMRT_TAG_BIT(" #N ")"},
    static const struct { const char *name, *bit; } k[] = {SHIMRT_TAGS(TAG_ROW_)};
#undef TAG_ROW_
    sg_buf b = {0};
    for (size_t t = 0; t < sizeof k / sizeof *k; t++)
        for (int i = 0; i < fn->n_tags; i++)
            if (strcmp(fn->tags[i], k[t].name) == 0) {
                if (b.len) sg_buf_put(&b, " | ", 3);
                sg_buf_puts(&b, k[t].bit);
                break;
            }
    return b.len ? em_buf_str(e, &b) : NULL;
}

void em_render_boxed(emitter *e, const sg_emit_header *h) {
    const def_op *defs = e->defs;
    int n_defs = e->n_defs;
    sg_buf decls = {0}, regs = {0}, all = {0}, out_h = {0}, out_c = {0};
    const char **boxed = sg_arena_alloc(e->a, sizeof *boxed * (size_t)(h->n_shims + 1));
    if (!boxed) return;
    for (int i = 0; i < h->n_shims; i++) {
        boxed[i] = NULL;
        sg_buf body = {0};
        if (!put_boxed_body(e, &body, &h->shims[i])) continue;
        boxed[i] = em_boxed_name(e, &h->shims[i]);
        if (all.len) sg_buf_put(&all, "\n\n", 2);
        sg_buf_put(&all, body.data ? body.data : "", body.len);
        sg_buf_free(&body);
        sg_buf_puts(&decls, em_join_sep(&decls));
        em_put(e, e->tpl_bodies, &decls, "boxed_decl", SLOTS({"name", boxed[i], 0}));
    }
    /* One registration function per namespace, namespaces in key order. */
    for (int k = 0; k < n_defs; k++) {
        if (k > 0 && strcmp(defs[k - 1].ns, defs[k].ns) == 0) continue;
        const char *ns = defs[k].ns;
        sg_buf de = {0}, ie = {0};
        int nd = 0, ni = 0;
        for (int q = k; q < n_defs && strcmp(defs[q].ns, ns) == 0; q++) {
            const char *tags = tag_bits(e, defs[q].shim->fn);
            sg_buf_puts(&de, em_join_sep(&de));
            em_put(e, e->tpl_bodies, &de, "def_entry",
                   SLOTS({"schema",
                          sg_text_c_escape(e->a, em_def_schema(e, defs[q].shim->fn), false), 0},
                         {"tags",
                          tags ? em_str(e, e->tpl_bodies, "tags", SLOTS({"tags", tags, 0}))
                               : em_str(e, e->tpl_bodies, "no_tags", NULL, 0),
                          0}));
            nd++;
        }
        for (int i = 0; i < h->n_shims; i++) {
            if (!boxed[i] || strcmp(em_op_ns(e, &h->shims[i]), ns) != 0) continue;
            sg_buf_puts(&ie, em_join_sep(&ie));
            em_put(e, e->tpl_bodies, &ie, "impl_entry",
                   SLOTS({"op_name",
                          sg_text_c_escape(e->a, em_op_name(e, h->shims[i].fn->func), false), 0},
                         {"boxed", boxed[i], 0}));
            ni++;
        }
        const char *fname = sg_arena_printf(e->a, "shimgen_register_%s_%s", ns, h->backend);
        const char *defs_ref = "NULL", *impls_ref = "NULL";
        if (all.len) sg_buf_put(&all, "\n\n", 2);
        if (nd) {
            defs_ref = sg_arena_printf(e->a, "defs_%s", ns);
            em_put(e, e->tpl_bodies, &all, "defs_table",
                   SLOTS({"ns", ns, 0}, {"table", defs_ref, 0}, {"n", em_int(e, nd), 0},
                         {"entries", em_buf_str(e, &de), 0}));
            sg_buf_put(&all, "\n\n", 2);
        } else {
            sg_buf_free(&de);
        }
        if (ni) {
            impls_ref = sg_arena_printf(e->a, "impls_%s_%s", ns, h->backend);
            em_put(e, e->tpl_bodies, &all, "impls_table",
                   SLOTS({"ns", ns, 0}, {"backend", h->backend, 0}, {"table", impls_ref, 0},
                         {"n", em_int(e, ni), 0}, {"entries", em_buf_str(e, &ie), 0}));
            sg_buf_put(&all, "\n\n", 2);
        } else {
            sg_buf_free(&ie);
        }
        em_put(e, e->tpl_bodies, &all, "register_fn",
               SLOTS({"name", fname, 0}, {"ns", ns, 0}, {"dispatch_key", h->dispatch_key, 0},
                     {"defs", defs_ref, 0}, {"n_defs", em_int(e, nd), 0}, {"impls", impls_ref, 0},
                     {"n_impls", em_int(e, ni), 0}));
        if (regs.len) sg_buf_put(&regs, "\n\n", 2);
        em_put(e, e->tpl_bodies, &regs, "register_decl",
               SLOTS({"name", fname, 0}, {"ns", ns, 0}, {"backend", h->backend, 0},
                     {"dispatch_key", h->dispatch_key, 0}));
        sg_buf *mr = &e->registrations;
        if (mr->len) sg_buf_put(mr, ",\n", 2);
        em_put(e, e->tpl_bodies, mr, "manifest_registration",
               SLOTS({"name", fname, 0}, {"ns", ns, 0}, {"backend", h->backend, 0},
                     {"dispatch_key", h->dispatch_key, 0},
                     {"header", sg_arena_printf(e->a, "c_boxed_%s.h", h->backend), 0},
                     {"n_defs", em_int(e, nd), 0}, {"n_impls", em_int(e, ni), 0}));
    }
    const char *hfile = sg_arena_printf(e->a, "c_boxed_%s.h", h->backend);
    const char *cfile = sg_arena_printf(e->a, "c_boxed_%s.c", h->backend);
    em_put(e, e->tpl_bodies, &out_h, "boxed_h",
           SLOTS({"file", hfile, 0}, {"backend", h->backend, 0},
                 {"generator", "shimgen " SHIMGEN_VERSION, 0}, {"inputs", e->banner, 0},
                 {"guard", sg_text_guard(e->a, hfile), 0},
                 {"boxed_decls", em_buf_str(e, &decls), 0},
                 {"register_decls", em_buf_str(e, &regs), 0}));
    em_put(e, e->tpl_bodies, &out_c, "boxed_c",
           SLOTS({"file", cfile, 0}, {"backend", h->backend, 0},
                 {"generator", "shimgen " SHIMGEN_VERSION, 0}, {"inputs", e->banner, 0},
                 {"header", hfile, 0}, {"shim_header", h->file, 0},
                 {"bodies", em_buf_str(e, &all), 0}));
    em_add_file(e, hfile, &out_h);
    em_add_file(e, cfile, &out_c);
}

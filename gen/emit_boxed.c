/* gen/emit_boxed.c: c_boxed_<backend>.{h,c}, a boxed kernel per op (unpack, call the
 * shim, push) and one registration function per namespace (see emit_bodies.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shimrt/codes.h>

#include "emit_bodies.h"

/* ---- c_boxed_<backend>.{h,c} ---------------------------------------------------------- */
static const char *boxed_name(bodies *B, const sg_emit_shim *s) {
    const char *c = s->decls[0].c_name;
    if (strncmp(c, "aoti_torch_", 11) == 0) c += 11;
    return sg_arena_printf(B->a, "boxed_%s", c);
}

/* Renders the boxed kernel of s; returns false (nothing rendered) when it has none. */
static bool put_boxed_body(bodies *B, sg_buf *out, const sg_emit_shim *s) {
    const sg_emit_decl *d = &s->decls[0];
    const sg_schema *sc = s->fn->func;
    sg_buf types = {0}, unpacks = {0}, rets = {0}, keeps = {0}, args = {0}, pushes = {0};
    const char *why = NULL;
    bool owning = false;
    for (int a = 0; a < sc->n_args && !why; a++) {
        const sg_cparam *p = NULL;
        const char *sec = bd_arg_section(B, d, sc, a, "box", &p);
        if (!p || !sec) {
            why = sg_arena_printf(B->a, "argument '%s' of type '%s' has no boxed form",
                                  sc->args[a].name, sg_text_type(B->a, sc->args[a].type));
            break;
        }
        bd_put(B, &unpacks, sec, SLOTS({"name", p->name, 0}, {"i", bd_int(B, a), 0}));
        sg_buf_putc(&unpacks, '\n');
        /* The kind code the box releases the value by (SHIMRT_KIND_NONE: owns nothing). */
        const sg_kind_info *ki = sg_kind_get(sg_kind_of_arg(sc->args[a].type));
        if (types.len) sg_buf_put(&types, ", ", 2);
        owning |= ki->owns;
        bd_put(B, &types, "arg_kind", SLOTS({"kind", sg_kind_code_name(ki), 0}));
    }
    bool handles = bd_returns_handles(sc);
    for (int j = 0; j < sc->n_rets && !why; j++) {
        const char *jj = bd_int(B, j);
        if (!handles) {
            int i = bd_alias_arg(sc, j);
            if (i < 0) {
                why = sg_arena_printf(B->a, "return %d aliases no mutable argument", j);
                break;
            }
            const char *ii = bd_int(B, i);
            bd_put(B, &keeps, "keep", SLOTS({"i", ii, 0}));
            sg_buf_putc(&keeps, '\n');
            bd_put(B, &pushes, "push_alias", SLOTS({"i", ii, 0}, {"j", jj, 0}));
            sg_buf_putc(&pushes, '\n');
            continue;
        }
        const char *kind = sg_ret_kind(sc->rets[j].type);
        const char *name = sg_arena_printf(B->a, "ret%d", j);
        const char *rsec = kind ? sg_arena_printf(B->a, "ret_%s", kind) : NULL;
        const char *psec = kind ? sg_arena_printf(B->a, "push_%s", kind) : NULL;
        if (!rsec || !bd_has(B, rsec) || !bd_has(B, psec)) {
            why = sg_arena_printf(B->a, "return %d of type '%s' has no boxed form", j,
                                  sg_text_type(B->a, sc->rets[j].type));
            break;
        }
        bd_put(B, &rets, rsec, SLOTS({"name", name, 0}));
        sg_buf_putc(&rets, '\n');
        bd_put(B, &pushes, psec, SLOTS({"name", name, 0}, {"j", jj, 0}));
        sg_buf_putc(&pushes, '\n');
    }
    for (int i = 0; i < d->n_params && !why; i++) {
        if (i) sg_buf_put(&args, ", ", 2);
        bd_put(B, &args, d->params[i].role == SG_CP_RET ? "call_arg_ret" : "call_arg",
               SLOTS({"name", d->params[i].name, 0}));
    }
    if (why) {
        sg_buf_free(&types);
        sg_buf_free(&unpacks);
        sg_buf_free(&rets);
        sg_buf_free(&keeps);
        sg_buf_free(&args);
        sg_buf_free(&pushes);
        bd_warn(B, s, "no boxed kernel (the op stays defined, without a kernel)", why);
        return false;
    }
    const char *arg_kinds = "", *arg_kinds_ref = "NULL";
    if (owning) {
        arg_kinds =
            bd_str(B, "arg_kinds",
                   SLOTS({"n", bd_int(B, sc->n_args), 0}, {"kinds", bd_buf_str(B, &types), 0}));
        arg_kinds_ref = bd_str(B, "arg_kinds_ref", NULL, 0);
    } else {
        sg_buf_free(&types);
    }
    /* A shim with Scalar arguments is called through its entry, which takes them in the
     * kernel form: the ScalarHandle's kind reaches the kernel (gen/kinds.h entry_type). */
    const char *entry = bd_entry_name(B, sc, d);
    if (entry) {
        bd_put(B, out, "entry_decl",
               SLOTS({"op", s->op->key, 0}, {"name", entry, 0},
                     {"params", bd_entry_params(B, sc, d), 0}));
        sg_buf_putc(out, '\n');
    }
    const sg_slot slots[] = {
        {"op", s->op->key, 0},
        {"schema", sg_text_comment_safe(B->a, sg_text_schema(B->a, s->fn)), 0},
        {"name", boxed_name(B, s), 0},
        {"op_name", sg_text_c_escape(B->a, bd_op_name(B, sc), false), 0},
        {"n_args", bd_int(B, sc->n_args), 0},
        {"n_outputs", bd_int(B, sc->n_rets), 0},
        {"arg_kinds", arg_kinds, 0},
        {"arg_kinds_ref", arg_kinds_ref, 0},
        {"unpacks", bd_buf_str(B, &unpacks), 0},
        {"rets", bd_buf_str(B, &rets), 0},
        {"keeps", bd_buf_str(B, &keeps), 0},
        {"shim", entry ? entry : d->c_name, 0},
        {"args", bd_buf_str(B, &args), 0},
        {"pushes", bd_buf_str(B, &pushes), 0},
    };
    bd_put(B, out, "boxed_body", slots, (int)(sizeof slots / sizeof *slots));
    return true;
}

static int cmp_def(const void *x, const void *y) {
    return strcmp(((const def_op *)x)->key, ((const def_op *)y)->key);
}

def_op *bd_plan_defs(bodies *B, int *n_out) {
    int n = 0;
    for (int h = 0; h < B->n_headers; h++) n += B->headers[h].n_shims;
    def_op *v = sg_arena_alloc(B->a, sizeof *v * (size_t)(n ? n : 1));
    if (!v) return NULL;
    n = 0;
    for (int h = 0; h < B->n_headers; h++)
        for (int i = 0; i < B->headers[h].n_shims; i++) {
            const sg_emit_shim *s = &B->headers[h].shims[i];
            bool dup = false;
            for (int k = 0; k < n && !dup; k++) dup = strcmp(v[k].key, s->op->key) == 0;
            if (!dup) v[n++] = (def_op){s->op->key, bd_op_ns(B, s), s};
        }
    qsort(v, (size_t)n, sizeof *v, cmp_def);
    *n_out = n;
    return v;
}

/* The tags of fn that the runtime knows (shimrt/codes.h), as "SHIMRT_TAG_BIT(CORE) | ...";
 * NULL when none. Other tags are left out: the runtime has no code for them. */
static const char *tag_bits(bodies *B, const sg_native_function *fn) {
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
    return b.len ? bd_buf_str(B, &b) : NULL;
}

void bd_emit_boxed(bodies *B, const sg_emit_header *h, const def_op *defs, int n_defs) {
    sg_buf decls = {0}, regs = {0}, all = {0}, out_h = {0}, out_c = {0};
    const char **boxed = sg_arena_alloc(B->a, sizeof *boxed * (size_t)(h->n_shims + 1));
    if (!boxed) return;
    for (int i = 0; i < h->n_shims; i++) {
        boxed[i] = NULL;
        sg_buf body = {0};
        if (!put_boxed_body(B, &body, &h->shims[i])) continue;
        boxed[i] = boxed_name(B, &h->shims[i]);
        if (all.len) sg_buf_put(&all, "\n\n", 2);
        sg_buf_put(&all, body.data ? body.data : "", body.len);
        sg_buf_free(&body);
        sg_buf_puts(&decls, bd_join_sep(&decls));
        bd_put(B, &decls, "boxed_decl", SLOTS({"name", boxed[i], 0}));
    }
    /* One registration function per namespace, namespaces in key order. */
    for (int k = 0; k < n_defs; k++) {
        if (k > 0 && strcmp(defs[k - 1].ns, defs[k].ns) == 0) continue;
        const char *ns = defs[k].ns;
        sg_buf de = {0}, ie = {0};
        int nd = 0, ni = 0;
        for (int q = k; q < n_defs && strcmp(defs[q].ns, ns) == 0; q++) {
            const char *tags = tag_bits(B, defs[q].shim->fn);
            sg_buf_puts(&de, bd_join_sep(&de));
            bd_put(B, &de, "def_entry",
                   SLOTS({"schema",
                          sg_text_c_escape(B->a, bd_def_schema(B, defs[q].shim->fn), false), 0},
                         {"tags",
                          tags ? bd_str(B, "tags", SLOTS({"tags", tags, 0}))
                               : bd_str(B, "no_tags", NULL, 0),
                          0}));
            nd++;
        }
        for (int i = 0; i < h->n_shims; i++) {
            if (!boxed[i] || strcmp(bd_op_ns(B, &h->shims[i]), ns) != 0) continue;
            sg_buf_puts(&ie, bd_join_sep(&ie));
            bd_put(B, &ie, "impl_entry",
                   SLOTS({"op_name",
                          sg_text_c_escape(B->a, bd_op_name(B, h->shims[i].fn->func), false), 0},
                         {"boxed", boxed[i], 0}));
            ni++;
        }
        const char *fname = sg_arena_printf(B->a, "shimgen_register_%s_%s", ns, h->backend);
        const char *defs_ref = "NULL", *impls_ref = "NULL";
        if (all.len) sg_buf_put(&all, "\n\n", 2);
        if (nd) {
            defs_ref = sg_arena_printf(B->a, "defs_%s", ns);
            bd_put(B, &all, "defs_table",
                   SLOTS({"ns", ns, 0}, {"table", defs_ref, 0}, {"n", bd_int(B, nd), 0},
                         {"entries", bd_buf_str(B, &de), 0}));
            sg_buf_put(&all, "\n\n", 2);
        } else {
            sg_buf_free(&de);
        }
        if (ni) {
            impls_ref = sg_arena_printf(B->a, "impls_%s_%s", ns, h->backend);
            bd_put(B, &all, "impls_table",
                   SLOTS({"ns", ns, 0}, {"backend", h->backend, 0}, {"table", impls_ref, 0},
                         {"n", bd_int(B, ni), 0}, {"entries", bd_buf_str(B, &ie), 0}));
            sg_buf_put(&all, "\n\n", 2);
        } else {
            sg_buf_free(&ie);
        }
        bd_put(B, &all, "register_fn",
               SLOTS({"name", fname, 0}, {"ns", ns, 0}, {"dispatch_key", h->dispatch_key, 0},
                     {"defs", defs_ref, 0}, {"n_defs", bd_int(B, nd), 0}, {"impls", impls_ref, 0},
                     {"n_impls", bd_int(B, ni), 0}));
        if (regs.len) sg_buf_put(&regs, "\n\n", 2);
        bd_put(B, &regs, "register_decl",
               SLOTS({"name", fname, 0}, {"ns", ns, 0}, {"backend", h->backend, 0},
                     {"dispatch_key", h->dispatch_key, 0}));
        sg_buf *mr = &B->sink->registrations;
        if (mr->len) sg_buf_put(mr, ",\n", 2);
        bd_put(B, mr, "manifest_registration",
               SLOTS({"name", fname, 0}, {"ns", ns, 0}, {"backend", h->backend, 0},
                     {"dispatch_key", h->dispatch_key, 0},
                     {"header", sg_arena_printf(B->a, "c_boxed_%s.h", h->backend), 0},
                     {"n_defs", bd_int(B, nd), 0}, {"n_impls", bd_int(B, ni), 0}));
    }
    const char *hfile = sg_arena_printf(B->a, "c_boxed_%s.h", h->backend);
    const char *cfile = sg_arena_printf(B->a, "c_boxed_%s.c", h->backend);
    bd_put(B, &out_h, "boxed_h",
           SLOTS({"file", hfile, 0}, {"backend", h->backend, 0},
                 {"generator", "shimgen " SHIMGEN_VERSION, 0}, {"inputs", B->banner, 0},
                 {"guard", sg_text_guard(B->a, hfile), 0},
                 {"boxed_decls", bd_buf_str(B, &decls), 0},
                 {"register_decls", bd_buf_str(B, &regs), 0}));
    bd_put(B, &out_c, "boxed_c",
           SLOTS({"file", cfile, 0}, {"backend", h->backend, 0},
                 {"generator", "shimgen " SHIMGEN_VERSION, 0}, {"inputs", B->banner, 0},
                 {"header", hfile, 0}, {"shim_header", h->file, 0},
                 {"bodies", bd_buf_str(B, &all), 0}));
    B->sink->add_file(B->sink->user, hfile, &out_h);
    B->sink->add_file(B->sink->user, cfile, &out_c);
}

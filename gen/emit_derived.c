/* gen/emit_derived.c: derived_kernels.c, the bodies of the kernels of derived (`autogen`)
 * out variants (docs/shim-rules.md, "Derived functions"). torchgen generates these kernels
 * for PyTorch (RegisterCompositeExplicitAutograd: call the functional op, then resize each
 * out argument and copy the result into it); shimgen does the same in C: each body packs
 * the functional op's arguments, calls it through the dispatcher (so the out variant serves
 * every backend its functional op has a kernel for) and hands the results to
 * shimrt_autogen_out, which copies them into the out arguments and releases them.
 *
 * Only out variants derived from a functional function whose returns are all plain
 * tensors get a body; any other derived kernel is left out here, with a warning, and stays
 * a kernel the runtime must define. The file is written only when it has a body. */
#include <stdio.h>
#include <string.h>

#include "emit_gen.h"

/* Why kernel use k cannot get a derived body, or NULL when it can. */
static const char *unsupported(emitter *e, const kernel_use *k) {
    const sg_native_function *fn = k->shim->fn, *src = fn->derived_from;
    const sg_schema *sc = fn->func;
    if (!src || src->func->kind != SG_KIND_FUNCTIONAL)
        return "only out variants derived from a functional function get a generated kernel";
    if (sc->n_args - sc->out_start != src->func->n_rets)
        return "its out arguments do not match the functional function's returns";
    for (int j = 0; j < src->func->n_rets; j++) {
        const char *kind = sg_ret_kind(src->func->rets[j].type);
        if (!kind || strcmp(kind, "tensor") != 0)
            return sg_arena_printf(e->a, "return %d of the functional function is not a Tensor", j);
    }
    return NULL;
}

/* The pack line of schema argument a, in the kernel's C form: a kind whose kernel form
 * differs from the shim form (it has a karg_<kind> section) packs through kpack_<kind>. */
static const char *pack_line(emitter *e, const sg_emit_shim *s, int a) {
    const sg_schema *sc = s->fn->func;
    const sg_cparam *p = NULL;
    const char *sec = em_arg_section(e, &s->decls[0], sc, a, "pack", &p);
    const char *kind = sg_arg_kind(sc->args[a].type);
    if (!p || !sec || !kind) return NULL;
    if (em_has(e->tpl_bodies, sg_arena_printf(e->a, "karg_%s", kind))) {
        sec = sg_arena_printf(e->a, "kpack_%s", kind);
        if (!em_has(e->tpl_bodies, sec)) return NULL;
    }
    return em_str(e, e->tpl_bodies, sec, SLOTS({"name", p->name, 0}));
}

static void put_body(emitter *e, sg_buf *out, const kernel_use *k) {
    const sg_emit_shim *s = k->shim;
    const sg_schema *sc = s->fn->func, *fsc = s->fn->derived_from->func;
    sg_buf packs = {0}, outs = {0};
    for (int a = 0; a < sc->out_start; a++) {
        const char *line = pack_line(e, s, a);
        if (!line) {
            sg_buf_free(&packs);
            em_warn(e, s, s->kernel,
                    sg_arena_printf(e->a, "argument '%s' of type '%s' cannot be passed to %s",
                                    sc->args[a].name, sg_text_type(e->a, sc->args[a].type),
                                    fsc->name));
            return;
        }
        sg_buf_puts(&packs, line);
        sg_buf_putc(&packs, '\n');
    }
    for (int a = sc->out_start; a < sc->n_args; a++) {
        em_put(e, e->tpl_bodies, &outs, "derived_out",
               SLOTS({"j", em_int(e, a - sc->out_start), 0}, {"name", sc->args[a].name, 0}));
        sg_buf_putc(&outs, '\n');
    }
    int n_outs = sc->n_args - sc->out_start;
    int size = sc->out_start > n_outs ? sc->out_start : n_outs;
    if (out->len) sg_buf_put(out, "\n\n", 2);
    const sg_slot slots[] = {
        {"op", s->op->key, 0},
        {"schema", sg_text_comment_safe(e->a, sg_text_schema(e->a, s->fn)), 0},
        {"source", sg_text_comment_safe(e->a, em_op_name(e, fsc)), 0},
        {"kernel", s->kernel, 0},
        {"params", k->params, 0},
        {"stack_size", em_int(e, size ? size : 1), 0},
        {"n_outs", em_int(e, n_outs), 0},
        {"outs", em_buf_str(e, &outs), 0},
        {"packs", em_buf_str(e, &packs), 0},
        {"qualified_name", sg_arena_printf(e->a, "%s::%s", fsc->ns ? fsc->ns : "aten", fsc->name),
         0},
        {"overload", fsc->overload ? fsc->overload : "", 0},
    };
    em_put(e, e->tpl_bodies, out, "derived_body", slots, (int)(sizeof slots / sizeof *slots));
}

void em_render_derived(emitter *e) {
    const kernel_use *u = e->uses;
    int n = e->n_uses;
    sg_buf all = {0}, incs = {0}, out = {0};
    const char **done = sg_arena_alloc(e->a, sizeof *done * (size_t)(n ? n : 1));
    const char **files = sg_arena_alloc(e->a, sizeof *files * (size_t)(n ? n : 1));
    int n_done = 0, n_files = 0;
    if (!done || !files) return;
    for (int i = 0; i < n; i++) {
        const kernel_use *k = &u[i];
        const sg_native_function *fn = k->shim->fn;
        if (!fn->derived || k->conflict || fn->func->out_start == fn->func->n_args ||
            em_in_list(done, n_done, k->shim->kernel))
            continue;
        done[n_done++] = k->shim->kernel;
        const char *why = unsupported(e, k);
        if (why) {
            em_warn(e, k->shim, k->shim->kernel, why);
            continue;
        }
        size_t before = all.len;
        put_body(e, &all, k);
        if (all.len != before && !em_in_list(files, n_files, k->file)) files[n_files++] = k->file;
    }
    if (!all.len) {
        sg_buf_free(&all);
        return;
    }
    em_sort_names(files, n_files);
    for (int f = 0; f < n_files; f++) {
        sg_buf_puts(&incs, em_join_sep(&incs));
        em_put(e, e->tpl_bodies, &incs, "include", SLOTS({"file", files[f], 0}));
    }
    em_put(e, e->tpl_bodies, &out, "derived_c",
           SLOTS({"file", "derived_kernels.c", 0}, {"generator", "shimgen " SHIMGEN_VERSION, 0},
                 {"inputs", e->banner, 0}, {"includes", em_buf_str(e, &incs), 0},
                 {"bodies", em_buf_str(e, &all), 0}));
    em_add_file(e, "derived_kernels.c", &out);
}

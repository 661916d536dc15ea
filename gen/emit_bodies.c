/* gen/emit_bodies.c: the code behind the headers (default mode only): sg_emit_bodies, which
 * runs the emitters of each output family (see emit_bodies.h: emit_kernels.c, emit_shims.c,
 * emit_aten.c, emit_boxed.c), and what they share: rendering sections of
 * templates/bodies.in, parameter lists, bodies that only fail, and the lower versions of an
 * op, which call the highest one with the C text of the defaults they leave out.
 *
 * Every piece of text comes from the sections of templates/bodies.in (sg_tpl_set); the
 * emitters only choose sections (by the kind of each argument or return, gen/kinds.c) and
 * fill their slots. A kind without the section a form needs gets no body of that form: the
 * shim then fails at run time with the reason (a warning at generation), and a boxed kernel
 * is left out of the registration (the op stays defined).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shimrt/codes.h>

#include "emit_bodies.h"

bool bd_has(const bodies *B, const char *section) { return sg_tpl_set_get(B->t, section) != NULL; }

/* Renders a section that must exist. */
void bd_put(bodies *B, sg_buf *out, const char *section, const sg_slot *slots, int n) {
    const sg_template *t = sg_tpl_set_get(B->t, section);
    const char *missing = NULL;
    const char *path = sg_tpl_set_path(B->t);
    if (!t) {
        out->oom = true;
        if (!B->reported_missing)
            sg_diag(B->ctx, SG_DIAG_ERROR, (sg_loc){path ? path : BODIES_FILE, 0, 0},
                    "template set has no section '%s'", section);
        B->reported_missing = true;
        B->errors++;
        return;
    }
    if (sg_tpl_render(t, out, slots, n, &missing) != 0) {
        out->oom = true;
        if (!B->reported_missing)
            sg_diag(B->ctx, SG_DIAG_ERROR, (sg_loc){path ? path : BODIES_FILE, 0, 0},
                    "section '%s' uses the unknown slot {{%s}}", section, missing);
        B->reported_missing = true;
        B->errors++;
    }
}

/* Renders a section into a fresh arena string. */
const char *bd_str(bodies *B, const char *section, const sg_slot *slots, int n) {
    sg_buf b = {0};
    bd_put(B, &b, section, slots, n);
    if (b.oom) {
        sg_buf_free(&b);
        return "";
    }
    return b.len ? sg_buf_to_arena(&b, B->a) : "";
}

const char *bd_join_sep(sg_buf *b) { return b->len ? "\n" : ""; }

const char *bd_buf_str(bodies *B, sg_buf *b) {
    if (!b->len || b->oom) {
        sg_buf_free(b);
        return "";
    }
    const char *s = sg_buf_to_arena(b, B->a);
    return s ? s : "";
}

const char *bd_int(bodies *B, long long v) { return sg_arena_printf(B->a, "%lld", v); }

/* The schema as the runtime defines it inside its namespace: without a leading `ns::`. */
const char *bd_def_schema(bodies *B, const sg_native_function *fn) {
    const char *s = sg_text_schema(B->a, fn);
    const char *ns = fn->func->ns;
    size_t n = ns ? strlen(ns) : 0;
    if (n && strncmp(s, ns, n) == 0 && s[n] == ':' && s[n + 1] == ':') return s + n + 2;
    return s;
}

const char *bd_op_ns(bodies *B, const sg_emit_shim *s) {
    const char *dot = strchr(s->op->key, '.');
    return dot ? sg_arena_strndup(B->a, s->op->key, (size_t)(dot - s->op->key)) : "aten";
}

/* "add.Tensor", "copy_": the name the dispatcher knows inside its namespace. */
const char *bd_op_name(bodies *B, const sg_schema *s) {
    if (s->overload && *s->overload) return sg_arena_printf(B->a, "%s.%s", s->name, s->overload);
    return s->name;
}

const char *bd_params(bodies *B, const sg_emit_decl *d, const sg_schema *kernel_of) {
    sg_buf b = {0};
    if (d->n_params == 0) sg_buf_puts(&b, "void");
    for (int i = 0; i < d->n_params; i++) {
        if (i) sg_buf_put(&b, ", ", 2);
        sg_buf_puts(&b,
                    kernel_of ? sg_kernel_param_type(kernel_of, &d->params[i]) : d->params[i].type);
        sg_buf_putc(&b, ' ');
        sg_buf_puts(&b, d->params[i].name);
    }
    return bd_buf_str(B, &b);
}

const char *bd_arg_section(bodies *B, const sg_emit_decl *d, const sg_schema *sc, int a,
                           const char *prefix, const sg_cparam **param) {
    *param = NULL;
    for (int i = 0; i < d->n_params && !*param; i++)
        if (d->params[i].role == SG_CP_ARG && d->params[i].index == a) *param = &d->params[i];
    const char *kind = sg_arg_kind(sc->args[a].type);
    const char *sec = kind ? sg_arena_printf(B->a, "%s_%s", prefix, kind) : NULL;
    return sec && bd_has(B, sec) ? sec : NULL;
}

const char *bd_kind_of(const sg_schema *s, const sg_cparam *p) {
    return sg_arg_kind(s->args[p->index].type);
}

void bd_warn(bodies *B, const sg_emit_shim *s, const char *what, const char *why) {
    if (B->quiet) return;
    sg_diag(B->ctx, SG_DIAG_WARNING, s->op->loc, "%s: %s: %s", s->op->key, what, why);
}

/* A body that only fails: the declaration stays, with the reason at run time. */
void bd_stub(bodies *B, sg_buf *out, const sg_emit_shim *s, const sg_emit_decl *d,
             const char *why) {
    sg_buf unused = {0};
    for (int i = 0; i < d->n_params; i++) {
        bd_put(B, &unused, "unused", SLOTS({"name", d->params[i].name, 0}));
        sg_buf_putc(&unused, '\n');
    }
    bd_put(B, out, "shim_body_stub",
           SLOTS({"op", s->op->key, 0},
                 {"schema", sg_text_comment_safe(B->a, sg_text_schema(B->a, s->fn)), 0},
                 {"reason", sg_text_comment_safe(B->a, why), 0}, {"name", d->c_name, 0},
                 {"params", bd_params(B, d, NULL), 0}, {"unused", bd_buf_str(B, &unused), 0},
                 {"message", sg_text_c_escape(B->a, sg_arena_printf(B->a, "%s", why), true), 0}));
}

/* ---- Defaults of the arguments an older version leaves out ------------------------------ */
/* The integer code of an identifier default (`ScalarType dtype=long`,
 * `MemoryFormat memory_format=contiguous_format`): the codes of shimrt/codes.h under their
 * names, and the spellings PyTorch's schemas also use. */
static int ident_code(const char *id) {
#define ROW_(N, name, code) {#name, code},
    static const struct {
        const char *name;
        int code;
    } k[] = {
        SHIMRT_DTYPES(ROW_) SHIMRT_MEMORY_FORMATS(ROW_) SHIMRT_LAYOUTS(ROW_) SHIMRT_REDUCTIONS(ROW_)
            SHIMRT_QSCHEMES(ROW_){"int", SHIMRT_INT32},
        {"long", SHIMRT_INT64},
        {"half", SHIMRT_FLOAT16},
        {"float", SHIMRT_FLOAT32},
        {"double", SHIMRT_FLOAT64},
        {"cfloat", SHIMRT_COMPLEX64},
        {"cdouble", SHIMRT_COMPLEX128},
    };
#undef ROW_
    for (size_t i = 0; i < sizeof k / sizeof *k; i++)
        if (strcmp(k[i].name, id) == 0) return k[i].code;
    return -1;
}

/* One default's C text: section default_[opt_]<family> of bodies.in with its value. */
static const char *default_text(bodies *B, bool opt, const char *family, const char *value) {
    return bd_str(B, sg_arena_printf(B->a, "default_%s%s", opt ? "opt_" : "", family),
                  SLOTS({"value", value, 0}));
}

/* The C text of an int64 value: decimal (the schema's own text may have leading zeros,
 * which C reads as octal), and INT64_MIN as an expression (its literal would be unsigned). */
static const char *c_int(bodies *B, int64_t v) {
    if (v == INT64_MIN) return "-9223372036854775807 - 1";
    return sg_arena_printf(B->a, "%lld", (long long)v);
}

/* The same from the text of a list item; NULL when it is out of the range of int64. */
static const char *c_int_text(bodies *B, const char *t) {
    errno = 0;
    char *end = NULL;
    long long v = strtoll(t, &end, 10);
    if (errno == ERANGE || !end || *end) return NULL;
    return c_int(B, (int64_t)v);
}

/* The C text of an int list default: default_int_list of its items, NULL when empty. */
static const char *int_list_text(bodies *B, const char *const *items, int n) {
    if (n == 0) return bd_str(B, "default_none", NULL, 0);
    sg_buf b = {0};
    for (int i = 0; i < n; i++) {
        if (i) sg_buf_put(&b, ", ", 2);
        bd_put(B, &b, "default_int_list_item", SLOTS({"value", items[i], 0}));
    }
    return bd_str(B, "default_int_list", SLOTS({"items", bd_buf_str(B, &b), 0}));
}

/* C expressions for an omitted argument in the shim's form: *val (the argument) and *extra
 * (its x_len_ / x_index_, when it has one), from the default_* sections of bodies.in.
 * Returns false when the default has no C form. */
static bool c_default(bodies *B, const sg_arg *arg, const char **val, const char **extra) {
    const char *k = sg_arg_kind(arg->type);
    const char *t = arg->default_text;
    *extra = "0";
    if (!k || !t) return false;
    bool opt = strncmp(k, "opt_", 4) == 0;
    const char *base = opt ? k + 4 : k;
    switch (arg->default_kind) {
    case SG_DEF_NONE:
        if (!opt) return false;
        *val = bd_str(B, "default_none", NULL, 0);
        if (strcmp(k, "opt_device") == 0) *extra = bd_str(B, "default_none_device_index", NULL, 0);
        return true;
    case SG_DEF_BOOL:
        if (strcmp(base, "bool") != 0) return false;
        *val = default_text(B, opt, "bool", arg->default_value.i ? "1" : "0");
        return true;
    case SG_DEF_INT:
    case SG_DEF_FLOAT: {
        bool is_float = arg->default_kind == SG_DEF_FLOAT;
        const char *it = is_float ? t : c_int(B, arg->default_value.i);
        if (!it) return false;
        if (strcmp(base, "int") == 0 && !is_float) {
            *val = default_text(B, opt, "int", it);
        } else if (strcmp(base, "float") == 0 || strcmp(base, "scalar") == 0) {
            *val = default_text(B, opt, "float", it);
        } else if (strcmp(base, "int_list") == 0 && !opt && !is_float &&
                   arg->type->kind == SG_TY_LIST && arg->type->size > 0) {
            /* `int[2] stride=1`: the value repeated to the list's size */
            int n = arg->type->size;
            const char **items = sg_arena_alloc(B->a, sizeof *items * (size_t)n);
            if (!items) return false;
            for (int i = 0; i < n; i++) items[i] = it;
            *val = int_list_text(B, items, n);
            *extra = bd_int(B, n);
        } else {
            return false;
        }
        return true;
    }
    case SG_DEF_STRING:
        if (strcmp(base, "str") != 0) return false;
        *val = default_text(B, opt, "str", sg_text_c_escape(B->a, arg->default_value.s, false));
        return true;
    case SG_DEF_LIST: {
        if (strcmp(k, "int_list") != 0) return false;
        const char *p = strchr(t, '[');
        if (!p) return false;
        p++;
        const char **items = sg_arena_alloc(B->a, sizeof *items * (strlen(p) + 1));
        if (!items) return false;
        int n = 0;
        while (*p && *p != ']') {
            while (*p == ' ' || *p == ',') p++;
            if (*p == ']') break;
            const char *q = p;
            if (*q == '-') q++;
            if (!isdigit((unsigned char)*q)) return false;
            while (isdigit((unsigned char)*q)) q++;
            const char *item = sg_arena_strndup(B->a, p, (size_t)(q - p));
            if (!item || !(items[n++] = c_int_text(B, item))) return false;
            p = q;
        }
        *val = int_list_text(B, items, n);
        if (n) *extra = bd_int(B, n);
        return true;
    }
    case SG_DEF_IDENT: {
        int code = ident_code(arg->default_value.s ? arg->default_value.s : t);
        if (code < 0) return false;
        if (strcmp(base, "code") == 0)
            *val = default_text(B, opt, "code", bd_int(B, code));
        else if (strcmp(base, "int") == 0)
            *val = default_text(B, opt, "int_ident", bd_int(B, code));
        else
            return false;
        return true;
    }
    default: return false;
    }
}

/* A lower version: calls the highest one with the defaults of what it leaves out. */
void bd_version_body(bodies *B, sg_buf *out, const sg_emit_shim *s, const sg_emit_decl *d) {
    const sg_emit_decl *top = &s->decls[0];
    const sg_schema *sc = s->fn->func;
    sg_buf args = {0}, omitted = {0};
    for (int i = 0; i < top->n_params; i++) {
        const sg_cparam *p = &top->params[i];
        bool present = false;
        for (int j = 0; j < d->n_params && !present; j++)
            present = strcmp(d->params[j].name, p->name) == 0;
        const char *v = p->name;
        if (!present) {
            const char *val = NULL, *extra = NULL;
            const sg_arg *arg = &sc->args[p->index];
            if (!c_default(B, arg, &val, &extra)) {
                sg_buf_free(&args);
                sg_buf_free(&omitted);
                const char *why = sg_arena_printf(
                    B->a, "v%d: the default '%s' of argument '%s' has no C form", d->version,
                    arg->default_text ? arg->default_text : "", arg->name);
                bd_warn(B, s, d->c_name, why);
                bd_stub(B, out, s, d, why);
                return;
            }
            v = p->role == SG_CP_ARG ? val : extra;
            if (p->role == SG_CP_ARG)
                sg_buf_printf(&omitted, "%s%s", omitted.len ? ", " : "", arg->name);
        }
        if (i) sg_buf_put(&args, ", ", 2);
        sg_buf_puts(&args, v);
    }
    bd_put(B, out, "shim_body_version",
           SLOTS({"op", s->op->key, 0}, {"version", bd_int(B, d->version), 0},
                 {"omitted", bd_buf_str(B, &omitted), 0}, {"name", d->c_name, 0},
                 {"params", bd_params(B, d, NULL), 0}, {"target", top->c_name, 0},
                 {"args", bd_buf_str(B, &args), 0}));
}

int bd_alias_arg(const sg_schema *s, int j) {
    const sg_annotation *ra = s->rets[j].annotation;
    if (!ra || ra->n_alias_set != 1) return -1;
    for (int i = 0; i < s->n_args; i++) {
        const sg_annotation *aa = s->args[i].annotation;
        if (aa && aa->is_write && aa->n_alias_set == 1 &&
            strcmp(aa->alias_set[0], ra->alias_set[0]) == 0)
            return i;
    }
    return -1;
}

const char *bd_entry_type(const sg_schema *s, const sg_cparam *p) {
    if (p->role != SG_CP_ARG || p->index < 0 || p->index >= s->n_args) return NULL;
    const sg_kind_info *k = sg_kind_get(sg_kind_of_arg(s->args[p->index].type));
    return k ? k->entry_type : NULL;
}

const char *bd_entry_name(bodies *B, const sg_schema *s, const sg_emit_decl *d) {
    bool any = false;
    for (int i = 0; i < d->n_params && !any; i++) any = bd_entry_type(s, &d->params[i]) != NULL;
    if (!any) return NULL;
    const char *c = d->c_name;
    if (strncmp(c, "aoti_torch_", 11) == 0) c += 11;
    return sg_arena_printf(B->a, "shimrt_entry_%s", c);
}

const char *bd_entry_params(bodies *B, const sg_schema *s, const sg_emit_decl *d) {
    sg_buf b = {0};
    if (d->n_params == 0) sg_buf_puts(&b, "void");
    for (int i = 0; i < d->n_params; i++) {
        const char *et = bd_entry_type(s, &d->params[i]);
        if (i) sg_buf_put(&b, ", ", 2);
        sg_buf_puts(&b, et ? et : d->params[i].type);
        sg_buf_putc(&b, ' ');
        sg_buf_puts(&b, d->params[i].name);
    }
    return bd_buf_str(B, &b);
}

bool bd_returns_handles(const sg_schema *s) { return !(s->out_start < s->n_args) && !s->inplace; }

/* ---- Entry point ---------------------------------------------------------------------- */
int sg_emit_bodies(sg_context *ctx, const sg_model *m, sg_arena *a, const char *tpl_dir,
                   const sg_emit_header *headers, int n_headers, const char *banner_inputs,
                   sg_emit_sink *sink) {
    bodies B = {ctx,  m,     a, NULL, headers, n_headers, banner_inputs ? banner_inputs : "",
                sink, false, 0, false};
    char err[512];
    B.t = sg_tpl_set_load(a, tpl_dir, BODIES_FILE, err, sizeof err);
    if (!B.t) {
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){tpl_dir, 0, 0}, "%s", err);
        return 1;
    }
    if (sink->add_dep) sink->add_dep(sink->user, sg_tpl_set_path(B.t));
    B.quiet = sink->quiet;
    int n_uses = 0, n_defs = 0;
    kernel_use *uses = bd_plan_kernels(&B, &n_uses);
    def_op *defs = bd_plan_defs(&B, &n_defs);
    if (!uses || !defs) {
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){NULL, 0, 0}, "out of memory");
        return 1;
    }
    bd_emit_kernel_headers(&B, uses, n_uses);
    bd_emit_derived(&B, uses, n_uses);
    for (int h = 0; h < n_headers; h++) {
        if (headers[h].dispatch_key) {
            bd_emit_shim_c(&B, &headers[h], uses, n_uses);
            bd_emit_boxed(&B, &headers[h], defs, n_defs);
        } else {
            bd_emit_aten_c(&B, &headers[h]);
        }
    }
    return B.errors;
}

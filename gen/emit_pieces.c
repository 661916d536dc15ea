/* gen/emit_pieces.c: the texts that several body families (emit_gen.h: emit_shims.c,
 * emit_aten.c, emit_boxed.c, emit_derived.c, emit_kernels.c) share: an op's names and
 * schema, parameter lists, the section of an argument's kind, bodies that only fail, and the
 * lower versions of an op, which call the highest one with the C text of the defaults they
 * leave out. It calls no family.
 *
 * Every piece of text comes from the sections of templates/bodies.in (sg_tpl_set); the
 * families only choose sections (by the kind of each argument or return, gen/kinds.c) and
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

#include "emit_gen.h"

/* The schema as the runtime defines it inside its namespace: without a leading `ns::`. */
const char *em_def_schema(emitter *e, const sg_native_function *fn) {
    const char *s = sg_text_schema(e->a, fn);
    const char *ns = fn->func->ns;
    size_t n = ns ? strlen(ns) : 0;
    if (n && strncmp(s, ns, n) == 0 && s[n] == ':' && s[n + 1] == ':') return s + n + 2;
    return s;
}

const char *em_op_ns(emitter *e, const sg_emit_shim *s) {
    const char *dot = strchr(s->op->key, '.');
    return dot ? sg_arena_strndup(e->a, s->op->key, (size_t)(dot - s->op->key)) : "aten";
}

/* "boxed_cpu_add_Tensor": the boxed kernel of s (its C name without aoti_torch_). */
const char *em_boxed_name(emitter *e, const sg_emit_shim *s) {
    const char *c = s->decls[0].c_name;
    if (strncmp(c, "aoti_torch_", 11) == 0) c += 11;
    return sg_arena_printf(e->a, "boxed_%s", c);
}

/* "add.Tensor", "copy_": the name the dispatcher knows inside its namespace. */
const char *em_op_name(emitter *e, const sg_schema *s) {
    if (s->overload && *s->overload) return sg_arena_printf(e->a, "%s.%s", s->name, s->overload);
    return s->name;
}

const char *em_params(emitter *e, const sg_emit_decl *d, const sg_schema *kernel_of) {
    sg_buf b = {0};
    if (d->n_params == 0) sg_buf_puts(&b, "void");
    for (int i = 0; i < d->n_params; i++) {
        if (i) sg_buf_put(&b, ", ", 2);
        sg_buf_puts(&b,
                    kernel_of ? sg_kernel_param_type(kernel_of, &d->params[i]) : d->params[i].type);
        sg_buf_putc(&b, ' ');
        sg_buf_puts(&b, d->params[i].name);
    }
    return em_buf_str(e, &b);
}

const char *em_arg_section(emitter *e, const sg_emit_decl *d, const sg_schema *sc, int a,
                           const char *prefix, const sg_cparam **param) {
    *param = NULL;
    for (int i = 0; i < d->n_params && !*param; i++)
        if (d->params[i].role == SG_CP_ARG && d->params[i].index == a) *param = &d->params[i];
    const char *kind = sg_arg_kind(sc->args[a].type);
    const char *sec = kind ? sg_arena_printf(e->a, "%s_%s", prefix, kind) : NULL;
    return sec && em_has(e->tpl_bodies, sec) ? sec : NULL;
}

const char *em_kind_of(const sg_schema *s, const sg_cparam *p) {
    return sg_arg_kind(s->args[p->index].type);
}

void em_warn(emitter *e, const sg_emit_shim *s, const char *what, const char *why) {
    if (e->quiet) return;
    sg_diag(e->ctx, SG_DIAG_WARNING, s->op->loc, "%s: %s: %s", s->op->key, what, why);
}

/* A body that only fails: the declaration stays, with the reason at run time. */
void em_stub(emitter *e, sg_buf *out, const sg_emit_shim *s, const sg_emit_decl *d,
             const char *why) {
    sg_buf unused = {0};
    for (int i = 0; i < d->n_params; i++) {
        em_put(e, e->tpl_bodies, &unused, "unused", SLOTS({"name", d->params[i].name, 0}));
        sg_buf_putc(&unused, '\n');
    }
    em_put(e, e->tpl_bodies, out, "shim_body_stub",
           SLOTS({"op", s->op->key, 0},
                 {"schema", sg_text_comment_safe(e->a, sg_text_schema(e->a, s->fn)), 0},
                 {"reason", sg_text_comment_safe(e->a, why), 0}, {"name", d->c_name, 0},
                 {"params", em_params(e, d, NULL), 0}, {"unused", em_buf_str(e, &unused), 0},
                 {"message", sg_text_c_escape(e->a, sg_arena_printf(e->a, "%s", why), true), 0}));
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
static const char *default_text(emitter *e, bool opt, const char *family, const char *value) {
    return em_str(e, e->tpl_bodies,
                  sg_arena_printf(e->a, "default_%s%s", opt ? "opt_" : "", family),
                  SLOTS({"value", value, 0}));
}

/* The C text of an int64 value: decimal (the schema's own text may have leading zeros,
 * which C reads as octal), and INT64_MIN as an expression (its literal would be unsigned). */
static const char *c_int(emitter *e, int64_t v) {
    if (v == INT64_MIN) return "-9223372036854775807 - 1";
    return sg_arena_printf(e->a, "%lld", (long long)v);
}

/* The same from the text of a list item; NULL when it is out of the range of int64. */
static const char *c_int_text(emitter *e, const char *t) {
    errno = 0;
    char *end = NULL;
    long long v = strtoll(t, &end, 10);
    if (errno == ERANGE || !end || *end) return NULL;
    return c_int(e, (int64_t)v);
}

/* The C text of an int list default: default_int_list of its items, NULL when empty. */
static const char *int_list_text(emitter *e, const char *const *items, int n) {
    if (n == 0) return em_str(e, e->tpl_bodies, "default_none", NULL, 0);
    sg_buf b = {0};
    for (int i = 0; i < n; i++) {
        if (i) sg_buf_put(&b, ", ", 2);
        em_put(e, e->tpl_bodies, &b, "default_int_list_item", SLOTS({"value", items[i], 0}));
    }
    return em_str(e, e->tpl_bodies, "default_int_list", SLOTS({"items", em_buf_str(e, &b), 0}));
}

/* C expressions for an omitted argument in the shim's form: *val (the argument) and *extra
 * (its x_len_ / x_index_, when it has one), from the default_* sections of bodies.in.
 * Returns false when the default has no C form. */
static bool c_default(emitter *e, const sg_arg *arg, const char **val, const char **extra) {
    const char *k = sg_arg_kind(arg->type);
    const char *t = arg->default_text;
    *extra = "0";
    if (!k || !t) return false;
    bool opt = strncmp(k, "opt_", 4) == 0;
    const char *base = opt ? k + 4 : k;
    switch (arg->default_kind) {
    case SG_DEF_NONE:
        if (!opt) return false;
        *val = em_str(e, e->tpl_bodies, "default_none", NULL, 0);
        if (strcmp(k, "opt_device") == 0)
            *extra = em_str(e, e->tpl_bodies, "default_none_device_index", NULL, 0);
        return true;
    case SG_DEF_BOOL:
        if (strcmp(base, "bool") != 0) return false;
        *val = default_text(e, opt, "bool", arg->default_value.i ? "1" : "0");
        return true;
    case SG_DEF_INT:
    case SG_DEF_FLOAT: {
        bool is_float = arg->default_kind == SG_DEF_FLOAT;
        const char *it = is_float ? t : c_int(e, arg->default_value.i);
        if (!it) return false;
        if (strcmp(base, "int") == 0 && !is_float) {
            *val = default_text(e, opt, "int", it);
        } else if (strcmp(base, "float") == 0 || strcmp(base, "scalar") == 0) {
            *val = default_text(e, opt, "float", it);
        } else if (strcmp(base, "int_list") == 0 && !opt && !is_float &&
                   arg->type->kind == SG_TY_LIST && arg->type->size > 0) {
            /* `int[2] stride=1`: the value repeated to the list's size */
            int n = arg->type->size;
            const char **items = sg_arena_alloc(e->a, sizeof *items * (size_t)n);
            if (!items) return false;
            for (int i = 0; i < n; i++) items[i] = it;
            *val = int_list_text(e, items, n);
            *extra = em_int(e, n);
        } else {
            return false;
        }
        return true;
    }
    case SG_DEF_STRING:
        if (strcmp(base, "str") != 0) return false;
        *val = default_text(e, opt, "str", sg_text_c_escape(e->a, arg->default_value.s, false));
        return true;
    case SG_DEF_LIST: {
        if (strcmp(k, "int_list") != 0) return false;
        const char *p = strchr(t, '[');
        if (!p) return false;
        p++;
        const char **items = sg_arena_alloc(e->a, sizeof *items * (strlen(p) + 1));
        if (!items) return false;
        int n = 0;
        while (*p && *p != ']') {
            while (*p == ' ' || *p == ',') p++;
            if (*p == ']') break;
            const char *q = p;
            if (*q == '-') q++;
            if (!isdigit((unsigned char)*q)) return false;
            while (isdigit((unsigned char)*q)) q++;
            const char *item = sg_arena_strndup(e->a, p, (size_t)(q - p));
            if (!item || !(items[n++] = c_int_text(e, item))) return false;
            p = q;
        }
        *val = int_list_text(e, items, n);
        if (n) *extra = em_int(e, n);
        return true;
    }
    case SG_DEF_IDENT: {
        int code = ident_code(arg->default_value.s ? arg->default_value.s : t);
        if (code < 0) return false;
        if (strcmp(base, "code") == 0)
            *val = default_text(e, opt, "code", em_int(e, code));
        else if (strcmp(base, "int") == 0)
            *val = default_text(e, opt, "int_ident", em_int(e, code));
        else
            return false;
        return true;
    }
    default: return false;
    }
}

/* A lower version: calls the highest one with the defaults of what it leaves out. */
void em_version_body(emitter *e, sg_buf *out, const sg_emit_shim *s, const sg_emit_decl *d) {
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
            if (!c_default(e, arg, &val, &extra)) {
                sg_buf_free(&args);
                sg_buf_free(&omitted);
                const char *why = sg_arena_printf(
                    e->a, "v%d: the default '%s' of argument '%s' has no C form", d->version,
                    arg->default_text ? arg->default_text : "", arg->name);
                em_warn(e, s, d->c_name, why);
                em_stub(e, out, s, d, why);
                return;
            }
            v = p->role == SG_CP_ARG ? val : extra;
            if (p->role == SG_CP_ARG)
                sg_buf_printf(&omitted, "%s%s", omitted.len ? ", " : "", arg->name);
        }
        if (i) sg_buf_put(&args, ", ", 2);
        sg_buf_puts(&args, v);
    }
    em_put(e, e->tpl_bodies, out, "shim_body_version",
           SLOTS({"op", s->op->key, 0}, {"version", em_int(e, d->version), 0},
                 {"omitted", em_buf_str(e, &omitted), 0}, {"name", d->c_name, 0},
                 {"params", em_params(e, d, NULL), 0}, {"target", top->c_name, 0},
                 {"args", em_buf_str(e, &args), 0}));
}

int em_alias_arg(const sg_schema *s, int j) {
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

const char *em_entry_type(const sg_schema *s, const sg_cparam *p) {
    if (p->role != SG_CP_ARG || p->index < 0 || p->index >= s->n_args) return NULL;
    const sg_kind_info *k = sg_kind_get(sg_kind_of_arg(s->args[p->index].type));
    return k ? k->entry_type : NULL;
}

const char *em_entry_name(emitter *e, const sg_schema *s, const sg_emit_decl *d) {
    bool any = false;
    for (int i = 0; i < d->n_params && !any; i++) any = em_entry_type(s, &d->params[i]) != NULL;
    if (!any) return NULL;
    const char *c = d->c_name;
    if (strncmp(c, "aoti_torch_", 11) == 0) c += 11;
    return sg_arena_printf(e->a, "shimrt_entry_%s", c);
}

const char *em_entry_params(emitter *e, const sg_schema *s, const sg_emit_decl *d) {
    sg_buf b = {0};
    if (d->n_params == 0) sg_buf_puts(&b, "void");
    for (int i = 0; i < d->n_params; i++) {
        const char *et = em_entry_type(s, &d->params[i]);
        if (i) sg_buf_put(&b, ", ", 2);
        sg_buf_puts(&b, et ? et : d->params[i].type);
        sg_buf_putc(&b, ' ');
        sg_buf_puts(&b, d->params[i].name);
    }
    return em_buf_str(e, &b);
}

bool em_returns_handles(const sg_schema *s) { return !(s->out_start < s->n_args) && !s->inplace; }

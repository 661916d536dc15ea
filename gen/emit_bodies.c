/* gen/emit_bodies.c: the code behind the headers (default mode only).
 *
 *   <key>_kernels.h      the prototype of every kernel the shims call (docs/kernels.md)
 *   c_shim_<backend>.c   aoti_torch_<backend>_<op>: check and convert, call the kernel
 *   c_shim_aten.c        aoti_torch_aten_<op>: pack a stack, call through a cached op handle
 *   c_boxed_<backend>.h/.c  a boxed kernel per op (unpack, call the shim, push), and one
 *                        registration function per namespace: shimgen_register_<ns>_<backend>
 *
 * Every piece of text comes from the sections of templates/bodies.in (sg_tpl_set); this file
 * only chooses sections (by the kind of each argument or return, sg_arg_kind) and fills
 * their slots. A kind without the section a form needs gets no body of that form: the shim
 * then fails at run time with the reason (a warning at generation), and a boxed kernel is
 * left out of the registration (the op stays defined).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shimrt/codes.h>

#include "emit.h"

#define BODIES_FILE "bodies.in"

typedef struct bodies {
    sg_context *ctx;
    const sg_model *m;
    sg_arena *a;
    const sg_tpl_set *t;
    const sg_emit_header *headers;
    int n_headers;
    const char *banner;
    sg_emit_sink *sink;
    bool quiet;
    int errors;
    bool reported_missing;
} bodies;

#define SLOTS(...) ((const sg_slot[]){__VA_ARGS__}), \
    (int)(sizeof((const sg_slot[]){__VA_ARGS__}) / sizeof(sg_slot))

static bool has(const bodies *B, const char *section) {
    return sg_tpl_set_get(B->t, section) != NULL;
}

/* Renders a section that must exist. */
static void put(bodies *B, sg_buf *out, const char *section, const sg_slot *slots, int n) {
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
static const char *str(bodies *B, const char *section, const sg_slot *slots, int n) {
    sg_buf b = {0};
    put(B, &b, section, slots, n);
    if (b.oom) {
        sg_buf_free(&b);
        return "";
    }
    return b.len ? sg_buf_to_arena(&b, B->a) : "";
}

static const char *join_sep(sg_buf *b) { return b->len ? "\n" : ""; }

static const char *buf_str(bodies *B, sg_buf *b) {
    if (!b->len || b->oom) {
        sg_buf_free(b);
        return "";
    }
    const char *s = sg_buf_to_arena(b, B->a);
    return s ? s : "";
}

static const char *fmt_int(bodies *B, long long v) { return sg_arena_printf(B->a, "%lld", v); }

/* The schema as the runtime defines it inside its namespace: without a leading `ns::`. */
static const char *def_schema(bodies *B, const sg_native_function *fn) {
    const char *s = sg_text_schema(B->a, fn);
    const char *ns = fn->func->ns;
    size_t n = ns ? strlen(ns) : 0;
    if (n && strncmp(s, ns, n) == 0 && s[n] == ':' && s[n + 1] == ':') return s + n + 2;
    return s;
}

static const char *op_ns(bodies *B, const sg_emit_shim *s) {
    const char *dot = strchr(s->op->key, '.');
    return dot ? sg_arena_strndup(B->a, s->op->key, (size_t)(dot - s->op->key)) : "aten";
}

/* "add.Tensor", "copy_": the name the dispatcher knows inside its namespace. */
static const char *op_name(bodies *B, const sg_schema *s) {
    if (s->overload && *s->overload) return sg_arena_printf(B->a, "%s.%s", s->name, s->overload);
    return s->name;
}

static const char *params_text(bodies *B, const sg_emit_decl *d, const sg_schema *kernel_of) {
    sg_buf b = {0};
    if (d->n_params == 0) sg_buf_puts(&b, "void");
    for (int i = 0; i < d->n_params; i++) {
        if (i) sg_buf_put(&b, ", ", 2);
        sg_buf_puts(&b, kernel_of ? sg_kernel_param_type(kernel_of, &d->params[i])
                                  : d->params[i].type);
        sg_buf_putc(&b, ' ');
        sg_buf_puts(&b, d->params[i].name);
    }
    return buf_str(B, &b);
}

static const char *kind_of(const sg_schema *s, const sg_cparam *p) {
    return sg_arg_kind(s->args[p->index].type);
}

static void warn(bodies *B, const sg_emit_shim *s, const char *what, const char *why) {
    if (B->quiet) return;
    sg_diag(B->ctx, SG_DIAG_WARNING, s->op->loc, "%s: %s: %s", s->op->key, what, why);
}

/* A body that only fails: the declaration stays, with the reason at run time. */
static void put_stub(bodies *B, sg_buf *out, const sg_emit_shim *s, const sg_emit_decl *d,
                     const char *why) {
    sg_buf unused = {0};
    for (int i = 0; i < d->n_params; i++) {
        put(B, &unused, "unused", SLOTS({"name", d->params[i].name, 0}));
        sg_buf_putc(&unused, '\n');
    }
    put(B, out, "shim_body_stub",
        SLOTS({"op", s->op->key, 0}, {"schema", sg_text_comment_safe(B->a, sg_text_schema(B->a, s->fn)), 0},
              {"reason", sg_text_comment_safe(B->a, why), 0}, {"name", d->c_name, 0},
              {"params", params_text(B, d, NULL), 0}, {"unused", buf_str(B, &unused), 0},
              {"message", sg_text_c_escape(B->a, sg_arena_printf(B->a, "%s", why), true), 0}));
}

/* ---- Defaults of the arguments an older version leaves out ------------------------------ */
/* The integer code of an identifier default (`ScalarType dtype=long`,
 * `MemoryFormat memory_format=contiguous_format`): the codes of shimrt/codes.h under their
 * names, and the spellings PyTorch's schemas also use. */
static int ident_code(const char *id) {
#define ROW_(N, name, code) {#name, code},
    static const struct { const char *name; int code; } k[] = {
        SHIMRT_DTYPES(ROW_) SHIMRT_MEMORY_FORMATS(ROW_) SHIMRT_LAYOUTS(ROW_)
        SHIMRT_REDUCTIONS(ROW_) SHIMRT_QSCHEMES(ROW_)
        {"int", SHIMRT_INT32}, {"long", SHIMRT_INT64}, {"half", SHIMRT_FLOAT16},
        {"float", SHIMRT_FLOAT32}, {"double", SHIMRT_FLOAT64}, {"cfloat", SHIMRT_COMPLEX64},
        {"cdouble", SHIMRT_COMPLEX128},
    };
#undef ROW_
    for (size_t i = 0; i < sizeof k / sizeof *k; i++)
        if (strcmp(k[i].name, id) == 0) return k[i].code;
    return -1;
}

/* One default's C text: section default_[opt_]<family> of bodies.in with its value. */
static const char *default_text(bodies *B, bool opt, const char *family, const char *value) {
    return str(B, sg_arena_printf(B->a, "default_%s%s", opt ? "opt_" : "", family),
               SLOTS({"value", value, 0}));
}

/* The C text of an int list default: default_int_list of its items, NULL when empty. */
static const char *int_list_text(bodies *B, const char *const *items, int n) {
    if (n == 0) return str(B, "default_none", NULL, 0);
    sg_buf b = {0};
    for (int i = 0; i < n; i++) {
        if (i) sg_buf_put(&b, ", ", 2);
        put(B, &b, "default_int_list_item", SLOTS({"value", items[i], 0}));
    }
    return str(B, "default_int_list", SLOTS({"items", buf_str(B, &b), 0}));
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
        *val = str(B, "default_none", NULL, 0);
        if (strcmp(k, "opt_device") == 0) *extra = str(B, "default_none_device_index", NULL, 0);
        return true;
    case SG_DEF_BOOL:
        if (strcmp(base, "bool") != 0) return false;
        *val = default_text(B, opt, "bool", arg->default_value.i ? "1" : "0");
        return true;
    case SG_DEF_INT:
    case SG_DEF_FLOAT: {
        bool is_float = arg->default_kind == SG_DEF_FLOAT;
        if (strcmp(base, "int") == 0 && !is_float) {
            *val = default_text(B, opt, "int", t);
        } else if (strcmp(base, "float") == 0 || strcmp(base, "scalar") == 0) {
            *val = default_text(B, opt, "float", t);
        } else if (strcmp(base, "int_list") == 0 && !opt && !is_float &&
                   arg->type->kind == SG_TY_LIST && arg->type->size > 0) {
            /* `int[2] stride=1`: the value repeated to the list's size */
            int n = arg->type->size;
            const char **items = sg_arena_alloc(B->a, sizeof *items * (size_t)n);
            if (!items) return false;
            for (int i = 0; i < n; i++) items[i] = t;
            *val = int_list_text(B, items, n);
            *extra = fmt_int(B, n);
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
            items[n++] = sg_arena_strndup(B->a, p, (size_t)(q - p));
            p = q;
        }
        *val = int_list_text(B, items, n);
        if (n) *extra = fmt_int(B, n);
        return true;
    }
    case SG_DEF_IDENT: {
        int code = ident_code(arg->default_value.s ? arg->default_value.s : t);
        if (code < 0) return false;
        if (strcmp(base, "code") == 0)
            *val = default_text(B, opt, "code", fmt_int(B, code));
        else if (strcmp(base, "int") == 0)
            *val = default_text(B, opt, "int_ident", fmt_int(B, code));
        else
            return false;
        return true;
    }
    default:
        return false;
    }
}

/* A lower version: calls the highest one with the defaults of what it leaves out. */
static void put_version_body(bodies *B, sg_buf *out, const sg_emit_shim *s,
                             const sg_emit_decl *d) {
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
                warn(B, s, d->c_name, why);
                put_stub(B, out, s, d, why);
                return;
            }
            v = p->role == SG_CP_ARG ? val : extra;
            if (p->role == SG_CP_ARG)
                sg_buf_printf(&omitted, "%s%s", omitted.len ? ", " : "", arg->name);
        }
        if (i) sg_buf_put(&args, ", ", 2);
        sg_buf_puts(&args, v);
    }
    put(B, out, "shim_body_version",
        SLOTS({"op", s->op->key, 0}, {"version", fmt_int(B, d->version), 0},
              {"omitted", buf_str(B, &omitted), 0}, {"name", d->c_name, 0},
              {"params", params_text(B, d, NULL), 0}, {"target", top->c_name, 0},
              {"args", buf_str(B, &args), 0}));
}

/* ---- <key>_kernels.h -------------------------------------------------------------------- */
typedef struct kernel_use {
    const sg_emit_shim *shim;
    const char *key, *file;
    const char *params; /* kernel prototype parameters */
    bool delegated;     /* the kernel is the structured_delegate's */
    bool declared;      /* this use declares it (first of its name) */
    const char *conflict; /* why the shim cannot call it, or NULL */
} kernel_use;

static const char *key_file(bodies *B, const char *key) {
    char *f = sg_arena_printf(B->a, "%s_kernels.h", key);
    if (!f) return "kernels.h";
    for (char *p = f; *p && p < f + strlen(key); p++)
        *p = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '_';
    return f;
}

static bool names_kernel(const sg_native_function *fn, const char *kernel) {
    for (int k = 0; k < fn->n_dispatch; k++)
        if (strcmp(fn->dispatch[k].kernel, kernel) == 0) return true;
    return false;
}

static int cmp_use(const void *x, const void *y) {
    const kernel_use *a = x, *b = y;
    int c = strcmp(a->shim->op->key, b->shim->op->key);
    if (c) return c;
    c = strcmp(a->key, b->key);
    return c ? c : strcmp(a->shim->kernel, b->shim->kernel);
}

/* Collects every (shim, kernel) of the device headers; marks which use declares each kernel
 * and which cannot call it. Returns the array (arena) and its size. */
static kernel_use *plan_kernels(bodies *B, int *n_out) {
    int n = 0;
    for (int h = 0; h < B->n_headers; h++)
        if (B->headers[h].dispatch_key) n += B->headers[h].n_shims;
    kernel_use *u = sg_arena_alloc(B->a, sizeof *u * (size_t)(n ? n : 1));
    if (!u) return NULL;
    n = 0;
    for (int h = 0; h < B->n_headers; h++) {
        const sg_emit_header *hd = &B->headers[h];
        if (!hd->dispatch_key) continue;
        for (int i = 0; i < hd->n_shims; i++) {
            const sg_emit_shim *s = &hd->shims[i];
            kernel_use *k = &u[n++];
            memset(k, 0, sizeof *k);
            k->shim = s;
            k->key = s->kernel_key;
            k->file = key_file(B, s->kernel_key);
            k->params = params_text(B, &s->decls[0], s->fn->func);
            k->delegated = s->fn->delegate && !names_kernel(s->fn, s->kernel);
        }
    }
    qsort(u, (size_t)n, sizeof *u, cmp_use);
    /* The prototype of a kernel comes from the first op (in key order) whose own dispatch
     * names it; an op calling it with another prototype cannot have a body. Each header
     * declares each of its kernels once (a kernel of several keys is in each header). */
    bool *ok = sg_arena_alloc(B->a, sizeof *ok * (size_t)(n ? n : 1));
    if (!ok) return NULL;
    memset(ok, 0, sizeof *ok * (size_t)(n ? n : 1));
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            kernel_use *k = &u[i];
            if (k->delegated != (pass == 1)) continue;
            const kernel_use *first = NULL;
            bool in_file = false;
            for (int j = 0; j < n; j++) {
                if (!ok[j] || strcmp(u[j].shim->kernel, k->shim->kernel) != 0) continue;
                if (!first) first = &u[j];
                in_file |= strcmp(u[j].file, k->file) == 0;
            }
            if (first && strcmp(first->params, k->params) != 0) {
                k->conflict = sg_arena_printf(
                    B->a, "its %s kernel %s is declared with the prototype of %s%s",
                    k->key, k->shim->kernel, first->shim->op->key,
                    k->delegated ? " (it comes from the structured_delegate)" : "");
            } else if (!first && k->delegated) {
                k->conflict = sg_arena_printf(
                    B->a,
                    "its %s kernel %s comes from structured_delegate %s, whose C form differs "
                    "(name a kernel of its own in dispatch)",
                    k->key, k->shim->kernel, k->shim->fn->structured_delegate);
            } else {
                ok[i] = true;
                k->declared = !in_file;
            }
        }
    *n_out = n;
    return u;
}

/* The kernel headers a device header's shims need, in name order (arena array). */
static const char **used_files(bodies *B, const sg_emit_header *h, const kernel_use *u, int n_u,
                               int *n_out);

static bool in_list(const char *const *v, int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0) return true;
    return false;
}

/* One header per dispatch key (<key>_kernels.h). A backend's own header
 * (cpu_kernels.h) also includes the headers of the other kernels its shims call
 * (CompositeExplicitAutograd, ...), so that it alone declares every kernel of the backend. */
static void emit_kernel_headers(bodies *B, const kernel_use *u, int n) {
    int cap = n + B->n_headers + 1, n_files = 0;
    const char **files = sg_arena_alloc(B->a, sizeof *files * (size_t)cap);
    if (!files) return;
    for (int i = 0; i < n; i++)
        if (u[i].declared && !in_list(files, n_files, u[i].file)) files[n_files++] = u[i].file;
    for (int h = 0; h < B->n_headers; h++) {
        if (!B->headers[h].dispatch_key) continue;
        const char *f = key_file(B, B->headers[h].dispatch_key);
        if (!in_list(files, n_files, f)) files[n_files++] = f;
    }
    for (int a = 0; a < n_files; a++) /* name order */
        for (int b = a + 1; b < n_files; b++)
            if (strcmp(files[b], files[a]) < 0) {
                const char *t = files[a];
                files[a] = files[b];
                files[b] = t;
            }
    for (int f = 0; f < n_files; f++) {
        const char *file = files[f];
        sg_buf decls = {0}, incs = {0}, out = {0};
        const char *key = NULL;
        for (int i = 0; i < n; i++) {
            if (!u[i].declared || strcmp(u[i].file, file) != 0) continue;
            key = u[i].key;
            if (decls.len) sg_buf_putc(&decls, '\n');
            put(B, &decls, "kernel_decl",
                SLOTS({"op", u[i].shim->op->key, 0},
                      {"schema", sg_text_comment_safe(B->a, sg_text_schema(B->a, u[i].shim->fn)), 0},
                      {"key", u[i].key, 0}, {"kernel", u[i].shim->kernel, 0},
                      {"params", u[i].params, 0}));
        }
        const char *inc[64];
        int n_inc = 0;
        for (int h = 0; h < B->n_headers; h++) {
            const sg_emit_header *hd = &B->headers[h];
            if (!hd->dispatch_key || strcmp(key_file(B, hd->dispatch_key), file) != 0) continue;
            key = hd->dispatch_key;
            int n_used = 0;
            const char **used = used_files(B, hd, u, n, &n_used);
            for (int k = 0; used && k < n_used; k++)
                if (strcmp(used[k], file) != 0 && !in_list(inc, n_inc, used[k]) && n_inc < 64)
                    inc[n_inc++] = used[k];
        }
        for (int k = 0; k < n_inc; k++) {
            sg_buf_puts(&incs, join_sep(&incs));
            put(B, &incs, "include", SLOTS({"file", inc[k], 0}));
        }
        if (!decls.len) put(B, &decls, "no_kernels", SLOTS({"key", key ? key : "", 0}));
        put(B, &out, n_inc ? "kernels_h_backend" : "kernels_h",
            SLOTS({"file", file, 0}, {"key", key ? key : "", 0},
                  {"generator", "shimgen " SHIMGEN_VERSION, 0}, {"inputs", B->banner, 0},
                  {"guard", sg_text_guard(B->a, file), 0}, {"includes", buf_str(B, &incs), 0},
                  {"declarations", buf_str(B, &decls), 0}));
        B->sink->add_file(B->sink->user, file, &out);
    }
}

/* ---- c_shim_<backend>.c ------------------------------------------------------------------ */
static const char *karg_section(bodies *B, const char *kind) {
    const char *sec = sg_arena_printf(B->a, "karg_%s", kind);
    if (sec && has(B, sec)) return sec;
    size_t n = strlen(kind);
    return n > 5 && strcmp(kind + n - 5, "_list") == 0 ? "karg_list" : "karg_one";
}

static void put_shim_body(bodies *B, sg_buf *out, const sg_emit_shim *s, const kernel_use *use) {
    const sg_emit_decl *d = &s->decls[0];
    const sg_schema *sc = s->fn->func;
    if (use && use->conflict) {
        warn(B, s, d->c_name, use->conflict);
        put_stub(B, out, s, d, use->conflict);
        return;
    }
    sg_buf checks = {0}, arrays = {0}, fills = {0}, frees = {0}, args = {0};
    for (int i = 0; i < d->n_params; i++) {
        const sg_cparam *p = &d->params[i];
        if (p->role == SG_CP_LEN || p->role == SG_CP_DEVICE_INDEX) continue;
        const char *kind = p->role == SG_CP_RET ? "ret" : kind_of(sc, p);
        const sg_slot nm[] = {{"name", p->name, 0}};
        const char *sec = sg_arena_printf(B->a, "check_%s", kind);
        if (has(B, sec)) {
            put(B, &checks, sec, nm, 1);
            sg_buf_putc(&checks, '\n');
        }
        sec = sg_arena_printf(B->a, "array_decl_%s", kind);
        if (has(B, sec)) {
            put(B, &arrays, sec, nm, 1);
            sg_buf_putc(&arrays, '\n');
            put(B, &fills, sg_arena_printf(B->a, "array_fill_%s", kind), nm, 1);
            sg_buf_putc(&fills, '\n');
            put(B, &frees, sg_arena_printf(B->a, "array_free_%s", kind), nm, 1);
            sg_buf_putc(&frees, '\n');
        }
        if (args.len) sg_buf_put(&args, ", ", 2);
        put(B, &args, p->role == SG_CP_RET ? "karg_ret" : karg_section(B, kind), nm, 1);
    }
    bool with_arrays = arrays.len > 0;
    const sg_slot slots[] = {
        {"op", s->op->key, 0},
        {"schema", sg_text_comment_safe(B->a, sg_text_schema(B->a, s->fn)), 0},
        {"kernel", s->kernel, 0},
        {"key", s->kernel_key, 0},
        {"name", d->c_name, 0},
        {"params", params_text(B, d, NULL), 0},
        {"checks", buf_str(B, &checks), 0},
        {"arrays", buf_str(B, &arrays), 0},
        {"fills", buf_str(B, &fills), 0},
        {"frees", buf_str(B, &frees), 0},
        {"args", buf_str(B, &args), 0},
    };
    put(B, out, with_arrays ? "shim_body_arrays" : "shim_body", slots,
        (int)(sizeof slots / sizeof *slots));
}

static const kernel_use *find_use(const kernel_use *u, int n, const sg_emit_shim *s) {
    for (int i = 0; i < n; i++)
        if (u[i].shim == s) return &u[i];
    return NULL;
}

static const char **used_files(bodies *B, const sg_emit_header *h, const kernel_use *u, int n_u,
                               int *n_out) {
    const char **v = sg_arena_alloc(B->a, sizeof *v * (size_t)(h->n_shims + 1));
    int n = 0;
    if (!v) return NULL;
    for (int i = 0; i < h->n_shims; i++) {
        const kernel_use *k = find_use(u, n_u, &h->shims[i]);
        if (k && !k->conflict && !in_list(v, n, k->file)) v[n++] = k->file;
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (strcmp(v[b], v[a]) < 0) {
                const char *t = v[a];
                v[a] = v[b];
                v[b] = t;
            }
    *n_out = n;
    return v;
}

static void emit_shim_c(bodies *B, const sg_emit_header *h, const kernel_use *u, int n_u) {
    sg_buf includes = {0}, out = {0}, all = {0};
    /* The kernel headers this file needs, in name order, each once. */
    int n_used = 0;
    const char **used = used_files(B, h, u, n_u, &n_used);
    for (int k = 0; used && k < n_used; k++) {
        sg_buf_puts(&includes, join_sep(&includes));
        put(B, &includes, "include", SLOTS({"file", used[k], 0}));
    }
    for (int i = 0; i < h->n_shims; i++) {
        const sg_emit_shim *s = &h->shims[i];
        for (int d = 0; d < s->n_decls; d++) {
            if (all.len) sg_buf_put(&all, "\n\n", 2);
            if (d == 0)
                put_shim_body(B, &all, s, find_use(u, n_u, s));
            else
                put_version_body(B, &all, s, &s->decls[d]);
        }
    }
    const char *file = sg_arena_printf(B->a, "c_shim_%s.c", h->backend);
    put(B, &out, "shim_c",
        SLOTS({"file", file, 0}, {"backend", h->backend, 0},
              {"generator", "shimgen " SHIMGEN_VERSION, 0}, {"inputs", B->banner, 0},
              {"header", h->file, 0}, {"includes", buf_str(B, &includes), 0},
              {"bodies", buf_str(B, &all), 0}));
    B->sink->add_file(B->sink->user, file, &out);
}

/* ---- c_shim_aten.c ------------------------------------------------------------------------ */
/* Index of the argument return j aliases (`Tensor(a!)` in both), or -1. */
static int alias_arg(const sg_schema *s, int j) {
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

static bool returns_handles(const sg_schema *s) {
    return !(s->out_start < s->n_args) && !s->inplace;
}

static void put_aten_body(bodies *B, sg_buf *out, const sg_emit_shim *s) {
    const sg_emit_decl *d = &s->decls[0];
    const sg_schema *sc = s->fn->func;
    sg_buf checks = {0}, packs = {0}, pops = {0};
    const char *why = NULL;
    /* Packs, in schema order (the shim's order puts out arguments first). */
    for (int a = 0; a < sc->n_args && !why; a++) {
        const sg_cparam *p = NULL;
        for (int i = 0; i < d->n_params && !p; i++)
            if (d->params[i].role == SG_CP_ARG && d->params[i].index == a) p = &d->params[i];
        const char *kind = sg_arg_kind(sc->args[a].type);
        const char *sec = kind ? sg_arena_printf(B->a, "pack_%s", kind) : NULL;
        if (!p || !sec || !has(B, sec)) {
            why = sg_arena_printf(B->a, "argument '%s' of type '%s' cannot be passed through the dispatcher",
                                  sc->args[a].name, sg_text_type(B->a, sc->args[a].type));
            break;
        }
        put(B, &packs, sec, SLOTS({"name", p->name, 0}));
        sg_buf_putc(&packs, '\n');
    }
    bool rets = returns_handles(sc);
    for (int j = 0; j < sc->n_rets && !why; j++) {
        const char *jj = fmt_int(B, j);
        if (!rets) {
            const sg_kind_info *rk = sg_kind_get(sg_kind_of_arg(sc->rets[j].type));
            if (!rk) {
                why = sg_arena_printf(B->a, "return %d of type '%s' cannot be dropped", j,
                                      sg_text_type(B->a, sc->rets[j].type));
                break;
            }
            put(B, &pops, "pop_discard",
                SLOTS({"kind", sg_kind_code_name(rk), 0}, {"j", jj, 0}));
            sg_buf_putc(&pops, '\n');
            continue;
        }
        const char *name = sg_arena_printf(B->a, "ret%d", j);
        const char *kind = sg_ret_kind(sc->rets[j].type);
        const char *sec = kind ? sg_arena_printf(B->a, "pop_%s", kind) : NULL;
        if (!sec || !has(B, sec)) {
            why = sg_arena_printf(B->a, "return %d of type '%s' cannot come back through the dispatcher",
                                  j, sg_text_type(B->a, sc->rets[j].type));
            break;
        }
        put(B, &checks, "check_ret", SLOTS({"name", name, 0}));
        sg_buf_putc(&checks, '\n');
        put(B, &pops, sec, SLOTS({"name", name, 0}, {"j", jj, 0}));
        sg_buf_putc(&pops, '\n');
    }
    if (why) {
        sg_buf_free(&checks);
        sg_buf_free(&packs);
        sg_buf_free(&pops);
        warn(B, s, d->c_name, why);
        put_stub(B, out, s, d, why);
        return;
    }
    int size = sc->n_args > sc->n_rets ? sc->n_args : sc->n_rets;
    const char *qname = sg_arena_printf(B->a, "%s::%s", sc->ns ? sc->ns : "aten", sc->name);
    const sg_slot slots[] = {
        {"op", s->op->key, 0},
        {"schema", sg_text_comment_safe(B->a, sg_text_schema(B->a, s->fn)), 0},
        {"name", d->c_name, 0},
        {"params", params_text(B, d, NULL), 0},
        {"stack_size", fmt_int(B, size ? size : 1), 0},
        {"checks", buf_str(B, &checks), 0},
        {"packs", buf_str(B, &packs), 0},
        {"pops", buf_str(B, &pops), 0},
        {"qualified_name", qname, 0},
        {"overload", sc->overload ? sc->overload : "", 0},
    };
    put(B, out, "aten_body", slots, (int)(sizeof slots / sizeof *slots));
}

static void emit_aten_c(bodies *B, const sg_emit_header *h) {
    sg_buf all = {0}, out = {0};
    for (int i = 0; i < h->n_shims; i++) {
        const sg_emit_shim *s = &h->shims[i];
        for (int d = 0; d < s->n_decls; d++) {
            if (all.len) sg_buf_put(&all, "\n\n", 2);
            if (d == 0)
                put_aten_body(B, &all, s);
            else
                put_version_body(B, &all, s, &s->decls[d]);
        }
    }
    put(B, &out, "aten_c",
        SLOTS({"file", "c_shim_aten.c", 0}, {"generator", "shimgen " SHIMGEN_VERSION, 0},
              {"inputs", B->banner, 0}, {"header", h->file, 0},
              {"bodies", buf_str(B, &all), 0}));
    B->sink->add_file(B->sink->user, "c_shim_aten.c", &out);
}

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
        for (int i = 0; i < d->n_params && !p; i++)
            if (d->params[i].role == SG_CP_ARG && d->params[i].index == a) p = &d->params[i];
        const char *kind = sg_arg_kind(sc->args[a].type);
        const char *sec = kind ? sg_arena_printf(B->a, "box_%s", kind) : NULL;
        if (!p || !sec || !has(B, sec)) {
            why = sg_arena_printf(B->a, "argument '%s' of type '%s' has no boxed form",
                                  sc->args[a].name, sg_text_type(B->a, sc->args[a].type));
            break;
        }
        put(B, &unpacks, sec, SLOTS({"name", p->name, 0}, {"i", fmt_int(B, a), 0}));
        sg_buf_putc(&unpacks, '\n');
        /* The kind code the box releases the value by (SHIMRT_KIND_NONE: owns nothing). */
        const sg_kind_info *ki = sg_kind_get(sg_kind_of_arg(sc->args[a].type));
        if (types.len) sg_buf_put(&types, ", ", 2);
        owning |= ki->owns;
        put(B, &types, "arg_kind", SLOTS({"kind", sg_kind_code_name(ki), 0}));
    }
    bool handles = returns_handles(sc);
    for (int j = 0; j < sc->n_rets && !why; j++) {
        const char *jj = fmt_int(B, j);
        if (!handles) {
            int i = alias_arg(sc, j);
            if (i < 0) {
                why = sg_arena_printf(B->a, "return %d aliases no mutable argument", j);
                break;
            }
            const char *ii = fmt_int(B, i);
            put(B, &keeps, "keep", SLOTS({"i", ii, 0}));
            sg_buf_putc(&keeps, '\n');
            put(B, &pushes, "push_alias", SLOTS({"i", ii, 0}, {"j", jj, 0}));
            sg_buf_putc(&pushes, '\n');
            continue;
        }
        const char *kind = sg_ret_kind(sc->rets[j].type);
        const char *name = sg_arena_printf(B->a, "ret%d", j);
        const char *rsec = kind ? sg_arena_printf(B->a, "ret_%s", kind) : NULL;
        const char *psec = kind ? sg_arena_printf(B->a, "push_%s", kind) : NULL;
        if (!rsec || !has(B, rsec) || !has(B, psec)) {
            why = sg_arena_printf(B->a, "return %d of type '%s' has no boxed form", j,
                                  sg_text_type(B->a, sc->rets[j].type));
            break;
        }
        put(B, &rets, rsec, SLOTS({"name", name, 0}));
        sg_buf_putc(&rets, '\n');
        put(B, &pushes, psec, SLOTS({"name", name, 0}, {"j", jj, 0}));
        sg_buf_putc(&pushes, '\n');
    }
    for (int i = 0; i < d->n_params && !why; i++) {
        if (i) sg_buf_put(&args, ", ", 2);
        put(B, &args, d->params[i].role == SG_CP_RET ? "call_arg_ret" : "call_arg",
            SLOTS({"name", d->params[i].name, 0}));
    }
    if (why) {
        sg_buf_free(&types);
        sg_buf_free(&unpacks);
        sg_buf_free(&rets);
        sg_buf_free(&keeps);
        sg_buf_free(&args);
        sg_buf_free(&pushes);
        warn(B, s, "no boxed kernel (the op stays defined, without a kernel)", why);
        return false;
    }
    const char *arg_kinds = "", *arg_kinds_ref = "NULL";
    if (owning) {
        arg_kinds = str(B, "arg_kinds",
                        SLOTS({"n", fmt_int(B, sc->n_args), 0}, {"kinds", buf_str(B, &types), 0}));
        arg_kinds_ref = str(B, "arg_kinds_ref", NULL, 0);
    } else {
        sg_buf_free(&types);
    }
    const sg_slot slots[] = {
        {"op", s->op->key, 0},
        {"schema", sg_text_comment_safe(B->a, sg_text_schema(B->a, s->fn)), 0},
        {"name", boxed_name(B, s), 0},
        {"op_name", sg_text_c_escape(B->a, op_name(B, sc), false), 0},
        {"n_args", fmt_int(B, sc->n_args), 0},
        {"n_outputs", fmt_int(B, sc->n_rets), 0},
        {"arg_kinds", arg_kinds, 0},
        {"arg_kinds_ref", arg_kinds_ref, 0},
        {"unpacks", buf_str(B, &unpacks), 0},
        {"rets", buf_str(B, &rets), 0},
        {"keeps", buf_str(B, &keeps), 0},
        {"shim", d->c_name, 0},
        {"args", buf_str(B, &args), 0},
        {"pushes", buf_str(B, &pushes), 0},
    };
    put(B, out, "boxed_body", slots, (int)(sizeof slots / sizeof *slots));
    return true;
}

/* Every op of every planned header (fallback and aten), each once, in key order. */
typedef struct def_op {
    const char *key, *ns;
    const sg_emit_shim *shim;
} def_op;

static int cmp_def(const void *x, const void *y) {
    return strcmp(((const def_op *)x)->key, ((const def_op *)y)->key);
}

static def_op *plan_defs(bodies *B, int *n_out) {
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
            if (!dup) v[n++] = (def_op){s->op->key, op_ns(B, s), s};
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
    return b.len ? buf_str(B, &b) : NULL;
}

static void emit_boxed(bodies *B, const sg_emit_header *h, const def_op *defs, int n_defs) {
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
        sg_buf_puts(&decls, join_sep(&decls));
        put(B, &decls, "boxed_decl", SLOTS({"name", boxed[i], 0}));
    }
    /* One registration function per namespace, namespaces in key order. */
    for (int k = 0; k < n_defs; k++) {
        if (k > 0 && strcmp(defs[k - 1].ns, defs[k].ns) == 0) continue;
        const char *ns = defs[k].ns;
        sg_buf de = {0}, ie = {0};
        int nd = 0, ni = 0;
        for (int q = k; q < n_defs && strcmp(defs[q].ns, ns) == 0; q++) {
            const char *tags = tag_bits(B, defs[q].shim->fn);
            sg_buf_puts(&de, join_sep(&de));
            put(B, &de, "def_entry",
                SLOTS({"schema", sg_text_c_escape(B->a, def_schema(B, defs[q].shim->fn), false), 0},
                      {"tags", tags ? str(B, "tags", SLOTS({"tags", tags, 0})) : str(B, "no_tags", NULL, 0), 0}));
            nd++;
        }
        for (int i = 0; i < h->n_shims; i++) {
            if (!boxed[i] || strcmp(op_ns(B, &h->shims[i]), ns) != 0) continue;
            sg_buf_puts(&ie, join_sep(&ie));
            put(B, &ie, "impl_entry",
                SLOTS({"op_name", sg_text_c_escape(B->a, op_name(B, h->shims[i].fn->func), false), 0},
                      {"boxed", boxed[i], 0}));
            ni++;
        }
        const char *fname = sg_arena_printf(B->a, "shimgen_register_%s_%s", ns, h->backend);
        const char *defs_ref = "NULL", *impls_ref = "NULL";
        if (all.len) sg_buf_put(&all, "\n\n", 2);
        if (nd) {
            defs_ref = sg_arena_printf(B->a, "defs_%s", ns);
            put(B, &all, "defs_table",
                SLOTS({"ns", ns, 0}, {"table", defs_ref, 0}, {"n", fmt_int(B, nd), 0},
                      {"entries", buf_str(B, &de), 0}));
            sg_buf_put(&all, "\n\n", 2);
        } else {
            sg_buf_free(&de);
        }
        if (ni) {
            impls_ref = sg_arena_printf(B->a, "impls_%s_%s", ns, h->backend);
            put(B, &all, "impls_table",
                SLOTS({"ns", ns, 0}, {"backend", h->backend, 0}, {"table", impls_ref, 0},
                      {"n", fmt_int(B, ni), 0}, {"entries", buf_str(B, &ie), 0}));
            sg_buf_put(&all, "\n\n", 2);
        } else {
            sg_buf_free(&ie);
        }
        put(B, &all, "register_fn",
            SLOTS({"name", fname, 0}, {"ns", ns, 0}, {"dispatch_key", h->dispatch_key, 0},
                  {"defs", defs_ref, 0}, {"n_defs", fmt_int(B, nd), 0}, {"impls", impls_ref, 0},
                  {"n_impls", fmt_int(B, ni), 0}));
        if (regs.len) sg_buf_put(&regs, "\n\n", 2);
        put(B, &regs, "register_decl",
            SLOTS({"name", fname, 0}, {"ns", ns, 0}, {"backend", h->backend, 0},
                  {"dispatch_key", h->dispatch_key, 0}));
        sg_buf *mr = &B->sink->registrations;
        if (mr->len) sg_buf_put(mr, ",\n", 2);
        put(B, mr, "manifest_registration",
            SLOTS({"name", fname, 0}, {"ns", ns, 0}, {"backend", h->backend, 0},
                  {"dispatch_key", h->dispatch_key, 0},
                  {"header", sg_arena_printf(B->a, "c_boxed_%s.h", h->backend), 0},
                  {"n_defs", fmt_int(B, nd), 0}, {"n_impls", fmt_int(B, ni), 0}));
    }
    const char *hfile = sg_arena_printf(B->a, "c_boxed_%s.h", h->backend);
    const char *cfile = sg_arena_printf(B->a, "c_boxed_%s.c", h->backend);
    put(B, &out_h, "boxed_h",
        SLOTS({"file", hfile, 0}, {"backend", h->backend, 0},
              {"generator", "shimgen " SHIMGEN_VERSION, 0}, {"inputs", B->banner, 0},
              {"guard", sg_text_guard(B->a, hfile), 0}, {"boxed_decls", buf_str(B, &decls), 0},
              {"register_decls", buf_str(B, &regs), 0}));
    put(B, &out_c, "boxed_c",
        SLOTS({"file", cfile, 0}, {"backend", h->backend, 0},
              {"generator", "shimgen " SHIMGEN_VERSION, 0}, {"inputs", B->banner, 0},
              {"header", hfile, 0}, {"shim_header", h->file, 0},
              {"bodies", buf_str(B, &all), 0}));
    B->sink->add_file(B->sink->user, hfile, &out_h);
    B->sink->add_file(B->sink->user, cfile, &out_c);
}

/* ---- Entry point ---------------------------------------------------------------------- */
int sg_emit_bodies(sg_context *ctx, const sg_model *m, sg_arena *a, const char *tpl_dir,
                   const sg_emit_header *headers, int n_headers, const char *banner_inputs,
                   sg_emit_sink *sink) {
    bodies B = {ctx, m, a, NULL, headers, n_headers, banner_inputs ? banner_inputs : "",
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
    kernel_use *uses = plan_kernels(&B, &n_uses);
    def_op *defs = plan_defs(&B, &n_defs);
    if (!uses || !defs) {
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){NULL, 0, 0}, "out of memory");
        return 1;
    }
    emit_kernel_headers(&B, uses, n_uses);
    for (int h = 0; h < n_headers; h++) {
        if (headers[h].dispatch_key) {
            emit_shim_c(&B, &headers[h], uses, n_uses);
            emit_boxed(&B, &headers[h], defs, n_defs);
        } else {
            emit_aten_c(&B, &headers[h]);
        }
    }
    return B.errors;
}

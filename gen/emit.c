/* gen/emit.c: sg_generate, the emitters of the C shim headers and their manifest.
 *
 * Three phases, so that nothing is written on error:
 *   1. plan    for each header (one per backend, plus aten), the ops in key order, each
 *              with its kernel and its declarations (highest version first);
 *   2. render  every output file into memory from the templates in templates/;
 *   3. output  --abi-check compares with old headers, --check compares with the disk,
 *              otherwise changed files are written (temporary file + rename) and the
 *              depfile.
 * Adding an output is adding a renderer in phase 2 that appends to the file list.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

/* ---- The plan (types shared with gen/emit_bodies.c, see emit.h) ----------------------- */
typedef sg_emit_decl decl;
typedef sg_emit_shim shim;
typedef sg_emit_header header;

/* The templates, by role. */
enum {
    T_COMPAT_HEADER,
    T_COMPAT_ATEN_NOTE,
    T_HEADER,
    T_BANNER_INPUT,
    T_VERSION_MACRO,
    T_DECL,
    T_DECL_GATED,
    T_OP_BLOCK,
    T_MANIFEST,
    T_MANIFEST_FUNCTION,
    T_MANIFEST_PARAM,
    T_COUNT_
};
static const char *const kTemplateFiles[T_COUNT_] = {
    "c_shim_compat.h.in", "c_shim_compat_aten_note.in", "c_shim.h.in",
    "banner_input.in",    "version_macro.in",           "decl.in",
    "decl_gated.in",      "op_block.in",                "shim_manifest.json.in",
    "manifest_function.json.in", "manifest_param.json.in",
};

typedef struct emitter {
    sg_context *ctx;
    const sg_model *m;
    sg_arena *a;
    const sg_options *o;
    const char *out_dir;
    const sg_template *t[T_COUNT_];
    header *headers;
    int n_headers;
    sg_out_file *files;
    int n_files, cap_files;
    int errors;
    bool tpl_reported[T_COUNT_]; /* a broken template is reported once */
    const char *extra_deps[8];   /* template files the body emitters read */
    int n_extra_deps;
    sg_buf registrations;        /* the manifest's registration functions (JSON) */
} emitter;

#define SLOTS(...) ((const sg_slot[]){__VA_ARGS__}), \
    (int)(sizeof((const sg_slot[]){__VA_ARGS__}) / sizeof(sg_slot))

static void render(emitter *e, int which, sg_buf *out, const sg_slot *slots, int n) {
    const char *missing = NULL;
    if (sg_tpl_render(e->t[which], out, slots, n, &missing) != 0) {
        const char *path = sg_tpl_path(e->t[which]);
        out->oom = true; /* stop filling this output */
        if (e->tpl_reported[which]) return;
        e->tpl_reported[which] = true;
        sg_diag(e->ctx, SG_DIAG_ERROR, (sg_loc){path ? path : kTemplateFiles[which], 0, 0},
                "template uses the unknown slot {{%s}}", missing);
        e->errors++;
    }
}

static const char *kCKeywords[] = {
    "_Bool", "_Complex", "_Imaginary", "alignas", "alignof", "and", "and_eq", "asm", "auto",
    "bitand", "bitor", "bool", "break", "case", "catch", "char", "char16_t", "char32_t",
    "char8_t", "class", "co_await", "co_return", "co_yield", "compl", "concept", "const",
    "const_cast", "consteval", "constexpr", "constinit", "continue", "decltype", "default",
    "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern",
    "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable",
    "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq",
    "private", "protected", "public", "register", "reinterpret_cast", "requires", "restrict",
    "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
    "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
    "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while",
    "xor", "xor_eq",
};

static bool is_keyword(const char *s) {
    for (size_t i = 0; i < sizeof kCKeywords / sizeof *kCKeywords; i++)
        if (strcmp(kCKeywords[i], s) == 0) return true;
    return false;
}

static int cmp_op_key(const void *x, const void *y) {
    const sg_shim_op *const *a = x, *const *b = y;
    return strcmp((*a)->key, (*b)->key);
}

static sg_loc fn_loc(const sg_native_function *fn, const sg_shim_op *op, int arg) {
    if (fn && fn->func_node && arg >= 0 && fn->func && arg < fn->func->n_args)
        return sg_ynode_loc_at(fn->func_node, fn->func->args[arg].offset);
    if (fn && fn->func_loc.file) return fn->func_loc;
    if (fn && fn->derived_from && fn->derived_from->func_loc.file)
        return fn->derived_from->func_loc;
    return op->loc;
}

static bool is_c_identifier(const char *s) {
    if (!(isalpha((unsigned char)*s) || *s == '_')) return false;
    while (isalnum((unsigned char)*s) || *s == '_') s++;
    return *s == '\0';
}

/* Where `kernel` for `key` is written: the dispatch row of fn or of its delegate. */
static sg_loc kernel_loc(const sg_native_function *fn, const char *key, const char *kernel,
                         sg_loc fallback) {
    for (int pass = 0; pass < 2 && fn; pass++, fn = fn->delegate)
        for (int k = 0; k < fn->n_dispatch; k++)
            if (strcmp(fn->dispatch[k].key, key) == 0 && strcmp(fn->dispatch[k].kernel, kernel) == 0)
                return fn->dispatch[k].loc;
    return fallback;
}

/* An op that gets no shim: an error in our mode, a warning and a drop in compat mode. */
static void no_shim(emitter *e, const shim *s, const header *h, int arg, const char *why) {
    sg_diag_level lvl = e->o->compat_torchgen ? SG_DIAG_WARNING : SG_DIAG_ERROR;
    sg_diag(e->ctx, lvl, fn_loc(s->fn, s->op, arg), "%s: no C shim for backend %s: %s%s",
            s->op->key, h->backend, why, e->o->compat_torchgen ? " (dropped)" : "");
    if (e->o->compat_torchgen && e->o->verbosity < 0) return;
    sg_diag(e->ctx, SG_DIAG_NOTE, s->op->loc, "%s is listed here", s->op->key);
    if (lvl == SG_DIAG_ERROR) e->errors++;
}

/* Checks the `versions` of an op against its schema; reports and returns false when an
 * argument is unknown, repeated or has no default. */
static bool check_versions(emitter *e, const sg_shim_op *op, const sg_schema *s) {
    bool ok = true;
    for (int v = 0; v < op->n_versions; v++) {
        const sg_op_version *ver = &op->versions[v];
        for (int k = 0; k < ver->n_args; k++) {
            const char *name = ver->args[k];
            int idx = -1;
            for (int i = 0; i < s->n_args; i++)
                if (strcmp(s->args[i].name, name) == 0) idx = i;
            bool dup = false;
            for (int w = 0; w <= v && !dup; w++)
                for (int j = 0; j < (w == v ? k : op->versions[w].n_args); j++)
                    if (strcmp(op->versions[w].args[j], name) == 0) dup = true;
            const char *why = NULL;
            if (idx < 0)
                why = "which is not an argument of the op";
            else if (dup)
                why = "which an earlier version already names";
            else if (!s->args[idx].default_text)
                why = "which has no default, so the older versions cannot leave it out";
            if (why) {
                sg_diag(e->ctx, SG_DIAG_ERROR, ver->loc, "%s: v%d adds '%s', %s", op->key,
                        ver->number, name, why);
                e->errors++;
                ok = false;
            }
        }
    }
    return ok;
}

/* Plans one op of one header; returns false when it gets no shim. */
static bool plan_shim(emitter *e, const header *h, shim *s) {
    const sg_shim_op *op = s->op;
    const sg_native_function *fn = op->fn ? op->fn : sg_model_find(e->ctx, op->key);
    s->fn = fn;
    if (!fn || !fn->func) {
        sg_diag(e->ctx, SG_DIAG_ERROR, op->loc, "%s: no such op in the inputs", op->key);
        e->errors++;
        return false;
    }
    if (h->dispatch_key &&
        !sg_pick_kernel(e->a, fn, h->dispatch_key, &s->kernel_key, &s->kernel)) {
        no_shim(e, s, h, -1, sg_arena_printf(e->a, "no kernel for backend %s", h->backend));
        return false;
    }
    if (h->dispatch_key && !e->o->compat_torchgen && !is_c_identifier(s->kernel)) {
        /* The loader takes torchgen's '::'-qualified names; C code calls the kernel by name. */
        sg_diag(e->ctx, SG_DIAG_ERROR, kernel_loc(fn, s->kernel_key, s->kernel, op->loc),
                "%s: kernel '%s' for dispatch key %s is not a C identifier", op->key, s->kernel,
                s->kernel_key);
        e->errors++;
        return false;
    }
    if (!check_versions(e, op, fn->func)) return false;
    s->n_decls = op->n_versions + 1;
    s->decls = sg_arena_alloc(e->a, sizeof *s->decls * (size_t)s->n_decls);
    if (!s->decls) return false;
    for (int d = 0; d < s->n_decls; d++) {
        /* d = 0 is the highest version; version k leaves out what later versions add. */
        int vi = op->n_versions - 1 - d; /* index of this version in op->versions, -1: plain */
        int version = vi >= 0 ? op->versions[vi].number : 1;
        const char *omit[256];
        int n_omit = 0;
        for (int w = vi + 1; w < op->n_versions; w++)
            for (int k = 0; k < op->versions[w].n_args && n_omit < 256; k++)
                omit[n_omit++] = op->versions[w].args[k];
        decl *dc = &s->decls[d];
        dc->version = version;
        const sg_op_version *ov = vi >= 0 ? &op->versions[vi] : NULL;
        bool own = ov && ov->since;
        dc->since = own ? ov->since : op->since;
        dc->since_major = own ? ov->since_major : op->since_major;
        dc->since_minor = own ? ov->since_minor : op->since_minor;
        dc->c_name = sg_shim_c_name(e->a, h->backend, fn->func, version);
        const char *why = NULL;
        int bad = -1;
        if (sg_shim_params(e->a, fn->func, omit, n_omit, &dc->params, &dc->n_params, &why,
                           &bad) != 0) {
            no_shim(e, s, h, bad, why);
            return false;
        }
        if (!e->o->compat_torchgen)
            for (int i = 0; i < dc->n_params; i++)
                if (dc->params[i].role == SG_CP_ARG && is_keyword(dc->params[i].name)) {
                    no_shim(e, s, h, dc->params[i].index,
                            sg_arena_printf(e->a, "argument '%s' is a C or C++ keyword",
                                            dc->params[i].name));
                    return false;
                }
    }
    return true;
}

static void plan_header(emitter *e, header *h, const sg_shim_op **ops, int n_ops) {
    h->shims = sg_arena_alloc(e->a, sizeof *h->shims * (size_t)(n_ops ? n_ops : 1));
    if (!h->shims) return;
    for (int i = 0; i < n_ops; i++) {
        shim *s = &h->shims[h->n_shims];
        memset(s, 0, sizeof *s);
        s->op = ops[i];
        if (plan_shim(e, h, s)) h->n_shims++;
    }
    /* Two ops must not get the same C name (foo_bar.default and foo.bar do). */
    if (e->o->compat_torchgen) return;
    for (int i = 0; i < h->n_shims; i++)
        for (int d = 0; d < h->shims[i].n_decls; d++)
            for (int j = 0; j < i; j++)
                for (int f = 0; f < h->shims[j].n_decls; f++)
                    if (strcmp(h->shims[i].decls[d].c_name, h->shims[j].decls[f].c_name) == 0) {
                        sg_diag(e->ctx, SG_DIAG_ERROR, fn_loc(h->shims[i].fn, h->shims[i].op, -1),
                                "%s: its C name %s is also the C name of %s", h->shims[i].op->key,
                                h->shims[i].decls[d].c_name, h->shims[j].op->key);
                        e->errors++;
                    }
}

/* ---- Rendering ----------------------------------------------------------------------- */
static const char *version_macro(emitter *e, const decl *d) {
    return sg_arena_printf(e->a, "TORCH_VERSION_%d_%d_0", d->since_major, d->since_minor);
}

static void params_text(sg_buf *b, const decl *d, bool compat) {
    if (d->n_params == 0 && !compat) sg_buf_puts(b, "void");
    for (int i = 0; i < d->n_params; i++) {
        if (i) sg_buf_put(b, ", ", 2);
        sg_buf_puts(b, d->params[i].type);
        sg_buf_putc(b, ' ');
        sg_buf_puts(b, d->params[i].name);
    }
}

/* One declaration line, gated when the op has `since`. */
static void render_decl(emitter *e, sg_buf *out, const shim *s, const decl *d) {
    sg_buf params = {0}, line = {0};
    params_text(&params, d, e->o->compat_torchgen);
    (void)s;
    render(e, T_DECL, d->since ? &line : out,
           SLOTS({"name", d->c_name, 0}, {"params", params.data ? params.data : "", params.len}));
    if (d->since) {
        render(e, T_DECL_GATED, out,
               SLOTS({"version_macro", version_macro(e, d), 0},
                     {"declaration", line.data ? line.data : "", line.len}));
    }
    sg_buf_free(&params);
    sg_buf_free(&line);
}

/* "/" is never in a schema; "*" followed by "/" could be (an alias set `a -> *`) only
 * before a `)`, but make the comment safe anyway. */
static const char *comment_safe(emitter *e, const char *s) {
    if (!strstr(s, "*/")) return s;
    sg_buf b = {0};
    for (; *s; s++) {
        sg_buf_putc(&b, *s);
        if (s[0] == '*' && s[1] == '/') sg_buf_putc(&b, ' ');
    }
    return sg_buf_to_arena(&b, e->a);
}

static const char *schema_text(emitter *e, const sg_native_function *fn) {
    if (fn->func_text) return fn->func_text;
    return sg_schema_to_string(e->a, fn->func);
}

static void add_file(emitter *e, const char *name, sg_buf *content) {
    if (content->oom) {
        if (!e->errors) {
            sg_diag(e->ctx, SG_DIAG_ERROR, (sg_loc){name, 0, 0}, "out of memory");
            e->errors++;
        }
        sg_buf_free(content);
        return;
    }
    if (e->n_files == e->cap_files) {
        int cap = e->cap_files ? 2 * e->cap_files : 8;
        sg_out_file *f = sg_arena_alloc(e->a, sizeof *f * (size_t)cap);
        if (!f) return;
        if (e->n_files) memcpy(f, e->files, sizeof *f * (size_t)e->n_files);
        e->files = f;
        e->cap_files = cap;
    }
    sg_out_file *f = &e->files[e->n_files++];
    memset(f, 0, sizeof *f);
    f->path = sg_arena_printf(e->a, "%s/%s", e->out_dir, name);
    f->len = content->len;
    f->data = sg_buf_to_arena(content, e->a);
}

static void render_compat_header(emitter *e, const header *h) {
    sg_buf decls = {0}, note = {0}, out = {0};
    for (int i = 0; i < h->n_shims; i++)
        for (int d = 0; d < h->shims[i].n_decls; d++) {
            if (decls.len) sg_buf_putc(&decls, '\n');
            render_decl(e, &decls, &h->shims[i], &h->shims[i].decls[d]);
        }
    if (!h->dispatch_key) render(e, T_COMPAT_ATEN_NOTE, &note, NULL, 0);
    render(e, T_COMPAT_HEADER, &out,
           SLOTS({"aten_note", note.data ? note.data : "", note.len},
                 {"declarations", decls.data ? decls.data : "", decls.len}));
    sg_buf_free(&decls);
    sg_buf_free(&note);
    add_file(e, h->file, &out);
}

static const char *guard_of(emitter *e, const char *file) {
    char *g = sg_arena_printf(e->a, "SHIMGEN_%s_", file);
    if (!g) return "SHIMGEN_HEADER_";
    for (char *p = g; *p; p++)
        *p = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
    return g;
}

static void render_header(emitter *e, const header *h) {
    sg_buf inputs = {0}, macros = {0}, decls = {0}, out = {0};
    for (size_t i = 0; i < e->m->n_inputs; i++) {
        if (i) sg_buf_putc(&inputs, '\n');
        render(e, T_BANNER_INPUT, &inputs, SLOTS({"path", comment_safe(e, e->m->inputs[i].path), 0}));
    }
    /* The release macros the gates use, in first-use order, each once. */
    const decl *seen[64];
    int n_seen = 0;
    for (int i = 0; i < h->n_shims; i++)
        for (int d = 0; d < h->shims[i].n_decls; d++) {
            const decl *op = &h->shims[i].decls[d];
            if (!op->since) continue;
            bool dup = false;
            for (int k = 0; k < n_seen && !dup; k++)
                dup = seen[k]->since_major == op->since_major &&
                      seen[k]->since_minor == op->since_minor;
            if (dup) continue;
            if (n_seen < 64) seen[n_seen++] = op;
            sg_buf_putc(&macros, '\n');
            char maj[16], min[16];
            snprintf(maj, sizeof maj, "%d", op->since_major);
            snprintf(min, sizeof min, "%d", op->since_minor);
            render(e, T_VERSION_MACRO, &macros,
                   SLOTS({"macro", version_macro(e, op), 0}, {"major", maj, 0}, {"minor", min, 0},
                         {"patch", "0", 0}));
        }
    if (macros.len) sg_buf_putc(&macros, '\n');
    for (int i = 0; i < h->n_shims; i++) {
        const shim *s = &h->shims[i];
        sg_buf group = {0};
        for (int d = 0; d < s->n_decls; d++) {
            if (d) sg_buf_putc(&group, '\n');
            render_decl(e, &group, s, &s->decls[d]);
        }
        if (i) sg_buf_put(&decls, "\n\n", 2);
        render(e, T_OP_BLOCK, &decls,
               SLOTS({"op", s->op->key, 0}, {"schema", comment_safe(e, schema_text(e, s->fn)), 0},
                     {"declarations", group.data ? group.data : "", group.len}));
        sg_buf_free(&group);
    }
    const char *desc =
        h->dispatch_key
            ? sg_arena_printf(e->a, "C shims calling the %s kernels of the listed ops directly",
                              h->dispatch_key)
            : "C shims calling the listed ATen ops through the dispatcher";
    render(e, T_HEADER, &out,
           SLOTS({"file", h->file, 0}, {"description", desc, 0},
                 {"generator", "shimgen " SHIMGEN_VERSION, 0},
                 {"inputs", inputs.data ? inputs.data : "", inputs.len},
                 {"guard", guard_of(e, h->file), 0},
                 {"version_macros", macros.data ? macros.data : "", macros.len},
                 {"declarations", decls.data ? decls.data : "", decls.len}));
    sg_buf_free(&inputs);
    sg_buf_free(&macros);
    sg_buf_free(&decls);
    add_file(e, h->file, &out);
}

static const char *json(emitter *e, const char *s) {
    sg_buf b = {0};
    sg_buf_put_json(&b, s ? s : "");
    return b.len ? sg_buf_to_arena(&b, e->a) : (sg_buf_free(&b), "");
}

static void render_manifest(emitter *e) {
    sg_buf inputs = {0}, headers = {0}, funcs = {0}, out = {0};
    for (size_t i = 0; i < e->m->n_inputs; i++)
        sg_buf_printf(&inputs, "%s\"%s\"", i ? ", " : "", json(e, e->m->inputs[i].path));
    for (int i = 0; i < e->n_headers; i++)
        sg_buf_printf(&headers, "%s\"%s\"", i ? ", " : "", json(e, e->headers[i].file));
    for (int hi = 0; hi < e->n_headers; hi++) {
        const header *h = &e->headers[hi];
        for (int i = 0; i < h->n_shims; i++) {
            const shim *s = &h->shims[i];
            const char *kernel =
                s->kernel ? sg_arena_printf(e->a, "{\"dispatch_key\": \"%s\", \"name\": \"%s\"}",
                                            json(e, s->kernel_key), json(e, s->kernel))
                          : "null";
            const char *schema = json(e, schema_text(e, s->fn));
            for (int d = 0; d < s->n_decls; d++) {
                const decl *dc = &s->decls[d];
                sg_buf params = {0};
                for (int p = 0; p < dc->n_params; p++) {
                    if (p) sg_buf_put(&params, ", ", 2);
                    render(e, T_MANIFEST_PARAM, &params,
                           SLOTS({"name", dc->params[p].name, 0}, {"type", dc->params[p].type, 0}));
                }
                char version[16];
                snprintf(version, sizeof version, "%d", dc->version);
                const char *since =
                    dc->since ? sg_arena_printf(e->a, "\"%s\"", json(e, dc->since)) : "null";
                if (funcs.len) sg_buf_put(&funcs, ",\n", 2);
                render(e, T_MANIFEST_FUNCTION, &funcs,
                       SLOTS({"name", dc->c_name, 0}, {"backend", h->backend, 0},
                             {"header", h->file, 0}, {"op", json(e, s->op->key), 0},
                             {"schema", schema, 0}, {"version", version, 0}, {"since", since, 0},
                             {"kernel", kernel, 0},
                             {"params", params.data ? params.data : "", params.len}));
                sg_buf_free(&params);
            }
        }
    }
    sg_buf files = {0};
    for (int i = 0; i < e->n_files; i++) {
        const char *slash = strrchr(e->files[i].path, '/');
        sg_buf_printf(&files, "%s\"%s\"", i ? ", " : "",
                      json(e, slash ? slash + 1 : e->files[i].path));
    }
    render(e, T_MANIFEST, &out,
           SLOTS({"generator", "shimgen " SHIMGEN_VERSION, 0},
                 {"inputs", inputs.data ? inputs.data : "", inputs.len},
                 {"headers", headers.data ? headers.data : "", headers.len},
                 {"files", files.data ? files.data : "", files.len},
                 {"registrations", e->registrations.data ? e->registrations.data : "",
                  e->registrations.len},
                 {"functions", funcs.data ? funcs.data : "", funcs.len}));
    sg_buf_free(&inputs);
    sg_buf_free(&headers);
    sg_buf_free(&files);
    sg_buf_free(&funcs);
    add_file(e, "shim_manifest.json", &out);
}

/* ---- Bodies, boxed wrappers, registration (gen/emit_bodies.c) -------------------------- */
static void sink_add_file(void *user, const char *name, sg_buf *content) {
    add_file(user, name, content);
}

static void sink_add_dep(void *user, const char *path) {
    emitter *e = user;
    if (path && e->n_extra_deps < (int)(sizeof e->extra_deps / sizeof *e->extra_deps))
        e->extra_deps[e->n_extra_deps++] = path;
}

static void render_bodies(emitter *e, const char *dir) {
    sg_buf inputs = {0};
    for (size_t i = 0; i < e->m->n_inputs; i++) {
        if (i) sg_buf_putc(&inputs, '\n');
        render(e, T_BANNER_INPUT, &inputs, SLOTS({"path", comment_safe(e, e->m->inputs[i].path), 0}));
    }
    sg_emit_sink sink = {e, sink_add_file, sink_add_dep, {0}, e->o->verbosity < 0};
    int errs = sg_emit_bodies(e->ctx, e->m, e->a, dir, e->headers, e->n_headers,
                              inputs.data ? inputs.data : "", &sink);
    if (e->o->target_torch && !errs) /* gen/emit_torch.c */
        errs = sg_emit_torch(e->ctx, e->a, dir, e->o, e->headers, e->n_headers,
                             inputs.data ? inputs.data : "", &sink);
    e->errors += errs;
    e->registrations = sink.registrations;
    sg_buf_free(&inputs);
}

/* ---- Output modes -------------------------------------------------------------------- */
/* A short diff: the changed middle between the common first and last lines. */
static void print_diff(const sg_out_file *f) {
    const char *a = f->old ? f->old : "", *b = f->data;
    size_t na = f->old ? f->old_len : 0, nb = f->len;
    size_t pre = 0, line_a = 1;
    while (pre < na && pre < nb && a[pre] == b[pre]) pre++;
    while (pre > 0 && a[pre - 1] != '\n') pre--; /* back to a line start */
    for (size_t i = 0; i < pre; i++) line_a += a[i] == '\n';
    size_t suf = 0;
    while (suf < na - pre && suf < nb - pre && a[na - 1 - suf] == b[nb - 1 - suf]) suf++;
    while (suf > 0 && a[na - suf] != '\n') suf--; /* keep whole lines: suffix starts after \n */
    if (suf > 0) suf--;
    printf("--- %s (on disk)\n+++ %s (generated)\n", f->path, f->path);
    for (int side = 0; side < 2; side++) {
        const char *s = side ? b : a;
        size_t lo = pre, hi = (side ? nb : na) - suf;
        if (!side) printf("@@ line %zu @@\n", line_a);
        while (lo < hi) {
            size_t e = lo;
            while (e < hi && s[e] != '\n') e++;
            printf("%c%.*s\n", side ? '+' : '-', (int)(e - lo), s + lo);
            lo = e + 1;
        }
    }
}

static int do_check(emitter *e) {
    if (sg_fs_compare(e->ctx, e->files, e->n_files) != 0) return -1;
    int changed = 0;
    for (int i = 0; i < e->n_files; i++) {
        if (!e->files[i].changed) continue;
        changed++;
        printf("%s: would %s\n", e->files[i].path, e->files[i].old ? "change" : "be created");
        if (e->o->verbosity > 0) print_diff(&e->files[i]);
    }
    fflush(stdout);
    return changed ? 1 : 0;
}

static const sg_abi_decl *find_decl(const sg_abi_decl *v, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0) return &v[i];
    return NULL;
}

static int param_index(const sg_abi_decl *d, const char *name) {
    for (int i = 0; i < d->n_params; i++)
        if (strcmp(d->params[i].name, name) == 0) return i;
    return -1;
}

/* Compares one old declaration with its new form; returns the number of breaks. */
static int compare_decl(emitter *e, const sg_abi_decl *o, const sg_abi_decl *n) {
    int breaks = 0;
    for (int i = 0; i < o->n_params; i++) {
        int j = param_index(n, o->params[i].name);
        if (j < 0) {
            sg_diag(e->ctx, SG_DIAG_ERROR, o->loc, "%s: parameter '%s %s' was removed", o->name,
                    o->params[i].type, o->params[i].name);
            breaks++;
        } else if (strcmp(o->params[i].type, n->params[j].type) != 0) {
            sg_diag(e->ctx, SG_DIAG_ERROR, o->loc,
                    "%s: parameter '%s' changed type from '%s' to '%s'", o->name,
                    o->params[i].name, o->params[i].type, n->params[j].type);
            breaks++;
        }
    }
    for (int j = 0; j < n->n_params; j++)
        if (param_index(o, n->params[j].name) < 0) {
            sg_diag(e->ctx, SG_DIAG_ERROR, o->loc,
                    "%s: parameter '%s %s' was added at position %d", o->name, n->params[j].type,
                    n->params[j].name, j + 1);
            breaks++;
        }
    /* The order of the parameters both have. */
    int last = -1, last_i = -1;
    for (int i = 0; i < o->n_params; i++) {
        int j = param_index(n, o->params[i].name);
        if (j < 0) continue;
        if (j < last) {
            sg_diag(e->ctx, SG_DIAG_ERROR, o->loc,
                    "%s: parameter order changed: '%s' (parameter %d, now %d) now comes before "
                    "'%s' (parameter %d, now %d)",
                    o->name, o->params[i].name, i + 1, j + 1, o->params[last_i].name, last_i + 1,
                    last + 1);
            breaks++;
            break;
        }
        last = j;
        last_i = i;
    }
    return breaks;
}

static int do_abi_check(emitter *e) {
    int breaks = 0, added = 0;
    for (int i = 0; i < e->n_files; i++) {
        const char *file = strrchr(e->files[i].path, '/') + 1;
        size_t fl = strlen(file);
        if (fl < 2 || strcmp(file + fl - 2, ".h") != 0) continue;
        char err[256];
        sg_abi_decl *nd = NULL, *od = NULL;
        int nn = sg_abi_scan(e->a, e->files[i].path, e->files[i].data, e->files[i].len, &nd, err,
                             sizeof err);
        const char *old_path = sg_arena_printf(e->a, "%s/%s", e->o->abi_check_dir, file);
        char *text = NULL;
        size_t len = 0;
        int rc = sg_fs_read(old_path, &text, &len);
        int on = 0;
        if (rc < 0) {
            sg_diag(e->ctx, SG_DIAG_ERROR, (sg_loc){old_path, 0, 0}, "cannot read: %s",
                    strerror(errno));
            return -1;
        }
        if (rc == 0) {
            on = sg_abi_scan(e->a, old_path, text, len, &od, err, sizeof err);
            free(text);
        } else if (e->o->verbosity >= 0) {
            sg_diag(e->ctx, SG_DIAG_NOTE, (sg_loc){old_path, 0, 0},
                    "no such header before: every function of %s is new", file);
        }
        if (nn < 0 || on < 0) {
            sg_diag(e->ctx, SG_DIAG_ERROR, (sg_loc){nn < 0 ? e->files[i].path : old_path, 0, 0},
                    "%s", err);
            return -1;
        }
        for (int k = 0; k < on; k++) {
            const sg_abi_decl *n = find_decl(nd, nn, od[k].name);
            if (!n) {
                sg_diag(e->ctx, SG_DIAG_ERROR, od[k].loc, "%s: function was removed", od[k].name);
                breaks++;
            } else {
                breaks += compare_decl(e, &od[k], n);
            }
        }
        for (int k = 0; k < nn; k++)
            if (!find_decl(od, on, nd[k].name)) {
                added++;
                if (e->o->verbosity >= 0)
                    sg_diag(e->ctx, SG_DIAG_NOTE, (sg_loc){old_path, 0, 0},
                            "%s: function was added (compatible)", nd[k].name);
            }
    }
    if (e->o->verbosity > 0 || breaks)
        sg_diag(e->ctx, breaks ? SG_DIAG_ERROR : SG_DIAG_NOTE, (sg_loc){e->o->abi_check_dir, 0, 0},
                "ABI check: %d incompatible change%s, %d function%s added", breaks,
                breaks == 1 ? "" : "s", added, added == 1 ? "" : "s");
    return breaks ? 1 : 0;
}

/* Make-style: path with blanks, `#`, `$` and `\` escaped. */
static void dep_path(sg_buf *b, const char *p) {
    for (; *p; p++) {
        if (*p == '$')
            sg_buf_putc(b, '$');
        else if (*p == ' ' || *p == '\t' || *p == '#' || *p == '\\')
            sg_buf_putc(b, '\\');
        sg_buf_putc(b, *p);
    }
}

static int write_depfile(emitter *e) {
    sg_buf b = {0};
    for (int i = 0; i < e->n_files; i++) {
        if (i) sg_buf_put(&b, " \\\n ", 4);
        dep_path(&b, e->files[i].path);
    }
    sg_buf_putc(&b, ':');
    const char *deps[T_COUNT_ + 1];
    int n_deps = 0;
    for (int i = 0; i < T_COUNT_; i++)
        if (e->t[i] && sg_tpl_path(e->t[i])) deps[n_deps++] = sg_tpl_path(e->t[i]);
    const char *const *extra = e->extra_deps;
    for (size_t i = 0; i < e->m->n_inputs; i++) {
        sg_buf_put(&b, " \\\n ", 4);
        dep_path(&b, e->m->inputs[i].path);
    }
    for (int i = 0; i < n_deps; i++) {
        sg_buf_put(&b, " \\\n ", 4);
        dep_path(&b, deps[i]);
    }
    for (int i = 0; i < e->n_extra_deps; i++) {
        sg_buf_put(&b, " \\\n ", 4);
        dep_path(&b, extra[i]);
    }
    sg_buf_putc(&b, '\n');
    /* An empty rule per input, so that a removed input does not stop make. */
    for (size_t i = 0; i < e->m->n_inputs; i++) {
        sg_buf_putc(&b, '\n');
        dep_path(&b, e->m->inputs[i].path);
        sg_buf_put(&b, ":\n", 2);
    }
    for (int i = 0; i < n_deps; i++) {
        sg_buf_putc(&b, '\n');
        dep_path(&b, deps[i]);
        sg_buf_put(&b, ":\n", 2);
    }
    for (int i = 0; i < e->n_extra_deps; i++) {
        sg_buf_putc(&b, '\n');
        dep_path(&b, extra[i]);
        sg_buf_put(&b, ":\n", 2);
    }
    if (b.oom) {
        sg_buf_free(&b);
        return -1;
    }
    sg_out_file f = {.path = e->o->depfile, .data = b.data, .len = b.len};
    int rc = sg_fs_compare(e->ctx, &f, 1);
    if (rc == 0) rc = sg_fs_commit(e->ctx, &f, 1);
    sg_fs_release(&f, 1);
    sg_buf_free(&b);
    return rc;
}

/* ---- Entry point --------------------------------------------------------------------- */
static bool valid_backend(const char *s) {
    if (!*s) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return false;
    return true;
}

static int generate(emitter *e) {
    const sg_options *o = e->o;
    const sg_model *m = e->m;
    /* Backends: lower case, known to the model, each once; `aten` is the aten header. */
    /* Without --backends: those the loaded shim_ops.yaml files declare, else cpu, cuda. */
    static const char *const kDefault[] = {"cpu", "cuda"};
    int n_declared = 0;
    const char *const *declared = sg_context_backends(e->ctx, &n_declared);
    const char *const *names = o->n_backends > 0 ? o->backends
                               : n_declared > 0  ? declared
                                                 : kDefault;
    int n_names = o->n_backends > 0 ? o->n_backends : n_declared > 0 ? n_declared : 2;
    e->headers = sg_arena_alloc(e->a, sizeof *e->headers * (size_t)(n_names + 1));
    if (!e->headers) return -1;
    sg_loc cli = {"<command line>", 0, 0};
    for (int i = 0; i < n_names; i++) {
        if (!names[i] || !valid_backend(names[i])) {
            sg_diag(e->ctx, SG_DIAG_ERROR, cli, "invalid backend name '%s'",
                    names[i] ? names[i] : "(null)");
            e->errors++;
            continue;
        }
        char *lower = sg_arena_strdup(e->a, names[i]);
        if (!lower) return -1;
        for (char *p = lower; *p; p++) *p = (char)tolower((unsigned char)*p);
        if (strcmp(lower, "aten") == 0) continue; /* made whenever aten_ops has entries */
        bool dup = false;
        for (int k = 0; k < e->n_headers; k++) dup |= strcmp(e->headers[k].backend, lower) == 0;
        if (dup) continue;
        const char *key = sg_backend_dispatch_key(m, lower);
        if (!key) {
            sg_diag(e->ctx, SG_DIAG_ERROR, cli,
                    "unknown backend '%s': no dispatch key of that name in the inputs", names[i]);
            e->errors++;
            continue;
        }
        e->headers[e->n_headers++] =
            (header){lower, key, sg_arena_printf(e->a, "c_shim_%s.h", lower), NULL, 0};
    }
    /* The op lists, each sorted by key. */
    const sg_shim_op **fallback = sg_arena_alloc(e->a, sizeof *fallback * (m->n_shim_ops + 1));
    const sg_shim_op **aten = sg_arena_alloc(e->a, sizeof *aten * (m->n_shim_ops + 1));
    if (!fallback || !aten) return -1;
    int n_fallback = 0, n_aten = 0;
    for (size_t i = 0; i < m->n_shim_ops; i++) {
        if (m->shim_ops[i].aten)
            aten[n_aten++] = &m->shim_ops[i];
        else
            fallback[n_fallback++] = &m->shim_ops[i];
    }
    qsort(fallback, (size_t)n_fallback, sizeof *fallback, cmp_op_key);
    qsort(aten, (size_t)n_aten, sizeof *aten, cmp_op_key);
    if (n_aten > 0)
        e->headers[e->n_headers++] = (header){"aten", NULL, "c_shim_aten.h", NULL, 0};
    if (e->errors) return -1;

    /* Templates. */
    const char *dir = sg_tpl_find_dir(e->a, o->templates_dir);
    if (!dir) {
        sg_diag(e->ctx, SG_DIAG_ERROR, (sg_loc){"templates", 0, 0},
                "cannot find the templates directory (set SHIMGEN_TEMPLATES or --templates)");
        return -1;
    }
    for (int i = 0; i < T_COUNT_; i++) {
        bool compat_only = i == T_COMPAT_HEADER || i == T_COMPAT_ATEN_NOTE;
        bool needed = o->compat_torchgen ? (compat_only || i == T_DECL || i == T_DECL_GATED)
                                         : !compat_only;
        if (!needed) continue;
        char err[512];
        e->t[i] = sg_tpl_load(e->a, dir, kTemplateFiles[i], err, sizeof err);
        if (!e->t[i]) {
            sg_diag(e->ctx, SG_DIAG_ERROR, (sg_loc){dir, 0, 0}, "%s", err);
            e->errors++;
        }
    }
    if (e->errors) return -1;

    /* 1. Plan. */
    for (int i = 0; i < e->n_headers; i++) {
        header *h = &e->headers[i];
        if (h->dispatch_key)
            plan_header(e, h, fallback, n_fallback);
        else
            plan_header(e, h, aten, n_aten);
    }
    if (e->errors) return -1;

    /* 2. Render. */
    for (int i = 0; i < e->n_headers; i++) {
        if (o->compat_torchgen)
            render_compat_header(e, &e->headers[i]);
        else
            render_header(e, &e->headers[i]);
    }
    if (!o->compat_torchgen && !e->errors) render_bodies(e, dir);
    if (!o->compat_torchgen) render_manifest(e);
    sg_buf_free(&e->registrations);
    if (e->errors) return -1;

    /* 3. Output. */
    if (o->abi_check_dir) return do_abi_check(e);
    if (o->check) return do_check(e);
    if (sg_fs_compare(e->ctx, e->files, e->n_files) != 0) return -1;
    if (sg_fs_commit(e->ctx, e->files, e->n_files) != 0) return -1;
    if (o->verbosity > 0)
        for (int i = 0; i < e->n_files; i++)
            sg_diag(e->ctx, SG_DIAG_NOTE, (sg_loc){e->files[i].path, 0, 0}, "%s",
                    e->files[i].changed ? "written" : "unchanged");
    if (o->depfile && write_depfile(e) != 0) return -1;
    return 0;
}

int sg_generate(sg_context *ctx, const sg_options *opts) {
    if (!ctx) return -1;
    sg_options defaults = {0};
    emitter e = {0};
    e.ctx = ctx;
    e.o = opts ? opts : &defaults;
    e.m = sg_context_model_mut(ctx);
    e.out_dir = e.o->out_dir && *e.o->out_dir ? e.o->out_dir : "generated";
    e.a = sg_arena_new();
    if (!e.a) {
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){e.out_dir, 0, 0}, "out of memory");
        return -1;
    }
    size_t n = strlen(e.out_dir); /* "out/" -> "out" (but keep "/") */
    while (n > 1 && e.out_dir[n - 1] == '/') n--;
    e.out_dir = sg_arena_strndup(e.a, e.out_dir, n);
    if (!e.out_dir) {
        sg_arena_free(e.a);
        return -1;
    }
    int rc = generate(&e);
    if (rc < 0 && sg_error_count(ctx) == 0)
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){e.out_dir, 0, 0}, "out of memory");
    sg_fs_release(e.files, e.n_files);
    sg_arena_free(e.a);
    return rc;
}

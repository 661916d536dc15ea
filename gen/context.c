/* gen/context.c: the shimgen context: arena, model, diagnostics, loading, finalizing,
 * lookups and --print-schemas. See shimgen.h and model.h. */
#include "model.h"
#include "emit.h"

#include <shimrt/codes.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct slot {
    const char *key; /* NULL: empty */
    uint64_t hash;
    sg_native_function *fn;
} slot;

struct sg_context {
    sg_arena *arena;
    sg_model model;
    sg_diag_fn fn;
    void *user;
    size_t n_errors, n_warnings;

    /* model.funcs is this heap array unless someone replaced it (derive.c may put an arena
     * array there); then the next append copies it into a new heap array. */
    sg_native_function **funcs_heap;
    size_t funcs_cap;

    /* op key -> first function with that key; funcs[0 .. n_indexed) are in it. */
    slot *tab;
    size_t tab_cap, tab_used, n_indexed;
    /* functions whose op key was already taken when they were indexed: (first, later) */
    sg_native_function **dups;
    size_t n_dups, cap_dups;

    bool finalized;
    int finalize_rc;

    /* `backends:` of the shim_ops.yaml files (arena strings), in first-declared order. */
    const char **backends;
    int n_backends, cap_backends;
};

/* ---- diagnostics ---------------------------------------------------------------------- */

void sg_diag_print_stderr(void *user, sg_diag_level level, sg_loc loc, const char *message) {
    (void)user;
    static const char *const names[] = {"error", "warning", "note"};
    const char *lv = (unsigned)level <= SG_DIAG_NOTE ? names[level] : "error";
    const char *file = loc.file ? loc.file : "shimgen";
    if (loc.line == 0)
        fprintf(stderr, "%s: %s: %s\n", file, lv, message);
    else
        fprintf(stderr, "%s:%u:%u: %s: %s\n", file, (unsigned)loc.line, (unsigned)loc.col, lv,
                message);
}

void sg_diag(sg_context *ctx, sg_diag_level level, sg_loc loc, const char *fmt, ...) {
    if (level == SG_DIAG_ERROR)
        ctx->n_errors++;
    else if (level == SG_DIAG_WARNING)
        ctx->n_warnings++;
    if (!ctx->fn) return;
    char small[1024];
    char *msg = small;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        msg = "(unprintable diagnostic)";
    } else if ((size_t)n >= sizeof small) {
        char *big = malloc((size_t)n + 1);
        if (big) {
            va_start(ap, fmt);
            vsnprintf(big, (size_t)n + 1, fmt, ap);
            va_end(ap);
            msg = big;
        }
    }
    ctx->fn(ctx->user, level, loc, msg);
    if (msg != small && n >= 0 && (size_t)n >= sizeof small) free(msg);
}

/* ---- context -------------------------------------------------------------------------- */

sg_context *sg_context_new(sg_diag_fn fn, void *user) {
    sg_context *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->arena = sg_arena_new();
    if (!c->arena) {
        free(c);
        return NULL;
    }
    c->fn = fn;
    c->user = user;
    c->model.ns = "aten";
    return c;
}

void sg_context_free(sg_context *ctx) {
    if (!ctx) return;
    free(ctx->funcs_heap);
    free(ctx->tab);
    free(ctx->dups);
    sg_arena_free(ctx->arena);
    free(ctx);
}

sg_arena *sg_context_arena(sg_context *ctx) { return ctx->arena; }

const char *const *sg_context_backends(const sg_context *ctx, int *n) {
    *n = ctx ? ctx->n_backends : 0;
    return ctx ? ctx->backends : NULL;
}

int sg_context_add_backend(sg_context *ctx, const char *name) {
    for (int i = 0; i < ctx->n_backends; i++)
        if (strcmp(ctx->backends[i], name) == 0) return 0;
    if (ctx->n_backends == ctx->cap_backends) {
        int cap = ctx->cap_backends ? 2 * ctx->cap_backends : 4;
        const char **b = sg_arena_alloc(ctx->arena, sizeof *b * (size_t)cap);
        if (!b) return -1;
        if (ctx->n_backends) memcpy(b, ctx->backends, sizeof *b * (size_t)ctx->n_backends);
        ctx->backends = b;
        ctx->cap_backends = cap;
    }
    ctx->backends[ctx->n_backends++] = name;
    return 0;
}
sg_model *sg_context_model_mut(sg_context *ctx) { return &ctx->model; }
size_t sg_error_count(const sg_context *ctx) { return ctx ? ctx->n_errors : 0; }
size_t sg_warning_count(const sg_context *ctx) { return ctx ? ctx->n_warnings : 0; }

static void oom(sg_context *ctx) {
    sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){NULL, 0, 0}, "out of memory");
}

/* ---- the op-key index ------------------------------------------------------------------ */

/* A string hash that reads eight bytes at a time. */
static uint64_t hash_str(const char *s) {
    size_t n = strlen(s);
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n, w;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, s, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 29);
}

static const char *make_op_key(sg_context *ctx, const sg_native_function *f) {
    if (!f->func || !f->func->name) return NULL;
    const char *ns = f->func->ns ? f->func->ns : ctx->model.ns;
    const char *ov = f->func->overload && f->func->overload[0] ? f->func->overload : "default";
    size_t a = strlen(ns), b = strlen(f->func->name), c = strlen(ov);
    char *k = sg_arena_alloc(ctx->arena, a + b + c + 3);
    if (!k) return NULL;
    memcpy(k, ns, a);
    k[a] = '.';
    memcpy(k + a + 1, f->func->name, b);
    k[a + 1 + b] = '.';
    memcpy(k + a + b + 2, ov, c + 1);
    return k;
}

static slot *tab_lookup(const sg_context *ctx, const char *key, uint64_t h) {
    if (!ctx->tab_cap) return NULL;
    size_t mask = ctx->tab_cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        slot *s = &ctx->tab[i];
        if (!s->key || (s->hash == h && strcmp(s->key, key) == 0)) return s;
    }
}

static int tab_grow(sg_context *ctx) {
    size_t cap = ctx->tab_cap ? ctx->tab_cap * 2 : 4096;
    slot *t = calloc(cap, sizeof *t);
    if (!t) return -1;
    slot *old = ctx->tab;
    size_t oldcap = ctx->tab_cap;
    ctx->tab = t;
    ctx->tab_cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].key) *tab_lookup(ctx, old[i].key, old[i].hash) = old[i];
    free(old);
    return 0;
}

/* Brings the index up to date with model.funcs (derived functions may have been added
 * directly). The first function with a key wins. */
static int index_funcs(sg_context *ctx) {
    sg_model *m = &ctx->model;
    if (ctx->n_indexed > m->n_funcs) { /* someone removed functions: start again */
        ctx->n_indexed = ctx->tab_used = ctx->n_dups = 0;
        if (ctx->tab) memset(ctx->tab, 0, ctx->tab_cap * sizeof *ctx->tab);
    }
    for (; ctx->n_indexed < m->n_funcs; ctx->n_indexed++) {
        sg_native_function *f = m->funcs[ctx->n_indexed];
        if (!f) continue;
        if (!f->op_key) f->op_key = make_op_key(ctx, f);
        if (!f->op_key) continue;
        if ((ctx->tab_used + 1) * 2 > ctx->tab_cap && tab_grow(ctx) != 0) {
            oom(ctx);
            return -1;
        }
        uint64_t h = hash_str(f->op_key);
        slot *s = tab_lookup(ctx, f->op_key, h);
        if (!s->key) {
            s->key = f->op_key;
            s->hash = h;
            s->fn = f;
            ctx->tab_used++;
        } else if (s->fn != f) {
            if (ctx->n_dups + 2 > ctx->cap_dups) {
                size_t cap = ctx->cap_dups ? ctx->cap_dups * 2 : 16;
                sg_native_function **d = realloc(ctx->dups, cap * sizeof *d);
                if (!d) {
                    oom(ctx);
                    return -1;
                }
                ctx->dups = d;
                ctx->cap_dups = cap;
            }
            ctx->dups[ctx->n_dups++] = s->fn;
            ctx->dups[ctx->n_dups++] = f;
        }
    }
    return 0;
}

const sg_native_function *sg_model_find(const sg_context *cctx, const char *op_key) {
    if (!cctx || !op_key) return NULL;
    /* The context is never created const: updating the index behind a const view is a
     * cache refresh, not a visible change. */
    sg_context *ctx = (sg_context *)cctx;
    if (index_funcs(ctx) != 0) return NULL;
    slot *s = tab_lookup(ctx, op_key, hash_str(op_key));
    return s && s->key ? s->fn : NULL;
}

const sg_native_function *sg_model_find_by_name(const sg_context *ctx, const char *name,
                                                const char *overload) {
    if (!ctx || !name) return NULL;
    const char *ns = ctx->model.ns;
    size_t ns_len = strlen(ns);
    const char *sep = strstr(name, "::");
    if (sep) {
        ns = name;
        ns_len = (size_t)(sep - name);
        name = sep + 2;
    }
    if (!overload || !overload[0]) overload = "default";
    size_t name_len = strlen(name), ov_len = strlen(overload);
    size_t need = ns_len + name_len + ov_len + 3;
    char small[256];
    char *key = need <= sizeof small ? small : malloc(need);
    if (!key) return NULL;
    /* "%.*s.%s.%s" of ns, name, overload (ns stops at a NUL, as %.*s does) */
    size_t k = strnlen(ns, ns_len);
    memcpy(key, ns, k);
    key[k++] = '.';
    memcpy(key + k, name, name_len);
    k += name_len;
    key[k++] = '.';
    memcpy(key + k, overload, ov_len + 1);
    const sg_native_function *f = sg_model_find(ctx, key);
    if (key != small) free(key);
    return f;
}

int sg_model_append_function(sg_context *ctx, sg_native_function *fn) {
    sg_model *m = &ctx->model;
    if (m->funcs != ctx->funcs_heap || m->n_funcs == ctx->funcs_cap) {
        size_t cap = m->n_funcs < 2048 ? 4096 : m->n_funcs * 2;
        sg_native_function **nf;
        if (m->funcs == ctx->funcs_heap) {
            nf = realloc(ctx->funcs_heap, cap * sizeof *nf);
        } else {
            nf = malloc(cap * sizeof *nf);
            if (nf && m->n_funcs) memcpy(nf, m->funcs, m->n_funcs * sizeof *nf);
            if (nf) free(ctx->funcs_heap);
        }
        if (!nf) {
            oom(ctx);
            return -1;
        }
        m->funcs = ctx->funcs_heap = nf;
        ctx->funcs_cap = cap;
    }
    if (!fn->op_key) fn->op_key = make_op_key(ctx, fn);
    m->funcs[m->n_funcs++] = fn;
    return 0;
}

/* ---- loading ---------------------------------------------------------------------------- */

static int add_root(sg_context *ctx, const char *role, const sg_ynode *root) {
    if (strcmp(role, "native_functions") == 0) return sg_model_add_native_functions(ctx, root);
    if (strcmp(role, "tags") == 0) return sg_model_add_tags(ctx, root);
    return sg_model_add_shim_ops(ctx, root);
}

static bool role_ok(const char *role) {
    return role && (strcmp(role, "native_functions") == 0 || strcmp(role, "tags") == 0 ||
                    strcmp(role, "shim_ops") == 0);
}

/* "<directory name>/<file name>" of path: the name of the directory that holds the file,
 * taken from the text when it names one ("./schemas//x.yaml", "/abs/schemas/x.yaml":
 * "schemas/x.yaml"), else from realpath ("x.yaml", "../x.yaml", "./x.yaml": the actual
 * directory's name). So outputs do not depend on how, or from where, an input was named. */
static char *recorded_path(sg_arena *a, const char *path) {
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    size_t f = n;
    while (f > 0 && path[f - 1] != '/') f--; /* path[f..n) is the file name */
    size_t d_end = f;
    while (d_end > 0 && path[d_end - 1] == '/') d_end--;
    size_t d = d_end;
    while (d > 0 && path[d - 1] != '/') d--; /* path[d..d_end) is the directory's name */
    size_t dl = d_end - d;
    bool named =
        dl > 0 && !(dl == 1 && path[d] == '.') && !(dl == 2 && !strncmp(path + d, "..", 2));
    if (named) return sg_arena_printf(a, "%.*s/%.*s", (int)dl, path + d, (int)(n - f), path + f);
    char *dir = f > 0 ? sg_arena_strndup(a, path, f) : sg_arena_strdup(a, ".");
    char *real = dir ? realpath(dir, NULL) : NULL;
    char *r = NULL;
    if (real) {
        const char *base = strrchr(real, '/');
        base = base && base[1] ? base + 1 : real;
        r = sg_arena_printf(a, "%s/%.*s", base, (int)(n - f), path + f);
        free(real);
    }
    return r ? r : sg_arena_strndup(a, path + f, n - f);
}

static int record_input(sg_context *ctx, const char *path, const char *role) {
    sg_model *m = &ctx->model;
    sg_input_file *in = sg_arena_alloc(ctx->arena, (m->n_inputs + 1) * sizeof *in);
    if (!in) {
        oom(ctx);
        return -1;
    }
    if (m->n_inputs) memcpy(in, m->inputs, m->n_inputs * sizeof *in);
    in[m->n_inputs].path = sg_arena_strdup(ctx->arena, path);
    in[m->n_inputs].recorded = recorded_path(ctx->arena, path);
    if (!in[m->n_inputs].path || !in[m->n_inputs].recorded) {
        oom(ctx);
        return -1;
    }
    in[m->n_inputs].role = role;
    m->inputs = in;
    m->n_inputs++;
    return 0;
}

/* After parsing: records the input, then builds the model from root (nf: the native
 * functions were built alongside the parse, see sg_nf_loader_start). */
static int finish_load(sg_context *ctx, const char *path, const char *role, const sg_ynode *root,
                       sg_nf_loader *nf, size_t errors_before) {
    if (record_input(ctx, path, role) != 0 || !root) {
        sg_nf_loader_finish(ctx, nf, NULL);
        return -1;
    }
    int rc = nf ? sg_nf_loader_finish(ctx, nf, root) : add_root(ctx, role, root);
    return rc == 0 && ctx->n_errors == errors_before ? 0 : -1;
}

static int load_file(sg_context *ctx, const char *path, const char *role) {
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){path, 0, 0}, "cannot open: %s", strerror(errno));
        return -1;
    }
    size_t before = ctx->n_errors;
    sg_nf_loader *nf = NULL;
    if (strcmp(role, "native_functions") == 0) {
        struct stat st;
        nf = sg_nf_loader_start(ctx, fstat(fileno(fp), &st) == 0 ? (size_t)st.st_size : 0);
    }
    const sg_ynode *root =
        sg_yaml_parse_items(ctx, path, NULL, 0, fp, nf ? sg_nf_loader_item : NULL, nf);
    fclose(fp);
    return finish_load(ctx, path, role, root, nf, before);
}

static bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

int sg_load_dir(sg_context *ctx, const char *path) {
    if (!ctx || !path) return -1;
    if (ctx->finalized) {
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){path, 0, 0}, "inputs loaded after sg_finalize");
        return -1;
    }
    if (!exists(path)) {
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){path, 0, 0}, "no such file or directory");
        return -1;
    }
    if (!is_dir(path)) return load_file(ctx, path, "native_functions");

    static const char *const files[] = {"native_functions.yaml", "tags.yaml", "shim_ops.yaml"};
    static const char *const roles[] = {"native_functions", "tags", "shim_ops"};
    int rc = 0;
    for (int i = 0; i < 3; i++) {
        size_t plen = strlen(path);
        bool slash = plen && path[plen - 1] == '/';
        char *p = sg_arena_printf(ctx->arena, "%s%s%s", path, slash ? "" : "/", files[i]);
        if (!p) {
            oom(ctx);
            return -1;
        }
        if (!exists(p)) {
            if (i == 0) {
                sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){path, 0, 0},
                        "no native_functions.yaml in this directory");
                rc = -1;
            }
            continue;
        }
        if (load_file(ctx, p, roles[i]) != 0) rc = -1;
    }
    return rc;
}

int sg_load_buffer(sg_context *ctx, const char *role, const char *name, const char *data,
                   size_t len) {
    if (!ctx) return -1;
    if (!name) name = "<buffer>";
    if (!role_ok(role)) {
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){name, 0, 0}, "unknown input role '%s'",
                role ? role : "(null)");
        return -1;
    }
    if (ctx->finalized) {
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){name, 0, 0}, "inputs loaded after sg_finalize");
        return -1;
    }
    size_t before = ctx->n_errors;
    const char *r = strcmp(role, "tags") == 0       ? "tags"
                    : strcmp(role, "shim_ops") == 0 ? "shim_ops"
                                                    : "native_functions";
    sg_nf_loader *nf = r[0] == 'n' ? sg_nf_loader_start(ctx, data ? len : 0) : NULL;
    const sg_ynode *root =
        sg_yaml_parse_items(ctx, name, data, len, NULL, nf ? sg_nf_loader_item : NULL, nf);
    return finish_load(ctx, name, r, root, nf, before);
}

/* ---- whole-model checks ----------------------------------------------------------------- */

/* torchgen's DispatchKey names (shimrt/codes.h): the whole ones, and functionality x
 * backend component. */
#define SG_KEY_NAME_(name) #name,
static const char *const dk_fixed[] = {SHIMRT_KEY_OTHERS(SG_KEY_NAME_)};
static const char *const dk_functionality[] = {SHIMRT_KEY_FUNCTIONALITIES(SG_KEY_NAME_)};
static const char *const dk_backends[] = {SHIMRT_KEY_BACKEND_COMPONENTS(SG_KEY_NAME_)};
#undef SG_KEY_NAME_

/* Splits "add.out" / "abs" / "ns::foo.bar" into a lookup. */
static const sg_native_function *find_op_name(sg_context *ctx, const char *text) {
    const char *start = text;
    const char *sep = strstr(text, "::");
    if (sep) start = sep + 2;
    const char *dot = strchr(start, '.');
    if (!dot) return sg_model_find_by_name(ctx, text, "");
    char small[256];
    size_t n = (size_t)(dot - text);
    char *name = n < sizeof small ? small : malloc(n + 1);
    if (!name) return NULL;
    memcpy(name, text, n);
    name[n] = '\0';
    const sg_native_function *f = sg_model_find_by_name(ctx, name, dot + 1);
    if (name != small) free(name);
    return f;
}

static void resolve_delegates(sg_context *ctx, bool report) {
    sg_model *m = &ctx->model;
    for (size_t i = 0; i < m->n_funcs; i++) {
        sg_native_function *f = m->funcs[i];
        if (!f || !f->structured_delegate || f->delegate) continue;
        f->delegate = find_op_name(ctx, f->structured_delegate);
        if (!f->delegate && report)
            sg_diag(ctx, SG_DIAG_ERROR, f->structured_delegate_loc,
                    "structured_delegate '%s' names no function", f->structured_delegate);
    }
    if (!report) return;
    /* torchgen: the delegate is the group's out function (SchemaKind.out), never the entry
     * itself. */
    for (size_t i = 0; i < m->n_funcs; i++) {
        sg_native_function *f = m->funcs[i];
        if (!f || !f->delegate) continue;
        const char *why = NULL;
        if (f->delegate == f)
            why = "names this function itself";
        else if (!f->delegate->func || f->delegate->func->kind != SG_KIND_OUT)
            why = "is not an out variant (the delegate must be the group's out function)";
        if (!why) continue;
        sg_diag(ctx, SG_DIAG_ERROR, f->structured_delegate_loc, "structured_delegate '%s' %s",
                f->structured_delegate, why);
        f->delegate = NULL;
    }
}

static void check_duplicates(sg_context *ctx) {
    for (size_t i = 0; i + 1 < ctx->n_dups; i += 2) {
        const sg_native_function *first = ctx->dups[i], *f = ctx->dups[i + 1];
        sg_loc fl = first->func_loc.file ? first->func_loc : first->loc;
        sg_loc here = f->func_loc.file ? f->func_loc : f->loc;
        sg_diag(ctx, SG_DIAG_ERROR, here, "duplicate op '%s' (first defined at %s:%u:%u)",
                f->op_key, fl.file ? fl.file : "<derived>", (unsigned)fl.line, (unsigned)fl.col);
        sg_diag(ctx, SG_DIAG_NOTE, fl, "'%s' first defined here", f->op_key);
    }
}

typedef struct name_set {
    const char **names;
    uint64_t *hashes;
    size_t cap;
} name_set;

static int name_set_init(name_set *s, const sg_tag *tags, size_t n) {
    s->cap = 64;
    while (s->cap < n * 2) s->cap *= 2;
    s->names = calloc(s->cap, sizeof *s->names);
    s->hashes = calloc(s->cap, sizeof *s->hashes);
    if (!s->names || !s->hashes) return -1;
    for (size_t i = 0; i < n; i++) {
        if (!tags[i].name) continue;
        uint64_t h = hash_str(tags[i].name);
        size_t j = (size_t)h & (s->cap - 1);
        while (s->names[j] && strcmp(s->names[j], tags[i].name) != 0) j = (j + 1) & (s->cap - 1);
        s->names[j] = tags[i].name;
        s->hashes[j] = h;
    }
    return 0;
}

static bool name_set_has(const name_set *s, const char *name) {
    uint64_t h = hash_str(name);
    for (size_t j = (size_t)h & (s->cap - 1); s->names[j]; j = (j + 1) & (s->cap - 1))
        if (s->hashes[j] == h && strcmp(s->names[j], name) == 0) return true;
    return false;
}

static void check_tags(sg_context *ctx) {
    sg_model *m = &ctx->model;
    if (!m->have_tags_file) return;
    name_set set;
    if (name_set_init(&set, m->tags, m->n_tags) != 0) {
        free(set.names);
        free(set.hashes);
        oom(ctx);
        return;
    }
    for (size_t i = 0; i < m->n_written && i < m->n_funcs; i++) {
        const sg_native_function *f = m->funcs[i];
        for (int t = 0; f && t < f->n_tags; t++)
            if (!name_set_has(&set, f->tags[t]))
                sg_diag(ctx, SG_DIAG_ERROR, f->tag_locs ? f->tag_locs[t] : f->loc,
                        "unknown tag '%s' (not declared in tags.yaml)", f->tags[t]);
    }
    free(set.names);
    free(set.hashes);
}

static void check_dispatch_keys(sg_context *ctx) {
    sg_model *m = &ctx->model;
    enum {
        NF = sizeof dk_fixed / sizeof *dk_fixed,
        NFU = sizeof dk_functionality / sizeof *dk_functionality,
        NB = sizeof dk_backends / sizeof *dk_backends
    };
    sg_tag names[NF + NFU * NB];
    char made[NFU * NB][48]; /* functionality + backend, e.g. "QuantizedCPU" */
    size_t n = 0;
    for (size_t i = 0; i < NF; i++) names[n++] = (sg_tag){dk_fixed[i], NULL, {NULL, 0, 0}};
    for (size_t i = 0; i < NFU; i++)
        for (size_t j = 0; j < NB; j++) {
            char *k = made[i * NB + j];
            size_t a = strlen(dk_functionality[i]), b = strlen(dk_backends[j]);
            memcpy(k, dk_functionality[i], a);
            memcpy(k + a, dk_backends[j], b + 1);
            names[n++] = (sg_tag){k, NULL, {NULL, 0, 0}};
        }
    name_set set;
    if (name_set_init(&set, names, n) != 0) {
        free(set.names);
        free(set.hashes);
        oom(ctx);
        return;
    }
    /* Keys that were found, by address: the loader shares one copy of the common keys. */
    enum { NCACHE = 64 };
    const char *known[NCACHE] = {0};
    for (size_t i = 0; i < m->n_written && i < m->n_funcs; i++) {
        const sg_native_function *f = m->funcs[i];
        for (int d = 0; f && d < f->n_dispatch; d++) {
            const char *key = f->dispatch[d].key;
            size_t slot = ((uintptr_t)key >> 3) % NCACHE;
            if (known[slot] == key) continue;
            if (!name_set_has(&set, key))
                sg_diag(ctx, SG_DIAG_ERROR, f->dispatch[d].loc, "unknown dispatch key '%s'", key);
            else
                known[slot] = key;
        }
    }
    free(set.names);
    free(set.hashes);
}

/* Length of the directory part of a path ("a/b/x.yaml" -> 4, "x.yaml" -> 0). */
static size_t dir_len(const char *path) {
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? (size_t)(slash - path + 1) : 0;
}

/* `fallback_ops: all` / `aten_ops: all`: one op per function written in the
 * native_functions.yaml of the same directory (derived functions excluded), after the
 * listed ones; an op that the section of another file lists already is not repeated. */
static void expand_shim_all(sg_context *ctx) {
    sg_model *m = &ctx->model;
    if (m->n_shim_all == 0) return;
    size_t cap = m->n_shim_ops + m->n_shim_all * m->n_written;
    sg_shim_op *ops = sg_arena_alloc(ctx->arena, (cap + 1) * sizeof *ops);
    if (!ops) {
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){NULL, 0, 0}, "out of memory");
        return;
    }
    if (m->n_shim_ops) memcpy(ops, m->shim_ops, m->n_shim_ops * sizeof *ops);
    size_t n = m->n_shim_ops;
    for (size_t r = 0; r < m->n_shim_all; r++) {
        const sg_shim_op *all = &m->shim_all[r];
        size_t dl = dir_len(all->loc.file);
        for (size_t i = 0; i < m->n_written && i < m->n_funcs; i++) {
            const sg_native_function *f = m->funcs[i];
            if (f->derived || dir_len(f->loc.file) != dl ||
                (dl && strncmp(f->loc.file, all->loc.file, dl) != 0))
                continue;
            const sg_schema *sc = f->func;
            const char *key =
                sg_arena_printf(ctx->arena, "%s.%s.%s", sc->ns ? sc->ns : "aten", sc->name,
                                sc->overload && *sc->overload ? sc->overload : "default");
            if (!key) return;
            bool listed = false;
            for (size_t q = 0; q < n && !listed; q++)
                listed = ops[q].aten == all->aten && strcmp(ops[q].key, key) == 0;
            if (listed) continue;
            sg_shim_op op = *all;
            op.key = key;
            ops[n++] = op;
        }
    }
    m->shim_ops = ops;
    m->n_shim_ops = n;
}

static void check_shim_ops(sg_context *ctx) {
    sg_model *m = &ctx->model;
    expand_shim_all(ctx);
    for (size_t i = 0; i < m->n_shim_ops; i++) {
        sg_shim_op *op = &m->shim_ops[i];
        op->fn = sg_model_find(ctx, op->key);
        if (!op->fn)
            sg_diag(ctx, SG_DIAG_ERROR, op->loc, "op '%s' in %s names no function", op->key,
                    op->aten ? "aten_ops" : "fallback_ops");
    }
}

int sg_finalize(sg_context *ctx) {
    if (!ctx) return -1;
    if (ctx->finalized) return ctx->finalize_rc;
    ctx->finalized = true;
    sg_model *m = &ctx->model;
    m->n_written = m->n_funcs;
    if (index_funcs(ctx) != 0) return ctx->finalize_rc = -1;
    resolve_delegates(ctx, false);
    if (sg_derive_functions(ctx) != 0 && ctx->n_errors == 0)
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){NULL, 0, 0}, "deriving autogen functions failed");
    if (index_funcs(ctx) != 0) return ctx->finalize_rc = -1;
    check_duplicates(ctx);
    resolve_delegates(ctx, true);
    check_tags(ctx);
    check_dispatch_keys(ctx);
    check_shim_ops(ctx);
    return ctx->finalize_rc = ctx->n_errors ? -1 : 0;
}

/* ---- --print-schemas -------------------------------------------------------------------- */

int sg_print_schemas(sg_context *ctx, bool include_derived, void *file) {
    if (!ctx || !file) return -1;
    FILE *out = file;
    const sg_model *m = &ctx->model;
    size_t end = include_derived ? m->n_funcs : (m->n_written ? m->n_written : m->n_funcs);
    if (!ctx->finalized) end = m->n_funcs; /* nothing derived yet */
    char small[4096];
    for (size_t i = 0; i < end; i++) {
        const sg_native_function *f = m->funcs[i];
        if (!f || !f->func) {
            sg_diag(ctx, SG_DIAG_ERROR, f ? f->loc : (sg_loc){NULL, 0, 0},
                    "function without a schema");
            return -1;
        }
        size_t n = sg_schema_print(f->func, small, sizeof small);
        const char *s = small;
        if (n >= sizeof small && !(s = sg_schema_to_string(ctx->arena, f->func))) {
            oom(ctx);
            return -1;
        }
        fwrite(s, 1, n, out);
        putc('\n', out);
    }
    if (fflush(out) != 0 || ferror(out)) {
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){NULL, 0, 0}, "write error: %s", strerror(errno));
        return -1;
    }
    return 0;
}

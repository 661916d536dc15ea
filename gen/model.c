/* gen/model.c: builds the model from the YAML trees of native_functions.yaml, tags.yaml
 * and shim_ops.yaml. Every value keeps its file:line:col; every malformed value is an error
 * at its own location; unknown keys are kept (in the entry's node) and ignored. */
#include "model.h"
#include "emit.h"

#include <shimrt/codes.h>

#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a loader running in a second thread did, in order, for the calling thread to replay:
 * an error (msg) or a function to append (fn). */
typedef struct nf_rec {
    sg_native_function *fn; /* NULL: a diagnostic */
    const char *msg;
    sg_loc loc;
} nf_rec;

typedef struct nf_log {
    nf_rec *recs;
    size_t n, cap;
    bool failed; /* out of memory while logging: the log is incomplete */
} nf_log;

typedef struct loader {
    sg_context *ctx;
    sg_arena *arena;
    int errors;
    nf_log *log;    /* non-NULL in the second thread: never touch ctx, log instead */
    const char *ns; /* with log: the model's namespace, for op keys */
} loader;

static nf_rec *log_push(loader *L) {
    nf_log *g = L->log;
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 4096;
        nf_rec *r = realloc(g->recs, cap * sizeof *r);
        if (!r) {
            g->failed = true;
            return NULL;
        }
        g->recs = r;
        g->cap = cap;
    }
    return &g->recs[g->n++];
}

static void err(loader *L, sg_loc loc, const char *fmt, const char *a, const char *b) {
    L->errors++;
    if (!L->log) {
        sg_diag(L->ctx, SG_DIAG_ERROR, loc, fmt, a, b);
        return;
    }
    int n = snprintf(NULL, 0, fmt, a, b);
    char *msg = n < 0 ? NULL : sg_arena_alloc(L->arena, (size_t)n + 1);
    nf_rec *r = msg ? log_push(L) : NULL;
    if (!r) {
        L->log->failed = true;
        return;
    }
    snprintf(msg, (size_t)n + 1, fmt, a, b);
    r->fn = NULL;
    r->msg = msg;
    r->loc = loc;
}

static const char *kind_name(const sg_ynode *n) {
    switch (n->kind) {
    case SG_Y_SEQ: return "a list";
    case SG_Y_MAP: return "a mapping";
    default: return n->scalar_len || n->quoted ? "a string" : "an empty value";
    }
}

static bool is_null(const sg_ynode *n) {
    if (n->kind != SG_Y_SCALAR || n->quoted) return false;
    if (n->scalar_len == 0) return true;
    const char *s = n->scalar;
    switch (s[0]) {
    case '~': return s[1] == '\0';
    case 'n': return strcmp(s, "null") == 0;
    case 'N': return strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
    default: return false;
    }
}

/* A non-empty string value. */
static const char *get_str(loader *L, const char *key, const sg_ynode *v) {
    if (v->kind != SG_Y_SCALAR || is_null(v)) {
        err(L, v->loc, "'%s' must be a string, not %s", key, kind_name(v));
        return NULL;
    }
    return v->scalar;
}

/* YAML 1.1 booleans, as PyYAML (which torchgen uses) reads them; quoted text is a string. */
static int get_bool(loader *L, const char *key, const sg_ynode *v, bool *out) {
    static const char *const t[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
    static const char *const f[] = {"false", "False", "FALSE", "no", "No",
                                    "NO",    "off",   "Off",   "OFF"};
    if (v->kind == SG_Y_SCALAR && !v->quoted) {
        for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
            if (strcmp(v->scalar, t[i]) == 0) return *out = true, 0;
            if (strcmp(v->scalar, f[i]) == 0) return *out = false, 0;
        }
    }
    err(L, v->loc, "'%s' must be a bool (True or False), not %s", key,
        v->kind == SG_Y_SCALAR && v->scalar_len ? v->quoted ? "a quoted string" : v->scalar
                                                : kind_name(v));
    return -1;
}

static int check_str_list(loader *L, const char *key, const sg_ynode *v) {
    if (v->kind != SG_Y_SEQ) {
        err(L, v->loc, "'%s' must be a list of strings, not %s", key, kind_name(v));
        return -1;
    }
    int rc = 0;
    for (uint32_t i = 0; i < v->n_items; i++)
        if (v->items[i]->kind != SG_Y_SCALAR || is_null(v->items[i])) {
            err(L, v->items[i]->loc, "'%s' must be a list of strings, not hold %s", key,
                kind_name(v->items[i]));
            rc = -1;
        }
    return rc;
}

static bool is_space(char c) { return c == ' ' || c == '\t'; }

/* Splits a scalar on commas, trimming blanks: each part with its location. The parts go to
 * local[0 .. local_cap) when they fit (else to the arena); a part that is the whole scalar
 * is the scalar itself, the others are arena copies. */
typedef struct part {
    const char *text;
    sg_loc loc;
} part;

enum { LOCAL_PARTS = 16 };

static int split_commas(loader *L, const sg_ynode *v, part *local, part **out, int *n_out) {
    const char *s = v->scalar;
    size_t len = v->scalar_len;
    int n = 1;
    const char *c = s, *end = s + len;
    while ((c = memchr(c, ',', (size_t)(end - c))) != NULL) n++, c++;
    part *p = local;
    if (n > LOCAL_PARTS && !(p = sg_arena_alloc(L->arena, (size_t)n * sizeof *p))) return -1;
    int k = 0;
    size_t i = 0;
    for (;;) {
        size_t a = i;
        while (a < len && is_space(s[a])) a++;
        size_t e = a;
        while (e < len && s[e] != ',') e++;
        size_t b = e;
        while (b > a && is_space(s[b - 1])) b--;
        p[k].text = a == 0 && b == len ? s : sg_arena_strndup(L->arena, s + a, b - a);
        p[k].loc = sg_ynode_loc_at(v, a);
        if (!p[k].text) return -1;
        k++;
        if (e >= len) break;
        i = e + 1;
    }
    *out = p;
    *n_out = k;
    return 0;
}

/* ---- native_functions.yaml --------------------------------------------------------------- */

/* One shared copy of each dispatch key of shimrt/codes.h's SHIMRT_DISPATCH_KEYS (the
 * copies of sg_dispatch_key_name; the whole-model check caches its verdict by address);
 * other keys are returned as they are. */
static const char *common_dispatch_key(const char *k) {
    for (int c = 0; c < SHIMRT_NUM_DISPATCH_KEYS; c++) {
        const char *name = sg_dispatch_key_name(c);
        if (name[0] == k[0] && strcmp(name, k) == 0) return name;
    }
    return k;
}

/* A kernel name as torchgen takes it: a C identifier, optionally qualified by C++
 * namespaces ("at::native::add_out"). Default-mode emission further requires a plain C
 * identifier (gen/emit_plan.c). */
static bool valid_kernel_name(const char *s) {
    for (;;) {
        size_t n = sg_ident_len(s);
        if (n == 0) return false;
        s += n;
        if (*s == '\0') return true;
        if (s[0] != ':' || s[1] != ':') return false;
        s += 2;
    }
}

/* The earlier key of map m with the same text as its key at index i (even), or NULL. */
static const sg_ynode *earlier_key(const sg_ynode *m, uint32_t i) {
    const sg_ynode *k = m->items[i];
    if (k->kind != SG_Y_SCALAR) return NULL;
    for (uint32_t j = 0; j < i; j += 2) {
        const sg_ynode *e = m->items[j];
        if (e->kind == SG_Y_SCALAR && e->scalar_len == k->scalar_len &&
            memcmp(e->scalar, k->scalar, k->scalar_len) == 0)
            return e;
    }
    return NULL;
}

/* Reports a key of map m that repeats an earlier one; true when it does. */
static bool dup_key(loader *L, const sg_ynode *m, uint32_t i) {
    if (!earlier_key(m, i)) return false;
    err(L, m->items[i]->loc, "key '%s' appears twice in this mapping%s", m->items[i]->scalar, "");
    return true;
}

static void parse_dispatch(loader *L, sg_native_function *f, const sg_ynode *v) {
    f->has_dispatch = true;
    if (v->kind != SG_Y_MAP) {
        err(L, v->loc, "'%s' must be a mapping from dispatch keys to kernels, not %s", "dispatch",
            kind_name(v));
        return;
    }
    int total = 0;
    for (uint32_t i = 0; i < v->n_items; i += 2) {
        const sg_ynode *k = v->items[i];
        if (k->kind == SG_Y_SCALAR)
            for (uint32_t j = 0; j < k->scalar_len; j++) total += k->scalar[j] == ',';
        total++;
    }
    sg_dispatch *d = sg_arena_alloc(L->arena, (size_t)(total ? total : 1) * sizeof *d);
    if (!d) return;
    int n = 0;
    for (uint32_t i = 0; i + 1 < v->n_items; i += 2) {
        const sg_ynode *k = v->items[i], *val = v->items[i + 1];
        if (k->kind != SG_Y_SCALAR || k->scalar_len == 0) {
            err(L, k->loc, "a dispatch key must be a name, not %s%s", kind_name(k), "");
            continue;
        }
        if (val->kind != SG_Y_SCALAR || is_null(val)) {
            err(L, val->loc, "the kernel for dispatch key '%s' must be a name, not %s", k->scalar,
                kind_name(val));
            continue;
        }
        if (!valid_kernel_name(val->scalar)) {
            err(L, val->loc,
                "bad kernel name '%s' for dispatch key '%s' (expected a C identifier, "
                "optionally qualified with '::')",
                val->scalar, k->scalar);
            continue;
        }
        part local[LOCAL_PARTS], *parts;
        int np;
        if (split_commas(L, k, local, &parts, &np) != 0) return;
        for (int j = 0; j < np; j++) {
            if (!parts[j].text[0]) {
                err(L, parts[j].loc, "empty dispatch key in '%s'%s", k->scalar, "");
                continue;
            }
            bool dup = false;
            for (int q = 0; q < n; q++)
                if (strcmp(d[q].key, parts[j].text) == 0) dup = true;
            if (dup) {
                err(L, parts[j].loc, "dispatch key '%s' appears twice%s", parts[j].text, "");
                continue;
            }
            d[n].key = common_dispatch_key(parts[j].text);
            d[n].kernel = val->scalar;
            d[n].loc = parts[j].loc;
            n++;
        }
    }
    f->dispatch = d;
    f->n_dispatch = n;
}

static void parse_tags(loader *L, sg_native_function *f, const sg_ynode *v) {
    if (v->kind == SG_Y_SCALAR && !is_null(v)) {
        const char **t = sg_arena_alloc(L->arena, sizeof *t);
        sg_loc *l = sg_arena_alloc(L->arena, sizeof *l);
        if (!t || !l) return;
        t[0] = v->scalar;
        l[0] = v->loc;
        f->tags = t, f->tag_locs = l, f->n_tags = 1;
        return;
    }
    if (v->kind != SG_Y_SEQ) {
        err(L, v->loc, "'%s' must be a tag name or a list of tag names, not %s", "tags",
            kind_name(v));
        return;
    }
    if (check_str_list(L, "tags", v) != 0) return;
    const char **t = sg_arena_alloc(L->arena, (v->n_items + 1) * sizeof *t);
    sg_loc *l = sg_arena_alloc(L->arena, (v->n_items + 1) * sizeof *l);
    if (!t || !l) return;
    for (uint32_t i = 0; i < v->n_items; i++) t[i] = v->items[i]->scalar, l[i] = v->items[i]->loc;
    f->tags = t, f->tag_locs = l, f->n_tags = (int)v->n_items;
}

static void parse_autogen(loader *L, sg_native_function *f, const sg_ynode *v) {
    if (!get_str(L, "autogen", v)) return;
    part local[LOCAL_PARTS], *parts;
    int np;
    if (split_commas(L, v, local, &parts, &np) != 0) return;
    const char **names = sg_arena_alloc(L->arena, (size_t)np * sizeof *names);
    sg_loc *locs = sg_arena_alloc(L->arena, (size_t)np * sizeof *locs);
    if (!names || !locs) return;
    int n = 0;
    for (int i = 0; i < np; i++) {
        if (!parts[i].text[0]) {
            err(L, parts[i].loc, "empty name in '%s'%s", "autogen", "");
            continue;
        }
        names[n] = parts[i].text;
        locs[n] = parts[i].loc;
        n++;
    }
    f->autogen = names, f->autogen_locs = locs, f->n_autogen = n;
}

static void parse_variants(loader *L, sg_native_function *f, const sg_ynode *v) {
    if (!get_str(L, "variants", v)) return;
    part local[LOCAL_PARTS], *parts;
    int np;
    if (split_commas(L, v, local, &parts, &np) != 0) return;
    for (int i = 0; i < np; i++)
        if (strcmp(parts[i].text, "function") != 0 && strcmp(parts[i].text, "method") != 0)
            err(L, parts[i].loc, "unknown variant '%s' (expected 'function' or 'method')%s",
                parts[i].text, "");
    f->variants = v->scalar;
}

static void parse_func(loader *L, sg_native_function *f, const sg_ynode *v) {
    f->func_loc = v->loc;
    f->func_node = v;
    if (v->kind != SG_Y_SCALAR || is_null(v)) {
        err(L, v->loc, "'%s' must be a schema string, not %s", "func", kind_name(v));
        return;
    }
    f->func_text = v->scalar;
    sg_schema_error e;
    memset(&e, 0, sizeof e);
    const sg_schema *s = sg_schema_parse(L->arena, v->scalar, v->scalar_len, &e);
    if (!s) {
        e.message[sizeof e.message - 1] = '\0';
        err(L, sg_ynode_loc_at(v, e.offset), "%s%s", e.message[0] ? e.message : "invalid schema",
            "");
        return;
    }
    /* torchgen asserts str(parse(text)) == text. Checked here, while the text is in the
     * cache (sg_finalize checks only the functions that have no func_node). */
    char small[4096];
    size_t n = sg_schema_print(s, small, sizeof small);
    /* A longer text did not fit: print it again into the arena before comparing. */
    const char *printed = n < sizeof small ? small : sg_schema_to_string(L->arena, s);
    if (!printed) {
        err(L, v->loc, "out of memory%s%s", "", "");
        return;
    }
    if (n != v->scalar_len || memcmp(printed, v->scalar, n) != 0) {
        size_t k = 0;
        while (printed[k] && printed[k] == v->scalar[k]) k++;
        err(L, sg_ynode_loc_at(v, k), "schema is not in canonical form; it prints as '%s'%s",
            printed, "");
        return;
    }
    f->func = s;
}

static bool is_composite(const char *k) { return strncmp(k, "Composite", 9) == 0; }

/* The keys of an entry that mean something; K_OTHER for the rest. */
enum {
    K_FUNC,
    K_DISPATCH,
    K_STRUCTURED,
    K_STRUCTURED_DELEGATE,
    K_STRUCTURED_INHERITS,
    K_AUTOGEN,
    K_TAGS,
    K_VARIANTS,
    K_PYTHON_MODULE,
    K_CATEGORY_OVERRIDE,
    K_MANUAL_CPP_BINDING,
    K_MANUAL_KERNEL_REGISTRATION,
    K_DEVICE_GUARD,
    K_DEVICE_CHECK,
    K_IS_ABSTRACT,
    K_USE_CONST_REF,
    K_PRECOMPUTED,
    K_CPP_NO_DEFAULT_ARGS,
    K_UFUNC_INNER_LOOP,
    K_OTHER
};

static int key_id(const char *k) {
#define K_(name, id)                                                                               \
    if (strcmp(k, name) == 0) return id
    switch (k[0]) {
    case 'f': K_("func", K_FUNC); break;
    case 'd':
        K_("dispatch", K_DISPATCH);
        K_("device_guard", K_DEVICE_GUARD);
        K_("device_check", K_DEVICE_CHECK);
        break;
    case 's':
        K_("structured", K_STRUCTURED);
        K_("structured_delegate", K_STRUCTURED_DELEGATE);
        K_("structured_inherits", K_STRUCTURED_INHERITS);
        break;
    case 'a': K_("autogen", K_AUTOGEN); break;
    case 't': K_("tags", K_TAGS); break;
    case 'v': K_("variants", K_VARIANTS); break;
    case 'p':
        K_("python_module", K_PYTHON_MODULE);
        K_("precomputed", K_PRECOMPUTED);
        break;
    case 'c':
        K_("category_override", K_CATEGORY_OVERRIDE);
        K_("cpp_no_default_args", K_CPP_NO_DEFAULT_ARGS);
        break;
    case 'm':
        K_("manual_cpp_binding", K_MANUAL_CPP_BINDING);
        K_("manual_kernel_registration", K_MANUAL_KERNEL_REGISTRATION);
        break;
    case 'i': K_("is_abstract", K_IS_ABSTRACT); break;
    case 'u':
        K_("use_const_ref_for_mutable_tensors", K_USE_CONST_REF);
        K_("ufunc_inner_loop", K_UFUNC_INNER_LOOP);
        break;
    default: break;
    }
#undef K_
    return K_OTHER;
}

static int add_entry(loader *L, const sg_ynode *e) {
    if (e->kind != SG_Y_MAP) {
        err(L, e->loc, "an entry must be a mapping with a 'func:' key, not %s%s", kind_name(e), "");
        return -1;
    }
    int before = L->errors;
    sg_native_function *f = sg_arena_alloc(L->arena, sizeof *f);
    if (!f) return -1;
    f->loc = e->loc;
    f->node = e;
    f->device_guard = true;
    bool have_func = false, abstract_given = false;
    uint32_t seen = 0; /* bit k: key k was seen */
    for (uint32_t i = 0; i + 1 < e->n_items; i += 2) {
        const sg_ynode *k = e->items[i], *v = e->items[i + 1];
        if (k->kind != SG_Y_SCALAR) {
            err(L, k->loc, "a key must be a name, not %s%s", kind_name(k), "");
            continue;
        }
        const char *key = k->scalar;
        int id = key_id(key);
        /* A known key is a duplicate when its bit is set; another key when an earlier key
         * that is not a known one has the same text. */
        bool dup = false;
        if (id != K_OTHER) {
            dup = (seen >> id) & 1u;
            seen |= 1u << id;
        } else {
            for (uint32_t j = 0; j < i && !dup; j += 2)
                if (e->items[j]->kind == SG_Y_SCALAR && strcmp(e->items[j]->scalar, key) == 0)
                    dup = true;
        }
        if (dup) {
            err(L, k->loc, "key '%s' appears twice in this entry%s", key, "");
            continue;
        }
        switch (id) {
        case K_FUNC:
            have_func = true;
            parse_func(L, f, v);
            break;
        case K_DISPATCH: parse_dispatch(L, f, v); break;
        case K_STRUCTURED: get_bool(L, key, v, &f->structured); break;
        case K_STRUCTURED_DELEGATE:
            f->structured_delegate = get_str(L, key, v);
            f->structured_delegate_loc = v->loc;
            break;
        case K_STRUCTURED_INHERITS: f->structured_inherits = get_str(L, key, v); break;
        case K_AUTOGEN: parse_autogen(L, f, v); break;
        case K_TAGS: parse_tags(L, f, v); break;
        case K_VARIANTS: parse_variants(L, f, v); break;
        case K_PYTHON_MODULE: f->python_module = get_str(L, key, v); break;
        case K_CATEGORY_OVERRIDE: f->category_override = get_str(L, key, v); break;
        case K_MANUAL_CPP_BINDING: get_bool(L, key, v, &f->manual_cpp_binding); break;
        case K_MANUAL_KERNEL_REGISTRATION:
            get_bool(L, key, v, &f->manual_kernel_registration);
            break;
        case K_DEVICE_GUARD: get_bool(L, key, v, &f->device_guard); break;
        case K_DEVICE_CHECK: {
            const char *s = get_str(L, key, v);
            if (s && strcmp(s, "NoCheck") != 0 && strcmp(s, "ExactSame") != 0)
                err(L, v->loc, "unknown device_check '%s' (expected NoCheck or ExactSame)%s", s,
                    "");
            else
                f->device_check = s;
            break;
        }
        case K_IS_ABSTRACT:
            if (get_bool(L, key, v, &f->is_abstract) == 0) abstract_given = true;
            break;
        case K_USE_CONST_REF: {
            bool b;
            get_bool(L, key, v, &b);
            break;
        }
        case K_PRECOMPUTED:
        case K_CPP_NO_DEFAULT_ARGS: check_str_list(L, key, v); break;
        case K_UFUNC_INNER_LOOP:
            if (v->kind != SG_Y_MAP)
                err(L, v->loc, "'%s' must be a mapping, not %s", key, kind_name(v));
            else
                f->has_ufunc_inner_loop = true;
            break;
        default: break;
        }
        /* anything else: kept in f->node, ignored */
    }
    if (!have_func) err(L, e->loc, "this entry has no '%s:' key%s", "func", "");
    if (!abstract_given) {
        /* torchgen: abstract when some kernel is backend-specific, or structured. */
        bool backend_specific = false;
        for (int i = 0; i < f->n_dispatch; i++)
            if (!is_composite(f->dispatch[i].key)) backend_specific = true;
        f->is_abstract = backend_specific || f->structured_delegate || f->has_ufunc_inner_loop;
    }
    if (L->errors != before || !f->func) return -1;
    if (L->log) {
        /* the op key sg_model_append_function would make, made here in this thread */
        if (f->func->name) {
            const char *ns = f->func->ns ? f->func->ns : L->ns;
            const char *ov =
                f->func->overload && f->func->overload[0] ? f->func->overload : "default";
            size_t a = strlen(ns), b = strlen(f->func->name), c = strlen(ov);
            char *k = sg_arena_alloc(L->arena, a + b + c + 3);
            if (!k) {
                L->log->failed = true;
                return -1;
            }
            memcpy(k, ns, a);
            k[a] = '.';
            memcpy(k + a + 1, f->func->name, b);
            k[a + 1 + b] = '.';
            memcpy(k + a + b + 2, ov, c + 1);
            f->op_key = k;
        }
        /* derive.c's grouping hash, also made here, off the calling thread */
        f->sig_hash = sg_derive_sig_hash(f->func);
        f->sig_hash_of = f->func;
        nf_rec *r = log_push(L);
        if (!r) return -1;
        r->fn = f;
        r->msg = NULL;
        return 0;
    }
    return sg_model_append_function(L->ctx, f);
}

int sg_model_add_native_functions(sg_context *ctx, const sg_ynode *root) {
    loader L = {ctx, sg_context_arena(ctx), 0, NULL, NULL};
    if (!root) return -1;
    if (root->kind != SG_Y_SEQ) {
        err(&L, root->loc, "expected a list of native function entries ('- func: ...'), found %s%s",
            root->kind == SG_Y_SCALAR && is_null(root) ? "an empty document" : kind_name(root), "");
        return -1;
    }
    for (uint32_t i = 0; i < root->n_items; i++) add_entry(&L, root->items[i]);
    sg_model *m = sg_context_model_mut(ctx);
    m->n_written = m->n_funcs;
    return L.errors ? -1 : 0;
}

/* ---- native_functions.yaml in a second thread -------------------------------------------------
 * The calling thread parses the YAML; each completed top-level entry is queued (in batches)
 * for this thread, which runs add_entry on it with its own arena and logs what it would have
 * reported or appended. sg_nf_loader_finish replays the log in order in the calling thread.
 * Anything unusual (the root is not a list, out of memory on either side) falls back to
 * sg_model_add_native_functions on the finished tree, so the result is always the same. */

enum { NF_BATCH = 32, NF_THRESHOLD = 64 * 1024 };

struct sg_nf_loader {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* shared, under mu */
    const sg_ynode **queue;
    size_t n_queued, n_taken, cap_queue;
    bool done, stop, waiting;
    /* producer only */
    const sg_ynode *pending[NF_BATCH];
    int n_pending;
    bool broken; /* a queue allocation failed: items were lost */
    /* consumer only until joined */
    sg_arena *arena;
    const char *ns;
    nf_log log;
    size_t n_built; /* entries the consumer ran add_entry on */
    int errors;
};

static void *nf_thread(void *arg) {
    sg_nf_loader *l = arg;
    loader L = {NULL, l->arena, 0, &l->log, l->ns};
    const sg_ynode *batch[4 * NF_BATCH];
    for (;;) {
        pthread_mutex_lock(&l->mu);
        while (l->n_taken == l->n_queued && !l->done && !l->stop) {
            l->waiting = true;
            pthread_cond_wait(&l->cv, &l->mu);
            l->waiting = false;
        }
        size_t n = l->n_queued - l->n_taken;
        if (n > sizeof batch / sizeof *batch) n = sizeof batch / sizeof *batch;
        if (l->stop) n = 0;
        if (n) memcpy(batch, l->queue + l->n_taken, n * sizeof *batch);
        l->n_taken += n;
        pthread_mutex_unlock(&l->mu);
        if (!n) break; /* done (or stopped) and nothing left */
        for (size_t i = 0; i < n; i++) add_entry(&L, batch[i]);
        l->n_built += n;
    }
    l->errors = L.errors;
    return NULL;
}

static int nf_threads_wanted(size_t input_size) {
    const char *e = getenv("SHIMGEN_THREADS");
    if (e && e[0] == '1' && !e[1]) return 1;
    if (e && e[0] == '2' && !e[1]) return 2;
    if (input_size <= NF_THRESHOLD) return 1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus >= 2 ? 2 : 1;
}

sg_nf_loader *sg_nf_loader_start(sg_context *ctx, size_t input_size) {
    if (nf_threads_wanted(input_size) < 2) return NULL;
    sg_nf_loader *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->ns = sg_context_model_mut(ctx)->ns;
    l->arena = sg_arena_new();
    if (!l->arena) goto fail_mem;
    if (pthread_mutex_init(&l->mu, NULL) != 0) goto fail_mem;
    if (pthread_cond_init(&l->cv, NULL) != 0) goto fail_mu;
    if (pthread_create(&l->thread, NULL, nf_thread, l) != 0) goto fail_cv;
    return l;
fail_cv:
    pthread_cond_destroy(&l->cv);
fail_mu:
    pthread_mutex_destroy(&l->mu);
fail_mem:
    sg_arena_free(l->arena);
    free(l);
    return NULL;
}

/* Moves the pending items to the shared queue; wakes the thread; with `last`, tells it that
 * no more items come (and with `stop`, that it should drop the rest). */
static void nf_publish(sg_nf_loader *l, bool last, bool stop) {
    pthread_mutex_lock(&l->mu);
    if (l->n_pending && !l->broken) {
        if (l->n_queued + (size_t)l->n_pending > l->cap_queue) {
            size_t cap = l->cap_queue ? l->cap_queue * 2 : 4096;
            const sg_ynode **q = realloc(l->queue, cap * sizeof *q);
            if (q) {
                l->queue = q;
                l->cap_queue = cap;
            } else {
                l->broken = true;
            }
        }
        if (!l->broken) {
            memcpy(l->queue + l->n_queued, l->pending, (size_t)l->n_pending * sizeof *l->queue);
            l->n_queued += (size_t)l->n_pending;
        }
    }
    l->n_pending = 0;
    if (last) l->done = true;
    if (stop || l->broken) l->stop = true;
    bool wake = l->waiting || last;
    pthread_mutex_unlock(&l->mu);
    if (wake) pthread_cond_signal(&l->cv);
}

void sg_nf_loader_item(void *loader_, const sg_ynode *item) {
    sg_nf_loader *l = loader_;
    l->pending[l->n_pending++] = item;
    if (l->n_pending == NF_BATCH) nf_publish(l, false, false);
}

int sg_nf_loader_finish(sg_context *ctx, sg_nf_loader *l, const sg_ynode *root) {
    if (!l) return root ? sg_model_add_native_functions(ctx, root) : -1;
    nf_publish(l, true, root == NULL);
    pthread_join(l->thread, NULL);
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
    bool usable = root && root->kind == SG_Y_SEQ && !l->broken && !l->log.failed &&
                  l->n_built == root->n_items;
    int rc = -1;
    if (usable) {
        sg_arena_absorb(sg_context_arena(ctx), l->arena); /* the functions live there */
        l->arena = NULL;
        for (size_t i = 0; i < l->log.n; i++) {
            const nf_rec *r = &l->log.recs[i];
            if (r->fn)
                sg_model_append_function(ctx, r->fn);
            else
                sg_diag(ctx, SG_DIAG_ERROR, r->loc, "%s", r->msg);
        }
        sg_model *m = sg_context_model_mut(ctx);
        m->n_written = m->n_funcs;
        rc = l->errors ? -1 : 0;
    } else if (root) {
        rc = sg_model_add_native_functions(ctx, root);
    }
    sg_arena_free(l->arena);
    free(l->log.recs);
    free(l->queue);
    free(l);
    return rc;
}

/* ---- tags.yaml ----------------------------------------------------------------------------- */

int sg_model_add_tags(sg_context *ctx, const sg_ynode *root) {
    loader L = {ctx, sg_context_arena(ctx), 0, NULL, NULL};
    if (!root) return -1;
    sg_model *m = sg_context_model_mut(ctx);
    m->have_tags_file = true;
    if (root->kind != SG_Y_SEQ) {
        err(&L, root->loc, "expected a list of tags ('- tag: name'), found %s%s",
            root->kind == SG_Y_SCALAR && is_null(root) ? "an empty document" : kind_name(root), "");
        return -1;
    }
    sg_tag *t = sg_arena_alloc(L.arena, (m->n_tags + root->n_items + 1) * sizeof *t);
    if (!t) return -1;
    if (m->n_tags) memcpy(t, m->tags, m->n_tags * sizeof *t);
    size_t n = m->n_tags;
    for (uint32_t i = 0; i < root->n_items; i++) {
        const sg_ynode *e = root->items[i];
        if (e->kind != SG_Y_MAP) {
            err(&L, e->loc, "a tag entry must be a mapping with a 'tag:' key, not %s%s",
                kind_name(e), "");
            continue;
        }
        sg_tag tag = {NULL, NULL, e->loc};
        for (uint32_t j = 0; j + 1 < e->n_items; j += 2) {
            const sg_ynode *k = e->items[j], *v = e->items[j + 1];
            if (k->kind != SG_Y_SCALAR || dup_key(&L, e, j)) continue;
            if (strcmp(k->scalar, "tag") == 0) {
                tag.name = get_str(&L, "tag", v);
                tag.loc = v->loc;
            } else if (strcmp(k->scalar, "desc") == 0) {
                if (v->kind != SG_Y_SCALAR)
                    err(&L, v->loc, "'%s' must be a string, not %s", "desc", kind_name(v));
                else
                    tag.desc = v->scalar;
            }
        }
        if (!tag.name) {
            if (tag.loc.line == e->loc.line && tag.loc.col == e->loc.col)
                err(&L, e->loc, "this tag entry has no '%s:' name%s", "tag", "");
            continue;
        }
        bool dup = false;
        for (size_t q = 0; q < n && !dup; q++)
            if (strcmp(t[q].name, tag.name) == 0) {
                sg_diag(ctx, SG_DIAG_ERROR, tag.loc,
                        "tag '%s' is declared twice (first at %s:%u:%u)", tag.name, t[q].loc.file,
                        (unsigned)t[q].loc.line, (unsigned)t[q].loc.col);
                L.errors++;
                dup = true;
            }
        if (!dup) t[n++] = tag;
    }
    m->tags = t;
    m->n_tags = n;
    return L.errors ? -1 : 0;
}

/* ---- shim_ops.yaml ------------------------------------------------------------------------- */

static bool valid_op_key(const char *s) {
    /* <namespace>.<name>.<overload>: three non-empty parts without blanks */
    int dots = 0;
    size_t partlen = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '.') {
            if (!partlen) return false;
            dots++;
            partlen = 0;
        } else if (isspace((unsigned char)*p)) {
            return false;
        } else {
            partlen++;
        }
    }
    return dots == 2 && partlen > 0;
}

/* "MAJ.MIN" with small decimal numbers. */
static bool parse_since(const char *s, int *maj, int *min) {
    long v[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        if (!isdigit((unsigned char)*s)) return false;
        while (isdigit((unsigned char)*s)) {
            v[i] = v[i] * 10 + (*s++ - '0');
            if (v[i] > 9999) return false;
        }
        if (i == 0 && *s++ != '.') return false;
    }
    if (*s) return false;
    *maj = (int)v[0];
    *min = (int)v[1];
    return true;
}

static int cmp_version(const void *a, const void *b) {
    const sg_op_version *x = a, *y = b;
    return (x->number > y->number) - (x->number < y->number);
}

/* One version entry: `v2: [arg, ...]` or PyTorch's current `v2: {new_args: [...], since:
 * "2.12"}` (a version with its own release gate). Appends to vs[*n]. */
static void parse_version_entry(loader *L, const sg_ynode *k, const sg_ynode *a, sg_op_version *vs,
                                int *n) {
    const char *s = k->kind == SG_Y_SCALAR ? k->scalar : "";
    long num = 0;
    bool ok = s[0] == 'v' && s[1] && s[1] != '0';
    for (const char *p = s + 1; ok && *p; p++) {
        if (!isdigit((unsigned char)*p))
            ok = false;
        else if ((num = num * 10 + (*p - '0')) > 1000)
            ok = false;
    }
    if (!ok || num < 2) {
        err(L, k->loc, "bad version '%s' (expected v2, v3, ...)%s", s, "");
        return;
    }
    bool dup = false;
    for (int q = 0; q < *n; q++) dup |= vs[q].number == (int)num;
    if (dup) {
        err(L, k->loc, "version '%s' appears twice%s", s, "");
        return;
    }
    sg_op_version *ver = &vs[*n];
    memset(ver, 0, sizeof *ver);
    const sg_ynode *list = a;
    if (a->kind == SG_Y_MAP) {
        list = NULL;
        for (uint32_t q = 0; q + 1 < a->n_items; q += 2) {
            const sg_ynode *pk = a->items[q], *pv = a->items[q + 1];
            const char *pn = pk->kind == SG_Y_SCALAR ? pk->scalar : "";
            if (dup_key(L, a, q)) return;
            if (strcmp(pn, "new_args") == 0) {
                list = pv;
            } else if (strcmp(pn, "since") == 0) {
                const char *t = get_str(L, "since", pv);
                if (!t) return;
                if (!parse_since(t, &ver->since_major, &ver->since_minor)) {
                    err(L, pv->loc, "bad since '%s' (expected \"MAJOR.MINOR\", e.g. \"2.12\")%s", t,
                        "");
                    return;
                }
                ver->since = t;
            } else {
                err(L, pk->loc, "unknown key '%s' in version '%s' (expected 'new_args' or 'since')",
                    pn, s);
                return;
            }
        }
        if (!list) {
            err(L, a->loc, "version '%s' has no 'new_args' list%s", s, "");
            return;
        }
    }
    if (check_str_list(L, s, list) != 0) return;
    const char **args = sg_arena_alloc(L->arena, (list->n_items + 1) * sizeof *args);
    if (!args) return;
    for (uint32_t j = 0; j < list->n_items; j++) args[j] = list->items[j]->scalar;
    ver->number = (int)num;
    ver->args = args;
    ver->n_args = (int)list->n_items;
    ver->loc = k->loc;
    (*n)++;
}

static bool is_version_key(const sg_ynode *k) {
    return k->kind == SG_Y_SCALAR && k->scalar[0] == 'v' && isdigit((unsigned char)k->scalar[1]);
}

/* The versions of an op: `versions: {v2: ...}` and vN keys beside `since` (the shape of
 * PyTorch's fallback_ops.py). `ov` is the op's value mapping. */
static void parse_versions(loader *L, sg_shim_op *op, const sg_ynode *ov) {
    const sg_ynode *vmap = NULL;
    uint32_t cap = 1;
    for (uint32_t q = 0; q + 1 < ov->n_items; q += 2) {
        const sg_ynode *pk = ov->items[q];
        if (is_version_key(pk))
            cap++;
        else if (pk->kind == SG_Y_SCALAR && strcmp(pk->scalar, "versions") == 0) {
            vmap = ov->items[q + 1];
            if (vmap->kind != SG_Y_MAP) {
                err(L, vmap->loc, "'%s' must be a mapping like {v2: [arg, ...]}, not %s",
                    "versions", kind_name(vmap));
                return;
            }
            cap += vmap->n_items / 2;
        }
    }
    if (cap == 1) return;
    sg_op_version *vs = sg_arena_alloc(L->arena, cap * sizeof *vs);
    if (!vs) return;
    int before = L->errors;
    int n = 0;
    for (uint32_t i = 0; vmap && i + 1 < vmap->n_items; i += 2)
        parse_version_entry(L, vmap->items[i], vmap->items[i + 1], vs, &n);
    for (uint32_t q = 0; q + 1 < ov->n_items; q += 2)
        if (is_version_key(ov->items[q]))
            parse_version_entry(L, ov->items[q], ov->items[q + 1], vs, &n);
    qsort(vs, (size_t)n, sizeof *vs, cmp_version);
    for (int q = 0; q < n && L->errors == before; q++)
        if (vs[q].number != q + 2) {
            char miss[16];
            snprintf(miss, sizeof miss, "v%d", q + 2);
            err(L, (vmap ? vmap : ov)->loc,
                "versions must run v2, v3, ... without a gap: '%s' is missing%s", miss, "");
            break;
        }
    op->versions = vs;
    op->n_versions = n;
}

/* `backends: [cpu, cuda]`: the backends this directory has kernels for (the default of
 * --backends is the union over the loaded directories). */
static void parse_backends(loader *L, const sg_ynode *v) {
    if (v->kind != SG_Y_SEQ) {
        err(L, v->loc, "'%s' must be a list of backend names like [cpu, cuda], not %s", "backends",
            kind_name(v));
        return;
    }
    for (uint32_t i = 0; i < v->n_items; i++) {
        const sg_ynode *it = v->items[i];
        bool ok =
            it->kind == SG_Y_SCALAR && it->scalar[0] && it->scalar[sg_word_len(it->scalar)] == '\0';
        if (!ok) {
            err(L, it->loc, "bad backend name '%s' (expected letters, digits and '_')%s",
                it->kind == SG_Y_SCALAR ? it->scalar : kind_name(it), "");
            continue;
        }
        char *lower = sg_arena_strdup(L->arena, it->scalar);
        if (lower)
            for (char *p = lower; *p; p++) *p = (char)tolower((unsigned char)*p);
        if (!lower || sg_context_add_backend(L->ctx, lower) != 0) {
            err(L, it->loc, "out of memory%s%s", "", "");
            return;
        }
    }
}

int sg_model_add_shim_ops(sg_context *ctx, const sg_ynode *root) {
    loader L = {ctx, sg_context_arena(ctx), 0, NULL, NULL};
    if (!root) return -1;
    sg_model *m = sg_context_model_mut(ctx);
    if (root->kind != SG_Y_MAP) {
        err(&L, root->loc, "expected a mapping with 'fallback_ops' and 'aten_ops', found %s%s",
            root->kind == SG_Y_SCALAR && is_null(root) ? "an empty document" : kind_name(root), "");
        return -1;
    }
    size_t total = 0;
    for (uint32_t i = 1; i < root->n_items; i += 2)
        if (root->items[i]->kind == SG_Y_MAP) total += root->items[i]->n_items / 2;
    sg_shim_op *ops = sg_arena_alloc(L.arena, (m->n_shim_ops + total + 1) * sizeof *ops);
    if (!ops) return -1;
    if (m->n_shim_ops) memcpy(ops, m->shim_ops, m->n_shim_ops * sizeof *ops);
    size_t n = m->n_shim_ops;
    for (uint32_t i = 0; i + 1 < root->n_items; i += 2) {
        const sg_ynode *k = root->items[i], *sec = root->items[i + 1];
        const char *name = k->kind == SG_Y_SCALAR ? k->scalar : "";
        bool aten = strcmp(name, "aten_ops") == 0;
        if (dup_key(&L, root, i)) continue;
        if (strcmp(name, "backends") == 0) {
            parse_backends(&L, sec);
            continue;
        }
        if (!aten && strcmp(name, "fallback_ops") != 0) {
            err(&L, k->loc,
                "unknown section '%s' (expected 'fallback_ops', 'aten_ops' or 'backends')%s", name,
                "");
            continue;
        }
        if (is_null(sec)) continue; /* an empty section */
        if (sec->kind == SG_Y_SCALAR && strcmp(sec->scalar, "all") == 0) {
            /* every function written in this directory's native_functions.yaml (sg_finalize) */
            sg_shim_op *all = sg_arena_alloc(L.arena, (m->n_shim_all + 1) * sizeof *all);
            if (!all) return -1;
            if (m->n_shim_all) memcpy(all, m->shim_all, m->n_shim_all * sizeof *all);
            memset(&all[m->n_shim_all], 0, sizeof *all);
            all[m->n_shim_all].aten = aten;
            all[m->n_shim_all].loc = sec->loc;
            m->shim_all = all;
            m->n_shim_all++;
            continue;
        }
        if (sec->kind != SG_Y_MAP) {
            err(&L, sec->loc, "'%s' must be a mapping of op keys or 'all', not %s", name,
                kind_name(sec));
            continue;
        }
        size_t sec_start = n;
        for (uint32_t j = 0; j + 1 < sec->n_items; j += 2) {
            const sg_ynode *ok = sec->items[j], *ov = sec->items[j + 1];
            if (ok->kind != SG_Y_SCALAR || !valid_op_key(ok->scalar)) {
                err(&L, ok->loc, "bad op key '%s' (expected <namespace>.<name>.<overload>)%s",
                    ok->kind == SG_Y_SCALAR ? ok->scalar : "", "");
                continue;
            }
            bool dup = false;
            for (size_t q = sec_start; q < n && !dup; q++)
                if (strcmp(ops[q].key, ok->scalar) == 0) {
                    sg_diag(ctx, SG_DIAG_ERROR, ok->loc,
                            "op '%s' appears twice in '%s' (first at %s:%u:%u)", ok->scalar, name,
                            ops[q].loc.file, (unsigned)ops[q].loc.line, (unsigned)ops[q].loc.col);
                    L.errors++;
                    dup = true;
                }
            if (dup) continue;
            sg_shim_op op;
            memset(&op, 0, sizeof op);
            op.key = ok->scalar;
            op.aten = aten;
            op.loc = ok->loc;
            if (!is_null(ov) && ov->kind != SG_Y_MAP) {
                err(&L, ov->loc,
                    "the value of op '%s' must be a mapping ({} or since/versions), not %s",
                    ok->scalar, kind_name(ov));
                continue;
            }
            int before = L.errors;
            for (uint32_t q = 0; ov->kind == SG_Y_MAP && q + 1 < ov->n_items; q += 2) {
                const sg_ynode *pk = ov->items[q], *pv = ov->items[q + 1];
                const char *pn = pk->kind == SG_Y_SCALAR ? pk->scalar : "";
                if (dup_key(&L, ov, q)) continue;
                if (strcmp(pn, "since") == 0) {
                    const char *s = get_str(&L, "since", pv);
                    if (s && !parse_since(s, &op.since_major, &op.since_minor))
                        err(&L, pv->loc,
                            "bad since '%s' (expected \"MAJOR.MINOR\", e.g. \"2.12\")%s", s, "");
                    else
                        op.since = s;
                } else if (strcmp(pn, "backends") == 0) {
                    if (pv->kind != SG_Y_SEQ || !pv->n_items) {
                        err(&L, pv->loc, "'%s' of op '%s' must be a list like [cuda]", "backends",
                            ok->scalar);
                        continue;
                    }
                    op.backends = sg_arena_alloc(L.arena, sizeof *op.backends * pv->n_items);
                    if (!op.backends) return -1;
                    for (uint32_t b = 0; b < pv->n_items; b++) {
                        const sg_ynode *it = pv->items[b];
                        if (it->kind != SG_Y_SCALAR || !it->scalar[0] ||
                            it->scalar[sg_word_len(it->scalar)] != '\0') {
                            err(&L, it->loc, "bad backend name in '%s' of op '%s'", "backends",
                                ok->scalar);
                            continue;
                        }
                        op.backends[op.n_backends++] = it->scalar;
                    }
                }
                /* versions (below); other keys: ignored */
            }
            if (ov->kind == SG_Y_MAP) parse_versions(&L, &op, ov);
            if (L.errors != before) continue;
            ops[n++] = op;
        }
    }
    m->shim_ops = ops;
    m->n_shim_ops = n;
    return L.errors ? -1 : 0;
}

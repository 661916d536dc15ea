/* runtime/core/library.c: libraries (TorchLibraryHandle) and registration: defs from
 * schema strings, impls per dispatch key, deregistration when a library is deleted.
 * Every write holds shimrt_dispatch_lock; see dispatch_internal.h for what readers see. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch_internal.h"

shimrt_pool shimrt_library_pool = SHIMRT_POOL_INIT(struct TorchLibraryOpaque);

static const char *const kind_names[] = {"DEF", "IMPL", "FRAGMENT"};

/* Strict registration (shimrt_registration_set_strict); see "deferred registration
 * errors" below. */
static atomic_bool g_strict;
/* Strict for the calling thread while > 0 (shimrt_registration_strict_enter). */
static _Thread_local int tls_strict;

void shimrt_registration_strict_enter(void) { tls_strict++; }
void shimrt_registration_strict_leave(void) { tls_strict--; }

/* The live DEF library of each namespace (under the lock). */
static TorchLibraryHandle *g_def_libs;
static size_t g_n_def_libs, g_cap_def_libs;

static bool valid_ns(const char *ns) {
    if (!ns || !*ns) return false;
    for (const char *p = ns; *p; p++) {
        char c = *p;
        bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  (p != ns && c >= '0' && c <= '9');
        if (!ok) return false;
    }
    return true;
}

static AOTITorchError lib_new_(const char *func, int kind, const char *ns, const char *k,
                               const char *file, uint32_t line, TorchLibraryHandle *ret);
static void record_failure(TorchLibraryHandle lib, const char *what, bool print);

/* A failed init leaves *ret NULL (PyTorch's header ignores the result and goes on to def
 * and impl on the handle, which then fail, deferred) and records its message too. */
static AOTITorchError lib_new(const char *func, int kind, const char *ns, const char *k,
                              const char *file, uint32_t line, TorchLibraryHandle *ret) {
    if (ret) *ret = NULL;
    AOTITorchError rc = lib_new_(func, kind, ns, k, file, line, ret);
    if (rc != AOTI_TORCH_SUCCESS && !atomic_load(&g_strict) && !tls_strict) {
        char saved[1024];
        snprintf(saved, sizeof saved, "%s", torch_exception_get_what());
        record_failure(NULL, ns, false); /* the caller has the result */
        shimrt_set_error_text(saved);
    }
    return rc;
}

static AOTITorchError lib_new_(const char *func, int kind, const char *ns, const char *k,
                               const char *file, uint32_t line, TorchLibraryHandle *ret) {
    /* Built-in aten ops go first, so a library of the user's meets them as PyTorch's would. */
    if (shimrt_builtin_ops_ensure() != AOTI_TORCH_SUCCESS) return AOTI_TORCH_FAILURE;
    if (!ret) return shimrt_fail(func, "argument 'ret_new_torch_lib' is NULL");
    if (!ns) return shimrt_fail(func, "argument 'ns' is NULL");
    if (!valid_ns(ns)) {
        return shimrt_fail(func, "namespace '%s' is not an identifier", ns);
    }
    int key = SHIMRT_KEY_CIA;
    if (kind == SHIMRT_LIB_IMPL) {
        if (!k) return shimrt_fail(func, "argument 'k' (the dispatch key) is NULL");
        key = shimrt_key_parse(k);
        if (key < 0) {
            return shimrt_fail(func,
                               "unknown or unsupported dispatch key '%s' for library %s "
                               "(supported: CPU, CUDA, MPS, XPU, PrivateUse1, Meta, "
                               "CompositeExplicitAutogradNonFunctional, "
                               "CompositeExplicitAutograd, CompositeImplicitAutograd)",
                               k, ns);
        }
    }
    char *ns_copy = strdup(ns);
    char *file_copy = strdup(file ? file : "<unknown>");
    TorchLibraryHandle lib = ns_copy && file_copy ? shimrt_pool_alloc(&shimrt_library_pool) : NULL;
    if (!lib) {
        free(ns_copy);
        free(file_copy);
        return shimrt_fail(func, "out of memory");
    }
    lib->kind = kind;
    lib->key = key;
    lib->ns = ns_copy;
    lib->file = file_copy;
    lib->line = line;
    pthread_mutex_lock(&shimrt_dispatch_lock);
    if (kind == SHIMRT_LIB_DEF) {
        for (size_t i = 0; i < g_n_def_libs; i++) {
            if (strcmp(g_def_libs[i]->ns, ns) == 0) {
                TorchLibraryHandle other = g_def_libs[i];
                pthread_mutex_unlock(&shimrt_dispatch_lock);
                AOTITorchError e =
                    shimrt_fail(func,
                                "only one DEF library may register namespace '%s'; it was already "
                                "registered at %s:%u (use a FRAGMENT library to add ops)",
                                ns, other->file, (unsigned)other->line);
                free(ns_copy);
                free(file_copy);
                shimrt_pool_free(&shimrt_library_pool, lib);
                return e;
            }
        }
        if (g_n_def_libs == g_cap_def_libs) {
            size_t cap = g_cap_def_libs ? g_cap_def_libs * 2 : 8;
            TorchLibraryHandle *n = realloc(g_def_libs, cap * sizeof *n);
            if (!n) {
                pthread_mutex_unlock(&shimrt_dispatch_lock);
                free(ns_copy);
                free(file_copy);
                shimrt_pool_free(&shimrt_library_pool, lib);
                return shimrt_fail(func, "out of memory");
            }
            g_def_libs = n;
            g_cap_def_libs = cap;
        }
        g_def_libs[g_n_def_libs++] = lib;
    }
    lib->magic = SHIMRT_LIBRARY_MAGIC;
    pthread_mutex_unlock(&shimrt_dispatch_lock);
    *ret = lib;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError
aoti_torch_library_init_impl(const char *ns, const char *k, const char *file, uint32_t line,
                             TorchLibraryHandle *ret_new_torch_lib) {
    return lib_new(__func__, SHIMRT_LIB_IMPL, ns, k, file, line, ret_new_torch_lib);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_library_init_def(
    const char *ns, const char *file, uint32_t line, TorchLibraryHandle *ret_new_torch_lib) {
    return lib_new(__func__, SHIMRT_LIB_DEF, ns, NULL, file, line, ret_new_torch_lib);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_library_init_fragment(
    const char *ns, const char *file, uint32_t line, TorchLibraryHandle *ret_new_torch_lib) {
    return lib_new(__func__, SHIMRT_LIB_FRAGMENT, ns, NULL, file, line, ret_new_torch_lib);
}

/* Under the lock. */
static bool push_def(TorchLibraryHandle lib, shimrt_op *op) {
    if (lib->n_defs == lib->cap_defs) {
        size_t cap = lib->cap_defs ? lib->cap_defs * 2 : 8;
        shimrt_op **n = realloc(lib->defs, cap * sizeof *n);
        if (!n) return false;
        lib->defs = n;
        lib->cap_defs = cap;
    }
    lib->defs[lib->n_defs++] = op;
    return true;
}

static bool push_impl(TorchLibraryHandle lib, shimrt_op *op, int key) {
    if (lib->n_impls == lib->cap_impls) {
        size_t cap = lib->cap_impls ? lib->cap_impls * 2 : 8;
        shimrt_impl_reg *n = realloc(lib->impls, cap * sizeof *n);
        if (!n) return false;
        lib->impls = n;
        lib->cap_impls = cap;
    }
    lib->impls[lib->n_impls].op = op;
    lib->impls[lib->n_impls].key = key;
    lib->n_impls++;
    return true;
}

/* Checks a parsed schema's types; on failure names the argument. */
static AOTITorchError check_types(const char *func, const sg_schema *s, const char *text) {
    int n = s->n_args + s->n_rets;
    for (int i = 0; i < n; i++) {
        bool ret = i >= s->n_args;
        const sg_type *type = ret ? s->rets[i - s->n_args].type : s->args[i].type;
        const char *why = NULL;
        if (shimrt_type_encodable(type, &why)) continue;
        char what[160];
        if (ret)
            snprintf(what, sizeof what, "return %d", i - s->n_args);
        else
            snprintf(what, sizeof what, "argument '%s'", s->args[i].name);
        return shimrt_fail(func, "schema '%s': %s has type %s, which has no StableIValue encoding",
                           text, what, why);
    }
    return AOTI_TORCH_SUCCESS;
}

static int tensor_arg_kind(const sg_type *t) {
    if (t->kind == SG_TY_BASE) return t->base == SG_BT_TENSOR ? SHIMRT_TA_TENSOR : -1;
    if (t->kind == SG_TY_OPTIONAL) {
        return t->elem->kind == SG_TY_BASE && t->elem->base == SG_BT_TENSOR ? SHIMRT_TA_OPTIONAL
                                                                            : -1;
    }
    const sg_type *e = t->elem;
    if (e->kind == SG_TY_BASE && e->base == SG_BT_TENSOR) return SHIMRT_TA_LIST;
    if (e->kind == SG_TY_OPTIONAL && e->elem->kind == SG_TY_BASE && e->elem->base == SG_BT_TENSOR) {
        return SHIMRT_TA_OPTIONAL_LIST;
    }
    return -1;
}

static AOTITorchError lib_def(const char *func, TorchLibraryHandle self, const char *schema,
                              const int32_t *tags, int32_t num_tags) {
    SHIMRT_CHECK_HANDLE_IN(func, shimrt_library_pool, self, SHIMRT_LIBRARY_MAGIC, "library");
    if (!schema) return shimrt_fail(func, "argument 'schema' is NULL");
    if (self->kind == SHIMRT_LIB_IMPL) {
        return shimrt_fail(func,
                           "cannot define '%s' in an IMPL library (namespace %s, key %s, "
                           "%s:%u): use a DEF or FRAGMENT library",
                           schema, self->ns, shimrt_key_name(self->key), self->file,
                           (unsigned)self->line);
    }
    if (num_tags < 0 || (num_tags > 0 && !tags)) {
        return shimrt_fail(func, "bad tags: %d tags at %p", (int)num_tags, (const void *)tags);
    }
    uint32_t tagbits = 0;
    for (int32_t i = 0; i < num_tags; i++) {
        if (!shimrt_tag_name(tags[i])) {
            return shimrt_fail(func, "unknown tag code %d (tags[%d]) for '%s'", (int)tags[i],
                               (int)i, schema);
        }
        tagbits |= 1u << tags[i];
    }
    size_t len = strlen(schema);
    /* Validate in a scratch arena so a bad schema leaves nothing behind. */
    sg_arena *scratch = sg_arena_new();
    if (!scratch) return shimrt_fail(func, "out of memory");
    sg_schema_error err;
    memset(&err, 0, sizeof err);
    const sg_schema *s = sg_schema_parse_library(scratch, schema, len, &err);
    if (!s) {
        AOTITorchError e = shimrt_fail(func, "bad schema '%s': %s (at offset %u)", schema,
                                       err.message, (unsigned)err.offset);
        sg_arena_free(scratch);
        return e;
    }
    if (s->ns && strcmp(s->ns, self->ns) != 0) {
        AOTITorchError e = shimrt_fail(func,
                                       "schema '%s' names namespace '%s', but the library "
                                       "(%s:%u) is for namespace '%s'",
                                       schema, s->ns, self->file, (unsigned)self->line, self->ns);
        sg_arena_free(scratch);
        return e;
    }
    if (check_types(func, s, schema)) {
        sg_arena_free(scratch);
        return AOTI_TORCH_FAILURE;
    }
    sg_arena_free(scratch);

    pthread_mutex_lock(&shimrt_dispatch_lock);
    AOTITorchError rc = AOTI_TORCH_SUCCESS;
    sg_arena *arena = shimrt_dispatch_arena();
    const sg_schema *keep = arena ? sg_schema_parse_library(arena, schema, len, &err) : NULL;
    char *qual = keep ? sg_arena_printf(arena, "%s::%s", self->ns, keep->name) : NULL;
    shimrt_op *op = qual ? shimrt_op_get_or_create(qual, keep->overload) : NULL;
    shimrt_opdef *d = op ? sg_arena_alloc(arena, sizeof *d) : NULL;
    if (!d) {
        rc = shimrt_fail(func, "out of memory defining '%s'", schema);
        goto out;
    }
    const shimrt_opdef *old = atomic_load_explicit(&op->def, memory_order_acquire);
    if (old) {
        rc = shimrt_fail(func,
                         "op %s overload '%s' is already defined (by the %s library at "
                         "%s:%u as '%s'); redefinition of '%s' refused",
                         op->name, op->overload, kind_names[old->owner->kind], old->owner->file,
                         (unsigned)old->owner->line, old->schema_text, schema);
        goto out;
    }
    shimrt_tensor_arg *ta = sg_arena_alloc(arena, sizeof *ta * (size_t)(keep->n_args + 1));
    char *text = sg_arena_printf(arena, "%s::%s", self->ns, sg_schema_to_string(arena, keep));
    if (!ta || !text) {
        rc = shimrt_fail(func, "out of memory defining '%s'", schema);
        goto out;
    }
    if (keep->ns) text = sg_schema_to_string(arena, keep);
    uint32_t nt = 0;
    for (int i = 0; i < keep->n_args; i++) {
        int kind = tensor_arg_kind(keep->args[i].type);
        if (kind < 0) continue;
        ta[nt].index = (uint32_t)i;
        ta[nt].kind = (uint32_t)kind;
        nt++;
    }
    d->schema = keep;
    d->schema_text = text;
    d->n_args = (uint32_t)keep->n_args;
    d->n_rets = (uint32_t)keep->n_rets;
    d->n_tensor_args = nt;
    d->tensor_args = ta;
    d->tags = tagbits;
    d->owner = self;
    if (!push_def(self, op)) {
        rc = shimrt_fail(func, "out of memory defining '%s'", schema);
        goto out;
    }
    atomic_store_explicit(&op->def, d, memory_order_release);
out:
    pthread_mutex_unlock(&shimrt_dispatch_lock);
    return rc;
}

/* ---- deferred registration errors ----------------------------------------------------- *
 * PyTorch's stable headers register from static initializers and throw when a def or impl
 * fails (STABLE_TORCH_ERROR_CODE_CHECK); an exception out of a static initializer during
 * dlopen terminates the process. So by default a failed def or impl returns success: the
 * message is kept (shimrt_registration_error), printed on stderr, and a call of that op by
 * name fails with it. shimrt_registration_set_strict(true) makes them fail instead. */
typedef struct deferred {
    char *name; /* "ns::name" or "ns::name.overload" (as registered); "" when unknown */
    char *msg;
} deferred;
static deferred *g_deferred; /* under the lock; kept for the life of the process */
static size_t g_n_deferred, g_cap_deferred;

AOTI_TORCH_EXPORT void shimrt_registration_set_strict(bool strict) {
    atomic_store(&g_strict, strict);
}

/* What failed: "ns::" + the schema's text before '(' (or the impl's name). */
static char *deferred_name(TorchLibraryHandle lib, const char *what) {
    if (!what) return strdup("");
    size_t n = strcspn(what, "( \t\n");
    const char *ns = NULL;
    if (!shimrt_handle_problem(&shimrt_library_pool, lib, SHIMRT_LIBRARY_MAGIC)) ns = lib->ns;
    bool qualified = memchr(what, ':', n) != NULL;
    size_t cap = n + (ns && !qualified ? strlen(ns) + 3 : 1);
    char *out = malloc(cap);
    if (!out) return NULL;
    if (ns && !qualified)
        snprintf(out, cap, "%s::%.*s", ns, (int)n, what);
    else
        snprintf(out, cap, "%.*s", (int)n, what);
    return out;
}

/* Records the thread's message as a registration failure of `what` (never fails). */
static void record_failure(TorchLibraryHandle lib, const char *what, bool print) {
    char *name = deferred_name(lib, what);
    char *msg = strdup(torch_exception_get_what());
    pthread_mutex_lock(&shimrt_dispatch_lock);
    if (name && msg && g_n_deferred == g_cap_deferred) {
        size_t cap = g_cap_deferred ? g_cap_deferred * 2 : 8;
        deferred *v = realloc(g_deferred, cap * sizeof *v);
        if (v) {
            g_deferred = v;
            g_cap_deferred = cap;
        }
    }
    if (name && msg && g_n_deferred < g_cap_deferred) {
        g_deferred[g_n_deferred++] = (deferred){name, msg};
        name = msg = NULL;
    }
    pthread_mutex_unlock(&shimrt_dispatch_lock);
    if (print)
        fprintf(stderr, "shimrt: registration failed (deferred: a call of the op reports it): %s\n",
                torch_exception_get_what());
    free(name);
    free(msg);
}

/* The result of a def or impl: success after recording a failure, unless strict. */
static AOTITorchError defer(AOTITorchError rc, TorchLibraryHandle lib, const char *what) {
    if (rc == AOTI_TORCH_SUCCESS || atomic_load(&g_strict) || tls_strict) return rc;
    record_failure(lib, what, true);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_registration_error(const char *name, size_t index,
                                                           const char **ret_message) {
    SHIMRT_CHECK_ARG(ret_message);
    *ret_message = NULL;
    pthread_mutex_lock(&shimrt_dispatch_lock);
    size_t seen = 0;
    for (size_t i = 0; i < g_n_deferred; i++) {
        if (name && strcmp(g_deferred[i].name, name) != 0) continue;
        if (seen++ == index) {
            *ret_message = g_deferred[i].msg;
            break;
        }
    }
    pthread_mutex_unlock(&shimrt_dispatch_lock);
    return AOTI_TORCH_SUCCESS;
}

const char *shimrt_deferred_error_for(const char *op_name, const char *overload) {
    const char *found = NULL;
    /* A def on a bad library handle (a failed init) has no namespace: matched by name. */
    const char *sep = strstr(op_name, "::");
    const char *bare = sep ? sep + 2 : op_name;
    pthread_mutex_lock(&shimrt_dispatch_lock);
    for (size_t i = g_n_deferred; i-- > 0 && !found;) {
        const char *d = g_deferred[i].name;
        const char *want = strstr(d, "::") ? op_name : bare;
        size_t n = strlen(want);
        if (strncmp(d, want, n) != 0) continue;
        if (d[n] == '\0' ? !overload[0] : (d[n] == '.' && strcmp(d + n + 1, overload) == 0))
            found = g_deferred[i].msg;
    }
    pthread_mutex_unlock(&shimrt_dispatch_lock);
    return found;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_library_def(TorchLibraryHandle self,
                                                        const char *schema) {
    return defer(lib_def(__func__, self, schema, NULL, 0), self, schema);
}

AOTI_TORCH_EXPORT AOTITorchError torch_library_def_with_tags(TorchLibraryHandle self,
                                                             const char *schema,
                                                             const int32_t *tags,
                                                             int32_t num_tags) {
    return defer(lib_def(__func__, self, schema, tags, num_tags), self, schema);
}

/* Splits "[ns::]name[.overload]" into the qualified name and the overload. */
static AOTITorchError split_name(const char *func, TorchLibraryHandle lib, const char *name,
                                 char *qual, size_t qcap, char *ovl, size_t ocap) {
    const char *base = name;
    const char *sep = strstr(name, "::");
    if (sep) {
        size_t nslen = (size_t)(sep - name);
        if (nslen != strlen(lib->ns) || strncmp(name, lib->ns, nslen) != 0) {
            return shimrt_fail(func,
                               "op name '%s' names another namespace than the library's "
                               "'%s' (%s:%u)",
                               name, lib->ns, lib->file, (unsigned)lib->line);
        }
        base = sep + 2;
    }
    const char *dot = strchr(base, '.');
    size_t blen = dot ? (size_t)(dot - base) : strlen(base);
    const char *o = dot ? dot + 1 : "";
    bool ok = blen > 0 && !(dot && !*o);
    for (size_t i = 0; ok && i < blen; i++) {
        char c = base[i];
        ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }
    for (const char *p = o; ok && *p; p++) {
        char c = *p;
        ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }
    if (!ok) {
        return shimrt_fail(func, "op name '%s' is not of the form name or name.overload", name);
    }
    int n = snprintf(qual, qcap, "%s::%.*s", lib->ns, (int)blen, base);
    int m = snprintf(ovl, ocap, "%s", o);
    if (n < 0 || (size_t)n >= qcap || m < 0 || (size_t)m >= ocap) {
        return shimrt_fail(func, "op name '%s' is too long", name);
    }
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError lib_impl(const char *func, TorchLibraryHandle self, const char *name,
                               ShimrtBoxedKernel fn) {
    SHIMRT_CHECK_HANDLE_IN(func, shimrt_library_pool, self, SHIMRT_LIBRARY_MAGIC, "library");
    if (!name) return shimrt_fail(func, "argument 'name' is NULL");
    if (!fn) return shimrt_fail(func, "argument 'fn' (the kernel for '%s') is NULL", name);
    char qual[512], ovl[256];
    if (split_name(func, self, name, qual, sizeof qual, ovl, sizeof ovl)) {
        return AOTI_TORCH_FAILURE;
    }
    pthread_mutex_lock(&shimrt_dispatch_lock);
    AOTITorchError rc = AOTI_TORCH_SUCCESS;
    shimrt_op *op = shimrt_op_get_or_create(qual, ovl);
    if (!op) {
        rc = shimrt_fail(func, "out of memory registering '%s'", name);
        goto out;
    }
    int key = self->key;
    if (atomic_load_explicit(&op->kernels[key], memory_order_relaxed)) {
        TorchLibraryHandle o = op->kernel_owner[key];
        rc = shimrt_fail(func,
                         "op %s overload '%s' already has a kernel for dispatch key %s "
                         "(registered at %s:%u); a second one is refused",
                         qual, ovl, shimrt_key_name(key), o ? o->file : "?",
                         o ? (unsigned)o->line : 0u);
        goto out;
    }
    if (!push_impl(self, op, key)) {
        rc = shimrt_fail(func, "out of memory registering '%s'", name);
        goto out;
    }
    op->kernel_owner[key] = self;
    atomic_store_explicit(&op->kernels[key], fn, memory_order_release);
out:
    pthread_mutex_unlock(&shimrt_dispatch_lock);
    return rc;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_library_impl(TorchLibraryHandle self, const char *name,
                                                         void (*fn)(StableIValue *, uint64_t,
                                                                    uint64_t)) {
    return defer(lib_impl(__func__, self, name, fn), self, name);
}

AOTI_TORCH_EXPORT AOTITorchError torch_library_impl(TorchLibraryHandle self, const char *name,
                                                    void (*fn)(StableIValue *, uint64_t, uint64_t),
                                                    uint64_t extension_build_version) {
    (void)extension_build_version;
    return defer(lib_impl(__func__, self, name, fn), self, name);
}

AOTI_TORCH_EXPORT AOTITorchError torch_library_set_python_module(TorchLibraryHandle self,
                                                                 const char *pymodule,
                                                                 const char *context) {
    SHIMRT_CHECK_HANDLE(shimrt_library_pool, self, SHIMRT_LIBRARY_MAGIC, "library");
    SHIMRT_CHECK_ARG(pymodule);
    char *m = strdup(pymodule);
    char *c = context ? strdup(context) : NULL;
    if (!m || (context && !c)) {
        free(m);
        free(c);
        return shimrt_fail(__func__, "out of memory");
    }
    pthread_mutex_lock(&shimrt_dispatch_lock);
    free(self->pymodule);
    free(self->pycontext);
    self->pymodule = m;
    self->pycontext = c;
    pthread_mutex_unlock(&shimrt_dispatch_lock);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_delete_library_object(TorchLibraryHandle tlh) {
    if (tlh == NULL) return AOTI_TORCH_SUCCESS;
    pthread_mutex_lock(&shimrt_dispatch_lock);
    const char *why = shimrt_handle_problem(&shimrt_library_pool, tlh, SHIMRT_LIBRARY_MAGIC);
    if (why) {
        pthread_mutex_unlock(&shimrt_dispatch_lock);
        return shimrt_fail(__func__, "library handle 'tlh' %s", why);
    }
    for (size_t i = 0; i < tlh->n_defs; i++) {
        shimrt_op *op = tlh->defs[i];
        const shimrt_opdef *d = atomic_load_explicit(&op->def, memory_order_relaxed);
        /* The def stays in the arena: a concurrent call may still read it. */
        if (d && d->owner == tlh) atomic_store_explicit(&op->def, NULL, memory_order_release);
    }
    for (size_t i = 0; i < tlh->n_impls; i++) {
        shimrt_op *op = tlh->impls[i].op;
        int key = tlh->impls[i].key;
        if (op->kernel_owner[key] == tlh) {
            op->kernel_owner[key] = NULL;
            atomic_store_explicit(&op->kernels[key], NULL, memory_order_release);
        }
    }
    for (size_t i = 0; i < g_n_def_libs; i++) {
        if (g_def_libs[i] == tlh) {
            g_def_libs[i] = g_def_libs[--g_n_def_libs];
            break;
        }
    }
    if (g_n_def_libs == 0) {
        free(g_def_libs);
        g_def_libs = NULL;
        g_cap_def_libs = 0;
    }
    free(tlh->defs);
    free(tlh->impls);
    free(tlh->ns);
    free(tlh->file);
    free(tlh->pymodule);
    free(tlh->pycontext);
    shimrt_pool_free(&shimrt_library_pool, tlh);
    pthread_mutex_unlock(&shimrt_dispatch_lock);
    return AOTI_TORCH_SUCCESS;
}

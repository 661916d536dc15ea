/* gen/emit_plan.c: the plan shared by every emitter (docs/shim-rules.md, "Which ops, in
 * which order"): for each header the listed ops in op-key order, each with its kernel and
 * its declarations, highest version first; an op that cannot get a shim is an error in the
 * default mode and a warning and a drop in compat mode. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_gen.h"

static const char *kCKeywords[] = {
    "_Bool",        "_Complex",      "_Imaginary",  "alignas",   "alignof",   "and",
    "and_eq",       "asm",           "auto",        "bitand",    "bitor",     "bool",
    "break",        "case",          "catch",       "char",      "char16_t",  "char32_t",
    "char8_t",      "class",         "co_await",    "co_return", "co_yield",  "compl",
    "concept",      "const",         "const_cast",  "consteval", "constexpr", "constinit",
    "continue",     "decltype",      "default",     "delete",    "do",        "double",
    "dynamic_cast", "else",          "enum",        "explicit",  "export",    "extern",
    "false",        "float",         "for",         "friend",    "goto",      "if",
    "inline",       "int",           "long",        "mutable",   "namespace", "new",
    "noexcept",     "not",           "not_eq",      "nullptr",   "operator",  "or",
    "or_eq",        "private",       "protected",   "public",    "register",  "reinterpret_cast",
    "requires",     "restrict",      "return",      "short",     "signed",    "sizeof",
    "static",       "static_assert", "static_cast", "struct",    "switch",    "template",
    "this",         "thread_local",  "throw",       "true",      "try",       "typedef",
    "typeid",       "typename",      "union",       "unsigned",  "using",     "virtual",
    "void",         "volatile",      "wchar_t",     "while",     "xor",       "xor_eq",
};

/* Names the generated C code declares or uses beside the arguments (the templates: the
 * locals of the bodies, the runtime's types and macros, the suffixes of the parameters
 * that go with an argument); an argument of such a name would not compile. The prefixes
 * are the runtime's and PyTorch's C namespaces. tests/pipeline/compile_edge.sh checks that
 * every name of the templates that ends in '_' is here. */
static bool is_generated_name(const char *s) {
    static const char *const exact[] = {
        "AOTITorchError",
        "AtenGeneratorHandle",
        "AtenTensorHandle",
        "INT64_C",
        "NULL",
        "StableIValue",
        "StableListHandle",
        "TorchLibraryHandle",
        "arg_kinds_",
        "array_",
        "box_",
        "c_shim_", /* (a header name's stem in the templates) */
        "check_",
        "err_",
        "false",
        "int16_t",
        "int32_t",
        "int64_t",
        "int8_t",
        "num_args_",
        "num_outputs_",
        "op_",
        "outs_",
        "pack_",
        "pop_",
        "push_",
        "ret_",
        "siv_to_code_",
        "size_t",
        "stack_",
        "true",
        "uint16_t",
        "uint32_t",
        "uint64_t",
        "uint8_t",
    };
    static const char *const prefix[] = {"aoti_torch_", "shimrt_", "siv_",   "shimgen_", "torch_",
                                         "AOTI_",       "SHIMRT_", "TORCH_", "__"};
    static const char *const suffix[] = {"_len_", "_index_", "_arr_", "_v_"};
    size_t n = strlen(s);
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        if (strcmp(exact[i], s) == 0) return true;
    for (size_t i = 0; i < sizeof prefix / sizeof *prefix; i++)
        if (strncmp(prefix[i], s, strlen(prefix[i])) == 0) return true;
    for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
        size_t k = strlen(suffix[i]);
        if (n > k && strcmp(s + n - k, suffix[i]) == 0) return true;
    }
    return false;
}

static bool is_keyword(const char *s) {
    for (size_t i = 0; i < sizeof kCKeywords / sizeof *kCKeywords; i++)
        if (strcmp(kCKeywords[i], s) == 0) return true;
    return false;
}

int em_cmp_op_key(const void *x, const void *y) {
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
    size_t n = sg_ident_len(s);
    return n > 0 && s[n] == '\0';
}

/* Where `kernel` for `key` is written: the dispatch row of fn or of its delegate. */
static sg_loc kernel_loc(const sg_native_function *fn, const char *key, const char *kernel,
                         sg_loc fallback) {
    for (int pass = 0; pass < 2 && fn; pass++, fn = fn->delegate)
        for (int k = 0; k < fn->n_dispatch; k++)
            if (strcmp(fn->dispatch[k].key, key) == 0 &&
                strcmp(fn->dispatch[k].kernel, kernel) == 0)
                return fn->dispatch[k].loc;
    return fallback;
}

/* An op that gets no shim: an error in our mode, a warning and a drop in compat mode. */
static void no_shim(emitter *e, const sg_emit_shim *s, const sg_emit_header *h, int arg,
                    const char *why) {
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

const sg_emit_shim **em_header_shims(emitter *e, const sg_emit_header *h, int *n_out) {
    int n = h->n_shims + h->n_routed, i = 0, j = 0, k = 0;
    const sg_emit_shim **v = sg_arena_alloc(e->a, sizeof *v * (size_t)(n ? n : 1));
    *n_out = 0;
    if (!v) return NULL;
    while (i < h->n_shims || j < h->n_routed) {
        if (j >= h->n_routed ||
            (i < h->n_shims && strcmp(h->shims[i].op->key, h->routed[j].op->key) <= 0))
            v[k++] = &h->shims[i++];
        else
            v[k++] = &h->routed[j++];
    }
    *n_out = k;
    return v;
}

bool em_op_on_backend(const sg_shim_op *op, const char *backend) {
    for (int i = 0; i < op->n_backends; i++)
        if (strcmp(op->backends[i], backend) == 0) return true;
    return op->n_backends == 0;
}

/* An op whose schema says `dispatch: {}`: no kernel in libshimrt for any backend (the
 * CUDA-only ops of PyTorch's c_shim_cuda.h, docs/cuda.md). */
static bool no_kernel_at_all(const sg_native_function *fn) {
    return fn->has_dispatch && fn->n_dispatch == 0 && !fn->structured_delegate &&
           !fn->has_ufunc_inner_loop && !fn->derived;
}

/* Plans one op of one header; returns false when it gets no shim. */
static bool plan_shim(emitter *e, sg_emit_header *h, sg_emit_shim *s) {
    const sg_shim_op *op = s->op;
    const sg_native_function *fn = op->fn ? op->fn : sg_model_find(e->ctx, op->key);
    s->fn = fn;
    if (!fn || !fn->func) {
        sg_diag(e->ctx, SG_DIAG_ERROR, op->loc, "%s: no such op in the inputs", op->key);
        e->errors++;
        return false;
    }
    if (h->dispatch_key && !sg_pick_kernel(e->a, fn, h->dispatch_key, &s->kernel_key, &s->kernel)) {
        /* As torchgen: a backend without a kernel for the op gets no shim for it. In our
         * mode that is an error unless the op has a CPU kernel and cpu is a listed backend:
         * then the op runs on this backend through the dispatcher's CPU fallback (the
         * manifest's "backend_fallback"; docs/cuda.md). */
        for (int i = 0; !e->o->compat_torchgen && i < e->n_headers; i++) {
            const char *k, *kn;
            const sg_emit_header *o = &e->headers[i];
            if (o == h || !o->dispatch_key || strcmp(o->dispatch_key, "CPU") != 0 ||
                !sg_pick_kernel(e->a, fn, o->dispatch_key, &k, &kn))
                continue;
            if (!h->fallback_ops) {
                h->fallback_ops = sg_arena_alloc(e->a, sizeof *h->fallback_ops * 4096);
                if (!h->fallback_ops) return false;
            }
            if (h->n_fallback_ops < 4096) h->fallback_ops[h->n_fallback_ops++] = op->key;
            /* --target=torch: PyTorch's dispatcher has no CPU fallback for a device key */
            if (e->o->target_torch) return false;
            s->route = 1;
            break;
        }
        /* An op without any kernel (`dispatch: {}`; CUDA-only ops of PyTorch's
         * c_shim_cuda.h: flash attention, cuDNN): the shim exists and fails. */
        if (!s->route && !e->o->compat_torchgen && no_kernel_at_all(fn)) {
            if (e->o->target_torch) return false; /* libtorch's own shim serves it */
            s->route = 2;
        }
        if (!s->route) {
            no_shim(e, s, h, -1, sg_arena_printf(e->a, "no kernel for backend %s", h->backend));
            return false;
        }
        s->kernel_key = s->kernel = NULL;
    }
    if (h->dispatch_key && !e->o->compat_torchgen && !s->route && !is_c_identifier(s->kernel)) {
        /* The loader takes torchgen's '::'-qualified names; C code calls the kernel by name. */
        sg_diag(e->ctx, SG_DIAG_ERROR, kernel_loc(fn, s->kernel_key, s->kernel, op->loc),
                "%s: kernel '%s' for dispatch key %s is not a C identifier", op->key, s->kernel,
                s->kernel_key);
        e->errors++;
        return false;
    }
    if (h->dispatch_key && !e->o->compat_torchgen && !s->route &&
        (is_keyword(s->kernel) || sg_is_c_library_name(s->kernel))) {
        /* Declared in <key>_kernels.h, such a name does not compile (a keyword) or clashes
         * with the C library's own (`exp`, `abs`, `free`: reserved, and compiler built-ins). */
        sg_diag(e->ctx, SG_DIAG_ERROR, kernel_loc(fn, s->kernel_key, s->kernel, op->loc),
                "%s: kernel '%s' for dispatch key %s is %s; name the kernel function otherwise "
                "(e.g. %s_kernel)",
                op->key, s->kernel, s->kernel_key,
                is_keyword(s->kernel) ? "a C or C++ keyword"
                                      : "the name of a C standard library function",
                s->kernel);
        e->errors++;
        return false;
    }
    if (!check_versions(e, op, fn->func)) return false;
    /* torchgen gives a list return (Tensor[]: _foreach_*, _amp_foreach_*) no C form and drops
     * the op; the array out-pointer is our extension, so compat mode drops it as well. */
    for (int i = 0; e->o->compat_torchgen && i < fn->func->n_rets; i++)
        if (fn->func->rets[i].type && fn->func->rets[i].type->kind != SG_TY_BASE &&
            fn->func->out_start >= fn->func->n_args && !fn->func->inplace) {
            no_shim(e, s, h, -1,
                    sg_arena_printf(e->a, "return %d has type '%s', which torchgen gives no C form",
                                    i, sg_text_type(e->a, fn->func->rets[i].type)));
            return false;
        }
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
        sg_emit_decl *dc = &s->decls[d];
        dc->version = version;
        const sg_op_version *ov = vi >= 0 ? &op->versions[vi] : NULL;
        bool own = ov && ov->since;
        dc->since = own ? ov->since : op->since;
        dc->since_major = own ? ov->since_major : op->since_major;
        dc->since_minor = own ? ov->since_minor : op->since_minor;
        dc->c_name = sg_shim_c_name(e->a, h->backend, fn->func, version);
        const char *why = NULL;
        int bad = -1;
        if (sg_shim_params(e->a, fn->func, omit, n_omit, &dc->params, &dc->n_params, &why, &bad) !=
            0) {
            no_shim(e, s, h, bad, why);
            return false;
        }
        if (!e->o->compat_torchgen)
            for (int i = 0; i < dc->n_params; i++) {
                const sg_cparam *p = &dc->params[i];
                const char *bad_name = NULL;
                if (p->role == SG_CP_ARG && is_keyword(p->name))
                    bad_name = "is a C or C++ keyword";
                else if (p->role == SG_CP_ARG && is_generated_name(p->name))
                    bad_name = "is a name the generated C code uses itself";
                for (int j = 0; j < dc->n_params && !bad_name; j++)
                    if (j != i && strcmp(dc->params[j].name, p->name) == 0 &&
                        (p->role == SG_CP_ARG && dc->params[j].role != SG_CP_ARG))
                        bad_name = sg_arena_printf(
                            e->a, "is also the name of the C parameter %s",
                            dc->params[j].role == SG_CP_RET
                                ? sg_arena_printf(e->a, "of return %d", dc->params[j].index)
                                : sg_arena_printf(e->a, "that goes with argument '%s'",
                                                  fn->func->args[dc->params[j].index].name));
                if (bad_name) {
                    no_shim(e, s, h, p->index,
                            sg_arena_printf(e->a, "argument '%s' %s", p->name, bad_name));
                    return false;
                }
            }
    }
    return true;
}

void em_plan_header(emitter *e, sg_emit_header *h, const sg_shim_op **ops, int n_ops) {
    h->shims = sg_arena_alloc(e->a, sizeof *h->shims * (size_t)(n_ops ? n_ops : 1));
    h->routed = sg_arena_alloc(e->a, sizeof *h->routed * (size_t)(n_ops ? n_ops : 1));
    if (!h->shims || !h->routed) return;
    for (int i = 0; i < n_ops; i++) {
        sg_emit_shim *s = &h->shims[h->n_shims];
        memset(s, 0, sizeof *s);
        s->op = ops[i];
        if (!em_op_on_backend(ops[i], h->backend) || !plan_shim(e, h, s)) continue;
        if (s->route)
            h->routed[h->n_routed++] = *s;
        else
            h->n_shims++;
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

/* ---- The kernels of the device headers, every op once ---------------------------------- */
const char *em_kernel_file(emitter *e, const char *key) {
    char *f = sg_arena_printf(e->a, "%s_kernels.h", key);
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
 * and which cannot call it. */
int em_plan_kernels(emitter *e) {
    int n = 0;
    for (int h = 0; h < e->n_headers; h++)
        if (e->headers[h].dispatch_key) n += e->headers[h].n_shims;
    kernel_use *u = sg_arena_alloc(e->a, sizeof *u * (size_t)(n ? n : 1));
    if (!u) return -1;
    n = 0;
    for (int h = 0; h < e->n_headers; h++) {
        const sg_emit_header *hd = &e->headers[h];
        if (!hd->dispatch_key) continue;
        for (int i = 0; i < hd->n_shims; i++) {
            const sg_emit_shim *s = &hd->shims[i];
            kernel_use *k = &u[n++];
            memset(k, 0, sizeof *k);
            k->shim = s;
            k->key = s->kernel_key;
            k->file = em_kernel_file(e, s->kernel_key);
            k->params = em_params(e, &s->decls[0], s->fn->func);
            k->delegated = s->fn->delegate && !names_kernel(s->fn, s->kernel);
        }
    }
    qsort(u, (size_t)n, sizeof *u, cmp_use);
    /* The prototype of a kernel comes from the first op (in key order) whose own dispatch
     * names it; an op calling it with another prototype cannot have a body. Each header
     * declares each of its kernels once (a kernel of several keys is in each header). */
    bool *ok = sg_arena_alloc(e->a, sizeof *ok * (size_t)(n ? n : 1));
    if (!ok) return -1;
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
                k->conflict =
                    sg_arena_printf(e->a, "its %s kernel %s is declared with the prototype of %s%s",
                                    k->key, k->shim->kernel, first->shim->op->key,
                                    k->delegated ? " (it comes from the structured_delegate)" : "");
            } else if (!first && k->delegated) {
                k->conflict = sg_arena_printf(
                    e->a,
                    "its %s kernel %s comes from structured_delegate %s, whose C form differs "
                    "(name a kernel of its own in dispatch)",
                    k->key, k->shim->kernel, k->shim->fn->structured_delegate);
            } else {
                ok[i] = true;
                k->declared = !in_file;
            }
        }
    e->uses = u;
    e->n_uses = n;
    return 0;
}

void em_sort_names(const char **v, int n) {
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (strcmp(v[b], v[a]) < 0) {
                const char *t = v[a];
                v[a] = v[b];
                v[b] = t;
            }
}

bool em_in_list(const char *const *v, int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0) return true;
    return false;
}

const kernel_use *em_find_use(const emitter *e, const sg_emit_shim *s) {
    for (int i = 0; i < e->n_uses; i++)
        if (e->uses[i].shim == s) return &e->uses[i];
    return NULL;
}

/* The kernel headers a device header's shims need, in name order (arena array). */
const char **em_used_files(emitter *e, const sg_emit_header *h, int *n_out) {
    const char **v = sg_arena_alloc(e->a, sizeof *v * (size_t)(h->n_shims + 1));
    int n = 0;
    if (!v) return NULL;
    for (int i = 0; i < h->n_shims; i++) {
        const kernel_use *k = em_find_use(e, &h->shims[i]);
        if (k && !k->conflict && !em_in_list(v, n, k->file)) v[n++] = k->file;
    }
    em_sort_names(v, n);
    *n_out = n;
    return v;
}

static int cmp_def(const void *x, const void *y) {
    return strcmp(((const def_op *)x)->key, ((const def_op *)y)->key);
}

int em_plan_defs(emitter *e) {
    int n = 0;
    for (int h = 0; h < e->n_headers; h++) n += e->headers[h].n_shims;
    def_op *v = sg_arena_alloc(e->a, sizeof *v * (size_t)(n ? n : 1));
    if (!v) return -1;
    n = 0;
    for (int h = 0; h < e->n_headers; h++)
        for (int i = 0; i < e->headers[h].n_shims; i++) {
            const sg_emit_shim *s = &e->headers[h].shims[i];
            bool dup = false;
            for (int k = 0; k < n && !dup; k++) dup = strcmp(v[k].key, s->op->key) == 0;
            if (!dup) v[n++] = (def_op){s->op->key, em_op_ns(e, s), s};
        }
    qsort(v, (size_t)n, sizeof *v, cmp_def);
    e->defs = v;
    e->n_defs = n;
    return 0;
}

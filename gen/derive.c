/* gen/derive.c: the derived (`autogen`) functions of docs/shim-rules.md, "Derived functions".
 *
 * The rules are torchgen's (torchgen/native_function_generation.py and
 * FunctionSchema.signature() in torchgen/model.py), re-stated here in C:
 *
 *  1. Every written function is put in a family by its signature: base name (trailing `_`
 *     and `_functional` dropped, dunder kept), overload ignored, argument annotations
 *     dropped (defaults kept), TensorOptions (dtype, layout, device, pin_memory) dropped,
 *     out arguments dropped, return names and annotations dropped, and every mutated
 *     argument (self, then out arguments, then the positional ones after self) that is not
 *     already returned appended as an extra return. `bernoulli.p` gets `p=0.5` first.
 *     Inside a family each kind (functional, inplace, out, mutable, scratch) is unique.
 *  2. Families are visited in the order of their first member. A family is skipped when all
 *     its members are manual_cpp_binding, any member is a view op (other than `set_`), all
 *     members are CompositeImplicitAutograd and none has the `core` tag, it is a lone out
 *     function, or its in-place member is `polygamma_`.
 *  3. The base function is the mutable one, else the in-place, else the out, else the
 *     functional one. Without an out variant, it gets one when its `autogen` names something
 *     containing "out" and it is in-place or has a tensor-like return. With an out variant
 *     (written or just made) and no functional one, the family gets a functional one.
 *     The out variant comes first, then the functional one; both are appended after the
 *     written functions.
 *
 * A derived function has a single dispatch row `CompositeExplicitAutograd` whose kernel is
 * named as torchgen names it: `<name>_<overload>` (or `<name>`) for an out variant, the
 * function name for a functional one (`_foo_functional`), plus `_symint` when the source has
 * a SymInt argument. Its tags: `generated`, then whichever of `nondeterministic_seeded`,
 * `view_copy`, `pt2_compliant_tag` the source lists, in the source's order. It has
 * variants "function", device_guard false, device_check "NoCheck", is_abstract copied from
 * the source, node NULL. loc and func_loc are the location of the `autogen` item naming it
 * (the source entry's location when no item names it).
 *
 * Checks, as torchgen makes them (NativeFunctionsGroup): in a family that ends up with both a
 * functional and an out function, every `autogen` item of its members must name a function
 * derived for that family (error at the item), and every function derived for it must be
 * named by one (error at the source entry). Families without such a pair are not checked,
 * as in torchgen (PyTorch's own file has `autogen: prelu.out` on a CompositeImplicitAutograd
 * function, which derives nothing). Two written functions of one family and kind are an
 * error at the second one's `func:` (torchgen asserts the same in pre_group_native_functions).
 *
 * sg_derive_functions(ctx): borrows ctx; appends through sg_model_append_function, so
 * model->funcs[n_written ..) are the derived functions (arena memory, owned by the context).
 * Calling it again first drops the functions derived before. Returns 0, or -1 after
 * reporting at least one error through sg_diag.
 */
#include "buf.h"
#include "kinds.h"
#include "model.h"

#include <shimrt/codes.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- torchgen's view of a schema -------------------------------------------------------- */

typedef struct fn_info {
    int self_ix;   /* positional `self`, or -1 */
    int out_start; /* first out argument (kwarg-only, from the first mutable one on) */
    int to_start;  /* first of the four TensorOptions kwarg-only arguments, or -1 */
    sg_schema_kind kind;
    int family; /* index into the family table */
} fn_info;

static bool ann_writes(const sg_annotation *a) { return a && a->is_write; }

static bool type_is_base(const sg_type *t, sg_base_type b) {
    return t && t->kind == SG_TY_BASE && t->base == b;
}

/* Tensor, Tensor?, Tensor[], Tensor?[] and deeper (torchgen's Type.is_tensor_like). */
static bool type_tensor_like(const sg_type *t) {
    while (t && t->kind != SG_TY_BASE) t = t->elem;
    return t && t->base == SG_BT_TENSOR;
}

static bool type_symint_like(const sg_type *t) {
    while (t && t->kind != SG_TY_BASE) t = t->elem;
    return t && t->base == SG_BT_SYMINT;
}

/* `name` of type `base` or `base?` (torchgen's TensorOptions predicate). */
static bool arg_is(const sg_arg *a, const char *name, sg_base_type base) {
    if (strcmp(a->name, name) != 0 || !a->type) return false;
    if (type_is_base(a->type, base)) return true;
    return a->type->kind == SG_TY_OPTIONAL && type_is_base(a->type->elem, base);
}

/* self, the out arguments, the TensorOptions group and the kind, as torchgen finds them. The
 * schema parser and sg_schema_make (derive() in gen/schema/schema.c) find exactly these, by the same
 * rules, for every schema they accept; the schema's fields are used when they are in range. */
static void analyse(const sg_schema *s, fn_info *fi) {
    int npos = s->n_positional;
    if (npos < 0) npos = 0;
    if (npos > s->n_args) npos = s->n_args;
    if (s->self_index >= -1 && s->self_index < npos && s->out_start >= npos &&
        s->out_start <= s->n_args && s->tensor_options_start >= -1 &&
        (s->tensor_options_start < 0 ||
         (s->tensor_options_start >= npos && s->tensor_options_start + 4 <= s->out_start)) &&
        (unsigned)s->kind <= SG_KIND_SCRATCH) {
        fi->self_ix = s->self_index;
        fi->out_start = s->out_start;
        fi->to_start = s->tensor_options_start;
        fi->kind = s->kind;
        return;
    }
    fi->self_ix = -1;
    for (int i = 0; i < npos; i++) {
        if (strcmp(s->args[i].name, "self") == 0) {
            fi->self_ix = i;
            break;
        }
    }
    fi->out_start = s->n_args;
    for (int i = npos; i < s->n_args; i++) {
        if (ann_writes(s->args[i].annotation)) {
            fi->out_start = i;
            break;
        }
    }
    fi->to_start = -1;
    for (int i = npos; i + 4 <= fi->out_start; i++) {
        if (arg_is(&s->args[i], "dtype", SG_BT_SCALAR_TYPE) &&
            arg_is(&s->args[i + 1], "layout", SG_BT_LAYOUT) &&
            arg_is(&s->args[i + 2], "device", SG_BT_DEVICE) &&
            arg_is(&s->args[i + 3], "pin_memory", SG_BT_BOOL)) {
            fi->to_start = i;
            break;
        }
    }
    bool scratch = false;
    for (int i = fi->out_start; i < s->n_args; i++)
        if (strncmp(s->args[i].name, "_scratch_", 9) == 0) scratch = true;
    bool mutable_ = false;
    for (int i = fi->self_ix + 1; i < npos; i++)
        if (ann_writes(s->args[i].annotation)) mutable_ = true;
    if (s->inplace)
        fi->kind = SG_KIND_INPLACE;
    else if (scratch)
        fi->kind = SG_KIND_SCRATCH;
    else if (fi->out_start < s->n_args)
        fi->kind = SG_KIND_OUT;
    else if (mutable_)
        fi->kind = SG_KIND_MUTABLE;
    else
        fi->kind = SG_KIND_FUNCTIONAL;
}

static bool str_list_eq(const char *const *a, int na, const char *const *b, int nb) {
    if (na != nb) return false;
    for (int i = 0; i < na; i++)
        if (strcmp(a[i], b[i]) != 0) return false;
    return true;
}

/* Annotation equality as torchgen's dataclass equality; NULL == NULL. */
static bool ann_eq(const sg_annotation *a, const sg_annotation *b) {
    if (!a || !b) return a == b;
    return a->is_write == b->is_write &&
           str_list_eq(a->alias_set, a->n_alias_set, b->alias_set, b->n_alias_set) &&
           str_list_eq(a->alias_set_after, a->n_alias_set_after, b->alias_set_after,
                       b->n_alias_set_after);
}

/* ---- Arena strings ------------------------------------------------------------------------ */

/* The concatenation of up to five strings (NULL ones skipped) in arena memory. */
static char *cat(sg_arena *a, const char *s0, const char *s1, const char *s2, const char *s3,
                 const char *s4) {
    const char *p[5] = {s0, s1, s2, s3, s4};
    size_t len[5], total = 0;
    for (int i = 0; i < 5; i++) total += len[i] = p[i] ? strlen(p[i]) : 0;
    char *r = sg_arena_alloc(a, total + 1), *w = r;
    if (!r) return NULL;
    for (int i = 0; i < 5; i++) {
        if (len[i]) memcpy(w, p[i], len[i]);
        w += len[i];
    }
    *w = '\0';
    return r;
}

/* The canonical text of s in arena memory, printed once when it is short. */
static char *schema_text(sg_arena *a, const sg_schema *s) {
    char small[1024];
    size_t n = sg_schema_print(s, small, sizeof small);
    if (n >= sizeof small) return sg_schema_to_string(a, s);
    return sg_arena_strndup(a, small, n);
}

/* ---- FunctionSchema.signature() ----------------------------------------------------------- */

typedef struct sig {
    sg_arg *args;
    int n_args, n_positional;
    sg_return *rets;
    int n_rets;
} sig;

static void sig_free(sig *g) {
    free(g->args);
    free(g->rets);
    g->args = NULL;
    g->rets = NULL;
}

/* Builds the signature of s into g (malloc'd arrays; the strings they point to are s's, or
 * arena copies when keep_names). Returns 0, or -1 on out-of-memory. */
static int sig_build(sg_arena *arena, const sg_schema *s, const fn_info *fi, bool keep_names,
                     sig *g) {
    memset(g, 0, sizeof *g);
    g->args = calloc((size_t)s->n_args + 1, sizeof *g->args);
    g->rets = calloc((size_t)s->n_rets + (size_t)s->n_args + 1, sizeof *g->rets);
    if (!g->args || !g->rets) {
        sig_free(g);
        return -1;
    }
    int npos = s->n_positional < s->n_args ? s->n_positional : s->n_args;
    bool bernoulli_p = strcmp(s->name, "bernoulli") == 0 && strcmp(s->overload, "p") == 0;
    for (int i = 0; i < fi->out_start; i++) {
        if (fi->to_start >= 0 && i >= fi->to_start && i < fi->to_start + 4) continue;
        sg_arg a = s->args[i];
        a.annotation = NULL;
        a.kwarg_only = i >= npos;
        a.is_out = false;
        a.offset = 0;
        if (bernoulli_p && !a.default_text && strcmp(a.name, "p") == 0 &&
            type_is_base(a.type, SG_BT_FLOAT)) {
            /* Note [bernoulli.p schema]: grouped as if written `float p=0.5`. */
            a.default_text = "0.5";
            a.default_kind = SG_DEF_FLOAT;
            a.default_value.f = 0.5;
        }
        g->args[g->n_args++] = a;
        if (i < npos) g->n_positional++;
    }
    for (int i = 0; i < s->n_rets; i++) {
        sg_return r = s->rets[i];
        r.annotation = NULL;
        if (!keep_names) r.name = NULL;
        g->rets[g->n_rets++] = r;
    }
    /* Mutated inputs not already returned: self, the out arguments, the positional
     * arguments after self (in that order). */
    for (int pass = 0; pass < 3; pass++) {
        int lo, hi;
        if (pass == 0) {
            lo = fi->self_ix;
            hi = fi->self_ix < 0 ? -1 : fi->self_ix + 1;
        } else if (pass == 1) {
            lo = fi->out_start;
            hi = s->n_args;
        } else {
            lo = fi->self_ix + 1;
            hi = npos;
        }
        for (int i = lo; i >= 0 && i < hi; i++) {
            const sg_arg *a = &s->args[i];
            if (!ann_writes(a->annotation)) continue;
            bool returned = false;
            for (int j = 0; j < s->n_rets; j++)
                if (ann_eq(a->annotation, s->rets[j].annotation)) returned = true;
            if (returned) continue;
            sg_return r = {0};
            r.type = a->type;
            if (keep_names) {
                r.name = cat(arena, a->name, "_out", NULL, NULL, NULL);
                if (!r.name) {
                    sig_free(g);
                    return -1;
                }
            }
            g->rets[g->n_rets++] = r;
        }
    }
    return 0;
}

/* ---- Signatures compared in place ----------------------------------------------------------
 *
 * Two schemas are in one family iff torchgen's signatures are equal: the same base name and
 * dunder flag, the same arguments of the signature (those before the out arguments, less the
 * TensorOptions group) with equal types, names and defaults and the keyword-only marker at
 * the same place, and equal return types (the written ones, then the mutated inputs that are
 * not returned). Nothing is built for this: a structural hash picks the candidates and
 * sig_eq walks both schemas side by side. */

/* The next argument of the signature at or after i, or -1. */
static int sig_next_arg(const sg_schema *s, const fn_info *fi, int i) {
    for (; i < fi->out_start && i < s->n_args; i++) {
        if (fi->to_start >= 0 && i >= fi->to_start && i < fi->to_start + 4) continue;
        return i;
    }
    return -1;
}

static bool is_bernoulli_p(const sg_schema *s) {
    return s->name[0] == 'b' && strcmp(s->name, "bernoulli") == 0 && s->overload[0] == 'p' &&
           s->overload[1] == '\0';
}

/* The default of argument i in the signature (Note [bernoulli.p schema]), or NULL. */
static const char *sig_default(const sg_schema *s, bool bern, int i) {
    const sg_arg *a = &s->args[i];
    if (bern && !a->default_text && strcmp(a->name, "p") == 0 && type_is_base(a->type, SG_BT_FLOAT))
        return "0.5";
    return a->default_text;
}

/* Whether mutated argument a is already among s's returns (then it adds no return). */
static bool arg_returned(const sg_schema *s, const sg_arg *a) {
    for (int j = 0; j < s->n_rets; j++)
        if (ann_eq(a->annotation, s->rets[j].annotation)) return true;
    return false;
}

/* The extra returns of the signature: the mutated inputs not already returned, in torchgen's
 * order (self, the out arguments, the positional ones after self). Iteration state: *pass
 * and *i start at 0 and -2; returns the next argument index, or -1 at the end. */
static int sig_next_extra(const sg_schema *s, const fn_info *fi, int *pass, int *i) {
    int npos = s->n_positional < s->n_args ? s->n_positional : s->n_args;
    for (; *pass < 3; (*pass)++, *i = -2) {
        int lo, hi;
        if (*pass == 0) {
            lo = fi->self_ix;
            hi = fi->self_ix < 0 ? -1 : fi->self_ix + 1;
        } else if (*pass == 1) {
            lo = fi->out_start;
            hi = s->n_args;
        } else {
            lo = fi->self_ix + 1;
            hi = npos;
        }
        if (*i == -2) *i = lo;
        for (; *i >= 0 && *i < hi; (*i)++) {
            const sg_arg *a = &s->args[*i];
            if (!ann_writes(a->annotation) || arg_returned(s, a)) continue;
            return (*i)++;
        }
    }
    return -1;
}

/* The return types of the signature, one by one. */
typedef struct ret_iter {
    int r, pass, i;
} ret_iter;

static bool sig_next_ret(const sg_schema *s, const fn_info *fi, ret_iter *it, const sg_type **t) {
    if (it->r < s->n_rets) {
        *t = s->rets[it->r++].type;
        return true;
    }
    int k = sig_next_extra(s, fi, &it->pass, &it->i);
    if (k < 0) return false;
    *t = s->args[k].type;
    return true;
}

static bool type_eq(const sg_type *a, const sg_type *b) {
    for (;;) {
        if (a == b) return true;
        if (!a || !b || a->kind != b->kind) return false;
        if (a->kind == SG_TY_BASE) return a->base == b->base;
        if (a->kind == SG_TY_LIST && a->size != b->size) return false;
        a = a->elem;
        b = b->elem;
    }
}

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ULL; }

static uint64_t type_hash(const sg_type *t) {
    uint64_t h = 7;
    for (; t; t = t->elem) {
        if (t->kind == SG_TY_BASE) return mix(h, 64 + (uint64_t)t->base);
        h = mix(h, t->kind == SG_TY_OPTIONAL ? 1 : 2 + (uint64_t)(uint32_t)t->size);
    }
    return mix(h, 3);
}

/* A cheap digest of a string: its length and three of its bytes. */
static uint64_t str_digest(const char *s) {
    if (!s) return 1;
    size_t n = strlen(s);
    if (n == 0) return 2;
    return ((uint64_t)n << 24) ^ ((uint64_t)(unsigned char)s[0] << 16) ^
           ((uint64_t)(unsigned char)s[n / 2] << 8) ^ (unsigned char)s[n - 1];
}

static uint64_t sig_hash(const sg_schema *s, const fn_info *fi) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char *c = s->base ? s->base : s->name; *c; c++) h = mix(h, (unsigned char)*c);
    h = mix(h, s->dunder_method ? 0x100 : 0x200);
    bool bern = is_bernoulli_p(s);
    int n_sig = 0;
    for (int i = sig_next_arg(s, fi, 0); i >= 0; i = sig_next_arg(s, fi, i + 1), n_sig++) {
        h = mix(h, type_hash(s->args[i].type));
        h = mix(h, str_digest(s->args[i].name));
        h = mix(h, str_digest(sig_default(s, bern, i)));
    }
    h = mix(h, 0x300 + (uint64_t)(uint32_t)(s->n_positional < n_sig ? s->n_positional : n_sig));
    ret_iter it = {0, 0, -2};
    const sg_type *t;
    while (sig_next_ret(s, fi, &it, &t)) h = mix(h, type_hash(t));
    return h;
}

static bool str_eq(const char *a, const char *b) {
    if (a == b) return true;
    return a && b && strcmp(a, b) == 0;
}

static bool sig_eq(const sg_schema *a, const fn_info *fa, const sg_schema *b, const fn_info *fb) {
    if (a->dunder_method != b->dunder_method ||
        !str_eq(a->base ? a->base : a->name, b->base ? b->base : b->name))
        return false;
    /* The keyword-only marker sits before the signature's argument n_positional. */
    int na = 0, nb = 0;
    for (int i = sig_next_arg(a, fa, 0); i >= 0; i = sig_next_arg(a, fa, i + 1)) na++;
    for (int i = sig_next_arg(b, fb, 0); i >= 0; i = sig_next_arg(b, fb, i + 1)) nb++;
    if (na != nb) return false;
    int pa = a->n_positional < na ? a->n_positional : na;
    int pb = b->n_positional < nb ? b->n_positional : nb;
    if (pa != pb) return false;
    bool ba = is_bernoulli_p(a), bb = is_bernoulli_p(b);
    int i = sig_next_arg(a, fa, 0), j = sig_next_arg(b, fb, 0);
    for (; i >= 0 && j >= 0; i = sig_next_arg(a, fa, i + 1), j = sig_next_arg(b, fb, j + 1)) {
        if (!type_eq(a->args[i].type, b->args[j].type) ||
            !str_eq(a->args[i].name, b->args[j].name) ||
            !str_eq(sig_default(a, ba, i), sig_default(b, bb, j)))
            return false;
    }
    if (i >= 0 || j >= 0) return false;
    /* The return types: the written ones, then the extra ones, as one sequence. */
    ret_iter x = {0, 0, -2}, y = {0, 0, -2};
    const sg_type *tx, *ty;
    for (;;) {
        bool hx = sig_next_ret(a, fa, &x, &tx), hy = sig_next_ret(b, fb, &y, &ty);
        if (!hx || !hy) return hx == hy;
        if (!type_eq(tx, ty)) return false;
    }
}

/* ---- Families ----------------------------------------------------------------------------- */

enum { N_KINDS = 5 };

typedef struct family {
    uint64_t hash;
    int rep;             /* the written function that opened the family */
    int member[N_KINDS]; /* index of the written function of each kind, or -1 */
    int n_members;
    int derived[2]; /* indices into the derived list, or -1 */
    int n_derived;
} family;

typedef struct ftable {
    family *fams;
    int n, cap;
    int *slots; /* open addressing: family index + 1, 0 = empty */
    size_t n_slots;
} ftable;

/* Finds or adds the family of function ix (sized for n functions up front); returns its
 * index, or -1 on out-of-memory. */
static int ftable_get(ftable *t, const sg_model *m, const fn_info *info, int ix) {
    const sg_native_function *fn = m->funcs[ix];
    const sg_schema *s = fn->func;
    uint64_t h = fn->sig_hash_of == s ? fn->sig_hash : sig_hash(s, &info[ix]);
    size_t mask = t->n_slots - 1, i;
    for (i = (size_t)h & mask;; i = (i + 1) & mask) {
        int v = t->slots[i];
        if (!v) break;
        family *f = &t->fams[v - 1];
        if (f->hash == h && sig_eq(m->funcs[f->rep]->func, &info[f->rep], s, &info[ix]))
            return v - 1;
    }
    if (t->n == t->cap) return -1; /* never: one family per function at most */
    family *f = &t->fams[t->n];
    memset(f, 0, sizeof *f);
    f->hash = h;
    f->rep = ix;
    for (int k = 0; k < N_KINDS; k++) f->member[k] = -1;
    f->derived[0] = f->derived[1] = -1;
    t->slots[i] = t->n + 1;
    return t->n++;
}

uint64_t sg_derive_sig_hash(const sg_schema *s) {
    fn_info fi = {0};
    analyse(s, &fi);
    return sig_hash(s, &fi);
}

static int ftable_init(ftable *t, size_t n) {
    size_t ns = 64;
    while (ns < 2 * n + 2) ns *= 2;
    t->fams = malloc((n + 1) * sizeof *t->fams);
    t->slots = calloc(ns, sizeof *t->slots);
    t->n = 0;
    t->cap = (int)n + 1;
    t->n_slots = ns;
    return t->fams && t->slots ? 0 : -1;
}

static void ftable_free(ftable *t) {
    free(t->fams);
    free(t->slots);
}

/* ---- Properties of written functions ------------------------------------------------------ */

static bool has_tag(const sg_native_function *f, const char *tag) {
    for (int i = 0; i < f->n_tags; i++)
        if (f->tags[i] && strcmp(f->tags[i], tag) == 0) return true;
    return false;
}

/* torchgen's NativeFunction.is_view_op. */
static bool is_view_op(const sg_native_function *f) {
    const sg_schema *s = f->func;
    for (int i = 0; i < s->n_rets; i++)
        if (s->rets[i].annotation && !s->rets[i].annotation->is_write) return true;
    if (has_tag(f, "inplace_view")) {
        /* resize_ and resize_as_ (no overload) count as ordinary in-place ops */
        bool resize = s->overload[0] == '\0' &&
                      (strcmp(s->name, "resize_") == 0 || strcmp(s->name, "resize_as_") == 0);
        if (!resize) return true;
    }
    for (int i = 0; i < s->n_args; i++) {
        const sg_annotation *a = s->args[i].annotation;
        if (!a) continue;
        for (int k = 0; k < a->n_alias_set_after; k++)
            if (strcmp(a->alias_set_after[k], "*") == 0) return true;
    }
    return false;
}

/* The function has a CompositeImplicitAutograd kernel, written or by default. */
static bool is_composite_implicit(const sg_native_function *f) {
    if (f->has_dispatch) {
        for (int i = 0; i < f->n_dispatch; i++)
            if (f->dispatch[i].key &&
                strcmp(f->dispatch[i].key, sg_dispatch_key_name(SHIMRT_DISPATCH_KEY_CIA)) == 0)
                return true;
        return false;
    }
    return !f->structured && !f->structured_delegate;
}

/* Arguments.has_symint_arg: a SymInt among the non-out arguments. */
static bool has_symint(const sg_schema *s, const fn_info *fi) {
    for (int i = 0; i < fi->out_start && i < s->n_args; i++)
        if (type_symint_like(s->args[i].type)) return true;
    return false;
}

/* "name" or "name.overload" in the arena. */
static char *full_name(sg_arena *a, const char *name, const char *overload) {
    if (overload && overload[0]) return cat(a, name, ".", overload, NULL, NULL);
    return sg_arena_strdup(a, name);
}

/* BaseOperatorName.__str__. */
static char *op_base_name(sg_arena *a, const sg_schema *s, bool inplace, bool functional) {
    const char *base = s->base ? s->base : s->name;
    if (s->dunder_method) return cat(a, "__", inplace ? "i" : "", base, "__", NULL);
    return cat(a, base, inplace ? "_" : functional ? "_functional" : "", NULL, NULL, NULL);
}

static char *out_overload(sg_arena *a, const char *overload) {
    if (overload && overload[0]) return cat(a, overload, "_out", NULL, NULL, NULL);
    return sg_arena_strdup(a, "out");
}

/* ---- Building derived schemas ------------------------------------------------------------- */

/* generate_out_args_from_schema: out arguments for the tensor-like returns of s, and the new
 * returns. Appends to args/rets (caller-sized). Returns 0, 1 when torchgen would refuse, or
 * -1 on out-of-memory. */
static int out_args_from_returns(sg_arena *a, const sg_schema *s, sg_arg *args, int *n_args,
                                 sg_return *rets, int *n_rets) {
    char letters[27];
    int n_letters = 0;
    for (int i = 0; i < s->n_rets; i++)
        if (ann_writes(s->rets[i].annotation)) return 1;
    bool any_tensor = false, all_plain = true;
    for (int i = 0; i < s->n_rets; i++) {
        if (type_tensor_like(s->rets[i].type)) any_tensor = true;
        if (!type_is_base(s->rets[i].type, SG_BT_TENSOR)) all_plain = false;
    }
    if (!any_tensor) return 1;
    uint32_t used = 0; /* bit c - 'a': the one-letter alias c is taken */
    for (int i = 0; i < s->n_args; i++) {
        const sg_annotation *an = s->args[i].annotation;
        for (int k = 0; an && k < an->n_alias_set; k++) {
            const char *x = an->alias_set[k];
            if (x[0] >= 'a' && x[0] <= 'z' && x[1] == '\0') used |= 1u << (x[0] - 'a');
        }
    }
    for (char c = 'a'; c <= 'z'; c++)
        if (!(used & (1u << (c - 'a')))) letters[n_letters++] = c;
    for (int i = 0; i < s->n_rets; i++) {
        const sg_return *r = &s->rets[i];
        if (!type_tensor_like(r->type)) {
            rets[(*n_rets)++] = *r;
            continue;
        }
        if (i >= n_letters) return 1;
        sg_annotation *an = sg_arena_alloc(a, sizeof *an);
        const char **set = sg_arena_alloc(a, sizeof *set);
        char *letter = sg_arena_printf(a, "%c", letters[i]);
        char *name = s->n_rets == 1 ? sg_arena_strdup(a, "out") : sg_arena_printf(a, "out%d", i);
        if (!an || !set || !letter || !name) return -1;
        set[0] = letter;
        an->alias_set = set;
        an->n_alias_set = 1;
        an->is_write = true;
        sg_arg o = {0};
        o.name = name;
        o.type = r->type;
        o.annotation = an;
        o.kwarg_only = true;
        o.is_out = true;
        args[(*n_args)++] = o;
        if (all_plain) {
            sg_return nr = {0};
            nr.type = r->type;
            nr.annotation = an;
            rets[(*n_rets)++] = nr;
        }
    }
    return 0;
}

/* The out variant of base (kind k). Returns 0 with *out set, 1 when none can be made, -1 on
 * out-of-memory. */
/* Returns 0 (made), 1 (no out variant for this kind), 2 (the parts make no valid schema:
 * *why says why), -1 out of memory. */
static int make_out_schema(sg_arena *a, const sg_schema *s, const fn_info *fi,
                           const sg_schema **out, const char **why) {
    int cap_args = s->n_args + s->n_rets + 1;
    int cap_rets = s->n_rets + 1;
    sg_arg *args = calloc((size_t)cap_args, sizeof *args);
    sg_return *rets = calloc((size_t)cap_rets, sizeof *rets);
    int n_args = 0, n_pos = 0, n_rets = 0, rc = 0;
    const char *name = NULL;
    if (!args || !rets) {
        rc = -1;
        goto done;
    }
    int npos = s->n_positional < s->n_args ? s->n_positional : s->n_args;
    if (fi->kind == SG_KIND_INPLACE) {
        /* self_to_out_signature */
        if (fi->self_ix < 0 || fi->out_start < s->n_args) {
            rc = 1;
            goto done;
        }
        for (int i = 0; i < s->n_args; i++) {
            sg_arg x = s->args[i];
            x.offset = 0;
            x.kwarg_only = i >= npos;
            x.is_out = false;
            if (i == fi->self_ix) x.annotation = NULL;
            args[n_args++] = x;
        }
        n_pos = npos;
        sg_arg o = {0};
        o.name = "out";
        o.type = s->args[fi->self_ix].type;
        o.annotation = s->args[fi->self_ix].annotation;
        o.kwarg_only = true;
        o.is_out = true;
        args[n_args++] = o;
        for (int i = 0; i < s->n_rets; i++) rets[n_rets++] = s->rets[i];
        name = op_base_name(a, s, false, s->functional_overload);
    } else if (fi->kind == SG_KIND_MUTABLE || fi->kind == SG_KIND_FUNCTIONAL) {
        if (fi->kind == SG_KIND_MUTABLE) {
            /* mutable_to_out_signature: arguments as they are */
            for (int i = 0; i < s->n_args; i++) {
                sg_arg x = s->args[i];
                x.offset = 0;
                x.kwarg_only = i >= npos;
                x.is_out = false;
                args[n_args++] = x;
            }
            n_pos = npos;
            name = op_base_name(a, s, false, s->functional_overload);
        } else {
            /* functional_to_out_signature: the arguments' signature */
            sig g;
            if (sig_build(a, s, fi, false, &g) != 0) {
                rc = -1;
                goto done;
            }
            memcpy(args, g.args, (size_t)g.n_args * sizeof *args);
            n_args = g.n_args;
            n_pos = g.n_positional;
            sig_free(&g);
            name = s->name;
        }
        rc = out_args_from_returns(a, s, args, &n_args, rets, &n_rets);
        if (rc != 0) goto done;
    } else {
        rc = 1;
        goto done;
    }
    const char *ov = out_overload(a, s->overload);
    if (!name || !ov) {
        rc = -1;
        goto done;
    }
    *out = sg_schema_make_why(a, s->ns, name, ov, args, n_args, n_pos, rets, n_rets, why);
    if (!*out) rc = *why ? 2 : -1;
done:
    free(args);
    free(rets);
    return rc;
}

/* The functional variant of base: its signature with return names, renamed. */
static int make_functional_schema(sg_arena *a, const sg_schema *s, const fn_info *fi,
                                  const sg_schema **out, const char **why) {
    *why = NULL;
    sig g;
    if (sig_build(a, s, fi, true, &g) != 0) return -1;
    const char *name = op_base_name(a, s, false, fi->kind == SG_KIND_MUTABLE);
    int rc = 0;
    if (!name) {
        rc = -1;
    } else {
        *out = sg_schema_make_why(a, s->ns, name, s->overload, g.args, g.n_args, g.n_positional,
                                  g.rets, g.n_rets, why);
        if (!*out) rc = *why ? 2 : -1;
    }
    sig_free(&g);
    return rc;
}

/* ---- The pass ----------------------------------------------------------------------------- */

/* An autogen that asks for a variant whose schema cannot exist (the out variant of
 * `abc__`, whose base name `abc_` reads as in-place): an error at the autogen item. */
static void not_derivable(sg_context *ctx, const sg_native_function *bf, const char *what,
                          const char *why) {
    sg_loc loc = bf->n_autogen > 0 && bf->autogen_locs ? bf->autogen_locs[0] : bf->func_loc;
    if (!loc.file) loc = bf->loc;
    sg_diag(ctx, SG_DIAG_ERROR, loc, "cannot derive the %s variant of '%s': %s", what,
            bf->func_text ? bf->func_text : bf->func->name, why);
}

typedef struct derived_rec {
    sg_native_function *fn;
    const char *full; /* "name.overload" */
    int family;
    bool is_out; /* the out variant (else the functional one) */
    bool named;  /* some autogen item of the family names it */
} derived_rec;

static const sg_loc *find_autogen(const sg_model *m, const family *fam, const char *full,
                                  int base) {
    /* The base function's item first, then the other members in kind order. */
    const sg_native_function *b = m->funcs[base];
    for (int k = 0; k < b->n_autogen; k++)
        if (b->autogen[k] && strcmp(b->autogen[k], full) == 0) return &b->autogen_locs[k];
    for (int kind = 0; kind < N_KINDS; kind++) {
        int ix = fam->member[kind];
        if (ix < 0 || ix == base) continue;
        const sg_native_function *f = m->funcs[ix];
        for (int k = 0; k < f->n_autogen; k++)
            if (f->autogen[k] && strcmp(f->autogen[k], full) == 0) return &f->autogen_locs[k];
    }
    return NULL;
}

static sg_native_function *new_derived(sg_context *ctx, const sg_native_function *src,
                                       const sg_schema *s, bool is_out, bool symint) {
    sg_arena *a = sg_context_arena(ctx);
    const sg_model *m = sg_context_model_mut(ctx);
    sg_native_function *f = sg_arena_alloc(a, sizeof *f);
    sg_dispatch *d = sg_arena_alloc(a, sizeof *d);
    const char **tags = sg_arena_alloc(a, 4 * sizeof *tags);
    if (!f || !d || !tags) return NULL;
    f->func = s;
    f->func_text = schema_text(a, s);
    f->op_key =
        cat(a, m->ns ? m->ns : "aten", ".", s->name, ".", s->overload[0] ? s->overload : "default");
    const char *kernel = is_out ? (s->overload[0] ? cat(a, s->name, "_", s->overload, NULL, NULL)
                                                  : sg_arena_strdup(a, s->name))
                                : sg_arena_strdup(a, s->name);
    if (!f->func_text || !f->op_key || !kernel) return NULL;
    if (symint) kernel = cat(a, kernel, "_symint", NULL, NULL, NULL);
    if (!kernel) return NULL;
    d->key = sg_dispatch_key_name(SHIMRT_DISPATCH_KEY_CEA);
    d->kernel = kernel;
    f->dispatch = d;
    f->n_dispatch = 1;
    f->has_dispatch = true;
    int nt = 0;
    tags[nt++] = "generated";
    for (int i = 0; i < src->n_tags && nt < 4; i++) {
        const char *t = src->tags[i];
        if (!t) continue;
        if (strcmp(t, "nondeterministic_seeded") == 0 || strcmp(t, "view_copy") == 0 ||
            strcmp(t, "pt2_compliant_tag") == 0) {
            bool dup = false;
            for (int j = 1; j < nt; j++)
                if (strcmp(tags[j], t) == 0) dup = true;
            if (!dup) tags[nt++] = t;
        }
    }
    f->tags = tags;
    f->tag_locs = NULL; /* set with the final location */
    f->n_tags = nt;
    f->variants = "function";
    f->device_guard = false;
    f->device_check = "NoCheck";
    f->is_abstract = src->is_abstract;
    f->derived = true;
    f->derived_from = src;
    f->loc = src->loc;
    f->func_loc = src->loc;
    return f;
}

int sg_derive_functions(sg_context *ctx) {
    if (!ctx) return -1;
    sg_model *m = sg_context_model_mut(ctx);
    sg_arena *arena = sg_context_arena(ctx);
    sg_loc noloc = {0};
    /* Derive again from scratch when called twice. */
    m->n_funcs = m->n_written;
    size_t n = m->n_written;
    if (n == 0) return 0;
    if (n > (size_t)INT32_MAX / 4) {
        sg_diag(ctx, SG_DIAG_ERROR, noloc, "too many functions to derive from");
        return -1;
    }

    int rc = 0;
    size_t errors_before = sg_error_count(ctx);
    fn_info *info = calloc(n, sizeof *info);
    derived_rec *der = calloc(2 * n + 1, sizeof *der);
    ftable ft = {0};
    int n_der = 0;
    if (!info || !der) goto oom;

    /* 1. families */
    if (ftable_init(&ft, n) != 0) goto oom;
    for (size_t i = 0; i < n; i++) {
        const sg_native_function *f = m->funcs[i];
        info[i].family = -1;
        if (!f || !f->func) continue;
        analyse(f->func, &info[i]);
        int fx = ftable_get(&ft, m, info, (int)i);
        if (fx < 0) goto oom;
        family *fam = &ft.fams[fx];
        int k = (int)info[i].kind;
        if (fam->member[k] >= 0) {
            const sg_native_function *o = m->funcs[fam->member[k]];
            sg_diag(ctx, SG_DIAG_ERROR, f->func_loc,
                    "'%s' has the same signature and kind as '%s' (line %u); torchgen "
                    "cannot group them",
                    f->func_text ? f->func_text : f->func->name,
                    o->func_text ? o->func_text : o->func->name, o->func_loc.line);
            continue;
        }
        fam->member[k] = (int)i;
        fam->n_members++;
        info[i].family = fx;
    }

    /* 2. derivation, family by family */
    for (int fx = 0; fx < ft.n; fx++) {
        family *fam = &ft.fams[fx];
        bool has_f = fam->member[SG_KIND_FUNCTIONAL] >= 0;
        bool has_i = fam->member[SG_KIND_INPLACE] >= 0;
        bool has_m = fam->member[SG_KIND_MUTABLE] >= 0;
        bool has_o = fam->member[SG_KIND_OUT] >= 0;
        if (!(has_f || has_i || has_m || has_o)) continue;
        int base = has_m   ? fam->member[SG_KIND_MUTABLE]
                   : has_i ? fam->member[SG_KIND_INPLACE]
                   : has_o ? fam->member[SG_KIND_OUT]
                           : fam->member[SG_KIND_FUNCTIONAL];
        const sg_native_function *bf = m->funcs[base];
        bool needs_out = false;
        for (int k = 0; k < bf->n_autogen; k++)
            if (bf->autogen[k] && strstr(bf->autogen[k], "out")) needs_out = true;
        /* Most families can derive nothing (they have a functional and an out member, or no
         * out variant is asked for): those need none of the checks below. */
        if (!(!has_o && needs_out) && !(!has_f && (has_o || needs_out))) continue;
        bool all_manual = true, any_view = false, all_cia = true, is_core = false;
        for (int k = 0; k < N_KINDS; k++) {
            int ix = fam->member[k];
            if (ix < 0) continue;
            const sg_native_function *f = m->funcs[ix];
            if (!f->manual_cpp_binding) all_manual = false;
            if (is_view_op(f) && strcmp(f->func->name, "set_") != 0) any_view = true;
            if (!is_composite_implicit(f)) all_cia = false;
            if (has_tag(f, "core")) is_core = true;
        }
        if (all_manual || any_view || (all_cia && !is_core)) continue;
        if (has_o && fam->n_members == 1) continue;
        if (has_i) {
            const sg_schema *s = m->funcs[fam->member[SG_KIND_INPLACE]]->func;
            if (strcmp(s->name, "polygamma_") == 0 && s->overload[0] == '\0') continue;
        }
        const sg_schema *bs = bf->func;
        const fn_info *bi = &info[base];
        bool valid = bi->kind == SG_KIND_INPLACE;
        for (int r = 0; r < bs->n_rets && !valid; r++)
            if (type_tensor_like(bs->rets[r].type)) valid = true;
        bool symint = has_symint(bs, bi);
        bool got_out = false;
        if (!has_o && valid && needs_out) {
            const sg_schema *os = NULL;
            const char *why = NULL;
            int r = make_out_schema(arena, bs, bi, &os, &why);
            if (r < 0) goto oom;
            if (r == 2) {
                not_derivable(ctx, bf, "out", why);
                continue;
            }
            if (r == 0) {
                sg_native_function *nf = new_derived(ctx, bf, os, true, symint);
                if (!nf) goto oom;
                der[n_der].fn = nf;
                der[n_der].full = full_name(arena, os->name, os->overload);
                der[n_der].family = fx;
                der[n_der].is_out = true;
                if (!der[n_der].full) goto oom;
                fam->derived[fam->n_derived++] = n_der++;
                got_out = true;
            }
        }
        if (!has_f && (has_o || got_out)) {
            const sg_schema *fs = NULL;
            const char *why = NULL;
            int r = make_functional_schema(arena, bs, bi, &fs, &why);
            if (r == 2) {
                not_derivable(ctx, bf, "functional", why);
                continue;
            }
            if (r != 0) goto oom;
            sg_native_function *nf = new_derived(ctx, bf, fs, false, symint);
            if (!nf) goto oom;
            der[n_der].fn = nf;
            der[n_der].full = full_name(arena, fs->name, fs->overload);
            der[n_der].family = fx;
            if (!der[n_der].full) goto oom;
            fam->derived[fam->n_derived++] = n_der++;
        }
        /* locations: the autogen item that names each one */
        for (int d = 0; d < fam->n_derived; d++) {
            derived_rec *dr = &der[fam->derived[d]];
            const sg_loc *l = find_autogen(m, fam, dr->full, base);
            if (l) {
                dr->fn->loc = *l;
                dr->fn->func_loc = *l;
                dr->named = true;
            }
            sg_loc *tl = sg_arena_alloc(arena, 4 * sizeof *tl);
            if (!tl) goto oom;
            for (int t = 0; t < dr->fn->n_tags; t++) tl[t] = dr->fn->loc;
            dr->fn->tag_locs = tl;
        }
    }

    /* 3. checks, as torchgen's NativeFunctionsGroup: in a family that ends up with both a
     * functional and an out function, the autogen items of its members must name exactly
     * the functions derived for it. (Other families' autogen items go unchecked, as in
     * torchgen: PyTorch's own file lists `prelu.out`, which nothing derives.) */
    for (int fx = 0; fx < ft.n; fx++) {
        const family *fam = &ft.fams[fx];
        bool has_func = fam->member[SG_KIND_FUNCTIONAL] >= 0;
        bool has_outv = fam->member[SG_KIND_OUT] >= 0;
        for (int d = 0; d < fam->n_derived; d++) {
            if (der[fam->derived[d]].is_out)
                has_outv = true;
            else
                has_func = true;
        }
        if (!has_func || !has_outv) continue;
        for (int kind = 0; kind < N_KINDS; kind++) {
            int ix = fam->member[kind];
            if (ix < 0 || kind == SG_KIND_SCRATCH) continue;
            const sg_native_function *f = m->funcs[ix];
            for (int k = 0; k < f->n_autogen; k++) {
                const char *item = f->autogen[k];
                if (!item) continue;
                bool ok = false;
                for (int d = 0; d < fam->n_derived; d++)
                    if (strcmp(der[fam->derived[d]].full, item) == 0) ok = true;
                if (ok) continue;
                sg_buf gen = {0};
                for (int d = 0; d < fam->n_derived; d++) {
                    if (d) sg_buf_puts(&gen, ", ");
                    sg_buf_puts(&gen, der[fam->derived[d]].full);
                }
                sg_diag(ctx, SG_DIAG_ERROR, f->autogen_locs[k],
                        "autogen names '%s', which is not derived from '%s' (derived there: "
                        "%s)",
                        item, f->func_text ? f->func_text : f->func->name,
                        gen.len && !gen.oom ? gen.data : "nothing");
                sg_buf_free(&gen);
            }
        }
        for (int d = 0; d < fam->n_derived; d++) {
            const derived_rec *dr = &der[fam->derived[d]];
            if (dr->named) continue;
            sg_diag(ctx, SG_DIAG_ERROR, dr->fn->derived_from->loc,
                    "'%s' is derived from '%s', but no autogen item names it; add it to the "
                    "entry's 'autogen:'",
                    dr->full,
                    dr->fn->derived_from->func_text ? dr->fn->derived_from->func_text
                                                    : dr->fn->derived_from->func->name);
        }
    }

    /* 4. append, in derivation order */
    for (int d = 0; d < n_der; d++)
        if (sg_model_append_function(ctx, der[d].fn) != 0) goto fail;
    rc = sg_error_count(ctx) > errors_before ? -1 : 0;
    goto done;
oom:
    sg_diag(ctx, SG_DIAG_ERROR, noloc, "out of memory while deriving autogen functions");
fail:
    rc = -1;
done:
    free(info);
    free(der);
    ftable_free(&ft);
    return rc;
}

/* gen/emit_params.c: the C form of an op (docs/shim-rules.md, "Parameters", "Names and
 * versions", and the kernel choice of "Which ops, in which order"). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <shimrt/codes.h>

#include "emit.h"

static bool omitted(const char *name, const char *const *omit, int n_omit) {
    for (int i = 0; i < n_omit; i++)
        if (strcmp(omit[i], name) == 0) return true;
    return false;
}

int sg_shim_params(sg_arena *a, const sg_schema *s, const char *const *omit, int n_omit,
                   sg_cparam **params, int *n_params, const char **why, int *bad_arg) {
    bool out_fn = s->out_start < s->n_args;
    bool rets = !out_fn && !s->inplace;
    int max = 2 * s->n_args + (rets ? 2 * s->n_rets : 0);
    sg_cparam *p = sg_arena_alloc(a, sizeof *p * (size_t)(max ? max : 1));
    if (!p) {
        *why = "out of memory";
        *bad_arg = -1;
        return -1;
    }
    int n = 0;
    /* Out variants: the out arguments first, then the rest in schema order. */
    for (int pass = 0; pass < 2; pass++) {
        int lo = 0, hi = s->n_args;
        if (out_fn) {
            lo = pass == 0 ? s->out_start : 0;
            hi = pass == 0 ? s->n_args : s->out_start;
        } else if (pass == 1) {
            break;
        }
        for (int i = lo; i < hi; i++) {
            const sg_arg *arg = &s->args[i];
            if (omitted(arg->name, omit, n_omit)) continue;
            const sg_kind_info *k = sg_kind_get(sg_kind_of_arg(arg->type));
            if (!k) {
                *why = sg_arena_printf(a, "argument '%s' has type '%s', which has no C form",
                                       arg->name, sg_text_type(a, arg->type));
                *bad_arg = i;
                return -1;
            }
            p[n++] = (sg_cparam){k->c_type, arg->name, SG_CP_ARG, i};
            if (k->shape == SG_SHAPE_LIST)
                p[n++] =
                    (sg_cparam){"int64_t", sg_arena_printf(a, "%s_len_", arg->name), SG_CP_LEN, i};
            else if (k->shape == SG_SHAPE_DEVICE)
                p[n++] = (sg_cparam){"int32_t", sg_arena_printf(a, "%s_index_", arg->name),
                                     SG_CP_DEVICE_INDEX, i};
        }
    }
    if (rets) {
        for (int i = 0; i < s->n_rets; i++) {
            const sg_kind_info *k = sg_kind_get(sg_kind_of_ret(s->rets[i].type));
            const char *t = k ? k->ret_type : NULL;
            if (!t) {
                *why = sg_arena_printf(a, "return %d has type '%s', which has no C form", i,
                                       sg_text_type(a, s->rets[i].type));
                *bad_arg = -1;
                return -1;
            }
            p[n++] = (sg_cparam){t, sg_arena_printf(a, "ret%d", i), SG_CP_RET, i};
            /* A list return (Tensor[]): the array's length follows its out-pointer. */
            if (k->shape == SG_SHAPE_LIST)
                p[n++] = (sg_cparam){"int64_t*", sg_arena_printf(a, "ret%d_len_", i), SG_CP_RET, i};
        }
    }
    for (int i = 0; i < n; i++)
        if (!p[i].name) {
            *why = "out of memory";
            *bad_arg = -1;
            return -1;
        }
    *params = p;
    *n_params = n;
    return 0;
}

/* ---- Backends and kernels ------------------------------------------------------------ */
static bool ieq(const char *x, const char *y) {
    for (; *x && *y; x++, y++)
        if (tolower((unsigned char)*x) != tolower((unsigned char)*y)) return false;
    return *x == *y;
}

const char *sg_backend_dispatch_key(const sg_model *m, const char *backend) {
    const char *cpu = sg_dispatch_key_name(SHIMRT_DISPATCH_KEY_CPU);
    const char *cuda = sg_dispatch_key_name(SHIMRT_DISPATCH_KEY_CUDA);
    if (ieq(backend, cpu)) return cpu;
    if (ieq(backend, cuda)) return cuda;
    for (size_t i = 0; i < m->n_funcs; i++) {
        const sg_native_function *f = m->funcs[i];
        for (int k = 0; k < f->n_dispatch; k++)
            if (!strstr(f->dispatch[k].key, "NestedTensor") && ieq(f->dispatch[k].key, backend))
                return f->dispatch[k].key;
    }
    return NULL;
}

/* The function's own kernel for `key`, counting the implied ones. */
static const char *own_kernel(sg_arena *a, const sg_native_function *fn, const char *key) {
    if (strstr(key, "NestedTensor")) return NULL;
    for (int k = 0; k < fn->n_dispatch; k++)
        if (strcmp(fn->dispatch[k].key, key) == 0) return fn->dispatch[k].kernel;
    const sg_schema *s = fn->func;
    if (fn->has_ufunc_inner_loop &&
        (strcmp(key, sg_dispatch_key_name(SHIMRT_DISPATCH_KEY_CPU)) == 0 ||
         strcmp(key, sg_dispatch_key_name(SHIMRT_DISPATCH_KEY_CUDA)) == 0))
        return sg_arena_printf(a, "ufunc_%s_%s", s->name, key);
    if (fn->n_dispatch == 0 && strcmp(key, sg_dispatch_key_name(SHIMRT_DISPATCH_KEY_CEA)) == 0 &&
        fn->derived)
        return sg_arena_printf(a, "%s%s", s->name, s->out_start < s->n_args ? "_out" : "");
    if (!fn->has_dispatch && !fn->structured && !fn->structured_delegate && !fn->derived &&
        strcmp(key, sg_dispatch_key_name(SHIMRT_DISPATCH_KEY_CIA)) == 0)
        return sg_arena_printf(a, "%s%s", s->name, s->out_start < s->n_args ? "_out" : "");
    return NULL;
}

bool sg_pick_kernel(sg_arena *a, const sg_native_function *fn, const char *dispatch_key,
                    const char **key, const char **kernel) {
    /* docs/shim-rules.md's order (not the runtime's fallback order) */
    static const int composite[] = {SHIMRT_DISPATCH_KEY_CEA, SHIMRT_DISPATCH_KEY_CEA_NONFUNCTIONAL,
                                    SHIMRT_DISPATCH_KEY_CIA};
    const char *k = own_kernel(a, fn, dispatch_key);
    if (!k && fn->delegate) k = own_kernel(a, fn->delegate, dispatch_key);
    if (k) {
        *key = dispatch_key;
        *kernel = k;
        return true;
    }
    for (size_t i = 0; i < sizeof composite / sizeof *composite; i++) {
        const char *name = sg_dispatch_key_name(composite[i]);
        k = own_kernel(a, fn, name);
        if (k) {
            *key = name;
            *kernel = k;
            return true;
        }
    }
    return false;
}

const char *sg_shim_c_name(sg_arena *a, const char *backend, const sg_schema *s, int version) {
    char vbuf[16] = "";
    if (version > 1) snprintf(vbuf, sizeof vbuf, "_v%d", version);
    /* A namespace other than aten is part of the name: aoti_torch_cpu_myops_add_scalar. */
    const char *ns = s->ns && *s->ns && strcmp(s->ns, "aten") != 0 ? s->ns : NULL;
    const char *nsep = ns ? "_" : "";
    if (s->overload && *s->overload)
        return sg_arena_printf(a, "aoti_torch_%s_%s%s%s_%s%s", backend, ns ? ns : "", nsep, s->name,
                               s->overload, vbuf);
    return sg_arena_printf(a, "aoti_torch_%s_%s%s%s%s", backend, ns ? ns : "", nsep, s->name, vbuf);
}

/* ---- Kinds: how the body templates treat an argument or a return (gen/kinds.c) ------ */
const char *sg_arg_kind(const sg_type *t) {
    const sg_kind_info *k = sg_kind_get(sg_kind_of_arg(t));
    return k ? k->name : NULL;
}

const char *sg_ret_kind(const sg_type *t) {
    const sg_kind_info *k = sg_kind_get(sg_kind_of_ret(t));
    return k && k->ret_type ? k->name : NULL;
}

const char *sg_kernel_param_type(const sg_schema *s, const sg_cparam *p) {
    if (p->role != SG_CP_ARG || p->index < 0 || p->index >= s->n_args) return p->type;
    const sg_kind_info *k = sg_kind_get(sg_kind_of_arg(s->args[p->index].type));
    return k ? k->kernel_type : p->type;
}

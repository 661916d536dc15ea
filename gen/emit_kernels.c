/* gen/emit_kernels.c: <key>_kernels.h, the prototype of every kernel the generated shims
 * call (docs/kernels.md), one header per dispatch key (see emit_bodies.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shimrt/codes.h>

#include "emit_bodies.h"

/* ---- <key>_kernels.h -------------------------------------------------------------------- */

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
kernel_use *bd_plan_kernels(bodies *B, int *n_out) {
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
            k->params = bd_params(B, &s->decls[0], s->fn->func);
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
                k->conflict =
                    sg_arena_printf(B->a, "its %s kernel %s is declared with the prototype of %s%s",
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

void bd_sort_names(const char **v, int n) {
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (strcmp(v[b], v[a]) < 0) {
                const char *t = v[a];
                v[a] = v[b];
                v[b] = t;
            }
}

bool bd_in_list(const char *const *v, int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0) return true;
    return false;
}

/* One header per dispatch key (<key>_kernels.h). A backend's own header
 * (cpu_kernels.h) also includes the headers of the other kernels its shims call
 * (CompositeExplicitAutograd, ...), so that it alone declares every kernel of the backend. */
void bd_emit_kernel_headers(bodies *B, const kernel_use *u, int n) {
    int cap = n + B->n_headers + 1, n_files = 0;
    const char **files = sg_arena_alloc(B->a, sizeof *files * (size_t)cap);
    if (!files) return;
    for (int i = 0; i < n; i++)
        if (u[i].declared && !bd_in_list(files, n_files, u[i].file)) files[n_files++] = u[i].file;
    for (int h = 0; h < B->n_headers; h++) {
        if (!B->headers[h].dispatch_key) continue;
        const char *f = key_file(B, B->headers[h].dispatch_key);
        if (!bd_in_list(files, n_files, f)) files[n_files++] = f;
    }
    bd_sort_names(files, n_files);
    for (int f = 0; f < n_files; f++) {
        const char *file = files[f];
        sg_buf decls = {0}, incs = {0}, out = {0};
        const char *key = NULL;
        for (int i = 0; i < n; i++) {
            if (!u[i].declared || strcmp(u[i].file, file) != 0) continue;
            key = u[i].key;
            if (decls.len) sg_buf_putc(&decls, '\n');
            bd_put(B, &decls, "kernel_decl",
                   SLOTS({"op", u[i].shim->op->key, 0},
                         {"schema", sg_text_comment_safe(B->a, sg_text_schema(B->a, u[i].shim->fn)),
                          0},
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
            const char **used = bd_used_files(B, hd, u, n, &n_used);
            for (int k = 0; used && k < n_used; k++)
                if (strcmp(used[k], file) != 0 && !bd_in_list(inc, n_inc, used[k]) && n_inc < 64)
                    inc[n_inc++] = used[k];
        }
        for (int k = 0; k < n_inc; k++) {
            sg_buf_puts(&incs, bd_join_sep(&incs));
            bd_put(B, &incs, "include", SLOTS({"file", inc[k], 0}));
        }
        if (!decls.len) bd_put(B, &decls, "no_kernels", SLOTS({"key", key ? key : "", 0}));
        bd_put(B, &out, n_inc ? "kernels_h_backend" : "kernels_h",
               SLOTS({"file", file, 0}, {"key", key ? key : "", 0},
                     {"generator", "shimgen " SHIMGEN_VERSION, 0}, {"inputs", B->banner, 0},
                     {"guard", sg_text_guard(B->a, file), 0}, {"includes", bd_buf_str(B, &incs), 0},
                     {"declarations", bd_buf_str(B, &decls), 0}));
        B->sink->add_file(B->sink->user, file, &out);
    }
}

const kernel_use *bd_find_use(const kernel_use *u, int n, const sg_emit_shim *s) {
    for (int i = 0; i < n; i++)
        if (u[i].shim == s) return &u[i];
    return NULL;
}

/* The kernel headers a device header's shims need, in name order (arena array). */
const char **bd_used_files(bodies *B, const sg_emit_header *h, const kernel_use *u, int n_u,
                           int *n_out) {
    const char **v = sg_arena_alloc(B->a, sizeof *v * (size_t)(h->n_shims + 1));
    int n = 0;
    if (!v) return NULL;
    for (int i = 0; i < h->n_shims; i++) {
        const kernel_use *k = bd_find_use(u, n_u, &h->shims[i]);
        if (k && !k->conflict && !bd_in_list(v, n, k->file)) v[n++] = k->file;
    }
    bd_sort_names(v, n);
    *n_out = n;
    return v;
}

/* gen/emit_kernels.c: <key>_kernels.h, the prototype of every kernel the generated shims
 * call (docs/kernels.md), one header per dispatch key (emit_gen.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shimrt/codes.h>

#include "emit_gen.h"

/* ---- <key>_kernels.h -------------------------------------------------------------------- */

/* One header per dispatch key (<key>_kernels.h). A backend's own header
 * (cpu_kernels.h) also includes the headers of the other kernels its shims call
 * (CompositeExplicitAutograd, ...), so that it alone declares every kernel of the backend. */
void em_render_kernel_headers(emitter *e) {
    const kernel_use *u = e->uses;
    int n = e->n_uses;
    int cap = n + e->n_headers + 1, n_files = 0;
    const char **files = sg_arena_alloc(e->a, sizeof *files * (size_t)cap);
    if (!files) return;
    for (int i = 0; i < n; i++)
        if (u[i].declared && !em_in_list(files, n_files, u[i].file)) files[n_files++] = u[i].file;
    for (int h = 0; h < e->n_headers; h++) {
        if (!e->headers[h].dispatch_key) continue;
        const char *f = em_kernel_file(e, e->headers[h].dispatch_key);
        if (!em_in_list(files, n_files, f)) files[n_files++] = f;
    }
    em_sort_names(files, n_files);
    for (int f = 0; f < n_files; f++) {
        const char *file = files[f];
        sg_buf decls = {0}, incs = {0}, out = {0};
        const char *key = NULL;
        for (int i = 0; i < n; i++) {
            if (!u[i].declared || strcmp(u[i].file, file) != 0) continue;
            key = u[i].key;
            if (decls.len) sg_buf_putc(&decls, '\n');
            em_put(e, e->tpl_bodies, &decls, "kernel_decl",
                   SLOTS({"op", u[i].shim->op->key, 0},
                         {"schema", sg_text_comment_safe(e->a, sg_text_schema(e->a, u[i].shim->fn)),
                          0},
                         {"key", u[i].key, 0}, {"kernel", u[i].shim->kernel, 0},
                         {"params", u[i].params, 0}));
        }
        const char *inc[64];
        int n_inc = 0;
        for (int h = 0; h < e->n_headers; h++) {
            const sg_emit_header *hd = &e->headers[h];
            if (!hd->dispatch_key || strcmp(em_kernel_file(e, hd->dispatch_key), file) != 0)
                continue;
            key = hd->dispatch_key;
            int n_used = 0;
            const char **used = em_used_files(e, hd, &n_used);
            for (int k = 0; used && k < n_used; k++)
                if (strcmp(used[k], file) != 0 && !em_in_list(inc, n_inc, used[k]) && n_inc < 64)
                    inc[n_inc++] = used[k];
        }
        for (int k = 0; k < n_inc; k++) {
            sg_buf_puts(&incs, em_join_sep(&incs));
            em_put(e, e->tpl_bodies, &incs, "include", SLOTS({"file", inc[k], 0}));
        }
        if (!decls.len)
            em_put(e, e->tpl_bodies, &decls, "no_kernels", SLOTS({"key", key ? key : "", 0}));
        em_put(e, e->tpl_bodies, &out, n_inc ? "kernels_h_backend" : "kernels_h",
               SLOTS({"file", file, 0}, {"key", key ? key : "", 0},
                     {"generator", "shimgen " SHIMGEN_VERSION, 0}, {"inputs", e->banner, 0},
                     {"guard", sg_text_guard(e->a, file), 0}, {"includes", em_buf_str(e, &incs), 0},
                     {"declarations", em_buf_str(e, &decls), 0}));
        em_add_file(e, file, &out);
    }
}

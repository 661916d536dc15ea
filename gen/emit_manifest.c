/* gen/emit_manifest.c: shim_manifest.json, every emitted function with its backend, op,
 * schema, version, since, kernel and parameters, rendered from the sections of
 * templates/manifest.in (values JSON-escaped). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_gen.h"

/* A JSON string (section string) of s, escaped. */
static void render_json_string(emitter *e, sg_buf *out, const char *s) {
    em_put(e, e->tpl_manifest, out, "string", SLOTS({"value", sg_text_json(e->a, s), 0}));
}

/* A JSON list's items: the strings, ", " between them. */
static const char *json_strings(emitter *e, const char *const *v, int n, bool basename) {
    sg_buf b = {0};
    for (int i = 0; i < n; i++) {
        if (i) sg_buf_put(&b, ", ", 2);
        const char *slash = basename ? strrchr(v[i], '/') : NULL;
        render_json_string(e, &b, slash ? slash + 1 : v[i]);
    }
    if (!b.len || b.oom) {
        sg_buf_free(&b);
        return "";
    }
    const char *s = sg_buf_to_arena(&b, e->a);
    return s ? s : "";
}

void em_render_manifest(emitter *e) {
    sg_buf funcs = {0}, out = {0};
    int n_names = (int)e->m->n_inputs + e->n_headers + e->n_files;
    const char **names = sg_arena_alloc(e->a, sizeof *names * (size_t)(n_names + 1));
    if (!names) {
        e->errors++;
        return;
    }
    const char **inputs = names, **headers = names + e->m->n_inputs,
               **files = headers + e->n_headers;
    for (size_t i = 0; i < e->m->n_inputs; i++) inputs[i] = e->m->inputs[i].recorded;
    for (int i = 0; i < e->n_headers; i++) headers[i] = e->headers[i].file;
    for (int i = 0; i < e->n_files; i++) files[i] = e->files[i].path;
    for (int hi = 0; hi < e->n_headers; hi++) {
        const sg_emit_header *h = &e->headers[hi];
        for (int i = 0; i < h->n_shims; i++) {
            const sg_emit_shim *s = &h->shims[i];
            sg_buf kernel = {0};
            if (s->kernel)
                em_put(e, e->tpl_manifest, &kernel, "kernel",
                       SLOTS({"dispatch_key", sg_text_json(e->a, s->kernel_key), 0},
                             {"name", sg_text_json(e->a, s->kernel), 0}));
            else
                sg_buf_puts(&kernel, "null");
            const char *schema = sg_text_json(e->a, sg_text_schema(e->a, s->fn));
            for (int d = 0; d < s->n_decls; d++) {
                const sg_emit_decl *dc = &s->decls[d];
                sg_buf params = {0};
                for (int p = 0; p < dc->n_params; p++) {
                    if (p) sg_buf_put(&params, ", ", 2);
                    em_put(e, e->tpl_manifest, &params, "param",
                           SLOTS({"name", dc->params[p].name, 0}, {"type", dc->params[p].type, 0}));
                }
                char version[16];
                snprintf(version, sizeof version, "%d", dc->version);
                sg_buf since = {0};
                if (dc->since)
                    render_json_string(e, &since, dc->since);
                else
                    sg_buf_puts(&since, "null");
                if (funcs.len) sg_buf_put(&funcs, ",\n", 2);
                em_put(e, e->tpl_manifest, &funcs, "function",
                       SLOTS({"name", dc->c_name, 0}, {"backend", h->backend, 0},
                             {"header", h->file, 0}, {"op", sg_text_json(e->a, s->op->key), 0},
                             {"schema", schema, 0}, {"version", version, 0},
                             {"since", since.data ? since.data : "", since.len},
                             {"kernel", kernel.data ? kernel.data : "", kernel.len},
                             {"params", params.data ? params.data : "", params.len}));
                sg_buf_free(&params);
                sg_buf_free(&since);
            }
            sg_buf_free(&kernel);
        }
    }
    /* "backend_fallback": per backend, the listed ops it has no kernel for: every backend
     * beside a listed cpu one has its entry, an empty list when it runs every op itself */
    bool has_cpu = false;
    for (int hi = 0; hi < e->n_headers; hi++)
        has_cpu |= e->headers[hi].dispatch_key && !strcmp(e->headers[hi].dispatch_key, "CPU");
    sg_buf fb = {0};
    for (int hi = 0; hi < e->n_headers; hi++) {
        const sg_emit_header *h = &e->headers[hi];
        bool device = has_cpu && h->dispatch_key && strcmp(h->dispatch_key, "CPU") != 0;
        if (!h->n_fallback_ops && !device) continue;
        if (fb.len) sg_buf_put(&fb, ",\n", 2);
        sg_buf_puts(&fb, "    ");
        render_json_string(e, &fb, h->backend);
        sg_buf_puts(&fb, ": [");
        sg_buf_puts(&fb, json_strings(e, h->fallback_ops, h->n_fallback_ops, false));
        sg_buf_puts(&fb, "]");
    }
    em_put(e, e->tpl_manifest, &out, "shim_manifest",
           SLOTS({"generator", "shimgen " SHIMGEN_VERSION, 0},
                 {"inputs", json_strings(e, inputs, (int)e->m->n_inputs, false), 0},
                 {"headers", json_strings(e, headers, e->n_headers, false), 0},
                 {"files", json_strings(e, files, e->n_files, true), 0},
                 {"registrations", e->registrations.data ? e->registrations.data : "",
                  e->registrations.len},
                 {"backend_fallback", fb.data ? fb.data : "", fb.len},
                 {"functions", funcs.data ? funcs.data : "", funcs.len}));
    sg_buf_free(&fb);
    sg_buf_free(&funcs);
    em_add_file(e, "shim_manifest.json", &out);
}

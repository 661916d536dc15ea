/* gen/emit.c: sg_generate, the driver of the emitters (emit_gen.h). It reads the template
 * sets the mode needs, then runs three phases, so that nothing is written on error:
 *   1. plan    gen/emit_plan.c: for each header (one per backend, plus aten), the ops in
 *              key order, each with its kernel and its declarations (highest version first);
 *              the kernels the device headers call; every op once;
 *   2. render  each output family's entry (emit_headers.c, emit_kernels.c, emit_derived.c,
 *              emit_shims.c, emit_boxed.c, emit_aten.c, emit_torch.c, emit_manifest.c)
 *              renders its files into memory and adds them to the file list;
 *   3. output  gen/emit_out.c: --abi-check compares with old headers, --check compares
 *              with the disk, otherwise changed files are written (temporary file +
 *              rename) and the depfile.
 * The families call only the plan, gen/emit_render.c and gen/emit_pieces.c, never this file.
 * Adding an output is adding a family file and its call in phase 2.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "emit_gen.h"

#include <shimrt/codes.h>

/* The template sets, each read when the mode needs it; a set that cannot be read is an error. */
static const sg_tpl_set *load_set(emitter *e, const char *dir, const char *file) {
    char err[512];
    const sg_tpl_set *t = sg_tpl_set_load(e->a, dir, file, err, sizeof err);
    if (!t) {
        sg_diag(e->ctx, SG_DIAG_ERROR, (sg_loc){dir, 0, 0}, "%s", err);
        e->errors++;
    }
    return t;
}

/* ---- Entry point --------------------------------------------------------------------- */
static bool valid_backend(const char *s) {
    size_t n = sg_word_len(s);
    return n > 0 && s[n] == '\0';
}

static int generate(emitter *e) {
    const sg_options *o = e->o;
    const sg_model *m = e->m;
    /* Backends: lower case, known to the model, each once; `aten` is the aten header. */
    /* Without --backends: those the loaded shim_ops.yaml files declare, else the CPU and
     * CUDA device types (shimrt/codes.h's names: cpu, cuda). */
#define DEV_NAME_(N, n, c) [c] = #n,
    static const char *const dev_names[] = {SHIMRT_DEVICE_TYPES(DEV_NAME_)};
#undef DEV_NAME_
    const char *const kDefault[] = {dev_names[SHIMRT_DEV_CPU], dev_names[SHIMRT_DEV_CUDA]};
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
        e->headers[e->n_headers++] = (sg_emit_header){
            lower, key, sg_arena_printf(e->a, "c_shim_%s.h", lower), NULL, 0, NULL, 0, NULL, 0};
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
    qsort(fallback, (size_t)n_fallback, sizeof *fallback, em_cmp_op_key);
    qsort(aten, (size_t)n_aten, sizeof *aten, em_cmp_op_key);
    if (n_aten > 0)
        e->headers[e->n_headers++] =
            (sg_emit_header){"aten", NULL, "c_shim_aten.h", NULL, 0, NULL, 0, NULL, 0};
    if (e->errors) return -1;

    /* Templates. */
    const char *dir = sg_tpl_find_dir(e->a, o->templates_dir);
    if (!dir) {
        sg_diag(e->ctx, SG_DIAG_ERROR, (sg_loc){"templates", 0, 0},
                "cannot find the templates directory (set SHIMGEN_TEMPLATES or --templates)");
        return -1;
    }
    e->tpl_headers = load_set(e, dir, "headers.in");
    if (!o->compat_torchgen) {
        e->tpl_bodies = load_set(e, dir, "bodies.in");
        e->tpl_manifest = load_set(e, dir, "manifest.in");
    }
    if (o->target_torch && !o->compat_torchgen) e->tpl_torch = load_set(e, dir, "torch/torch.in");
    if (e->errors) return -1;

    /* 1. Plan (gen/emit_plan.c). */
    for (int i = 0; i < e->n_headers; i++) {
        sg_emit_header *h = &e->headers[i];
        if (h->dispatch_key)
            em_plan_header(e, h, fallback, n_fallback);
        else
            em_plan_header(e, h, aten, n_aten);
    }
    if (e->errors) return -1;
    if (!o->compat_torchgen && (em_plan_kernels(e) != 0 || em_plan_defs(e) != 0)) return -1;

    /* 2. Render: each output family, in the order of the file list. */
    if (o->compat_torchgen) {
        for (int i = 0; i < e->n_headers; i++) em_render_compat_header(e, &e->headers[i]);
    } else {
        e->banner = em_render_banner(e);
        for (int i = 0; i < e->n_headers; i++) em_render_header(e, &e->headers[i]);
        if (!e->errors) {
            em_render_kernel_headers(e);
            em_render_derived(e);
            for (int i = 0; i < e->n_headers; i++) {
                if (e->headers[i].dispatch_key) {
                    em_render_shim_c(e, &e->headers[i]);
                    em_render_boxed(e, &e->headers[i]);
                } else {
                    em_render_aten_c(e, &e->headers[i]);
                }
            }
            if (o->target_torch && !e->errors) em_render_torch(e);
        }
        em_render_manifest(e);
    }
    sg_buf_free(&e->registrations);
    if (e->errors) return -1;

    /* 3. Output (gen/emit_out.c). */
    if (o->abi_check_dir)
        return sg_out_abi_check(e->ctx, e->a, e->files, e->n_files, o->abi_check_dir, o->verbosity);
    struct stat st;
    if (stat(e->out_dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        sg_diag(e->ctx, SG_DIAG_ERROR, (sg_loc){e->out_dir, 0, 0},
                "the output directory (-o) exists and is not a directory");
        return -1;
    }
    const char **stale = NULL;
    int n_stale = 0;
    if (sg_out_stale(e->ctx, e->a, e->out_dir, e->files, e->n_files, &stale, &n_stale) != 0)
        return -1;
    if (o->check) return sg_out_check(e->ctx, e->files, e->n_files, stale, n_stale, o->verbosity);
    /* The outputs, the depfile and the stamp are written together: all or none. */
    int n_all = e->n_files + (o->depfile != NULL) + (o->stamp != NULL);
    sg_out_file *all = sg_arena_alloc(e->a, sizeof *all * (size_t)n_all);
    const char **paths = sg_arena_alloc(e->a, sizeof *paths * (size_t)(n_all + n_stale));
    if (!all || !paths) return -1;
    memcpy(all, e->files, sizeof *all * (size_t)e->n_files);
    int k = e->n_files;
    if (o->depfile) {
        /* Every output (or the stamp) depends on every input, template and template set. */
        int cap = (int)e->m->n_inputs + 4, n = 0;
        const char **deps = sg_arena_alloc(e->a, sizeof *deps * (size_t)(cap ? cap : 1));
        const char **targets = sg_arena_alloc(e->a, sizeof *targets * (size_t)(k ? k : 1));
        if (!deps || !targets) return -1;
        for (size_t i = 0; i < e->m->n_inputs; i++) deps[n++] = e->m->inputs[i].path;
        const sg_tpl_set *sets[] = {e->tpl_headers, e->tpl_manifest, e->tpl_bodies, e->tpl_torch};
        for (size_t i = 0; i < sizeof sets / sizeof *sets; i++)
            if (sg_tpl_set_path(sets[i])) deps[n++] = sg_tpl_set_path(sets[i]);
        for (int i = 0; i < e->n_files; i++) targets[i] = e->files[i].path;
        if (o->stamp) targets[0] = o->stamp;
        memset(&all[k], 0, sizeof all[k]);
        all[k].path = o->depfile;
        all[k].data =
            sg_out_depfile_text(e->a, targets, o->stamp ? 1 : e->n_files, deps, n, &all[k].len);
        if (!all[k++].data) return -1;
    }
    if (o->stamp) {
        static const char kStamp[] =
            "shimgen: this file is rewritten by every successful run (--stamp)\n";
        memset(&all[k], 0, sizeof all[k]);
        all[k].path = o->stamp;
        all[k].data = kStamp;
        all[k].len = sizeof kStamp - 1;
        all[k++].always = true;
    }
    for (int i = 0; i < n_all; i++) paths[i] = all[i].path;
    for (int i = 0; i < n_stale; i++) paths[n_all + i] = stale[i];
    sg_out_clean_temps(e->a, paths, n_all + n_stale);
    int rc = sg_out_write(e->ctx, all, n_all, stale, n_stale, o->verbosity);
    sg_fs_release(all, n_all);
    return rc;
}

int sg_generate(sg_context *ctx, const sg_options *opts) {
    if (!ctx) return -1;
    sg_options defaults = {0};
    emitter e = {0};
    e.ctx = ctx;
    e.o = opts ? opts : &defaults;
    e.m = sg_context_model_mut(ctx);
    e.quiet = e.o->verbosity < 0;
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

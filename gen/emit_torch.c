/* gen/emit_torch.c: `--target=torch` (docs/target-torch.md). The generated bodies are the
 * default mode's (gen/emit_gen.h's families); this adds what lets them build against PyTorch's
 * installed libtorch alone and load with torch.ops.load_library:
 *
 *   shimrt/shimrt.h, shimrt/shim_support.h  a C view of the libtorch stable C ABI and the
 *                             helpers the bodies call (the include names of the default
 *                             mode, so that the same generated files and kernels build)
 *   shimrt/codes.h            the integer codes the bodies use, written from the X-macro
 *                             lists of runtime/include/shimrt/codes.h (one definition)
 *   shimgen_torch_support.c   those helpers on libtorch's exported functions
 *   shimgen_torch_boundary.cc a boxed kernel that failed throws (PyTorch's only failure
 *                             channel); registration at load, unregistration at unload,
 *                             shimgen_torch_register_<ns>() for static builds
 *
 * It also refuses what the target PyTorch cannot carry: `Scalar`, `Scalar?` and `Scalar[]`
 * have no StableIValue encoding up to PyTorch 2.15, Generator none before 2.13, and
 * dispatcher-routed shims of aten:: ops are libtorch's own (those of the extension's
 * namespaces call torch_call_dispatcher, shimgen_torch_support.c). Templates:
 * templates/torch/torch.in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_gen.h"

#include <shimrt/codes.h>

/* The releases this target knows: the oldest it can load on, the newest it describes. */
#define TORCH_MIN_MINOR 10
#define TORCH_MAX_MINOR 15

/* "2.10" -> 2, 10; false when malformed. */
static bool parse_version(const char *s, int *maj, int *min) {
    char *end = NULL;
    if (!s || !*s || *s < '0' || *s > '9') return false;
    long a = strtol(s, &end, 10);
    if (*end != '.' || end[1] < '0' || end[1] > '9') return false;
    long b = strtol(end + 1, &end, 10);
    if (*end != '\0' || a > 99 || b > 99) return false;
    *maj = (int)a;
    *min = (int)b;
    return true;
}

int sg_torch_check_options(const sg_options *o, int (*usage)(const char *fmt, const char *arg)) {
    int maj = 0, min = 0;
    if (o->target_torch && o->compat_torchgen)
        return usage("%s: --compat=torchgen writes headers only and takes no --target",
                     "--target=torch");
    if (o->torch_version && !o->target_torch)
        return usage("--torch-version %s needs --target=torch", o->torch_version);
    if (o->torch_version && !parse_version(o->torch_version, &maj, &min))
        return usage("bad --torch-version '%s' (expected MAJOR.MINOR, e.g. 2.10)",
                     o->torch_version);
    if (o->torch_version && (maj != 2 || min < TORCH_MIN_MINOR || min > TORCH_MAX_MINOR))
        return usage("--torch-version %s is not supported (the torch target loads on PyTorch "
                     "2.10 to 2.15)",
                     o->torch_version);
    return 0;
}

/* The X-macro lists of shimrt/codes.h, written out as the same #defines (the {{lists}} of
 * section codes_h), from the lists shimgen itself is built with. */
typedef struct code_row {
    const char *upper, *lower, *type; /* type: the kinds' fourth column, else NULL */
    int code;
} code_row;
#define CODE_ROW3_(N, n, c) {#N, #n, NULL, c},
#define CODE_ROW4_(N, n, c, t) {#N, #n, t, c},
static const code_row k_dtypes[] = {SHIMRT_DTYPES(CODE_ROW3_)};
static const code_row k_devices[] = {SHIMRT_DEVICE_TYPES(CODE_ROW3_)};
static const code_row k_layouts[] = {SHIMRT_LAYOUTS(CODE_ROW3_)};
static const code_row k_mfs[] = {SHIMRT_MEMORY_FORMATS(CODE_ROW3_)};
static const code_row k_qschemes[] = {SHIMRT_QSCHEMES(CODE_ROW3_)};
static const code_row k_reductions[] = {SHIMRT_REDUCTIONS(CODE_ROW3_)};
static const code_row k_keys[] = {SHIMRT_DISPATCH_KEYS(CODE_ROW3_)};
static const code_row k_tags[] = {SHIMRT_TAGS(CODE_ROW3_)};
static const code_row k_kinds[] = {SHIMRT_KINDS(CODE_ROW4_)};
#undef CODE_ROW3_
#undef CODE_ROW4_

static void put_code_list(sg_buf *out, const char *macro, const code_row *rows, size_t n) {
    if (out->len) sg_buf_puts(out, "\n");
    sg_buf_printf(out, "#define %s(X)", macro);
    for (size_t i = 0; i < n; i++) {
        sg_buf_printf(out, " \\\n    X(%s, %s, %d", rows[i].upper, rows[i].lower, rows[i].code);
        if (rows[i].type) sg_buf_printf(out, ", \"%s\"", rows[i].type);
        sg_buf_putc(out, ')');
    }
    sg_buf_putc(out, '\n');
}

static sg_loc arg_loc(const sg_emit_shim *s, int arg) {
    const sg_native_function *fn = s->fn;
    if (fn && fn->func_node && arg >= 0 && arg < fn->func->n_args)
        return sg_ynode_loc_at(fn->func_node, fn->func->args[arg].offset);
    if (fn && fn->func_loc.file) return fn->func_loc;
    if (fn && fn->derived_from && fn->derived_from->func_loc.file)
        return fn->derived_from->func_loc;
    return s->op->loc;
}

static void type_text(const sg_type *t, char *buf, size_t cap) { sg_type_print(t, NULL, buf, cap); }

/* Reports every argument and return that the target PyTorch cannot carry; `routed`: a
 * dispatcher-routed shim (torch_call_dispatcher). */
static void check_shim(emitter *e, int min_minor, const sg_emit_shim *s, bool routed) {
    const sg_schema *sc = s->fn->func;
    char ty[128];
    for (int a = 0; a < sc->n_args; a++) {
        const char *kind = sg_arg_kind(sc->args[a].type);
        type_text(sc->args[a].type, ty, sizeof ty);
        const char *why = NULL;
        if (!kind)
            why = "has no C form";
        else if (strstr(kind, "scalar"))
            why = "has no StableIValue encoding in the PyTorch releases --target=torch loads on "
                  "(up to 2.15); use float, int or a Tensor";
        else if (strstr(kind, "generator") && min_minor < 13)
            why = "needs PyTorch 2.13 (torch_delete_generator); use --torch-version 2.13";
        if (why) {
            sg_diag(e->ctx, SG_DIAG_ERROR, arg_loc(s, a),
                    "%s: argument '%s' of type '%s' %s (--target=torch)", s->op->key,
                    sc->args[a].name, ty, why);
            e->errors++;
        }
    }
    for (int r = 0; r < sc->n_rets; r++) {
        const char *kind = sg_ret_kind(sc->rets[r].type);
        type_text(sc->rets[r].type, ty, sizeof ty);
        const char *why = NULL;
        if (!kind)
            why = "has no C form";
        else if (strcmp(kind, "scalar") == 0)
            why = "has no StableIValue encoding in the PyTorch releases --target=torch loads on";
        else if (strcmp(kind, "generator") == 0 && min_minor < 13)
            why = "needs PyTorch 2.13; use --torch-version 2.13";
        if (why) {
            sg_diag(e->ctx, SG_DIAG_ERROR, arg_loc(s, -1),
                    "%s: return %d of type '%s' %s (--target=torch)", s->op->key, r, ty, why);
            e->errors++;
        }
    }
    /* PyTorch's torch_call_dispatcher (2.10 to 2.15) converts return r with the type of
     * return n-1-r: only a tuple whose types read the same backwards comes back right. */
    for (int r = 0; routed && r < sc->n_rets / 2; r++) {
        char other[128];
        type_text(sc->rets[r].type, ty, sizeof ty);
        type_text(sc->rets[sc->n_rets - 1 - r].type, other, sizeof other);
        if (strcmp(ty, other) == 0) continue;
        sg_diag(e->ctx, SG_DIAG_ERROR, s->op->loc,
                "%s: aten_ops: return %d ('%s') and return %d ('%s') differ: PyTorch's "
                "torch_call_dispatcher converts each return with the type of the one at the "
                "mirrored place, so a dispatcher-routed shim under --target=torch needs "
                "returns whose types read the same backwards",
                s->op->key, r, ty, sc->n_rets - 1 - r, other);
        e->errors++;
        break;
    }
}

/* One kernel to register: op `name` of namespace `ns` under `key`, boxed as `boxed`. */
typedef struct impl_row {
    const char *ns, *name, *key, *boxed, *schema, *op_key;
    const sg_native_function *fn;
} impl_row;

static int cmp_row(const void *x, const void *y) {
    const impl_row *a = x, *b = y;
    int c = strcmp(a->ns, b->ns);
    if (!c) c = strcmp(a->key, b->key);
    if (!c) c = strcmp(a->op_key, b->op_key);
    return c;
}

/* The C string literal of s (schemas hold no control characters; quotes and backslashes
 * can appear in defaults). */
static const char *c_literal(emitter *e, const char *s) {
    sg_buf b = {0};
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') sg_buf_putc(&b, '\\');
        sg_buf_putc(&b, *s);
    }
    return em_buf_str(e, &b);
}

void em_render_torch(emitter *e) {
    const sg_options *o = e->o;
    sg_arena *a = e->a;
    const sg_emit_header *headers = e->headers;
    int n_headers = e->n_headers, maj = 2, min_minor = TORCH_MIN_MINOR;
    if (o->torch_version && !parse_version(o->torch_version, &maj, &min_minor)) {
        sg_diag(e->ctx, SG_DIAG_ERROR, (sg_loc){NULL, 0, 0}, "bad --torch-version '%s'",
                o->torch_version);
        e->errors++;
        return;
    }

    /* 1. What the target cannot carry. */
    int n_rows = 0;
    for (int h = 0; h < n_headers; h++) {
        for (int i = 0; i < headers[h].n_shims; i++) {
            const sg_emit_shim *s = &headers[h].shims[i];
            if (!headers[h].dispatch_key) {
                /* docs/target-torch.md, "What the target refuses": PyTorch's own ops have
                 * PyTorch's own exported shims, an extension's ops their direct shims. */
                const char *ns = s->fn->func->ns;
                if (!ns || strcmp(ns, "aten") == 0) {
                    sg_diag(e->ctx, SG_DIAG_ERROR, s->op->loc,
                            "%s: aten_ops of aten:: ops are not part of --target=torch: an "
                            "extension must not define %s, which libtorch exports itself for "
                            "the ops PyTorch's c_shim_aten.h lists; call PyTorch's, or "
                            "torch_call_dispatcher for other aten ops",
                            s->op->key, s->decls[0].c_name);
                    e->errors++;
                } else {
                    check_shim(e, min_minor, s,
                               true); /* the extension's own op: torch_call_dispatcher */
                }
                continue;
            }
            check_shim(e, min_minor, s, false);
            n_rows++;
        }
    }
    if (e->errors) return;

    /* 2. The kernels to register: per backend header, each op's boxed kernel under the
     * dispatch key its `dispatch:` row names (an op whose kernel serves several backends,
     * CompositeExplicitAutograd, is registered once), by its boxed name (em_boxed_name). */
    impl_row *rows = sg_arena_alloc(a, sizeof *rows * (size_t)(n_rows ? n_rows : 1));
    if (!rows) {
        e->errors++;
        return;
    }
    int n = 0;
    sg_buf includes = {0};
    for (int h = 0; h < n_headers; h++) {
        const sg_emit_header *hd = &headers[h];
        if (!hd->dispatch_key || hd->n_shims == 0) continue;
        em_put(e, e->tpl_torch, &includes, "boundary_include",
               SLOTS({"file", sg_arena_printf(a, "c_boxed_%s.h", hd->backend), 0}));
        sg_buf_putc(&includes, '\n');
        for (int i = 0; i < hd->n_shims; i++) {
            const sg_emit_shim *s = &hd->shims[i];
            const char *ns = em_op_ns(e, s), *name = em_op_name(e, s->fn->func);
            bool dup = false;
            for (int k = 0; k < n && !dup; k++)
                dup = strcmp(rows[k].op_key, s->op->key) == 0 &&
                      strcmp(rows[k].key, s->kernel_key) == 0;
            if (dup) continue;
            rows[n++] = (impl_row){
                ns,         name, s->kernel_key, em_boxed_name(e, s), em_def_schema(e, s->fn),
                s->op->key, s->fn};
        }
    }
    qsort(rows, (size_t)n, sizeof *rows, cmp_row);

    /* 3. Per namespace: its schemas (each op once) and its kernels. */
    sg_buf namespaces = {0};
    for (int k = 0; k < n;) {
        const char *ns = rows[k].ns;
        int end = k;
        while (end < n && strcmp(rows[end].ns, ns) == 0) end++;
        sg_buf schemas = {0}, impls = {0};
        int n_schemas = 0;
        /* schemas in op-key order, each once */
        const char *last = NULL;
        for (;;) {
            const impl_row *next = NULL;
            for (int q = k; q < end; q++)
                if ((!last || strcmp(rows[q].op_key, last) > 0) &&
                    (!next || strcmp(rows[q].op_key, next->op_key) < 0))
                    next = &rows[q];
            if (!next) break;
            if (schemas.len) sg_buf_putc(&schemas, '\n');
            /* The tags shimrt/codes.h knows, as SHIMRT_TAG_BIT(CORE) | ... (0: none); the
             * support maps each bit to its torch_tag_<name>() code. */
            sg_buf tags = {0};
            for (size_t t = 0; t < sizeof k_tags / sizeof *k_tags; t++)
                for (int i = 0; i < next->fn->n_tags; i++)
                    if (strcmp(next->fn->tags[i], k_tags[t].lower) == 0) {
                        sg_buf_printf(&tags, "%sSHIMRT_TAG_BIT(%s)", tags.len ? " | " : "",
                                      k_tags[t].upper);
                        break;
                    }
            const char *tags_lit = tags.len ? em_buf_str(e, &tags) : "0";
            if (!tags.len) sg_buf_free(&tags);
            em_put(e, e->tpl_torch, &schemas, "boundary_schema",
                   SLOTS({"schema", c_literal(e, next->schema), 0}, {"tags", tags_lit, 0}));
            n_schemas++;
            last = next->op_key;
        }
        for (int q = k; q < end; q++) {
            if (impls.len) sg_buf_putc(&impls, '\n');
            em_put(e, e->tpl_torch, &impls, "boundary_impl",
                   SLOTS({"name", c_literal(e, rows[q].name), 0}, {"key", rows[q].key, 0},
                         {"boxed", rows[q].boxed, 0}));
        }
        sg_buf_putc(&namespaces, '\n');
        em_put(e, e->tpl_torch, &namespaces, "boundary_ns",
               SLOTS({"ns", ns, 0}, {"n_schemas", sg_arena_printf(a, "%d", n_schemas), 0},
                     {"n_impls", sg_arena_printf(a, "%d", end - k), 0},
                     {"schemas", em_buf_str(e, &schemas), 0}, {"impls", em_buf_str(e, &impls), 0}));
        k = end;
    }

    /* 4. The files. */
    const sg_slot common[] = {
        {"generator", "shimgen " SHIMGEN_VERSION, 0},
        {"inputs", e->banner, 0},
        {"min_major", sg_arena_printf(a, "%d", maj), 0},
        {"min_minor", sg_arena_printf(a, "%d", min_minor), 0},
    };
    const int n_common = (int)(sizeof common / sizeof *common);
    sg_buf lists = {0};
#define LIST_(macro, rows) put_code_list(&lists, macro, rows, sizeof rows / sizeof *rows)
    LIST_("SHIMRT_DTYPES", k_dtypes);
    LIST_("SHIMRT_DEVICE_TYPES", k_devices);
    LIST_("SHIMRT_LAYOUTS", k_layouts);
    LIST_("SHIMRT_MEMORY_FORMATS", k_mfs);
    LIST_("SHIMRT_QSCHEMES", k_qschemes);
    LIST_("SHIMRT_REDUCTIONS", k_reductions);
    LIST_("SHIMRT_DISPATCH_KEYS", k_keys);
    LIST_("SHIMRT_TAGS", k_tags);
    LIST_("SHIMRT_KINDS", k_kinds);
#undef LIST_
    if (lists.len && lists.data[lists.len - 1] == '\n') lists.len--;
    const sg_slot codes_slots[] = {
        common[0],
        common[1],
        {"lists", em_buf_str(e, &lists), 0},
    };
    {
        sg_buf out = {0};
        em_put(e, e->tpl_torch, &out, "codes_h", codes_slots,
               (int)(sizeof codes_slots / sizeof *codes_slots));
        sg_buf_putc(&out, '\n');
        if (!e->errors) em_add_file(e, "shimrt/codes.h", &out);
        sg_buf_free(&out);
    }
    static const struct {
        const char *section, *file;
    } files[] = {{"shimrt_h", "shimrt/shimrt.h"},
                 {"shim_support_h", "shimrt/shim_support.h"},
                 {"support_c", "shimgen_torch_support.c"}};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        sg_buf out = {0};
        em_put(e, e->tpl_torch, &out, files[f].section, common, n_common);
        sg_buf_putc(&out, '\n');
        if (!e->errors) em_add_file(e, files[f].file, &out);
        sg_buf_free(&out);
    }
    /* The C++ banner: the same input lines, as // comments. */
    sg_buf cc_inputs = {0};
    for (const char *p = e->banner; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        const char *text = p;
        while (len && (*text == ' ' || *text == '*')) text++, len--;
        sg_buf_printf(&cc_inputs, "%s//   %.*s", cc_inputs.len ? "\n" : "", (int)len, text);
        p = eol ? eol + 1 : p + strlen(p);
    }
    const sg_slot cc_slots[] = {
        {"generator", "shimgen " SHIMGEN_VERSION, 0},
        {"inputs", em_buf_str(e, &cc_inputs), 0},
        {"includes", em_buf_str(e, &includes), 0},
        {"namespaces", em_buf_str(e, &namespaces), 0},
    };
    sg_buf cc = {0};
    em_put(e, e->tpl_torch, &cc, "boundary_cc", cc_slots,
           (int)(sizeof cc_slots / sizeof *cc_slots));
    sg_buf_putc(&cc, '\n');
    if (!e->errors) em_add_file(e, "shimgen_torch_boundary.cc", &cc);
    sg_buf_free(&cc);
}

/* fuzz/fuzz_dispatch.c: random stacks through torch_call_dispatcher for every registered
 * op. The ops are those of generated/shim_manifest.json (shimgen's output from schemas/;
 * SHIMGEN_MANIFEST overrides the path); each input picks an op and fills its stack slot
 * by slot with live tensors of random shape and dtype, NULL, garbage and stale handles,
 * values of the wrong kind (an int where a tensor is expected, a list where a Scalar is),
 * lists, strings, scalars, None and present optional cells, and too few values (the rest
 * left 0). Every call must return normally: success, or AOTI_TORCH_FAILURE with a
 * non-empty message; sanitizers catch memory errors and leaks.
 *
 * Optional cells (`T?`) are misused too (docs/stableivalue.md): a cell freed just before
 * the call, a stack address, another handle (a tensor, a list) passed as a cell, and wild
 * values (small, misaligned, beyond user space); each must be refused with a message and
 * the call's other arguments released (docs/runtime-api.md, "Ownership"). Not generated:
 * heap memory of the caller's as a cell, which the runtime cannot tell from an extension's
 * `new StableIValue` (headers targeting PyTorch < 2.13) without reading it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shimrt/shimrt.h>

#include "schema.h"

typedef struct {
    char name[96], overload[64];
    const sg_schema *schema;
} fz_op;

/* A request the machine cannot meet (a handle read as a size asks for terabytes) must come
 * back as NULL from the allocator, as it does without ASan, so that the runtime's "not enough
 * memory" error is what the harness sees; ASan's default is to abort. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

static fz_op *g_ops;
static size_t g_nops;
static sg_arena *g_arena;
static AtenTensorHandle g_stale[4];

typedef struct {
    const uint8_t *p;
    size_t n;
} fz_in;

static uint8_t take(fz_in *in) {
    if (!in->n) return 0;
    in->n--;
    return *in->p++;
}

/* One large value per input at most: sizes multiply, and two of them would ask for
 * gigabytes (a legitimate request that only tests the machine, not the runtime). */
static int g_large_used;

static int64_t take_i64(fz_in *in) {
    switch (take(in) % 8) {
    case 0: return INT64_MAX;
    case 1: return INT64_MIN;
    case 2:
        if (!g_large_used) {
            g_large_used = 1;
            return (int64_t)take(in) << 10; /* large, still quick to fill */
        }
        return (int64_t)take(in) % 14 - 4;
    default: return (int64_t)(take(in) % 14) - 4;
    }
}

/* Every handle made for one call, deleted afterwards (a handle the dispatcher already
 * freed is stale then, and deleting it fails cleanly). */
#define MAXTRACK 256
static AtenTensorHandle g_tensors[MAXTRACK];
static size_t g_nt;
static ScalarHandle g_scalars[MAXTRACK];
static size_t g_ns;
static StringHandle g_strings[MAXTRACK];
static size_t g_nstr;
static StableListHandle g_lists[MAXTRACK];
static size_t g_nl;

static AtenTensorHandle fresh_tensor(fz_in *in) {
    static const int32_t dtypes[] = {6, 7, 4, 3, 11, 0, 5, 15, 9};
    int64_t ndim = take(in) % 4, sizes[3], strides[3], n = 1;
    for (int64_t d = 0; d < ndim; d++) sizes[d] = take(in) % 4, n *= sizes[d];
    for (int64_t d = ndim - 1, acc = 1; d >= 0; d--)
        strides[d] = acc, acc *= sizes[d] ? sizes[d] : 1;
    int32_t dt = dtypes[take(in) % (sizeof dtypes / sizeof dtypes[0])];
    int32_t dev = take(in) % 8 == 0 ? aoti_torch_device_type_meta() : aoti_torch_device_type_cpu();
    AtenTensorHandle t = NULL, src = NULL;
    if (aoti_torch_empty_strided(ndim, sizes, strides, dt, dev, 0, &t)) return NULL;
    if (g_nt < MAXTRACK) g_tensors[g_nt++] = t;
    if (dev == aoti_torch_device_type_cpu() && n > 0 &&
        !aoti_torch_empty_strided(ndim, sizes, strides, aoti_torch_dtype_int64(), dev, 0, &src)) {
        int64_t *v;
        aoti_torch_get_data_ptr(src, (void **)&v);
        for (int64_t i = 0; i < n; i++) v[i] = (int64_t)(take(in) % 9) - 3;
        aoti_torch_copy_(t, src, 0);
        aoti_torch_delete_tensor_object(src);
    }
    return t;
}

static StableIValue value(fz_in *in, int depth);

static StableIValue fresh_list(fz_in *in, int depth) {
    StableListHandle l = NULL;
    if (torch_new_list_reserve_size(2, &l)) return 0;
    if (g_nl < MAXTRACK) g_lists[g_nl++] = l;
    int n = take(in) % 3;
    for (int k = 0; k < n; k++) {
        StableIValue item =
            take(in) % 2 ? siv_from_tensor(fresh_tensor(in)) : siv_from_int(take_i64(in));
        if (depth < 1 && take(in) % 5 == 0) item = value(in, depth + 1);
        torch_list_push_back(l, item);
    }
    return siv_from_list(l);
}

/* One stack value of a random kind. */
static StableIValue value(fz_in *in, int depth) {
    switch (take(in) % 12) {
    case 0:
    case 1:
    case 2: return siv_from_tensor(fresh_tensor(in));
    case 3: return 0;
    case 4: { /* garbage: never a pointer into a pool slot's start by accident (odd), and
               * negative as an int (bit 63): read as a size, garbage must not ask for a
               * block that the machine could actually give (see take_i64) */
        uint64_t g = 0;
        for (int k = 0; k < 8; k++) g = (g << 8) | take(in);
        return g | 1 | (UINT64_C(1) << 63);
    }
    case 5: return siv_from_tensor(g_stale[take(in) % 4]);
    case 6: return siv_from_int(take_i64(in));
    case 7: return siv_from_double((double)take_i64(in) / 2.0);
    case 8: return fresh_list(in, depth);
    case 9: {
        ScalarHandle s = NULL;
        if (torch_new_scalar_int(take_i64(in), &s)) return 0;
        if (g_ns < MAXTRACK) g_scalars[g_ns++] = s;
        return siv_from_scalar(s);
    }
    case 10: {
        static const char *const words[] = {"constant", "sum", "mean", "amax", "reflect", ""};
        const char *w = words[take(in) % 6];
        StringHandle s = NULL;
        if (torch_new_string_handle(w, strlen(w), &s)) return 0;
        if (g_nstr < MAXTRACK) g_strings[g_nstr++] = s;
        return siv_from_string(s);
    }
    default: return siv_from_bool(take(in) & 1);
    }
}

/* A misused optional cell for choice how (0..7), or 0 for a good cell (how >= 5). */
static StableIValue bad_cell(fz_in *in, uint8_t how, StableIValue *local) {
    switch (how) {
    case 0: { /* freed just now: quarantined, reported as freed */
        StableIValue *cell = NULL;
        if (torch_new_stable_ivalue(&cell)) return 0;
        torch_delete_stable_ivalue(cell);
        return siv_from_ptr_(cell);
    }
    case 1: return siv_from_ptr_(local);              /* a stack address */
    case 2: return siv_from_tensor(fresh_tensor(in)); /* another handle as a cell */
    case 3: return fresh_list(in, 1);
    case 4: { /* wild: small, misaligned or beyond user space */
        uint64_t g = 0;
        for (int k = 0; k < 8; k++) g = (g << 8) | take(in);
        switch (take(in) % 3) {
        case 0: return g & 0xfffff;
        case 1: return g | 1;
        default: return g | (UINT64_C(1) << 63);
        }
    }
    default: return 0;
    }
}

static const char *manifest_path(void) {
    const char *p = getenv("SHIMGEN_MANIFEST");
    return p && *p ? p : "generated/shim_manifest.json";
}

/* Collects the distinct "op": "aten.name.overload" entries of the manifest. */
static void load_ops(void) {
    FILE *f = fopen(manifest_path(), "rb");
    if (!f) {
        fprintf(stderr,
                "fuzz_dispatch: cannot open %s (run from the repository root or set "
                "SHIMGEN_MANIFEST)\n",
                manifest_path());
        exit(1);
    }
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    g_arena = sg_arena_new();
    for (char *p = text; (p = strstr(p, "\"op\": \"")) != NULL;) {
        p += 7;
        char *end = strchr(p, '"');
        if (!end) break;
        char full[200];
        snprintf(full, sizeof full, "%.*s", (int)(end - p), p);
        p = end;
        char *dot1 = strchr(full, '.'), *dot2 = strrchr(full, '.');
        if (!dot1 || dot1 == dot2) continue;
        fz_op op;
        snprintf(op.name, sizeof op.name, "%.*s::%.*s", (int)(dot1 - full), full,
                 (int)(dot2 - dot1 - 1), dot1 + 1);
        snprintf(op.overload, sizeof op.overload, "%s",
                 strcmp(dot2 + 1, "default") ? dot2 + 1 : "");
        bool dup = false;
        for (size_t k = 0; k < g_nops; k++)
            dup |= !strcmp(g_ops[k].name, op.name) && !strcmp(g_ops[k].overload, op.overload);
        if (dup) continue;
        ShimrtOpHandle h;
        const char *text_schema;
        if (shimrt_op_find(op.name, op.overload, &h) || shimrt_op_schema(h, &text_schema)) {
            fprintf(stderr, "fuzz_dispatch: %s.%s is in the manifest but not registered: %s\n",
                    op.name, op.overload, torch_exception_get_what());
            exit(1);
        }
        sg_schema_error err;
        op.schema = sg_schema_parse_library(g_arena, text_schema, strlen(text_schema), &err);
        if (!op.schema) continue;
        g_ops = realloc(g_ops, (g_nops + 1) * sizeof *g_ops);
        g_ops[g_nops++] = op;
    }
    if (g_nops == 0) {
        fprintf(stderr, "fuzz_dispatch: no ops in %s\n", manifest_path());
        exit(1);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    load_ops();
    for (int k = 0; k < 4; k++) { /* stale handles: made and freed once */
        int64_t s[1] = {2}, st[1] = {1};
        aoti_torch_empty_strided(1, s, st, aoti_torch_dtype_float32(), 0, 0, &g_stale[k]);
        aoti_torch_delete_tensor_object(g_stale[k]);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    const fz_op *op = &g_ops[take(&in) % g_nops];
    const sg_schema *s = op->schema;
    int n = s->n_args > s->n_rets ? s->n_args : s->n_rets;
    StableIValue stack[64] = {0};
    StableIValue local_cells[64] = {0}; /* stack addresses, passed as cells */
    if (n > 64) return 0;
    int filled = take(&in) % 8 == 0 ? take(&in) % (s->n_args + 1) : s->n_args; /* too few */
    g_nt = g_ns = g_nstr = g_nl = 0;
    g_large_used = 0;
    for (int i = 0; i < filled; i++) {
        if (s->args[i].type->kind == SG_TY_OPTIONAL) {
            uint8_t how = take(&in) % 12;
            if (how < 4) continue; /* None */
            stack[i] = bad_cell(&in, how - 4, &local_cells[i]);
            if (stack[i]) continue;
            StableIValue *cell = NULL;
            if (torch_new_stable_ivalue(&cell)) continue;
            *cell = value(&in, 0);
            stack[i] = siv_from_ptr_(cell);
        } else {
            stack[i] = value(&in, 0);
        }
    }
    AOTITorchError rc = torch_call_dispatcher(op->name, op->overload, stack, TORCH_ABI_VERSION);
    if (rc == AOTI_TORCH_SUCCESS) {
        for (int r = 0; r < s->n_rets; r++) {
            char type[64];
            sg_type_print(s->rets[r].type, NULL, type, sizeof type);
            shimrt_siv_release(type, stack[r]);
        }
    } else if (!torch_exception_get_what()[0]) {
        fprintf(stderr, "fuzz_dispatch: %s.%s failed without a message\n", op->name, op->overload);
        abort();
    }
    /* What the dispatcher did not take (values of the wrong kind) is ours to free; a
     * handle it took is stale by now and its delete fails cleanly. */
    for (size_t k = 0; k < g_nl; k++) torch_delete_list(g_lists[k]);
    for (size_t k = 0; k < g_nt; k++) aoti_torch_delete_tensor_object(g_tensors[k]);
    for (size_t k = 0; k < g_ns; k++) torch_delete_scalar(g_scalars[k]);
    for (size_t k = 0; k < g_nstr; k++) torch_delete_string(g_strings[k]);
    return 0;
}

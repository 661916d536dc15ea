/* fuzz/diff/diff_client.c: the differential fuzzer's client (docs/difffuzz.md).
 *
 * One object file, linked twice: against libshimrt (build/diff/diff_shimrt) and against
 * PyTorch 2.15's libtorch_cpu.so + libc10.so (linked by tests/torch/diff_fuzz.sh). It uses
 * only C functions both libraries export (aoti_torch_*, torch_*); the per-op shims are
 * looked up with dlsym, so a shim one library lacks is recorded as missing, not a link
 * error.
 *
 *   diff_client run MANIFEST SEED COUNT OUT   random calls, one record block per call
 *   diff_client compare OURS TORCH ALLOWLIST  compares two record files (no library call)
 *
 * The call table is generated/shim_manifest.json (shimgen's output): every aoti_torch_cpu_*
 * and aoti_torch_aten_* shim (C-shim path, called through libffi from the manifest's
 * parameter list) and every op once through torch_call_dispatcher (a StableIValue stack
 * built from the schema, parsed with shimgen's own schema parser). The arguments are drawn
 * from the schema's types (and a few names: dim, index, size, reduce, ...); the draws of call
 * k depend only on (SEED, k), never on what a library returned, so both runs make the same
 * calls. Every call is recorded: success or failure, every returned tensor and every input
 * tensor after the call (dtype, sizes, strides, storage offset, which input buffer it points
 * into and where, and its elements' bytes in logical order). A call that kills the process
 * (signal, or 20 s without returning) is recorded as a crash and the run goes on. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <ffi.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <shimrt/shimrt.h>

#include "schema.h"

/* ---------------------------------------------------------------- the call table */

#define MAXP 24
typedef struct {
    char fn[128];      /* the shim's name; "" for the dispatcher path */
    char op[128];      /* "aten.sort.stable" */
    char name[96];     /* "aten::sort" */
    char overload[64]; /* "stable" ("" for default) */
    char path;         /* 'c' aoti_torch_cpu_*, 'a' aoti_torch_aten_*, 'd' dispatcher */
    const sg_schema *s;
    int np;
    char pname[MAXP][48];
    char ptype[MAXP][32];
    bool dispatchable; /* 'd': every argument has a StableIValue encoding in PyTorch 2.15 */
} entry;

static entry *g_e;
static int g_ne;
static sg_arena *g_arena;

/* Reads a JSON string at p (just after the opening quote) into buf; returns past the end. */
static const char *json_str(const char *p, char *buf, size_t cap) {
    size_t n = 0;
    while (*p && *p != '"') {
        char c = *p++;
        if (c == '\\' && *p) {
            c = *p++;
            if (c == 'n')
                c = '\n';
            else if (c == 't')
                c = '\t';
        }
        if (n + 1 < cap) buf[n++] = c;
    }
    buf[n] = '\0';
    return *p ? p + 1 : p;
}

/* The value of "key": "..." at or after p, before limit; NULL when absent. */
static const char *json_field(const char *p, const char *limit, const char *key, char *buf,
                              size_t cap) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": \"", key);
    const char *q = strstr(p, pat);
    if (!q || (limit && q >= limit)) return NULL;
    return json_str(q + strlen(pat), buf, cap);
}

static bool type_dispatchable(const sg_type *t) {
    /* Tensor?[] (index, index_put): no argument of that type is drawn yet, and PyTorch 2.15
     * dies on the stack the client would build */
    if (t->kind == SG_TY_LIST && t->elem->kind == SG_TY_OPTIONAL) return false;
    if (t->kind != SG_TY_BASE) return type_dispatchable(t->elem);
    return t->base != SG_BT_SCALAR; /* PyTorch 2.15 has no ScalarHandle */
}

/* Only these entries ("c aten.abs.default", "d aten.abs.default") when a filter is given:
 * the shims and ops both libraries have (diff_fuzz.sh makes it from both `list`s). */
static char *g_only;
/* Ops PyTorch 2.15 itself dies on (SIGSEGV) with the arguments the client draws, whatever
 * ours does: not called on either side (tests/dropin/aoti_oracle.py compares them).
 * mkldnn_rnn_layer: PyTorch builds oneDNN's LSTM whatever `mode` says and crashes on
 * another mode; ours refuses it. _fft_r2c/_fft_c2c: PyTorch's kernel reads out of bounds on
 * dims out of range or repeated (docs/engine.md). _dyn_quant_matmul_4bit: PyTorch reads the
 * input as contiguous K columns whatever its shape and strides (docs/dropin.md);
 * _dyn_quant_pack_4bit_weight divides by a block_size of 0. fractional_max_pool2d/3d_backward:
 * PyTorch's kernels index with grad_output's and indices' planes unchecked (SIGSEGV); the
 * max-pooling backward ops (adaptive and with indices, 2-d and 3-d) write grad_input at the
 * indices given unchecked (a random index corrupts PyTorch's heap; libshimrt refuses it).
 * tests/dropin/aoti_oracle.py compares all of them on valid inputs. */
static const char *const g_torch_dies[] = {"aten.mkldnn_rnn_layer.default",
                                           "aten._fft_r2c.default",
                                           "aten._fft_c2c.default",
                                           "aten._dyn_quant_matmul_4bit.default",
                                           "aten._dyn_quant_pack_4bit_weight.default",
                                           "aten.fractional_max_pool2d_backward.default",
                                           "aten.fractional_max_pool3d_backward.default",
                                           "aten.adaptive_max_pool2d_backward.default",
                                           "aten.adaptive_max_pool3d_backward.default",
                                           "aten.max_pool2d_with_indices_backward.default",
                                           "aten.max_pool3d_with_indices_backward.default"};
static void add_entry(entry *e) {
    for (size_t i = 0; i < sizeof g_torch_dies / sizeof g_torch_dies[0]; i++)
        if (!strcmp(e->op, g_torch_dies[i])) return;
    if (g_only) {
        char key[160];
        snprintf(key, sizeof key, "\n%c %s\n", e->path, e->op);
        if (!strstr(g_only, key)) return;
    }
    g_e = realloc(g_e, (size_t)(g_ne + 1) * sizeof *g_e);
    if (!g_e) abort();
    g_e[g_ne++] = *e;
}

/* The random ops (PyTorch's nondeterministic_seeded ones) are left out: their values depend on
 * the generator's whole call history, which differs between the two sides as soon as one
 * call is refused on one side only. tests/torch/rng_oracle.sh compares them instead. */
static bool random_op(const char *name) { /* name: "<ns>::<op>" */
    static const char *const ops[] = {"aten::rand",           "aten::randn",
                                      "aten::randint",        "aten::randperm",
                                      "aten::rand_like",      "aten::randn_like",
                                      "aten::randint_like",   "aten::uniform_",
                                      "aten::normal_",        "aten::normal_functional",
                                      "aten::random_",        "aten::bernoulli",
                                      "aten::bernoulli_",     "aten::exponential_",
                                      "aten::native_dropout", "aten::exponential",
                                      "aten::uniform",        "aten::cauchy_",
                                      "aten::log_normal_",    "aten::geometric_",
                                      "aten::multinomial"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(name, ops[i])) return true;
    return false;
}

static void load_manifest(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "diff_client: cannot open %s\n", path);
        exit(2);
    }
    static char text[1 << 21];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    g_arena = sg_arena_new();
    const char *p = strstr(text, "\"functions\"");
    while (p && (p = strstr(p, "{\n      \"name\": \"")) != NULL) {
        const char *next = strstr(p + 1, "{\n      \"name\": \"");
        entry e;
        memset(&e, 0, sizeof e);
        char backend[16], schema[1024];
        json_field(p, next, "name", e.fn, sizeof e.fn);
        json_field(p, next, "backend", backend, sizeof backend);
        json_field(p, next, "op", e.op, sizeof e.op);
        json_field(p, next, "schema", schema, sizeof schema);
        const char *q = strstr(p, "\"params\": [");
        if (q && (!next || q < next)) {
            q += 11;
            while (e.np < MAXP && (q = json_field(q, next, "name", e.pname[e.np], 48)) != NULL) {
                if (!(q = json_field(q, next, "type", e.ptype[e.np], 32))) break;
                e.np++;
            }
        }
        p = next;
        if (strcmp(backend, "cpu") && strcmp(backend, "aten")) continue;
        sg_schema_error err;
        e.s = sg_schema_parse_library(g_arena, schema, strlen(schema), &err);
        if (!e.s) {
            fprintf(stderr, "diff_client: %s: cannot parse %s: %s\n", e.fn, schema, err.message);
            exit(2);
        }
        char *d1 = strchr(e.op, '.'), *d2 = strrchr(e.op, '.');
        if (!d1 || d1 == d2) continue;
        snprintf(e.name, sizeof e.name, "%.*s::%.*s", (int)(d1 - e.op), e.op, (int)(d2 - d1 - 1),
                 d1 + 1);
        snprintf(e.overload, sizeof e.overload, "%s", strcmp(d2 + 1, "default") ? d2 + 1 : "");
        if (random_op(e.name)) continue;
        e.path = backend[0] == 'c' ? 'c' : 'a';
        add_entry(&e);
        if (e.path == 'c') { /* the same op once through the dispatcher */
            entry d = e;
            d.fn[0] = '\0';
            d.np = 0;
            d.path = 'd';
            d.dispatchable = true;
            for (int i = 0; i < d.s->n_args; i++)
                d.dispatchable &= type_dispatchable(d.s->args[i].type);
            for (int i = 0; i < d.s->n_rets; i++)
                d.dispatchable &= type_dispatchable(d.s->rets[i].type);
            add_entry(&d);
        }
    }
    if (!g_ne) {
        fprintf(stderr, "diff_client: no functions in %s\n", path);
        exit(2);
    }
}

/* ---------------------------------------------------------------- random draws */

static uint64_t g_rng;
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static int64_t rn(int64_t n) { return n > 0 ? (int64_t)(rnd() % (uint64_t)n) : 0; }
static bool chance(int pct) { return rn(100) < pct; }

/* The dtypes drawn (c10::ScalarType codes; the same in both libraries). */
enum {
    DT_U8 = 0,
    DT_I8,
    DT_I16,
    DT_I32,
    DT_I64,
    DT_F16,
    DT_F32,
    DT_F64,
    DT_C32,
    DT_C64,
    DT_C128,
    DT_BOOL,
    DT_BF16 = 15,
    DT_U16 = 27,
    DT_U32 = 28,
    DT_U64 = 29
};
static const int32_t k_dtypes[] = {DT_F32,  DT_F32, DT_F32,  DT_F64, DT_I64, DT_I64,
                                   DT_I32,  DT_F16, DT_BF16, DT_I16, DT_I8,  DT_U8,
                                   DT_BOOL, DT_C64, DT_C128, DT_U16, DT_U32, DT_U64};
static int32_t draw_dtype(void) { return k_dtypes[rn(sizeof k_dtypes / sizeof k_dtypes[0])]; }
static int elsize(int32_t dt) {
    switch (dt) {
    case DT_U8:
    case DT_I8:
    case DT_BOOL: return 1;
    case DT_I16:
    case DT_F16:
    case DT_BF16:
    case DT_U16: return 2;
    case DT_I32:
    case DT_F32:
    case DT_U32:
    case DT_C32: return 4;
    case DT_C128: return 16;
    default: return 8;
    }
}
static bool is_floatish(int32_t dt) {
    return dt == DT_F16 || dt == DT_F32 || dt == DT_F64 || dt == DT_BF16 || dt == DT_C32 ||
           dt == DT_C64 || dt == DT_C128;
}

static double draw_double(void) {
    switch (rn(12)) {
    case 0: return NAN;
    case 1: return chance(50) ? INFINITY : -INFINITY;
    case 2: return chance(50) ? 1e300 : -3.4e38;
    case 3: return -0.0;
    case 4: return (double)(rn(2001) - 1000) / 64.0;
    case 5: return 1e-40;
    default: return (double)(rn(11) - 5);
    }
}
static int64_t draw_int_value(void) {
    switch (rn(16)) {
    case 0: return INT64_MAX;
    case 1: return INT64_MIN;
    case 2: return 255;
    case 3: return -129;
    case 4: return 65535;
    default: return rn(11) - 5;
    }
}

static uint16_t f32_to_f16_bits(float x) { /* truncating; any pattern is a valid test value */
    uint32_t b;
    memcpy(&b, &x, 4);
    uint32_t sign = (b >> 16) & 0x8000, exp = (b >> 23) & 0xff, man = b & 0x7fffff;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00);
    if (e <= 0) return (uint16_t)sign;
    return (uint16_t)(sign | (uint32_t)e << 10 | man >> 13);
}

/* Fills n elements of dtype dt at p with drawn values. */
static void fill(void *p, int64_t n, int32_t dt, bool small_ints) {
    unsigned char *b = p;
    int es = elsize(dt);
    for (int64_t i = 0; i < n; i++, b += es) {
        double d = small_ints ? (double)(rn(7) - 2) : draw_double();
        int64_t v = small_ints ? rn(7) - 2 : draw_int_value();
        float f = (float)d;
        switch (dt) {
        case DT_BOOL: b[0] = (unsigned char)rn(2); break;
        case DT_U8:
        case DT_I8: b[0] = (unsigned char)v; break;
        case DT_I16:
        case DT_U16: {
            int16_t x = (int16_t)v;
            memcpy(b, &x, 2);
            break;
        }
        case DT_I32:
        case DT_U32: {
            int32_t x = (int32_t)v;
            memcpy(b, &x, 4);
            break;
        }
        case DT_I64:
        case DT_U64: memcpy(b, &v, 8); break;
        case DT_F32: memcpy(b, &f, 4); break;
        case DT_F64: memcpy(b, &d, 8); break;
        case DT_F16: {
            uint16_t h = f32_to_f16_bits(f);
            memcpy(b, &h, 2);
            break;
        }
        case DT_BF16: {
            uint32_t u;
            memcpy(&u, &f, 4);
            uint16_t h = (uint16_t)(u >> 16);
            memcpy(b, &h, 2);
            break;
        }
        case DT_C64: {
            float c[2] = {f, (float)draw_double()};
            memcpy(b, c, 8);
            break;
        }
        case DT_C128: {
            double c[2] = {d, draw_double()};
            memcpy(b, c, 16);
            break;
        }
        default: memset(b, 0, (size_t)es);
        }
    }
}

/* ---------------------------------------------------------------- tensors of one call */

#define MAXT 64
typedef struct {
    AtenTensorHandle base, view; /* the buffer (1-d) and the view the op sees */
    char *lo;
    int64_t bytes;
} input_t;
static input_t g_in[MAXT];
static int g_nin;
static AtenTensorHandle g_owned[4 * MAXT]; /* further handles to delete after the call */
static int g_nowned;
static bool g_setup_failed;

static void own(AtenTensorHandle t) {
    if (t && g_nowned < 4 * MAXT) g_owned[g_nowned++] = t;
}

typedef struct {
    int nd;
    int64_t sz[5];
} shape_t;

/* A drawn layout over sizes sz: strides and storage offset (in elements) and the number of
 * elements the buffer needs. */
static int64_t draw_layout(const shape_t *sh, int64_t *st, int64_t *off) {
    int nd = sh->nd;
    int perm[5];
    for (int d = 0; d < nd; d++) perm[d] = d;
    int kind = (int)rn(10);
    if (kind == 1 && nd >= 2) { /* transposed: the last two dims swapped in memory */
        perm[nd - 1] = nd - 2, perm[nd - 2] = nd - 1;
    } else if (kind == 2 && nd == 4) { /* channels-last */
        perm[0] = 0, perm[1] = 2, perm[2] = 3, perm[3] = 1;
    } else if (kind == 3 && nd >= 2) { /* any permutation */
        for (int d = nd - 1; d > 0; d--) {
            int j = (int)rn(d + 1), t = perm[d];
            perm[d] = perm[j], perm[j] = t;
        }
    }
    /* perm lists dims from outermost to innermost in memory */
    int64_t acc = 1;
    int64_t gap = kind == 4 ? 2 : 1; /* every other element (a strided slice) */
    for (int k = nd - 1; k >= 0; k--) {
        int d = perm[k];
        st[d] = acc * gap;
        acc *= sh->sz[d] > 0 ? sh->sz[d] : 1;
    }
    if (kind == 5 && nd > 0) st[rn(nd)] = 0; /* expanded dim */
    *off = kind == 6 || chance(15) ? rn(5) : 0;
    int64_t need = *off + 1;
    for (int d = 0; d < nd; d++) {
        if (sh->sz[d] == 0) return *off + 1;
        need += (sh->sz[d] - 1) * st[d];
    }
    return need;
}

/* A new input tensor of shape sh and dtype dt in a drawn layout; NULL when the library
 * refuses (recorded as a setup failure). small: values in -2..4 (index-like). */
static AtenTensorHandle make_tensor(const shape_t *sh, int32_t dt, bool small) {
    int64_t st[5], off;
    int64_t need = draw_layout(sh, st, &off);
    int es = elsize(dt);
    unsigned char *vals = malloc((size_t)(need * es));
    if (!vals) abort();
    fill(vals, need, dt, small);
    if (g_setup_failed || g_nin >= MAXT) {
        free(vals);
        return NULL;
    }
    int64_t bsz[1] = {need}, bst[1] = {1};
    input_t *in = &g_in[g_nin];
    memset(in, 0, sizeof *in);
    if (aoti_torch_empty_strided(1, bsz, bst, dt, aoti_torch_device_type_cpu(), 0, &in->base)) {
        g_setup_failed = true;
        free(vals);
        return NULL;
    }
    g_nin++;
    void *data = NULL;
    aoti_torch_get_data_ptr(in->base, &data);
    in->lo = data;
    in->bytes = need * es;
    if (data) memcpy(data, vals, (size_t)(need * es));
    free(vals);
    if (aoti_torch__reinterpret_tensor(in->base, sh->nd, sh->sz, st, off, &in->view)) {
        g_setup_failed = true;
        return NULL;
    }
    return in->view;
}

/* ---------------------------------------------------------------- recording */

static FILE *g_rec;   /* the current call's block (a memory stream) */
static bool g_uninit; /* recording the results of an op that leaves them uninitialized */

/* Where a tensor's data lies: "bK+off" inside input buffer K, "new" elsewhere, "-" empty. */
static void where(void *p, int64_t numel, char *buf, size_t cap) {
    if (numel == 0 || !p) {
        snprintf(buf, cap, "-");
        return;
    }
    for (int k = 0; k < g_nin; k++)
        if ((char *)p >= g_in[k].lo && (char *)p < g_in[k].lo + g_in[k].bytes) {
            snprintf(buf, cap, "b%d+%td", k, (char *)p - g_in[k].lo);
            return;
        }
    snprintf(buf, cap, "new");
}

static void record_tensor(const char *label, AtenTensorHandle t) {
    if (!t) {
        fprintf(g_rec, "T %s null\n", label);
        return;
    }
    int32_t dt = -1;
    int64_t nd = 0, *sz = NULL, *st = NULL, off = 0;
    void *p = NULL;
    if (aoti_torch_get_dtype(t, &dt) || aoti_torch_get_dim(t, &nd) ||
        aoti_torch_get_sizes(t, &sz) || aoti_torch_get_strides(t, &st) ||
        aoti_torch_get_storage_offset(t, &off) || aoti_torch_get_data_ptr(t, &p)) {
        fprintf(g_rec, "T %s unreadable\n", label);
        return;
    }
    int64_t numel = 1;
    fprintf(g_rec, "T %s %d [", label, dt);
    for (int64_t d = 0; d < nd; d++)
        fprintf(g_rec, "%s%" PRId64, d ? "," : "", sz[d]), numel *= sz[d];
    fprintf(g_rec, "] [");
    for (int64_t d = 0; d < nd; d++) fprintf(g_rec, "%s%" PRId64, d ? "," : "", st[d]);
    char w[64];
    where(p, numel, w, sizeof w);
    fprintf(g_rec, "] %" PRId64 " %s ", off, w);
    int es = elsize(dt);
    if (numel == 0 || g_uninit) { /* no elements, or an empty*() result (values unset) */
        fprintf(g_rec, "%s\n", numel ? "(uninitialized)" : "(empty)");
        return;
    }
    if (numel > 4096 || !p) {
        fprintf(g_rec, "%s\n", p ? "(large)" : "(none)");
        return;
    }
    int64_t idx[8] = {0};
    for (int64_t i = 0; i < numel; i++) {
        int64_t o = 0;
        for (int64_t d = 0; d < nd; d++) o += idx[d] * st[d];
        const unsigned char *e = (const unsigned char *)p + o * es;
        for (int b = es - 1; b >= 0; b--) fprintf(g_rec, "%02x", e[b]); /* little-endian */
        for (int64_t d = nd - 1; d >= 0; d--) {
            if (++idx[d] < sz[d]) break;
            idx[d] = 0;
        }
    }
    fputc('\n', g_rec);
}

/* ---------------------------------------------------------------- argument values */

typedef struct {
    bool present;          /* false: None (optionals) */
    AtenTensorHandle t[8]; /* Tensor, Tensor?, Tensor[], Tensor?[] (NULL: None) */
    int nt;
    int64_t iv[8]; /* int, int[], SymInt[], bool, bool[N], codes */
    int ni;
    double d;
    double dv[8]; /* float[] (ni of them) */
    int32_t dev_type, dev_index;
    const char *str;
} argval;

static const char *base_name(const entry *e) { return e->s->name; }
static bool name_is(const entry *e, const char *n) { return !strcmp(base_name(e), n); }

/* The shape a tensor argument gets: the call's shape, broadcast variants, or another. */
static shape_t tensor_shape(const entry *e, const sg_arg *a, const shape_t *base, int k) {
    shape_t sh = *base;
    bool am = name_is(e, "addmm") || name_is(e, "_addmm_activation"); /* self, mat1, mat2 */
    bool mm = am || name_is(e, "mm") || name_is(e, "bmm") || name_is(e, "matmul");
    if (mm && !chance(10)) {
        /* the call's n, k, m, batch: from its base shape, so that its tensors agree */
        int64_t n = 1 + (base->nd > 0 ? base->sz[0] : 0) % 3,
                kk = 1 + (base->nd > 1 ? base->sz[1] : 1) % 3,
                m = 1 + (base->nd > 2 ? base->sz[2] : 2) % 3,
                b = 1 + (base->nd > 3 ? base->sz[3] : 0) % 2;
        bool batched = name_is(e, "bmm") || (name_is(e, "matmul") && chance(40));
        if (am && k == 0)
            sh.nd = 2, sh.sz[0] = chance(50) ? n : 1, sh.sz[1] = m;
        else if ((k == 0 && !am) || (k == 1 && am))
            sh.nd = 2, sh.sz[0] = n, sh.sz[1] = kk;
        else
            sh.nd = 2, sh.sz[0] = kk, sh.sz[1] = m;
        if (batched) {
            memmove(sh.sz + 1, sh.sz, 2 * sizeof sh.sz[0]);
            sh.sz[0] = b, sh.nd = 3;
        }
        (void)a;
        return sh;
    }
    int r = (int)rn(100);
    if (k > 0 && r < 20) { /* broadcast: some dims 1, maybe fewer dims */
        for (int d = 0; d < sh.nd; d++)
            if (chance(40)) sh.sz[d] = 1;
        if (sh.nd > 0 && chance(30)) {
            memmove(sh.sz, sh.sz + 1, (size_t)(sh.nd - 1) * sizeof sh.sz[0]);
            sh.nd--;
        }
    } else if (r < 28) { /* another shape */
        sh.nd = (int)rn(4);
        for (int d = 0; d < sh.nd; d++) sh.sz[d] = rn(4);
    }
    return sh;
}

static int64_t dim_of(const shape_t *s) { return s->nd; }

/* ---------------------------------------------------------------- advanced indexing */

/* index.Tensor / index_put's indices (Tensor?[]) index the call's first tensor; g_index_shape
 * is the shape their result has (PyTorch's rule: the broadcast of the index shapes, a bool
 * mask counting as its true elements, in place of the indexed dims when the indexed dims are
 * adjacent and first otherwise), so that index_put's values can be drawn to fit it. */
static shape_t g_index_shape;
static bool g_index_fits; /* the index shapes broadcast and the result has at most 5 dims */

static int64_t count_true(AtenTensorHandle t) {
    int64_t nd = 0, *sz = NULL, *st = NULL, numel = 0;
    void *p = NULL;
    if (!t || aoti_torch_get_dim(t, &nd) || aoti_torch_get_sizes(t, &sz) ||
        aoti_torch_get_strides(t, &st) || aoti_torch_get_numel(t, &numel) ||
        aoti_torch_get_data_ptr(t, &p) || numel == 0)
        return 0;
    int64_t cnt = 0, idx[5] = {0};
    for (int64_t k = 0; k < numel; k++) {
        int64_t off = 0;
        for (int64_t d = 0; d < nd; d++) off += idx[d] * st[d];
        cnt += ((unsigned char *)p)[off] != 0;
        for (int64_t d = nd - 1; d >= 0 && ++idx[d] == sz[d]; d--) idx[d] = 0;
    }
    return cnt;
}

/* Writes index values into the index tensor just made (the whole buffer): mostly in
 * [-size, size), sometimes just out of range. */
static void fill_index(int32_t dt, int64_t size) {
    input_t *in = &g_in[g_nin - 1];
    int64_t n = in->bytes / elsize(dt);
    for (int64_t k = 0; k < n; k++) {
        int64_t x = size > 0 ? rn(2 * size) - size : 0;
        if (chance(3)) x = chance(50) ? size : -size - 1;
        if (dt == DT_I64)
            memcpy(in->lo + 8 * k, &x, 8);
        else {
            int32_t y = (int32_t)x;
            memcpy(in->lo + 4 * k, &y, 4);
        }
    }
}

static void draw_indices(const shape_t *first, argval *v) {
    int nd = first->nd;
    int cnt = nd ? 1 + (int)rn(nd) : (int)rn(2);
    if (chance(4)) cnt = nd + 1; /* too many */
    shape_t ish;                 /* the int indices' shape, each taking it or a broadcast variant */
    ish.nd = (int)rn(3);
    for (int d = 0; d < ish.nd; d++) ish.sz[d] = chance(8) ? 0 : 1 + rn(3);
    shape_t b = {0, {0}}; /* the broadcast of the index shapes */
    bool fits = true;
    int pos = 0, first_adv = -1, last_adv = -1, kept[5], nkept = 0;
    for (int i = 0; i < cnt && i < 8; i++) {
        int64_t here = pos < nd ? first->sz[pos] : 1;
        shape_t sh = ish;
        int used = 1;
        int r = (int)rn(100);
        if (r < 20) { /* None: the dim is kept */
            v->t[v->nt++] = NULL;
            if (pos < nd && nkept < 5) kept[nkept++] = pos;
            pos++;
            continue;
        }
        int32_t dt = r < 80 ? DT_I64 : r < 88 ? DT_I32 : r < 97 ? DT_BOOL : DT_U8;
        if (dt == DT_BOOL || dt == DT_U8) { /* a mask over the next dims */
            used = pos < nd ? 1 + (int)rn(nd - pos) : 1;
            sh.nd = used;
            for (int d = 0; d < used; d++) sh.sz[d] = pos + d < nd ? first->sz[pos + d] : 1;
            if (chance(5)) sh.sz[0]++;
        } else {
            for (int d = 0; d < sh.nd; d++)
                if (chance(25)) sh.sz[d] = 1;
        }
        AtenTensorHandle t = make_tensor(&sh, dt, false);
        if (!t) return;
        if (dt == DT_I64 || dt == DT_I32) fill_index(dt, here);
        v->t[v->nt++] = t;
        shape_t is = sh; /* the shape this index contributes */
        if (dt == DT_BOOL || dt == DT_U8) is.nd = 1, is.sz[0] = count_true(t);
        /* broadcast b with is (aligned at the right) */
        int m = b.nd > is.nd ? b.nd : is.nd;
        shape_t o = {m, {0}};
        for (int d = 0; d < m; d++) {
            int bi = d - (m - b.nd), ii = d - (m - is.nd);
            int64_t x = bi >= 0 ? b.sz[bi] : 1, y = ii >= 0 ? is.sz[ii] : 1;
            if (x != y && x != 1 && y != 1) fits = false;
            o.sz[d] = x == 1 ? y : x;
        }
        b = o;
        if (first_adv < 0) first_adv = i;
        last_adv = i;
        pos += used;
    }
    for (int d = pos; d < nd && nkept < 5; d++) kept[nkept++] = d;
    /* adjacent advanced indices (no None between them) take their dims' place */
    bool adjacent = true;
    for (int i = first_adv; i >= 0 && i <= last_adv; i++)
        if (!v->t[i]) adjacent = false;
    shape_t res = {0, {0}};
    int nbefore = 0; /* kept dims before the advanced ones */
    if (adjacent && first_adv > 0)
        for (int k = 0; k < nkept; k++) nbefore += kept[k] < first_adv;
    for (int k = 0; k < nbefore && res.nd < 5; k++) res.sz[res.nd++] = first->sz[kept[k]];
    for (int d = 0; d < b.nd && res.nd < 5; d++) res.sz[res.nd++] = b.sz[d];
    for (int k = nbefore; k < nkept; k++) {
        if (res.nd == 5)
            fits = false;
        else
            res.sz[res.nd++] = first->sz[kept[k]];
    }
    g_index_shape = res;
    g_index_fits = fits && first_adv >= 0 && b.nd + nkept <= 5;
}

/* Draws one argument's value. first: the shape of the call's first tensor. */
static void draw_arg(const entry *e, const sg_arg *a, const sg_type *t, argval *v,
                     const shape_t *base, const shape_t *first, int *tensor_k) {
    memset(v, 0, sizeof *v);
    v->present = true;
    if (t->kind == SG_TY_OPTIONAL) {
        if (chance(a->is_out ? 0 : 35)) {
            v->present = false;
            return;
        }
        t = t->elem;
    }
    const char *n = a->name;
    int64_t nd = dim_of(first);
    if (t->kind == SG_TY_LIST) {
        const sg_type *el = t->elem;
        if (el->kind == SG_TY_OPTIONAL) { /* Tensor?[]: index.Tensor, index_put */
            draw_indices(first, v);
            (*tensor_k)++;
            return;
        }
        if (el->kind == SG_TY_BASE && el->base == SG_BT_BOOL) { /* bool[N]: output masks */
            v->ni = t->size > 0 ? t->size : (int)rn(4);
            for (int i = 0; i < v->ni; i++) v->iv[i] = chance(70);
            return;
        }
        if (el->kind == SG_TY_BASE && el->base == SG_BT_FLOAT) { /* float[]: range= */
            /* histogram's (lo, hi) pairs: one, or one per dim of histogramdd's last dim */
            int64_t pairs = name_is(e, "_histogramdd_from_bin_cts") && nd ? first->sz[nd - 1] : 1;
            v->ni = chance(85) && pairs <= 4 ? 2 * (int)pairs : (int)rn(4);
            for (int i = 0; i < v->ni; i++)
                v->dv[i] = chance(80) ? (double)(rn(9) - 4) / (chance(30) ? 4 : 1) : draw_double();
            for (int i = 0; i + 1 < v->ni && chance(80); i += 2)
                if (v->dv[i] > v->dv[i + 1]) {
                    double x = v->dv[i];
                    v->dv[i] = v->dv[i + 1], v->dv[i + 1] = x;
                }
            return;
        }
        if (!strcmp(n, "bins") && nd && chance(85)) { /* histogramdd: one per last-dim column */
            v->ni = first->sz[nd - 1] < 8 ? (int)first->sz[nd - 1] : 1;
            for (int i = 0; i < v->ni; i++) v->iv[i] = 1 + rn(5);
            return;
        }
        if (el->kind == SG_TY_BASE && el->base == SG_BT_TENSOR) {
            int cnt = 1 + (int)rn(3);
            if (name_is(e, "_foreach_mul") || name_is(e, "_foreach_mul_")) cnt = 2;
            for (int i = 0; i < cnt; i++) {
                shape_t sh = tensor_shape(e, a, base, i);
                if (chance(15)) { /* a list item of another rank */
                    sh.nd = (int)rn(4);
                    for (int d = 0; d < sh.nd; d++) sh.sz[d] = rn(4);
                }
                int32_t dt = chance(70) ? DT_F32 : draw_dtype();
                v->t[v->nt++] = make_tensor(&sh, dt, false);
            }
            (*tensor_k)++;
            return;
        }
        /* int lists */
        if (!strcmp(n, "dims")) { /* a permutation */
            v->ni = (int)nd;
            for (int i = 0; i < v->ni; i++) v->iv[i] = i;
            for (int i = v->ni - 1; i > 0; i--) {
                int j = (int)rn(i + 1);
                int64_t x = v->iv[i];
                v->iv[i] = v->iv[j], v->iv[j] = x;
            }
            if (chance(10) && v->ni) v->iv[0] = nd;
            return;
        }
        if (!strcmp(n, "dim")) {
            v->ni = (int)rn(3);
            for (int i = 0; i < v->ni; i++) v->iv[i] = rn(2 * nd + 2) - nd - 1;
            return;
        }
        if (!strcmp(n, "normalized_shape")) {
            v->ni = (int)(nd ? 1 + rn(nd < 2 ? nd : 2) : 0);
            for (int i = 0; i < v->ni; i++) v->iv[i] = first->sz[nd - v->ni + i];
            if (chance(10) && v->ni) v->iv[0]++;
            return;
        }
        if (!strcmp(n, "pad")) {
            v->ni = chance(70) ? 2 : 4;
            for (int i = 0; i < v->ni; i++) v->iv[i] = rn(4) - 1;
            return;
        }
        if ((!strcmp(n, "size") || !strcmp(n, "shape")) &&
            (name_is(e, "view") || name_is(e, "reshape")) && chance(80)) {
            int64_t numel = 1;
            for (int d = 0; d < nd; d++) numel *= first->sz[d];
            if (chance(50) && numel > 0) {
                v->ni = 2;
                v->iv[0] = -1, v->iv[1] = numel % 2 == 0 ? 2 : 1;
            } else {
                v->ni = 1, v->iv[0] = numel;
            }
            return;
        }
        v->ni = (int)rn(4);
        for (int i = 0; i < v->ni; i++) v->iv[i] = chance(5) ? -1 : rn(4);
        return;
    }
    switch (t->base) {
    case SG_BT_TENSOR: {
        bool index = !strcmp(n, "index") || !strcmp(n, "indices");
        shape_t sh = tensor_shape(e, a, base, *tensor_k);
        int32_t dt = *tensor_k == 0 || chance(30) ? draw_dtype() : DT_F32;
        bool mmlike = name_is(e, "mm") || name_is(e, "addmm") || name_is(e, "bmm") ||
                      name_is(e, "matmul") || name_is(e, "_addmm_activation");
        if (*tensor_k > 0 && chance(mmlike ? 85 : 50))
            dt = -1; /* the first tensor's dtype, set below */
        if (index) {
            dt = chance(90) ? DT_I64 : DT_I32;
            if (name_is(e, "index_select"))
                sh.nd = (int)rn(2), sh.sz[0] = rn(4);
            else if (!name_is(e, "embedding"))
                for (int d = 0; d < sh.nd; d++) sh.sz[d] = sh.sz[d] ? rn(sh.sz[d] + 1) : 0;
        }
        if (name_is(e, "index_put") && !strcmp(n, "values") && chance(85))
            dt = -1; /* self's dtype (PyTorch requires it outside the masked_fill path) */
        if (name_is(e, "index_put") && !strcmp(n, "values") && g_index_fits && chance(85)) {
            sh = g_index_shape; /* the indexed shape, or one it broadcasts from */
            if (chance(30))
                for (int d = 0; d < sh.nd; d++)
                    if (chance(50)) sh.sz[d] = 1;
            if (chance(15)) sh.nd = 0;
        }
        if (a->is_out && chance(50)) { /* an out= of another shape */
            sh.nd = (int)rn(3);
            for (int d = 0; d < sh.nd; d++) sh.sz[d] = rn(3);
        }
        if (!strcmp(n, "condition")) dt = DT_BOOL;
        if (dt == -1) dt = g_nin ? -2 : DT_F32;
        if (dt == -2) {
            int32_t d0 = DT_F32;
            aoti_torch_get_dtype(g_in[0].view ? g_in[0].view : g_in[0].base, &d0);
            dt = d0;
        }
        v->t[v->nt++] = make_tensor(&sh, dt, index);
        (*tensor_k)++;
        return;
    }
    case SG_BT_INT:
    case SG_BT_SYMINT:
        if (!strncmp(n, "dim", 3) || !strcmp(n, "start_dim") || !strcmp(n, "end_dim"))
            v->iv[0] = chance(8) ? rn(5) + nd : rn(2 * nd + 1) - nd;
        else if (!strcmp(n, "index") || !strcmp(n, "start") || !strcmp(n, "length"))
            v->iv[0] = rn(6) - 2;
        else if (!strcmp(n, "bins"))
            v->iv[0] = chance(90) ? 1 + rn(6) : rn(3) - 1;
        else if (!strcmp(n, "padding_idx"))
            v->iv[0] = chance(50) ? -1 : rn(4);
        else
            v->iv[0] = chance(80) ? rn(5) - 1 : draw_int_value();
        v->ni = 1;
        return;
    case SG_BT_FLOAT: v->d = !strcmp(n, "eps") && chance(70) ? 1e-5 : draw_double(); return;
    case SG_BT_SCALAR:
        v->d = chance(60) ? (double)(rn(7) - 2) : draw_double();
        if (chance(20)) v->d += 0.5;
        /* a product's alpha and beta stay finite and moderate: MKL's kernels order (and
         * skip) the terms of an infinite, huge or subnormal alpha in ways libshimrt
         * emulates only in part (docs/difffuzz.md, "Not covered") */
        if ((!strcmp(n, "alpha") || !strcmp(n, "beta")) &&
            (strstr(base_name(e), "mm") || strstr(base_name(e), "mv")) &&
            !(fabs(v->d) >= 1e-3 && fabs(v->d) <= 1e3))
            v->d = v->d == 0 ? v->d : (double)(rn(9) - 4) / 2;
        return;
    case SG_BT_BOOL:
        v->iv[0] = !strcmp(n, "pin_memory") ? chance(10) : rn(2);
        if (!strcmp(n, "non_blocking")) v->iv[0] = 0;
        v->ni = 1;
        return;
    case SG_BT_SCALAR_TYPE:
        v->iv[0] = draw_dtype();
        v->ni = 1;
        return;
    case SG_BT_LAYOUT: /* strided only: PyTorch makes sparse tensors, out of our scope */
        v->iv[0] = aoti_torch_layout_strided();
        v->ni = 1;
        return;
    case SG_BT_MEMORY_FORMAT: {
        int32_t f[] = {aoti_torch_memory_format_contiguous_format(),
                       aoti_torch_memory_format_channels_last(),
                       aoti_torch_memory_format_preserve_format(),
                       aoti_torch_memory_format_channels_last_3d()};
        v->iv[0] = f[rn(chance(90) ? 3 : 4)];
        v->ni = 1;
        return;
    }
    case SG_BT_DEVICE:
        v->dev_type = aoti_torch_device_type_cpu();
        v->dev_index = chance(90) ? (chance(50) ? -1 : 0) : 1;
        return;
    case SG_BT_STR: {
        static const char *reduce[] = {"sum",  "prod", "mean",     "amax",
                                       "amin", "add",  "multiply", "max"};
        static const char *mode[] = {"constant", "reflect", "replicate", "circular", "zeros"};
        v->str = !strcmp(n, "mode") ? mode[rn(5)] : reduce[rn(8)];
        return;
    }
    default: v->present = false; return;
    }
}

/* ---------------------------------------------------------------- the C-shim path */

typedef union {
    void *p;
    int64_t i64;
    int32_t i32;
    double d;
} slot;

static const sg_arg *find_arg(const entry *e, const char *pname, int *ai, int *is_len) {
    *is_len = 0;
    char nm[48];
    snprintf(nm, sizeof nm, "%s", pname);
    size_t l = strlen(nm);
    if (l > 5 && !strcmp(nm + l - 5, "_len_")) nm[l - 5] = '\0', *is_len = 1;
    if (!strcmp(nm, "device_index_")) snprintf(nm, sizeof nm, "device"), *is_len = 2;
    for (int i = 0; i < e->s->n_args; i++)
        if (!strcmp(e->s->args[i].name, nm)) {
            *ai = i;
            return &e->s->args[i];
        }
    return NULL;
}

/* The C parameter types call_shim can pass (bool[N] is `const int32_t*`, float[]? `const
 * double**`, Tensor?[] `const AtenTensorHandle**`: a pointer to each handle, NULL for None).
 * A shim with another counts as missing on both sides: `list` names it "unhandled", and a
 * run without a filter skips it. */
static bool ptype_handled(const char *pt) {
    static const char *const ok[] = {"double",
                                     "double*",
                                     "int64_t",
                                     "int64_t*",
                                     "int32_t",
                                     "int32_t*",
                                     "AtenTensorHandle",
                                     "AtenTensorHandle*",
                                     "const AtenTensorHandle*",
                                     "const char*",
                                     "const char**",
                                     "const int64_t*",
                                     "const int64_t**",
                                     "const int32_t*",
                                     "const double**",
                                     "const AtenTensorHandle**"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (!strcmp(pt, ok[i])) return true;
    return false;
}
static bool shim_handled(const entry *e) {
    for (int i = 0; i < e->np; i++) {
        const char *pn = e->pname[i];
        bool ret = !strncmp(pn, "ret", 3) && pn[3] >= '0' && pn[3] <= '9';
        if (!ret && !ptype_handled(e->ptype[i])) return false;
    }
    return true;
}

static int call_shim(const entry *e, argval *vals) {
    void *fn = dlsym(RTLD_DEFAULT, e->fn);
    if (!fn || !shim_handled(e)) return -2;
    ffi_type *types[MAXP];
    void *ptrs[MAXP];
    slot sl[MAXP];
    /* pointed-to cells: optional values, returns */
    AtenTensorHandle ret_t[8] = {0};
    AtenTensorHandle *ret_list[8] = {0};
    int64_t ret_len[8] = {0};
    int32_t ret_b[8] = {0};
    slot cell[MAXP];
    const int64_t *listp[MAXP];
    const char *strp[MAXP];
    const double *dlistp[MAXP];
    int32_t bools[MAXP][8];
    const AtenTensorHandle *optl[MAXP][8];
    memset(ret_t, 0, sizeof ret_t);
    for (int i = 0; i < e->np; i++) {
        const char *pt = e->ptype[i], *pn = e->pname[i];
        types[i] = &ffi_type_pointer;
        sl[i].i64 = 0;
        if (!strcmp(pt, "double"))
            types[i] = &ffi_type_double;
        else if (!strcmp(pt, "int64_t"))
            types[i] = &ffi_type_sint64;
        else if (!strcmp(pt, "int32_t"))
            types[i] = &ffi_type_sint32;
        ptrs[i] = &sl[i];
        if (!strncmp(pn, "ret", 3) && pn[3] >= '0' && pn[3] <= '9') {
            int r = pn[3] - '0';
            if (strstr(pn, "_len_"))
                sl[i].p = &ret_len[r];
            else if (!strcmp(pt, "AtenTensorHandle*"))
                sl[i].p = &ret_t[r];
            else if (!strcmp(pt, "AtenTensorHandle**"))
                sl[i].p = &ret_list[r];
            else
                sl[i].p = &ret_b[r];
            continue;
        }
        int ai, is_len;
        const sg_arg *a = find_arg(e, pn, &ai, &is_len);
        if (!a) {
            fprintf(stderr, "diff_client: %s: parameter %s matches no argument\n", e->fn, pn);
            exit(2);
        }
        argval *v = &vals[ai];
        const sg_type *t = a->type->kind == SG_TY_OPTIONAL ? a->type->elem : a->type;
        if (is_len == 2) {
            sl[i].i32 = v->dev_index;
        } else if (is_len) {
            sl[i].i64 = t->kind == SG_TY_LIST &&
                                (t->elem->kind == SG_TY_OPTIONAL || t->elem->base == SG_BT_TENSOR)
                            ? v->nt
                            : v->ni;
        } else if (!strcmp(pt, "AtenTensorHandle")) {
            sl[i].p = v->t[0];
        } else if (!strcmp(pt, "AtenTensorHandle*")) { /* Tensor? */
            sl[i].p = v->present ? (void *)&v->t[0] : NULL;
        } else if (!strcmp(pt, "const AtenTensorHandle*")) {
            sl[i].p = v->t;
        } else if (!strcmp(pt, "const char*")) {
            sl[i].p = (void *)v->str;
        } else if (!strcmp(pt, "const char**")) { /* str? */
            strp[i] = v->str;
            sl[i].p = v->present ? (void *)&strp[i] : NULL;
        } else if (!strcmp(pt, "const int64_t*")) {
            sl[i].p = v->iv;
        } else if (!strcmp(pt, "const int64_t**")) {
            listp[i] = v->iv;
            sl[i].p = v->present ? (void *)&listp[i] : NULL;
        } else if (!strcmp(pt, "const int32_t*")) { /* bool[N] */
            for (int k = 0; k < 8; k++) bools[i][k] = k < v->ni && v->iv[k] != 0;
            sl[i].p = bools[i];
        } else if (!strcmp(pt, "const double**")) { /* float[]? */
            dlistp[i] = v->dv;
            sl[i].p = v->present ? (void *)&dlistp[i] : NULL;
        } else if (!strcmp(pt, "const AtenTensorHandle**")) { /* Tensor?[] */
            for (int k = 0; k < v->nt; k++) optl[i][k] = v->t[k] ? &v->t[k] : NULL;
            sl[i].p = optl[i];
        } else if (!strcmp(pt, "double")) {
            sl[i].d = v->d;
        } else if (!strcmp(pt, "double*")) {
            cell[i].d = v->d;
            sl[i].p = v->present ? (void *)&cell[i].d : NULL;
        } else if (!strcmp(pt, "int64_t")) {
            sl[i].i64 = v->iv[0];
        } else if (!strcmp(pt, "int64_t*")) {
            cell[i].i64 = v->iv[0];
            sl[i].p = v->present ? (void *)&cell[i].i64 : NULL;
        } else if (!strcmp(pt, "int32_t")) {
            sl[i].i32 = t->base == SG_BT_DEVICE ? v->dev_type : (int32_t)v->iv[0];
        } else if (!strcmp(pt, "int32_t*")) {
            cell[i].i32 = t->base == SG_BT_DEVICE ? v->dev_type : (int32_t)v->iv[0];
            sl[i].p = v->present ? (void *)&cell[i].i32 : NULL;
        } else {
            fprintf(stderr, "diff_client: %s: parameter type %s not handled\n", e->fn, pt);
            exit(2);
        }
    }
    ffi_cif cif;
    if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, (unsigned)e->np, &ffi_type_sint32, types) != FFI_OK)
        abort();
    ffi_arg rc = 0;
    ffi_call(&cif, FFI_FN(fn), &rc, ptrs);
    if ((int32_t)rc != 0) return 1;
    for (int r = 0; r < e->s->n_rets; r++) {
        char label[48];
        const sg_type *t = e->s->rets[r].type;
        snprintf(label, sizeof label, "r%d", r);
        if (t->kind == SG_TY_LIST) {
            for (int64_t k = 0; k < ret_len[r]; k++) {
                snprintf(label, sizeof label, "r%d.%" PRId64, r, k);
                record_tensor(label, ret_list[r][k]);
                own(ret_list[r][k]);
            }
            free(ret_list[r]);
        } else if (t->base == SG_BT_TENSOR) {
            char pn[16]; /* out= shims return nothing of their own */
            bool has = false;
            snprintf(pn, sizeof pn, "ret%d", r);
            for (int i = 0; i < e->np; i++) has |= !strcmp(e->pname[i], pn);
            if (!has) continue;
            record_tensor(label, ret_t[r]);
            own(ret_t[r]);
        } else if (t->base == SG_BT_BOOL) {
            fprintf(g_rec, "B %s %d\n", label, ret_b[r] != 0);
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- the dispatcher path */

static StableIValue to_siv(const sg_type *t, const argval *v, int *ti) {
    switch (t->base) {
    case SG_BT_TENSOR: {
        AtenTensorHandle h = NULL;
        aoti_torch_new_tensor_handle(v->t[(*ti)++], &h);
        return (StableIValue)(uintptr_t)h;
    }
    case SG_BT_FLOAT: {
        StableIValue s = 0;
        memcpy(&s, &v->d, 8);
        return s;
    }
    case SG_BT_BOOL: return (StableIValue)(v->iv[0] != 0);
    case SG_BT_SCALAR_TYPE:
    case SG_BT_LAYOUT:
    case SG_BT_MEMORY_FORMAT: {
        int32_t c = (int32_t)v->iv[0];
        StableIValue s = 0;
        memcpy(&s, &c, 4);
        return s;
    }
    case SG_BT_DEVICE: return ((StableIValue)(uint32_t)v->dev_type << 32) | (uint32_t)v->dev_index;
    case SG_BT_STR: {
        StringHandle h = NULL;
        torch_new_string_handle(v->str, strlen(v->str), &h);
        return (StableIValue)(uintptr_t)h;
    }
    default: {
        StableIValue s = 0;
        memcpy(&s, &v->iv[0], 8);
        return s;
    }
    }
}

static StableIValue arg_siv(const sg_type *t, const argval *v) {
    if (t->kind == SG_TY_OPTIONAL) {
        if (!v->present) return 0;
        StableIValue *cell = NULL;
        torch_new_stable_ivalue(&cell);
        *cell = arg_siv(t->elem, v);
        return (StableIValue)(uintptr_t)cell;
    }
    int ti = 0;
    if (t->kind == SG_TY_LIST) {
        StableListHandle l = NULL;
        bool tens = t->elem->kind == SG_TY_BASE && t->elem->base == SG_BT_TENSOR;
        int n = tens ? v->nt : v->ni;
        torch_new_list_reserve_size(n, &l);
        for (int i = 0; i < n; i++) {
            argval one = *v;
            one.iv[0] = v->iv[i];
            one.d = v->dv[i];
            torch_list_push_back(l, to_siv(t->elem, tens ? v : &one, &ti));
        }
        return (StableIValue)(uintptr_t)l;
    }
    return to_siv(t, v, &ti);
}

static int call_dispatcher(const entry *e, argval *vals) {
    if (!e->dispatchable) return -3;
    StableIValue stack[64] = {0};
    for (int i = 0; i < e->s->n_args; i++) stack[i] = arg_siv(e->s->args[i].type, &vals[i]);
    if (torch_call_dispatcher(e->name, e->overload, stack, TORCH_ABI_VERSION)) return 1;
    for (int r = 0; r < e->s->n_rets; r++) {
        char label[48];
        const sg_type *t = e->s->rets[r].type;
        snprintf(label, sizeof label, "r%d", r);
        if (t->kind == SG_TY_LIST) {
            StableListHandle l = (StableListHandle)(uintptr_t)stack[r];
            size_t n = 0;
            torch_list_size(l, &n);
            for (size_t k = 0; k < n; k++) {
                StableIValue it = 0;
                torch_list_get_item(l, k, &it);
                snprintf(label, sizeof label, "r%d.%zu", r, k);
                record_tensor(label, (AtenTensorHandle)(uintptr_t)it);
                own((AtenTensorHandle)(uintptr_t)it);
            }
            torch_delete_list(l);
        } else if (t->base == SG_BT_TENSOR) {
            record_tensor(label, (AtenTensorHandle)(uintptr_t)stack[r]);
            own((AtenTensorHandle)(uintptr_t)stack[r]);
        } else if (t->base == SG_BT_BOOL) {
            fprintf(g_rec, "B %s %d\n", label, (int)(stack[r] & 1));
        }
    }
    return 0;
}

/* Draws PyTorch 2.15's flash attention kernels would run on past their tensors' ends or
 * divide by zero in (no check there: a SIGSEGV, SIGFPE or a corrupted heap that kills a
 * later call; libshimrt refuses them, docs/engine.md): such calls are not made, on both
 * sides (recorded as a setup failure). Forward: kvSize is value's S, query head h reads
 * key/value head h / (Hq / Hk) (Hk 0, or above Hq, divides by zero, and so do its block
 * counts when L or S is 0). Backward: the same heads and rows of key/value, grad_out/out
 * read as query, logsumexp as [B, H, L]. Both read the rows of q, k, v (grad_out, out) as
 * dense. */
static bool attention_unsafe(const entry *e, const argval *vals) {
    bool fw = name_is(e, "_scaled_dot_product_flash_attention_for_cpu");
    bool bw = name_is(e, "_scaled_dot_product_flash_attention_for_cpu_backward");
    if (!fw && !bw) return false;
    int64_t nd[6] = {0}, *sz[6] = {0};
    int nt = bw ? 6 : 3, q = bw ? 1 : 0;
    for (int i = 0; i < nt; i++)
        if (!vals[i].nt || !vals[i].t[0] || aoti_torch_get_dim(vals[i].t[0], &nd[i]) ||
            aoti_torch_get_sizes(vals[i].t[0], &sz[i]))
            return false;
    if (nd[q] != 4 || nd[q + 1] != 4 || nd[q + 2] != 4) return false;
    /* its GEMMs read each row's E elements as dense (a last dim of another stride: other
     * elements, past the end) */
    for (int i = 0; i < nt; i++) {
        int64_t *st = NULL;
        if (nd[i] == 4 && sz[i][3] > 1 && !aoti_torch_get_strides(vals[i].t[0], &st) && st[3] != 1)
            return true;
    }
    const int64_t *Q = sz[q], *K = sz[q + 1], *V = sz[q + 2];
    bool rows = Q[0] > 0 && Q[1] > 0 && Q[2] > 0;
    if (fw) {
        if (K[1] == 0 || Q[2] == 0 || V[2] == 0 || (rows && K[1] > Q[1])) return true;
        if (!rows) return false;
        int64_t top = (Q[1] - 1) / (Q[1] / K[1]);
        return K[0] < Q[0] || V[0] < Q[0] || top >= K[1] || top >= V[1] || K[2] < V[2];
    }
    if (K[1] == 0 || (rows && K[1] > Q[1])) return true;
    if (!rows || V[2] == 0) return false;
    int64_t hkv = (Q[1] - 1) / (Q[1] / K[1]) + 1;
    const int64_t need[3][4] = {
        {Q[0], hkv, V[2], 0}, {Q[0], hkv, V[2], 0}, {Q[0], Q[1], Q[2], Q[3]}};
    const int idx[5] = {2, 3, 0, 4, 5}, row[5] = {0, 1, 2, 2, 2}, dims[5] = {4, 4, 4, 4, 3};
    for (int i = 0; i < 5; i++) {
        if (nd[idx[i]] < dims[i]) return true;
        for (int d = 0; d < dims[i]; d++)
            if (sz[idx[i]][d] < need[row[i]][d]) return true;
    }
    return false;
}

/* The same for _fused_moving_avg_obs_fq_helper(_functional): PyTorch's kernel writes
 * running_min/max by raw index (data_ptr<float>()[i], strides ignored), per tensor element 0,
 * per row self.size(ch_axis) of them (a running_min without elements is first resized), and
 * reads running_max for each of running_min's elements: draws where those run past a
 * buffer's end (a corrupted heap) are not made. */
static int64_t raw_elems(AtenTensorHandle t) { /* elements from t's data to its buffer's end */
    void *p = NULL;
    int32_t dt = 0;
    aoti_torch_get_data_ptr(t, &p);
    aoti_torch_get_dtype(t, &dt);
    for (int k = 0; k < g_nin; k++)
        if (g_in[k].view == t) return p ? (g_in[k].lo + g_in[k].bytes - (char *)p) / elsize(dt) : 0;
    return 0;
}
/* The same for two backward kernels PyTorch runs unchecked (seen as SIGSEGV and glibc's
 * heap-corruption abort): _pdist_backward reads grad and pdist as n * (n - 1) / 2 distances
 * of self's n = size(0) rows of size(1) elements, whatever their sizes;
 * _adaptive_avg_pool2d/3d_backward reads grad_output as self's planes (every dim but the
 * last 2 or 3 equal to self's). */
static bool backward_unsafe(const entry *e, const argval *vals) {
    bool pd = name_is(e, "_pdist_backward");
    int sp = name_is(e, "_adaptive_avg_pool2d_backward")   ? 2
             : name_is(e, "_adaptive_avg_pool3d_backward") ? 3
                                                           : 0;
    if (!pd && !sp) return false;
    int64_t nd[4] = {0}, *sz[4] = {0}, numel[4] = {0};
    int nt = pd ? 4 : 2;
    for (int i = 0; i < nt; i++) {
        if (pd && i == 2) continue; /* p */
        if (!vals[i].nt || !vals[i].t[0] || aoti_torch_get_dim(vals[i].t[0], &nd[i]) ||
            aoti_torch_get_sizes(vals[i].t[0], &sz[i]) ||
            aoti_torch_get_numel(vals[i].t[0], &numel[i]))
            return false;
    }
    if (pd) { /* (fewer than two rows crash it as well) */
        if (nd[1] != 2 || sz[1][0] < 2) return true;
        int64_t n = sz[1][0], need = n * (n - 1) / 2;
        return numel[0] < need || numel[3] < need;
    }
    if (nd[0] != nd[1] || nd[1] < sp) return true;
    for (int64_t d = 0; d < nd[1]; d++) /* (and a self without positions: a division by 0) */
        if (d < nd[1] - sp ? sz[0][d] != sz[1][d] : sz[1][d] == 0) return true;
    return false;
}

/* _segment_reduce_backward: PyTorch's CPU kernel reads grad and output as data's shape with
 * the segment count (the last dim of offsets less one, or of lengths) along that dim, and
 * lengths/offsets' leading dims as data's, unchecked (seen as SIGSEGV): draws PyTorch takes to
 * its kernel (a known reduce, axis in range, lengths or offsets, floating data, grad and output
 * of data's dtype, int32/int64 segments) with shapes that disagree so are not made. */
static bool segment_unsafe(const entry *e, const argval *vals) {
    if (!name_is(e, "_segment_reduce_backward")) return false;
    AtenTensorHandle t[3], seg = NULL;
    int64_t nd[4] = {0}, *sz[4] = {0};
    int32_t dt[4] = {0};
    for (int i = 0; i < 3; i++)
        if (!vals[i].nt || !(t[i] = vals[i].t[0])) return false;
    for (int i = 5; i >= 4 && !seg; i--) /* PyTorch takes offsets when both are given */
        if (vals[i].present && vals[i].nt && vals[i].t[0]) seg = vals[i].t[0];
    if (!seg) return false;
    bool offs = seg == (vals[5].nt ? vals[5].t[0] : NULL);
    for (int i = 0; i < 4; i++) {
        AtenTensorHandle h = i < 3 ? t[i] : seg;
        if (aoti_torch_get_dim(h, &nd[i]) || aoti_torch_get_sizes(h, &sz[i]) ||
            aoti_torch_get_dtype(h, &dt[i]))
            return false;
    }
    const char *red = vals[3].str;
    if (!red ||
        (strcmp(red, "sum") && strcmp(red, "mean") && strcmp(red, "max") && strcmp(red, "min") &&
         strcmp(red, "prod") && strcmp(red, "amax") && strcmp(red, "amin")))
        return false;
    int64_t ax = vals[6].iv[0], dn = nd[2] ? nd[2] : 1;
    if (ax < -dn || ax >= dn) return false;
    if ((dt[2] != DT_F16 && dt[2] != DT_BF16 && dt[2] != DT_F32 && dt[2] != DT_F64) ||
        dt[0] != dt[2] || dt[1] != dt[2] || (dt[3] != DT_I32 && dt[3] != DT_I64))
        return false;
    int64_t sax = nd[3] - 1; /* the segments' dim: lengths/offsets' last */
    if (sax < 0 || sax >= nd[2]) return true;
    int64_t nseg = sz[3][sax] - (offs ? 1 : 0);
    if (nseg < 0) return true;
    for (int64_t d = 0; d < sax; d++)
        if (sz[3][d] != sz[2][d]) return true;
    for (int i = 0; i < 2; i++) {
        if (nd[i] != nd[2]) return true;
        for (int64_t d = 0; d < nd[2]; d++)
            if (sz[i][d] != (d == sax ? nseg : sz[2][d])) return true;
    }
    return false;
}

/* _embedding_bag / _embedding_bag_forward_only with 2-d indices skip PyTorch's check that
 * offsets is 1-d: offsets of 2 or more dims then crash it (SIGSEGV) or corrupt its heap
 * (glibc's "free(): invalid next size"); such draws are not made. */
static bool bag_unsafe(const entry *e, const argval *vals) {
    if (!name_is(e, "_embedding_bag") && !name_is(e, "_embedding_bag_forward_only")) return false;
    int64_t ind = 0, ond = 0;
    if (!vals[1].nt || !vals[1].t[0] || !vals[2].nt || !vals[2].t[0] ||
        aoti_torch_get_dim(vals[1].t[0], &ind) || aoti_torch_get_dim(vals[2].t[0], &ond))
        return false;
    return ind == 2 && ond >= 2;
}

/* cat.out into an out whose size-1 dims carry strides other than the contiguous ones:
 * PyTorch's serial cat kernel (taken for contiguous operands) sizes its blocks by
 * size(dim) * stride(dim), so it then copies nothing or the wrong span (seed 58: a [1, 1]
 * out with strides [2, 2] is left unwritten); such draws are not made. */
static bool cat_unsafe(const entry *e, const argval *vals) {
    if (!name_is(e, "cat") || e->s->n_args < 3 || !vals[2].nt || !vals[2].t[0]) return false;
    int64_t nd = 0, *sz = NULL, *st = NULL;
    if (aoti_torch_get_dim(vals[2].t[0], &nd) || aoti_torch_get_sizes(vals[2].t[0], &sz) ||
        aoti_torch_get_strides(vals[2].t[0], &st))
        return false;
    int64_t want = 1;
    for (int64_t d = nd - 1; d >= 0; d--) {
        if (sz[d] == 1 && st[d] != want) return true;
        want *= sz[d] > 0 ? sz[d] : 1;
    }
    return false;
}

/* avg_pool2d/3d of an integral input with divisor_override -1: PyTorch's kernel divides a
 * window's int64 sum by -1, which traps (SIGFPE) where the sum is INT64_MIN (libshimrt
 * wraps it); such draws are not made. */
static bool avgpool_unsafe(const entry *e, const argval *vals) {
    if (!name_is(e, "avg_pool2d") && !name_is(e, "avg_pool3d")) return false;
    int32_t dt;
    if (!vals[0].nt || !vals[0].t[0] || aoti_torch_get_dtype(vals[0].t[0], &dt)) return false;
    bool integral = dt == DT_U8 || dt == DT_I8 || dt == DT_I16 || dt == DT_I32 || dt == DT_I64;
    return integral && vals[6].present && vals[6].ni > 0 && vals[6].iv[0] == -1;
}

static bool fq_unsafe(const entry *e, const argval *vals) {
    if (!name_is(e, "_fused_moving_avg_obs_fq_helper") &&
        !name_is(e, "_fused_moving_avg_obs_fq_helper_functional"))
        return false;
    int64_t n[4], have[4], nd = 0, *sz = NULL;
    for (int i = 0; i < 4; i++) {
        AtenTensorHandle t = vals[3 + i].nt ? vals[3 + i].t[0] : NULL;
        if (!t || aoti_torch_get_numel(t, &n[i])) return false;
        have[i] = raw_elems(t);
    }
    if (!vals[0].nt || !vals[0].t[0] || aoti_torch_get_dim(vals[0].t[0], &nd) ||
        aoti_torch_get_sizes(vals[0].t[0], &sz))
        return false;
    bool per_row = vals[11].iv[0] != 0;
    int64_t ax = vals[10].iv[0];
    int64_t need = 1;
    if (per_row) {
        if (n[0] == 0) return false; /* resized to what is needed first */
        need = ax >= 0 && ax < nd ? sz[ax] : ax < 0 && ax >= -nd ? sz[ax + nd] : 0;
        if (need < n[0]) need = n[0];
    }
    for (int i = 0; i < 2; i++)
        if (n[i] < need || have[i] < need) return true;
    return false;
}

/* ---------------------------------------------------------------- one call */

/* pad(mode='circular') with a negative pad: PyTorch 2.15's _pad_circular copies its wrapped
 * borders from the unshrunk sizes and leaves some result elements unset (the same call
 * gives other values each time), so the results are recorded without values. */
static bool circular_shrinks(const entry *e, const argval *vals, int n) {
    if (!name_is(e, "pad")) return false;
    bool circ = false, neg = false;
    for (int i = 0; i < n; i++) {
        const char *an = e->s->args[i].name;
        if (!strcmp(an, "mode") && vals[i].present && vals[i].str)
            circ = !strcmp(vals[i].str, "circular");
        if (!strcmp(an, "pad"))
            for (int j = 0; j < vals[i].ni; j++) neg |= vals[i].iv[j] < 0;
    }
    return circ && neg;
}

static void one_call(uint64_t seed, int64_t k, FILE *out) {
    g_rng = seed * 0x100000001b3ULL ^ (uint64_t)k * 0x9e3779b97f4a7c15ULL;
    rnd();
    const entry *e = &g_e[rn(g_ne)];
    if (getenv("DIFF_TRACE"))
        fprintf(stderr, "diff_client: call %" PRId64 ": %c %s\n", k, e->path, e->op);
    char *buf = NULL;
    size_t len = 0;
    g_rec = open_memstream(&buf, &len);
    g_nin = g_nowned = 0;
    g_setup_failed = false;
    g_index_fits = false;
    shape_t base;
    base.nd = (int)(chance(10) ? 0 : 1 + rn(4));
    for (int d = 0; d < base.nd; d++) base.sz[d] = chance(6) ? 0 : 1 + rn(4);
    argval vals[32];
    int tk = 0;
    shape_t first = base;
    int n = e->s->n_args < 32 ? e->s->n_args : 32;
    for (int i = 0; i < n; i++) {
        draw_arg(e, &e->s->args[i], e->s->args[i].type, &vals[i], &base, &first, &tk);
        if (g_nin == 1 && tk == 1) { /* later dims follow the first tensor */
            int64_t nd = 0, *sz = NULL;
            if (!aoti_torch_get_dim(g_in[0].view, &nd) &&
                !aoti_torch_get_sizes(g_in[0].view, &sz)) {
                first.nd = (int)nd;
                for (int d = 0; d < nd && d < 5; d++) first.sz[d] = sz[d];
            }
        }
    }
    if (getenv("DIFF_TRACE")) /* the non-tensor arguments (tensors are in the records) */
        for (int i = 0; i < n; i++) {
            const argval *v = &vals[i];
            fprintf(stderr, "diff_client:   %s =", e->s->args[i].name);
            if (!v->present)
                fprintf(stderr, " None");
            else if (v->nt)
                fprintf(stderr, " %d tensor(s)", v->nt);
            else if (v->str)
                fprintf(stderr, " '%s'", v->str);
            else if (v->ni && e->s->args[i].type->kind != SG_TY_BASE &&
                     (e->s->args[i].type->elem->kind == SG_TY_LIST ||
                      e->s->args[i].type->kind == SG_TY_LIST) &&
                     v->dv[0] + v->dv[1] != 0)
                for (int j = 0; j < v->ni; j++) fprintf(stderr, " %.17g", v->dv[j]);
            else if (v->ni)
                for (int j = 0; j < v->ni; j++) fprintf(stderr, " %" PRId64, v->iv[j]);
            else
                fprintf(stderr, " %.17g", v->d);
            fputc('\n', stderr);
        }
    if (attention_unsafe(e, vals) || fq_unsafe(e, vals) || backward_unsafe(e, vals) ||
        segment_unsafe(e, vals) || avgpool_unsafe(e, vals) || bag_unsafe(e, vals) ||
        cat_unsafe(e, vals))
        g_setup_failed = true;
    int rc;
    /* resize_, resize_as_: the storage they grow is unset, in PyTorch too (no values to
     * compare, and reading them is an uninitialized read under valgrind) */
    bool grows = !strncmp(e->s->name, "resize", 6);
    g_uninit = grows || !strncmp(e->s->name, "empty", 5) || !strcmp(e->s->name, "new_empty") ||
               circular_shrinks(e, vals, n);
    if (g_setup_failed)
        rc = -1;
    else if (e->path == 'd')
        rc = call_dispatcher(e, vals);
    else
        rc = call_shim(e, vals);
    /* After a failure an out= may have been resized (new, unset storage) before the check
     * that failed, in PyTorch too: inputs are then compared without their values. */
    g_uninit = rc == 1 || grows;
    if (rc == 1) { /* the message, shown with a difference, never compared */
        const char *m = torch_exception_get_what();
        m = m ? m : "";
        fprintf(g_rec, "M %.*s\n", (int)(strcspn(m, "\n") < 500 ? strcspn(m, "\n") : 500), m);
    }
    static const char *const st[] = {"nodispatch", "missing", "setup", "ok", "fail"};
    for (int i = 0; i < g_nin && rc >= 0; i++) {
        char label[48];
        snprintf(label, sizeof label, "i%d", i);
        record_tensor(label, g_in[i].view);
    }
    g_uninit = false;
    fclose(g_rec);
    fprintf(out, "C %" PRId64 " %c %s %s\n%s", k, e->path, e->op, st[rc + 3], buf);
    fflush(out);
    free(buf);
    for (int i = 0; i < g_nowned; i++) aoti_torch_delete_tensor_object(g_owned[i]);
    for (int i = 0; i < g_nin; i++) {
        aoti_torch_delete_tensor_object(g_in[i].view);
        aoti_torch_delete_tensor_object(g_in[i].base);
    }
}

/* Runs calls [0, count) in a child; a call that kills it is recorded and the run resumes
 * after it. */
static int run(const char *manifest, uint64_t seed, int64_t count, const char *outpath) {
    FILE *out = fopen(outpath, "w");
    if (!out) {
        fprintf(stderr, "diff_client: cannot write %s\n", outpath);
        return 2;
    }
    int64_t next = 0;
    while (next < count) {
        int pfd[2];
        if (pipe(pfd)) return 2;
        fflush(out);
        pid_t pid = fork();
        if (pid < 0) return 2;
        if (pid == 0) {
            close(pfd[0]);
            load_manifest(manifest);
            for (int64_t k = next; k < count; k++) {
                alarm(20);
                one_call(seed, k, out);
                alarm(0);
                if (write(pfd[1], &k, sizeof k) != (ssize_t)sizeof k) _exit(3);
            }
            fclose(out);
            _exit(0);
        }
        close(pfd[1]);
        int64_t done = next - 1, v;
        while (read(pfd[0], &v, sizeof v) == (ssize_t)sizeof v) done = v;
        close(pfd[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) break;
        fseek(out, 0, SEEK_END);
        int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        fprintf(out, "C %" PRId64 " ? ? crash\nX signal %d exit %d\n", done + 1, sig,
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        fprintf(stderr, "diff_client: call %" PRId64 " (seed %" PRIu64 ") crashed: signal %d\n",
                done + 1, seed, sig);
        next = done + 2;
    }
    fclose(out);
    return 0;
}

/* ---------------------------------------------------------------- compare */

typedef struct {
    char *hdr; /* "C k path op status" */
    char **lines;
    int n;
} block;

static block *read_blocks(const char *path, int64_t *nb) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "diff_client: cannot read %s\n", path);
        exit(2);
    }
    block *b = NULL;
    int64_t n = 0, cap = 0;
    char *line = NULL;
    size_t lc = 0;
    ssize_t l;
    while ((l = getline(&line, &lc, f)) > 0) {
        if (line[l - 1] == '\n') line[l - 1] = '\0';
        if (line[0] == 'C') {
            int64_t k = strtoll(line + 2, NULL, 10);
            if (k >= cap) {
                int64_t nc = k * 2 + 64;
                b = realloc(b, (size_t)nc * sizeof *b);
                memset(b + cap, 0, (size_t)(nc - cap) * sizeof *b);
                cap = nc;
            }
            if (k + 1 > n) n = k + 1;
            free(b[k].hdr);
            b[k].hdr = strdup(line);
            b[k].n = 0;
            continue;
        }
        for (int64_t k = n - 1; k >= 0; k--) /* the latest header */
            if (b[k].hdr) {
                b[k].lines = realloc(b[k].lines, (size_t)(b[k].n + 1) * sizeof(char *));
                b[k].lines[b[k].n++] = strdup(line);
                break;
            }
    }
    free(line);
    fclose(f);
    *nb = n;
    return b;
}

static const char *field(const char *s, int i, char *buf, size_t cap) {
    for (int k = 0; k < i && s; k++) {
        s = strchr(s, ' ');
        if (s) s++;
    }
    if (!s) return buf[0] = '\0', buf;
    size_t n = strcspn(s, " ");
    if (n >= cap) n = cap - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return buf;
}

/* ordered integer of a float's bits (sign-magnitude to two's complement) */
static int64_t ord(uint64_t bits, int bitsz) {
    uint64_t sign = 1ULL << (bitsz - 1);
    return bits & sign ? -(int64_t)(bits & (sign - 1)) : (int64_t)bits;
}
static bool isnan_bits(uint64_t b, int kind) {
    switch (kind) {
    case 16: return (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
    case 17: return (b & 0x7f80) == 0x7f80 && (b & 0x7f); /* bf16 */
    case 32: return (b & 0x7f800000) == 0x7f800000 && (b & 0x7fffff);
    default:
        return (b & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL && (b & 0xfffffffffffffULL);
    }
}
/* Elementwise data compare: floats within 1 ulp and NaN == NaN, the rest exact. */
static int64_t data_diff(int32_t dt, const char *a, const char *b) {
    if (!strcmp(a, b)) return -1;
    if (strlen(a) != strlen(b)) return 0;
    if (!is_floatish(dt)) {
        int64_t hx = 2 * elsize(dt);
        for (int64_t i = 0;; i += hx)
            if (strncmp(a + i, b + i, (size_t)hx)) return i / hx;
    }
    int es = elsize(dt), part = dt == DT_C64 ? 4 : dt == DT_C128 ? 8 : es;
    int kind = dt == DT_BF16 ? 17 : part * 8;
    int hex = part * 2;
    size_t n = strlen(a);
    /* elements are printed most significant byte first; complex: imag then real */
    for (size_t i = 0; i + (size_t)hex <= n; i += (size_t)hex) {
        char x[17] = {0}, y[17] = {0};
        memcpy(x, a + i, (size_t)hex), memcpy(y, b + i, (size_t)hex);
        uint64_t u = strtoull(x, NULL, 16), v = strtoull(y, NULL, 16);
        if (u == v) continue;
        if (isnan_bits(u, kind) && isnan_bits(v, kind)) continue;
        if (isnan_bits(u, kind) || isnan_bits(v, kind)) return (int64_t)i / (2 * es);
        int64_t d = ord(u, part * 8) - ord(v, part * 8);
        if (d > 1 || d < -1) return (int64_t)i / (2 * es);
    }
    return -1;
}

/* Strides that differ only in dims of size 1, or in a tensor with no elements. */
static bool strides_degenerate(const char *line, const char *sa, const char *sb) {
    char shape[256];
    field(line, 3, shape, sizeof shape);
    int64_t sz[16], x[16], y[16];
    int n = 0, na = 0, nb = 0;
    for (const char *p = shape + 1; *p && *p != ']' && n < 16; p++) {
        sz[n++] = strtoll(p, (char **)&p, 10);
        if (*p == ']') break;
    }
    for (const char *p = sa + 1; *p && *p != ']' && na < 16; p++) {
        x[na++] = strtoll(p, (char **)&p, 10);
        if (*p == ']') break;
    }
    for (const char *p = sb + 1; *p && *p != ']' && nb < 16; p++) {
        y[nb++] = strtoll(p, (char **)&p, 10);
        if (*p == ']') break;
    }
    if (na != n || nb != n) return false;
    for (int d = 0; d < n; d++)
        if (sz[d] == 0) return true;
    for (int d = 0; d < n; d++)
        if (x[d] != y[d] && sz[d] != 1) return false;
    return true;
}

/* What is odd in the layouts of the call's inputs: 1 when one has a stride-0 dim (an
 * expanded view), 2 when one has a size-1 dim whose stride is not the contiguous one (PyTorch
 * ignores such strides), 0 otherwise. */
static int odd_layout(const block *b) {
    int odd = 0;
    for (int j = 0; j < b->n; j++) {
        if (b->lines[j][0] != 'T' || b->lines[j][2] != 'i') continue;
        char sz[256], st[256];
        field(b->lines[j], 3, sz, sizeof sz), field(b->lines[j], 4, st, sizeof st);
        int64_t size[16], stride[16];
        int n = 0;
        const char *p = sz + 1, *q = st + 1;
        while (*p && *p != ']' && *q && *q != ']' && n < 16) {
            size[n] = strtoll(p, (char **)&p, 10), stride[n] = strtoll(q, (char **)&q, 10);
            n++;
            if (*p == ',') p++;
            if (*q == ',') q++;
        }
        for (int d = 0; d < n; d++)
            if (stride[d] == 0 && size[d] >= 1) return 1;
        for (int d = 0; d < n; d++)
            if (size[d] == 1 && d + 1 < n && stride[d] != stride[d + 1] * size[d + 1]) odd = 2;
    }
    return odd;
}

/* The first difference of two blocks, as a class name; NULL when they agree. */
static const char *differ(const block *o, const block *t, char *detail, size_t cap) {
    char so[16], stt[16];
    field(o->hdr, 4, so, sizeof so), field(t->hdr, 4, stt, sizeof stt);
    detail[0] = '\0';
    if (!strcmp(so, "crash")) return "crash";
    if (!strcmp(stt, "crash")) return "torch-crash";
    if (!strcmp(stt, "missing")) return NULL; /* counted as coverage, not compared */
    if (!strcmp(so, "nodispatch")) return NULL;
    if (strcmp(so, stt)) {
        if (!strcmp(so, "setup") || !strcmp(stt, "setup")) return "setup";
        const block *fb = !strcmp(so, "fail") ? o : t;
        for (int j = 0; j < fb->n; j++)
            if (fb->lines[j][0] == 'M')
                snprintf(detail, cap, "%s: %s", fb == o ? "ours" : "torch", fb->lines[j] + 2);
        if (!strcmp(so, "fail")) return "status-refused";   /* PyTorch succeeds */
        if (!strcmp(stt, "fail")) return "status-accepted"; /* PyTorch fails */
        return "status";
    }
    int nto = 0, noo = 0;
    for (int j = 0; j < o->n; j++) noo += o->lines[j][0] != 'M';
    for (int i = 0; i < t->n; i++) {
        char lab[24], lab2[24];
        if (t->lines[i][0] == 'M') continue;
        nto++;
        field(t->lines[i], 1, lab, sizeof lab);
        const char *ol = NULL;
        for (int j = 0; j < o->n; j++)
            if (o->lines[j][0] != 'M' && !strcmp(field(o->lines[j], 1, lab2, sizeof lab2), lab))
                ol = o->lines[j];
        bool input = lab[0] == 'i';
        snprintf(detail, cap, "%s: ours {%s} torch {%s}", lab, ol ? ol : "(none)", t->lines[i]);
        if (!ol) return input ? "input-missing" : "result-missing";
        if (t->lines[i][0] == 'B') {
            if (strcmp(ol, t->lines[i])) return "value";
            continue;
        }
        static const char *const names[][2] = {{"dtype", "input-dtype"},
                                               {"shape", "input-shape"},
                                               {"strides", "input-strides"},
                                               {"offset", "input-offset"},
                                               {"alias", "input-alias"}};
        char a[8192], b[8192];
        for (int f = 2; f <= 6; f++)
            if (strcmp(field(ol, f, a, sizeof a), field(t->lines[i], f, b, sizeof b))) {
                if (f == 4 && strides_degenerate(ol, a, b))
                    return input ? "input-strides-degenerate" : "strides-degenerate";
                return names[f - 2][input];
            }
        const char *da = strrchr(ol, ' '), *db = strrchr(t->lines[i], ' ');
        char dts[16];
        int32_t dt = (int32_t)strtol(field(ol, 2, dts, sizeof dts), NULL, 10);
        int64_t bad = da && db ? data_diff(dt, da + 1, db + 1) : 0;
        if (bad >= 0) {
            int hx = 2 * elsize(dt);
            char shape[64];
            field(ol, 3, shape, sizeof shape);
            snprintf(detail, cap, "%s %s dtype %d element %" PRId64 ": ours %.*s torch %.*s", lab,
                     shape, dt, bad, hx,
                     da && strlen(da + 1) >= (size_t)((bad + 1) * hx) ? da + 1 + bad * hx : "", hx,
                     db && strlen(db + 1) >= (size_t)((bad + 1) * hx) ? db + 1 + bad * hx : "");
            int odd = odd_layout(o);
            if (odd == 1) return input ? "input-values-stride0" : "values-stride0";
            if (odd == 2) return input ? "input-values-size1" : "values-size1";
            return input ? "input-values" : "values";
        }
    }
    if (noo != nto) {
        snprintf(detail, cap, "ours %d records, torch %d", noo, nto);
        return "result-missing";
    }
    return NULL;
}

typedef struct {
    char op[128], path[4], cls[32], status[16];
    char detail[160], reason[1024];
    int64_t hits;
} allow;

static int g_show = 25; /* DIFF_SHOW: how many unexplained differences are printed */
static int compare(const char *ours, const char *torch, const char *allowpath) {
    if (getenv("DIFF_SHOW")) g_show = atoi(getenv("DIFF_SHOW"));
    bool g_show_allowed = getenv("DIFF_ALLOWED") != NULL; /* print allow-listed ones too */
    int64_t no, nt;
    block *o = read_blocks(ours, &no), *t = read_blocks(torch, &nt);
    allow al[256];
    int na = 0;
    FILE *f = fopen(allowpath, "r");
    if (f) {
        char line[2048]; /* (an entry is one line, however long its reason) */
        while (fgets(line, sizeof line, f) && na < 256) {
            if (line[0] == '#' || line[0] == '\n') continue;
            allow *x = &al[na];
            memset(x, 0, sizeof *x);
            int used = 0;
            if (sscanf(line, "%127s %3s %31s %15s %n", x->op, x->path, x->cls, x->status, &used) <
                4)
                continue;
            const char *r = line + used;
            snprintf(x->detail, sizeof x->detail, "*");
            if (*r == '"') { /* a glob over the difference's detail (the message, the values) */
                const char *q = strchr(r + 1, '"');
                if (q) {
                    snprintf(x->detail, sizeof x->detail, "%.*s", (int)(q - r - 1), r + 1);
                    r = q + 1;
                    while (*r == ' ') r++;
                }
            }
            snprintf(x->reason, sizeof x->reason, "%s", r);
            x->reason[strcspn(x->reason, "\n")] = '\0';
            na++;
        }
        fclose(f);
    }
    int64_t calls = 0, ok = 0, missing = 0, nodisp = 0, diffs = 0, unexplained = 0;
    struct {
        char cls[32];
        char op[128];
        char path;
        int64_t n;
    } cnt[512];
    int ncnt = 0;
    int shown = 0;
    for (int64_t k = 0; k < nt && k < no; k++) {
        if (!o[k].hdr || !t[k].hdr) continue;
        calls++;
        char st[16];
        field(t[k].hdr, 4, st, sizeof st);
        if (!strcmp(st, "missing")) {
            missing++;
            continue;
        }
        field(o[k].hdr, 4, st, sizeof st);
        if (!strcmp(st, "nodispatch")) {
            nodisp++;
            continue;
        }
        char detail[1024], op[128], path[4];
        const char *cls = differ(&o[k], &t[k], detail, sizeof detail);
        if (!cls) {
            ok++;
            continue;
        }
        diffs++;
        field(o[k].hdr, 3, op, sizeof op), field(o[k].hdr, 2, path, sizeof path);
        if (!strcmp(cls, "crash") || !strcmp(cls, "torch-crash"))
            field(t[k].hdr, 3, op, sizeof op), field(t[k].hdr, 2, path, sizeof path);
        int c;
        for (c = 0; c < ncnt; c++)
            if (!strcmp(cnt[c].cls, cls) && !strcmp(cnt[c].op, op) && cnt[c].path == path[0]) break;
        if (c == ncnt && ncnt < 512) {
            snprintf(cnt[c].cls, sizeof cnt[c].cls, "%s", cls);
            snprintf(cnt[c].op, sizeof cnt[c].op, "%s", op);
            cnt[c].path = path[0], cnt[c].n = 0, ncnt++;
        }
        if (c < ncnt) cnt[c].n++;
        bool allowed = false;
        for (int a = 0; a < na && !allowed; a++)
            if (!fnmatch(al[a].op, op, 0) && !fnmatch(al[a].path, path, 0) &&
                !fnmatch(al[a].cls, cls, 0) && !fnmatch(al[a].detail, detail, 0) &&
                strcmp(cls, "crash"))
                allowed = true, al[a].hits++;
        if (allowed && g_show_allowed)
            printf("ALLOWED call %" PRId64 " %s %s [%s] %.300s\n", k, path, op, cls, detail);
        if (!allowed) {
            unexplained++;
            if (shown++ < g_show)
                printf("DIFF call %" PRId64 " %s %s [%s] %.500s\n", k, path, op, cls, detail);
        }
    }
    printf("calls %" PRId64 ": %" PRId64 " agree, %" PRId64 " differ (%" PRId64
           " not on the allow-list), %" PRId64 " torch lacks the shim, %" PRId64
           " not dispatchable (Scalar argument)\n",
           calls, ok, diffs, unexplained, missing, nodisp);
    printf("differences by class and op (path c: aoti_torch_cpu_*, a: aoti_torch_aten_*, d: "
           "dispatcher):\n");
    for (int c = 0; c < ncnt; c++)
        printf("  %-18s %c %-32s %" PRId64 "\n", cnt[c].cls, cnt[c].path, cnt[c].op, cnt[c].n);
    printf("allow-list hits:\n");
    for (int a = 0; a < na; a++)
        printf("  %6" PRId64 "  %-22s %s %-18s %-9s \"%s\" %s\n", al[a].hits, al[a].op, al[a].path,
               al[a].cls, al[a].status, al[a].detail, al[a].reason);
    if (calls == 0) {
        printf("no call compared\n");
        return 1;
    }
    return unexplained ? 1 : 0;
}

static void load_only(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "diff_client: cannot open %s\n", path);
        exit(2);
    }
    static char text[1 << 18];
    text[0] = '\n';
    size_t n = fread(text + 1, 1, sizeof text - 3, f);
    fclose(f);
    text[n + 1] = '\n', text[n + 2] = '\0';
    g_only = text;
}

int main(int argc, char **argv) {
    if (argc == 7 && !strcmp(argv[1], "run")) load_only(argv[6]), argc = 6;
    if (argc == 6 && !strcmp(argv[1], "run"))
        return run(argv[2], strtoull(argv[3], NULL, 10), strtoll(argv[4], NULL, 10), argv[5]);
    if (argc == 5 && !strcmp(argv[1], "compare")) return compare(argv[2], argv[3], argv[4]);
    if (argc == 3 && !strcmp(argv[1], "list")) {
        load_manifest(argv[2]);
        for (int i = 0; i < g_ne; i++)
            printf("%c %s %s %s\n", g_e[i].path, g_e[i].op, g_e[i].fn[0] ? g_e[i].fn : "-",
                   g_e[i].path != 'd'    ? (!dlsym(RTLD_DEFAULT, g_e[i].fn) ? "missing"
                                            : shim_handled(&g_e[i])         ? "present"
                                                                            : "unhandled")
                   : g_e[i].dispatchable ? "dispatchable"
                                         : "nodispatch");
        return 0;
    }
    fprintf(stderr, "usage: diff_client run MANIFEST SEED COUNT OUT [ONLY]\n"
                    "       diff_client compare OURS TORCH ALLOWLIST\n"
                    "       diff_client list MANIFEST\n");
    return 2;
}

/* runtime/cpu/engine.c: the planner and the CPU executor (see engine.h). */
#include "engine.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- planner ----------------------------------------------------------------------- */

/* Byte strides of t seen in the broadcast shape (ndim dims, right-aligned): 0 where t is
 * broadcast; a size-1 dim that stays size 1 keeps its stride (TensorIterator's rule, which
 * matters for the layout order). */
static void operand_strides(const struct AtenTensorOpaque *t, int nd, const int64_t *shape,
                            int64_t *st) {
    int64_t lead = nd - t->ndim, es = (int64_t)shimrt_dtype_size(t->dtype);
    for (int d = 0; d < nd; d++) {
        int64_t od = d - lead;
        if (od < 0 || (t->sizes[od] == 1 && shape[d] != 1))
            st[d] = 0;
        else
            st[d] = t->strides[od] * es;
    }
}

int sh_ct_index(int32_t dt) {
    switch (dt) {
    case SHIMRT_BOOL: return SH_B;
    case SHIMRT_UINT8: return SH_U8;
    case SHIMRT_INT8: return SH_I8;
    case SHIMRT_INT16: return SH_I16;
    case SHIMRT_INT32: return SH_I32;
    case SHIMRT_INT64: return SH_I64;
    case SHIMRT_FLOAT16:
    case SHIMRT_BFLOAT16:
    case SHIMRT_FLOAT32: return SH_F32;
    case SHIMRT_FLOAT64: return SH_F64;
    default: return -1;
    }
}

int32_t sh_ct_dtype(int ct) {
    static const int32_t map[SH_NCT] = {SHIMRT_BOOL,  SHIMRT_UINT8, SHIMRT_INT8,    SHIMRT_INT16,
                                        SHIMRT_INT32, SHIMRT_INT64, SHIMRT_FLOAT32, SHIMRT_FLOAT64};
    return map[ct];
}

static AOTITorchError partial_overlap_error(const char *op) {
    return shimrt_fail(op, "unsupported operation: some elements of the input tensor and the "
                           "written-to tensor refer to a single memory location. Please clone() "
                           "the tensor before performing the operation.");
}

static AOTITorchError plan_build(sh_plan *p, const char *op, AtenTensorHandle *out, int32_t odt,
                                 int nin, const struct AtenTensorOpaque *const *ins,
                                 bool scalar_operand, int nkeep);

AOTITorchError sh_plan_build(sh_plan *p, const char *op, AtenTensorHandle *out, int32_t odt,
                             int nin, const struct AtenTensorOpaque *const *ins) {
    return plan_build(p, op, out, odt, nin, ins, false, 0);
}

AOTITorchError sh_plan_build_scalar(sh_plan *p, const char *op, AtenTensorHandle *out, int32_t odt,
                                    int nin, const struct AtenTensorOpaque *const *ins) {
    return plan_build(p, op, out, odt, nin, ins, true, 0);
}

AOTITorchError sh_plan_build_where(sh_plan *p, const char *op, AtenTensorHandle *out, int32_t odt,
                                   int nin, const struct AtenTensorOpaque *const *ins) {
    return plan_build(p, op, out, odt, nin, ins, false, 1);
}

AOTITorchError sh_plan_build_keep(sh_plan *p, const char *op, AtenTensorHandle *out, int32_t odt,
                                  int nin, const struct AtenTensorOpaque *const *ins) {
    return plan_build(p, op, out, odt, nin, ins, false, nin);
}

/* nkeep: the first nkeep inputs keep their dtype (where's condition); the others of
 * another dtype than the common one are converted first (their layout: to()'s) */
static AOTITorchError plan_build(sh_plan *p, const char *op, AtenTensorHandle *out, int32_t odt,
                                 int nin, const struct AtenTensorOpaque *const *ins,
                                 bool scalar_operand, int nkeep) {
    int64_t shape[SHIMRT_MAX_DIMS] = {0}, nd = 0;
    if (*out) {
        nd = (*out)->ndim;
        memcpy(shape, (*out)->sizes, (size_t)nd * sizeof *shape);
    } else if (nin > 0) {
        nd = ins[0]->ndim;
        memcpy(shape, ins[0]->sizes, (size_t)nd * sizeof *shape);
    }
    for (int k = (*out ? 0 : 1); k < nin; k++) {
        int64_t tmp[SHIMRT_MAX_DIMS], tn;
        if (shimrt_k_broadcast(op, nd, shape, ins[k]->ndim, ins[k]->sizes, tmp, &tn))
            return AOTI_TORCH_FAILURE;
        if (*out && (tn != nd || memcmp(tmp, shape, (size_t)nd * sizeof *shape) != 0)) {
            char b1[96], b2[96];
            return shimrt_fail(op, "output with shape %s doesn't match the broadcast shape %s",
                               shimrt_k_fmt_shape(b1, sizeof b1, nd, shape),
                               shimrt_k_fmt_shape(b2, sizeof b2, tn, tmp));
        }
        nd = tn;
        memcpy(shape, tmp, (size_t)nd * sizeof *shape);
    }
    /* TensorIterator's memory-overlap checks of a given output against itself and its
     * inputs */
    for (int k = 0; *out && k < nin; k++)
        if (shimrt_k_partial_overlap(*out, ins[k])) return partial_overlap_error(op);
    p->nops = 1 + nin;
    int64_t(*st)[SHIMRT_MAX_DIMS] = p->stride; /* filled in original dim order first */
    for (int k = 0; k < nin; k++) operand_strides(ins[k], (int)nd, shape, st[1 + k]);
    int perm[SHIMRT_MAX_DIMS]; /* TensorIterator's reorder_dimensions over the inputs */
    shimrt_k_layout_perm((int)nd, shape, nin, (const int64_t(*)[SHIMRT_MAX_DIMS])(st + 1), perm);
    if (!*out) {
        int64_t ostr[SHIMRT_MAX_DIMS];
        /* the common dtype: the output's, or the inputs' for a bool result (comparisons) */
        int32_t common = odt != SHIMRT_BOOL || nin <= nkeep
                             ? odt
                             : shimrt_k_result_type_of(nin - nkeep, ins + nkeep, 0, NULL);
        shimrt_k_iter_out_strides(nin, ins, scalar_operand, common, nkeep, nd, shape, ostr);
        AtenTensorHandle t =
            shimrt_k_empty_like_dev(op, nin > 0 ? ins[0] : NULL, nd, shape, ostr, odt);
        if (!t) return AOTI_TORCH_FAILURE;
        *out = t;
    }
    operand_strides(*out, (int)nd, shape, st[0]);
    p->data[0] = shimrt_data(*out);
    p->dtype[0] = (*out)->dtype;
    for (int k = 0; k < nin; k++) {
        p->data[1 + k] = shimrt_data(ins[k]);
        p->dtype[1 + k] = ins[k]->dtype;
    }
    /* permute (innermost first) and coalesce: size-1 dims drop out, and dim i joins the
     * last kept dim n-1 when every operand steps over it by (stride, extent) of that kept
     * dim as it stands so far (p->shape/p->stride, the coalesced arrays, not pst) */
    int64_t pshape[SHIMRT_MAX_DIMS], pst[SH_MAX_OPS][SHIMRT_MAX_DIMS];
    for (int i = 0; i < nd; i++) {
        pshape[i] = shape[perm[i]];
        for (int k = 0; k < p->nops; k++) pst[k][i] = st[k][perm[i]];
    }
    int n = 0;
    p->numel = 1;
    for (int i = 0; i < nd; i++) {
        p->numel *= pshape[i];
        if (pshape[i] == 1) continue;
        if (n > 0) {
            bool merge = true;
            for (int k = 0; k < p->nops; k++)
                if (pst[k][i] != p->stride[k][n - 1] * p->shape[n - 1]) merge = false;
            if (merge) {
                p->shape[n - 1] *= pshape[i];
                continue;
            }
        }
        p->shape[n] = pshape[i];
        for (int k = 0; k < p->nops; k++) p->stride[k][n] = pst[k][i];
        n++;
    }
    if (n == 0) {
        p->shape[0] = 1;
        for (int k = 0; k < p->nops; k++) p->stride[k][0] = 0;
        n = 1;
    }
    p->ndim = n;
    /* flags */
    p->contiguous = n == 1;
    p->fits_i32 = true;
    p->needs_cast = false;
    p->scalar_mask = 0;
    for (int k = 0; k < p->nops; k++) {
        int64_t es = (int64_t)shimrt_dtype_size(p->dtype[k]), span = 0;
        bool scalar = true;
        for (int d = 0; d < n; d++) {
            if (p->stride[k][d] != 0) scalar = false;
            int64_t a = p->stride[k][d] < 0 ? -p->stride[k][d] : p->stride[k][d];
            span += a * (p->shape[d] - 1);
        }
        if (span + es > INT32_MAX) p->fits_i32 = false;
        if (scalar) p->scalar_mask |= 1u << k;
        if (n == 1 && p->stride[k][0] != es && p->stride[k][0] != 0) p->contiguous = false;
        if (p->dtype[k] != p->dtype[0]) p->needs_cast = true;
    }
    return AOTI_TORCH_SUCCESS;
}

/* ---- the walk ---------------------------------------------------------------------- */

typedef struct {
    const sh_plan *p;
    sh_chunk_fn fn;
    void *ctx;
    int64_t per_row; /* chunks per row */
    int64_t chunk;   /* elements per chunk */
} walk_job;

static void walk_range(int64_t begin, int64_t end, void *vjob) {
    const walk_job *j = vjob;
    const sh_plan *p = j->p;
    int64_t inner = p->shape[0];
    int64_t row = begin / j->per_row, chunk = begin % j->per_row;
    int64_t idx[SHIMRT_MAX_DIMS];
    char *base[SH_MAX_OPS];
    /* position of row `row` over dims 1.. */
    int64_t r = row;
    for (int k = 0; k < p->nops; k++) base[k] = p->data[k];
    for (int d = 1; d < p->ndim; d++) {
        idx[d] = r % p->shape[d];
        r /= p->shape[d];
        for (int k = 0; k < p->nops; k++) base[k] += idx[d] * p->stride[k][d];
    }
    int64_t istr[SH_MAX_OPS];
    for (int k = 0; k < p->nops; k++) istr[k] = p->stride[k][0];
    for (int64_t u = begin; u < end; u++) {
        int64_t off = chunk * j->chunk, n = inner - off < j->chunk ? inner - off : j->chunk;
        char *ptr[SH_MAX_OPS];
        for (int k = 0; k < p->nops; k++) ptr[k] = base[k] + off * istr[k];
        j->fn(ptr, istr, n, j->ctx);
        if (++chunk == j->per_row) {
            chunk = 0;
            for (int d = 1; d < p->ndim; d++) { /* odometer */
                for (int k = 0; k < p->nops; k++) base[k] += p->stride[k][d];
                if (++idx[d] < p->shape[d]) break;
                for (int k = 0; k < p->nops; k++) base[k] -= p->stride[k][d] * p->shape[d];
                idx[d] = 0;
            }
        }
    }
}

/* Elements per task: below this a parallel region's start-up costs more than it saves.
 * Measured by bench/rt_engine.c (`make bench`), which times mul and exp of n float32
 * elements at 1 thread and at 2 threads with the grain forced to 1K. On the 2-core
 * AVX-512 VM (shared with other builds all day) a region costs 4-5 us more than the serial
 * call (mul 32K: 4.4 us serial, 9.1 us on 2 threads) and the two threads stay 4-80%
 * slower than one up to 512K elements (mul 256K: 100 us against 108 us); from 1M they
 * break even or win (mul 1M 0.84-1.01, exp 1M 0.95-1.04, exp 4M 0.76-0.90). So the grain
 * is 1M elements (it was 32K, PyTorch's GRAIN_SIZE, before this measurement); a quieter
 * machine would move it down. SHIMRT_GRAIN_ELEMS overrides it (read once; for that bench
 * and for tests of the threaded paths). docs/PERFORMANCE.md has the table. */
#define SH_GRAIN_DEFAULT 1048576
static int64_t grain_elems = SH_GRAIN_DEFAULT;
static pthread_once_t grain_once = PTHREAD_ONCE_INIT;
static void read_grain(void) {
    const char *e = getenv("SHIMRT_GRAIN_ELEMS");
    if (e && *e) {
        char *end;
        long long v = strtoll(e, &end, 10);
        if (*end == '\0' && v >= 1) grain_elems = v;
    }
}
int64_t sh_grain_elems(void) {
    pthread_once(&grain_once, read_grain);
    return grain_elems;
}
#define SH_GRAIN_ELEMS (sh_grain_elems())

void sh_walk_serial(const sh_plan *p, sh_chunk_fn fn, void *ctx) {
    if (p->numel == 0) return;
    int64_t inner = p->shape[0];
    walk_job j = {p, fn, ctx, (inner + SH_CHUNK - 1) / SH_CHUNK, SH_CHUNK};
    walk_range(0, (p->numel / inner) * j.per_row, &j);
}

/* Runs fn over every element of p in runs of up to `chunk` elements, over the thread pool
 * when p is large enough (the executor's walk). Chunk functions that need no per-chunk
 * buffers (copies, fills, kernels on operands they read in place) take long runs
 * (SH_LONG_CHUNK), so that the per-call cost is paid every 16K elements rather than every
 * 1K (SH_CHUNK) */
#define SH_LONG_CHUNK 16384
static void walk_chunked(const sh_plan *p, sh_chunk_fn fn, void *ctx, int64_t chunk) {
    if (p->numel == 0) return;
    int64_t inner = p->shape[0];
    walk_job j = {p, fn, ctx, (inner + chunk - 1) / chunk, chunk};
    int64_t units = (p->numel / inner) * j.per_row;
    int64_t per_unit = inner < chunk ? inner : chunk;
    int64_t grain = SH_GRAIN_ELEMS / per_unit;
    if (grain < 1) grain = 1;
    if (units <= grain || p->numel < SH_GRAIN_ELEMS)
        walk_range(0, units, &j);
    else
        torch_parallel_for(0, units, grain, walk_range, &j);
}

void sh_walk(const sh_plan *p, sh_chunk_fn fn, void *ctx) { walk_chunked(p, fn, ctx, SH_CHUNK); }

/* ---- casts ------------------------------------------------------------------------- */

/* The cast loops are built per ISA with the kernels (loops.h): pick the table once. */
extern const sh_cast_fn sh_casttab_base[10][10];
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
extern const sh_cast_fn sh_casttab_v3[10][10];
extern const sh_cast_fn sh_casttab_v4[10][10];
#endif
static int isa_level = -1; /* 0 base, 3 x86-64-v3, 4 x86-64-v4 */
static pthread_once_t isa_once = PTHREAD_ONCE_INIT;
static void pick_isa(void) {
    int l = 0;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    __builtin_cpu_init();
    const char *force = getenv("SHIMRT_ISA"); /* "base" or "v3": tests and benches */
    if (__builtin_cpu_supports("x86-64-v3") && !(force && strcmp(force, "base") == 0)) l = 3;
    if (__builtin_cpu_supports("x86-64-v4") && !force) l = 4;
#endif
    isa_level = l;
}

int sh_isa_level(void) {
    pthread_once(&isa_once, pick_isa);
    return isa_level;
}

static const sh_cast_fn (*cast_tab(void))[10] {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    int l = sh_isa_level();
    if (l == 4) return sh_casttab_v4;
    if (l == 3) return sh_casttab_v3;
#endif
    return sh_casttab_base;
}

/* the storage type's index in the kernel tables: its row in the dtype table */
static int st_index(int32_t dt) { return shimrt_dtype_engine_index(dt); }

void sh_cast_run(char *dst, int32_t ddt, int64_t ds, const char *src, int32_t sdt, int64_t ss,
                 int64_t n) {
    int di = st_index(ddt), si = st_index(sdt);
    if (di < 0 || si < 0) return; /* callers check computability first */
    size_t es = shimrt_dtype_size(ddt);
    if (ddt == sdt && ds == (int64_t)es && ss == (int64_t)es) {
        memcpy(dst, src, (size_t)n * es);
        return;
    }
    cast_tab()[si][di](dst, ds, src, ss, n);
}

/* ---- reduction loops (loops.h section 3) ------------------------------------------ */

extern const sh_red_kern sh_redtabs_base[][10][2];
extern const sh_argmax_kern sh_argtabs_base[10];
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
extern const sh_red_kern sh_redtabs_v3[][10][2];
extern const sh_red_kern sh_redtabs_v4[][10][2];
extern const sh_argmax_kern sh_argtabs_v3[10];
extern const sh_argmax_kern sh_argtabs_v4[10];
#endif

const sh_red_kern *sh_red_kernel(int red, int32_t sdt, bool wide, int32_t *tdt) {
    int si = st_index(sdt);
    if (si < 0) return NULL;
    const sh_red_kern(*tab)[10][2] = sh_redtabs_base;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    int l = sh_isa_level();
    if (l == 4)
        tab = sh_redtabs_v4;
    else if (l == 3)
        tab = sh_redtabs_v3;
#endif
    const sh_red_kern *k = &tab[red][si][wide ? 1 : 0];
    if (!k->rows) return NULL;
    *tdt = wide ? (shimrt_dtype_is_floating(sdt) ? SHIMRT_FLOAT64 : SHIMRT_INT64)
                : sh_ct_dtype(sh_ct_index(sdt));
    return k;
}

const sh_argmax_kern *sh_argmax_kernel(int32_t sdt) {
    int si = st_index(sdt);
    if (si < 0) return NULL;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    int l = sh_isa_level();
    if (l == 4) return &sh_argtabs_v4[si];
    if (l == 3) return &sh_argtabs_v3[si];
#endif
    return &sh_argtabs_base[si];
}

extern void (*const sh_softmax_line_base)(double *, int64_t, int);
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
extern void (*const sh_softmax_line_v3)(double *, int64_t, int);
extern void (*const sh_softmax_line_v4)(double *, int64_t, int);
#endif

void sh_softmax_line(double *x, int64_t n, int logsm) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    int l = sh_isa_level();
    if (l == 4) {
        sh_softmax_line_v4(x, n, logsm);
        return;
    }
    if (l == 3) {
        sh_softmax_line_v3(x, n, logsm);
        return;
    }
#endif
    sh_softmax_line_base(x, n, logsm);
}

/* ---- executor ---------------------------------------------------------------------- */

typedef struct {
    int ct;
    int32_t cdt, kodt; /* compute dtype, the kernel's output dtype */
    int32_t rdt;       /* the common dtype (float16/bfloat16 round inputs through it) */
    int nin;
    int cond; /* input index of where's condition (bool), -1 if none */
    sh_kernel fn;
    const sh_kargs *k;
    const char *scalar_b;
} exec_ctx;

typedef struct {
    const sh_plan *p;
    exec_ctx e;
} exec_job;

static void exec_chunk2(char **ptr, const int64_t *st, int64_t n, void *vjob) {
    const exec_job *j = vjob;
    const exec_ctx *c = &j->e;
    const sh_plan *p = j->p;
    _Alignas(64) char buf[SH_MAX_OPS][SH_CHUNK * 8];
    const char *in[3] = {NULL, NULL, NULL};
    int nscalar = 0, mode = 0;
    for (int i = 0; i < c->nin; i++) {
        int32_t want = i == c->cond ? SHIMRT_BOOL : c->cdt;
        int64_t es = (int64_t)shimrt_dtype_size(want);
        int32_t dt = p->dtype[1 + i];
        int64_t s = st[1 + i];
        bool scalar_ok = c->nin == 2 && c->cond < 0 && nscalar == 0 && !c->scalar_b;
        /* a float32 operand of a float16/bfloat16 op (a 0-d one) is rounded to the common
         * dtype first, as PyTorch does, even though the kernel computes in float32 */
        bool via = want == c->cdt && c->rdt != c->cdt && dt != c->rdt &&
                   !(i == 1 && c->k && c->k->raw_scalar_b && (p->scalar_mask & 4u));
        if (!via && dt == want && s == es) {
            in[i] = ptr[1 + i];
        } else if (s == 0 && scalar_ok) {
            if (!via && dt == want) {
                in[i] = ptr[1 + i];
            } else if (via) {
                char tmp[2];
                sh_cast_run(tmp, c->rdt, 2, ptr[1 + i], dt, 0, 1);
                sh_cast_run(buf[1 + i], want, es, tmp, c->rdt, 2, 1);
                in[i] = buf[1 + i];
            } else {
                sh_cast_run(buf[1 + i], want, es, ptr[1 + i], dt, 0, 1);
                in[i] = buf[1 + i];
            }
            nscalar++;
            mode = i + 1;
        } else if (via) {
            /* PyTorch casts to the common dtype first, then computes in float */
            _Alignas(64) char tmp[SH_CHUNK * 2];
            sh_cast_run(tmp, c->rdt, 2, ptr[1 + i], dt, s, n);
            sh_cast_run(buf[1 + i], want, es, tmp, c->rdt, 2, n);
            in[i] = buf[1 + i];
        } else {
            sh_cast_run(buf[1 + i], want, es, ptr[1 + i], dt, s, n);
            in[i] = buf[1 + i];
        }
    }
    if (c->scalar_b) {
        in[1] = c->scalar_b;
        mode = 2;
    }
    int64_t oes = (int64_t)shimrt_dtype_size(c->kodt);
    bool odirect = p->dtype[0] == c->kodt && st[0] == oes;
    char *o = odirect ? ptr[0] : buf[0];
    if (c->cond >= 0)
        c->fn(n, o, in[1], in[2], in[0], 0, c->k);
    else
        c->fn(n, o, in[0], in[1], NULL, mode, c->k);
    if (!odirect) sh_cast_run(ptr[0], p->dtype[0], st[0], buf[0], c->kodt, oes, n);
}

void sh_exec(const sh_plan *p, int32_t common, bool kout_bool, bool cond_first, sh_kernel fn,
             const sh_kargs *k, const void *scalar_b) {
    int ct = sh_ct_index(common);
    exec_job j = {p,
                  {ct, sh_ct_dtype(ct), kout_bool ? SHIMRT_BOOL : sh_ct_dtype(ct), common,
                   p->nops - 1, cond_first ? 0 : -1, fn, k, scalar_b}};
    /* every operand read and written in place (its dtype is the kernel's, unit stride or a
     * stride-0 scalar the kernel takes as such): long runs, no buffers */
    const exec_ctx *c = &j.e;
    bool direct = p->dtype[0] == c->kodt && p->stride[0][0] == (int64_t)shimrt_dtype_size(c->kodt);
    int nscalar = 0;
    for (int i = 0; direct && i < c->nin; i++) {
        int32_t want = i == c->cond ? SHIMRT_BOOL : c->cdt;
        int64_t es = (int64_t)shimrt_dtype_size(want), s = p->stride[1 + i][0];
        if (p->dtype[1 + i] != want || (want == c->cdt && c->rdt != c->cdt))
            direct = false; /* a cast, or a rounding through float16/bfloat16 */
        else if (s == 0 && c->nin == 2 && c->cond < 0 && !c->scalar_b && nscalar++ == 0)
            continue;
        else if (s != es)
            direct = false;
    }
    walk_chunked(p, exec_chunk2, &j, direct ? SH_LONG_CHUNK : SH_CHUNK);
}

/* ---- copy and fill ----------------------------------------------------------------- */

typedef struct {
    int32_t ddt, sdt;
} copy_ctx;

static void copy_chunk(char **ptr, const int64_t *st, int64_t n, void *vctx) {
    const copy_ctx *c = vctx;
    sh_cast_run(ptr[0], c->ddt, st[0], ptr[1], c->sdt, st[1], n);
}

/* 2-D same-dtype copy where src walks the transpose of dst: 32x32 tiles, so that both
 * sides stay in cache. */
#define TILE 32
typedef struct {
    char *d;
    const char *s;
    int64_t rows, cols;         /* dst is rows x cols, its inner dim is cols */
    int64_t dsr, dsc, ssr, ssc; /* byte strides of dst and src per row / column */
    size_t es;
} tcopy_job;

#define TCOPY_T(T)                                                                                 \
    for (int64_t i = r0; i < r1; i++)                                                              \
        for (int64_t jj = c0; jj < c1; jj++)                                                       \
            *(T *)(j->d + i * j->dsr + jj * j->dsc) = *(const T *)(j->s + i * j->ssr + jj * j->ssc);

static void tcopy_range(int64_t begin, int64_t end, void *vjob) {
    const tcopy_job *j = vjob;
    int64_t ctiles = (j->cols + TILE - 1) / TILE;
    for (int64_t t = begin; t < end; t++) {
        int64_t r0 = (t / ctiles) * TILE, c0 = (t % ctiles) * TILE;
        int64_t r1 = r0 + TILE < j->rows ? r0 + TILE : j->rows;
        int64_t c1 = c0 + TILE < j->cols ? c0 + TILE : j->cols;
        switch (j->es) {
        case 1: TCOPY_T(uint8_t) break;
        case 2: TCOPY_T(uint16_t) break;
        case 4: TCOPY_T(uint32_t) break;
        default: TCOPY_T(uint64_t) break;
        }
    }
}

static bool tiled_copy(const sh_plan *p) {
    if (p->ndim != 2 || p->dtype[0] != p->dtype[1]) return false;
    int64_t es = (int64_t)shimrt_dtype_size(p->dtype[0]);
    if (es != 1 && es != 2 && es != 4 && es != 8) return false;
    if (p->stride[0][0] != es || p->stride[1][1] != es || p->shape[0] < 8 || p->shape[1] < 8)
        return false;
    tcopy_job j = {p->data[0],      p->data[1],      p->shape[1],     p->shape[0], p->stride[0][1],
                   p->stride[0][0], p->stride[1][1], p->stride[1][0], (size_t)es};
    int64_t tiles = ((j.rows + TILE - 1) / TILE) * ((j.cols + TILE - 1) / TILE);
    if (p->numel < SH_GRAIN_ELEMS)
        tcopy_range(0, tiles, &j);
    else
        torch_parallel_for(0, tiles, SH_GRAIN_ELEMS / (TILE * TILE), tcopy_range, &j);
    return true;
}

static void copy_plan(const sh_plan *p) {
    if (tiled_copy(p)) return;
    copy_ctx c = {p->dtype[0], p->dtype[1]};
    walk_chunked(p, copy_chunk, &c, SH_LONG_CHUNK);
}

/* copies between dtypes that are not both the engine's (complex64/128, uint16/32/64, and
 * complex128 onto itself): element by element through the dtype table's conversion */
/* PyTorch 2.15's float32 / float64 / bfloat16 / complex to uint32 over a contiguous run
 * (measured): its vectorized groups (4 elements, 8 from bfloat16; from complex64 the groups
 * before the last, which is never one) convert as 32-bit x86 code does (below 2^31 the
 * signed conversion, 0x80000000 when out of range or NaN; from 2^31 the signed conversion of
 * v - 2^31 with the top bit flipped), the rest of the run (and float16's) as the dtype table
 * does (through int64: -1 gives 0xffffffff, NaN and -inf give 0). *vend: the first element
 * of the rest. */
static bool u32_vector_run(const copy_ctx *c, const int64_t *st, int64_t n, int64_t *vend) {
    if (c->ddt != SHIMRT_UINT32 || st[0] != 4) return false;
    int32_t s = c->sdt;
    int64_t k = s == SHIMRT_BFLOAT16 ? 8
                : s == SHIMRT_FLOAT32 || s == SHIMRT_FLOAT64 || s == SHIMRT_COMPLEX64 ||
                        s == SHIMRT_COMPLEX128
                    ? 4
                    : 0;
    if (!k || st[1] != (int64_t)shimrt_dtype_size(s)) return false;
    *vend = s == SHIMRT_COMPLEX64 ? (n > 0 ? (n - 1) / k * k : 0) : n - n % k;
    return true;
}

static uint32_t u32_vector_convert(double v) {
    if (v >= 2147483648.0) {
        double w = v - 2147483648.0;
        return (w < 2147483648.0 ? (uint32_t)(int32_t)w : 0x80000000u) ^ 0x80000000u;
    }
    return v > -2147483649.0 ? (uint32_t)(int32_t)v : 0x80000000u; /* (NaN fails both) */
}

static void elem_chunk(char **ptr, const int64_t *st, int64_t n, void *vctx) {
    const copy_ctx *c = vctx;
    int64_t vend = 0;
    if (u32_vector_run(c, st, n, &vend))
        for (int64_t i = 0; i < vend; i++) {
            double v;
            shimrt_dtype_convert(&v, SHIMRT_FLOAT64, ptr[1] + i * st[1], c->sdt);
            uint32_t u = u32_vector_convert(v);
            memcpy(ptr[0] + i * st[0], &u, sizeof u);
        }
    for (int64_t i = vend; i < n; i++)
        shimrt_dtype_convert(ptr[0] + i * st[0], c->ddt, ptr[1] + i * st[1], c->sdt);
}

AOTITorchError sh_copy(const char *op, struct AtenTensorOpaque *dst,
                       const struct AtenTensorOpaque *src) {
    bool elem = (dst->dtype != src->dtype || shimrt_dtype_size(dst->dtype) > 8) &&
                (st_index(dst->dtype) < 0 || st_index(src->dtype) < 0) &&
                (shimrt_dtype_is_computable(dst->dtype) || dst->dtype == SHIMRT_COMPLEX32) &&
                (shimrt_dtype_is_computable(src->dtype) || src->dtype == SHIMRT_COMPLEX32);
    if (!elem && (st_index(dst->dtype) < 0 || st_index(src->dtype) < 0)) {
        if (dst->dtype != src->dtype) {
            const char *a = shimrt_dtype_name(src->dtype), *b = shimrt_dtype_name(dst->dtype);
            return shimrt_fail(op, "cannot convert %s to %s", a ? a : "?", b ? b : "?");
        }
    }
    if (shimrt_numel(dst) == 0) return AOTI_TORCH_SUCCESS;
    if (shimrt_k_partial_overlap(dst, src)) return partial_overlap_error(op);
    AtenTensorHandle tmp = NULL;
    if (shimrt_k_may_overlap(dst, src)) {
        bool same = shimrt_data(dst) == shimrt_data(src) && dst->dtype == src->dtype &&
                    dst->ndim == src->ndim;
        for (int64_t d = 0; same && d < dst->ndim; d++)
            same = dst->sizes[d] == src->sizes[d] && dst->strides[d] == src->strides[d];
        if (same) return AOTI_TORCH_SUCCESS; /* copying a tensor onto itself */
        tmp = shimrt_tensor_empty(op, src->ndim, src->sizes, NULL, src->dtype, SHIMRT_DEV_CPU, 0);
        if (!tmp) return AOTI_TORCH_FAILURE;
        AtenTensorHandle t = tmp;
        sh_plan p;
        if (sh_plan_build(&p, op, &t, src->dtype, 1, &src)) {
            shimrt_tensor_free(tmp);
            return AOTI_TORCH_FAILURE;
        }
        copy_plan(&p);
        src = tmp;
    }
    sh_plan p;
    AtenTensorHandle d = dst;
    AOTITorchError err = sh_plan_build(&p, op, &d, dst->dtype, 1, &src);
    if (!err && elem) {
        copy_ctx c = {dst->dtype, src->dtype};
        walk_chunked(&p, elem_chunk, &c, SH_LONG_CHUNK); /* (runs whole: u32_vector_run) */
    } else if (!err) {
        if (st_index(dst->dtype) < 0) { /* same non-computable dtype: bytes */
            p.dtype[0] = p.dtype[1] = SHIMRT_INT8;
            size_t es = shimrt_dtype_size(dst->dtype);
            if (es == 2)
                p.dtype[0] = p.dtype[1] = SHIMRT_INT16;
            else if (es == 4)
                p.dtype[0] = p.dtype[1] = SHIMRT_INT32;
            else if (es == 8)
                p.dtype[0] = p.dtype[1] = SHIMRT_INT64;
            else if (es != 1)
                err = shimrt_fail(op, "copying %s is not supported", shimrt_dtype_name(dst->dtype));
        }
        if (!err) copy_plan(&p);
    }
    shimrt_tensor_free(tmp);
    return err;
}

typedef struct {
    _Alignas(16) unsigned char bytes[16];
    size_t es;
} fill_ctx;

#define FILL_T(T)                                                                                  \
    do {                                                                                           \
        T v;                                                                                       \
        memcpy(&v, c->bytes, sizeof v);                                                            \
        if (st[0] == (int64_t)sizeof(T))                                                           \
            for (int64_t i = 0; i < n; i++) ((T *)d)[i] = v;                                       \
        else                                                                                       \
            for (int64_t i = 0; i < n; i++) *(T *)(d + i * st[0]) = v;                             \
    } while (0)

static void fill_chunk(char **ptr, const int64_t *st, int64_t n, void *vctx) {
    const fill_ctx *c = vctx;
    char *d = ptr[0];
    switch (c->es) {
    case 1: FILL_T(uint8_t); break;
    case 2: FILL_T(uint16_t); break;
    case 4: FILL_T(uint32_t); break;
    case 8: FILL_T(uint64_t); break;
    default:
        for (int64_t i = 0; i < n; i++) memcpy(d + i * st[0], c->bytes, c->es);
    }
}

void sh_fill(struct AtenTensorOpaque *t, double v) {
    fill_ctx c;
    memset(&c, 0, sizeof c);
    c.es = shimrt_dtype_size(t->dtype);
    if (c.es == 0 || c.es > sizeof c.bytes || shimrt_numel(t) == 0) return;
    shimrt_dtype_convert(c.bytes, t->dtype, &v, SHIMRT_FLOAT64); /* none: zero bytes */
    sh_plan p;
    AtenTensorHandle o = t;
    if (sh_plan_build(&p, "fill_", &o, t->dtype, 0, NULL)) return;
    walk_chunked(&p, fill_chunk, &c, SH_LONG_CHUNK);
}

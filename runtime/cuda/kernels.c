/* runtime/cuda/kernels.c: CUDA sources for every row of runtime/ops/ops.def.
 *
 * One kernel per (row, dtypes, layout class): the contiguous class reads and writes flat
 * arrays with 128-bit vector loads when every pointer is 16-byte aligned (p.vec_ok), the
 * strided class walks any strides (broadcast = stride 0). Element-wise kernels are grid-stride
 * loops; reductions give a block per output, or per chunk of one in a two-pass split
 * (docs/cuda.md, "Reductions"), each thread folds its part with the row's combine, then
 * warp shuffles and a shared-memory step merge the block's partials with the row's merge. Copies (dtype conversion, any
 * strides) and fills are kernels too. The text uses only the prelude's macros, so the same
 * source compiles with NVRTC and, under tests/cuda/sh_emu.h, as C on the host. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "catalogue.h"

/* ---- the rows of ops.def ---- */
enum { SH_ALL, SH_NUMERIC, SH_FLOAT, SH_INTEGRAL, SH_COMPARE };
typedef struct {
    const char *name;
    int kind, cls;
    const char *expr, *combine, *merge;
} row;
#define SH_UNARY(name, cls, expr) {#name, SHK_UNARY, cls, #expr, NULL, NULL},
#define SH_BINARY(name, cls, expr) {#name, SHK_BINARY, cls, #expr, NULL, NULL},
#define SH_TERNARY(name, cls, expr) {#name, SHK_TERNARY, cls, #expr, NULL, NULL},
#define SH_REDUCE(name, cls, init, combine, merge)                                                 \
    {#name, SHK_REDUCE, cls, #init, #combine, #merge},
static const row rows[] = {
#include "../ops/ops.def"
};
#define NROWS (sizeof rows / sizeof rows[0])

/* ---- dtypes the kernels compute on: the engine's rows of the dtype table (core/dtype.h:
 * tag, C storage and compute types), in its order ---- */
typedef shimrt_dtype_traits dtype_info;
static const dtype_info *const dtypes = shimrt_dtype_table;
#define NDT ((size_t)SHIMRT_ENGINE_NDT)

static const dtype_info *dt(int32_t code) {
    int i = shimrt_dtype_engine_index(code);
    return i < 0 ? NULL : &dtypes[i];
}

/* 0 bool, 1 integral, 2 floating */
static int cat_of(const dtype_info *d) {
    return d->kind == SHIMRT_KIND_BOOL ? 0 : d->kind == SHIMRT_KIND_FLOATING ? 2 : 1;
}

const char *shimrt_cuda_dtype_tag(int32_t dtype) {
    const dtype_info *d = dt(dtype);
    return d ? d->tag : NULL;
}

/* The output dtype of a row for an input dtype, or -1 when the row rejects it. */
static int32_t out_dtype(const row *r, const dtype_info *in) {
    switch (r->cls) {
    case SH_NUMERIC:
        if (cat_of(in) == 0) return -1;
        break;
    case SH_INTEGRAL:
        if (cat_of(in) == 2) return -1;
        break;
    case SH_FLOAT: return cat_of(in) == 2 ? in->code : SHIMRT_FLOAT32;
    case SH_COMPARE: return SHIMRT_BOOL;
    default: break;
    }
    /* PyTorch: logical reductions (all, any: a combine made of && or ||) give bool, uint8
     * for uint8 input; other reductions over every dtype (sum, prod) give int64 for
     * bool/integral input */
    if (r->kind == SHK_REDUCE && r->cls == SH_ALL &&
        (strstr(r->combine, "&&") || strstr(r->combine, "||")))
        return in->code == SHIMRT_UINT8 ? SHIMRT_UINT8 : SHIMRT_BOOL;
    if (r->kind == SHK_REDUCE && r->cls == SH_ALL && cat_of(in) != 2) return SHIMRT_INT64;
    return in->code;
}

/* ---- the catalogue: rows x dtypes x layouts, then copies and fills ---- */
/* A walk over the catalogue in its fixed order, stopping at entry `want` (into *out) or at
 * the entry named `find`; n counts the entries seen. */
typedef struct {
    size_t want, n;
    shimrt_cuda_kdesc *out;
    const char *find;
    shimrt_cuda_kdesc *all; /* when set: every entry is stored at its index */
} walk;

static const char *layout_tag(int l) { return l == SHL_CONTIG ? "contig" : "strided"; }

/* Offers one entry (its name printed from fmt); true when the walk stops at it. */
#if defined(__GNUC__)
__attribute__((format(printf, 7, 8)))
#endif
static bool
offer(walk *w, int kind, int layout, const char *op, int32_t in_dtype, int32_t odt, const char *fmt,
      ...) {
    shimrt_cuda_kdesc k;
    memset(&k, 0, sizeof k);
    k.kind = kind;
    k.layout = layout;
    k.op = op;
    k.in_dtype = in_dtype;
    k.out_dtype = odt;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k.name, sizeof k.name, fmt, ap);
    va_end(ap);
    if ((w->out && w->n == w->want) || (w->find && !strcmp(w->find, k.name))) {
        if (w->out) *w->out = k;
        return true;
    }
    if (w->all) w->all[w->n] = k;
    w->n++;
    return false;
}

static bool build(size_t want, shimrt_cuda_kdesc *out, size_t *count, const char *find,
                  shimrt_cuda_kdesc *all) {
    walk w = {want, 0, out, find, all};
    for (size_t ri = 0; ri < NROWS; ri++)
        for (size_t di = 0; di < NDT; di++) {
            int32_t o = out_dtype(&rows[ri], &dtypes[di]);
            if (o < 0) continue;
            for (int l = SHL_CONTIG; l <= SHL_STRIDED; l++)
                if (offer(&w, rows[ri].kind, l, rows[ri].name, dtypes[di].code, o, "sh_%s_%s_%s_%s",
                          rows[ri].name, dtypes[di].tag, dt(o)->tag, layout_tag(l)))
                    return true;
        }
    for (size_t di = 0; di < NDT; di++)
        for (int kind = SHK_COPY; kind <= SHK_FILL; kind++)
            for (int l = SHL_CONTIG; l <= SHL_STRIDED; l++) {
                if (kind == SHK_FILL && l == SHL_CONTIG) continue;
                const char *op = kind == SHK_COPY ? "copy" : "fill";
                if (offer(&w, kind, l, op, -1, dtypes[di].code, "sh_%s_to_%s_%s", op,
                          dtypes[di].tag, layout_tag(l)))
                    return true;
            }
    /* argmax over every dtype (argmax, max.dim); softmax and log_softmax over the floating
     * dtypes (strided only: any layout, the line walked with its stride) */
    static const char *const extra[] = {"argmax", "softmax", "log_softmax"};
    for (size_t e = 0; e < sizeof extra / sizeof extra[0]; e++)
        for (size_t di = 0; di < NDT; di++)
            for (int l = SHL_CONTIG; l <= SHL_STRIDED; l++) {
                if (e > 0 && (cat_of(&dtypes[di]) != 2 || l == SHL_CONTIG)) continue;
                if (offer(&w, e == 0 ? SHK_ARGMAX : SHK_SOFTMAX, l, extra[e], dtypes[di].code,
                          e == 0 ? SHIMRT_INT64 : dtypes[di].code, "sh_%s_%s_%s", extra[e],
                          dtypes[di].tag, layout_tag(l)))
                    return true;
            }
    /* index kernels: element size x index dtype (the element dtype names the size) */
    static const int32_t esz[] = {SHIMRT_UINT8, SHIMRT_INT16, SHIMRT_INT32, SHIMRT_INT64};
    static const int32_t ity[] = {SHIMRT_INT32, SHIMRT_INT64};
    for (size_t e = 0; e < 4; e++)
        for (size_t t = 0; t < 2; t++)
            if (offer(&w, SHK_INDEX, SHL_STRIDED, "index", ity[t], esz[e],
                      "sh_index_e%u_%s_strided", dt(esz[e])->size, dt(ity[t])->tag))
                return true;
    /* scatter (every dtype, int64 index: scatter.src and the scatter reductions) and layer
     * norm (floating dtypes, contiguous rows) */
    for (size_t di = 0; di < NDT; di++)
        if (offer(&w, SHK_SCATTER, SHL_STRIDED, "scatter", SHIMRT_INT64, dtypes[di].code,
                  "sh_scatter_%s_strided", dtypes[di].tag))
            return true;
    for (size_t di = 0; di < NDT; di++)
        if (cat_of(&dtypes[di]) == 2 &&
            offer(&w, SHK_LAYERNORM, SHL_CONTIG, "layer_norm", dtypes[di].code, dtypes[di].code,
                  "sh_layer_norm_%s_contig", dtypes[di].tag))
            return true;
    /* sort: the order keys of every dtype, one merge pass (dtype-free), the result writers
     * (element size) */
    for (size_t di = 0; di < NDT; di++)
        if (offer(&w, SHK_SORT, SHL_STRIDED, "sort_keys", dtypes[di].code, SHIMRT_INT64,
                  "sh_sort_keys_%s_strided", dtypes[di].tag))
            return true;
    if (offer(&w, SHK_SORT, SHL_CONTIG, "sort_merge", SHIMRT_INT64, SHIMRT_INT64,
              "sh_sort_merge_i64_contig"))
        return true;
    for (size_t e = 0; e < 4; e++)
        if (offer(&w, SHK_SORT, SHL_STRIDED, "sort_write", SHIMRT_INT64, esz[e],
                  "sh_sort_write_e%u_strided", dt(esz[e])->size))
            return true;
    if (count) *count = w.n;
    return false;
}

/* The catalogue, walked once per process: a launch finds its kernel by binary search on
 * the name instead of printing every name of the walk (674 snprintf calls per lookup). If
 * the table cannot be allocated, every call walks the catalogue again. */
static struct {
    pthread_once_t once;
    shimrt_cuda_kdesc *all;
    const shimrt_cuda_kdesc **by_name;
    size_t n;
} cat = {PTHREAD_ONCE_INIT, NULL, NULL, 0};

static int by_name_cmp(const void *a, const void *b) {
    return strcmp((*(const shimrt_cuda_kdesc *const *)a)->name,
                  (*(const shimrt_cuda_kdesc *const *)b)->name);
}

static void cat_init(void) {
    size_t n = 0;
    build(0, NULL, &n, NULL, NULL);
    shimrt_cuda_kdesc *all = malloc((n ? n : 1) * sizeof *all);
    const shimrt_cuda_kdesc **by = malloc((n ? n : 1) * sizeof *by);
    if (!all || !by) {
        free(all);
        free(by);
        return;
    }
    build(0, NULL, NULL, NULL, all);
    for (size_t i = 0; i < n; i++) by[i] = &all[i];
    qsort(by, n, sizeof *by, by_name_cmp);
    cat.all = all;
    cat.by_name = by;
    cat.n = n;
}

static bool cat_ready(void) {
    pthread_once(&cat.once, cat_init);
    return cat.all != NULL;
}

size_t shimrt_cuda_kernel_count(void) {
    if (cat_ready()) return cat.n;
    size_t n = 0;
    build(0, NULL, &n, NULL, NULL);
    return n;
}

bool shimrt_cuda_kernel_at(size_t i, shimrt_cuda_kdesc *out) {
    if (!cat_ready()) return build(i, out, NULL, NULL, NULL);
    if (i >= cat.n) return false;
    if (out) *out = cat.all[i];
    return true;
}

bool shimrt_cuda_kernel_find(const char *name, shimrt_cuda_kdesc *out) {
    if (!name) return false;
    if (cat_ready()) {
        size_t lo = 0, hi = cat.n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            int c = strcmp(name, cat.by_name[mid]->name);
            if (c == 0) {
                if (out) *out = *cat.by_name[mid];
                return true;
            }
            if (c < 0)
                hi = mid;
            else
                lo = mid + 1;
        }
        return false;
    }
    shimrt_cuda_kdesc tmp;
    if (!build((size_t)-1, &tmp, NULL, name, NULL)) return false;
    if (out) *out = tmp;
    return true;
}

/* ---- 32-bit offsets ---- */
/* The magic number of divisor d (1 <= d < 2^31) for n / d == (umulhi(n, m) + n) >> s, exact
 * for every n < 2^31 (Granlund and Montgomery; PyTorch's IntDivider does the same). */
static void magic_of(long long d, unsigned *m, unsigned char *s) {
    unsigned sh = 0;
    while (sh < 31 && (1ll << sh) < d) sh++;
    *m = d <= 1 ? 1u
                : (unsigned)(((1ull << 32) * ((1ull << sh) - (unsigned long long)d)) /
                                 (unsigned long long)d +
                             1);
    *s = (unsigned char)sh;
}

void shimrt_cuda_index32(sh_params *p) {
    const long long lim = 1ll << 31;
    p->idx32 = 0;
    if (p->n >= lim || p->rn >= lim || p->ndim > SH_MAXD || p->rndim > SH_MAXD) return;
    for (int s = 0; s < 4; s++) {
        long long reach = 0; /* the largest offset of operand s */
        for (int d = 0; d < p->ndim; d++) {
            if (p->st[s][d] < 0 || p->sizes[d] < 0 || p->sizes[d] >= lim) return;
            if (p->sizes[d] > 0 && p->st[s][d] >= lim) return;
            reach += (p->sizes[d] ? p->sizes[d] - 1 : 0) * p->st[s][d];
            if (reach >= lim) return;
        }
        for (int d = 0; s == 1 && d < p->rndim; d++) {
            if (p->rst[d] < 0 || p->rsizes[d] < 0 || p->rsizes[d] >= lim) return;
            if (p->rsizes[d] > 0 && p->rst[d] >= lim) return;
            reach += (p->rsizes[d] ? p->rsizes[d] - 1 : 0) * p->rst[d];
            if (reach >= lim) return;
        }
    }
    for (int d = 0; d < p->ndim; d++) magic_of(p->sizes[d], &p->mg[d], &p->msh[d]);
    for (int d = 0; d < p->rndim; d++) magic_of(p->rsizes[d], &p->rmg[d], &p->rmsh[d]);
    p->idx32 = 1;
}

/* ---- the prelude: the sh_* helpers for CUDA (NVRTC) and for the host emulation ---- */
#define SH_XSTR(...) SH_STR(__VA_ARGS__)
#define SH_STR(...) #__VA_ARGS__
static const char prelude[] =
    "/* shimrt CUDA prelude */\n"
    "#ifndef SH_PRELUDE\n#define SH_PRELUDE\n"
    "#define SH_MAXD " SH_XSTR(
        SH_MAXD) "\n"
                 "#ifndef SH_PARAMS_DEFINED\n#define SH_PARAMS_DEFINED\n" SH_XSTR(
                     SH_PARAMS_STRUCT) "\n#endif\n"
                                       "#ifdef __CUDACC__\n"
                                       "#define SH_KERNEL extern \"C\" __global__ void\n"
                                       "#define SH_DEV __device__ __forceinline__\n"
                                       "#define SH_ALIGN(n) alignas(n)\n"
                                       "#define SH_SHARED(T, name, n) __shared__ T name[n]\n"
                                       "#define SH_BOOL bool\n"
                                       "#define sh_sync() __syncthreads()\n"
                                       "#define SH_UNROLL _Pragma(\"unroll\")\n"
                                       "#define SH_MATH1(name, f32, f64) SH_DEV float name(float "
                                       "x) { return f32(x); } \\\n"
                                       "  SH_DEV double name(double x) { return f64(x); }\n"
                                       "SH_MATH1(sh_exp, expf, exp) SH_MATH1(sh_log, logf, log) "
                                       "SH_MATH1(sh_sqrt, sqrtf, sqrt)\n"
                                       "SH_MATH1(sh_rsqrt, rsqrtf, rsqrt) SH_MATH1(sh_tanh, tanhf, "
                                       "tanh)\n"
                                       "SH_MATH1(sh_floor, floorf, floor)\n"
                                       "SH_DEV float sh_sigmoid(float x) { return 1.0f / (1.0f + "
                                       "expf(-x)); }\n"
                                       "SH_DEV double sh_sigmoid(double x) { return 1.0 / (1.0 + "
                                       "exp(-x)); }\n"
                                       "template <typename T> __device__ T sh_lowest_of();\n"
                                       "template <> __device__ __forceinline__ bool "
                                       "sh_lowest_of<bool>() { return false; }\n"
                                       "template <> __device__ __forceinline__ unsigned char "
                                       "sh_lowest_of<unsigned char>() { return 0; }\n"
                                       "template <> __device__ __forceinline__ signed char "
                                       "sh_lowest_of<signed char>() { return -128; }\n"
                                       "template <> __device__ __forceinline__ short "
                                       "sh_lowest_of<short>() { return -32768; }\n"
                                       "template <> __device__ __forceinline__ int "
                                       "sh_lowest_of<int>() { return -2147483647 - 1; }\n"
                                       "template <> __device__ __forceinline__ long long "
                                       "sh_lowest_of<long long>() { return -9223372036854775807LL "
                                       "- 1; }\n"
                                       "template <> __device__ __forceinline__ float "
                                       "sh_lowest_of<float>() { return __int_as_float(0xff800000); "
                                       "}\n"
                                       "template <> __device__ __forceinline__ double "
                                       "sh_lowest_of<double>() { return "
                                       "__longlong_as_double(0xfff0000000000000ULL); }\n"
                                       "#define sh_lowest(T) sh_lowest_of<T>()\n"
                                       "template <typename T> __device__ T sh_highest_of();\n"
                                       "template <> __device__ __forceinline__ bool "
                                       "sh_highest_of<bool>() { return true; }\n"
                                       "template <> __device__ __forceinline__ unsigned char "
                                       "sh_highest_of<unsigned char>() { return 255; }\n"
                                       "template <> __device__ __forceinline__ signed char "
                                       "sh_highest_of<signed char>() { return 127; }\n"
                                       "template <> __device__ __forceinline__ short "
                                       "sh_highest_of<short>() { return 32767; }\n"
                                       "template <> __device__ __forceinline__ int "
                                       "sh_highest_of<int>() { return 2147483647; }\n"
                                       "template <> __device__ __forceinline__ long long "
                                       "sh_highest_of<long long>() { return 9223372036854775807LL; "
                                       "}\n"
                                       "template <> __device__ __forceinline__ float "
                                       "sh_highest_of<float>() { return "
                                       "__int_as_float(0x7f800000); }\n"
                                       "template <> __device__ __forceinline__ double "
                                       "sh_highest_of<double>() { return "
                                       "__longlong_as_double(0x7ff0000000000000ULL); }\n"
                                       "#define sh_highest(T) sh_highest_of<T>()\n"
                                       "#define SH_SHFL(T, W) SH_DEV T sh_shfl_down(T v, int o) { "
                                       "return (T)__shfl_down_sync(0xffffffffu, (W)v, o); }\n"
                                       "SH_SHFL(bool, int) SH_SHFL(unsigned char, int) "
                                       "SH_SHFL(signed char, int) SH_SHFL(short, int)\n"
                                       "SH_SHFL(int, int) SH_SHFL(long long, long long) "
                                       "SH_SHFL(float, float) SH_SHFL(double, double)\n"
                                       "SH_DEV float sh_h2f(unsigned short h) { float f; "
                                       "asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h)); "
                                       "return f; }\n"
                                       "SH_DEV unsigned short sh_f2h(float f) { unsigned short h; "
                                       "asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(f)); "
                                       "return h; }\n"
                                       "SH_DEV unsigned sh_f2u(float f) { return "
                                       "__float_as_uint(f); }\n"
                                       "SH_DEV float sh_u2f(unsigned u) { return "
                                       "__uint_as_float(u); }\n"
                                       "SH_DEV unsigned long long sh_d2u(double d) { return "
                                       "(unsigned long long)__double_as_longlong(d); }\n"
                                       "#define sh_umulhi(a, b) __umulhi((a), (b))\n"
                                       "#define SH_TID ((long long)threadIdx.x)\n"
                                       "#define SH_BID ((long long)blockIdx.x)\n"
                                       "#define SH_BDIM ((long long)blockDim.x)\n"
                                       "#define SH_GDIM ((long long)gridDim.x)\n"
                                       "SH_DEV void sh_index_error(long long *err, long long code, "
                                       "long long v, long long dim, long long lim) {\n"
                                       "  if (err && atomicCAS((unsigned long long *)err, 0ull, "
                                       "(unsigned long long)code) == 0ull) { err[1] = v; err[2] = "
                                       "dim; err[3] = lim; }\n}\n"
                                       "#else\n"
                                       "/* host emulation: tests/cuda/sh_emu.h defines sh_emu_* "
                                       "and the index variables */\n"
                                       "#define SH_KERNEL void\n"
                                       "#define SH_DEV static inline\n"
                                       "#define SH_ALIGN(n) _Alignas(n)\n"
                                       "#define SH_SHARED(T, name, n) T *name = (T "
                                       "*)sh_emu_shared(sizeof(T) * (n))\n"
                                       "#define SH_BOOL _Bool\n"
                                       "#define sh_sync() sh_emu_sync()\n"
                                       "#define SH_UNROLL\n"
                                       "#define sh_exp(x) _Generic((x), float: expf, default: "
                                       "exp)(x)\n"
                                       "#define sh_log(x) _Generic((x), float: logf, default: "
                                       "log)(x)\n"
                                       "#define sh_sqrt(x) _Generic((x), float: sqrtf, default: "
                                       "sqrt)(x)\n"
                                       "#define sh_rsqrt(x) _Generic((x), float: sh_emu_rsqrtf, "
                                       "default: sh_emu_rsqrt)(x)\n"
                                       "#define sh_tanh(x) _Generic((x), float: tanhf, default: "
                                       "tanh)(x)\n"
                                       "#define sh_floor(x) _Generic((x), float: floorf, default: "
                                       "floor)(x)\n"
                                       "#define sh_sigmoid(x) _Generic((x), float: "
                                       "sh_emu_sigmoidf, default: sh_emu_sigmoid)(x)\n"
                                       "#define sh_pow(x, y) _Generic((x), float: sh_powf_, "
                                       "double: sh_powd_, default: sh_powi_)((x), (y))\n"
                                       "#define sh_fma(x, y, z) _Generic((z), float: fmaf, double: "
                                       "fma, default: sh_fmai_)((x), (y), (z))\n"
                                       "#define sh_floordiv(a, b) _Generic((a), float: "
                                       "sh_floordivf_, double: sh_floordivd_, default: "
                                       "sh_floordivi_)((a), (b))\n"
                                       "#define sh_highest(T) _Generic((T)0, float: (T)INFINITY, "
                                       "double: (T)INFINITY, _Bool: (T)1, \\\n"
                                       "  unsigned char: (T)UCHAR_MAX, signed char: (T)SCHAR_MAX, "
                                       "short: (T)SHRT_MAX, int: (T)INT_MAX, \\\n"
                                       "  long long: (T)LLONG_MAX, default: (T)0)\n"
                                       "#define sh_lowest(T) _Generic((T)0, float: (T)-INFINITY, "
                                       "double: (T)-INFINITY, \\\n"
                                       "  signed char: (T)SCHAR_MIN, short: (T)SHRT_MIN, int: "
                                       "(T)INT_MIN, long long: (T)LLONG_MIN, \\\n"
                                       "  default: (T)0)\n"
                                       "#define sh_shfl_down(v, o) ({ __typeof__(v) sh_v_ = (v); "
                                       "sh_emu_shfl_down(&sh_v_, sizeof sh_v_, (o)); sh_v_; })\n"
                                       "#define sh_h2f(h) sh_emu_h2f(h)\n"
                                       "#define sh_f2h(f) sh_emu_f2h(f)\n"
                                       "#define sh_f2u(f) sh_emu_f2u(f)\n"
                                       "#define sh_u2f(u) sh_emu_u2f(u)\n"
                                       "#define sh_d2u(d) sh_emu_d2u(d)\n"
                                       "#define sh_umulhi(a, b) ((unsigned)(((unsigned long "
                                       "long)(a) * (unsigned long long)(b)) >> 32))\n"
                                       "#define SH_TID ((long long)sh_emu_ids.tid)\n"
                                       "#define SH_BID ((long long)sh_emu_ids.bid)\n"
                                       "#define SH_BDIM ((long long)sh_emu_ids.bdim)\n"
                                       "#define SH_GDIM ((long long)sh_emu_ids.gdim)\n"
                                       "static inline void sh_index_error(long long *err, long "
                                       "long "
                                       "code, long long v, long long dim, long long lim) {\n"
                                       "  long long z_ = 0;\n"
                                       "  if (err && __atomic_compare_exchange_n(err, &z_, code, "
                                       "0, "
                                       "__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) { err[1] = v; err[2] "
                                       "= "
                                       "dim; err[3] = lim; }\n}\n"
                                       "#endif\n"
                                       "/* type-generic in both languages */\n"
                                       "#define sh_isnan(x) ((x) != (x))\n"
                                       "#define sh_abs(x) ((x) < 0 ? -(x) : (x))\n"
                                       "#define sh_min(a, b) (sh_isnan(a) ? (a) : (b) < (a) ? (b) "
                                       ": (a))\n"
                                       "#define sh_max(a, b) (sh_isnan(a) ? (a) : (b) > (a) ? (b) "
                                       ": (a))\n"
                                       /* PyTorch's shifts: out of range gives 0 (or the sign fill); a shifted as unsigned */
                                       "#define sh_shl(a, b) ((long long)(b) < 0 || (long long)(b) "
                                       ">= (long long)sizeof(a) * 8 ? 0 : \\\n"
                                       "  (unsigned long long)(a) << (long long)(b))\n"
                                       "#define sh_shr(a, b) ((long long)(b) < 0 || (long long)(b) "
                                       ">= (long long)sizeof(a) * 8 ? ((long long)(a) < 0 ? -1 : "
                                       "0) : \\\n"
                                       "  (a) >> (long long)(b))\n"
                                       /* wrapping integer a*b+c, power by squaring, floor division: as runtime/ops/ops_math.h */
                                       "SH_DEV long long sh_fmai_(long long x, long long y, long "
                                       "long z) {\n"
                                       "  return (long long)((unsigned long long)x * (unsigned "
                                       "long long)y + (unsigned long long)z); }\n"
                                       "SH_DEV long long sh_powi_(long long b, long long e) {\n"
                                       "  if (e < 0) return b == 1 ? 1 : b == -1 ? ((e & 1) ? -1 : "
                                       "1) : 0;\n"
                                       "  unsigned long long r = 1, x = (unsigned long long)b;\n"
                                       "  while (e) { if (e & 1) r *= x; x *= x; e >>= 1; }\n"
                                       "  return (long long)r; }\n"
                                       "SH_DEV float sh_powf_(float b, float e) {\n"
                                       "  return e == 2.0f ? b * b : e == 3.0f ? b * b * b : e == "
                                       "0.5f ? sqrtf(b) : e == -0.5f ? 1.0f / sqrtf(b) : e == "
                                       "-1.0f ? 1.0f / b : e == -2.0f ? 1.0f / (b * b) : powf(b, "
                                       "e); }\n"
                                       "SH_DEV double sh_powd_(double b, double e) {\n"
                                       "  return e == 2.0 ? b * b : e == 3.0 ? b * b * b : e == "
                                       "0.5 ? sqrt(b) : e == -0.5 ? 1.0 / sqrt(b) : e == -1.0 ? "
                                       "1.0 / b : e == -2.0 ? 1.0 / (b * b) : pow(b, e); }\n"
                                       "#define SH_FLOORDIV_F(NAME, T, FMOD, FLOOR, COPYSIGN) "
                                       "SH_DEV T NAME(T a, T b) { \\\n"
                                       "  if (b == 0) return a / b; \\\n"
                                       "  T mod = FMOD(a, b); T div = (a - mod) / b; \\\n"
                                       "  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1; \\\n"
                                       "  T fd; if (div != 0) { fd = FLOOR(div); if (div - fd > "
                                       "(T)0.5) fd += 1; } \\\n"
                                       "  else { fd = COPYSIGN((T)0, a / b); } return fd; }\n"
                                       "SH_FLOORDIV_F(sh_floordivf_, float, fmodf, floorf, "
                                       "copysignf)\n"
                                       "SH_FLOORDIV_F(sh_floordivd_, double, fmod, floor, "
                                       "copysign)\n"
                                       "SH_DEV long long sh_floordivi_(long long a, long long b) "
                                       "{\n"
                                       "  if (b == -1) return (long long)(0ull - (unsigned long "
                                       "long)a);\n"
                                       "  if (b == 0) return 0;\n"
                                       "  long long q = a / b, r = a % b;\n"
                                       "  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q; }\n"
                                       "#ifdef __CUDACC__\n"
                                       "SH_DEV float sh_pow(float x, float y) { return sh_powf_(x, "
                                       "y); }\n"
                                       "SH_DEV double sh_pow(double x, double y) { return "
                                       "sh_powd_(x, y); }\n"
                                       "template <typename T> SH_DEV T sh_pow(T x, T y) { return "
                                       "(T)sh_powi_((long long)x, (long long)y); }\n"
                                       "SH_DEV float sh_fma(float x, float y, float z) { return "
                                       "fmaf(x, y, z); }\n"
                                       "SH_DEV double sh_fma(double x, double y, double z) { "
                                       "return fma(x, y, z); }\n"
                                       "template <typename A, typename B, typename C> SH_DEV C "
                                       "sh_fma(A x, B y, C z) { return (C)sh_fmai_((long long)x, "
                                       "(long long)y, (long long)z); }\n"
                                       "SH_DEV float sh_floordiv(float a, float b) { return "
                                       "sh_floordivf_(a, b); }\n"
                                       "SH_DEV double sh_floordiv(double a, double b) { return "
                                       "sh_floordivd_(a, b); }\n"
                                       "template <typename T> SH_DEV T sh_floordiv(T a, T b) { "
                                       "return (T)sh_floordivi_((long long)a, (long long)b); }\n"
                                       "#endif\n"
                                       "SH_DEV float sh_bf2f(unsigned short b) { return "
                                       "sh_u2f((unsigned)b << 16); }\n"
                                       "SH_DEV unsigned short sh_f2bf(float f) {\n"
                                       "  unsigned u = sh_f2u(f);\n"
                                       "  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned "
                                       "short)((u >> 16) | 0x40u);\n"
                                       "  return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) "
                                       ">> 16);\n"
                                       "}\n"
                                       /* the element offsets of flat index j in operands 0..3 (strided class): 32-bit with
     * magic-number division when the host set idx32 (shimrt_cuda_index32), else 64-bit */
                                       "#define SH_DIV32(n, m, s) ((sh_umulhi((n), (m)) + (n)) >> "
                                       "(s))\n"
                                       "#define SH_OFFSETS4(p, j, o0, o1, o2, o3) do { \\\n"
                                       "  if ((p).idx32) { unsigned r_ = (unsigned)(j), a0_ = 0, "
                                       "a1_ = 0, a2_ = 0, a3_ = 0; \\\n"
                                       "    for (int d_ = (p).ndim - 1; d_ >= 0; d_--) { unsigned "
                                       "q_ = SH_DIV32(r_, (p).mg[d_], (p).msh[d_]); \\\n"
                                       "      unsigned c_ = r_ - q_ * (unsigned)(p).sizes[d_]; r_ "
                                       "= q_; a0_ += c_ * (unsigned)(p).st[0][d_]; a1_ += c_ * "
                                       "(unsigned)(p).st[1][d_]; a2_ += c_ * "
                                       "(unsigned)(p).st[2][d_]; a3_ += c_ * "
                                       "(unsigned)(p).st[3][d_]; } \\\n"
                                       "    o0 = a0_; o1 = a1_; o2 = a2_; o3 = a3_; \\\n"
                                       "  } else { long long r_ = (j); o0 = o1 = o2 = o3 = 0; \\\n"
                                       "    for (int d_ = (p).ndim - 1; d_ >= 0; d_--) { long long "
                                       "c_ = r_ % (p).sizes[d_]; r_ /= (p).sizes[d_]; \\\n"
                                       "      o0 += c_ * (p).st[0][d_]; o1 += c_ * (p).st[1][d_]; "
                                       "o2 += c_ * (p).st[2][d_]; o3 += c_ * (p).st[3][d_]; } } } "
                                       "while (0)\n"
                                       "#define SH_OFFSETS(p, j, o0, o1, o2) do { \\\n"
                                       "  if ((p).idx32) { unsigned r_ = (unsigned)(j), a0_ = 0, "
                                       "a1_ = 0, a2_ = 0; \\\n"
                                       "    for (int d_ = (p).ndim - 1; d_ >= 0; d_--) { unsigned "
                                       "q_ = SH_DIV32(r_, (p).mg[d_], (p).msh[d_]); \\\n"
                                       "      unsigned c_ = r_ - q_ * (unsigned)(p).sizes[d_]; r_ "
                                       "= q_; a0_ += c_ * (unsigned)(p).st[0][d_]; a1_ += c_ * "
                                       "(unsigned)(p).st[1][d_]; a2_ += c_ * "
                                       "(unsigned)(p).st[2][d_]; } \\\n"
                                       "    o0 = a0_; o1 = a1_; o2 = a2_; \\\n"
                                       "  } else { long long r_ = (j); o0 = o1 = o2 = 0; \\\n"
                                       "    for (int d_ = (p).ndim - 1; d_ >= 0; d_--) { long long "
                                       "c_ = r_ % (p).sizes[d_]; r_ /= (p).sizes[d_]; \\\n"
                                       "      o0 += c_ * (p).st[0][d_]; o1 += c_ * (p).st[1][d_]; "
                                       "o2 += c_ * (p).st[2][d_]; } } } while (0)\n"
                                       /* off += the offset of reduced element q (rsizes, rst) */
                                       "#define SH_ROFF(p, q, off) do { \\\n"
                                       "  if ((p).idx32) { unsigned r_ = (unsigned)(q), a_ = 0; "
                                       "\\\n"
                                       "    for (int d_ = (p).rndim - 1; d_ >= 0; d_--) { unsigned "
                                       "q_ = SH_DIV32(r_, (p).rmg[d_], (p).rmsh[d_]); \\\n"
                                       "      a_ += (r_ - q_ * (unsigned)(p).rsizes[d_]) * "
                                       "(unsigned)(p).rst[d_]; r_ = q_; } off += a_; \\\n"
                                       "  } else { long long r_ = (q); \\\n"
                                       "    for (int d_ = (p).rndim - 1; d_ >= 0; d_--) { off += "
                                       "(r_ % (p).rsizes[d_]) * (p).rst[d_]; r_ /= (p).rsizes[d_]; "
                                       "} \\\n"
                                       "  } } while (0)\n"
                                       "#endif\n";

const char *shimrt_cuda_prelude(void) { return prelude; }

/* ---- bodies ---- */
static void ld_macro(FILE *f, const char *name, const dtype_info *d) {
    switch (d->code) {
    case SHIMRT_FLOAT16: fprintf(f, "#define %s(v) ((T)sh_h2f(v))\n", name); break;
    case SHIMRT_BFLOAT16: fprintf(f, "#define %s(v) ((T)sh_bf2f(v))\n", name); break;
    case SHIMRT_BOOL: fprintf(f, "#define %s(v) ((T)((v) != 0))\n", name); break;
    default: fprintf(f, "#define %s(v) ((T)(v))\n", name); break;
    }
}
static void st_macro(FILE *f, const dtype_info *d) {
    switch (d->code) {
    case SHIMRT_FLOAT16: fputs("#define SH_ST(v) sh_f2h((float)(v))\n", f); break;
    case SHIMRT_BFLOAT16: fputs("#define SH_ST(v) sh_f2bf((float)(v))\n", f); break;
    case SHIMRT_BOOL: fputs("#define SH_ST(v) ((unsigned char)((v) != 0))\n", f); break;
    default: fputs("#define SH_ST(v) ((O)(v))\n", f); break;
    }
}

/* The grid-stride element loop: `STMT` computes r (type T) for element j reading
 * in0[o1] (and in1[o2]); contiguous kernels add a 128-bit vector loop. */
static void elementwise(FILE *f, const shimrt_cuda_kdesc *k, const row *r, unsigned vec) {
    bool bin = k->kind == SHK_BINARY;
    fprintf(f, "SH_KERNEL %s(sh_params p) {\n", k->name);
    fputs("  const S *in0 = (const S *)p.in0; O *out = (O *)p.out;\n", f);
    if (bin)
        fputs("  const S *in1 = (const S *)p.in1; T alpha = (T)p.alpha; (void)alpha;\n", f);
    else
        fputs("  T p0 = (T)p.p0, p1 = (T)p.p1; (void)p0; (void)p1;\n", f);
    fputs("  long long n = p.n, i0 = SH_BID * SH_BDIM + SH_TID, step = SH_GDIM * SH_BDIM;\n", f);
    const char *calc =
        bin ? "T a = SH_LD(A_); T b = p.b_scalar ? (T)p.bval : SH_LD(B_);" : "T x = SH_LD(A_);";
    if (k->layout == SHL_CONTIG) {
        fprintf(f, "  long long nv = p.vec_ok ? n / %u : 0;\n", vec);
        fprintf(f,
                "  for (long long v = i0; v < nv; v += step) {\n"
                "    %s_vi va = ((const %s_vi *)in0)[v];\n",
                k->name, k->name);
        if (bin)
            fprintf(f, "    %s_vi vb; if (!p.b_scalar) vb = ((const %s_vi *)in1)[v];\n", k->name,
                    k->name);
        fprintf(f, "    %s_vo vr;\n    SH_UNROLL for (int e = 0; e < %u; e++) {\n", k->name, vec);
        fputs("#define A_ va.v[e]\n#define B_ vb.v[e]\n", f);
        fprintf(f, "      %s\n      vr.v[e] = SH_ST(%s);\n", calc, r->expr);
        fputs("#undef A_\n#undef B_\n    }\n", f);
        fprintf(f, "    ((%s_vo *)out)[v] = vr;\n  }\n", k->name);
        fprintf(f, "  for (long long j = nv * %u + i0; j < n; j += step) {\n", vec);
        fputs("#define A_ in0[j]\n#define B_ in1[j]\n", f);
        fprintf(f, "    %s\n    out[j] = SH_ST(%s);\n", calc, r->expr);
        fputs("#undef A_\n#undef B_\n  }\n}\n", f);
    } else {
        fputs("  for (long long j = i0; j < n; j += step) {\n"
              "    long long o0, o1, o2; SH_OFFSETS(p, j, o0, o1, o2); (void)o2;\n",
              f);
        fputs("#define A_ in0[o1]\n#define B_ in1[o2]\n", f);
        fprintf(f, "    %s\n    out[o0] = SH_ST(%s);\n", calc, r->expr);
        fputs("#undef A_\n#undef B_\n  }\n}\n", f);
    }
}

/* A ternary row (where): c from the bool condition in0, a and b from in1 and in2; a
 * grid-stride loop over flat indices (contig) or the strided walk of four operands. */
static void ternary(FILE *f, const shimrt_cuda_kdesc *k, const row *r) {
    fprintf(f, "SH_KERNEL %s(sh_params p) {\n", k->name);
    fputs("  const unsigned char *in0 = (const unsigned char *)p.in0; O *out = (O *)p.out;\n"
          "  const S *in1 = (const S *)p.in1, *in2 = (const S *)p.in2;\n",
          f);
    fputs("  long long n = p.n, i0 = SH_BID * SH_BDIM + SH_TID, step = SH_GDIM * SH_BDIM;\n", f);
    fputs("  for (long long j = i0; j < n; j += step) {\n", f);
    if (k->layout == SHL_CONTIG)
        fputs("    long long o0 = j, o1 = j, o2 = j, o3 = j;\n", f);
    else
        fputs("    long long o0, o1, o2, o3; SH_OFFSETS4(p, j, o0, o1, o2, o3);\n", f);
    fprintf(f,
            "    SH_BOOL c = in0[o1] != 0; T a = SH_LD(in1[o2]); T b = SH_LD(in2[o3]);\n"
            "    out[o0] = SH_ST(%s);\n  }\n}\n",
            r->expr);
}

/* Reductions (docs/cuda.md, "Reductions"): a block reduces one unit, a whole output
 * (p.rpass 0), a chunk of p.rchunk reduced elements of one (pass 1: p.n = outputs x
 * p.rsplit chunks, each partial to the scratch in2 at its unit's index) or one output's
 * p.rsplit partials in order (pass 2); grid-stride over units, so any grid gives the same
 * result. The walk of a unit's reduced range [q0, q1) visits each element as x (type T) at
 * reduced index q with VISIT. Contiguous kernels read 16-byte vectors of V elements from the
 * first aligned element (p.vec_ok: in0 is element-aligned), four in flight per thread, then
 * the tail; strided ones compute each offset (SH_ROFF). */
static void reduce_walk(FILE *f, const shimrt_cuda_kdesc *k, unsigned vec, const char *visit,
                        bool want_q) {
    /* argmax wants q; the others do not name it (NVRTC warns of a variable set, not used) */
    const char *lq = want_q ? "long long q = " : "/* q = ";
    const char *rq = want_q ? ";" : " */";
    if (k->layout == SHL_CONTIG) {
        fputs(
            "      const S *b_ = in0 + io + q0; long long m_ = q1 - q0;\n"
            "      long long h_ = p.vec_ok ? (long long)((16u - ((unsigned long long)b_ & 15u)) & "
            "15u) / (long long)sizeof(S) : m_;\n"
            "      if (h_ > m_) h_ = m_;\n"
            "      for (long long i_ = SH_TID; i_ < h_; i_ += SH_BDIM) {\n",
            f);
        fprintf(f, "        %sq0 + i_%s T x = SH_LD(b_[i_]); %s\n      }\n", lq, rq, visit);
        fprintf(
            f,
            "      const %s_vi *vb_ = (const %s_vi *)(b_ + h_);\n"
            "      long long nv_ = (m_ - h_) / %u, v_ = SH_TID;\n"
            "      for (; v_ + 3 * SH_BDIM < nv_; v_ += 4 * SH_BDIM) {\n"
            "        %s_vi r_[4];\n"
            "        SH_UNROLL for (int u_ = 0; u_ < 4; u_++) r_[u_] = vb_[v_ + u_ * SH_BDIM];\n"
            "        SH_UNROLL for (int u_ = 0; u_ < 4; u_++) SH_UNROLL for (int e_ = 0; e_ < "
            "%u; e_++) {\n",
            k->name, k->name, vec, k->name, vec);
        fprintf(f,
                "          %sq0 + h_ + (v_ + u_ * SH_BDIM) * %u + e_%s T x = "
                "SH_LD(r_[u_].v[e_]); %s\n        }\n      }\n",
                lq, vec, rq, visit);
        fprintf(f,
                "      for (; v_ < nv_; v_ += SH_BDIM) {\n        %s_vi r_ = vb_[v_];\n"
                "        SH_UNROLL for (int e_ = 0; e_ < %u; e_++) {\n"
                "          %sq0 + h_ + v_ * %u + e_%s T x = SH_LD(r_.v[e_]); %s\n"
                "        }\n      }\n",
                k->name, vec, lq, vec, rq, visit);
        fprintf(f,
                "      for (long long i_ = h_ + nv_ * %u + SH_TID; i_ < m_; i_ += SH_BDIM) {\n"
                "        %sq0 + i_%s T x = SH_LD(b_[i_]); %s\n      }\n",
                vec, lq, rq, visit);
    } else {
        fprintf(f,
                "      for (long long q = q0 + SH_TID; q < q1; q += SH_BDIM) {\n"
                "        long long off = io; SH_ROFF(p, q, off); T x = SH_LD(in0[off]); %s\n"
                "      }\n",
                visit);
    }
}

/* The unit loop's head: o (the output), oo/io (its offsets in out and in0), q0/q1. */
static void reduce_unit_head(FILE *f) {
    fputs("  for (long long u = SH_BID; u < p.n; u += SH_GDIM) {\n"
          "    long long o = p.rpass == 1 ? u / p.rsplit : u;\n"
          "    long long oo, io, unused_; SH_OFFSETS(p, o, oo, io, unused_); (void)unused_;\n",
          f);
}
static void reduce_range(FILE *f) {
    fputs("      long long q0 = p.rpass == 1 ? (u - o * p.rsplit) * p.rchunk : 0;\n"
          "      long long q1 = p.rpass == 1 && q0 + p.rchunk < p.rn ? q0 + p.rchunk : p.rn;\n",
          f);
}

/* A reduction; a floating one divides its result by p.bval when p.b_scalar (mean). */
static void reduction(FILE *f, const shimrt_cuda_kdesc *k, const row *r, bool flt, unsigned vec) {
    fprintf(f, "SH_KERNEL %s(sh_params p) {\n", k->name);
    fputs("  const S *in0 = (const S *)p.in0; O *out = (O *)p.out; T *pv = (T *)p.in2;\n", f);
    fprintf(f, "  SH_SHARED(T, part, 32);\n");
    fputs("  long long lane = SH_TID & 31, warp = SH_TID >> 5, nwarps = SH_BDIM >> 5;\n", f);
    reduce_unit_head(f);
    fprintf(f, "    T acc = %s;\n", r->expr);
    fputs("    if (p.rpass == 2) {\n"
          "      for (long long c = SH_TID; c < p.rsplit; c += SH_BDIM) {\n"
          "        T x = pv[o * p.rsplit + c];\n",
          f);
    fprintf(f, "        acc = %s;\n      }\n    } else {\n", r->merge);
    reduce_range(f);
    char visit[512];
    snprintf(visit, sizeof visit, "acc = %s;", r->combine);
    reduce_walk(f, k, vec, visit, false);
    fputs("    }\n", f);
    fprintf(f, "    for (int s = 16; s > 0; s >>= 1) { T x = sh_shfl_down(acc, s); acc = %s; }\n",
            r->merge);
    fputs("    if (lane == 0) part[warp] = acc;\n    sh_sync();\n", f);
    fprintf(f, "    if (warp == 0) {\n      acc = lane < nwarps ? part[lane] : %s;\n", r->expr);
    fprintf(f, "      for (int s = 16; s > 0; s >>= 1) { T x = sh_shfl_down(acc, s); acc = %s; }\n",
            r->merge);
    fputs("      if (lane == 0 && p.rpass == 1) pv[u] = acc;\n"
          "      else if (lane == 0) {\n",
          f);
    if (flt) fputs("        if (p.b_scalar) acc = acc / (T)p.bval;\n", f);
    fputs("        out[oo] = SH_ST(acc);\n      }\n    }\n    sh_sync();\n  }\n}\n", f);
}

/* The block-wide merge of every thread's `acc` (type T) with MERGE (over acc and x): warp
 * shuffles, then one partial per warp through shared memory `part`; warp 0's lane 0 ends
 * with the result. */
static void block_merge(FILE *f, const char *merge, const char *idle) {
    fprintf(f, "    for (int s = 16; s > 0; s >>= 1) { T x = sh_shfl_down(acc, s); acc = %s; }\n",
            merge);
    fputs("    if (lane == 0) part[warp] = acc;\n    sh_sync();\n", f);
    fprintf(f, "    if (warp == 0) {\n      acc = lane < nwarps ? part[lane] : %s;\n", idle);
    fprintf(f, "      for (int s = 16; s > 0; s >>= 1) { T x = sh_shfl_down(acc, s); acc = %s; }\n",
            merge);
    fputs("      if (lane == 0) part[0] = acc;\n    }\n    sh_sync();\n"
          "    acc = part[0];\n    sh_sync();\n",
          f);
}

/* argmax: each thread keeps (value, index) of its slice's first maximum; pairs merge
 * through shuffles and shared memory. A NaN beats any number (the first NaN wins), equal
 * values keep the lower index; index -1 marks an empty partner. */
static void argmax_kernel(FILE *f, const shimrt_cuda_kdesc *k, unsigned vec) {
    fputs("#define SH_TAKE(v, i, b, bi) ((bi) < 0 || ((i) >= 0 && (sh_isnan(v) ? "
          "(!sh_isnan(b) || (i) < (bi)) : (!sh_isnan(b) && ((v) > (b) || ((v) == (b) && "
          "(i) < (bi)))))))\n",
          f);
    fprintf(f, "SH_KERNEL %s(sh_params p) {\n", k->name);
    fputs("  const S *in0 = (const S *)p.in0; long long *out = (long long *)p.out;\n"
          "  S *vals = (S *)p.in1;\n"
          "  /* split passes: the partials' values then their indices in in2 */\n"
          "  long long units = p.rpass == 2 ? p.n * p.rsplit : p.n;\n"
          "  T *pv = (T *)p.in2; long long *pi = p.in2 ? (long long *)(p.in2 + units * 8) : 0;\n",
          f);
    fputs("  SH_SHARED(T, part, 32);\n  SH_SHARED(long long, pidx, 32);\n", f);
    fputs("  long long lane = SH_TID & 31, warp = SH_TID >> 5, nwarps = SH_BDIM >> 5;\n", f);
    reduce_unit_head(f);
    fputs("    T best = (T)0; long long bi = -1;\n"
          "    if (p.rpass == 2) {\n"
          "      for (long long c = SH_TID; c < p.rsplit; c += SH_BDIM) {\n"
          "        T x = pv[o * p.rsplit + c]; long long xi = pi[o * p.rsplit + c];\n"
          "        if (SH_TAKE(x, xi, best, bi)) { best = x; bi = xi; }\n      }\n"
          "    } else {\n",
          f);
    reduce_range(f);
    reduce_walk(f, k, vec, "if (SH_TAKE(x, q, best, bi)) { best = x; bi = q; }", true);
    fputs("    }\n", f);
    const char *shfl = "for (int s = 16; s > 0; s >>= 1) {\n"
                       "      T xv = sh_shfl_down(best, s); long long xi = sh_shfl_down(bi, s);\n"
                       "      if (SH_TAKE(xv, xi, best, bi)) { best = xv; bi = xi; }\n    }\n";
    fprintf(f, "    %s", shfl);
    fputs("    if (lane == 0) { part[warp] = best; pidx[warp] = bi; }\n    sh_sync();\n"
          "    if (warp == 0) {\n"
          "      best = part[lane < nwarps ? lane : 0]; bi = lane < nwarps ? pidx[lane] : -1;\n",
          f);
    fprintf(f, "    %s", shfl);
    fputs("      if (lane == 0 && p.rpass == 1) { pv[u] = best; pi[u] = bi; }\n"
          "      else if (lane == 0) { out[oo] = bi; if (vals) vals[oo] = SH_ST(best); }\n"
          "    }\n    sh_sync();\n  }\n}\n#undef SH_TAKE\n",
          f);
}

/* softmax / log_softmax along one dim: one block per line (the line's start from the kept
 * dims' strides); the line's max and sum of exp(x - max) merged over the block, then every
 * output written. T is float for float16/bfloat16/float32, double for float64. */
static void softmax_kernel(FILE *f, const shimrt_cuda_kdesc *k) {
    bool logsm = !strcmp(k->op, "log_softmax");
    fprintf(f, "SH_KERNEL %s(sh_params p) {\n", k->name);
    fputs("  const S *in0 = (const S *)p.in0; O *out = (O *)p.out;\n"
          "  long long len = p.rsizes[0], ist = p.rst[0], ost = p.rst[1];\n",
          f);
    fputs("  SH_SHARED(T, part, 32);\n", f);
    fputs("  long long lane = SH_TID & 31, warp = SH_TID >> 5, nwarps = SH_BDIM >> 5;\n", f);
    fputs("  for (long long o = SH_BID; o < p.n; o += SH_GDIM) {\n"
          "    long long oo, io, unused_; SH_OFFSETS(p, o, oo, io, unused_); (void)unused_;\n"
          "    T acc = sh_lowest(T);\n"
          "    for (long long q = SH_TID; q < len; q += SH_BDIM) {\n"
          "      T x = SH_LD(in0[io + q * ist]); acc = (x > acc || sh_isnan(x)) ? x : acc;\n"
          "    }\n",
          f);
    block_merge(f, "(x > acc || sh_isnan(x)) ? x : acc", "sh_lowest(T)");
    fputs("    T mx = acc;\n    acc = (T)0;\n"
          "    for (long long q = SH_TID; q < len; q += SH_BDIM) "
          "acc = acc + sh_exp(SH_LD(in0[io + q * ist]) - mx);\n",
          f);
    block_merge(f, "acc + x", "(T)0");
    if (logsm) fputs("    T lse = sh_log(acc);\n", f);
    fputs("    for (long long q = SH_TID; q < len; q += SH_BDIM) {\n"
          "      T x = SH_LD(in0[io + q * ist]) - mx;\n",
          f);
    fprintf(f, "      out[oo + q * ost] = SH_ST(%s);\n    }\n  }\n}\n",
            logsm ? "x - lse" : "sh_exp(x) / acc");
}

/* scatter / scatter_reduce: one thread per line of the index along the dim (the index
 * positions that differ only there), walking it in order, so the threads write disjoint
 * elements of out (its other coordinates are the index's) and the result is the CPU
 * kernel's row-major walk: the last write wins for a copy, each element accumulates in the
 * same order. Accumulators (T: double, or int64 for integers and bool) and counts live in
 * the scratch in2, out's size along the dim per line. */
static void scatter_kernel(FILE *f, const shimrt_cuda_kdesc *k, const dtype_info *d) {
    if (cat_of(d) == 2)
        fputs("#define SH_ADD(a, b) ((a) + (b))\n#define SH_MUL(a, b) ((a) * (b))\n"
              "#define SH_MEAN(a, c) ((a) / (T)(c))\n",
              f);
    else /* integers wrap; mean floors (PyTorch's integer mean) */
        fputs("#define SH_ADD(a, b) ((T)((unsigned long long)(a) + (unsigned long long)(b)))\n"
              "#define SH_MUL(a, b) ((T)((unsigned long long)(a) * (unsigned long long)(b)))\n"
              "#define SH_MEAN(a, c) ((T)sh_floordivi_((a), (c)))\n",
              f);
    fprintf(f, "SH_KERNEL %s(sh_params p) {\n", k->name);
    fputs(
        "  const S *src = (const S *)p.in0; O *out = (O *)p.out;\n"
        "  const long long *ix = (const long long *)p.in1;\n"
        "  T *acc = (T *)p.in2; long long *cnt = (long long *)(p.in2 + p.rn * 8);\n"
        "  long long len = p.rsizes[0], lim = p.rsizes[1], mode = p.b_scalar;\n"
        "  long long n = p.n, i0 = SH_BID * SH_BDIM + SH_TID, step = SH_GDIM * SH_BDIM;\n"
        "  for (long long j = i0; j < n; j += step) {\n"
        "    long long oo, so, io; SH_OFFSETS(p, j, oo, so, io);\n"
        "    if (mode == 0) {\n"
        "      for (long long q = 0; q < len; q++) {\n"
        "        long long v = ix[io + q * p.rst[2]];\n"
        "        if (v < -lim || v >= lim) { sh_index_error(p.err, 2, v, p.rsizes[2], lim); "
        "continue; }\n"
        "        if (v < 0) v += lim;\n"
        "        out[oo + v * p.rst[0]] = src[so + q * p.rst[1]];\n"
        "      }\n      continue;\n    }\n"
        "    T *a = acc + j * lim; long long *c = cnt + j * lim;\n"
        "    for (long long q = 0; q < lim; q++) {\n"
        "      c[q] = p.vec_ok ? 1 : 0; a[q] = p.vec_ok ? SH_LD(out[oo + q * p.rst[0]]) : (T)0;\n"
        "    }\n"
        "    for (long long q = 0; q < len; q++) {\n"
        "      long long v = ix[io + q * p.rst[2]];\n"
        "      if (v < -lim || v >= lim) { sh_index_error(p.err, 2, v, p.rsizes[2], lim); "
        "continue; }\n"
        "      if (v < 0) v += lim;\n"
        "      T x = SH_LD(src[so + q * p.rst[1]]);\n"
        "      if (c[v] == 0) a[v] = x;\n"
        "      else if (mode == 1 || mode == 3) a[v] = SH_ADD(a[v], x);\n"
        "      else if (mode == 2) a[v] = SH_MUL(a[v], x);\n"
        "      else if (mode == 4) { if (sh_isnan(x) || x > a[v]) a[v] = x; }\n"
        "      else if (sh_isnan(x) || x < a[v]) a[v] = x;\n"
        "      c[v]++;\n    }\n"
        "    for (long long q = 0; q < lim; q++)\n"
        "      if (c[q]) out[oo + q * p.rst[0]] = SH_ST(mode == 3 ? SH_MEAN(a[q], c[q]) : a[q]);\n"
        "  }\n}\n#undef SH_ADD\n#undef SH_MUL\n#undef SH_MEAN\n",
        f);
}

/* native_layer_norm: one block per row of N contiguous elements; the mean, then the mean
 * of squared deviations (two passes, as the CPU kernel), each merged over the block, then
 * the outputs (x - mean) * rstd * weight + bias. T: float for float16/bfloat16/float32,
 * double for float64; mean and rstd stored as T, PyTorch's CUDA accumulate type (its CPU
 * kernel stores them in the input's dtype); an empty row: mean 0, rstd NaN, as the CPU
 * kernel. */
static void layer_norm_kernel(FILE *f, const shimrt_cuda_kdesc *k) {
    fprintf(f, "SH_KERNEL %s(sh_params p) {\n", k->name);
    fputs("  const S *in0 = (const S *)p.in0; O *out = (O *)p.out;\n"
          "  const T *wb = (const T *)p.in1; T *stats = (T *)p.in2;\n"
          "  long long N = p.rn;\n",
          f);
    fputs("  SH_SHARED(T, part, 32);\n", f);
    fputs("  long long lane = SH_TID & 31, warp = SH_TID >> 5, nwarps = SH_BDIM >> 5;\n", f);
    fputs("  for (long long o = SH_BID; o < p.n; o += SH_GDIM) {\n"
          "    const S *xs = in0 + o * N;\n"
          "    T acc = (T)0;\n"
          "    for (long long q = SH_TID; q < N; q += SH_BDIM) acc = acc + SH_LD(xs[q]);\n",
          f);
    block_merge(f, "acc + x", "(T)0");
    fputs("    T mu = N ? acc / (T)N : (T)0;\n    acc = (T)0;\n"
          "    for (long long q = SH_TID; q < N; q += SH_BDIM) {\n"
          "      T d = SH_LD(xs[q]) - mu; acc = acc + d * d;\n    }\n",
          f);
    block_merge(f, "acc + x", "(T)0");
    fputs("    T r = (T)1 / sh_sqrt(acc / (T)N + (T)p.alpha); /* N == 0: NaN */\n"
          "    for (long long q = SH_TID; q < N; q += SH_BDIM) {\n"
          "      T y = (SH_LD(xs[q]) - mu) * r;\n"
          "      if (wb) y = y * wb[q] + wb[N + q];\n"
          "      out[o * N + q] = SH_ST(y);\n    }\n"
          "    if (SH_TID == 0) { stats[o] = mu; stats[p.n + o] = r; }\n"
          "  }\n}\n",
          f);
}

/* The merge passes' search, indented by ind: the element u at position i of the run of width w
 * that starts at start finds the sibling run [lo, hi) (clipped to len) and a, lo plus the
 * sibling's elements ordered before u (keys < u for a left run's element, <= u for a right
 * run's); mid names the bisection's variable, key_at the sibling's key at it, note a comment
 * line or "". */
static void merge_search(FILE *f, int ind, const char *len, const char *mid, const char *key_at,
                         const char *note) {
    fprintf(f, "%*sint left = (start / w) %% 2 == 0;\n", ind, "");
    fprintf(f,
            "%*sif (left) { lo = start + w; hi = start + 2 * w; } else { lo = start - w; hi = "
            "start; }\n",
            ind, "");
    fprintf(f, "%*sif (lo > %s) lo = %s;\n%*sif (hi > %s) hi = %s;\n", ind, "", len, len, ind, "",
            len, len);
    fprintf(f, "%s%*slong long a = lo, b = hi;\n%*swhile (a < b) {\n", note, ind, "", ind, "");
    fprintf(f, "%*s  long long %s = a + (b - a) / 2; unsigned long long v = %s;\n", ind, "", mid,
            key_at);
    fprintf(f, "%*s  if (v < u || (!left && v == u)) a = %s + 1; else b = %s;\n%*s}\n", ind, "",
            mid, mid, ind, "");
}

/* sort (always stable, as the CPU's stable sort, runtime/cpu/sortops.c): the elements become
 * unsigned 64-bit keys whose order is the sort's order (integers offset by 2^63; floating
 * values through double: -0.0 as 0.0, the sign-magnitude bits turned into an unsigned order,
 * every NaN one key above +inf; descending complements the key, so NaN comes first and ties
 * stay ties), each with its position along its line. Then log2(len) merge passes, each
 * element of a run finding its place by a binary search in the sibling run: its rank in its
 * own run plus the sibling's elements ordered before it (a left run's element goes before
 * the right run's equal keys, a right run's after the left run's: stability). Fully
 * parallel, no atomics, deterministic. The writer copies each value from its source
 * position (its bits, as the CPU's memcpy). */
/* The keys kernel also sorts tiles: one block per tile of T = p.rsizes[2] (<= 256)
 * consecutive elements of a line (p.n tiles; p.rsizes[1] the element count), the threads
 * striding over the tile's elements: their keys, then log2(T) merge passes in shared
 * memory, then the sorted tile to the buffer; the global passes start at runs of T. */
static void sort_keys_kernel(FILE *f, const shimrt_cuda_kdesc *k, const dtype_info *d) {
    fprintf(f, "SH_KERNEL %s(sh_params p) {\n", k->name);
    fputs(
        "  const S *in0 = (const S *)p.in0; unsigned long long *key = (unsigned long long "
        "*)p.out;\n"
        "  long long n = p.rsizes[1], len = p.rn, tl = p.rsizes[2], tiles = (len + tl - 1) / tl;\n"
        "  long long *pos = (long long *)(p.out + n * 8);\n"
        "  SH_SHARED(unsigned long long, sk, 512);\n"
        "  SH_SHARED(long long, sp, 512);\n"
        "  for (long long t = SH_BID; t < p.n; t += SH_GDIM) {\n"
        "    long long line = t / tiles, t0 = (t % tiles) * tl, base = line * len + t0;\n"
        "    long long m = len - t0 < tl ? len - t0 : tl;\n"
        "    for (long long i = SH_TID; i < m; i += SH_BDIM) {\n"
        "      long long o0, o1, o2; SH_OFFSETS(p, base + i, o0, o1, o2); (void)o0; (void)o2;\n"
        "      unsigned long long u;\n",
        f);
    if (cat_of(d) == 2)
        fputs("      double x = (double)SH_LD(in0[o1]);\n"
              "      if (x != x) u = ~0ULL;\n"
              "      else {\n        if (x == 0) x = 0; /* -0.0 ties with 0.0 */\n"
              "        u = sh_d2u(x);\n"
              "        u = (u >> 63) ? ~u : u | 0x8000000000000000ULL;\n      }\n",
              f);
    else
        fputs("      u = (unsigned long long)(long long)SH_LD(in0[o1]) ^ 0x8000000000000000ULL;\n",
              f);
    fputs("      sk[i] = p.b_scalar ? ~u : u; sp[i] = t0 + i;\n    }\n"
          "    sh_sync();\n"
          "    int cur = 0;\n"
          "    for (long long w = 1; w < m; w *= 2, cur ^= 1) {\n"
          "      const unsigned long long *ck = sk + cur * 256; const long long *cp = sp + cur * "
          "256;\n"
          "      for (long long i = SH_TID; i < m; i += SH_BDIM) {\n"
          "        long long start = i - i % w, lo, hi;\n"
          "        unsigned long long u = ck[i];\n",
          f);
    merge_search(f, 8, "m", "c", "ck[c]", "");
    fputs("        long long at = (left ? start : lo) + (i - start) + (a - lo);\n"
          "        sk[(cur ^ 1) * 256 + at] = u; sp[(cur ^ 1) * 256 + at] = cp[i];\n      }\n"
          "      sh_sync();\n    }\n"
          "    for (long long i = SH_TID; i < m; i += SH_BDIM) {\n"
          "      key[base + i] = sk[cur * 256 + i]; pos[base + i] = sp[cur * 256 + i];\n    }\n"
          "    sh_sync();\n  }\n}\n",
          f);
}

static void sort_merge_kernel(FILE *f, const shimrt_cuda_kdesc *k) {
    fprintf(f, "SH_KERNEL %s(sh_params p) {\n", k->name);
    fputs("  const unsigned long long *key = (const unsigned long long *)p.in0;\n"
          "  const long long *pos = (const long long *)(p.in0 + p.n * 8);\n"
          "  unsigned long long *okey = (unsigned long long *)p.out;\n"
          "  long long *opos = (long long *)(p.out + p.n * 8);\n"
          "  long long len = p.rn, w = p.rsizes[0];\n"
          "  long long n = p.n, i0 = SH_BID * SH_BDIM + SH_TID, step = SH_GDIM * SH_BDIM;\n"
          "  for (long long j = i0; j < n; j += step) {\n"
          "    long long i = j % len, row = j - i, start = i - i % w, lo, hi, at;\n"
          "    unsigned long long u = key[j];\n",
          f);
    merge_search(
        f, 4, "len", "m", "key[row + m]",
        "    /* the sibling's elements before u: keys < u (left run) or <= u (right run) */\n");
    fputs("    at = (left ? start : lo) + (i - start) + (a - lo);\n"
          "    okey[row + at] = u; opos[row + at] = pos[j];\n  }\n}\n",
          f);
}

static void copy_kernel(FILE *f, const shimrt_cuda_kdesc *k, const dtype_info *o) {
    fprintf(f, "SH_KERNEL %s(sh_params p) {\n  O *out = (O *)p.out;\n", k->name);
    fputs("  long long n = p.n, i0 = SH_BID * SH_BDIM + SH_TID, step = SH_GDIM * SH_BDIM;\n", f);
    fputs("  for (long long j = i0; j < n; j += step) {\n", f);
    if (k->layout == SHL_CONTIG)
        fputs("    long long o0 = j, o1 = j;\n", f);
    else
        fputs("    long long o0, o1, o2; SH_OFFSETS(p, j, o0, o1, o2); (void)o2;\n", f);
    if (k->kind == SHK_FILL) {
        fputs("    (void)o1;\n    double v = p.alpha;\n", f);
    } else {
        /* the same dtype: the element's bits, as PyTorch's copy (a NaN's payload kept; a
         * trip through float would turn a half NaN into the hardware's canonical one) */
        fprintf(f, "    if (p.src_dtype == %d) { out[o0] = ((const O *)p.in0)[o1]; continue; }\n",
                (int)o->code);
        fputs("    double v = 0; long long w = 0; int isf = 1;\n    switch (p.src_dtype) {\n", f);
        for (size_t i = 0; i < NDT; i++) {
            const dtype_info *s = &dtypes[i];
            const char *conv = s->code == SHIMRT_FLOAT16    ? "sh_h2f"
                               : s->code == SHIMRT_BFLOAT16 ? "sh_bf2f"
                                                            : "";
            if (cat_of(s) == 2)
                fprintf(f, "    case %d: v = (double)%s(((const %s *)p.in0)[o1]); break;\n",
                        (int)s->code, conv, s->ctype);
            else
                fprintf(f,
                        "    case %d: w = (long long)((const %s *)p.in0)[o1]%s; isf = 0; break;\n",
                        (int)s->code, s->ctype, s->code == SHIMRT_BOOL ? " != 0" : "");
        }
        fputs("    default: break;\n    }\n", f);
        fputs("    if (!isf) {\n", f);
        if (cat_of(o) == 2 || o->code == SHIMRT_BOOL)
            fputs("      v = (double)w;\n", f);
        else
            fputs("      out[o0] = (O)w; continue;\n", f);
        fputs("    }\n", f);
    }
    switch (cat_of(o)) {
    case 0: fputs("    out[o0] = (O)(v != 0);\n", f); break;
    case 1:
        /* PyTorch's CPU conversion (runtime/cpu/loops.h): truncation through int64 for
         * uint8 and int64, through int32 for int8/16/32, the minimum when out of range (NaN
         * included), then the integer wraps */
        if (k->kind == SHK_FILL)
            fputs("    out[o0] = (O)(long long)v;\n", f);
        else if (o->code == SHIMRT_UINT8 || o->code == SHIMRT_INT64)
            fputs("    out[o0] = (O)(v >= -9223372036854775808.0 && v < 9223372036854775808.0 ? "
                  "(long long)v : (-9223372036854775807LL - 1));\n",
                  f);
        else
            fputs("    out[o0] = (O)(v > -2147483649.0 && v < 2147483648.0 ? (int)v : "
                  "(-2147483647 - 1));\n",
                  f);
        break;
    default:
        if (o->code == SHIMRT_FLOAT16)
            fputs("    out[o0] = sh_f2h((float)v);\n", f);
        else if (o->code == SHIMRT_BFLOAT16)
            fputs("    out[o0] = sh_f2bf((float)v);\n", f);
        else
            fputs("    out[o0] = (O)v;\n", f);
    }
    fputs("  }\n}\n", f);
}

char *shimrt_cuda_kernel_body(const shimrt_cuda_kdesc *k) {
    if (!k) return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    const dtype_info *o = dt(k->out_dtype), *in = k->in_dtype >= 0 ? dt(k->in_dtype) : NULL;
    const row *r = NULL;
    for (size_t i = 0; i < NROWS; i++)
        if (!strcmp(rows[i].name, k->op) && rows[i].kind == k->kind) r = &rows[i];
    fprintf(f, "/* kernel %s */\n", k->name);
    if (k->kind == SHK_COPY || k->kind == SHK_FILL) {
        fprintf(f, "#define O %s\n", o->ctype);
        copy_kernel(f, k, o);
        fputs("#undef O\n", f);
    } else if (k->kind == SHK_INDEX && o && in) {
        fprintf(f, "#define E %s\n#define I %s\n", o->ctype, in->ctype);
        fprintf(f, "SH_KERNEL %s(sh_params p) {\n", k->name);
        fputs("  const E *in0 = (const E *)p.in0; E *out = (E *)p.out;\n"
              "  const I *ix = (const I *)p.in1;\n"
              "  long long n = p.n, i0 = SH_BID * SH_BDIM + SH_TID, step = SH_GDIM * SH_BDIM;\n"
              "  for (long long j = i0; j < n; j += step) {\n"
              "    long long o0, o1, o2; SH_OFFSETS(p, j, o0, o1, o2);\n"
              "    long long v = (long long)ix[o2], lim = p.rsizes[0];\n"
              "    if (v < -lim || v >= lim) { /* flagged; reported at the next sync */\n"
              "      sh_index_error(p.err, p.b_scalar ? 2 : 1, v, p.rsizes[1], lim); continue;\n   "
              " }\n"
              "    if (v < 0) v += lim;\n"
              "    out[o0] = in0[o1 + v * p.rst[0]];\n  }\n}\n#undef E\n#undef I\n",
              f);
    } else if (k->kind == SHK_SCATTER && o) {
        /* T: the accumulator type (double for floating dtypes, int64 otherwise) */
        fprintf(f, "#define T %s\n#define S %s\n#define O %s\n",
                cat_of(o) == 2 ? "double" : "long long", o->ctype, o->ctype);
        ld_macro(f, "SH_LD", o);
        st_macro(f, o);
        scatter_kernel(f, k, o);
        fputs("#undef T\n#undef S\n#undef O\n#undef SH_LD\n#undef SH_ST\n", f);
    } else if (k->kind == SHK_SORT && !strcmp(k->op, "sort_keys") && in) {
        fprintf(f, "#define T %s\n#define S %s\n", in->ctype_compute, in->ctype);
        ld_macro(f, "SH_LD", in);
        sort_keys_kernel(f, k, in);
        fputs("#undef T\n#undef S\n#undef SH_LD\n", f);
    } else if (k->kind == SHK_SORT && !strcmp(k->op, "sort_merge")) {
        sort_merge_kernel(f, k);
    } else if (k->kind == SHK_SORT && o) { /* sort_write */
        fprintf(f, "#define E %s\n", o->ctype);
        fprintf(f, "SH_KERNEL %s(sh_params p) {\n", k->name);
        fputs("  const E *in0 = (const E *)p.in0; E *out = (E *)p.out;\n"
              "  const long long *ix = (const long long *)p.in1;\n"
              "  long long *oix = (long long *)p.in2, len = p.rn;\n"
              "  long long n = p.n, i0 = SH_BID * SH_BDIM + SH_TID, step = SH_GDIM * SH_BDIM;\n"
              "  for (long long j = i0; j < n; j += step) {\n"
              "    long long o0, o1, o2; SH_OFFSETS(p, j, o0, o1, o2); (void)o2;\n"
              "    long long q = ix[j];\n"
              "    out[o0] = in0[o1 + (q - j % len) * p.rst[0]]; oix[o0] = q;\n  }\n}\n#undef E\n",
              f);
    } else if (k->kind == SHK_LAYERNORM && o) {
        fprintf(f, "#define T %s\n#define S %s\n#define O %s\n", o->ctype_compute, o->ctype,
                o->ctype);
        ld_macro(f, "SH_LD", o);
        st_macro(f, o);
        layer_norm_kernel(f, k);
        fputs("#undef T\n#undef S\n#undef O\n#undef SH_LD\n#undef SH_ST\n", f);
    } else if ((k->kind == SHK_ARGMAX || k->kind == SHK_SOFTMAX) && o && in) {
        /* T: the input's compute type; values (argmax) and outputs (softmax) are stored in
         * the input's dtype */
        fprintf(f, "#define T %s\n#define S %s\n#define O %s\n", in->ctype_compute, in->ctype,
                in->ctype);
        ld_macro(f, "SH_LD", in);
        st_macro(f, in);
        if (k->kind == SHK_ARGMAX) {
            unsigned vec = 16 / in->size;
            fprintf(f, "typedef struct { SH_ALIGN(16) S v[%u]; } %s_vi;\n", vec, k->name);
            argmax_kernel(f, k, vec);
        } else
            softmax_kernel(f, k);
        fputs("#undef T\n#undef S\n#undef O\n#undef SH_LD\n#undef SH_ST\n", f);
    } else if (r && o && in) {
        /* T: reductions and most rows compute in the output's type; comparisons (bool out)
         * and float-class rows over integers compute in the input's / float's type */
        const dtype_info *tcomp = k->kind != SHK_REDUCE && o->code == SHIMRT_BOOL ? in : o;
        fprintf(f, "#define T %s\n#define S %s\n#define O %s\n", tcomp->ctype_compute, in->ctype,
                o->ctype);
        ld_macro(f, "SH_LD", in);
        st_macro(f, o);
        unsigned w = in->size > o->size ? in->size : o->size, vec = 16 / w;
        if (k->kind == SHK_TERNARY) {
            ternary(f, k, r);
        } else if (k->kind != SHK_REDUCE) {
            fprintf(f, "typedef struct { SH_ALIGN(%u) S v[%u]; } %s_vi;\n", vec * in->size, vec,
                    k->name);
            fprintf(f, "typedef struct { SH_ALIGN(%u) O v[%u]; } %s_vo;\n", vec * o->size, vec,
                    k->name);
            elementwise(f, k, r, vec);
        } else {
            unsigned rv = 16 / in->size;
            fprintf(f, "typedef struct { SH_ALIGN(16) S v[%u]; } %s_vi;\n", rv, k->name);
            reduction(f, k, r, cat_of(o) == 2, rv);
        }
        fputs("#undef T\n#undef S\n#undef O\n#undef SH_LD\n#undef SH_ST\n", f);
    }
    fclose(f);
    return buf;
}

char *shimrt_cuda_kernel_source(const shimrt_cuda_kdesc *k) {
    char *body = shimrt_cuda_kernel_body(k);
    if (!body) return NULL;
    size_t a = strlen(prelude), b = strlen(body);
    char *s = malloc(a + b + 1);
    if (s) {
        memcpy(s, prelude, a);
        memcpy(s + a, body, b + 1);
    }
    free(body);
    return s;
}

/* runtime/cpu/pointwise.c: every element-wise op of runtime/ops/ops.def on the CPU.
 *
 * Each SH_UNARY / SH_BINARY / SH_TERNARY row of ops.def is expanded here into one typed
 * contiguous loop per compute type of its class (bool, uint8, int8..int64, float, double:
 * float16 and bfloat16 compute as float through the executor's per-chunk buffers), built
 * for AVX-512, AVX2+FMA and baseline x86-64 (kern_v4.c, kern_v3.c, kern_base.c: the same
 * kernels compiled three times, one picked at run time by __builtin_cpu_supports). The
 * kernels below (one line each) pick PyTorch's result dtype and checks for their op and
 * hand the row to the engine (engine.h). Results are new tensors (new references) laid
 * out like their inputs, as TensorIterator lays them out. */
#include <complex.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "elems.h"
#include "engine.h"

#include "loops.h"

/* The kernel tables of the three builds of loops.h (kern_*.c), chosen once by what the
 * CPU supports: x86-64-v4 (AVX-512), x86-64-v3 (AVX2, FMA, F16C), baseline. */
extern const sh_kernel *const sh_rowtabs_base[OP_COUNT];
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
extern const sh_kernel *const sh_rowtabs_v3[OP_COUNT];
extern const sh_kernel *const sh_rowtabs_v4[OP_COUNT];
#endif
static const sh_kernel *const *row_tables(void) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    int l = sh_isa_level();
    if (l == 4) return sh_rowtabs_v4;
    if (l == 3) return sh_rowtabs_v3;
#endif
    return sh_rowtabs_base;
}

/* each row's name and class */
typedef struct {
    const char *name;
    int cls;
} sh_row;
static const sh_row rows[OP_COUNT] = {
#define SH_UNARY(name, cls, ...) [OP_##name] = {#name, cls},
#define SH_BINARY(name, cls, ...) [OP_##name] = {#name, cls},
#define SH_TERNARY(name, cls, ...) [OP_##name] = {#name, cls},
#include "../ops/ops.def"
};

/* ---- the driver -------------------------------------------------------------------- */

/* What a call hands the driver. */
typedef struct {
    const char *op; /* "add.Tensor", for messages */
    int row;
    int nin; /* tensor inputs */
    const struct AtenTensorOpaque *in[3];
    bool has_scalar; /* binary: b is `scalar` (a wrapped number of its kind) */
    shimrt_scalar scalar;
    int32_t compute; /* -1: PyTorch's result type of the inputs */
    bool cond_first; /* where: in[0] is the bool condition */
    sh_kargs k;
    bool has_alpha; /* add/sub: alpha as the Scalar given (complex results) */
    shimrt_scalar alpha;
    AtenTensorHandle out; /* in place / out=: written (result type must cast to it); else NULL */
    const char *kname;    /* PyTorch's kernel name in a "not implemented" message, else the row's */
} pw_call;

static AOTITorchError pw_run_engine(pw_call *c, AtenTensorHandle *ret0) {
    const sh_row *r = &rows[c->row];
    const sh_kernel *tab = row_tables()[c->row];
    for (int i = 0; i < c->nin; i++) {
        static const char *const names[2][3] = {{"self", "other", "?"},
                                                {"condition", "self", "other"}};
        const char *an = names[c->cond_first][i];
        if (shimrt_k_check_cpu(c->op, c->in[i], an) || shimrt_k_check_dtype(c->op, c->in[i], an))
            return AOTI_TORCH_FAILURE;
    }
    int32_t rt = c->compute;
    if (rt < 0) {
        int skip = c->cond_first ? 1 : 0;
        rt = shimrt_k_result_type_of(c->nin - skip, c->in + skip, c->has_scalar, &c->scalar);
    }
    int32_t odt = rt;
    switch (r->cls) {
    case SH_FLOAT:
        if (!shimrt_k_is_floating(rt)) odt = rt = SHIMRT_FLOAT32; /* the default dtype */
        break;
    case SH_COMPARE: odt = SHIMRT_BOOL; break;
    default: break;
    }
    int ct = sh_ct_index(rt);
    sh_kernel fn = ct >= 0 ? tab[ct] : NULL;
    if (!fn) {
        char kname[64];
        snprintf(kname, sizeof kname, "%s_cpu", r->name);
        const char *n = shimrt_dtype_torch_name(rt);
        return shimrt_fail(c->op, "\"%s\" not implemented for '%s'", kname, n);
    }
    if (c->out && !shimrt_k_can_cast(odt, c->out->dtype))
        return shimrt_fail(c->op, "result type %s can't be cast to the desired output type %s",
                           shimrt_dtype_torch_name(odt), shimrt_dtype_torch_name(c->out->dtype));
    sh_plan p;
    AtenTensorHandle out = c->out;
    if ((c->has_scalar ? sh_plan_build_scalar
         : c->cond_first
             ? sh_plan_build_where
             : sh_plan_build)(&p, c->op, &out, c->out ? c->out->dtype : odt, c->nin, c->in))
        return AOTI_TORCH_FAILURE;
    /* PyTorch's mul and true division read a scalar second operand at its own value (in
     * float for float16/bfloat16); the other ops see it cast to the common dtype */
    bool raw = c->row == OP_mul || c->row == OP_div || c->row == OP_floor_divide;
    c->k.raw_scalar_b = raw;
    if (c->has_scalar) {
        /* an int or bool Scalar converts from its exact int64 value */
        _Alignas(8) char sv[8];
        bool exact = shimrt_scalar_is_integral(c->scalar, true);
        const char *src = exact ? (const char *)&c->scalar.i : (const char *)&c->scalar.d;
        int32_t sdt = exact ? SHIMRT_INT64 : SHIMRT_FLOAT64;
        _Alignas(8) char rounded[8];
        if (!raw && (rt == SHIMRT_FLOAT16 || rt == SHIMRT_BFLOAT16)) {
            sh_cast_run(rounded, rt, 0, src, sdt, 0, 1);
            src = rounded, sdt = rt;
        }
        sh_cast_run(sv, sh_ct_dtype(ct), 0, src, sdt, 0, 1);
        sh_exec(&p, rt, r->cls == SH_COMPARE, false, fn, &c->k, sv);
    } else {
        sh_exec(&p, rt, r->cls == SH_COMPARE, c->cond_first, fn, &c->k, NULL);
    }
    if (ret0) *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

/* ---- uint16 / uint32 / uint64 (PyTorch's "barebones" unsigned types) ------------------
 * The engine's kernels have no tables for them. PyTorch's CPU kernels take them only in a
 * few ops (mul, eq, ne, bitwise_and/or, where, relu, and every op whose result is floating),
 * and its type promotion refuses them with any other integral or bool dtype. A call with
 * such an operand is rewritten before the engine sees it: operands PyTorch casts to a
 * floating common dtype are converted into that dtype (a buffer with the operand's own
 * strides, so the result's layout is TensorIterator's as before); operands of a unsigned
 * common dtype are viewed as the signed integer of the same width, whose wrapping
 * multiplication, bitwise ops, equality and selection give the same bits. */
static int32_t bare_signed(int32_t dt) {
    switch (dt) {
    case SHIMRT_UINT16: return SHIMRT_INT16;
    case SHIMRT_UINT32: return SHIMRT_INT32;
    case SHIMRT_UINT64: return SHIMRT_INT64;
    default: return -1;
    }
}

/* a complex dtype's part: float16, float32, float64 */
static int32_t cx_part(int32_t dt) {
    return dt == SHIMRT_COMPLEX32   ? SHIMRT_FLOAT16
           : dt == SHIMRT_COMPLEX64 ? SHIMRT_FLOAT32
                                    : SHIMRT_FLOAT64;
}

/* c10::promoteTypes with its barebones-unsigned rule; -2 with the message set */
static int32_t bare_promote(const char *op, int32_t a, int32_t b) {
    if (a < 0) return b;
    if (b < 0 || a == b) return a;
    if (bare_signed(a) >= 0 || bare_signed(b) >= 0) {
        if (shimrt_k_is_floating(a)) return a;
        if (shimrt_k_is_floating(b)) return b;
        shimrt_fail(op,
                    "Promotion for uint16, uint32, uint64 types is not supported, attempted to "
                    "promote %s and %s",
                    shimrt_dtype_torch_name(a), shimrt_dtype_torch_name(b));
        return -2;
    }
    if (shimrt_dtype_is_complex(a) || shimrt_dtype_is_complex(b)) {
        /* the complex type of the promoted floating parts (complex32's is float16; an
         * integral or bool operand keeps the other's) */
        int32_t fa = shimrt_dtype_is_complex(a) ? cx_part(a) : shimrt_k_is_floating(a) ? a : -1;
        int32_t fb = shimrt_dtype_is_complex(b) ? cx_part(b) : shimrt_k_is_floating(b) ? b : -1;
        int32_t f = fa < 0 ? fb : fb < 0 ? fa : shimrt_k_promote(fa, fb);
        return f == SHIMRT_FLOAT16   ? SHIMRT_COMPLEX32
               : f == SHIMRT_FLOAT64 ? SHIMRT_COMPLEX128
                                     : SHIMRT_COMPLEX64;
    }
    int32_t p = shimrt_k_promote(a, b);
    if (p < 0) shimrt_fail(op, "dtype %s is not supported", shimrt_dtype_name(a < b ? b : a));
    return p < 0 ? -2 : p;
}

/* at::native::result_type's combine_categories over dim > 0-d > wrapped Scalar results */
static int32_t bare_combine(const char *op, int32_t higher, int32_t lower) {
    if (higher == -2 || lower == -2) return -2;
    if (higher < 0) return lower;
    if (lower < 0) return higher;
    if (shimrt_dtype_is_complex(higher)) return higher;
    if (shimrt_dtype_is_complex(lower)) { /* a floating higher keeps its precision */
        if (!shimrt_k_is_floating(higher)) return lower;
        if (higher == SHIMRT_FLOAT16) return SHIMRT_COMPLEX32;
        if (higher == SHIMRT_BFLOAT16) return -3; /* PyTorch's BComplex32: no kernels */
        return higher == SHIMRT_FLOAT64 ? SHIMRT_COMPLEX128 : SHIMRT_COMPLEX64;
    }
    if (shimrt_k_is_floating(higher)) return higher;
    if (higher == SHIMRT_BOOL || shimrt_k_is_floating(lower))
        return bare_promote(op, higher, lower);
    return higher;
}

static const char *torch_kname(int row, char *k);

static int32_t bare_result_type(const pw_call *c) {
    int32_t dim = -1, zero = -1, wrapped = -1;
    for (int i = c->cond_first ? 1 : 0; i < c->nin; i++) {
        int32_t *s = c->in[i]->ndim > 0 ? &dim : &zero;
        if (*s != -2) *s = bare_promote(c->op, *s, c->in[i]->dtype);
    }
    if (c->has_scalar) {
        wrapped = shimrt_k_scalar_dtype(c->scalar); /* complex: the default complex64 */
    }
    int32_t lower = bare_combine(c->op, zero, wrapped), rt;
    if (lower == -3) /* a 0-d bfloat16 with a complex Scalar: complex with a floating dim */
        lower = dim >= 0 && shimrt_k_is_floating(dim) ? SHIMRT_COMPLEX64 : -3;
    rt = lower == -3 ? -3 : bare_combine(c->op, dim, lower);
    if (rt == -3) {
        /* BComplex32 (a bfloat16 tensor with a complex 0-d tensor or Scalar): PyTorch has no
         * kernel for it; eq, ne and where answer in complex64 here (PyTorch: in BComplex32) */
        if (c->row == OP_eq || c->row == OP_ne || c->row == OP_where) return SHIMRT_COMPLEX64;
        char k[64];
        shimrt_fail(c->op, "\"%s\" not implemented for 'BComplex32'",
                    c->kname ? c->kname : torch_kname(c->row, k));
        return -2;
    }
    return rt;
}

/* t's values converted to dt, with t's sizes, strides and offset (a buffer spanning the
 * elements t reaches) */
static AtenTensorHandle bare_convert(const char *op, const struct AtenTensorOpaque *t, int32_t dt) {
    /* as TensorIterator's to(dt): preserve_format's layout (t's strides when dense) */
    int64_t st[SHIMRT_MAX_DIMS];
    shimrt_k_preserve_strides(t, st);
    AtenTensorHandle v = shimrt_tensor_empty(op, t->ndim, t->sizes, st, dt, SHIMRT_DEV_CPU, 0);
    if (v && sh_copy(op, v, t)) {
        shimrt_tensor_free(v);
        return NULL;
    }
    return v;
}

/* t viewed as dtype dt of the same size */
static AtenTensorHandle bare_view(const char *op, const struct AtenTensorOpaque *t, int32_t dt) {
    return shimrt_tensor_new(op, t->storage, t->ndim, t->sizes, t->strides, t->storage_offset, dt,
                             t->device_type, t->device_index, t->layout);
}

/* Whether PyTorch's CPU kernel of the row takes the unsigned types */
static bool bare_takes(int row) {
    return row == OP_mul || row == OP_eq || row == OP_ne || row == OP_bitwise_and ||
           row == OP_bitwise_or || row == OP_where || row == OP_relu || row == OP_copy;
}

/* PyTorch's kernel name in its "not implemented" message for the row (k: 64 chars) */
static const char *torch_kname(int row, char *k) {
    switch (row) {
    case OP_add:
    case OP_sub: return "add_stub";
    case OP_floor_divide: return "div_floor_cpu";
    case OP_bitwise_left_shift: return "lshift_cpu";
    case OP_bitwise_right_shift: return "rshift_cpu";
    case OP_pow: return "pow";
    case OP_exp:
    case OP_log:
    case OP_sqrt:
    case OP_tanh: snprintf(k, 64, "%s_vml_cpu", rows[row].name); return k;
    default: snprintf(k, 64, "%s_cpu", rows[row].name); return k;
    }
}

/* ---- complex64 / complex128 --------------------------------------------------------------
 * The engine's kernel tables have no complex type. add, sub, mul, div, neg, eq, ne, abs,
 * where, exp, log, sqrt, rsqrt, tanh and sigmoid of complex results run here, over the engine's plan (TensorIterator's output layout),
 * with every operand first converted into the complex compute dtype (a buffer with its own
 * strides) and each element read and written as two components. Arithmetic is
 * c10::complex's in the component type (float for complex64), no fused operations: mul is
 * (ac - bd, ad + bc), add is a + alpha * b with alpha a complex number, div is c10's scaled
 * (numpy's) division with its sums fused as PyTorch's build fuses them (measured against
 * PyTorch 2.15), abs is hypot rounded once; exp, log, sqrt, tanh are glibc's (as PyTorch's
 * std:: calls), rsqrt is 1 / sqrt(x) and sigmoid 1 / (1 + exp(-x)) with that division
 * (bit for bit with PyTorch 2.15's loops, tests/engine/oracle.py). */
static int32_t cx_component(int32_t dt) { return cx_part(dt); }

static bool cx_takes(int row) {
    return row == OP_add || row == OP_sub || row == OP_mul || row == OP_div || row == OP_neg ||
           row == OP_eq || row == OP_ne || row == OP_abs || row == OP_where || row == OP_copy ||
           row == OP_exp || row == OP_log || row == OP_sqrt || row == OP_tanh || row == OP_rsqrt ||
           row == OP_sigmoid || row == OP_pow;
}

/* pow of a complex tensor by a Scalar exponent, as PyTorch's pow_Tensor_Scalar_out and
 * pow_tensor_scalar_kernel pick it: 0 fills 1, 1 copies, 0.5 / -0.5 / -1 are the sqrt,
 * rsqrt and reciprocal kernels, 2 / 3 / -2 products (x * x, x * x * x, 1 / (x * x)), any
 * other std::pow(x, exponent) in the component type; a tensor exponent is std::pow */
enum {
    CX_POW,
    CX_POW_ONE,
    CX_POW_COPY,
    CX_POW_SQRT,
    CX_POW_RSQRT,
    CX_POW_RECIP,
    CX_POW_SQUARE,
    CX_POW_CUBE,
    CX_POW_INVSQUARE
};

typedef struct {
    int row, nin;
    bool scalar;     /* b is (sre, sim) */
    double sre, sim; /* the Scalar operand (pow: the exponent) */
    double are, aim; /* alpha (add; sub: negated) */
    int pmode;       /* pow: CX_POW... */
} cx_job;

/* Whether a run's output is also one of its inputs (mul_, div_, out= an operand): GCC's code
 * for PyTorch's complex64 loops rounds differently then (its alias checks) */
static bool cx_alias(char **ptr, const int64_t *st, int nin) {
    for (int i = 1; i <= nin; i++)
        if (ptr[i] == ptr[0] && st[i] == st[0]) return true;
    return false;
}

/* Which of a run's n elements PyTorch 2.15's complex mul computes with fused products:
 * measured against its x86-64 build (AVX-512 kernels). Its vector loop (runs of contiguous
 * operands, or contiguous ones and one broadcast input, in steps of two vectors) does not
 * fuse; its scalar loop over the rest (or over a whole strided run), as GCC compiled it,
 * takes contiguous elements a vector at a time unfused, then complex64 in fused pairs
 * (a last odd element unfused) and complex128 fused one by one; complex64 with a broadcast
 * operand: whole vectors and one element unfused, then fused fours, the rest unfused; a
 * strided complex64 run whose output is an input: all unfused. Elements [0, *unf1) and
 * [*fused, n) are unfused, [*unf1, *fused) fused. */
static void cx_mul_split(char **ptr, const int64_t *st, int64_t n, int nin, int64_t es,
                         int64_t *unf1, int64_t *fused) {
    int64_t vec = (sh_isa_level() == 4 ? 64 : sh_isa_level() == 3 ? 32 : 16) / es;
    bool contig = st[0] == es, vloop = st[0] == es;
    int zeros = 0;
    for (int i = 1; i <= nin; i++) {
        zeros += st[i] == 0;
        contig = contig && st[i] == es;
        vloop = vloop && (st[i] == es || st[i] == 0);
    }
    if (es == 8 && !vloop && cx_alias(ptr, st, nin)) { /* a strided run in place: unfused */
        *unf1 = *fused = n;
        return;
    }
    vloop = vloop && zeros <= 1 && !(zeros == 1 && nin < 2) && sh_isa_level() >= 3;
    int64_t nv = vloop ? n - n % (2 * vec) : 0, t = n - nv;
    if (es == 8 && zeros == 1 && vloop) { /* complex64 with a broadcast operand: the scalar
                                             loop takes whole vectors unfused, then peels one
                                             element and fuses by fours */
        int64_t rem = t % vec;
        *unf1 = nv + t / vec * vec + (rem > 0);
        *fused = *unf1 + (rem > 0 ? (rem - 1) / 4 * 4 : 0);
        return;
    }
    *unf1 = nv + (contig || (vloop && zeros == 1) ? t / vec * vec : 0);
    int64_t r = n - *unf1;
    *fused = es == 8 ? *unf1 + r - r % 2 : n;
}

/* Which elements of a run PyTorch 2.15's complex division computes with fused numerators
 * (a + b * rat, b - a * rat), measured against its AVX-512 build: all of complex128's;
 * complex64's in pairs, a run's last odd element unfused; but where the output is also an
 * input, only whole vectors (8 elements with AVX-512) of a contiguous or broadcast run, the
 * rest (and all of a strided run) unfused. [0, *unf1) is empty, [*fused, n) unfused. */
static void cx_div_split(char **ptr, const int64_t *st, int64_t n, int nin, int64_t es,
                         int64_t *unf1, int64_t *fused) {
    *unf1 = 0;
    if (es != 8) {
        *fused = n;
        return;
    }
    bool dense = st[0] == es;
    for (int i = 1; i <= nin; i++) dense = dense && (st[i] == es || st[i] == 0);
    int64_t vec = (sh_isa_level() == 4 ? 64 : sh_isa_level() == 3 ? 32 : 16) / es;
    *fused = !cx_alias(ptr, st, nin) ? n - n % 2 : dense ? n - n % vec : 0;
}

/* The same for the products of a unary kernel (pow by 2, 3, -2: x * x, x * x * x, 1 / (x * x)),
 * measured against PyTorch 2.15: its vector loop (a contiguous or broadcast input into a
 * contiguous output, in steps of two vectors) does not fuse, its scalar loop over the rest,
 * or over a whole strided run, fuses every product (x * x and 1 / (x * x) bit for bit; in
 * x * x * x GCC's code for PyTorch's scalar loop leaves some second products unfused, not
 * emulated: a few ulp there). */
static void cx_unary_split(const int64_t *st, int64_t n, int64_t es, int64_t *unf1,
                           int64_t *fused) {
    int64_t vec = (sh_isa_level() == 4 ? 64 : sh_isa_level() == 3 ? 32 : 16) / es;
    bool vloop = st[0] == es && (st[1] == es || st[1] == 0) && sh_isa_level() >= 3;
    *unf1 = vloop ? n - n % (2 * vec) : 0;
    *fused = n;
}

/* neg's vector loop (a contiguous or broadcast input into a contiguous output) takes whole
 * vectors, computing 0 - x (+0 for a zero, a NaN's sign kept); its scalar loop over the rest
 * (or a whole strided run) flips the signs (measured against PyTorch 2.15): [0, *vend) are
 * the vector loop's elements. */
static void cx_neg_split(const int64_t *st, int64_t n, int64_t es, int64_t *vend) {
    int64_t vec = (sh_isa_level() == 4 ? 64 : sh_isa_level() == 3 ? 32 : 16) / es;
    bool vloop = st[0] == es && (st[1] == es || st[1] == 0) && sh_isa_level() >= 3;
    *vend = vloop ? n - n % vec : 0;
}

/* exp, log, sqrt and tanh of a complex number: PyTorch 2.15's CPU kernels call std::exp,
 * std::log, std::sqrt and std::tanh of c10::complex in their scalar and vectorized loops
 * (libstdc++: glibc's cexpf / cexp, clogf / clog, csqrtf / csqrt, ctanhf / ctanh) */
#define CX_FN(NAME, T, CT, SUF)                                                                    \
    static void NAME(int row, const T *x, T *r) {                                                  \
        CT z, o;                                                                                   \
        memcpy(&z, x, sizeof z);                                                                   \
        o = row == OP_exp    ? cexp##SUF(z)                                                        \
            : row == OP_log  ? clog##SUF(z)                                                        \
            : row == OP_sqrt ? csqrt##SUF(z)                                                       \
                             : ctanh##SUF(z);                                                      \
        memcpy(r, &o, sizeof o);                                                                   \
    }
CX_FN(cx_fn_f32, float, float complex, f)
CX_FN(cx_fn_f64, double, double complex, )

/* std::pow of two c10::complex numbers: libstdc++'s pow of std::complex, glibc's cpowf / cpow */
#define CX_POWFN(NAME, T, CT, SUF)                                                                 \
    static void NAME(const T *x, const T *y, T *r) {                                               \
        CT z, e, o;                                                                                \
        memcpy(&z, x, sizeof z);                                                                   \
        memcpy(&e, y, sizeof e);                                                                   \
        o = cpow##SUF(z, e);                                                                       \
        memcpy(r, &o, sizeof o);                                                                   \
    }
CX_POWFN(cx_pow_f32, float, float complex, f)
CX_POWFN(cx_pow_f64, double, double complex, )

/* r = x * y, c10::complex's product, fused as the run's element i is in PyTorch's build */
#define CX_MUL(T, FMA, x, y, r, i)                                                                 \
    do {                                                                                           \
        T mr_, mi_;                                                                                \
        if ((i) < unf1 || (i) >= fused) {                                                          \
            mr_ = x[0] * y[0] - x[1] * y[1];                                                       \
            mi_ = x[0] * y[1] + x[1] * y[0];                                                       \
        } else {                                                                                   \
            mr_ = FMA(x[0], y[0], -(x[1] * y[1]));                                                 \
            mi_ = FMA(x[0], y[1], x[1] * y[0]);                                                    \
        }                                                                                          \
        r[0] = mr_, r[1] = mi_;                                                                    \
    } while (0)

/* x * y + z, fused or not (this file is built with -ffp-contract=off) */
#define CX_FMA(fz, FMA, x, y, z) ((fz) ? FMA(x, y, z) : (x) * (y) + (z))

#define CX_LOOP(NAME, T, FMA, FN, POW)                                                             \
    static void NAME(char **ptr, const int64_t *st, int64_t n, void *vctx) {                       \
        const cx_job *j = vctx;                                                                    \
        const T sr = (T)j->sre, si = (T)j->sim, alr = (T)j->are, ali = (T)j->aim;                  \
        int64_t unf1 = n, fused = n;                                                               \
        if (j->row == OP_mul) cx_mul_split(ptr, st, n, j->nin, 2 * sizeof(T), &unf1, &fused);      \
        if (j->row == OP_div) cx_div_split(ptr, st, n, j->nin, 2 * sizeof(T), &unf1, &fused);      \
        if (j->row == OP_pow && j->pmode >= CX_POW_SQUARE)                                         \
            cx_unary_split(st, n, 2 * sizeof(T), &unf1, &fused);                                   \
        if (j->row == OP_neg) cx_neg_split(st, n, 2 * sizeof(T), &unf1);                           \
        for (int64_t i = 0; i < n; i++) {                                                          \
            char *o = ptr[0] + i * st[0];                                                          \
            T x[2], y[2] = {sr, si}, r[2];                                                         \
            if (j->row == OP_where) {                                                              \
                bool c = *(const bool *)(ptr[1] + i * st[1]);                                      \
                memcpy(o, c ? ptr[2] + i *st[2] : ptr[3] + i * st[3], sizeof x);                   \
                continue;                                                                          \
            }                                                                                      \
            memcpy(x, ptr[1] + i * st[1], sizeof x);                                               \
            if (j->nin == 2) memcpy(y, ptr[2] + i * st[2], sizeof y);                              \
            switch (j->row) {                                                                      \
            case OP_add:                                                                           \
            case OP_sub: {                                                                         \
                T mr = y[0] * alr - y[1] * ali, mi = y[0] * ali + y[1] * alr;                      \
                r[0] = x[0] + mr;                                                                  \
                r[1] = x[1] + mi;                                                                  \
                break;                                                                             \
            }                                                                                      \
            case OP_mul: CX_MUL(T, FMA, x, y, r, i); break;                                        \
            case OP_pow:                                                                           \
                switch (j->pmode) {                                                                \
                case CX_POW_ONE: r[0] = 1, r[1] = 0; break;                                        \
                case CX_POW_COPY: r[0] = x[0], r[1] = x[1]; break;                                 \
                case CX_POW_SQRT: FN(OP_sqrt, x, r); break;                                        \
                case CX_POW_RSQRT: FN(OP_sqrt, x, y); goto cx_recip;                               \
                case CX_POW_RECIP: y[0] = x[0], y[1] = x[1]; goto cx_recip;                        \
                case CX_POW_SQUARE: CX_MUL(T, FMA, x, x, r, i); break;                             \
                case CX_POW_CUBE:                                                                  \
                    CX_MUL(T, FMA, x, x, y, i);                                                    \
                    CX_MUL(T, FMA, y, x, r, i);                                                    \
                    break;                                                                         \
                case CX_POW_INVSQUARE: CX_MUL(T, FMA, x, x, y, i); goto cx_recip;                  \
                default: POW(x, y, r); break;                                                      \
                }                                                                                  \
                break;                                                                             \
            case OP_exp:                                                                           \
            case OP_log:                                                                           \
            case OP_sqrt:                                                                          \
            case OP_tanh: FN(j->row, x, r); break;                                                 \
            case OP_rsqrt: /* 1 / sqrt(x), c10::complex's division */                              \
                FN(OP_sqrt, x, y);                                                                 \
            cx_recip: /* 1 / y */                                                                  \
                x[0] = 1, x[1] = 0;                                                                \
                goto cdiv;                                                                         \
            case OP_sigmoid: { /* 1 / (1 + exp(-x)) */                                             \
                T nx[2] = {-x[0], -x[1]};                                                          \
                FN(OP_exp, nx, y);                                                                 \
                y[0] = (T)1 + y[0], y[1] = (T)0 + y[1];                                            \
                x[0] = 1, x[1] = 0;                                                                \
                goto cdiv;                                                                         \
            }                                                                                      \
            case OP_div:                                                                           \
            cdiv : { /* div: fused but where measured otherwise; the unary kernels: fused */       \
                bool fz = j->row != OP_div || (i >= unf1 && i < fused);                            \
                T a = x[0], b = x[1], c = y[0], d = y[1], ac = (T)fabs(c), ad = (T)fabs(d);        \
                if (ac >= ad) {                                                                    \
                    if (ac == 0 && ad == 0) {                                                      \
                        r[0] = a / ac;                                                             \
                        r[1] = b / ad;                                                             \
                    } else {                                                                       \
                        T rat = d / c, scl = (T)1 / FMA(d, rat, c);                                \
                        r[0] = CX_FMA(fz, FMA, b, rat, a) * scl;                                   \
                        r[1] = CX_FMA(fz, FMA, -a, rat, b) * scl;                                  \
                    }                                                                              \
                } else {                                                                           \
                    T rat = c / d, scl = (T)1 / FMA(c, rat, d);                                    \
                    r[0] = CX_FMA(fz, FMA, a, rat, b) * scl;                                       \
                    r[1] = CX_FMA(fz, FMA, b, rat, -a) * scl;                                      \
                }                                                                                  \
                break;                                                                             \
            }                                                                                      \
            case OP_neg: /* PyTorch's vector loop: 0 - x (+0 for 0, a NaN's sign kept); its    \
                            scalar loop over the rest: the sign flipped */   \
                r[0] = i < unf1 ? (T)0 - x[0] : -x[0];                                             \
                r[1] = i < unf1 ? (T)0 - x[1] : -x[1];                                             \
                break;                                                                             \
            case OP_eq:                                                                            \
            case OP_ne: *(bool *)o = (x[0] == y[0] && x[1] == y[1]) == (j->row == OP_eq);          \
                continue;                                                                          \
            case OP_abs: {                                                                         \
                T v = (T)hypot((double)x[0], (double)x[1]);                                        \
                memcpy(o, &v, sizeof v);                                                           \
                continue;                                                                          \
            }                                                                                      \
            default: r[0] = x[0], r[1] = x[1]; break;                                              \
            }                                                                                      \
            memcpy(o, r, sizeof r);                                                                \
        }                                                                                          \
    }
CX_LOOP(cx_loop_f32, float, fmaf, cx_fn_f32, cx_pow_f32)
CX_LOOP(cx_loop_f64, double, fma, cx_fn_f64, cx_pow_f64)

/* complex32 (c10::complex<c10::Half>), as PyTorch 2.15's CPU kernels compute it: each
 * operation of c10::complex<Half> converts its operands to c10::complex<float>, computes
 * there and rounds each part to float16 once. mul: x * y (the float products of two float16
 * values are exact, so fused or not they agree); add: x + alpha * y with alpha (and a Scalar
 * operand) rounded to complex32 first and the product alpha * y rounded to complex32 before
 * the sum (sub: alpha negated); neg flips the signs; eq / ne compare the parts; abs is
 * hypotf rounded to float16; where selects the bits (tests/engine/oracle.py). */
static inline float c32_ld(const char *p, int part) {
    uint16_t h;
    memcpy(&h, p + 2 * part, 2);
    return shimrt_half_to_float(h);
}
static inline float c32_round(float v) { return shimrt_half_to_float(shimrt_float_to_half(v)); }
static inline void c32_st(char *p, float re, float im) {
    uint16_t h[2] = {shimrt_float_to_half(re), shimrt_float_to_half(im)};
    memcpy(p, h, sizeof h);
}

/* a * b + c (sub: a * b - c) rounded once, with x86's FMA NaN rule, as the complex<float>
 * products of PyTorch 2.15's complex32 mul are compiled (measured: the real part a * c - b * d
 * fused in a * c, the imaginary a * d + b * c fused in a * d): a NaN operand comes out as it
 * is (quieted, c's sign not flipped), the first of a, b, c; an invalid operation gives the
 * default NaN */
static float c32_fma(float a, float b, float c, bool sub) {
    const float ops[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (isnan(ops[i])) return shimrt_f32_of_bits(shimrt_f32_bits(ops[i]) | 0x400000u);
    float r = fmaf(a, b, sub ? -c : c);
    return isnan(r) ? shimrt_f32_of_bits(0xffc00000u) : r;
}

/* p * q with x86's NaN rule: a NaN operand comes out (quieted), p's first */
static float c32_mul(float p, float q) {
    if (isnan(p)) return shimrt_f32_of_bits(shimrt_f32_bits(p) | 0x400000u);
    if (isnan(q)) return shimrt_f32_of_bits(shimrt_f32_bits(q) | 0x400000u);
    return p * q;
}

static void cx_loop_c32(char **ptr, const int64_t *st, int64_t n, void *vctx) {
    const cx_job *j = vctx;
    const float alr = (float)j->are, ali = (float)j->aim; /* already complex32 values */
    for (int64_t i = 0; i < n; i++) {
        char *o = ptr[0] + i * st[0];
        const char *a = ptr[1] + i * st[1];
        if (j->row == OP_where) {
            bool c = *(const bool *)a;
            memcpy(o, c ? ptr[2] + i * st[2] : ptr[3] + i * st[3], 4);
            continue;
        }
        if (j->row == OP_neg) {
            uint16_t h[2];
            memcpy(h, a, sizeof h);
            h[0] ^= 0x8000u, h[1] ^= 0x8000u;
            memcpy(o, h, sizeof h);
            continue;
        }
        if (j->row == OP_copy) {
            memcpy(o, a, 4);
            continue;
        }
        float x0 = c32_ld(a, 0), x1 = c32_ld(a, 1), y0 = (float)j->sre, y1 = (float)j->sim;
        if (j->nin == 2) {
            const char *b = ptr[2] + i * st[2];
            y0 = c32_ld(b, 0), y1 = c32_ld(b, 1);
        }
        switch (j->row) {
        case OP_add:
        case OP_sub: { /* alpha * y rounded to complex32, then x + it; the NaN operand order
                          closest to PyTorch's (its vector and scalar loops order NaNs
                          differently: a NaN's sign may differ, not its value) */
            float p0 = c32_round(c32_fma(y0, alr, c32_mul(y1, ali), true));
            float p1 = c32_round(c32_fma(y0, ali, c32_mul(y1, alr), false));
            c32_st(o, c32_fma(x0, 1.0f, p0, false), c32_fma(x1, 1.0f, p1, false));
            break;
        }
        case OP_mul: /* fused as PyTorch's build fuses it (only a NaN's sign can tell) */
            c32_st(o, c32_fma(y0, x0, c32_mul(y1, x1), true),
                   c32_fma(y1, x0, c32_mul(y0, x1), false));
            break;
        case OP_eq:
        case OP_ne: *(bool *)o = (x0 == y0 && x1 == y1) == (j->row == OP_eq); break;
        case OP_abs: {
            uint16_t h = shimrt_float_to_half((float)hypot((double)x0, (double)x1));
            memcpy(o, &h, sizeof h);
            break;
        }
        default: memcpy(o, a, 4); break;
        }
    }
}

/* a Scalar's value as complex32 (PyTorch converts a wrapped number to the common dtype:
 * through float, then float16) */
static void c32_scalar(double *re, double *im) {
    *re = c32_round((float)*re);
    *im = c32_round((float)*im);
}

static bool c32_takes(int row) {
    return row == OP_add || row == OP_sub || row == OP_mul || row == OP_neg || row == OP_eq ||
           row == OP_ne || row == OP_abs || row == OP_where || row == OP_copy;
}

static AOTITorchError pw_run_complex(pw_call *c, int32_t rt, AtenTensorHandle *ret0) {
    int cls = rows[c->row].cls;
    char k[64];
    if (rt == SHIMRT_COMPLEX32 && !c32_takes(c->row) && c->row != OP_relu &&
        c->row != OP_clamp) /* PyTorch's CPU kernels without complex32 */
        return shimrt_fail(c->op, "\"%s\" not implemented for '%s'", torch_kname(c->row, k),
                           shimrt_dtype_torch_name(rt));
    if (!cx_takes(c->row)) {
        if (c->row == OP_relu || c->row == OP_clamp)
            return shimrt_fail(c->op, "clamp is not supported for complex types");
        if (cls == SH_FLOAT) /* PyTorch has them: not here yet */
            return shimrt_fail(c->op, "dtype %s is not supported", shimrt_dtype_name(rt));
        return shimrt_fail(c->op, "\"%s\" not implemented for '%s'", torch_kname(c->row, k),
                           shimrt_dtype_torch_name(rt));
    }
    if (c->has_alpha && shimrt_k_alpha_check(c->op, rt, c->alpha)) return AOTI_TORCH_FAILURE;
    int32_t comp = cx_component(rt);
    int32_t odt = cls == SH_COMPARE ? SHIMRT_BOOL : c->row == OP_abs ? comp : rt;
    if (c->out && !shimrt_k_can_cast(odt, c->out->dtype))
        return shimrt_fail(c->op, "result type %s can't be cast to the desired output type %s",
                           shimrt_dtype_torch_name(odt), shimrt_dtype_torch_name(c->out->dtype));
    cx_job j = {.row = c->row, .nin = c->nin, .scalar = c->has_scalar, .are = 1};
    if (c->has_scalar) {
        j.sre = c->scalar.d;
        j.sim = c->scalar.kind == SHIMRT_SCALAR_KIND_COMPLEX ? c->scalar.im : 0;
        if (shimrt_scalar_is_integral(c->scalar, true)) j.sre = (double)c->scalar.i;
    }
    if (c->has_alpha) {
        j.are = c->alpha.kind == SHIMRT_SCALAR_KIND_INT || c->alpha.kind == SHIMRT_SCALAR_KIND_BOOL
                    ? (double)c->alpha.i
                    : c->alpha.d;
        j.aim = c->alpha.kind == SHIMRT_SCALAR_KIND_COMPLEX ? c->alpha.im : 0;
    }
    /* sub: PyTorch negates the Scalar alpha, a real one before it becomes complex (its
     * imaginary part stays +0) */
    if (c->row == OP_sub) {
        j.are = -j.are;
        j.aim = c->has_alpha && c->alpha.kind == SHIMRT_SCALAR_KIND_COMPLEX ? -j.aim : 0;
    }
    if (rt == SHIMRT_COMPLEX32) { /* alpha.to<c10::complex<Half>>(), the Scalar as complex32 */
        c32_scalar(&j.are, &j.aim);
        c32_scalar(&j.sre, &j.sim);
    }
    if (c->row == OP_pow && c->nin == 1) { /* the exponent Scalar, in c->scalar */
        shimrt_scalar e = c->scalar;
        double re = shimrt_scalar_is_integral(e, true) ? (double)e.i : e.d;
        double im = e.kind == SHIMRT_SCALAR_KIND_COMPLEX ? e.im : 0;
        j.sre = re, j.sim = im;
        j.pmode = im != 0      ? CX_POW
                  : re == 0    ? CX_POW_ONE
                  : re == 1    ? CX_POW_COPY
                  : re == 0.5  ? CX_POW_SQRT
                  : re == -0.5 ? CX_POW_RSQRT
                  : re == -1   ? CX_POW_RECIP
                  : re == 2    ? CX_POW_SQUARE
                  : re == 3    ? CX_POW_CUBE
                  : re == -2   ? CX_POW_INVSQUARE
                               : CX_POW;
    }
    const struct AtenTensorOpaque *ins[3];
    AtenTensorHandle own[3] = {NULL, NULL, NULL}, out = NULL, tmp = NULL;
    AOTITorchError rc = AOTI_TORCH_FAILURE;
    for (int i = 0; i < c->nin; i++) {
        ins[i] = c->in[i];
        if (c->cond_first && i == 0) continue;
        if (c->in[i]->dtype != rt && !(own[i] = bare_convert(c->op, c->in[i], rt))) goto done;
        if (own[i]) ins[i] = own[i];
    }
    /* an out= of another dtype takes the result through a temporary */
    bool direct = c->out && c->out->dtype == odt;
    if (direct) out = c->out;
    if (!c->out && c->row == OP_abs) { /* PyTorch: empty_like(self, real dtype): its layout */
        int64_t st[SHIMRT_MAX_DIMS];
        shimrt_k_preserve_strides(c->in[0], st);
        tmp = out = shimrt_tensor_empty(c->op, c->in[0]->ndim, c->in[0]->sizes, st, odt,
                                        SHIMRT_DEV_CPU, -1);
        if (!out) goto done;
    }
    sh_plan p;
    if ((c->has_scalar   ? sh_plan_build_scalar
         : c->cond_first ? sh_plan_build_where /* (the condition keeps its bool layout) */
                         : sh_plan_build)(&p, c->op, &out, odt, c->nin, ins))
        goto done;
    if (!direct) tmp = out;
    if (c->out && !direct &&
        (out->ndim != c->out->ndim ||
         memcmp(out->sizes, c->out->sizes, sizeof(int64_t) * (size_t)out->ndim) != 0)) {
        char b1[96], b2[96]; /* (TensorIterator's check of a given output) */
        shimrt_fail(c->op, "output with shape %s doesn't match the broadcast shape %s",
                    shimrt_k_fmt_shape(b1, sizeof b1, c->out->ndim, c->out->sizes),
                    shimrt_k_fmt_shape(b2, sizeof b2, out->ndim, out->sizes));
        goto done;
    }
    sh_walk(&p,
            comp == SHIMRT_FLOAT16   ? cx_loop_c32
            : comp == SHIMRT_FLOAT32 ? cx_loop_f32
                                     : cx_loop_f64,
            &j);
    if (c->out && !direct) {
        if (sh_copy(c->op, c->out, tmp)) goto done;
    } else if (!c->out) {
        tmp = NULL;
        if (ret0)
            *ret0 = out;
        else
            shimrt_tensor_free(out);
    }
    rc = AOTI_TORCH_SUCCESS;
done:
    for (int i = 0; i < 3; i++) shimrt_tensor_free(own[i]);
    shimrt_tensor_free(tmp);
    return rc;
}

static AOTITorchError pw_run_bare(pw_call *c, AtenTensorHandle *ret0) {
    for (int i = 0; i < c->nin; i++)
        if (shimrt_k_check_cpu(c->op, c->in[i], i == 0 && !c->cond_first ? "self" : "other"))
            return AOTI_TORCH_FAILURE;
    int32_t rt = c->compute >= 0 ? c->compute : bare_result_type(c);
    if (rt == -2) return AOTI_TORCH_FAILURE;
    if (shimrt_dtype_is_complex(rt)) return pw_run_complex(c, rt, ret0);
    int cls = rows[c->row].cls;
    int32_t target = rt; /* the dtype the unsigned operands become */
    if (cls == SH_FLOAT && !shimrt_k_is_floating(rt)) target = SHIMRT_FLOAT32;
    int32_t odt = cls == SH_COMPARE ? SHIMRT_BOOL : target;
    /* the unsigned types in a kernel that has none; integral_only's float refusal */
    if ((bare_signed(target) >= 0 && !bare_takes(c->row)) ||
        (cls == SH_INTEGRAL && shimrt_k_is_floating(target))) {
        char k[64];
        return shimrt_fail(c->op, "\"%s\" not implemented for '%s'", torch_kname(c->row, k),
                           shimrt_dtype_torch_name(target));
    }
    if (c->out && !shimrt_k_can_cast(odt, c->out->dtype))
        return shimrt_fail(c->op, "result type %s can't be cast to the desired output type %s",
                           shimrt_dtype_torch_name(odt), shimrt_dtype_torch_name(c->out->dtype));
    pw_call e = *c;
    if (c->has_alpha) { /* add/sub: PyTorch's alpha rules and checked conversion on target */
        if (shimrt_k_alpha_check(c->op, target, c->alpha)) return AOTI_TORCH_FAILURE;
        if (target == SHIMRT_FLOAT16 || target == SHIMRT_BFLOAT16) { /* alpha.to<Half>() */
            _Alignas(8) char h[8];
            double av = shimrt_scalar_is_integral(c->alpha, true) ? (double)c->alpha.i : c->alpha.d;
            shimrt_dtype_convert(h, target, &av, SHIMRT_FLOAT64);
            shimrt_dtype_convert(&e.k.alpha, SHIMRT_FLOAT64, h, target);
        }
    }
    AtenTensorHandle own[4] = {NULL, NULL, NULL, NULL};
    AOTITorchError rc = AOTI_TORCH_FAILURE;
    for (int i = 0; i < c->nin; i++) {
        if (bare_signed(c->in[i]->dtype) < 0) continue;
        AtenTensorHandle t = (AtenTensorHandle)c->in[i];
        /* mul / true division read a one-element second operand at its own value in float
         * (PyTorch's original_scalar_value) where the common dtype is float16/bfloat16 */
        bool raw = (c->row == OP_mul || c->row == OP_div) && i == 1 && !c->cond_first &&
                   (target == SHIMRT_FLOAT16 || target == SHIMRT_BFLOAT16) &&
                   shimrt_numel(c->in[1]) == 1;
        if (raw && e.compute < 0) e.compute = target;
        int32_t to = raw ? SHIMRT_FLOAT32 : target;
        if (c->in[i]->dtype != to && !(t = own[i] = bare_convert(c->op, c->in[i], to))) goto done;
        if (bare_signed(target) >= 0) { /* the same bits as the signed type */
            AtenTensorHandle v = bare_view(c->op, t, bare_signed(target));
            shimrt_tensor_free(own[i]);
            if (!(t = own[i] = v)) goto done;
        }
        e.in[i] = t;
    }
    if (c->row == OP_relu && bare_signed(target) >= 0) e.row = OP_copy; /* nothing below 0 */
    if (e.compute >= 0 && bare_signed(e.compute) >= 0) e.compute = bare_signed(e.compute);
    if (c->out && bare_signed(c->out->dtype) >= 0) {
        /* any result cast to an unsigned out has the bits of its cast to the signed type */
        if (!(own[3] = bare_view(c->op, c->out, bare_signed(c->out->dtype)))) goto done;
        e.out = own[3];
    }
    AtenTensorHandle r = NULL;
    rc = pw_run_engine(&e, c->out ? NULL : &r);
    if (rc == AOTI_TORCH_SUCCESS && !c->out) {
        if (bare_signed(odt) >= 0) { /* the result as the unsigned type */
            AtenTensorHandle v = bare_view(c->op, r, odt);
            shimrt_tensor_free(r);
            if (!v) {
                rc = AOTI_TORCH_FAILURE;
                goto done;
            }
            r = v;
        }
        if (ret0)
            *ret0 = r;
        else
            shimrt_tensor_free(r);
    }
done:
    for (int i = 0; i < 4; i++) shimrt_tensor_free(own[i]);
    return rc;
}

static AOTITorchError pw_run(pw_call *c, AtenTensorHandle *ret0) {
#define WIDE(dt) (bare_signed(dt) >= 0 || shimrt_dtype_is_complex(dt))
    bool bare = (c->out && WIDE(c->out->dtype)) ||
                (c->has_scalar && c->scalar.kind == SHIMRT_SCALAR_KIND_COMPLEX);
    for (int i = 0; i < c->nin; i++) bare = bare || WIDE(c->in[i]->dtype);
#undef WIDE
    return bare ? pw_run_bare(c, ret0) : pw_run_engine(c, ret0);
}

#define CALL1(OPNAME, ROW, SELF)                                                                   \
    pw_call c = {.op = OPNAME, .row = ROW, .nin = 1, .in = {SELF}, .compute = -1}
#define CALL2(OPNAME, ROW, SELF, OTHER)                                                            \
    pw_call c = {.op = OPNAME, .row = ROW, .nin = 2, .in = {SELF, OTHER}, .compute = -1}

static AOTITorchError bool_sub_error(const char *op) {
    return shimrt_fail(op, "Subtraction, the `-` operator, with a bool tensor is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.");
}

/* add/sub alpha rules (PyTorch's alpha_check) on the result type; sets c->k.alpha to alpha
 * as the kernel applies it: converted to the compute type (alpha.to<scalar_t>(): a float16
 * or bfloat16 alpha is rounded to that type, 1e-40 becomes 0) */
static AOTITorchError alpha_check(const char *op, pw_call *c, shimrt_scalar alpha) {
    int32_t rt = shimrt_k_result_type_of(c->nin, c->in, c->has_scalar, &c->scalar);
    c->k.alpha = alpha.d;
    c->has_alpha = true;
    c->alpha = alpha;
    if (rt < 0) return AOTI_TORCH_SUCCESS; /* pw_run refuses the dtypes */
    if (rt == SHIMRT_FLOAT16 || rt == SHIMRT_BFLOAT16) {
        _Alignas(8) char h[8];
        sh_cast_run(h, rt, 0, (const char *)&alpha.d, SHIMRT_FLOAT64, 0, 1);
        sh_cast_run((char *)&c->k.alpha, SHIMRT_FLOAT64, 0, h, rt, 0, 1);
    }
    return shimrt_k_alpha_check(op, rt, alpha);
}

/* add/sub of two float16/bfloat16 tensors, or of a float32/float64 tensor and a 0-d one of
 * its dtype (a Scalar), with an alpha other than 1, as PyTorch's kernel: alpha in the tensors' type (rounded for the half types); in each contiguous run (a
 * broadcast operand allowed) its vector loop takes whole pairs of vectors (of float lanes, for
 * the half types too: 32 elements with AVX-512), b * alpha + a fused; the rest goes by its
 * scalar loop, a + (alpha * b) with the product rounded first (to the half type for those), so
 * an overflowing product next to an opposite inf is NaN there and inf in the vectors. */
/* v rounded to dt (float16 or bfloat16) */
static inline float half_round(int32_t dt, float v) {
    _Alignas(8) char b[8];
    shimrt_k_store_f64(b, dt, v);
    return (float)shimrt_k_load_f64(b, dt);
}

typedef struct {
    int32_t dt;
    double alpha;
} float_add;

/* Whether element i of a run of n float32/float64 elements is computed fused by PyTorch's
 * loop for a b of stride 0 in the run (a CPU scalar or a broadcast dim; its AVX-512 build,
 * measured; a broadcast a, or none, is fused throughout): the whole pairs of vectors of its
 * vector loop are; its scalar loop over the rest is compiled by GCC into full-width vectors
 * (fused), then, for a remainder of more than one 128-bit vector, one fused element, 128-bit
 * vectors whose product alpha * b is the loop's precomputed one (unfused), and fused scalar
 * elements. A run that is not contiguous is the scalar loop itself: fused. */
static bool add_fused_at(int64_t i, int64_t n, int64_t es, int64_t vbytes, bool contiguous) {
    if (!contiguous) return true;
    int64_t L = vbytes / es, X = 16 / es;
    int64_t v = n - n % (2 * L), r = n - v, b = r - r % L, r2 = r - b, k = i - v - b;
    if (i < v + b || r2 < X + 1) return true;
    return !(k >= 1 && k <= X * ((r2 - 1) / X));
}

static void float_add_chunk(char **ptr, const int64_t *st, int64_t n, void *vctx) {
    const float_add *h = vctx;
    int64_t es = (int64_t)shimrt_dtype_size(h->dt);
    bool vec = st[0] == es && (st[1] == es || st[1] == 0) && (st[2] == es || st[2] == 0);
    int64_t vbytes = shimrt_e_pt_vec_bytes(), lanes = vbytes / 4; /* (probed once per run) */
    int64_t nv = vec ? n / (2 * lanes) * (2 * lanes) : 0;
    for (int64_t i = 0; i < n; i++) {
        const char *pa = ptr[1] + i * st[1], *pb = ptr[2] + i * st[2];
        char *po = ptr[0] + i * st[0];
        if (h->dt == SHIMRT_FLOAT64) {
            double a, b, r;
            memcpy(&a, pa, 8), memcpy(&b, pb, 8);
            r = st[2] != 0 || add_fused_at(i, n, 8, vbytes, vec) ? fma(b, h->alpha, a)
                                                                 : a + h->alpha * b;
            memcpy(po, &r, 8);
            continue;
        }
        float a = (float)shimrt_k_load_f64(pa, h->dt), b = (float)shimrt_k_load_f64(pb, h->dt);
        float al = (float)h->alpha, p = al * b;
        bool fused;
        if (h->dt == SHIMRT_FLOAT32) {
            fused = st[2] != 0 || add_fused_at(i, n, 4, vbytes, vec);
        } else {
            p = half_round(h->dt, p);
            fused = i < nv;
        }
        float r = fused ? fmaf(b, al, a) : a + p;
        shimrt_k_store_f64(po, h->dt, r);
    }
}

static AOTITorchError add_sub(const char *op, bool sub, AtenTensorHandle self,
                              AtenTensorHandle other, shimrt_scalar alpha, AtenTensorHandle *ret0) {
    CALL2(op, sub ? OP_sub : OP_add, self, other);
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, other, "other"))
        return AOTI_TORCH_FAILURE;
    if (sub && (self->dtype == SHIMRT_BOOL || other->dtype == SHIMRT_BOOL))
        return bool_sub_error(op);
    if (alpha_check(op, &c, alpha)) return AOTI_TORCH_FAILURE;
    /* (float32/float64: fused throughout, GCC contracts the scalar loop too, but in runs
     * where other is broadcast (stride 0: a CPU scalar, an expanded dim), see add_fused_at) */
    /* operands of other dtypes whose result type is float16/bfloat16: TensorIterator casts
     * them to it first (to()'s layout), then the same kernel runs (a 0-d other stays a CPU
     * scalar, read at its own value: pw_run) */
    const struct AtenTensorOpaque *ts[2] = {self, other};
    int32_t rt = shimrt_k_result_type_of(2, ts, 0, NULL);
    if ((rt == SHIMRT_FLOAT16 || rt == SHIMRT_BFLOAT16) && c.k.alpha != 1 &&
        (self->dtype != rt || other->dtype != rt) && !(other->ndim == 0 && other->dtype != rt)) {
        AtenTensorHandle a = self->dtype == rt ? self : bare_convert(op, self, rt);
        AtenTensorHandle b = !a || other->dtype == rt ? other : bare_convert(op, other, rt);
        AOTITorchError e = a && b ? add_sub(op, sub, a, b, alpha, ret0) : AOTI_TORCH_FAILURE;
        if (a && a != self) shimrt_tensor_free(a);
        if (b && b != other) shimrt_tensor_free(b);
        return e;
    }
    if (shimrt_k_is_floating(self->dtype) && other->dtype == self->dtype && c.k.alpha != 1) {
        float_add h = {self->dtype, sub ? -c.k.alpha : c.k.alpha};
        if (self->dtype != SHIMRT_FLOAT64) h.alpha = (float)h.alpha;
        sh_plan p;
        AtenTensorHandle out = NULL;
        const struct AtenTensorOpaque *ins[2] = {self, other};
        if (sh_plan_build(&p, op, &out, self->dtype, 2, ins)) return AOTI_TORCH_FAILURE;
        sh_walk(&p, float_add_chunk, &h);
        *ret0 = out;
        return AOTI_TORCH_SUCCESS;
    }
    return pw_run(&c, ret0);
}

AOTITorchError shimrt_cpu_add_tensor(AtenTensorHandle self, AtenTensorHandle other,
                                     shimrt_scalar alpha, AtenTensorHandle *ret0) {
    return add_sub("add.Tensor", false, self, other, alpha, ret0);
}

AOTITorchError shimrt_cpu_sub_tensor(AtenTensorHandle self, AtenTensorHandle other,
                                     shimrt_scalar alpha, AtenTensorHandle *ret0) {
    return add_sub("sub.Tensor", true, self, other, alpha, ret0);
}

AOTITorchError shimrt_cpu_subtract_tensor(AtenTensorHandle self, AtenTensorHandle other,
                                          shimrt_scalar alpha, AtenTensorHandle *ret0) {
    return add_sub("subtract.Tensor", true, self, other, alpha, ret0);
}

AOTITorchError shimrt_cpu_add_scalar(AtenTensorHandle self, shimrt_scalar other,
                                     shimrt_scalar alpha, AtenTensorHandle *ret0) {
    static const char op[] = "add.Scalar";
    CALL1(op, OP_add, self);
    c.has_scalar = true;
    c.scalar = other;
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (shimrt_k_is_floating(self->dtype) && other.kind != SHIMRT_SCALAR_KIND_COMPLEX) {
        /* PyTorch wraps the Scalar in a 0-d tensor that its kernel reads in self's type
         * (rounded), then adds as add.Tensor does (add_sub's loops) */
        AtenTensorHandle s = shimrt_tensor_empty(op, 0, NULL, NULL, self->dtype, SHIMRT_DEV_CPU, 0);
        if (!s) return AOTI_TORCH_FAILURE;
        double v = shimrt_scalar_is_integral(other, true) ? (double)other.i : other.d;
        shimrt_dtype_convert(shimrt_data(s), self->dtype, &v, SHIMRT_FLOAT64);
        AOTITorchError rc = add_sub(op, false, self, s, alpha, ret0);
        shimrt_tensor_free(s);
        return rc;
    }
    if (alpha_check(op, &c, alpha)) return AOTI_TORCH_FAILURE;
    return pw_run(&c, ret0);
}

AOTITorchError shimrt_cpu_mul_tensor(AtenTensorHandle self, AtenTensorHandle other,
                                     AtenTensorHandle *ret0) {
    CALL2("mul.Tensor", OP_mul, self, other);
    return pw_run(&c, ret0);
}

/* self = self op other in place (mul_ / div_ of a composition): self is the output and an
 * input, as in PyTorch's in-place call (complex64 division rounds by that: cx_div_split) */
static AOTITorchError binary_inplace(const char *op, int row, AtenTensorHandle self,
                                     AtenTensorHandle other) {
    if (shimrt_k_internal_overlap(self)) /* PyTorch's TensorIterator: an output must not */
        return shimrt_fail(op, "unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.");
    CALL2(op, row, self, other);
    c.out = self;
    return pw_run(&c, NULL);
}

AOTITorchError sh_mul_inplace(const char *op, AtenTensorHandle self, AtenTensorHandle other) {
    return binary_inplace(op, OP_mul, self, other);
}

AOTITorchError sh_div_inplace(const char *op, AtenTensorHandle self, AtenTensorHandle other) {
    return binary_inplace(op, OP_div, self, other);
}

AOTITorchError shimrt_cpu_div_tensor(AtenTensorHandle self, AtenTensorHandle other,
                                     AtenTensorHandle *ret0) {
    CALL2("div.Tensor", OP_div, self, other);
    return pw_run(&c, ret0);
}

AOTITorchError shimrt_cpu_divide_tensor(AtenTensorHandle self, AtenTensorHandle other,
                                        AtenTensorHandle *ret0) {
    CALL2("divide.Tensor", OP_div, self, other);
    return pw_run(&c, ret0);
}

/* ---- unary ---- */
static AOTITorchError unary_nobool(const char *op, int row, AtenTensorHandle self,
                                   const char *boolmsg, AtenTensorHandle *ret0) {
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (self->dtype == SHIMRT_BOOL) return shimrt_fail(op, "%s", boolmsg);
    CALL1(op, row, self);
    return pw_run(&c, ret0);
}

AOTITorchError shimrt_cpu_neg(AtenTensorHandle self, AtenTensorHandle *ret0) {
    return unary_nobool("neg", OP_neg, self,
                        "Negation, the `-` operator, on a bool tensor is not supported. If "
                        "you are trying to invert a mask, use the `~` or `logical_not()` "
                        "operator instead.",
                        ret0);
}

AOTITorchError shimrt_cpu_relu(AtenTensorHandle self, AtenTensorHandle *ret0) {
    return unary_nobool("relu", OP_relu, self, "Boolean inputs not supported for relu", ret0);
}

#define PLAIN_UNARY(NAME)                                                                          \
    AOTITorchError shimrt_cpu_##NAME(AtenTensorHandle self, AtenTensorHandle *ret0) {              \
        CALL1(#NAME, OP_##NAME, self);                                                             \
        return pw_run(&c, ret0);                                                                   \
    }
PLAIN_UNARY(exp)
PLAIN_UNARY(abs)
PLAIN_UNARY(sqrt)
PLAIN_UNARY(rsqrt)
PLAIN_UNARY(sigmoid)
PLAIN_UNARY(tanh)
PLAIN_UNARY(log)

/* pow of a float16 or bfloat16 tensor by a Scalar, as PyTorch's pow_tensor_scalar_kernel:
 * float16 raises to the exponent rounded to float16 with no special case (std::pow(Half,
 * Half): powf of the two); bfloat16 takes sqrt, rsqrt and reciprocal for an exponent of
 * exactly 0.5, -0.5 and -1, else rounds the exponent to bfloat16 and computes 2, 3 and -2 as
 * bfloat16 products (b * b, (b * b) * b, 1 / (b * b), each step rounded to bfloat16), any
 * other as powf. */
typedef struct {
    int mode; /* 0 powf, 1 sqrt, 2 rsqrt, 3 reciprocal, 4 square, 5 cube, 6 inverse square */
    float e;
    bool bf16;
} half_pow;

static void half_pow_chunk(char **ptr, const int64_t *st, int64_t n, void *vctx) {
    const half_pow *h = vctx;
    for (int64_t i = 0; i < n; i++) {
        int32_t dt = h->bf16 ? SHIMRT_BFLOAT16 : SHIMRT_FLOAT16;
        float b = (float)shimrt_k_load_f64(ptr[1] + i * st[1], dt), r;
        switch (h->mode) {
        case 1: r = sqrtf(b); break;
        case 2: r = 1.0f / sqrtf(b); break;
        case 3: r = 1.0f / b; break;
        case 4: r = b * b; break;
        case 5: r = half_round(dt, b * b) * b; break;
        case 6: r = 1.0f / half_round(dt, b * b); break;
        default: r = powf(b, h->e); break;
        }
        shimrt_k_store_f64(ptr[0] + i * st[0], dt, r);
    }
}

static AOTITorchError pow_half(const char *op, AtenTensorHandle self, shimrt_scalar exponent,
                               AtenTensorHandle *ret0) {
    bool bf = self->dtype == SHIMRT_BFLOAT16;
    double ed = shimrt_scalar_is_integral(exponent, true) ? (double)exponent.i : exponent.d;
    half_pow h = {0, 0, bf};
    /* PyTorch converts the exponent to the half type (checked: an overflow is an error)
     * after bfloat16's 0.5 / -0.5 / -1 cases */
    if (!(bf && (ed == 0.5 || ed == -0.5 || ed == -1)) &&
        shimrt_k_scalar_fits(op, exponent, self->dtype, false))
        return AOTI_TORCH_FAILURE;
    if (bf) {
        h.e = half_round(SHIMRT_BFLOAT16, (float)ed);
        h.mode = ed == 0.5    ? 1
                 : ed == -0.5 ? 2
                 : ed == -1   ? 3
                 : h.e == 2   ? 4
                 : h.e == 3   ? 5
                 : h.e == -2  ? 6
                              : 0;
    } else {
        h.e = half_round(SHIMRT_FLOAT16, (float)ed);
    }
    sh_plan p;
    AtenTensorHandle out = NULL;
    if (sh_plan_build(&p, op, &out, self->dtype, 1, (const struct AtenTensorOpaque *const *)&self))
        return AOTI_TORCH_FAILURE;
    sh_walk(&p, half_pow_chunk, &h);
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_pow_tensor_scalar(AtenTensorHandle self, shimrt_scalar exponent,
                                            AtenTensorHandle *ret0) {
    static const char op[] = "pow.Tensor_Scalar";
    CALL1(op, OP_pow, self);
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (bare_signed(self->dtype) >= 0 || shimrt_dtype_is_complex(self->dtype) ||
        exponent.kind == SHIMRT_SCALAR_KIND_COMPLEX) { /* computed from the Scalar's kind */
        c.has_scalar = true;
        c.scalar = exponent;
        int32_t rt = bare_result_type(&c);
        if (rt == -2) return AOTI_TORCH_FAILURE;
        c.has_scalar = false;
        if (shimrt_dtype_is_complex(rt)) { /* the exponent stays in c.scalar */
            c.compute = rt;
            return pw_run_bare(&c, ret0);
        }
        c.compute = shimrt_k_is_floating(rt) ? rt : self->dtype;
        c.k.p0 = exponent.d;
        return pw_run(&c, ret0);
    }
    if (shimrt_k_check_dtype(op, self, "self")) return AOTI_TORCH_FAILURE;
    int32_t rt =
        shimrt_k_result_type_of(1, (const struct AtenTensorOpaque *const *)&self, 1, &exponent);
    if (!shimrt_k_is_floating(self->dtype) && shimrt_scalar_is_integral(exponent, true) &&
        exponent.i < 0)
        return shimrt_fail(op, "Integers to negative integer powers are not allowed.");
    if (rt == self->dtype && (rt == SHIMRT_FLOAT16 || rt == SHIMRT_BFLOAT16))
        return pow_half(op, self, exponent, ret0);
    c.compute = rt;
    c.k.p0 = exponent.d;
    return pw_run(&c, ret0);
}

typedef struct {
    uint64_t lo, hi;
} u64_bounds;

static void clamp_u64(char **ptr, const int64_t *st, int64_t n, void *vctx) {
    const u64_bounds *b = vctx;
    for (int64_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, ptr[1] + i * st[1], sizeof v);
        v = v < b->lo ? b->lo : v; /* min first, then max: PyTorch's min(max(x, lo), hi) */
        v = v > b->hi ? b->hi : v;
        memcpy(ptr[0] + i * st[0], &v, sizeof v);
    }
}

/* clamp of uint16/32/64: floating bounds give float32 (PyTorch's result type); integral
 * bounds clamp uint16/32 through int64 with PyTorch's range rule (the far end an error, the
 * near end no bound), uint64 in a loop of its own */
static AOTITorchError clamp_unsigned(const char *op, AtenTensorHandle self,
                                     const shimrt_scalar *smin, const shimrt_scalar *smax,
                                     AtenTensorHandle *ret0) {
    CALL1(op, OP_clamp, self);
    bool flt = (smin && !shimrt_scalar_is_integral(*smin, true)) ||
               (smax && !shimrt_scalar_is_integral(*smax, true));
    c.k.p0 = smin ? smin->d : -INFINITY;
    c.k.p1 = smax ? smax->d : INFINITY;
    if (flt) {
        c.compute = SHIMRT_FLOAT32;
        return pw_run(&c, ret0);
    }
    if (self->dtype == SHIMRT_UINT64) { /* no wider type: its own loop */
        if (smax && smax->i < 0)
            return shimrt_fail(op, "Clamp max value %lld is outside the representable range of %s",
                               (long long)smax->i, shimrt_dtype_torch_name(self->dtype));
        u64_bounds b = {smin && smin->i > 0 ? (uint64_t)smin->i : 0,
                        smax ? (uint64_t)smax->i : UINT64_MAX};
        sh_plan p;
        AtenTensorHandle out = NULL;
        if (sh_plan_build(&p, op, &out, SHIMRT_UINT64, 1,
                          (const struct AtenTensorOpaque *const *)&self))
            return AOTI_TORCH_FAILURE;
        sh_walk(&p, clamp_u64, &b);
        *ret0 = out;
        return AOTI_TORCH_SUCCESS;
    }
    double hi = self->dtype == SHIMRT_UINT16 ? 65535.0 : 4294967295.0;
    const char *n = shimrt_dtype_torch_name(self->dtype);
    if (smin && smin->d > hi)
        return shimrt_fail(op, "Clamp min value %g is outside the representable range of %s",
                           smin->d, n);
    if (smax && smax->d < 0)
        return shimrt_fail(op, "Clamp max value %g is outside the representable range of %s",
                           smax->d, n);
    c.k.p0 = smin && smin->d > 0 ? smin->d : 0;
    c.k.p1 = smax && smax->d < hi ? smax->d : hi;
    AtenTensorHandle w = bare_convert(op, self, SHIMRT_INT64), r = NULL;
    if (!w) return AOTI_TORCH_FAILURE;
    c.in[0] = w;
    c.compute = SHIMRT_INT64;
    AOTITorchError rc = pw_run(&c, &r);
    shimrt_tensor_free(w);
    if (rc) return rc;
    AtenTensorHandle u = bare_convert(op, r, self->dtype);
    shimrt_tensor_free(r);
    if (!u) return AOTI_TORCH_FAILURE;
    *ret0 = u;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_clamp(AtenTensorHandle self, const shimrt_scalar *smin,
                                const shimrt_scalar *smax, AtenTensorHandle *ret0) {
    static const char op[] = "clamp";
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (self->dtype == SHIMRT_COMPLEX64 || self->dtype == SHIMRT_COMPLEX128)
        return shimrt_fail(op, "clamp is not supported for complex types");
    if (bare_signed(self->dtype) >= 0 && (smin || smax))
        return clamp_unsigned(op, self, smin, smax, ret0);
    if (shimrt_k_check_dtype(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (!smin && !smax)
        return shimrt_fail(op, "torch.clamp: At least one of 'min' or 'max' must not be None");
    CALL1(op, OP_clamp, self);
    shimrt_scalar bounds[2];
    int nb = 0;
    if (smin) bounds[nb++] = *smin;
    if (smax) bounds[nb++] = *smax;
    const double *min = smin ? &smin->d : NULL, *max = smax ? &smax->d : NULL;
    int32_t rt =
        shimrt_k_result_type_of(1, (const struct AtenTensorOpaque *const *)&self, nb, bounds);
    if (rt == SHIMRT_BOOL) return shimrt_fail(op, "\"clamp_cpu\" not implemented for 'Bool'");
    c.compute = rt;
    c.k.p0 = min ? *min : -INFINITY;
    c.k.p1 = max ? *max : INFINITY;
    if (shimrt_k_is_integral(rt)) { /* bounds must fit the integer type */
        static const double lo[] = {0, INT8_MIN, INT16_MIN, INT32_MIN, (double)INT64_MIN};
        static const double hi[] = {UINT8_MAX, INT8_MAX, INT16_MAX, INT32_MAX, (double)INT64_MAX};
        /* PyTorch: a bound beyond the far end is an error, one beyond the near end is
         * no bound at all */
        if (min && *min > hi[rt])
            return shimrt_fail(op,
                               "Clamp min value %g is outside the representable range of "
                               "%s",
                               *min, shimrt_dtype_torch_name(rt));
        if (max && *max < lo[rt])
            return shimrt_fail(op,
                               "Clamp max value %g is outside the representable range of "
                               "%s",
                               *max, shimrt_dtype_torch_name(rt));
        if (min && *min < lo[rt]) c.k.p0 = lo[rt];
        if (max && *max > hi[rt]) c.k.p1 = hi[rt];
        if (!min) c.k.p0 = lo[rt];
        if (!max) c.k.p1 = hi[rt];
    }
    return pw_run(&c, ret0);
}

/* ---- binary ---- */
typedef struct {
    size_t es; /* an integral element: zero when every byte is */
    bool zero;
} zero_scan;

static void scan_zero(char **ptr, const int64_t *st, int64_t n, void *vctx) {
    static const char zeros[8];
    zero_scan *z = vctx;
    for (int64_t i = 0; i < n && !z->zero; i++)
        if (!memcmp(ptr[1] + i * st[1], zeros, z->es)) z->zero = true;
}

AOTITorchError shimrt_cpu_floor_divide(AtenTensorHandle self, AtenTensorHandle other,
                                       AtenTensorHandle *ret0) {
    static const char op[] = "floor_divide";
    CALL2(op, OP_floor_divide, self, other);
    if (shimrt_dtype_is_complex(self->dtype) || shimrt_dtype_is_complex(other->dtype))
        return pw_run(&c, ret0); /* refused there */
    if (bare_signed(self->dtype) >= 0 || bare_signed(other->dtype) >= 0) {
        /* a uint16/32/64 result is refused by pw_run; a 0-d uint operand beside a signed
         * integral tensor gives that signed type, whose division by zero is an error */
        const struct AtenTensorOpaque *const two[2] = {self, other};
        int32_t t = shimrt_k_result_type_of(2, two, 0, NULL);
        if (t < 0 || bare_signed(t) >= 0 || shimrt_k_is_floating(t)) return pw_run(&c, ret0);
    }
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, other, "other") ||
        (bare_signed(self->dtype) < 0 && shimrt_k_check_dtype(op, self, "self")) ||
        (bare_signed(other->dtype) < 0 && shimrt_k_check_dtype(op, other, "other")))
        return AOTI_TORCH_FAILURE;
    const struct AtenTensorOpaque *const pair[2] = {self, other};
    int32_t rt = shimrt_k_result_type_of(2, pair, 0, NULL);
    if (rt == SHIMRT_BOOL) return shimrt_fail(op, "\"div_floor_cpu\" not implemented for 'Bool'");
    int64_t bshape[SHIMRT_MAX_DIMS], bn, bnumel = 0;
    if (shimrt_k_broadcast(op, self->ndim, self->sizes, other->ndim, other->sizes, bshape, &bn))
        return AOTI_TORCH_FAILURE;
    shimrt_k_numel(bn, bshape, &bnumel);
    if (!shimrt_k_is_floating(rt) && bnumel > 0) { /* integer division by zero: an error */
        zero_scan z = {shimrt_dtype_size(other->dtype), false};
        sh_plan p;
        AtenTensorHandle o = (AtenTensorHandle)other; /* read only: the scan writes nothing */
        if (sh_plan_build(&p, op, &o, other->dtype, 1,
                          (const struct AtenTensorOpaque *const *)&other))
            return AOTI_TORCH_FAILURE;
        sh_walk_serial(&p, scan_zero, &z);
        if (z.zero) return shimrt_fail(op, "ZeroDivisionError");
    }
    return pw_run(&c, ret0);
}

static AOTITorchError integral_only(pw_call *c, const char *kname, bool nobool,
                                    AtenTensorHandle *ret0) {
    for (int i = 0; i < c->nin; i++)
        if (shimrt_k_check_cpu(c->op, c->in[i], i ? "other" : "self") ||
            (bare_signed(c->in[i]->dtype) < 0 && !shimrt_dtype_is_complex(c->in[i]->dtype) &&
             shimrt_k_check_dtype(c->op, c->in[i], i ? "other" : "self")))
            return AOTI_TORCH_FAILURE;
    int32_t rt = shimrt_k_result_type_of(c->nin, c->in, 0, NULL);
    if (shimrt_k_is_floating(rt) || (nobool && rt == SHIMRT_BOOL))
        return shimrt_fail(c->op, "\"%s\" not implemented for '%s'", kname,
                           shimrt_dtype_torch_name(rt));
    return pw_run(c, ret0);
}

/* shimrt_cpu_<name>_tensor for the integral-only ops (kname: PyTorch's kernel name in its
 * message; shift: a shift, whose counts PyTorch also checks). */
#define INTEGRAL_OP(name, kname, shift)                                                            \
    AOTITorchError shimrt_cpu_##name##_tensor(AtenTensorHandle self, AtenTensorHandle other,       \
                                              AtenTensorHandle *ret0) {                            \
        CALL2(#name ".Tensor", OP_##name, self, other);                                            \
        return integral_only(&c, kname, shift, ret0);                                              \
    }
INTEGRAL_OP(bitwise_and, "bitwise_and_cpu", false)
INTEGRAL_OP(bitwise_or, "bitwise_or_cpu", false)
INTEGRAL_OP(bitwise_left_shift, "lshift_cpu", true)
INTEGRAL_OP(bitwise_right_shift, "rshift_cpu", true)
#define COMPARE(NAME)                                                                              \
    AOTITorchError shimrt_cpu_##NAME##_tensor(AtenTensorHandle self, AtenTensorHandle other,       \
                                              AtenTensorHandle *ret0) {                            \
        CALL2(#NAME ".Tensor", OP_##NAME, self, other);                                            \
        return pw_run(&c, ret0);                                                                   \
    }                                                                                              \
    AOTITorchError shimrt_cpu_##NAME##_scalar(AtenTensorHandle self, shimrt_scalar other,          \
                                              AtenTensorHandle *ret0) {                            \
        CALL1(#NAME ".Scalar", OP_##NAME, self);                                                   \
        c.has_scalar = true;                                                                       \
        c.scalar = other;                                                                          \
        return pw_run(&c, ret0);                                                                   \
    }
SHIMRT_COMPARISONS(COMPARE)

AOTITorchError shimrt_cpu_where_self(AtenTensorHandle condition, AtenTensorHandle self,
                                     AtenTensorHandle other, AtenTensorHandle *ret0) {
    static const char op[] = "where.self";
    pw_call c = {.op = op,
                 .row = OP_where,
                 .nin = 3,
                 .in = {condition, self, other},
                 .compute = -1,
                 .cond_first = true};
    if (shimrt_k_check_cpu(op, condition, "condition")) return AOTI_TORCH_FAILURE;
    if (condition->dtype != SHIMRT_BOOL)
        return shimrt_fail(op,
                           "where expected condition to be a boolean tensor, but got a "
                           "tensor with dtype %s",
                           shimrt_dtype_torch_name(condition->dtype));
    return pw_run(&c, ret0);
}

/* ---- entry points for misc.c: wide dtypes (uint16/32/64, complex) ----------------------- */
int32_t sh_result_type_wide(const char *op, const char *kname, int nin,
                            const struct AtenTensorOpaque *const *in, const shimrt_scalar *scalar) {
    pw_call c = {.op = op, .nin = nin, .compute = -1, .has_scalar = scalar != NULL, .kname = kname};
    for (int i = 0; i < nin && i < 3; i++) c.in[i] = in[i];
    if (scalar) c.scalar = *scalar;
    return bare_result_type(&c);
}

bool sh_dtype_wide(int32_t dt) { return bare_signed(dt) >= 0 || shimrt_dtype_is_complex(dt); }

AOTITorchError sh_pow_complex(const char *op, AtenTensorHandle base, AtenTensorHandle exponent,
                              int32_t rt, AtenTensorHandle out, AtenTensorHandle *ret0) {
    pw_call c = {
        .op = op, .row = OP_pow, .nin = 2, .in = {base, exponent}, .compute = rt, .out = out};
    return pw_run_bare(&c, ret0);
}

AOTITorchError sh_mul_scalar_wide(const char *op, AtenTensorHandle self, shimrt_scalar other,
                                  AtenTensorHandle *ret0) {
    CALL1(op, OP_mul, self);
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    c.has_scalar = true;
    c.scalar = other;
    int32_t rt = bare_result_type(&c);
    if (rt == -2) return AOTI_TORCH_FAILURE;
    /* PyTorch's mul.Scalar is mul.Tensor with the Scalar wrapped in a 0-d tensor, which its
     * kernel reads converted to the common dtype */
    AtenTensorHandle s = shimrt_tensor_empty(op, 0, NULL, NULL, rt, SHIMRT_DEV_CPU, 0);
    if (!s) return AOTI_TORCH_FAILURE;
    if (other.kind == SHIMRT_SCALAR_KIND_COMPLEX) {
        double v[2] = {other.d, other.im};
        shimrt_dtype_convert(shimrt_data(s), rt, v, SHIMRT_COMPLEX128);
    } else if (shimrt_scalar_is_integral(other, true)) {
        shimrt_dtype_convert(shimrt_data(s), rt, &other.i, SHIMRT_INT64);
    } else {
        shimrt_dtype_convert(shimrt_data(s), rt, &other.d, SHIMRT_FLOAT64);
    }
    pw_call e = {.op = op, .row = OP_mul, .nin = 2, .in = {self, s}, .compute = rt};
    AOTITorchError rc = pw_run_bare(&e, ret0);
    shimrt_tensor_free(s);
    return rc;
}

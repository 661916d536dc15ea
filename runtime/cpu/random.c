/* runtime/cpu/random.c: random ops on the CPU drawing from the generators' MT19937 stream
 * (runtime/core/generator.c) with PyTorch's CPU transforms, so that after the same seed the
 * values are PyTorch's (docs/random.md says which are bit-identical). Written from the
 * description of ATen's DistributionsHelper.h / TransformationHelper.h / cpu kernels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng_internal.h"
#include "compositeexplicitautograd_kernels.h"
#include "loops.h"
#include "iter.h"

/* ---- element order: PyTorch's serial CPU loop walks a tensor in memory order (the
 * dimensions sorted by decreasing stride); a contiguous tensor is walked linearly. ---- */

typedef struct walk {
    int64_t n, i;
    int64_t nd, sizes[SHIMRT_MAX_DIMS], strides[SHIMRT_MAX_DIMS], idx[SHIMRT_MAX_DIMS];
    int64_t strides2[SHIMRT_MAX_DIMS]; /* a second operand's strides (bernoulli_'s p) */
    int64_t off, off2;
    bool contig;
    char *base; /* t's data and element size: walk_ptr */
    size_t es;
} walk;

/* strides2: NULL, or a second operand's strides over t's dims (then the walk tracks off2) */
static void walk_init2(walk *w, const struct AtenTensorOpaque *t, const int64_t *strides2) {
    w->n = shimrt_numel(t);
    w->i = 0;
    w->base = shimrt_data(t);
    w->es = shimrt_dtype_size(t->dtype);
    w->off = w->off2 = 0;
    w->contig = !strides2 && shimrt_is_contiguous(t);
    w->nd = 0;
    if (w->contig) return;
    int64_t perm[SHIMRT_MAX_DIMS], np = 0;
    for (int64_t d = 0; d < t->ndim; d++)
        if (t->sizes[d] != 1) perm[np++] = d;
    shimrt_k_sort_by_stride(t, perm, np); /* decreasing stride (outermost first) */
    for (int64_t k = 0; k < np; k++) {
        w->sizes[k] = t->sizes[perm[k]];
        w->strides[k] = t->strides[perm[k]];
        w->strides2[k] = strides2 ? strides2[perm[k]] : 0;
        w->idx[k] = 0;
    }
    w->nd = np;
}

static void walk_init(walk *w, const struct AtenTensorOpaque *t) { walk_init2(w, t, NULL); }

/* The element offset of the current element; then steps to the next. */
static int64_t walk_next(walk *w) {
    if (w->contig) return w->i++;
    int64_t cur = w->off;
    w->i++;
    for (int64_t k = w->nd - 1; k >= 0; k--) {
        w->off += w->strides[k];
        w->off2 += w->strides2[k];
        if (++w->idx[k] < w->sizes[k]) break;
        w->off -= w->strides[k] * w->sizes[k];
        w->off2 -= w->strides2[k] * w->sizes[k];
        w->idx[k] = 0;
    }
    return cur;
}

/* The current element's address; then steps to the next. */
static char *walk_ptr(walk *w) { return w->base + walk_next(w) * (int64_t)w->es; }

/* element access: the dtype table's (core/dtype.h); callers check the dtype first */
static void store_f(int32_t dt, char *p, double v) {
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(dt);
    if (t) t->store_f64(p, v);
}

static void store_i(int32_t dt, char *p, int64_t v) {
    const shimrt_dtype_traits *t = shimrt_dtype_traits_of(dt);
    if (t) t->store_i64(p, v);
}

static bool is_float_dt(int32_t dt) { return shimrt_dtype_is_floating(dt); }

/* ---- PyTorch's transforms ---- */

/* mantissa digits of a floating dtype (std::numeric_limits<T>::digits) */
static int digits_of(int32_t dt) {
    switch (dt) {
    case SHIMRT_FLOAT64: return 53;
    case SHIMRT_FLOAT32: return 24;
    case SHIMRT_FLOAT16: return 11;
    default: return 8; /* bfloat16 */
    }
}

/* uniform_real_distribution<double>(from, to) */
static double uniform_f64(shimrt_mt19937 *mt, double from, double to) {
    uint64_t v = shimrt_mt19937_u64(mt);
    double x = (double)(v & ((UINT64_C(1) << 53) - 1)) * (1.0 / 9007199254740992.0);
    return fma(x, to - from, from);
}

/* uniform_real_distribution<T> for T float, half, bfloat16: 32-bit draw, float arithmetic
 * (from and to already rounded to T) */
static float uniform_f32(shimrt_mt19937 *mt, int digits, float from, float to) {
    uint32_t v = shimrt_mt19937_u32(mt);
    float x = (float)(v & ((UINT32_C(1) << digits) - 1)) * (1.0f / (float)(UINT32_C(1) << digits));
    return fmaf(x, to - from, from);
}

static float round_to(int32_t dt, double v) {
    char b[8];
    store_f(dt, b, v);
    switch (dt) {
    case SHIMRT_FLOAT16: return shimrt_half_to_float(*(uint16_t *)(void *)b);
    case SHIMRT_BFLOAT16: return shimrt_bf16_to_float(*(uint16_t *)(void *)b);
    default: return (float)v;
    }
}

/* normal_distribution<double>(mean, std): Box-Muller, the second value cached */
static double normal_f64(shimrt_mt19937 *mt, double mean, double std) {
    if (mt->has_normal_f64) {
        mt->has_normal_f64 = false;
        return mt->normal_f64 * std + mean;
    }
    double u1 = uniform_f64(mt, 0.0, 1.0);
    double u2 = uniform_f64(mt, 0.0, 1.0);
    double r = sqrt(-2.0 * log1p(-u2));
    double theta = 2.0 * M_PI * u1;
    mt->normal_f64 = r * sin(theta);
    mt->has_normal_f64 = true;
    return r * cos(theta) * std + mean;
}

/* ---- checks ---- */

/* kname: PyTorch's kernel name in its "not implemented for" message; NULL: any dtype */
static shimrt_mt19937 *begin(const char *op, AtenTensorHandle self, AtenGeneratorHandle *gen,
                             const char *kname) {
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_dtype(op, self, "self")) return NULL;
    if (kname && !is_float_dt(self->dtype)) {
        shimrt_fail(op, "\"%s\" not implemented for '%s'", kname, shimrt_dtype_name(self->dtype));
        return NULL;
    }
    if (shimrt_k_internal_overlap(self)) {
        shimrt_fail(op, "unsupported operation: more than one element of the written-to tensor "
                        "refers to a single memory location. Please clone() the tensor before "
                        "performing the operation.");
        return NULL;
    }
    return shimrt_rng_acquire(op, gen ? *gen : NULL);
}
#define END(gen) shimrt_rng_release((gen) ? *(gen) : NULL)

/* ---- in-place kernels ---- */

AOTITorchError shimrt_cpu_uniform_(AtenTensorHandle self, double from, double to,
                                   AtenGeneratorHandle *generator) {
    static const char op[] = "uniform_";
    if (!(from <= to))
        return shimrt_fail(op,
                           "uniform_ expects to return a [from, to) range, but found "
                           "from=%g > to=%g",
                           from, to);
    shimrt_mt19937 *mt = begin(op, self, generator, "check_uniform_bounds");
    if (!mt) return AOTI_TORCH_FAILURE;
    int32_t dt = self->dtype;
    walk w;
    walk_init(&w, self);
    if (dt == SHIMRT_FLOAT64) {
        for (int64_t i = 0; i < w.n; i++) store_f(dt, walk_ptr(&w), uniform_f64(mt, from, to));
    } else {
        /* half and bfloat16 draw as float (24 bits) and round the result */
        float f = round_to(dt, from), t = round_to(dt, to);
        int dg = 24;
        bool reduced = dt == SHIMRT_FLOAT16 || dt == SHIMRT_BFLOAT16;
        for (int64_t i = 0; i < w.n; i++) {
            float v = uniform_f32(mt, dg, f, t);
            /* a value that rounds up to `to` in half/bfloat16 becomes `from` ([from, to)) */
            if (reduced && round_to(dt, v) >= t) v = f;
            store_f(dt, walk_ptr(&w), v);
        }
    }
    END(generator);
    return AOTI_TORCH_SUCCESS;
}

/* normal_fill_16 (scalar): the first 8 of data hold u1 draws, the last 8 u2 draws */
static void fill16_f64(double *d, double mean, double std) {
    for (int j = 0; j < 8; j++) {
        double u1 = 1 - d[j], u2 = d[j + 8];
        double radius = sqrt(-2 * log(u1));
        double theta = 2.0 * M_PI * u2;
        d[j] = radius * cos(theta) * std + mean;
        d[j + 8] = radius * sin(theta) * std + mean;
    }
}

/* PyTorch's float normal_ for 16 or more contiguous elements runs an AVX2 Box-Muller whose
 * log, sin and cos are the Cephes single-precision polynomials (Pommier's avx_mathfun port),
 * not libm. The scalar versions below evaluate the same polynomials in the same order, one
 * float operation at a time, so that each lane's result is bit-identical. */
/* PyTorch's AVX2 build lets the compiler fuse each multiply with the add that uses it
 * (the first multiply in statement order when both operands are products): MAD is that
 * fused step. */
#define MAD(a, b, c) fmaf((a), (b), (c))

static float cephes_logf(float x) {
    if (!(x > 0.0f)) return NAN;
    if (x < 1.17549435e-38f) x = 1.17549435e-38f;
    uint32_t b = shimrt_f32_bits(x);
    float e = (float)((int32_t)(b >> 23) - 127) + 1.0f;
    x = shimrt_f32_of_bits((b & ~UINT32_C(0x7f800000)) |
                           shimrt_f32_bits(0.5f)); /* mantissa in [0.5, 1) */
    bool low = x < 0.707106781186547524f;          /* then x + x - 1 and e - 1 */
    float tmp = low ? x : 0.0f;
    x = x - 1.0f;
    e = e - (low ? 1.0f : 0.0f);
    x = x + tmp;
    float z = x * x;
    float y = 7.0376836292E-2f;
    y = MAD(y, x, -1.1514610310E-1f);
    y = MAD(y, x, 1.1676998740E-1f);
    y = MAD(y, x, -1.2420140846E-1f);
    y = MAD(y, x, 1.4249322787E-1f);
    y = MAD(y, x, -1.6668057665E-1f);
    y = MAD(y, x, 2.0000714765E-1f);
    y = MAD(y, x, -2.4999993993E-1f);
    y = MAD(y, x, 3.3333331174E-1f);
    y = y * x;
    y = MAD(y, z, e * -2.12194440e-4f);
    y = MAD(-z, 0.5f, y);
    x = x + y;
    x = MAD(e, 0.693359375f, x);
    return x;
}

static void cephes_sincosf(float x, float *s, float *c) {
    uint32_t sign_sin = shimrt_f32_bits(x) & UINT32_C(0x80000000);
    x = fabsf(x);
    float y = x * 1.27323954473516f; /* 4 / pi */
    int32_t j = (int32_t)y;          /* truncation, as cvttps */
    j = (j + 1) & ~1;
    y = (float)j;
    uint32_t swap_sin = ((uint32_t)j & 4u) << 29;
    bool poly2 = (j & 2) == 0; /* the sine polynomial for sin */
    uint32_t sign_cos = ((uint32_t) ~(j - 2) & 4u) << 29;
    sign_sin ^= swap_sin;
    x = MAD(y, -0.78515625f, x);
    x = MAD(y, -2.4187564849853515625e-4f, x);
    x = MAD(y, -3.77489497744594108e-8f, x);
    float z = x * x;
    float yc = 2.443315711809948E-005f;
    yc = MAD(yc, z, -1.388731625493765E-003f);
    yc = MAD(yc, z, 4.166664568298827E-002f);
    yc = yc * z;
    yc = MAD(yc, z, -(z * 0.5f));
    yc = yc + 1.0f;
    float ys = -1.9515295891E-4f;
    ys = MAD(ys, z, 8.3321608736E-3f);
    ys = MAD(ys, z, -1.6666654611E-1f);
    ys = ys * z;
    ys = MAD(ys, x, x);
    float sin2 = poly2 ? ys : 0.0f, sin1 = poly2 ? 0.0f : yc;
    ys = ys - sin2;
    yc = yc - sin1;
    *s = shimrt_f32_of_bits(shimrt_f32_bits(sin1 + sin2) ^ sign_sin);
    *c = shimrt_f32_of_bits(shimrt_f32_bits(yc + ys) ^ sign_cos);
}

/* one block of 16: PyTorch's AVX2 normal_fill_16 lane by lane */
static void fill16_f32_avx(float *d, float mean, float std) {
    const float two_pi = (float)(2.0 * M_PI);
    for (int j = 0; j < 8; j++) {
        float u1 = 1.0f - d[j], u2 = d[j + 8];
        float radius = sqrtf(-2.0f * cephes_logf(u1));
        float st, ct;
        cephes_sincosf(two_pi * u2, &st, &ct);
        d[j] = fmaf(radius * ct, std, mean);
        d[j + 8] = fmaf(radius * st, std, mean);
    }
}

AOTITorchError shimrt_cpu_normal_(AtenTensorHandle self, double mean, double std,
                                  AtenGeneratorHandle *generator) {
    static const char op[] = "normal_";
    if (!(std >= 0.0)) return shimrt_fail(op, "normal expects std >= 0.0, but found std %g", std);
    shimrt_mt19937 *mt = begin(op, self, generator, "normal_kernel_cpu");
    if (!mt) return AOTI_TORCH_FAILURE;
    int32_t dt = self->dtype;
    size_t es = shimrt_dtype_size(dt);
    char *base = shimrt_data(self);
    int64_t n = shimrt_numel(self);
    if (n >= 16 && shimrt_is_contiguous(self) && dt == SHIMRT_FLOAT64) {
        double *d = (double *)(void *)base;
        for (int64_t i = 0; i < n; i++) d[i] = uniform_f64(mt, 0.0, 1.0);
        for (int64_t i = 0; i + 16 <= n; i += 16) fill16_f64(d + i, mean, std);
        if (n % 16) {
            d += n - 16;
            for (int i = 0; i < 16; i++) d[i] = uniform_f64(mt, 0.0, 1.0);
            fill16_f64(d, mean, std);
        }
    } else if (n >= 16 && shimrt_is_contiguous(self) && dt == SHIMRT_FLOAT32) {
        float *d = (float *)(void *)base;
        for (int64_t i = 0; i < n; i++) d[i] = uniform_f32(mt, 24, 0.0f, 1.0f);
        for (int64_t i = 0; i + 16 <= n; i += 16) fill16_f32_avx(d + i, (float)mean, (float)std);
        if (n % 16) {
            d += n - 16;
            for (int i = 0; i < 16; i++) d[i] = uniform_f32(mt, 24, 0.0f, 1.0f);
            fill16_f32_avx(d, (float)mean, (float)std);
        }
    } else if (n >= 16 && shimrt_is_contiguous(self)) {
        /* half, bfloat16: the float32 computation, rounded */
        float *d = malloc((size_t)n * sizeof *d);
        if (!d) {
            END(generator);
            return shimrt_fail(op, "out of memory");
        }
        /* unlike float32, the draws are made block by block: 16, transform, 16, ... */
        for (int64_t i = 0; i + 16 <= n; i += 16) {
            for (int k = 0; k < 16; k++) d[i + k] = uniform_f32(mt, 24, 0.0f, 1.0f);
            fill16_f32_avx(d + i, (float)mean, (float)std);
        }
        if (n % 16) {
            float *e = d + n - 16;
            for (int i = 0; i < 16; i++) e[i] = uniform_f32(mt, 24, 0.0f, 1.0f);
            fill16_f32_avx(e, (float)mean, (float)std);
        }
        for (int64_t i = 0; i < n; i++) store_f(dt, base + i * (int64_t)es, d[i]);
        free(d);
    } else {
        walk w;
        walk_init(&w, self);
        for (int64_t i = 0; i < w.n; i++) store_f(dt, walk_ptr(&w), normal_f64(mt, mean, std));
    }
    END(generator);
    return AOTI_TORCH_SUCCESS;
}

/* The largest value random_ may give a dtype: max for integers, 1 for bool, 2^digits for
 * floating types. */
static int64_t top_of(int32_t dt) {
    switch (dt) {
    case SHIMRT_BOOL: return 1;
    case SHIMRT_UINT8: return 255;
    case SHIMRT_INT8: return 127;
    case SHIMRT_INT16: return 32767;
    case SHIMRT_INT32: return INT32_MAX;
    case SHIMRT_INT64: return INT64_MAX;
    default: return (int64_t)1 << digits_of(dt);
    }
}
static int64_t bottom_of(int32_t dt) {
    switch (dt) {
    case SHIMRT_BOOL:
    case SHIMRT_UINT8: return 0;
    case SHIMRT_INT8: return -128;
    case SHIMRT_INT16: return -32768;
    case SHIMRT_INT32: return INT32_MIN;
    case SHIMRT_INT64: return INT64_MIN;
    default: return -top_of(dt);
    }
}

/* random_(from, to): [from, to); to NULL: [from, the dtype's top] (PyTorch's random_.from);
 * from INT64_MIN without to: the whole 64-bit range. */
AOTITorchError shimrt_cpu_random__from(AtenTensorHandle self, int64_t from, int64_t *to,
                                       AtenGeneratorHandle *generator) {
    static const char op[] = "random_";
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    int32_t dt = self->dtype;
    bool full = false;
    uint64_t range = 0;
    if (to) {
        if (!(from < *to))
            return shimrt_fail(op,
                               "random_ expects 'from' to be less than 'to', but got "
                               "from=%lld >= to=%lld",
                               (long long)from, (long long)*to);
        if (from < bottom_of(dt))
            return shimrt_fail(op, "from is out of bounds for %s", shimrt_dtype_name(dt));
        if (*to - 1 > top_of(dt))
            return shimrt_fail(op, "to - 1 is out of bounds for %s", shimrt_dtype_name(dt));
        range = (uint64_t)*to - (uint64_t)from;
    } else if (from != INT64_MIN) {
        int64_t to_inc = top_of(dt);
        if (!(from < to_inc) && is_float_dt(dt))
            return shimrt_fail(op,
                               "random_ expects 'from' casted to dtype to be less than or "
                               "equal to 'to_inc' casted to dtype, but got from=%lld > "
                               "to_inc=%lld",
                               (long long)from, (long long)to_inc);
        if (from < bottom_of(dt) || from > to_inc)
            return shimrt_fail(op, "from is out of bounds for %s", shimrt_dtype_name(dt));
        range = (uint64_t)to_inc - (uint64_t)from + 1;
    } else {
        if (!(dt == SHIMRT_INT64 || dt == SHIMRT_FLOAT64 || dt == SHIMRT_FLOAT32 ||
              dt == SHIMRT_BFLOAT16))
            return shimrt_fail(op, "random_full_64_bits_range_kernel_cpu handles only int64, "
                                   "double, float and bfloat16");
        full = true;
    }
    shimrt_mt19937 *mt = begin(op, self, generator, NULL);
    if (!mt) return AOTI_TORCH_FAILURE;
    /* PyTorch 2.15 takes a 64-bit draw from a range of 2^28 on (measured against it: 2^28 - 1
     * draws 32 bits, 2^28 draws 64, for int32 as for int64) */
    bool wide = full || range >= (UINT64_C(1) << 28);
    walk w;
    walk_init(&w, self);
    for (int64_t i = 0; i < w.n; i++) {
        uint64_t v = wide ? shimrt_mt19937_u64(mt) : shimrt_mt19937_u32(mt);
        int64_t r = full ? (int64_t)v : (int64_t)(v % range + (uint64_t)from);
        store_i(dt, walk_ptr(&w), r);
    }
    END(generator);
    return AOTI_TORCH_SUCCESS;
}

/* random_(to): [0, to) */
AOTITorchError shimrt_cpu_random__to(AtenTensorHandle self, int64_t to,
                                     AtenGeneratorHandle *generator) {
    return shimrt_cpu_random__from(self, 0, &to, generator);
}

/* random_(): [0, 2^digits] for floating types, [0, max] for integers, {0, 1} for bool */
AOTITorchError shimrt_cpu_random_(AtenTensorHandle self, AtenGeneratorHandle *generator) {
    static const char op[] = "random_";
    shimrt_mt19937 *mt = begin(op, self, generator, NULL);
    if (!mt) return AOTI_TORCH_FAILURE;
    int32_t dt = self->dtype;
    uint64_t mod;
    switch (dt) {
    case SHIMRT_BOOL: mod = 2; break;
    case SHIMRT_UINT8: mod = 256; break;
    case SHIMRT_INT8: mod = 128; break;
    case SHIMRT_INT16: mod = 32768; break;
    case SHIMRT_INT32: mod = UINT64_C(2147483648); break;
    case SHIMRT_INT64: mod = UINT64_C(9223372036854775808); break;
    default: mod = (UINT64_C(1) << digits_of(dt)) + 1; break;
    }
    bool wide = dt == SHIMRT_INT64 || dt == SHIMRT_FLOAT64;
    walk w;
    walk_init(&w, self);
    for (int64_t i = 0; i < w.n; i++) {
        uint64_t v = wide ? shimrt_mt19937_u64(mt) : shimrt_mt19937_u32(mt);
        store_i(dt, walk_ptr(&w), (int64_t)(v % mod));
    }
    END(generator);
    return AOTI_TORCH_SUCCESS;
}

static bool is_supported_bern(int32_t dt) {
    return dt != SHIMRT_FLOAT16 && dt != SHIMRT_BFLOAT16 ? true : false;
}

/* begin for bernoulli_, which also refuses (after begin's checks, the generator released
 * again) a dtype it does not fill; kname: PyTorch's kernel name in that message. */
static shimrt_mt19937 *bern_begin(const char *op, AtenTensorHandle self, AtenGeneratorHandle *gen,
                                  const char *kname) {
    shimrt_mt19937 *mt = begin(op, self, gen, NULL);
    if (mt && !is_supported_bern(self->dtype)) {
        END(gen);
        shimrt_fail(op, "\"%s\" not implemented for '%s'", kname, shimrt_dtype_name(self->dtype));
        return NULL;
    }
    return mt;
}

/* bernoulli_(p): PyTorch's default CPU path (a double draw per element, value < p). PyTorch
 * takes an MKL path on Intel CPUs instead (docs/random.md). */
AOTITorchError shimrt_cpu_bernoulli__float(AtenTensorHandle self, double p,
                                           AtenGeneratorHandle *generator) {
    static const char op[] = "bernoulli_";
    if (!(p >= 0.0 && p <= 1.0))
        return shimrt_fail(op, "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
    shimrt_mt19937 *mt = bern_begin(op, self, generator, "bernoulli_scalar_cpu_");
    if (!mt) return AOTI_TORCH_FAILURE;
    int32_t dt = self->dtype;
    walk w;
    walk_init(&w, self);
    for (int64_t i = 0; i < w.n; i++) store_i(dt, walk_ptr(&w), uniform_f64(mt, 0.0, 1.0) < p);
    END(generator);
    return AOTI_TORCH_SUCCESS;
}

static double load_as_double(int32_t dt, const char *p) { return shimrt_k_load_f64(p, dt); }

/* bernoulli_(Tensor p): p broadcast to self; a double draw per element when p is double,
 * else a float draw compared with p as a float. */
AOTITorchError shimrt_cpu_bernoulli__tensor(AtenTensorHandle self, AtenTensorHandle p,
                                            AtenGeneratorHandle *generator) {
    static const char op[] = "bernoulli_";
    if (shimrt_k_check_cpu(op, p, "p")) return AOTI_TORCH_FAILURE;
    int32_t pdt = p->dtype;
    if (!(pdt == SHIMRT_FLOAT64 || pdt == SHIMRT_FLOAT32))
        return shimrt_fail(op, "\"bernoulli_tensor_cpu_p_\" not implemented for '%s'",
                           shimrt_dtype_name(pdt));
    /* p's strides broadcast to self's shape */
    if (p->ndim > self->ndim)
        return shimrt_fail(op, "the shape of p cannot be broadcast to the shape of self");
    int64_t pst[SHIMRT_MAX_DIMS];
    for (int64_t d = 0; d < self->ndim; d++) {
        int64_t pd = d - (self->ndim - p->ndim);
        if (pd < 0) {
            pst[d] = 0;
        } else if (p->sizes[pd] == self->sizes[d]) {
            pst[d] = p->sizes[pd] == 1 ? 0 : p->strides[pd];
        } else if (p->sizes[pd] == 1) {
            pst[d] = 0;
        } else {
            return shimrt_fail(op, "the shape of p cannot be broadcast to the shape of self");
        }
    }
    shimrt_mt19937 *mt = bern_begin(op, self, generator, "bernoulli_tensor_cpu_self_");
    if (!mt) return AOTI_TORCH_FAILURE;
    int32_t dt = self->dtype;
    size_t es = shimrt_dtype_size(dt), pes = shimrt_dtype_size(pdt);
    char *base = shimrt_data(self);
    const char *pb = shimrt_data(p);
    /* walk self in its order; p's offset follows the same index */
    walk w;
    walk_init2(&w, self, pst);
    int64_t n = w.n;
    for (int64_t i = 0; i < n; i++) {
        int64_t poff = w.off2;
        int64_t off = walk_next(&w);
        double pv = load_as_double(pdt, pb + poff * (int64_t)pes);
        bool r;
        if (pdt == SHIMRT_FLOAT64)
            r = uniform_f64(mt, 0.0, 1.0) < pv;
        else
            r = uniform_f32(mt, 24, 0.0f, 1.0f) < (float)pv;
        store_i(dt, base + off * (int64_t)es, r);
    }
    END(generator);
    return AOTI_TORCH_SUCCESS;
}

/* ---- one double draw per element, PyTorch's cpu_serial_kernel with a distribution over
 * double, the value cast to the element type (exponential_, cauchy_, log_normal_,
 * geometric_) ---- */

typedef double (*draw_fn)(shimrt_mt19937 *mt, const double *prm);

/* The C++ type name PyTorch prints for a dtype in "you specified ..." (typeMeta's name) */
static const char *cxx_type_name(int32_t dt) {
    switch (dt) {
    case SHIMRT_UINT8: return "unsigned char";
    case SHIMRT_INT8: return "signed char";
    case SHIMRT_INT16: return "short int";
    case SHIMRT_INT32: return "int";
    case SHIMRT_INT64: return "long int";
    case SHIMRT_BOOL: return "bool";
    default: return shimrt_dtype_name(dt);
    }
}

/* continuous: the distribution's name for PyTorch's "is a continuous probability
 * distribution" check (type_name: the dtype as ScalarType or as the C++ type), or NULL;
 * kname: the dispatch name for a dtype the kernel does not take (bool for an integer
 * distribution, every non-floating dtype for a floating one). */
static AOTITorchError serial_draw(const char *op, AtenTensorHandle self,
                                  AtenGeneratorHandle *generator, const char *continuous,
                                  bool cxx_name, const char *kname, bool ints, draw_fn f,
                                  const double *prm) {
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    int32_t dt = self->dtype;
    if (continuous && !is_float_dt(dt))
        return shimrt_fail(op,
                           "%s distribution is a continuous probability distribution. dtype must "
                           "be a floating point but you specified %s",
                           continuous, cxx_name ? cxx_type_name(dt) : shimrt_dtype_name(dt));
    if (!is_float_dt(dt) && (!ints || dt == SHIMRT_BOOL))
        return shimrt_fail(op, "\"%s\" not implemented for '%s'", kname, shimrt_dtype_name(dt));
    shimrt_mt19937 *mt = begin(op, self, generator, NULL);
    if (!mt) return AOTI_TORCH_FAILURE;
    walk w;
    walk_init(&w, self);
    bool fl = is_float_dt(dt);
    for (int64_t i = 0; i < w.n; i++) {
        double v = f(mt, prm);
        char *p = walk_ptr(&w);
        if (fl)
            store_f(dt, p, v);
        else
            /* (an inf or out-of-range draw: x86's conversion result, INT64_MIN, without the
             * undefined C conversion PyTorch's static_cast is) */
            store_i(dt, p, isfinite(v) && fabs(v) < 9.2e18 ? (int64_t)v : INT64_MIN);
    }
    END(generator);
    return AOTI_TORCH_SUCCESS;
}

/* exponential: -1/lambd * log1p(-u), u a double draw */
static double draw_exponential(shimrt_mt19937 *mt, const double *prm) {
    return -1.0 / prm[0] * log1p(-uniform_f64(mt, 0.0, 1.0));
}

AOTITorchError shimrt_cpu_exponential_(AtenTensorHandle self, double lambd,
                                       AtenGeneratorHandle *generator) {
    static const char op[] = "exponential_";
    if (!(lambd > 0.0))
        return shimrt_fail(op, "exponential_ expects lambda > 0.0, but found lambda=%g", lambd);
    return serial_draw(op, self, generator, "Exponential", false, "exponential_cpu", false,
                       draw_exponential, &lambd);
}

/* cauchy: median + sigma * tan(pi * (u - 0.5)) */
static double draw_cauchy(shimrt_mt19937 *mt, const double *prm) {
    return prm[0] + prm[1] * tan(M_PI * (uniform_f64(mt, 0.0, 1.0) - 0.5));
}

/* log_normal: exp(normal_distribution<double>(mean, std)), the Box-Muller cache shared with
 * normal_'s per-element path */
static double draw_log_normal(shimrt_mt19937 *mt, const double *prm) {
    return exp(normal_f64(mt, prm[0], prm[1]));
}

/* cauchy_(median, sigma) and log_normal_(mean, std): the second parameter must be > 0 */
#define TWO_PARAM_DRAW(NAME, A, B, CONTINUOUS, CXX_NAME)                                           \
    AOTITorchError shimrt_cpu_##NAME##_(AtenTensorHandle self, double A, double B,                 \
                                        AtenGeneratorHandle *generator) {                          \
        static const char op[] = #NAME "_";                                                        \
        if (!(B > 0.0))                                                                            \
            return shimrt_fail(op, #NAME "_ expects " #B " > 0.0, but found " #B "=%g", B);        \
        double prm[2] = {A, B};                                                                    \
        return serial_draw(op, self, generator, CONTINUOUS, CXX_NAME, #NAME "_cpu", false,         \
                           draw_##NAME, prm);                                                      \
    }
TWO_PARAM_DRAW(cauchy, median, sigma, "Cauchy", true)
TWO_PARAM_DRAW(log_normal, mean, std, NULL, false)

/* geometric: ceil(log(u) / log1p(-p)); integer dtypes take the value truncated */
static double draw_geometric(shimrt_mt19937 *mt, const double *prm) {
    return ceil(log(uniform_f64(mt, 0.0, 1.0)) / log1p(-prm[0]));
}

AOTITorchError shimrt_cpu_geometric_(AtenTensorHandle self, double p,
                                     AtenGeneratorHandle *generator) {
    static const char op[] = "geometric_";
    if (!(p > 0.0 && p < 1.0))
        return shimrt_fail(op, "geometric_ expects p to be in (0, 1), but got p=%g", p);
    return serial_draw(op, self, generator, NULL, false, "geometric_cpu", true, draw_geometric, &p);
}

/* ---- factories and functional forms ---- */

static AOTITorchError new_tensor(const char *op, const int64_t *size, int64_t n, int32_t *dtype,
                                 int32_t def, int32_t *device, int32_t device_index_,
                                 AtenTensorHandle *out) {
    if (shimrt_k_check_size(op, size, n)) return AOTI_TORCH_FAILURE;
    int32_t dt = dtype ? *dtype : def;
    if (device && *device != SHIMRT_DEV_CPU)
        return shimrt_fail(op, "the CPU kernel cannot make a tensor on %s",
                           shimrt_device_type_name(*device));
    int64_t strides[SHIMRT_MAX_DIMS];
    shimrt_contiguous_strides(n, size, strides);
    (void)device_index_;
    return aoti_torch_empty_strided(n, size, strides, dt, SHIMRT_DEV_CPU, 0, out);
}

static AOTITorchError finish(AOTITorchError rc, AtenTensorHandle t, AtenTensorHandle *ret0) {
    if (rc) {
        aoti_torch_delete_tensor_object(t);
        return AOTI_TORCH_FAILURE;
    }
    *ret0 = t;
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError like(const char *op, AtenTensorHandle self, int32_t *dtype, int32_t *layout,
                           int32_t *device, int32_t device_index_, int32_t *pin_memory,
                           int32_t *memory_format, AtenTensorHandle *out) {
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (device && *device != SHIMRT_DEV_CPU)
        return shimrt_fail(op, "the CPU kernel cannot make a tensor on %s",
                           shimrt_device_type_name(*device));
    return shimrt_empty_like(self, dtype, layout, device, device_index_, pin_memory, memory_format,
                             out);
}

/* rand and randn: a fresh float32 (unless dtype says) tensor, or one like self, filled from the
 * unit distribution FILL(t, 0, 1, generator); each with and without a generator. */
#define UNIT_FACTORIES(X)                                                                          \
    X(rand, shimrt_cpu_uniform_)                                                                   \
    X(randn, shimrt_cpu_normal_)

#define DEFINE_UNIT_FACTORY(NAME, FILL)                                                            \
    AOTITorchError shimrt_cpu_##NAME##_generator(                                                  \
        const int64_t *size, int64_t size_len_, AtenGeneratorHandle *generator, int32_t *dtype,    \
        int32_t *layout, int32_t *device, int32_t device_index_, int32_t *pin_memory,              \
        AtenTensorHandle *ret0) {                                                                  \
        (void)layout, (void)pin_memory;                                                            \
        AtenTensorHandle t;                                                                        \
        if (new_tensor(#NAME, size, size_len_, dtype, SHIMRT_FLOAT32, device, device_index_, &t))  \
            return AOTI_TORCH_FAILURE;                                                             \
        return finish(FILL(t, 0.0, 1.0, generator), t, ret0);                                      \
    }                                                                                              \
    AOTITorchError shimrt_cpu_##NAME(const int64_t *size, int64_t size_len_, int32_t *dtype,       \
                                     int32_t *layout, int32_t *device, int32_t device_index_,      \
                                     int32_t *pin_memory, AtenTensorHandle *ret0) {                \
        return shimrt_cpu_##NAME##_generator(size, size_len_, NULL, dtype, layout, device,         \
                                             device_index_, pin_memory, ret0);                     \
    }                                                                                              \
    AOTITorchError shimrt_cpu_##NAME##_like_generator(                                             \
        AtenTensorHandle self, AtenGeneratorHandle *generator, int32_t *dtype, int32_t *layout,    \
        int32_t *device, int32_t device_index_, int32_t *pin_memory, int32_t *memory_format,       \
        AtenTensorHandle *ret0) {                                                                  \
        AtenTensorHandle t;                                                                        \
        if (like(#NAME "_like", self, dtype, layout, device, device_index_, pin_memory,            \
                 memory_format, &t))                                                               \
            return AOTI_TORCH_FAILURE;                                                             \
        return finish(FILL(t, 0.0, 1.0, generator), t, ret0);                                      \
    }                                                                                              \
    AOTITorchError shimrt_cpu_##NAME##_like(AtenTensorHandle self, int32_t *dtype,                 \
                                            int32_t *layout, int32_t *device,                      \
                                            int32_t device_index_, int32_t *pin_memory,            \
                                            int32_t *memory_format, AtenTensorHandle *ret0) {      \
        return shimrt_cpu_##NAME##_like_generator(self, NULL, dtype, layout, device,               \
                                                  device_index_, pin_memory, memory_format, ret0); \
    }

UNIT_FACTORIES(DEFINE_UNIT_FACTORY)

AOTITorchError shimrt_cpu_randint_low_generator(int64_t low, int64_t high, const int64_t *size,
                                                int64_t size_len_, AtenGeneratorHandle *generator,
                                                int32_t *dtype, int32_t *layout, int32_t *device,
                                                int32_t device_index_, int32_t *pin_memory,
                                                AtenTensorHandle *ret0) {
    (void)layout, (void)pin_memory;
    AtenTensorHandle t;
    if (new_tensor("randint", size, size_len_, dtype, SHIMRT_INT64, device, device_index_, &t))
        return AOTI_TORCH_FAILURE;
    return finish(shimrt_cpu_random__from(t, low, &high, generator), t, ret0);
}

AOTITorchError shimrt_cpu_randint_low(int64_t low, int64_t high, const int64_t *size,
                                      int64_t size_len_, int32_t *dtype, int32_t *layout,
                                      int32_t *device, int32_t device_index_, int32_t *pin_memory,
                                      AtenTensorHandle *ret0) {
    return shimrt_cpu_randint_low_generator(low, high, size, size_len_, NULL, dtype, layout, device,
                                            device_index_, pin_memory, ret0);
}

AOTITorchError shimrt_cpu_randint(int64_t high, const int64_t *size, int64_t size_len_,
                                  int32_t *dtype, int32_t *layout, int32_t *device,
                                  int32_t device_index_, int32_t *pin_memory,
                                  AtenTensorHandle *ret0) {
    return shimrt_cpu_randint_low_generator(0, high, size, size_len_, NULL, dtype, layout, device,
                                            device_index_, pin_memory, ret0);
}

AOTITorchError shimrt_cpu_randint_generator(int64_t high, const int64_t *size, int64_t size_len_,
                                            AtenGeneratorHandle *generator, int32_t *dtype,
                                            int32_t *layout, int32_t *device, int32_t device_index_,
                                            int32_t *pin_memory, AtenTensorHandle *ret0) {
    return shimrt_cpu_randint_low_generator(0, high, size, size_len_, generator, dtype, layout,
                                            device, device_index_, pin_memory, ret0);
}

/* randperm: Fisher-Yates from the front, z = random() % (n - i) (PyTorch's path for
 * n < 2^32 / 20; larger n is refused here). */
AOTITorchError shimrt_cpu_randperm_generator(int64_t n, AtenGeneratorHandle *generator,
                                             int32_t *dtype, int32_t *layout, int32_t *device,
                                             int32_t device_index_, int32_t *pin_memory,
                                             AtenTensorHandle *ret0) {
    static const char op[] = "randperm";
    (void)layout, (void)pin_memory;
    if (n < 0) return shimrt_fail(op, "n must be non-negative, got %lld", (long long)n);
    if (n >= (int64_t)(UINT32_MAX / 20))
        return shimrt_fail(op, "n = %lld is beyond the supported range", (long long)n);
    AtenTensorHandle t;
    if (new_tensor(op, &n, 1, dtype, SHIMRT_INT64, device, device_index_, &t))
        return AOTI_TORCH_FAILURE;
    int32_t dt = t->dtype;
    if (dt == SHIMRT_BOOL || (!is_float_dt(dt) && dt != SHIMRT_INT64 && dt != SHIMRT_INT32 &&
                              dt != SHIMRT_INT16 && dt != SHIMRT_INT8 && dt != SHIMRT_UINT8)) {
        aoti_torch_delete_tensor_object(t);
        return shimrt_fail(op, "\"randperm_cpu\" not implemented for '%s'", shimrt_dtype_name(dt));
    }
    int64_t *perm = malloc((size_t)(n ? n : 1) * sizeof *perm);
    if (!perm) {
        aoti_torch_delete_tensor_object(t);
        return shimrt_fail(op, "out of memory");
    }
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    shimrt_mt19937 *mt = shimrt_rng_acquire(op, generator ? *generator : NULL);
    if (!mt) {
        free(perm);
        aoti_torch_delete_tensor_object(t);
        return AOTI_TORCH_FAILURE;
    }
    for (int64_t i = 0; i < n - 1; i++) {
        int64_t z = (int64_t)(shimrt_mt19937_u32(mt) % (uint64_t)(n - i));
        int64_t s = perm[i];
        perm[i] = perm[z + i];
        perm[z + i] = s;
    }
    END(generator);
    size_t es = shimrt_dtype_size(dt);
    char *base = shimrt_data(t);
    for (int64_t i = 0; i < n; i++) store_i(dt, base + i * (int64_t)es, perm[i]);
    free(perm);
    *ret0 = t;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_randperm(int64_t n, int32_t *dtype, int32_t *layout, int32_t *device,
                                   int32_t device_index_, int32_t *pin_memory,
                                   AtenTensorHandle *ret0) {
    return shimrt_cpu_randperm_generator(n, NULL, dtype, layout, device, device_index_, pin_memory,
                                         ret0);
}

/* ---- *_like and functional forms: a new tensor (empty_like), then the in-place op ---- */

AOTITorchError shimrt_cpu_randint_like_low_generator_dtype(
    AtenTensorHandle self, int64_t low, int64_t high, AtenGeneratorHandle *generator,
    int32_t *dtype, int32_t *layout, int32_t *device, int32_t device_index_, int32_t *pin_memory,
    int32_t *memory_format, AtenTensorHandle *ret0) {
    AtenTensorHandle t;
    if (like("randint_like", self, dtype, layout, device, device_index_, pin_memory, memory_format,
             &t))
        return AOTI_TORCH_FAILURE;
    return finish(shimrt_cpu_random__from(t, low, &high, generator), t, ret0);
}

AOTITorchError shimrt_cpu_randint_like_low_dtype(AtenTensorHandle self, int64_t low, int64_t high,
                                                 int32_t *dtype, int32_t *layout, int32_t *device,
                                                 int32_t device_index_, int32_t *pin_memory,
                                                 int32_t *memory_format, AtenTensorHandle *ret0) {
    return shimrt_cpu_randint_like_low_generator_dtype(self, low, high, NULL, dtype, layout, device,
                                                       device_index_, pin_memory, memory_format,
                                                       ret0);
}

AOTITorchError shimrt_cpu_randint_like_generator(AtenTensorHandle self, int64_t high,
                                                 AtenGeneratorHandle *generator, int32_t *dtype,
                                                 int32_t *layout, int32_t *device,
                                                 int32_t device_index_, int32_t *pin_memory,
                                                 int32_t *memory_format, AtenTensorHandle *ret0) {
    return shimrt_cpu_randint_like_low_generator_dtype(self, 0, high, generator, dtype, layout,
                                                       device, device_index_, pin_memory,
                                                       memory_format, ret0);
}

AOTITorchError shimrt_cpu_randint_like(AtenTensorHandle self, int64_t high, int32_t *dtype,
                                       int32_t *layout, int32_t *device, int32_t device_index_,
                                       int32_t *pin_memory, int32_t *memory_format,
                                       AtenTensorHandle *ret0) {
    return shimrt_cpu_randint_like_low_generator_dtype(
        self, 0, high, NULL, dtype, layout, device, device_index_, pin_memory, memory_format, ret0);
}

AOTITorchError shimrt_cpu_normal_functional(AtenTensorHandle self, double mean, double std,
                                            AtenGeneratorHandle *generator,
                                            AtenTensorHandle *ret0) {
    AtenTensorHandle t;
    if (like("normal_functional", self, NULL, NULL, NULL, 0, NULL, NULL, &t))
        return AOTI_TORCH_FAILURE;
    return finish(shimrt_cpu_normal_(t, mean, std, generator), t, ret0);
}

/* bernoulli(self): self holds the probabilities */
AOTITorchError shimrt_cpu_bernoulli(AtenTensorHandle self, AtenGeneratorHandle *generator,
                                    AtenTensorHandle *ret0) {
    AtenTensorHandle t;
    if (like("bernoulli", self, NULL, NULL, NULL, 0, NULL, NULL, &t)) return AOTI_TORCH_FAILURE;
    return finish(shimrt_cpu_bernoulli__tensor(t, self, generator), t, ret0);
}

AOTITorchError shimrt_cpu_bernoulli_p(AtenTensorHandle self, double p,
                                      AtenGeneratorHandle *generator, AtenTensorHandle *ret0) {
    AtenTensorHandle t;
    if (like("bernoulli", self, NULL, NULL, NULL, 0, NULL, NULL, &t)) return AOTI_TORCH_FAILURE;
    return finish(shimrt_cpu_bernoulli__float(t, p, generator), t, ret0);
}

/* native_dropout(input, p, train): training (train NULL or true): mask = bernoulli_(1 - p)
 * as bool, output = input * mask * (1 / (1 - p)) (0 when p is 1); else output a copy of
 * input and mask all true. Both results contiguous. */
AOTITorchError shimrt_cpu_native_dropout(AtenTensorHandle input, double p, int32_t *train,
                                         AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    static const char op[] = "native_dropout";
    if (shimrt_k_check_cpu(op, input, "input") || shimrt_k_check_dtype(op, input, "input"))
        return AOTI_TORCH_FAILURE;
    int32_t dt = input->dtype;
    if (!is_float_dt(dt))
        return shimrt_fail(op, "result type Float can't be cast to the desired output type %s",
                           shimrt_dtype_name(dt));
    bool training = !train || *train;
    if (training && !(p >= 0.0 && p <= 1.0))
        return shimrt_fail(op, "dropout probability has to be between 0 and 1, but got %g", p);
    int64_t strides[SHIMRT_MAX_DIMS];
    shimrt_contiguous_strides(input->ndim, input->sizes, strides);
    AtenTensorHandle out, mask;
    if (aoti_torch_empty_strided(input->ndim, input->sizes, strides, dt, SHIMRT_DEV_CPU, 0, &out))
        return AOTI_TORCH_FAILURE;
    if (aoti_torch_empty_strided(input->ndim, input->sizes, strides, SHIMRT_BOOL, SHIMRT_DEV_CPU, 0,
                                 &mask)) {
        aoti_torch_delete_tensor_object(out);
        return AOTI_TORCH_FAILURE;
    }
    double p1m = 1.0 - p, scale = p1m == 0.0 ? 0.0 : 1.0 / p1m;
    shimrt_mt19937 *mt = training ? shimrt_rng_acquire(op, NULL) : NULL;
    if (training && !mt) {
        aoti_torch_delete_tensor_object(out);
        aoti_torch_delete_tensor_object(mask);
        return AOTI_TORCH_FAILURE;
    }
    size_t es = shimrt_dtype_size(dt);
    char *ob = shimrt_data(out);
    uint8_t *mb = shimrt_data(mask);
    const char *ib = shimrt_data(input);
    walk w;
    walk_init2(&w, out, input->strides); /* out is contiguous: logical order */
    for (int64_t i = 0; i < w.n; i++) {
        int64_t ioff = w.off2, off = walk_next(&w);
        uint8_t m = training ? uniform_f64(mt, 0.0, 1.0) < p1m : 1;
        mb[off] = m;
        double x = load_as_double(dt, ib + ioff * (int64_t)es);
        if (!training) {
            store_f(dt, ob + off * (int64_t)es, x);
        } else if (dt == SHIMRT_FLOAT64) {
            store_f(dt, ob + off * (int64_t)es, x * (double)m * scale);
        } else { /* float math: (x * m) rounded to the type, times scale rounded to it */
            float xm = round_to(dt, (float)x * (float)m);
            store_f(dt, ob + off * (int64_t)es, xm * round_to(dt, scale));
        }
    }
    if (training) shimrt_rng_release(NULL);
    *ret0 = out;
    *ret1 = mask;
    return AOTI_TORCH_SUCCESS;
}

/* exponential / uniform: the functional forms (empty_like, then the in-place op) */
AOTITorchError shimrt_cpu_exponential(AtenTensorHandle self, double lambd,
                                      AtenGeneratorHandle *generator, AtenTensorHandle *ret0) {
    AtenTensorHandle t;
    if (like("exponential", self, NULL, NULL, NULL, 0, NULL, NULL, &t)) return AOTI_TORCH_FAILURE;
    return finish(shimrt_cpu_exponential_(t, lambd, generator), t, ret0);
}

AOTITorchError shimrt_cpu_uniform(AtenTensorHandle self, double from, double to,
                                  AtenGeneratorHandle *generator, AtenTensorHandle *ret0) {
    AtenTensorHandle t;
    if (like("uniform", self, NULL, NULL, NULL, 0, NULL, NULL, &t)) return AOTI_TORCH_FAILURE;
    return finish(shimrt_cpu_uniform_(t, from, to, generator), t, ret0);
}

/* randint.low_out: out resized to size (resize_output), then random_(low, high) */
AOTITorchError shimrt_cpu_randint_low_out(AtenTensorHandle out, int64_t low, int64_t high,
                                          const int64_t *size, int64_t size_len_) {
    static const char op[] = "randint";
    if (shimrt_k_check_cpu(op, out, "out") || shimrt_k_check_size(op, size, size_len_) ||
        shimrt_resize_output(op, out, size_len_, size))
        return AOTI_TORCH_FAILURE;
    return shimrt_cpu_random__from(out, low, &high, NULL);
}

/* randint_like.Tensor: high a 0-dim CPU tensor of one element, read as int64 */
AOTITorchError shimrt_cpu_randint_like_tensor_generator(
    AtenTensorHandle self, AtenTensorHandle high, AtenGeneratorHandle *generator, int32_t *dtype,
    int32_t *layout, int32_t *device, int32_t device_index_, int32_t *pin_memory,
    int32_t *memory_format, AtenTensorHandle *ret0) {
    static const char op[] = "randint_like";
    if (shimrt_k_check_dtype(op, high, "high")) return AOTI_TORCH_FAILURE;
    if (high->ndim != 0 || high->device_type != SHIMRT_DEV_CPU)
        return shimrt_fail(op, "high must be a scalar tensor and on CPU");
    const char *p = shimrt_data(high);
    int64_t h;
    if (is_float_dt(high->dtype))
        h = (int64_t)load_as_double(high->dtype, p);
    else
        switch (high->dtype) {
        case SHIMRT_BOOL:
        case SHIMRT_UINT8: h = *(const uint8_t *)p; break;
        case SHIMRT_INT8: h = *(const int8_t *)p; break;
        case SHIMRT_INT16: h = *(const int16_t *)(const void *)p; break;
        case SHIMRT_INT32: h = *(const int32_t *)(const void *)p; break;
        case SHIMRT_INT64: h = *(const int64_t *)(const void *)p; break;
        default:
            return shimrt_fail(op, "high: %s is not supported", shimrt_dtype_name(high->dtype));
        }
    return shimrt_cpu_randint_like_low_generator_dtype(self, 0, h, generator, dtype, layout, device,
                                                       device_index_, pin_memory, memory_format,
                                                       ret0);
}

AOTITorchError shimrt_cpu_randint_like_tensor(AtenTensorHandle self, AtenTensorHandle high,
                                              int32_t *dtype, int32_t *layout, int32_t *device,
                                              int32_t device_index_, int32_t *pin_memory,
                                              int32_t *memory_format, AtenTensorHandle *ret0) {
    return shimrt_cpu_randint_like_tensor_generator(self, high, NULL, dtype, layout, device,
                                                    device_index_, pin_memory, memory_format, ret0);
}

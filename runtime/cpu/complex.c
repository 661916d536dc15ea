/* runtime/cpu/complex.c: the complex functions of c_shim_cpu.h for AOTInductor CPU graphs:
 * view_as_real and view_as_complex (views: the same storage with the dtype, sizes, strides
 * and storage offset PyTorch gives, and PyTorch's checks and messages), polar (complex
 * from real abs and angle, broadcast) and angle (of real and complex tensors).
 *
 * A complex element is read and written as its two real components (real first) through
 * the real loads and stores of the engine, so these need no complex support from the
 * engine's dtype tables: complex32 / complex64 / complex128 are pairs of float16 / float32 /
 * float64. Values are computed in double and rounded once to the result's dtype (PyTorch
 * computes float32 in float: results agree to the dtype's rounding).
 *
 * Also c10::complex's division (shimrt_k_cdiv, for sortops.c). */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"
#include "engine.h"

/* The real component dtype of a complex dtype, -1 for any other. */
static int32_t component(int32_t dt) {
    switch (dt) {
    case SHIMRT_COMPLEX32: return SHIMRT_FLOAT16;
    case SHIMRT_COMPLEX64: return SHIMRT_FLOAT32;
    case SHIMRT_COMPLEX128: return SHIMRT_FLOAT64;
    default: return -1;
    }
}

AOTITorchError shimrt_cpu_view_as_real(AtenTensorHandle self, AtenTensorHandle *ret0) {
    static const char op[] = "view_as_real";
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    int32_t comp = component(self->dtype);
    if (comp < 0) return shimrt_fail(op, "view_as_real is only supported for complex tensors");
    int64_t n = self->ndim, sizes[SHIMRT_MAX_DIMS], strides[SHIMRT_MAX_DIMS];
    if (n + 1 > SHIMRT_MAX_DIMS)
        return shimrt_fail(op, "view_as_real: more than %d dims", SHIMRT_MAX_DIMS);
    for (int64_t i = 0; i < n; i++) {
        sizes[i] = self->sizes[i];
        strides[i] = self->strides[i] * 2;
    }
    sizes[n] = 2;
    strides[n] = 1;
    return shimrt_k_give(shimrt_tensor_new(op, self->storage, n + 1, sizes, strides,
                                           self->storage_offset * 2, comp, self->device_type,
                                           self->device_index, self->layout),
                         ret0);
}

AOTITorchError shimrt_cpu_view_as_complex(AtenTensorHandle self, AtenTensorHandle *ret0) {
    static const char op[] = "view_as_complex";
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    int32_t dt = self->dtype == SHIMRT_FLOAT16   ? SHIMRT_COMPLEX32
                 : self->dtype == SHIMRT_FLOAT32 ? SHIMRT_COMPLEX64
                 : self->dtype == SHIMRT_FLOAT64 ? SHIMRT_COMPLEX128
                                                 : -1;
    if (dt < 0)
        return shimrt_fail(op,
                           "view_as_complex is only supported for half, float and double "
                           "tensors, but got a tensor of scalar type: %s",
                           shimrt_dtype_torch_name(self->dtype));
    int64_t n = self->ndim;
    if (n == 0) return shimrt_fail(op, "Input tensor must have one or more dimensions");
    if (self->sizes[n - 1] != 2)
        return shimrt_fail(op, "Tensor must have a last dimension of size 2");
    if (self->strides[n - 1] != 1)
        return shimrt_fail(op, "Tensor must have a last dimension with stride 1");
    int64_t strides[SHIMRT_MAX_DIMS];
    for (int64_t i = 0; i < n - 1; i++) {
        /* PyTorch checks the dims of size other than 1 (their stride is never used) */
        if (self->sizes[i] != 1 && self->strides[i] % 2)
            return shimrt_fail(op, "Tensor must have a stride divisible by 2 for all but last "
                                   "dimension");
        strides[i] = self->strides[i] / 2;
    }
    if (self->storage_offset % 2)
        return shimrt_fail(op, "Tensor must have a storage_offset divisible by 2");
    return shimrt_k_give(shimrt_tensor_new(op, self->storage, n - 1, self->sizes, strides,
                                           self->storage_offset / 2, dt, self->device_type,
                                           self->device_index, self->layout),
                         ret0);
}

/* ---- polar and angle: loops over the engine's plans ------------------------------------- */

typedef struct {
    int32_t out_dt, a_dt, b_dt; /* out: the component dtype for complex results */
    size_t out_cs, a_cs;        /* component sizes of complex operands (0: real) */
    bool zero;                  /* angle: every result is 0 */
} cplx_job;

static void polar_loop(char **data, const int64_t *strides, int64_t n, void *vctx) {
    const cplx_job *j = vctx;
    for (int64_t i = 0; i < n; i++) {
        double r = shimrt_k_load_f64(data[1] + i * strides[1], j->a_dt);
        double t = shimrt_k_load_f64(data[2] + i * strides[2], j->b_dt);
        char *o = data[0] + i * strides[0];
        shimrt_k_store_f64(o, j->out_dt, r * cos(t));
        shimrt_k_store_f64(o + j->out_cs, j->out_dt, r * sin(t));
    }
}

static void angle_loop(char **data, const int64_t *strides, int64_t n, void *vctx) {
    const cplx_job *j = vctx;
    for (int64_t i = 0; i < n; i++) {
        const char *p = data[1] + i * strides[1];
        if (j->zero) {
            shimrt_k_store_f64(data[0] + i * strides[0], j->out_dt, 0.0);
            continue;
        }
        double v, re = j->a_cs || shimrt_k_is_floating(j->a_dt)
                           ? shimrt_k_load_f64(p, j->a_dt)
                           : (double)shimrt_k_load_i64(p, j->a_dt);
        if (j->a_cs)
            v = atan2(shimrt_k_load_f64(p + j->a_cs, j->a_dt), re);
        else /* PyTorch's angle of a real number: NaN stays, negatives are pi, others 0 */
            v = isnan(re) ? re : re < 0 ? M_PI : 0.0;
        shimrt_k_store_f64(data[0] + i * strides[0], j->out_dt, v);
    }
}

/* A new result of dtype dt, laid out as PyTorch's TensorIterator lays it out (the engine's
 * plan: the inputs broadcast, their dim order) or contiguous (of a's shape), walked with the
 * inputs. */
static AOTITorchError elementwise(const char *op, int32_t dt, AtenTensorHandle a,
                                  AtenTensorHandle b, bool contiguous, sh_chunk_fn fn, cplx_job *j,
                                  AtenTensorHandle *ret0) {
    const struct AtenTensorOpaque *ins[2] = {a, b};
    AtenTensorHandle out = NULL;
    sh_plan p;
    if (contiguous &&
        !(out = shimrt_tensor_empty(op, a->ndim, a->sizes, NULL, dt, SHIMRT_DEV_CPU, 0)))
        return AOTI_TORCH_FAILURE;
    /* polar (two inputs): its TensorIterator keeps the inputs' dtypes, none converted */
    if ((b ? sh_plan_build_keep : sh_plan_build)(&p, op, &out, dt, b ? 2 : 1, ins)) {
        if (contiguous) shimrt_tensor_free(out);
        return AOTI_TORCH_FAILURE;
    }
    sh_walk(&p, fn, j);
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_polar(AtenTensorHandle abs, AtenTensorHandle angle,
                                AtenTensorHandle *ret0) {
    static const char op[] = "polar";
    if (shimrt_k_check_cpu(op, abs, "abs") || shimrt_k_check_cpu(op, angle, "angle"))
        return AOTI_TORCH_FAILURE;
    int32_t a = abs->dtype, b = angle->dtype;
    bool ok = (a == SHIMRT_FLOAT16 || a == SHIMRT_FLOAT32 || a == SHIMRT_FLOAT64) &&
              (b == SHIMRT_FLOAT16 || b == SHIMRT_FLOAT32 || b == SHIMRT_FLOAT64);
    if (!ok)
        return shimrt_fail(op,
                           "Expected both inputs to be Half, Float or Double tensors but got %s "
                           "and %s",
                           shimrt_dtype_torch_name(a), shimrt_dtype_torch_name(b));
    if (a != b)
        return shimrt_fail(op,
                           "Expected object of scalar type %s but got scalar type %s for second "
                           "argument",
                           shimrt_dtype_torch_name(a), shimrt_dtype_torch_name(b));
    int32_t dt = a == SHIMRT_FLOAT16   ? SHIMRT_COMPLEX32
                 : a == SHIMRT_FLOAT32 ? SHIMRT_COMPLEX64
                                       : SHIMRT_COMPLEX128;
    cplx_job j = {.out_dt = a, .a_dt = a, .b_dt = b, .out_cs = shimrt_dtype_size(a)};
    return elementwise(op, dt, abs, angle, false, polar_loop, &j, ret0);
}

AOTITorchError shimrt_cpu_angle(AtenTensorHandle self, AtenTensorHandle *ret0) {
    static const char op[] = "angle";
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    int32_t comp = component(self->dtype);
    bool unsig = self->dtype == SHIMRT_UINT16 || self->dtype == SHIMRT_UINT32 ||
                 self->dtype == SHIMRT_UINT64;
    if (comp < 0 && !unsig && shimrt_k_check_dtype(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (self->dtype == SHIMRT_COMPLEX32)
        return shimrt_fail(op, "\"angle_cpu\" not implemented for 'ComplexHalf'");
    /* (uint16/32/64: never negative, every angle is 0; the loads know no unsigned dtype) */
    cplx_job j = {.a_dt = comp >= 0 ? comp : self->dtype, .zero = unsig};
    if (comp >= 0) {
        j.out_dt = comp;
        j.a_cs = shimrt_dtype_size(comp);
    } else {
        /* integers and bool give the default dtype (float32) */
        j.out_dt = shimrt_k_is_floating(self->dtype) ? self->dtype : SHIMRT_FLOAT32;
    }
    /* PyTorch's angle of a complex tensor is contiguous, of a real one laid out as self */
    return elementwise(op, j.out_dt, self, NULL, comp >= 0, angle_loop, &j, ret0);
}

/* ---- c10::complex's division --------------------------------------------------------------- */
static inline double rnd(bool f, double v) { return f ? (double)(float)v : v; }

double complex shimrt_k_cdiv(bool f, double complex x, double complex y) {
    double a = creal(x), b = cimag(x), c = creal(y), d = cimag(y), ac = fabs(c), ad = fabs(d);
    if (ac >= ad) {
        if (ac == 0 && ad == 0) return CMPLX(rnd(f, a / ac), rnd(f, b / ad));
        double rat = rnd(f, d / c), scl = rnd(f, 1.0 / rnd(f, c + rnd(f, d * rat)));
        return CMPLX(rnd(f, rnd(f, a + rnd(f, b * rat)) * scl),
                     rnd(f, rnd(f, b - rnd(f, a * rat)) * scl));
    }
    double rat = rnd(f, c / d), scl = rnd(f, 1.0 / rnd(f, d + rnd(f, c * rat)));
    return CMPLX(rnd(f, rnd(f, rnd(f, a * rat) + b) * scl),
                 rnd(f, rnd(f, rnd(f, b * rat) - a) * scl));
}

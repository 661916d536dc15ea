/* runtime/cpu/pointwise.c: element-wise CPU kernels: add.Tensor, sub.Tensor, mul.Tensor,
 * div.Tensor, add.Scalar (broadcasting, PyTorch's type promotion), neg, relu, exp.
 * Results are new contiguous tensors (new references). Floating results are computed in
 * the result type when every operand has it, else through double; integer results through
 * int64 with wrap-around. */
#include <math.h>
#include <string.h>

#include "cpu_kernels.h"
#include "iter.h"

typedef enum { B_ADD, B_SUB, B_MUL, B_DIV } binop;

typedef struct {
    binop op;
    int32_t odt, adt, bdt;
    bool flt;            /* compute through double (else int64) */
    double alpha;        /* add/sub: out = a + alpha * b (alpha negated for sub) */
    int64_t ialpha;
    bool scalar_b;       /* b is the scalar below, not an operand */
    double bf;
    int64_t bi;
} bin_ctx;

static void bin_generic(char **data, const int64_t *st, int64_t n, void *vctx) {
    const bin_ctx *c = vctx;
    char *o = data[0], *a = data[1], *b = c->scalar_b ? data[1] : data[2]; /* b unused if scalar */
    int64_t sb = c->scalar_b ? 0 : st[2];
    for (int64_t i = 0; i < n; i++, o += st[0], a += st[1], b += sb) {
        if (c->flt) {
            double x = shimrt_k_load_f64(a, c->adt);
            double y = c->scalar_b ? c->bf : shimrt_k_load_f64(b, c->bdt);
            double r;
            switch (c->op) {
            case B_ADD:
            case B_SUB: r = x + c->alpha * y; break;
            case B_MUL: r = x * y; break;
            default: r = x / y; break;
            }
            shimrt_k_store_f64(o, c->odt, r);
        } else {
            uint64_t x = (uint64_t)shimrt_k_load_i64(a, c->adt);
            uint64_t y = (uint64_t)(c->scalar_b ? c->bi : shimrt_k_load_i64(b, c->bdt));
            uint64_t r = c->op == B_MUL ? x * y : x + (uint64_t)c->ialpha * y;
            shimrt_k_store_i64(o, c->odt, (int64_t)r);
        }
    }
}

/* Same-dtype loops in the native type. */
#define BIN_TYPED(NAME, T)                                                                  \
    static void NAME(char **data, const int64_t *st, int64_t n, void *vctx) {              \
        const bin_ctx *c = vctx;                                                            \
        char *o = data[0], *a = data[1], *b = data[2];                                      \
        T alpha = (T)c->alpha;                                                              \
        for (int64_t i = 0; i < n; i++, o += st[0], a += st[1], b += st[2]) {               \
            T x, y;                                                                         \
            memcpy(&x, a, sizeof x);                                                        \
            memcpy(&y, b, sizeof y);                                                        \
            T r = c->op == B_MUL ? x * y : c->op == B_DIV ? x / y : x + alpha * y;          \
            memcpy(o, &r, sizeof r);                                                        \
        }                                                                                   \
    }
BIN_TYPED(bin_f32, float)
BIN_TYPED(bin_f64, double)

static bool is_integral_value(double v) {
    return isfinite(v) && v == floor(v) && fabs(v) < 9.2e18;
}

/* out = self (op) other, other a tensor (b != NULL) or the scalar bval. */
static AOTITorchError binary(const char *op, binop kind, AtenTensorHandle self,
                             AtenTensorHandle other, double bval, double alpha,
                             AtenTensorHandle *ret0) {
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    if (other && (shimrt_k_check_cpu(op, other, "other") ||
                  shimrt_k_check_dtype(op, other, "other")))
        return AOTI_TORCH_FAILURE;
    shimrt_k_result_type rt;
    shimrt_k_rt_init(&rt);
    shimrt_k_rt_add_tensor(&rt, self);
    if (other)
        shimrt_k_rt_add_tensor(&rt, other);
    else
        shimrt_k_rt_add_scalar(&rt, bval);
    int32_t odt = shimrt_k_rt_result(&rt);
    if (kind == B_SUB && (self->dtype == SHIMRT_BOOL || (other && other->dtype == SHIMRT_BOOL)))
        return shimrt_fail(op, "Subtraction, the `-` operator, with a bool tensor is not "
                               "supported. If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.");
    if (kind == B_DIV && !shimrt_k_is_floating(odt)) odt = SHIMRT_FLOAT32; /* true division */
    if ((kind == B_ADD || kind == B_SUB) && !shimrt_k_is_floating(odt) &&
        !is_integral_value(alpha))
        return shimrt_fail(op, "For integral input tensors, argument alpha must not be a "
                               "floating point number.");

    int64_t shape[SHIMRT_MAX_DIMS], nd;
    if (other) {
        if (shimrt_k_broadcast(op, self->ndim, self->sizes, other->ndim, other->sizes, shape, &nd))
            return AOTI_TORCH_FAILURE;
    } else {
        nd = self->ndim;
        for (int64_t d = 0; d < nd; d++) shape[d] = self->sizes[d];
    }
    AtenTensorHandle out = shimrt_k_empty_like_dev(op, self, nd, shape, NULL, odt);
    if (!out) return AOTI_TORCH_FAILURE;

    bin_ctx c = {.op = kind, .odt = odt, .adt = self->dtype,
                 .bdt = other ? other->dtype : odt, .flt = shimrt_k_is_floating(odt),
                 .scalar_b = other == NULL};
    double a = kind == B_SUB ? -alpha : alpha;
    if (odt == SHIMRT_BOOL) a = a != 0; /* a bool alpha, as PyTorch converts it */
    c.alpha = a;
    c.ialpha = c.flt ? 0 : shimrt_k_f2i(a);
    c.bf = bval;
    c.bi = shimrt_k_f2i(bval);
    shimrt_k_iter it;
    shimrt_k_iter_init(&it, nd, shape);
    shimrt_k_iter_add_tensor(&it, out);
    shimrt_k_iter_add_tensor(&it, self);
    if (other) shimrt_k_iter_add_tensor(&it, other);
    shimrt_k_loop_fn fn = bin_generic;
    if (other && self->dtype == odt && other->dtype == odt) {
        if (odt == SHIMRT_FLOAT32) fn = bin_f32;
        if (odt == SHIMRT_FLOAT64) fn = bin_f64;
    }
    shimrt_k_iter_run(&it, fn, &c);
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_add_tensor(AtenTensorHandle self, AtenTensorHandle other,
                                     double alpha, AtenTensorHandle *ret0) {
    return binary("add.Tensor", B_ADD, self, other, 0.0, alpha, ret0);
}

AOTITorchError shimrt_cpu_sub_tensor(AtenTensorHandle self, AtenTensorHandle other,
                                     double alpha, AtenTensorHandle *ret0) {
    return binary("sub.Tensor", B_SUB, self, other, 0.0, alpha, ret0);
}

AOTITorchError shimrt_cpu_mul_tensor(AtenTensorHandle self, AtenTensorHandle other,
                                     AtenTensorHandle *ret0) {
    return binary("mul.Tensor", B_MUL, self, other, 0.0, 1.0, ret0);
}

AOTITorchError shimrt_cpu_div_tensor(AtenTensorHandle self, AtenTensorHandle other,
                                     AtenTensorHandle *ret0) {
    return binary("div.Tensor", B_DIV, self, other, 0.0, 1.0, ret0);
}

AOTITorchError shimrt_cpu_add_scalar(AtenTensorHandle self, double other, double alpha,
                                     AtenTensorHandle *ret0) {
    return binary("add.Scalar", B_ADD, self, NULL, other, alpha, ret0);
}

/* ---- unary ---- */
typedef enum { U_NEG, U_RELU, U_EXP } unop;
typedef struct { unop op; int32_t idt, odt; bool flt; } un_ctx;

static void un_generic(char **data, const int64_t *st, int64_t n, void *vctx) {
    const un_ctx *c = vctx;
    char *o = data[0], *a = data[1];
    for (int64_t i = 0; i < n; i++, o += st[0], a += st[1]) {
        if (c->flt) {
            double x = shimrt_k_load_f64(a, c->idt);
            double r = c->op == U_NEG ? -x : c->op == U_RELU ? (x < 0 ? 0.0 : x) : exp(x);
            shimrt_k_store_f64(o, c->odt, r);
        } else {
            int64_t x = shimrt_k_load_i64(a, c->idt);
            int64_t r = c->op == U_NEG ? (int64_t)(0u - (uint64_t)x) : (x < 0 ? 0 : x);
            shimrt_k_store_i64(o, c->odt, r);
        }
    }
}

#define UN_TYPED(NAME, T, EXP)                                                              \
    static void NAME(char **data, const int64_t *st, int64_t n, void *vctx) {              \
        const un_ctx *c = vctx;                                                             \
        char *o = data[0], *a = data[1];                                                    \
        for (int64_t i = 0; i < n; i++, o += st[0], a += st[1]) {                           \
            T x;                                                                            \
            memcpy(&x, a, sizeof x);                                                        \
            T r = c->op == U_NEG ? -x : c->op == U_RELU ? (x < 0 ? (T)0 : x) : EXP(x);      \
            memcpy(o, &r, sizeof r);                                                        \
        }                                                                                   \
    }
UN_TYPED(un_f32, float, expf)
UN_TYPED(un_f64, double, exp)

static AOTITorchError unary(const char *op, unop kind, AtenTensorHandle self,
                            AtenTensorHandle *ret0) {
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_dtype(op, self, "self"))
        return AOTI_TORCH_FAILURE;
    if (self->dtype == SHIMRT_BOOL) {
        if (kind == U_NEG)
            return shimrt_fail(op, "Negation, the `-` operator, on a bool tensor is not "
                                   "supported. If you are trying to invert a mask, use the `~` "
                                   "or `logical_not()` operator instead.");
        if (kind == U_RELU) return shimrt_fail(op, "Boolean inputs not supported for relu");
    }
    int32_t odt = self->dtype;
    if (kind == U_EXP && !shimrt_k_is_floating(odt)) odt = SHIMRT_FLOAT32;
    AtenTensorHandle out = shimrt_k_empty_like_dev(op, self, self->ndim, self->sizes, NULL, odt);
    if (!out) return AOTI_TORCH_FAILURE;
    un_ctx c = {kind, self->dtype, odt, shimrt_k_is_floating(odt)};
    shimrt_k_iter it;
    shimrt_k_iter_init(&it, self->ndim, self->sizes);
    shimrt_k_iter_add_tensor(&it, out);
    shimrt_k_iter_add_tensor(&it, self);
    shimrt_k_loop_fn fn = un_generic;
    if (odt == self->dtype && odt == SHIMRT_FLOAT32) fn = un_f32;
    if (odt == self->dtype && odt == SHIMRT_FLOAT64) fn = un_f64;
    shimrt_k_iter_run(&it, fn, &c);
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_neg(AtenTensorHandle self, AtenTensorHandle *ret0) {
    return unary("neg", U_NEG, self, ret0);
}

AOTITorchError shimrt_cpu_relu(AtenTensorHandle self, AtenTensorHandle *ret0) {
    return unary("relu", U_RELU, self, ret0);
}

AOTITorchError shimrt_cpu_exp(AtenTensorHandle self, AtenTensorHandle *ret0) {
    return unary("exp", U_EXP, self, ret0);
}

/* shimrt/scalar.h: shimrt_scalar, a `Scalar` argument as a kernel receives it: its value
 * and its kind (bool, int, floating or complex), as c10::Scalar keeps them.
 *
 * The kind decides PyTorch's semantics: the result dtype of an op with a Scalar operand
 * (a wrapped number of category bool < integral < floating < complex), alpha's check
 * ("alpha must not be a floating point number"), pow's negative integer powers, a fill
 * value's overflow check. PyTorch's C shims take a Scalar as a C double, which becomes
 * c10::Scalar(double), a floating Scalar: so libshimrt's C shims make a floating
 * shimrt_scalar of it (shimrt_scalar_double), and its boxed kernels (the dispatcher,
 * StableIValue stacks of ScalarHandles) keep the ScalarHandle's kind.
 *
 * Ownership: a shimrt_scalar is a plain value that owns nothing; kernels take `Scalar` by
 * value and `Scalar?` as `const shimrt_scalar *` (NULL for None), borrowed for the call.
 * Plain C99, usable from C++. */
#ifndef SHIMRT_SCALAR_H
#define SHIMRT_SCALAR_H
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The kinds, with the codes of a ScalarHandle's tag. */
#define SHIMRT_SCALAR_KIND_BOOL 1
#define SHIMRT_SCALAR_KIND_INT 2
#define SHIMRT_SCALAR_KIND_FLOAT 3
#define SHIMRT_SCALAR_KIND_COMPLEX 4

typedef struct shimrt_scalar {
    int32_t kind; /* SHIMRT_SCALAR_KIND_* */
    double d;     /* the value as a double (the real part of a complex); always set */
    int64_t i;    /* the exact value of a bool (0/1) or int; 0 for the other kinds */
    double im;    /* the imaginary part of a complex; 0 for the other kinds */
} shimrt_scalar;

/* A floating Scalar: what c10::Scalar(double) is, and what a C shim's double becomes. */
static inline shimrt_scalar shimrt_scalar_double(double v) {
    shimrt_scalar s = {SHIMRT_SCALAR_KIND_FLOAT, v, 0, 0.0};
    return s;
}
static inline shimrt_scalar shimrt_scalar_int(int64_t v) {
    shimrt_scalar s = {SHIMRT_SCALAR_KIND_INT, (double)v, v, 0.0};
    return s;
}
static inline shimrt_scalar shimrt_scalar_bool(bool v) {
    shimrt_scalar s = {SHIMRT_SCALAR_KIND_BOOL, v ? 1.0 : 0.0, v ? 1 : 0, 0.0};
    return s;
}
static inline shimrt_scalar shimrt_scalar_complex(double re, double im) {
    shimrt_scalar s = {SHIMRT_SCALAR_KIND_COMPLEX, re, 0, im};
    return s;
}
/* c10::Scalar's isIntegral(includeBool) and isFloatingPoint. */
static inline bool shimrt_scalar_is_integral(shimrt_scalar s, bool include_bool) {
    return s.kind == SHIMRT_SCALAR_KIND_INT || (include_bool && s.kind == SHIMRT_SCALAR_KIND_BOOL);
}
static inline bool shimrt_scalar_is_floating(shimrt_scalar s) {
    return s.kind == SHIMRT_SCALAR_KIND_FLOAT;
}

/* A C shim's `Scalar?` (a double*, NULL for None) as a kernel's: a pointer to a floating
 * Scalar living until the end of the enclosing block, or NULL. */
#define SHIMRT_SCALAR_OPT_DOUBLE(p)                                                                \
    ((p) ? &(shimrt_scalar){SHIMRT_SCALAR_KIND_FLOAT, *(p), 0, 0.0} : (shimrt_scalar *)0)

#ifdef __cplusplus
}
#endif
#endif

/* runtime/core/scalar.c: ScalarHandle, a heap tagged bool / int / double / complex double
 * (PyTorch 2.14's torch_new_scalar_* family; shimrt/containers.h). */
#include "containers_internal.h"

shimrt_pool shimrt_scalar_pool = SHIMRT_POOL_INIT(struct ScalarOpaque);

/* A new live scalar slot with the tag set, already in *ret (the caller sets its value), or
 * NULL with the message set. */
static ScalarHandle scalar_new(const char *func, int32_t tag, ScalarHandle *ret) {
    if (ret == NULL) {
        shimrt_fail(func, "argument 'ret' is NULL");
        return NULL;
    }
    ScalarHandle s = shimrt_pool_alloc(&shimrt_scalar_pool);
    if (!s) {
        shimrt_fail(func, "out of memory");
        return NULL;
    }
    s->magic = SHIMRT_SCALAR_MAGIC;
    s->tag = tag;
    SHIMRT_LIVE_ADD(shimrt_live_scalars, 1);
    *ret = s;
    return s;
}

/* torch_new_scalar_<name>: a new scalar of tag holding value in field. */
#define NEW_SCALAR(name, T, tag, field)                                                            \
    AOTI_TORCH_EXPORT AOTITorchError torch_new_scalar_##name(T value, ScalarHandle *ret) {         \
        ScalarHandle s = scalar_new(__func__, tag, ret);                                           \
        if (s) s->v.field = value;                                                                 \
        return s ? AOTI_TORCH_SUCCESS : AOTI_TORCH_FAILURE;                                        \
    }
NEW_SCALAR(int, int64_t, SHIMRT_SCALAR_INT, i)
NEW_SCALAR(double, double, SHIMRT_SCALAR_DOUBLE, d)
NEW_SCALAR(bool, bool, SHIMRT_SCALAR_BOOL, b)

AOTI_TORCH_EXPORT AOTITorchError torch_new_scalar_complex_double(double real, double imag,
                                                                 ScalarHandle *ret) {
    ScalarHandle s = scalar_new(__func__, SHIMRT_SCALAR_COMPLEX, ret);
    if (!s) return AOTI_TORCH_FAILURE;
    s->v.c.re = real;
    s->v.c.im = imag;
    return AOTI_TORCH_SUCCESS;
}

#define SCALAR_IS(fn, TAG)                                                                         \
    AOTI_TORCH_EXPORT AOTITorchError fn(ScalarHandle handle, bool *ret) {                          \
        SHIMRT_CHECK_HANDLE(shimrt_scalar_pool, handle, SHIMRT_SCALAR_MAGIC, "scalar");            \
        SHIMRT_CHECK_ARG(ret);                                                                     \
        *ret = handle->tag == (TAG);                                                               \
        return AOTI_TORCH_SUCCESS;                                                                 \
    }
SCALAR_IS(torch_scalar_is_int, SHIMRT_SCALAR_INT)
SCALAR_IS(torch_scalar_is_double, SHIMRT_SCALAR_DOUBLE)
SCALAR_IS(torch_scalar_is_bool, SHIMRT_SCALAR_BOOL)
SCALAR_IS(torch_scalar_is_complex_double, SHIMRT_SCALAR_COMPLEX)

/* A scalar's real value: as a double, and as an integer when it is one (bool or int). */
typedef struct {
    double d;
    int64_t i;
    bool is_int;
} real_value;

/* The real value of a non-complex scalar, or of a complex one with imag == 0. */
static AOTITorchError scalar_real(const char *func, ScalarHandle s, const char *to, real_value *r) {
    double *d = &r->d;
    int64_t *i = &r->i;
    bool *is_int = &r->is_int;
    *is_int = false;
    switch (s->tag) {
    case SHIMRT_SCALAR_BOOL:
        *i = s->v.b;
        *is_int = true;
        *d = s->v.b;
        return AOTI_TORCH_SUCCESS;
    case SHIMRT_SCALAR_INT:
        *i = s->v.i;
        *is_int = true;
        *d = (double)s->v.i;
        return AOTI_TORCH_SUCCESS;
    case SHIMRT_SCALAR_DOUBLE: *d = s->v.d; return AOTI_TORCH_SUCCESS;
    case SHIMRT_SCALAR_COMPLEX:
        if (s->v.c.im != 0.0) {
            return shimrt_fail(func,
                               "complex scalar (%g%+gj) has a nonzero imaginary part and "
                               "cannot be converted to %s",
                               s->v.c.re, s->v.c.im, to);
        }
        *d = s->v.c.re;
        return AOTI_TORCH_SUCCESS;
    default: return shimrt_fail(func, "scalar has an unknown tag %d", (int)s->tag);
    }
}

AOTI_TORCH_EXPORT AOTITorchError torch_scalar_to_int(ScalarHandle handle, int64_t *ret) {
    SHIMRT_CHECK_HANDLE(shimrt_scalar_pool, handle, SHIMRT_SCALAR_MAGIC, "scalar");
    SHIMRT_CHECK_ARG(ret);
    real_value r;
    if (scalar_real(__func__, handle, "int", &r)) return AOTI_TORCH_FAILURE;
    if (r.is_int) {
        *ret = r.i;
        return AOTI_TORCH_SUCCESS;
    }
    /* -2^63 <= trunc(d) < 2^63 */
    if (!(r.d > -9223372036854775809.0 && r.d < 9223372036854775808.0)) {
        return shimrt_fail(__func__, "value %g cannot be converted to int64 without overflow", r.d);
    }
    *ret = (int64_t)r.d;
    return AOTI_TORCH_SUCCESS;
}

/* torch_scalar_to_<name>: the real value r converted by expr. */
#define SCALAR_TO(name, T, expr)                                                                   \
    AOTI_TORCH_EXPORT AOTITorchError torch_scalar_to_##name(ScalarHandle handle, T *ret) {         \
        SHIMRT_CHECK_HANDLE(shimrt_scalar_pool, handle, SHIMRT_SCALAR_MAGIC, "scalar");            \
        SHIMRT_CHECK_ARG(ret);                                                                     \
        real_value r;                                                                              \
        if (scalar_real(__func__, handle, #name, &r)) return AOTI_TORCH_FAILURE;                   \
        *ret = (expr);                                                                             \
        return AOTI_TORCH_SUCCESS;                                                                 \
    }
SCALAR_TO(double, double, r.d)
SCALAR_TO(bool, bool, r.is_int ? r.i != 0 : r.d != 0.0)

AOTI_TORCH_EXPORT AOTITorchError torch_scalar_to_complex_double(ScalarHandle handle,
                                                                double *ret_real,
                                                                double *ret_imag) {
    SHIMRT_CHECK_HANDLE(shimrt_scalar_pool, handle, SHIMRT_SCALAR_MAGIC, "scalar");
    SHIMRT_CHECK_ARG(ret_real);
    SHIMRT_CHECK_ARG(ret_imag);
    if (handle->tag == SHIMRT_SCALAR_COMPLEX) {
        *ret_real = handle->v.c.re;
        *ret_imag = handle->v.c.im;
        return AOTI_TORCH_SUCCESS;
    }
    real_value r;
    if (scalar_real(__func__, handle, "complex", &r)) return AOTI_TORCH_FAILURE;
    *ret_real = r.d;
    *ret_imag = 0.0;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_delete_scalar(ScalarHandle handle) {
    if (handle == NULL) return AOTI_TORCH_SUCCESS;
    SHIMRT_CHECK_HANDLE(shimrt_scalar_pool, handle, SHIMRT_SCALAR_MAGIC, "scalar");
    shimrt_pool_free(&shimrt_scalar_pool, handle);
    SHIMRT_LIVE_ADD(shimrt_live_scalars, -1);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_scalar_get(const char *func, ScalarHandle h, shimrt_scalar *ret) {
    SHIMRT_CHECK_HANDLE_IN(func, shimrt_scalar_pool, h, SHIMRT_SCALAR_MAGIC, "scalar");
    switch (h->tag) {
    case SHIMRT_SCALAR_BOOL: *ret = shimrt_scalar_bool(h->v.b); break;
    case SHIMRT_SCALAR_INT: *ret = shimrt_scalar_int(h->v.i); break;
    case SHIMRT_SCALAR_DOUBLE: *ret = shimrt_scalar_double(h->v.d); break;
    case SHIMRT_SCALAR_COMPLEX: *ret = shimrt_scalar_complex(h->v.c.re, h->v.c.im); break;
    default: return shimrt_fail(func, "scalar has an unknown tag %d", (int)h->tag);
    }
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_scalar_new_handle(const char *func, shimrt_scalar v, ScalarHandle *ret) {
    switch (v.kind) {
    case SHIMRT_SCALAR_KIND_BOOL: return torch_new_scalar_bool(v.i != 0, ret);
    case SHIMRT_SCALAR_KIND_INT: return torch_new_scalar_int(v.i, ret);
    case SHIMRT_SCALAR_KIND_FLOAT: return torch_new_scalar_double(v.d, ret);
    case SHIMRT_SCALAR_KIND_COMPLEX: return torch_new_scalar_complex_double(v.d, v.im, ret);
    default: return shimrt_fail(func, "shimrt_scalar has an unknown kind %d", (int)v.kind);
    }
}

/* runtime/core/shim_support.c: the non-inline part of shimrt/shim_support.h, the support
 * that generated shim bodies, boxed wrappers, dispatcher-routed shims and registration
 * functions call. See that header for the contracts. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "containers_internal.h"
#include "internal.h"
#include "dispatch_internal.h"
#include "shimrt/shim_support.h"

AOTI_TORCH_EXPORT AOTITorchError shimrt_set_error(const char *func, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt ? fmt : "(no message)", ap);
    va_end(ap);
    return shimrt_fail(func, "%s", buf);
}

/* ==== 1. shim bodies ================================================================ */

AOTI_TORCH_EXPORT AOTITorchError shimrt_check_tensor(const char *func, const char *name,
                                                     AtenTensorHandle x) {
    if (shimrt_tensor_valid(x)) return AOTI_TORCH_SUCCESS;
    return shimrt_fail(func, "%s", shimrt_tensor_invalid_reason(x, name ? name : "?"));
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_check_opt_tensor(const char *func, const char *name,
                                                         const AtenTensorHandle *x) {
    if (x == NULL || *x == NULL) return AOTI_TORCH_SUCCESS;
    return shimrt_check_tensor(func, name, *x);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_check_list(const char *func, const char *name,
                                                   const void *x, int64_t len) {
    if (len < 0)
        return shimrt_fail(func, "argument '%s': negative length %lld", name ? name : "?",
                           (long long)len);
    if (len > 0 && x == NULL)
        return shimrt_fail(func, "argument '%s' is NULL with length %lld", name ? name : "?",
                           (long long)len);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_check_opt_list(const char *func, const char *name,
                                                       const void *const *x, int64_t len) {
    if (x == NULL) return AOTI_TORCH_SUCCESS;
    return shimrt_check_list(func, name, *x, len);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_check_tensor_list(const char *func, const char *name,
                                                          const AtenTensorHandle *x, int64_t len) {
    SHIMRT_TRY(shimrt_check_list(func, name, x, len));
    for (int64_t k = 0; k < len; k++) {
        if (!shimrt_tensor_valid(x[k])) {
            char item[96];
            snprintf(item, sizeof item, "%s[%lld]", name ? name : "?", (long long)k);
            return shimrt_fail(func, "%s", shimrt_tensor_invalid_reason(x[k], item));
        }
    }
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_check_ret(const char *func, const char *name,
                                                  const void *ret) {
    if (ret != NULL) return AOTI_TORCH_SUCCESS;
    return shimrt_fail(func, "return pointer '%s' is NULL", name ? name : "?");
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_opt_tensor_list(const char *func, const char *name,
                                                        const AtenTensorHandle *const *x,
                                                        int64_t len, shimrt_tensor_array *out) {
    if (out == NULL) return shimrt_fail(func, "internal: no array for argument '%s'", name);
    out->items = out->inline_items;
    SHIMRT_TRY(shimrt_check_list(func, name, x, len));
    for (int64_t k = 0; k < len; k++) {
        if (x[k] != NULL && *x[k] != NULL && !shimrt_tensor_valid(*x[k])) {
            char item[96];
            snprintf(item, sizeof item, "%s[%lld]", name ? name : "?", (long long)k);
            return shimrt_fail(func, "%s", shimrt_tensor_invalid_reason(*x[k], item));
        }
    }
    if (len > SHIMRT_TENSOR_ARRAY_INLINE) {
        if ((uint64_t)len > SIZE_MAX / sizeof(AtenTensorHandle))
            return shimrt_fail(func, "argument '%s': list too long", name);
        out->items = (AtenTensorHandle *)malloc((size_t)len * sizeof(AtenTensorHandle));
        if (out->items == NULL) {
            out->items = out->inline_items;
            return shimrt_fail(func, "out of memory for argument '%s'", name);
        }
    }
    for (int64_t k = 0; k < len; k++) out->items[k] = x[k] != NULL ? *x[k] : NULL;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT void shimrt_tensor_array_free(shimrt_tensor_array *a) {
    if (a == NULL) return;
    if (a->items != NULL && a->items != a->inline_items) free(a->items);
    a->items = a->inline_items;
}

/* ==== releasing values by kind ====================================================== */

/* The schema type each SHIMRT_KIND_* releases like (shimrt/codes.h), parsed once. */
static sg_arena *g_kind_arena;
static const sg_type *g_kind_types[SHIMRT_NUM_KINDS];
static pthread_once_t g_kind_once = PTHREAD_ONCE_INIT;

static void parse_kind_types(void) {
#define KIND_TYPE_(N, name, code, type) [code] = type,
    static const char *const types[SHIMRT_NUM_KINDS] = {SHIMRT_KINDS(KIND_TYPE_)};
#undef KIND_TYPE_
    g_kind_arena = sg_arena_new();
    for (int k = 1; g_kind_arena && k < SHIMRT_NUM_KINDS; k++) {
        char text[64];
        snprintf(text, sizeof text, "f(%s x) -> ()", types[k]);
        const sg_schema *sc = sg_schema_parse(g_kind_arena, text, strlen(text), NULL);
        g_kind_types[k] = sc && sc->n_args == 1 ? sc->args[0].type : NULL;
    }
}

/* Frees a value that some owner holds, by its kind (SHIMRT_KIND_NONE: owns nothing).
 * Callers that report a failure copy its message first: a release that fails (only on a
 * bad handle) overwrites the thread's message. An invalid tensor handle is skipped
 * silently (the dispatcher and the shims reject those with a message). */
static void release_value(int kind, StableIValue v) {
    if (kind <= SHIMRT_KIND_NONE || kind >= SHIMRT_NUM_KINDS || v == 0) return;
    if (kind == SHIMRT_KIND_TENSOR) {
        AtenTensorHandle t = siv_to_tensor(v);
        if (shimrt_tensor_valid(t)) aoti_torch_delete_tensor_object(t);
    } else if (kind == SHIMRT_KIND_SCALAR) {
        torch_delete_scalar(siv_to_scalar(v));
    } else if (kind == SHIMRT_KIND_STR) {
        torch_delete_string(siv_to_string(v));
    } else {
        pthread_once(&g_kind_once, parse_kind_types);
        if (g_kind_types[kind] != NULL) shimrt_siv_release_type("release", g_kind_types[kind], v);
    }
}

/* ==== 2. boxed wrappers ============================================================== */

/* Records the first failure: copies the thread's message into the box. */
AOTI_TORCH_EXPORT AOTITorchError shimrt_box_fail(shimrt_box *b, AOTITorchError err) {
    if (err == AOTI_TORCH_SUCCESS) err = AOTI_TORCH_FAILURE;
    if (b->err == AOTI_TORCH_SUCCESS) {
        b->err = err;
        snprintf(b->msg, sizeof b->msg, "%s", torch_exception_get_what());
    }
    return err;
}

/* Fails the box with a formatted message (also left as the thread's message). */
static void box_failf(shimrt_box *b, const char *fmt, ...) SHIMRT_PRINTF_(2, 3);
static void box_failf(shimrt_box *b, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    shimrt_fail(b->op, "%s", buf);
    shimrt_box_fail(b, AOTI_TORCH_FAILURE);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_box_begin(shimrt_box *b, const char *op,
                                                  StableIValue *stack, uint64_t num_args,
                                                  uint64_t expect_args, uint64_t num_outputs,
                                                  uint64_t expect_outputs,
                                                  const unsigned char *arg_kinds) {
    b->stack = stack;
    b->num_args = num_args;
    b->num_outputs = num_outputs;
    b->op = op ? op : "?";
    b->arg_kinds = arg_kinds;
    b->err = AOTI_TORCH_SUCCESS;
    b->keep = 0;
    b->n_temps = 0;
    b->released = 0;
    b->msg[0] = '\0';
    memset(b->pushed, 0, sizeof b->pushed);
    if (stack == NULL || num_args != expect_args || num_outputs != expect_outputs ||
        expect_args > SHIMRT_BOX_MAX_ARGS || expect_outputs > SHIMRT_BOX_MAX_ARGS) {
        /* Nothing can be released safely: the stack is not laid out as this schema says. */
        return shimrt_kernel_fail(
            "boxed kernel called with %llu arguments and %llu outputs%s; its schema has "
            "%llu and %llu",
            (unsigned long long)num_args, (unsigned long long)num_outputs,
            stack == NULL ? " and a NULL stack" : "", (unsigned long long)expect_args,
            (unsigned long long)expect_outputs);
    }
    return AOTI_TORCH_SUCCESS;
}

static void *box_temp(shimrt_box *b, size_t n, size_t size) {
    if (n == 0) return NULL;
    if (b->n_temps >= SHIMRT_BOX_MAX_ARGS) {
        box_failf(b, "too many temporary arrays");
        return NULL;
    }
    if (n > SIZE_MAX / size) {
        box_failf(b, "list too long");
        return NULL;
    }
    void *p = malloc(n * size);
    if (p == NULL) {
        box_failf(b, "out of memory");
        return NULL;
    }
    b->temps[b->n_temps++] = p;
    return p;
}

/* False, failing the box, when rc (a C shim call's result) is an error; false at once
 * when the box has failed already. */
static bool box_ok(shimrt_box *b, AOTITorchError rc) {
    if (rc != AOTI_TORCH_SUCCESS) shimrt_box_fail(b, AOTI_TORCH_FAILURE);
    return rc == AOTI_TORCH_SUCCESS;
}

/* A stack's ScalarHandle with its kind; a complex one with an imaginary part is refused
 * (no kernel computes complex Scalars yet), as torch_scalar_to_double refuses it. */
static AOTITorchError box_scalar_value(StableIValue v, shimrt_scalar *r) {
    if (shimrt_scalar_get("shimrt_box_scalar_value", siv_to_scalar(v), r))
        return AOTI_TORCH_FAILURE;
    if (r->kind == SHIMRT_SCALAR_KIND_COMPLEX && r->im != 0.0)
        return shimrt_fail("shimrt_box_scalar_value",
                           "complex scalar (%g%+gj) has a nonzero imaginary part, which the "
                           "kernels do not support",
                           r->d, r->im);
    return AOTI_TORCH_SUCCESS;
}
static AOTITorchError box_str_value(StableIValue v, const char **s) {
    return torch_string_c_str(siv_to_string(v), s);
}

AOTI_TORCH_EXPORT shimrt_scalar shimrt_box_scalar_value(shimrt_box *b, uint64_t i) {
    shimrt_scalar r = shimrt_scalar_int(0);
    if (b->err != AOTI_TORCH_SUCCESS || !box_ok(b, box_scalar_value(b->stack[i], &r)))
        return shimrt_scalar_int(0);
    return r;
}

AOTI_TORCH_EXPORT const char *shimrt_box_str(shimrt_box *b, uint64_t i) {
    const char *s = NULL;
    if (b->err != AOTI_TORCH_SUCCESS || !box_ok(b, box_str_value(b->stack[i], &s))) return "";
    return s;
}

/* The value inside optional argument i, or false for None. */
static bool box_opt(const shimrt_box *b, uint64_t i, StableIValue *value) {
    StableIValue v = b->stack[i];
    if (v == 0) return false;
    *value = siv_optional_value(v);
    return true;
}

/* shimrt_box_opt_<name>: NULL for None, else storage holding conv(the value). */
#define BOX_OPT(name, T, conv)                                                                     \
    AOTI_TORCH_EXPORT T *shimrt_box_opt_##name(shimrt_box *b, uint64_t i, T *storage) {            \
        StableIValue v;                                                                            \
        if (!box_opt(b, i, &v)) return NULL;                                                       \
        *storage = conv(v);                                                                        \
        return storage;                                                                            \
    }
/* ... and for values read through a C shim call that may fail (and fail the box). */
#define BOX_OPT_CALL(name, T, call)                                                                \
    AOTI_TORCH_EXPORT T *shimrt_box_opt_##name(shimrt_box *b, uint64_t i, T *storage) {            \
        StableIValue v;                                                                            \
        if (!box_opt(b, i, &v) || b->err != AOTI_TORCH_SUCCESS) return NULL;                       \
        return box_ok(b, call(v, storage)) ? storage : NULL;                                       \
    }
static int32_t siv_to_bool01(StableIValue v) { return siv_to_bool(v) ? 1 : 0; }
static int32_t siv_to_index32(StableIValue v) { return (int32_t)siv_to_int(v); }
BOX_OPT(tensor, AtenTensorHandle, siv_to_tensor)
BOX_OPT(int, int64_t, siv_to_int)
BOX_OPT(float, double, siv_to_double)
BOX_OPT(bool, int32_t, siv_to_bool01)
BOX_OPT(code, int32_t, siv_to_code_)
BOX_OPT(generator, AtenGeneratorHandle, siv_to_generator)
BOX_OPT(device_index, int32_t, siv_to_index32)
BOX_OPT_CALL(scalar_value, shimrt_scalar, box_scalar_value)
BOX_OPT_CALL(str, const char *, box_str_value)

AOTI_TORCH_EXPORT int32_t *shimrt_box_opt_device(shimrt_box *b, uint64_t i, int32_t *storage,
                                                 int32_t *index) {
    StableIValue v;
    *index = -1;
    if (!box_opt(b, i, &v)) return NULL;
    *storage = siv_to_device_type(v);
    *index = siv_to_device_index(v);
    return storage;
}

/* ---- lists ---------------------------------------------------------------------------- */
typedef enum { EL_INT, EL_FLOAT, EL_SCALAR, EL_BOOL, EL_CODE, EL_TENSOR } elem_kind;

static size_t elem_size(elem_kind k) {
    switch (k) {
    case EL_INT: return sizeof(int64_t);
    case EL_FLOAT:
    case EL_SCALAR: return sizeof(double);
    case EL_BOOL:
    case EL_CODE: return sizeof(int32_t);
    case EL_TENSOR: return sizeof(AtenTensorHandle);
    }
    return 8;
}

/* Reads list value v into a temporary array of kind k; *len gets its length. Returns the
 * array (NULL when empty or on failure, which fails the box). */
static void *box_list_value(shimrt_box *b, uint64_t i, StableIValue v, elem_kind k, int64_t *len) {
    size_t n = 0;
    *len = 0;
    if (b->err != AOTI_TORCH_SUCCESS) return NULL;
    StableListHandle l = siv_to_list(v);
    if (torch_list_size(l, &n) != AOTI_TORCH_SUCCESS) {
        shimrt_box_fail(b, AOTI_TORCH_FAILURE);
        return NULL;
    }
    if (n > (size_t)INT64_MAX) {
        box_failf(b, "argument #%llu: list too long", (unsigned long long)i);
        return NULL;
    }
    char *arr = (char *)box_temp(b, n, elem_size(k));
    if (n > 0 && arr == NULL) return NULL;
    for (size_t j = 0; j < n; j++) {
        StableIValue item = 0;
        if (torch_list_get_item(l, j, &item) != AOTI_TORCH_SUCCESS) {
            shimrt_box_fail(b, AOTI_TORCH_FAILURE);
            return NULL;
        }
        switch (k) {
        case EL_INT: ((int64_t *)(void *)arr)[j] = siv_to_int(item); break;
        case EL_FLOAT: ((double *)(void *)arr)[j] = siv_to_double(item); break;
        case EL_BOOL: ((int32_t *)(void *)arr)[j] = siv_to_bool(item) ? 1 : 0; break;
        case EL_CODE: ((int32_t *)(void *)arr)[j] = siv_to_code_(item); break;
        case EL_TENSOR: ((AtenTensorHandle *)(void *)arr)[j] = siv_to_tensor(item); break;
        case EL_SCALAR:
            if (torch_scalar_to_double(siv_to_scalar(item), &((double *)(void *)arr)[j]) !=
                AOTI_TORCH_SUCCESS) {
                shimrt_box_fail(b, AOTI_TORCH_FAILURE);
                return NULL;
            }
            break;
        }
    }
    *len = (int64_t)n;
    return arr;
}

AOTI_TORCH_EXPORT const int64_t *shimrt_box_int_list(shimrt_box *b, uint64_t i, int64_t *len) {
    return (const int64_t *)box_list_value(b, i, b->stack[i], EL_INT, len);
}
AOTI_TORCH_EXPORT const double *shimrt_box_float_list(shimrt_box *b, uint64_t i, int64_t *len) {
    return (const double *)box_list_value(b, i, b->stack[i], EL_FLOAT, len);
}
AOTI_TORCH_EXPORT const double *shimrt_box_scalar_list(shimrt_box *b, uint64_t i, int64_t *len) {
    return (const double *)box_list_value(b, i, b->stack[i], EL_SCALAR, len);
}
AOTI_TORCH_EXPORT const int32_t *shimrt_box_bool_list(shimrt_box *b, uint64_t i, int64_t *len) {
    return (const int32_t *)box_list_value(b, i, b->stack[i], EL_BOOL, len);
}
AOTI_TORCH_EXPORT const int32_t *shimrt_box_code_list(shimrt_box *b, uint64_t i, int64_t *len) {
    return (const int32_t *)box_list_value(b, i, b->stack[i], EL_CODE, len);
}
AOTI_TORCH_EXPORT const AtenTensorHandle *shimrt_box_tensor_list(shimrt_box *b, uint64_t i,
                                                                 int64_t *len) {
    return (const AtenTensorHandle *)box_list_value(b, i, b->stack[i], EL_TENSOR, len);
}

AOTI_TORCH_EXPORT const AtenTensorHandle **shimrt_box_opt_tensor_list(shimrt_box *b, uint64_t i,
                                                                      int64_t *len) {
    size_t n = 0;
    *len = 0;
    if (b->err != AOTI_TORCH_SUCCESS) return NULL;
    StableListHandle l = siv_to_list(b->stack[i]);
    if (torch_list_size(l, &n) != AOTI_TORCH_SUCCESS) {
        shimrt_box_fail(b, AOTI_TORCH_FAILURE);
        return NULL;
    }
    if (n == 0) return NULL;
    /* One block: n pointers, then the n handles they point to. */
    if (n > SIZE_MAX / (sizeof(AtenTensorHandle *) + sizeof(AtenTensorHandle))) {
        box_failf(b, "argument #%llu: list too long", (unsigned long long)i);
        return NULL;
    }
    void *block = box_temp(b, n, sizeof(AtenTensorHandle *) + sizeof(AtenTensorHandle));
    if (block == NULL) return NULL;
    const AtenTensorHandle **ptrs = (const AtenTensorHandle **)block;
    AtenTensorHandle *handles = (AtenTensorHandle *)(void *)(ptrs + n);
    for (size_t j = 0; j < n; j++) {
        StableIValue item = 0;
        if (torch_list_get_item(l, j, &item) != AOTI_TORCH_SUCCESS) {
            shimrt_box_fail(b, AOTI_TORCH_FAILURE);
            return NULL;
        }
        if (item == 0) {
            ptrs[j] = NULL;
        } else {
            handles[j] = siv_to_tensor(siv_optional_value(item));
            ptrs[j] = &handles[j];
        }
    }
    *len = (int64_t)n;
    return ptrs;
}

AOTI_TORCH_EXPORT const int64_t **shimrt_box_opt_int_list(shimrt_box *b, uint64_t i,
                                                          const int64_t **storage, int64_t *len) {
    StableIValue v;
    *len = 0;
    if (!box_opt(b, i, &v)) return NULL;
    *storage = (const int64_t *)box_list_value(b, i, v, EL_INT, len);
    return storage;
}
AOTI_TORCH_EXPORT const double **shimrt_box_opt_float_list(shimrt_box *b, uint64_t i,
                                                           const double **storage, int64_t *len) {
    StableIValue v;
    *len = 0;
    if (!box_opt(b, i, &v)) return NULL;
    *storage = (const double *)box_list_value(b, i, v, EL_FLOAT, len);
    return storage;
}

/* ---- release and push ---------------------------------------------------------------- */
AOTI_TORCH_EXPORT void shimrt_box_keep(shimrt_box *b, uint64_t i) {
    if (i >= b->num_args || i >= 64) {
        box_failf(b, "internal: keep of argument %llu out of range", (unsigned long long)i);
        return;
    }
    b->keep |= UINT64_C(1) << i;
    b->kept[i] = b->stack[i];
}

static int box_arg_kind(const shimrt_box *b, uint64_t i) {
    return b->arg_kinds != NULL ? b->arg_kinds[i] : SHIMRT_KIND_NONE;
}

AOTI_TORCH_EXPORT void shimrt_box_release_args(shimrt_box *b) {
    for (unsigned k = 0; k < b->n_temps; k++) free(b->temps[k]);
    b->n_temps = 0;
    b->released = 1;
    for (uint64_t i = 0; i < b->num_args; i++) {
        bool kept = i < 64 && (b->keep & (UINT64_C(1) << i)) != 0;
        if (kept && b->err == AOTI_TORCH_SUCCESS) continue;
        release_value(box_arg_kind(b, i), b->stack[i]);
        b->stack[i] = 0;
        if (kept) b->keep &= ~(UINT64_C(1) << i);
    }
}

/* Output kinds, for releasing pushed outputs after a later failure. */
enum { OUT_NONE = 0, OUT_PLAIN, OUT_TENSOR, OUT_SCALAR, OUT_STR, OUT_GENERATOR, OUT_TENSOR_LIST };

static bool box_out_ok(shimrt_box *b, uint64_t j) {
    if (j < b->num_outputs && j < SHIMRT_BOX_MAX_ARGS) return true;
    box_failf(b, "internal: output %llu out of range", (unsigned long long)j);
    return false;
}

AOTI_TORCH_EXPORT void shimrt_box_push_tensor(shimrt_box *b, uint64_t j, AtenTensorHandle t) {
    if (b->err == AOTI_TORCH_SUCCESS && box_out_ok(b, j)) {
        b->stack[j] = siv_from_tensor(t);
        b->pushed[j] = OUT_TENSOR;
        return;
    }
    release_value(SHIMRT_KIND_TENSOR, siv_from_tensor(t));
}

AOTI_TORCH_EXPORT void shimrt_box_push_tensor_list(shimrt_box *b, uint64_t j,
                                                   AtenTensorHandle *items, int64_t n) {
    StableListHandle l = NULL;
    int64_t k = 0;
    if (b->err == AOTI_TORCH_SUCCESS && box_out_ok(b, j)) {
        if (n < 0 || (n > 0 && items == NULL)) {
            box_failf(b, "output %llu: the kernel returned an invalid tensor list",
                      (unsigned long long)j);
        } else if (torch_new_list_reserve_size((size_t)n, &l) != AOTI_TORCH_SUCCESS) {
            shimrt_box_fail(b, AOTI_TORCH_FAILURE);
        } else {
            for (; k < n; k++)
                if (torch_list_push_back(l, siv_from_tensor(items[k])) != AOTI_TORCH_SUCCESS) {
                    shimrt_box_fail(b, AOTI_TORCH_FAILURE);
                    break;
                }
            if (k == n) {
                free(items);
                b->stack[j] = siv_from_list(l);
                b->pushed[j] = OUT_TENSOR_LIST;
                return;
            }
        }
    }
    /* Failure: the list owns items [0, k), the rest are released one by one. */
    if (l != NULL) release_value(SHIMRT_KIND_TENSOR_LIST, siv_from_list(l));
    for (; items != NULL && k < n; k++)
        release_value(SHIMRT_KIND_TENSOR, siv_from_tensor(items[k]));
    free(items);
}

AOTI_TORCH_EXPORT void shimrt_box_push_alias(shimrt_box *b, uint64_t j, uint64_t i) {
    if (b->err != AOTI_TORCH_SUCCESS) return; /* released with the arguments */
    if (!box_out_ok(b, j)) return;
    if (i >= 64 || (b->keep & (UINT64_C(1) << i)) == 0) {
        box_failf(b, "internal: output %llu aliases argument %llu, which was not kept",
                  (unsigned long long)j, (unsigned long long)i);
        return;
    }
    b->keep &= ~(UINT64_C(1) << i);
    b->stack[j] = b->kept[i];
    b->pushed[j] = OUT_TENSOR;
}

static void push_plain(shimrt_box *b, uint64_t j, StableIValue v) {
    if (b->err != AOTI_TORCH_SUCCESS || !box_out_ok(b, j)) return;
    b->stack[j] = v;
    b->pushed[j] = OUT_PLAIN;
}
AOTI_TORCH_EXPORT void shimrt_box_push_int(shimrt_box *b, uint64_t j, int64_t v) {
    push_plain(b, j, siv_from_int(v));
}
AOTI_TORCH_EXPORT void shimrt_box_push_float(shimrt_box *b, uint64_t j, double v) {
    push_plain(b, j, siv_from_double(v));
}
AOTI_TORCH_EXPORT void shimrt_box_push_bool(shimrt_box *b, uint64_t j, int32_t v) {
    push_plain(b, j, siv_from_bool(v != 0));
}
AOTI_TORCH_EXPORT void shimrt_box_push_code(shimrt_box *b, uint64_t j, int32_t v) {
    push_plain(b, j, siv_from_code_(v));
}
AOTI_TORCH_EXPORT void shimrt_box_push_scalar(shimrt_box *b, uint64_t j, double v) {
    ScalarHandle s = NULL;
    if (b->err != AOTI_TORCH_SUCCESS || !box_out_ok(b, j)) return;
    if (torch_new_scalar_double(v, &s) != AOTI_TORCH_SUCCESS) {
        shimrt_box_fail(b, AOTI_TORCH_FAILURE);
        return;
    }
    b->stack[j] = siv_from_scalar(s);
    b->pushed[j] = OUT_SCALAR;
}
AOTI_TORCH_EXPORT void shimrt_box_push_str(shimrt_box *b, uint64_t j, const char *s) {
    StringHandle h = NULL;
    if (b->err != AOTI_TORCH_SUCCESS || !box_out_ok(b, j)) return;
    if (s == NULL) {
        box_failf(b, "output %llu: the kernel returned a NULL string", (unsigned long long)j);
        return;
    }
    if (torch_new_string_handle(s, strlen(s), &h) != AOTI_TORCH_SUCCESS) {
        shimrt_box_fail(b, AOTI_TORCH_FAILURE);
        return;
    }
    b->stack[j] = siv_from_string(h);
    b->pushed[j] = OUT_STR;
}
AOTI_TORCH_EXPORT void shimrt_box_push_generator(shimrt_box *b, uint64_t j, AtenGeneratorHandle g) {
    if (b->err == AOTI_TORCH_SUCCESS && box_out_ok(b, j)) {
        b->stack[j] = siv_from_generator(g);
        b->pushed[j] = OUT_GENERATOR;
        return;
    }
    if (g != NULL) release_value(SHIMRT_KIND_GENERATOR, siv_from_generator(g));
}

AOTI_TORCH_EXPORT void shimrt_box_finish(shimrt_box *b) {
    static const unsigned char out_kinds[] = {
        SHIMRT_KIND_NONE, SHIMRT_KIND_NONE,      SHIMRT_KIND_TENSOR,     SHIMRT_KIND_SCALAR,
        SHIMRT_KIND_STR,  SHIMRT_KIND_GENERATOR, SHIMRT_KIND_TENSOR_LIST};
    if (b->err == AOTI_TORCH_SUCCESS) return;
    /* Outputs pushed before the failure. */
    for (uint64_t j = 0; j < b->num_outputs && j < SHIMRT_BOX_MAX_ARGS; j++) {
        if (b->pushed[j] != OUT_NONE) release_value(out_kinds[b->pushed[j]], b->stack[j]);
        b->pushed[j] = OUT_NONE;
        b->stack[j] = 0;
    }
    /* Arguments, when the wrapper did not get to release them. */
    if (!b->released) shimrt_box_release_args(b);
    /* Kept arguments that no push took. */
    for (uint64_t i = 0; i < b->num_args && i < 64; i++)
        if (b->keep & (UINT64_C(1) << i)) release_value(box_arg_kind(b, i), b->kept[i]);
    b->keep = 0;
    uint64_t n = b->num_args > b->num_outputs ? b->num_args : b->num_outputs;
    for (uint64_t k = 0; k < n; k++) b->stack[k] = 0;
    shimrt_kernel_fail("%s", b->msg);
}

/* ==== 3. dispatcher-routed shims ===================================================== */
/* The release kind of each packed value (what it owns). */
#define PK_PLAIN SHIMRT_KIND_NONE
#define PK_TENSOR SHIMRT_KIND_TENSOR
#define PK_OPT_TENSOR SHIMRT_KIND_OPT_TENSOR
#define PK_OPT_PLAIN SHIMRT_KIND_OPT_INT /* any optional of a plain value: the cell only */
#define PK_SCALAR SHIMRT_KIND_SCALAR
#define PK_OPT_SCALAR SHIMRT_KIND_OPT_SCALAR
#define PK_STR SHIMRT_KIND_STR
#define PK_OPT_STR SHIMRT_KIND_OPT_STR
#define PK_LIST_PLAIN SHIMRT_KIND_INT_LIST /* any list of plain values: the list only */
#define PK_OPT_LIST_PLAIN SHIMRT_KIND_OPT_INT_LIST
#define PK_TENSOR_LIST SHIMRT_KIND_TENSOR_LIST
#define PK_OPT_TENSOR_LIST SHIMRT_KIND_OPT_TENSOR_LIST
#define PK_SCALAR_LIST SHIMRT_KIND_SCALAR_LIST
#define PK_GENERATOR SHIMRT_KIND_GENERATOR
#define PK_OPT_GENERATOR SHIMRT_KIND_OPT_GENERATOR

AOTI_TORCH_EXPORT void shimrt_pack_begin(shimrt_pack *p, const char *func, StableIValue *stack,
                                         uint64_t cap) {
    p->func = func ? func : "?";
    p->stack = stack;
    p->cap = cap;
    p->n = 0;
    p->err = AOTI_TORCH_SUCCESS;
    if (stack == NULL || cap > SHIMRT_PACK_MAX_ARGS)
        p->err = shimrt_fail(p->func, "internal: bad stack for packing (capacity %llu)",
                             (unsigned long long)cap);
}

/* Appends v with its release kind; false (and v released) when the pack has failed. */
static void pack_put(shimrt_pack *p, StableIValue v, unsigned char kind) {
    if (p->err == AOTI_TORCH_SUCCESS && p->n >= p->cap)
        p->err = shimrt_fail(p->func, "internal: more arguments than stack slots (%llu)",
                             (unsigned long long)p->cap);
    if (p->err != AOTI_TORCH_SUCCESS) {
        release_value(kind, v);
        return;
    }
    p->kinds[p->n] = kind;
    p->stack[p->n++] = v;
}
/* Wraps v in a new optional cell; on failure releases v by kind and fails the pack. */
static void pack_put_opt(shimrt_pack *p, StableIValue v, unsigned char inner_kind,
                         unsigned char opt_kind) {
    StableIValue *cell = NULL;
    if (p->err == AOTI_TORCH_SUCCESS && torch_new_stable_ivalue(&cell) != AOTI_TORCH_SUCCESS)
        p->err = AOTI_TORCH_FAILURE;
    if (p->err != AOTI_TORCH_SUCCESS) {
        release_value(inner_kind, v);
        return;
    }
    *cell = v;
    pack_put(p, siv_from_ptr_(cell), opt_kind);
}

static AtenTensorHandle pack_new_ref(shimrt_pack *p, const char *name, AtenTensorHandle x) {
    AtenTensorHandle h = NULL;
    if (p->err != AOTI_TORCH_SUCCESS) return NULL;
    if (shimrt_check_tensor(p->func, name, x) != AOTI_TORCH_SUCCESS ||
        aoti_torch_new_tensor_handle(x, &h) != AOTI_TORCH_SUCCESS) {
        p->err = AOTI_TORCH_FAILURE;
        return NULL;
    }
    return h;
}

AOTI_TORCH_EXPORT void shimrt_pack_tensor(shimrt_pack *p, const char *name, AtenTensorHandle x) {
    pack_put(p, siv_from_tensor(pack_new_ref(p, name, x)), PK_TENSOR);
}
AOTI_TORCH_EXPORT void shimrt_pack_opt_tensor(shimrt_pack *p, const char *name,
                                              const AtenTensorHandle *x) {
    if (x == NULL || *x == NULL) {
        pack_put(p, 0, PK_OPT_TENSOR);
        return;
    }
    AtenTensorHandle h = pack_new_ref(p, name, *x);
    pack_put_opt(p, siv_from_tensor(h), PK_TENSOR, PK_OPT_TENSOR);
}
/* An optional: None when absent, else v (made only when present) in a new cell. */
static void pack_opt(shimrt_pack *p, bool present, StableIValue v, unsigned char kind,
                     unsigned char opt_kind) {
    if (!present)
        pack_put(p, 0, opt_kind);
    else
        pack_put_opt(p, v, kind, opt_kind);
}

static StableIValue siv_from_bool01(int32_t x) { return siv_from_bool(x != 0); }
/* shimrt_pack_<name> and shimrt_pack_opt_<name> for a plain value made by conv(x). */
#define PACK_PLAIN(name, T, conv)                                                                  \
    AOTI_TORCH_EXPORT void shimrt_pack_##name(shimrt_pack *p, T x) {                               \
        pack_put(p, conv(x), PK_PLAIN);                                                            \
    }                                                                                              \
    AOTI_TORCH_EXPORT void shimrt_pack_opt_##name(shimrt_pack *p, const T *x) {                    \
        pack_opt(p, x != NULL, x ? conv(*x) : 0, PK_PLAIN, PK_OPT_PLAIN);                          \
    }
PACK_PLAIN(int, int64_t, siv_from_int)
PACK_PLAIN(float, double, siv_from_double)
PACK_PLAIN(bool, int32_t, siv_from_bool01)
PACK_PLAIN(code, int32_t, siv_from_code_)
AOTI_TORCH_EXPORT void shimrt_pack_device(shimrt_pack *p, int32_t type, int32_t index) {
    pack_put(p, siv_from_device(type, index), PK_PLAIN);
}
AOTI_TORCH_EXPORT void shimrt_pack_opt_device(shimrt_pack *p, const int32_t *type, int32_t index) {
    pack_opt(p, type != NULL, type ? siv_from_device(*type, index) : 0, PK_PLAIN, PK_OPT_PLAIN);
}

AOTI_TORCH_EXPORT void shimrt_pack_opt_device_index(shimrt_pack *p, const int32_t *x) {
    pack_opt(p, x != NULL, x ? siv_from_int(*x) : 0, PK_PLAIN, PK_OPT_PLAIN);
}

static StableIValue pack_new_scalar_value(shimrt_pack *p, shimrt_scalar x) {
    ScalarHandle s = NULL;
    if (p->err != AOTI_TORCH_SUCCESS) return 0;
    if (shimrt_scalar_new_handle(p->func, x, &s) != AOTI_TORCH_SUCCESS) {
        p->err = AOTI_TORCH_FAILURE;
        return 0;
    }
    return siv_from_scalar(s);
}
AOTI_TORCH_EXPORT void shimrt_pack_scalar(shimrt_pack *p, double x) {
    pack_put(p, pack_new_scalar_value(p, shimrt_scalar_double(x)), PK_SCALAR);
}
AOTI_TORCH_EXPORT void shimrt_pack_opt_scalar(shimrt_pack *p, const double *x) {
    pack_opt(p, x != NULL, x ? pack_new_scalar_value(p, shimrt_scalar_double(*x)) : 0, PK_SCALAR,
             PK_OPT_SCALAR);
}
AOTI_TORCH_EXPORT void shimrt_pack_scalar_value(shimrt_pack *p, shimrt_scalar x) {
    pack_put(p, pack_new_scalar_value(p, x), PK_SCALAR);
}
AOTI_TORCH_EXPORT void shimrt_pack_opt_scalar_value(shimrt_pack *p, const shimrt_scalar *x) {
    pack_opt(p, x != NULL, x ? pack_new_scalar_value(p, *x) : 0, PK_SCALAR, PK_OPT_SCALAR);
}

static StableIValue pack_new_str(shimrt_pack *p, const char *name, const char *x) {
    StringHandle h = NULL;
    if (p->err != AOTI_TORCH_SUCCESS) return 0;
    if (x == NULL) {
        p->err = shimrt_fail(p->func, "argument '%s' is NULL", name ? name : "?");
        return 0;
    }
    if (torch_new_string_handle(x, strlen(x), &h) != AOTI_TORCH_SUCCESS) {
        p->err = AOTI_TORCH_FAILURE;
        return 0;
    }
    return siv_from_string(h);
}
AOTI_TORCH_EXPORT void shimrt_pack_str(shimrt_pack *p, const char *name, const char *x) {
    pack_put(p, pack_new_str(p, name, x), PK_STR);
}
AOTI_TORCH_EXPORT void shimrt_pack_opt_str(shimrt_pack *p, const char *name, const char *const *x) {
    pack_opt(p, x != NULL, x ? pack_new_str(p, name, *x) : 0, PK_STR, PK_OPT_STR);
}

/* A new list of len items made by item(k); kind is how to release it. */
static StableIValue pack_new_list(shimrt_pack *p, const char *name, const void *x, int64_t len,
                                  elem_kind k) {
    StableListHandle l = NULL;
    if (p->err != AOTI_TORCH_SUCCESS) return 0;
    if (shimrt_check_list(p->func, name, x, len) != AOTI_TORCH_SUCCESS ||
        (k == EL_TENSOR && shimrt_check_tensor_list(p->func, name, (const AtenTensorHandle *)x,
                                                    len) != AOTI_TORCH_SUCCESS) ||
        torch_new_list_reserve_size((size_t)len, &l) != AOTI_TORCH_SUCCESS) {
        p->err = AOTI_TORCH_FAILURE;
        return 0;
    }
    for (int64_t j = 0; j < len; j++) {
        StableIValue item = 0;
        switch (k) {
        case EL_INT: item = siv_from_int(((const int64_t *)x)[j]); break;
        case EL_FLOAT: item = siv_from_double(((const double *)x)[j]); break;
        case EL_BOOL: item = siv_from_bool(((const int32_t *)x)[j] != 0); break;
        case EL_CODE: item = siv_from_code_(((const int32_t *)x)[j]); break;
        case EL_SCALAR: {
            ScalarHandle sh = NULL;
            if (torch_new_scalar_double(((const double *)x)[j], &sh) != AOTI_TORCH_SUCCESS)
                goto fail;
            item = siv_from_scalar(sh);
            break;
        }
        case EL_TENSOR: {
            AtenTensorHandle h = NULL;
            if (aoti_torch_new_tensor_handle(((const AtenTensorHandle *)x)[j], &h) !=
                AOTI_TORCH_SUCCESS)
                goto fail;
            item = siv_from_tensor(h);
            break;
        }
        default: break;
        }
        if (torch_list_push_back(l, item) != AOTI_TORCH_SUCCESS) {
            if (k == EL_TENSOR) release_value(SHIMRT_KIND_TENSOR, item);
            if (k == EL_SCALAR) release_value(SHIMRT_KIND_SCALAR, item);
            goto fail;
        }
    }
    return siv_from_list(l);
fail:
    release_value(k == EL_TENSOR   ? SHIMRT_KIND_TENSOR_LIST
                  : k == EL_SCALAR ? SHIMRT_KIND_SCALAR_LIST
                                   : SHIMRT_KIND_INT_LIST,
                  siv_from_list(l));
    p->err = AOTI_TORCH_FAILURE;
    return 0;
}
/* shimrt_pack_<name>_list: a new list of len values of type T, items made as el says. */
#define PACK_LIST(name, T, el, kind)                                                               \
    AOTI_TORCH_EXPORT void shimrt_pack_##name##_list(shimrt_pack *p, const char *name_,            \
                                                     const T *x, int64_t len) {                    \
        pack_put(p, pack_new_list(p, name_, x, len, el), kind);                                    \
    }
PACK_LIST(int, int64_t, EL_INT, PK_LIST_PLAIN)
/* shimrt_pack_opt_<name>_list: the same, or None when x is NULL. */
#define PACK_OPT_LIST(name, T, el)                                                                 \
    AOTI_TORCH_EXPORT void shimrt_pack_opt_##name##_list(shimrt_pack *p, const char *name_,        \
                                                         const T *const *x, int64_t len) {         \
        pack_opt(p, x != NULL, x ? pack_new_list(p, name_, *x, len, el) : 0, PK_LIST_PLAIN,        \
                 PK_OPT_LIST_PLAIN);                                                               \
    }
PACK_OPT_LIST(int, int64_t, EL_INT)
PACK_LIST(float, double, EL_FLOAT, PK_LIST_PLAIN)
PACK_OPT_LIST(float, double, EL_FLOAT)
PACK_LIST(scalar, double, EL_SCALAR, PK_SCALAR_LIST)
PACK_LIST(bool, int32_t, EL_BOOL, PK_LIST_PLAIN)
PACK_LIST(code, int32_t, EL_CODE, PK_LIST_PLAIN)

static StableIValue pack_new_generator(shimrt_pack *p, const char *name, AtenGeneratorHandle x) {
    AtenGeneratorHandle g = NULL;
    if (p->err != AOTI_TORCH_SUCCESS) return 0;
    if (x == NULL) {
        p->err = shimrt_fail(p->func, "argument '%s' is NULL", name ? name : "?");
        return 0;
    }
    if (torch_new_generator_handle(x, &g) != AOTI_TORCH_SUCCESS) {
        char why[512];
        snprintf(why, sizeof why, "%s", torch_exception_get_what());
        p->err = shimrt_fail(p->func, "argument '%s': %s", name ? name : "?", why);
        return 0;
    }
    return siv_from_generator(g);
}
AOTI_TORCH_EXPORT void shimrt_pack_generator(shimrt_pack *p, const char *name,
                                             AtenGeneratorHandle x) {
    pack_put(p, pack_new_generator(p, name, x), PK_GENERATOR);
}
AOTI_TORCH_EXPORT void shimrt_pack_opt_generator(shimrt_pack *p, const char *name,
                                                 const AtenGeneratorHandle *x) {
    if (x == NULL || *x == NULL)
        pack_put(p, 0, PK_OPT_GENERATOR);
    else
        pack_put_opt(p, pack_new_generator(p, name, *x), PK_GENERATOR, PK_OPT_GENERATOR);
}
AOTI_TORCH_EXPORT void shimrt_pack_tensor_list(shimrt_pack *p, const char *name,
                                               const AtenTensorHandle *x, int64_t len) {
    pack_put(p, pack_new_list(p, name, x, len, EL_TENSOR), PK_TENSOR_LIST);
}
AOTI_TORCH_EXPORT void shimrt_pack_opt_tensor_list(shimrt_pack *p, const char *name,
                                                   const AtenTensorHandle *const *x, int64_t len) {
    StableListHandle l = NULL;
    shimrt_tensor_array arr;
    if (p->err != AOTI_TORCH_SUCCESS) {
        pack_put(p, 0, PK_OPT_TENSOR_LIST);
        return;
    }
    if (shimrt_opt_tensor_list(p->func, name, x, len, &arr) != AOTI_TORCH_SUCCESS) {
        p->err = AOTI_TORCH_FAILURE;
        pack_put(p, 0, PK_OPT_TENSOR_LIST);
        return;
    }
    if (torch_new_list_reserve_size((size_t)len, &l) != AOTI_TORCH_SUCCESS) {
        p->err = AOTI_TORCH_FAILURE;
    } else {
        for (int64_t j = 0; j < len && p->err == AOTI_TORCH_SUCCESS; j++) {
            StableIValue item = 0;
            if (arr.items[j] != NULL) {
                AtenTensorHandle h = NULL;
                StableIValue *cell = NULL;
                if (aoti_torch_new_tensor_handle(arr.items[j], &h) != AOTI_TORCH_SUCCESS) {
                    p->err = AOTI_TORCH_FAILURE;
                    break;
                }
                if (torch_new_stable_ivalue(&cell) != AOTI_TORCH_SUCCESS) {
                    aoti_torch_delete_tensor_object(h);
                    p->err = AOTI_TORCH_FAILURE;
                    break;
                }
                *cell = siv_from_tensor(h);
                item = siv_from_ptr_(cell);
            }
            if (torch_list_push_back(l, item) != AOTI_TORCH_SUCCESS) {
                release_value(SHIMRT_KIND_OPT_TENSOR, item);
                p->err = AOTI_TORCH_FAILURE;
            }
        }
    }
    shimrt_tensor_array_free(&arr);
    if (p->err != AOTI_TORCH_SUCCESS) {
        if (l != NULL) release_value(SHIMRT_KIND_OPT_TENSOR_LIST, siv_from_list(l));
        pack_put(p, 0, PK_OPT_TENSOR_LIST);
        return;
    }
    pack_put(p, siv_from_list(l), PK_OPT_TENSOR_LIST);
}

static void pack_release(shimrt_pack *p) {
    for (uint64_t k = 0; k < p->n; k++) {
        release_value(p->kinds[k], p->stack[k]);
        p->stack[k] = 0;
    }
    p->n = 0;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_pack_call(shimrt_pack *p, shimrt_op_cache *cache,
                                                  const char *op_name, const char *overload) {
    if (p->err != AOTI_TORCH_SUCCESS) {
        pack_release(p);
        return p->err;
    }
    ShimrtOpHandle op = __atomic_load_n(&cache->op, __ATOMIC_ACQUIRE);
    if (op == NULL) {
        if (shimrt_op_find(op_name, overload, &op) != AOTI_TORCH_SUCCESS) {
            char why[512];
            snprintf(why, sizeof why, "%s", torch_exception_get_what());
            pack_release(p);
            return shimrt_fail(p->func, "%s", why);
        }
        __atomic_store_n(&cache->op, op, __ATOMIC_RELEASE);
    }
    if (shimrt_op_call(op, p->stack, TORCH_ABI_VERSION) != AOTI_TORCH_SUCCESS) {
        /* As PyTorch's torch_call_dispatcher, a failed call has taken ownership of the
         * arguments (released them, or its kernel did): releasing them again here would be
         * a double free, and with libtorch it would crash. */
        char why[512];
        snprintf(why, sizeof why, "%s", torch_exception_get_what());
        if (shimrt_dispatch_took_args())
            p->n = 0;
        else
            pack_release(p); /* the op was not defined: the arguments are still ours */
        return shimrt_fail(p->func, "%s", why);
    }
    p->n = 0;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_autogen_out(const char *func, StableIValue *stack,
                                                    const AtenTensorHandle *outs, int n) {
    AOTITorchError err = AOTI_TORCH_SUCCESS;
    for (int j = 0; j < n; j++) {
        AtenTensorHandle r = siv_to_tensor(stack[j]), o = outs[j];
        if (err == AOTI_TORCH_SUCCESS && shimrt_tensor_valid(r) && shimrt_tensor_valid(o)) {
            if (shimrt_resize_output(func, o, r->ndim, r->sizes)) {
                err = AOTI_TORCH_FAILURE;
            } else if (o->dtype != r->dtype) { /* torchgen's copy_arg */
                err =
                    shimrt_fail(func, "Expected out tensor to have dtype %s, but got %s instead",
                                shimrt_dtype_meta_name(r->dtype), shimrt_dtype_meta_name(o->dtype));
            } else if (aoti_torch_copy_(o, r, 0) != AOTI_TORCH_SUCCESS) {
                char why[512];
                snprintf(why, sizeof why, "%s", torch_exception_get_what());
                err = shimrt_fail(func, "%s", why);
            }
        } else if (err == AOTI_TORCH_SUCCESS) {
            err = shimrt_fail(func, "out argument %d or its result is not a live tensor", j);
        }
        if (r) aoti_torch_delete_tensor_object(r);
    }
    return err;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_pop_scalar(const char *func, StableIValue v, double *ret) {
    ScalarHandle s = siv_to_scalar(v);
    double d = 0;
    AOTITorchError e = torch_scalar_to_double(s, &d);
    torch_delete_scalar(s);
    if (e != AOTI_TORCH_SUCCESS) {
        char why[512];
        snprintf(why, sizeof why, "%s", torch_exception_get_what());
        return shimrt_fail(func, "%s", why);
    }
    *ret = d;
    return AOTI_TORCH_SUCCESS;
}

/* Interned strings of str returns: a lock-protected singly linked list, never freed (the
 * pointers handed out stay valid until the process ends). */
typedef struct interned {
    struct interned *next;
    size_t len;
    char text[];
} interned;
static interned *interned_head;
static pthread_mutex_t interned_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *intern(const char *s, size_t len) {
    const char *r = NULL;
    pthread_mutex_lock(&interned_lock);
    for (interned *e = interned_head; e && !r; e = e->next)
        if (e->len == len && memcmp(e->text, s, len) == 0) r = e->text;
    if (!r) {
        interned *e = malloc(sizeof *e + len + 1);
        if (e) {
            e->len = len;
            memcpy(e->text, s, len);
            e->text[len] = '\0';
            e->next = interned_head;
            interned_head = e;
            r = e->text;
        }
    }
    pthread_mutex_unlock(&interned_lock);
    return r;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_pop_str(const char *func, StableIValue v,
                                                const char **ret) {
    StringHandle h = siv_to_string(v);
    const char *data = NULL, *r = NULL;
    size_t len = 0;
    if (torch_string_c_str(h, &data) != AOTI_TORCH_SUCCESS ||
        torch_string_length(h, &len) != AOTI_TORCH_SUCCESS) {
        char why[512];
        snprintf(why, sizeof why, "%s", torch_exception_get_what());
        return shimrt_fail(func, "%s", why); /* not a string handle: nothing to delete */
    }
    r = intern(data, len);
    torch_delete_string(h);
    if (r == NULL) return shimrt_fail(func, "out of memory");
    *ret = r;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_pop_tensor_list(const char *func, StableIValue v,
                                                        AtenTensorHandle **ret, int64_t *len) {
    StableListHandle l = siv_to_list(v);
    size_t n = 0;
    if (torch_list_size(l, &n) != AOTI_TORCH_SUCCESS) {
        char why[512];
        snprintf(why, sizeof why, "%s", torch_exception_get_what());
        return shimrt_fail(func, "%s", why); /* not a list handle: nothing to delete */
    }
    AtenTensorHandle *items = malloc((n ? n : 1) * sizeof *items);
    for (size_t j = 0; items != NULL && j < n; j++) {
        StableIValue e = 0;
        if (torch_list_get_item(l, j, &e) != AOTI_TORCH_SUCCESS) {
            free(items);
            items = NULL;
            break;
        }
        items[j] = siv_to_tensor(e);
    }
    if (items == NULL) {
        release_value(SHIMRT_KIND_TENSOR_LIST, v);
        return shimrt_fail(func, "out of memory");
    }
    /* The references move to the array; torch_delete_list frees the container only. */
    for (size_t j = 0; j < n; j++) torch_list_set_item(l, j, 0);
    torch_delete_list(l);
    *ret = items;
    *len = (int64_t)n;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT void shimrt_pop_discard(int kind, StableIValue v) { release_value(kind, v); }

/* ==== 4. registration ================================================================ */

static AOTITorchError define_one(TorchLibraryHandle lib, const shimrt_def_entry *d) {
    int32_t codes[SHIMRT_NUM_TAGS];
    int32_t n = 0;
    for (int32_t c = 0; c < SHIMRT_NUM_TAGS; c++)
        if (d->tags & (UINT64_C(1) << c)) codes[n++] = c;
    if (n == 0) return aoti_torch_library_def(lib, d->schema);
    return torch_library_def_with_tags(lib, d->schema, codes, n);
}
_Static_assert(SHIMRT_NUM_TAGS <= 64, "shimrt_def_entry.tags holds one bit per tag");

static AOTITorchError register_ops(const char *ns, const char *key, const char *file, uint32_t line,
                                   const shimrt_def_entry *defs, size_t n_defs,
                                   const shimrt_impl_entry *impls, size_t n_impls,
                                   TorchLibraryHandle *ret_def, TorchLibraryHandle *ret_impl) {
    static const char fn[] = "shimrt_register_ops";
    TorchLibraryHandle def = NULL, impl = NULL;
    char why[512];
    if (ns == NULL || key == NULL || ret_impl == NULL || (n_defs > 0 && defs == NULL) ||
        (n_impls > 0 && impls == NULL))
        return shimrt_fail(fn, "NULL argument (ns, key, tables or ret_impl)");
    if (ret_def != NULL) {
        if (aoti_torch_library_init_def(ns, file ? file : "?", line, &def) != AOTI_TORCH_SUCCESS)
            goto fail_plain;
        for (size_t k = 0; k < n_defs; k++) {
            if (define_one(def, &defs[k]) != AOTI_TORCH_SUCCESS) {
                snprintf(why, sizeof why, "%s", torch_exception_get_what());
                aoti_torch_delete_library_object(def);
                return shimrt_fail(fn, "namespace %s: defining '%s': %s", ns, defs[k].schema, why);
            }
        }
    }
    if (aoti_torch_library_init_impl(ns, key, file ? file : "?", line, &impl) != AOTI_TORCH_SUCCESS)
        goto fail_plain;
    for (size_t k = 0; k < n_impls; k++) {
        if (torch_library_impl(impl, impls[k].name, impls[k].fn, TORCH_ABI_VERSION) !=
            AOTI_TORCH_SUCCESS) {
            snprintf(why, sizeof why, "%s", torch_exception_get_what());
            aoti_torch_delete_library_object(impl);
            if (def != NULL) aoti_torch_delete_library_object(def);
            return shimrt_fail(fn, "namespace %s: registering %s kernel '%s': %s", ns, key,
                               impls[k].name, why);
        }
    }
    if (ret_def != NULL) *ret_def = def;
    *ret_impl = impl;
    return AOTI_TORCH_SUCCESS;
fail_plain:
    snprintf(why, sizeof why, "%s", torch_exception_get_what());
    if (def != NULL) aoti_torch_delete_library_object(def);
    return shimrt_fail(fn, "namespace %s, key %s: %s", ns, key, why);
}

/* All or nothing with an error code: its registrations are never deferred (library.c). */
AOTI_TORCH_EXPORT AOTITorchError shimrt_register_ops(const char *ns, const char *key,
                                                     const char *file, uint32_t line,
                                                     const shimrt_def_entry *defs, size_t n_defs,
                                                     const shimrt_impl_entry *impls, size_t n_impls,
                                                     TorchLibraryHandle *ret_def,
                                                     TorchLibraryHandle *ret_impl) {
    shimrt_registration_strict_enter();
    AOTITorchError rc =
        register_ops(ns, key, file, line, defs, n_defs, impls, n_impls, ret_def, ret_impl);
    shimrt_registration_strict_leave();
    return rc;
}

/* tests/runtime/test_e2e.h: shared helpers of the end-to-end suites (test_e2e_*.c).
 *
 * Every op of schemas/native_functions.yaml is called three ways:
 *   DIRECT    its direct shim aoti_torch_cpu_<op>           (generated/c_shim_cpu.h)
 *   ATEN      its dispatcher-routed shim aoti_torch_aten_<op> (generated/c_shim_aten.h)
 *   DISPATCH  torch_call_dispatcher("aten::<name>", "<overload>", stack, TORCH_ABI_VERSION)
 *             with a stack this file builds with the helpers of shimrt/stableivalue.h and
 *             shimrt/containers.h (docs/stableivalue.md).
 * The e2e_<op>(path, ...) wrappers below take the direct shim's C arguments and route
 * them; the suites compare every result with a reference computed by plain loops over
 * logical indices (never by another op). Inputs are contiguous, transposed (column-major
 * strides), sliced (stride 2 and a storage offset) or broadcast (stride 0).
 *
 * Each test starts with e2e_begin() and ends with e2e_end(), which asserts, inside the
 * test body, that no tensor, storage, list, string, scalar or cell is left alive.
 * Everything here is static inline so that each suite uses what it needs. */
#ifndef TEST_E2E_H
#define TEST_E2E_H
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contig.h"
#include "c_shim_aten.h"
#include "c_shim_cpu.h"
#include "shimrt/shimrt.h"

#define OK(call)                                                                                   \
    cr_assert_eq((call), AOTI_TORCH_SUCCESS, "%s failed: %s", #call, torch_exception_get_what())

#define F32 aoti_torch_dtype_float32()
#define F64 aoti_torch_dtype_float64()
#define I64 aoti_torch_dtype_int64()
#define I32 aoti_torch_dtype_int32()
#define BOOL aoti_torch_dtype_bool()
#define CPU aoti_torch_device_type_cpu()
#define MAXD 8
typedef AtenTensorHandle T;

enum path { DIRECT, ATEN, DISPATCH, NPATHS };
static const char *const path_name[NPATHS] = {"direct shim", "aten shim", "dispatcher"};

/* ---- registration and leak checks ------------------------------------------------ */
/* libshimrt registers its aten ops lazily, at the first op lookup (runtime/core/
 * builtin_ops.c): the lookup here triggers it, and the CPU kernels must be there. */
static inline void e2e_begin(void) {
    ShimrtOpHandle op = NULL;
    bool has = false;
    OK(shimrt_op_find("aten::add", "Tensor", &op));
    OK(shimrt_op_has_kernel(op, "CPU", &has));
    cr_assert(has, "aten::add.Tensor has no CPU kernel after the built-in registration");
}

static inline void e2e_no_live_objects(void) {
    static const char *const kinds[] = {"tensor", "storage", "list",   "string",
                                        "scalar", "cell",    "complex"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        int64_t n = -1;
        OK(shimrt_live_objects(kinds[i], &n));
        cr_assert_eq(n, 0, "%lld %s object(s) left alive", (long long)n, kinds[i]);
    }
}
/* Ends a test: nothing may be left alive (checked in the test body, where a failure
 * counts). */
static inline void e2e_end(void) { e2e_no_live_objects(); }

/* ---- failures -------------------------------------------------------------------- */
/* The message of the last failed dispatcher call, saved before run() released the
 * arguments (which may set messages of their own). */
static char e2e_dispatch_msg[1024];

/* The call failed, and the thread's message names the op and contains `needle`:
 * DIRECT: the op key ("add.Tensor", from the kernel) or the shim's name;
 * ATEN: starts with the aten shim's name (aoti_torch_aten_<cname>);
 * DISPATCH: "aten::<name>" and the overload name. */
static inline void e2e_fails(int p, AOTITorchError err, const char *key, const char *cname,
                             const char *needle, const char *what) {
    cr_assert_eq(err, AOTI_TORCH_FAILURE, "[%s] %s should fail", path_name[p], what);
    const char *m = p == DISPATCH ? e2e_dispatch_msg : torch_exception_get_what();
    cr_assert(m != NULL && *m, "[%s] %s: empty message", path_name[p], what);
    char shim[160];
    snprintf(shim, sizeof shim, "aoti_torch_%s_%s", p == ATEN ? "aten" : "cpu", cname);
    if (p == ATEN)
        cr_assert(strncmp(m, shim, strlen(shim)) == 0,
                  "[%s] %s: message '%s' does not start with %s", path_name[p], what, m, shim);
    else if (p == DIRECT)
        cr_assert(strstr(m, key) || strstr(m, shim),
                  "[%s] %s: message '%s' names neither %s nor %s", path_name[p], what, m, key,
                  shim);
    else {
        /* the dispatcher names the op "aten::<name>" and its overload */
        char name[128];
        const char *dot = strchr(key, '.');
        snprintf(name, sizeof name, "aten::%.*s", (int)(dot ? dot - key : (int)strlen(key)), key);
        cr_assert(strstr(m, name) != NULL && (!dot || strstr(m, dot + 1) != NULL),
                  "[%s] %s: message '%s' does not name %s", path_name[p], what, m, key);
    }
    cr_assert(strstr(m, needle) != NULL, "[%s] %s: message '%s' lacks '%s'", path_name[p], what, m,
              needle);
}
/* A NULL handle as the only tensor argument: the shims name the argument; the dispatcher
 * finds no tensor to take a dispatch key from and says so (naming the op). */
#define NULL_SELF(p) ((void)(p), "argument 'self' is NULL")
#define FAILS(p, call, key, cname, needle) e2e_fails((p), (call), (key), (cname), (needle), #call)

/* ---- tensors: construction and element access ------------------------------------- */
enum lay { CONTIG, TRANSPOSED, SLICED, NLAYS };
static const char *const lay_name[NLAYS] = {"contiguous", "transposed", "sliced"};

static inline int64_t e2e_numel(int64_t nd, const int64_t *s) {
    int64_t n = 1;
    for (int64_t d = 0; d < nd; d++) n *= s[d];
    return n;
}
static inline int64_t ndim_of(T t) {
    int64_t n;
    OK(aoti_torch_get_dim(t, &n));
    return n;
}
static inline int64_t *sizes_of(T t) {
    int64_t *s;
    OK(aoti_torch_get_sizes(t, &s));
    return s;
}
static inline int64_t *strides_of(T t) {
    int64_t *s;
    OK(aoti_torch_get_strides(t, &s));
    return s;
}
static inline int32_t dtype_of(T t) {
    int32_t d;
    OK(aoti_torch_get_dtype(t, &d));
    return d;
}
static inline char *data_of(T t) {
    void *p;
    OK(aoti_torch_get_data_ptr(t, &p));
    return p;
}
static inline int64_t numel_of(T t) { return e2e_numel(ndim_of(t), sizes_of(t)); }
static inline void del(T t) { OK(aoti_torch_delete_tensor_object(t)); }

static inline char *elem_addr(T t, const int64_t *idx) {
    int64_t off = 0, nd = ndim_of(t), *st = strides_of(t);
    for (int64_t d = 0; d < nd; d++) off += idx[d] * st[d];
    return data_of(t) + off * (int64_t)aoti_torch_dtype_element_size(dtype_of(t));
}
static inline double get(T t, const int64_t *idx) {
    char *p = elem_addr(t, idx);
    int32_t dt = dtype_of(t);
    if (dt == F32) return *(float *)p;
    if (dt == F64) return *(double *)p;
    if (dt == I64) return (double)*(int64_t *)p;
    if (dt == I32) return *(int32_t *)p;
    if (dt == BOOL) return *(unsigned char *)p ? 1 : 0;
    cr_assert_fail("dtype %d not handled by the test", dt);
    return 0;
}
static inline void set(T t, const int64_t *idx, double v) {
    char *p = elem_addr(t, idx);
    int32_t dt = dtype_of(t);
    if (dt == F32)
        *(float *)p = (float)v;
    else if (dt == F64)
        *(double *)p = v;
    else if (dt == I64)
        *(int64_t *)p = (int64_t)v;
    else if (dt == I32)
        *(int32_t *)p = (int32_t)v;
    else if (dt == BOOL)
        *(unsigned char *)p = v != 0;
    else
        cr_assert_fail("dtype %d not handled by the test", dt);
}
/* Row-major odometer; false after the last index. */
static inline bool step(int64_t nd, const int64_t *s, int64_t *idx) {
    for (int64_t d = nd - 1; d >= 0; d--) {
        if (++idx[d] < s[d]) return true;
        idx[d] = 0;
    }
    return false;
}
/* All elements in logical row-major order (free the result). */
static inline double *vals(T t) {
    int64_t n = numel_of(t), nd = ndim_of(t), idx[MAXD] = {0}, i = 0;
    double *v = calloc((size_t)n + 1, sizeof *v);
    cr_assert_not_null(v);
    if (n > 0) do
            v[i++] = get(t, idx);
        while (step(nd, sizes_of(t), idx));
    return v;
}
/* Value number i of input `seed`, exact in every dtype used here. */
static inline double pat(int32_t dt, int64_t i, int seed) {
    if (dt == BOOL) return (i + seed) % 3 != 0;
    int64_t k = (i * 5 + seed * 3) % 11 - 5;
    if (dt == F32 || dt == F64) return (double)k * 0.75 + (seed % 2 ? 0.5 : 0.0);
    return (double)k;
}
static inline bool is_fp(int32_t dt) { return dt == F32 || dt == F64; }
/* What storing v into dtype dt gives. */
static inline double cast(double v, int32_t dt) {
    if (dt == BOOL) return v != 0;
    if (dt == F32) return (float)v;
    if (dt == F64) return v;
    return trunc(v);
}

/* A tensor with `sizes`, layout `l`, filled with pat(seed) in logical order:
 * CONTIG: row-major; TRANSPOSED: column-major strides (the transpose of a contiguous
 * buffer); SLICED: every other element along the last dim, rows padded by one element,
 * at storage offset 3. The buffer around the view holds -99 (or true for bool). */
static inline T make(int32_t dt, enum lay l, int64_t nd, const int64_t *sizes, int seed) {
    int64_t st[MAXD], ext = 1, off = 0;
    if (l == TRANSPOSED) {
        int64_t s = 1;
        for (int64_t d = 0; d < nd; d++) {
            st[d] = s;
            s *= sizes[d] > 1 ? sizes[d] : 1;
        }
        ext = s;
    } else {
        int64_t s = l == SLICED ? 2 : 1;
        for (int64_t d = nd - 1; d >= 0; d--) {
            st[d] = s;
            s *= sizes[d] > 1 ? sizes[d] : 1;
            if (l == SLICED && d == nd - 1) s += 1;
        }
        ext = s;
        if (l == SLICED) off = 3;
    }
    int64_t total = ext + off + 2;
    T base = NULL, t = NULL;
    OK(aoti_torch_empty_strided(1, &total, shimrt_test_strides(1, &total), dt, CPU, 0, &base));
    for (int64_t i = 0; i < total; i++) set(base, (int64_t[]){i}, dt == BOOL ? 1 : -99);
    OK(aoti_torch__reinterpret_tensor(base, nd, sizes, st, off, &t));
    del(base);
    if (e2e_numel(nd, sizes) > 0) {
        int64_t idx[MAXD] = {0}, i = 0;
        do set(t, idx, pat(dt, i++, seed));
        while (step(nd, sizes, idx));
    }
    return t;
}
/* A tensor with `sizes` whose dim `bdim` has stride 0 (an expanded size-1 dim): every
 * slice along bdim is the same memory. */
static inline T make_bcast(int32_t dt, int64_t nd, const int64_t *sizes, int64_t bdim, int seed) {
    int64_t s1[MAXD], st[MAXD];
    memcpy(s1, sizes, (size_t)nd * sizeof *s1);
    s1[bdim] = 1;
    T base = make(dt, CONTIG, nd, s1, seed), t = NULL;
    memcpy(st, strides_of(base), (size_t)nd * sizeof *st);
    st[bdim] = 0;
    OK(aoti_torch__reinterpret_tensor(base, nd, sizes, st, 0, &t));
    del(base);
    return t;
}

static inline void close_to(double got, double want, int32_t dt, const char *what, int64_t i) {
    if (isnan(want)) {
        cr_assert(isnan(got), "%s[%lld]: got %g, want NaN", what, (long long)i, got);
        return;
    }
    if (isinf(want)) {
        cr_assert(got == want, "%s[%lld]: got %g, want %g", what, (long long)i, got, want);
        return;
    }
    double tol = dt == F32 ? 2e-6 * (1 + fabs(want)) : dt == F64 ? 1e-12 * (1 + fabs(want)) : 0;
    cr_assert(fabs(got - want) <= tol, "%s[%lld]: got %.10g, want %.10g", what, (long long)i, got,
              want);
}
static inline void shape_is(T t, int64_t nd, const int64_t *s, const char *what) {
    cr_assert_eq(ndim_of(t), nd, "%s: ndim %lld, want %lld", what, (long long)ndim_of(t),
                 (long long)nd);
    for (int64_t d = 0; d < nd; d++)
        cr_assert_eq(sizes_of(t)[d], s[d], "%s: size[%lld] = %lld, want %lld", what, (long long)d,
                     (long long)sizes_of(t)[d], (long long)s[d]);
}
static inline bool same_storage(T a, T b) {
    void *pa, *pb;
    OK(aoti_torch_get_data_ptr(a, &pa));
    OK(aoti_torch_get_data_ptr(b, &pb));
    int64_t oa, ob;
    OK(aoti_torch_get_storage_offset(a, &oa));
    OK(aoti_torch_get_storage_offset(b, &ob));
    size_t ea = aoti_torch_dtype_element_size(dtype_of(a));
    size_t eb = aoti_torch_dtype_element_size(dtype_of(b));
    return (char *)pa - oa * (int64_t)ea == (char *)pb - ob * (int64_t)eb;
}
static inline bool is_contig(T t) {
    bool c;
    OK(aoti_torch_is_contiguous(t, &c));
    return c;
}

/* ---- the dispatcher path: stacks --------------------------------------------------- */
typedef struct stk {
    StableIValue v[16];
    const char *ty[16]; /* schema type of each argument, to release it after a failure */
    int n;
} stk;

static inline void put(stk *s, const char *ty, StableIValue v) {
    cr_assert_lt(s->n, 16);
    s->ty[s->n] = ty;
    s->v[s->n++] = v;
}
/* A Tensor argument: a new reference (the stack owns it). A bad handle (NULL, freed: a
 * bad input under test) goes on the stack as it is, owned by nobody (type NULL: run()
 * does not release it). */
static inline StableIValue sv_tensor(T t) {
    T c = NULL;
    OK(aoti_torch_new_tensor_handle(t, &c));
    return siv_from_tensor(c);
}
static inline void put_tensor(stk *s, T t) {
    T c = NULL;
    if (t && aoti_torch_new_tensor_handle(t, &c) == AOTI_TORCH_SUCCESS)
        put(s, "Tensor", siv_from_tensor(c));
    else
        put(s, NULL, siv_from_tensor(t));
}
/* A Scalar: an int scalar when the value is integral, else a double one (both kinds must
 * work; the shims take a double). */
static inline StableIValue sv_scalar(double x) {
    ScalarHandle h = NULL;
    if (x == trunc(x) && fabs(x) < 9e15)
        OK(torch_new_scalar_int((int64_t)x, &h));
    else
        OK(torch_new_scalar_double(x, &h));
    return siv_from_scalar(h);
}
static inline StableIValue sv_int_list(const int64_t *x, int64_t n) {
    StableListHandle l = NULL;
    OK(torch_new_list_reserve_size((size_t)n, &l));
    for (int64_t i = 0; i < n; i++) OK(torch_list_push_back(l, siv_from_int(x[i])));
    return siv_from_list(l);
}
static inline StableIValue sv_str(const char *x) {
    StringHandle h = NULL;
    OK(torch_new_string_handle(x, strlen(x), &h));
    return siv_from_string(h);
}
/* `T?` present: a heap cell holding v. */
static inline StableIValue sv_some(StableIValue v) {
    StableIValue o = 0;
    OK(siv_new_optional(v, &o));
    return o;
}
static inline StableIValue sv_opt_code(const int32_t *c) {
    return c ? sv_some(siv_from_code_(*c)) : siv_none();
}
static inline StableIValue sv_opt_bool(const int32_t *b) {
    return b ? sv_some(siv_from_bool(*b != 0)) : siv_none();
}

enum ret_kind { RET_NEW, RET_ALIAS };
/* Calls op/overload with the stack. On success: RET_NEW hands stack[0] to *ret (or frees
 * it when ret is NULL); RET_ALIAS checks that the op returned the very reference it got
 * as argument 0 (a `Tensor(a!)` return) and frees it. On failure: releases every argument
 * still on the stack by its type (a kernel that failed zeroed what it consumed; a call
 * that failed before the kernel left the stack untouched); a double release fails. */
static inline AOTITorchError run(stk *s, const char *op, const char *ov, enum ret_kind k, T *ret) {
    StableIValue arg0 = s->v[0];
    e2e_dispatch_msg[0] = 0;
    AOTITorchError err = torch_call_dispatcher(op, ov, s->v, TORCH_ABI_VERSION);
    if (err != AOTI_TORCH_SUCCESS) {
        snprintf(e2e_dispatch_msg, sizeof e2e_dispatch_msg, "%s", torch_exception_get_what());
        for (int i = 0; i < s->n; i++)
            if (s->ty[i])
                cr_assert_eq(shimrt_siv_release(s->ty[i], s->v[i]), AOTI_TORCH_SUCCESS,
                             "%s: releasing argument %d (%s) after a failed call: %s", op, i,
                             s->ty[i], torch_exception_get_what());
        return err;
    }
    if (k == RET_ALIAS) {
        cr_assert_eq(s->v[0], arg0, "%s.%s: the in-place op must return its self argument", op, ov);
        OK(aoti_torch_delete_tensor_object(siv_to_tensor(s->v[0])));
    } else if (ret) {
        *ret = siv_to_tensor(s->v[0]);
    } else {
        OK(aoti_torch_delete_tensor_object(siv_to_tensor(s->v[0])));
    }
    return err;
}

/* ---- the 30 ops, routed by path (arguments in the direct shim's C form) ------------- */
#define ROUTE(p, cname, ...)                                                                       \
    do {                                                                                           \
        if ((p) == DIRECT) return aoti_torch_cpu_##cname(__VA_ARGS__);                             \
        if ((p) == ATEN) return aoti_torch_aten_##cname(__VA_ARGS__);                              \
    } while (0)

static inline AOTITorchError e2e_empty_like(int p, T self, int32_t *dtype, int32_t *layout,
                                            int32_t *device, int32_t device_index,
                                            int32_t *pin_memory, int32_t *memory_format, T *r) {
    ROUTE(p, empty_like, self, dtype, layout, device, device_index, pin_memory, memory_format, r);
    stk s = {0};
    put_tensor(&s, (self));
    put(&s, "ScalarType?", sv_opt_code(dtype));
    put(&s, "Layout?", sv_opt_code(layout));
    put(&s, "Device?", device ? sv_some(siv_from_device(*device, device_index)) : siv_none());
    put(&s, "bool?", sv_opt_bool(pin_memory));
    put(&s, "MemoryFormat?", sv_opt_code(memory_format));
    return run(&s, "aten::empty_like", "", RET_NEW, r);
}
static inline void put_new_args(stk *s, T self, const int64_t *size, int64_t n, int32_t *dtype,
                                int32_t *layout, int32_t *device, int32_t device_index,
                                int32_t *pin_memory) {
    put_tensor(s, self);
    put(s, "SymInt[]", sv_int_list(size, n));
    put(s, "ScalarType?", sv_opt_code(dtype));
    put(s, "Layout?", sv_opt_code(layout));
    put(s, "Device?", device ? sv_some(siv_from_device(*device, device_index)) : siv_none());
    put(s, "bool?", sv_opt_bool(pin_memory));
}
static inline AOTITorchError e2e_new_empty(int p, T self, const int64_t *size, int64_t n,
                                           int32_t *dtype, T *r) {
    ROUTE(p, new_empty, self, size, n, dtype, NULL, NULL, -1, NULL, r);
    stk s = {0};
    put_new_args(&s, self, size, n, dtype, NULL, NULL, -1, NULL);
    return run(&s, "aten::new_empty", "", RET_NEW, r);
}
static inline AOTITorchError e2e_new_zeros(int p, T self, const int64_t *size, int64_t n,
                                           int32_t *dtype, int32_t *device, T *r) {
    ROUTE(p, new_zeros, self, size, n, dtype, NULL, device, 0, NULL, r);
    stk s = {0};
    put_new_args(&s, self, size, n, dtype, NULL, device, 0, NULL);
    return run(&s, "aten::new_zeros", "", RET_NEW, r);
}
static inline AOTITorchError e2e_fill_(int p, T self, double value) {
    ROUTE(p, fill__Scalar, self, value);
    stk s = {0};
    put_tensor(&s, (self));
    put(&s, "Scalar", sv_scalar(value));
    return run(&s, "aten::fill_", "Scalar", RET_ALIAS, NULL);
}
static inline AOTITorchError e2e_zero_(int p, T self) {
    ROUTE(p, zero_, self);
    stk s = {0};
    put_tensor(&s, (self));
    return run(&s, "aten::zero_", "", RET_ALIAS, NULL);
}
static inline AOTITorchError e2e_copy_(int p, T self, T src, int32_t non_blocking) {
    ROUTE(p, copy_, self, src, non_blocking);
    stk s = {0};
    put_tensor(&s, (self));
    put_tensor(&s, (src));
    put(&s, "bool", siv_from_bool(non_blocking != 0));
    return run(&s, "aten::copy_", "", RET_ALIAS, NULL);
}
static inline AOTITorchError e2e_clone(int p, T self, int32_t *memory_format, T *r) {
    ROUTE(p, clone, self, memory_format, r);
    stk s = {0};
    put_tensor(&s, (self));
    put(&s, "MemoryFormat?", sv_opt_code(memory_format));
    return run(&s, "aten::clone", "", RET_NEW, r);
}
static inline AOTITorchError e2e_contiguous(int p, T self, int32_t memory_format, T *r) {
    ROUTE(p, contiguous, self, memory_format, r);
    stk s = {0};
    put_tensor(&s, (self));
    put(&s, "MemoryFormat", siv_from_memory_format(memory_format));
    return run(&s, "aten::contiguous", "", RET_NEW, r);
}
/* view, reshape, permute: (Tensor self, int-list) -> Tensor */
static inline AOTITorchError e2e_list_op(const char *name, const char *lty, T self,
                                         const int64_t *x, int64_t n, T *r) {
    stk s = {0};
    put_tensor(&s, (self));
    put(&s, lty, sv_int_list(x, n));
    return run(&s, name, "", RET_NEW, r);
}
static inline AOTITorchError e2e_view(int p, T self, const int64_t *size, int64_t n, T *r) {
    ROUTE(p, view, self, size, n, r);
    return e2e_list_op("aten::view", "SymInt[]", self, size, n, r);
}
static inline AOTITorchError e2e_reshape(int p, T self, const int64_t *shape, int64_t n, T *r) {
    ROUTE(p, reshape, self, shape, n, r);
    return e2e_list_op("aten::reshape", "SymInt[]", self, shape, n, r);
}
static inline AOTITorchError e2e_permute(int p, T self, const int64_t *dims, int64_t n, T *r) {
    ROUTE(p, permute, self, dims, n, r);
    return e2e_list_op("aten::permute", "int[]", self, dims, n, r);
}
/* transpose.int, narrow, select.int, squeeze.dim, unsqueeze, flatten.using_ints:
 * (Tensor self, int...) -> Tensor */
static inline AOTITorchError e2e_int_op(const char *name, const char *ov, T self, int n, int64_t a,
                                        int64_t b, int64_t c, T *r) {
    stk s = {0};
    put_tensor(&s, (self));
    int64_t x[3] = {a, b, c};
    for (int i = 0; i < n; i++) put(&s, i == 0 ? "int" : "SymInt", siv_from_int(x[i]));
    return run(&s, name, ov, RET_NEW, r);
}
static inline AOTITorchError e2e_transpose(int p, T self, int64_t d0, int64_t d1, T *r) {
    ROUTE(p, transpose_int, self, d0, d1, r);
    return e2e_int_op("aten::transpose", "int", self, 2, d0, d1, 0, r);
}
static inline AOTITorchError e2e_narrow(int p, T self, int64_t dim, int64_t start, int64_t len,
                                        T *r) {
    ROUTE(p, narrow, self, dim, start, len, r);
    return e2e_int_op("aten::narrow", "", self, 3, dim, start, len, r);
}
static inline AOTITorchError e2e_select(int p, T self, int64_t dim, int64_t index, T *r) {
    ROUTE(p, select_int, self, dim, index, r);
    return e2e_int_op("aten::select", "int", self, 2, dim, index, 0, r);
}
static inline AOTITorchError e2e_squeeze(int p, T self, int64_t dim, T *r) {
    ROUTE(p, squeeze_dim, self, dim, r);
    return e2e_int_op("aten::squeeze", "dim", self, 1, dim, 0, 0, r);
}
static inline AOTITorchError e2e_unsqueeze(int p, T self, int64_t dim, T *r) {
    ROUTE(p, unsqueeze, self, dim, r);
    return e2e_int_op("aten::unsqueeze", "", self, 1, dim, 0, 0, r);
}
static inline AOTITorchError e2e_flatten(int p, T self, int64_t start, int64_t end, T *r) {
    ROUTE(p, flatten_using_ints, self, start, end, r);
    return e2e_int_op("aten::flatten", "using_ints", self, 2, start, end, 0, r);
}
static inline AOTITorchError e2e_pad(int p, T self, const int64_t *pad, int64_t n, const char *mode,
                                     double *value, T *r) {
    ROUTE(p, pad, self, pad, n, mode, value, r);
    stk s = {0};
    put_tensor(&s, (self));
    put(&s, "SymInt[]", sv_int_list(pad, n));
    put(&s, "str", sv_str(mode));
    put(&s, "float?", value ? sv_some(siv_from_double(*value)) : siv_none());
    return run(&s, "aten::pad", "", RET_NEW, r);
}

typedef enum { ADD, SUB, MUL, DIV } bop;
static const char *const bop_key[] = {"add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor"};
static const char *const bop_cname[] = {"add_Tensor", "sub_Tensor", "mul_Tensor", "div_Tensor"};
static inline AOTITorchError e2e_binop(int p, bop op, T a, T b, double alpha, T *r) {
    if (p == DIRECT || p == ATEN) {
        bool d = p == DIRECT;
        switch (op) {
        case ADD:
            return d ? aoti_torch_cpu_add_Tensor(a, b, alpha, r)
                     : aoti_torch_aten_add_Tensor(a, b, alpha, r);
        case SUB:
            return d ? aoti_torch_cpu_sub_Tensor(a, b, alpha, r)
                     : aoti_torch_aten_sub_Tensor(a, b, alpha, r);
        case MUL:
            return d ? aoti_torch_cpu_mul_Tensor(a, b, r) : aoti_torch_aten_mul_Tensor(a, b, r);
        default:
            return d ? aoti_torch_cpu_div_Tensor(a, b, r) : aoti_torch_aten_div_Tensor(a, b, r);
        }
    }
    static const char *const names[] = {"aten::add", "aten::sub", "aten::mul", "aten::div"};
    stk s = {0};
    put_tensor(&s, (a));
    put_tensor(&s, (b));
    if (op == ADD || op == SUB) put(&s, "Scalar", sv_scalar(alpha));
    return run(&s, names[op], "Tensor", RET_NEW, r);
}
static inline AOTITorchError e2e_add_scalar(int p, T self, double other, double alpha, T *r) {
    ROUTE(p, add_Scalar, self, other, alpha, r);
    stk s = {0};
    put_tensor(&s, (self));
    put(&s, "Scalar", sv_scalar(other));
    put(&s, "Scalar", sv_scalar(alpha));
    return run(&s, "aten::add", "Scalar", RET_NEW, r);
}
typedef enum { NEG, RELU, EXP } uop;
static const char *const uop_key[] = {"neg", "relu", "exp"};
static inline AOTITorchError e2e_unary(int p, uop op, T self, T *r) {
    if (p == DIRECT)
        return op == NEG    ? aoti_torch_cpu_neg(self, r)
               : op == RELU ? aoti_torch_cpu_relu(self, r)
                            : aoti_torch_cpu_exp(self, r);
    if (p == ATEN)
        return op == NEG    ? aoti_torch_aten_neg(self, r)
               : op == RELU ? aoti_torch_aten_relu(self, r)
                            : aoti_torch_aten_exp(self, r);
    static const char *const names[] = {"aten::neg", "aten::relu", "aten::exp"};
    stk s = {0};
    put_tensor(&s, (self));
    return run(&s, names[op], "", RET_NEW, r);
}
/* dim: NULL for None (the shim's `const int64_t **` form). */
static inline AOTITorchError e2e_sum(int p, T self, const int64_t **dim, int64_t n, int32_t keepdim,
                                     int32_t *dtype, T *r) {
    ROUTE(p, sum_dim_IntList, self, dim, n, keepdim, dtype, r);
    stk s = {0};
    put_tensor(&s, (self));
    put(&s, "int[1]?", dim ? sv_some(sv_int_list(*dim, n)) : siv_none());
    put(&s, "bool", siv_from_bool(keepdim != 0));
    put(&s, "ScalarType?", sv_opt_code(dtype));
    return run(&s, "aten::sum", "dim_IntList", RET_NEW, r);
}
static inline AOTITorchError e2e_amax(int p, T self, const int64_t *dim, int64_t n, int32_t keepdim,
                                      T *r) {
    ROUTE(p, amax, self, dim, n, keepdim, r);
    stk s = {0};
    put_tensor(&s, (self));
    put(&s, "int[1]", sv_int_list(dim, n));
    put(&s, "bool", siv_from_bool(keepdim != 0));
    return run(&s, "aten::amax", "", RET_NEW, r);
}
static inline AOTITorchError e2e_mm(int p, T a, T b, T *r) {
    ROUTE(p, mm, a, b, r);
    stk s = {0};
    put_tensor(&s, (a));
    put_tensor(&s, (b));
    return run(&s, "aten::mm", "", RET_NEW, r);
}
static inline AOTITorchError e2e_to(int p, T self, int32_t dtype, int32_t non_blocking,
                                    int32_t copy, int32_t *memory_format, T *r) {
    ROUTE(p, to_dtype, self, dtype, non_blocking, copy, memory_format, r);
    stk s = {0};
    put_tensor(&s, (self));
    put(&s, "ScalarType", siv_from_scalar_type(dtype));
    put(&s, "bool", siv_from_bool(non_blocking != 0));
    put(&s, "bool", siv_from_bool(copy != 0));
    put(&s, "MemoryFormat?", sv_opt_code(memory_format));
    return run(&s, "aten::to", "dtype", RET_NEW, r);
}
#endif

/* runtime/core/dispatcher.c: the op registry and boxed calls (shimrt/dispatcher.h).
 *
 * The op table is an open-addressing hash table of op pointers. Writers (under
 * shimrt_dispatch_lock) fill empty slots with release stores and, past half full, build a
 * table twice the size, publish it with one atomic pointer store and keep the old one
 * (never freed: a reader may still be probing it). Ops are never freed either; their def
 * and kernel slots are atomics, so a call is: hash, probe, two or three acquire loads,
 * the tensor arguments' devices, the kernel. No lock, no allocation. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cxx_boundary.h"
#include "dispatch_internal.h"

pthread_mutex_t shimrt_dispatch_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct optable {
    size_t mask; /* capacity - 1 (capacity a power of two) */
    size_t count;
    struct optable *retired_next; /* chain of retired tables (writers only) */
    _Atomic(shimrt_op *) slots[];
} optable;

static _Atomic(optable *) g_table;
extern shimrt_pool shimrt_op_pool;
static optable *g_retired;
static sg_arena *g_arena;

sg_arena *shimrt_dispatch_arena(void) {
    if (!g_arena) g_arena = sg_arena_new();
    return g_arena;
}

/* ---- keys ------------------------------------------------------------------------------ */
/* The names, from the list shared with the generator (shimrt/codes.h). */
#define KEY_NAME_(N, name, code) [code] = #name,
static const char *const key_names[SHIMRT_KEY_COUNT] = {SHIMRT_DISPATCH_KEYS(KEY_NAME_)};
#define KEY_SAME_(N, name, code)                                                                   \
    _Static_assert((int)SHIMRT_KEY_##N == SHIMRT_DISPATCH_KEY_##N, "shimrt_key follows codes.h");
SHIMRT_DISPATCH_KEYS(KEY_SAME_)
_Static_assert((int)SHIMRT_KEY_COUNT == (int)SHIMRT_NUM_DISPATCH_KEYS,
               "shimrt_key follows codes.h");

const char *shimrt_key_name(int key) {
    return key >= 0 && key < SHIMRT_KEY_COUNT ? key_names[key] : "Undefined";
}

int shimrt_key_parse(const char *name) {
    if (!name) return -1;
    for (int k = 0; k < SHIMRT_KEY_COUNT; k++) {
        if (strcmp(name, key_names[k]) == 0) return k;
    }
    return -1;
}

/* The device's row's key; PyTorch's key for a device type this runtime has no row for. */
static int key_of_device(int32_t device_type) {
    const shimrt_backend *b = shimrt_backend_of(device_type);
    if (b) return b->dispatch_key;
    switch (device_type) {
    case SHIMRT_DEV_MPS: return SHIMRT_KEY_MPS;
    case SHIMRT_DEV_XPU: return SHIMRT_KEY_XPU;
    case SHIMRT_DEV_PRIVATEUSE1: return SHIMRT_KEY_PRIVATEUSE1;
    default: return -1;
    }
}

/* ---- the op table ----------------------------------------------------------------------- */
static inline uint64_t op_hash(const char *name, const char *overload) {
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h = (h ^ *p) * UINT64_C(0x100000001b3);
    }
    h = (h ^ 0xffu) * UINT64_C(0x100000001b3); /* separator */
    for (const unsigned char *p = (const unsigned char *)overload; *p; p++) {
        h = (h ^ *p) * UINT64_C(0x100000001b3);
    }
    return h ^ (h >> 29);
}

static shimrt_op *table_find(const optable *t, uint64_t h, const char *name, const char *overload) {
    for (size_t i = (size_t)h & t->mask;; i = (i + 1) & t->mask) {
        shimrt_op *op = atomic_load_explicit(&t->slots[i], memory_order_acquire);
        if (!op) return NULL;
        if (op->hash == h && strcmp(op->name, name) == 0 && strcmp(op->overload, overload) == 0) {
            return op;
        }
    }
}

shimrt_op *shimrt_op_lookup(const char *name, const char *overload) {
    const optable *t = atomic_load_explicit(&g_table, memory_order_acquire);
    if (!t) return NULL;
    return table_find(t, op_hash(name, overload), name, overload);
}

static void table_put(optable *t, shimrt_op *op) {
    size_t i = (size_t)op->hash & t->mask;
    while (atomic_load_explicit(&t->slots[i], memory_order_relaxed)) i = (i + 1) & t->mask;
    atomic_store_explicit(&t->slots[i], op, memory_order_release);
    t->count++;
}

static optable *table_new(size_t cap) {
    optable *t = calloc(1, sizeof *t + cap * sizeof t->slots[0]);
    if (!t) return NULL;
    t->mask = cap - 1;
    for (size_t i = 0; i < cap; i++) atomic_init(&t->slots[i], NULL);
    return t;
}

shimrt_op *shimrt_op_get_or_create(const char *name, const char *overload) {
    optable *t = atomic_load_explicit(&g_table, memory_order_relaxed);
    uint64_t h = op_hash(name, overload);
    if (t) {
        shimrt_op *op = table_find(t, h, name, overload);
        if (op) return op;
    }
    if (!t || (t->count + 1) * 2 > t->mask + 1) {
        size_t cap = t ? (t->mask + 1) * 2 : 256;
        optable *nt = table_new(cap);
        if (!nt) return NULL;
        if (t) {
            for (size_t i = 0; i <= t->mask; i++) {
                shimrt_op *o = atomic_load_explicit(&t->slots[i], memory_order_relaxed);
                if (o) table_put(nt, o);
            }
            t->retired_next = g_retired;
            g_retired = t;
        }
        atomic_store_explicit(&g_table, nt, memory_order_release);
        t = nt;
    }
    char *nm = strdup(name), *ov = strdup(overload);
    shimrt_op *op = nm && ov ? shimrt_pool_alloc(&shimrt_op_pool) : NULL;
    if (!op) {
        free(nm);
        free(ov);
        return NULL;
    }
    op->magic = SHIMRT_OP_MAGIC;
    op->name = nm;
    op->overload = ov;
    op->hash = h;
    atomic_init(&op->def, NULL);
    for (int k = 0; k < SHIMRT_KEY_COUNT; k++) atomic_init(&op->kernels[k], NULL);
    table_put(t, op);
    return op;
}

/* The overloads of name other than `except` that are defined, "'a', 'b'" into buf (for
 * messages). */
static void list_overloads(const char *name, const char *except, char *buf, size_t cap) {
    buf[0] = '\0';
    const optable *t = atomic_load_explicit(&g_table, memory_order_acquire);
    if (!t) return;
    size_t used = 0;
    for (size_t i = 0; i <= t->mask; i++) {
        shimrt_op *op = atomic_load_explicit(&t->slots[i], memory_order_acquire);
        if (!op || strcmp(op->name, name) != 0 || strcmp(op->overload, except) == 0) continue;
        if (!atomic_load_explicit(&op->def, memory_order_acquire)) continue;
        int n = snprintf(buf + used, cap - used, "%s'%s'", used ? ", " : "", op->overload);
        if (n < 0 || (size_t)n >= cap - used) return;
        used += (size_t)n;
    }
}

/* ---- kernel failures ---------------------------------------------------------------------- */
static _Thread_local bool tls_kernel_failed;
static _Thread_local char tls_kernel_msg[512];

AOTI_TORCH_EXPORT AOTITorchError shimrt_kernel_fail(const char *fmt, ...) {
    tls_kernel_failed = true;
    if (!fmt) fmt = "(no message)";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tls_kernel_msg, sizeof tls_kernel_msg, fmt, ap);
    va_end(ap);
    /* also visible right away, for a kernel called directly */
    return shimrt_fail("shimrt_kernel_fail", "%s", tls_kernel_msg);
}

/* ---- calls --------------------------------------------------------------------------------- */
static inline const char *ovl_text(const shimrt_op *op) {
    return op->overload[0] ? op->overload : "(default)";
}

/* Folds the backend key of tensor handle t (argument `arg`) into *key. A NULL handle is
 * an error where the schema wants a Tensor (`required`); inside a list it is an undefined
 * tensor, which carries no key. */
static AOTITorchError fold_tensor(const char *func, const shimrt_op *op, const shimrt_opdef *d,
                                  uint32_t arg, AtenTensorHandle t, bool required, int *key) {
    if (!t && !required) return AOTI_TORCH_SUCCESS;
    if (!t || !shimrt_tensor_valid(t)) {
        return shimrt_fail(func, "op %s overload %s, position %u: %s", op->name, ovl_text(op), arg,
                           shimrt_tensor_invalid_reason(t, d->schema->args[arg].name));
    }
    int k = key_of_device(t->device_type);
    if (k < 0) {
        return shimrt_fail(func,
                           "op %s overload %s: argument %u ('%s') is on device type %d, "
                           "which has no dispatch key",
                           op->name, ovl_text(op), arg, d->schema->args[arg].name,
                           (int)t->device_type);
    }
    if (k > *key) *key = k;
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError compute_key(const char *func, const shimrt_op *op, const shimrt_opdef *d,
                                  const StableIValue *stack, int *key) {
    *key = -1;
    for (uint32_t i = 0; i < d->n_tensor_args; i++) {
        const shimrt_tensor_arg *ta = &d->tensor_args[i];
        StableIValue v = stack[ta->index];
        switch (ta->kind) {
        case SHIMRT_TA_TENSOR:
            if (fold_tensor(func, op, d, ta->index, (AtenTensorHandle)(uintptr_t)v, true, key)) {
                return AOTI_TORCH_FAILURE;
            }
            break;
        case SHIMRT_TA_OPTIONAL:
            if (v && fold_tensor(func, op, d, ta->index,
                                 (AtenTensorHandle)(uintptr_t) * (const StableIValue *)(uintptr_t)v,
                                 true, key)) {
                return AOTI_TORCH_FAILURE;
            }
            break;
        default: { /* lists */
            StableListHandle l = (StableListHandle)(uintptr_t)v;
            if (!shimrt_list_valid(l)) {
                return shimrt_fail(func, "op %s overload %s: argument %u ('%s') list handle %s",
                                   op->name, ovl_text(op), ta->index,
                                   d->schema->args[ta->index].name,
                                   shimrt_handle_problem(&shimrt_list_pool, l, SHIMRT_LIST_MAGIC));
            }
            for (size_t j = 0; j < l->size; j++) {
                StableIValue item = l->items[j];
                if (ta->kind == SHIMRT_TA_OPTIONAL_LIST) {
                    if (!item) continue;
                    item = *(const StableIValue *)(uintptr_t)item;
                }
                if (fold_tensor(func, op, d, ta->index, (AtenTensorHandle)(uintptr_t)item,
                                ta->kind != SHIMRT_TA_OPTIONAL_LIST, key)) {
                    return AOTI_TORCH_FAILURE;
                }
            }
        }
        }
    }
    return AOTI_TORCH_SUCCESS;
}

static void registered_keys(const shimrt_op *op, char *buf, size_t cap) {
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < SHIMRT_KEY_COUNT; k++) {
        if (!atomic_load_explicit(&op->kernels[k], memory_order_acquire)) continue;
        int n = snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", key_names[k]);
        if (n < 0 || (size_t)n >= cap - used) return;
        used += (size_t)n;
    }
}

/* PyTorch's rule: once the op is found, the dispatcher owns the stack's arguments, and a
 * call that fails before its kernel ran has released them. Frees what each argument owns
 * (a stale or garbage handle inside is skipped safely: every free checks its pool) and
 * zeroes the slots. Keeps the thread's message. */
static void release_args(const shimrt_opdef *d, StableIValue *stack) {
    char saved[1024];
    snprintf(saved, sizeof saved, "%s", torch_exception_get_what());
    for (uint32_t i = 0; i < d->n_args; i++) {
        shimrt_siv_release_type("torch_call_dispatcher", d->schema->args[i].type, stack[i]);
        stack[i] = 0;
    }
    shimrt_set_error_text(saved);
}

/* PyTorch's BackendSelect for factory ops (no tensor argument, a `Device?`/`Device`
 * argument among the TensorOptions): the device argument's key, CPU when it is None.
 * Ops without a device argument keep no key (-1). The optional's cell was made by
 * torch_new_stable_ivalue or the extension's `new`; it is read, never freed, here. */
static int backend_select(const shimrt_opdef *d, const StableIValue *stack) {
    for (uint32_t i = 0; i < d->n_args; i++) {
        const sg_type *t = d->schema->args[i].type;
        bool opt = t->kind == SG_TY_OPTIONAL;
        const sg_type *b = opt ? t->elem : t;
        if (b->kind != SG_TY_BASE || b->base != SG_BT_DEVICE) continue;
        StableIValue v = stack[i];
        if (opt) {
            if (!v) return SHIMRT_KEY_CPU;
            v = *(const StableIValue *)(uintptr_t)v;
        }
        int k = key_of_device(siv_to_device_type(v));
        return k < 0 ? SHIMRT_KEY_CPU : k;
    }
    return -1;
}

/* ---- optional cells and complex cells on the stack ----------------------------------- */
/* NULL when every optional cell and complex cell inside v (of type t) is live, else why
 * not. A cell the registry does not know may be an extension's `new StableIValue` (headers
 * targeting PyTorch < 2.13; they pass the same extension_build_version as newer ones, so
 * the caller cannot be told apart): it is adopted as live when it can be a heap pointer. A
 * freed cell of ours, a stack address or a wild value is refused. */
static const char *check_value(const sg_type *t, StableIValue v, int depth) {
    if (depth > 16) return NULL;
    switch (t->kind) {
    case SG_TY_OPTIONAL: {
        if (!v) return NULL;
        StableIValue *cell = (StableIValue *)(uintptr_t)v;
        const char *why = shimrt_cell_problem(cell);
        if (why && !(strcmp(why, "was freed") != 0 && shimrt_cell_adopt(cell))) return why;
        return check_value(t->elem, *cell, depth + 1);
    }
    case SG_TY_LIST: {
        StableListHandle l = (StableListHandle)(uintptr_t)v;
        if (!shimrt_list_valid(l)) return NULL; /* reported by whoever reads the list */
        for (size_t i = 0; i < l->size; i++) {
            const char *why = check_value(t->elem, l->items[i], depth + 1);
            if (why) return why;
        }
        return NULL;
    }
    default:
        if (t->base == SG_BT_COMPLEX && v)
            return shimrt_complex_problem((const ShimrtComplex *)(uintptr_t)v);
        return NULL;
    }
}

static AOTITorchError check_cells(const char *func, const shimrt_op *op, const shimrt_opdef *d,
                                  const StableIValue *stack) {
    for (uint32_t i = 0; i < d->n_args; i++) {
        const sg_type *t = d->schema->args[i].type;
        if (t->kind == SG_TY_BASE && t->base != SG_BT_COMPLEX) continue;
        const char *why = check_value(t, stack[i], 0);
        if (why) {
            return shimrt_fail(func, "op %s overload %s: argument %u ('%s'): a cell %s", op->name,
                               ovl_text(op), i, d->schema->args[i].name, why);
        }
    }
    return AOTI_TORCH_SUCCESS;
}

/* A Device (or present Device?) value whose index does not fit c10::DeviceIndex (int8):
 * PyTorch refuses it where it turns the value into a c10::Device. */
static bool device_index_out_of_range(const sg_type *t, StableIValue v, int32_t *index) {
    bool opt = t->kind == SG_TY_OPTIONAL;
    const sg_type *b = opt ? t->elem : t;
    if (b->kind != SG_TY_BASE || b->base != SG_BT_DEVICE || (opt && !v)) return false;
    *index = siv_to_device_index(opt ? *(const StableIValue *)(uintptr_t)v : v);
    return *index < INT8_MIN || *index > INT8_MAX;
}

/* After a kernel returned: optional cells it made with `new` (see check_value) become
 * known, so the caller may free them with torch_delete_stable_ivalue. */
static void adopt_return_cells(const shimrt_opdef *d, StableIValue *stack) {
    for (uint32_t r = 0; r < d->n_rets; r++) {
        const sg_type *t = d->schema->rets[r].type;
        if (t->kind != SG_TY_BASE) (void)check_value(t, stack[r], 0);
    }
}

/* Whether the last dispatch call of this thread took ownership of its arguments (the op
 * was found and defined): see shimrt_dispatch_took_args. */
static _Thread_local bool tls_took_args;

bool shimrt_dispatch_took_args(void) { return tls_took_args; }

/* ---- the backend fallback (torch.library's m.fallback; PyTorch's MPS CPU fallback) ------ */
/* Keys whose ops without a kernel of their own (and no composite) run on the CPU kernel:
 * tensor arguments on the key's device are copied to the host, the CPU kernel runs, the
 * returned tensors are copied back to the device of the first such argument, and mutated
 * `Tensor(a!)` arguments get the host result written back. */
static _Atomic(bool) g_cpu_fallback[SHIMRT_KEY_COUNT];

void shimrt_dispatch_set_cpu_fallback(int key, bool on) {
    if (key >= 0 && key < SHIMRT_KEY_FIRST_COMPOSITE && key != SHIMRT_KEY_CPU)
        atomic_store_explicit(&g_cpu_fallback[key], on, memory_order_release);
}

typedef struct fb_moved {
    StableIValue *slot;    /* where the host copy now sits */
    AtenTensorHandle orig; /* the device tensor (owned by the fallback now) */
    AtenTensorHandle host; /* mutable arguments: a second handle of the host copy */
    const sg_annotation *ann;
} fb_moved;

typedef struct fb_state {
    fb_moved *v;
    size_t n, cap;
    int32_t dev_type, dev_index; /* the first moved tensor's device */
} fb_state;

/* src on another device, as PyTorch's fallback moves tensors (Tensor.to, preserve_format):
 * src's own strides when it is non-overlapping and dense (a channels-last or transposed
 * tensor keeps its layout both ways), contiguous otherwise. */
static AtenTensorHandle fb_copy_to(const char *func, AtenTensorHandle src, int32_t dev_type,
                                   int32_t dev_index) {
    AtenTensorHandle t =
        shimrt_tensor_empty(func, src->ndim, src->sizes, shimrt_k_dense(src) ? src->strides : NULL,
                            src->dtype, dev_type, dev_index);
    if (!t) return NULL;
    if (shimrt_backend_copy(func, t, src)) {
        shimrt_tensor_free(t);
        return NULL;
    }
    return t;
}

/* Moves the tensor in *slot to the host when it is on the fallback's device type. */
static AOTITorchError fb_move(const char *func, fb_state *st, int32_t dev_type, StableIValue *slot,
                              const sg_annotation *ann) {
    AtenTensorHandle t = (AtenTensorHandle)(uintptr_t)*slot;
    if (!t || !shimrt_tensor_valid(t) || t->device_type != dev_type) return AOTI_TORCH_SUCCESS;
    if (st->n == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 8;
        fb_moved *v = realloc(st->v, cap * sizeof *v);
        if (!v) return shimrt_fail(func, "out of memory");
        st->v = v;
        st->cap = cap;
    }
    AtenTensorHandle h = fb_copy_to(func, t, SHIMRT_DEV_CPU, 0);
    if (!h) return AOTI_TORCH_FAILURE;
    AtenTensorHandle alias = NULL;
    if (ann && ann->is_write && aoti_torch_new_tensor_handle(h, &alias)) {
        shimrt_tensor_free(h);
        return AOTI_TORCH_FAILURE;
    }
    if (!st->n) {
        st->dev_type = t->device_type;
        st->dev_index = t->device_index;
    }
    st->v[st->n++] = (fb_moved){slot, t, alias, ann};
    *slot = (StableIValue)(uintptr_t)h;
    return AOTI_TORCH_SUCCESS;
}

static void fb_free(fb_state *st) {
    for (size_t i = 0; i < st->n; i++) {
        shimrt_tensor_free(st->v[i].orig);
        shimrt_tensor_free(st->v[i].host);
    }
    free(st->v);
}

static bool same_alias(const sg_annotation *a, const sg_annotation *b) {
    return a && b && a->n_alias_set > 0 && b->n_alias_set > 0 &&
           strcmp(a->alias_set[0], b->alias_set[0]) == 0;
}

/* A returned host tensor in *slot: the device argument it aliases (a new handle of it),
 * else a device copy. */
static AOTITorchError fb_return(const char *func, fb_state *st, const sg_annotation *ann,
                                StableIValue *slot) {
    AtenTensorHandle h = (AtenTensorHandle)(uintptr_t)*slot;
    if (!h || !shimrt_tensor_valid(h) || h->device_type != SHIMRT_DEV_CPU)
        return AOTI_TORCH_SUCCESS;
    AtenTensorHandle d = NULL;
    for (size_t i = 0; i < st->n && !d; i++)
        if (st->v[i].host && same_alias(st->v[i].ann, ann) &&
            aoti_torch_new_tensor_handle(st->v[i].orig, &d))
            return AOTI_TORCH_FAILURE;
    if (!d) d = fb_copy_to(func, h, st->dev_type, st->dev_index);
    if (!d) return AOTI_TORCH_FAILURE;
    shimrt_tensor_free(h);
    *slot = (StableIValue)(uintptr_t)d;
    return AOTI_TORCH_SUCCESS;
}

/* A factory op on the fallback (no tensor argument; BackendSelect chose the key from its
 * `Device`/`Device?` argument): that argument becomes the CPU, so the CPU kernel makes the
 * result on the host; its device index (-1: the current device) is where the result goes.
 * The dispatcher owns the stack's arguments (and the optional's cell) during the call. */
static int32_t fb_factory_device(const shimrt_opdef *d, StableIValue *stack, int32_t dev_type) {
    for (uint32_t i = 0; i < d->n_args; i++) {
        const sg_type *t = d->schema->args[i].type;
        bool opt = t->kind == SG_TY_OPTIONAL;
        const sg_type *b = opt ? t->elem : t;
        if (b->kind != SG_TY_BASE || b->base != SG_BT_DEVICE) continue;
        StableIValue *v = &stack[i];
        if (opt && !*v) return -1;
        if (opt) v = (StableIValue *)(uintptr_t)*v;
        if (siv_to_device_type(*v) != dev_type) return -1;
        int32_t idx = siv_to_device_index(*v);
        *v = siv_from_device(SHIMRT_DEV_CPU, -1);
        return idx;
    }
    return -1;
}

static AOTITorchError cpu_fallback(const char *func, shimrt_op *op, const shimrt_opdef *d,
                                   StableIValue *stack, int key, ShimrtBoxedKernel cpu) {
    fb_state st = {0};
    const shimrt_backend *row = shimrt_backend_of_key(key);
    int32_t dev_type = row ? row->device_type : -1;
    AOTITorchError rc = AOTI_TORCH_SUCCESS;
    for (uint32_t i = 0; !rc && i < d->n_tensor_args; i++) {
        const shimrt_tensor_arg *ta = &d->tensor_args[i];
        const sg_annotation *ann = d->schema->args[ta->index].annotation;
        StableIValue *slot = &stack[ta->index];
        switch (ta->kind) {
        case SHIMRT_TA_TENSOR: rc = fb_move(func, &st, dev_type, slot, ann); break;
        case SHIMRT_TA_OPTIONAL:
            if (*slot) rc = fb_move(func, &st, dev_type, (StableIValue *)(uintptr_t)*slot, ann);
            break;
        default: {
            StableListHandle l = (StableListHandle)(uintptr_t)*slot;
            for (size_t j = 0; !rc && j < l->size; j++) {
                StableIValue *it = &l->items[j];
                if (ta->kind == SHIMRT_TA_OPTIONAL_LIST) {
                    if (!*it) continue;
                    it = (StableIValue *)(uintptr_t)*it;
                }
                rc = fb_move(func, &st, dev_type, it, ann);
            }
        }
        }
    }
    if (rc) { /* put the device tensors back; the caller releases the arguments */
        char saved[1024];
        snprintf(saved, sizeof saved, "%s", torch_exception_get_what());
        for (size_t i = st.n; i-- > 0;) {
            shimrt_tensor_free((AtenTensorHandle)(uintptr_t)*st.v[i].slot);
            *st.v[i].slot = (StableIValue)(uintptr_t)st.v[i].orig;
            st.v[i].orig = NULL;
        }
        fb_free(&st);
        shimrt_set_error_text(saved);
        release_args(d, stack);
        return AOTI_TORCH_FAILURE;
    }
    if (!st.n) { /* a factory op: the CPU kernel makes it on the host, the result moves */
        st.dev_type = dev_type;
        st.dev_index = fb_factory_device(d, stack, dev_type);
    }
    tls_kernel_failed = false;
    char what[4096];
    if (shimrt_cxx_call_kernel(cpu, stack, d->n_args, d->n_rets, what, sizeof what)) {
        tls_kernel_failed = false;
        fb_free(&st);
        shimrt_set_error_text(what); /* what() verbatim, as libtorch's boundary */
        return AOTI_TORCH_FAILURE;
    }
    if (tls_kernel_failed) {
        tls_kernel_failed = false;
        fb_free(&st);
        return shimrt_fail(func, "op %s overload %s (key %s, CPU fallback): kernel failed: %s",
                           op->name, ovl_text(op), shimrt_key_name(key), tls_kernel_msg);
    }
    /* mutated arguments: the host result back into the device tensor */
    for (size_t i = 0; !rc && i < st.n; i++)
        if (st.v[i].host) /* the kernel may have resized it (an out argument) */
            rc =
                shimrt_resize_output(func, st.v[i].orig, st.v[i].host->ndim, st.v[i].host->sizes) ||
                shimrt_backend_copy(func, st.v[i].orig, st.v[i].host);
    for (uint32_t r = 0; !rc && r < d->n_rets; r++) {
        const sg_return *ret = &d->schema->rets[r];
        const sg_type *t = ret->type;
        if (t->kind == SG_TY_OPTIONAL) t = t->elem;
        if (t->kind == SG_TY_BASE && t->base == SG_BT_TENSOR) {
            rc = fb_return(func, &st, ret->annotation, &stack[r]);
        } else if (t->kind == SG_TY_LIST && t->elem->kind == SG_TY_BASE &&
                   t->elem->base == SG_BT_TENSOR && stack[r]) {
            StableListHandle l = (StableListHandle)(uintptr_t)stack[r];
            for (size_t j = 0; !rc && j < l->size; j++)
                rc = fb_return(func, &st, ret->annotation, &l->items[j]);
        }
    }
    fb_free(&st);
    if (rc) {
        char saved[1024];
        snprintf(saved, sizeof saved, "%s", torch_exception_get_what());
        for (uint32_t r = 0; r < d->n_rets; r++) {
            shimrt_siv_release_type(func, d->schema->rets[r].type, stack[r]);
            stack[r] = 0;
        }
        return shimrt_fail(func, "op %s overload %s (key %s, CPU fallback): %s", op->name,
                           ovl_text(op), shimrt_key_name(key), saved);
    }
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError op_call(const char *func, shimrt_op *op, StableIValue *stack) {
    tls_took_args = false;
    const shimrt_opdef *d = atomic_load_explicit(&op->def, memory_order_acquire);
    if (!d) {
        return shimrt_fail(func,
                           "op %s overload %s is not defined (kernels may exist but no "
                           "schema: its library was deleted or never loaded)",
                           op->name, ovl_text(op));
    }
    if (!stack && (d->n_args || d->n_rets)) {
        return shimrt_fail(func, "op %s overload %s: argument 'stack' is NULL", op->name,
                           ovl_text(op));
    }
    tls_took_args = true;
    /* Cells first: everything below may read them. */
    if (check_cells(func, op, d, stack)) {
        release_args(d, stack);
        return AOTI_TORCH_FAILURE;
    }
    int key = -1;
    if (d->n_tensor_args && compute_key(func, op, d, stack, &key)) {
        release_args(d, stack);
        return AOTI_TORCH_FAILURE;
    }
    if (key < 0) key = backend_select(d, stack);
    ShimrtBoxedKernel fn = NULL;
    int used = key; /* the key whose kernel runs */
    if (key >= 0) fn = atomic_load_explicit(&op->kernels[key], memory_order_acquire);
    for (int k = SHIMRT_KEY_FIRST_COMPOSITE; !fn && k < SHIMRT_KEY_COUNT; k++) {
        fn = atomic_load_explicit(&op->kernels[k], memory_order_acquire);
        used = k;
    }
    if (!fn && key >= 0 && atomic_load_explicit(&g_cpu_fallback[key], memory_order_acquire)) {
        ShimrtBoxedKernel cpu =
            atomic_load_explicit(&op->kernels[SHIMRT_KEY_CPU], memory_order_acquire);
        if (cpu) return cpu_fallback(func, op, d, stack, key, cpu);
    }
    if (!fn) {
        char keys[200];
        registered_keys(op, keys, sizeof keys);
        shimrt_fail(func,
                    "op %s overload %s has no kernel for dispatch key %s%s "
                    "(registered: [%s])",
                    op->name, ovl_text(op), shimrt_key_name(key),
                    key < 0 ? " (no tensor arguments) and no composite kernel" : "", keys);
        release_args(d, stack);
        return AOTI_TORCH_FAILURE;
    }
    tls_kernel_failed = false;
    char what[4096];
    /* A C++ kernel may throw (PyTorch's stable headers do): caught in C++, never let
     * through C frames; its arguments were owned by C++ objects that unwinding freed. The
     * message is what() verbatim, as libtorch's torch_call_dispatcher leaves it (an
     * extension's STD_TORCH_CHECK text reaches its caller unchanged). */
    if (shimrt_cxx_call_kernel(fn, stack, d->n_args, d->n_rets, what, sizeof what)) {
        tls_kernel_failed = false;
        shimrt_set_error_text(what);
        return AOTI_TORCH_FAILURE;
    }
    if (tls_kernel_failed) {
        tls_kernel_failed = false;
        return shimrt_fail(func, "op %s overload %s (key %s, kernel of %s): kernel failed: %s",
                           op->name, ovl_text(op), shimrt_key_name(key), shimrt_key_name(used),
                           tls_kernel_msg);
    }
    adopt_return_cells(d, stack);
    for (uint32_t r = 0; r < d->n_rets; r++) {
        int32_t idx;
        if (!device_index_out_of_range(d->schema->rets[r].type, stack[r], &idx)) continue;
        for (uint32_t q = 0; q < d->n_rets; q++) {
            shimrt_siv_release_type(func, d->schema->rets[q].type, stack[q]);
            stack[q] = 0;
        }
        return shimrt_fail(func,
                           "op %s overload %s (key %s, kernel of %s): return %u: Device index %d "
                           "is out of range for int8_t [-128, 127]",
                           op->name, ovl_text(op), shimrt_key_name(key), shimrt_key_name(used), r,
                           (int)idx);
    }
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError call_by_name(const char *func, const char *opName, const char *overloadName,
                                   StableIValue *stack) {
    tls_took_args = false;
    if (!opName) return shimrt_fail(func, "argument 'opName' is NULL");
    /* Every call, not only a failed lookup: another thread may be registering the built-in
     * ops right now, with their defs published and their kernels not yet; this waits until
     * it is done (after that, one acquire load). */
    if (shimrt_builtin_ops_ensure() != AOTI_TORCH_SUCCESS) return AOTI_TORCH_FAILURE;
    const char *ovl = overloadName ? overloadName : "";
    shimrt_op *op = shimrt_op_lookup(opName, ovl);
    if (!op || !atomic_load_explicit(&op->def, memory_order_acquire)) {
        if (!strstr(opName, "::")) {
            return shimrt_fail(func, "op name '%s' must be qualified as 'namespace::name'", opName);
        }
        char ovls[300];
        list_overloads(opName, ovl, ovls, sizeof ovls);
        op = shimrt_op_lookup(opName, ovl); /* it may have been defined meanwhile */
        if (op && atomic_load_explicit(&op->def, memory_order_acquire)) {
            return op_call(func, op, stack);
        }
        const char *failed = shimrt_deferred_error_for(opName, ovl);
        if (failed) {
            return shimrt_fail(func, "op %s (overload '%s') failed to register: %s", opName, ovl,
                               failed);
        }
        if (ovls[0]) {
            return shimrt_fail(func, "op %s has no overload '%s' (defined overloads: %s)", opName,
                               ovl, ovls);
        }
        if (op) return op_call(func, op, stack); /* the "not defined" message */
        return shimrt_fail(func, "unknown op %s (overload '%s'): no such op is defined", opName,
                           ovl);
    }
    return op_call(func, op, stack);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_call_dispatcher(const char *opName,
                                                            const char *overloadName,
                                                            StableIValue *stack) {
    return call_by_name(__func__, opName, overloadName, stack);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_call_dispatcher_v2(const char *opName,
                                                               const char *overloadName,
                                                               StableIValue *stack,
                                                               uint64_t extension_build_version) {
    (void)extension_build_version;
    return call_by_name(__func__, opName, overloadName, stack);
}

AOTI_TORCH_EXPORT AOTITorchError torch_call_dispatcher(const char *opName, const char *overloadName,
                                                       StableIValue *stack,
                                                       uint64_t extension_build_version) {
    (void)extension_build_version;
    return call_by_name(__func__, opName, overloadName, stack);
}

/* ---- op handles ---------------------------------------------------------------------------- */
shimrt_pool shimrt_op_pool = SHIMRT_POOL_INIT(struct ShimrtOp);

/* NULL when op is an op handle of this registry; else why not. Ops live in a pool and are
 * never freed, so this reads no memory outside it. */
static inline const char *op_problem(const shimrt_op *op) {
    return shimrt_handle_problem(&shimrt_op_pool, op, SHIMRT_OP_MAGIC);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_op_find(const char *opName, const char *overloadName,
                                                ShimrtOpHandle *ret) {
    SHIMRT_CHECK_ARG(opName);
    SHIMRT_CHECK_ARG(ret);
    /* Before the lookup: see call_by_name. */
    if (shimrt_builtin_ops_ensure() != AOTI_TORCH_SUCCESS) return AOTI_TORCH_FAILURE;
    const char *ovl = overloadName ? overloadName : "";
    shimrt_op *op = shimrt_op_lookup(opName, ovl);
    if (!op || !atomic_load_explicit(&op->def, memory_order_acquire)) {
        char ovls[300];
        list_overloads(opName, ovl, ovls, sizeof ovls);
        op = shimrt_op_lookup(opName, ovl); /* it may have been defined meanwhile */
        if (op && atomic_load_explicit(&op->def, memory_order_acquire)) {
            *ret = op;
            return AOTI_TORCH_SUCCESS;
        }
        if (ovls[0]) {
            return shimrt_fail(__func__, "op %s has no overload '%s' (defined overloads: %s)",
                               opName, ovl, ovls);
        }
        return shimrt_fail(__func__, "unknown op %s (overload '%s'): no such op is defined", opName,
                           ovl);
    }
    *ret = op;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_op_call(ShimrtOpHandle op, StableIValue *stack,
                                                uint64_t extension_build_version) {
    tls_took_args = false;
    const char *why = op_problem(op);
    if (why) return shimrt_fail(__func__, "op handle 'op' %s", why);
    (void)extension_build_version;
    return op_call(__func__, op, stack);
}

#define CHECK_OP(op)                                                                               \
    do {                                                                                           \
        const char *why_ = op_problem(op);                                                         \
        if (why_) return shimrt_fail(__func__, "op handle '%s' %s", #op, why_);                    \
    } while (0)

AOTI_TORCH_EXPORT AOTITorchError shimrt_op_schema(ShimrtOpHandle op, const char **ret) {
    CHECK_OP(op);
    SHIMRT_CHECK_ARG(ret);
    const shimrt_opdef *d = atomic_load_explicit(&op->def, memory_order_acquire);
    if (!d)
        return shimrt_fail(__func__, "op %s overload %s is not defined", op->name, ovl_text(op));
    *ret = d->schema_text;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_op_arity(ShimrtOpHandle op, uint64_t *num_args,
                                                 uint64_t *num_returns) {
    CHECK_OP(op);
    const shimrt_opdef *d = atomic_load_explicit(&op->def, memory_order_acquire);
    if (!d)
        return shimrt_fail(__func__, "op %s overload %s is not defined", op->name, ovl_text(op));
    if (num_args) *num_args = d->n_args;
    if (num_returns) *num_returns = d->n_rets;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_op_has_tag(ShimrtOpHandle op, int32_t tag, bool *ret) {
    CHECK_OP(op);
    SHIMRT_CHECK_ARG(ret);
    if (!shimrt_tag_name(tag)) return shimrt_fail(__func__, "unknown tag code %d", (int)tag);
    const shimrt_opdef *d = atomic_load_explicit(&op->def, memory_order_acquire);
    if (!d)
        return shimrt_fail(__func__, "op %s overload %s is not defined", op->name, ovl_text(op));
    *ret = (d->tags >> tag) & 1u;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_op_has_kernel(ShimrtOpHandle op, const char *key,
                                                      bool *ret) {
    CHECK_OP(op);
    SHIMRT_CHECK_ARG(key);
    SHIMRT_CHECK_ARG(ret);
    int k = shimrt_key_parse(key);
    if (k < 0) return shimrt_fail(__func__, "unknown dispatch key '%s'", key);
    *ret = atomic_load_explicit(&op->kernels[k], memory_order_acquire) != NULL;
    return AOTI_TORCH_SUCCESS;
}

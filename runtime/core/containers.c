/* runtime/core/containers.c: lists, strings, heap StableIValue cells and complex cells
 * (shimrt/containers.h). Lists and strings live in handle pools so a NULL, freed or
 * foreign handle is reported instead of dereferenced. */
#define _GNU_SOURCE /* pthread_getattr_np */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "containers_internal.h"
#include "internal.h"
#include "cxx_boundary.h"

shimrt_pool shimrt_list_pool = SHIMRT_POOL_INIT(struct StableListOpaque);
shimrt_pool shimrt_string_pool = SHIMRT_POOL_INIT(struct StringOpaque);

_Atomic int64_t shimrt_live_lists, shimrt_live_strings, shimrt_live_scalars, shimrt_live_cells,
    shimrt_live_complex;
/* Counted by tensor.c (tensor handles) and storage.c (storages). */
_Atomic int64_t shimrt_live_tensors, shimrt_live_storages;

AOTI_TORCH_EXPORT AOTITorchError shimrt_live_objects(const char *kind, int64_t *ret) {
    SHIMRT_CHECK_ARG(kind);
    SHIMRT_CHECK_ARG(ret);
    _Atomic int64_t *c = strcmp(kind, "list") == 0      ? &shimrt_live_lists
                         : strcmp(kind, "string") == 0  ? &shimrt_live_strings
                         : strcmp(kind, "scalar") == 0  ? &shimrt_live_scalars
                         : strcmp(kind, "cell") == 0    ? &shimrt_live_cells
                         : strcmp(kind, "complex") == 0 ? &shimrt_live_complex
                         : strcmp(kind, "tensor") == 0  ? &shimrt_live_tensors
                         : strcmp(kind, "storage") == 0 ? &shimrt_live_storages
                                                        : NULL;
    if (!c) {
        return shimrt_fail(__func__,
                           "unknown kind '%s' (list, string, scalar, cell, complex, tensor, "
                           "storage)",
                           kind);
    }
    *ret = atomic_load_explicit(c, memory_order_relaxed);
    return AOTI_TORCH_SUCCESS;
}

/* ---- handle checks ------------------------------------------------------------------ */
const char *shimrt_handle_problem(const shimrt_pool *pool, const void *h, uint64_t magic) {
    if (h == NULL) return "is NULL";
    if (!shimrt_pool_contains(pool, h)) {
        return "is not a handle of this kind (garbage or another handle type)";
    }
    uint64_t m;
    memcpy(&m, h, sizeof m);
    if (m == SHIMRT_MAGIC_FREED) return "was freed";
    if (m != magic) return "is not a live handle (bad magic)";
    return NULL;
}

bool shimrt_list_valid(StableListHandle l) {
    return shimrt_handle_problem(&shimrt_list_pool, l, SHIMRT_LIST_MAGIC) == NULL;
}

/* ---- lists --------------------------------------------------------------------------- */
static AOTITorchError list_reserve(const char *func, StableListHandle l, size_t want) {
    if (want <= l->cap) return AOTI_TORCH_SUCCESS;
    size_t cap = l->cap ? l->cap : 4;
    while (cap < want) {
        if (cap > SIZE_MAX / 2 / sizeof(StableIValue)) {
            return shimrt_fail(func, "list capacity %zu is too large", want);
        }
        cap *= 2;
    }
    StableIValue *items = realloc(l->items, cap * sizeof *items);
    if (!items) return shimrt_fail(func, "out of memory growing a list to %zu items", cap);
    l->items = items;
    l->cap = cap;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_new_list_reserve_size(size_t size, StableListHandle *ret) {
    SHIMRT_CHECK_ARG(ret);
    if (size > ((size_t)1 << 40)) {
        return shimrt_fail(__func__, "reserve size %zu is too large", size);
    }
    StableListHandle l = shimrt_pool_alloc(&shimrt_list_pool);
    if (!l) return shimrt_fail(__func__, "out of memory");
    l->magic = SHIMRT_LIST_MAGIC;
    l->size = l->cap = 0;
    l->items = NULL;
    if (size > 0 && list_reserve(__func__, l, size) != AOTI_TORCH_SUCCESS) {
        shimrt_pool_free(&shimrt_list_pool, l);
        return AOTI_TORCH_FAILURE;
    }
    SHIMRT_LIVE_ADD(shimrt_live_lists, 1);
    *ret = l;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_list_size(StableListHandle list_handle, size_t *size) {
    SHIMRT_CHECK_HANDLE(shimrt_list_pool, list_handle, SHIMRT_LIST_MAGIC, "list");
    SHIMRT_CHECK_ARG(size);
    *size = list_handle->size;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_list_get_item(StableListHandle list_handle, size_t index,
                                                     StableIValue *element) {
    SHIMRT_CHECK_HANDLE(shimrt_list_pool, list_handle, SHIMRT_LIST_MAGIC, "list");
    SHIMRT_CHECK_ARG(element);
    if (index >= list_handle->size) {
        return shimrt_fail(__func__, "index %zu is out of range for a list of size %zu", index,
                           list_handle->size);
    }
    *element = list_handle->items[index];
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_list_set_item(StableListHandle list_handle, size_t index,
                                                     StableIValue element) {
    SHIMRT_CHECK_HANDLE(shimrt_list_pool, list_handle, SHIMRT_LIST_MAGIC, "list");
    if (index >= list_handle->size) {
        return shimrt_fail(__func__, "index %zu is out of range for a list of size %zu", index,
                           list_handle->size);
    }
    list_handle->items[index] = element;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_list_push_back(StableListHandle list_handle,
                                                      StableIValue element) {
    SHIMRT_CHECK_HANDLE(shimrt_list_pool, list_handle, SHIMRT_LIST_MAGIC, "list");
    if (list_reserve(__func__, list_handle, list_handle->size + 1) != AOTI_TORCH_SUCCESS) {
        return AOTI_TORCH_FAILURE;
    }
    list_handle->items[list_handle->size++] = element;
    return AOTI_TORCH_SUCCESS;
}

/* Frees *buffer (obj's own memory), then obj's slot of pool; one fewer live object. */
static AOTITorchError release(shimrt_pool *pool, void *obj, void **buffer, _Atomic int64_t *live) {
    free(*buffer);
    *buffer = NULL;
    shimrt_pool_free(pool, obj);
    SHIMRT_LIVE_ADD(*live, -1);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_delete_list(StableListHandle list_handle) {
    if (list_handle == NULL) return AOTI_TORCH_SUCCESS;
    SHIMRT_CHECK_HANDLE(shimrt_list_pool, list_handle, SHIMRT_LIST_MAGIC, "list");
    return release(&shimrt_list_pool, list_handle, (void **)&list_handle->items,
                   &shimrt_live_lists);
}

/* ---- strings ------------------------------------------------------------------------- */
AOTI_TORCH_EXPORT AOTITorchError torch_new_string_handle(const char *data, size_t length,
                                                         StringHandle *handle) {
    SHIMRT_CHECK_ARG(handle);
    if (data == NULL && length > 0) {
        return shimrt_fail(__func__, "argument 'data' is NULL but length is %zu", length);
    }
    if (length >= ((size_t)1 << 40)) {
        return shimrt_fail(__func__, "length %zu is too large", length);
    }
    char *copy = malloc(length + 1);
    if (!copy) return shimrt_fail(__func__, "out of memory copying %zu bytes", length);
    if (length) memcpy(copy, data, length);
    copy[length] = '\0';
    StringHandle s = shimrt_pool_alloc(&shimrt_string_pool);
    if (!s) {
        free(copy);
        return shimrt_fail(__func__, "out of memory");
    }
    s->magic = SHIMRT_STRING_MAGIC;
    s->length = length;
    s->data = copy;
    SHIMRT_LIVE_ADD(shimrt_live_strings, 1);
    *handle = s;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_delete_string(StringHandle handle) {
    if (handle == NULL) return AOTI_TORCH_SUCCESS;
    SHIMRT_CHECK_HANDLE(shimrt_string_pool, handle, SHIMRT_STRING_MAGIC, "string");
    return release(&shimrt_string_pool, handle, (void **)&handle->data, &shimrt_live_strings);
}

AOTI_TORCH_EXPORT AOTITorchError torch_string_length(StringHandle handle, size_t *length) {
    SHIMRT_CHECK_HANDLE(shimrt_string_pool, handle, SHIMRT_STRING_MAGIC, "string");
    SHIMRT_CHECK_ARG(length);
    *length = handle->length;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_string_c_str(StringHandle handle, const char **data) {
    SHIMRT_CHECK_HANDLE(shimrt_string_pool, handle, SHIMRT_STRING_MAGIC, "string");
    SHIMRT_CHECK_ARG(data);
    *data = handle->data;
    return AOTI_TORCH_SUCCESS;
}

/* ---- heap cells ------------------------------------------------------------------------ *
 * A cell must stay a C++ `new` allocation (extensions built for PyTorch < 2.13 make and free
 * cells with new/delete; cxx_boundary.cc), so it cannot live in a pool slot with a magic.
 * Instead the live cells are a registry: a set of addresses, sharded by address hash, each
 * shard an open-addressing table under its own mutex. A freed cell is not given back at
 * once: it stays in the set marked freed, in a FIFO of CELL_QUARANTINE cells, so a double
 * free or a use after free is reported (the same idea as the pools' delayed slot reuse);
 * the oldest is deleted when the FIFO is full. An address the set does not hold (garbage,
 * a stack address, a cell freed long ago) is refused without being read. */
#define CELL_SHARDS 64
#define CELL_QUARANTINE 1024
enum { CELL_EMPTY = 0, CELL_TOMB, CELL_LIVE, CELL_FREED };

typedef struct cell_entry {
    uintptr_t addr;
    uint8_t state;
} cell_entry;

typedef struct cell_shard {
    pthread_mutex_t lock;
    cell_entry *slots;
    size_t cap, used; /* used: live + freed + tombstones */
} cell_shard;

static cell_shard g_cells[CELL_SHARDS];
static pthread_once_t g_cells_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t g_quarantine_lock = PTHREAD_MUTEX_INITIALIZER;
static StableIValue *g_quarantine[CELL_QUARANTINE];
static size_t g_q_head, g_q_count;

static void cells_init(void) {
    for (int i = 0; i < CELL_SHARDS; i++) pthread_mutex_init(&g_cells[i].lock, NULL);
}

static inline size_t cell_hash(uintptr_t a) {
    uint64_t h = (uint64_t)a * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h ^ (h >> 31));
}

static cell_shard *shard_of(uintptr_t a) {
    pthread_once(&g_cells_once, cells_init);
    return &g_cells[(cell_hash(a) >> 7) % CELL_SHARDS];
}

/* Under the shard's lock: the entry of a, or NULL. */
static cell_entry *cell_find(cell_shard *sh, uintptr_t a) {
    if (!sh->cap) return NULL;
    for (size_t i = cell_hash(a) & (sh->cap - 1), n = 0; n < sh->cap;
         i = (i + 1) & (sh->cap - 1), n++) {
        cell_entry *e = &sh->slots[i];
        if (e->state == CELL_EMPTY) return NULL;
        if (e->state != CELL_TOMB && e->addr == a) return e;
    }
    return NULL;
}

/* Under the shard's lock: sets a's state, adding an entry when missing. False on OOM. */
static bool cell_put(cell_shard *sh, uintptr_t a, uint8_t state) {
    cell_entry *e = cell_find(sh, a);
    if (e) {
        e->state = state;
        return true;
    }
    if ((sh->used + 1) * 4 > sh->cap * 3) { /* rebuild: twice the live entries, >= 64 */
        size_t live = 0;
        for (size_t i = 0; i < sh->cap; i++) live += sh->slots[i].state >= CELL_LIVE;
        size_t cap = 64;
        while (cap < (live + 1) * 4) cap *= 2;
        cell_entry *ns = calloc(cap, sizeof *ns);
        if (!ns) return false;
        for (size_t i = 0; i < sh->cap; i++) {
            if (sh->slots[i].state < CELL_LIVE) continue;
            size_t j = cell_hash(sh->slots[i].addr) & (cap - 1);
            while (ns[j].state != CELL_EMPTY) j = (j + 1) & (cap - 1);
            ns[j] = sh->slots[i];
        }
        free(sh->slots);
        sh->slots = ns;
        sh->cap = cap;
        sh->used = live;
    }
    size_t j = cell_hash(a) & (sh->cap - 1);
    while (sh->slots[j].state >= CELL_LIVE) j = (j + 1) & (sh->cap - 1);
    if (sh->slots[j].state == CELL_EMPTY) sh->used++;
    sh->slots[j].addr = a;
    sh->slots[j].state = state;
    return true;
}

static uint8_t cell_state(const void *cell) {
    uintptr_t a = (uintptr_t)cell;
    cell_shard *sh = shard_of(a);
    pthread_mutex_lock(&sh->lock);
    cell_entry *e = cell_find(sh, a);
    uint8_t st = e ? e->state : CELL_EMPTY;
    pthread_mutex_unlock(&sh->lock);
    return st;
}

const char *shimrt_cell_problem(const StableIValue *cell) {
    if (!cell) return "is NULL";
    switch (cell_state(cell)) {
    case CELL_LIVE: return NULL;
    case CELL_FREED: return "was freed";
    default:
        return "is not a live StableIValue cell of this runtime (garbage, a stack address, "
               "another handle type, or freed long ago)";
    }
}

/* Whether p can be an extension's `new StableIValue`: aligned, above the first 1 MiB,
 * below the top of the user address space, not on the calling thread's stack and not
 * inside a handle of the runtime's (a tensor handle passed as a cell, ...). Never
 * reads *p. (Heap garbage passes: it cannot be told from a foreign cell without reading.) */
static _Thread_local uintptr_t tls_stack_lo, tls_stack_hi;

static bool on_my_stack(uintptr_t a) {
    if (!tls_stack_hi) {
        pthread_attr_t attr;
        void *base = NULL;
        size_t size = 0;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            if (pthread_attr_getstack(&attr, &base, &size) == 0) {
                tls_stack_lo = (uintptr_t)base;
                tls_stack_hi = (uintptr_t)base + size;
            }
            pthread_attr_destroy(&attr);
        }
        if (!tls_stack_hi) tls_stack_hi = 1; /* unknown: nothing is on it */
    }
    return a >= tls_stack_lo && a < tls_stack_hi;
}

static bool cell_plausible(const void *p) {
    uintptr_t a = (uintptr_t)p;
    return a % sizeof(StableIValue) == 0 && a >= ((uintptr_t)1 << 20) &&
           (uint64_t)a < (UINT64_C(1) << 56) && !on_my_stack(a) && !shimrt_in_any_pool(p);
}

bool shimrt_cell_adopt(StableIValue *cell) {
    if (!cell) return false;
    uintptr_t a = (uintptr_t)cell;
    cell_shard *sh = shard_of(a);
    pthread_mutex_lock(&sh->lock);
    cell_entry *e = cell_find(sh, a);
    bool ok = true;
    if (!e) {
        ok = cell_plausible(cell) && cell_put(sh, a, CELL_LIVE);
        if (ok) SHIMRT_LIVE_ADD(shimrt_live_cells, 1);
    } else if (e->state != CELL_LIVE) {
        ok = false; /* a freed cell of ours: never adopted back */
    }
    pthread_mutex_unlock(&sh->lock);
    return ok;
}

AOTI_TORCH_EXPORT AOTITorchError torch_new_stable_ivalue(StableIValue **ret_value) {
    SHIMRT_CHECK_ARG(ret_value);
    /* C++ new, as libtorch's: an extension may free it with `delete` (built for PyTorch
     * < 2.13) or with torch_delete_stable_ivalue (runtime/core/cxx_boundary.cc). */
    StableIValue *cell = shimrt_cxx_cell_new();
    if (!cell) return shimrt_fail(__func__, "out of memory");
    uintptr_t a = (uintptr_t)cell;
    cell_shard *sh = shard_of(a);
    pthread_mutex_lock(&sh->lock);
    bool ok = cell_put(sh, a, CELL_LIVE);
    pthread_mutex_unlock(&sh->lock);
    if (!ok) {
        shimrt_cxx_cell_delete(cell);
        return shimrt_fail(__func__, "out of memory");
    }
    SHIMRT_LIVE_ADD(shimrt_live_cells, 1);
    *ret_value = cell;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_delete_stable_ivalue(StableIValue *value) {
    if (value == NULL) return AOTI_TORCH_SUCCESS;
    uintptr_t a = (uintptr_t)value;
    cell_shard *sh = shard_of(a);
    pthread_mutex_lock(&sh->lock);
    cell_entry *e = cell_find(sh, a);
    uint8_t st = e ? e->state : CELL_EMPTY;
    if (st == CELL_LIVE) e->state = CELL_FREED;
    pthread_mutex_unlock(&sh->lock);
    if (st != CELL_LIVE) {
        return shimrt_fail(__func__, "cell 'value' %s",
                           st == CELL_FREED ? "was freed"
                                            : "is not a live StableIValue cell of this runtime "
                                              "(garbage, a stack address, or freed long ago)");
    }
    SHIMRT_LIVE_ADD(shimrt_live_cells, -1);
    /* Into the quarantine; the oldest quarantined cell is given back for real. */
    StableIValue *evict = NULL;
    pthread_mutex_lock(&g_quarantine_lock);
    if (g_q_count == CELL_QUARANTINE) {
        evict = g_quarantine[g_q_head];
        g_quarantine[g_q_head] = value;
        g_q_head = (g_q_head + 1) % CELL_QUARANTINE;
    } else {
        g_quarantine[(g_q_head + g_q_count++) % CELL_QUARANTINE] = value;
    }
    pthread_mutex_unlock(&g_quarantine_lock);
    if (evict) {
        uintptr_t ea = (uintptr_t)evict;
        cell_shard *es = shard_of(ea);
        pthread_mutex_lock(&es->lock);
        cell_entry *ee = cell_find(es, ea);
        if (ee && ee->state == CELL_FREED) ee->state = CELL_TOMB;
        pthread_mutex_unlock(&es->lock);
        shimrt_cxx_cell_delete(evict); /* also right for an extension's `new StableIValue` */
    }
    return AOTI_TORCH_SUCCESS;
}

/* ---- complex cells: pool slots; the caller's pointer is the payload after the magic ---- */
#define SHIMRT_COMPLEX_MAGIC UINT64_C(0x53484D5254435058) /* "SHMRTCPX" */

typedef struct complex_slot {
    uint64_t magic;
    uint64_t pad;
    ShimrtComplex c;
} complex_slot;

static shimrt_pool shimrt_complex_pool = SHIMRT_POOL_INIT(complex_slot);

static complex_slot *complex_slot_of(const ShimrtComplex *c) {
    return (complex_slot *)(uintptr_t)((uintptr_t)c - offsetof(complex_slot, c));
}

const char *shimrt_complex_problem(const ShimrtComplex *c) {
    if (!c) return "is NULL";
    if ((uintptr_t)c < offsetof(complex_slot, c))
        return "is not a handle of this kind (garbage or another handle type)";
    return shimrt_handle_problem(&shimrt_complex_pool, complex_slot_of(c), SHIMRT_COMPLEX_MAGIC);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_new_complex(double real, double imag, ShimrtComplex **ret) {
    SHIMRT_CHECK_ARG(ret);
    complex_slot *s = shimrt_pool_new(__func__, &shimrt_complex_pool, SHIMRT_COMPLEX_MAGIC);
    if (!s) return AOTI_TORCH_FAILURE;
    s->c.real = real;
    s->c.imag = imag;
    SHIMRT_LIVE_ADD(shimrt_live_complex, 1);
    *ret = &s->c;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_delete_complex(ShimrtComplex *cell) {
    if (cell == NULL) return AOTI_TORCH_SUCCESS;
    const char *why = shimrt_complex_problem(cell);
    if (why) return shimrt_fail(__func__, "complex handle 'cell' %s", why);
    shimrt_pool_free(&shimrt_complex_pool, complex_slot_of(cell));
    SHIMRT_LIVE_ADD(shimrt_live_complex, -1);
    return AOTI_TORCH_SUCCESS;
}

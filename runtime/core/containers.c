/* runtime/core/containers.c: lists, strings, heap StableIValue cells and complex cells
 * (shimrt/containers.h). Lists and strings live in handle pools so a NULL, freed or
 * foreign handle is reported instead of dereferenced. */
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

/* ---- heap cells ------------------------------------------------------------------------ */
AOTI_TORCH_EXPORT AOTITorchError torch_new_stable_ivalue(StableIValue **ret_value) {
    SHIMRT_CHECK_ARG(ret_value);
    /* C++ new, as libtorch's: an extension may free it with `delete` (built for PyTorch
     * < 2.13) or with torch_delete_stable_ivalue (runtime/core/cxx_boundary.cc). */
    StableIValue *cell = shimrt_cxx_cell_new();
    if (!cell) return shimrt_fail(__func__, "out of memory");
    SHIMRT_LIVE_ADD(shimrt_live_cells, 1);
    *ret_value = cell;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_delete_stable_ivalue(StableIValue *value) {
    if (value == NULL) return AOTI_TORCH_SUCCESS;
    shimrt_cxx_cell_delete(value); /* also right for an extension's `new StableIValue` */
    SHIMRT_LIVE_ADD(shimrt_live_cells, -1);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_new_complex(double real, double imag, ShimrtComplex **ret) {
    SHIMRT_CHECK_ARG(ret);
    ShimrtComplex *c = malloc(sizeof *c);
    if (!c) return shimrt_fail(__func__, "out of memory");
    c->real = real;
    c->imag = imag;
    SHIMRT_LIVE_ADD(shimrt_live_complex, 1);
    *ret = c;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_delete_complex(ShimrtComplex *cell) {
    if (cell == NULL) return AOTI_TORCH_SUCCESS;
    free(cell);
    SHIMRT_LIVE_ADD(shimrt_live_complex, -1);
    return AOTI_TORCH_SUCCESS;
}

/* runtime/core/ivalue.c: freeing a StableIValue by its schema type (shimrt_siv_release),
 * and which schema types have an encoding (docs/stableivalue.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "containers_internal.h"

bool shimrt_type_encodable(const sg_type *t, const char **why) {
    switch (t->kind) {
    case SG_TY_OPTIONAL:
    case SG_TY_LIST: return shimrt_type_encodable(t->elem, why);
    default: break;
    }
    switch (t->base) {
    case SG_BT_ANY:
    case SG_BT_GRAPH_MODULE:
    case SG_BT_CONST_QUANTIZER_PTR:
        if (why) *why = sg_base_type_name(t->base);
        return false;
    default: return true;
    }
}

/* Re-reports the thread's last failure under func's name ("a <what> value: <message>").
 * The message is copied first: shimrt_fail writes the buffer it would read from. */
static AOTITorchError rewrap(const char *func, const char *what) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s", torch_exception_get_what());
    return shimrt_fail(func, "a %s value: %s", what, msg);
}

static AOTITorchError release_base(const char *func, sg_base_type b, StableIValue v) {
    void *p = (void *)(uintptr_t)v;
    switch (b) {
    case SG_BT_TENSOR:
    case SG_BT_STORAGE:
        if (!p) return AOTI_TORCH_SUCCESS;
        if (!shimrt_tensor_valid((AtenTensorHandle)p)) {
            return shimrt_fail(func, "a %s value %s", sg_base_type_name(b),
                               shimrt_tensor_invalid_reason((AtenTensorHandle)p, "tensor"));
        }
        return aoti_torch_delete_tensor_object((AtenTensorHandle)p);
    case SG_BT_STR:
    case SG_BT_DIMNAME:
        return torch_delete_string((StringHandle)p) ? rewrap(func, "str") : AOTI_TORCH_SUCCESS;
    case SG_BT_SCALAR:
        return torch_delete_scalar((ScalarHandle)p) ? rewrap(func, "Scalar") : AOTI_TORCH_SUCCESS;
    case SG_BT_GENERATOR:
        return torch_delete_generator((AtenGeneratorHandle)p) ? rewrap(func, "Generator")
                                                              : AOTI_TORCH_SUCCESS;
    case SG_BT_STREAM:
        return aoti_torch_delete_stream((StreamHandle)p) ? rewrap(func, "Stream")
                                                         : AOTI_TORCH_SUCCESS;
    case SG_BT_COMPLEX:
        return shimrt_delete_complex((ShimrtComplex *)p) ? rewrap(func, "complex")
                                                         : AOTI_TORCH_SUCCESS;
    case SG_BT_DIM_VECTOR: /* a list of ints */
        return torch_delete_list((StableListHandle)p) ? rewrap(func, "DimVector")
                                                      : AOTI_TORCH_SUCCESS;
    case SG_BT_ANY:
    case SG_BT_GRAPH_MODULE:
    case SG_BT_CONST_QUANTIZER_PTR:
        return shimrt_fail(func, "type %s has no StableIValue encoding", sg_base_type_name(b));
    default: /* int, SymInt, float, bool, ScalarType, Layout, MemoryFormat, Device,
                DeviceIndex, QScheme, SymFloat, SymBool: plain values */
        return AOTI_TORCH_SUCCESS;
    }
}

AOTITorchError shimrt_siv_release_type(const char *func, const sg_type *t, StableIValue v) {
    if (!t) return shimrt_fail(func, "no type given");
    switch (t->kind) {
    case SG_TY_BASE: return release_base(func, t->base, v);
    case SG_TY_OPTIONAL: {
        if (v == 0) return AOTI_TORCH_SUCCESS;
        StableIValue *cell = (StableIValue *)(uintptr_t)v;
        const char *why = shimrt_cell_problem(cell);
        if (why) return shimrt_fail(func, "an optional value: cell %s", why);
        AOTITorchError rc = shimrt_siv_release_type(func, t->elem, *cell);
        torch_delete_stable_ivalue(cell);
        return rc;
    }
    case SG_TY_LIST: {
        if (v == 0) return AOTI_TORCH_SUCCESS; /* not a valid list; nothing owned */
        StableListHandle l = (StableListHandle)(uintptr_t)v;
        const char *why = shimrt_handle_problem(&shimrt_list_pool, l, SHIMRT_LIST_MAGIC);
        if (why) return shimrt_fail(func, "a list value: list handle %s", why);
        AOTITorchError rc = AOTI_TORCH_SUCCESS;
        for (size_t i = 0; i < l->size; i++) {
            if (shimrt_siv_release_type(func, t->elem, l->items[i])) rc = AOTI_TORCH_FAILURE;
        }
        torch_delete_list(l);
        return rc;
    }
    }
    return shimrt_fail(func, "bad type kind %d", (int)t->kind);
}

AOTI_TORCH_EXPORT AOTITorchError shimrt_siv_release(const char *type, StableIValue value) {
    SHIMRT_CHECK_ARG(type);
    /* Parse the type through a one-argument schema. */
    size_t n = strlen(type);
    if (n > 200) return shimrt_fail(__func__, "type text of %zu bytes is too long", n);
    char text[256];
    snprintf(text, sizeof text, "f(%s x) -> ()", type);
    sg_arena *a = sg_arena_new();
    if (!a) return shimrt_fail(__func__, "out of memory");
    sg_schema_error err;
    memset(&err, 0, sizeof err);
    const sg_schema *s = sg_schema_parse(a, text, strlen(text), &err);
    AOTITorchError rc;
    if (!s || s->n_args != 1) {
        rc =
            shimrt_fail(__func__, "bad type '%s': %s", type, s ? "not a single type" : err.message);
    } else {
        rc = shimrt_siv_release_type(__func__, s->args[0].type, value);
    }
    sg_arena_free(a);
    return rc;
}

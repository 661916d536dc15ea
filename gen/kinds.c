/* gen/kinds.c: the one table of argument and return kinds (see kinds.h).
 *
 * Two parts: k_kinds says what a kind is (one row per kind, in sg_kind order); k_args and
 * k_rets say which schema types have which kind (a plain, optional, list, optional-list or
 * list-of-optional form of one base type per row). Nothing else in gen/ maps schema types
 * to C: emit_params.c, the body families (emit_gen.h) and the template docs all read
 * these rows. */
#include "kinds.h"

#include <shimrt/codes.h>
#include <stddef.h>
#include <stdio.h>

#define LIST_OF_TENSORS "a StableListHandle of Tensor items"
static const sg_kind_info k_kinds[SG_K_COUNT_] = {
    /* name, shim C type, shape, kernel type, out-pointer of a return, StableIValue, owns,
     * runtime kind code */
    [SG_K_TENSOR] = {"tensor", "AtenTensorHandle", SG_SHAPE_ONE, "AtenTensorHandle",
                     "AtenTensorHandle*", "the AtenTensorHandle, bitwise", true,
                     SHIMRT_KIND_TENSOR},
    [SG_K_OPT_TENSOR] = {"opt_tensor", "AtenTensorHandle*", SG_SHAPE_ONE, "AtenTensorHandle", NULL,
                         "0, or a heap cell holding a Tensor", true, SHIMRT_KIND_OPT_TENSOR},
    [SG_K_TENSOR_LIST] = {"tensor_list", "const AtenTensorHandle*", SG_SHAPE_LIST,
                          "const AtenTensorHandle*", "AtenTensorHandle**", LIST_OF_TENSORS, true,
                          SHIMRT_KIND_TENSOR_LIST},
    [SG_K_OPT_TENSOR_LIST] = {"opt_tensor_list", "const AtenTensorHandle**", SG_SHAPE_LIST,
                              "const AtenTensorHandle*", NULL,
                              "a StableListHandle of Tensor? items", true,
                              SHIMRT_KIND_OPT_TENSOR_LIST},
    [SG_K_INT] = {"int", "int64_t", SG_SHAPE_ONE, "int64_t", "int64_t*", "int64_t, bitwise", false,
                  SHIMRT_KIND_NONE},
    [SG_K_OPT_INT] = {"opt_int", "int64_t*", SG_SHAPE_ONE, "int64_t*", NULL,
                      "0, or a heap cell holding an int", true, SHIMRT_KIND_OPT_INT},
    [SG_K_FLOAT] = {"float", "double", SG_SHAPE_ONE, "double", "double*", "double, bitwise", false,
                    SHIMRT_KIND_NONE},
    [SG_K_OPT_FLOAT] = {"opt_float", "double*", SG_SHAPE_ONE, "double*", NULL,
                        "0, or a heap cell holding a float", true, SHIMRT_KIND_OPT_FLOAT},
    [SG_K_SCALAR] = {"scalar", "double", SG_SHAPE_ONE, "shimrt_scalar", "double*",
                     "a ScalarHandle, bitwise", true, SHIMRT_KIND_SCALAR, "shimrt_scalar"},
    [SG_K_OPT_SCALAR] = {"opt_scalar", "double*", SG_SHAPE_ONE, "const shimrt_scalar*", NULL,
                         "0, or a heap cell holding a Scalar", true, SHIMRT_KIND_OPT_SCALAR,
                         "const shimrt_scalar*"},
    [SG_K_BOOL] = {"bool", "int32_t", SG_SHAPE_ONE, "int32_t", "int32_t*", "bool, bitwise", false,
                   SHIMRT_KIND_NONE},
    [SG_K_OPT_BOOL] = {"opt_bool", "int32_t*", SG_SHAPE_ONE, "int32_t*", NULL,
                       "0, or a heap cell holding a bool", true, SHIMRT_KIND_OPT_BOOL},
    [SG_K_CODE] = {"code", "int32_t", SG_SHAPE_ONE, "int32_t", "int32_t*",
                   "the int32_t code, bitwise", false, SHIMRT_KIND_NONE},
    [SG_K_OPT_CODE] = {"opt_code", "int32_t*", SG_SHAPE_ONE, "int32_t*", NULL,
                       "0, or a heap cell holding the code", true, SHIMRT_KIND_OPT_CODE},
    [SG_K_DEVICE_INDEX] = {"device_index", "int32_t", SG_SHAPE_ONE, "int32_t", NULL,
                           "int64_t, bitwise", false, SHIMRT_KIND_NONE},
    [SG_K_OPT_DEVICE_INDEX] = {"opt_device_index", "int32_t*", SG_SHAPE_ONE, "int32_t*", NULL,
                               "0, or a heap cell holding an int", true,
                               SHIMRT_KIND_OPT_DEVICE_INDEX},
    [SG_K_DEVICE] = {"device", "int32_t", SG_SHAPE_DEVICE, "int32_t", NULL,
                     "index in the low 32 bits, type code in the high 32", false, SHIMRT_KIND_NONE},
    [SG_K_OPT_DEVICE] = {"opt_device", "int32_t*", SG_SHAPE_DEVICE, "int32_t*", NULL,
                         "0, or a heap cell holding a Device", true, SHIMRT_KIND_OPT_DEVICE},
    [SG_K_STR] = {"str", "const char*", SG_SHAPE_ONE, "const char*", "const char**",
                  "a StringHandle, bitwise", true, SHIMRT_KIND_STR},
    [SG_K_OPT_STR] = {"opt_str", "const char**", SG_SHAPE_ONE, "const char**", NULL,
                      "0, or a heap cell holding a str", true, SHIMRT_KIND_OPT_STR},
    [SG_K_GENERATOR] = {"generator", "AtenGeneratorHandle", SG_SHAPE_ONE, "AtenGeneratorHandle",
                        "AtenGeneratorHandle*", "an AtenGeneratorHandle, bitwise", true,
                        SHIMRT_KIND_GENERATOR},
    [SG_K_OPT_GENERATOR] = {"opt_generator", "AtenGeneratorHandle*", SG_SHAPE_ONE,
                            "AtenGeneratorHandle*", NULL, "0, or a heap cell holding a Generator",
                            true, SHIMRT_KIND_OPT_GENERATOR},
    [SG_K_INT_LIST] = {"int_list", "const int64_t*", SG_SHAPE_LIST, "const int64_t*", NULL,
                       "a StableListHandle of int items", true, SHIMRT_KIND_INT_LIST},
    [SG_K_OPT_INT_LIST] = {"opt_int_list", "const int64_t**", SG_SHAPE_LIST, "const int64_t*", NULL,
                           "0, or a heap cell holding an int list", true, SHIMRT_KIND_OPT_INT_LIST},
    [SG_K_FLOAT_LIST] = {"float_list", "const double*", SG_SHAPE_LIST, "const double*", NULL,
                         "a StableListHandle of float items", true, SHIMRT_KIND_FLOAT_LIST},
    [SG_K_OPT_FLOAT_LIST] = {"opt_float_list", "const double**", SG_SHAPE_LIST, "const double*",
                             NULL, "0, or a heap cell holding a float list", true,
                             SHIMRT_KIND_OPT_FLOAT_LIST},
    [SG_K_SCALAR_LIST] = {"scalar_list", "const double*", SG_SHAPE_LIST, "const double*", NULL,
                          "a StableListHandle of Scalar items", true, SHIMRT_KIND_SCALAR_LIST},
    [SG_K_BOOL_LIST] = {"bool_list", "const int32_t*", SG_SHAPE_LIST, "const int32_t*", NULL,
                        "a StableListHandle of bool items", true, SHIMRT_KIND_BOOL_LIST},
    [SG_K_CODE_LIST] = {"code_list", "const int32_t*", SG_SHAPE_LIST, "const int32_t*", NULL,
                        "a StableListHandle of ScalarType items", true, SHIMRT_KIND_CODE_LIST},
};

/* The forms of a base type. */
typedef enum form { F_PLAIN, F_OPT, F_LIST, F_OPT_LIST, F_LIST_OPT } form;
static const char *const k_form_fmt[] = {"%s", "%s?", "%s[]", "%s[]?", "%s?[]"};

typedef struct type_row {
    form f;
    sg_base_type base;
    sg_kind kind;
} type_row;

/* Which schema types are arguments of which kind (docs/shim-rules.md, "Parameters"). */
static const type_row k_args[] = {
    {F_PLAIN, SG_BT_TENSOR, SG_K_TENSOR},
    {F_OPT, SG_BT_TENSOR, SG_K_OPT_TENSOR},
    {F_LIST, SG_BT_TENSOR, SG_K_TENSOR_LIST},
    {F_LIST_OPT, SG_BT_TENSOR, SG_K_OPT_TENSOR_LIST},
    {F_PLAIN, SG_BT_INT, SG_K_INT},
    {F_PLAIN, SG_BT_SYMINT, SG_K_INT},
    {F_OPT, SG_BT_INT, SG_K_OPT_INT},
    {F_OPT, SG_BT_SYMINT, SG_K_OPT_INT},
    {F_PLAIN, SG_BT_FLOAT, SG_K_FLOAT},
    {F_OPT, SG_BT_FLOAT, SG_K_OPT_FLOAT},
    {F_PLAIN, SG_BT_SCALAR, SG_K_SCALAR},
    {F_OPT, SG_BT_SCALAR, SG_K_OPT_SCALAR},
    {F_PLAIN, SG_BT_BOOL, SG_K_BOOL},
    {F_OPT, SG_BT_BOOL, SG_K_OPT_BOOL},
    {F_PLAIN, SG_BT_SCALAR_TYPE, SG_K_CODE},
    {F_PLAIN, SG_BT_LAYOUT, SG_K_CODE},
    {F_PLAIN, SG_BT_MEMORY_FORMAT, SG_K_CODE},
    {F_OPT, SG_BT_SCALAR_TYPE, SG_K_OPT_CODE},
    {F_OPT, SG_BT_LAYOUT, SG_K_OPT_CODE},
    {F_OPT, SG_BT_MEMORY_FORMAT, SG_K_OPT_CODE},
    {F_PLAIN, SG_BT_DEVICE_INDEX, SG_K_DEVICE_INDEX},
    {F_OPT, SG_BT_DEVICE_INDEX, SG_K_OPT_DEVICE_INDEX},
    {F_PLAIN, SG_BT_DEVICE, SG_K_DEVICE},
    {F_OPT, SG_BT_DEVICE, SG_K_OPT_DEVICE},
    {F_PLAIN, SG_BT_STR, SG_K_STR},
    {F_OPT, SG_BT_STR, SG_K_OPT_STR},
    {F_PLAIN, SG_BT_GENERATOR, SG_K_GENERATOR},
    {F_OPT, SG_BT_GENERATOR, SG_K_OPT_GENERATOR},
    {F_LIST, SG_BT_INT, SG_K_INT_LIST},
    {F_LIST, SG_BT_SYMINT, SG_K_INT_LIST},
    {F_OPT_LIST, SG_BT_INT, SG_K_OPT_INT_LIST},
    {F_OPT_LIST, SG_BT_SYMINT, SG_K_OPT_INT_LIST},
    {F_LIST, SG_BT_FLOAT, SG_K_FLOAT_LIST},
    {F_OPT_LIST, SG_BT_FLOAT, SG_K_OPT_FLOAT_LIST},
    {F_LIST, SG_BT_SCALAR, SG_K_SCALAR_LIST},
    {F_LIST, SG_BT_BOOL, SG_K_BOOL_LIST},
    {F_LIST, SG_BT_SCALAR_TYPE, SG_K_CODE_LIST},
};

/* Which schema types are returns of which kind (plain ones and Tensor[]; the out-pointer is
 * the kind's ret_type, followed by an int64_t* length for a list). */
static const type_row k_rets[] = {
    {F_PLAIN, SG_BT_TENSOR, SG_K_TENSOR},
    {F_LIST, SG_BT_TENSOR, SG_K_TENSOR_LIST},
    {F_PLAIN, SG_BT_INT, SG_K_INT},
    {F_PLAIN, SG_BT_SYMINT, SG_K_INT},
    {F_PLAIN, SG_BT_FLOAT, SG_K_FLOAT},
    {F_PLAIN, SG_BT_SCALAR, SG_K_SCALAR},
    {F_PLAIN, SG_BT_BOOL, SG_K_BOOL},
    {F_PLAIN, SG_BT_SCALAR_TYPE, SG_K_CODE},
    {F_PLAIN, SG_BT_LAYOUT, SG_K_CODE},
    {F_PLAIN, SG_BT_MEMORY_FORMAT, SG_K_CODE},
    {F_PLAIN, SG_BT_DEVICE_INDEX, SG_K_CODE},
    {F_PLAIN, SG_BT_STR, SG_K_STR},
    {F_PLAIN, SG_BT_GENERATOR, SG_K_GENERATOR},
};

/* The form and base type of t; false when t is none of the five forms. */
static bool split(const sg_type *t, form *f, sg_base_type *b) {
    const sg_type *e = t;
    if (!t) return false;
    if (t->kind == SG_TY_BASE) {
        *f = F_PLAIN;
    } else if (t->kind == SG_TY_OPTIONAL) {
        e = t->elem;
        *f = F_OPT;
        if (e->kind == SG_TY_LIST) {
            e = e->elem;
            *f = F_OPT_LIST;
        }
    } else {
        e = t->elem;
        *f = F_LIST;
        if (e->kind == SG_TY_OPTIONAL) {
            e = e->elem;
            *f = F_LIST_OPT;
        }
    }
    if (e->kind != SG_TY_BASE) return false;
    *b = e->base;
    return true;
}

static sg_kind lookup(const type_row *rows, size_t n, const sg_type *t) {
    form f;
    sg_base_type b;
    if (!split(t, &f, &b)) return SG_K_NONE;
    for (size_t i = 0; i < n; i++)
        if (rows[i].f == f && rows[i].base == b) return rows[i].kind;
    return SG_K_NONE;
}

sg_kind sg_kind_of_arg(const sg_type *t) {
    return lookup(k_args, sizeof k_args / sizeof *k_args, t);
}

sg_kind sg_kind_of_ret(const sg_type *t) {
    return lookup(k_rets, sizeof k_rets / sizeof *k_rets, t);
}

const char *sg_dispatch_key_name(int code) {
#define KEY_NAME_(N, name, c) [c] = #name,
    static const char *const names[SHIMRT_NUM_DISPATCH_KEYS] = {SHIMRT_DISPATCH_KEYS(KEY_NAME_)};
#undef KEY_NAME_
    return code >= 0 && code < SHIMRT_NUM_DISPATCH_KEYS ? names[code] : "";
}

const char *sg_kind_code_name(const sg_kind_info *k) {
#define CODE_NAME_(N, name, code, type) [code] = "SHIMRT_KIND_" #N,
    static const char *const names[SHIMRT_NUM_KINDS] = {SHIMRT_KINDS(CODE_NAME_)};
#undef CODE_NAME_
    int c = k && k->owns ? k->code : SHIMRT_KIND_NONE;
    return c >= 0 && c < SHIMRT_NUM_KINDS && names[c] ? names[c] : "SHIMRT_KIND_NONE";
}

const sg_kind_info *sg_kind_get(sg_kind k) {
    return (int)k > 0 && k < SG_K_COUNT_ ? &k_kinds[k] : NULL;
}

size_t sg_kind_schema_types(sg_kind k, bool ret, char *buf, size_t cap) {
    const type_row *rows = ret ? k_rets : k_args;
    size_t n = ret ? sizeof k_rets / sizeof *k_rets : sizeof k_args / sizeof *k_args;
    size_t w = 0;
    char one[48];
    for (size_t i = 0; i < n; i++) {
        if (rows[i].kind != k) continue;
        int m = snprintf(one, sizeof one, k_form_fmt[rows[i].f], sg_base_type_name(rows[i].base));
        for (int j = -2; j < m; j++) {
            char c = j < 0 ? ", "[j + 2] : one[j];
            if (j < 0 && w == 0) continue;
            if (w + 1 < cap) buf[w] = c;
            w++;
        }
    }
    if (cap) buf[w < cap ? w : cap - 1] = '\0';
    return w;
}

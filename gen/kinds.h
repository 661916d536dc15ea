/* gen/kinds.h: the one table of argument and return kinds (gen/kinds.c).
 *
 * Every schema type that has a C form maps to one kind; the kind says everything the
 * emitters need about it: the shim's C parameter type and shape (docs/shim-rules.md,
 * "Parameters"), the kernel's parameter type (docs/kernels.md), its StableIValue encoding
 * (docs/stableivalue.md), whether a value of it on a stack owns something the boxed kernel
 * releases, its kind code in the runtime (SHIMRT_KIND_*, runtime/include/shimrt/codes.h),
 * and the name that picks its sections of templates/bodies.in (pack_<name>, box_<name>, ...).
 * templates/README.md's table of kinds is this table (tests/gen/test_kinds.c checks it). */
#ifndef SHIMGEN_KINDS_H
#define SHIMGEN_KINDS_H
#include <stdbool.h>
#include <stddef.h>

#include "schema.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sg_kind {
    SG_K_NONE = 0, /* no C form */
    SG_K_TENSOR,
    SG_K_OPT_TENSOR,
    SG_K_TENSOR_LIST,
    SG_K_OPT_TENSOR_LIST,
    SG_K_INT,
    SG_K_OPT_INT,
    SG_K_FLOAT,
    SG_K_OPT_FLOAT,
    SG_K_SCALAR,
    SG_K_OPT_SCALAR,
    SG_K_BOOL,
    SG_K_OPT_BOOL,
    SG_K_CODE,
    SG_K_OPT_CODE,
    SG_K_DEVICE_INDEX,
    SG_K_OPT_DEVICE_INDEX,
    SG_K_DEVICE,
    SG_K_OPT_DEVICE,
    SG_K_STR,
    SG_K_OPT_STR,
    SG_K_GENERATOR,
    SG_K_OPT_GENERATOR,
    SG_K_INT_LIST,
    SG_K_OPT_INT_LIST,
    SG_K_FLOAT_LIST,
    SG_K_OPT_FLOAT_LIST,
    SG_K_SCALAR_LIST,
    SG_K_BOOL_LIST,
    SG_K_CODE_LIST,
    SG_K_COUNT_
} sg_kind;

/* What a shim parameter of the kind is followed by. */
typedef enum sg_kind_shape {
    SG_SHAPE_ONE = 0, /* nothing */
    SG_SHAPE_LIST,    /* int64_t x_len_ */
    SG_SHAPE_DEVICE   /* int32_t x_index_ */
} sg_kind_shape;

typedef struct sg_kind_info {
    const char *name;   /* "opt_tensor": picks the template sections */
    const char *c_type; /* the shim parameter: "AtenTensorHandle*" */
    sg_kind_shape shape;
    const char *kernel_type; /* the kernel parameter (docs/kernels.md) */
    const char *ret_type;    /* the shim's out-pointer when a return has this kind, or NULL */
    const char *siv;         /* the StableIValue encoding, in words */
    bool owns;               /* a stack value of it owns something (the box releases it) */
    int code;                /* SHIMRT_KIND_* of runtime/include/shimrt/codes.h */
    /* The parameter of the shim's entry when it differs from c_type (NULL: none): a shim
     * with such an argument is a wrapper converting it (karg_<name>) and calling its entry,
     * which takes the kernel form; the boxed kernel calls the entry (box_<name> gives that
     * form). Scalar's kind lives there: the C shim's double is a floating Scalar, a
     * ScalarHandle on a stack keeps its own kind (shimrt/scalar.h). */
    const char *entry_type;
} sg_kind_info;

/* The kind of an argument's type, SG_K_NONE when it has no C form. */
sg_kind sg_kind_of_arg(const sg_type *t);
/* The kind of a return's type (only plain types return), SG_K_NONE when none. */
sg_kind sg_kind_of_ret(const sg_type *t);
/* The row of a kind; NULL for SG_K_NONE or out of range. Static. */
const sg_kind_info *sg_kind_get(sg_kind k);

/* The name of a dispatch key of shimrt/codes.h (SHIMRT_DISPATCH_KEY_CEA ->
 * "CompositeExplicitAutograd"), shared with the runtime's dispatcher. Static. */
const char *sg_dispatch_key_name(int code);

/* The C name of a kind's runtime code: "SHIMRT_KIND_OPT_TENSOR" (codes.h's list). Static. */
const char *sg_kind_code_name(const sg_kind_info *k);

/* The schema types of a kind as arguments (ret false) or returns (ret true), in table
 * order, joined with ", " ("int, SymInt"), written to buf like snprintf (NUL-terminated
 * when cap > 0). Returns the full length; empty when none has that kind. */
size_t sg_kind_schema_types(sg_kind k, bool ret, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif

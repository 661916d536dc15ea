/* gen/schema/schema.h: the function-schema grammar (model, parser, printer).
 *
 * gen/schema/ is the one small library (libsgschema.a) that both shimgen and libshimrt
 * link: one copy of this code serves the generator and the runtime's dispatcher, and it
 * includes nothing of the rest of gen/. It is pure:
 * no I/O, no globals, no locale; everything it makes lives in a caller's sg_arena.
 *
 *   [ns::]name[.overload](args) -> returns
 *
 * The printed form of a parsed schema is the canonical text PyTorch writes in `func:`
 * (torchgen's FunctionSchema.__str__); parse(print(s)) == s for every schema in
 * PyTorch's native_functions.yaml.
 */
#ifndef SHIMGEN_SCHEMA_H
#define SHIMGEN_SCHEMA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Base types, as torchgen's BaseTy (plus the JIT's `complex` and `Any`, which custom ops
 * registered with the runtime may use). Values are stable: tables index by them. */
typedef enum sg_base_type {
    SG_BT_TENSOR = 0,
    SG_BT_INT,
    SG_BT_SYMINT,
    SG_BT_FLOAT,
    SG_BT_BOOL,
    SG_BT_STR,
    SG_BT_SCALAR,
    SG_BT_SCALAR_TYPE,
    SG_BT_LAYOUT,
    SG_BT_MEMORY_FORMAT,
    SG_BT_DEVICE,
    SG_BT_DEVICE_INDEX,
    SG_BT_GENERATOR,
    SG_BT_DIMNAME,
    SG_BT_DIM_VECTOR,
    SG_BT_QSCHEME,
    SG_BT_STORAGE,
    SG_BT_STREAM,
    SG_BT_SYMFLOAT,
    SG_BT_SYMBOOL,
    SG_BT_CONST_QUANTIZER_PTR,
    SG_BT_GRAPH_MODULE,
    SG_BT_COMPLEX,
    SG_BT_ANY,
    SG_BT_COUNT_
} sg_base_type;

/* The spelling of a base type in schema text ("Tensor", "SymInt", ...). */
const char *sg_base_type_name(sg_base_type t);

typedef enum sg_type_kind { SG_TY_BASE = 0, SG_TY_OPTIONAL, SG_TY_LIST } sg_type_kind;

typedef struct sg_type {
    sg_type_kind kind;
    sg_base_type base;          /* SG_TY_BASE only */
    const struct sg_type *elem; /* SG_TY_OPTIONAL and SG_TY_LIST */
    int32_t size;               /* SG_TY_LIST: N of `[N]`, or -1 for `[]` */
} sg_type;

/* Alias annotation: `(a)`, `(a!)`, `(a -> *)`, `(a|b)`, ... as torchgen's Annotation
 * (an alias set of more than one name cannot be mutable). */
typedef struct sg_annotation {
    const char **alias_set; /* e.g. {"a"} */
    int n_alias_set;
    bool is_write;                /* `!` */
    const char **alias_set_after; /* after `->`, e.g. {"*"}; n_alias_set_after == 0 if none */
    int n_alias_set_after;
} sg_annotation;

typedef enum sg_default_kind {
    SG_DEF_NONE_GIVEN = 0, /* no `=...` */
    SG_DEF_INT,            /* 0, -1, 9223372036854775807 */
    SG_DEF_FLOAT,          /* 1.0, 1e-05, -0.5, inf? no: only numeric literals */
    SG_DEF_BOOL,           /* True / False */
    SG_DEF_NONE,           /* None */
    SG_DEF_STRING,         /* 'linear', "L", with escapes kept as written */
    SG_DEF_LIST,           /* [0,1], [], [-2,-1] */
    SG_DEF_IDENT           /* contiguous_format, Mean, long, ... */
} sg_default_kind;

typedef struct sg_arg {
    const char *name;
    const sg_type *type;
    const sg_annotation *annotation; /* NULL when the argument has none */
    const char *default_text;        /* exactly as written after `=`; NULL when none */
    sg_default_kind default_kind;
    union {
        int64_t i;     /* SG_DEF_INT, SG_DEF_BOOL (0/1) */
        double f;      /* SG_DEF_FLOAT */
        const char *s; /* SG_DEF_STRING: the unescaped value; SG_DEF_IDENT: the identifier */
    } default_value;
    uint32_t offset; /* byte offset of the argument in the schema text (diagnostics) */
    bool kwarg_only; /* after `*` */
    bool is_out;     /* an out argument (torchgen: kwarg-only from the first mutable one on) */
} sg_arg;

typedef struct sg_return {
    const char *name; /* NULL when unnamed */
    const sg_type *type;
    const sg_annotation *annotation; /* NULL when none */
} sg_return;

/* torchgen's SchemaKind. */
typedef enum sg_schema_kind {
    SG_KIND_FUNCTIONAL = 0,
    SG_KIND_INPLACE,
    SG_KIND_OUT,
    SG_KIND_MUTABLE,
    SG_KIND_SCRATCH
} sg_schema_kind;

typedef struct sg_schema {
    const char *ns;       /* "myops" for "myops::add_scalar(...)"; NULL when not written */
    const char *name;     /* the name as written, e.g. "add_", "__iand__", "_foo_functional" */
    const char *overload; /* "" when there is none */
    /* torchgen's BaseOperatorName, derived from name: */
    const char *base;         /* "add" for add_, "and" for __iand__, "_foo" for _foo_functional */
    bool inplace;             /* add_, __iand__ */
    bool dunder_method;       /* __iand__, __lshift__ */
    bool functional_overload; /* name ends in _functional */

    const sg_arg *args; /* every argument in schema order */
    int n_args;
    int n_positional;         /* args[0 .. n_positional) are positional, the rest kwarg-only */
    int out_start;            /* args[out_start .. n_args) are out arguments; == n_args when none */
    int self_index;           /* index of the positional `self` argument, or -1 */
    int tensor_options_start; /* index of `ScalarType? dtype` of a kwarg-only TensorOptions
                                 group (dtype, layout, device, pin_memory), or -1 */
    bool has_star;            /* the text has a `*` (kept for exact printing) */

    const sg_return *rets;
    int n_rets;
    sg_schema_kind kind;
} sg_schema;

/* A parse error: where and what. */
typedef struct sg_schema_error {
    uint32_t offset; /* byte offset into the text */
    char message[200];
} sg_schema_error;

/* Parses text[0..len) (which need not be NUL-terminated and is never read past len).
 * Returns a schema allocated in `arena` (borrowed from it), or NULL and fills *err.
 * Checks what torchgen checks at parse time: known types, annotations only on Tensor
 * types, no duplicate argument names, a single `*`, out arguments last and mutable,
 * defaults that are well-formed literals. */
const sg_schema *sg_schema_parse(sg_arena *arena, const char *text, size_t len,
                                 sg_schema_error *err);
/* As sg_schema_parse, with the rules of torch.library (the runtime's dispatcher)
 * instead of torchgen's: operator names may end in "_out", a dunder or "_functional"
 * name need not follow torchgen's conventions, keyword-only inputs may follow out
 * arguments, TensorOptions may repeat, an in-place operator may have out arguments.
 * The types and annotations are the same; the text need not be canonical, as PyTorch's
 * own schema parser (torch/csrc/jit/frontend/function_schema_parser.cpp) takes it:
 * whitespace (or none) between any two tokens (`f(Tensor a,Tensor b)->Tensor`), a
 * single return in parentheses, a '*' repeated or last. What it returns prints in the
 * canonical form (sg_schema_print). */
const sg_schema *sg_schema_parse_library(sg_arena *arena, const char *text, size_t len,
                                         sg_schema_error *err);

/* Prints the canonical text into buf (at most cap bytes, NUL-terminated when cap > 0).
 * Returns the length of the full text, like snprintf. */
size_t sg_schema_print(const sg_schema *s, char *buf, size_t cap);
/* The canonical text in arena memory. */
char *sg_schema_to_string(sg_arena *arena, const sg_schema *s);
/* Prints one type ("Tensor?[]", "int[2]"), with the annotation inserted after "Tensor"
 * when ann != NULL ("Tensor(a!)[]"). Same return convention as sg_schema_print. */
size_t sg_type_print(const sg_type *t, const sg_annotation *ann, char *buf, size_t cap);

/* Names: the length of the C identifier ([A-Za-z_][A-Za-z0-9_]*) at the start of s, 0 when
 * none starts there; the length of the run of [A-Za-z0-9_] at the start of s (a backend
 * name). The one definition of both for gen/ (kernel names, backends, C names). */
size_t sg_ident_len(const char *s);
size_t sg_word_len(const char *s);

/* Helpers the emitters and the dispatcher share. */
bool sg_type_is_tensor_like(const sg_type *t); /* Tensor, Tensor?, Tensor[], Tensor?[] */
bool sg_arg_is_mutable(const sg_arg *a);       /* annotation with `!` */
/* Builds a schema in `arena` from parts (for derived functions); recomputes base/inplace/
 * kind/self_index/out_start/tensor_options_start from args and name. Copies the arrays;
 * the strings, types and annotations they point to are borrowed (keep them alive as long
 * as the schema, e.g. in the same arena). */
const sg_schema *sg_schema_make(sg_arena *arena, const char *ns, const char *name,
                                const char *overload, const sg_arg *args, int n_args,
                                int n_positional, const sg_return *rets, int n_rets);
/* The same; when the parts make no valid schema (not when memory runs out), *why says why
 * (static text). */
const sg_schema *sg_schema_make_why(sg_arena *arena, const char *ns, const char *name,
                                    const char *overload, const sg_arg *args, int n_args,
                                    int n_positional, const sg_return *rets, int n_rets,
                                    const char **why);

/* Lexer tokens (gen/schema/schema_lex.re). Exposed for the parser and the fuzzer. */
typedef enum sg_tok_kind {
    SG_TOK_END = 0,
    SG_TOK_ERROR,  /* a byte that starts no token, or an unterminated string */
    SG_TOK_IDENT,  /* [A-Za-z_][A-Za-z0-9_]* */
    SG_TOK_INT,    /* -?[0-9]+ */
    SG_TOK_FLOAT,  /* -?digits with . and/or exponent */
    SG_TOK_STRING, /* '...' or "..." with backslash escapes */
    SG_TOK_LPAREN,
    SG_TOK_RPAREN,
    SG_TOK_LBRACKET,
    SG_TOK_RBRACKET,
    SG_TOK_COMMA,
    SG_TOK_STAR,
    SG_TOK_QUESTION,
    SG_TOK_BANG,
    SG_TOK_EQUALS,
    SG_TOK_DOT,
    SG_TOK_COLONCOLON,
    SG_TOK_ARROW,
    SG_TOK_PIPE,
    SG_TOK_SPACE
} sg_tok_kind;

typedef struct sg_lexer {
    const char *start; /* the text */
    const char *cur;   /* next byte to read */
    const char *end;   /* one past the last byte */
} sg_lexer;

typedef struct sg_token {
    sg_tok_kind kind;
    const char *text; /* points into the input */
    uint32_t len;
} sg_token;

void sg_lexer_init(sg_lexer *lx, const char *text, size_t len);
/* Next token; SG_TOK_END at the end (repeatable), SG_TOK_ERROR on a bad byte.
 * Whitespace is returned as SG_TOK_SPACE because the canonical form is spacing-sensitive. */
sg_token sg_lexer_next(sg_lexer *lx);
/* Up to cap tokens into out, stopping after the first SG_TOK_END (included). Returns the
 * number written (at least one when cap > 0). The same tokens as repeated sg_lexer_next. */
size_t sg_lexer_fill(sg_lexer *lx, sg_token *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif

/* gen/schema/schema.c: the function-schema grammar: parser, printer, derived facts.
 *
 * The parser is a recursive descent over the tokens of gen/schema/schema_lex.re. It accepts the
 * canonical text only (torchgen asserts str(parse(s)) == s; we check the same thing
 * token by token), so every accepted text prints back byte-identical. Everything it
 * makes lives in the caller's arena; base types point into a constant table. */
#include "schema.h"

#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- base types */

static const char *const k_base_names[SG_BT_COUNT_] = {
    [SG_BT_TENSOR] = "Tensor",
    [SG_BT_INT] = "int",
    [SG_BT_SYMINT] = "SymInt",
    [SG_BT_FLOAT] = "float",
    [SG_BT_BOOL] = "bool",
    [SG_BT_STR] = "str",
    [SG_BT_SCALAR] = "Scalar",
    [SG_BT_SCALAR_TYPE] = "ScalarType",
    [SG_BT_LAYOUT] = "Layout",
    [SG_BT_MEMORY_FORMAT] = "MemoryFormat",
    [SG_BT_DEVICE] = "Device",
    [SG_BT_DEVICE_INDEX] = "DeviceIndex",
    [SG_BT_GENERATOR] = "Generator",
    [SG_BT_DIMNAME] = "Dimname",
    [SG_BT_DIM_VECTOR] = "DimVector",
    [SG_BT_QSCHEME] = "QScheme",
    [SG_BT_STORAGE] = "Storage",
    [SG_BT_STREAM] = "Stream",
    [SG_BT_SYMFLOAT] = "SymFloat",
    [SG_BT_SYMBOOL] = "SymBool",
    [SG_BT_CONST_QUANTIZER_PTR] = "ConstQuantizerPtr",
    [SG_BT_GRAPH_MODULE] = "GraphModule",
    [SG_BT_COMPLEX] = "complex",
    [SG_BT_ANY] = "Any",
};

#define SG_BT_(b)                                                                                  \
    { SG_TY_BASE, (b), NULL, 0 }
static const sg_type k_base_types[SG_BT_COUNT_] = {
    SG_BT_(SG_BT_TENSOR),        SG_BT_(SG_BT_INT),         SG_BT_(SG_BT_SYMINT),
    SG_BT_(SG_BT_FLOAT),         SG_BT_(SG_BT_BOOL),        SG_BT_(SG_BT_STR),
    SG_BT_(SG_BT_SCALAR),        SG_BT_(SG_BT_SCALAR_TYPE), SG_BT_(SG_BT_LAYOUT),
    SG_BT_(SG_BT_MEMORY_FORMAT), SG_BT_(SG_BT_DEVICE),      SG_BT_(SG_BT_DEVICE_INDEX),
    SG_BT_(SG_BT_GENERATOR),     SG_BT_(SG_BT_DIMNAME),     SG_BT_(SG_BT_DIM_VECTOR),
    SG_BT_(SG_BT_QSCHEME),       SG_BT_(SG_BT_STORAGE),     SG_BT_(SG_BT_STREAM),
    SG_BT_(SG_BT_SYMFLOAT),      SG_BT_(SG_BT_SYMBOOL),     SG_BT_(SG_BT_CONST_QUANTIZER_PTR),
    SG_BT_(SG_BT_GRAPH_MODULE),  SG_BT_(SG_BT_COMPLEX),     SG_BT_(SG_BT_ANY),
};
#undef SG_BT_

/* `T?` and `T[]` of every base type, shared like the base types (no allocation). */
#define SG_OPT_(b)                                                                                 \
    { SG_TY_OPTIONAL, SG_BT_TENSOR, &k_base_types[b], 0 }
#define SG_LIST_(b)                                                                                \
    { SG_TY_LIST, SG_BT_TENSOR, &k_base_types[b], -1 }
#define SG_ALL_(M)                                                                                 \
    M(0), M(1), M(2), M(3), M(4), M(5), M(6), M(7), M(8), M(9), M(10), M(11), M(12), M(13), M(14), \
        M(15), M(16), M(17), M(18), M(19), M(20), M(21), M(22), M(23)
static const sg_type k_opt_types[SG_BT_COUNT_] = {SG_ALL_(SG_OPT_)};
static const sg_type k_list_types[SG_BT_COUNT_] = {SG_ALL_(SG_LIST_)};
_Static_assert(SG_BT_COUNT_ == 24, "k_opt_types and k_list_types list every base type");
#undef SG_OPT_
#undef SG_LIST_
#undef SG_ALL_

const char *sg_base_type_name(sg_base_type t) {
    if ((int)t < 0 || t >= SG_BT_COUNT_) return NULL;
    return k_base_names[t];
}

static int lookup_base(const char *s, size_t n) {
    for (int i = 0; i < SG_BT_COUNT_; i++) {
        const char *b = k_base_names[i];
        if (b[0] == s[0] && strlen(b) == n && memcmp(b, s, n) == 0) return i;
    }
    return -1;
}

static bool type_is_base(const sg_type *t, sg_base_type b) {
    return t && t->kind == SG_TY_BASE && t->base == b;
}

static bool is_word_char(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

size_t sg_word_len(const char *s) {
    size_t n = 0;
    while (s && is_word_char((unsigned char)s[n])) n++;
    return n;
}

size_t sg_ident_len(const char *s) { return s && !(*s >= '0' && *s <= '9') ? sg_word_len(s) : 0; }

bool sg_type_is_tensor_like(const sg_type *t) {
    if (t && t->kind == SG_TY_OPTIONAL) t = t->elem;
    if (t && t->kind == SG_TY_LIST) t = t->elem;
    if (t && t->kind == SG_TY_OPTIONAL) t = t->elem;
    return type_is_base(t, SG_BT_TENSOR);
}

bool sg_arg_is_mutable(const sg_arg *a) { return a && a->annotation && a->annotation->is_write; }

/* ---------------------------------------------------------------- printing */

typedef struct writer {
    char *buf;
    size_t cap, n;
} writer;

static void put_slow(writer *w, const char *s, size_t k) {
    if (w->cap > 0 && w->n + 1 < w->cap) {
        size_t room = w->cap - 1 - w->n;
        memcpy(w->buf + w->n, s, k < room ? k : room);
    }
    w->n += k;
}

/* Appends s[0..k); what does not fit (with the NUL) is counted, not written. */
static inline void put(writer *w, const char *s, size_t k) {
    if (w->n + k < w->cap) {
        char *d = w->buf + w->n;
        for (size_t i = 0; i < k; i++) d[i] = s[i];
        w->n += k;
        return;
    }
    put_slow(w, s, k);
}

static void puts_(writer *w, const char *s) {
    if (!s) s = "?";
    if (w->n + 1 < w->cap) {
        /* copy up to the NUL or the end of the room, whichever comes first */
        char *d = w->buf + w->n;
        size_t room = w->cap - 1 - w->n, i = 0;
        while (i < room && s[i]) {
            d[i] = s[i];
            i++;
        }
        w->n += s[i] ? i + strlen(s + i) : i;
        return;
    }
    w->n += strlen(s);
}

static void put_int(writer *w, long long v) {
    char tmp[24];
    int i = (int)sizeof tmp;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) tmp[--i] = '-';
    put(w, tmp + i, sizeof tmp - (size_t)i);
}

static size_t finish_writer(writer *w) {
    if (w->cap > 0) w->buf[w->n < w->cap ? w->n : w->cap - 1] = '\0';
    return w->n;
}

static void print_alias_set(writer *w, const char *const *set, int n) {
    for (int i = 0; i < n; i++) {
        if (i) put(w, "|", 1);
        puts_(w, set[i]);
    }
}

static void print_annotation(writer *w, const sg_annotation *a) {
    put(w, "(", 1);
    print_alias_set(w, a->alias_set, a->n_alias_set);
    if (a->is_write) put(w, "!", 1);
    if (a->n_alias_set_after > 0) {
        put(w, " -> ", 4);
        print_alias_set(w, a->alias_set_after, a->n_alias_set_after);
    }
    put(w, ")", 1);
}

static void print_type(writer *w, const sg_type *t, const sg_annotation *ann) {
    if (!t) {
        put(w, "?", 1);
        return;
    }
    switch (t->kind) {
    case SG_TY_BASE:
        puts_(w, sg_base_type_name(t->base));
        if (ann) print_annotation(w, ann);
        return;
    case SG_TY_OPTIONAL:
        print_type(w, t->elem, ann);
        put(w, "?", 1);
        return;
    case SG_TY_LIST:
        print_type(w, t->elem, ann);
        put(w, "[", 1);
        if (t->size >= 0) put_int(w, t->size);
        put(w, "]", 1);
        return;
    }
    put(w, "?", 1);
}

size_t sg_type_print(const sg_type *t, const sg_annotation *ann, char *buf, size_t cap) {
    writer w = {buf, cap, 0};
    print_type(&w, t, ann);
    return finish_writer(&w);
}

static void print_schema(writer *w, const sg_schema *s) {
    if (s->ns) {
        puts_(w, s->ns);
        put(w, "::", 2);
    }
    puts_(w, s->name);
    if (s->overload && s->overload[0]) {
        put(w, ".", 1);
        puts_(w, s->overload);
    }
    put(w, "(", 1);
    for (int i = 0; i < s->n_args; i++) {
        const sg_arg *a = &s->args[i];
        if (i) put(w, ", ", 2);
        if (i == s->n_positional) put(w, "*, ", 3);
        print_type(w, a->type, a->annotation);
        put(w, " ", 1);
        puts_(w, a->name);
        if (a->default_text) {
            put(w, "=", 1);
            puts_(w, a->default_text);
        }
    }
    put(w, ") -> ", 5);
    if (s->n_rets != 1) put(w, "(", 1);
    for (int i = 0; i < s->n_rets; i++) {
        const sg_return *r = &s->rets[i];
        if (i) put(w, ", ", 2);
        print_type(w, r->type, r->annotation);
        if (r->name) {
            put(w, " ", 1);
            puts_(w, r->name);
        }
    }
    if (s->n_rets != 1) put(w, ")", 1);
}

size_t sg_schema_print(const sg_schema *s, char *buf, size_t cap) {
    writer w = {buf, cap, 0};
    if (s) print_schema(&w, s);
    return finish_writer(&w);
}

char *sg_schema_to_string(sg_arena *arena, const sg_schema *s) {
    if (!arena || !s) return NULL;
    size_t n = sg_schema_print(s, NULL, 0);
    char *buf = sg_arena_alloc(arena, n + 1);
    if (!buf) return NULL;
    sg_schema_print(s, buf, n + 1);
    return buf;
}

/* ---------------------------------------------------------------- derived facts */

static const char *const k_augmented[] = {"add",    "sub",    "mul", "div", "mod", "pow",
                                          "lshift", "rshift", "and", "xor", "or"};

static bool ends_with(const char *s, size_t n, const char *suffix) {
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* Set while sg_schema_parse_library runs on this thread: torch.library's rules, under
 * which torchgen's naming and out-argument rules do not apply (they stay the
 * generator's). */
static _Thread_local bool tls_library_rules;

/* torchgen's BaseOperatorName.parse. Returns NULL, or a message (static text). */
static const char *analyze_name(sg_arena *arena, sg_schema *s) {
    const char *name = s->name;
    size_t n = strlen(name);
    size_t b0 = 0, bn = n; /* the base is name[b0 .. b0+bn) */
    if (n == 0) return "empty operator name";
    if (ends_with(name, n, "_out") && !tls_library_rules)
        return "operator names may not end in '_out'; use the overload name 'out' instead";
    s->dunder_method = s->inplace = s->functional_overload = false;
    if (n >= 5 && name[0] == '_' && name[1] == '_' && name[n - 1] == '_' && name[n - 2] == '_' &&
        memchr(name + 2, '_', n - 4) == NULL) {
        s->dunder_method = true;
        b0 = 2;
        bn = n - 4;
        if (name[2] == 'i') {
            for (size_t k = 0; k < sizeof k_augmented / sizeof k_augmented[0]; k++) {
                if (strlen(k_augmented[k]) == bn - 1 &&
                    memcmp(k_augmented[k], name + 3, bn - 1) == 0) {
                    s->inplace = true;
                    break;
                }
            }
            if (!s->inplace && !tls_library_rules)
                return "a dunder method starting with 'i' must be an augmented assignment "
                       "(__iadd__, __iand__, ...)";
            b0 = 3;
            bn = n - 5;
        }
    } else if (name[n - 1] == '_') {
        s->inplace = true;
        bn = n - 1;
    }
    if (ends_with(name + b0, bn, "_functional")) {
        if ((s->inplace || s->dunder_method) && !tls_library_rules)
            return "an operator with the '_functional' suffix cannot be in-place or a dunder "
                   "method";
        s->functional_overload = true;
        bn -= strlen("_functional");
    }
    if (bn == n && b0 == 0) {
        s->base = name;
    } else {
        char *base = sg_arena_strndup(arena, name + b0, bn);
        if (!base) return "out of memory";
        s->base = base;
    }
    return NULL;
}

static bool is_opt_of(const sg_type *t, sg_base_type b) {
    if (t && t->kind == SG_TY_OPTIONAL) t = t->elem;
    return type_is_base(t, b);
}

static bool tensor_options_at(const sg_arg *a) {
    return strcmp(a[0].name, "dtype") == 0 && is_opt_of(a[0].type, SG_BT_SCALAR_TYPE) &&
           strcmp(a[1].name, "layout") == 0 && is_opt_of(a[1].type, SG_BT_LAYOUT) &&
           strcmp(a[2].name, "device") == 0 && is_opt_of(a[2].type, SG_BT_DEVICE) &&
           strcmp(a[3].name, "pin_memory") == 0 && is_opt_of(a[3].type, SG_BT_BOOL);
}

/* torchgen's Arguments._preparse/parse and FunctionSchema.kind(), over s->args (which
 * the caller owns and may write: kwarg_only and is_out are set here). Returns NULL or a
 * message, with *bad the index of the offending argument. */
static const char *derive(sg_schema *s, sg_arg *args, int *bad) {
    int n = s->n_args;
    s->out_start = n;
    s->self_index = -1;
    s->tensor_options_start = -1;
    s->has_star = s->n_positional < n;
    for (int i = 0; i < n; i++) {
        args[i].kwarg_only = i >= s->n_positional;
        args[i].is_out = false;
        if (i < s->n_positional) {
            if (s->self_index < 0 && strcmp(args[i].name, "self") == 0) s->self_index = i;
            continue;
        }
        if (sg_arg_is_mutable(&args[i])) {
            if (s->out_start == n) s->out_start = i;
        } else if (s->out_start < n) {
            if (!tls_library_rules) {
                *bad = i;
                return "a keyword-only argument that is not mutable cannot follow an out "
                       "argument";
            }
        }
        args[i].is_out = s->out_start <= i;
    }
    for (int i = s->n_positional; i + 4 <= s->out_start; i++) {
        if (tensor_options_at(&args[i])) {
            if (s->tensor_options_start >= 0 && tls_library_rules) {
                i += 3;
                continue;
            }
            if (s->tensor_options_start >= 0) {
                *bad = i;
                return "a second TensorOptions group (dtype, layout, device, pin_memory)";
            }
            s->tensor_options_start = i;
            i += 3;
        }
    }
    bool is_out = s->out_start < n, is_scratch = false, is_mutable = false;
    for (int i = s->out_start; i < n; i++)
        if (strncmp(args[i].name, "_scratch_", 9) == 0) is_scratch = true;
    for (int i = s->self_index + 1; i < s->n_positional; i++)
        if (sg_arg_is_mutable(&args[i])) is_mutable = true;
    if (s->inplace && is_out && !tls_library_rules) {
        *bad = s->out_start;
        return "an in-place operator cannot have out arguments";
    }
    s->kind = s->inplace   ? SG_KIND_INPLACE
              : is_scratch ? SG_KIND_SCRATCH
              : is_out     ? SG_KIND_OUT
              : is_mutable ? SG_KIND_MUTABLE
                           : SG_KIND_FUNCTIONAL;
    return NULL;
}

/* The arrays are copied into the arena; the strings, types and annotations they point
 * to are borrowed and must live as long as the schema is used (typically they live in
 * the same arena). Returns NULL on bad parts: missing name/type, bad counts, duplicate
 * argument names, an invalid operator name, or out arguments torchgen rejects. */
const sg_schema *sg_schema_make(sg_arena *arena, const char *ns, const char *name,
                                const char *overload, const sg_arg *args, int n_args,
                                int n_positional, const sg_return *rets, int n_rets) {
    return sg_schema_make_why(arena, ns, name, overload, args, n_args, n_positional, rets, n_rets,
                              NULL);
}

const sg_schema *sg_schema_make_why(sg_arena *arena, const char *ns, const char *name,
                                    const char *overload, const sg_arg *args, int n_args,
                                    int n_positional, const sg_return *rets, int n_rets,
                                    const char **why) {
    if (why) *why = NULL;
    if (!arena || !name || n_args < 0 || n_rets < 0 || n_positional < 0 || n_positional > n_args ||
        (n_args > 0 && !args) || (n_rets > 0 && !rets))
        return NULL;
    for (int i = 0; i < n_args; i++) {
        if (!args[i].name || !args[i].type) return NULL;
        for (int j = 0; j < i; j++)
            if (strcmp(args[i].name, args[j].name) == 0) {
                if (why) *why = "two of its arguments would have the same name";
                return NULL;
            }
    }
    for (int i = 0; i < n_rets; i++)
        if (!rets[i].type) return NULL;
    sg_schema *s = sg_arena_alloc(arena, sizeof *s);
    sg_arg *a = n_args ? sg_arena_alloc(arena, sizeof *a * (size_t)n_args) : NULL;
    sg_return *r = n_rets ? sg_arena_alloc(arena, sizeof *r * (size_t)n_rets) : NULL;
    if (!s || (n_args && !a) || (n_rets && !r)) return NULL;
    if (n_args) memcpy(a, args, sizeof *a * (size_t)n_args);
    if (n_rets) memcpy(r, rets, sizeof *r * (size_t)n_rets);
    s->ns = ns;
    s->name = name;
    s->overload = overload ? overload : "";
    s->args = a;
    s->n_args = n_args;
    s->n_positional = n_positional;
    s->rets = r;
    s->n_rets = n_rets;
    int bad = 0;
    const char *msg = analyze_name(arena, s);
    if (!msg) msg = derive(s, a, &bad);
    if (msg && why) *why = msg;
    return msg ? NULL : s;
}

/* ---------------------------------------------------------------- parser */

enum { SG_TOKBUF = 64 };

typedef struct parser {
    sg_arena *arena;
    const char *text;
    sg_lexer lx;
    sg_token tok; /* the current token */
    sg_schema_error *err;
    bool loose;              /* torch.library's parser: whitespace between any tokens */
    char *strs, *strs_end;   /* arena space for the names this schema copies (tok_dup) */
    unsigned bi, bn;         /* the tokens after tok: buf[bi..bn) */
    sg_token buf[SG_TOKBUF]; /* last: not cleared by sg_schema_parse */
} parser;

static uint32_t off_of(const parser *p, const char *at) { return (uint32_t)(at - p->text); }

static uint32_t tok_off(const parser *p) { return p->tok.text ? off_of(p, p->tok.text) : 0; }

/* Keeps the unread tokens and lexes more behind them (gen/schema/schema_lex.re, the one lexer).
 * After the end every further token is SG_TOK_END. */
static void refill(parser *p) {
    unsigned keep = p->bn - p->bi;
    memmove(p->buf, p->buf + p->bi, keep * sizeof *p->buf);
    p->bi = 0;
    p->bn = keep + (unsigned)sg_lexer_fill(&p->lx, p->buf + keep, SG_TOKBUF - keep);
    if (!p->loose) return;
    /* PyTorch's schema parser (the TorchScript lexer) skips whitespace between tokens, so
     * the library grammar never sees a space token; what it accepts prints canonically. */
    unsigned w = keep;
    for (unsigned r = keep; r < p->bn; r++)
        if (p->buf[r].kind != SG_TOK_SPACE) p->buf[w++] = p->buf[r];
    p->bn = w;
}

/* The next token becomes the current one. */
static inline void advance(parser *p) {
    if (p->bi == p->bn) refill(p);
    p->tok = p->buf[p->bi++];
}

/* The token k places after the current one (0: the next). k is small (< SG_TOKBUF). */
static const sg_token *peek(parser *p, unsigned k) {
    while (p->bi + k >= p->bn) refill(p);
    return &p->buf[p->bi + k];
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static bool
fail(parser *p, uint32_t off, const char *fmt, ...) {
    if (p->err) {
        va_list ap;
        va_start(ap, fmt);
        p->err->offset = off;
        vsnprintf(p->err->message, sizeof p->err->message, fmt, ap);
        va_end(ap);
        /* quoted input may hold control or non-ASCII bytes: keep the message plain ASCII */
        for (char *c = p->err->message; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f) *c = '?';
    }
    return false;
}

static void describe(const sg_token *t, char *buf, size_t cap) {
    switch (t->kind) {
    case SG_TOK_END: snprintf(buf, cap, "end of input"); return;
    case SG_TOK_SPACE: snprintf(buf, cap, "whitespace"); return;
    default:
        if (t->len > 32)
            snprintf(buf, cap, "'%.32s...'", t->text);
        else
            snprintf(buf, cap, "'%.*s'", (int)t->len, t->text);
        return;
    }
}

/* The current token is not what the grammar wants here ("expected <what>"). */
static bool unexpected(parser *p, const char *what) {
    const sg_token *t = &p->tok;
    if (t->kind == SG_TOK_ERROR) {
        unsigned char c = (unsigned char)t->text[0];
        if (c == '\'' || c == '"') return fail(p, tok_off(p), "unterminated string literal");
        if (c > 0x20 && c < 0x7f) return fail(p, tok_off(p), "unexpected character '%c'", c);
        return fail(p, tok_off(p), "unexpected byte 0x%02x", c);
    }
    char got[48];
    describe(t, got, sizeof got);
    return fail(p, tok_off(p), "expected %s, got %s", what, got);
}

static bool expect(parser *p, sg_tok_kind k, const char *what) {
    if (p->tok.kind != k) return unexpected(p, what);
    advance(p);
    return true;
}

/* Exactly one ' ': the canonical form is spacing-sensitive (none needed when loose). */
static bool expect_space(parser *p, const char *what) {
    if (p->loose) return true;
    if (p->tok.kind == SG_TOK_SPACE && (p->tok.len != 1 || p->tok.text[0] != ' '))
        return fail(p, tok_off(p), "expected a single space %s", what);
    if (p->tok.kind != SG_TOK_SPACE) {
        char buf[80];
        snprintf(buf, sizeof buf, "a space %s", what);
        return unexpected(p, buf);
    }
    advance(p);
    return true;
}

/* A NUL-terminated copy of the current token, packed into the schema's string space. */
static char *tok_dup(parser *p) {
    size_t n = p->tok.len;
    if ((size_t)(p->strs_end - p->strs) <= n) {
        size_t len = (size_t)(p->lx.end - p->lx.start);
        size_t chunk = len / 2 + 32;
        if (chunk <= n) return sg_arena_strndup(p->arena, p->tok.text, n);
        char *c = sg_arena_alloc(p->arena, chunk);
        if (!c) return NULL;
        p->strs = c;
        p->strs_end = c + chunk;
    }
    char *r = p->strs;
    memcpy(r, p->tok.text, n);
    r[n] = '\0'; /* already zero; kept for clarity */
    p->strs += n + 1;
    return r;
}

static bool oom(parser *p) { return fail(p, tok_off(p), "out of memory"); }

/* A growable array that starts in caller-provided (stack) storage and moves into the
 * arena, doubling, only when that is full; vec_finish leaves an arena array of exactly
 * n elements. So the common case costs one arena allocation per array. */
typedef struct vec {
    void *data;
    int n, cap;
    size_t elsz;
    bool local;
} vec;

static void vec_init(vec *v, void *local, int local_cap, size_t elsz) {
    v->data = local;
    v->n = 0;
    v->cap = local_cap;
    v->elsz = elsz;
    v->local = true;
}

static bool vec_push(sg_arena *a, vec *v, const void *el) {
    if (v->n == v->cap) {
        void *nd = sg_arena_alloc(a, (size_t)v->cap * 2 * v->elsz);
        if (!nd) return false;
        memcpy(nd, v->data, (size_t)v->n * v->elsz);
        v->data = nd;
        v->cap *= 2;
        v->local = false;
    }
    memcpy((char *)v->data + (size_t)v->n * v->elsz, el, v->elsz);
    v->n++;
    return true;
}

/* The final array (NULL when empty), or false on out-of-memory. */
static bool vec_finish(sg_arena *a, vec *v, void *out) {
    void *r = NULL;
    if (v->n > 0 && v->local) {
        if (!(r = sg_arena_alloc(a, (size_t)v->n * v->elsz))) return false;
        memcpy(r, v->data, (size_t)v->n * v->elsz);
    } else if (v->n > 0) {
        r = v->data;
    }
    memcpy(out, &r, sizeof r);
    return true;
}

static bool parse_alias_set(parser *p, const char ***set, int *n, bool allow_star) {
    static const char *const star[1] = {"*"};
    const char *local[4];
    vec v;
    vec_init(&v, local, 4, sizeof local[0]);
    if (allow_star && p->tok.kind == SG_TOK_STAR) {
        advance(p);
        *set = (const char **)star; /* constant, never written */
        *n = 1;
        return true;
    }
    for (;;) {
        if (p->tok.kind != SG_TOK_IDENT)
            return unexpected(p, allow_star ? "an alias name or '*'" : "an alias name");
        const char *name = tok_dup(p);
        if (!name || !vec_push(p->arena, &v, &name)) return oom(p);
        advance(p);
        if (p->tok.kind != SG_TOK_PIPE) break;
        advance(p);
    }
    *n = v.n;
    return vec_finish(p->arena, &v, set) || oom(p);
}

/* The annotations `(x)` and `(x!)` of a one-letter alias set, shared by every schema (most
 * annotations are one of these): k_letter_ann[2 * (x - 'a') + is_write]. */
#define SG_L_(c)                                                                                   \
    { #c }
static const char *k_letters[26][1] = {
    SG_L_(a), SG_L_(b), SG_L_(c), SG_L_(d), SG_L_(e), SG_L_(f), SG_L_(g), SG_L_(h), SG_L_(i),
    SG_L_(j), SG_L_(k), SG_L_(l), SG_L_(m), SG_L_(n), SG_L_(o), SG_L_(p), SG_L_(q), SG_L_(r),
    SG_L_(s), SG_L_(t), SG_L_(u), SG_L_(v), SG_L_(w), SG_L_(x), SG_L_(y), SG_L_(z),
};
#undef SG_L_
#define SG_A_(i)                                                                                   \
    {k_letters[i], 1, false, NULL, 0}, { k_letters[i], 1, true, NULL, 0 }
static const sg_annotation k_letter_ann[52] = {
    SG_A_(0),  SG_A_(1),  SG_A_(2),  SG_A_(3),  SG_A_(4),  SG_A_(5),  SG_A_(6),
    SG_A_(7),  SG_A_(8),  SG_A_(9),  SG_A_(10), SG_A_(11), SG_A_(12), SG_A_(13),
    SG_A_(14), SG_A_(15), SG_A_(16), SG_A_(17), SG_A_(18), SG_A_(19), SG_A_(20),
    SG_A_(21), SG_A_(22), SG_A_(23), SG_A_(24), SG_A_(25),
};
#undef SG_A_

/* After the '(' of `Tensor(...)`. */
static bool parse_annotation(parser *p, const sg_annotation **out) {
    /* `x)` and `x!)`: a shared constant */
    if (p->tok.kind == SG_TOK_IDENT && p->tok.len == 1 && p->tok.text[0] >= 'a' &&
        p->tok.text[0] <= 'z') {
        bool w = peek(p, 0)->kind == SG_TOK_BANG;
        if (peek(p, w)->kind == SG_TOK_RPAREN) {
            *out = &k_letter_ann[2 * (p->tok.text[0] - 'a') + w];
            advance(p);        /* the letter */
            if (w) advance(p); /* '!' */
            advance(p);        /* ')' */
            return true;
        }
    }

    sg_annotation *a = sg_arena_alloc(p->arena, sizeof *a);
    if (!a) return oom(p);
    uint32_t set_off = tok_off(p);
    if (!parse_alias_set(p, &a->alias_set, &a->n_alias_set, false)) return false;
    if (p->tok.kind == SG_TOK_BANG) {
        if (a->n_alias_set > 1)
            return fail(p, set_off, "an alias set of more than one name cannot be written ('!')");
        a->is_write = true;
        advance(p);
    }
    if (p->tok.kind == (p->loose ? SG_TOK_ARROW : SG_TOK_SPACE)) {
        if (!expect_space(p, "before '->' in an annotation") ||
            !expect(p, SG_TOK_ARROW, "'->' in an annotation") ||
            !expect_space(p, "after '->' in an annotation"))
            return false;
        uint32_t after_off = tok_off(p);
        if (!parse_alias_set(p, &a->alias_set_after, &a->n_alias_set_after, true)) return false;
        if (a->n_alias_set > 1 && a->n_alias_set_after > 1)
            return fail(p, after_off,
                        "the alias sets before and after '->' cannot both have several names");
    }
    if (!expect(p, SG_TOK_RPAREN, "')' to close the annotation")) return false;
    *out = a;
    return true;
}

/* Types nest through suffixes; a bound keeps the recursive printers' depth small. */
#define SG_MAX_TYPE_SUFFIXES 16

static bool parse_type(parser *p, const sg_type **out, const sg_annotation **ann,
                       const char *what) {
    *ann = NULL;
    if (p->tok.kind != SG_TOK_IDENT) return unexpected(p, what);
    int b = lookup_base(p->tok.text, p->tok.len);
    if (b < 0) {
        char got[48];
        describe(&p->tok, got, sizeof got);
        return fail(p, tok_off(p), "unknown type %s", got);
    }
    const sg_type *t = &k_base_types[b];
    advance(p);
    if (p->tok.kind == SG_TOK_LPAREN) {
        if (b != SG_BT_TENSOR)
            return fail(p, tok_off(p), "alias annotations are only allowed on Tensor, not on %s",
                        k_base_names[b]);
        advance(p);
        if (!parse_annotation(p, ann)) return false;
    }
    for (int depth = 0;; depth++) {
        bool opt = p->tok.kind == SG_TOK_QUESTION;
        if (!opt && p->tok.kind != SG_TOK_LBRACKET) break;
        if (depth == SG_MAX_TYPE_SUFFIXES)
            return fail(p, tok_off(p), "a type may have at most %d '?' and '[]' suffixes",
                        SG_MAX_TYPE_SUFFIXES);
        advance(p);
        int32_t size = -1;
        if (!opt && p->tok.kind == SG_TOK_INT) {
            const char *d = p->tok.text;
            uint32_t n = p->tok.len;
            long long v = 0;
            bool ok = d[0] != '-' && (n == 1 || d[0] != '0') && n <= 10;
            for (uint32_t i = 0; ok && i < n; i++) v = v * 10 + (d[i] - '0');
            if (!ok || v > INT32_MAX)
                return fail(p, tok_off(p),
                            "a list size must be a non-negative integer without leading "
                            "zeros, below 2^31");
            size = (int32_t)v;
            advance(p);
        }
        if (!opt && !expect(p, SG_TOK_RBRACKET, "a list size or ']'")) return false;
        if (t->kind == SG_TY_BASE && (opt || size < 0)) {
            /* `T?` and `T[]` of a base type share a constant node */
            t = opt ? &k_opt_types[t->base] : &k_list_types[t->base];
            continue;
        }
        sg_type *w = sg_arena_alloc(p->arena, sizeof *w);
        if (!w) return oom(p);
        w->kind = opt ? SG_TY_OPTIONAL : SG_TY_LIST;
        w->elem = t;
        w->size = size;
        t = w;
    }
    *out = t;
    return true;
}

/* ---- defaults */

static bool parse_int64(const char *s, size_t n, int64_t *out) {
    bool neg = s[0] == '-';
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (size_t i = neg; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (lim - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return true;
}

/* Decimal text to double. Exact (Clinger's fast path) when the digits fit in 2^53 and the
 * power of ten is at most 22, which covers every default PyTorch writes; otherwise strtod
 * on a copy whose '.' is replaced by the locale's decimal point. */
static double parse_double(const char *s, size_t n) {
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    size_t i = 0;
    bool neg = false, exact = true;
    uint64_t m = 0;
    long e10 = 0;
    if (i < n && s[i] == '-') {
        neg = true;
        i++;
    }
    for (; i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'); i++) {
        if (s[i] == '.') {
            for (size_t j = i + 1; j < n && s[j] >= '0' && s[j] <= '9'; j++) e10--;
            continue;
        }
        if (m > (UINT64_C(1) << 53) / 10)
            exact = false;
        else
            m = m * 10 + (uint64_t)(s[i] - '0');
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        long ev = 0;
        if (i < n && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
        for (; i < n; i++) ev = ev < 100000 ? ev * 10 + (s[i] - '0') : ev;
        e10 += eneg ? -ev : ev;
    }
    if (exact && m <= (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22) {
        double v = (double)m;
        v = e10 < 0 ? v / pow10[-e10] : v * pow10[e10];
        return neg ? -v : v;
    }
    char buf[128];
    if (n >= sizeof buf) n = sizeof buf - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    const char *dp = localeconv()->decimal_point;
    char *dot = memchr(buf, '.', n);
    if (dot && dp && dp[0] && !dp[1]) *dot = dp[0];
    return strtod(buf, NULL);
}

static char *unescape(parser *p, const char *s, size_t n) {
    /* s[0] and s[n-1] are the quotes. */
    char *out = sg_arena_alloc(p->arena, n);
    if (!out) return NULL;
    size_t k = 0;
    for (size_t i = 1; i + 1 < n; i++) {
        char c = s[i];
        if (c == '\\' && i + 2 < n) {
            char e = s[++i];
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case '0': c = '\0'; break;
            case '\\':
            case '\'':
            case '"': c = e; break;
            default:
                out[k++] = '\\';
                c = e;
                break;
            }
        }
        out[k++] = c;
    }
    out[k] = '\0';
    return out;
}

static bool tok_is(const sg_token *t, const char *word) {
    return t->kind == SG_TOK_IDENT && strlen(word) == t->len && memcmp(t->text, word, t->len) == 0;
}

/* Whether a single literal token may be the default (or a list element) of type t. */
static bool literal_fits(const sg_type *t, const sg_token *v) {
    bool is_none = tok_is(v, "None");
    bool is_bool = tok_is(v, "True") || tok_is(v, "False");
    bool is_ident = v->kind == SG_TOK_IDENT && !is_none && !is_bool;
    if (t->kind == SG_TY_OPTIONAL) return is_none || literal_fits(t->elem, v);
    if (t->kind == SG_TY_LIST) /* a scalar for a whole list: `int[2] stride=1` */
        return !is_none && t->elem->kind == SG_TY_BASE && literal_fits(t->elem, v);
    switch (t->base) {
    case SG_BT_INT:
    case SG_BT_SYMINT:
    case SG_BT_DEVICE_INDEX:
        return v->kind == SG_TOK_INT || is_ident; /* at::Reduction::Mean, ... */
    case SG_BT_FLOAT:
    case SG_BT_SYMFLOAT:
    case SG_BT_COMPLEX: return v->kind == SG_TOK_INT || v->kind == SG_TOK_FLOAT;
    case SG_BT_BOOL:
    case SG_BT_SYMBOOL: return is_bool;
    case SG_BT_SCALAR: return v->kind == SG_TOK_INT || v->kind == SG_TOK_FLOAT || is_bool;
    case SG_BT_STR: return v->kind == SG_TOK_STRING;
    case SG_BT_SCALAR_TYPE:
    case SG_BT_LAYOUT:
    case SG_BT_MEMORY_FORMAT:
    case SG_BT_QSCHEME: return is_ident;
    case SG_BT_DEVICE:
    case SG_BT_DIMNAME: return is_ident || v->kind == SG_TOK_STRING;
    case SG_BT_ANY: return true;
    default: return false;
    }
}

static bool bad_default(parser *p, const sg_type *t, uint32_t off, const char *start, size_t n) {
    char ty[64];
    sg_type_print(t, NULL, ty, sizeof ty);
    if (n > 40) return fail(p, off, "default value '%.40s...' does not fit type %s", start, ty);
    return fail(p, off, "default value '%.*s' does not fit type %s", (int)n, start, ty);
}

static bool is_literal(const sg_token *t) {
    return t->kind == SG_TOK_INT || t->kind == SG_TOK_FLOAT || t->kind == SG_TOK_STRING ||
           t->kind == SG_TOK_IDENT;
}

/* The text of a list default without the whitespace the loose grammar let through
 * ("[1, 2]" -> "[1,2]", the canonical form); quoted elements are kept as written. */
static char *squeeze(sg_arena *a, const char *s, size_t n) {
    char *out = sg_arena_alloc(a, n + 1);
    if (!out) return NULL;
    size_t k = 0;
    char quote = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (quote) {
            if (c == '\\' && i + 1 < n) {
                out[k++] = c;
                c = s[++i];
            } else if (c == quote) {
                quote = 0;
            }
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            continue;
        }
        out[k++] = c;
    }
    out[k] = '\0';
    return out;
}

/* After '='. */
static bool parse_default(parser *p, sg_arg *a) {
    const char *start = p->tok.text;
    uint32_t off = tok_off(p);
    const sg_type *t = a->type;
    if (p->tok.kind == SG_TOK_LBRACKET) {
        const sg_type *lt = t->kind == SG_TY_OPTIONAL ? t->elem : t;
        bool fits = lt->kind == SG_TY_LIST;
        advance(p);
        if (p->tok.kind != SG_TOK_RBRACKET) {
            for (;;) {
                if (!is_literal(&p->tok)) return unexpected(p, "a list element");
                if (fits && (lt->elem->kind == SG_TY_LIST || !literal_fits(lt->elem, &p->tok)))
                    fits = false;
                advance(p);
                if (p->tok.kind == SG_TOK_RBRACKET) break;
                if (!expect(p, SG_TOK_COMMA, "',' or ']' in a list default")) return false;
            }
        }
        size_t n = (size_t)(p->tok.text + p->tok.len - start);
        advance(p);
        if (!fits) return bad_default(p, t, off, start, n);
        a->default_kind = SG_DEF_LIST;
        a->default_text =
            p->loose ? squeeze(p->arena, start, n) : sg_arena_strndup(p->arena, start, n);
        return a->default_text || oom(p);
    }
    if (p->loose && p->tok.kind == SG_TOK_ERROR && p->tok.len == 1 && p->tok.text[0] == '-' &&
        (peek(p, 0)->kind == SG_TOK_INT || peek(p, 0)->kind == SG_TOK_FLOAT) &&
        peek(p, 0)->text[0] != '-') {
        /* `int a=- 1`: PyTorch's lexer reads the sign as its own token */
        sg_token num = *peek(p, 0);
        char *joined = sg_arena_alloc(p->arena, (size_t)num.len + 2);
        if (!joined) return oom(p);
        joined[0] = '-';
        memcpy(joined + 1, num.text, num.len);
        joined[num.len + 1] = '\0';
        advance(p);
        p->tok.text = joined;
        p->tok.len = num.len + 1;
    }
    if (!is_literal(&p->tok)) return unexpected(p, "a default value after '='");
    sg_token v = p->tok;
    if (!literal_fits(t, &v)) return bad_default(p, t, off, start, v.len);
    a->default_text = tok_dup(p);
    if (!a->default_text) return oom(p);
    switch (v.kind) {
    case SG_TOK_INT:
        a->default_kind = SG_DEF_INT;
        if (!parse_int64(v.text, v.len, &a->default_value.i))
            return fail(p, off, "integer default out of the range of int64");
        break;
    case SG_TOK_FLOAT:
        a->default_kind = SG_DEF_FLOAT;
        a->default_value.f = parse_double(v.text, v.len);
        /* PyTorch's parser (c10::stod) refuses it too; C has no literal for it */
        if (a->default_value.f - a->default_value.f != 0)
            return fail(p, off, "float default out of the range of double");
        break;
    case SG_TOK_STRING:
        a->default_kind = SG_DEF_STRING;
        if (!(a->default_value.s = unescape(p, v.text, v.len))) return oom(p);
        break;
    default:
        if (tok_is(&v, "True") || tok_is(&v, "False")) {
            a->default_kind = SG_DEF_BOOL;
            a->default_value.i = v.text[0] == 'T';
        } else if (tok_is(&v, "None")) {
            a->default_kind = SG_DEF_NONE;
        } else {
            a->default_kind = SG_DEF_IDENT;
            a->default_value.s = a->default_text;
        }
        break;
    }
    advance(p);
    return true;
}

/* The argument names seen so far, for the duplicate check: a linear scan while there are
 * few, then an open-addressing hash table of argument indices (so a schema with a
 * million arguments is checked in linear time, not quadratic). */
typedef struct name_set {
    int *slots; /* index + 1; 0: empty */
    size_t cap; /* a power of two, 0 while scanning */
    int n;      /* arguments in the table */
} name_set;

static uint64_t name_hash(const char *s, size_t n) {
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

static bool same_name(const char *name, const sg_token *t) {
    return strncmp(name, t->text, t->len) == 0 && name[t->len] == '\0';
}

/* Index of an earlier argument named as the current token, -1 when none, -2 out of memory.
 * args[0..n) are the arguments so far, all of them in the table when it exists. */
static int find_name(parser *p, name_set *ns, const sg_arg *args, int n) {
    if (n < 16) {
        for (int i = 0; i < n; i++)
            if (same_name(args[i].name, &p->tok)) return i;
        return -1;
    }
    if ((size_t)n * 2 >= ns->cap) { /* (re)build at twice the size */
        size_t cap = ns->cap ? ns->cap * 2 : 64;
        while ((size_t)n * 2 >= cap) cap *= 2;
        int *slots = sg_arena_alloc(p->arena, cap * sizeof *slots);
        if (!slots) return -2;
        memset(slots, 0, cap * sizeof *slots);
        ns->slots = slots;
        ns->cap = cap;
        ns->n = 0;
    }
    for (; ns->n < n; ns->n++) {
        const char *nm = args[ns->n].name;
        size_t i = name_hash(nm, strlen(nm)) & (ns->cap - 1);
        while (ns->slots[i]) i = (i + 1) & (ns->cap - 1);
        ns->slots[i] = ns->n + 1;
    }
    for (size_t i = name_hash(p->tok.text, p->tok.len) & (ns->cap - 1); ns->slots[i];
         i = (i + 1) & (ns->cap - 1))
        if (same_name(args[ns->slots[i] - 1].name, &p->tok)) return ns->slots[i] - 1;
    return -1;
}

static bool parse_args(parser *p, sg_schema *s) {
    name_set names = {NULL, 0, 0};
    sg_arg local[32];
    vec v;
    vec_init(&v, local, 32, sizeof local[0]);
    int star_at = -1; /* argument index where the kwarg-only part starts */
    uint32_t star_off = 0;
    if (p->tok.kind != SG_TOK_RPAREN) {
        for (;;) {
            if (p->tok.kind == SG_TOK_STAR && p->loose) {
                /* PyTorch's parser: every argument after a '*' is keyword-only; a second
                 * '*' or one at the end changes nothing. */
                if (star_at < 0) star_at = v.n;
                advance(p);
            } else if (p->tok.kind == SG_TOK_STAR) {
                if (star_at >= 0)
                    return fail(p, tok_off(p), "the keyword-only marker '*' may appear only once");
                star_at = v.n;
                star_off = tok_off(p);
                advance(p);
                if (p->tok.kind == SG_TOK_RPAREN)
                    return fail(p, star_off, "'*' must be followed by an argument");
            } else {
                sg_arg a;
                memset(&a, 0, sizeof a);
                a.offset = tok_off(p);
                if (!parse_type(p, &a.type, &a.annotation, "an argument type or '*'") ||
                    !expect_space(p, "between an argument's type and its name"))
                    return false;
                if (p->tok.kind != SG_TOK_IDENT) return unexpected(p, "an argument name");
                const sg_arg *prev = v.data;
                int dup = find_name(p, &names, prev, v.n);
                if (dup == -2) return oom(p);
                if (dup >= 0)
                    return fail(p, tok_off(p), "duplicate argument name '%s'", prev[dup].name);
                if (!(a.name = tok_dup(p))) return oom(p);
                advance(p);
                if (p->tok.kind == SG_TOK_EQUALS) {
                    advance(p);
                    if (!parse_default(p, &a)) return false;
                }
                if (!vec_push(p->arena, &v, &a)) return oom(p);
            }
            if (p->tok.kind == SG_TOK_RPAREN) break;
            if (!expect(p, SG_TOK_COMMA, "',' or ')' after an argument") ||
                !expect_space(p, "after ','"))
                return false;
            if (p->tok.kind == SG_TOK_RPAREN && star_at == v.n && !p->loose)
                return fail(p, star_off, "'*' must be followed by an argument");
        }
    }
    sg_arg *args;
    if (!vec_finish(p->arena, &v, &args)) return oom(p);
    s->args = args;
    s->n_args = v.n;
    s->n_positional = star_at >= 0 ? star_at : v.n;
    int bad = 0;
    const char *msg = derive(s, args, &bad);
    if (msg) return fail(p, args[bad].offset, "%s", msg);
    return true;
}

static bool parse_return(parser *p, vec *v) {
    sg_return r;
    memset(&r, 0, sizeof r);
    if (!parse_type(p, &r.type, &r.annotation, "a return type")) return false;
    if (p->tok.kind == (p->loose ? SG_TOK_IDENT : SG_TOK_SPACE)) {
        if (!p->loose && (p->tok.len != 1 || p->tok.text[0] != ' '))
            return fail(p, tok_off(p), "unexpected whitespace after a return type");
        if (!expect_space(p, "between a return's type and its name")) return false;
        if (p->tok.kind != SG_TOK_IDENT) return unexpected(p, "a return name");
        const sg_return *prev = v->data;
        for (int i = 0; i < v->n; i++)
            if (prev[i].name && strlen(prev[i].name) == p->tok.len &&
                memcmp(prev[i].name, p->tok.text, p->tok.len) == 0)
                return fail(p, tok_off(p), "duplicate return name '%s'", prev[i].name);
        if (!(r.name = tok_dup(p))) return oom(p);
        advance(p);
    }
    return vec_push(p->arena, v, &r) || oom(p);
}

static bool parse_returns(parser *p, sg_schema *s) {
    sg_return local[8];
    vec v;
    vec_init(&v, local, 8, sizeof local[0]);
    if (p->tok.kind == SG_TOK_LPAREN) {
        uint32_t lp = tok_off(p);
        advance(p);
        if (p->tok.kind != SG_TOK_RPAREN) {
            for (;;) {
                if (!parse_return(p, &v)) return false;
                if (p->tok.kind == SG_TOK_RPAREN) break;
                if (!expect(p, SG_TOK_COMMA, "',' or ')' after a return") ||
                    !expect_space(p, "after ','"))
                    return false;
            }
            if (v.n == 1 && !p->loose)
                return fail(p, lp, "a single return is written without parentheses");
        }
        advance(p); /* ')' */
    } else if (!parse_return(p, &v)) {
        return false;
    }
    sg_return *rets;
    if (!vec_finish(p->arena, &v, &rets)) return oom(p);
    s->rets = rets;
    s->n_rets = v.n;
    return true;
}

const sg_schema *sg_schema_parse(sg_arena *arena, const char *text, size_t len,
                                 sg_schema_error *err) {
    parser p;
    memset(&p, 0, offsetof(parser, buf));
    p.arena = arena;
    p.text = text;
    p.err = err;
    p.loose = tls_library_rules;
    if (err) {
        err->offset = 0;
        err->message[0] = '\0';
    }
    if (!arena) {
        fail(&p, 0, "no arena");
        return NULL;
    }
    if (!text && len > 0) {
        fail(&p, 0, "no text");
        return NULL;
    }
    if (len == 0) {
        fail(&p, 0, "empty schema");
        return NULL;
    }
    if (len >= UINT32_MAX) {
        fail(&p, 0, "schema text too long");
        return NULL;
    }
    sg_schema *s = sg_arena_alloc(arena, sizeof *s);
    if (!s) {
        fail(&p, 0, "out of memory");
        return NULL;
    }
    sg_lexer_init(&p.lx, text, len);
    advance(&p);

    /* [ns::]name[.overload] */
    if (p.tok.kind != SG_TOK_IDENT) {
        unexpected(&p, "an operator name");
        return NULL;
    }
    uint32_t name_off = tok_off(&p);
    const char *first = tok_dup(&p);
    if (!first) {
        oom(&p);
        return NULL;
    }
    advance(&p);
    if (p.tok.kind == SG_TOK_COLONCOLON) {
        s->ns = first;
        advance(&p);
        if (p.tok.kind != SG_TOK_IDENT) {
            unexpected(&p, "an operator name after '::'");
            return NULL;
        }
        name_off = tok_off(&p);
        if (!(first = tok_dup(&p))) {
            oom(&p);
            return NULL;
        }
        advance(&p);
    }
    s->name = first;
    s->overload = "";
    if (p.tok.kind == SG_TOK_DOT) {
        advance(&p);
        if (p.tok.kind != SG_TOK_IDENT) {
            unexpected(&p, "an overload name after '.'");
            return NULL;
        }
        if (!(s->overload = tok_dup(&p))) {
            oom(&p);
            return NULL;
        }
        advance(&p);
    }
    const char *msg = analyze_name(arena, s);
    if (msg) {
        fail(&p, name_off, "%s", msg);
        return NULL;
    }
    if (!expect(&p, SG_TOK_LPAREN, "'(' after the operator name") || !parse_args(&p, s) ||
        !expect(&p, SG_TOK_RPAREN, "')'"))
        return NULL;
    if (p.tok.kind == SG_TOK_END) {
        fail(&p, tok_off(&p), "missing return type: expected ' -> ' after the arguments");
        return NULL;
    }
    if (!expect_space(&p, "before '->'") || !expect(&p, SG_TOK_ARROW, "'->' after the arguments") ||
        !expect_space(&p, "after '->'") || !parse_returns(&p, s))
        return NULL;
    if (p.tok.kind != SG_TOK_END) {
        unexpected(&p, "the end of the schema after the returns");
        return NULL;
    }
    return s;
}

const sg_schema *sg_schema_parse_library(sg_arena *arena, const char *text, size_t len,
                                         sg_schema_error *err) {
    tls_library_rules = true;
    const sg_schema *s = sg_schema_parse(arena, text, len, err);
    tls_library_rules = false;
    return s;
}

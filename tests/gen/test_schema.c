/* tests/gen/test_schema.c: the function-schema grammar (gen/schema/schema.h). */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "schema.h"

/* ------------------------------------------------------------------ helpers */

static sg_arena *arena;

static void setup(void) {
    arena = sg_arena_new();
    cr_assert_not_null(arena);
}

static void teardown(void) {
    sg_arena_free(arena);
    arena = NULL;
}

TestSuite(schema, .init = setup, .fini = teardown);

static const sg_schema *parse_ok(const char *text) {
    sg_schema_error err;
    const sg_schema *s = sg_schema_parse(arena, text, strlen(text), &err);
    cr_assert_not_null(s, "parse failed: %s\n  at %u: %s", text, err.offset, err.message);
    return s;
}

static int find_arg(const sg_schema *s, const char *name) {
    for (int i = 0; i < s->n_args; i++)
        if (strcmp(s->args[i].name, name) == 0) return i;
    return -1;
}

static const sg_arg *arg_named(const sg_schema *s, const char *name) {
    int i = find_arg(s, name);
    cr_assert_geq(i, 0, "no argument %s", name);
    return &s->args[i];
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = (size_t)n;
    }
    return buf;
}

/* The `- func: ` lines of PyTorch's native_functions.yaml, found by a plain line scan
 * (independent of the YAML loader). Pointers into *data; the caller frees data and funcs. */
typedef struct func_line {
    const char *text;
    size_t len;
} func_line;

static func_line *load_funcs(char **data, int *n) {
    const char *shared = getenv("SHIMGEN_SHARED");
    if (!shared || !*shared)
        cr_skip_test("SHIMGEN_SHARED not set: no PyTorch data (.ci/pytorch-data)");
    char path[4096];
    snprintf(path, sizeof path, "%s/pytorch/native_functions.yaml", shared);
    size_t len = 0;
    *data = read_file(path, &len);
    cr_assert_not_null(*data, "cannot read %s", path);
    func_line *out = malloc(sizeof *out * 4096);
    int k = 0;
    const char *p = *data, *end = *data + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        if (eol - p > 8 && memcmp(p, "- func: ", 8) == 0) {
            const char *t = p + 8, *e = eol;
            if (e > t && e[-1] == '\r') e--;
            cr_assert_lt(k, 4096);
            out[k].text = t;
            out[k].len = (size_t)(e - t);
            k++;
        }
        p = eol + 1;
    }
    *n = k;
    return out;
}

/* ------------------------------------------------------------------ PyTorch's file */

Test(schema, native_functions_round_trip) {
    char *data;
    int n;
    func_line *funcs = load_funcs(&data, &n);
    cr_assert_eq(n, 2590, "found %d func: lines (torch 2.15.0's file has 2,590)", n);
    char out[8192];
    for (int i = 0; i < n; i++) {
        sg_schema_error err;
        const sg_schema *s = sg_schema_parse(arena, funcs[i].text, funcs[i].len, &err);
        cr_assert_not_null(s, "%.*s\n  at %u: %s", (int)funcs[i].len, funcs[i].text, err.offset,
                           err.message);
        size_t m = sg_schema_print(s, out, sizeof out);
        cr_assert_eq(m, funcs[i].len, "%.*s\n  printed %s", (int)funcs[i].len, funcs[i].text, out);
        cr_assert(memcmp(out, funcs[i].text, m) == 0, "%.*s\n  printed %s", (int)funcs[i].len,
                  funcs[i].text, out);
    }
    free(funcs);
    free(data);
}

/* Every schema of the file parses from a malloc'd buffer of exactly its length (no NUL
 * after it): under ASan any read past the end is a finding. */
Test(schema, native_functions_exact_buffers) {
    char *data;
    int n;
    func_line *funcs = load_funcs(&data, &n);
    for (int i = 0; i < n; i++) {
        char *copy = malloc(funcs[i].len);
        memcpy(copy, funcs[i].text, funcs[i].len);
        cr_assert_not_null(sg_schema_parse(arena, copy, funcs[i].len, NULL));
        /* and every prefix of the first few hundred: none reads past its end, and those
         * that parse (`... -> Tensor` of `... -> Tensor(a!)`) print back as they are */
        if (i < 300)
            for (size_t k = 0; k < funcs[i].len; k++) {
                const sg_schema *s = sg_schema_parse(arena, copy, k, NULL);
                char out[4096];
                if (s) {
                    cr_assert_eq(sg_schema_print(s, out, sizeof out), k);
                    cr_assert(memcmp(out, copy, k) == 0);
                }
            }
        free(copy);
    }
    free(funcs);
    free(data);
}

/* ------------------------------------------------------------------ lexer */

typedef struct tok_want {
    sg_tok_kind kind;
    const char *text;
} tok_want;

static void lex_expect(const char *text, size_t len, const tok_want *want, int n) {
    sg_lexer lx;
    sg_lexer_init(&lx, text, len);
    for (int i = 0; i < n; i++) {
        sg_token t = sg_lexer_next(&lx);
        cr_assert_eq(t.kind, want[i].kind, "token %d of '%s': kind %d, want %d", i, text, t.kind,
                     want[i].kind);
        cr_assert_eq(t.len, strlen(want[i].text), "token %d of '%s': '%.*s', want '%s'", i, text,
                     (int)t.len, t.text, want[i].text);
        cr_assert(memcmp(t.text, want[i].text, t.len) == 0, "token %d: '%.*s', want '%s'", i,
                  (int)t.len, t.text, want[i].text);
    }
    /* END is repeatable */
    cr_assert_eq(sg_lexer_next(&lx).kind, SG_TOK_END);
    cr_assert_eq(sg_lexer_next(&lx).kind, SG_TOK_END);
    /* the parser's batches give the same tokens, whatever the batch size, then END */
    for (size_t cap = 1; cap <= 5; cap += 2) {
        sg_lexer_init(&lx, text, len);
        sg_token buf[5];
        int i = 0;
        bool ended = false;
        while (!ended) {
            size_t got = sg_lexer_fill(&lx, buf, cap);
            cr_assert(got >= 1 && got <= cap);
            for (size_t j = 0; j < got; j++, i++) {
                if (i == n) {
                    cr_assert_eq(buf[j].kind, SG_TOK_END, "batch %zu: token %d of '%s'", cap, i,
                                 text);
                    cr_assert_eq(j + 1, got, "batch %zu: tokens after END", cap);
                    ended = true;
                    break;
                }
                cr_assert_eq(buf[j].kind, want[i].kind, "batch %zu: token %d of '%s'", cap, i,
                             text);
                cr_assert_eq(buf[j].len, strlen(want[i].text));
            }
        }
    }
}

Test(schema, lexer_tokens) {
    static const char text[] =
        "aten::add.out(Tensor(a! -> *)[] x, int y=-1, float z=1e-05, str s='a\\'b', *) -> ()";
    static const tok_want want[] = {
        {SG_TOK_IDENT, "aten"},     {SG_TOK_COLONCOLON, "::"}, {SG_TOK_IDENT, "add"},
        {SG_TOK_DOT, "."},          {SG_TOK_IDENT, "out"},     {SG_TOK_LPAREN, "("},
        {SG_TOK_IDENT, "Tensor"},   {SG_TOK_LPAREN, "("},      {SG_TOK_IDENT, "a"},
        {SG_TOK_BANG, "!"},         {SG_TOK_SPACE, " "},       {SG_TOK_ARROW, "->"},
        {SG_TOK_SPACE, " "},        {SG_TOK_STAR, "*"},        {SG_TOK_RPAREN, ")"},
        {SG_TOK_LBRACKET, "["},     {SG_TOK_RBRACKET, "]"},    {SG_TOK_SPACE, " "},
        {SG_TOK_IDENT, "x"},        {SG_TOK_COMMA, ","},       {SG_TOK_SPACE, " "},
        {SG_TOK_IDENT, "int"},      {SG_TOK_SPACE, " "},       {SG_TOK_IDENT, "y"},
        {SG_TOK_EQUALS, "="},       {SG_TOK_INT, "-1"},        {SG_TOK_COMMA, ","},
        {SG_TOK_SPACE, " "},        {SG_TOK_IDENT, "float"},   {SG_TOK_SPACE, " "},
        {SG_TOK_IDENT, "z"},        {SG_TOK_EQUALS, "="},      {SG_TOK_FLOAT, "1e-05"},
        {SG_TOK_COMMA, ","},        {SG_TOK_SPACE, " "},       {SG_TOK_IDENT, "str"},
        {SG_TOK_SPACE, " "},        {SG_TOK_IDENT, "s"},       {SG_TOK_EQUALS, "="},
        {SG_TOK_STRING, "'a\\'b'"}, {SG_TOK_COMMA, ","},       {SG_TOK_SPACE, " "},
        {SG_TOK_STAR, "*"},         {SG_TOK_RPAREN, ")"},      {SG_TOK_SPACE, " "},
        {SG_TOK_ARROW, "->"},       {SG_TOK_SPACE, " "},       {SG_TOK_LPAREN, "("},
        {SG_TOK_RPAREN, ")"},
    };
    lex_expect(text, strlen(text), want, (int)(sizeof want / sizeof want[0]));
}

Test(schema, lexer_numbers_and_strings) {
    static const char text[] = "0 -12 1.0 .5 2. 1E+3 -0.5 1e 9x \"d\\\"q\" 'a\"b' _x9?|";
    static const tok_want want[] = {
        {SG_TOK_INT, "0"},      {SG_TOK_SPACE, " "},       {SG_TOK_INT, "-12"},
        {SG_TOK_SPACE, " "},    {SG_TOK_FLOAT, "1.0"},     {SG_TOK_SPACE, " "},
        {SG_TOK_FLOAT, ".5"},   {SG_TOK_SPACE, " "},       {SG_TOK_FLOAT, "2."},
        {SG_TOK_SPACE, " "},    {SG_TOK_FLOAT, "1E+3"},    {SG_TOK_SPACE, " "},
        {SG_TOK_FLOAT, "-0.5"}, {SG_TOK_SPACE, " "},       {SG_TOK_INT, "1"},
        {SG_TOK_IDENT, "e"},    {SG_TOK_SPACE, " "},       {SG_TOK_INT, "9"},
        {SG_TOK_IDENT, "x"},    {SG_TOK_SPACE, " "},       {SG_TOK_STRING, "\"d\\\"q\""},
        {SG_TOK_SPACE, " "},    {SG_TOK_STRING, "'a\"b'"}, {SG_TOK_SPACE, " "},
        {SG_TOK_IDENT, "_x9"},  {SG_TOK_QUESTION, "?"},    {SG_TOK_PIPE, "|"},
    };
    lex_expect(text, strlen(text), want, (int)(sizeof want / sizeof want[0]));
}

Test(schema, lexer_errors) {
    /* a bad byte is one ERROR token and lexing goes on after it */
    static const tok_want w1[] = {{SG_TOK_IDENT, "a"}, {SG_TOK_ERROR, "$"},
                                  {SG_TOK_IDENT, "b"}, {SG_TOK_ERROR, ":"},
                                  {SG_TOK_ERROR, "-"}, {SG_TOK_SPACE, " \t\n"}};
    lex_expect("a$b:- \t\n", 8, w1, 6);
    /* an unterminated string runs to the end, whatever it holds */
    static const tok_want w2[] = {{SG_TOK_EQUALS, "="}, {SG_TOK_ERROR, "'ab\\' c"}};
    lex_expect("='ab\\' c", 8, w2, 2);
    static const tok_want w3[] = {{SG_TOK_ERROR, "\"x\\"}};
    lex_expect("\"x\\", 3, w3, 1);
    /* a NUL byte inside the text is an error, not the end */
    static const tok_want w4[] = {{SG_TOK_IDENT, "a"}, {SG_TOK_ERROR, ""}, {SG_TOK_IDENT, "b"}};
    sg_lexer lx;
    sg_lexer_init(&lx, "a\0b", 3);
    sg_token t = sg_lexer_next(&lx);
    cr_assert_eq(t.kind, w4[0].kind);
    t = sg_lexer_next(&lx);
    cr_assert_eq(t.kind, SG_TOK_ERROR);
    cr_assert_eq(t.len, 1);
    t = sg_lexer_next(&lx);
    cr_assert_eq(t.kind, SG_TOK_IDENT);
    cr_assert_eq(sg_lexer_next(&lx).kind, SG_TOK_END);
    /* empty and NULL input */
    lex_expect("", 0, NULL, 0);
    lex_expect(NULL, 0, NULL, 0);
    /* the length, not a NUL, ends the text */
    static const tok_want w5[] = {{SG_TOK_IDENT, "ab"}};
    lex_expect("abcdef", 2, w5, 1);
}

/* Texts placed so that their last byte is the last byte of a readable page, followed by
 * a PROT_NONE page: a read past the end faults. Every prefix of each text is lexed to
 * the end and parsed. */
Test(schema, lexer_never_reads_past_len) {
    static const char *const texts[] = {
        "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
        "_test_string_default(Tensor dummy, str a=\"\\\"'\\\\\", str b='\"\\'\\\\') -> Tensor",
        "f(float x=-1.5e-05, int[2] y=[-2,-1], MemoryFormat m=contiguous_format) -> (Tensor a, "
        "Tensor b)",
        "chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]",
        "aten::g(str s='unterminated",
        "x::",
        "y-",
        "z1e",
        "z1e+",
        "w1.",
        "'\\",
        "\"",
        "$",
    };
    long page = sysconf(_SC_PAGESIZE);
    char *map =
        mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(map, MAP_FAILED);
    cr_assert_eq(mprotect(map + page, (size_t)page, PROT_NONE), 0);
    char *limit = map + page;
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        size_t n = strlen(texts[i]);
        for (size_t k = 0; k <= n; k++) {
            char *at = limit - k;
            memcpy(at, texts[i], k);
            sg_lexer lx;
            sg_lexer_init(&lx, at, k);
            int guard = 0;
            while (sg_lexer_next(&lx).kind != SG_TOK_END) cr_assert_lt(++guard, 1000);
            cr_assert_eq(lx.cur, limit);
            sg_schema_error err;
            const sg_schema *s = sg_schema_parse(arena, at, k, &err);
            if (!s) {
                cr_assert_leq(err.offset, k);
            } else { /* some prefixes are schemas too ("... -> Tensor(a)" of "... -> Tensor(a)[]") */
                char out[256];
                cr_assert_eq(sg_schema_print(s, out, sizeof out), k);
                cr_assert(memcmp(out, at, k) == 0);
            }
        }
    }
    munmap(map, (size_t)page * 2);
}

/* ------------------------------------------------------------------ kinds and flags */

Test(schema, inplace_add) {
    const sg_schema *s =
        parse_ok("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
    cr_assert_null(s->ns);
    cr_assert_str_eq(s->name, "add_");
    cr_assert_str_eq(s->overload, "Tensor");
    cr_assert_str_eq(s->base, "add");
    cr_assert(s->inplace);
    cr_assert_not(s->dunder_method);
    cr_assert_not(s->functional_overload);
    cr_assert_eq(s->kind, SG_KIND_INPLACE);
    cr_assert_eq(s->n_args, 3);
    cr_assert_eq(s->n_positional, 2);
    cr_assert(s->has_star);
    cr_assert_eq(s->self_index, 0);
    cr_assert_eq(s->out_start, 3);
    cr_assert_eq(s->tensor_options_start, -1);
    cr_assert(sg_arg_is_mutable(&s->args[0]));
    cr_assert_not(s->args[0].is_out);
    cr_assert(s->args[2].kwarg_only);
    cr_assert_not(s->args[1].kwarg_only);
    cr_assert_eq(s->args[2].default_kind, SG_DEF_INT);
    cr_assert_eq(s->args[2].default_value.i, 1);
    cr_assert_str_eq(s->args[2].default_text, "1");
    cr_assert_eq(s->n_rets, 1);
    cr_assert_null(s->rets[0].name);
    cr_assert_not_null(s->rets[0].annotation);
    cr_assert(s->rets[0].annotation->is_write);
    cr_assert_str_eq(s->rets[0].annotation->alias_set[0], "a");
    cr_assert_eq(s->args[0].offset, 12);
    cr_assert_eq(s->args[1].offset, 29);
}

Test(schema, out_add) {
    const sg_schema *s = parse_ok(
        "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
    cr_assert_eq(s->kind, SG_KIND_OUT);
    cr_assert_not(s->inplace);
    cr_assert_str_eq(s->base, "add");
    cr_assert_eq(s->n_args, 4);
    cr_assert_eq(s->n_positional, 2);
    cr_assert_eq(s->out_start, 3);
    cr_assert(s->args[3].is_out);
    cr_assert(s->args[3].kwarg_only);
    cr_assert_not(s->args[2].is_out);
    cr_assert(s->args[2].kwarg_only);
    cr_assert_eq(s->self_index, 0);
}

Test(schema, functional_overload) {
    const sg_schema *s = parse_ok(
        "_fused_moving_avg_obs_fq_helper_functional(Tensor self, Tensor observer_on, Tensor "
        "fake_quant_on, Tensor running_min, Tensor running_max, Tensor scale, Tensor zero_point, "
        "float averaging_const, int quant_min, int quant_max, int ch_axis, bool "
        "per_row_fake_quant=False, bool symmetric_quant=False) -> (Tensor output, Tensor mask, "
        "Tensor running_min_out, Tensor running_max_out, Tensor scale_out, Tensor zero_point_out)");
    cr_assert(s->functional_overload);
    cr_assert_str_eq(s->base, "_fused_moving_avg_obs_fq_helper");
    cr_assert_not(s->inplace);
    cr_assert_eq(s->kind, SG_KIND_FUNCTIONAL);
    cr_assert_eq(s->n_rets, 6);
    cr_assert_str_eq(s->rets[5].name, "zero_point_out");
    cr_assert_eq(arg_named(s, "symmetric_quant")->default_kind, SG_DEF_BOOL);
    cr_assert_eq(arg_named(s, "symmetric_quant")->default_value.i, 0);
}

Test(schema, mutable_kind) {
    const sg_schema *s = parse_ok(
        "_fused_moving_avg_obs_fq_helper(Tensor self, Tensor observer_on, Tensor fake_quant_on, "
        "Tensor(a!) running_min, Tensor(b!) running_max, Tensor(c!) scale, Tensor(d!) zero_point, "
        "float averaging_const, int quant_min, int quant_max, int ch_axis, bool "
        "per_row_fake_quant=False, bool symmetric_quant=False) -> (Tensor output, Tensor mask)");
    cr_assert_eq(s->kind, SG_KIND_MUTABLE);
    cr_assert_not(s->functional_overload);
    cr_assert_eq(s->out_start, s->n_args);
    cr_assert_not(s->has_star);
    /* no `self`: every positional argument counts (torchgen's post_self_positional) */
    s = parse_ok(
        "_amp_update_scale_(Tensor(a!) self, Tensor(b!) growth_tracker, Tensor found_inf, float "
        "scale_growth_factor, float scale_backoff_factor, int growth_interval) -> Tensor(a!)");
    cr_assert_eq(s->kind, SG_KIND_INPLACE);
    s = parse_ok("f(Tensor(a!) x, Tensor y) -> ()");
    cr_assert_eq(s->self_index, -1);
    cr_assert_eq(s->kind, SG_KIND_MUTABLE);
    /* a mutable self alone is not "mutable" */
    s = parse_ok("g(Tensor(a!) self, Tensor y) -> ()");
    cr_assert_eq(s->kind, SG_KIND_FUNCTIONAL);
}

Test(schema, scratch_kind) {
    const sg_schema *s =
        parse_ok("_foo.out(Tensor self, *, Tensor(a!) out, Tensor(b!) _scratch_x) -> Tensor(a!)");
    cr_assert_eq(s->kind, SG_KIND_SCRATCH);
    cr_assert_eq(s->out_start, 1);
}

Test(schema, dunder) {
    const sg_schema *s = parse_ok("__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)");
    cr_assert(s->dunder_method);
    cr_assert(s->inplace);
    cr_assert_str_eq(s->base, "and");
    cr_assert_str_eq(s->name, "__iand__");
    cr_assert_eq(s->kind, SG_KIND_INPLACE);
    s = parse_ok("__lshift__.Scalar(Tensor self, Scalar other) -> Tensor");
    cr_assert(s->dunder_method);
    cr_assert_not(s->inplace);
    cr_assert_str_eq(s->base, "lshift");
    cr_assert_eq(s->kind, SG_KIND_FUNCTIONAL);
    /* an underscore inside: not a dunder, and the trailing '_' makes it in-place */
    s = parse_ok("__a_b__(Tensor self) -> Tensor");
    cr_assert_not(s->dunder_method);
    cr_assert(s->inplace);
    cr_assert_str_eq(s->base, "__a_b_");
}

Test(schema, tensor_options) {
    const sg_schema *s = parse_ok(
        "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor");
    cr_assert_eq(s->tensor_options_start, 1);
    cr_assert_eq(s->n_positional, 1);
    cr_assert_eq(s->self_index, -1);
    cr_assert_eq(s->kind, SG_KIND_FUNCTIONAL);
    cr_assert_eq(s->args[1].default_kind, SG_DEF_NONE);
    const sg_type *t = s->args[0].type;
    cr_assert_eq(t->kind, SG_TY_LIST);
    cr_assert_eq(t->size, -1);
    cr_assert_eq(t->elem->kind, SG_TY_BASE);
    cr_assert_eq(t->elem->base, SG_BT_SYMINT);
    /* the four must be consecutive, named and typed so */
    s = parse_ok("f(*, ScalarType? dtype=None, Layout? layout=None, int x, Device? device=None, "
                 "bool? pin_memory=None) -> Tensor");
    cr_assert_eq(s->tensor_options_start, -1);
    s = parse_ok(
        "f(*, int a, ScalarType dtype, Layout layout, Device device, bool pin_memory) -> Tensor");
    cr_assert_eq(s->tensor_options_start, 1);
    /* positional ones do not count */
    s = parse_ok(
        "f(ScalarType? dtype, Layout? layout, Device? device, bool? pin_memory) -> Tensor");
    cr_assert_eq(s->tensor_options_start, -1);
}

Test(schema, namespace_and_returns) {
    const sg_schema *s = parse_ok("myops::add_scalar(Tensor x, float y) -> Tensor");
    cr_assert_str_eq(s->ns, "myops");
    cr_assert_str_eq(s->name, "add_scalar");
    cr_assert_str_eq(s->overload, "");
    cr_assert_str_eq(sg_schema_to_string(arena, s),
                     "myops::add_scalar(Tensor x, float y) -> Tensor");
    s = parse_ok("f(Tensor x) -> ()");
    cr_assert_eq(s->n_rets, 0);
    s = parse_ok("f(Tensor x) -> Tensor[] self_out");
    cr_assert_eq(s->n_rets, 1);
    cr_assert_str_eq(s->rets[0].name, "self_out");
    cr_assert_eq(s->rets[0].type->kind, SG_TY_LIST);
    s = parse_ok("f() -> (float, int)");
    cr_assert_eq(s->n_args, 0);
    cr_assert_eq(s->n_rets, 2);
    cr_assert_eq(s->rets[1].type->base, SG_BT_INT);
}

Test(schema, annotations) {
    const sg_schema *s =
        parse_ok("chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]");
    const sg_annotation *a = s->args[0].annotation;
    cr_assert_eq(a->n_alias_set, 1);
    cr_assert_not(a->is_write);
    cr_assert_eq(a->n_alias_set_after, 1);
    cr_assert_str_eq(a->alias_set_after[0], "*");
    cr_assert_eq(s->rets[0].type->kind, SG_TY_LIST);
    cr_assert_not_null(s->rets[0].annotation);
    s = parse_ok(
        "f(Tensor(a! -> a|b) x, Tensor(a|b) y, Tensor(c!)[] z, Tensor(d)? w) -> Tensor(a|b)");
    a = s->args[0].annotation;
    cr_assert(a->is_write);
    cr_assert_eq(a->n_alias_set_after, 2);
    cr_assert_str_eq(a->alias_set_after[1], "b");
    a = s->args[1].annotation;
    cr_assert_eq(a->n_alias_set, 2);
    cr_assert_eq(a->n_alias_set_after, 0);
    cr_assert(sg_arg_is_mutable(&s->args[2]));
    cr_assert_not(sg_arg_is_mutable(&s->args[3]));
    cr_assert_not(sg_arg_is_mutable(NULL));
    char buf[64];
    cr_assert_eq(sg_type_print(s->args[2].type, s->args[2].annotation, buf, sizeof buf), 12);
    cr_assert_str_eq(buf, "Tensor(c!)[]");
    sg_type_print(s->args[3].type, s->args[3].annotation, buf, sizeof buf);
    cr_assert_str_eq(buf, "Tensor(d)?");
}

Test(schema, types) {
    const sg_schema *s =
        parse_ok("f(Tensor?[] a, int[]? b, SymInt[1]? c, bool[3] d, Tensor?? e, int[0] g) -> ()");
    char buf[32];
    static const char *const want[] = {"Tensor?[]", "int[]?",   "SymInt[1]?",
                                       "bool[3]",   "Tensor??", "int[0]"};
    for (int i = 0; i < 6; i++) {
        sg_type_print(s->args[i].type, NULL, buf, sizeof buf);
        cr_assert_str_eq(buf, want[i]);
    }
    cr_assert_eq(s->args[2].type->kind, SG_TY_OPTIONAL);
    cr_assert_eq(s->args[2].type->elem->size, 1);
    cr_assert_eq(s->args[3].type->size, 3);
    cr_assert(sg_type_is_tensor_like(s->args[0].type));
    cr_assert(sg_type_is_tensor_like(s->args[4].type->elem));
    cr_assert_not(sg_type_is_tensor_like(s->args[1].type));
    cr_assert_not(sg_type_is_tensor_like(NULL));
    /* every base type by its name */
    for (int b = 0; b < SG_BT_COUNT_; b++) {
        const char *name = sg_base_type_name((sg_base_type)b);
        cr_assert_not_null(name);
        char text[128];
        snprintf(text, sizeof text, "f(%s x) -> %s", name, name);
        const sg_schema *t = parse_ok(text);
        cr_assert_eq(t->args[0].type->kind, SG_TY_BASE);
        cr_assert_eq((int)t->args[0].type->base, b);
        cr_assert_eq((int)t->rets[0].type->base, b);
    }
    cr_assert_null(sg_base_type_name(SG_BT_COUNT_));
    cr_assert_null(sg_base_type_name((sg_base_type)-1));
}

Test(schema, defaults) {
    const sg_schema *s = parse_ok(
        "f(float a=1e-05, float b=0.3333333333333333, float c=-0.5, int d=-9223372036854775808, "
        "int e=9223372036854775807, int f=Mean, ScalarType? g=long, MemoryFormat "
        "h=contiguous_format, "
        "int[2] i=[0,1], int[] j=[], int[2] k=[-2,-1], SymInt[2] l=1, bool m=True, "
        "str n='linear', str? o=None, float p=2, float q=123456789012345678901.5, Scalar r=1.0) -> "
        "()");
    cr_assert_eq(arg_named(s, "a")->default_kind, SG_DEF_FLOAT);
    cr_assert(arg_named(s, "a")->default_value.f == 1e-05);
    cr_assert(arg_named(s, "b")->default_value.f == 1.0 / 3.0);
    cr_assert(arg_named(s, "c")->default_value.f == -0.5);
    cr_assert_eq(arg_named(s, "d")->default_value.i, INT64_MIN);
    cr_assert_eq(arg_named(s, "e")->default_value.i, INT64_MAX);
    cr_assert_eq(arg_named(s, "f")->default_kind, SG_DEF_IDENT);
    cr_assert_str_eq(arg_named(s, "f")->default_value.s, "Mean");
    cr_assert_str_eq(arg_named(s, "g")->default_value.s, "long");
    cr_assert_str_eq(arg_named(s, "h")->default_text, "contiguous_format");
    cr_assert_eq(arg_named(s, "i")->default_kind, SG_DEF_LIST);
    cr_assert_str_eq(arg_named(s, "i")->default_text, "[0,1]");
    cr_assert_str_eq(arg_named(s, "j")->default_text, "[]");
    cr_assert_str_eq(arg_named(s, "k")->default_text, "[-2,-1]");
    cr_assert_eq(arg_named(s, "l")->default_kind, SG_DEF_INT);
    cr_assert_eq(arg_named(s, "m")->default_value.i, 1);
    cr_assert_eq(arg_named(s, "n")->default_kind, SG_DEF_STRING);
    cr_assert_str_eq(arg_named(s, "n")->default_value.s, "linear");
    cr_assert_str_eq(arg_named(s, "n")->default_text, "'linear'");
    cr_assert_eq(arg_named(s, "o")->default_kind, SG_DEF_NONE);
    cr_assert_eq(arg_named(s, "p")->default_kind, SG_DEF_INT);
    cr_assert(arg_named(s, "q")->default_value.f == strtod("123456789012345678901.5", NULL));
    cr_assert_eq(arg_named(s, "r")->default_kind, SG_DEF_FLOAT);
    cr_assert_null(arg_named(s, "r")->annotation);
    cr_assert_null(s->args[0].annotation);
    /* quoted strings keep their text; the value is unescaped */
    s = parse_ok(
        "_test_string_default(Tensor dummy, str a=\"\\\"'\\\\\", str b='\"\\'\\\\') -> Tensor");
    cr_assert_str_eq(arg_named(s, "a")->default_text, "\"\\\"'\\\\\"");
    cr_assert_str_eq(arg_named(s, "a")->default_value.s, "\"'\\");
    cr_assert_str_eq(arg_named(s, "b")->default_text, "'\"\\'\\\\'");
    cr_assert_str_eq(arg_named(s, "b")->default_value.s, "\"'\\");
    cr_assert_null(arg_named(s, "dummy")->default_text);
    cr_assert_eq(arg_named(s, "dummy")->default_kind, SG_DEF_NONE_GIVEN);
}

/* ------------------------------------------------------------------ printing, make */

Test(schema, print_truncates_like_snprintf) {
    static const char text[] =
        "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)";
    const sg_schema *s = parse_ok(text);
    size_t n = strlen(text);
    cr_assert_eq(sg_schema_print(s, NULL, 0), n);
    char buf[16];
    memset(buf, 'x', sizeof buf);
    cr_assert_eq(sg_schema_print(s, buf, 10), n);
    cr_assert_str_eq(buf, "add.out(T");
    cr_assert_eq(buf[10], 'x');
    char full[128];
    cr_assert_eq(sg_schema_print(s, full, n + 1), n);
    cr_assert_str_eq(full, text);
    cr_assert_eq(sg_schema_print(s, full, n), n);
    cr_assert_eq(strlen(full), n - 1);
    cr_assert_eq(sg_schema_print(NULL, full, sizeof full), 0);
    cr_assert_str_eq(full, "");
    cr_assert_null(sg_schema_to_string(arena, NULL));
    cr_assert_null(sg_schema_to_string(NULL, s));
}

Test(schema, make) {
    const sg_schema *src = parse_ok(
        "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
    const sg_schema *s = sg_schema_make(arena, NULL, "add", "out", src->args, src->n_args,
                                        src->n_positional, src->rets, src->n_rets);
    cr_assert_not_null(s);
    cr_assert_neq(s->args, src->args); /* copied */
    cr_assert_eq(s->kind, SG_KIND_OUT);
    cr_assert_eq(s->out_start, 3);
    cr_assert_eq(s->self_index, 0);
    cr_assert(s->has_star);
    cr_assert_str_eq(sg_schema_to_string(arena, s), sg_schema_to_string(arena, src));
    /* the functional variant: drop the out argument, return a fresh tensor */
    sg_return r = {NULL, src->rets[0].type, NULL};
    s = sg_schema_make(arena, NULL, "add", "Tensor", src->args, 3, 2, &r, 1);
    cr_assert_not_null(s);
    cr_assert_eq(s->kind, SG_KIND_FUNCTIONAL);
    cr_assert_eq(s->out_start, 3);
    cr_assert_str_eq(sg_schema_to_string(arena, s),
                     "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
    /* kwarg_only / is_out are recomputed, not copied */
    s = sg_schema_make(arena, "ns", "add_", NULL, src->args, 2, 2, &r, 1);
    cr_assert_not_null(s);
    cr_assert_eq(s->kind, SG_KIND_INPLACE);
    cr_assert_not(s->has_star);
    cr_assert_str_eq(s->overload, "");
    cr_assert_str_eq(sg_schema_to_string(arena, s),
                     "ns::add_(Tensor self, Tensor other) -> Tensor");
    s = sg_schema_make(arena, NULL, "_foo_functional", "", NULL, 0, 0, NULL, 0);
    cr_assert_not_null(s);
    cr_assert(s->functional_overload);
    cr_assert_str_eq(s->base, "_foo");
    cr_assert_str_eq(sg_schema_to_string(arena, s), "_foo_functional() -> ()");
    /* invalid parts */
    cr_assert_null(sg_schema_make(NULL, NULL, "f", "", NULL, 0, 0, NULL, 0));
    cr_assert_null(sg_schema_make(arena, NULL, NULL, "", NULL, 0, 0, NULL, 0));
    cr_assert_null(sg_schema_make(arena, NULL, "f", "", src->args, 2, 3, NULL, 0));
    cr_assert_null(sg_schema_make(arena, NULL, "f", "", NULL, 1, 0, NULL, 0));
    cr_assert_null(sg_schema_make(arena, NULL, "f", "", NULL, 0, 0, NULL, -1));
    cr_assert_null(sg_schema_make(arena, NULL, "f_out", "", NULL, 0, 0, NULL, 0));
    sg_arg dup[2] = {src->args[0], src->args[0]};
    cr_assert_null(sg_schema_make(arena, NULL, "f", "", dup, 2, 2, NULL, 0));
    /* out argument followed by a non-mutable keyword-only one */
    sg_arg bad[2] = {src->args[3], src->args[2]};
    cr_assert_null(sg_schema_make(arena, NULL, "f", "", bad, 2, 0, NULL, 0));
    /* the in-place add_ cannot get an out argument */
    cr_assert_null(sg_schema_make(arena, NULL, "add_", "", src->args, 4, 2, src->rets, 1));
}

/* ------------------------------------------------------------------ errors */

typedef struct bad_case {
    const char *text;
    const char *at; /* the error is at the first occurrence of this text after `skip` bytes;
                       NULL: at the end of the input */
    unsigned skip;
    const char *message;
} bad_case;

static const bad_case bad_cases[] = {
    {"", NULL, 0, "empty schema"},
    {"add(Tensor self) -> Tensor ", NULL, 0, "expected a return name, got end of input"},
    {"add(Tensor self) -> Tensor)", ")", 20,
     "expected the end of the schema after the returns, got ')'"},
    {"add(Tensor self)", NULL, 0, "missing return type: expected ' -> ' after the arguments"},
    {"add(Tensor self) Tensor", "Tensor", 5, "expected '->' after the arguments, got 'Tensor'"},
    {"add(Tensor self)->Tensor", "->", 0, "expected a space before '->', got '->'"},
    {"add(Tensor  self) -> Tensor", "  ", 0,
     "expected a single space between an argument's type and its name"},
    {"add(Tensor self,Tensor other) -> Tensor", "Tensor other", 0,
     "expected a space after ',', got 'Tensor'"},
    {"add(Tensor self, Tensor self) -> Tensor", "self", 12, "duplicate argument name 'self'"},
    {"add(Tensor self, *, *, int a) -> Tensor", "*", 19,
     "the keyword-only marker '*' may appear only once"},
    {"add(Tensor self, *) -> Tensor", "*", 0, "'*' must be followed by an argument"},
    {"add(*) -> Tensor", "*", 0, "'*' must be followed by an argument"},
    {"add(Tensor self, *, ) -> Tensor", "*", 0, "'*' must be followed by an argument"},
    {"add(Tensor self, Foo x) -> Tensor", "Foo", 0, "unknown type 'Foo'"},
    {"add(Tensor self) -> Tensr", "Tensr", 0, "unknown type 'Tensr'"},
    {"add(int(a) x) -> Tensor", "(a)", 0,
     "alias annotations are only allowed on Tensor, not on int"},
    {"f(Tensor x) -> float(a!)", "(a!)", 0,
     "alias annotations are only allowed on Tensor, not on float"},
    {"f(int[] x=[1,", NULL, 0, "expected a list element, got end of input"},
    {"f(int[2] x=[1 2]) -> ()", " 2]", 0, "expected ',' or ']' in a list default, got whitespace"},
    {"f(int[2] x=[1,[2]]) -> ()", "[2]]", 0, "expected a list element, got '['"},
    {"f(bool b=tru) -> ()", "tru", 0, "default value 'tru' does not fit type bool"},
    {"f(int x=None) -> ()", "None", 0, "default value 'None' does not fit type int"},
    {"f(ScalarType s=1) -> ()", "1", 0, "default value '1' does not fit type ScalarType"},
    {"f(Tensor(a!) x=1) -> ()", "1", 0, "default value '1' does not fit type Tensor"},
    {"f(int x=[0]) -> ()", "[0]", 0, "default value '[0]' does not fit type int"},
    {"f(str s='abc) -> ()", "'abc", 0, "unterminated string literal"},
    {"f(str s=\"a\\\") -> ()", "\"", 0, "unterminated string literal"},
    {"f(int x=) -> ()", ") ->", 0, "expected a default value after '=', got ')'"},
    {"f(int x=99999999999999999999) -> ()", "999", 0, "integer default out of the range of int64"},
    {"f(float x=1e) -> ()", "e)", 0, "expected ',' or ')' after an argument, got 'e'"},
    {"f(Tensor(a|b!) x) -> ()", "a|b", 0,
     "an alias set of more than one name cannot be written ('!')"},
    {"f(Tensor(a|b -> c|d) x) -> ()", "c|d", 0,
     "the alias sets before and after '->' cannot both have several names"},
    {"f(Tensor x) -> Tensor(a", NULL, 0, "expected ')' to close the annotation, got end of input"},
    {"f(Tensor x) -> Tensor(a -> )", ")", 24, "expected an alias name or '*', got ')'"},
    {"f(Tensor() x) -> ()", ")", 0, "expected an alias name, got ')'"},
    {"f(Tensor(a!) self, *, Tensor(b!) out, int x) -> ()", "int x", 0,
     "a keyword-only argument that is not mutable cannot follow an out argument"},
    {"add_.out(Tensor(a!) self, *, Tensor(b!) out) -> Tensor(a!)", "Tensor(b!) out", 0,
     "an in-place operator cannot have out arguments"},
    {"add_out(Tensor self) -> Tensor", "add_out", 0,
     "operator names may not end in '_out'; use the overload name 'out' instead"},
    {"__int__(Tensor self) -> Tensor", "__int__", 0,
     "a dunder method starting with 'i' must be an augmented assignment (__iadd__, __iand__, ...)"},
    {"foo_functional_(Tensor self) -> Tensor", "foo", 0,
     "an operator with the '_functional' suffix cannot be in-place or a dunder method"},
    {"f(Tensor x) -> (Tensor)", "(Tensor)", 0, "a single return is written without parentheses"},
    {"f(Tensor x) -> (Tensor a, Tensor a)", "a)", 0, "duplicate return name 'a'"},
    {"f(Tensor x) -> Tensor$", "$", 0, "unexpected character '$'"},
    {"f(Tensor x) - > ()", "- ", 0, "unexpected character '-'"},
    {"f(Tensor x) -> Tensor\n", "\n", 0, "unexpected whitespace after a return type"},
    {"f(Tensor x) -> Tensor out, Tensor b", ", Tensor b", 0,
     "expected the end of the schema after the returns, got ','"},
    {"f(int[01] x) -> ()", "01", 0,
     "a list size must be a non-negative integer without leading zeros, below 2^31"},
    {"f(int[-1] x) -> ()", "-1", 0,
     "a list size must be a non-negative integer without leading zeros, below 2^31"},
    {"f(int[2147483648] x) -> ()", "2147483648", 0,
     "a list size must be a non-negative integer without leading zeros, below 2^31"},
    {"f(int[x] x) -> ()", "x]", 0, "expected a list size or ']', got 'x'"},
    {"f(int x", NULL, 0, "expected ',' or ')' after an argument, got end of input"},
    {"f(int) -> ()", ")", 0, "expected a space between an argument's type and its name, got ')'"},
    {"f(int 1) -> ()", "1", 0, "expected an argument name, got '1'"},
    {"f(Tensor x, ) -> ()", ") ->", 0, "expected an argument type or '*', got ')'"},
    {"(Tensor x) -> ()", "(", 0, "expected an operator name, got '('"},
    {" f(Tensor x) -> ()", " ", 0, "expected an operator name, got whitespace"},
    {"aten::(Tensor x) -> ()", "(", 0, "expected an operator name after '::', got '('"},
    {"f.(Tensor x) -> ()", "(", 0, "expected an overload name after '.', got '('"},
    {"f Tensor x) -> ()", " ", 0, "expected '(' after the operator name, got whitespace"},
    {"f(Tensor x) ->  Tensor", "  ", 0, "expected a single space after '->'"},
    {"f(Tensor?????????????????[] x) -> ()", "?[]", 0,
     "a type may have at most 16 '?' and '[]' suffixes"},
    {"f(Tensor x) -> (Tensor, Tensor", NULL, 0,
     "expected ',' or ')' after a return, got end of input"},
    {"f(Tensor x) -> Tensor(a!) 1", "1", 0, "expected a return name, got '1'"},
    {"f(Tensor x, int a, a_very_long_type_name_that_is_not_known_to_the_grammar_at_all y) -> ()",
     "a_", 0, "unknown type 'a_very_long_type_name_that_is_no...'"},
};

Test(schema, malformed_schemas) {
    size_t n = sizeof bad_cases / sizeof bad_cases[0];
    cr_assert_geq(n, 25);
    for (size_t i = 0; i < n; i++) {
        const bad_case *c = &bad_cases[i];
        size_t len = strlen(c->text);
        size_t want = len;
        if (c->at) {
            const char *hit = strstr(c->text + c->skip, c->at);
            cr_assert_not_null(hit, "bad test case %zu", i);
            want = (size_t)(hit - c->text);
        }
        /* parse from an exact-size heap copy: ASan sees any read past the end */
        char *copy = malloc(len ? len : 1);
        memcpy(copy, c->text, len);
        sg_schema_error err;
        memset(&err, 0x55, sizeof err);
        const sg_schema *s = sg_schema_parse(arena, copy, len, &err);
        cr_assert_null(s, "case %zu parsed: %s", i, c->text);
        cr_assert_str_eq(err.message, c->message, "case %zu: %s", i, c->text);
        cr_assert_eq(err.offset, want, "case %zu: %s: offset %u, want %zu (%s)", i, c->text,
                     err.offset, want, err.message);
        /* a NULL err is allowed */
        cr_assert_null(sg_schema_parse(arena, copy, len, NULL));
        free(copy);
    }
}

Test(schema, malformed_bytes_and_arguments) {
    sg_schema_error err;
    /* a NUL byte inside the text */
    cr_assert_null(sg_schema_parse(arena, "f(Tensor x) -> Tensor\0", 22, &err));
    cr_assert_eq(err.offset, 21);
    cr_assert_str_eq(err.message, "unexpected byte 0x00");
    cr_assert_null(sg_schema_parse(arena, "f(Tensor x) -> Tensor\xff", 22, &err));
    cr_assert_eq(err.offset, 21);
    cr_assert_str_eq(err.message, "unexpected byte 0xff");
    /* quoted bytes in a message are shown as '?' */
    cr_assert_null(sg_schema_parse(arena, "f(int x='a\n\xc3\xa9') -> ()", 21, &err));
    cr_assert_eq(err.offset, 8);
    cr_assert_str_eq(err.message, "default value ''a?\?\?'' does not fit type int");
    cr_assert_null(sg_schema_parse(NULL, "f() -> ()", 9, &err));
    cr_assert_str_eq(err.message, "no arena");
    cr_assert_null(sg_schema_parse(arena, NULL, 3, &err));
    cr_assert_str_eq(err.message, "no text");
    cr_assert_null(sg_schema_parse(arena, NULL, 0, &err));
    cr_assert_str_eq(err.message, "empty schema");
}

/* The one identifier check of gen/ (kernel names, backends, C names). */
Test(schema, identifier_lengths) {
    cr_expect_eq(sg_ident_len("add_out"), 7);
    cr_expect_eq(sg_ident_len("_x9::y"), 3);
    cr_expect_eq(sg_ident_len("9x"), 0);
    cr_expect_eq(sg_ident_len(""), 0);
    cr_expect_eq(sg_ident_len("a b"), 1);
    cr_expect_eq(sg_ident_len(NULL), 0);
    cr_expect_eq(sg_word_len("9x_1-"), 4);
    cr_expect_eq(sg_word_len("-"), 0);
    cr_expect_eq(sg_word_len(NULL), 0);
}

/* torch.library's rules take what PyTorch's own schema parser takes (issue 17: torchaudio
 * writes `forced_align(Tensor log_probs,Tensor targets,...)`); the texts on the left are
 * accepted by torch._C.parse_schema in PyTorch 2.15, and each prints as the canonical text
 * on the right, which the strict (torchgen) grammar accepts and prints back unchanged. */
Test(schema, library_whitespace_canonicalized) {
    static const char *const cases[][2] = {
        {"torchaudio::forced_align(Tensor log_probs,Tensor targets,Tensor input_lengths,"
         "Tensor target_lengths,int blank) -> (Tensor, Tensor)",
         "torchaudio::forced_align(Tensor log_probs, Tensor targets, Tensor input_lengths, "
         "Tensor target_lengths, int blank) -> (Tensor, Tensor)"},
        {"f(Tensor a,Tensor b)->Tensor", "f(Tensor a, Tensor b) -> Tensor"},
        {"  f . ov ( Tensor ( a ! ) self , * , int [ 2 ] k = [ 1 , 2 ] , float x=-1.5 , "
         "str s = ' a b ' ) -> ( Tensor ( a ! ) ) ",
         "f.ov(Tensor(a!) self, *, int[2] k=[1,2], float x=-1.5, str s=' a b ') -> Tensor(a!)"},
        {"f(Tensor(a -> *) x, Tensor(b!)[] y, *) -> (Tensor r, int n)",
         "f(Tensor(a -> *) x, Tensor(b!)[] y) -> (Tensor r, int n)"},
        {"f(Tensor x, *, int a=1, *, int b=2) -> Tensor",
         "f(Tensor x, *, int a=1, int b=2) -> Tensor"},
        {"f(Tensor x,\n  int a=1\t) -> ()", "f(Tensor x, int a=1) -> ()"},
        {"f(int? a=None,bool b=True)->Tensor[]", "f(int? a=None, bool b=True) -> Tensor[]"},
        {"f(Tensor x, int a=- 1, float b = - 2.5) -> Tensor",
         "f(Tensor x, int a=-1, float b=-2.5) -> Tensor"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sg_schema_error err;
        const sg_schema *s = sg_schema_parse_library(arena, cases[i][0], strlen(cases[i][0]), &err);
        cr_assert_not_null(s, "%s: %s at %u", cases[i][0], err.message, err.offset);
        char out[512];
        sg_schema_print(s, out, sizeof out);
        cr_assert_str_eq(out, cases[i][1]);
        const sg_schema *c = sg_schema_parse(arena, cases[i][1], strlen(cases[i][1]), &err);
        cr_assert_not_null(c, "%s: %s", cases[i][1], err.message);
        sg_schema_print(c, out, sizeof out);
        cr_assert_str_eq(out, cases[i][1]);
        /* the generator's inputs stay canonical-only, as torchgen's */
        if (strcmp(cases[i][0], cases[i][1]) != 0)
            cr_assert_null(sg_schema_parse(arena, cases[i][0], strlen(cases[i][0]), &err), "%s",
                           cases[i][0]);
    }
}

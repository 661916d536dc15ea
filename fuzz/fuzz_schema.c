/* fuzz/fuzz_schema.c: libFuzzer harness for the schema grammar (gen/schema/schema.h).
 *
 * Checks, for any input:
 *  - the lexer's tokens tile the input exactly and it never reads past the end (ASan);
 *  - a parse error has an offset inside the input and a non-empty message;
 *  - a parsed schema prints back as the very input (the grammar accepts canonical text
 *    only), re-parses, and prints the same text again with the same derived facts;
 *  - sg_schema_make over the parsed parts rebuilds the same schema. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) abort();                                                                         \
    } while (0)

static void check_lexer(const char *text, size_t size) {
    sg_lexer lx;
    sg_lexer_init(&lx, text, size);
    size_t at = 0;
    for (;;) {
        sg_token t = sg_lexer_next(&lx);
        if (t.kind == SG_TOK_END) {
            CHECK(t.len == 0);
            break;
        }
        CHECK(t.len > 0);
        CHECK(t.text == text + at);
        at += t.len;
        CHECK(at <= size);
    }
    CHECK(at == size);
    CHECK(sg_lexer_next(&lx).kind == SG_TOK_END);
}

static void check_same(const sg_schema *a, const sg_schema *b) {
    CHECK(a->kind == b->kind);
    CHECK(a->n_args == b->n_args && a->n_rets == b->n_rets);
    CHECK(a->n_positional == b->n_positional && a->out_start == b->out_start);
    CHECK(a->self_index == b->self_index);
    CHECK(a->tensor_options_start == b->tensor_options_start);
    CHECK(a->inplace == b->inplace && a->dunder_method == b->dunder_method);
    CHECK(a->functional_overload == b->functional_overload);
    CHECK(strcmp(a->base, b->base) == 0);
    for (int i = 0; i < a->n_args; i++) {
        CHECK(a->args[i].is_out == b->args[i].is_out);
        CHECK(a->args[i].kwarg_only == b->args[i].kwarg_only);
        CHECK(a->args[i].default_kind == b->args[i].default_kind);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    check_lexer(text, size);

    sg_arena *arena = sg_arena_new();
    if (!arena) return 0;
    sg_schema_error err;
    const sg_schema *s = sg_schema_parse(arena, text, size, &err);
    if (!s) {
        CHECK(err.offset <= size);
        CHECK(memchr(err.message, '\0', sizeof err.message) != NULL);
        CHECK(err.message[0] != '\0');
        sg_arena_free(arena);
        return 0;
    }
    char *t1 = sg_schema_to_string(arena, s);
    CHECK(t1 != NULL);
    size_t n1 = strlen(t1);
    CHECK(n1 == size && memcmp(t1, text, size) == 0);
    const sg_schema *s2 = sg_schema_parse(arena, t1, n1, &err);
    CHECK(s2 != NULL);
    char *t2 = sg_schema_to_string(arena, s2);
    CHECK(t2 != NULL && strcmp(t1, t2) == 0);
    check_same(s, s2);

    const sg_schema *s3 = sg_schema_make(arena, s->ns, s->name, s->overload, s->args, s->n_args,
                                         s->n_positional, s->rets, s->n_rets);
    CHECK(s3 != NULL);
    char *t3 = sg_schema_to_string(arena, s3);
    CHECK(t3 != NULL && strcmp(t1, t3) == 0);
    check_same(s, s3);
    sg_arena_free(arena);
    return 0;
}

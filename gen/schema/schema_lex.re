/* gen/schema/schema_lex.re: the lexer of the function-schema grammar (re2c source).
 *
 * The one lexer of the grammar: gen/schema/schema.c's parser reads its tokens a batch at a time
 * (sg_lexer_fill), so the DFA below runs in a loop of this file, inlined.
 *
 * Pure: it reads text[0..len) through a bounded peek, so it never touches a byte at or
 * past `end`, whether or not the text is NUL-terminated. Past the end the peek yields the
 * sentinel 0, and re2c's end-of-input rule (`$`, checked only on the sentinel) makes the
 * END token; a real NUL byte inside the text is an error token. */
#include "schema.h"

void sg_lexer_init(sg_lexer *lx, const char *text, size_t len)
{
    if (!text)
        len = 0;
    lx->start = text;
    lx->cur = text;
    lx->end = text ? text + len : text;
}

static sg_token make_tok(sg_tok_kind kind, const char *base, size_t from, size_t to)
{
    sg_token t;
    t.kind = kind;
    t.text = base ? base + from : base;
    t.len = (uint32_t)(to - from);
    return t;
}

static inline sg_token lex_one(sg_lexer *lx)
{
    const unsigned char *s = (const unsigned char *)lx->cur;
    const size_t len = (size_t)(lx->end - lx->cur);
    size_t pos = 0, mar = 0;
    sg_token t;
    (void)mar;

#define SG_DONE(k)                                     \
    do {                                               \
        t = make_tok((k), lx->cur, 0, pos);            \
        lx->cur += pos;                                \
        return t;                                      \
    } while (0)

    /*!re2c
        re2c:api = custom;
        re2c:api:style = free-form;
        re2c:define:YYCTYPE = "unsigned char";
        re2c:define:YYPEEK = "(pos < len ? s[pos] : 0u)";
        re2c:define:YYSKIP = "++pos;";
        re2c:define:YYBACKUP = "mar = pos;";
        re2c:define:YYRESTORE = "pos = mar;";
        re2c:define:YYLESSTHAN = "pos >= len";
        re2c:yyfill:enable = 0;
        re2c:eof = 0;

        digits = [0-9]+;
        exp    = [eE] [+-]? digits;
        ident  = [A-Za-z_] [A-Za-z0-9_]*;
        int    = "-"? digits;
        float  = "-"? (digits "." [0-9]* exp? | "." digits exp? | digits exp);
        sqch   = [^'\\\x00] | [\\] [^\x00];
        dqch   = [^"\\\x00] | [\\] [^\x00];

        $                   { SG_DONE(SG_TOK_END); }     /* the end: no byte read */
        ident               { SG_DONE(SG_TOK_IDENT); }
        int                 { SG_DONE(SG_TOK_INT); }
        float               { SG_DONE(SG_TOK_FLOAT); }
        ['] sqch* [']       { SG_DONE(SG_TOK_STRING); }
        ["] dqch* ["]       { SG_DONE(SG_TOK_STRING); }
        ['] sqch* [\\]?     { SG_DONE(SG_TOK_ERROR); }  /* unterminated: runs to the end */
        ["] dqch* [\\]?     { SG_DONE(SG_TOK_ERROR); }
        "("                 { SG_DONE(SG_TOK_LPAREN); }
        ")"                 { SG_DONE(SG_TOK_RPAREN); }
        "["                 { SG_DONE(SG_TOK_LBRACKET); }
        "]"                 { SG_DONE(SG_TOK_RBRACKET); }
        ","                 { SG_DONE(SG_TOK_COMMA); }
        "*"                 { SG_DONE(SG_TOK_STAR); }
        "?"                 { SG_DONE(SG_TOK_QUESTION); }
        "!"                 { SG_DONE(SG_TOK_BANG); }
        "="                 { SG_DONE(SG_TOK_EQUALS); }
        "."                 { SG_DONE(SG_TOK_DOT); }
        "::"                { SG_DONE(SG_TOK_COLONCOLON); }
        "->"                { SG_DONE(SG_TOK_ARROW); }
        "|"                 { SG_DONE(SG_TOK_PIPE); }
        [ \t\r\n]+          { SG_DONE(SG_TOK_SPACE); }
        *                   { SG_DONE(SG_TOK_ERROR); }
    */
#undef SG_DONE
}

sg_token sg_lexer_next(sg_lexer *lx)
{
    return lex_one(lx);
}

size_t sg_lexer_fill(sg_lexer *lx, sg_token *out, size_t cap)
{
    size_t n = 0;
    while (n < cap) {
        out[n] = lex_one(lx);
        if (out[n++].kind == SG_TOK_END)
            break;
    }
    return n;
}

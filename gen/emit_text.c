/* gen/emit_text.c: the text helpers every emitter shares (see emit.h). Each result is an
 * arena string, never NULL ("" when memory runs out: the output is then dropped for its
 * out-of-memory flag elsewhere). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"

static const char *to_arena(sg_arena *a, sg_buf *b) {
    if (!b->len || b->oom) {
        sg_buf_free(b);
        return "";
    }
    const char *s = sg_buf_to_arena(b, a);
    return s ? s : "";
}

/* "/" is never in a schema; "*" followed by "/" could be (an alias set `a -> *`) only
 * before a `)`, but make the comment safe anyway. */
const char *sg_text_comment_safe(sg_arena *a, const char *s) {
    if (!s) return "";
    if (!strstr(s, "*/")) return s;
    sg_buf b = {0};
    for (; *s; s++) {
        sg_buf_putc(&b, *s);
        if (s[0] == '*' && s[1] == '/') sg_buf_putc(&b, ' ');
    }
    return to_arena(a, &b);
}

const char *sg_text_schema(sg_arena *a, const sg_native_function *fn) {
    if (fn->func_text) return fn->func_text;
    const char *s = sg_schema_to_string(a, fn->func);
    return s ? s : "";
}

const char *sg_text_guard(sg_arena *a, const char *file) {
    char *g = sg_arena_printf(a, "SHIMGEN_%s_", file);
    if (!g) return "SHIMGEN_HEADER_";
    for (char *p = g; *p; p++)
        *p = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
    return g;
}

const char *sg_text_c_escape(sg_arena *a, const char *s, bool percent) {
    sg_buf b = {0};
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            sg_buf_putc(&b, '\\');
            sg_buf_putc(&b, (char)c);
        } else if (c == '%' && percent) {
            sg_buf_put(&b, "%%", 2);
        } else if (c < 0x20 || c == 0x7f) {
            sg_buf_printf(&b, "\\%03o", c);
        } else if (c == '?' && s[1] == '?') { /* no trigraphs */
            sg_buf_put(&b, "?\\", 2);
        } else {
            sg_buf_putc(&b, (char)c);
        }
    }
    return to_arena(a, &b);
}

const char *sg_text_json(sg_arena *a, const char *s) {
    sg_buf b = {0};
    sg_buf_put_json(&b, s ? s : "");
    return to_arena(a, &b);
}

const char *sg_text_type(sg_arena *a, const sg_type *t) {
    char buf[128];
    sg_type_print(t, NULL, buf, sizeof buf);
    const char *s = sg_arena_strdup(a, buf);
    return s ? s : "";
}

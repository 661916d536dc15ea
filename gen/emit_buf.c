/* gen/emit_buf.c: the growable byte buffer of the emitters. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

static bool buf_reserve(sg_buf *b, size_t extra) {
    if (b->oom) return false;
    if (b->len + extra + 1 <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) {
        if (cap > SIZE_MAX / 2) {
            b->oom = true;
            return false;
        }
        cap *= 2;
    }
    char *p = realloc(b->data, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void sg_buf_put(sg_buf *b, const char *s, size_t n) {
    if (!buf_reserve(b, n)) return;
    if (n) memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sg_buf_puts(sg_buf *b, const char *s) { sg_buf_put(b, s, strlen(s)); }

void sg_buf_putc(sg_buf *b, char c) { sg_buf_put(b, &c, 1); }

void sg_buf_printf(sg_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = true;
        return;
    }
    if (!buf_reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void sg_buf_put_json(sg_buf *b, const char *s) {
    static const char hex[] = "0123456789abcdef";
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        sg_buf_put(b, run, (size_t)(s - run));
        run = s + 1;
        switch (c) {
        case '"': sg_buf_put(b, "\\\"", 2); break;
        case '\\': sg_buf_put(b, "\\\\", 2); break;
        case '\n': sg_buf_put(b, "\\n", 2); break;
        case '\t': sg_buf_put(b, "\\t", 2); break;
        case '\r': sg_buf_put(b, "\\r", 2); break;
        default: {
            char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            sg_buf_put(b, u, 6);
        }
        }
    }
    sg_buf_put(b, run, (size_t)(s - run));
}

void sg_buf_free(sg_buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->oom = false;
}

char *sg_buf_to_arena(sg_buf *b, sg_arena *a) {
    char *s = b->oom ? NULL : sg_arena_strndup(a, b->data ? b->data : "", b->len);
    sg_buf_free(b);
    return s;
}

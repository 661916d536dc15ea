/* gen/buf.h: the generator's one string buffer (gen/emit_buf.c): every output and every
 * message longer than a line is built in an sg_buf. */
#ifndef SHIMGEN_BUF_H
#define SHIMGEN_BUF_H
#include <stdbool.h>
#include <stddef.h>

#include "arena.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Byte buffer ----------------------------------------------------------------- */
typedef struct sg_buf {
    char *data; /* NUL-terminated when len > 0 or after any put; owned (sg_buf_free) */
    size_t len, cap;
    bool oom; /* an allocation failed; further puts are ignored */
} sg_buf;

void sg_buf_put(sg_buf *b, const char *s, size_t n);
void sg_buf_puts(sg_buf *b, const char *s);
void sg_buf_putc(sg_buf *b, char c);
void sg_buf_printf(sg_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Appends s as the inside of a JSON string (no quotes). */
void sg_buf_put_json(sg_buf *b, const char *s);
/* Frees the data; the buffer is empty afterwards. sg_buf_free on an empty buffer is a no-op. */
void sg_buf_free(sg_buf *b);
/* Moves the data out as an arena copy (NUL-terminated); the buffer is freed. */
char *sg_buf_to_arena(sg_buf *b, sg_arena *a);

#ifdef __cplusplus
}
#endif
#endif

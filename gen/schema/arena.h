/* gen/schema/arena.h: a bump allocator freed in one go.
 * Part of the schema library (gen/schema/, libsgschema.a) that shimgen and the runtime link.
 * Not thread-safe: one arena per owner (arenas on different threads are independent; the
 * pool of big blocks they share is locked). */
#ifndef SHIMGEN_ARENA_H
#define SHIMGEN_ARENA_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sg_arena sg_arena;

/* Returns a new arena; free with sg_arena_free. NULL on out-of-memory. */
sg_arena *sg_arena_new(void);
/* Frees every block the arena handed out. sg_arena_free(NULL) is a no-op. */
void sg_arena_free(sg_arena *a);
/* Zeroed memory, aligned for any type, owned by the arena. NULL on out-of-memory. */
void *sg_arena_alloc(sg_arena *a, size_t size);
/* Like sg_arena_alloc but the memory is NOT zeroed: for buffers the caller fills entirely. */
void *sg_arena_alloc_raw(sg_arena *a, size_t size);
/* A NUL-terminated copy of s[0..len) owned by the arena. */
char *sg_arena_strndup(sg_arena *a, const char *s, size_t len);
char *sg_arena_strdup(sg_arena *a, const char *s);
/* printf into arena memory. */
char *sg_arena_printf(sg_arena *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Moves every block of src into dst (dst then owns that memory, which stays where it is)
 * and frees src. Both must be unused by other threads. sg_arena_absorb(dst, NULL) is a no-op. */
void sg_arena_absorb(sg_arena *dst, sg_arena *src);
/* Total bytes handed out (for tests and benchmarks). */
size_t sg_arena_used(const sg_arena *a);

#ifdef __cplusplus
}
#endif
#endif

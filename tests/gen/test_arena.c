/* tests/gen/test_arena.c: the bump allocator (gen/schema/arena.c) directly: the first malloc'd
 * block, the pooled 2 MiB blocks (reused, and zeroed where reused), blocks larger than a big
 * block, sizes that would overflow, and the string helpers.
 * Criterion runs each test in its own process, so each starts with an empty block pool. */
#include <criterion/criterion.h>

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"

#define MIB ((size_t)1 << 20)

static bool all_zero(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) return false;
    return true;
}

Test(arena, alloc_is_zeroed_aligned_and_counted) {
    sg_arena *a = sg_arena_new();
    cr_assert_not_null(a);
    unsigned char *p = sg_arena_alloc(a, 100);
    cr_assert_not_null(p);
    cr_expect(all_zero(p, 100));
    cr_expect_eq((uintptr_t)p % alignof(max_align_t), 0);
    unsigned char *q = sg_arena_alloc(a, 1);
    cr_assert_not_null(q);
    cr_expect_eq((uintptr_t)q % alignof(max_align_t), 0);
    cr_expect_geq(q - p, 100); /* no overlap */
    cr_expect_geq(sg_arena_used(a), 101);
    sg_arena_free(a);
}

Test(arena, freed_big_block_is_reused_and_zeroed) {
    const size_t n = MIB / 4; /* under a quarter block: the big block becomes the current one */
    sg_arena *a = sg_arena_new();
    cr_assert_not_null(a);
    cr_assert_not_null(sg_arena_alloc(a, 16)); /* the first (malloc'd) block */
    /* n does not fit the 64 KiB first block: a big block */
    unsigned char *p = sg_arena_alloc_raw(a, n);
    cr_assert_not_null(p);
    memset(p, 0xAB, n);
    sg_arena_free(a); /* the big block goes to the pool */

    sg_arena *b = sg_arena_new();
    cr_assert_not_null(b);
    cr_assert_not_null(sg_arena_alloc(b, 16));
    unsigned char *q = sg_arena_alloc(b, n);
    cr_assert_not_null(q);
    cr_expect_eq(q, p, "the pooled block was not reused (%p, then %p)", (void *)p, (void *)q);
    cr_expect(all_zero(q, n), "reused memory handed out by sg_arena_alloc is not zeroed");
    /* the rest of the same block, past what the first arena dirtied: zero as well */
    unsigned char *r = sg_arena_alloc(b, MIB);
    cr_assert_not_null(r);
    cr_expect_eq(r, q + n);
    cr_expect(all_zero(r, MIB));
    sg_arena_free(b);
}

Test(arena, raw_alloc_from_a_reused_block_is_usable) {
    sg_arena *a = sg_arena_new();
    cr_assert_not_null(sg_arena_alloc(a, 16));
    unsigned char *p = sg_arena_alloc_raw(a, MIB / 4);
    cr_assert_not_null(p);
    memset(p, 0x5A, MIB / 4);
    sg_arena_free(a);
    sg_arena *b = sg_arena_new();
    cr_assert_not_null(sg_arena_alloc(b, 16));
    unsigned char *q = sg_arena_alloc_raw(b, MIB / 8);
    cr_assert_not_null(q);
    cr_expect_eq(q, p);
    cr_expect_eq((uintptr_t)q % alignof(max_align_t), 0);
    memset(q, 0x11, 4096);
    cr_expect_eq(q[0], 0x11);
    cr_expect_eq(q[4095], 0x11);
    /* a zeroed allocation right after it, in dirty memory: zero */
    unsigned char *z = sg_arena_alloc(b, 8192);
    cr_assert_not_null(z);
    cr_expect(all_zero(z, 8192));
    sg_arena_free(b);
}

Test(arena, allocation_larger_than_a_big_block) {
    sg_arena *a = sg_arena_new();
    cr_assert_not_null(a);
    unsigned char *small = sg_arena_alloc(a, 32);
    cr_assert_not_null(small);
    memset(small, 0x77, 32);
    size_t n = 3 * MIB;
    unsigned char *p = sg_arena_alloc(a, n);
    cr_assert_not_null(p);
    cr_expect(all_zero(p, n));
    memset(p, 0xCD, n);
    cr_expect_eq(p[0], 0xCD);
    cr_expect_eq(p[n - 1], 0xCD);
    /* the first block's free space is still used afterwards */
    unsigned char *after = sg_arena_alloc(a, 32);
    cr_assert_not_null(after);
    cr_expect(after < p || after >= p + n);
    cr_expect(all_zero(after, 32));
    for (int i = 0; i < 32; i++) cr_expect_eq(small[i], 0x77);
    /* and as the very first allocation of an arena */
    sg_arena *b = sg_arena_new();
    unsigned char *q = sg_arena_alloc_raw(b, n);
    cr_assert_not_null(q);
    memset(q, 1, n);
    cr_expect_eq(q[n - 1], 1);
    sg_arena_free(b);
    sg_arena_free(a);
}

Test(arena, sizes_near_size_max_fail_cleanly) {
    sg_arena *a = sg_arena_new();
    cr_assert_not_null(a);
    cr_expect_null(sg_arena_alloc(a, SIZE_MAX));
    cr_expect_null(sg_arena_alloc(a, SIZE_MAX - 1));
    cr_expect_null(sg_arena_alloc_raw(a, SIZE_MAX - 100)); /* first block: header would wrap */
    cr_assert_not_null(sg_arena_alloc(a, 16));
    cr_expect_null(sg_arena_alloc(a, SIZE_MAX - 100)); /* later block: the same */
    cr_expect_null(sg_arena_alloc_raw(a, SIZE_MAX - sizeof(max_align_t)));
    cr_expect_null(sg_arena_strndup(a, "x", SIZE_MAX));
    cr_expect_null(sg_arena_alloc(a, (size_t)PTRDIFF_MAX + 1));
    /* the arena is still usable */
    char *s = sg_arena_strdup(a, "still fine");
    cr_assert_not_null(s);
    cr_expect_str_eq(s, "still fine");
    sg_arena_free(a);
}

Test(arena, free_null_is_a_no_op) {
    sg_arena_free(NULL);
    sg_arena *a = sg_arena_new();
    cr_assert_not_null(a);
    sg_arena_absorb(a, NULL);
    cr_expect_eq(sg_arena_used(a), 0);
    sg_arena_free(a); /* an arena that never allocated */
}

Test(arena, strings) {
    sg_arena *a = sg_arena_new();
    cr_assert_not_null(a);
    char *s = sg_arena_strdup(a, "hello");
    cr_assert_not_null(s);
    cr_expect_str_eq(s, "hello");
    char *t = sg_arena_strndup(a, "abcdef", 3);
    cr_assert_not_null(t);
    cr_expect_str_eq(t, "abc");
    char *e = sg_arena_strndup(a, "", 0);
    cr_assert_not_null(e);
    cr_expect_str_eq(e, "");
    char *p = sg_arena_printf(a, "%s-%d-%05.1f", "x", -42, 3.25);
    cr_assert_not_null(p);
    cr_expect_str_eq(p, "x--42-003.2");
    /* longer than the first block: formatted into a big block */
    char *big = sg_arena_printf(a, "%*s|", 100000, "end");
    cr_assert_not_null(big);
    cr_expect_eq(strlen(big), 100001);
    cr_expect_str_eq(big + 99997, "end|");
    cr_expect_eq(big[0], ' ');
    cr_expect_str_eq(s, "hello"); /* earlier strings untouched */
    sg_arena_free(a);
}

Test(arena, absorb_moves_blocks) {
    sg_arena *dst = sg_arena_new(), *src = sg_arena_new();
    cr_assert(dst && src);
    char *d = sg_arena_strdup(dst, "dst");
    char *s = sg_arena_strdup(src, "src");
    cr_assert(d && s);
    unsigned char *big = sg_arena_alloc(src, MIB);
    cr_assert_not_null(big);
    size_t total = sg_arena_used(dst) + sg_arena_used(src);
    sg_arena_absorb(dst, src); /* src is freed; its memory now belongs to dst */
    cr_expect_eq(sg_arena_used(dst), total);
    cr_expect_str_eq(s, "src");
    cr_expect_str_eq(d, "dst");
    big[MIB - 1] = 1;
    char *more = sg_arena_strdup(dst, "more");
    cr_expect_str_eq(more, "more");
    sg_arena_free(dst);
}

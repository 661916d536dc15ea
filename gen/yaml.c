/* gen/yaml.c: YAML text -> sg_ynode tree, on libyaml's event API.
 *
 * Nodes and scalar copies live in the context's arena. The tree is built without
 * recursion: open collections sit on an explicit stack (at most SG_YAML_MAX_DEPTH deep)
 * and their children on one shared, reused vector, copied into the arena when the
 * collection closes.
 *
 * Policy for the odd corners of YAML:
 *   - anchors are accepted and ignored; aliases (`*name`) are an error (the inputs never
 *     need them, and refusing them rules out "billion laughs" inputs);
 *   - tags (`!!str`) are ignored;
 *   - exactly one document; an empty stream gives an empty plain scalar at 1:1 so that the
 *     model builders report what they expected there;
 *   - nesting deeper than SG_YAML_MAX_DEPTH is an error;
 *   - a line longer than SG_YAML_MAX_LINE bytes is an error, detected while the input is
 *     fed to libyaml, so that no huge scalar is ever assembled.
 */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

enum { SG_YAML_MAX_DEPTH = 64 };
#define SG_YAML_MAX_LINE ((size_t)1 << 20)

/* The input as libyaml reads it: memory, or a stream (for files, see sg_yaml_parse_file). */
typedef struct yaml_src {
    const char *data; /* memory input, or NULL */
    size_t len, pos;
    FILE *fp; /* stream input, or NULL */
    /* line-length guard */
    size_t line;       /* 1-based line of the byte at `pos` */
    size_t line_bytes; /* bytes of the current line seen so far */
    size_t long_line;  /* the line that was too long, 0 if none */
    int io_error;      /* errno of a failed read */
} yaml_src;

static int guard_lines(yaml_src *s, const unsigned char *buf, size_t n) {
    const unsigned char *p = buf, *end = buf + n;
    while (p < end) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t seg = (size_t)((nl ? nl : end) - p);
        s->line_bytes += seg;
        if (s->line_bytes > SG_YAML_MAX_LINE) {
            s->long_line = s->line;
            return -1;
        }
        if (!nl) break;
        s->line++;
        s->line_bytes = 0;
        p = nl + 1;
    }
    return 0;
}

static int read_handler(void *data, unsigned char *buffer, size_t size, size_t *size_read) {
    yaml_src *s = data;
    size_t n = 0;
    if (s->fp) {
        n = fread(buffer, 1, size, s->fp);
        if (n < size && ferror(s->fp)) {
            s->io_error = 1;
            return 0;
        }
    } else {
        n = s->len - s->pos;
        if (n > size) n = size;
        memcpy(buffer, s->data + s->pos, n);
        s->pos += n;
    }
    if (guard_lines(s, buffer, n) != 0) return 0;
    *size_read = n;
    return 1;
}

/* 1-based line and byte column of byte `offset` of the input (re-reads a stream). */
static void offset_to_linecol(yaml_src *s, size_t offset, uint32_t *line, uint32_t *col) {
    size_t ln = 1, lstart = 0;
    if (s->fp) {
        if (fseek(s->fp, 0, SEEK_SET) == 0) {
            char buf[65536];
            size_t base = 0, n;
            while (base < offset && (n = fread(buf, 1, sizeof buf, s->fp)) > 0) {
                for (size_t i = 0; i < n && base + i < offset; i++)
                    if (buf[i] == '\n') ln++, lstart = base + i + 1;
                base += n;
            }
        }
    } else {
        for (size_t i = 0; i < offset && i < s->len; i++)
            if (s->data[i] == '\n') ln++, lstart = i + 1;
    }
    *line = ln > UINT32_MAX ? UINT32_MAX : (uint32_t)ln;
    size_t c = offset - lstart + 1;
    *col = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

static uint32_t clamp32(size_t v) { return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

static sg_loc mark_loc(const char *path, yaml_mark_t m) {
    sg_loc l = {path, clamp32(m.line + 1), clamp32(m.column + 1)};
    return l;
}

typedef struct frame {
    sg_ynode *node;
    size_t first; /* index of its first child in the kids vector */
} frame;

typedef struct builder {
    sg_context *ctx;
    sg_arena *arena;
    /* Nodes, their scalars and item arrays are packed into chunks taken from the arena
     * (not zeroed: every byte handed out is written), so that each costs no allocation
     * call and no padding. */
    char *chunk, *chunk_end;
    const char *path;
    frame stack[SG_YAML_MAX_DEPTH];
    int depth;
    sg_ynode **kids;
    size_t n_kids, cap_kids;
    sg_ynode *root;
    int n_docs;
    sg_yaml_item_fn on_item; /* items of a top-level sequence, as each completes */
    void *item_user;
} builder;

static int push_kid(builder *b, sg_ynode *n) {
    if (b->depth == 0) {
        b->root = n;
        return 0;
    }
    if (b->n_kids == b->cap_kids) {
        size_t cap = b->cap_kids ? b->cap_kids * 2 : 1024;
        sg_ynode **k = realloc(b->kids, cap * sizeof *k);
        if (!k) return -1;
        b->kids = k;
        b->cap_kids = cap;
    }
    b->kids[b->n_kids++] = n;
    return 0;
}

/* A child of the top-level sequence is complete: hand it over (nothing writes to it again). */
static void item_done(builder *b, sg_ynode *n) {
    if (b->on_item && b->depth == 1 && b->stack[0].node->kind == SG_Y_SEQ)
        b->on_item(b->item_user, n);
}

static void report_libyaml(builder *b, yaml_parser_t *p, yaml_src *src) {
    sg_loc loc = {b->path, 1, 1};
    if (src->long_line) {
        loc.line = clamp32(src->long_line);
        loc.col = clamp32(SG_YAML_MAX_LINE + 1);
        sg_diag(b->ctx, SG_DIAG_ERROR, loc, "line is longer than %zu bytes",
                (size_t)SG_YAML_MAX_LINE);
        return;
    }
    if (src->io_error) {
        sg_diag(b->ctx, SG_DIAG_ERROR, (sg_loc){b->path, 0, 0}, "read error");
        return;
    }
    const char *problem = p->problem ? p->problem : "invalid YAML";
    switch (p->error) {
    case YAML_MEMORY_ERROR:
        sg_diag(b->ctx, SG_DIAG_ERROR, loc, "out of memory while parsing YAML");
        return;
    case YAML_READER_ERROR:
        offset_to_linecol(src, p->problem_offset, &loc.line, &loc.col);
        if (p->problem_value != -1)
            sg_diag(b->ctx, SG_DIAG_ERROR, loc, "%s (byte 0x%02X)", problem,
                    (unsigned)p->problem_value & 0xFFu);
        else
            sg_diag(b->ctx, SG_DIAG_ERROR, loc, "%s", problem);
        return;
    default:
        loc = mark_loc(b->path, p->problem_mark);
        if (p->context) {
            sg_diag(b->ctx, SG_DIAG_ERROR, loc, "%s %s", problem, p->context);
            if (p->context_mark.line != p->problem_mark.line ||
                p->context_mark.column != p->problem_mark.column)
                sg_diag(b->ctx, SG_DIAG_NOTE, mark_loc(b->path, p->context_mark),
                        "the construct being parsed starts here");
        } else {
            sg_diag(b->ctx, SG_DIAG_ERROR, loc, "%s", problem);
        }
        return;
    }
}

enum { CHUNK = 64 * 1024 - 64 };

/* size bytes of memory (NOT zeroed: the caller writes all of it) aligned for pointers
 * (align) or not. NULL on out-of-memory. */
static void *chunk_alloc(builder *b, size_t size, bool align) {
    if (align) {
        uintptr_t a =
            ((uintptr_t)b->chunk + (_Alignof(sg_ynode) - 1)) & ~(uintptr_t)(_Alignof(sg_ynode) - 1);
        b->chunk = (char *)a;
    }
    if (!b->chunk || b->chunk > b->chunk_end || (size_t)(b->chunk_end - b->chunk) < size) {
        if (size > CHUNK / 4) return sg_arena_alloc_raw(b->arena, size); /* a big one alone */
        char *c = sg_arena_alloc_raw(b->arena, CHUNK);
        if (!c) return NULL;
        b->chunk = c;
        b->chunk_end = c + CHUNK;
    }
    void *p = b->chunk;
    b->chunk += size;
    return p;
}

static sg_ynode *new_node(builder *b, sg_ynode_kind kind, const yaml_event_t *ev) {
    sg_ynode *n = chunk_alloc(b, sizeof *n, true);
    if (!n) return NULL;
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->loc = mark_loc(b->path, ev->start_mark);
    return n;
}

static sg_ynode *make_scalar(builder *b, const yaml_event_t *ev) {
    size_t len = ev->data.scalar.length;
    if (len > UINT32_MAX) return NULL;
    sg_ynode *n = new_node(b, SG_Y_SCALAR, ev);
    if (!n) return NULL;
    char *s = chunk_alloc(b, len + 1, false);
    if (!s) return NULL;
    if (len) memcpy(s, ev->data.scalar.value, len);
    s[len] = '\0';
    n->scalar = s;
    n->scalar_len = (uint32_t)len;
    yaml_scalar_style_t st = ev->data.scalar.style;
    n->quoted = st != YAML_PLAIN_SCALAR_STYLE && st != YAML_ANY_SCALAR_STYLE;
    bool one_line = ev->start_mark.line == ev->end_mark.line;
    size_t width = ev->end_mark.column - ev->start_mark.column;
    if (!one_line)
        n->verbatim = false;
    else if (!n->quoted)
        n->verbatim = true;
    else if (st == YAML_SINGLE_QUOTED_SCALAR_STYLE || st == YAML_DOUBLE_QUOTED_SCALAR_STYLE)
        n->verbatim = width == len + 2; /* no escapes, no multi-byte characters */
    else
        n->verbatim = false;
    return n;
}

static const sg_ynode *parse_with(sg_context *ctx, const char *path, yaml_src *src,
                                  sg_yaml_item_fn on_item, void *item_user) {
    builder b;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.on_item = on_item;
    b.item_user = item_user;
    b.arena = sg_context_arena(ctx);
    b.path = sg_arena_strdup(b.arena, path ? path : "<input>");
    if (!b.path) {
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){path, 0, 0}, "out of memory");
        return NULL;
    }
    src->line = 1;

    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){b.path, 0, 0}, "out of memory");
        return NULL;
    }
    yaml_parser_set_input(&p, read_handler, src);

    bool ok = true, done = false;
    while (ok && !done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            report_libyaml(&b, &p, src);
            ok = false;
            break;
        }
        sg_ynode *n = NULL;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT: done = true; break;
        case YAML_DOCUMENT_START_EVENT:
            if (++b.n_docs > 1) {
                sg_diag(ctx, SG_DIAG_ERROR, mark_loc(b.path, ev.start_mark),
                        "more than one YAML document in one input");
                ok = false;
            }
            break;
        case YAML_ALIAS_EVENT:
            sg_diag(ctx, SG_DIAG_ERROR, mark_loc(b.path, ev.start_mark),
                    "YAML aliases ('*%s') are not supported", (const char *)ev.data.alias.anchor);
            ok = false;
            break;
        case YAML_SCALAR_EVENT:
            if (ev.data.scalar.length &&
                memchr(ev.data.scalar.value, '\0', ev.data.scalar.length) != NULL) {
                /* "\u0000" or "\0" in a quoted scalar: the value would be cut there */
                sg_diag(ctx, SG_DIAG_ERROR, mark_loc(b.path, ev.start_mark),
                        "NUL character in a value");
                ok = false;
                break;
            }
            n = make_scalar(&b, &ev);
            if (!n || push_kid(&b, n) != 0) goto oom;
            item_done(&b, n);
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            if (b.depth == SG_YAML_MAX_DEPTH) {
                sg_diag(ctx, SG_DIAG_ERROR, mark_loc(b.path, ev.start_mark),
                        "YAML nested deeper than %d levels", SG_YAML_MAX_DEPTH);
                ok = false;
                break;
            }
            n = new_node(&b, ev.type == YAML_SEQUENCE_START_EVENT ? SG_Y_SEQ : SG_Y_MAP, &ev);
            if (!n || push_kid(&b, n) != 0) goto oom;
            b.stack[b.depth].node = n;
            b.stack[b.depth].first = b.n_kids;
            b.depth++;
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: {
            if (b.depth == 0) break; /* libyaml never does this */
            frame *f = &b.stack[--b.depth];
            size_t cnt = b.n_kids - f->first;
            if (cnt > UINT32_MAX) goto oom;
            if (cnt) {
                f->node->items = chunk_alloc(&b, cnt * sizeof(sg_ynode *), true);
                if (!f->node->items) goto oom;
                memcpy(f->node->items, b.kids + f->first, cnt * sizeof(sg_ynode *));
            }
            f->node->n_items = (uint32_t)cnt;
            b.n_kids = f->first;
            item_done(&b, f->node);
            break;
        }
        default: break;
        }
        yaml_event_delete(&ev);
        continue;
    oom:
        yaml_event_delete(&ev);
        sg_diag(ctx, SG_DIAG_ERROR, mark_loc(b.path, p.mark), "out of memory");
        ok = false;
    }
    yaml_parser_delete(&p);
    free(b.kids);
    if (!ok) return NULL;
    if (!b.root) {
        /* An empty stream (or one holding only comments): an empty plain scalar. */
        sg_ynode *n = sg_arena_alloc(b.arena, sizeof *n);
        if (!n) return NULL;
        n->kind = SG_Y_SCALAR;
        n->loc = (sg_loc){b.path, 1, 1};
        n->scalar = "";
        b.root = n;
    }
    return b.root;
}

const sg_ynode *sg_yaml_parse_file(sg_context *ctx, const char *path, void *fp) {
    yaml_src src;
    memset(&src, 0, sizeof src);
    src.fp = fp;
    return parse_with(ctx, path, &src, NULL, NULL);
}

const sg_ynode *sg_yaml_parse_items(sg_context *ctx, const char *path, const char *data, size_t len,
                                    void *fp, sg_yaml_item_fn fn, void *user) {
    yaml_src src;
    memset(&src, 0, sizeof src);
    if (fp) {
        src.fp = fp;
    } else {
        src.data = data ? data : "";
        src.len = data ? len : 0;
    }
    return parse_with(ctx, path, &src, fn, user);
}

sg_loc sg_ynode_loc_at(const sg_ynode *n, size_t offset) {
    sg_loc l = n->loc;
    if (n->kind == SG_Y_SCALAR && n->verbatim && offset <= n->scalar_len)
        l.col = clamp32((size_t)l.col + (n->quoted ? 1u : 0u) + offset);
    return l;
}

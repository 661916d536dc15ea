/* gen/template.c: the template engine of the emitters.
 *
 * A template file is a set of named sections (`%% name` lines); each section is text with
 * named slots `{{name}}`. Loading splits each section once into pieces (literal runs and
 * slot names); rendering copies the pieces and fills each slot from a small table of
 * values. Lookups are linear: the tables have a handful of entries. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emit.h"

typedef struct tpl_piece {
    const char *text; /* literal text, or the slot name */
    size_t len;
    bool slot;
} tpl_piece;

struct sg_template {
    tpl_piece *pieces;
    int n_pieces;
};

static bool is_slot_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

const sg_template *sg_tpl_parse(sg_arena *a, const char *text, size_t len) {
    sg_template *t = sg_arena_alloc(a, sizeof *t);
    char *copy = sg_arena_strndup(a, text, len);
    if (!t || !copy) return NULL;
    if (len > 0 && copy[len - 1] == '\n') len--; /* the file's last line end */
    /* Count pieces: at most 2 per slot + 1. */
    int max = 1;
    for (size_t i = 0; i + 1 < len; i++)
        if (copy[i] == '{' && copy[i + 1] == '{') max += 2;
    t->pieces = sg_arena_alloc(a, sizeof *t->pieces * (size_t)max);
    if (!t->pieces) return NULL;
    size_t run = 0, i = 0;
    while (i < len) {
        if (i + 1 < len && copy[i] == '{' && copy[i + 1] == '{') {
            size_t j = i + 2;
            while (j < len && is_slot_char(copy[j])) j++;
            if (j > i + 2 && j + 1 < len && copy[j] == '}' && copy[j + 1] == '}') {
                if (i > run) t->pieces[t->n_pieces++] = (tpl_piece){copy + run, i - run, false};
                t->pieces[t->n_pieces++] = (tpl_piece){copy + i + 2, j - i - 2, true};
                copy[j] = '\0'; /* the slot name as a C string; the `}}` is consumed */
                i = run = j + 2;
                continue;
            }
        }
        i++;
    }
    if (len > run) t->pieces[t->n_pieces++] = (tpl_piece){copy + run, len - run, false};
    return t;
}

/* Reads dir/name into the arena (*text, *len) and returns the path (in the arena), or NULL
 * with a message in err. */
static char *read_template_file(sg_arena *a, const char *dir, const char *name, const char **text,
                                size_t *len, char *err, size_t err_cap) {
    char *path = sg_arena_printf(a, "%s/%s", dir, name), *data = NULL;
    int rc = path ? sg_fs_read(path, &data, len) : -1;
    if (rc != 0) {
        snprintf(err, err_cap, "cannot read template %s: %s", path ? path : name,
                 !path    ? "out of memory"
                 : rc > 0 ? "no such file"
                          : strerror(errno));
        return NULL;
    }
    *text = sg_arena_strndup(a, data, *len);
    free(data);
    if (!*text) snprintf(err, err_cap, "out of memory");
    return *text ? path : NULL;
}

int sg_tpl_render(const sg_template *t, sg_buf *out, const sg_slot *slots, int n_slots,
                  const char **missing) {
    for (int i = 0; i < t->n_pieces; i++) {
        const tpl_piece *p = &t->pieces[i];
        if (!p->slot) {
            sg_buf_put(out, p->text, p->len);
            continue;
        }
        int k = 0;
        while (k < n_slots &&
               !(strncmp(slots[k].name, p->text, p->len) == 0 && slots[k].name[p->len] == '\0'))
            k++;
        if (k == n_slots) {
            if (missing) *missing = p->text;
            return -1;
        }
        const char *v = slots[k].value ? slots[k].value : "";
        sg_buf_put(out, v, slots[k].len ? slots[k].len : strlen(v));
    }
    return 0;
}

/* ---- Finding the directory ---------------------------------------------------------- */
static bool has_marker(sg_arena *a, const char *dir) {
    const char *p = sg_arena_printf(a, "%s/headers.in", dir);
    return p && access(p, R_OK) == 0;
}

/* dir without its `..` steps (it exists, so realpath works); dir itself on failure. */
static const char *tidy(sg_arena *a, const char *dir) {
    char *r = realpath(dir, NULL);
    if (!r) return dir;
    const char *c = sg_arena_strdup(a, r);
    free(r);
    return c ? c : dir;
}

const char *sg_tpl_find_dir(sg_arena *a, const char *explicit_dir) {
    if (explicit_dir && *explicit_dir) return sg_arena_strdup(a, explicit_dir);
    const char *env = getenv("SHIMGEN_TEMPLATES");
    if (env && *env) return sg_arena_strdup(a, env);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        const char *d = sg_arena_printf(a, "%s/../share/shimgen/templates", exe);
        if (d && has_marker(a, d)) return tidy(a, d);
        const char *up = "";
        for (int level = 0; level <= 4; level++) {
            d = sg_arena_printf(a, "%s/%stemplates", exe, up);
            if (d && has_marker(a, d)) return tidy(a, d);
            up = sg_arena_printf(a, "%s../", up);
            if (!up) return NULL;
        }
    }
    if (has_marker(a, "templates")) return "templates";
    return NULL;
}

/* ---- Template sets: one file, several named sections ------------------------------- */
struct sg_tpl_set {
    const char *path;
    const char **names;
    const sg_template **tpls;
    int n;
};

static bool section_line(const char *p, const char *end) {
    return end - p >= 3 && p[0] == '%' && p[1] == '%' && p[2] == ' ';
}

const sg_tpl_set *sg_tpl_set_parse(sg_arena *a, const char *name, const char *text, size_t len,
                                   char *err, size_t err_cap) {
    sg_tpl_set *s = sg_arena_alloc(a, sizeof *s);
    if (!s) goto oom;
    memset(s, 0, sizeof *s);
    const char *end = text + len;
    int max = 0;
    for (const char *p = text; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (section_line(p, nl ? nl : end)) max++;
        p = nl ? nl + 1 : end;
    }
    s->names = sg_arena_alloc(a, sizeof *s->names * (size_t)(max ? max : 1));
    s->tpls = sg_arena_alloc(a, sizeof *s->tpls * (size_t)(max ? max : 1));
    if (!s->names || !s->tpls) goto oom;
    const char *body = NULL, *sec = NULL;
    size_t sec_len = 0;
    unsigned line = 1, sec_line = 0;
    for (const char *p = text;; line++) {
        const char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        const char *le = nl ? nl : end;
        bool at_end = p >= end;
        if (at_end || section_line(p, le)) {
            if (sec) { /* close the open section: its text up to here, last newline dropped */
                const char *stop = at_end ? end : p;
                char *nm = sg_arena_strndup(a, sec, sec_len);
                const sg_template *t = nm ? sg_tpl_parse(a, body, (size_t)(stop - body)) : NULL;
                if (!t) goto oom;
                for (int k = 0; k < s->n; k++)
                    if (strcmp(s->names[k], nm) == 0) {
                        snprintf(err, err_cap, "%s:%u: section '%s' appears twice", name, sec_line,
                                 nm);
                        return NULL;
                    }
                s->names[s->n] = nm;
                s->tpls[s->n++] = t;
            }
            if (at_end) break;
            sec = p + 3;
            sec_len = (size_t)(le - sec);
            while (sec_len && (sec[sec_len - 1] == ' ' || sec[sec_len - 1] == '\r')) sec_len--;
            for (size_t k = 0; k < sec_len; k++)
                if (!is_slot_char(sec[k])) sec_len = 0;
            if (!sec_len) {
                snprintf(err, err_cap,
                         "%s:%u: bad section name (expected '%%%% name', name of [A-Za-z0-9_])",
                         name, line);
                return NULL;
            }
            sec_line = line;
            body = nl ? nl + 1 : end;
        }
        p = nl ? nl + 1 : end;
    }
    return s;
oom:
    snprintf(err, err_cap, "out of memory");
    return NULL;
}

const sg_tpl_set *sg_tpl_set_load(sg_arena *a, const char *dir, const char *name, char *err,
                                  size_t err_cap) {
    const char *text = NULL;
    size_t len = 0;
    char *path = read_template_file(a, dir, name, &text, &len, err, err_cap);
    sg_tpl_set *s = path ? (sg_tpl_set *)sg_tpl_set_parse(a, path, text, len, err, err_cap) : NULL;
    if (s) s->path = path;
    return s;
}

const sg_template *sg_tpl_set_get(const sg_tpl_set *s, const char *section) {
    for (int k = 0; s && k < s->n; k++)
        if (strcmp(s->names[k], section) == 0) return s->tpls[k];
    return NULL;
}

int sg_tpl_set_count(const sg_tpl_set *s) { return s ? s->n : 0; }

const char *sg_tpl_set_path(const sg_tpl_set *s) { return s ? s->path : NULL; }

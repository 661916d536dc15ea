/* gen/template.c: the template engine of the emitters.
 *
 * A template is text with named slots `{{name}}`. Loading splits it once into pieces
 * (literal runs and slot names); rendering copies the pieces and fills each slot from a
 * small table of values. Lookups are linear: the tables have a handful of entries. */
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
    const char *name, *path;
    tpl_piece *pieces;
    int n_pieces;
};

static bool is_slot_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

const sg_template *sg_tpl_parse(sg_arena *a, const char *name, const char *text, size_t len) {
    sg_template *t = sg_arena_alloc(a, sizeof *t);
    char *copy = sg_arena_strndup(a, text, len);
    if (!t || !copy) return NULL;
    if (len > 0 && copy[len - 1] == '\n') len--; /* the file's last line end */
    t->name = sg_arena_strdup(a, name ? name : "<template>");
    /* Count pieces: at most 2 per slot + 1. */
    int max = 1;
    for (size_t i = 0; i + 1 < len; i++)
        if (copy[i] == '{' && copy[i + 1] == '{') max += 2;
    t->pieces = sg_arena_alloc(a, sizeof *t->pieces * (size_t)max);
    if (!t->pieces || !t->name) return NULL;
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

const sg_template *sg_tpl_load(sg_arena *a, const char *dir, const char *name, char *err,
                               size_t err_cap) {
    char *path = sg_arena_printf(a, "%s/%s", dir, name);
    char *data = NULL;
    size_t len = 0;
    if (!path) {
        snprintf(err, err_cap, "out of memory");
        return NULL;
    }
    int rc = sg_fs_read(path, &data, &len);
    if (rc != 0) {
        snprintf(err, err_cap, "cannot read template %s: %s", path,
                 rc > 0 ? "no such file" : strerror(errno));
        return NULL;
    }
    sg_template *t = (sg_template *)sg_tpl_parse(a, name, data, len);
    free(data);
    if (!t) {
        snprintf(err, err_cap, "out of memory");
        return NULL;
    }
    t->path = path;
    return t;
}

const char *sg_tpl_name(const sg_template *t) { return t->name; }
const char *sg_tpl_path(const sg_template *t) { return t->path; }

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
    const char *p = sg_arena_printf(a, "%s/c_shim.h.in", dir);
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

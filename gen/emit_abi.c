/* gen/emit_abi.c: reading shim declarations back from a header (for --abi-check).
 *
 * A declaration is `AOTI_TORCH_EXPORT AOTITorchError name(type name, ...);` starting a
 * line; it may run over several lines. Types are normalised (runs of blanks become one
 * space, no blank next to `*`) so that `const int64_t *x` and `const int64_t* x` agree. */
#include <stdio.h>
#include <string.h>

#include "emit.h"

static const char kPrefix[] = "AOTI_TORCH_EXPORT AOTITorchError ";

static bool is_ident(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Normalised copy of s[0..n) (type text). */
static char *norm_type(sg_arena *a, const char *s, size_t n) {
    char *o = sg_arena_alloc(a, n + 1);
    if (!o) return NULL;
    size_t k = 0;
    bool pending_space = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (is_blank(c)) {
            pending_space = k > 0;
            continue;
        }
        if (pending_space && c != '*' && o[k - 1] != '*') o[k++] = ' ';
        pending_space = false;
        o[k++] = c;
    }
    o[k] = '\0';
    return o;
}

static int parse_params(sg_arena *a, const char *s, size_t n, sg_abi_decl *d, char *err,
                        size_t err_cap) {
    /* Count commas for the upper bound. */
    int max = 1;
    for (size_t i = 0; i < n; i++) max += s[i] == ',';
    d->params = sg_arena_alloc(a, sizeof *d->params * (size_t)max);
    if (!d->params) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    size_t i = 0;
    while (i <= n) {
        size_t j = i;
        while (j < n && s[j] != ',') j++;
        size_t lo = i, hi = j;
        while (lo < hi && is_blank(s[lo])) lo++;
        while (hi > lo && is_blank(s[hi - 1])) hi--;
        if (hi == lo) {
            if (d->n_params == 0 && j == n) break; /* () */
            snprintf(err, err_cap, "empty parameter in the declaration of %s", d->name);
            return -1;
        }
        if (hi - lo == 4 && memcmp(s + lo, "void", 4) == 0 && d->n_params == 0 && j == n) break;
        size_t name_lo = hi;
        while (name_lo > lo && is_ident(s[name_lo - 1])) name_lo--;
        if (name_lo == hi || name_lo == lo) {
            snprintf(err, err_cap, "parameter '%.*s' of %s has no name", (int)(hi - lo), s + lo,
                     d->name);
            return -1;
        }
        sg_abi_param *p = &d->params[d->n_params++];
        p->type = norm_type(a, s + lo, name_lo - lo);
        p->name = sg_arena_strndup(a, s + name_lo, hi - name_lo);
        if (!p->type || !p->name) {
            snprintf(err, err_cap, "out of memory");
            return -1;
        }
        i = j + 1;
    }
    return 0;
}

int sg_abi_scan(sg_arena *a, const char *path, const char *text, size_t len, sg_abi_decl **out,
                char *err, size_t err_cap) {
    int cap = 64, n = 0;
    sg_abi_decl *v = sg_arena_alloc(a, sizeof *v * (size_t)cap);
    if (!v) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    const char *gate = NULL;
    uint32_t line = 1;
    size_t i = 0;
    while (i < len) {
        size_t eol = i;
        while (eol < len && text[eol] != '\n') eol++;
        const char *l = text + i;
        size_t ll = eol - i;
        uint32_t this_line = line;
        size_t next = eol + 1;
        if (ll >= 29 && memcmp(l, "#if TORCH_FEATURE_VERSION >= ", 29) == 0) {
            gate = sg_arena_strndup(a, l + 29, ll - 29);
        } else if (ll >= 6 && memcmp(l, "#endif", 6) == 0) {
            gate = NULL;
        } else if (ll >= sizeof kPrefix - 1 && memcmp(l, kPrefix, sizeof kPrefix - 1) == 0) {
            size_t p = i + sizeof kPrefix - 1, q = p;
            while (q < len && is_ident(text[q])) q++;
            if (q == p || q >= len || text[q] != '(') {
                snprintf(err, err_cap, "%s:%u: malformed declaration", path, this_line);
                return -1;
            }
            size_t close = q + 1;
            while (close < len && text[close] != ')') {
                if (text[close] == '\n') line++;
                close++;
            }
            if (close >= len) {
                snprintf(err, err_cap, "%s:%u: unterminated declaration", path, this_line);
                return -1;
            }
            if (n == cap) {
                sg_abi_decl *w = sg_arena_alloc(a, sizeof *w * (size_t)cap * 2);
                if (!w) {
                    snprintf(err, err_cap, "out of memory");
                    return -1;
                }
                memcpy(w, v, sizeof *v * (size_t)n);
                v = w;
                cap *= 2;
            }
            sg_abi_decl *d = &v[n++];
            memset(d, 0, sizeof *d);
            d->name = sg_arena_strndup(a, text + p, q - p);
            d->loc = (sg_loc){path, this_line, 1};
            d->gate = gate;
            if (!d->name || parse_params(a, text + q + 1, close - q - 1, d, err, err_cap) != 0)
                return -1;
            next = close;
            while (next < len && text[next] != '\n') next++;
            next++;
        }
        line++;
        i = next;
    }
    *out = v;
    return n;
}

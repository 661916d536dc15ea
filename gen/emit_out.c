/* gen/emit_out.c: what becomes of the rendered files (see emit.h, "Output"): --check
 * (what would change, with a short diff), --abi-check (the declarations against older
 * headers), writing (through gen/emit_fs.c) and the Make-style depfile. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "emit.h"

/* A short diff: the changed middle between the common first and last lines. */
static void print_diff(const sg_out_file *f) {
    const char *a = f->old ? f->old : "", *b = f->data;
    size_t na = f->old ? f->old_len : 0, nb = f->len;
    size_t pre = 0, line_a = 1;
    while (pre < na && pre < nb && a[pre] == b[pre]) pre++;
    while (pre > 0 && a[pre - 1] != '\n') pre--; /* back to a line start */
    for (size_t i = 0; i < pre; i++) line_a += a[i] == '\n';
    size_t suf = 0;
    while (suf < na - pre && suf < nb - pre && a[na - 1 - suf] == b[nb - 1 - suf]) suf++;
    while (suf > 0 && a[na - suf] != '\n') suf--; /* keep whole lines: suffix starts after \n */
    if (suf > 0) suf--;
    printf("--- %s (on disk)\n+++ %s (generated)\n", f->path, f->path);
    for (int side = 0; side < 2; side++) {
        const char *s = side ? b : a;
        size_t lo = pre, hi = (side ? nb : na) - suf;
        if (!side) printf("@@ line %zu @@\n", line_a);
        while (lo < hi) {
            size_t e = lo;
            while (e < hi && s[e] != '\n') e++;
            printf("%c%.*s\n", side ? '+' : '-', (int)(e - lo), s + lo);
            lo = e + 1;
        }
    }
}

int sg_out_check(sg_context *ctx, sg_out_file *files, int n, const char *const *stale, int n_stale,
                 int verbosity) {
    if (sg_fs_compare(ctx, files, n) != 0) return -1;
    int changed = 0;
    for (int i = 0; i < n; i++) {
        if (!files[i].changed) continue;
        changed++;
        printf("%s: would %s\n", files[i].path, files[i].old ? "change" : "be created");
        if (verbosity > 0) print_diff(&files[i]);
    }
    for (int i = 0; i < n_stale; i++, changed++)
        printf("%s: would be removed (written by an earlier run, not generated now)\n", stale[i]);
    fflush(stdout);
    return changed ? 1 : 0;
}

static const sg_abi_decl *find_decl(const sg_abi_decl *v, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0) return &v[i];
    return NULL;
}

static int param_index(const sg_abi_decl *d, const char *name) {
    for (int i = 0; i < d->n_params; i++)
        if (strcmp(d->params[i].name, name) == 0) return i;
    return -1;
}

/* Compares one old declaration with its new form; returns the number of breaks. */
static int compare_decl(sg_context *ctx, const sg_abi_decl *o, const sg_abi_decl *n) {
    int breaks = 0;
    for (int i = 0; i < o->n_params; i++) {
        int j = param_index(n, o->params[i].name);
        if (j < 0) {
            sg_diag(ctx, SG_DIAG_ERROR, o->loc, "%s: parameter '%s %s' was removed", o->name,
                    o->params[i].type, o->params[i].name);
            breaks++;
        } else if (strcmp(o->params[i].type, n->params[j].type) != 0) {
            sg_diag(ctx, SG_DIAG_ERROR, o->loc, "%s: parameter '%s' changed type from '%s' to '%s'",
                    o->name, o->params[i].name, o->params[i].type, n->params[j].type);
            breaks++;
        }
    }
    for (int j = 0; j < n->n_params; j++)
        if (param_index(o, n->params[j].name) < 0) {
            sg_diag(ctx, SG_DIAG_ERROR, o->loc, "%s: parameter '%s %s' was added at position %d",
                    o->name, n->params[j].type, n->params[j].name, j + 1);
            breaks++;
        }
    /* The order of the parameters both have. */
    int last = -1, last_i = -1;
    for (int i = 0; i < o->n_params; i++) {
        int j = param_index(n, o->params[i].name);
        if (j < 0) continue;
        if (j < last) {
            sg_diag(ctx, SG_DIAG_ERROR, o->loc,
                    "%s: parameter order changed: '%s' (parameter %d, now %d) now comes before "
                    "'%s' (parameter %d, now %d)",
                    o->name, o->params[i].name, i + 1, j + 1, o->params[last_i].name, last_i + 1,
                    last + 1);
            breaks++;
            break;
        }
        last = j;
        last_i = i;
    }
    return breaks;
}

static int cmp_str(const void *x, const void *y) {
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The headers in old_dir that this run does not generate (a backend dropped from
 * --backends, say), sorted; NULL on error (reported). */
static char **old_only_headers(sg_context *ctx, sg_arena *a, const sg_out_file *files, int n_files,
                               const char *old_dir, int *n_out) {
    *n_out = 0;
    DIR *d = opendir(old_dir);
    if (!d) {
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){old_dir, 0, 0}, "cannot read the directory: %s",
                strerror(errno));
        return NULL;
    }
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        size_t fl = strlen(ent->d_name);
        if (fl < 3 || strcmp(ent->d_name + fl - 2, ".h") != 0) continue;
        bool generated = false;
        for (int i = 0; i < n_files && !generated; i++)
            generated = strcmp(strrchr(files[i].path, '/') + 1, ent->d_name) == 0;
        if (generated) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nn = sg_arena_alloc(a, sizeof *nn * (size_t)cap);
            if (!nn) break;
            if (n) memcpy(nn, names, sizeof *nn * (size_t)n);
            names = nn;
        }
        if (!(names[n] = sg_arena_strndup(a, ent->d_name, fl))) break;
        n++;
    }
    closedir(d);
    if (n) qsort(names, (size_t)n, sizeof *names, cmp_str);
    *n_out = n;
    return names ? names : (char **)a; /* non-NULL when empty */
}

int sg_out_abi_check(sg_context *ctx, sg_arena *a, const sg_out_file *files, int n_files,
                     const char *old_dir, int verbosity) {
    int breaks = 0, added = 0;
    /* The baseline must be there: a missing or mistyped directory is not "no change". */
    struct stat st;
    if (stat(old_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){old_dir, 0, 0},
                "--abi-check needs the directory of the older headers: %s",
                stat(old_dir, &st) != 0 ? strerror(errno) : "not a directory");
        return -1;
    }
    int n_old_only = 0;
    char **old_only = old_only_headers(ctx, a, files, n_files, old_dir, &n_old_only);
    if (!old_only) return -1;
    /* Every function of a header that is no longer generated was removed. */
    for (int i = 0; i < n_old_only; i++) {
        const char *old_path = sg_arena_printf(a, "%s/%s", old_dir, old_only[i]);
        char *text = NULL, err[256];
        size_t len = 0;
        sg_abi_decl *od = NULL;
        if (!old_path || sg_fs_read(old_path, &text, &len) != 0) {
            sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){old_path ? old_path : old_dir, 0, 0},
                    "cannot read: %s", strerror(errno));
            return -1;
        }
        int on = sg_abi_scan(a, old_path, text, len, &od, err, sizeof err);
        free(text);
        if (on < 0) {
            sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){old_path, 0, 0}, "%s", err);
            return -1;
        }
        for (int k = 0; k < on; k++) {
            sg_diag(ctx, SG_DIAG_ERROR, od[k].loc, "%s: function was removed", od[k].name);
            breaks++;
        }
        if (on > 0)
            sg_diag(ctx, SG_DIAG_NOTE, (sg_loc){old_path, 0, 0},
                    "%s is not generated now (a backend left out of --backends?)", old_only[i]);
    }
    for (int i = 0; i < n_files; i++) {
        const char *file = strrchr(files[i].path, '/') + 1;
        size_t fl = strlen(file);
        if (fl < 2 || strcmp(file + fl - 2, ".h") != 0) continue;
        char err[256];
        sg_abi_decl *nd = NULL, *od = NULL;
        int nn = sg_abi_scan(a, files[i].path, files[i].data, files[i].len, &nd, err, sizeof err);
        const char *old_path = sg_arena_printf(a, "%s/%s", old_dir, file);
        char *text = NULL;
        size_t len = 0;
        int rc = sg_fs_read(old_path, &text, &len);
        int on = 0;
        if (rc < 0) {
            sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){old_path, 0, 0}, "cannot read: %s",
                    strerror(errno));
            return -1;
        }
        if (rc == 0) {
            on = sg_abi_scan(a, old_path, text, len, &od, err, sizeof err);
            free(text);
        } else if (verbosity >= 0) {
            sg_diag(ctx, SG_DIAG_NOTE, (sg_loc){old_path, 0, 0},
                    "no such header before: every function of %s is new", file);
        }
        if (nn < 0 || on < 0) {
            sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){nn < 0 ? files[i].path : old_path, 0, 0}, "%s",
                    err);
            return -1;
        }
        for (int k = 0; k < on; k++) {
            const sg_abi_decl *n = find_decl(nd, nn, od[k].name);
            if (!n) {
                sg_diag(ctx, SG_DIAG_ERROR, od[k].loc, "%s: function was removed", od[k].name);
                breaks++;
            } else {
                breaks += compare_decl(ctx, &od[k], n);
            }
        }
        for (int k = 0; k < nn; k++)
            if (!find_decl(od, on, nd[k].name)) {
                added++;
                if (verbosity >= 0)
                    sg_diag(ctx, SG_DIAG_NOTE, (sg_loc){old_path, 0, 0},
                            "%s: function was added (compatible)", nd[k].name);
            }
    }
    if (verbosity > 0 || breaks)
        sg_diag(ctx, breaks ? SG_DIAG_ERROR : SG_DIAG_NOTE, (sg_loc){old_dir, 0, 0},
                "ABI check: %d incompatible change%s, %d function%s added", breaks,
                breaks == 1 ? "" : "s", added, added == 1 ? "" : "s");
    return breaks ? 1 : 0;
}

/* Make-style: path with blanks, `#`, `$` and `\` escaped. */
static void dep_path(sg_buf *b, const char *p) {
    for (; *p; p++) {
        if (*p == '$')
            sg_buf_putc(b, '$');
        else if (*p == ' ' || *p == '\t' || *p == '#' || *p == '\\')
            sg_buf_putc(b, '\\');
        sg_buf_putc(b, *p);
    }
}

const char *sg_out_depfile_text(sg_arena *a, const char *const *targets, int n_targets,
                                const char *const *deps, int n_deps, size_t *len) {
    sg_buf b = {0};
    for (int i = 0; i < n_targets; i++) {
        if (i) sg_buf_put(&b, " \\\n ", 4);
        dep_path(&b, targets[i]);
    }
    sg_buf_putc(&b, ':');
    for (int i = 0; i < n_deps; i++) {
        sg_buf_put(&b, " \\\n ", 4);
        dep_path(&b, deps[i]);
    }
    sg_buf_putc(&b, '\n');
    /* An empty rule per input, so that a removed input does not stop make. */
    for (int i = 0; i < n_deps; i++) {
        sg_buf_putc(&b, '\n');
        dep_path(&b, deps[i]);
        sg_buf_put(&b, ":\n", 2);
    }
    *len = b.len;
    const char *r = b.oom ? NULL : sg_buf_to_arena(&b, a);
    sg_buf_free(&b);
    return r;
}

/* ---- Stale outputs and leftover temporaries ------------------------------------------- */

/* A file name shimgen may own: no directory part, not "." or "..". */
static bool plain_name(const char *s, size_t n) {
    if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.')) return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '/' || s[i] == '\\' || s[i] == '"' || (unsigned char)s[i] < 0x20) return false;
    return true;
}

static bool produced(const sg_out_file *files, int n, const char *path) {
    for (int i = 0; i < n; i++)
        if (strcmp(files[i].path, path) == 0) return true;
    return false;
}

int sg_out_stale(sg_context *ctx, sg_arena *a, const char *out_dir, const sg_out_file *files, int n,
                 const char ***stale, int *n_stale) {
    *stale = NULL;
    *n_stale = 0;
    const char *manifest = sg_arena_printf(a, "%s/shim_manifest.json", out_dir);
    char *text = NULL;
    size_t len = 0;
    if (!manifest) return -1;
    int rc = sg_fs_read(manifest, &text, &len);
    if (rc > 0) return 0; /* no manifest: nothing is provably ours */
    if (rc < 0) {
        sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){manifest, 0, 0}, "cannot read: %s", strerror(errno));
        return -1;
    }
    /* Only a manifest shimgen wrote (its first key) proves that its "files" were ours. */
    static const char kHead[] = "{\n  \"generator\": \"shimgen ", kFiles[] = "\n  \"files\": [";
    const char *p = strstr(text, kFiles);
    if (strncmp(text, kHead, sizeof kHead - 1) != 0 || !p) {
        free(text);
        return 0;
    }
    p += sizeof kFiles - 1;
    int cap = 8, k = 0;
    const char **out = sg_arena_alloc(a, sizeof *out * (size_t)cap);
    for (bool first = true; out; first = false) {
        /* [ "a", "b" ] on one line; the manifest itself is ours as well */
        const char *name = "shim_manifest.json";
        size_t nl = strlen(name);
        if (!first) {
            while (*p == ' ' || *p == ',') p++;
            if (*p != '"') break;
            const char *q = strchr(p + 1, '"');
            if (!q) break;
            name = p + 1;
            nl = (size_t)(q - name);
            p = q + 1;
        }
        if (!plain_name(name, nl)) continue;
        const char *full = sg_arena_printf(a, "%s/%.*s", out_dir, (int)nl, name);
        struct stat st;
        if (!full) {
            out = NULL;
            break;
        }
        if (produced(files, n, full) || lstat(full, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        bool dup = false;
        for (int i = 0; i < k && !dup; i++) dup = strcmp(out[i], full) == 0;
        if (dup) continue;
        if (k == cap) {
            const char **nn = sg_arena_alloc(a, sizeof *nn * (size_t)cap * 2);
            if (!nn) {
                out = NULL;
                break;
            }
            memcpy(nn, out, sizeof *nn * (size_t)k);
            out = nn;
            cap *= 2;
        }
        out[k++] = full;
    }
    free(text);
    if (!out) return -1;
    *stale = out;
    *n_stale = k;
    return 0;
}

/* `<base>.tmp.<pid>.<n>`: the temporary files sg_fs_commit makes beside a target. Those of
 * a process that no longer runs (killed before it could remove them) are removed. */
static void clean_temps_in(const char *dir, const char *const *paths, int n) {
    DIR *d = opendir(dir);
    if (!d) return;
    size_t dl = strlen(dir);
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        const char *nm = ent->d_name, *t = NULL;
        for (const char *q = strstr(nm, ".tmp."); q; q = strstr(q + 1, ".tmp.")) t = q;
        if (!t) continue;
        const char *q = t + 5;
        long pid = 0;
        bool ok = *q >= '0' && *q <= '9';
        for (; ok && *q >= '0' && *q <= '9'; q++)
            pid = pid < 100000000 ? pid * 10 + (*q - '0') : pid;
        ok = ok && *q++ == '.' && *q >= '0' && *q <= '9';
        while (ok && *q >= '0' && *q <= '9') q++;
        if (!ok || *q || pid <= 0 || pid == (long)getpid()) continue;
        size_t bl = (size_t)(t - nm);
        bool ours = false;
        for (int i = 0; i < n && !ours; i++) {
            const char *sl = strrchr(paths[i], '/');
            const char *base = sl ? sl + 1 : paths[i];
            size_t pl = sl ? (size_t)(sl - paths[i]) : 1;
            const char *pd = sl ? paths[i] : ".";
            if (sl == paths[i]) pl = 1, pd = "/";
            ours = pl == dl && strncmp(pd, dir, dl) == 0 && strlen(base) == bl &&
                   strncmp(base, nm, bl) == 0;
        }
        if (!ours || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        char *full = malloc(dl + strlen(nm) + 2);
        if (!full) continue;
        sprintf(full, "%s/%s", dir, nm);
        unlink(full);
        free(full);
    }
    closedir(d);
}

void sg_out_clean_temps(sg_arena *a, const char *const *paths, int n) {
    for (int i = 0; i < n; i++) {
        const char *sl = strrchr(paths[i], '/');
        const char *dir = !sl              ? "."
                          : sl == paths[i] ? "/"
                                           : sg_arena_strndup(a, paths[i], (size_t)(sl - paths[i]));
        if (!dir) return;
        bool seen = false; /* each directory once */
        for (int j = 0; j < i && !seen; j++) {
            const char *s2 = strrchr(paths[j], '/');
            size_t l2 = !s2 ? 0 : s2 == paths[j] ? 1 : (size_t)(s2 - paths[j]);
            const char *d2 = !s2 ? "." : paths[j];
            seen = (s2 ? l2 : 1) == strlen(dir) && strncmp(d2, dir, strlen(dir)) == 0;
        }
        if (!seen) clean_temps_in(dir, paths, n);
    }
}

int sg_out_write(sg_context *ctx, sg_out_file *files, int n, const char *const *stale, int n_stale,
                 int verbosity) {
    if (sg_fs_compare(ctx, files, n) != 0) return -1;
    for (int i = 0; i < n; i++)
        if (files[i].always) files[i].changed = true;
    if (sg_fs_commit(ctx, files, n) != 0) return -1;
    int rc = 0;
    /* Everything new is in place: now the files of an earlier run that this one does not
     * make go (a build that globs OUT_DIR must not compile them). */
    for (int i = 0; i < n_stale; i++) {
        if (unlink(stale[i]) != 0 && errno != ENOENT) {
            sg_diag(ctx, SG_DIAG_ERROR, (sg_loc){stale[i], 0, 0},
                    "cannot remove this output of an earlier run: %s", strerror(errno));
            rc = -1;
        } else if (verbosity > 0) {
            sg_diag(ctx, SG_DIAG_NOTE, (sg_loc){stale[i], 0, 0},
                    "removed (written by an earlier run, not generated now)");
        }
    }
    if (verbosity > 0)
        for (int i = 0; i < n; i++)
            sg_diag(ctx, SG_DIAG_NOTE, (sg_loc){files[i].path, 0, 0}, "%s",
                    files[i].changed ? "written" : "unchanged");
    return rc;
}

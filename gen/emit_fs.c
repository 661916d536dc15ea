/* gen/emit_fs.c: reading files, and writing outputs only when they change, through a
 * temporary file in the same directory and a rename. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emit.h"

int sg_fs_read(const char *path, char **out, size_t *len) {
    *out = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return errno == ENOENT || errno == ENOTDIR ? 1 : -1;
    struct stat st;
    if (fstat(fd, &st) != 0) goto fail;
    if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        goto fail;
    }
    size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) goto fail;
    for (;;) {
        if (n + 1 >= cap) {
            char *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                errno = ENOMEM;
                goto fail;
            }
            buf = p;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            free(buf);
            errno = e;
            goto fail;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
fail:;
    int e = errno;
    close(fd);
    errno = e;
    return -1;
}

int sg_fs_mkdirs(const char *dir) {
    size_t n = strlen(dir);
    char *p = malloc(n + 1);
    if (!p) return -1;
    memcpy(p, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != '\0') continue;
        char c = p[i];
        p[i] = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        p[i] = c;
    }
    struct stat st;
    int rc = stat(p, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
    if (rc != 0 && errno == 0) errno = ENOTDIR;
    free(p);
    return rc;
}

static sg_loc file_loc(const char *path) { return (sg_loc){path, 0, 0}; }

int sg_fs_compare(sg_context *ctx, sg_out_file *files, int n) {
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char *old = NULL;
        size_t len = 0;
        int r = sg_fs_read(files[i].path, &old, &len);
        if (r < 0) {
            sg_diag(ctx, SG_DIAG_ERROR, file_loc(files[i].path), "cannot read: %s",
                    strerror(errno));
            rc = -1;
            continue;
        }
        files[i].old = old;
        files[i].old_len = len;
        files[i].changed = r > 0 || len != files[i].len || memcmp(old, files[i].data, len) != 0;
    }
    return rc;
}

void sg_fs_release(sg_out_file *files, int n) {
    for (int i = 0; i < n; i++) {
        free((char *)files[i].old);
        files[i].old = NULL;
    }
}

static int write_all(int fd, const char *data, size_t len) {
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

/* dir part of path ("." when none), malloc'd. */
static char *dir_of(const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) return strdup(".");
    if (slash == path) return strdup("/");
    size_t n = (size_t)(slash - path);
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

int sg_fs_commit(sg_context *ctx, sg_out_file *files, int n) {
    char **tmp = calloc((size_t)(n ? n : 1), sizeof *tmp);
    if (!tmp) {
        sg_diag(ctx, SG_DIAG_ERROR, file_loc(n ? files[0].path : "."), "out of memory");
        return -1;
    }
    int rc = 0;
    static unsigned counter;
    for (int i = 0; i < n && rc == 0; i++) {
        if (!files[i].changed) continue;
        char *dir = dir_of(files[i].path);
        if (!dir || sg_fs_mkdirs(dir) != 0) {
            sg_diag(ctx, SG_DIAG_ERROR, file_loc(dir ? dir : files[i].path),
                    "cannot create directory: %s", strerror(errno));
            free(dir);
            rc = -1;
            break;
        }
        free(dir);
        size_t cap = strlen(files[i].path) + 64;
        tmp[i] = malloc(cap);
        if (!tmp[i]) {
            rc = -1;
            break;
        }
        int fd = -1;
        for (int tries = 0; tries < 100 && fd < 0; tries++) {
            snprintf(tmp[i], cap, "%s.tmp.%ld.%u", files[i].path, (long)getpid(), counter++);
            fd = open(tmp[i], O_WRONLY | O_CREAT | O_EXCL, 0666);
            if (fd < 0 && errno != EEXIST) break;
        }
        if (fd < 0) {
            sg_diag(ctx, SG_DIAG_ERROR, file_loc(files[i].path),
                    "cannot create a temporary file beside it: %s", strerror(errno));
            free(tmp[i]);
            tmp[i] = NULL;
            rc = -1;
            break;
        }
        if (write_all(fd, files[i].data, files[i].len) != 0 || close(fd) != 0) {
            sg_diag(ctx, SG_DIAG_ERROR, file_loc(tmp[i]), "cannot write: %s", strerror(errno));
            rc = -1;
            break;
        }
    }
    for (int i = 0; i < n; i++) {
        if (!tmp[i]) continue;
        if (rc == 0 && rename(tmp[i], files[i].path) != 0) {
            sg_diag(ctx, SG_DIAG_ERROR, file_loc(files[i].path), "cannot rename %s into place: %s",
                    tmp[i], strerror(errno));
            rc = -1;
        }
        if (rc != 0) unlink(tmp[i]);
        free(tmp[i]);
    }
    free(tmp);
    return rc;
}

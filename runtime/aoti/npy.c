/* runtime/aoti/npy.c: the .npy format (numpy.lib.format): magic "\x93NUMPY", version,
 * header length (2 bytes in 1.0, 4 in 2.0 and 3.0), a Python dict literal
 * {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with spaces to a
 * multiple of 64 bytes and ended by '\n', then the raw elements. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aoti_internal.h"
#include "npy.h"
#include "shimrt/tensor.h"

#define MAX_DIMS 64

typedef struct {
    const char *descr; /* without the byte-order character */
    int32_t (*dtype)(void);
    size_t size;
} NpyType;

static const NpyType types[] = {
    {"b1", aoti_torch_dtype_bool, 1},         {"i1", aoti_torch_dtype_int8, 1},
    {"u1", aoti_torch_dtype_uint8, 1},        {"i2", aoti_torch_dtype_int16, 2},
    {"i4", aoti_torch_dtype_int32, 4},        {"i8", aoti_torch_dtype_int64, 8},
    {"f2", aoti_torch_dtype_float16, 2},      {"f4", aoti_torch_dtype_float32, 4},
    {"f8", aoti_torch_dtype_float64, 8},      {"c8", aoti_torch_dtype_complex64, 8},
    {"c16", aoti_torch_dtype_complex128, 16},
};

/* The value text after 'key': in the header, or NULL. */
static const char *find_key(const char *h, const char *key) {
    char pat[32];
    snprintf(pat, sizeof pat, "'%s'", key);
    const char *k = strstr(h, pat);
    if (!k) return NULL;
    k += strlen(pat);
    while (isspace((unsigned char)*k)) k++;
    if (*k != ':') return NULL;
    k++;
    while (isspace((unsigned char)*k)) k++;
    return k;
}

int shimrt_npy_load(const char *path, AtenTensorHandle *out) {
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return aoti_fail("%s: %s", path, strerror(errno));
    int rc = 1;
    char *header = NULL;
    uint8_t pre[12];
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        aoti_fail("%s: not a .npy file (no \\x93NUMPY magic)", path);
        goto out;
    }
    uint32_t hlen;
    if (pre[6] == 1) {
        hlen = (uint32_t)pre[8] | (uint32_t)pre[9] << 8;
    } else if (pre[6] == 2 || pre[6] == 3) {
        if (fread(pre + 10, 1, 2, f) != 2) {
            aoti_fail("%s: truncated header", path);
            goto out;
        }
        hlen = (uint32_t)pre[8] | (uint32_t)pre[9] << 8 | (uint32_t)pre[10] << 16 |
               (uint32_t)pre[11] << 24;
    } else {
        aoti_fail("%s: unknown .npy format version %u.%u", path, pre[6], pre[7]);
        goto out;
    }
    if (hlen > (1u << 20)) {
        aoti_fail("%s: header of %u bytes is too long", path, hlen);
        goto out;
    }
    header = malloc(hlen + 1);
    if (!header || fread(header, 1, hlen, f) != hlen) {
        aoti_fail("%s: truncated header", path);
        goto out;
    }
    header[hlen] = '\0';
    /* descr */
    const char *d = find_key(header, "descr");
    char descr[16] = {0};
    if (!d || sscanf(d, "'%15[^']'", descr) != 1) {
        aoti_fail("%s: header has no 'descr' string (structured dtypes are not supported)", path);
        goto out;
    }
    const char *code = descr;
    if (*code == '<' || *code == '|' || *code == '=')
        code++;
    else if (*code == '>') {
        aoti_fail("%s: big-endian data ('%s') is not supported; save it little-endian", path,
                  descr);
        goto out;
    }
    const NpyType *t = NULL;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(code, types[i].descr) == 0) t = &types[i];
    if (!t) {
        aoti_fail("%s: dtype '%s' has no tensor dtype here", path, descr);
        goto out;
    }
    /* fortran_order */
    const char *fo = find_key(header, "fortran_order");
    bool fortran;
    if (fo && strncmp(fo, "False", 5) == 0)
        fortran = false;
    else if (fo && strncmp(fo, "True", 4) == 0)
        fortran = true;
    else {
        aoti_fail("%s: header has no 'fortran_order' True/False", path);
        goto out;
    }
    /* shape */
    const char *s = find_key(header, "shape");
    if (!s || *s != '(') {
        aoti_fail("%s: header has no 'shape' tuple", path);
        goto out;
    }
    s++;
    int64_t sizes[MAX_DIMS], strides[MAX_DIMS];
    int64_t ndim = 0;
    uint64_t numel = 1;
    for (;;) {
        while (isspace((unsigned char)*s)) s++;
        if (*s == ')') break;
        if (!isdigit((unsigned char)*s) || ndim == MAX_DIMS) {
            aoti_fail("%s: bad 'shape' in header", path);
            goto out;
        }
        errno = 0;
        char *end;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno || v > (unsigned long long)INT64_MAX ||
            (v && numel > UINT64_MAX / 8 / v / t->size)) {
            aoti_fail("%s: shape too large", path);
            goto out;
        }
        sizes[ndim++] = (int64_t)v;
        numel *= v;
        s = end;
        while (isspace((unsigned char)*s)) s++;
        if (*s == ',')
            s++;
        else if (*s != ')') {
            aoti_fail("%s: bad 'shape' in header", path);
            goto out;
        }
    }
    /* The tensor is C-contiguous either way (a compiled model expects the strides it was
     * traced with); Fortran-order data is transposed into it. */
    int64_t fstrides[MAX_DIMS];
    int64_t st = 1, fst = 1;
    for (int64_t i = ndim - 1; i >= 0; i--) strides[i] = st, st *= sizes[i] ? sizes[i] : 1;
    for (int64_t i = 0; i < ndim; i++) fstrides[i] = fst, fst *= sizes[i] ? sizes[i] : 1;
    AtenTensorHandle h;
    if (aoti_torch_empty_strided(ndim, sizes, strides, t->dtype(), aoti_torch_device_type_cpu(), 0,
                                 &h) != AOTI_TORCH_SUCCESS) {
        aoti_fail("%s: cannot make a tensor of its shape", path);
        goto out;
    }
    void *data = NULL;
    aoti_torch_get_data_ptr(h, &data);
    size_t nbytes = (size_t)numel * t->size;
    uint8_t *src = fortran && nbytes ? malloc(nbytes) : data;
    if (nbytes && (!src || fread(src, 1, nbytes, f) != nbytes)) {
        if (src != data) free(src);
        aoti_torch_delete_tensor_object(h);
        aoti_fail("%s: truncated data (expected %zu bytes)", path, nbytes);
        goto out;
    }
    if (src != data) {
        int64_t idx[MAX_DIMS] = {0};
        uint8_t *dst = data;
        for (uint64_t k = 0; k < numel; k++) {
            int64_t off = 0;
            for (int64_t i = 0; i < ndim; i++) off += idx[i] * fstrides[i];
            memcpy(dst + k * t->size, src + off * (int64_t)t->size, t->size);
            for (int64_t i = ndim - 1; i >= 0; i--) {
                if (++idx[i] < sizes[i]) break;
                idx[i] = 0;
            }
        }
        free(src);
    }
    *out = h;
    rc = 0;
out:
    free(header);
    fclose(f);
    return rc;
}

int shimrt_npy_save(const char *path, AtenTensorHandle h) {
    int32_t dtype, dev;
    int64_t ndim, *sizes, *strides;
    void *data;
    if (!h || aoti_torch_get_dtype(h, &dtype) || aoti_torch_get_device_type(h, &dev) ||
        aoti_torch_get_dim(h, &ndim) || aoti_torch_get_sizes(h, &sizes) ||
        aoti_torch_get_strides(h, &strides) || aoti_torch_get_data_ptr(h, &data))
        return aoti_fail("%s: not a tensor", path);
    if (dev != aoti_torch_device_type_cpu()) return aoti_fail("%s: not a CPU tensor", path);
    const NpyType *t = NULL;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (types[i].dtype() == dtype) t = &types[i];
    if (!t) return aoti_fail("%s: the tensor's dtype %d has no NumPy dtype", path, (int)dtype);
    if (ndim > MAX_DIMS) return aoti_fail("%s: %lld dimensions", path, (long long)ndim);
    char dict[64 + 24 * MAX_DIMS];
    int n = snprintf(dict, sizeof dict, "{'descr': '%c%s', 'fortran_order': False, 'shape': (",
                     t->size == 1 ? '|' : '<', t->descr);
    uint64_t numel = 1;
    for (int64_t i = 0; i < ndim; i++) {
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld%s", (long long)sizes[i],
                      ndim == 1      ? ","
                      : i + 1 < ndim ? ", "
                                     : "");
        numel *= (uint64_t)sizes[i];
    }
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    /* 10 bytes of preamble + dict + padding + '\n', a multiple of 64. */
    size_t total = ((size_t)10 + (size_t)n + 1 + 63) / 64 * 64;
    size_t hlen = total - 10;
    FILE *f = fopen(path, "wb");
    if (!f) return aoti_fail("%s: %s", path, strerror(errno));
    uint8_t pre[10] = {
        0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (uint8_t)(hlen & 0xff), (uint8_t)(hlen >> 8)};
    bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(dict, 1, (size_t)n, f) == (size_t)n;
    for (size_t i = (size_t)n; ok && i + 1 < hlen; i++) ok = fputc(' ', f) != EOF;
    ok = ok && fputc('\n', f) != EOF;
    /* The elements in C order, whatever the strides. */
    int64_t idx[MAX_DIMS] = {0};
    const uint8_t *base = data;
    for (uint64_t k = 0; ok && k < numel; k++) {
        int64_t off = 0;
        for (int64_t i = 0; i < ndim; i++) off += idx[i] * strides[i];
        ok = fwrite(base + off * (int64_t)t->size, 1, t->size, f) == t->size;
        for (int64_t i = ndim - 1; i >= 0; i--) {
            if (++idx[i] < sizes[i]) break;
            idx[i] = 0;
        }
    }
    if (fclose(f) != 0) ok = false;
    if (!ok) return aoti_fail("%s: write failed: %s", path, strerror(errno));
    return 0;
}

/* runtime/cpu/grouped_mm.c: _grouped_mm as PyTorch 2.15's CPU fallback computes it (float32,
 * bfloat16, float16; no bias; out_dtype only mat_a's), the products accumulated in double
 * and rounded once:
 *   3-d x 3-d: a batched mm (no offs);
 *   2-d x 3-d: offs[i] ends group i's rows of mat_a, multiplied by mat_b[i];
 *   3-d x 2-d: offs[i] ends group i's columns of mat_b, multiplied by mat_a[i];
 *   2-d x 2-d: offs[i] ends group i's slice of the contraction dimension: out[i] =
 *              mat_a[:, k-slice] @ mat_b[k-slice, :].
 * offs is a 1-d int32 tensor of cumulative ends. Each matrix has one unit stride among its
 * last two dims and the other a multiple of 16 bytes, as PyTorch checks. */
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../generic/meta.h"
#include "cpu_kernels.h"
#include "iter.h"

static AOTITorchError check_mat(const char *op, AtenTensorHandle m, const char *name) {
    if (shimrt_k_check_cpu(op, m, name)) return AOTI_TORCH_FAILURE;
    int32_t dt = m->dtype;
    if (dt != SHIMRT_FLOAT32 && dt != SHIMRT_BFLOAT16 && dt != SHIMRT_FLOAT16)
        return shimrt_fail(op, "Expected %s to be Float32, BFloat16 or Float16 matrix, got %s",
                           name, shimrt_dtype_name(dt));
    if (m->ndim != 2 && m->ndim != 3) return shimrt_fail(op, "%s has to be 2 or 3d", name);
    int64_t al = 16 / (int64_t)shimrt_dtype_size(dt), e = m->ndim - 1;
    if (m->storage_offset % al) return shimrt_fail(op, "matrix for grouped gemm is not aligned");
    int64_t s1 = m->strides[e], s0 = m->strides[e - 1];
    int64_t z1 = m->sizes[e] > 1 ? m->sizes[e] : 1, z0 = m->sizes[e - 1] > 1 ? m->sizes[e - 1] : 1;
    if (s1 == 1 && s0 >= z1) {
        if (s0 % al) return shimrt_fail(op, "strides should be multiple of 16 bytes");
    } else if (s0 == 1 && s1 >= z0) {
        if (s1 % al) return shimrt_fail(op, "strides should be multiple of 16 bytes");
    } else {
        return shimrt_fail(op, "Invalid strides/sizes for %s", name);
    }
    return AOTI_TORCH_SUCCESS;
}

/* element (i, j) of the matrix at batch b */
static double at3(AtenTensorHandle m, int64_t b, int64_t i, int64_t j) {
    int64_t e = m->ndim - 1;
    int64_t off =
        (m->ndim == 3 ? b * m->strides[0] : 0) + i * m->strides[e - 1] + j * m->strides[e];
    return shimrt_k_load_f64(
        (const char *)shimrt_data(m) + off * (int64_t)shimrt_dtype_size(m->dtype), m->dtype);
}

/* out[ob] rows r0..r1, cols c0..c1 = a[ab] rows r0..r1 x b[bb] cols c0..c1 over k0..k1 */
static void block(AtenTensorHandle a, int64_t ab, AtenTensorHandle b, int64_t bb, char *o,
                  int64_t ldo, int32_t odt, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                  int64_t k0, int64_t k1) {
    size_t es = shimrt_dtype_size(odt);
    for (int64_t i = r0; i < r1; i++)
        for (int64_t j = c0; j < c1; j++) {
            double acc = 0.0;
            for (int64_t k = k0; k < k1; k++) acc += at3(a, ab, i, k) * at3(b, bb, k, j);
            shimrt_k_store_f64(o + (i * ldo + j) * (int64_t)es, odt, acc);
        }
}

AOTITorchError shimrt_cpu__grouped_mm(AtenTensorHandle self, AtenTensorHandle mat2,
                                      AtenTensorHandle offs, AtenTensorHandle bias,
                                      int32_t *out_dtype, AtenTensorHandle *ret0) {
    static const char op[] = "_grouped_mm";
    if (check_mat(op, self, "mat_a") || check_mat(op, mat2, "mat_b")) return AOTI_TORCH_FAILURE;
    if (self->dtype != mat2->dtype)
        return shimrt_fail(op, "Expected mat_a and mat_b to have the same dtype, got %s and %s",
                           shimrt_dtype_name(self->dtype), shimrt_dtype_name(mat2->dtype));
    if (out_dtype && *out_dtype != self->dtype)
        return shimrt_fail(op, "Grouped gemm output dtype must match `mat_a` dtype");
    if (bias) return shimrt_fail(op, "Bias not supported yet");
    bool a2 = self->ndim == 2, b2 = mat2->ndim == 2;
    if ((a2 || b2) != (offs != NULL))
        return shimrt_fail(op, a2 || b2 ? "Offsets tensor is required when mat_a or mat_b is 2d"
                                        : "Offsets tensor is not supported for 3d inputs");
    int64_t ka = self->sizes[self->ndim - 1], kb = mat2->sizes[mat2->ndim - 2];
    if (ka != kb) return shimrt_fail(op, "contraction dimension of mat_a and mat_b must match");
    int64_t G = 0, *ends = NULL;
    if (offs) {
        if (shimrt_k_check_cpu(op, offs, "offs")) return AOTI_TORCH_FAILURE;
        if (offs->ndim != 1 || offs->dtype != SHIMRT_INT32)
            return shimrt_fail(op, "offs has to be 1D int32 tensor");
        G = offs->sizes[0];
        ends = malloc((size_t)(G ? G : 1) * sizeof *ends);
        if (!ends) return shimrt_fail(op, "out of memory");
        /* the dimension the offsets split */
        int64_t lim = a2 && b2 ? ka : a2 ? self->sizes[0] : mat2->sizes[1];
        int64_t prev = 0;
        for (int64_t g = 0; g < G; g++) {
            ends[g] = ((const int32_t *)shimrt_data(offs))[g * offs->strides[0]];
            if (ends[g] < prev || ends[g] > lim) {
                free(ends);
                return shimrt_fail(op,
                                   "offs must be non-decreasing and within the split "
                                   "dimension (%lld)",
                                   (long long)lim);
            }
            prev = ends[g];
        }
        if (!a2 && self->sizes[0] != G) {
            free(ends);
            return shimrt_fail(op, "matrix batch sizes have to match the number of groups");
        }
        if (!b2 && mat2->sizes[0] != G) {
            free(ends);
            return shimrt_fail(op, "matrix batch sizes have to match the number of groups");
        }
    } else if (self->sizes[0] != mat2->sizes[0]) {
        return shimrt_fail(op, "batched dimension has to match");
    }
    int64_t M = self->sizes[self->ndim - 2], N = mat2->sizes[mat2->ndim - 1];
    int64_t osz[3], ond;
    if (a2 && b2) {
        osz[0] = G, osz[1] = M, osz[2] = N, ond = 3;
    } else if (a2 || b2) {
        osz[0] = M, osz[1] = N, ond = 2;
    } else {
        osz[0] = self->sizes[0], osz[1] = M, osz[2] = N, ond = 3;
    }
    int32_t odt = self->dtype;
    AtenTensorHandle out = shimrt_tensor_empty(op, ond, osz, NULL, odt, SHIMRT_DEV_CPU, 0);
    if (!out) {
        free(ends);
        return AOTI_TORCH_FAILURE;
    }
    char *o = shimrt_data(out);
    int64_t n = shimrt_numel(out);
    if (n) memset(o, 0, (size_t)n * shimrt_dtype_size(odt));
    size_t es = shimrt_dtype_size(odt);
    if (!offs) {
        for (int64_t g = 0; g < osz[0]; g++)
            block(self, g, mat2, g, o + g * M * N * (int64_t)es, N, odt, 0, M, 0, N, 0, ka);
    } else {
        int64_t prev = 0;
        for (int64_t g = 0; g < G; g++) {
            int64_t e = ends[g];
            if (a2 && b2)
                block(self, 0, mat2, 0, o + g * M * N * (int64_t)es, N, odt, 0, M, 0, N, prev, e);
            else if (a2)
                block(self, 0, mat2, g, o, N, odt, prev, e, 0, N, 0, ka);
            else
                block(self, g, mat2, 0, o, N, odt, 0, M, prev, e, 0, ka);
            prev = e;
        }
    }
    free(ends);
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

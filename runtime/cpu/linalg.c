/* runtime/cpu/linalg.c: mm (CPU): a plain strided matrix product. Both operands must be
 * 2-D with the same dtype; the result is a new contiguous [n, m] tensor of that dtype.
 * Floating products accumulate in double, integral ones in int64 (wrapping). */
#include <string.h>

#include "cpu_kernels.h"
#include "iter.h"

AOTITorchError shimrt_cpu_mm(AtenTensorHandle self, AtenTensorHandle mat2,
                             AtenTensorHandle *ret0) {
    static const char op[] = "mm";
    if (shimrt_k_check_cpu(op, self, "self") || shimrt_k_check_cpu(op, mat2, "mat2") ||
        shimrt_k_check_dtype(op, self, "self") || shimrt_k_check_dtype(op, mat2, "mat2"))
        return AOTI_TORCH_FAILURE;
    if (self->ndim != 2)
        return shimrt_fail(op, "self must be a matrix (got a %lld-D tensor)", (long long)self->ndim);
    if (mat2->ndim != 2)
        return shimrt_fail(op, "mat2 must be a matrix (got a %lld-D tensor)", (long long)mat2->ndim);
    if (self->sizes[1] != mat2->sizes[0])
        return shimrt_fail(op, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                           (long long)self->sizes[0], (long long)self->sizes[1],
                           (long long)mat2->sizes[0], (long long)mat2->sizes[1]);
    if (self->dtype != mat2->dtype)
        return shimrt_fail(op, "expected self and mat2 to have the same dtype, but got: %s != %s",
                           shimrt_dtype_name(self->dtype), shimrt_dtype_name(mat2->dtype));
    int32_t dt = self->dtype;
    if (dt == SHIMRT_BOOL) return shimrt_fail(op, "\"mm\" not implemented for 'bool'");
    int64_t n = self->sizes[0], k = self->sizes[1], m = mat2->sizes[1];
    int64_t shape[2] = {n, m};
    AtenTensorHandle out = shimrt_k_empty_like_dev(op, self, 2, shape, NULL, dt);
    if (!out) return AOTI_TORCH_FAILURE;
    size_t es = shimrt_dtype_size(dt);
    const char *a = shimrt_data(self), *b = shimrt_data(mat2);
    char *o = shimrt_data(out);
    int64_t as0 = self->strides[0] * (int64_t)es, as1 = self->strides[1] * (int64_t)es;
    int64_t bs0 = mat2->strides[0] * (int64_t)es, bs1 = mat2->strides[1] * (int64_t)es;
    bool flt = shimrt_k_is_floating(dt);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < m; j++) {
            char *dst = o + (i * m + j) * (int64_t)es;
            if (dt == SHIMRT_FLOAT32 || dt == SHIMRT_FLOAT64) {
                double acc = 0.0;
                for (int64_t p = 0; p < k; p++) {
                    const char *x = a + i * as0 + p * as1, *y = b + p * bs0 + j * bs1;
                    if (dt == SHIMRT_FLOAT32) {
                        float fx, fy;
                        memcpy(&fx, x, 4);
                        memcpy(&fy, y, 4);
                        acc += (double)fx * fy;
                    } else {
                        double dx, dy;
                        memcpy(&dx, x, 8);
                        memcpy(&dy, y, 8);
                        acc += dx * dy;
                    }
                }
                shimrt_k_store_f64(dst, dt, acc);
            } else if (flt) {
                double acc = 0.0;
                for (int64_t p = 0; p < k; p++)
                    acc += shimrt_k_load_f64(a + i * as0 + p * as1, dt) *
                           shimrt_k_load_f64(b + p * bs0 + j * bs1, dt);
                shimrt_k_store_f64(dst, dt, acc);
            } else {
                uint64_t acc = 0;
                for (int64_t p = 0; p < k; p++)
                    acc += (uint64_t)shimrt_k_load_i64(a + i * as0 + p * as1, dt) *
                           (uint64_t)shimrt_k_load_i64(b + p * bs0 + j * bs1, dt);
                shimrt_k_store_i64(dst, dt, (int64_t)acc);
            }
        }
    }
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}

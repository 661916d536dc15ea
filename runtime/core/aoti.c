/* runtime/core/aoti.c: the rest of PyTorch 2.15's C shim (shimrt/aoti.h): autograd
 * flags, warnings and debugging prints, boxed C10IValues, record-function guards, pool
 * views, _mm_plus_mm, and the functions that fail by design (docs/dropin.md).
 * aoti_torch_check lives in runtime/core/cxx_boundary.cc: it throws. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "containers_internal.h"
#include "internal.h"
#include "c_shim_aten.h"

/* ---- autograd flags ---- */
static _Thread_local bool tls_grad_disabled; /* PyTorch starts with grad mode on */

AOTI_TORCH_EXPORT bool aoti_torch_grad_mode_is_enabled(void) { return !tls_grad_disabled; }
AOTI_TORCH_EXPORT void aoti_torch_grad_mode_set_enabled(bool enabled) {
    tls_grad_disabled = !enabled;
}

AOTI_TORCH_EXPORT AOTITorchError torch_set_requires_grad(AtenTensorHandle tensor,
                                                         bool requires_grad) {
    SHIMRT_CHECK_DEFINED(tensor);
    int32_t dt = tensor->dtype;
    bool grad_ok = shimrt_dtype_is_floating(dt) || shimrt_dtype_is_complex(dt);
    if (requires_grad && !grad_ok)
        return shimrt_fail(__func__,
                           "only Tensors of floating point and complex dtype can "
                           "require gradients (got %s)",
                           shimrt_dtype_name(dt));
    shimrt_tensor_set_requires_grad(tensor, requires_grad);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError torch_has_storage(AtenTensorHandle tensor, bool *ret_has_storage) {
    SHIMRT_CHECK_TENSOR(tensor);
    SHIMRT_CHECK_ARG(ret_has_storage);
    *ret_has_storage = tensor->defined && tensor->storage != NULL;
    return AOTI_TORCH_SUCCESS;
}

/* ---- warnings and debugging ---- */
AOTI_TORCH_EXPORT void aoti_torch_warn(const char *func, const char *file, uint32_t line,
                                       const char *msg) {
    fprintf(stderr, "Warning: %s (function %s at %s:%u)\n", msg ? msg : "", func ? func : "?",
            file ? file : "?", (unsigned)line);
}

/* Element i (row-major over sizes) of a floating or integral tensor, as a double. */
static double element(AtenTensorHandle t, int64_t linear) {
    int64_t off = 0;
    for (int64_t d = t->ndim - 1; d >= 0; d--) {
        int64_t sz = t->sizes[d] ? t->sizes[d] : 1;
        off += (linear % sz) * t->strides[d];
        linear /= sz;
    }
    return shimrt_k_load_f64(
        (const char *)shimrt_data(t) + off * (int64_t)shimrt_dtype_size(t->dtype), t->dtype);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_check_inf_and_nan(const char *tensor_name,
                                                              AtenTensorHandle tensor) {
    SHIMRT_CHECK_DEFINED(tensor);
    const char *name = tensor_name ? tensor_name : "tensor";
    if (!shimrt_dtype_is_floating(tensor->dtype) || !shimrt_data(tensor)) return AOTI_TORCH_SUCCESS;
    int64_t n = shimrt_numel(tensor);
    for (int64_t i = 0; i < n; i++) {
        double v = element(tensor, i);
        if (isnan(v)) return shimrt_fail(__func__, "Found NaN in %s", name);
        if (isinf(v)) return shimrt_fail(__func__, "Found Inf in %s", name);
    }
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT void aoti_torch_print_tensor_handle(AtenTensorHandle self, const char *msg) {
    if (!shimrt_tensor_valid(self) || !self->defined) {
        printf("[%s]: <invalid or undefined tensor>\n", msg ? msg : "");
        return;
    }
    printf("[%s]:\n", msg ? msg : "");
    int64_t n = shimrt_numel(self);
    bool readable = shimrt_data(self) && shimrt_dtype_is_computable(self->dtype) &&
                    self->dtype != SHIMRT_COMPLEX64 && self->dtype != SHIMRT_COMPLEX128 &&
                    self->dtype != SHIMRT_UINT16 && self->dtype != SHIMRT_UINT32 &&
                    self->dtype != SHIMRT_UINT64;
    printf("[");
    for (int64_t i = 0; readable && i < n; i++) printf(i ? ", %.8g" : "%.8g", element(self, i));
    printf("]\n[ %s{", shimrt_dtype_name(self->dtype));
    for (int64_t d = 0; d < self->ndim; d++)
        printf(d ? ",%lld" : "%lld", (long long)self->sizes[d]);
    printf("} ]\n");
    fflush(stdout);
}

AOTI_TORCH_EXPORT void aoti_torch_save_tensor_handle(AtenTensorHandle self, const char *tensor_name,
                                                     const char *launch_prefix,
                                                     const char *kernel_name) {
    (void)self;
    (void)launch_prefix;
    (void)kernel_name;
    fprintf(stderr,
            "aoti_torch_save_tensor_handle: not saving %s: the torch.save pickle "
            "format needs libtorch's serializer (docs/dropin.md)\n",
            tensor_name ? tensor_name : "tensor");
}

/* ---- creation ---- */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_empty_strided_pinned(
    int64_t ndim, const int64_t *sizes_ptr, const int64_t *strides_ptr, int32_t dtype,
    int32_t device_type, int32_t device_index, AtenTensorHandle *ret_new_tensor) {
    SHIMRT_CHECK_ARG(ret_new_tensor);
    if (ndim > 0 && !strides_ptr)
        return shimrt_fail(__func__,
                           "argument 'strides_ptr' is NULL for a %lld-dim tensor "
                           "(PyTorch requires the strides)",
                           (long long)ndim);
    if (device_type != SHIMRT_DEV_CPU)
        return shimrt_fail(__func__,
                           "pinned memory is host memory: device_type must be "
                           "cpu (0), got %d",
                           (int)device_type);
    return shimrt_k_give(shimrt_tensor_empty(__func__, ndim, sizes_ptr, strides_ptr, dtype,
                                             device_type, device_index),
                         ret_new_tensor);
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch__alloc_from_pool(AtenTensorHandle self,
                                                             int64_t offset_bytes, int32_t dtype,
                                                             int64_t ndim, const int64_t *sizes_ptr,
                                                             const int64_t *strides_ptr,
                                                             AtenTensorHandle *ret_new_tensor) {
    SHIMRT_CHECK_DEFINED(self);
    SHIMRT_CHECK_ARG(ret_new_tensor);
    if (shimrt_check_dtype(__func__, dtype)) return AOTI_TORCH_FAILURE;
    size_t elsize = shimrt_dtype_size(dtype);
    int64_t base = self->storage_offset * (int64_t)shimrt_dtype_size(self->dtype);
    if (offset_bytes < 0 || (base + offset_bytes) % (int64_t)elsize != 0)
        return shimrt_fail(__func__,
                           "offset_bytes %lld is negative or not a multiple of the "
                           "%zu-byte element",
                           (long long)offset_bytes, elsize);
    return shimrt_k_give(shimrt_tensor_new(__func__, self->storage, ndim, sizes_ptr, strides_ptr,
                                           (base + offset_bytes) / (int64_t)elsize, dtype,
                                           self->device_type, self->device_index,
                                           SHIMRT_LAYOUT_STRIDED),
                         ret_new_tensor);
}

/* ---- _mm_plus_mm ---- */
AOTI_TORCH_EXPORT AOTITorchError aoti_torch__mm_plus_mm_out(AtenTensorHandle out,
                                                            AtenTensorHandle a, AtenTensorHandle b,
                                                            AtenTensorHandle c,
                                                            AtenTensorHandle d) {
    SHIMRT_CHECK_DEFINED(out);
    AtenTensorHandle ab = NULL, cd = NULL, sum = NULL;
    AOTITorchError rc = aoti_torch_aten_mm(a, b, &ab);
    if (!rc) rc = aoti_torch_aten_mm(c, d, &cd);
    if (!rc) rc = aoti_torch_aten_add_Tensor(ab, cd, 1.0, &sum);
    if (!rc) rc = shimrt_backend_copy(__func__, out, sum);
    shimrt_tensor_free(ab);
    shimrt_tensor_free(cd);
    shimrt_tensor_free(sum);
    return rc;
}

/* ---- boxed values ---- */
#define IVALUE_MAGIC UINT64_C(0x5348495256414C55) /* "SHIRVALU" */
enum { IV_INT, IV_STR, IV_STRLIST, IV_TENSOR };
struct C10IValueOpaque {
    uint64_t magic;
    int kind;
    int64_t i;
    char *s;
    char **list;
    int64_t len;
    AtenTensorHandle t;
};

/* Pooled, so a freed, foreign or stack pointer is refused without being read (pool.c). */
static shimrt_pool iv_pool = SHIMRT_POOL_INIT(struct C10IValueOpaque);

static AOTITorchError iv_new(const char *func, int kind, C10IValueHandle *ret,
                             struct C10IValueOpaque **out) {
    if (!ret) return shimrt_fail(func, "argument 'ivalue' is NULL");
    struct C10IValueOpaque *v = shimrt_pool_new(func, &iv_pool, IVALUE_MAGIC);
    if (!v) return AOTI_TORCH_FAILURE;
    v->kind = kind;
    *out = v;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_int64_to_ivalue(int64_t val, C10IValueHandle *ivalue) {
    struct C10IValueOpaque *v = NULL;
    if (iv_new(__func__, IV_INT, ivalue, &v)) return AOTI_TORCH_FAILURE;
    v->i = val;
    *ivalue = v;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_str_to_ivalue(const char *val,
                                                          C10IValueHandle *ivalue) {
    SHIMRT_CHECK_ARG(val);
    struct C10IValueOpaque *v = NULL;
    if (iv_new(__func__, IV_STR, ivalue, &v)) return AOTI_TORCH_FAILURE;
    if (!(v->s = strdup(val))) {
        shimrt_pool_free(&iv_pool, v);
        return shimrt_fail(__func__, "out of memory");
    }
    *ivalue = v;
    return AOTI_TORCH_SUCCESS;
}

/* Before a free: fails unless p is a live object of pool with that magic. */
static AOTITorchError retire(const char *func, shimrt_pool *pool, const void *p, uint64_t want,
                             const char *arg, const char *what) {
    const char *why = shimrt_handle_problem(pool, p, want);
    if (why) return shimrt_fail(func, "%s handle '%s' %s", what, arg, why);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_delete_c10_value_object(C10IValueHandle handle) {
    if (!handle) return AOTI_TORCH_SUCCESS;
    if (retire(__func__, &iv_pool, handle, IVALUE_MAGIC, "handle", "C10IValue"))
        return AOTI_TORCH_FAILURE;
    free(handle->s);
    for (int64_t k = 0; k < handle->len; k++) free(handle->list[k]);
    free(handle->list);
    shimrt_tensor_free(handle->t);
    shimrt_pool_free(&iv_pool, handle);
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_strlist_to_ivalue(const char **val, int64_t len,
                                                              C10IValueHandle *ivalue) {
    if (len < 0) return shimrt_fail(__func__, "len %lld is negative", (long long)len);
    if (len > 0) SHIMRT_CHECK_ARG(val);
    for (int64_t k = 0; k < len; k++)
        if (!val[k]) return shimrt_fail(__func__, "val[%lld] is NULL", (long long)k);
    struct C10IValueOpaque *v = NULL;
    if (iv_new(__func__, IV_STRLIST, ivalue, &v)) return AOTI_TORCH_FAILURE;
    v->list = calloc(len ? (size_t)len : 1, sizeof *v->list);
    if (!v->list) {
        shimrt_pool_free(&iv_pool, v);
        return shimrt_fail(__func__, "out of memory");
    }
    for (int64_t k = 0; k < len; k++) {
        if (!(v->list[k] = strdup(val[k]))) {
            v->len = k;
            aoti_torch_delete_c10_value_object(v);
            return shimrt_fail(__func__, "out of memory");
        }
    }
    v->len = len;
    *ivalue = v;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_tensor_to_ivalue(AtenTensorHandle val,
                                                             C10IValueHandle *ivalue) {
    SHIMRT_CHECK_TENSOR(val);
    AtenTensorHandle copy;
    if (aoti_torch_new_tensor_handle(val, &copy)) return AOTI_TORCH_FAILURE;
    struct C10IValueOpaque *v = NULL;
    if (iv_new(__func__, IV_TENSOR, ivalue, &v)) {
        shimrt_tensor_free(copy);
        return AOTI_TORCH_FAILURE;
    }
    v->t = copy;
    *ivalue = v;
    return AOTI_TORCH_SUCCESS;
}

/* ---- record function ---- */
struct AtenRecordFunctionOpaque {
    uint64_t magic;
};
#define RECORD_MAGIC UINT64_C(0x5348525245434644)
static shimrt_pool record_pool = SHIMRT_POOL_INIT(struct AtenRecordFunctionOpaque);

AOTI_TORCH_EXPORT AOTITorchError aoti_record_function_start(const char *name,
                                                            IValueMapHandle kwargs,
                                                            const C10IValueHandle *inputs,
                                                            const uint64_t n_inputs,
                                                            AtenRecordFunctionHandle *guard) {
    (void)name;
    (void)kwargs;
    (void)inputs;
    (void)n_inputs;
    SHIMRT_CHECK_ARG(guard);
    struct AtenRecordFunctionOpaque *g = shimrt_pool_new(__func__, &record_pool, RECORD_MAGIC);
    if (!g) return AOTI_TORCH_FAILURE;
    *guard = g;
    return AOTI_TORCH_SUCCESS;
}

AOTI_TORCH_EXPORT AOTITorchError aoti_record_function_end(AtenRecordFunctionHandle guard) {
    if (!guard) return AOTI_TORCH_SUCCESS;
    if (retire(__func__, &record_pool, guard, RECORD_MAGIC, "guard", "record-function guard"))
        return AOTI_TORCH_FAILURE;
    shimrt_pool_free(&record_pool, guard);
    return AOTI_TORCH_SUCCESS;
}

/* ---- fail by design ---- */
#define NEEDS(what) shimrt_fail(__func__, "not available in libshimrt: " what " (docs/dropin.md)")

AOTI_TORCH_EXPORT AOTITorchError aoti_torch_proxy_executor_call_function(
    AOTIProxyExecutorHandle proxy_executor, int extern_node_index, int num_ints,
    int64_t *flatten_int_args, int num_tensors, AtenTensorHandle *flatten_tensor_args) {
    (void)proxy_executor, (void)extern_node_index, (void)num_ints, (void)flatten_int_args;
    (void)num_tensors, (void)flatten_tensor_args;
    return NEEDS("it calls AOTInductor's C++ proxy executor, a libtorch object");
}
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_wrapped_fbgemm_pack_gemm_matrix_fp16(
    AtenTensorHandle weight, AtenTensorHandle *out) {
    (void)weight, (void)out;
    return NEEDS("it returns an FBGEMM packed-matrix object (libtorch's CPU backend)");
}
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu__wrapped_linear_prepack(
    AtenTensorHandle weight, AtenTensorHandle weight_scale, AtenTensorHandle weight_zero_point,
    AtenTensorHandle bias, AtenTensorHandle *out) {
    (void)weight, (void)weight_scale, (void)weight_zero_point, (void)bias, (void)out;
    return NEEDS("it returns an FBGEMM quantized packed-weight object (libtorch's CPU backend)");
}
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_wrapped_fbgemm_linear_fp16_weight(
    AtenTensorHandle input, AtenTensorHandle weight, AtenTensorHandle bias, int64_t out_channel,
    AtenTensorHandle *out) {
    (void)input, (void)weight, (void)bias, (void)out_channel, (void)out;
    return NEEDS("its weight is an FBGEMM packed-matrix object (libtorch's CPU backend)");
}
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu__wrapped_quantized_linear_prepacked(
    AtenTensorHandle input, AtenTensorHandle input_scale, AtenTensorHandle input_zero_point,
    AtenTensorHandle weight, AtenTensorHandle out_scale, AtenTensorHandle out_zeropoint,
    int64_t out_channel, AtenTensorHandle *out) {
    (void)input, (void)input_scale, (void)input_zero_point, (void)weight, (void)out_scale;
    (void)out_zeropoint, (void)out_channel, (void)out;
    return NEEDS("its weight is an FBGEMM quantized packed-weight object (libtorch's CPU backend)");
}

#define NEEDS_PY NEEDS("Python objects need a Python interpreter, and libshimrt embeds none")
AOTI_TORCH_EXPORT AOTITorchError torch_tensor_from_pyobject(void *py_obj, AtenTensorHandle *ret) {
    (void)py_obj, (void)ret;
    return NEEDS_PY;
}
AOTI_TORCH_EXPORT AOTITorchError torch_tensor_to_pyobject(AtenTensorHandle ath, void *py_type,
                                                          void **ret) {
    (void)ath, (void)py_type, (void)ret;
    return NEEDS_PY;
}
AOTI_TORCH_EXPORT AOTITorchError torch_is_tensor_pyobject(void *py_obj, bool *ret) {
    (void)py_obj, (void)ret;
    return NEEDS_PY;
}
AOTI_TORCH_EXPORT AOTITorchError torch_device_from_pyobject(void *py_obj, int32_t *ret_device_type,
                                                            int32_t *ret_device_index) {
    (void)py_obj, (void)ret_device_type, (void)ret_device_index;
    return NEEDS_PY;
}
AOTI_TORCH_EXPORT AOTITorchError torch_device_to_pyobject(int32_t device_type, int32_t device_index,
                                                          void **ret) {
    (void)device_type, (void)device_index, (void)ret;
    return NEEDS_PY;
}
AOTI_TORCH_EXPORT AOTITorchError torch_dtype_from_pyobject(void *py_obj, int32_t *ret_dtype) {
    (void)py_obj, (void)ret_dtype;
    return NEEDS_PY;
}
AOTI_TORCH_EXPORT AOTITorchError torch_dtype_to_pyobject(int32_t dtype, void **ret) {
    (void)dtype, (void)ret;
    return NEEDS_PY;
}

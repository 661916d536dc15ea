/* runtime/cuda/ops.c: running the catalogue's kernels on CUDA tensors: element-wise rows
 * of ops.def (unary, binary with broadcasting and PyTorch's type promotion, a Scalar
 * operand), reductions over dims, copies between any devices and dtypes, fills.
 * Operands whose dtype differs from the compute dtype are first converted on the device by
 * the copy kernel. Images come from the JIT (shimrt_jit_get) for the device's
 * architecture; modules are loaded once per (kernel, device) (launch.c). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../generic/meta.h"
#include "cuda_internal.h"
#include "catalogue.h"

#define BLOCK 256u
/* Launches k over p on device dev's current stream; blocks: one per output for
 * reductions (argmax, softmax lines), else enough for the elements (grid-stride loops cover the rest). */
static AOTITorchError launch_block(const char *op, const shimrt_cuda_kdesc *k, int32_t dev,
                                   sh_params *p, unsigned block) {
    if (p->n == 0) return AOTI_TORCH_SUCCESS;
    CUfunction fn = NULL;
    int sms = 1;
    shimrt_cuda_ctx_guard g; /* dev's context for the load and the launch, then the caller's */
    if (shimrt_cuda_enter(op, dev, &g, NULL)) return AOTI_TORCH_FAILURE;
    if (shimrt_cuda_function(op, k, dev, &fn) || shimrt_cuda_device_info(op, dev, NULL, &sms)) {
        shimrt_cuda_leave(&g);
        return AOTI_TORCH_FAILURE;
    }
    bool per_out = k->kind == SHK_REDUCE || k->kind == SHK_ARGMAX || k->kind == SHK_SOFTMAX ||
                   k->kind == SHK_LAYERNORM || (k->kind == SHK_SORT && !strcmp(k->op, "sort_keys"));
    long long want = per_out ? p->n : (p->n + block - 1) / block;
    long long cap = per_out ? 65535 : (long long)sms * 16;
    unsigned grid = (unsigned)(want < cap ? want : cap);
    void *args[] = {p};
    const shimrt_cuda_api *cu = shimrt_cuda_driver(op);
    CUresult r = cu->cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, shimrt_cuda_current_stream(dev),
                                    args, NULL);
    shimrt_cuda_leave(&g);
    return r ? shimrt_cu_fail(op, "cuLaunchKernel", r) : AOTI_TORCH_SUCCESS;
}

static AOTITorchError launch(const char *op, const shimrt_cuda_kdesc *k, int32_t dev,
                             sh_params *p) {
    return launch_block(op, k, dev, p, BLOCK);
}

static AOTITorchError check_cuda(const char *op, const struct AtenTensorOpaque *t, const char *arg,
                                 int32_t dev) {
    if (shimrt_k_check_defined(op, t, arg)) return AOTI_TORCH_FAILURE;
    if (t->device_type != SHIMRT_DEV_CUDA)
        return shimrt_fail(op, "Expected all tensors to be on the same device, but '%s' is on %s",
                           arg, shimrt_device_type_name(t->device_type));
    if (dev >= 0 && t->device_index != dev)
        return shimrt_fail(op,
                           "Expected all tensors to be on the same device, but found at "
                           "least two devices, cuda:%d and cuda:%d",
                           (int)dev, (int)t->device_index);
    if (!shimrt_k_dtype_ok(t->dtype))
        return shimrt_fail(op, "'%s' has dtype %s, which CUDA kernels do not compute on", arg,
                           shimrt_dtype_name(t->dtype));
    if (t->ndim > SH_MAXD)
        return shimrt_fail(op, "'%s' has %lld dims; CUDA kernels take at most %d", arg,
                           (long long)t->ndim, SH_MAXD);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cuda_check_tensor(const char *op, const struct AtenTensorOpaque *t,
                                        const char *arg, int32_t dev) {
    return check_cuda(op, t, arg, dev);
}

static bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

/* Fills p's shape and the strides of operand slot (0 out, 1 in0, 2 in1) for t broadcast
 * to shape. */
static void set_operand(sh_params *p, int slot, const struct AtenTensorOpaque *t, int64_t nd) {
    int64_t off = nd - t->ndim;
    for (int64_t d = 0; d < nd; d++)
        p->st[slot][d] = d < off || t->sizes[d - off] == 1 ? 0 : t->strides[d - off];
}

/* dst (CUDA) = src (CUDA, same device) converted to dst's dtype, src broadcast. */
static AOTITorchError device_copy(const char *op, struct AtenTensorOpaque *dst,
                                  const struct AtenTensorOpaque *src) {
    int64_t n = shimrt_numel(dst);
    if (n == 0) return AOTI_TORCH_SUCCESS;
    bool contig = shimrt_is_contiguous(dst) && shimrt_is_contiguous(src) && shimrt_numel(src) == n;
    if (contig && dst->dtype == src->dtype) /* PyTorch's cudaMemcpyAsync on the stream */
        return shimrt_cuda_copy_on(op, dst->device_index, shimrt_data(dst), shimrt_data(src),
                                   (uint64_t)n * shimrt_dtype_size(dst->dtype), false);
    shimrt_cuda_kdesc k;
    if (!shimrt_cuda_kernel_for(SHK_COPY, "copy", dst->dtype, contig ? SHL_CONTIG : SHL_STRIDED,
                                &k))
        return shimrt_fail(op, "no CUDA copy kernel to %s", shimrt_dtype_name(dst->dtype));
    sh_params p;
    memset(&p, 0, sizeof p);
    p.out = shimrt_data(dst);
    p.in0 = shimrt_data(src);
    p.n = n;
    p.src_dtype = src->dtype;
    p.ndim = (int)dst->ndim;
    for (int64_t d = 0; d < dst->ndim; d++) p.sizes[d] = dst->sizes[d];
    set_operand(&p, 0, dst, dst->ndim);
    set_operand(&p, 1, src, dst->ndim);
    if (!contig) shimrt_cuda_index32(&p); /* 32-bit offsets when they fit */
    return launch(op, &k, dst->device_index, &p);
}

/* A new contiguous CUDA tensor holding t converted to dtype (a new reference). */
static AtenTensorHandle converted(const char *op, const struct AtenTensorOpaque *t, int32_t dtype) {
    AtenTensorHandle c =
        shimrt_tensor_empty(op, t->ndim, t->sizes, NULL, dtype, SHIMRT_DEV_CUDA, t->device_index);
    if (c && device_copy(op, c, t)) {
        shimrt_tensor_free(c);
        return NULL;
    }
    return c;
}

/* out = row(inputs) for an element-wise row of ops.def (docs/cuda.md): c->in holds the
 * tensors (a ternary row's bool condition first), broadcast together; c->compute is the
 * compute dtype, or -1 for PyTorch's result type of the tensors (and the Scalar operand). */
AOTITorchError shimrt_cuda_pointwise(const shimrt_cuda_pw *c, AtenTensorHandle *ret) {
    const char *op = c->op ? c->op : c->row;
    SHIMRT_CHECK_ARG(ret);
    static const char *const names[2][3] = {{"self", "other", "?"}, {"condition", "self", "other"}};
    bool ter = c->kind == SHK_TERNARY;
    int nin = c->kind == SHK_UNARY ? 1 : c->kind == SHK_BINARY ? (c->scalar ? 1 : 2) : 3;
    if (check_cuda(op, c->in[0], names[ter][0], -1)) return AOTI_TORCH_FAILURE;
    int32_t dev = c->in[0]->device_index;
    for (int i = 1; i < nin; i++)
        if (check_cuda(op, c->in[i], names[ter][i], dev)) return AOTI_TORCH_FAILURE;
    if (ter && c->in[0]->dtype != SHIMRT_BOOL)
        return shimrt_fail(op,
                           "where expected condition to be a boolean tensor, but got a "
                           "tensor with dtype %s",
                           shimrt_dtype_name(c->in[0]->dtype));
    int32_t ct = c->compute;
    if (ct < 0) {
        int skip = ter ? 1 : 0;
        ct = shimrt_k_result_type_of(nin - skip, c->in + skip, c->scalar ? 1 : 0, &c->bscalar);
    }
    int64_t shape[SHIMRT_MAX_DIMS], nd = c->in[0]->ndim;
    memcpy(shape, c->in[0]->sizes, sizeof(int64_t) * (size_t)nd);
    for (int i = 1; i < nin; i++) {
        int64_t s2[SHIMRT_MAX_DIMS], n2;
        if (shimrt_k_broadcast(op, nd, shape, c->in[i]->ndim, c->in[i]->sizes, s2, &n2))
            return AOTI_TORCH_FAILURE;
        memcpy(shape, s2, sizeof(int64_t) * (size_t)n2);
        nd = n2;
    }
    AtenTensorHandle t[3] = {0}, conv[3] = {0}, out = NULL;
    AOTITorchError rc = AOTI_TORCH_FAILURE;
    bool contig = true;
    for (int i = 0; i < nin; i++) {
        t[i] = (AtenTensorHandle)c->in[i];
        int32_t want = ter && i == 0 ? SHIMRT_BOOL : ct;
        if (t[i]->dtype != want && !(t[i] = conv[i] = converted(op, c->in[i], want))) goto done;
        contig = contig && shimrt_is_contiguous(t[i]) && t[i]->ndim == nd;
        for (int64_t d = 0; contig && d < nd; d++) contig = t[i]->sizes[d] == shape[d];
    }
    shimrt_cuda_kdesc k;
    if (!shimrt_cuda_kernel_for(c->kind, c->row, ct, contig ? SHL_CONTIG : SHL_STRIDED, &k)) {
        shimrt_fail(op, "\"%s\" is not implemented for '%s' on CUDA", c->row,
                    shimrt_dtype_name(ct));
        goto done;
    }
    out = shimrt_tensor_empty(op, nd, shape, NULL, k.out_dtype, SHIMRT_DEV_CUDA, dev);
    if (!out) goto done;
    sh_params p;
    memset(&p, 0, sizeof p);
    p.out = shimrt_data(out);
    const char **ins[3] = {&p.in0, &p.in1, &p.in2};
    for (int i = 0; i < nin; i++) *ins[i] = shimrt_data(t[i]);
    p.b_scalar = c->kind == SHK_BINARY && c->scalar;
    p.bval = c->bval;
    p.alpha = c->alpha;
    p.p0 = c->p0;
    p.p1 = c->p1;
    p.n = shimrt_numel(out);
    p.ndim = (int)nd;
    for (int64_t d = 0; d < nd; d++) p.sizes[d] = shape[d];
    set_operand(&p, 0, out, nd);
    for (int i = 0; i < nin; i++) set_operand(&p, i + 1, t[i], nd);
    p.vec_ok = contig && aligned16(p.out);
    for (int i = 0; i < nin; i++) p.vec_ok = p.vec_ok && aligned16(*ins[i]);
    if (!contig) shimrt_cuda_index32(&p); /* 32-bit offsets when they fit */
    if (launch(op, &k, dev, &p)) goto done;
    *ret = out;
    out = NULL;
    rc = AOTI_TORCH_SUCCESS;
done:
    shimrt_tensor_free(out);
    for (int i = 0; i < 3; i++) shimrt_tensor_free(conv[i]);
    return rc;
}

AOTITorchError shimrt_cuda_unary(const char *row, AtenTensorHandle self, AtenTensorHandle *ret) {
    shimrt_cuda_pw c = {.row = row, .kind = SHK_UNARY, .in = {self}, .alpha = 1, .compute = -1};
    return shimrt_cuda_pointwise(&c, ret);
}

AOTITorchError shimrt_cuda_binary(const char *row, AtenTensorHandle self, AtenTensorHandle other,
                                  double alpha, AtenTensorHandle *ret) {
    if (!strcmp(row, "sub")) {
        if (shimrt_tensor_valid(self) && shimrt_tensor_valid(other) &&
            (self->dtype == SHIMRT_BOOL || other->dtype == SHIMRT_BOOL))
            return shimrt_fail(row, "Subtraction, the `-` operator, with a bool tensor is not "
                                    "supported. If you are trying to invert a mask, use the `~` "
                                    "or `logical_not()` operator instead.");
    }
    if (!other) return shimrt_fail(row, "argument 'other' is NULL");
    shimrt_cuda_pw c = {
        .row = row, .kind = SHK_BINARY, .in = {self, other}, .alpha = alpha, .compute = -1};
    return shimrt_cuda_pointwise(&c, ret);
}

AOTITorchError shimrt_cuda_binary_scalar(const char *row, AtenTensorHandle self,
                                         shimrt_scalar other, double alpha, AtenTensorHandle *ret) {
    shimrt_cuda_pw c = {.row = row,
                        .kind = SHK_BINARY,
                        .in = {self},
                        .scalar = true,
                        .bscalar = other,
                        .bval = other.d,
                        .alpha = alpha,
                        .compute = -1};
    return shimrt_cuda_pointwise(&c, ret);
}

/* Marks in red the dims of self that dims[0..ndims) name (none: every dim), wrapped, with
 * PyTorch's messages for a dim out of range or named twice. */
static AOTITorchError reduced_dims(const char *op, const struct AtenTensorOpaque *self,
                                   const int64_t *dims, int64_t ndims, bool *red) {
    for (int64_t d = 0; d < SH_MAXD; d++) red[d] = ndims == 0 && d < self->ndim;
    for (int64_t i = 0; i < ndims; i++) {
        int64_t w;
        if (shimrt_k_wrap_dim(op, dims[i], self->ndim, &w)) return AOTI_TORCH_FAILURE;
        if (!self->ndim) continue;
        if (red[w])
            return shimrt_fail(op, "dim %lld appears multiple times in the list of dims",
                               (long long)w);
        red[w] = true;
    }
    return AOTI_TORCH_SUCCESS;
}

/* The launch layout of a reduction of self over the dims marked in red: kept dims (sizes,
 * the output's contiguous strides st[0], self's strides st[1]), reduced dims (rsizes, rst,
 * rn, in self's order, so the flat reduced index is row-major) and the output's shape
 * (*ond dims: kept dims, and size-1 dims for reduced ones when keepdim). Returns whether
 * the reduced dims are the trailing dims of a contiguous self (the contig kernels). */
static bool plan_reduce(const struct AtenTensorOpaque *self, const bool *red, bool keepdim,
                        sh_params *p, int64_t *oshape, int64_t *ond) {
    bool inner = shimrt_is_contiguous(self);
    for (int64_t d = 0, seen = 0; d < self->ndim; d++) { /* reduced dims must be trailing */
        if (red[d])
            seen = 1;
        else if (seen)
            inner = false;
    }
    memset(p, 0, sizeof *p);
    p->rn = 1;
    *ond = 0;
    for (int64_t d = 0; d < self->ndim; d++) {
        if (red[d]) {
            p->rsizes[p->rndim] = self->sizes[d];
            p->rst[p->rndim++] = self->strides[d];
            p->rn *= self->sizes[d];
            if (keepdim) oshape[(*ond)++] = 1;
        } else {
            oshape[(*ond)++] = self->sizes[d];
        }
    }
    int64_t ostride = 1;
    for (int64_t d = self->ndim - 1; d >= 0; d--) /* kept dims, outermost first */
        if (!red[d]) ostride *= self->sizes[d];
    for (int64_t d = 0, kd = 0; d < self->ndim; d++) {
        if (red[d]) continue;
        ostride /= self->sizes[d] ? self->sizes[d] : 1;
        p->sizes[kd] = self->sizes[d];
        p->st[0][kd] = ostride;
        p->st[1][kd] = self->strides[d];
        kd++;
        p->ndim = (int)kd;
    }
    p->in0 = shimrt_data(self);
    return inner;
}

/* Runs a reduction or argmax kernel over p (p->n outputs of p->rn reduced elements;
 * docs/cuda.md, "Reductions"). Few outputs over a long extent are split: pass 1 gives each
 * block a fixed chunk of one output and writes its partial to a scratch buffer in unit
 * order, pass 2 merges each output's partials in that order; the chunking depends only on
 * the sizes and the device's SM count, never on timing, so results are deterministic. */
#define RED_MIN_CHUNK 4096 /* reduced elements per block at least (16 per thread) */
static AOTITorchError reduce_launch(const char *op, const shimrt_cuda_kdesc *k, int32_t dev,
                                    sh_params *p) {
    int sms = 0;
    if (p->n == 0) return AOTI_TORCH_SUCCESS;
    if (shimrt_cuda_device_info(op, dev, NULL, &sms)) return AOTI_TORCH_FAILURE;
    p->vec_ok = ((uintptr_t)p->in0 % shimrt_dtype_size(k->in_dtype)) == 0;
    p->rpass = 0;
    p->rsplit = 1;
    shimrt_cuda_index32(p);
    /* 4 blocks of 256 threads per SM: one wave (the kernels fit 6 and more), 64 KiB of
     * loads in flight per SM, no tail wave */
    long long want = (long long)sms * 4, n = p->n, ns = (want + n - 1) / n;
    long long most = (p->rn + RED_MIN_CHUNK - 1) / RED_MIN_CHUNK;
    if (ns > most) ns = most;
    if (n >= want || ns < 2) return launch(op, k, dev, p);
    long long chunk = (p->rn + ns - 1) / ns;
    chunk = (chunk + RED_MIN_CHUNK - 1) / RED_MIN_CHUNK * RED_MIN_CHUNK;
    ns = (p->rn + chunk - 1) / chunk;
    /* 16 bytes a partial: the value (8 at most), argmax's index after all values */
    int64_t cells = n * ns * 2;
    AtenTensorHandle scratch =
        shimrt_tensor_empty(op, 1, &cells, NULL, SHIMRT_INT64, SHIMRT_DEV_CUDA, dev);
    if (!scratch) return AOTI_TORCH_FAILURE;
    const char *in2 = p->in2;
    p->in2 = shimrt_data(scratch);
    p->rchunk = chunk;
    p->rsplit = (int)ns;
    p->rpass = 1;
    p->n = n * ns;
    AOTITorchError rc = launch(op, k, dev, p);
    p->rpass = 2;
    p->n = n;
    if (!rc) rc = launch(op, k, dev, p);
    p->in2 = in2;
    shimrt_tensor_free(scratch); /* stream-ordered: reused only by later work on the stream */
    return rc;
}

/* Reduction of row over dims (NULL/0 dims: all) into a new tensor; mean divides the
 * result by the number of reduced elements (a floating row: sum). */
static AOTITorchError reduce(const char *op, const char *row, AtenTensorHandle self,
                             const int64_t *dims, int64_t ndims, bool keepdim, bool mean,
                             AtenTensorHandle *ret) {
    SHIMRT_CHECK_ARG(ret);
    if (check_cuda(op, self, "self", -1)) return AOTI_TORCH_FAILURE;
    bool red[SH_MAXD];
    if (reduced_dims(op, self, dims, ndims, red)) return AOTI_TORCH_FAILURE;
    sh_params p;
    int64_t oshape[SHIMRT_MAX_DIMS], ond = 0;
    bool inner = plan_reduce(self, red, keepdim, &p, oshape, &ond);
    shimrt_cuda_kdesc k;
    if (!shimrt_cuda_kernel_for(SHK_REDUCE, row, self->dtype, inner ? SHL_CONTIG : SHL_STRIDED, &k))
        return shimrt_fail(op, "\"%s\" is not implemented for '%s' on CUDA", row,
                           shimrt_dtype_name(self->dtype));
    if (p.rn == 0 && strcmp(row, "sum"))
        return shimrt_fail(op, "Expected reduction dim to be specified for input.numel() == 0.");
    AtenTensorHandle out = shimrt_tensor_empty(op, ond, oshape, NULL, k.out_dtype, SHIMRT_DEV_CUDA,
                                               self->device_index);
    if (!out) return AOTI_TORCH_FAILURE;
    p.out = shimrt_data(out);
    p.b_scalar = mean;
    p.bval = (double)p.rn; /* 0: 0 / 0 gives NaN, as PyTorch's mean of nothing */
    p.n = shimrt_numel(out);
    return shimrt_k_hand_out(reduce_launch(op, &k, self->device_index, &p), out, ret);
}

AOTITorchError shimrt_cuda_reduce(const char *row, AtenTensorHandle self, const int64_t *dims,
                                  int64_t ndims, bool keepdim, AtenTensorHandle *ret) {
    return reduce(row, row, self, dims, ndims, keepdim, false, ret);
}

AOTITorchError shimrt_cuda_mean(const char *op, AtenTensorHandle self, const int64_t *dims,
                                int64_t ndims, bool keepdim, AtenTensorHandle *ret) {
    if (shimrt_tensor_valid(self) && !shimrt_k_is_floating(self->dtype))
        return shimrt_fail(op, "mean of a %s tensor: a floating dtype is needed",
                           shimrt_dtype_name(self->dtype));
    return reduce(op, "sum", self, dims, ndims, keepdim, true, ret);
}

AOTITorchError shimrt_cuda_argmax_run(const char *op, AtenTensorHandle self, const int64_t *dim,
                                      bool keepdim, AtenTensorHandle *ret_v,
                                      AtenTensorHandle *ret_i) {
    SHIMRT_CHECK_ARG(ret_i);
    if (check_cuda(op, self, "self", -1)) return AOTI_TORCH_FAILURE;
    bool red[SH_MAXD];
    if (reduced_dims(op, self, dim, dim ? 1 : 0, red)) return AOTI_TORCH_FAILURE;
    sh_params p;
    int64_t oshape[SHIMRT_MAX_DIMS], ond = 0;
    bool inner = plan_reduce(self, red, keepdim, &p, oshape, &ond);
    shimrt_cuda_kdesc k;
    if (!shimrt_cuda_kernel_for(SHK_ARGMAX, "argmax", self->dtype, inner ? SHL_CONTIG : SHL_STRIDED,
                                &k))
        return shimrt_fail(op, "argmax is not implemented for '%s' on CUDA",
                           shimrt_dtype_name(self->dtype));
    if (p.rn == 0)
        return shimrt_fail(op, "Expected reduction dim to be specified for input.numel() == 0.");
    int32_t dev = self->device_index;
    AtenTensorHandle v = NULL, ix = NULL;
    if (ret_v &&
        !(v = shimrt_tensor_empty(op, ond, oshape, NULL, self->dtype, SHIMRT_DEV_CUDA, dev)))
        return AOTI_TORCH_FAILURE;
    ix = shimrt_tensor_empty(op, ond, oshape, NULL, SHIMRT_INT64, SHIMRT_DEV_CUDA, dev);
    AOTITorchError rc = AOTI_TORCH_FAILURE;
    if (ix) {
        p.out = shimrt_data(ix);
        p.in1 = v ? shimrt_data(v) : NULL;
        p.n = shimrt_numel(ix);
        rc = reduce_launch(op, &k, dev, &p);
    }
    if (rc) {
        shimrt_tensor_free(v);
        shimrt_tensor_free(ix);
        return AOTI_TORCH_FAILURE;
    }
    if (ret_v) *ret_v = v;
    *ret_i = ix;
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cuda_softmax_run(const char *op, bool logsm, AtenTensorHandle self,
                                       int64_t dim, int32_t odt, AtenTensorHandle *ret) {
    SHIMRT_CHECK_ARG(ret);
    if (check_cuda(op, self, "self", -1)) return AOTI_TORCH_FAILURE;
    int64_t d;
    if (shimrt_k_wrap_dim(op, dim, self->ndim, &d)) return AOTI_TORCH_FAILURE;
    shimrt_cuda_kdesc k;
    if (!shimrt_cuda_kernel_for(SHK_SOFTMAX, logsm ? "log_softmax" : "softmax", odt, SHL_STRIDED,
                                &k))
        return shimrt_fail(op, "softmax is not implemented for '%s' on CUDA",
                           shimrt_dtype_name(odt));
    /* the input converted to the result dtype first (PyTorch's dtype argument) */
    AtenTensorHandle in = self, conv = NULL;
    if (self->dtype != odt && !(in = conv = converted(op, self, odt))) return AOTI_TORCH_FAILURE;
    AtenTensorHandle out = shimrt_tensor_empty(op, self->ndim, self->sizes, NULL, odt,
                                               SHIMRT_DEV_CUDA, self->device_index);
    AOTITorchError rc = AOTI_TORCH_FAILURE;
    if (out) {
        sh_params p;
        memset(&p, 0, sizeof p);
        p.out = shimrt_data(out);
        p.in0 = shimrt_data(in);
        p.n = 1;
        p.rsizes[0] = 1;
        p.rndim = 1;
        for (int64_t j = 0; j < self->ndim; j++) {
            if (j == d) {
                p.rsizes[0] = self->sizes[j];
                p.rst[0] = in->strides[j];
                p.rst[1] = out->strides[j];
                continue;
            }
            p.sizes[p.ndim] = self->sizes[j];
            p.st[0][p.ndim] = out->strides[j];
            p.st[1][p.ndim++] = in->strides[j];
            p.n *= self->sizes[j];
        }
        p.rn = p.rsizes[0];
        if (p.rn == 0) p.n = 0; /* an empty line: nothing to write */
        rc = launch(op, &k, self->device_index, &p);
    }
    shimrt_tensor_free(conv);
    return shimrt_k_hand_out(rc, out, ret);
}

/* self.fill_(value) for a CUDA tensor. */
AOTITorchError shimrt_cuda_do_fill(AtenTensorHandle self, double value) {
    static const char op[] = "fill_";
    if (check_cuda(op, self, "self", -1)) return AOTI_TORCH_FAILURE;
    shimrt_cuda_kdesc k;
    if (!shimrt_cuda_kernel_for(SHK_FILL, "fill", self->dtype, SHL_STRIDED, &k))
        return shimrt_fail(op, "no CUDA fill kernel for %s", shimrt_dtype_name(self->dtype));
    sh_params p;
    memset(&p, 0, sizeof p);
    p.out = shimrt_data(self);
    p.alpha = value;
    p.n = shimrt_numel(self);
    p.ndim = (int)self->ndim;
    for (int64_t d = 0; d < self->ndim; d++) p.sizes[d] = self->sizes[d];
    set_operand(&p, 0, self, self->ndim);
    return launch(op, &k, self->device_index, &p);
}

/* Copies dense src's bytes into dense dst (same shape and dtype, one of them on CUDA device
 * device_index), synchronously on that device's current stream: the tensor's device, not
 * the thread's current one, so the copy is ordered after the kernels that wrote it. */
static AOTITorchError transfer(const char *op, AtenTensorHandle dst, AtenTensorHandle src,
                               int32_t device_index) {
    return shimrt_cuda_copy_on(op, device_index, shimrt_data(dst), shimrt_data(src),
                               (uint64_t)shimrt_numel(src) * shimrt_dtype_size(src->dtype), true);
}

AOTITorchError shimrt_cuda_do_copy(AtenTensorHandle self, AtenTensorHandle src) {
    static const char op[] = "copy_";
    if (shimrt_k_check_defined(op, self, "self") || shimrt_k_check_defined(op, src, "src"))
        return AOTI_TORCH_FAILURE;
    if (self->device_type == SHIMRT_DEV_CUDA && src->device_type == SHIMRT_DEV_CUDA &&
        self->device_index == src->device_index) {
        if (check_cuda(op, self, "self", -1) || check_cuda(op, src, "src", self->device_index))
            return AOTI_TORCH_FAILURE;
        return device_copy(op, self, src);
    }
    /* across devices: stage through contiguous buffers of self's dtype */
    if (self->device_type == SHIMRT_DEV_CUDA && src->device_type == SHIMRT_DEV_CPU) {
        if (check_cuda(op, self, "self", -1)) return AOTI_TORCH_FAILURE;
        AtenTensorHandle h =
            shimrt_tensor_empty(op, self->ndim, self->sizes, NULL, self->dtype, SHIMRT_DEV_CPU, 0);
        AtenTensorHandle d = h ? shimrt_tensor_empty(op, self->ndim, self->sizes, NULL, self->dtype,
                                                     SHIMRT_DEV_CUDA, self->device_index)
                               : NULL;
        AOTITorchError rc = !d || shimrt_copy(op, h, src) ||
                            transfer(op, d, h, self->device_index) || device_copy(op, self, d);
        shimrt_tensor_free(h);
        shimrt_tensor_free(d);
        return rc;
    }
    if (self->device_type == SHIMRT_DEV_CPU && src->device_type == SHIMRT_DEV_CUDA) {
        if (check_cuda(op, src, "src", -1)) return AOTI_TORCH_FAILURE;
        AtenTensorHandle d = converted(op, src, src->dtype);
        AtenTensorHandle h =
            d ? shimrt_tensor_empty(op, src->ndim, src->sizes, NULL, src->dtype, SHIMRT_DEV_CPU, 0)
              : NULL;
        AOTITorchError rc = !h || transfer(op, h, d, src->device_index) || shimrt_copy(op, self, h);
        shimrt_tensor_free(h);
        shimrt_tensor_free(d);
        return rc;
    }
    if (self->device_type == SHIMRT_DEV_CUDA && src->device_type == SHIMRT_DEV_CUDA) {
        /* two GPUs: src converted on its device, then a peer copy (unified addressing) */
        AtenTensorHandle s = converted(op, src, self->dtype);
        AtenTensorHandle d = s ? shimrt_tensor_empty(op, self->ndim, self->sizes, NULL, self->dtype,
                                                     SHIMRT_DEV_CUDA, self->device_index)
                               : NULL;
        AOTITorchError rc = !d || shimrt_numel(s) != shimrt_numel(d)
                                ? (d ? shimrt_fail(op, "copy_ between GPUs needs equal shapes")
                                     : AOTI_TORCH_FAILURE)
                                : transfer(op, d, s, src->device_index) || device_copy(op, self, d);
        shimrt_tensor_free(s);
        shimrt_tensor_free(d);
        return rc;
    }
    return shimrt_fail(op, "copy_ between %s and %s is not a CUDA copy",
                       shimrt_device_type_name(self->device_type),
                       shimrt_device_type_name(src->device_type));
}

/* The dispatcher's backend fallback copies through here (internal.h). */
AtenTensorHandle shimrt_cuda_dense(const char *op, AtenTensorHandle t, int64_t nd,
                                   const int64_t *shape, int32_t dtype) {
    if (check_cuda(op, t, "self", -1)) return NULL;
    AtenTensorHandle c = shimrt_tensor_empty(op, shape ? nd : t->ndim, shape ? shape : t->sizes,
                                             NULL, dtype, SHIMRT_DEV_CUDA, t->device_index);
    if (c && device_copy(op, c, t)) {
        shimrt_tensor_free(c);
        return NULL;
    }
    return c;
}

/* Launches the index kernel for self's element size and index's dtype over p. */
static AOTITorchError index_launch(const char *op, const struct AtenTensorOpaque *self,
                                   const struct AtenTensorOpaque *index, sh_params *p) {
    char name[96];
    snprintf(name, sizeof name, "sh_index_e%zu_%s_strided", shimrt_dtype_size(self->dtype),
             shimrt_cuda_dtype_tag(index->dtype));
    shimrt_cuda_kdesc kd;
    if (!shimrt_cuda_kernel_find(name, &kd))
        return shimrt_fail(op, "no CUDA index kernel %s", name);
    shimrt_cuda_index32(p); /* 32-bit SH_OFFSETS when they fit (the index term stays 64-bit) */
    return launch(op, &kd, self->device_index, p);
}

/* into (gather.out, index_select.out): a CUDA tensor of self's dtype on self's device, with
 * the CPU kernels' messages otherwise (checked_out resizes it to the result's shape). */
static AOTITorchError check_into(const char *op, const struct AtenTensorOpaque *self,
                                 const struct AtenTensorOpaque *into, bool gather) {
    if (check_cuda(op, into, "out", self->device_index)) return AOTI_TORCH_FAILURE;
    if (into->dtype == self->dtype) return AOTI_TORCH_SUCCESS;
    if (!gather)
        return shimrt_fail(op, "index_select(): self and result must have the same scalar type");
    return shimrt_fail(op, "Expected out tensor to have dtype %s, but got %s instead",
                       shimrt_dtype_name(self->dtype), shimrt_dtype_name(into->dtype));
}

/* gather's and index_select's arguments: CUDA self and index on one device, and a return
 * pointer unless the result goes into `into`. */
static AOTITorchError index_args(const char *op, AtenTensorHandle self, AtenTensorHandle index,
                                 AtenTensorHandle into, AtenTensorHandle *ret) {
    if (!into && !ret) return shimrt_fail(op, "argument 'ret0' is NULL");
    if (check_cuda(op, self, "self", -1) || check_cuda(op, index, "index", self->device_index))
        return AOTI_TORCH_FAILURE;
    return AOTI_TORCH_SUCCESS;
}

/* The output: into (resized to shape), or a new CUDA tensor of shape[0..nd) with self's
 * dtype. NULL on failure. The index values are checked by the kernel itself (a value out of
 * range sets the device's error flag, reported by the next synchronizing call with
 * PyTorch's message), so the op neither copies the index to the host nor synchronizes. */
static AtenTensorHandle checked_out(const char *op, AtenTensorHandle self, AtenTensorHandle index,
                                    AtenTensorHandle into, int64_t nd, const int64_t *shape) {
    if (into)
        return shimrt_k_out_no_overlap(op, into, self, index) ||
                       shimrt_resize_output(op, into, nd, shape)
                   ? NULL
                   : into;
    return shimrt_tensor_empty(op, nd, shape, NULL, self->dtype, SHIMRT_DEV_CUDA,
                               self->device_index);
}

/* The index kernels' parameters common to gather and index_select: the three buffers, n
 * elements over ndim dims (strides and sizes are the caller's). */
static void index_params(sh_params *p, AtenTensorHandle out, AtenTensorHandle self,
                         AtenTensorHandle index, int64_t n, int64_t ndim) {
    memset(p, 0, sizeof *p);
    p->out = shimrt_data(out);
    p->in0 = shimrt_data(self);
    p->in1 = shimrt_data(index);
    p->n = n;
    p->ndim = (int)ndim;
}

AOTITorchError shimrt_cuda_gather_run(const char *op, AtenTensorHandle self, int64_t d,
                                      AtenTensorHandle index, AtenTensorHandle into,
                                      AtenTensorHandle *ret) {
    if (index_args(op, self, index, into, ret)) return AOTI_TORCH_FAILURE;
    if (into && check_into(op, self, into, true)) return AOTI_TORCH_FAILURE;
    int64_t n = shimrt_numel(index), limit = self->ndim ? self->sizes[d] : 1;
    long long *err = NULL;
    if (shimrt_cuda_error_flag(op, self->device_index, &err)) return AOTI_TORCH_FAILURE;
    AtenTensorHandle out = checked_out(op, self, index, into, index->ndim, index->sizes);
    if (!out) return AOTI_TORCH_FAILURE;
    sh_params p;
    index_params(&p, out, self, index, n, index->ndim);
    p.err = err;
    p.b_scalar = 1; /* gather's message: "index v is out of bounds for dimension d ..." */
    p.rsizes[1] = d;
    for (int64_t j = 0; j < index->ndim; j++) {
        p.sizes[j] = index->sizes[j];
        p.st[0][j] = out->strides[j];
        p.st[1][j] = j == d || !self->ndim ? 0 : self->strides[j];
        p.st[2][j] = index->strides[j];
    }
    p.rsizes[0] = limit;
    p.rst[0] = self->ndim ? self->strides[d] : 0;
    AOTITorchError rc2 = index_launch(op, self, index, &p);
    return into ? rc2 : shimrt_k_hand_out(rc2, out, ret);
}

AOTITorchError shimrt_cuda_index_select_run(const char *op, AtenTensorHandle self, int64_t d,
                                            AtenTensorHandle index, AtenTensorHandle into,
                                            AtenTensorHandle *ret) {
    if (index_args(op, self, index, into, ret)) return AOTI_TORCH_FAILURE;
    int64_t k = shimrt_numel(index), limit = self->ndim ? self->sizes[d] : 1;
    int64_t shape[SHIMRT_MAX_DIMS];
    for (int64_t j = 0; j < self->ndim; j++) shape[j] = j == d ? k : self->sizes[j];
    if (into && check_into(op, self, into, false)) return AOTI_TORCH_FAILURE;
    long long *err = NULL;
    if (shimrt_cuda_error_flag(op, self->device_index, &err)) return AOTI_TORCH_FAILURE;
    AtenTensorHandle out = checked_out(op, self, index, into, self->ndim, shape);
    if (!out) return AOTI_TORCH_FAILURE;
    sh_params p;
    index_params(&p, out, self, index, shimrt_numel(out), self->ndim);
    p.err = err;
    for (int64_t j = 0; j < self->ndim; j++) {
        p.sizes[j] = shape[j];
        p.st[0][j] = out->strides[j];
        p.st[1][j] = j == d ? 0 : self->strides[j];
        p.st[2][j] = j == d && index->ndim ? index->strides[0] : 0;
    }
    p.rsizes[0] = limit;
    p.rst[0] = self->ndim ? self->strides[d] : 0;
    AOTITorchError rc2 = index_launch(op, self, index, &p);
    return into ? rc2 : shimrt_k_hand_out(rc2, out, ret);
}

/* ---- scatter, scatter_reduce ---- */

/* scatter_reduce's reduce names (the CPU kernel's, runtime/cpu/index.c: "max"/"min" are
 * aliases) as a scatter kernel mode. */
static AOTITorchError scatter_mode(const char *op, const char *reduce, int *mode) {
    static const struct {
        const char *name;
        int mode;
    } names[] = {{"sum", SHS_SUM},  {"prod", SHS_PROD}, {"mean", SHS_MEAN}, {"amax", SHS_AMAX},
                 {"max", SHS_AMAX}, {"amin", SHS_AMIN}, {"min", SHS_AMIN}};
    if (!reduce) return shimrt_fail(op, "argument 'reduce' is NULL");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(reduce, names[i].name)) {
            *mode = names[i].mode;
            return AOTI_TORCH_SUCCESS;
        }
    return shimrt_fail(op, "reduce argument must be either sum, prod, mean, amax or amin, got %s",
                       reduce);
}

AOTITorchError shimrt_cuda_scatter_run(const char *op, AtenTensorHandle out, AtenTensorHandle self,
                                       int64_t dim, AtenTensorHandle index, AtenTensorHandle src,
                                       const char *reduce, bool include_self) {
    int mode = SHS_COPY;
    if (check_cuda(op, self, "self", -1) || check_cuda(op, out, "out", self->device_index) ||
        check_cuda(op, index, "index", self->device_index) ||
        check_cuda(op, src, "src", self->device_index) ||
        (reduce && scatter_mode(op, reduce, &mode)))
        return AOTI_TORCH_FAILURE;
    int64_t d;
    if (shimrt_k_wrap_dim(op, dim, self->ndim, &d)) return AOTI_TORCH_FAILURE;
    if (src->dtype != self->dtype)
        return shimrt_fail(op, "Expected self.dtype to be equal to src.dtype");
    if (shimrt_k_scatter_index_check(op, self, d, index, src, false)) return AOTI_TORCH_FAILURE;
    if (out->dtype != self->dtype)
        return shimrt_fail(op, "Expected out tensor to have dtype %s, but got %s instead",
                           shimrt_dtype_name(self->dtype), shimrt_dtype_name(out->dtype));
    /* out takes self's shape (resized as PyTorch resizes outs) and values; the index values
     * are checked by the kernel (a value out of bounds is skipped and sets the device's
     * error flag, reported by the next synchronizing call): no copy to the host, no sync */
    int64_t lim = self->ndim ? self->sizes[d] : 1, ni = shimrt_numel(index);
    long long *err = NULL;
    if (shimrt_cuda_error_flag(op, self->device_index, &err) ||
        shimrt_k_out_no_overlap(op, out, src, index) ||
        (out != self &&
         (shimrt_resize_output(op, out, self->ndim, self->sizes) || device_copy(op, out, self))))
        return AOTI_TORCH_FAILURE;
    /* as the CPU kernel (PyTorch): out holds self by now; the mean of bool has no kernel,
     * nor the floor division by the counts that follows for an empty index */
    if (mode == SHS_MEAN && out->dtype == SHIMRT_BOOL)
        return shimrt_fail(op, "\"%s\" not implemented for 'Bool'",
                           ni ? "scatter_gather_tensor_cuda_reduce_mean" : "div_floor_cuda");
    if (ni == 0) return AOTI_TORCH_SUCCESS;
    char name[96];
    snprintf(name, sizeof name, "sh_scatter_%s_strided", shimrt_cuda_dtype_tag(self->dtype));
    shimrt_cuda_kdesc k;
    if (!shimrt_cuda_kernel_find(name, &k)) return shimrt_fail(op, "no CUDA kernel %s", name);
    /* one thread per line of the index along d: the other dims walked, d's size set to 1 */
    sh_params p;
    memset(&p, 0, sizeof p);
    p.out = shimrt_data(out);
    p.in0 = shimrt_data(src);
    p.in1 = shimrt_data(index);
    p.ndim = (int)index->ndim;
    p.n = 1;
    for (int64_t j = 0; j < index->ndim; j++) {
        p.sizes[j] = j == d ? 1 : index->sizes[j];
        p.n *= p.sizes[j];
        p.st[0][j] = j == d || j >= out->ndim ? 0 : out->strides[j];
        p.st[1][j] = j == d || j >= src->ndim ? 0 : src->strides[j];
        p.st[2][j] = j == d ? 0 : index->strides[j];
    }
    p.rsizes[0] = index->ndim ? index->sizes[d] : 1;
    p.rsizes[1] = lim;
    p.rst[0] = out->ndim ? out->strides[d] : 0;
    p.rst[1] = src->ndim ? src->strides[d] : 0;
    p.rst[2] = index->ndim ? index->strides[d] : 0;
    p.b_scalar = mode;
    p.vec_ok = include_self;
    p.err = err;
    p.rsizes[2] = d;
    AtenTensorHandle scratch = NULL;
    if (mode != SHS_COPY) { /* accumulators, then counts: lim cells per line each */
        p.rn = p.n * lim;
        int64_t cells = 2 * p.rn;
        scratch = shimrt_tensor_empty(op, 1, &cells, NULL, SHIMRT_INT64, SHIMRT_DEV_CUDA,
                                      self->device_index);
        if (!scratch) return AOTI_TORCH_FAILURE;
        p.in2 = shimrt_data(scratch);
    }
    AOTITorchError rc = launch(op, &k, self->device_index, &p);
    shimrt_tensor_free(scratch); /* back to the cache, ordered on the same stream */
    return rc;
}

/* ---- native_layer_norm ---- */

AOTITorchError shimrt_cuda_layer_norm_run(const char *op, AtenTensorHandle input, int64_t nn,
                                          AtenTensorHandle weight, AtenTensorHandle bias,
                                          double eps, AtenTensorHandle *ret0,
                                          AtenTensorHandle *ret1, AtenTensorHandle *ret2) {
    SHIMRT_CHECK_ARG(ret0);
    SHIMRT_CHECK_ARG(ret1);
    SHIMRT_CHECK_ARG(ret2);
    int32_t dev = input->device_index, dt = input->dtype;
    if (check_cuda(op, input, "input", -1) || (weight && check_cuda(op, weight, "weight", dev)) ||
        (bias && check_cuda(op, bias, "bias", dev)))
        return AOTI_TORCH_FAILURE;
    shimrt_cuda_kdesc k;
    if (!shimrt_cuda_kernel_for(SHK_LAYERNORM, "layer_norm", dt, SHL_CONTIG, &k))
        return shimrt_fail(op, "\"LayerNormKernelImpl\" not implemented for '%s'",
                           shimrt_dtype_torch_name(dt));
    int64_t axis = input->ndim - nn, M = 1, N = 1;
    for (int64_t j = 0; j < axis; j++) M *= input->sizes[j];
    for (int64_t j = axis; j < input->ndim; j++) N *= input->sizes[j];
    /* mean and rstd: input's leading sizes, then a 1 per normalized dim; both views of one
     * buffer of 2 * M values (mean, then rstd) in the compute type: PyTorch's CUDA kernel
     * gives them its accumulate type (float for float16 and bfloat16) */
    int64_t stat[SHIMRT_MAX_DIMS], sst[SHIMRT_MAX_DIMS], two_m = 2 * M, acc = 1;
    for (int64_t j = input->ndim - 1; j >= 0; j--) {
        stat[j] = j < axis ? input->sizes[j] : 1;
        sst[j] = acc;
        acc *= stat[j] > 1 ? stat[j] : 1;
    }
    int32_t ct = dt == SHIMRT_FLOAT64 ? SHIMRT_FLOAT64 : SHIMRT_FLOAT32; /* the compute type */
    AtenTensorHandle x = input, xc = NULL, wb = NULL, out = NULL, stats = NULL, mean = NULL,
                     rstd = NULL;
    AOTITorchError rc = AOTI_TORCH_FAILURE;
    if (!shimrt_is_contiguous(input) && !(x = xc = converted(op, input, dt))) goto done;
    if (weight || bias) { /* weight then bias, N each, in the compute type */
        int64_t wsz[SHIMRT_MAX_DIMS + 1];
        wsz[0] = 2;
        for (int64_t j = 0; j < nn; j++) wsz[j + 1] = input->sizes[axis + j];
        if (!(wb = shimrt_tensor_empty(op, nn + 1, wsz, NULL, ct, SHIMRT_DEV_CUDA, dev))) goto done;
        AtenTensorHandle src[2] = {weight, bias};
        for (int h = 0; h < 2; h++) {
            AtenTensorHandle v = shimrt_k_alias(op, wb, nn, wsz + 1, wb->strides + 1, h * N);
            AOTITorchError r2 = !v       ? AOTI_TORCH_FAILURE
                                : src[h] ? device_copy(op, v, src[h])
                                         : shimrt_cuda_do_fill(v, h ? 0.0 : 1.0);
            shimrt_tensor_free(v);
            if (r2) goto done;
        }
    }
    out = shimrt_tensor_empty(op, input->ndim, input->sizes, NULL, dt, SHIMRT_DEV_CUDA, dev);
    stats = out ? shimrt_tensor_empty(op, 1, &two_m, NULL, ct, SHIMRT_DEV_CUDA, dev) : NULL;
    mean = stats ? shimrt_k_alias(op, stats, input->ndim, stat, sst, 0) : NULL;
    rstd = mean ? shimrt_k_alias(op, stats, input->ndim, stat, sst, M) : NULL;
    if (!rstd) goto done;
    sh_params p;
    memset(&p, 0, sizeof p);
    p.out = shimrt_data(out);
    p.in0 = shimrt_data(x);
    p.in1 = wb ? shimrt_data(wb) : NULL;
    p.in2 = shimrt_data(stats);
    p.n = M;
    p.rn = N;
    p.alpha = eps;
    if (launch(op, &k, dev, &p)) goto done;
    *ret0 = out, *ret1 = mean, *ret2 = rstd;
    out = mean = rstd = NULL;
    rc = AOTI_TORCH_SUCCESS;
done:
    shimrt_tensor_free(xc), shimrt_tensor_free(wb), shimrt_tensor_free(stats);
    shimrt_tensor_free(out), shimrt_tensor_free(mean), shimrt_tensor_free(rstd);
    return rc;
}

/* ---- sort, sort.stable ---- */

AOTITorchError shimrt_cuda_sort_run(const char *op, AtenTensorHandle self, int64_t d, bool desc,
                                    AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
    SHIMRT_CHECK_ARG(ret0);
    SHIMRT_CHECK_ARG(ret1);
    if (check_cuda(op, self, "self", -1)) return AOTI_TORCH_FAILURE;
    int32_t dev = self->device_index;
    int64_t n = shimrt_numel(self), len = self->ndim ? self->sizes[d] : 1;
    if (n > INT64_MAX / 32) return shimrt_fail(op, "too many elements (%lld)", (long long)n);
    shimrt_cuda_kdesc kk, km, kw;
    char name[96];
    snprintf(name, sizeof name, "sh_sort_keys_%s_strided", shimrt_cuda_dtype_tag(self->dtype));
    if (!shimrt_cuda_kernel_find(name, &kk) ||
        !shimrt_cuda_kernel_find("sh_sort_merge_i64_contig", &km))
        return shimrt_fail(op, "no CUDA kernel %s", name);
    snprintf(name, sizeof name, "sh_sort_write_e%u_strided",
             (unsigned)shimrt_dtype_size(self->dtype));
    if (!shimrt_cuda_kernel_find(name, &kw)) return shimrt_fail(op, "no CUDA kernel %s", name);
    AtenTensorHandle vals =
        shimrt_tensor_empty(op, self->ndim, self->sizes, NULL, self->dtype, SHIMRT_DEV_CUDA, dev);
    AtenTensorHandle idxs = vals ? shimrt_tensor_empty(op, self->ndim, self->sizes, NULL,
                                                       SHIMRT_INT64, SHIMRT_DEV_CUDA, dev)
                                 : NULL;
    AtenTensorHandle scratch = NULL;
    AOTITorchError rc = AOTI_TORCH_FAILURE;
    if (!idxs) goto done;
    if (n > 0) {
        /* two buffers of n (key, position) pairs: keys first, then positions */
        int64_t cells = 4 * n;
        scratch = shimrt_tensor_empty(op, 1, &cells, NULL, SHIMRT_INT64, SHIMRT_DEV_CUDA, dev);
        if (!scratch) goto done;
        char *buf[2] = {shimrt_data(scratch), (char *)shimrt_data(scratch) + 16 * n};
        /* every operand walked with the sort dim last: flat index = line * len + position */
        sh_params p;
        memset(&p, 0, sizeof p);
        p.ndim = (int)self->ndim;
        for (int64_t j = 0, q = 0; j < self->ndim; j++, q++) {
            int64_t s = j == self->ndim - 1 ? d : j + (j >= d); /* d moved last */
            p.sizes[q] = self->sizes[s];
            p.st[0][q] = vals->strides[s];
            p.st[1][q] = self->strides[s];
        }
        p.n = n;
        p.rn = len;
        p.rst[0] = self->ndim ? self->strides[d] : 0;
        p.b_scalar = desc;
        p.out = buf[0];
        p.in0 = shimrt_data(self);
        /* the keys kernel: one block per tile of `tile` elements of a line (the line's
         * length rounded up to a power of two, 32 to BLOCK), sorted in shared memory, a
         * thread per element; the merge passes then start at runs of `tile` */
        unsigned tile = 32;
        while (tile < BLOCK && tile < len) tile *= 2;
        sh_params kp = p;
        kp.n = n / len * ((len + tile - 1) / tile);
        kp.rsizes[1] = n;
        kp.rsizes[2] = tile;
        if (launch_block(op, &kk, dev, &kp, tile)) goto done;
        int cur = 0;
        for (int64_t w = tile; w < len; w *= 2, cur ^= 1) {
            sh_params m = p;
            m.in0 = buf[cur];
            m.out = buf[cur ^ 1];
            m.rsizes[0] = w;
            if (launch(op, &km, dev, &m)) goto done;
        }
        p.out = shimrt_data(vals);
        p.in1 = buf[cur] + 8 * n;
        p.in2 = shimrt_data(idxs);
        if (launch(op, &kw, dev, &p)) goto done;
    }
    *ret0 = vals, *ret1 = idxs;
    vals = idxs = NULL;
    rc = AOTI_TORCH_SUCCESS;
done:
    shimrt_tensor_free(scratch); /* back to the cache, ordered on the same stream */
    shimrt_tensor_free(vals), shimrt_tensor_free(idxs);
    return rc;
}

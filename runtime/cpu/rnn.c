/* runtime/cpu/rnn.c: mkldnn_rnn_layer, the one-direction, one-layer LSTM that AOTInductor
 * CPU graphs call for nn.LSTM (PyTorch runs it on oneDNN's LSTM primitive; its CPU op
 * builds an LSTM whatever `mode` says, so modes other than LSTM (2) fail there and here).
 *
 * input is [T, N, I] (time-major: the caller has already transposed a batch_first input,
 * and batch_first, batch_sizes, num_layers, bidirectional and train do not change the
 * layer), weight0 = weight_ih [4H, I], weight1 = weight_hh [4H, H], weight2 / weight3 =
 * bias_ih / bias_hh [4H] (read only when has_biases), gates in PyTorch's order i, f, g, o.
 * hx_ / cx_ hold N x H values in any shape (PyTorch reads them as [N, H]); hy / cy take
 * their shapes. reverse runs the sequence from its end; output[t] is the state after input
 * t either way. Returns (output [T, N, H], hy, cy, workspace): the workspace only serves
 * oneDNN's backward and is an undefined tensor, as PyTorch's with grad mode off (a compiled
 * graph runs without grad).
 *
 * Computation: the input projections of every step in one GEMM (OpenBLAS through linalg.c's
 * gemm), then per step gates += h @ weight_hh^T (a second GEMM) and the pointwise cell in
 * float. float32, bfloat16 and float16 as PyTorch takes (all operands of one dtype); the
 * half types compute in float with h rounded to the dtype at each step (oneDNN keeps the
 * hidden state in the data type) and the bias summed in the dtype (PyTorch adds
 * bias_ih + bias_hh before oneDNN sees them). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aoti_ops.h"
#include "cpu_kernels.h"

static const char OP[] = "mkldnn_rnn_layer";

/* t as a new contiguous float32 tensor of its own shape (its values in row-major order). */
static AtenTensorHandle to_f32(AtenTensorHandle t) {
    AtenTensorHandle r = shimrt_k_new(OP, t->ndim, t->sizes, SHIMRT_FLOAT32);
    if (r && shimrt_k_copy(OP, r, t)) {
        shimrt_tensor_free(r);
        return NULL;
    }
    return r;
}

static float round_to(float x, int32_t dt) {
    if (dt == SHIMRT_FLOAT32) return x;
    char b[8];
    shimrt_k_store_f64(b, dt, x);
    return (float)shimrt_k_load_f64(b, dt);
}

static float sigm(float x) { return 1.0f / (1.0f + expf(-x)); }

AOTITorchError shimrt_cpu_mkldnn_rnn_layer(
    AtenTensorHandle input, AtenTensorHandle weight0, AtenTensorHandle weight1,
    AtenTensorHandle weight2, AtenTensorHandle weight3, AtenTensorHandle hx_, AtenTensorHandle cx_,
    int32_t reverse, const int64_t *batch_sizes, int64_t batch_sizes_len_, int64_t mode,
    int64_t hidden_size, int64_t num_layers, int32_t has_biases, int32_t bidirectional,
    int32_t batch_first, int32_t train, AtenTensorHandle *ret0, AtenTensorHandle *ret1,
    AtenTensorHandle *ret2, AtenTensorHandle *ret3) {
    (void)batch_sizes;
    (void)batch_sizes_len_;
    (void)num_layers;
    (void)bidirectional;
    (void)batch_first;
    (void)train;
    const char *names[] = {"input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_"};
    AtenTensorHandle all[] = {input, weight0, weight1, weight2, weight3, hx_, cx_};
    for (int i = 0; i < 7; i++)
        if ((has_biases || (i != 3 && i != 4)) && shimrt_k_check_cpu(OP, all[i], names[i]))
            return AOTI_TORCH_FAILURE;
    if (mode != 2)
        return shimrt_fail(OP,
                           "mode %lld is not LSTM (2): PyTorch's CPU kernel (oneDNN's LSTM "
                           "primitive) computes only LSTM layers",
                           (long long)mode);
    int32_t dt = input->dtype;
    if (dt != SHIMRT_FLOAT32 && dt != SHIMRT_BFLOAT16 && dt != SHIMRT_FLOAT16)
        return shimrt_fail(OP, "input of dtype %s: expected float32, bfloat16 or float16",
                           shimrt_dtype_torch_name(dt));
    for (int i = 1; i < 7; i++)
        if ((has_biases || (i != 3 && i != 4)) && all[i]->dtype != dt)
            return shimrt_fail(OP, "%s has dtype %s but input has %s", names[i],
                               shimrt_dtype_torch_name(all[i]->dtype), shimrt_dtype_torch_name(dt));
    if (input->ndim != 3)
        return shimrt_fail(OP, "input must be 3-d [seq_len, batch, input_size], got %lld-d",
                           (long long)input->ndim);
    int64_t T = input->sizes[0], N = input->sizes[1], I = input->sizes[2], H = hidden_size;
    if (H <= 0 || H > INT64_MAX / 4)
        return shimrt_fail(OP, "hidden_size must be positive, got %lld", (long long)H);
    int64_t G = 4 * H;
    if (weight0->ndim != 2 || weight0->sizes[0] != G || weight0->sizes[1] != I)
        return shimrt_fail(OP,
                           "weight0 (weight_ih) must be [%lld, %lld] (4 * hidden_size, "
                           "input_size)",
                           (long long)G, (long long)I);
    if (weight1->ndim != 2 || weight1->sizes[0] != G || weight1->sizes[1] != H)
        return shimrt_fail(OP,
                           "weight1 (weight_hh) must be [%lld, %lld] (4 * hidden_size, "
                           "hidden_size)",
                           (long long)G, (long long)H);
    if (has_biases)
        for (int i = 3; i < 5; i++)
            if (shimrt_numel(all[i]) != G)
                return shimrt_fail(OP, "%s (a bias) must hold %lld (4 * hidden_size) values",
                                   names[i], (long long)G);
    if (N < 1) return shimrt_fail(OP, "batch size must be positive, got %lld", (long long)N);
    int64_t NH;
    if (__builtin_mul_overflow(N, H, &NH) || shimrt_numel(hx_) != NH || shimrt_numel(cx_) != NH)
        return shimrt_fail(OP, "hx_ and cx_ must hold batch * hidden_size = %lld values",
                           (long long)(N * H));
    int64_t osz[3] = {T, N, H};
    AtenTensorHandle out = shimrt_k_new(OP, 3, osz, dt);
    AtenTensorHandle hy = out ? shimrt_k_new(OP, hx_->ndim, hx_->sizes, dt) : NULL;
    AtenTensorHandle cy = hy ? shimrt_k_new(OP, cx_->ndim, cx_->sizes, dt) : NULL;
    AtenTensorHandle x = NULL, wi = NULL, wh = NULL, h0 = NULL, c0 = NULL, b0 = NULL, b1 = NULL;
    AtenTensorHandle ws = NULL;
    float *gx = NULL, *g = NULL, *h = NULL, *c = NULL, *bias = NULL;
    AOTITorchError err = AOTI_TORCH_FAILURE;
    if (!cy) goto done;
    x = to_f32(input);
    wi = x ? to_f32(weight0) : NULL;
    wh = wi ? to_f32(weight1) : NULL;
    h0 = wh ? to_f32(hx_) : NULL;
    c0 = h0 ? to_f32(cx_) : NULL;
    if (!c0) goto done;
    if (has_biases) {
        b0 = to_f32(weight2);
        b1 = b0 ? to_f32(weight3) : NULL;
        if (!b1) goto done;
    }
    size_t TN = (size_t)T * (size_t)N;
    gx = malloc(sizeof *gx * (TN ? TN : 1) * (size_t)G);
    g = malloc(sizeof *g * (size_t)N * (size_t)G);
    h = malloc(sizeof *h * (size_t)NH);
    c = malloc(sizeof *c * (size_t)NH);
    bias = calloc((size_t)G, sizeof *bias);
    if (!gx || !g || !h || !c || !bias) {
        shimrt_fail(OP, "out of memory");
        goto done;
    }
    if (has_biases) {
        const float *p0 = shimrt_data(b0), *p1 = shimrt_data(b1);
        for (int64_t j = 0; j < G; j++) bias[j] = round_to(p0[j] + p1[j], dt);
    }
    memcpy(h, shimrt_data(h0), sizeof *h * (size_t)NH);
    memcpy(c, shimrt_data(c0), sizeof *c * (size_t)NH);
    /* gx[t * N + n, :] = bias + x[t, n, :] @ weight_ih^T */
    for (size_t r = 0; r < TN; r++) memcpy(gx + r * (size_t)G, bias, sizeof *bias * (size_t)G);
    if (TN > 0 && I > 0 &&
        shimrt_k_gemm(OP, SHIMRT_FLOAT32, (int64_t)TN, I, G, shimrt_data(x), I, 1, shimrt_data(wi),
                      1, I, gx, 1.0, 1.0))
        goto done;
    const float *whp = shimrt_data(wh);
    char *od = shimrt_data(out);
    size_t es = dt == SHIMRT_FLOAT32 ? 4 : 2;
    for (int64_t s = 0; s < T; s++) {
        int64_t t = reverse ? T - 1 - s : s;
        memcpy(g, gx + (size_t)t * (size_t)N * (size_t)G, sizeof *g * (size_t)N * (size_t)G);
        if (shimrt_k_gemm(OP, SHIMRT_FLOAT32, N, H, G, h, H, 1, whp, 1, H, g, 1.0, 1.0)) goto done;
        for (int64_t n = 0; n < N; n++) {
            const float *gr = g + n * G;
            for (int64_t j = 0; j < H; j++) {
                float ig = sigm(gr[j]), fg = sigm(gr[H + j]), cg = tanhf(gr[2 * H + j]);
                float og = sigm(gr[3 * H + j]);
                float cn = fg * c[n * H + j] + ig * cg;
                float hn = round_to(og * tanhf(cn), dt);
                c[n * H + j] = cn;
                h[n * H + j] = hn;
                shimrt_k_store_f64(od + (size_t)((t * N + n) * H + j) * es, dt, hn);
            }
        }
    }
    char *hd = shimrt_data(hy), *cd = shimrt_data(cy);
    for (int64_t k = 0; k < NH; k++) {
        shimrt_k_store_f64(hd + (size_t)k * es, dt, h[k]);
        shimrt_k_store_f64(cd + (size_t)k * es, dt, c[k]);
    }
    /* the workspace: an undefined tensor (aoti_torch_new_uninitialized_tensor's) */
    static const struct AtenTensorOpaque undefined = {.impl = NULL};
    ws = shimrt_tensor_share(OP, (AtenTensorHandle)&undefined);
    if (ws) err = AOTI_TORCH_SUCCESS;
done:
    shimrt_tensor_free(x);
    shimrt_tensor_free(wi);
    shimrt_tensor_free(wh);
    shimrt_tensor_free(h0);
    shimrt_tensor_free(c0);
    shimrt_tensor_free(b0);
    shimrt_tensor_free(b1);
    free(gx);
    free(g);
    free(h);
    free(c);
    free(bias);
    if (err) {
        shimrt_tensor_free(out);
        shimrt_tensor_free(hy);
        shimrt_tensor_free(cy);
        return AOTI_TORCH_FAILURE;
    }
    *ret0 = out;
    *ret1 = hy;
    *ret2 = cy;
    *ret3 = ws;
    return AOTI_TORCH_SUCCESS;
}

/* runtime/cpu/multinomial.c: multinomial as PyTorch 2.15's CPU computes it, from the same
 * MT19937 stream (docs/random.md):
 *  - without replacement, or one sample: q = exponential_(1) over a tensor shaped as the
 *    probabilities (one double draw per element, in memory order), then p / q in the input's
 *    type, then per row the index of the largest value (one sample) or the n_sample largest
 *    in decreasing order (topk);
 *  - with replacement: per row, the cumulative sums in the input's type (float for half and
 *    bfloat16) divided by the total, the last set to 1; per sample a double uniform draw and
 *    a binary search for the first cumulative value not below it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../core/rng_internal.h"
#include "../generic/meta.h"
#include "cpu_kernels.h"
#include "elems.h"
#include "index.h"
#include "iter.h"

typedef struct {
    double v;
    int64_t i;
} vi;

/* larger value first; equal values by smaller index */
static int by_value_desc(const void *a, const void *b) {
    const vi *x = a, *y = b;
    if (x->v != y->v) return x->v > y->v ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static AOTITorchError without_replacement(const char *op, AtenTensorHandle self, int64_t rows,
                                          int64_t cats, const double *p, int64_t n_sample,
                                          AtenGeneratorHandle *generator, int64_t *res) {
    int32_t dt = self->dtype;
    /* empty_like(self): self's strides kept (exponential_ draws in memory order) */
    int64_t qst[SHIMRT_MAX_DIMS];
    shimrt_k_preserve_strides(self, qst);
    AtenTensorHandle q =
        shimrt_tensor_empty(op, self->ndim, self->sizes, qst, dt, SHIMRT_DEV_CPU, 0);
    if (!q) return AOTI_TORCH_FAILURE;
    if (shimrt_cpu_exponential_(q, 1.0, generator)) {
        shimrt_tensor_free(q);
        return AOTI_TORCH_FAILURE;
    }
    vi *row = malloc((size_t)cats * sizeof *row);
    if (!row) {
        shimrt_tensor_free(q);
        return shimrt_fail(op, "out of memory");
    }
    int64_t idx[2] = {0, 0};
    int64_t last = self->ndim - 1;
    for (int64_t r = 0; r < rows; r++) {
        for (int64_t c = 0; c < cats; c++) {
            idx[0] = last ? r : c;
            idx[last] = c;
            double qv = shimrt_k_load_f64(shimrt_idx_at(q, idx), dt);
            double x = p[r * cats + c];
            row[c].v = dt == SHIMRT_FLOAT64 ? x / qv : shimrt_e_round(dt, (float)x / (float)qv);
            row[c].i = c;
        }
        if (n_sample == 1) { /* argmax: the first largest (NaN wins) */
            int64_t best = 0;
            for (int64_t c = 1; c < cats; c++)
                if (!isnan(row[best].v) && (isnan(row[c].v) || row[c].v > row[best].v)) best = c;
            res[r] = best;
        } else {
            qsort(row, (size_t)cats, sizeof *row, by_value_desc);
            for (int64_t j = 0; j < n_sample; j++) res[r * n_sample + j] = row[j].i;
        }
    }
    free(row);
    shimrt_tensor_free(q);
    return AOTI_TORCH_SUCCESS;
}

static AOTITorchError with_replacement(const char *op, int32_t dt, int64_t rows, int64_t cats,
                                       const double *p, int64_t n_sample,
                                       AtenGeneratorHandle *generator, int64_t *res) {
    double *cum = malloc((size_t)cats * sizeof *cum);
    if (!cum) return shimrt_fail(op, "out of memory");
    /* the cumulative sums: in double for float64, else in float */
    int32_t ct = dt == SHIMRT_FLOAT64 ? SHIMRT_FLOAT64 : SHIMRT_FLOAT32;
    for (int64_t r = 0; r < rows; r++) {
        double sum = 0;
        for (int64_t c = 0; c < cats; c++) {
            double v = p[r * cats + c];
            if (!(v >= 0)) {
                free(cum);
                return shimrt_fail(
                    op, "invalid multinomial distribution (encountering probability entry < 0)");
            }
            if (!isfinite(v)) {
                free(cum);
                return shimrt_fail(op, "invalid multinomial distribution (encountering "
                                       "probability entry = infinity or NaN)");
            }
            sum = shimrt_e_round(ct, sum + v);
            cum[c] = sum;
        }
        if (!(sum > 0)) {
            free(cum);
            return shimrt_fail(op, "invalid multinomial distribution (sum of probabilities <= 0)");
        }
        for (int64_t c = 0; c < cats; c++) cum[c] = shimrt_e_round(ct, cum[c] / sum);
        cum[cats - 1] = 1;
        shimrt_mt19937 *mt = shimrt_rng_acquire(op, generator ? *generator : NULL);
        if (!mt) {
            free(cum);
            return AOTI_TORCH_FAILURE;
        }
        for (int64_t j = 0; j < n_sample; j++) {
            uint64_t w = shimrt_mt19937_u64(mt);
            double u = (double)(w & ((UINT64_C(1) << 53) - 1)) * (1.0 / 9007199254740992.0);
            int64_t lo = 0, hi = cats;
            while (hi - lo > 0) {
                int64_t mid = lo + (hi - lo) / 2;
                if (cum[mid] < u)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            res[r * n_sample + j] = lo;
        }
        shimrt_rng_release(generator ? *generator : NULL);
    }
    free(cum);
    return AOTI_TORCH_SUCCESS;
}

AOTITorchError shimrt_cpu_multinomial(AtenTensorHandle self, int64_t num_samples,
                                      int32_t replacement, AtenGeneratorHandle *generator,
                                      AtenTensorHandle *ret0) {
    static const char op[] = "multinomial";
    if (shimrt_k_check_cpu(op, self, "self")) return AOTI_TORCH_FAILURE;
    if (self->ndim < 1 || self->ndim > 2) return shimrt_fail(op, "prob_dist must be 1 or 2 dim");
    if (!shimrt_k_is_floating(self->dtype))
        return shimrt_fail(op, "multinomial only supports floating-point dtypes for input, got: %s",
                           shimrt_dtype_name(self->dtype));
    if (num_samples <= 0) return shimrt_fail(op, "cannot sample n_sample <= 0 samples");
    int64_t cats = self->sizes[self->ndim - 1], rows = self->ndim == 2 ? self->sizes[0] : 1;
    if (!replacement && num_samples > cats)
        return shimrt_fail(op, "cannot sample n_sample > prob_dist.size(-1) samples without "
                               "replacement");
    if (cats > (INT64_C(1) << 24))
        return shimrt_fail(op, "number of categories cannot exceed 2^24");
    int64_t osz[2] = {rows, num_samples};
    const int64_t *o = self->ndim == 1 ? &num_samples : osz;
    double *p = NULL;
    int64_t n = shimrt_numel(self);
    p = malloc((size_t)(n ? n : 1) * sizeof *p);
    if (!p) return shimrt_fail(op, "out of memory");
    int64_t idx[SHIMRT_MAX_DIMS] = {0}, k = 0;
    if (n) do
            p[k++] = shimrt_k_load_f64(shimrt_idx_at(self, idx), self->dtype);
        while (shimrt_idx_next(self->ndim, self->sizes, idx));
    AOTITorchError rc = AOTI_TORCH_SUCCESS;
    if (!replacement || num_samples == 1) {
        /* PyTorch's checks of the fast path, over the whole input */
        bool bad = n == 0;
        for (int64_t i = 0; i < n; i++) bad |= !(p[i] < INFINITY) || !(p[i] >= 0);
        if (bad)
            rc = shimrt_fail(op, "probability tensor contains either `inf`, `nan` or element < 0");
        for (int64_t r = 0; !rc && r < rows; r++) {
            double s = 0;
            for (int64_t c = 0; c < cats; c++) s += p[r * cats + c];
            if (s == 0)
                rc =
                    shimrt_fail(op, "invalid multinomial distribution (sum of probabilities <= 0)");
        }
    }
    AtenTensorHandle out =
        rc ? NULL : shimrt_tensor_empty(op, self->ndim, o, NULL, SHIMRT_INT64, SHIMRT_DEV_CPU, 0);
    if (!rc && !out) rc = AOTI_TORCH_FAILURE;
    if (!rc) {
        int64_t *res = shimrt_data(out);
        rc = !replacement || num_samples == 1
                 ? without_replacement(op, self, rows, cats, p, num_samples, generator, res)
                 : with_replacement(op, self->dtype, rows, cats, p, num_samples, generator, res);
    }
    free(p);
    return shimrt_k_hand_out(rc, out, ret0);
}

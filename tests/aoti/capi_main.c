/* tests/aoti/capi_main.c: one zoo model through the C API (shimrt/aoti_package.h), for
 * tests/torch/aoti_zoo.sh:
 *
 *   capi_main MODEL_DIR RTOL ATOL
 *
 * MODEL_DIR holds model.pt2, in<i>.npy and out<i>.npy (PyTorch eager's outputs, written by
 * tests/aoti/zoo.py). Opens the package, runs it twice on the inputs and compares every
 * output with eager's: dtype, sizes, and values (|got - want| <= atol + rtol * |want| for
 * floating dtypes, NaN where eager has NaN; equality for integers and bool). Also checks
 * the API's misuse answers: wrong counts, NULL arguments, free(NULL). Exit 0 when all hold,
 * 3 when the package cannot be loaded (the reason printed), 1 otherwise. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/aoti/npy.h"
#include "shimrt/aoti_package.h"
#include "shimrt/tensor.h"

#define MAX_IO 64

static int failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL: " __VA_ARGS__);                                                          \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static double value_at(const uint8_t *p, int32_t dtype, int *is_int, int64_t *ival) {
    *is_int = 1;
    if (dtype == aoti_torch_dtype_float32()) return *is_int = 0, *(const float *)p;
    if (dtype == aoti_torch_dtype_float64()) return *is_int = 0, *(const double *)p;
    if (dtype == aoti_torch_dtype_int64()) return (double)(*ival = *(const int64_t *)p);
    if (dtype == aoti_torch_dtype_int32()) return (double)(*ival = *(const int32_t *)p);
    if (dtype == aoti_torch_dtype_int16()) return (double)(*ival = *(const int16_t *)p);
    if (dtype == aoti_torch_dtype_int8()) return (double)(*ival = *(const int8_t *)p);
    if (dtype == aoti_torch_dtype_uint8() || dtype == aoti_torch_dtype_bool())
        return (double)(*ival = *(const uint8_t *)p);
    *is_int = -1;
    return 0;
}

static size_t elem_size(int32_t dtype) {
    if (dtype == aoti_torch_dtype_float64() || dtype == aoti_torch_dtype_int64()) return 8;
    if (dtype == aoti_torch_dtype_float32() || dtype == aoti_torch_dtype_int32()) return 4;
    if (dtype == aoti_torch_dtype_int16()) return 2;
    return 1;
}

/* Compares got (any strides) with want (contiguous, from the .npy). */
static void compare(size_t k, AtenTensorHandle got, AtenTensorHandle want, double rtol,
                    double atol) {
    int32_t gd, wd;
    int64_t gn, wn, *gs, *ws, *gst, *wst;
    void *gp, *wp;
    aoti_torch_get_dtype(got, &gd);
    aoti_torch_get_dtype(want, &wd);
    CHECK(gd == wd, "output %zu: dtype %d, eager's %d", k, (int)gd, (int)wd);
    aoti_torch_get_dim(got, &gn);
    aoti_torch_get_dim(want, &wn);
    CHECK(gn == wn, "output %zu: %lld dims, eager's %lld", k, (long long)gn, (long long)wn);
    if (gd != wd || gn != wn) return;
    aoti_torch_get_sizes(got, &gs);
    aoti_torch_get_sizes(want, &ws);
    aoti_torch_get_strides(got, &gst);
    aoti_torch_get_strides(want, &wst);
    aoti_torch_get_data_ptr(got, &gp);
    aoti_torch_get_data_ptr(want, &wp);
    int64_t numel = 1;
    for (int64_t i = 0; i < gn; i++) {
        CHECK(gs[i] == ws[i], "output %zu: size[%lld] %lld, eager's %lld", k, (long long)i,
              (long long)gs[i], (long long)ws[i]);
        if (gs[i] != ws[i]) return;
        numel *= gs[i];
    }
    size_t es = elem_size(gd);
    int64_t idx[64] = {0}, bad = 0;
    double worst = 0;
    for (int64_t e = 0; e < numel; e++) {
        int64_t go = 0, wo = 0;
        for (int64_t i = 0; i < gn; i++) go += idx[i] * gst[i], wo += idx[i] * wst[i];
        int gi, wi;
        int64_t gv_i = 0, wv_i = 0;
        double g = value_at((const uint8_t *)gp + go * (int64_t)es, gd, &gi, &gv_i);
        double w = value_at((const uint8_t *)wp + wo * (int64_t)es, wd, &wi, &wv_i);
        if (gi < 0) {
            CHECK(0, "output %zu: dtype %d not compared by this test", k, (int)gd);
            return;
        }
        if (gi) {
            if (gv_i != wv_i) bad++;
        } else if (isnan(w) || isnan(g)) {
            if (!(isnan(w) && isnan(g))) bad++;
        } else {
            double d = fabs(g - w);
            if (d > atol + rtol * fabs(w)) bad++;
            if (d > worst) worst = d;
        }
        for (int64_t i = gn - 1; i >= 0; i--) {
            if (++idx[i] < gs[i]) break;
            idx[i] = 0;
        }
    }
    CHECK(bad == 0,
          "output %zu: %lld of %lld values differ from eager's (worst |diff| %g, rtol %g, atol %g)",
          k, (long long)bad, (long long)numel, worst, rtol, atol);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: capi_main MODEL_DIR RTOL ATOL\n");
        return 2;
    }
    const char *dir = argv[1];
    double rtol = atof(argv[2]), atol = atof(argv[3]);
    char path[4096];
    snprintf(path, sizeof path, "%s/model.pt2", dir);

    /* misuse answers */
    shimrt_package_free(NULL);
    ShimrtPackage *none = (ShimrtPackage *)1;
    CHECK(shimrt_package_open(NULL, NULL, &none) != 0 && none == NULL, "open(NULL path) must fail");
    CHECK(shimrt_package_open(path, "no_such_model", &none) != 0 && none == NULL &&
              strstr(shimrt_package_last_error(), "no model named"),
          "open(unknown model name): %s", shimrt_package_last_error());
    CHECK(shimrt_package_run(NULL, NULL, 0, NULL, 0) != 0, "run(NULL) must fail");
    CHECK(shimrt_package_set_num_threads(0) != 0 &&
              strstr(shimrt_package_last_error(), "not a thread count"),
          "set_num_threads(0) must fail");
    CHECK(shimrt_package_num_inputs(NULL) == 0 && shimrt_package_num_outputs(NULL) == 0,
          "counts of NULL");

    ShimrtPackage *pkg = NULL;
    if (shimrt_package_open(path, NULL, &pkg) != 0) {
        printf("%s\n", shimrt_package_last_error());
        return 3;
    }
    size_t ni = shimrt_package_num_inputs(pkg), no = shimrt_package_num_outputs(pkg);
    AtenTensorHandle in[MAX_IO] = {0}, want[MAX_IO] = {0}, out[MAX_IO] = {0};
    if (ni > MAX_IO || no > MAX_IO) {
        printf("FAIL: %zu inputs, %zu outputs\n", ni, no);
        return 1;
    }
    for (size_t i = 0; i < ni; i++) {
        snprintf(path, sizeof path, "%s/in%zu.npy", dir, i);
        CHECK(shimrt_npy_load(path, &in[i]) == 0, "%s", shimrt_package_last_error());
    }
    for (size_t i = 0; i < no; i++) {
        snprintf(path, sizeof path, "%s/out%zu.npy", dir, i);
        CHECK(shimrt_npy_load(path, &want[i]) == 0, "%s", shimrt_package_last_error());
    }
    if (failures) return 1;
    CHECK(shimrt_package_run(pkg, in, ni + 1, out, no) != 0 &&
              strstr(shimrt_package_last_error(), "inputs"),
          "run with one input too many must fail");
    CHECK(no == 0 || shimrt_package_run(pkg, in, ni, out, no - 1) != 0,
          "run with too few outputs must fail");
    for (int rep = 0; rep < 2; rep++) {
        if (shimrt_package_run(pkg, in, ni, out, no) != 0) {
            printf("FAIL: run %d: %s\n", rep, shimrt_package_last_error());
            failures++;
            break;
        }
        for (size_t i = 0; i < no; i++) {
            compare(i, out[i], want[i], rtol, atol);
            aoti_torch_delete_tensor_object(out[i]);
            out[i] = NULL;
        }
    }
    for (size_t i = 0; i < ni; i++) aoti_torch_delete_tensor_object(in[i]);
    for (size_t i = 0; i < no; i++) aoti_torch_delete_tensor_object(want[i]);
    shimrt_package_free(pkg);
    if (!failures)
        printf("ok: %zu inputs, %zu outputs match eager (rtol %g, atol %g), two runs\n", ni, no,
               rtol, atol);
    return failures ? 1 : 0;
}

/* shimrt-run: runs an AOTInductor package (.pt2) on libshimrt (docs/aoti.md).
 *
 *   shimrt-run MODEL.pt2 [--input X.npy]... [--output Y.npy]... [--bench N] [--threads N]
 *              [--model NAME]
 *
 * Inputs in the model's order, one --input each; the i-th --output receives the i-th flat
 * output (outputs beyond the --output options given are not written). --bench N runs the
 * model N more times after the first and prints the best and median times. --threads N
 * sets the one thread count (libshimrt, OpenBLAS and OpenMP; default SHIMRT_NUM_THREADS,
 * else OMP_NUM_THREADS, else one per core).
 * A package compiled for CUDA runs on the current CUDA device: the inputs are copied there,
 * the outputs back, and each timed run ends with a device synchronize.
 * Exit status: 0 success, 1 the run failed, 2 usage, 3 the package cannot be loaded here,
 * 4 an input or output file cannot be read or written. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../npy.h"
#include "shimrt/aoti_package.h"
#include "shimrt/cuda.h"
#include "shimrt/device.h"
#include "shimrt/error.h"
#include "shimrt/tensor.h"

#define MAX_FILES 256

static int usage(void) {
    fprintf(stderr, "usage: shimrt-run MODEL.pt2 [--input X.npy]... [--output Y.npy]... "
                    "[--bench N] [--threads N] [--model NAME]\n");
    return 2;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A new tensor on (device_type, device_index) with t's sizes, strides and values, into *out
 * (t is released). Nonzero with the message printed on failure. */
static int move_to(AtenTensorHandle t, int32_t device_type, int32_t device_index,
                   AtenTensorHandle *out) {
    int64_t nd = 0, *sizes = NULL, *strides = NULL;
    int32_t dtype = 0;
    AtenTensorHandle m = NULL;
    if (aoti_torch_get_dim(t, &nd) || aoti_torch_get_sizes(t, &sizes) ||
        aoti_torch_get_strides(t, &strides) || aoti_torch_get_dtype(t, &dtype) ||
        aoti_torch_empty_strided(nd, sizes, strides, dtype, device_type, device_index, &m) ||
        aoti_torch_copy_(m, t, 0)) {
        fprintf(stderr, "shimrt-run: copying a tensor between devices: %s\n",
                torch_exception_get_what());
        if (m) aoti_torch_delete_tensor_object(m);
        return 1;
    }
    aoti_torch_delete_tensor_object(t);
    *out = m;
    return 0;
}

static long parse_pos(const char *s) {
    char *end;
    long v = strtol(s, &end, 10);
    return *s && *end == '\0' && v >= 1 && v <= 100000000 ? v : -1;
}

int main(int argc, char **argv) {
    const char *model = NULL, *name = NULL;
    const char *in_paths[MAX_FILES], *out_paths[MAX_FILES];
    size_t n_in = 0, n_out = 0;
    long bench = 0, threads = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_val = i + 1 < argc;
        if (strcmp(a, "--input") == 0 && has_val) {
            if (n_in == MAX_FILES) return usage();
            in_paths[n_in++] = argv[++i];
        } else if (strcmp(a, "--output") == 0 && has_val) {
            if (n_out == MAX_FILES) return usage();
            out_paths[n_out++] = argv[++i];
        } else if (strcmp(a, "--bench") == 0 && has_val) {
            if ((bench = parse_pos(argv[++i])) < 0) return usage();
        } else if (strcmp(a, "--threads") == 0 && has_val) {
            if ((threads = parse_pos(argv[++i])) < 0) return usage();
        } else if (strcmp(a, "--model") == 0 && has_val) {
            name = argv[++i];
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage();
            return 0;
        } else if (a[0] == '-' || model) {
            fprintf(stderr, "shimrt-run: unexpected argument '%s'\n", a);
            return usage();
        } else {
            model = a;
        }
    }
    if (!model) return usage();
    if (threads && shimrt_package_set_num_threads((int)threads) != 0) {
        fprintf(stderr, "shimrt-run: %s\n", shimrt_package_last_error());
        return 2;
    }
    ShimrtPackage *pkg = NULL;
    if (shimrt_package_open(model, name, &pkg) != 0) {
        fprintf(stderr, "shimrt-run: %s\n", shimrt_package_last_error());
        return 3;
    }
    int rc = 0;
    size_t want_in = shimrt_package_num_inputs(pkg), want_out = shimrt_package_num_outputs(pkg);
    AtenTensorHandle ins[MAX_FILES] = {0};
    AtenTensorHandle *outs = calloc(want_out ? want_out : 1, sizeof *outs);
    if (!outs) {
        fprintf(stderr, "shimrt-run: out of memory\n");
        shimrt_package_free(pkg);
        return 1;
    }
    if (n_in != want_in) {
        fprintf(stderr, "shimrt-run: %s takes %zu inputs; %zu --input given\n", model, want_in,
                n_in);
        rc = 2;
        goto out;
    }
    if (n_out > want_out) {
        fprintf(stderr, "shimrt-run: %s returns %zu outputs; %zu --output given\n", model, want_out,
                n_out);
        rc = 2;
        goto out;
    }
    int32_t dev = shimrt_package_device_type(pkg), dev_index = shimrt_package_device_index(pkg);
    bool cuda = dev == aoti_torch_device_type_cuda();
    for (size_t i = 0; i < n_in; i++) {
        if (shimrt_npy_load(in_paths[i], &ins[i]) != 0) {
            fprintf(stderr, "shimrt-run: input %zu: %s\n", i, shimrt_package_last_error());
            rc = 4;
            goto out;
        }
        if (cuda && move_to(ins[i], dev, dev_index, &ins[i])) {
            ins[i] = NULL;
            rc = 1;
            goto out;
        }
    }
    double t0 = now_ms();
    if (shimrt_package_run(pkg, ins, n_in, outs, want_out) != 0) {
        fprintf(stderr, "shimrt-run: %s\n", shimrt_package_last_error());
        rc = 1;
        goto out;
    }
    if (cuda && shimrt_cuda_device_synchronize(dev_index) != AOTI_TORCH_SUCCESS) {
        fprintf(stderr, "shimrt-run: %s\n", torch_exception_get_what());
        rc = 1;
        goto out;
    }
    double first = now_ms() - t0;
    if (bench > 0) {
        double *t = malloc((size_t)bench * sizeof *t);
        AtenTensorHandle *tmp = calloc(want_out ? want_out : 1, sizeof *tmp);
        if (!t || !tmp) {
            free(t);
            free(tmp);
            fprintf(stderr, "shimrt-run: out of memory\n");
            rc = 1;
            goto out;
        }
        for (long k = 0; k < bench && rc == 0; k++) {
            double s = now_ms();
            if (shimrt_package_run(pkg, ins, n_in, tmp, want_out) != 0) {
                fprintf(stderr, "shimrt-run: %s\n", shimrt_package_last_error());
                rc = 1;
            } else if (cuda && shimrt_cuda_device_synchronize(dev_index) != AOTI_TORCH_SUCCESS) {
                fprintf(stderr, "shimrt-run: %s\n", torch_exception_get_what());
                rc = 1;
            }
            t[k] = now_ms() - s;
            for (size_t i = 0; i < want_out; i++)
                if (tmp[i]) aoti_torch_delete_tensor_object(tmp[i]);
        }
        if (rc == 0) {
            qsort(t, (size_t)bench, sizeof *t, cmp_double);
            uint32_t nt = 0;
            torch_get_num_threads(&nt);
            printf("bench: best %.4f ms, median %.4f ms, first %.4f ms over %ld runs, %u threads\n",
                   t[0], t[bench / 2], first, bench, nt);
        }
        free(t);
        free(tmp);
        if (rc) goto out;
    }
    for (size_t i = 0; i < n_out; i++) {
        if (cuda && outs[i] && move_to(outs[i], aoti_torch_device_type_cpu(), 0, &outs[i])) {
            outs[i] = NULL;
            rc = 1;
            goto out;
        }
        if (shimrt_npy_save(out_paths[i], outs[i]) != 0) {
            fprintf(stderr, "shimrt-run: output %zu: %s\n", i, shimrt_package_last_error());
            rc = 4;
            goto out;
        }
    }
out:
    for (size_t i = 0; i < n_in; i++)
        if (ins[i]) aoti_torch_delete_tensor_object(ins[i]);
    for (size_t i = 0; i < want_out; i++)
        if (outs[i]) aoti_torch_delete_tensor_object(outs[i]);
    free(outs);
    shimrt_package_free(pkg);
    return rc;
}

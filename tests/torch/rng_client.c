/* tests/torch/rng_client.c: the libshimrt side of rng_oracle.sh. Reads cases from stdin, one
 * a line: "OP DTYPE N SEED [A B]"; for each, seeds the default CPU generator with SEED, runs
 * OP and writes an 8-byte little-endian byte count then the result's raw bytes to stdout.
 * The Python side does the same with torch.manual_seed and compares the bytes. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_shim_cpu.h"
#include "shimrt/shimrt.h"

static int32_t dtype_of(const char *s) {
    if (!strcmp(s, "f32")) return aoti_torch_dtype_float32();
    if (!strcmp(s, "f64")) return aoti_torch_dtype_float64();
    if (!strcmp(s, "f16")) return aoti_torch_dtype_float16();
    if (!strcmp(s, "bf16")) return aoti_torch_dtype_bfloat16();
    if (!strcmp(s, "i64")) return aoti_torch_dtype_int64();
    if (!strcmp(s, "i32")) return aoti_torch_dtype_int32();
    if (!strcmp(s, "u8")) return aoti_torch_dtype_uint8();
    if (!strcmp(s, "b8")) return aoti_torch_dtype_bool();
    return -1;
}

static void die(const char *what) {
    fprintf(stderr, "rng_client: %s failed: %s\n", what, torch_exception_get_what());
    exit(1);
}
#define CK(x)                                                                                      \
    do {                                                                                           \
        if ((x) != AOTI_TORCH_SUCCESS) die(#x);                                                    \
    } while (0)

static void emit(AtenTensorHandle t, int64_t nelem) {
    void *p;
    int32_t dt;
    CK(aoti_torch_get_data_ptr(t, &p));
    CK(aoti_torch_get_dtype(t, &dt));
    uint64_t nb = (uint64_t)nelem * aoti_torch_dtype_element_size(dt);
    fwrite(&nb, 8, 1, stdout);
    if (nb) fwrite(p, 1, nb, stdout); /* (an empty tensor's data may be NULL) */
}

static AtenTensorHandle empty(int64_t n, int32_t dt) {
    AtenTensorHandle t;
    int64_t st = 1;
    CK(aoti_torch_empty_strided(1, &n, &st, dt, aoti_torch_device_type_cpu(), 0, &t));
    return t;
}

int main(void) {
    AtenGeneratorHandle g;
    CK(shimrt_generator_default_cpu(&g));
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        char op[32], ds[8];
        int64_t n;
        uint64_t seed;
        double a = 0, b = 0;
        if (sscanf(line, "%31s %7s %" SCNd64 " %" SCNu64 " %lf %lf", op, ds, &n, &seed, &a, &b) < 4)
            continue;
        int32_t dt = dtype_of(ds);
        CK(shimrt_generator_set_seed(g, seed));
        AtenTensorHandle t = NULL;
        int64_t size[1] = {n};
        int64_t nelem = n;
        if (!strcmp(op, "rand")) {
            CK(aoti_torch_cpu_rand(size, 1, &dt, NULL, NULL, 0, NULL, &t));
        } else if (!strcmp(op, "randn")) {
            CK(aoti_torch_cpu_randn(size, 1, &dt, NULL, NULL, 0, NULL, &t));
        } else if (!strcmp(op, "randn2")) { /* two calls: the Box-Muller cache carries over */
            AtenTensorHandle u;
            CK(aoti_torch_cpu_randn(size, 1, &dt, NULL, NULL, 0, NULL, &u));
            emit(u, n);
            aoti_torch_delete_tensor_object(u);
            CK(aoti_torch_cpu_randn(size, 1, &dt, NULL, NULL, 0, NULL, &t));
        } else if (!strcmp(op, "randnT")) { /* a transposed (4, n) view of an (n, 4) tensor */
            int64_t sz[2] = {4, n}, st[2] = {1, 4};
            CK(aoti_torch_empty_strided(2, sz, st, dt, aoti_torch_device_type_cpu(), 0, &t));
            CK(aoti_torch_cpu_normal_(t, 0.0, 1.0, NULL));
            nelem = 4 * n;
        } else if (!strcmp(op, "randint")) {
            CK(aoti_torch_cpu_randint_low((int64_t)a, (int64_t)b, size, 1, &dt, NULL, NULL, 0, NULL,
                                          &t));
        } else if (!strcmp(op, "randperm")) {
            CK(aoti_torch_cpu_randperm(n, &dt, NULL, NULL, 0, NULL, &t));
        } else if (!strcmp(op, "uniform")) {
            t = empty(n, dt);
            CK(aoti_torch_cpu_uniform_(t, a, b, NULL));
        } else if (!strcmp(op, "normal")) {
            t = empty(n, dt);
            CK(aoti_torch_cpu_normal_(t, a, b, NULL));
        } else if (!strcmp(op, "random")) {
            t = empty(n, dt);
            CK(aoti_torch_cpu_random_(t, NULL));
        } else if (!strcmp(op, "rfrom")) { /* random_(a, None); a = -1: from INT64_MIN */
            t = empty(n, dt);
            CK(aoti_torch_cpu_random__from(t, a == -1 ? INT64_MIN : (int64_t)a, NULL, NULL));
        } else if (!strcmp(op, "rto")) {
            t = empty(n, dt);
            CK(aoti_torch_cpu_random__to(t, (int64_t)a, NULL));
        } else if (!strcmp(op, "bern")) {
            t = empty(n, dt);
            CK(aoti_torch_cpu_bernoulli__float(t, a, NULL));
        } else if (!strcmp(op, "uniformT")) { /* a transposed (4, n) view */
            int64_t sz[2] = {4, n}, st[2] = {1, 4};
            CK(aoti_torch_empty_strided(2, sz, st, dt, aoti_torch_device_type_cpu(), 0, &t));
            CK(aoti_torch_cpu_uniform_(t, a, b, NULL));
            nelem = 4 * n;
        } else if (!strcmp(op, "bernT") || !strcmp(op, "bernTd")) {
            /* p = rand(n) (float32, or float64 for bernTd), then bernoulli_(p) */
            int32_t f32 = op[5] ? aoti_torch_dtype_float64() : aoti_torch_dtype_float32();
            AtenTensorHandle p;
            CK(aoti_torch_cpu_rand(size, 1, &f32, NULL, NULL, 0, NULL, &p));
            t = empty(n, dt);
            CK(aoti_torch_cpu_bernoulli__Tensor(t, p, NULL));
            aoti_torch_delete_tensor_object(p);
        } else if (!strcmp(op, "expo")) {
            t = empty(n, dt);
            CK(aoti_torch_cpu_exponential_(t, a, NULL));
        } else if (!strcmp(op, "expoF")) {
            AtenTensorHandle x = empty(n, dt);
            CK(aoti_torch_cpu_exponential(x, a, NULL, &t));
            aoti_torch_delete_tensor_object(x);
        } else if (!strcmp(op, "uniformF")) {
            AtenTensorHandle x = empty(n, dt);
            CK(aoti_torch_cpu_uniform(x, a, b, NULL, &t));
            aoti_torch_delete_tensor_object(x);
        } else if (!strcmp(op, "cauchy")) {
            t = empty(n, dt);
            CK(aoti_torch_cpu_cauchy_(t, a, b, NULL));
        } else if (!strcmp(op, "lognormal")) {
            t = empty(n, dt);
            CK(aoti_torch_cpu_log_normal_(t, a, b, NULL));
        } else if (!strcmp(op, "geometric")) {
            t = empty(n, dt);
            CK(aoti_torch_cpu_geometric_(t, a, NULL));
        } else if (!strcmp(op, "lognormalT")) { /* a transposed (4, n) view */
            int64_t sz[2] = {4, n}, st[2] = {1, 4};
            CK(aoti_torch_empty_strided(2, sz, st, dt, aoti_torch_device_type_cpu(), 0, &t));
            CK(aoti_torch_cpu_log_normal_(t, a, b, NULL));
            nelem = 4 * n;
        } else if (!strcmp(op, "randint_out")) { /* out of 3 elements resized to n */
            t = empty(3, dt);
            CK(aoti_torch_cpu_randint_low_out(t, (int64_t)a, (int64_t)b, size, 1));
        } else if (!strcmp(op, "randint_likeT")) { /* high a 0-d int64 tensor */
            AtenTensorHandle x = empty(n, dt), h;
            int32_t i64 = aoti_torch_dtype_int64();
            CK(aoti_torch_empty_strided(0, NULL, NULL, i64, aoti_torch_device_type_cpu(), 0, &h));
            void *ph;
            CK(aoti_torch_get_data_ptr(h, &ph));
            *(int64_t *)ph = (int64_t)b;
            CK(aoti_torch_cpu_randint_like_Tensor(x, h, NULL, NULL, NULL, 0, NULL, NULL, &t));
            aoti_torch_delete_tensor_object(h);
            aoti_torch_delete_tensor_object(x);
        } else if (!strcmp(op, "multinomial") || !strcmp(op, "multinomialT")) {
            /* p = rand(4, n) + 0.01 (float64 when a < 0), as (n, 4).t() for multinomialT;
             * multinomial(p, |a| samples, replacement b) */
            int64_t sz[2] = {4, n}, tsz[2] = {n, 4};
            int32_t pd = a < 0 ? aoti_torch_dtype_float64() : dt;
            bool tr = op[11] == 'T';
            AtenTensorHandle p, pt = NULL;
            CK(aoti_torch_cpu_rand(tr ? tsz : sz, 2, &pd, NULL, NULL, 0, NULL, &p));
            if (tr) {
                CK(aoti_torch_cpu_transpose_int(p, 0, 1, &pt));
                AtenTensorHandle q = p;
                p = pt;
                pt = q;
            }
            int64_t ns = (int64_t)(a < 0 ? -a : a);
            CK(aoti_torch_cpu_multinomial(p, ns, (int32_t)b, NULL, &t));
            nelem = 4 * ns;
            aoti_torch_delete_tensor_object(p);
            if (pt) aoti_torch_delete_tensor_object(pt);
        } else if (!strcmp(op, "rand_like") || !strcmp(op, "randn_like") ||
                   !strcmp(op, "randint_like") || !strcmp(op, "normalF")) {
            AtenTensorHandle x = empty(n, dt);
            if (op[4] == '_')
                CK(aoti_torch_cpu_rand_like(x, NULL, NULL, NULL, 0, NULL, NULL, &t));
            else if (op[5] == '_')
                CK(aoti_torch_cpu_randn_like(x, NULL, NULL, NULL, 0, NULL, NULL, &t));
            else if (op[0] == 'n')
                CK(aoti_torch_cpu_normal_functional(x, a, b, NULL, &t));
            else
                CK(aoti_torch_cpu_randint_like_low_dtype(x, (int64_t)a, (int64_t)b, NULL, NULL,
                                                         NULL, 0, NULL, NULL, &t));
            aoti_torch_delete_tensor_object(x);
        } else if (!strcmp(op, "bernF")) { /* bernoulli(rand(n)) */
            int32_t f32 = aoti_torch_dtype_float32();
            AtenTensorHandle p;
            CK(aoti_torch_cpu_rand(size, 1, &f32, NULL, NULL, 0, NULL, &p));
            CK(aoti_torch_cpu_bernoulli(p, NULL, &t));
            aoti_torch_delete_tensor_object(p);
        } else if (!strcmp(op, "gen")) { /* a generator of its own: rand then randn */
            AtenGeneratorHandle own;
            CK(shimrt_generator_new(aoti_torch_device_type_cpu(), 0, seed, &own));
            AtenTensorHandle u;
            CK(aoti_torch_cpu_rand_generator(size, 1, &own, &dt, NULL, NULL, 0, NULL, &u));
            emit(u, n);
            aoti_torch_delete_tensor_object(u);
            CK(aoti_torch_cpu_randn_generator(size, 1, &own, &dt, NULL, NULL, 0, NULL, &t));
            CK(torch_delete_generator(own));
        } else if (!strcmp(op, "state")) { /* randn(3) (caches a value), save, randn(n) twice */
            int64_t three = 3;
            AtenTensorHandle u;
            CK(aoti_torch_cpu_randn(&three, 1, &dt, NULL, NULL, 0, NULL, &u));
            aoti_torch_delete_tensor_object(u);
            size_t len;
            CK(shimrt_generator_get_state(g, NULL, 0, &len));
            void *st = malloc(len);
            if (!st) return 3;
            CK(shimrt_generator_get_state(g, st, len, &len));
            CK(aoti_torch_cpu_randn(size, 1, &dt, NULL, NULL, 0, NULL, &u));
            CK(shimrt_generator_set_state(g, st, len));
            free(st);
            CK(aoti_torch_cpu_randn(size, 1, &dt, NULL, NULL, 0, NULL, &t));
            void *pu, *pt;
            CK(aoti_torch_get_data_ptr(u, &pu));
            CK(aoti_torch_get_data_ptr(t, &pt));
            if (n && memcmp(pu, pt, (size_t)n * aoti_torch_dtype_element_size(dt))) {
                fprintf(stderr, "rng_client: restoring the state did not repeat the values\n");
                return 1;
            }
            aoti_torch_delete_tensor_object(u);
        } else if (!strcmp(op, "dropout")) { /* native_dropout(1 + 0.25 * arange(n), a, train) */
            int32_t f64 = aoti_torch_dtype_float64();
            AtenTensorHandle x64 = empty(n, f64), x, m;
            void *px;
            CK(aoti_torch_get_data_ptr(x64, &px));
            for (int64_t i = 0; i < n; i++) ((double *)px)[i] = 1.0 + 0.25 * (double)i;
            x = empty(n, dt);
            CK(aoti_torch_cpu_copy_(x, x64, 0));
            int32_t train = b != 0;
            CK(aoti_torch_cpu_native_dropout(x, a, &train, &t, &m));
            emit(t, n);
            aoti_torch_delete_tensor_object(t);
            t = m;
            aoti_torch_delete_tensor_object(x);
            aoti_torch_delete_tensor_object(x64);
        } else {
            fprintf(stderr, "rng_client: unknown op %s\n", op);
            return 2;
        }
        emit(t, nelem);
        aoti_torch_delete_tensor_object(t);
    }
    return 0;
}

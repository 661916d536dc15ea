/* tests/runtime/test_e2e_reduce.c: end to end (direct shim, aten shim, dispatcher; see
 * test_e2e.h) for sum.dim_IntList, amax and mm. */
#include "test_e2e.h"

/* Reference reduction of a over the dims in `dims` (all dims when dims is NULL or n is
 * 0), then compares r. kind 0: sum (elements cast to want_dt first), 1: amax. */
static void check_reduce(int p, int kind, T a, T r, const int64_t *dims, int64_t n, bool keep,
                         int32_t want_dt) {
    const char *op = kind ? "amax" : "sum.dim_IntList";
    cr_assert_eq(dtype_of(r), want_dt, "[%s] %s: dtype %d, want %d", path_name[p], op, dtype_of(r),
                 want_dt);
    int64_t nd = ndim_of(a), *sz = sizes_of(a);
    bool red[MAXD];
    for (int64_t d = 0; d < nd; d++) red[d] = dims == NULL || n == 0;
    for (int64_t i = 0; dims && i < n; i++) red[(dims[i] % nd + nd) % nd] = true;
    int64_t oshape[MAXD] = {0}, on = 0, kshape[MAXD] = {0};
    for (int64_t d = 0; d < nd; d++) {
        kshape[d] = red[d] ? 1 : sz[d];
        if (!red[d] || keep) oshape[on++] = kshape[d];
    }
    shape_is(r, on, oshape, op);
    int64_t kn = e2e_numel(nd, kshape), idx[MAXD] = {0};
    double *acc = calloc((size_t)kn + 1, sizeof *acc);
    for (int64_t i = 0; i < kn; i++) acc[i] = kind ? -INFINITY : 0;
    do {
        int64_t o = 0;
        for (int64_t d = 0; d < nd; d++) o = o * kshape[d] + (red[d] ? 0 : idx[d]);
        double x = cast(get(a, idx), want_dt);
        if (!kind)
            acc[o] += x;
        else if (isnan(x) || isnan(acc[o]))
            acc[o] = NAN;
        else if (x > acc[o])
            acc[o] = x;
    } while (step(nd, sz, idx));
    double *vr = vals(r);
    for (int64_t i = 0; i < kn; i++) close_to(vr[i], cast(acc[i], want_dt), want_dt, op, i);
    free(acc), free(vr);
}

Test(e2e_reduce, sum_dims_keepdim_dtype) {
    e2e_begin();
    int64_t s[] = {2, 3, 4};
    int64_t d0[] = {0}, d12[] = {1, 2}, dm1[] = {-1}, d20[] = {2, 0};
    const int64_t *none = NULL;
    struct {
        const int64_t *dims;
        int64_t n;
        bool present;
    } cases[] = {{NULL, 0, false}, {NULL, 0, true}, {d0, 1, true},
                 {d12, 2, true},   {dm1, 1, true},  {d20, 2, true}};
    int32_t dts[] = {F32, F64, I64, BOOL};
    for (int p = 0; p < NPATHS; p++)
        for (size_t k = 0; k < 4; k++)
            for (int l = 0; l <= NLAYS; l++) {
                T a = l == NLAYS ? make_bcast(dts[k], 3, s, 1, (int)k)
                                 : make(dts[k], l, 3, s, (int)k);
                int32_t want = is_fp(dts[k]) ? dts[k] : I64;
                for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
                    for (int keep = 0; keep < 2; keep++) {
                        T r = NULL;
                        /* present: a pointer to the list (NULL items: the empty list) */
                        const int64_t **dim = cases[c].present ? &cases[c].dims : NULL;
                        OK(e2e_sum(p, a, dim, cases[c].n, keep, NULL, &r));
                        check_reduce(p, 0, a, r, cases[c].dims, cases[c].n, keep, want);
                        del(r);
                    }
                int32_t f64 = F64, i64 = I64;
                T r = NULL;
                OK(e2e_sum(p, a, &cases[3].dims, 2, 0, &f64, &r));
                check_reduce(p, 0, a, r, d12, 2, false, F64);
                del(r);
                OK(e2e_sum(p, a, &cases[2].dims, 1, 1, &i64, &r));
                check_reduce(p, 0, a, r, d0, 1, true, I64);
                del(r);
                del(a);
            }
    T a = make(F32, SLICED, 3, s, 0), r = NULL;
    const int64_t *d3 = (const int64_t[]){3}, *dup = (const int64_t[]){1, -2};
    int32_t bad = 99;
    for (int p = 0; p < NPATHS; p++) {
        FAILS(p, e2e_sum(p, a, &d3, 1, 0, NULL, &r), "sum.dim_IntList", "sum_dim_IntList",
              "Dimension out of range");
        FAILS(p, e2e_sum(p, a, &dup, 2, 0, NULL, &r), "sum.dim_IntList", "sum_dim_IntList",
              "multiple times");
        FAILS(p, e2e_sum(p, a, &none, 0, 0, &bad, &r), "sum.dim_IntList", "sum_dim_IntList", "99");
        FAILS(p, e2e_sum(p, NULL, NULL, 0, 0, NULL, &r), "sum.dim_IntList", "sum_dim_IntList",
              NULL_SELF(p));
        if (p != DISPATCH) {
            FAILS(p, e2e_sum(p, a, &none, 2, 0, NULL, &r), "sum.dim_IntList", "sum_dim_IntList",
                  "dim");
            FAILS(p, e2e_sum(p, a, NULL, 0, 0, NULL, NULL), "sum.dim_IntList", "sum_dim_IntList",
                  "ret0");
        }
        cr_assert_null(r);
    }
    del(a);
    e2e_end();
}

Test(e2e_reduce, amax_dims_keepdim_nan) {
    e2e_begin();
    int64_t s[] = {2, 3, 4};
    int64_t d0[] = {0}, d12[] = {1, 2}, dm1[] = {-1};
    struct {
        const int64_t *dims;
        int64_t n;
    } cases[] = {{NULL, 0}, {d0, 1}, {d12, 2}, {dm1, 1}};
    int32_t dts[] = {F32, F64, I64, BOOL};
    for (int p = 0; p < NPATHS; p++)
        for (size_t k = 0; k < 4; k++)
            for (int l = 0; l <= NLAYS; l++) {
                T a = l == NLAYS ? make_bcast(dts[k], 3, s, 2, (int)k)
                                 : make(dts[k], l, 3, s, (int)k);
                for (size_t c = 0; c < 4; c++)
                    for (int keep = 0; keep < 2; keep++) {
                        T r = NULL;
                        OK(e2e_amax(p, a, cases[c].dims, cases[c].n, keep, &r));
                        check_reduce(p, 1, a, r, cases[c].dims, cases[c].n, keep, dts[k]);
                        del(r);
                    }
                del(a);
            }
    T f = make(F64, TRANSPOSED, 3, s, 1), r = NULL;
    set(f, (int64_t[]){1, 2, 3}, NAN);
    for (int p = 0; p < NPATHS; p++) {
        OK(e2e_amax(p, f, dm1, 1, 0, &r));
        check_reduce(p, 1, f, r, dm1, 1, false, F64);
        del(r);
    }
    int64_t s0[] = {2, 0};
    T e = make(F32, CONTIG, 2, s0, 0);
    int64_t d3[] = {3}, dup[] = {0, 0}, d1[] = {1};
    r = NULL;
    for (int p = 0; p < NPATHS; p++) {
        FAILS(p, e2e_amax(p, f, d3, 1, 0, &r), "amax", "amax", "Dimension out of range");
        FAILS(p, e2e_amax(p, f, dup, 2, 0, &r), "amax", "amax", "multiple times");
        FAILS(p, e2e_amax(p, e, d1, 1, 0, &r), "amax", "amax", "non-zero size");
        FAILS(p, e2e_amax(p, NULL, d1, 1, 0, &r), "amax", "amax", NULL_SELF(p));
        if (p != DISPATCH) FAILS(p, e2e_amax(p, f, NULL, 1, 0, &r), "amax", "amax", "dim");
        cr_assert_null(r);
    }
    del(f), del(e);
    e2e_end();
}

/* ---- mm ----------------------------------------------------------------------------------- */
Test(e2e_mm, layouts_dtypes_and_errors) {
    e2e_begin();
    int64_t sa[] = {3, 5}, sb[] = {5, 4}, want[] = {3, 4};
    int32_t dts[] = {F32, F64, I64};
    for (int p = 0; p < NPATHS; p++)
        for (size_t k = 0; k < 3; k++)
            for (int la = 0; la <= NLAYS; la++)
                for (int lb = 0; lb < NLAYS; lb++) {
                    T a =
                        la == NLAYS ? make_bcast(dts[k], 2, sa, 0, 1) : make(dts[k], la, 2, sa, 1);
                    T b = make(dts[k], lb, 2, sb, 2), r = NULL;
                    OK(e2e_mm(p, a, b, &r));
                    shape_is(r, 2, want, "mm");
                    cr_assert_eq(dtype_of(r), dts[k]);
                    for (int64_t i = 0; i < 3; i++)
                        for (int64_t j = 0; j < 4; j++) {
                            double acc = 0;
                            for (int64_t q = 0; q < 5; q++)
                                acc += get(a, (int64_t[]){i, q}) * get(b, (int64_t[]){q, j});
                            close_to(get(r, (int64_t[]){i, j}), cast(acc, dts[k]), dts[k], "mm",
                                     i * 4 + j);
                        }
                    del(a), del(b), del(r);
                }
    /* empty inner dimension: zeros */
    int64_t s30[] = {3, 0}, s04[] = {0, 4};
    T e1 = make(F64, CONTIG, 2, s30, 0), e2 = make(F64, CONTIG, 2, s04, 0);
    for (int p = 0; p < NPATHS; p++) {
        T r = NULL;
        OK(e2e_mm(p, e1, e2, &r));
        shape_is(r, 2, want, "mm empty");
        double *v = vals(r);
        for (int i = 0; i < 12; i++) cr_assert_eq(v[i], 0.0);
        free(v), del(r);
    }
    T a = make(F32, CONTIG, 2, sa, 1), a64 = make(F64, CONTIG, 2, sb, 1),
      v = make(F32, CONTIG, 1, sa, 1);
    T bl = make(BOOL, CONTIG, 2, sa, 1), bl2 = make(BOOL, CONTIG, 2, sb, 1), r = NULL;
    for (int p = 0; p < NPATHS; p++) {
        FAILS(p, e2e_mm(p, a, a, &r), "mm", "mm", "cannot be multiplied (3x5 and 3x5)");
        FAILS(p, e2e_mm(p, a, a64, &r), "mm", "mm", "same dtype");
        FAILS(p, e2e_mm(p, v, a, &r), "mm", "mm", "matrix");
        FAILS(p, e2e_mm(p, bl, bl2, &r), "mm", "mm", "not implemented for 'Bool'");
        FAILS(p, e2e_mm(p, NULL, a, &r), "mm", "mm", "self");
        FAILS(p, e2e_mm(p, a, NULL, &r), "mm", "mm", "mat2");
        if (p != DISPATCH) FAILS(p, e2e_mm(p, a, a64, NULL), "mm", "mm", "ret0");
        cr_assert_null(r);
    }
    del(e1), del(e2), del(a), del(a64), del(v), del(bl), del(bl2);
    e2e_end();
}

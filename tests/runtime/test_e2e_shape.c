/* tests/runtime/test_e2e_shape.c: end to end (direct shim, aten shim, dispatcher; see
 * test_e2e.h) for the view and shape ops view, reshape, transpose.int, permute, narrow,
 * select.int, squeeze.dim, unsqueeze, flatten.using_ints, pad, and the allocations
 * empty_like, new_empty, new_zeros. Views are checked element by element: each element
 * of the result must be the very memory of the input element the op maps it to. */
#include "test_e2e.h"

/* Maps an index of the result to the index of the input it comes from. */
typedef void (*index_map)(const int64_t *ridx, int64_t *aidx, const int64_t *arg);

/* Every element of r against a: the same address when alias, else the same value. */
static void check_map(int p, const char *op, T a, T r, bool alias, index_map map,
                      const int64_t *arg) {
    cr_assert_eq(dtype_of(r), dtype_of(a), "[%s] %s: dtype", path_name[p], op);
    int64_t nd = ndim_of(r), *s = sizes_of(r), idx[MAXD] = {0}, src[MAXD] = {0};
    /* a tensor without elements has no data pointer (NULL, as PyTorch's): nothing to share */
    if (numel_of(r) == 0) return;
    cr_assert_eq(same_storage(a, r), alias, "[%s] %s: shares storage %d, want %d", path_name[p], op,
                 same_storage(a, r), alias);
    do {
        map(idx, src, arg);
        if (alias)
            cr_assert_eq(elem_addr(r, idx), elem_addr(a, src), "[%s] %s: element is not a view",
                         path_name[p], op);
        else
            cr_assert_eq(get(r, idx), get(a, src), "[%s] %s: value", path_name[p], op);
    } while (step(nd, s, idx));
}

/* view / reshape / flatten keep the row-major order: result element i is input element
 * i. arg: the input's sizes, ndim first. */
static int64_t g_rsizes[MAXD], g_rnd; /* the result's shape, for the linear index */
static void map_rowmajor_src(const int64_t *ridx, int64_t *aidx, const int64_t *arg) {
    int64_t lin = 0;
    for (int64_t d = 0; d < g_rnd; d++) lin = lin * g_rsizes[d] + ridx[d];
    for (int64_t d = arg[0] - 1; d >= 0; d--) {
        aidx[d] = lin % arg[1 + d];
        lin /= arg[1 + d];
    }
}
static void check_rowmajor(int p, const char *op, T a, T r, bool alias) {
    int64_t arg[MAXD + 1];
    arg[0] = ndim_of(a);
    memcpy(arg + 1, sizes_of(a), (size_t)arg[0] * sizeof *arg);
    g_rnd = ndim_of(r);
    memcpy(g_rsizes, sizes_of(r), (size_t)g_rnd * sizeof *g_rsizes);
    check_map(p, op, a, r, alias, map_rowmajor_src, arg);
}

Test(e2e_view, view_reshape_flatten) {
    e2e_begin();
    int64_t s[] = {2, 3, 4};
    int32_t dts[] = {F32, F64, I64, BOOL};
    int64_t v46[] = {4, 6}, vm2[] = {-1, 2}, v24[] = {24}, split[] = {2, 3, 2, 2};
    int64_t w46[] = {4, 6}, w212[] = {2, 12}, w24[] = {24}, w3[] = {2, 3, 2, 2};
    for (int p = 0; p < NPATHS; p++)
        for (size_t k = 0; k < 4; k++)
            for (int l = 0; l < NLAYS; l++) {
                T a = make(dts[k], l, 3, s, (int)k), r = NULL;
                /* view: always possible on contiguous input; splitting a dim always is */
                OK(e2e_view(p, a, split, 4, &r));
                shape_is(r, 4, w3, "view");
                check_rowmajor(p, "view split", a, r, true);
                del(r);
                if (l == CONTIG) {
                    OK(e2e_view(p, a, v46, 2, &r));
                    shape_is(r, 2, w46, "view");
                    check_rowmajor(p, "view", a, r, true);
                    del(r);
                    OK(e2e_view(p, a, vm2, 2, &r));
                    int64_t w[] = {12, 2};
                    shape_is(r, 2, w, "view -1");
                    check_rowmajor(p, "view -1", a, r, true);
                    del(r);
                } else {
                    r = NULL;
                    FAILS(p, e2e_view(p, a, v24, 1, &r), "view", "view", "not compatible");
                    cr_assert_null(r);
                }
                /* reshape: a view when possible, else a copy; values in row-major order */
                OK(e2e_reshape(p, a, v24, 1, &r));
                shape_is(r, 1, w24, "reshape");
                check_rowmajor(p, "reshape", a, r, l == CONTIG);
                del(r);
                OK(e2e_reshape(p, a, split, 4, &r));
                check_rowmajor(p, "reshape split", a, r, true);
                del(r);
                int64_t m1[] = {2, -1};
                OK(e2e_reshape(p, a, m1, 2, &r));
                shape_is(r, 2, w212, "reshape -1");
                check_rowmajor(p, "reshape -1", a, r, l == CONTIG);
                del(r);
                /* flatten: merges dims start..end (a view when possible) */
                OK(e2e_flatten(p, a, 1, -1, &r));
                shape_is(r, 2, w212, "flatten");
                check_rowmajor(p, "flatten", a, r, l == CONTIG);
                del(r);
                OK(e2e_flatten(p, a, 0, 0, &r)); /* a single dim: the input's view */
                shape_is(r, 3, s, "flatten(0, 0)");
                check_rowmajor(p, "flatten(0, 0)", a, r, true);
                del(r);
                del(a);
            }
    /* zero-dim input */
    T z = make(F64, CONTIG, 0, NULL, 1), r = NULL;
    int64_t one[] = {1};
    for (int p = 0; p < NPATHS; p++) {
        OK(e2e_flatten(p, z, 0, -1, &r));
        shape_is(r, 1, one, "flatten 0-dim");
        cr_assert_eq(get(r, (int64_t[]){0}), get(z, NULL));
        del(r);
        OK(e2e_view(p, z, one, 1, &r));
        shape_is(r, 1, one, "view 0-dim");
        del(r);
    }
    T a = make(F32, CONTIG, 3, s, 0);
    int64_t bad[] = {5, 5}, two_infer[] = {-1, -1}, neg[] = {-2, 12};
    for (int p = 0; p < NPATHS; p++) {
        r = NULL;
        FAILS(p, e2e_view(p, a, bad, 2, &r), "view", "view", "invalid for input of size 24");
        FAILS(p, e2e_reshape(p, a, bad, 2, &r), "reshape", "reshape", "[5, 5]");
        FAILS(p, e2e_reshape(p, a, two_infer, 2, &r), "reshape", "reshape", "only one dimension");
        FAILS(p, e2e_view(p, a, neg, 2, &r), "view", "view", "invalid shape dimension -2");
        FAILS(p, e2e_view(p, NULL, bad, 2, &r), "view", "view", NULL_SELF(p));
        FAILS(p, e2e_flatten(p, a, 2, 1, &r), "flatten.using_ints", "flatten_using_ints",
              "start_dim");
        FAILS(p, e2e_flatten(p, a, 0, 3, &r), "flatten.using_ints", "flatten_using_ints",
              "Dimension out of range");
        if (p != DISPATCH) {
            FAILS(p, e2e_view(p, a, NULL, 2, &r), "view", "view", "size");
            FAILS(p, e2e_reshape(p, a, bad, 2, NULL), "reshape", "reshape", "ret0");
        }
        cr_assert_null(r);
    }
    del(z), del(a);
    e2e_end();
}

/* ---- transpose, permute ----------------------------------------------------------------- */
/* arg: the permutation: result dim d is input dim arg[d] (ndim 3). */
static void map_perm(const int64_t *ridx, int64_t *aidx, const int64_t *arg) {
    for (int d = 0; d < 3; d++) aidx[arg[d]] = ridx[d];
}

Test(e2e_view, transpose_permute) {
    e2e_begin();
    int64_t s[] = {2, 3, 4};
    int32_t dts[] = {F32, F64, I64, BOOL};
    int64_t perms[][3] = {{2, 0, 1}, {1, 2, 0}, {0, 1, 2}, {2, 1, 0}};
    int64_t given[][3] = {{-1, 0, 1}, {1, -1, 0}, {0, 1, 2}, {2, 1, -3}}; /* as passed */
    for (int p = 0; p < NPATHS; p++)
        for (size_t k = 0; k < 4; k++)
            for (int l = 0; l <= NLAYS; l++) {
                T a = l == NLAYS ? make_bcast(dts[k], 3, s, 1, (int)k)
                                 : make(dts[k], l, 3, s, (int)k);
                T r = NULL;
                for (int q = 0; q < 4; q++) {
                    OK(e2e_permute(p, a, given[q], 3, &r));
                    int64_t want[3] = {s[perms[q][0]], s[perms[q][1]], s[perms[q][2]]};
                    shape_is(r, 3, want, "permute");
                    check_map(p, "permute", a, r, true, map_perm, perms[q]);
                    del(r);
                }
                int64_t t02[] = {2, 1, 0}, t12[] = {0, 2, 1};
                OK(e2e_transpose(p, a, 0, -1, &r));
                check_map(p, "transpose(0, -1)", a, r, true, map_perm, t02);
                del(r);
                OK(e2e_transpose(p, a, 2, 1, &r));
                check_map(p, "transpose(2, 1)", a, r, true, map_perm, t12);
                del(r);
                del(a);
            }
    T a = make(F32, SLICED, 3, s, 0), r = NULL;
    int64_t dup[] = {0, 1, 1}, shortp[] = {1, 0}, oob[] = {0, 1, 3};
    for (int p = 0; p < NPATHS; p++) {
        FAILS(p, e2e_transpose(p, a, 0, 3, &r), "transpose.int", "transpose_int",
              "Dimension out of range");
        FAILS(p, e2e_transpose(p, a, -4, 0, &r), "transpose.int", "transpose_int",
              "Dimension out of range");
        FAILS(p, e2e_transpose(p, NULL, 0, 1, &r), "transpose.int", "transpose_int", NULL_SELF(p));
        FAILS(p, e2e_permute(p, a, dup, 3, &r), "permute", "permute", "duplicate dims");
        FAILS(p, e2e_permute(p, a, shortp, 2, &r), "permute", "permute", "len(dims) = 2");
        FAILS(p, e2e_permute(p, a, oob, 3, &r), "permute", "permute", "Dimension out of range");
        if (p != DISPATCH) FAILS(p, e2e_permute(p, a, dup, -1, &r), "permute", "permute", "dims");
        cr_assert_null(r);
    }
    del(a);
    e2e_end();
}

/* ---- narrow, select ---------------------------------------------------------------------- */
/* narrow: arg = {dim, start}: shift that dim. */
static void map_narrow(const int64_t *ridx, int64_t *aidx, const int64_t *arg) {
    for (int d = 0; d < 3; d++) aidx[d] = ridx[d] + (d == arg[0] ? arg[1] : 0);
}
/* select: arg = {dim, index}: insert the index at dim (a 3-D input). */
static void map_select(const int64_t *ridx, int64_t *aidx, const int64_t *arg) {
    for (int d = 0, j = 0; d < 3; d++) aidx[d] = d == arg[0] ? arg[1] : ridx[j++];
}

Test(e2e_view, narrow_select) {
    e2e_begin();
    int64_t s[] = {2, 3, 4};
    int32_t dts[] = {F32, F64, I64, BOOL};
    for (int p = 0; p < NPATHS; p++)
        for (size_t k = 0; k < 4; k++)
            for (int l = 0; l <= NLAYS; l++) {
                T a = l == NLAYS ? make_bcast(dts[k], 3, s, 2, (int)k)
                                 : make(dts[k], l, 3, s, (int)k);
                T r = NULL;
                /* {dim passed, start passed, length, dim, start} */
                int64_t cases[][5] = {{1, 1, 2, 1, 1},
                                      {-1, 0, 4, 2, 0},
                                      {2, -3, 2, 2, 1},
                                      {0, 1, 1, 0, 1},
                                      {2, 4, 0, 2, 4}};
                for (int c = 0; c < 5; c++) {
                    OK(e2e_narrow(p, a, cases[c][0], cases[c][1], cases[c][2], &r));
                    int64_t want[3] = {s[0], s[1], s[2]};
                    want[cases[c][3]] = cases[c][2];
                    shape_is(r, 3, want, "narrow");
                    check_map(p, "narrow", a, r, true, map_narrow, cases[c] + 3);
                    del(r);
                }
                /* {dim passed, index passed, dim, index} */
                int64_t sel[][4] = {{0, 1, 0, 1}, {1, -1, 1, 2}, {-1, 3, 2, 3}, {2, -4, 2, 0}};
                for (int c = 0; c < 4; c++) {
                    OK(e2e_select(p, a, sel[c][0], sel[c][1], &r));
                    cr_assert_eq(ndim_of(r), 2);
                    check_map(p, "select", a, r, true, map_select, sel[c] + 2);
                    del(r);
                }
                del(a);
            }
    T a = make(F32, TRANSPOSED, 3, s, 0), z = make(F32, CONTIG, 0, NULL, 0), r = NULL;
    for (int p = 0; p < NPATHS; p++) {
        FAILS(p, e2e_narrow(p, a, 1, 2, 2, &r), "narrow", "narrow", "exceeds dimension size");
        FAILS(p, e2e_narrow(p, a, 1, 0, -1, &r), "narrow", "narrow", "non-negative");
        FAILS(p, e2e_narrow(p, a, 3, 0, 1, &r), "narrow", "narrow", "Dimension out of range");
        FAILS(p, e2e_narrow(p, a, 2, -5, 1, &r), "narrow", "narrow", "start out of range");
        FAILS(p, e2e_narrow(p, z, 0, 0, 1, &r), "narrow", "narrow", "0-dim");
        FAILS(p, e2e_narrow(p, NULL, 0, 0, 1, &r), "narrow", "narrow", NULL_SELF(p));
        FAILS(p, e2e_select(p, a, 1, 3, &r), "select.int", "select_int", "index 3 out of range");
        FAILS(p, e2e_select(p, a, 0, -3, &r), "select.int", "select_int", "out of range");
        FAILS(p, e2e_select(p, a, -4, 0, &r), "select.int", "select_int", "Dimension out of range");
        FAILS(p, e2e_select(p, z, 0, 0, &r), "select.int", "select_int", "0-dim");
        if (p != DISPATCH)
            FAILS(p, e2e_select(p, a, 0, 0, NULL), "select.int", "select_int", "ret0");
        cr_assert_null(r);
    }
    del(a), del(z);
    e2e_end();
}

/* ---- squeeze, unsqueeze ------------------------------------------------------------------- */
/* arg = {ndim of the result, dim removed (squeeze) or -1, dim inserted (unsqueeze) or -1} */
static void map_squeeze(const int64_t *ridx, int64_t *aidx, const int64_t *arg) {
    int64_t j = 0;
    if (arg[1] >= 0) { /* squeeze: the input has one more dim, of size 1, at arg[1] */
        for (int64_t d = 0; d < arg[0] + 1; d++) aidx[d] = d == arg[1] ? 0 : ridx[j++];
    } else if (arg[2] >= 0) { /* unsqueeze: skip the inserted dim */
        for (int64_t d = 0; d < arg[0]; d++)
            if (d != arg[2]) aidx[j++] = ridx[d];
    } else {
        for (int64_t d = 0; d < arg[0]; d++) aidx[d] = ridx[d];
    }
}

Test(e2e_view, squeeze_unsqueeze) {
    e2e_begin();
    int64_t s[] = {2, 1, 3};
    int32_t dts[] = {F32, F64, I64, BOOL};
    for (int p = 0; p < NPATHS; p++)
        for (size_t k = 0; k < 4; k++)
            for (int l = 0; l <= NLAYS; l++) {
                T a = l == NLAYS ? make_bcast(dts[k], 3, s, 2, (int)k)
                                 : make(dts[k], l, 3, s, (int)k);
                T r = NULL;
                int64_t w23[] = {2, 3};
                OK(e2e_squeeze(p, a, 1, &r));
                shape_is(r, 2, w23, "squeeze(1)");
                check_map(p, "squeeze(1)", a, r, true, map_squeeze, (int64_t[]){2, 1, -1});
                del(r);
                OK(e2e_squeeze(p, a, -2, &r));
                shape_is(r, 2, w23, "squeeze(-2)");
                del(r);
                OK(e2e_squeeze(p, a, 0, &r)); /* size 2: unchanged */
                shape_is(r, 3, s, "squeeze(0)");
                check_map(p, "squeeze(0)", a, r, true, map_squeeze, (int64_t[]){3, -1, -1});
                del(r);
                int64_t ins[][2] = {{0, 0}, {3, 3}, {-1, 3}, {-4, 0}, {2, 2}};
                for (int c = 0; c < 5; c++) {
                    OK(e2e_unsqueeze(p, a, ins[c][0], &r));
                    int64_t want[4], j = 0;
                    for (int64_t d = 0; d < 4; d++) want[d] = d == ins[c][1] ? 1 : s[j++];
                    shape_is(r, 4, want, "unsqueeze");
                    check_map(p, "unsqueeze", a, r, true, map_squeeze,
                              (int64_t[]){4, -1, ins[c][1]});
                    del(r);
                }
                del(a);
            }
    T a = make(F32, SLICED, 3, s, 0), z = make(I64, CONTIG, 0, NULL, 3), r = NULL;
    for (int p = 0; p < NPATHS; p++) {
        OK(e2e_squeeze(p, z, -1, &r)); /* a 0-dim tensor squeezes to itself */
        cr_assert_eq(ndim_of(r), 0);
        cr_assert_eq(elem_addr(r, NULL), elem_addr(z, NULL));
        del(r);
        OK(e2e_unsqueeze(p, z, 0, &r));
        int64_t one[] = {1};
        shape_is(r, 1, one, "unsqueeze 0-dim");
        del(r);
        r = NULL;
        FAILS(p, e2e_squeeze(p, a, 3, &r), "squeeze.dim", "squeeze_dim", "Dimension out of range");
        FAILS(p, e2e_squeeze(p, a, -4, &r), "squeeze.dim", "squeeze_dim", "Dimension out of range");
        FAILS(p, e2e_unsqueeze(p, a, 4, &r), "unsqueeze", "unsqueeze", "Dimension out of range");
        FAILS(p, e2e_unsqueeze(p, a, -5, &r), "unsqueeze", "unsqueeze", "Dimension out of range");
        FAILS(p, e2e_squeeze(p, NULL, 0, &r), "squeeze.dim", "squeeze_dim", NULL_SELF(p));
        FAILS(p, e2e_unsqueeze(p, NULL, 0, &r), "unsqueeze", "unsqueeze", NULL_SELF(p));
        cr_assert_null(r);
    }
    del(a), del(z);
    e2e_end();
}

/* ---- pad ------------------------------------------------------------------------------------ */
static void check_pad(int p, T a, const int64_t *pad, int64_t npad, double *value) {
    T r = NULL;
    AOTITorchError e = e2e_pad(p, a, pad, npad, "constant", value, &r);
    cr_assert_eq(e, AOTI_TORCH_SUCCESS, "[%s] pad: %s", path_name[p], torch_exception_get_what());
    int64_t nd = ndim_of(a), *sz = sizes_of(a), lo[MAXD] = {0}, shape[MAXD] = {0};
    for (int64_t d = 0; d < nd; d++) {
        int64_t k = nd - 1 - d; /* pad pairs start from the last dim */
        lo[d] = k < npad / 2 ? pad[2 * k] : 0;
        shape[d] = sz[d] + lo[d] + (k < npad / 2 ? pad[2 * k + 1] : 0);
    }
    shape_is(r, nd, shape, "pad");
    cr_assert_eq(dtype_of(r), dtype_of(a));
    cr_assert(!same_storage(a, r));
    int64_t idx[MAXD] = {0}, src[MAXD];
    if (numel_of(r) > 0) do {
            bool in = true;
            for (int64_t d = 0; d < nd; d++) {
                src[d] = idx[d] - lo[d];
                in = in && src[d] >= 0 && src[d] < sz[d];
            }
            double want = in ? get(a, src) : cast(value ? *value : 0, dtype_of(a));
            cr_assert_eq(get(r, idx), want, "[%s] pad", path_name[p]);
        } while (step(nd, shape, idx));
    del(r);
}

Test(e2e_pad, constant) {
    e2e_begin();
    int64_t s[] = {2, 3, 4};
    int64_t p1[] = {1, 2}, p2[] = {1, 1, 0, 2}, p3[] = {-1, 1, 2, -2, 1, 0}, crop[] = {-2, -2};
    double seven = 7, half = -0.5;
    int32_t dts[] = {F32, F64, I64, BOOL};
    for (int p = 0; p < NPATHS; p++)
        for (size_t k = 0; k < 4; k++)
            for (int l = 0; l <= NLAYS; l++) {
                T a = l == NLAYS ? make_bcast(dts[k], 3, s, 0, 1) : make(dts[k], l, 3, s, 1);
                check_pad(p, a, p1, 2, NULL);
                check_pad(p, a, p2, 4, &seven);
                check_pad(p, a, p3, 6, &half);
                check_pad(p, a, crop, 2, &seven);
                check_pad(p, a, NULL, 0, NULL);
                del(a);
            }
    T a = make(F32, CONTIG, 3, s, 1), r = NULL;
    int64_t odd[] = {1, 1, 1}, toolong[8] = {0}, tooneg[] = {-3, -2}, toobig[] = {4, 0};
    for (int p = 0; p < NPATHS; p++) {
        FAILS(p, e2e_pad(p, a, odd, 3, "constant", NULL, &r), "pad", "pad", "divisible by 2");
        FAILS(p, e2e_pad(p, a, toolong, 8, "constant", NULL, &r), "pad", "pad", "Padding length");
        FAILS(p, e2e_pad(p, a, tooneg, 2, "constant", NULL, &r), "pad", "pad", "negative");
        FAILS(p, e2e_pad(p, a, toobig, 2, "reflect", NULL, &r), "pad", "pad",
              "should be less than");
        FAILS(p, e2e_pad(p, a, p1, 2, "bogus", NULL, &r), "pad", "pad", "bogus");
        FAILS(p, e2e_pad(p, NULL, p1, 2, "constant", NULL, &r), "pad", "pad", NULL_SELF(p));
        if (p != DISPATCH) {
            FAILS(p, e2e_pad(p, a, p1, 2, NULL, NULL, &r), "pad", "pad", "mode");
            FAILS(p, e2e_pad(p, a, NULL, 2, "constant", NULL, &r), "pad", "pad", "pad");
        }
        cr_assert_null(r);
    }
    del(a);
    e2e_end();
}

/* ---- empty_like, new_empty, new_zeros ---------------------------------------------------- */
Test(e2e_alloc, empty_like) {
    e2e_begin();
    int64_t s[] = {3, 4};
    int32_t dts[] = {F32, F64, I64, BOOL};
    int32_t cf = aoti_torch_memory_format_contiguous_format(),
            strided = aoti_torch_layout_strided();
    int32_t cpu = CPU, no = 0;
    for (int p = 0; p < NPATHS; p++)
        for (size_t k = 0; k < 4; k++)
            for (int l = 0; l < NLAYS; l++) {
                T a = make(dts[k], l, 2, s, 1), r = NULL;
                OK(e2e_empty_like(p, a, NULL, NULL, NULL, -1, NULL, NULL, &r));
                shape_is(r, 2, s, "empty_like");
                cr_assert_eq(dtype_of(r), dts[k]);
                cr_assert(!same_storage(a, r));
                /* preserve: dense inputs keep their strides, others get contiguous ones */
                cr_assert_eq(strides_of(r)[0], l == TRANSPOSED ? 1 : 4, "[%s] empty_like %s",
                             path_name[p], lay_name[l]);
                del(r);
                int32_t other = dts[(k + 1) % 4];
                OK(e2e_empty_like(p, a, &other, &strided, &cpu, 0, &no, &cf, &r));
                shape_is(r, 2, s, "empty_like");
                cr_assert_eq(dtype_of(r), other);
                cr_assert(is_contig(r));
                del(r);
                del(a);
            }
    T a = make(F32, TRANSPOSED, 2, s, 1), r = NULL;
    int32_t coo = aoti_torch_layout_sparse_coo(), bad_dt = 99, yes = 1;
    int32_t cl = aoti_torch_memory_format_channels_last();
    for (int p = 0; p < NPATHS; p++) {
        FAILS(p, e2e_empty_like(p, a, NULL, &coo, NULL, -1, NULL, NULL, &r), "empty_like",
              "empty_like", "layout");
        FAILS(p, e2e_empty_like(p, a, &bad_dt, NULL, NULL, -1, NULL, NULL, &r), "empty_like",
              "empty_like", "99");
        FAILS(p, e2e_empty_like(p, a, NULL, NULL, NULL, -1, &yes, NULL, &r), "empty_like",
              "empty_like", "pin_memory");
        FAILS(p, e2e_empty_like(p, a, NULL, NULL, NULL, -1, NULL, &cl, &r), "empty_like",
              "empty_like", "rank 4");
        FAILS(p, e2e_empty_like(p, NULL, NULL, NULL, NULL, -1, NULL, NULL, &r), "empty_like",
              "empty_like", NULL_SELF(p));
        if (p != DISPATCH)
            FAILS(p, e2e_empty_like(p, a, NULL, NULL, NULL, -1, NULL, NULL, NULL), "empty_like",
                  "empty_like", "ret0");
        cr_assert_null(r);
    }
    del(a);
    e2e_end();
}

Test(e2e_alloc, new_empty_new_zeros) {
    e2e_begin();
    int64_t s[] = {3, 4}, ns[] = {2, 5, 3};
    int32_t dts[] = {F32, F64, I64, BOOL};
    int32_t cpu = CPU;
    for (int p = 0; p < NPATHS; p++)
        for (size_t k = 0; k < 4; k++)
            for (int l = 0; l < NLAYS; l++) {
                T a = make(dts[k], l, 2, s, 1), r = NULL;
                OK(e2e_new_empty(p, a, ns, 3, NULL, &r));
                shape_is(r, 3, ns, "new_empty");
                cr_assert_eq(dtype_of(r), dts[k]);
                cr_assert(is_contig(r));
                cr_assert(!same_storage(a, r));
                del(r);
                int32_t other = dts[(k + 1) % 4];
                OK(e2e_new_empty(p, a, ns, 3, &other, &r));
                cr_assert_eq(dtype_of(r), other);
                del(r);
                for (int o = 0; o < 2; o++) {
                    OK(e2e_new_zeros(p, a, ns, 3, o ? &other : NULL, o ? &cpu : NULL, &r));
                    shape_is(r, 3, ns, "new_zeros");
                    cr_assert_eq(dtype_of(r), o ? other : dts[k]);
                    cr_assert(!same_storage(a, r));
                    double *v = vals(r);
                    for (int i = 0; i < 30; i++)
                        cr_assert_eq(v[i], 0.0, "[%s] new_zeros [%d]", path_name[p], i);
                    free(v), del(r);
                }
                OK(e2e_new_zeros(p, a, ns, 0, NULL, NULL, &r)); /* size []: a 0-dim zero */
                cr_assert_eq(ndim_of(r), 0);
                cr_assert_eq(get(r, NULL), 0.0);
                del(r);
                del(a);
            }
    T a = make(F32, CONTIG, 2, s, 1), r = NULL;
    int64_t negs[] = {2, -1};
    int32_t bad_dt = 99;
    for (int p = 0; p < NPATHS; p++) {
        FAILS(p, e2e_new_empty(p, a, negs, 2, NULL, &r), "new_empty", "new_empty", "negative");
        FAILS(p, e2e_new_zeros(p, a, negs, 2, NULL, NULL, &r), "new_zeros", "new_zeros",
              "negative");
        FAILS(p, e2e_new_zeros(p, a, ns, 3, &bad_dt, NULL, &r), "new_zeros", "new_zeros", "99");
        FAILS(p, e2e_new_empty(p, NULL, ns, 3, NULL, &r), "new_empty", "new_empty", NULL_SELF(p));
        if (p != DISPATCH) {
            FAILS(p, e2e_new_zeros(p, a, NULL, 3, NULL, NULL, &r), "new_zeros", "new_zeros",
                  "size");
            FAILS(p, e2e_new_empty(p, a, ns, 3, NULL, NULL), "new_empty", "new_empty", "ret0");
        }
        cr_assert_null(r);
    }
    del(a);
    e2e_end();
}

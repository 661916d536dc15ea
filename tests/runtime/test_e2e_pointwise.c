/* tests/runtime/test_e2e_pointwise.c: end to end (direct shim, aten shim, dispatcher;
 * see test_e2e.h) for add.Tensor, sub.Tensor, mul.Tensor, div.Tensor, add.Scalar, neg,
 * relu, exp, fill_.Scalar, zero_, copy_, clone, contiguous and to.dtype. */
#include "contig.h"
#include "test_e2e.h"

/* ---- binary ops ---------------------------------------------------------------------- */
static double ref_bop(bop op, double x, double y, double alpha) {
    switch (op) {
    case ADD: return x + alpha * y;
    case SUB: return x - alpha * y;
    case MUL: return x * y;
    default: return x / y;
    }
}

/* Runs op(a, b) through path p; checks dtype, the broadcast shape and every value. The C
 * shims (direct, aten) pass alpha as a double, a floating Scalar, which PyTorch's
 * alpha_check refuses for an integral or bool result; the dispatcher path passes an
 * integral alpha as an int Scalar (test_e2e.h, sv_scalar). */
static void check_bop(int p, bop op, T a, T b, double alpha, int32_t want_dt, const char *ctx) {
    T r = NULL;
    AOTITorchError e = e2e_binop(p, op, a, b, alpha, &r);
    if (p != DISPATCH && (op == ADD || op == SUB) && !is_fp(want_dt)) {
        cr_assert_eq(e, AOTI_TORCH_FAILURE, "[%s] %s %s: a floating alpha was accepted",
                     path_name[p], bop_key[op], ctx);
        cr_assert(strstr(torch_exception_get_what(), "alpha must not be a floating point"),
                  "[%s] %s %s: %s", path_name[p], bop_key[op], ctx, torch_exception_get_what());
        cr_assert_null(r);
        return;
    }
    cr_assert_eq(e, AOTI_TORCH_SUCCESS, "[%s] %s %s: %s", path_name[p], bop_key[op], ctx,
                 torch_exception_get_what());
    cr_assert_eq(dtype_of(r), want_dt, "[%s] %s %s: dtype %d, want %d", path_name[p], bop_key[op],
                 ctx, dtype_of(r), want_dt);
    int64_t na = ndim_of(a), nb = ndim_of(b), n = na > nb ? na : nb, shape[MAXD] = {0};
    int64_t *sa = sizes_of(a), *sb = sizes_of(b);
    for (int64_t d = 0; d < n; d++) {
        int64_t x = d >= n - na ? sa[d - (n - na)] : 1, y = d >= n - nb ? sb[d - (n - nb)] : 1;
        shape[d] = x == 1 ? y : x;
    }
    shape_is(r, n, shape, bop_key[op]);
    int64_t idx[MAXD] = {0}, ia[MAXD], ib[MAXD], i = 0;
    if (e2e_numel(n, shape) > 0) do {
            for (int64_t d = 0; d < na; d++) ia[d] = sa[d] == 1 ? 0 : idx[d + n - na];
            for (int64_t d = 0; d < nb; d++) ib[d] = sb[d] == 1 ? 0 : idx[d + n - nb];
            double want = cast(ref_bop(op, get(a, ia), get(b, ib), alpha), want_dt);
            close_to(get(r, idx), want, want_dt, bop_key[op], i++);
        } while (step(n, shape, idx));
    del(r);
}

Test(e2e_binary, same_dtype_every_layout_and_path) {
    e2e_begin();
    int32_t dts[] = {F32, F64, I64, BOOL};
    int64_t s[] = {3, 4};
    for (int p = 0; p < NPATHS; p++)
        for (size_t k = 0; k < 4; k++)
            for (int la = 0; la <= NLAYS; la++)
                for (int lb = 0; lb < NLAYS; lb++) {
                    int32_t dt = dts[k];
                    /* la == NLAYS: a broadcast (stride 0) input */
                    T a = la == NLAYS ? make_bcast(dt, 2, s, 0, 1) : make(dt, la, 2, s, 1);
                    T b = make(dt, lb, 2, s, 2);
                    check_bop(p, ADD, a, b, 1.0, dt, "same dtype");
                    check_bop(p, MUL, a, b, 1.0, dt, "same dtype");
                    check_bop(p, DIV, a, b, 1.0, is_fp(dt) ? dt : F32, "same dtype");
                    if (dt != BOOL) {
                        check_bop(p, ADD, b, a, 3.0, dt, "alpha 3");
                        check_bop(p, SUB, a, b, 2.0, dt, "alpha 2");
                        check_bop(p, SUB, b, a, 1.0, dt, "alpha 1");
                    }
                    if (is_fp(dt)) check_bop(p, ADD, a, b, -0.5, dt, "alpha -0.5");
                    del(a), del(b);
                }
    e2e_end();
}

Test(e2e_binary, broadcasting_and_promotion) {
    e2e_begin();
    int64_t s34[] = {3, 4}, s4[] = {4}, s31[] = {3, 1}, s14[] = {1, 4}, s234[] = {2, 3, 4};
    for (int p = 0; p < NPATHS; p++)
        for (int l = 0; l < NLAYS; l++) {
            T a = make(F32, l, 2, s34, 1), b = make(F32, l, 1, s4, 2);
            T c = make(F64, l, 2, s31, 3), d = make(I64, l, 2, s14, 4);
            T e = make(I64, l, 3, s234, 5), f = make(BOOL, l, 2, s34, 6);
            T g = make_bcast(F64, 3, s234, 1, 7);
            check_bop(p, ADD, a, b, 1.0, F32, "[3,4]+[4]");
            check_bop(p, MUL, b, a, 1.0, F32, "[4]*[3,4]");
            check_bop(p, SUB, c, d, 1.5, F64, "[3,1]f64-[1,4]i64");
            check_bop(p, ADD, e, a, 1.0, F32, "[2,3,4]i64+[3,4]f32");
            check_bop(p, DIV, d, e, 1.0, F32, "i64/i64");
            check_bop(p, ADD, f, d, 2.0, I64, "bool+i64");
            check_bop(p, MUL, f, c, 1.0, F64, "bool*f64");
            check_bop(p, ADD, f, f, 1.0, BOOL, "bool+bool");
            check_bop(p, MUL, g, e, 1.0, F64, "stride-0 f64 * i64");
            check_bop(p, SUB, a, g, 1.0, F64, "f32 - stride-0 f64");
            del(a), del(b), del(c), del(d), del(e), del(f), del(g);
        }
    e2e_end();
}

Test(e2e_binary, bad_inputs) {
    e2e_begin();
    int64_t s23[] = {2, 3}, s4[] = {4};
    T a = make(F32, CONTIG, 2, s23, 1), b = make(F32, TRANSPOSED, 1, s4, 2);
    T i = make(I64, SLICED, 2, s23, 1), bl = make(BOOL, CONTIG, 2, s23, 1), c = NULL;
    OK(aoti_torch_empty_strided(2, s23, shimrt_test_strides(2, s23), aoti_torch_dtype_complex32(),
                                CPU, 0, &c));
    for (int p = 0; p < NPATHS; p++)
        for (int op = 0; op < 4; op++) {
            T r = NULL;
            FAILS(p, e2e_binop(p, op, a, b, 1.0, &r), bop_key[op], bop_cname[op], "broadcast");
            FAILS(p, e2e_binop(p, op, b, a, 1.0, &r), bop_key[op], bop_cname[op], "[4]");
            /* (PyTorch 2.15's CPU adds, subtracts and multiplies complex32, not divides) */
            if (op == DIV)
                FAILS(p, e2e_binop(p, op, c, c, 1.0, &r), bop_key[op], bop_cname[op],
                      "ComplexHalf");
            FAILS(p, e2e_binop(p, op, NULL, a, 1.0, &r), bop_key[op], bop_cname[op], "self");
            FAILS(p, e2e_binop(p, op, a, NULL, 1.0, &r), bop_key[op], bop_cname[op], "other");
            if (p != DISPATCH)
                FAILS(p, e2e_binop(p, op, a, a, 1.0, NULL), bop_key[op], bop_cname[op], "ret0");
            if (op == ADD || op == SUB)
                FAILS(p, e2e_binop(p, op, i, i, 1.5, &r), bop_key[op], bop_cname[op], "alpha");
            if (op == SUB)
                FAILS(p, e2e_binop(p, op, bl, a, 1.0, &r), bop_key[op], bop_cname[op], "bool");
            cr_assert_null(r, "[%s] %s: a failed call set ret0", path_name[p], bop_key[op]);
        }
    /* a freed handle is reported, not dereferenced */
    T gone = make(F32, CONTIG, 2, s23, 1), r = NULL;
    del(gone);
    for (int p = 0; p < NPATHS; p++) {
        FAILS(p, e2e_binop(p, ADD, gone, a, 1.0, &r), "add.Tensor", "add_Tensor", "freed");
        FAILS(p, e2e_binop(p, MUL, a, gone, 1.0, &r), "mul.Tensor", "mul_Tensor", "freed");
        cr_assert_null(r);
    }
    del(a), del(b), del(i), del(bl), del(c);
    e2e_end();
}

/* ---- add.Scalar ------------------------------------------------------------------------- */
/* want_dt: the result dtype of the dispatcher path, whose integral Scalars are ints; the C
 * shims' Scalars are floating, so an integral or bool self gives float32 there. */
static void check_add_scalar(int p, T a, double other, double alpha, int32_t want_dt) {
    T r = NULL;
    if (p != DISPATCH && !is_fp(dtype_of(a))) want_dt = F32;
    AOTITorchError e = e2e_add_scalar(p, a, other, alpha, &r);
    cr_assert_eq(e, AOTI_TORCH_SUCCESS, "[%s] add.Scalar: %s", path_name[p],
                 torch_exception_get_what());
    cr_assert_eq(dtype_of(r), want_dt, "[%s] add.Scalar(%g, %g): dtype %d, want %d", path_name[p],
                 other, alpha, dtype_of(r), want_dt);
    shape_is(r, ndim_of(a), sizes_of(a), "add.Scalar");
    double *va = vals(a), *vr = vals(r);
    for (int64_t i = 0; i < numel_of(a); i++)
        close_to(vr[i], cast(va[i] + alpha * other, want_dt), want_dt, "add.Scalar", i);
    free(va), free(vr), del(r);
}

Test(e2e_add_scalar, dtypes_layouts_paths) {
    e2e_begin();
    int64_t s[] = {2, 3, 4};
    for (int p = 0; p < NPATHS; p++)
        for (int l = 0; l <= NLAYS; l++) {
            T f = l == NLAYS ? make_bcast(F32, 3, s, 2, 1) : make(F32, l, 3, s, 1);
            T d = l == NLAYS ? make_bcast(F64, 3, s, 0, 2) : make(F64, l, 3, s, 2);
            T i = l == NLAYS ? make_bcast(I64, 3, s, 1, 3) : make(I64, l, 3, s, 3);
            T b = l == NLAYS ? make_bcast(BOOL, 3, s, 1, 4) : make(BOOL, l, 3, s, 4);
            check_add_scalar(p, f, 2.5, 1.0, F32);
            check_add_scalar(p, d, -1.25, 2.0, F64);
            check_add_scalar(p, i, 3.0, 2.0, I64);
            check_add_scalar(p, i, 2.5, 1.0, F32);
            check_add_scalar(p, b, 1.0, 1.0, I64);
            check_add_scalar(p, b, 0.5, 1.0, F32);
            del(f), del(d), del(i), del(b);
        }
    int64_t s23[] = {2, 3};
    T i = make(I64, CONTIG, 2, s23, 1), r = NULL;
    for (int p = 0; p < NPATHS; p++) {
        if (p == DISPATCH) /* int 1 keeps int64, where a floating alpha is refused */
            FAILS(p, e2e_add_scalar(p, i, 1.0, 0.5, &r), "add.Scalar", "add_Scalar", "alpha");
        else /* the C shims' 1.0 gives float32, where alpha 0.5 is fine */
            check_add_scalar(p, i, 1.0, 0.5, F32);
        FAILS(p, e2e_add_scalar(p, NULL, 1.0, 1.0, &r), "add.Scalar", "add_Scalar", NULL_SELF(p));
        if (p != DISPATCH)
            FAILS(p, e2e_add_scalar(p, i, 1.0, 1.0, NULL), "add.Scalar", "add_Scalar", "ret0");
        cr_assert_null(r);
    }
    del(i);
    e2e_end();
}

/* ---- neg, relu, exp ---------------------------------------------------------------------- */
static double ref_uop(uop op, double x) {
    return op == NEG ? -x : op == RELU ? (x > 0 ? x : 0) : exp(x);
}

Test(e2e_unary, neg_relu_exp) {
    e2e_begin();
    int64_t s[] = {2, 3, 4};
    int32_t dts[] = {F32, F64, I64, BOOL};
    for (int p = 0; p < NPATHS; p++)
        for (size_t k = 0; k < 4; k++)
            for (int l = 0; l <= NLAYS; l++) {
                int32_t dt = dts[k];
                T a = l == NLAYS ? make_bcast(dt, 3, s, 1, (int)k) : make(dt, l, 3, s, (int)k);
                for (int op = 0; op < 3; op++) {
                    T r = NULL;
                    if (dt == BOOL && op != EXP) {
                        FAILS(p, e2e_unary(p, op, a, &r), uop_key[op], uop_key[op],
                              op == NEG ? "bool" : "Boolean");
                        cr_assert_null(r);
                        continue;
                    }
                    OK(e2e_unary(p, op, a, &r));
                    int32_t want_dt = op == EXP && !is_fp(dt) ? F32 : dt;
                    cr_assert_eq(dtype_of(r), want_dt, "[%s] %s", path_name[p], uop_key[op]);
                    shape_is(r, 3, s, uop_key[op]);
                    double *va = vals(a), *vr = vals(r);
                    for (int64_t i = 0; i < 24; i++)
                        close_to(vr[i], cast(ref_uop(op, va[i]), want_dt), want_dt, uop_key[op], i);
                    free(va), free(vr), del(r);
                }
                del(a);
            }
    T a = make(F32, CONTIG, 3, s, 0), r = NULL, c = NULL;
    OK(aoti_torch_empty_strided(3, s, shimrt_test_strides(3, s), aoti_torch_dtype_complex32(), CPU,
                                0, &c));
    for (int p = 0; p < NPATHS; p++)
        for (int op = 0; op < 3; op++) {
            FAILS(p, e2e_unary(p, op, NULL, &r), uop_key[op], uop_key[op], NULL_SELF(p));
            if (op != NEG) /* (neg of complex32: PyTorch 2.15 has it) */
                FAILS(p, e2e_unary(p, op, c, &r), uop_key[op], uop_key[op],
                      op == RELU ? "complex types" : "ComplexHalf");
            if (p != DISPATCH)
                FAILS(p, e2e_unary(p, op, a, NULL), uop_key[op], uop_key[op], "ret0");
            cr_assert_null(r);
        }
    del(a), del(c);
    e2e_end();
}

/* ---- fill_, zero_: only the view's elements change ------------------------------------ */
/* Three views of a 40-element buffer: contiguous at offset 5, transposed (strides 1, 3)
 * and sliced (strides 9, 2 at offset 3). mark[i] tells whether element i is in the view. */
static T view_of(T base, int v, bool *mark) {
    int64_t s[] = {3, 4}, st[3][2] = {{4, 1}, {1, 3}, {9, 2}}, off[3] = {5, 0, 3};
    T t = NULL;
    OK(aoti_torch__reinterpret_tensor(base, 2, s, st[v], off[v], &t));
    memset(mark, 0, 40 * sizeof *mark);
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 4; j++) mark[off[v] + i * st[v][0] + j * st[v][1]] = true;
    return t;
}

Test(e2e_fill_zero, touch_only_the_view) {
    e2e_begin();
    int32_t dts[] = {F32, F64, I64, BOOL};
    int64_t total = 40;
    bool mark[40];
    for (int p = 0; p < NPATHS; p++)
        for (size_t k = 0; k < 4; k++)
            for (int v = 0; v < 3; v++) {
                int32_t dt = dts[k];
                T base = NULL;
                OK(aoti_torch_empty_strided(1, &total, shimrt_test_strides(1, &total), dt, CPU, 0,
                                            &base));
                double sentinel = dt == BOOL ? 0 : 11;
                for (int64_t i = 0; i < total; i++) set(base, (int64_t[]){i}, sentinel);
                T t = view_of(base, v, mark);
                double fv = dt == BOOL ? 1 : is_fp(dt) ? -2.75 : -7;
                OK(e2e_fill_(p, t, fv));
                for (int64_t i = 0; i < total; i++)
                    cr_assert_eq(get(base, (int64_t[]){i}), mark[i] ? fv : sentinel,
                                 "[%s] fill_ view %d dtype %d elem %lld", path_name[p], v, dt,
                                 (long long)i);
                OK(e2e_zero_(p, t));
                for (int64_t i = 0; i < total; i++)
                    cr_assert_eq(get(base, (int64_t[]){i}), mark[i] ? 0.0 : sentinel,
                                 "[%s] zero_ view %d dtype %d elem %lld", path_name[p], v, dt,
                                 (long long)i);
                del(t), del(base);
            }
    e2e_end();
}

Test(e2e_fill_zero, scalar_kinds_through_the_dispatcher) {
    e2e_begin();
    int64_t s[] = {2, 2};
    T b = make(BOOL, SLICED, 2, s, 0), f = make(F64, TRANSPOSED, 2, s, 0);
    ScalarHandle h = NULL;
    stk st = {0};
    OK(torch_new_scalar_bool(true, &h));
    put(&st, "Tensor", sv_tensor(b));
    put(&st, "Scalar", siv_from_scalar(h));
    OK(run(&st, "aten::fill_", "Scalar", RET_ALIAS, NULL));
    for (int64_t i = 0; i < 2; i++)
        for (int64_t j = 0; j < 2; j++) cr_assert_eq(get(b, (int64_t[]){i, j}), 1.0);
    stk st2 = {0};
    OK(torch_new_scalar_double(0.125, &h));
    put(&st2, "Tensor", sv_tensor(f));
    put(&st2, "Scalar", siv_from_scalar(h));
    OK(run(&st2, "aten::fill_", "Scalar", RET_ALIAS, NULL));
    for (int64_t i = 0; i < 2; i++)
        for (int64_t j = 0; j < 2; j++) cr_assert_eq(get(f, (int64_t[]){i, j}), 0.125);
    /* a complex scalar with an imaginary part cannot fill a real tensor */
    stk st3 = {0};
    OK(torch_new_scalar_complex_double(1.0, 2.0, &h));
    put(&st3, "Tensor", sv_tensor(f));
    put(&st3, "Scalar", siv_from_scalar(h));
    FAILS(DISPATCH, run(&st3, "aten::fill_", "Scalar", RET_ALIAS, NULL), "fill_.Scalar",
          "fill__Scalar", "complex");
    del(b), del(f);
    e2e_end();
}

Test(e2e_fill_zero, bad_inputs) {
    e2e_begin();
    int64_t s[] = {3}, z[] = {0, 1};
    T i = make(I64, CONTIG, 1, s, 0), f = make(F32, CONTIG, 1, s, 0), ex = NULL;
    int64_t s23[] = {2, 3};
    OK(aoti_torch__reinterpret_tensor(f, 2, s23, z, 0, &ex)); /* one element, 6 views of it */
    for (int p = 0; p < NPATHS; p++) {
        FAILS(p, e2e_fill_(p, NULL, 1.0), "fill_.Scalar", "fill__Scalar", NULL_SELF(p));
        FAILS(p, e2e_fill_(p, i, 1e30), "fill_.Scalar", "fill__Scalar", "overflow");
        FAILS(p, e2e_fill_(p, f, 1e39), "fill_.Scalar", "fill__Scalar", "overflow");
        FAILS(p, e2e_zero_(p, NULL), "zero_", "zero_", NULL_SELF(p));
        /* the failed fill left the tensor as it was */
        cr_assert_eq(get(i, (int64_t[]){1}), pat(I64, 1, 0));
    }
    del(i), del(f), del(ex);
    e2e_end();
}

/* ---- copy_ ------------------------------------------------------------------------------- */
Test(e2e_copy, layouts_dtypes_broadcast) {
    e2e_begin();
    int32_t dts[] = {F32, F64, I64, BOOL};
    int64_t s[] = {3, 4}, s4[] = {4};
    for (int p = 0; p < NPATHS; p++)
        for (size_t a = 0; a < 4; a++)
            for (size_t b = 0; b < 4; b++)
                for (int l = 0; l < NLAYS; l++) {
                    T dst = make(dts[a], l, 2, s, 0);
                    T src = make(dts[b], (l + 1) % NLAYS, 2, s, 3);
                    T row = make(dts[b], (l + 2) % NLAYS, 1, s4, 4);
                    T col = make_bcast(dts[b], 2, s, 1, 5);
                    OK(e2e_copy_(p, dst, src, 0));
                    double *vs = vals(src), *vd = vals(dst);
                    for (int i = 0; i < 12; i++)
                        cr_assert_eq(vd[i], cast(vs[i], dts[a]),
                                     "[%s] copy_ %zu<-%zu layout %s [%d]", path_name[p], a, b,
                                     lay_name[l], i);
                    free(vs), free(vd);
                    OK(e2e_copy_(p, dst, row, 1)); /* [4] broadcast over [3, 4] */
                    vs = vals(row), vd = vals(dst);
                    for (int i = 0; i < 12; i++) cr_assert_eq(vd[i], cast(vs[i % 4], dts[a]));
                    free(vs), free(vd);
                    OK(e2e_copy_(p, dst, col, 0)); /* stride-0 source */
                    for (int64_t i = 0; i < 3; i++)
                        for (int64_t j = 0; j < 4; j++)
                            cr_assert_eq(get(dst, (int64_t[]){i, j}),
                                         cast(get(col, (int64_t[]){i, 0}), dts[a]));
                    del(dst), del(src), del(row), del(col);
                }
    int64_t s3[] = {3};
    T m = make(F32, CONTIG, 2, s, 0), v3 = make(F32, CONTIG, 1, s3, 0),
      ex = make_bcast(F32, 2, s, 0, 1);
    for (int p = 0; p < NPATHS; p++) {
        FAILS(p, e2e_copy_(p, m, v3, 0), "copy_", "copy_", "broadcast");
        FAILS(p, e2e_copy_(p, ex, m, 0), "copy_", "copy_", "single memory location");
        FAILS(p, e2e_copy_(p, m, NULL, 0), "copy_", "copy_", "src");
        FAILS(p, e2e_copy_(p, NULL, m, 0), "copy_", "copy_", "self");
    }
    del(m), del(v3), del(ex);
    e2e_end();
}

/* ---- clone, contiguous ------------------------------------------------------------------- */
Test(e2e_clone_contiguous, values_strides_storage) {
    e2e_begin();
    int32_t dts[] = {F32, F64, I64, BOOL};
    int64_t s[] = {3, 4};
    int32_t cf = aoti_torch_memory_format_contiguous_format();
    for (int p = 0; p < NPATHS; p++)
        for (size_t k = 0; k < 4; k++)
            for (int l = 0; l < NLAYS; l++) {
                T a = make(dts[k], l, 2, s, (int)k), r = NULL;
                double *va = vals(a), *vr;
                OK(e2e_clone(p, a, NULL, &r)); /* preserve */
                cr_assert(!same_storage(a, r), "[%s] clone shares storage", path_name[p]);
                cr_assert_eq(dtype_of(r), dts[k]);
                if (l == TRANSPOSED)
                    cr_assert_eq(strides_of(r)[0], 1, "clone keeps the layout");
                else
                    cr_assert(is_contig(r));
                vr = vals(r);
                for (int i = 0; i < 12; i++)
                    cr_assert_eq(vr[i], va[i], "[%s] clone [%d]", path_name[p], i);
                free(vr), del(r);
                OK(e2e_clone(p, a, &cf, &r));
                cr_assert(is_contig(r));
                vr = vals(r);
                for (int i = 0; i < 12; i++) cr_assert_eq(vr[i], va[i]);
                free(vr), del(r);
                OK(e2e_contiguous(p, a, cf, &r));
                cr_assert(is_contig(r));
                cr_assert_eq(same_storage(a, r), l == CONTIG,
                             "[%s] contiguous of a %s tensor: shares storage %d", path_name[p],
                             lay_name[l], same_storage(a, r));
                vr = vals(r);
                for (int i = 0; i < 12; i++) cr_assert_eq(vr[i], va[i]);
                free(vr), del(r);
                free(va), del(a);
            }
    int64_t s4[] = {2, 3, 2, 2};
    T n4 = make(F64, SLICED, 4, s4, 1), r = NULL;
    int32_t cl = aoti_torch_memory_format_channels_last(), bad = 9;
    for (int p = 0; p < NPATHS; p++) {
        OK(e2e_contiguous(p, n4, cl, &r));
        int64_t want[] = {12, 1, 6, 3};
        for (int d = 0; d < 4; d++) cr_assert_eq(strides_of(r)[d], want[d]);
        double *vn = vals(n4), *vr = vals(r);
        for (int i = 0; i < 24; i++) cr_assert_eq(vr[i], vn[i]);
        free(vn), free(vr), del(r);
        r = NULL;
        FAILS(p, e2e_contiguous(p, n4, aoti_torch_memory_format_preserve_format(), &r),
              "contiguous", "contiguous", "preserve");
        FAILS(p, e2e_contiguous(p, n4, bad, &r), "contiguous", "contiguous", "memory format");
        FAILS(p, e2e_clone(p, n4, &bad, &r), "clone", "clone", "memory format");
        FAILS(p, e2e_clone(p, NULL, NULL, &r), "clone", "clone", NULL_SELF(p));
        FAILS(p, e2e_contiguous(p, NULL, cf, &r), "contiguous", "contiguous", NULL_SELF(p));
        if (p != DISPATCH) FAILS(p, e2e_clone(p, n4, NULL, NULL), "clone", "clone", "ret0");
        cr_assert_null(r);
    }
    del(n4);
    e2e_end();
}

/* ---- to.dtype ---------------------------------------------------------------------------- */
Test(e2e_to, conversions_alias_and_copy) {
    e2e_begin();
    int32_t dts[] = {F32, F64, I64, BOOL};
    int64_t s[] = {3, 4};
    for (int p = 0; p < NPATHS; p++)
        for (size_t a = 0; a < 4; a++)
            for (int l = 0; l <= NLAYS; l++) {
                T x = l == NLAYS ? make_bcast(dts[a], 2, s, 0, 2) : make(dts[a], l, 2, s, 2),
                  r = NULL;
                double *vx = vals(x);
                for (size_t b = 0; b < 4; b++) {
                    OK(e2e_to(p, x, dts[b], 0, 0, NULL, &r));
                    cr_assert_eq(dtype_of(r), dts[b]);
                    shape_is(r, 2, s, "to.dtype");
                    cr_assert_eq(same_storage(x, r), a == b, "[%s] to.dtype %zu->%zu aliasing",
                                 path_name[p], a, b);
                    double *vr = vals(r);
                    for (int i = 0; i < 12; i++)
                        cr_assert_eq(vr[i], cast(vx[i], dts[b]), "[%s] to %zu->%zu [%d]",
                                     path_name[p], a, b, i);
                    free(vr), del(r);
                }
                OK(e2e_to(p, x, dts[a], 0, 1, NULL, &r)); /* copy=True: a new storage */
                cr_assert(!same_storage(x, r));
                del(r);
                free(vx), del(x);
            }
    T x = make(F32, CONTIG, 2, s, 0), r = NULL;
    for (int p = 0; p < NPATHS; p++) {
        FAILS(p, e2e_to(p, x, 99, 0, 0, NULL, &r), "to.dtype", "to_dtype", "99");
        FAILS(p, e2e_to(p, NULL, F64, 0, 0, NULL, &r), "to.dtype", "to_dtype", NULL_SELF(p));
        if (p != DISPATCH)
            FAILS(p, e2e_to(p, x, F64, 0, 0, NULL, NULL), "to.dtype", "to_dtype", "ret0");
        cr_assert_null(r);
    }
    del(x);
    e2e_end();
}

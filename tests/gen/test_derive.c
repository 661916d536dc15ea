/* tests/gen/test_derive.c: the derived (`autogen`) functions (gen/derive.c).
 *
 * The expected texts and kernel names of the real-file samples are PyTorch's own: they were
 * produced by running torchgen (torchgen.gen.parse_native_yaml, from the torch 2.15.0 wheel on
 * PyPI) on that wheel's own torchgen/packaged/ATen/native/native_functions.yaml, the file these
 * tests load ($SHIMGEN_SHARED/pytorch, made by .ci/pytorch-data; the tests on it skip when it
 * is not set): 2,590 written, 3,110 in all, 520 derived, as tests/torch/derive_torchgen.sh
 * checks function by function. The inline cases are derived by hand from the rules in
 * torchgen/native_function_generation.py.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

/* ------------------------------------------------------------------ helpers */

typedef struct diag_rec {
    sg_diag_level level;
    unsigned line, col;
    char msg[512];
} diag_rec;

static diag_rec diags[64];
static int n_diags;

static void collect(void *user, sg_diag_level level, sg_loc loc, const char *message) {
    (void)user;
    if (n_diags < (int)(sizeof diags / sizeof diags[0])) {
        diags[n_diags].level = level;
        diags[n_diags].line = loc.line;
        diags[n_diags].col = loc.col;
        snprintf(diags[n_diags].msg, sizeof diags[n_diags].msg, "%s", message);
    }
    n_diags++;
}

static sg_context *ctx;

static void setup(void) {
    n_diags = 0;
    ctx = sg_context_new(collect, NULL);
    cr_assert_not_null(ctx);
}

static void teardown(void) {
    sg_context_free(ctx);
    ctx = NULL;
}

TestSuite(derive, .init = setup, .fini = teardown);

static int load_yaml(const char *yaml) {
    cr_assert_eq(sg_load_buffer(ctx, "native_functions", "t.yaml", yaml, strlen(yaml)), 0,
                 "load failed (%d diagnostics; first: %s)", n_diags, n_diags ? diags[0].msg : "");
    return sg_finalize(ctx);
}

static const sg_model *model(void) { return sg_context_model_mut(ctx); }

static size_t n_derived(void) { return model()->n_funcs - model()->n_written; }

static const sg_native_function *derived_at(size_t i) {
    cr_assert_lt(i, n_derived());
    return model()->funcs[model()->n_written + i];
}

static const sg_native_function *find_derived(const char *text) {
    const sg_model *m = model();
    for (size_t i = m->n_written; i < m->n_funcs; i++)
        if (strcmp(m->funcs[i]->func_text, text) == 0) return m->funcs[i];
    return NULL;
}

static bool has_tag(const sg_native_function *f, const char *tag) {
    for (int i = 0; i < f->n_tags; i++)
        if (strcmp(f->tags[i], tag) == 0) return true;
    return false;
}

static void assert_derived(size_t i, const char *text, const char *kernel) {
    const sg_native_function *f = derived_at(i);
    cr_assert_str_eq(f->func_text, text);
    cr_assert(f->derived);
    cr_assert_not_null(f->derived_from);
    cr_assert_eq(f->n_dispatch, 1);
    cr_assert_str_eq(f->dispatch[0].key, "CompositeExplicitAutograd");
    cr_assert_str_eq(f->dispatch[0].kernel, kernel);
    cr_assert_geq(f->n_tags, 1);
    cr_assert_str_eq(f->tags[0], "generated");
    /* the schema is a real one: it prints as its text */
    char buf[1024];
    sg_schema_print(f->func, buf, sizeof buf);
    cr_assert_str_eq(buf, text);
}

static bool has_diag(unsigned line, unsigned col, const char *needle) {
    for (int i = 0; i < n_diags && i < 64; i++)
        if (diags[i].level == SG_DIAG_ERROR && diags[i].line == line &&
            (col == 0 || diags[i].col == col) && strstr(diags[i].msg, needle))
            return true;
    return false;
}

static void dump_diags(void) {
    for (int i = 0; i < n_diags && i < 64; i++)
        fprintf(stderr, "  %u:%u: %s\n", diags[i].line, diags[i].col, diags[i].msg);
}

/* ------------------------------------------------------------------ PyTorch's file */

static int load_real(void) {
    const char *shared = getenv("SHIMGEN_SHARED");
    if (!shared || !*shared)
        cr_skip_test("SHIMGEN_SHARED not set: no PyTorch data (.ci/pytorch-data)");
    char path[4096];
    snprintf(path, sizeof path, "%s/pytorch", shared);
    cr_assert_eq(sg_load_dir(ctx, path), 0, "cannot load %s", path);
    int rc = sg_finalize(ctx);
    if (rc != 0) dump_diags();
    return rc;
}

typedef struct sample {
    const char *text;
    const char *kernel;
    bool nondeterministic_seeded;
    bool view_copy;
} sample;

/* From torchgen's own run (see the top of this file). */
static const sample samples[] = {
    {"_fused_moving_avg_obs_fq_helper.out(Tensor self, Tensor observer_on, "
     "Tensor fake_quant_on, Tensor(a!) running_min, Tensor(b!) running_max, "
     "Tensor(c!) scale, Tensor(d!) zero_point, float averaging_const, int quant_min, "
     "int quant_max, int ch_axis, bool per_row_fake_quant=False, "
     "bool symmetric_quant=False, *, Tensor(e!) out0, Tensor(f!) out1) -> (Tensor(e!), "
     "Tensor(f!))",
     "_fused_moving_avg_obs_fq_helper_out", false, false},
    {"_fused_moving_avg_obs_fq_helper_functional(Tensor self, Tensor observer_on, "
     "Tensor fake_quant_on, Tensor running_min, Tensor running_max, Tensor scale, "
     "Tensor zero_point, float averaging_const, int quant_min, int quant_max, "
     "int ch_axis, bool per_row_fake_quant=False, "
     "bool symmetric_quant=False) -> (Tensor output, Tensor mask, Tensor running_min_out, "
     "Tensor running_max_out, Tensor scale_out, Tensor zero_point_out)",
     "_fused_moving_avg_obs_fq_helper_functional", false, false},
    {"_new_zeros_with_same_feature_meta.out(Tensor self, Tensor other, *, "
     "int self_num_batch_dims=0, Tensor(a!) out) -> Tensor(a!)",
     "_new_zeros_with_same_feature_meta_out", false, false},
    {"_cudnn_ctc_loss.out(Tensor log_probs, Tensor targets, int[] input_lengths, "
     "int[] target_lengths, int blank, bool deterministic, bool zero_infinity, *, "
     "Tensor(a!) out0, Tensor(b!) out1) -> (Tensor(a!), Tensor(b!))",
     "_cudnn_ctc_loss_out", false, false},
    {"_to_copy.out(Tensor self, *, bool non_blocking=False, "
     "MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)",
     "_to_copy_out", false, false},
    {"empty_like.out(Tensor self, *, MemoryFormat? memory_format=None, "
     "Tensor(a!) out) -> Tensor(a!)",
     "empty_like_out", false, false},
    {"_efficientzerotensor.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",
     "_efficientzerotensor_out_symint", false, false},
    {"_cudnn_rnn_backward.out(Tensor input, Tensor[] weight, int weight_stride0, "
     "Tensor weight_buf, Tensor hx, Tensor? cx, Tensor output, Tensor? grad_output, "
     "Tensor? grad_hy, Tensor? grad_cy, int mode, SymInt hidden_size, SymInt proj_size, "
     "int num_layers, bool batch_first, float dropout, bool train, bool bidirectional, "
     "SymInt[] batch_sizes, Tensor? dropout_state, Tensor reserve, bool[4] output_mask, "
     "*, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2, Tensor(d!)[] out3) -> ()",
     "_cudnn_rnn_backward_out_symint", false, false},
    {"unsafe_split.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, "
     "Tensor(a!)[] out) -> ()",
     "unsafe_split_Tensor_out_symint", false, false},
    {"_add_relu.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, "
     "Tensor(a!) out) -> Tensor(a!)",
     "_add_relu_Scalar_out", false, false},
    {"cauchy.out(Tensor self, float median=0, float sigma=1, *, "
     "Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
     "cauchy_out", true, false},
    {"_foreach_add.Scalar_out(Tensor[] self, Scalar scalar, *, Tensor(a!)[] out) -> ()",
     "_foreach_add_Scalar_out", false, false},
    {"_amp_foreach_non_finite_check_and_unscale.out(Tensor[] self, Tensor(b!) found_inf, "
     "Tensor inv_scale, *, Tensor(a!)[] out) -> ()",
     "_amp_foreach_non_finite_check_and_unscale_out", false, false},
    {"bernoulli.float_out(Tensor self, float p=0.5, *, Generator? generator=None, "
     "Tensor(a!) out) -> Tensor(a!)",
     "bernoulli_float_out", true, false},
    {"set.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", "set_out", false, false},
    {"zero(Tensor self) -> Tensor", "zero", false, false},
    {"resize(Tensor self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor",
     "resize_symint", false, false},
    {"_amp_update_scale(Tensor self, Tensor growth_tracker, Tensor found_inf, "
     "float scale_growth_factor, float scale_backoff_factor, "
     "int growth_interval) -> (Tensor, Tensor growth_tracker_out)",
     "_amp_update_scale", false, false},
    {"_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, "
     "Tensor running_mean, Tensor running_var, bool training, float momentum, "
     "float eps) -> (Tensor, Tensor, Tensor, Tensor running_mean_out, "
     "Tensor running_var_out)",
     "_native_batch_norm_legit_functional", false, false},
    {"rrelu_with_noise_functional(Tensor self, Tensor noise, Scalar lower=0.125, "
     "Scalar upper=0.3333333333333333, bool training=False, "
     "Generator? generator=None) -> (Tensor, Tensor noise_out)",
     "rrelu_with_noise_functional", true, false},
    {"slice_scatter.out(Tensor self, Tensor src, int dim=0, SymInt? start=None, "
     "SymInt? end=None, SymInt step=1, *, Tensor(a!) out) -> Tensor(a!)",
     "slice_scatter_out_symint", false, true},
    {"_cudnn_rnn_flatten_weight.out(Tensor[] weight_arr, int weight_stride0, "
     "SymInt input_size, int mode, SymInt hidden_size, SymInt proj_size, int num_layers, "
     "bool batch_first, bool bidirectional, *, Tensor(a!) out) -> Tensor(a!)",
     "_cudnn_rnn_flatten_weight_out_symint", false, false},
    {"bernoulli.Tensor(Tensor self, Tensor p, *, Generator? generator=None) -> Tensor", "bernoulli",
     true, false},
};

Test(derive, real_counts) {
    cr_assert_eq(load_real(), 0);
    cr_assert_eq(model()->n_written, 2590);
    cr_assert_eq(model()->n_funcs, 3110);
    cr_assert_eq(n_derived(), 520);
    for (size_t i = 0; i < model()->n_written; i++) cr_assert(!model()->funcs[i]->derived);
    for (size_t i = 0; i < n_derived(); i++) {
        const sg_native_function *f = derived_at(i);
        cr_assert(f->derived);
        cr_assert_not_null(f->derived_from);
        cr_assert(!f->derived_from->derived);
        cr_assert_eq(f->n_dispatch, 1);
        cr_assert_str_eq(f->dispatch[0].key, "CompositeExplicitAutograd");
        cr_assert_str_eq(f->tags[0], "generated");
        cr_assert_gt(f->loc.line, 0);
    }
}

Test(derive, real_samples) {
    cr_assert_eq(load_real(), 0);
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        const sg_native_function *f = find_derived(samples[i].text);
        cr_assert_not_null(f, "not derived: %s", samples[i].text);
        cr_assert_str_eq(f->dispatch[0].kernel, samples[i].kernel, "%s", samples[i].text);
        cr_assert_eq(has_tag(f, "nondeterministic_seeded"), samples[i].nondeterministic_seeded,
                     "%s", samples[i].text);
        cr_assert_eq(has_tag(f, "view_copy"), samples[i].view_copy, "%s", samples[i].text);
        char buf[2048];
        sg_schema_print(f->func, buf, sizeof buf);
        cr_assert_str_eq(buf, samples[i].text);
    }
}

Test(derive, real_order_and_locations) {
    cr_assert_eq(load_real(), 0);
    /* torchgen's order: families in file order, out variant before functional one */
    cr_assert_str_eq(derived_at(0)->op_key, "aten._new_zeros_with_same_feature_meta.out");
    cr_assert_str_eq(derived_at(1)->op_key, "aten._cudnn_ctc_loss.out");
    size_t i = 0;
    while (i < n_derived() &&
           strcmp(derived_at(i)->op_key, "aten._fused_moving_avg_obs_fq_helper.out") != 0)
        i++;
    cr_assert_lt(i + 1, n_derived());
    const sg_native_function *out = derived_at(i), *fn = derived_at(i + 1);
    cr_assert_str_eq(fn->op_key, "aten._fused_moving_avg_obs_fq_helper_functional.default");
    cr_assert_eq(out->derived_from, fn->derived_from);
    cr_assert_str_eq(out->derived_from->func->name, "_fused_moving_avg_obs_fq_helper");
    /* `  autogen: _fused_moving_avg_obs_fq_helper_functional, _fused_..._helper.out` */
    cr_assert_eq(out->loc.line, 7835);
    cr_assert_eq(out->loc.col, 56);
    cr_assert_eq(fn->loc.line, 7835);
    cr_assert_eq(fn->loc.col, 12);
    cr_assert_eq(sg_model_find(ctx, "aten._fused_moving_avg_obs_fq_helper.out"), out);
}

Test(derive, real_derive_twice_is_stable) {
    cr_assert_eq(load_real(), 0);
    const char *first = derived_at(0)->func_text;
    cr_assert_eq(sg_derive_functions(ctx), 0);
    cr_assert_eq(model()->n_funcs, 3110);
    cr_assert_str_eq(derived_at(0)->func_text, first);
}

/* ------------------------------------------------------------------ each path, inline */

Test(derive, inplace_to_out_and_functional) {
    /* self_to_out keeps TensorOptions; the functional (a signature) drops them */
    cr_assert_eq(load_yaml("- func: foo_.Scalar(Tensor(a!) self, Scalar other, *, ScalarType? "
                           "dtype=None, Layout? layout=None, Device? device=None, bool? "
                           "pin_memory=None) -> Tensor(a!)\n"
                           "  dispatch:\n"
                           "    CPU: foo_\n"
                           "  tags: [nondeterministic_seeded, pointwise]\n"
                           "  autogen: foo.Scalar, foo.Scalar_out\n"),
                 0);
    cr_assert_eq(n_derived(), 2);
    assert_derived(0,
                   "foo.Scalar_out(Tensor self, Scalar other, *, ScalarType? dtype=None, "
                   "Layout? layout=None, Device? device=None, bool? pin_memory=None, "
                   "Tensor(a!) out) -> Tensor(a!)",
                   "foo_Scalar_out");
    assert_derived(1, "foo.Scalar(Tensor self, Scalar other) -> Tensor", "foo");
    const sg_native_function *o = derived_at(0);
    cr_assert_str_eq(o->op_key, "aten.foo.Scalar_out");
    cr_assert_eq(o->derived_from, model()->funcs[0]);
    cr_assert_eq(o->n_tags, 2);
    cr_assert_str_eq(o->tags[1], "nondeterministic_seeded");
    cr_assert_eq(o->loc.line, 5);
    cr_assert_eq(o->loc.col, 24);
    cr_assert_eq(derived_at(1)->loc.col, 12);
    cr_assert_eq(o->func->kind, SG_KIND_OUT);
    cr_assert_eq(derived_at(1)->func->kind, SG_KIND_FUNCTIONAL);
}

Test(derive, inplace_list_without_returns) {
    cr_assert_eq(load_yaml("- func: _fe_(Tensor(a!)[] self, Tensor(b!) flag, Scalar s) -> ()\n"
                           "  dispatch:\n"
                           "    CompositeExplicitAutograd: fe_\n"
                           "  autogen: _fe, _fe.out\n"),
                 0);
    cr_assert_eq(n_derived(), 2);
    assert_derived(0,
                   "_fe.out(Tensor[] self, Tensor(b!) flag, Scalar s, *, Tensor(a!)[] out) -> ()",
                   "_fe_out");
    assert_derived(
        1, "_fe(Tensor[] self, Tensor flag, Scalar s) -> (Tensor[] self_out, Tensor flag_out)",
        "_fe");
}

Test(derive, functional_to_out) {
    /* annotation letters skip the used `a` and follow the return index; a mixed return
     * list keeps only its non-tensor returns; SymInt gives `_symint` */
    cr_assert_eq(
        load_yaml(
            "- func: bar(Tensor(a) self, Tensor x, SymInt k=2) -> (Tensor r, int n, Tensor[] l)\n"
            "  dispatch:\n"
            "    CPU: bar\n"
            "  autogen: bar.out\n"
            "- func: baz(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
            "Device? device=None, bool? pin_memory=None, bool flag=False) -> Tensor\n"
            "  dispatch:\n"
            "    CompositeExplicitAutograd: baz\n"
            "  tags: view_copy\n"
            "  autogen: baz.out\n"),
        0);
    cr_assert_eq(n_derived(), 2);
    assert_derived(0,
                   "bar.out(Tensor self, Tensor x, SymInt k=2, *, Tensor(b!) out0, "
                   "Tensor(d!)[] out2) -> int n",
                   "bar_out_symint");
    assert_derived(1, "baz.out(SymInt[] size, *, bool flag=False, Tensor(a!) out) -> Tensor(a!)",
                   "baz_out_symint");
    cr_assert(has_tag(derived_at(1), "view_copy"));
    cr_assert_eq(derived_at(0)->loc.line, 4);
}

Test(derive, mutable_to_out_and_functional) {
    cr_assert_eq(
        load_yaml(
            "- func: qux(Tensor self, Tensor(a!) buf, float f=1.0) -> (Tensor ra, Tensor rb)\n"
            "  dispatch:\n"
            "    CPU: qux\n"
            "  autogen: qux_functional, qux.out\n"),
        0);
    cr_assert_eq(n_derived(), 2);
    assert_derived(0,
                   "qux.out(Tensor self, Tensor(a!) buf, float f=1.0, *, Tensor(b!) out0, "
                   "Tensor(c!) out1) -> (Tensor(b!), Tensor(c!))",
                   "qux_out");
    assert_derived(1,
                   "qux_functional(Tensor self, Tensor buf, float f=1.0) -> (Tensor ra, "
                   "Tensor rb, Tensor buf_out)",
                   "qux_functional");
    cr_assert_str_eq(derived_at(1)->op_key, "aten.qux_functional.default");
}

Test(derive, out_family_gets_functional) {
    /* written out + in-place, no functional: the functional comes from the in-place one */
    cr_assert_eq(load_yaml("- func: zap.out(Tensor self, int n, *, Tensor(a!) out) -> Tensor(a!)\n"
                           "  dispatch:\n"
                           "    CPU: zap_out\n"
                           "- func: zap_(Tensor(a!) self, int n) -> Tensor(a!)\n"
                           "  dispatch:\n"
                           "    CPU: zap_\n"
                           "  autogen: zap\n"),
                 0);
    cr_assert_eq(n_derived(), 1);
    assert_derived(0, "zap(Tensor self, int n) -> Tensor", "zap");
    cr_assert_eq(derived_at(0)->derived_from, model()->funcs[1]);
}

Test(derive, functional_without_out_name_gets_nothing) {
    /* needs_out: no autogen item containing "out", so no out variant, so no group */
    cr_assert_eq(load_yaml("- func: solo(Tensor self) -> Tensor\n"
                           "  dispatch:\n"
                           "    CPU: solo\n"),
                 0);
    cr_assert_eq(n_derived(), 0);
    cr_assert_eq(model()->n_funcs, 1);
}

Test(derive, skipped_families) {
    /* view op, all manual_cpp_binding, CompositeImplicitAutograd without `core`: nothing is
     * derived and, as in torchgen, their autogen items go unchecked */
    cr_assert_eq(load_yaml("- func: v(Tensor(a) self) -> Tensor(a)\n"
                           "  dispatch:\n"
                           "    CPU: v\n"
                           "  autogen: v.out\n"
                           "- func: man(Tensor self) -> Tensor\n"
                           "  manual_cpp_binding: True\n"
                           "  dispatch:\n"
                           "    CPU: man\n"
                           "  autogen: man.out\n"
                           "- func: imp(Tensor self) -> Tensor\n"
                           "  autogen: imp.out\n"),
                 0);
    cr_assert_eq(n_derived(), 0, "%zu derived", n_derived());
}

Test(derive, composite_implicit_with_core_tag) {
    cr_assert_eq(load_yaml("- func: imp(Tensor self) -> Tensor\n"
                           "  tags: core\n"
                           "  autogen: imp.out\n"),
                 0);
    cr_assert_eq(n_derived(), 1);
    assert_derived(0, "imp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", "imp_out");
}

Test(derive, bernoulli_p_groups_with_float_default) {
    /* Note [bernoulli.p schema]: bernoulli.p pairs with bernoulli_.float only as if its
     * `p` defaulted to 0.5, so the family has a functional one and gets no other */
    cr_assert_eq(load_yaml("- func: bernoulli_.float(Tensor(a!) self, float p=0.5) -> Tensor(a!)\n"
                           "  dispatch:\n"
                           "    CPU: b_\n"
                           "  autogen: bernoulli.float_out\n"
                           "- func: bernoulli.p(Tensor self, float p) -> Tensor\n"
                           "  dispatch:\n"
                           "    CPU: b\n"),
                 0);
    cr_assert_eq(n_derived(), 1);
    assert_derived(0,
                   "bernoulli.float_out(Tensor self, float p=0.5, *, Tensor(a!) out) -> Tensor(a!)",
                   "bernoulli_float_out");
}

/* ------------------------------------------------------------------ errors */

Test(derive, error_autogen_name_not_derived) {
    cr_assert_eq(load_yaml("- func: e1(Tensor self) -> Tensor\n"
                           "  dispatch:\n"
                           "    CPU: e1\n"
                           "  autogen: e1.out, e1.Foo_out\n"),
                 -1);
    if (!has_diag(4, 20, "e1.Foo_out")) dump_diags();
    cr_assert(has_diag(4, 20, "e1.Foo_out"));
    cr_assert_eq(sg_error_count(ctx), 1);
}

Test(derive, error_derived_but_not_named) {
    cr_assert_eq(load_yaml("- func: w.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
                           "  dispatch:\n"
                           "    CPU: w_out\n"
                           "- func: w_(Tensor(a!) self) -> Tensor(a!)\n"
                           "  dispatch:\n"
                           "    CPU: w_\n"),
                 -1);
    if (!has_diag(4, 0, "'w'")) dump_diags();
    cr_assert(has_diag(4, 0, "'w'"));
}

Test(derive, error_same_signature_twice) {
    cr_assert_eq(load_yaml("- func: d1.a(Tensor self) -> Tensor\n"
                           "- func: d1.b(Tensor self) -> Tensor\n"),
                 -1);
    if (!has_diag(2, 0, "d1.a")) dump_diags();
    cr_assert(has_diag(2, 0, "d1.a"));
}

Test(derive, no_input_no_crash) {
    cr_assert_eq(sg_derive_functions(ctx), 0);
    cr_assert_eq(model()->n_funcs, 0);
    cr_assert_eq(sg_derive_functions(NULL), -1);
}

// tests/stable_ext/ext.cpp: a stable-ABI extension written as an extension author writes
// one, against PyTorch 2.15's real headers (torch/csrc/stable/*.h from the torch wheel,
// never copied here), linked with -lshimrt -Wl,--no-undefined and loaded with RTLD_NOW by
// tests/stable_ext/runner.c. Each op exercises a part of the torch::stable API; the
// results are compared with real PyTorch by tests/stable_ext/reference.py.
#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/device.h>
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/util/Exception.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

using torch::stable::Tensor;
using torch::headeronly::ScalarType;

// ops.h: index_select, transpose, contiguous.
Tensor pipeline(Tensor x, Tensor idx) {
  Tensor y = torch::stable::index_select(x, 0, idx);
  return torch::stable::contiguous(torch::stable::transpose(y, 0, 1));
}

// ops.h: amax over one dim and over a list, sum over a dim list, and sum with a dtype
// (PyTorch casts the input to the dtype first: float16 rounding before the sum).
std::tuple<Tensor, Tensor, Tensor, Tensor> reductions(Tensor x) {
  std::vector<int64_t> d0{0}, d1{1};
  Tensor big = torch::stable::full({4, 3}, 1000.3, ScalarType::Float);
  Tensor row0 = torch::stable::narrow(big, 0, 0, 1);
  torch::stable::copy_(row0, torch::stable::narrow(x, 0, 0, 1));
  return {torch::stable::amax(x, 1, false), torch::stable::amax(x, {0, 1}, true),
          torch::stable::sum(x, torch::headeronly::IntHeaderOnlyArrayRef(d0), false),
          torch::stable::sum(big, torch::headeronly::IntHeaderOnlyArrayRef(d1), false,
                             ScalarType::Half)};
}

// Views: unsqueeze, permute, flatten, reshape, view, select, squeeze, narrow, clone.
Tensor views(Tensor x) {
  Tensor u = torch::stable::unsqueeze(x, 0);             // 1 x 4 x 3
  Tensor p = torch::stable::permute(u, {2, 1, 0});       // 3 x 4 x 1
  Tensor s = torch::stable::squeeze(p, 2);               // 3 x 4
  Tensor n = torch::stable::narrow(s, 1, 1, 2);          // 3 x 2
  Tensor f = torch::stable::flatten(torch::stable::contiguous(n));  // 6
  Tensor r = torch::stable::reshape(f, {2, 3});
  Tensor v = torch::stable::view(r, {3, 2});
  Tensor sel = torch::stable::select(v, 0, 1);          // 2
  return torch::stable::clone(sel);
}

// Creation: full, new_zeros, new_empty, fill_, zero_, copy_, empty, pad.
std::tuple<Tensor, Tensor, Tensor> creation(Tensor x, double v) {
  Tensor f = torch::stable::full({2, 3}, v, ScalarType::Float);
  Tensor z = torch::stable::new_zeros(x, {3});
  torch::stable::fill_(z, v + 1.0);
  Tensor e = torch::stable::new_empty(x, {4, 3});
  torch::stable::copy_(e, x);
  Tensor c = torch::stable::clone(e);
  torch::stable::zero_(e);  // c must keep x's values
  Tensor em = torch::stable::empty({2}, ScalarType::Double);
  torch::stable::fill_(em, 0.25);
  Tensor padded = torch::stable::pad(f, {1, 1}, "constant", -1.0);
  STD_TORCH_CHECK(!torch::stable::is_pinned(padded), "a CPU tensor is not pinned");
  return {padded, z, torch::stable::sum(c, std::nullopt, false)};
}

// Tensor methods: metadata into an int64 tensor written through mutable_data_ptr<T>().
Tensor info(Tensor x) {
  Tensor t = torch::stable::transpose(x, 0, 1);
  std::vector<int64_t> vals{
      t.dim(), t.numel(), t.size(0), t.size(-1), t.stride(0), t.stride(1),
      t.is_contiguous() ? 1 : 0, static_cast<int64_t>(t.element_size()),
      t.scalar_type() == ScalarType::Float ? 1 : 0, t.get_device_index(),
      t.is_cpu() ? 1 : 0, t.is_cuda() ? 1 : 0, t.defined() ? 1 : 0, t.storage_offset(),
      t.device().is_cpu() ? 1 : 0, t.layout() == torch::headeronly::Layout::Strided ? 1 : 0,
      static_cast<int64_t>(x.sizes()[1]), static_cast<int64_t>(x.strides()[0]),
      Tensor().defined() ? 1 : 0};
  Tensor out = torch::stable::new_zeros(x, {static_cast<int64_t>(vals.size())}, ScalarType::Long);
  int64_t* p = out.mutable_data_ptr<int64_t>();
  for (size_t i = 0; i < vals.size(); i++) p[i] = vals[i];
  return out;
}

// parallel_for over the elements; const_data_ptr<T>() for the input.
Tensor squares(Tensor x) {
  Tensor xc = torch::stable::contiguous(x);
  Tensor out = torch::stable::new_empty(xc, {xc.numel()});
  const float* in = xc.const_data_ptr<float>();
  float* o = out.mutable_data_ptr<float>();
  torch::stable::parallel_for(0, xc.numel(), 2, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; i++) o[i] = in[i] * in[i];
  });
  STD_TORCH_CHECK(torch::stable::get_num_threads() >= 1, "no threads");
  return out;
}

// from_blob over extension memory, with and without a deleter; to(dtype).
static float g_blob[6] = {1.5f, -2.0f, 3.25f, 0.0f, 8.0f, -0.5f};
Tensor blobs(Tensor like) {
  (void)like;
  Tensor b = torch::stable::from_blob(g_blob, {2, 3}, {3, 1},
                                      torch::stable::Device(torch::headeronly::DeviceType::CPU),
                                      ScalarType::Float);
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_11_0
  float* owned = new float[3]{4.0f, 5.0f, 6.0f};
  Tensor d = torch::stable::from_blob(
      owned, {3}, {1}, torch::stable::Device(torch::headeronly::DeviceType::CPU),
      ScalarType::Float, [](void* p) { delete[] static_cast<float*>(p); });
#else  // no deleter before 2.11: a copy of static memory
  static float fixed[3] = {4.0f, 5.0f, 6.0f};
  Tensor d = torch::stable::clone(torch::stable::from_blob(
      fixed, {3}, {1}, torch::stable::Device(torch::headeronly::DeviceType::CPU),
      ScalarType::Float));
#endif
  Tensor dd = torch::stable::to(d, ScalarType::Double);
  Tensor sel = torch::stable::select(b, 0, 1);
  Tensor both = torch::stable::new_empty(sel, {6}, ScalarType::Double);
  double* o = both.mutable_data_ptr<double>();
  const float* s = sel.const_data_ptr<float>();
  const double* dp = dd.const_data_ptr<double>();
  for (int i = 0; i < 3; i++) o[i] = s[i * sel.stride(0)], o[3 + i] = dp[i];
  return both;
}

// sort, both overloads (the stable one on a tensor with ties: a unique answer).
std::tuple<Tensor, Tensor, Tensor> sorts(Tensor x, Tensor ties) {
  auto [v, i] = torch::stable::sort(x, 1, true);
  auto [v2, i2] = torch::stable::sort(ties, std::optional<bool>(true), 0, false);
  (void)v2;
  return {v, i, i2};
}

// Error checks: STD_TORCH_CHECK throws; the runtime must return an error code with the
// message, and no exception may cross the C ABI.
Tensor must_be_big(Tensor x) {
  STD_TORCH_CHECK(x.numel() > 100, "dropin_ext: need more than 100 elements, got ", x.numel());
  return x;
}

// An error from inside the runtime (index out of range) surfaces as an exception through
// the stable headers and again as an error code at the boundary.
Tensor bad_index(Tensor x) {
  Tensor idx = torch::stable::full({1}, 99.0, ScalarType::Long);
  return torch::stable::index_select(x, 0, idx);
}

// An optional argument: its cell comes from the caller (the runtime's
// torch_new_stable_ivalue) and is freed by the stable headers, with `delete` when the
// extension targets a release before 2.13; optional dtypes passed to ops go the other way.
Tensor opt_fill(Tensor x, std::optional<double> v) {
  Tensor z = torch::stable::new_zeros(x, {3}, ScalarType::Double);
  torch::stable::fill_(z, v.has_value() ? *v : -1.0);
  return z;
}

// A Tensor[] return through the dispatcher: aten::_foreach_mul.List (a list of new
// tensors: mul's broadcasting and type promotion per pair) and the in-place .List.
std::tuple<Tensor, Tensor, Tensor> foreach_mul(Tensor x) {
  Tensor a = torch::stable::clone(x);
  Tensor t = torch::stable::transpose(x, 0, 1);
  Tensor d = torch::stable::to(torch::stable::narrow(x, 0, 0, 1), ScalarType::Double);
  std::vector<Tensor> self{a, t}, other{d, torch::stable::clone(t)};
  std::array<StableIValue, 2> st = {torch::stable::detail::from(self),
                                    torch::stable::detail::from(other)};
  TORCH_ERROR_CODE_CHECK(
      torch_call_dispatcher("aten::_foreach_mul", "List", st.data(), TORCH_ABI_VERSION));
  std::vector<Tensor> r = torch::stable::detail::to<std::vector<Tensor>>(st[0]);
  STD_TORCH_CHECK(r.size() == 2, "dropin_ext: _foreach_mul gave ", r.size(), " tensors");
  std::vector<Tensor> inplace{a}, by{x};
  std::array<StableIValue, 2> st2 = {torch::stable::detail::from(inplace),
                                     torch::stable::detail::from(by)};
  TORCH_ERROR_CODE_CHECK(
      torch_call_dispatcher("aten::_foreach_mul_", "List", st2.data(), TORCH_ABI_VERSION));
  return {r[0], r[1], a};
}

// Ops real kernels reach through the dispatcher with PyTorch's own stack conventions:
// layer_norm (int[], optional tensors present and absent, float, bool), native_layer_norm
// (three returns) and scatter_reduce.two (a str argument).
std::tuple<Tensor, Tensor, Tensor> norms(Tensor x, Tensor idx) {
  using torch::stable::detail::from;
  using torch::stable::detail::to;
  std::vector<int64_t> ns{3};
  Tensor w = torch::stable::fill_(torch::stable::new_empty(x, {3}), 0.5);
  std::array<StableIValue, 6> ln = {from(x), from(ns), from(std::optional<Tensor>(w)),
                                    from(std::nullopt), from(1e-5), from(true)};
  TORCH_ERROR_CODE_CHECK(
      torch_call_dispatcher("aten::layer_norm", "", ln.data(), TORCH_ABI_VERSION));
  std::array<StableIValue, 5> nl = {from(x), from(ns), from(std::nullopt),
                                    from(std::optional<Tensor>(w)), from(0.25)};
  TORCH_ERROR_CODE_CHECK(
      torch_call_dispatcher("aten::native_layer_norm", "", nl.data(), TORCH_ABI_VERSION));
  Tensor self = torch::stable::select(x, 1, 0), src = torch::stable::select(x, 1, 1);
  std::array<StableIValue, 6> sr = {from(self), from(int64_t(0)), from(idx), from(src),
                                    from(std::string("amax")), from(false)};
  TORCH_ERROR_CODE_CHECK(
      torch_call_dispatcher("aten::scatter_reduce", "two", sr.data(), TORCH_ABI_VERSION));
  Tensor normed = to<Tensor>(nl[0]), mean = to<Tensor>(nl[1]);  // freed on return
  STD_TORCH_CHECK(normed.dim() == 2 && mean.dim() == 2 && mean.size(1) == 1,
                  "dropin_ext: native_layer_norm's shapes");
  return {to<Tensor>(ln[0]), to<Tensor>(nl[2]), to<Tensor>(sr[0])};
}

STABLE_TORCH_LIBRARY(dropin_ext, m) {
  m.def("norms(Tensor x, Tensor idx) -> (Tensor, Tensor, Tensor)");
  m.def("foreach_mul(Tensor x) -> (Tensor, Tensor, Tensor)");
  m.def("opt_fill(Tensor x, float? v) -> Tensor");
  m.def("pipeline(Tensor x, Tensor idx) -> Tensor");
  m.def("reductions(Tensor x) -> (Tensor, Tensor, Tensor, Tensor)");
  m.def("views(Tensor x) -> Tensor");
  m.def("creation(Tensor x, float v) -> (Tensor, Tensor, Tensor)");
  m.def("info(Tensor x) -> Tensor");
  m.def("squares(Tensor x) -> Tensor");
  m.def("blobs(Tensor like) -> Tensor");
  m.def("sorts(Tensor x, Tensor ties) -> (Tensor, Tensor, Tensor)");
  m.def("must_be_big(Tensor x) -> Tensor");
  m.def("bad_index(Tensor x) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(dropin_ext, CPU, m) {
  m.impl("foreach_mul", TORCH_BOX(&foreach_mul));
  m.impl("norms", TORCH_BOX(&norms));
  m.impl("opt_fill", TORCH_BOX(&opt_fill));
  m.impl("pipeline", TORCH_BOX(&pipeline));
  m.impl("reductions", TORCH_BOX(&reductions));
  m.impl("views", TORCH_BOX(&views));
  m.impl("creation", TORCH_BOX(&creation));
  m.impl("info", TORCH_BOX(&info));
  m.impl("squares", TORCH_BOX(&squares));
  m.impl("blobs", TORCH_BOX(&blobs));
  m.impl("sorts", TORCH_BOX(&sorts));
  m.impl("must_be_big", TORCH_BOX(&must_be_big));
  m.impl("bad_index", TORCH_BOX(&bad_index));
}

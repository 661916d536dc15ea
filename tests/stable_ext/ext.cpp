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
#include <torch/csrc/stable/macros.h>
#include <torch/headeronly/core/Dispatch_v2.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/core/TensorAccessor.h>
#include <torch/headeronly/core/enum_tag.h>
#include <torch/headeronly/util/Exception.h>
#include <torch/csrc/inductor/aoti_torch/generated/c_shim_aten.h>
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_13_0
#include <torch/csrc/stable/generator.h>
#endif

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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

// ---- the rest of the stable API the PyTorch 2.9 to 2.15 test extensions reach ----------
using torch::stable::Device;
using torch::stable::DeviceIndex;
using torch::headeronly::DeviceType;
using torch::headeronly::Layout;
using torch::headeronly::MemoryFormat;

// Device as argument and return, DeviceIndex, Device from a string and from (type, index),
// ==, set_index, index(), is_cuda(), is_cpu(); a str argument.
std::tuple<Device, Device, bool, DeviceIndex, bool> devices(Device d, DeviceIndex i,
                                                             std::string spec) {
  Device parsed(spec);
  Device moved = d;
  moved.set_index(i);
  Device made(DeviceType::CUDA, i);
  return {parsed, moved, made == moved && !(parsed != Device(spec)), parsed.index(),
          parsed.is_cuda() && !parsed.is_cpu() && Device(DeviceType::CPU).is_cpu()};
}

// str arguments as const std::string&, std::string_view and std::string&; str[] and str
// returns; int return.
std::tuple<std::vector<std::string>, std::string, int64_t> strings(Tensor x,
                                                                   const std::string& which,
                                                                   std::string_view tail,
                                                                   std::string& extra) {
  int64_t v = which == "numel" ? x.numel() : which == "dim" ? x.dim() : -1;
  STD_TORCH_CHECK(v >= 0, "dropin_ext: strings: unknown query ", which);
  std::vector<std::string> out{which, std::to_string(v), std::string(tail), extra + extra};
  return {out, std::string(tail) + "/" + which, v * 10};
}

// int[] returns: a vector built here and the tensor's own sizes (HeaderOnlyArrayRef).
std::tuple<std::vector<int64_t>, torch::headeronly::HeaderOnlyArrayRef<int64_t>> shapes(Tensor x) {
  std::vector<int64_t> st(x.strides().begin(), x.strides().end());
  st.push_back(x.storage_offset());
  return {st, x.sizes()};
}

// Pointwise and linear algebra wrappers: subtract (alpha), floor_divide, matmul,
// bitwise and/or/shifts on integer tensors.
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor> arith(const Tensor& a,
                                                                         Tensor& b, double alpha,
                                                                         Tensor ints) {
  Tensor sh = torch::stable::full({ints.size(0)}, 2.0, ScalarType::Long);
  return {torch::stable::subtract(a, b, alpha),
          torch::stable::floor_divide(a, b),
          torch::stable::matmul(a, torch::stable::transpose(b, 0, 1)),
          torch::stable::bitwise_and(ints, sh),
          torch::stable::bitwise_or(ints, sh),
          torch::stable::bitwise_left_shift(ints, sh),
          torch::stable::bitwise_right_shift(ints, sh)};
}

// Creation and conversion with every keyword: to(device), to(dtype, layout, device, pin,
// non_blocking, copy, memory_format), contiguous(memory_format), empty_like, new_empty and
// new_zeros with dtype/layout/device/pin, full with them, empty with a memory format.
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor> conversions(Tensor x) {
  Device cpu(DeviceType::CPU);
  Tensor same = torch::stable::to(x, cpu);
  Tensor x4 = torch::stable::reshape(x, {1, 2, 2, 3});
  Tensor cl = torch::stable::contiguous(x4, MemoryFormat::ChannelsLast);
  Tensor copied = torch::stable::to(cl, ScalarType::Double, Layout::Strided, cpu, false, false,
                                    true, MemoryFormat::Preserve);
  Tensor el = torch::stable::empty_like(torch::stable::transpose(x, 0, 1));
  torch::stable::fill_(el, 2.5);
  Tensor ne = torch::stable::new_empty(x, {2, 2}, ScalarType::Int, Layout::Strided, cpu, false);
  torch::stable::fill_(ne, 7.0);
  Tensor nz = torch::stable::new_zeros(x, {3}, ScalarType::Double, Layout::Strided, cpu, false);
  Tensor fl = torch::stable::full({2}, -4.0, ScalarType::Short, Layout::Strided, cpu, false);
  Tensor em = torch::stable::empty({1, 2, 2, 2}, ScalarType::Float, Layout::Strided, cpu, false,
                                   MemoryFormat::ChannelsLast);
  torch::stable::zero_(em);
  STD_TORCH_CHECK(same.const_data_ptr() == x.const_data_ptr(), "to(cpu) of a CPU tensor copies");
  STD_TORCH_CHECK(em.stride(1) == 1, "empty(channels_last) strides");
  return {cl, copied, el, ne, nz, fl, em};
}

// An out= variant: sum_out over a dim list with a dtype.
Tensor sum_into(Tensor out, Tensor x, std::optional<std::vector<int64_t>> dims, bool keepdim,
                std::optional<ScalarType> dtype) {
  std::optional<torch::headeronly::IntHeaderOnlyArrayRef> d;
  if (dims) d = torch::headeronly::IntHeaderOnlyArrayRef(*dims);
  return torch::stable::sum_out(out, x, d, keepdim, dtype);
}

// Tensor[] in (const std::vector<Tensor>&) and out, an optional int[] and an optional
// Tensor given as const std::optional<Tensor>&.
std::vector<Tensor> lists(const std::vector<Tensor>& xs, std::optional<std::vector<int64_t>> dims,
                          const std::optional<Tensor>& extra) {
  std::vector<Tensor> out;
  for (const Tensor& t : xs) {
    std::optional<torch::headeronly::IntHeaderOnlyArrayRef> d;
    if (dims) d = torch::headeronly::IntHeaderOnlyArrayRef(*dims);
    out.push_back(torch::stable::sum(t, d, true));
  }
  if (extra) out.push_back(torch::stable::clone(*extra));
  return out;
}

// ScalarType, Layout and MemoryFormat arguments; typed data pointers over a dtype switch
// (THO_DISPATCH_V2) read through a header-only accessor; set_requires_grad; has_storage.
template <typename T>
static double weighted(const Tensor& m) {
  auto a = torch::headeronly::HeaderOnlyTensorAccessor<const T, 2>(
      m.const_data_ptr<T>(), m.sizes().data(), m.strides().data());
  double acc = 0;
  for (int64_t i = 0; i < a.size(0); i++)
    for (int64_t j = 0; j < a.size(1); j++) acc += static_cast<double>(a[i][j]) * (i + 1) - j;
  return acc;
}
std::tuple<bool, int64_t, Tensor> typed(Tensor m, ScalarType dt, Layout layout,
                                        MemoryFormat mf) {
  Tensor c = torch::stable::to(m, dt);
  double w = 0;
  THO_DISPATCH_V2(c.scalar_type(), "typed", AT_WRAP([&] { w = weighted<scalar_t>(c); }),
                  AT_EXPAND(AT_ALL_TYPES), torch::headeronly::ScalarType::Half,
                  torch::headeronly::ScalarType::BFloat16);
  c.set_requires_grad(false);
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_14_0
  bool storage = c.has_storage();
#else
  bool storage = true;
#endif
  Tensor r = torch::stable::contiguous(torch::stable::reshape(c, {1, 1, m.size(0), m.size(1)}), mf);
  Tensor ws = torch::stable::full({1}, w, ScalarType::Double);
  (void)r;
  return {c.layout() == layout && storage && r.is_contiguous() == (mf == MemoryFormat::Contiguous),
          static_cast<int64_t>(c.element_size()), ws};
}

// Typed data pointers of every dtype the macro lists (float8 and complex32 among them):
// data_ptr<T>() for the T of `want` is the untyped pointer when t has that dtype and an
// error ("expected scalar type ...") when not.
bool typed_ptr(Tensor t, ScalarType want) {
  switch (want) {
#define DROPIN_CASE(T, name)                                                                      \
  case ScalarType::name:                                                                         \
    return t.mutable_data_ptr<T>() == t.data_ptr() && t.const_data_ptr<T>() == t.data_ptr();
    AT_FORALL_SCALAR_TYPES_WITH_COMPLEX(DROPIN_CASE)
#undef DROPIN_CASE
    default:
      STD_TORCH_CHECK(false, "dropin_ext: typed_ptr: no case for this dtype");
  }
}

// Data pointers of tensors without elements: NULL in PyTorch (Tensor::data_ptr()), also
// for a view into a storage that has memory.
std::tuple<bool, bool, bool, bool> empty_ptrs(Tensor x) {
  Tensor none = torch::stable::narrow(x, 1, x.size(1), 0);
  Tensor fresh = torch::stable::new_empty(x, {0, 3});
  return {none.data_ptr() == nullptr, none.mutable_data_ptr() == nullptr,
          none.const_data_ptr<float>() == nullptr, fresh.const_data_ptr() == nullptr};
}

// The 2.9 conventions: aoti_torch_call_dispatcher (no version argument) and a boxed kernel
// written by hand (no TORCH_BOX), registered for a CompositeImplicitAutograd key.
void legacy_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 1 && num_outputs == 2, "dropin_ext: legacy arity");
  Tensor x = torch::stable::detail::to<Tensor>(stack[0]);
  StableIValue a[1] = {torch::stable::detail::from(x)};
  TORCH_ERROR_CODE_CHECK(aoti_torch_call_dispatcher("aten::abs", "", a));
  StableIValue e[1] = {torch::stable::detail::from(x)};
  TORCH_ERROR_CODE_CHECK(aoti_torch_call_dispatcher("aten::exp", "", e));
  stack[0] = a[0];
  stack[1] = e[0];
}

// An op returning nothing that writes its (a!) argument; a Tensor made from a raw
// AtenTensorHandle (aoti_torch_empty_strided) and a default-constructed (undefined) one.
void fill_rows(Tensor x, double start) {
  Tensor undefined;
  STD_TORCH_CHECK(!undefined.defined(), "a default Tensor is undefined");
  AtenTensorHandle h = nullptr;
  int64_t n = x.size(1), one = 1;
  TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(1, &n, &one, aoti_torch_dtype_float32(),
                                                  aoti_torch_device_type_cpu(), 0, &h));
  Tensor row(h);
  for (int64_t r = 0; r < x.size(0); r++) {
    torch::stable::fill_(row, start + r);
    Tensor dst = torch::stable::select(x, 0, r);
    torch::stable::copy_(dst, row);
  }
}

// parallel_for with the worker's index (torch_get_thread_idx): each element gets its own
// index in the low 32 bits whatever thread wrote it.
Tensor threads(int64_t n, int64_t grain) {
  Tensor out = torch::stable::new_zeros(torch::stable::empty({1}, ScalarType::Long), {n});
  int64_t* p = out.mutable_data_ptr<int64_t>();
  torch::stable::parallel_for(0, n, grain, [p](int64_t b, int64_t e) {
    uint32_t tid = 0;
    TORCH_ERROR_CODE_CHECK(torch_get_thread_idx(&tid));
    for (int64_t i = b; i < e; i++) p[i] = i | (static_cast<int64_t>(tid) << 32);
  });
  return out;
}

// A parallel_for body that throws at index `bad`: the op fails with the body's message (no
// exception through the runtime's C frames, its pool usable afterwards).
Tensor threads_throw(int64_t n, int64_t grain, int64_t bad) {
  torch::stable::parallel_for(0, n, grain, [bad](int64_t b, int64_t e) {
    STD_TORCH_CHECK(!(b <= bad && bad < e), "dropin_ext: threads_throw: index ", bad);
  });
  return threads(n, grain);
}

#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_12_0
// tags on a definition (2.12)
Tensor tagged(Tensor t) { return torch::stable::clone(t); }
#endif

#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_13_0
// A Generator argument passed on through the dispatcher (aten::rand.generator), its
// device(); a failing shim call's message read back (torch_exception_get_what*) inside the
// op without throwing; STABLE_TORCH_ERROR_CODE_CHECK.
Tensor seeded(std::vector<int64_t> size, torch::stable::Generator gen) {
  StableIValue st[6] = {torch::stable::detail::from(size),
                        torch::stable::detail::from(std::optional<torch::stable::Generator>(gen)),
                        torch::stable::detail::from(std::nullopt),
                        torch::stable::detail::from(std::nullopt),
                        torch::stable::detail::from(std::optional<Device>(gen.device())),
                        torch::stable::detail::from(std::nullopt)};
  STABLE_TORCH_ERROR_CODE_CHECK(torch_call_dispatcher("aten::rand", "generator", st,
                                                      TORCH_ABI_VERSION));
  return torch::stable::detail::to<Tensor>(st[0]);
}

std::tuple<bool, bool, bool> last_error(Tensor a, Tensor b) {
  AtenTensorHandle r = nullptr;
  bool failed = aoti_torch_aten_subtract_Tensor(a.get(), b.get(), 1.0, &r) != AOTI_TORCH_SUCCESS;
  std::string what = torch_exception_get_what();
  std::string brief = torch_exception_get_what_without_backtrace();
  bool names = brief.find(std::to_string(a.size(-1))) != std::string::npos &&
               brief.find(std::to_string(b.size(-1))) != std::string::npos;
  return {failed, !what.empty() && what.find(brief) != std::string::npos, names};
}

Tensor checked_subtract(Tensor a, Tensor b) {
  AtenTensorHandle r = nullptr;
  STABLE_TORCH_ERROR_CODE_CHECK(aoti_torch_aten_subtract_Tensor(a.get(), b.get(), 1.0, &r));
  return Tensor(r);
}
#endif

STABLE_TORCH_LIBRARY_FRAGMENT(dropin_ext, m) {
  m.def("devices(Device d, DeviceIndex i, str spec) -> (Device, Device, bool, DeviceIndex, bool)");
  m.def("strings(Tensor x, str which, str tail, str extra) -> (str[], str, int)");
  m.def("shapes(Tensor x) -> (int[], int[])");
  m.def("arith(Tensor a, Tensor b, float alpha, Tensor ints) -> (Tensor, Tensor, Tensor, Tensor, "
        "Tensor, Tensor, Tensor)");
  m.def("conversions(Tensor x) -> (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)");
  m.def("sum_into(Tensor(a!) out, Tensor x, int[]? dims, bool keepdim, ScalarType? dtype) -> "
        "Tensor(a!)");
  m.def("lists(Tensor[] xs, int[]? dims, Tensor? extra) -> Tensor[]");
  m.def("typed(Tensor m, ScalarType dt, Layout layout, MemoryFormat mf) -> (bool, int, Tensor)");
  m.def("fill_rows(Tensor(a!) x, float start) -> ()");
  m.def("typed_ptr(Tensor t, ScalarType want) -> bool");
  m.def("empty_ptrs(Tensor x) -> (bool, bool, bool, bool)");
  m.def("threads(int n, int grain) -> Tensor");
  m.def("threads_throw(int n, int grain, int bad) -> Tensor");
}

STABLE_TORCH_LIBRARY_FRAGMENT(dropin_ext, m) {
  m.def("legacy(Tensor x) -> (Tensor, Tensor)");
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_12_0
  m.def("tagged(Tensor t) -> Tensor", std::vector<at::Tag>{at::Tag::pointwise, at::Tag::core});
#endif
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_13_0
  m.def("seeded(int[] size, Generator gen) -> Tensor");
  m.def("last_error(Tensor a, Tensor b) -> (bool, bool, bool)");
  m.def("checked_subtract(Tensor a, Tensor b) -> Tensor");
#endif
}

STABLE_TORCH_LIBRARY_IMPL(dropin_ext, CompositeExplicitAutograd, m) {
  m.impl("devices", TORCH_BOX(&devices));
  m.impl("strings", TORCH_BOX(&strings));
  m.impl("shapes", TORCH_BOX(&shapes));
  m.impl("arith", TORCH_BOX(&arith));
  m.impl("conversions", TORCH_BOX(&conversions));
  m.impl("sum_into", TORCH_BOX(&sum_into));
  m.impl("lists", TORCH_BOX(&lists));
  m.impl("typed", TORCH_BOX(&typed));
  m.impl("fill_rows", TORCH_BOX(&fill_rows));
  m.impl("typed_ptr", TORCH_BOX(&typed_ptr));
  m.impl("empty_ptrs", TORCH_BOX(&empty_ptrs));
  m.impl("threads", TORCH_BOX(&threads));
  m.impl("threads_throw", TORCH_BOX(&threads_throw));
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_12_0
  m.impl("tagged", TORCH_BOX(&tagged));
#endif
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_13_0
  m.impl("seeded", TORCH_BOX(&seeded));
  m.impl("last_error", TORCH_BOX(&last_error));
  m.impl("checked_subtract", TORCH_BOX(&checked_subtract));
#endif
}

STABLE_TORCH_LIBRARY_IMPL(dropin_ext, CompositeImplicitAutograd, m) {
  m.impl("legacy", &legacy_boxed);
}

"""tests/torch/torch_aten.py LIB: the dispatcher-routed shims of --target=torch in real
PyTorch. LIB is tests/torch/ops + tests/torch/ops_aten: each sgt::via_<op> kernel forwards
to aoti_torch_aten_sgt_<op>, which packs its arguments, calls sgt::<op> through PyTorch's
dispatcher (torch_call_dispatcher) and unpacks the returns. So via_<op>(args) must equal
<op>(args) for every argument and return kind; the callee's error must come back as the
caller's RuntimeError; use counts and memory must stay flat over many calls."""
import sys

import torch

torch.ops.load_library(sys.argv[1])
ops = torch.ops.sgt
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("  FAIL:", what)


def same(name, *args):
    """via_<name>(*args) against <name>(*args): tensors equal, other values equal."""
    want = getattr(ops, name)(*args)
    got = getattr(ops, "via_" + name)(*args)
    w = want if isinstance(want, tuple) else (want,)
    g = got if isinstance(got, tuple) else (got,)
    ok = len(w) == len(g) and all(
        torch.equal(x, y) if isinstance(x, torch.Tensor) else x == y for x, y in zip(w, g))
    check(ok, "via_%s%r: %r, direct: %r" % (name, args, got, want))


a, b, c = torch.ones(2, 3), torch.arange(6.0).reshape(2, 3), torch.full((2, 3), 0.5)
# int, int?, int[], int[2]?, SymInt
same("echo_ints", 7, None, [1, -2, 3], None)
same("echo_ints", -5, 9, [], [4, 5], 11)
# float, float?, float[], float[]?
same("echo_floats", 1.5, None, [0.25, -2.0], None)
same("echo_floats", -0.5, 3.25, [], [])
same("echo_floats", 2.0, -1.0, [1e300], [0.5, 1.5])
# bool, bool?, bool[3]
same("echo_bools", True, None, [True, False, True])
same("echo_bools", False, False, [False, False, True])
# ScalarType, ScalarType?, Layout, MemoryFormat?, ScalarType[]
same("echo_codes", torch.float32, None, torch.strided, None, [torch.int64, torch.bool])
same("echo_codes", torch.float64, torch.int64, torch.strided, torch.channels_last, [])
# Device, Device?, DeviceIndex, DeviceIndex?
same("echo_device", torch.device("cpu"), None, 3, None)
same("echo_device", torch.device("meta"), torch.device("cpu", 0), -1, 2)
# str, str?, a str return
same("echo_str", "abc", None)
same("echo_str", "", "x y")
check(ops.via_echo_str("q", None) == "q|<none>", "via_echo_str's value")
# Tensor[], Tensor?[], Tensor?
same("sum_tensors", [a, b], [None, c, None], None)
same("sum_tensors", [a], [], b)
# a tuple of (Tensor, Tensor)
same("fail_late", torch.tensor([1.0, 2.0, 3.5, -1.0]), [a, b])
# in place: the alias return is dropped by the shim, the caller's tensor is changed
y = torch.tensor([1.0, -2.0])
r = ops.via_scale_(y, 3.0)
check(r is y and torch.equal(y, torch.tensor([3.0, -6.0])), "via_scale_ in place: %r" % (y,))
# errors: the callee's message comes back through the caller
try:
    ops.via_fail(a, "the callee's message")
    check(False, "via_fail did not raise")
except RuntimeError as e:
    s = str(e)
    check("the callee's message" in s and "aoti_torch_aten_sgt_fail" in s and "sgt::fail" in s,
          "via_fail message: %s" % s)
try:
    ops.via_fail_late(a, [b, c.double()])
    check(False, "via_fail_late did not raise")
except RuntimeError as e:
    check("ys[1] is not float32" in str(e), "via_fail_late message: %s" % e)
try:
    ops.via_sum_tensors([a.double()], [], None)
    check(False, "via_sum_tensors on float64 did not raise")
except RuntimeError as e:
    check("contiguous float32" in str(e), "via_sum_tensors message: %s" % e)

# use counts: every packed reference released once, on success and on failure
base = (a._use_count(), b._use_count(), c._use_count(), y._use_count())
for _ in range(2000):
    ops.via_sum_tensors([a, b], [None, c], a)
    ops.via_scale_(y, 1.0)
    ops.via_fail_late(a, [b, c])
    try:
        ops.via_fail_late(a, [b, c.double()])
    except RuntimeError:
        pass
    try:
        ops.via_fail(b, "x")
    except RuntimeError:
        pass
after = (a._use_count(), b._use_count(), c._use_count(), y._use_count())
check(base == after, "use counts changed over 2000 calls: %r -> %r" % (base, after))


# no C heap growth: cells, lists and strings packed on each call are released (by PyTorch
# once it took them). PyTorch 2.10 leaks returned strings itself (torch_target.py).
def rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4


STR_RETURN_LEAKS = torch.__version__.startswith("2.10.")


def churn(k):
    for _ in range(k):
        ops.via_echo_ints(1, 2, [1, 2, 3], [4, 5])
        ops.via_echo_floats(0.5, 1.5, [1.0], [2.0, 3.0])
        ops.via_sum_tensors([a], [None, c], a)
        ops.via_echo_device(torch.device("cpu"), torch.device("cpu", 0), 1, 2)
        if not STR_RETURN_LEAKS:
            ops.via_echo_str("abc" * 20, "def")


churn(3000)
r0 = rss_kb()
churn(30000)
grown = rss_kb() - r0
check(grown < 2048, "resident memory grew by %d KiB over 30,000 rounds" % grown)

if failures:
    print("torch_aten.py: %d failure(s)" % len(failures))
    sys.exit(1)
print("  torch_aten.py: every argument and return kind through aoti_torch_aten_sgt_*, "
      "errors, counts")

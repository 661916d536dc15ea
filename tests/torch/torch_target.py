"""tests/torch/torch_target.py LIB [generators]: checks the tests/torch/ops extension (built with
`shimgen --target=torch`) in real PyTorch: every op from Python against the values passed
or PyTorch's own result, kernel errors as RuntimeError with their message, reference
counts stable over many calls, unregistration and registration again."""
import ctypes
import sys

import torch

LIB = sys.argv[1]
GENERATORS = sys.argv[2:] == ["generators"]  # built with tests/torch/ops_gen
torch.ops.load_library(LIB)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("  FAIL:", what)



# unregister and register again (a static build's functions; the constructor did it once).
# First, before Python looks any op up: PyTorch's Python side caches op handles, which
# do not survive an unregistration.
lib = ctypes.CDLL(LIB)
lib.shimgen_torch_unregister_sgt()
try:
    torch._C._dispatch_has_kernel_for_dispatch_key("sgt::stats", "CPU")
    check(False, "sgt::stats still exists after unregistering")
except RuntimeError as e:
    check("does not exist" in str(e), "after unregistering: %s" % e)
check(lib.shimgen_torch_register_sgt() == 0, "registering again")
check(lib.shimgen_torch_register_sgt() != 0, "registering twice is an error")
lib.shimgen_torch_last_error_sgt.restype = ctypes.c_char_p
check(b"already registered" in lib.shimgen_torch_last_error_sgt(), "the message of registering twice")

ops = torch.ops.sgt


def echo(t):
    return [float(v) for v in t.tolist()]


# int, int?, int[], int[2]?, SymInt with its default
check(echo(ops.echo_ints(7, None, [1, -2, 3], None)) == [7, 0, 0, 3, 1, -2, 3, 0, 0, 3],
      "echo_ints with None and the default")
check(echo(ops.echo_ints(-5, 9, [], [4, 5], 11)) == [-5, 1, 9, 0, 1, 2, 4, 5, 11],
      "echo_ints with values")
# SymInt?, SymInt[], SymInt[]?; returns SymInt, Layout, MemoryFormat, DeviceIndex (the
# codes reach Python as ints: c10 Layout::Strided is 0, MemoryFormat::ChannelsLast 2)
check(ops.echo_symints(None, [1, 2], None) == (3, 0, 2, 2), "echo_symints with None")
check(ops.echo_symints(5, [], [10, 20]) == (35, 0, 2, 2), "echo_symints with values")
# float, float?, float[], float[]?
check(echo(ops.echo_floats(1.5, None, [0.25, -2.0], None)) == [1.5, 0, 0, 2, 0.25, -2.0, 0, 0],
      "echo_floats with None")
check(echo(ops.echo_floats(-0.5, 3.25, [], [])) == [-0.5, 1, 3.25, 0, 1, 0],
      "echo_floats with an empty optional list")
# bool, bool?, bool[3]
check(echo(ops.echo_bools(True, None, [True, False, True])) == [1, 0, 0, 3, 1, 0, 1], "echo_bools")
check(echo(ops.echo_bools(False, False, [False, False, True])) == [0, 1, 0, 3, 0, 0, 1],
      "echo_bools with a present False")
# ScalarType, ScalarType?, Layout, MemoryFormat?, ScalarType[]: PyTorch's codes
code = {torch.float32: 6, torch.int64: 4, torch.float64: 7, torch.bool: 11}
got = echo(ops.echo_codes(torch.float32, None, torch.strided, None, [torch.int64, torch.bool]))
check(got == [code[torch.float32], 0, 0, 0, 0, 0, 2, code[torch.int64], code[torch.bool]],
      "echo_codes with None: %r" % got)
got = echo(ops.echo_codes(torch.float64, torch.int64, torch.strided, torch.channels_last, []))
check(got[:6] == [7, 1, 4, 0, 1, 2] and got[6] == 0, "echo_codes with values: %r" % got)
# Device, Device?, DeviceIndex, DeviceIndex?
got = echo(ops.echo_device(torch.device("cpu"), None, 3, None))
check(got == [0, -1, 0, 0, -1, 3, 0, 0], "echo_device cpu/None: %r" % got)
# c10::DeviceType::Meta is 14
got = echo(ops.echo_device(torch.device("meta"), torch.device("cpu", 0), -1, 2))
check(got == [14, -1, 1, 0, 0, -1, 1, 2], "echo_device with values: %r" % got)
# str, str? and a str return
check(ops.echo_str("abc", None) == "abc|<none>", "echo_str with None")
check(ops.echo_str("", "x y") == "|x y", "echo_str with values")
# Tensor[], Tensor?[], Tensor?
a, b, c = torch.ones(2, 3), torch.arange(6.0).reshape(2, 3), torch.full((2, 3), 0.5)
check(torch.equal(ops.sum_tensors([a, b], [None, c, None], None), a + b + c), "sum_tensors")
check(torch.equal(ops.sum_tensors([a], [], b), a + b), "sum_tensors with z")
# tuple of (Tensor, Tensor, int, float, bool, ScalarType)
x = torch.tensor([1.0, 2.0, 3.5, -1.0])
d, p, n, total, big, dt = ops.stats(x)
check(torch.equal(d, x * 2) and torch.equal(p, x + 1), "stats tensors")
# a ScalarType return reaches Python as its code (c10::ScalarType::Float is 6)
check((n, total, big, dt) == (4, float(x.sum()), True, code[torch.float32]),
      "stats values: %r" % ((n, total, big, dt),))
# in-place and out variants return the very tensor they were given
y = torch.tensor([1.0, -2.0])
r = ops.scale_(y, 3.0)
check(r is y and torch.equal(y, torch.tensor([3.0, -6.0])), "scale_ in place")
out = torch.empty(2)
r = ops.scale.out(torch.tensor([0.5, 4.0]), 2.0, out=out)
check(r is out and torch.equal(out, torch.tensor([1.0, 8.0])), "scale.out")
check(torch.equal(ops.scale(torch.tensor([2.0]), 0.5), torch.tensor([1.0])), "scale")
# tags.yaml names reach PyTorch from 2.12 on (this library: 2.13), not before
want_tags = {torch.Tag.pointwise, torch.Tag.core} if GENERATORS else set()
check(set(ops.scale.default.tags) == want_tags, "scale's tags: %r" % (ops.scale.default.tags,))
# Generator and Generator?, and a Generator return
if GENERATORS:
    g = torch.Generator()
    g.manual_seed(1234)
    check(echo(ops.generator_device(g, None)) == [0, -1, -2, -2], "generator_device with None")
    check(echo(ops.generator_device(g, torch.Generator()))[:2] == [0, -1], "generator_device")
    h = ops.same_generator(g)
    check(h.initial_seed() == 1234, "same_generator returns the same generator")

# errors: RuntimeError carrying the kernel's message
try:
    ops.fail(a, "this is the kernel's message")
    check(False, "fail did not raise")
except RuntimeError as e:
    check("this is the kernel's message" in str(e) and "sgt_fail" in str(e),
          "fail message: %s" % e)
try:
    ops.fail_late(a, [a, b.double()])
    check(False, "fail_late did not raise")
except RuntimeError as e:
    check("ys[1] is not float32" in str(e), "fail_late message: %s" % e)
try:
    ops.sum_tensors([a.double()], [], None)
    check(False, "sum_tensors on float64 did not raise")
except RuntimeError as e:
    check("contiguous float32" in str(e), "sum_tensors message: %s" % e)

# reference counts: the kernels steal every argument and release it exactly once, on
# success and on failure
base = (a._use_count(), b._use_count(), c._use_count(), y._use_count(), out._use_count())
for _ in range(2000):
    ops.sum_tensors([a, b], [None, c], a)
    ops.scale_(y, 1.0)
    ops.scale.out(y, 1.0, out=out)
    ops.stats(a)
    try:
        ops.fail_late(a, [b, c.double()])
    except RuntimeError:
        pass
    try:
        ops.fail(b, "x")
    except RuntimeError:
        pass
after = (a._use_count(), b._use_count(), c._use_count(), y._use_count(), out._use_count())
check(base == after, "use counts changed over 2000 calls: %r -> %r" % (base, after))

# no C heap growth over many calls that pass optionals' cells, lists and strings, on
# success and on failure (a leaked cell, list or string handle is 8 to 100 bytes per call)
def rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4


# PyTorch 2.10's libtorch never frees the string a boxed kernel returns (measured: an
# extension made with PyTorch's own STABLE_TORCH_LIBRARY returning a std::string grows the
# same way on 2.10, not on 2.15; docs/target-torch.md); there, the strings go in as
# arguments only (fail's message, released by the boxed kernel on its failure path).
STR_RETURN_LEAKS = torch.__version__.startswith("2.10.")


def churn(k):
    ad = a.double()
    for _ in range(k):
        ops.echo_ints(1, 2, [1, 2, 3], [4, 5])
        ops.echo_floats(0.5, 1.5, [1.0], [2.0, 3.0])
        if STR_RETURN_LEAKS:
            try:
                ops.fail(a, "abc" * 40)
            except RuntimeError:
                pass
        else:
            ops.echo_str("abc", "def")
        try:
            ops.sum_tensors([ad], [None, c], a)
        except RuntimeError:
            pass


churn(5000)
r0 = rss_kb()
churn(50000)
grown = rss_kb() - r0
check(grown < 2048, "resident memory grew by %d KiB over 50,000 rounds" % grown)

# the dispatch key the YAML names
dump = torch._C._dispatch_dump("sgt::echo_ints")
check("CompositeExplicitAutograd" in dump and "\nCPU:" not in dump,
      "echo_ints under CompositeExplicitAutograd: %s" % dump)
check("CPU: registered" in torch._C._dispatch_dump("sgt::stats"), "stats under CPU")

if failures:
    print("torch_target.py: %d failure(s)" % len(failures))
    sys.exit(1)
print("  torch_target.py: every op, error and count as expected")

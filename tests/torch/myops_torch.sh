#!/bin/sh
# tests/torch/myops_torch.sh: examples/myops built as a PyTorch extension from the same
# schemas and kernel as the libshimrt build (examples/myops/build_torch.sh), loaded into
# real PyTorch 2.15 with torch.ops.load_library: myops::add_scalar against PyTorch's own
# x + s (contiguous and strided inputs), a float64 input as RuntimeError with the kernel's
# message, the CompositeExplicitAutograd key. Plain pass only (loads libtorch).
set -eu
[ "${SAN:-}" = 1 ] && { echo "myops_torch: skipped under SAN=1 (loads libtorch)"; exit 77; }
rc=0; PY=$(.ci/torch-env) || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
SHIMGEN=${SHIMGEN:-build/shimgen}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PYTHON=$PY sh examples/myops/build_torch.sh "$SHIMGEN" "$T" >/dev/null
"$PY" - "$T/libmyops_torch.so" <<'PYEOF'
import sys
import torch
torch.ops.load_library(sys.argv[1])
x = torch.randn(3, 4)
for t, s in ((x, 10.0), (x.t(), -1.5), (x[:, ::2], 0.25), (torch.randn(0, 2), 1.0)):
    got = torch.ops.myops.add_scalar(t, s)
    assert torch.allclose(got, t + s), (got, t + s)
    assert got.is_contiguous() and got.shape == t.shape
try:
    torch.ops.myops.add_scalar(x.double(), 1.0)
    raise SystemExit("myops_torch: float64 input did not raise")
except RuntimeError as e:
    assert "input must be float32, got dtype code 7" in str(e), str(e)
before = x._use_count()
for _ in range(1000):
    torch.ops.myops.add_scalar(x, 1.0)
assert x._use_count() == before, (before, x._use_count())
dump = torch._C._dispatch_dump("myops::add_scalar")
assert "CompositeExplicitAutograd" in dump, dump
print("  myops_torch: add_scalar matches x + s; errors raise RuntimeError; counts stable")
PYEOF

# Load and unload: dlclose runs the destructor that unregisters; loading again registers.
"$PY" - "$T/libmyops_torch.so" <<'PYEOF'
import ctypes, _ctypes, sys
import torch
def present():
    try:
        return torch._C._dispatch_has_kernel_for_dispatch_key("myops::add_scalar", "CompositeExplicitAutograd")
    except RuntimeError as e:
        assert "does not exist" in str(e), str(e)
        return False
assert not present()
for _ in range(3):
    lib = ctypes.CDLL(sys.argv[1])
    assert present(), "not registered after loading"
    _ctypes.dlclose(lib._handle)
    assert not present(), "still registered after unloading"
lib = ctypes.CDLL(sys.argv[1])
assert torch.equal(torch.ops.myops.add_scalar(torch.ones(2), 1.0), torch.full((2,), 2.0))
print("  myops_torch: loading registers, unloading unregisters (3 rounds)")
PYEOF

# The wheel recipe of examples/myops/README.md: setup.py + myops/__init__.py, built with
# setuptools from the torch venv, imported as a package.
W=$T/wheel
mkdir -p "$W"
cp -r examples/myops/setup.py examples/myops/myops examples/myops/myops_kernel.c "$W/"
"$SHIMGEN" -q --target=torch -o "$W/generated" examples/myops/schemas
(cd "$W" && "$PY" setup.py -q build_ext --inplace >build.log 2>&1) ||
  { tail -20 "$W/build.log" >&2; echo "myops_torch: FAIL: setup.py build_ext" >&2; exit 1; }
PYTHONPATH=$W "$PY" -c '
import torch, myops
x = torch.arange(4.0)
assert torch.equal(torch.ops.myops.add_scalar(x, 0.5), x + 0.5)
print("  myops_torch: the setuptools recipe builds, `import myops` registers the op")'

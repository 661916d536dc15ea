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
"$PY" tests/torch/myops_torch.py "$T/libmyops_torch.so"

# Load and unload: dlclose runs the destructor that unregisters; loading again registers.
"$PY" tests/torch/myops_unload.py "$T/libmyops_torch.so"

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

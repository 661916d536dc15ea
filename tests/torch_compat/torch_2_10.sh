#!/bin/sh
# tests/torch_compat/torch_2_10.sh (`make check-torch-compat`, not part of `make check`):
# `shimgen --target=torch` against the oldest PyTorch it supports, 2.10, installed from
# PyPI into its own cached venv (`.ci/torch-env 2.10.0`, about 5 GB, once):
#   1. tests/torch/ops made with --torch-version 2.10 and built against PyTorch 2.10's
#      libtorch, loaded into 2.10 with torch.ops.load_library: every op, its errors as
#      RuntimeError, use counts, unregister/register, dispatch keys (torch_target.py), and
#      with tests/torch/ops_aten the dispatcher-routed shims of those ops (torch_aten.py);
#   2. examples/myops built as its README says (build_torch.sh) against 2.10 and loaded;
#   3. the same 2.10 output built against PyTorch 2.15 (an extension built with the newest
#      PyTorch for the oldest) loads and works in 2.10;
#   4. output made for a newer release is refused as docs/target-torch.md says: built
#      against 2.15, it does not load into 2.10 (OSError naming the first missing libtorch
#      function, nothing registered); linked against 2.10, the link fails.
# Exit 77 when SHIMGEN_TORCH=skip or SAN=1 (loads libtorch). Needs PyTorch 2.15 too.
set -eu
[ "${SAN:-}" = 1 ] && { echo "torch_2_10: skipped under SAN=1 (loads libtorch)"; exit 77; }
rc=0; PY10=$(.ci/torch-env 2.10.0) || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
rc=0; PY15=$(.ci/torch-env) || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
SHIMGEN=${SHIMGEN:-build/shimgen}
export SHIMGEN
torch_dir() { "$1" -c 'import os, torch; print(os.path.dirname(torch.__file__))'; }
TORCH10=$(torch_dir "$PY10") TORCH15=$(torch_dir "$PY15")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "torch_2_10: FAIL: $*" >&2; exit 1; }
v=$("$PY10" -c 'import torch; print(torch.__version__)')
case $v in 2.10.*) ;; *) fail "$PY10 has torch $v, not 2.10";; esac

# 1. tests/torch/ops for 2.10, built against 2.10.
TORCH=$TORCH10 sh tests/torch/build_ext "$T/ops" tests/torch/ops tests/torch/ops_kernels.c \
  --torch-version 2.10 || fail "building tests/torch/ops against PyTorch 2.10"
"$PY10" tests/torch/torch_target.py "$T/ops/lib.so" || fail "torch_target.py in PyTorch 2.10"
# and the dispatcher-routed shims of its ops (libtorch 2.10 logs each failed call on stderr)
TORCH=$TORCH10 sh tests/torch/build_ext "$T/aten" "tests/torch/ops tests/torch/ops_aten" \
  "tests/torch/ops_kernels.c tests/torch/ops_aten_kernels.c" --torch-version 2.10 ||
  fail "building tests/torch/ops_aten against PyTorch 2.10"
"$PY10" tests/torch/torch_aten.py "$T/aten/lib.so" 2>"$T/aten.err" ||
  { tail -5 "$T/aten.err" >&2; fail "torch_aten.py in PyTorch 2.10"; }

# 2. examples/myops, as its README builds it, loaded and unloaded.
TORCH=$TORCH10 sh examples/myops/build_torch.sh "$SHIMGEN" "$T/myops" >/dev/null ||
  fail "examples/myops/build_torch.sh against PyTorch 2.10"
"$PY10" tests/torch/myops_torch.py "$T/myops/libmyops_torch.so" || fail "myops in PyTorch 2.10"
"$PY10" tests/torch/myops_unload.py "$T/myops/libmyops_torch.so" || fail "myops unload in 2.10"

# 3. The 2.10 output built against PyTorch 2.15, loaded into 2.10.
TORCH=$TORCH15 sh tests/torch/build_ext "$T/ops15" tests/torch/ops tests/torch/ops_kernels.c \
  --torch-version 2.10 || fail "building tests/torch/ops (2.10) against PyTorch 2.15"
"$PY10" tests/torch/torch_target.py "$T/ops15/lib.so" || fail "a 2.10 output built with 2.15, in 2.10"
echo "  torch_2_10: --torch-version 2.10 output built with 2.10 and with 2.15 works in 2.10"

# 4. Output for 2.12, 2.13, 2.15 in PyTorch 2.10: refused when loaded or linked.
for r in 2.12 2.13 2.15; do
  TORCH=$TORCH15 sh tests/torch/build_ext "$T/new" tests/torch/ops tests/torch/ops_kernels.c \
    --torch-version "$r" || fail "building tests/torch/ops for $r against PyTorch 2.15"
  "$PY10" - "$T/new/lib.so" "$r" <<'PYEOF' || fail "output for $r in PyTorch 2.10"
import sys
import torch
lib, release = sys.argv[1:]
try:
    torch.ops.load_library(lib)
    raise SystemExit("output for %s loaded into PyTorch %s" % (release, torch.__version__))
except OSError as e:
    msg = "%s (%s)" % (e, e.__cause__)  # load_library's own message, dlopen's as the cause
    assert "undefined symbol: torch_" in msg, msg
    why = msg.split("undefined symbol: ")[1].rstrip(")")
try:
    torch._C._dispatch_has_kernel_for_dispatch_key("sgt::stats", "CPU")
    raise SystemExit("sgt::stats registered by a library that did not load")
except RuntimeError as e:
    assert "does not exist" in str(e), str(e)
print("  torch_2_10: output for %s refused by PyTorch 2.10 (OSError: undefined symbol: %s)"
      % (release, why))
PYEOF
  if TORCH=$TORCH10 sh tests/torch/build_ext "$T/link" tests/torch/ops tests/torch/ops_kernels.c \
       --torch-version "$r" 2>"$T/link.err"; then
    fail "output for $r links against PyTorch 2.10's libtorch"
  fi
  grep -q "undefined reference to .torch_" "$T/link.err" ||
    { cat "$T/link.err" >&2; fail "linking output for $r against 2.10 failed for another reason"; }
done
echo "  torch_2_10: output for 2.12, 2.13, 2.15 does not link against PyTorch 2.10's libtorch"

#!/bin/sh
# tests/torch/compat_wheel.sh: `--compat=torchgen` on PyTorch 2.15's own packaged inputs
# (torchgen/packaged/ATen/native/{native_functions,tags}.yaml and the op list of
# torchgen/aoti/fallback_ops.py, converted to shim_ops.yaml by fallback_ops_to_yaml.py)
# writes c_shim_{aten,cpu,cuda,mps,xpu}.h byte for byte as the wheel ships them in
# include/torch/csrc/inductor/aoti_torch/generated/. Needs .ci/torch-env (77 when skipped).
set -eu
SHIMGEN=${SHIMGEN:-build/shimgen}
rc=0; PY=$(.ci/torch-env) || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
TORCH=$("$PY" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
SP=$(dirname "$TORCH")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "compat_wheel: FAIL: $*" >&2; exit 1; }
mkdir "$T/in"
cp "$SP/torchgen/packaged/ATen/native/native_functions.yaml" \
   "$SP/torchgen/packaged/ATen/native/tags.yaml" "$T/in/"
"$PY" tests/torch/fallback_ops_to_yaml.py "$SP/torchgen/aoti/fallback_ops.py" > "$T/in/shim_ops.yaml"
grep -q 'v2: {new_args: \[' "$T/in/shim_ops.yaml" || fail "the op list has no version with its own since"
"$SHIMGEN" -q --compat=torchgen --backends cpu,cuda,mps,xpu "$T/in" -o "$T/out" 2> "$T/err" ||
  { cat "$T/err" >&2; fail "shimgen failed"; }
for b in aten cpu cuda mps xpu; do
  want="$TORCH/include/torch/csrc/inductor/aoti_torch/generated/c_shim_$b.h"
  [ -f "$want" ] || fail "the wheel has no $want"
  cmp -s "$T/out/c_shim_$b.h" "$want" ||
    { diff "$want" "$T/out/c_shim_$b.h" | head -20 >&2; fail "c_shim_$b.h differs from the wheel's"; }
  echo "  c_shim_$b.h: $(wc -l < "$want" | tr -d ' ') lines, identical to torch 2.15's"
done

# Every op of PyTorch's file (derived ones too), as torchgen itself writes the header for
# them: ops it gives no C form (a Tensor[] return: _foreach_*, _amp_foreach_*) are dropped
# in compat mode as well, though the default mode has a C form for them (issue 17).
mkdir "$T/all"
cp "$T/in/native_functions.yaml" "$T/in/tags.yaml" "$T/all/"
for key in CPU CUDA; do
  b=$(echo "$key" | tr 'A-Z' 'a-z')
  "$PY" tests/torch/torchgen_all_ops.py "$key" "$T/all/shim_ops.yaml" > "$T/want_$b.h" ||
    fail "torchgen failed for $key"
  "$SHIMGEN" -q --compat=torchgen --backends "$b" "$T/all" -o "$T/out_all" 2> "$T/err" ||
    { cat "$T/err" >&2; fail "shimgen failed on every op"; }
  cmp -s "$T/out_all/c_shim_$b.h" "$T/want_$b.h" ||
    { diff "$T/want_$b.h" "$T/out_all/c_shim_$b.h" | head -20 >&2;
      fail "every op: c_shim_$b.h differs from torchgen's"; }
  echo "  every op, c_shim_$b.h: $(grep -c AOTI_TORCH_EXPORT "$T/want_$b.h") declarations, identical to torchgen's"
done

#!/bin/sh
# tests/torch/target_errors.sh: what --target=torch refuses, as `file:line:col: error:`
# (exit 1, nothing written): Scalar, Scalar? and Scalar[] arguments and a Scalar return
# (no StableIValue encoding up to PyTorch 2.15), a Generator before --torch-version 2.13,
# aten_ops of aten:: ops, aten_ops whose returns torch_call_dispatcher cannot give back;
# the same inputs are fine for --target=shimrt; the usage errors (exit 2).
set -eu
SHIMGEN=${SHIMGEN:-build/shimgen}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "target_errors: FAIL: $*" >&2; exit 1; }
D=tests/torch/reject
N=$D/native_functions.yaml

rc=0; "$SHIMGEN" --target=torch -o "$T/out" "$D" 2> "$T/err" || rc=$?
[ "$rc" = 1 ] || fail "--target=torch on Scalar ops: exit $rc, expected 1"
[ ! -e "$T/out" ] || fail "--target=torch wrote output despite errors"
for want in \
  "$N:1:31: error: rej.add.default: argument 'alpha' of type 'Scalar' has no StableIValue encoding" \
  "$N:4:33: error: rej.maybe.default: argument 'alpha' of type 'Scalar?' has no StableIValue encoding" \
  "$N:7:32: error: rej.many.default: argument 'values' of type 'Scalar[]' has no StableIValue encoding" \
  "$N:13:9: error: rej.item.default: return 0 of type 'Scalar' has no StableIValue encoding" \
  "$N:10:32: error: rej.rand.default: argument 'g' of type 'Generator?' needs PyTorch 2.13"; do
  W="$want" awk 'index($0, ENVIRON["W"]) == 1 { f = 1 } END { exit !f }' "$T/err" ||
    { cat "$T/err" >&2; fail "no diagnostic: $want"; }
done
# 2.13 accepts the Generator, still refuses the Scalars.
rc=0; "$SHIMGEN" --target=torch --torch-version 2.13 -o "$T/out" "$D" 2> "$T/err" || rc=$?
[ "$rc" = 1 ] && ! grep -q "rej.rand" "$T/err" && [ "$(grep -c ': error: ' "$T/err")" = 4 ] ||
  { cat "$T/err" >&2; fail "--torch-version 2.13"; }
# The default target takes them all.
"$SHIMGEN" -q -o "$T/shimrt" "$D" || fail "--target=shimrt refused the Scalar ops"
"$SHIMGEN" -q --target=shimrt -o "$T/shimrt2" "$D" || fail "--target=shimrt (explicit)"
cmp -s "$T/shimrt/c_shim_cpu.c" "$T/shimrt2/c_shim_cpu.c" || fail "--target=shimrt is not the default"
# aten_ops of aten:: ops are libtorch's own (docs/target-torch.md says why); those of the
# extension's own ops are made (through torch_call_dispatcher, tests/torch/torch_aten.py)
# unless their returns' types do not read the same backwards (PyTorch's
# torch_call_dispatcher converts return i with the type of return n-1-i).
rc=0; "$SHIMGEN" --target=torch -o "$T/out" schemas 2> "$T/err" || rc=$?
[ "$rc" = 1 ] && grep -q "^schemas/shim_ops.yaml:[0-9]*:[0-9]*: error: aten\.abs\.default: aten_ops of aten:: ops are not part of --target=torch: an extension must not define aoti_torch_aten_abs, which libtorch exports itself" "$T/err" ||
  { head -5 "$T/err" >&2; fail "aten_ops of aten ops under --target=torch"; }
mkdir -p "$T/own"
cp tests/torch/ops/native_functions.yaml tests/torch/ops/tags.yaml "$T/own/"
printf 'backends: [cpu]\nfallback_ops:\n  sgt.stats.default: {}\naten_ops:\n  sgt.scale.default: {}\n  sgt.stats.default: {}\n  sgt.fail_late.default: {}\n' > "$T/own/shim_ops.yaml"
rc=0; "$SHIMGEN" --target=torch -o "$T/out" "$T/own" 2> "$T/err" || rc=$?
[ "$rc" = 1 ] && [ "$(grep -c ': error: ' "$T/err")" = 1 ] &&
  grep -q "^$T/own/shim_ops.yaml:6:3: error: sgt\.stats\.default: aten_ops: return 0 ('Tensor') and return 5 ('ScalarType') differ: PyTorch's torch_call_dispatcher converts each return with the type of the one at the mirrored place" "$T/err" ||
  { cat "$T/err" >&2; fail "aten_ops of a tuple torch_call_dispatcher cannot return"; }
[ ! -e "$T/out" ] || fail "--target=torch wrote output despite an error"
printf 'backends: [cpu]\nfallback_ops:\n  sgt.stats.default: {}\naten_ops:\n  sgt.scale.default: {}\n  sgt.fail_late.default: {}\n' > "$T/own/shim_ops.yaml"
"$SHIMGEN" -q --target=torch -o "$T/own_out" "$T/own" || fail "aten_ops of the extension's own ops"
grep -q 'torch_call_dispatcher' "$T/own_out/shimgen_torch_support.c" &&
  grep -q '^AOTITorchError aoti_torch_aten_sgt_scale(' "$T/own_out/c_shim_aten.c" &&
  grep -q '^AOTITorchError aoti_torch_aten_sgt_fail_late(' "$T/own_out/c_shim_aten.c" ||
  fail "no dispatcher-routed shims for the extension's own ops"
# Usage errors.
for args in "--torch-version 2.13" "--target=torch --torch-version 2.9" \
            "--target=torch --torch-version 3.0" "--target=torch --torch-version two" \
            "--target=torch --compat=torchgen" "--target=cuda"; do
  rc=0
  # shellcheck disable=SC2086
  "$SHIMGEN" $args -o "$T/u" "$D" 2> "$T/err" || rc=$?
  [ "$rc" = 2 ] && grep -q '^shimgen: error: ' "$T/err" || fail "'$args': exit $rc, expected a usage error"
done
echo "  target_errors: Scalar, Scalar?, Scalar[], Generator before 2.13, aten_ops, usage"

# A good run: deterministic, --check sees no difference, the depfile names the template,
# and (plain pass) valgrind-clean on both a good and a refused input.
OPS="tests/torch/ops tests/torch/ops_gen"
# shellcheck disable=SC2086
"$SHIMGEN" -q --target=torch --torch-version 2.13 --depfile "$T/dep" -o "$T/g1" $OPS || fail "good run"
# shellcheck disable=SC2086
"$SHIMGEN" -q --target=torch --torch-version 2.13 -o "$T/g2" $OPS || fail "second run"
diff -r "$T/g1" "$T/g2" >/dev/null || fail "two runs differ"
# shellcheck disable=SC2086
"$SHIMGEN" -q --check --target=torch --torch-version 2.13 -o "$T/g1" $OPS >/dev/null ||
  fail "--check after a run reports a difference"
grep -q 'templates/torch/torch.in' "$T/dep" || fail "the depfile does not name templates/torch/torch.in"
for f in shimrt/shimrt.h shimrt/shim_support.h shimgen_torch_support.c shimgen_torch_boundary.cc; do
  [ -f "$T/g1/$f" ] || fail "no $f"
done
if [ "${SAN:-}" != 1 ] && command -v valgrind >/dev/null 2>&1; then
  VG="valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all --error-exitcode=99"
  # shellcheck disable=SC2086
  $VG "$SHIMGEN" -q --target=torch --torch-version 2.13 -o "$T/g3" $OPS 2> "$T/vg" ||
    { cat "$T/vg" >&2; fail "valgrind on a --target=torch run"; }
  rc=0; $VG "$SHIMGEN" -q --target=torch -o "$T/g4" "$D" 2> "$T/vg" || rc=$?
  [ "$rc" = 1 ] || { cat "$T/vg" >&2; fail "valgrind on a refused --target=torch run (exit $rc)"; }
  echo "  target_errors: deterministic, --check, depfile, valgrind clean"
else
  echo "  target_errors: deterministic, --check, depfile"
fi

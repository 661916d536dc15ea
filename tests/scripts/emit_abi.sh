#!/bin/sh
# tests/scripts/emit_abi.sh: --abi-check DIR against released headers. A removed function,
# a changed parameter type and a changed parameter order are errors (exit 1) naming the
# function and the parameter; an added function, such as a new _v2, is reported and
# exits 0. --abi-check writes nothing.
set -eu
SHIMGEN=${SHIMGEN:-build/shimgen}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "emit_abi: FAIL: $*" >&2; exit 1; }
FX=tests/fixtures/emit_abi
"$SHIMGEN" -q --backends cpu "$FX" -o "$T/released" || fail "baseline run"
grep -q 'aoti_torch_cpu_shift(AtenTensorHandle self, int64_t steps, double fill, AtenTensorHandle\* ret0);' \
  "$T/released/c_shim_cpu.h" || fail "baseline declaration"

variant() { # name sed-on-native_functions sed-on-shim_ops
  rm -rf "$T/$1"; mkdir "$T/$1"
  sed "$2" "$FX/native_functions.yaml" > "$T/$1/native_functions.yaml"
  sed "$3" "$FX/shim_ops.yaml" > "$T/$1/shim_ops.yaml"
}
run() { # name expected-rc
  set +e; "$SHIMGEN" --backends cpu --abi-check "$T/released" "$T/$1" -o "$T/out_$1" > "$T/$1.out" 2> "$T/$1.err"; rc=$?; set -e
  [ "$rc" = "$2" ] || { cat "$T/$1.err" >&2; fail "$1: exit $rc, expected $2"; }
  [ ! -e "$T/out_$1" ] || fail "$1: --abi-check wrote outputs"
}
expect() { # name pattern
  grep -q -- "$2" "$T/$1.err" || { cat "$T/$1.err" >&2; fail "$1: no message matching: $2"; }
}

# Unchanged: exit 0, no error.
variant same 's/x/x/' 's/x/x/'
run same 0
! grep -q error "$T/same.err" || fail "same: errors reported"

# A removed function.
variant removed 's/x/x/' '/roll_back/d'
run removed 1
expect removed "released/c_shim_cpu.h:[0-9]*:1: error: aoti_torch_cpu_roll_back: function was removed"
echo "  removed function: error, exit 1"

# A changed parameter type.
variant retyped 's/shift(Tensor self, int steps/shift(Tensor self, float steps/' 's/x/x/'
run retyped 1
expect retyped "error: aoti_torch_cpu_shift: parameter 'steps' changed type from 'int64_t' to 'double'"
echo "  changed type: error naming function and parameter, exit 1"

# A changed order.
variant reordered 's/shift(Tensor self, int steps, float fill=0.0)/shift(Tensor self, float fill=0.0, int steps=0)/' 's/x/x/'
run reordered 1
expect reordered "error: aoti_torch_cpu_shift: parameter order changed: 'fill' (parameter 3, now 2) now comes before 'steps' (parameter 2, now 3)"
echo "  changed order: error naming function and parameter, exit 1"

# A new argument with a new version: the plain function stays, _v2 is added.
variant v2 's/float fill=0.0)/float fill=0.0, bool wrap=False)/' 's/aten.shift.default: {}/aten.shift.default: {versions: {v2: [wrap]}}/'
run v2 0
expect v2 "note: aoti_torch_cpu_shift_v2: function was added"
! grep -q error "$T/v2.err" || fail "v2: errors reported"
echo "  added _v2: reported, exit 0"

# The same argument without a version changes the plain function: an error.
variant widened 's/float fill=0.0)/float fill=0.0, bool wrap=False)/' 's/x/x/'
run widened 1
expect widened "error: aoti_torch_cpu_shift: parameter 'int32_t wrap' was added at position 4"
echo "  added parameter without a version: error, exit 1"

# A header missing from DIR: all its functions are new.
variant newbackend 's/    CPU: roll_back_cpu/    CPU, CUDA: roll_back_kernel/' 's/x/x/'
set +e; "$SHIMGEN" --backends cpu,cuda --abi-check "$T/released" "$T/newbackend" > /dev/null 2> "$T/nb.err"; rc=$?; set -e
[ $rc = 0 ] || { cat "$T/nb.err" >&2; fail "new header: exit $rc"; }
grep -q "note: aoti_torch_cuda_shift: function was added" "$T/nb.err" || fail "new header: no note"
# A malformed released header is an error, not a crash.
mkdir "$T/broken"; printf 'AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_shift(AtenTensorHandle self\n' > "$T/broken/c_shim_cpu.h"
set +e; "$SHIMGEN" --backends cpu --abi-check "$T/broken" "$FX" > /dev/null 2> "$T/br.err"; rc=$?; set -e
[ $rc = 1 ] || fail "broken header: exit $rc"
grep -q "unterminated declaration" "$T/br.err" || { cat "$T/br.err" >&2; fail "broken header: no message"; }
# The baseline must exist (issue 22): a missing directory or a file is an error, not a pass.
for base in "$T/no_such_dir" "$T/broken/c_shim_cpu.h"; do
  set +e; "$SHIMGEN" --backends cpu --abi-check "$base" "$FX" > /dev/null 2> "$T/nd.err"; rc=$?; set -e
  [ $rc = 1 ] || { cat "$T/nd.err" >&2; fail "--abi-check $base: exit $rc, expected 1"; }
  grep -q -- "$base: error: --abi-check needs the directory of the older headers" "$T/nd.err" ||
    { cat "$T/nd.err" >&2; fail "--abi-check $base: no message"; }
done
echo "  missing baseline directory or a file: error, exit 1"
# Dropping a backend against a cpu+cuda baseline removes every function of its header.
"$SHIMGEN" -q --backends cpu,cuda "$T/newbackend" -o "$T/released2" || fail "cpu+cuda baseline run"
set +e; "$SHIMGEN" --backends cpu --abi-check "$T/released2" "$T/newbackend" > /dev/null 2> "$T/drop.err"; rc=$?; set -e
[ $rc = 1 ] || { cat "$T/drop.err" >&2; fail "dropped backend: exit $rc, expected 1"; }
grep -q "released2/c_shim_cuda.h:[0-9]*:1: error: aoti_torch_cuda_shift: function was removed" "$T/drop.err" ||
  { cat "$T/drop.err" >&2; fail "dropped backend: no message"; }
echo "  backend dropped from --backends: error, exit 1"
echo "emit_abi: ok"

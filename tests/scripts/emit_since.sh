#!/bin/sh
# tests/scripts/emit_since.sh: `since` gates and `versions`. A caller built with
# TORCH_TARGET_VERSION below 2.12 cannot use a shim from 2.12 (the compile fails), at 2.12
# it can; _v3, _v2 and the plain function come highest first with the right parameters;
# a release newer than the runtime's headers gets its TORCH_VERSION macro from the header.
set -eu
SHIMGEN=${SHIMGEN:-build/shimgen}
CC=${CC:-cc}
CXX=${CXX:-c++}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "emit_since: FAIL: $*" >&2; exit 1; }
FLAGS="-Wall -Wextra -Werror -pedantic -Iruntime/include"
V() { echo "(((0ULL + $1) << 56) | ((0ULL + $2) << 48))"; }

"$SHIMGEN" -q --backends cpu tests/fixtures/emit_since -o "$T/default" || fail "shimgen"
"$SHIMGEN" -q --compat=torchgen --backends cpu tests/fixtures/emit_since -o "$T/compat" || fail "shimgen --compat"

for mode in default compat; do
  h="$T/$mode/c_shim_cpu.h"
  # Highest version first, each gated with the exact lines of docs/shim-rules.md.
  grep -E '^(AOTI|#if TORCH|#endif // TORCH)' "$h" > "$T/got"
  cat > "$T/want" <<'X'
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_future_op(AtenTensorHandle self, AtenTensorHandle* ret0);
#endif // TORCH_FEATURE_VERSION >= TORCH_VERSION_2_16_0
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_old_op(AtenTensorHandle self, AtenTensorHandle* ret0);
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_12_0
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_shift_v3(AtenTensorHandle self, int64_t steps, int32_t wrap, double fill, AtenTensorHandle* ret0);
#endif // TORCH_FEATURE_VERSION >= TORCH_VERSION_2_12_0
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_12_0
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_shift_v2(AtenTensorHandle self, int64_t steps, int32_t wrap, AtenTensorHandle* ret0);
#endif // TORCH_FEATURE_VERSION >= TORCH_VERSION_2_12_0
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_12_0
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_shift(AtenTensorHandle self, int64_t steps, AtenTensorHandle* ret0);
#endif // TORCH_FEATURE_VERSION >= TORCH_VERSION_2_12_0
X
  { echo '#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_16_0'; cat "$T/want"; } > "$T/want2"
  diff "$T/want2" "$T/got" || fail "$mode: declarations and gates"
done
echo "  gates and versions: exact lines, highest version first"

cat > "$T/caller.c" <<'X'
#include "c_shim_cpu.h"
int call(AtenTensorHandle t, AtenTensorHandle* r) {
    return aoti_torch_cpu_shift_v2(t, 1, 0, r) | aoti_torch_cpu_shift(t, 1, r);
}
X
cat > "$T/old.c" <<'X'
#include "c_shim_cpu.h"
int call(AtenTensorHandle t, AtenTensorHandle* r) { return aoti_torch_cpu_old_op(t, r); }
X
cat > "$T/future.c" <<'X'
#include "c_shim_cpu.h"
int call(AtenTensorHandle t, AtenTensorHandle* r) { return aoti_torch_cpu_future_op(t, r); }
X
for mode in default compat; do
  I="-I$T/$mode"
  for std in "$CC -std=c11" "$CXX -std=c++17 -x c++"; do
    if $std $FLAGS $I -DTORCH_TARGET_VERSION="$(V 2 11)" -c "$T/caller.c" -o "$T/x.o" 2> "$T/err"; then
      fail "$mode, $std: a 2.12 shim compiled with TORCH_TARGET_VERSION 2.11"
    fi
    grep -q 'aoti_torch_cpu_shift' "$T/err" || { cat "$T/err" >&2; fail "$mode: the failure does not name the shim"; }
    $std $FLAGS $I -DTORCH_TARGET_VERSION="$(V 2 12)" -c "$T/caller.c" -o "$T/x.o" 2> "$T/err" ||
      { cat "$T/err" >&2; fail "$mode, $std: a 2.12 shim did not compile at 2.12"; }
    $std $FLAGS $I -c "$T/caller.c" -o "$T/x.o" 2> "$T/err" ||
      { cat "$T/err" >&2; fail "$mode, $std: a 2.12 shim did not compile without a target"; }
    $std $FLAGS $I -DTORCH_TARGET_VERSION="$(V 2 9)" -c "$T/old.c" -o "$T/x.o" 2> "$T/err" ||
      { cat "$T/err" >&2; fail "$mode, $std: an ungated shim did not compile at 2.9"; }
  done
done
# 2.16 is newer than the runtime's headers (2.15): hidden by default, and targeting it is
# itself an error of the version header.
if $CC -std=c11 $FLAGS -I"$T/default" -c "$T/future.c" -o "$T/x.o" 2> "$T/err"; then
  fail "a 2.16 shim is visible with 2.15 headers"
fi
grep -q '#define TORCH_VERSION_2_16_0' "$T/default/c_shim_cpu.h" || fail "no TORCH_VERSION_2_15_0 macro"
if $CC -std=c11 $FLAGS -I"$T/default" -DTORCH_TARGET_VERSION="$(V 2 16)" -c "$T/old.c" -o "$T/x.o" 2> "$T/err"; then
  fail "targeting 2.16 with 2.15 headers compiled"
fi
grep -q 'newer than' "$T/err" || { cat "$T/err" >&2; fail "targeting a newer release: not the version header's error"; }
echo "  TORCH_TARGET_VERSION 2.11: compile fails; 2.12 and default: compiles (C11, C++17, both modes)"
echo "emit_since: ok"

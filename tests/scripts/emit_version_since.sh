#!/bin/sh
# tests/scripts/emit_version_since.sh: a version that carries its own `since` (the shape of
# PyTorch's fallback_ops.py, `v2: {new_args: [...], since: "2.13"}`): the _v2 declaration
# is gated on 2.13, the plain one on the op's 2.11, both release macros are defined, the
# manifest gives each function its own since, and a caller built for 2.12 sees the plain
# shim only (compiled against the runtime's headers).
set -eu
SHIMGEN=${SHIMGEN:-build/shimgen}
CC=${CC:-cc}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "emit_version_since: FAIL: $*" >&2; exit 1; }
"$SHIMGEN" -q --backends cpu -o "$T/out" tests/fixtures/version_since || fail "shimgen"
h=$T/out/c_shim_cpu.h
grep -E '^(AOTI|#if TORCH|#endif // TORCH)' "$h" > "$T/got"
cat > "$T/want" <<'X'
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_13_0
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_shift_v2(AtenTensorHandle self, int64_t steps, int32_t wrap, AtenTensorHandle* ret0);
#endif // TORCH_FEATURE_VERSION >= TORCH_VERSION_2_13_0
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_11_0
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_shift(AtenTensorHandle self, int64_t steps, AtenTensorHandle* ret0);
#endif // TORCH_FEATURE_VERSION >= TORCH_VERSION_2_11_0
X
diff "$T/want" "$T/got" || fail "declarations and gates"
grep -q '^#define TORCH_VERSION_2_13_0 ' "$h" && grep -q '^#define TORCH_VERSION_2_11_0 ' "$h" ||
  fail "the release macros"
tr -d ' \n' < "$T/out/shim_manifest.json" > "$T/m"
grep -q '"name":"aoti_torch_cpu_shift_v2"[^}]*"since":"2.13"' "$T/m" &&
  grep -q '"name":"aoti_torch_cpu_shift"[^}]*"since":"2.11"' "$T/m" || fail "manifest since"
V() { echo "(((0ULL + $1) << 56) | ((0ULL + $2) << 48))"; }
printf '#include "c_shim_cpu.h"\nint main(void) { return aoti_torch_cpu_shift(0, 1, 0) != 0; }\n' > "$T/v1.c"
printf '#include "c_shim_cpu.h"\nint main(void) { return aoti_torch_cpu_shift_v2(0, 1, 0, 0) != 0; }\n' > "$T/v2.c"
F="-std=c11 -Wall -Wextra -Werror -fsyntax-only -Iruntime/include -I$T/out"
# shellcheck disable=SC2086
$CC $F -DTORCH_TARGET_VERSION="$(V 2 12)" "$T/v1.c" || fail "2.12 cannot call the plain shim"
# shellcheck disable=SC2086
$CC $F -DTORCH_TARGET_VERSION="$(V 2 12)" "$T/v2.c" 2>/dev/null && fail "2.12 can call _v2 (2.13)"
# shellcheck disable=SC2086
$CC $F -DTORCH_TARGET_VERSION="$(V 2 13)" "$T/v2.c" || fail "2.13 cannot call _v2"
echo "emit_version_since: ok"

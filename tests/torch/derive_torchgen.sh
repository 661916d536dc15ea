#!/bin/sh
# tests/torch/derive_torchgen.sh: shimgen's model of PyTorch 2.15's own native_functions.yaml
# is torchgen's. torchgen.gen.parse_native_yaml (the wheel's, the generator PyTorch builds
# with) lists every function, the written ones and those it derives from `autogen:`; the
# canonical schema strings of `shimgen --print-schemas=all` must be that list, no more, no
# fewer, each as torchgen prints it. Needs .ci/torch-env (77 when skipped).
set -eu
SHIMGEN=${SHIMGEN:-build/shimgen}
rc=0; PY=$(sh .ci/torch-env) || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
if [ -z "${SHARED:-}" ]; then rc=0; SHARED=$(sh .ci/pytorch-data) || rc=$?; [ "$rc" -eq 0 ] || exit "$rc"; fi
PT="$SHARED/pytorch"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "derive_torchgen: FAIL: $*" >&2; exit 1; }
"$PY" - "$PT/native_functions.yaml" "$PT/tags.yaml" > "$T/torchgen" <<'PYEOF'
import sys
from torchgen.gen import parse_native_yaml
for f in parse_native_yaml(sys.argv[1], sys.argv[2]).native_functions:
    print(f.func)
PYEOF
"$SHIMGEN" --print-schemas=all "$PT" > "$T/shimgen" 2> "$T/err" || { cat "$T/err" >&2; fail "shimgen failed"; }
written=$(grep -c '^- func: ' "$PT/native_functions.yaml")
n=$(wc -l < "$T/torchgen" | tr -d ' ')
[ "$n" -gt "$written" ] || fail "torchgen listed $n functions, no more than the $written written"
LC_ALL=C sort "$T/torchgen" > "$T/want"
LC_ALL=C sort "$T/shimgen" > "$T/got"
diff "$T/want" "$T/got" > "$T/diff" || { head -20 "$T/diff" >&2; fail "shimgen's functions differ from torchgen's (< torchgen, > shimgen)"; }
echo "derive_torchgen: ok: $n functions ($written written, $((n - written)) derived), torchgen's list"

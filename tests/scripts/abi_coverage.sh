#!/bin/sh
# tests/scripts/abi_coverage.sh: every function PyTorch 2.15 declares in
# aoti_torch/c/shim.h, stable/c/shim.h and aoti_torch/generated/c_shim_aten.h (parsed from
# the real headers of the torch wheel by tests/abi/decls.awk) is exported by
# build/libshimrt.so (nm -D). Functions in tests/abi/expected_missing.txt (owned by another
# issue) are reported as pending, not failed; an entry that is exported by now is reported
# so that the list shrinks. Exit 77 when PyTorch is not installed (SHIMGEN_TORCH=skip).
set -eu
BUILD=${BUILD:-build}
fail() { echo "abi_coverage: FAIL: $*" >&2; exit 1; }
rc=0; PY=$(.ci/torch-env) || rc=$?
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || fail ".ci/torch-env failed"
INC=$("$PY" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "include"))')
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for h in torch/csrc/inductor/aoti_torch/c/shim.h torch/csrc/stable/c/shim.h \
         torch/csrc/inductor/aoti_torch/generated/c_shim_aten.h; do
  [ -f "$INC/$h" ] || fail "PyTorch header $h not found under $INC"
  awk -f tests/abi/decls.awk "$INC/$h"
done | sort -u > "$T/declared"
n=$(wc -l < "$T/declared")
[ "$n" -ge 200 ] || fail "only $n declarations parsed: the header parser is broken"
nm -D --defined-only "$BUILD/libshimrt.so" | awk '{ print $3 }' | sort -u > "$T/exported"
sed -e 's/#.*//' -e '/^[[:space:]]*$/d' tests/abi/expected_missing.txt | awk '{ print $1, $2 }' |
  sort > "$T/expected"
awk '{ print $1 }' "$T/declared" | sort > "$T/names"
comm -23 "$T/names" "$T/exported" > "$T/missing"
awk '{ print $1 }' "$T/expected" | sort > "$T/expected_names"
comm -23 "$T/missing" "$T/expected_names" > "$T/unexpected"
comm -12 "$T/missing" "$T/expected_names" > "$T/pending"
comm -13 "$T/missing" "$T/expected_names" > "$T/stale"
echo "  $n functions declared by PyTorch 2.15; $(($(wc -l < "$T/names") - $(wc -l < "$T/missing"))) exported"
while read -r f; do
  echo "  pending ($(awk -v f="$f" '$1 == f { print $2 }' "$T/expected")): $f"
done < "$T/pending"
while read -r f; do echo "  exported now, delete from tests/abi/expected_missing.txt: $f"; done < "$T/stale"
if [ -s "$T/unexpected" ]; then
  sed 's/^/  MISSING: /' "$T/unexpected" >&2
  fail "$(wc -l < "$T/unexpected") declared functions are not exported by $BUILD/libshimrt.so"
fi
# A CPU function may never be on the expected-missing list.
if awk '$2 != "cuda" && $2 != "mps" && $2 != "engine"' "$T/expected" | grep -q .; then
  fail "tests/abi/expected_missing.txt lists a function of this issue"
fi
echo "abi_coverage: ok"

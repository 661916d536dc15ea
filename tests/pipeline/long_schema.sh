#!/bin/sh
# tests/pipeline/long_schema.sh: long schemas (issue 22, item 3 and the quadratic
# duplicate-argument check). A canonical schema of more than 4096 characters is accepted and
# printed back byte for byte (it overflowed a 4096-byte stack buffer and was refused as "not
# in canonical form"); a 5 MB schema of 300000 arguments, folded over lines, parses in well
# under the time limit, and its duplicate argument is found as quickly.
set -u
SHIMGEN=${SHIMGEN:-build/shimgen}
T=$(mktemp -d "${TMPDIR:-/tmp}/shimgen-long.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fail() { echo "long_schema: FAIL: $*" >&2; exit 1; }

awk 'BEGIN { printf "big("; for (i = 0; i < 400; i++) printf "%sTensor a%d", (i ? ", " : ""), i
             print ") -> Tensor" }' > "$T/want"
{ printf -- '- func: '; cat "$T/want"; } > "$T/long.yaml"
[ "$(wc -c < "$T/want")" -gt 4096 ] || fail "the schema is not longer than 4096 characters"
"$SHIMGEN" --print-schemas "$T/long.yaml" > "$T/got" 2> "$T/err" || { cat "$T/err" >&2; fail "a $(wc -c < "$T/want")-character schema was refused"; }
cmp -s "$T/want" "$T/got" || fail "the long schema does not print back byte for byte"
echo "ok: a $(wc -c < "$T/want" | tr -d ' ')-byte schema prints back unchanged"

# 300000 arguments, one per line (a plain scalar folds its lines with single spaces).
gen() { awk -v extra="$1" 'BEGIN { printf "- func: big("
  for (i = 0; i < 300000; i++) printf "%sTensor a%d", (i ? ",\n    " : ""), i
  print extra ") -> Tensor" }'; }
gen "" > "$T/big.yaml"
gen ", Tensor a7" > "$T/dup.yaml"
timeout 20 "$SHIMGEN" --print-schemas "$T/big.yaml" > "$T/out" 2> "$T/err"
rc=$?
[ "$rc" -ne 124 ] || fail "300000 arguments: not done in 20 s"
[ "$rc" -eq 0 ] || { head -c 400 "$T/err" >&2; fail "300000 arguments: exit status $rc"; }
timeout 20 "$SHIMGEN" --print-schemas "$T/dup.yaml" > "$T/out" 2> "$T/err"
rc=$?
[ "$rc" -ne 124 ] || fail "300000 arguments and a duplicate: not done in 20 s"
[ "$rc" -eq 1 ] && grep -q "error: duplicate argument name 'a7'" "$T/err" ||
  { head -c 400 "$T/err" >&2; fail "the duplicate of 300001 arguments is not reported (status $rc)"; }
echo "ok: 300000 arguments ($(wc -c < "$T/big.yaml" | tr -d ' ') bytes) parse, and a duplicate is found, in bounded time"

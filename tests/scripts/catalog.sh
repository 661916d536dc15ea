#!/bin/sh
# tests/scripts/catalog.sh: the catalog of malformed inputs (tests/bad/).
#
# Each input must make `$SHIMGEN --print-schemas=all INPUT` exit with status 1 and print a
# diagnostic line that starts with "INPUT:LINE:COL: error: MESSAGE" as the catalog expects,
# without crashing (no exit status >= 128, no sanitizer report).
#   tests/bad/NAME.yaml         first line "# expect: LINE:COL: error: MESSAGE"
#   tests/bad/NAME + NAME.expect  a sidecar with the expectation (empty and binary files)
#   tests/bad/DIR/              a schema directory; DIR/expect holds "FILE:LINE:COL: error: ..."
# Also generated here, into a temporary directory: a 100 MB line and deeply nested YAML.
set -u
SHIMGEN=${SHIMGEN:-build/shimgen}
BAD=tests/bad
tmp=$(mktemp -d "${TMPDIR:-/tmp}/shimgen-catalog.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0
fail=0

# check INPUT EXPECTED-PREFIX
check() {
    input=$1
    expected=$2
    "$SHIMGEN" --print-schemas=all "$input" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    why=""
    if [ "$rc" -ge 128 ]; then
        why="crashed (exit status $rc)"
    elif grep -q -e 'Sanitizer' -e 'runtime error:' "$tmp/err"; then
        why="sanitizer report"
    elif [ "$rc" -ne 1 ]; then
        why="exit status $rc, expected 1"
    elif ! EXP="$expected" awk 'index($0, ENVIRON["EXP"]) == 1 { found = 1 } END { exit !found }' "$tmp/err"; then
        why="no diagnostic starting with: $expected"
    fi
    if [ -n "$why" ]; then
        fail=$((fail + 1))
        echo "FAIL $input: $why"
        sed -n '1,8s/^/    | /p' "$tmp/err"
    else
        pass=$((pass + 1))
    fi
}

for entry in "$BAD"/*; do
    case $entry in *.expect) continue ;; esac
    if [ -d "$entry" ]; then
        if [ ! -f "$entry/expect" ]; then
            echo "FAIL $entry: no expect file"; fail=$((fail + 1)); continue
        fi
        check "$entry" "$entry/$(head -n 1 "$entry/expect")"
    elif [ -f "$entry.expect" ]; then
        check "$entry" "$entry:$(head -n 1 "$entry.expect")"
    else
        exp=$(head -n 1 "$entry" | sed -n 's/^# expect: //p')
        if [ -z "$exp" ]; then
            echo "FAIL $entry: no '# expect:' first line"; fail=$((fail + 1)); continue
        fi
        check "$entry" "$entry:$exp"
    fi
done

# A single line of 100 MB: refused at the 1 MiB mark, without building a huge scalar.
{ printf -- '- func: '; head -c 104857600 /dev/zero | tr '\0' 'a'; echo; } >"$tmp/long_line.yaml"
check "$tmp/long_line.yaml" "$tmp/long_line.yaml:1:1048577: error: line is longer than 1048576 bytes"
rm -f "$tmp/long_line.yaml"
# A 100 MB comment line: the same.
{ printf -- '- func: a(Tensor self) -> Tensor\n# '; head -c 104857600 /dev/zero | tr '\0' 'x'; echo; } >"$tmp/long_comment.yaml"
check "$tmp/long_comment.yaml" "$tmp/long_comment.yaml:2:1048577: error: line is longer than 1048576 bytes"
rm -f "$tmp/long_comment.yaml"
# Flow nesting 100000 deep: refused at level 65.
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["; for (i = 0; i < 100000; i++) printf "]"; print "" }' >"$tmp/deep_flow.yaml"
check "$tmp/deep_flow.yaml" "$tmp/deep_flow.yaml:1:65: error: YAML nested deeper than 64 levels"
# Block nesting 1000 deep ("a:" indented by two more each line): the 65th mapping is on line 65.
awk 'BEGIN { for (i = 0; i < 1000; i++) { for (j = 0; j < i; j++) printf "  "; print "a:" } }' >"$tmp/deep_block.yaml"
check "$tmp/deep_block.yaml" "$tmp/deep_block.yaml:65:129: error: YAML nested deeper than 64 levels"

echo "catalog: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

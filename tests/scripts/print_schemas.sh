#!/bin/sh
# tests/scripts/print_schemas.sh: `shimgen --print-schemas` on PyTorch's data gives back the
# 2,654 `func:` strings of native_functions.yaml byte for byte and in order;
# `--print-schemas=all` adds the derived (autogen) functions: 3,167 lines in all.
set -u
SHIMGEN=${SHIMGEN:-build/shimgen}
SHARED=${SHARED:-../shared}
PT=$SHARED/pytorch
tmp=$(mktemp -d "${TMPDIR:-/tmp}/shimgen-print.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0

# The expectation straight from the file: every "- func: " line, the rest of the line.
sed -n 's/^- func: //p' "$PT/native_functions.yaml" >"$tmp/expected"
n=$(wc -l <"$tmp/expected")
if [ "$n" -ne 2654 ]; then
    echo "FAIL: expected 2654 func lines in $PT/native_functions.yaml, found $n"
    status=1
fi

if ! "$SHIMGEN" --print-schemas "$PT" >"$tmp/written" 2>"$tmp/err"; then
    echo "FAIL: shimgen --print-schemas $PT failed:"
    sed -n '1,20s/^/    | /p' "$tmp/err"
    status=1
elif ! cmp -s "$tmp/expected" "$tmp/written"; then
    echo "FAIL: --print-schemas differs from the func strings:"
    diff "$tmp/expected" "$tmp/written" | head -n 20
    status=1
else
    echo "ok: --print-schemas gives back the $n func strings byte for byte"
fi

if ! "$SHIMGEN" --print-schemas=all "$PT" >"$tmp/all" 2>"$tmp/err"; then
    echo "FAIL: shimgen --print-schemas=all $PT failed:"
    sed -n '1,20s/^/    | /p' "$tmp/err"
    status=1
else
    total=$(wc -l <"$tmp/all")
    if [ "$total" -ne 3167 ]; then
        echo "FAIL: --print-schemas=all printed $total schemas, expected 3167"
        status=1
    elif ! head -n 2654 "$tmp/all" | cmp -s - "$tmp/expected"; then
        echo "FAIL: --print-schemas=all does not start with the written schemas"
        status=1
    else
        echo "ok: --print-schemas=all prints 3167 schemas (2654 written + 513 derived)"
    fi
fi
exit $status

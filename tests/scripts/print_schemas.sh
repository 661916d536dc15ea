#!/bin/sh
# tests/scripts/print_schemas.sh: `shimgen --print-schemas` on PyTorch's data (the torch
# 2.15.0 wheel's file, .ci/pytorch-data) gives back every `func:` string of
# native_functions.yaml byte for byte and in order; `--print-schemas=all` prints them first,
# then the derived (autogen) functions (tests/torch/derive_torchgen.sh checks that whole list
# against torchgen's). Exit 77 when PyTorch's data cannot be had.
set -u
SHIMGEN=${SHIMGEN:-build/shimgen}
if [ -z "${SHARED:-}" ]; then rc=0; SHARED=$(sh .ci/pytorch-data) || rc=$?; [ "$rc" -eq 0 ] || exit "$rc"; fi
PT=$SHARED/pytorch
tmp=$(mktemp -d "${TMPDIR:-/tmp}/shimgen-print.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0

# The expectation straight from the file: every "- func: " line, the rest of the line.
sed -n 's/^- func: //p' "$PT/native_functions.yaml" >"$tmp/expected"
n=$(wc -l <"$tmp/expected")
if [ "$n" -lt 1000 ]; then
    echo "FAIL: only $n func lines in $PT/native_functions.yaml"
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
    if [ "$total" -le "$n" ]; then
        echo "FAIL: --print-schemas=all printed $total schemas, no derived ones beside the $n written"
        status=1
    elif ! head -n "$n" "$tmp/all" | cmp -s - "$tmp/expected"; then
        echo "FAIL: --print-schemas=all does not start with the written schemas"
        status=1
    else
        echo "ok: --print-schemas=all prints $total schemas ($n written + $((total - n)) derived)"
    fi
fi
exit $status

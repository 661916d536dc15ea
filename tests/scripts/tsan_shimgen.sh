#!/bin/sh
# tests/scripts/tsan_shimgen.sh: ThreadSanitizer finds no race in shimgen's two-thread
# loader (gen/model.c, sg_nf_loader_*: the YAML parsed in the calling thread, entries built
# in a second one). gen/ is rebuilt with -fsanitize=thread into $BUILD/tsan-shimgen/ and
# runs --print-schemas=all on PyTorch's directory (large: the thread starts by itself) and,
# with SHIMGEN_THREADS=2, on catalog inputs; its output must equal $SHIMGEN's.
# Skipped (exit 77) under SAN=1 (ThreadSanitizer does not mix with AddressSanitizer).
set -u
if [ "${SAN:-}" = 1 ]; then
    echo "tsan_shimgen: skipped under SAN=1"
    exit 77
fi
SHIMGEN=${SHIMGEN:-build/shimgen}
BUILD=${BUILD:-build}
if [ -z "${SHARED:-}" ]; then rc=0; SHARED=$(sh .ci/pytorch-data) || rc=$?; [ "$rc" -eq 0 ] || exit "$rc"; fi
out="$BUILD/tsan-shimgen"
mkdir -p "$out"
TCC=${TSAN_CC:-}
if [ -z "$TCC" ]; then
    if command -v clang >/dev/null 2>&1; then TCC=clang; else TCC=${CC:-cc}; fi
fi
RE2C=${RE2C:-re2c}
if ! $RE2C -W -Werror --no-generation-date --no-version -o "$out/schema_lex.c" gen/schema/schema_lex.re \
    2>"$out/build.log"; then
    echo "FAIL: re2c on gen/schema/schema_lex.re:"; cat "$out/build.log"; exit 1
fi
# shellcheck disable=SC2046
if ! $TCC -std=c11 -Wall -Wextra -O1 -g -fsanitize=thread -fno-omit-frame-pointer \
    -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -Igen -Igen/schema -Iruntime/include -Igenerated -I"$out" \
    $(ls gen/*.c gen/schema/*.c) "$out/schema_lex.c" -o "$out/shimgen" -lyaml -lpthread -ldl -lm \
    >>"$out/build.log" 2>&1; then
    echo "FAIL: building shimgen with -fsanitize=thread ($TCC):"; sed -n '1,30p' "$out/build.log"; exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/shimgen-tsan.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
runs=0
# check INPUT [THREADS]: no report, and the same stdout, stderr and status as $SHIMGEN.
check() {
    if [ -n "${2:-}" ]; then
        SHIMGEN_THREADS=$2 TSAN_OPTIONS="halt_on_error=1 exitcode=66" \
            "$out/shimgen" --print-schemas=all "$1" >"$tmp/out" 2>"$tmp/err"
    else
        TSAN_OPTIONS="halt_on_error=1 exitcode=66" \
            "$out/shimgen" --print-schemas=all "$1" >"$tmp/out" 2>"$tmp/err"
    fi
    rc=$?
    "$SHIMGEN" --print-schemas=all "$1" >"$tmp/out_ref" 2>"$tmp/err_ref"
    rc_ref=$?
    runs=$((runs + 1))
    if grep -q 'ThreadSanitizer' "$tmp/err" || [ "$rc" = 66 ]; then
        echo "FAIL $1: ThreadSanitizer report:"; sed -n '1,60p' "$tmp/err"; status=1
    elif [ "$rc" != "$rc_ref" ] || ! cmp -s "$tmp/out" "$tmp/out_ref" || ! cmp -s "$tmp/err" "$tmp/err_ref"; then
        echo "FAIL $1: output differs from $SHIMGEN (rc $rc vs $rc_ref)"
        diff "$tmp/err_ref" "$tmp/err" | sed -n '1,10p'
        status=1
    fi
}
for run in 1 2 3; do check "$SHARED/pytorch"; done
check "$SHARED/pytorch/native_functions.yaml" 2
for f in tests/bad/duplicate_argument.yaml tests/bad/schema_in_second_entry.yaml \
    tests/bad/two_documents.yaml tests/bad/truncated_flow_seq.yaml tests/bad/missing_func.yaml \
    tests/bad/top_level_map.yaml tests/bad/dir_duplicate_op tests/bad/dir_unknown_tag; do
    check "$f" 2
done
# errors spread over a large input, then a YAML error at its end
{ awk 'NR % 300 == 1 && /^- func: / { sub(/\) ->/, ", *, *) ->") } { print }' \
    "$SHARED/pytorch/native_functions.yaml"; } >"$tmp/big_errors.yaml"
check "$tmp/big_errors.yaml"
{ cat "$tmp/big_errors.yaml"; echo "- func: [broken"; } >"$tmp/big_yaml_error.yaml"
check "$tmp/big_yaml_error.yaml"
[ $status = 0 ] && echo "ok: tsan_shimgen: $runs runs, no data race, same output as $SHIMGEN"
exit $status

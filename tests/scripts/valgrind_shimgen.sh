#!/bin/sh
# tests/scripts/valgrind_shimgen.sh: no leak and no memory error in a full run of
# `shimgen --print-schemas=all` over PyTorch's data, over malformed inputs, in a
# default-mode generation of schemas/, and in every generator Criterion suite
# ($BUILD/tests/gen/*). The runs go NJOBS at a time (one per core: each is single-threaded
# under valgrind); their reports come out in a fixed order.
# Skipped (exit 77) under SAN=1 (AddressSanitizer and valgrind do not mix).
set -u
if [ "${SAN:-}" = 1 ]; then
    echo "valgrind_shimgen: skipped under SAN=1"
    exit 77
fi
if ! command -v valgrind >/dev/null 2>&1; then
    echo "FAIL: valgrind not installed (.ci/deps installs it)"
    exit 1
fi
SHIMGEN=${SHIMGEN:-build/shimgen}
if [ -z "${SHARED:-}" ]; then rc=0; SHARED=$(sh .ci/pytorch-data) || rc=$?; [ "$rc" -eq 0 ] || exit "$rc"; fi
BUILD=${BUILD:-build}
NJOBS=$(nproc 2>/dev/null || echo 2)
VG="valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all --error-exitcode=99"
# The generator suites: Criterion runs each test in a traced child whose exit status it
# does not pass on, so any valgrind report ("==PID== ...") fails the suite.
VGT="valgrind -q --leak-check=full --error-exitcode=99 --trace-children=yes"
tmp=$(mktemp -d)
out=$(mktemp -d)
trap 'rm -rf "$tmp" "$out"' EXIT

# job NAME EXPECTED-EXIT COMMAND...: one file per run (its command, then its exit status
# into NAME.rc and its output into NAME.log)
n=0
job() {
    n=$((n + 1))
    f="$tmp/$(printf '%02d' $n).job"
    name=$1 want=$2
    shift 2
    {
        printf '%s\n' "$name" >"$f.name"
        printf '%s\n' "$want" >"$f.want"
        printf '%s >"%s.log" 2>&1; echo $? >"%s.rc"\n' "$*" "$f" "$f"
    } >"$f"
}
job "--print-schemas=all $SHARED/pytorch" 0 \
    "$VG \"$SHIMGEN\" --print-schemas=all \"$SHARED/pytorch\""
# error paths free everything too
job "malformed inputs" 1 "$VG \"$SHIMGEN\" --print-schemas=all tests/bad/dir_duplicate_op \
    tests/bad/unknown_type.yaml tests/bad/tab_indent.yaml"
# a default-mode run writing every output
job "shimgen schemas/ -o DIR" 0 "$VG \"$SHIMGEN\" schemas/ -o \"$out\""
found=0
for t in "$BUILD"/tests/gen/test_*; do
    [ -x "$t" ] || continue
    found=$((found + 1))
    job "$t" 0 "$VGT \"$t\" --jobs=1"
done
ls "$tmp"/*.job | xargs -P "$NJOBS" -n 1 sh

status=0
for f in "$tmp"/*.job; do
    name=$(cat "$f.name") want=$(cat "$f.want")
    rc=$(cat "$f.rc" 2>/dev/null || echo none)
    if [ "$rc" = "$want" ] && ! grep -q '^==[0-9]*==' "$f.log"; then
        echo "ok: valgrind clean: $name"
    else
        echo "FAIL: valgrind on $name (exit $rc, expected $want; 99 = valgrind error):"
        grep -E '==[0-9]+==|Assertion|FAIL|Crash|error' "$f.log" | sed -n '1,40p'
        status=1
    fi
done
if [ "$found" -eq 0 ]; then
    echo "FAIL: no generator suites in $BUILD/tests/gen (build them first: make test-unit)"
    status=1
fi
exit $status

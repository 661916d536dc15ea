#!/bin/sh
# tests/scripts/valgrind_shimgen.sh: no leak and no memory error in a full run of
# `shimgen --print-schemas=all` over PyTorch's data, over malformed inputs, in a
# default-mode generation of schemas/, and in every generator Criterion suite
# ($BUILD/tests/gen/*).
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
SHARED=${SHARED:-../shared}
VG="valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all --error-exitcode=99"
status=0
$VG "$SHIMGEN" --print-schemas=all "$SHARED/pytorch" >/dev/null 2>"${TMPDIR:-/tmp}/shimgen-vg.$$"
rc=$?
if [ "$rc" -ne 0 ]; then
    echo "FAIL: valgrind on --print-schemas=all $SHARED/pytorch (exit $rc; 99 = valgrind error):"
    sed -n '1,40p' "${TMPDIR:-/tmp}/shimgen-vg.$$"
    status=1
else
    echo "ok: valgrind clean on --print-schemas=all $SHARED/pytorch"
fi
# error paths free everything too
$VG "$SHIMGEN" --print-schemas=all tests/bad/dir_duplicate_op tests/bad/unknown_type.yaml \
    tests/bad/tab_indent.yaml >/dev/null 2>"${TMPDIR:-/tmp}/shimgen-vg.$$"
rc=$?
if [ "$rc" -ne 1 ]; then
    echo "FAIL: valgrind on malformed inputs (exit $rc, expected 1):"
    sed -n '1,40p' "${TMPDIR:-/tmp}/shimgen-vg.$$"
    status=1
else
    echo "ok: valgrind clean on malformed inputs"
fi
# a default-mode run writing every output
out=$(mktemp -d)
$VG "$SHIMGEN" schemas/ -o "$out" >/dev/null 2>"${TMPDIR:-/tmp}/shimgen-vg.$$"
rc=$?
if [ "$rc" -ne 0 ]; then
    echo "FAIL: valgrind on shimgen schemas/ -o DIR (exit $rc):"
    sed -n '1,40p' "${TMPDIR:-/tmp}/shimgen-vg.$$"
    status=1
else
    echo "ok: valgrind clean on shimgen schemas/ -o DIR"
fi
rm -rf "$out"
# the generator suites: Criterion runs each test in a traced child whose exit status it
# does not pass on, so any valgrind report ("==PID== ...") fails the suite.
BUILD=${BUILD:-build}
found=0
for t in "$BUILD"/tests/gen/test_*; do
    [ -x "$t" ] || continue
    found=$((found + 1))
    valgrind -q --leak-check=full --error-exitcode=99 --trace-children=yes "$t" --jobs=1 \
        >"${TMPDIR:-/tmp}/shimgen-vg.$$" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ] && ! grep -q '^==[0-9]*==' "${TMPDIR:-/tmp}/shimgen-vg.$$"; then
        echo "ok: valgrind clean: $t"
    else
        echo "FAIL: valgrind on $t:"
        grep -E '==[0-9]+==|Assertion|FAIL|Crash' "${TMPDIR:-/tmp}/shimgen-vg.$$" | sed -n '1,40p'
        status=1
    fi
done
if [ "$found" -eq 0 ]; then
    echo "FAIL: no generator suites in $BUILD/tests/gen (build them first: make test-unit)"
    status=1
fi
rm -f "${TMPDIR:-/tmp}/shimgen-vg.$$"
exit $status

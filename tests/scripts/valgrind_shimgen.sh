#!/bin/sh
# tests/scripts/valgrind_shimgen.sh: no leak and no memory error in a full run of
# `shimgen --print-schemas=all` over PyTorch's data, and over a malformed input.
# Skipped under SAN=1 (AddressSanitizer and valgrind do not mix).
set -u
if [ "${SAN:-}" = 1 ]; then
    echo "valgrind_shimgen: skipped under SAN=1"
    exit 0
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
rm -f "${TMPDIR:-/tmp}/shimgen-vg.$$"
exit $status

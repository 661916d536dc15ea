#!/bin/sh
# tests/scripts/valgrind_runtime.sh: every runtime Criterion suite ($BUILD/tests/runtime/*)
# and the compat program (tests/compat/) run clean under valgrind: no invalid read or
# write, no double free, no leak (every optional cell, list, string, scalar and tensor the
# stack conventions hand around is freed exactly once). Skipped (exit 77) under SAN=1 (ASan and
# valgrind do not mix).
set -u
if [ "${SAN:-}" = 1 ]; then
    echo "valgrind_runtime: skipped under SAN=1"
    exit 77
fi
if ! command -v valgrind >/dev/null 2>&1; then
    echo "FAIL: valgrind not installed (.ci/deps installs it)"
    exit 1
fi
BUILD=${BUILD:-build}
CC=${CC:-cc}
VG="valgrind -q --leak-check=full --error-exitcode=1 --trace-children=yes"
log="${TMPDIR:-/tmp}/shimrt-vg.$$"
status=0
found=0

# The suites run NJOBS at a time (one per core): each is single-threaded under valgrind.
# --jobs=1: one Criterion worker at a time; each test still runs in its own (traced)
# process, whose exit status Criterion does not pass on: any valgrind report (-q prints
# only errors and leaks, as "==PID== ...") fails the suite.
NJOBS=$(nproc 2>/dev/null || echo 2)
suites=""
for t in "$BUILD"/tests/runtime/test_*; do
    [ -x "$t" ] || continue
    found=$((found + 1))
    suites="$suites $t"
done
if [ "$found" -gt 0 ]; then
    # shellcheck disable=SC2086
    printf '%s\n' $suites | xargs -P "$NJOBS" -I{} sh -c \
        "$VG {} --jobs=1 >\"$log.\$(basename {})\" 2>&1; echo \$? >\"$log.\$(basename {}).rc\""
fi
for t in $suites; do
    b=$(basename "$t")
    rc=$(cat "$log.$b.rc" 2>/dev/null || echo 1)
    if [ "$rc" -eq 0 ] && ! grep -q '^==[0-9]*==' "$log.$b"; then
        echo "ok: valgrind clean: $t"
    else
        echo "FAIL: valgrind on $t:"
        grep -E '==[0-9]+==|Assertion|FAIL|Crash' "$log.$b" | sed -n '1,40p'
        status=1
    fi
    rm -f "$log.$b" "$log.$b.rc"
done
if [ "$found" -eq 0 ]; then
    echo "FAIL: no runtime suites in $BUILD/tests/runtime (build them first: make test-unit)"
    status=1
fi

mkdir -p "$BUILD/compat"
if $CC -std=c11 -Wall -Wextra -Werror -O1 -g -Iruntime/include tests/compat/compat_main.c \
    "$BUILD/libshimrt.a" -lopenblas -ldnnl -lgomp -lmvec -lpthread -ldl -lm -lstdc++ -o "$BUILD/compat/compat_main_vg" 2>"$log"; then
    $VG "$BUILD/compat/compat_main_vg" >/dev/null 2>"$log"
    rc=$?
    if [ "$rc" -eq 0 ] && ! grep -q '^==[0-9]*==' "$log"; then
        echo "ok: valgrind clean: compat program"
    else
        echo "FAIL: valgrind on the compat program:"
        sed -n '1,40p' "$log"
        status=1
    fi
else
    echo "FAIL: the compat program does not compile:"
    sed -n '1,20p' "$log"
    status=1
fi
rm -f "$log"
exit $status

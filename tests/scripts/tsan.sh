#!/bin/sh
# tests/scripts/tsan.sh: ThreadSanitizer finds no race while four threads call the
# dispatcher (by name and through op handles) and a fifth registers, then deletes, a
# fragment library (tests/runtime/test_dispatcher_threads.c), and while 8 threads make their
# first calls at once and fail calls of every class (tests/runtime/test_misuse_threads.c),
# each built with -DSHIMRT_TSAN_MAIN.
# The runtime and the schema grammar are rebuilt with -fsanitize=thread into $BUILD/tsan/.
# Skipped (exit 77) under SAN=1 (ThreadSanitizer does not mix with AddressSanitizer).
set -u
: "${RT_LDLIBS:=$(cat "${BUILD:-build}/rt_ldlibs")}" # libshimrt.a's own libraries (runtime/runtime.mk)
if [ "${SAN:-}" = 1 ]; then
    echo "tsan: skipped under SAN=1"
    exit 77
fi
BUILD=${BUILD:-build}
out="$BUILD/tsan"
mkdir -p "$out"
# clang first (its TSan runtime ships with libclang-rt-dev), else $CC.
TCC=${TSAN_CC:-}
if [ -z "$TCC" ]; then
    if command -v clang >/dev/null 2>&1; then TCC=clang; else TCC=${CC:-cc}; fi
fi
RE2C=${RE2C:-re2c}
if ! $RE2C -W -Werror --no-generation-date --no-version -o "$out/schema_lex.c" gen/schema/schema_lex.re \
    2>"$out/build.log"; then
    echo "FAIL: re2c on gen/schema/schema_lex.re:"
    cat "$out/build.log"
    exit 1
fi
# The runtime's C++ files (runtime/runtime.mk's RT_CXX_SRCS: the exception boundary, the
# double FFT), with the matching C++ compiler.
case "$TCC" in clang*) TCXX=clang++ ;; *) TCXX=${CXX:-c++} ;; esac
cxx_objs=
for cc in runtime/core/cxx_boundary.cc runtime/cpu/fft_double.cc; do
    o="$out/$(basename "$cc" .cc).o"
    if ! $TCXX -std=c++17 -O1 -g -fsanitize=thread -fno-omit-frame-pointer -fPIC \
        -Igen/schema -Iruntime/include -c "$cc" -o "$o" >>"$out/build.log" 2>&1; then
        echo "FAIL: building $cc with $TCXX:"
        sed -n '1,30p' "$out/build.log"
        exit 1
    fi
    cxx_objs="$cxx_objs $o"
done
status=0
# The dispatcher threads test, and the misuse threads test (first calls at once in fresh
# processes, ownership after failed calls with reused handle slots).
for prog in dispatcher_threads misuse_threads; do
# shellcheck disable=SC2046
if ! $TCC -std=c11 -Wall -Wextra -O1 -g -fsanitize=thread -fno-omit-frame-pointer \
    -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -DSHIMRT_TSAN_MAIN \
    -Igen/schema -Iruntime/include -Igenerated \
    "tests/runtime/test_$prog.c" \
    $(ls runtime/core/*.c runtime/generic/*.c runtime/cpu/*.c runtime/cuda/*.c generated/*.c 2>/dev/null) runtime/backends.c gen/schema/arena.c gen/schema/schema.c "$out/schema_lex.c" \
    $cxx_objs -o "$out/$prog" $RT_LDLIBS >>"$out/build.log" 2>&1; then
    echo "FAIL: building the ThreadSanitizer test $prog with $TCC:"
    sed -n '1,30p' "$out/build.log"
    exit 1
fi
for run in 1 2 3; do
    if TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1" \
        "$out/$prog" >"$out/run.log" 2>&1; then
        echo "ok: $prog run $run: no data race ($(tail -n 1 "$out/run.log"))"
    else
        echo "FAIL: run $run of the ThreadSanitizer test $prog:"
        sed -n '1,60p' "$out/run.log"
        status=1
        break
    fi
done
done
exit $status

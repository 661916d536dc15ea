#!/bin/sh
# tests/scripts/stable_ext.sh: a C++ stable-ABI extension (tests/stable_ext/ext.cpp)
# compiled against PyTorch 2.15's real headers (from the torch wheel .ci/torch-env
# installs; never committed) runs on libshimrt and gives real PyTorch's results.
#   1. ext.cpp -> ext.so with -lshimrt -Wl,--no-undefined (no libtorch symbol may be left),
#      twice: for the default target (2.15) and with TORCH_TARGET_VERSION 2.10 (the stable
#      headers then allocate optional cells with `new StableIValue` and free them with
#      `delete`, the old convention the runtime must meet).
#   2. the same source against libtorch -> ext_torch.so, loaded into real PyTorch by
#      tests/stable_ext/reference.py, which runs the same cases and compares.
#   3. tests/stable_ext/runner.c dlopens each libshimrt build with RTLD_NOW and prints
#      every op's results; under valgrind for the 2.10 build (the mixed new/delete case).
#      The ops cover the stable API PyTorch's own test extensions (2.9 to 2.15) use; the
#      2.10 build lacks the ops of later releases (runner and reference.py's "old").
# Loads libtorch: the plain pass only (exit 77 under SAN=1 or without PyTorch).
set -eu
BUILD=${BUILD:-build}
CXX=${CXX:-c++}
[ "${SAN:-}" = 1 ] && { echo "stable_ext: skipped under SAN=1 (loads libtorch)"; exit 77; }
fail() { echo "stable_ext: FAIL: $*" >&2; exit 1; }
rc=0; PY=$(.ci/torch-env) || rc=$?
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || fail ".ci/torch-env failed"
TORCH=$("$PY" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
LIB=$(cd "$BUILD" && pwd)
[ -e "$LIB/libshimrt.so.0" ] || fail "$BUILD/libshimrt.so.0 (the soname link) is missing"
V210='(((0ULL + 2) << 56) | ((0ULL + 10) << 48))'
CXXF="-std=c++17 -O1 -Wall -Wextra -Werror -fPIC -shared -I$TORCH/include"
# the three builds at once (each takes seconds: PyTorch's headers)
$CXX $CXXF tests/stable_ext/ext.cpp -o "$T/ext.so" -L"$LIB" -lshimrt -Wl,--no-undefined \
  2> "$T/err1" & p1=$!
$CXX $CXXF -DTORCH_TARGET_VERSION="$V210" tests/stable_ext/ext.cpp -o "$T/ext210.so" \
  -L"$LIB" -lshimrt -Wl,--no-undefined 2> "$T/err2" & p2=$!
$CXX $CXXF tests/stable_ext/ext.cpp -o "$T/ext_torch.so" -L"$TORCH/lib" -ltorch -ltorch_cpu \
  -lc10 -Wl,-rpath,"$TORCH/lib" 2> "$T/err3" & p3=$!
wait $p1 || { cat "$T/err1" >&2; fail "ext.cpp does not link against libshimrt alone"; }
wait $p2 || { cat "$T/err2" >&2; fail "ext.cpp (target 2.10) does not link against libshimrt alone"; }
wait $p3 || { cat "$T/err3" >&2; fail "ext.cpp against libtorch"; }
${CC:-cc} -std=c11 -Wall -Wextra -Werror -Iruntime/include tests/stable_ext/runner.c \
  -o "$T/runner" -L"$LIB" -lshimrt -ldl -Wl,-rpath,"$LIB" || fail "runner.c"
for v in ext ext210; do
  old=; [ $v = ext210 ] && old=old
  "$T/runner" "$T/$v.so" $old > "$T/$v.out" 2> "$T/$v.err" || { cat "$T/$v.err" >&2; fail "runner on $v.so"; }
done
# one PyTorch process for both (importing torch takes seconds)
"$PY" tests/stable_ext/reference.py "$T/ext_torch.so" "$T/ext.out" "$T/ext210.out" old 2>/dev/null ||
  fail "the extension on libshimrt differs from PyTorch"
if command -v valgrind >/dev/null 2>&1; then
  valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    "$T/runner" "$T/ext210.so" old > "$T/vg.out" 2> "$T/vg.err" ||
    { cat "$T/vg.err" >&2; fail "valgrind on the 2.10 (new/delete cells) extension"; }
  cmp -s "$T/vg.out" "$T/ext210.out" || fail "valgrind run printed other results"
  echo "  valgrind: clean (target 2.10: C++ new/delete cells across the boundary)"
fi
echo "stable_ext: ok"

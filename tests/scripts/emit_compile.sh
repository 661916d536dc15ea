#!/bin/sh
# tests/scripts/emit_compile.sh: every generated header compiles cleanly as C99, C11 and
# C++17 with -Wall -Wextra -Werror -pedantic, against the runtime's headers (PyTorch's
# data in default mode: its c_shim_*.h and c_boxed_*.h; its kernel names are C++):
#   - compatibility mode on PyTorch's data, backends cpu, cuda, mps, xpu (and aten);
#   - our default mode on the emitter fixture and on PyTorch's data restricted to the ops
#     every one of those backends can shim (whose declarations must then be the very
#     lines compatibility mode writes).
set -eu
SHIMGEN=${SHIMGEN:-build/shimgen}
if [ -z "${SHARED:-}" ]; then rc=0; SHARED=$(sh .ci/pytorch-data) || rc=$?; [ "$rc" -eq 0 ] || exit "$rc"; fi
CC=${CC:-cc}
CXX=${CXX:-c++}
PT="$SHARED/pytorch"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "emit_compile: FAIL: $*" >&2; exit 1; }
FLAGS="-Wall -Wextra -Werror -pedantic -Iruntime/include"

compile_all() { # dir [glob: the headers to take, default *.h]
  all=""
  for h in "$1"/${2:-*.h}; do
    printf '#include "%s"\n' "$h" > "$T/one.c"
    all="$all$(printf '#include "%s"\\n' "$h")"
    for std in c99 c11; do
      $CC -std=$std $FLAGS -c "$T/one.c" -o "$T/one.o" 2> "$T/err" || { cat "$T/err" >&2; fail "$h as $std"; }
    done
    cp "$T/one.c" "$T/one.cc"
    $CXX -std=c++17 $FLAGS -c "$T/one.cc" -o "$T/one.o" 2> "$T/err" || { cat "$T/err" >&2; fail "$h as C++17"; }
  done
  # All of them in one translation unit, twice (guards, no clashes).
  printf "$all$all" > "$T/all.c"
  cp "$T/all.c" "$T/all.cc"
  $CC -std=c99 $FLAGS -c "$T/all.c" -o "$T/all.o" 2> "$T/err" || { cat "$T/err" >&2; fail "$1 together as C99"; }
  $CXX -std=c++17 $FLAGS -c "$T/all.cc" -o "$T/all.o" 2> "$T/err" || { cat "$T/err" >&2; fail "$1 together as C++17"; }
  echo "  $1: $(ls "$1"/${2:-*.h} | wc -l | tr -d ' ') headers compile as C99, C11, C++17"
}

# Default mode, the fixture.
"$SHIMGEN" -q tests/fixtures/emit_basic -o "$T/basic" || fail "shimgen on the fixture"
compile_all "$T/basic"

if [ -f "$PT/native_functions.yaml" ]; then
  "$SHIMGEN" -q --compat=torchgen --backends cpu,cuda,mps,xpu "$PT" -o "$T/compat" || fail "shimgen --compat"
  compile_all "$T/compat"
  # The ops every backend can shim, as their own list.
  mkdir "$T/pt"
  cp "$PT/native_functions.yaml" "$PT/tags.yaml" "$T/pt/"
  { echo "fallback_ops:"
    sed -n '/^fallback_ops:/,/^aten_ops:/p' "$PT/shim_ops.yaml" | grep '^  aten\.' | while read -r key rest; do
      key=${key%:}; op=${key#aten.}; name=${op%%.*}; ov=${op#*.}
      c=$name; [ "$ov" = default ] || c="${name}_$ov"
      ok=1
      for b in cpu cuda mps xpu; do grep -q "aoti_torch_${b}_$c(" "$T/compat/c_shim_$b.h" || ok=0; done
      if [ $ok = 1 ]; then echo "  $key: {}"; fi
    done
    sed -n '/^aten_ops:/,$p' "$PT/shim_ops.yaml"
  } > "$T/pt/shim_ops.yaml"
  n=$(grep -c '^  aten\.' "$T/pt/shim_ops.yaml")
  [ "$n" -gt 50 ] || fail "only $n ops in the restricted list"
  # PyTorch's kernel names are C++ functions; those named as C library functions (abs,
  # rand) are refused by the default mode, whose kernels are C: renamed in this copy.
  "$SHIMGEN" -q --backends cpu,cuda,mps,xpu "$T/pt" -o "$T/default" 2> "$T/libc" || true
  for k in $(sed -n "s/.*kernel '\([A-Za-z0-9_]*\)' for dispatch key [A-Za-z]* is the name of a C standard library function.*/\1/p" "$T/libc" | sort -u); do
    sed -i "s/^\(    [A-Za-z, ]*: \)$k\$/\1${k}_kernel/" "$T/pt/native_functions.yaml"
  done
  "$SHIMGEN" -q --backends cpu,cuda,mps,xpu "$T/pt" -o "$T/default" || fail "shimgen default mode on the restricted list"
  # PyTorch's other kernel names are C++ functions: its <key>_kernels.h are not C.
  compile_all "$T/default" 'c_*.h'
  [ -f "$T/default/c_boxed_cpu.h" ] && [ -f "$T/default/c_shim_cpu.c" ] || fail "default mode wrote no bodies"
  for b in cpu cuda mps xpu aten; do
    grep '^AOTI_TORCH_EXPORT' "$T/default/c_shim_$b.h" > "$T/d_lines"
    grep -F -x -f "$T/d_lines" "$T/compat/c_shim_$b.h" > "$T/c_lines"
    cmp -s "$T/d_lines" "$T/c_lines" || fail "c_shim_$b.h: default-mode declarations differ from compatibility mode"
  done
  echo "  default mode: the same declarations as compatibility mode"
fi
echo "emit_compile: ok"

#!/bin/sh
# tests/pipeline/compile_edge.sh: accepted inputs give C that compiles with -Wall -Wextra
# -Werror -pedantic; inputs that cannot are refused at file:line:col (issue 22, item 7).
# - Refused: kernel names that are C or C++ keywords or C library functions (`exp`, `abs`,
#   `free`: compiler built-ins), argument names the generated code uses itself (`ret0`,
#   `a_len_` beside `int[] a`, `stack_`, `op_`, `NULL`, type names), `float x=1e999`.
# - Compiled: defaults C has no plain literal for, that older versions pass (`int
#   a=-9223372036854775808`, `int a=010`, a list holding INT64_MIN, "*/" in a string).
# - Every name of the templates that ends in '_' is refused as an argument name.
set -u
SHIMGEN=${SHIMGEN:-build/shimgen}
CC=${CC:-cc}
T=$(mktemp -d "${TMPDIR:-/tmp}/shimgen-edge.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fail() { echo "compile_edge: FAIL: $*" >&2; exit 1; }

# refused NAME 'func' KERNEL EXPECTED-TEXT
refused() {
  d=$T/$1; mkdir -p "$d"
  printf -- '- func: %s\n  dispatch:\n    CPU: %s\n' "$2" "$3" > "$d/native_functions.yaml"
  printf 'backends: [cpu]\nfallback_ops: all\naten_ops: all\n' > "$d/shim_ops.yaml"
  "$SHIMGEN" -q "$d" -o "$d/out" 2> "$d/err"; rc=$?
  [ $rc = 1 ] || fail "$1: exit $rc, expected 1"
  grep -q "^$d/native_functions.yaml:[0-9]*:[0-9]*: error: .*$4" "$d/err" ||
    { cat "$d/err" >&2; fail "$1: no error at file:line:col saying: $4"; }
  [ ! -e "$d/out" ] || fail "$1: outputs written"
}
for k in exp abs malloc free; do
  refused "k_$k" 'foo(Tensor self) -> Tensor' "$k" "kernel '$k' for dispatch key CPU is the name of a C standard library function"
done
for k in int default class; do
  refused "k_$k" 'foo(Tensor self) -> Tensor' "$k" "kernel '$k' for dispatch key CPU is a C or C++ keyword"
done
refused a_ret0 'foo(Tensor self, int ret0) -> Tensor' k "argument 'ret0' is also the name of the C parameter of return 0"
for a in stack_ op_ NULL AtenTensorHandle int64_t; do
  refused "a_$a" "foo(Tensor self, int $a) -> Tensor" k "argument '$a' is a name the generated C code uses itself"
done
refused a_len 'foo(Tensor self, int[] a, int a_len_) -> Tensor' k "argument 'a_len_' is a name the generated C code uses itself"
refused d_inf 'foo(Tensor self, float x=1e999) -> Tensor' k "float default out of the range of double"
echo "ok: clashing kernel and argument names and an infinite default are refused at file:line:col"

# Every name ending in '_' that the templates write (not a suffix after a slot).
names=$(cat templates/*.in | grep -v '^%%' | sed 's/{{[A-Za-z0-9_]*}}[A-Za-z0-9_]*/ /g' |
  grep -oE '\b[a-z][A-Za-z0-9_]*_\b' | sort -u)
d=$T/tpl; mkdir -p "$d"; n=0
for a in $names; do
  n=$((n + 1))
  printf -- '- func: f%d(Tensor self, int %s) -> Tensor\n  dispatch:\n    CPU: k%d\n' $n "$a" $n
done > "$d/native_functions.yaml"
printf 'backends: [cpu]\nfallback_ops: all\n' > "$d/shim_ops.yaml"
"$SHIMGEN" -q "$d" -o "$d/out" 2> "$d/err"
got=$(grep -c "is a name the generated C code uses itself" "$d/err")
[ "$n" -gt 5 ] && [ "$got" = "$n" ] ||
  { grep -v "uses itself" "$d/err" | head >&2; fail "$got of the $n names ending in '_' of the templates are refused"; }
echo "ok: the $n names ending in '_' that the templates use are refused as argument names"

# Accepted, with versions that pass the defaults: compiles cleanly.
d=$T/ok; mkdir -p "$d"
cat > "$d/native_functions.yaml" <<'YAML'
- func: f1(Tensor self, int a=-9223372036854775808) -> Tensor
  dispatch:
    CPU: k1
- func: f2(Tensor self, int a=010) -> Tensor
  dispatch:
    CPU: k2
- func: f3(Tensor self, int[] a=[-9223372036854775808,07]) -> Tensor
  dispatch:
    CPU: k3
- func: f4(Tensor self, str a='*/') -> Tensor
  dispatch:
    CPU: k4
- func: f5(Tensor self, float a=1e300, int[2] b=-9223372036854775808) -> Tensor
  dispatch:
    CPU: k5
YAML
{ echo "backends: [cpu]"; echo "fallback_ops:"
  for i in 1 2 3 4; do echo "  aten.f$i.default: {versions: {v2: [a]}}"; done
  echo "  aten.f5.default: {versions: {v2: [a, b]}}"; } > "$d/shim_ops.yaml"
"$SHIMGEN" -q "$d" -o "$d/out" 2> "$d/err" || { cat "$d/err" >&2; fail "accepted inputs: shimgen failed"; }
grep -q 'INT64_C(10)' "$d/out/c_shim_cpu.c" || fail "int a=010 is not passed as decimal 10 (C reads 010 as octal)"
for h in "$d"/out/*.h; do printf '#include "%s"\n' "$(basename "$h")" > "$d/out/inc_$(basename "$h" .h).c"; done
for c in "$d"/out/*.c; do
  $CC -std=c11 -Wall -Wextra -Werror -pedantic -Iruntime/include -I"$d/out" -c "$c" -o "$T/x.o" 2> "$T/cc.err" ||
    { cat "$T/cc.err" >&2; fail "$(basename "$c") does not compile cleanly"; }
done
echo "ok: INT64_MIN, leading-zero and '*/' defaults compile with -Wall -Wextra -Werror -pedantic"

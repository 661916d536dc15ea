#!/bin/sh
# tests/scripts/golden.sh: the golden sample of examples/golden/ (the shape shimgen's
# generated shim bodies, dispatcher-routed shims, boxed wrappers and registration must
# have) compiles with the project's strict flags against the public headers, and runs end
# to end (tests/scripts/golden_main.c) against libshimrt.a.
# Env (tests/tests.mk): BUILD, CC, SAN. Exit 0 means pass.
set -eu
BUILD=${BUILD:-build}
CC=${CC:-cc}
SAN=${SAN:-}
LIB="$BUILD/libshimrt.a"
[ -f "$LIB" ] || { echo "golden.sh: $LIB not built" >&2; exit 1; }
SANFLAGS=""
[ "$SAN" = 1 ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
FLAGS="-std=c11 -Wall -Wextra -Werror -O1 -g -fPIC -fvisibility=hidden $SANFLAGS"
INC="-Iruntime/include -Igenerated"
for f in examples/golden/*.c; do
  # shellcheck disable=SC2086
  $CC $FLAGS $INC -c "$f" -o "$tmp/$(basename "$f" .c).o"
done
# The golden header must also be valid C++ and C99 (-pedantic) where a compiler exists.
if command -v c++ >/dev/null 2>&1; then
  printf '#include <shimrt/shim_support.h>\n#include "c_shim_cpu.h"\n#include "c_boxed_cpu.h"\nint main(){return 0;}\n' > "$tmp/cxx.cc"
  c++ -std=c++11 -pedantic -Wall -Wextra -Werror -Iruntime/include -Iexamples/golden -c "$tmp/cxx.cc" -o "$tmp/cxx.o"
fi
# shellcheck disable=SC2086
$CC $FLAGS $INC -Iexamples/golden -c tests/scripts/golden_main.c -o "$tmp/main.o"
# The golden objects come first: once libshimrt.a carries the generated versions of the
# same functions, the golden ones still win (first definition).
# shellcheck disable=SC2086
$CC $SANFLAGS -o "$tmp/golden" "$tmp/main.o" "$tmp/c_shim_cpu.o" "$tmp/c_shim_aten.o" \
  "$tmp/c_boxed_cpu.o" -Wl,--allow-multiple-definition "$LIB" -lopenblas -ldnnl -lgomp -lmvec -lpthread -ldl -lm -lstdc++
"$tmp/golden"

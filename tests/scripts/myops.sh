#!/bin/sh
# tests/scripts/myops.sh: the custom-op example (examples/myops/) builds the way an
# extension author builds it (`make myops`: shimgen output + kernel, installed headers and
# pkg-config only), then tests/scripts/myops_main.c loads libmyops.so with dlopen and
# calls myops::add_scalar through torch_call_dispatcher. Env: BUILD, CC, SAN.
set -eu
BUILD=${BUILD:-build}
CC=${CC:-cc}
SAN=${SAN:-}
SANFLAGS=""
[ "$SAN" = 1 ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
make --no-print-directory BUILD="$BUILD" SAN="$SAN" CC="$CC" myops >/dev/null
OUT=$BUILD/examples/myops
[ -f "$OUT/libmyops.so" ] || { echo "myops.sh: $OUT/libmyops.so not built" >&2; exit 1; }
# Built against the staged install only: every -I and -L points into $BUILD/stage.
stage=$(cd "$BUILD/stage" && pwd)
for flag in $(cat "$OUT/shimrt.cflags" "$OUT/shimrt.libs"); do
  case $flag in
    -I*|-L*) case ${flag#-?} in "$stage"/*) ;; *)
      echo "myops.sh: $flag is outside the staged install $stage" >&2; exit 1;; esac;;
  esac
done
grep -q -- "-I$stage/" "$OUT/shimrt.cflags" || { echo "myops.sh: no staged -I in $(cat "$OUT/shimrt.cflags")" >&2; exit 1; }
# The library exports the shim and the registration, and nothing of its kernel.
if command -v nm >/dev/null 2>&1; then
  syms=$(nm -D --defined-only "$OUT/libmyops.so" | awk '{print $3}')
  echo "$syms" | grep -qx shimgen_register_myops_cpu
  echo "$syms" | grep -qx aoti_torch_cpu_myops_add_scalar
  if echo "$syms" | grep -qx myops_add_scalar; then
    echo "myops.sh: libmyops.so exports its kernel" >&2; exit 1
  fi
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
# shellcheck disable=SC2046,SC2086
$CC -std=c11 -Wall -Wextra -Werror -g $SANFLAGS $(cat "$OUT/shimrt.cflags") \
  -o "$tmp/myops_main" tests/scripts/myops_main.c $(cat "$OUT/shimrt.libs") -ldl -lm
LD_LIBRARY_PATH=$(cat "$OUT/shimrt.libdir") "$tmp/myops_main" "$(cd "$OUT" && pwd)/libmyops.so"

#!/bin/sh
# examples/myops/build.sh: builds libmyops.so as an extension author would, from the
# schemas and the kernel of this directory (called by examples/examples.mk):
#   1. shimgen examples/myops/schemas --backends cpu -o OUT/generated
#   2. cc with `pkg-config --cflags --libs shimrt` against a staged install of libshimrt
# Usage: build.sh SHIMGEN OUT STAGE BUILD   (env: CC, SANFLAGS)
# Writes OUT/libmyops.so, OUT/shimrt.cflags, OUT/shimrt.libs and OUT/shimrt.libdir (what
# the demo and the test link and run with).
set -eu
SHIMGEN=$1 OUT=$2 STAGE=$3 BUILD=$4
CC=${CC:-cc}
SANFLAGS=${SANFLAGS:-}
SRC=examples/myops
GEN=$OUT/generated
mkdir -p "$OUT"

# 1. The generated code.
rm -rf "$GEN" && mkdir -p "$GEN"
echo "myops: $SHIMGEN -o $GEN $SRC/schemas"
"$SHIMGEN" -o "$GEN" "$SRC/schemas"

# 2. Compiler and linker flags: pkg-config on the staged install (`make install
#    DESTDIR=$STAGE`), exactly as an extension author would use an installed libshimrt.
pc=$(find "$STAGE" -name shimrt.pc 2>/dev/null | head -n 1)
if [ -z "$pc" ]; then
  echo "myops: no shimrt.pc under $STAGE: install libshimrt there first (make install DESTDIR=...)" >&2
  exit 1
fi
export PKG_CONFIG_PATH="" PKG_CONFIG_LIBDIR="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$STAGE"
cflags=$(pkg-config --cflags shimrt)
libs=$(pkg-config --libs shimrt)
libdir=$(pkg-config --variable=libdir shimrt)
libdir="$STAGE${libdir#"$STAGE"}"
echo "myops: pkg-config shimrt ($pc): $cflags $libs"
printf '%s\n' "$cflags" >"$OUT/shimrt.cflags"
printf '%s\n' "$libs" >"$OUT/shimrt.libs"
printf '%s\n' "$libdir" >"$OUT/shimrt.libdir"

# 3. The library: generated code + the kernel, strict flags, only the public headers.
FLAGS="-std=c11 -Wall -Wextra -Werror -O2 -g -fPIC -fvisibility=hidden $SANFLAGS"
objs=""
for f in "$GEN"/*.c "$SRC/myops_kernel.c"; do
  o="$OUT/$(basename "$f" .c).o"
  # shellcheck disable=SC2086
  $CC $FLAGS $cflags -I"$GEN" -c "$f" -o "$o"
  objs="$objs $o"
done
# shellcheck disable=SC2086
$CC -shared $SANFLAGS -o "$OUT/libmyops.so" $objs $libs
echo "myops: built $OUT/libmyops.so"

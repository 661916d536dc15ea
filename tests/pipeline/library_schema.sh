#!/bin/sh
# tests/pipeline/library_schema.sh: the runtime's library registration takes the schema
# spellings PyTorch's parser takes (library_schema_main.c). Needs $BUILD/libshimrt.a.
set -u
: "${RT_LDLIBS:=$(cat "${BUILD:-build}/rt_ldlibs")}" # libshimrt.a's own libraries (runtime/runtime.mk)
BUILD=${BUILD:-build}
CC=${CC:-cc}
[ -f "$BUILD/libshimrt.a" ] || { echo "skip: $BUILD/libshimrt.a not built"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/shimgen-lib.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
SANFLAGS=""
[ "${SAN:-}" = 1 ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# shellcheck disable=SC2086
$CC -std=c11 -Wall -Wextra -Werror -O1 -g $SANFLAGS -Iruntime/include \
  tests/pipeline/library_schema_main.c "$BUILD/libshimrt.a" $RT_LDLIBS \
  -o "$T/main" 2> "$T/cc.err" || { cat "$T/cc.err" >&2; echo "library_schema: FAIL: does not build"; exit 1; }
"$T/main" || { echo "library_schema: FAIL"; exit 1; }

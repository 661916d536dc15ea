#!/bin/sh
# tests/scripts/cudart.sh: libshimrt-cudart (the CUDA runtime API calls of AOTInductor CUDA
# models, runtime/aoti/cudart/) on the fake driver: tests/cuda/cudart_main.c linked with
# libshimrt-cudart and libshimrt, run with SHIMRT_LIBCUDA pointing at the fake driver.
set -u
BUILD=${BUILD:-build}
CC=${CC:-cc}
SANFLAGS=""
[ "${SAN:-}" = 1 ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
for f in "$BUILD/libshimrt-cudart.so" "$BUILD/libshimrt.so" "$BUILD/tests/cuda/libfakecuda.so"; do
    [ -e "$f" ] || { echo "cudart: FAIL: $f is missing"; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/shimgen-cudart.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
LIB=$(cd "$BUILD" && pwd)
# shellcheck disable=SC2086
$CC -std=c11 -Wall -Wextra -Werror -O1 -g $SANFLAGS tests/cuda/cudart_main.c -L"$LIB" \
    -lshimrt-cudart -lshimrt -Wl,-rpath,"$LIB" -o "$tmp/cudart_main" || {
    echo "cudart: FAIL: building tests/cuda/cudart_main.c"; exit 1; }
SHIMRT_LIBCUDA="$LIB/tests/cuda/libfakecuda.so" "$tmp/cudart_main"

#!/bin/sh
# tests/torch/rng_oracle.sh: after the same seed, libshimrt's random ops (default CPU
# generator) give the bytes PyTorch 2.15's CPU kernels give after torch.manual_seed, for
# several ops, dtypes, sizes (< 16, 16, not a multiple of 16) and seeds (rng_oracle.py).
# Needs .ci/torch-env (77 when skipped).
set -eu
BUILD=${BUILD:-build}
rc=0; PY=$(.ci/torch-env) || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
LIB=$(cd "$BUILD" && pwd)
[ -e "$LIB/libshimrt.so" ] || { echo "rng_oracle: FAIL: $BUILD/libshimrt.so is missing" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# the ASan pass: the client is instrumented too (the sanitizer runtime must load first)
SANFLAGS=""; [ "${SAN:-}" = 1 ] && SANFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer"
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -Wall -Wextra -Werror $SANFLAGS -Iruntime/include -Igenerated tests/torch/rng_client.c \
  -o "$T/rng_client" -L"$LIB" -lshimrt -Wl,-rpath,"$LIB" ||
  { echo "rng_oracle: FAIL: rng_client.c does not build" >&2; exit 1; }
"$PY" tests/torch/rng_oracle.py "$T/rng_client"

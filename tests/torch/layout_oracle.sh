#!/bin/sh
# tests/torch/layout_oracle.sh: tests/torch/layout_client.c (one C client of the stable C
# ABI) built once against libshimrt and once against PyTorch 2.15's libtorch_cpu; the two
# must print the same lines: the sizes, strides and values ops return for inputs of many
# layouts (PyTorch's output layout rules) and resize_'s order of resize and checks.
# Loads libtorch: the plain pass only (exit 77 under SAN=1 or without PyTorch).
set -eu
BUILD=${BUILD:-build}
[ "${SAN:-}" = 1 ] && { echo "layout_oracle: skipped under SAN=1 (loads libtorch)"; exit 77; }
fail() { echo "layout_oracle: FAIL: $*" >&2; exit 1; }
rc=0; PY=$(.ci/torch-env) || rc=$?
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || fail ".ci/torch-env failed"
TORCH=$("$PY" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
LIB=$(cd "$BUILD" && pwd)
[ -e "$LIB/libshimrt.so" ] || fail "$BUILD/libshimrt.so is missing"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
CF="-std=c11 -Wall -Wextra -Werror -Iruntime/include"
${CC:-cc} $CF tests/torch/layout_client.c -o "$T/shimrt" -L"$LIB" -lshimrt \
  -Wl,-rpath,"$LIB" || fail "layout_client.c against libshimrt"
${CC:-cc} $CF tests/torch/layout_client.c -o "$T/torch" -L"$TORCH/lib" -ltorch_cpu -lc10 \
  -Wl,-rpath,"$TORCH/lib" || fail "layout_client.c against libtorch"
SHIMRT_NUM_THREADS=1 "$T/shimrt" > "$T/shimrt.out" 2> "$T/shimrt.err" ||
  { cat "$T/shimrt.err" >&2; fail "the client on libshimrt exited $?"; }
OMP_NUM_THREADS=1 "$T/torch" > "$T/torch.out" 2> "$T/torch.err" ||
  { tail -5 "$T/torch.err" >&2; fail "the client on libtorch exited $?"; }
[ -n "${LAYOUT_KEEP:-}" ] && cp "$T/torch.out" "$T/shimrt.out" "$LAYOUT_KEEP/"
diff "$T/torch.out" "$T/shimrt.out" >&2 || fail "libshimrt differs from PyTorch (< torch, > shimrt)"
echo "layout_oracle: $(grep -c '^  ' "$T/torch.out") lines the same as PyTorch 2.15's"

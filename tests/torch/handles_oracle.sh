#!/bin/sh
# tests/torch/handles_oracle.sh: tests/torch/handles_client.c (one C client of the C shim
# and torch_call_dispatcher) built once against libshimrt and once against PyTorch 2.15's
# libtorch_cpu; the two must print the same lines: handles sharing one tensor (a resize
# of an out= through the dispatcher seen by the caller, assign_tensors, deleting one
# handle), the ops that return self and those that return a new view, meta tensors.
# Loads libtorch: the plain pass only (exit 77 under SAN=1 or without PyTorch).
set -eu
BUILD=${BUILD:-build}
[ "${SAN:-}" = 1 ] && { echo "handles_oracle: skipped under SAN=1 (loads libtorch)"; exit 77; }
fail() { echo "handles_oracle: FAIL: $*" >&2; exit 1; }
rc=0; PY=$(.ci/torch-env) || rc=$?
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || fail ".ci/torch-env failed"
TORCH=$("$PY" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
LIB=$(cd "$BUILD" && pwd)
[ -e "$LIB/libshimrt.so" ] || fail "$BUILD/libshimrt.so is missing"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
CF="-std=c11 -Wall -Wextra -Werror -Iruntime/include"
${CC:-cc} $CF tests/torch/handles_client.c -o "$T/shimrt" -L"$LIB" -lshimrt \
  -Wl,-rpath,"$LIB" || fail "handles_client.c against libshimrt"
${CC:-cc} $CF tests/torch/handles_client.c -o "$T/torch" -L"$TORCH/lib" -ltorch_cpu -lc10 \
  -Wl,-rpath,"$TORCH/lib" || fail "handles_client.c against libtorch"
SHIMRT_NUM_THREADS=1 "$T/shimrt" > "$T/shimrt.out" 2> "$T/shimrt.err" ||
  { cat "$T/shimrt.err" >&2; fail "the client on libshimrt exited $?"; }
OMP_NUM_THREADS=1 "$T/torch" > "$T/torch.out" 2> "$T/torch.err" ||
  { tail -5 "$T/torch.err" >&2; fail "the client on libtorch exited $?"; }
grep -q '^failures 0$' "$T/torch.out" || { cat "$T/torch.out" >&2; fail "a call failed on libtorch"; }
diff "$T/torch.out" "$T/shimrt.out" >&2 || fail "libshimrt differs from PyTorch (< torch, > shimrt)"
echo "handles_oracle: $(grep -c '^  ' "$T/torch.out") lines the same as PyTorch 2.15's"

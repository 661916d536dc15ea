#!/bin/sh
# tests/scripts/aoti_oracle.sh: the c_shim_cpu.h functions that AOTInductor CPU graphs call
# (issue 19) against real PyTorch 2.15 (tests/dropin/aoti_oracle.py: called with the wheel's
# own C signatures; errors, dtype, shape and values; odd shapes, strides, dtypes, bad
# inputs; two seeds). Loads libtorch: plain pass only (exit 77 under SAN=1, or when
# SHIMGEN_TORCH=skip).
set -eu
: "${BUILD:=build}" "${SAN:=}"
[ "$SAN" = 1 ] && { echo "aoti_oracle.sh: skipped under SAN=1 (loads libtorch)"; exit 77; }
rc=0
PY=$(.ci/torch-env) || rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "aoti_oracle.sh: FAIL: .ci/torch-env" >&2; exit 1; }
[ -f "$BUILD/libshimrt.so" ] || { echo "aoti_oracle.sh: FAIL: $BUILD/libshimrt.so missing" >&2; exit 1; }
HDR=$("$PY" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "include", "torch", "csrc", "inductor", "aoti_torch", "generated", "c_shim_cpu.h"))')
for seed in 1234 7; do
  SHIMRT_NUM_THREADS=2 "$PY" tests/dropin/aoti_oracle.py "$BUILD/libshimrt.so" "$HDR" "$seed" || exit 1
done

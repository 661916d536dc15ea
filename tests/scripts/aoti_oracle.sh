#!/bin/sh
# tests/scripts/aoti_oracle.sh: the c_shim_cpu.h functions that AOTInductor CPU graphs call
# (issue 19) against real PyTorch 2.15 (tests/dropin/aoti_oracle.py: called with the wheel's
# own C signatures; errors, dtype, shape and values; odd shapes, strides, dtypes, bad
# inputs; two seeds). Under SAN=1 one seed runs against the ASan/UBSan build, the sanitizer
# runtimes preloaded into PyTorch's python (leak detection off: libtorch's own allocations
# stay live); exit 77 when they are not found, or when SHIMGEN_TORCH=skip.
set -eu
: "${BUILD:=build}" "${SAN:=}" "${CC:=cc}"
rc=0
PY=$(.ci/torch-env) || rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "aoti_oracle.sh: FAIL: .ci/torch-env" >&2; exit 1; }
[ -f "$BUILD/libshimrt.so" ] || { echo "aoti_oracle.sh: FAIL: $BUILD/libshimrt.so missing" >&2; exit 1; }
HDR=$("$PY" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "include", "torch", "csrc", "inductor", "aoti_torch", "generated", "c_shim_cpu.h"))')
if [ "$SAN" = 1 ]; then
  asan=$($CC -print-file-name=libasan.so); ubsan=$($CC -print-file-name=libubsan.so)
  [ -f "$asan" ] && [ -f "$ubsan" ] ||
    { echo "aoti_oracle.sh: skipped under SAN=1 (no libasan.so / libubsan.so from $CC)"; exit 77; }
  AOTI_ORACLE_NO_DEEPBIND=1 LD_PRELOAD="$asan $ubsan" \
    ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 SHIMRT_NUM_THREADS=2 \
    "$PY" tests/dropin/aoti_oracle.py "$BUILD/libshimrt.so" "$HDR" 1234 || exit 1
  exit 0
fi
for seed in 1234 7; do
  SHIMRT_NUM_THREADS=2 "$PY" tests/dropin/aoti_oracle.py "$BUILD/libshimrt.so" "$HDR" "$seed" || exit 1
done

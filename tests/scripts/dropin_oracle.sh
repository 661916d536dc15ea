#!/bin/sh
# tests/scripts/dropin_oracle.sh: dropin's ops (layer_norm, native_layer_norm, scatter.reduce,
# scatter_reduce.two and their out variants) and the AOTInductor extern kernels
# (aoti_torch_scatter_out, _scatter_reduce_out, _index_put_out, _mm_plus_mm_out) against real
# PyTorch 2.15 (tests/dropin/oracle.py: errors, dtype, shape and values, every dtype,
# contiguous / transposed / sliced inputs, two seeds).
# Loads libtorch: plain pass only (exit 77 under SAN=1, or when SHIMGEN_TORCH=skip).
set -eu
: "${BUILD:=build}" "${SAN:=}"
[ "$SAN" = 1 ] && { echo "dropin_oracle.sh: skipped under SAN=1 (loads libtorch)"; exit 77; }
rc=0
PY=$(.ci/torch-env) || rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "dropin_oracle.sh: FAIL: .ci/torch-env" >&2; exit 1; }
[ -f "$BUILD/libshimrt.so" ] || { echo "dropin_oracle.sh: FAIL: $BUILD/libshimrt.so missing" >&2; exit 1; }
for seed in 1234 7; do
  SHIMRT_NUM_THREADS=2 "$PY" tests/dropin/oracle.py "$BUILD/libshimrt.so" "$seed" || exit 1
done

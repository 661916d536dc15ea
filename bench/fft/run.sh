#!/bin/sh
# bench/fft/run.sh: `make bench`'s FFT table (bench/fft/bench.py): libshimrt's _fft_r2c /
# _fft_c2c (kissfft) beside PyTorch 2.15's (MKL), at 1 and 2 threads. Never asserted.
# Prints a line and returns 0 when PyTorch is not available (SHIMGEN_TORCH=skip).
set -eu
: "${BUILD:=build}"
rc=0
PY=$(.ci/torch-env) || rc=$?
[ $rc -eq 77 ] && { echo "fft bench: skipped (no PyTorch)"; exit 0; }
[ $rc -eq 0 ] || exit 1
for th in 1 2; do
  SHIMRT_NUM_THREADS=$th OMP_NUM_THREADS=$th "$PY" bench/fft/bench.py "$BUILD/libshimrt.so" "$th"
done

#!/bin/sh
# bench/common/run.sh NAME: `make bench`'s table bench/NAME/bench.py (libshimrt through ctypes
# beside PyTorch 2.15, bench/common/rtbench.py) at 1 and 2 threads, one process each, the
# same count for libshimrt, OpenBLAS, OpenMP and PyTorch. Never asserted. Prints a line and
# returns 0 when PyTorch is not available (SHIMGEN_TORCH=skip).
set -eu
: "${BUILD:=build}"
BENCH=$1
. bench/common/torch.sh
for th in 1 2; do
  SHIMRT_NUM_THREADS=$th OMP_NUM_THREADS=$th OPENBLAS_NUM_THREADS=$th \
    "$PY" "bench/$1/bench.py" "$BUILD/libshimrt.so" "$th"
done

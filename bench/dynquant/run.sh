#!/bin/sh
# bench/dynquant/run.sh: `make bench`'s 4-bit matmul table (bench/dynquant/bench.py):
# libshimrt's _dyn_quant_matmul_4bit beside PyTorch 2.15's (its x86 reference kernel), on
# PyTorch's own packed weights. Never asserted. Prints a line and returns 0 when PyTorch is
# not available (SHIMGEN_TORCH=skip).
set -eu
: "${BUILD:=build}"
rc=0
PY=$(.ci/torch-env) || rc=$?
[ $rc -eq 77 ] && { echo "dynquant bench: skipped (no PyTorch)"; exit 0; }
[ $rc -eq 0 ] || exit 1
SHIMRT_NUM_THREADS=1 OMP_NUM_THREADS=1 "$PY" bench/dynquant/bench.py "$BUILD/libshimrt.so"

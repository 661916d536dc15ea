#!/bin/sh
# tests/scripts/engine_oracle.sh: every op of the kernel engine against real PyTorch 2.15
# (tests/engine/oracle.py: errors, dtype, shape, strides, aliasing and values on random
# inputs, contiguous, transposed, sliced, broadcast, zero-size and 0-d, every dtype).
# Loads libtorch: plain pass only (exit 77 under SAN=1, or when SHIMGEN_TORCH=skip).
set -eu
: "${BUILD:=build}" "${SAN:=}"
[ "$SAN" = 1 ] && { echo "engine_oracle.sh: skipped under SAN=1 (loads libtorch)"; exit 77; }
rc=0
PY=$(.ci/torch-env) || rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "engine_oracle.sh: FAIL: .ci/torch-env" >&2; exit 1; }
[ -f "$BUILD/libshimrt.so" ] || { echo "engine_oracle.sh: FAIL: $BUILD/libshimrt.so missing" >&2; exit 1; }
# two seeds: the inputs are random, the verdict must not depend on them; the second run
# lowers the thread grain (1M elements by default) so that the "large" cases take the
# threaded paths of pointwise ops, copies and reductions
SHIMRT_NUM_THREADS=2 "$PY" tests/engine/oracle.py "$BUILD/libshimrt.so" 1234 || exit 1
SHIMRT_NUM_THREADS=2 SHIMRT_GRAIN_ELEMS=4096 "$PY" tests/engine/oracle.py "$BUILD/libshimrt.so" 7 || exit 1

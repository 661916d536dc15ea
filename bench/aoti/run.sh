#!/bin/sh
# bench/aoti/run.sh: `make bench`'s AOTInductor table. Each zoo model (tests/aoti/zoo.py
# --default: compiled twice by PyTorch 2.15, once with link_libtorch=False for libshimrt,
# once PyTorch's default way) run by `shimrt-run --bench` and by PyTorch's own loader
# (torch._inductor.aoti_load_package), at 1 and 2 threads; bench/aoti/bench.py prints
# the rows. Skipped (exit 0 with a line) when PyTorch is not available.
set -eu
: "${BUILD:=build}"
BENCH=aoti
. bench/common/torch.sh
ZOO=$("$PY" tests/aoti/zoo.py --default)
exec "$PY" bench/aoti/bench.py "$ZOO" "$BUILD/shimrt-run"

#!/bin/sh
# tests/scripts/cuda_check_gpu.sh: `make check-gpu`, the one-shot check on a real GPU
# (docs/cuda.md, "make check-gpu"). It runs, each under its own time limit (about 9 minutes
# in all on one H100/H200), and prints what it ran and how long each step took:
#   1. the GPU and driver (nvidia-smi);
#   2. test_cuda_ops on the real driver (the CUDA op suite: every row, reductions, index
#      ops, GEMM through the real cuBLAS, copies across devices), kernels compiled by the
#      machine's NVRTC into $SHIMRT_CACHE_DIR (default $BUILD/jit-gpu-cache, which a run
#      of `shimrt-jit warm --arch sm_90 --cache $BUILD/jit-gpu-cache` fills beforehand);
#   3. make bench's CUDA program (bench/rt_cuda_jit: JIT costs and the GPU bandwidth rows);
#   4. bench/cuda/bench.py: libshimrt beside the machine's PyTorch CUDA build in one process
#      (full reductions of 2^28 float32 against a device copy, contiguous and strided add,
#      mm from two threads on two streams, allocator churn), when $CHECK_GPU_PYTHON
#      (default python3) imports a PyTorch that sees the GPU;
#   5. tests/aoti/cuda_zoo.sh: zoo models compiled for CUDA by that PyTorch, run by
#      shimrt-run on libshimrt and compared with eager's outputs on the GPU.
# Nothing is fetched from the network. Under `make check` (SHIMRT_CHECK_GPU unset) it
# skips: the real-GPU run is this target's. Without a GPU it skips with the reason.
set -u
BUILD=${BUILD:-build}
if [ "${SHIMRT_CHECK_GPU:-}" != 1 ]; then
    echo "cuda_check_gpu: skipped: the real-GPU suite runs with 'make check-gpu'"
    exit 77
fi
gpu=""
if command -v nvidia-smi >/dev/null 2>&1; then
    gpu=$(nvidia-smi -L 2>/dev/null | head -n 4)
fi
if [ -z "$gpu" ]; then
    echo "cuda_check_gpu: skipped: no NVIDIA GPU (nvidia-smi lists none)"
    exit 77
fi
for f in "$BUILD/tests/cuda/test_cuda_ops" "$BUILD/bench/rt_cuda_jit" "$BUILD/shimrt-run"; do
    if [ ! -x "$f" ]; then
        echo "cuda_check_gpu: $f is missing: build it first (make check-gpu builds it)"
        exit 1
    fi
done
echo "== check-gpu: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "$gpu"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null
export SHIMRT_CACHE_DIR="${SHIMRT_CACHE_DIR:-$BUILD/jit-gpu-cache}"
mkdir -p "$SHIMRT_CACHE_DIR"
unset SHIMRT_TEST_FAKE_GPU SHIMRT_LIBCUDA SHIMRT_LIBCUBLAS
echo "JIT cache: $SHIMRT_CACHE_DIR ($(ls "$SHIMRT_CACHE_DIR" | wc -l) files before the run)"
rc=0
# step NAME LIMIT_S CMD...: runs CMD under a time limit, prints its status and duration.
step() {
    name=$1
    limit=$2
    shift 2
    echo "== $name (limit ${limit} s): $*"
    t0=$(date +%s)
    timeout "$limit" "$@"
    r=$?
    t1=$(date +%s)
    echo "== $name: exit $r after $((t1 - t0)) s"
    if [ "$r" -ne 0 ]; then rc=1; fi
}
step "CUDA op suite on the real driver" 420 "$BUILD/tests/cuda/test_cuda_ops" --jobs=4 --verbose
step "bench: rt_cuda_jit" 120 "$BUILD/bench/rt_cuda_jit"
PY=${CHECK_GPU_PYTHON:-python3}
if "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    step "bench: libshimrt beside PyTorch (bench/cuda/bench.py)" 240 "$PY" bench/cuda/bench.py \
        "$BUILD/libshimrt.so"
    step "AOTInductor zoo compiled for CUDA (tests/aoti/cuda_zoo.sh)" 420 sh tests/aoti/cuda_zoo.sh
else
    echo "== bench/cuda/bench.py, tests/aoti/cuda_zoo.sh: skipped: $PY has no PyTorch that sees the GPU"
fi
echo "JIT cache: $(ls "$SHIMRT_CACHE_DIR" | wc -l) files after the run"
echo "== check-gpu: $( [ "$rc" -eq 0 ] && echo passed || echo FAILED)"
exit "$rc"

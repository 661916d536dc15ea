#!/bin/sh
# tests/aoti/cuda_zoo.sh: AOTInductor models compiled for CUDA, run on libshimrt (step of
# `make check-gpu`, tests/scripts/cuda_check_gpu.sh; needs a GPU and a PyTorch CUDA build).
# The machine's PyTorch ($CHECK_GPU_PYTHON, default python3) exports and compiles the zoo
# models named by $CUDA_ZOO (tests/aoti/zoo.py --device cuda, link_libtorch=False) and runs
# them eagerly on the GPU; $BUILD/shimrt-run runs each package on libshimrt (its CUDA
# kernels: the package's own cubins through the driver; its aten calls: libshimrt's
# aoti_torch_cuda_* shims; its CUDA runtime calls: libshimrt-cudart), and
# tests/aoti/compare.py compares the outputs with eager's. Exit 77 without a GPU.
set -u
BUILD=${BUILD:-build}
PY=${CHECK_GPU_PYTHON:-python3}
MODELS=${CUDA_ZOO:-mlp,mlp_blob,cnn_bn_pool,transformer_encoder,causal_sdpa}
if ! "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    echo "cuda_zoo: skipped: $PY has no PyTorch that sees a GPU"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/shimgen-cuda-zoo.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
ZOO=$(SHIMGEN_ZOO_CACHE=${SHIMGEN_ZOO_CACHE:-$tmp/cache} "$PY" tests/aoti/zoo.py --device cuda \
    --only "$MODELS") || { echo "cuda_zoo: FAIL: compiling the zoo for CUDA"; exit 1; }
status=0
: >"$tmp/list"
for n in $(echo "$MODELS" | tr ',' ' '); do
    d="$ZOO/$n"
    set -- "$d/model.pt2"
    i=0
    while [ -f "$d/in$i.npy" ]; do set -- "$@" --input "$d/in$i.npy"; i=$((i + 1)); done
    nout=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["outputs"])' "$d/meta.json")
    tol=$("$PY" -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["rtol"], m["atol"])' "$d/meta.json")
    mkdir -p "$tmp/$n"
    i=0
    while [ "$i" -lt "$nout" ]; do set -- "$@" --output "$tmp/$n/o$i.npy"; i=$((i + 1)); done
    if "$BUILD/shimrt-run" "$@" --bench 20 >"$tmp/$n.log" 2>&1; then
        echo "ran: $n: $(grep '^bench:' "$tmp/$n.log")"
        echo "$n $tmp/$n $d $tol $nout" >>"$tmp/list"
    else
        echo "FAIL: $n: shimrt-run:"; sed -n '1,12p' "$tmp/$n.log"; status=1
    fi
done
if [ -s "$tmp/list" ]; then "$PY" tests/aoti/compare.py "$tmp/list" || status=1; fi
exit $status

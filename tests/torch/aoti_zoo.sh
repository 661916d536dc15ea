#!/bin/sh
# tests/torch/aoti_zoo.sh: AOTInductor packages run on libshimrt (issue 19, docs/aoti.md).
#   1. the model zoo (tests/aoti/zoo.py: PyTorch 2.15 exports and compiles each model with
#      link_libtorch=False into a cache outside the tree, reused when present) run by
#      $BUILD/shimrt-run, outputs compared with PyTorch eager's by torch.testing.assert_close
#      (tests/aoti/compare.py), and through the C API (tests/aoti/capi_main.c: the same
#      comparison in C, two runs, misuse answers), alternately at 1 and 2 threads. A model
#      whose .so calls C shim functions libshimrt lacks fails, naming them;
#   2. broken packages (tests/aoti/bad_pt2.py), a link_libtorch package, wrong inputs and
#      malformed .npy files: the expected message and exit status, never a signal; a
#      Fortran-order input gives eager's outputs;
#   3. one zoo model end to end under valgrind (plain pass; ASan covers the other).
# Env (tests/tests.mk): BUILD, CC, SAN. Needs .ci/torch-env (77 when skipped).
set -u
BUILD=${BUILD:-build}
CC=${CC:-cc}
SAN=${SAN:-}
rc=0; PY=$(.ci/torch-env) || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
RUN="$BUILD/shimrt-run"
[ -x "$RUN" ] && [ -f "$BUILD/libshimrt-aoti.a" ] || { echo "aoti_zoo: FAIL: $RUN not built"; exit 1; }
ZOO=$("$PY" tests/aoti/zoo.py) || { echo "aoti_zoo: FAIL: building the zoo (tests/aoti/zoo.py)"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/shimgen-aoti.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
SANFLAGS=""
[ "$SAN" = 1 ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# shellcheck disable=SC2086
if ! $CC -std=c11 -Wall -Wextra -Werror -O1 -g $SANFLAGS -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L \
    -Iruntime/include tests/aoti/capi_main.c "$BUILD/libshimrt-aoti.a" -L"$BUILD" -lshimrt -lzip -ldl -lm \
    -Wl,-rpath,"$(cd "$BUILD" && pwd)" -o "$tmp/capi_main" >"$tmp/build.log" 2>&1; then
    echo "aoti_zoo: FAIL: building capi_main:"; sed -n '1,30p' "$tmp/build.log"; exit 1
fi

# 1. the zoo: NAME RTOL ATOL NIN NOUT per model
"$PY" -c '
import json, os, sys
for n in sorted(os.listdir(sys.argv[1])):
    p = os.path.join(sys.argv[1], n, "meta.json")
    if os.path.isfile(p):
        m = json.load(open(p)); print(n, m["rtol"], m["atol"], m["inputs"], m["outputs"])
' "$ZOO" >"$tmp/models" || { echo "aoti_zoo: FAIL: reading $ZOO"; exit 1; }
: >"$tmp/compare"
: >"$tmp/missing"
total=0; ran=0
while read -r name rtol atol nin nout; do
    total=$((total + 1))
    d="$ZOO/$name"; o="$tmp/out/$name"; mkdir -p "$o"
    # every other model at 1 thread, the others at 2 (OpenMP and libshimrt's pool)
    set -- "$d/model.pt2" --threads $((total % 2 + 1))
    i=0; while [ $i -lt "$nin" ]; do set -- "$@" --input "$d/in$i.npy"; i=$((i + 1)); done
    i=0; while [ $i -lt "$nout" ]; do set -- "$@" --output "$o/o$i.npy"; i=$((i + 1)); done
    rc=0; "$RUN" "$@" >"$tmp/run.log" 2>&1 || rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: $name: shimrt-run exit $rc:"; sed -n '1,12p' "$tmp/run.log"; status=1
        grep -o 'does not export:.*' "$tmp/run.log" | tr ' ' '\n' | grep '^aoti_torch_\|^torch_' >>"$tmp/missing"
        continue
    fi
    echo "$name $o $d $rtol $atol $nout" >>"$tmp/compare"
    rc=0; "$tmp/capi_main" "$d" "$rtol" "$atol" >"$tmp/capi.log" 2>&1 || rc=$?
    if [ $rc -eq 0 ]; then
        echo "ok: $name: C API: $(tail -n 1 "$tmp/capi.log" | sed 's/^ok: //')"; ran=$((ran + 1))
    else
        echo "FAIL: $name: C API (exit $rc):"; sed -n '1,12p' "$tmp/capi.log"; status=1
    fi
done <"$tmp/models"
if [ -s "$tmp/compare" ]; then
    "$PY" tests/aoti/compare.py "$tmp/compare" || status=1
fi
echo "aoti_zoo: $ran of $total zoo models run on libshimrt and match PyTorch eager"
if [ -s "$tmp/missing" ]; then
    echo "aoti_zoo: FAIL: C shim functions the zoo needs and libshimrt lacks: $(sort -u "$tmp/missing" | tr '\n' ' ')"
fi

# 2. broken packages: FILE EXIT-STATUS MESSAGE-PART
mkdir -p "$tmp/bad"
"$PY" tests/aoti/bad_pt2.py "$tmp/bad" "$ZOO" || { echo "aoti_zoo: FAIL: bad_pt2.py"; exit 1; }
cp "$ZOO/mlp/default.pt2" "$tmp/bad/libtorch.pt2"
while IFS='|' read -r file want msg; do
    rc=0; "$RUN" "$tmp/bad/$file" --input "$ZOO/mlp/in0.npy" >"$tmp/bad.log" 2>&1 || rc=$?
    if [ "$rc" -eq "$want" ] && grep -qF -- "$msg" "$tmp/bad.log"; then
        echo "ok: $file: exit $rc: $(grep -F -- "$msg" "$tmp/bad.log" | head -n 1 | cut -c1-150)"
    else
        echo "FAIL: $file: exit $rc (want $want and '$msg'):"; sed -n '1,8p' "$tmp/bad.log"; status=1
    fi
done <<'LIST'
truncated.pt2|3|not a readable .pt2 package (zip)
notzip.pt2|3|not a readable .pt2 package (zip)
empty.pt2|3|not a readable .pt2 package (zip)
no_model.pt2|3|not an AOTInductor package
aarch64.pt2|3|was compiled for aarch64
elf32.pt2|3|is a 32-bit little-endian ELF file
badso.pt2|3|ELF section table is truncated or malformed
no_blob.pt2|3|the constants are missing
unknown_fn.pt2|3|does not export: aoti_torch_get_numex
cuda.pt2|3|compiled for CUDA, and this machine cannot run it
xpu.pt2|3|compiled for device 'xpu'; libshimrt runs CPU and CUDA packages
cuda_so.pt2|3|it was compiled for CUDA (needs libcudart.so)
libtorch.pt2|3|it is linked to libtorch (libtorch
LIST
# wrong inputs: the model's own checks (AOTI_RUNTIME_CHECK_INPUTS) answer, no crash
check_run() { # WANT-EXIT MESSAGE ARGS...
    want=$1; msg=$2; shift 2
    rc=0; "$RUN" "$@" >"$tmp/bad.log" 2>&1 || rc=$?
    if [ "$rc" -eq "$want" ] && grep -qF -- "$msg" "$tmp/bad.log"; then
        echo "ok: exit $rc: $(grep -F -- "$msg" "$tmp/bad.log" | head -n 1 | cut -c1-150)"
    else
        echo "FAIL: shimrt-run $*: exit $rc (want $want and '$msg'):"; sed -n '1,8p' "$tmp/bad.log"; status=1
    fi
}
printf 'not npy' >"$tmp/bad/x.npy"
check_run 1 "unmatched dtype" "$ZOO/int64_index/model.pt2" --input "$ZOO/mlp/in0.npy" --input "$ZOO/int64_index/in1.npy"
check_run 1 "unmatched dim value" "$ZOO/int64_index/model.pt2" --input "$tmp/bad/wrong_shape.npy" --input "$ZOO/int64_index/in1.npy"
check_run 2 "takes 2 inputs; 1 --input given" "$ZOO/int64_index/model.pt2" --input "$ZOO/int64_index/in0.npy"
check_run 4 "not a .npy file" "$ZOO/int64_index/model.pt2" --input "$tmp/bad/x.npy" --input "$ZOO/int64_index/in1.npy"
check_run 2 "usage" --bench
# a CUDA package on the fake driver (tests/cuda/fake_cuda.c): the loader's CUDA path
# (libshimrt-cudart loaded, the container created on cuda:0, the input moved to the device)
# up to the model's own check, which refuses it: cuda.pt2 is mlp's CPU .so under CUDA metadata
if [ -e "$BUILD/tests/cuda/libfakecuda.so" ]; then
    SHIMRT_LIBCUDA="$(cd "$BUILD" && pwd)/tests/cuda/libfakecuda.so" \
        check_run 1 "unmatched device type, expected: 00(cpu), but got: 1" "$tmp/bad/cuda.pt2" \
        --input "$ZOO/mlp/in0.npy"
    unset SHIMRT_LIBCUDA # (a shell that keeps a function call's assignment)
else
    echo "FAIL: $BUILD/tests/cuda/libfakecuda.so is missing"; status=1
fi
I64="$ZOO/int64_index/model.pt2"
check_run 4 "shape too large" "$I64" --input "$tmp/bad/huge.npy" --input "$ZOO/int64_index/in1.npy"
check_run 4 "truncated data" "$I64" --input "$tmp/bad/short.npy" --input "$ZOO/int64_index/in1.npy"
check_run 4 "big-endian" "$I64" --input "$tmp/bad/big_endian.npy" --input "$ZOO/int64_index/in1.npy"
# a Fortran-order .npy input is read into a C-contiguous tensor: same outputs as eager's
mkdir -p "$tmp/fortran"
if "$RUN" "$I64" --input "$tmp/bad/fortran.npy" --input "$ZOO/int64_index/in1.npy" \
    --output "$tmp/fortran/o0.npy" --output "$tmp/fortran/o1.npy" --output "$tmp/fortran/o2.npy" >"$tmp/bad.log" 2>&1; then
    echo "int64_index_fortran_input $tmp/fortran $ZOO/int64_index 1e-5 1e-6 3" >"$tmp/compare_f"
    "$PY" tests/aoti/compare.py "$tmp/compare_f" || status=1
else
    echo "FAIL: Fortran-order input:"; sed -n '1,8p' "$tmp/bad.log"; status=1
fi

# 3. valgrind: mlp_blob end to end (open, blob weights, run, bench, write, free)
if [ "$SAN" != 1 ] && grep -q '^mlp_blob ' "$tmp/compare"; then
    if command -v valgrind >/dev/null 2>&1; then
        name=mlp_blob # compiled for x86-64-v2 (zoo.py): valgrind knows no AVX-512
        set -- "$ZOO/$name/model.pt2"
        for f in "$ZOO/$name"/in*.npy; do set -- "$@" --input "$f"; done
        set -- "$@" --output "$tmp/vg.npy" --bench 2
        if valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
            "$RUN" "$@" >"$tmp/vg.log" 2>&1; then
            echo "ok: valgrind clean: shimrt-run $name"
        else
            echo "FAIL: valgrind: shimrt-run $name:"; sed -n '1,40p' "$tmp/vg.log"; status=1
        fi
    else
        echo "FAIL: valgrind not installed (.ci/deps installs it)"; status=1
    fi
fi
exit $status

#!/bin/sh
# tests/torch/torchaudio.sh: torchaudio 2.11.0's own binaries from PyPI (libtorchaudio.abi3.so
# and _torchaudio.abi3.so: stable-ABI extensions built against libtorch and libcudart.so.13,
# fetched once by .ci/torchaudio-wheel) load unchanged on libshimrt and give PyTorch 2.15's
# results. tests/torch/torchaudio_client.c is built twice:
#   - against libshimrt, run with LD_LIBRARY_PATH=$BUILD/torch-libs (the NEEDED libtorch.so,
#     libc10.so, libcudart.so.13, ... resolve to libshimrt and libshimrt-cudart;
#     docs/dropin.md): the process must hold no libtorch, libc10 or NVIDIA libcudart;
#   - against PyTorch's libtorch_cpu (.ci/torch-env), where the same binaries load on libtorch.
# Both call every op (forced_align, _lfilter_core_loop, _overdrive_core_loop,
# rnnt_loss_forward, is_align_available, cuda_version) through torch_call_dispatcher on the
# same inputs and must print the same lines: results' dtype, sizes, strides and bytes
# (bitwise: both run torchaudio's kernel), in-place arguments after the call, and the failing
# calls' messages (torchaudio's STD_TORCH_CHECK text); inputs contiguous, transposed and with
# gaps (the kernels' contiguity checks); libshimrt once on 1 thread and once on 4. Then the
# nvcc registration and launch entry points of libshimrt-cudart as torchaudio loaded it: a
# launch returns a CUDA error.
# Under SAN=1 the libshimrt side runs sanitized (the libtorch side is not rebuilt).
# Exit 77 without PyTorch or the wheel. ORACLE_KEEP=DIR keeps both outputs.
set -eu
BUILD=${BUILD:-build}
CC=${CC:-cc}
fail() { echo "torchaudio: FAIL: $*" >&2; exit 1; }
rc=0; PY=$(.ci/torch-env) || rc=$?
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || fail ".ci/torch-env failed"
rc=0; TA=$(sh .ci/torchaudio-wheel) || rc=$?
[ "$rc" -eq 77 ] && { echo "torchaudio: skipped: torchaudio 2.11.0's wheel cannot be had"; exit 77; }
[ "$rc" -eq 0 ] || fail ".ci/torchaudio-wheel failed"
TORCH=$("$PY" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
NV=$(dirname "$(dirname "$TORCH")")/nvidia/cu13/lib
LIB=$(cd "$BUILD" && pwd)
for f in libshimrt.so libshimrt-cudart.so torch-libs/libtorch.so torch-libs/libcudart.so.13; do
    [ -e "$LIB/$f" ] || fail "$BUILD/$f is missing (make all)"
done
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
SANFLAGS=""
[ "${SAN:-}" = 1 ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
CF="-std=c11 -Wall -Wextra -Werror -Iruntime/include"
# shellcheck disable=SC2086
$CC $CF $SANFLAGS tests/torch/torchaudio_client.c -o "$T/shimrt" -L"$LIB" -lshimrt -ldl -lm \
    -Wl,-rpath,"$LIB" || fail "the client against libshimrt"
$CC $CF tests/torch/torchaudio_client.c -o "$T/torch" -L"$TORCH/lib" -ltorch_cpu -lc10 -ldl -lm \
    -Wl,-rpath,"$TORCH/lib" || fail "the client against libtorch"

# torchaudio's forced_align leaks its two work arrays when its length check throws (with
# libtorch as well): LeakSanitizer is told of that one leak, in torchaudio's own code.
echo 'leak:torchaudio::alignment::cpu::forced_align_impl' > "$T/lsan.supp"
rc=0
LSAN_OPTIONS="suppressions=$T/lsan.supp:print_suppressions=0" SHIMRT_NUM_THREADS=1 \
    LD_LIBRARY_PATH="$LIB/torch-libs" "$T/shimrt" "$TA" > "$T/shimrt.out" 2> "$T/shimrt.err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$T/shimrt.err" >&2; fail "the client on libshimrt exited $rc"; }
OMP_NUM_THREADS=1 LD_LIBRARY_PATH="$TORCH/lib:$NV" "$T/torch" "$TA" > "$T/torch.out" \
    2> "$T/torch.err" || rc=$?
[ "$rc" -eq 0 ] || { tail -5 "$T/torch.err" >&2; fail "the client on libtorch exited $rc"; }
grep -q '^object libtorch_cpu' "$T/torch.err" || fail "the libtorch run did not load libtorch_cpu"
if grep -E '^object lib(torch(_cpu|_cuda)?|c10(_cuda)?|cudart)[.]so' "$T/shimrt.err" >&2; then
    fail "the libshimrt process loaded the files above"
fi
[ "$(grep -c '^object libshimrt.so' "$T/shimrt.err")" -eq 1 ] ||
    fail "libshimrt.so is not loaded exactly once: $(grep '^object libshimrt' "$T/shimrt.err")"
grep -q '^failures 0$' "$T/torch.out" || { tail -3 "$T/torch.out" >&2; fail "a setup call failed on libtorch"; }
[ -n "${ORACLE_KEEP:-}" ] && cp "$T/torch.out" "$T/shimrt.out" "$ORACLE_KEEP/"
diff "$T/torch.out" "$T/shimrt.out" >&2 || fail "libshimrt differs from PyTorch (< torch, > shimrt)"
# torchaudio's kernels split work with torch_parallel_for: the same bytes on 4 threads
LSAN_OPTIONS="suppressions=$T/lsan.supp:print_suppressions=0" SHIMRT_NUM_THREADS=4 \
    LD_LIBRARY_PATH="$LIB/torch-libs" "$T/shimrt" "$TA" > "$T/shimrt4.out" 2> "$T/shimrt4.err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$T/shimrt4.err" >&2; fail "the client on libshimrt (4 threads) exited $rc"; }
diff "$T/torch.out" "$T/shimrt4.out" >&2 || fail "libshimrt on 4 threads differs from PyTorch"

LD_LIBRARY_PATH="$LIB/torch-libs" "$T/shimrt" "$TA" --cudart > "$T/cudart.out" 2> "$T/cudart.err" ||
    rc=$?
[ "$rc" -eq 0 ] || { cat "$T/cudart.out" "$T/cudart.err" >&2; fail "the libshimrt-cudart checks exited $rc"; }
for want in 'push 0' 'pop 0 grid 2,3,4 block 32,1,1 shmem 128 stream kept' 'pop empty 52' \
    'get kernel 0 found' 'check_msg CUDA error: out of memory' 'get unregistered 98' \
    'launch a non-kernel 98' 'get after unregister 98'; do
    grep -qx "cudart: $want" "$T/cudart.out" || { cat "$T/cudart.out" >&2; fail "cudart: no '$want'"; }
done
# (check_msg: libshimrt's CUDA error text, found without looping back through this library
# that it opens as libcudart.so.13.) A launch with no device: cudaErrorNoDevice (100); with
# one: cudaErrorNotSupported (801); never success.
grep -Eqx 'cudart: launch (100 last 100|801 last 801)' "$T/cudart.out" &&
    grep -q '^cudart: text __cudaLaunchKernel: cannot launch my_kernel' "$T/cudart.out" ||
    { cat "$T/cudart.out" >&2; fail "cudart: the launch's error"; }

n=$(grep -c '^case ' "$T/torch.out")
e=$(grep -c '^  error ' "$T/torch.out")
echo "torchaudio: torchaudio 2.11.0's binaries on libshimrt: $n cases the same as PyTorch 2.15's" \
    "($((n - e)) results bitwise, $e errors with the same message)"

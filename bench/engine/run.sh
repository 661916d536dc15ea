#!/bin/sh
# bench/engine/run.sh: `make bench`'s engine table. Builds bench/engine/client.c twice, one
# stable-ABI C client linked against libshimrt and against libtorch 2.15 (.ci/torch-env
# installs the wheel into a cache), runs both at 1 and 2 threads and prints, per case,
# best-of-5 times and the ratio ours / PyTorch's (below 1.0: we are faster), plus the
# bandwidth of the 16M-element bandwidth-bound ops against memcpy.
# Prints a line and returns 0 when PyTorch is not available (SHIMGEN_TORCH=skip).
set -eu
: "${RT_LDLIBS:=$(cat "${BUILD:-build}/rt_ldlibs")}" # libshimrt.a's own libraries (runtime/runtime.mk)
: "${BUILD:=build}" "${CC:=cc}"
BENCH=engine
. bench/common/torch.sh
TORCH=$("$PY" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
out=$BUILD/bench/engine
mkdir -p "$out"
$CC -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -o "$out/client_shimrt" bench/engine/client.c \
  "$BUILD/libshimrt.a" $RT_LDLIBS
$CC -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -o "$out/client_torch" bench/engine/client.c \
  -L"$TORCH/lib" -Wl,-rpath,"$TORCH/lib" -Wl,--no-as-needed -ltorch -ltorch_cpu -lc10
# cuda: the same calls on CUDA tensors of device 0 (rows only on a machine with a GPU)
groups=${ENGINE_BENCH_GROUPS:-overhead pw clone red gemm linalg memcpy cuda}
echo "engine: libshimrt vs libtorch 2.15, same C client through torch_call_dispatcher"
echo "        (ns per call, best of 5; ratio = ours / PyTorch's)"
# ENGINE_BENCH_ROUNDS (default 1): run both clients this many times, alternating, and keep
# each case's best: on a loaded machine a single run of either side can be 2x off.
rounds=${ENGINE_BENCH_ROUNDS:-1}
threads=${ENGINE_BENCH_THREADS:-1 2}
best() { awk '{ if (!($1 in m) || $2 < m[$1]) m[$1] = $2; if (!($1 in o)) o[$1] = n++ }
  END { for (k in m) print o[k], k, m[k] }' "$@" | sort -n | cut -d' ' -f2-; }
for th in $threads; do
  printf '\n%-24s %14s %14s %8s   (%s thread(s))\n' case libshimrt pytorch ratio "$th"
  for g in $groups; do
    : >"$out/s.txt"; : >"$out/t.txt"
    r=0
    while [ $r -lt "$rounds" ]; do
      SHIMRT_NUM_THREADS=$th "$out/client_shimrt" "$g" >>"$out/s.txt" 2>"$out/s.err"
      OMP_NUM_THREADS=$th MKL_NUM_THREADS=$th "$out/client_torch" "$g" >>"$out/t.txt" \
        2>"$out/t.err"
      r=$((r + 1))
    done
    if [ ! -s "$out/s.txt" ] || [ ! -s "$out/t.txt" ]; then
      echo "$g: skipped: $(cat "$out/s.err" "$out/t.err" | head -1 | cut -c1-160)"
      continue
    fi
    best "$out/s.txt" >"$out/s1.txt"
    best "$out/t.txt" >"$out/t1.txt"
    join "$out/s1.txt" "$out/t1.txt" | awk '
      $1 ~ /^memcpy/ { printf "%-24s %14.0f   (%.1f GB/s copy)\n", $1, $2, 2 * 67108864 / $2; next }
      { printf "%-24s %14.1f %14.1f %8.2f\n", $1, $2, $3, $2 / $3 }'
  done
done

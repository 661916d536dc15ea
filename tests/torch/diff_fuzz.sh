#!/bin/sh
# tests/torch/diff_fuzz.sh: the differential fuzzer (docs/difffuzz.md). One client object
# ($BUILD/diff/diff_client.o, fuzz/diff/diff_client.c) linked against libshimrt
# ($BUILD/diff/diff_shimrt) and here against PyTorch 2.15's libtorch_cpu.so; the same random
# calls (fixed seeds) through both; the records compared (dtype, shape, strides, storage
# offset, aliasing, inputs after the call, success, bytes with floats within 1 ulp). A
# difference fails unless fuzz/diff/allowlist.txt names its class, op and path; a crash
# always fails.
#   plain pass: DIFF_SEEDS (default "1 2") x DIFF_CALLS (default 1500) through both, and
#               DIFF_VG_CALLS (default 1000) of libshimrt's side under valgrind
#   SAN=1:      libshimrt's side only, DIFF_SAN_CALLS (default 3000) calls under ASan/UBSan
#               (every shim, also those PyTorch lacks; no comparison: libtorch is not loaded)
# DIFF_KEEP=DIR keeps the records and reports there (make fuzz-diff).
set -eu
: "${BUILD:=build}" "${SAN:=}" "${CC:=cc}"
DIFF_SEEDS=${DIFF_SEEDS:-"1 2"}
DIFF_CALLS=${DIFF_CALLS:-1500}
M=generated/shim_manifest.json
AL=fuzz/diff/allowlist.txt
CLIENT=$BUILD/diff/diff_shimrt
fail() { echo "diff_fuzz: FAIL: $*" >&2; exit 1; }
[ -x "$CLIENT" ] || fail "$CLIENT missing (make test-build)"
export OMP_NUM_THREADS=1 SHIMRT_NUM_THREADS=1 MKL_NUM_THREADS=1
if [ -n "${DIFF_KEEP:-}" ]; then T=$DIFF_KEEP; mkdir -p "$T"; else
  T=$(mktemp -d); trap 'rm -rf "$T"' EXIT; fi

if [ "$SAN" = 1 ]; then
  n=${DIFF_SAN_CALLS:-3000}
  "$CLIENT" run "$M" 1 "$n" "$T/san.txt" 2>"$T/san.err" || fail "diff_shimrt run (ASan)"
  if grep -q ' crash$' "$T/san.txt" || grep -q -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$T/san.err"; then
    grep -A1 ' crash$' "$T/san.txt" >&2 || true
    grep -A30 -E 'ERROR: |runtime error:' "$T/san.err" | head -60 >&2
    fail "libshimrt under ASan/UBSan"
  fi
  echo "diff_fuzz: $n calls of libshimrt's side under ASan/UBSan: clean"
  exit 0
fi

rc=0; PY=$(.ci/torch-env) || rc=$?
[ "$rc" -eq 77 ] && { echo "diff_fuzz: skipped: no PyTorch 2.15 (.ci/torch-env)"; exit 77; }
[ "$rc" -eq 0 ] || fail ".ci/torch-env"
TORCH=$("$PY" -c 'import os, torch; print(os.path.dirname(torch.__file__))') || fail "import torch"
[ -f "$TORCH/lib/libtorch_cpu.so" ] || { echo "diff_fuzz: skipped: no $TORCH/lib/libtorch_cpu.so"; exit 77; }

# The same object, linked against libtorch (and the schema library shimgen links).
OBJ=$BUILD/diff/diff_client.o
SCH="$BUILD/libsgschema.a"
# shellcheck disable=SC2086
$CC -o "$T/diff_torch" "$OBJ" $SCH -L"$TORCH/lib" -ltorch_cpu -lc10 -Wl,-rpath,"$TORCH/lib" \
  -lffi -ldl -lm || fail "linking the client against libtorch"

# What both libraries have: the shims each exports and the ops whose arguments PyTorch 2.15
# can take on a StableIValue stack (no Scalar).
"$CLIENT" list "$M" >"$T/list.ours" || fail "diff_shimrt list"
"$T/diff_torch" list "$M" >"$T/list.torch" 2>/dev/null || fail "diff_torch list"
keep() { awk '$4 == "present" || $4 == "dispatchable" { print $1 " " $2 }' "$1" | sort; }
keep "$T/list.ours" >"$T/k.ours"; keep "$T/list.torch" >"$T/k.torch"
comm -12 "$T/k.ours" "$T/k.torch" >"$T/only"
echo "diff_fuzz: $(grep -c '^c ' "$T/only") aoti_torch_cpu_* shims, $(grep -c '^a ' "$T/only") aoti_torch_aten_* shims, $(grep -c '^d ' "$T/only") ops through torch_call_dispatcher in both" \
  "(of $(grep -c '^[ca] ' "$T/list.ours") shims and $(grep -c '^d ' "$T/list.ours") ops of ours; the rest: $(comm -23 "$T/k.ours" "$T/k.torch" | wc -l) not in PyTorch 2.15, $(grep -c ' nodispatch$' "$T/list.ours") with a Scalar or Tensor?[] argument, $(grep -c ' unhandled$' "$T/list.ours") with a parameter type the client cannot pass)"

st=0
for s in $DIFF_SEEDS; do
  t0=$(date +%s)
  "$CLIENT" run "$M" "$s" "$DIFF_CALLS" "$T/ours.$s" "$T/only" 2>"$T/ours.$s.err" || fail "diff_shimrt run $s"
  "$T/diff_torch" run "$M" "$s" "$DIFF_CALLS" "$T/torch.$s" "$T/only" 2>"$T/torch.$s.err" || fail "diff_torch run $s"
  t1=$(date +%s)
  r=0; "$CLIENT" compare "$T/ours.$s" "$T/torch.$s" "$AL" >"$T/report.$s" || r=$?
  echo "diff_fuzz: seed $s ($((t1 - t0)) s): $(grep '^calls' "$T/report.$s")"
  if [ "$r" -ne 0 ]; then
    st=1; sed -n '/^DIFF/p' "$T/report.$s" | head -40
    sed -n '/^differences/,/^allow-list/p' "$T/report.$s"
  fi
  grep -q ' crash$' "$T/ours.$s" && { st=1; grep -A1 ' crash$' "$T/ours.$s"; }
done
[ "$st" -eq 0 ] || fail "differences not on $AL (records in ${DIFF_KEEP:-a temporary directory})"

# libshimrt's side under valgrind (every shim and op: no filter), a few calls. One thread
# (ours and OpenBLAS's): the client's child ends with _exit() while the pools' workers live
# (OpenBLAS's, made at load, in its parent), whose thread-local blocks memcheck then counts
# as possibly lost (threads are TSan's: tests/scripts/tsan.sh).
if command -v valgrind >/dev/null 2>&1 && [ "${DIFF_VG_CALLS:-1000}" -gt 0 ]; then
  OPENBLAS_NUM_THREADS=1 SHIMRT_NUM_THREADS=1 valgrind -q --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite --log-file="$T/valgrind.%p" \
    "$CLIENT" run "$M" 3 "${DIFF_VG_CALLS:-1000}" "$T/vg.txt" 2>/dev/null || {
    cat "$T"/valgrind.* | head -60; fail "valgrind"; }
  if grep -q ' crash$' "$T/vg.txt" || cat "$T"/valgrind.* | grep -q .; then
    cat "$T"/valgrind.* | head -60; fail "valgrind reports errors"; fi
  echo "diff_fuzz: ${DIFF_VG_CALLS:-1000} calls of libshimrt's side under valgrind: clean"
fi

#!/bin/sh
# The CUDA JIT without a GPU, with the installed NVRTC (skipped when NVRTC cannot be
# loaded, and in the ASan pass): every kernel of the catalogue compiles for sm_80, sm_90 and
# sm_100 with no ptxas spill; `shimrt-jit warm` fills a disk cache (all misses), a second
# run is all hits, a corrupted and a truncated file are detected and rebuilt, two processes
# warming the same cache at once leave only valid files, the size bound evicts, clear
# empties it, SHIMRT_CACHE_DISABLE turns it off.
set -eu
BUILD=${BUILD:-build}
JIT=$BUILD/shimrt-jit
[ "${SAN:-}" = 1 ] && { echo "skip: NVRTC checks run in the plain pass"; exit 77; }
[ -x "$JIT" ] || { echo "FAIL: $JIT missing"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! $JIT warm --arch sm_80 --cache "$tmp/probe" >"$tmp/probe.log" 2>&1; then
  if grep -q "NVRTC could not be loaded" "$tmp/probe.log"; then
    echo "skip: NVRTC is not installed ($(head -c 300 "$tmp/probe.log"))"; exit 77
  fi
  cat "$tmp/probe.log"; echo "FAIL: warm sm_80"; exit 1
fi
n=$($JIT list | wc -l)
[ "$n" -gt 0 ] || { echo "FAIL: empty kernel list"; exit 1; }
grep -q "warm: $n kernels x 1 arch(s): $n compiled, 0 disk hits" "$tmp/probe.log" || {
  cat "$tmp/probe.log"; echo "FAIL: first warm should compile every kernel"; exit 1; }

# every kernel, three architectures, ptxas -v: no spill
$JIT spills --arch sm_80,sm_90,sm_100 >"$tmp/spills.log" 2>&1 || { cat "$tmp/spills.log"; exit 1; }
grep -q "spills: $n kernels x 3 arch(s) compiled, $((n * 3)) ptxas reports read, 0 with spills" \
  "$tmp/spills.log" || { cat "$tmp/spills.log"; echo "FAIL: spills"; exit 1; }

c="$tmp/probe"
# second run: all hits
$JIT warm --arch sm_80 --cache "$c" >"$tmp/w2.log"
grep -q ": 0 compiled, $n disk hits, 0 corrupt" "$tmp/w2.log" || { cat "$tmp/w2.log"; exit 1; }
# a corrupted file (one flipped byte) and a truncated one are rebuilt, never loaded
set -- "$c"/*.shk
f1=$1; f2=$2
printf '\377' | dd of="$f1" bs=1 seek=200 conv=notrunc 2>/dev/null
head -c 100 "$f2" >"$tmp/t" && mv "$tmp/t" "$f2"
$JIT warm --arch sm_80 --cache "$c" >"$tmp/w3.log"
grep -q ": 2 compiled, $((n - 2)) disk hits, 2 corrupt files rebuilt, 0 failed" "$tmp/w3.log" || {
  cat "$tmp/w3.log"; echo "FAIL: corrupt files"; exit 1; }
$JIT warm --arch sm_80 --cache "$c" | grep -q ": 0 compiled, $n disk hits, 0 corrupt" || {
  echo "FAIL: the rebuilt files are not hits"; exit 1; }
# two processes at once over a cache missing five files: both succeed, every file is valid
for f in $(ls "$c"/*.shk | head -5); do rm -f "$f"; done
$JIT warm --arch sm_80 --cache "$c" >"$tmp/p1.log" 2>&1 &
p1=$!
$JIT warm --arch sm_80 --cache "$c" >"$tmp/p2.log" 2>&1 || { cat "$tmp/p2.log"; exit 1; }
wait $p1 || { cat "$tmp/p1.log"; exit 1; }
ls -a "$c" | grep -q '^\.tmp' && { echo "FAIL: temp files left"; exit 1; }
$JIT warm --arch sm_80 --cache "$c" | grep -q ": 0 compiled, $n disk hits, 0 corrupt" || {
  echo "FAIL: after concurrent warms"; exit 1; }
# the size bound: the 20 sh_add_ kernels for sm_90 into a cache bounded to 5 files' worth
# of bytes: it ends at or under the bound (least recently used files evicted)
total=$(cat "$c"/*.shk | wc -c)
bound=$((total / n * 5))
SHIMRT_CACHE_MAX_BYTES=$bound $JIT warm --arch sm_90 --only sh_add_ --cache "$tmp/bounded" >"$tmp/wb.log"
grep -q "warm: 20 kernels x 1 arch(s): 20 compiled" "$tmp/wb.log" || { cat "$tmp/wb.log"; echo "FAIL: bounded warm"; exit 1; }
now=$(cat "$tmp/bounded"/*.shk | wc -c)
[ "$now" -le "$bound" ] || { echo "FAIL: cache holds $now bytes over the bound $bound"; exit 1; }
[ "$(ls "$tmp/bounded"/*.shk | wc -l)" -lt 20 ] || { echo "FAIL: nothing evicted"; exit 1; }
# stats, clear, disable
$JIT stats --cache "$c" | grep -q "files" || exit 1
$JIT clear --cache "$c" | grep -q "removed" || exit 1
[ -z "$(ls "$c"/*.shk 2>/dev/null)" ] || { echo "FAIL: clear left files"; exit 1; }
SHIMRT_CACHE_DISABLE=1 $JIT stats 2>&1 | grep -q disabled || { echo "FAIL: disable"; exit 1; }
echo "ok: $n kernels compile for sm_80/90/100 without spills; cache miss, hit, corrupt, concurrent, bound"

#!/bin/sh
# tests/pipeline/outputs.sh: what a run leaves in OUT_DIR (issue 22, items 11 and 12, and
# `-o FILE`).
# - Files an earlier run wrote (listed in the shim_manifest.json it left) that this run does
#   not make are removed, and --check lists them; files shimgen did not write stay.
# - Temporaries `<output>.tmp.<pid>.<n>` of a killed run (its process gone) are removed by
#   the next run; those of a running process and files merely named like them stay.
# - When only the depfile cannot be written, nothing in OUT_DIR changes.
# - `-o` naming an existing file is an error saying so.
set -u
SHIMGEN=${SHIMGEN:-build/shimgen}
T=$(mktemp -d "${TMPDIR:-/tmp}/shimgen-outputs.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fail() { echo "outputs: FAIL: $*" >&2; exit 1; }
FX=tests/fixtures/emit_abi
O=$T/out

"$SHIMGEN" -q --backends cpu,cuda "$FX" -o "$O" || fail "cpu+cuda run"
[ -f "$O/c_shim_cuda.c" ] || fail "no c_shim_cuda.c"
echo keep > "$O/mine.c"
"$SHIMGEN" -q --check --backends cpu "$FX" -o "$O" > "$T/check"; rc=$?
[ $rc = 1 ] || fail "--check after dropping cuda: exit $rc, expected 1"
grep -q "^$O/c_shim_cuda.c: would be removed" "$T/check" || { cat "$T/check" >&2; fail "--check does not list the stale c_shim_cuda.c"; }
! grep -q "mine.c" "$T/check" || fail "--check lists a file shimgen did not write"
"$SHIMGEN" -q --backends cpu "$FX" -o "$O" || fail "cpu run"
for f in c_shim_cuda.h c_shim_cuda.c c_boxed_cuda.h c_boxed_cuda.c cuda_kernels.h; do
  [ ! -e "$O/$f" ] || fail "stale $f left in OUT_DIR"
done
[ -f "$O/mine.c" ] && [ -f "$O/c_shim_cpu.c" ] || fail "a file that is not stale was removed"
"$SHIMGEN" -q --check --backends cpu "$FX" -o "$O" > "$T/check" || { cat "$T/check" >&2; fail "--check after the cpu run"; }
echo "ok: outputs of an earlier configuration are removed, and --check lists them"

# A process that is gone: its pid, once it has exited.
sh -c 'echo $$' > "$T/pid"; dead=$(cat "$T/pid")
kill -0 "$dead" 2> /dev/null && { echo "skip: pid $dead reused"; exit 77; }
: > "$O/c_shim_cpu.h.tmp.$dead.0"
: > "$O/shim_manifest.json.tmp.$dead.7"
: > "$O/c_shim_cpu.h.tmp.$$.1"   # this shell is alive
: > "$O/mine.c.tmp.$dead.2"      # not an output of shimgen
"$SHIMGEN" -q --backends cpu "$FX" -o "$O" || fail "run after a kill"
[ ! -e "$O/c_shim_cpu.h.tmp.$dead.0" ] && [ ! -e "$O/shim_manifest.json.tmp.$dead.7" ] ||
  fail "a killed run's temporaries are left"
[ -e "$O/c_shim_cpu.h.tmp.$$.1" ] || fail "a live process's temporary was removed"
[ -e "$O/mine.c.tmp.$dead.2" ] || fail "a temporary of a file shimgen does not make was removed"
rm -f "$O/c_shim_cpu.h.tmp.$$.1" "$O/mine.c.tmp.$dead.2"
echo "ok: a killed run's temporaries are removed by the next run"

# Only the depfile fails (its directory cannot be made): nothing in OUT_DIR changes.
(cd "$O" && ls -l --time-style=+%s.%N . && cat ./*) > "$T/before"
: > "$T/afile"
"$SHIMGEN" -q --backends cpu,cuda "$FX" -o "$O" --depfile "$T/afile/gen.d" 2> "$T/err"; rc=$?
[ $rc = 1 ] || fail "unwritable depfile: exit $rc, expected 1"
(cd "$O" && ls -l --time-style=+%s.%N . && cat ./*) > "$T/after"
cmp -s "$T/before" "$T/after" || { diff "$T/before" "$T/after" | head >&2; fail "OUT_DIR changed although the depfile could not be written"; }
echo "ok: when only the depfile cannot be written, OUT_DIR is unchanged"

"$SHIMGEN" -q "$FX" -o "$T/afile" 2> "$T/err"; rc=$?
[ $rc = 1 ] && grep -q "afile: error: the output directory (-o) exists and is not a directory" "$T/err" ||
  { cat "$T/err" >&2; fail "-o FILE: exit $rc"; }
echo "ok: -o naming a file says so"

# Every file of the committed output ends with a newline (clang's -Wnewline-eof).
for f in generated/*; do
  [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" = '\n' ] || fail "$f does not end with a newline"
done
echo "ok: every file of generated/ ends with a newline"

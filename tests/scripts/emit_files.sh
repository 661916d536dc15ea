#!/bin/sh
# tests/scripts/emit_files.sh: how shimgen writes. Two runs give the same bytes; --check
# right after a run exits 0; a run that changes nothing leaves every mtime as it was;
# --check lists a file that would change (with a diff under -v) and writes nothing; an
# input error writes nothing and names the op, its file:line and the reason; the depfile
# lists every output and every input; compatibility mode drops with warnings.
set -eu
SHIMGEN=${SHIMGEN:-build/shimgen}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "emit_files: FAIL: $*" >&2; exit 1; }
FX=tests/fixtures/emit_basic
snap() { (cd "$1" && ls -lA --time-style=+%s.%N | sort) ; }

# Determinism: two runs, two directories, same bytes; and the expected set of files.
"$SHIMGEN" -q "$FX" -o "$T/a" || fail "first run"
"$SHIMGEN" -q "$FX" -o "$T/b" || fail "second run"
diff -r "$T/a" "$T/b" > /dev/null || fail "two runs differ"
expected="c_boxed_cpu.c c_boxed_cpu.h c_boxed_cuda.c c_boxed_cuda.h c_shim_aten.c c_shim_aten.h"
expected="$expected c_shim_cpu.c c_shim_cpu.h c_shim_cuda.c c_shim_cuda.h"
expected="$expected compositeexplicitautograd_kernels.h compositeimplicitautograd_kernels.h"
expected="$expected cpu_kernels.h cuda_kernels.h shim_manifest.json "
[ "$(cd "$T/a" && ls | tr '\n' ' ')" = "$expected" ] || fail "unexpected outputs: $(ls "$T/a")"
! grep -rqE '[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{2}:[0-9]{2}:[0-9]{2}' "$T/a" || fail "a timestamp in the output"
echo "  two runs: same bytes, no timestamps"

# The manifest: one entry per declaration, valid JSON (checked when python3 is there).
n_decl=$(cat "$T/a"/c_shim_*.h | grep -c '^AOTI_TORCH_EXPORT')
n_man=$(grep -c '^      "name": "aoti_torch_' "$T/a/shim_manifest.json")
[ "$n_decl" = "$n_man" ] || fail "manifest has $n_man functions, headers $n_decl"
grep -q '"name": "aoti_torch_cpu_fused_norm_v2"' "$T/a/shim_manifest.json" || fail "manifest: no _v2"
grep -q '"since": "2.12"' "$T/a/shim_manifest.json" || fail "manifest: no since"
# Every output file and every registration function is listed.
for f in $expected; do
  [ "$f" = shim_manifest.json ] || grep -q "\"$f\"" "$T/a/shim_manifest.json" || fail "manifest: no file $f"
done
grep -q '"name": "shimgen_register_aten_cpu", "namespace": "aten", "backend": "cpu", "dispatch_key": "CPU"' \
  "$T/a/shim_manifest.json" || fail "manifest: no registration shimgen_register_aten_cpu"
if command -v python3 > /dev/null 2>&1; then
  python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert len(m["functions"]) == int(sys.argv[2])' \
    "$T/a/shim_manifest.json" "$n_decl" || fail "manifest is not valid JSON"
fi
"$SHIMGEN" -q "$FX" -o "$T/slash/" || fail "run with a trailing slash"
diff -r "$T/a" "$T/slash" > /dev/null || fail "a trailing slash changes the output"
echo "  manifest: one entry per declaration"

# --check right after a run: exit 0, nothing printed.
"$SHIMGEN" -q --check "$FX" -o "$T/a" > "$T/out" || fail "--check after a run exited $?"
[ ! -s "$T/out" ] || fail "--check printed: $(cat "$T/out")"

# A run that changes nothing keeps every mtime (and leaves no temporary file).
before=$(snap "$T/a")
sleep 1
"$SHIMGEN" -q "$FX" -o "$T/a" || fail "third run"
[ "$(snap "$T/a")" = "$before" ] || fail "an unchanged run touched the directory"
echo "  --check after a run: 0; unchanged run: every mtime kept"

# A changed file: --check exits 1, names it, shows a diff with -v, and writes nothing.
sed 's/aoti_torch_cpu_scale(/aoti_torch_cpu_scale_OLD(/' "$T/a/c_shim_cpu.h" > "$T/x" && cp "$T/x" "$T/a/c_shim_cpu.h"
rm "$T/a/c_shim_aten.h"
before=$(snap "$T/a")
set +e; "$SHIMGEN" -q --check "$FX" -o "$T/a" > "$T/out"; rc=$?; set -e
[ $rc = 1 ] || fail "--check on a changed file exited $rc"
grep -qx "$T/a/c_shim_cpu.h: would change" "$T/out" || fail "--check did not list c_shim_cpu.h: $(cat "$T/out")"
grep -qx "$T/a/c_shim_aten.h: would be created" "$T/out" || fail "--check did not list c_shim_aten.h"
[ "$(wc -l < "$T/out")" -eq 2 ] || fail "--check listed unchanged files: $(cat "$T/out")"
set +e; "$SHIMGEN" -q -v --check "$FX" -o "$T/a" > "$T/out" 2>/dev/null; rc=$?; set -e
[ $rc = 1 ] || fail "--check -v exited $rc"
grep -q '^-AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_scale_OLD(' "$T/out" || fail "-v: no - line"
grep -q '^+AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_scale(' "$T/out" || fail "-v: no + line"
[ "$(snap "$T/a")" = "$before" ] || fail "--check wrote something"
echo "  --check: lists changed and new files, diff with -v, writes nothing"

# The next run rewrites only those two.
cp -p "$T/a/c_shim_cuda.h" "$T/cuda_before"
"$SHIMGEN" -q "$FX" -o "$T/a" || fail "repair run"
diff -r "$T/a" "$T/b" > /dev/null || fail "repair run did not restore the outputs"
[ "$T/a/c_shim_cuda.h" -nt "$T/cuda_before" ] && fail "an unchanged file was rewritten"
[ "$T/cuda_before" -nt "$T/a/c_shim_cuda.h" ] && fail "an unchanged file was rewritten"

# On an input error nothing is written (the directory stays as it was).
before=$(snap "$T/a")
set +e; "$SHIMGEN" tests/fixtures/emit_errors -o "$T/a" 2> "$T/err"; rc=$?; set -e
[ $rc = 1 ] || fail "an op without a shim exited $rc"
[ "$(snap "$T/a")" = "$before" ] || fail "an error run changed the output directory"
grep -q 'tests/fixtures/emit_errors/native_functions.yaml:3:32: error: aten.named_sum.default: no C shim for backend cpu: argument .dim. has type .Dimname., which has no C form' "$T/err" ||
  { cat "$T/err" >&2; fail "no error for an argument without a C form"; }
grep -q 'native_functions.yaml:7:9: error: aten.gpu_only.default: no C shim for backend cpu: no kernel for backend cpu' "$T/err" || fail "no error for a missing kernel"
grep -q "return 0 has type 'int\[\]'" "$T/err" || fail "no error for a list return"
grep -q "argument 'new' is a C or C++ keyword" "$T/err" || fail "no error for a keyword argument"
grep -q 'shim_ops.yaml:2:3: note: aten.named_sum.default is listed here' "$T/err" || fail "no note at the list entry"
set +e; "$SHIMGEN" tests/fixtures/emit_errors -o "$T/new" 2>/dev/null; set -e
[ ! -e "$T/new" ] || fail "an error run created the output directory"
echo "  input errors: reported with file:line and reason; nothing written"

# Compatibility mode drops the same ops with warnings, and keeps the rest.
"$SHIMGEN" --compat=torchgen tests/fixtures/emit_errors -o "$T/c" 2> "$T/err" || fail "compat run failed"
grep -q 'warning: aten.named_sum.default: no C shim for backend cpu: .* (dropped)' "$T/err" || fail "no drop warning"
grep -q 'aoti_torch_cpu_fine(' "$T/c/c_shim_cpu.h" || fail "compat: fine is missing"
grep -q 'aoti_torch_cuda_gpu_only(' "$T/c/c_shim_cuda.h" || fail "compat: gpu_only is missing for cuda"
! grep -q 'named_sum\|split_list' "$T/c/c_shim_cpu.h" || fail "compat: a dropped op is in the header"
[ ! -e "$T/c/shim_manifest.json" ] || fail "compat mode wrote a manifest"
echo "  compat: drops with warnings, headers only"

# The depfile: every output depends on every input read (and the templates).
"$SHIMGEN" -q --depfile "$T/deps.d" "$FX" -o "$T/a" || fail "--depfile run"
tr -d '\\\n' < "$T/deps.d" | sed 's/  */ /g' > "$T/deps1"
for o in c_shim_cpu.h c_shim_cuda.h c_shim_aten.h c_shim_cpu.c c_boxed_cpu.c cpu_kernels.h shim_manifest.json; do
  grep -q "$T/a/$o" "$T/deps1" || fail "depfile lacks output $o"
done
rule=$(sed -n '1,/[^\\]$/p' "$T/deps.d" | tr -d '\\\n')
for i in native_functions.yaml tags.yaml shim_ops.yaml; do
  echo "$rule" | grep -q ": .*$FX/$i" || fail "depfile: $i is not a prerequisite"
  grep -qx "$FX/$i:" "$T/deps.d" || fail "depfile: no empty rule for $i"
done
echo "$rule" | grep -q 'templates/headers.in' || fail "depfile: templates are not prerequisites"
echo "$rule" | grep -q 'templates/bodies.in' || fail "depfile: templates/bodies.in is not a prerequisite"
# make agrees: nothing to do right after, something after touching an input.
cp -r "$FX" "$T/fx"
"$SHIMGEN" -q --depfile "$T/m.d" "$T/fx" -o "$T/m" || fail "--depfile run 2"
printf -- '-include %s\nall: %s/c_shim_cpu.h\n%s/c_shim_cpu.h:\n\t@true\n' "$T/m.d" "$T/m" "$T/m" > "$T/Makefile"
make -q -f "$T/Makefile" all || fail "make thinks the outputs are stale"
sleep 1; touch "$T/fx/shim_ops.yaml"
if make -q -f "$T/Makefile" all; then fail "make does not see the touched input"; fi
echo "  depfile: outputs, inputs and templates; make agrees"
echo "emit_files: ok"

#!/bin/sh
# tests/scripts/cli_frontend.sh: the command line of cli.md as far as the front end goes:
# --help/--version on stdout with exit 0, usage errors with exit 2, input errors with
# exit 1 and a count at the end, -q dropping warnings and notes.
set -u
SHIMGEN=${SHIMGEN:-build/shimgen}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/shimgen-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0

# expect STATUS STDOUT-GREP STDERR-GREP -- ARGS...   ("" skips a grep)
expect() {
    want=$1 out_re=$2 err_re=$3
    shift 4
    "$SHIMGEN" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    ok=1
    [ "$rc" -eq "$want" ] || ok=0
    if [ -n "$out_re" ] && ! grep -q -e "$out_re" "$tmp/out"; then ok=0; fi
    if [ -n "$err_re" ] && ! grep -q -e "$err_re" "$tmp/err"; then ok=0; fi
    if [ $ok -eq 0 ]; then
        fail=$((fail + 1))
        echo "FAIL: shimgen $* -> exit $rc (want $want; stdout /$out_re/, stderr /$err_re/)"
        sed -n '1,5s/^/    out| /p' "$tmp/out"
        sed -n '1,5s/^/    err| /p' "$tmp/err"
    fi
}

printf -- '- func: a(Tensor self) -> Tensor\n- func: b(Tensor self) -> Tensor\n' >"$tmp/ok.yaml"
printf -- '- func: a(Tensr self) -> Tensor\n- func: b(Tensor self, Tensor self) -> Tensor\n' >"$tmp/bad.yaml"

expect 0 '^usage: shimgen' '' -- --help
expect 0 '^usage: shimgen' '' -- -h
expect 0 '^shimgen [0-9][0-9.]*$' '' -- --version
expect 2 '' "unknown option '--frobnicate'" -- --frobnicate "$tmp/ok.yaml"
expect 2 '' 'no schema directory given' -- --print-schemas
expect 2 '' 'expected --print-schemas or --print-schemas=all' -- --print-schemas=some "$tmp/ok.yaml"
expect 2 '' 'needs a directory' -- "$tmp/ok.yaml" -o
expect 2 '' 'needs a comma-separated list' -- "$tmp/ok.yaml" --backends
expect 2 '' 'empty backend name' -- "$tmp/ok.yaml" --backends cpu,,cuda
expect 2 '' "backend name 'CPU;rm' is not an identifier" -- "$tmp/ok.yaml" --backends 'CPU;rm'
expect 2 '' "backend name '9x' is not an identifier" -- "$tmp/ok.yaml" --backends cpu,9x
expect 2 '' 'expected --compat=torchgen' -- --compat=pytorch "$tmp/ok.yaml"
expect 0 '^b(Tensor self) -> Tensor$' '' -- --print-schemas "$tmp/ok.yaml"
expect 0 '^a(Tensor self) -> Tensor$' '' -- --print-schemas=all -q -- "$tmp/ok.yaml"
expect 1 '' '^2 errors generated\.$' -- --print-schemas "$tmp/bad.yaml"
expect 1 '' "bad.yaml:1:11: error: unknown type 'Tensr'" -- --print-schemas "$tmp/bad.yaml"
expect 1 '' 'no such file or directory' -- --print-schemas "$tmp/missing"
# -q keeps errors and drops notes
printf -- '- func: a(Tensor self) -> Tensor\n- func: a(Tensor x) -> Tensor\n' >"$tmp/dup.yaml"
expect 1 '' 'note:' -- --print-schemas "$tmp/dup.yaml"
"$SHIMGEN" -q --print-schemas "$tmp/dup.yaml" 2>"$tmp/err" >/dev/null
if grep -q 'note:' "$tmp/err" || ! grep -q 'error: duplicate op' "$tmp/err"; then
    fail=$((fail + 1)); echo "FAIL: -q should keep errors and drop notes"; cat "$tmp/err"
fi
# nothing on stdout when there are errors
"$SHIMGEN" --print-schemas "$tmp/bad.yaml" "$tmp/ok.yaml" >"$tmp/out" 2>/dev/null
if [ -s "$tmp/out" ]; then fail=$((fail + 1)); echo "FAIL: schemas printed despite errors"; fi

if [ $fail -eq 0 ]; then echo "cli_frontend: all passed"; fi
[ $fail -eq 0 ]

#!/bin/sh
# tests/scripts/threads.sh: native_functions.yaml is built in a second thread while the YAML
# is parsed when the input is large (gen/model.c, sg_nf_loader_*); small inputs stay on the
# sequential path. Both paths must be indistinguishable:
#   1. tests/scripts/threads_main.c (against libshimgen.a): the SHIMGEN_THREADS policy, and
#      one thread vs two on generated inputs (many errors, errors then a YAML error, odd
#      roots) and on PyTorch's directory: same rcs, diagnostics in order, schemas;
#   2. the catalog of malformed inputs with the thread forced on (SHIMGEN_THREADS=2);
#   3. `shimgen --print-schemas=all` on every catalog input and on a large input with
#      injected errors: stdout, stderr and exit status equal for SHIMGEN_THREADS=1 and =2.
# Env (tests/tests.mk): SHIMGEN, BUILD, SHARED, CC, SAN. Exit 0 means pass.
set -u
SHIMGEN=${SHIMGEN:-build/shimgen}
BUILD=${BUILD:-build}
if [ -z "${SHARED:-}" ]; then rc=0; SHARED=$(sh .ci/pytorch-data) || rc=$?; [ "$rc" -eq 0 ] || exit "$rc"; fi
CC=${CC:-cc}
SAN=${SAN:-}
LIB="$BUILD/libshimgen.a"
[ -f "$LIB" ] || { echo "threads.sh: $LIB not built"; exit 1; }
SANFLAGS=""
[ "$SAN" = 1 ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/shimgen-threads.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0

# shellcheck disable=SC2086
if ! $CC -std=c11 -Wall -Wextra -Werror -O1 -g $SANFLAGS -D_DEFAULT_SOURCE \
    -D_POSIX_C_SOURCE=200809L -Igen -Igen/schema -Iruntime/include \
    tests/scripts/threads_main.c "$LIB" "$BUILD/libsgschema.a" -lyaml -lpthread -ldl -lm -o "$tmp/threads_main" \
    >"$tmp/build.log" 2>&1; then
    echo "FAIL: building threads_main:"; sed -n '1,30p' "$tmp/build.log"; exit 1
fi
if "$tmp/threads_main" "$SHARED/pytorch" tests/bad/dir_duplicate_op tests/bad/dir_unknown_tag \
    >"$tmp/main.log" 2>&1; then
    echo "ok: $(tail -n 1 "$tmp/main.log")"
else
    echo "FAIL: threads_main:"; sed -n '1,60p' "$tmp/main.log"; status=1
fi

if SHIMGEN_THREADS=2 SHIMGEN="$SHIMGEN" sh tests/scripts/catalog.sh >"$tmp/catalog.log" 2>&1; then
    echo "ok: SHIMGEN_THREADS=2 $(tail -n 1 "$tmp/catalog.log")"
else
    echo "FAIL: catalog with SHIMGEN_THREADS=2:"; sed -n '1,40p' "$tmp/catalog.log"; status=1
fi

# compare INPUT: one thread and two give the same stdout, stderr and exit status.
compared=0
compare() {
    SHIMGEN_THREADS=1 "$SHIMGEN" --print-schemas=all "$1" >"$tmp/out1" 2>"$tmp/err1"
    rc1=$?
    SHIMGEN_THREADS=2 "$SHIMGEN" --print-schemas=all "$1" >"$tmp/out2" 2>"$tmp/err2"
    rc2=$?
    if [ "$rc1" != "$rc2" ] || ! cmp -s "$tmp/out1" "$tmp/out2" || ! cmp -s "$tmp/err1" "$tmp/err2"; then
        echo "FAIL $1: one thread (rc $rc1) and two (rc $rc2) differ:"
        diff "$tmp/err1" "$tmp/err2" | sed -n '1,10p'
        status=1
    fi
    compared=$((compared + 1))
}
for entry in tests/bad/*; do
    case $entry in *.expect) continue ;; esac
    compare "$entry"
done
# A large input (auto mode starts the thread above 64 KiB) with errors spread through it.
awk 'NR % 400 == 1 && /^- func: / { sub(/\) ->/, ", *, *) ->") } { print }' \
    "$SHARED/pytorch/native_functions.yaml" >"$tmp/big_errors.yaml"
compare "$tmp/big_errors.yaml"
"$SHIMGEN" --print-schemas=all "$tmp/big_errors.yaml" >/dev/null 2>"$tmp/err_auto"
rc=$?
if [ "$rc" != 1 ] || ! cmp -s "$tmp/err1" "$tmp/err_auto" || [ "$(grep -c ': error: ' "$tmp/err_auto")" -lt 2 ]; then
    echo "FAIL: big_errors.yaml in auto mode: rc $rc, $(grep -c ': error: ' "$tmp/err_auto") errors"
    status=1
fi
echo "threads: $compared inputs compared"
exit $status

#!/bin/sh
# tests/scripts/generated_fresh.sh: the committed generated/ is what shimgen makes from
# schemas/ (issue 5: `make check` fails when it is stale). On a difference it lists the
# stale files and how to refresh them. Env (tests/tests.mk): SHIMGEN.
set -eu
SHIMGEN=${SHIMGEN:-build/shimgen}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
set +e
"$SHIMGEN" -q --check schemas/ -o generated/ > "$T/out" 2> "$T/err"
rc=$?
set -e
case $rc in
0) echo "generated_fresh: ok (generated/ matches schemas/)" ;;
1) echo "generated_fresh: FAIL: generated/ is stale:" >&2
   sed 's/^/  /' "$T/out" >&2
   echo "  refresh with: $SHIMGEN schemas/ -o generated/" >&2
   exit 1 ;;
*) echo "generated_fresh: FAIL: shimgen --check exited $rc:" >&2
   cat "$T/err" "$T/out" >&2
   exit 1 ;;
esac
# The check itself must see a change: a copy with one file altered and one missing.
cp -r generated "$T/g"
printf '/* edited */\n' >> "$T/g/c_shim_cpu.c"
rm "$T/g/cpu_kernels.h"
set +e
"$SHIMGEN" -q --check schemas/ -o "$T/g" > "$T/out" 2>&1
rc=$?
set -e
[ $rc = 1 ] || { echo "generated_fresh: FAIL: --check on an edited copy exited $rc" >&2; exit 1; }
grep -qx "$T/g/c_shim_cpu.c: would change" "$T/out" &&
  grep -qx "$T/g/cpu_kernels.h: would be created" "$T/out" ||
  { echo "generated_fresh: FAIL: --check did not list the edited files:" >&2; cat "$T/out" >&2; exit 1; }
echo "generated_fresh: an edited copy is reported stale"

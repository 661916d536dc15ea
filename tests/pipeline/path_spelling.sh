#!/bin/sh
# tests/pipeline/path_spelling.sh: the output bytes do not depend on how the input path is
# spelled or where shimgen runs from (issue 22, item 5): `schemas`, `./schemas`,
# `schemas/`, an absolute path and `.` inside the directory all give the committed
# generated/ byte for byte, and `--check ./schemas` finds nothing to change.
set -u
SHIMGEN=${SHIMGEN:-build/shimgen}
case $SHIMGEN in /*) ;; *) SHIMGEN=$PWD/$SHIMGEN ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/shimgen-paths.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fail() { echo "path_spelling: FAIL: $*" >&2; exit 1; }
i=0
for spelling in schemas ./schemas schemas/ ".//schemas//" "$PWD/schemas" "$PWD/./schemas/" .; do
  i=$((i + 1))
  if [ "$spelling" = . ]; then
    (cd schemas && "$SHIMGEN" -q . -o "$T/out$i") || fail "shimgen . (in schemas/) failed"
  else
    "$SHIMGEN" -q "$spelling" -o "$T/out$i" || fail "shimgen $spelling failed"
  fi
  diff -r generated "$T/out$i" > "$T/diff" ||
    { head -20 "$T/diff" >&2; fail "'$spelling' gives other bytes than generated/"; }
done
echo "ok: $i spellings of the input path give generated/ byte for byte"
"$SHIMGEN" -q --check ./schemas -o ./generated/ > "$T/check" 2>&1 ||
  { cat "$T/check" >&2; fail "--check ./schemas -o ./generated/ reports changes"; }
echo "ok: --check ./schemas finds generated/ fresh"

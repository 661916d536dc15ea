#!/bin/sh
# tests/scripts/schema_lib.sh: the schema grammar (gen/schema/, libsgschema.a) stands alone:
# it includes nothing of the rest of gen/, compiles with -Igen/schema alone, and every sg_
# symbol it uses it defines itself, so that shimgen and libshimrt can both link it.
# Env (tests/tests.mk): BUILD, CC.
set -eu
BUILD=${BUILD:-build}
CC=${CC:-cc}
LIB="$BUILD/libsgschema.a"
fail() { echo "schema_lib: FAIL: $*" >&2; exit 1; }
[ -f "$LIB" ] || fail "$LIB not built"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# 1. Every quoted include names a file of gen/schema/.
for f in gen/schema/*.c gen/schema/*.h gen/schema/*.re; do
  sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" > "$T/inc"
  while read -r h; do
    [ -f "gen/schema/$h" ] || fail "$f includes \"$h\", which is not in gen/schema/"
  done < "$T/inc"
done
# 2. Each C file compiles with no other include path than its own folder.
for f in gen/schema/*.c; do
  $CC -std=c11 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -Igen/schema \
    -fsyntax-only "$f" 2> "$T/err" || { cat "$T/err" >&2; fail "$f does not compile with -Igen/schema alone"; }
done
# 3. The library needs no sg_ symbol from outside itself.
nm "$LIB" | awk '$1 == "U" && $2 ~ /^sg_/ { print $2 }' | sort -u > "$T/used"
nm "$LIB" | awk 'NF == 3 && $2 ~ /^[TDRB]$/ && $3 ~ /^sg_/ { print $3 }' | sort -u > "$T/defined"
missing=$(comm -23 "$T/used" "$T/defined")
[ -z "$missing" ] || fail "libsgschema.a uses symbols it does not define: $missing"
echo "schema_lib: gen/schema/ includes only itself, compiles alone, and $LIB defines every sg_ symbol it uses ($(wc -l < "$T/defined") defined)"

#!/bin/sh
# runtime/graph.sh: draws the graphs between the runtime's folders and checks its layers
# (docs/architecture.md, "The runtime's layers").
#
#   sh runtime/graph.sh [BUILD]      (BUILD: the build folder, default build)
#
# Prints two DOT graphs on stdout: runtime_includes (an arrow A -> B when a file of folder A
# includes a file of folder B: every `#include "..."` and `#include <shimrt/...>` of
# runtime/ and generated/, resolved as the compiler does: beside the file, then
# runtime/include, generated, gen) and runtime_calls (A -> B when an object of A refers to a
# symbol that an object of B defines: `nm` of BUILD's objects of runtime/, generated/ and
# the schema grammar). Arrow labels count the files or symbols.
# Nodes: the folders of runtime/ (include, core, generic, ops, aoti and the device folders,
# cpu, cuda, ...: every other folder), and the wiring
# above the lanes: generated (shimgen's shims, boxed wrappers and registrations, which call
# the kernels of every lane), backends (runtime/backends.c, the list of device rows) and
# schema (the schema grammar).
#
# Exits 1, saying why on stderr, when an arrow between the lanes (core, generic and the
# device folders) is not one of generic -> core, <device> -> core|generic (so there is no
# circle among them, nothing of core or generic reaches a device folder and no device
# folder reaches another), or when aoti includes anything but the public headers.
set -eu
BUILD=${1:-${BUILD:-build}}
command -v nm >/dev/null 2>&1 || { echo "graph.sh: nm is not installed" >&2; exit 2; }

# node FILE: the node of a path relative to the repository root ("" when outside).
node() {
  case $1 in
    runtime/backends.c) echo backends ;;
    runtime/*/*) f=${1#runtime/}; echo "${f%%/*}" ;;
    generated/*) echo generated ;;
    gen/schema/* | */src/gen/schema/*) echo schema ;;
    *) echo "" ;;
  esac
}

# resolve DIR NAME: the repository path NAME names when included from a file in DIR.
resolve() {
  for d in "$1" runtime/include generated gen/schema; do
    if [ -f "$d/$2" ]; then realpath -m --relative-to=. "$d/$2"; return; fi
  done
}

# the device folders: every folder of runtime/ but the layers below them and aoti
devices=$(for d in runtime/*/; do d=${d#runtime/}; d=${d%/}
  case $d in aoti | core | generic | include | ops) ;; *) printf '%s ' "$d" ;; esac; done)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- includes -------------------------------------------------------------------------
for f in $(find runtime generated -name '*.[ch]' -o -name '*.cc' -o -name '*.def' | sort); do
  from=$(node "$f")
  [ -n "$from" ] || continue
  sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\([^">]*\)[">].*/\1/p' "$f" |
    while read -r inc; do
      to=$(resolve "$(dirname "$f")" "$inc")
      [ -n "$to" ] || continue
      n=$(node "$to")
      if [ -n "$n" ] && [ "$n" != "$from" ]; then echo "$from $n $f -> $to"; fi
    done
done | sort -u >"$tmp/inc"

# ---- calls ----------------------------------------------------------------------------
objs=$(find "$BUILD/obj/runtime" "$BUILD/obj/generated" -name '*.o' 2>/dev/null | sort)
[ -n "$objs" ] || { echo "graph.sh: no objects under $BUILD/obj (build first)" >&2; exit 2; }
for o in $objs $(find "$BUILD/obj/gen/schema" -name '*.o' 2>/dev/null | sort); do
  [ -f "$o" ] || continue
  src=${o#"$BUILD"/obj/}
  src=${src%.o}
  case $src in gen/schema/schema_lex) src=src/gen/schema/schema_lex.c ;; *) src=$src.c ;; esac
  n=$(node "$src")
  [ -n "$n" ] || continue
  nm "$o" | awk -v n="$n" '$1 == "U" { print "U", n, $2 } NF == 3 && $2 ~ /^[TDBRVWGS]$/ { print "D", n, $3 }'
done >"$tmp/syms"
awk '$1 == "D" { def[$3] = $2 } $1 == "U" { use[++k] = $2 " " $3 }
     END { for (i = 1; i <= k; i++) { split(use[i], a, " "); if ((a[2] in def) && def[a[2]] != a[1]) print a[1], def[a[2]], a[2] } }' \
  "$tmp/syms" | sort -u >"$tmp/call"

# ---- DOT --------------------------------------------------------------------------------
dot() { # NAME FILE
  echo "digraph $1 {"
  echo '  rankdir=BT; node [shape=box];'
  awk '{ c[$1 " " $2]++ } END { for (e in c) { split(e, a, " "); printf "  \"%s\" -> \"%s\" [label=%d];\n", a[1], a[2], c[e] } }' "$2" | sort
  echo "}"
}
dot runtime_includes "$tmp/inc"
dot runtime_calls "$tmp/call"

# ---- the rules ----------------------------------------------------------------------------
bad=0
check() { # KIND FILE
  awk -v kind="$1" -v devices="$devices" '
    BEGIN { n = split(devices, d, " "); for (i = 1; i <= n; i++) dev[d[i]] = 1 }
    function lanes(n) { return n == "core" || n == "generic" || (n in dev) }
    {
      a = $1; b = $2; what = $0; sub(/^[^ ]* [^ ]* /, "", what)
      if (a != b && lanes(a) && lanes(b) &&
          !(a == "generic" && b == "core") && !((a in dev) && (b == "core" || b == "generic"))) {
        printf "graph.sh: %s arrow %s -> %s is against the layers: %s\n", kind, $1, $2, what; bad = 1
      }
      if (kind == "include" && a == "aoti" && b != "include") {
        printf "graph.sh: aoti includes %s, not a public header: %s\n", $2, what; bad = 1
      }
    }
    END { exit bad }' "$2" >&2
}
check include "$tmp/inc" || bad=1
check call "$tmp/call" || bad=1
# circles among the lanes (tsort names a loop's members)
for g in inc call; do
  awk -v lanes="core generic $devices" '
       BEGIN { n = split(lanes, l, " "); for (i = 1; i <= n; i++) lane[l[i]] = 1 }
       $1 != $2 && ($1 in lane) && ($2 in lane) { print $1, $2 }' "$tmp/$g" |
    sort -u | tsort >/dev/null 2>"$tmp/loop" || true
  if [ -s "$tmp/loop" ]; then
    echo "graph.sh: a circle among the lanes ($g):" >&2
    cat "$tmp/loop" >&2
    bad=1
  fi
done
exit "$bad"

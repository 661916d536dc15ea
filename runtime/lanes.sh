#!/bin/sh
# runtime/lanes.sh: the build's check of the runtime's layers (docs/architecture.md), run
# by runtime/runtime.mk after each compile of a runtime source.
#
#   sh runtime/lanes.sh DEPFILE OWN [MAY ...]
#
# Every file of the repository that the compiler read (DEPFILE: its -MMD output) must lie in
# the folder OWN or in one of the folders or files MAY; else the names of the file and of
# what it reached are printed and the exit status is 1 (the rule then deletes the object,
# so the build fails). Paths are compared after resolving "..", so `#include
# "../cuda/x.h"` from runtime/cpu/ is runtime/cuda/x.h; files outside the repository
# (system and package headers) are not checked.
set -eu
dep=$1
own=$2
shift 2
# the first rule of the depfile: "obj: src hdr hdr \" continued lines, -MP's rules after it
deps=$(awk 'NR == 1 { sub(/^[^:]*:/, "") } { c = sub(/\\$/, ""); print } !c { exit }' "$dep" | tr ' ' '\n' | grep -v '^$' || true)
[ -n "$deps" ] || exit 0
bad=0
for p in $(realpath -m --relative-to=. $deps); do
  case $p in /* | ../*) continue ;; esac
  ok=0
  for m in "$own" "$@"; do
    case $p in "$m" | "$m"/*) ok=1; break ;; esac
  done
  if [ "$ok" -eq 0 ]; then
    echo "$(awk 'NR == 1 { sub(/:.*/, ""); print; exit }' "$dep"): a file of $own may not include $p (the layers: docs/architecture.md; $own may include ${*:-nothing else})" >&2
    bad=1
  fi
done
exit "$bad"

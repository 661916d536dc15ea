#!/bin/sh
# The runtime's layers (docs/architecture.md) hold and are enforced by the build:
# 1. runtime/graph.sh draws the include and call graphs between runtime/'s folders
#    (written to $BUILD/runtime_layers.dot) and finds no arrow against the layers: no circle
#    among core/generic/cpu/cuda, nothing of core or generic reaching cpu or cuda.
# 2. A source that includes across a lane does not build with its folder's flags (and
#    3. runtime/graph.sh reports it as an arrow against the layers): probes in
#    runtime/cpu/ and runtime/core/ that reach runtime/cuda/, runtime/cpu/, runtime/generic/
#    or a generated header of another lane fail; the same probe reaching what its folder may
#    use builds.
set -eu
BUILD=${BUILD:-build}
command -v nm >/dev/null 2>&1 || { echo "skip: nm is not installed"; exit 77; }
[ -f "$BUILD/libshimrt.a" ] || { echo "skip: $BUILD/libshimrt.a is not built"; exit 77; }

sh runtime/graph.sh "$BUILD" >"$BUILD/runtime_layers.dot"
grep -q '^digraph runtime_includes' "$BUILD/runtime_layers.dot"
grep -q '"cpu" -> "core"' "$BUILD/runtime_layers.dot"
echo "graph: no arrow against the layers ($BUILD/runtime_layers.dot)"

probes=""
trap 'for p in $probes; do rm -f "$p" "$BUILD/obj/${p%.c}.o" "$BUILD/obj/${p%.c}.d"; done' EXIT
# probe DIR WANT INCLUDE: a source in DIR including INCLUDE builds (WANT=ok) or not (fail).
probe() {
  f=$1/.layers_probe_$$_$(echo "$3" | tr -c 'a-z0-9' _).c
  probes="$probes $f"
  printf '#include "%s"\nint shimrt_layers_probe_%s;\n' "$3" "$$" >"$f"
  rc=0
  env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s --no-print-directory BUILD="$BUILD" SAN="${SAN:-}" \
    "$BUILD/obj/${f%.c}.o" >"$BUILD/layers_probe.log" 2>&1 || rc=$?
  if [ "$2" = ok ] && [ "$rc" -ne 0 ]; then
    cat "$BUILD/layers_probe.log"; echo "FAIL: $1 including $3 did not build"; exit 1
  fi
  if [ "$2" = fail ]; then
    if [ "$rc" -eq 0 ]; then echo "FAIL: $1 including $3 built"; exit 1; fi
    if [ -f "$BUILD/obj/${f%.c}.o" ]; then echo "FAIL: $1 including $3 left an object"; exit 1; fi
    echo "refused: $1 including $3: $(grep -m1 -e 'may not include' -e 'No such file' "$BUILD/layers_probe.log" | sed 's/(the layers.*//')"
  fi
}
probe runtime/cpu ok ../core/internal.h
probe runtime/cpu ok ../generic/meta.h
probe runtime/cpu ok cpu_kernels.h
probe runtime/cpu fail ../cuda/cuda_internal.h
probe runtime/cpu fail cuda_kernels.h
probe runtime/cuda fail ../cpu/iter.h
probe runtime/core fail ../cpu/engine.h
probe runtime/core fail ../generic/meta.h
probe runtime/core fail c_boxed_cpu.h
probe runtime/generic fail ../cpu/engine.h
probe runtime/aoti fail ../core/internal.h
echo "layers: the build refuses every include across a lane"
# 3. The graph sees such an include too (the probe's source is still there): core -> cpu.
printf '#include "../cpu/engine.h"\n' >runtime/core/.layers_probe_$$_graph.c
probes="$probes runtime/core/.layers_probe_$$_graph.c"
if sh runtime/graph.sh "$BUILD" >/dev/null 2>"$BUILD/layers_probe.log"; then
  echo "FAIL: runtime/graph.sh passed with runtime/core including ../cpu/engine.h"; exit 1
fi
grep -q 'include arrow core -> cpu' "$BUILD/layers_probe.log"
grep -q 'a circle among the lanes' "$BUILD/layers_probe.log"
echo "graph: an include of runtime/cpu/ from runtime/core/ is an arrow against the layers and a circle"

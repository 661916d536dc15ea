#!/bin/sh
# tests/torch/build_ext.sh OUT "SCHEMA_DIRS" "KERNELS.c" [SHIMGEN_FLAGS...]: builds a PyTorch
# extension the way docs/target-torch.md tells an author to: `shimgen --target=torch`, the
# generated C files and the kernels with $CC against the generated headers only, the C++
# boundary with $CXX, linked with libtorch alone (-ltorch -ltorch_cpu -lc10). Writes
# OUT/gen/ and OUT/lib.so. Env: SHIMGEN, CC, CXX, TORCH (the torch package directory).
set -eu
OUT=$1 SCHEMAS=$2 KERNELS=$3
shift 3
SHIMGEN=${SHIMGEN:-build/shimgen}
CC=${CC:-cc}
CXX=${CXX:-c++}
rm -rf "$OUT" && mkdir -p "$OUT/obj"
# shellcheck disable=SC2086
"$SHIMGEN" -q --target=torch "$@" -o "$OUT/gen" $SCHEMAS
FLAGS="-O2 -g -fPIC -fvisibility=hidden -Wall -Wextra -Werror -I$OUT/gen"
for f in "$OUT"/gen/*.c $KERNELS; do
  # shellcheck disable=SC2086
  $CC -std=c11 $FLAGS -c "$f" -o "$OUT/obj/$(basename "$f" .c).o"
done
# shellcheck disable=SC2086
$CXX -std=c++17 $FLAGS -c "$OUT/gen/shimgen_torch_boundary.cc" -o "$OUT/obj/boundary.o"
# shellcheck disable=SC2086
$CXX -shared -Wl,--no-undefined -o "$OUT/lib.so" "$OUT"/obj/*.o \
  -L"$TORCH/lib" -Wl,-rpath,"$TORCH/lib" -ltorch -ltorch_cpu -lc10

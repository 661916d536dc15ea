#!/bin/sh
# examples/myops/build_torch.sh: builds libmyops_torch.so, a PyTorch extension made from the
# same schemas and kernel as the libshimrt build (build.sh), with nothing but PyTorch's
# installed libraries (docs/target-torch.md):
#   1. shimgen --target=torch examples/myops/schemas -o OUT/generated
#   2. cc (C11) on the generated .c files and the kernel, c++ on the one generated .cc
#   3. link with -ltorch -ltorch_cpu -lc10 from $TORCH/lib
# Usage: build_torch.sh SHIMGEN OUT   (env: TORCH = the torch package directory, else asked
# from $PYTHON (default python3); CC, CXX)
set -eu
SHIMGEN=$1 OUT=$2
CC=${CC:-cc}
CXX=${CXX:-c++}
SRC=examples/myops
GEN=$OUT/generated
if [ -z "${TORCH:-}" ]; then
  TORCH=$("${PYTHON:-python3}" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
fi
rm -rf "$GEN" "$OUT/obj" && mkdir -p "$GEN" "$OUT/obj"
echo "myops: $SHIMGEN --target=torch -o $GEN $SRC/schemas"
"$SHIMGEN" -q --target=torch -o "$GEN" "$SRC/schemas"
FLAGS="-O2 -g -fPIC -fvisibility=hidden -Wall -Wextra -Werror -I$GEN"
for f in "$GEN"/*.c "$SRC/myops_kernel.c"; do
  # shellcheck disable=SC2086
  $CC -std=c11 $FLAGS -c "$f" -o "$OUT/obj/$(basename "$f" .c).o"
done
# shellcheck disable=SC2086
$CXX -std=c++17 $FLAGS -c "$GEN/shimgen_torch_boundary.cc" -o "$OUT/obj/shimgen_torch_boundary.o"
$CXX -shared -Wl,--no-undefined -o "$OUT/libmyops_torch.so" "$OUT"/obj/*.o \
  -L"$TORCH/lib" -Wl,-rpath,"$TORCH/lib" -ltorch -ltorch_cpu -lc10
echo "myops: built $OUT/libmyops_torch.so (load it with torch.ops.load_library)"

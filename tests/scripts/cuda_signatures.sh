#!/bin/sh
# Every function that PyTorch 2.15 declares under USE_CUDA in its C shim headers
# (torch/csrc/inductor/aoti_torch/c/shim.h, torch/csrc/stable/c/shim.h) is declared by
# shimrt/cuda.h with PyTorch's exact signature (one C++ translation unit includes both:
# a C function declared twice with different types is an error) and exported by
# libshimrt.so. The list of names comes from PyTorch's headers, not from us.
set -eu
BUILD=${BUILD:-build}
[ "${SAN:-}" = 1 ] && { echo "skip: runs in the plain pass"; exit 77; }
py=$(.ci/torch-env) || { rc=$?; [ $rc -eq 77 ] && { echo "skip: no PyTorch"; exit 77; }; exit $rc; }
TORCH=$("$py" -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null) || {
  echo "skip: torch does not import"; exit 77; }
command -v c++ >/dev/null || { echo "skip: no C++ compiler"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for h in torch/csrc/inductor/aoti_torch/c/shim.h torch/csrc/stable/c/shim.h; do
  awk '/^#ifdef USE_CUDA/{on=1; next} on && /^#endif/{on=0} on' "$TORCH/include/$h"
done | tr '\n' ' ' | grep -o '[A-Za-z_][A-Za-z0-9_]*[ ]*(' | tr -d ' (' |
  grep -E '^(aoti_torch|torch)_' | sort -u >"$tmp/names"
n=$(wc -l <"$tmp/names")
[ "$n" -ge 14 ] || { echo "FAIL: only $n CUDA functions found in PyTorch's headers"; cat "$tmp/names"; exit 1; }
{
  echo '#include <torch/csrc/inductor/aoti_torch/c/shim.h>'
  echo '#include <torch/csrc/stable/c/shim.h>'
  echo '#include "shimrt/cuda.h"'
  echo 'void *all[] = {'
  sed 's/.*/  (void *)\&&,/' "$tmp/names"
  echo '};'
} >"$tmp/both.cpp"
c++ -std=c++17 -fsyntax-only -w -DUSE_CUDA -I"$TORCH/include" -Iruntime/include "$tmp/both.cpp" || {
  echo "FAIL: shimrt/cuda.h disagrees with PyTorch's declarations"; exit 1; }
# our header alone declares every one of them
{ echo '#include <shimrt/shimrt.h>'; echo 'void *all[] = {'; sed 's/.*/  (void *)\&&,/' "$tmp/names"; echo '};'; } >"$tmp/ours.c"
${CC:-cc} -std=c11 -fsyntax-only -Iruntime/include "$tmp/ours.c" || { echo "FAIL: missing from shimrt/cuda.h"; exit 1; }
nm -D --defined-only "$BUILD/libshimrt.so" | awk '{print $3}' | sort -u >"$tmp/exported"
missing=$(comm -23 "$tmp/names" "$tmp/exported")
[ -z "$missing" ] || { echo "FAIL: not exported by libshimrt.so: $missing"; exit 1; }
echo "ok: $n PyTorch CUDA C functions declared with PyTorch's signatures and exported: $(tr '\n' ' ' <"$tmp/names")"

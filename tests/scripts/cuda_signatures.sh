#!/bin/sh
# Every function that PyTorch 2.15 declares under USE_CUDA in its C shim headers
# (torch/csrc/inductor/aoti_torch/c/shim.h, torch/csrc/stable/c/shim.h) is declared by
# shimrt/cuda.h with PyTorch's exact signature (one C++ translation unit includes both:
# a C function declared twice with different types is an error) and exported by
# libshimrt.so. The list of names comes from PyTorch's headers, not from us. Then the same
# for PyTorch's generated c_shim_cuda.h (below).
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

# PyTorch's generated c_shim_cuda.h (the ops AOTInductor CUDA graphs call): every function
# our generated/c_shim_cuda.h declares is exported, and one C++ translation unit that
# includes both headers compiles (a function of both with other parameter types is an
# error). What PyTorch declares and libshimrt does not export yet is listed (those ops'
# CPU kernels come with other issues; the generator gives them CUDA shims then).
WH="$TORCH/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cuda.h"
[ -f "$WH" ] || { echo "FAIL: $WH not found"; exit 1; }
printf '#include <torch/csrc/inductor/aoti_torch/generated/c_shim_cuda.h>\n#include "c_shim_cuda.h"\n' >"$tmp/gen.cpp"
c++ -std=c++17 -fsyntax-only -w -DUSE_CUDA -I"$TORCH/include" -Iruntime/include -Igenerated "$tmp/gen.cpp" || {
  echo "FAIL: generated/c_shim_cuda.h disagrees with PyTorch's c_shim_cuda.h"; exit 1; }
names() { tr '\n' ' ' <"$1" | grep -o 'AOTI_TORCH_EXPORT AOTITorchError [A-Za-z0-9_]*' | awk '{print $3}' | sort -u; }
names "$WH" >"$tmp/wheel"
names generated/c_shim_cuda.h >"$tmp/ours"
total=$(wc -l <"$tmp/wheel")
[ "$total" -ge 150 ] || { echo "FAIL: only $total functions parsed from $WH"; exit 1; }
unexported=$(comm -23 "$tmp/ours" "$tmp/exported")
[ -z "$unexported" ] || { echo "FAIL: declared by generated/c_shim_cuda.h, not exported: $unexported"; exit 1; }
comm -12 "$tmp/wheel" "$tmp/exported" >"$tmp/have"
comm -23 "$tmp/wheel" "$tmp/exported" >"$tmp/missing"
echo "ok: c_shim_cuda.h: $(wc -l <"$tmp/have")/$total of PyTorch's functions exported with PyTorch's signatures"
echo "not exported yet ($(wc -l <"$tmp/missing")): $(tr '\n' ' ' <"$tmp/missing")"

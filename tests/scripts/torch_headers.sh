#!/bin/sh
# tests/scripts/torch_headers.sh: our public headers and PyTorch 2.15's real ones can be
# included in one C++ file, in either order, without an error or a warning (same version
# macros token for token, same handle typedefs, the item/scalar functions declared with
# c10::Half and friends when PyTorch's header-only types are visible). Exit 77 without
# PyTorch.
set -eu
CXX=${CXX:-c++}
fail() { echo "torch_headers: FAIL: $*" >&2; exit 1; }
rc=0; PY=$(.ci/torch-env) || rc=$?
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || fail ".ci/torch-env failed"
INC=$("$PY" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "include"))')
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cat > "$T/theirs_first.cpp" <<'X'
#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/stable/c/shim.h>
#include <torch/csrc/stable/library.h>
#include <shimrt/shimrt.h>
int f(AtenTensorHandle t) {
    c10::Half h;
    c10::complex<float> c;
    return aoti_torch_item_float16(t, &h) | aoti_torch_item_complex64(t, &c) |
           (TORCH_ABI_VERSION == aoti_torch_abi_version());
}
X
cat > "$T/ours_first.cpp" <<'X'
#include <shimrt/shimrt.h>
#include <shimrt/aoti.h>
#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/stable/c/shim.h>
#include <torch/csrc/inductor/aoti_torch/generated/c_shim_aten.h>
#include <torch/csrc/stable/ops.h>
int g(AtenTensorHandle t) {
    c10::BFloat16 b;
    return aoti_torch_item_bfloat16(t, &b) | (int)sizeof(shimrt_half);
}
X
for f in theirs_first ours_first; do
  $CXX -std=c++17 -Wall -Wextra -Werror -I"$INC" -Iruntime/include -c "$T/$f.cpp" \
    -o "$T/$f.o" 2> "$T/err" || { cat "$T/err" >&2; fail "$f.cpp"; }
done
echo "torch_headers: ok"

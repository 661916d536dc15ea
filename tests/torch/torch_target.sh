#!/bin/sh
# tests/torch/torch_target.sh: `shimgen --target=torch` against real PyTorch 2.15.
#   1. tests/torch/ops (every argument and return kind but Scalar) built with libtorch
#      alone (tests/torch/build_ext), loaded with torch.ops.load_library, every op called
#      from Python and checked (torch_target.py: values, errors as RuntimeError with the
#      kernel's message, reference counts stable over many calls, unregister/register,
#      the dispatch key the YAML names); with tests/torch/ops_aten, the dispatcher-routed
#      shims aoti_torch_aten_sgt_* of those ops, called from kernels (torch_aten.py);
#   2. the library needs no symbol outside libtorch, libc and the C++ runtime, and exports
#      only the shims and the registration functions;
#   3. the C view of the ABI (shimrt/shimrt.h) agrees with PyTorch's own headers: a C++
#      file including both compiles (a different signature is a redeclaration error).
# Needs .ci/torch-env (77 when skipped); loads libtorch, so the plain pass only.
set -eu
[ "${SAN:-}" = 1 ] && { echo "torch_target: skipped under SAN=1 (loads libtorch)"; exit 77; }
rc=0; PY=$(.ci/torch-env) || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
TORCH=$("$PY" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
export TORCH
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "torch_target: FAIL: $*" >&2; exit 1; }

sh tests/torch/build_ext "$T/sgt" "tests/torch/ops tests/torch/ops_gen" \
  "tests/torch/ops_kernels.c tests/torch/ops_gen_kernels.c" --torch-version 2.13 ||
  fail "building tests/torch/ops for PyTorch 2.13"
"$PY" tests/torch/torch_target.py "$T/sgt/lib.so" generators || fail "torch_target.py (2.13)"
# The oldest release the target supports: optionals' cells freed by the C++ boundary.
sh tests/torch/build_ext "$T/sgt210" tests/torch/ops tests/torch/ops_kernels.c ||
  fail "building tests/torch/ops for PyTorch 2.10"
grep -q 'SHIMGEN_TORCH_MIN_VERSION (((0ULL + 2) << 56) | ((0ULL + 10) << 48))' "$T/sgt210/gen/shimrt/shimrt.h" ||
  fail "the default --torch-version is not 2.10"
printf '#include <shimrt/shimrt.h>\nint f(StableIValue *c) { return torch_delete_stable_ivalue(c); }\n' > "$T/new.c"
${CC:-cc} -std=c11 -Werror -fsyntax-only -I"$T/sgt210/gen" "$T/new.c" 2>/dev/null &&
  fail "a 2.10 build declares a 2.13 function"
${CC:-cc} -std=c11 -Werror -fsyntax-only -I"$T/sgt/gen" "$T/new.c" ||
  fail "a 2.13 build does not declare torch_delete_stable_ivalue"
nm -D --undefined-only "$T/sgt210/lib.so" | grep -q -E ' (torch_delete_stable_ivalue|torch_delete_generator|torch_exception_get_what)' &&
  fail "a 2.10 build uses a 2.13 function"
"$PY" tests/torch/torch_target.py "$T/sgt210/lib.so" || fail "torch_target.py (2.10)"
# Dispatcher-routed shims of the extension's own ops (aten_ops of tests/torch/ops_aten),
# with 2.10's optional cells (C++ new/delete) and 2.13's (torch_new_stable_ivalue).
for r in 2.10 2.13; do
  sh tests/torch/build_ext "$T/aten$r" "tests/torch/ops tests/torch/ops_aten" \
    "tests/torch/ops_kernels.c tests/torch/ops_aten_kernels.c" --torch-version "$r" ||
    fail "building tests/torch/ops_aten for PyTorch $r"
  "$PY" tests/torch/torch_aten.py "$T/aten$r/lib.so" 2>"$T/aten.err" ||
    { tail -5 "$T/aten.err" >&2; fail "torch_aten.py ($r)"; }
done

# 2. Undefined symbols: only libtorch's C ABI (aoti_torch_*, torch_*), libc and the C++
#    runtime; exported: the shims and the registration functions.
nm -D --undefined-only "$T/sgt/lib.so" | awk '{print $2}' | sed 's/@.*//' |
  grep -v -E '^(aoti_torch_|torch_)' |
  grep -v -E '^(_ITM_|__cxa_|_Unwind_|__gxx_personality|_Z)' |
  grep -v -E '^(__gmon_start__|__stack_chk_fail|__tls_get_addr|memcpy|memset|strlen|strcmp|strncmp|strcspn|strchr|snprintf|vsnprintf|fprintf|stderr|calloc|malloc|free|__snprintf_chk|__vsnprintf_chk|__fprintf_chk|__memcpy_chk)$' \
  > "$T/undef" || true
[ ! -s "$T/undef" ] || { cat "$T/undef" >&2; fail "undefined symbols outside libtorch's C ABI and libc"; }
nm -D --defined-only "$T/sgt/lib.so" | awk '{print $3}' |
  grep -v -E '^(aoti_torch_cpu_sgt_[a-z_]+|shimgen_torch_(register|unregister|last_error)_sgt|shimgen_register_sgt_cpu|_init|_fini|_edata|_end|__bss_start)$' \
  > "$T/exported" || true
[ ! -s "$T/exported" ] || { cat "$T/exported" >&2; fail "unexpected exported symbols"; }
echo "  symbols: libtorch's C ABI only; exports the shims and registration"

# 3. Our C declarations against PyTorch's headers.
printf '#include <torch/csrc/inductor/aoti_torch/c/shim.h>\n#include <torch/csrc/stable/c/shim.h>\n#include "shimrt/shimrt.h"\n' > "$T/both.cc"
${CXX:-c++} -std=c++17 -fsyntax-only -Wall -Wextra -Werror -I"$TORCH/include" -I"$T/sgt/gen" \
  "$T/both.cc" || fail "shimrt/shimrt.h disagrees with PyTorch's headers"
echo "  shimrt/shimrt.h: every declaration matches PyTorch 2.15's headers"

# 4. The emitted shimrt/codes.h is libshimrt's runtime/include/shimrt/codes.h: the same
#    X-macro lists and macros (cc -dM), and the same enums once expanded; but the
#    SHIMRT_KEY_* name lists, which only the generator reads (to check `dispatch:` keys).
codes_view() { # $1: directory holding shimrt/codes.h; $2: its include guard
  printf '#include <shimrt/codes.h>\n' > "$T/codes.c"
  ${CC:-cc} -dM -E -I"$1" "$T/codes.c" | grep '^#define SHIMRT_' | grep -v -E "^#define $2( |\$)" |
    grep -v -E '^#define SHIMRT_KEY_(BACKEND_COMPONENTS|FUNCTIONALITIES|OTHERS)\(' | sort
  ${CC:-cc} -E -P -I"$1" "$T/codes.c" | tr -s ' \t\n' ' '; echo
}
codes_view runtime/include SHIMRT_CODES_H > "$T/codes_rt"
codes_view "$T/sgt/gen" SHIMGEN_TORCH_CODES_H_ > "$T/codes_torch"
grep -q 'SHIMRT_KIND_TENSOR_LIST = 3' "$T/codes_rt" || fail "codes.h's enums not found in its expansion"
cmp -s "$T/codes_rt" "$T/codes_torch" || { diff "$T/codes_rt" "$T/codes_torch" >&2; fail "the emitted shimrt/codes.h differs from runtime/include/shimrt/codes.h"; }
echo "  shimrt/codes.h: the same lists, macros and enums as runtime/include/shimrt/codes.h"

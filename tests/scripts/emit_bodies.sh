#!/bin/sh
# tests/scripts/emit_bodies.sh: the generated code (default mode) compiles and runs.
#   1. every generated .c (schemas/, the emitter fixture, the namespace fixture) compiles as
#      C11 and C99 with -Wall -Wextra -Werror -pedantic against runtime/include only;
#   2. runtime/cpu/ compiles unchanged against the generated kernel headers of schemas/;
#   3. the generated code of schemas/ passes the golden driver (tests/scripts/golden_main.c:
#      cpu shim, aten shim, dispatcher and boxed wrappers, error paths) against libshimrt.a;
#   4. a custom namespace (tests/fixtures/emit_ns): its registration function defines and
#      registers nsx::axpy and nsx::fill_value_, which run through torch_call_dispatcher,
#      the direct shims (both versions) and the aten-free path, with errors naming the shim.
# Env (tests/tests.mk): SHIMGEN, BUILD, CC, SAN.
set -eu
SHIMGEN=${SHIMGEN:-build/shimgen}
BUILD=${BUILD:-build}
CC=${CC:-cc}
SAN=${SAN:-}
LIB="$BUILD/libshimrt.a"
[ -f "$LIB" ] || { echo "emit_bodies: $LIB not built" >&2; exit 1; }
SANFLAGS=""
[ "$SAN" = 1 ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "emit_bodies: FAIL: $*" >&2; exit 1; }
FLAGS="-Wall -Wextra -Werror -pedantic -fvisibility=hidden -Iruntime/include"

# 1. Everything compiles, strictly.
"$SHIMGEN" -q schemas -o "$T/s" || fail "shimgen schemas"
"$SHIMGEN" -q tests/fixtures/emit_basic -o "$T/b" || fail "shimgen emit_basic"
"$SHIMGEN" -q tests/fixtures/emit_ns -o "$T/n" || fail "shimgen emit_ns"
for d in s b n; do
  for f in "$T/$d"/*.c; do
    for std in c11 c99; do
      # shellcheck disable=SC2086
      $CC -std=$std $FLAGS -I"$T/$d" -c "$f" -o "$T/x.o" 2> "$T/err" || { cat "$T/err" >&2; fail "$f as $std"; }
    done
  done
done
echo "  generated .c of schemas/, emit_basic, emit_ns: C11 and C99, -Wall -Wextra -Werror -pedantic"
# shimgen itself is clean while generating them (valgrind; not under the sanitizers).
if [ "$SAN" != 1 ] && command -v valgrind > /dev/null 2>&1; then
  for fx in schemas tests/fixtures/emit_basic tests/fixtures/emit_ns; do
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=9 \
      "$SHIMGEN" -q "$fx" -o "$T/vg" 2> "$T/err" || { cat "$T/err" >&2; fail "valgrind: shimgen on $fx"; }
  done
  echo "  valgrind clean: shimgen on schemas/, emit_basic, emit_ns"
fi

# 2. The CPU kernels implement exactly the generated prototypes.
for f in runtime/cpu/*.c; do
  # shellcheck disable=SC2086
  $CC -std=c11 $FLAGS -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -Igen -I"$T/s" -c "$f" -o "$T/x.o" 2> "$T/err" ||
    { cat "$T/err" >&2; fail "$f against the generated kernel headers"; }
done
echo "  runtime/cpu/*.c compile against the generated kernel headers"

# 3. The golden driver on the generated code. Our objects come first: libshimrt.a may carry
#    the committed generated/ versions of the same functions.
OBJS=""
for f in c_shim_cpu c_shim_aten c_boxed_cpu; do
  # shellcheck disable=SC2086
  $CC -std=c11 $FLAGS -O1 -g $SANFLAGS -I"$T/s" -c "$T/s/$f.c" -o "$T/$f.o"
  OBJS="$OBJS $T/$f.o"
done
# shellcheck disable=SC2086
$CC -std=c11 $FLAGS -g $SANFLAGS -I"$T/s" -c tests/scripts/golden_main.c -o "$T/main.o"
# shellcheck disable=SC2086
$CC $SANFLAGS -o "$T/golden" "$T/main.o" $OBJS -Wl,--allow-multiple-definition "$LIB" -lpthread -ldl -lm
"$T/golden" > "$T/out" 2>&1 || { cat "$T/out" >&2; fail "the golden driver on the generated code"; }
echo "  $(cat "$T/out")"

# 4. A namespace of our own, end to end.
cat > "$T/nsx_kernels.c" <<'KEOF'
#include <shimrt/shim_support.h>
#include "cpu_kernels.h"
/* out = a * x + y for float32 tensors of one shape (contiguous or not). */
AOTITorchError nsx_axpy(AtenTensorHandle x, AtenTensorHandle y, double a, AtenTensorHandle *ret0) {
    int64_t n = 0, m = 0, *sz = NULL, d = 0;
    AtenTensorHandle cx = NULL, cy = NULL, out = NULL;
    if (aoti_torch_get_numel(x, &n) || aoti_torch_get_numel(y, &m)) return AOTI_TORCH_FAILURE;
    if (n != m) return shimrt_set_error(__func__, "x has %lld elements, y %lld", (long long)n, (long long)m);
    if (aoti_torch_get_dim(x, &d) || aoti_torch_get_sizes(x, &sz) ||
        aoti_torch_empty_strided(d, sz, NULL, aoti_torch_dtype_float32(), aoti_torch_device_type_cpu(), 0, &out))
        return AOTI_TORCH_FAILURE;
    if (aoti_torch_clone_preserve_strides(x, &cx) || aoti_torch_clone(y, &cy)) return AOTI_TORCH_FAILURE;
    float *px = NULL, *py = NULL, *po = NULL;
    AtenTensorHandle kx = NULL, ky = NULL;
    aoti_torch_clone(cx, &kx); aoti_torch_clone(cy, &ky);
    aoti_torch_get_data_ptr(kx, (void **)&px); aoti_torch_get_data_ptr(ky, (void **)&py);
    aoti_torch_get_data_ptr(out, (void **)&po);
    for (int64_t k = 0; k < n; k++) po[k] = (float)(a * px[k] + py[k]);
    aoti_torch_delete_tensor_object(cx); aoti_torch_delete_tensor_object(cy);
    aoti_torch_delete_tensor_object(kx); aoti_torch_delete_tensor_object(ky);
    *ret0 = out;
    return AOTI_TORCH_SUCCESS;
}
AOTITorchError nsx_fill_value_cpu(AtenTensorHandle self, double value) {
    int64_t n = 0;
    float *p = NULL;
    if (aoti_torch_get_numel(self, &n) || aoti_torch_get_data_ptr(self, (void **)&p)) return AOTI_TORCH_FAILURE;
    for (int64_t k = 0; k < n; k++) p[k] = (float)value;
    return AOTI_TORCH_SUCCESS;
}
KEOF
cat > "$T/nsx_main.c" <<'MEOF'
#include <stdio.h>
#include <string.h>
#include <shimrt/shim_support.h>
#include "c_boxed_cpu.h"
#include "c_shim_cpu.h"
static int fails;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "nsx: line %d: %s (%s)\n", __LINE__, #c, torch_exception_get_what()); fails++; } } while (0)
static AtenTensorHandle vec(float base) {
    int64_t n = 4;
    AtenTensorHandle t = NULL;
    float *p = NULL;
    aoti_torch_empty_strided(1, &n, NULL, aoti_torch_dtype_float32(), aoti_torch_device_type_cpu(), 0, &t);
    aoti_torch_get_data_ptr(t, (void **)&p);
    for (int k = 0; k < 4; k++) p[k] = base + (float)k;
    return t;
}
static float at(AtenTensorHandle t, int k) { float *p = NULL; aoti_torch_get_data_ptr(t, (void **)&p); return p[k]; }
int main(void) {
    TorchLibraryHandle def = NULL, impl = NULL;
    CHECK(shimgen_register_nsx_cpu(&def, &impl) == AOTI_TORCH_SUCCESS);
    AtenTensorHandle x = vec(1), y = vec(10), r = NULL;
    /* the direct shims: v2 with every argument, v1 with a's default (2.0) */
    CHECK(aoti_torch_cpu_nsx_axpy_v2(x, y, 3.0, &r) == AOTI_TORCH_SUCCESS && r && at(r, 2) == 3 * 3 + 12);
    aoti_torch_delete_tensor_object(r); r = NULL;
    CHECK(aoti_torch_cpu_nsx_axpy(x, y, &r) == AOTI_TORCH_SUCCESS && r && at(r, 1) == 2 * 2 + 11);
    aoti_torch_delete_tensor_object(r); r = NULL;
    /* errors name the shim and the argument */
    CHECK(aoti_torch_cpu_nsx_axpy_v2(x, NULL, 1.0, &r) == AOTI_TORCH_FAILURE &&
          strstr(torch_exception_get_what(), "aoti_torch_cpu_nsx_axpy_v2") && strstr(torch_exception_get_what(), "'y'"));
    CHECK(aoti_torch_cpu_nsx_axpy_v2(x, y, 1.0, NULL) == AOTI_TORCH_FAILURE && strstr(torch_exception_get_what(), "ret0"));
    /* through the dispatcher, by namespace */
    AtenTensorHandle hx = NULL, hy = NULL;
    aoti_torch_new_tensor_handle(x, &hx); aoti_torch_new_tensor_handle(y, &hy);
    StableIValue st[3] = {siv_from_tensor(hx), siv_from_tensor(hy), siv_from_double(0.5)};
    CHECK(torch_call_dispatcher("nsx::axpy", "", st, TORCH_ABI_VERSION) == AOTI_TORCH_SUCCESS);
    CHECK(at(siv_to_tensor(st[0]), 3) == 0.5f * 4 + 13);
    aoti_torch_delete_tensor_object(siv_to_tensor(st[0]));
    /* an in-place op returns its argument */
    AtenTensorHandle hz = NULL;
    ScalarHandle sv = NULL;
    aoti_torch_new_tensor_handle(x, &hz);
    torch_new_scalar_double(7.0, &sv);
    StableIValue s2[2] = {siv_from_tensor(hz), siv_from_scalar(sv)};
    CHECK(torch_call_dispatcher("nsx::fill_value_", "", s2, TORCH_ABI_VERSION) == AOTI_TORCH_SUCCESS);
    CHECK(at(x, 0) == 7 && at(x, 3) == 7);
    aoti_torch_delete_tensor_object(siv_to_tensor(s2[0]));
    /* a kernel's failure comes back through the dispatcher with its message */
    AtenTensorHandle small = NULL, h1 = NULL, h2 = NULL;
    int64_t two = 2;
    aoti_torch_empty_strided(1, &two, NULL, aoti_torch_dtype_float32(), aoti_torch_device_type_cpu(), 0, &small);
    aoti_torch_new_tensor_handle(x, &h1); aoti_torch_new_tensor_handle(small, &h2);
    StableIValue s3[3] = {siv_from_tensor(h1), siv_from_tensor(h2), siv_from_double(1.0)};
    CHECK(torch_call_dispatcher("nsx::axpy", "", s3, TORCH_ABI_VERSION) == AOTI_TORCH_FAILURE &&
          strstr(torch_exception_get_what(), "x has 4 elements, y 2"));
    aoti_torch_delete_tensor_object(small);
    aoti_torch_delete_tensor_object(x); aoti_torch_delete_tensor_object(y);
    aoti_torch_delete_library_object(impl); aoti_torch_delete_library_object(def);
    CHECK(torch_call_dispatcher("nsx::axpy", "", s3, TORCH_ABI_VERSION) == AOTI_TORCH_FAILURE);
    if (fails) return 1;
    printf("nsx: registered, called through its shims (v1, v2) and the dispatcher, errors ok\n");
    return 0;
}
MEOF
OBJS=""
for f in "$T/n/c_shim_cpu.c" "$T/n/c_boxed_cpu.c" "$T/nsx_kernels.c" "$T/nsx_main.c"; do
  o="$T/n_$(basename "$f" .c).o"
  # shellcheck disable=SC2086
  $CC -std=c11 $FLAGS -g $SANFLAGS -I"$T/n" -c "$f" -o "$o" 2> "$T/err" || { cat "$T/err" >&2; fail "compiling $f"; }
  OBJS="$OBJS $o"
done
# shellcheck disable=SC2086
$CC $SANFLAGS -o "$T/nsx" $OBJS "$LIB" -lpthread -ldl -lm
"$T/nsx" > "$T/out" 2>&1 || { cat "$T/out" >&2; fail "the namespace example"; }
echo "  $(cat "$T/out")"
echo "emit_bodies: ok"

#!/bin/sh
# tests/scripts/emit_bodies.sh: the generated code (default mode) compiles and runs.
#   1. every generated .c (schemas/, the emitter fixture, the namespace fixture) compiles as
#      C11 and C99 with -Wall -Wextra -Werror -pedantic against runtime/include only;
#   2. runtime/cpu/ compiles unchanged against the generated kernel headers of schemas/;
#   3. the generated code of schemas/ passes the golden driver (tests/scripts/golden_main.c:
#      cpu shim, aten shim, dispatcher and boxed wrappers, error paths) against libshimrt.a;
#   4. a custom namespace (tests/fixtures/emit_ns): its registration function defines and
#      registers nsx::axpy and nsx::fill_value_, which run through torch_call_dispatcher,
#      the direct shims (both versions) and the aten-free path, with errors naming the shim;
#      nsx::kinds (float[]?, Scalar[], bool[3], ScalarType[], Generator, Generator?,
#      DeviceIndex? -> str) through its aten shim, torch_call_dispatcher and its cpu shim,
#      its values intact (and None, empty, errors), with no list, string, scalar, cell,
#      tensor or storage left alive at the end.
# Env (tests/tests.mk): SHIMGEN, BUILD, CC, SAN.
set -eu
: "${RT_LDLIBS:=$(cat "${BUILD:-build}/rt_ldlibs")}" # libshimrt.a's own libraries (runtime/runtime.mk)
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

# 2. The CPU and device-generic kernels implement exactly the generated prototypes.
for f in runtime/generic/*.c runtime/cpu/*.c; do
  # shellcheck disable=SC2086
  $CC -std=c11 $FLAGS -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -Igen/schema -I"$T/s" -c "$f" -o "$T/x.o" 2> "$T/err" ||
    { cat "$T/err" >&2; fail "$f against the generated kernel headers"; }
done
echo "  runtime/generic/*.c and runtime/cpu/*.c compile against the generated kernel headers"

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
$CC $SANFLAGS -o "$T/golden" "$T/main.o" $OBJS -Wl,--allow-multiple-definition "$LIB" $RT_LDLIBS
"$T/golden" > "$T/out" 2>&1 || { cat "$T/out" >&2; fail "the golden driver on the generated code"; }
echo "  $(cat "$T/out")"

# 4. A namespace of our own, end to end.
cat > "$T/nsx_kernels.c" <<'KEOF'
#include <stdio.h>
#include <string.h>
#include <shimrt/shimrt.h>
#include <shimrt/shim_support.h>
#include "cpu_kernels.h"
/* out = a * x + y for float32 tensors of one shape (contiguous or not). */
AOTITorchError nsx_axpy(AtenTensorHandle x, AtenTensorHandle y, double a, AtenTensorHandle *ret0) {
    int64_t n = 0, m = 0, *sz = NULL, d = 0;
    AtenTensorHandle cx = NULL, cy = NULL, out = NULL;
    if (aoti_torch_get_numel(x, &n) || aoti_torch_get_numel(y, &m)) return AOTI_TORCH_FAILURE;
    if (n != m) return shimrt_set_error(__func__, "x has %lld elements, y %lld", (long long)n, (long long)m);
    int64_t st[64];
    if (aoti_torch_get_dim(x, &d) || aoti_torch_get_sizes(x, &sz) || d > 64) return AOTI_TORCH_FAILURE;
    for (int64_t k = d - 1, acc = 1; k >= 0; acc *= sz[k] > 1 ? sz[k] : 1, k--) st[k] = acc;
    if (aoti_torch_empty_strided(d, sz, st, aoti_torch_dtype_float32(), aoti_torch_device_type_cpu(), 0, &out))
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
/* A text of every argument (the str return: a buffer the kernel keeps, per thread). */
static void put_list(char *buf, size_t cap, const char *name, const void *x, int64_t len, int dbl) {
    size_t at = strlen(buf);
    at += (size_t)snprintf(buf + at, cap - at, " %s=[", name);
    for (int64_t k = 0; k < len && at < cap; k++)
        at += dbl ? (size_t)snprintf(buf + at, cap - at, "%s%g", k ? "," : "", ((const double *)x)[k])
                  : (size_t)snprintf(buf + at, cap - at, "%s%d", k ? "," : "", (int)((const int32_t *)x)[k]);
    if (at < cap) snprintf(buf + at, cap - at, "]");
}
AOTITorchError nsx_kinds_cpu(AtenTensorHandle self, const double* fl, int64_t fl_len_, const double* sl,
                             int64_t sl_len_, const int32_t* bl, int64_t bl_len_, const int32_t* cl,
                             int64_t cl_len_, AtenGeneratorHandle gen, AtenGeneratorHandle* ogen,
                             int32_t* di, const char** ret0) {
    static _Thread_local char buf[512];
    int64_t n = 0;
    uint64_t s1 = 0, s2 = 0;
    if (aoti_torch_get_numel(self, &n) || shimrt_generator_get_seed(gen, &s1) ||
        (ogen && shimrt_generator_get_seed(*ogen, &s2)))
        return AOTI_TORCH_FAILURE;
    snprintf(buf, sizeof buf, "n=%lld", (long long)n);
    if (fl) put_list(buf, sizeof buf, "fl", fl, fl_len_, 1);
    else strcat(buf, " fl=None");
    put_list(buf, sizeof buf, "sl", sl, sl_len_, 1);
    put_list(buf, sizeof buf, "bl", bl, bl_len_, 0);
    put_list(buf, sizeof buf, "cl", cl, cl_len_, 0);
    size_t at = strlen(buf);
    snprintf(buf + at, sizeof buf - at, " gen=%llu ogen=%s%.0llu di=%s%.0d", (unsigned long long)s1,
             ogen ? "" : "None", ogen ? (unsigned long long)s2 : 0ULL, di ? "" : "None", di ? (int)*di : 0);
    *ret0 = buf;
    return AOTI_TORCH_SUCCESS;
}
AOTITorchError nsx_fill_value_cpu(AtenTensorHandle self, shimrt_scalar value) {
    int64_t n = 0;
    float *p = NULL;
    if (aoti_torch_get_numel(self, &n) || aoti_torch_get_data_ptr(self, (void **)&p)) return AOTI_TORCH_FAILURE;
    /* a Scalar keeps its kind: the dispatcher's int 7 arrives as an int */
    if (value.kind != SHIMRT_SCALAR_KIND_INT) return shimrt_set_error(__func__, "not an int Scalar");
    for (int64_t k = 0; k < n; k++) p[k] = (float)value.i;
    return AOTI_TORCH_SUCCESS;
}
KEOF
cat > "$T/nsx_main.c" <<'MEOF'
#include <stdio.h>
#include <string.h>
#include <shimrt/shim_support.h>
#include "c_boxed_cpu.h"
#include "c_shim_cpu.h"
#include "c_shim_aten.h"
static int fails;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "nsx: line %d: %s (%s)\n", __LINE__, #c, torch_exception_get_what()); fails++; } } while (0)
static AtenTensorHandle vec(float base) {
    int64_t n = 4;
    AtenTensorHandle t = NULL;
    float *p = NULL;
    aoti_torch_empty_strided(1, &n, (const int64_t[]){1}, aoti_torch_dtype_float32(), aoti_torch_device_type_cpu(), 0, &t);
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
    torch_new_scalar_int(7, &sv);
    StableIValue s2[2] = {siv_from_tensor(hz), siv_from_scalar(sv)};
    CHECK(torch_call_dispatcher("nsx::fill_value_", "", s2, TORCH_ABI_VERSION) == AOTI_TORCH_SUCCESS);
    CHECK(at(x, 0) == 7 && at(x, 3) == 7);
    aoti_torch_delete_tensor_object(siv_to_tensor(s2[0]));
    /* a kernel's failure comes back through the dispatcher with its message */
    AtenTensorHandle small = NULL, h1 = NULL, h2 = NULL;
    int64_t two = 2;
    aoti_torch_empty_strided(1, &two, (const int64_t[]){1}, aoti_torch_dtype_float32(), aoti_torch_device_type_cpu(), 0, &small);
    aoti_torch_new_tensor_handle(x, &h1); aoti_torch_new_tensor_handle(small, &h2);
    StableIValue s3[3] = {siv_from_tensor(h1), siv_from_tensor(h2), siv_from_double(1.0)};
    CHECK(torch_call_dispatcher("nsx::axpy", "", s3, TORCH_ABI_VERSION) == AOTI_TORCH_FAILURE &&
          strstr(torch_exception_get_what(), "x has 4 elements, y 2"));
    /* nsx::kinds: every newly supported kind, through the aten shim ... */
    AtenGeneratorHandle g1 = NULL, g2 = NULL;
    CHECK(shimrt_generator_new(aoti_torch_device_type_cpu(), 0, 42, &g1) == AOTI_TORCH_SUCCESS);
    CHECK(shimrt_generator_new(aoti_torch_device_type_cpu(), 0, 7, &g2) == AOTI_TORCH_SUCCESS);
    const double fl[2] = {1.5, -2}, sl[2] = {3, 0.25};
    const double *flp = fl, *fl_empty = NULL;
    const int32_t bl[3] = {1, 0, 5}, bl1[3] = {1, 0, 1}, bl0[3] = {0, 0, 0}, cl[2] = {6, 11};
    int32_t di = 3;
    const char *str = NULL, *str2 = NULL;
    const char *want = "n=4 fl=[1.5,-2] sl=[3,0.25] bl=[1,0,1] cl=[6,11] gen=42 ogen=7 di=3";
    CHECK(aoti_torch_aten_nsx_kinds(x, &flp, 2, sl, 2, bl, 3, cl, 2, g1, &g2, &di, &str) == AOTI_TORCH_SUCCESS &&
          str && strcmp(str, want) == 0);
    if (str && strcmp(str, want) != 0) fprintf(stderr, "nsx: got '%s'\n", str);
    /* (bool[3] {1, 0, 5} arrives as 1, 0, 1: the list holds bools) */
    /* the str return is interned: the same text, the same pointer, nothing to free */
    CHECK(aoti_torch_aten_nsx_kinds(x, &flp, 2, sl, 2, bl, 3, cl, 2, g1, &g2, &di, &str2) == AOTI_TORCH_SUCCESS &&
          str2 == str);
    /* None (and a present, empty float[]?), empty lists */
    CHECK(aoti_torch_aten_nsx_kinds(x, NULL, 0, NULL, 0, bl0, 3, NULL, 0, g1, NULL, NULL, &str) == AOTI_TORCH_SUCCESS &&
          str && strcmp(str, "n=4 fl=None sl=[] bl=[0,0,0] cl=[] gen=42 ogen=None di=None") == 0);
    CHECK(aoti_torch_aten_nsx_kinds(x, &fl_empty, 0, sl, 1, bl0, 3, cl, 1, g2, NULL, NULL, &str) == AOTI_TORCH_SUCCESS &&
          str && strcmp(str, "n=4 fl=[] sl=[3] bl=[0,0,0] cl=[6] gen=7 ogen=None di=None") == 0);
    /* errors name the shim and the argument; nothing packed stays alive */
    CHECK(aoti_torch_aten_nsx_kinds(x, &flp, 2, sl, 2, bl, 3, cl, 2, NULL, &g2, &di, &str) == AOTI_TORCH_FAILURE &&
          strstr(torch_exception_get_what(), "aoti_torch_aten_nsx_kinds") && strstr(torch_exception_get_what(), "'gen'"));
    CHECK(aoti_torch_aten_nsx_kinds(x, &flp, 2, NULL, 2, bl, 3, cl, 2, g1, &g2, &di, &str) == AOTI_TORCH_FAILURE &&
          strstr(torch_exception_get_what(), "'sl'"));
    /* ... through the cpu shim (the kernel's own buffer; bools unchanged: 0/1 given) ... */
    CHECK(aoti_torch_cpu_nsx_kinds(x, &flp, 2, sl, 2, bl1, 3, cl, 2, g1, &g2, &di, &str) == AOTI_TORCH_SUCCESS &&
          strcmp(str, want) == 0);
    /* ... and through torch_call_dispatcher with a stack built by hand */
    {
        AtenTensorHandle hk = NULL;
        AtenGeneratorHandle hg = NULL;
        StableListHandle lf = NULL, ls = NULL, lb = NULL, lc = NULL;
        StableIValue ofl = 0, odi = 0;
        aoti_torch_new_tensor_handle(x, &hk);
        torch_new_generator_handle(g2, &hg);
        torch_new_list_reserve_size(2, &lf); torch_new_list_reserve_size(2, &ls);
        torch_new_list_reserve_size(3, &lb); torch_new_list_reserve_size(2, &lc);
        for (int k = 0; k < 2; k++) {
            ScalarHandle sh = NULL;
            torch_new_scalar_double(sl[k], &sh);
            torch_list_push_back(lf, siv_from_double(fl[k]));
            torch_list_push_back(ls, siv_from_scalar(sh));
            torch_list_push_back(lc, siv_from_code_(cl[k]));
        }
        for (int k = 0; k < 3; k++) torch_list_push_back(lb, siv_from_bool(bl[k] != 0));
        CHECK(siv_new_optional(siv_from_list(lf), &ofl) == AOTI_TORCH_SUCCESS);
        CHECK(siv_new_optional(siv_from_int(5), &odi) == AOTI_TORCH_SUCCESS);
        StableIValue sk[8] = {siv_from_tensor(hk), ofl, siv_from_list(ls), siv_from_list(lb),
                              siv_from_list(lc), siv_from_generator(hg), 0, odi};
        CHECK(torch_call_dispatcher("nsx::kinds", "", sk, TORCH_ABI_VERSION) == AOTI_TORCH_SUCCESS);
        const char *txt = NULL;
        CHECK(torch_string_c_str(siv_to_string(sk[0]), &txt) == AOTI_TORCH_SUCCESS && txt &&
              strcmp(txt, "n=4 fl=[1.5,-2] sl=[3,0.25] bl=[1,0,1] cl=[6,11] gen=7 ogen=None di=5") == 0);
        torch_delete_string(siv_to_string(sk[0]));
    }
    torch_delete_generator(g1); torch_delete_generator(g2);
    aoti_torch_delete_tensor_object(small);
    aoti_torch_delete_tensor_object(x); aoti_torch_delete_tensor_object(y);
    aoti_torch_delete_library_object(impl); aoti_torch_delete_library_object(def);
    CHECK(torch_call_dispatcher("nsx::axpy", "", s3, TORCH_ABI_VERSION) == AOTI_TORCH_FAILURE);
    static const char *const kinds[] = {"list", "string", "scalar", "cell", "tensor", "storage"};
    for (int k = 0; k < 6; k++) {
        int64_t live = -1;
        CHECK(shimrt_live_objects(kinds[k], &live) == AOTI_TORCH_SUCCESS && live == 0);
        if (live != 0) fprintf(stderr, "nsx: %lld live %s objects\n", (long long)live, kinds[k]);
    }
    if (fails) return 1;
    printf("nsx: registered, called through its shims (v1, v2, aten) and the dispatcher, every arg kind, no leaks, errors ok\n");
    return 0;
}
MEOF
OBJS=""
for f in "$T/n/c_shim_cpu.c" "$T/n/c_shim_aten.c" "$T/n/c_boxed_cpu.c" "$T/nsx_kernels.c" "$T/nsx_main.c"; do
  o="$T/n_$(basename "$f" .c).o"
  # shellcheck disable=SC2086
  $CC -std=c11 $FLAGS -g $SANFLAGS -I"$T/n" -c "$f" -o "$o" 2> "$T/err" || { cat "$T/err" >&2; fail "compiling $f"; }
  OBJS="$OBJS $o"
done
# shellcheck disable=SC2086
$CC $SANFLAGS -o "$T/nsx" $OBJS "$LIB" $RT_LDLIBS
"$T/nsx" > "$T/out" 2>&1 || { cat "$T/out" >&2; fail "the namespace example"; }
echo "  $(cat "$T/out")"
echo "emit_bodies: ok"

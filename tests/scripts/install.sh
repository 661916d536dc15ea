#!/bin/sh
# tests/scripts/install.sh: `make install-shimrt` into a temporary DESTDIR, then
# pkg-config finds shimrt there and a small program written against PyTorch's include
# paths compiles, links (shared and static) and runs against the installed tree;
# `make uninstall-shimrt` removes every installed file.
set -eu
: "${BUILD:=build}" "${CC:=cc}" "${SAN:=}"
MAKE_CMD=${MAKE:-make}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
stage=$tmp/stage
prefix=/opt/shimrt
fail() { echo "install.sh: FAIL: $*" >&2; exit 1; }

$MAKE_CMD --no-print-directory -s install-shimrt BUILD="$BUILD" SAN="$SAN" \
  DESTDIR="$stage" PREFIX="$prefix" >/dev/null || fail "make install-shimrt"
root=$stage$prefix
for f in lib/libshimrt.a lib/libshimrt.so lib/libshimrt.so.0 lib/pkgconfig/shimrt.pc \
         include/shimrt/shimrt.h include/shimrt/tensor.h include/shimrt/types.h \
         include/torch/csrc/inductor/aoti_torch/c/shim.h include/torch/csrc/stable/c/shim.h \
         include/torch/headeronly/version.h \
         include/torch/csrc/inductor/aoti_torch/generated/c_shim_aten.h \
         include/torch/csrc/inductor/aoti_torch/generated/c_shim_cpu.h; do
  [ -e "$root/$f" ] || fail "missing $f"
done
[ -L "$root/lib/libshimrt.so" ] || fail "libshimrt.so is not a symlink"
soname=$(readelf -d "$root/lib/libshimrt.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = libshimrt.so.0 ] || fail "soname '$soname'"

export PKG_CONFIG_PATH="$root/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$stage"
pkg-config --exists shimrt || fail "pkg-config does not find shimrt"
[ "$(pkg-config --modversion shimrt)" = 0.1.0 ] || fail "version"
cflags=$(pkg-config --cflags shimrt)
libs=$(pkg-config --libs shimrt)
case "$cflags" in *"-I$root/include"*) ;; *) fail "cflags '$cflags'" ;; esac
case "$libs" in *"-L$root/lib"*"-lshimrt"*) ;; *) fail "libs '$libs'" ;; esac

cat > "$tmp/prog.c" <<'PROG'
#include <stdio.h>
#include <string.h>
#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/stable/c/shim.h>
#include <torch/headeronly/version.h>
#include <torch/csrc/inductor/aoti_torch/generated/c_shim_aten.h>
#include <torch/csrc/inductor/aoti_torch/generated/c_shim_cpu.h>
int main(void) {
    int64_t sizes[2] = {2, 3};
    AtenTensorHandle t = NULL;
    int64_t numel = 0;
    if (aoti_torch_empty_strided(2, sizes, (const int64_t[]){3, 1}, aoti_torch_dtype_float32(),
                                 aoti_torch_device_type_cpu(), 0, &t) != AOTI_TORCH_SUCCESS)
        return 1;
    if (aoti_torch_get_numel(t, &numel) != AOTI_TORCH_SUCCESS || numel != 6) return 2;
    if (aoti_torch_get_numel(NULL, &numel) != AOTI_TORCH_FAILURE) return 3;
    if (!strstr(torch_exception_get_what(), "aoti_torch_get_numel")) return 4;
    if (aoti_torch_abi_version() != TORCH_ABI_VERSION) return 5;
    /* the generated aten shim, from the header at PyTorch's path */
    AtenTensorHandle f = NULL;
    int64_t one[1] = {1};
    double v = 0;
    if (aoti_torch_aten_full(one, 1, 2.5, NULL, NULL, NULL, 0, NULL, &f) != AOTI_TORCH_SUCCESS)
        return 7;
    if (aoti_torch_item_float64(f, &v) != AOTI_TORCH_SUCCESS || v != 2.5) return 8;
    if (aoti_torch_delete_tensor_object(f) != AOTI_TORCH_SUCCESS) return 9;
    if (aoti_torch_delete_tensor_object(t) != AOTI_TORCH_SUCCESS) return 6;
    puts("installed shimrt works");
    return 0;
}
PROG
sanflags=""
[ "$SAN" = 1 ] && sanflags="-fsanitize=address,undefined"
# shellcheck disable=SC2086
$CC -std=c11 -Wall -Wextra -Werror $sanflags $cflags "$tmp/prog.c" -o "$tmp/prog" $libs \
  || fail "compile against the installed tree (shared)"
out=$(LD_LIBRARY_PATH="$root/lib" "$tmp/prog") || fail "program (shared) exited $?"
[ "$out" = "installed shimrt works" ] || fail "program output '$out'"
# shellcheck disable=SC2086
$CC -std=c11 $sanflags $cflags "$tmp/prog.c" -o "$tmp/prog_static" "$root/lib/libshimrt.a" \
  $(pkg-config --libs-only-other --static shimrt) -lopenblas -ldnnl -lgomp -lmvec -lpthread -ldl -lm -lstdc++ \
  || fail "link against libshimrt.a"
"$tmp/prog_static" >/dev/null || fail "program (static) exited $?"
ldd "$tmp/prog_static" | grep -q libshimrt && fail "static program still needs libshimrt.so"
# The headers are usable from C++ too (extern "C", no C-only constructs).
if command -v c++ >/dev/null 2>&1; then
  # shellcheck disable=SC2086
  c++ -std=c++17 -Wall -Wextra -Werror -fsyntax-only -x c++ $cflags "$tmp/prog.c" \
    || fail "the installed headers do not compile as C++"
fi

$MAKE_CMD --no-print-directory -s uninstall-shimrt BUILD="$BUILD" SAN="$SAN" \
  DESTDIR="$stage" PREFIX="$prefix" >/dev/null || fail "make uninstall-shimrt"
left=$(find "$stage" -type f -o -type l)
[ -z "$left" ] || fail "left after uninstall: $left"
echo "install.sh: ok"

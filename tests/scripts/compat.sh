#!/bin/sh
# tests/scripts/compat.sh: the program in tests/compat/, written only against PyTorch's
# include paths and names, compiles unchanged against runtime/include and libshimrt.a,
# runs, and prints what PyTorch's semantics give (values worked out by hand below).
set -u
BUILD=${BUILD:-build}
CC=${CC:-cc}
out="$BUILD/compat"
mkdir -p "$out"
status=0

# Written against PyTorch's names only: none of the runtime's own helpers or headers.
if grep -n 'shimrt\|siv_' tests/compat/compat_main.c; then
    echo "FAIL: tests/compat/compat_main.c uses names that PyTorch does not have"
    status=1
fi

SANFLAGS=""
if [ "${SAN:-}" = 1 ]; then
    SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
fi
# shellcheck disable=SC2086
if ! $CC -std=c11 -Wall -Wextra -Werror -O1 -g $SANFLAGS -Iruntime/include \
    tests/compat/compat_main.c "$BUILD/libshimrt.a" -lopenblas -ldnnl -lgomp -lmvec -lpthread -ldl -lm -lstdc++ \
    -o "$out/compat_main" 2>"$out/compile.log"; then
    echo "FAIL: tests/compat/compat_main.c does not compile against runtime/include:"
    sed -n '1,30p' "$out/compile.log"
    exit 1
fi
echo "ok: compat program compiles with PyTorch's include paths"

if ! "$out/compat_main" >"$out/stdout" 2>"$out/stderr"; then
    echo "FAIL: compat program exited non-zero:"
    cat "$out/stdout" "$out/stderr"
    exit 1
fi

# Expected output. The 2x3 tensor holds i + 0.5 (i = 0..5); its transposed view (sizes 3x2,
# strides 1x3) reads element (r, c) at r + 3c, so row-major it is 0.5 3.5 1.5 4.5 2.5 5.5;
# truncated to int64: 0 3 1 4 2 5; times 3: 1.5 10.5 4.5 13.5 7.5 16.5.
cat >"$out/expected" <<'EXP'
abi: 2.15
view: contiguous=0 stride1=3
copy f32->i64: 0 3 1 4 2 5
call factor=3: 1.5 10.5 4.5 13.5 7.5 16.5
joined: stable-abi-c
call factor=None: 0.5 3.5 1.5 4.5 2.5 5.5
joined: stable-abi-c
unknown op: error
done
EXP
if ! diff -u "$out/expected" "$out/stdout"; then
    echo "FAIL: compat program output differs from the expected output"
    status=1
else
    echo "ok: compat program output matches (tensor views, dtype copy, dispatcher call)"
fi
exit $status

#!/bin/sh
# The C style of .clang-format holds: every C/C++ source of gen/, runtime/, tests/, bench/,
# fuzz/ and examples/ that git tracks is unchanged by clang-format (the files .clang-format
# names as left out excepted). Skipped without clang-format 14, whose output is the reference
# (other versions format some constructs differently).
set -eu
command -v clang-format >/dev/null 2>&1 || { echo "skip: clang-format is not installed"; exit 77; }
case "$(clang-format --version)" in
  *"version 14."*) ;;
  *) echo "skip: clang-format $(clang-format --version | sed 's/.*version \([0-9.]*\).*/\1/') is not 14"; exit 77;;
esac
command -v git >/dev/null 2>&1 && git rev-parse --git-dir >/dev/null 2>&1 ||
  { echo "skip: not a git checkout"; exit 77; }
bad=0
for f in $(git ls-files gen runtime tests bench fuzz examples | grep -E '\.(c|h|cc)$' |
           grep -v -e '^runtime/cpu/loops\.h$' -e '^runtime/include/shimrt/codes\.h$' -e '^tests/fixtures/' -e '^tests/bad/' -e '^tests/compat/'); do
  if ! clang-format "$f" | cmp -s - "$f"; then
    echo "  not formatted: $f (run: clang-format -i $f)"; bad=$((bad + 1))
  fi
done
[ "$bad" -eq 0 ] || { echo "FAIL: $bad files differ from .clang-format's style"; exit 1; }
echo "format: every tracked C/C++ source follows .clang-format"

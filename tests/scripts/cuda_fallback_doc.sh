#!/bin/sh
# docs/cuda.md lists the ops that run on CUDA through the dispatcher's CPU fallback: the
# list must be exactly generated/shim_manifest.json's "backend_fallback" for cuda (the
# manifest comes from schemas/; this keeps the documentation from going stale). An empty
# list ("cuda": []) is documented as "none.".
set -eu
grep -q '^ *"backend_fallback": {' generated/shim_manifest.json ||
  { echo "FAIL: no \"backend_fallback\" object in generated/shim_manifest.json"; exit 1; }
grep -q '^ *"cuda": \[' generated/shim_manifest.json ||
  { echo "FAIL: no \"cuda\" list under \"backend_fallback\" in generated/shim_manifest.json"; exit 1; }
m=$(sed -n 's/^ *"cuda": \[\(.*\)\],*$/\1/p' generated/shim_manifest.json | tr -d '" ' |
    tr ',' '\n' | sed 's/^aten\.//' | sed '/^$/d' | sort)
line=$(sed -n '/^The ops that run through the fallback today/{n;p;}' docs/cuda.md)
[ -n "$line" ] || { echo "FAIL: docs/cuda.md has no fallback list"; exit 1; }
case "$line" in
  none.) d= ;;
  *) d=$(printf '%s\n' "$line" | sed 's/`//g; s/\.$//' | tr -d ' ' | tr ',' '\n' | sort) ;;
esac
if [ "$m" != "$d" ]; then
  echo "FAIL: docs/cuda.md's fallback list differs from the manifest's:"
  printf '%s\n' "$m" > /tmp/cuda_fb_m.$$; printf '%s\n' "$d" > /tmp/cuda_fb_d.$$
  diff /tmp/cuda_fb_m.$$ /tmp/cuda_fb_d.$$ || true
  rm -f /tmp/cuda_fb_m.$$ /tmp/cuda_fb_d.$$
  exit 1
fi
if [ -z "$m" ]; then
  echo "cuda_fallback_doc: ok (no op of schemas/ runs on CUDA through the CPU fallback, as documented)"
else
  echo "cuda_fallback_doc: ok ($(printf '%s\n' "$m" | wc -l) ops run on CUDA through the CPU fallback, as documented)"
fi

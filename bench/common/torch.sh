# bench/common/torch.sh, sourced by the bench scripts after setting BENCH (the table's name):
# sets PY to PyTorch 2.15's python (.ci/torch-env); when PyTorch is not available
# (SHIMGEN_TORCH=skip) prints "$BENCH bench: skipped (no PyTorch)" and exits 0.
rc=0
PY=$(.ci/torch-env) || rc=$?
[ $rc -eq 77 ] && { echo "$BENCH bench: skipped (no PyTorch)"; exit 0; }
[ $rc -eq 0 ] || exit 1

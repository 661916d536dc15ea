"""bench/fft/bench.py: `make bench`'s FFT table. libshimrt's aoti_torch_cpu__fft_r2c / _c2c
(kissfft) beside PyTorch 2.15's aten::_fft_r2c / _fft_c2c (MKL) on the same tensors.
Usage (bench/common/run.sh fft): python bench.py path/to/libshimrt.so threads"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from rtbench import header, i64s, row, shim, to_rt  # noqa: E402

CASES = [("r2c 64x1024 dim 1", (64, 1024), [1], "r2c"),
         ("r2c 1000x1000 dims 0,1", (1000, 1000), [0, 1], "r2c"),
         ("c2c 1024x256 dim 1", (1024, 256), [1], "c2c"),
         ("c2c 512x512 dim 0", (512, 512), [0], "c2c"),
         ("c2c 512x512 dims 0,1", (512, 512), [0, 1], "c2c"),
         ("c2c 32x16x16x16 dims 1-3", (32, 16, 16, 16), [1, 2, 3], "c2c"),
         ("c2c 64x1000 dim 1", (64, 1000), [1], "c2c"),
         ("c2c 16x997 dim 1 (prime)", (16, 997), [1], "c2c")]
header("fft case")
for label, shape, dims, kind in CASES:
    x = torch.randn(shape) if kind == "r2c" else torch.randn(shape, dtype=torch.complex64)
    op = getattr(torch.ops.aten, "_fft_" + kind)
    row(label, shim("_fft_" + kind, to_rt(x), i64s(dims), len(dims), 1, 1),
        lambda: op(x, dims, 1, True))

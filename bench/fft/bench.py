"""bench/fft/bench.py: `make bench`'s FFT table. libshimrt's aoti_torch_cpu__fft_r2c / _c2c
(kissfft) through ctypes beside PyTorch 2.15's aten::_fft_r2c / _fft_c2c (MKL) on the same
tensors in one process, best of 5, at the thread count given (ratio = ours / PyTorch's).
Usage: python bench.py path/to/libshimrt.so threads"""
import ctypes as C
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import rtbench  # noqa: E402
from rtbench import best, i64s  # noqa: E402,F401

LIB = C.CDLL(os.path.abspath(sys.argv[1]), mode=os.RTLD_LOCAL | getattr(os, "RTLD_DEEPBIND", 0))
TH = int(sys.argv[2]) if len(sys.argv) > 2 else 1
torch.set_num_threads(TH)
H = C.c_void_p
CODE = {torch.float32: 6, torch.complex64: 9}


def to_rt(t):
    return rtbench.to_rt(LIB, t, CODE[t.dtype])


CASES = [("r2c 64x1024 dim 1", (64, 1024), [1], "r2c"),
         ("r2c 1000x1000 dims 0,1", (1000, 1000), [0, 1], "r2c"),
         ("c2c 1024x256 dim 1", (1024, 256), [1], "c2c"),
         ("c2c 512x512 dim 0", (512, 512), [0], "c2c"),
         ("c2c 512x512 dims 0,1", (512, 512), [0, 1], "c2c"),
         ("c2c 32x16x16x16 dims 1-3", (32, 16, 16, 16), [1, 2, 3], "c2c"),
         ("c2c 64x1000 dim 1", (64, 1000), [1], "c2c"),
         ("c2c 16x997 dim 1 (prime)", (16, 997), [1], "c2c")]
print(f"\n{'fft case':28s} {'libshimrt ms':>13s} {'pytorch ms':>11s} {'ratio':>7s}   "
      f"({TH} thread(s))")
for label, shape, dims, kind in CASES:
    x = torch.randn(shape) if kind == "r2c" else torch.randn(shape, dtype=torch.complex64)
    h = to_rt(x)
    f = getattr(LIB, "aoti_torch_cpu__fft_" + kind)
    d = i64s(dims)

    def ours():
        r = H()
        assert f(h, d, len(dims), 1, 1, C.byref(r)) == 0
        LIB.aoti_torch_delete_tensor_object(r)

    op = getattr(torch.ops.aten, "_fft_" + kind)
    a, b = best(ours), best(lambda: op(x, dims, 1, True))
    print(f"{label:28s} {a * 1e3:13.3f} {b * 1e3:11.3f} {a / b:7.2f}")
    LIB.aoti_torch_delete_tensor_object(h)

"""bench/dynquant/bench.py: `make bench`'s 4-bit matmul table. libshimrt's
aoti_torch_cpu__dyn_quant_matmul_4bit through ctypes beside PyTorch 2.15's
aten::_dyn_quant_matmul_4bit on the same input and PyTorch's own packed weights, one
thread, best of 5 (ratio = ours / PyTorch's). Usage: python bench.py path/to/libshimrt.so"""
import ctypes as C
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import rtbench  # noqa: E402
from rtbench import best, i64s  # noqa: E402,F401

LIB = C.CDLL(os.path.abspath(sys.argv[1]), mode=os.RTLD_LOCAL | getattr(os, "RTLD_DEEPBIND", 0))
torch.set_num_threads(1)
H = C.c_void_p


def to_rt(t):
    return rtbench.to_rt(LIB, t, 6)


A = torch.ops.aten
f = LIB.aoti_torch_cpu__dyn_quant_matmul_4bit
f.argtypes = [H, H, C.c_int64, C.c_int64, C.c_int64, C.POINTER(H)]
print(f"\n{'4-bit matmul (M x K x N, block)':34s} {'libshimrt ms':>13s} {'pytorch ms':>11s} "
      f"{'ratio':>7s}   (1 thread)")
for M, K, N, bl in ((1, 4096, 4096, 4096), (1, 4096, 4096, 128), (8, 2048, 2048, 32),
                    (32, 1024, 1024, 1024)):
    w = torch.randint(0, 256, (N, K // 2), dtype=torch.uint8)
    sz = torch.rand(N, K // bl) * 0.01
    p = A._dyn_quant_pack_4bit_weight(w, sz, None, bl, K, N)
    x = torch.randn(M, K)
    hx, hp = to_rt(x), to_rt(p)

    def ours():
        r = H()
        assert f(hx, hp, bl, K, N, C.byref(r)) == 0
        LIB.aoti_torch_delete_tensor_object(r)

    a, b = best(ours), best(lambda: A._dyn_quant_matmul_4bit(x, p, bl, K, N))
    print(f"{f'{M} x {K} x {N}, {bl}':34s} {a * 1e3:13.3f} {b * 1e3:11.3f} {a / b:7.2f}")
    LIB.aoti_torch_delete_tensor_object(hx)
    LIB.aoti_torch_delete_tensor_object(hp)

"""bench/int8/bench.py: `make bench`'s int8 (and float8) matmul table. libshimrt's
aoti_torch_cpu__weight_int8pack_mm (float activations x int8 weights [N, K] x per-channel
scales), aoti_torch_cpu__int_mm_out (int8 x int8 -> int32) and aoti_torch_cpu__scaled_mm
(float8_e4m3fn x float8_e4m3fn, tensorwise scales -> float32) beside PyTorch 2.15's aten ops
of the same names on the same tensors.
Usage (bench/common/run.sh int8): python bench.py path/to/libshimrt.so threads"""
import ctypes as C
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from rtbench import header, row, shim, to_rt  # noqa: E402

A = torch.ops.aten
torch.manual_seed(0)
header("int8 / float8 matmul (M x K x N)")
for M, K, N in ((1, 4096, 4096), (8, 2048, 2048), (32, 1024, 1024), (128, 1024, 1024)):
    for dt in (torch.float32, torch.bfloat16):
        x, s = torch.randn(M, K, dtype=dt), torch.rand(N, dtype=dt) * 0.01
        w = torch.randint(-128, 128, (N, K), dtype=torch.int8)
        row(f"_weight_int8pack_mm {M}x{K}x{N} {str(dt)[6:]}",
            shim("_weight_int8pack_mm", to_rt(x), to_rt(w), to_rt(s)),
            lambda: A._weight_int8pack_mm(x, w, s))
for M, K, N in ((32, 256, 256), (64, 512, 512), (256, 512, 512)):
    a, b = (torch.randint(-128, 128, sh, dtype=torch.int8) for sh in ((M, K), (K, N)))
    out = torch.empty(M, N, dtype=torch.int32)
    row(f"_int_mm.out {M}x{K}x{N}", shim("_int_mm_out", to_rt(out), to_rt(a), to_rt(b), nout=0),
        lambda: A._int_mm.out(a, b, out=out))
F8, f32 = torch.float8_e4m3fn, C.c_int32(6)
for M, K, N in ((32, 256, 256), (64, 512, 512), (256, 512, 512)):
    a, b = torch.randn(M, K).to(F8), torch.randn(N, K).to(F8).t()
    sa, sb = torch.tensor(0.5), torch.tensor(2.0)
    row(f"_scaled_mm e4m3fn {M}x{K}x{N}",
        shim("_scaled_mm", to_rt(a), to_rt(b), to_rt(sa), to_rt(sb), None, None, C.byref(f32), 0),
        lambda: A._scaled_mm(a, b, sa, sb, out_dtype=torch.float32))

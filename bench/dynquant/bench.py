"""bench/dynquant/bench.py: `make bench`'s 4-bit matmul table. libshimrt's
aoti_torch_cpu__dyn_quant_matmul_4bit beside PyTorch 2.15's aten::_dyn_quant_matmul_4bit
(its x86 reference kernel) on the same input and PyTorch's own packed weights.
Usage (bench/common/run.sh dynquant): python bench.py path/to/libshimrt.so threads"""
import ctypes as C
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from rtbench import header, row, shim, to_rt  # noqa: E402

A = torch.ops.aten
header("4-bit matmul (M x K x N, block)")
for M, K, N, bl in ((1, 4096, 4096, 4096), (1, 4096, 4096, 128), (8, 2048, 2048, 32),
                    (32, 1024, 1024, 1024)):
    w = torch.randint(0, 256, (N, K // 2), dtype=torch.uint8)
    sz = torch.rand(N, K // bl) * 0.01
    p = A._dyn_quant_pack_4bit_weight(w, sz, None, bl, K, N)
    x = torch.randn(M, K)
    ints = (C.c_int64(bl), C.c_int64(K), C.c_int64(N))
    row(f"{M} x {K} x {N}, {bl}", shim("_dyn_quant_matmul_4bit", to_rt(x), to_rt(p), *ints),
        lambda: A._dyn_quant_matmul_4bit(x, p, bl, K, N))

"""bench/linalg/bench.py: `make bench`'s linear algebra table. libshimrt's
aoti_torch_cpu_{cholesky_solve, cholesky_inverse, triangular_solve, geqrf, ormqr, lu_unpack}
(OpenBLAS's LAPACK) beside PyTorch 2.15's aten ops (MKL's LAPACK) on the same tensors: square
n x n matrices (right-hand sides n x n too) and a batch of 32 64 x 64, float32 and float64.
Usage (bench/common/run.sh linalg): python bench.py path/to/libshimrt.so threads"""
import os
import sys
import warnings

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from rtbench import header, row, shim, to_rt  # noqa: E402

A = torch.ops.aten
warnings.filterwarnings("ignore", "torch.triangular_solve is deprecated")
torch.manual_seed(0)
header("linalg op, size, dtype")
for shape in ((64, 64), (256, 256), (512, 512), (32, 64, 64)):
    for dt in (torch.float32, torch.float64):
        n, tag = shape[-1], f"{'x'.join(map(str, shape))} {str(dt)[6:]}"
        x = torch.randn(shape, dtype=dt)
        spd = x @ x.mT + n * torch.eye(n, dtype=dt)
        low, up, b = torch.linalg.cholesky(spd), torch.linalg.cholesky(spd).mT, torch.randn_like(x)
        qr, tau = A.geqrf(x)
        lu, piv = torch.linalg.lu_factor(x)
        rl, rup, rb, rx = to_rt(low), to_rt(up), to_rt(b), to_rt(x)
        rqr, rtau, rlu, rpiv = to_rt(qr), to_rt(tau), to_rt(lu), to_rt(piv)
        for op, ours, theirs in (
                ("cholesky_solve", shim("cholesky_solve", rb, rl, 0),
                 lambda: A.cholesky_solve(b, low, False)),
                ("cholesky_inverse", shim("cholesky_inverse", rl, 0),
                 lambda: A.cholesky_inverse(low, False)),
                ("triangular_solve", shim("triangular_solve", rb, rup, 1, 0, 0, nout=2),
                 lambda: A.triangular_solve(b, up, True, False, False)),
                ("geqrf", shim("geqrf", rx, nout=2), lambda: A.geqrf(x)),
                ("ormqr", shim("ormqr", rqr, rtau, rb, 1, 0),
                 lambda: A.ormqr(qr, tau, b, True, False)),
                ("lu_unpack", shim("lu_unpack", rlu, rpiv, 1, 1, nout=3),
                 lambda: A.lu_unpack(lu, piv, True, True))):
            row(f"{op} {tag}", ours, theirs)

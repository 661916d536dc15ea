"""tests/torch/myops_torch.py LIB: examples/myops built as a PyTorch extension, loaded with
torch.ops.load_library: myops::add_scalar against PyTorch's own x + s (contiguous and
strided inputs), a float64 input as RuntimeError with the kernel's message, use counts
stable over 1,000 calls, the CompositeExplicitAutograd key. Run by myops_torch.sh
(PyTorch 2.15) and tests/torch_compat/torch_2_10.sh (PyTorch 2.10)."""
import sys
import torch
torch.ops.load_library(sys.argv[1])
x = torch.randn(3, 4)
for t, s in ((x, 10.0), (x.t(), -1.5), (x[:, ::2], 0.25), (torch.randn(0, 2), 1.0)):
    got = torch.ops.myops.add_scalar(t, s)
    assert torch.allclose(got, t + s), (got, t + s)
    assert got.is_contiguous() and got.shape == t.shape
try:
    torch.ops.myops.add_scalar(x.double(), 1.0)
    raise SystemExit("myops_torch: float64 input did not raise")
except RuntimeError as e:
    assert "input must be float32, got dtype code 7" in str(e), str(e)
before = x._use_count()
for _ in range(1000):
    torch.ops.myops.add_scalar(x, 1.0)
assert x._use_count() == before, (before, x._use_count())
dump = torch._C._dispatch_dump("myops::add_scalar")
assert "CompositeExplicitAutograd" in dump, dump
print("  myops_torch: add_scalar matches x + s; errors raise RuntimeError; counts stable")

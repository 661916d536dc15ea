"""tests/torch/myops_unload.py LIB: examples/myops's PyTorch build loaded and unloaded three
times in a fresh process: loading registers myops::add_scalar, dlclose (the generated
destructor) unregisters it, loading again registers it again."""
import ctypes, _ctypes, sys
import torch
def present():
    try:
        return torch._C._dispatch_has_kernel_for_dispatch_key("myops::add_scalar", "CompositeExplicitAutograd")
    except RuntimeError as e:
        assert "does not exist" in str(e), str(e)
        return False
assert not present()
for _ in range(3):
    lib = ctypes.CDLL(sys.argv[1])
    assert present(), "not registered after loading"
    _ctypes.dlclose(lib._handle)
    assert not present(), "still registered after unloading"
lib = ctypes.CDLL(sys.argv[1])
assert torch.equal(torch.ops.myops.add_scalar(torch.ones(2), 1.0), torch.full((2,), 2.0))
print("  myops_torch: loading registers, unloading unregisters (3 rounds)")

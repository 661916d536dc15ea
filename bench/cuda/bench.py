"""bench/cuda/bench.py: libshimrt's CUDA backend beside PyTorch's in one process, on one GPU
(issue 21; `make bench-cuda`, and step 3 of `make check-gpu`). libshimrt is loaded through
ctypes (RTLD_DEEPBIND: its aoti_torch_* names stay its own) and works on PyTorch's own device
memory (aoti_torch_create_tensor_from_blob), so both libraries read the same inputs; both use
the device's primary context, and each sample ends with a device-wide synchronize.
Rows: a full sum/amax/argmax of 2^28 float32 beside a 1 GiB device copy; add.Tensor of
contiguous and of transposed operands; mm float32 from two threads on two streams against one
thread doing the same GEMMs; allocator churn (empty + free of mixed sizes). Each time is the
best of 5 samples after a warm-up; ratio = ours / PyTorch's (below 1: libshimrt is faster).
Without a CUDA device (or without PyTorch's CUDA build) it prints why and exits 0."""
import ctypes as C
import os
import sys
import threading
import time

try:
    import torch
except ImportError as e:  # pragma: no cover
    print(f"bench-cuda: skipped: PyTorch is not importable ({e})")
    sys.exit(0)

if not torch.cuda.is_available():
    print(f"bench-cuda: skipped: no CUDA device for PyTorch {torch.__version__}")
    sys.exit(0)

H = C.c_void_p
F32, CUDA = 6, 1
LIB = C.CDLL(os.path.abspath(sys.argv[1]), mode=os.RTLD_LOCAL | getattr(os, "RTLD_DEEPBIND", 0))
LIB.torch_exception_get_what.restype = C.c_char_p
LIB.aoti_torch_cuda_add_Tensor.argtypes = [H, H, C.c_double, C.POINTER(H)]
LIB.torch_get_cuda_stream_from_pool.argtypes = [C.c_bool, C.c_int32, C.POINTER(H)]
LIB.torch_set_current_cuda_stream.argtypes = [H, C.c_int32]
REPS = 5


def ok(rc, what):
    if rc != 0:
        raise RuntimeError(f"{what}: {LIB.torch_exception_get_what().decode()}")


def i64s(xs):
    return (C.c_int64 * max(len(xs), 1))(*xs)


def wrap(t):
    """a libshimrt handle on t's own device memory (borrowed: t must outlive it)"""
    h = H()
    ok(LIB.aoti_torch_create_tensor_from_blob(H(t.data_ptr()), t.dim(), i64s(t.shape),
                                              i64s(t.stride()), 0, F32, CUDA,
                                              t.device.index or 0, C.byref(h)), "from_blob")
    return h


def free(h):
    ok(LIB.aoti_torch_delete_tensor_object(h), "delete")


def best(fn, iters):
    """best of REPS samples of iters calls each, per call, in ms (synchronized)"""
    fn()
    torch.cuda.synchronize()
    b = float("inf")
    for _ in range(REPS):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
        b = min(b, (time.perf_counter() - t0) / iters)
    return b * 1e3


def ret_op(name, *args):
    """a call of aoti_torch_cuda_<name>(*args, &ret) whose result is freed"""
    f = getattr(LIB, "aoti_torch_cuda_" + name)

    def run():
        r = H()
        ok(f(*args, C.byref(r)), name)
        free(r)
    return run


rows = []


def row(name, ours, theirs, note="", unit="ms"):
    rows.append((name, ours, theirs, note))
    print(f"  {name:<46} {ours:9.3f} {unit} {theirs:9.3f} {unit} {ours / theirs:7.2f}  {note}",
          flush=True)


print(f"bench-cuda: libshimrt vs PyTorch {torch.__version__} on {torch.cuda.get_device_name()}")
print(f"  {'row':<46} {'ours':>12} {'PyTorch':>12} {'ratio':>7}")

# 1. full reductions of 2^28 float32 (1 GiB) beside a device copy of the same bytes
def section1():
    n = 1 << 28
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    hx = wrap(x)
    copy_ms = best(lambda: y.copy_(x), 5)
    print(f"  device-to-device copy 1 GiB: {copy_ms:.3f} ms ({2 * n * 4 / copy_ms / 1e6:.0f} GB/s, "
          f"read + write)")
    s_ms = best(ret_op("sum_dim_IntList", hx, None, 0, 0, None), 5)
    row("sum of 2^28 float32", s_ms, best(lambda: x.sum(), 5),
        f"ours {n * 4 / s_ms / 1e6:.0f} GB/s read")
    row("amax of 2^28 float32", best(ret_op("amax", hx, None, 0, 0), 5), best(lambda: x.amax(), 5))
    row("argmax of 2^28 float32", best(ret_op("argmax", hx, None, 0), 5), best(lambda: x.argmax(), 5))
    free(hx)
    del x, y


# 2. add.Tensor: contiguous operands, then the second one transposed (a strided walk)
def section2():
    a = torch.randn(8192, 8192, device="cuda")
    b = torch.randn(8192, 8192, device="cuda")
    bt = b.t()
    ha, hb, hbt = wrap(a), wrap(b), wrap(bt)
    row("add.Tensor [8192, 8192] contiguous", best(ret_op("add_Tensor", ha, hb, 1.0), 10),
        best(lambda: torch.add(a, b), 10))
    row("add.Tensor [8192, 8192] + transposed", best(ret_op("add_Tensor", ha, hbt, 1.0), 10),
        best(lambda: torch.add(a, bt), 10))
    for h in (ha, hb, hbt):
        free(h)
    del a, b, bt


# 3. mm float32 4096^3: two threads on two streams against one thread doing both shares
def section3():
    m = 4096
    mats = [torch.randn(m, m, device="cuda") for _ in range(6)]
    hm = [wrap(t) for t in mats]
    GEMMS = 8

    def ours_worker(k, count, use_pool):
        if use_pool:
            s = H()
            ok(LIB.torch_get_cuda_stream_from_pool(False, 0, C.byref(s)), "stream pool")
            ok(LIB.torch_set_current_cuda_stream(s, 0), "set stream")
        for _ in range(count):
            ok(LIB.aoti_torch_cuda_mm_out(hm[2 * k + 2], hm[0], hm[1]), "mm_out")

    def torch_worker(k, count, use_pool):
        s = torch.cuda.Stream() if use_pool else torch.cuda.current_stream()
        with torch.cuda.stream(s):
            for _ in range(count):
                torch.mm(mats[0], mats[1], out=mats[2 * k + 2])

    def threaded(worker, nthreads):
        def run():
            ts = [threading.Thread(target=worker, args=(k, GEMMS // nthreads, True))
                  for k in range(nthreads)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
        return run

    tf = 2 * m ** 3 * GEMMS / 1e12
    o1, t1 = best(threaded(ours_worker, 1), 1), best(threaded(torch_worker, 1), 1)
    row(f"mm float32 {m}^3 x{GEMMS}, one thread", o1, t1, f"ours {tf / o1 * 1e3:.1f} TFLOP/s")
    o2, t2 = best(threaded(ours_worker, 2), 1), best(threaded(torch_worker, 2), 1)
    row(f"mm float32 {m}^3 x{GEMMS}, two threads/streams", o2, t2,
        f"ours {tf / o2 * 1e3:.1f} TFLOP/s")
    ok(LIB.torch_set_current_cuda_stream(None, 0), "set stream")
    for h in hm:
        free(h)
    del mats


# 4. allocator churn: empty_strided + free of mixed sizes (4 B to 64 MiB), host time per pair
def section4():
    sizes = [1, 1000, 1 << 16, 3 << 18, 1 << 22, 1 << 24]
    CH = 2000

    def ours_churn():
        for i in range(CH):
            k = sizes[i % len(sizes)]
            h = H()
            ok(LIB.aoti_torch_empty_strided(1, i64s([k]), i64s([1]), F32, CUDA, 0, C.byref(h)),
               "empty_strided")
            free(h)

    def torch_churn():
        for i in range(CH):
            t = torch.empty(sizes[i % len(sizes)], device="cuda")
            del t

    row(f"allocator churn, empty + free x{CH}", best(ours_churn, 1) / CH * 1e3,
        best(torch_churn, 1) / CH * 1e3, "per pair", unit="us")


failed = 0
for section in (section1, section2, section3, section4):
    try:
        section()
    except Exception as e:  # a failing section is reported; the others still run
        failed += 1
        print(f"  {section.__name__} FAILED: {type(e).__name__}: {e}", flush=True)
print(f"bench-cuda: done ({failed} section(s) failed)")
sys.exit(1 if failed else 0)

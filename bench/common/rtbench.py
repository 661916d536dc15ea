"""bench/common/rtbench.py: the Python bench tables that call libshimrt through ctypes beside
PyTorch 2.15 in one process (bench/fft/, bench/dynquant/, bench/linalg/, bench/int8/; run by
bench/common/run.sh). Each table: best of 5 after a warm-up, ratio = ours / PyTorch's."""
import ctypes as C
import os
import sys
import time

import torch

H = C.c_void_p
CODE = {torch.uint8: 0, torch.int8: 1, torch.int32: 3, torch.int64: 4, torch.float32: 6,
        torch.float64: 7, torch.complex64: 9, torch.complex128: 10, torch.bfloat16: 15,
        torch.float8_e4m3fn: 24}
LIB = C.CDLL(os.path.abspath(sys.argv[1]), mode=os.RTLD_LOCAL | getattr(os, "RTLD_DEEPBIND", 0))
TH = int(sys.argv[2]) if len(sys.argv) > 2 else 1
torch.set_num_threads(TH)
_held = []


def i64s(xs):
    return (C.c_int64 * max(len(xs), 1))(*xs)


def to_rt(t):
    """a libshimrt tensor with t's dtype, sizes, strides and bytes (freed at exit)"""
    h = H()
    assert LIB.aoti_torch_empty_strided(t.dim(), i64s(t.shape), i64s(t.stride()), CODE[t.dtype],
                                        0, 0, C.byref(h)) == 0
    p = C.c_void_p()
    LIB.aoti_torch_get_data_ptr(h, C.byref(p))
    C.memmove(p, t.data_ptr(), t.numel() * t.element_size())
    _held.append(h)
    return h


def shim(name, *args, nout=1):
    """a function that calls libshimrt's aoti_torch_cpu_<name>(*args, &ret0, ...) and frees its
    nout results; a failure stops the table with libshimrt's message"""
    f, outs = getattr(LIB, "aoti_torch_cpu_" + name), [H() for _ in range(nout)]
    refs = [C.byref(o) for o in outs]
    LIB.torch_exception_get_what.restype = C.c_char_p

    def call():
        if f(*args, *refs) != 0:
            sys.exit(f"{name}: {LIB.torch_exception_get_what().decode()}")
        for o in outs:
            LIB.aoti_torch_delete_tensor_object(o)
    return call


def best(f, reps=5):
    """the best of reps timed calls of f, after one warm-up call"""
    f()
    b = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        f()
        b = min(b, time.perf_counter() - t)
    return b


def header(title, width=38):
    print(f"\n{title:{width}s} {'libshimrt ms':>13s} {'pytorch ms':>11s} {'ratio':>7s}   "
          f"({TH} thread(s))")


def row(label, ours, theirs, width=38):
    """times ours() and theirs() and prints a row of the table"""
    a, b = best(ours), best(theirs)
    print(f"{label:{width}s} {a * 1e3:13.3f} {b * 1e3:11.3f} {a / b:7.2f}", flush=True)

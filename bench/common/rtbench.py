"""bench/common/rtbench.py: helpers of the Python bench tables that call libshimrt through
ctypes beside PyTorch (bench/fft/, bench/dynquant/)."""
import ctypes as C
import time

H = C.c_void_p


def i64s(xs):
    return (C.c_int64 * max(len(xs), 1))(*xs)


def to_rt(lib, t, code):
    """a libshimrt tensor (dtype code `code`) with t's sizes, strides and bytes"""
    h = H()
    assert lib.aoti_torch_empty_strided(t.dim(), i64s(t.shape), i64s(t.stride()), code, 0, 0,
                                        C.byref(h)) == 0
    p = C.c_void_p()
    lib.aoti_torch_get_data_ptr(h, C.byref(p))
    C.memmove(p, t.data_ptr(), t.numel() * t.element_size())
    return h


def best(f, reps=5):
    """the best of reps timed calls of f, after one warm-up call"""
    f()
    b = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        f()
        b = min(b, time.perf_counter() - t)
    return b

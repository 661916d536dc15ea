"""tests/engine/oracle.py: the same calls through libshimrt and through PyTorch 2.15.

Every case builds random inputs (contiguous, transposed, sliced with a step, broadcast,
zero-size and 0-d) for each dtype an op takes, calls the op's generated C shim in
libshimrt (ctypes, aoti_torch_cpu_<op>) and the same op in PyTorch, and compares:
  - errors: both fail, or neither does;
  - dtype, shape and strides of every result;
  - aliasing (`to` with nothing to change returns its input);
  - values: exact for integer and bool results, else torch.testing.assert_close with
    PyTorch's default tolerance for the dtype (float32: rtol 1.3e-6, atol 1e-5; float16:
    1e-3/1e-5; bfloat16: 1.6e-2/1e-5; float64: 1e-7/1e-7) and NaN equal to NaN, loosened
    to rtol 1e-4 for transcendental float32 ops and reductions (accumulation order).
Usage: python oracle.py path/to/libshimrt.so [seed]. Prints one line per mismatch and a
summary; exit 1 on any mismatch.
"""
import ctypes as C
import itertools
import math
import os
import random
import sys
import warnings

import torch

LIB = C.CDLL(os.path.abspath(sys.argv[1]), mode=os.RTLD_LOCAL | getattr(os, "RTLD_DEEPBIND", 0))
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 1234
torch.manual_seed(SEED)
random.seed(SEED)
H = C.c_void_p
P = C.POINTER
LIB.torch_exception_get_what.restype = C.c_char_p

DT = {torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
      torch.float16: 5, torch.float32: 6, torch.float64: 7, torch.bool: 11, torch.bfloat16: 15}
RDT = {v: k for k, v in DT.items()}
ALL = list(DT)
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


def fn(name, *argtypes):
    f = getattr(LIB, name)
    f.argtypes = list(argtypes)
    f.restype = C.c_int32
    return f


empty_strided = fn("aoti_torch_empty_strided", C.c_int64, P(C.c_int64), P(C.c_int64), C.c_int32,
                   C.c_int32, C.c_int32, P(H))
get_data = fn("aoti_torch_get_data_ptr", H, P(C.c_void_p))
get_sizes = fn("aoti_torch_get_sizes", H, P(P(C.c_int64)))
get_strides = fn("aoti_torch_get_strides", H, P(P(C.c_int64)))
get_dim = fn("aoti_torch_get_dim", H, P(C.c_int64))
get_dtype = fn("aoti_torch_get_dtype", H, P(C.c_int32))
delete = fn("aoti_torch_delete_tensor_object", H)


def i64s(xs):
    return (C.c_int64 * max(len(xs), 1))(*xs)


def to_rt(t):
    """A libshimrt tensor with t's sizes, strides and values (a new handle)."""
    h = H()
    assert empty_strided(t.dim(), i64s(t.shape), i64s(t.stride()), DT[t.dtype], 0, 0, C.byref(h)) == 0
    n = t.numel()
    if n:
        span = sum((s - 1) * st for s, st in zip(t.shape, t.stride())) + 1
        p = C.c_void_p()
        get_data(h, C.byref(p))
        C.memmove(p, t.data_ptr(), span * t.element_size())
    return h


def from_rt(h):
    nd = C.c_int64()
    get_dim(h, C.byref(nd))
    sz, st = P(C.c_int64)(), P(C.c_int64)()
    get_sizes(h, C.byref(sz))
    get_strides(h, C.byref(st))
    d = C.c_int32()
    get_dtype(h, C.byref(d))
    sizes, strides = [sz[i] for i in range(nd.value)], [st[i] for i in range(nd.value)]
    out = torch.empty_strided(sizes, strides, dtype=RDT[d.value])
    if out.numel():
        span = sum((s - 1) * x for s, x in zip(sizes, strides)) + 1
        p = C.c_void_p()
        get_data(h, C.byref(p))
        C.memmove(out.data_ptr(), p, span * out.element_size())
    return out


def rand(shape, dt, low=-4, high=4):
    if dt == torch.bool:
        return torch.rand(shape) > 0.5
    if dt in FLOATS:
        return (torch.rand(shape, dtype=torch.float64) * (high - low) + low).to(dt)
    lo = 0 if dt == torch.uint8 else low
    return torch.randint(lo, high + 1, shape, dtype=torch.int64).to(dt)


def layouts(shape, dt, **kw):
    """The same logical shape as contiguous, transposed and strided (sliced) inputs."""
    base = rand(shape, dt, **kw)
    yield "contig", base
    if len(shape) >= 2:
        yield "transposed", rand(shape[::-1][:2][::-1] and list(shape[:-2]) + [shape[-1], shape[-2]], dt, **kw).transpose(-1, -2)
    if len(shape) >= 1 and shape[-1] > 0:
        big = rand(list(shape[:-1]) + [shape[-1] * 2], dt, **kw)
        yield "sliced", big[..., ::2]


SHAPES = [[5, 7], [3, 1, 4], [], [0, 3], [2, 3, 4]]
failures = []
counts = {"cases": 0, "both_err": 0}

TOL = {torch.float32: (1.3e-6, 1e-5), torch.float64: (1e-7, 1e-7),
       torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5)}


def compare(label, ours, ref, loose=False, check_strides=True):
    if ours.dtype != ref.dtype:
        return f"dtype {ours.dtype} != {ref.dtype}"
    if list(ours.shape) != list(ref.shape):
        return f"shape {list(ours.shape)} != {list(ref.shape)}"
    if check_strides and ours.numel() > 1 and ours.stride() != ref.stride():
        return f"strides {ours.stride()} != {ref.stride()}"
    if ref.dtype in TOL:
        rtol, atol = TOL[ref.dtype]
        if loose:
            rtol, atol = max(2 * rtol, 1e-4), max(atol, 1e-5)
        if loose == "product":  # alpha * b rounded or not (see the add/sub cases)
            atol = 4 * rtol
        if isinstance(loose, float):  # a stated absolute bound (large sums)
            atol = max(atol, loose)
        try:
            torch.testing.assert_close(ours, ref, rtol=rtol, atol=atol, equal_nan=True,
                                       check_stride=False)
        except AssertionError as e:
            return "values: " + str(e).split("\n")[1:4].__str__()
    elif ref.is_complex():  # exact, NaN equal to NaN; loose: within 1 ulp of the larger part
        eps = torch.finfo(ref.real.dtype).eps if loose else 0.0
        big = float(ref.abs().nan_to_num(0.0, 0.0, 0.0).max()) if loose and ref.numel() else 0.0
        atol = eps * max(big, 1.0) if loose else 0
        if isinstance(loose, float):  # a stated absolute bound (sums)
            atol = max(atol, loose)
        try:  # part by part (an inf part with the other part 1 ulp apart is close)
            torch.testing.assert_close(torch.view_as_real(ours), torch.view_as_real(ref), rtol=eps, atol=atol,
                                       equal_nan=True, check_stride=False)
        except AssertionError as e:
            return "values: " + str(e).split("\n")[1:4].__str__()
    elif not torch.equal(ours, ref):
        return f"values differ: {ours.flatten()[:8].tolist()} vs {ref.flatten()[:8].tolist()}"
    return None


def run(label, ours_call, ref_call, loose=False, nret=1, check_strides=True):
    """ours_call(out_handles) -> rc; ref_call() -> tensor or tuple."""
    counts["cases"] += 1
    outs = [H() for _ in range(nret)]
    rc = ours_call(outs)
    try:
        ref = ref_call()
        rerr = None
    except Exception as e:  # PyTorch refused
        ref, rerr = None, e
    if rc != 0 and rerr is not None:
        counts["both_err"] += 1
        return
    if rc != 0:
        failures.append(f"{label}: libshimrt failed ({LIB.torch_exception_get_what().decode()}), PyTorch did not")
        return
    ours = [from_rt(h) for h in outs]
    for h in outs:
        delete(h)
    if rerr is not None:
        failures.append(f"{label}: PyTorch failed ({str(rerr).splitlines()[0][:120]}), libshimrt did not")
        return
    refs = ref if isinstance(ref, tuple) else (ref,)
    for o, r in zip(ours, refs):
        msg = compare(label, o, r, loose, check_strides)
        if msg:
            failures.append(f"{label}: {msg}")
            return


# ---- Scalars ---------------------------------------------------------------------------
# A C shim's Scalar is a C double: PyTorch makes c10::Scalar(double) of it, a floating
# Scalar, so the reference of a C-shim call passes a Python float. Through the dispatcher a
# ScalarHandle keeps its kind: disp() passes each Python int as an int ScalarHandle (the
# reference passes the same int), each float as a double one.
new_scalar_int = fn("torch_new_scalar_int", C.c_int64, P(H))
new_scalar_double = fn("torch_new_scalar_double", C.c_double, P(H))
new_handle = fn("aoti_torch_new_tensor_handle", H, P(H))
call_dispatcher = fn("torch_call_dispatcher", C.c_char_p, C.c_char_p, P(C.c_uint64), C.c_uint64)
LIB.aoti_torch_abi_version.restype = C.c_uint64
ABI = LIB.aoti_torch_abi_version()


def disp(op, overload, args, o):
    """aten::op.overload through torch_call_dispatcher; args: handles (tensors, borrowed: a
    new reference goes on the stack) and Python ints/floats (Scalars); the result in o[0]."""
    st = (C.c_uint64 * max(len(args), 1))()
    for k, a in enumerate(args):
        h = H()
        if isinstance(a, H):
            new_handle(a, C.byref(h))
        elif isinstance(a, int):
            new_scalar_int(a, C.byref(h))
        else:
            new_scalar_double(a, C.byref(h))
        st[k] = h.value or 0
    rc = call_dispatcher(f"aten::{op}".encode(), overload.encode(), st, ABI)
    if rc == 0:
        o[0].value = st[0]
    return rc


def whole(v):
    return int(v) if v == int(v) else v


def with_handles(tensors, body):
    hs = [to_rt(t) for t in tensors]
    try:
        return body(hs)
    finally:
        for h in hs:
            delete(h)


# ---- unary -------------------------------------------------------------------------
UNARY = {"neg": torch.neg, "relu": torch.relu, "exp": torch.exp, "abs": torch.abs,
         "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "sigmoid": torch.sigmoid,
         "tanh": torch.tanh, "log": torch.log}
for name, tf in UNARY.items():
    f = fn(f"aoti_torch_cpu_{name}", H, P(H))
    for dt, shape in itertools.product(ALL, SHAPES):
        for lay, x in layouts(shape, dt):
            label = f"{name} {dt} {shape} {lay}"
            loose = name in ("exp", "sqrt", "rsqrt", "sigmoid", "tanh", "log")
            with_handles([x], lambda h: run(label, lambda o: f(h[0], C.byref(o[0])),
                                            lambda: tf(x), loose))

# ---- binary ------------------------------------------------------------------------
BINARY = {"mul_Tensor": torch.mul, "div_Tensor": torch.div, "divide_Tensor": torch.divide,
          "floor_divide": torch.floor_divide, "bitwise_and_Tensor": torch.bitwise_and,
          "bitwise_or_Tensor": torch.bitwise_or,
          "bitwise_left_shift_Tensor": torch.bitwise_left_shift,
          "bitwise_right_shift_Tensor": torch.bitwise_right_shift,
          "eq_Tensor": torch.eq, "ne_Tensor": torch.ne, "lt_Tensor": torch.lt,
          "le_Tensor": torch.le, "gt_Tensor": torch.gt, "ge_Tensor": torch.ge}
PAIRS = [([5, 7], [5, 7]), ([3, 1, 4], [5, 1]), ([2, 3], []), ([0, 3], [3]), ([], [])]
DT_PAIRS = [(d, d) for d in ALL] + [(torch.int64, torch.float32), (torch.float64, torch.float32),
                                    (torch.uint8, torch.int8), (torch.bool, torch.int32),
                                    (torch.bfloat16, torch.float16), (torch.int32, torch.float16)]
for name, tf in BINARY.items():
    f = fn(f"aoti_torch_cpu_{name}", H, H, P(H))
    for (da, db), (sa, sb) in itertools.product(DT_PAIRS, PAIRS):
        for lay, a in itertools.islice(layouts(sa, da, low=-6, high=6), 2):
            b = rand(sb, db, low=-6, high=6)
            if "shift" in name:
                b = rand(sb, db, low=0, high=9) if db not in FLOATS else b
            label = f"{name} {da}/{db} {sa}/{sb} {lay}"
            with_handles([a, b], lambda h: run(label, lambda o: f(h[0], h[1], C.byref(o[0])),
                                               lambda: tf(a, b)))

for name, tf in [("add_Tensor", torch.add), ("sub_Tensor", torch.sub),
                 ("subtract_Tensor", torch.subtract)]:
    f = fn(f"aoti_torch_cpu_{name}", H, H, C.c_double, P(H))
    for (da, db), (sa, sb), alpha in itertools.product(DT_PAIRS, PAIRS, [1.0, 2.0, 0.5, -3.0]):
        a, b = rand(sa, da), rand(sb, db)
        label = f"{name} {da}/{db} {sa}/{sb} alpha={alpha}"
        al = whole(alpha)
        # float16/bfloat16 with alpha != 1 on broadcast operands: PyTorch rounds alpha * b to
        # the half type before adding there (fused elsewhere); we always fuse in float, so
        # cancelling results may differ by the product's rounding: atol 4 * rtol there
        half = torch.promote_types(da, db) in FLOATS[:2] or (sa == [] and db in FLOATS[:2]) \
            or (sb == [] and da in FLOATS[:2]) or da in FLOATS[:2] or db in FLOATS[:2]
        loose = "product" if alpha != 1 and half else False
        with_handles([a, b], lambda h: run(label, lambda o: f(h[0], h[1], alpha, C.byref(o[0])),
                                           lambda: tf(a, b, alpha=alpha), loose))
        with_handles([a, b], lambda h: run(label + " (dispatcher)",
                                           lambda o: disp(name.split("_")[0], "Tensor",
                                                          [h[0], h[1], al], o),
                                           lambda: tf(a, b, alpha=al), loose))

f = fn("aoti_torch_cpu_add_Scalar", H, C.c_double, C.c_double, P(H))
for dt, shape, (other, alpha) in itertools.product(ALL, SHAPES, [(2.0, 1.0), (0.5, 1.0), (3.0, 2.0), (-1.0, 0.5)]):
    x = rand(shape, dt)
    o_, al = whole(other), whole(alpha)
    label = f"add.Scalar {dt} {shape} other={other} alpha={alpha}"
    with_handles([x], lambda h: run(label, lambda o: f(h[0], other, alpha, C.byref(o[0])),
                                    lambda: torch.ops.aten.add.Scalar(x, other, alpha)))
    with_handles([x], lambda h: run(label + " (dispatcher)",
                                    lambda o: disp("add", "Scalar", [h[0], o_, al], o),
                                    lambda: torch.ops.aten.add.Scalar(x, o_, al)))

for cmp in ["eq", "ne", "lt", "le", "gt", "ge"]:
    f = fn(f"aoti_torch_cpu_{cmp}_Scalar", H, C.c_double, P(H))
    for dt, v in itertools.product(ALL, [1.0, 2.5, -1.0]):
        x = rand([4, 5], dt)
        vv = whole(v)
        label = f"{cmp}.Scalar {dt} {v}"
        with_handles([x], lambda h: run(label, lambda o: f(h[0], v, C.byref(o[0])),
                                        lambda: getattr(torch.ops.aten, cmp).Scalar(x, v)))
        with_handles([x], lambda h: run(label + " (dispatcher)",
                                        lambda o: disp(cmp, "Scalar", [h[0], vv], o),
                                        lambda: getattr(torch.ops.aten, cmp).Scalar(x, vv)))

f = fn("aoti_torch_cpu_pow_Tensor_Scalar", H, C.c_double, P(H))
for dt, e in itertools.product(ALL, [2.0, 3.0, 0.5, -1.0, 1.5, 0.0]):
    x = rand([4, 5], dt, low=0 if e in (0.5, 1.5) else -3, high=3)
    ee = whole(e)
    label = f"pow.Tensor_Scalar {dt} {e}"
    with_handles([x], lambda h: run(label, lambda o: f(h[0], e, C.byref(o[0])),
                                    lambda: torch.pow(x, e), loose=True))
    with_handles([x], lambda h: run(label + " (dispatcher)",
                                    lambda o: disp("pow", "Tensor_Scalar", [h[0], ee], o),
                                    lambda: torch.pow(x, ee), loose=True))
# PyTorch's special exponents for float32/float64/bfloat16: sqrt, rsqrt, reciprocal kernels
# (-0 and -inf give -inf / NaN under rsqrt where pow gives +inf / 0)
for dt, e in itertools.product([torch.float32, torch.float64, torch.bfloat16], [0.5, -0.5, -1.0, -2.0, 2.0, 3.0]):
    x = torch.tensor([-0.0, 0.0, float("-inf"), float("inf"), float("nan"), 4.0, 0.25, -2.0, 1e-30], dtype=dt)
    with_handles([x], lambda h: run(f"pow.Tensor_Scalar special {dt} {e}", lambda o: f(h[0], e, C.byref(o[0])),
                                    lambda: torch.pow(x, e)))

f = fn("aoti_torch_cpu_clamp", H, P(C.c_double), P(C.c_double), P(H))
for dt, (lo, hi) in itertools.product(ALL, [(-1.0, 2.0), (None, 1.0), (0.5, None), (None, None), (3.0, -3.0)]):
    x = rand([4, 5], dt)
    plo = C.byref(C.c_double(lo)) if lo is not None else None
    phi = C.byref(C.c_double(hi)) if hi is not None else None
    tl, th = lo, hi  # the C shim's Scalars: floating
    label = f"clamp {dt} {lo} {hi}"
    with_handles([x], lambda h: run(label, lambda o: f(h[0], plo, phi, C.byref(o[0])),
                                    lambda: torch.clamp(x, tl, th)))

f = fn("aoti_torch_cpu_where_self", H, H, H, P(H))
for (da, db), cdt in itertools.product(DT_PAIRS[:10] + DT_PAIRS[-3:], [torch.bool, torch.float32]):
    c, a, b = rand([3, 4], cdt), rand([3, 1], da), rand([4], db)
    label = f"where {cdt} {da}/{db}"
    with_handles([c, a, b], lambda h: run(label, lambda o: f(h[0], h[1], h[2], C.byref(o[0])),
                                          lambda: torch.where(c, a, b)))

# ---- copies and conversions ----------------------------------------------------------
f = fn("aoti_torch_cpu_to_dtype", H, C.c_int32, C.c_int32, C.c_int32, P(C.c_int32), P(H))
for sdt, ddt in itertools.product(ALL, ALL):
    for lay, x in layouts([6, 5], sdt, low=-300, high=300):
        label = f"to {sdt}->{ddt} {lay}"

        def ours(o, h):
            rc = f(h[0], DT[ddt], 0, 0, None, C.byref(o[0]))
            if rc == 0 and sdt == ddt:  # nothing to change: PyTorch returns self (same data)
                p0, p1 = C.c_void_p(), C.c_void_p()
                get_data(o[0], C.byref(p0))
                get_data(h[0], C.byref(p1))
                if p0.value != p1.value:
                    failures.append(f"{label}: a copy where PyTorch returns self")
            return rc
        with_handles([x], lambda h: run(label, lambda o: ours(o, h), lambda: x.to(ddt)))
xf = torch.tensor([-3.7, 300.5, -1.0, float("nan"), 1e10], dtype=torch.float32)
for ddt in INTS + [torch.bool]:
    label = f"to float32->{ddt} edge values"
    with_handles([xf], lambda h: run(label, lambda o: f(h[0], DT[ddt], 0, 0, None, C.byref(o[0])),
                                     lambda: xf.to(ddt)))

f = fn("aoti_torch_cpu_clone", H, P(C.c_int32), P(H))
for dt in ALL:
    for lay, x in layouts([6, 5], dt):
        label = f"clone {dt} {lay}"
        with_handles([x], lambda h: run(label, lambda o: f(h[0], None, C.byref(o[0])),
                                        lambda: x.clone()))

f = fn("aoti_torch_cpu_fill__Scalar", H, C.c_double)
for dt, v, shape in itertools.product(ALL, [1.0, -1.0, 2.5, 300.0, 1e40, -0.5, 65520.0, 255.9, float("nan")],
                                      [[3, 4], [1]]):
    x = rand(shape, dt)
    label = f"fill_ {dt} {v} {shape}"
    counts["cases"] += 1
    h = to_rt(x)
    rc = f(h, v)
    try:
        ref = x.clone().fill_(v)  # the C shim's double: a floating Scalar
        rerr = None
    except Exception as e:
        rerr = e
    if (rc != 0) != (rerr is not None):
        failures.append(f"{label}: error mismatch (ours rc={rc}, torch: {rerr})")
    elif rc == 0:
        msg = compare(label, from_rt(h), ref)
        if msg:
            failures.append(f"{label}: {msg}")
    delete(h)

# ---- reductions ----------------------------------------------------------------------
f = fn("aoti_torch_cpu_sum_dim_IntList", H, P(P(C.c_int64)), C.c_int64, C.c_int32, P(C.c_int32), P(H))
fm = fn("aoti_torch_cpu_mean_dim", H, P(P(C.c_int64)), C.c_int64, C.c_int32, P(C.c_int32), P(H))
fa = fn("aoti_torch_cpu_amax", H, P(C.c_int64), C.c_int64, C.c_int32, P(H))
for dt, dims, keep in itertools.product(ALL, [[0], [1], [0, 1], [-1], []], [0, 1]):
    for lay, x in layouts([5, 6], dt):
        arr = i64s(dims)
        pp = C.pointer(arr)
        label = f"sum {dt} {dims} keep={keep} {lay}"
        with_handles([x], lambda h: run(label, lambda o: f(h[0], C.cast(C.pointer(pp), P(P(C.c_int64))), len(dims), keep, None, C.byref(o[0])),
                                        lambda: torch.sum(x, dims, keepdim=bool(keep)), loose=True, check_strides=False))
        label = f"mean {dt} {dims} keep={keep} {lay}"
        with_handles([x], lambda h: run(label, lambda o: fm(h[0], C.cast(C.pointer(pp), P(P(C.c_int64))), len(dims), keep, None, C.byref(o[0])),
                                        lambda: torch.mean(x, dims, keepdim=bool(keep)), loose=True, check_strides=False))
        label = f"amax {dt} {dims} keep={keep} {lay}"
        with_handles([x], lambda h: run(label, lambda o: fa(h[0], arr, len(dims), keep, C.byref(o[0])),
                                        lambda: torch.amax(x, dims, keepdim=bool(keep)), check_strides=False))

f = fn("aoti_torch_cpu_max_dim", H, C.c_int64, C.c_int32, P(H), P(H))
fg = fn("aoti_torch_cpu_argmax", H, P(C.c_int64), C.c_int32, P(H))
for dt, d, keep in itertools.product(ALL, [0, 1, -1], [0, 1]):
    x = rand([5, 6], dt, low=-2, high=2)
    label = f"max.dim {dt} {d} {keep}"
    with_handles([x], lambda h: run(label, lambda o: f(h[0], d, keep, C.byref(o[0]), C.byref(o[1])),
                                    lambda: tuple(torch.max(x, d, keepdim=bool(keep))), nret=2))
    label = f"argmax {dt} {d} {keep}"
    with_handles([x], lambda h: run(label, lambda o: fg(h[0], C.byref(C.c_int64(d)), keep, C.byref(o[0])),
                                    lambda: torch.argmax(x, d, keepdim=bool(keep))))
for dt in ALL:
    x = rand([5, 6], dt, low=-2, high=2)
    with_handles([x], lambda h: run(f"argmax {dt} None", lambda o: fg(h[0], None, 0, C.byref(o[0])),
                                    lambda: torch.argmax(x)))

for name in ["all", "any"]:
    f = fn(f"aoti_torch_cpu_{name}", H, P(H))
    for dt, shape in itertools.product(ALL, SHAPES):
        x = rand(shape, dt, low=0, high=3)
        label = f"{name} {dt} {shape}"
        with_handles([x], lambda h: run(label, lambda o: f(h[0], C.byref(o[0])),
                                        lambda: getattr(torch, name)(x)))

for name in ["softmax", "log_softmax"]:
    f = fn(f"aoti_torch_cpu_{name}_int", H, C.c_int64, P(C.c_int32), P(H))
    for dt, d in itertools.product(ALL, [0, 1, -1]):
        for lay, x in layouts([4, 6], dt):
            label = f"{name} {dt} {d} {lay}"
            # computed in double, rounded once: log_softmax values near 0 in half types may
            # differ from PyTorch's float computation by a few half ulps (atol 4 * rtol)
            with_handles([x], lambda h: run(label, lambda o: f(h[0], d, None, C.byref(o[0])),
                                            lambda: getattr(torch, name)(x, d),
                                            loose="product" if dt in FLOATS[:2] else True))
    # dtype=: self converted to it first (an integral or bool input works), and an input
    # without elements takes any dtype (PyTorch runs no kernel on it)
    for dt, odt, shape in itertools.product([torch.int64, torch.uint8, torch.bool, torch.float32, torch.float16],
                                            [torch.float32, torch.float16, torch.float64, torch.int64],
                                            [[3, 5], [0, 4], []]):
        x = rand(shape, dt, low=-3, high=3)
        code = C.c_int32(DT[odt])
        with_handles([x], lambda h: run(f"{name} {dt} dtype={odt} {shape}",
                                        lambda o: f(h[0], -1, C.byref(code), C.byref(o[0])),
                                        lambda: getattr(torch.ops.aten, name).int(x, -1, odt),
                                        loose="product" if odt in FLOATS[:2] else True))

# ---- GEMM ----------------------------------------------------------------------------
f = fn("aoti_torch_cpu_mm", H, H, P(H))
fb = fn("aoti_torch_cpu_bmm", H, H, P(H))
fmm = fn("aoti_torch_cpu_matmul", H, H, P(H))
fad = fn("aoti_torch_cpu_addmm", H, H, H, C.c_double, C.c_double, P(H))
GT = {torch.float32: (1e-4, 1e-4), torch.float64: (1e-7, 1e-7)}
# bfloat16 is left out: PyTorch 2.15's oneDNN path fails on this machine's CPU ("could not
# create a primitive") for these shapes.
for dt, (n, k, m) in itertools.product([d for d in ALL if d != torch.bfloat16], [(4, 5, 3), (0, 3, 2), (3, 0, 2), (2, 3, 0), (17, 33, 9)]):
    a, b = rand([n, k], dt, low=-3, high=3), rand([k, m], dt, low=-3, high=3)
    for ta, tb in [(False, False), (True, False), (False, True)]:
        A = a.t().contiguous().t() if ta else a
        B = b.t().contiguous().t() if tb else b
        label = f"mm {dt} {n}x{k}x{m} T{int(ta)}{int(tb)}"
        with_handles([A, B], lambda h: run(label, lambda o: f(h[0], h[1], C.byref(o[0])),
                                           lambda: torch.mm(A, B), loose=True))
    bias = rand([m], dt, low=-3, high=3)
    label = f"addmm {dt} {n}x{k}x{m}"
    with_handles([bias, a, b], lambda h: run(label, lambda o: fad(h[0], h[1], h[2], 0.5 if dt in FLOATS else 1.0 if dt == torch.bool else 2.0, 1.0, C.byref(o[0])),
                                             lambda: torch.addmm(bias, a, b, beta=0.5 if dt in FLOATS else 1 if dt == torch.bool else 2, alpha=1), loose=True))
    x, y = rand([2, n, k], dt), rand([2, k, m], dt)
    label = f"bmm {dt} {n}x{k}x{m}"
    with_handles([x, y], lambda h: run(label, lambda o: fb(h[0], h[1], C.byref(o[0])),
                                       lambda: torch.bmm(x, y), loose=True))
# bmm of two dtypes: PyTorch's result has mat2's dtype, and its kernel reads the dtypes only
# for a product with multiply-adds (empty result, or k == 0: zeros; else it refuses)
for d1, d2 in [(torch.float32, torch.float64), (torch.int32, torch.float32), (torch.float64, torch.int64)]:
    for (bb, n, k, m) in [(2, 3, 0, 2), (0, 3, 2, 2), (2, 0, 2, 2), (2, 3, 2, 2)]:
        x, y = rand([bb, n, k], d1), rand([bb, k, m], d2)
        label = f"bmm {d1}/{d2} {bb}x{n}x{k}x{m}"
        with_handles([x, y], lambda h: run(label, lambda o: fb(h[0], h[1], C.byref(o[0])),
                                           lambda: torch.bmm(x, y)))
for dt in [torch.float32, torch.float64, torch.int64]:
    for sa, sb in [([3], [3]), ([2, 3], [3]), ([3], [3, 4]), ([2, 1, 3, 4], [5, 4, 2]), ([4, 3], [2, 3, 5])]:
        a, b = rand(sa, dt), rand(sb, dt)
        label = f"matmul {dt} {sa} {sb}"
        with_handles([a, b], lambda h: run(label, lambda o: fmm(h[0], h[1], C.byref(o[0])),
                                           lambda: torch.matmul(a, b), loose=True))

# addmm expands self to the result whatever beta (beta 0 included)
for sshape, beta in itertools.product([[3, 4], [1, 2], [4], [5], [], [2, 4, 1], [1, 4]], [0.0, 1.0]):
    sf, m1, m2 = rand(sshape, torch.float32), rand([2, 3], torch.float32), rand([3, 4], torch.float32)
    with_handles([sf, m1, m2], lambda h: run(f"addmm self {sshape} beta={beta}",
                                             lambda o: fad(h[0], h[1], h[2], beta, 1.0, C.byref(o[0])),
                                             lambda: torch.addmm(sf, m1, m2, beta=beta), loose=True))

# ---- large inputs: the threaded, chunked and tiled paths (> 32K elements) ----------
fmul = fn("aoti_torch_cpu_mul_Tensor", H, H, P(H))
fexp = fn("aoti_torch_cpu_exp", H, P(H))
fclone = fn("aoti_torch_cpu_clone", H, P(C.c_int32), P(H))
fto = fn("aoti_torch_cpu_to_dtype", H, C.c_int32, C.c_int32, C.c_int32, P(C.c_int32), P(H))
fsum = fn("aoti_torch_cpu_sum_dim_IntList", H, P(P(C.c_int64)), C.c_int64, C.c_int32, P(C.c_int32), P(H))
for dt in [torch.float32, torch.float64, torch.bfloat16, torch.int32]:
    for lay, x in layouts([257, 301], dt):
        y = rand([301], dt)
        with_handles([x, y], lambda h: run(f"mul large {dt} {lay}", lambda o: fmul(h[0], h[1], C.byref(o[0])),
                                           lambda: x * y))
        with_handles([x], lambda h: run(f"exp large {dt} {lay}", lambda o: fexp(h[0], C.byref(o[0])),
                                        lambda: torch.exp(x), loose=True))
        with_handles([x], lambda h: run(f"clone large {dt} {lay}", lambda o: fclone(h[0], None, C.byref(o[0])),
                                        lambda: x.clone()))
        with_handles([x], lambda h: run(f"to large {dt} {lay}", lambda o: fto(h[0], DT[torch.float16], 0, 0, None, C.byref(o[0])),
                                        lambda: x.to(torch.float16)))
        for d in [0, 1]:
            arr = i64s([d])
            pp = C.pointer(arr)
            with_handles([x], lambda h: run(f"sum large {dt} {lay} dim {d}",
                                            lambda o: fsum(h[0], C.cast(C.pointer(pp), P(P(C.c_int64))), 1, 0, None, C.byref(o[0])),
                                            lambda: torch.sum(x, [d]), loose=True, check_strides=False))

# ---- large reductions: the engine's row, column and split-row loops (runtime/cpu/loops.h), with NaN
# and ties; [3, 140000] over dim 1 and [300000] over everything take the split-row path at
# 2 threads (rows of >= 128K elements, fewer rows than 2x the threads)
fmean = fn("aoti_torch_cpu_mean_dim", H, P(P(C.c_int64)), C.c_int64, C.c_int32, P(C.c_int32), P(H))
famax = fn("aoti_torch_cpu_amax", H, P(C.c_int64), C.c_int64, C.c_int32, P(H))
fmaxd = fn("aoti_torch_cpu_max_dim", H, C.c_int64, C.c_int32, P(H), P(H))
fargm = fn("aoti_torch_cpu_argmax", H, P(C.c_int64), C.c_int32, P(H))
for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32, torch.int64, torch.uint8, torch.int8]:
    for shape in [[257, 301], [3, 140000], [300000], [40, 3, 1000]]:
        for nan in ([False, True] if dt in FLOATS else [False]):
            x = rand(shape, dt, low=-50, high=50) if dt in FLOATS else rand(shape, dt)
            if nan:
                flat = x.view(-1)
                flat[torch.randint(0, flat.numel(), (7,))] = float("nan")
            nd = len(shape)
            for dims in [[d] for d in range(nd)] + [[]] + ([[1, 2]] if nd == 3 else []):
                arr = i64s(dims)
                pp = C.pointer(arr)
                tag = f"{dt} {shape} {dims}{' nan' if nan else ''}"
                # floating sums of 1000s of elements: PyTorch's own float (and, for the half
                # types, partly half) accumulation is off by more than the tolerance (a bfloat16
                # sum of 120,000 values: 1488 against an exact 1501); the reference is PyTorch
                # summing in float64, rounded once, which is what libshimrt documents
                # (ours adds blocks of up to 16 elements per lane in float before the double
                # accumulator: within 8 * eps(float) * sum(|x|) of the exact sum)
                ref = (lambda: torch.sum(x.double(), dims).to(dt)) if dt in FLOATS else (lambda: torch.sum(x, dims))
                bound = True
                if dt in FLOATS:
                    eps = torch.finfo(torch.float64 if dt == torch.float64 else torch.float32).eps
                    absx = torch.nan_to_num(x.double().abs(), nan=0.0)
                    bound = float(8 * eps * absx.sum(dims).max()) if absx.numel() else True
                with_handles([x], lambda h: run(f"sum large {tag}",
                                                lambda o: fsum(h[0], C.cast(C.pointer(pp), P(P(C.c_int64))), len(dims), 0, None, C.byref(o[0])),
                                                ref, loose=bound, check_strides=False))
                if dt in FLOATS:
                    n = x.numel() // max(1, torch.sum(x, dims).numel())
                    with_handles([x], lambda h: run(f"mean large {tag}",
                                                    lambda o: fmean(h[0], C.cast(C.pointer(pp), P(P(C.c_int64))), len(dims), 1, None, C.byref(o[0])),
                                                    lambda: torch.mean(x.double(), dims, keepdim=True).to(dt), loose=bound / n, check_strides=False))
                with_handles([x], lambda h: run(f"amax large {tag}",
                                                lambda o: famax(h[0], arr, len(dims), 0, C.byref(o[0])),
                                                lambda: torch.amax(x, dims), check_strides=False))
            for d in range(nd):
                with_handles([x], lambda h: run(f"max.dim large {tag} {d}",
                                                lambda o: fmaxd(h[0], d, 0, C.byref(o[0]), C.byref(o[1])),
                                                lambda: tuple(torch.max(x, d)), nret=2))
                with_handles([x], lambda h: run(f"argmax large {tag} {d}",
                                                lambda o: fargm(h[0], C.byref(C.c_int64(d)), 1, C.byref(o[0])),
                                                lambda: torch.argmax(x, d, keepdim=True)))
            with_handles([x], lambda h: run(f"argmax large {tag} None",
                                            lambda o: fargm(h[0], None, 0, C.byref(o[0])),
                                            lambda: torch.argmax(x)))

# large softmax / log_softmax: lines over the thread pool, along the last and a middle dim
for name in ["softmax", "log_softmax"]:
    f = fn(f"aoti_torch_cpu_{name}_int", H, C.c_int64, P(C.c_int32), P(H))
    for dt in [torch.float32, torch.float64, torch.bfloat16]:
        for lay, x in layouts([300, 1200], dt, low=-20, high=20):
            if lay == "contig":
                x.view(-1)[12345] = float("nan")
            for d in [0, 1]:
                with_handles([x], lambda h: run(f"{name} large {dt} {lay} {d}", lambda o: f(h[0], d, None, C.byref(o[0])),
                                                lambda: getattr(torch, name)(x, d), loose=True))

# float16 conversions (vector F16C paths): every float16 bit pattern to float32 and back,
# and random float32 bit patterns (NaN, inf, subnormal, out of range) to float16; exact
fto16 = fn("aoti_torch_cpu_to_dtype", H, C.c_int32, C.c_int32, C.c_int32, P(C.c_int32), P(H))
allh = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(torch.float16)
rbits = torch.randint(-2**31, 2**31 - 1, (100003,), dtype=torch.int64).to(torch.int32).view(torch.float32)
for src, dst in [(allh, torch.float32), (allh, torch.float64), (allh, torch.int32), (allh, torch.bfloat16),
                 (allh.float(), torch.float16), (rbits, torch.float16), (rbits.double(), torch.float16),
                 (torch.randint(-70000, 70000, (4099,), dtype=torch.int64), torch.float16)]:
    counts["cases"] += 1
    h = to_rt(src)
    o = H()
    rc = fto16(h, DT[dst], 0, 0, None, C.byref(o))
    if rc != 0:
        failures.append(f"to {src.dtype}->{dst} bits: libshimrt failed")
    else:
        ours = from_rt(o)
        ref = src.to(dst)
        if dst in (torch.float16, torch.bfloat16) or src.dtype in (torch.float16,):
            # NaN payloads: compare NaN-ness, the rest bit for bit
            on, rn = torch.isnan(ours.float()), torch.isnan(ref.float())
            same = torch.equal(on, rn) and torch.equal(ours[~on].float(), ref[~rn].float()) and \
                torch.equal(torch.signbit(ours[~on].float()), torch.signbit(ref[~rn].float()))
        else:
            same = torch.equal(ours, ref)
        if not same:
            failures.append(f"to {src.dtype}->{dst} bits: values differ")
        delete(o)
    delete(h)

# ---- pad: every mode (PyTorch's aten::pad, errors included) ---------------------------
fpad = fn("aoti_torch_cpu_pad", H, P(C.c_int64), C.c_int64, C.c_char_p, P(C.c_double), P(H))
PADS = [[1, 1], [2, 0], [0, 3], [3, 3], [4, 1], [-1, 2], [2, -3], [-2, -2], [-4, 0], [5, 5],
        [1, 2, 0, 1], [-1, 1, 2, 2], [3, 0, 0, 3], [1, 1, 1, 1, 1, 1], [0, 2, -1, 1, 1, 0], [1]]
SHAPES_PAD = [[4], [3, 4], [2, 3, 4], [2, 3, 4, 5], [2, 2, 3, 4, 3], [0, 3, 4], [3, 0], [2, 0, 4]]
for mode in ["constant", "reflect", "replicate", "circular", "bogus"]:
    for dt in [torch.float32, torch.int64, torch.bool, torch.float16, torch.uint8]:
        for shape, pads in itertools.product(SHAPES_PAD, PADS):
            if dt != torch.float32 and (len(shape) != 3 or mode == "bogus"):
                continue
            for lay, x in layouts(shape, dt):
                # circular with more padding on one side than the part kept after a crop on
                # the other reads memory PyTorch never wrote (its values are garbage): skipped
                kept = [shape[len(shape) - 1 - i] - max(-pads[2 * i], 0) - max(-pads[2 * i + 1], 0)
                        for i in range(len(pads) // 2)] if len(pads) % 2 == 0 and len(pads) // 2 <= len(shape) else []
                if mode == "circular" and any(pads[2 * i] > kp or pads[2 * i + 1] > kp for i, kp in enumerate(kept)):
                    continue
                for value in ([None, 0.0, 1.5] if dt == torch.float32 and shape == [2, 3, 4] else [None]):
                    arr = i64s(pads)
                    vp = C.byref(C.c_double(value)) if value is not None else None
                    label = f"pad {mode} {dt} {shape} {pads} {lay} value={value}"
                    with_handles([x], lambda h: run(label, lambda o: fpad(h[0], arr, len(pads), mode.encode(), vp, C.byref(o[0])),
                                                    lambda: torch.ops.aten.pad(x, pads, mode, value),
                                                    # constant mode's result layout (PyTorch's
                                                    # suggested memory format) is not matched
                                                    check_strides=mode != "constant"))

# ---- cat / stack: inputs of different layouts (size-1 dims next to broadcast and
# transposed ones, the coalescing cases of the copy planner), dims negative and positive --
fstack = fn("aoti_torch_cpu_stack", P(H), C.c_int64, C.c_int64, P(H))
fcat = fn("aoti_torch_cpu_cat", P(H), C.c_int64, C.c_int64, P(H))


def list_call(f, hs, *rest):
    arr = (H * max(len(hs), 1))(*hs)
    return lambda o: f(arr, len(hs), *rest, C.byref(o[0]))


for shape in [[3, 4], [4, 3], [2, 5], [1, 4], [4, 1], [3, 1, 2]]:
    a = rand(shape[::-1], torch.float32).transpose(0, -1)
    b = rand(shape, torch.float32)
    for d in range(-len(shape) - 1, len(shape) + 1):
        with_handles([a, b], lambda h: run(f"stack [t, contig] {shape} dim={d}", list_call(fstack, h, d),
                                           lambda: torch.stack([a, b], d)))
    for d in range(-len(shape), len(shape)):
        with_handles([a, b], lambda h: run(f"cat [t, contig] {shape} dim={d}", list_call(fcat, h, d),
                                           lambda: torch.cat([a, b], d)))

# a stride-0 dim followed by a size-1 dim (the planner once merged them and read element 0)
for shape, strides in [([2, 2, 1], [2, 0, 1]), ([2, 1, 3, 1], [3, 1, 0, 1]), ([3, 1, 2], [1, 5, 0])]:
    base = rand([16], torch.float32)
    x = base.as_strided(shape, strides)
    with_handles([x], lambda h: run(f"neg stride-0 then size-1 {shape} {strides}",
                                    lambda o: fn('aoti_torch_cpu_neg', H, P(H))(h[0], C.byref(o[0])), lambda: torch.neg(x)))
    with_handles([x], lambda h: run(f"clone stride-0 then size-1 {shape} {strides}",
                                    lambda o: fclone(h[0], None, C.byref(o[0])), lambda: x.clone()))

# ---- integer overflow wraps (two's complement in the accumulating dtype), never saturates:
# scatter_reduce (sum/prod/mean accumulate in self's dtype), _foreach_mul_ (in place, in the
# result type, cast-checked), sum(dtype=) of a wider or floating input
fsr = fn("aoti_torch_cpu_scatter_reduce_two", H, C.c_int64, H, H, C.c_char_p, C.c_int32, P(H))
for dt, red, incl in itertools.product([torch.int64, torch.int32, torch.int16, torch.uint8, torch.int8, torch.float32],
                                       ["sum", "prod", "mean", "amax"], [1, 0]):
    big = {torch.int64: 2**40, torch.int32: 2**20, torch.int16: 300, torch.uint8: 100, torch.int8: 50}.get(dt, 1e20)
    x = torch.tensor([big, 3, 7, 100]).to(dt)
    src = torch.tensor([big, big - 1, big + 1, 5, 9]).to(dt)
    idx = torch.tensor([0, 0, 0, 1, 2])
    with_handles([x, idx, src], lambda h: run(f"scatter_reduce overflow {dt} {red} include_self={incl}",
                                              lambda o: fsr(h[0], 0, h[1], h[2], red.encode(), incl, C.byref(o[0])),
                                              lambda: x.scatter_reduce(0, idx, src, red, include_self=bool(incl))))
# bool: PyTorch has no mean of bool (refused also for an empty index), the others work
bx, bsrc = torch.tensor([True, False, False, True]), torch.tensor([True, True, False])
for red, incl, n in itertools.product(["sum", "prod", "mean", "amax", "amin"], [1, 0], [3, 0]):
    bidx = torch.tensor([0, 2, 2][:n], dtype=torch.int64)
    with_handles([bx, bidx, bsrc[:n]], lambda h: run(f"scatter_reduce bool {red} include_self={incl} n={n}",
                                                     lambda o: fsr(h[0], 0, h[1], h[2], red.encode(), incl, C.byref(o[0])),
                                                     lambda: bx.scatter_reduce(0, bidx, bsrc[:n], red, include_self=bool(incl))))
ffm = fn("aoti_torch_cpu__foreach_mul__List", P(H), C.c_int64, P(H), C.c_int64)
for da, db in [(torch.int64, torch.int64), (torch.int32, torch.int64), (torch.uint8, torch.int8),
               (torch.int64, torch.float32), (torch.bool, torch.int32), (torch.float32, torch.int64),
               (torch.int16, torch.bool)]:
    a = rand([2, 3], da) * (2**40 if da == torch.int64 else 1) if da != torch.bool else rand([2, 3], da)
    b = (rand([3], db) * 2**35) if db in (torch.int64, torch.float32) else rand([3], db)
    label = f"_foreach_mul_ {da}/{db}"
    counts["cases"] += 1
    ha, hb = to_rt(a), to_rt(b)
    rc = ffm((H * 1)(ha), 1, (H * 1)(hb), 1)
    try:
        ref = a.clone()
        torch._foreach_mul_([ref], [b])
        rerr = None
    except Exception as e:
        rerr = e
    if (rc != 0) != (rerr is not None):
        failures.append(f"{label}: error mismatch (ours rc={rc}, torch: {rerr})")
    elif rc == 0:
        msg = compare(label, from_rt(ha), ref)
        if msg:
            failures.append(f"{label}: {msg}")
    delete(ha)
    delete(hb)
fsd = fn("aoti_torch_cpu_sum_dim_IntList", H, P(P(C.c_int64)), C.c_int64, C.c_int32, P(C.c_int32), P(H))
for sdt, ddt in itertools.product([torch.int64, torch.int32, torch.uint8, torch.float32, torch.float64],
                                  [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]):
    x = (torch.tensor([2**62, 2**62, 2**62, 100, 200, 250]) if sdt == torch.int64 else
         torch.tensor([250.5, 250, 100, 3, -7, 70000]) if sdt in FLOATS else torch.tensor([250, 250, 100, 3])).to(sdt)
    arr = i64s([0])
    pp = C.pointer(arr)
    dref = C.c_int32(DT[ddt])
    with_handles([x], lambda h: run(f"sum overflow {sdt} dtype={ddt}",
                                    lambda o: fsd(h[0], C.cast(C.pointer(pp), P(P(C.c_int64))), 1, 0, C.byref(dref), C.byref(o[0])),
                                    lambda: torch.sum(x, [0], dtype=ddt)))

# ---- issue 17 item 8: sum / mean / all / any of complex64/128 and uint16/32/64, and their
# dtype= of those (complex: the parts reduced as real tensors; uint: PyTorch's sum kernel has
# none, but an input without elements still gives zeros)
WIDE = {torch.uint16: 27, torch.uint32: 28, torch.uint64: 29, torch.complex64: 9,
        torch.complex128: 10}
DT.update(WIDE)
RDT.update({v: k for k, v in WIDE.items()})
warnings.filterwarnings("ignore", "Casting complex values to real")


def wide(shape, dt):
    if dt.is_complex:
        real = torch.float32 if dt == torch.complex64 else torch.float64
        x = torch.complex(rand(shape, real), rand(shape, real))
        if x.numel() > 2:  # zeros, a zero real part with a nonzero imaginary one, NaN, inf
            x.view(-1)[0] = complex(0, 0)
            x.view(-1)[1] = complex(0, float("nan") if x.dim() == 3 else 1.5)
            if x.dim() == 3:  # an inf part: PyTorch's complex mean divides it into a NaN
                x.view(-1)[-1] = complex(-2.5, float("inf"))
        return x
    return rand(shape, torch.int64, low=0, high=5).to(dt)


fmaxd = fn("aoti_torch_cpu_max_dim", H, C.c_int64, C.c_int32, P(H), P(H))
fargm = fn("aoti_torch_cpu_argmax", H, P(C.c_int64), C.c_int32, P(H))
famax = fn("aoti_torch_cpu_amax", H, P(C.c_int64), C.c_int64, C.c_int32, P(H))
for dt, shape in itertools.product(list(WIDE) + [torch.float32, torch.int64],
                                   [[5, 6], [], [0, 3], [2, 3, 4], [1, 4], [3, 0]]):
    for lay, x in [("contig", wide(shape, dt))] + ([("transposed", wide(shape[::-1], dt).transpose(0, 1)),
                                                   ("sliced", wide(shape[:-1] + [shape[-1] * 2], dt)[..., ::2])]
                                                  if len(shape) > 1 else []):
        for dims, keep in ([([0], 1), ([-1], 0), ([0, -1], 0), ([], 1)] if shape else [([], 0), ([0], 1)]):
            arr = i64s(dims)
            pp = C.pointer(arr)
            for odt in [None, torch.complex128, torch.float32, torch.int64, torch.uint16]:
                dref = C.c_int32(DT[odt]) if odt is not None else None
                kw = {} if odt is None else {"dtype": odt}
                # complex sums: the parts summed as real tensors are (engine.md: float blocks
                # merged into double), so within 8 * eps * sum(|x|) of PyTorch's own sums
                cd = odt if odt is not None and odt.is_complex else x.dtype
                tol = True
                if cd.is_complex and x.numel():  # (NaN and inf parts: compared as such)
                    ax = x.to(cd).abs()
                    tol = float(8 * torch.finfo(cd.to_real()).eps * ax[ax.isfinite()].sum()) or True
                for name, fr, ref in (("sum", fsd, torch.sum), ("mean", fmean, torch.mean)):
                    with_handles([x], lambda h: run(f"{name} {dt} {shape} {lay} {dims} keep={keep} dtype={odt}",
                                                    lambda o: fr(h[0], C.cast(C.pointer(pp), P(P(C.c_int64))), len(dims), keep,
                                                                 C.byref(dref) if dref is not None else None, C.byref(o[0])),
                                                    lambda: ref(x, dims, keepdim=bool(keep), **kw), loose=tol,
                                                    check_strides=False))
        # max.dim / argmax / amax: PyTorch has no uint16/32/64 or complex kernel, but answers
        # 0-d, empty and (argmax) size-1 reductions without it
        for d, keep in ([(0, 0), (-1, 1)] if shape else [(0, 0)]):
            with_handles([x], lambda h: run(f"max.dim {dt} {shape} {lay} {d} {keep}",
                                            lambda o: fmaxd(h[0], d, keep, C.byref(o[0]), C.byref(o[1])),
                                            lambda: tuple(torch.max(x, d, keepdim=bool(keep))), nret=2,
                                            check_strides=False))
            with_handles([x], lambda h: run(f"argmax {dt} {shape} {lay} {d} {keep}",
                                            lambda o: fargm(h[0], C.byref(C.c_int64(d)), keep, C.byref(o[0])),
                                            lambda: torch.argmax(x, d, keepdim=bool(keep)), check_strides=False))
            arr = i64s([d])
            with_handles([x], lambda h: run(f"amax {dt} {shape} {lay} {d} {keep}",
                                            lambda o: famax(h[0], arr, 1, keep, C.byref(o[0])),
                                            lambda: torch.amax(x, [d], keepdim=bool(keep)), check_strides=False))
        for name in ["all", "any"]:
            fn_ = fn(f"aoti_torch_cpu_{name}", H, P(H))
            with_handles([x], lambda h: run(f"{name} {dt} {shape} {lay}", lambda o: fn_(h[0], C.byref(o[0])),
                                            lambda: getattr(torch, name)(x)))


# ---- index checks: negative and too-large indices refused with PyTorch's message, int32
# indices accepted where PyTorch accepts them, other index dtypes refused (message compared)
xi = rand([2, 3], torch.float32)
srci = rand([1, 3], torch.float32)
fgat = fn("aoti_torch_cpu_gather", H, C.c_int64, H, C.c_int32, P(H))
fsc = fn("aoti_torch_cpu_scatter_src", H, C.c_int64, H, H, P(H))
fisel = fn("aoti_torch_cpu_index_select", H, C.c_int64, H, P(H))
femb = fn("aoti_torch_cpu_embedding", H, H, C.c_int64, C.c_int32, C.c_int32, P(H))
ICASES = [("gather", lambda h, o: fgat(h[0], 0, h[1], 0, o), lambda i: torch.gather(xi, 0, i), [1, 3]),
          ("scatter.src", lambda h, o: fsc(h[0], 0, h[1], h[2], o), lambda i: xi.scatter(0, i, srci), [1, 3]),
          ("scatter_reduce.two", lambda h, o: fsr(h[0], 0, h[1], h[2], b"sum", 1, o),
           lambda i: xi.scatter_reduce(0, i, srci, "sum"), [1, 3]),
          ("index_select", lambda h, o: fisel(h[0], 0, h[1], o), lambda i: torch.index_select(xi, 0, i), [2]),
          ("embedding", lambda h, o: femb(h[0], h[1], -1, 0, 0, o), lambda i: torch.nn.functional.embedding(i, xi), [2])]
for (name, ours, ref, ishape), dt, v in itertools.product(ICASES, [torch.int64, torch.int32, torch.int16], [-1, 2, 0, -3]):
    ix = torch.full(ishape, v, dtype=dt)
    label = f"{name} index {dt} {v}"

    def call(h, o, ours=ours):
        rc = ours(h, C.byref(o[0]))
        if rc != 0:  # the message after "op: " must be PyTorch's first line
            msg = LIB.torch_exception_get_what().decode().split(": ", 1)[-1]
            try:
                ref(ix)
            except Exception as e:
                if msg != str(e).splitlines()[0]:
                    failures.append(f"{label}: message {msg!r} != {str(e).splitlines()[0]!r}")
        return rc
    with_handles([xi, ix, srci], lambda h: run(label, lambda o: call(h, o), lambda: ref(ix)))

# ---- cat / stack promote their inputs (PyTorch's result_type); cat.out casts where allowed
fcato = fn("aoti_torch_cpu_cat_out", H, P(H), C.c_int64, C.c_int64)
for da, db in [(torch.float32, torch.int64), (torch.int64, torch.bool), (torch.uint8, torch.int8),
               (torch.float16, torch.bfloat16), (torch.int32, torch.float64), (torch.bool, torch.bool)]:
    a, b = rand([2, 3], da), rand([4, 3], db)
    with_handles([a, b], lambda h: run(f"cat {da}+{db}", list_call(fcat, h, 0), lambda: torch.cat([a, b])))
    b2 = rand([2, 3], db)
    with_handles([a, b2], lambda h: run(f"stack {da}+{db}", list_call(fstack, h, 1), lambda: torch.stack([a, b2], 1)))
    e = torch.empty(0, dtype=torch.float64)
    with_handles([e, b], lambda h: run(f"cat legacy-empty float64+{db}", list_call(fcat, h, 0), lambda: torch.cat([e, b])))
    for odt in [torch.float64, torch.int64, torch.bool, torch.float16]:
        label = f"cat.out {da}+{db} -> {odt}"
        counts["cases"] += 1
        hs, ho = [to_rt(a), to_rt(b)], to_rt(torch.empty(0, dtype=odt))
        rc = fcato(ho, (H * 2)(*hs), 2, 0)
        try:
            ref = torch.cat([a, b], out=torch.empty(0, dtype=odt))
            rerr = None
        except Exception as ex:
            rerr = ex
        if (rc != 0) != (rerr is not None):
            failures.append(f"{label}: error mismatch (ours rc={rc}, torch: {rerr})")
        elif rc == 0:
            msg = compare(label, from_rt(ho), ref)
            if msg:
                failures.append(f"{label}: {msg}")
        for x in hs + [ho]:
            delete(x)

# ---- torch_tag_<name>() codes are the values of PyTorch's at::Tag (its generated header)
import re  # noqa: E402
hdr = os.path.join(os.path.dirname(torch.__file__), "include", "torch", "headeronly", "core", "enum_tag.h")
tags = re.search(r"enum class Tag \{([^}]*)\}", open(hdr).read()).group(1)
for code, name in enumerate(t.strip() for t in tags.split(",") if t.strip()):
    counts["cases"] += 1
    getter = getattr(LIB, f"torch_tag_{name}", None)
    if getter is None:
        failures.append(f"torch_tag_{name}: missing")
        continue
    getter.restype = C.c_int32
    if getter() != code:
        failures.append(f"torch_tag_{name}() = {getter()}, PyTorch's at::Tag::{name} = {code}")

# ---- copy_ between real and complex dtypes (PyTorch's: (v, 0) one way, the real part back)
import warnings  # noqa: E402
DT.update({torch.complex64: 9, torch.complex128: 10})
RDT.update({9: torch.complex64, 10: torch.complex128})
fcopy = fn("aoti_torch_copy_", H, H, C.c_int32)
for sdt, ddt in itertools.product([torch.float32, torch.float64, torch.int64, torch.bool, torch.float16,
                                   torch.complex64, torch.complex128],
                                  [torch.complex64, torch.complex128, torch.float32, torch.int32, torch.float64]):
    if sdt == ddt:
        continue
    src = torch.randn(3, 4, dtype=sdt) * 100 if sdt.is_complex else rand([3, 4], sdt, low=-300, high=300)
    dst = torch.zeros(4, 3, dtype=ddt).t()
    label = f"copy_ {sdt}->{ddt}"
    counts["cases"] += 1
    hs, hd = to_rt(src), to_rt(dst)
    rc = fcopy(hd, hs, 0)
    ref = dst.clone()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref.copy_(src)
    if rc != 0:
        failures.append(f"{label}: libshimrt failed ({LIB.torch_exception_get_what().decode()})")
    elif not torch.equal(from_rt(hd), ref):
        failures.append(f"{label}: values differ")
    delete(hs)
    delete(hd)

# ---- contiguous(preserve_format): self when contiguous, else PyTorch's error
fcontig = fn("aoti_torch_cpu_contiguous", H, C.c_int32, P(H))
for lay, x in [("contig", rand([2, 3], torch.float32)), ("transposed", rand([3, 2], torch.float32).t()),
               ("channels_last", rand([2, 3, 4, 5], torch.float32).to(memory_format=torch.channels_last))]:
    with_handles([x], lambda h: run(f"contiguous(preserve) {lay}", lambda o: fcontig(h[0], 1, C.byref(o[0])),
                                    lambda: x.contiguous(memory_format=torch.preserve_format)))

# ---- fill_ / full overflow checks (PyTorch's "value cannot be converted to type ... without
# overflow"), every value a float as the C shim passes it; one- and two-element
FVALS = [255.9, 256.0, -0.5, -1.0, -1, -255, -256, 300, 127.9, 128, -128.9, -129.0, 2147483647.5,
         2147483648.0, 9.3e18, 65504.0, 65505.0, 65519.0, 65519.5, 65520.0, 70000, 3.4028235e38,
         3.40282357e38, 1e40, -1e40, float("nan"), float("inf"), 3.39e38]
ffull = fn("aoti_torch_cpu_full", P(C.c_int64), C.c_int64, C.c_double, P(C.c_int32), P(C.c_int32),
           P(C.c_int32), C.c_int32, P(C.c_int32), P(H))
for dt, v, n in itertools.product([d for d in ALL if d != torch.bool], FVALS, [2, 1]):
    tv = float(v)  # the C shim's double: a floating Scalar (c10::Scalar(double))
    sz = i64s([n])
    dcode = C.c_int32(DT[dt])
    label = f"full [{n}] {dt} {v}"
    run(label, lambda o: ffull(sz, 1, float(v), C.byref(dcode), None, None, -1, None, C.byref(o[0])),
        lambda: torch.full([n], tv, dtype=dt))

# ---- transcendental float32 results within 1 ulp of PyTorch's (SLEEF on both sides)
for name, lo, hi in [("exp", -85, 85), ("log", 0, 1e4), ("tanh", -20, 20), ("sigmoid", -20, 20)]:
    fu = fn(f"aoti_torch_cpu_{name}", H, P(H))
    x = torch.rand(65537, dtype=torch.float64).mul(hi - lo).add(lo).float()
    counts["cases"] += 1
    h, o = to_rt(x), H()
    if fu(h, C.byref(o)) != 0:
        failures.append(f"{name} 1-ulp: libshimrt failed")
    else:
        ours, ref = from_rt(o), getattr(torch, name)(x)
        step = torch.nextafter(ref.abs(), torch.tensor(float("inf"))) - ref.abs()
        worst = float(((ours.double() - ref.double()).abs() / step.double()).max())
        if worst > 1.0:
            failures.append(f"{name} 1-ulp: {worst:.2f} ulp from PyTorch's result")
        delete(o)
    delete(h)

# ---- item-10 checks: pin_memory without an accelerator, mixed layer_norm dtypes and its out
# dtypes, copy_ with partial overlap; *_like layouts (preserve_format on non-dense inputs)
pin = C.c_int32(1)
sz2 = i64s([2])
run("full pin_memory=True", lambda o: ffull(sz2, 1, 1.0, None, None, None, -1, C.byref(pin), C.byref(o[0])),
    lambda: torch.full([2], 1.0, pin_memory=True))
fzl = fn("aoti_torch_cpu_zeros_like", H, P(C.c_int32), P(C.c_int32), P(C.c_int32), C.c_int32, P(C.c_int32),
         P(C.c_int32), P(H))
for lay, x in [("transposed", rand([4, 3], torch.float32).t()), ("expanded", rand([3, 1], torch.float32).expand(3, 4)),
               ("sliced", rand([3, 8], torch.float32)[:, ::2]), ("stride0-size1", rand([16], torch.float32).as_strided([2, 2, 1], [2, 0, 1])),
               ("channels_last", rand([2, 3, 4, 5], torch.float32).to(memory_format=torch.channels_last))]:
    for mf in [None, 0, 1, 2]:
        mfp = C.byref(C.c_int32(mf)) if mf is not None else None
        tmf = {None: torch.preserve_format, 0: torch.contiguous_format, 1: torch.preserve_format, 2: torch.channels_last}[mf]
        with_handles([x], lambda h: run(f"zeros_like {lay} memory_format={mf}",
                                        lambda o: fzl(h[0], None, None, None, -1, None, mfp, C.byref(o[0])),
                                        lambda: torch.zeros_like(x, memory_format=tmf)))
        with_handles([x], lambda h: run(f"clone {lay} memory_format={mf}",
                                        lambda o: fclone(h[0], mfp, C.byref(o[0])),
                                        lambda: x.clone(memory_format=tmf)))
fln = fn("aoti_torch_cpu_native_layer_norm", H, P(C.c_int64), C.c_int64, P(H), P(H), C.c_double, P(H), P(H), P(H))
for xd, wd, bd in [(torch.float32, torch.float64, torch.float32), (torch.float64, torch.float32, None),
                   (torch.bfloat16, torch.float32, torch.float32), (torch.float16, torch.float32, None),
                   (torch.bfloat16, None, None), (torch.float32, torch.float32, torch.float32),
                   (torch.float16, torch.float16, torch.float32), (torch.float16, torch.float32, torch.float16),
                   (torch.float32, torch.float32, torch.float64), (torch.float16, None, torch.float32),
                   (torch.bfloat16, torch.bfloat16, torch.bool), (torch.float64, None, torch.float64)]:
    x = rand([2, 3], xd)
    w = rand([3], wd) if wd else None
    b = rand([3], bd) if bd else None
    ts = [x] + [t for t in (w, b) if t is not None]

    def call(h, o, w=w, b=b):
        hw = H(h[1].value) if w is not None else None
        hb = H(h[-1].value) if b is not None else None
        return fln(h[0], i64s([3]), 1, C.byref(hw) if hw else None, C.byref(hb) if hb else None, 1e-5,
                   C.byref(o[0]), C.byref(o[1]), C.byref(o[2]))
    with_handles(ts, lambda h: run(f"native_layer_norm {xd}/{wd}/{bd}", lambda o: call(h, o),
                                   lambda: tuple(torch.native_layer_norm(x, [3], w, b, 1e-5)), loose=True, nret=3))
# a row holding a huge value (its square overflows): PyTorch's rowwise Welford moments give
# a variance of inf (rstd 0, the row 0) or NaN, by the vector lane the value falls in and
# whether the row has a scalar tail (AddMoments versus AddMomentsVec): bit for bit
for dt, big in [(torch.float64, 1e300), (torch.float32, 3e38), (torch.bfloat16, 3e38), (torch.float16, 6e4)]:
    for n, pos in [(12, 0), (12, 1), (12, 8), (5, 0), (16, 4), (33, 0), (64, 17), (300, 3)]:
        x = rand([2, n], dt)
        x[0, pos] = big
        ref = torch.native_layer_norm(x, [n], None, None, 1e-5)
        o3 = [H(), H(), H()]
        if with_handles([x], lambda h: fln(h[0], i64s([n]), 1, None, None, 1e-5, C.byref(o3[0]),
                                           C.byref(o3[1]), C.byref(o3[2]))) != 0:
            failures.append(f"native_layer_norm {dt} huge at {pos} of {n}: libshimrt failed")
            continue
        counts["cases"] += 1
        for k in range(3):
            ours = from_rt(o3[k]).double()
            delete(o3[k])
            r = ref[k].double()
            if not ((ours == r) | (ours.isnan() & r.isnan())).all():
                failures.append(f"native_layer_norm {dt} huge at {pos} of {n}: result {k} "
                                f"{ours.flatten()[:3].tolist()} vs {r.flatten()[:3].tolist()}")
flno = fn("aoti_torch_cpu_native_layer_norm_out", H, H, H, H, P(C.c_int64), C.c_int64, P(H), P(H), C.c_double)
for d0, d1 in [(torch.float32, torch.float32), (torch.float64, torch.float32), (torch.float32, torch.int64)]:
    x = rand([2, 3], torch.float32)
    outs = [torch.empty(0, dtype=d0), torch.empty(0, dtype=d1), torch.empty(0, dtype=torch.float32)]
    label = f"native_layer_norm.out {d0}/{d1}"
    counts["cases"] += 1
    hs = [to_rt(t) for t in outs + [x]]
    rc = flno(hs[0], hs[1], hs[2], hs[3], i64s([3]), 1, None, None, 1e-5)
    try:
        torch.ops.aten.native_layer_norm.out(x, [3], None, None, 1e-5, out0=outs[0], out1=outs[1], out2=outs[2])
        rerr = None
    except Exception as e:
        rerr = str(e).splitlines()[0]
    ours = LIB.torch_exception_get_what().decode().split(": ", 1)[-1] if rc else None
    if (rc != 0) != (rerr is not None) or (rc and ours != rerr):
        failures.append(f"{label}: ours {ours!r}, PyTorch {rerr!r}")
    for h in hs:
        delete(h)
ra = fn("aoti_torch__reinterpret_tensor", H, C.c_int64, P(C.c_int64), P(C.c_int64), C.c_int64, P(H))
for (da, oa), (db, ob) in [((5, 1), (5, 0)), ((5, 0), (5, 1)), ((5, 0), (5, 0)), ((3, 0), (3, 5)), ((5, 2), (5, 0))]:
    base = torch.arange(12.)
    label = f"copy_ overlap dst[{oa}:{oa + da}] src[{ob}:{ob + db}]"
    counts["cases"] += 1
    hb = to_rt(base)
    a, b = H(), H()
    ra(hb, 1, i64s([da]), i64s([1]), oa, C.byref(a))
    ra(hb, 1, i64s([db]), i64s([1]), ob, C.byref(b))
    rc = fcopy(a, b, 0)
    try:
        ref = base.clone()
        ref[oa:oa + da].copy_(ref[ob:ob + db])
        rerr = None
    except Exception as e:
        rerr = e
    if (rc != 0) != (rerr is not None):
        failures.append(f"{label}: error mismatch (ours rc={rc}, torch: {rerr})")
    elif rc == 0 and not torch.equal(from_rt(hb), ref):
        failures.append(f"{label}: values differ")
    for h in (a, b, hb):
        delete(h)

# written-to tensors with a stride-0 dim (internal overlap): refused by _foreach_mul_ (its
# mul_), copy_ and mm.out (PyTorch's final copy_), but not when they hold no elements
fmmo = fn("aoti_torch_cpu_mm_out", H, H, H)
for sizes, strides in (([3, 2], [2, 0]), ([2], [0]), ([4, 0, 3], [0, 3, 1]), ([3, 2], [2, 1])):
    base = torch.arange(12.)
    counts["cases"] += 1
    label = f"written-to {sizes} strides {strides}"
    hb, ho = to_rt(base), H()
    ra(hb, len(sizes), i64s(sizes), i64s(strides), 0, C.byref(ho))
    ref_out = base.clone().as_strided(sizes, strides)
    other = rand(sizes, torch.float32)
    hother = to_rt(other)
    results = []
    results.append(("copy_", fcopy(ho, hother, 0) != 0, lambda: ref_out.copy_(other)))
    results.append(("_foreach_mul_", ffm((H * 1)(ho), 1, (H * 1)(hother), 1) != 0,
                    lambda: torch._foreach_mul_([ref_out], [other])))
    if len(sizes) == 2:
        m1, m2 = rand([3, 4], torch.float32), rand([4, 2], torch.float32)
        h1, h2 = to_rt(m1), to_rt(m2)
        results.append(("mm.out", fmmo(ho, h1, h2) != 0, lambda: torch.mm(m1, m2, out=ref_out)))
        delete(h1)
        delete(h2)
    for name, ours_failed, ref in results:
        try:
            ref()
            rerr = None
        except Exception as e:
            rerr = e
        if ours_failed != (rerr is not None):
            failures.append(f"{label} {name}: ours {'fails' if ours_failed else 'succeeds'}, torch: {rerr}")
    for h in (ho, hother, hb):
        delete(h)

# ---- output strides (PyTorch's layout rule: TensorIterator / empty_like(preserve) / sort's
# meta), compared even for empty and one-element results
fsort = fn("aoti_torch_cpu_sort", H, C.c_int64, C.c_int32, P(H), P(H))
LAYS = {"transposed": rand([4, 3], torch.float32).t(), "expanded": rand([3, 1], torch.float32).expand(3, 4),
        "sliced": rand([3, 8], torch.float32)[:, ::2], "empty-t": rand([3, 0], torch.float32).t(),
        "empty-t2": rand([0, 3], torch.float32).t(), "size1-t": rand([1, 4], torch.float32).t(),
        "size1-3d": rand([4, 1, 3], torch.float32).transpose(0, 2)}
for lay, x in LAYS.items():
    y = rand(list(x.shape), torch.float32)
    checks = [("sort", lambda o, h: fsort(h[0], -1, 0, C.byref(o[0]), C.byref(o[1])), lambda: tuple(torch.sort(x, -1)), 2),
              ("to float64", lambda o, h: fto(h[0], DT[torch.float64], 0, 0, None, C.byref(o[0])), lambda: x.to(torch.float64), 1),
              ("neg", lambda o, h: fn("aoti_torch_cpu_neg", H, P(H))(h[0], C.byref(o[0])), lambda: -x, 1),
              ("mul", lambda o, h: fmul(h[0], h[1], C.byref(o[0])), lambda: x * y, 1),
              ("clone", lambda o, h: fclone(h[0], None, C.byref(o[0])), lambda: x.clone(), 1)]
    for name, ours, ref, nret in checks:
        label = f"strides {name} {lay}"
        counts["cases"] += 1
        hs = [to_rt(x), to_rt(y)]
        outs = [H() for _ in range(nret)]
        if ours(outs, hs) != 0:
            failures.append(f"{label}: libshimrt failed")
        else:
            refs = ref() if nret > 1 else (ref(),)
            for o, r in zip(outs, refs):
                got = from_rt(o)
                if got.stride() != r.stride():
                    failures.append(f"{label}: strides {got.stride()} != {r.stride()}")
                delete(o)
        for h in hs:
            delete(h)

# ---- uint16/32/64 and complex64/128 through the dtype table (runtime/core/dtype.h): to,
# copy_, clone, fill_, full and zeros_like, which PyTorch 2.15 has for every dtype
DT.update({torch.uint16: 27, torch.uint32: 28, torch.uint64: 29})
RDT.update({27: torch.uint16, 28: torch.uint32, 29: torch.uint64})
UINTS = [torch.uint16, torch.uint32, torch.uint64]
CPLX = [torch.complex64, torch.complex128]
WIDE = ALL + UINTS + CPLX


def rand_wide(shape, dt):
    if dt in UINTS:
        return torch.randint(0, 70000, shape, dtype=torch.int64).to(dt)
    if dt in CPLX:
        return (torch.randn(shape, dtype=torch.complex128) * 100).to(dt)
    return rand(shape, dt, low=-300, high=300)


fto = fn("aoti_torch_cpu_to_dtype", H, C.c_int32, C.c_int32, C.c_int32, P(C.c_int32), P(H))
for sdt, ddt in itertools.product(WIDE, WIDE):
    if sdt in ALL and ddt in ALL:
        continue  # above
    for lay, x in [("contig", rand_wide([6, 5], sdt)), ("transposed", rand_wide([5, 6], sdt).t())]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # complex to real discards the imaginary part
            with_handles([x], lambda h: run(f"to {sdt}->{ddt} {lay}",
                                            lambda o: fto(h[0], DT[ddt], 0, 0, None, C.byref(o[0])),
                                            lambda: x.to(ddt)))
            dst = torch.zeros(5, 6, dtype=ddt).t()
            counts["cases"] += 1
            hs, hd = to_rt(x), to_rt(dst)
            ref = dst.clone().copy_(x)
            if fcopy(hd, hs, 0) != 0:
                failures.append(f"copy_ {sdt}->{ddt} {lay}: libshimrt failed ({LIB.torch_exception_get_what().decode()})")
            elif not torch.equal(from_rt(hd), ref):
                failures.append(f"copy_ {sdt}->{ddt} {lay}: values differ")
            delete(hs)
            delete(hd)
# values at the ends of the unsigned ranges, and negative values into unsigned types
edges = [torch.tensor([2**64 - 1, 2**63 + 2**40 + 1, 2**53 + 1, 12345, 0], dtype=torch.uint64),
         torch.tensor([4294967295, 2147483648, 16777217, 7, 0], dtype=torch.uint32),
         torch.tensor([65535, 32768, 2049, 7, 0], dtype=torch.uint16),
         torch.tensor([-1, -70000, 2**40 + 3, -(2**63), 2**63 - 1], dtype=torch.int64),
         torch.tensor([-1.0, -3.7, 70000.5, 0.0, 2.0**31], dtype=torch.float64)]
for x, ddt in itertools.product(edges, WIDE):
    with_handles([x], lambda h: run(f"to {x.dtype}->{ddt} edge values",
                                    lambda o: fto(h[0], DT[ddt], 0, 0, None, C.byref(o[0])),
                                    lambda: x.to(ddt)))
for dt in UINTS + CPLX:
    x = rand_wide([4, 6], dt)
    for lay, xv in [("contig", x), ("transposed", x.t()), ("sliced", x[:, ::2])]:
        with_handles([xv], lambda h: run(f"clone {dt} {lay}", lambda o: fclone(h[0], None, C.byref(o[0])),
                                         lambda: xv.clone()))
        with_handles([xv], lambda h: run(f"zeros_like {dt} {lay}",
                                         lambda o: fzl(h[0], None, None, None, -1, None, None, C.byref(o[0])),
                                         lambda: torch.zeros_like(xv)))
ffill = fn("aoti_torch_cpu_fill__Scalar", H, C.c_double)
for dt, v, n in itertools.product(UINTS + CPLX, FVALS + [1.0, 2.5, 4294967295, 4294967296.0, 1.8e19, 65535],
                                  [2, 1]):
    tv = float(v)  # the C shim's double is a floating Scalar (c10::Scalar(double))
    sz = i64s([n])
    dcode = C.c_int32(DT[dt])
    run(f"full [{n}] {dt} {v}", lambda o: ffull(sz, 1, float(v), C.byref(dcode), None, None, -1, None, C.byref(o[0])),
        lambda: torch.full([n], tv, dtype=dt))
    x = torch.zeros(3, n, dtype=dt).t()
    counts["cases"] += 1
    h = to_rt(x)
    rc = ffill(h, float(v))
    try:
        ref, rerr = x.clone().fill_(tv), None
    except Exception as e:
        rerr = e
    if (rc != 0) != (rerr is not None):
        failures.append(f"fill_ {dt} {v}: error mismatch (ours rc={rc}, torch: {rerr})")
    elif rc == 0 and compare(f"fill_ {dt} {v}", from_rt(h), ref):
        failures.append(f"fill_ {dt} {v}: values differ")
    delete(h)

# reductions PyTorch runs on uint16/32/64 as another dtype: sum (int64, or the dtype given),
# mean with a floating dtype, all/any (bool), cumsum/cumprod (int64); others refused alike
fal, fan = fn("aoti_torch_cpu_all", H, P(H)), fn("aoti_torch_cpu_any", H, P(H))
fcs = fn("aoti_torch_cpu_cumsum", H, C.c_int64, P(C.c_int32), P(H))
fcp = fn("aoti_torch_cpu_cumprod", H, C.c_int64, P(C.c_int32), P(H))
for dt in UINTS:
    big = torch.tensor([[2**64 - 1, 2**63 + 5, 3], [7, 0, 2**40]], dtype=torch.uint64).to(dt)
    for lay, x in [("contig", rand_wide([4, 6], dt)), ("transposed", rand_wide([6, 4], dt).t()),
                   ("zeros", torch.zeros(3, 2, dtype=dt)), ("large", big), ("empty", torch.zeros(0, 3, dtype=dt))]:
        for dims, keep, odt in [([0], 0, None), ([1], 1, None), ([], 0, None), ([0], 1, torch.float32),
                                ([1], 0, torch.float64), ([], 1, torch.int32)]:
            pp = C.pointer(i64s(dims))
            pd = C.byref(C.c_int32(DT[odt])) if odt is not None else None
            with_handles([x], lambda h: run(f"sum {dt} {lay} {dims} keep={keep} dtype={odt}",
                                            lambda o: fsd(h[0], C.cast(C.pointer(pp), P(P(C.c_int64))), len(dims), keep, pd, C.byref(o[0])),
                                            lambda: torch.sum(x, dims, keepdim=bool(keep), dtype=odt), loose=True, check_strides=False))
            with_handles([x], lambda h: run(f"mean {dt} {lay} {dims} keep={keep} dtype={odt}",
                                            lambda o: fmean(h[0], C.cast(C.pointer(pp), P(P(C.c_int64))), len(dims), keep, pd, C.byref(o[0])),
                                            lambda: torch.mean(x, dims, keepdim=bool(keep), dtype=odt), loose=True, check_strides=False))
        for name, fr in [("all", fal), ("any", fan)]:
            with_handles([x], lambda h: run(f"{name} {dt} {lay}", lambda o: fr(h[0], C.byref(o[0])),
                                            lambda: getattr(torch, name)(x)))
        for name, fr in [("cumsum", fcs), ("cumprod", fcp)]:
            for d, odt in [(0, None), (1, None), (0, torch.float64), (1, torch.int64)]:
                pd = C.byref(C.c_int32(DT[odt])) if odt is not None else None
                with_handles([x], lambda h: run(f"{name} {dt} {lay} dim={d} dtype={odt}",
                                                lambda o: fr(h[0], d, pd, C.byref(o[0])),
                                                lambda: getattr(torch, name)(x, d, dtype=odt), check_strides=False))
# ---- to.dtype / to.dtype_layout as PyTorch's to_impl: self itself when nothing changes (same
# dtype, no device or self's own (cpu:0 and cpu:1 are not), no copy, memory format preserve
# or the one self suggests), else _to_copy in that format; any CPU device index is taken
A = torch.ops.aten
fto_d = fn("aoti_torch_cpu_to_dtype", H, C.c_int32, C.c_int32, C.c_int32, P(C.c_int32), P(H))
fto_l = fn("aoti_torch_cpu_to_dtype_layout", H, P(C.c_int32), P(C.c_int32), P(C.c_int32), C.c_int32,
           P(C.c_int32), C.c_int32, C.c_int32, P(C.c_int32), P(H))
MF = {None: None, 0: torch.contiguous_format, 1: torch.preserve_format, 2: torch.channels_last,
      3: torch.channels_last_3d}


def data_of(h):
    p = C.c_void_p()
    get_data(h, C.byref(p))
    return p.value


cl4 = rand([2, 3, 4, 5], torch.float32).to(memory_format=torch.channels_last)
for lay, x in [("contig", rand([3, 4], torch.float32)), ("transposed", rand([4, 3], torch.float32).t()),
               ("sliced", rand([3, 8], torch.float32)[:, ::2]), ("channels_last", cl4),
               ("channels_last sliced", cl4[:, :, 1:3]), ("4-d", rand([2, 3, 4, 5], torch.float32)),
               ("cl3d", rand([1, 2, 3, 2, 2], torch.float32).to(memory_format=torch.channels_last_3d))]:
    for mf, copy, dev, dt in itertools.product(MF, (0, 1), (None, -1, 0, 1), (None, torch.float64)):
        label = f"to {lay} memory_format={mf} copy={copy} device=cpu:{dev} dtype={dt}"
        counts["cases"] += 1
        h, o = to_rt(x), H()
        mfp = C.byref(C.c_int32(mf)) if mf is not None else None
        dtp = C.byref(C.c_int32(DT[dt])) if dt is not None else None
        if dev is None:  # to.dtype when a dtype is given, else to.dtype_layout without a device
            rc = (fto_d(h, DT[dt], 0, copy, mfp, C.byref(o)) if dt is not None else
                  fto_l(h, None, None, None, -1, None, 0, copy, mfp, C.byref(o)))
            ref = ((lambda: A.to.dtype(x, dt, False, bool(copy), MF[mf])) if dt is not None else
                   (lambda: A.to.dtype_layout(x, copy=bool(copy), memory_format=MF[mf])))
        else:
            rc = fto_l(h, dtp, None, C.byref(C.c_int32(0)), dev, None, 0, copy, mfp, C.byref(o))
            ref = lambda: A.to.dtype_layout(x, dtype=dt, device=torch.device("cpu", dev) if dev >= 0 else
                                           torch.device("cpu"), copy=bool(copy), memory_format=MF[mf])
        try:
            r, rerr = ref(), None
        except Exception as e:
            r, rerr = None, e
        if rc != 0 or rerr is not None:
            if (rc != 0) != (rerr is not None):
                failures.append(f"{label}: libshimrt {'fails' if rc else 'succeeds'}, PyTorch "
                                f"{'fails' if rerr is not None else 'succeeds'}")
            else:
                counts["both_err"] += 1
        else:
            msg = compare(label, from_rt(o), r, False, True)
            if not msg and (data_of(o) == data_of(h)) != (r.data_ptr() == x.data_ptr()):
                msg = f"aliasing: ours {data_of(o) == data_of(h)}, PyTorch {r.data_ptr() == x.data_ptr()}"
            if msg:
                failures.append(f"{label}: {msg}")
            delete(o)
        delete(h)
fhann = fn("aoti_torch_cpu_hann_window", C.c_int64, P(C.c_int32), P(C.c_int32), P(C.c_int32), C.c_int32,
           P(C.c_int32), P(H))
for n, pin, idx in itertools.product((0, 3), (None, 0, 1), (-1, 0, 1, 7)):
    pinp = C.byref(C.c_int32(pin)) if pin is not None else None
    run(f"hann_window({n}) pin_memory={pin} device=cpu:{idx}",
        lambda o: fhann(n, None, None, C.byref(C.c_int32(0)), idx, pinp, C.byref(o[0])),
        lambda: A.hann_window(n, device=torch.device("cpu", idx) if idx >= 0 else torch.device("cpu"),
                              pin_memory=bool(pin) if pin is not None else None), loose=True)
    run(f"full([{n}]) pin_memory={pin} device=cpu:{idx}",
        lambda o: ffull(i64s([n]), 1, 2.0, None, None, C.byref(C.c_int32(0)), idx, pinp, C.byref(o[0])),
        lambda: A.full([n], 2.0, device=torch.device("cpu", idx) if idx >= 0 else torch.device("cpu"),
                       pin_memory=bool(pin) if pin is not None else None))

# element-wise ops of uint16/32/64 (PyTorch's CPU kernels take mul, eq, ne, bitwise_and/or,
# where, relu, and every op whose result is floating; its promotion refuses them with any
# other integral or bool dtype): results as PyTorch's, refusals with PyTorch's message
def run_msg(label, ours_call, ref_call, loose=False):
    """run(), and when both refuse, PyTorch's message must be in ours"""
    o = [H()]
    rc = ours_call(o)
    if rc == 0:
        delete(o[0])
    ours_msg = LIB.torch_exception_get_what().decode() if rc != 0 else ""
    try:
        ref_call()
        rerr = None
    except Exception as e:
        rerr = str(e).splitlines()[0]
    if rc != 0 and rerr is not None:
        counts["cases"] += 1
        counts["both_err"] += 1
        if rerr not in ours_msg:
            failures.append(f"{label}: message {ours_msg!r} lacks PyTorch's {rerr!r}")
        return
    run(label, ours_call, ref_call, loose)


UPAIRS = [(torch.uint16, torch.uint16), (torch.uint32, torch.uint32), (torch.uint64, torch.uint64),
          (torch.uint16, torch.int32), (torch.uint32, torch.float32), (torch.uint64, torch.float16),
          (torch.uint16, torch.bool), (torch.int64, torch.uint32), (torch.uint16, torch.uint32)]
USHAPES = [([4, 5], [4, 5]), ([2, 3], []), ([], [3]), ([0, 3], [3])]
for name, tf in BINARY.items():
    f = fn(f"aoti_torch_cpu_{name}", H, H, P(H))
    for (da, db), (sa, sb) in itertools.product(UPAIRS, USHAPES):
        for lay, a in [("contig", rand_wide(sa, da))] + ([("transposed", rand_wide(sa[::-1], da).mT)]
                                                         if sa == [4, 5] else []):
            b = rand_wide(sb, db)
            # (div: PyTorch's vectorized and scalar loops round complex division differently,
            # by up to an ulp of the larger part; which loop runs depends on the sizes)
            with_handles([a, b], lambda h: run_msg(f"{name} {da}/{db} {sa}/{sb} {lay}",
                                                   lambda o: f(h[0], h[1], C.byref(o[0])),
                                                   lambda: tf(a, b), loose="div" in name))
for name, tf in UNARY.items():
    f = fn(f"aoti_torch_cpu_{name}", H, P(H))
    for dt in UINTS:
        for lay, x in [("contig", rand_wide([4, 5], dt)), ("transposed", rand_wide([5, 4], dt).t()),
                       ("edges", [e for e in edges if e.dtype == dt][0])]:
            with_handles([x], lambda h: run_msg(f"{name} {dt} {lay}", lambda o: f(h[0], C.byref(o[0])),
                                                lambda: tf(x), loose=True))
fw = fn("aoti_torch_cpu_where_self", H, H, H, P(H))
new_cell = fn("torch_new_stable_ivalue", P(P(C.c_uint64)))
fas = fn("aoti_torch_cpu_add_Scalar", H, C.c_double, C.c_double, P(H))
fpw = fn("aoti_torch_cpu_pow_Tensor_Scalar", H, C.c_double, P(H))
for dt in UINTS:
    c, a, b = rand([3, 4], torch.bool), rand_wide([3, 1], dt), rand_wide([4], dt)
    with_handles([c, a, b], lambda h: run_msg(f"where {dt}", lambda o: fw(h[0], h[1], h[2], C.byref(o[0])),
                                              lambda: torch.where(c, a, b)))
    x = rand_wide([3, 4], dt)
    with_handles([x], lambda h: run_msg(f"add.Scalar {dt} 2.5", lambda o: fas(h[0], 2.5, 1.0, C.byref(o[0])),
                                        lambda: torch.ops.aten.add.Scalar(x, 2.5, 1.0), loose=True))
    fcl = fn("aoti_torch_cpu_clamp", H, P(C.c_double), P(C.c_double), P(H))
    for lo, hi in [(1.5, None), (None, 2.5), (-1.5, 3e4)]:
        plo = C.byref(C.c_double(lo)) if lo is not None else None
        phi = C.byref(C.c_double(hi)) if hi is not None else None
        with_handles([x], lambda h: run_msg(f"clamp {dt} {lo} {hi}", lambda o: fcl(h[0], plo, phi, C.byref(o[0])),
                                            lambda: torch.clamp(x, lo, hi)))
    def opt_int(v):  # a `Scalar?` on the stack: a heap cell holding an int ScalarHandle
        cell, sh = C.POINTER(C.c_uint64)(), H()
        new_scalar_int(v, C.byref(sh))
        new_cell(C.byref(cell))
        cell[0] = sh.value
        return C.cast(cell, C.c_void_p).value

    for lo, hi in [(-5, 30000), (100, 70000), (70000, 80000), (3, -1), (5000, 5)]:
        def ours(o, h, lo=lo, hi=hi):
            st = (C.c_uint64 * 3)()
            nh = H()
            new_handle(h[0], C.byref(nh))
            st[0], st[1], st[2] = nh.value, opt_int(lo), opt_int(hi)
            rc = call_dispatcher(b"aten::clamp", b"", st, ABI)
            if rc == 0:
                o[0].value = st[0]
            return rc
        with_handles([x.t()], lambda h: run_msg(f"clamp {dt} {lo} {hi} (dispatcher)", lambda o: ours(o, h),
                                                lambda: torch.clamp(x.t(), lo, hi)))
    for e, ee in [(2.0, 2.0), (2, 2)]:
        with_handles([x], lambda h: run_msg(f"pow.Tensor_Scalar {dt} {e!r}",
                                            lambda o: disp("pow", "Tensor_Scalar", [h[0], ee], o),
                                            lambda: torch.pow(x, ee), loose=True))
        with_handles([x], lambda h: run_msg(f"eq.Scalar {dt} {e!r}",
                                            lambda o: disp("eq", "Scalar", [h[0], ee], o),
                                            lambda: torch.eq(x, ee)))

# element-wise ops of complex64/128 (add, sub, mul, div, neg, eq, ne, abs, where; the
# others refused as PyTorch refuses them); special values included, division by zero
CPAIRS = [(torch.complex64, torch.complex64), (torch.complex128, torch.complex128),
          (torch.complex64, torch.float64), (torch.int64, torch.complex64), (torch.bool, torch.complex64),
          (torch.complex128, torch.float32), (torch.complex64, torch.uint16)]


def rand_cplx(shape, dt):
    x = rand_wide(shape, dt)
    if dt in CPLX and x.numel() >= 4:
        x.view(-1)[:4] = torch.tensor([complex(math.inf, 1), complex(0, 0), complex(math.nan, 2), complex(-0.0, 3)])
    return x


CBIN = {k: v for k, v in BINARY.items() if "divide" not in k}
for name, tf in CBIN.items():
    f = fn(f"aoti_torch_cpu_{name}", H, H, P(H))
    for (da, db), (sa, sb) in itertools.product(CPAIRS, USHAPES):
        for lay, a in [("contig", rand_cplx(sa, da))] + ([("transposed", rand_cplx(sa[::-1], da).mT)]
                                                         if sa == [4, 5] else []):
            b = rand_cplx(sb, db)
            # (div: PyTorch's vectorized and scalar loops round complex division differently,
            # by up to an ulp of the larger part; which loop runs depends on the sizes)
            with_handles([a, b], lambda h: run_msg(f"{name} {da}/{db} {sa}/{sb} {lay}",
                                                   lambda o: f(h[0], h[1], C.byref(o[0])),
                                                   lambda: tf(a, b), loose="div" in name))
for (da, db), al in itertools.product(CPAIRS[:5], [1, 2, 0.5]):
    a, b = rand_cplx([4, 5], da), rand_cplx([5], db)
    for nm in ["add", "sub"]:
        with_handles([a, b], lambda h: run_msg(f"{nm}.Tensor {da}/{db} alpha={al}",
                                               lambda o: disp(nm, "Tensor", [h[0], h[1], al], o),
                                               lambda: getattr(torch, nm)(a, b, alpha=al)))
for name in ["neg", "abs", "relu"]:
    f = fn(f"aoti_torch_cpu_{name}", H, P(H))
    for dt in CPLX:
        for lay, x in [("contig", rand_cplx([4, 5], dt)), ("transposed", rand_cplx([5, 4], dt).t())]:
            with_handles([x], lambda h: run_msg(f"{name} {dt} {lay}", lambda o: f(h[0], C.byref(o[0])),
                                                lambda: UNARY[name](x)))
for dt in CPLX:
    c, a, b = rand([3, 4], torch.bool), rand_cplx([3, 1], dt), rand_cplx([4], torch.float32)
    with_handles([c, a, b], lambda h: run_msg(f"where {dt}", lambda o: fw(h[0], h[1], h[2], C.byref(o[0])),
                                              lambda: torch.where(c, a, b)))
    x = rand_cplx([3, 4], dt)
    for v in [2, 2.5]:
        with_handles([x], lambda h: run_msg(f"eq.Scalar {dt} {v!r}", lambda o: disp("eq", "Scalar", [h[0], v], o),
                                            lambda: torch.eq(x, v)))
        with_handles([x], lambda h: run_msg(f"add.Scalar {dt} {v!r}", lambda o: fas(h[0], v, 1.0, C.byref(o[0])),
                                            lambda: torch.ops.aten.add.Scalar(x, float(v), 1.0)))

# exp, log, sqrt, tanh, rsqrt and sigmoid of complex64/128 (issue 17 item 8): exp, log, sqrt
# and tanh are glibc's cexp / clog / csqrt / ctanh in PyTorch's loops, rsqrt and sigmoid
# add c10::complex's division: compared bit for bit (signed zeros too). Special parts (inf, NaN, signed zeros, large) included; sizes
# reach both the vectorized and the scalar loop.
def rand_cspecial(shape, dt):
    x = rand_wide(shape, dt) / 30
    sp = [complex(math.inf, 1), complex(-math.inf, 2), complex(1, math.inf), complex(math.nan, 2),
          complex(2, math.nan), complex(0.0, 0.0), complex(-0.0, 0.0), complex(0.0, -0.0),
          complex(-0.0, -0.0), complex(-3, 0.0), complex(-3, -0.0), complex(800, 1), complex(-800, 3),
          complex(1e30, 1e30), complex(1e-30, -1e-30), complex(math.inf, math.nan),
          complex(-math.inf, math.inf), complex(math.nan, math.inf), complex(5, 1e-20)]
    k = min(len(sp), x.numel())
    x.view(-1)[:k] = torch.tensor(sp[:k], dtype=torch.complex128).to(dt)
    return x


DT.update({torch.complex32: 8})
RDT.update({8: torch.complex32})
warnings.filterwarnings("ignore", "ComplexHalf support is experimental")
for name in ["exp", "log", "sqrt", "tanh", "rsqrt", "sigmoid"]:
    f = fn(f"aoti_torch_cpu_{name}", H, P(H))
    x = rand_cspecial([6], torch.complex64).to(torch.complex32)  # refused, PyTorch's message
    with_handles([x], lambda h: run_msg(f"{name} complex32", lambda o: f(h[0], C.byref(o[0])),
                                        lambda: UNARY[name](x)))
    for dt, shape in itertools.product(CPLX, [[4, 5], [37], [300], [7, 9]]):
        for lay, x in [("contig", rand_cspecial(shape, dt))] + ([("transposed", rand_cspecial(shape[::-1], dt).t())]
                                                                 if len(shape) == 2 else []):
            with_handles([x], lambda h: run_msg(f"{name} {dt} {shape} {lay}", lambda o: f(h[0], C.byref(o[0])),
                                                lambda: UNARY[name](x)))
            o = H()  # bit for bit, signed zeros included (NaNs: any NaN)
            if with_handles([x], lambda h: f(h[0], C.byref(o))) == 0:
                ours, ref = torch.view_as_real(from_rt(o)), torch.view_as_real(UNARY[name](x))
                delete(o)
                same = (ours.isnan() & ref.isnan()) | ((ours == ref) & (ours.signbit() == ref.signbit()))
                if not same.all():
                    i = (~same).nonzero()[0].tolist()
                    failures.append(f"{name} {dt} {shape} {lay} bits: at {i[:-1]} of {x[tuple(i[:-1])].item()}: "
                                    f"{ours[tuple(i[:-1])].tolist()} vs {ref[tuple(i[:-1])].tolist()}")

# pow of complex64/128 (issue 17 item 8): PyTorch's special exponents (0 fills 1, 1 copies,
# 0.5 / -0.5 / -1 are sqrt / rsqrt / reciprocal, 2 / 3 / -2 products, whose fused elements
# depend on the loop), else std::pow (glibc's cpow); pow.Tensor_Tensor and pow.Scalar of
# complex tensors; mul.Scalar of complex and uint16/32/64 (mul.Tensor with the Scalar
# wrapped). Compared bit for bit, signed zeros included (NaNs: any NaN).
def bits_equal(label, ours_call, ref):
    o = H()
    if ours_call(o) != 0:
        failures.append(f"{label}: libshimrt failed ({LIB.torch_exception_get_what().decode()})")
        return
    counts["cases"] += 1
    ours = from_rt(o)
    delete(o)
    if ours.dtype != ref.dtype or ours.shape != ref.shape or (ours.numel() > 1 and ours.stride() != ref.stride()):
        failures.append(f"{label}: {ours.dtype} {list(ours.shape)} {ours.stride()} vs "
                        f"{ref.dtype} {list(ref.shape)} {ref.stride()}")
        return
    a, b = (torch.view_as_real(ours), torch.view_as_real(ref)) if ref.is_complex() else (ours, ref)
    if a.is_floating_point():
        same = (a.isnan() & b.isnan()) | ((a == b) & (a.signbit() == b.signbit()))
    else:
        same = a == b
    if not same.all():
        i = (~same).nonzero()[0].tolist()
        failures.append(f"{label} bits: at {i}: {a[tuple(i)].item()} vs {b[tuple(i)].item()}")


fpts = fn("aoti_torch_cpu_pow_Tensor_Scalar", H, C.c_double, P(H))
fptt = fn("aoti_torch_cpu_pow_Tensor_Tensor", H, H, P(H))
fps = fn("aoti_torch_cpu_pow_Scalar", C.c_double, H, P(H))
fms = fn("aoti_torch_cpu_mul_Scalar", H, C.c_double, P(H))
for dt, shape in itertools.product(CPLX, [[4, 5], [37], [300], [7, 9]]):
    for lay, x in [("contig", rand_cspecial(shape, dt)), ("sliced", rand_cspecial([2 * shape[0]] + shape[1:], dt)[::2]),
                   ("expanded", rand_cspecial([1] + shape[1:], dt).expand(shape))] + \
            ([("transposed", rand_cspecial(shape[::-1], dt).t())] if len(shape) == 2 else []):
        for e in [0.0, 1.0, 0.5, -0.5, -1.0, 2.0, -2.0, 2.5, -1.7, 1e-3]:
            with_handles([x], lambda h: bits_equal(f"pow.Tensor_Scalar {dt} {shape} {lay} {e}",
                                                   lambda o: fpts(h[0], e, C.byref(o)),
                                                   torch.ops.aten.pow.Tensor_Scalar(x, e)))
        # (x ** 3: some of PyTorch's scalar-loop products are unfused, not emulated: close)
        with_handles([x], lambda h: run(f"pow.Tensor_Scalar {dt} {shape} {lay} 3", lambda o: fpts(h[0], 3.0, C.byref(o[0])),
                                        lambda: torch.ops.aten.pow.Tensor_Scalar(x, 3.0), loose=True))
        for v in [2.5, -3.0, 1.0, 0.0]:
            with_handles([x], lambda h: bits_equal(f"pow.Scalar {v} {dt} {shape} {lay}",
                                                   lambda o: fps(v, h[0], C.byref(o)),
                                                   torch.ops.aten.pow.Scalar(v, x)))
            with_handles([x], lambda h: bits_equal(f"mul.Scalar {dt} {shape} {lay} {v}",
                                                   lambda o: fms(h[0], v, C.byref(o)),
                                                   torch.ops.aten.mul.Scalar(x, v)))
        y = rand_cspecial(shape, dt).flip(0)
        for other in [y, y.to(torch.float64), y[:1].contiguous(), torch.tensor(1.5 - 2j, dtype=dt)]:
            with_handles([x, other], lambda h: bits_equal(f"pow.Tensor_Tensor {dt}/{other.dtype} {shape} {lay} "
                                                          f"{list(other.shape)}",
                                                          lambda o: fptt(h[0], h[1], C.byref(o)),
                                                          torch.pow(x, other)))
# add.Scalar of float16 / bfloat16: the Scalar read in the half type, then add.Tensor's loops
# (its vector loop fused in float, its scalar loop with the product rounded to the half type)
for dt, n, (v, al) in itertools.product([torch.float16, torch.bfloat16], [7, 40, 70],
                                        [(2.7, 1.0), (-1.3, 2.9), (-3.4e38, 2.0), (-40000.0, 2.0)]):
    x = (torch.randn(n) * 4).to(dt)
    x[-1] = math.inf
    with_handles([x], lambda h: bits_equal(f"add.Scalar {dt} {n} {v} alpha={al}",
                                           lambda o: fas(h[0], v, al, C.byref(o)),
                                           torch.ops.aten.add.Scalar(x, v, al)))
fdiv = fn("aoti_torch_cpu_div_Tensor", H, H, P(H))
for dt, n in itertools.product(CPLX, [1, 2, 3, 5, 8, 9, 17, 33, 37, 70]):
    a, b = torch.randn(2 * n, dtype=dt) * 1e3, torch.randn(2 * n, dtype=dt)
    for lay, x, y in [("contig", a[:n], b[:n]), ("sliced", a[::2], b[::2]), ("bcast", a[:n], b[:1].expand(n)),
                      ("bcast0", a[:1].expand(n), b[:n])]:
        with_handles([x, y], lambda h: bits_equal(f"div {dt} {n} {lay}", lambda o: fdiv(h[0], h[1], C.byref(o)), x / y))
# float/complex to uint32 and uint16 of NaN, inf and out-of-range values: PyTorch's
# contiguous runs convert whole groups of 4 (8 from bfloat16; complex64: all but the last
# group) as 32-bit vector code (0x80000000 out of range), the rest through int64; float to
# uint64 from 2^63 up as GCC's code. Bit for bit, across run lengths and layouts.
SPECIAL = [math.inf, -math.inf, math.nan, 1e30, -1.0, -1e30, 2.0 ** 32, 2.0 ** 31 + 256, -2.0 ** 31 - 1000,
           4e9, 70000.0, -70000.0, 2.0 ** 64, 2.0 ** 63 + 2 ** 11, 1.5]
for sdt, ddt, n in itertools.product([torch.float32, torch.float64, torch.bfloat16, torch.float16,
                                      torch.complex64, torch.complex128],
                                     [torch.uint32, torch.uint16, torch.uint64], [3, 4, 8, 15, 33]):
    if sdt == torch.float16 and ddt != torch.uint16:
        continue  # (float16 holds none of these beyond its range: inf/NaN only)
    v = torch.tensor([SPECIAL[(i * 7) % len(SPECIAL)] for i in range(2 * n)], dtype=torch.float64)
    x2 = v.to(sdt) if not sdt.is_complex else torch.complex(v, v).to(sdt)
    for lay, x in [("contig", x2[:n]), ("sliced", x2[::2])]:
        with_handles([x], lambda h: bits_equal(f"to {sdt}->{ddt} {n} {lay}",
                                               lambda o: fto(h[0], DT[ddt], 0, 0, None, C.byref(o)),
                                               x.to(ddt)))
# add/sub with alpha: a product that overflows beside an opposite inf is NaN where PyTorch's
# loop rounds alpha * b first (runs where b is broadcast: stride 0; the half types' scalar
# loop, also after casting an operand of another dtype) and inf where it fuses
fadd = fn("aoti_torch_cpu_add_Tensor", H, H, C.c_double, P(H))
for dt, n in itertools.product([torch.float32, torch.float64, torch.float16, torch.bfloat16], [5, 6, 13, 31, 45]):
    big = {torch.float32: -3.4e38, torch.float64: -1.7e308}.get(dt, -6e4 if dt == torch.float16 else -3e38)
    a = torch.full((3, n), math.inf, dtype=dt)
    b = torch.full((3, n), big, dtype=dt)
    for lay, x, y in [("bcast-b", a, b[:, :1].expand(3, n)), ("bcast-a", a[:, :1].expand(3, n), b), ("contig", a, b),
                      ("uint16-b", a, torch.full((3, n), 65407).to(torch.uint16)) if dt == torch.float16 else ("row", a, b[:1])]:
        with_handles([x, y], lambda h: bits_equal(f"add.Tensor alpha=2.5 {dt} {n} {lay}",
                                                  lambda o: fadd(h[0], h[1], 2.5, C.byref(o)),
                                                  torch.add(x, y, alpha=2.5)))
# cumprod of complex: c10::complex's product in complex<double> as compiled (fused: an
# overflowing b*d beside a finite a*c gives -inf, not inf - inf); bit for bit
fcp = fn("aoti_torch_cpu_cumprod", H, C.c_int64, P(C.c_int32), P(H))
for dt in CPLX:
    v = torch.tensor([complex(1e200, 1e200), complex(1e200, -1e200), complex(3, 1e-300), complex(-1e155, 1e160),
                      complex(1, math.inf), complex(2, 0.5)], dtype=torch.complex128)
    x = (v * torch.tensor([1, 1, 1, 1, 1, 1])).to(dt).reshape(2, 3)
    for d in (0, 1):
        with_handles([x], lambda h: bits_equal(f"cumprod {dt} dim {d}", lambda o: fcp(h[0], d, None, C.byref(o)),
                                               torch.cumprod(x, d)))
# addmm with alpha/beta so large that a term or beta * c overflows: MKL's order (beta * c,
# then (alpha * a) * b term by term), NaN where inf meets -inf; bit for bit
faddmm = fn("aoti_torch_cpu_addmm", H, H, H, C.c_double, C.c_double, P(H))
for dt, big in [(torch.float32, -3.4e38), (torch.float64, -1.7e308)]:
    for n, k, m in [(3, 2, 2), (2, 3, 4), (1, 2, 3)]:
        s_ = torch.tensor([[3.0] * m], dtype=dt)
        a_ = torch.randn(n, k, dtype=dt) * 10
        b_ = torch.randn(k, m, dtype=dt)
        for al, be in [(big, big), (big, 1.0), (1.0, big)]:
            with_handles([s_, a_, b_], lambda h: bits_equal(f"addmm {dt} {n}x{k}x{m} alpha={al} beta={be}",
                                                            lambda o: faddmm(h[0], h[1], h[2], be, al, C.byref(o)),
                                                            torch.addmm(s_, a_, b_, beta=be, alpha=al)))
# complex64 rounding that depends on PyTorch's loops (measured, pointwise.c): mul by a
# broadcast operand, neg (its vector loop computes 0 - x: the sign of a zero), and a
# composition that divides and multiplies in place (soft_margin_loss_backward: div_ and mul_
# of complex64 fuse fewer products where the output is an input); values that cancel make
# each fused or unfused product visible. Bit for bit.
fmul = fn("aoti_torch_cpu_mul_Tensor", H, H, P(H))
fneg = fn("aoti_torch_cpu_neg", H, P(H))
fsmb = fn("aoti_torch_cpu_soft_margin_loss_backward", H, H, H, C.c_int64, P(H))
aa = 1 + 2 ** -13
for dt, n in itertools.product(CPLX, [1, 2, 5, 6, 8, 10, 13, 21, 33]):
    a = torch.full((2 * n,), complex(aa, aa), dtype=dt) * torch.randn(2 * n, dtype=dt).abs().add(1)
    b = torch.full((2 * n,), complex(aa, aa), dtype=dt)
    for lay, x, y in [("contig", a[:n], b[:n]), ("sliced", a[::2], b[::2]), ("bcast", a[:n], b[:1].expand(n)),
                      ("0-d", a[:n], b[0])]:
        with_handles([x, y], lambda h: bits_equal(f"mul {dt} {n} {lay}", lambda o: fmul(h[0], h[1], C.byref(o)), x * y))
    z = torch.zeros(2 * n, dtype=dt)
    z[1::3] = complex(-0.0, math.nan)
    for lay, x in [("contig", z[:n]), ("sliced", z[::2])]:
        with_handles([x], lambda h: bits_equal(f"neg {dt} {n} {lay}", lambda o: fneg(h[0], C.byref(o)), -x))
for n, red in itertools.product([2, 3, 8, 12, 23, 72], [0, 1]):
    s_ = torch.tensor([complex(-14.125, 4)] * n, dtype=torch.complex64) * (1 + torch.rand(n))
    t_ = torch.full((n,), 4.0)
    g_ = torch.randn(3 * n, dtype=torch.complex64)
    for lay, go in [("contig", g_[:n]), ("sliced", g_[::3]), ("half", torch.randn(n).half())]:
        with_handles([go, s_, t_], lambda h: bits_equal(
            f"soft_margin_loss_backward complex64 {n} {lay} reduction={red}",
            lambda o: fsmb(h[0], h[1], h[2], red, C.byref(o)),
            torch.ops.aten.soft_margin_loss_backward(go, s_, t_, red)))
for dt in UINTS:
    for lay, x in [("contig", rand_wide([4, 5], dt)), ("transposed", rand_wide([5, 4], dt).t())]:
        for v in [3.0, 2.5, -1.0]:
            with_handles([x], lambda h: bits_equal(f"mul.Scalar {dt} {lay} {v}", lambda o: fms(h[0], v, C.byref(o)),
                                                   torch.ops.aten.mul.Scalar(x, v)))
            with_handles([x], lambda h: run_msg(f"pow.Tensor_Scalar {dt} {lay} {v}",  # (float32 pow)
                                                lambda o: fpts(h[0], v, C.byref(o[0])),
                                                lambda: torch.ops.aten.pow.Tensor_Scalar(x, v), loose=True))
            with_handles([x], lambda h: run_msg(f"pow.Scalar {v} {dt} {lay}", lambda o: fps(v, h[0], C.byref(o[0])),
                                                lambda: torch.ops.aten.pow.Scalar(v, x), loose=True))
        for od in [torch.float32, dt, torch.int32]:
            y = torch.randint(0, 4, [4, 5]).to(od)
            with_handles([x, y], lambda h: run_msg(f"pow.Tensor_Tensor {dt}/{od} {lay}",
                                                   lambda o: fptt(h[0], h[1], C.byref(o[0])),
                                                   lambda: torch.pow(x, y), loose=True))

# complex32 element-wise ops (issue 17): PyTorch 2.15's CPU has add, sub, mul, neg, eq, ne,
# abs (to float16) and where for ComplexHalf, computed in complex<float> and rounded to half
# once per c10::complex<Half> operation (add: alpha * other rounded first); it refuses div,
# exp, relu and the others. Compared bit for bit (values that round to half, inf/NaN/-0
# parts, products and sums that overflow half), refusals with PyTorch's message.
def rand_c32(shape, dt):
    if dt == torch.complex32:
        x = (torch.randn(shape, dtype=torch.complex64) * 300).to(torch.complex32)
        sp = [complex(math.inf, 1), complex(0, 0), complex(math.nan, 2), complex(-0.0, -0.0), complex(60000, -3e4),
              complex(1, math.inf)]
        k = min(len(sp), x.numel())
        x.view(-1)[:k] = torch.tensor(sp[:k], dtype=torch.complex64).to(torch.complex32)
        return x
    return rand_cplx(shape, dt) if dt in CPLX else rand_wide(shape, dt) * (1 if dt in UINTS or dt == torch.bool else 7)


C32 = torch.complex32
C32PAIRS = [(C32, C32), (C32, torch.float16), (C32, torch.float32), (torch.int64, C32), (torch.bool, C32),
            (C32, torch.bfloat16), (C32, torch.float64), (torch.float16, torch.complex64),
            (C32, torch.complex64), (C32, torch.uint16), (torch.uint8, C32)]
C32SHAPES = [([4, 5], [4, 5]), ([2, 3], []), ([], [3]), ([0, 3], [3]), ([37], [37]), ([3, 1], [4])]
fadd = fn("aoti_torch_cpu_add_Tensor", H, H, C.c_double, P(H))
fsub = fn("aoti_torch_cpu_sub_Tensor", H, H, C.c_double, P(H))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    C32BIN = {"mul_Tensor": torch.mul, "eq_Tensor": torch.eq, "ne_Tensor": torch.ne, "div_Tensor": torch.div,
              "floor_divide": torch.floor_divide}
    for name, tf in C32BIN.items():
        f = fn(f"aoti_torch_cpu_{name}", H, H, P(H))
        for (da, db), (sa, sb) in itertools.product(C32PAIRS, C32SHAPES):
            for lay, a in [("contig", rand_c32(sa, da))] + ([("transposed", rand_c32(sa[::-1], da).mT)]
                                                            if sa == [4, 5] else []):
                b = rand_c32(sb, db)
                try:
                    ref = tf(a, b)
                except Exception:
                    with_handles([a, b], lambda h: run_msg(f"{name} {da}/{db} {sa}/{sb} {lay}",
                                                           lambda o: f(h[0], h[1], C.byref(o[0])),
                                                           lambda: tf(a, b)))
                    continue
                with_handles([a, b], lambda h: bits_equal(f"{name} {da}/{db} {sa}/{sb} {lay}",
                                                          lambda o: f(h[0], h[1], C.byref(o)), ref))
    for (da, db), al, (sa, sb) in itertools.product(C32PAIRS[:5], [1.0, 2.5, 0.3, -1.7, 100.0, 65519.0],
                                                    C32SHAPES[:3]):
        a, b = rand_c32(sa, da), rand_c32(sb, db)
        for nm, ff in [("add", fadd), ("sub", fsub)]:
            tf = getattr(torch, nm)
            try:
                ref = tf(a, b, alpha=al)
            except Exception:
                with_handles([a, b], lambda h: run_msg(f"{nm} {da}/{db} alpha={al}",
                                                       lambda o: ff(h[0], h[1], al, C.byref(o[0])),
                                                       lambda: tf(a, b, alpha=al)))
                continue
            with_handles([a, b], lambda h: bits_equal(f"{nm} {da}/{db} {sa}/{sb} alpha={al}",
                                                      lambda o: ff(h[0], h[1], al, C.byref(o)), ref))
    for lay, x in [("contig", rand_c32([4, 5], C32)), ("transposed", rand_c32([5, 4], C32).t()),
                   ("sliced", rand_c32([40], C32)[::3])]:
        for name in ["neg", "abs", "relu", "exp", "sqrt", "sigmoid"]:
            f = fn(f"aoti_torch_cpu_{name}", H, P(H))
            try:
                ref = UNARY[name](x)
            except Exception:
                with_handles([x], lambda h: run_msg(f"{name} complex32 {lay}", lambda o: f(h[0], C.byref(o[0])),
                                                    lambda: UNARY[name](x)))
                continue
            with_handles([x], lambda h: bits_equal(f"{name} complex32 {lay}", lambda o: f(h[0], C.byref(o)), ref))
        for v in [2.3, 0.1, -3.0, 1e5, 65519.0]:
            with_handles([x], lambda h: bits_equal(f"mul.Scalar complex32 {lay} {v}", lambda o: fms(h[0], v, C.byref(o)),
                                                   torch.ops.aten.mul.Scalar(x, v)))
            with_handles([x], lambda h: bits_equal(f"add.Scalar complex32 {lay} {v}",
                                                   lambda o: fas(h[0], v, 1.0, C.byref(o)),
                                                   torch.ops.aten.add.Scalar(x, v, 1.0)))
            with_handles([x], lambda h: bits_equal(f"eq.Scalar complex32 {lay} {v}",
                                                   lambda o: disp("eq", "Scalar", [h[0], v], [o]), torch.eq(x, v)))
        c, y = rand([x.shape[-1]], torch.bool), rand_c32(list(x.shape), C32)
        for other in [y, y.to(torch.float16), y.to(torch.complex64)]:
            with_handles([c, x, other], lambda h: bits_equal(f"where complex32/{other.dtype} {lay}",
                                                             lambda o: fw(h[0], h[1], h[2], C.byref(o)),
                                                             torch.where(c, x, other)))
    # mul's NaN signs (PyTorch's fused products, x86's NaN rule): every pair of special parts,
    # compared as raw bits
    sp = [0.0, -0.0, 3.0, -2.0, math.inf, -math.inf, math.nan, -math.nan]
    vals = torch.tensor([complex(r, i) for r in sp for i in sp], dtype=torch.complex64).to(C32)
    xa, xb = vals.repeat_interleave(len(vals)), vals.repeat(len(vals))
    o = H()
    if with_handles([xa, xb], lambda h: fmul(h[0], h[1], C.byref(o))) == 0:
        ours, ref = torch.view_as_real(from_rt(o)).view(torch.int16), torch.view_as_real(xa * xb).view(torch.int16)
        delete(o)
        counts["cases"] += 1
        if not torch.equal(ours, ref):
            k = (ours != ref).any(-1).nonzero()[0].item()
            failures.append(f"mul complex32 NaN bits: {torch.view_as_real(xa[k]).view(torch.int16).tolist()} * "
                            f"{torch.view_as_real(xb[k]).view(torch.int16).tolist()}: "
                            f"{ours[k].tolist()} vs {ref[k].tolist()}")
    # add: the same pairs (alpha * other rounded, then added; a NaN's sign not compared: it
    # follows PyTorch's vector or scalar loop, not emulated)
    for al in [1.0, -2.5, 0.0]:
        with_handles([xa, xb], lambda h: bits_equal(f"add complex32 special parts alpha={al}",
                                                    lambda o: fadd(h[0], h[1], al, C.byref(o)),
                                                    torch.add(xa, xb, alpha=al)))
    # where's layout: an expanded condition keeps its own (bool) strides, self's order wins
    c = rand([2, 1, 1, 2], torch.bool).expand(2, 1, 3, 2)
    for sdt, odt in [(torch.complex64, torch.float32), (C32, torch.float16), (C32, C32)]:
        x, y = rand_c32([2, 1, 2, 3], sdt).transpose(2, 3), rand_c32([2, 1, 1, 2], odt).expand(2, 1, 3, 2)
        with_handles([c, x, y], lambda h: bits_equal(f"where {sdt}/{odt} expanded condition",
                                                     lambda o: fw(h[0], h[1], h[2], C.byref(o)), torch.where(c, x, y)))
    for sdt in [torch.float64, torch.float32, torch.float16, torch.int64, torch.bool, torch.complex64,
                torch.complex128]:  # to(complex32) and back: each part through float
        x = rand_c32([5, 6], sdt)
        if sdt.is_floating_point or sdt.is_complex:
            x.view(-1)[:3] = torch.tensor([1 + 2 ** -11 + 2 ** -40, 65519.0, 65520.0]).to(sdt)
        with_handles([x], lambda h: bits_equal(f"to {sdt}->complex32", lambda o: fto(h[0], DT[C32], 0, 0, None,
                                                                                     C.byref(o)), x.to(C32)))
        y = rand_c32([5, 6], C32)
        with_handles([y], lambda h: bits_equal(f"to complex32->{sdt}", lambda o: fto(h[0], DT[sdt], 0, 0, None,
                                                                                     C.byref(o)), y.to(sdt)))

# replication_pad1d/2d_backward of complex64/128 (issue 17): PyTorch's kernel adds each
# grad_output element into the input element it replicates, in output order, as c10::complex
# (each part in its type): values that round make the order visible; complex32 refused.
frp1 = fn("aoti_torch_cpu_replication_pad1d_backward", H, H, P(C.c_int64), C.c_int64, P(H))
frp2 = fn("aoti_torch_cpu_replication_pad2d_backward", H, H, P(C.c_int64), C.c_int64, P(H))
for dt, (shape, pad) in itertools.product(CPLX, [([2, 3, 5], [4, 3]), ([3, 1], [0, 7]), ([2, 9], [-2, 5]),
                                                  ([2, 3, 4, 5], [3, 2, 4, 1]), ([3, 2, 6], [5, 0, 0, 6])]):
    x = rand_cplx(shape, dt)
    nd = len(pad) // 2
    f = frp1 if nd == 1 else frp2
    tf = torch.ops.aten.replication_pad1d_backward if nd == 1 else torch.ops.aten.replication_pad2d_backward
    osh = list(shape)
    for i in range(nd):
        osh[-1 - i] += pad[2 * i] + pad[2 * i + 1]
    g = (torch.randn(osh, dtype=dt) * torch.logspace(-6, 6, osh[-1], dtype=torch.float64).to(dt))
    pp = (C.c_int64 * len(pad))(*pad)
    for lay, gg in [("contig", g), ("transposed", g.mT.contiguous().mT)]:
        with_handles([gg, x], lambda h: bits_equal(f"replication_pad{nd}d_backward {dt} {shape} {pad} {lay}",
                                                   lambda o: f(h[0], h[1], pp, len(pad), C.byref(o)),
                                                   tf(gg, x, pad)))
# grad_output's sizes are read at self's dim indices (from the start): PyTorch's checks
for gs, xs, pad in [((3, 0), (0,), [0, 0]), ((3, 5), (5,), [0, 0]), ((5,), (2, 5), [0, 0]), ((2, 7), (2, 3), [2, 2]),
                    ((2, 2, 7), (2, 3), [2, 2]), ((2, 7, 3), (2, 3), [2, 2]), ((2,), (2, 3), [2, 2]),
                    ((1, 1, 5, 6), (1, 3, 4), [1, 1, 1, 1]), ((1, 5, 6, 1), (1, 3, 4), [1, 1, 1, 1]),
                    ((0, 2), (0, 2), [0, 0]), ((2, 5), (2, 3), [1, 1])]:
    g, x = torch.randn(gs), torch.randn(xs)
    if gs[0] == 0:  # an empty self of a dtype the kernel lacks: an empty result
        g, x = g.to(torch.uint32), x.to(torch.float32)
    if gs == (2, 5):  # refused with the kernel's name
        g, x = g.to(torch.uint32), x.to(torch.uint32)
    f = frp1 if len(pad) == 2 else frp2
    tf = torch.ops.aten.replication_pad1d_backward if len(pad) == 2 else torch.ops.aten.replication_pad2d_backward
    pp = (C.c_int64 * len(pad))(*pad)
    with_handles([g, x], lambda h: run_msg(f"replication_pad_backward {gs} {xs} {pad}",
                                           lambda o: f(h[0], h[1], pp, len(pad), C.byref(o[0])),
                                           lambda: tf(g, x, pad)))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    x = rand_c32([2, 3, 5], C32)
    g = rand_c32([2, 3, 12], C32)
    pp = (C.c_int64 * 2)(4, 3)
    with_handles([g, x], lambda h: run_msg("replication_pad1d_backward complex32",
                                           lambda o: frp1(h[0], h[1], pp, 2, C.byref(o[0])),
                                           lambda: torch.ops.aten.replication_pad1d_backward(g, x, [4, 3])))
    fpad = fn("aoti_torch_cpu_pad", H, P(C.c_int64), C.c_int64, C.c_char_p, P(C.c_double), P(H))
    for mode in [b"reflect", b"replicate", b"circular"]:
        with_handles([x], lambda h: run_msg(f"pad {mode} complex32", lambda o: fpad(h[0], pp, 2, mode, None,
                                                                                   C.byref(o[0])),
                                            lambda: torch.ops.aten.pad(x, [4, 3], mode.decode())))

for line in failures:
    print("MISMATCH", line)
print(f"oracle: {counts['cases']} cases, {counts['cases'] - len(failures)} agree "
      f"({counts['both_err']} errors in both), {len(failures)} differ")
sys.exit(1 if failures else 0)

"""tests/dropin/aoti_oracle.py: the c_shim_cpu.h functions that AOTInductor CPU graphs call
(issue 19), through libshimrt and through PyTorch 2.15 on the same inputs.

Each function is called with the C signature parsed from the torch wheel's own
c_shim_cpu.h (so a parameter list that differs from PyTorch's shows up as a crash or a
mismatch here, besides tests/scripts/abi_coverage.sh's declaration check). The reference is
the aten op in PyTorch (torch.ops.aten.<op>.<overload>) on the same tensors. Inputs are
contiguous, transposed and sliced where the op takes any strides, in the dtypes the op
takes, with odd shapes (empty, size 1, non-square) and bad inputs (both must fail).
Results must have PyTorch's dtype and shape and equal values (integers and indices
exactly, floats within the dtype's tolerance; products and reductions, whose summation
order differs, at rtol/atol 1e-4 for float32, dtype-scaled for the half types).
Usage: python aoti_oracle.py path/to/libshimrt.so path/to/c_shim_cpu.h [seed] [filter].
"""
import ctypes as C
import os
import random
import re
import sys
import warnings

import torch

# (AOTI_ORACLE_NO_DEEPBIND=1: for a sanitizer build, whose runtime refuses RTLD_DEEPBIND)
LIB = C.CDLL(os.path.abspath(sys.argv[1]), mode=os.RTLD_LOCAL | (
    0 if os.environ.get("AOTI_ORACLE_NO_DEEPBIND") else getattr(os, "RTLD_DEEPBIND", 0)))
HEADER = sys.argv[2]
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else 1234
ONLY = sys.argv[4] if len(sys.argv) > 4 else ""
torch.manual_seed(SEED)
random.seed(SEED)
warnings.filterwarnings("ignore")
H = C.c_void_p
P = C.POINTER
LIB.torch_exception_get_what.restype = C.c_char_p
DT = {torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
      torch.float16: 5, torch.float32: 6, torch.float64: 7, torch.bool: 11, torch.bfloat16: 15}
DT.update({torch.complex64: 9, torch.complex128: 10})  # the FFT results (fft_family)
DT[torch.complex32] = 8  # view_as_complex of float16, polar of float16
RDT = {v: k for k, v in DT.items()}
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
NUMERIC = INTS + FLOATS
TOL = {torch.float32: (1.3e-6, 1e-5), torch.float64: (1e-7, 1e-7),
       torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5)}
TOL[torch.complex64] = (1.3e-6, 1e-5)  # fft_family passes its own, scaled to the signal
TOL[torch.complex128] = (1e-7, 1e-7)  # polar, complex_family
LOOSE = {torch.float32: (1e-4, 1e-4), torch.float64: (1e-7, 1e-7),
         torch.float16: (1e-2, 1e-2), torch.bfloat16: (5e-2, 5e-2)}


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

# ---- the wheel's declarations -> ctypes signatures -------------------------------------------
CTYPE = {"AtenTensorHandle": H, "AtenTensorHandle*": P(H), "const AtenTensorHandle*": P(H),
         "const AtenTensorHandle**": P(P(H)), "int64_t": C.c_int64, "int64_t*": P(C.c_int64),
         "const int64_t*": P(C.c_int64), "const int64_t**": P(P(C.c_int64)),
         "int32_t": C.c_int32, "int32_t*": P(C.c_int32), "const int32_t*": P(C.c_int32),
         "double": C.c_double, "double*": P(C.c_double), "const double*": P(C.c_double),
         "const double**": P(P(C.c_double)), "const char*": C.c_char_p,
         "const char**": P(C.c_char_p)}
DECL = {}
# generated/c_shim_cpu.h, and c/shim_cpu.h beside it (the mkldnn functions, mkldnn_rnn_layer)
_HEADERS = [HEADER, os.path.join(os.path.dirname(HEADER), "..", "c", "shim_cpu.h")]
for m in re.finditer(r"AOTI_TORCH_EXPORT AOTITorchError (aoti_torch_cpu_\w+)\(([^)]*)\);",
                     "".join(open(h).read() for h in _HEADERS if os.path.isfile(h))):
    params = [p.strip() for p in m.group(2).split(",") if p.strip()]
    DECL[m.group(1)] = [(p.rsplit(" ", 1)[0].replace(" *", "*"), p.rsplit(" ", 1)[1])
                        for p in params]


def shim(name):
    """The libshimrt function with the wheel's parameter types (None if not exported)."""
    if not hasattr(LIB, name):
        return None
    f = getattr(LIB, name)
    f.argtypes = [CTYPE[t] for t, _ in DECL[name]]
    f.restype = C.c_int32
    return f


def i64s(xs):
    return (C.c_int64 * max(len(xs), 1))(*xs)


def to_rt(t):
    h = H()
    assert empty_strided(t.dim(), i64s(t.shape), i64s(t.stride()), DT[t.dtype], 0, 0,
                         C.byref(h)) == 0
    if t.numel():
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


def layouts(t):
    """t as contiguous, transposed (last two dims) and sliced inputs with the same values."""
    yield "contig", t
    if t.dim() >= 2:
        yield "transposed", t.transpose(-1, -2).contiguous().transpose(-1, -2)
    if t.dim() >= 1 and t.shape[-1] > 0:
        big = torch.zeros(list(t.shape[:-1]) + [t.shape[-1] * 2], dtype=t.dtype)
        big[..., ::2] = t
        yield "sliced", big[..., ::2]


# ---- argument markers for call() -------------------------------------------------------------
class T:  # a tensor argument (or an out argument: its final value is a result)
    def __init__(self, t, out=False):
        self.t, self.out = t, out


class Opt:  # an optional argument (T, int, float or ScalarType code) or None
    def __init__(self, v):
        self.v = v


class Ret:  # a retN out-pointer
    pass


failures = []
counts = {"cases": 0, "both_err": 0}
ran = {}


def release(hs):
    """Frees the handles call() returned to free."""
    for h in hs:
        if h:
            delete(h)


def begin(name, args, ran_too=False):
    """A case's start: None when ONLY leaves name out; else the case counted (with ran_too,
    the shim's runs too) and call(name, args)'s (results, handles to free)."""
    if ONLY and ONLY not in name:
        return None
    counts["cases"] += 1
    if ran_too:
        ran.setdefault(name, [0, 0])[0] += 1
    return call(name, args)


def call(name, args):
    """Calls the shim with the wheel's types; returns the result handles or an int rc. Also
    returns the handles to free."""
    f = shim(name)
    hs, cargs, rets = [], [], []
    decl = DECL[name]
    i = 0
    for a in args:
        t, _ = decl[i]
        if isinstance(a, T):
            h = to_rt(a.t)
            hs.append(h)
            cargs.append(h)
            if a.out:
                rets.append(h)
        elif isinstance(a, Ret):
            h = H()
            hs.append(h)
            rets.append(h)
            cargs.append(C.byref(h))
        elif isinstance(a, Opt):
            if a.v is None:
                cargs.append(None)
            elif isinstance(a.v, T):
                h = to_rt(a.v.t)
                hs.append(h)
                cargs.append(C.pointer(h))
            else:
                cargs.append(C.pointer(CTYPE[t]._type_(a.v)))
        elif isinstance(a, list) and t == "const AtenTensorHandle**":
            arr = []
            for x in a:
                if x is None:
                    arr.append(None)
                else:
                    h = to_rt(x)
                    hs.append(h)
                    arr.append(C.pointer(h))
            cargs.append((P(H) * max(len(arr), 1))(*arr))
            cargs.append(len(a))
            i += 1
        elif isinstance(a, list) and t == "const AtenTensorHandle*":
            arr = []
            for x in a:
                h = to_rt(x)
                hs.append(h)
                arr.append(h)
            cargs.append((H * max(len(arr), 1))(*arr))
            cargs.append(len(a))
            i += 1
        elif isinstance(a, list):
            base = CTYPE[t]._type_
            cargs.append((base * max(len(a), 1))(*a))
            cargs.append(len(a))
            i += 1
        elif isinstance(a, str):
            cargs.append(a.encode())
        elif isinstance(a, C._Pointer):
            cargs.append(a)
        else:
            cargs.append(a)
        i += 1
    assert i == len(decl), f"{name}: {i} parameters given, the header has {len(decl)}"
    rc = f(*cargs)
    return (rc if rc else rets), hs


def compare(ours, ref, loose):
    if ours.dtype != ref.dtype:
        return f"dtype {ours.dtype} != {ref.dtype}"
    if list(ours.shape) != list(ref.shape):
        return f"shape {list(ours.shape)} != {list(ref.shape)}"
    if ref.dtype == torch.complex32:  # few ops take ComplexHalf: compare its float16 parts
        return compare(torch.view_as_real(ours), torch.view_as_real(ref), loose)
    if ref.dtype in TOL:
        if isinstance(loose, tuple):
            rtol, atol = loose
        else:
            rtol, atol = (LOOSE if loose else TOL)[ref.dtype]
        try:
            torch.testing.assert_close(ours, ref, rtol=rtol, atol=atol, equal_nan=True,
                                       check_stride=False)
        except AssertionError as e:
            return "values: " + " ".join(str(e).split("\n")[1:4])
    elif not torch.equal(ours, ref):
        return f"values differ: {ours.flatten()[:8].tolist()} vs {ref.flatten()[:8].tolist()}"
    return None


def settle(name, label, res, hs, ref, cmp, check=None):
    """The end of a case: the shim's results res (or its int rc) against ref() (a list of
    tensors; raising = PyTorch refuses, libshimrt must fail too), each pair by cmp(ours, ref)
    (None when they agree, else what differs); check(k) -> False skips result k. Frees hs."""
    try:
        if isinstance(res, int):
            got, why = None, LIB.torch_exception_get_what().decode(errors="replace")
        else:
            got, why = [from_rt(h) if not check or check(k) else None
                        for k, h in enumerate(res)], None
        try:
            want, werr = ref(), None
            if isinstance(want, torch.Tensor):
                want = [want]
            want = list(want)
        except Exception as e:
            want, werr = None, (str(e).splitlines() or ["?"])[0]
        if want is None or got is None:
            if want is None and got is None:
                counts["both_err"] += 1
            else:
                failures.append(f"{name} {label}: PyTorch {'fails: ' + werr if werr else 'succeeds'}"
                                f", libshimrt {'fails: ' + why if why else 'succeeds'}")
            return
        ran[name][1] += 1
        for k, (g, w) in enumerate(zip(got, want)):
            if check and not check(k):
                continue
            m = cmp(g, w)
            if m:
                failures.append(f"{name} {label}: result {k}: {m}")
                return
    finally:
        release(hs)


def case(label, name, args, ref, loose=False, check=None):
    """Calls shim `name` with args and compares each result with ref() (a list of tensors;
    raising = PyTorch refuses, libshimrt must fail too). check(k) -> False skips result k."""
    started = begin(name, args, ran_too=True)
    if started is not None:
        settle(name, label, *started, ref, lambda g, w: compare(g, w, loose), check)


A = torch.ops.aten
MM_DT = [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64, torch.int32,
         torch.bool]


def complex_mm_family():
    """mm / bmm / baddbmm / addmm of complex64 and complex128 (OpenBLAS's cgemm / zgemm,
    bmm's own loop below 400 multiply-adds): small-integer parts (exact products), then inf,
    NaN and huge parts, whose results follow MKL's kernels (linalg.c's cplx_mode: measured
    per shape and layout; the fuzzer's shapes stay below 5)."""
    def crand(shape, dt):
        return torch.complex(rand(shape, torch.float64).round(),
                             rand(shape, torch.float64).round()).to(dt)

    specials = [complex(float("inf"), 0), complex(0, float("-inf")), complex(float("nan"), 1),
                complex(3e38, -3e38), complex(2, float("inf"))]
    for dt in (torch.complex64, torch.complex128):
        for (n, k, m) in [(3, 4, 5), (1, 5, 4), (5, 4, 1), (2, 2, 3), (6, 7, 9), (4, 0, 3),
                          (0, 3, 2), (33, 17, 65)]:
            for special in (False, True):
                a0, b0 = crand([n, k], dt), crand([k, m], dt)
                if special and n * k * m:
                    a0.view(-1)[0] = specials[n % 5]
                    b0.view(-1)[-1] = specials[(m + 2) % 5]
                for lay, a in layouts(a0):
                    for layb, b in layouts(b0):
                        tag = f"{dt} {n}x{k}x{m} {lay}/{layb} special={special}"
                        o = torch.zeros(n, m, dtype=dt)
                        case(f"{tag} mm", "aoti_torch_cpu_mm_out", [T(o, True), T(a), T(b)],
                             lambda o=o, a=a, b=b: A.mm.out(a, b, out=o.clone()))
                        b1, b2 = a.unsqueeze(0).expand(2, n, k), b.unsqueeze(0).expand(2, k, m)
                        o3 = torch.zeros(2, n, m, dtype=dt)
                        case(f"{tag} bmm", "aoti_torch_cpu_bmm_out", [T(o3, True), T(b1), T(b2)],
                             lambda o3=o3, b1=b1, b2=b2: A.bmm.out(b1, b2, out=o3.clone()))
                        if special:
                            continue
                        bias = crand([m], dt)
                        case(f"{tag} addmm", "aoti_torch_cpu_addmm_out",
                             [T(o, True), T(bias), T(a), T(b), 0.5, 2.0],
                             lambda o=o, bias=bias, a=a, b=b:
                             A.addmm.out(bias, a, b, beta=0.5, alpha=2.0, out=o.clone()))
                        case(f"{tag} baddbmm", "aoti_torch_cpu_baddbmm_out",
                             [T(o3, True), T(bias), T(b1), T(b2), 0.5, -2.0],
                             lambda o3=o3, bias=bias, b1=b1, b2=b2:
                             A.baddbmm.out(bias, b1, b2, beta=0.5, alpha=-2.0, out=o3.clone()))
        # alpha 0: BLAS reads neither operand, so their inf and NaN stay out of the result
        a, b = crand([3, 4], dt), crand([4, 2], dt)
        a[0, 0], b[1, 1] = complex(float("nan"), 1), complex(0, float("inf"))
        bias, o = crand([2], dt), torch.zeros(3, 2, dtype=dt)
        for beta in (0.0, 1.5):
            case(f"{dt} addmm alpha=0 beta={beta}", "aoti_torch_cpu_addmm_out",
                 [T(o, True), T(bias), T(a), T(b), beta, 0.0],
                 lambda o=o, bias=bias, a=a, b=b, beta=beta:
                 A.addmm.out(bias, a, b, beta=beta, alpha=0.0, out=o.clone()))


def baddbmm_order_family():
    """baddbmm.out's and bmm.out's order (issue 17): PyTorch's meta checks shapes and dtypes (self of
    batch1's dtype, out of batch2's) and leaves out untouched when they fail; it then resizes
    out and copies self into it (beta != 0) before the kernel, whose refusals (bool and
    uint16/32/64 products, a float beta into an integral out over an empty product, alpha or
    beta beyond the opmath type, batch1 of another dtype) leave out resized. Compared: both
    fail or both succeed, and out's shape, strides and values afterwards, on every path of
    the kernel (empty, k == 0, the loop below 400 multiply-adds, MKL's, addmm_ per batch)."""
    name = "aoti_torch_cpu_baddbmm_out"
    dts = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.complex64,
           torch.int64, torch.int32, torch.uint8, torch.bool, torch.uint16, torch.uint32,
           torch.uint64]
    shapes = [(1, 3, 2, 3), (2, 2, 0, 2), (2, 0, 2, 2), (1, 10, 10, 10)]

    def one(label, sdt, b1dt, b2dt, odt, shape, beta=1.0, alpha=1.0, okind="0-d",
            sshape=None, b1shape=None, b2shape=None):
        b, n, k, m = shape
        self_ = rand(sshape if sshape is not None else [n, m], sdt, 0, 4)
        b1 = rand(b1shape if b1shape is not None else [b, n, k], b1dt, 0, 4)
        b2 = rand(b2shape if b2shape is not None else [b, k, m], b2dt, 0, 4)
        if okind == "0-d":
            o = torch.full((), 7).to(odt)
        elif okind == "exact":
            o = torch.full((b, n, m), 7).to(odt)
        else:  # exact shape, not contiguous
            o = torch.full((b, m, n), 7).to(odt).transpose(1, 2)
        started = begin(name, [T(o, True), T(self_), T(b1), T(b2), beta, alpha], ran_too=True)
        if started is None:
            return
        rc, hs = started
        try:
            got = from_rt(hs[0])
            want = o.clone()
            try:
                A.baddbmm.out(self_, b1, b2, beta=beta, alpha=alpha, out=want)
                werr = None
            except Exception as e:
                werr = (str(e).splitlines() or ["?"])[0]
            tag = f"{label} {sdt}/{b1dt}/{b2dt}/{odt} {list(shape)} beta={beta} alpha={alpha} {okind}"
            ours_failed = isinstance(rc, int)
            if ours_failed != (werr is not None):
                why = LIB.torch_exception_get_what().decode(errors="replace") if ours_failed else ""
                failures.append(f"{name} {tag}: PyTorch {'fails: ' + werr if werr else 'succeeds'}"
                                f", libshimrt {'fails: ' + why if ours_failed else 'succeeds'}")
                return
            if ours_failed:
                counts["both_err"] += 1
            else:
                ran[name][1] += 1
            if got.stride() != want.stride():
                failures.append(f"{name} {tag}: out {list(got.shape)} strides {got.stride()}, "
                                f"PyTorch's {list(want.shape)} {want.stride()}")
                return
            if ours_failed and beta == 0 and okind == "0-d" and want.numel() > 1:
                return  # out grown by the resize and left unwritten: its new elements are unset
            m_ = compare(got, want, True)
            if m_:
                failures.append(f"{name} {tag}: out {m_}")
        finally:
            release(hs)

    for dt in dts:
        for shape in shapes:
            for beta in (1.0, 0.0):
                for okind in ("0-d", "exact", "strided"):
                    one("same", dt, dt, dt, dt, shape, beta=beta, okind=okind)
    others = [torch.float32, torch.int64, torch.uint32, torch.bool, torch.complex64,
              torch.float16]
    for a in dts:
        for bdt in others:
            if a == bdt:
                continue
            for shape in shapes:
                one("batch2 of another dtype", a, a, bdt, bdt, shape)
                one("out of batch1's dtype", a, a, bdt, a, shape)
                one("self of another dtype", bdt, a, a, a, shape)
            one("batch2 of another dtype", a, a, bdt, bdt, shapes[3], okind="strided")
    for dt in (torch.float32, torch.int32, torch.uint8, torch.float16, torch.complex64):
        for shape in shapes:
            for beta, alpha in ((1e39, 1.0), (1.0, -1e39), (-1.0, 1.0), (1e10, 2.0),
                                (float("nan"), 1.0), (0.5, float("inf"))):
                one("scalars", dt, dt, dt, dt, shape, beta=beta, alpha=alpha)
    # bmm.out: the same order without self (an empty product of two dtypes gives zeros)
    for a in dts:
        for bdt in (a, torch.float32, torch.int64, torch.uint32):
            for (b, n, k, m) in shapes:
                for okind in ("0-d", "exact", "batches overlap", "rows overlap"):
                    b1, b2 = rand([b, n, k], a, 0, 4), rand([b, k, m], bdt, 0, 4)

                    def make_out(okind=okind, b=b, n=n, m=m, bdt=bdt):
                        if okind == "batches overlap":  # an out whose elements share memory
                            return torch.full((1, n, m), 7).to(bdt).expand(b, n, m)
                        if okind == "rows overlap":
                            return torch.full((b, 1, m), 7).to(bdt).expand(b, n, m)
                        return torch.full(() if okind == "0-d" else (b, n, m), 7).to(bdt)
                    o = make_out()
                    started = begin("aoti_torch_cpu_bmm_out", [T(o, True), T(b1), T(b2)],
                                    ran_too=True)
                    if started is None:
                        continue
                    rc, hs = started
                    got, want = from_rt(hs[0]), make_out()
                    release(hs)
                    try:
                        A.bmm.out(b1, b2, out=want)
                        ok = True
                    except Exception:
                        ok = False
                    tag = f"bmm.out {a}/{bdt} {[b, n, k, m]} {okind}"
                    if ok == isinstance(rc, int):
                        failures.append(f"{tag}: PyTorch {'succeeds' if ok else 'fails'}")
                    elif got.shape != want.shape or got.stride() != want.stride():
                        failures.append(f"{tag}: out {list(got.shape)} {got.stride()}, "
                                        f"PyTorch's {list(want.shape)} {want.stride()}")
                    elif ok and compare(got, want, True):
                        failures.append(f"{tag}: {compare(got, want, True)}")
                    else:
                        ran["aoti_torch_cpu_bmm_out"][1] += ok
    # addbmm: each batch's addmm_ checks alpha and beta in the opmath type
    for dt in (torch.float32, torch.int32, torch.uint8, torch.float16):
        for (b, n, k, m) in ((2, 3, 2, 3), (0, 3, 2, 3), (2, 3, 0, 3), (2, 0, 2, 3)):
            for beta, alpha in ((1e39, 1.0), (1.0, -1e39), (-1.0, 1.0), (1e10, 2.0)):
                x, b1, b2 = rand([n, m], dt, 0, 4), rand([b, n, k], dt, 0, 4), rand([b, k, m], dt, 0, 4)
                case(f"addbmm scalars {dt} {[b, n, k, m]} beta={beta} alpha={alpha}",
                     "aoti_torch_cpu_addbmm", [T(x), T(b1), T(b2), beta, alpha, Ret()],
                     lambda x=x, b1=b1, b2=b2, beta=beta, alpha=alpha:
                     A.addbmm(x, b1, b2, beta=beta, alpha=alpha), loose=True)
    f = torch.float32
    for label, kw in (("self not broadcastable", {"sshape": [2, 3]}),
                      ("self of 4 dims", {"sshape": [1, 1, 3, 3]}),
                      ("batch1 0-d", {"b1shape": []}), ("batch1 1-d", {"b1shape": [3]}),
                      ("batch1 2-d", {"b1shape": [3, 2]}), ("batch1 4-d", {"b1shape": [1, 3, 2, 1]}),
                      ("batch2 2-d", {"b2shape": [2, 3]}), ("batch2 sizes", {"b2shape": [2, 2, 3]}),
                      ("self broadcast", {"sshape": [3, 1]})):
        for odt in (f, torch.float64):
            one(label, f, f, f, odt, (1, 3, 2, 3), **kw)


def mm_family():
    shapes = [(3, 4, 5), (1, 1, 1), (4, 0, 3), (0, 3, 2), (7, 9, 2), (33, 17, 65)]
    for dt in MM_DT:
        for (n, k, m) in shapes:
            a0, b = rand([n, k], dt), rand([k, m], dt)
            for lay, a in layouts(a0):
                tag = f"{dt} {n}x{k}x{m} mat1 {lay}"
                for bshape in ([m], [n, m], [1, m], []):
                    if dt == torch.bool:  # addmm: bool products only when empty (known gap:
                        continue          # addmm with beta=0 over k == 0 bool matrices)
                    bias = rand(bshape, dt)
                    for beta, alpha in ((1.0, 1.0), (0.5, 2.0), (0.0, 1.0), (2.0, -1.0)):
                        # out: exact shape (written in place), empty (resized), wrong dtype
                        for okind in ("exact", "empty", "badtype", "transposed"):
                            if okind == "exact":
                                o = torch.zeros(n, m, dtype=dt)
                            elif okind == "empty":
                                o = torch.empty(0, dtype=dt)
                            elif okind == "transposed":
                                o = torch.zeros(m, n, dtype=dt).t()
                            else:
                                o = torch.zeros(n, m, dtype=torch.float64 if dt != torch.float64
                                                else torch.float32)
                            case(f"{tag} bias {bshape} beta={beta} alpha={alpha} out {okind}",
                                 "aoti_torch_cpu_addmm_out",
                                 [T(o, True), T(bias), T(a), T(b), beta, alpha],
                                 lambda o=o, bias=bias, a=a, b=b, beta=beta, alpha=alpha:
                                 A.addmm.out(bias, a, b, beta=beta, alpha=alpha, out=o.clone()),
                                 loose=True)
                        for gelu in (0, 1):
                            case(f"{tag} bias {bshape} beta={beta} alpha={alpha} gelu={gelu}",
                                 "aoti_torch_cpu__addmm_activation",
                                 [T(bias), T(a), T(b), beta, alpha, gelu, Ret()],
                                 lambda bias=bias, a=a, b=b, beta=beta, alpha=alpha, gelu=gelu:
                                 A._addmm_activation(bias, a, b, beta=beta, alpha=alpha,
                                                     use_gelu=bool(gelu)), loose=True)
                for okind in ("exact", "empty"):
                    o = torch.zeros(n, m, dtype=dt) if okind == "exact" else torch.empty(0, dtype=dt)
                    case(f"{tag} out {okind}", "aoti_torch_cpu_mm_out", [T(o, True), T(a), T(b)],
                         lambda o=o, a=a, b=b: A.mm.out(a, b, out=o.clone()), loose=True)
                v = rand([k], dt)
                for bshape in ([n], [1], []):
                    bias = rand(bshape, dt)
                    for beta, alpha in ((1.0, 1.0), (0.5, 2.0), (0.0, 3.0)):
                        case(f"{tag} vec bias {bshape} beta={beta} alpha={alpha}",
                             "aoti_torch_cpu_addmv", [T(bias), T(a), T(v), beta, alpha, Ret()],
                             lambda bias=bias, a=a, v=v, beta=beta, alpha=alpha:
                             A.addmv(bias, a, v, beta=beta, alpha=alpha), loose=True)
        # bad shapes
        a, b = rand([3, 4], dt), rand([5, 2], dt)
        case(f"{dt} mismatch", "aoti_torch_cpu_mm_out", [T(torch.zeros(3, 2, dtype=dt), True),
                                                         T(a), T(b)],
             lambda: A.mm.out(a, b, out=torch.zeros(3, 2, dtype=dt)))
        case(f"{dt} 3-d", "aoti_torch_cpu_mm_out", [T(torch.zeros(3, 2, dtype=dt), True),
                                                    T(rand([2, 3, 4], dt)), T(b)],
             lambda: A.mm.out(rand([2, 3, 4], dt), b, out=torch.zeros(3, 2, dtype=dt)))
        case(f"{dt} bias shape", "aoti_torch_cpu_addmm_out",
             [T(torch.zeros(3, 2, dtype=dt), True), T(rand([3], dt)), T(a), T(rand([4, 2], dt)), 1.0, 1.0],
             lambda: A.addmm.out(rand([3], dt), a, rand([4, 2], dt),
                                 out=torch.zeros(3, 2, dtype=dt)))
        # beta/alpha beyond the product's opmath type fail only when a product is computed
        for beta, alpha in ((1e300, 1.0), (1.0, -1e300), (4e38, 0.5)):
            for (n, k, m) in ((2, 3, 2), (2, 0, 2), (0, 3, 2)):
                a2, b2, bias2 = rand([n, k], dt), rand([k, m], dt), rand([n, m], dt)
                case(f"{dt} scalars beta={beta} alpha={alpha} {n}x{k}x{m}",
                     "aoti_torch_cpu_addmm_out",
                     [T(torch.zeros(n, m, dtype=dt), True), T(bias2), T(a2), T(b2), beta, alpha],
                     lambda a2=a2, b2=b2, bias2=bias2, n=n, m=m, beta=beta, alpha=alpha:
                     A.addmm.out(bias2, a2, b2, beta=beta, alpha=alpha,
                                 out=torch.zeros(n, m, dtype=dt)), loose=True)
        case(f"{dt} addmv mismatch", "aoti_torch_cpu_addmv",
             [T(rand([3], dt)), T(a), T(rand([5], dt)), 1.0, 1.0, Ret()],
             lambda: A.addmv(rand([3], dt), a, rand([5], dt)))
        # batched
        for (bb, n, k, m) in [(2, 3, 4, 5), (1, 1, 1, 1), (3, 0, 2, 2), (0, 2, 2, 2), (4, 5, 0, 3),
                              (5, 17, 9, 33)]:
            b1, b2 = rand([bb, n, k], dt), rand([bb, k, m], dt)
            for lay, x in layouts(b1):
                tag = f"{dt} {bb}x{n}x{k}x{m} batch1 {lay}"
                for okind in ("exact", "empty"):
                    o = (torch.zeros(bb, n, m, dtype=dt) if okind == "exact"
                         else torch.empty(0, dtype=dt))
                    case(f"{tag} out {okind}", "aoti_torch_cpu_bmm_out",
                         [T(o, True), T(x), T(b2)],
                         lambda o=o, x=x, b2=b2: A.bmm.out(x, b2, out=o.clone()), loose=True)
                    for bshape in ([bb, n, m], [m], [1, n, 1], []):
                        bias = rand(bshape, dt)
                        for beta, alpha in ((1.0, 1.0), (0.5, -2.0), (0.0, 1.0)):
                            case(f"{tag} out {okind} bias {bshape} beta={beta} alpha={alpha}",
                                 "aoti_torch_cpu_baddbmm_out",
                                 [T(o, True), T(bias), T(x), T(b2), beta, alpha],
                                 lambda o=o, bias=bias, x=x, b2=b2, beta=beta, alpha=alpha:
                                 A.baddbmm.out(bias, x, b2, beta=beta, alpha=alpha,
                                               out=o.clone()), loose=True)
                for bshape in ([n, m], [m], []):
                    bias = rand(bshape, dt)
                    for beta, alpha in ((1.0, 1.0), (0.5, -2.0), (0.0, 1.0)):
                        case(f"{tag} bias {bshape} beta={beta} alpha={alpha}",
                             "aoti_torch_cpu_addbmm", [T(bias), T(x), T(b2), beta, alpha, Ret()],
                             lambda bias=bias, x=x, b2=b2, beta=beta, alpha=alpha:
                             A.addbmm(bias, x, b2, beta=beta, alpha=alpha), loose=True)
        case(f"{dt} bmm mismatch", "aoti_torch_cpu_bmm_out",
             [T(torch.zeros(2, 3, 3, dtype=dt), True), T(rand([2, 3, 4], dt)),
              T(rand([3, 4, 3], dt))],
             lambda: A.bmm.out(rand([2, 3, 4], dt), rand([3, 4, 3], dt),
                               out=torch.zeros(2, 3, 3, dtype=dt)))
    # _int_mm.out: int8 x int8 -> int32
    for (n, k, m) in [(17, 8, 9), (32, 16, 8), (1, 8, 1), (5, 40, 3)]:
        a0, b = rand([n, k], torch.int8, -128, 127), rand([k, m], torch.int8, -128, 127)
        for lay, a in layouts(a0):
            for o in (torch.zeros(n, m, dtype=torch.int32), torch.empty(0, dtype=torch.int32),
                      torch.zeros(n, m, dtype=torch.int64)):
                case(f"{n}x{k}x{m} {lay} out {o.dtype} {list(o.shape)}", "aoti_torch_cpu__int_mm_out",
                     [T(o, True), T(a), T(b)],
                     lambda o=o, a=a, b=b: A._int_mm.out(a, b, out=o.clone()))
    a, b = rand([4, 8], torch.int32), rand([8, 4], torch.int8)
    case("int32 self", "aoti_torch_cpu__int_mm_out",
         [T(torch.zeros(4, 4, dtype=torch.int32), True), T(a), T(b)],
         lambda: A._int_mm.out(a, b, out=torch.zeros(4, 4, dtype=torch.int32)))


# (input shape, weight shape, stride, padding, dilation, transposed, output_padding, groups)
CONV_CASES = [
    ([2, 3, 9], [4, 3, 3], [1], [0], [1], 0, [0], 1),
    ([1, 4, 10], [6, 2, 3], [2], [1], [2], 0, [0], 2),
    ([2, 3, 7, 8], [5, 3, 3, 3], [1, 1], [1, 1], [1, 1], 0, [0, 0], 1),
    ([2, 3, 7, 8], [5, 3, 3, 3], [2], [1], [1], 0, [0], 1),
    ([1, 4, 9, 7], [8, 1, 3, 3], [1, 2], [1, 0], [2, 1], 0, [0, 0], 4),
    ([2, 6, 8, 8], [6, 1, 3, 3], [1], [1], [1], 0, [0], 6),
    ([1, 8, 5, 5], [16, 8, 1, 1], [1], [0], [1], 0, [0], 1),
    ([2, 3, 15, 15], [4, 3, 7, 7], [2], [3], [1], 0, [0], 1),
    ([1, 2, 5, 6, 4], [3, 2, 3, 3, 2], [1], [1], [1], 0, [0], 1),
    ([1, 4, 4, 5, 6], [4, 2, 2, 3, 3], [2, 1, 1], [0, 1, 1], [1], 0, [0], 2),
    ([2, 4, 5], [4, 3, 3], [2], [1], [1], 1, [1], 1),
    ([1, 4, 5, 5], [4, 2, 3, 3], [2], [1], [1], 1, [1], 1),
    ([1, 4, 5, 6], [4, 1, 3, 2], [2, 3], [1, 0], [1, 2], 1, [1, 0], 2),
    ([1, 3, 3, 4, 4], [3, 2, 2, 2, 2], [2], [0], [1], 1, [0], 1),
    ([0, 3, 5, 5], [4, 3, 3, 3], [1], [0], [1], 0, [0], 1),
    ([2, 3, 1, 1], [4, 3, 1, 1], [1], [0], [1], 0, [0], 1),
]


def conv_family():
    cases = CONV_CASES
    bad = [
        ([2, 3, 7, 8], [5, 4, 3, 3], [1], [0], [1], 0, [0], 1),   # channels
        ([2, 3, 2, 2], [5, 3, 3, 3], [1], [0], [1], 0, [0], 1),   # kernel too big
        ([3, 7, 8], [5, 3, 3, 3], [1], [0], [1], 0, [0], 1),      # unbatched
        ([2, 3, 7, 8], [5, 3, 3, 3], [0], [0], [1], 0, [0], 1),   # stride 0
        ([2, 3, 7, 8], [5, 3, 3, 3], [1, 1, 1], [0], [1], 0, [0], 1),  # list length
        ([2, 4, 7, 8], [6, 2, 3, 3], [1], [0], [1], 0, [0], 3),   # groups
        ([1, 4, 5, 5], [4, 2, 3, 3], [2], [1], [1], 1, [2], 1),   # output_padding
    ]
    for dt in [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64,
               torch.int32, torch.bool]:
        for k, (xs, ws, st, pd, dl, tr, op, g) in enumerate(cases + bad):
            x0, w0 = rand(xs, dt, -2, 2), rand(ws, dt, -1, 1)
            oc = ws[1] * g if tr else ws[0]
            for bias in (None, rand([oc], dt)):
                lays = [("contig", x0, w0)]
                if len(xs) == 4 and k < len(cases):
                    lays.append(("channels_last", x0.contiguous(memory_format=torch.channels_last), w0))
                    lays.append(("cl_weight", x0, w0.contiguous(memory_format=torch.channels_last)))
                if len(xs) == 5 and k < len(cases):
                    lays.append(("cl3d", x0.contiguous(memory_format=torch.channels_last_3d), w0))
                if k < len(cases):
                    lays.append(("sliced", next(t for n, t in layouts(x0) if n == "sliced"), w0))
                for lay, x, w in lays:
                    def ref(x=x, w=w, bias=bias, st=st, pd=pd, dl=dl, tr=tr, op=op, g=g):
                        r = A.convolution(x, w, bias, st, pd, dl, bool(tr), op, g)
                        return [r]
                    case(f"{dt} #{k} x{xs} w{ws} s{st} p{pd} d{dl} t{tr} op{op} g{g} "
                         f"bias={bias is not None} {lay}", "aoti_torch_cpu_convolution",
                         [T(x), T(w), Opt(None if bias is None else T(bias)), st, pd, dl, tr, op,
                          g, Ret()], ref,
                         loose={torch.float32: (1e-4, 1e-4), torch.float64: (1e-9, 1e-9),
                                torch.bfloat16: (3e-2, 3e-2), torch.float16: (4e-3, 4e-3)}.get(dt, True))
                    if dt == torch.float32 and lay != "sliced" and len(xs) == 4:
                        # the 2-d result's layout follows PyTorch's (channels-last or contiguous)
                        res, hs = call("aoti_torch_cpu_convolution",
                                       [T(x), T(w), Opt(None if bias is None else T(bias)), st, pd,
                                        dl, tr, op, g, Ret()])
                        if not isinstance(res, int):
                            got, want = from_rt(res[0]), ref()[0]
                            if got.numel() > 1 and got.stride() != want.stride():
                                failures.append(f"convolution #{k} {lay}: strides {got.stride()}"
                                                f" != {want.stride()}")
                        release(hs)


def distinct(shape, dt):
    """Values without ties (a permutation), in dt's exact range."""
    n = 1
    for x in shape:
        n *= x
    v = torch.randperm(max(n, 1))[:n].reshape(shape)
    if dt == torch.bool:
        return v % 2 == 0
    if dt in (torch.uint8, torch.int8):
        v = v % 100
    return (v - n // 3).to(dt) if dt != torch.uint8 else v.to(dt)


def line_family():
    shapes = [([5, 7], 1), ([5, 7], 0), ([3, 4, 6], -2), ([9], 0), ([], 0), ([4, 0], 1),
              ([0, 3], 0), ([2, 3, 1], 2)]
    for dt in [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64,
               torch.int32, torch.int8, torch.uint8, torch.bool]:
        for shape, dim in shapes:
            base = distinct(shape, dt) if dt != torch.bool else rand(shape, dt)
            for lay, x in layouts(base):
                tag = f"{dt} {shape} dim={dim} {lay}"
                n = x.shape[dim] if x.dim() else 1
                for k in sorted({0, 1, n // 2, n, n + 1}):
                    for largest in (1, 0):
                        # bool has ties: compare values only
                        case(f"{tag} k={k} largest={largest}", "aoti_torch_cpu_topk",
                             [T(x), k, dim, largest, 1, Ret(), Ret()],
                             lambda x=x, k=k, largest=largest: A.topk(x, k, dim, bool(largest)),
                             check=(lambda r: r == 0) if dt == torch.bool else None)
                    for keep in (0, 1):  # bool: refused but for a 0-d self
                        case(f"{tag} k={k} keepdim={keep}", "aoti_torch_cpu_kthvalue",
                             [T(x), k, dim, keep, Ret(), Ret()],
                             lambda x=x, k=k, keep=keep: A.kthvalue(x, k, dim, bool(keep)))
                case(tag, "aoti_torch_cpu_median", [T(x), Ret()], lambda x=x: A.median(x))
                case(tag, "aoti_torch_cpu_nanmedian", [T(x), Ret()], lambda x=x: A.nanmedian(x))
                y = rand(x.shape, dt, -2, 2)  # ties: the smallest most frequent value
                for keep in (0, 1):
                    case(f"{tag} keepdim={keep}", "aoti_torch_cpu_mode", [T(y), dim, keep, Ret(), Ret()],
                         lambda y=y, keep=keep: A.mode(y, dim, bool(keep)))
                for odt in (None, torch.float64, torch.int64, torch.float16, torch.bool):
                    code = None if odt is None else DT[odt]
                    for name, ref in (("cumsum", A.cumsum), ("cumprod", A.cumprod)):
                        xx = x if name == "cumsum" or dt == torch.bool else (
                            rand(x.shape, dt, -2, 2) if x.numel() else x)
                        case(f"{tag} dtype={odt}", f"aoti_torch_cpu_{name}",
                             [T(xx), dim, Opt(code), Ret()],
                             lambda xx=xx, ref=ref, odt=odt: ref(xx, dim, dtype=odt), loose=True)
                y = rand(x.shape, dt, -3, 3)  # ties on purpose
                for name, ref in (("cummax", A.cummax), ("cummin", A.cummin)):
                    case(tag, f"aoti_torch_cpu_{name}", [T(y), dim, Ret(), Ret()],
                         lambda y=y, ref=ref: ref(y, dim))
                case(tag, "aoti_torch_cpu_logcumsumexp", [T(x), dim, Ret()],
                     lambda x=x: A.logcumsumexp(x, dim), loose=True)
        # bad dims
        x = rand([3, 4], dt)
        case(f"{dt} dim 2", "aoti_torch_cpu_topk", [T(x), 1, 2, 1, 1, Ret(), Ret()],
             lambda x=x: A.topk(x, 1, 2))
        case(f"{dt} dim -3", "aoti_torch_cpu_cumsum", [T(x), -3, Opt(None), Ret()],
             lambda x=x: A.cumsum(x, -3))
        case(f"{dt} k=0", "aoti_torch_cpu_kthvalue", [T(x), 0, 1, 0, Ret(), Ret()],
             lambda x=x: A.kthvalue(x, 0, 1))
    # NaN: ordered above every number
    x = torch.tensor([[1.0, float("nan"), 3.0, -1.0], [float("nan"), 2.0, float("nan"), 0.0]])
    for largest in (1, 0):
        case(f"nan largest={largest}", "aoti_torch_cpu_topk", [T(x), 2, 1, largest, 1, Ret(), Ret()],
             lambda largest=largest: A.topk(x, 2, 1, bool(largest)))
    case("nan", "aoti_torch_cpu_median", [T(x), Ret()], lambda: A.median(x))
    case("nan", "aoti_torch_cpu_nanmedian", [T(x), Ret()], lambda: A.nanmedian(x))
    allnan = torch.full([3], float("nan"))
    case("all nan", "aoti_torch_cpu_nanmedian", [T(allnan), Ret()], lambda: A.nanmedian(allnan))
    case("nan k=3", "aoti_torch_cpu_kthvalue", [T(x[:1]), 3, 1, 0, Ret(), Ret()],
         lambda: A.kthvalue(x[:1], 3, 1))
    for name, ref in (("cummax", A.cummax), ("cummin", A.cummin)):
        case("nan", f"aoti_torch_cpu_{name}", [T(x), 1, Ret(), Ret()], lambda ref=ref: ref(x, 1))
    # ties and NaN: the index (and, unsorted, the order) PyTorch's algorithms give: topk's
    # std::partial_sort (k * 64 <= n) or std::nth_element + std::sort, mode's std::sort,
    # kthvalue's quickselect; short lines (insertion sort) and long ones (introsort)
    for n in (2, 3, 5, 16, 17, 40, 130, 300):
        for dt in (torch.float32, torch.int64, torch.float16):
            x = rand([3, n], dt, -3, 3)
            if dt != torch.int64:
                x[torch.rand(x.shape) < 0.2] = float("nan")
            x[0] = x[0].round()  # a row of few distinct values
            for k in sorted({1, 2, n // 3 or 1, n - 1, n}):
                for largest in (1, 0):
                    for srt in (1, 0):
                        case(f"ties {dt} n={n} k={k} largest={largest} sorted={srt}",
                             "aoti_torch_cpu_topk", [T(x), k, 1, largest, srt, Ret(), Ret()],
                             lambda x=x, k=k, largest=largest, srt=srt:
                             A.topk(x, k, 1, bool(largest), bool(srt)))
                case(f"ties {dt} n={n} k={k}", "aoti_torch_cpu_kthvalue",
                     [T(x), k, 1, 0, Ret(), Ret()], lambda x=x, k=k: A.kthvalue(x, k, 1))
            case(f"ties {dt} n={n}", "aoti_torch_cpu_mode", [T(x), 1, 0, Ret(), Ret()],
                 lambda x=x: A.mode(x, 1))
    inf = torch.tensor([float("-inf"), float("-inf"), 1.0, float("inf"), 2.0])
    case("inf", "aoti_torch_cpu_logcumsumexp", [T(inf), 0, Ret()], lambda: A.logcumsumexp(inf, 0))


# uint16/32/64 and complex (issue 17 item 8): the wide unsigned types and the complex ones
DT.update({torch.uint16: 27, torch.uint32: 28, torch.uint64: 29})
RDT.update({27: torch.uint16, 28: torch.uint32, 29: torch.uint64})
LOOSE.update({torch.complex64: LOOSE[torch.float32], torch.complex128: LOOSE[torch.float64]})


def wide_rand(shape, dt, low=-3, high=3):
    """Random values of a uint16/32/64 (a few near the top of the range) or complex dtype."""
    if dt.is_complex:
        real = {torch.complex64: torch.float32, torch.complex128: torch.float64}[dt]
        return torch.complex(rand(shape, real, low, high), rand(shape, real, low, high))
    v = torch.randint(0, high + 1, shape, dtype=torch.int64)
    top = {torch.uint16: 2**16 - 1, torch.uint32: 2**32 - 1, torch.uint64: 2**63 - 1}[dt]
    v = torch.where(torch.rand(shape) < 0.2, top - v, v)
    return v.to(dt)


RMS_TOL = {torch.complex64: (1.3e-6, 1e-6), torch.complex128: (1e-12, 1e-12)}  # rms_norm
LSE_CPLX = True  # logcumsumexp of complex lines


def wide_line_family():
    """The line functions (sortops.c) over uint16/32/64 and complex64/128: cumsum and cumprod
    (of uint: as int64; of complex: in complex<double>), and where PyTorch's kernel refuses
    them (topk, kthvalue, mode, median, cummax, cummin, logcumsumexp) the 0-d and empty
    tensors it still takes."""
    shapes = [([5, 7], 1), ([5, 7], 0), ([3, 4, 6], -2), ([9], 0), ([], 0), ([4, 0], 1),
              ([0, 3], 0), ([0, 3], 1), ([2, 3, 1], 2)]
    for dt in [torch.uint16, torch.uint32, torch.uint64, torch.complex64, torch.complex128]:
        for shape, dim in shapes:
            for lay, x in layouts(wide_rand(shape, dt)):
                tag = f"{dt} {shape} dim={dim} {lay}"
                for odt in (None, torch.int64, torch.complex128, torch.uint32):
                    code = None if odt is None else DT[odt]
                    for name, ref in (("cumsum", A.cumsum), ("cumprod", A.cumprod)):
                        case(f"{tag} dtype={odt}", f"aoti_torch_cpu_{name}",
                             [T(x), dim, Opt(code), Ret()],
                             lambda x=x, ref=ref, odt=odt: ref(x, dim, dtype=odt), loose=True)
                for name, ref in (("cummax", A.cummax), ("cummin", A.cummin)):
                    case(tag, f"aoti_torch_cpu_{name}", [T(x), dim, Ret(), Ret()],
                         lambda x=x, ref=ref: ref(x, dim))
                if LSE_CPLX or not dt.is_complex or x.dim() == 0 or x.numel() == 0:
                    case(tag, "aoti_torch_cpu_logcumsumexp", [T(x), dim, Ret()],
                         lambda x=x: A.logcumsumexp(x, dim), loose=True)
                for k in (0, 1):
                    case(f"{tag} k={k}", "aoti_torch_cpu_topk", [T(x), k, dim, 1, 1, Ret(), Ret()],
                         lambda x=x, k=k: A.topk(x, k, dim))
                    case(f"{tag} k={k}", "aoti_torch_cpu_kthvalue", [T(x), k, dim, 0, Ret(), Ret()],
                         lambda x=x, k=k: A.kthvalue(x, k, dim))
                case(tag, "aoti_torch_cpu_mode", [T(x), dim, 0, Ret(), Ret()],
                     lambda x=x: A.mode(x, dim))
                case(tag, "aoti_torch_cpu_median", [T(x), Ret()], lambda x=x: A.median(x))
                case(tag, "aoti_torch_cpu_nanmedian", [T(x), Ret()], lambda x=x: A.nanmedian(x))
    WIDE = (torch.uint16, torch.uint32, torch.uint64, torch.complex64)
    # sort / sort.stable (sortops.c; argsort and msort are sort's results) of uint16/32/64 (and
    # of a few engine dtypes, their keys now exact integers):
    # values, indices (ties: few distinct values, some near the top of the range) and the
    # complex refusal; sort (stable false or None) orders the ties of lines longer than 16 as
    # std::sort does.
    for dt in [torch.uint16, torch.uint32, torch.uint64, torch.complex64, torch.int64,
               torch.int8, torch.uint8, torch.bool, torch.float32]:
        for shape, dim in shapes + [([40], 0), ([3, 33], 1), ([33, 2], 0), ([2, 5, 17], -1),
                                    ([300], 0), ([2, 700], 1)]:
            base = wide_rand(shape, dt) if dt in WIDE else rand(shape, dt, -3, 3)
            if dt == torch.int64 and base.numel():  # the extremes (exact keys)
                base.view(-1)[0], base.view(-1)[-1] = -2**63, 2**63 - 1
            if dt == torch.float32 and base.numel() > 2:
                base.view(-1)[:3] = torch.tensor([float("nan"), -0.0, float("inf")])
            if dt == torch.uint64:  # a third above 2^63 (the top bit set)
                top = torch.where(torch.rand(shape) < 0.3, torch.tensor(-2**63), torch.tensor(0))
                base = (base.view(torch.int64) ^ top).view(torch.uint64)
            for lay, x in layouts(base):
                tag = f"{dt} {shape} dim={dim} {lay}"
                for desc in (0, 1):
                    for st in (None, 0, 1):
                        case(f"{tag} desc={desc} stable={st}", "aoti_torch_cpu_sort_stable",
                             [T(x), Opt(st), dim, desc, Ret(), Ret()],
                             lambda x=x, st=st, desc=desc: A.sort.stable(
                                 x, stable=None if st is None else bool(st), dim=dim,
                                 descending=bool(desc)))
                    case(f"{tag} desc={desc}", "aoti_torch_cpu_sort",
                         [T(x), dim, desc, Ret(), Ret()],
                         lambda x=x, desc=desc: A.sort(x, dim, bool(desc)))
    # PyTorch's 1-d ascending sort of >= 32768 integers (not bool) is its radix sort (stable;
    # no uint16/32/64: refused), a line of stride 0 keeps the indices 0, 1, ...
    for dt in (torch.int64, torch.int8, torch.uint16, torch.uint64, torch.bool):
        for n in (32767, 32768):
            x = rand([n], dt, 0, 2) if dt not in WIDE else wide_rand([n], dt, 0, 2)
            big = torch.zeros(2 * n, dtype=dt)
            big[::2] = x
            for lay, y in (("contig", x), ("sliced", big[::2]), ("expanded", x[:1].expand(n))):
                for desc in (0, 1):
                    for st in (None, 1):
                        case(f"{dt} n={n} {lay} desc={desc} stable={st}",
                             "aoti_torch_cpu_sort_stable", [T(y), Opt(st), 0, desc, Ret(), Ret()],
                             lambda y=y, st=st, desc=desc: A.sort.stable(
                                 y, stable=None if st is None else True, dim=0,
                                 descending=bool(desc)))
    # nonzero / nonzero_static (misc.c): complex where either part is nonzero (NaN counts);
    # uint16/32/64 refused but for a 0-d nonzero_static
    for dt in [torch.uint16, torch.uint32, torch.uint64, torch.complex64, torch.complex128]:
        for shape in ([3, 4], [], [0, 3], [2, 3, 4]):
            x = wide_rand(shape, dt, -1, 1)
            if dt.is_complex and x.numel() > 3:
                x.view(-1)[:3] = torch.tensor([complex(0, -0.0), complex(0, float("nan")),
                                               complex(-0.0, 0)])
            for lay, y in layouts(x):
                case(f"{dt} {shape} {lay}", "aoti_torch_cpu_nonzero", [T(y), Ret()],
                     lambda y=y: A.nonzero(y))
                for size, fill in ((0, -1), (3, -7), (30, 2)):
                    case(f"{dt} {shape} {lay} size={size}", "aoti_torch_cpu_nonzero_static",
                         [T(y), size, fill, Ret()],
                         lambda y=y, size=size, fill=fill: A.nonzero_static(y, size=size,
                                                                            fill_value=fill))
    # _fused_rms_norm of complex inputs (misc.c, the composite): rsqrt(mean(x * x) + eps) in the complex
    # type; weights complex or real, of the input's precision or the other one
    for dt in (torch.complex64, torch.complex128):
        for shape, ns in (([2, 3, 4], [4]), ([2, 3, 4], [3, 4]), ([5], [5]), ([0, 4], [4]),
                          ([3, 0], [0]), ([9, 4], [4])):
            x = wide_rand(shape, dt)
            for w in (None, wide_rand(ns, dt), rand(ns, torch.float32), wide_rand(ns, torch.complex128)):
                for eps in (None, 1e-3):
                    case(f"{dt} {shape} {ns} w={None if w is None else w.dtype} eps={eps}",
                         "aoti_torch_cpu__fused_rms_norm",
                         [T(x), ns, Opt(None if w is None else T(w)), Opt(eps), Ret(), Ret()],
                         lambda x=x, w=w, eps=eps: A._fused_rms_norm(x, ns, w, eps), loose=RMS_TOL[dt])
    # hann_window of a complex dtype: PyTorch's dtype check passes, lengths 0 and 1 need no
    # arange (empty, ones), longer ones fail in it
    for dt in (torch.complex32, torch.complex64, torch.complex128):
        for n in (0, 1, 2, 5):
            case(f"{dt} n={n}", "aoti_torch_cpu_hann_window",
                 [n, Opt(DT[dt]), Opt(None), Opt(None), 0, Opt(None), Ret()],
                 lambda n=n, dt=dt: A.hann_window(n, dtype=dt))
    # complex products and sums of values with NaN/inf parts
    sp = torch.tensor([1.5, -0.0, float("nan"), float("inf"), -2.0, 1e30, float("-inf"), 3.0])
    for dt in (torch.complex64, torch.complex128):
        x = torch.complex(sp, sp.flip(0)).to(dt).reshape(2, 4)
        for name, ref in (("cumsum", A.cumsum), ("cumprod", A.cumprod)):
            case(f"specials {dt}", f"aoti_torch_cpu_{name}", [T(x), 1, Opt(None), Ret()],
                 lambda x=x, ref=ref: ref(x, 1))
        # logcumsumexp: NaN parts, equal infinite real parts, runs of -inf, large and tiny
        # differences (log1p's three cases)
        r = torch.tensor([0.5, float("-inf"), float("-inf"), 2.0, float("inf"), float("inf"),
                          -30.0, 1e-9, float("nan"), 3.0, -1.0, 40.0])
        i = torch.tensor([0.25, 1.0, -2.0, 0.0, 0.5, -0.5, 3.0, 1e-9, 0.0, float("nan"), 2.0,
                          -1.0])
        for xs in (torch.complex(r, i), torch.complex(r, i).flip(0),
                   torch.complex(r[:8], i[:8]), wide_rand([4, 30], dt, -40, 40)):
            xs = xs.to(dt)
            case(f"specials {dt} {list(xs.shape)}", "aoti_torch_cpu_logcumsumexp",
                 [T(xs), -1, Ret()], lambda xs=xs: A.logcumsumexp(xs, -1), loose=RMS_TOL[dt])


def sdpa_family():
    name = "aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu"
    tol = {torch.float32: (1e-4, 1e-4), torch.float64: (1e-9, 1e-9),
           torch.bfloat16: (3e-2, 3e-2), torch.float16: (4e-3, 4e-3)}
    for dt in [torch.float32, torch.float64, torch.bfloat16, torch.float16]:
        for (b, hq, hk, l, s, e) in [(2, 3, 3, 5, 6, 4), (1, 4, 2, 7, 7, 8), (1, 1, 1, 1, 1, 1),
                                     (2, 2, 2, 6, 3, 5), (1, 2, 2, 3, 9, 16)]:
            # (empty batches or sequences: PyTorch 2.15's kernel dies of SIGFPE on them)
            q0, k0, v0 = rand([b, hq, l, e], dt, -2, 2), rand([b, hk, s, e], dt, -2, 2), \
                rand([b, hk, s, e], dt, -2, 2)
            masks = [None, rand([l, s], dt, -1, 1), rand([b, 1, l, s], dt, -1, 1)]
            if l and s:
                mm = torch.zeros(l, s, dtype=dt)
                mm[0] = float("-inf")  # a fully masked row
                masks.append(mm)
            for lay, q in layouts(q0):
                # a (B, L, H, E) buffer viewed as (B, H, L, E), as models make them
                kt = k0.transpose(1, 2).contiguous().transpose(1, 2)
                for causal in (0, 1):
                    for mi, mask in enumerate(masks):
                        for sc in (None, 0.3):
                            case(f"{dt} b{b} h{hq}/{hk} l{l} s{s} e{e} q {lay} causal={causal} "
                                 f"mask#{mi} scale={sc}", name,
                                 [T(q), T(kt), T(v0), 0.0, causal,
                                  Opt(None if mask is None else T(mask)), Opt(sc), Ret(), Ret()],
                                 # PyTorch's kernel reads q as if its last dim were dense
                                 # (its front end makes it so; a transposed q gives garbage
                                 # there): the reference gets a dense copy
                                 lambda q=q, kt=kt, v0=v0, causal=causal, mask=mask, sc=sc:
                                 A._scaled_dot_product_flash_attention_for_cpu(
                                     q.contiguous(), kt, v0, 0.0, bool(causal), attn_mask=mask,
                                     scale=sc),
                                 loose=tol[dt])
        q, k = rand([1, 2, 3, 4], dt), rand([1, 2, 5, 4], dt)
        case(f"{dt} dropout", name, [T(q), T(k), T(k), 0.5, 0, Opt(None), Opt(None), Ret(), Ret()],
             lambda: A._scaled_dot_product_flash_attention_for_cpu(q, k, k, 0.5))
        case(f"{dt} bool mask", name, [T(q), T(k), T(k), 0.0, 0, Opt(T(torch.ones(3, 5) > 0)),
                                       Opt(None), Ret(), Ret()],
             lambda: A._scaled_dot_product_flash_attention_for_cpu(
                 q, k, k, attn_mask=torch.ones(3, 5) > 0))
        case(f"{dt} 3-d", name, [T(q[0]), T(k[0]), T(k[0]), 0.0, 0, Opt(None), Opt(None), Ret(),
                                 Ret()],
             lambda: A._scaled_dot_product_flash_attention_for_cpu(q[0], k[0], k[0]))
        case(f"{dt} head size", name, [T(q), T(k[..., :3]), T(k[..., :3]), 0.0, 0, Opt(None),
                                       Opt(None), Ret(), Ret()],
             lambda: A._scaled_dot_product_flash_attention_for_cpu(q, k[..., :3], k[..., :3]))


def adaptive_cases(tag, x, nd, sizes):
    """_adaptive_avg_pool<nd>d and adaptive_max_pool<nd>d of x for each output size."""
    avg, mx = getattr(A, f"_adaptive_avg_pool{nd}d"), getattr(A, f"adaptive_max_pool{nd}d")
    for osz in sizes:
        case(f"{tag} out{osz}", f"aoti_torch_cpu__adaptive_avg_pool{nd}d", [T(x), osz, Ret()],
             lambda x=x, osz=osz: avg(x, osz), loose=True)
        case(f"{tag} out{osz}", f"aoti_torch_cpu_adaptive_max_pool{nd}d",
             [T(x), osz, Ret(), Ret()], lambda x=x, osz=osz: mx(x, osz))


def pool_family():
    for dt in [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64,
               torch.bool]:
        for shape in ([2, 3, 7, 8], [3, 6, 5], [1, 2, 1, 1], [0, 2, 4, 4], [2, 0, 4, 4],
                      [4, 4]):
            base = rand(shape, dt, -5, 5)
            lays = list(layouts(base))
            if len(shape) == 4:
                lays.append(("channels_last", base.contiguous(memory_format=torch.channels_last)))
            for lay, x in lays:
                tag = f"{dt} {shape} {lay}"
                for (k, st, pd, dl, ceil) in [([2], [], [0], [1], 0), ([3, 2], [2, 1], [1, 0],
                                               [1], 1), ([3], [2], [1], [2, 1], 0),
                                              ([2, 3], [3], [1], [1], 1), ([1], [1], [0], [1], 0),
                                              ([3], [1], [2], [1], 0), ([9], [1], [0], [1], 0)]:
                    case(f"{tag} k{k} s{st} p{pd} d{dl} ceil={ceil}",
                         "aoti_torch_cpu_max_pool2d_with_indices",
                         [T(x), k, st, pd, dl, ceil, Ret(), Ret()],
                         lambda x=x, k=k, st=st, pd=pd, dl=dl, ceil=ceil:
                         A.max_pool2d_with_indices(x, k, st, pd, dl, bool(ceil)))
                    for inc in (1, 0):
                        for div in (None, 3):
                            case(f"{tag} k{k} s{st} p{pd} ceil={ceil} include_pad={inc} "
                                 f"divisor={div}", "aoti_torch_cpu_avg_pool2d",
                                 [T(x), k, st, pd, ceil, inc, Opt(div), Ret()],
                                 lambda x=x, k=k, st=st, pd=pd, ceil=ceil, inc=inc, div=div:
                                 A.avg_pool2d(x, k, st, pd, bool(ceil), bool(inc), div),
                                 loose=True)
                adaptive_cases(tag, x, 2, ([1, 1], [3, 4], [7, 8], [5, 3], [0, 2], [10, 11], [2]))
    x = torch.tensor([[[1.0, float("nan"), 3.0], [float("-inf"), float("-inf"), 2.0]]])
    case("nan", "aoti_torch_cpu_max_pool2d_with_indices", [T(x), [2], [1], [0], [1], 0, Ret(),
                                                           Ret()],
         lambda: A.max_pool2d_with_indices(x, [2], [1]))
    y = torch.full([1, 3, 3], float("-inf"))
    case("-inf", "aoti_torch_cpu_max_pool2d_with_indices", [T(y), [2], [1], [1], [1], 0, Ret(),
                                                            Ret()],
         lambda: A.max_pool2d_with_indices(y, [2], [1], [1]))
    # the kernels' dtypes (avg: float, double, int64 and the half types), an empty dilation
    for dt in (torch.int32, torch.int16, torch.uint8, torch.int8):
        x = rand([1, 2, 4, 4], dt, -5, 5)
        case(f"{dt} avg_pool2d", "aoti_torch_cpu_avg_pool2d",
             [T(x), [2], [], [0], 0, 1, Opt(None), Ret()], lambda x=x: A.avg_pool2d(x, [2]))
    case("empty dilation", "aoti_torch_cpu_max_pool2d_with_indices",
         [T(y), [2], [1], [0], [], 0, Ret(), Ret()],
         lambda: A.max_pool2d_with_indices(y, [2], [1], [0], []))


def misc_family():
    ALL = NUMERIC + [torch.bool]
    for dt in ALL:
        for shape in ([3, 4], [5], [], [2, 0, 3], [2, 3, 4]):
            base = rand(shape, dt, -3, 3)
            for lay, x in layouts(base):
                tag = f"{dt} {shape} {lay}"
                for sc in (2.0, -0.5, 0.0, 3.0):
                    case(f"{tag} {sc}", "aoti_torch_cpu_mul_Scalar", [T(x), sc, Ret()],
                         lambda x=x, sc=sc: A.mul.Scalar(x, sc))
                case(tag, "aoti_torch_cpu_nonzero", [T(x), Ret()], lambda x=x: A.nonzero(x))
                for size, fill in ((0, -1), (2, -1), (30, 7)):
                    case(f"{tag} size={size}", "aoti_torch_cpu_nonzero_static",
                         [T(x), size, fill, Ret()],
                         lambda x=x, size=size, fill=fill: A.nonzero_static(x, size=size,
                                                                              fill_value=fill))
                for mshape in (shape, shape[-1:], []):
                    m = rand(mshape, torch.bool)
                    case(f"{tag} mask {mshape}", "aoti_torch_cpu_masked_select",
                         [T(x), T(m), Ret()], lambda x=x, m=m: A.masked_select(x, m))
                    for srcn in (30, 1):
                        src = rand([srcn], dt)
                        case(f"{tag} mask {mshape} source {srcn}", "aoti_torch_cpu_masked_scatter",
                             [T(x), T(m), T(src), Ret()],
                             lambda x=x, m=m, src=src: A.masked_scatter(x, m, src))
                if x.dim():
                    for dim, st, en, step in ((0, None, None, 1), (-1, 1, None, 2), (0, -2, 10, 1),
                                              (0, 5, 2, 1), (-1, -100, -1, 3), (0, 0, 1, 0)):
                        case(f"{tag} dim={dim} {st}:{en}:{step}", "aoti_torch_cpu_slice_Tensor",
                             [T(x), dim, Opt(st), Opt(en), step, Ret()],
                             lambda x=x, dim=dim, st=st, en=en, step=step:
                             A.slice.Tensor(x, dim, st, en, step))
        case(f"{dt} mask dtype", "aoti_torch_cpu_masked_select",
             [T(rand([3], dt)), T(rand([3], torch.uint8, 0, 1)), Ret()],
             lambda: A.masked_select(rand([3], dt), rand([3], torch.uint8, 0, 1)))
        for n in (0, 1, 2, 7, 16):
            case(f"{dt} n={n}", "aoti_torch_cpu_hann_window",
                 [n, Opt(DT[dt]), Opt(None), Opt(None), 0, Opt(None), Ret()],
                 lambda n=n: A.hann_window(n, dtype=dt), loose=True)  # half types: 2 ulp
        if dt != torch.bool:
            seq = torch.sort(rand([9], dt, -6, 6)).values
            for vals in (rand([4, 3], dt, -7, 7), rand([], dt, -7, 7), rand([0], dt)):
                for right in (0, 1):
                    for side in (None, "left", "right"):
                        for oi in (0, 1):
                            case(f"{dt} vals {list(vals.shape)} right={right} side={side} "
                                 f"out_int32={oi}", "aoti_torch_cpu_searchsorted_Tensor",
                                 [T(seq), T(vals), oi, right, Opt(None) if side is None else
                                  C.pointer(C.c_char_p(side.encode())), Opt(None), Ret()],
                                 lambda vals=vals, right=right, side=side, oi=oi: A.searchsorted(
                                     seq, vals, out_int32=bool(oi), right=bool(right), side=side))
                    case(f"{dt} vals {list(vals.shape)} right={right}", "aoti_torch_cpu_bucketize_Tensor",
                         [T(vals), T(seq), 0, right, Ret()],
                         lambda vals=vals, right=right: A.bucketize(vals, seq, right=bool(right)))
            for v in (0.5, -10.0, 3.0):
                case(f"{dt} scalar {v}", "aoti_torch_cpu_searchsorted_Scalar",
                     [T(seq), v, 0, 0, Opt(None), Opt(None), Ret()],
                     lambda v=v: A.searchsorted(seq, v))
            seq2 = torch.sort(rand([3, 5], dt, -6, 6), dim=1).values
            vals2 = rand([3, 4], dt, -7, 7)
            case(f"{dt} 2-d", "aoti_torch_cpu_searchsorted_Tensor",
                 [T(seq2), T(vals2), 0, 1, Opt(None), Opt(None), Ret()],
                 lambda: A.searchsorted(seq2, vals2, right=True))
            un = rand([9], dt, -6, 6)
            srt = torch.argsort(un)
            case(f"{dt} sorter", "aoti_torch_cpu_searchsorted_Tensor",
                 [T(un), T(vals2), 0, 0, Opt(None), Opt(T(srt)), Ret()],
                 lambda: A.searchsorted(un, vals2, sorter=srt))
    # bool: PyTorch's kernel runs on the common dtype (refused only when both are bool and
    # there are values); a bool sequence with a Scalar works
    bseq = torch.tensor([False, False, True, True])
    for sdt, vdt, nv in ((torch.bool, torch.bool, 3), (torch.bool, torch.bool, 0),
                         (torch.bool, torch.int64, 3), (torch.float32, torch.bool, 3),
                         (torch.int32, torch.bool, 3)):
        sq, vals = bseq.to(sdt), torch.tensor([True, False, True][:nv]).to(vdt)
        for right in (0, 1):
            case(f"bool {sdt} {vdt} n={nv} right={right}", "aoti_torch_cpu_searchsorted_Tensor",
                 [T(sq), T(vals), 0, right, Opt(None), Opt(None), Ret()],
                 lambda sq=sq, vals=vals, right=right: A.searchsorted(sq, vals, right=bool(right)))
            case(f"bool {sdt} {vdt} n={nv} right={right}", "aoti_torch_cpu_bucketize_Tensor",
                 [T(vals), T(sq), 0, right, Ret()],
                 lambda sq=sq, vals=vals, right=right: A.bucketize(vals, sq, right=bool(right)))
    # values and boundaries of two integer dtypes: searched in their common dtype (a 0-d
    # int16 255 beside int8 boundaries is int8 -1)
    for seq, vals in ((torch.tensor([-1], dtype=torch.int8), torch.tensor(255, dtype=torch.int16)),
                      (torch.tensor([1, 3, 5], dtype=torch.int32), torch.tensor([2, 4, 9])),
                      (torch.tensor([1, 3, 5]), torch.tensor([2, 300], dtype=torch.int16))):
        case(f"{seq.dtype} {vals.dtype} bucketize", "aoti_torch_cpu_bucketize_Tensor",
             [T(vals), T(seq), 0, 0, Ret()],
             lambda seq=seq, vals=vals: A.bucketize(vals, seq))
    for v in (0.5, 1.0, 0.0):
        case(f"bool scalar {v}", "aoti_torch_cpu_searchsorted_Scalar",
             [T(bseq), v, 0, 0, Opt(None), Opt(None), Ret()], lambda v=v: A.searchsorted(bseq, v))
    for dt in FLOATS:
        # (PyTorch 2.15 accepts a normalized_shape that is not input's trailing dims: untested)
        for shape, ns in (([2, 3, 4], [4]), ([2, 3, 4], [3, 4]), ([5], [5]), ([0, 4], [4])):
            x = rand(shape, dt)
            for w in (None, rand(ns, dt)):
                for eps in (None, 1e-3):
                    case(f"{dt} {shape} {ns} w={w is not None} eps={eps}",
                         "aoti_torch_cpu__fused_rms_norm",
                         [T(x), ns, Opt(None if w is None else T(w)), Opt(eps), Ret(), Ret()],
                         lambda x=x, w=w, eps=eps: A._fused_rms_norm(x, ns, w, eps), loose=True)
        for bins, lo, hi in ((5, 0.0, 0.0), (10, -2.0, 2.0), (3, 1.0, 1.0), (4, 2.0, -2.0),
                             (0, 0.0, 1.0)):
            x = rand([6, 7], dt)
            case(f"{dt} bins={bins} [{lo}, {hi}]", "aoti_torch_cpu_histc", [T(x), bins, lo, hi, Ret()],
                 lambda x=x, bins=bins, lo=lo, hi=hi: A.histc(x, bins, lo, hi))
        # NaN: in the data (the range from the data must be finite) or in the bounds
        xn = rand([6], dt)
        xn[2] = float("nan")
        for lo, hi in ((0.0, 0.0), (-5.0, 5.0), (float("nan"), 1.0), (float("-inf"), 1.0)):
            case(f"{dt} nan data [{lo}, {hi}]", "aoti_torch_cpu_histc", [T(xn), 4, lo, hi, Ret()],
                 lambda xn=xn, lo=lo, hi=hi: A.histc(xn, 4, lo, hi))
    for dt in (torch.int64, torch.int32, torch.int16, torch.uint8, torch.int8, torch.bool,
               torch.float32):
        for r in (torch.tensor([1, 0, 3, 2]), torch.tensor([], dtype=torch.int64),
                  torch.tensor([2, -1]), torch.tensor([[1, 2]]), torch.tensor(2)):
            r = r.to(dt)
            for osz in (None, int(r.clamp(min=0).sum()), 99):
                case(f"{dt} {r.tolist()} output_size={osz}", "aoti_torch_cpu_repeat_interleave_Tensor",
                     [T(r), Opt(osz), Ret()],
                     lambda r=r, osz=osz: A.repeat_interleave.Tensor(r, output_size=osz))
    for da in INTS + [torch.bool, torch.float32]:
        for db in (torch.int64, torch.int8, da):
            a, b = rand([4, 5], da, -30, 30), rand([5], db, -30, 30)
            case(f"{da} {db}", "aoti_torch_cpu_gcd", [T(a), T(b), Ret()], lambda a=a, b=b: A.gcd(a, b))
    # a 0-d other of a wider dtype converts (wrapping) to self's before the abs
    for da in (torch.int8, torch.uint8, torch.int16, torch.int32):
        for v in (2 ** 63 - 1, -2 ** 63, 2 ** 31 + 6, 255, -129):
            a, b = torch.tensor([0, 6, -3, 12], dtype=da), torch.tensor(v)
            case(f"{da} 0-d int64 {v}", "aoti_torch_cpu_gcd", [T(a), T(b), Ret()],
                 lambda a=a, b=b: A.gcd(a, b))


def index_family():
    L = lambda *v: torch.tensor(v, dtype=torch.int64)  # noqa: E731
    for dt in NUMERIC + [torch.bool]:
        base = rand([4, 5, 6], dt)
        for lay, x in layouts(base):
            for k, idx in enumerate([
                    [L(0, 3, -1)],
                    [None, L(1, 4)],
                    [L(0, 1), L(2, 3)],
                    [L(0, 1), None, L(2, 3)],          # not adjacent: B first
                    [None, L([1, 2], [3, 0]), L(5)],   # broadcast [2, 2] x [1]
                    [rand([4], torch.bool)],
                    [None, rand([5, 6], torch.bool)],
                    [L(0).to(torch.int32), None, L(1, 2).to(torch.int32)],
                    [L(4)],                            # out of range
                    [L(0), L(1), L(2), L(3)],          # too many
                    [L(0, 1), L(0, 1, 2)],             # cannot broadcast
                    [rand([3], torch.bool)],           # mask shape
                    [torch.tensor([0.5])],             # float index
            ]):
                tag = f"{dt} {lay} indices#{k}"
                case(tag, "aoti_torch_cpu_index_Tensor", [T(x), idx, Ret()],
                     lambda x=x, idx=idx: A.index.Tensor(x, idx))
                try:
                    rshape = list(A.index.Tensor(base, idx).shape)
                except Exception:
                    rshape = [1]
                uniq = k not in (4,)  # (#4 writes some positions twice)
                for vshape in (rshape, rshape[-1:], []):
                    v = rand(vshape, dt)
                    for acc in ((0, 1) if dt != torch.bool else (0,)):
                        if not acc and not uniq:
                            continue
                        case(f"{tag} values {vshape} accumulate={acc}", "aoti_torch_cpu_index_put",
                             [T(x), idx, T(v), acc, Ret()],
                             lambda x=x, idx=idx, v=v, acc=acc: A.index_put(x, idx, v, bool(acc)),
                             loose=True)
        case(f"{dt} values dtype", "aoti_torch_cpu_index_put",
             [T(base), [L(0)], T(rand([5, 6], torch.float64 if dt != torch.float64 else
                                      torch.float32)), 0, Ret()],
             lambda: A.index_put(base, [L(0)], rand([5, 6], torch.float64 if dt != torch.float64
                                                  else torch.float32)))

    index_quirks()


def exact(ours, ref):
    """compare() with strides (where there are elements) and bit-equal values."""
    why = compare(ours, ref, False)
    if why is None and ref.numel() and ours.stride() != ref.stride():
        why = f"strides {ours.stride()} != {ref.stride()}"
    if why is None and ref.numel() and ref.dtype.is_floating_point:
        if not torch.equal(ours.contiguous().view(torch.uint8), ref.contiguous().view(torch.uint8)):
            why = "values differ in their bits"
    return why


def index_quirks():
    """PyTorch 2.15's advanced indexing where it is not NumPy's (runtime/cpu/advindex.c),
    compared with strides and bits: the result's TensorIterator layout, indices checked only
    when read, masks and None past the last dim, index_put's masked_fill_ path, the order
    repeated indices are written and accumulated in."""
    L = lambda *v: torch.tensor(v, dtype=torch.int64)  # noqa: E731
    B = lambda *v: torch.tensor(v, dtype=torch.bool)  # noqa: E731
    f = rand([3, 4, 5], torch.float32)
    ft = f.transpose(0, 2)  # [5, 4, 3], not contiguous
    m34 = B([1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 0, 0])
    gets = [
        ("transposed self", ft, [L(1, 0, 4)]),
        ("transposed index", f, [L([0, 1], [2, 0]).t()]),
        ("not adjacent", ft, [L(1, 2), None, L(0, 2)]),
        ("0-dim mask", f, [torch.tensor(True), L(2, 0)]),
        ("None past a mask", f[0], [m34, None]),
        ("out of range, empty result", torch.zeros(3, 0), [L(7)]),
        ("size-0 dim", torch.zeros(0, 3), [L(0)]),
        ("all None, empty self", torch.zeros(1, 1, 0), [None]),
        ("all None", f, [None]),
        ("no index", f, []),
        ("int32 expanded", f, [torch.tensor([[1], [2]], dtype=torch.int32), L(0, 3, 1)]),
        ("uint8 mask", f, [torch.tensor([1, 0, 1], dtype=torch.uint8)]),
        ("mask past self", f[0], [None, m34]),
    ]
    for tag, x, idx in gets:
        started = begin("aoti_torch_cpu_index_Tensor", [T(x), idx, Ret()], ran_too=True)
        if started is not None:
            settle("aoti_torch_cpu_index_Tensor", "quirk: " + tag, *started,
                   lambda x=x, idx=idx: [A.index.Tensor(x, idx)], exact)
    u8 = torch.tensor([1, 0, 1], dtype=torch.uint8)
    dup = L(0, 2, 0, 0, 2, 1)
    puts = [
        ("masked_fill path, other dtype", f, [B(1, 0, 1)], torch.tensor(-7, dtype=torch.int64), 0),
        ("masked_fill path, [1, 1] value", f, [None, B(0, 1, 1, 0)], torch.full([1, 1], 2.5), 0),
        ("masked_fill path, uint8 mask", f, [u8], torch.tensor(1.0), 0),
        ("masked_fill path, overflow", f.to(torch.uint8), [B(1, 0, 1)], torch.tensor(300.0), 0),
        ("masked_fill path, complex", f, [B(1, 0, 1)], torch.tensor(1 + 2j), 0),
        ("masked_fill path, None after the mask", f, [m34.any(1), None], torch.tensor(4.0), 0),
        ("masked_fill path, all None", f, [None], torch.tensor(4.0), 0),
        ("accumulate repeated, float32", f, [dup], rand([6, 4, 5], torch.float32) * 1e7, 1),
        ("accumulate repeated, transposed", ft, [None, L(3, 3, 1)],
         rand([5, 3, 3], torch.float32) * 1e7, 1),
        ("accumulate int64 wraps", L(2 ** 63 - 1, 5), [L(0, 0)], L(3, 4), 1),
        ("accumulate float16", f.half(), [dup], rand([6, 4, 5], torch.float16), 1),
        ("last write wins", ft, [L(4, 4, 0)], rand([3, 4, 3], torch.float32), 0),
        # transposed values: PyTorch visits the index positions column by column
        ("last write wins, values transposed", f, [L([0, 2], [2, 0])],
         rand([2, 2, 4, 5], torch.float32).transpose(0, 1), 0),
        ("accumulate, values transposed", f, [L([0, 2], [2, 2])],
         rand([2, 2, 4, 5], torch.float32).transpose(0, 1) * 1e7, 1),
        ("uint16", torch.zeros(3, dtype=torch.uint16), [L(0)], torch.ones(1, dtype=torch.uint16), 0),
        ("value of another shape", f, [dup], rand([2, 4, 5], torch.float32), 0),
    ]
    for tag, x, idx, v, acc in puts:
        started = begin("aoti_torch_cpu_index_put", [T(x), idx, T(v), acc, Ret()], ran_too=True)
        if started is not None:
            settle("aoti_torch_cpu_index_put", "quirk: " + tag, *started,
                   lambda x=x, idx=idx, v=v, acc=acc: [A.index_put(x, idx, v, bool(acc))], exact)


def bag_family():
    for name in ("aoti_torch_cpu__embedding_bag", "aoti_torch_cpu__embedding_bag_forward_only"):
        ref_op = A._embedding_bag if name.endswith("_bag") else A._embedding_bag_forward_only
        for dt in FLOATS + [torch.int64]:
            w = rand([10, 3], dt)
            for idt in (torch.int64, torch.int32):
                i = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0], dtype=idt)
                # (offsets not starting at 0 or decreasing: PyTorch 2.15 reads out of bounds)
                for offs in ([0, 4], [0, 4, 4, 9], [0], [0, 9]):
                    for mode in (0, 1, 2):
                        for last in (0, 1):
                            # include_last_offset: offsets end with len(indices), as documented
                            o = torch.tensor(offs + [9] if last else offs, dtype=idt)
                            for pad in (-1, 2):
                                for psw in ((None, rand([9], dt)) if mode == 0 else (None,)):
                                    case(f"{dt} {idt} offsets={offs} mode={mode} last={last} "
                                         f"pad={pad} psw={psw is not None}", name,
                                         [T(w), T(i), T(o), 0, mode, 0,
                                          Opt(None if psw is None else T(psw)), last, pad,
                                          Ret(), Ret(), Ret(), Ret()],
                                         lambda w=w, i=i, o=o, mode=mode, last=last, pad=pad,
                                         psw=psw, ref_op=ref_op: ref_op(
                                             w, i, o, False, mode, False, psw, bool(last), pad),
                                         loose=True, check=lambda k: k == 0)
    # (results 1-3, offset2bag / bag_size / max_indices, serve only the backward: compared
    # for the bag output only)
            bad = torch.tensor([1, 12])
            case(f"{dt} index out of range", name,
                 [T(w), T(bad), T(torch.tensor([0])), 0, 0, 0, Opt(None), 0, -1, Ret(), Ret(),
                  Ret(), Ret()],
                 lambda w=w, bad=bad, ref_op=ref_op: ref_op(w, bad, torch.tensor([0])))


def pow_family():
    for da in NUMERIC + [torch.bool]:
        for db in (da, torch.int64, torch.float32, torch.float64):
            for sa, sb in (([3, 4], [3, 4]), ([3, 4], [4]), ([2, 1], []), ([0, 2], [2])):
                a = rand(sa, da, -3, 3)
                b = rand(sb, db, 0, 3) if db not in FLOATS else rand(sb, db, -2, 2)
                if da in FLOATS:
                    a = a.abs() + 0.5 if da != torch.bool else a
                case(f"{da} {sa} ** {db} {sb}", "aoti_torch_cpu_pow_Tensor_Tensor",
                     [T(a), T(b), Ret()], lambda a=a, b=b: A.pow.Tensor_Tensor(a, b), loose=True)
        neg = rand([4], da, -3, -1) if da not in (torch.uint8, torch.bool) else rand([4], da)
        nb = rand([4], da, -2, 2)
        case(f"{da} negative exponent", "aoti_torch_cpu_pow_Tensor_Tensor",
             [T(nb), T(neg), Ret()],
             lambda nb=nb, neg=neg: A.pow.Tensor_Tensor(nb, neg), loose=True)
        for base in (2.0, 0.5, -1.5, 0.0):
            e = rand([3, 2], da, 0, 3)
            case(f"{base} ** {da}", "aoti_torch_cpu_pow_Scalar", [base, T(e), Ret()],
                 lambda base=base, e=e: A.pow.Scalar(base, e), loose=True)


def quant_dist_family():
    for dt in (torch.float32, torch.bfloat16, torch.float16, torch.float64):
        # (PyTorch 2.15's bfloat16/float16 int8pack kernel dies of SIGSEGV on these shapes:
        # only float32 and the refused float64 are compared)
        for (m, k, n) in ((3, 8, 5), (1, 16, 1), (7, 32, 9), (0, 8, 4)):
            if dt in (torch.bfloat16, torch.float16):
                continue
            a, b = rand([m, k], dt), rand([n, k], torch.int8, -128, 127)
            sc = rand([n], dt, 0, 1)
            for lay, x in layouts(a):
                case(f"{dt} {m}x{k}x{n} {lay}", "aoti_torch_cpu__weight_int8pack_mm",
                     [T(x), T(b), T(sc), Ret()],
                     lambda x=x, b=b, sc=sc: A._weight_int8pack_mm(x, b, sc),
                     loose={torch.float32: (1e-4, 1e-3), torch.float64: (1e-6, 1e-6),
                            torch.bfloat16: (3e-2, 3e-1), torch.float16: (4e-3, 1e-1)}[dt])
        case(f"{dt} int32 weight", "aoti_torch_cpu__weight_int8pack_mm",
             [T(rand([2, 4], dt)), T(rand([3, 4], torch.int32)), T(rand([3], dt)), Ret()],
             lambda: A._weight_int8pack_mm(rand([2, 4], dt), rand([3, 4], torch.int32),
                                           rand([3], dt)))
        for s1, s2 in (([5, 3], [4, 3]), ([2, 5, 3], [2, 4, 3]), ([2, 1, 5, 3], [3, 4, 3]),
                       ([0, 3], [4, 3]), ([5, 3], [4, 2])):
            x1, x2 = rand(s1, dt), rand(s2, dt)
            for p in (2.0, 1.0, 0.0, 3.0, float("inf"), -1.0, float("nan")):
                for cm in (None, 2):
                    case(f"{dt} {s1} {s2} p={p} mode={cm}", "aoti_torch_cpu__cdist_forward",
                         [T(x1), T(x2), p, Opt(cm), Ret()],
                         lambda x1=x1, x2=x2, p=p, cm=cm: A._cdist_forward(x1, x2, p, cm),
                         loose=True)


def scatter_value_family():
    for dt in NUMERIC + [torch.bool]:
        for shape, dim, ishape in (([5, 4], 0, [3, 4]), ([5, 4], 1, [5, 2]), ([6], 0, [9]),
                                   ([4, 3], 0, [0, 3])):
            x = rand(shape, dt)
            idx = torch.randint(0, shape[dim], ishape)
            for v in (2.0, -1.5, 0.0):
                for okind in ("like", "empty"):
                    o = torch.zeros_like(x) if okind == "like" else torch.empty(0, dtype=dt)
                    case(f"{dt} {shape} dim={dim} value={v} out {okind}",
                         "aoti_torch_cpu_scatter_value_out", [T(o, True), T(x), dim, T(idx), v],
                         lambda o=o, x=x, dim=dim, idx=idx, v=v:
                         A.scatter.value_out(x, dim, idx, v, out=o.clone()))
        bad = torch.tensor([[7]])
        case(f"{dt} index out of range", "aoti_torch_cpu_scatter_value_out",
             [T(torch.zeros(5, 4, dtype=dt), True), T(rand([5, 4], dt)), 0, T(bad), 1.0],
             lambda: A.scatter.value_out(rand([5, 4], dt), 0, bad, 1.0,
                                         out=torch.zeros(5, 4, dtype=dt)))


is_defined = fn("aoti_torch_is_defined", H, P(C.c_bool))


def rnn_family():
    """mkldnn_rnn_layer (the LSTM layer of nn.LSTM) against PyTorch's oneDNN kernel, grad
    mode off as in a compiled graph (its workspace is then undefined). PyTorch reads input,
    hx and cx by their data pointers as dense [T, N, I] / [N, H] (a strided input gives
    garbage there): inputs are contiguous, hx/cx also as an expanded [1, N, H] (stride 0,
    as AOTInductor passes them). float16: compared only where PyTorch's oneDNN has an f16
    LSTM on this CPU. Not compared: a batch of 0 and a hidden_size that disagrees with the
    weights (PyTorch 2.15 dies or corrupts its heap; libshimrt refuses them)."""
    name = "aoti_torch_cpu_mkldnn_rnn_layer"
    if ONLY and ONLY not in name:
        return
    rnn = A.mkldnn_rnn_layer

    def ref(*a):
        with torch.no_grad():
            return list(rnn(*a))[:3]

    def ws_undefined(res):
        d = C.c_bool(True)
        return is_defined(res[3], C.byref(d)) == 0 and not d.value

    for dt in (torch.float32, torch.bfloat16, torch.float16):
        tol = {torch.float32: (1e-4, 1e-4), torch.bfloat16: (3e-2, 3e-2),
               torch.float16: (4e-3, 4e-3)}[dt]
        for T_, N, I, Hd in ((5, 3, 7, 6), (1, 1, 1, 1), (9, 2, 17, 5), (3, 4, 4, 32),
                             (0, 2, 3, 4)):
            x = rand([T_, N, I], dt, -1, 1)
            w0, w1 = rand([4 * Hd, I], dt, -0.5, 0.5), rand([4 * Hd, Hd], dt, -0.5, 0.5)
            b0, b1 = rand([4 * Hd], dt, -0.5, 0.5), rand([4 * Hd], dt, -0.5, 0.5)
            for hshape in ([1, N, Hd], [N, Hd], "expanded"):
                if hshape == "expanded":
                    hx = rand([1, 1, N, Hd], dt, -1, 1)[0].expand(1, N, Hd)
                    cx = rand([1, 1, N, Hd], dt, -1, 1)[0].expand(1, N, Hd)
                else:
                    hx, cx = rand(hshape, dt, -1, 1), rand(hshape, dt, -1, 1)
                for rev in (False, True):
                    for hb in (True, False):
                        for bf in (False, True):
                            args = (x, w0, w1, b0, b1, hx, cx, rev, [], 2, Hd, 1, hb, False,
                                    bf, False)
                            if dt == torch.float16:
                                try:
                                    ref(*args)
                                except RuntimeError:
                                    continue
                            case(f"{dt} T={T_} N={N} I={I} H={Hd} hx {hshape} reverse={rev} "
                                 f"biases={hb} batch_first={bf}", name,
                                 [T(x), T(w0), T(w1), T(b0), T(b1), T(hx), T(cx), int(rev), [],
                                  2, Hd, 1, int(hb), 0, int(bf), 0, Ret(), Ret(), Ret(), Ret()],
                                 lambda args=args: ref(*args), loose=tol,
                                 # T == 0: PyTorch leaves hy / cy uninitialized
                                 check=lambda k, T_=T_: k < (3 if T_ else 1))
        # the workspace is an undefined tensor, as PyTorch's without grad
        x, w0, w1 = rand([2, 2, 3], dt), rand([8, 3], dt), rand([8, 2], dt)
        hx = rand([1, 2, 2], dt)
        res, hs = call(name, [T(x), T(w0), T(w1), T(w0), T(w0), T(hx), T(hx), 0, [], 2, 2, 1,
                              0, 0, 0, 0, Ret(), Ret(), Ret(), Ret()])
        counts["cases"] += 1
        if isinstance(res, int) or not ws_undefined(res):
            failures.append(f"{name} {dt}: workspace is not an undefined tensor")
        release(hs)
    # bad inputs: both refuse
    x, w0, w1 = rand([3, 2, 4], torch.float32), rand([8, 4], torch.float32), rand([8, 2],
                                                                                    torch.float32)
    b, hx = rand([8], torch.float32), rand([1, 2, 2], torch.float32)
    bad = [("mode GRU", (x, w0, w1, b, b, hx, hx, False, [], 3, 2, 1, True, False, False, False)),
           ("mode RNN_TANH", (x, w0, w1, b, b, hx, hx, False, [], 1, 2, 1, True, False, False,
                              False)),
           ("float64", (x.double(), w0.double(), w1.double(), b.double(), b.double(),
                        hx.double(), hx.double(), False, [], 2, 2, 1, True, False, False, False)),
           ("2-d input", (x[0], w0, w1, b, b, hx, hx, False, [], 2, 2, 1, True, False, False,
                          False))]
    for label, a in bad:
        case(label, name,
             [T(a[0]), T(a[1]), T(a[2]), T(a[3]), T(a[4]), T(a[5]), T(a[6]), int(a[7]), [],
              a[9], a[10], a[11], int(a[12]), 0, 0, 0, Ret(), Ret(), Ret(), Ret()],
             lambda a=a: ref(*a))


MF = {None: None, "contiguous": 0, "preserve": 1, "channels_last": 2, "channels_last_3d": 3}
TMF = {"contiguous": torch.contiguous_format, "preserve": torch.preserve_format,
       "channels_last": torch.channels_last, "channels_last_3d": torch.channels_last_3d}
new_handle = fn("aoti_torch_new_tensor_handle", H, P(H))


def resize_case(label, name, args, ref, x):
    """An in-place resize: self (args[0], x's values, dense from storage element 0) is
    compared with ref() (the resized clone) in sizes, strides, dtype and the storage
    elements both old and new geometry cover (the others are uninitialized in both).
    A second handle of self, made before the call, must see the same geometry."""
    if ONLY and ONLY not in name:
        return
    counts["cases"] += 1
    ran.setdefault(name, [0, 0])[0] += 1
    self_h = to_rt(x)
    other = H()
    assert new_handle(self_h, C.byref(other)) == 0
    hs = [self_h, other]
    try:
        f = shim(name)
        cargs = [self_h]
        for a in args:
            if isinstance(a, T):
                h = to_rt(a.t)
                hs.append(h)
                cargs.append(h)
            elif isinstance(a, Opt):
                cargs.append(None if a.v is None else C.pointer(C.c_int32(a.v)))
            else:
                cargs.append(i64s(a))
                cargs.append(len(a))
        rc = f(*cargs)
        why = LIB.torch_exception_get_what().decode(errors="replace") if rc else None
        try:
            want, werr = ref(), None
        except Exception as e:
            want, werr = None, (str(e).splitlines() or ["?"])[0]
        if rc or want is None:
            if rc and want is None:
                counts["both_err"] += 1
            else:
                failures.append(f"{name} {label}: PyTorch {'fails: ' + werr if werr else 'succeeds'}"
                                f", libshimrt {'fails: ' + why if why else 'succeeds'}")
            return
        ran[name][1] += 1
        for which, h in (("self", self_h), ("second handle", other)):
            got = from_rt(h)
            if (list(got.shape), got.stride(), got.dtype) != (list(want.shape), want.stride(),
                                                               want.dtype):
                failures.append(f"{name} {label}: {which}: sizes {list(got.shape)} strides "
                                f"{got.stride()} {got.dtype}, PyTorch {list(want.shape)} "
                                f"{want.stride()} {want.dtype}")
                return
        k = min(x.numel(), want.numel())
        g = from_rt(self_h).as_strided([k], [1])
        w = want.as_strided([k], [1])
        if not torch.equal(g, w):
            failures.append(f"{name} {label}: kept values differ")
    finally:
        release(hs)


def resize_family():
    for dt in (torch.float32, torch.int64, torch.bool, torch.bfloat16):
        for shape in ([2, 3], [4, 5, 6], [0], [], [1, 3, 1, 2]):
            x = rand(shape, dt)
            for size in ([2, 3], [3], [5, 7], [2, 3, 4, 5], [2, 3, 4, 5, 6], [0, 3], [],
                         [1, 1, 2, 1], [-1, 2], [3, 0, 2, 2]):
                for mf in (None, "contiguous", "channels_last", "channels_last_3d",
                           "preserve"):
                    if mf and dt != torch.float32:
                        continue
                    kw = {} if mf is None else {"memory_format": TMF[mf]}
                    resize_case(f"{dt} {shape} -> {size} {mf}", "aoti_torch_cpu_resize_",
                                [size, Opt(MF[mf])],
                                lambda x=x, size=size, kw=kw: x.clone().resize_(size, **kw), x)
        # same sizes on a transposed tensor: unchanged without a format, restrided with one
        xt = rand([3, 4], dt).t()
        for mf in (None, "contiguous"):
            kw = {} if mf is None else {"memory_format": TMF[mf]}
            resize_case(f"{dt} transposed same sizes {mf}", "aoti_torch_cpu_resize_",
                        [[4, 3], Opt(MF[mf])],
                        lambda xt=xt, kw=kw: xt.clone(memory_format=torch.preserve_format)
                        .resize_([4, 3], **kw), xt.clone(memory_format=torch.preserve_format))
    for dt in (torch.float32, torch.int32):
        x = rand([2, 3], dt)
        for tshape, tfmt in (([2, 3], None), ([4, 5], None), ([2, 3, 4, 5], "channels_last"),
                             ([2, 3, 4, 5], None), ([1, 2, 3, 4, 5], "channels_last_3d"),
                             ([0, 4], None), ([], None), ([7], None)):
            tpl = rand(tshape, torch.float64)
            if tfmt:
                tpl = tpl.contiguous(memory_format=TMF[tfmt])
            for mf in (None, "contiguous", "preserve", "channels_last"):
                kw = {} if mf is None else {"memory_format": TMF[mf]}
                resize_case(f"{dt} [2, 3] as {tshape} {tfmt} {mf}", "aoti_torch_cpu_resize_as_",
                            [T(tpl), Opt(MF[mf])],
                            lambda x=x, tpl=tpl, kw=kw: x.clone().resize_as_(tpl, **kw), x)


# ---- issue 20: linear algebra through LAPACK (runtime/cpu/lapack.c) --------------------------
# Random well-conditioned inputs (SPD matrices X X^T + n I and their Cholesky factors,
# triangular matrices with a diagonal of magnitude >= 1, QR of random matrices), batched,
# broadcast, transposed and sliced, 0-size batches, bad shapes and dtypes. Tolerance: LAPACK's
# blocking and summation order differ from PyTorch's MKL/OpenBLAS build, so values are
# compared at rtol/atol 1e-4 (float32) and 1e-9 (float64); the matrices' condition numbers
# are small (< 100), so these bound the true differences with a wide margin. Strides of
# non-empty results must equal PyTorch's (batched column-major matrices).
LA_TOL = {torch.float32: (1e-4, 1e-4), torch.float64: (1e-9, 1e-9)}


def la_strides(label, name, args, ref):
    """The strides of each non-empty result equal PyTorch's."""
    if ONLY and ONLY not in name:
        return
    res, hs = call(name, args)
    try:
        if isinstance(res, int):
            return
        want = ref()
        want = [want] if isinstance(want, torch.Tensor) else list(want)
        for k, (h, w) in enumerate(zip(res, want)):
            g = from_rt(h)
            if w.numel() and g.stride() != w.stride():
                failures.append(f"{name} {label}: result {k}: strides {g.stride()} != {w.stride()}")
    finally:
        release(hs)


def la_case(label, name, args, ref, dt):
    case(label, name, args, ref, loose=LA_TOL.get(dt, True))
    la_strides(label, name, args, ref)


def spd(batch, n, dt):
    x = torch.randn(list(batch) + [n, n], dtype=torch.float64)
    return (x @ x.mT + n * torch.eye(n, dtype=torch.float64)).to(dt)


def tri(batch, n, dt, upper):
    x = torch.randn(list(batch) + [n, n], dtype=torch.float64) * 0.3
    d = (torch.rand(list(batch) + [n], dtype=torch.float64) + 1) * torch.where(
        torch.rand(list(batch) + [n]) > 0.5, 1.0, -1.0)
    x = x.triu(1) if upper else x.tril(-1)
    return (x + torch.diag_embed(d)).to(dt)


def lapack_family():
    for dt in (torch.float32, torch.float64):
        for bs, bb, n, k in (([], [], 3, 2), ([2], [2], 4, 3), ([2, 1], [3], 5, 1),
                             ([0], [0], 3, 2), ([], [2], 1, 1), ([3], [3], 6, 0)):
            a = spd(bs, n, dt)
            b = rand(bb + [n, k], dt)
            for upper in (0, 1):
                f = torch.linalg.cholesky(a.to(torch.float64), upper=bool(upper)).to(dt)
                for lay, x in layouts(b):
                    for flay, y in layouts(f):
                        if lay != "contig" and flay != "contig":
                            continue
                        la_case(f"{dt} {bs} {bb} n={n} k={k} upper={upper} {lay}/{flay}",
                                "aoti_torch_cpu_cholesky_solve", [T(x), T(y), upper, Ret()],
                                lambda x=x, y=y, u=upper: A.cholesky_solve(x, y, bool(u)), dt)
                for lay, y in layouts(f):
                    la_case(f"{dt} {bs} n={n} upper={upper} {lay}",
                            "aoti_torch_cpu_cholesky_inverse", [T(y), upper, Ret()],
                            lambda y=y, u=upper: A.cholesky_inverse(y, bool(u)), dt)
            for upper in (0, 1):
                t = tri(bs, n, dt, bool(upper))
                for tr in (0, 1):
                    for unit in (0, 1):
                        for lay, x in layouts(b):
                            for alay, y in layouts(t):
                                if lay != "contig" and alay != "contig":
                                    continue
                                la_case(f"{dt} {bs} {bb} n={n} k={k} upper={upper} tr={tr} "
                                        f"unit={unit} {lay}/{alay}",
                                        "aoti_torch_cpu_triangular_solve",
                                        [T(x), T(y), upper, tr, unit, Ret(), Ret()],
                                        lambda x=x, y=y, u=upper, tr=tr, un=unit:
                                        A.triangular_solve(x, y, bool(u), bool(tr), bool(un)), dt)
        # four right-hand sides whose solution overflows (-3 / 1e-40) or whose b holds inf:
        # OpenBLAS's Haswell strsm kernel gave NaN there, not +-inf (lapack.c s_solve_f32)
        big = torch.tensor([[1.0] * 4] * 3 + [[-3.0, -2.0, -3.0, 4.0]], dtype=dt)
        binf = big.clone()
        binf[3, 3] = float("inf")
        dtiny = torch.diag(torch.tensor([1.0, 1.0, 1.0, 1e-40], dtype=dt))
        ltiny = torch.diag(torch.tensor([1.0, 1.0, 1.0, 1e-20], dtype=dt))
        eye4 = torch.eye(4, dtype=dt)
        for tr in (0, 1):
            la_case(f"{dt} overflowing solution tr={tr}", "aoti_torch_cpu_triangular_solve",
                    [T(big), T(dtiny), 1, tr, 0, Ret(), Ret()],
                    lambda tr=tr: A.triangular_solve(big, dtiny, True, bool(tr), False), dt)
            la_case(f"{dt} inf in b, unit, tr={tr}", "aoti_torch_cpu_triangular_solve",
                    [T(binf), T(eye4), 0, tr, 1, Ret(), Ret()],
                    lambda tr=tr: A.triangular_solve(binf, eye4, False, bool(tr), True), dt)
        for upper in (0, 1):
            la_case(f"{dt} overflowing cholesky_solve upper={upper}",
                    "aoti_torch_cpu_cholesky_solve", [T(big), T(ltiny), upper, Ret()],
                    lambda u=upper: A.cholesky_solve(big, ltiny, bool(u)), dt)
        # a subnormal float32 diagonal (1 / 1e-40 overflows): OpenBLAS's trsm multiplied by
        # that inf reciprocal (NaN for a zero b, inf for 1e-10 / 1e-40), PyTorch's divides
        sub = torch.tensor([[1e-40, 0.0], [2.0, 1.0]], dtype=dt)
        bsub = torch.tensor([[0.0, 1e-10, -0.0, 3.0], [1.0, 1.0, 2.0, -1.0]], dtype=dt)
        for upper in (0, 1):
            s_a = sub.mT.contiguous() if upper else sub
            for tr in (0, 1):
                for kk in (1, 4):
                    la_case(f"{dt} subnormal diagonal upper={upper} tr={tr} k={kk}",
                            "aoti_torch_cpu_triangular_solve",
                            [T(bsub[:, :kk]), T(s_a), upper, tr, 0, Ret(), Ret()],
                            lambda s_a=s_a, u=upper, tr=tr, kk=kk:
                            A.triangular_solve(bsub[:, :kk], s_a, bool(u), bool(tr), False), dt)
            la_case(f"{dt} subnormal cholesky factor upper={upper}", "aoti_torch_cpu_cholesky_solve",
                    [T(bsub), T(s_a), upper, Ret()],
                    lambda s_a=s_a, u=upper: A.cholesky_solve(bsub, s_a, bool(u)), dt)
        for shape in ([5, 3], [3, 5], [2, 4, 4], [2, 1, 6, 2], [0, 3, 3], [3, 0], [1, 1]):
            x = rand(shape, dt)
            for lay, y in layouts(x):
                la_case(f"{dt} {shape} {lay}", "aoti_torch_cpu_geqrf", [T(y), Ret(), Ret()],
                        lambda y=y: A.geqrf(y), dt)
        for shape, cshape, left in (([5, 3], [5, 2], 1), ([5, 3], [4, 5], 0), ([2, 4, 4], [2, 4, 3], 1),
                                    ([2, 6, 2], [2, 3, 6], 0), ([5, 2], [5, 1], 1),
                                    ([0, 4, 3], [0, 4, 2], 1), ([4, 3], [4, 0], 1)):
            q, tau = torch.geqrf(rand(shape, torch.float64))
            q, tau = q.to(dt), tau.to(dt)
            c = rand(cshape, dt)
            for tr in (0, 1):
                for lay, y in layouts(c):
                    for qlay, z in layouts(q):
                        if lay != "contig" and qlay != "contig":
                            continue
                        la_case(f"{dt} {shape} {cshape} left={left} tr={tr} {lay}/{qlay}",
                                "aoti_torch_cpu_ormqr", [T(z), T(tau), T(y), left, tr, Ret()],
                                lambda z=z, tau=tau, y=y, l=left, tr=tr:
                                A.ormqr(z, tau, y, bool(l), bool(tr)), dt)
        for shape in ([4, 4], [5, 3], [3, 5], [2, 4, 3], [2, 2, 3, 3], [0, 3, 3], [3, 0], [1, 1]):
            lu, piv = torch.linalg.lu_factor(rand(shape, torch.float64))
            lu = lu.to(dt)
            for ud in (0, 1):
                for up in (0, 1):
                    for lay, y in layouts(lu):
                        la_case(f"{dt} {shape} data={ud} pivots={up} {lay}",
                                "aoti_torch_cpu_lu_unpack", [T(y), T(piv), ud, up, Ret(), Ret(), Ret()],
                                lambda y=y, piv=piv, ud=ud, up=up: A.lu_unpack(y, piv, bool(ud), bool(up)),
                                dt)
    # complex64 / complex128: cholesky_solve, cholesky_inverse, triangular_solve (the complex
    # LAPACK routines), lu_unpack; uint16/32/64 lu_unpack (PyTorch's tril refuses a non-empty
    # LU when unpacking data)
    for dt in (torch.complex64, torch.complex128):
        for bs, bb, n, k in (([], [], 3, 2), ([2], [2], 4, 3), ([2, 1], [3], 5, 1), ([0], [0], 3, 2)):
            x = torch.randn(list(bs) + [n, n], dtype=torch.complex128)
            a = x @ x.mH + n * torch.eye(n, dtype=torch.complex128)
            b = torch.randn(bb + [n, k], dtype=torch.complex128).to(dt)
            for upper in (0, 1):
                f = torch.linalg.cholesky(a, upper=bool(upper)).to(dt)
                for lay, xb in layouts(b):
                    la_case(f"{dt} {bs} {bb} n={n} k={k} upper={upper} {lay}",
                            "aoti_torch_cpu_cholesky_solve", [T(xb), T(f), upper, Ret()],
                            lambda xb=xb, f=f, u=upper: A.cholesky_solve(xb, f, bool(u)), dt)
                la_case(f"{dt} {bs} n={n} upper={upper}", "aoti_torch_cpu_cholesky_inverse",
                        [T(f), upper, Ret()], lambda f=f, u=upper: A.cholesky_inverse(f, bool(u)),
                        dt)
                t = (f + torch.eye(n, dtype=dt)).triu() if upper else f.tril()
                for tr in (0, 1):
                    la_case(f"{dt} {bs} {bb} n={n} k={k} upper={upper} tr={tr}",
                            "aoti_torch_cpu_triangular_solve",
                            [T(b), T(t), upper, tr, 0, Ret(), Ret()],
                            lambda t=t, u=upper, tr=tr:
                            A.triangular_solve(b, t, bool(u), bool(tr), False), dt)
        # inf in the system (lapack.c c_solve_ref): a diagonal with an infinite part (PyTorch's
        # MKL: NaN, OpenBLAS: 0) and an inf b through a unit triangle (the plain complex product)
        inf = float("inf")
        cinf = torch.tensor([[complex(1e-40, inf), 0], [1 + 1j, 2]], dtype=dt)
        cunit = torch.tensor([[1, 0], [2 + 1j, 1]], dtype=dt)
        cb = torch.tensor([[3 - 5j, 1, complex(inf, 0), 2j], [1, -1j, 1, complex(0, -inf)]], dtype=dt)
        for upper in (0, 1):
            ca, cu = (cinf.mT.contiguous(), cunit.mT.contiguous()) if upper else (cinf, cunit)
            for tr in (0, 1):
                la_case(f"{dt} infinite diagonal upper={upper} tr={tr}",
                        "aoti_torch_cpu_triangular_solve", [T(cb), T(ca), upper, tr, 0, Ret(), Ret()],
                        lambda ca=ca, u=upper, tr=tr: A.triangular_solve(cb, ca, bool(u), bool(tr), False),
                        dt)
                for j in range(4):  # one column: MKL's complex128 kernel for several
                    cj = cb[:, j:j + 1]  # multiplies inf by the unit diagonal (inf + NaN i)
                    la_case(f"{dt} inf b, unit upper={upper} tr={tr} column {j}",
                            "aoti_torch_cpu_triangular_solve", [T(cj), T(cu), upper, tr, 1, Ret(), Ret()],
                            lambda cj=cj, cu=cu, u=upper, tr=tr:
                            A.triangular_solve(cj, cu, bool(u), bool(tr), True), dt)
            la_case(f"{dt} infinite cholesky factor upper={upper}", "aoti_torch_cpu_cholesky_solve",
                    [T(cb), T(ca), upper, Ret()], lambda ca=ca, u=upper: A.cholesky_solve(cb, ca, bool(u)),
                    dt)
        for shape in ([5, 3], [3, 5], [2, 4, 4], [0, 3, 3], [1, 1]):
            x = torch.randn(shape, dtype=torch.complex128).to(dt)
            for lay, y in layouts(x):
                la_case(f"{dt} {shape} {lay}", "aoti_torch_cpu_geqrf", [T(y), Ret(), Ret()],
                        lambda y=y: A.geqrf(y), dt)
        for shape, cshape, left in (([5, 3], [5, 2], 1), ([5, 3], [4, 5], 0),
                                    ([2, 4, 4], [2, 4, 3], 1), ([2, 6, 2], [2, 3, 6], 0)):
            q, tau = torch.geqrf(torch.randn(shape, dtype=torch.complex128))
            q, tau = q.to(dt), tau.to(dt)
            c = torch.randn(cshape, dtype=torch.complex128).to(dt)
            for tr in (0, 1):
                la_case(f"{dt} {shape} {cshape} left={left} tr={tr}", "aoti_torch_cpu_ormqr",
                        [T(q), T(tau), T(c), left, tr, Ret()],
                        lambda q=q, tau=tau, c=c, l=left, tr=tr:
                        A.ormqr(q, tau, c, bool(l), bool(tr)), dt)
        lu, piv = torch.linalg.lu_factor(torch.randn(2, 3, 4, dtype=torch.complex128))
        for ud in (0, 1):
            for up in (0, 1):
                la_case(f"{dt} lu_unpack data={ud} pivots={up}", "aoti_torch_cpu_lu_unpack",
                        [T(lu.to(dt)), T(piv), ud, up, Ret(), Ret(), Ret()],
                        lambda lu=lu, piv=piv, ud=ud, up=up, dt=dt:
                        A.lu_unpack(lu.to(dt), piv, bool(ud), bool(up)), dt)
    for dt in (torch.uint16, torch.uint32, torch.uint64):
        lu, piv = torch.linalg.lu_factor(rand([2, 3, 3], torch.float64))
        for shape in ([2, 3, 3], [2, 0, 3]):
            lud = lu.abs().to(dt)[:, :shape[1]]
            pv = piv[:, :min(shape[1], 3)]
            for ud in (0, 1):
                case(f"{dt} {shape} lu_unpack data={ud}", "aoti_torch_cpu_lu_unpack",
                     [T(lud), T(pv), ud, 1, Ret(), Ret(), Ret()],
                     lambda lud=lud, pv=pv, ud=ud: A.lu_unpack(lud, pv, bool(ud), True))
    # pivots: read only to unpack them (dtype, then shape, then values), any strides
    lu, piv = torch.linalg.lu_factor(rand([2, 3, 3], torch.float64))
    for pname, pv in (("non-contiguous", torch.stack([piv, piv], -1)[..., 0]), ("[3]", piv[0]),
                      ("[1, 3]", piv[:1].contiguous()), ("int64", piv.long()),
                      ("int64 [1, 3]", piv[:1].long()), ("zeros", torch.zeros_like(piv))):
        for ud in (0, 1):
            for up in (0, 1):
                case(f"pivots {pname} data={ud} pivots={up}", "aoti_torch_cpu_lu_unpack",
                     [T(lu), T(pv), ud, up, Ret(), Ret(), Ret()],
                     lambda pv=pv, ud=ud, up=up: A.lu_unpack(lu, pv, bool(ud), bool(up)))
    # other dtypes: lu_unpack takes any (a plain copy); the LAPACK ops refuse them as PyTorch
    for dt in (torch.float16, torch.bfloat16, torch.int32, torch.int64):
        lu, piv = torch.linalg.lu_factor(rand([2, 3, 3], torch.float64))
        la_case(f"{dt} lu_unpack", "aoti_torch_cpu_lu_unpack",
                [T(lu.to(dt)), T(piv), 1, 1, Ret(), Ret(), Ret()],
                lambda lu=lu, piv=piv, dt=dt: A.lu_unpack(lu.to(dt), piv), dt)
        a, b = rand([3, 3], dt), rand([3, 2], dt)
        case(f"{dt}", "aoti_torch_cpu_cholesky_solve", [T(b), T(a), 0, Ret()],
             lambda a=a, b=b: A.cholesky_solve(b, a))
        case(f"{dt}", "aoti_torch_cpu_cholesky_inverse", [T(a), 0, Ret()],
             lambda a=a: A.cholesky_inverse(a))
        case(f"{dt}", "aoti_torch_cpu_triangular_solve", [T(b), T(a), 1, 0, 0, Ret(), Ret()],
             lambda a=a, b=b: A.triangular_solve(b, a))
        case(f"{dt}", "aoti_torch_cpu_geqrf", [T(a), Ret(), Ret()], lambda a=a: A.geqrf(a))
        case(f"{dt}", "aoti_torch_cpu_ormqr", [T(a), T(rand([3], dt)), T(b), 1, 0, Ret()],
             lambda a=a, b=b: A.ormqr(a, rand([3], dt), b))
    # bad inputs (both must fail) and singular ones (PyTorch: inf/nan, or an error for
    # cholesky_inverse, batched or not)
    r = lambda *s: rand(list(s), torch.float32)  # noqa: E731
    lu3 = r(3, 3)
    bad = [
        ("cholesky_solve 1-d b", "aoti_torch_cpu_cholesky_solve", [T(r(3)), T(r(3, 3)), 0, Ret()],
         lambda: A.cholesky_solve(r(3), r(3, 3))),
        ("cholesky_solve 1-d A", "aoti_torch_cpu_cholesky_solve", [T(r(3, 2)), T(r(3)), 0, Ret()],
         lambda: A.cholesky_solve(r(3, 2), r(3))),
        ("cholesky_solve sizes", "aoti_torch_cpu_cholesky_solve",
         [T(r(4, 2)), T(r(3, 3)), 0, Ret()], lambda: A.cholesky_solve(r(4, 2), r(3, 3))),
        ("cholesky_solve non-square", "aoti_torch_cpu_cholesky_solve",
         [T(r(3, 2)), T(r(3, 4)), 0, Ret()], lambda: A.cholesky_solve(r(3, 2), r(3, 4))),
        ("cholesky_solve batch", "aoti_torch_cpu_cholesky_solve",
         [T(r(2, 3, 2)), T(r(3, 3, 3)), 0, Ret()], lambda: A.cholesky_solve(r(2, 3, 2), r(3, 3, 3))),
        ("cholesky_solve dtypes", "aoti_torch_cpu_cholesky_solve",
         [T(r(3, 2)), T(r(3, 3).double()), 0, Ret()],
         lambda: A.cholesky_solve(r(3, 2), r(3, 3).double())),
        ("cholesky_solve singular", "aoti_torch_cpu_cholesky_solve",
         [T(torch.ones(3, 2)), T(torch.zeros(3, 3)), 0, Ret()],
         lambda: A.cholesky_solve(torch.ones(3, 2), torch.zeros(3, 3))),
        ("cholesky_inverse singular", "aoti_torch_cpu_cholesky_inverse",
         [T(torch.zeros(3, 3)), 0, Ret()], lambda: A.cholesky_inverse(torch.zeros(3, 3))),
        ("cholesky_inverse batch singular", "aoti_torch_cpu_cholesky_inverse",
         [T(torch.stack([torch.eye(3), torch.zeros(3, 3)])), 1, Ret()],
         lambda: A.cholesky_inverse(torch.stack([torch.eye(3), torch.zeros(3, 3)]), True)),
        ("cholesky_inverse 1-d", "aoti_torch_cpu_cholesky_inverse", [T(r(3)), 0, Ret()],
         lambda: A.cholesky_inverse(r(3))),
        ("cholesky_inverse non-square", "aoti_torch_cpu_cholesky_inverse", [T(r(3, 4)), 0, Ret()],
         lambda: A.cholesky_inverse(r(3, 4))),
        ("triangular_solve singular", "aoti_torch_cpu_triangular_solve",
         [T(torch.ones(3, 2)), T(torch.zeros(3, 3)), 1, 0, 0, Ret(), Ret()],
         lambda: A.triangular_solve(torch.ones(3, 2), torch.zeros(3, 3))),
        ("triangular_solve singular unit", "aoti_torch_cpu_triangular_solve",
         [T(torch.ones(3, 2)), T(torch.zeros(3, 3)), 0, 1, 1, Ret(), Ret()],
         lambda: A.triangular_solve(torch.ones(3, 2), torch.zeros(3, 3), False, True, True)),
        ("triangular_solve 1-d b", "aoti_torch_cpu_triangular_solve",
         [T(r(3)), T(r(3, 3)), 1, 0, 0, Ret(), Ret()], lambda: A.triangular_solve(r(3), r(3, 3))),
        ("triangular_solve 1-d A", "aoti_torch_cpu_triangular_solve",
         [T(r(3, 2)), T(r(3)), 1, 0, 0, Ret(), Ret()], lambda: A.triangular_solve(r(3, 2), r(3))),
        ("triangular_solve sizes", "aoti_torch_cpu_triangular_solve",
         [T(r(4, 2)), T(r(3, 3)), 1, 0, 0, Ret(), Ret()],
         lambda: A.triangular_solve(r(4, 2), r(3, 3))),
        ("triangular_solve non-square", "aoti_torch_cpu_triangular_solve",
         [T(r(3, 2)), T(r(3, 4)), 1, 0, 0, Ret(), Ret()],
         lambda: A.triangular_solve(r(3, 2), r(3, 4))),
        ("triangular_solve dtypes", "aoti_torch_cpu_triangular_solve",
         [T(r(3, 2).double()), T(r(3, 3)), 1, 0, 0, Ret(), Ret()],
         lambda: A.triangular_solve(r(3, 2).double(), r(3, 3))),
        ("geqrf 1-d", "aoti_torch_cpu_geqrf", [T(r(3)), Ret(), Ret()], lambda: A.geqrf(r(3))),
        ("ormqr 1-d input", "aoti_torch_cpu_ormqr", [T(r(5)), T(r(3)), T(r(5, 2)), 1, 0, Ret()],
         lambda: A.ormqr(r(5), r(3), r(5, 2))),
        ("ormqr 1-d other", "aoti_torch_cpu_ormqr", [T(r(5, 3)), T(r(3)), T(r(5)), 1, 0, Ret()],
         lambda: A.ormqr(r(5, 3), r(3), r(5))),
        ("ormqr tau size", "aoti_torch_cpu_ormqr", [T(r(5, 3)), T(r(2)), T(r(5, 2)), 1, 0, Ret()],
         lambda: A.ormqr(r(5, 3), r(2), r(5, 2))),
        ("ormqr other rows", "aoti_torch_cpu_ormqr", [T(r(5, 3)), T(r(3)), T(r(4, 2)), 1, 0, Ret()],
         lambda: A.ormqr(r(5, 3), r(3), r(4, 2))),
        ("ormqr other cols right", "aoti_torch_cpu_ormqr",
         [T(r(5, 3)), T(r(3)), T(r(2, 4)), 0, 0, Ret()],
         lambda: A.ormqr(r(5, 3), r(3), r(2, 4), False)),
        ("ormqr tau ndim", "aoti_torch_cpu_ormqr", [T(r(5, 3)), T(r(1, 3)), T(r(5, 2)), 1, 0, Ret()],
         lambda: A.ormqr(r(5, 3), r(1, 3), r(5, 2))),
        ("ormqr other ndim", "aoti_torch_cpu_ormqr",
         [T(r(2, 5, 3)), T(r(2, 3)), T(r(5, 2)), 1, 0, Ret()],
         lambda: A.ormqr(r(2, 5, 3), r(2, 3), r(5, 2))),
        ("ormqr tau batch", "aoti_torch_cpu_ormqr",
         [T(r(2, 5, 3)), T(r(3, 3)), T(r(2, 5, 2)), 1, 0, Ret()],
         lambda: A.ormqr(r(2, 5, 3), r(3, 3), r(2, 5, 2))),
        ("ormqr other batch", "aoti_torch_cpu_ormqr",
         [T(r(2, 5, 3)), T(r(2, 3)), T(r(3, 5, 2)), 1, 0, Ret()],
         lambda: A.ormqr(r(2, 5, 3), r(2, 3), r(3, 5, 2))),
        ("ormqr dtypes", "aoti_torch_cpu_ormqr",
         [T(r(5, 3)), T(r(3).double()), T(r(5, 2)), 1, 0, Ret()],
         lambda: A.ormqr(r(5, 3), r(3).double(), r(5, 2))),
        ("lu_unpack 1-d", "aoti_torch_cpu_lu_unpack",
         [T(r(3)), T(torch.ones(3, dtype=torch.int32)), 1, 1, Ret(), Ret(), Ret()],
         lambda: A.lu_unpack(r(3), torch.ones(3, dtype=torch.int32))),
        ("lu_unpack pivots shape", "aoti_torch_cpu_lu_unpack",
         [T(r(2, 3, 3)), T(torch.ones(3, dtype=torch.int32)), 1, 1, Ret(), Ret(), Ret()],
         lambda: A.lu_unpack(r(2, 3, 3), torch.ones(3, dtype=torch.int32))),
        ("lu_unpack int64 pivots", "aoti_torch_cpu_lu_unpack",
         [T(r(3, 3)), T(torch.ones(3, dtype=torch.int64)), 1, 1, Ret(), Ret(), Ret()],
         lambda: A.lu_unpack(r(3, 3), torch.ones(3, dtype=torch.int64))),
        ("lu_unpack pivots 0", "aoti_torch_cpu_lu_unpack",
         [T(r(3, 3)), T(torch.zeros(3, dtype=torch.int32)), 1, 1, Ret(), Ret(), Ret()],
         lambda: A.lu_unpack(r(3, 3), torch.zeros(3, dtype=torch.int32))),
        ("lu_unpack pivots 7", "aoti_torch_cpu_lu_unpack",
         [T(r(3, 3)), T(torch.full((3,), 7, dtype=torch.int32)), 1, 1, Ret(), Ret(), Ret()],
         lambda: A.lu_unpack(r(3, 3), torch.full((3,), 7, dtype=torch.int32))),
        ("lu_unpack bad pivots unused", "aoti_torch_cpu_lu_unpack",
         [T(lu3), T(torch.zeros(3, dtype=torch.int32)), 1, 0, Ret(), Ret(), Ret()],
         lambda: A.lu_unpack(lu3, torch.zeros(3, dtype=torch.int32), True, False)),
    ]
    for label, name, args, ref in bad:
        case(label, name, args, ref)


# ---- issue 20: FFT (runtime/cpu/fft.c, kissfft; float64/complex128: fft_double.cc) ---------
# per precision: (rtol, atol per unit of the signal's sum of |x|), the largest error seen
FFT_TOL = {torch.float32: (1e-5, 1e-6), torch.float64: (1e-12, 1e-14)}
FFT_ERR = {torch.float32: 0.0, torch.float64: 0.0}


def fft_case(label, name, args, ref, x_abs_sum, prec=torch.float32):
    """case() with a tolerance scaled to the transform (an FFT bin's rounding error grows
    with the sum of |x| over the signal and log n: atol = FFT_TOL's unit (1e-6 in float,
    1e-14 in double) times that sum, rtol 1e-5 / 1e-12), plus PyTorch's result strides and a
    record of the largest error relative to max |bin| (per precision `prec`)."""
    rtol, unit = FFT_TOL[prec]
    case(label, name, args, ref, loose=(rtol, unit * max(x_abs_sum, 1.0)))
    if ONLY and ONLY not in name:
        return
    res, hs = call(name, args)
    try:
        try:
            want = ref()
        except Exception:
            want = None
        if isinstance(res, int) or want is None:
            return
        got = from_rt(res[0])
        if got.stride() != want.stride():
            failures.append(f"{name} {label}: strides {got.stride()} != PyTorch's {want.stride()}")
        if got.numel() and got.shape == want.shape:
            err = (got.to(torch.complex128) - want.to(torch.complex128)).abs().max().item()
            top = want.abs().max().item()
            if top > 0:
                FFT_ERR[prec] = max(FFT_ERR[prec], err / top)
    finally:
        release(hs)


def fft_dims(nd):
    """Every non-empty dim list of an nd-d tensor in increasing order, plus reversed ones."""
    out = []
    for mask in range(1, 1 << nd):
        ds = [d for d in range(nd) if mask >> d & 1]
        out.append(ds)
        if len(ds) > 1:
            out.append(ds[::-1])
    return out


def fft_family():
    shapes = [(1,), (2,), (7,), (8,), (13,), (16,), (17,), (64,), (97,), (128,), (250,), (1024,),
              (6, 8), (7, 5), (16, 9), (48, 256), (3, 4, 5), (4, 6, 8), (2, 7, 3), (0, 5),
              (3, 0, 4)]
    # double (kissfft<double>): fewer shapes (radices 2-5 and generic, 1-3 dims, empty) and
    # two with enough lines of a size with radices > 5 (kissfft<double>'s generic butterfly
    # writes scratch space in its plan) to run on several threads of the pool
    shapes_d = [(1,), (7,), (8,), (97,), (250,), (1024,), (7, 5), (16, 9), (0, 5), (4, 6, 8),
                (512, 77), (14, 1200)]
    for prec, cdt, shps in ((torch.float32, torch.complex64, shapes),
                            (torch.float64, torch.complex128, shapes_d)):
        fft_shapes(prec, cdt, shps)
    fft_more()


def fft_shapes(prec, cdt, shapes):
    """Every dim list, norm, layout and onesided / forward of r2c and c2c on each shape."""
    for shape in shapes:
        xr = rand(list(shape), prec)
        xc = torch.complex(rand(list(shape), prec), rand(list(shape), prec))
        for dims in fft_dims(len(shape)):
            n_sig = 1
            for d in dims:
                n_sig *= shape[d]
            for norm in (0, 1, 2):
                m = max(n_sig, 1)
                scale = 1.0 if norm == 0 else (m ** -0.5 if norm == 1 else 1.0 / m)
                for lay, x in layouts(xr):
                    for one in (True, False):
                        fft_case(f"r2c {prec} {shape} {lay} dim={dims} norm={norm} "
                                 f"onesided={one}",
                                 "aoti_torch_cpu__fft_r2c", [T(x), dims, norm, int(one), Ret()],
                                 lambda x=x, dims=dims, norm=norm, one=one:
                                 A._fft_r2c(x, dims, norm, one), 4 * n_sig * scale, prec)
                for lay, x in layouts(xc):
                    for fwd in (True, False):
                        fft_case(f"c2c {cdt} {shape} {lay} dim={dims} norm={norm} "
                                 f"forward={fwd}",
                                 "aoti_torch_cpu__fft_c2c", [T(x), dims, norm, int(fwd), Ret()],
                                 lambda x=x, dims=dims, norm=norm, fwd=fwd:
                                 A._fft_c2c(x, dims, norm, fwd), 6 * n_sig * scale, prec)


def fft_more():
    # a 5-d tensor (a size-1 dim), a few dim lists, in both precisions
    for prec in (torch.float32, torch.float64):
        x5 = rand([2, 3, 1, 4, 6], prec)
        for dims in ([0, 3], [4, 1, 2], [1, 2, 3, 4], [3]):
            for lay, x in layouts(x5):
                fft_case(f"r2c {prec} 5-d {lay} dim={dims}", "aoti_torch_cpu__fft_r2c",
                         [T(x), dims, 1, 1, Ret()],
                         lambda x=x, dims=dims: A._fft_r2c(x, dims, 1, True), 100.0, prec)
                xc5 = torch.complex(x, x.flip(0))
                fft_case(f"c2c {prec} 5-d {lay} dim={dims}", "aoti_torch_cpu__fft_c2c",
                         [T(xc5), dims, 2, 0, Ret()],
                         lambda x=xc5, dims=dims: A._fft_c2c(x, dims, 2, False), 100.0, prec)
    # bad inputs: both refuse
    xr, xc = rand([3, 4], torch.float32), torch.randn(3, 4, dtype=torch.complex64)
    for label, name, x, dims in [("real to c2c", "aoti_torch_cpu__fft_c2c", xr, [1]),
                                 ("complex to r2c", "aoti_torch_cpu__fft_r2c", xc, [1]),
                                 ("int32 to r2c", "aoti_torch_cpu__fft_r2c", xr.int(), [1]),
                                 ("half to r2c", "aoti_torch_cpu__fft_r2c", xr.half(), [1]),
                                 ("empty dim list r2c", "aoti_torch_cpu__fft_r2c", xr, []),
                                 ("empty dim list c2c", "aoti_torch_cpu__fft_c2c", xc, []),
                                 ("empty dim list c2c, transposed", "aoti_torch_cpu__fft_c2c",
                                  xc.t(), []),
                                 ("empty dim list c2c, complex128", "aoti_torch_cpu__fft_c2c",
                                  xc.to(torch.complex128), []),
                                 ("empty signal", "aoti_torch_cpu__fft_r2c", xr[:, :0], [1]),
                                 ("empty signal c2c", "aoti_torch_cpu__fft_c2c", xc[:, :0], [1]),
                                 ("float64 to c2c", "aoti_torch_cpu__fft_c2c", xr.double(), [1]),
                                 ("complex128 to r2c", "aoti_torch_cpu__fft_r2c",
                                  xc.to(torch.complex128), [1]),
                                 ("empty signal float64", "aoti_torch_cpu__fft_r2c",
                                  xr.double()[:, :0], [1]),
                                 ("empty signal complex128", "aoti_torch_cpu__fft_c2c",
                                  xc.to(torch.complex128)[:, :0], [1])]:
        op = A._fft_c2c if "c2c" in name else A._fft_r2c
        case(label, name, [T(x), dims, 0, 1, Ret()],
             lambda op=op, x=x, dims=dims: op(x, dims, 0, True))
    # a normalization code outside 0-2: PyTorch's MKL path reads its low 32 bits (0 none,
    # 1 by_root_n, any other by_n)
    for norm in (3, -1, 2 ** 31, 2 ** 32, 2 ** 32 + 1):
        low = norm & 0xFFFFFFFF
        scale = 1.0 if low == 0 else (12 ** -0.5 if low == 1 else 1.0 / 12)
        fft_case(f"c2c norm={norm}", "aoti_torch_cpu__fft_c2c", [T(xc), [0, 1], norm, 1, Ret()],
                 lambda norm=norm: A._fft_c2c(xc, [0, 1], norm, True), 6 * 12 * scale)
        fft_case(f"r2c norm={norm}", "aoti_torch_cpu__fft_r2c", [T(xr), [1], norm, 1, Ret()],
                 lambda norm=norm: A._fft_r2c(xr, [1], norm, True), 4 * 4 * scale)
    # not PyTorch's behaviour (documented in docs/engine.md): dims out of range and repeated
    # dims are refused (PyTorch's kernel reads out of bounds or asserts on them)
    for name, x, dims, norm in [("aoti_torch_cpu__fft_r2c", xr, [5], 0),
                                ("aoti_torch_cpu__fft_c2c", xc, [-1], 0),
                                ("aoti_torch_cpu__fft_r2c", xr.double(), [1, 1], 0),
                                ("aoti_torch_cpu__fft_c2c", xc.to(torch.complex128), [2], 0),
                                ("aoti_torch_cpu__fft_r2c", xr, [1, 1], 0)]:
        if ONLY and ONLY not in name:
            continue
        res, hs = call(name, [T(x), dims, norm, 1, Ret()])
        if not isinstance(res, int):
            failures.append(f"{name} {x.dtype} dim={dims} norm={norm}: libshimrt should refuse")
        release(hs)
    if not ONLY or "fft" in ONLY:
        print("  fft: largest error vs PyTorch, relative to max |bin|: "
              f"{FFT_ERR[torch.float32]:.2e} (float32/complex64), "
              f"{FFT_ERR[torch.float64]:.2e} (float64/complex128)")


def pool3d_family():
    """3-d pooling, max unpooling (2-d and 3-d): pool3d.c on pool_nd.c's engine."""
    for dt in [torch.float32, torch.float64, torch.bfloat16, torch.int64, torch.uint8,
               torch.bool]:
        for shape in ([2, 3, 5, 6, 7], [3, 4, 5, 3], [1, 1, 1, 1, 1], [0, 2, 3, 4, 4],
                      [2, 0, 3, 4, 4], [2, 3, 0, 4, 4], [4, 4, 4]):
            base = rand(shape, dt, -5, 5)
            lays = list(layouts(base))
            if len(shape) == 5:
                lays.append(("channels_last_3d",
                             base.contiguous(memory_format=torch.channels_last_3d)))
            for lay, x in lays:
                tag = f"{dt} {shape} {lay}"
                for (k, st, pd, dl, ceil) in [([2], [], [0], [1], 0),
                                              ([3, 2, 2], [2, 1, 2], [1, 0, 1], [1], 1),
                                              ([3], [2], [1], [2, 1, 1], 0),
                                              ([1], [1], [0], [1], 0), ([3], [1], [2], [1], 0),
                                              ([9], [1], [0], [1], 0), ([2, 2], [1], [0], [1], 0),
                                              ([2], [1, 1], [0], [1], 0), ([0], [1], [0], [1], 0),
                                              ([2], [-1], [0], [1], 0)]:
                    bad = k in ([9], [2, 2], [0]) or st in ([1, 1], [-1]) or pd == [2]
                    if bad and (lay != "contig" or dt != torch.float32):
                        continue  # bad arguments: refused whatever the input
                    case(f"{tag} k{k} s{st} p{pd} d{dl} ceil={ceil}",
                         "aoti_torch_cpu_max_pool3d_with_indices",
                         [T(x), k, st, pd, dl, ceil, Ret(), Ret()],
                         lambda x=x, k=k, st=st, pd=pd, dl=dl, ceil=ceil:
                         A.max_pool3d_with_indices(x, k, st, pd, dl, bool(ceil)))
                    for inc, div in ((1, None), (0, None), (1, 3), (0, 0)):
                        if dt in (torch.uint8, torch.bool, torch.bfloat16) and k != [2]:
                            continue  # avg_pool3d refuses these dtypes: a few cases suffice
                        case(f"{tag} k{k} s{st} p{pd} ceil={ceil} include_pad={inc} "
                             f"divisor={div}", "aoti_torch_cpu_avg_pool3d",
                             [T(x), k, st, pd, ceil, inc, Opt(div), Ret()],
                             lambda x=x, k=k, st=st, pd=pd, ceil=ceil, inc=inc, div=div:
                             A.avg_pool3d(x, k, st, pd, bool(ceil), bool(inc), div), loose=True)
                # (a negative size over an empty batch: PyTorch makes a tensor of negative size)
                if dt.is_floating_point or lay == "contig":  # (other dtypes are refused)
                    adaptive_cases(tag, x, 3, ([1, 1, 1], [2, 3, 4], [5, 6, 7], [7, 3, 9], [0, 2, 2],
                                               [2, 2]) + (([-1, 2, 2],) if base.numel() else ()))
    n = float("nan")
    x = torch.tensor([[[[1.0, n], [n, 2.0]], [[5.0, n], [float("-inf"), 0.0]]]])
    for k in ([1, 2, 2], [2], [2, 1, 2]):
        case(f"nan k{k}", "aoti_torch_cpu_max_pool3d_with_indices",
             [T(x), k, [1], [0], [1], 0, Ret(), Ret()],
             lambda k=k: A.max_pool3d_with_indices(x, k, [1]))
    case("nan adaptive", "aoti_torch_cpu_adaptive_max_pool3d", [T(x), [1, 1, 1], Ret(), Ret()],
         lambda: A.adaptive_max_pool3d(x, [1, 1, 1]))
    case("nan 2-d", "aoti_torch_cpu_max_pool2d_with_indices",
         [T(x[0]), [2], [1], [0], [1], 0, Ret(), Ret()],
         lambda: A.max_pool2d_with_indices(x[0], [2], [1]))
    # values beyond int (PyTorch's safe_downcast) and output sizes whose product overflows
    x = rand([1, 1, 2, 2, 2], torch.float32)
    big = 2 ** 33
    case("kernel beyond int", "aoti_torch_cpu_max_pool3d_with_indices",
         [T(x), [big], [1], [0], [1], 0, Ret(), Ret()],
         lambda: A.max_pool3d_with_indices(x, [big], [1], [0], [1], False))
    case("stride beyond int", "aoti_torch_cpu_avg_pool3d",
         [T(x), [2], [big], [0], 0, 1, Opt(None), Ret()],
         lambda: A.avg_pool3d(x, [2], [big], [0], False, True, None))
    case("dilation beyond int", "aoti_torch_cpu_max_pool2d_with_indices",
         [T(x[0, 0]), [2], [1], [0], [big], 0, Ret(), Ret()],
         lambda: A.max_pool2d_with_indices(x[0, 0], [2], [1], [0], [big], False))
    i0 = torch.zeros(1, 1, 1, 1, 1, dtype=torch.int64)
    case("unpool output overflows", "aoti_torch_cpu_max_unpool3d",
         [T(x[..., :1, :1, :1]), T(i0), [2 ** 40, 2 ** 40, 2], [1, 1, 1], [0, 0, 0], Ret()],
         lambda: A.max_unpool3d(x[..., :1, :1, :1], i0, [2 ** 40, 2 ** 40, 2], [1, 1, 1],
                                [0, 0, 0]))
    # max unpooling: indices from PyTorch's own max pooling, and hand-made bad ones
    for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64]:
        for shape, k in (([2, 3, 6, 7], [2]), ([3, 5, 5], [3, 2]), ([1, 1, 1, 1], [1])):
            src = rand(shape, torch.float32)
            v, i = A.max_pool2d_with_indices(src, k)
            v = v.to(dt)
            osz = list(shape[-2:])
            lays = [("contig", v, i), ("transposed", v.transpose(-1, -2).contiguous()
                                       .transpose(-1, -2), i.transpose(-1, -2).contiguous()
                                       .transpose(-1, -2))]
            if len(shape) == 4:
                lays.append(("channels_last", v.contiguous(memory_format=torch.channels_last),
                             i.contiguous(memory_format=torch.channels_last)))
            for lay, vv, ii in lays:
                for o, ix in ((osz, ii), ([osz[0] + 1, osz[1] + 2], ii), ([1, 1], ii),
                              (osz[:1], ii), ([0, osz[1]], ii), ([-1, 3], ii), (osz, ii + 100),
                              (osz, ii - 100), (osz, ii.int()), (osz, ii[:1])):
                    # (no repeated positions: PyTorch writes them in parallel, any may win)
                    case(f"{dt} {shape} k{k} {lay} out{o} idx{list(ix.shape)} {ix.dtype}",
                         "aoti_torch_cpu_max_unpool2d", [T(vv), T(ix), o, Ret()],
                         lambda vv=vv, ix=ix, o=o: A.max_unpool2d(vv, ix, o))
        for shape, k in (([2, 3, 4, 6, 7], [2]), ([3, 5, 5, 4], [3, 2, 2])):
            src = rand(shape, torch.float32)
            v, i = A.max_pool3d_with_indices(src, k, [], [0], [1], False)
            v = v.to(dt)
            osz = list(shape[-3:])
            for o, ix, st, pd in ((osz, i, [2, 2, 2], [0, 0, 0]), (osz, i, [2], [0, 0, 0]),
                                  (osz, i, [2, 2, 2], [0]), (osz[:2], i, [2, 2, 2], [0, 0, 0]),
                                  (osz, i, [0, 2, 2], [0, 0, 0]), (osz, i, [1, 1, 1], [-1, 0, 9]),
                                  ([osz[0] + 1] + osz[1:], i, [2, 2, 2], [0, 0, 0]),
                                  (osz, i + 1000, [2, 2, 2], [0, 0, 0]),
                                  ([0] + osz[1:], i, [2, 2, 2], [0, 0, 0]),
                                  (osz, i[:1], [2, 2, 2], [0, 0, 0]),
                                  (osz, i.int(), [2, 2, 2], [0, 0, 0])):
                for lay, vv, ii in (("contig", v, ix), ("cl3d", v.contiguous(
                        memory_format=torch.channels_last_3d) if v.dim() == 5 else v.transpose(-1, -2),
                        ix.contiguous(memory_format=torch.channels_last_3d)
                        if ix.dim() == 5 else ix.transpose(-1, -2))):
                    case(f"{dt} {shape} k{k} {lay} out{o} s{st} p{pd} idx{list(ii.shape)}",
                         "aoti_torch_cpu_max_unpool3d", [T(vv), T(ii), o, st, pd, Ret()],
                         lambda vv=vv, ii=ii, o=o, st=st, pd=pd:
                         A.max_unpool3d(vv, ii, o, st, pd))
    for dt in [torch.float32, torch.float64]:
        x = rand([2, 0, 3, 3], dt)
        case(f"{dt} empty channels", "aoti_torch_cpu_max_unpool2d",
             [T(x), T(torch.zeros(2, 0, 3, 3, dtype=torch.int64)), [6, 6], Ret()],
             lambda x=x: A.max_unpool2d(x, torch.zeros(2, 0, 3, 3, dtype=torch.int64), [6, 6]))
        x = rand([0, 2, 3, 3], dt)
        case(f"{dt} empty batch", "aoti_torch_cpu_max_unpool2d",
             [T(x), T(torch.zeros(0, 2, 3, 3, dtype=torch.int64)), [6, 6], Ret()],
             lambda x=x: A.max_unpool2d(x, torch.zeros(0, 2, 3, 3, dtype=torch.int64), [6, 6]))
        x = rand([3, 3], dt)
        case(f"{dt} 2-d", "aoti_torch_cpu_max_unpool2d",
             [T(x), T(torch.zeros(3, 3, dtype=torch.int64)), [6, 6], Ret()],
             lambda x=x: A.max_unpool2d(x, torch.zeros(3, 3, dtype=torch.int64), [6, 6]))


def grid3d_family():
    """grid_sampler_3d (grid_sample.c): modes, paddings, align_corners, grids reaching past
    the input, NaN / inf coordinates, odd strides, bad inputs. The kernel rounds as PyTorch's
    does (in the dtype), so the dtype's own tolerance holds for the half types too."""
    name = "aoti_torch_cpu_grid_sampler_3d"
    for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16]:
        for shape, gshape in (([2, 3, 4, 5, 6], [2, 3, 2, 4, 3]), ([1, 1, 1, 1, 1], [1, 2, 2, 2, 3]),
                              ([1, 2, 3, 1, 4], [1, 1, 5, 1, 3]), ([0, 2, 3, 3, 3], [0, 2, 2, 2, 3]),
                              ([2, 0, 3, 3, 3], [2, 2, 2, 2, 3]), ([2, 2, 3, 3, 3], [2, 0, 2, 2, 3])):
            x0 = rand(shape, dt)
            g0 = rand(gshape, dt, -1.4, 1.4)
            if g0.numel() > 4:
                g0.view(-1)[1] = 1.0
                g0.view(-1)[2] = -1.0
            for lay, x in layouts(x0):
                for glay, g in (("grid contig", g0), ("grid transposed", g0.transpose(1, 3)
                                                      .contiguous().transpose(1, 3))):
                    if dt != torch.float32 and (lay != "contig" or glay != "grid contig"):
                        continue  # strides: float32's cases suffice
                    for mode in (0, 1):
                        for pad in (0, 1, 2):
                            for align in (0, 1):
                                case(f"{dt} {shape} {lay} {gshape} {glay} mode={mode} "
                                     f"pad={pad} align={align}", name,
                                     [T(x), T(g), mode, pad, align, Ret()],
                                     lambda x=x, g=g, mode=mode, pad=pad, align=align:
                                     A.grid_sampler_3d(x, g, mode, pad, bool(align)))
    x = rand([1, 2, 3, 4, 5], torch.float32)
    g = torch.tensor([[[[[float("nan"), 0.0, 0.0], [float("inf"), 0.5, -0.5],
                         [1e30, -1e30, 0.0], [-1.0, 1.0, 7.5]]]]])
    for mode in (0, 1):
        for pad in (0, 1, 2, 3):
            for align in (0, 1):
                case(f"special grid mode={mode} pad={pad} align={align}", name,
                     [T(x), T(g), mode, pad, align, Ret()],
                     lambda mode=mode, pad=pad, align=align:
                     A.grid_sampler_3d(x, g, mode, pad, bool(align)))
    g = rand([1, 2, 2, 2, 3], torch.float32, -1, 1)
    for label, xi, gi in (("mixed dtypes", x, g.double()), ("int input", x.long(), g.long()),
                          ("4-d input", x[0], g[0]), ("batch", x, torch.cat([g, g])),
                          ("grid last dim 2", x, g[..., :2]), ("empty depth", x[:, :, :0], g)):
        case(label, name, [T(xi), T(gi), 0, 0, 0, Ret()],
             lambda xi=xi, gi=gi: A.grid_sampler_3d(xi, gi, 0, 0, False))
    # not PyTorch's behaviour (documented in grid_sample.c): PyTorch's kernel leaves the output
    # uninitialized for an interpolation mode other than bilinear and nearest; refused here
    if not ONLY or ONLY in name:
        for mode in (2, 3, -1):
            res, hs = call(name, [T(x), T(g), mode, 0, 0, Ret()])
            if not isinstance(res, int):
                failures.append(f"{name} mode={mode}: libshimrt should refuse")
            release(hs)


def complex_family():
    """view_as_real, view_as_complex, polar, angle (complex.c)."""
    for dt in [torch.complex64, torch.complex128, torch.float32, torch.int64]:
        for shape in ([3, 4], [], [0, 3], [2, 3, 4]):
            base = rand(shape, torch.float64).to(dt) if dt.is_complex else rand(shape, dt)
            if dt.is_complex:
                base = base + 1j * rand(shape, torch.float64).to(dt)
            for lay, x in list(layouts(base)) + ([("offset", base.flatten()[1:])]
                                                 if base.numel() > 1 else []):
                case(f"{dt} {shape} {lay}", "aoti_torch_cpu_view_as_real", [T(x), Ret()],
                     lambda x=x: A.view_as_real(x))
                case(f"{dt} {shape} {lay}", "aoti_torch_cpu_angle", [T(x), Ret()],
                     lambda x=x: A.angle(x))
    for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32]:
        for shape in ([3, 4, 2], [2], [0, 2], [3, 0, 2], [3, 4, 3], [], [3, 2, 4]):
            base = rand(shape, dt)
            # (a storage offset does not reach libshimrt: to_rt copies into a new tensor)
            odd = (base.flatten()[:(base.numel() // 3) * 2].view(-1, 2)[::3]
                   if base.numel() >= 6 else base)
            for lay, x in list(layouts(base)) + [("every third row", odd)]:
                case(f"{dt} {shape} {lay}", "aoti_torch_cpu_view_as_complex", [T(x), Ret()],
                     lambda x=x: A.view_as_complex(x))
    big = torch.randn(10)
    for label, x in (("stride 3 over a size-1 dim", big.as_strided((3, 1, 2), (2, 3, 1))),
                     ("odd stride", big.as_strided((3, 2), (3, 1), 0))):
        case(label, "aoti_torch_cpu_view_as_complex", [T(x), Ret()],
             lambda x=x: A.view_as_complex(x))
    specials = torch.tensor([-1.0, 0.0, -0.0, 1.0, float("nan"), float("-inf"), float("inf"),
                             -3.5])
    for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.uint8,
               torch.int8, torch.int16, torch.int32, torch.int64, torch.bool]:
        x = specials.to(dt) if dt.is_floating_point else rand([5, 3], dt)
        case(f"{dt} specials", "aoti_torch_cpu_angle", [T(x), Ret()], lambda x=x: A.angle(x))
    c = torch.complex(specials, specials.flip(0))
    for dt in (torch.complex64, torch.complex128):
        case(f"{dt} specials", "aoti_torch_cpu_angle", [T(c.to(dt)), Ret()],
             lambda dt=dt: A.angle(c.to(dt)))
    for dt in [torch.float32, torch.float64, torch.float16]:
        for sa, sb in (([3, 4], [3, 4]), ([3, 4], [4]), ([1, 4], [3, 1]), ([], [2, 3]),
                       ([0, 3], [3]), ([3, 4], [2, 4])):
            a0, b0 = rand(sa, dt, 0, 3), rand(sb, dt, -4, 4)
            for (la, a), (lb, b) in zip(layouts(a0), list(layouts(b0))[::-1]):
                case(f"{dt} {sa} {la} {sb} {lb}", "aoti_torch_cpu_polar", [T(a), T(b), Ret()],
                     lambda a=a, b=b: A.polar(a, b))
    case("specials", "aoti_torch_cpu_polar", [T(specials.abs()), T(specials), Ret()],
         lambda: A.polar(specials.abs(), specials))
    a, b = rand([3], torch.float32, 0, 2), rand([3], torch.float32)
    for label, x, y in (("mixed", a, b.double()), ("int", a.int(), b.int()),
                        ("bfloat16", a.bfloat16(), b.bfloat16())):
        case(label, "aoti_torch_cpu_polar", [T(x), T(y), Ret()], lambda x=x, y=y: A.polar(x, y))
# ---- issue 20: backward ops (runtime/cpu/backward_pool.c, backward_misc.c) ---------------------
# grad_output random, the indices PyTorch's own forward gives; self and grad_output contiguous,
# transposed, sliced and channels-last. libshimrt adds in PyTorch's order with its dtype's
# rounding, so the values must be bit-identical (EXACT) where PyTorch's kernel is its
# contiguous one (its channels-last adaptive-average kernel divides by kh * kw at once).
EXACT = (0.0, 0.0)


def refuses(label, name, args):
    """libshimrt must refuse (PyTorch's kernel would index out of bounds: not called)."""
    started = begin(name, args)
    if started is None:
        return
    res, hs = started
    if not isinstance(res, int):
        failures.append(f"{name} {label}: libshimrt should refuse")
    else:
        counts["both_err"] += 1
    release(hs)


def same_refusal(name, args, torch_call):
    """Both must refuse with the same message (an op that PyTorch's CPU refuses outright)."""
    started = begin(name, args)
    if started is None:
        return
    res, hs = started
    try:
        torch_call()
        werr = None
    except Exception as e:
        werr = str(e).splitlines()[0]
    why = LIB.torch_exception_get_what().decode() if isinstance(res, int) else None
    if not werr or not why or werr.strip() not in why:
        failures.append(f"{name}: PyTorch: {werr!r}, libshimrt: {why!r}")
    release(hs)


def cl_of(t):
    return t.contiguous(memory_format=torch.channels_last) if t.dim() == 4 else t


def pool_backward_family():
    mx = "aoti_torch_cpu_max_pool2d_with_indices_backward"
    av = "aoti_torch_cpu_avg_pool2d_backward"
    aa = "aoti_torch_cpu__adaptive_avg_pool2d_backward"
    am = "aoti_torch_cpu_adaptive_max_pool2d_backward"
    for dt in [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64,
               torch.int32, torch.bool]:
        fdt = dt if dt in FLOATS else torch.float32
        for shape in ([2, 3, 7, 8], [3, 6, 5], [1, 2, 1, 1], [0, 2, 4, 4], [2, 5, 9, 9]):
            xf = rand(shape, fdt, -5, 5)
            x0 = xf.to(dt)
            lays = list(layouts(x0))
            if len(shape) == 4:
                lays.append(("channels_last", cl_of(x0)))
            if dt != torch.float32:  # (strides are float32's to test; the rest: two layouts)
                lays = [lay for lay in lays if lay[0] in ("contig", "channels_last")]
            if dt in (torch.int32, torch.bool) and shape != [2, 3, 7, 8]:
                continue  # (refused dtypes: one shape)
            for (k, st, pd, dl, ceil) in [([2], [], [0], [1], 0), ([3, 2], [2, 1], [1, 0], [1], 1),
                                          ([3], [2], [1], [2, 1], 0), ([2, 3], [3], [1], [1], 1),
                                          ([1], [1], [0], [1], 0), ([3], [1], [1], [1], 0)]:
                try:
                    o, ix = A.max_pool2d_with_indices(xf, k, st, pd, dl, bool(ceil))
                except Exception:
                    continue
                g0 = rand(o.shape, dt, -3, 3)
                glays = [("g contig", g0), ("g cl", cl_of(g0)), ("g sliced", list(layouts(g0))[-1][1])]
                for lay, x in lays:
                    for glay, g in glays if dt == torch.float32 else glays[:1]:
                        tag = f"{dt} {shape} {lay} {glay} k{k} s{st} p{pd} d{dl} ceil={ceil}"
                        case(tag, mx, [T(g), T(x), k, st, pd, dl, ceil, T(ix), Ret()],
                             lambda g=g, x=x, k=k, st=st, pd=pd, dl=dl, ceil=ceil, ix=ix:
                             A.max_pool2d_with_indices_backward(g, x, k, st, pd, dl, bool(ceil), ix),
                             loose=EXACT)
                        if dl != [1]:
                            continue
                        for inc in (1, 0):
                            for div in (None, 3, -2) if inc else (None,):
                                case(f"{tag} include_pad={inc} divisor={div}", av,
                                     [T(g), T(x), k, st, pd, ceil, inc, Opt(div), Ret()],
                                     lambda g=g, x=x, k=k, st=st, pd=pd, ceil=ceil, inc=inc, div=div:
                                     A.avg_pool2d_backward(g, x, k, st, pd, bool(ceil), bool(inc), div),
                                     loose=EXACT)
            for osz in ([1, 1], [3, 4], [7, 8], [5, 3], [10, 11]):
                if xf.numel() and min(shape[-2:]) > 0:
                    o, ix = A.adaptive_max_pool2d(xf, osz)
                else:
                    continue
                g0 = rand(o.shape, dt, -3, 3)
                glays = [("g contig", g0), ("g cl", cl_of(g0)), ("g transposed", list(layouts(g0))[1][1])]
                for lay, x in lays:
                    for glay, g in glays if dt == torch.float32 else glays[:1]:
                        tag = f"{dt} {shape} {lay} {glay} out{osz}"
                        case(tag, aa, [T(g), T(x), Ret()],
                             lambda g=g, x=x: A._adaptive_avg_pool2d_backward(g, x),
                             loose=EXACT if glay != "g cl" else False)
                        case(tag, am, [T(g), T(x), T(ix), Ret()],
                             lambda g=g, x=x, ix=ix: A.adaptive_max_pool2d_backward(g, x, ix),
                             loose=EXACT)
    # many windows over one input element (sums of many rounded terms)
    for dt in FLOATS:
        x = rand([2, 3, 16, 16], dt)
        o, ix = A.max_pool2d_with_indices(x.float(), [5], [1], [2])
        g = rand(o.shape, dt, -100, 100)
        case(f"{dt} overlapping", av, [T(g), T(x), [5], [1], [2], 0, 1, Opt(None), Ret()],
             lambda: A.avg_pool2d_backward(g, x, [5], [1], [2], False, True, None), loose=EXACT)
        case(f"{dt} overlapping", mx, [T(g), T(x), [5], [1], [2], [1], 0, T(ix), Ret()],
             lambda: A.max_pool2d_with_indices_backward(g, x, [5], [1], [2], [1], False, ix),
             loose=EXACT)
        case(f"{dt} adaptive overlapping", aa, [T(g[..., :7, :5]), T(x), Ret()],
             lambda: A._adaptive_avg_pool2d_backward(g[..., :7, :5], x), loose=EXACT)
    gi = torch.tensor([[[[2 ** 62, -(2 ** 63)]]]])
    xi = torch.zeros(1, 1, 2, 2, dtype=torch.int64)
    for div in (None, -1, 3):
        case(f"int64 extremes divisor={div}", av, [T(gi), T(xi), [1], [2], [0], 0, 1, Opt(div), Ret()],
             lambda div=div: A.avg_pool2d_backward(gi, xi, [1], [2], [0], False, True, div))
    # bad inputs: both refuse
    x = rand([2, 3, 5, 5], torch.float32)
    o, ix = A.max_pool2d_with_indices(x, [2], [2])
    g = rand(o.shape, torch.float32)
    bad = [("grad batch", g[:1], x, ix), ("grad dim", g[0], x, ix), ("grad dtype", g.double(), x, ix),
           ("indices shape", g, x, ix[:, :, :1]), ("indices int32", g, x, ix.int()),
           ("self 2-d", g[0, 0], x[0, 0], ix[0, 0]), ("self 5-d", g[None], x[None], ix[None]),
           ("zero channels", g[:, :0], x[:, :0], ix[:, :0])]
    for label, gg, xx, ii in bad:
        case(label, mx, [T(gg), T(xx), [2], [2], [0], [1], 0, T(ii), Ret()],
             lambda gg=gg, xx=xx, ii=ii: A.max_pool2d_with_indices_backward(gg, xx, [2], [2], [0], [1], False, ii))
        case(label, av, [T(gg), T(xx), [2], [2], [0], 0, 1, Opt(None), Ret()],
             lambda gg=gg, xx=xx: A.avg_pool2d_backward(gg, xx, [2], [2], [0], False, True, None))
        case(label, am, [T(gg), T(xx), T(ii), Ret()],
             lambda gg=gg, xx=xx, ii=ii: A.adaptive_max_pool2d_backward(gg, xx, ii))
        if label != "grad batch":  # (PyTorch reads past grad_output there)
            case(label, aa, [T(gg), T(xx), Ret()], lambda gg=gg, xx=xx: A._adaptive_avg_pool2d_backward(gg, xx))
    for (k, st, pd, dl) in [([2, 2, 2], [2], [0], [1]), ([2], [2, 2, 2], [0], [1]), ([2], [2], [], [1]),
                            ([2], [2], [0], []), ([2], [0], [0], [1]), ([0], [2], [0], [1]),
                            ([2], [2], [2], [1]), ([2], [2], [-1], [1]), ([2], [2], [0], [0]),
                            ([2], [-2], [0], [1]), ([2 ** 40], [2], [0], [1]), ([9], [2], [0], [1])]:
        case(f"k{k} s{st} p{pd} d{dl}", mx, [T(g), T(x), k, st, pd, dl, 0, T(ix), Ret()],
             lambda k=k, st=st, pd=pd, dl=dl: A.max_pool2d_with_indices_backward(g, x, k, st, pd, dl, False, ix))
        if dl == [1]:
            case(f"k{k} s{st} p{pd}", av, [T(g), T(x), k, st, pd, 0, 1, Opt(None), Ret()],
                 lambda k=k, st=st, pd=pd: A.avg_pool2d_backward(g, x, k, st, pd, False, True, None))
    case("divisor 0", av, [T(g), T(x), [2], [2], [0], 0, 1, Opt(0), Ret()],
         lambda: A.avg_pool2d_backward(g, x, [2], [2], [0], False, True, 0))
    # indices PyTorch's kernels would follow out of bounds: libshimrt refuses
    for label, bad_ix in (("index 25", ix.clone().fill_(25)), ("index -2", ix.clone().fill_(-2))):
        refuses(label, mx, [T(g), T(x), [2], [2], [0], [1], 0, T(bad_ix), Ret()])
        refuses(label, am, [T(g), T(x), T(bad_ix), Ret()])
    refuses("index -1", am, [T(g), T(x), T(ix.clone().fill_(-1)), Ret()])
    mone = ix.clone()
    mone[0, 0] = -1  # max_pool2d's kernel skips -1
    case("index -1", mx, [T(g), T(x), [2], [2], [0], [1], 0, T(mone), Ret()],
         lambda: A.max_pool2d_with_indices_backward(g, x, [2], [2], [0], [1], False, mone), loose=EXACT)
    refuses("grad fewer planes", aa, [T(g[:, :2]), T(x), Ret()])
    # (PyTorch 2.15 aborts on an empty input's grad_bias without bias_sizes: refused here)
    xe, we = rand([0, 3, 5, 5], torch.float32), rand([4, 3, 3, 3], torch.float32)
    refuses("empty input, no bias_sizes", "aoti_torch_cpu_convolution_backward",
            [T(rand([0, 4, 3, 3], torch.float32)), T(xe), T(we), Opt(None), 0, [1], [0], [1], 0, [0], 1,
             [1, 1, 1], Ret(), Ret(), Ret()])


def pad_backward_family():
    r1 = "aoti_torch_cpu_replication_pad1d_backward"
    r2 = "aoti_torch_cpu_replication_pad2d_backward"
    for dt in [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64, torch.bool]:
        for name, ref, shapes, pads in (
                (r1, A.replication_pad1d_backward, ([2, 3, 5], [3, 7], [1, 1, 1], [0, 3, 5],
                                                    [2, 3, 0], [1, 2, 3, 5]),
                 ([1, 2], [0, 0], [-1, 2], [3, 3], [-2, -2], [6, 0])),
                (r2, A.replication_pad2d_backward, ([2, 3, 5, 6], [3, 4, 4], [1, 1, 1, 1],
                                                    [0, 2, 3, 3], [2, 0, 3, 3]),
                 ([0, 1, 1, 2], [2, 2, 2, 2], [-1, 1, 0, -2], [3, 0, 0, 4], [0, 0, 0, 0]))):
            for shape in shapes:
                x0 = rand(shape, dt)
                lays = list(layouts(x0))
                if len(shape) == 4:
                    lays.append(("channels_last", cl_of(x0)))
                for pd in pads:
                    osz = list(shape)
                    for i in range(len(pd) // 2):
                        osz[-1 - i] += pd[2 * i] + pd[2 * i + 1]
                    if min(osz) < 0:
                        continue
                    g0 = rand(osz, dt, -50, 50)
                    glays = [("g contig", g0)] + ([("g cl", cl_of(g0)), ("g transposed",
                                                  list(layouts(g0))[1][1])] if dt == torch.float32 else [])
                    for lay, x in lays:
                        for glay, g in glays:
                            case(f"{dt} {shape} {lay} {glay} pad{pd}", name, [T(g), T(x), pd, Ret()],
                                 lambda g=g, x=x, pd=pd, ref=ref: ref(g, x, pd), loose=EXACT)
    x, g = rand([2, 3, 5], torch.float32), rand([2, 3, 8], torch.float32)
    for label, gg, xx, pd in (("pad length", g, x, [1, 2, 0]), ("width", g, x, [1, 1]),
                              ("channels", g[:, :2], x, [1, 2]), ("grad dim", g[0], x, [1, 2]),
                              ("grad dtype", g.double(), x, [1, 2]), ("self dtype", g, x.double(), [1, 2]),
                              ("huge pad", g, x, [2 ** 62, 2 ** 62]), ("1-d grad", g[0, 0], x, [1, 2])):
        case(label, r1, [T(gg), T(xx), pd, Ret()], lambda gg=gg, xx=xx, pd=pd: A.replication_pad1d_backward(gg, xx, pd))
    refuses("fewer planes", r1, [T(g[:1]), T(x), [1, 2], Ret()])
    refuses("1-d self", r1, [T(g[0, 0, :5]), T(x[0, 0]), [1, -1], Ret()])
    x, g = rand([2, 3, 5, 5], torch.float32), rand([2, 3, 8, 6], torch.float32)
    for label, gg, xx, pd in (("pad length", g, x, [0, 1]), ("height", g, x, [0, 1, 1, 1]),
                              ("channels", g[:, :2], x, [0, 1, 1, 2]), ("grad dim", g[0], x, [0, 1, 1, 2]),
                              ("grad dtype", g.double(), x, [0, 1, 1, 2]), ("self 2-d", g[0, 0], x[0, 0], [0, 1, 1, 2]),
                              ("self 5-d", g[None], x[None], [0, 1, 1, 2]),
                              ("zero channels", g[:, :0], x[:, :0], [0, 1, 1, 2])):
        case(label, r2, [T(gg), T(xx), pd, Ret()], lambda gg=gg, xx=xx, pd=pd: A.replication_pad2d_backward(gg, xx, pd))
    refuses("fewer planes", r2, [T(g[:1]), T(x), [0, 1, 1, 2], Ret()])


def misc_backward_family():
    ms = "aoti_torch_cpu_masked_scatter_backward"
    for dt in NUMERIC + [torch.bool]:
        for shape, mshape in (([3, 4], [3, 4]), ([3, 4], [4]), ([2, 3, 4], [3, 1]), ([5], []),
                              ([], []), ([0, 3], [3]), ([2, 3], [2, 3])):
            g0, m = rand(shape, dt), torch.rand(mshape) > 0.4
            k = int(torch.broadcast_to(m, torch.broadcast_shapes(g0.shape, m.shape)).sum())
            for lay, g in layouts(g0):
                for sizes in (list(shape), [k], [k + 3], [-1], [k, -1] if k else [0, 2], [2, -1],
                              [max(k - 1, 0)], [-2], [7, 3]):
                    case(f"{dt} {shape} mask {mshape} {lay} sizes {sizes}", ms,
                         [T(g), T(m), sizes, Ret()],
                         lambda g=g, m=m, sizes=sizes: A.masked_scatter_backward(g, m, sizes))
    g = rand([3, 4], torch.float32)
    case("int mask", ms, [T(g), T(torch.ones(3, 4, dtype=torch.uint8)), [12], Ret()],
         lambda: A.masked_scatter_backward(g, torch.ones(3, 4, dtype=torch.uint8), [12]))
    case("mask shape", ms, [T(g), T(torch.ones(5) > 0), [12], Ret()],
         lambda: A.masked_scatter_backward(g, torch.ones(5) > 0, [12]))
    sm = "aoti_torch_cpu_soft_margin_loss_backward"
    for dt in FLOATS + [torch.int64, torch.bool]:
        for shape, tshape, gshape in (([3, 4], [3, 4], []), ([3, 4], [4], [3, 4]), ([5], [5], [1]),
                                      ([2, 3, 4], [3, 1], [2, 3, 4]), ([0, 3], [3], []),
                                      ([], [], []), ([3, 1], [1, 4], [3, 4]), ([3, 4], [3, 4], [2, 3, 4])):
            x0, tg, go = rand(shape, dt, -3, 3), rand(tshape, dt, -2, 2), rand(gshape, dt, -2, 2)
            for lay, x in layouts(x0):
                for red in (0, 1, 2):
                    case(f"{dt} {shape} target {tshape} grad {gshape} {lay} reduction={red}", sm,
                         [T(go), T(x), T(tg), red, Ret()],
                         lambda go=go, x=x, tg=tg, red=red: A.soft_margin_loss_backward(go, x, tg, red),
                         loose=True)
    x, tg = rand([3, 4], torch.float32), rand([3, 4], torch.float64)
    for label, a, b, c in (("target float64", rand([], torch.float32), x, tg),
                           ("self float64, grad float32", rand([3, 4], torch.float32), tg, x),
                           ("grad int", rand([3, 4], torch.int64), x, x),
                           ("self half, target float", rand([3, 4], torch.float32), x.half(), x),
                           ("self int, target float", x, rand([3, 4], torch.int32), x)):
        case(label, sm, [T(a), T(b), T(c), 1, Ret()],
             lambda a=a, b=b, c=c: A.soft_margin_loss_backward(a, b, c, 1), loose=True)


def conv_backward_family():
    name = "aoti_torch_cpu_convolution_backward"
    cases = CONV_CASES + [  # (conv_family's, and output_padding >= stride; no channels)
        ([1, 2, 5, 5], [2, 3, 3, 3], [1], [0], [3], 1, [2], 1),
        ([2, 0, 5, 5], [4, 0, 3, 3], [1], [0], [1], 0, [0], 1)]
    tol = {torch.float32: (1e-4, 1e-4), torch.float64: (1e-9, 1e-9),
           torch.bfloat16: (3e-2, 3e-2), torch.float16: (1e-2, 1e-2)}  # (sums of ~200 products)
    for dt in [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64]:
        for k, (xs, ws, st, pd, dl, tr, op, g) in enumerate(cases):
            x0, w0 = rand(xs, torch.float32, -2, 2), rand(ws, torch.float32, -1, 1)
            y = A.convolution(x0, w0, None, st, pd, dl, bool(tr), op, g)
            go0 = rand(list(y.shape), torch.float32, -1, 1).to(dt)
            x0, w0 = x0.to(dt), w0.to(dt)
            lays = [("contig", x0, w0, go0)]
            if dt == torch.float32 or dt == torch.bfloat16:
                if len(xs) == 4:
                    lays.append(("channels_last", cl_of(x0), w0, go0))
                    lays.append(("cl_weight", x0, cl_of(w0), go0))
                    lays.append(("cl_grad", x0, w0, cl_of(go0)))
                lays.append(("sliced", list(layouts(x0))[-1][1], w0, list(layouts(go0))[-1][1]))
            for lay, x, w, go in lays:
                for mask in ([1, 1, 1], [1, 0, 0], [0, 1, 1]):
                    def ref(x=x, w=w, go=go, st=st, pd=pd, dl=dl, tr=tr, op=op, g=g, mask=mask):
                        return list(A.convolution_backward(go, x, w, [w.shape[1] * g if tr else w.shape[0]],
                                                           st, pd, dl, bool(tr), op, g,
                                                           [bool(m) for m in mask]))
                    oc = w.shape[1] * g if tr else w.shape[0]
                    case(f"{dt} #{k} x{xs} w{ws} s{st} p{pd} d{dl} t{tr} op{op} g{g} {lay} mask{mask}",
                         name, [T(go), T(x), T(w), Opt(C.c_int64(oc)), 1, st, pd, dl, tr, op, g, mask,
                                Ret(), Ret(), Ret()], ref, loose=tol.get(dt, True), check=lambda r, mask=mask: mask[r])
                    if dt == torch.float32 and lay != "sliced" and mask == [1, 1, 1]:
                        res, hs = call(name, [T(go), T(x), T(w), Opt(None), 0, st, pd, dl, tr, op, g, mask,
                                              Ret(), Ret(), Ret()])
                        if not isinstance(res, int):
                            for r, want in zip(res[:2], ref()[:2]):
                                got = from_rt(r)
                                big = [i for i in range(got.dim()) if got.shape[i] > 1]
                                if got.numel() > 1 and ([got.stride(i) for i in big] !=
                                                        [want.stride(i) for i in big]):
                                    failures.append(f"convolution_backward #{k} {lay}: strides "
                                                    f"{got.stride()} != {want.stride()}")
                        release(hs)
    x, w = rand([2, 3, 7, 8], torch.float32), rand([5, 3, 3, 3], torch.float32)
    go = rand([2, 5, 5, 6], torch.float32)
    for label, gg, xx, ww, mask in (("grad shape", go[:, :, :3], x, w, [1, 1, 1]),
                                    ("grad dtype", go.double(), x, w, [1, 1, 1]),
                                    ("weight dtype", go, x, w.double(), [1, 1, 1]),
                                    ("channels", go, x[:, :2], w, [1, 1, 1]),
                                    ("mask length", go, x, w, [1, 1]),
                                    ("int32", go.int(), x.int(), w.int(), [1, 1, 1]),
                                    ("int64 undilated", go.long(), x.long(), w.long(), [1, 1, 1])):
        case(label, name, [T(gg), T(xx), T(ww), Opt(None), 0, [1], [0], [1], 0, [0], 1, mask, Ret(), Ret(),
                           Ret()],
             lambda gg=gg, xx=xx, ww=ww, mask=mask: A.convolution_backward(gg, xx, ww, None, [1], [0], [1],
                                                                           False, [0], 1,
                                                                           [bool(m) for m in mask]))


def pool3d_backward_family():
    mx = "aoti_torch_cpu_max_pool3d_with_indices_backward"
    av = "aoti_torch_cpu_avg_pool3d_backward"
    aa = "aoti_torch_cpu__adaptive_avg_pool3d_backward"
    am = "aoti_torch_cpu_adaptive_max_pool3d_backward"
    for dt in [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64]:
        for shape in ([2, 3, 5, 6, 7], [3, 4, 4, 5], [1, 2, 1, 1, 1], [0, 2, 4, 4, 4]):
            xf = rand(shape, torch.float32, -5, 5)
            x0 = xf.to(dt)
            lays = list(layouts(x0))
            if len(shape) == 5:
                lays.append(("cl3d", x0.contiguous(memory_format=torch.channels_last_3d)))
            if dt != torch.float32:
                lays = lays[:1]
            for (k, st, pd, dl, ceil) in [([2], [], [0], [1], 0), ([3, 2, 2], [2, 1, 2], [1, 0, 1], [1], 1),
                                          ([2], [1], [1], [2, 1, 1], 0), ([1], [1], [0], [1], 0)]:
                try:
                    o, ix = A.max_pool3d_with_indices(xf, k, st, pd, dl, bool(ceil))
                except Exception:
                    continue
                g = rand(o.shape, dt, -3, 3)
                for lay, x in lays:
                    tag = f"{dt} {shape} {lay} k{k} s{st} p{pd} d{dl} ceil={ceil}"
                    if ix.numel() and int(ix.max()) >= shape[-1] * shape[-2] * shape[-3]:
                        # a window with no input element: PyTorch's forward gives an index past
                        # the plane, its backward writes there (into the next plane or past
                        # the tensor); libshimrt refuses
                        refuses(tag, mx, [T(g), T(x), k, st, pd, dl, ceil, T(ix), Ret()])
                        continue
                    case(tag, mx, [T(g), T(x), k, st, pd, dl, ceil, T(ix), Ret()],
                         lambda g=g, x=x, k=k, st=st, pd=pd, dl=dl, ceil=ceil, ix=ix:
                         A.max_pool3d_with_indices_backward(g, x, k, st, pd, dl, bool(ceil), ix),
                         loose=EXACT)
                    if dl != [1]:
                        continue
                    for inc, div in ((1, None), (0, None), (1, 3)):
                        case(f"{tag} include_pad={inc} divisor={div}", av,
                             [T(g), T(x), k, st, pd, ceil, inc, Opt(div), Ret()],
                             lambda g=g, x=x, k=k, st=st, pd=pd, ceil=ceil, inc=inc, div=div:
                             A.avg_pool3d_backward(g, x, k, st, pd, bool(ceil), bool(inc), div),
                             loose=EXACT)
            if not xf.numel():
                continue
            for osz in ([1, 1, 1], [2, 3, 4], [5, 6, 7], [7, 3, 2]):
                o, ix = A.adaptive_max_pool3d(xf, osz)
                g = rand(o.shape, dt, -3, 3)
                for lay, x in lays:
                    tag = f"{dt} {shape} {lay} out{osz}"
                    case(tag, aa, [T(g), T(x), Ret()], lambda g=g, x=x: A._adaptive_avg_pool3d_backward(g, x),
                         loose=EXACT)
                    case(tag, am, [T(g), T(x), T(ix), Ret()],
                         lambda g=g, x=x, ix=ix: A.adaptive_max_pool3d_backward(g, x, ix), loose=EXACT)
    x = rand([2, 3, 5, 6, 7], torch.float32)
    o, ix = A.max_pool3d_with_indices(x, [2], [2])
    g = rand(o.shape, torch.float32)
    for label, gg, xx, ii in (("grad dim", g[0], x, ix), ("grad dtype", g.double(), x, ix),
                              ("grad channels", g[:, :2], x, ix[:, :2]), ("indices int32", g, x, ix.int()),
                              ("self 3-d", g[0, 0], x[0, 0], ix[0, 0]), ("indices shape", g, x, ix[..., :1])):
        case(label, mx, [T(gg), T(xx), [2], [2], [0], [1], 0, T(ii), Ret()],
             lambda gg=gg, xx=xx, ii=ii: A.max_pool3d_with_indices_backward(gg, xx, [2], [2], [0], [1], False, ii))
        case(label, av, [T(gg), T(xx), [2], [2], [0], 0, 1, Opt(None), Ret()],
             lambda gg=gg, xx=xx: A.avg_pool3d_backward(gg, xx, [2], [2], [0], False, True, None))
        if label != "grad channels":  # (PyTorch reads past grad_output and indices there)
            case(label, am, [T(gg), T(xx), T(ii), Ret()],
                 lambda gg=gg, xx=xx, ii=ii: A.adaptive_max_pool3d_backward(gg, xx, ii))
            case(label, aa, [T(gg), T(xx), Ret()], lambda gg=gg, xx=xx: A._adaptive_avg_pool3d_backward(gg, xx))
    # (differential fuzzer) an empty non-batch dim of grad_output is refused before any other check
    for gs, xs in (([4, 1, 0, 3], [4, 1, 0, 3]), ([4, 1, 0, 3], [4, 1]), ([1, 0, 2, 3], [2, 1, 2, 3]),
                   ([0, 1, 2, 3], [0, 1, 2, 3])):
        ge, xe = torch.zeros(gs), torch.zeros(xs)
        case(f"grad {gs} self {xs}", aa, [T(ge), T(xe), Ret()],
             lambda ge=ge, xe=xe: A._adaptive_avg_pool3d_backward(ge, xe))
    for (k, st, pd) in ([[2, 2], [2], [0]], [[2], [0], [0]], [[0], [2], [0]], [[2], [2], [2]], [[8], [2], [0]]):
        case(f"k{k} s{st} p{pd}", mx, [T(g), T(x), k, st, pd, [1], 0, T(ix), Ret()],
             lambda k=k, st=st, pd=pd: A.max_pool3d_with_indices_backward(g, x, k, st, pd, [1], False, ix))
        case(f"k{k} s{st} p{pd}", av, [T(g), T(x), k, st, pd, 0, 1, Opt(None), Ret()],
             lambda k=k, st=st, pd=pd: A.avg_pool3d_backward(g, x, k, st, pd, False, True, None))
    refuses("fewer planes", mx, [T(g[:1]), T(x), [2], [2], [0], [1], 0, T(ix[:1]), Ret()])
    refuses("fewer planes", av, [T(g[:1]), T(x), [2], [2], [0], 0, 1, Opt(None), Ret()])
    refuses("index out of plane", am, [T(g), T(x), T(ix + 1000), Ret()])
    refuses("grad channels", am, [T(g[:, :2]), T(x), T(ix[:, :2]), Ret()])


def dist_backward_family():
    pf, pb, cb = ("aoti_torch_cpu__pdist_forward", "aoti_torch_cpu__pdist_backward",
                  "aoti_torch_cpu__cdist_backward")
    ps = (0.0, 1.0, 0.5, 1.5, 2.0, 3.0, float("inf"))
    for dt in [torch.float32, torch.float64, torch.bfloat16, torch.int64]:
        fdt = dt if dt in (torch.float32, torch.float64) else torch.float32
        for shape in ([5, 3], [1, 4], [6, 1], [4, 0], [0, 3], [7, 17], [3, 2, 2]):
            x = rand(shape, fdt, -3, 3)
            if shape[0] > 2:
                x[0, ...] = x[-1, ...]  # a zero distance
            for p in ps:
                case(f"{dt} {shape} p={p}", pf, [T(x.to(dt)), p, Ret()],
                     lambda x=x, p=p: A._pdist_forward(x.to(dt), p), loose=True)
                if len(shape) != 2 or shape[0] == 0:  # (PyTorch 2.15's backward dies on 0 rows)
                    continue
                d = A._pdist_forward(x, p) if shape[1] else torch.zeros(shape[0] * (shape[0] - 1) // 2)
                g = rand(d.shape, fdt, -2, 2)
                for glay, gg in (("g contig", g), ("g strided", list(layouts(g))[-1][1])):
                    case(f"{dt} {shape} p={p} {glay}", pb, [T(gg.to(dt)), T(x.to(dt)), p, T(d.to(dt)), Ret()],
                         lambda gg=gg, x=x, p=p, d=d: A._pdist_backward(gg.to(dt), x.to(dt), p, d.to(dt)),
                         loose=True)
        for s1, s2 in (([4, 3], [5, 3]), ([2, 4, 3], [2, 5, 3]), ([1, 4, 3], [3, 5, 3]), ([2, 1, 4, 2], [3, 5, 2]),
                       ([0, 4, 3], [1, 5, 3]), ([4, 0], [5, 0]), ([3, 6], [1, 6])):
            x1, x2 = rand(s1, fdt, -3, 3), rand(s2, fdt, -3, 3)
            if s1[-2] and s2[-2]:
                x2[..., 0, :] = x1[..., 0, :] if s1[:-2] == s2[:-2] else x2[..., 0, :]
            for p in ps:
                cd = A._cdist_forward(x1, x2, p, None)
                g = rand(cd.shape, fdt, -2, 2)
                for lay, a in layouts(x1):
                    case(f"{dt} {s1} {s2} p={p} x1 {lay}", cb,
                         [T(g.to(dt)), T(a.to(dt)), T(x2.to(dt)), p, T(cd.to(dt)), Ret()],
                         lambda g=g, a=a, x2=x2, p=p, cd=cd: A._cdist_backward(g.to(dt), a.to(dt), x2.to(dt), p, cd.to(dt)),
                         loose=True)
    x = rand([5, 3], torch.float32)
    d = A._pdist_forward(x, 2.0)
    for label, g, xx, dd in (("self transposed", torch.ones(10), x.t().contiguous().t(), d),
                             ("grad dtype", torch.ones(10).double(), x, d), ("1-d", torch.ones(10), x[0], d)):
        case(label, pb, [T(g), T(xx), 2.0, T(dd), Ret()], lambda g=g, xx=xx, dd=dd: A._pdist_backward(g, xx, 2.0, dd))
    case("transposed", pf, [T(x.t()), 2.0, Ret()], lambda: A._pdist_forward(x.t(), 2.0))
    case("1-d", pf, [T(x[0]), 2.0, Ret()], lambda: A._pdist_forward(x[0], 2.0))
    refuses("short grad", pb, [T(torch.ones(3)), T(x), 2.0, T(d), Ret()])
    # (differential fuzzer) rows of size(1) > 0 values in no data: PyTorch reads past the end
    refuses("[3, 1, 0]", pf, [T(torch.empty(3, 1, 0)), 2.0, Ret()])
    # (differential fuzzer) an empty self is contiguous whatever its strides
    e = torch.empty_strided([0, 3, 2], [6, 1, 3], dtype=torch.int16)
    case("empty, strides [6, 1, 3]", pf, [T(e), 2.0, Ret()], lambda: A._pdist_forward(e, 2.0))
    # (differential fuzzer) PyTorch reads self.size(1) and grad.stride(0) before the dtypes of
    # grad and pdist, whatever the sizes (p = 0 reads nothing)
    i8, bf = torch.empty(0, dtype=torch.int8), torch.tensor(1.0, dtype=torch.bfloat16)
    for label, g, xx, dd in (("1-d empty self", i8, torch.empty(0), i8),
                             ("0-d grad", bf, torch.empty(4, 1, 2, 0), bf),
                             ("0-d self", torch.ones(1), torch.tensor(1.0), torch.ones(1)),
                             ("int8 grad, empty self", i8, torch.empty(0, 3), torch.empty(0))):
        for p in (0.0, 2.0):
            case(f"{label} p={p}", pb, [T(g), T(xx), p, T(dd), Ret()],
                 lambda g=g, xx=xx, p=p, dd=dd: A._pdist_backward(g, xx, p, dd))
    x1, x2 = rand([2, 4, 3], torch.float32), rand([2, 5, 3], torch.float32)
    cd = A._cdist_forward(x1, x2, 2.0, None)
    for label, g, a, b, c in (("grad dtype", torch.ones(2, 4, 5).double(), x1, x2, cd),
                              ("x2 dtype", torch.ones(2, 4, 5), x1, x2.double(), cd),
                              ("1-d", torch.ones(5), x1[0, 0], x2[0, 0], cd)):
        case(label, cb, [T(g), T(a), T(b), 2.0, T(c), Ret()], lambda g=g, a=a, b=b, c=c: A._cdist_backward(g, a, b, 2.0, c))
    # (differential fuzzer) p = 0 reads neither grad nor cdist: their dtypes are not checked
    for dt in (torch.float16, torch.bfloat16, torch.int64):
        g, c = torch.ones(2, 4, 5, dtype=dt), cd.to(dt)
        for p in (0.0, 2.0):
            case(f"{dt} grad and cdist p={p}", cb, [T(g), T(x1), T(x2), p, T(c), Ret()],
                 lambda g=g, c=c, p=p: A._cdist_backward(g, x1, x2, p, c))
    refuses("x2 columns", cb, [T(torch.ones(2, 4, 5)), T(x1), T(x2[..., :2]), 2.0, T(cd), Ret()])
    refuses("short cdist", cb, [T(torch.ones(2, 4, 5)), T(x1), T(x2), 2.0, T(cd[:1]), Ret()])


def upsample_backward_family():
    name = "aoti_torch_cpu_upsample_linear1d_backward"
    for dt in [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64]:
        for isz, osz in (([2, 3, 5], 7), ([2, 3, 5], 5), ([1, 2, 7], 3), ([3, 1, 1], 4), ([2, 2, 4], 1),
                         ([0, 3, 5], 8), ([1, 4, 33], 100), ([2, 3, 10], 17)):
            g0 = rand([isz[0], isz[1], osz], dt, -3, 3)
            for lay, g in layouts(g0):
                for align in (0, 1):
                    for sc in (None, 0.5, 2.0, -1.0):
                        case(f"{dt} in{isz} out{osz} {lay} align={align} scale={sc}", name,
                             [T(g), [osz], isz, align, Opt(sc), Ret()],
                             lambda g=g, osz=osz, isz=isz, align=align, sc=sc:
                             A.upsample_linear1d_backward(g, [osz], isz, bool(align), sc))
    g = rand([2, 3, 7], torch.float32)
    for label, gg, osz, isz in (("output_size 2", g, [7, 1], [2, 3, 5]), ("input_size 2", g, [7], [2, 5]),
                                ("grad width", g, [8], [2, 3, 5]), ("grad batch", g[:1], [7], [2, 3, 5]),
                                ("grad dim", g[0], [7], [2, 3, 5]), ("zero input", g, [7], [2, 3, 0]),
                                ("zero output", g[..., :0], [0], [2, 3, 5]), ("negative batch", g, [7], [-2, 3, 5])):
        case(label, name, [T(gg), osz, isz, 0, Opt(None), Ret()],
             lambda gg=gg, osz=osz, isz=isz: A.upsample_linear1d_backward(gg, osz, isz, False, None))


FAMILIES = [mm_family, complex_mm_family, baddbmm_order_family, conv_family, line_family, wide_line_family, sdpa_family,
            pool_family, misc_family,
            index_family, bag_family, pow_family, quant_dist_family, scatter_value_family,
            lapack_family, rnn_family, resize_family, fft_family, pool3d_family,
            grid3d_family, complex_family, pool_backward_family,
            pad_backward_family, misc_backward_family, conv_backward_family,
            pool3d_backward_family, dist_backward_family,
            upsample_backward_family]
# issue 20's functions (tests/dropin/aoti_oracle_i20.py, run in this module's namespace)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "aoti_oracle_i20.py")) as _f:
    exec(compile(_f.read(), "aoti_oracle_i20.py", "exec"))
FAMILIES += I20_FAMILIES
# the bag / segment / attention backward ops (tests/dropin/aoti_oracle_bwb.py)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "aoti_oracle_bwb.py")) as _f:
    exec(compile(_f.read(), "aoti_oracle_bwb.py", "exec"))
FAMILIES += BWB_FAMILIES
# special values at the differential fuzzer's precision (tests/dropin/aoti_oracle_acc.py)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "aoti_oracle_acc.py")) as _f:
    exec(compile(_f.read(), "aoti_oracle_acc.py", "exec"))
FAMILIES += ACC_FAMILIES
for fam in FAMILIES:
    fam()

for f in failures[:200]:
    print("MISMATCH", f)
if len(failures) > 200:
    print(f"... and {len(failures) - 200} more")
for op, (n, both) in sorted(ran.items()):
    print(f"  {op}: {n} cases, {both} with results on both sides")
    if both == 0:
        failures.append(f"{op}: no case where PyTorch and libshimrt both give a result")
print(f"aoti oracle (seed {SEED}): {counts['cases'] - len(failures)} of {counts['cases']} "
      f"cases match PyTorch ({counts['both_err']} of them fail on both)")
sys.exit(1 if failures else 0)

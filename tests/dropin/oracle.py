"""tests/dropin/oracle.py: dropin's own ops and AOTInductor extern kernels, through
libshimrt and through PyTorch 2.15 on the same random inputs.

Covered: layer_norm, native_layer_norm(.out) (aoti_torch_cpu_* shims), scatter.reduce(_out),
scatter_reduce.two(_out), and the extern kernels aoti_torch_scatter_out,
aoti_torch_scatter_reduce_out, aoti_torch_index_put_out and aoti_torch__mm_plus_mm_out
(PyTorch: the same functions called in libtorch_cpu.so through ctypes, or the aten op
they stand for). Inputs are contiguous, transposed and sliced, in every dtype the op
takes; errors must agree (both fail or neither does); results must have PyTorch's dtype
and shape and values equal (integers exactly, floats within PyTorch's tolerance for the
dtype, loosened to rtol 1e-4 for layer_norm's float32 statistics and float reductions,
whose accumulation order differs).
Usage: python oracle.py path/to/libshimrt.so [seed]. One line per mismatch, a summary,
exit 1 on any mismatch.
"""
import ctypes as C
import os
import random
import sys
import warnings

import torch

LIB = C.CDLL(os.path.abspath(sys.argv[1]), mode=os.RTLD_LOCAL | getattr(os, "RTLD_DEEPBIND", 0))
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 1234
torch.manual_seed(SEED)
random.seed(SEED)
warnings.filterwarnings("ignore", message="The reduce argument of torch.scatter")
H = C.c_void_p
P = C.POINTER
LIB.torch_exception_get_what.restype = C.c_char_p
DT = {torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
      torch.float16: 5, torch.float32: 6, torch.float64: 7, torch.bool: 11, torch.bfloat16: 15}
RDT = {v: k for k, v in DT.items()}
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
NUMERIC = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64] + FLOATS
TOL = {torch.float32: (1.3e-6, 1e-5), torch.float64: (1e-7, 1e-7),
       torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5)}


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
S, I64, I32, D, STR = H, C.c_int64, C.c_int32, C.c_double, C.c_char_p
layer_norm = fn("aoti_torch_cpu_layer_norm", H, P(I64), I64, P(H), P(H), D, I32, P(H))
native_layer_norm = fn("aoti_torch_cpu_native_layer_norm", H, P(I64), I64, P(H), P(H), D,
                       P(H), P(H), P(H))
native_layer_norm_out = fn("aoti_torch_cpu_native_layer_norm_out", H, H, H, H, P(I64), I64, P(H),
                           P(H), D)
scatter_reduce = fn("aoti_torch_cpu_scatter_reduce", H, I64, H, H, STR, P(H))
scatter_reduce_out = fn("aoti_torch_cpu_scatter_reduce_out", H, H, I64, H, H, STR)
scatter_reduce_two = fn("aoti_torch_cpu_scatter_reduce_two", H, I64, H, H, STR, I32, P(H))
scatter_reduce_two_out = fn("aoti_torch_cpu_scatter_reduce_two_out", H, H, I64, H, H, STR, I32)
x_scatter_out = fn("aoti_torch_scatter_out", H, H, I64, H, H)
x_scatter_reduce_out = fn("aoti_torch_scatter_reduce_out", H, H, I64, H, H, STR, I32)
x_index_put_out = fn("aoti_torch_index_put_out", H, H, P(H), C.c_uint32, H, C.c_bool)
x_mm_plus_mm_out = fn("aoti_torch__mm_plus_mm_out", H, H, H, H, H)


def i64s(xs):
    return (C.c_int64 * max(len(xs), 1))(*xs)


def to_rt(t):
    """A libshimrt tensor with t's sizes, strides and values (a new handle)."""
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
    """t as contiguous, transposed (last two dims) and sliced (every other column) inputs
    with the same values."""
    yield "contig", t
    if t.dim() >= 2:
        yield "transposed", t.transpose(-1, -2).contiguous().transpose(-1, -2)
    if t.dim() >= 1 and t.shape[-1] > 0:
        big = torch.zeros(list(t.shape[:-1]) + [t.shape[-1] * 2], dtype=t.dtype)
        big[..., ::2] = t
        yield "sliced", big[..., ::2]


failures = []
counts = {"cases": 0, "both_err": 0}
ran = {}  # op name -> [cases, cases where both succeeded]


def compare(ours, ref, loose):
    if ours.dtype != ref.dtype:
        return f"dtype {ours.dtype} != {ref.dtype}"
    if list(ours.shape) != list(ref.shape):
        return f"shape {list(ours.shape)} != {list(ref.shape)}"
    if ref.dtype in TOL:
        rtol, atol = TOL[ref.dtype]
        if loose:
            rtol, atol = max(rtol, 1e-4), max(atol, 1e-4)
        try:
            torch.testing.assert_close(ours, ref, rtol=rtol, atol=atol, equal_nan=True,
                                       check_stride=False)
        except AssertionError as e:
            return "values: " + " ".join(str(e).split("\n")[1:4])
    elif not torch.equal(ours, ref):
        return f"values differ: {ours.flatten()[:8].tolist()} vs {ref.flatten()[:8].tolist()}"
    return None


class Rt:
    """Handles made for one call; all freed at the end."""

    def __init__(self):
        self.hs = []

    def t(self, x):
        h = to_rt(x)
        self.hs.append(h)
        return h

    def out(self):
        h = H()
        self.hs.append(h)
        return h

    def free(self):
        for h in self.hs:
            if h:
                delete(h)


def case(label, ours, ref, loose=False):
    """ours(rt) -> list of handles (or rc != 0); ref() -> list of tensors (or raises)."""
    counts["cases"] += 1
    op = label.split()[0]
    ran.setdefault(op, [0, 0])[0] += 1
    rt = Rt()
    try:
        res = ours(rt)
        if isinstance(res, int):
            got, why = None, LIB.torch_exception_get_what().decode(errors="replace")
        else:
            got, why = [from_rt(h) for h in res], None
        try:
            want, werr = ref(), None
        except Exception as e:  # PyTorch's error: ours must fail too
            want, werr = None, str(e).splitlines()[0]
        if want is None or got is None:
            if want is None and got is None:
                counts["both_err"] += 1
            else:
                failures.append(f"{label}: PyTorch {'fails: ' + werr if werr else 'succeeds'}, "
                                f"libshimrt {'fails: ' + why if why else 'succeeds'}")
            return
        ran[op][1] += 1
        for k, (g, w) in enumerate(zip(got, want)):
            m = compare(g, w, loose)
            if m:
                failures.append(f"{label}: result {k}: {m}")
                return
    finally:
        rt.free()


def ok(rc, *outs):
    return rc if rc else list(outs)


# ---- layer_norm, native_layer_norm -----------------------------------------------------
for dt in [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64]:
    for shape, ns in [([4, 6], [6]), ([2, 3, 5], [3, 5]), ([7], [7]), ([0, 4], [4]),
                      ([3, 4], [3]), ([3, 4], [])]:
        base = rand(shape, dt)
        for affine in (False, True):
            wshape = ns if ns and ns == shape[len(shape) - len(ns):] else [1]
            w = rand(wshape, dt) if affine else None
            b = rand(wshape, dt) if affine else None
            for lay, x in layouts(base):
                for eps in (1e-5, 0.5):
                    lbl = f"layer_norm {dt} {shape} ns={ns} affine={affine} {lay} eps={eps}"

                    def ours_ln(rt, x=x, ns=ns, w=w, b=b, eps=eps):
                        wp = C.byref(rt.t(w)) if w is not None else None
                        bp = C.byref(rt.t(b)) if b is not None else None
                        o = rt.out()
                        return ok(layer_norm(rt.t(x), i64s(ns), len(ns), wp, bp, eps, 1,
                                             C.byref(o)), o)

                    case(lbl, ours_ln,
                         lambda x=x, ns=ns, w=w, b=b, eps=eps:
                         [torch.nn.functional.layer_norm(x, ns, w, b, eps)], loose=True)

                    def ours_nln(rt, x=x, ns=ns, w=w, b=b, eps=eps):
                        wp = C.byref(rt.t(w)) if w is not None else None
                        bp = C.byref(rt.t(b)) if b is not None else None
                        o0, o1, o2 = rt.out(), rt.out(), rt.out()
                        return ok(native_layer_norm(rt.t(x), i64s(ns), len(ns), wp, bp, eps,
                                                    C.byref(o0), C.byref(o1), C.byref(o2)),
                                  o0, o1, o2)

                    case("native_" + lbl, ours_nln,
                         lambda x=x, ns=ns, w=w, b=b, eps=eps:
                         list(torch.ops.aten.native_layer_norm(x, ns, w, b, eps)), loose=True)

                    # the derived out variant (generated/derived_kernels.c): outs of the
                    # functional results' shapes and dtypes, and empty outs that both resize
                    try:
                        like = [torch.zeros_like(r) for r in
                                torch.ops.aten.native_layer_norm(x, ns, w, b, eps)]
                    except Exception:
                        like = [torch.zeros(0, dtype=dt)] * 3

                    def ours_nlo(rt, x=x, ns=ns, w=w, b=b, eps=eps, like=like):
                        wp = C.byref(rt.t(w)) if w is not None else None
                        bp = C.byref(rt.t(b)) if b is not None else None
                        o = [rt.t(t.clone()) for t in like]
                        return ok(native_layer_norm_out(o[0], o[1], o[2], rt.t(x), i64s(ns),
                                                        len(ns), wp, bp, eps), *o)

                    def ref_nlo(x=x, ns=ns, w=w, b=b, eps=eps, like=like):
                        o = [t.clone() for t in like]
                        torch.ops.aten.native_layer_norm.out(x, ns, w, b, eps, out0=o[0],
                                                             out1=o[1], out2=o[2])
                        return o

                    case("native_layer_norm.out " + lbl, ours_nlo, ref_nlo, loose=True)
                    empty = [torch.empty(0, dtype=t.dtype) for t in like]
                    case("native_layer_norm.out(resized) " + lbl,
                         lambda rt, f=ours_nlo, e=empty: f(rt, like=e),
                         lambda f=ref_nlo, e=empty: f(like=e), loose=True)


# ---- scatter.reduce, scatter_reduce.two and the extern kernels ---------------------------
def index_for(shape, dim, ishape, bad=False):
    hi = shape[dim] if shape else 1
    idx = torch.randint(0, max(hi, 1), ishape, dtype=torch.int64)
    if bad and idx.numel():
        idx.view(-1)[0] = hi + 3
    return idx


SCATTER = [([5, 4], 0, [3, 4]), ([5, 4], 1, [5, 2]), ([3, 4, 2], -2, [2, 3, 2]), ([6], 0, [9]),
           ([4, 3], 0, [0, 3])]
for dt in NUMERIC:
    for shape, dim, ishape in SCATTER:
        for bad in (False, True):
            base, src = rand(shape, dt), rand(ishape, dt, low=1, high=3)
            idx = index_for(shape, dim, ishape, bad)
            for lay, x in layouts(base):
                tag = f"{dt} {shape} dim={dim} index={ishape}{' out-of-range' if bad else ''} {lay}"
                loose = dt in FLOATS
                for red in ("add", "multiply", "mean"):
                    case(f"scatter.reduce {red} {tag}",
                         lambda rt, x=x, idx=idx, src=src, red=red: (
                             lambda o: ok(scatter_reduce(rt.t(x), dim, rt.t(idx), rt.t(src),
                                                         red.encode(), C.byref(o)), o))(rt.out()),
                         lambda x=x, idx=idx, src=src, red=red: [
                             torch.scatter(x, dim, idx, src, reduce=red)], loose)
                    case(f"scatter.reduce_out {red} {tag}",
                         lambda rt, x=x, idx=idx, src=src, red=red: (
                             lambda o: ok(scatter_reduce_out(o, rt.t(x), dim, rt.t(idx),
                                                             rt.t(src), red.encode()), o))(
                             rt.t(torch.zeros_like(x))),
                         lambda x=x, idx=idx, src=src, red=red: [
                             torch.scatter(x, dim, idx, src, reduce=red,
                                           out=torch.zeros_like(x))], loose)
                    # an empty out: resized to self's shape on both sides
                    case(f"scatter.reduce_out(resized) {red} {tag}",
                         lambda rt, x=x, idx=idx, src=src, red=red: (
                             lambda o: ok(scatter_reduce_out(o, rt.t(x), dim, rt.t(idx),
                                                             rt.t(src), red.encode()), o))(
                             rt.t(torch.empty(0, dtype=x.dtype))),
                         lambda x=x, idx=idx, src=src, red=red: [
                             torch.scatter(x, dim, idx, src, reduce=red,
                                           out=torch.empty(0, dtype=x.dtype))], loose)
                for red in ("sum", "prod", "mean", "amax", "amin", "max", "min", "avg"):
                    for inc in (True, False):
                        tr = f"scatter_reduce.two {red} include_self={inc} {tag}"

                        def ref_two(x=x, idx=idx, src=src, red=red, inc=inc):
                            return [torch.scatter_reduce(x, dim, idx, src, red, include_self=inc)]

                        case(tr, lambda rt, x=x, idx=idx, src=src, red=red, inc=inc: (
                            lambda o: ok(scatter_reduce_two(rt.t(x), dim, rt.t(idx), rt.t(src),
                                                            red.encode(), inc, C.byref(o)), o))(
                            rt.out()), ref_two, loose)
                        case(tr.replace(".two", ".two_out"),
                             lambda rt, x=x, idx=idx, src=src, red=red, inc=inc: (
                                 lambda o: ok(scatter_reduce_two_out(
                                     o, rt.t(x), dim, rt.t(idx), rt.t(src), red.encode(), inc),
                                     o))(rt.t(torch.zeros_like(x))), ref_two, loose)
                        case("aoti_torch_" + tr.replace(".two", "_out"),
                             lambda rt, x=x, idx=idx, src=src, red=red, inc=inc: (
                                 lambda o: ok(x_scatter_reduce_out(
                                     o, rt.t(x), dim, rt.t(idx), rt.t(src), red.encode(), inc),
                                     o))(rt.t(torch.zeros_like(x))), ref_two, loose)
                case(f"aoti_torch_scatter_out {tag}",
                     lambda rt, x=x, idx=idx, src=src: (
                         lambda o: ok(x_scatter_out(o, rt.t(x), dim, rt.t(idx), rt.t(src)), o))(
                         rt.t(torch.zeros_like(x))),
                     lambda x=x, idx=idx, src=src: [torch.scatter(x, dim, idx, src)])

# index_put_out: unique indices for the plain put (duplicates are unordered in PyTorch),
# any indices with accumulate; one or two index tensors, broadcast values.
for dt in NUMERIC + [torch.bool]:
    for lay, x in layouts(rand([5, 4], dt)):
        for k, (idxs, vshape) in enumerate([
                ([torch.tensor([4, 0, 2])], [3, 4]),
                ([torch.tensor([1, 3]), torch.tensor([0, 2])], [2]),
                ([torch.tensor([[0, 1], [3, 4]]), torch.tensor([[1, 1], [2, 3]])], [1]),
                ([torch.tensor([-1, 2])], [4]),
                ([torch.tensor([7])], [4])]):
            v = rand(vshape, dt)
            for acc in (False, True):
                if dt == torch.bool and acc:
                    continue
                case(f"aoti_torch_index_put_out {dt} {lay} indices#{k} accumulate={acc}",
                     lambda rt, x=x, idxs=idxs, v=v, acc=acc: (
                         lambda o, arr: ok(x_index_put_out(o, rt.t(x), arr, len(idxs), rt.t(v),
                                                           acc), o))(
                         rt.t(torch.zeros_like(x)), (H * len(idxs))(*[rt.t(i) for i in idxs])),
                     lambda x=x, idxs=idxs, v=v, acc=acc: [
                         torch.index_put(x, idxs, v, accumulate=acc)], dt in FLOATS)
        for acc in (False, True):  # duplicates: only accumulate has one answer
            if dt == torch.bool:
                continue
            idxs, v = [torch.tensor([1, 1, 3, 1])], rand([4, 4], dt)
            if acc:
                case(f"aoti_torch_index_put_out {dt} {lay} duplicates accumulate",
                     lambda rt, x=x, idxs=idxs, v=v: (
                         lambda o, arr: ok(x_index_put_out(o, rt.t(x), arr, 1, rt.t(v), True),
                                           o))(rt.t(torch.zeros_like(x)), (H * 1)(rt.t(idxs[0]))),
                     lambda x=x, idxs=idxs, v=v: [torch.index_put(x, idxs, v, accumulate=True)],
                     dt in FLOATS)

# _mm_plus_mm_out: out = a @ b + c @ d
for dt in [torch.float32, torch.float64]:
    for (m, k1, n, k2) in [(3, 4, 5, 2), (1, 1, 1, 1), (4, 0, 3, 2), (2, 3, 2, 4)]:
        a, b, c, d = rand([m, k1], dt), rand([k1, n], dt), rand([m, k2], dt), rand([k2, n], dt)
        for lay, at in layouts(a):
            case(f"aoti_torch__mm_plus_mm_out {dt} {m}x{k1}x{n}+{k2} a {lay}",
                 lambda rt, at=at, b=b, c=c, d=d: (
                     lambda o: ok(x_mm_plus_mm_out(o, rt.t(at), rt.t(b), rt.t(c), rt.t(d)), o))(
                     rt.t(torch.zeros(at.shape[0], b.shape[1], dtype=dt))),
                 lambda at=at, b=b, c=c, d=d: [torch.mm(at, b) + torch.mm(c, d)], loose=True)
    a, b = rand([3, 4], dt), rand([5, 2], dt)
    case(f"aoti_torch__mm_plus_mm_out {dt} shape mismatch",
         lambda rt, a=a, b=b: (lambda o: ok(x_mm_plus_mm_out(o, rt.t(a), rt.t(b), rt.t(a),
                                                              rt.t(b)), o))(
             rt.t(torch.zeros(3, 2, dtype=dt))),
         lambda a=a, b=b: [torch.mm(a, b) + torch.mm(a, b)])

for f in failures:
    print("MISMATCH", f)
for op, (n, both) in sorted(ran.items()):
    print(f"  {op}: {n} cases, {both} with results on both sides")
    if both == 0:
        failures.append(f"{op}: no case where PyTorch and libshimrt both give a result")
print(f"dropin oracle (seed {SEED}): {counts['cases'] - len(failures)} of {counts['cases']} "
      f"cases match PyTorch ({counts['both_err']} of them fail on both)")
sys.exit(1 if failures else 0)

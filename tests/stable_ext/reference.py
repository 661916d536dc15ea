"""tests/stable_ext/reference.py: the oracle for tests/stable_ext/.

Usage: reference.py EXT_LIBTORCH.so RUNNER_OUTPUT [old] [RUNNER_OUTPUT [old] ...]

EXT_LIBTORCH.so is tests/stable_ext/ext.cpp built against libtorch (the same source the
runner loads on libshimrt). This loads it into real PyTorch 2.15, runs the same cases on
the same inputs, prints them in the runner's format and compares with RUNNER_OUTPUT:
same cases, same dtypes and shapes, values equal (floats within 1e-6 relative), same
errors. Exit 0 when all match; prints a count of matching cases either way. "old": the
runner ran the extension built for a 2.10 target, which lacks the ops of later releases.
The API cases (api_cases) also print strides, offsets and non-tensor returns."""
import math
import sys

import torch


def inputs():
    x = (torch.arange(12, dtype=torch.float64) * 0.37 - 1.1).to(torch.float32).reshape(4, 3)
    ties = ((torch.arange(12) * 7) % 5).to(torch.float32).reshape(3, 4)
    idx = torch.tensor([2, 0, 3], dtype=torch.int64)
    return x, ties, idx


NAMES = {torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
         torch.float32, torch.float64, torch.bool, torch.bfloat16}


def fmt(t, mask32=False):
    name = str(t.dtype).replace("torch.", "") if t.dtype in NAMES else "other"
    vals = t.reshape(-1).to(torch.float64).tolist()
    if mask32:
        vals = [float(int(v) & 0xFFFFFFFF) for v in vals]
    return "tensor %s [%s]%s" % (name, ",".join(str(s) for s in t.shape),
                                  "".join(" %.9g" % v for v in vals))


def run_all(old):
    ops = torch.ops.dropin_ext
    out = []

    def case(name, fn, *args):
        out.append("case " + name)
        try:
            r = fn(*args)
        except Exception as e:  # the extension's STD_TORCH_CHECK and ATen's errors
            msg = str(e)
            if "need more than 100" in msg:
                msg = "need more than 100 elements"
            elif "out of range" in msg or "out of bounds" in msg:
                msg = "index out of range"
            out.append("error " + msg.splitlines()[0])
            return
        for t in (r if isinstance(r, (tuple, list)) else (r,)):
            out.append(fmt(t))

    x, ties, idx = inputs()
    case("pipeline", ops.pipeline, x.clone(), idx)
    case("reductions", ops.reductions, x.clone())
    case("views", ops.views, x.clone())
    case("creation", ops.creation, x.clone(), 1.75)
    case("info", ops.info, x.clone())
    case("squares", ops.squares, x.clone())
    case("blobs", ops.blobs, x.clone())
    case("sorts", ops.sorts, x.clone(), ties)
    case("opt_fill", ops.opt_fill, x.clone(), None)
    case("opt_fill", ops.opt_fill, x.clone(), 0.5)
    case("foreach_mul", ops.foreach_mul, x.clone())
    case("norms", ops.norms, x.clone(), idx)
    case("must_be_big", ops.must_be_big, x.clone())
    case("bad_index", ops.bad_index, x.clone())
    api_cases(out, old)
    out.append("done")
    return out


CODES = {0: torch.uint8, 1: torch.int8, 2: torch.int16, 3: torch.int32, 4: torch.int64,
         5: torch.float16, 6: torch.float32, 7: torch.float64, 8: torch.complex32,
         9: torch.complex64, 10: torch.complex128, 11: torch.bool, 15: torch.bfloat16,
         23: torch.float8_e5m2, 24: torch.float8_e4m3fn, 25: torch.float8_e5m2fnuz,
         26: torch.float8_e4m3fnuz, 27: torch.uint16, 28: torch.uint32, 29: torch.uint64}


def value(out, v, mask32=False):
    """One return as the runner's print_value prints it."""
    if isinstance(v, torch.Tensor):
        out.append(fmt(v, mask32))
        out.append("strides%s offset %d" % ((" " + ",".join(map(str, v.stride()))) if v.dim() else "",
                                            v.storage_offset()))
    elif isinstance(v, bool):
        out.append("bool %d" % v)
    elif isinstance(v, int):
        out.append("int %d" % v)
    elif isinstance(v, str):
        out.append("str " + v)
    elif isinstance(v, torch.device):
        out.append("device %d %d" % ({"cpu": 0, "cuda": 1}[v.type], -1 if v.index is None else v.index))
    else:
        out.append("list %d" % len(v))
        for e in v:
            value(out, e)


def api_cases(out, old):
    """The API ops on the inputs runner.c's api_cases() makes."""
    ops = torch.ops.dropin_ext
    x, _, idx = inputs()
    ties = ((torch.arange(12) * 7) % 5).to(torch.float32)

    def call(name, args, after=None, mask32=False):
        out.append("case " + name)
        try:
            r = getattr(ops, name)(*args)
        except Exception:
            out.append("error")
        else:
            for v in (r if isinstance(r, tuple) else () if r is None else (r,)):
                value(out, v, mask32)
        if after is not None:
            out.append(fmt(after))

    call("devices", (torch.device("cuda:0"), 3, "cuda:2"))
    call("devices", (torch.device("cuda:0"), 129, "cuda:2"))
    call("strings", (x.clone(), "numel", "tail", "ab"))
    call("strings", (x.clone(), "bogus", "", ""))
    call("shapes", (x.clone(),))
    call("shapes", (torch.as_strided(x.clone(), (2, 4), (1, 3), 1),))
    call("arith", (x.clone(), ties.reshape(4, 3), 0.5, idx))
    call("conversions", (x.clone(),))
    o = torch.zeros(3, dtype=torch.float64)
    call("sum_into", (o, x.clone(), [0], False, torch.float64), after=o)
    call("lists", ([x.clone(), ties.reshape(3, 4)], [1], x.clone()))
    call("lists", ([x.clone()], None, None))
    call("typed", (x.clone(), torch.float16, torch.strided, torch.channels_last))
    call("typed", (x.clone(), torch.int32, torch.strided, torch.contiguous_format))
    call("typed", (x.clone(), torch.bfloat16, torch.sparse_coo, torch.contiguous_format))
    for code in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 23, 24, 25, 26, 27, 28, 29):
        dt = CODES[code]
        for want in (dt, torch.float32):
            call("typed_ptr", (torch.empty(2, 3, dtype=dt), want))
    call("empty_ptrs", (x.clone(),))
    w = x.clone()
    call("fill_rows", (w, 1.5), after=w)
    call("threads", (1000, 7), mask32=True)
    for n, grain, bad in ((1000, 7, 0), (1000, 7, 999), (10, 100, 3), (1000, 7, -1)):
        call("threads_throw", (n, grain, bad), mask32=True)
    call("legacy", (x.clone(),))
    if old:
        return
    call("tagged", (x.clone(),))
    tags = ops.tagged.default.tags
    has = torch._C._dispatch_has_kernel_for_dispatch_key
    out.append("tags %d %d %d kernels %d %d" % (
        torch.Tag.pointwise in tags, torch.Tag.core in tags, torch.Tag.inplace in tags,
        has("dropin_ext::tagged", "CompositeExplicitAutograd"), has("dropin_ext::tagged", "CPU")))
    call("seeded", ([2, 3], torch.Generator().manual_seed(42)))
    call("last_error", (x.clone(), ties.reshape(3, 4)))
    call("checked_subtract", (x.clone(), ties.reshape(3, 4)))


def same_line(a, b):
    if a == b:
        return True
    pa, pb = a.split(), b.split()
    if len(pa) != len(pb) or pa[:3] != pb[:3] or pa[0] != "tensor":
        return False
    for u, v in zip(pa[3:], pb[3:]):
        fu, fv = float(u), float(v)
        if not (fu == fv or (math.isnan(fu) and math.isnan(fv))
                or abs(fu - fv) <= 1e-6 * max(1.0, abs(fu), abs(fv))):
            return False
    return True


def cases(lines):
    """[(name, [result lines])] in order (a name may repeat with other arguments)."""
    res = []
    for line in lines:
        if line.startswith("case "):
            res.append((line[5:], []))
        elif res and line != "done":
            res[-1][1].append(line)
    return res


def main():
    torch.ops.load_library(sys.argv[1])
    runs = []  # (runner output, old)
    for a in sys.argv[2:]:
        if a == "old" and runs:
            runs[-1] = (runs[-1][0], True)
        else:
            runs.append((a, False))
    bad = 0
    for path, old in runs:
        want = cases(run_all(old))
        with open(path) as f:
            got = cases(f.read().splitlines())
        ok = 0
        for k, (name, lines) in enumerate(want):
            g = got[k][1] if k < len(got) and got[k][0] == name else None
            if g is not None and len(g) == len(lines) and all(same_line(a, b) for a, b in zip(lines, g)):
                ok += 1
            else:
                print("MISMATCH %s\n  pytorch: %s\n  shimrt:  %s" % (name, lines, g))
        print("stable_ext: %s: %d of %d ops give PyTorch's results" % (path.split("/")[-1], ok, len(want)))
        bad += ok != len(want)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

"""tests/stable_ext/reference.py: the oracle for tests/stable_ext/.

Usage: reference.py EXT_LIBTORCH.so RUNNER_OUTPUT

EXT_LIBTORCH.so is tests/stable_ext/ext.cpp built against libtorch (the same source the
runner loads on libshimrt). This loads it into real PyTorch 2.15, runs the same cases on
the same inputs, prints them in the runner's format and compares with RUNNER_OUTPUT:
same cases, same dtypes and shapes, values equal (floats within 1e-6 relative), same
errors. Exit 0 when all match; prints a count of matching cases either way."""
import math
import sys

import torch


def inputs():
    x = (torch.arange(12, dtype=torch.float64) * 0.37 - 1.1).to(torch.float32).reshape(4, 3)
    ties = ((torch.arange(12) * 7) % 5).to(torch.float32).reshape(3, 4)
    idx = torch.tensor([2, 0, 3], dtype=torch.int64)
    return x, ties, idx


def fmt(t):
    name = {torch.float32: "float32", torch.float64: "float64", torch.int64: "int64",
            torch.float16: "float16"}.get(t.dtype, "other")
    vals = t.reshape(-1).to(torch.float64).tolist()
    return "tensor %s [%s]%s" % (name, ",".join(str(s) for s in t.shape),
                                  "".join(" %.9g" % v for v in vals))


def run_all():
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
    out.append("done")
    return out


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
    want = cases(run_all())
    with open(sys.argv[2]) as f:
        got = cases(f.read().splitlines())
    ok = 0
    for k, (name, lines) in enumerate(want):
        g = got[k][1] if k < len(got) and got[k][0] == name else None
        if g is not None and len(g) == len(lines) and all(same_line(a, b) for a, b in zip(lines, g)):
            ok += 1
        else:
            print("MISMATCH %s\n  pytorch: %s\n  shimrt:  %s" % (name, lines, g))
    print("stable_ext: %d of %d ops give PyTorch's results" % (ok, len(want)))
    sys.exit(0 if ok == len(want) else 1)


if __name__ == "__main__":
    main()

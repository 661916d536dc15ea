"""tests/torch/rng_oracle.py: compares libshimrt's random ops with PyTorch 2.15's CPU kernels
byte for byte after the same seed (driven by rng_oracle.sh). argv: the rng_client binary."""
import struct
import subprocess
import sys

import torch

DT = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16,
      "bf16": torch.bfloat16, "i64": torch.int64, "i32": torch.int32, "u8": torch.uint8,
      "b8": torch.bool}
SEEDS = [0, 1, 42, 2**32 + 7, 123456789]
SIZES = [0, 1, 7, 15, 16, 17, 33, 100, 1000]


def torch_case(op, ds, n, seed, a, b):
    torch.manual_seed(seed)
    dt = DT[ds]
    if op == "rand":
        return [torch.rand(n, dtype=dt)]
    if op == "randn":
        return [torch.randn(n, dtype=dt)]
    if op == "randn2":
        return [torch.randn(n, dtype=dt), torch.randn(n, dtype=dt)]
    if op == "randnT":
        x = torch.empty(n, 4, dtype=dt)
        x.t().normal_()
        return [x]
    if op == "randint":
        return [torch.randint(int(a), int(b), (n,), dtype=dt)]
    if op == "randperm":
        return [torch.randperm(n, dtype=dt)]
    if op == "uniform":
        return [torch.empty(n, dtype=dt).uniform_(a, b)]
    if op == "normal":
        return [torch.empty(n, dtype=dt).normal_(a, b)]
    if op == "random":
        return [torch.empty(n, dtype=dt).random_()]
    if op == "rfrom":
        return [torch.empty(n, dtype=dt).random_(-2**63 if a == -1 else int(a), None)]
    if op == "rto":
        return [torch.empty(n, dtype=dt).random_(int(a))]
    if op == "bern":
        return [torch.empty(n, dtype=dt).bernoulli_(a)]
    if op == "uniformT":
        x = torch.empty(n, 4, dtype=dt)
        x.t().uniform_(a, b)
        return [x]
    if op == "bernTd":
        p = torch.rand(n, dtype=torch.float64)
        return [torch.empty(n, dtype=dt).bernoulli_(p)]
    if op == "bernT":
        p = torch.rand(n)
        return [torch.empty(n, dtype=dt).bernoulli_(p)]
    if op == "expo":
        return [torch.empty(n, dtype=dt).exponential_(a)]
    if op == "expoF":
        return [torch.ops.aten.exponential(torch.empty(n, dtype=dt), a)]
    if op == "uniformF":
        return [torch.ops.aten.uniform(torch.empty(n, dtype=dt), a, b)]
    if op == "cauchy":
        return [torch.empty(n, dtype=dt).cauchy_(a, b)]
    if op == "lognormal":
        return [torch.empty(n, dtype=dt).log_normal_(a, b)]
    if op == "lognormalT":
        x = torch.empty(n, 4, dtype=dt)
        x.t().log_normal_(a, b)
        return [x]
    if op == "geometric":
        return [torch.empty(n, dtype=dt).geometric_(a)]
    if op == "randint_out":
        return [torch.ops.aten.randint.low_out(int(a), int(b), [n],
                                               out=torch.empty(3, dtype=dt))]
    if op == "randint_likeT":
        return [torch.randint_like(torch.empty(n, dtype=dt), torch.tensor(int(b)))]
    if op in ("multinomial", "multinomialT"):
        pd = torch.float64 if a < 0 else dt
        p = torch.rand(n, 4, dtype=pd).t() if op == "multinomialT" else torch.rand(4, n, dtype=pd)
        return [torch.multinomial(p, int(abs(a)), bool(b))]
    if op == "rand_like":
        return [torch.rand_like(torch.empty(n, dtype=dt))]
    if op == "randn_like":
        return [torch.randn_like(torch.empty(n, dtype=dt))]
    if op == "randint_like":
        return [torch.randint_like(torch.empty(n, dtype=dt), int(a), int(b))]
    if op == "normalF":
        return [torch.ops.aten.normal_functional(torch.empty(n, dtype=dt), a, b)]
    if op == "bernF":
        return [torch.bernoulli(torch.rand(n))]
    if op == "gen":
        g = torch.Generator().manual_seed(seed)
        return [torch.rand(n, dtype=dt, generator=g), torch.randn(n, dtype=dt, generator=g)]
    if op == "state":
        torch.randn(3, dtype=dt)
        return [torch.randn(n, dtype=dt)]
    if op == "dropout":
        x = (1 + 0.25 * torch.arange(n, dtype=torch.float64)).to(dt)
        return list(torch.ops.aten.native_dropout(x, a, bool(b)))
    raise ValueError(op)


def intel_cpu():
    try:
        with open("/proc/cpuinfo") as f:
            return "GenuineIntel" in f.read()
    except OSError:
        return False


# PyTorch's bernoulli_(float) takes an MKL (VSL) path on Intel CPUs; libshimrt implements the
# default path PyTorch takes elsewhere. Its float normal_ for >= 16 elements is the AVX2
# kernel's; a torch running at CPU capability DEFAULT takes another one.
SKIP_BERN_SCALAR = intel_cpu()
SKIP_NORMAL_VEC = torch.backends.cpu.get_cpu_capability() not in ("AVX2", "AVX512")


def wanted(c):
    if c[0] in ("bern", "dropout") and SKIP_BERN_SCALAR:
        return False
    if c[0] in ("randn", "randn2", "normal") and c[1] != "f64" and c[2] >= 16 and SKIP_NORMAL_VEC:
        return False
    return True


def cases():
    for s in SEEDS:
        for n in SIZES:
            for ds in ("f32", "f64", "f16", "bf16"):
                yield ("rand", ds, n, s, 0, 0)
                yield ("randn", ds, n, s, 0, 0)
                yield ("uniform", ds, n, s, -2.5, 3.0)
                yield ("normal", ds, n, s, 1.5, 0.25)
                yield ("randn2", ds, n, s, 0, 0)
            for ds in ("f32", "f64"):
                yield ("rand_like", ds, n, s, 0, 0)
                yield ("randn_like", ds, n, s, 0, 0)
                yield ("normalF", ds, n, s, -1.0, 2.0)
                yield ("gen", ds, n, s, 0, 0)
                yield ("state", ds, n, s, 0, 0)
            yield ("randint_like", "i64", n, s, 5, 17)
            yield ("bernF", "f32", n, s, 0, 0)
            for ds in ("f32", "f64", "f16", "bf16"):
                yield ("dropout", ds, n, s, 0.3, 1)
            yield ("dropout", "f32", n, s, 0.3, 0)
            yield ("randnT", "f32", n, s, 0, 0)
            yield ("randnT", "f64", n, s, 0, 0)
            yield ("uniformT", "f32", n, s, -1.0, 1.0)
            yield ("uniformT", "f64", n, s, -1.0, 1.0)
            for ds in ("f32", "f64", "f16", "bf16"):
                yield ("expo", ds, n, s, 1.5, 0)
                yield ("expoF", ds, n, s, 0.5, 0)
                yield ("uniformF", ds, n, s, -2.0, 5.0)
                yield ("cauchy", ds, n, s, 0.5, 2.0)
                yield ("lognormal", ds, n, s, 0.25, 0.5)
                yield ("geometric", ds, n, s, 0.3, 0)
            if n > 0:
                # (half/bfloat16: one sample without replacement: p / q then has ties,
                # whose order in PyTorch's topk is its partial sort's)
                for ds in ("f32", "f16", "bf16"):
                    for ns, rep in ((1, 0), (min(n, 3), 0), (n, 0), (5, 1), (1, 1)):
                        if ds == "f32" or ns == 1 or rep:
                            yield ("multinomial", ds, n, s, ns, rep)
                for ns, rep in ((1, 0), (min(n, 3), 0), (7, 1)):
                    yield ("multinomial", "f64", n, s, -ns, rep)
                    yield ("multinomialT", "f32", n, s, ns, rep)
            yield ("lognormalT", "f64", n, s, 1.0, 2.0)
            yield ("lognormalT", "f32", n, s, 1.0, 2.0)
            for ds in ("i64", "i32", "u8", "f32", "f64"):
                yield ("randint_out", ds, n, s, 0 if ds == "u8" else -7, 50)
                yield ("randint_likeT", ds, n, s, 0, 60)
            for ds in ("i64", "i32", "u8"):
                yield ("geometric", ds, n, s, 0.3, 0)
                yield ("geometric", ds, n, s, 0.05, 0)
            for ds in ("i64", "i32", "u8", "f32", "f64"):
                yield ("randint", ds, n, s, 0 if ds == "u8" else -3, 100)
                yield ("random", ds, n, s, 0, 0)
                if ds != "u8":
                    yield ("randperm", ds, n, s, 0, 0)
            yield ("randint", "i64", n, s, -2**40, 2**40)
            for hi in (2**28 - 1, 2**28, 2**31 - 1):
                yield ("randint", "i32", n, s, 0, hi)
                yield ("randint", "i64", n, s, 0, hi)
            yield ("random", "b8", n, s, 0, 0)
            for ds in ("i64", "i32", "u8", "f32", "f64", "bf16"):
                yield ("rfrom", ds, n, s, 3, 0)
                yield ("rto", ds, n, s, 77, 0)
            for ds in ("i64", "f64", "f32"):
                yield ("rfrom", ds, n, s, -1, 0)
            for ds in ("f32", "f64", "i64", "b8"):
                yield ("bern", ds, n, s, 0.3, 0)
                yield ("bernT", ds, n, s, 0, 0)
                yield ("bernTd", ds, n, s, 0, 0)


def main():
    if SKIP_BERN_SCALAR:
        print("  (skipped: bernoulli_(float p), PyTorch takes its MKL path on this Intel CPU)")
    if SKIP_NORMAL_VEC:
        print("  (skipped: reduced-precision normal_ of >= 16 elements, torch is not on AVX2)")
    cs = [c for c in cases() if wanted(c)]
    inp = "".join("%s %s %d %d %r %r\n" % c for c in cs)
    out = subprocess.run([sys.argv[1]], input=inp.encode(), stdout=subprocess.PIPE,
                         check=True).stdout
    pos = 0
    ok = {}
    bad = {}
    for c in cs:
        for want in torch_case(*c):
            (nb,) = struct.unpack_from("<Q", out, pos)
            got = out[pos + 8:pos + 8 + nb]
            pos += 8 + nb
            w = want.contiguous().view(torch.uint8).numpy().tobytes() if want.dtype != torch.bool \
                else want.to(torch.uint8).numpy().tobytes()
            key = (c[0], c[1])
            if got == w:
                ok[key] = ok.get(key, 0) + 1
            else:
                bad.setdefault(key, []).append(c)
    for key in sorted(set(ok) | set(bad)):
        nb = len(bad.get(key, []))
        print("  %-9s %-5s %s (%d/%d)" % (key[0], key[1], "bit-identical" if not nb else "DIFFERS",
                                          ok.get(key, 0), ok.get(key, 0) + nb))
        if nb:
            print("      first failing case:", bad[key][0])
    if bad:
        print("rng_oracle: FAIL: %d op/dtype pairs differ from torch" % len(bad))
        sys.exit(1)


if __name__ == "__main__":
    main()

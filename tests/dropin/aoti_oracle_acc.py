# tests/dropin/aoti_oracle_acc.py: special values (inf, NaN, INT64_MIN, the ends of a dtype's
# range) and accuracy against PyTorch 2.15 at the differential fuzzer's precision (issue 17:
# floats within 1 ulp, NaN equal to NaN, -0 equal to 0; integers exactly). Run by
# aoti_oracle.py in its namespace (call, T, Opt, Ret, from_rt, delete, failures, ...). The
# inputs are drawn here; every expected value is PyTorch's own result on them.
import math

INF, NAN = float("inf"), float("nan")
# libshimrt's own shims beyond the wheel's c_shim_cpu.h (matmul, layer_norm, mean.dim, ...):
# their declarations from generated/c_shim_cpu.h, so that call() takes them too
_OWN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "generated",
                    "c_shim_cpu.h")
for _m in re.finditer(r"AOTI_TORCH_EXPORT AOTITorchError (aoti_torch_cpu_\w+)\(([^)]*)\);",
                      open(_OWN).read() if os.path.isfile(_OWN) else ""):
    if _m.group(1) not in DECL:
        DECL[_m.group(1)] = [(p.rsplit(" ", 1)[0].replace(" *", "*"), p.rsplit(" ", 1)[1])
                             for p in (q.strip() for q in _m.group(2).split(",")) if p]
# the bit width and the int dtype to view each float dtype through
_BITS = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32,
         torch.float64: torch.int64}


def ulp_diff(ours, ref, ulps):
    """None when every element is within ulps units in the last place (NaN equal to NaN, -0
    equal to 0), else a description of the first element that is not."""
    if ours.dtype != ref.dtype:
        return f"dtype {ours.dtype} != {ref.dtype}"
    if list(ours.shape) != list(ref.shape):
        return f"shape {list(ours.shape)} != {list(ref.shape)}"
    a, b = ours.contiguous().flatten(), ref.contiguous().flatten()
    if ref.dtype not in _BITS:
        if torch.equal(a, b):
            return None
        i = int((a != b).nonzero()[0])
        return f"element {i}: ours {a[i].item()} torch {b[i].item()}"
    ia, ib = a.view(_BITS[ref.dtype]).to(torch.int64), b.view(_BITS[ref.dtype]).to(torch.int64)
    top = 1 << (torch.finfo(ref.dtype).bits - 1)
    # sign-magnitude to a monotonic integer line (-0 and 0 both 0)
    oa = torch.where(ia < 0, -(ia + top), ia) if ref.dtype != torch.float64 else \
        torch.where(ia < 0, -(ia & (top - 1)), ia)
    ob = torch.where(ib < 0, -(ib + top), ib) if ref.dtype != torch.float64 else \
        torch.where(ib < 0, -(ib & (top - 1)), ib)
    nan = a.isnan() & b.isnan()
    bad = ~nan & (a.isnan() | b.isnan() | ((oa - ob).abs() > ulps))
    if not bad.any():
        return None
    i = int(bad.nonzero()[0])
    return f"element {i}: ours {a[i].item()!r} torch {b[i].item()!r}"


def acase(label, name, args, ref, ulps=1, f=None):
    """case() at the fuzzer's precision. f: the ctypes function when the wheel's c_shim_cpu.h
    lacks the shim (libshimrt's own aoti_torch_cpu_* functions)."""
    if ONLY and ONLY not in name:
        return
    counts["cases"] += 1
    ran.setdefault(name, [0, 0])[0] += 1
    if f is None:
        res, hs = call(name, args)
    else:
        hs = [to_rt(a.t) if isinstance(a, T) else H() if isinstance(a, Ret) else None
              for a in args]
        cargs = [h if isinstance(a, T) else C.byref(h) if isinstance(a, Ret) else a
                 for a, h in zip(args, hs)]
        rc = f(*cargs)
        res = rc if rc else [h for a, h in zip(args, hs) if isinstance(a, Ret)]
        hs = [h for h in hs if h is not None]
    settle(name, label, res, hs, ref, lambda g, w: ulp_diff(g, w, ulps))


def specials(shape, dt, extra=(), huge=True):
    """Random values of dt with the dtype's special values mixed in (huge: its largest)."""
    t = rand(shape, dt, -6, 6)
    if dt.is_floating_point:
        fi = torch.finfo(dt)
        pool = [INF, -INF, NAN, 0.0, -0.0, fi.tiny] + ([fi.max, -fi.max] if huge else []) + list(extra)
    else:
        ii = torch.iinfo(dt)
        pool = [ii.min, ii.max, 0, -1, 1] + list(extra)
        pool = [v for v in pool if ii.min <= v <= ii.max]
    wide = torch.float64 if dt.is_floating_point else torch.int64
    pool = torch.tensor(pool, dtype=wide)
    mask = torch.rand(list(t.shape)) < 0.4
    w = t.to(wide)
    w[mask] = pool[torch.randint(0, len(pool), (int(mask.sum()),))]
    return w.to(dt)


def gcd_acc_family():
    for dt in INTS:
        for shape in ([64], [5, 7]):
            a, b = specials(shape, dt, (6, -4, 5, 3)), specials(shape, dt, (6, -4, 5, 3))
            acase(f"{dt} {shape} specials", "aoti_torch_cpu_gcd", [T(a), T(b), Ret()],
                  lambda a=a, b=b: A.gcd(a, b))


def pow_acc_family():
    # the exponents PyTorch special-cases (before or after rounding to the half type) and
    # ones that round: 1e-5 is 0 in bfloat16 but not in float16, 2.001 is 2 in bfloat16
    # (float32: PyTorch's vectorized loop takes SLEEF's powf with the exponent in float32, its
    # loop tail and strided inputs pow in double: not compared here)
    for dt in (torch.float16, torch.bfloat16):
        for e in (0.5, -0.5, -1.0, 2.0, 3.0, -2.0, 2.001, 3.004, -2.004, 1e-5, 1e-9, 0.3, 7.0,
                  -1.0000001, 0.50001, 65536.5, 1e300):
            for lay, x in list(layouts(specials([3, 41], dt, (-3.5, 1.75, 250.0)).abs()
                                       if e not in (0.5, -0.5) else specials([3, 41], dt)))[:2]:
                acase(f"{dt} {lay} ** {e}", "aoti_torch_cpu_pow_Tensor_Scalar", [T(x), e, Ret()],
                      lambda x=x, e=e: A.pow.Tensor_Scalar(x, e))


def int_specials(shape, dt, huge):
    """Small integers (exact sums in any order) with inf, -inf, NaN and +-huge mixed in."""
    t = torch.randint(-4, 5, shape).to(dt)
    pool = torch.tensor([INF, -INF, NAN, huge, -huge, 0.0], dtype=dt)
    mask = torch.rand(shape) < 0.25
    t[mask] = pool[torch.randint(0, len(pool), (int(mask.sum()),))]
    return t


def mm_acc_family():
    # PyTorch multiplies and adds separately (MKL's kernels for at most 11 result columns or 3
    # rows, its own loop for small batched products): a product overflowing next to an inf
    # gives NaN there (linalg.c); larger results with MKL's fused kernels (4x2x12: alpha
    # multiplies mat2 first) only without beta
    for dt, huge in ((torch.float32, 3.0e38), (torch.float64, 1.7e308)):
        for n, k, m in ((3, 3, 2), (1, 4, 1), (2, 5, 3), (4, 2, 12), (3, 7, 16), (5, 3, 11),
                        (12, 3, 3), (1, 300, 300), (1700, 40, 3)):
            for trial in range(2):
                a, b = int_specials([n, k], dt, huge), int_specials([k, m], dt, huge)
                c = int_specials([n, m], dt, huge)
                for lay, aa in list(layouts(a))[:2]:
                    acase(f"{dt} mm {n}x{k}x{m} {lay}", "aoti_torch_cpu_mm_out",
                          [T(torch.empty(0, dtype=dt), True), T(aa), T(b)],
                          lambda aa=aa, b=b: A.mm(aa, b))
                    acase(f"{dt} matmul {n}x{k}x{m} {lay}", "aoti_torch_cpu_matmul",
                          [T(aa), T(b), Ret()], lambda aa=aa, b=b: A.matmul(aa, b))
                    for beta, alpha in ((1.0, 1.0), (0.0, 2.0), (0.5, 0.0)):
                        if beta and m > 11 and n > 3:
                            continue  # MKL's fused kernels: how they add beta * c not known
                        acase(f"{dt} addmm {n}x{k}x{m} {lay} beta={beta} alpha={alpha}",
                              "aoti_torch_cpu_addmm_out",
                              [T(torch.empty(0, dtype=dt), True), T(c), T(aa), T(b), beta, alpha],
                              lambda aa=aa, b=b, beta=beta, alpha=alpha, c=c:
                              A.addmm(c, aa, b, beta=beta, alpha=alpha))
                ba, bb = int_specials([2, n, k], dt, huge), int_specials([2, k, m], dt, huge)
                bc = int_specials([2, n, m], dt, huge)
                acase(f"{dt} bmm {n}x{k}x{m}", "aoti_torch_cpu_bmm_out",
                      [T(torch.empty(0, dtype=dt), True), T(ba), T(bb)],
                      lambda ba=ba, bb=bb: A.bmm(ba, bb))
                acase(f"{dt} matmul batched {n}x{k}x{m}", "aoti_torch_cpu_matmul",
                      [T(ba), T(bb), Ret()], lambda ba=ba, bb=bb: A.matmul(ba, bb))
                if 2 * n <= 3 or m <= 11:  # (a folded batch of more rows: MKL's fused kernels)
                    acase(f"{dt} matmul folded {n}x{k}x{m}", "aoti_torch_cpu_matmul",
                          [T(ba), T(b), Ret()], lambda ba=ba, b=b: A.matmul(ba, b))
                acase(f"{dt} matmul vector {n}x{k}", "aoti_torch_cpu_matmul",
                      [T(a), T(b[:, 0]), Ret()], lambda a=a, b=b: A.matmul(a, b[:, 0]))
                for beta, alpha in ((1.0, 1.0), (0.0, 2.0), (0.5, 0.0)):
                    acase(f"{dt} baddbmm {n}x{k}x{m} beta={beta} alpha={alpha}",
                          "aoti_torch_cpu_baddbmm_out",
                          [T(torch.empty(0, dtype=dt), True), T(bc), T(ba), T(bb), beta, alpha],
                          lambda ba=ba, bb=bb, bc=bc, beta=beta, alpha=alpha:
                          A.baddbmm(bc, ba, bb, beta=beta, alpha=alpha))


def layer_norm_acc_family():
    # PyTorch's Welford row moments (8 float lanes, chunks of 16, AddMoments): rows of
    # ordinary values and rows with inf/-inf/NaN. Not yet PyTorch's: rows of a few hundred
    # elements and more (1-2 ulp: chunk merges), rows whose squared deviations overflow
    # (+-max: NaN where PyTorch's rstd is 0), float64 rows from 100 (2 ulp)
    name = "aoti_torch_cpu_native_layer_norm"
    for dt, pdt in ((torch.float32, torch.float32), (torch.float64, torch.float64),
                    (torch.bfloat16, torch.bfloat16), (torch.float16, torch.float16),
                    (torch.bfloat16, torch.float32), (torch.float16, torch.float32)):
        # (float16/bfloat16 inputs: rstd sometimes 1-2 ulp off, rows of 64 and more more:
        # not yet analysed)
        for n in (1, 2, 3, 5, 8, 17, 33) + ((64, 100) if dt == torch.float32 else
                                           (64,) if dt == torch.float64 else ()):
            for kind in ("plain", "specials"):
                x = rand([3, n], dt, -3, 3) if kind == "plain" else specials([3, n], dt, huge=False)
                w, b = rand([n], pdt, -2, 2), rand([n], pdt, -2, 2)
                for wb in ((None, None), (w, b)):
                    acase(f"{dt}/{pdt} [3, {n}] {kind} weight={wb[0] is not None} bias={wb[1] is not None}",
                          name, [T(x), [n], Opt(T(wb[0]) if wb[0] is not None else None),
                                 Opt(T(wb[1]) if wb[1] is not None else None), 1e-5, Ret(), Ret(), Ret()],
                          lambda x=x, wb=wb, n=n: A.native_layer_norm(x, [n], wb[0], wb[1], 1e-5),
                          ulps=1 if dt in (torch.float32, torch.float64) else 2)


def rms_norm_acc_family():
    # PyTorch's composite in the compute type: x^2 overflowing in float, empty rows (NaN),
    # inf and NaN in a row; two roundings with a weight (up to 6 ulp: mean.dim of rows is
    # not yet PyTorch's summation order)
    name = "aoti_torch_cpu__fused_rms_norm"
    for dt in (torch.float32, torch.float64, torch.bfloat16, torch.float16):
        for shape, ns in (([3, 5], [5]), ([2, 3, 1], [1]), ([4, 2, 3], [2, 3]), ([2, 0], [0]),
                          ([3, 0, 2], [0, 2])):
            for kind in ("plain", "specials"):
                x = rand(shape, dt) if kind == "plain" else specials(shape, dt)
                for w in (None, rand(ns, dt, -2, 2)):
                    for eps in (None, 1e-5):
                        acase(f"{dt} {shape} {ns} {kind} w={w is not None} eps={eps}", name,
                              [T(x), ns, Opt(None if w is None else T(w)), Opt(eps), Ret(), Ret()],
                              lambda x=x, w=w, eps=eps, ns=ns: A._fused_rms_norm(x, ns, w, eps),
                              ulps=6)


def cdist_acc_family():
    # PyTorch's scalar loop in the input's dtype (std::min / std::max with NaN, overflow in
    # float) and its matrix-product path for p = 2
    for dt in (torch.float32, torch.float64):
        for s1, s2 in (([3, 4], [2, 4]), ([2, 3, 2], [2, 5, 2]), ([4, 1], [3, 1]), ([30, 2], [2, 2])):
            for kind in ("plain", "specials"):
                x1 = rand(s1, dt) if kind == "plain" else specials(s1, dt)
                x2 = rand(s2, dt) if kind == "plain" else specials(s2, dt)
                for p in (0.0, 1.0, 2.0, INF, 0.5, 3.0):
                    for cm in (None, 0, 1, 2):
                        if p == 2.0 and kind == "specials" and cm != 2 and \
                                (cm == 1 or max(s1[-2], s2[-2]) > 25):
                            continue  # matrix products with inf/NaN: MKL's order not emulated
                        acase(f"{dt} {s1} {s2} {kind} p={p} mode={cm}",
                              "aoti_torch_cpu__cdist_forward", [T(x1), T(x2), p, Opt(cm), Ret()],
                              lambda x1=x1, x2=x2, p=p, cm=cm: A._cdist_forward(x1, x2, p, cm),
                              ulps=1 if p != 2.0 or cm == 2 else 4)


def add_acc_family():
    # float16/bfloat16 with alpha: PyTorch's vector loop (fused, blocks of 32) and scalar
    # tail (product rounded first); values near the dtype's range
    for dt in (torch.bfloat16, torch.float16, torch.float32):
        for n in (5, 31, 32, 33, 70):
            big = specials([n], dt, (1.5e38, -1.5e38, 40000.0, -40000.0) if dt != torch.float32 else ())
            b2 = specials([n], dt, (2.5e38, -3e38, 60000.0) if dt != torch.float32 else ())
            for alpha in (1.0, 2.0, -1.5, 1.0039, 0.3):
                for lay, x in list(layouts(big))[:2]:
                    acase(f"{dt} n={n} {lay} alpha={alpha}", "aoti_torch_cpu_add_Tensor",
                          [T(x), T(b2), alpha, Ret()],
                          lambda x=x, b2=b2, alpha=alpha: A.add.Tensor(x, b2, alpha=alpha))
                    if dt == torch.float32:
                        continue  # float32 with a broadcast operand: PyTorch's loop not known
                    acase(f"{dt} n={n} {lay} broadcast alpha={alpha}", "aoti_torch_cpu_add_Tensor",
                          [T(x), T(b2[:1]), alpha, Ret()],
                          lambda x=x, b2=b2, alpha=alpha: A.add.Tensor(x, b2[:1], alpha=alpha))


def mean_acc_family():
    # mean.dim(dtype=...): PyTorch casts the elements to the dtype (float32 for the half
    # types), sums and divides there, then casts (INT64_MAX next to small values in float32,
    # uint16 65535 summed into float16)
    DT.setdefault(torch.uint16, 27)
    RDT.setdefault(27, torch.uint16)

    def dims_arg(dims):
        arr = (C.c_int64 * max(len(dims), 1))(*dims)
        return C.pointer(C.cast(arr, P(C.c_int64))), arr
    for sdt in (torch.int64, torch.int32, torch.uint8, torch.int16, torch.uint16, torch.float64,
                torch.float32, torch.float16):
        for odt in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
            for shape, dims in (([3, 4, 2], [0, 1, 2]), ([2, 2], [1]), ([4], [0]), ([3, 5], [0])):
                # (the float32 sum's order is the engine's, not yet PyTorch's cascade order:
                # special values only where one row in memory order is summed, floating
                # sources only there; small integers elsewhere, whose sums are exact)
                if ((len(dims) == 3 or shape == [3, 5]) and sdt.is_floating_point) or sdt == odt:
                    continue  # (sdt == odt: the engine's own sum, compared elsewhere)
                # (integer extremes next to small values: the engine's float32 summation
                # order, not PyTorch's, decides the cancellation; the uint16 65535 case stays)
                x = rand(shape, sdt) if shape == [3, 5] or len(dims) == 3 else \
                    specials(shape, sdt, huge=False) if sdt.is_floating_point else \
                    torch.tensor([65535, 65531, 5, 65535], dtype=torch.int64)[:shape[-1]].to(sdt) \
                    .expand(shape).contiguous() if sdt == torch.uint16 else rand(shape, sdt, -100, 100)
                ptr, keep = dims_arg(dims)
                acase(f"{sdt} -> {odt} {shape} dims={dims}", "aoti_torch_cpu_mean_dim",
                      [T(x), ptr, len(dims), 0, Opt(DT[odt]), Ret()],
                      lambda x=x, dims=dims, odt=odt: A.mean.dim(x, dims, False, dtype=odt),
                      ulps=4 if len(dims) == 3 else 3)


def softmax_acc_family():
    # float32 along the last dim as PyTorch's kernel: SLEEF's vector exp/log, its lane sums
    for name in ("softmax_int", "log_softmax_int"):
        for n in (1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100, 300):
            for kind in ("plain", "specials"):
                x = rand([3, n], torch.float32, -8, 8) if kind == "plain" else \
                    specials([3, n], torch.float32, huge=False)
                acase(f"float32 [3, {n}] {kind}", "aoti_torch_cpu_" + name,
                      [T(x), 1, Opt(None), Ret()],
                      lambda x=x, name=name: getattr(A, "_" + name[:-4])(x, 1, False))
        # log_softmax along a dim that is not the last (inner positions of up to 2 vectors
        # and a tail)
        for shape, dim in (([3, 4, 5], 1), ([2, 3, 4, 4], 0), ([4, 40], 0), ([2, 5, 33], 1)):
            if name != "log_softmax_int":
                continue
            for kind in ("plain", "specials"):
                x = rand(shape, torch.float32, -8, 8) if kind == "plain" else \
                    specials(shape, torch.float32, huge=False)
                acase(f"float32 {shape} dim={dim} {kind}", "aoti_torch_cpu_" + name,
                      [T(x), dim, Opt(None), Ret()],
                      lambda x=x, dim=dim: A._log_softmax(x, dim, False))


ACC_FAMILIES = [softmax_acc_family, mean_acc_family, add_acc_family, cdist_acc_family, gcd_acc_family, pow_acc_family, mm_acc_family, layer_norm_acc_family,
                rms_norm_acc_family]

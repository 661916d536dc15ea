"""tests/dropin/aoti_oracle_i20.py: issue 20's c_shim_cpu.h functions (the rest of the header:
index_reduce, segment_reduce, histograms, _trilinear, fractional max pooling, fake-quant
observers, zero tensors, sparse refusals, ...) against PyTorch 2.15. Run by aoti_oracle.py in
its own namespace (case, call, T, Opt, Ret, rand, layouts, A are aoti_oracle.py's); the
families listed in I20_FAMILIES run after aoti_oracle.py's own."""


def index_reduce_family():
    name = "aoti_torch_cpu_index_reduce"
    for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
               torch.int32, torch.uint8]:
        for red in ("prod", "mean", "amax", "amin"):
            for inc in (True, False):
                for dim, shape in ((0, [5, 3]), (1, [4, 6]), (-1, [2, 3, 4]), (0, [7])):
                    self0 = rand(shape, dt, 1, 3)
                    d = dim % len(shape)
                    n = 4
                    idx = torch.randint(0, shape[d], (n,))
                    sshape = list(shape)
                    sshape[d] = n
                    src = rand(sshape, dt, 1, 3)
                    for lay, s in layouts(self0):
                        case(f"{dt} {red} include_self={inc} dim={dim} {shape} self {lay}", name,
                             [T(s), dim, T(idx), T(src), red, int(inc), Ret()],
                             lambda s=s, idx=idx, src=src, dim=dim, red=red, inc=inc:
                             A.index_reduce(s, dim, idx, src, red, include_self=inc),
                             loose=True)
                    case(f"{dt} {red} int32 index", name,
                         [T(self0), dim, T(idx.int()), T(src), red, int(inc), Ret()],
                         lambda s=self0, idx=idx, src=src, dim=dim, red=red, inc=inc:
                         A.index_reduce(s, dim, idx.int(), src, red, include_self=inc),
                         loose=True)
    x = torch.ones(5, 3)
    nan_src = torch.tensor([[1.0, float("nan"), 2.0], [3.0, 4.0, float("nan")]])
    for red in ("amax", "amin", "prod", "mean"):
        case(f"NaN {red}", name, [T(x), 0, T(torch.tensor([1, 1])), T(nan_src), red, 1, Ret()],
             lambda red=red: A.index_reduce(x, 0, torch.tensor([1, 1]), nan_src, red))
    case("empty index", name, [T(x), 0, T(torch.tensor([], dtype=torch.int64)),
                               T(torch.ones(0, 3)), "prod", 1, Ret()],
         lambda: A.index_reduce(x, 0, torch.tensor([], dtype=torch.int64), torch.ones(0, 3),
                                "prod"))
    bad = [("sum", x, 0, torch.tensor([0, 1]), torch.ones(2, 3)),
           ("prod", x, 0, torch.tensor([0, 5]), torch.ones(2, 3)),
           ("prod", x, 0, torch.tensor([0, -1]), torch.ones(2, 3)),
           ("prod", x, 0, torch.tensor([0.0, 1.0]), torch.ones(2, 3)),
           ("prod", x, 0, torch.tensor([[0, 1]]), torch.ones(2, 3)),
           ("prod", x, 0, torch.tensor([0, 1]), torch.ones(2, 3, dtype=torch.float64)),
           ("prod", x, 0, torch.tensor([0, 1]), torch.ones(3, 3)),
           ("prod", x, 0, torch.tensor([0, 1]), torch.ones(2, 4)),
           ("prod", x, 2, torch.tensor([0, 1]), torch.ones(2, 3)),
           ("prod", x, 0, torch.tensor([0, 1]), torch.ones(2, 3, 1))]
    for k, (red, s, dim, idx, src) in enumerate(bad):
        case(f"bad {k}", name, [T(s), dim, T(idx), T(src), red, 1, Ret()],
             lambda red=red, s=s, dim=dim, idx=idx, src=src:
             A.index_reduce(s, dim, idx, src, red))


def segment_reduce_family():
    name = "aoti_torch_cpu_segment_reduce"
    for dt in FLOATS:
        for red in ("max", "min", "sum", "mean", "prod"):
            for init in (None, 2.5):
                data = rand([9], dt, -2, 2)
                lengths = torch.tensor([2, 0, 4, 3])
                for lay, d in layouts(data):
                    case(f"{dt} {red} initial={init} 1-d {lay}", name,
                         [T(d), red, Opt(T(lengths)), Opt(None), Opt(None), 0, 0, Opt(init),
                          Ret()],
                         lambda d=d, red=red, init=init: A.segment_reduce(
                             d, red, lengths=lengths, initial=init), loose=True)
                offsets = torch.tensor([0, 2, 2, 6, 9], dtype=torch.int32)
                case(f"{dt} {red} initial={init} offsets", name,
                     [T(data), red, Opt(None), Opt(None), Opt(T(offsets)), 0, 0, Opt(init),
                      Ret()],
                     lambda data=data, red=red, init=init: A.segment_reduce(
                         data, red, offsets=offsets, initial=init), loose=True)
                d2 = rand([6, 3], dt, -2, 2)
                for lay, d in layouts(d2):
                    case(f"{dt} {red} initial={init} 2-d axis 0 {lay}", name,
                         [T(d), red, Opt(T(torch.tensor([1, 3, 0, 2]))), Opt(None), Opt(None),
                          0, 0, Opt(init), Ret()],
                         lambda d=d, red=red, init=init: A.segment_reduce(
                             d, red, lengths=torch.tensor([1, 3, 0, 2]), initial=init),
                         loose=True)
                l2 = torch.tensor([[1, 2], [3, 0], [0, 3], [2, 1], [1, 2], [3, 0]])
                case(f"{dt} {red} initial={init} 2-d axis 1", name,
                     [T(d2), red, Opt(T(l2)), Opt(None), Opt(None), 1, 0, Opt(init), Ret()],
                     lambda d=d2, red=red, init=init: A.segment_reduce(
                         d, red, lengths=l2, axis=1, initial=init), loose=True)
                o2 = torch.tensor([[0, 1, 3]] * 6)
                case(f"{dt} {red} initial={init} 2-d offsets axis 1", name,
                     [T(d2), red, Opt(None), Opt(None), Opt(T(o2)), 1, 0, Opt(init), Ret()],
                     lambda d=d2, red=red, init=init: A.segment_reduce(
                         d, red, offsets=o2, axis=1, initial=init), loose=True)
    data = torch.tensor([1.0, float("nan"), 3.0, 4.0])
    for red in ("max", "min", "sum"):
        case(f"NaN {red}", name, [T(data), red, Opt(T(torch.tensor([2, 2]))), Opt(None),
                                  Opt(None), 0, 0, Opt(None), Ret()],
             lambda red=red: A.segment_reduce(data, red, lengths=torch.tensor([2, 2])))
    case("unsafe, lengths short", name, [T(data), "sum", Opt(T(torch.tensor([1, 2]))), Opt(None),
                                         Opt(None), 0, 1, Opt(None), Ret()],
         lambda: A.segment_reduce(data, "sum", lengths=torch.tensor([1, 2]), unsafe=True))
    bad = [("foo", data, torch.tensor([4]), 0), ("sum", data, torch.tensor([1, 2]), 0),
           ("sum", data.int(), torch.tensor([4]), 0), ("sum", data, torch.tensor([4.0]), 0),
           ("sum", data.view(2, 2), torch.tensor([1, 1]), 1)]
    for k, (red, d, ln, ax) in enumerate(bad):
        case(f"bad {k}", name, [T(d), red, Opt(T(ln)), Opt(None), Opt(None), ax, 0, Opt(None),
                                Ret()],
             lambda red=red, d=d, ln=ln, ax=ax: A.segment_reduce(d, red, lengths=ln, axis=ax))
    case("indices", name, [T(data), "sum", Opt(None), Opt(T(torch.tensor([0, 0, 1, 1]))),
                           Opt(None), 0, 0, Opt(None), Ret()],
         lambda: A.segment_reduce(data, "sum", indices=torch.tensor([0, 0, 1, 1])))


_KEEP = []


def dpp(vals):
    """a `const double**` argument: None, or a pointer to an array of vals"""
    if vals is None:
        return None
    arr = (C.c_double * max(len(vals), 1))(*vals)
    p = C.pointer(C.cast(arr, P(C.c_double)))
    _KEEP.append((arr, p))
    return p


def histogram_family():
    h1 = "aoti_torch_cpu_histogram_bin_ct"
    hd = "aoti_torch_cpu__histogramdd_from_bin_cts"
    for dt in (torch.float32, torch.float64):
        for shape in ([0], [1], [7], [50], [4, 9], [3, 0]):
            x0 = rand(shape, dt, -3, 3)
            for bins in (1, 3, 10):
                for rng in (None, (-2.0, 2.0), (0.0, 0.0), (1.0, 5.0)):
                    for wt in (False, True):
                        w = rand(shape, dt, 0, 2) if wt else None
                        for dens in (False, True):
                            for lay, x in layouts(x0):
                                r = list(rng) if rng else None
                                case(f"{dt} {shape} {lay} bins={bins} range={rng} weight={wt} "
                                     f"density={dens}", h1,
                                     [T(x), bins, dpp(r), len(r) if r else 0,
                                      Opt(T(w)) if wt else Opt(None), int(dens), Ret(), Ret()],
                                     lambda x=x, bins=bins, r=r, w=w, dens=dens: A.histogram.bin_ct(
                                         x, bins, range=r, weight=w, density=dens), loose=True)
        x = torch.tensor([2.0, 2.0], dtype=dt)
        case(f"{dt} constant", h1, [T(x), 4, None, 0, Opt(None), 0, Ret(), Ret()],
             lambda x=x: A.histogram.bin_ct(x, 4))
        for shape, bins in (([20, 2], [3, 4]), ([5, 3], [2, 2, 2]), ([0, 2], [2, 3]),
                            ([2, 6, 1], [5]), ([8, 3], [1, 3, 2])):
            x0 = rand(shape, dt, -3, 3)
            for rng in (None, [-1.0, 1.0] * len(bins)):
                for wt in (False, True):
                    w = rand(shape[:-1], dt, 0, 2) if wt else None
                    for dens in (False, True):
                        for lay, x in layouts(x0):
                            case(f"dd {dt} {shape} {lay} bins={bins} range={rng} weight={wt} "
                                 f"density={dens}", hd,
                                 [T(x), bins, dpp(rng), len(rng) if rng else 0,
                                  Opt(T(w)) if wt else Opt(None), int(dens), Ret()],
                                 lambda x=x, bins=bins, rng=rng, w=w, dens=dens:
                                 A._histogramdd_from_bin_cts(x, bins, range=rng, weight=w,
                                                             density=dens), loose=True)
    x = torch.tensor([1.0, 2.0, 3.0])
    bad = [(x, 0, None, None), (x, 3, [3.0, 1.0], None), (x.half(), 3, None, None),
           (x.int(), 3, None, None), (torch.tensor([1.0, float("inf")]), 3, None, None),
           (torch.tensor([1.0, float("nan")]), 3, None, None), (x, 3, [0.0, 1.0, 2.0], None),
           (x, 3, None, torch.ones(2)), (x, 3, None, torch.ones(3, dtype=torch.float64)),
           (x, 3, [0.0, float("inf")], None)]
    for k, (xx, bins, r, w) in enumerate(bad):
        case(f"bad {k}", h1, [T(xx), bins, dpp(r), len(r) if r else 0,
                              Opt(T(w)) if w is not None else Opt(None), 0, Ret(), Ret()],
             lambda xx=xx, bins=bins, r=r, w=w: A.histogram.bin_ct(xx, bins, range=r, weight=w))
    x2 = torch.rand(4, 2)
    for k, bins in enumerate(([2], [2, 0], [2, 2, 2])):
        case(f"dd bad {k}", hd, [T(x2), bins, None, 0, Opt(None), 0, Ret()],
             lambda bins=bins: A._histogramdd_from_bin_cts(x2, bins))


I20_FAMILIES = [histogram_family, index_reduce_family, segment_reduce_family]

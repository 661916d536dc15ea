# tests/dropin/aoti_oracle_bwb.py: issue 20's backward ops of the bags and segments
# (_segment_reduce_backward, _embedding_bag_dense_backward,
# _embedding_bag_per_sample_weights_backward) and the privateuse1 attention backward that
# PyTorch's CPU refuses, against PyTorch 2.15. Run by aoti_oracle.py in its namespace (case,
# T, Opt, Ret, rand, layouts, ...). The auxiliary inputs (outputs, offset2bag, bag_size,
# maximum indices) are PyTorch's own forward results. Bit-identical (tolerance 0) but for
# per_sample_weights_backward's float32 / float64 dot products (BLAS's summation order).


def seg_backward_family():
    name = "aoti_torch_cpu__segment_reduce_backward"
    # (data shape, lengths) with lengths along the last dim of lengths; offsets derived
    setups = [([6, 2], [2, 0, 4]), ([5], [5]), ([7, 3, 2], [1, 3, 0, 3]), ([0, 2], [0, 0]),
              ([2, 5, 3], [[2, 3], [0, 5]])]
    for dt in FLOATS:
        for shape, lens in setups:
            ln = torch.tensor(lens)
            ax = ln.dim() - 1
            # small integers: ties for max / min, zeros for prod; one NaN
            d0 = torch.randint(-2, 3, shape).to(dt)
            if d0.numel() > 3:
                d0.view(-1)[3] = float("nan")
            off = torch.cat([torch.zeros(list(ln.shape[:-1]) + [1], dtype=ln.dtype),
                             ln.cumsum(-1)], -1)
            for red in ("sum", "mean", "max", "min", "prod"):
                for init in (None, 2.0):
                    out = torch.segment_reduce(d0, red, lengths=ln, axis=ax, initial=init)
                    g0 = rand(list(out.shape), dt, -2, 2)
                    for lay, d in list(layouts(d0))[:2]:
                        for seg, kw in (("lengths", dict(lengths=ln)), ("offsets", dict(offsets=off))):
                            for idt in (torch.int64, torch.int32):
                                s = kw[seg].to(idt)
                                args = [T(g0), T(out), T(d), red,
                                        Opt(T(s) if seg == "lengths" else None),
                                        Opt(T(s) if seg == "offsets" else None), ax, Opt(init),
                                        Ret()]
                                case(f"{dt} {shape} {red} {seg} {idt} {lay} initial={init}", name,
                                     args, lambda g0=g0, out=out, d=d, red=red, seg=seg, s=s,
                                     ax=ax, init=init: A._segment_reduce_backward(
                                         g0, out, d, red, axis=ax, initial=init, **{seg: s}))
    d = rand([6, 2], torch.float64)
    ln, off = torch.tensor([2, 0, 4]), torch.tensor([0, 2, 2, 6])
    out = torch.segment_reduce(d, "sum", lengths=ln)
    g = rand([3, 2], torch.float64)
    # both given: offsets (one segment fewer here would read past grad: same segments)
    for label, gg, oo, dd, red, l, o, ax in (
            ("reduce foo", g, out, d, "foo", ln, None, 0), ("neither", g, out, d, "sum", None, None, 0),
            ("lengths short", g, out, d, "sum", ln.short(), None, 0),
            ("offsets short", g, out, d, "sum", None, off.short(), 0),
            ("data long", g.long(), out.long(), d.long(), "sum", ln, None, 0),
            ("output float", g, out.float(), d, "sum", ln, None, 0),
            ("grad float", g.float(), out, d, "sum", ln, None, 0),
            ("axis 5", g, out, d, "sum", ln, None, 5), ("axis -1", g, out, d, "max", ln, None, -1),
            ("both", g, out, d, "prod", ln, off, 0)):
        case(label, name, [T(gg), T(oo), T(dd), red, Opt(None if l is None else T(l)),
                           Opt(None if o is None else T(o)), ax, Opt(None), Ret()],
             lambda gg=gg, oo=oo, dd=dd, red=red, l=l, o=o, ax=ax: A._segment_reduce_backward(
                 gg, oo, dd, red, lengths=l, offsets=o, axis=ax))
    refuses("lengths past data", name, [T(g), T(out), T(d), "sum", Opt(T(torch.tensor([2, 0, 9]))),
                                         Opt(None), 0, Opt(None), Ret()])
    refuses("grad too small", name, [T(g[:2]), T(out), T(d), "sum", Opt(T(ln)), Opt(None), 0,
                                      Opt(None), Ret()])


def bag_backward_family():
    dn = "aoti_torch_cpu__embedding_bag_dense_backward"
    pn = "aoti_torch_cpu__embedding_bag_per_sample_weights_backward"
    R, D = 7, 5
    ind0 = torch.tensor([3, 1, 3, 0, 6, 3, 1, 2, 2, 5, 3])
    for dt in FLOATS:
        w = rand([R, D], dt)
        for idt in (torch.int64, torch.int32):
            ind = ind0.to(idt)
            for offs, last in (([0, 2, 2, 7], False), ([0, 4, 11], True), ([0], False)):
                of = torch.tensor(offs, dtype=idt)
                for mode in (0, 1, 2):
                    for pad in (-1, 3):
                        for psw in ((None, rand([len(ind0)], dt)) if mode == 0 else (None,)):
                            res = A._embedding_bag(w, ind, of, False, mode, False, psw, last, pad)
                            _, o2b, bsz, mxi = res
                            if o2b.numel() == 0:  # (mode sum: mean's offset2bag, as autograd's)
                                o2b = A._embedding_bag(w, ind, of, False, 1, False, None, last,
                                                       pad)[1]
                            g0 = rand(list(res[0].shape), dt, -2, 2)
                            for lay, g in list(layouts(g0))[:2]:
                                for sgbf in (False, True):
                                    lbl = (f"{dt} {idt} offsets {offs} mode {mode} pad {pad} "
                                           f"psw {psw is not None} {lay} freq {sgbf}")
                                    case(lbl, dn, [T(g), T(ind), T(o2b), T(bsz), T(mxi), R, sgbf,
                                                   mode, Opt(None if psw is None else T(psw)), pad,
                                                   Ret()],
                                         lambda g=g, ind=ind, o2b=o2b, bsz=bsz, mxi=mxi, sgbf=sgbf,
                                         mode=mode, psw=psw, pad=pad:
                                         A._embedding_bag_dense_backward(
                                             g, ind, o2b, bsz, mxi, R, sgbf, mode, psw, pad),
                                         loose=(0, 0))
                            if mode != 0 or psw is None:
                                continue
                            for lay, g in list(layouts(g0))[:2]:
                                for o2 in (o2b, o2b[:0]):
                                    case(f"{dt} {idt} offsets {offs} pad {pad} {lay} o2b "
                                         f"{o2.numel()}", pn,
                                         [T(g), T(w), T(ind), T(of), T(o2), 0, pad, Ret()],
                                         lambda g=g, w=w, ind=ind, of=of, o2=o2, pad=pad:
                                         A._embedding_bag_per_sample_weights_backward(
                                             g, w, ind, of, o2, 0, pad),
                                         loose=(0, 0) if dt in (torch.float16, torch.bfloat16)
                                         else False)
    # bad inputs
    w = rand([R, D], torch.float32)
    ind, of = ind0, torch.tensor([0, 2, 2, 7])
    _, o2b, bsz, mxi = A._embedding_bag(w, ind, of, False, 1, False, None, False, -1)
    g = rand([4, D], torch.float32)
    for label, gg in (("grad long", g.long()), ("grad int", g.int())):
        case(label, dn, [T(gg), T(ind), T(o2b), T(bsz), T(mxi), R, False, 1, Opt(None), -1, Ret()],
             lambda gg=gg: A._embedding_bag_dense_backward(gg, ind, o2b, bsz, mxi, R, False, 1,
                                                           None, -1))
    case("offset2bag int", dn, [T(g), T(ind), T(o2b.int()), T(bsz), T(mxi), R, False, 1, Opt(None),
                                -1, Ret()],
         lambda: A._embedding_bag_dense_backward(g, ind, o2b.int(), bsz, mxi, R, False, 1, None, -1))
    _, o2m, bsm, mxm = A._embedding_bag(w, ind, of, False, 2, False, None, False, -1)
    mxm = mxm.clone()
    mxm[0, 0] = -1
    case("max index -1", dn, [T(g), T(ind), T(o2m), T(bsm), T(mxm), R, False, 2, Opt(None), -1,
                              Ret()],
         lambda: A._embedding_bag_dense_backward(g, ind, o2m, bsm, mxm, R, False, 2, None, -1))
    # per_sample_weights: ignored by mode max; mode mean's assert fails only at an index other
    # than padding_idx (so all-padding or empty indices pass)
    psw = rand([len(ind0)], torch.float32)
    for label, ii, oo, mode, pad in (("psw max", ind, o2m, 2, -1), ("psw mean", ind, o2b, 1, -1),
                                     ("psw mean all padding", torch.full_like(ind, 3), o2b, 1, 3),
                                     ("psw mean empty", ind[:0], o2b[:0], 1, -1)):
        bb, mm = (bsm, mxm.clamp(0)) if mode == 2 else (bsz, mxi)
        case(label, dn, [T(g), T(ii), T(oo), T(bb), T(mm), R, False, mode, Opt(T(psw)), pad, Ret()],
             lambda ii=ii, oo=oo, bb=bb, mm=mm, mode=mode, pad=pad: A._embedding_bag_dense_backward(
                 g, ii, oo, bb, mm, R, False, mode, psw, pad))
    # mode max takes bag_size and maximum_indices of any shape (nonzero, index_select, select,
    # index_add_)
    ge = torch.zeros(0, D)
    li = dict(dtype=torch.long)
    mx = torch.randint(0, R, [4, D + 1])
    for label, gg, bb, mm in (
            ("max empty 2-d", ge, torch.zeros(0, D, **li), torch.zeros(0, D, **li)),
            ("max bag_size 2-d", g, torch.tensor([[0, 1], [1, 0]]), mx),
            ("max bag_size 2-d one", g, torch.tensor([[0, 1], [0, 0]]), mx),
            ("max bag_size float", g, torch.tensor([0.5, 0, 2, 0]), mx),
            ("max bag_size 0-d", g, torch.tensor(3), mx), ("max bag_size past", g,
                                                           torch.tensor([0, 0, 0, 0, 1]), mx),
            ("max indices int32", g, bsm, mx.int()), ("max indices float", g, bsm, mx.float()),
            ("max indices 3-d", g, bsm, mx.unsqueeze(-1)), ("max indices 1-d", g, bsm, mx[:, 0]),
            ("max indices 0-d", g, bsm, mx[0, 0]), ("max indices few columns", g, bsm, mx[:, :2]),
            ("max indices no columns", g, bsm, mx[:, :0]), ("max indices few rows", g, bsm, mx[:2]),
            ("max no rows few columns", g, torch.zeros(4, **li), mx[:, :2]),
            ("max index past num_weights", g, bsm, mx + R)):
        case(label, dn, [T(gg), T(ind), T(o2m), T(bb), T(mm), R, False, 2, Opt(None), -1, Ret()],
             lambda gg=gg, bb=bb, mm=mm: A._embedding_bag_dense_backward(
                 gg, ind, o2m, bb, mm, R, False, 2, None, -1))
    for label, mode, nw in (("mode 5", 5, R), ("num_weights -1 mode max", 2, -1),
                            ("num_weights -1 mode mean", 1, -1), ("mode 5 num_weights -1", 5, -1)):
        case(label, dn, [T(g), T(ind), T(o2b), T(bsz), T(mxi), nw, False, mode, Opt(None), -1,
                         Ret()],
             lambda mode=mode, nw=nw: A._embedding_bag_dense_backward(
                 g, ind, o2b, bsz, mxi, nw, False, mode, None, -1))
    refuses("index past num_weights", dn, [T(g), T(ind), T(o2b), T(bsz), T(mxi), 3, False, 1,
                                           Opt(None), -1, Ret()])
    for label, gg, ww, mode in (("mode mean", g, w, 1), ("grad long", g.long(), w.long(), 0),
                                ("weight double", g, w.double(), 0)):
        case(label, pn, [T(gg), T(ww), T(ind), T(of), T(o2b), mode, -1, Ret()],
             lambda gg=gg, ww=ww, mode=mode: A._embedding_bag_per_sample_weights_backward(
                 gg, ww, ind, of, o2b, mode, -1))
    refuses("bag past grad", pn, [T(g[:2]), T(w), T(ind), T(of), T(o2b), 0, -1, Ret()])


def flash_backward_family():
    # PyTorch runs the gradient blocked in float (float32 and the halves): within its own
    # attention tolerances of libshimrt's double products, not bit for bit
    name = "aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu_backward"
    tol = {torch.float32: (2e-4, 2e-4), torch.float64: (1e-9, 1e-9),
           torch.bfloat16: (5e-2, 5e-2), torch.float16: (1e-2, 1e-2)}
    for dt in FLOATS:
        for (b, hq, hk, l, s, e) in [(2, 3, 3, 5, 6, 4), (1, 4, 2, 7, 7, 8), (1, 1, 1, 1, 1, 1),
                                     (1, 2, 2, 3, 9, 16)]:
            q0, k0, v0 = rand([b, hq, l, e], dt, -2, 2), rand([b, hk, s, e], dt, -2, 2), \
                rand([b, hk, s, e], dt, -2, 2)
            mm = torch.zeros(l, s, dtype=dt)
            mm[0] = float("-inf")  # a fully masked row
            for causal in (0, 1):
                for mi, mask in enumerate([None, rand([b, 1, l, s], dt, -1, 1), mm]):
                    for sc in ((None, 0.3)[(mi + causal) % 2],):
                        try:
                            out, lse = A._scaled_dot_product_flash_attention_for_cpu(
                                q0, k0, v0, 0.0, bool(causal), attn_mask=mask, scale=sc)
                        except Exception:
                            continue
                        go = rand(list(out.shape), dt, -1, 1)
                        for lay, q in list(layouts(q0))[:1 if l != 5 else 2]:
                            case(f"{dt} b{b} h{hq}/{hk} l{l} s{s} e{e} q {lay} causal={causal} "
                                 f"mask#{mi} scale={sc}", name,
                                 [T(go), T(q), T(k0), T(v0), T(out), T(lse), 0.0, causal,
                                  Opt(None if mask is None else T(mask)), Opt(sc), Ret(), Ret(),
                                  Ret()],
                                 lambda go=go, k0=k0, v0=v0, out=out, lse=lse, causal=causal,
                                 mask=mask, sc=sc:
                                 A._scaled_dot_product_flash_attention_for_cpu_backward(
                                     go, q0, k0, v0, out, lse, 0.0, bool(causal),
                                     attn_mask=mask, scale=sc),
                                 loose=tol[dt])
    q, k = rand([1, 2, 3, 4], torch.float32), rand([1, 2, 5, 4], torch.float32)
    out, lse = A._scaled_dot_product_flash_attention_for_cpu(q, k, k)
    for label, args in (("dropout", (out, q, k, k, out, lse, 0.5, False)),
                        ("3-d", (out[0], q[0], k[0], k[0], out[0], lse[0], 0.0, False)),
                        ("value double", (out, q, k, k.double(), out, lse, 0.0, False))):
        case(label, name, [T(a) if isinstance(a, torch.Tensor) else a for a in args] +
             [Opt(None), Opt(None), Ret(), Ret(), Ret()],
             lambda args=args: A._scaled_dot_product_flash_attention_for_cpu_backward(*args))


def overrideable_backward_family():
    # the privateuse1 attention backward: PyTorch's CPU refuses it (the same message)
    q, z = rand([1, 2, 3, 4], torch.float32), torch.zeros(0)
    same_refusal("aoti_torch_cpu__scaled_dot_product_fused_attention_overrideable_backward",
                 [T(q), T(q), T(q), T(q), T(q), [1, 1, 1, 1], T(q), T(q), T(z), T(z), 3, 3, 0.0, 0,
                  T(z), T(z), Opt(None)] + [Ret()] * 4,
                 lambda: A._scaled_dot_product_fused_attention_overrideable_backward(
                     q, q, q, q, q, [True] * 4, q, q, z, z, 3, 3, 0.0, False, z, z))


BWB_FAMILIES = [seg_backward_family, bag_backward_family, flash_backward_family,
                overrideable_backward_family]

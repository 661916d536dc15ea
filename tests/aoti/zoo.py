"""tests/aoti/zoo.py: the AOTInductor model zoo of issue 19.

Run with the PyTorch 2.15 venv's python (.ci/torch-env). Defines small torch.nn models,
exports each with torch.export and compiles it with torch._inductor.aoti_compile_and_package
into a cache outside the tree, with its inputs and PyTorch eager's outputs as .npy files:

    python tests/aoti/zoo.py [--default] [--only NAME,...] [--device cuda]
                                                          prints the cache folder

Cache: ${SHIMGEN_ZOO_CACHE:-${XDG_CACHE_HOME:-~/.cache}/shimgen}/zoo-<hash>, the hash over
this file and torch.__version__; reused when its .complete stamp is there, made under flock
otherwise. Per model NAME: NAME/model.pt2 (link_libtorch=False: needs only the C shim, what
libshimrt runs), NAME/in<i>.npy, NAME/out<i>.npy (eager, outputs flattened in pytree order),
NAME/meta.json (tolerances, compile seconds). mlp_blob keeps its weights outside the .so;
dynamic_batch is exported with a dynamic batch dimension and run at another batch size. --default also makes NAME/default.pt2, the same
program compiled PyTorch's default way (linked to libtorch), for bench/aoti_bench.sh.
--device cuda: the models and inputs on the GPU, compiled for CUDA, eager run there (the
.npy files hold CPU copies); cache zoo-cuda-<hash> (`make check-gpu`, tests/aoti/cuda_zoo.sh).
"""
import fcntl
import hashlib
import json
import os
import platform
import shutil
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(64, 128)
        self.l2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1)
        self.b1 = nn.BatchNorm2d(16)
        self.c2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.b2 = nn.BatchNorm2d(32)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.b1(self.c1(x))), 2)
        x = F.relu(self.b2(self.c2(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


class ResBlock(nn.Module):
    def __init__(self, c=32, groups=4):
        super().__init__()
        self.c1 = nn.Conv2d(c, c, 1, bias=False)
        self.b1 = nn.BatchNorm2d(c)
        self.c2 = nn.Conv2d(c, c, 3, padding=1, groups=groups, bias=False)
        self.b2 = nn.BatchNorm2d(c)
        self.c3 = nn.Conv2d(c, c, 1, bias=False)
        self.b3 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = F.relu(self.b2(self.c2(y)))
        y = self.b3(self.c3(y))
        return F.relu(x + y)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, dropout=0.0,
                                                batch_first=True)

    def forward(self, x):
        return self.layer(x)


class CausalAttention(nn.Module):
    def __init__(self, d=32, h=4):
        super().__init__()
        self.h = h
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q = q.view(b, t, self.h, d // self.h).transpose(1, 2)
        k = k.view(b, t, self.h, d // self.h).transpose(1, 2)
        v = v.view(b, t, self.h, d // self.h).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class EmbGRUTopk(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.gru = nn.GRU(16, 32, batch_first=True)
        self.fc = nn.Linear(32, 50)

    def forward(self, tokens):
        y, _ = self.gru(self.emb(tokens))
        return torch.topk(self.fc(y[:, -1]), 5, dim=-1)


class AudioFront(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(1, 16, 10, stride=5)
        self.n1 = nn.LayerNorm(16)
        self.c2 = nn.Conv1d(16, 32, 3, stride=2)
        self.n2 = nn.LayerNorm(32)

    def forward(self, wav):
        x = F.gelu(self.n1(self.c1(wav).transpose(1, 2))).transpose(1, 2)
        return F.gelu(self.n2(self.c2(x).transpose(1, 2)))


class CumsumSortUpsample(nn.Module):
    def forward(self, x):
        c = torch.cumsum(x, dim=-1)
        s, idx = torch.sort(c, dim=-1, descending=True)
        picked = s[:, :, :, :4] + x[:, :, :, :4] * 0.5
        up = F.interpolate(picked, scale_factor=2, mode="bilinear", align_corners=False)
        return up, idx


class ViTBlock(nn.Module):
    def __init__(self, d=32, h=4):
        super().__init__()
        self.patch = nn.Conv2d(3, d, 4, stride=4)
        self.pos = nn.Parameter(torch.randn(1, 16, d) * 0.02)
        self.n1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, h, batch_first=True)
        self.n2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, img):
        x = self.patch(img).flatten(2).transpose(1, 2) + self.pos
        y = self.n1(x)
        x = x + self.attn(y, y, y, need_weights=False)[0]
        return x + self.mlp(self.n2(x))


class LSTMModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 24, num_layers=2, batch_first=True)
        self.fc = nn.Linear(24, 4)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y)


class DWSeparable(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.dw = nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.bn1 = nn.BatchNorm2d(16)
        self.pw = nn.Conv2d(16, 32, 1)
        self.bn2 = nn.BatchNorm2d(32)

    def forward(self, x):
        x = F.relu6(self.stem(x))
        x = F.relu6(self.bn1(self.dw(x)))
        x = F.relu6(self.bn2(self.pw(x)))
        return F.avg_pool2d(x, 2)


class Int64Index(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(64, 8))

    def forward(self, ids, pos):
        rows = self.table[ids]                      # index with int64
        g = torch.gather(rows, 1, pos.unsqueeze(-1).expand(-1, -1, 8))
        counts = (ids * 3 + pos).sum(dim=1)          # int64 arithmetic, int64 output
        return g.sum(-1), counts, torch.argmax(rows.sum(-1), dim=1)


class Video3D(nn.Module):
    """3-d convolution and pooling: avg_pool3d, _adaptive_avg_pool3d and adaptive_max_pool3d
    are c_shim_cpu.h fallbacks; Inductor lowers max_pool3d (with indices) and max_unpool3d."""
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(2, 8, 3, padding=1)
        self.conv2 = nn.Conv3d(8, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 8, 5)

    def forward(self, x):
        y = F.relu(self.conv(x))
        x, idx = F.max_pool3d(y, 2, return_indices=True)
        x = x + F.max_pool3d(F.max_unpool3d(x, idx, 2, output_size=y.shape[-3:]), 2)
        x = F.avg_pool3d(F.relu(self.conv2(x)), 3, stride=1, padding=1, count_include_pad=False)
        x = F.adaptive_max_pool3d(x, (2, 2, 2)) + F.adaptive_avg_pool3d(x, (2, 2, 2))
        return self.fc(x.flatten(1))


def g(seed):
    return torch.Generator().manual_seed(seed)


# name -> (constructor, inputs maker, rtol, atol)
# mlp_blob: the MLP with its weights outside the .so (a binary blob in the package),
# compiled for x86-64-v2 rather than -march=native: the model valgrind runs (valgrind
# knows no AVX-512).
BLOB = {"aot_inductor.package_constants_in_so": False,
        "aot_inductor.package_constants_on_disk_format": "binary_blob"}
if platform.machine() == "x86_64":
    BLOB["cpp.march"] = "x86-64-v2"
ZOO = {
    "mlp": (MLP, lambda: (torch.randn(4, 64, generator=g(1)),), 1e-5, 1e-5),
    "mlp_blob": (MLP, lambda: (torch.randn(3, 64, generator=g(14)),), 1e-5, 1e-5),
    "cnn_bn_pool": (CNN, lambda: (torch.randn(2, 3, 16, 16, generator=g(2)),), 1e-4, 1e-5),
    "resnet_grouped": (ResBlock, lambda: (torch.randn(2, 32, 8, 8, generator=g(3)),), 1e-4, 1e-5),
    "transformer_encoder": (Encoder, lambda: (torch.randn(2, 8, 32, generator=g(4)),), 1e-4, 1e-5),
    "causal_sdpa": (CausalAttention, lambda: (torch.randn(2, 8, 32, generator=g(5)),), 1e-4, 1e-5),
    "emb_gru_topk": (EmbGRUTopk, lambda: (torch.randint(0, 100, (2, 6), generator=g(6)),), 1e-4, 1e-5),
    "audio_conv1d_ln": (AudioFront, lambda: (torch.randn(2, 1, 400, generator=g(7)),), 1e-4, 1e-5),
    "cumsum_sort_upsample": (CumsumSortUpsample, lambda: (torch.randn(2, 3, 4, 8, generator=g(8)),), 1e-5, 1e-5),
    "vit_block": (ViTBlock, lambda: (torch.randn(2, 3, 16, 16, generator=g(9)),), 1e-4, 1e-5),
    "lstm": (LSTMModel, lambda: (torch.randn(2, 5, 8, generator=g(10)),), 1e-4, 1e-5),
    "dw_separable": (DWSeparable, lambda: (torch.randn(2, 3, 32, 32, generator=g(11)),), 1e-4, 1e-5),
    # exported with a dynamic batch dim from a batch of 3, run at a batch of 5
    "dynamic_batch": (CNN, lambda: (torch.randn(5, 3, 16, 16, generator=g(15)),), 1e-4, 1e-5),
    "video_pool3d": (Video3D, lambda: (torch.randn(2, 2, 8, 10, 12, generator=g(16)),), 1e-4, 1e-5),
    "int64_index": (Int64Index, lambda: (torch.randint(0, 64, (3, 5), generator=g(12)),
                                         torch.randint(0, 5, (3, 5), generator=g(13))), 1e-5, 1e-6),
}


def leaves(out):
    return torch.utils._pytree.tree_leaves(out)


def init_model(name, ctor):
    torch.manual_seed(sum(map(ord, name)))
    m = ctor().eval()
    # Non-trivial batch-norm statistics, so folding them is tested.
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            with torch.no_grad():
                mod.running_mean.uniform_(-0.5, 0.5)
                mod.running_var.uniform_(0.5, 2.0)
    return m


DEVICE = "cpu"


def build(name, folder, default):
    ctor, make_inputs, rtol, atol = ZOO[name]
    m = init_model(name, ctor).to(DEVICE)
    inputs = tuple(t.to(DEVICE) for t in make_inputs())
    if DEVICE != "cpu":  # the model's kernels against eager's on the same GPU
        rtol, atol = max(rtol, 1e-4), max(atol, 1e-4)
    os.makedirs(folder, exist_ok=True)
    meta = {"name": name, "rtol": rtol, "atol": atol, "inputs": len(inputs)}
    with torch.no_grad():
        ref = leaves(m(*inputs))
        for i, t in enumerate(inputs):
            np.save(os.path.join(folder, f"in{i}.npy"), t.cpu().numpy())
        for i, t in enumerate(ref):
            np.save(os.path.join(folder, f"out{i}.npy"), t.contiguous().cpu().numpy())
        meta["outputs"] = len(ref)
        if name == "dynamic_batch":
            batch = torch.export.Dim("batch", min=2, max=64)
            ep = torch.export.export(m, (torch.randn(3, 3, 16, 16, device=DEVICE),),
                                     dynamic_shapes=({0: batch},))
        else:
            ep = torch.export.export(m, inputs)
        t0 = time.time()
        configs = {"aot_inductor.link_libtorch": False}
        if name.endswith("_blob"):
            configs.update({k: v for k, v in BLOB.items() if DEVICE == "cpu" or k != "cpp.march"})
        torch._inductor.aoti_compile_and_package(
            ep, package_path=os.path.join(folder, "model.pt2"), inductor_configs=configs)
        meta["compile_s"] = round(time.time() - t0, 1)
        if default or name == "mlp":  # mlp's: the link_libtorch package the tests reject
            t0 = time.time()
            torch._inductor.aoti_compile_and_package(
                ep, package_path=os.path.join(folder, "default.pt2"))
            meta["compile_default_s"] = round(time.time() - t0, 1)
    with open(os.path.join(folder, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(f"zoo: {name}: compiled in {meta['compile_s']} s", file=sys.stderr)


def main():
    global DEVICE
    args = sys.argv[1:]
    default = "--default" in args
    if "--device" in args:
        DEVICE = args[args.index("--device") + 1]
    only = None
    if "--only" in args:
        only = args[args.index("--only") + 1].split(",")
    names = [n for n in ZOO if only is None or n in only]
    unknown = set(only or []) - set(ZOO)
    if unknown:
        sys.exit(f"zoo: unknown model(s): {', '.join(sorted(unknown))}")
    with open(__file__, "rb") as f:
        h = hashlib.sha256(f.read() + torch.__version__.encode()).hexdigest()[:16]
    base = os.environ.get("SHIMGEN_ZOO_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "shimgen")
    cache = os.path.join(base, f"zoo-{h}" if DEVICE == "cpu" else f"zoo-{DEVICE}-{h}")
    os.makedirs(base, exist_ok=True)
    with open(cache + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for name in names:
            folder = os.path.join(cache, name)
            stamp = os.path.join(folder, ".default" if default else ".complete")
            if os.path.exists(stamp):
                continue
            tmp = folder + ".tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            if default and os.path.exists(os.path.join(folder, ".complete")):
                shutil.copytree(folder, tmp)
            build(name, tmp, default)
            open(os.path.join(tmp, ".complete"), "w").close()
            if default:
                open(os.path.join(tmp, ".default"), "w").close()
            shutil.rmtree(folder, ignore_errors=True)
            os.rename(tmp, folder)
    print(cache)


if __name__ == "__main__":
    main()

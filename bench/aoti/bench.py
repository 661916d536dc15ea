"""bench/aoti/bench.py ZOO SHIMRT_RUN: per zoo model and thread count (AOTI_BENCH_THREADS,
default "1 2"), the best of N runs (AOTI_BENCH_RUNS, default 200) of

  shimrt:  SHIMRT_RUN NAME/model.pt2 --bench N --threads T   (link_libtorch=False package)
  torch:   torch._inductor.aoti_load_package(NAME/default.pt2), the same program compiled
           PyTorch's default way, called through its loader's run(list of tensors) after
           torch.set_num_threads(T) (the lowest-overhead Python entry point)

printed as microseconds and the ratio shimrt / torch (below 1.0: libshimrt is faster).
A model libshimrt cannot load shows the reason instead."""
import os
import re
import subprocess
import sys
import time

import numpy as np
import torch


def torch_best(path, inputs, threads, runs):
    torch.set_num_threads(threads)
    model = torch._inductor.aoti_load_package(path)
    loader = model.loader
    for _ in range(5):
        loader.run(inputs)
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        loader.run(inputs)
        best = min(best, time.perf_counter() - t0)
    return best * 1e6


def shimrt_best(run, folder, nin, threads, runs):
    args = [run, os.path.join(folder, "model.pt2"), "--bench", str(runs), "--threads", str(threads)]
    for i in range(nin):
        args += ["--input", os.path.join(folder, f"in{i}.npy")]
    env = dict(os.environ, SHIMRT_NUM_THREADS=str(threads))
    p = subprocess.run(args, capture_output=True, text=True, env=env)
    m = re.search(r"best ([0-9.]+) ms", p.stdout)
    if p.returncode != 0 or not m:
        err = [l for l in p.stderr.splitlines() if l.startswith("shimrt-run:")] or ["failed"]
        missing = re.search(r"does not export: (.*)", p.stderr)
        return None, (f"missing {missing.group(1)}" if missing else err[0][:120])
    return float(m.group(1)) * 1e3, None


def main():
    zoo, run = sys.argv[1], sys.argv[2]
    threads = [int(t) for t in os.environ.get("AOTI_BENCH_THREADS", "1 2").split()]
    runs = int(os.environ.get("AOTI_BENCH_RUNS", "200"))
    print("aoti: zoo models, libshimrt (shimrt-run --bench) vs PyTorch 2.15's loader "
          f"(aoti_load_package), best of {runs} runs, us; ratio = ours / PyTorch's")
    print(f"{'model':<22}" + "".join(f"{'shimrt T=%d' % t:>14}{'torch T=%d' % t:>13}{'ratio':>7}"
                                   for t in threads))
    for name in sorted(os.listdir(zoo)):
        folder = os.path.join(zoo, name)
        if not os.path.isfile(os.path.join(folder, "default.pt2")):
            continue
        nin = len([f for f in os.listdir(folder) if re.fullmatch(r"in\d+\.npy", f)])
        inputs = [torch.from_numpy(np.load(os.path.join(folder, f"in{i}.npy"))) for i in range(nin)]
        row, note = f"{name:<22}", None
        for t in threads:
            ours, why = shimrt_best(run, folder, nin, t, runs)
            theirs = torch_best(os.path.join(folder, "default.pt2"), inputs, t, runs)
            if ours is None:
                row += f"{'-':>14}{theirs:>13.1f}{'-':>7}"
                note = why
            else:
                row += f"{ours:>14.1f}{theirs:>13.1f}{ours / theirs:>7.2f}"
        print(row + (f"  ({note})" if note else ""), flush=True)


if __name__ == "__main__":
    main()

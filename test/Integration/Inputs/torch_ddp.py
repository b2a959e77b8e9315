#!/usr/bin/env python3
"""The Linear stack of bench/gen_train_mlp.py trained by PyTorch DDP, for
comparison with dtensor-run.

  torch_ddp.py prepare DIR --layers L --width W --batch B [--seed S]
      writes DIR/x.npy, y.npy, w<i>.npy, b<i>.npy (f32, the arguments of
      @mlp_loss in order; w<i> is [in, out], nn.Linear's weight transposed)
      and prints the --inputs list for dtensor-run;
  torch_ddp.py train DIR --ranks N --steps K --lr LR --bucket-cap-mb C
      trains nn.Sequential(Linear, ReLU, ..., Linear) from those weights with
      DistributedDataParallel (gloo, CPU, N processes, bucket_cap_mb=C), SGD
      (lr LR), MSE loss, each rank on its rows of the batch (S(0)); writes
      DIR/torch_losses.npy (the global loss before each step) and
      DIR/torch_final_<k>.npy (the parameters after K steps, in @mlp_loss's
      argument order and layout);
  torch_ddp.py compare DIR RUN_OUTPUT RUN_OUT_DIR --rtol R
      compares the losses printed by dtensor-run ("step <i>: loss=") and its
      final parameters (RUN_OUT_DIR/result<k>.npy, k >= 1) with PyTorch's;
      prints "torch-compare: PASS max_rel_err=<e>" or FAIL (exit 1).

Without torch (or gloo), every command prints "SKIPPED: ..." and exits 0.
"""
import argparse
import os
import re
import sys

import numpy as np


def have_torch():
    try:
        import torch.distributed as dist  # noqa: F401
        return dist.is_gloo_available()
    except Exception:
        return False


def names(layers):
    out = ["x", "y"]
    for i in range(layers):
        out += [f"w{i}", f"b{i}"]
    return out


def prepare(a):
    rng = np.random.default_rng(a.seed)
    bound = 1.0 / np.sqrt(a.width)
    arrays = {"x": rng.standard_normal((a.batch, a.width)),
              "y": rng.standard_normal((a.batch, a.width))}
    for i in range(a.layers):
        arrays[f"w{i}"] = rng.uniform(-bound, bound, (a.width, a.width))
        arrays[f"b{i}"] = rng.uniform(-bound, bound, (a.width,))
    os.makedirs(a.dir, exist_ok=True)
    paths = []
    for n in names(a.layers):
        p = os.path.join(a.dir, n + ".npy")
        np.save(p, arrays[n].astype(np.float32))
        paths.append(p)
    with open(os.path.join(a.dir, "layers"), "w") as f:
        f.write(str(a.layers))
    print(",".join(paths))


def worker(rank, a, layers):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(a.port))
    dist.init_process_group("gloo", rank=rank, world_size=a.ranks)
    torch.set_num_threads(1)
    load = lambda n: torch.from_numpy(np.load(os.path.join(a.dir, n + ".npy")))
    mods = []
    width = load("w0").shape[0]
    for i in range(layers):
        lin = torch.nn.Linear(width, width)
        with torch.no_grad():
            lin.weight.copy_(load(f"w{i}").T)
            lin.bias.copy_(load(f"b{i}"))
        mods.append(lin)
        if i + 1 < layers:
            mods.append(torch.nn.ReLU())
    model = DDP(torch.nn.Sequential(*mods), bucket_cap_mb=a.bucket_cap_mb)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr)
    x, y = load("x"), load("y")
    rows = x.shape[0] // a.ranks
    xs, ys = x[rank * rows:(rank + 1) * rows], y[rank * rows:(rank + 1) * rows]
    losses = []
    for _ in range(a.steps):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(xs), ys)
        loss.backward()  # DDP averages the per-rank gradients
        opt.step()
        g = loss.detach().clone()
        dist.all_reduce(g)
        losses.append(g.item() / a.ranks)
    if rank == 0:
        np.save(os.path.join(a.dir, "torch_losses.npy"), np.array(losses))
        k = 0
        for m in model.module:
            if isinstance(m, torch.nn.Linear):
                np.save(os.path.join(a.dir, f"torch_final_{k}.npy"),
                        m.weight.detach().numpy().T.copy())
                np.save(os.path.join(a.dir, f"torch_final_{k + 1}.npy"),
                        m.bias.detach().numpy().copy())
                k += 2
    dist.destroy_process_group()


def train(a):
    import torch.multiprocessing as mp
    layers = int(open(os.path.join(a.dir, "layers")).read())
    a.port = 29500 + os.getpid() % 2000
    mp.spawn(worker, args=(a, layers), nprocs=a.ranks, join=True)
    print("torch: trained", a.steps, "steps on", a.ranks, "processes")


def compare(a):
    losses = [float(v) for v in re.findall(r"step \d+: loss=(\S+)", open(a.run_output).read())]
    ref = np.load(os.path.join(a.dir, "torch_losses.npy"))
    worst = 0.0
    ok = len(losses) == len(ref)

    def rel(u, v):
        u, v = np.asarray(u, np.float64), np.asarray(v, np.float64)
        return float(np.max(np.abs(u - v) / np.maximum(np.abs(v), 1e-30)))

    if ok:
        # dtensor-run prints %.6g: half a unit of the 6th digit is 5e-6.
        worst = max(worst, rel(losses, ref))
        k = 0
        while os.path.exists(os.path.join(a.dir, f"torch_final_{k}.npy")):
            mine = np.load(os.path.join(a.run_out, f"result{k + 1}.npy"))
            theirs = np.load(os.path.join(a.dir, f"torch_final_{k}.npy"))
            ok &= mine.shape == theirs.shape
            scale = np.maximum(np.abs(theirs), np.abs(theirs).max() * 1e-3)
            worst = max(worst, float(np.max(np.abs(mine - theirs) / scale)))
            k += 1
        ok &= k > 0
    ok &= worst <= a.rtol
    print(f"torch-compare: {'PASS' if ok else 'FAIL'} max_rel_err={worst:.3e} "
          f"losses={len(losses)}")
    sys.exit(0 if ok else 1)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("prepare")
    pp.add_argument("dir")
    pp.add_argument("--layers", type=int, default=3)
    pp.add_argument("--width", type=int, default=32)
    pp.add_argument("--batch", type=int, default=16)
    pp.add_argument("--seed", type=int, default=0)
    pt = sub.add_parser("train")
    pt.add_argument("dir")
    pt.add_argument("--ranks", type=int, default=2)
    pt.add_argument("--steps", type=int, default=3)
    pt.add_argument("--lr", type=float, default=0.1)
    pt.add_argument("--bucket-cap-mb", type=float, default=25)
    pc = sub.add_parser("compare")
    pc.add_argument("dir")
    pc.add_argument("run_output")
    pc.add_argument("run_out")
    pc.add_argument("--rtol", type=float, default=1e-5)
    a = p.parse_args()
    if a.cmd != "prepare" and not have_torch():
        print("SKIPPED: torch with gloo is not importable")
        return
    {"prepare": prepare, "train": train, "compare": compare}[a.cmd](a)


if __name__ == "__main__":
    main()

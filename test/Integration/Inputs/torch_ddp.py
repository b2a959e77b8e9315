#!/usr/bin/env python3
"""The training models of bench/gen_train_mlp.py (the Linear stack) and
bench/gen_train_block.py (the RFC Block) trained by PyTorch DDP, for
comparison with dtensor-run.

  torch_ddp.py prepare DIR --layers L --width W --batch B [--seed S]
  torch_ddp.py prepare DIR --model block --batch B --seq T --dim D
                       --heads H --hidden F [--seed S]
      writes the arguments of the loss function in order as f32 .npy files
      (mlp: DIR/x.npy, y.npy, w<i>.npy, b<i>.npy, w<i> [in, out], i.e.
      nn.Linear's weight transposed; block: x.npy, y.npy [B, T, D], wq, wk,
      wv, wo [D, D], w1 [D, F], w2 [F, D], used as x @ w) and DIR/model.json,
      and prints the --inputs list for dtensor-run;
  torch_ddp.py train DIR --ranks N --steps K --lr LR --bucket-cap-mb C
      trains the model (mlp: nn.Sequential(Linear, ReLU, ..., Linear);
      block: an nn.Module with the six weights as parameters and the forward
      of bench/block_torch.py) from those weights with
      DistributedDataParallel (gloo, CPU, N processes, bucket_cap_mb=C), SGD
      (lr LR), MSE loss, each rank on its rows of the batch (S(0)); writes
      DIR/torch_losses.npy (the global loss before each step) and
      DIR/torch_final_<k>.npy (the parameters after K steps, in the loss
      function's argument order and layout);
  torch_ddp.py compare DIR RUN_OUTPUT RUN_OUT_DIR --rtol R
      compares the losses printed by dtensor-run ("step <i>: loss=") and its
      final parameters (RUN_OUT_DIR/result<k>.npy, k >= 1) with PyTorch's;
      and the updates (final - initial, relative to their largest element,
      --update-rtol); prints "torch-compare: PASS max_rel_err=<e>
      update_rel_err=<u> losses=<K> params=<P>" or FAIL (exit 1).

Without torch (or gloo), train and compare print "SKIPPED: ..." and exit 0.
"""
import argparse
import json
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


BLOCK_WEIGHTS = ("wq", "wk", "wv", "wo", "w1", "w2")
# bench/, for block_torch.py's Block forward and free_port.
BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     os.pardir, os.pardir, os.pardir, "bench")


def names(meta):
    """The loss function's arguments, in order."""
    if meta["model"] == "block":
        return ["x", "y"] + list(BLOCK_WEIGHTS)
    out = ["x", "y"]
    for i in range(meta["layers"]):
        out += [f"w{i}", f"b{i}"]
    return out


def init_arrays(a, rng):
    """Data ~ N(0, 1); weights ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)) as nn.Linear."""
    u = lambda fan_in, shape: rng.uniform(-fan_in ** -0.5, fan_in ** -0.5, shape)
    if a.model == "block":
        act = (a.batch, a.seq, a.dim)
        arrays = {"x": rng.standard_normal(act), "y": rng.standard_normal(act)}
        for n in BLOCK_WEIGHTS[:4]:
            arrays[n] = u(a.dim, (a.dim, a.dim))
        arrays["w1"] = u(a.dim, (a.dim, a.hidden))
        arrays["w2"] = u(a.hidden, (a.hidden, a.dim))
        return arrays, {"model": "block", "heads": a.heads}
    arrays = {"x": rng.standard_normal((a.batch, a.width)),
              "y": rng.standard_normal((a.batch, a.width))}
    for i in range(a.layers):
        arrays[f"w{i}"] = u(a.width, (a.width, a.width))
        arrays[f"b{i}"] = u(a.width, (a.width,))
    return arrays, {"model": "mlp", "layers": a.layers}


def prepare(a):
    arrays, meta = init_arrays(a, np.random.default_rng(a.seed))
    os.makedirs(a.dir, exist_ok=True)
    paths = []
    for n in names(meta):
        p = os.path.join(a.dir, n + ".npy")
        np.save(p, arrays[n].astype(np.float32))
        paths.append(p)
    with open(os.path.join(a.dir, "model.json"), "w") as f:
        json.dump(meta, f)
    print(",".join(paths))


def build_mlp(load, layers):
    import torch
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
    return torch.nn.Sequential(*mods)


def mlp_finals(model):
    """The Linear stack's parameters in @mlp_loss's order and layout."""
    out = []
    for m in model:
        if hasattr(m, "weight"):
            out += [m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()]
    return out


def build_block(load, heads):
    """The RFC Block as an nn.Module: bench/block_torch.py's forward."""
    import torch
    sys.path.insert(0, BENCH)
    from block_torch import block

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            for n in BLOCK_WEIGHTS:
                setattr(self, n, torch.nn.Parameter(load(n).clone()))

        def forward(self, x):
            return block(x, *(getattr(self, n) for n in BLOCK_WEIGHTS), heads=heads)

    return Block()


def worker(rank, a, meta):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(a.port))
    dist.init_process_group("gloo", rank=rank, world_size=a.ranks)
    torch.set_num_threads(1)
    load = lambda n: torch.from_numpy(np.load(os.path.join(a.dir, n + ".npy")))
    if meta["model"] == "block":
        module = build_block(load, meta["heads"])
        finals = lambda m: [p.detach().numpy().copy() for p in m.parameters()]
    else:
        module = build_mlp(load, meta["layers"])
        finals = mlp_finals
    model = DDP(module, bucket_cap_mb=a.bucket_cap_mb)
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
        for k, arr in enumerate(finals(model.module)):
            np.save(os.path.join(a.dir, f"torch_final_{k}.npy"), arr)
        # The buckets of DDP's reducer (rebuilt after the first step).
        sizes = [b.buffer().numel() * 4 for b in model.reducer._get_zeros_like_grad_buckets()]
        with open(os.path.join(a.dir, "torch_buckets"), "w") as f:
            f.write(",".join(str(b) for b in sizes))
    dist.barrier()  # no rank leaves while another still talks to it
    # Tearing gloo's process group down sometimes aborts a worker
    # ("terminate called without an active exception"): every result is
    # written, so the workers leave without the teardown.
    sys.stdout.flush()
    os._exit(0)


def train(a):
    import torch.multiprocessing as mp
    meta = json.load(open(os.path.join(a.dir, "model.json")))
    sys.path.insert(0, BENCH)
    from block_torch import free_port
    # A gloo worker sometimes aborts while its process group is torn down
    # ("terminate called without an active exception", about one run in
    # ten on 2 loaded cores): the run is deterministic, so it is run once
    # more on a fresh port.
    for attempt in (1, 2):
        a.port = free_port()
        try:
            mp.spawn(worker, args=(a, meta), nprocs=a.ranks, join=True)
            break
        except mp.ProcessExitedException as e:
            if attempt == 2:
                raise
            print("torch_ddp.py: a PyTorch worker died (%s); running again" % e,
                  file=sys.stderr)
    sizes = open(os.path.join(a.dir, "torch_buckets")).read().split(",")
    print("torch: trained", a.steps, "steps on", a.ranks, "processes,",
          len([b for b in sizes if b.strip()]), "DDP buckets of", "/".join(sizes), "bytes")


def compare(a):
    losses = [float(v) for v in re.findall(r"step \d+: loss=(\S+)", open(a.run_output).read())]
    ref = np.load(os.path.join(a.dir, "torch_losses.npy"))
    params = names(json.load(open(os.path.join(a.dir, "model.json"))))[2:]
    worst = update = 0.0
    ok = len(losses) == len(ref)

    def rel(u, v):
        u, v = np.asarray(u, np.float64), np.asarray(v, np.float64)
        return float(np.max(np.abs(u - v) / np.maximum(np.abs(v), 1e-30)))

    if ok:
        # dtensor-run prints %.6g: half a unit of the 6th digit is 5e-6.
        worst = max(worst, rel(losses, ref))
        for k, name in enumerate(params):
            mine = np.load(os.path.join(a.run_out, f"result{k + 1}.npy"))
            theirs = np.load(os.path.join(a.dir, f"torch_final_{k}.npy"))
            initial = np.load(os.path.join(a.dir, name + ".npy"))
            ok &= mine.shape == theirs.shape
            scale = np.maximum(np.abs(theirs), np.abs(theirs).max() * 1e-3)
            worst = max(worst, float(np.max(np.abs(mine - theirs) / scale)))
            # The K updates themselves (final - initial), relative to their
            # largest element: a gradient error that the weights hide.
            step = np.abs(theirs - initial).max()
            ok &= step > 0
            update = max(update, float(np.abs(mine - theirs).max() / max(step, 1e-30)))
        ok &= len(params) > 0
    ok &= worst <= a.rtol and update <= a.update_rtol
    print(f"torch-compare: {'PASS' if ok else 'FAIL'} max_rel_err={worst:.3e} "
          f"update_rel_err={update:.3e} losses={len(losses)} params={len(params)}")
    sys.exit(0 if ok else 1)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("prepare")
    pp.add_argument("dir")
    pp.add_argument("--model", choices=["mlp", "block"], default="mlp")
    pp.add_argument("--layers", type=int, default=3)
    pp.add_argument("--width", type=int, default=32)
    pp.add_argument("--batch", type=int, default=16)
    pp.add_argument("--seq", type=int, default=4)
    pp.add_argument("--dim", type=int, default=32)
    pp.add_argument("--heads", type=int, default=2)
    pp.add_argument("--hidden", type=int, default=64)
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
    pc.add_argument("--update-rtol", type=float, default=1e-3,
                    help="bound on the error of final - initial, relative to its largest element")
    a = p.parse_args()
    if a.cmd != "prepare" and not have_torch():
        print("SKIPPED: torch with gloo is not importable")
        return
    {"prepare": prepare, "train": train, "compare": compare}[a.cmd](a)


if __name__ == "__main__":
    main()

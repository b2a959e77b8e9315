#!/usr/bin/env python3
"""The RFC transformer Block forward through PyTorch's DTensor on CPU (gloo).

The reference side of bench/block_forward.sh: the same Block as
examples/block.mlir / examples/gen_block.py --layout dp, data parallel on a
1-D mesh of N CPU processes:

    x  [B, S, D]  Shard(0) (batch)          wq, wk, wv, wo [D, D]  Replicate
    w1 [D, F]     Replicate                 w2 [F, D]               Replicate

    q, k, v = x @ wq, x @ wk, x @ wv                      (projections)
    q, k, v -> [B, H, S, D/H]                             (heads)
    p   = softmax(q k^T * 1/sqrt(D/H), dim=-1)            (4-D attention)
    o   = (p v) -> [B, S, D]
    h   = o @ wo + x                                      (residual)
    out = relu(h @ w1) @ w2 + h                           (MLP, residual)

Bias-free, f32, under torch.no_grad() (a forward, as dtensor-run times it).
Every op runs on DTensors; the plan has no collective (checked with
CommDebugMode and reported).  Each process sets torch.set_num_threads(1),
uses the gloo backend on 127.0.0.1 and is started with
torch.multiprocessing.spawn.  The timed region is one Block forward; each
rank reports the best of --iters runs (no separate warm-up, as dtensor-run
--iters).  With --check, every rank also runs the Block in plain torch on its
own batch shard and compares.

Output (stdout), one line per rank and a summary:
    rank 0: 123.456 ms
    ...
    torch: ranks=4 max_ms=130.1 min_ms=120.3 collectives=0 placements=[Shard(dim=0)] check=PASS max_abs_err=...

Usage:
    python3 bench/block_torch.py --np 4 [--batch 32 --seq 128 --dim 512 --heads 8 --hidden 2048] [--iters 3] [--check]
"""

import argparse
import os
import socket
import sys
import time


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def block(x, wq, wk, wv, wo, w1, w2, heads):
    """The Block on torch tensors or DTensors (same code for both)."""
    import torch

    b, s, d = x.shape
    dh = d // heads
    q = torch.matmul(x, wq).view(b, s, heads, dh).transpose(1, 2)  # [B, H, S, dh]
    k = torch.matmul(x, wk).view(b, s, heads, dh).transpose(1, 2)
    v = torch.matmul(x, wv).view(b, s, heads, dh).transpose(1, 2)
    scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / dh ** 0.5)  # [B, H, S, S]
    p = torch.softmax(scores, dim=-1)
    o = torch.matmul(p, v).transpose(1, 2).reshape(b, s, d)  # [B, S, D]
    h = torch.matmul(o, wo) + x
    return torch.matmul(torch.relu(torch.matmul(h, w1)), w2) + h


def worker(rank, world, port, args, queue):
    import torch
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Replicate, Shard, distribute_tensor

    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        mesh = init_device_mesh("cpu", (world,), mesh_dim_names=("dp",))
        # Same global tensors on every rank (seeded), each rank keeps its shard;
        # nn.Linear-like scale so that activations stay O(1).
        g = torch.Generator().manual_seed(args.seed)
        B, S, D, F = args.batch, args.seq, args.dim, args.hidden
        x = torch.randn(B, S, D, generator=g)
        ws = [torch.randn(D, D, generator=g) / D ** 0.5 for _ in range(4)]
        ws.append(torch.randn(D, F, generator=g) / D ** 0.5)
        ws.append(torch.randn(F, D, generator=g) / F ** 0.5)
        dx = distribute_tensor(x, mesh, [Shard(0)])
        dws = [distribute_tensor(w, mesh, [Replicate()]) for w in ws]

        collectives = "n/a"
        best = None
        with torch.no_grad():
            for it in range(max(1, args.iters)):
                t0 = time.perf_counter()
                out = block(dx, *dws, heads=args.heads)
                t1 = time.perf_counter()
                best = t1 - t0 if best is None else min(best, t1 - t0)
            try:
                from torch.distributed.tensor.debug import CommDebugMode

                mode = CommDebugMode()
                with mode:
                    block(dx, *dws, heads=args.heads)
                collectives = mode.get_total_counts()
            except Exception as e:  # an older torch without CommDebugMode
                collectives = f"n/a ({type(e).__name__})"
            check = "skipped"
            if args.check:
                local = block(dx.to_local(), *ws, heads=args.heads)
                err = (out.to_local() - local).abs().max().item()
                check = ("PASS" if err <= 1e-4 else "FAIL") + f" max_abs_err={err:.3e}"
        queue.put((rank, best * 1000.0, collectives, str(list(out.placements)),
                   tuple(out.to_local().shape), check))
    finally:
        dist.destroy_process_group()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--np", type=int, default=4, help="number of processes (ranks)")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--dim", type=int, default=512)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--iters", type=int, default=3, help="timed forwards per rank (best is kept)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--check", action="store_true",
                    help="compare each rank's output with plain torch on its shard")
    a = ap.parse_args(argv)
    if a.np < 1 or a.dim % a.heads:
        ap.error("need --np >= 1 and --dim divisible by --heads")

    try:
        import torch
        import torch.multiprocessing as mp
        from torch.distributed.tensor import DTensor  # noqa: F401
    except Exception as e:
        print(f"PyTorch: not available ({type(e).__name__}: {e})")
        return 3
    if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
        print("PyTorch: not available (torch.distributed with gloo is not built in)")
        return 3

    ctx = mp.get_context("spawn")
    queue = ctx.SimpleQueue()
    mp.spawn(worker, args=(a.np, free_port(), a, queue), nprocs=a.np, join=True)
    rows = sorted(queue.get() for _ in range(a.np))
    for rank, ms, *_ in rows:
        print(f"rank {rank}: {ms:.3f} ms")
    times = [r[1] for r in rows]
    _, _, coll, placements, local_shape, check = rows[0]
    checks = {r[5].split()[0] for r in rows}
    verdict = "FAIL" if "FAIL" in checks else check.split()[0]
    err = max((float(r[5].split("=")[1]) for r in rows if "=" in r[5]), default=None)
    print(f"torch: {torch.__version__} ranks={a.np} max_ms={max(times):.3f} min_ms={min(times):.3f} "
          f"collectives={coll} placements={placements} local_out={list(local_shape)} "
          f"check={verdict}" + (f" max_abs_err={err:.3e}" if err is not None else ""))
    return 1 if verdict == "FAIL" else 0


if __name__ == "__main__":
    sys.exit(main())

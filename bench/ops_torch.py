"""PyTorch eager timings of the ops of bench/ops.sh (one thread).

Usage: ops_torch.py --iters N --tokens T --dim D --hidden H --batch B
       --heads NH --seq S
Prints one line per op: "<name> <best ms>", the best of N calls after one
warm-up call, each call producing a fresh output as the compiled entries do.
"""
import argparse
import time

import torch
import torch.nn.functional as F


def best_ms(fn, iters):
    fn()
    best = float("inf")
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def main():
    p = argparse.ArgumentParser()
    for name in ("iters", "tokens", "dim", "hidden", "batch", "heads", "seq"):
        p.add_argument("--" + name, type=int, required=True)
    a = p.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    with torch.no_grad():
        s = torch.rand(a.batch, a.heads, a.seq, a.seq)
        x = torch.rand(a.tokens, a.dim)
        y = torch.rand(a.tokens, a.dim)
        h = torch.rand(a.tokens, a.hidden)
        b = torch.rand(a.hidden)
        q = torch.rand(a.batch, a.seq, a.heads, a.dim // a.heads)
        ops = {
            "softmax": lambda: torch.softmax(s, dim=-1),
            "layernorm": lambda: F.layer_norm(x, (a.dim,), eps=1e-5),
            "bias_relu": lambda: torch.relu(h * 0.5 + b),
            "residual": lambda: x + y,
            "heads": lambda: q.permute(0, 2, 1, 3).contiguous(),
            "transpose": lambda: x.t().contiguous(),
        }
        for name, fn in ops.items():
            print(f"{name} {best_ms(fn, a.iters):.3f}")


if __name__ == "__main__":
    main()

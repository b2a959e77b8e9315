#!/usr/bin/env python3
"""The RFC transformer Block forward on one GPU in PyTorch: eager and torch.compile.

The reference side of scripts/gpu-check.sh for `dtensor-run --backend cuda`:
the Block of examples/gen_block.py (bias-free projections, 4-D attention
softmax(q k^T / sqrt(D/H)) v, residual, relu MLP, residual) at the same
sizes and dtype, on cuda:0, under torch.no_grad().  Each variant runs
--warmup calls, then reports the best of --iters calls timed with CUDA
events (as dtensor-run --backend cuda --iters times its calls).

Output, one line:
    torch_gpu: dtype=bf16 eager_ms=0.412 compile_ms=0.301
(compile_ms=n/a with --no-compile or when torch.compile fails; the reason
goes to stderr).  Exits 2 with one message when torch has no CUDA device.

Usage:
    python3 bench/block_torch_gpu.py [--dtype f32|bf16] [--batch 32 --seq 128
        --dim 512 --heads 8 --hidden 2048] [--iters 20] [--warmup 3] [--no-compile]
"""

import argparse
import sys


def block(x, wq, wk, wv, wo, w1, w2, heads):
    import torch

    b, s, d = x.shape
    hd = d // heads

    def split(t):
        return t.reshape(b, s, heads, hd).transpose(1, 2)

    q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
    p = torch.softmax((q @ k.transpose(-1, -2)) * (1.0 / hd ** 0.5), dim=-1)
    o = (p @ v).transpose(1, 2).reshape(b, s, d)
    h = o @ wo + x
    return torch.relu(h @ w1) @ w2 + h


def best_ms(fn, args, iters, warmup):
    import torch

    for _ in range(warmup):
        fn(*args)
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn(*args)
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end))
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtype", choices=["f32", "bf16"], default="bf16")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--dim", type=int, default=512)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--no-compile", action="store_true")
    a = ap.parse_args()
    try:
        import torch
    except ImportError as e:
        print(f"block_torch_gpu: no torch ({e})", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("block_torch_gpu: torch sees no CUDA device", file=sys.stderr)
        return 2
    dtype = torch.bfloat16 if a.dtype == "bf16" else torch.float32
    # f32 as dtensor-run computes it: no TF32 unless DTRT_ALLOW_TF32=1.
    torch.backends.cuda.matmul.allow_tf32 = False
    g = torch.Generator(device="cuda").manual_seed(0)

    def rand(*shape):
        return (torch.rand(*shape, device="cuda", generator=g) * 2 - 1).to(dtype) / shape[-1] ** 0.5

    d, f = a.dim, a.hidden
    args = (rand(a.batch, a.seq, d), rand(d, d), rand(d, d), rand(d, d),
            rand(d, d), rand(d, f), rand(f, d), a.heads)
    with torch.no_grad():
        eager = best_ms(block, args, a.iters, a.warmup)
        compiled = "n/a"
        if not a.no_compile:
            try:
                fn = torch.compile(block)
                compiled = "%.3f" % best_ms(fn, args, a.iters, a.warmup)
            except Exception as e:  # a missing compiler, ...
                print(f"block_torch_gpu: torch.compile failed: {e}", file=sys.stderr)
    print(f"torch_gpu: dtype={a.dtype} eager_ms={eager:.3f} compile_ms={compiled}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

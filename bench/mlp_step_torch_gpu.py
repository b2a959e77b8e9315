#!/usr/bin/env python3
"""The MLP's SGD training step on one GPU in PyTorch eager.

The reference side of the training-step row of scripts/gpu-check.sh: the
step of examples/mlp_loss.mlir as `dtensor-opt --dtensor-autodiff=
"functions=mlp_loss optimizer=sgd"` generates it (@mlp_loss_train_step,
timed there with `dtensor-run --backend cuda --np 1 --iters N --entry
mlp_loss_train_step`): h = relu(x w1 + b1), p = h w2 + b2,
loss = sum((p - y)^2) / (batch * out), the four gradients, and
w <- w - lr * grad for w1, b1, w2, b2 (plain SGD), in f32 without TF32, on
cuda:0.  One step = forward, backward (torch.autograd.grad) and the
in-place update.  After --warmup steps it reports the best of --iters steps
timed with CUDA events (as dtensor-run --backend cuda --iters times its
calls).

Output, one line:
    torch_gpu_step: batch=8 in=16 hidden=32 out=4 eager_ms=0.210 loss=0.4213
(loss: the loss of the last timed step).  Exits 2 with one message when
torch has no CUDA device.  --device cpu runs the same step on the CPU
(wall-clock timing), to check the script on a machine without a GPU.

Usage:
    python3 bench/mlp_step_torch_gpu.py [--batch 8 --in 16 --hidden 32
        --out 4] [--lr 0.01] [--iters 20] [--warmup 3] [--device cuda|cpu]
"""

import argparse
import sys
import time


def loss_fn(x, y, w1, b1, w2, b2):
    import torch

    h = torch.relu(x @ w1 + b1)
    p = h @ w2 + b2
    return ((p - y) ** 2).sum() / p.numel()


def sgd_step(x, y, params, lr):
    """One step: the loss, its gradients, and params -= lr * grads in place."""
    import torch

    loss = loss_fn(x, y, *params)
    grads = torch.autograd.grad(loss, params)
    with torch.no_grad():
        torch._foreach_add_(params, grads, alpha=-lr)
    return loss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--in", dest="inp", type=int, default=16)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--out", type=int, default=4)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    a = ap.parse_args()
    try:
        import torch
    except ImportError as e:
        print(f"mlp_step_torch_gpu: no torch ({e})", file=sys.stderr)
        return 2
    cuda = a.device == "cuda"
    if cuda and not torch.cuda.is_available():
        print("mlp_step_torch_gpu: torch sees no CUDA device", file=sys.stderr)
        return 2
    # f32 as dtensor-run computes it: no TF32 unless DTRT_ALLOW_TF32=1.
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device(a.device)
    g = torch.Generator(device=dev).manual_seed(0)

    def rand(*shape, grad=False):
        t = torch.rand(*shape, device=dev, generator=g) * 2 - 1
        return t.requires_grad_(grad)

    x, y = rand(a.batch, a.inp), rand(a.batch, a.out)
    params = [rand(a.inp, a.hidden, grad=True), rand(a.hidden, grad=True),
              rand(a.hidden, a.out, grad=True), rand(a.out, grad=True)]

    def sync():
        if cuda:
            torch.cuda.synchronize()

    for _ in range(a.warmup):
        sgd_step(x, y, params, a.lr)
    sync()
    best = float("inf")
    loss = None
    for _ in range(a.iters):
        if cuda:
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            loss = sgd_step(x, y, params, a.lr)
            end.record()
            end.synchronize()
            ms = start.elapsed_time(end)
        else:
            t0 = time.perf_counter()
            loss = sgd_step(x, y, params, a.lr)
            ms = (time.perf_counter() - t0) * 1e3
        best = min(best, ms)
    print(f"torch_gpu_step: batch={a.batch} in={a.inp} hidden={a.hidden} "
          f"out={a.out} eager_ms={best:.3f} loss={loss.item():.4g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

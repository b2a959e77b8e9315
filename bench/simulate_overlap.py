#!/usr/bin/env python3
"""Predicts the exposed gradient communication of DDP buckets on one 8-GPU
H200 node, per bucket cap, for a 12-Block stack of the RFC Block and a
GPT-2-small-sized model.

Model (printed with the figures):
  * compute: every op of a segment costs its roofline time
    max(FLOPs / 790 TFLOP/s (bf16 dense), bytes / 4.8 TB/s); the backward of
    an op costs twice its forward FLOPs and bytes (input and weight
    gradients); elementwise ops, softmax and norms are memory-bound;
  * gradients are all-reduced in bf16 (2 bytes per parameter), as buckets
    formed by DDPOptimizer's rules over the parameters in forward order
    (the first bucket, nearest the output, capped at 1 MB; `int(cap * 2^20)`
    bytes), each issued when the backward has produced its last gradient,
    one at a time on one communication stream (NCCL ring all-reduce over 8
    ranks: time = latency + 2 (n-1)/n * bytes / bus bandwidth, with the
    bus bandwidth 370-480 GB/s and latency 15-35 us: both ends are shown);
  * communication does not slow compute (no SM or HBM contention) and the
    optimizer step waits for every bucket: exposed communication = the
    time the last all-reduce ends after the backward ends; "off" issues every
    all-reduce after the backward (nothing hidden).

Usage: bench/simulate_overlap.py [--caps 25 4 1] [--batch-tokens N]
"""

import argparse

PEAK_FLOPS = 790e12
HBM_BW = 4.8e12
BF16 = 2
RANKS = 8
NETWORKS = {"optimistic": (480e9, 15e-6), "pessimistic": (370e9, 35e-6)}


def roofline(flops, nbytes):
    return max(flops / PEAK_FLOPS, nbytes / HBM_BW)


def matmul(name, m, k, n, param=True):
    """x[m,k] @ w[k,n] (bf16): (name, flops, bytes, param bytes)."""
    return (name, 2.0 * m * k * n, BF16 * (m * k + k * n + m * n),
            BF16 * k * n if param else 0)


def elementwise(name, elems, tensors=2, param_bytes=0):
    return (name, float(elems), float(BF16 * elems * tensors), param_bytes)


def block_ops(tokens, batch, seq, d, ffn, heads, norms):
    """The ops of one transformer block in forward order."""
    ops = []
    if norms:
        ops.append(elementwise("ln1", tokens * d, 2, BF16 * 2 * d))
    for w in ("wq", "wk", "wv"):
        ops.append(matmul(w, tokens, d, d))
    # scores = q k^T and p v, per head: batch*heads matmuls of seq x seq.
    hd = d // heads
    ops.append(("qk", 2.0 * batch * heads * seq * seq * hd,
                BF16 * (2 * tokens * d + batch * heads * seq * seq), 0))
    ops.append(elementwise("softmax", batch * heads * seq * seq, 2))
    ops.append(("pv", 2.0 * batch * heads * seq * seq * hd,
                BF16 * (tokens * d + batch * heads * seq * seq + tokens * d), 0))
    ops.append(matmul("wo", tokens, d, d))
    ops.append(elementwise("residual1", tokens * d, 3))
    if norms:
        ops.append(elementwise("ln2", tokens * d, 2, BF16 * 2 * d))
    ops.append(matmul("w1", tokens, d, ffn))
    ops.append(elementwise("act", tokens * ffn, 2))
    ops.append(matmul("w2", tokens, ffn, d))
    ops.append(elementwise("residual2", tokens * d, 3))
    return ops


def rfc_block_stack(layers=12):
    # examples/block.mlir: x 32x128x512, 4 heads, w1 512x2048, no norms.
    batch, seq, d, ffn = 32, 128, 512, 2048
    ops = []
    for i in range(layers):
        ops += [(f"b{i}.{n}", f, b, p) for n, f, b, p in
                block_ops(batch * seq, batch, seq, d, ffn, 4, norms=False)]
    return "12 x RFC Block (d 512, ffn 2048, batch 32 x seq 128)", ops


def gpt2_small(batch=8, seq=1024):
    d, ffn, vocab = 768, 3072, 50257
    tokens = batch * seq
    ops = [elementwise("embed", tokens * d, 2, BF16 * (vocab + seq) * d)]
    for i in range(12):
        ops += [(f"b{i}.{n}", f, b, p) for n, f, b, p in
                block_ops(tokens, batch, seq, d, ffn, 12, norms=True)]
    ops.append(elementwise("ln_f", tokens * d, 2, BF16 * 2 * d))
    # The tied LM head reads the embedding (its gradient adds to it).
    ops.append(matmul("lm_head", tokens, d, vocab, param=False))
    return f"GPT-2 small (124M, batch {batch} x seq {seq} per GPU)", ops


def buckets(ops, cap_mb, first_mb):
    """DDPOptimizer's buckets, in reverse (backward) order: each a list of op
    indices; every op has a user outside its bucket (a chain)."""
    cap, first = int(cap_mb * 2**20), int(first_mb * 2**20)
    out, cur, size = [], [], 0
    for i in reversed(range(len(ops))):
        limit = first if not out else cap
        if cur and size >= limit:
            out.append(cur)
            cur, size = [], 0
        cur.append(i)
        size += ops[i][3]
    if cur:
        if size == 0 and out:
            out[-1] += cur
        else:
            out.append(cur)
    return out


def allreduce_time(nbytes, bus_bw, latency):
    return latency + 2 * (RANKS - 1) / RANKS * nbytes / bus_bw


def simulate(ops, cap_mb, bus_bw, latency, overlap=True):
    fwd = sum(roofline(f, b) for _, f, b, _ in ops)
    bwd_time = [roofline(2 * f, 2 * b) for _, f, b, _ in ops]
    t, comm_free, comm_total = 0.0, 0.0, 0.0
    bs = buckets(ops, cap_mb, min(1.0, cap_mb))
    last_of = {min(bk): bk for bk in bs}  # the op finishing each bucket
    for i in reversed(range(len(ops))):
        t += bwd_time[i]
        if i in last_of:
            nbytes = sum(ops[j][3] for j in last_of[i])
            if nbytes == 0:
                continue
            d = allreduce_time(nbytes, bus_bw, latency)
            comm_total += d
            start = max(t if overlap else float("inf"), comm_free)
            comm_free = (start if overlap else comm_free) + d
    if not overlap:
        comm_free = t + comm_total
    exposed = max(0.0, comm_free - t)
    return fwd, t, comm_total, exposed, len(bs)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--caps", type=float, nargs="+", default=[25, 4, 1])
    a = p.parse_args()
    print(__doc__.split("Usage")[0].strip())
    print()
    for name, ops in (rfc_block_stack(), gpt2_small()):
        params = sum(o[3] for o in ops) / BF16
        print(f"{name}: {params / 1e6:.1f} M parameters, "
              f"{sum(o[3] for o in ops) / 2**20:.0f} MiB of bf16 gradients")
        print(f"  {'network':11} | {'cap':>6} | {'buckets':>7} | {'fwd us':>8} | "
              f"{'bwd us':>8} | {'comm us':>8} | {'exposed us':>10} | {'hidden %':>8}")
        for net, (bw, lat) in NETWORKS.items():
            rows = [(f"{c:g} MB", c, True) for c in a.caps] + [("off", 25, False)]
            for label, cap, overlap in rows:
                fwd, bwd, comm, exp, nb = simulate(ops, cap, bw, lat, overlap)
                hidden = max(0.0, 100 * (1 - exp / comm)) if comm else 0
                print(f"  {net:11} | {label:>6} | {nb:>7} | {fwd * 1e6:8.0f} | "
                      f"{bwd * 1e6:8.0f} | {comm * 1e6:8.0f} | {exp * 1e6:10.0f} | "
                      f"{hidden:8.0f}")
        print()


if __name__ == "__main__":
    main()

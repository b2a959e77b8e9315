#!/usr/bin/env python3
"""Generate an N-layer MLP with trainable parameters for the DDP split benchmark.

Per layer i (a data-parallel training step's forward, as DDP sees it):

    h_i = x_i @ w1_i        w1_i [dim, hidden]  dtensor.param = "w1_i"
    r_i = relu(h_i)         (linalg.generic)
    y_i = r_i @ w2_i        w2_i [hidden, dim]  dtensor.param = "w2_i"
    x_{i+1} = y_i

on a 1-D mesh of 4: x_0 is a batch sharded S(0), the weights are replicated
(`--megatron` instead shards w1 S(1) and w2 S(0), x replicated, so every layer
ends in a P(sum) value that is reduced before the next one). Each matmul
accumulates into a linalg.fill'ed tensor.empty, as a frontend emits it.

With the default sizes (tokens 32, dim 64, hidden 256, fp32) each weight is
64 KiB, a layer 128 KiB: at bucket-cap-mb=1 a bucket holds 8 layers, so
20 000 layers give 2 500 submodules.

Usage:
  bench/gen_ddp_mlp.py --layers 20000 -o bench/out/ddp_mlp_20000.mlir
"""

import argparse
import sys

RELU_MAPS = ("indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
             "affine_map<(d0, d1) -> (d0, d1)>], "
             'iterator_types = ["parallel", "parallel"]')


def ttype(shape):
    return "tensor<" + "x".join(str(s) for s in shape) + "xf32>"


def spec(p):
    return f"{{dtensor.spec = #dtensor.spec<@mesh, [{p}]>}}"


def param(name, p):
    return f'{{dtensor.param = "{name}", dtensor.spec = #dtensor.spec<@mesh, [{p}]>}}'


def gen(out, layers, tokens, dim, hidden, mesh_size, megatron):
    w = out.write
    xs, w1s, w2s, hs = [tokens, dim], [dim, hidden], [hidden, dim], [tokens, hidden]
    xp = "R" if megatron else "S(0)"
    w1p, w2p = ("S(1)", "S(0)") if megatron else ("R", "R")
    w(f'dtensor.mesh @mesh = <["dp" = {mesh_size}]>\n\n')
    w("func.func @ddp_mlp(\n")
    args = [f"    %x: {ttype(xs)} {spec(xp)}"]
    for i in range(layers):
        args.append(f"    %w1_{i}: {ttype(w1s)} {param(f'w1_{i}', w1p)}")
        args.append(f"    %w2_{i}: {ttype(w2s)} {param(f'w2_{i}', w2p)}")
    w(",\n".join(args))
    w(f")\n    -> ({ttype(xs)} {spec(xp)}) {{\n")
    w("  %c0 = arith.constant 0.0 : f32\n")
    x = "%x"
    for i in range(layers):
        w(f"  %e1_{i} = tensor.empty() : {ttype(hs)}\n")
        w(f"  %z1_{i} = linalg.fill ins(%c0 : f32) outs(%e1_{i} : {ttype(hs)}) -> {ttype(hs)}\n")
        w(f"  %h_{i} = linalg.matmul ins({x}, %w1_{i} : {ttype(xs)}, {ttype(w1s)}) "
          f"outs(%z1_{i} : {ttype(hs)}) -> {ttype(hs)}\n")
        w(f"  %r_{i} = linalg.generic {{{RELU_MAPS}}} ins(%h_{i} : {ttype(hs)}) "
          f"outs(%e1_{i} : {ttype(hs)}) {{\n")
        w("  ^bb0(%a: f32, %o: f32):\n")
        w("    %m = arith.maximumf %a, %c0 : f32\n")
        w("    linalg.yield %m : f32\n")
        w(f"  }} -> {ttype(hs)}\n")
        w(f"  %e2_{i} = tensor.empty() : {ttype(xs)}\n")
        w(f"  %z2_{i} = linalg.fill ins(%c0 : f32) outs(%e2_{i} : {ttype(xs)}) -> {ttype(xs)}\n")
        w(f"  %y_{i} = linalg.matmul ins(%r_{i}, %w2_{i} : {ttype(hs)}, {ttype(w2s)}) "
          f"outs(%z2_{i} : {ttype(xs)}) -> {ttype(xs)}\n")
        x = f"%y_{i}"
    w(f"  return {x} : {ttype(xs)}\n")
    w("}\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--mesh-size", type=int, default=4)
    ap.add_argument("--megatron", action="store_true",
                    help="tensor-parallel weights (w1 S(1), w2 S(0)), x replicated")
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args(argv)
    if a.layers < 1:
        ap.error("--layers must be >= 1")
    out = sys.stdout if a.output == "-" else open(a.output, "w", buffering=1 << 20)
    try:
        gen(out, a.layers, a.tokens, a.dim, a.hidden, a.mesh_size, a.megatron)
    finally:
        if out is not sys.stdout:
            out.close()


if __name__ == "__main__":
    main()

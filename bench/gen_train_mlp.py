#!/usr/bin/env python3
"""Generate the training loss of an L-layer Linear stack, in linalg.

    h_0 = x;  h_{i+1} = relu(h_i @ w_i + b_i)   (no relu after the last layer)
    loss = sum((h_L - y)^2) / (batch * width)   (mean squared error)

`w_i` is [width, width] (`x @ w`, i.e. nn.Linear's weight transposed), `b_i`
[width]; both carry `dtensor.param`. Placements by `--mode`:

  dp   mesh ["dp" = N]: x, y S(0), parameters R (DDP);
  tp   mesh ["tp" = N]: x, y R; layers in Megatron pairs: column-parallel
       (w S(1), b S(0)) then row-parallel (w S(0), b R);
  2d   mesh ["dp" = N, "tp" = T]: x, y [S(0), R]; parameters [R, <tp's>].

The MLP of test/Integration/ddp_train_step.test, bench/train_step.sh and the
PyTorch comparison (test/Integration/Inputs/torch_ddp.py).

Usage:
  bench/gen_train_mlp.py --layers 4 --width 256 --batch 64 --ranks 2 -o mlp.mlir
"""

import argparse
import sys


def ttype(shape):
    return "tensor<" + "x".join(str(s) for s in shape) + "xf32>" if shape else "tensor<f32>"


def spec(ps):
    return f"#dtensor.spec<@mesh, [{', '.join(ps)}]>"


def placements(mode, layer):
    """(x, w, b) placements per mesh axis."""
    col = layer % 2 == 0
    tp_w, tp_b = ("S(1)", "S(0)") if col else ("S(0)", "R")
    if mode == "dp":
        return ["S(0)"], ["R"], ["R"]
    if mode == "tp":
        return ["R"], [tp_w], [tp_b]
    return ["S(0)", "R"], ["R", tp_w], ["R", tp_b]


def gen(out, layers, width, batch, mode, ranks, tp):
    w = out.write
    if mode == "dp":
        w(f'dtensor.mesh @mesh = <["dp" = {ranks}]>\n')
    elif mode == "tp":
        w(f'dtensor.mesh @mesh = <["tp" = {ranks}]>\n')
    else:
        w(f'dtensor.mesh @mesh = <["dp" = {ranks}, "tp" = {tp}]>\n')
    w("#id = affine_map<(d0, d1) -> (d0, d1)>\n")
    w("#row = affine_map<(d0, d1) -> (d1)>\n")
    w("#all = affine_map<(d0, d1) -> ()>\n")
    w("#scalar = affine_map<() -> ()>\n\n")
    xp = placements(mode, 0)[0]
    rep = ["R"] * len(xp)
    act, vec = ttype([batch, width]), ttype([width])
    args = [f"    %x: {act} {{dtensor.spec = {spec(xp)}}}",
            f"    %y: {act} {{dtensor.spec = {spec(xp)}}}"]
    for i in range(layers):
        _, wp, bp = placements(mode, i)
        args.append(f'    %w{i}: {ttype([width, width])} {{dtensor.param = "w{i}", dtensor.spec = {spec(wp)}}}')
        args.append(f'    %b{i}: {vec} {{dtensor.param = "b{i}", dtensor.spec = {spec(bp)}}}')
    w("func.func @mlp_loss(\n" + ",\n".join(args) + ")\n")
    w(f"    -> (tensor<f32> {{dtensor.spec = {spec(rep)}}}) {{\n")
    w("  %c0 = arith.constant 0.0 : f32\n")
    w(f"  %n = arith.constant {float(batch * width)!r} : f32\n")
    w(f"  %e = tensor.empty() : {act}\n")
    w(f"  %z = linalg.fill ins(%c0 : f32) outs(%e : {act}) -> {act}\n")
    h = "%x"
    for i in range(layers):
        w(f"  %mm{i} = linalg.matmul ins({h}, %w{i} : {act}, {ttype([width, width])}) outs(%z : {act}) -> {act}\n")
        w(f"  %bb{i} = linalg.broadcast ins(%b{i} : {vec}) outs(%e : {act}) dimensions = [0]\n")
        w(f"  %a{i} = linalg.add ins(%mm{i}, %bb{i} : {act}, {act}) outs(%e : {act}) -> {act}\n")
        h = f"%a{i}"
        if i + 1 < layers:
            w(f"  %h{i} = linalg.generic {{indexing_maps = [#id, #id], iterator_types = [\"parallel\", \"parallel\"]}}\n")
            w(f"      ins(%a{i} : {act}) outs(%e : {act}) {{\n")
            w("  ^bb0(%v: f32, %o: f32):\n")
            w("    %m = arith.maximumf %v, %c0 : f32\n")
            w("    linalg.yield %m : f32\n")
            w(f"  }} -> {act}\n")
            h = f"%h{i}"
    w("  %es = tensor.empty() : tensor<f32>\n")
    w("  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>\n")
    w("  %sq = linalg.generic {indexing_maps = [#id, #id, #all], iterator_types = [\"reduction\", \"reduction\"]}\n")
    w(f"      ins({h}, %y : {act}, {act}) outs(%zs : tensor<f32>) {{\n")
    w("  ^bb0(%pv: f32, %yv: f32, %acc: f32):\n")
    w("    %d = arith.subf %pv, %yv : f32\n")
    w("    %d2 = arith.mulf %d, %d : f32\n")
    w("    %s = arith.addf %acc, %d2 : f32\n")
    w("    linalg.yield %s : f32\n")
    w("  } -> tensor<f32>\n")
    w("  %loss = linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}\n")
    w("      ins(%sq : tensor<f32>) outs(%es : tensor<f32>) {\n")
    w("  ^bb0(%s: f32, %o: f32):\n")
    w("    %l = arith.divf %s, %n : f32\n")
    w("    linalg.yield %l : f32\n")
    w("  } -> tensor<f32>\n")
    w("  return %loss : tensor<f32>\n}\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--mode", choices=["dp", "tp", "2d"], default="dp")
    p.add_argument("--ranks", type=int, default=2, help="size of the first mesh axis")
    p.add_argument("--tp", type=int, default=2, help="size of the tp axis (2d)")
    p.add_argument("-o", "--output", default="-")
    a = p.parse_args()
    out = sys.stdout if a.output == "-" else open(a.output, "w")
    gen(out, a.layers, a.width, a.batch, a.mode, a.ranks, a.tp)


if __name__ == "__main__":
    main()

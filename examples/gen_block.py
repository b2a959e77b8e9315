#!/usr/bin/env python3
"""Generates the RFC transformer Block as a global-view dtensor program.

The Block: bias-free projections wq, wk, wv, wo [dim, dim], attention as 4-D
contractions softmax(Q K^T / sqrt(dh)) V over heads, a residual add, a relu
MLP w1 [dim, hidden], w2 [hidden, dim] and a second residual add.

Layouts:
  dp  data parallel on a 1-D mesh: x and the result S(0), weights R;
  tp  Megatron tensor parallel on a 1-D mesh: wq, wk, wv, w1 S(1), wo, w2
      S(0), x and the result R;
  2d  dp x tp on a 2-D mesh: x and the result [S(0), R], weights [R, tp].

Usage: gen_block.py --layout dp --mesh 4 --batch 32 --seq 128 --dim 512 \
         --heads 8 --hidden 2048 [--layers N] [-o FILE]
"""
import argparse
import sys


def spec(layout, kind):
    """Placements for `kind` in x/out/col/row."""
    one = {"x": "S(0)", "col": "S(1)", "row": "S(0)"}
    if layout == "dp":
        return {"x": "S(0)", "col": "R", "row": "R"}[kind]
    if layout == "tp":
        return {"x": "R", "col": "S(1)", "row": "S(0)"}[kind]
    return {"x": "S(0), R", "col": "R, S(1)", "row": "R, S(0)"}[kind]


def block(o, i, a):
    B, T, D, H, F = a.batch, a.seq, a.dim, a.heads, a.hidden
    dh = D // H
    N = B * T
    p = "l%d_" % i
    x = "%%x%d" % i
    w = lambda n: "%%%s%s" % (p, n)
    ln = lambda s: o.append("  " + s)
    ln("%%%sxf = tensor.collapse_shape %s [[0, 1], [2]] : tensor<%dx%dx%dxf32> into tensor<%dx%dxf32>" % (p, x, B, T, D, N, D))
    ln("%%%se = tensor.empty() : tensor<%dx%dxf32>" % (p, N, D))
    ln("%%%sz = linalg.fill ins(%%zero : f32) outs(%%%se : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>" % (p, p, N, D, N, D))
    for n in ("q", "k", "v"):
        ln("%%%s%s = linalg.matmul ins(%%%sxf, %s : tensor<%dx%dxf32>, tensor<%dx%dxf32>) outs(%%%sz : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>"
           % (p, n, p, w("w" + n), N, D, D, D, p, N, D, N, D))
        ln("%%%s%s4 = tensor.expand_shape %%%s%s [[0, 1], [2, 3]] output_shape [%d, %d, %d, %d] : tensor<%dx%dxf32> into tensor<%dx%dx%dx%dxf32>"
           % (p, n, p, n, B, T, H, dh, N, D, B, T, H, dh))
    S = "tensor<%dx%dx%dx%dxf32>" % (B, H, T, T)
    Q = "tensor<%dx%dx%dx%dxf32>" % (B, T, H, dh)
    ln("%%%ses = tensor.empty() : %s" % (p, S))
    ln("%%%szs = linalg.fill ins(%%zero : f32) outs(%%%ses : %s) -> %s" % (p, p, S, S))
    ln("%%%ss = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_s], iterator_types = [\"parallel\", \"parallel\", \"parallel\", \"parallel\", \"reduction\"]} ins(%%%sq4, %%%sk4 : %s, %s) outs(%%%szs : %s) {"
       % (p, p, p, Q, Q, p, S))
    o.append("  ^bb0(%a: f32, %b: f32, %acc: f32):\n    %m = arith.mulf %a, %b : f32\n    %r = arith.addf %acc, %m : f32\n    linalg.yield %r : f32\n  } -> " + S)
    ln("%%%sss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = [\"parallel\", \"parallel\", \"parallel\", \"parallel\"]} ins(%%%ss : %s) outs(%%%ses : %s) {"
       % (p, p, S, p, S))
    o.append("  ^bb0(%a: f32, %out0: f32):\n    %m = arith.mulf %a, %scale : f32\n    linalg.yield %m : f32\n  } -> " + S)
    ln("%%%sp = linalg.softmax dimension(3) ins(%%%sss : %s) outs(%%%ses : %s) -> %s" % (p, p, S, p, S, S))
    ln("%%%seo = tensor.empty() : %s" % (p, Q))
    ln("%%%szo = linalg.fill ins(%%zero : f32) outs(%%%seo : %s) -> %s" % (p, p, Q, Q))
    ln("%%%so = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = [\"parallel\", \"parallel\", \"parallel\", \"parallel\", \"reduction\"]} ins(%%%sp, %%%sv4 : %s, %s) outs(%%%szo : %s) {"
       % (p, p, p, S, Q, p, Q))
    o.append("  ^bb0(%a: f32, %b: f32, %acc: f32):\n    %m = arith.mulf %a, %b : f32\n    %r = arith.addf %acc, %m : f32\n    linalg.yield %r : f32\n  } -> " + Q)
    ln("%%%sof = tensor.collapse_shape %%%so [[0, 1], [2, 3]] : %s into tensor<%dx%dxf32>" % (p, p, Q, N, D))
    ln("%%%sattn = linalg.matmul ins(%%%sof, %s : tensor<%dx%dxf32>, tensor<%dx%dxf32>) outs(%%%sz : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>"
       % (p, p, w("wo"), N, D, D, D, p, N, D, N, D))
    ln("%%%sh = linalg.add ins(%%%sattn, %%%sxf : tensor<%dx%dxf32>, tensor<%dx%dxf32>) outs(%%%se : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>"
       % (p, p, p, N, D, N, D, p, N, D, N, D))
    ln("%%%se2 = tensor.empty() : tensor<%dx%dxf32>" % (p, N, F))
    ln("%%%sz2 = linalg.fill ins(%%zero : f32) outs(%%%se2 : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>" % (p, p, N, F, N, F))
    ln("%%%sm1 = linalg.matmul ins(%%%sh, %s : tensor<%dx%dxf32>, tensor<%dx%dxf32>) outs(%%%sz2 : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>"
       % (p, p, w("w1"), N, D, D, F, p, N, F, N, F))
    ln("%%%srelu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = [\"parallel\", \"parallel\"]} ins(%%%sm1 : tensor<%dx%dxf32>) outs(%%%se2 : tensor<%dx%dxf32>) {"
       % (p, p, N, F, p, N, F))
    o.append("  ^bb0(%%a: f32, %%out0: f32):\n    %%m = arith.maximumf %%a, %%zero : f32\n    linalg.yield %%m : f32\n  } -> tensor<%dx%dxf32>" % (N, F))
    ln("%%%sm2 = linalg.matmul ins(%%%srelu, %s : tensor<%dx%dxf32>, tensor<%dx%dxf32>) outs(%%%sz : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>"
       % (p, p, w("w2"), N, F, F, D, p, N, D, N, D))
    ln("%%%sout = linalg.add ins(%%%sm2, %%%sh : tensor<%dx%dxf32>, tensor<%dx%dxf32>) outs(%%%se : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>"
       % (p, p, p, N, D, N, D, p, N, D, N, D))
    ln("%%x%d = tensor.expand_shape %%%sout [[0, 1], [2]] output_shape [%d, %d, %d] : tensor<%dx%dxf32> into tensor<%dx%dx%dxf32>"
       % (i + 1, p, B, T, D, N, D, B, T, D))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layout", choices=["dp", "tp", "2d"], default="dp")
    ap.add_argument("--mesh", default="4", help="axis sizes, e.g. 4 or 2x2")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--dim", type=int, default=512)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--params", action="store_true",
                    help="mark the weights as trainable dtensor.param")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    sizes = [int(s) for s in a.mesh.split("x")]
    names = ["dp"] if a.layout == "dp" else ["tp"] if a.layout == "tp" else ["dp", "tp"]
    if len(sizes) != len(names):
        sys.exit("gen_block.py: layout %s needs a %d-D mesh" % (a.layout, len(names)))
    B, T, D, H, F = a.batch, a.seq, a.dim, a.heads, a.hidden
    o = []
    o.append("// Generated by examples/gen_block.py %s" % " ".join(sys.argv[1:]))
    o.append("dtensor.mesh @mesh = <[%s]>" % ", ".join('"%s" = %d' % (n, s) for n, s in zip(names, sizes)))
    o.append("#qk_q = affine_map<(b, h, i, j, d) -> (b, i, h, d)>")
    o.append("#qk_k = affine_map<(b, h, i, j, d) -> (b, j, h, d)>")
    o.append("#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>")
    o.append("#pv_p = affine_map<(b, i, h, d, j) -> (b, h, i, j)>")
    o.append("#pv_v = affine_map<(b, i, h, d, j) -> (b, j, h, d)>")
    o.append("#pv_o = affine_map<(b, i, h, d, j) -> (b, i, h, d)>")
    o.append("#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>")
    o.append("#id2 = affine_map<(m, n) -> (m, n)>")
    args = ["%%x0: tensor<%dx%dx%dxf32> {dtensor.spec = #dtensor.spec<@mesh, [%s]>}" % (B, T, D, spec(a.layout, "x"))]
    for i in range(a.layers):
        for n, kind, shape in (("wq", "col", (D, D)), ("wk", "col", (D, D)), ("wv", "col", (D, D)),
                               ("wo", "row", (D, D)), ("w1", "col", (D, F)), ("w2", "row", (F, D))):
            param = 'dtensor.param = "%s%s", ' % (n, "" if a.layers == 1 else str(i)) if a.params else ""
            args.append("%%l%d_%s: tensor<%dx%dxf32> {%sdtensor.spec = #dtensor.spec<@mesh, [%s]>}"
                        % (i, n, shape[0], shape[1], param, spec(a.layout, kind)))
    o.append("func.func @block(%s)" % (",\n    ".join(args)))
    o.append("    -> (tensor<%dx%dx%dxf32> {dtensor.spec = #dtensor.spec<@mesh, [%s]>}) {" % (B, T, D, spec(a.layout, "x")))
    o.append("  %zero = arith.constant 0.0 : f32")
    o.append("  %%scale = arith.constant %r : f32" % (1.0 / (D // H) ** 0.5))
    for i in range(a.layers):
        block(o, i, a)
    o.append("  return %%x%d : tensor<%dx%dx%dxf32>" % (a.layers, B, T, D))
    o.append("}")
    text = "\n".join(o) + "\n"
    if a.output:
        open(a.output, "w").write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()

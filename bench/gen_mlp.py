#!/usr/bin/env python3
"""Generate sharding-propagation benchmark inputs (MLIR text).

Two models, each in two flavours of annotation so that our
`dtensor-opt --dtensor-fake-propagate` and upstream MLIR's
`mlir-opt --pass-pipeline='builtin.module(func.func(sharding-propagation))'`
(the `shard` dialect, MLIR 22) see the same program:

* MLP stack (default): N Megatron MLP layers on a 1-D mesh of 4.  Per layer i

      h_i = x_i @ w1_i      w1_i column-sharded  S(1)
      r_i = relu(h_i)       (linalg.generic)
      y_i = r_i @ w2_i      w2_i row-sharded     S(0)
      x_{i+1} = y_i

  with x_0 replicated and the final y requested replicated (R).  Each matmul
  accumulates into a linalg.fill'ed tensor.empty, as a frontend would emit.

* Conflict (`--conflict K`): one elementwise linalg.generic that adds K
  tensors whose placements alternate S(0), S(1), R.  Upstream's propagation
  enumerates every subset of the annotated operands (2^K sharding options);
  ours chooses one strategy from a fixed candidate list.

Flavours:
  --flavor dtensor   `dtensor.mesh @mesh = <["tp" = 4]>` and
                     `dtensor.spec = #dtensor.spec<@mesh, [...]>` on the
                     function arguments/results (DESIGN.md section 6).
  --flavor shard     `shard.grid @mesh(shape = 4)`; each argument annotated
                     with `shard.shard %arg to %sharding` (on its definition)
                     and the returned value with `annotate_for_users`, as in
                     upstream's test/Dialect/Shard/sharding-propagation.mlir.
                     S(d) -> split_axes with [0] at position d, R -> [[]].

* Loss (`--loss`, dtensor flavour only): the same MLP stack as a loss
  function for `dtensor-autodiff`: the weights carry `dtensor.param`
  ("w1_<i>", "w2_<i>") and the function returns sum(y * y) over the final
  y (a 0-d tensor, replicated) instead of y.

Usage:
  bench/gen_mlp.py --layers 1000 --flavor dtensor -o bench/out/mlp_1000.dtensor.mlir
  bench/gen_mlp.py --layers 1000 --flavor dtensor --loss -o bench/out/mlp_loss_1000.mlir
  bench/gen_mlp.py --layers 1000 --flavor shard   -o bench/out/mlp_1000.shard.mlir
  bench/gen_mlp.py --conflict 20 --flavor shard   -o bench/out/conflict_20.shard.mlir

Sizes are small on purpose (tokens 32, dim 64, hidden 256) so that a
20 000-layer file stays a few tens of MB; they only matter to the analysis
through the shapes.
"""

import argparse
import sys

MESH = "mesh"
AXIS = "tp"


# ---------------------------------------------------------------------------
# Placements.  A placement is "R" or an int d (shard tensor dim d on the only
# mesh axis).
# ---------------------------------------------------------------------------

def dtensor_spec(p):
    inner = "R" if p == "R" else f"S({p})"
    return f"#dtensor.spec<@{MESH}, [{inner}]>"


def shard_split_axes(p):
    """split_axes for a 1-D grid: R -> [[]], S(d) -> d empty lists then [0]."""
    if p == "R":
        return "[[]]"
    return "[" + "".join("[], " for _ in range(p)) + "[0]]"


def ttype(shape):
    return "tensor<" + "".join(f"{s}x" for s in shape) + "f32>"


class Emitter:
    """Writes a function body; the flavour decides how placements are spelled."""

    def __init__(self, flavor, mesh_size, out):
        self.flavor = flavor
        self.mesh_size = mesh_size
        self.out = out
        self.shardings = {}  # split_axes text -> SSA name of its shard.sharding

    def w(self, line):
        self.out.write(line)
        self.out.write("\n")

    def header(self):
        if self.flavor == "dtensor":
            self.w(f'dtensor.mesh @{MESH} = <["{AXIS}" = {self.mesh_size}]>')
        else:
            self.w(f"shard.grid @{MESH}(shape = {self.mesh_size})")
        self.w("")

    def signature(self, name, args, results, params=()):
        """args: list of (ssa, shape, placement); results: list of (shape, placement).

        `params`: the SSA names that get `dtensor.param` (dtensor flavour)."""
        parts = []
        for ssa, shape, p in args:
            if self.flavor == "dtensor":
                param = f'dtensor.param = "{ssa[1:]}", ' if ssa in params else ""
                parts.append(f"    {ssa}: {ttype(shape)} {{{param}dtensor.spec = {dtensor_spec(p)}}}")
            else:
                parts.append(f"    {ssa}: {ttype(shape)}")
        res = []
        for shape, p in results:
            if self.flavor == "dtensor":
                res.append(f"{ttype(shape)} {{dtensor.spec = {dtensor_spec(p)}}}")
            else:
                res.append(ttype(shape))
        self.w(f"func.func @{name}(")
        self.w(",\n".join(parts) + ")")
        self.w(f"    -> ({', '.join(res)}) {{")

    def sharding(self, p):
        """SSA name of a shard.sharding for placement p (emitted once, reused)."""
        axes = shard_split_axes(p)
        if axes not in self.shardings:
            name = f"%s{len(self.shardings)}"
            self.w(f"  {name} = shard.sharding @{MESH} split_axes = {axes} : !shard.sharding")
            self.shardings[axes] = name
        return self.shardings[axes]

    def annotate_arg(self, ssa, shape, p):
        """Value the body should use for argument `ssa` (shard flavour: on-def annotation)."""
        if self.flavor == "dtensor":
            return ssa
        s = self.sharding(p)
        new = f"{ssa}_sh"
        self.w(f"  {new} = shard.shard {ssa} to {s} : {ttype(shape)}")
        return new

    def annotate_result(self, ssa, shape, p):
        """Value to return for a result requested with placement p."""
        if self.flavor == "dtensor":
            return ssa  # the result spec in the signature is the request
        s = self.sharding(p)
        new = f"{ssa}_req"
        self.w(f"  {new} = shard.shard {ssa} to {s} annotate_for_users : {ttype(shape)}")
        return new


RELU_MAPS = ("indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
             "affine_map<(d0, d1) -> (d0, d1)>], "
             'iterator_types = ["parallel", "parallel"]')


def gen_mlp(em, layers, tokens, dim, hidden, loss=False):
    em.header()
    xs = [tokens, dim]
    w1s = [dim, hidden]
    w2s = [hidden, dim]
    hs = [tokens, hidden]
    args = [("%x", xs, "R")]
    for i in range(layers):
        args.append((f"%w1_{i}", w1s, 1))  # column-parallel
        args.append((f"%w2_{i}", w2s, 0))  # row-parallel
    if loss:
        em.signature("mlp_loss", args, [([], "R")],
                     params={ssa for ssa, _, _ in args[1:]})
    else:
        em.signature("mlp_stack", args, [(xs, "R")])

    vals = {ssa: em.annotate_arg(ssa, shape, p) for ssa, shape, p in args}
    em.w("  %c0 = arith.constant 0.0 : f32")
    x = vals["%x"]
    for i in range(layers):
        w1, w2 = vals[f"%w1_{i}"], vals[f"%w2_{i}"]
        em.w(f"  %e1_{i} = tensor.empty() : {ttype(hs)}")
        em.w(f"  %z1_{i} = linalg.fill ins(%c0 : f32) outs(%e1_{i} : {ttype(hs)}) -> {ttype(hs)}")
        em.w(f"  %h_{i} = linalg.matmul ins({x}, {w1} : {ttype(xs)}, {ttype(w1s)}) "
             f"outs(%z1_{i} : {ttype(hs)}) -> {ttype(hs)}")
        em.w(f"  %r_{i} = linalg.generic {{{RELU_MAPS}}} ins(%h_{i} : {ttype(hs)}) "
             f"outs(%e1_{i} : {ttype(hs)}) {{")
        em.w("  ^bb0(%a: f32, %o: f32):")
        em.w("    %m = arith.maximumf %a, %c0 : f32")
        em.w("    linalg.yield %m : f32")
        em.w(f"  }} -> {ttype(hs)}")
        em.w(f"  %e2_{i} = tensor.empty() : {ttype(xs)}")
        em.w(f"  %z2_{i} = linalg.fill ins(%c0 : f32) outs(%e2_{i} : {ttype(xs)}) -> {ttype(xs)}")
        em.w(f"  %y_{i} = linalg.matmul ins(%r_{i}, {w2} : {ttype(hs)}, {ttype(w2s)}) "
             f"outs(%z2_{i} : {ttype(xs)}) -> {ttype(xs)}")
        x = f"%y_{i}"
    if loss:
        scalar = "tensor<f32>"
        em.w(f"  %es = tensor.empty() : {scalar}")
        em.w(f"  %zs = linalg.fill ins(%c0 : f32) outs(%es : {scalar}) -> {scalar}")
        em.w(f"  %loss = linalg.reduce ins({x} : {ttype(xs)}) outs(%zs : {scalar}) dimensions = [0, 1]")
        em.w("    (%in: f32, %acc: f32) {")
        em.w("      %sq = arith.mulf %in, %in : f32")
        em.w("      %s = arith.addf %sq, %acc : f32")
        em.w("      linalg.yield %s : f32")
        em.w("    }")
        em.w(f"  return %loss : {scalar}")
        em.w("}")
        return
    ret = em.annotate_result(x, xs, "R")
    em.w(f"  return {ret} : {ttype(xs)}")
    em.w("}")


def gen_conflict(em, k, rows, cols):
    em.header()
    shape = [rows, cols]
    cycle = [0, 1, "R"]
    args = [(f"%a{i}", shape, cycle[i % 3]) for i in range(k)]
    em.signature(f"conflict_{k}", args, [(shape, "R")])
    ins = [em.annotate_arg(ssa, shape, p) for ssa, shape, p in args]
    t = ttype(shape)
    ident = "affine_map<(d0, d1) -> (d0, d1)>"
    maps = ", ".join([ident] * (k + 1))
    em.w(f"  %e = tensor.empty() : {t}")
    em.w(f"  %sum = linalg.generic {{indexing_maps = [{maps}], "
         f'iterator_types = ["parallel", "parallel"]}}')
    em.w(f"      ins({', '.join(ins)} : {', '.join([t] * k)})")
    em.w(f"      outs(%e : {t}) {{")
    em.w("  ^bb0(" + ", ".join(f"%b{i}: f32" for i in range(k)) + ", %o: f32):")
    acc = "%b0"
    for i in range(1, k):
        em.w(f"    %acc{i} = arith.addf {acc}, %b{i} : f32")
        acc = f"%acc{i}"
    em.w(f"    linalg.yield {acc} : f32")
    em.w(f"  }} -> {t}")
    ret = em.annotate_result("%sum", shape, "R")
    em.w(f"  return {ret} : {t}")
    em.w("}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flavor", choices=["dtensor", "shard"], required=True)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--layers", type=int, default=1, help="MLP layers (default 1)")
    mode.add_argument("--conflict", type=int, metavar="K",
                      help="emit one elementwise op with K conflicting operands instead")
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--mesh-size", type=int, default=4)
    ap.add_argument("--loss", action="store_true",
                    help="emit the MLP as a loss function (sum of squares, "
                         "weights marked dtensor.param; dtensor flavour)")
    ap.add_argument("-o", "--output", default="-", help="output file (default stdout)")
    a = ap.parse_args(argv)

    if a.conflict is not None and a.conflict < 2:
        ap.error("--conflict needs at least 2 operands")
    if a.conflict is None and a.layers < 1:
        ap.error("--layers must be >= 1")
    if a.loss and (a.flavor != "dtensor" or a.conflict is not None):
        ap.error("--loss needs --flavor dtensor and the MLP (not --conflict)")

    out = sys.stdout if a.output == "-" else open(a.output, "w", buffering=1 << 20)
    try:
        em = Emitter(a.flavor, a.mesh_size, out)
        if a.conflict is not None:
            gen_conflict(em, a.conflict, a.tokens, a.dim)
        else:
            gen_mlp(em, a.layers, a.tokens, a.dim, a.hidden, a.loss)
    finally:
        if out is not sys.stdout:
            out.close()


if __name__ == "__main__":
    main()

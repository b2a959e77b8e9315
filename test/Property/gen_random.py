#!/usr/bin/env python3
"""Random global-view DTensor programs (MLIR text) for property tests.

Usage:
  gen_random.py SEED [-o FILE]

Deterministic per SEED (Python's `random.Random(SEED)`; no other source of
randomness).  Each program has

* a `dtensor.mesh @mesh`: 1-D of 2, 3, 4 or 8 ranks, or 2-D 2x2, 2x4, 4x2;
* one `func.func @prog` with 2-4 tensor arguments of random static shapes
  (dims from {1,2,3,4,5,6,8,10,12,16,32,64}), each with a random
  `dtensor.spec` (S(d) or R per mesh axis, several axes may shard the same
  dim) or no spec; weight arguments are added when a contraction needs an
  operand of a shape nothing provides;
* a random DAG of 5-25 ops from: linalg.matmul, linalg.batch_matmul,
  elementwise arith.addf/mulf/subf/maximumf on tensors, a relu written as a
  linalg.generic with arith.maximumf against a scalar 0, a sum
  linalg.reduce, linalg.transpose, tensor.collapse_shape,
  tensor.expand_shape and linalg.softmax.  Operands are drawn from every
  earlier value of a fitting shape (biased to recent ones), so values fan
  out.  Contraction and reduction inits are linalg.fill of 0.0 on a
  tensor.empty;
* 1-2 of the last values returned, each optionally with a random result
  `dtensor.spec` request.
"""

import argparse
import random
import sys

DIMS = [1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 32, 64]
MESHES = [[2], [3], [4], [8], [2, 2], [2, 4], [4, 2]]
AXIS_NAMES = {1: ["x"], 2: ["dp", "tp"]}
MAX_RANK = 4


def ttype(shape):
    if not shape:
        return "tensor<f32>"
    return "tensor<" + "x".join(str(s) for s in shape) + "xf32>"


def ident_map(rank):
    ds = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({ds}) -> ({ds})>"


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        self.mesh = self.rng.choice(MESHES)
        self.args = []    # (name, shape, spec text or None)
        self.values = []  # (name, shape) in definition order (args first)
        self.body = []
        self.n = 0

    # -- helpers ------------------------------------------------------------
    def fresh(self, prefix="v"):
        self.n += 1
        return f"%{prefix}{self.n}"

    def rand_spec(self, rank):
        """Random placements (S(d)/R per mesh axis) for a tensor of `rank`."""
        ps = []
        for _ in self.mesh:
            if rank > 0 and self.rng.random() < 0.6:
                ps.append(f"S({self.rng.randrange(rank)})")
            else:
                ps.append("R")
        return f"#dtensor.spec<@mesh, [{', '.join(ps)}]>"

    def rand_shape(self, rank):
        return [self.rng.choice(DIMS) for _ in range(rank)]

    def add_arg(self, shape, spec_prob=0.75):
        name = f"%a{len(self.args)}"
        spec = self.rand_spec(len(shape)) if self.rng.random() < spec_prob else None
        self.args.append((name, list(shape), spec))
        self.values.append((name, list(shape)))
        return name

    def pick(self, pred=lambda s: True):
        """A value whose shape satisfies pred, biased to recent ones."""
        cands = [v for v in self.values if pred(v[1])]
        if not cands:
            return None
        # Weight (i+1)^2: later values are likelier, earlier ones still possible.
        weights = [(i + 1) ** 2 for i in range(len(cands))]
        return self.rng.choices(cands, weights=weights)[0]

    def define(self, shape):
        name = self.fresh()
        self.values.append((name, list(shape)))
        return name

    def w(self, line):
        self.body.append("  " + line)

    def zero_init(self, shape):
        e = self.fresh("e")
        z = self.fresh("z")
        t = ttype(shape)
        self.w(f"{e} = tensor.empty() : {t}")
        self.w(f"{z} = linalg.fill ins(%c0 : f32) outs({e} : {t}) -> {t}")
        return z

    def empty(self, shape):
        e = self.fresh("e")
        self.w(f"{e} = tensor.empty() : {ttype(shape)}")
        return e

    def operand_like(self, shape, p_reuse=0.6):
        """An existing value of exactly `shape`, or a new argument."""
        v = None
        if self.rng.random() < p_reuse:
            v = self.pick(lambda s: s == list(shape))
        if v is None:
            return self.add_arg(shape), list(shape)
        return v

    # -- ops ----------------------------------------------------------------
    def op_matmul(self):
        lhs = self.pick(lambda s: len(s) == 2)
        if lhs is None:
            return False
        m, k = lhs[1]
        rhs = None
        if self.rng.random() < 0.4:
            rhs = self.pick(lambda s: len(s) == 2 and s[0] == k)
        if rhs is None:
            shape = [k, self.rng.choice(DIMS)]
            rhs = (self.add_arg(shape), shape)
        n = rhs[1][1]
        out = [m, n]
        z = self.zero_init(out)
        r = self.define(out)
        self.w(f"{r} = linalg.matmul ins({lhs[0]}, {rhs[0]} : {ttype(lhs[1])}, {ttype(rhs[1])}) "
               f"outs({z} : {ttype(out)}) -> {ttype(out)}")
        return True

    def op_batch_matmul(self):
        lhs = self.pick(lambda s: len(s) == 3)
        if lhs is None:
            return False
        b, m, k = lhs[1]
        rhs = None
        if self.rng.random() < 0.4:
            rhs = self.pick(lambda s: len(s) == 3 and s[0] == b and s[1] == k)
        if rhs is None:
            shape = [b, k, self.rng.choice(DIMS)]
            rhs = (self.add_arg(shape), shape)
        n = rhs[1][2]
        out = [b, m, n]
        z = self.zero_init(out)
        r = self.define(out)
        self.w(f"{r} = linalg.batch_matmul ins({lhs[0]}, {rhs[0]} : {ttype(lhs[1])}, {ttype(rhs[1])}) "
               f"outs({z} : {ttype(out)}) -> {ttype(out)}")
        return True

    def op_elementwise(self):
        a = self.pick(lambda s: len(s) >= 1)
        if a is None:
            return False
        b = self.operand_like(a[1])
        if self.rng.random() < 0.5:
            a, b = b, a
        op = self.rng.choice(["addf", "mulf", "subf", "maximumf"])
        r = self.define(a[1])
        self.w(f"{r} = arith.{op} {a[0]}, {b[0]} : {ttype(a[1])}")
        return True

    def op_relu(self):
        a = self.pick(lambda s: len(s) >= 1)
        if a is None:
            return False
        rank = len(a[1])
        t = ttype(a[1])
        e = self.empty(a[1])
        r = self.define(a[1])
        its = ", ".join(['"parallel"'] * rank)
        m = ident_map(rank)
        self.w(f"{r} = linalg.generic {{indexing_maps = [{m}, {m}], iterator_types = [{its}]}} "
               f"ins({a[0]} : {t}) outs({e} : {t}) {{")
        self.w("^bb0(%in: f32, %out: f32):")
        self.w("  %m = arith.maximumf %in, %c0 : f32")
        self.w("  linalg.yield %m : f32")
        self.w(f"}} -> {t}")
        return True

    def op_reduce(self):
        a = self.pick(lambda s: len(s) >= 2)
        if a is None:
            return False
        d = self.rng.randrange(len(a[1]))
        out = a[1][:d] + a[1][d + 1:]
        z = self.zero_init(out)
        r = self.define(out)
        self.w(f"{r} = linalg.reduce ins({a[0]} : {ttype(a[1])}) outs({z} : {ttype(out)}) dimensions = [{d}]")
        self.w("  (%in: f32, %acc: f32) {")
        self.w("    %s = arith.addf %in, %acc : f32")
        self.w("    linalg.yield %s : f32")
        self.w("  }")
        return True

    def op_transpose(self):
        a = self.pick(lambda s: len(s) >= 2)
        if a is None:
            return False
        rank = len(a[1])
        perm = list(range(rank))
        while perm == list(range(rank)):
            self.rng.shuffle(perm)
        out = [a[1][p] for p in perm]
        e = self.empty(out)
        r = self.define(out)
        self.w(f"{r} = linalg.transpose ins({a[0]} : {ttype(a[1])}) outs({e} : {ttype(out)}) "
               f"permutation = [{', '.join(map(str, perm))}]")
        return True

    def op_collapse(self):
        a = self.pick(lambda s: len(s) >= 2)
        if a is None:
            return False
        rank = len(a[1])
        # Random contiguous grouping with fewer groups than dims.
        while True:
            cuts = [i for i in range(1, rank) if self.rng.random() < 0.5]
            if len(cuts) < rank - 1:
                break
        groups, start = [], 0
        for c in cuts + [rank]:
            groups.append(list(range(start, c)))
            start = c
        out = []
        for g in groups:
            p = 1
            for i in g:
                p *= a[1][i]
            out.append(p)
        reass = "[" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups) + "]"
        r = self.define(out)
        self.w(f"{r} = tensor.collapse_shape {a[0]} {reass} : {ttype(a[1])} into {ttype(out)}")
        return True

    def op_expand(self):
        def splittable(s):
            return 1 <= len(s) < MAX_RANK and any(x >= 4 and not _is_prime(x) for x in s)
        a = self.pick(splittable)
        if a is None:
            return False
        shape = a[1]
        dims = [i for i, x in enumerate(shape) if x >= 4 and not _is_prime(x)]
        d = self.rng.choice(dims)
        n = shape[d]
        factors = [f for f in range(2, n) if n % f == 0]
        f = self.rng.choice(factors)
        out = shape[:d] + [f, n // f] + shape[d + 1:]
        groups, j = [], 0
        for i in range(len(shape)):
            if i == d:
                groups.append([j, j + 1])
                j += 2
            else:
                groups.append([j])
                j += 1
        reass = "[" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups) + "]"
        r = self.define(out)
        self.w(f"{r} = tensor.expand_shape {a[0]} {reass} output_shape [{', '.join(map(str, out))}] "
               f": {ttype(shape)} into {ttype(out)}")
        return True

    def op_softmax(self):
        a = self.pick(lambda s: len(s) >= 1)
        if a is None:
            return False
        d = self.rng.randrange(len(a[1]))
        t = ttype(a[1])
        e = self.empty(a[1])
        r = self.define(a[1])
        self.w(f"{r} = linalg.softmax dimension({d}) ins({a[0]} : {t}) outs({e} : {t}) -> {t}")
        return True

    OPS = [
        ("matmul", 4), ("batch_matmul", 2), ("elementwise", 4), ("relu", 2),
        ("reduce", 1), ("transpose", 2), ("collapse", 1), ("expand", 1),
        ("softmax", 1),
    ]

    # -- program ------------------------------------------------------------
    def generate(self):
        rng = self.rng
        for _ in range(rng.randint(2, 4)):
            rank = rng.choices([1, 2, 3], weights=[1, 5, 3])[0]
            self.add_arg(self.rand_shape(rank))
        n_ops = rng.randint(5, 25)
        names = [o for o, _ in self.OPS]
        weights = [w for _, w in self.OPS]
        done = 0
        while done < n_ops:
            kind = rng.choices(names, weights=weights)[0]
            if getattr(self, "op_" + kind)():
                done += 1
            elif kind in ("matmul", "batch_matmul", "reduce", "transpose", "collapse"):
                # Nothing of a fitting rank yet: bring one in as an argument.
                rank = 3 if kind == "batch_matmul" else 2
                self.add_arg(self.rand_shape(rank))
        # Return 1-2 of the last values defined by ops.
        defined = [v for v in self.values if not v[0].startswith("%a")]
        n_ret = min(len(defined), rng.randint(1, 2))
        rets = defined[-n_ret:]
        res = []
        for _, shape in rets:
            if rng.random() < 0.5:
                res.append(f"{ttype(shape)} {{dtensor.spec = {self.rand_spec(len(shape))}}}")
            else:
                res.append(ttype(shape))
        out = []
        if len(self.mesh) == 1:
            out.append(f'dtensor.mesh @mesh = <["x" = {self.mesh[0]}]>')
        else:
            out.append(f'dtensor.mesh @mesh = <["dp" = {self.mesh[0]}, "tp" = {self.mesh[1]}]>')
        out.append("")
        out.append(f"// seed {self.seed}")
        arglines = []
        for name, shape, spec in self.args:
            attr = f" {{dtensor.spec = {spec}}}" if spec else ""
            arglines.append(f"    {name}: {ttype(shape)}{attr}")
        out.append("func.func @prog(")
        out.append(",\n".join(arglines) + ")")
        out.append(f"    -> ({', '.join(res)}) {{")
        out.append("  %c0 = arith.constant 0.0 : f32")
        out.extend(self.body)
        out.append(f"  return {', '.join(v[0] for v in rets)} : "
                   f"{', '.join(ttype(v[1]) for v in rets)}")
        out.append("}")
        return "\n".join(out) + "\n"


def _is_prime(n):
    return n > 1 and all(n % p for p in range(2, int(n ** 0.5) + 1))


def generate(seed):
    return Gen(seed).generate()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args(argv)
    text = generate(a.seed)
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Random global-view DTensor programs (MLIR text) for property tests.

Usage:
  gen_random.py SEED [-o FILE] [--run-meshes] [--exclude-known-open] [--classic]
  gen_random.py SEED --loss [-o FILE]

Deterministic per SEED and options (Python's `random.Random(SEED)`; no other
source of randomness).  Each program has

* a `dtensor.mesh @mesh`: 1-D of 2, 3, 4 or 8 ranks, or 2-D 2x2, 2x4, 4x2
  (--run-meshes: only 2, 4 and 2x2, which `dtensor-run --np 2|4` runs);
* one element type for the whole program: f32 (most), i32 or i64;
* one `func.func @prog` with 2-4 tensor arguments of random static shapes
  (dims from {1,2,3,4,5,6,8,10,12,16,32,64}), each with a random
  `dtensor.spec` (S(d), R or, on some axes, P(sum)/P(avg)/P(max)/P(min) per
  mesh axis; several axes may shard the same dim) or no spec; weight
  arguments are added when a contraction needs an operand of a shape
  nothing provides;
* a random DAG of 5-25 ops from: linalg.matmul, linalg.batch_matmul,
  elementwise arith ops on tensors (add/mul/sub/max), a relu, a sum
  linalg.reduce, a max linalg.reduce ("max under sum"), linalg.transpose,
  tensor.collapse_shape, tensor.expand_shape (also of dims that the mesh
  does not divide: uneven expands), linalg.softmax (floats), and
  linalg.generic elementwise bodies on one or two inputs: repeated operands
  (`mulf %in, %in`, `addf %in, %in`, x^3), products of two inputs, exp,
  division by (1 + |x|), max of two inputs, and for integers products with
  and additions of overflow-prone constants (wrapping i32/i64, i64 values
  above 2^53).  NaN/Inf data comes from bodies that divide by zero on some
  elements (`x / max(x, 0)`: 0/0 and x/0) or take the log of negatives;
  they are applied only to values computed exactly (from non-partial
  arguments through elementwise and shape ops), so that every rank and the
  one-rank reference produce the same non-finite elements.  Operands are
  drawn from every earlier value of a fitting shape (biased to recent
  ones), so values fan out.  Contraction and reduction inits are linalg.fill
  of 0 (-inf / INT_MIN for max) on a tensor.empty;
* 1-2 of the last values returned, each optionally with a random result
  `dtensor.spec` request (S/R).

A comment line `// features: ...` lists what the program contains
(nonlinear-on-partial, pmax-arg, uneven-expand, naninf, int-overflow, ...),
for classifying failures.

--exclude-known-open avoids the classes of issue 9 that are open: a
nonlinear body (or a max reduction) never gets an operand that may be
partial (one is first `dtensor.redistribute`d to S/R), arguments are only
P(sum) among partials, max-reduction results are redistributed to S/R
before use, and expand_shape only splits dims whose outer factor the whole
mesh divides.  Drop the flag once those fixes land.

--classic generates the programs of the first version of this generator
(f32, S/R specs, no generic bodies other than relu, no NaN/Inf).

--loss generates loss functions for `dtensor-run --grad-check` instead
(the other options do not apply): f32, S/R specs, small shapes (dims from
{1,2,3,4,5,6,8}), a DAG of 3-15 ops of the differentiable kinds above
(matmul, batch_matmul, arith elementwise add/mul/sub/max, relu, sum and
max reductions, transpose, collapse/expand, softmax) and generic bodies
with bounded values (LOSS_BODIES: no NaN/Inf, no overflow), sometimes
inside an scf.for of 1-3 iterations (the value carried through the body
plus one captured value) or a call of a helper function holding one
generic op; the loss is sum(v * v) over the last value v. Each argument
is a `dtensor.param` with probability 0.7 (at least one). The seeds of the
other modes are unchanged by this one.
"""

import argparse
import random
import sys

DIMS = [1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 32, 64]
MESHES = [[2], [3], [4], [8], [2, 2], [2, 4], [4, 2]]
RUN_MESHES = [[2], [4], [2, 2]]
AXIS_NAMES = {1: ["x"], 2: ["dp", "tp"]}
MAX_RANK = 4

F32_MIN = "0xFF800000"  # -inf
INT_MIN = {"i32": "-2147483648", "i64": "-9223372036854775808"}
# Overflow-prone constants: products wrap; i64 sums pass 2^53.
BIG_MUL = {"i32": "1000003", "i64": "3037000499"}
BIG_ADD = {"i32": "2147483000", "i64": "9007199254740993"}


def ttype(shape, elt="f32"):
    if not shape:
        return f"tensor<{elt}>"
    return "tensor<" + "x".join(str(s) for s in shape) + f"x{elt}>"


def ident_map(rank):
    ds = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({ds}) -> ({ds})>"


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


# Elementwise linalg.generic bodies. Each: (name, number of inputs, dtype
# class ("f" or "i"), lines with %in / %in2 / %out, result name, linear in
# every input under P(sum), produces NaN/Inf, tags).
BODIES = [
    ("square", 1, "f", ["%b1 = arith.mulf %in, %in : {e}"], "%b1", False, False,
     {"repeated-operand"}),
    ("double", 1, "f", ["%b1 = arith.addf %in, %in : {e}"], "%b1", True, False,
     {"repeated-operand"}),
    ("cube", 1, "f", ["%b1 = arith.mulf %in, %in : {e}", "%b2 = arith.mulf %b1, %in : {e}"],
     "%b2", False, False, {"repeated-operand"}),
    ("scale", 1, "f", ["%b1 = arith.mulf %in, %chalf : {e}"], "%b1", True, False, set()),
    ("neg", 1, "f", ["%b1 = arith.negf %in : {e}"], "%b1", True, False, set()),
    ("exp", 1, "f", ["%b1 = math.exp %in : {e}"], "%b1", False, False, set()),
    ("recip-safe", 1, "f", ["%b1 = math.absf %in : {e}", "%b2 = arith.addf %b1, %c1 : {e}",
                            "%b3 = arith.divf %c1, %b2 : {e}"], "%b3", False, False, set()),
    ("div-relu", 1, "f", ["%b1 = arith.maximumf %in, %c0 : {e}",
                          "%b2 = arith.divf %in, %b1 : {e}"], "%b2", False, True, {"naninf"}),
    ("log", 1, "f", ["%b1 = math.log %in : {e}"], "%b1", False, True, {"naninf"}),
    ("mul2", 2, "f", ["%b1 = arith.mulf %in, %in2 : {e}"], "%b1", False, False, set()),
    ("div-by-partial", 2, "f", ["%b1 = math.absf %in2 : {e}", "%b2 = arith.addf %b1, %c1 : {e}",
                                "%b3 = arith.divf %in, %b2 : {e}"], "%b3", False, False, set()),
    ("max2", 2, "f", ["%b1 = arith.maximumf %in, %in2 : {e}"], "%b1", False, False, set()),
    ("sq-plus", 2, "f", ["%b1 = arith.mulf %in, %in : {e}", "%b2 = arith.addf %b1, %in2 : {e}"],
     "%b2", False, False, {"repeated-operand"}),
    ("add2", 2, "f", ["%b1 = arith.addf %in, %in2 : {e}"], "%b1", True, False, set()),
    # Integers.
    ("square", 1, "i", ["%b1 = arith.muli %in, %in : {e}"], "%b1", False, False,
     {"repeated-operand", "int-overflow"}),
    ("double", 1, "i", ["%b1 = arith.addi %in, %in : {e}"], "%b1", True, False,
     {"repeated-operand"}),
    ("cube", 1, "i", ["%b1 = arith.muli %in, %in : {e}", "%b2 = arith.muli %b1, %in : {e}"],
     "%b2", False, False, {"repeated-operand", "int-overflow"}),
    ("mul-big", 1, "i", ["%b1 = arith.muli %in, %cbigmul : {e}"], "%b1", True, False,
     {"int-overflow"}),
    ("add-big", 1, "i", ["%b1 = arith.addi %in, %cbigadd : {e}"], "%b1", False, False,
     {"int-overflow"}),
    ("neg", 1, "i", ["%b1 = arith.subi %c0, %in : {e}"], "%b1", True, False, set()),
    ("relu", 1, "i", ["%b1 = arith.maxsi %in, %c0 : {e}"], "%b1", False, False, set()),
    ("mul2", 2, "i", ["%b1 = arith.muli %in, %in2 : {e}"], "%b1", False, False, {"int-overflow"}),
    ("sq-plus", 2, "i", ["%b1 = arith.muli %in, %in : {e}", "%b2 = arith.addi %b1, %in2 : {e}"],
     "%b2", False, False, {"repeated-operand"}),
    ("max2", 2, "i", ["%b1 = arith.maxsi %in, %in2 : {e}"], "%b1", False, False, set()),
    ("add2", 2, "i", ["%b1 = arith.addi %in, %in2 : {e}"], "%b1", True, False, set()),
]


# Bodies of --loss programs: differentiable, with bounded values (no NaN/Inf,
# no overflow through chains of ops). Same fields as BODIES.
LOSS_BODIES = [b for b in BODIES if b[2] == "f" and b[0] in (
    "square", "double", "scale", "neg", "recip-safe", "mul2",
    "div-by-partial", "max2", "sq-plus", "add2")] + [
    ("tanh", 1, "f", ["%b1 = math.tanh %in : {e}"], "%b1", False, False, set()),
    ("exp-tanh", 1, "f", ["%b1 = math.tanh %in : {e}", "%b2 = math.exp %b1 : {e}"],
     "%b2", False, False, set()),
    ("sqrt-1p", 1, "f", ["%b1 = arith.mulf %in, %in : {e}", "%b2 = arith.addf %b1, %c1 : {e}",
                         "%b3 = math.sqrt %b2 : {e}"], "%b3", False, False, set()),
    ("log-1p", 1, "f", ["%b1 = arith.mulf %in, %in : {e}", "%b2 = arith.addf %b1, %c1 : {e}",
                        "%b3 = math.log %b2 : {e}"], "%b3", False, False, set()),
    ("rsqrt-1p", 1, "f", ["%b1 = arith.mulf %in, %in : {e}", "%b2 = arith.addf %b1, %c1 : {e}",
                          "%b3 = math.rsqrt %b2 : {e}"], "%b3", False, False, set()),
    ("where", 2, "f", ["%b1 = arith.cmpf ogt, %in, %in2 : {e}",
                       "%b2 = arith.mulf %in, %chalf : {e}",
                       "%b3 = arith.select %b1, %b2, %in2 : {e}"], "%b3", False, False, set()),
]
LOSS_DIMS = [1, 2, 3, 4, 5, 6, 8]


class Gen:
    def __init__(self, seed, exclude_known_open=False, run_meshes=False, classic=False,
                 loss=False):
        self.rng = random.Random(seed)
        self.seed = seed
        self.exclude = exclude_known_open
        self.classic = classic
        self.loss = loss
        self.mesh = self.rng.choice(RUN_MESHES if run_meshes else MESHES)
        if classic or loss:
            self.elt = "f32"
        else:
            self.elt = self.rng.choices(["f32", "i32", "i64"], weights=[6, 2, 2])[0]
        self.is_int = self.elt != "f32"
        self.args = []    # (name, shape, spec text or None)
        self.values = []  # (name, shape) in definition order (args first)
        self.partial = {}  # name -> may be partial (a P placement may reach it)
        self.exact = {}    # name -> computed exactly (no partial, no sum)
        self.tags = set()
        self.body = []
        self.helpers = []  # --loss: helper functions called by @prog
        self.used = set()  # names picked as operands
        self.no_param = set()  # arguments never made parameters (conditions)
        self.n = 0

    @property
    def devices(self):
        return _prod(self.mesh)

    def t(self, shape):
        return ttype(shape, self.elt)

    # -- helpers ------------------------------------------------------------
    def fresh(self, prefix="v"):
        self.n += 1
        return f"%{prefix}{self.n}"

    def rand_spec(self, rank, partial_ok=False):
        """Random placements per mesh axis for a tensor of `rank`: S(d)/R, and
        with `partial_ok` sometimes a partial."""
        ps = []
        for _ in self.mesh:
            if partial_ok and not self.classic and not self.loss and self.rng.random() < 0.15:
                if self.exclude:
                    ps.append("P(sum)")
                elif self.is_int:
                    ps.append(self.rng.choice(["P(sum)", "P(sum)", "P(max)", "P(min)"]))
                else:
                    ps.append(self.rng.choice(["P(sum)", "P(sum)", "P(avg)", "P(max)", "P(min)"]))
            elif rank > 0 and self.rng.random() < 0.6:
                ps.append(f"S({self.rng.randrange(rank)})")
            else:
                ps.append("R")
        return f"#dtensor.spec<@mesh, [{', '.join(ps)}]>"

    @property
    def dims(self):
        return LOSS_DIMS if self.loss else DIMS

    def rand_shape(self, rank):
        return [self.rng.choice(self.dims) for _ in range(rank)]

    def add_arg(self, shape, spec_prob=0.75):
        name = f"%a{len(self.args)}"
        spec = (self.rand_spec(len(shape), partial_ok=True)
                if self.rng.random() < spec_prob else None)
        self.args.append((name, list(shape), spec))
        self.values.append((name, list(shape)))
        is_p = bool(spec) and "P(" in spec
        for kind in ("sum", "avg", "max", "min"):
            if spec and f"P({kind})" in spec:
                self.tags.add(f"p{kind}-arg")
        self.partial[name] = is_p
        self.exact[name] = not is_p
        return name

    def pick(self, pred=lambda s: True):
        """A value whose shape satisfies pred, biased to recent ones."""
        cands = [v for v in self.values if pred(v[1])]
        if not cands:
            return None
        # Weight (i+1)^2: later values are likelier, earlier ones still possible.
        weights = [(i + 1) ** 2 for i in range(len(cands))]
        v = self.rng.choices(cands, weights=weights)[0]
        self.used.add(v[0])
        return v

    def define(self, shape, partial=False, exact=False):
        name = self.fresh()
        self.values.append((name, list(shape)))
        self.partial[name] = partial
        self.exact[name] = exact
        return name

    def w(self, line):
        self.body.append("  " + line)

    def zero_init(self, shape, init="%c0"):
        e = self.fresh("e")
        z = self.fresh("z")
        t = self.t(shape)
        self.w(f"{e} = tensor.empty() : {t}")
        self.w(f"{z} = linalg.fill ins({init} : {self.elt}) outs({e} : {t}) -> {t}")
        return z

    def empty(self, shape):
        e = self.fresh("e")
        self.w(f"{e} = tensor.empty() : {self.t(shape)}")
        return e

    def operand_like(self, shape, p_reuse=0.6):
        """An existing value of exactly `shape`, or a new argument."""
        v = None
        if self.rng.random() < p_reuse:
            v = self.pick(lambda s: s == list(shape))
        if v is None:
            return self.add_arg(shape), list(shape)
        return v

    def not_partial(self, v):
        """With --exclude-known-open, a value that may be partial is first
        redistributed to S/R placements (nonlinear uses of partials are a
        known-open class)."""
        name, shape = v
        if not self.partial.get(name):
            return v
        if not self.exclude:
            self.tags.add("nonlinear-on-partial")
            return v
        r = self.fresh("r")
        self.values.append((r, list(shape)))
        self.partial[r] = False
        self.exact[r] = False
        self.w(f"{r} = dtensor.redistribute {name} to {self.rand_spec(len(shape))} : "
               f"{self.t(shape)}")
        return (r, list(shape))

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
            shape = [k, self.rng.choice(self.dims)]
            rhs = (self.add_arg(shape), shape)
        n = rhs[1][1]
        out = [m, n]
        z = self.zero_init(out)
        r = self.define(out, partial=True)
        self.w(f"{r} = linalg.matmul ins({lhs[0]}, {rhs[0]} : {self.t(lhs[1])}, {self.t(rhs[1])}) "
               f"outs({z} : {self.t(out)}) -> {self.t(out)}")
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
            shape = [b, k, self.rng.choice(self.dims)]
            rhs = (self.add_arg(shape), shape)
        n = rhs[1][2]
        out = [b, m, n]
        z = self.zero_init(out)
        r = self.define(out, partial=True)
        self.w(f"{r} = linalg.batch_matmul ins({lhs[0]}, {rhs[0]} : {self.t(lhs[1])}, "
               f"{self.t(rhs[1])}) outs({z} : {self.t(out)}) -> {self.t(out)}")
        return True

    def op_elementwise(self):
        a = self.pick(lambda s: len(s) >= 1)
        if a is None:
            return False
        b = self.operand_like(a[1])
        if self.rng.random() < 0.5:
            a, b = b, a
        if self.is_int:
            op = self.rng.choice(["addi", "muli", "subi", "maxsi"])
        else:
            op = self.rng.choice(["addf", "mulf", "subf", "maximumf"])
        part = self.partial[a[0]] or self.partial[b[0]]
        r = self.define(a[1], partial=part, exact=self.exact[a[0]] and self.exact[b[0]])
        self.w(f"{r} = arith.{op} {a[0]}, {b[0]} : {self.t(a[1])}")
        return True

    def op_relu(self):
        a = self.pick(lambda s: len(s) >= 1)
        if a is None:
            return False
        rank = len(a[1])
        t = self.t(a[1])
        e = self.empty(a[1])
        r = self.define(a[1], partial=self.partial[a[0]], exact=self.exact[a[0]])
        its = ", ".join(['"parallel"'] * rank)
        m = ident_map(rank)
        mx = "arith.maxsi" if self.is_int else "arith.maximumf"
        self.w(f"{r} = linalg.generic {{indexing_maps = [{m}, {m}], iterator_types = [{its}]}} "
               f"ins({a[0]} : {t}) outs({e} : {t}) {{")
        self.w(f"^bb0(%in: {self.elt}, %out: {self.elt}):")
        self.w(f"  %m = {mx} %in, %c0 : {self.elt}")
        self.w(f"  linalg.yield %m : {self.elt}")
        self.w(f"}} -> {t}")
        return True

    def op_reduce(self, kind="sum"):
        a = self.pick(lambda s: len(s) >= 2)
        if a is None:
            return False
        if kind == "max":
            a = self.not_partial(a)
        d = self.rng.randrange(len(a[1]))
        out = a[1][:d] + a[1][d + 1:]
        if kind == "max":
            init = "%cmin"
            op = "arith.maxsi" if self.is_int else "arith.maximumf"
        else:
            init = "%c0"
            op = "arith.addi" if self.is_int else "arith.addf"
        z = self.zero_init(out, init)
        r = self.define(out, partial=True)
        self.w(f"{r} = linalg.reduce ins({a[0]} : {self.t(a[1])}) outs({z} : {self.t(out)}) "
               f"dimensions = [{d}]")
        self.w(f"  (%in: {self.elt}, %acc: {self.elt}) {{")
        self.w(f"    %s = {op} %in, %acc : {self.elt}")
        self.w(f"    linalg.yield %s : {self.elt}")
        self.w("  }")
        if kind == "max" and self.exclude:
            # A P(max) result used by a later op: the P(max) -> P(sum)
            # redistribution is the known-open class 2; pin S/R here.
            self.partial[r] = False
            rr = self.fresh("r")
            self.values.append((rr, list(out)))
            self.partial[rr] = False
            self.exact[rr] = False
            self.w(f"{rr} = dtensor.redistribute {r} to {self.rand_spec(len(out))} : "
                   f"{self.t(out)}")
            # Only the redistributed value is used later.
            self.values = [v for v in self.values if v[0] != r]
        return True

    def op_reduce_max(self):
        return self.op_reduce("max")

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
        r = self.define(out, partial=self.partial[a[0]], exact=self.exact[a[0]])
        self.w(f"{r} = linalg.transpose ins({a[0]} : {self.t(a[1])}) outs({e} : {self.t(out)}) "
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
        out = [_prod(a[1][i] for i in g) for g in groups]
        reass = "[" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups) + "]"
        r = self.define(out, partial=self.partial[a[0]], exact=self.exact[a[0]])
        self.w(f"{r} = tensor.collapse_shape {a[0]} {reass} : {self.t(a[1])} into {self.t(out)}")
        return True

    def even(self, shape):
        """Every dim a multiple of the number of devices: no placement of the
        mesh shards it unevenly."""
        return all(x % self.devices == 0 for x in shape)

    def expand_factors(self, shape, d):
        """Outer factors f of a split shape[d] -> [f, shape[d]/f] this program
        may use. With --exclude-known-open only splits whose result is even
        (an expand_shape with an unevenly sharded dim is a known-open class:
        the partitioner rejects it)."""
        n = shape[d]
        fs = [f for f in range(2, n) if n % f == 0]
        if self.exclude and not self.classic:
            fs = [f for f in fs
                  if self.even(shape[:d] + [f, n // f] + shape[d + 1:])]
        return fs

    def op_expand(self):
        def dims_of(s):
            if not 1 <= len(s) < MAX_RANK:
                return []
            return [i for i, x in enumerate(s)
                    if x >= 4 and not _is_prime(x) and self.expand_factors(s, i)]
        a = self.pick(lambda s: bool(dims_of(s)))
        if a is None:
            return False
        shape = a[1]
        d = self.rng.choice(dims_of(shape))
        n = shape[d]
        fs = self.expand_factors(shape, d)
        if not self.classic:
            # Prefer a split with an uneven result half the time.
            uneven = [f for f in fs
                      if not self.even(shape[:d] + [f, n // f] + shape[d + 1:])]
            if uneven and self.rng.random() < 0.5:
                fs = uneven
        f = self.rng.choice(fs)
        out = shape[:d] + [f, n // f] + shape[d + 1:]
        if not self.even(out):
            self.tags.add("uneven-expand")
        groups, j = [], 0
        for i in range(len(shape)):
            if i == d:
                groups.append([j, j + 1])
                j += 2
            else:
                groups.append([j])
                j += 1
        reass = "[" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups) + "]"
        r = self.define(out, partial=self.partial[a[0]], exact=self.exact[a[0]])
        self.w(f"{r} = tensor.expand_shape {a[0]} {reass} output_shape [{', '.join(map(str, out))}] "
               f": {self.t(shape)} into {self.t(out)}")
        return True

    def op_softmax(self):
        if self.is_int:
            return False
        a = self.pick(lambda s: len(s) >= 1)
        if a is None:
            return False
        a = self.not_partial(a) if not self.classic else a
        d = self.rng.randrange(len(a[1]))
        t = self.t(a[1])
        e = self.empty(a[1])
        r = self.define(a[1])
        self.w(f"{r} = linalg.softmax dimension({d}) ins({a[0]} : {t}) outs({e} : {t}) -> {t}")
        return True

    def op_generic(self):
        """An elementwise linalg.generic with one of BODIES."""
        cls = "i" if self.is_int else "f"
        bodies = LOSS_BODIES if self.loss else [b for b in BODIES if b[2] == cls]
        name, nin, _, lines, res, linear, naninf, tags = self.rng.choice(bodies)
        if naninf:
            # Non-finite data only from exactly computed values (see the
            # module docstring).
            a = self.pick(lambda s: len(s) >= 1)
            if a is None or not self.exact[a[0]]:
                cands = [v for v in self.values if self.exact.get(v[0]) and len(v[1]) >= 1]
                if not cands:
                    return False
                a = self.rng.choice(cands)
        else:
            a = self.pick(lambda s: len(s) >= 1)
            if a is None:
                return False
        ins = [a]
        if nin == 2:
            ins.append(self.operand_like(a[1]))
            if self.rng.random() < 0.5:
                ins.reverse()
        if not linear:
            ins = [self.not_partial(v) for v in ins]
        self.tags |= tags
        shape = ins[0][1]
        rank = len(shape)
        t = self.t(shape)
        e = self.empty(shape)
        part = any(self.partial[v[0]] for v in ins)
        exact = all(self.exact[v[0]] for v in ins)
        r = self.define(shape, partial=part, exact=exact)
        m = ident_map(rank)
        its = ", ".join(['"parallel"'] * rank)
        maps = ", ".join([m] * (nin + 1))
        names = ", ".join(v[0] for v in ins)
        types = ", ".join([t] * nin)
        blockargs = ", ".join([f"%in: {self.elt}"] + ([f"%in2: {self.elt}"] if nin == 2 else [])
                              + [f"%out: {self.elt}"])
        self.w(f"{r} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}} "
               f"ins({names} : {types}) outs({e} : {t}) {{  // {name}")
        self.w(f"^bb0({blockargs}):")
        for line in lines:
            self.w("  " + line.format(e=self.elt))
        self.w(f"  linalg.yield {res} : {self.elt}")
        self.w(f"}} -> {t}")
        return True

    def generic_text(self, r, ins, shape, body, e):
        """Lines of an elementwise linalg.generic `r` = body(ins) into `e`."""
        name, nin, _, lines, res, _, _, _ = body
        rank = len(shape)
        t = self.t(shape)
        m = ident_map(rank)
        its = ", ".join(['"parallel"'] * rank)
        maps = ", ".join([m] * (nin + 1))
        blockargs = ", ".join([f"%in: {self.elt}"] + ([f"%in2: {self.elt}"] if nin == 2 else [])
                              + [f"%out: {self.elt}"])
        out = [f"{r} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}} "
               f"ins({', '.join(ins)} : {', '.join([t] * nin)}) outs({e} : {t}) {{  // {name}",
               f"^bb0({blockargs}):"]
        out += ["  " + line.format(e=self.elt) for line in lines]
        out += [f"  linalg.yield {res} : {self.elt}", f"}} -> {t}"]
        return out

    def op_call(self):
        """--loss: a call of a helper function holding one generic op."""
        a = self.pick(lambda s: len(s) >= 1)
        if a is None:
            return False
        body = self.rng.choice(LOSS_BODIES)
        ins = [a] + ([self.operand_like(a[1])] if body[1] == 2 else [])
        shape, t = a[1], self.t(a[1])
        k = len(self.helpers)
        params = [f"%x{i}: {t}" for i in range(len(ins))]
        text = [f"func.func @helper{k}({', '.join(params)}) -> {t} {{",
                "  %c0 = arith.constant 0.0 : f32", "  %c1 = arith.constant 1.0 : f32",
                "  %chalf = arith.constant 0.5 : f32",
                f"  %e = tensor.empty() : {t}"]
        text += ["  " + line for line in self.generic_text(
            "%r", [f"%x{i}" for i in range(len(ins))], shape, body, "%e")]
        text += [f"  return %r : {t}", "}", ""]
        self.helpers.append("\n".join(text))
        self.tags.add("call")
        r = self.define(shape)
        self.w(f"{r} = func.call @helper{k}({', '.join(v[0] for v in ins)}) : "
               f"({', '.join([t] * len(ins))}) -> {t}")
        return True

    def op_loop(self):
        """--loss: an scf.for of 1-3 iterations carrying a value through a
        bounded body that also reads a value from above."""
        a = self.pick(lambda s: len(s) >= 1)
        if a is None:
            return False
        c = self.operand_like(a[1])
        shape, t = a[1], self.t(a[1])
        n = self.rng.randint(1, 3)
        lb, ub, st = self.fresh("i"), self.fresh("i"), self.fresh("i")
        self.w(f"{lb} = arith.constant 0 : index")
        self.w(f"{ub} = arith.constant {n} : index")
        self.w(f"{st} = arith.constant 1 : index")
        r = self.define(shape)
        iv, h, e, g = self.fresh("iv"), self.fresh("h"), self.fresh("e"), self.fresh("g")
        self.w(f"{r} = scf.for {iv} = {lb} to {ub} step {st} iter_args({h} = {a[0]}) -> ({t}) {{")
        self.w(f"  {e} = tensor.empty() : {t}")
        body = ("loop-body", 2, "f", ["%b1 = arith.mulf %in, %in2 : {e}", "%b2 = math.tanh %b1 : {e}",
                                      "%b3 = arith.mulf %in, %chalf : {e}",
                                      "%b4 = arith.addf %b2, %b3 : {e}"], "%b4", False, False, set())
        for line in self.generic_text(g, [h, c[0]], shape, body, e):
            self.w("  " + line)
        self.w(f"  scf.yield {g} : {t}")
        self.w("}")
        self.tags.add("loop")
        return True

    def op_if(self):
        """--loss: an scf.if on the first element of a fresh argument that is
        never a parameter (so finite differences never cross the branch),
        both branches reading a value from above."""
        a = self.pick(lambda s: len(s) >= 1)
        if a is None:
            return False
        c = self.operand_like(a[1])
        shape, t = a[1], self.t(a[1])
        k = self.add_arg([self.rng.choice(self.dims)])
        self.no_param.add(k)
        z, zf, x0, cond = self.fresh("i"), self.fresh("f"), self.fresh("x"), self.fresh("c")
        self.w(f"{z} = arith.constant 0 : index")
        self.w(f"{zf} = arith.constant 0.0 : {self.elt}")
        self.w(f"{x0} = tensor.extract {k}[{z}] : {self.t(self.args[-1][1])}")
        self.w(f"{cond} = arith.cmpf ogt, {x0}, {zf} : {self.elt}")
        r = self.define(shape)
        self.w(f"{r} = scf.if {cond} -> ({t}) {{")
        branches = [
            ("if-then", 2, "f", ["%b1 = arith.mulf %in, %in2 : {e}", "%b2 = math.tanh %b1 : {e}"],
             "%b2", False, False, set()),
            ("if-else", 2, "f", ["%b1 = arith.mulf %in, %chalf : {e}", "%b2 = arith.addf %b1, %in2 : {e}"],
             "%b2", False, False, set()),
        ]
        for i, body in enumerate(branches):
            if i:
                self.w("} else {")
            e, g = self.fresh("e"), self.fresh("g")
            self.w(f"  {e} = tensor.empty() : {t}")
            for line in self.generic_text(g, [a[0], c[0]], shape, body, e):
                self.w("  " + line)
            self.w(f"  scf.yield {g} : {t}")
        self.w("}")
        self.tags.add("if")
        return True

    CLASSIC_OPS = [
        ("matmul", 4), ("batch_matmul", 2), ("elementwise", 4), ("relu", 2),
        ("reduce", 1), ("transpose", 2), ("collapse", 1), ("expand", 1),
        ("softmax", 1),
    ]
    OPS = CLASSIC_OPS + [("generic", 5), ("reduce_max", 1)]
    LOSS_OPS = [
        ("matmul", 3), ("batch_matmul", 1), ("elementwise", 3), ("relu", 2),
        ("reduce", 1), ("reduce_max", 1), ("transpose", 2), ("collapse", 1),
        ("expand", 1), ("softmax", 1), ("generic", 5), ("call", 1), ("loop", 1),
        ("if", 1),
    ]

    # -- program ------------------------------------------------------------
    def generate(self):
        rng = self.rng
        for _ in range(rng.randint(2, 4)):
            rank = rng.choices([1, 2, 3], weights=[1, 5, 3])[0]
            self.add_arg(self.rand_shape(rank))
        n_ops = rng.randint(3, 15) if self.loss else rng.randint(5, 25)
        ops = self.CLASSIC_OPS if self.classic else self.LOSS_OPS if self.loss else self.OPS
        names = [o for o, _ in ops]
        weights = [w for _, w in ops]
        done = 0
        tries = 0
        while done < n_ops and tries < 1000:
            tries += 1
            kind = rng.choices(names, weights=weights)[0]
            if getattr(self, "op_" + kind)():
                done += 1
            elif kind in ("matmul", "batch_matmul", "reduce", "transpose", "collapse"):
                # Nothing of a fitting rank yet: bring one in as an argument.
                rank = 3 if kind == "batch_matmul" else 2
                self.add_arg(self.rand_shape(rank))
        if self.loss:
            return self.finish_loss()
        # Return 1-2 of the last values defined by ops.
        defined = [v for v in self.values if not v[0].startswith("%a")]
        n_ret = min(len(defined), rng.randint(1, 2))
        rets = defined[-n_ret:]
        res = []
        for _, shape in rets:
            if rng.random() < 0.5:
                res.append(f"{self.t(shape)} {{dtensor.spec = {self.rand_spec(len(shape))}}}")
            else:
                res.append(self.t(shape))
        out = []
        if len(self.mesh) == 1:
            out.append(f'dtensor.mesh @mesh = <["x" = {self.mesh[0]}]>')
        else:
            out.append(f'dtensor.mesh @mesh = <["dp" = {self.mesh[0]}, "tp" = {self.mesh[1]}]>')
        out.append("")
        out.append(f"// seed {self.seed}")
        if not self.classic:
            tags = sorted(self.tags | {"dtype-" + self.elt})
            out.append(f"// features: {' '.join(tags)}")
        arglines = []
        for name, shape, spec in self.args:
            attr = f" {{dtensor.spec = {spec}}}" if spec else ""
            arglines.append(f"    {name}: {self.t(shape)}{attr}")
        out.append("func.func @prog(")
        out.append(",\n".join(arglines) + ")")
        out.append(f"    -> ({', '.join(res)}) {{")
        if self.classic:
            out.append("  %c0 = arith.constant 0.0 : f32")
        elif self.is_int:
            out.append(f"  %c0 = arith.constant 0 : {self.elt}")
            out.append(f"  %cmin = arith.constant {INT_MIN[self.elt]} : {self.elt}")
            out.append(f"  %cbigmul = arith.constant {BIG_MUL[self.elt]} : {self.elt}")
            out.append(f"  %cbigadd = arith.constant {BIG_ADD[self.elt]} : {self.elt}")
        else:
            out.append("  %c0 = arith.constant 0.0 : f32")
            out.append("  %c1 = arith.constant 1.0 : f32")
            out.append("  %chalf = arith.constant 0.5 : f32")
            out.append(f"  %cmin = arith.constant {F32_MIN} : f32")
        out.extend(self.body)
        out.append(f"  return {', '.join(v[0] for v in rets)} : "
                   f"{', '.join(self.t(v[1]) for v in rets)}")
        out.append("}")
        return "\n".join(out) + "\n"


    def finish_loss(self):
        """--loss: the sum of sum(v * v) over the values no op uses (the
        leaves of the DAG), accumulated through the reductions' inits."""
        rng = self.rng
        defined = [v for v in self.values if not v[0].startswith("%a")]
        leaves = [v for v in defined if v[0] not in self.used] or [self.values[-1]]
        names = [a[0] for a in self.args]
        allowed = [i for i in range(len(self.args)) if names[i] not in self.no_param]
        params = [i for i in allowed if rng.random() < 0.7]
        if not params:
            params = [rng.choice(allowed)]
        l = self.zero_init([])
        for v in leaves:
            rank = len(v[1])
            acc = l
            l = self.fresh("loss")
            ds = ", ".join(f"d{i}" for i in range(rank))
            its = ", ".join(['"reduction"'] * rank)
            self.w(f"{l} = linalg.generic {{indexing_maps = [{ident_map(rank)}, "
                   f"affine_map<({ds}) -> ()>], iterator_types = [{its}]}} "
                   f"ins({v[0]} : {self.t(v[1])}) outs({acc} : tensor<f32>) {{")
            self.w("^bb0(%in: f32, %acc: f32):")
            self.w("  %sq = arith.mulf %in, %in : f32")
            self.w("  %s = arith.addf %acc, %sq : f32")
            self.w("  linalg.yield %s : f32")
            self.w("} -> tensor<f32>")
        out = []
        if len(self.mesh) == 1:
            out.append(f'dtensor.mesh @mesh = <["x" = {self.mesh[0]}]>')
        else:
            out.append(f'dtensor.mesh @mesh = <["dp" = {self.mesh[0]}, "tp" = {self.mesh[1]}]>')
        out.append("")
        out.append(f"// seed {self.seed} (--loss)")
        out.append(f"// features: {' '.join(sorted(self.tags | {'loss'}))}")
        out.extend(self.helpers)
        arglines = []
        for i, (name, shape, spec) in enumerate(self.args):
            attrs = ([f'dtensor.param = "p{i}"'] if i in params else []) + \
                ([f"dtensor.spec = {spec}"] if spec else [])
            attr = f" {{{', '.join(attrs)}}}" if attrs else ""
            arglines.append(f"    {name}: {self.t(shape)}{attr}")
        out.append("func.func @prog(")
        out.append(",\n".join(arglines) + ")")
        out.append("    -> tensor<f32> {")
        out.append("  %c0 = arith.constant 0.0 : f32")
        out.append("  %c1 = arith.constant 1.0 : f32")
        out.append("  %chalf = arith.constant 0.5 : f32")
        out.append(f"  %cmin = arith.constant {F32_MIN} : f32")
        out.extend(self.body)
        out.append(f"  return {l} : tensor<f32>")
        out.append("}")
        return "\n".join(out) + "\n"


def _is_prime(n):
    return n > 1 and all(n % p for p in range(2, int(n ** 0.5) + 1))


def generate(seed, exclude_known_open=False, run_meshes=False, classic=False, loss=False):
    return Gen(seed, exclude_known_open, run_meshes, classic, loss).generate()


def mesh_devices(seed, run_meshes=False):
    """The number of devices of the mesh of program `seed` (the mesh is the
    first draw of the generator, so it does not depend on the other options)."""
    return _prod(random.Random(seed).choice(RUN_MESHES if run_meshes else MESHES))


def parse_range(s):
    """Seeds from `A:B` (half open) or `N` (0:N), for the checkers."""
    if ":" in s:
        a, b = s.split(":")
        return range(int(a), int(b))
    return range(int(s))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--run-meshes", action="store_true",
                    help="only meshes of 2 or 4 devices (2, 4, 2x2)")
    ap.add_argument("--exclude-known-open", action="store_true",
                    help="avoid the known-open classes of issue 9 (see above)")
    ap.add_argument("--classic", action="store_true",
                    help="the programs of the first version (f32, S/R, no new bodies)")
    ap.add_argument("--loss", action="store_true",
                    help="a loss function for --grad-check (see above)")
    a = ap.parse_args(argv)
    text = generate(a.seed, a.exclude_known_open, a.run_meshes, a.classic, a.loss)
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()

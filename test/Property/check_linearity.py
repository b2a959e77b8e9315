#!/usr/bin/env python3
"""Brute-force check of the rule that lets partial values pass through a
pointwise body.

For every seed, build one `linalg.generic` with a random scalar body (a DAG
of addf, subf, mulf, divf, negf, maximumf, minimumf, math.exp, select over
cmpf, and constants, with repeated uses of the same block argument) over 1-3
inputs placed P(sum), P(max) or R on a mesh of 2, and propagate all of them
in one `dtensor-opt --dtensor-fake-propagate` run (both strategies).

From the propagated IR, take the placement each input has where the generic
reads it (its argument spec, or the target of the `dtensor.redistribute`
that feeds it) and the generic's result placement, and simulate that plan
exactly in float64 on 2 ranks: a P(sum) input is split into two random
parts that add up to it, a P(max) input is held whole by one rank and
smaller elsewhere, an R input is whole on both ranks; each rank evaluates
the body on its local values, and a partial result is reduced. The plan is
correct when the simulated result equals the body evaluated on the global
values (1e-9 relative) for several random draws.

Prints `bodies: N kept_partial: K wrong: W` (K counts plans that keep a
partial placement through the body, so the check is not vacuous) and exits
1 when W > 0, printing the offending functions.

Usage: check_linearity.py --opt PATH/dtensor-opt --seeds 0:300
"""

import argparse
import math
import random
import re
import subprocess
import sys

BINARY = ["addf", "subf", "mulf", "divf", "maximumf", "minimumf"]
UNARY = ["negf", "exp"]
CONSTS = [0.0, 0.5, 2.0]


def gen_body(rng, num_args):
    """Returns (lines, result_name, ops) where ops evaluates the body."""
    values = [("arg", i) for i in range(num_args)]
    names = ["%%in%d" % i for i in range(num_args)]
    lines, ops = [], []
    for n in range(rng.randint(1, 4)):
        kind = rng.random()
        name = "%%v%d" % n
        pick = lambda: rng.randrange(len(names))
        if kind < 0.15:
            c = rng.choice(CONSTS)
            lines.append("%s = arith.constant %s : f64" % (name, repr(float(c))))
            ops.append(("const", c))
        elif kind < 0.3:
            op = rng.choice(UNARY)
            a = pick()
            dialect = "math" if op == "exp" else "arith"
            lines.append("%s = %s.%s %s : f64" % (name, dialect, op, names[a]))
            ops.append((op, a))
        elif kind < 0.4:
            a, b, x, y = pick(), pick(), pick(), pick()
            cname = "%%c%d" % n
            lines.append("%s = arith.cmpf olt, %s, %s : f64" % (cname, names[a], names[b]))
            lines.append("%s = arith.select %s, %s, %s : f64" % (name, cname, names[x], names[y]))
            ops.append(("select", a, b, x, y))
        else:
            op = rng.choice(BINARY)
            a, b = pick(), pick()
            lines.append("%s = arith.%s %s, %s : f64" % (name, op, names[a], names[b]))
            ops.append((op, a, b))
        names.append(name)
    return lines, names[-1], ops


def evaluate(ops, args):
    vals = list(args)
    for o in ops:
        k = o[0]
        if k == "const":
            vals.append(o[1])
        elif k == "negf":
            vals.append(-vals[o[1]])
        elif k == "exp":
            vals.append(math.exp(min(vals[o[1]], 50.0)))
        elif k == "select":
            _, a, b, x, y = o
            vals.append(vals[x] if vals[a] < vals[b] else vals[y])
        else:
            a, b = vals[o[1]], vals[o[2]]
            vals.append({"addf": a + b, "subf": a - b, "mulf": a * b,
                         "divf": a / b if b != 0 else float("inf"),
                         "maximumf": max(a, b), "minimumf": min(a, b)}[k])
    return vals[-1]


def gen_function(rng, seed):
    num_args = rng.randint(1, 3)
    placements = [rng.choice(["P(sum)", "P(sum)", "P(max)", "R"]) for _ in range(num_args)]
    if all(p == "R" for p in placements):
        placements[0] = "P(sum)"
    lines, result, ops = gen_body(rng, num_args)
    args = ", ".join("%%x%d: tensor<4xf64> {dtensor.spec = #dtensor.spec<@mesh, [%s]>}" % (i, p)
                     for i, p in enumerate(placements))
    ins = ", ".join("%%x%d" % i for i in range(num_args))
    ins_types = ", ".join("tensor<4xf64>" for _ in range(num_args))
    maps = ", ".join(["#id"] * (num_args + 1))
    bb = ", ".join(["%%in%d: f64" % i for i in range(num_args)] + ["%out: f64"])
    body = "\n".join("    " + l for l in lines)
    text = f"""func.func @f{seed}({args}) -> (tensor<4xf64> {{dtensor.spec = #dtensor.spec<@mesh, [R]>}}) {{
  %e = tensor.empty() : tensor<4xf64>
  %y = linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel"]}} ins({ins} : {ins_types}) outs(%e : tensor<4xf64>) {{
  ^bb0({bb}):
{body}
    linalg.yield {result} : f64
  }} -> tensor<4xf64>
  return %y : tensor<4xf64>
}}
"""
    return text, placements, ops


SPEC = re.compile(r"#dtensor\.spec<@mesh, \[([^\]]*)\]>")


def parse_plans(ir):
    """Per function: (placement of each generic input, result placement)."""
    plans = {}
    for m in re.finditer(r"func\.func @(f\d+)\((.*?)\) ->(.*?)\n  \}\n", ir, re.S):
        name, sig, body = m.group(1), m.group(2), m.group(3)
        place = {}
        for a in re.finditer(r"(%arg\d+): tensor<4xf64> \{dtensor\.spec = #dtensor\.spec<@mesh, \[([^\]]*)\]>", sig):
            place[a.group(1)] = a.group(2)
        for r in re.finditer(r"(%\d+) = dtensor\.redistribute (%\w+) to " + SPEC.pattern, body):
            place[r.group(1)] = r.group(3)
        g = re.search(r"linalg\.generic .*? ins\(([^:]*):.*?dtensor\.specs = \[" + SPEC.pattern, body)
        if not g:
            continue
        inputs = [place.get(v.strip(), "R") for v in g.group(1).split(",")]
        plans[name] = (inputs, g.group(2))
    return plans


def split(rng, value, placement):
    """Local values of a global scalar on 2 ranks."""
    if placement == "R":
        return [value, value]
    if placement == "P(sum)":
        u = rng.uniform(0.2, 0.8)
        return [value * u, value * (1 - u)]
    if placement == "P(max)":
        other = value - rng.uniform(0.1, 1.0)
        return [value, other] if rng.random() < 0.5 else [other, value]
    raise ValueError(placement)


def combine(locals_, placement):
    if placement == "R":
        return locals_[0] if math.isclose(locals_[0], locals_[1], rel_tol=1e-12, abs_tol=1e-12) else float("nan")
    if placement == "P(sum)":
        return locals_[0] + locals_[1]
    if placement == "P(max)":
        return max(locals_)
    if placement == "P(min)":
        return min(locals_)
    if placement == "P(avg)":
        return (locals_[0] + locals_[1]) / 2
    raise ValueError(placement)


def plan_is_correct(rng, ops, placements_in, placement_out):
    for _ in range(8):
        globals_ = [rng.uniform(0.5, 1.5) for _ in placements_in]
        want = evaluate(ops, globals_)
        parts = [split(rng, g, p) for g, p in zip(globals_, placements_in)]
        per_rank = [evaluate(ops, [p[r] for p in parts]) for r in range(2)]
        got = combine(per_rank, placement_out)
        if not (math.isfinite(want) and math.isfinite(got)):
            if math.isfinite(want) != math.isfinite(got):
                return False
            continue
        if not math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
            return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--opt", required=True)
    ap.add_argument("--seeds", default="0:300")
    args = ap.parse_args()
    lo, hi = map(int, args.seeds.split(":"))
    funcs, meta = [], {}
    for seed in range(lo, hi):
        text, placements, ops = gen_function(random.Random(seed), seed)
        funcs.append(text)
        meta["f%d" % seed] = (placements, ops, text)
    module = ("dtensor.mesh @mesh = <[\"x\" = 2]>\n#id = affine_map<(d0) -> (d0)>\n"
              + "\n".join(funcs))
    total = kept = wrong = 0
    for strategy in ("pytorch", "global"):
        proc = subprocess.run([args.opt, "-", "--dtensor-fake-propagate=strategy=" + strategy],
                              input=module, capture_output=True, text=True)
        if proc.returncode != 0:
            print("dtensor-opt failed (strategy=%s):\n%s" % (strategy, proc.stderr[-3000:]))
            return 1
        plans = parse_plans(proc.stdout)
        for name, (placements, ops, text) in meta.items():
            total += 1
            if name not in plans:
                print("no plan found for @%s (strategy=%s)" % (name, strategy))
                wrong += 1
                continue
            inputs, result = plans[name]
            if result != "R":
                kept += 1
            rng = random.Random(name + strategy)
            if not plan_is_correct(rng, ops, inputs, result):
                wrong += 1
                print("wrong plan (strategy=%s): inputs %s -> result %s\n%s"
                      % (strategy, inputs, result, text))
    print("bodies: %d kept_partial: %d wrong: %d" % (total, kept, wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())

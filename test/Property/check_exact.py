#!/usr/bin/env python3
"""Property check of the exact planner (strategy=exact) against brute force.

For every seed in a range, generate a small random program (3 to 5 ops:
matmul, addf, mulf, negf, exp on square tensors, arguments in random
placements on a 1-D mesh of 2 or 4) and

1. plan it with strategy=exact (`--dtensor-fake-report`, JSON,
   compare-pytorch=1) and require that the plan is proven optimal and costs
   at most PyTorch's (+1e-6);
2. brute force: pin every op's result (`dtensor.specs`) to every combination
   of R, S(0), S(1) and P(sum), one function per combination in one
   `--split-input-file` run under strategy=pytorch (each pinned op then takes
   its cheapest strategy producing the pin), and require that the exact plan
   costs at most the cheapest combination the analysis accepts (+1e-6).

Prints one summary line:
  programs: N below_pytorch: G below_brute: B equal: E worse: W unproven: U
(below_pytorch: strictly cheaper than PyTorch's plan; equal: as cheap as
the brute force's best; worse counts every failure).
and a FAIL line per failing seed (its program in --out-dir).
"""

import argparse
import concurrent.futures
import itertools
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_random  # noqa: E402  (parse_range, shared by the checkers)

PLACEMENTS = ["R", "S(0)", "S(1)", "P(sum)"]


def spec(p):
    return "#dtensor.spec<@mesh, [%s]>" % p


def generate(seed):
    """(mesh size, args [(name, placement)], ops [(result, text-template)])."""
    rng = random.Random(seed)
    n = rng.choice([8, 12, 16])
    mesh = rng.choice([2, 4])
    t = "tensor<%dx%dxf32>" % (n, n)
    args = []
    for i in range(rng.randint(2, 3)):
        args.append(("%%a%d" % i, rng.choice(PLACEMENTS + ["R"])))
    pool = [a for a, _ in args]
    ops = []
    for i in range(rng.randint(3, 5)):
        kind = rng.choice(["matmul", "addf", "mulf", "negf", "exp", "matmul"])
        x, y = rng.choice(pool), rng.choice(pool)
        r = "%%v%d" % i
        if kind == "matmul":
            body = ("%%e{i} = tensor.empty() : {t}\n"
                    "  %%z{i} = linalg.fill ins(%%c0 : f32) outs(%%e{i} : {t}) -> {t}\n"
                    "  {r} = linalg.matmul {{PIN}} ins({x}, {y} : {t}, {t}) "
                    "outs(%%z{i} : {t}) -> {t}").format(i=i, t=t, r=r, x=x, y=y)
            body = body.replace("%%", "%")
        elif kind in ("negf", "exp"):
            dialect = "arith" if kind == "negf" else "math"
            body = "%s = %s.%s %s {PIN} : %s" % (r, dialect, kind, x, t)
        else:
            body = "%s = arith.%s %s, %s {PIN} : %s" % (r, kind, x, y, t)
        ops.append((r, body))
        pool.append(r)
    return mesh, n, args, ops


def render(name, mesh, n, args, ops, pins=None, ret_spec=None):
    t = "tensor<%dx%dxf32>" % (n, n)
    params = ", ".join("%s: %s {dtensor.spec = %s}" % (a, t, spec(p))
                       for a, p in args)
    lines = ["func.func @%s(%s) -> %s {" % (name, params, t),
             "  %c0 = arith.constant 0.0 : f32"]
    for i, (r, body) in enumerate(ops):
        pin = ("{dtensor.specs = [%s]}" % spec(pins[i])) if pins else ""
        lines.append("  " + body.replace("{PIN}", pin))
    lines.append("  return %s : %s" % (ops[-1][0], t))
    lines.append("}")
    return "\n".join(lines)


def mesh_decl(mesh):
    return 'dtensor.mesh @mesh = <["x" = %d]>' % mesh


def report(opt, text, strategy, split=False, budget=None):
    option = "format=json compare-pytorch=1 strategy=" + strategy
    if budget:
        option += " max-bytes-per-rank=%d" % budget
    cmd = [opt, "-", "--dtensor-fake-report=" + option, "-o", "/dev/null"]
    if split:
        cmd.insert(2, "--split-input-file")
    r = subprocess.run(cmd, input=text, capture_output=True, text=True,
                       timeout=600)
    docs, pos, out = [], 0, r.stdout
    dec = json.JSONDecoder()
    while True:
        while pos < len(out) and out[pos].isspace():
            pos += 1
        if pos >= len(out):
            break
        d, pos = dec.raw_decode(out, pos)
        docs.append(d)
    funcs = {f["name"]: f for d in docs for f in d["functions"]}
    return r.returncode, funcs, r.stderr


def check(opt, seed, out_dir):
    mesh, n, args, ops = generate(seed)
    prog = mesh_decl(mesh) + "\n" + render("prog", mesh, n, args, ops)
    rc, ex, err = report(opt, prog, "exact")
    if rc != 0:
        return "exact report failed: " + err.strip().splitlines()[0], prog
    e = ex["prog"]["totals"]["comm_cost_us"]
    g = ex["prog"]["totals"]["pytorch_comm_cost_us"]
    planner = ex["prog"].get("planner", {})
    chunks = []
    for i, pins in enumerate(itertools.product(PLACEMENTS, repeat=len(ops))):
        chunks.append(mesh_decl(mesh) + "\n" +
                      render("c%d" % i, mesh, n, args, ops, list(pins)))
    _, bf, _ = report(opt, "\n// -----\n".join(chunks), "pytorch", split=True)
    brute = min((f["totals"]["comm_cost_us"] for f in bf.values()),
                default=float("inf"))
    if e > g + 1e-6:
        return "exact %.4f above pytorch %.4f" % (e, g), prog
    if e > brute + 1e-6:
        return "exact %.4f above brute force %.4f" % (e, brute), prog
    return ("ok", e, brute, planner.get("proven_optimal", False), g), prog


def check_budget(opt, seed, out_dir):
    """Under a budget halfway between the least peak of the brute force's
    plans (every op's result pinned, strategy=exact) and the unconstrained
    exact plan's peak: strategy=exact with max-bytes-per-rank must find a
    plan that fits, at most as dear as the cheapest brute-force plan that
    fits. None when the budget is trivial."""
    mesh, n, args, ops = generate(seed)
    prog = mesh_decl(mesh) + "\n" + render("prog", mesh, n, args, ops)
    rc, ex, err = report(opt, prog, "exact")
    if rc != 0:
        return "exact report failed: " + err.strip().splitlines()[0], prog
    free_peak = max(ex["prog"]["totals"]["peak_bytes"])
    chunks = []
    for i, pins in enumerate(itertools.product(PLACEMENTS, repeat=len(ops))):
        chunks.append(mesh_decl(mesh) + "\n" +
                      render("c%d" % i, mesh, n, args, ops, list(pins)))
    # strategy=exact: the moves take the same (cheapest) steps as in the
    # planner's plans, whose temporaries differ from PyTorch's steps'.
    _, bf, _ = report(opt, "\n// -----\n".join(chunks), "exact", split=True)
    plans = [(f["totals"]["comm_cost_us"], max(f["totals"]["peak_bytes"]))
             for f in bf.values()]
    least = min(p for _, p in plans)
    if least >= free_peak:
        return None, prog
    budget = (least + free_peak) // 2
    brute = min(c for c, p in plans if p <= budget)
    rc, fx, err = report(opt, prog, "exact", budget=budget)
    if rc != 0:
        return ("missed: no plan within %d bytes, brute force %.4f" %
                (budget, brute)), prog
    f = fx["prog"]
    cost, peak = f["totals"]["comm_cost_us"], max(f["totals"]["peak_bytes"])
    if peak > budget:
        return "peak %d above the budget %d" % (peak, budget), prog
    if cost > brute + 1e-6:
        return ("worse: %.4f above brute force %.4f within %d bytes" %
                (cost, brute, budget)), prog
    return ("ok", cost, brute, f.get("planner", {}).get("under_budget", False)), prog


def report_failure(out_dir, seed, why, prog):
    """Keeps the failing program and prints its FAIL line."""
    path = os.path.join(out_dir, "seed_%d.mlir" % seed)
    with open(path, "w") as f:
        f.write(prog + "\n")
    print("FAIL seed %d: %s (%s)" % (seed, why, path))


def main_budget(a, seeds):
    fits = below = equal = worse = trivial = solved = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        results = list(ex.map(lambda s: check_budget(a.opt, s, a.out_dir), seeds))
    for seed, (res, prog) in zip(seeds, results):
        if res is None:
            trivial += 1
            continue
        if isinstance(res, str):
            worse += 1
            report_failure(a.out_dir, seed, res, prog)
            continue
        _, cost, brute, under = res
        fits += 1
        solved += under
        if cost < brute - 1e-6:
            below += 1
        else:
            equal += 1
    print("budget programs: %d trivial: %d fits: %d by_solver: %d below_brute: %d "
          "equal: %d worse: %d" % (len(seeds), trivial, fits, solved, below, equal, worse))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--opt", required=True)
    ap.add_argument("--seeds", default="0:100")
    ap.add_argument("--out-dir", default="/tmp/check_exact")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--budget", action="store_true",
                    help="check max-bytes-per-rank against brute force")
    a = ap.parse_args(argv)
    seeds = list(gen_random.parse_range(a.seeds))
    os.makedirs(a.out_dir, exist_ok=True)
    if a.budget:
        return main_budget(a, seeds)
    below = equal = worse = unproven = beats_global = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        results = list(ex.map(lambda s: check(a.opt, s, a.out_dir), seeds))
    for seed, (res, prog) in zip(seeds, results):
        if isinstance(res, str):
            worse += 1
            report_failure(a.out_dir, seed, res, prog)
            continue
        _, e, brute, proven, g = res
        beats_global += e < g - 1e-6
        if not proven:
            unproven += 1
            print("FAIL seed %d: not proven optimal" % seed)
        if e < brute - 1e-6:
            below += 1
        else:
            equal += 1
    print("programs: %d below_pytorch: %d below_brute: %d "
          "equal: %d worse: %d unproven: %d" %
          (len(seeds), beats_global, below, equal, worse, unproven))
    return 0


if __name__ == "__main__":
    sys.exit(main())

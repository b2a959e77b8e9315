#!/usr/bin/env python3
"""Property check of the whole-function (strategy=global) sharding plan.

For every seed in a range, generate a random program (gen_random.py) and

1. report it with `--dtensor-fake-report="format=json ... compare-pytorch=1"`
   and require, for every function, comm_cost_us <= pytorch_comm_cost_us + 1e-6
   (the global plan never costs more than PyTorch's op-by-op plan);
2. propagate it (`--dtensor-fake-propagate`, default strategy=global), report
   the propagated program and require, per function, that the plan
   materialises faithfully (`compare_reports`): the same comm_cost_us (within
   1e-6 relative), the same collectives (kind, mesh axes, placements, bytes),
   the same transitions (the plan's redistributions, those through R split
   in two at `through`, are the propagated program's explicit ones, all of
   them explicit, at the same cost each), and in both reports a total that
   is the sum of the redistributions' costs;
3. propagate the propagated program again and require textually identical
   output (propagation is a fixed point).

4. with --partition, partition it (`--dtensor-partition`) and require exit 0.

Every function with planned ops must have a lower bound
(`planner.lower_bound_us`) no higher than its cost; functions not proven
optimal (`planner.proven_optimal` false: the solver's time budget ran out)
are counted as `unproven` in the summary. --strategy exact checks the
planner without its rule on contractions.

The programs come from gen_random.py with its new bodies (repeated
operands, nonlinear ops on partials, integers, NaN/Inf data, uneven
expands); --exclude-known-open passes the generator's flag of that name
(avoid the classes of issue 9 that are open), --classic generates the
programs of the generator's first version.

By default one dtensor-opt run does the report of the program and its
propagation (report pass first: it only reads the IR), and a second run does
the same on the propagated program, so each seed costs two runs; --separate
runs each of the four steps on its own.

Any dtensor-opt exit status other than 0 is a failure.  Every failure line
ends with the program's `// features:` line (gen_random.py), for sorting
failures into classes.  Each failing
program is written to OUT_DIR/seed_<n>.mlir with a .log next to it that holds
the failing command and its message.

Prints one summary line:
  programs: N global_wins: W mean_saving_pct: X max_saving_pct: Y equal: E failures: F
where a win is a function with comm_cost_us strictly below (by more than
1e-6) pytorch_comm_cost_us, equal counts the others that pass check 1, and
the saving of a function is 100 * (pytorch - global) / pytorch (0 when the
pytorch plan costs nothing); mean and max are over all checked functions.
Exits 1 when there is a failure.

Usage:
  check_global.py --opt PATH/dtensor-opt --seeds 0:300 [--out-dir DIR] [-j N]
"""

import argparse
import concurrent.futures
import json
import os
import shlex
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_random  # noqa: E402

ABS_TOL = 1e-6
REL_TOL = 1e-6


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, b"", b"timeout after %d s" % timeout
    return p.returncode, p.stdout, p.stderr


def opt_run(opt, src, json_path, out_path, timeout, strategy="global"):
    """One dtensor-opt run: with json_path, report (compare-pytorch=1) to it;
    with out_path, then propagate (default strategy) and print to it.
    Returns ({function name: function report} or None, failure message or None)."""
    cmd = [opt, src]
    if json_path:
        cmd.append(f"--dtensor-fake-report=format=json output={json_path} "
                   f"compare-pytorch=1 strategy={strategy}")
    if out_path:
        cmd += [f"--dtensor-fake-propagate=strategy={strategy}", "-o", out_path]
    else:
        cmd += ["-o", os.devnull]
    rc, _, err = run(cmd, timeout)
    if rc != 0:
        return None, "exit %d: %s\n%s" % (rc, shlex.join(cmd), err.decode(errors="replace"))
    if not json_path:
        return None, None
    try:
        with open(json_path) as fh:
            funcs = json.load(fh).get("functions", [])
        return {f["name"]: f for f in funcs}, None
    except (OSError, ValueError, KeyError) as ex:
        return None, "bad report %s: %r (%s)" % (json_path, ex, shlex.join(cmd))


def close(a, b):
    return abs(a - b) <= max(ABS_TOL, REL_TOL * max(abs(a), abs(b)))


def transitions(func):
    """The (from, to) transitions of a report's redistributions with their
    cost: one through R counts as its two halves (as propagation writes
    them), at its total cost, which the halves share.  Transitions from a
    replicated value (free in the cost model) are left out: propagation may
    build a created value in place instead.  Each transition is keyed by the
    value's type too (global shape and dtype)."""
    types = {v.get("name"): (tuple(v["global_shape"]), v["dtype"])
             for v in func.get("values", [])}
    out = []
    for r in func.get("redistributions", []):
        ty = types.get(r["value"])
        mid = r.get("through")
        halves = [(r["from"], mid, ty), (mid, r["to"], ty)] if mid else [(r["from"], r["to"], ty)]
        halves = [h for h in halves if not replicated(h[0])]
        if halves:
            out.append((halves, r["cost_us"]))
    return out


def replicated(placements):
    return all(p == "R" for p in placements.strip("[]").split(", "))


def collectives(func):
    return sorted((c["kind"], tuple(c["mesh_axes"]), c["from"], c["to"], tuple(c["bytes"]))
                  for c in func.get("collectives", []))


def compare_reports(name, planned, prop):
    """Why the report of the propagated program `prop` differs from the
    plan's report `planned` for function `name`, or None."""
    for what, f in (("plan", planned), ("propagated program", prop)):
        total = sum(r["cost_us"] for r in f.get("redistributions", []))
        if not close(total, f["totals"]["comm_cost_us"]):
            return (f"@{name}: the {what} reports comm_cost_us "
                    f"{f['totals']['comm_cost_us']!r} but its redistributions cost {total!r}")
    a, b = planned["totals"]["comm_cost_us"], prop["totals"]["comm_cost_us"]
    if not close(a, b):
        return f"@{name}: planned cost {a!r} but the propagated program reports {b!r}"
    implicit = [r["value"] for r in prop.get("redistributions", []) if not r["explicit"]]
    if implicit:
        return f"@{name}: the propagated program still needs redistributions of {implicit}"
    if collectives(planned) != collectives(prop):
        return f"@{name}: the propagated program has other collectives than the plan"
    # Each planned transition is an explicit redistribution (or two, through
    # R) of the propagated program at the same cost.
    left = [(t[0], c) for t, c in transitions(prop)]
    for halves, cost in transitions(planned):
        found = 0.0
        for h in halves:
            match = next((i for i, (t, _) in enumerate(left) if t == h), None)
            if match is None:
                return (f"@{name}: planned transition {h[0]} -> {h[1]} is not an explicit "
                        "redistribution of the propagated program")
            found += left.pop(match)[1]
        if not close(found, cost):
            return (f"@{name}: planned transition {halves[0][0]} -> {halves[-1][1]} costs "
                    f"{cost!r} but {found!r} in the propagated program")
    if left:
        return (f"@{name}: the propagated program has redistributions the plan does not: "
                f"{[t for t, _ in left]}")
    return None


def features_of(prog):
    for line in prog.splitlines():
        if line.startswith("// features:"):
            return line[len("// features:"):].strip()
    return ""


def check_planner(t1):
    """Every planned function's lower bound at most its cost. Returns a
    failure message or None."""
    for name, f in t1.items():
        planner = f.get("planner")
        if planner is None:
            continue
        e = f["totals"]["comm_cost_us"]
        if not planner["lower_bound_us"] <= e + ABS_TOL:
            return f"@{name}: lower bound {planner['lower_bound_us']!r} above the cost {e!r}"
    return None


def check_seed(opt, seed, work, timeout, separate, gen_opts, partition,
               strategy="global"):
    """Returns (seed, [per-function (global, pytorch)], failure message or None, program).

    By default two dtensor-opt runs do the work: `report + propagate` on the
    program, then `report + propagate` on the propagated program (the report
    pass only reads the IR, so each propagate sees the parsed input as is).
    With `separate`, each report and each propagation is its own run."""
    prog = gen_random.generate(seed, **gen_opts)
    base = os.path.join(work, f"seed_{seed}")
    src, prop, prop2 = base + ".mlir", base + ".prop.mlir", base + ".prop2.mlir"
    j1, j2 = base + ".json", base + ".prop.json"
    with open(src, "w") as fh:
        fh.write(prog)

    def step(what, *a):
        t, err = opt_run(opt, *a, timeout, strategy)
        return t, (f"{what}: {err}" if err else None)

    # 1. report (and propagate) the program.
    if separate:
        t1, err = step("report", src, j1, None)
        if not err:
            _, err = step("propagate", src, None, prop)
    else:
        t1, err = step("report+propagate", src, j1, prop)
    if err:
        return seed, [], err, prog
    costs = []
    for name, f in t1.items():
        g, pt = f["totals"]["comm_cost_us"], f["totals"].get("pytorch_comm_cost_us")
        if pt is None:
            return seed, [], f"@{name}: no pytorch_comm_cost_us in the report", prog
        costs.append((g, pt, f.get("planner", {}).get("proven_optimal", True)))
        if not g <= pt + ABS_TOL:
            return seed, costs, f"@{name}: {strategy} {g!r} > pytorch {pt!r}", prog
    err = check_planner(t1)
    if err:
        return seed, costs, err, prog

    # 2./3. report (and propagate again) the propagated program.
    if separate:
        t2, err = step("report of propagated", prop, j2, None)
        if not err:
            _, err = step("re-propagate", prop, None, prop2)
    else:
        t2, err = step("report+propagate of propagated", prop, j2, prop2)
    if err:
        return seed, costs, err, prog
    if set(t2) != set(t1):
        return seed, costs, f"functions differ after propagation: {sorted(t1)} vs {sorted(t2)}", prog
    for name in t1:
        err = compare_reports(name, t1[name], t2[name])
        if err:
            return seed, costs, err, prog
    with open(prop) as fa, open(prop2) as fb:
        if fa.read() != fb.read():
            return seed, costs, ("propagation is not a fixed point: "
                                 f"diff {prop} {prop2}"), prog

    # 4. partition the program.
    if partition:
        cmd = [opt, src, f"--dtensor-partition=strategy={strategy}", "-o", os.devnull]
        rc, _, err = run(cmd, timeout)
        if rc != 0:
            return seed, costs, "partition: exit %d: %s\n%s" % (
                rc, shlex.join(cmd), err.decode(errors="replace")), prog

    for path in (src, j1, prop, j2, prop2):
        try:
            os.remove(path)
        except OSError:
            pass
    return seed, costs, None, prog


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--opt", default="dtensor-opt", help="dtensor-opt binary")
    ap.add_argument("--seeds", default="0:300", help="A:B (half-open) or N for 0:N")
    ap.add_argument("--out-dir", default=None,
                    help="where failing programs go (default: a new temp dir)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=int, default=60, help="seconds per dtensor-opt run")
    ap.add_argument("--separate", action="store_true",
                    help="one dtensor-opt run per report and per propagation (4 per seed, not 2)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every failure in full")
    ap.add_argument("--partition", action="store_true",
                    help="also partition every program (--dtensor-partition exits 0)")
    ap.add_argument("--exclude-known-open", action="store_true",
                    help="generate programs that avoid the known-open classes of issue 9")
    ap.add_argument("--classic", action="store_true",
                    help="the first generator's programs (f32, S/R, no new bodies)")
    ap.add_argument("--loss", action="store_true",
                    help="the generator's loss functions (scf.for, scf.if, calls)")
    ap.add_argument("--strategy", choices=["global", "exact"], default="global",
                    help="the strategy checked (exact: another name of global)")
    a = ap.parse_args(argv)

    out_dir = a.out_dir or tempfile.mkdtemp(prefix="check_global.")
    os.makedirs(out_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="work.", dir=out_dir)

    seeds = list(gen_random.parse_range(a.seeds))
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        gen_opts = {"exclude_known_open": a.exclude_known_open, "classic": a.classic,
                    "loss": a.loss}
        futs = [ex.submit(check_seed, a.opt, s, work, a.timeout, a.separate, gen_opts,
                          a.partition, a.strategy) for s in seeds]
        for f in futs:
            results.append(f.result())

    n = wins = equal = failures = unproven = 0
    savings = []
    for seed, costs, err, prog in results:
        n += 1
        if err:
            failures += 1
            path = os.path.join(out_dir, f"seed_{seed}.mlir")
            with open(path, "w") as fh:
                fh.write(prog)
            with open(os.path.join(out_dir, f"seed_{seed}.log"), "w") as fh:
                fh.write(err + "\n")
            first = err if a.verbose else err.splitlines()[0]
            diag = [l for l in err.splitlines() if "error:" in l][:1]
            print(f"FAIL seed {seed}: {first}  (program: {path})"
                  + (f"\n  {diag[0].strip()[:300]}" if diag and not a.verbose else "")
                  + f"\n  features: {features_of(prog)}")
            continue
        for g, pt, proven in costs:
            unproven += not proven
            if g < pt - ABS_TOL:
                wins += 1
            else:
                equal += 1
            savings.append(100.0 * (pt - g) / pt if pt > 0 else 0.0)
    try:
        os.rmdir(work)
    except OSError:
        pass
    mean = sum(savings) / len(savings) if savings else 0.0
    mx = max(savings) if savings else 0.0
    print(f"programs: {n} global_wins: {wins} mean_saving_pct: {mean:.2f} "
          f"max_saving_pct: {mx:.2f} equal: {equal} unproven: {unproven} "
          f"failures: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Numeric outputs of `dtensor-run --np N` against PyTorch's forward (issue 14).

The programs are parity.py's (the hand-written suite and the random
generator; imported, not copied). For each one:

* inputs: one seeded random global tensor per argument (f32 `.npy`,
  standard normal, or uniform in [-1/sqrt(n), 1/sqrt(n)] over the last dim n
  for weights of matmuls so that deep programs stay of order 1);
* PyTorch: the program's ops (parity.py's `Torch.apply`) on plain global
  tensors, i.e. what the program means whatever its placements (a
  redistribution is the identity, a `P(sum)` argument is its global value);
* the project: parity.py's MLIR of the program through
  `dtensor-run FILE --np N --strategy S --inputs a0.npy,... --out DIR`,
  N the mesh size (a 2x2 mesh on 4 ranks), which partitions it, runs the
  ranks under mpirun and assembles the global result (partials reduced);

and the result (the program's last value) must satisfy, elementwise,
`|x - y| <= rtol * (|y| + max|y|)` (y PyTorch's, rtol 1e-5 for f32: the
ranks round their partial sums in another order than PyTorch, and a P(sum)
argument is fed as noise parts that sum to the input, so an element near 0
of a large output carries an absolute error of the output's scale;
`--atol A` replaces the `rtol * max|y|` term).

Usage:
  forward_numeric.py --dtensor-run BIN --cases [NAME...]   hand-written cases
                     (default: the representative subset SUBSET)
  forward_numeric.py --dtensor-run BIN --all               all 225 cases
  forward_numeric.py --dtensor-run BIN --random 0:20       random programs
Prints `PASS <name> np=<N> max_rel_err=<e>` or `MISMATCH`/`NOT RUN` and
`forward: <n> programs, <p> pass, <m> mismatch, <r> not run`; exit 1 on a
mismatch or a program that does not run.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import types

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parity  # noqa: E402

# A representative subset for the lit suite (about a minute): every kind
# of op and placement (uneven shards on 1-D and 2-D meshes, 3 and 8 ranks,
# the 2x2 swap, mm picks with P(sum) and P(avg) operands, elementwise ops on
# partials, softmax on a sharded dim, reductions, reshapes, the Megatron
# MLP, the Block in its DP/TP/2-D forms, redistributions on 4 and 2x2).
SUBSET = [
    "uneven_10_over_3", "uneven_7_over_8", "uneven_2d_cols", "swap_2x2", "mm_S1_S0",
    "mm_P_S1_small", "mm_R_P", "add_partials", "relu_partial", "mul_partials", "pavg_linear",
    "relu_S0_P_2x2", "softmax_sharded_dim", "amax_sharded_dim", "sum_2x2", "reshape_merge_second",
    "reshape_uneven", "reshape_2x2", "megatron_mlp_bias", "mlp_2d", "block_tp_4d",
    "block_2d_transposed", "redist_4_Psum_to_S1", "redist_2x2_S0_S1_to_S1_S0",
    "redist_2x2_Psum_S0_to_R_S1", "strided_merge_uneven", "strided_merge_2x2_S0_S1",
    "strided_2x2_to_R_R", "redist_R_to_strided_uneven",
]


def inputs_for(prog, seed):
    """Seeded global inputs, one per argument."""
    rng = np.random.default_rng(seed)
    weights = {ops[1] for _, kind, ops, _ in prog.ops if kind in ("mm", "bmm", "mm4")}
    out = []
    for name, shape, _ in prog.args:
        if name in weights:
            bound = 1.0 / np.sqrt(shape[-2] if len(shape) > 1 else shape[-1])
            a = rng.uniform(-bound, bound, shape)
        else:
            a = rng.standard_normal(shape)
        out.append(a.astype(np.float32))
    return out


def torch_forward(prog, arrays):
    """The program's last value on plain global tensors, in f32."""
    import torch

    ops = types.SimpleNamespace(torch=torch)  # what Torch.apply reads of self
    env = {n: torch.from_numpy(a) for (n, _, _), a in zip(prog.args, arrays)}
    with torch.no_grad():
        for n, kind, operands, attrs in prog.ops:
            xs = [env[o] for o in operands]
            env[n] = xs[0] if kind == "redistribute" else parity.Torch.apply(ops, None, kind, xs, attrs)
    last = prog.ops[-1][0] if prog.ops else prog.args[-1][0]
    return env[last].numpy()


def run_project(prog, arrays, run, strategy, tmp):
    """(result or None, message)."""
    d = os.path.join(tmp, prog.name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "prog.mlir")
    with open(path, "w") as f:
        f.write(parity.Emitter(prog).run())
    files = []
    for i, a in enumerate(arrays):
        files.append(os.path.join(d, "a%d.npy" % i))
        np.save(files[-1], a)
    ranks = int(np.prod(prog.mesh))
    cmd = [run, path, "--np", str(ranks), "--strategy", strategy, "--inputs", ",".join(files),
           "--out", os.path.join(d, "out"), "--timeout", "120"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    result = os.path.join(d, "out", "result0.npy")
    if proc.returncode != 0 or not os.path.exists(result):
        lines = [l for l in proc.stdout.splitlines() if l.strip()]
        return None, " | ".join(lines[-2:])
    return np.load(result), ""


def check(progs, run, strategy, rtol, atol, seed):
    counts = {"pass": 0, "mismatch": 0, "not run": 0}
    with tempfile.TemporaryDirectory(prefix="forward-numeric-") as tmp:
        for k, prog in enumerate(progs):
            arrays = inputs_for(prog, seed + k)
            want = torch_forward(prog, arrays)
            got, why = run_project(prog, arrays, run, strategy, tmp)
            ranks = int(np.prod(prog.mesh))
            if got is None:
                counts["not run"] += 1
                print("NOT RUN %s np=%d: %s" % (prog.name, ranks, why))
                continue
            if got.shape != want.shape:
                counts["mismatch"] += 1
                print("MISMATCH %s np=%d: shape %s, PyTorch %s" % (prog.name, ranks, got.shape,
                                                                   want.shape))
                continue
            err = np.abs(got.astype(np.float64) - want.astype(np.float64))
            rel = float(np.max(err / np.maximum(np.abs(want), 1e-30), initial=0.0))
            floor = rtol * float(np.abs(want).max(initial=0.0)) if atol is None else atol
            bad = err > floor + rtol * np.abs(want)
            if bad.any():
                at = tuple(int(i) for i in np.argwhere(bad)[0])
                counts["mismatch"] += 1
                print("MISMATCH %s np=%d: %d elements differ, first at %s: %r vs PyTorch %r"
                      % (prog.name, ranks, int(bad.sum()), list(at), float(got[at]),
                         float(want[at])))
            else:
                counts["pass"] += 1
                print("PASS %s np=%d max_abs_err=%.3g max_rel_err=%.3g"
                      % (prog.name, ranks, float(err.max(initial=0.0)), rel))
    print("forward: %d programs, %d pass, %d mismatch, %d not run"
          % (len(progs), counts["pass"], counts["mismatch"], counts["not run"]))
    return 1 if counts["mismatch"] or counts["not run"] else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dtensor-run", default="dtensor-run")
    ap.add_argument("--cases", nargs="*", help="hand-written cases (default: SUBSET)")
    ap.add_argument("--all", action="store_true", help="every hand-written case")
    ap.add_argument("--random", help="seed range A:B of parity.py's random programs")
    ap.add_argument("--strategy", default="pytorch", choices=["pytorch", "global", "exact"])
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--atol", type=float, default=None)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError as e:
        print("SKIPPED: torch is not installed (%s)" % e)
        return 0
    progs = []
    suite = parity.suite()
    if a.all:
        progs = suite
    elif a.cases is not None or not a.random:
        names = a.cases or SUBSET
        by_name = {p.name: p for p in suite}
        missing = [n for n in names if n not in by_name]
        if missing:
            ap.error("no such cases: " + ", ".join(missing))
        progs = [by_name[n] for n in names]
    if a.random:
        lo, hi = map(int, a.random.split(":"))
        progs += [parity.random_prog(s) for s in range(lo, hi)]
    return check(progs, a.dtensor_run, a.strategy, a.rtol, a.atol, a.seed)


if __name__ == "__main__":
    sys.exit(main())

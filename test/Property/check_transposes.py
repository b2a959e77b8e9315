#!/usr/bin/env python3
"""Random transposes through the CPU pipeline, vectorized against scalar loops.

For every seed, generate one program with one permutation op: a
linalg.transpose of rank 2-4 with a random permutation, or a linalg.generic
that adds a transposed input to a direct one (`x^T + y`); random sizes from 1
to 40 (blocks of 16 with partial edges), f32, f64, bf16, i32 or i8; on a mesh
of 1 or 2 ranks with the input sharded on a random dim (uneven shards: dynamic
local sizes, masked blocks) or replicated. Then:

  1. dtensor-opt --dtensor-cpu-pipeline must leave no linalg op with a loop
     after dtensor-vectorize: a permutation that moves the innermost dim is done by
     square blocks transposed in registers, the others by rows;
  2. dtensor-run PROG --np N --check --out DIR must pass, and its outputs must
     equal those of dtensor-run --vectorize=false (the scalar loops) exactly.

Prints one line per failure and a summary:
  programs: N blocked: B rows: R pass: P failures: F
(blocked: the permutation moves the innermost dim.)

Usage:
  check_transposes.py --dtensor-opt PATH --dtensor-run PATH --seeds 0:20 [--out-dir DIR]

Needs numpy (to compare the outputs).
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

import numpy as np

DTYPES = ["f32", "f64", "bf16", "i32", "i8"]


def tensor(shape, dtype):
    return "tensor<" + "x".join(str(s) for s in shape) + "x" + dtype + ">"


def generate(seed):
    """Returns (program text, number of ranks, moves the innermost dim)."""
    rng = random.Random(seed)
    rank = rng.choice([2, 2, 3, 4])
    sizes = [rng.choice([1, rng.randint(2, 16), rng.randint(17, 40)])
             for _ in range(rank)]
    if rank == 4:
        sizes = [min(s, 12) for s in sizes]
    perm = list(range(rank))
    while perm == list(range(rank)):
        rng.shuffle(perm)
    dtype = rng.choice(DTYPES)
    ranks = rng.choice([1, 2])
    shard = rng.randrange(-1, rank)  # -1: replicated
    out_shape = [sizes[p] for p in perm]
    spec = (f' {{dtensor.spec = #dtensor.spec<@mesh, [S({shard})]>}}'
            if ranks == 2 and shard >= 0 else "")
    tin, tout = tensor(sizes, dtype), tensor(out_shape, dtype)
    lines = [f'dtensor.mesh @mesh = <["x" = {ranks}]>']
    if rng.random() < 0.5:
        lines += [
            f"func.func @f(%x: {tin}{spec}) -> {tout} {{",
            f"  %e = tensor.empty() : {tout}",
            f"  %t = linalg.transpose ins(%x : {tin}) outs(%e : {tout}) "
            f"permutation = [{', '.join(map(str, perm))}]",
            f"  return %t : {tout}",
            "}",
        ]
    else:
        # out[i_0..] = x[i_perm^-1 ...] + y[i_0..]: x read through the
        # permutation, y directly.
        dims = [f"d{i}" for i in range(rank)]
        inverse = [perm.index(i) for i in range(rank)]
        xmap = ", ".join(dims[inverse[i]] for i in range(rank))
        idmap = ", ".join(dims)
        add = "arith.addf" if dtype[0] in "fb" else "arith.addi"
        lines += [
            f"func.func @f(%x: {tin}{spec}, %y: {tout}) -> {tout} {{",
            f"  %e = tensor.empty() : {tout}",
            "  %t = linalg.generic {indexing_maps = ["
            f"affine_map<({idmap}) -> ({xmap})>, "
            f"affine_map<({idmap}) -> ({idmap})>, "
            f"affine_map<({idmap}) -> ({idmap})>], iterator_types = ["
            + ", ".join(['"parallel"'] * rank) + "]}",
            f"      ins(%x, %y : {tin}, {tout}) outs(%e : {tout}) {{",
            f"  ^bb0(%a: {dtype}, %b: {dtype}, %o: {dtype}):",
            f"    %s = {add} %a, %b : {dtype}",
            f"    linalg.yield %s : {dtype}",
            f"  }} -> {tout}",
            f"  return %t : {tout}",
            "}",
        ]
    moves_inner = perm[-1] != rank - 1
    return "\n".join(lines) + "\n", ranks, moves_inner


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def check(seed, args, out_dir):
    text, ranks, moves_inner = generate(seed)
    path = os.path.join(out_dir, f"transpose_{seed}.mlir")
    with open(path, "w") as f:
        f.write(text)
    ir = run([args.dtensor_opt, path, "--dtensor-cpu-pipeline",
              "-mlir-print-ir-after=dtensor-vectorize",
              "-mlir-disable-threading", "-o", os.devnull])
    if ir.returncode != 0:
        return moves_inner, f"dtensor-opt failed: {ir.stderr.strip()[:300]}"
    # A 0-d op (a 1x1 permutation collapsed to scalars) has no loop to
    # vectorize.
    left = [line for line in re.findall(r"^\s*(?:%\S+ = )?linalg\.\w+ .*$",
                                        ir.stderr, re.M)
            if "linalg.yield" not in line and "iterator_types = []" not in line]
    if left:
        return moves_inner, f"linalg ops left after dtensor-vectorize: {left}"
    outs = {}
    for flag in ("true", "false"):
        dest = os.path.join(out_dir, f"out_{seed}_{flag}")
        r = run([args.dtensor_run, path, "--np", str(ranks), "--check",
                 "--seed", str(seed), f"--vectorize={flag}", "--out", dest])
        if r.returncode != 0 or "check: PASS" not in r.stdout:
            return moves_inner, (f"dtensor-run --vectorize={flag} failed: "
                                 f"{(r.stdout + r.stderr).strip()[-300:]}")
        outs[flag] = np.load(os.path.join(dest, "result0.npy"))
    a, b = outs["true"], outs["false"]
    if a.shape != b.shape or a.dtype != b.dtype or \
            not np.array_equal(a.view(np.uint8), b.view(np.uint8)):
        return moves_inner, "vectorized result differs from the scalar loops"
    return moves_inner, None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dtensor-opt", required=True)
    p.add_argument("--dtensor-run", required=True)
    p.add_argument("--seeds", default="0:20")
    p.add_argument("--out-dir")
    args = p.parse_args()
    lo, hi = (int(x) for x in args.seeds.split(":"))
    out_dir = args.out_dir or tempfile.mkdtemp(prefix="transposes_")
    os.makedirs(out_dir, exist_ok=True)
    blocked = rows = passed = failures = 0
    for seed in range(lo, hi):
        moves_inner, error = check(seed, args, out_dir)
        blocked += moves_inner
        rows += not moves_inner
        if error:
            failures += 1
            print(f"FAIL seed {seed}: {error}")
        else:
            passed += 1
    print(f"programs: {hi - lo} blocked: {blocked} rows: {rows} "
          f"pass: {passed} failures: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

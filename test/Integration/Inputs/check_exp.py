#!/usr/bin/env python3
"""The accuracy of the CPU pipeline's exp on f32 vectors, against numpy.

Usage:
  check_exp.py write DIR        writes DIR/x.npy (the arguments) and DIR/exp.mlir
  check_exp.py compare DIR OUT  compares OUT/result0.npy with exp(x) in f64

The arguments: a sweep of [-104, 90] (every region: zero results, the
subnormal range, the normal range, the edges of the polynomial's reduction,
overflow), random values, ties of x log2(e) (k chosen on either side), and
the special values (+-0, +-inf, NaN, the clamp constants). Prints
  exp: PASS max_ulp=<u> max_ulp_near_overflow=<v> max_rel_subnormal=<e>
or exp: FAIL ... (exit 1): a normal result more than 1 ulp off (8 ulp for
x in [88.376, 88.72], where k is clamped to 127 as upstream does), a result
past float's range that is not +inf, a result under the subnormal range
that is not 0 or subnormal, a NaN that is not NaN.
"""
import os
import sys

import numpy as np

COLS = 512
EDGE = 127.5 * np.log(2.0)  # 88.376: above it, k would be 128


def arguments():
    rng = np.random.default_rng(7)
    sweep = np.linspace(-104.0, 90.0, 200 * COLS)
    random = rng.uniform(-20.0, 20.0, 40 * COLS)
    # x log2(e) = k + 1/2: the two ways of rounding choose different k.
    ties = (np.arange(-126, 128) + 0.5) / np.log2(np.e)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, -87.8, 88.8, -87.7,
               88.7, 88.72, 88.73, 1e-8, -1e-8, 1.0, -1.0]
    x = np.concatenate([sweep, random, ties, special]).astype(np.float32)
    pad = (-len(x)) % COLS
    x = np.concatenate([x, np.zeros(pad, np.float32)])
    return x.reshape(-1, COLS)


def write(out):
    os.makedirs(out, exist_ok=True)
    x = arguments()
    np.save(os.path.join(out, "x.npy"), x)
    t = f"tensor<{x.shape[0]}x{COLS}xf32>"
    with open(os.path.join(out, "exp.mlir"), "w") as f:
        f.write(f"""dtensor.mesh @mesh = <["x" = 1]>
func.func @exp(%x: {t}) -> {t} {{
  %e = tensor.empty() : {t}
  %y = linalg.exp ins(%x : {t}) outs(%e : {t}) -> {t}
  return %y : {t}
}}
""")
    return 0


def compare(out, results):
    x = np.load(os.path.join(out, "x.npy")).astype(np.float64).ravel()
    y = np.load(os.path.join(results, "result0.npy")).astype(np.float64).ravel()
    with np.errstate(over="ignore"):
        want = np.exp(x)
    tiny = float(np.finfo(np.float32).tiny)
    big = float(np.finfo(np.float32).max)
    failures = []
    nan = np.isnan(x)
    if not np.all(np.isnan(y[nan])):
        failures.append("exp(NaN) is not NaN")
    over = ~nan & (want > big)
    if not np.all(y[over] == np.inf):
        failures.append(f"overflow not +inf at x={x[over][y[over] != np.inf][:3]}")
    under = ~nan & (want < tiny)
    if not np.all((y[under] >= 0) & (y[under] < tiny)):
        failures.append(f"not 0 or subnormal at x={x[under][(y[under] < 0) | (y[under] >= tiny)][:3]}")
    normal = ~nan & ~over & ~under
    ulp = np.spacing(want[normal].astype(np.float32)).astype(np.float64)
    err = np.abs(y[normal] - want[normal]) / ulp
    # Past 127.5 ln 2, k stays 127 and r leaves [-ln 2 / 2, ln 2 / 2]: the
    # polynomial (upstream's too) is a few ulp off there.
    edge = x[normal] >= EDGE
    worst = float(err[~edge].max())
    worst_edge = float(err[edge].max()) if edge.any() else 0.0
    if worst > 1.0:
        failures.append(f"{worst:.2f} ulp at x={x[normal][~edge][np.argmax(err[~edge])]!r}")
    if worst_edge > 8.0:
        failures.append(f"{worst_edge:.2f} ulp near overflow")
    sub = under & (want > 0)
    rel_sub = float(np.max(np.abs(y[sub] - want[sub]) / want[sub])) if sub.any() else 0.0
    if failures:
        print("exp: FAIL " + "; ".join(failures))
        return 1
    print(f"exp: PASS max_ulp={worst:.2f} max_ulp_near_overflow={worst_edge:.2f} "
          f"max_rel_subnormal={rel_sub:.2e}")
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "write":
        sys.exit(write(sys.argv[2]))
    sys.exit(compare(sys.argv[2], sys.argv[3]))

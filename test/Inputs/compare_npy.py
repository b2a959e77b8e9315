#!/usr/bin/env python3
"""Compares the outputs of two dtensor-run --out directories, for lit tests.

Usage: compare_npy.py DIR_A DIR_B [--rtol R] [--atol A]

Every result<i>.npy of DIR_A must exist in DIR_B with the same shape and
dtype; floats must agree within abs(a - b) <= atol + rtol * abs(b) (NaNs in
the same places), other dtypes exactly. Prints one line per file and
"compare: PASS max_abs_err=<e>" or "compare: FAIL ..." (exit 1).
"""
import argparse
import pathlib
import sys

import numpy as np


def main():
    p = argparse.ArgumentParser()
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-5)
    args = p.parse_args()
    files = sorted(pathlib.Path(args.a).glob("result*.npy"))
    if not files:
        print(f"compare: FAIL no result*.npy in {args.a}")
        return 1
    ok, worst = True, 0.0
    for fa in files:
        fb = pathlib.Path(args.b) / fa.name
        if not fb.exists():
            print(f"{fa.name}: missing in {args.b}")
            ok = False
            continue
        a, b = np.load(fa), np.load(fb)
        if a.shape != b.shape or a.dtype != b.dtype:
            print(f"{fa.name}: {a.shape} {a.dtype} vs {b.shape} {b.dtype}")
            ok = False
            continue
        if np.issubdtype(a.dtype, np.floating):
            same_nan = np.array_equal(np.isnan(a), np.isnan(b))
            fa64, fb64 = a.astype(np.float64), b.astype(np.float64)
            err = np.abs(fa64 - fb64)
            err = np.where(np.isnan(err), 0.0, err)
            good = same_nan and bool(np.all(err <= args.atol + args.rtol * np.abs(np.nan_to_num(fb64))))
            e = float(err.max()) if err.size else 0.0
        else:
            good = bool(np.array_equal(a, b))
            e = 0.0 if good else float("inf")
        worst = max(worst, e)
        print(f"{fa.name}: {'ok' if good else 'differs'} max_abs_err={e:.3e}")
        ok = ok and good
    print(f"compare: {'PASS' if ok else 'FAIL'} max_abs_err={worst:.3e}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

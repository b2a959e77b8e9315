#!/usr/bin/env python3
"""Checks a JSON file against Python expressions, for lit tests.

Usage: jsonq.py FILE EXPR [EXPR ...]

Each EXPR is evaluated with `r` bound to the parsed JSON, `f` to
r["functions"][0] when present, and the helpers `fn(name)` (the function
object of that name) and `kinds(func)` (the list of collective kinds).
Every EXPR must be true; failures are printed with their value and the
script exits 1.
"""
import json
import sys


def main():
    path, exprs = sys.argv[1], sys.argv[2:]
    with open(path) as fh:
        r = json.load(fh)
    funcs = r.get("functions", []) if isinstance(r, dict) else []

    def fn(name):
        for x in funcs:
            if x.get("name") == name:
                return x
        raise KeyError("no function named %r" % name)

    def kinds(func):
        return [c["kind"] for c in func["collectives"]]

    env = {"r": r, "f": funcs[0] if funcs else None, "fn": fn, "kinds": kinds}
    failed = 0
    for e in exprs:
        try:
            ok = eval(e, env)
        except Exception as ex:  # report and continue
            print("error in %s: %r" % (e, ex))
            failed += 1
            continue
        if not ok:
            print("failed: %s" % e)
            failed += 1
    if failed:
        sys.exit(1)
    print("jsonq: %d checks passed" % len(exprs))


if __name__ == "__main__":
    main()

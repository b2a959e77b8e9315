#!/usr/bin/env python3
"""Checks that a DDP split keeps the fake-tensor metadata, for lit tests.

Usage: ddp_split_compare.py UNSPLIT.json SPLIT.json FUNC [--created OP,...]
                            [--submodules N]

Both files are `dtensor-opt --dtensor-fake-report=format=json` outputs: of the
program before `--dtensor-ddp-split` and after it. A value's metadata is
(op, global_shape, dtype, placements, local_shapes). Checked:

- the ops of FUNC moved into FUNC_submod_0..n-1 keep their metadata, in
  program order: the values of the unsplit FUNC that are neither block
  arguments nor created values equal, in order, those of the submodules;
- every recreated value in the split program (ops named in --created,
  default arith.constant, tensor.empty, linalg.fill) has the metadata of a
  created value of the unsplit FUNC;
- every submodule argument carries the metadata (shape, dtype, placements,
  local shapes) of some value of the unsplit FUNC;
- what the submodules return is what the calls in FUNC produce;
- FUNC keeps its arguments and returns the same way;
- the split program needs exactly the collectives of the unsplit one (none
  appear at a boundary).
"""
import argparse
import json
import sys


def key(v):
    return (v["op"], tuple(v["global_shape"]), v["dtype"], tuple(v["placements"]),
            tuple(tuple(s) for s in v["local_shapes"]))


def meta(v):
    return key(v)[1:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("unsplit")
    ap.add_argument("split")
    ap.add_argument("func")
    ap.add_argument("--created", default="")
    ap.add_argument("--submodules", type=int, default=None)
    a = ap.parse_args()
    created = {"arith.constant", "tensor.empty", "linalg.fill"}
    created |= {x for x in a.created.split(",") if x}

    with open(a.unsplit) as fh:
        unsplit = {f["name"]: f for f in json.load(fh)["functions"]}
    with open(a.split) as fh:
        split = {f["name"]: f for f in json.load(fh)["functions"]}
    u = unsplit[a.func]
    s = split[a.func]
    subs = []
    while "%s_submod_%d" % (a.func, len(subs)) in split:
        subs.append(split["%s_submod_%d" % (a.func, len(subs))])

    errors = []

    def check(ok, what):
        if not ok:
            errors.append(what)

    if a.submodules is not None:
        check(len(subs) == a.submodules,
              "%d submodules, expected %d" % (len(subs), a.submodules))
    check(len(subs) > 1, "the function was not split")

    def moved(vals):
        return [key(v) for v in vals
                if v["op"] != "block_argument" and v["op"] not in created]

    before = moved(u["values"])
    after = [k for f in subs for k in moved(f["values"])]
    check(before == after,
          "moved values differ:\n  unsplit %s\n  split   %s" % (before, after))

    created_before = {key(v) for v in u["values"] if v["op"] in created}
    for f in subs + [s]:
        for v in f["values"]:
            if v["op"] in created:
                check(key(v) in created_before,
                      "%s: recreated %s %s has metadata %s not in the unsplit "
                      "program" % (f["name"], v["op"], v["name"], key(v)))

    all_before = {meta(v) for v in u["values"]}
    for f in subs:
        for v in f["values"]:
            if v["op"] == "block_argument":
                check(meta(v) in all_before,
                      "%s: argument %s has metadata %s of no unsplit value"
                      % (f["name"], v["name"], meta(v)))

    calls = [meta(v) for v in s["values"] if v["op"] == "func.call"]
    returned = [(tuple(r["global_shape"]), tuple(r["placements"]),
                 tuple(tuple(x) for x in r["local_shapes"]))
                for f in subs for r in f["returns"]]
    call_meta = [(c[0], c[2], c[3]) for c in calls]
    check(call_meta == returned,
          "call results %s differ from submodule returns %s" % (call_meta, returned))

    args = lambda f: [key(v) for v in f["values"] if v["op"] == "block_argument"]
    check(args(u) == args(s), "the arguments of %s changed" % a.func)
    check(u["returns"] == s["returns"],
          "returns differ: %s vs %s" % (u["returns"], s["returns"]))

    def colls(fs):
        return sorted((c["kind"], tuple(c["global_shape"]), c["from"], c["to"],
                       tuple(c["bytes"])) for f in fs for c in f["collectives"])

    check(colls([u]) == colls(subs + [s]),
          "collectives differ: %s vs %s" % (colls([u]), colls(subs + [s])))
    nred = lambda fs: sum(len(f["redistributions"]) for f in fs)
    check(nred([u]) == nred(subs + [s]),
          "%d redistributions before, %d after" % (nred([u]), nred(subs + [s])))

    if errors:
        for e in errors:
            print("ddp-split-compare: " + e)
        sys.exit(1)
    print("ddp-split-compare: %d submodules, %d moved values, %d collectives match"
          % (len(subs), len(before), len(colls([u]))))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Checks the report's per-rank peak against the partitioned program.

Usage: check_local_peak.py LOCAL.mlir REPORT.json

LOCAL.mlir is the output of dtensor-partition (pretty form, static local
types: even shards, one type for every rank); REPORT.json the output of
dtensor-fake-report on the same input with the same options. For every
function of the report, this script computes on its own the peak of the
partitioned function: every top-level tensor value (arguments and op
results) is a buffer of its static type's bytes, live from the op defining
it to the last top-level op reading it (reads inside an op's regions count
as reads by that op); the peak is the largest sum over one op. It prints
one line per function and exits 1 unless each equals the report's
peak_bytes on every rank.
"""
import json
import re
import sys

ELEMENT_BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4,
                 "i16": 2, "i8": 1, "i1": 1, "index": 8}
TENSOR = re.compile(r"tensor<((?:\d+x)*)([a-z0-9]+)>")


def tensor_bytes(text):
    m = TENSOR.fullmatch(text.strip())
    if not m:
        return None
    n = ELEMENT_BYTES[m.group(2)]
    for d in m.group(1).split("x")[:-1]:
        n *= int(d)
    return n


def functions(lines):
    """(name, [(arg, type)], [op text]) per func.func."""
    i = 0
    while i < len(lines):
        m = re.match(r"(\s*)func\.func @(\w+)\((.*)\)", lines[i])
        if not m:
            i += 1
            continue
        indent, name = len(m.group(1)), m.group(2)
        args = re.findall(r"(%\w+): (tensor<[^>]*>)", m.group(3))
        ops, i = [], i + 1
        while i < len(lines) and not re.match(r"\s{%d}}" % indent, lines[i]):
            line = lines[i]
            if len(line) - len(line.lstrip()) == indent + 2:
                ops.append(line)
            else:
                ops[-1] += "\n" + line
            i += 1
        yield name, args, ops


def peak(args, ops):
    buffers = {}  # value -> [bytes, def, last use]
    for a, t in args:
        buffers[a] = [tensor_bytes(t), -1, -1]
    for i, op in enumerate(ops):
        m = re.match(r"\s*(%[\w]+) = ", op)
        defined = m.group(1) if m else None
        for use in re.findall(r"%[\w]+", op):
            if use != defined and use in buffers:
                buffers[use][2] = i
        if defined:
            types = re.findall(r"tensor<[^>]*>", op.rsplit("\n", 1)[-1])
            if types:
                buffers[defined] = [tensor_bytes(types[-1]), i, i]
    best = 0
    for i in range(-1, len(ops)):
        best = max(best, sum(b for b, d, u in buffers.values()
                             if b and d <= i <= max(d, u)))
    return best


def main():
    local = open(sys.argv[1]).read().splitlines()
    report = {f["name"]: f for f in json.load(open(sys.argv[2]))["functions"]}
    ok = True
    for name, args, ops in functions(local):
        want = report[name]["totals"]["peak_bytes"]
        got = peak(args, ops)
        same = all(w == got for w in want)
        print("@%s partitioned=%d report=%s %s" %
              (name, got, want, "OK" if same else "MISMATCH"))
        ok &= same
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Compares a dtensor-fake-report JSON with the trace of a real run.

Usage: report_vs_trace.py REPORT.json FUNCTION TRACE.json

For every rank of the trace (`dtensor-run --trace`), the collectives the run
did (comm spans) must match the report's totals for FUNCTION, which count
every execution: their number (`totals.num_collectives`) and bytes
(`totals.comm_bytes[rank]`), and, for a function without calls, the kinds
(each collective of the report repeated `executions` times). Prints one line
per rank and exits 1 on a mismatch.
"""
import collections
import json
import sys


def main():
    report_path, name, trace_path = sys.argv[1:4]
    with open(report_path) as fh:
        funcs = {f["name"]: f for f in json.load(fh)["functions"]}
    with open(trace_path) as fh:
        events = json.load(fh)["traceEvents"]
    f = funcs[name]
    totals = f["totals"]
    expected_kinds = collections.Counter()
    for c in f["collectives"]:
        expected_kinds[c["kind"]] += c["executions"]
    ranks = sorted({e["pid"] for e in events if e.get("ph") == "X"})
    ok = bool(ranks)
    for rank in ranks:
        comm = [e for e in events if e.get("cat") == "comm" and e["pid"] == rank]
        count = len(comm)
        nbytes = sum(e["args"]["bytes"] for e in comm)
        kinds = collections.Counter(e["name"] for e in comm)
        good = (count == totals["num_collectives"]
                and nbytes == totals["comm_bytes"][rank]
                and (f.get("calls") or kinds == expected_kinds))
        print("rank %d: run %d collectives %d bytes, report %d collectives "
              "%d bytes: %s" % (rank, count, nbytes, totals["num_collectives"],
                                totals["comm_bytes"][rank],
                                "MATCH" if good else "MISMATCH"))
        ok = ok and good
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Checks a dtensor-run trace for gradient all-reduces overlapping compute.

Usage: check_overlap.py TRACE.json RANKS [MIN_BYTES]

For every rank, looks for an asynchronous all_reduce comm span (tid 1) of
at least MIN_BYTES bytes that starts inside a backward segment
(`*_bwd_<i>`, a compute span on tid 0) and overlaps a compute span of a
*later* backward segment: that bucket's all-reduce was in flight while the
rest of the backward ran. Prints one line per rank:

  rank R: all_reduce of B bytes from <segment> overlaps <later segment> by U us

and exits 1 if some rank has none. Also prints, per rank, how many bucket
all-reduces completed before their wait began (blocked_us < 5% of the span).
"""
import json
import re
import sys


def main():
    path, ranks = sys.argv[1], int(sys.argv[2])
    min_bytes = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    events = [e for e in json.load(open(path))["traceEvents"] if e.get("ph") == "X"]
    ok = True
    bwd = re.compile(r".*_bwd_(\d+)$")
    for rank in range(ranks):
        mine = [e for e in events if e["pid"] == rank]
        segs = [e for e in mine if e["tid"] == 0 and bwd.match(e["name"])]
        comms = [e for e in mine if e["tid"] == 1 and e["name"] == "all_reduce"
                 and e["args"]["bytes"] >= min_bytes]
        best = None
        hidden = 0
        for c in comms:
            c0, c1 = c["ts"], c["ts"] + c["dur"]
            if c["dur"] > 0 and c["args"]["blocked_us"] < 0.05 * c["dur"]:
                hidden += 1
            home = [s for s in segs if s["ts"] <= c0 <= s["ts"] + s["dur"]]
            if not home:
                continue
            h = home[-1]
            for s in segs:
                if s["ts"] < h["ts"] + h["dur"]:
                    continue  # not a later segment
                over = min(c1, s["ts"] + s["dur"]) - max(c0, s["ts"])
                if over > 0 and (best is None or over > best[0]):
                    best = (over, c["args"]["bytes"], h["name"], s["name"])
        if best is None:
            print(f"rank {rank}: no all_reduce overlaps a later backward segment")
            ok = False
        else:
            print(f"rank {rank}: all_reduce of {best[1]} bytes from {best[2]} "
                  f"overlaps {best[3]} by {best[0]:.1f} us")
        print(f"rank {rank}: {hidden} of {len(comms)} all_reduces completed before their wait")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

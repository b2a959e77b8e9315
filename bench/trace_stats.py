#!/usr/bin/env python3
"""Step time and exposed communication of a `dtensor-run --steps` trace.

Usage: trace_stats.py TRACE.json ENTRY RANKS

Steps are the compute spans named ENTRY (one per step per rank); the first
step (JIT warm-up, first touch) is dropped. Per step and rank:
  step time     the span's duration;
  comm          the comm spans (tid 1) that start inside it, summed;
  exposed comm  their `blocked_us`: the time the rank waited for them (the
                whole span for a synchronous collective, the time inside
                dtrt_wait for an asynchronous one), i.e. communication that
                compute did not hide.
Prints "step_ms comm_ms exposed_ms hidden_pct", means over steps and ranks.
"""
import json
import sys


def main():
    path, entry, ranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
    ev = [e for e in json.load(open(path))["traceEvents"] if e.get("ph") == "X"]
    steps, comm, exposed = [], [], []
    for r in range(ranks):
        mine = [e for e in ev if e["pid"] == r]
        spans = sorted((e for e in mine if e["tid"] == 0 and e["name"] == entry),
                       key=lambda e: e["ts"])[1:]
        comms = [e for e in mine if e["tid"] == 1]
        for s in spans:
            t0, t1 = s["ts"], s["ts"] + s["dur"]
            inside = [c for c in comms if t0 <= c["ts"] <= t1]
            steps.append(s["dur"])
            comm.append(sum(c["dur"] for c in inside))
            exposed.append(sum(c["args"]["blocked_us"] for c in inside))
    n = max(len(steps), 1)
    st, cm, ex = sum(steps) / n / 1e3, sum(comm) / n / 1e3, sum(exposed) / n / 1e3
    hidden = 100.0 * (1 - ex / cm) if cm > 0 else 0.0
    print(f"{st:.2f} {cm:.2f} {ex:.2f} {hidden:.0f}")


if __name__ == "__main__":
    main()

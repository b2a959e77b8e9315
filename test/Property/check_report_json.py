#!/usr/bin/env python3
"""Every fake report the suite's programs produce is valid JSON.

Splits every .mlir file under the given directories on `// -----` (the
`-split-input-file` separator), runs `dtensor-opt --dtensor-fake-report=
"format=json output=FILE"` on each chunk in both strategies, and parses
each report that was written with a strict parser (no NaN or Infinity,
which JSON does not have). Chunks that dtensor-opt rejects (the -invalid
tests) write no report and are counted apart.

Prints `reports: N invalid: I rejected: R` and exits 1 when I > 0.
Usage: check_report_json.py --opt PATH/dtensor-opt DIR [DIR ...]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def strict_constant(name):
    raise ValueError("not JSON: %s" % name)


def chunks(path):
    with open(path) as fh:
        text = fh.read()
    return text.split("\n// -----\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--opt", required=True)
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    files = []
    for d in args.dirs:
        for root, _, names in os.walk(d):
            files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".mlir")]
    reports = invalid = rejected = 0
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "in.mlir"), os.path.join(tmp, "report.json")
        for path in sorted(files):
            for i, chunk in enumerate(chunks(path)):
                with open(src, "w") as fh:
                    fh.write(chunk)
                for strategy in ("pytorch", "global"):
                    if os.path.exists(out):
                        os.remove(out)
                    proc = subprocess.run(
                        [args.opt, src, "-o", os.devnull,
                         "--dtensor-fake-report=format=json compare-pytorch=1 strategy=%s output=%s" % (strategy, out)],
                        capture_output=True, text=True, timeout=120)
                    if proc.returncode != 0 or not os.path.exists(out):
                        rejected += 1
                        continue
                    reports += 1
                    try:
                        with open(out) as fh:
                            json.load(fh, parse_constant=strict_constant)
                    except ValueError as e:
                        invalid += 1
                        print("invalid JSON from %s (chunk %d, strategy=%s): %s" % (path, i, strategy, e))
    print("reports: %d invalid: %d rejected: %d" % (reports, invalid, rejected))
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())

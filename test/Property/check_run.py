#!/usr/bin/env python3
"""Runs random programs on several ranks and checks them against one rank.

For every seed in a range, generate a random program with gen_random.py
(--run-meshes: a mesh of 2, 4 or 2x2 devices; repeated operands, nonlinear
bodies on partial values, i32/i64 with wrapping values, NaN/Inf data,
uneven expands) and run

  dtensor-run PROG --np N --check --seed SEED --strategy S --timeout T

with N the number of devices of the program's mesh and S alternating
between global (even seeds) and pytorch (odd seeds) unless --strategy says
otherwise.  Each run is classified:

  pass      exit 0 and `check: PASS`
  rejected  exit 1 with an error message and no `check:` line: the compiler
            (or the runner) refused the program with a diagnostic
  mismatch  `check: FAIL`: the ranks computed something else than one rank
  hang      no result within --timeout (dtensor-run's own --timeout, then
            a hard limit a few seconds later)
  crash     anything else: a signal, an assertion or crash report, another
            exit code, exit 1 without a message

Mismatches, hangs and crashes are failures (exit 1); rejections are counted
separately and grouped by their first error line.  Every failing or
rejected program is written to OUT_DIR/seed_<n>.mlir with a .log next to it
(the command and its output).  Failures and rejections print the program's
`// features:` line, for sorting them into classes.

Partial values come from contractions and sum reductions over sharded
dims (every rank holds a real partial) and from P(...) arguments, whose
shards dtensor-run chooses (today: the value on rank 0 and zeros elsewhere
for P(sum), which hides nonlinear uses of such arguments; this check does
not depend on that choice).

--exclude-known-open generates programs that avoid the classes of issue 9
that are open (see gen_random.py); drop it once those fixes land.

Prints one summary line:
  programs: N pass: P rejected: R mismatches: M crashes: C hangs: H

Usage:
  check_run.py --dtensor-run PATH --seeds 0:30 [-j 1] [--out-dir DIR]

Stdlib only.
"""

import argparse
import concurrent.futures
import os
import shlex
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_random  # noqa: E402

CRASH_MARKERS = ["Assertion", "PLEASE submit a bug report", "Stack dump",
                 "UNREACHABLE executed", "LLVM ERROR", "Segmentation fault",
                 "terminate called", "core dumped"]


def features_of(prog):
    for line in prog.splitlines():
        if line.startswith("// features:"):
            return line[len("// features:"):].strip()
    return ""


def classify(rc, out):
    """(verdict, reason) of one dtensor-run."""
    if rc is None:
        return "hang", "no result within the hard limit"
    if "did not finish within --timeout" in out:
        return "hang", first_error(out) or "timeout"
    if any(m in out for m in CRASH_MARKERS):
        return "crash", "crash report (exit %d)" % rc
    if "check: FAIL" in out:
        return "mismatch", [l for l in out.splitlines() if "check: FAIL" in l][0].strip()
    if rc == 0 and "check: PASS" in out:
        return "pass", ""
    if rc == 1 and "check:" not in out and first_error(out):
        return "rejected", first_error(out)
    if rc < 0:
        return "crash", "killed by signal %d" % -rc
    return "crash", "exit %d without a check result" % rc


def first_error(out):
    for line in out.splitlines():
        if "error:" in line:
            return line.strip()
    return ""


def signature(reason):
    """A short key for grouping: the message without file positions."""
    msg = reason.split("error:", 1)[-1].strip()
    return msg[:160]


def check_seed(runner, seed, strategy, timeout, exclude, work, extra, loss=False):
    prog = gen_random.generate(seed, exclude_known_open=exclude, run_meshes=True,
                               loss=loss)
    np_ = gen_random.mesh_devices(seed, run_meshes=True)
    if strategy == "alternate":
        strategy = "global" if seed % 2 == 0 else "pytorch"
    path = os.path.join(work, f"seed_{seed}.mlir")
    with open(path, "w") as fh:
        fh.write(prog)
    cmd = [runner, path, "--np", str(np_), "--check", "--seed", str(seed),
           "--strategy", strategy, "--timeout", str(timeout)] + extra
    if loss:
        cmd += ["--entry", "prog"]
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout + 15)
        rc, out = p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        rc, out = None, (e.stdout or b"").decode("utf-8", "replace")
    verdict, why = classify(rc, out)
    try:
        os.remove(path)
    except OSError:
        pass
    return seed, prog, cmd, rc, out, verdict, why


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dtensor-run", default="dtensor-run", help="dtensor-run binary")
    ap.add_argument("--seeds", default="0:30", help="A:B (half-open) or N for 0:N")
    ap.add_argument("--out-dir", default=None,
                    help="where failing and rejected programs go (default: a new temp dir)")
    ap.add_argument("-j", "--jobs", type=int, default=1,
                    help="programs run at once (each starts N ranks)")
    ap.add_argument("--timeout", type=int, default=60,
                    help="seconds per run (dtensor-run --timeout)")
    ap.add_argument("--strategy", choices=["alternate", "global", "pytorch"],
                    default="alternate")
    ap.add_argument("--exclude-known-open", action="store_true",
                    help="generate programs that avoid the known-open classes of issue 9")
    ap.add_argument("--loss", action="store_true",
                    help="the generator's loss functions (scf.for, scf.if, calls)")
    ap.add_argument("--runner-arg", action="append", default=[],
                    help="one more argument for dtensor-run (repeatable)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print the output of every failing run")
    a = ap.parse_args(argv)

    out_dir = a.out_dir or tempfile.mkdtemp(prefix="check_run.")
    os.makedirs(out_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="work.", dir=out_dir)

    counts = {k: 0 for k in ("pass", "rejected", "mismatch", "crash", "hang")}
    groups = {}
    seeds = list(gen_random.parse_range(a.seeds))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futs = [ex.submit(check_seed, a.dtensor_run, s, a.strategy, a.timeout,
                          a.exclude_known_open, work, a.runner_arg, a.loss)
                for s in seeds]
        for f in futs:
            seed, prog, cmd, rc, out, verdict, why = f.result()
            counts[verdict] += 1
            if verdict == "pass":
                continue
            path = os.path.join(out_dir, f"seed_{seed}.mlir")
            with open(path, "w") as fh:
                fh.write(prog)
            with open(os.path.join(out_dir, f"seed_{seed}.log"), "w") as fh:
                fh.write(shlex.join(cmd) + f"\nexit: {rc}\n" + out)
            key = (verdict, signature(why) if verdict == "rejected" else why.split(" max_")[0])
            groups.setdefault(key, []).append(seed)
            tag = "REJECTED" if verdict == "rejected" else "FAIL"
            print(f"{tag} seed {seed} ({verdict}): {why}  (program: {path})\n"
                  f"  features: {features_of(prog)}")
            if a.verbose and verdict != "rejected":
                for line in out.splitlines()[-20:]:
                    print("  | " + line)
    try:
        os.rmdir(work)
    except OSError:
        pass
    if groups:
        print("classes:")
        for (verdict, sig), ss in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            print(f"  {len(ss):4d} x {verdict}: {sig}  (seeds {' '.join(map(str, ss[:8]))}"
                  f"{' ...' if len(ss) > 8 else ''})")
    print(f"programs: {len(seeds)} pass: {counts['pass']} rejected: {counts['rejected']} "
          f"mismatches: {counts['mismatch']} crashes: {counts['crash']} hangs: {counts['hang']}")
    return 1 if counts["mismatch"] + counts["crash"] + counts["hang"] else 0


if __name__ == "__main__":
    sys.exit(main())

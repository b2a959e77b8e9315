#!/usr/bin/env python3
"""Random contractions through the CPU pipeline's BLAS path, checked by brute force.

For every seed, generate one contraction that is a (batched) GEMM up to
permutation: 0-2 batch loops, 1-2 m loops, 1-2 n loops and one k loop (two k
loops for one seed in six: not a GEMM, it must stay loops), the loops in a
random order and each operand's dims in a random order; written as a
linalg.generic, or as linalg.matmul / linalg.batch_matmul with (transposed)
indexing_maps when the loops allow it. Operands are sometimes slices of a
larger argument (tensor.extract_slice: an offset and a leading dim larger
than the row, as strided views after bufferization). The output starts as a
zero fill (beta = 0), a non-zero fill, or an input accumulator (beta = 1);
f32 or f64. Then:

  1. dtensor-opt --dtensor-cpu-pipeline must call a GEMM (cblas_?gemm, or
     the runtime's dtrt_sgemm_small for small f32 ones) exactly when the
     program has one k loop (two k loops stay loops): directly when
     some choice of one m and one n loop gives each operand a unit stride
     on one of its two GEMM dims, else after packing the operands (copies
     laid out as the GEMM reads them; counted as "packed");
  2. dtensor-run PROG --np N --inputs A.npy,B.npy[,C.npy] --out DIR (N = 1,
     or 2 with --check against one rank), on small integer inputs, must
     give the result of a brute-force evaluation of the contraction in
     Python (exact: every value is a small integer).

Prints one line per failure and a summary:
  programs: N blas: B packed: K loops: L pass: P failures: F

Usage:
  check_blas.py --dtensor-opt PATH --dtensor-run PATH --seeds 0:30 [--out-dir DIR]
                [--runner-arg=--lowering=PIPELINE]  (step 2 through another lowering)

Stdlib only.
"""

import argparse
import itertools
import os
import random
import struct
import subprocess
import sys
import tempfile

FORMATS = {"f32": ("<f4", "f", 4), "f64": ("<f8", "d", 8)}


def write_npy(path, dtype, shape, values):
    descr, fmt, _ = FORMATS[dtype]
    dims = "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, dims)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def read_npy(path):
    data = open(path, "rb").read()
    major = data[6]
    if major == 1:
        hlen, start = struct.unpack("<H", data[8:10])[0], 10
    else:
        hlen, start = struct.unpack("<I", data[8:12])[0], 12
    header = eval(data[start:start + hlen].decode("latin1"))
    fmt = {"<f4": "f", "<f8": "d"}[header["descr"]]
    body = data[start + hlen:]
    n = len(body) // struct.calcsize(fmt)
    return list(header["shape"]), list(struct.unpack("<%d%s" % (n, fmt), body))


def strides_of(shape):
    s, acc = [], 1
    for d in reversed(shape):
        s.append(acc)
        acc *= d
    return list(reversed(s))


def tensor(shape, elt):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), elt) if shape else "tensor<%s>" % elt


def amap(nloops, dims):
    ds = ", ".join("d%d" % i for i in range(nloops))
    return "affine_map<(%s) -> (%s)>" % (ds, ", ".join("d%d" % d for d in dims))


class Case:
    """One random contraction: its loops, operand layouts and program."""

    def __init__(self, seed):
        r = random.Random(seed)
        self.seed = seed
        nb, nm, nn = r.choice([0, 0, 1, 1, 2]), r.choice([1, 1, 1, 2]), r.choice([1, 1, 1, 2])
        nk = 2 if seed % 6 == 5 else 1
        kinds = ["b"] * nb + ["m"] * nm + ["n"] * nn + ["k"] * nk
        r.shuffle(kinds)
        self.kinds = kinds
        self.sizes = [r.choice([1, 2, 3, 4, 5, 7]) for _ in kinds]
        loops = range(len(kinds))
        pick = lambda ks: [d for d in loops if kinds[d] in ks]
        self.dims = [pick("bmk"), pick("bkn"), pick("bmn")]
        for d in self.dims:
            r.shuffle(d)
        self.elt = r.choice(["f32", "f64"])
        self.init = r.choice(["zero", "zero", "fill", "acc"])
        self.fill = r.choice([1.0, -2.0])
        self.sliced = [r.random() < 0.3 for _ in range(3)]
        self.pads = [[r.choice([0, 1, 3]) for _ in d] for d in self.dims]
        self.np = 2 if r.random() < 0.3 else 1
        self.named = r.random() < 0.5
        self.expect_blas = nk == 1
        self.packed = nk == 1 and not self.has_unit_strides()

    def unit(self, i, loop):
        """Whether operand i's dim for `loop` has stride 1 in its buffer."""
        st = strides_of(self.arg_shape(i))
        return st[self.dims[i].index(loop)] == 1

    def has_unit_strides(self):
        """Whether some choice of one m and one n loop gives every operand a
        unit stride on one of its two GEMM dims (what BLAS needs)."""
        loops = range(len(self.kinds))
        (k,) = [d for d in loops if self.kinds[d] == "k"]
        for m in [d for d in loops if self.kinds[d] == "m"]:
            for n in [d for d in loops if self.kinds[d] == "n"]:
                if ((self.unit(0, m) or self.unit(0, k)) and (self.unit(1, k) or self.unit(1, n))
                        and (self.unit(2, m) or self.unit(2, n))):
                    return True
        return False

    def shape(self, i):
        return [self.sizes[d] for d in self.dims[i]]

    def arg_shape(self, i):
        s = self.shape(i)
        return [x + p for x, p in zip(s, self.pads[i])] if self.sliced[i] else s

    def named_op(self):
        """linalg.matmul / batch_matmul when the loops fit their form."""
        kinds = "".join(sorted(self.kinds))
        if not self.named or kinds not in ("kmn", "bkmn"):
            return None
        if kinds == "kmn":
            return "linalg.matmul"
        # batch_matmul's maps keep the batch dim first and the output as is.
        order = [d for k in "bmn" for d in range(len(self.kinds)) if self.kinds[d] == k]
        if self.dims[2] != order or self.dims[0][0] != order[0] or self.dims[1][0] != order[0]:
            return None
        return "linalg.batch_matmul"

    def program(self):
        elt, n = self.elt, len(self.kinds)
        args = ["%%%s: %s" % (v, tensor(self.arg_shape(i), elt))
                for i, v in enumerate("ab")]
        if self.init == "acc":
            args.append("%%c: %s" % tensor(self.arg_shape(2), elt))
        tys = [tensor(self.shape(i), elt) for i in range(3)]
        lines = ['dtensor.mesh @mesh = <["dp" = %d]>' % self.np,
                 "func.func @contract(%s) -> %s {" % (", ".join(args), tys[2])]
        vals = []
        for i, v in enumerate("abc"):
            if i == 2 and self.init != "acc":
                break
            if self.sliced[i]:
                offs = ", ".join(str(p) for p in self.pads[i])
                sizes = ", ".join(map(str, self.shape(i)))
                ones = ", ".join("1" for _ in self.shape(i))
                lines.append("  %%%s_s = tensor.extract_slice %%%s[%s] [%s] [%s] : %s to %s"
                             % (v, v, offs, sizes, ones, tensor(self.arg_shape(i), elt), tys[i]))
                vals.append("%%%s_s" % v)
            else:
                vals.append("%" + v)
        if self.init != "acc":
            value = 0.0 if self.init == "zero" else self.fill
            lines += ["  %%cst = arith.constant %s : %s" % (repr(value), elt),
                      "  %%e = tensor.empty() : %s" % tys[2],
                      "  %%init = linalg.fill ins(%%cst : %s) outs(%%e : %s) -> %s" % (elt, tys[2], tys[2])]
            vals.append("%init")
        maps = ", ".join(amap(n, d) for d in self.dims)
        named = self.named_op()
        if named:
            lines.append("  %%r = %s indexing_maps = [%s] ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
                         % (named, self.named_maps(), vals[0], vals[1], tys[0], tys[1], vals[2], tys[2], tys[2]))
        else:
            iters = ", ".join('"reduction"' if k == "k" else '"parallel"' for k in self.kinds)
            lines += ["  %%r = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}" % (maps, iters),
                      "      ins(%s, %s : %s, %s) outs(%s : %s) {" % (vals[0], vals[1], tys[0], tys[1], vals[2], tys[2]),
                      "  ^bb0(%%x: %s, %%y: %s, %%acc: %s):" % (elt, elt, elt),
                      "    %%p = arith.mulf %%x, %%y : %s" % elt,
                      "    %%s = arith.addf %%acc, %%p : %s" % elt,
                      "    linalg.yield %%s : %s" % elt,
                      "  } -> %s" % tys[2]]
        lines += ["  return %%r : %s" % tys[2], "}"]
        return "\n".join(lines) + "\n"

    def named_maps(self):
        """The maps in the named op's own loop order: (b,) m, n, k."""
        order = [d for k in "bmnk" for d in range(len(self.kinds)) if self.kinds[d] == k]
        pos = {d: i for i, d in enumerate(order)}
        return ", ".join(amap(len(order), [pos[d] for d in dims]) for dims in self.dims)

    def inputs(self, r):
        """Small integer values for every argument."""
        out = []
        for i in range(3 if self.init == "acc" else 2):
            count = 1
            for d in self.arg_shape(i):
                count *= d
            out.append([float(r.randint(-3, 3)) for _ in range(count)])
        return out

    def expected(self, values):
        """The contraction by brute force over every loop index."""
        shapes = [self.arg_shape(i) for i in range(3)]
        offs = [self.pads[i] if self.sliced[i] else [0] * len(self.dims[i]) for i in range(3)]
        cshape = self.shape(2)
        out = [0.0] * max(1, len(list(itertools.product(*[range(s) for s in cshape]))))
        cstr = strides_of(cshape)

        def at(i, idx):
            s = strides_of(shapes[i])
            return sum((idx[d] + o) * st for d, o, st in zip(self.dims[i], offs[i], s))

        if self.init == "acc":
            for ci in itertools.product(*[range(s) for s in cshape]):
                idx = dict(zip(self.dims[2], ci))
                out[sum(c * st for c, st in zip(ci, cstr))] = values[2][at(2, idx)]
        elif self.init == "fill":
            out = [self.fill] * len(out)
        for full in itertools.product(*[range(s) for s in self.sizes]):
            idx = dict(enumerate(full))
            ci = sum(idx[d] * st for d, st in zip(self.dims[2], cstr))
            out[ci] += values[0][at(0, idx)] * values[1][at(1, idx)]
        return out


def run(cmd):
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def check(case, opt, runner, work, runner_args=()):
    """None if the case passes, else why."""
    prog = case.program()
    path = os.path.join(work, "seed_%d.mlir" % case.seed)
    with open(path, "w") as f:
        f.write(prog)
    rc, out = run([opt, path, "--dtensor-cpu-pipeline"])
    if rc != 0:
        return "dtensor-opt failed: " + out.strip().splitlines()[0]
    calls = out.count("llvm.call @cblas_") + out.count("llvm.call @dtrt_sgemm_small")
    if (calls > 0) != case.expect_blas:
        return "%d GEMM calls, expected %s" % (calls, "some" if case.expect_blas else "none")
    values = case.inputs(random.Random(case.seed + 1000))
    files = []
    for i, v in enumerate(values):
        files.append(os.path.join(work, "in%d_%d.npy" % (case.seed, i)))
        write_npy(files[-1], case.elt, case.arg_shape(i), v)
    outdir = os.path.join(work, "out_%d" % case.seed)
    os.makedirs(outdir, exist_ok=True)
    cmd = [runner, path, "--np", str(case.np), "--inputs", ",".join(files), "--out", outdir]
    cmd += list(runner_args)
    if case.np > 1:
        cmd.append("--check")
    rc, out = run(cmd)
    if rc != 0 or (case.np > 1 and "check: PASS" not in out):
        return "dtensor-run failed (%d): %s" % (rc, out.strip()[-300:])
    shape, got = read_npy(os.path.join(outdir, "result0.npy"))
    want = case.expected(values)
    if shape != case.shape(2) or len(got) != len(want):
        return "result shape %s, expected %s" % (shape, case.shape(2))
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return "element %d: got %s, expected %s" % (i, g, w)
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dtensor-opt", default="dtensor-opt")
    ap.add_argument("--dtensor-run", default="dtensor-run")
    ap.add_argument("--seeds", default="0:30", help="A:B (half-open) or N for 0:N")
    ap.add_argument("--out-dir", default=None, help="where failing programs are kept")
    ap.add_argument("--runner-arg", action="append", default=[],
                    help="one more argument for dtensor-run (repeatable), e.g. "
                         "--lowering=... to check another pipeline's results")
    args = ap.parse_args(argv)
    a, _, b = args.seeds.partition(":")
    seeds = range(int(a), int(b)) if b else range(int(a))
    work = args.out_dir or tempfile.mkdtemp(prefix="check_blas_")
    os.makedirs(work, exist_ok=True)
    counts = {"blas": 0, "packed": 0, "loops": 0, "pass": 0, "failures": 0}
    for seed in seeds:
        case = Case(seed)
        counts["blas" if case.expect_blas else "loops"] += 1
        counts["packed"] += case.packed
        why = check(case, args.dtensor_opt, args.dtensor_run, work, args.runner_arg)
        if why:
            counts["failures"] += 1
            print("FAIL seed %d (%s, kinds %s, dims %s): %s"
                  % (seed, case.elt, "".join(case.kinds), case.dims, why))
        else:
            counts["pass"] += 1
            os.remove(os.path.join(work, "seed_%d.mlir" % seed))
    print("programs: %d blas: %d packed: %d loops: %d pass: %d failures: %d"
          % (len(seeds), counts["blas"], counts["packed"], counts["loops"], counts["pass"],
             counts["failures"]))
    return 1 if counts["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""PyTorch DTensor oracle for `strategy=pytorch` (issue 14).

Every case is a small program written once in a tiny op list (`Prog`). The
driver runs it twice:

* in PyTorch DTensor, in this process, over a fake process group (backend
  "fake", `FakeStore`) and a mesh of up to 8 ranks, costed as one host of 8
  devices (docs/semantics.md section 3). It records every value's placements
  and per-rank local shapes (`_compute_local_shape_and_global_offset`), every
  redistribution PyTorch performs (implicit ones in the dispatcher and
  explicit `.redistribute`) with its `redistribute_cost` and transform steps,
  and the collectives `CommDebugMode` counts;
* as MLIR (linalg/tensor/dtensor ops, one op per line) through
  `dtensor-opt --dtensor-fake-report="format=json strategy=pytorch"`, whose
  values are matched to the program's by their line (`values[].loc`).

and compares placements, local shapes, collective kinds and counts, and the
plan cost (`totals.comm_cost_us`, 1e-3 relative). PyTorch on CPU runs an
S(i) -> S(j) step as all_gather + local chunk (gloo has no all_to_all), so
CommDebugMode's all_gather count is checked against the report's all_gather
plus all_to_all; the kinds themselves are compared with PyTorch's transform
steps (S->S is all_to_all there, as on GPUs).

Usage:
    parity.py --dtensor-opt BIN --cases [NAME...]     the hand-written suite
    parity.py --dtensor-opt BIN --random 0:200        random programs, seeds [0, 200)
    parity.py ... --show NAME                         print the MLIR and both sides

Output: one line per program (`PASS`, `KNOWN <item>` or `MISMATCH` with the
first differences) and a summary line
    parity: <n> programs, <p> pass, <k> known, <m> mismatch
Exit status 1 on any mismatch, or when a known difference no longer shows
(then it must be taken off KNOWN).
"""

import argparse
import contextlib
import io
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import warnings

# Differences from PyTorch 2.15 that the project keeps on purpose or has not
# fixed yet, by case name (issue 14's item numbers). The list must shrink:
# a case listed here that matches is reported as an error.
KNOWN = {}

# Known differences recognised by what PyTorch did (random programs have no
# fixed names): (item, predicate on the PyTorch side).
KNOWN_RULES = []


def known_difference(prog, t):
    if prog.name in KNOWN:
        return KNOWN[prog.name]
    for item, applies in KNOWN_RULES:
        if applies(t):
            return item
    return None

# ---------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------


class Prog:
    """A straight-line program: arguments, then ops; each defines one value."""

    def __init__(self, name, mesh):
        self.name = name
        self.mesh = tuple(mesh)
        self.args = []  # (name, shape, placements)
        self.ops = []  # (name, kind, operands, attrs)
        self.shapes = {}

    def arg(self, shape, placements):
        n = "a%d" % len(self.args)
        assert len(placements) == len(self.mesh)
        self.args.append((n, tuple(shape), tuple(placements)))
        self.shapes[n] = tuple(shape)
        return n

    def op(self, kind, *operands, **attrs):
        n = "v%d" % len(self.ops)
        self.ops.append((n, kind, operands, attrs))
        self.shapes[n] = infer_shape(kind, [self.shapes[o] for o in operands], attrs)
        return n

    # Shorthands.
    def mm(self, a, b):
        return self.op("mm", a, b)

    def bmm(self, a, b):
        return self.op("bmm", a, b)

    def mm4(self, a, b):
        return self.op("mm4", a, b)

    def add(self, a, b):
        return self.op("add", a, b)

    def mul(self, a, b):
        return self.op("mul", a, b)

    def scale(self, a, c=0.125):
        return self.op("scale", a, c=c)

    def relu(self, a):
        return self.op("relu", a)

    def exp(self, a):
        return self.op("exp", a)

    def softmax(self, a, dim):
        return self.op("softmax", a, dim=dim % len(self.shapes[a]))

    def sum(self, a, dim):
        return self.op("sum", a, dim=dim)

    def amax(self, a, dim):
        return self.op("amax", a, dim=dim)

    def transpose(self, a, d0, d1):
        return self.op("transpose", a, d0=d0, d1=d1)

    def reshape(self, a, shape):
        return self.op("reshape", a, shape=tuple(shape))

    def redistribute(self, a, placements):
        return self.op("redistribute", a, placements=tuple(placements))


def broadcast_shape(a, b):
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        assert x == y or x == 1 or y == 1, (a, b)
        out.append(max(x, y))
    return tuple(out)


def infer_shape(kind, shapes, attrs):
    if kind == "mm":
        (m, k), (k2, n) = shapes
        assert k == k2
        return (m, n)
    if kind == "bmm":
        (b, m, k), (b2, k2, n) = shapes
        assert b == b2 and k == k2
        return (b, m, n)
    if kind == "mm4":
        (b, h, m, k), (b2, h2, k2, n) = shapes
        assert (b, h, k) == (b2, h2, k2)
        return (b, h, m, n)
    if kind in ("add", "mul"):
        return broadcast_shape(*shapes)
    if kind in ("scale", "relu", "exp", "softmax", "redistribute"):
        return shapes[0]
    if kind in ("sum", "amax"):
        s = list(shapes[0])
        del s[attrs["dim"]]
        return tuple(s)
    if kind == "transpose":
        s = list(shapes[0])
        s[attrs["d0"]], s[attrs["d1"]] = s[attrs["d1"]], s[attrs["d0"]]
        return tuple(s)
    if kind == "reshape":
        assert math.prod(attrs["shape"]) == math.prod(shapes[0])
        return attrs["shape"]
    raise ValueError(kind)


# ---------------------------------------------------------------------------
# Placements
# ---------------------------------------------------------------------------


def parse_placement(s):
    """'S(0)', 'R', 'P(sum)', '_S(0, 4)' -> a tuple used on both sides."""
    if s == "R":
        return ("R",)
    if s.startswith("_S("):
        d, sf = s[3:-1].split(",")
        return ("_S", int(d), int(sf))
    if s.startswith("S("):
        return ("S", int(s[2:-1]))
    if s.startswith("P("):
        return ("P", s[2:-1])
    raise ValueError(s)


def to_torch_placement(s):
    from torch.distributed.tensor import Partial, Replicate, Shard
    from torch.distributed.tensor.placement_types import _StridedShard

    p = parse_placement(s)
    if p[0] == "R":
        return Replicate()
    if p[0] == "_S":
        return _StridedShard(p[1], split_factor=p[2])
    if p[0] == "S":
        return Shard(p[1])
    return Partial(p[1])


def from_torch_placement(p):
    from torch.distributed.tensor import Partial, Replicate, Shard
    from torch.distributed.tensor.placement_types import _StridedShard

    if isinstance(p, Replicate):
        return "R"
    if isinstance(p, _StridedShard):
        # PyTorch's str(), which is also the dialect's syntax.
        return "_S(%d, %d)" % (p.dim, p.split_factor)
    if type(p) is Shard:
        return "S(%d)" % p.dim
    if isinstance(p, Partial):
        return "P(%s)" % p.reduce_op
    # Anything newer: printed as PyTorch prints it.
    return repr(p)


# ---------------------------------------------------------------------------
# PyTorch side
# ---------------------------------------------------------------------------


class Torch:
    """PyTorch DTensor over a fake process group of 8 ranks."""

    def __init__(self):
        import torch
        import torch.distributed as dist
        from torch.distributed.device_mesh import DeviceMesh, _mesh_resources
        from torch.testing._internal.distributed.fake_pg import FakeStore

        self.torch = torch
        if not dist.is_initialized():
            dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=8)
        # One host of 8 devices: the intra-host figures of the cost model.
        _mesh_resources.num_devices_per_host = lambda device_type: 8
        self.meshes = {}
        self.DeviceMesh = DeviceMesh
        self._hook()

    def mesh(self, shape):
        if shape not in self.meshes:
            ids = self.torch.arange(math.prod(shape)).reshape(shape)
            names = tuple("a%d" % i for i in range(len(shape)))
            self.meshes[shape] = self.DeviceMesh("cpu", ids, mesh_dim_names=names)
        return self.meshes[shape]

    def _hook(self):
        import torch.distributed.tensor._api as api
        import torch.distributed.tensor._dispatch as dispatch
        import torch.distributed.tensor._redistribute as red
        from torch.distributed.tensor._collective_utils import redistribute_cost

        self.recorded = []
        orig = red.redistribute_local_tensor

        def hooked(local, current, target, *args, **kwargs):
            steps = red._gen_transform_infos(current, target)
            self.recorded.append(
                {
                    "from": [from_torch_placement(p) for p in current.placements],
                    "to": [from_torch_placement(p) for p in target.placements],
                    "cost": redistribute_cost(current, target),
                    "steps": [
                        (s.mesh_dim, s.src_dst_placements[0], s.src_dst_placements[1])
                        for s in steps
                    ],
                }
            )
            return orig(local, current, target, *args, **kwargs)

        for mod in (red, dispatch, api):
            if hasattr(mod, "redistribute_local_tensor"):
                mod.redistribute_local_tensor = hooked

    def local_shapes(self, shape, mesh, placements):
        from torch.distributed.tensor._utils import _compute_local_shape_and_global_offset
        import itertools

        out = []
        for coord in itertools.product(*[range(k) for k in mesh.shape]):
            ls, _ = _compute_local_shape_and_global_offset(
                shape, tuple(mesh.shape), list(coord), placements, skip_offset=True
            )
            out.append(list(ls))
        return out

    def make(self, mesh, shape, placements):
        from torch.distributed.tensor import DTensor

        torch = self.torch
        ps = [to_torch_placement(p) for p in placements]
        local = self.local_shapes(shape, mesh, ps)[0]
        t = torch.randn(local)
        stride = torch.empty(shape).stride()
        return DTensor.from_local(t, mesh, ps, run_check=False, shape=torch.Size(shape), stride=stride)

    def run(self, prog):
        """{'values': {name: (placements, local_shapes)}, 'cost', 'kinds', 'comm', 'error'}."""
        from torch.distributed.tensor.debug import CommDebugMode

        torch = self.torch
        mesh = self.mesh(prog.mesh)
        env = {}
        for n, shape, ps in prog.args:
            env[n] = self.make(mesh, shape, ps)
        self.recorded = []
        error = None
        mode = CommDebugMode()
        with mode, torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for n, kind, operands, attrs in prog.ops:
                xs = [env[o] for o in operands]
                try:
                    env[n] = self.apply(mesh, kind, xs, attrs)
                except Exception as e:  # PyTorch refuses the program
                    error = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:160])
                    break
        values = {}
        for n in [a[0] for a in prog.args] + [o[0] for o in prog.ops]:
            if n in env:
                ps = list(env[n].placements)
                values[n] = (
                    [from_torch_placement(p) for p in ps],
                    self.local_shapes(prog.shapes[n], mesh, ps),
                )
        kinds = {}
        for r in self.recorded:
            for _, src, dst in r["steps"]:
                k = step_kind(src, dst)
                if k:
                    kinds[k] = kinds.get(k, 0) + 1
        comm = {}
        for op, c in mode.get_comm_counts().items():
            name = str(op).split(".")[-1].split("'")[0]
            comm[name] = comm.get(name, 0) + c
        return {
            "values": values,
            "cost": sum(r["cost"] for r in self.recorded),
            "kinds": kinds,
            "comm": comm,
            "redistributions": self.recorded,
            "error": error,
        }

    def apply(self, mesh, kind, xs, attrs):
        torch = self.torch
        if kind == "mm":
            return torch.mm(*xs)
        if kind == "bmm":
            return torch.bmm(*xs)
        if kind == "mm4":
            return torch.matmul(*xs)
        if kind == "add":
            return xs[0] + xs[1]
        if kind == "mul":
            return xs[0] * xs[1]
        if kind == "scale":
            return xs[0] * attrs["c"]
        if kind == "relu":
            return torch.relu(xs[0])
        if kind == "exp":
            return torch.exp(xs[0])
        if kind == "softmax":
            return torch.softmax(xs[0], dim=attrs["dim"])
        if kind == "sum":
            return torch.sum(xs[0], dim=attrs["dim"])
        if kind == "amax":
            return torch.amax(xs[0], dim=attrs["dim"])
        if kind == "transpose":
            return torch.transpose(xs[0], attrs["d0"], attrs["d1"])
        if kind == "reshape":
            return xs[0].reshape(attrs["shape"])
        if kind == "redistribute":
            return xs[0].redistribute(mesh, [to_torch_placement(p) for p in attrs["placements"]])
        raise ValueError(kind)


def step_kind(src, dst):
    from torch.distributed.tensor.placement_types import _StridedShard

    if src == dst:
        return None
    # A strided shard is gathered whole: PyTorch 2.15 runs `_S` -> R and
    # `_S` -> S as one all_gather (a chunk follows), S -> `_S` likewise, and
    # P -> `_S` as one all_reduce (CommDebugMode counts them so).
    if isinstance(src, _StridedShard) or isinstance(dst, _StridedShard):
        if src.is_partial():
            return "all_reduce"
        if src.is_replicate():
            return None
        return "all_gather"
    if src.is_shard() and dst.is_replicate():
        return "all_gather"
    if src.is_shard() and dst.is_shard():
        return "all_to_all"
    if src.is_partial() and dst.is_replicate():
        return "all_reduce"
    if src.is_partial() and dst.is_shard():
        return "reduce_scatter"
    return None


# ---------------------------------------------------------------------------
# MLIR side
# ---------------------------------------------------------------------------


def ttype(shape):
    return "tensor<%sf32>" % "".join("%dx" % d for d in shape)


def spec(placements):
    return "#dtensor.spec<@mesh, [%s]>" % ", ".join(placements)


def affine(n, dims):
    ds = ", ".join("d%d" % i for i in range(n))
    return "affine_map<(%s) -> (%s)>" % (ds, ", ".join(dims))


def broadcast_map(n, shape, out_shape):
    """Map of an operand of `shape` broadcast (numpy style) to `out_shape`."""
    off = n - len(shape)
    dims = []
    for i, d in enumerate(shape):
        dims.append("0" if d == 1 and out_shape[off + i] != 1 else "d%d" % (off + i))
    return affine(n, dims)


def reassociation(src, dst):
    """Groups of `src` dims that merge into one `dst` dim (collapse), or None."""
    groups, i = [], 0
    for d in dst:
        g, p = [], 1
        while i < len(src) and (p < d or not g):
            p *= src[i]
            g.append(i)
            i += 1
        # Trailing unit dims join the group.
        while i < len(src) and src[i] == 1 and p == d and len(groups) + 1 == len(dst):
            g.append(i)
            i += 1
        if p != d:
            return None
        groups.append(g)
    return groups if i == len(src) else None


class Emitter:
    def __init__(self, prog):
        self.p = prog
        self.lines = []
        self.line_of = {}  # value name -> 1-based line

    def emit(self, text, value=None):
        self.lines.append(text)
        if value:
            self.line_of[value] = len(self.lines)

    def run(self):
        p = self.p
        axes = ", ".join('"a%d" = %d' % (i, k) for i, k in enumerate(p.mesh))
        self.emit("dtensor.mesh @mesh = <[%s]>" % axes)
        self.emit("func.func @%s(" % p.name)
        for i, (n, shape, ps) in enumerate(p.args):
            sep = "," if i + 1 < len(p.args) else ""
            self.emit("    %%%s: %s {dtensor.spec = %s}%s" % (n, ttype(shape), spec(ps), sep), n)
        last = p.ops[-1][0] if p.ops else p.args[-1][0]
        self.emit("    ) -> %s {" % ttype(p.shapes[last]))
        self.emit("  %zero = arith.constant 0.0 : f32")
        self.emit("  %ninf = arith.constant 0xFF800000 : f32")
        for n, kind, operands, attrs in p.ops:
            getattr(self, "op_" + kind)(n, [(o, p.shapes[o]) for o in operands], p.shapes[n], attrs)
        self.emit("  return %%%s : %s" % (last, ttype(p.shapes[last])))
        self.emit("}")
        return "\n".join(self.lines) + "\n"

    def filled(self, n, shape, init="%zero"):
        t = ttype(shape)
        self.emit("  %%e_%s = tensor.empty() : %s" % (n, t))
        self.emit("  %%f_%s = linalg.fill ins(%s : f32) outs(%%e_%s : %s) -> %s" % (n, init, n, t, t))
        return "%%f_%s" % n

    def op_mm(self, n, xs, shape, attrs, op="linalg.matmul"):
        f = self.filled(n, shape)
        t = ttype(shape)
        self.emit(
            "  %%%s = %s ins(%%%s, %%%s : %s, %s) outs(%s : %s) -> %s"
            % (n, op, xs[0][0], xs[1][0], ttype(xs[0][1]), ttype(xs[1][1]), f, t, t),
            n,
        )

    def op_bmm(self, n, xs, shape, attrs):
        self.op_mm(n, xs, shape, attrs, op="linalg.batch_matmul")

    def op_mm4(self, n, xs, shape, attrs):
        f = self.filled(n, shape)
        t = ttype(shape)
        maps = [affine(5, ["d0", "d1", "d2", "d4"]), affine(5, ["d0", "d1", "d4", "d3"]),
                affine(5, ["d0", "d1", "d2", "d3"])]
        self.emit(
            '  %%%s = linalg.generic {indexing_maps = [%s], iterator_types = ["parallel", "parallel", '
            '"parallel", "parallel", "reduction"]} ins(%%%s, %%%s : %s, %s) outs(%s : %s) {'
            % (n, ", ".join(maps), xs[0][0], xs[1][0], ttype(xs[0][1]), ttype(xs[1][1]), f, t),
            n,
        )
        self.emit("  ^bb0(%a: f32, %b: f32, %acc: f32):")
        self.emit("    %m = arith.mulf %a, %b : f32")
        self.emit("    %r = arith.addf %acc, %m : f32")
        self.emit("    linalg.yield %r : f32")
        self.emit("  } -> %s" % t)

    def elementwise(self, n, xs, shape, body):
        r = len(shape)
        t = ttype(shape)
        self.emit("  %%e_%s = tensor.empty() : %s" % (n, t))
        maps = [broadcast_map(r, s, shape) for _, s in xs] + [affine(r, ["d%d" % i for i in range(r)])]
        ins = ", ".join("%" + o for o, _ in xs)
        tys = ", ".join(ttype(s) for _, s in xs)
        self.emit(
            "  %%%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} ins(%s : %s) outs(%%e_%s : %s) {"
            % (n, ", ".join(maps), ", ".join(['"parallel"'] * r), ins, tys, n, t),
            n,
        )
        args = ", ".join("%%x%d: f32" % i for i in range(len(xs)))
        self.emit("  ^bb0(%s, %%o: f32):" % args)
        for line in body:
            self.emit("    " + line)
        self.emit("    linalg.yield %y : f32")
        self.emit("  } -> %s" % t)

    def op_add(self, n, xs, shape, attrs):
        self.elementwise(n, xs, shape, ["%y = arith.addf %x0, %x1 : f32"])

    def op_mul(self, n, xs, shape, attrs):
        self.elementwise(n, xs, shape, ["%y = arith.mulf %x0, %x1 : f32"])

    def op_scale(self, n, xs, shape, attrs):
        self.elementwise(n, xs, shape, ["%%c = arith.constant %r : f32" % float(attrs["c"]),
                                        "%y = arith.mulf %x0, %c : f32"])

    def op_relu(self, n, xs, shape, attrs):
        self.elementwise(n, xs, shape, ["%y = arith.maximumf %x0, %zero : f32"])

    def op_exp(self, n, xs, shape, attrs):
        self.elementwise(n, xs, shape, ["%y = math.exp %x0 : f32"])

    def op_softmax(self, n, xs, shape, attrs):
        t = ttype(shape)
        self.emit("  %%e_%s = tensor.empty() : %s" % (n, t))
        self.emit(
            "  %%%s = linalg.softmax dimension(%d) ins(%%%s : %s) outs(%%e_%s : %s) -> %s"
            % (n, attrs["dim"], xs[0][0], t, n, t, t),
            n,
        )

    def op_sum(self, n, xs, shape, attrs, combine="arith.addf", init="%zero"):
        f = self.filled(n, shape, init)
        t = ttype(shape)
        self.emit(
            "  %%%s = linalg.reduce ins(%%%s : %s) outs(%s : %s) dimensions = [%d]"
            % (n, xs[0][0], ttype(xs[0][1]), f, t, attrs["dim"]),
            n,
        )
        self.emit("    (%in: f32, %init: f32) {")
        self.emit("      %%y = %s %%in, %%init : f32" % combine)
        self.emit("      linalg.yield %y : f32")
        self.emit("    }")

    def op_amax(self, n, xs, shape, attrs):
        self.op_sum(n, xs, shape, attrs, combine="arith.maximumf", init="%ninf")

    def op_transpose(self, n, xs, shape, attrs):
        t = ttype(shape)
        perm = list(range(len(shape)))
        perm[attrs["d0"]], perm[attrs["d1"]] = perm[attrs["d1"]], perm[attrs["d0"]]
        self.emit("  %%e_%s = tensor.empty() : %s" % (n, t))
        self.emit(
            "  %%%s = linalg.transpose ins(%%%s : %s) outs(%%e_%s : %s) permutation = [%s]"
            % (n, xs[0][0], ttype(xs[0][1]), n, t, ", ".join(map(str, perm))),
            n,
        )

    def op_reshape(self, n, xs, shape, attrs):
        src = xs[0][1]
        g = reassociation(src, shape)
        if g is not None:
            self.emit(
                "  %%%s = tensor.collapse_shape %%%s %s : %s into %s"
                % (n, xs[0][0], json.dumps(g), ttype(src), ttype(shape)),
                n,
            )
            return
        g = reassociation(shape, src)
        assert g is not None, "reshape %s -> %s is neither a collapse nor an expand" % (src, shape)
        self.emit(
            "  %%%s = tensor.expand_shape %%%s %s output_shape %s : %s into %s"
            % (n, xs[0][0], json.dumps(g), list(shape), ttype(src), ttype(shape)),
            n,
        )

    def op_redistribute(self, n, xs, shape, attrs):
        self.emit(
            "  %%%s = dtensor.redistribute %%%s to %s : %s"
            % (n, xs[0][0], spec(attrs["placements"]), ttype(shape)),
            n,
        )


def run_project(prog, opt, tmp):
    em = Emitter(prog)
    text = em.run()
    path = os.path.join(tmp, prog.name + ".mlir")
    out = os.path.join(tmp, prog.name + ".json")
    with open(path, "w") as f:
        f.write(text)
    proc = subprocess.run(
        [opt, path, "--dtensor-fake-report=format=json output=%s strategy=pytorch" % out, "-o", os.devnull],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[:3], "text": text}
    fn = json.load(open(out))["functions"][0]
    by_line = {}
    for v in fn["values"]:
        if v.get("loc"):
            by_line[int(v["loc"].split(":")[1])] = v
    values = {}
    for name, line in em.line_of.items():
        v = by_line.get(line)
        if v:
            values[name] = (v["placements"], v["local_shapes"])
    kinds = {}
    for c in fn["collectives"]:
        kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
    return {
        "values": values,
        "cost": fn["totals"]["comm_cost_us"],
        "kinds": kinds,
        "redistributions": fn["redistributions"],
        "warnings": [l for l in proc.stderr.splitlines() if "warning:" in l],
        "text": text,
    }


def compare(prog, t, m):
    """The differences between the two sides, as short strings."""
    diffs = []
    if "error" in m and m["error"]:
        return ["dtensor-opt failed: %s" % " | ".join(m["error"])]
    if t["error"]:
        # PyTorch refuses: the project must say so (docs/semantics.md section 4).
        if not any("PyTorch" in w for w in m["warnings"]):
            diffs.append("PyTorch refuses (%s) but dtensor-opt gives no warning" % t["error"])
        return diffs
    for n in [a[0] for a in prog.args] + [o[0] for o in prog.ops]:
        tv, mv = t["values"].get(n), m["values"].get(n)
        if mv is None:
            diffs.append("%s: not in the report" % n)
            continue
        if tv[0] != mv[0]:
            diffs.append("%s: placements torch %s project %s" % (n, tv[0], mv[0]))
        elif tv[1] != mv[1]:
            diffs.append("%s: local shapes torch %s project %s" % (n, tv[1], mv[1]))
    if t["kinds"] != m["kinds"]:
        diffs.append("collectives torch %s project %s" % (t["kinds"], m["kinds"]))
    # CommDebugMode (CPU: S->S runs as all_gather).
    comm = dict(t["comm"])
    expect = {}
    for k, c in m["kinds"].items():
        key = {"all_gather": "all_gather_into_tensor", "all_to_all": "all_gather_into_tensor",
               "all_reduce": "all_reduce", "reduce_scatter": "reduce_scatter_tensor"}[k]
        expect[key] = expect.get(key, 0) + c
    if comm != expect:
        diffs.append("CommDebugMode %s, report implies %s" % (comm, expect))
    tc, mc = t["cost"], m["cost"]
    if abs(tc - mc) > 1e-3 * max(abs(tc), abs(mc)) + 1e-9:
        diffs.append("cost torch %.4f project %.4f" % (tc, mc))
    return diffs


# ---------------------------------------------------------------------------
# The suite
# ---------------------------------------------------------------------------

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def placements_1d():
    return [["R"], ["S(0)"], ["S(1)"], ["P(sum)"]]


def all_placements(mesh, rank, partial=True):
    one = ["R"] + ["S(%d)" % d for d in range(rank)] + (["P(sum)"] if partial else [])
    out = [[]]
    for _ in mesh:
        out = [o + [p] for o in out for p in one]
    return out


def redistribution_cases():
    """Every pair of placements of a [8, 12] tensor on a mesh of 4 and of 2x2
    (targets without Partial: users do not redistribute to Partial)."""
    progs = []
    for mesh in [(4,), (2, 2)]:
        srcs = all_placements(mesh, 2)
        dsts = all_placements(mesh, 2, partial=False)
        for s in srcs:
            for d in dsts:
                if s == d:
                    continue
                name = "redist_%s_%s_to_%s" % ("x".join(map(str, mesh)), tag(s), tag(d))
                p = Prog(name, mesh)
                x = p.arg([8, 12], s)
                p.redistribute(x, d)
                progs.append(p)
    return progs


def tag(ps):
    return "_".join(p.replace("(", "").replace(")", "") for p in ps)


def block(name, mesh, x_ps, w_ps, layout, b=4, s=8, d=16, heads=2, f=32, ret=None):
    """The RFC Block: attention with 4-D contractions (`layout="4d"`) or with
    transposes and 3-D batch matmuls (`layout="transposed"`), then the MLP."""
    p = Prog(name, mesh)
    dh = d // heads
    x = p.arg([b * s, d], x_ps)
    wq, wk, wv, wo = (p.arg([d, d], w_ps[i]) for i in range(4))
    w1 = p.arg([d, f], w_ps[4])
    w2 = p.arg([f, d], w_ps[5])

    def heads_of(t):  # [b*s, d] -> [b, h, s, dh]
        t = p.reshape(t, [b, s, heads, dh])
        return p.transpose(t, 1, 2)

    q, k, v = heads_of(p.mm(x, wq)), heads_of(p.mm(x, wk)), heads_of(p.mm(x, wv))
    kt = p.transpose(k, 2, 3)
    if layout == "4d":
        sc = p.scale(p.mm4(q, kt))
        pr = p.softmax(sc, -1)
        o = p.mm4(pr, v)
    else:
        q3 = p.reshape(q, [b * heads, s, dh])
        kt3 = p.reshape(kt, [b * heads, dh, s])
        v3 = p.reshape(v, [b * heads, s, dh])
        sc = p.scale(p.bmm(q3, kt3))
        pr = p.softmax(sc, -1)
        o = p.reshape(p.bmm(pr, v3), [b, heads, s, dh])
    o = p.reshape(p.transpose(o, 1, 2), [b * s, d])
    h = p.add(p.mm(o, wo), x)
    out = p.add(p.mm(p.relu(p.mm(h, w1)), w2), h)
    if ret:
        p.redistribute(out, ret)
    return p


def mlp(name, mesh, x_ps, w1_ps, w2_ps, bias=False, ret=None, m=32, d=16, f=64):
    p = Prog(name, mesh)
    x = p.arg([m, d], x_ps)
    w1 = p.arg([d, f], w1_ps)
    w2 = p.arg([f, d], w2_ps)
    h = p.mm(x, w1)
    if bias:
        h = p.add(h, p.arg([f], [("R" if "S(1)" not in w1_ps[i] else "S(0)") for i in range(len(mesh))]))
    y = p.mm(p.relu(h), w2)
    if ret:
        p.redistribute(y, ret)
    return p


def suite():
    progs = []
    # docs/semantics.md section 1: uneven local shapes, 1-D and 2-D.
    for n, mesh, shape, ps in [
        ("uneven_10_over_4", (4,), [10, 3], ["S(0)"]),
        ("uneven_10_over_3", (3,), [10, 3], ["S(0)"]),
        ("uneven_5_over_4", (4,), [5, 2], ["S(0)"]),
        ("uneven_4_over_3", (3,), [4, 2], ["S(0)"]),
        ("uneven_7_over_8", (8,), [7, 2], ["S(0)"]),
        ("uneven_2d_rows", (2, 2), [10, 3], ["S(0)", "S(0)"]),
        ("uneven_2d_cols", (2, 2), [2, 5], ["S(1)", "S(1)"]),
    ]:
        p = Prog(n, mesh)
        x = p.arg(shape, ps)
        y = p.relu(x)
        p.redistribute(p.add(y, x), ["R"] * len(mesh))
        progs.append(p)
    # Section 2: the 2x2 swap (issue item 4).
    p = Prog("swap_2x2", (2, 2))
    p.redistribute(p.arg([8, 8], ["S(0)", "S(1)"]), ["S(1)", "S(0)"])
    progs.append(p)
    # Section 4, mm picks.
    for n, xs, ws in [
        ("mm_S0_R", ["S(0)"], ["R"]),
        ("mm_R_S1", ["R"], ["S(1)"]),
        ("mm_S1_S0", ["S(1)"], ["S(0)"]),
        ("mm_S0_S0", ["S(0)"], ["S(0)"]),
        ("mm_S1_R", ["S(1)"], ["R"]),
        ("mm_P_S1_small", ["P(sum)"], ["S(1)"]),
        ("mm_P_R", ["P(sum)"], ["R"]),
        ("mm_R_P", ["R"], ["P(sum)"]),
    ]:
        p = Prog(n, (4,))
        p.mm(p.arg([32, 64], xs), p.arg([64, 128], ws))
        progs.append(p)
    # Item 1: a large partial lhs: PyTorch keeps it partial and gathers w.
    p = Prog("mm_P_S1_large", (4,))
    p.mm(p.arg([4096, 512], ["P(sum)"]), p.arg([512, 2048], ["S(1)"]))
    progs.append(p)
    p = Prog("mm_P_S0_large", (4,))
    p.mm(p.arg([4096, 512], ["P(sum)"]), p.arg([512, 2048], ["S(0)"]))
    progs.append(p)
    p = Prog("bmm_S0_S0", (4,))
    p.bmm(p.arg([8, 16, 32], ["S(0)"]), p.arg([8, 32, 16], ["S(0)"]))
    progs.append(p)
    # Elementwise.
    p = Prog("add_S0_S0", (4,))
    p.add(p.arg([32, 16], ["S(0)"]), p.arg([32, 16], ["S(0)"]))
    progs.append(p)
    p = Prog("add_bias_broadcast", (4,))
    p.add(p.arg([32, 128, 64], ["S(0)"]), p.arg([64], ["R"]))
    progs.append(p)
    p = Prog("add_partials", (4,))
    p.add(p.arg([32, 16], ["P(sum)"]), p.arg([32, 16], ["P(sum)"]))
    progs.append(p)
    p = Prog("scale_partial", (4,))
    p.scale(p.arg([32, 16], ["P(sum)"]))
    progs.append(p)
    p = Prog("relu_partial", (4,))
    p.relu(p.arg([32, 16], ["P(sum)"]))
    progs.append(p)
    p = Prog("exp_partial", (4,))
    p.exp(p.arg([32, 16], ["P(sum)"]))
    progs.append(p)
    p = Prog("mul_partials", (4,))
    x = p.arg([32, 16], ["P(sum)"])
    p.mul(x, x)
    progs.append(p)
    p = Prog("add_partial_replicated", (4,))
    p.add(p.arg([32, 16], ["P(sum)"]), p.arg([32, 16], ["R"]))
    progs.append(p)
    p = Prog("add_S0_S1", (4,))
    p.add(p.arg([32, 16], ["S(0)"]), p.arg([32, 16], ["S(1)"]))
    progs.append(p)
    # P(avg) through the linear ops (PyTorch's avg rules), not through exp.
    p = Prog("pavg_linear", (4,))
    x = p.arg([64, 64], ["P(avg)"])
    y = p.exp(x)
    p.redistribute(p.add(p.mm(x, p.arg([64, 64], ["R"])), y), ["R"])
    progs.append(p)
    # Item 2: relu on [S(0), P(sum)].
    p = Prog("relu_S0_P_2x2", (2, 2))
    p.relu(p.arg([8, 16], ["S(0)", "P(sum)"]))
    progs.append(p)
    # Softmax and reductions.
    p = Prog("softmax_S0", (4,))
    p.softmax(p.arg([32, 8, 16, 16], ["S(0)"]), -1)
    progs.append(p)
    p = Prog("softmax_sharded_dim", (4,))
    p.softmax(p.arg([32, 16], ["S(1)"]), -1)
    progs.append(p)
    p = Prog("softmax_partial", (4,))
    p.softmax(p.arg([32, 16], ["P(sum)"]), -1)
    progs.append(p)
    p = Prog("sum_sharded_dim", (4,))
    p.redistribute(p.sum(p.arg([32, 16], ["S(0)"]), 0), ["R"])
    progs.append(p)
    p = Prog("sum_other_dim", (4,))
    p.sum(p.arg([32, 16], ["S(0)"]), 1)
    progs.append(p)
    p = Prog("amax_sharded_dim", (4,))
    p.redistribute(p.amax(p.arg([32, 16], ["S(1)"]), 1), ["R"])
    progs.append(p)
    p = Prog("sum_2x2", (2, 2))
    p.sum(p.arg([8, 16], ["S(0)", "S(1)"]), 1)
    progs.append(p)
    # Transposes and reshapes.
    p = Prog("transpose_S0", (4,))
    p.transpose(p.arg([8, 16, 4], ["S(0)"]), 0, 1)
    progs.append(p)
    p = Prog("reshape_merge_first", (4,))
    p.reshape(p.arg([8, 16], ["S(0)"]), [128])
    progs.append(p)
    p = Prog("reshape_split_first", (4,))
    p.reshape(p.arg([32, 16], ["S(0)"]), [4, 8, 16])
    progs.append(p)
    p = Prog("reshape_split_second", (4,))
    p.reshape(p.arg([8, 32], ["S(1)"]), [8, 4, 8])
    progs.append(p)
    p = Prog("reshape_merge_second", (4,))  # item 3: strided shard
    p.reshape(p.arg([4, 8], ["S(1)"]), [32])
    progs.append(p)
    # Item 3: merging with a later merged dim sharded gives a strided shard
    # (_StridedShard, `_S(d, sf)`), without communication; ops carry it and
    # splitting it back gives the plain shard.
    for n, mesh, shape, ps, out in [
        ("strided_merge_back", (4,), [4, 8], ["S(1)"], [32]),
        ("strided_merge_uneven", (4,), [3, 6], ["S(1)"], [18]),
        ("strided_merge_uneven_3", (3,), [4, 8], ["S(1)"], [32]),
        ("strided_merge_3d_all", (4,), [2, 3, 8], ["S(2)"], [48]),
        ("strided_merge_3d_last2", (4,), [2, 3, 8], ["S(2)"], [2, 24]),
        ("strided_merge_refused", (4,), [2, 3, 8], ["S(1)"], [48]),
        ("strided_merge_2x2_S0_S1", (2, 2), [4, 8], ["S(0)", "S(1)"], [32]),
        ("strided_merge_2x2_R_S1", (2, 2), [4, 8], ["R", "S(1)"], [32]),
        ("strided_merge_2x2_S1_S1", (2, 2), [4, 8], ["S(1)", "S(1)"], [32]),
        ("strided_merge_2x2_S1_R", (2, 2), [4, 8], ["S(1)", "R"], [32]),
        ("strided_merge_2x2_S1_S0", (2, 2), [4, 8], ["S(1)", "S(0)"], [32]),
        ("strided_merge_2x4_S0_S2", (2, 4), [2, 4, 8], ["S(0)", "S(2)"], [2, 32]),
    ]:
        p = Prog(n, mesh)
        x = p.arg(shape, ps)
        y = p.relu(p.reshape(x, out))
        p.reshape(p.add(y, y), shape)
        progs.append(p)
    # Reductions over a strided dim give P(sum); softmax over another dim
    # keeps the strided shard.
    p = Prog("strided_sum", (4,))
    y = p.reshape(p.arg([2, 3, 8], ["S(2)"]), [2, 24])
    p.redistribute(p.sum(y, 1), ["R"])
    progs.append(p)
    p = Prog("strided_softmax", (4,))
    y = p.reshape(p.arg([2, 3, 8], ["S(2)"]), [2, 24])
    p.softmax(y, 0)
    progs.append(p)
    # Redistributions from and to a strided shard.
    for n, mesh, shape, ps, out, to in [
        ("strided_to_R", (4,), [4, 8], ["S(1)"], [32], ["R"]),
        ("strided_to_S0", (4,), [4, 8], ["S(1)"], [32], ["S(0)"]),
        ("strided_uneven_to_R", (4,), [3, 6], ["S(1)"], [18], ["R"]),
        ("strided_2d_to_S0", (4,), [2, 3, 8], ["S(2)"], [2, 24], ["S(0)"]),
        ("strided_2d_to_S1", (4,), [2, 3, 8], ["S(2)"], [2, 24], ["S(1)"]),
        ("strided_2x2_to_R_R", (2, 2), [4, 8], ["S(0)", "S(1)"], [32], ["R", "R"]),
        ("strided_2x2_to_S0_S0", (2, 2), [4, 8], ["S(0)", "S(1)"], [32], ["S(0)", "S(0)"]),
        ("strided_2x2_to_S0_R", (2, 2), [4, 8], ["S(1)", "R"], [32], ["S(0)", "R"]),
    ]:
        p = Prog(n, mesh)
        p.redistribute(p.reshape(p.arg(shape, ps), out), to)
        progs.append(p)
    for n, mesh, ps, to in [
        ("redist_R_to_strided", (4,), ["R"], ["_S(0, 4)"]),
        ("redist_R_to_strided_uneven", (4,), ["R"], ["_S(0, 3)"]),
    ]:
        p = Prog(n, mesh)
        p.relu(p.redistribute(p.arg([24], ps), to))
        progs.append(p)
    p = Prog("reshape_uneven", (4,))  # item 5
    p.reshape(p.arg([10, 4], ["S(0)"]), [40])
    progs.append(p)
    p = Prog("reshape_2x2", (2, 2))
    p.reshape(p.arg([8, 4, 8], ["S(0)", "S(2)"]), [32, 8])
    progs.append(p)
    # Megatron MLP both ways, the Block in its three forms both ways.
    progs.append(mlp("megatron_mlp", (4,), ["R"], ["S(1)"], ["S(0)"], ret=["R"]))
    progs.append(mlp("megatron_mlp_bias", (4,), ["R"], ["S(1)"], ["S(0)"], bias=True, ret=["R"]))
    progs.append(mlp("megatron_mlp_rs", (4,), ["R"], ["S(1)"], ["S(0)"], ret=["S(0)"]))
    progs.append(mlp("mlp_dp", (4,), ["S(0)"], ["R"], ["R"]))
    progs.append(mlp("mlp_2d", (2, 2), ["S(0)", "R"], ["R", "S(1)"], ["R", "S(0)"], ret=["S(0)", "R"]))
    for layout in ["4d", "transposed"]:
        progs.append(block("block_dp_" + layout, (4,), ["S(0)"], [["R"]] * 6, layout))
        tp = [["S(1)"], ["S(1)"], ["S(1)"], ["S(0)"], ["S(1)"], ["S(0)"]]
        progs.append(block("block_tp_" + layout, (4,), ["R"], tp, layout, ret=["R"]))
        progs.append(block("block_tp_big_" + layout, (4,), ["R"], tp, layout, b=8, s=64, d=64, heads=4,
                           f=256, ret=["R"]))
        tp2 = [["R", p[0]] for p in tp]
        progs.append(block("block_2d_" + layout, (2, 2), ["S(0)", "R"], tp2, layout, ret=["S(0)", "R"]))
    progs.extend(redistribution_cases())
    return progs


# ---------------------------------------------------------------------------
# Random programs
# ---------------------------------------------------------------------------

MESHES = [(2,), (3,), (4,), (8,), (2, 2), (2, 4), (4, 2)]


def random_prog(seed):
    """A small random program with the Block's ops on a random mesh."""
    rng = random.Random(seed)
    mesh = rng.choice(MESHES)
    p = Prog("rand%d" % seed, mesh)
    dims = [rng.choice([4, 6, 8, 12, 16]) for _ in range(3)]
    m, k, n = dims

    def rand_ps(rank, partial=True):
        opts = ["R"] * 2 + ["S(%d)" % d for d in range(rank)] + (["P(sum)"] if partial else [])
        return [rng.choice(opts) for _ in mesh]

    pool = [p.arg([m, k], rand_ps(2)), p.arg([k, n], rand_ps(2, partial=False))]
    for _ in range(rng.randint(2, 6)):
        two = [v for v in pool if len(p.shapes[v]) == 2]
        x = rng.choice(pool)
        sx = p.shapes[x]
        choice = rng.choice(["mm", "add", "relu", "scale", "softmax", "sum", "transpose",
                             "redistribute", "exp", "mul", "reshape", "bias"])
        if choice == "mm":
            cands = [(a, b) for a in two for b in two if p.shapes[a][1] == p.shapes[b][0]]
            if not cands:
                w = p.arg([sx[-1], rng.choice(dims)], rand_ps(2, partial=False)) if len(sx) == 2 else None
                if w is None:
                    continue
                cands = [(x, w)]
            a, b = rng.choice(cands)
            pool.append(p.mm(a, b))
        elif choice in ("add", "mul"):
            same = [v for v in pool if p.shapes[v] == sx]
            y = rng.choice(same)
            pool.append(p.add(x, y) if choice == "add" else p.mul(x, y))
        elif choice == "bias":
            pool.append(p.add(x, p.arg([sx[-1]], rand_ps(1, partial=False))))
        elif choice in ("relu", "scale", "exp"):
            pool.append(getattr(p, choice)(x))
        elif choice == "softmax":
            pool.append(p.softmax(x, rng.randrange(len(sx))))
        elif choice == "sum":
            if len(sx) > 1:
                pool.append(p.sum(x, rng.randrange(len(sx))))
        elif choice == "transpose":
            if len(sx) == 2:
                pool.append(p.transpose(x, 0, 1))
        elif choice == "redistribute":
            pool.append(p.redistribute(x, rand_ps(len(sx), partial=False)))
        elif choice == "reshape":
            if len(sx) == 2:
                pool.append(p.reshape(x, [sx[0] * sx[1]]))
            elif len(sx) == 1 and sx[0] % 2 == 0:
                pool.append(p.reshape(x, [2, sx[0] // 2]))
    if not p.ops:
        p.relu(pool[0])
    return p


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------


def check(progs, opt, show=False, verbose=False):
    tr = Torch()
    counts = {"pass": 0, "known": 0, "mismatch": 0}
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for prog in progs:
            t = tr.run(prog)
            m = run_project(prog, opt, tmp)
            diffs = compare(prog, t, m)
            known = known_difference(prog, t)
            if show:
                print(m.get("text", ""))
                for n in sorted(t["values"]):
                    print("%-4s torch %-28s project %s" % (
                        n, t["values"][n][0], m.get("values", {}).get(n, ["?"])[0]))
                for r in t["redistributions"]:
                    print("torch redistribute %s -> %s cost %.4f steps %s" % (
                        r["from"], r["to"], r["cost"], [(a, str(x), str(y)) for a, x, y in r["steps"]]))
                for r in m.get("redistributions", []):
                    print("project redistribute %s %s -> %s cost %.4f steps %s" % (
                        r["value"], r["from"], r["to"], r["cost_us"], r["steps"]))
                print("warnings:", m.get("warnings"), "torch error:", t["error"])
            if diffs and known:
                counts["known"] += 1
                print("KNOWN %s: %s (%s)" % (prog.name, known, diffs[0]))
            elif diffs:
                counts["mismatch"] += 1
                failed = True
                print("MISMATCH %s: %s" % (prog.name, "; ".join(diffs[:4])))
            elif known and prog.name in KNOWN:
                failed = True
                counts["mismatch"] += 1
                print("FIXED %s: listed as known (%s) but matches: take it off KNOWN" % (prog.name, known))
            else:
                counts["pass"] += 1
                if verbose:
                    print("PASS %s" % prog.name)
            for w in m.get("warnings", []):
                if verbose and "PyTorch" in w:
                    print("  (%s: PyTorch refuses, warned: %s)" % (prog.name, w.split("warning: ")[-1][:100]))
    print("parity: %d programs, %d pass, %d known, %d mismatch"
          % (len(progs), counts["pass"], counts["known"], counts["mismatch"]))
    return 1 if failed else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dtensor-opt", default="dtensor-opt")
    ap.add_argument("--cases", nargs="*", help="hand-written cases (all without names)")
    ap.add_argument("--random", help="seed range A:B of random programs")
    ap.add_argument("--show", help="print one case's MLIR and both sides")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError as e:
        print("parity: torch is not installed (%s)" % e)
        return 2
    if a.show:
        progs = [p for p in suite() if p.name == a.show]
        if not progs and a.show.startswith("rand"):
            progs = [random_prog(int(a.show[4:]))]
        return check(progs, a.dtensor_opt, show=True)
    progs = []
    if a.cases is not None:
        progs = suite()
        if a.cases:
            progs = [p for p in progs if p.name in a.cases]
    if a.random:
        lo, hi = map(int, a.random.split(":"))
        progs += [random_prog(s) for s in range(lo, hi)]
    return check(progs, a.dtensor_opt, verbose=a.verbose)


if __name__ == "__main__":
    sys.exit(main())

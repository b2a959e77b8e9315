#!/usr/bin/env python3
"""DDPOptimizer under torch.compile against `dtensor-opt --dtensor-ddp-split`
(issue 14).

For every model, world size and bucket cap:

* PyTorch: `world` processes (torch.multiprocessing.spawn, gloo, CPU) wrap
  the model in DistributedDataParallel(bucket_cap_mb=cap), set
  `torch._dynamo.config.optimize_ddp = "ddp_optimizer"` and call
  `torch.compile(ddp, backend=record)` once, forward and backward (DDP
  all-reduces the gradients over gloo). `record` is a custom backend: it
  runs each graph eagerly (no inductor, no C++ compiler) and records every
  graph Dynamo hands it, i.e. each submodule DDPOptimizer cut, with the
  parameters among its placeholders and their bytes. The DDPOptimizer the
  compile made is captured too (its caps and its `buckets`: parameter names
  and `size`).
* The project: the same model in MLIR, from the generator the project's
  benchmarks and tests use for it, through
  `dtensor-opt --dtensor-ddp-split="bucket-cap-mb=<cap>
  first-bucket-cap-mb=<DDPOptimizer's first cap>"` with a JSON report.

Checked per run: every rank compiled the same graphs; the backend got one
graph per DDPOptimizer bucket, holding that bucket's parameters; and the
project's buckets, in forward order, have the same parameters (in order of
first use) and the same bytes as DDPOptimizer's (its sizes are
`untyped_storage().nbytes()` of each parameter it counts).

Caps as PyTorch 2.15 applies them: DDP(bucket_cap_mb=C) sets
`bucket_bytes_cap = int(C * 2**20)` (and its own reducer's first bucket to
the same cap, since C was given), but Dynamo builds the DDPOptimizer with
`bucket_bytes_cap=ddp.bucket_bytes_cap` only, so the graph split's first
bucket cap is `torch.distributed._DEFAULT_FIRST_BUCKET_BYTES` (1 MiB) for
every C. The script reads both caps from the live objects.

Models (the MLIR from the project's generators, the PyTorch module written
to the same parameters, names and ops):
  linear8x1024   bench/gen_train_mlp.py --layers 8 --width 1024: the
                 nn.Sequential(Linear, ReLU, ..., Linear) + MSE loss of
                 test/Integration/torch_ddp.test (weights and biases)
  mlp6x512       bench/gen_ddp_mlp.py --layers 6 --dim 512 --hidden 1024
                 (bias-free x @ w1 -> relu -> @ w2 layers, 2 MiB weights)
  mlp20_small    bench/gen_ddp_mlp.py --layers 20 (64 KiB weights: one
                 bucket at 25 and 4 MB, so no split)
  block3         examples/gen_block.py --layout dp --layers 3 --params
                 (three RFC Blocks, dim 512, hidden 2048: 12 MiB a Block)
  block_example  examples/block.mlir (the Block of docs/ddp-split.md; its
                 input is [32, 128, 512] in MLIR, [2, 8, 512] in PyTorch:
                 the buckets depend on the parameters only)
and, with `--python-packages DIR` (the build's python_packages: the
project's torch-mlir FX importer front end, `dtensor_mlir.from_torch`), the
same nn.Module imported rather than generated:
  linear8x1024_fx     the Linear stack above
  linear_bias_edge_fx Linear(64, 1020), ReLU, Linear(1020, 256), MSE: the
                      bias b0 fills the 1 MiB first bucket, so counted per
                      MLIR op it would split from its weight w0

Usage:
  ddp_compile.py --dtensor-opt BIN [--world 1,2] [--caps 25,4,1]
                 [--models a,b] [-v]
Prints `PASS <model> world=<w> cap=<c>MB: <buckets>`, `KNOWN ...` or
`MISMATCH ...` (`FIXED ...`: a KNOWN difference that no longer shows) per
run and `ddp-compile: <n> runs, <p> pass, <k> known, <m> mismatch`; exit 1
on a mismatch. Without torch or gloo it prints `SKIPPED: ...` and exits 0.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def have_gloo():
    try:
        import torch.distributed as dist
        return dist.is_available() and dist.is_gloo_available()
    except Exception:
        return False


# ---------------------------------------------------------------------------
# The models: MLIR generator command and the PyTorch module
# ---------------------------------------------------------------------------


def mlir_command(model, world):
    """The generator command line for `model` (writes MLIR to stdout)."""
    py = sys.executable
    if model == "linear8x1024":
        return [py, os.path.join(ROOT, "bench", "gen_train_mlp.py"), "--mode", "dp", "--layers",
                "8", "--width", "1024", "--batch", "8", "--ranks", str(world)]
    if model == "mlp6x512":
        return [py, os.path.join(ROOT, "bench", "gen_ddp_mlp.py"), "--layers", "6", "--dim", "512",
                "--hidden", "1024", "--tokens", "8", "--mesh-size", str(world)]
    if model == "mlp20_small":
        return [py, os.path.join(ROOT, "bench", "gen_ddp_mlp.py"), "--layers", "20", "--tokens",
                "8", "--mesh-size", str(world)]
    if model == "block3":
        return [py, os.path.join(ROOT, "examples", "gen_block.py"), "--layout", "dp", "--mesh",
                str(world), "--batch", "2", "--seq", "8", "--dim", "512", "--heads", "8",
                "--hidden", "2048", "--layers", "3", "--params"]
    if model == "block_example":
        return ["cat", os.path.join(ROOT, "examples", "block.mlir")]
    raise ValueError(model)


MODELS = ["linear8x1024", "mlp6x512", "mlp20_small", "block3", "block_example"]
FX_MODELS = ["linear8x1024_fx", "linear_bias_edge_fx"]

# Differences from DDPOptimizer the project keeps, by model: the project's
# buckets, which must stay as listed (a run that matches DDPOptimizer, or
# gives other buckets, fails). None: the one there was, F.linear's weight and
# bias counted at different MLIR ops (so split apart at a cap), is gone since
# from_torch names each op after its torch-level call and dtensor-ddp-split
# counts the ops of one name as one node (docs/semantics.md section 7).
KNOWN = {}


def torch_model(model):
    """(module, example inputs) for `model`; parameter names are those of
    the MLIR's `dtensor.param` (through `param_name`)."""
    import torch

    torch.manual_seed(0)
    P = lambda *shape: torch.nn.Parameter(torch.randn(*shape) / shape[0] ** 0.5)

    class LinearStack(torch.nn.Module):
        """gen_train_mlp.py: relu(h @ w_i + b_i) ..., MSE against y."""

        def __init__(self, widths):
            super().__init__()
            mods = []
            for i in range(len(widths) - 1):
                mods.append(torch.nn.Linear(widths[i], widths[i + 1]))
                if i + 2 < len(widths):
                    mods.append(torch.nn.ReLU())
            self.seq = torch.nn.Sequential(*mods)

        def forward(self, x, y):
            return torch.nn.functional.mse_loss(self.seq(x), y)

    class MatmulStack(torch.nn.Module):
        """gen_ddp_mlp.py: x = relu(x @ w1_i) @ w2_i."""

        def __init__(self, layers, dim, hidden):
            super().__init__()
            self.layers = layers
            for i in range(layers):
                self.register_parameter("w1_%d" % i, P(dim, hidden))
                self.register_parameter("w2_%d" % i, P(hidden, dim))

        def forward(self, x):
            for i in range(self.layers):
                x = torch.relu(x @ getattr(self, "w1_%d" % i)) @ getattr(self, "w2_%d" % i)
            return x

    class BlockStack(torch.nn.Module):
        """examples/gen_block.py (and examples/block.mlir): the RFC Block."""

        def __init__(self, layers, dim, heads, hidden, suffix=True):
            super().__init__()
            self.layers, self.heads = layers, heads
            self.names = []
            for i in range(layers):
                names = {}
                for n, shape in (("wq", (dim, dim)), ("wk", (dim, dim)), ("wv", (dim, dim)),
                                 ("wo", (dim, dim)), ("w1", (dim, hidden)), ("w2", (hidden, dim))):
                    names[n] = n + str(i) if suffix else n
                    self.register_parameter(names[n], P(*shape))
                self.names.append(names)

        def forward(self, x):
            b, t, d = x.shape
            h_, dh = self.heads, d // self.heads
            for names in self.names:
                w = lambda n: getattr(self, names[n])
                xf = x.reshape(b * t, d)
                q, k, v = (xf @ w(n) for n in ("wq", "wk", "wv"))
                q4, k4, v4 = (u.reshape(b, t, h_, dh) for u in (q, k, v))
                s = torch.einsum("bihd,bjhd->bhij", q4, k4) * 0.125
                p = torch.softmax(s, dim=3)
                o = torch.einsum("bhij,bjhd->bihd", p, v4).reshape(b * t, d)
                h = o @ w("wo") + xf
                out = torch.relu(h @ w("w1")) @ w("w2") + h
                x = out.reshape(b, t, d)
            return x

    if model in ("linear8x1024", "linear8x1024_fx"):
        return LinearStack([1024] * 9), (torch.randn(8, 1024), torch.randn(8, 1024))
    if model == "linear_bias_edge_fx":
        return LinearStack([64, 1020, 256]), (torch.randn(8, 64), torch.randn(8, 256))
    if model == "mlp6x512":
        return MatmulStack(6, 512, 1024), (torch.randn(8, 512),)
    if model == "mlp20_small":
        return MatmulStack(20, 64, 256), (torch.randn(8, 64),)
    if model == "block3":
        return BlockStack(3, 512, 8, 2048), (torch.randn(2, 8, 512),)
    if model == "block_example":
        return BlockStack(1, 512, 8, 2048, suffix=False), (torch.randn(2, 8, 512),)
    raise ValueError(model)


_SEQ_RE = re.compile(r"(?:modules_|seq\.)(\d+)(?:_parameters_|\.)(weight|bias)_?$")
_PARAM_RE = re.compile(r"parameters_(\w+?)_?$")


def param_name(placeholder):
    """The MLIR `dtensor.param` of a Dynamo parameter placeholder
    (`l_self_modules_seq_modules_2_parameters_weight_` -> `w1`,
    `L_self_parameters_w1_5_` -> `w1_5`) or of a from_torch parameter
    (`seq.2.weight` -> `w1`), or None for a non-parameter."""
    m = _SEQ_RE.search(placeholder)
    if m:  # nn.Sequential of Linear, ReLU: module 2i is layer i
        return ("w" if m.group(2) == "weight" else "b") + str(int(m.group(1)) // 2)
    m = _PARAM_RE.search(placeholder)
    return m.group(1) if m else None


# ---------------------------------------------------------------------------
# PyTorch side: one process per rank
# ---------------------------------------------------------------------------


def worker(rank, world, store, models, caps, out_dir):
    import torch
    import torch._dynamo
    import torch._dynamo.backends.distributed as ddp_backend
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("gloo", init_method="file://" + store, rank=rank, world_size=world)
    torch.set_num_threads(1)
    torch._dynamo.config.optimize_ddp = "ddp_optimizer"

    graphs, optimizers = [], []

    def record(gm, example_inputs):
        """The custom backend: each graph's parameters and bytes, run eagerly."""
        params = []
        for node, t in zip([n for n in gm.graph.nodes if n.op == "placeholder"], example_inputs):
            name = param_name(node.name)
            if name is not None:
                params.append([name, t.numel() * t.element_size()])
        graphs.append({"params": params, "nodes": sum(1 for _ in gm.graph.nodes)})
        return gm.forward

    compile_fn = ddp_backend.DDPOptimizer.compile_fn

    def capture(self, gm, example_inputs, **kwargs):
        result = compile_fn(self, gm, example_inputs, **kwargs)
        optimizers.append(self)
        return result

    ddp_backend.DDPOptimizer.compile_fn = capture
    results = []
    for model in models:
        module, inputs = torch_model(model)
        for cap in caps:
            torch._dynamo.reset()
            graphs.clear()
            optimizers.clear()
            ddp = DDP(module, bucket_cap_mb=cap)
            out = torch.compile(ddp, backend=record)(*inputs)
            out.sum().backward()  # DDP's all-reduce of the gradients on gloo
            module.zero_grad()
            opt = optimizers[0] if len(optimizers) == 1 else None
            results.append({
                "model": model, "cap": cap,
                "ddp_bucket_bytes_cap": ddp.bucket_bytes_cap,
                "ddp_first_bucket_bytes_cap": ddp._bucket_config.first_bucket_bytes_cap,
                "optimizers": len(optimizers),
                "bucket_bytes_cap": opt.bucket_bytes_cap if opt else None,
                "first_bucket_cap": opt.first_bucket_cap if opt else None,
                # DDPOptimizer's buckets (it inserts each new one at the
                # front: forward order), parameters as it walked (backwards).
                "buckets": [{"params": [param_name(p) for p in b.params], "size": b.size}
                            for b in opt.buckets] if opt else [],
                "graphs": list(graphs),
            })
    with open(os.path.join(out_dir, "rank%d.json" % rank), "w") as f:
        json.dump(results, f)
    dist.destroy_process_group()


def run_torch(world, models, caps, tmp):
    import torch.multiprocessing as mp

    out = os.path.join(tmp, "torch_w%d" % world)
    os.makedirs(out, exist_ok=True)
    store = os.path.join(out, "store")
    mp.spawn(worker, args=(world, store, models, caps, out), nprocs=world, join=True)
    ranks = []
    for r in range(world):
        with open(os.path.join(out, "rank%d.json" % r)) as f:
            ranks.append(json.load(f))
    return ranks


# ---------------------------------------------------------------------------
# Project side
# ---------------------------------------------------------------------------


def write_mlir(model, world, path):
    """The model in MLIR: from its generator, or (`*_fx`) imported from the
    PyTorch module by the project's front end (no mesh: one device)."""
    if not model.endswith("_fx"):
        with open(path, "w") as f:
            subprocess.run(mlir_command(model, world), stdout=f, check=True)
        return
    import dtensor_mlir

    module, inputs = torch_model(model)
    program = dtensor_mlir.from_torch(module, inputs)
    with open(path, "w") as f:
        f.write(program.source)


def run_project(opt, model, world, cap, first_cap_bytes, tmp):
    path = os.path.join(tmp, "%s_w%d.mlir" % (model, world))
    if not os.path.exists(path):
        write_mlir(model, world, path)
    report = os.path.join(tmp, "%s_w%d_%s.json" % (model, world, cap))
    first = first_cap_bytes / float(1 << 20)
    proc = subprocess.run(
        [opt, path, "--dtensor-ddp-split=bucket-cap-mb=%r first-bucket-cap-mb=%r report=%s"
         % (float(cap), first, report), "-o", os.devnull], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("dtensor-opt failed on %s: %s" % (path, proc.stderr.strip()))
    with open(report) as f:
        fns = json.load(f)["functions"]
    assert len(fns) == 1, fns
    # from_torch names parameters by their qualified names (seq.0.weight).
    rename = (lambda n: param_name(n) or n) if model.endswith("_fx") else (lambda n: n)
    return [{"params": [rename(n) for n in b["params"]], "bytes": b["bytes"]}
            for b in fns[0]["buckets"]]


# ---------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------


def first_use_order(names):
    seen, out = set(), []
    for n in names:
        if n not in seen:
            seen.add(n)
            out.append(n)
    return out


def compare(t, ranks, mine):
    """Differences between DDPOptimizer (`t`, rank 0), the other ranks, the
    recorded graphs and the project's buckets `mine`, as short strings."""
    diffs = []
    for r, other in enumerate(ranks[1:], 1):
        if other != t:
            diffs.append("rank %d compiled other graphs than rank 0" % r)
    if t["optimizers"] != 1:
        return diffs + ["%d DDPOptimizer compiles, expected 1" % t["optimizers"]]
    buckets = t["buckets"]
    # The backend gets the submodules in the order the split graph runs
    # them, which may swap independent ones (wq and wk of a Block): match
    # each bucket with the graph that holds its parameters.
    by_params = {tuple(sorted(p for p, _ in g["params"])): g for g in t["graphs"]}
    graphs = [by_params.get(tuple(sorted(set(b["params"])))) for b in buckets]
    if len(t["graphs"]) != len(buckets):
        diffs.append("the backend got %d graphs for %d buckets" % (len(t["graphs"]), len(buckets)))
    for i, (b, g) in enumerate(zip(buckets, graphs)):
        if g is None:
            diffs.append("no compiled graph holds exactly bucket %d's %s" % (i, b["params"]))
        elif sum(n for _, n in g["params"]) != sum(dict(g["params"]).values()):
            diffs.append("graph of bucket %d lists a parameter twice" % i)
    if diffs:
        return diffs
    if len(mine) != len(buckets):
        diffs.append("%d buckets, DDPOptimizer %d" % (len(mine), len(buckets)))
    for i, (m, b, g) in enumerate(zip(mine, buckets, graphs)):
        # Order of first use in the forward: the compiled graph's placeholders.
        order = [p for p, _ in g["params"]]
        if first_use_order(m["params"]) != order or sorted(m["params"]) != sorted(b["params"]):
            diffs.append("bucket %d: params %s, DDPOptimizer %s" % (i, m["params"], order))
        if m["bytes"] != b["size"]:
            diffs.append("bucket %d: %d bytes, DDPOptimizer %d" % (i, m["bytes"], b["size"]))
    return diffs


def describe(buckets):
    def names(ps):
        return ps[0] if len(ps) == 1 else "%s..%s(%d)" % (ps[0], ps[-1], len(ps))
    return " | ".join("%s %d" % (names(b["params"]), b["bytes"]) for b in buckets)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dtensor-opt", default="dtensor-opt")
    ap.add_argument("--world", default="1,2")
    ap.add_argument("--caps", default="25,4,1")
    ap.add_argument("--models", default=None,
                    help="comma-separated (default: all; the *_fx ones with --python-packages)")
    ap.add_argument("--python-packages",
                    help="the build's python_packages (for the *_fx models)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    if not have_gloo():
        print("SKIPPED: torch with gloo is not importable")
        return 0
    worlds = [int(w) for w in a.world.split(",")]
    caps = [float(c) if "." in c else int(c) for c in a.caps.split(",")]
    models = a.models.split(",") if a.models else MODELS + (FX_MODELS if a.python_packages else [])
    if a.python_packages:
        sys.path.insert(0, a.python_packages)
        os.environ.setdefault("DTENSOR_TOOLS_DIR", os.path.dirname(os.path.abspath(a.dtensor_opt)))
    counts = {"pass": 0, "known": 0, "mismatch": 0}
    with tempfile.TemporaryDirectory(prefix="ddp-compile-") as tmp:
        for world in worlds:
            ranks = run_torch(world, models, caps, tmp)
            for i, t in enumerate(ranks[0]):
                tag = "%s world=%d cap=%sMB" % (t["model"], world, t["cap"])
                first = t["first_bucket_cap"] or 0
                mine = run_project(a.dtensor_opt, t["model"], world, t["cap"], first, tmp)
                diffs = compare(t, [r[i] for r in ranks], mine)
                if t["bucket_bytes_cap"] != int(t["cap"] * (1 << 20)):
                    diffs.append("DDPOptimizer cap %s bytes" % t["bucket_bytes_cap"])
                known = KNOWN.get(t["model"])
                got = [b["params"] for b in mine]
                if known is not None and diffs and got == known:
                    counts["known"] += 1
                    theirs = [{"params": [p for g in t["graphs"] for p, _ in g["params"]
                                          if p in b["params"]], "bytes": b["size"]}
                              for b in t["buckets"]]
                    print("KNOWN %s: [%s]; DDPOptimizer [%s]" % (tag, describe(mine),
                                                                describe(theirs)))
                elif known is not None:
                    counts["mismatch"] += 1
                    print("%s %s: listed in KNOWN as %s, got [%s]" % (
                        "MISMATCH" if diffs else "FIXED", tag, known, describe(mine)))
                elif diffs:
                    counts["mismatch"] += 1
                    print("MISMATCH %s: %s" % (tag, "; ".join(diffs[:4])))
                else:
                    counts["pass"] += 1
                    print("PASS %s: %d buckets [%s] (first cap %d, DDP reducer first cap %d)"
                          % (tag, len(mine), describe(mine), first, t["ddp_first_bucket_bytes_cap"]))
    print("ddp-compile: %d runs, %d pass, %d known, %d mismatch"
          % (sum(counts.values()), counts["pass"], counts["known"], counts["mismatch"]))
    return 1 if counts["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main())

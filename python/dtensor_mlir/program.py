"""`compile(text)` and `Program`: a global-view module with its analysis,
report, partitioned and DDP-split forms, and runs through dtensor-run."""

import json
import os
import re
import shutil
import subprocess
import tempfile

from . import _config
from ._dtensor_mlir import Context, MLIRError, Module
from .placement import DeviceMesh, parse_placements
from .visualize import sharding_picture

_CONTEXT = None
STRATEGIES = ("global", "pytorch")
UNKNOWN_OPS = ("error", "replicate")


def _context():
    """The process's context: every dialect and pass registered once."""
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = Context()
    return _CONTEXT


def _check_choice(what, value, choices):
    if value not in choices:
        raise ValueError(f"{what} must be one of {', '.join(choices)}, got {value!r}")


def tool_path(name):
    """A tool of this copy: $DTENSOR_TOOLS_DIR, the build tree or bin/."""
    tools_dir = os.environ.get("DTENSOR_TOOLS_DIR") or _config.TOOLS_DIR or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "bin")
    path = os.path.join(tools_dir, name)
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(
            f"{name} not found at {path} (set DTENSOR_TOOLS_DIR to the folder that has it)")
    return path


class RunError(RuntimeError):
    """dtensor-run failed; `output` is what it printed."""

    def __init__(self, message, output):
        super().__init__(f"{message}\n{output}")
        self.output = output


class CheckResult:
    """The line `check: PASS max_abs_err=... max_rel_err=...` of a run;
    `details`: the lines after a FAIL (where the outputs differ)."""

    def __init__(self, line):
        m = re.match(r"check: (PASS|FAIL)\b(.*)", line)
        self.line = line
        self.details = []
        self.passed = bool(m) and m.group(1) == "PASS"
        self.max_abs_err = self.max_rel_err = None
        for key in ("max_abs_err", "max_rel_err"):
            v = re.search(key + r"=(\S+)", line)
            if v:
                setattr(self, key, float(v.group(1)))

    def __bool__(self):
        return self.passed

    def __repr__(self):
        return f"CheckResult({self.line!r})"


class RunResult(list):
    """The global outputs of a run (numpy arrays, in result order), with
    `check` (a CheckResult, None without check=True), `plan` (the plan
    line), `rank_ms` (each rank's time) and `output` (everything printed)."""

    def __init__(self, outputs, output):
        super().__init__(outputs)
        self.output = output
        self.check = None
        self.plan = None
        self.rank_ms = {}
        for line in output.splitlines():
            if re.match(r"check: (PASS|FAIL)\b", line):
                self.check = CheckResult(line)
            elif line.startswith("check: ") and self.check is not None:
                self.check.details.append(line[len("check: "):])
            elif line.startswith("plan: "):
                self.plan = line
            else:
                m = re.match(r"rank (\d+): ([0-9.eE+-]+) ms", line)
                if m:
                    self.rank_ms[int(m.group(1))] = float(m.group(2))


class DDPSplit:
    """`.mlir`: the split module; `.buckets`: the report's buckets of each
    function (`{name: [{"submodule", "params", "bytes", "ops"}]}`);
    `.report`: the whole JSON report."""

    def __init__(self, mlir, report):
        self.mlir = mlir
        self.report = report
        self.buckets = {f["name"]: f["buckets"] for f in report["functions"]}


_ARG_RE = re.compile(r"%arg(\d+): [^{,)]*(\{[^{}]*\})?")
_PARAM_RE = re.compile(r'dtensor\.param = "([^"]*)"')


class Program:
    """A verified global-view module. Build it with `compile(text)` or
    `from_torch(...)`; `source` is the text it was built from, `mlir` the
    annotated global view (the plan of strategy "global")."""

    def __init__(self, module, source, entry=None, example_inputs=None, torch_outputs=None):
        self._module = module
        self.source = source
        self.entry = entry
        # Inputs of a front end (numpy arrays in argument order), used by run()
        # when it is given none; torch_outputs: the front end's own forward.
        self.example_inputs = example_inputs
        self.torch_outputs = torch_outputs
        # The argument names (a front end's) and the global values it knows.
        self.input_names = None
        self.known_inputs = {}
        self._annotated = {}
        self._reports = {}

    def __str__(self):
        return self.mlir

    # -- analysis ------------------------------------------------------------
    def annotate(self, strategy="global", unknown_ops="error"):
        """The module after dtensor-fake-propagate: every op's dtensor.specs
        and the explicit redistributions."""
        _check_choice("strategy", strategy, STRATEGIES)
        _check_choice("unknown_ops", unknown_ops, UNKNOWN_OPS)
        key = (strategy, unknown_ops)
        if key not in self._annotated:
            m = self._module.clone()
            m.run_pass_pipeline(
                f"builtin.module(dtensor-fake-propagate{{strategy={strategy} unknown-ops={unknown_ops}}})")
            self._annotated[key] = str(m)
        return self._annotated[key]

    @property
    def mlir(self):
        return self.annotate()

    def report(self, strategy="global", compare_pytorch=False, unknown_ops="error"):
        """The dtensor-fake-report JSON object: {"functions": [{"name",
        "mesh", "values", "returns", "collectives", "redistributions",
        "totals"}]} (docs/user-guide.md section 4)."""
        _check_choice("strategy", strategy, STRATEGIES)
        _check_choice("unknown_ops", unknown_ops, UNKNOWN_OPS)
        key = (strategy, bool(compare_pytorch), unknown_ops)
        if key not in self._reports:
            options = (f"strategy={strategy} unknown-ops={unknown_ops}"
                       f" compare-pytorch={'true' if compare_pytorch else 'false'}")
            self._reports[key] = json.loads(self._module.fake_report(options))
        return self._reports[key]

    def function_report(self, function=None, strategy="global"):
        """The report of one function (the entry, or the only one)."""
        functions = self.report(strategy)["functions"]
        name = function or self.entry
        if name is None:
            if len(functions) != 1:
                raise ValueError("several functions: name one of "
                                 + ", ".join(f["name"] for f in functions))
            return functions[0]
        for f in functions:
            if f["name"] == name:
                return f
        raise ValueError(f"no function @{name} in the report")

    def _run_pipeline(self, pipeline):
        m = self._module.clone()
        m.run_pass_pipeline(pipeline)
        return str(m)

    def partition(self, strategy="global"):
        """The SPMD local-view program every rank runs (dtensor-partition)."""
        _check_choice("strategy", strategy, STRATEGIES)
        return self._run_pipeline(f"builtin.module(dtensor-partition{{strategy={strategy}}})")

    def lower(self, options=""):
        """The module after dtensor-cpu-pipeline (LLVM dialect)."""
        m = self._module.clone()
        m.run_cpu_pipeline(options)
        return str(m)

    def ddp_split(self, bucket_cap_mb=25, first_bucket_cap_mb=1):
        """DDPOptimizer's bucket split (dtensor-ddp-split) as a DDPSplit."""
        with tempfile.TemporaryDirectory(prefix="dtensor-ddp-") as tmp:
            path = os.path.join(tmp, "buckets.json")
            text = self._run_pipeline(
                f"builtin.module(dtensor-ddp-split{{bucket-cap-mb={float(bucket_cap_mb)!r}"
                f" first-bucket-cap-mb={float(first_bucket_cap_mb)!r}"
                f' report="{path}" report-format=json}})')
            with open(path) as f:
                report = json.load(f)
        return DDPSplit(text, report)

    # -- values ---------------------------------------------------------------
    def argument_names(self):
        """The `dtensor.param` name (or None) of each argument of the entry."""
        text = self.source_text_of_entry()
        names = {}
        for m in _ARG_RE.finditer(text):
            p = _PARAM_RE.search(m.group(2) or "")
            names[int(m.group(1))] = p.group(1) if p else None
        return [names[i] for i in sorted(names)]

    def source_text_of_entry(self):
        text = str(self._module)
        name = self.entry or self.function_report()["name"]
        start = text.find(f"@{name}(")
        if start < 0:
            raise ValueError(f"no function @{name}")
        end = text.find("{\n", start)
        return text[start:end if end >= 0 else len(text)]

    def _lookup(self, value, function, strategy):
        f = self.function_report(function, strategy)
        if isinstance(value, int):
            value = f"%arg{value}"
        elif isinstance(value, str) and not value.startswith("%"):
            if value.startswith("result"):
                index = int(value[len("result"):] or 0)
                return f["returns"][index], f, value
            names = self.input_names or self.argument_names()
            if value not in names:
                raise KeyError(f"no argument or parameter {value!r}; the names are "
                               + ", ".join(n for n in names if n))
            value = f"%arg{names.index(value)}"
        for v in f["values"]:
            if v["name"] == value:
                return v, f, value
        raise KeyError(f"no value {value} in @{f['name']}")

    def placements(self, value, function=None, strategy="global"):
        """The placements the plan gives `value`: an argument index, a
        parameter name, `%name` as the report writes it, or `resultN`."""
        v, _, _ = self._lookup(value, function, strategy)
        return parse_placements(v["placements"])

    def visualize_sharding(self, value, function=None, strategy="global",
                           device_type="cpu", header=None):
        """The text picture of `value`'s shards over the mesh (as PyTorch's
        torch.distributed.tensor.debug.visualize_sharding draws a DTensor)."""
        v, f, name = self._lookup(value, function, strategy)
        mesh = f.get("mesh")
        dm = (DeviceMesh(tuple(mesh["shape"]), tuple(mesh["axis_names"]), mesh["name"])
              if mesh else DeviceMesh(len(v["local_shapes"])))
        placements = parse_placements(v["placements"])
        if header is None:
            label = name if name == value else f"{value} ({name})"
            axes = ", ".join(f"{n}={s}" for n, s in zip(dm.mesh_dim_names, dm.shape))
            header = (f"{label} of @{f['name']}: {v['global_shape']} {v.get('dtype', '')}"
                      f" [{', '.join(map(str, placements))}] on mesh @{dm.name} ({axes})"
                      ).replace("  ", " ")
        return sharding_picture(tuple(v["global_shape"]), placements, dm, device_type, header)

    def inputs(self, named=None, **more):
        """run() inputs in argument order from {name: array} (the front
        end's input_names), the values it knows filling the others."""
        named = dict(named or {}, **more)
        if self.input_names is None:
            raise ValueError("this program has no input names (it was not built by a front end)")
        unknown = set(named) - set(self.input_names)
        if unknown:
            raise KeyError(f"no inputs named {', '.join(sorted(unknown))}; the inputs are "
                           + ", ".join(self.input_names))
        out = []
        for n in self.input_names:
            if n in named:
                out.append(named[n])
            elif n in self.known_inputs:
                out.append(self.known_inputs[n])
            else:
                raise ValueError(f"input {n!r} is needed: only the local shard of its "
                                 "DTensor is known")
        return out

    # -- running ------------------------------------------------------------
    def run(self, np=None, inputs=None, check=True, strategy="global", seed=None,
            rtol=None, atol=None, timeout=None, trace=None, iters=None, threads=None):
        """Runs the entry on `np` MPI ranks through dtensor-run and returns the
        global outputs as numpy arrays (a RunResult; `.check` is the result
        of comparing them with the program on one rank when check=True).

        `inputs`: numpy arrays in argument order (global tensors; every rank
        takes its shard), {name: array} (see inputs()), "random", or None for the front end's example
        inputs (random when there are none). A failed check returns the
        outputs with `.check.passed` False; any other failure raises
        RunError with what dtensor-run printed. `threads`: compute threads
        per rank (dtensor-run --threads: BLAS threads and OpenMP threads for
        the generated loops; default 1)."""
        import numpy

        _check_choice("strategy", strategy, STRATEGIES)
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                    or threads < 1):
            raise ValueError(f"threads must be a positive integer, got {threads!r}")
        if inputs is None:
            inputs = self.example_inputs if self.example_inputs is not None else "random"
        elif isinstance(inputs, dict):
            inputs = self.inputs(inputs)
        with tempfile.TemporaryDirectory(prefix="dtensor-run-") as tmp:
            src = os.path.join(tmp, "program.mlir")
            with open(src, "w") as f:
                f.write(str(self._module))
            cmd = [tool_path("dtensor-run"), src, f"--strategy={strategy}"]
            if np is not None:
                cmd.append(f"--np={int(np)}")
            if self.entry:
                cmd.append(f"--entry={self.entry}")
            if isinstance(inputs, str):
                if inputs != "random":
                    raise ValueError(f"inputs must be arrays or 'random', got {inputs!r}")
                cmd.append("--inputs=random")
            else:
                paths = []
                for i, a in enumerate(inputs):
                    p = os.path.join(tmp, f"input{i}.npy")
                    numpy.save(p, numpy.ascontiguousarray(numpy.asarray(a)))
                    paths.append(p)
                if paths:
                    cmd.append("--inputs=" + ",".join(paths))
            out_dir = os.path.join(tmp, "out")
            cmd.append(f"--out={out_dir}")
            for flag, value in (("--seed", seed), ("--rtol", rtol), ("--atol", atol),
                                ("--timeout", timeout), ("--trace", trace), ("--iters", iters),
                                ("--threads", threads)):
                if value is not None:
                    cmd.append(f"{flag}={value}")
            if check:
                cmd.append("--check")
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, cwd=tmp)
            output = proc.stdout
            results = []
            i = 0
            while os.path.exists(os.path.join(out_dir, f"result{i}.npy")):
                results.append(numpy.load(os.path.join(out_dir, f"result{i}.npy")))
                i += 1
            result = RunResult(results, output)
            if proc.returncode != 0 and not (result.check is not None and not result.check.passed
                                             and results):
                raise RunError(f"dtensor-run failed (exit status {proc.returncode}): "
                               + " ".join(cmd[1:]), output)
        return result


def compile(text, entry=None, source_name="<input>"):
    """Parses and verifies a global-view module (MLIR text, or bytecode as
    bytes) and
    runs the analysis once, so that a program the analysis rejects fails
    here, with MLIRError carrying the diagnostics."""
    data = bytes(text) if isinstance(text, (bytes, bytearray)) else text.encode("utf-8")
    module = Module.parse(_context(), data, source_name)
    # Bytecode has no text of its own: its source is the module as printed.
    source = str(module) if isinstance(text, (bytes, bytearray)) else text
    program = Program(module, source, entry)
    program.annotate()
    return program

"""`from_torch`: a PyTorch nn.Module as a dtensor-mlir Program.

torch.export traces the module with its parameters as inputs (a functional
wrapper over torch.func.functional_call), torch-mlir's FX importer lowers
the graph to linalg-on-tensors, and the function's signature gets the
DTensor metadata: `dtensor.param = "<fully qualified name>"` on each
parameter, `dtensor.spec` on every argument and result from the DTensors'
placements (or the `placements` map), and a `dtensor.mesh` from the
DTensors' device mesh (axis names from `mesh_dim_names`) or `mesh`.

Locations are kept, so a diagnostic of the analysis names the line of the
PyTorch source that made the op (from the exported graph's stack traces).
"""

import inspect
import re

from .placement import DeviceMesh, Partial, Placement, Replicate, Shard
from .program import Program, _context
from ._dtensor_mlir import MLIRError, Module


def _dtensor_type():
    try:
        from torch.distributed.tensor import DTensor
        return DTensor
    except Exception:  # torch without distributed support
        return None


def to_placement(p):
    """A Placement from ours, a torch placement (Shard, Replicate, Partial)
    or its text (`"S(0)"`)."""
    if isinstance(p, Placement):
        return p
    if isinstance(p, str):
        from .placement import parse_placement
        return parse_placement(p)
    if hasattr(p, "is_shard") and p.is_shard():
        return Shard(int(p.dim))
    if hasattr(p, "is_replicate") and p.is_replicate():
        return Replicate()
    if hasattr(p, "is_partial") and p.is_partial():
        op = getattr(p, "reduce_op", "sum")
        return Partial(str(op))
    raise TypeError(f"not a placement: {p!r}")


class _Value:
    """One argument of the function: its name, global shape and dtype, its
    placements (None: no spec) and its global value (None when only the
    local shard of a sharded DTensor is known)."""

    def __init__(self, name, tensor, is_param):
        import torch
        DTensor = _dtensor_type()
        self.name, self.is_param = name, is_param
        self.mesh = None
        if DTensor is not None and isinstance(tensor, DTensor):
            self.placements = [to_placement(p) for p in tensor.placements]
            self.mesh = DeviceMesh.from_torch(tensor.device_mesh)
            local = tensor.to_local().detach()
            known = all(p.is_replicate() for p in self.placements)
            # Only the shapes matter to the trace; a replicated DTensor's local
            # tensor is its global value.
            self.trace = local if known else torch.zeros(tensor.shape, dtype=tensor.dtype)
            self.value = local if known else None
        elif isinstance(tensor, torch.Tensor):
            self.placements = None
            self.trace = tensor.detach()
            self.value = self.trace
        else:
            raise TypeError(f"from_torch: {name} is a {type(tensor).__name__}, not a tensor")


def _output_placements(module, args):
    """The placements of the DTensor outputs of running `module` on its
    DTensor `args` (None for an output that is not a DTensor)."""
    import torch
    DTensor = _dtensor_type()
    with torch.no_grad():
        out = module(*args)
    outs = out if isinstance(out, (tuple, list)) else [out]
    return [[to_placement(p) for p in o.placements] if isinstance(o, DTensor) else None
            for o in outs]


def _functional(module, param_names, num_args):
    import torch

    class Functional(torch.nn.Module):
        def forward(self, *flat):
            params = dict(zip(param_names, flat[num_args:]))
            return torch.func.functional_call(module, params, tuple(flat[:num_args]))
    return Functional()


# -- the signature of the imported function ---------------------------------

_OPEN, _CLOSE = "(<[{", ")>]}"


def _scan(text, start, stop_chars):
    """The index of the first of `stop_chars` at depth 0 from `start`."""
    depth, i, quoted = 0, start, False
    while i < len(text):
        c = text[i]
        if quoted:
            if c == "\\":
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif depth == 0 and c in stop_chars:
            return i
        elif c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
        i += 1
    return len(text)


def _split_top(text):
    parts, i = [], 0
    while i < len(text):
        j = _scan(text, i, ",")
        parts.append(text[i:j].strip())
        i = j + 1
    return [p for p in parts if p]


def _with_attrs(item, attrs):
    """`%a: T loc(...)` or `T` with `{attrs}` after the type."""
    if not attrs:
        return item
    m = re.search(r"\s+loc\(", item)
    head, loc = (item[:m.start()], item[m.start():]) if m else (item, "")
    if _scan(head, 0, "{") < len(head):
        raise ValueError(f"from_torch: the importer wrote attributes already: {item}")
    return f"{head} {{{', '.join(attrs)}}}{loc}"


def annotate_signature(text, func_name, arg_attrs, result_attrs):
    """`text` with `{arg_attrs[i]}` on argument i and `{result_attrs[i]}` on
    result i of `func.func @func_name`."""
    head = f"func.func @{func_name}("
    start = text.find(head)
    if start < 0:
        raise ValueError(f"from_torch: no function @{func_name} in the imported module")
    args_start = start + len(head)
    args_end = _scan(text, args_start, ")")
    args = _split_top(text[args_start:args_end])
    if len(args) != len(arg_attrs):
        raise ValueError(f"from_torch: @{func_name} has {len(args)} arguments, expected "
                         f"{len(arg_attrs)}")
    rest = text[args_end + 1:]
    m = re.match(r"\s*->\s*", rest)
    results, res_text, tail = [], "", rest
    if m:
        pos = m.end()
        if rest[pos] == "(":
            close = _scan(rest, pos + 1, ")")
            results = _split_top(rest[pos + 1:close])
            tail = rest[close + 1:]
        else:
            end = _scan(rest, pos, " \n")
            results = [rest[pos:end]]
            tail = rest[end:]
    if len(results) != len(result_attrs):
        raise ValueError(f"from_torch: @{func_name} has {len(results)} results, expected "
                         f"{len(result_attrs)}")
    new_args = ", ".join(_with_attrs(a, attrs) for a, attrs in zip(args, arg_attrs))
    if results:
        res_text = " -> (" + ", ".join(_with_attrs(r, attrs)
                                       for r, attrs in zip(results, result_attrs)) + ")"
    return text[:args_start] + new_args + ")" + res_text + tail


def _insert_mesh(text, mesh):
    """The `dtensor.mesh` op as the first op of the top-level module."""
    m = re.search(r"^module\b[^\n]*\{\s*$", text, re.M)
    if not m:
        return mesh.mlir + "\n" + text
    return text[:m.end()] + "\n  " + mesh.mlir + text[m.end():]


# -- errors ------------------------------------------------------------------

_FILE_LINE_RE = re.compile(r'"([^"]+)":(\d+):(\d+)')


def _walk(op):
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield inner
                yield from _walk(inner.operation)


def source_line(location):
    """`file:line: <the line>` of the user's frame in a torch-mlir location
    (the innermost frame outside torch and this package), or None."""
    import linecache
    import os
    import torch
    skip = (os.path.dirname(torch.__file__), os.path.dirname(os.path.abspath(__file__)))
    frames = _FILE_LINE_RE.findall(str(location))
    if not frames:
        return None
    user = [f for f in frames if not os.path.abspath(f[0]).startswith(skip)]
    path, line, _ = (user or frames)[0]
    text = linecache.getline(path, int(line)).strip()
    return f"{path}:{line}" + (f": {text}" if text else "")


_UNKNOWN_DIALECT_RE = re.compile(r"Dialect `([\w.]+)' not found for custom op '([\w.]+)'")


def _unknown_op_error(error, imported):
    """An MLIRError naming the op torch-mlir produced that dtensor-mlir does
    not know and the PyTorch source line it came from; `error` otherwise."""
    m = _UNKNOWN_DIALECT_RE.search(str(error))
    if not m:
        return error
    dialect, op_name = m.groups()
    lines = []
    for op in _walk(imported.operation):
        if op.operation.name == op_name:
            where = source_line(op.location)
            if where and where not in lines:
                lines.append(where)
    where = ("\n".join(f"  {w}" for w in lines) if lines
             else "  (no source location in the exported graph)")
    return MLIRError(
        f"error: no sharding rule for '{op_name}': torch-mlir lowered an op of the model "
        f"to the '{dialect}' dialect, which dtensor-mlir does not handle; made at\n{where}")


def source_op_name(node):
    """The torch-level call an exported FX node comes from: `linear_1` for
    each of the permute, mm and add that F.linear decomposes into (its
    `torch_fn`), else the node's own name."""
    torch_fn = node.meta.get("torch_fn")
    return torch_fn[0] if torch_fn else node.name


def _node_named_importer():
    """A torch-mlir FxImporter whose op locations are named after the
    torch-level call of each node (`loc("linear_1"(<source lines>))`): the
    ops one call lowers to share the name, so dtensor-ddp-split counts them
    as one node as DDPOptimizer counts the call. The source lines stay the
    child location, for diagnostics. torch-mlir has no hook for locations:
    this replaces the importer's ContextCache by a subclass (as FxImporter
    builds it) and falls back to the plain importer where that fails."""
    from torch_mlir import ir
    from torch_mlir.dialects import torch as torch_d
    from torch_mlir.extras.fx_importer import ContextCache, FxImporter

    class NamedLocations(ContextCache):
        def get_node_location(self, node):
            loc = super().get_node_location(node)
            if node.op != "call_function":
                return loc
            # Always a location: the importer reuses the previous node's
            # for a node without one, which would merge the two calls.
            return ir.Location.name(source_op_name(node),
                                    childLoc=loc or ir.Location.unknown(context),
                                    context=context)

    context = ir.Context()
    torch_d.register_dialect(context)
    importer = FxImporter(context=context)
    try:
        importer._cc = NamedLocations(importer._c, py_attr_tracker=importer._py_attr_tracker)
    except (AttributeError, TypeError):
        pass
    return importer


# -- from_torch ------------------------------------------------------------

def from_torch(module, args, placements=None, mesh=None, func_name="forward",
               strict=False, decomposition_table=None):
    """A Program from a torch.nn.Module and example `args`.

    - DTensor parameters and args (`DTensor.from_local`, `distribute_tensor`,
      over a real or fake process group) give their placements and mesh.
    - Plain tensors take their placements from `placements`, a map from
      argument names (of `module.forward`) and parameter fully qualified
      names to lists of placements (ours, torch's or text); `"output"` (or
      `"output0"`, `"output1"`, ...) requests the placements of the results.
      A value named nowhere is replicated (no spec). `mesh`: a DeviceMesh,
      a torch DeviceMesh, or a dict {axis name: size}.
    - The results get the placements PyTorch's DTensor forward gives them
      (when the inputs are DTensors), unless `placements` names them.

    The Program's `input_names` are the argument names then the parameter
    names, its arguments in that order; `inputs(...)` builds run() inputs.
    Raises MLIRError (with the PyTorch source line of the op) when the
    analysis cannot handle the graph.
    """
    import torch
    from torch_mlir import fx

    if not isinstance(module, torch.nn.Module):
        raise TypeError("from_torch: module must be a torch.nn.Module")
    args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
    placements = dict(placements or {})
    sig_names = list(inspect.signature(module.forward).parameters)
    arg_names = [sig_names[i] if i < len(sig_names) else f"arg{i}" for i in range(len(args))]
    params = list(module.named_parameters())
    values = ([_Value(n, a, False) for n, a in zip(arg_names, args)]
              + [_Value(n, p, True) for n, p in params])

    # The mesh: the DTensors' (all the same), else `mesh`.
    meshes = {v.mesh.shape + v.mesh.mesh_dim_names: v.mesh for v in values if v.mesh}
    if len(meshes) > 1:
        raise ValueError("from_torch: the DTensors are on different meshes: "
                         + ", ".join(map(repr, meshes.values())))
    if mesh is not None and not isinstance(mesh, DeviceMesh):
        mesh = DeviceMesh(mesh) if isinstance(mesh, dict) else DeviceMesh.from_torch(mesh)
    if meshes:
        dt_mesh = next(iter(meshes.values()))
        if mesh is not None and (mesh.shape != dt_mesh.shape
                                 or mesh.mesh_dim_names != dt_mesh.mesh_dim_names):
            raise ValueError(f"from_torch: mesh {mesh!r} is not the DTensors' {dt_mesh!r}")
        mesh = mesh or dt_mesh

    known = {v.name for v in values} | {"output"} | {f"output{i}" for i in range(64)}
    for name in placements:
        if name not in known:
            raise KeyError(f"from_torch: placements names {name!r}, which is neither an "
                           "argument (" + ", ".join(arg_names) + "), a parameter, nor an output")
    for v in values:
        if v.name in placements:
            v.placements = [to_placement(p) for p in placements[v.name]]
    if mesh is None and any(v.placements for v in values):
        raise ValueError("from_torch: placements without a mesh (pass mesh=...)")

    # Results: requested, else what PyTorch's DTensor forward gives.
    out_placements = None
    if any(isinstance(a, _dtensor_type() or ()) for a in args) and _dtensor_type():
        try:
            out_placements = _output_placements(module, args)
        except Exception:
            out_placements = None

    wrapper = _functional(module, [n for n, _ in params], len(args))
    exported = torch.export.export(wrapper, tuple(v.trace for v in values), strict=strict)
    kwargs = {}
    if decomposition_table is not None:
        kwargs["decomposition_table"] = decomposition_table
    imported = fx.export_and_import(exported, output_type="linalg-on-tensors",
                                    func_name=func_name, fx_importer=_node_named_importer(),
                                    **kwargs)
    text = imported.operation.get_asm(enable_debug_info=True)

    num_results = len(exported.graph_signature.user_outputs)
    result_specs = []
    for i in range(num_results):
        p = placements.get(f"output{i}", placements.get("output"))
        if p is None and out_placements and i < len(out_placements):
            p = out_placements[i]
        result_specs.append([f"dtensor.spec = {mesh.spec([to_placement(x) for x in p])}"]
                            if p is not None else [])
    arg_specs = []
    for v in values:
        attrs = [f'dtensor.param = "{v.name}"'] if v.is_param else []
        if v.placements is not None:
            attrs.append(f"dtensor.spec = {mesh.spec(v.placements)}")
        arg_specs.append(attrs)
    text = annotate_signature(text, func_name, arg_specs, result_specs)
    if mesh is not None:
        text = _insert_mesh(text, mesh)

    try:
        module_ir = Module.parse(_context(), text.encode("utf-8"), "from_torch")
    except MLIRError as e:
        raise _unknown_op_error(e, imported) from None
    program = Program(module_ir, text, func_name)
    program.input_names = [v.name for v in values]
    program.known_inputs = {v.name: v.value.numpy() for v in values if v.value is not None}
    if len(program.known_inputs) == len(values):
        program.example_inputs = [program.known_inputs[n] for n in program.input_names]
    program.annotate()
    return program

"""dtensor_mlir: PyTorch DTensor semantics in MLIR.

    import dtensor_mlir as dm
    p = dm.compile(open("examples/mlp.mlir").read())
    p.report()["functions"][0]["totals"]["num_collectives"]   # 1
    out = p.run(np=4, check=True); out.check.passed             # True

`from_torch(module, args, ...)` builds a Program from a PyTorch module
through torch.export and torch-mlir (needs torch and torch-mlir).
"""

from ._dtensor_mlir import MLIRError
from .placement import (DeviceMesh, Partial, Placement, Replicate, Shard, StridedShard,
                        parse_placements)
from .program import (CheckResult, DDPSplit, Program, RunError, RunResult, compile,
                      tool_path)
from .visualize import sharding_picture

MLIRError.__doc__ = ("A dtensor-mlir call failed; the message is the diagnostics, one "
                     "line each: 'file:line:col: error: ...'.")


def from_torch(module, args, placements=None, mesh=None, **kwargs):
    """A Program from a torch.nn.Module and example args (see
    dtensor_mlir.torch_frontend.from_torch)."""
    from .torch_frontend import from_torch as _from_torch
    return _from_torch(module, args, placements=placements, mesh=mesh, **kwargs)


def visualize_sharding(program, value, **kwargs):
    """Program.visualize_sharding as a function, printed like PyTorch's."""
    print(program.visualize_sharding(value, **kwargs))


__all__ = ["CheckResult", "DDPSplit", "DeviceMesh", "MLIRError", "Partial", "Placement",
           "Program", "Replicate", "RunError", "RunResult", "Shard", "compile", "from_torch",
           "parse_placements", "StridedShard", "sharding_picture", "tool_path", "visualize_sharding"]

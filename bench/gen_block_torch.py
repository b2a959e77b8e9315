#!/usr/bin/env python3
"""The RFC Block as torch-mlir writes it: a global-view program for dtensor-run.

The Block of bench/block_torch.py (the same `block` function, as an
nn.Module whose six weights are parameters) goes through the project's torch
front end, `dtensor_mlir.from_torch` (torch.export, torch-mlir's
linalg-on-tensors), with x sharded on the batch, S(0), over a 1-D mesh
"dp" of --mesh ranks and the weights replicated. The module text (the front
end's output with its dtensor.spec attributes, not yet annotated) is
written to -o; bench/block_forward.sh runs it with dtensor-run next to
examples/gen_block.py's hand-written Block.

Usage (dtensor_mlir is the built package: PYTHONPATH=<build>/python_packages):
    python3 bench/gen_block_torch.py --mesh 4 [--batch 32 --seq 128 --dim 512 --heads 8 --hidden 2048] -o block_torch_4.mlir
Exits 3 (with a line saying why) when torch or torch-mlir is missing.
"""

import argparse
import os
import sys

# block_torch.py's `block`; dtensor_mlir from the build's python_packages
# (PYTHONPATH, as bench/block_forward.sh sets it).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def build_module(dim, heads, hidden):
    """The Block of block_torch.py as an nn.Module (weights as parameters)."""
    import torch
    from torch import nn

    from block_torch import block

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            g = torch.Generator().manual_seed(0)

            def w(*shape):
                return nn.Parameter(torch.randn(*shape, generator=g) / shape[0] ** 0.5)

            self.wq, self.wk, self.wv, self.wo = (w(dim, dim) for _ in range(4))
            self.w1 = w(dim, hidden)
            self.w2 = w(hidden, dim)

        def forward(self, x):
            return block(x, self.wq, self.wk, self.wv, self.wo, self.w1, self.w2, heads)

    return Block()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mesh", type=int, default=4, help="ranks of the 1-D mesh dp")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--dim", type=int, default=512)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args(argv)
    if a.mesh < 1 or a.dim % a.heads:
        ap.error("need --mesh >= 1 and --dim divisible by --heads")
    try:
        import torch
        import torch_mlir  # noqa: F401

        import dtensor_mlir as dm
    except Exception as e:
        print(f"gen_block_torch.py: not available ({type(e).__name__}: {e})")
        return 3
    model = build_module(a.dim, a.heads, a.hidden)
    x = torch.randn(a.batch, a.seq, a.dim)
    program = dm.from_torch(model, (x,), mesh={"dp": a.mesh}, placements={"x": ["S(0)"]})
    with open(a.output, "w") as f:
        f.write(program.source)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The PyTorch models of the tests and of docs/user-guide.md's Python
section: the seed's transformer Block (examples/block.mlir), the Megatron MLP
(examples/mlp.mlir), the DDPOptimizer `where` layer
(examples/where_layer.mlir), and a model with an op dtensor-mlir does not
handle (torch.sort)."""

import torch
from torch import nn


class Block(nn.Module):
    """The transformer Block of examples/block.mlir."""

    def __init__(self, dim=512, heads=8, hidden=2048):
        super().__init__()
        self.heads = heads
        g = torch.Generator().manual_seed(0)
        def w(*shape):
            return nn.Parameter(torch.randn(*shape, generator=g) / shape[0] ** 0.5)
        self.wq, self.wk, self.wv, self.wo = (w(dim, dim) for _ in range(4))
        self.w1 = w(dim, hidden)
        self.w2 = w(hidden, dim)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        xf = x.reshape(b * t, d)
        q = (xf @ self.wq).reshape(b, t, h, d // h).transpose(1, 2)
        k = (xf @ self.wk).reshape(b, t, h, d // h).transpose(1, 2)
        v = (xf @ self.wv).reshape(b, t, h, d // h).transpose(1, 2)
        s = (q @ k.transpose(-2, -1)) * (1.0 / (d // h) ** 0.5)
        p = torch.softmax(s, dim=-1)
        o = (p @ v).transpose(1, 2).reshape(b * t, d)
        hh = o @ self.wo + xf
        out = torch.relu(hh @ self.w1) @ self.w2 + hh
        return out.reshape(b, t, d)


class MLP(nn.Module):
    """The Megatron MLP of examples/mlp.mlir: relu(x w1) w2."""

    def __init__(self, dim=512, hidden=2048):
        super().__init__()
        g = torch.Generator().manual_seed(1)
        self.w1 = nn.Parameter(torch.randn(dim, hidden, generator=g) / dim ** 0.5)
        self.w2 = nn.Parameter(torch.randn(hidden, dim, generator=g) / hidden ** 0.5)

    def forward(self, x):
        return torch.relu(x @ self.w1) @ self.w2


class WhereLayer(nn.Module):
    """The DDPOptimizer test layer of examples/where_layer.mlir."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(2)
        self.linear = nn.Linear(32, 32, bias=False)

    def forward(self, x):
        tmp = self.linear(x)
        return tmp + torch.where(tmp < 0.5, 0.3, 0.6)


class Sorted(nn.Module):
    """torch.sort: torch-mlir lowers it to tm_tensor.sort."""

    def forward(self, x):
        return torch.sort(x, dim=0).values + 1


def to_dtensor_params(module, mesh, placements):
    """Every parameter of `module` as a DTensor of its full value with
    `placements` (a list, or a map from parameter names to lists)."""
    from torch.distributed.tensor import DTensor, Replicate, distribute_tensor
    for name, p in list(module.named_parameters()):
        where = placements.get(name, [Replicate()]) if isinstance(placements, dict) else placements
        value = p.detach()
        if all(q.is_replicate() for q in where):
            d = DTensor.from_local(value, mesh, where)
        else:
            d = distribute_tensor(value, mesh, where)
        owner = module.get_submodule(name.rpartition(".")[0]) if "." in name else module
        setattr(owner, name.rpartition(".")[2], nn.Parameter(d))
    return module

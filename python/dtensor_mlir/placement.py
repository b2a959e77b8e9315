"""Placements and device meshes, with PyTorch DTensor's vocabulary.

`Shard(d)`, `Replicate()` and `Partial(op)` are the placements of one mesh
axis (torch.distributed.tensor.placement_types); a `DeviceMesh` has named
axes (`mesh_dim_names`). Each one prints as the dialect writes it: `S(0)`,
`R`, `P(sum)`, `#dtensor.spec<@mesh, [S(0), R]>`,
`dtensor.mesh @mesh = <["dp" = 2, "tp" = 4]>`.
"""

import math
import re

REDUCE_OPS = ("sum", "avg", "max", "min")


class Placement:
    """The placement of a tensor on one mesh axis."""

    def is_shard(self, dim=None):
        return False

    def is_replicate(self):
        return False

    def is_partial(self):
        return False

    def __repr__(self):
        return str(self)

    def __eq__(self, other):
        return type(self) is type(other) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))


class Shard(Placement):
    """Tensor dim `dim` cut into torch.chunk pieces along the axis."""

    def __init__(self, dim):
        if not isinstance(dim, int) or isinstance(dim, bool) or dim < 0:
            raise ValueError(f"Shard: dim must be a non-negative int, got {dim!r}")
        self.dim = dim

    def is_shard(self, dim=None):
        return dim is None or dim == self.dim

    def __str__(self):
        return f"S({self.dim})"


class Replicate(Placement):
    """Every rank of the axis holds the whole tensor."""

    def is_replicate(self):
        return True

    def __str__(self):
        return "R"


class Partial(Placement):
    """Every rank holds a partial value; the value is their reduction."""

    def __init__(self, reduce_op="sum"):
        if reduce_op not in REDUCE_OPS:
            raise ValueError(
                f"Partial: reduce_op must be one of {', '.join(REDUCE_OPS)}, got {reduce_op!r}")
        self.reduce_op = reduce_op

    def is_partial(self):
        return True

    def __str__(self):
        return f"P({self.reduce_op})"


class StridedShard(Placement):
    """PyTorch's `_StridedShard(dim, split_factor)`, written `_S(dim, sf)`:
    dim `dim` is cut into `split_factor` groups and every rank holds its
    torch.chunk of each group. Reshapes make it; like PyTorch's, it is not
    `is_shard()`."""

    def __init__(self, dim, split_factor):
        if not isinstance(dim, int) or isinstance(dim, bool) or dim < 0:
            raise ValueError(f"StridedShard: dim must be a non-negative int, got {dim!r}")
        if not isinstance(split_factor, int) or split_factor < 2:
            raise ValueError(
                f"StridedShard: split_factor must be an int of at least 2, got {split_factor!r}")
        self.dim = dim
        self.split_factor = split_factor

    def __str__(self):
        return f"_S({self.dim}, {self.split_factor})"


_PLACEMENT_RE = re.compile(
    r"^\s*(?:S\((\d+)\)|(R)|P\((sum|avg|max|min)\)|_S\((\d+),\s*(\d+)\))\s*$")


def parse_placement(text):
    """`S(0)`, `R`, `P(sum)`, `_S(0, 4)` (as the report writes them) as a
    Placement."""
    m = _PLACEMENT_RE.match(text)
    if not m:
        raise ValueError(f"not a placement: {text!r}")
    if m.group(4) is not None:
        return StridedShard(int(m.group(4)), int(m.group(5)))
    if m.group(1) is not None:
        return Shard(int(m.group(1)))
    if m.group(2):
        return Replicate()
    return Partial(m.group(3))


def parse_placements(text_or_list):
    """`"[S(0), R]"` or `["S(0)", "R"]` as a list of Placements."""
    if isinstance(text_or_list, str):
        inner = text_or_list.strip()
        if not (inner.startswith("[") and inner.endswith("]")):
            raise ValueError(f"not a placement list: {text_or_list!r}")
        inner = inner[1:-1].strip()
        # Commas inside parentheses belong to a placement (`_S(0, 4)`).
        text_or_list = re.findall(r"[^,(]+(?:\([^)]*\))?", inner) if inner else []
    return [p if isinstance(p, Placement) else parse_placement(p) for p in text_or_list]


_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_$.]*$")


class DeviceMesh:
    """A mesh of devices with named axes, ranks row-major over coordinates.

    DeviceMesh((2, 4), mesh_dim_names=("dp", "tp")), DeviceMesh(4, ("dp",))
    or DeviceMesh({"dp": 2, "tp": 4}); `name` is the symbol of the
    `dtensor.mesh` op.
    """

    def __init__(self, shape, mesh_dim_names=None, name="mesh"):
        if isinstance(shape, dict):
            if mesh_dim_names is not None:
                raise ValueError("DeviceMesh: names come from the dict's keys")
            mesh_dim_names = tuple(shape.keys())
            shape = tuple(shape.values())
        elif isinstance(shape, int):
            shape = (shape,)
        shape = tuple(int(s) for s in shape)
        if not shape or any(s <= 0 for s in shape):
            raise ValueError(f"DeviceMesh: sizes must be positive, got {shape}")
        if mesh_dim_names is None:
            mesh_dim_names = tuple(f"d{i}" for i in range(len(shape)))
        mesh_dim_names = tuple(mesh_dim_names)
        if len(mesh_dim_names) != len(shape):
            raise ValueError(
                f"DeviceMesh: {len(mesh_dim_names)} names for {len(shape)} axes")
        if len(set(mesh_dim_names)) != len(mesh_dim_names) or not all(mesh_dim_names):
            raise ValueError(f"DeviceMesh: axis names must be unique and non-empty: {mesh_dim_names}")
        if not _IDENT_RE.match(name):
            raise ValueError(f"DeviceMesh: {name!r} is not a symbol name")
        self.shape = shape
        self.mesh_dim_names = mesh_dim_names
        self.name = name

    @classmethod
    def from_torch(cls, mesh, name="mesh"):
        """The shape and axis names of a torch DeviceMesh."""
        names = mesh.mesh_dim_names
        return cls(tuple(mesh.mesh.shape), tuple(names) if names else None, name)

    @property
    def ndim(self):
        return len(self.shape)

    def size(self, mesh_dim=None):
        if mesh_dim is None:
            return math.prod(self.shape)
        return self.shape[mesh_dim]

    def coordinates(self, rank):
        """The mesh coordinates of `rank` (the last axis varies fastest)."""
        coords = []
        for s in reversed(self.shape):
            coords.append(rank % s)
            rank //= s
        return tuple(reversed(coords))

    @property
    def mlir(self):
        axes = ", ".join(f'"{n}" = {s}' for n, s in zip(self.mesh_dim_names, self.shape))
        return f"dtensor.mesh @{self.name} = <[{axes}]>"

    def spec(self, placements):
        """The `#dtensor.spec` of `placements` (one per mesh axis)."""
        placements = parse_placements(placements)
        if len(placements) != self.ndim:
            raise ValueError(
                f"{len(placements)} placements {placements} for a mesh of {self.ndim} axes")
        return f"#dtensor.spec<@{self.name}, [{', '.join(map(str, placements))}]>"

    def __eq__(self, other):
        return (isinstance(other, DeviceMesh) and self.shape == other.shape
                and self.mesh_dim_names == other.mesh_dim_names and self.name == other.name)

    def __repr__(self):
        return (f"DeviceMesh({self.shape}, mesh_dim_names={self.mesh_dim_names}"
                + (f", name={self.name!r})" if self.name != "mesh" else ")"))


def chunk_extents(size, pieces):
    """(offset, length) of each torch.chunk piece of `size` in `pieces`."""
    step = -(-size // pieces) if size else 0
    out = []
    for i in range(pieces):
        start = min(i * step, size)
        out.append((start, min(step, size - start)))
    return out


def local_block(shape, placements, mesh, rank):
    """(offsets, sizes) of `rank`'s shard of a tensor of global `shape`.

    Shards of several axes on one dim apply left to right (the shard of
    axis 0 is cut again by axis 1), as PyTorch's compute_local_shape_and_
    global_offset does.
    """
    offsets = [0] * len(shape)
    sizes = list(shape)
    coords = mesh.coordinates(rank)
    for axis, p in enumerate(placements):
        if isinstance(p, StridedShard):
            raise ValueError(f"{p} holds several blocks, not one")
        if p.is_shard():
            off, length = chunk_extents(sizes[p.dim], mesh.shape[axis])[coords[axis]]
            offsets[p.dim] += off
            sizes[p.dim] = length
    return tuple(offsets), tuple(sizes)

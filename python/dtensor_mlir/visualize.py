"""A text picture of one value's shards over the mesh, in the style of
torch.distributed.tensor.debug.visualize_sharding: rows and columns are
index ranges of the global tensor (inclusive, as PyTorch prints them), each
cell lists the devices holding that block."""

from .placement import local_block


def _range(offset, size):
    return f"{offset}-{offset + size - 1}" if size else f"{offset}-(empty)"


def _table(header, rows):
    """tabulate's "simple" format: two spaces between left-aligned columns."""
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    def line(cells):
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
    return "\n".join([line(header), "  ".join("-" * w for w in widths)]
                     + [line(r) for r in rows])


def sharding_picture(shape, placements, mesh, device_type="cpu", header=""):
    """The picture of a tensor of global `shape` with `placements` on `mesh`.

    1-D and 2-D tensors are drawn as PyTorch draws them (Row/Col ranges);
    a tensor of higher rank as one line per distinct block, with the range
    of every dim. A partial placement is named in the first line: each
    device there holds a full-size partial value.
    """
    blocks = {}
    for rank in range(mesh.size()):
        blocks.setdefault(local_block(shape, placements, mesh, rank), []).append(rank)
    def devices(ranks):
        return ", ".join(f"{device_type}:{r}" for r in ranks)
    title = (f"{header}\n" if header else "")
    partial = [str(p) for p in placements if p.is_partial()]
    if partial:
        title += f"(partial: every block holds a {', '.join(partial)} value)\n"
    if len(shape) == 0:
        return title + _table(["", "value"], [["scalar", devices(range(mesh.size()))]])
    if len(shape) > 2:
        rows = [["[" + ", ".join(_range(o, s) for o, s in zip(off, size)) + "]", devices(r)]
                for (off, size), r in sorted(blocks.items())]
        return title + _table(["Block", "Devices"], rows)
    shape2 = (1,) + tuple(shape) if len(shape) == 1 else tuple(shape)
    def key2(block):
        off, size = block
        return ((0,) + off, (1,) + size) if len(shape) == 1 else (off, size)
    cells = {}
    for block, ranks in blocks.items():
        (r0, c0), (rs, cs) = key2(block)
        cells[((r0, rs), (c0, cs))] = ranks
    row_keys = sorted({k[0] for k in cells})
    col_keys = sorted({k[1] for k in cells})
    head = [""] + [f"Col {_range(*c)}" for c in col_keys]
    rows = []
    for rk in row_keys:
        label = f"Row {_range(*rk)}" if len(shape) == 2 else ""
        rows.append([label] + [devices(cells.get((rk, ck), [])) for ck in col_keys])
    return title + _table(head, rows)

"""The Block of examples/gen_block.py evaluated in plain Python, as an oracle.

With --program attention: softmax(q k^T) v per batch and head of q, k, v
[B, T, H, D/H] (no scale), the result [B, T, H, D/H] (torch_attention.mlir).

  block_reference.py inputs DIR --batch B --seq T --dim D --heads H --hidden F
      writes DIR/x.npy, wq, wk, wv, wo, w1, w2 (.npy, f32, seeded small
      values) and prints their paths comma-separated (for --inputs)
  block_reference.py check DIR RESULT.npy --batch B ... (same sizes)
      evaluates the Block on DIR's inputs (in double precision) and compares
      with RESULT.npy: prints "reference: PASS max_abs_err=..." or
      "reference: FAIL ..." (at the first element off by more than 1e-4
      relative to the largest magnitude)

The Block: q, k, v = x wq, x wk, x wv over the flattened tokens; per batch
and head softmax(q k^T / sqrt(D/H)) v; o wo + x; relu(h w1) w2 + h.
Stdlib only.
"""
import argparse
import math
import os
import random
import struct
import sys

def names(a):
    if a.program == "attention":
        return ["q", "k", "v"]
    return ["x", "wq", "wk", "wv", "wo", "w1", "w2"]


def shapes(a):
    D, F = a.dim, a.hidden
    if a.program == "attention":
        s = [a.batch, a.seq, a.heads, D // a.heads]
        return {"q": s, "k": s, "v": s, "x": s}
    return {"x": [a.batch, a.seq, D], "wq": [D, D], "wk": [D, D], "wv": [D, D],
            "wo": [D, D], "w1": [D, F], "w2": [F, D]}


def write_npy(path, shape, values):
    dims = "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % dims
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1") + struct.pack("<%df" % len(values), *values))


def read_npy(path):
    data = open(path, "rb").read()
    hlen = struct.unpack("<H", data[8:10])[0]
    header = eval(data[10:10 + hlen].decode("latin1"))
    body = data[10 + hlen:]
    return list(header["shape"]), list(struct.unpack("<%df" % (len(body) // 4), body))


def matmul(a, b, m, k, n):
    """Row-major a [m, k] times b [k, n]."""
    out = [0.0] * (m * n)
    for i in range(m):
        row = a[i * k:(i + 1) * k]
        for j in range(n):
            out[i * n + j] = sum(row[t] * b[t * n + j] for t in range(k))
    return out


def attention(a, q, k, val, scale):
    """softmax(q k^T * scale) v per batch and head, on [B, T, H, dh]."""
    B, T, D, H = a.batch, a.seq, a.dim, a.heads
    dh = D // H
    o = [0.0] * (B * T * D)
    for b in range(B):
        for h in range(H):
            at = lambda t, i, d: t[(b * T + i) * D + h * dh + d]
            for i in range(T):
                s = [sum(at(q, i, d) * at(k, j, d) for d in range(dh)) * scale for j in range(T)]
                mx = max(s)
                e = [math.exp(y - mx) for y in s]
                tot = sum(e)
                p = [y / tot for y in e]
                for d in range(dh):
                    o[(b * T + i) * D + h * dh + d] = sum(p[j] * at(val, j, d) for j in range(T))
    return o


def block(a, v):
    B, T, D, H, F = a.batch, a.seq, a.dim, a.heads, a.hidden
    N = B * T
    if a.program == "attention":
        return attention(a, v["q"], v["k"], v["v"], 1.0)
    x = v["x"]
    q, k, val = (matmul(x, v[w], N, D, D) for w in ("wq", "wk", "wv"))
    o = attention(a, q, k, val, 1.0 / math.sqrt(D // H))
    hid = [y + z for y, z in zip(matmul(o, v["wo"], N, D, D), x)]
    m1 = [max(y, 0.0) for y in matmul(hid, v["w1"], N, D, F)]
    return [y + z for y, z in zip(matmul(m1, v["w2"], N, F, D), hid)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["inputs", "check"])
    ap.add_argument("dir")
    ap.add_argument("result", nargs="?")
    ap.add_argument("--program", choices=["block", "attention"], default="block")
    for n, d in (("batch", 2), ("seq", 8), ("dim", 16), ("heads", 2), ("hidden", 32)):
        ap.add_argument("--" + n, type=int, default=d)
    a = ap.parse_args()
    sh = shapes(a)
    if a.mode == "inputs":
        os.makedirs(a.dir, exist_ok=True)
        r = random.Random(7)
        paths = []
        for n in names(a):
            count = math.prod(sh[n])
            scale = 1.0 if n in ("x", "q", "k", "v") else 1.0 / math.sqrt(sh[n][0])
            paths.append(os.path.join(a.dir, n + ".npy"))
            write_npy(paths[-1], sh[n], [r.uniform(-1, 1) * scale for _ in range(count)])
        print(",".join(paths))
        return 0
    values = {n: read_npy(os.path.join(a.dir, n + ".npy"))[1] for n in names(a)}
    shape, got = read_npy(a.result)
    want = block(a, values)
    if shape != sh["x"]:
        print("reference: FAIL shape %s, expected %s" % (shape, sh["x"]))
        return 1
    big = max(abs(w) for w in want)
    err = 0.0
    for i, (g, w) in enumerate(zip(got, want)):
        err = max(err, abs(g - w))
        if abs(g - w) > 1e-4 * big:
            print("reference: FAIL element %d: got %g, expected %g" % (i, g, w))
            return 1
    print("reference: PASS max_abs_err=%.2e" % err)
    return 0


if __name__ == "__main__":
    sys.exit(main())

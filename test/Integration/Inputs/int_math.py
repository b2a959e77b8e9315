"""Inputs and expected values of int_math.mlir without numpy.

  int_math.py gen X.npy           writes a 16x8 i32 input (negatives,
                                  INT32_MIN, a cube that wraps)
  int_math.py check X.npy OUT     compares OUT/result0.npy with |x| and
                                  OUT/result1.npy with x^3, wrapping in i32
"""
import struct
import sys

SHAPE = (16, 8)


def save(path, values):
    header = "{'descr': '<i4', 'fortran_order': False, 'shape': (%d, %d), }" % SHAPE
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode() + struct.pack("<%di" % len(values), *values))


def load(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", path
    if data[6] == 1:
        (n,), start = struct.unpack("<H", data[8:10]), 10
    else:
        (n,), start = struct.unpack("<I", data[8:12]), 12
    header = data[start:start + n].decode()
    assert "'<i4'" in header and "(16,8)" in header.replace(" ", ""), header
    body = data[start + n:]
    return list(struct.unpack("<%di" % (len(body) // 4), body))


def wrap(v):
    return (v + 2**31) % 2**32 - 2**31


def main():
    if sys.argv[1] == "gen":
        x = [7 * v for v in range(-64, 64)]
        x[0], x[1] = -(2**31), 2000
        save(sys.argv[2], x)
        return 0
    x = load(sys.argv[2])
    a = load(sys.argv[3] + "/result0.npy")
    p = load(sys.argv[3] + "/result1.npy")
    bad = [i for i in range(len(x)) if a[i] != wrap(abs(x[i])) or p[i] != wrap(x[i] ** 3)]
    if bad:
        i = bad[0]
        print("mismatch at %d: x=%d |x|=%d x^3=%d" % (i, x[i], a[i], p[i]))
        return 1
    print("int_math: exact")
    return 0


sys.exit(main())

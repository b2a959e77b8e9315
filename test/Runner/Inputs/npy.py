"""Writes and prints .npy files for the dtensor-run tests, without numpy.

  npy.py full PATH DESCR SHAPE VALUE     every element VALUE
  npy.py values PATH DESCR SHAPE V,V,..  the given elements (nan, inf ok)
  npy.py header PATH HEADER NBYTES       a version 1.0 file with the header
                                         dict HEADER and NBYTES zero bytes
  npy.py headerlen PATH LEN              a version 2.0 file that claims a
                                         header of LEN bytes and has none
  npy.py print PATH                      "<descr> <shape>: v v*3 ..." (a run
                                         of n equal values prints as v*n)
"""
import struct
import sys

FORMATS = {"<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q", "<i2": "h",
           "|i1": "b", "|b1": "B"}


def write(path, header, data):
    header = header + " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1") + data)


def dict_header(descr, shape):
    dims = [int(d) for d in shape.split(",") if d]
    text = "(" + ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"
    return "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, text), dims


def pack(descr, values):
    fmt = FORMATS[descr]
    if fmt in "fd":
        values = [float(v) for v in values]
    else:
        values = [int(v) for v in values]
    return struct.pack("<%d%s" % (len(values), fmt), *values)


def main(argv):
    cmd, path = argv[1], argv[2]
    if cmd in ("full", "values"):
        header, dims = dict_header(argv[3], argv[4])
        n = 1
        for d in dims:
            n *= d
        values = [argv[5]] * n if cmd == "full" else argv[5].split(",")
        write(path, header, pack(argv[3], values))
    elif cmd == "header":
        write(path, argv[3], b"\0" * int(argv[4]))
    elif cmd == "headerlen":
        with open(path, "wb") as f:
            f.write(b"\x93NUMPY\x02\x00" + struct.pack("<I", int(argv[3])))
    elif cmd == "print":
        data = open(path, "rb").read()
        hlen = struct.unpack("<H", data[8:10])[0]
        header = eval(data[10:10 + hlen].decode("latin1"))
        fmt = FORMATS[header["descr"]]
        body = data[10 + hlen:]
        n = len(body) // struct.calcsize(fmt)
        values = struct.unpack("<%d%s" % (n, fmt), body)
        runs = []
        for v in values:
            if runs and runs[-1][0] == v:
                runs[-1][1] += 1
            else:
                runs.append([v, 1])
        text = " ".join(str(v) if n == 1 else "%s*%d" % (v, n) for v, n in runs)
        print("%s %s: %s" % (header["descr"], list(header["shape"]), text))


main(sys.argv)

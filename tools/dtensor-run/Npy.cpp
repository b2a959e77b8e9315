//===- Npy.cpp - validated .npy reading and writing -----------------------===//

#include "Npy.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>
#include <fstream>

using namespace dtensor_run;

namespace {
/// Value of `key` in the header dict, e.g. 'descr': '<f4'; `found` is false
/// when the key is missing.
std::string field(llvm::StringRef header, llvm::StringRef key, bool &found) {
  size_t k = header.find(("'" + key + "'").str());
  found = k != llvm::StringRef::npos;
  if (!found)
    return "";
  llvm::StringRef rest = header.drop_front(k + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return found = false, "";
  rest = rest.ltrim();
  if (rest.consume_front("'"))
    return rest.take_until([](char c) { return c == '\''; }).str();
  if (rest.consume_front("("))
    return rest.take_until([](char c) { return c == ')'; }).str();
  return rest.take_until([](char c) { return c == ',' || c == '}'; })
      .trim()
      .str();
}

/// Parses the shape tuple "3, 4" (or "5," or "") into `shape`.
bool parseShape(llvm::StringRef text, std::vector<int64_t> &shape,
                std::string &error) {
  llvm::SmallVector<llvm::StringRef> dims;
  text.split(dims, ',');
  for (auto [i, dim] : llvm::enumerate(dims)) {
    dim = dim.trim();
    if (dim.empty() && i + 1 == dims.size() && i > 0)
      break; // the trailing comma of "(5,)"
    if (dim.empty() && dims.size() == 1)
      break; // "()": a 0-d array
    uint64_t value;
    if (dim.consume_front("-") || dim.getAsInteger(10, value) ||
        value > static_cast<uint64_t>(INT64_MAX)) {
      error = "dim " + std::to_string(i) + " of the shape (" + text.str() +
              ") is not a non-negative 64-bit integer";
      return false;
    }
    shape.push_back(static_cast<int64_t>(value));
  }
  return true;
}

/// Bytes of `shape` elements of `size` bytes; false on overflow.
bool byteCount(const std::vector<int64_t> &shape, int64_t size,
               uint64_t &bytes) {
  bytes = static_cast<uint64_t>(size);
  for (int64_t d : shape)
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes) ||
        bytes > static_cast<uint64_t>(INT64_MAX))
      return false;
  return true;
}

/// Reads the header text after the magic; sets `dataOffset`.
bool readHeaderText(std::ifstream &in, uint64_t fileSize, std::string &text,
                    uint64_t &dataOffset, std::string &error) {
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0 ||
      magic[6] < 1 || magic[6] > 3) {
    error = "not a .npy file (no \\x93NUMPY magic of version 1 to 3)";
    return false;
  }
  uint64_t headerLen = 0;
  unsigned char len[4] = {0, 0, 0, 0};
  int lenBytes = magic[6] == 1 ? 2 : 4;
  if (!in.read(reinterpret_cast<char *>(len), lenBytes)) {
    error = "truncated header";
    return false;
  }
  for (int i = lenBytes - 1; i >= 0; --i)
    headerLen = headerLen * 256 + len[i];
  uint64_t start = 8 + lenBytes;
  if (headerLen > fileSize - start) {
    error = "header length " + std::to_string(headerLen) +
            " exceeds the file size (" + std::to_string(fileSize) + " bytes)";
    return false;
  }
  text.assign(headerLen, '\0');
  in.read(text.data(), headerLen);
  dataOffset = start + headerLen;
  return static_cast<bool>(in);
}

/// Checks the dict of a header and fills `header`.
bool parseHeader(llvm::StringRef text, NpyHeader &header, std::string &error) {
  bool found;
  std::string descr = field(text, "descr", found);
  std::optional<dtrt_dtype> dtype = dtypeFromNpy(descr);
  if (!found || !dtype) {
    error = "unsupported dtype '" + descr +
            "' (supported: " + supportedNpyDescrs() + ")";
    return false;
  }
  header.dtype = *dtype;
  if (field(text, "fortran_order", found) != "False") {
    error = "Fortran order is not supported";
    return false;
  }
  std::string shape = field(text, "shape", found);
  if (!found) {
    error = "the header has no shape";
    return false;
  }
  header.shape.clear();
  return parseShape(shape, header.shape, error);
}
} // namespace

bool dtensor_run::readNpyHeader(const std::string &path, NpyHeader &header,
                                std::string &error) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status)) {
    error = "cannot open " + path;
    return false;
  }
  if (llvm::sys::fs::is_directory(status)) {
    error = path + " is a directory, not a .npy file";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open " + path;
    return false;
  }
  uint64_t fileSize = status.getSize();
  std::string text;
  if (!readHeaderText(in, fileSize, text, header.dataOffset, error) ||
      !parseHeader(text, header, error)) {
    error = path + ": " + error;
    return false;
  }
  uint64_t bytes;
  if (!byteCount(header.shape, elementSize(header.dtype), bytes)) {
    error = path + ": shape " + formatShape(header.shape) +
            " has more bytes than a 64-bit size can count";
    return false;
  }
  if (bytes > fileSize - header.dataOffset) {
    error = path + ": truncated data: shape " + formatShape(header.shape) +
            " needs " + std::to_string(bytes) + " bytes but the file has " +
            std::to_string(fileSize - header.dataOffset) + " after the header";
    return false;
  }
  return true;
}

bool dtensor_run::readNpyBlock(const std::string &path, const NpyHeader &header,
                               llvm::ArrayRef<int64_t> shape,
                               llvm::ArrayRef<int64_t> offsets, HostArray &out,
                               std::string &error, StridedIndices strided) {
  out = HostArray(header.dtype, shape);
  std::ifstream in(path, std::ios::binary);
  int64_t size = elementSize(header.dtype);
  // Read one contiguous run of the innermost dim at a time.
  bool ok = static_cast<bool>(in);
  forEachRun(header.shape, shape, offsets,
             [&](int64_t global, int64_t local, int64_t count) {
               if (!ok)
                 return;
               in.seekg(static_cast<std::streamoff>(header.dataOffset +
                                                    global * size));
               ok = static_cast<bool>(
                   in.read(out.data.data() + local * size, count * size));
             },
             strided);
  if (!ok)
    error = path + ": cannot read the data";
  return ok;
}

bool dtensor_run::readNpy(const std::string &path, HostArray &out,
                          std::string &error) {
  NpyHeader header;
  if (!readNpyHeader(path, header, error))
    return false;
  std::vector<int64_t> zeros(header.shape.size(), 0);
  return readNpyBlock(path, header, header.shape, zeros, out, error);
}

bool dtensor_run::writeNpy(const std::string &path, const HostArray &a,
                           std::string &error) {
  std::string shape = "(";
  for (int64_t s : a.shape)
    shape += std::to_string(s) + ",";
  if (a.shape.size() > 1)
    shape.pop_back();
  shape += ")";
  std::string header = "{'descr': '" + std::string(infoOf(a.dtype).npyDescr) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts on a 64-byte boundary.
  size_t total = 10 + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    error = "cannot write " + path;
    return false;
  }
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t len = static_cast<uint16_t>(header.size());
  char lenBytes[2] = {static_cast<char>(len & 0xff),
                      static_cast<char>(len >> 8)};
  out.write(lenBytes, 2);
  out.write(header.data(), header.size());
  out.write(a.data.data(), a.data.size());
  if (!out)
    error = "cannot write " + path;
  return static_cast<bool>(out);
}

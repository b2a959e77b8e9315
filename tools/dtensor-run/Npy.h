//===- Npy.h - minimal .npy reading and writing -----------------*- C++ -*-===//
//
// NumPy's .npy format (version 1.0/2.0, C order, little endian) for the
// element types dtensor-run feeds and returns.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_TOOLS_DTENSOR_RUN_NPY_H
#define DTENSOR_TOOLS_DTENSOR_RUN_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace dtensor_run {

/// A host array: raw bytes in C order.
struct HostArray {
  /// NumPy dtype string: "<f4", "<f8", "<i4", "<i8", "|i1", "|b1".
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<char> data;
  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t s : shape)
      n *= s;
    return n;
  }
};

/// Reads `path`; on failure returns false and sets `error`.
bool readNpy(const std::string &path, HostArray &out, std::string &error);
/// Writes `a` to `path`; on failure returns false and sets `error`.
bool writeNpy(const std::string &path, const HostArray &a, std::string &error);

} // namespace dtensor_run

#endif // DTENSOR_TOOLS_DTENSOR_RUN_NPY_H

//===- Npy.h - validated .npy reading and writing ---------------*- C++ -*-===//
//
// NumPy's .npy format (versions 1.0 to 3.0, C order, little endian) for the
// element types of DTRT_FOR_EACH_DTYPE. Reading validates the header against
// the file (dims, header length, data size) before allocating anything, and
// can read one block (a rank's shard) without reading the whole array.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_TOOLS_DTENSOR_RUN_NPY_H
#define DTENSOR_TOOLS_DTENSOR_RUN_NPY_H

#include "HostArray.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dtensor_run {

/// What the header of a valid .npy file says.
struct NpyHeader {
  dtrt_dtype dtype = DTRT_F32;
  std::vector<int64_t> shape;
  /// Byte offset of the data in the file.
  uint64_t dataOffset = 0;
};

/// Reads and validates the header of `path`: a regular file, the magic, a
/// header length within the file, a supported dtype, C order, dims that are
/// non-negative integers whose product fits, and at least as many data bytes
/// as the shape needs. On failure returns false and sets `error` (prefixed
/// with the path).
bool readNpyHeader(const std::string &path, NpyHeader &header,
                   std::string &error);

/// Reads the block of `shape` at `offsets` of the array in `path` (whose
/// header `header` came from readNpyHeader) into `out`; dims with
/// `strided` indices read those elements (see `forEachRun`).
bool readNpyBlock(const std::string &path, const NpyHeader &header,
                  llvm::ArrayRef<int64_t> shape,
                  llvm::ArrayRef<int64_t> offsets, HostArray &out,
                  std::string &error, StridedIndices strided = {});

/// Reads the whole array of `path`.
bool readNpy(const std::string &path, HostArray &out, std::string &error);

/// Writes `a` to `path` (version 1.0); on failure returns false and sets
/// `error`.
bool writeNpy(const std::string &path, const HostArray &a, std::string &error);

} // namespace dtensor_run

#endif // DTENSOR_TOOLS_DTENSOR_RUN_NPY_H

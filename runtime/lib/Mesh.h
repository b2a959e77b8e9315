//===- Mesh.h - Row-major mesh coordinates and axis groups ------*- C++ -*-===//
//
// Pure functions (no MPI) that define how ranks map onto the mesh and onto
// the groups of a set of mesh axes. The compiler numbers shards the same way.
//
//===----------------------------------------------------------------------===//

#ifndef DTRT_LIB_MESH_H
#define DTRT_LIB_MESH_H

#include <cstdint>
#include <string>
#include <vector>

namespace dtrt {

/// Returns the product of the mesh axis sizes.
int64_t meshSize(const std::vector<int64_t> &shape);

/// Returns the row-major coordinates (last axis fastest) of `rank`.
std::vector<int64_t> meshCoords(int64_t rank,
                                const std::vector<int64_t> &shape);

/// Returns "[2, 2]" for the shape {2, 2}.
std::string formatShape(const std::vector<int64_t> &shape);

/// Where a rank sits for one set of mesh axes.
struct GroupPlacement {
  /// Identifies the group: the row-major index of the coordinates outside the
  /// axes (the MPI_Comm_split colour).
  int64_t color = 0;
  /// The rank inside the group: the row-major index of the coordinates on the
  /// axes (the MPI_Comm_split key).
  int64_t rank = 0;
  /// The number of ranks in the group.
  int64_t size = 1;
};

/// Returns the group placement of the rank at `coords` for the axes in
/// `axesMask` (bit i = axis i; bits must be below shape.size()).
GroupPlacement placeInGroup(const std::vector<int64_t> &coords,
                            const std::vector<int64_t> &shape,
                            uint64_t axesMask);

} // namespace dtrt

#endif // DTRT_LIB_MESH_H

//===- CommGroups.h - One MPI communicator per mesh-axis group --*- C++ -*-===//
//
// The communicators are created with MPI_Comm_split (colour = coordinates
// outside the axes, key = row-major index on the axes, see Mesh.h) and cached
// by axes mask.
//
//===----------------------------------------------------------------------===//

#ifndef DTRT_LIB_COMMGROUPS_H
#define DTRT_LIB_COMMGROUPS_H

#include <mpi.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace dtrt {

/// This rank's communicator for one set of mesh axes.
struct CommGroup {
  /// Ranked in group-rank order, with MPI_ERRORS_RETURN.
  MPI_Comm comm = MPI_COMM_NULL;
  /// The number of members, and this rank's group rank.
  int32_t size = 1;
  int32_t rank = 0;
};

/// The cache of axis-group communicators of this rank.
class CommGroups {
public:
  /// Meshes with at most this many axes get every group's communicator at
  /// initialisation (2^axes splits). Larger meshes split on first use, which
  /// is collective over the whole world: every rank must then use each new
  /// axes mask in the same order.
  static constexpr size_t kEagerMaxAxes = 4;

  /// Records the mesh and creates the communicators (see kEagerMaxAxes).
  /// Collective over `world`.
  int32_t create(MPI_Comm world, const std::vector<int64_t> &shape,
                 const std::vector<int64_t> &coords);

  /// Sets `group` to the communicator of `axesMask`, creating it when it is
  /// not cached yet. `caller` prefixes error messages.
  int32_t get(const char *caller, uint64_t axesMask, const CommGroup *&group);

  /// Frees every communicator.
  int32_t release();

private:
  /// Creates, caches and returns the communicator of `axesMask`.
  int32_t split(uint64_t axesMask, const CommGroup *&group);

  MPI_Comm world = MPI_COMM_NULL;
  std::vector<int64_t> shape;
  std::vector<int64_t> coords;
  std::unordered_map<uint64_t, CommGroup> groups;
};

} // namespace dtrt

#endif // DTRT_LIB_COMMGROUPS_H

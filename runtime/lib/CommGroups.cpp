//===- CommGroups.cpp - One MPI communicator per mesh-axis group ----------===//

#include "CommGroups.h"

#include "Error.h"
#include "Mesh.h"

#include <string>

using namespace dtrt;

int32_t CommGroups::create(MPI_Comm worldComm,
                           const std::vector<int64_t> &meshShape,
                           const std::vector<int64_t> &meshCoords) {
  world = worldComm;
  shape = meshShape;
  coords = meshCoords;
  if (shape.size() > kEagerMaxAxes)
    return DTRT_OK;
  const CommGroup *group = nullptr;
  for (uint64_t mask = 0; mask < (uint64_t(1) << shape.size()); ++mask)
    DTRT_RETURN_IF_ERROR(split(mask, group));
  return DTRT_OK;
}

int32_t CommGroups::get(const char *caller, uint64_t axesMask,
                        const CommGroup *&group) {
  if ((axesMask >> shape.size()) != 0)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                std::string(caller) + ": axes mask " +
                    std::to_string(axesMask) + " names an axis outside mesh " +
                    formatShape(shape));
  auto it = groups.find(axesMask);
  if (it != groups.end()) {
    group = &it->second;
    return DTRT_OK;
  }
  return split(axesMask, group);
}

int32_t CommGroups::split(uint64_t axesMask, const CommGroup *&group) {
  GroupPlacement placement = placeInGroup(coords, shape, axesMask);
  CommGroup created;
  DTRT_MPI_CHECK(MPI_Comm_split, world, static_cast<int>(placement.color),
                 static_cast<int>(placement.rank), &created.comm);
  DTRT_MPI_CHECK(MPI_Comm_set_errhandler, created.comm, MPI_ERRORS_RETURN);
  int size = 0, rank = 0;
  DTRT_MPI_CHECK(MPI_Comm_size, created.comm, &size);
  DTRT_MPI_CHECK(MPI_Comm_rank, created.comm, &rank);
  if (size != placement.size || rank != placement.rank)
    return fail(DTRT_ERR_MESH, "MPI_Comm_split: group of axes mask " +
                                   std::to_string(axesMask) + " has rank " +
                                   std::to_string(rank) + " of " +
                                   std::to_string(size) + ", expected " +
                                   std::to_string(placement.rank) + " of " +
                                   std::to_string(placement.size));
  created.size = size;
  created.rank = rank;
  group = &(groups[axesMask] = created);
  return DTRT_OK;
}

int32_t CommGroups::release() {
  for (auto &entry : groups)
    DTRT_MPI_CHECK(MPI_Comm_free, &entry.second.comm);
  groups.clear();
  return DTRT_OK;
}

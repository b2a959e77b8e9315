//===- Init.cpp - Initialisation, finalisation and mesh queries -----------===//

#include "Error.h"
#include "Mesh.h"
#include "Requests.h"
#include "Runtime.h"
#include "Tracing.h"

#include <cstdlib>
#include <string>

using namespace dtrt;

namespace {
int32_t checkMeshShape(int32_t meshRank, const int64_t *meshShape,
                       std::vector<int64_t> &shape) {
  if (meshRank < 1 || meshRank > DTRT_MAX_MESH_AXES)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_init: the mesh needs 1 to " +
                    std::to_string(DTRT_MAX_MESH_AXES) + " axes, got " +
                    std::to_string(meshRank));
  if (!meshShape)
    return fail(DTRT_ERR_INVALID_ARGUMENT, "dtrt_init: mesh_shape is null");
  shape.assign(meshShape, meshShape + meshRank);
  int64_t devices = 1;
  for (int64_t extent : shape) {
    // The compiler's limit; it also keeps every split colour in an int.
    if (extent < 1 || extent > DTRT_MAX_MESH_DEVICES ||
        devices > DTRT_MAX_MESH_DEVICES / extent)
      return fail(DTRT_ERR_INVALID_ARGUMENT,
                  "dtrt_init: invalid mesh " + formatShape(shape) +
                      ": axis sizes must be positive and their product at "
                      "most " +
                      std::to_string(DTRT_MAX_MESH_DEVICES));
    devices *= extent;
  }
  return DTRT_OK;
}

/// Initialises MPI unless the host did; `mode` is the progress engine
/// requested, lowered to `test` when MPI cannot give a progress thread
/// MPI_THREAD_MULTIPLE.
int32_t initMpi(Runtime &rt, ProgressMode &mode) {
  int finalised = 0;
  DTRT_MPI_CHECK(MPI_Finalized, &finalised);
  if (finalised)
    return fail(DTRT_ERR_STATE, "dtrt_init: MPI is already finalised");
  int initialised = 0;
  DTRT_MPI_CHECK(MPI_Initialized, &initialised);
  int provided = 0;
  if (initialised) {
    DTRT_MPI_CHECK(MPI_Query_thread, &provided);
  } else {
    int wanted = mode == ProgressMode::Thread ? MPI_THREAD_MULTIPLE
                                              : MPI_THREAD_SERIALIZED;
    DTRT_MPI_CHECK(MPI_Init_thread, nullptr, nullptr, wanted, &provided);
    rt.ownsMpi = true;
    // Our own world may report errors instead of aborting the job.
    DTRT_MPI_CHECK(MPI_Comm_set_errhandler, MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  if (rt.world == MPI_COMM_NULL) {
    DTRT_MPI_CHECK(MPI_Comm_dup, MPI_COMM_WORLD, &rt.world);
    DTRT_MPI_CHECK(MPI_Comm_set_errhandler, rt.world, MPI_ERRORS_RETURN);
  }
  int rank = 0, size = 0;
  DTRT_MPI_CHECK(MPI_Comm_rank, rt.world, &rank);
  DTRT_MPI_CHECK(MPI_Comm_size, rt.world, &size);
  rt.rank = rank;
  rt.worldSize = size;
  if (mode == ProgressMode::Thread && provided < MPI_THREAD_MULTIPLE)
    mode = ProgressMode::Test;
  return DTRT_OK;
}
} // namespace

Runtime &dtrt::runtime() {
  static Runtime state;
  return state;
}

int32_t dtrt::requireInit(const char *caller) {
  if (runtime().initialised)
    return DTRT_OK;
  return fail(DTRT_ERR_STATE,
              std::string(caller) + ": the runtime is not initialised");
}

extern "C" {

int32_t dtrt_init(int32_t mesh_rank, const int64_t *mesh_shape) {
  Runtime &rt = runtime();
  if (rt.initialised)
    return fail(DTRT_ERR_STATE, "dtrt_init: the runtime is already "
                                "initialised on mesh " +
                                    formatShape(rt.shape));
  std::vector<int64_t> shape;
  DTRT_RETURN_IF_ERROR(checkMeshShape(mesh_rank, mesh_shape, shape));
  bool invalidMode = false;
  ProgressMode mode = requestedProgressMode(invalidMode);
  if (invalidMode)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                std::string("dtrt_init: DTRT_PROGRESS must be thread, test or "
                            "none, got '") +
                    std::getenv("DTRT_PROGRESS") + "'");
  DTRT_RETURN_IF_ERROR(initMpi(rt, mode));
  if (meshSize(shape) != rt.worldSize)
    return fail(DTRT_ERR_MESH, "dtrt_init: mesh " + formatShape(shape) +
                                   " has " + std::to_string(meshSize(shape)) +
                                   " devices but the MPI world has " +
                                   std::to_string(rt.worldSize) + " ranks");
  rt.shape = shape;
  rt.coords = meshCoords(rt.rank, shape);
  DTRT_RETURN_IF_ERROR(rt.groups.create(rt.world, rt.shape, rt.coords));
  DTRT_MPI_CHECK(MPI_Barrier, rt.world);
  rt.epoch = MPI_Wtime();
  DTRT_RETURN_IF_ERROR(startProgress(mode));
  rt.initialised = true;
  return DTRT_OK;
}

int32_t dtrt_finalize(void) {
  DTRT_RETURN_IF_ERROR(requireInit("dtrt_finalize"));
  Runtime &rt = runtime();
  int64_t pending = 0;
  int32_t status = completeAllRequests(pending);
  rt.initialised = false;
  rt.axisNames.clear();
  clearTrace();
  DTRT_RETURN_IF_ERROR(status);
  DTRT_RETURN_IF_ERROR(rt.groups.release());
  DTRT_MPI_CHECK(MPI_Comm_free, &rt.world);
  if (rt.ownsMpi) {
    rt.ownsMpi = false;
    DTRT_MPI_CHECK(MPI_Finalize);
  }
  if (pending)
    return fail(DTRT_ERR_STATE,
                "dtrt_finalize: " + std::to_string(pending) +
                    (pending == 1 ? " request was" : " requests were") +
                    " never waited on");
  return DTRT_OK;
}

int32_t dtrt_set_axis_names(int32_t count, const char *const *names) {
  DTRT_RETURN_IF_ERROR(requireInit("dtrt_set_axis_names"));
  Runtime &rt = runtime();
  if (count != static_cast<int32_t>(rt.shape.size()) || (count && !names))
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_set_axis_names: " + std::to_string(count) +
                    " names for mesh " + formatShape(rt.shape));
  std::vector<std::string> copied;
  for (int32_t i = 0; i < count; ++i) {
    if (!names[i])
      return fail(DTRT_ERR_INVALID_ARGUMENT,
                  "dtrt_set_axis_names: name " + std::to_string(i) +
                      " is null");
    copied.emplace_back(names[i]);
  }
  rt.axisNames = std::move(copied);
  return DTRT_OK;
}

int32_t dtrt_rank(void) { return runtime().initialised ? runtime().rank : -1; }

int32_t dtrt_world_size(void) {
  return runtime().initialised ? runtime().worldSize : -1;
}

int32_t dtrt_mesh_coord(int32_t axis) {
  if (requireInit("dtrt_mesh_coord") != DTRT_OK)
    return -1;
  const Runtime &rt = runtime();
  if (axis < 0 || static_cast<size_t>(axis) >= rt.shape.size()) {
    fail(DTRT_ERR_INVALID_ARGUMENT,
         "dtrt_mesh_coord: axis " + std::to_string(axis) + " is outside mesh " +
             formatShape(rt.shape));
    return -1;
  }
  return static_cast<int32_t>(rt.coords[axis]);
}

static int32_t groupPlacement(const char *caller, uint64_t axesMask,
                              GroupPlacement &placement) {
  DTRT_RETURN_IF_ERROR(requireInit(caller));
  const Runtime &rt = runtime();
  if ((axesMask >> rt.shape.size()) != 0)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                std::string(caller) + ": axes mask " +
                    std::to_string(axesMask) + " names an axis outside mesh " +
                    formatShape(rt.shape));
  placement = placeInGroup(rt.coords, rt.shape, axesMask);
  return DTRT_OK;
}

int32_t dtrt_group_size(uint64_t axes_mask) {
  GroupPlacement placement;
  if (groupPlacement("dtrt_group_size", axes_mask, placement) != DTRT_OK)
    return -1;
  return static_cast<int32_t>(placement.size);
}

int32_t dtrt_group_rank(uint64_t axes_mask) {
  GroupPlacement placement;
  if (groupPlacement("dtrt_group_rank", axes_mask, placement) != DTRT_OK)
    return -1;
  return static_cast<int32_t>(placement.rank);
}

} // extern "C"

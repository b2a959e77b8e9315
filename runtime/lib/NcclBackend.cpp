//===- NcclBackend.cpp - Collectives on device buffers over NCCL ----------===//
//
// One NCCL communicator per mesh-axis group, created on the group's first
// collective: group rank 0 gets an ncclUniqueId, broadcasts it over the
// group's MPI communicator, and every member calls ncclCommInitRank with its
// group rank. Only the members of a group take part, so creating it lazily
// cannot deadlock the rest of the world.
//
//===----------------------------------------------------------------------===//

#include "dtrt/dtrt_nccl.h"

#include "CommGroups.h"
#include "DType.h"
#include "Error.h"
#include "Runtime.h"
#include "Tracing.h"

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <string>
#include <unordered_map>

using namespace dtrt;

namespace {

int32_t cudaFail(const char *call, cudaError_t error) {
  return fail(DTRT_ERR_CUDA, std::string(call) + ": " +
                                 cudaGetErrorName(error) + ": " +
                                 cudaGetErrorString(error));
}

int32_t ncclFail(const char *call, ncclResult_t result) {
  std::string message = std::string(call) + ": " + ncclGetErrorString(result);
  const char *detail = ncclGetLastError(nullptr);
  if (detail && *detail)
    message += std::string(" (") + detail + ")";
  return fail(DTRT_ERR_NCCL, message);
}

} // namespace

/// Runs the CUDA runtime call `fn(args...)`; on failure returns DTRT_ERR_CUDA
/// with a message naming `fn` and CUDA's error string.
#define DTRT_CUDA_CHECK(fn, ...)                                               \
  do {                                                                         \
    cudaError_t dtrtError_ = fn(__VA_ARGS__);                                  \
    if (dtrtError_ != cudaSuccess)                                             \
      return cudaFail(#fn, dtrtError_);                                        \
  } while (false)

/// Runs the NCCL call `fn(args...)`; on failure returns DTRT_ERR_NCCL with a
/// message naming `fn` and NCCL's error string.
#define DTRT_NCCL_CHECK(fn, ...)                                               \
  do {                                                                         \
    ncclResult_t dtrtResult_ = fn(__VA_ARGS__);                                \
    if (dtrtResult_ != ncclSuccess)                                            \
      return ncclFail(#fn, dtrtResult_);                                       \
  } while (false)

namespace {

struct NcclGroup {
  ncclComm_t comm = nullptr;
  int32_t size = 1;
  int32_t rank = 0;
};

/// A started collective: its completion event and its comm span.
struct NcclRequest {
  cudaEvent_t done = nullptr;
  const char *name = "";
  double startUs = 0.0;
  int64_t bytes = 0;
  uint64_t axesMask = 0;
};

struct NcclState {
  bool initialised = false;
  int device = 0;
  cudaStream_t commStream = nullptr;
  /// Null is the legacy default stream.
  cudaStream_t computeStream = nullptr;
  /// Recorded on the compute stream before each collective.
  cudaEvent_t computeReady = nullptr;
  std::unordered_map<uint64_t, NcclGroup> groups;
  std::unordered_map<int64_t, NcclRequest> requests;
  int64_t nextRequest = 1;
};

NcclState &nccl() {
  static NcclState state;
  return state;
}

int32_t requireNccl(const char *api) {
  DTRT_RETURN_IF_ERROR(requireInit(api));
  if (!nccl().initialised)
    return fail(DTRT_ERR_STATE,
                std::string(api) + ": dtrt_nccl_init was not called");
  return DTRT_OK;
}

/// Returns the NCCL communicator of `axesMask`, creating it on first use
/// (collective over the group).
int32_t getGroup(const char *api, uint64_t axesMask, const NcclGroup *&group) {
  NcclState &state = nccl();
  auto it = state.groups.find(axesMask);
  if (it != state.groups.end()) {
    group = &it->second;
    return DTRT_OK;
  }
  const CommGroup *mpiGroup = nullptr;
  DTRT_RETURN_IF_ERROR(runtime().groups.get(api, axesMask, mpiGroup));
  ncclUniqueId id{};
  if (mpiGroup->rank == 0)
    DTRT_NCCL_CHECK(ncclGetUniqueId, &id);
  DTRT_MPI_CHECK(MPI_Bcast, &id, static_cast<int>(sizeof(id)), MPI_BYTE, 0,
                 mpiGroup->comm);
  NcclGroup created;
  created.size = mpiGroup->size;
  created.rank = mpiGroup->rank;
  DTRT_NCCL_CHECK(ncclCommInitRank, &created.comm, created.size, id,
                  created.rank);
  group = &(state.groups[axesMask] = created);
  return DTRT_OK;
}

/// The NCCL element type for a reduction, or for moving bytes when
/// `reducing` is false (then `count` is scaled to bytes).
int32_t toNcclType(const char *api, int32_t dtype, bool reducing,
                   int64_t &count, ncclDataType_t &type) {
  if (!isValidDType(dtype))
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                std::string(api) + ": unknown dtype " + std::to_string(dtype));
  if (!reducing) {
    count *= static_cast<int64_t>(dtypeSize(dtype));
    type = ncclUint8;
    return DTRT_OK;
  }
  switch (dtype) {
  case DTRT_F32:
    type = ncclFloat32;
    return DTRT_OK;
  case DTRT_F64:
    type = ncclFloat64;
    return DTRT_OK;
  case DTRT_I32:
    type = ncclInt32;
    return DTRT_OK;
  case DTRT_I64:
    type = ncclInt64;
    return DTRT_OK;
  case DTRT_I8:
    type = ncclInt8;
    return DTRT_OK;
  case DTRT_I1:
    type = ncclUint8;
    return DTRT_OK;
  default:
    return fail(DTRT_ERR_INVALID_ARGUMENT, std::string(api) + ": NCCL has no " +
                                               dtypeName(dtype) +
                                               " reductions");
  }
}

int32_t toNcclOp(const char *api, int32_t dtype, int32_t op,
                 ncclRedOp_t &result) {
  DTRT_RETURN_IF_ERROR(checkReduceOp(api, dtype, op));
  if (dtype == DTRT_I1 && op == DTRT_SUM)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                std::string(api) + ": NCCL has no i1 sum (exclusive or)");
  switch (op) {
  case DTRT_AVG:
    result = ncclAvg;
    break;
  case DTRT_MAX:
    result = ncclMax;
    break;
  case DTRT_MIN:
    result = ncclMin;
    break;
  default:
    result = ncclSum;
  }
  return DTRT_OK;
}

int32_t checkCount(const char *api, int64_t count, bool hasBuffers) {
  if (count < 0)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                std::string(api) + ": negative count " + std::to_string(count));
  if (count > 0 && !hasBuffers)
    return fail(DTRT_ERR_INVALID_ARGUMENT, std::string(api) + ": null buffer");
  return DTRT_OK;
}

/// Orders the communication stream after the compute stream, lets
/// `enqueue(group, stream)` issue the NCCL calls, then either waits for them
/// (`request` null) or records a completion event as a new request.
template <typename Enqueue>
int32_t runCollective(const char *api, const char *spanName, uint64_t axesMask,
                      int64_t bytes, int64_t *request, Enqueue enqueue) {
  DTRT_RETURN_IF_ERROR(requireNccl(api));
  NcclState &state = nccl();
  const NcclGroup *group = nullptr;
  DTRT_RETURN_IF_ERROR(getGroup(api, axesMask, group));
  double startUs = nowUs();
  DTRT_CUDA_CHECK(cudaEventRecord, state.computeReady, state.computeStream);
  DTRT_CUDA_CHECK(cudaStreamWaitEvent, state.commStream, state.computeReady, 0);
  DTRT_RETURN_IF_ERROR(enqueue(*group, state.commStream));
  if (!request) {
    DTRT_CUDA_CHECK(cudaStreamSynchronize, state.commStream);
    recordSpan(spanName, DTRT_SPAN_COMM, startUs, nowUs(), bytes, axesMask);
    return DTRT_OK;
  }
  NcclRequest pending;
  pending.name = spanName;
  pending.startUs = startUs;
  pending.bytes = bytes;
  pending.axesMask = axesMask;
  DTRT_CUDA_CHECK(cudaEventCreateWithFlags, &pending.done,
                  cudaEventDisableTiming);
  cudaError_t recorded = cudaEventRecord(pending.done, state.commStream);
  if (recorded != cudaSuccess) {
    cudaEventDestroy(pending.done);
    return cudaFail("cudaEventRecord", recorded);
  }
  *request = state.nextRequest++;
  state.requests.emplace(*request, pending);
  return DTRT_OK;
}

int32_t allReduce(const char *api, const void *in, void *out, int64_t count,
                  int32_t dtype, int32_t op, uint64_t axesMask,
                  int64_t *request) {
  DTRT_RETURN_IF_ERROR(checkCount(api, count, in && out));
  ncclDataType_t type;
  ncclRedOp_t ncclOp;
  int64_t elements = count;
  DTRT_RETURN_IF_ERROR(toNcclType(api, dtype, true, elements, type));
  DTRT_RETURN_IF_ERROR(toNcclOp(api, dtype, op, ncclOp));
  int64_t bytes = count * static_cast<int64_t>(dtypeSize(dtype));
  return runCollective(api, "nccl_all_reduce", axesMask, bytes, request,
                       [&](const NcclGroup &group, cudaStream_t stream) {
                         DTRT_NCCL_CHECK(ncclAllReduce, in, out, elements, type,
                                         ncclOp, group.comm, stream);
                         return int32_t(DTRT_OK);
                       });
}

int32_t allGather(const char *api, const void *in, void *out,
                  int64_t countPerRank, int32_t dtype, uint64_t axesMask,
                  int64_t *request) {
  DTRT_RETURN_IF_ERROR(checkCount(api, countPerRank, in && out));
  ncclDataType_t type;
  int64_t elements = countPerRank;
  DTRT_RETURN_IF_ERROR(toNcclType(api, dtype, false, elements, type));
  return runCollective(api, "nccl_all_gather", axesMask,
                       elements * dtrt_group_size(axesMask), request,
                       [&](const NcclGroup &group, cudaStream_t stream) {
                         DTRT_NCCL_CHECK(ncclAllGather, in, out, elements, type,
                                         group.comm, stream);
                         return int32_t(DTRT_OK);
                       });
}

int32_t reduceScatter(const char *api, const void *in, void *out,
                      int64_t countPerRank, int32_t dtype, int32_t op,
                      uint64_t axesMask, int64_t *request) {
  DTRT_RETURN_IF_ERROR(checkCount(api, countPerRank, in && out));
  ncclDataType_t type;
  ncclRedOp_t ncclOp;
  int64_t elements = countPerRank;
  DTRT_RETURN_IF_ERROR(toNcclType(api, dtype, true, elements, type));
  DTRT_RETURN_IF_ERROR(toNcclOp(api, dtype, op, ncclOp));
  int64_t bytes = countPerRank * static_cast<int64_t>(dtypeSize(dtype)) *
                  dtrt_group_size(axesMask);
  return runCollective(api, "nccl_reduce_scatter", axesMask, bytes, request,
                       [&](const NcclGroup &group, cudaStream_t stream) {
                         DTRT_NCCL_CHECK(ncclReduceScatter, in, out, elements,
                                         type, ncclOp, group.comm, stream);
                         return int32_t(DTRT_OK);
                       });
}

} // namespace

extern "C" {

int32_t dtrt_nccl_init(void) {
  DTRT_RETURN_IF_ERROR(requireInit("dtrt_nccl_init"));
  NcclState &state = nccl();
  if (state.initialised)
    return fail(DTRT_ERR_STATE, "dtrt_nccl_init: already initialised");
  // One device per rank of a node: the node-local rank picks it.
  MPI_Comm node;
  DTRT_MPI_CHECK(MPI_Comm_split_type, runtime().world, MPI_COMM_TYPE_SHARED,
                 runtime().rank, MPI_INFO_NULL, &node);
  int localRank = 0;
  int rc = MPI_Comm_rank(node, &localRank);
  MPI_Comm_free(&node);
  if (rc != MPI_SUCCESS)
    return mpiFail("MPI_Comm_rank", rc);
  int devices = 0;
  DTRT_CUDA_CHECK(cudaGetDeviceCount, &devices);
  state.device = localRank % devices;
  DTRT_CUDA_CHECK(cudaSetDevice, state.device);
  DTRT_CUDA_CHECK(cudaStreamCreateWithFlags, &state.commStream,
                  cudaStreamNonBlocking);
  DTRT_CUDA_CHECK(cudaEventCreateWithFlags, &state.computeReady,
                  cudaEventDisableTiming);
  state.initialised = true;
  return DTRT_OK;
}

int32_t dtrt_nccl_finalize(void) {
  DTRT_RETURN_IF_ERROR(requireNccl("dtrt_nccl_finalize"));
  NcclState &state = nccl();
  state.initialised = false;
  DTRT_CUDA_CHECK(cudaStreamSynchronize, state.commStream);
  for (auto &entry : state.requests)
    DTRT_CUDA_CHECK(cudaEventDestroy, entry.second.done);
  state.requests.clear();
  for (auto &entry : state.groups)
    DTRT_NCCL_CHECK(ncclCommDestroy, entry.second.comm);
  state.groups.clear();
  DTRT_CUDA_CHECK(cudaEventDestroy, state.computeReady);
  DTRT_CUDA_CHECK(cudaStreamDestroy, state.commStream);
  state.commStream = nullptr;
  state.computeReady = nullptr;
  return DTRT_OK;
}

int32_t dtrt_nccl_set_compute_stream(void *stream) {
  DTRT_RETURN_IF_ERROR(requireNccl("dtrt_nccl_set_compute_stream"));
  nccl().computeStream = static_cast<cudaStream_t>(stream);
  return DTRT_OK;
}

int32_t dtrt_nccl_comm_stream(void **stream) {
  DTRT_RETURN_IF_ERROR(requireNccl("dtrt_nccl_comm_stream"));
  if (!stream)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_nccl_comm_stream: stream is null");
  *stream = nccl().commStream;
  return DTRT_OK;
}

int32_t dtrt_nccl_all_reduce(const void *in, void *out, int64_t count,
                             int32_t dtype, int32_t op, uint64_t axes_mask) {
  return allReduce("dtrt_nccl_all_reduce", in, out, count, dtype, op, axes_mask,
                   nullptr);
}

int32_t dtrt_nccl_all_gather(const void *in, void *out, int64_t count_per_rank,
                             int32_t dtype, uint64_t axes_mask) {
  return allGather("dtrt_nccl_all_gather", in, out, count_per_rank, dtype,
                   axes_mask, nullptr);
}

int32_t dtrt_nccl_reduce_scatter(const void *in, void *out,
                                 int64_t count_per_rank, int32_t dtype,
                                 int32_t op, uint64_t axes_mask) {
  return reduceScatter("dtrt_nccl_reduce_scatter", in, out, count_per_rank,
                       dtype, op, axes_mask, nullptr);
}

int32_t dtrt_nccl_all_to_all(const void *in, void *out, int64_t count_per_rank,
                             int32_t dtype, uint64_t axes_mask) {
  const char *api = "dtrt_nccl_all_to_all";
  DTRT_RETURN_IF_ERROR(checkCount(api, count_per_rank, in && out));
  ncclDataType_t type;
  int64_t elements = count_per_rank;
  DTRT_RETURN_IF_ERROR(toNcclType(api, dtype, false, elements, type));
  return runCollective(
      api, "nccl_all_to_all", axes_mask, elements * dtrt_group_size(axes_mask),
      nullptr, [&](const NcclGroup &group, cudaStream_t stream) {
        const char *send = static_cast<const char *>(in);
        char *recv = static_cast<char *>(out);
        DTRT_NCCL_CHECK(ncclGroupStart);
        for (int32_t peer = 0; peer < group.size; ++peer) {
          ncclResult_t sent = ncclSend(send + peer * elements, elements, type,
                                       peer, group.comm, stream);
          ncclResult_t received = ncclRecv(recv + peer * elements, elements,
                                           type, peer, group.comm, stream);
          if (sent != ncclSuccess || received != ncclSuccess) {
            ncclGroupEnd();
            return sent != ncclSuccess ? ncclFail("ncclSend", sent)
                                       : ncclFail("ncclRecv", received);
          }
        }
        DTRT_NCCL_CHECK(ncclGroupEnd);
        return int32_t(DTRT_OK);
      });
}

int32_t dtrt_nccl_broadcast(void *buf, int64_t count, int32_t dtype,
                            int32_t root_group_rank, uint64_t axes_mask) {
  const char *api = "dtrt_nccl_broadcast";
  DTRT_RETURN_IF_ERROR(checkCount(api, count, buf));
  ncclDataType_t type;
  int64_t elements = count;
  DTRT_RETURN_IF_ERROR(toNcclType(api, dtype, false, elements, type));
  int32_t size = dtrt_group_size(axes_mask);
  if (root_group_rank < 0 || root_group_rank >= size)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                std::string(api) + ": root " + std::to_string(root_group_rank) +
                    " is outside a group of " + std::to_string(size));
  return runCollective(api, "nccl_broadcast", axes_mask, elements, nullptr,
                       [&](const NcclGroup &group, cudaStream_t stream) {
                         DTRT_NCCL_CHECK(ncclBroadcast, buf, buf, elements,
                                         type, root_group_rank, group.comm,
                                         stream);
                         return int32_t(DTRT_OK);
                       });
}

int32_t dtrt_nccl_all_reduce_start(const void *in, void *out, int64_t count,
                                   int32_t dtype, int32_t op,
                                   uint64_t axes_mask, int64_t *request) {
  if (!request)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_nccl_all_reduce_start: request is null");
  return allReduce("dtrt_nccl_all_reduce_start", in, out, count, dtype, op,
                   axes_mask, request);
}

int32_t dtrt_nccl_all_gather_start(const void *in, void *out,
                                   int64_t count_per_rank, int32_t dtype,
                                   uint64_t axes_mask, int64_t *request) {
  if (!request)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_nccl_all_gather_start: request is null");
  return allGather("dtrt_nccl_all_gather_start", in, out, count_per_rank, dtype,
                   axes_mask, request);
}

int32_t dtrt_nccl_reduce_scatter_start(const void *in, void *out,
                                       int64_t count_per_rank, int32_t dtype,
                                       int32_t op, uint64_t axes_mask,
                                       int64_t *request) {
  if (!request)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_nccl_reduce_scatter_start: request is null");
  return reduceScatter("dtrt_nccl_reduce_scatter_start", in, out,
                       count_per_rank, dtype, op, axes_mask, request);
}

int32_t dtrt_nccl_wait(int64_t request) {
  DTRT_RETURN_IF_ERROR(requireNccl("dtrt_nccl_wait"));
  NcclState &state = nccl();
  auto it = state.requests.find(request);
  if (it == state.requests.end())
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_nccl_wait: unknown or completed request " +
                    std::to_string(request));
  NcclRequest pending = it->second;
  state.requests.erase(it);
  cudaError_t waited =
      cudaStreamWaitEvent(state.computeStream, pending.done, 0);
  cudaError_t destroyed = cudaEventDestroy(pending.done);
  if (waited != cudaSuccess)
    return cudaFail("cudaStreamWaitEvent", waited);
  if (destroyed != cudaSuccess)
    return cudaFail("cudaEventDestroy", destroyed);
  recordSpan(pending.name, DTRT_SPAN_COMM, pending.startUs, nowUs(),
             pending.bytes, pending.axesMask);
  return DTRT_OK;
}

int32_t dtrt_nccl_synchronize(void) {
  DTRT_RETURN_IF_ERROR(requireNccl("dtrt_nccl_synchronize"));
  DTRT_CUDA_CHECK(cudaStreamSynchronize, nccl().commStream);
  return DTRT_OK;
}

} // extern "C"

//===- NcclBackend.cpp - Collectives on device buffers over NCCL ----------===//
//
// One NCCL communicator per mesh-axis group, all created by dtrt_nccl_init in
// the same mask order on every rank (meshes of up to
// CommGroups::kEagerMaxAxes axes; larger ones create a group on its first
// collective, collective over the world as CommGroups): group rank 0 gets an
// ncclUniqueId, broadcasts it over the group's MPI communicator, and every
// member calls ncclCommInitRank with its group rank.
//
// The device is the one dtrt_cuda_init chose, and the compute stream is the
// runtime's. Comm spans are timed with CUDA events on the communication
// stream and recorded once they finished (at a synchronisation or when the
// trace is written).
//
//===----------------------------------------------------------------------===//

#include "dtrt/dtrt_cuda.h"
#include "dtrt/dtrt_nccl.h"

#include "CommGroups.h"
#include "DType.h"
#include "Error.h"
#include "Runtime.h"
#include "Tracing.h"
#include "gpu/GpuTypes.h"
#include "gpu/HandlePool.h"

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <string>
#include <unordered_map>
#include <vector>

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

/// A collective on the communication stream: the events around it (`done`
/// is also what dtrt_nccl_wait makes the compute stream wait for) and its
/// comm span.
struct NcclSpan {
  cudaEvent_t start = nullptr, done = nullptr;
  const char *name = "";
  int64_t bytes = 0;
  uint64_t axesMask = 0;
};

struct NcclState {
  bool initialised = false;
  int device = 0;
  cudaStream_t commStream = nullptr;
  /// The runtime's compute stream unless dtrt_nccl_set_compute_stream
  /// changed it (null is the legacy default stream).
  cudaStream_t computeStream = nullptr;
  /// Recorded on the compute stream before each collective.
  cudaEvent_t computeReady = nullptr;
  /// Recorded on the communication stream at dtrt_nccl_init, at host time
  /// `epochUs`: span times are measured from it.
  cudaEvent_t epoch = nullptr;
  double epochUs = 0.0;
  std::unordered_map<uint64_t, NcclGroup> groups;
  RequestTable<NcclSpan> requests;
  /// Collectives whose spans are recorded once their events completed.
  std::vector<NcclSpan> unrecorded;
  /// Compute spans (dtrt_span_begin/end) as events on the compute stream.
  DeviceSpanLog<cudaEvent_t> computeSpans;
  HandlePool<cudaEvent_t> events;
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
  std::optional<ncclDataType_t> mapped = ncclTypeOf(dtype);
  if (!mapped)
    return fail(DTRT_ERR_INVALID_ARGUMENT, std::string(api) + ": NCCL has no " +
                                               dtypeName(dtype) +
                                               " reductions");
  type = *mapped;
  return DTRT_OK;
}

int32_t createTimingEvent(cudaEvent_t &event) {
  DTRT_CUDA_CHECK(cudaEventCreate, &event);
  return DTRT_OK;
}

int32_t destroyEvent(cudaEvent_t event) {
  DTRT_CUDA_CHECK(cudaEventDestroy, event);
  return DTRT_OK;
}

/// Waits for `done`, reads the host times (microseconds since dtrt_init)
/// of `start` and `done` through the epoch event, and returns both events
/// to the pool.
int32_t readDeviceTimes(cudaEvent_t start, cudaEvent_t done, double &startUs,
                        double &endUs) {
  NcclState &state = nccl();
  float startMs = 0.0f, endMs = 0.0f;
  cudaError_t error = cudaEventSynchronize(done);
  const char *call = "cudaEventSynchronize";
  if (error == cudaSuccess) {
    call = "cudaEventElapsedTime";
    error = cudaEventElapsedTime(&startMs, state.epoch, start);
  }
  if (error == cudaSuccess)
    error = cudaEventElapsedTime(&endMs, state.epoch, done);
  state.events.release(start);
  state.events.release(done);
  if (error != cudaSuccess)
    return cudaFail(call, error);
  startUs = state.epochUs + 1000.0 * startMs;
  endUs = state.epochUs + 1000.0 * endMs;
  return DTRT_OK;
}

/// Records the comm span of the collective of `span` on the device's
/// timeline, once it completed.
int32_t recordDeviceSpan(const NcclSpan &span) {
  double startUs = 0.0, endUs = 0.0;
  DTRT_RETURN_IF_ERROR(readDeviceTimes(span.start, span.done, startUs, endUs));
  recordSpan(span.name, DTRT_SPAN_COMM, startUs, endUs, span.bytes,
             span.axesMask);
  return DTRT_OK;
}

/// Records a closed compute span of the compute stream, as
/// `recordDeviceSpan` a collective's.
int32_t recordComputeSpan(const DeviceSpanLog<cudaEvent_t>::Span &span) {
  double startUs = 0.0, endUs = 0.0;
  DTRT_RETURN_IF_ERROR(readDeviceTimes(span.start, span.done, startUs, endUs));
  recordSpan(span.name.c_str(), DTRT_SPAN_COMPUTE, startUs, endUs);
  return DTRT_OK;
}

/// Records the spans of every collective waited on so far and of every
/// closed compute span.
int32_t recordUnrecordedSpans() {
  std::vector<NcclSpan> spans;
  spans.swap(nccl().unrecorded);
  int32_t status = DTRT_OK;
  for (const NcclSpan &span : spans) {
    int32_t recorded = recordDeviceSpan(span);
    if (status == DTRT_OK)
      status = recorded;
  }
  int32_t compute = nccl().computeSpans.drain(recordComputeSpan);
  return status == DTRT_OK ? compute : status;
}

/// An event from the pool recorded on the compute stream now.
int32_t recordComputeEvent(cudaEvent_t &event) {
  NcclState &state = nccl();
  DTRT_RETURN_IF_ERROR(state.events.acquire(event, createTimingEvent));
  cudaError_t error = cudaEventRecord(event, state.computeStream);
  if (error != cudaSuccess) {
    state.events.release(event);
    return cudaFail("cudaEventRecord", error);
  }
  return DTRT_OK;
}

/// dtrt_span_begin of a compute span: an event on the compute stream where
/// the work enqueued after it begins.
int32_t beginComputeSpan(const char *name) {
  cudaEvent_t start = nullptr;
  DTRT_RETURN_IF_ERROR(recordComputeEvent(start));
  nccl().computeSpans.open(name, start);
  return DTRT_OK;
}

/// dtrt_span_end of a compute span: an event where the work enqueued so far
/// ends; the span is recorded when the trace is written.
int32_t endComputeSpan() {
  cudaEvent_t done = nullptr;
  DTRT_RETURN_IF_ERROR(recordComputeEvent(done));
  if (!nccl().computeSpans.close(done)) {
    nccl().events.release(done);
    return fail(DTRT_ERR_STATE, "dtrt_span_end: no open compute span");
  }
  return DTRT_OK;
}

const DeviceSpanTimer computeSpanTimer{beginComputeSpan, endComputeSpan};

void flushSpansForTrace() {
  if (nccl().initialised)
    recordUnrecordedSpans();
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
/// `enqueue(group, stream)` issue the NCCL calls between two timing events,
/// then either waits for them (`request` null) or stores a new request.
template <typename Enqueue>
int32_t runCollective(const char *api, const char *spanName, uint64_t axesMask,
                      int64_t bytes, int64_t *request, Enqueue enqueue) {
  DTRT_RETURN_IF_ERROR(requireNccl(api));
  NcclState &state = nccl();
  const NcclGroup *group = nullptr;
  DTRT_RETURN_IF_ERROR(getGroup(api, axesMask, group));
  DTRT_CUDA_CHECK(cudaEventRecord, state.computeReady, state.computeStream);
  DTRT_CUDA_CHECK(cudaStreamWaitEvent, state.commStream, state.computeReady, 0);
  NcclSpan span;
  span.name = spanName;
  span.bytes = bytes;
  span.axesMask = axesMask;
  DTRT_RETURN_IF_ERROR(state.events.acquire(span.start, createTimingEvent));
  int32_t status = state.events.acquire(span.done, createTimingEvent);
  if (status != DTRT_OK) {
    state.events.release(span.start);
    return status;
  }
  cudaError_t error = cudaEventRecord(span.start, state.commStream);
  if (error == cudaSuccess) {
    status = enqueue(*group, state.commStream);
    if (status == DTRT_OK)
      error = cudaEventRecord(span.done, state.commStream);
  }
  if (error != cudaSuccess || status != DTRT_OK) {
    state.events.release(span.start);
    state.events.release(span.done);
    return status != DTRT_OK ? status : cudaFail("cudaEventRecord", error);
  }
  if (!request)
    return recordDeviceSpan(span);
  *request = state.requests.add(span);
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
  // The device (node-local rank mod device count) and compute stream are
  // the CUDA part's; the CUDA runtime then shares its primary context.
  DTRT_RETURN_IF_ERROR(dtrt_cuda_init());
  int32_t device = 0;
  void *computeStream = nullptr;
  DTRT_RETURN_IF_ERROR(dtrt_cuda_device(&device));
  DTRT_RETURN_IF_ERROR(dtrt_cuda_compute_stream(&computeStream));
  state.device = device;
  state.computeStream = static_cast<cudaStream_t>(computeStream);
  DTRT_CUDA_CHECK(cudaSetDevice, state.device);
  DTRT_CUDA_CHECK(cudaStreamCreateWithFlags, &state.commStream,
                  cudaStreamNonBlocking);
  DTRT_CUDA_CHECK(cudaEventCreateWithFlags, &state.computeReady,
                  cudaEventDisableTiming);
  DTRT_CUDA_CHECK(cudaEventCreate, &state.epoch);
  DTRT_CUDA_CHECK(cudaEventRecord, state.epoch, state.commStream);
  DTRT_CUDA_CHECK(cudaEventSynchronize, state.epoch);
  state.epochUs = nowUs();
  state.initialised = true;
  setPendingSpanFlusher(flushSpansForTrace);
  setDeviceSpanTimer(&computeSpanTimer);
  // Every group now, in the same mask order on every rank: the first
  // collective of the step then does not pay for it.
  const Runtime &rt = runtime();
  if (rt.shape.size() <= CommGroups::kEagerMaxAxes) {
    const NcclGroup *group = nullptr;
    for (uint64_t mask = 0; mask < (uint64_t(1) << rt.shape.size()); ++mask)
      DTRT_RETURN_IF_ERROR(getGroup("dtrt_nccl_init", mask, group));
  }
  return DTRT_OK;
}

int32_t dtrt_nccl_finalize(void) {
  DTRT_RETURN_IF_ERROR(requireNccl("dtrt_nccl_finalize"));
  NcclState &state = nccl();
  DTRT_CUDA_CHECK(cudaStreamSynchronize, state.commStream);
  for (NcclSpan &span : state.requests.takeAll())
    state.unrecorded.push_back(span);
  DTRT_CUDA_CHECK(cudaStreamSynchronize, state.computeStream);
  int32_t recorded = recordUnrecordedSpans();
  state.computeSpans.abandonOpen(
      [&](cudaEvent_t e) { state.events.release(e); });
  state.initialised = false;
  setPendingSpanFlusher(nullptr);
  setDeviceSpanTimer(nullptr);
  DTRT_RETURN_IF_ERROR(recorded);
  for (auto &entry : state.groups)
    DTRT_NCCL_CHECK(ncclCommDestroy, entry.second.comm);
  state.groups.clear();
  DTRT_RETURN_IF_ERROR(state.events.drain(destroyEvent));
  DTRT_CUDA_CHECK(cudaEventDestroy, state.epoch);
  DTRT_CUDA_CHECK(cudaEventDestroy, state.computeReady);
  DTRT_CUDA_CHECK(cudaStreamDestroy, state.commStream);
  state.commStream = nullptr;
  state.computeReady = nullptr;
  state.epoch = nullptr;
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

} // extern "C"

namespace {
/// Grouped ncclSend/ncclRecv of block `peer` of `in` to and from every peer
/// (into block `peer` of `out`); asynchronous when `request` is given.
int32_t allToAll(const char *api, const void *in, void *out,
                 int64_t count_per_rank, int32_t dtype, uint64_t axes_mask,
                 int64_t *request) {
  DTRT_RETURN_IF_ERROR(checkCount(api, count_per_rank, in && out));
  ncclDataType_t type;
  int64_t elements = count_per_rank;
  DTRT_RETURN_IF_ERROR(toNcclType(api, dtype, false, elements, type));
  return runCollective(
      api, "nccl_all_to_all", axes_mask, elements * dtrt_group_size(axes_mask),
      request, [&](const NcclGroup &group, cudaStream_t stream) {
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

/// ncclBroadcast of `buf` in place from group rank `root`; asynchronous
/// when `request` is given.
int32_t broadcast(const char *api, void *buf, int64_t count, int32_t dtype,
                  int32_t root, uint64_t axesMask, int64_t *request) {
  DTRT_RETURN_IF_ERROR(checkCount(api, count, buf));
  ncclDataType_t type;
  int64_t elements = count;
  DTRT_RETURN_IF_ERROR(toNcclType(api, dtype, false, elements, type));
  int32_t size = dtrt_group_size(axesMask);
  if (root < 0 || root >= size)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                std::string(api) + ": root " + std::to_string(root) +
                    " is outside a group of " + std::to_string(size));
  return runCollective(api, "nccl_broadcast", axesMask, elements, request,
                       [&](const NcclGroup &group, cudaStream_t stream) {
                         DTRT_NCCL_CHECK(ncclBroadcast, buf, buf, elements,
                                         type, root, group.comm, stream);
                         return int32_t(DTRT_OK);
                       });
}
} // namespace

extern "C" {

int32_t dtrt_nccl_all_to_all(const void *in, void *out, int64_t count_per_rank,
                             int32_t dtype, uint64_t axes_mask) {
  return allToAll("dtrt_nccl_all_to_all", in, out, count_per_rank, dtype,
                  axes_mask, nullptr);
}

int32_t dtrt_nccl_all_to_all_start(const void *in, void *out,
                                   int64_t count_per_rank, int32_t dtype,
                                   uint64_t axes_mask, int64_t *request) {
  if (!request)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_nccl_all_to_all_start: request is null");
  return allToAll("dtrt_nccl_all_to_all_start", in, out, count_per_rank,
                  dtype, axes_mask, request);
}

int32_t dtrt_nccl_broadcast(void *buf, int64_t count, int32_t dtype,
                            int32_t root_group_rank, uint64_t axes_mask) {
  return broadcast("dtrt_nccl_broadcast", buf, count, dtype, root_group_rank,
                   axes_mask, nullptr);
}

int32_t dtrt_nccl_broadcast_start(void *buf, int64_t count, int32_t dtype,
                                  int32_t root_group_rank, uint64_t axes_mask,
                                  int64_t *request) {
  if (!request)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_nccl_broadcast_start: request is null");
  return broadcast("dtrt_nccl_broadcast_start", buf, count, dtype,
                   root_group_rank, axes_mask, request);
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
  std::optional<NcclSpan> pending = state.requests.take(request);
  if (!pending)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_nccl_wait: unknown or completed request " +
                    std::to_string(request));
  // The span is recorded at the next synchronisation: the host must not
  // block here.
  state.unrecorded.push_back(*pending);
  DTRT_CUDA_CHECK(cudaStreamWaitEvent, state.computeStream, pending->done, 0);
  return DTRT_OK;
}

int32_t dtrt_nccl_synchronize(void) {
  DTRT_RETURN_IF_ERROR(requireNccl("dtrt_nccl_synchronize"));
  DTRT_CUDA_CHECK(cudaStreamSynchronize, nccl().commStream);
  return recordUnrecordedSpans();
}

} // extern "C"

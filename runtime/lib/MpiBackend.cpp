//===- MpiBackend.cpp - Collectives on host buffers over MPI --------------===//
//
// Each collective validates its arguments, looks up the axis-group
// communicator and calls the blocking MPI collective (synchronous form) or
// the non-blocking one (`_start` form, completed by dtrt_wait).
//
//===----------------------------------------------------------------------===//

#include "CommGroups.h"
#include "DType.h"
#include "Error.h"
#include "Requests.h"
#include "Runtime.h"
#include "Tracing.h"

#include "dtrt/dtrt.h"

#include <climits>
#include <cstring>
#include <string>
#include <vector>

using namespace dtrt;

namespace {
/// What every collective needs once its arguments are checked.
struct Call {
  const char *api;
  const CommGroup *group = nullptr;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  size_t elementSize = 0;
  /// The per-rank element count as MPI's int.
  int count = 0;
};

/// Checks the arguments common to every collective and fills `call`.
int32_t prepare(Call &call, int64_t count, int32_t dtype, uint64_t axesMask,
                bool hasBuffers) {
  DTRT_RETURN_IF_ERROR(requireInit(call.api));
  if (!isValidDType(dtype))
    return fail(DTRT_ERR_INVALID_ARGUMENT, std::string(call.api) +
                                               ": unknown dtype " +
                                               std::to_string(dtype));
  if (count < 0 || count > INT_MAX)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                std::string(call.api) + ": count " + std::to_string(count) +
                    " is outside [0, " + std::to_string(INT_MAX) + "]");
  if (count > 0 && !hasBuffers)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                std::string(call.api) + ": null buffer");
  DTRT_RETURN_IF_ERROR(runtime().groups.get(call.api, axesMask, call.group));
  call.type = dtypeToMpi(dtype);
  call.elementSize = dtypeSize(dtype);
  call.count = static_cast<int>(count);
  return DTRT_OK;
}

int32_t checkRequest(const char *api, int64_t *request) {
  if (!request)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                std::string(api) + ": request is null");
  return DTRT_OK;
}

int64_t bytesOf(const Call &call, int64_t blocks = 1) {
  return static_cast<int64_t>(call.elementSize) * call.count * blocks;
}

/// Starts the span of an asynchronous collective in `pending`.
void beginAsync(PendingRequest &pending, const char *name, int64_t bytes,
                uint64_t axesMask) {
  pending.name = name;
  pending.startUs = nowUs();
  pending.bytes = bytes;
  pending.axesMask = axesMask;
}

/// Arranges for dtrt_wait to divide `count` elements of `out` by the group
/// size when `op` is an average.
void finishAverageLater(PendingRequest &pending, const Call &call, void *out,
                        int64_t count, int32_t dtype, int32_t op) {
  if (op != DTRT_AVG)
    return;
  pending.avgOut = out;
  pending.avgCount = count;
  pending.dtype = dtype;
  pending.avgDivisor = call.group->size;
}

/// The send buffer of an all_gather: MPI_IN_PLACE when `in` already is this
/// rank's block of `out`.
const void *gatherSource(const Call &call, const void *in, void *out) {
  const char *ownBlock =
      static_cast<const char *>(out) + bytesOf(call) * call.group->rank;
  return in == ownBlock && call.count > 0 ? MPI_IN_PLACE : in;
}
} // namespace

extern "C" {

int32_t dtrt_all_reduce(const void *in, void *out, int64_t count, int32_t dtype,
                        int32_t op, uint64_t axes_mask) {
  Call call{"dtrt_all_reduce"};
  DTRT_RETURN_IF_ERROR(prepare(call, count, dtype, axes_mask, in && out));
  DTRT_RETURN_IF_ERROR(checkReduceOp(call.api, dtype, op));
  CommSpan span("all_reduce", bytesOf(call), axes_mask);
  DTRT_MPI_CHECK(MPI_Allreduce, in == out ? MPI_IN_PLACE : in, out, call.count,
                 call.type, reduceOpToMpi(dtype, op), call.group->comm);
  if (op == DTRT_AVG)
    divideInPlace(out, count, dtype, call.group->size);
  return DTRT_OK;
}

int32_t dtrt_all_gather(const void *in, void *out, int64_t count_per_rank,
                        int32_t dtype, uint64_t axes_mask) {
  Call call{"dtrt_all_gather"};
  DTRT_RETURN_IF_ERROR(
      prepare(call, count_per_rank, dtype, axes_mask, in && out));
  CommSpan span("all_gather", bytesOf(call, call.group->size), axes_mask);
  DTRT_MPI_CHECK(MPI_Allgather, gatherSource(call, in, out), call.count,
                 call.type, out, call.count, call.type, call.group->comm);
  return DTRT_OK;
}

int32_t dtrt_reduce_scatter(const void *in, void *out, int64_t count_per_rank,
                            int32_t dtype, int32_t op, uint64_t axes_mask) {
  Call call{"dtrt_reduce_scatter"};
  DTRT_RETURN_IF_ERROR(
      prepare(call, count_per_rank, dtype, axes_mask, in && out));
  DTRT_RETURN_IF_ERROR(checkReduceOp(call.api, dtype, op));
  CommSpan span("reduce_scatter", bytesOf(call, call.group->size), axes_mask);
  DTRT_MPI_CHECK(MPI_Reduce_scatter_block, in, out, call.count, call.type,
                 reduceOpToMpi(dtype, op), call.group->comm);
  if (op == DTRT_AVG)
    divideInPlace(out, count_per_rank, dtype, call.group->size);
  return DTRT_OK;
}

int32_t dtrt_all_to_all(const void *in, void *out, int64_t count_per_rank,
                        int32_t dtype, uint64_t axes_mask) {
  Call call{"dtrt_all_to_all"};
  DTRT_RETURN_IF_ERROR(
      prepare(call, count_per_rank, dtype, axes_mask, in && out));
  int64_t bytes = bytesOf(call, call.group->size);
  CommSpan span("all_to_all", bytes, axes_mask);
  std::vector<char> copy;
  if (in == out && bytes > 0) {
    copy.assign(static_cast<const char *>(in),
                static_cast<const char *>(in) + bytes);
    in = copy.data();
  }
  DTRT_MPI_CHECK(MPI_Alltoall, in, call.count, call.type, out, call.count,
                 call.type, call.group->comm);
  return DTRT_OK;
}

int32_t dtrt_broadcast(void *buf, int64_t count, int32_t dtype,
                       int32_t root_group_rank, uint64_t axes_mask) {
  Call call{"dtrt_broadcast"};
  DTRT_RETURN_IF_ERROR(prepare(call, count, dtype, axes_mask, buf));
  if (root_group_rank < 0 || root_group_rank >= call.group->size)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_broadcast: root " + std::to_string(root_group_rank) +
                    " is outside a group of " +
                    std::to_string(call.group->size));
  CommSpan span("broadcast", bytesOf(call), axes_mask);
  DTRT_MPI_CHECK(MPI_Bcast, buf, call.count, call.type, root_group_rank,
                 call.group->comm);
  return DTRT_OK;
}

int32_t dtrt_all_reduce_start(const void *in, void *out, int64_t count,
                              int32_t dtype, int32_t op, uint64_t axes_mask,
                              int64_t *request) {
  Call call{"dtrt_all_reduce_start"};
  DTRT_RETURN_IF_ERROR(checkRequest(call.api, request));
  DTRT_RETURN_IF_ERROR(prepare(call, count, dtype, axes_mask, in && out));
  DTRT_RETURN_IF_ERROR(checkReduceOp(call.api, dtype, op));
  progressPending();
  PendingRequest pending;
  beginAsync(pending, "all_reduce", bytesOf(call), axes_mask);
  // Reduced in place in `out`, so that `in` may be released now.
  if (in != out && call.count > 0)
    std::memcpy(out, in, bytesOf(call));
  DTRT_MPI_CHECK(MPI_Iallreduce, MPI_IN_PLACE, out, call.count, call.type,
                 reduceOpToMpi(dtype, op), call.group->comm, &pending.request);
  finishAverageLater(pending, call, out, count, dtype, op);
  *request = addRequest(std::move(pending));
  return DTRT_OK;
}

int32_t dtrt_all_gather_start(const void *in, void *out, int64_t count_per_rank,
                              int32_t dtype, uint64_t axes_mask,
                              int64_t *request) {
  Call call{"dtrt_all_gather_start"};
  DTRT_RETURN_IF_ERROR(checkRequest(call.api, request));
  DTRT_RETURN_IF_ERROR(
      prepare(call, count_per_rank, dtype, axes_mask, in && out));
  progressPending();
  PendingRequest pending;
  beginAsync(pending, "all_gather", bytesOf(call, call.group->size), axes_mask);
  // Gathered in place from this rank's block of `out`, so that `in` may be
  // released now.
  char *ownBlock = static_cast<char *>(out) + bytesOf(call) * call.group->rank;
  if (in != ownBlock && call.count > 0)
    std::memcpy(ownBlock, in, bytesOf(call));
  DTRT_MPI_CHECK(MPI_Iallgather, call.count > 0 ? MPI_IN_PLACE : in, call.count,
                 call.type, out, call.count, call.type, call.group->comm,
                 &pending.request);
  *request = addRequest(std::move(pending));
  return DTRT_OK;
}

int32_t dtrt_reduce_scatter_start(const void *in, void *out,
                                  int64_t count_per_rank, int32_t dtype,
                                  int32_t op, uint64_t axes_mask,
                                  int64_t *request) {
  Call call{"dtrt_reduce_scatter_start"};
  DTRT_RETURN_IF_ERROR(checkRequest(call.api, request));
  DTRT_RETURN_IF_ERROR(
      prepare(call, count_per_rank, dtype, axes_mask, in && out));
  DTRT_RETURN_IF_ERROR(checkReduceOp(call.api, dtype, op));
  progressPending();
  PendingRequest pending;
  int64_t bytes = bytesOf(call, call.group->size);
  beginAsync(pending, "reduce_scatter", bytes, axes_mask);
  // A copy of the input, so that `in` may be released now.
  pending.scratch.assign(static_cast<const char *>(in),
                         static_cast<const char *>(in) + bytes);
  DTRT_MPI_CHECK(MPI_Ireduce_scatter_block, pending.scratch.data(), out,
                 call.count, call.type, reduceOpToMpi(dtype, op),
                 call.group->comm, &pending.request);
  finishAverageLater(pending, call, out, count_per_rank, dtype, op);
  *request = addRequest(std::move(pending));
  return DTRT_OK;
}

int32_t dtrt_all_to_all_start(const void *in, void *out, int64_t count_per_rank,
                              int32_t dtype, uint64_t axes_mask,
                              int64_t *request) {
  Call call{"dtrt_all_to_all_start"};
  DTRT_RETURN_IF_ERROR(checkRequest(call.api, request));
  DTRT_RETURN_IF_ERROR(
      prepare(call, count_per_rank, dtype, axes_mask, in && out));
  int64_t bytes = bytesOf(call, call.group->size);
  progressPending();
  PendingRequest pending;
  beginAsync(pending, "all_to_all", bytes, axes_mask);
  // A copy of the input (it may be `out`, and the caller may release it
  // now); it moves with `pending` (a vector keeps its heap buffer).
  if (bytes > 0) {
    pending.scratch.assign(static_cast<const char *>(in),
                           static_cast<const char *>(in) + bytes);
    in = pending.scratch.data();
  }
  DTRT_MPI_CHECK(MPI_Ialltoall, in, call.count, call.type, out, call.count,
                 call.type, call.group->comm, &pending.request);
  *request = addRequest(std::move(pending));
  return DTRT_OK;
}

int32_t dtrt_broadcast_start(void *buf, int64_t count, int32_t dtype,
                             int32_t root_group_rank, uint64_t axes_mask,
                             int64_t *request) {
  Call call{"dtrt_broadcast_start"};
  DTRT_RETURN_IF_ERROR(checkRequest(call.api, request));
  DTRT_RETURN_IF_ERROR(prepare(call, count, dtype, axes_mask, buf));
  if (root_group_rank < 0 || root_group_rank >= call.group->size)
    return fail(
        DTRT_ERR_INVALID_ARGUMENT,
        "dtrt_broadcast_start: root " + std::to_string(root_group_rank) +
            " is outside a group of " + std::to_string(call.group->size));
  progressPending();
  PendingRequest pending;
  beginAsync(pending, "broadcast", bytesOf(call), axes_mask);
  DTRT_MPI_CHECK(MPI_Ibcast, buf, call.count, call.type, root_group_rank,
                 call.group->comm, &pending.request);
  *request = addRequest(std::move(pending));
  return DTRT_OK;
}

} // extern "C"

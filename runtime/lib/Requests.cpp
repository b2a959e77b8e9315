//===- Requests.cpp - Handles of asynchronous collectives -----------------===//

#include "Requests.h"

#include "DType.h"
#include "Error.h"
#include "Runtime.h"
#include "Tracing.h"

#include "dtrt/dtrt.h"

#include <algorithm>
#include <string>
#include <unordered_map>

using namespace dtrt;

namespace {
struct RequestTable {
  int64_t nextHandle = 1;
  std::unordered_map<int64_t, PendingRequest> pending;
};

RequestTable &table() {
  static RequestTable state;
  return state;
}

/// Waits for `request`, finishes an average and records its span.
int32_t complete(PendingRequest &request) {
  DTRT_MPI_CHECK(MPI_Wait, &request.request, MPI_STATUS_IGNORE);
  if (request.avgOut)
    divideInPlace(request.avgOut, request.avgCount, request.dtype,
                  request.avgDivisor);
  recordSpan(request.name, DTRT_SPAN_COMM, request.startUs, nowUs(),
             request.bytes, request.axesMask);
  return DTRT_OK;
}
} // namespace

int64_t dtrt::addRequest(PendingRequest &&request) {
  RequestTable &state = table();
  int64_t handle = state.nextHandle++;
  state.pending.emplace(handle, std::move(request));
  return handle;
}

int32_t dtrt::completeAllRequests(int64_t &pending) {
  RequestTable &state = table();
  pending = static_cast<int64_t>(state.pending.size());
  int32_t status = DTRT_OK;
  // Handles grow with start order, which is the order every rank started
  // them in; completing in that order keeps the ranks in step.
  std::vector<int64_t> handles;
  for (const auto &entry : state.pending)
    handles.push_back(entry.first);
  std::sort(handles.begin(), handles.end());
  for (int64_t handle : handles) {
    int32_t result = complete(state.pending.at(handle));
    if (status == DTRT_OK)
      status = result;
  }
  state.pending.clear();
  return status;
}

extern "C" {

int32_t dtrt_wait(int64_t request) {
  DTRT_RETURN_IF_ERROR(requireInit("dtrt_wait"));
  RequestTable &state = table();
  auto it = state.pending.find(request);
  if (it == state.pending.end())
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_wait: unknown or completed request " +
                    std::to_string(request));
  int32_t status = complete(it->second);
  state.pending.erase(it);
  return status;
}

} // extern "C"

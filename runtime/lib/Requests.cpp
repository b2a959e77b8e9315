//===- Requests.cpp - Handles of asynchronous collectives -----------------===//
//
// The request table and its progress engines. With the `thread` engine the
// progress thread owns every MPI_Request once it is in the table (MPI
// forbids testing one request from two threads): it tests them, about every
// 20 µs while some are pending, and records the completion time; dtrt_wait
// only waits for that mark. The other engines test or wait on the calling
// thread.
//
//===----------------------------------------------------------------------===//

#include "Requests.h"

#include "DType.h"
#include "Error.h"
#include "Runtime.h"
#include "Tracing.h"

#include "dtrt/dtrt.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>

using namespace dtrt;

namespace {
struct RequestTable {
  /// Guards everything below; the progress thread holds it while testing.
  std::mutex mutex;
  /// Signalled when a request completes (dtrt_wait waits on it).
  std::condition_variable completed;
  /// Signalled when a request is added or the thread must stop.
  std::condition_variable work;
  int64_t nextHandle = 1;
  /// Ordered by handle, i.e. by start order (the same on every rank).
  std::map<int64_t, PendingRequest> pending;
  ProgressMode mode = ProgressMode::None;
  std::thread thread;
  bool stop = false;

  /// A process that exits without dtrt_finalize (a failing rank calls
  /// exit) still has the thread: stop it, since destroying a joinable
  /// std::thread terminates the process.
  ~RequestTable() {
    if (!thread.joinable())
      return;
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    work.notify_all();
    thread.join();
  }
};

RequestTable &table() {
  static RequestTable state;
  return state;
}

/// Tests `r` once; marks it done (with the time or the error) when MPI says
/// so. Returns true if it is done.
bool testOnce(PendingRequest &r) {
  if (r.done)
    return true;
  int flag = 0;
  int rc = MPI_Test(&r.request, &flag, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) {
    r.mpiError = rc;
    r.done = true;
  } else if (flag) {
    r.completedUs = nowUs();
    r.done = true;
  }
  return r.done;
}

/// The progress thread: tests the pending requests until told to stop.
void progressLoop() {
  RequestTable &state = table();
  std::unique_lock<std::mutex> lock(state.mutex);
  while (!state.stop) {
    bool undone = false, finished = false;
    for (auto &entry : state.pending) {
      bool wasDone = entry.second.done;
      bool isDone = testOnce(entry.second);
      finished |= isDone && !wasDone;
      undone |= !isDone;
    }
    if (finished)
      state.completed.notify_all();
    if (undone) {
      // Short naps keep the thread from taking a core from the compute.
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::microseconds(20));
      lock.lock();
      continue;
    }
    state.work.wait(lock, [&] {
      if (state.stop)
        return true;
      for (auto &entry : state.pending)
        if (!entry.second.done)
          return true;
      return false;
    });
  }
}

/// Waits until `r` completed (by the engine or here), finishes an average
/// and records its span. `waitStartUs` is when dtrt_wait was entered.
int32_t complete(std::unique_lock<std::mutex> &lock, PendingRequest &r,
                 double waitStartUs) {
  RequestTable &state = table();
  if (state.mode == ProgressMode::Thread) {
    state.completed.wait(lock, [&] { return r.done; });
  } else if (!r.done) {
    int rc = MPI_Wait(&r.request, MPI_STATUS_IGNORE);
    r.done = true;
    r.mpiError = rc;
    r.completedUs = nowUs();
  }
  if (r.mpiError != MPI_SUCCESS)
    return mpiFail("MPI_Wait", r.mpiError);
  if (r.avgOut)
    divideInPlace(r.avgOut, r.avgCount, r.dtype, r.avgDivisor);
  double endUs = nowUs();
  recordSpan(r.name, DTRT_SPAN_COMM, r.startUs,
             std::max(r.completedUs, r.startUs), r.bytes, r.axesMask,
             endUs - waitStartUs);
  return DTRT_OK;
}
} // namespace

ProgressMode dtrt::requestedProgressMode(bool &invalid) {
  invalid = false;
  const char *value = std::getenv("DTRT_PROGRESS");
  if (!value || !*value || !std::strcmp(value, "thread"))
    return ProgressMode::Thread;
  if (!std::strcmp(value, "test"))
    return ProgressMode::Test;
  if (!std::strcmp(value, "none"))
    return ProgressMode::None;
  invalid = true;
  return ProgressMode::Thread;
}

int32_t dtrt::startProgress(ProgressMode mode) {
  RequestTable &state = table();
  state.mode = mode;
  state.stop = false;
  if (mode == ProgressMode::Thread && !state.thread.joinable())
    state.thread = std::thread(progressLoop);
  return DTRT_OK;
}

ProgressMode dtrt::progressMode() { return table().mode; }

void dtrt::progressPending() {
  RequestTable &state = table();
  if (state.mode != ProgressMode::Test)
    return;
  std::lock_guard<std::mutex> lock(state.mutex);
  for (auto &entry : state.pending)
    testOnce(entry.second);
}

int64_t dtrt::addRequest(PendingRequest &&request) {
  RequestTable &state = table();
  int64_t handle;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    handle = state.nextHandle++;
    state.pending.emplace(handle, std::move(request));
  }
  state.work.notify_one();
  return handle;
}

int32_t dtrt::completeAllRequests(int64_t &pending) {
  RequestTable &state = table();
  int32_t status = DTRT_OK;
  {
    std::unique_lock<std::mutex> lock(state.mutex);
    pending = static_cast<int64_t>(state.pending.size());
    // In start order, which every rank shares: the ranks stay in step.
    for (auto &entry : state.pending) {
      int32_t result = complete(lock, entry.second, nowUs());
      if (status == DTRT_OK)
        status = result;
    }
    state.pending.clear();
    state.stop = true;
  }
  state.work.notify_all();
  if (state.thread.joinable())
    state.thread.join();
  state.mode = ProgressMode::None;
  return status;
}

extern "C" {

int32_t dtrt_wait(int64_t request) {
  DTRT_RETURN_IF_ERROR(requireInit("dtrt_wait"));
  double waitStartUs = nowUs();
  RequestTable &state = table();
  std::unique_lock<std::mutex> lock(state.mutex);
  auto it = state.pending.find(request);
  if (it == state.pending.end())
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_wait: unknown or completed request " +
                    std::to_string(request));
  int32_t status = complete(lock, it->second, waitStartUs);
  state.pending.erase(it);
  return status;
}

int32_t dtrt_progress(void) {
  DTRT_RETURN_IF_ERROR(requireInit("dtrt_progress"));
  progressPending();
  return DTRT_OK;
}

int32_t dtrt_progress_mode(void) {
  return runtime().initialised ? static_cast<int32_t>(table().mode) : -1;
}

} // extern "C"

//===- Tracing.cpp - Per-rank timing spans and the trace writer -----------===//

#include "Tracing.h"

#include "Error.h"
#include "Requests.h"
#include "Runtime.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace dtrt;

namespace {
struct Span {
  std::string name;
  int32_t kind;
  double startUs;
  double durUs;
  int64_t bytes;
  uint64_t axesMask;
  double blockedUs;
};

struct OpenSpan {
  std::string name;
  int32_t kind;
  double startUs;
  /// Timed by the device span timer, which records it.
  bool onDevice = false;
};

struct Trace {
  bool enabled = true;
  std::vector<Span> spans;
  std::vector<OpenSpan> open;
};

Trace &trace() {
  static Trace state;
  return state;
}

void (*pendingSpanFlusher)() = nullptr;
const dtrt::DeviceSpanTimer *deviceSpanTimer = nullptr;

void appendEscaped(std::string &out, const std::string &text) {
  for (unsigned char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char code[8];
        std::snprintf(code, sizeof(code), "\\u%04x", c);
        out += code;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
}

/// The names of the axes in `mask`, in axis order, as a JSON array.
std::string axisNamesJson(uint64_t mask) {
  const std::vector<std::string> &names = runtime().axisNames;
  std::string out = "[";
  for (unsigned axis = 0; axis < 64; ++axis) {
    if (!(mask & (uint64_t(1) << axis)))
      continue;
    if (out.size() > 1)
      out += ",";
    out += "\"";
    appendEscaped(out, axis < names.size() ? names[axis]
                                           : std::to_string(axis));
    out += "\"";
  }
  return out + "]";
}

/// Returns this rank's events as JSON, each preceded by ",\n".
std::string serializeSpans(int32_t rank) {
  std::string out;
  char buffer[160];
  const char *threads[] = {"compute", "comm"};
  for (int tid : {DTRT_SPAN_COMPUTE, DTRT_SPAN_COMM}) {
    std::snprintf(buffer, sizeof(buffer),
                  ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,"
                  "\"tid\":%d,\"args\":{\"name\":\"%s\"}}",
                  rank, tid, threads[tid]);
    out += buffer;
  }
  std::snprintf(buffer, sizeof(buffer),
                ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,"
                "\"args\":{\"name\":\"rank %d\"}}",
                rank, rank);
  out += buffer;
  for (const Span &span : trace().spans) {
    out += ",\n{\"name\":\"";
    appendEscaped(out, span.name);
    std::snprintf(buffer, sizeof(buffer),
                  "\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,"
                  "\"ts\":%.3f,\"dur\":%.3f",
                  span.kind == DTRT_SPAN_COMM ? "comm" : "compute", rank,
                  span.kind, span.startUs, span.durUs);
    out += buffer;
    if (span.bytes >= 0) {
      std::snprintf(buffer, sizeof(buffer),
                    ",\"args\":{\"bytes\":%lld,\"axes\":%llu,"
                    "\"blocked_us\":%.3f,\"axis_names\":",
                    static_cast<long long>(span.bytes),
                    static_cast<unsigned long long>(span.axesMask),
                    span.blockedUs);
      out += buffer;
      out += axisNamesJson(span.axesMask) + "}";
    }
    out += "}";
  }
  return out;
}

/// Writes the gathered events on rank 0; returns a status and sets `error`.
int32_t writeFile(const char *path, const std::string &events,
                  std::string &error) {
  std::FILE *file = std::fopen(path, "w");
  if (!file) {
    error = std::string("dtrt_trace_write: cannot open '") + path +
            "': " + std::strerror(errno);
    return DTRT_ERR_IO;
  }
  // Every event starts with ",\n"; drop the first separator.
  std::string text = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n" +
                     events.substr(events.empty() ? 0 : 2) + "\n]}\n";
  bool ok = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  ok = std::fclose(file) == 0 && ok;
  if (!ok) {
    error = std::string("dtrt_trace_write: cannot write '") + path +
            "': " + std::strerror(errno);
    return DTRT_ERR_IO;
  }
  return DTRT_OK;
}
} // namespace

void dtrt::setPendingSpanFlusher(void (*flush)()) {
  pendingSpanFlusher = flush;
}

void dtrt::setDeviceSpanTimer(const DeviceSpanTimer *timer) {
  deviceSpanTimer = timer;
}

double dtrt::nowUs() { return (MPI_Wtime() - runtime().epoch) * 1e6; }

void dtrt::recordSpan(const char *name, int32_t kind, double startUs,
                      double endUs, int64_t bytes, uint64_t axesMask,
                      double blockedUs) {
  if (trace().enabled)
    trace().spans.push_back({name, kind, startUs, endUs - startUs, bytes,
                             axesMask,
                             blockedUs < 0 ? endUs - startUs : blockedUs});
}

void dtrt::clearTrace() {
  trace().spans.clear();
  trace().open.clear();
}

CommSpan::~CommSpan() {
  recordSpan(name, DTRT_SPAN_COMM, startUs, nowUs(), bytes, axesMask);
}

extern "C" {

int32_t dtrt_span_begin(const char *name, int32_t kind) {
  DTRT_RETURN_IF_ERROR(requireInit("dtrt_span_begin"));
  if (!name)
    return fail(DTRT_ERR_INVALID_ARGUMENT, "dtrt_span_begin: name is null");
  if (kind != DTRT_SPAN_COMPUTE && kind != DTRT_SPAN_COMM)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_span_begin: unknown span kind " + std::to_string(kind));
  progressPending();
  // Only while recording: the events cost a little on every span.
  bool onDevice =
      kind == DTRT_SPAN_COMPUTE && deviceSpanTimer && trace().enabled;
  if (onDevice)
    DTRT_RETURN_IF_ERROR(deviceSpanTimer->begin(name));
  trace().open.push_back({name, kind, nowUs(), onDevice});
  return DTRT_OK;
}

int32_t dtrt_span_end(void) {
  DTRT_RETURN_IF_ERROR(requireInit("dtrt_span_end"));
  Trace &state = trace();
  if (state.open.empty())
    return fail(DTRT_ERR_STATE, "dtrt_span_end: no open span");
  progressPending();
  double endUs = nowUs();
  OpenSpan span = std::move(state.open.back());
  state.open.pop_back();
  // The timer records the span (if the backend was finalised since, its
  // events are gone with it and the span is dropped).
  if (span.onDevice)
    return deviceSpanTimer ? deviceSpanTimer->end() : DTRT_OK;
  if (state.enabled)
    state.spans.push_back({std::move(span.name), span.kind, span.startUs,
                           endUs - span.startUs, -1, 0, 0.0});
  return DTRT_OK;
}

int32_t dtrt_trace_enable(int32_t enabled) {
  trace().enabled = enabled != 0;
  return DTRT_OK;
}

int32_t dtrt_trace_clear(void) {
  trace().spans.clear();
  return DTRT_OK;
}

int32_t dtrt_trace_write(const char *path) {
  DTRT_RETURN_IF_ERROR(requireInit("dtrt_trace_write"));
  if (pendingSpanFlusher)
    pendingSpanFlusher();
  const Runtime &rt = runtime();
  std::string local = serializeSpans(rt.rank);
  int64_t localSize = static_cast<int64_t>(local.size());
  std::vector<int64_t> sizes(rt.rank == 0 ? rt.worldSize : 0);
  DTRT_MPI_CHECK(MPI_Gather, &localSize, 1, MPI_INT64_T, sizes.data(), 1,
                 MPI_INT64_T, 0, rt.world);
  // Rank 0 decides whether the gathered trace fits MPI's int counts and
  // tells the others, so that every rank takes the same path.
  std::vector<int> counts(sizes.size()), offsets(sizes.size());
  int64_t total = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    offsets[i] = static_cast<int>(std::min<int64_t>(total, INT_MAX));
    counts[i] = static_cast<int>(std::min<int64_t>(sizes[i], INT_MAX));
    total += sizes[i];
  }
  int32_t fits = total <= INT_MAX;
  DTRT_MPI_CHECK(MPI_Bcast, &fits, 1, MPI_INT32_T, 0, rt.world);
  if (!fits)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_trace_write: the gathered trace exceeds 2 GiB");
  std::string events(static_cast<size_t>(total), '\0');
  DTRT_MPI_CHECK(MPI_Gatherv, local.data(), static_cast<int>(localSize),
                 MPI_CHAR, &events[0], counts.data(), offsets.data(), MPI_CHAR,
                 0, rt.world);
  int32_t status = DTRT_OK;
  std::string error;
  if (rt.rank == 0) {
    if (!path) {
      status = DTRT_ERR_INVALID_ARGUMENT;
      error = "dtrt_trace_write: path is null";
    } else {
      status = writeFile(path, events, error);
    }
  }
  DTRT_MPI_CHECK(MPI_Bcast, &status, 1, MPI_INT32_T, 0, rt.world);
  if (status == DTRT_OK)
    return DTRT_OK;
  if (rt.rank != 0)
    error = "dtrt_trace_write: rank 0 could not write the trace";
  return fail(status, error);
}

} // extern "C"

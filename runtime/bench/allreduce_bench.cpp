//===- allreduce_bench.cpp - dtrt_all_reduce against MPI_Allreduce --------===//
//
// Usage (under mpirun): dtrt_allreduce_bench [MIN_BYTES [MAX_BYTES]]
//
// For every power-of-two message size in [MIN_BYTES, MAX_BYTES] (default
// 1 KiB .. 16 MiB) of f32 sum over the whole world, times dtrt_all_reduce
// (tracing on, as in compiled programs) and raw MPI_Allreduce on a duplicate
// of MPI_COMM_WORLD, alternating the two over REPEATS rounds. A round's time
// is the slowest rank's; the table keeps each side's best round. Bandwidth is
// the algorithm bandwidth, bytes / time.
//
//===----------------------------------------------------------------------===//

#include "dtrt/dtrt.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {
constexpr int kRepeats = 3;
/// Target length of one timed round.
constexpr double kRoundSeconds = 0.05;

void check(int32_t status, const char *what) {
  if (status != DTRT_OK) {
    std::fprintf(stderr, "%s: %s\n", what, dtrt_last_error());
    dtrt_abort(what);
  }
}

/// Runs `iters` all-reduces with `useDtrt` and returns the slowest rank's
/// seconds per call.
double timeRound(bool useDtrt, MPI_Comm comm, std::vector<float> &in,
                 std::vector<float> &out, int iters) {
  MPI_Barrier(comm);
  double start = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    if (useDtrt)
      check(dtrt_all_reduce(in.data(), out.data(),
                            static_cast<int64_t>(in.size()), DTRT_F32, DTRT_SUM,
                            1),
            "dtrt_all_reduce");
    else if (MPI_Allreduce(in.data(), out.data(), static_cast<int>(in.size()),
                           MPI_FLOAT, MPI_SUM, comm) != MPI_SUCCESS)
      dtrt_abort("MPI_Allreduce failed");
  }
  double local = (MPI_Wtime() - start) / iters, slowest = 0;
  MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
  return slowest;
}

std::string formatBytes(long long bytes) {
  char text[32];
  if (bytes >= (1 << 20))
    std::snprintf(text, sizeof(text), "%lld MiB", bytes >> 20);
  else
    std::snprintf(text, sizeof(text), "%lld KiB", bytes >> 10);
  return text;
}
} // namespace

int main(int argc, char **argv) {
  long long minBytes = argc > 1 ? std::atoll(argv[1]) : 1 << 10;
  long long maxBytes = argc > 2 ? std::atoll(argv[2]) : 16 << 20;
  MPI_Init(&argc, &argv);
  int worldSize = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int64_t shape[] = {worldSize};
  check(dtrt_init(1, shape), "dtrt_init");
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);

  if (rank == 0) {
    std::printf("all-reduce f32 sum, %d ranks, algorithm bandwidth "
                "(bytes / time), best of %d rounds\n",
                worldSize, kRepeats);
    std::printf("%10s %12s %12s %12s %12s %7s\n", "size", "dtrt_us", "mpi_us",
                "dtrt_GB/s", "mpi_GB/s", "ratio");
  }
  {
    // Connections and buffers are set up on first use; keep that out of the
    // first row.
    std::vector<float> in(minBytes / sizeof(float), 1.0f), out(in.size());
    timeRound(false, comm, in, out, 200);
    timeRound(true, comm, in, out, 200);
    check(dtrt_trace_clear(), "dtrt_trace_clear");
  }
  for (long long bytes = minBytes; bytes <= maxBytes; bytes *= 2) {
    std::vector<float> in(bytes / sizeof(float), 1.0f), out(in.size());
    // Warm up both paths and size the rounds from the slower one.
    timeRound(false, comm, in, out, 2);
    double warm = std::max(timeRound(false, comm, in, out, 2),
                           timeRound(true, comm, in, out, 2));
    int iters = static_cast<int>(
        std::clamp(kRoundSeconds / std::max(warm, 1e-9), 3.0, 5000.0));
    double bestDtrt = 1e30, bestMpi = 1e30;
    for (int round = 0; round < kRepeats; ++round) {
      bestMpi = std::min(bestMpi, timeRound(false, comm, in, out, iters));
      bestDtrt = std::min(bestDtrt, timeRound(true, comm, in, out, iters));
      check(dtrt_trace_clear(), "dtrt_trace_clear");
    }
    if (rank == 0) {
      double dtrtBw = bytes / bestDtrt / 1e9, mpiBw = bytes / bestMpi / 1e9;
      std::printf("%10s %12.1f %12.1f %12.3f %12.3f %7.3f\n",
                  formatBytes(bytes).c_str(), bestDtrt * 1e6, bestMpi * 1e6,
                  dtrtBw, mpiBw, dtrtBw / mpiBw);
      std::fflush(stdout);
    }
  }
  MPI_Comm_free(&comm);
  check(dtrt_finalize(), "dtrt_finalize");
  MPI_Finalize();
  return 0;
}

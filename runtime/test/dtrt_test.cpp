//===- dtrt_test.cpp - Checks of the dtrt runtime under mpirun ------------===//
//
// Usage (under mpirun):
//   dtrt_test collectives D0 [D1 ...]  every collective, sync and async, every
//                                      dtype and reduce op, every axes mask of
//                                      the mesh D0 x D1 x ...; prints
//                                      "collectives: PASS <n> checks".
//   dtrt_test groups D0 [D1 ...]       rank 0 prints the coordinates and, for
//                                      each axes mask, the members of every
//                                      rank's group in group-rank order.
//   dtrt_test errors                   rank 0 prints the status and message
//                                      of calls that must fail.
//   dtrt_test trace PATH               writes a trace with compute spans, and
//                                      sync and async collectives, to PATH.
//   dtrt_test abort                    rank 1 makes an invalid call while
//                                      the others enter an all_reduce; run
//                                      with DTRT_ABORT_ON_ERROR=1 the job
//                                      must end instead of hanging.
//   dtrt_test overflow N               integer sums that overflow (i8, i16,
//                                      i32, i64; 1 to 1000 elements, sync and
//                                      async all_reduce and reduce_scatter)
//                                      must wrap like two's complement; prints
//                                      "overflow: PASS <n> checks".
//   dtrt_test nccl D0 [D1 ...]         the NCCL backend (NcclChecks.cpp), in
//                                      builds with DTRT_HAS_NCCL.
//
// Expected values are computed locally from the inputs every rank is known to
// hold, so that a result is compared against an independent computation.
//
//===----------------------------------------------------------------------===//

#include "dtrt/dtrt.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#ifdef DTRT_HAS_NCCL
int runNcclChecks(const std::vector<int64_t> &shape);
#endif

namespace {

/// Aborts the job with the runtime's message when `status` is not DTRT_OK.
void check(int32_t status, const char *what) {
  if (status == DTRT_OK)
    return;
  std::string message = std::string(what) + " failed: " + dtrt_last_error();
  dtrt_abort(message.c_str());
}

std::vector<int64_t> parseShape(int argc, char **argv, int first) {
  std::vector<int64_t> shape;
  for (int i = first; i < argc; ++i)
    shape.push_back(std::atoll(argv[i]));
  return shape;
}

//===----------------------------------------------------------------------===//
// Mesh arithmetic written independently of the runtime's.
//===----------------------------------------------------------------------===//

struct Mesh {
  std::vector<int64_t> shape;
  int64_t size() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  std::vector<int64_t> coords(int64_t rank) const {
    std::vector<int64_t> c(shape.size());
    for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
      c[i] = rank % shape[i];
      rank /= shape[i];
    }
    return c;
  }
  /// The world ranks of `rank`'s group for `mask`, in group-rank order.
  std::vector<int64_t> group(int64_t rank, uint64_t mask) const {
    std::vector<int64_t> mine = coords(rank);
    // Walk the world in row-major order: the members appear in row-major
    // order of their coordinates on the masked axes.
    std::vector<int64_t> members;
    for (int64_t other = 0; other < size(); ++other) {
      std::vector<int64_t> theirs = coords(other);
      bool same = true;
      for (size_t a = 0; a < shape.size(); ++a)
        if (!(mask & (uint64_t(1) << a)) && theirs[a] != mine[a])
          same = false;
      if (same)
        members.push_back(other);
    }
    return members;
  }
};

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// The input element `i` of world rank `rank`: small integers, so that every
/// sum and average is exact in every dtype.
int64_t inputValue(int64_t rank, int64_t i) {
  return ((rank * 7 + i * 3) % 11) - 5;
}

template <typename T> struct Type;
template <> struct Type<float> {
  static constexpr int32_t code = DTRT_F32;
  static constexpr bool isFloat = true;
};
template <> struct Type<double> {
  static constexpr int32_t code = DTRT_F64;
  static constexpr bool isFloat = true;
};
template <> struct Type<int32_t> {
  static constexpr int32_t code = DTRT_I32;
  static constexpr bool isFloat = false;
};
template <> struct Type<int64_t> {
  static constexpr int32_t code = DTRT_I64;
  static constexpr bool isFloat = false;
};
template <> struct Type<int16_t> {
  static constexpr int32_t code = DTRT_I16;
  static constexpr bool isFloat = false;
};
template <> struct Type<int8_t> {
  static constexpr int32_t code = DTRT_I8;
  static constexpr bool isFloat = false;
};
/// i1, stored as one byte.
struct Bool {
  uint8_t value;
  bool operator==(const Bool &other) const { return value == other.value; }
};
template <> struct Type<Bool> {
  static constexpr int32_t code = DTRT_I1;
  static constexpr bool isFloat = false;
};

template <typename T> T makeValue(int64_t rank, int64_t i) {
  int64_t v = inputValue(rank, i);
  // Exercise the upper half of 64-bit integers.
  if (Type<T>::code == DTRT_I64)
    v += rank * (int64_t(1) << 40);
  return static_cast<T>(v);
}
template <> Bool makeValue<Bool>(int64_t rank, int64_t i) {
  return Bool{static_cast<uint8_t>((rank * 5 + i) % 3 == 0)};
}

template <typename T> T combine(T a, T b, int32_t op) {
  switch (op) {
  case DTRT_MAX:
    return a > b ? a : b;
  case DTRT_MIN:
    return a < b ? a : b;
  default:
    return static_cast<T>(a + b);
  }
}
template <> Bool combine<Bool>(Bool a, Bool b, int32_t op) {
  switch (op) {
  case DTRT_MAX:
    return Bool{static_cast<uint8_t>(a.value | b.value)};
  case DTRT_MIN:
    return Bool{static_cast<uint8_t>(a.value & b.value)};
  default:
    return Bool{static_cast<uint8_t>(a.value ^ b.value)};
  }
}

template <typename T> T divide(T value, int64_t n) {
  return static_cast<T>(value / static_cast<T>(n));
}
template <> Bool divide<Bool>(Bool value, int64_t) { return value; }

std::string show(float v) { return std::to_string(v); }
std::string show(double v) { return std::to_string(v); }
std::string show(int64_t v) { return std::to_string(v); }
std::string show(int32_t v) { return std::to_string(v); }
std::string show(int16_t v) { return std::to_string(v); }
std::string show(int8_t v) { return std::to_string(v); }
std::string show(Bool v) { return std::to_string(v.value); }

const char *opName(int32_t op) {
  static const char *names[] = {"sum", "avg", "max", "min"};
  return names[op];
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

class CollectiveChecks {
public:
  explicit CollectiveChecks(Mesh mesh)
      : mesh(std::move(mesh)), rank(dtrt_rank()) {}

  void runAll() {
    for (uint64_t mask = 0; mask < (uint64_t(1) << mesh.shape.size()); ++mask) {
      for (int64_t count : {int64_t(1), int64_t(7), int64_t(3001)}) {
        runType<float>(mask, count);
        runType<double>(mask, count);
        runType<int32_t>(mask, count);
        runType<int64_t>(mask, count);
        runType<int16_t>(mask, count);
        runType<int8_t>(mask, count);
        runType<Bool>(mask, count);
      }
      checkOverlappingRequests(mask);
    }
  }

  int64_t checks = 0;
  int64_t failures = 0;

private:
  template <typename T>
  void expectEqual(const std::vector<T> &got, const std::vector<T> &want,
                   const std::string &what) {
    ++checks;
    for (size_t i = 0; i < want.size(); ++i) {
      if (got[i] == want[i])
        continue;
      if (++failures <= 10)
        std::fprintf(stderr, "rank %d: %s: element %zu is %s, expected %s\n",
                     rank, what.c_str(), i, show(got[i]).c_str(),
                     show(want[i]).c_str());
      return;
    }
  }

  std::string label(const char *collective, int32_t dtype, int32_t op,
                    uint64_t mask, int64_t count, bool async) {
    static const char *types[] = {"f32", "f64", "i32", "i64",
                                  "i8",  "i1",  "i16"};
    std::string text =
        std::string(collective) + (async ? "_start" : "") + " " + types[dtype];
    if (op >= 0)
      text += std::string(" ") + opName(op);
    return text + " mask " + std::to_string(mask) + " count " +
           std::to_string(count);
  }

  static bool opApplies(int32_t op, bool isFloat) {
    return op != DTRT_AVG || isFloat;
  }

  template <typename T> std::vector<T> inputOf(int64_t who, int64_t count) {
    std::vector<T> values(count);
    for (int64_t i = 0; i < count; ++i)
      values[i] = makeValue<T>(who, i);
    return values;
  }

  /// The reduction over `members` of elements [offset, offset + count).
  template <typename T>
  std::vector<T> reduced(const std::vector<int64_t> &members, int64_t offset,
                         int64_t count, int32_t op) {
    std::vector<T> out(count);
    for (int64_t i = 0; i < count; ++i) {
      T acc = makeValue<T>(members[0], offset + i);
      for (size_t m = 1; m < members.size(); ++m)
        acc = combine(acc, makeValue<T>(members[m], offset + i), op);
      out[i] = op == DTRT_AVG ? divide(acc, members.size()) : acc;
    }
    return out;
  }

  /// Runs a collective synchronously, or as start + wait.
  template <typename SyncFn, typename StartFn>
  void run(bool async, const std::string &what, SyncFn sync, StartFn start) {
    if (!async) {
      check(sync(), what.c_str());
      return;
    }
    int64_t request = 0;
    check(start(&request), what.c_str());
    check(dtrt_wait(request), ("dtrt_wait after " + what).c_str());
  }

  template <typename T> void runType(uint64_t mask, int64_t count) {
    const int32_t dtype = Type<T>::code;
    std::vector<int64_t> members = mesh.group(rank, mask);
    int64_t groupSize = static_cast<int64_t>(members.size());
    int64_t groupRank = 0;
    while (members[groupRank] != rank)
      ++groupRank;
    if (dtrt_group_size(mask) != groupSize ||
        dtrt_group_rank(mask) != groupRank) {
      ++failures;
      std::fprintf(
          stderr, "rank %d: mask %llu: group %d/%d, expected %lld/%lld\n", rank,
          static_cast<unsigned long long>(mask), dtrt_group_rank(mask),
          dtrt_group_size(mask), static_cast<long long>(groupRank),
          static_cast<long long>(groupSize));
    }

    for (bool async : {false, true}) {
      // all_reduce, out of place and in place.
      for (int32_t op : {DTRT_SUM, DTRT_AVG, DTRT_MAX, DTRT_MIN}) {
        if (!opApplies(op, Type<T>::isFloat))
          continue;
        std::vector<T> want = reduced<T>(members, 0, count, op);
        std::vector<T> in = inputOf<T>(rank, count), out(count);
        std::string what = label("all_reduce", dtype, op, mask, count, async);
        run(
            async, what,
            [&] {
              return dtrt_all_reduce(in.data(), out.data(), count, dtype, op,
                                     mask);
            },
            [&](int64_t *r) {
              return dtrt_all_reduce_start(in.data(), out.data(), count, dtype,
                                           op, mask, r);
            });
        expectEqual(out, want, what);
        expectEqual(in, inputOf<T>(rank, count), what + " input kept");
        run(
            async, what + " in place",
            [&] {
              return dtrt_all_reduce(in.data(), in.data(), count, dtype, op,
                                     mask);
            },
            [&](int64_t *r) {
              return dtrt_all_reduce_start(in.data(), in.data(), count, dtype,
                                           op, mask, r);
            });
        expectEqual(in, want, what + " in place");
      }

      // reduce_scatter: block r of the reduction lands on group rank r.
      for (int32_t op : {DTRT_SUM, DTRT_AVG, DTRT_MAX, DTRT_MIN}) {
        if (!opApplies(op, Type<T>::isFloat))
          continue;
        std::vector<T> in = inputOf<T>(rank, count * groupSize), out(count);
        std::string what =
            label("reduce_scatter", dtype, op, mask, count, async);
        run(
            async, what,
            [&] {
              return dtrt_reduce_scatter(in.data(), out.data(), count, dtype,
                                         op, mask);
            },
            [&](int64_t *r) {
              return dtrt_reduce_scatter_start(in.data(), out.data(), count,
                                               dtype, op, mask, r);
            });
        expectEqual(out, reduced<T>(members, groupRank * count, count, op),
                    what);
      }

      // all_gather: block r comes from group rank r.
      std::vector<T> gathered;
      for (int64_t member : members) {
        std::vector<T> block = inputOf<T>(member, count);
        gathered.insert(gathered.end(), block.begin(), block.end());
      }
      {
        std::vector<T> in = inputOf<T>(rank, count), out(count * groupSize);
        std::string what = label("all_gather", dtype, -1, mask, count, async);
        run(
            async, what,
            [&] {
              return dtrt_all_gather(in.data(), out.data(), count, dtype, mask);
            },
            [&](int64_t *r) {
              return dtrt_all_gather_start(in.data(), out.data(), count, dtype,
                                           mask, r);
            });
        expectEqual(out, gathered, what);
        // In place: the input already sits in this rank's block.
        std::vector<T> buf(count * groupSize);
        for (int64_t i = 0; i < count; ++i)
          buf[groupRank * count + i] = in[i];
        T *own = buf.data() + groupRank * count;
        run(
            async, what + " in place",
            [&] {
              return dtrt_all_gather(own, buf.data(), count, dtype, mask);
            },
            [&](int64_t *r) {
              return dtrt_all_gather_start(own, buf.data(), count, dtype, mask,
                                           r);
            });
        expectEqual(buf, gathered, what + " in place");
      }

      // all_to_all: block i of the output is block groupRank of member i.
      {
        std::vector<T> want;
        for (int64_t member : members)
          for (int64_t k = 0; k < count; ++k)
            want.push_back(makeValue<T>(member, groupRank * count + k));
        std::vector<T> in = inputOf<T>(rank, count * groupSize),
                       out(count * groupSize);
        std::string what = label("all_to_all", dtype, -1, mask, count, async);
        run(
            async, what,
            [&] {
              return dtrt_all_to_all(in.data(), out.data(), count, dtype, mask);
            },
            [&](int64_t *r) {
              return dtrt_all_to_all_start(in.data(), out.data(), count, dtype,
                                           mask, r);
            });
        expectEqual(out, want, what);
        run(
            async, what + " in place",
            [&] {
              return dtrt_all_to_all(in.data(), in.data(), count, dtype, mask);
            },
            [&](int64_t *r) {
              return dtrt_all_to_all_start(in.data(), in.data(), count, dtype,
                                           mask, r);
            });
        expectEqual(in, want, what + " in place");
      }

      // broadcast from the last group rank.
      {
        int32_t root = static_cast<int32_t>(groupSize - 1);
        std::vector<T> buf = inputOf<T>(rank, count);
        std::string what = label("broadcast", dtype, -1, mask, count, async);
        run(
            async, what,
            [&] {
              return dtrt_broadcast(buf.data(), count, dtype, root, mask);
            },
            [&](int64_t *r) {
              return dtrt_broadcast_start(buf.data(), count, dtype, root, mask,
                                          r);
            });
        expectEqual(buf, inputOf<T>(members[root], count), what);
      }
    }
  }

  /// Several requests in flight at once (on this mask and on the world),
  /// waited on in the reverse order of their start.
  void checkOverlappingRequests(uint64_t mask) {
    const int64_t count = 513;
    uint64_t worldMask = (uint64_t(1) << mesh.shape.size()) - 1;
    std::vector<int64_t> members = mesh.group(rank, mask);
    std::vector<int64_t> world = mesh.group(rank, worldMask);
    std::vector<double> a = inputOf<double>(rank, count), aOut(count);
    std::vector<float> b = inputOf<float>(rank, count),
                       bOut(count * world.size());
    std::vector<int32_t> c = inputOf<int32_t>(rank, count), cOut(count);
    int64_t requests[3];
    check(dtrt_all_reduce_start(a.data(), aOut.data(), count, DTRT_F64,
                                DTRT_AVG, mask, &requests[0]),
          "overlapping all_reduce_start");
    check(dtrt_all_gather_start(b.data(), bOut.data(), count, DTRT_F32,
                                worldMask, &requests[1]),
          "overlapping all_gather_start");
    check(dtrt_all_reduce_start(c.data(), cOut.data(), count, DTRT_I32,
                                DTRT_MAX, mask, &requests[2]),
          "overlapping all_reduce_start");
    for (int i = 2; i >= 0; --i)
      check(dtrt_wait(requests[i]), "overlapping dtrt_wait");
    std::string what = "overlapping requests mask " + std::to_string(mask);
    expectEqual(aOut, reduced<double>(members, 0, count, DTRT_AVG), what);
    std::vector<float> gathered;
    for (int64_t member : world) {
      std::vector<float> block = inputOf<float>(member, count);
      gathered.insert(gathered.end(), block.begin(), block.end());
    }
    expectEqual(bOut, gathered, what);
    expectEqual(cOut, reduced<int32_t>(members, 0, count, DTRT_MAX), what);
  }

  Mesh mesh;
  int32_t rank;
};

int runCollectives(const std::vector<int64_t> &shape) {
  check(dtrt_init(static_cast<int32_t>(shape.size()), shape.data()),
        "dtrt_init");
  CollectiveChecks checks(Mesh{shape});
  checks.runAll();
  // Totals over the world with MPI-independent expectations already checked.
  int64_t local[2] = {checks.checks, checks.failures}, total[2];
  check(dtrt_all_reduce(local, total, 2, DTRT_I64, DTRT_SUM,
                        (uint64_t(1) << shape.size()) - 1),
        "dtrt_all_reduce of the totals");
  if (dtrt_rank() == 0)
    std::printf("collectives: %s %lld checks, %lld failures\n",
                total[1] == 0 ? "PASS" : "FAIL",
                static_cast<long long>(total[0]),
                static_cast<long long>(total[1]));
  check(dtrt_finalize(), "dtrt_finalize");
  return total[1] == 0 ? 0 : 1;
}

//===----------------------------------------------------------------------===//
// Group membership, printed for FileCheck
//===----------------------------------------------------------------------===//

int runGroups(const std::vector<int64_t> &shape) {
  check(dtrt_init(static_cast<int32_t>(shape.size()), shape.data()),
        "dtrt_init");
  int32_t axes = static_cast<int32_t>(shape.size());
  uint64_t worldMask = (uint64_t(1) << axes) - 1;
  int32_t worldSize = dtrt_world_size();
  // Per rank: its coordinates, then for each mask its group's world ranks
  // (gathered over that group, so the order is the runtime's group order).
  std::vector<int32_t> record;
  for (int32_t a = 0; a < axes; ++a)
    record.push_back(dtrt_mesh_coord(a));
  int32_t me = dtrt_rank();
  for (uint64_t mask = 1; mask <= worldMask; ++mask) {
    std::vector<int32_t> members(dtrt_group_size(mask));
    check(dtrt_all_gather(&me, members.data(), 1, DTRT_I32, mask),
          "dtrt_all_gather of ranks");
    record.insert(record.end(), members.begin(), members.end());
  }
  std::vector<int32_t> all(record.size() * worldSize);
  check(dtrt_all_gather(record.data(), all.data(),
                        static_cast<int64_t>(record.size()), DTRT_I32,
                        worldMask),
        "dtrt_all_gather of records");
  if (me == 0) {
    for (int32_t r = 0; r < worldSize; ++r) {
      const int32_t *p = all.data() + r * record.size();
      std::printf("rank %d coords", r);
      for (int32_t a = 0; a < axes; ++a)
        std::printf(" %d", *p++);
      for (uint64_t mask = 1; mask <= worldMask; ++mask) {
        int64_t size = 1;
        for (int32_t a = 0; a < axes; ++a)
          if (mask & (uint64_t(1) << a))
            size *= shape[a];
        std::printf(" | axes %llu:", static_cast<unsigned long long>(mask));
        for (int64_t i = 0; i < size; ++i)
          std::printf(" %d", *p++);
      }
      std::printf("\n");
    }
  }
  check(dtrt_finalize(), "dtrt_finalize");
  return 0;
}

//===----------------------------------------------------------------------===//
// Error paths
//===----------------------------------------------------------------------===//

/// The world rank from the launcher's environment, valid before dtrt_init.
int32_t launcherRank() {
  for (const char *name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char *value = std::getenv(name))
      return std::atoi(value);
  return 0;
}

/// The world size from the launcher's environment, valid before dtrt_init.
int64_t launcherSize() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const char *value = std::getenv(name))
      return std::atoll(value);
  return 1;
}

void report(int32_t status, const char *call) {
  if (launcherRank() == 0)
    std::printf("%s -> status %d: %s\n", call, status,
                status == DTRT_OK ? "ok" : dtrt_last_error());
}

int runErrors() {
  float x[4] = {1, 2, 3, 4}, y[16];
  int64_t request = 0;
  report(dtrt_all_reduce(x, y, 4, DTRT_F32, DTRT_SUM, 1),
         "all_reduce before init");
  int64_t wrong[] = {3};
  report(dtrt_init(1, wrong), "init mesh [3]");
  int64_t wrong2[] = {2, 4};
  report(dtrt_init(2, wrong2), "init mesh [2, 4]");
  int64_t bad[] = {2, 0};
  report(dtrt_init(2, bad), "init mesh [2, 0]");
  report(dtrt_init(0, wrong), "init rank 0");
  int64_t right[] = {2, 2};
  report(dtrt_init(2, right), "init mesh [2, 2]");
  report(dtrt_init(2, right), "init twice");
  report(dtrt_all_reduce(x, y, 4, 42, DTRT_SUM, 1), "all_reduce dtype 42");
  report(dtrt_all_reduce(x, y, 4, DTRT_F32, 9, 1), "all_reduce op 9");
  int32_t ints[4] = {1, 2, 3, 4}, intsOut[4];
  report(dtrt_all_reduce(ints, intsOut, 4, DTRT_I32, DTRT_AVG, 1),
         "all_reduce avg i32");
  report(dtrt_reduce_scatter_start(ints, intsOut, 1, DTRT_I1, DTRT_AVG, 1,
                                   &request),
         "reduce_scatter_start avg i1");
  report(dtrt_all_gather(x, y, 4, DTRT_F32, 4), "all_gather mask 4");
  report(dtrt_all_to_all(x, y, -1, DTRT_F32, 1), "all_to_all count -1");
  report(dtrt_all_reduce(nullptr, y, 4, DTRT_F32, DTRT_SUM, 1),
         "all_reduce null input");
  report(dtrt_broadcast(x, 4, DTRT_F32, 2, 1), "broadcast root 2");
  report(dtrt_all_reduce_start(x, y, 4, DTRT_F32, DTRT_SUM, 1, nullptr),
         "all_reduce_start null request");
  report(dtrt_wait(12345), "wait 12345");
  report(dtrt_all_reduce_start(x, y, 4, DTRT_F32, DTRT_SUM, 1, &request),
         "all_reduce_start");
  report(dtrt_wait(request), "wait");
  report(dtrt_wait(request), "wait again");
  report(dtrt_span_end(), "span_end without span");
  report(dtrt_span_begin("x", 7), "span_begin kind 7");
  // The message is read after the call: its pointer changes with each error.
  int32_t coord = dtrt_mesh_coord(2);
  if (launcherRank() == 0)
    std::printf("mesh_coord 2 -> %d: %s\n", coord, dtrt_last_error());
  int32_t size = dtrt_group_size(8);
  if (launcherRank() == 0)
    std::printf("group_size mask 8 -> %d: %s\n", size, dtrt_last_error());
  // An MPI failure: group rank 1 broadcasts 16 elements to receivers that
  // expect 4, so the receivers (rank 0 among them) get a truncation error.
  float wide[16] = {0};
  report(dtrt_broadcast(wide, dtrt_group_rank(1) == 1 ? 16 : 4, DTRT_F32, 1,
                        1),
         "broadcast with mismatched counts");
  const char *threeNames[] = {"a", "b", "c"};
  report(dtrt_set_axis_names(3, threeNames), "set_axis_names 3 names");
  const char *nullName[] = {"a", nullptr};
  report(dtrt_set_axis_names(2, nullName), "set_axis_names null name");
  report(dtrt_trace_write("/nonexistent-dir/trace.json"),
         "trace_write to a missing directory");
  // A request left pending is completed, and reported, by dtrt_finalize.
  report(dtrt_all_reduce_start(x, y, 4, DTRT_F32, DTRT_SUM, 3, &request),
         "all_reduce_start never waited");
  report(dtrt_finalize(), "finalize");
  return 0;
}

int runAbort() {
  int64_t shape[] = {launcherSize()};
  check(dtrt_init(1, shape), "dtrt_init");
  float x = 1, y = 0;
  int32_t dtype = dtrt_rank() == 1 ? 42 : DTRT_F32;
  int32_t status = dtrt_all_reduce(&x, &y, 1, dtype, DTRT_SUM, 1);
  // Only reached without abort-on-error: rank 1 then stands for a rank that
  // is stuck, and the others wait for it inside the all_reduce.
  std::printf("rank %d: all_reduce returned %d\n", dtrt_rank(), status);
  std::fflush(stdout);
  if (status != DTRT_OK)
    std::this_thread::sleep_for(std::chrono::seconds(20));
  return 0;
}

//===----------------------------------------------------------------------===//
// Trace
//===----------------------------------------------------------------------===//

/// Busy work standing for a kernel.
double compute(int64_t n) {
  double acc = 0;
  for (int64_t i = 0; i < n; ++i)
    acc += 1.0 / static_cast<double>(i + 1);
  return acc;
}

int runTrace(const char *path) {
  int64_t shape[] = {2, 2};
  check(dtrt_init(2, shape), "dtrt_init");
  // Collectives name their axes in the trace.
  const char *names[] = {"dp", "tp"};
  check(dtrt_set_axis_names(2, names), "dtrt_set_axis_names");
  std::vector<float> grads(1 << 16, 1.0f), out(1 << 16);
  volatile double sink = 0;
  for (int step = 0; step < 2; ++step) {
    check(dtrt_span_begin("forward \"layer\"", DTRT_SPAN_COMPUTE),
          "span_begin");
    sink = sink + compute(200000);
    check(dtrt_span_end(), "span_end");
    check(
        dtrt_all_reduce(grads.data(), out.data(), 1024, DTRT_F32, DTRT_SUM, 2),
        "dtrt_all_reduce");
    int64_t request = 0;
    check(dtrt_all_reduce_start(grads.data(), out.data(), 1 << 16, DTRT_F32,
                                DTRT_AVG, 1, &request),
          "dtrt_all_reduce_start");
    check(dtrt_span_begin("backward", DTRT_SPAN_COMPUTE), "span_begin");
    sink = sink + compute(200000);
    check(dtrt_span_end(), "span_end");
    check(dtrt_wait(request), "dtrt_wait");
  }
  check(dtrt_span_begin("optimizer", DTRT_SPAN_COMM), "span_begin");
  check(dtrt_span_end(), "span_end");
  check(dtrt_trace_write(path), "dtrt_trace_write");
  if (dtrt_rank() == 0)
    std::printf("trace: wrote %s\n", path);
  check(dtrt_finalize(), "dtrt_finalize");
  return 0;
}

//===----------------------------------------------------------------------===//
// Integer overflow
//===----------------------------------------------------------------------===//

template <typename T> const char *dtypeLabel() {
  return sizeof(T) == 1   ? "i8"
         : sizeof(T) == 2 ? "i16"
         : sizeof(T) == 4 ? "i32"
                          : "i64";
}

/// Element i of rank r: near the top of T's range, so that the sum of two
/// ranks already overflows.
template <typename T> T overflowValue(int64_t rank, int64_t i) {
  return static_cast<T>(std::numeric_limits<T>::max() - (rank + i) % 5);
}

/// Checks that all_reduce (sync and async) and reduce_scatter sums of
/// overflowValue over the world wrap like two's complement; returns the
/// number of failures and counts the checks.
template <typename T> int64_t checkOverflow(int64_t count, int64_t &checks) {
  using U = std::make_unsigned_t<T>;
  int64_t rank = dtrt_rank(), size = dtrt_world_size();
  int32_t code = Type<T>::code;
  std::vector<T> in(count * size), out(count * size), expected(count * size);
  for (int64_t i = 0; i < count * size; ++i) {
    in[i] = overflowValue<T>(rank, i);
    U sum = 0;
    for (int64_t r = 0; r < size; ++r)
      sum = static_cast<U>(sum + static_cast<U>(overflowValue<T>(r, i)));
    expected[i] = static_cast<T>(sum);
  }
  int64_t failures = 0;
  auto compare = [&](const char *what, int64_t n, int64_t first) {
    ++checks;
    for (int64_t i = 0; i < n; ++i)
      if (out[i] != expected[first + i]) {
        std::printf("rank %lld: %s %s count %lld: element %lld is %s, "
                    "expected %s\n",
                    static_cast<long long>(rank), what, dtypeLabel<T>(),
                    static_cast<long long>(n), static_cast<long long>(i),
                    show(out[i]).c_str(), show(expected[first + i]).c_str());
        ++failures;
        return;
      }
  };
  check(dtrt_all_reduce(in.data(), out.data(), count * size, code, DTRT_SUM,
                        1),
        "dtrt_all_reduce");
  compare("all_reduce", count * size, 0);
  int64_t request = 0;
  check(dtrt_all_reduce_start(in.data(), out.data(), count * size, code,
                              DTRT_SUM, 1, &request),
        "dtrt_all_reduce_start");
  check(dtrt_wait(request), "dtrt_wait");
  compare("all_reduce_start", count * size, 0);
  check(dtrt_reduce_scatter(in.data(), out.data(), count, code, DTRT_SUM, 1),
        "dtrt_reduce_scatter");
  compare("reduce_scatter", count, rank * count);
  return failures;
}

int runOverflow(int64_t worldSize) {
  check(dtrt_init(1, &worldSize), "dtrt_init");
  int64_t checks = 0, failures = 0;
  // Open MPI 4.1's op/avx saturated i8/i16 sums from 64 elements on.
  for (int64_t count : {1, 63, 64, 100, 1000}) {
    failures += checkOverflow<int8_t>(count, checks);
    failures += checkOverflow<int16_t>(count, checks);
    failures += checkOverflow<int32_t>(count, checks);
    failures += checkOverflow<int64_t>(count, checks);
  }
  int64_t local[2] = {checks, failures}, total[2];
  check(dtrt_all_reduce(local, total, 2, DTRT_I64, DTRT_SUM, 1),
        "dtrt_all_reduce of the totals");
  if (dtrt_rank() == 0)
    std::printf("overflow: %s %lld checks, %lld failures\n",
                total[1] == 0 ? "PASS" : "FAIL",
                static_cast<long long>(total[0]),
                static_cast<long long>(total[1]));
  check(dtrt_finalize(), "dtrt_finalize");
  return total[1] == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: dtrt_test collectives|groups|errors|abort|trace|overflow|nccl "
                 "...\n");
    return 2;
  }
  std::string mode = argv[1];
  if (mode == "collectives" && argc > 2)
    return runCollectives(parseShape(argc, argv, 2));
  if (mode == "groups" && argc > 2)
    return runGroups(parseShape(argc, argv, 2));
  if (mode == "errors")
    return runErrors();
  if (mode == "abort")
    return runAbort();
  if (mode == "overflow" && argc == 3)
    return runOverflow(std::atoll(argv[2]));
  if (mode == "trace" && argc == 3)
    return runTrace(argv[2]);
#ifdef DTRT_HAS_NCCL
  if (mode == "nccl" && argc > 2)
    return runNcclChecks(parseShape(argc, argv, 2));
#endif
  std::fprintf(stderr, "dtrt_test: bad arguments\n");
  return 2;
}

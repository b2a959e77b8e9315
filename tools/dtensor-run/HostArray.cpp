//===- HostArray.cpp - host arrays, their shards and assembly -------------===//

#include "HostArray.h"

#include "dtensor/Support/ShardingMath.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

using namespace dtensor_run;
using mlir::dtensor::ReduceOp;

HostArray::HostArray(dtrt_dtype dtype, llvm::ArrayRef<int64_t> shape)
    : dtype(dtype), shape(shape.begin(), shape.end()) {
  data.resize(numElements() * elementSize(dtype));
}

int64_t HostArray::numElements() const {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

std::string dtensor_run::formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

std::vector<int64_t> dtensor_run::stridesOf(llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

std::vector<int64_t> dtensor_run::unflatten(llvm::ArrayRef<int64_t> shape,
                                            int64_t flat) {
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

void dtensor_run::forEachRun(
    llvm::ArrayRef<int64_t> globalShape, llvm::ArrayRef<int64_t> shape,
    llvm::ArrayRef<int64_t> offsets,
    llvm::function_ref<void(int64_t, int64_t, int64_t)> fn,
    StridedIndices strided) {
  int64_t rank = static_cast<int64_t>(shape.size());
  for (int64_t s : shape)
    if (s == 0)
      return;
  if (rank == 0)
    return fn(0, 0, 1);
  auto isStrided = [&](int64_t d) {
    return d < static_cast<int64_t>(strided.size()) && !strided[d].empty();
  };
  std::vector<int64_t> gs = stridesOf(globalShape);
  // A strided last dim is not contiguous: runs of one element.
  bool lastStrided = isStrided(rank - 1);
  int64_t outer = lastStrided ? rank : rank - 1;
  int64_t runLength = lastStrided ? 1 : shape.back();
  int64_t runs = 1;
  for (int64_t d = 0; d < outer; ++d)
    runs *= shape[d];
  std::vector<int64_t> idx(rank, 0);
  for (int64_t run = 0; run < runs; ++run) {
    int64_t g = 0;
    for (int64_t d = 0; d < rank; ++d)
      g += (isStrided(d) ? strided[d][idx[d]] : idx[d] + offsets[d]) * gs[d];
    fn(g, run * runLength, runLength);
    for (int64_t d = outer - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

namespace {
/// SplitMix64's finaliser: a well-mixed 64-bit hash of `x`.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Element `flat` of random input `argIndex` as a `T`.
template <typename T>
T randomElement(uint64_t seed, uint64_t argIndex, uint64_t flat, double bound) {
  uint64_t h = mix(mix(mix(seed) ^ argIndex) ^ flat);
  if constexpr (isFloatElement<T>) {
    double unit = static_cast<double>(h >> 11) * 0x1.0p-53; // [0, 1)
    return static_cast<T>((2 * unit - 1) * bound);
  } else {
    int64_t v = static_cast<int64_t>(h % 17) - 8;
    return static_cast<T>(v);
  }
}
} // namespace

HostArray dtensor_run::randomBlock(const TensorLayout &layout,
                                   llvm::ArrayRef<int64_t> shape,
                                   llvm::ArrayRef<int64_t> offsets,
                                   uint64_t seed, uint64_t argIndex,
                                   StridedIndices strided) {
  HostArray a(layout.dtype, shape);
  double bound = 1.0;
  if (layout.shape.size() >= 2)
    bound = 1.0 / std::sqrt(static_cast<double>(layout.shape.back()));
  visitDType(layout.dtype, [&](auto tag) {
    using T = decltype(tag);
    bool isBool = layout.dtype == DTRT_I1;
    forEachRun(layout.shape, shape, offsets,
               [&](int64_t global, int64_t local, int64_t count) {
                 for (int64_t i = 0; i < count; ++i) {
                   T v = randomElement<T>(seed, argIndex, global + i, bound);
                   if (isBool)
                     v = static_cast<T>(static_cast<int8_t>(v) > 0);
                   a.set<T>(local + i, v);
                 }
               },
               strided);
  });
  return a;
}

namespace {
/// Noise for part `coord` of partial axis `axis` of element `global`.
template <typename T>
T partNoise(uint64_t seed, uint64_t argIndex, int64_t global, int64_t axis,
            int64_t coord, double bound) {
  uint64_t salt = mix(mix(0x70617274ull ^ static_cast<uint64_t>(axis)) ^
                      static_cast<uint64_t>(coord));
  return randomElement<T>(seed ^ salt, argIndex, global, bound);
}

/// Rank `c`'s part (of `k`) of `x` on one partial axis.
template <typename T>
T splitValue(T x, ReduceOp op, int64_t c, int64_t k, bool isBool,
             llvm::function_ref<T(int64_t)> noise) {
  if (op == ReduceOp::Max || op == ReduceOp::Min) {
    if (c == 0)
      return x;
    if (isBool) // or / and
      return static_cast<T>(op == ReduceOp::Min);
    T d = noise(c);
    if constexpr (isFloatElement<T>) {
      d = std::abs(d);
      return op == ReduceOp::Max ? x - d : x + d;
    } else {
      // Integers: a smaller (larger) value where it does not overflow.
      T y = x;
      if (op == ReduceOp::Max && x > std::numeric_limits<T>::min() + 8)
        y = static_cast<T>(x - (d < 0 ? -d : d));
      if (op == ReduceOp::Min && x < std::numeric_limits<T>::max() - 8)
        y = static_cast<T>(x + (d < 0 ? -d : d));
      return y;
    }
  }
  bool avg = op == ReduceOp::Avg;
  if (c != 0) {
    T d = noise(c);
    if (isBool)
      return static_cast<T>(static_cast<int8_t>(d) > 0);
    // P(sum): the noise itself; P(avg): the value plus the noise.
    return avg ? static_cast<T>(x + d) : d;
  }
  // Coordinate 0: the value less the other ranks' noise, so that the parts
  // add up to the value (sum) or average to it (avg).
  if constexpr (isFloatElement<T>) {
    double others = 0;
    for (int64_t j = 1; j < k; ++j)
      others += static_cast<double>(noise(j));
    return static_cast<T>(static_cast<double>(x) - others);
  } else {
    using U = std::make_unsigned_t<T>;
    U acc = static_cast<U>(x);
    for (int64_t j = 1; j < k; ++j) {
      T d = noise(j);
      if (isBool)
        acc ^= static_cast<U>(static_cast<int8_t>(d) > 0);
      else
        acc = static_cast<U>(acc - static_cast<U>(d));
    }
    return static_cast<T>(acc);
  }
}
} // namespace

void dtensor_run::splitPartial(HostArray &block, const TensorLayout &layout,
                               llvm::ArrayRef<int64_t> mesh,
                               llvm::ArrayRef<int64_t> coords,
                               llvm::ArrayRef<int64_t> offsets, uint64_t seed,
                               uint64_t argIndex, StridedIndices strided) {
  std::optional<ReduceOp> kind;
  bool mixed = false;
  for (const mlir::dtensor::Placement &p : layout.placements)
    if (p.isPartial()) {
      mixed |= kind && *kind != p.getReduceOp();
      kind = p.getReduceOp();
    }
  if (!kind)
    return;
  double bound = 1.0;
  if (layout.shape.size() >= 2)
    bound = 1.0 / std::sqrt(static_cast<double>(layout.shape.back()));
  bool isBool = layout.dtype == DTRT_I1;
  visitDType(layout.dtype, [&](auto tag) {
    using T = decltype(tag);
    forEachRun(layout.shape, block.shape, offsets,
               [&](int64_t global, int64_t local, int64_t count) {
                 for (int64_t i = 0; i < count; ++i) {
                   T v = block.get<T>(local + i);
                   for (auto [axis, p] : llvm::enumerate(layout.placements)) {
                     if (!p.isPartial() || mesh[axis] == 1)
                       continue;
                     int64_t c = coords[axis];
                     if (mixed) {
                       // Whole value on coordinate 0; zeros (sum) or copies
                       // elsewhere.
                       if (c != 0 && p.getReduceOp() == ReduceOp::Sum)
                         v = T(0);
                       continue;
                     }
                     int64_t g = global + i, a = axis;
                     v = splitValue<T>(v, p.getReduceOp(), c, mesh[axis],
                                       isBool, [&](int64_t j) {
                                         return partNoise<T>(seed, argIndex, g,
                                                             a, j, bound);
                                       });
                   }
                   block.set<T>(local + i, v);
                 }
               },
               strided);
  });
}

HostArray dtensor_run::randomGlobal(const TensorLayout &layout, uint64_t seed,
                                    uint64_t argIndex) {
  std::vector<int64_t> zeros(layout.shape.size(), 0);
  return randomBlock(layout, layout.shape, zeros, seed, argIndex);
}

HostArray dtensor_run::randomShard(const TensorLayout &layout,
                                   llvm::ArrayRef<int64_t> mesh, int64_t rank,
                                   uint64_t seed, uint64_t argIndex) {
  auto coords = mlir::dtensor::rankToCoords(mesh, rank);
  mlir::dtensor::LocalShard shard = mlir::dtensor::computeLocalShard(
      layout.shape, mesh, layout.placements, coords);
  HostArray a = randomBlock(layout, shard.shape, shard.offsets, seed, argIndex,
                            shard.strided);
  splitPartial(a, layout, mesh, coords, shard.offsets, seed, argIndex,
               shard.strided);
  return a;
}

HostArray dtensor_run::shardOf(const HostArray &global,
                               const TensorLayout &layout,
                               llvm::ArrayRef<int64_t> mesh, int64_t rank,
                               uint64_t seed, uint64_t argIndex) {
  auto coords = mlir::dtensor::rankToCoords(mesh, rank);
  mlir::dtensor::LocalShard shard = mlir::dtensor::computeLocalShard(
      global.shape, mesh, layout.placements, coords);
  HostArray local(global.dtype, shard.shape);
  int64_t size = elementSize(global.dtype);
  forEachRun(global.shape, shard.shape, shard.offsets,
             [&](int64_t g, int64_t l, int64_t count) {
               std::memcpy(local.data.data() + l * size,
                           global.data.data() + g * size, count * size);
             },
             shard.strided);
  splitPartial(local, layout, mesh, coords, shard.offsets, seed, argIndex,
               shard.strided);
  return local;
}

//===----------------------------------------------------------------------===//
// Assembly
//===----------------------------------------------------------------------===//

namespace {
/// The reduction of the partial axes of `layout` and the number of ranks it
/// combines; no reduction when nothing is partial.
std::optional<ReduceOp> partialReduction(const TensorLayout &layout,
                                         llvm::ArrayRef<int64_t> mesh,
                                         int64_t &partialRanks) {
  std::optional<ReduceOp> reduce;
  partialRanks = 1;
  for (auto [axis, p] : llvm::enumerate(layout.placements))
    if (p.isPartial()) {
      partialRanks *= mesh[axis];
      reduce = p.getReduceOp();
    }
  return reduce;
}

/// Combines `x` into `acc` with `op` in the element type `T` (sums of floats
/// go through `Acc`, which is double).
template <typename T, typename Acc>
void combine(Acc &acc, T x, ReduceOp op, bool isBool) {
  if constexpr (isFloatElement<T>) {
    if (op == ReduceOp::Sum || op == ReduceOp::Avg)
      acc += x;
    else if (std::isnan(acc) || std::isnan(x))
      acc = std::numeric_limits<double>::quiet_NaN();
    else
      acc = op == ReduceOp::Max ? std::max<double>(acc, x)
                                : std::min<double>(acc, x);
  } else {
    using U = std::make_unsigned_t<T>;
    T a = static_cast<T>(acc);
    if (op == ReduceOp::Sum)
      a = isBool ? static_cast<T>(a ^ x)
                 : static_cast<T>(
                       static_cast<U>(static_cast<U>(a) + static_cast<U>(x)));
    else
      a = op == ReduceOp::Max ? std::max(a, x) : std::min(a, x);
    acc = a;
  }
}

template <typename T>
HostArray assembleTyped(const TensorLayout &layout,
                        llvm::ArrayRef<int64_t> mesh,
                        const std::vector<HostArray> &locals) {
  using Acc = std::conditional_t<isFloatElement<T>, double, T>;
  int64_t partialRanks;
  std::optional<ReduceOp> reduce = partialReduction(layout, mesh, partialRanks);
  HostArray g(layout.dtype, layout.shape);
  int64_t n = g.numElements();
  std::vector<Acc> acc(n, Acc(0));
  std::vector<char> seen(n, 0);
  bool isBool = layout.dtype == DTRT_I1;
  for (size_t r = 0; r < locals.size(); ++r) {
    auto coords = mlir::dtensor::rankToCoords(mesh, r);
    bool take = true;
    for (auto [axis, p] : llvm::enumerate(layout.placements))
      if (p.isReplicate() && coords[axis] != 0)
        take = false;
    if (!take)
      continue;
    mlir::dtensor::LocalShard s = mlir::dtensor::computeLocalShard(
        layout.shape, mesh, layout.placements, coords);
    forEachRun(layout.shape, s.shape, s.offsets,
               [&](int64_t gi, int64_t li, int64_t count) {
                 for (int64_t k = 0; k < count; ++k) {
                   T x = locals[r].get<T>(li + k);
                   if (!seen[gi + k] || !reduce)
                     acc[gi + k] = x;
                   else
                     combine<T, Acc>(acc[gi + k], x, *reduce, isBool);
                   seen[gi + k] = 1;
                 }
               },
               s.strided);
  }
  for (int64_t i = 0; i < n; ++i) {
    Acc v = acc[i];
    if constexpr (isFloatElement<T>)
      if (reduce == ReduceOp::Avg)
        v /= partialRanks;
    g.set<T>(i, static_cast<T>(v));
  }
  return g;
}
} // namespace

HostArray dtensor_run::assemble(const TensorLayout &layout,
                                llvm::ArrayRef<int64_t> mesh,
                                const std::vector<HostArray> &locals) {
  return visitDType(layout.dtype, [&](auto tag) {
    return assembleTyped<decltype(tag)>(layout, mesh, locals);
  });
}

std::string dtensor_run::formatElement(const HostArray &a, int64_t i) {
  return visitDType(a.dtype, [&](auto tag) -> std::string {
    using T = decltype(tag);
    T v = a.get<T>(i);
    if constexpr (isFloatElement<T>) {
      if (std::isnan(v))
        return "nan";
      if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.*g",
                    maxDigits10<T>(),
                    static_cast<double>(v));
      return buf;
    } else {
      return std::to_string(static_cast<int64_t>(v));
    }
  });
}

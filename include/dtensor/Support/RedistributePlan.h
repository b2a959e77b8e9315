//===- RedistributePlan.h - placements to collective steps ------*- C++ -*-===//
//
// Plans a redistribution as a sequence of per-mesh-axis steps, each one
// collective (or a local operation), following docs/semantics.md section 2.
// No MLIR IR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_SUPPORT_REDISTRIBUTEPLAN_H
#define DTENSOR_SUPPORT_REDISTRIBUTEPLAN_H

#include "dtensor/Support/CostModel.h"
#include "dtensor/Support/Placement.h"

#include <string>

namespace mlir {
namespace dtensor {

/// What one step does on its mesh axis.
enum class StepKind : uint8_t {
  AllGather,     ///< S(d) -> R
  AllReduce,     ///< P -> R
  ReduceScatter, ///< P -> S(d)
  AllToAll,      ///< S(i) -> S(j)
  LocalChunk,    ///< R -> S(d): take own chunk, no communication
  LocalDivide,   ///< R -> P(sum): divide by the axis size, no communication
  LocalKeep,     ///< R -> P(avg|max|min): nothing to do
};

/// Returns the report name of a step kind: "all_gather", "local_chunk", ...
llvm::StringRef stringifyStepKind(StepKind kind);
/// True for the kinds that communicate.
bool isCollective(StepKind kind);

/// One step of a plan: mesh axis `axis` goes from `from` to `to`; all other
/// axes keep the placements in `before` (the full placements before the
/// step).
struct RedistributeStep {
  int64_t axis = 0;
  Placement from, to;
  StepKind kind = StepKind::AllGather;
  Placements before;
};

/// Plans `current` -> `target` (same mesh). Mesh axes that shard a dim after
/// the axis being changed are undone first (inner to outer), then the rest is
/// applied outer to inner, as PyTorch's `_gen_transform_infos`. On failure
/// (S -> P, P(op) -> P(other)) returns false and sets `error`.
bool planRedistribute(llvm::ArrayRef<Placement> current,
                      llvm::ArrayRef<Placement> target,
                      llvm::SmallVectorImpl<RedistributeStep> &steps,
                      std::string &error);

/// Plans `current` -> `target` with the least total cost under the cost
/// model (the sum of the per-step costs of `redistributeCost`), searching
/// the placement states one mesh axis at a time. Ties go to fewer steps, then
/// to the plan of `planRedistribute`, which is also returned when it is as
/// cheap. `globalBytes` is the size of the global tensor, `tensorRank` its
/// rank (intermediate states may shard any dim).
bool planRedistributeMinCost(llvm::ArrayRef<Placement> current,
                             llvm::ArrayRef<Placement> target,
                             llvm::ArrayRef<int64_t> meshShape,
                             int64_t globalBytes, int64_t tensorRank,
                             llvm::SmallVectorImpl<RedistributeStep> &steps,
                             std::string &error);

/// For a redistribution that has no direct plan (S -> P, P(op) ->
/// P(other)), the placements to go through so that both halves have one:
/// every axis whose target is partial and whose current placement is
/// neither R nor that target becomes R first (reduce or gather, then
/// divide or keep). Returns std::nullopt when the direct plan exists or
/// when going through R does not help. Only the compiler takes this path
/// for redistributions it requires; an explicit `dtensor.redistribute` to
/// a partial placement from a shard stays an error, as in PyTorch.
std::optional<Placements>
getReplicatedIntermediate(llvm::ArrayRef<Placement> current,
                          llvm::ArrayRef<Placement> target);

/// The steps the compiler runs when an op requires `target` of a value in
/// `current` under strategy=global or exact: the cheapest plan
/// (`planRedistributeMinCost`), through the placements of
/// `getReplicatedIntermediate` where there is no direct one. False (with
/// `error`) when no plan exists.
bool planRequiredRedistribution(llvm::ArrayRef<Placement> current,
                                llvm::ArrayRef<Placement> target,
                                llvm::ArrayRef<int64_t> meshShape,
                                int64_t globalBytes, int64_t tensorRank,
                                llvm::SmallVectorImpl<RedistributeStep> &steps,
                                std::string &error);

/// Cost of the redistribution the compiler runs when an op requires
/// `target` of a value in `current` under strategy=global or exact: the
/// cheapest plan (`planRedistributeMinCost`), through the placements of
/// `getReplicatedIntermediate` where there is no direct one; infinite when
/// no plan exists. The planners price moves with it, so their objective is
/// what the analysis then reports.
double minRedistributeCost(llvm::ArrayRef<Placement> current,
                           llvm::ArrayRef<Placement> target,
                           llvm::ArrayRef<int64_t> meshShape,
                           int64_t globalBytes, int64_t tensorRank);

/// Sum of the costs of the steps of a plan (µs).
double planCost(llvm::ArrayRef<RedistributeStep> steps,
                llvm::ArrayRef<int64_t> meshShape, int64_t globalBytes,
                StridedCost strided = StridedCost::Collective);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_SUPPORT_REDISTRIBUTEPLAN_H

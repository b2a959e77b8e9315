//===- ShardingRules.h - per-op sharding strategies -------------*- C++ -*-===//
//
// Sharding rules are reached through `ShardingRuleOpInterface`
// (dtensor/Dialect/DTensor/Interfaces) and attached to upstream ops by the
// external models in dtensor/Dialect/DTensor/Extensions. This header only
// forwards to the interface for existing includes.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_ANALYSIS_SHARDINGRULES_H
#define DTENSOR_DIALECT_DTENSOR_ANALYSIS_SHARDINGRULES_H

#include "dtensor/Dialect/DTensor/Interfaces/ShardingRuleOpInterface.h"

#endif // DTENSOR_DIALECT_DTENSOR_ANALYSIS_SHARDINGRULES_H

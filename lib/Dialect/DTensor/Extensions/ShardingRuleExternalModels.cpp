//===- ShardingRuleExternalModels.cpp - register every model ---------------===//

#include "dtensor/Dialect/DTensor/Extensions/ShardingRuleExternalModels.h"

void mlir::dtensor::registerAllShardingRuleExternalModels(
    DialectRegistry &registry) {
  registerArithMathShardingRuleExternalModels(registry);
  registerLinalgShardingRuleExternalModels(registry);
  registerTensorShardingRuleExternalModels(registry);
  registerTosaShardingRuleExternalModels(registry);
}

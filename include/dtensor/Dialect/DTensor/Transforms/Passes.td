//===- Passes.td - dtensor passes --------------------------*- tablegen -*-===//

#ifndef DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD
#define DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

defvar StrategyOption = Option<"strategy", "strategy",
    "::mlir::dtensor::StrategyMode", "::mlir::dtensor::StrategyMode::Global",
    "how strategies are chosen",
    [{::llvm::cl::values(
      clEnumValN(::mlir::dtensor::StrategyMode::PyTorch, "pytorch",
                 "PyTorch DTensor parity: op by op in program order"),
      clEnumValN(::mlir::dtensor::StrategyMode::Global, "global",
                 "all ops of a function together: the least total "
                 "communication cost, solved exactly, among the plans that "
                 "split each contraction's work at least as many ways as "
                 "pytorch's (never above pytorch's; the report says when "
                 "it is not proven optimal)"),
      clEnumValN(::mlir::dtensor::StrategyMode::Exact, "exact",
                 "as global over every strategy: the least communication, "
                 "even where it computes a contraction on more ranks"))}]>;

defvar UnknownOpsOption = Option<"unknownOps", "unknown-ops",
    "::mlir::dtensor::UnknownOpPolicy",
    "::mlir::dtensor::UnknownOpPolicy::Error",
    "what to do with an op that has no sharding rule",
    [{::llvm::cl::values(
      clEnumValN(::mlir::dtensor::UnknownOpPolicy::Error, "error",
                 "emit an error naming the op"),
      clEnumValN(::mlir::dtensor::UnknownOpPolicy::Replicate, "replicate",
                 "replicate its operands and results, with a warning"))}]>;

defvar MaxBytesPerRankOption = Option<"maxBytesPerRank", "max-bytes-per-rank",
    "std::string", "\"\"",
    "memory budget of every rank, in bytes with an optional K, M or G "
    "suffix (powers of 1024): the plan keeps every rank's peak within it "
    "(sharding values it would replicate), or fails naming the smallest "
    "peak it reached; empty for none">;

def DTensorFakePropagate : Pass<"dtensor-fake-propagate", "::mlir::ModuleOp"> {
  let summary = "choose a sharding strategy per op and annotate placements";
  let description = [{
    Runs the fake-tensor analysis (metadata only: global shapes, element
    types, placements, local shapes on every rank) over every function and
    materialises its decisions in the IR:

    - every op with tensor results gets `dtensor.specs`, one
      `#dtensor.spec` per result (non-tensor results get `unit`);
    - every operand whose placements must change before its use is fed by an
      explicit `dtensor.redistribute`, created right after the value's
      definition and shared by all users that need the same placements;
    - results with a `dtensor.spec` are redistributed to it before returning;
    - values the program creates (constants, `tensor.empty`, splats, fills of
      them) are not redistributed: a copy is created directly in the
      placements its users need (partial only for zeros or `tensor.empty`).

    Strategies follow PyTorch DTensor: the same candidates per op, the same
    cost model and the same tie rules. Argument specs, result specs,
    `dtensor.specs` already on ops and explicit redistributions are honoured,
    so the pass is idempotent. An op with tensor values and no sharding rule
    is an error unless `unknown-ops=replicate`.

    ```mlir
    // x: S(0), w: R  ->  the matmul keeps S(0), no communication
    %y = linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
        ins(%x, %w : tensor<32x512xf32>, tensor<512x512xf32>)
        outs(%init : tensor<32x512xf32>) -> tensor<32x512xf32>
    ```
  }];
  let dependentDialects = ["::mlir::dtensor::DTensorDialect"];
  let options = [StrategyOption, UnknownOpsOption, MaxBytesPerRankOption];
  let statistics = [
    Statistic<"numRedistributions", "num-redistributions",
              "Number of dtensor.redistribute ops inserted">,
    Statistic<"numRecreated", "num-recreated",
              "Number of created values built directly in a new placement">,
    Statistic<"numAnnotated", "num-annotated",
              "Number of ops annotated with dtensor.specs">
  ];
}

def DTensorFakeReport : Pass<"dtensor-fake-report", "::mlir::ModuleOp"> {
  let summary = "report the fake-tensor metadata and the communication plan";
  let description = [{
    Runs the fake-tensor analysis without changing the IR and writes, per
    function, every tensor value (defining op, global shape, dtype,
    placements, local shape on every rank), the returned values, every
    collective the plan needs (kind, mesh axes, bytes per rank) and totals
    (communication bytes and peak live bytes per rank, and `comm_cost_us`,
    the cost model's total).

    Collectives, bytes and costs count every execution per call of the
    function: a collective inside `scf.for` loops runs the product of their
    static trip counts (a loop whose trip count is not static, `scf.while`
    included, is counted once, and the row says so), a branch (`scf.if`,
    `scf.index_switch`) counts its dearest region, and a called function's
    collectives count once per call site (section `calls`). Each collective
    row names the loops and branches around it (`x6 in scf.for (f.mlir:12:10),
    scf.for (f.mlir:11:8)`, innermost first); `totals.plan_comm_cost_us` is
    the plan's cost as the comparison with PyTorch's plan counts it (the
    same, but a caller's leaves its callees' collectives out).

    Each collective says why it is there: the op (and operand) that reads
    the redistributed value with its location, the placements it goes from
    and to, and in JSON (`why.strategy`) the sharding strategy chosen for
    that op with its cost and the runner-up strategy's cost.

    `format=json` writes the JSON object of the public contract;
    `format=text` prints the same as aligned tables.
  }];
  let dependentDialects = ["::mlir::dtensor::DTensorDialect"];
  let options = [
    Option<"format", "format", "std::string", "\"json\"",
           "output format: json or text">,
    Option<"output", "output", "std::string", "\"-\"",
           "file to write, '-' for stdout">,
    StrategyOption,
    Option<"comparePytorch", "compare-pytorch", "bool", "false",
           "also give the total cost of the pytorch plan "
           "(`totals.pytorch_comm_cost_us`)">,
    UnknownOpsOption, MaxBytesPerRankOption
  ];
}

def DTensorPartition : Pass<"dtensor-partition", "::mlir::ModuleOp"> {
  let summary = "turn the global view into one SPMD local-view program";
  let description = [{
    Runs the fake-tensor analysis (and materialises its plan, so the input
    need not be propagated) and rewrites every function with a mesh into the
    program each rank runs:

    - every tensor gets its local type: the shard's shape, with dynamic dims
      where shards are uneven (torch.chunk sizes), computed at run time from
      `dtensor.process_index`;
    - every `dtensor.redistribute` becomes its plan of per-axis steps:
      `dtensor.all_gather` (S -> R), `dtensor.all_reduce` (P -> R),
      `dtensor.reduce_scatter` (P -> S), `dtensor.all_to_all` (S(i) -> S(j)),
      a local slice (R -> S) or a division by the axis size (R -> P(sum)).
      Uneven shards are padded to equal blocks around the collective and the
      padding is sliced off, so no row is dropped or duplicated;
    - values the program creates are created locally in their placements;
    - arguments arrive as local shards and results leave in their requested
      placements; `dtensor.spec` stays on arguments and results to say how;
    - with `async-collectives` (the default), a collective whose result is
      first used after other compute (an op with a region, a structured op,
      a call) becomes its `_start` form where it was and a `dtensor.wait`
      right before that first use, so that the compute in between overlaps
      the transfer (a DDP bucket's all-reduce runs during the rest of the
      backward).

    ```mlir
    // before: %r = dtensor.redistribute %y to #dtensor.spec<@mesh, [R]> : tensor<32x512xf32>
    // after:
    %r = dtensor.all_reduce %y on @mesh axes [0] reduce sum
        : tensor<32x512xf32> -> tensor<32x512xf32>
    ```
  }];
  let dependentDialects = ["::mlir::dtensor::DTensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    StrategyOption, UnknownOpsOption, MaxBytesPerRankOption,
    Option<"asyncCollectives", "async-collectives", "bool", "true",
           "emit the async form (`_start` + `dtensor.wait` before the first "
           "use) of every collective that compute can overlap">
  ];
  let statistics = [
    Statistic<"numCollectives", "num-collectives",
              "Number of collective ops created">,
    Statistic<"numAsync", "num-async-collectives",
              "Number of collectives made asynchronous">
  ];
}

def DTensorDDPSplit : Pass<"dtensor-ddp-split", "::mlir::ModuleOp"> {
  let summary = "split functions into submodules at DDP gradient buckets";
  let description = [{
    Buckets the top-level ops of every function the way Dynamo's
    DDPOptimizer does and outlines each bucket as a function
    `<func>_submod_<i>` (0 nearest the input); the original function becomes
    the sequence of calls. A function with a single bucket is left unchanged.

    Bucketing (docs/semantics.md section 6) works on nodes: a top-level op,
    or a run of consecutive top-level ops whose locations are `NameLoc`s of
    one name (the ops a front end lowered one source op to:
    `dtensor_mlir.from_torch` names them after the torch-level call, as
    DDPOptimizer's node is that call). Walk the nodes in reverse program
    order (the return is skipped); before adding a node, if the front bucket
    is full (its bytes reach `bucket-cap-mb`, or `first-bucket-cap-mb` while
    it is the only bucket) and one of its nodes has a user outside it (a
    later bucket or the return), start a new front bucket; then add the node
    and the global byte size of each trainable parameter it uses directly
    (once per node; a parameter used by two nodes counts twice). Caps are `int(mb * 2^20)`
    bytes. At the end a front bucket without bytes joins the next one.

    Trainable parameters are function arguments with `dtensor.param`;
    `dtensor.ddp_ignored` keeps one out of the buckets (no bytes, not
    listed). A parameter passed to a call is an error: the pass cannot see
    which ops of the callee use it.

    Outlining: only activations and parameters cross a boundary. Values the
    program creates from nothing (constants, `tensor.empty`, fills and
    broadcasts of them) are recreated in every submodule that uses them. The
    fake-tensor analysis runs before the split: every submodule argument and
    result gets the `dtensor.spec` of the value it carries and every
    outlined op the `dtensor.specs` of its results, so analysing the split
    program gives every value the metadata it had before and needs no
    redistribution at a boundary. Parameter arguments keep `dtensor.param`
    and `dtensor.ddp_ignored`.

    `report=FILE` (`-` for stdout) writes, with `report-format=json`,
    one object with a list `functions`, each entry with `name`, `split` and
    `buckets`, each bucket with `submodule`, `params`, `bytes` and `ops`
    (buckets in forward order, `params` the counted
    `dtensor.param` names, `bytes` their total, `ops` the ops the bucket
    holds); `report-format=text` prints one table per function.

    A training step or gradient function (results: a 0-d float loss, then
    one value per `dtensor.param` argument, as `dtensor-autodiff` makes
    `@f_train_step` and `@f_grad`) is not outlined. Its buckets come from
    its forward ops (those the loss depends on), the same as for `@f`; in
    the backward, right after the op producing the last gradient of a
    bucket that the plan reduces from `P(sum)` to `R`, the bucket's
    gradients are flattened into one 1-D buffer (`tensor.collapse_shape`,
    `tensor.concat`) and redistributed once to `R`; each gradient's reader
    takes its slice back (`tensor.extract_slice`, `tensor.expand_shape`)
    just before its first use. `dtensor-partition` turns that
    redistribution into one `dtensor.all_reduce_start` with the wait before
    the first reader. Every top-level op gets `dtensor.segment`:
    `<f>_fwd_<i>`, `<f>_bwd_<i>` (the backward ending with bucket i's
    all-reduce) or `<f>_update`. The report adds `training_step`, and per
    bucket `segment`, `backward_segment`, `all_reduce_params` and
    `all_reduce_bytes`.

    ```mlir
    // dtensor-opt --dtensor-ddp-split="bucket-cap-mb=4"
    func.func private @f_submod_0(%x: tensor<8x1024xf32> {dtensor.spec = ...},
        %w0: tensor<1024x1024xf32> {dtensor.param = "w0", dtensor.spec = ...})
        -> (tensor<8x1024xf32> {dtensor.spec = ...}) { ... }
    func.func private @f_submod_1(...) -> ... { ... }
    func.func @f(%x: ..., %w0: ..., %w1: ...) -> ... {
      %0 = call @f_submod_0(%x, %w0) : (...) -> tensor<8x1024xf32>
      %1 = call @f_submod_1(%0, %w1) : (...) -> tensor<8x1024xf32>
      return %1 : tensor<8x1024xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::dtensor::DTensorDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"bucketCapMb", "bucket-cap-mb", "double", "25.0",
           "bucket capacity in MiB">,
    Option<"firstBucketCapMb", "first-bucket-cap-mb", "double", "1.0",
           "capacity of the first bucket (nearest the output) in MiB">,
    Option<"report", "report", "std::string", "\"\"",
           "file to write the bucket report to ('-' for stdout; none if "
           "empty)">,
    Option<"reportFormat", "report-format", "std::string", "\"json\"",
           "report format: json or text">,
    UnknownOpsOption
  ];
  let statistics = [
    Statistic<"numSplitFunctions", "num-split-functions",
              "Number of functions split into submodules">,
    Statistic<"numSubmodules", "num-submodules", "Number of submodules created">,
    Statistic<"numRecreated", "num-recreated",
              "Number of created values recreated in a submodule">,
    Statistic<"numGradientBuckets", "num-gradient-buckets",
              "Number of flat gradient all-reduces placed in training steps">
  ];
}

def DTensorAutodiff : Pass<"dtensor-autodiff", "::mlir::ModuleOp"> {
  let summary = "add the reverse-mode gradient function of every loss function";
  let description = [{
    A loss function is a `func.func` whose only result is a 0-d float
    tensor and whose trainable arguments carry `dtensor.param = "<name>"`.
    For each loss function `@f` with at least one such argument the pass
    adds `@f_grad`, with the same arguments and visibility, returning the
    loss and the gradient of the loss with respect to each `dtensor.param`
    argument, in argument order. Each gradient result gets the
    `dtensor.spec` of its parameter argument (and the loss the result
    attributes of `@f`), so that the fake-tensor analysis plans the
    backward like any program: under data parallelism (input `S(0)`,
    parameters `R`) a weight gradient comes out `P(sum)` and its
    redistribution to `R` is the DDP all-reduce.

    `@f_grad` is a copy of `@f`'s body (the forward values stay available)
    followed by the reverse sweep: in reverse program order, every op whose
    results carry an adjoint and whose operands depend on a parameter builds
    the adjoints of those operands through `GradientOpInterface`; a value
    used several times sums its adjoints (`linalg.add`). The loss' adjoint
    is 1. Values that do not depend on a parameter (inputs, constants,
    `tensor.empty`, fills of constants) get no adjoint; a parameter the loss
    does not depend on gets a zero gradient.

    An op without `GradientOpInterface` whose operand's gradient is needed is
    an error naming the op and the operand, as is a rule that does not
    cover an instance (a body op without a derivative, a reduction that is
    neither a sum nor a max/min). Only a single-block body is
    differentiated; `scf.while` on the path from a parameter to the loss is
    an error. If `@f_grad` already exists
    it is left unchanged (a hand-written gradient is kept, and the pass is
    idempotent). `functions=f,g` differentiates only those loss functions.

    With `optimizer=sgd lr=<lr>` the pass adds instead `@f_train_step`, with
    the same arguments, returning the loss and each `dtensor.param`
    argument after one step of stochastic gradient descent,
    `p' = p - lr * grad` (as `linalg.mul` of a filled `lr` tensor and
    `linalg.sub`), in argument order, each with its parameter's
    `dtensor.spec`, so that a training loop can feed the updated parameters
    back as the next step's arguments. An existing `@f_train_step` is kept.
    `optimizer=none` (the default) is the `@f_grad` behaviour; another
    optimizer name, or a learning rate that is not finite, is an error.

    With `optimizer=adamw` (options `lr`, `beta1`, `beta2`, `eps`,
    `weight-decay`, PyTorch's `torch.optim.AdamW` semantics) `@f_train_step`
    takes `@f`'s arguments followed by the optimizer state: the first moment
    `m` of each parameter (argument order, `dtensor.state = "<name>.exp_avg"`,
    the parameter's type and `dtensor.spec`), then the second moment `v` of
    each parameter (`"<name>.exp_avg_sq"`), then the step count `t`
    (`tensor<f32>`, `"step"`). All start at zero. It returns the loss, the
    updated parameters, the updated `m`, `v` and `t + 1`, in that order:
    `t' = t + 1`, `p *= 1 - lr * wd`, `m' = b1 m + (1 - b1) g`,
    `v' = b2 v + (1 - b2) g^2`,
    `p' = p - lr / (1 - b1^t') * m' / (sqrt(v') / sqrt(1 - b2^t') + eps)`.

    Calls (`CallOpInterface`) are differentiated through the callee's
    vector-Jacobian product function `@<callee>_vjp` (private; the callee's
    arguments, then one adjoint per float result; results: the adjoint of
    each float argument), added once per callee; a recursive call is an
    error. `scf.for` (index induction variable, iter_args of static tensor or
    scalar types) is reversed: the forward loop also stores each
    iteration's iter_args in a stacked tensor, and a reverse loop recomputes
    each iteration's body from them, last iteration first, carrying the
    iter_args' adjoints backwards and summing the adjoints of the values
    the body reads from above. `scf.if` is reversed by an `scf.if` on the
    same condition whose branches recompute the forward branch, sweep it
    back from the adjoints of what it yields, and yield the adjoint of each
    active value the branches read from above (zeros where a branch does
    not read it).

    ```mlir
    func.func @f(%x: tensor<8x4xf32>,
                 %w: tensor<4x2xf32> {dtensor.param = "w"}) -> tensor<f32>
    // dtensor-opt --dtensor-autodiff adds
    func.func @f_grad(%x: tensor<8x4xf32>,
                      %w: tensor<4x2xf32> {dtensor.param = "w"})
        -> (tensor<f32>, tensor<4x2xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    ListOption<"functions", "functions", "std::string",
               "the loss functions to differentiate (default: every loss "
               "function); a name that is not a loss function is an error">,
    Option<"optimizer", "optimizer", "std::string", "\"none\"",
           "none: add @f_grad (loss, gradients); sgd: add @f_train_step "
           "(loss, parameters after one SGD step p - lr * grad); adamw: add "
           "@f_train_step with the AdamW state as extra arguments and "
           "results; any other name is an error">,
    Option<"lr", "lr", "double", "0.01",
           "the learning rate of optimizer=sgd and optimizer=adamw (finite)">,
    Option<"beta1", "beta1", "double", "0.9",
           "adamw: the decay of the first moment, in [0, 1)">,
    Option<"beta2", "beta2", "double", "0.999",
           "adamw: the decay of the second moment, in [0, 1)">,
    Option<"eps", "eps", "double", "1e-8",
           "adamw: added to the denominator (positive)">,
    Option<"weightDecay", "weight-decay", "double", "0.01",
           "adamw: the decoupled weight decay, p -= lr * weight-decay * p "
           "(finite, not negative)">
  ];
  let statistics = [
    Statistic<"numGradientFunctions", "num-gradient-functions",
              "Number of gradient functions added">,
    Statistic<"numKept", "num-kept",
              "Number of loss functions whose _grad (or _train_step) function "
              "already existed">,
    Statistic<"numReverseRules", "num-reverse-rules",
              "Number of ops whose reverse rule was applied">
  ];
}

def DTensorDecomposeAggregates
    : Pass<"dtensor-decompose-aggregates", "::mlir::ModuleOp"> {
  let summary = "decompose linalg aggregate ops (softmax) into structured ops";
  let description = [{
    Rewrites ops implementing `linalg::AggregatedOpInterface` (such as
    `linalg.softmax`) into the structured linalg ops they stand for, so that
    the CPU pipeline can lower them to loops.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DTensorCheckCPULowering
    : Pass<"dtensor-check-cpu-lowering", "::mlir::ModuleOp"> {
  let summary = "report the ops that dtensor-cpu-pipeline cannot lower";
  let description = [{
    The first step of `dtensor-cpu-pipeline` after partitioning: walks the
    (local-view) program and emits one error per op that no step of the
    pipeline lowers, naming the op and the missing step, so that such a
    program stops before bufferization instead of failing late with `op was
    not bufferized` or an LLVM legalization error. The program is not
    changed.

    - `tosa` ops must be rewritten by a pattern of the conversions the
      pipeline runs (`tosa-to-linalg-named`, `tosa-to-linalg`,
      `tosa-to-arith`, `tosa-to-tensor`, `tosa-to-scf` and the optional
      decompositions); `tosa.const_shape` and terminators go with their
      users and parents.
    - Other ops on tensors must be elementwise (for
      `dtensor-elementwise-to-linalg`), decomposable
      (`linalg::AggregatedOpInterface`) or bufferizable
      (`BufferizableOpInterface`).
    - `math` ops must be rewritten by `convert-math-to-funcs` (`ipowi`,
      `fpowi`), `convert-math-to-llvm` or `convert-math-to-libm`.
    - Other scalar ops must come from a dialect that the pipeline lowers to
      LLVM (`arith`, `index`, `scf`, `cf`, `func`, `memref`, `affine`,
      `linalg`, `tensor`, `bufferization`, `llvm`, `dtensor`).

    ```mlir
    // error: 'math.isinf' op cannot be lowered by dtensor-cpu-pipeline: ...
    %r = math.isinf %x : tensor<16xf32>
    ```
  }];
  let statistics = [
    Statistic<"numUnlowerable", "num-unlowerable",
              "Number of ops the CPU pipeline cannot lower">
  ];
}

def DTensorElementwiseToLinalg
    : Pass<"dtensor-elementwise-to-linalg", "::mlir::ModuleOp"> {
  let summary = "convert elementwise ops on tensors to linalg.generic, "
                "without folding";
  let description = [{
    Rewrites every elementwise-mappable op on ranked tensors (`arith` and
    `math` ops on tensors) into a `linalg.generic`, with the patterns of
    upstream's `convert-elementwise-to-linalg`, but applied by a walk that
    never folds. Upstream's pass is a dialect conversion that folds each op
    first, and some folders and canonicalization patterns build a constant
    of the result type (`arith.xori %x, %x` -> `dense<0>`, `(x - y) - x` ->
    `0 - y`), which is invalid when the type has a dynamic dim, as local
    tensors of uneven shards have after partitioning (`memref.global` then
    rejects it). The CPU pipeline runs this pass before any pass that
    folds.

    ```mlir
    %r = arith.xori %x, %x : tensor<?x10xi32>
    // becomes
    %e = tensor.empty(%d) : tensor<?x10xi32>
    %r = linalg.generic ... ins(%x, %x : ...) outs(%e : ...) {
      ^bb0(%a: i32, %b: i32, %o: i32):
        %s = arith.xori %a, %b : i32
        linalg.yield %s : i32
    } -> tensor<?x10xi32>
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numConverted", "num-converted",
              "Number of elementwise ops converted to linalg.generic">
  ];
}

def DTensorFuseElementwise
    : Pass<"dtensor-fuse-elementwise", "::mlir::ModuleOp"> {
  let summary = "fuse chains of elementwise linalg ops on tensors, keeping "
                "contractions apart";
  let description = [{
    Generalizes the elementwise named linalg ops (`linalg.add`, `linalg.exp`,
    ...; not `linalg.transpose`, fills, copies or contractions) and fuses
    each elementwise `linalg.generic` producer into its `linalg.generic`
    consumers with upstream's elementwise fusion patterns
    (`populateElementwiseOpsFusionPatterns`), so that a chain of
    elementwise ops, or an elementwise op feeding a reduction, becomes one
    loop nest. Fusion never goes into or out of a contraction
    (`linalg::isaContractionOpInterface`), which stays a named op or a
    GEMM-shaped generic for the BLAS lowering. A producer with several
    users is fused (recomputed in each) only when all its users are
    non-contraction generics, its body has at most `max-recompute-ops`
    ops and, with `recompute-math=false` (the CPU pipeline's choice), no
    `math` op (an exp costs more than storing and reloading its result).

    ```mlir
    %e = linalg.generic {...} ins(%x : tensor<?x128xf32>) ... { math.exp }
    %s = linalg.generic {...} ins(%e : tensor<?x128xf32>) ... { arith.addf }
    // becomes one reduction generic whose body computes exp and adds
    ```
  }];
  let options = [
    Option<"maxRecomputeOps", "max-recompute-ops", "unsigned", /*default=*/"16",
           "largest body (ops) of a multi-use producer that fusion "
           "recomputes in each of its users">,
    Option<"recomputeMath", "recompute-math", "bool", /*default=*/"true",
           "recompute a multi-use producer with a math op (exp, ...) in "
           "its users">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numGeneralized", "num-generalized",
              "Number of named elementwise ops generalized">
  ];
}

def DTensorFuseRows : Pass<"dtensor-fuse-rows", "::mlir::func::FuncOp"> {
  let summary = "fuse row reductions and their row-wise consumers into one "
                "loop over the rows";
  let description = [{
    Finds chains of linalg ops on tensors that work row by row: ops whose
    loops are the same `n` parallel row loops followed by at most one
    innermost loop (a reduction along the row, e.g. the max and the sum of a
    softmax or the mean and variance of a layer norm, or an elementwise op),
    each producer read row-indexed (its operand maps start with the row
    loops `d0, ..., d(n-1)`) and only by ops of the chain. The last op of a
    chain that contains a reduction is tiled with `scf.for` loops to one row
    per iteration and the whole chain is fused into those loops
    (`scf::tileConsumerAndFuseProducersUsingSCF`): each row is read from
    memory once, the later sweeps over it (the normalising divide of a
    softmax, the centring of a layer norm) read it from the cache, and the
    row-sized intermediates (`exp(x - max)` of a softmax) are row-sized
    tensors (slices of `tensor.empty` folded) that bufferize to one small
    buffer each. A producer fused through several slices is computed once
    (CSE). Contractions, convolutions and ops with other users are not
    fused; chains without a reduction are left to elementwise fusion.
    First, the unit dims of the linalg ops but contractions and
    convolutions are dropped (upstream's `populateFoldUnitExtentDimsPatterns`):
    torch-mlir's keepdim statistics (`[B, H, S, 1]`, written through a
    constant index, which tiling cannot take) become row reductions.

    ```mlir
    %m = linalg.generic {iterator_types = ["parallel", "reduction"]} // max
    %e = linalg.generic {iterator_types = ["parallel", "parallel"]}  // exp(x - m)
    %s = linalg.generic {iterator_types = ["parallel", "reduction"]} // sum
    %y = linalg.generic {iterator_types = ["parallel", "parallel"]}  // e / s
    // becomes
    %y = scf.for %i = %c0 to %rows step %c1 iter_args(%o = %init) {
      // the four ops on row %i (tensor<1x128xf32>, tensor<1xf32>)
      %r = tensor.insert_slice ... into %o[%i, 0] [1, 128] [1, 1]
      scf.yield %r
    }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numFused", "num-fused", "Number of row chains fused">
  ];
}

def DTensorBubbleUpSlices
    : Pass<"dtensor-bubble-up-slices", "::mlir::func::FuncOp"> {
  let summary = "compute a value that is only read through a slice on that "
                "slice";
  let description = [{
    Partitioning reads a replicated value as a shard through a
    `tensor.extract_slice`: a bias broadcast to the global batch is sliced
    to the rank's rows, so every rank computes (and holds) the whole
    broadcast to keep its part. This pass moves such slices above the op
    that makes the value when the op is an all-parallel linalg op used only
    by the slice, or a fill (upstream's
    `populateBubbleUpExtractSliceOpPatterns` and
    `populateSwapExtractSliceWithFillPatterns`, with the canonicalizations
    of `tensor.extract_slice` and `tensor.empty`), repeatedly: each rank
    computes its slice only. The bias add then reads a local broadcast, and
    the GEMM lowerings can fuse it into their epilogues.

    ```mlir
    %b = linalg.broadcast ins(%bias : tensor<32xf32>) outs(%e : tensor<8x32xf32>) dimensions = [0]
    %s = tensor.extract_slice %b[%row, 0] [4, 32] [1, 1] : tensor<8x32xf32> to tensor<4x32xf32>
    // becomes a broadcast into a 4x32 tensor.empty
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DTensorSplitReductions
    : Pass<"dtensor-split-reductions", "::mlir::func::FuncOp"> {
  let summary = "split large reductions to a scalar into partial reductions "
                "and their combination";
  let description = [{
    On GPUs a reduction to a scalar (a loss summed over a batch) is one
    thread block (`dtensor-gpu-block-reductions`): one SM reads the whole
    input. This pass rewrites every `linalg.generic` on static tensors with
    no parallel loop and at least `min-size` elements into two reductions
    (upstream `linalg::splitReduction`): `G` partials, each over a
    contiguous chunk of at least `min-chunk` elements (`G` the largest
    divisor of the size up to `max-partials`, at least 8), then one
    reduction of the `G` partials into the result. Several reduction loops
    are collapsed into one first when every operand reads them as one
    contiguous run (`linalg::collapseOpIterationDims`). On GPUs the first
    stage is then `G` blocks, one per partial, and the second one block.
    Other ops, and sizes with no such divisor, are unchanged.
  }];
  let options = [
    Option<"minSize", "min-size", "int64_t", /*default=*/"65536",
           "split reductions of at least this many elements">,
    Option<"maxPartials", "max-partials", "int64_t", /*default=*/"1024",
           "at most this many partial reductions">,
    Option<"minChunk", "min-chunk", "int64_t", /*default=*/"1024",
           "at least this many elements per partial">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numSplit", "num-split", "reductions split in two stages">
  ];
}

def DTensorUnitGemmDims
    : Pass<"dtensor-unit-gemm-dims", "::mlir::func::FuncOp"> {
  let summary = "give contractions with no m or no n loop a unit one, so "
                "that they are GEMMs";
  let description = [{
    A contraction on tensors (`linalg::isaContractionOpInterface`) with a
    k loop but no n loop (`linalg.matvec`, a batched matrix-vector
    product) or no m loop (`linalg.vecmat`, `linalg.dot`) becomes a
    `linalg.generic` with the missing loop appended, of size 1: A gets a
    trailing unit dim for a new m loop, B one for a new n loop, C one for
    each (`tensor.expand_shape`), and the result is collapsed back. The BLAS
    and cuBLASLt lowerings then call one GEMM with m or n = 1; before, a
    matvec was a loop nest (on GPUs one thread per row, reading the matrix
    a row apart between threads). On tensors the reshapes are views once
    bufferized.

    ```mlir
    %y = linalg.matvec ins(%a, %x : tensor<64x32xf32>, tensor<32xf32>)
                       outs(%z : tensor<64xf32>) -> tensor<64xf32>
    // becomes
    %x2 = tensor.expand_shape %x [[0, 1]] output_shape [32, 1] : ... into tensor<32x1xf32>
    %z2 = tensor.expand_shape %z [[0, 1]] output_shape [64, 1] : ... into tensor<64x1xf32>
    %y2 = linalg.generic ... ins(%a, %x2 : tensor<64x32xf32>, tensor<32x1xf32>)
                             outs(%z2 : tensor<64x1xf32>)
    %y = tensor.collapse_shape %y2 [[0, 1]] : tensor<64x1xf32> into tensor<64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numExpanded", "num-expanded",
              "contractions given a unit m or n loop">
  ];
}

def DTensorCollapseContractionDims
    : Pass<"dtensor-collapse-contraction-dims", "::mlir::func::FuncOp"> {
  let summary = "collapse runs of m, n or k loops of contractions on tensors "
                "into one loop";
  let description = [{
    A contraction on tensors (`linalg::isaContractionOpInterface`: batch,
    m, n and k loops) whose loops of one kind include a run that every
    indexing map reads consecutively and in order (or not at all) gets the
    run collapsed into one loop (upstream's `collapseOpIterationDims`, with
    `tensor.collapse_shape` / `expand_shape` of its operands and result):
    the output projection of attention reading `[t, h, d]` against a
    weight `[h, d, n]` becomes a GEMM with one k loop of `h * d`, a 3-D
    activation times a weight one with one m loop. The BLAS and cuBLASLt
    lowerings take one loop of each kind; on tensors the reshapes are free
    (views after bufferization).

    ```mlir
    // (t, n, h, d) -> (t, h, d) x (h, d, n) -> (t, n), h and d reductions
    %o = linalg.generic ... ins(%q, %w : tensor<24x3x8xf32>, tensor<3x8x10xf32>)
    // becomes
    %q2 = tensor.collapse_shape %q [[0], [1, 2]] : ... into tensor<24x24xf32>
    %w2 = tensor.collapse_shape %w [[0, 1], [2]] : ... into tensor<24x10xf32>
    %o = linalg.generic ... ins(%q2, %w2 : tensor<24x24xf32>, tensor<24x10xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numCollapsed", "num-collapsed",
              "Number of contractions whose loops were collapsed">
  ];
}

def DTensorParallelizeLoops
    : Pass<"dtensor-parallelize-loops", "::mlir::func::FuncOp"> {
  let summary = "split the loops marked dtensor.parallel_loop into chunks "
                "run by parallel threads";
  let description = [{
    The passes that build loops over independent iterations mark them with
    the unit attribute `dtensor.parallel_loop` (`dtensor-fuse-rows`: the
    row loop of a fused row chain; `dtensor-vectorize`: the loop over the
    outermost dim of an op when it is parallel and indexes every output).
    Each iteration of such a loop writes data no other iteration reads or
    writes. With `threads` = T > 1, this pass rewrites every outermost
    marked `scf.for` without loop-carried values into an `scf.parallel` over
    T chunks (`convert-scf-to-openmp` makes it T threads), each an `scf.for`
    over a contiguous range of the original iterations:

    ```mlir
    scf.for %i = %lb to %ub step %s { body } {dtensor.parallel_loop}
    // becomes, with n = ceildiv(%ub - %lb, %s) and c = ceildiv(n, T):
    scf.parallel (%t) = (0) to (T) step (1) {
      scf.for %i = %lb + %t * c * %s to min(%ub, %lb + (%t + 1) * c * %s)
          step %s { body }
    }
    ```

    The inner loop keeps the body, so `buffer-loop-hoisting` run after this
    pass hoists the body's allocations to the chunk: one buffer per thread,
    never shared (it does not hoist across `scf.parallel`). Marked loops
    inside a marked or an `scf.parallel` loop stay serial (one level of
    threads); the marks are removed. With T = 1
    only the marks are removed.
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"1",
           "threads (chunks) per parallelized loop">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numParallelized", "num-parallelized",
              "loops split into parallel chunks">
  ];
}

def DTensorVectorize : Pass<"dtensor-vectorize", "::mlir::func::FuncOp"> {
  let summary = "tile and vectorize linalg ops on buffers for the CPU";
  let description = [{
    Tiles every linalg op on memrefs but convolutions (the CPU pipeline runs
    it after the BLAS lowering: the contractions still here are those BLAS
    does not take, e.g. integer ones or dot products) whose operands are
    contiguous or broadcast along the innermost loop and whose outputs are
    indexed in loop order (a strided read would be gathered element by
    element, slower than a loop) with `scf.for` loops
    (`scf::tileUsingSCF`): size 1 on every loop but the innermost, and
    `vector-size` elements on the innermost; an innermost reduction of
    static size up to `max-reduction-size` is kept whole, so that it is
    reduced in vector registers. Each tile is vectorized with
    `linalg::vectorize` with the tile sizes as vector sizes, so partial
    tiles (dynamic dims of uneven shards, sizes not divisible by
    `vector-size`) are masked. The vector ops are then lowered with
    upstream's patterns to 1-D vectors (masks folded into transfers, leading
    unit dims dropped, multi-reductions to `vector.reduction`, transfer
    permutation maps to broadcasts/transposes) and f32 math functions are
    replaced with upstream's polynomial approximations
    (`populateMathPolynomialApproximationPatterns`), so that `math.exp`
    on a vector stays a vector computation.

    An all-parallel op that reads some input across its rows along the
    innermost loop (`linalg.transpose` moving the innermost dim, `x^T + y`)
    is tiled by 16 x 16 blocks on the innermost loop and on the loop those
    inputs read innermost (size 1 on the others): each block is read by
    rows, transposed in registers by shuffles and written by rows (4096 x
    4096 f32: 11 ms against 92 ms as loops).

    Float min/max reductions are lowered to trees of elementwise combines of
    vector halves: LLVM lowers a `vector.reduction <maxnumf>` to a chain of
    scalar max over the lanes of its last register.

    Ops with elements narrower than 8 bits (`i1`) are not vectorized: a
    vector of `i1` is bit-packed in memory, a memref of `i1` is not. Ops
    the vectorizer rejects stay tiled linalg ops, lowered to loops later.

    ```mlir
    linalg.generic {iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4096x512xf32>) outs(%b : memref<4096x512xf32>) {...}
    // becomes
    scf.for %i = %c0 to %c4096 step %c1 {
      scf.for %j = %c0 to %c512 step %c32 {
        %v = vector.transfer_read %a[%i, %j] ... : vector<32xf32>
        ...
        vector.transfer_write %r, %b[%i, %j] ... : vector<32xf32>
      }
    }
    ```
  }];
  let options = [
    Option<"vectorSize", "vector-size", "int64_t", /*default=*/"32",
           "elements per vector along the innermost loop">,
    Option<"maxReductionSize", "max-reduction-size", "int64_t",
           /*default=*/"1024",
           "largest static innermost reduction vectorized whole">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numVectorized", "num-vectorized",
              "Number of linalg ops vectorized">,
    Statistic<"numSkipped", "num-skipped",
              "Number of linalg ops left to the loop lowering">
  ];
}

#endif // DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD

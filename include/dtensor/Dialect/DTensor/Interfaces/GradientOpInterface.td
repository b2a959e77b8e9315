//===- GradientOpInterface.td - per-op reverse-mode rules --*- tablegen -*-===//
//
// The one place an op's derivative lives: its reverse rule, which builds the
// adjoints of its operands from the adjoints of its results (PyTorch's
// derivatives.yaml for the formulas, Enzyme-MLIR's per-op reverse rules for
// the structure). `dtensor-autodiff` reaches ops only through it; upstream
// ops get it through external models (lib/Dialect/DTensor/Extensions).
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_INTERFACES_GRADIENTOPINTERFACE_TD
#define DTENSOR_DIALECT_DTENSOR_INTERFACES_GRADIENTOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let description = [{
    Reverse-mode derivative of an op on tensors. Given the adjoint of each
    result (the gradient of the loss with respect to it, of the result's
    type; null where the loss does not depend on that result), the rule
    builds, at the builder's insertion point (after every forward value, so
    forward values may be used), the adjoint of each operand marked
    `needed`: a value of the operand's type holding that operand's share of
    the gradient. `dtensor-autodiff` sums the shares of a value used
    several times. Operands that are not needed get a null adjoint.

    ```mlir
    // %y = linalg.matmul ins(%x, %w : ...) outs(%zero : ...)
    // adjoint of %w: sum over rows of x^T * adj(%y)
    %dw = linalg.generic {indexing_maps = [(m, n, k) -> (m, k),
        (m, n, k) -> (m, n), (m, n, k) -> (k, n)],
        iterator_types = ["reduction", "parallel", "parallel"]}
        ins(%x, %dy : ...) outs(%zeros : ...) { ... acc + dy * x ... }
    ```
  }];
  let cppNamespace = "::mlir::dtensor";

  let methods = [
    InterfaceMethod<[{
        Builds the adjoints of the operands marked in `needed` (one flag per
        operand) from `resultAdjoints` (one per result, null for a result
        the loss does not depend on) and appends one value per operand to
        `operandAdjoints` (null where not needed). Fails, after emitting an
        error on the op naming what it cannot differentiate, when no rule
        covers this instance.
      }],
      "::llvm::LogicalResult", "buildOperandAdjoints",
      (ins "::mlir::OpBuilder &":$builder,
           "::llvm::ArrayRef<::mlir::Value>":$resultAdjoints,
           "::llvm::ArrayRef<bool>":$needed,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandAdjoints)
    >,
  ];
}

#endif // DTENSOR_DIALECT_DTENSOR_INTERFACES_GRADIENTOPINTERFACE_TD

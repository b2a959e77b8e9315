//===- TextTable.h - aligned-column text tables -----------------*- C++ -*-===//
//
// The text reports print tables of strings: each column padded to its widest
// cell, two spaces between columns, the last column not padded.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_SUPPORT_TEXTTABLE_H
#define DTENSOR_SUPPORT_TEXTTABLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
namespace dtensor {

/// A table of string cells printed as aligned columns.
class TextTable {
public:
  /// A table whose first row is `header`; every row has its size.
  explicit TextTable(llvm::ArrayRef<std::string> header);

  /// Appends a row of `getNumColumns()` cells.
  void addRow(llvm::ArrayRef<std::string> cells);

  /// Number of columns.
  size_t getNumColumns() const { return widths.size(); }
  /// Number of rows, the header included.
  size_t getNumRows() const { return rows.size(); }

  /// Prints every row, each column padded to its widest cell and followed by
  /// `gap` spaces, except the last column, which is not padded.
  void print(llvm::raw_ostream &os, unsigned gap = 2) const;

private:
  llvm::SmallVector<llvm::SmallVector<std::string>> rows;
  llvm::SmallVector<size_t> widths;
};

/// `values` in decimal, separated by `separator`: "4096 4096 2048".
std::string joinIntegers(llvm::ArrayRef<int64_t> values,
                         llvm::StringRef separator = " ");

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_SUPPORT_TEXTTABLE_H

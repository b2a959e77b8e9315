//===- TextTable.cpp - aligned-column text tables -------------------------===//

#include "dtensor/Support/TextTable.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cassert>

using namespace mlir::dtensor;

TextTable::TextTable(llvm::ArrayRef<std::string> header)
    : widths(header.size(), 0) {
  addRow(header);
}

void TextTable::addRow(llvm::ArrayRef<std::string> cells) {
  assert(cells.size() == widths.size() && "one cell per column");
  rows.emplace_back(cells.begin(), cells.end());
  for (auto [width, cell] : llvm::zip_equal(widths, cells))
    width = std::max(width, cell.size());
}

void TextTable::print(llvm::raw_ostream &os, unsigned gap) const {
  for (const auto &row : rows) {
    for (size_t c = 0, e = row.size(); c < e; ++c) {
      os << row[c];
      if (c + 1 < e)
        os.indent(widths[c] - row[c].size() + gap);
    }
    os << "\n";
  }
}

std::string mlir::dtensor::joinIntegers(llvm::ArrayRef<int64_t> values,
                                        llvm::StringRef separator) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(values, os, separator);
  return s;
}

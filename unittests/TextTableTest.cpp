//===- TextTableTest.cpp - aligned-column text tables ---------------------===//

#include "dtensor/Support/TextTable.h"

#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace mlir::dtensor;

namespace {

std::string print(const TextTable &table, unsigned gap = 2) {
  std::string s;
  llvm::raw_string_ostream os(s);
  table.print(os, gap);
  return s;
}

TEST(TextTable, PadsColumnsToTheWidestCellButNotTheLast) {
  TextTable t({"value", "op", "bytes"});
  t.addRow({"%arg0", "block_argument", "4096 4096"});
  t.addRow({"%0", "linalg.matmul", "8"});
  EXPECT_EQ(print(t), "value  op              bytes\n"
                      "%arg0  block_argument  4096 4096\n"
                      "%0     linalg.matmul   8\n");
  EXPECT_EQ(t.getNumRows(), 3u);
  EXPECT_EQ(t.getNumColumns(), 3u);
}

TEST(TextTable, HeaderWiderThanCells) {
  TextTable t({"bucket", "ops"});
  t.addRow({"0", "12"});
  EXPECT_EQ(print(t, 1), "bucket ops\n0      12\n");
}

TEST(TextTable, HeaderOnlyAndEmptyCells) {
  TextTable t({"a", "b"});
  EXPECT_EQ(print(t), "a  b\n");
  t.addRow({"", ""});
  EXPECT_EQ(print(t), "a  b\n   \n");
}

TEST(JoinIntegers, Separators) {
  EXPECT_EQ(joinIntegers({}), "");
  EXPECT_EQ(joinIntegers({4096}), "4096");
  EXPECT_EQ(joinIntegers({1, -2, 3}), "1 -2 3");
  EXPECT_EQ(joinIntegers({1, 2}, ", "), "1, 2");
}

} // namespace

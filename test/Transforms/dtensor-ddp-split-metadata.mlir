// Fake tensors across submodule boundaries: the fake-tensor analysis of the
// split program gives every value the metadata (placements, local shapes) it
// had before the split, and needs exactly the collectives of the unsplit
// program, none at a boundary. Inputs/ddp_split_compare.py compares the
// --dtensor-fake-report JSON of the two programs (see its docstring).

// The RFC Block at 25, 4 and 1 MB.
// RUN: dtensor-opt %dtensor_src_root/examples/block.mlir --dtensor-fake-report="format=json output=%t.block.json" -o /dev/null
// RUN: dtensor-opt %dtensor_src_root/examples/block.mlir --dtensor-ddp-split=bucket-cap-mb=25 | dtensor-opt --dtensor-fake-report="format=json output=%t.block25.json" -o /dev/null
// RUN: %python %dtensor_src_root/test/Inputs/ddp_split_compare.py %t.block.json %t.block25.json block --submodules 2
// RUN: dtensor-opt %dtensor_src_root/examples/block.mlir --dtensor-ddp-split=bucket-cap-mb=4 | dtensor-opt --dtensor-fake-report="format=json output=%t.block4.json" -o /dev/null
// RUN: %python %dtensor_src_root/test/Inputs/ddp_split_compare.py %t.block.json %t.block4.json block --submodules 3
// RUN: dtensor-opt %dtensor_src_root/examples/block.mlir --dtensor-ddp-split=bucket-cap-mb=1 | dtensor-opt --dtensor-fake-report="format=json output=%t.block1.json" -o /dev/null
// RUN: %python %dtensor_src_root/test/Inputs/ddp_split_compare.py %t.block.json %t.block1.json block --submodules 6 | FileCheck %s --check-prefix=BLOCK1
// BLOCK1: ddp-split-compare: 6 submodules, 19 moved values, 0 collectives match

// The data-parallel Linear stack (uneven S(0) batch) and the one without a
// mesh.
// RUN: dtensor-opt %S/Inputs/ddp-split/linear4.mlir --dtensor-fake-report="format=json output=%t.lin4.json" -o /dev/null
// RUN: dtensor-opt %S/Inputs/ddp-split/linear4.mlir --dtensor-ddp-split=bucket-cap-mb=3.5 | dtensor-opt --dtensor-fake-report="format=json output=%t.lin4.split.json" -o /dev/null
// RUN: %python %dtensor_src_root/test/Inputs/ddp_split_compare.py %t.lin4.json %t.lin4.split.json linear4 --submodules 4
// RUN: dtensor-opt %S/Inputs/ddp-split/linear1024x2.mlir --dtensor-fake-report="format=json output=%t.lin2.json" -o /dev/null
// RUN: dtensor-opt %S/Inputs/ddp-split/linear1024x2.mlir --dtensor-ddp-split=bucket-cap-mb=4 | dtensor-opt --dtensor-fake-report="format=json output=%t.lin2.split.json" -o /dev/null
// RUN: %python %dtensor_src_root/test/Inputs/ddp_split_compare.py %t.lin2.json %t.lin2.split.json linear1024x2 --submodules 2

// The where layer: its broadcast constants are recreated values too.
// RUN: dtensor-opt %S/Inputs/ddp-split/where_model.mlir --dtensor-fake-report="format=json output=%t.where.json" -o /dev/null
// RUN: dtensor-opt %S/Inputs/ddp-split/where_model.mlir --dtensor-ddp-split="bucket-cap-mb=0.003 first-bucket-cap-mb=0.003" | dtensor-opt --dtensor-fake-report="format=json output=%t.where.split.json" -o /dev/null
// RUN: %python %dtensor_src_root/test/Inputs/ddp_split_compare.py %t.where.json %t.where.split.json where_model --submodules 3 --created linalg.broadcast

// Megatron layers: a P(sum) value crosses a boundary with its P(sum) spec
// and is all-reduced inside the submodule that reads it replicated; the
// last one is all-reduced in the caller for the requested result.
// RUN: dtensor-opt %S/Inputs/ddp-split/megatron2.mlir --dtensor-fake-report="format=json output=%t.mega.json" -o /dev/null
// RUN: dtensor-opt %S/Inputs/ddp-split/megatron2.mlir --dtensor-ddp-split="bucket-cap-mb=0.05 first-bucket-cap-mb=0.05" | dtensor-opt --dtensor-fake-report="format=json output=%t.mega.split.json" -o /dev/null
// RUN: %python %dtensor_src_root/test/Inputs/ddp_split_compare.py %t.mega.json %t.mega.split.json ddp_mlp --submodules 4
// RUN: %jsonq %t.mega.split.json \
// RUN:   'fn("ddp_mlp_submod_1")["returns"][0]["placements"] == ["P(sum)"]' \
// RUN:   'fn("ddp_mlp_submod_2")["values"][0]["placements"] == ["P(sum)"]' \
// RUN:   'kinds(fn("ddp_mlp_submod_2")) == ["all_reduce"]' \
// RUN:   'kinds(fn("ddp_mlp")) == ["all_reduce"]' \
// RUN:   'kinds(fn("ddp_mlp_submod_0")) == kinds(fn("ddp_mlp_submod_1")) == kinds(fn("ddp_mlp_submod_3")) == []'

// After --dtensor-fake-propagate (explicit redistributions, recreated
// values in their users' placements) the split keeps the metadata too.
// RUN: dtensor-opt %S/Inputs/ddp-split/megatron2.mlir --dtensor-fake-propagate | dtensor-opt --dtensor-fake-report="format=json output=%t.megap.json" -o /dev/null
// RUN: dtensor-opt %S/Inputs/ddp-split/megatron2.mlir --dtensor-fake-propagate --dtensor-ddp-split="bucket-cap-mb=0.05 first-bucket-cap-mb=0.05" | dtensor-opt --dtensor-fake-report="format=json output=%t.megap.split.json" -o /dev/null
// RUN: %python %dtensor_src_root/test/Inputs/ddp_split_compare.py %t.megap.json %t.megap.split.json ddp_mlp --submodules 4
// RUN: dtensor-opt %S/Inputs/ddp-split/linear4.mlir --dtensor-fake-propagate | dtensor-opt --dtensor-fake-report="format=json output=%t.lin4p.json" -o /dev/null
// RUN: dtensor-opt %S/Inputs/ddp-split/linear4.mlir --dtensor-fake-propagate --dtensor-ddp-split=bucket-cap-mb=3.5 | dtensor-opt --dtensor-fake-report="format=json output=%t.lin4p.split.json" -o /dev/null
// RUN: %python %dtensor_src_root/test/Inputs/ddp_split_compare.py %t.lin4p.json %t.lin4p.split.json linear4 --submodules 4

// The split program is already annotated: propagation adds nothing.
// RUN: dtensor-opt %dtensor_src_root/examples/block.mlir --dtensor-ddp-split=bucket-cap-mb=1 -o %t.b1.mlir
// RUN: dtensor-opt %t.b1.mlir --dtensor-fake-propagate -o %t.b1p.mlir
// RUN: diff %t.b1.mlir %t.b1p.mlir

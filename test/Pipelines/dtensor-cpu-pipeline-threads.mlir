// dtensor-cpu-pipeline threads=2 on the RFC Block (4 ranks): the softmax's
// fused row loop (dtensor-fuse-rows) and the three vectorized loops over a
// parallel outermost dim (the scale, the residual adds, ...) are split into
// 2 chunks each, the row loop before buffer-loop-hoisting (its row buffers
// are allocated per chunk, inside the parallel loop), and become OpenMP
// worksharing loops of 2 threads. threads=1 (the default) makes no OpenMP.
// RUN: dtensor-opt %dtensor_src_root/examples/block.mlir --dtensor-cpu-pipeline="threads=2" --mlir-print-ir-after=dtensor-parallelize-loops,buffer-loop-hoisting -o %t.mlir 2> %t.dump.mlir
// RUN: FileCheck %s --check-prefix=ROWS < %t.dump.mlir
// RUN: FileCheck %s --check-prefix=OMP < %t.mlir
// RUN: dtensor-opt %dtensor_src_root/examples/block.mlir --dtensor-cpu-pipeline | FileCheck %s --check-prefix=SERIAL

// The row loop: 2 chunks, the chunk's row loop inside; after hoisting its
// row-sized buffers sit in the parallel body, not above it.
// ROWS-LABEL: IR Dump After DTensorParallelizeLoops
// ROWS:       %[[TWO:.*]] = arith.constant 2 : index
// ROWS:       scf.parallel ({{.*}}) = ({{.*}}) to (%[[TWO]])
// ROWS-NEXT:    arith.muli
// ROWS:         scf.for
// ROWS-NOT:   scf.parallel
// ROWS-LABEL: IR Dump After BufferLoopHoisting
// ROWS-NOT:   memref.alloc() {{.*}} : memref<1x1x1x128xf32>
// ROWS:       scf.parallel
// ROWS:         memref.alloc() {{.*}} : memref<1x1x1x128xf32>
// ROWS:         scf.for

// OMP-LABEL: llvm.func @block(
// OMP-COUNT-4: omp.parallel num_threads
// OMP-NOT:   omp.parallel
// OMP:       llvm.return

// SERIAL-NOT: omp.

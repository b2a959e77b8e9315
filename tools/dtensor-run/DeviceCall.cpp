//===- DeviceCall.cpp - running the entry on a CUDA GPU -------------------===//

#include "DeviceCall.h"

#include "Jit.h"

#include "dtrt/dtrt.h"
#ifdef DTRT_HAS_CUDA
#include "dtrt/dtrt_cuda.h"
#include "dtrt/dtrt_nccl.h"
#endif

#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace dtensor_run;

#ifndef DTRT_HAS_CUDA

namespace {
[[noreturn]] void noCudaPart() {
  fail("--backend cuda: this build of the runtime has no CUDA part "
       "(configure with -DDTENSOR_ENABLE_CUDA=ON and the CUDA toolkit)");
}
} // namespace

void dtensor_run::checkCudaBackend(const Options &) { noCudaPart(); }

void dtensor_run::initCudaRank() { noCudaPart(); }

void dtensor_run::finalizeCudaRank() { noCudaPart(); }

std::vector<HostArray> dtensor_run::callEntryOnDevice(
    ExecutionEngine &, StringRef, const std::vector<HostArray> &,
    const std::vector<TensorLayout> &, int, double &) {
  noCudaPart();
}

#else

namespace {
/// Exits with "<what>: <the runtime's message>" unless `status` is DTRT_OK.
void check(int32_t status, const llvm::Twine &what) {
  if (status != DTRT_OK)
    fail(what + ": " + dtrt_last_error());
}

/// The device buffers of one call's inputs.
struct DeviceInputs {
  std::vector<void *> buffers;

  explicit DeviceInputs(const std::vector<HostArray> &inputs) {
    for (const HostArray &a : inputs) {
      void *device = nullptr;
      int64_t bytes = static_cast<int64_t>(a.data.size());
      check(dtrt_cuda_alloc(&device, bytes), "copying the inputs");
      buffers.push_back(device);
    }
    upload(inputs);
  }
  ~DeviceInputs() {
    for (void *device : buffers)
      dtrt_cuda_free(device);
  }
  /// Copies `inputs` over the device buffers (the call may write to them).
  void upload(const std::vector<HostArray> &inputs) {
    for (auto [device, a] : llvm::zip(buffers, inputs))
      check(dtrt_cuda_copy_to_device(device, a.data.data(),
                                     static_cast<int64_t>(a.data.size())),
            "copying the inputs");
  }
};

/// Copies the device memref described by `words` (rank `rank`, possibly
/// strided) to a row-major host array.
HostArray downloadResult(const int64_t *words, int64_t rank, dtrt_dtype dtype) {
  int64_t last = words[2]; // offset of the last element
  for (int64_t d = 0; d < rank; ++d) {
    if (words[3 + d] == 0)
      return HostArray(dtype, llvm::ArrayRef<int64_t>(words + 3, rank));
    last += (words[3 + d] - 1) * words[3 + rank + d];
  }
  std::vector<char> staging((last + 1) * elementSize(dtype));
  check(dtrt_cuda_copy_to_host(staging.data(),
                               reinterpret_cast<const void *>(words[1]),
                               static_cast<int64_t>(staging.size())),
        "copying the results");
  std::vector<int64_t> local(words, words + 3 + 2 * rank);
  local[0] = local[1] = reinterpret_cast<int64_t>(staging.data());
  return copyStridedResult(local.data(), rank, dtype);
}

/// Returns the results' device buffers to the pool, once each, except those
/// that are the inputs' own.
void freeResults(const std::vector<int64_t> &words,
                 const std::vector<TensorLayout> &results,
                 const DeviceInputs &inputs) {
  llvm::DenseSet<void *> done(inputs.buffers.begin(), inputs.buffers.end());
  size_t w = 0;
  for (const TensorLayout &r : results) {
    void *allocated = reinterpret_cast<void *>(words[w]);
    if (done.insert(allocated).second)
      check(dtrt_cuda_free(allocated), "freeing the results");
    w += 3 + 2 * r.shape.size();
  }
}
} // namespace

void dtensor_run::checkCudaBackend(const Options &options) {
  int32_t count = 0;
  check(dtrt_cuda_device_count(&count), "--backend cuda");
  if (options.numRanks > count)
    fail("--backend cuda runs one rank per GPU (NCCL refuses two ranks on "
         "one GPU): --np is " +
         llvm::Twine(options.numRanks) + " but this machine has " +
         llvm::Twine(count) + " CUDA device" + (count == 1 ? "" : "s"));
  if (!PassPipelineInfo::lookup("dtensor-gpu-pipeline"))
    fail("--backend cuda: this build registers no dtensor-gpu-pipeline");
}

void dtensor_run::initCudaRank() {
  check(dtrt_cuda_init(), "--backend cuda");
  check(dtrt_nccl_init(), "--backend cuda");
}

void dtensor_run::finalizeCudaRank() {
  check(dtrt_nccl_finalize(), "--backend cuda");
}

std::vector<HostArray>
dtensor_run::callEntryOnDevice(ExecutionEngine &engine, StringRef entry,
                               const std::vector<HostArray> &inputs,
                               const std::vector<TensorLayout> &results,
                               int iters, double &seconds) {
  DeviceInputs device(inputs);
  std::vector<int64_t> resultWords;
  seconds = 0;
  for (int it = 0; it < std::max(1, iters); ++it) {
    if (it > 0) {
      freeResults(resultWords, results, device);
      device.upload(inputs);
    }
    int64_t start = 0, end = 0;
    check(dtrt_cuda_record(&start), "timing the call");
    dtrt_span_begin(entry.str().c_str(), DTRT_SPAN_COMPUTE);
    resultWords = invokeEntry(engine, entry, device.buffers, inputs, results);
    check(dtrt_cuda_record(&end), "timing the call");
    // The span covers the GPU work: the host waits for the stream in it.
    check(dtrt_cuda_synchronize(), "calling @" + entry);
    check(dtrt_nccl_synchronize(), "calling @" + entry);
    dtrt_span_end();
    double us = 0;
    check(dtrt_cuda_elapsed_us(start, end, &us), "timing the call");
    seconds = it == 0 ? us * 1e-6 : std::min(seconds, us * 1e-6);
  }
  std::vector<HostArray> out;
  size_t w = 0;
  for (const TensorLayout &r : results) {
    int64_t rank = static_cast<int64_t>(r.shape.size());
    out.push_back(downloadResult(resultWords.data() + w, rank, r.dtype));
    w += 3 + 2 * rank;
  }
  freeResults(resultWords, results, device);
  return out;
}

#endif

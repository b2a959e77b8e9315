/*===- dtrt_nccl.h - dtensor runtime NCCL backend ---------------*- C -*-===*\
|*                                                                            *|
|* Collectives on CUDA device buffers over NCCL, one NCCL communicator per    *|
|* mesh-axis group (the same groups and group ranks as dtrt.h). Present only  *|
|* when the runtime is built with DTENSOR_ENABLE_CUDA (DTRT_HAS_NCCL is then  *|
|* defined for users of the dtrt CMake target).                               *|
|*                                                                            *|
|* Ordering: every collective first makes the communication stream wait for   *|
|* the work already enqueued on the compute stream (see                       *|
|* dtrt_nccl_set_compute_stream), then runs on the communication stream. The  *|
|* synchronous forms return once the collective has finished; the `_start`    *|
|* forms return at once and `dtrt_nccl_wait` makes the compute stream wait    *|
|* for the collective without blocking the host.                              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef DTRT_DTRT_NCCL_H
#define DTRT_DTRT_NCCL_H

#include "dtrt/dtrt.h"

#if defined(__cplusplus)
extern "C" {
#endif

/// Initialises the NCCL backend after dtrt_init: selects CUDA device
/// (node-local rank mod device count), creates the communication stream and
/// one NCCL communicator per axis group, bootstrapped by broadcasting an
/// ncclUniqueId from group rank 0 over the group's MPI communicator.
/// Collective over the world. Fails with DTRT_ERR_CUDA (naming the failing
/// CUDA call) on a machine without a usable device.
DTRT_EXPORT int32_t dtrt_nccl_init(void);

/// Destroys the NCCL communicators, events and the communication stream.
DTRT_EXPORT int32_t dtrt_nccl_finalize(void);

/// Sets the compute stream (a cudaStream_t; null is the legacy default
/// stream) that collectives are ordered after and that dtrt_nccl_wait makes
/// wait.
DTRT_EXPORT int32_t dtrt_nccl_set_compute_stream(void *stream);

/// Stores the communication stream (a cudaStream_t) in `*stream`.
DTRT_EXPORT int32_t dtrt_nccl_comm_stream(void **stream);

/// dtrt_all_reduce on device buffers; DTRT_AVG uses ncclAvg. i1 supports
/// max (or) and min (and) only.
DTRT_EXPORT int32_t dtrt_nccl_all_reduce(const void *in, void *out,
                                         int64_t count, int32_t dtype,
                                         int32_t op, uint64_t axes_mask);

/// dtrt_all_gather on device buffers (same block layout).
DTRT_EXPORT int32_t dtrt_nccl_all_gather(const void *in, void *out,
                                         int64_t count_per_rank, int32_t dtype,
                                         uint64_t axes_mask);

/// dtrt_reduce_scatter on device buffers (same block layout).
DTRT_EXPORT int32_t dtrt_nccl_reduce_scatter(const void *in, void *out,
                                             int64_t count_per_rank,
                                             int32_t dtype, int32_t op,
                                             uint64_t axes_mask);

/// dtrt_all_to_all on device buffers (grouped ncclSend/ncclRecv); `in` and
/// `out` must not overlap.
DTRT_EXPORT int32_t dtrt_nccl_all_to_all(const void *in, void *out,
                                         int64_t count_per_rank, int32_t dtype,
                                         uint64_t axes_mask);

/// dtrt_broadcast on a device buffer.
DTRT_EXPORT int32_t dtrt_nccl_broadcast(void *buf, int64_t count, int32_t dtype,
                                        int32_t root_group_rank,
                                        uint64_t axes_mask);

/// Starts dtrt_nccl_all_reduce and stores a request handle in `*request`.
DTRT_EXPORT int32_t dtrt_nccl_all_reduce_start(const void *in, void *out,
                                               int64_t count, int32_t dtype,
                                               int32_t op, uint64_t axes_mask,
                                               int64_t *request);

/// Starts dtrt_nccl_all_gather and stores a request handle in `*request`.
DTRT_EXPORT int32_t dtrt_nccl_all_gather_start(const void *in, void *out,
                                               int64_t count_per_rank,
                                               int32_t dtype,
                                               uint64_t axes_mask,
                                               int64_t *request);

/// Starts dtrt_nccl_reduce_scatter and stores a request handle in
/// `*request`.
DTRT_EXPORT int32_t dtrt_nccl_reduce_scatter_start(const void *in, void *out,
                                                   int64_t count_per_rank,
                                                   int32_t dtype, int32_t op,
                                                   uint64_t axes_mask,
                                                   int64_t *request);

/// Starts dtrt_nccl_all_to_all and stores a request handle in `*request`.
DTRT_EXPORT int32_t dtrt_nccl_all_to_all_start(const void *in, void *out,
                                               int64_t count_per_rank,
                                               int32_t dtype,
                                               uint64_t axes_mask,
                                               int64_t *request);

/// Starts dtrt_nccl_broadcast and stores a request handle in `*request`.
DTRT_EXPORT int32_t dtrt_nccl_broadcast_start(void *buf, int64_t count,
                                              int32_t dtype,
                                              int32_t root_group_rank,
                                              uint64_t axes_mask,
                                              int64_t *request);

/// Makes the compute stream wait for the collective of `request` and
/// releases the handle; the host does not block.
DTRT_EXPORT int32_t dtrt_nccl_wait(int64_t request);

/// Blocks the host until every collective enqueued so far has finished.
DTRT_EXPORT int32_t dtrt_nccl_synchronize(void);

#if defined(__cplusplus)
} /* extern "C" */
#endif

#endif /* DTRT_DTRT_NCCL_H */

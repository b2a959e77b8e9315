/*===- dtrt.h - dtensor runtime C ABI ---------------------------*- C -*-===*\
|*                                                                            *|
|* The C ABI that compiled dtensor programs call: initialisation of the rank  *|
|* mesh, one communicator per mesh-axis group, collectives on raw buffers     *|
|* (synchronous and asynchronous), and timing spans written as a              *|
|* Chrome/Perfetto trace. No MLIR dependency.                                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef DTRT_DTRT_H
#define DTRT_DTRT_H

#include <stdint.h>

#if defined(_WIN32)
#define DTRT_EXPORT __declspec(dllexport)
#else
#define DTRT_EXPORT __attribute__((visibility("default")))
#endif

#if defined(__cplusplus)
#define DTRT_NORETURN [[noreturn]]
extern "C" {
#else
#define DTRT_NORETURN _Noreturn
#endif

/*===----------------------------------------------------------------------===*\
|* Conventions                                                                *|
|*                                                                            *|
|* - Every function that can fail returns an `int32_t` status: 0 (DTRT_OK) on *|
|*   success, a `dtrt_status` code otherwise. `dtrt_last_error()` then names  *|
|*   the failing call and the library's message, e.g.                         *|
|*   "MPI_Allreduce: MPI_ERR_TRUNCATE: message truncated". The query         *|
|*   functions (`dtrt_rank`, `dtrt_world_size`, `dtrt_mesh_coord`,            *|
|*   `dtrt_group_size`, `dtrt_group_rank`) return their value directly and    *|
|*   -1 on error.                                                             *|
|* - The mesh is row-major: the world rank of the mesh coordinate (c0..cn-1)  *|
|*   is sum(ci * stride_i) with the last axis varying fastest.                *|
|* - `axes_mask` selects mesh axes: bit i set means axis i. The group of a    *|
|*   rank for axes A is the set of ranks sharing every coordinate outside A;  *|
|*   the rank of a member inside its group is the row-major index of its     *|
|*   coordinates on the axes of A (in increasing axis order). Group rank r    *|
|*   holds the r-th shard, as the compiler numbers them. A mask of 0 is the   *|
|*   rank alone; the mask of all axes is the world in world-rank order.       *|
|* - Counts are element counts. Buffers are host memory.                      *|
|* - Collectives are collective over the group: every member must call the    *|
|*   same collective with the same count, dtype, op and mask, in the same     *|
|*   order. The library is meant for one calling thread per rank (MPI is      *|
|*   initialised with MPI_THREAD_SERIALIZED, or MPI_THREAD_MULTIPLE for the   *|
|*   progress thread of asynchronous collectives).                           *|
|* - Every collective records a comm span (see Tracing) named after itself.   *|
\*===----------------------------------------------------------------------===*/

/// Status codes returned by the runtime.
typedef enum dtrt_status {
  DTRT_OK = 0,
  /// An argument is out of range (dtype, op, mask, count, root, ...).
  DTRT_ERR_INVALID_ARGUMENT = 1,
  /// The runtime is not initialised, or is initialised twice.
  DTRT_ERR_STATE = 2,
  /// The mesh does not match the MPI world.
  DTRT_ERR_MESH = 3,
  /// An MPI call failed.
  DTRT_ERR_MPI = 4,
  /// A CUDA runtime call failed.
  DTRT_ERR_CUDA = 5,
  /// An NCCL call failed.
  DTRT_ERR_NCCL = 6,
  /// A file could not be written.
  DTRT_ERR_IO = 7,
} dtrt_status;

/// The element types of collective buffers, one row each:
/// X(enumerator, code, byte size, MLIR name, NumPy descr). This table is the
/// only list of element types: the runtime, the runner (dtensor-run) and the
/// lowering derive theirs from it. `DTRT_I1` is one byte per element holding
/// 0 or 1 (MLIR's storage of i1). `DTRT_F16` is IEEE half and `DTRT_BF16`
/// bfloat16 (the upper 16 bits of an f32); NumPy has no bfloat16, so its
/// descr column is the raw bits ("<u2", see the runner for .npy files).
/// Codes are ABI: never renumber a row.
#define DTRT_FOR_EACH_DTYPE(X)                                                 \
  X(DTRT_F32, 0, 4, "f32", "<f4")                                              \
  X(DTRT_F64, 1, 8, "f64", "<f8")                                              \
  X(DTRT_I32, 2, 4, "i32", "<i4")                                              \
  X(DTRT_I64, 3, 8, "i64", "<i8")                                              \
  X(DTRT_I8, 4, 1, "i8", "|i1")                                                \
  X(DTRT_I1, 5, 1, "i1", "|b1")                                                \
  X(DTRT_I16, 6, 2, "i16", "<i2")                                              \
  X(DTRT_F16, 7, 2, "f16", "<f2")                                              \
  X(DTRT_BF16, 8, 2, "bf16", "<u2")

/// Element types of collective buffers (see DTRT_FOR_EACH_DTYPE).
typedef enum dtrt_dtype {
#define DTRT_DTYPE_ENUMERATOR(E, CODE, SIZE, MLIR, NPY) E = CODE,
  DTRT_FOR_EACH_DTYPE(DTRT_DTYPE_ENUMERATOR)
#undef DTRT_DTYPE_ENUMERATOR
} dtrt_dtype;

/// The number of rows of DTRT_FOR_EACH_DTYPE; codes are 0..DTRT_NUM_DTYPES-1.
#define DTRT_NUM_DTYPES 9

/// The largest number of mesh axes (every axes mask fits in a uint64_t).
#define DTRT_MAX_MESH_AXES 16
/// The largest number of devices of a mesh (the compiler's limit, 2^16).
#define DTRT_MAX_MESH_DEVICES 65536

/// Reduction operations. `DTRT_AVG` is the sum divided by the group size and
/// is only defined for float dtypes. On `DTRT_I1`, sum is exclusive or (i1
/// addition), max is logical or and min is logical and.
typedef enum dtrt_reduce_op {
  DTRT_SUM = 0,
  DTRT_AVG = 1,
  DTRT_MAX = 2,
  DTRT_MIN = 3,
} dtrt_reduce_op;

/// Kinds of trace spans; they become the trace's thread ids.
typedef enum dtrt_span_kind {
  DTRT_SPAN_COMPUTE = 0,
  DTRT_SPAN_COMM = 1,
} dtrt_span_kind;

/*===-- Errors
 * -------------------------------------------------------------===*/

/// Returns the message of the last failed call on this thread, or "" when
/// none failed. The pointer is valid until the next failing call.
DTRT_EXPORT const char *dtrt_last_error(void);

/// When `enabled` is non-zero, any failing call prints its message and aborts
/// every rank (as `dtrt_abort`) instead of returning a status. Also enabled by
/// the environment variable DTRT_ABORT_ON_ERROR=1. Returns DTRT_OK.
DTRT_EXPORT int32_t dtrt_set_abort_on_error(int32_t enabled);

/// Prints "dtrt: rank R: <msg>" to stderr and aborts every rank of the job
/// (MPI_Abort on the world), so that a failing rank never leaves the others
/// waiting in a collective. Exits the process when MPI is not initialised.
DTRT_EXPORT DTRT_NORETURN void dtrt_abort(const char *msg);

/*===-- Initialisation
 * -----------------------------------------------------===*/

/// Initialises the runtime on a mesh of `mesh_rank` axes whose sizes are
/// `mesh_shape[0..mesh_rank)`. Initialises MPI (MPI_Init_thread) unless the
/// caller already did, checks that the world size equals the product of the
/// mesh shape (DTRT_ERR_MESH otherwise; the message names the mesh and the
/// world size) and creates the axis-group communicators. Collective over the
/// world. After a failure the call may be repeated with a correct mesh.
DTRT_EXPORT int32_t dtrt_init(int32_t mesh_rank, const int64_t *mesh_shape);

/// Releases the communicators and pending requests and finalises MPI if
/// `dtrt_init` initialised it. Collective over the world. The runtime cannot
/// be initialised again afterwards when MPI was finalised.
DTRT_EXPORT int32_t dtrt_finalize(void);

/// Returns this process's world rank, -1 before `dtrt_init`.
DTRT_EXPORT int32_t dtrt_rank(void);

/// Returns the number of ranks, -1 before `dtrt_init`.
DTRT_EXPORT int32_t dtrt_world_size(void);

/// Returns this rank's coordinate on mesh axis `axis`, -1 on error.
DTRT_EXPORT int32_t dtrt_mesh_coord(int32_t axis);

/// Names the mesh axes (`names[0..count)`, `count` the mesh rank) for the
/// trace: collectives then carry `axis_names` next to their `axes` mask.
/// Without names an axis is called by its number ("0", "1", ...). Call after
/// `dtrt_init`; the names are copied.
DTRT_EXPORT int32_t dtrt_set_axis_names(int32_t count,
                                        const char *const *names);

/// Returns the number of ranks in this rank's group for `axes_mask` (the
/// product of the selected axes' sizes), -1 on error.
DTRT_EXPORT int32_t dtrt_group_size(uint64_t axes_mask);

/// Returns this rank's rank inside its group for `axes_mask`, -1 on error.
DTRT_EXPORT int32_t dtrt_group_rank(uint64_t axes_mask);

/*===-- Collectives
 * --------------------------------------------------------===*/

/// Reduces `count` elements of `in` over the group of `axes_mask` with `op`
/// into `out` on every member. `in == out` reduces in place.
DTRT_EXPORT int32_t dtrt_all_reduce(const void *in, void *out, int64_t count,
                                    int32_t dtype, int32_t op,
                                    uint64_t axes_mask);

/// Gathers `count_per_rank` elements from every member into `out` on every
/// member. Layout: `out` is the concatenation of equal blocks of
/// `count_per_rank` elements in group-rank order (block r comes from group
/// rank r), i.e. a gather along the leading dimension of a row-major buffer.
/// Gathering another dimension d is done by the caller, either by moving d to
/// the front before the call and back after it, or by reading `out` as the
/// shape [group_size, <local shape>] and transposing group_size next to d.
/// `in == out + group_rank * count_per_rank` gathers in place.
DTRT_EXPORT int32_t dtrt_all_gather(const void *in, void *out,
                                    int64_t count_per_rank, int32_t dtype,
                                    uint64_t axes_mask);

/// Reduces `group_size * count_per_rank` elements of `in` with `op` and
/// leaves block r (elements [r * count_per_rank, (r + 1) * count_per_rank)) of
/// the result in `out` of group rank r: the inverse layout of
/// `dtrt_all_gather`. `in` and `out` must not overlap.
DTRT_EXPORT int32_t dtrt_reduce_scatter(const void *in, void *out,
                                        int64_t count_per_rank, int32_t dtype,
                                        int32_t op, uint64_t axes_mask);

/// Sends block j of `in` (`count_per_rank` elements each, `group_size`
/// blocks) to group rank j, which stores it as block i of `out`, where i is
/// the sender's group rank. `in == out` exchanges in place (through a copy).
DTRT_EXPORT int32_t dtrt_all_to_all(const void *in, void *out,
                                    int64_t count_per_rank, int32_t dtype,
                                    uint64_t axes_mask);

/// Copies `count` elements of `buf` on group rank `root_group_rank` to `buf`
/// on every other member of the group.
DTRT_EXPORT int32_t dtrt_broadcast(void *buf, int64_t count, int32_t dtype,
                                   int32_t root_group_rank, uint64_t axes_mask);

/*===-- Asynchronous collectives
 * -------------------------------------------===*/
/* Each `_start` form begins the collective of the same name and stores a    */
/* request handle (> 0) in `*request`. The input buffer may be reused or      */
/* freed as soon as `_start` returns (the runtime works in `out` or on its    */
/* own copy); `out` (and `buf` of a broadcast) must stay untouched until      */
/* `dtrt_wait` on that handle returns.                                        */
/*                                                                            */
/* Progress: MPI advances a non-blocking collective only inside MPI calls.    */
/* The environment variable DTRT_PROGRESS, read by `dtrt_init`, chooses how:  */
/*   thread (default)  a progress thread tests the pending requests (MPI is   */
/*                     initialised with MPI_THREAD_MULTIPLE; where MPI cannot */
/*                     give it, `test` is used);                              */
/*   test              every `_start`, `dtrt_span_begin/end` and              */
/*                     `dtrt_progress` call tests them;                       */
/*   none              they advance in MPI calls only (mostly `dtrt_wait`).   */
/* The comm span of an asynchronous collective runs from its start to its     */
/* completion as the progress engine saw it (the end of the wait with         */
/* `none`); its `blocked_us` argument is the time spent inside `dtrt_wait`.   */

/// Starts `dtrt_all_reduce`; for DTRT_AVG the division happens in dtrt_wait.
DTRT_EXPORT int32_t dtrt_all_reduce_start(const void *in, void *out,
                                          int64_t count, int32_t dtype,
                                          int32_t op, uint64_t axes_mask,
                                          int64_t *request);

/// Starts `dtrt_all_gather`.
DTRT_EXPORT int32_t dtrt_all_gather_start(const void *in, void *out,
                                          int64_t count_per_rank, int32_t dtype,
                                          uint64_t axes_mask, int64_t *request);

/// Starts `dtrt_reduce_scatter`; for DTRT_AVG the division happens in
/// dtrt_wait.
DTRT_EXPORT int32_t dtrt_reduce_scatter_start(const void *in, void *out,
                                              int64_t count_per_rank,
                                              int32_t dtype, int32_t op,
                                              uint64_t axes_mask,
                                              int64_t *request);

/// Starts `dtrt_all_to_all`.
DTRT_EXPORT int32_t dtrt_all_to_all_start(const void *in, void *out,
                                          int64_t count_per_rank, int32_t dtype,
                                          uint64_t axes_mask, int64_t *request);

/// Starts `dtrt_broadcast`.
DTRT_EXPORT int32_t dtrt_broadcast_start(void *buf, int64_t count,
                                         int32_t dtype, int32_t root_group_rank,
                                         uint64_t axes_mask, int64_t *request);

/// Completes the collective of `request` and releases the handle. Waiting on
/// an unknown or already completed handle is DTRT_ERR_INVALID_ARGUMENT.
DTRT_EXPORT int32_t dtrt_wait(int64_t request);

/// Tests every pending request once (the `test` progress engine; a no-op
/// with the others). Returns DTRT_OK.
DTRT_EXPORT int32_t dtrt_progress(void);

/// The progress engine in use: 0 none, 1 test, 2 thread; -1 before
/// `dtrt_init`.
DTRT_EXPORT int32_t dtrt_progress_mode(void);

/*===-- Tracing
 * ------------------------------------------------------------===*/

/// Opens a span named `name` of kind `kind` (a `dtrt_span_kind`). Spans nest;
/// times are microseconds since `dtrt_init` (MPI_Wtime, ranks aligned by a
/// barrier there).
DTRT_EXPORT int32_t dtrt_span_begin(const char *name, int32_t kind);

/// Closes the innermost open span and records it.
DTRT_EXPORT int32_t dtrt_span_end(void);

/// Turns recording of spans (user and automatic) on or off; on by default.
DTRT_EXPORT int32_t dtrt_trace_enable(int32_t enabled);

/// Drops every span recorded so far on this rank.
DTRT_EXPORT int32_t dtrt_trace_clear(void);

/// Gathers the spans of every rank to rank 0, which writes `path` as
/// Chrome/Perfetto trace JSON: {"traceEvents": [...]} with one complete event
/// (ph "X") per span, pid = world rank, tid = kind (0 compute, 1 comm), ts and
/// dur in microseconds; collectives carry args {bytes, axes, axis_names,
/// blocked_us} (`axes` the mask, `axis_names` the names of its axes in axis
/// order, see `dtrt_set_axis_names`)
/// (`blocked_us`: the time the caller waited for it, its exposed time: the
/// whole span when synchronous, the time in dtrt_wait when asynchronous).
/// Collective over
/// the world; every rank returns rank 0's status.
DTRT_EXPORT int32_t dtrt_trace_write(const char *path);

#if defined(__cplusplus)
} /* extern "C" */
#endif

#endif /* DTRT_DTRT_H */

//===-- dtensor-c/DTensor.h - C API of dtensor-mlir ---------------*- C -*-===//
//
// A small C API over dtensor-mlir, the one the Python package binds: a
// context with every dialect, external model and pass registered, modules
// parsed from text (or bytecode) and printed as text, textual pass
// pipelines, the fake-tensor report as JSON and the CPU pipeline.
//
// Modelled on upstream's mlir-c/IR.h: opaque handles passed by value,
// `dtensor<Type><Action>` names. Nothing here aborts on bad input: every
// function that can fail returns a null handle or a failed
// DtensorLogicalResult and hands back the diagnostics as text.
//
// Strings: every `char *` this API returns (directly or through a `char **`
// out-parameter) is NUL-terminated, malloc'ed and owned by the caller, who
// releases it with dtensorStringFree. A `char **diagnostics` parameter may
// be NULL to discard the diagnostics; otherwise it always receives a string
// (empty when nothing was emitted), one line per diagnostic and note, e.g.
// `input.mlir:3:8: error: no sharding rule for 'tensor.gather'; ...`.
//
// Threads: a context and its modules are used by one thread at a time.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_C_DTENSOR_H
#define DTENSOR_C_DTENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) || defined(__CYGWIN__)
#if DTENSOR_CAPI_BUILDING_LIBRARY
#define DTENSOR_CAPI_EXPORTED __declspec(dllexport)
#else
#define DTENSOR_CAPI_EXPORTED __declspec(dllimport)
#endif
#else
#define DTENSOR_CAPI_EXPORTED __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// Handles and results
//===----------------------------------------------------------------------===//

#define DTENSOR_DEFINE_C_API_STRUCT(name, storage)                             \
  struct name {                                                                \
    storage *ptr;                                                              \
  };                                                                           \
  typedef struct name name

/// An MLIR context with dtensor-mlir and the upstream dialects registered.
DTENSOR_DEFINE_C_API_STRUCT(DtensorContext, void);
/// A `builtin.module` owned by the caller, living in one DtensorContext.
DTENSOR_DEFINE_C_API_STRUCT(DtensorModule, void);

#undef DTENSOR_DEFINE_C_API_STRUCT

/// Success or failure of an operation (upstream's MlirLogicalResult).
typedef struct DtensorLogicalResult {
  int8_t value;
} DtensorLogicalResult;

/// True if `result` is a success.
static inline bool dtensorLogicalResultIsSuccess(DtensorLogicalResult result) {
  return result.value != 0;
}

/// True if `result` is a failure.
static inline bool dtensorLogicalResultIsFailure(DtensorLogicalResult result) {
  return result.value == 0;
}

/// Releases a string returned by this API. NULL is allowed.
DTENSOR_CAPI_EXPORTED void dtensorStringFree(char *str);

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

/// Creates a context with the dtensor dialect, its external models
/// (sharding rules of upstream ops) and every upstream dialect and extension
/// registered (what `dtensor-opt` registers, without its test dialect). The
/// first call also registers every dtensor and upstream pass and pipeline
/// with the process-wide pass registry. Destroy it with
/// dtensorContextDestroy after every module in it.
DTENSOR_CAPI_EXPORTED DtensorContext dtensorContextCreate(void);

/// Destroys `context`. Its modules must have been destroyed before.
DTENSOR_CAPI_EXPORTED void dtensorContextDestroy(DtensorContext context);

/// True if `context` is null.
static inline bool dtensorContextIsNull(DtensorContext context) {
  return context.ptr == NULL;
}

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

/// Parses a module from `length` bytes at `data`: MLIR text or MLIR
/// bytecode (detected from its magic number), verified. Top-level ops that
/// are not a `builtin.module` are wrapped in one. `sourceName` names the
/// buffer in locations and diagnostics (NULL: "<input>"). Returns a null
/// module on failure, the reasons in `*diagnostics`.
DTENSOR_CAPI_EXPORTED DtensorModule dtensorModuleCreateParse(
    DtensorContext context, const char *data, size_t length,
    const char *sourceName, char **diagnostics);

/// Returns a deep copy of `module` in the same context (for running a
/// pipeline while keeping the original).
DTENSOR_CAPI_EXPORTED DtensorModule dtensorModuleClone(DtensorModule module);

/// Destroys `module`. A null module is allowed.
DTENSOR_CAPI_EXPORTED void dtensorModuleDestroy(DtensorModule module);

/// True if `module` is null.
static inline bool dtensorModuleIsNull(DtensorModule module) {
  return module.ptr == NULL;
}

/// Prints `module` in MLIR's custom textual form, as `dtensor-opt` does.
DTENSOR_CAPI_EXPORTED char *dtensorModulePrint(DtensorModule module);

//===----------------------------------------------------------------------===//
// Passes
//===----------------------------------------------------------------------===//

/// Runs a textual pass pipeline rooted at the module, in the syntax of
/// `dtensor-opt --pass-pipeline`, e.g.
/// `builtin.module(dtensor-fake-propagate{strategy=pytorch})`, on `module`
/// in place. Any dtensor or upstream pass or pipeline may appear. Returns a
/// failure if the pipeline does not parse or a pass fails (then the module
/// may be partly transformed: run on a dtensorModuleClone to keep it).
/// Warnings of a successful run are in `*diagnostics` too.
DTENSOR_CAPI_EXPORTED DtensorLogicalResult dtensorModuleRunPassPipeline(
    DtensorModule module, const char *pipeline, char **diagnostics);

/// Runs `dtensor-fake-report` in its JSON format on `module` (unchanged) and
/// returns the report in `*json` (the object of the public contract:
/// `{"functions": [{"name", "values", "returns", "collectives", "totals",
/// ...}]}`), or NULL on failure. `options` are the pass's other options in
/// pipeline syntax, e.g. "strategy=pytorch compare-pytorch=true
/// unknown-ops=replicate" (NULL or "" for the defaults); `format` and
/// `output` are set by this function.
DTENSOR_CAPI_EXPORTED DtensorLogicalResult dtensorModuleGetFakeReport(
    DtensorModule module, const char *options, char **json, char **diagnostics);

/// Runs `dtensor-cpu-pipeline` on `module` in place: partition, collectives
/// as dtrt calls, bufferization, BLAS calls, down to the LLVM dialect.
/// `options` are the pipeline's options, e.g. "partition=false blas=false"
/// (NULL or "" for the defaults).
DTENSOR_CAPI_EXPORTED DtensorLogicalResult dtensorModuleRunCPUPipeline(
    DtensorModule module, const char *options, char **diagnostics);

#ifdef __cplusplus
}
#endif

#endif // DTENSOR_C_DTENSOR_H

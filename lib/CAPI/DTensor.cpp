//===- DTensor.cpp - C API of dtensor-mlir --------------------------------===//
//
// Implements include/dtensor-c/DTensor.h over the C++ API: registration from
// dtensor/InitAll.h, the parser, PassManager with textual pipelines, and
// diagnostics collected into strings instead of printed or aborted on.
//
//===----------------------------------------------------------------------===//

#include "dtensor-c/DTensor.h"

#include "dtensor/InitAll.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <string>

using namespace mlir;

//===----------------------------------------------------------------------===//
// Handles (as mlir/CAPI/Wrap.h's DEFINE_C_API_PTR_METHODS)
//===----------------------------------------------------------------------===//

static DtensorContext wrap(MLIRContext *ctx) { return DtensorContext{ctx}; }
static MLIRContext *unwrap(DtensorContext c) {
  return static_cast<MLIRContext *>(c.ptr);
}
static DtensorModule wrap(ModuleOp module) {
  return DtensorModule{module.getOperation()};
}
static ModuleOp unwrap(DtensorModule m) {
  return cast<ModuleOp>(static_cast<Operation *>(m.ptr));
}
static DtensorLogicalResult wrap(LogicalResult result) {
  return DtensorLogicalResult{static_cast<int8_t>(succeeded(result))};
}

/// A malloc'ed copy of `s`, for the caller to dtensorStringFree.
static char *copyString(llvm::StringRef s) {
  char *out = static_cast<char *>(std::malloc(s.size() + 1));
  if (!out)
    return nullptr;
  std::memcpy(out, s.data(), s.size());
  out[s.size()] = '\0';
  return out;
}

/// Hands `text` to an optional out-parameter.
static void setOut(char **out, llvm::StringRef text) {
  if (out)
    *out = copyString(text);
}

/// A null handle or string is a caller's error: a message, not a crash.
static bool reportNull(bool isNull, const char *function, const char *what,
                       char **diagnostics) {
  if (isNull)
    setOut(
        diagnostics,
        (llvm::Twine("error: ") + function + ": " + what + " is null\n").str());
  return isNull;
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

namespace {
/// Collects every diagnostic emitted in a context while it lives, one line
/// per diagnostic and note: `file:line:col: error: message`.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *ctx)
      : os(text), handler(ctx, [this](Diagnostic &diag) {
          print(diag);
          for (Diagnostic &note : diag.getNotes())
            print(note);
          return success();
        }) {}

  /// What was collected, plus `extra` (text that did not come as a
  /// diagnostic, e.g. the pass pipeline parser's errors).
  std::string str(llvm::StringRef extra = {}) {
    os << extra;
    if (!text.empty() && text.back() != '\n')
      os << '\n';
    return text;
  }

private:
  void print(Diagnostic &diag) {
    printLocation(diag.getLocation());
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    case DiagnosticSeverity::Note:
      os << "note: ";
      break;
    case DiagnosticSeverity::Remark:
      os << "remark: ";
      break;
    }
    os << diag << '\n';
  }

  /// `file:line:col: ` for a file location (also inside a name or call-site
  /// location), nothing for an unknown one, MLIR's syntax otherwise.
  void printLocation(Location loc) {
    if (isa<UnknownLoc>(loc))
      return;
    FileLineColLoc fileLoc;
    loc->walk([&](Location inner) {
      if (auto f = dyn_cast<FileLineColLoc>(inner)) {
        fileLoc = f;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (fileLoc)
      os << fileLoc.getFilename().getValue() << ':' << fileLoc.getLine() << ':'
         << fileLoc.getColumn() << ": ";
    else
      os << loc << ": ";
  }

  std::string text;
  llvm::raw_string_ostream os;
  ScopedDiagnosticHandler handler;
};
} // namespace

//===----------------------------------------------------------------------===//
// Strings and context
//===----------------------------------------------------------------------===//

void dtensorStringFree(char *str) { std::free(str); }

/// Every dtensor and upstream pass and pipeline, once per process.
static void registerPassesOnce() {
  static const bool registered = [] {
    mlir::registerAllPasses();
    mlir::dtensor::registerAllPasses();
    return true;
  }();
  (void)registered;
}

DtensorContext dtensorContextCreate(void) {
  registerPassesOnce();
  DialectRegistry registry;
  mlir::dtensor::registerAllDialects(registry);
  mlir::dtensor::registerAllExtensions(registry);
  // As dtensor-opt: the pipelines may produce or take any upstream dialect.
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  auto *ctx = new MLIRContext(registry);
  // Diagnostics point at the source; the op itself (in generic form) would
  // be noise in a message for a Python user.
  ctx->printOpOnDiagnostic(false);
  return wrap(ctx);
}

void dtensorContextDestroy(DtensorContext context) { delete unwrap(context); }

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

DtensorModule dtensorModuleCreateParse(DtensorContext context, const char *data,
                                       size_t length, const char *sourceName,
                                       char **diagnostics) {
  if (reportNull(!context.ptr, "dtensorModuleCreateParse", "the context",
                 diagnostics) ||
      reportNull(!data && length, "dtensorModuleCreateParse", "the data",
                 diagnostics))
    return DtensorModule{nullptr};
  MLIRContext *ctx = unwrap(context);
  DiagnosticCollector collector(ctx);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      llvm::StringRef(data, length), ParserConfig(ctx),
      sourceName ? sourceName : "<input>");
  setOut(diagnostics, collector.str());
  return module ? wrap(module.release()) : DtensorModule{nullptr};
}

DtensorModule dtensorModuleClone(DtensorModule module) {
  if (!module.ptr)
    return DtensorModule{nullptr};
  return wrap(unwrap(module).clone());
}

void dtensorModuleDestroy(DtensorModule module) {
  if (module.ptr)
    unwrap(module)->erase();
}

char *dtensorModulePrint(DtensorModule module) {
  if (!module.ptr)
    return copyString("");
  std::string text;
  llvm::raw_string_ostream os(text);
  unwrap(module).print(os);
  return copyString(text);
}

//===----------------------------------------------------------------------===//
// Passes
//===----------------------------------------------------------------------===//

/// Parses `pipeline` and runs it on `module`, collecting the diagnostics.
static LogicalResult runPipeline(ModuleOp module, llvm::StringRef pipeline,
                                 std::string &diagnostics) {
  MLIRContext *ctx = module.getContext();
  DiagnosticCollector collector(ctx);
  std::string parseErrors;
  llvm::raw_string_ostream parseOs(parseErrors);
  FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline, parseOs);
  if (failed(parsed)) {
    diagnostics = collector.str(parseErrors);
    return failure();
  }
  if (parsed->getOpAnchorName() != ModuleOp::getOperationName()) {
    diagnostics = collector.str(
        ("error: pass pipeline '" + pipeline + "' is anchored on '" +
         parsed->getOpAnchorName() + "', expected 'builtin.module'")
            .str());
    return failure();
  }
  PassManager pm(ctx);
  static_cast<OpPassManager &>(pm) = std::move(*parsed);
  LogicalResult result = pm.run(module);
  diagnostics = collector.str();
  return result;
}

/// `name` with `{options}` when there are any.
static std::string withOptions(llvm::StringRef name, const char *options) {
  std::string text = name.str();
  if (options && *options)
    text += "{" + std::string(options) + "}";
  return text;
}

DtensorLogicalResult dtensorModuleRunPassPipeline(DtensorModule module,
                                                  const char *pipeline,
                                                  char **diagnostics) {
  if (reportNull(!module.ptr, "dtensorModuleRunPassPipeline", "the module",
                 diagnostics) ||
      reportNull(!pipeline, "dtensorModuleRunPassPipeline", "the pipeline",
                 diagnostics))
    return wrap(failure());
  std::string diags;
  LogicalResult result = runPipeline(unwrap(module), pipeline, diags);
  setOut(diagnostics, diags);
  return wrap(result);
}

DtensorLogicalResult dtensorModuleGetFakeReport(DtensorModule module,
                                                const char *options,
                                                char **json,
                                                char **diagnostics) {
  if (json)
    *json = nullptr;
  if (reportNull(!module.ptr, "dtensorModuleGetFakeReport", "the module",
                 diagnostics))
    return wrap(failure());
  // The pass writes its report to a file: a temporary one, read back.
  llvm::SmallString<128> path;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("dtensor-report", "json", path)) {
    setOut(diagnostics,
           "error: cannot create a temporary file: " + ec.message() + "\n");
    return wrap(failure());
  }
  llvm::FileRemover remover(path);
  // Ours last: a repeated pass option takes its last value.
  std::string passOptions = options ? options : "";
  passOptions += " format=json output=\"" + path.str().str() + "\"";
  std::string diags;
  LogicalResult result = runPipeline(
      unwrap(module),
      "builtin.module(" +
          withOptions("dtensor-fake-report", passOptions.c_str()) + ")",
      diags);
  if (succeeded(result)) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(path);
    if (buffer) {
      if (json)
        *json = copyString((*buffer)->getBuffer());
    } else {
      diags += "error: cannot read the report " + path.str().str() + ": " +
               buffer.getError().message() + "\n";
      result = failure();
    }
  }
  setOut(diagnostics, diags);
  return wrap(result);
}

DtensorLogicalResult dtensorModuleRunCPUPipeline(DtensorModule module,
                                                 const char *options,
                                                 char **diagnostics) {
  std::string pipeline =
      "builtin.module(" + withOptions("dtensor-cpu-pipeline", options) + ")";
  return dtensorModuleRunPassPipeline(module, pipeline.c_str(), diagnostics);
}

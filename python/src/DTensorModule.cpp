//===- DTensorModule.cpp - nanobind module over the dtensor C API ---------===//
//
// `dtensor_mlir._dtensor_mlir`: a thin binding of include/dtensor-c/DTensor.h.
// A Context owns a DtensorContext; a Module owns a DtensorModule and keeps
// its Context alive. Modules cross as text. Every failure of the C API is
// raised as `MLIRError` whose message is the collected diagnostics (the C
// API never aborts on bad input, so neither does this module).
//
// Only the C header is included: the extension is built with exceptions and
// RTTI (nanobind needs them) while the libraries it calls are not.
//
//===----------------------------------------------------------------------===//

#include "dtensor-c/DTensor.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <stdexcept>
#include <string>

namespace nb = nanobind;

namespace {

/// The diagnostics of a failed call, raised as dtensor_mlir.MLIRError.
struct MLIRError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Takes ownership of a string returned by the C API.
std::string takeString(char *str) {
  std::string out = str ? str : "";
  dtensorStringFree(str);
  return out;
}

class Context {
public:
  Context() : ctx(dtensorContextCreate()) {
    if (dtensorContextIsNull(ctx))
      throw MLIRError("error: cannot create a dtensor-mlir context");
  }
  ~Context() { dtensorContextDestroy(ctx); }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  DtensorContext get() const { return ctx; }

private:
  DtensorContext ctx;
};

class Module {
public:
  /// Parses `data` (MLIR text or bytecode) in `context`.
  static Module *parse(Context &context, nb::bytes data,
                       const std::string &sourceName) {
    char *diags = nullptr;
    DtensorModule m =
        dtensorModuleCreateParse(context.get(), data.c_str(), data.size(),
                                 sourceName.c_str(), &diags);
    std::string message = takeString(diags);
    if (dtensorModuleIsNull(m))
      throw MLIRError(message.empty() ? "error: cannot parse the module"
                                      : message);
    return new Module(m);
  }

  ~Module() { dtensorModuleDestroy(module); }
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  std::string str() const { return takeString(dtensorModulePrint(module)); }

  Module *clone() const { return new Module(dtensorModuleClone(module)); }

  /// Runs a textual pipeline in place; returns the warnings of a success.
  std::string runPassPipeline(const std::string &pipeline) {
    char *diags = nullptr;
    DtensorLogicalResult result =
        dtensorModuleRunPassPipeline(module, pipeline.c_str(), &diags);
    return check(result, diags);
  }

  /// The JSON report (dtensor-fake-report's `options` in pipeline syntax).
  std::string fakeReport(const std::string &options) const {
    char *json = nullptr, *diags = nullptr;
    DtensorLogicalResult result =
        dtensorModuleGetFakeReport(module, options.c_str(), &json, &diags);
    std::string text = takeString(json);
    check(result, diags);
    return text;
  }

  std::string runCPUPipeline(const std::string &options) {
    char *diags = nullptr;
    DtensorLogicalResult result =
        dtensorModuleRunCPUPipeline(module, options.c_str(), &diags);
    return check(result, diags);
  }

private:
  explicit Module(DtensorModule m) : module(m) {}

  /// The diagnostics of a success, or MLIRError carrying those of a failure
  /// (called after the C function has set `diags`).
  static std::string check(DtensorLogicalResult result, char *diags) {
    std::string message = takeString(diags);
    if (dtensorLogicalResultIsFailure(result))
      throw MLIRError(message.empty() ? "error: the pipeline failed" : message);
    return message;
  }

  DtensorModule module;
};

} // namespace

NB_MODULE(_dtensor_mlir, m) {
  m.doc() = "Binding of the dtensor-mlir C API (include/dtensor-c/DTensor.h)";
  nb::exception<MLIRError>(m, "MLIRError", PyExc_RuntimeError);

  nb::class_<Context>(m, "Context",
                      "An MLIR context with every dtensor and upstream "
                      "dialect, external model and pass registered.")
      .def(nb::init<>());

  nb::class_<Module>(m, "Module", "A builtin.module owned by Python.")
      .def_static("parse", &Module::parse, nb::arg("context"), nb::arg("data"),
                  nb::arg("source_name") = "<input>",
                  nb::keep_alive<0, 1>(), nb::rv_policy::take_ownership,
                  "Parses and verifies MLIR text or bytecode (bytes).")
      .def("__str__", &Module::str)
      .def("clone", &Module::clone, nb::keep_alive<0, 1>(),
           nb::rv_policy::take_ownership)
      .def("run_pass_pipeline", &Module::runPassPipeline, nb::arg("pipeline"),
           "Runs a pipeline such as 'builtin.module(dtensor-partition)' in "
           "place; returns the warnings.")
      .def("fake_report", &Module::fakeReport, nb::arg("options") = "",
           "The dtensor-fake-report JSON text.")
      .def("run_cpu_pipeline", &Module::runCPUPipeline,
           nb::arg("options") = "",
           "Runs dtensor-cpu-pipeline in place; returns the warnings.");
}

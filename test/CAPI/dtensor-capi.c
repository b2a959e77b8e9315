//===- dtensor-capi.c - test of the dtensor-mlir C API ------------*- C -*-===//
//
// Compiled as C and linked against DTensorCAPI only. Parses the module in
// argv[1] (examples/mlp.mlir), propagates it, prints the report's totals,
// lowers it with the CPU pipeline and checks that errors come back as
// messages.
//
//===----------------------------------------------------------------------===//

// RUN: %dtensor-capi-test %dtensor_src_root/examples/mlp.mlir 2>&1 \
// RUN:   | FileCheck %s

#include "dtensor-c/DTensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file at `path`, NUL-terminated; NULL if it cannot be read. */
static char *readFile(const char *path, size_t *length) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t capacity = 4096, size = 0, n;
  char *data = malloc(capacity);
  while (data && (n = fread(data + size, 1, capacity - size - 1, f)) > 0) {
    size += n;
    if (size + 1 == capacity)
      data = realloc(data, capacity *= 2);
  }
  fclose(f);
  if (data) {
    data[size] = '\0';
    *length = size;
  }
  return data;
}

/* Prints the diagnostics of a call under `label` and frees them. */
static void printDiagnostics(const char *label, char *diagnostics) {
  printf("%s diagnostics: %s", label, diagnostics[0] ? "\n" : "(none)\n");
  printf("%s", diagnostics);
  dtensorStringFree(diagnostics);
}

static DtensorModule parse(DtensorContext ctx, const char *text,
                           const char *name) {
  char *diagnostics = NULL;
  DtensorModule module =
      dtensorModuleCreateParse(ctx, text, strlen(text), name, &diagnostics);
  printf("parse %s: %s\n", name, dtensorModuleIsNull(module) ? "null" : "ok");
  printDiagnostics("parse", diagnostics);
  return module;
}

static void printModule(DtensorModule module) {
  char *text = dtensorModulePrint(module);
  printf("%s", text);
  dtensorStringFree(text);
}

/* The `"totals": {...}` object of a pretty-printed report, one line. */
static void printTotals(const char *json) {
  const char *begin = strstr(json, "\"totals\"");
  const char *end = NULL;
  int depth = 0;
  for (const char *c = begin ? strchr(begin, '{') : NULL; c && *c; ++c) {
    if (*c == '{')
      ++depth;
    else if (*c == '}' && --depth == 0) {
      end = c;
      break;
    }
  }
  if (!end) {
    printf("totals: missing\n");
    return;
  }
  printf("totals: ");
  for (const char *c = begin; c <= end; ++c)
    if (*c != '\n' && !(*c == ' ' && c[1] == ' ') &&
        !(*c == ' ' && c[-1] == ' '))
      putchar(*c);
  printf("\n");
}

static int countOccurrences(const char *text, const char *word) {
  int count = 0;
  for (const char *c = strstr(text, word); c; c = strstr(c + 1, word))
    ++count;
  return count;
}

// clang-format off
// The Megatron MLP: the second matmul is P(sum), one redistribution to R.
// CHECK-LABEL: --- propagate
// CHECK-NEXT: parse mlp.mlir: ok
// CHECK-NEXT: parse diagnostics: (none)
// CHECK-NEXT: propagate: success
// CHECK-NEXT: propagate diagnostics: (none)
// CHECK: func.func @mlp
// CHECK: linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [S(1)]>]}
// CHECK: %[[Y:.*]] = linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]} ins(
// CHECK-NEXT: %[[R:.*]] = dtensor.redistribute %[[Y]] to #dtensor.spec<@mesh, [R]> : tensor<32x512xf32>
// CHECK-NEXT: return %[[R]] : tensor<32x512xf32>
// clang-format on
static void testPropagate(DtensorContext ctx, const char *text) {
  printf("--- propagate\n");
  DtensorModule module = parse(ctx, text, "mlp.mlir");
  char *diagnostics = NULL;
  DtensorLogicalResult result = dtensorModuleRunPassPipeline(
      module, "builtin.module(dtensor-fake-propagate{strategy=pytorch})",
      &diagnostics);
  printf("propagate: %s\n",
         dtensorLogicalResultIsSuccess(result) ? "success" : "failure");
  printDiagnostics("propagate", diagnostics);
  printModule(module);
  dtensorModuleDestroy(module);
}

// clang-format off
// One all_reduce of the [32, 512] f32 output: 65536 bytes per rank.
// CHECK-LABEL: --- report
// CHECK-NEXT: parse mlp.mlir: ok
// CHECK-NEXT: parse diagnostics: (none)
// CHECK-NEXT: report: success
// CHECK-NEXT: report diagnostics: (none)
// CHECK-NEXT: totals: "totals": {"comm_bytes": [65536,65536,65536,65536],"comm_cost_us": [[COST:[0-9.]+]],"num_collectives": 1,"peak_bytes": [2359296,2359296,2359296,2359296],"peak_values": [{"bytes": 1048576,"value": "%arg1"},{"bytes": 1048576,"value": "%arg1"},{"bytes": 1048576,"value": "%arg1"},{"bytes": 1048576,"value": "%arg1"}],"plan_comm_cost_us": [[COST]],"pytorch_comm_cost_us": [[COST]]}
// CHECK-NEXT: all_reduce collectives: 1
// CHECK-NEXT: module unchanged: yes
// clang-format on
static void testReport(DtensorContext ctx, const char *text) {
  printf("--- report\n");
  DtensorModule module = parse(ctx, text, "mlp.mlir");
  char *json = NULL, *diagnostics = NULL;
  DtensorLogicalResult result = dtensorModuleGetFakeReport(
      module, "strategy=pytorch compare-pytorch=true", &json, &diagnostics);
  printf("report: %s\n",
         dtensorLogicalResultIsSuccess(result) ? "success" : "failure");
  printDiagnostics("report", diagnostics);
  printTotals(json);
  printf("all_reduce collectives: %d\n",
         countOccurrences(json, "\"kind\": \"all_reduce\""));
  dtensorStringFree(json);
  /* The report leaves the module as it was: no specs were written. */
  char *printed = dtensorModulePrint(module);
  printf("module unchanged: %s\n",
         strstr(printed, "dtensor.specs") ? "no" : "yes");
  dtensorStringFree(printed);
  dtensorModuleDestroy(module);
}

// clang-format off
// Down to the LLVM dialect, the all_reduce a dtrt call.
// CHECK-LABEL: --- cpu pipeline
// CHECK-NEXT: parse mlp.mlir: ok
// CHECK-NEXT: parse diagnostics: (none)
// CHECK-NEXT: cpu pipeline: success
// CHECK-NEXT: cpu pipeline diagnostics: (none)
// CHECK-NOT: linalg.
// CHECK-NOT: func.func
// CHECK: llvm.func @dtrt_all_reduce(
// CHECK: llvm.func @mlp(
// CHECK: llvm.call @dtrt_all_reduce(
// CHECK-NOT: linalg.
// CHECK-NOT: tensor<
// clang-format on
static void testCPUPipeline(DtensorContext ctx, const char *text) {
  printf("--- cpu pipeline\n");
  DtensorModule original = parse(ctx, text, "mlp.mlir");
  DtensorModule module = dtensorModuleClone(original);
  dtensorModuleDestroy(original);
  char *diagnostics = NULL;
  DtensorLogicalResult result =
      dtensorModuleRunCPUPipeline(module, NULL, &diagnostics);
  printf("cpu pipeline: %s\n",
         dtensorLogicalResultIsSuccess(result) ? "success" : "failure");
  printDiagnostics("cpu pipeline", diagnostics);
  printModule(module);
  dtensorModuleDestroy(module);
}

static const char *kMalformed = "func.func @f(%x: tensor<4xf32>) {\n"
                                "  return %y : tensor<4xf32>\n"
                                "}\n";

static const char *kNoRule =
    "dtensor.mesh @mesh = <[\"x\" = 4]>\n"
    "func.func @unknown_op(%x: tensor<16xf32> {dtensor.spec = "
    "#dtensor.spec<@mesh, [S(0)]>}, %idx: tensor<4x1xindex>) -> "
    "tensor<4x1xf32> {\n"
    "  %r = tensor.gather %x[%idx] gather_dims([0]) unique : "
    "(tensor<16xf32>, tensor<4x1xindex>) -> tensor<4x1xf32>\n"
    "  return %r : tensor<4x1xf32>\n"
    "}\n";

static void runAndPrint(DtensorModule module, const char *pipeline) {
  char *diagnostics = NULL;
  DtensorLogicalResult result =
      dtensorModuleRunPassPipeline(module, pipeline, &diagnostics);
  printf("run %s: %s\n", pipeline,
         dtensorLogicalResultIsSuccess(result) ? "success" : "failure");
  printDiagnostics("run", diagnostics);
}

// clang-format off
// Every error is a message, never an abort.
// CHECK-LABEL: --- errors
// CHECK-NEXT: parse malformed.mlir: null
// CHECK-NEXT: parse diagnostics:
// CHECK-NEXT: {{^}}malformed.mlir:2:10: error: use of undeclared SSA value name{{$}}
// CHECK-NEXT: run builtin.module(canonicalize): failure
// CHECK-NEXT: run diagnostics:
// CHECK-NEXT: {{^}}error: dtensorModuleRunPassPipeline: the module is null{{$}}
// CHECK-NEXT: parse mlp.mlir: ok
// CHECK-NEXT: parse diagnostics: (none)
// CHECK-NEXT: run builtin.module(dtensor-no-such-pass): failure
// CHECK-NEXT: run diagnostics:
// CHECK-NEXT: {{^}}MLIR Textual PassPipeline Parser:1:1: error: 'dtensor-no-such-pass' does not refer to a registered pass or pass pipeline{{$}}
// CHECK-NEXT: {{^}}dtensor-no-such-pass{{$}}
// CHECK-NEXT: {{^}}^{{$}}
// CHECK-NEXT: run func.func(canonicalize): failure
// CHECK-NEXT: run diagnostics:
// CHECK-NEXT: {{^}}error: pass pipeline 'func.func(canonicalize)' is anchored on 'func.func', expected 'builtin.module'{{$}}
// CHECK-NEXT: parse no_rule.mlir: ok
// CHECK-NEXT: parse diagnostics: (none)
// CHECK-NEXT: run builtin.module(dtensor-fake-propagate): failure
// CHECK-NEXT: run diagnostics:
// CHECK-NEXT: {{^}}no_rule.mlir:3:8: error: no sharding rule for 'tensor.gather'; pass unknown-ops=replicate to replicate its operands and results{{$}}
// CHECK-NEXT: report: failure, json null
// CHECK-NEXT: report diagnostics:
// CHECK-NEXT: {{^}}no_rule.mlir:3:8: error: no sharding rule for 'tensor.gather'; pass unknown-ops=replicate to replicate its operands and results{{$}}
// CHECK-NEXT: run builtin.module(dtensor-fake-propagate{unknown-ops=replicate}): success
// CHECK-NEXT: run diagnostics:
// CHECK-NEXT: {{^}}no_rule.mlir:3:8: warning: no sharding rule for 'tensor.gather'; replicating its operands and results{{$}}
// CHECK-NEXT: --- done
// clang-format on
static void testErrors(DtensorContext ctx, const char *text) {
  printf("--- errors\n");
  DtensorModule malformed = parse(ctx, kMalformed, "malformed.mlir");
  /* A caller that ignores the failed parse gets a message too. */
  runAndPrint(malformed, "builtin.module(canonicalize)");
  dtensorModuleDestroy(malformed); /* null: allowed */

  DtensorModule module = parse(ctx, text, "mlp.mlir");
  runAndPrint(module, "builtin.module(dtensor-no-such-pass)");
  runAndPrint(module, "func.func(canonicalize)");
  dtensorModuleDestroy(module);

  DtensorModule noRule = parse(ctx, kNoRule, "no_rule.mlir");
  runAndPrint(noRule, "builtin.module(dtensor-fake-propagate)");
  char *json = NULL, *diagnostics = NULL;
  DtensorLogicalResult result =
      dtensorModuleGetFakeReport(noRule, NULL, &json, &diagnostics);
  printf("report: %s, json %s\n",
         dtensorLogicalResultIsSuccess(result) ? "success" : "failure",
         json ? "set" : "null");
  printDiagnostics("report", diagnostics);
  /* With unknown-ops=replicate the same op only warns. */
  runAndPrint(noRule,
              "builtin.module(dtensor-fake-propagate{unknown-ops=replicate})");
  dtensorModuleDestroy(noRule);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s FILE.mlir\n", argv[0]);
    return 2;
  }
  size_t length = 0;
  char *text = readFile(argv[1], &length);
  if (!text) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  DtensorContext ctx = dtensorContextCreate();
  testPropagate(ctx, text);
  testReport(ctx, text);
  testCPUPipeline(ctx, text);
  testErrors(ctx, text);
  dtensorContextDestroy(ctx);
  free(text);
  printf("--- done\n");
  return 0;
}

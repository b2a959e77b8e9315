#!/usr/bin/env bash
# Regenerates the dialect and pass reference (docs/reference/) from the
# TableGen definitions: builds the `mlir-doc` target of an existing build
# tree, which writes Markdown under <build>/docs, and copies it here with an
# index.
# Usage: scripts/gen-docs.sh [build-dir]     (default: build; configure it
#        first with `cmake -G Ninja -S . -B build`)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
OUT=docs/reference

if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  echo "gen-docs: no build tree in '$BUILD_DIR'; run: cmake -G Ninja -S . -B $BUILD_DIR" >&2
  exit 1
fi
cmake --build "$BUILD_DIR" --target mlir-doc

# name in <build>/docs -> name in docs/reference
FILES=(
  "Dialects/DTensorOps.md:DTensorOps.md"
  "Dialects/DTensorAttrs.md:DTensorAttrs.md"
  "DTensorPasses.md:DTensorPasses.md"
  "DTensorConversionPasses.md:DTensorConversionPasses.md"
)
mkdir -p "$OUT"
for entry in "${FILES[@]}"; do
  src="$BUILD_DIR/docs/${entry%%:*}"
  dst="$OUT/${entry##*:}"
  if [ ! -f "$src" ]; then
    echo "gen-docs: $src was not generated" >&2
    exit 1
  fi
  cp "$src" "$dst"
  echo "gen-docs: $dst"
done

cat > "$OUT/README.md" <<'EOF'
# dtensor-mlir reference (generated)

Generated from the TableGen definitions by `scripts/gen-docs.sh` (which
runs `cmake --build build --target mlir-doc`); do not edit these files by
hand, edit the `.td` files and rerun the script.

| file | what | source |
|---|---|---|
| [DTensorOps.md](DTensorOps.md) | the operations of the `dtensor` dialect: `dtensor.mesh`, `redistribute`, `from_local`, `to_local`, `process_index`, the collectives (`all_reduce`, `all_gather`, `reduce_scatter`, `all_to_all`, `broadcast`, their `_start` forms) and `wait` | `include/dtensor/Dialect/DTensor/IR/DTensorOps.td` |
| [DTensorAttrs.md](DTensorAttrs.md) | the `#dtensor.spec` attribute (mesh and placements) | `include/dtensor/Dialect/DTensor/IR/DTensorAttrs.td` |
| [DTensorPasses.md](DTensorPasses.md) | `-dtensor-fake-propagate`, `-dtensor-fake-report`, `-dtensor-partition` and their options | `include/dtensor/Dialect/DTensor/Transforms/Passes.td` |
| [DTensorConversionPasses.md](DTensorConversionPasses.md) | `-convert-dtensor-to-runtime`, `-dtensor-decompose-aggregates`, `-dtensor-matmul-to-blas` | `include/dtensor/Conversion/Passes.td` |

Not generated: the dialect's own description and the `!dtensor.request<T>`
type (see `include/dtensor/Dialect/DTensor/IR/DTensorDialect.td` and
`DTensorTypes.td`; the `_start` ops return it), and the pass pipeline
`dtensor-cpu-pipeline` (registered in C++; see `dtensor-opt --help`,
[../user-guide.md](../user-guide.md) and [../design.md](../design.md)).
EOF
echo "gen-docs: $OUT/README.md"

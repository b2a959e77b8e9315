#!/usr/bin/env bash
# Regenerates the dialect and pass reference (docs/reference/) from the
# TableGen definitions: builds the `mlir-doc` target of an existing build
# tree (Markdown under <build>/docs), copies every generated file here and
# writes the index README.md (every file, op, attribute, pass and pipeline;
# pipelines are registered in C++, so they are taken from `dtensor-opt
# --help`).
#
# Usage: scripts/gen-docs.sh [--check] [--no-build] [build-dir]
#   build-dir   default: build (configure it first: cmake -G Ninja -S . -B build)
#   --check     generate into a temporary directory and compare with the
#               committed docs/reference; exit 1 with the differences if the
#               committed copy is stale (test/Docs/reference.test runs this)
#   --no-build  do not build `mlir-doc` and `dtensor-opt` (they are built)
set -euo pipefail
cd "$(dirname "$0")/.."
CHECK=0
BUILD=1
BUILD_DIR=build
for arg in "$@"; do
  case "$arg" in
    --check) CHECK=1 ;;
    --no-build) BUILD=0 ;;
    -*) echo "gen-docs: unknown option $arg" >&2; exit 2 ;;
    *) BUILD_DIR=$arg ;;
  esac
done
REF=docs/reference

if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  echo "gen-docs: no build tree in '$BUILD_DIR'; run: cmake -G Ninja -S . -B $BUILD_DIR" >&2
  exit 1
fi
if [ "$BUILD" = 1 ]; then
  cmake --build "$BUILD_DIR" --target mlir-doc dtensor-opt
fi

if [ "$CHECK" = 1 ]; then
  OUT=$(mktemp -d)
  trap 'rm -rf "$OUT"' EXIT
else
  OUT=$REF
  mkdir -p "$OUT"
  rm -f "$OUT"/*.md
fi

python3 - "$BUILD_DIR" "$OUT" <<'PY'
import os, re, subprocess, sys
build, out = sys.argv[1], sys.argv[2]
gen = os.path.join(build, "docs")
files = sorted((os.path.basename(p), os.path.join(d, p))
               for d, _, ps in os.walk(gen) for p in ps if p.endswith(".md"))
if not files:
    sys.exit("gen-docs: nothing generated under %s/docs" % build)
names = [n for n, _ in files]
if len(set(names)) != len(names):
    sys.exit("gen-docs: two generated files share a name: %s" % names)
rows, documented = [], set()
for name, path in files:
    text = open(path).read()
    with open(os.path.join(out, name), "w") as f:
        f.write(text)
    heads = re.findall(r"^### `?([^`\n(]+?)`?(?: \(|$)", text, re.M)
    documented.update(h for h in heads if h.startswith("-"))
    rows.append("| [%s](%s) | %s |" % (name, name, ", ".join("`%s`" % h.strip() for h in heads)))
helptext = subprocess.run([os.path.join(build, "bin", "dtensor-opt"), "--help"],
                          capture_output=True, text=True, check=True).stdout
pipelines = []
for m in re.finditer(r"^\s+-(-[a-z0-9-]*dtensor[a-z0-9-]*)\s+-\s+(.*)$", helptext, re.M):
    if m.group(1) not in documented:
        pipelines.append("| `%s` | %s |" % (m.group(1), m.group(2).strip()))
with open(os.path.join(out, "README.md"), "w") as f:
    f.write("""# dtensor-mlir reference (generated)

Generated from the TableGen definitions by `scripts/gen-docs.sh` (which
builds the `mlir-doc` target and copies `build/docs`); do not edit these
files by hand: edit the `.td` files and rerun the script. `check-dtensor`
fails when this copy is stale (`test/Docs/reference.test`).

| file | documents |
|---|---|
%s

Pass pipelines (registered in C++, so not in the files above; from
`dtensor-opt --help`):

| pipeline | does |
|---|---|
%s

Not generated: the dialect's own description and the `!dtensor.request<T>`
type (see `include/dtensor/Dialect/DTensor/IR/DTensorDialect.td` and
`DTensorTypes.td`; the `_start` ops return it). How to use the passes:
[../user-guide.md](../user-guide.md); how they work: [../design.md](../design.md).
""" % ("\n".join(rows), "\n".join(pipelines) or "| (none) | |"))
PY

if [ "$CHECK" = 1 ]; then
  # Every dtensor flag dtensor-opt knows must be in the index.
  missing=0
  for flag in $("$BUILD_DIR/bin/dtensor-opt" --help | grep -oE '^ +--[a-z0-9-]*dtensor[a-z0-9-]*' | sed 's/^ *-//'); do
    if ! grep -q -- "\`$flag\`" "$REF/README.md"; then
      echo "gen-docs: $REF/README.md does not list the pass $flag" >&2
      missing=1
    fi
  done
  if ! diff -ru "$REF" "$OUT" >&2; then
    echo "gen-docs: $REF is stale (lines with - are the committed copy, + what the .td files give now); run scripts/gen-docs.sh and commit $REF" >&2
    exit 1
  fi
  [ "$missing" = 0 ] || exit 1
  echo "gen-docs: $REF is up to date"
else
  ls "$OUT"/*.md | sed 's/^/gen-docs: /'
fi

#!/usr/bin/env bash
# Builds retail and runs it on the bundled sample (data/sample-tail.glb, a generated character
# whose tail an auto-rigger weighted to its legs). Prints what retail sees and where the output went.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The flags scripts/test.sh configures build/ with, so the README's two commands share one build.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DRETAIL_WERROR=ON -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build build -j"$(nproc)" --target retail
mkdir -p out
build/retail info data/sample-tail.glb
build/retail data/sample-tail.glb out/sample-tail.glb
echo "demo: output written to $(pwd)/out/sample-tail.glb, report to $(pwd)/out/sample-tail.report.json"

#!/usr/bin/env bash
# Configures the sanitizer build both scripts/test.sh (its tests under ASan + UBSan) and
# fuzz/run.sh (the libFuzzer target) use: clang, -O2 -g1, warnings as errors, tests and
# fuzz_read in one tree, so the library is compiled once for both (RETAIL_FUZZ: ASan + UBSan
# and the fuzzer's coverage on every object). A unity build, as scripts/test.sh's release build.
#   fuzz/configure_asan.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
CC=clang CXX=clang++ cmake -S . -B "${1:?build dir}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DRETAIL_WERROR=ON \
  -DRETAIL_FUZZ=ON -DRETAIL_BUILD_TESTS=ON -DCMAKE_UNITY_BUILD=ON >/dev/null

#!/usr/bin/env bash
# Builds retail from scratch-or-incrementally and runs every test: the normal build with
# warnings as errors, then the same tests under AddressSanitizer + UndefinedBehaviorSanitizer.
#   scripts/test.sh            all tests (unit, shared-model and real-client tests)
#   scripts/test.sh -LE clients   skip the slow real-client tests (extra args go to ctest)
#   RETAIL_SKIP_FUZZ=1 scripts/test.sh   skip the 60-second fuzz smoke at the end
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)

# -g1 (line tables: backtraces name functions and lines) instead of -g: full debug info of the
# Eigen-heavy stages triples their compile time (bake.cpp: 178 s at -O2 -g, 59 s at -O2 -g1).
# A unity build (CMake joins eight source files per compile): the library's files each parse
# Eigen and our headers, and joined they compile in half the time (docs/performance.md, "unity
# builds").
# File-local names in src/ must then be unique within a target; each test file's body sits in a
# namespace named after the file.
stamp() { echo "== $1 ($(date -u +%H:%M:%S), ${SECONDS} s)"; }
stamp "release build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DRETAIL_WERROR=ON -DRETAIL_BUILD_TESTS=ON -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build build -j"$jobs"
stamp "release tests"
(cd build && ctest --output-on-failure -j"$jobs" "$@")

# The sanitizer build is clang's, shared with the fuzz target (fuzz/configure_asan.sh): one
# build instead of two (GCC's sanitizer build alone took 26 min on 2 cores, the fuzz build 7;
# clang builds both in 10). -O2 -g1: the shared-model bakes take minutes at -O0, and the
# compute-heavy cases run up to twice as fast as at -O1 for the same build time.
stamp "sanitizer build"
fuzz/configure_asan.sh build-asan
# Only what its tests and the fuzz smoke run: the diagnostic programs (tail_eval, tail_features,
# harm_edges) and bench/ are checked by the release build.
cmake --build build-asan -j"$jobs" --target retail retail_tests make_test_rig skin_positions fuzz_read
stamp "sanitizer tests"
# Not the real clients, the paired shared runs or the heavy outcome cases: tests/CMakeLists.txt
# says why each label is release-only.
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --output-on-failure -j"$jobs" -LE "clients|shared-paired|heavy" "$@")

# A 60-second fuzz smoke of reading + validation + info (clang, libFuzzer; docs/robustness.md).
# RETAIL_SKIP_FUZZ=1 skips it locally; CI always runs it.
if [[ ${RETAIL_SKIP_FUZZ:-0} != 1 ]]; then
  stamp "fuzz"
  log=$(mktemp)
  fuzz/run.sh 60 >"$log" 2>&1 || { tail -40 "$log"; exit 1; }
  grep -E "^Done" "$log"
fi
stamp "done"

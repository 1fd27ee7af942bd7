#!/usr/bin/env bash
# Builds the libFuzzer target with clang (ASan + UBSan) and fuzzes reading + validation + info,
# and the re-rig and bake of small rigs.
#   fuzz/run.sh SECONDS [libFuzzer args...]
# Seeds: the shared models (../shared/data), generated rigs, and the malformed corpus
# (tests/malformed/). New crashers land in fuzz/artifacts/; copy each into tests/malformed/ with
# a note (the regression test replays them all).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
jobs=$(nproc)
# -O1 -g1: the library is built a third time here; with GCC full debug info doubled to tripled
# the compile time of the heavy stages (docs/performance.md; not measured with clang).
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRETAIL_FUZZ=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DRETAIL_BUILD_TESTS=OFF -DRETAIL_WERROR=ON >/dev/null
cmake --build build-fuzz -j"$jobs" --target fuzz_read make_test_rig
seeds=build-fuzz/seeds
mkdir -p "$seeds" build-fuzz/corpus fuzz/artifacts
if [[ -d ../shared/data ]]; then
  find ../shared/data -name '*.glb' -o -name '*.vrm' -o -name '*.gltf' | while read -r f; do
    cp "$f" "$seeds/shared-$(basename "$f")"
  done
fi
for v in carried hanging none; do build-fuzz/make_test_rig --tail "$v" "$seeds/rig-$v.glb" >/dev/null 2>&1; done
# A small rig (the target bakes rigs under 256 KB) and copies with odd clip timing.
build-fuzz/make_test_rig --segments 4 "$seeds/rig-small.glb" >/dev/null 2>&1
python3 fuzz/odd_clips.py "$seeds/rig-small.glb" "$seeds/rig-small"
rm -f "$seeds"/*.truth.json
[[ -d tests/malformed ]] && cp tests/malformed/* "$seeds/" 2>/dev/null || true
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  build-fuzz/fuzz_read build-fuzz/corpus "$seeds" -dict=fuzz/glb.dict -max_total_time="$seconds" \
  -max_len=1048576 -rss_limit_mb=2048 -malloc_limit_mb=1024 -artifact_prefix=fuzz/artifacts/ \
  -print_final_stats=1 "$@"

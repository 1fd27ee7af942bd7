#!/usr/bin/env bash
# Builds the libFuzzer target with clang (ASan + UBSan) and fuzzes reading + validation + info,
# the VRM spring import, .gltf URI resolution (against a folder made here), and the re-rig and
# bake of small rigs.
#   fuzz/run.sh SECONDS [libFuzzer args...]
# Seeds: the shared models (../shared/data), generated rigs, and the malformed corpus
# (tests/malformed/). New crashers land in fuzz/artifacts/; copy each into tests/malformed/ with
# a note (the regression test replays them all).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
jobs=$(nproc)
# The same build as scripts/test.sh's sanitizer stage (build-asan): after it, nothing to build.
dir=build-asan
fuzz/configure_asan.sh "$dir"
cmake --build "$dir" -j"$jobs" --target fuzz_read make_test_rig retail
seeds=$dir/seeds
mkdir -p "$seeds" "$dir/corpus" fuzz/artifacts
if [[ -d ../shared/data ]]; then
  find ../shared/data -name '*.glb' -o -name '*.vrm' -o -name '*.gltf' | while read -r f; do
    cp "$f" "$seeds/shared-$(basename "$f")"
  done
fi
for v in carried hanging none; do "$dir"/make_test_rig --tail "$v" "$seeds/rig-$v.glb" >/dev/null 2>&1; done
# A small rig (the target bakes rigs under 256 KB) and copies with odd clip timing.
"$dir"/make_test_rig --segments 4 "$seeds/rig-small.glb" >/dev/null 2>&1
python3 fuzz/odd_clips.py "$seeds/rig-small.glb" "$seeds/rig-small"
# VRM 0 and VRM 1 rigs with springs and colliders (the spring import's seeds).
"$dir"/make_test_rig --segments 4 --vrm 0 "$seeds/rig-vrm0.vrm" >/dev/null 2>&1
"$dir"/make_test_rig --segments 4 --vrm 1 --ponytail "$seeds/rig-vrm1.vrm" >/dev/null 2>&1
# The folder URIs resolve against (RETAIL_FUZZ_BASE): the small rig as rig.gltf + rig.bin, an
# image, a sub-folder, links leading out of it and looping, and a FIFO; rig.gltf is a seed.
base=$dir/uri-base
rm -rf "$base" && mkdir -p "$base/sub"
"$dir"/retail -q --mode detect "$seeds/rig-small.glb" "$base/rig.gltf"
rm -f "$base/rig.report.json"
cp "$base/rig.gltf" "$seeds/rig-small.gltf"
cp "$base/rig.bin" "$base/sub/rig.bin"
printf '\x89PNG\r\n\x1a\n' >"$base/tex.png"
ln -sf /etc/hostname "$base/out.bin"
ln -sf loop.bin "$base/loop.bin"
mkfifo "$base/fifo.bin"
export RETAIL_FUZZ_BASE=$base
rm -f "$seeds"/*.truth.json
[[ -d tests/malformed ]] && cp tests/malformed/* "$seeds/" 2>/dev/null || true
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  "$dir"/fuzz_read "$dir"/corpus "$seeds" -dict=fuzz/glb.dict -max_total_time="$seconds" \
  -max_len=1048576 -rss_limit_mb=2048 -malloc_limit_mb=1024 -artifact_prefix=fuzz/artifacts/ \
  -print_final_stats=1 "$@"

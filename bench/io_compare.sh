#!/usr/bin/env bash
# Issue 7's side-by-side ratios: on each shared model, the full job (`retail IN OUT`: detect,
# chain, bake every clip, stretch report) against a plain tinygltf load + save of the same file
# (the I/O floor) and against @gltf-transform/core reading and writing it. Medians of RUNS runs.
#
# The floor is measured two ways, both printed:
#   floor-proc   `io_floor IN OUT 1` as its own process, timed like retail (process wall: start,
#                dynamic loading, cold caches, exit) - the like-for-like comparison;
#   floor-warm   the median of RUNS load + save rounds inside one io_floor process (warm caches,
#                no process start) - a lower bound no process can reach.
# Retail and the process floor alternate run by run, so a busy machine slows both alike.
#   bench/io_compare.sh [RUNS]   (needs build/retail, build/bench/io_floor, node; installs
#                                 bench/js's npm package from its lock file when missing)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-11}
[[ -d bench/js/node_modules ]] || (cd bench/js && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
wall_us() { local s; s=$(date +%s%N); "$@" >/dev/null 2>&1; echo $(( ($(date +%s%N) - s) / 1000 )); }
printf '%-36s %9s %10s %10s %8s %9s %9s %8s\n' file retail-ms floor-proc floor-warm gt-ms \
  "x proc" "x warm" "x gt"
for f in ../shared/data/auto-rigged/*.glb ../shared/data/originals/*.glb ../shared/data/originals/*.vrm; do
  name=$(basename "$f")
  : >"$out/retail.txt"
  : >"$out/floor.txt"
  for i in $(seq "$runs"); do
    wall_us build/retail -q "$f" "$out/$name" >>"$out/retail.txt"
    wall_us build/bench/io_floor "$f" "$out/floor-$name" 1 >>"$out/floor.txt"
  done
  full=$(median <"$out/retail.txt")
  proc=$(median <"$out/floor.txt")
  warm=$(build/bench/io_floor "$f" "$out/floor-$name" "$runs")
  gt=$(node bench/js/gltf_transform_io.mjs "$f" "$out/gt-$name" "$runs" 2>/dev/null || echo nan)
  awk -v n="$name" -v r="$full" -v p="$proc" -v w="$warm" -v g="$gt" 'BEGIN {
    printf "%-36s %9.1f %10.1f %10.1f %8s %9.1f %9.1f %8s\n", n, r / 1000, p / 1000, w, g,
      r / p, r / 1000 / w, (g == "nan" ? "-" : sprintf("%.1f", r / 1000 / g)) }'
done

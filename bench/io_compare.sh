#!/usr/bin/env bash
# Issue 7's side-by-side ratios: on each shared model, the full job (`retail IN OUT`: detect,
# chain, bake every clip, stretch report) against a plain tinygltf load + save of the same file
# (the I/O floor) and against @gltf-transform/core reading and writing it. Medians of RUNS runs.
#   bench/io_compare.sh [RUNS]   (needs build/retail, build/bench/io_floor, node; installs
#                                 bench/js's npm package from its lock file when missing)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
[[ -d bench/js/node_modules ]] || (cd bench/js && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-36s %9s %9s %9s %8s %8s\n' file retail-ms floor-ms gt-ms "x floor" "x gt"
for f in ../shared/data/auto-rigged/*.glb ../shared/data/originals/*.glb ../shared/data/originals/*.vrm; do
  name=$(basename "$f")
  full=$(for i in $(seq "$runs"); do
    s=$(date +%s%N); build/retail -q "$f" "$out/$name" >/dev/null 2>&1; echo $(( ($(date +%s%N) - s) / 1000 ))
  done | median)
  floor=$(build/bench/io_floor "$f" "$out/floor-$name" "$runs")
  gt=$(node bench/js/gltf_transform_io.mjs "$f" "$out/gt-$name" "$runs" 2>/dev/null || echo nan)
  awk -v n="$name" -v r="$full" -v fl="$floor" -v g="$gt" \
    'BEGIN { printf "%-36s %9.1f %9.1f %9s %8.1f %8s\n", n, r / 1000, fl, g, r / 1000 / fl, (g == "nan" ? "-" : sprintf("%.1f", r / 1000 / g)) }'
done

#!/usr/bin/env bash
# Per-stage wall times of `retail IN OUT` and `retail report` on every shared model: the median
# of RUNS runs (default 7), from the report's timings_ms. Results go in docs/performance.md.
#   bench/stage_times.sh [RUNS]      (needs build/retail; reads ../shared/data in place)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
data=../shared/data
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-36s %5s %7s %7s %7s %7s %7s %7s %7s %9s\n' file clips read valid skel rerig bake stretch write "report-ms"
for f in "$data"/auto-rigged/*.glb "$data"/originals/*.glb "$data"/originals/*.vrm; do
  name=$(basename "$f")
  for i in $(seq "$runs"); do
    build/retail -q "$f" "$out/$name" --report "$out/r$i.json"
    s=$(date +%s%N)
    build/retail report -q "$out/$name" >/dev/null
    echo $(( ($(date +%s%N) - s) / 1000 )) > "$out/m$i.txt"
  done
  node -e '
    const fs = require("fs"), dir = process.argv[1], runs = +process.argv[2], name = process.argv[3];
    const med = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
    const rs = [...Array(runs).keys()].map((i) => JSON.parse(fs.readFileSync(`${dir}/r${i + 1}.json`)));
    const t = (k) => med(rs.map((r) => r.timings_ms[k] ?? 0)).toFixed(1);
    const clips = (rs[0].characters[0]?.stretch?.clips ?? []).length;
    const report = med([...Array(runs).keys()].map((i) => +fs.readFileSync(`${dir}/m${i + 1}.txt`, "utf8") / 1000)).toFixed(1);
    console.log(`${name.padEnd(36)} ${String(clips).padStart(5)} ${t("read").padStart(7)} ${t("validate").padStart(7)} ` +
      `${t("skeleton").padStart(7)} ${t("rerig").padStart(7)} ${t("bake").padStart(7)} ${t("stretch").padStart(7)} ${t("write").padStart(7)} ${report.padStart(9)}`);
  ' "$out" "$runs" "$name"
done

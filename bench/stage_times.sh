#!/usr/bin/env bash
# Per-stage wall times of `retail IN OUT` on every shared model (the median of RUNS runs, default
# 7, from the report's timings_ms; `clips` is the bake and the stretch clip by clip on the
# workers, and the two columns after it their worker time from work_ms), its peak resident
# memory (GNU time), and the whole `retail report` process on the output. THREADS (default 0: one per core) is passed as
# --threads, so `THREADS=1 bench/stage_times.sh` shows the single-threaded cost.
# Results go in docs/performance.md.
#   bench/stage_times.sh [RUNS]      (needs build/retail and GNU time; reads ../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
threads=${THREADS:-0}
data=../shared/data
[[ -x /usr/bin/time ]] || { echo "stage_times: needs GNU time (apt-get install time)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-36s %5s %7s %7s %7s %7s %7s %7s %7s %7s %8s %9s\n' file clips read valid skel rerig \
  clips "bake-w" "strch-w" write peak-MB "report-ms"
for f in "$data"/auto-rigged/*.glb "$data"/originals/*.glb "$data"/originals/*.vrm; do
  name=$(basename "$f")
  for i in $(seq "$runs"); do
    /usr/bin/time -f "%M" -o "$out/k$i.txt" build/retail -q --threads "$threads" "$f" 2>/dev/null \
      "$out/$name" --report "$out/r$i.json"
    s=$(date +%s%N)
    build/retail report -q --threads "$threads" "$out/$name" >/dev/null
    echo $(( ($(date +%s%N) - s) / 1000 )) > "$out/m$i.txt"
  done
  node -e '
    const fs = require("fs"), dir = process.argv[1], runs = +process.argv[2], name = process.argv[3];
    const med = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
    const ids = [...Array(runs).keys()].map((i) => i + 1);
    const rs = ids.map((i) => JSON.parse(fs.readFileSync(`${dir}/r${i}.json`)));
    const t = (k) => med(rs.map((r) => r.timings_ms[k] ?? r.work_ms?.[k] ?? 0)).toFixed(1);
    const num = (p) => ids.map((i) => +fs.readFileSync(`${dir}/${p}${i}.txt`, "utf8"));
    const clips = (rs[0].characters[0]?.stretch?.clips ?? []).length;
    const report = (med(num("m")) / 1000).toFixed(1), peak = (med(num("k")) / 1024).toFixed(0);
    const cols = ["read", "validate", "skeleton", "rerig", "clips", "bake", "stretch", "write"].map((k) => t(k).padStart(7));
    console.log(`${name.padEnd(36)} ${String(clips).padStart(5)} ${cols.join(" ")} ${peak.padStart(8)} ${report.padStart(9)}`);
  ' "$out" "$runs" "$name"
done

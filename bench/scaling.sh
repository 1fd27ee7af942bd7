#!/usr/bin/env bash
# The scaling series of issue 7: generated characters with a tail at about 10k, 100k and 1M
# vertices (make_test_rig --segments S --subdivision R), the full job (detect, chain, bake of
# 4 clips, stretch report) timed per stage from the report (`clips`: the bake and the stretch,
# clip by clip; bake-w and strch-w their worker time), with peak memory (GNU time).
#   bench/scaling.sh            (needs build/retail, build/make_test_rig and GNU time)
# THREADS (default 0: one per core) is passed as --threads.
set -euo pipefail
cd "$(dirname "$0")/.."
threads=${THREADS:-0}
[[ -x /usr/bin/time ]] || { echo "scaling: needs GNU time (apt-get install time)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-9s %9s %8s %8s %8s %8s %8s %8s %8s %9s %8s\n' series vertices read valid rerig clips \
  bake-w strch-w write total-s peak-MB
for spec in "10k 32 3" "100k 96 10" "1M 300 31"; do
  set -- $spec
  build/make_test_rig --segments "$2" --subdivision "$3" "$out/in.glb" >/dev/null 2>&1
  /usr/bin/time -f "%e %M" -o "$out/time.txt" build/retail -q --threads "$threads" "$out/in.glb" \
    "$out/out.glb" --report "$out/r.json"
  node -e '
    const fs = require("fs"), [dir, name] = process.argv.slice(1);
    const r = JSON.parse(fs.readFileSync(`${dir}/r.json`)), t = { ...r.work_ms, ...r.timings_ms };
    const [secs, kb] = fs.readFileSync(`${dir}/time.txt`, "utf8").trim().split(/\s+/).map(Number);
    const v = r.characters[0].vertices?.source ?? r.characters[0].vertices;
    const f = (k) => (t[k] ?? 0).toFixed(0).padStart(8);
    console.log(`${name.padEnd(9)} ${String(v).padStart(9)} ${f("read")} ${f("validate")} ${f("rerig")} ` +
      `${f("clips")} ${f("bake")} ${f("stretch")} ${f("write")} ${secs.toFixed(2).padStart(9)} ${(kb / 1024).toFixed(0).padStart(8)}`);
  ' "$out" "$1"
done

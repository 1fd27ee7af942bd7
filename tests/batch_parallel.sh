#!/usr/bin/env bash
# docs/batch.md's GNU parallel recipe, run for real: three shards of one folder as three jobs
# give exactly the files (and bytes) of one unsharded batch, and the joined summaries list every
# file once. Usage: batch_parallel.sh RETAIL MAKE_TEST_RIG WORKDIR
set -euo pipefail
retail=$1 make_rig=$2 work=$3
rm -rf "$work" && mkdir -p "$work/in/a" "$work/in/b/c"
for i in 0 1 2 3 4 5 6; do
  sub=$([[ $((i % 2)) == 0 ]] && echo a || echo b/c)
  args=(); [[ $i == 3 ]] && args=(--tail hanging)
  "$make_rig" "${args[@]}" "$work/in/$sub/rig$i.glb" >/dev/null 2>&1
done
printf 'broken' > "$work/in/b/broken.glb"

# The recipe (docs/batch.md): one job per shard, each writing its own summary.
set +e
parallel --halt never "$retail" batch "$work/in" "$work/out" --shard {}/3 -j 1 -q \
  --summary "$work/summary-{}.jsonl" ::: 0 1 2
status=$?
set -e
[[ $status == 1 ]] || { echo "expected one shard to fail (exit 5 -> parallel 1), got $status"; exit 1; }

"$retail" batch "$work/in" "$work/whole" -q --summary "$work/whole.jsonl" && { echo "expected exit 5"; exit 1; } || true
lines=$(cat "$work"/summary-*.jsonl | wc -l)
[[ $lines == 8 ]] || { echo "joined summaries: $lines lines, want 8"; exit 1; }
diff <(cat "$work"/summary-*.jsonl | sed 's/"ms":[0-9.e+-]*,//' | sort) \
     <(sed 's/"ms":[0-9.e+-]*,//' "$work/whole.jsonl" | sort) >/dev/null \
  || { echo "sharded summaries differ from the unsharded one"; exit 1; }
for f in $(cd "$work/whole" && find . -name '*.glb'); do
  cmp -s "$work/whole/$f" "$work/out/$f" || { echo "differs: $f"; exit 1; }
done
[[ $(cd "$work/out" && find . -name '*.glb' | wc -l) == 7 ]] || { echo "want 7 outputs"; exit 1; }
echo "batch_parallel: 3 shards under GNU parallel == one batch (7 outputs, 1 failure reported)"

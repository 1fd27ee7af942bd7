#!/usr/bin/env bash
# Issue 14's figures on every shared tailed model: retail on each auto-rigged file, then
# tail_eval (tests/tail_eval.h) against the artist's rig: recall, precision, per-clip torn share
# of the artist's tail (artist / input / output). Usage: bench/tail_eval.sh BUILD_DIR OUT_DIR
# [retail args...]. Prints one line per model and a table per clip; writes OUT_DIR/*.eval.json.
set -euo pipefail
build=${1:?build dir}; out=${2:?out dir}; shift 2
shared="$(cd "$(dirname "$0")/../.." && pwd)/shared"
mkdir -p "$out"
pairs=()
for f in ${TAIL_EVAL_ONLY:-"$shared"/data/auto-rigged/*-tail-on-legs.glb "$shared"/animals/auto-rigged/*-tail-on-legs.glb}; do
  [[ -f $f ]] || continue
  base=$(basename "$f" -tail-on-legs.glb)
  dir=$(dirname "$(dirname "$f")")
  pairs+=("$f|$dir/originals/$base.glb")
done
for f in "$shared"/data/auto-rigged/character-grafted-tail*.glb "$shared"/real-rigger/*.glb; do
  [[ -f $f ]] && pairs+=("$f|prims:Body/3,Body/4")
done
for p in "${pairs[@]}"; do
  in=${p%%|*}; truth=${p#*|}; name=$(basename "$in" .glb)
  "$build/retail" "$in" "$out/$name.glb" -q "$@" || { echo "$name: retail exit $?"; continue; }
  "$build/tests/tail_eval" "$truth" "$in" "$out/$name.glb" > "$out/$name.eval.json"
  python3 - "$out/$name.eval.json" "$out/$name.report.json" "$name" <<'PY'
import json, sys
e = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2])); name = sys.argv[3]
worse = [c['clip'] for c in e['clips'] if c['output_torn'] > c['input_torn'] + 1e-9]
newly = [f"{c['clip']} {c['newly_torn']}>{c['noise_floor']}" for c in e['clips'] if c['newly_torn'] > c['noise_floor']]
walk_over = [c['clip'] for c in e['clips'] if 'Walk' in c['clip'] and c['artist_torn'] >= 0 and c['output_torn'] > c['artist_torn'] + 1e-9]
swing = [b['tip_swing_deg'] for ch in r['characters'] if 'bake' in ch for b in ch['bake']['clips'] if 'Walk' in b['name']]
seam = [b['loop_closure_deg'] for ch in r['characters'] if 'bake' in ch for b in ch['bake']['clips'] if not b.get('one_shot')]
over = [c['clip'] for c in e['clips'] if c['output_torn'] > max(c['artist_torn'], 0.5) + 1e-9]
decisions = [(p['decision'], p['vertices']) for ch in r['characters'] for p in ch['pieces']
             if p['decision'] not in ('head', 'small', 'body', 'broad', 'limb')]
print(f"{name:45s} recall {e['recall']:.3f} precision {e['precision']:.3f} "
      f"(by majority {e['recall_major']:.3f} / {e['precision_major']:.3f}) truth {e['truth']} rerigged {e['rerigged']} kept-other {e['kept_other']} false major/band {e['false_major']}/{e['false_band']} extremity-taken {e['extremity_taken']} worse-than-input {worse} over-limit {over} newly-torn-over-floor {newly} walk-over-artist {walk_over} walk-swing {min(swing) if swing else None} worst-loop {max(seam) if seam else None} {decisions}")
for c in e['clips']:
    print(f"    {c['clip'][:28]:28s} artist {c['artist_torn']:6.2f}  input {c['input_torn']:6.2f}  output {c['output_torn']:6.2f}  newly {c['newly_torn']:5d} healed {c['healed']:5d} floor {c['noise_floor']}  legs %H output {c.get('output_leg_depth', 0):5.2f} artist {c.get('artist_leg_depth', -1):5.2f} skin output {c.get('output_skin_leg_depth', 0):5.2f} artist {c.get('artist_skin_leg_depth', -1):5.2f}")
PY
done

#!/usr/bin/env bash
# A wider sweep than bench/variants.sh: generated characters over body plans x tail styles x
# sizes and meshes (make_test_rig), each run through one retail binary and scored by tests/tail_eval
# against its truth. One line per combination: the tail decisions, each chain's links, recall,
# precision and the clips whose tail tears more than the input's. Compare two builds by running
# it twice and diffing the lines (docs/detection.md section 2 and 5 quote such runs).
#   bench/body_plans.sh RETAIL_BIN OUT_DIR [retail args...]
# make_test_rig and tail_eval are taken beside RETAIL_BIN's build (MAKE_TEST_RIG, TAIL_EVAL to
# override); the inputs are generated once into OUT_DIR/inputs and reused.
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 RETAIL_BIN OUT_DIR [retail args...]" >&2; exit 2; }
bin=$(realpath "$1") out=$2
shift 2
build=$(dirname "$bin")
make_rig=${MAKE_TEST_RIG:-$build/make_test_rig}
tail_eval=${TAIL_EVAL:-$build/tests/tail_eval}
mkdir -p "$out/inputs"
bodies=("" "--horizontal" "--leftover-bone 0.15" "--thick-base" "--horizontal --hips-ahead 0.35"
  "--leftover-bone 0.3 --thick-base" "--bare-names --rotated --cm"
  "--horizontal --hips-ahead 0.35 --hips-above 0.1")
tails=(carried hanging curled short thin pressed rolled)
mods=("" "--tail-radius 1.6" "--tail-length 0.6 --segments 8" "--two-shells" "--spikes 12"
  "--subdivision 3" "--height 0.18" "--no-seams --segments 6")
i=0
for body in "${bodies[@]}"; do
  for tail in "${tails[@]}"; do
    for mod in "${mods[@]}"; do
      i=$((i + 1))
      args="$body --tail $tail $mod"
      in="$out/inputs/p$i.glb"
      # shellcheck disable=SC2086 # args is a list of options
      [[ -s $in ]] || "$make_rig" $args "$in" >/dev/null 2>&1 || { echo "p$i | $args | not generated"; continue; }
      "$bin" "$in" "$out/p$i.glb" -q "$@" 2>/dev/null || { echo "p$i | $args | retail exit $?"; continue; }
      "$tail_eval" "${in%.glb}.truth.json" "$in" "$out/p$i.glb" >"$out/p$i.eval.json"
      python3 - "$out/p$i.eval.json" "$out/p$i.report.json" "p$i" "$args" <<'PY'
import json, sys
e = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
c = r['characters'][0]
dec = [p['decision'] for p in c['pieces'] if p['decision'] not in ('small', 'body', 'head', 'limb', 'broad')]
links = [ch.get('K', len(ch.get('bones', [])) - 1) for ch in c['chains']]
worse = [x['clip'] for x in e['clips'] if x['output_torn'] > x['input_torn'] + 1e-9]
print(f"{sys.argv[3]} | {' '.join(sys.argv[4].split())} | {dec} links {links} | recall {e['recall']:.2f} precision {e['precision']:.2f} worse {worse}")
PY
    done
  done
done

#!/usr/bin/env bash
# Generated variants of every tail class (make_test_rig): sizes, curls, thicknesses, units,
# densities, spikes and plates, shells, no tail, and issue 28 point 6's shapes (a leftover bone
# along the tail's base, a horizontal body, a tail pressed to the rump, one rolled onto it).
# Runs one retail binary on each and prints one line per variant from its report: the decisions,
# and per chain its K, whether rigid, vertices, weighted bone distance before -> after, the harm
# check's largest torn share, the clips where the output tears more than the input (within the
# harm check's noise floor when listed), the tip swing on Walk, the worst loop closure and the
# verdict.
#   bench/variants.sh RETAIL_BIN OUT_DIR [retail args...]
# The inputs are generated once into OUT_DIR/inputs with make_test_rig beside RETAIL_BIN
# (MAKE_TEST_RIG to override). Compare two binaries by running it twice and diffing the lines.
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 RETAIL_BIN OUT_DIR [retail args...]" >&2; exit 2; }
bin=$(realpath "$1") out=$2
shift 2
make_rig=${MAKE_TEST_RIG:-$(dirname "$bin")/make_test_rig}
mkdir -p "$out/inputs"
variants=(
  "carried|--tail carried" "hanging|--tail hanging" "curled|--tail curled"
  "short|--tail short" "thin|--tail thin" "spiky|--tail carried --spikes 12"
  "thick-base|--tail carried --thick-base"
  "curled180-r0.6|--tail curled --curl 180 --tail-radius 0.6"
  "curled-h0.18|--tail curled --height 0.18" "curled-cm|--tail curled --cm --height 180"
  "carried-rotated-cm|--tail carried --rotated --cm" "hanging-h0.3|--tail hanging --height 0.3"
  "thin-r0.6-l1.5|--tail thin --tail-radius 0.6 --tail-length 1.5"
  "short-l0.6|--tail short --tail-length 0.6"
  "pompom|--tail short --tail-radius 3 --thick-base"
  "carried-r2-l1.4|--tail carried --tail-radius 2 --tail-length 1.4"
  "hanging-plates|--tail hanging --spikes 12 --tail-radius 1.3"
  "subdivision3|--tail carried --subdivision 3" "segments6|--tail hanging --segments 6"
  "two-shells|--tail carried --two-shells --rotated"
  "curled-thick-base|--tail curled --thick-base"
  "short-r2-thick-base|--tail short --tail-radius 2 --thick-base"
  "hanging-all-pieces|--tail hanging --all-pieces" "none|--tail none --all-pieces"
  "leftover-bone|--tail carried --tail-length 0.5 --leftover-bone 0.15"
  "leftover-bone-short-h0.18|--tail short --leftover-bone 0.2 --height 0.18"
  "horizontal|--tail carried --horizontal"
  "horizontal-ahead-h0.18|--tail carried --horizontal --hips-ahead 0.35 --hips-above 0.1 --height 0.18"
  "pressed|--tail pressed" "pressed-r1.4|--tail pressed --tail-radius 1.4"
  "pressed-l0.8-h0.18|--tail pressed --tail-length 0.8 --height 0.18"
  "rolled|--tail rolled" "rolled-horizontal|--tail rolled --horizontal"
)
for v in "${variants[@]}"; do
  name=${v%%|*} args=${v#*|}
  in="$out/inputs/$name.glb"
  # shellcheck disable=SC2086 # args is a list of options
  [[ -s $in ]] || "$make_rig" $args "$in" >/dev/null 2>&1
  "$bin" "$in" "$out/$name.glb" -q "$@" 2>/dev/null || { echo "$name: retail exit $?"; continue; }
  python3 - "$out/$name.report.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); name = sys.argv[2]
for c in r['characters']:
    harm = {h['piece']: h for h in c.get('harm_check', [])}
    clips = c.get('bake', {}).get('clips', [])
    walk = [round(b['tip_swing_deg'], 1) for b in clips if 'Walk' in b['name']]
    loop = max([b['loop_closure_deg'] for b in clips if not b['one_shot']] or [0])
    chains = []
    for ch in c['chains']:
        h = harm.get(ch['piece'], {}).get('clips', [])
        worse = [x['name'] for x in h if x['output_torn_percent'] > x['input_torn_percent'] + 1e-9]
        torn = max([x['output_torn_percent'] for x in h] or [0])
        d = ch['weighted_bone_distance']
        chains.append(f"K{ch['K']} rigid {int(ch['rigid'])} v {ch['vertices']} "
                      f"wbd {d['before']:.3f}->{d['after']:.3f} torn {torn:.2f} worse {worse}")
    decisions = [p['decision'] for p in c['pieces']
                 if p['decision'] not in ('head', 'small', 'body', 'broad', 'limb')]
    print(f"{name:20s} {decisions} walk {walk} loop {loop:.2f} | " + " || ".join(chains))
PY
done

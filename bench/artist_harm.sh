#!/usr/bin/env bash
# The artist's own rig judged the way the harm check judges retail's (docs/detection.md §5):
# per shared tailed model and clip, the edge-samples the artist's weights newly tear and heal
# relative to the auto-rigged input (tests/harm_edges TRUTH INPUT TRUTH: every edge with an end
# whose influences differ, 24 samples a clip, torn outside [0.67, 1.5]); "off-tail" counts edges
# with at most one end on the artist's tail (the seam and the body). A model whose artist rig
# newly tears far beyond the noise floor cannot be fixed by any rig that passes the rule.
# Usage: bench/artist_harm.sh BUILD_DIR
set -euo pipefail
build=${1:?build dir}
shared="$(cd "$(dirname "$0")/../.." && pwd)/shared"
for f in "$shared"/data/auto-rigged/*-tail-on-legs.glb "$shared"/animals/auto-rigged/*-tail-on-legs.glb; do
  [[ -f $f ]] || continue
  base=$(basename "$f" -tail-on-legs.glb)
  truth=$(dirname "$(dirname "$f")")/originals/$base.glb
  "$build/tests/harm_edges" "$truth" "$f" "$truth" 2>/dev/null | awk -F, -v m="$base" '
    NR > 1 { n[$4] += $5; h[$4] += $6; if ($3 < 2) o[$4] += $5; if ($4 + 1 > k) k = $4 + 1 }
    END { worst = 0; wc = -1
          for (c = 0; c < k; ++c) if (n[c] > worst) { worst = n[c]; wc = c }
          printf "%-14s clips %2d  worst clip %2d: newly %5d (off-tail %5d) healed %6d\n", m, k, wc,
                 worst, o[wc], h[wc] }'
done

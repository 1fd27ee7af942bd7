#!/usr/bin/env bash
# Writes the generated test rigs (every option variant) into OUT:  make_rigs.sh MAKE_TEST_RIG OUT
set -euo pipefail
gen=$1 out=$2
mkdir -p "$out"
"$gen" "$out/default.glb"
"$gen" "$out/all-pieces.glb" --all-pieces
"$gen" "$out/two-shells.glb" --two-shells --ears
"$gen" "$out/hanging.glb" --tail hanging
"$gen" "$out/bare-cm-rotated.glb" --bare-names --cm --rotated --all-pieces
"$gen" "$out/no-tail.glb" --tail none --ears
"$gen" "$out/long-strands.glb" --tail none --long-hair --hair-strands 12 --hair-length 1.4

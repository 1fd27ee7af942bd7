#!/usr/bin/env bash
# Blender (Debian's 3.4, headless) on retail's --hair output of the generated ponytail
# (make_test_rig --ponytail): tests/blender/check_output.py with the chain Hair_1_1..Hair_1_N,
# which must hang from the head bone, carry the ponytail's weights and be animated in every action.
# With a fourth argument `found`: no --hair, the hair retail finds itself (issue 31: the generated
# long hair's three clumps; the first chain, Hair_1_, is checked).
# Usage: run_hair.sh RETAIL PONYTAIL.glb OUT_DIR [found]
set -euo pipefail
retail=$1 rig=$2 out=$3 mode=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
command -v blender >/dev/null || { echo "blender not installed (scripts/setup.sh installs it)"; exit 1; }
[[ -f $rig ]] || { echo "blender-check: FAIL: $rig does not exist (make_test_rig --ponytail)"; exit 1; }
rm -rf "$out" && mkdir -p "$out"
if [[ $mode == found ]]; then
  "$retail" -q "$rig" "$out/ponytail-hair.glb"
else
  "$retail" -q "$rig" "$out/ponytail-hair.glb" --hair Ponytail
fi
log=$(blender -b --factory-startup --python "$here/check_output.py" -- "$out/ponytail-hair.glb" \
  "$out/ponytail-hair.reexport.glb" Hair_1_ mixamorig:Head 2>&1) || true
line=$(grep "^blender-check:" <<<"$log" || true)
if [[ $line == "blender-check: ok:"* ]]; then
  echo "$line"
else
  echo "${line:-blender-check: FAIL: ponytail-hair: no result}"; echo "$log" | tail -20; exit 1
fi

#!/usr/bin/env bash
# Blender (Debian's 3.4, headless) on retail's output of every shared auto-rigged file and of
# godette.vrm:
# tests/blender/check_output.py per file. Usage: run.sh RETAIL OUT_DIR SHARED_DATA
set -euo pipefail
retail=$1 out=$2 data=$3
here=$(cd "$(dirname "$0")" && pwd)
if [[ ! -d $data/auto-rigged ]]; then echo "SKIPPED: no $data/auto-rigged"; exit 0; fi
command -v blender >/dev/null || { echo "blender not installed (scripts/setup.sh installs it)"; exit 1; }
rm -rf "$out" && mkdir -p "$out"
status=0
for f in "$data"/auto-rigged/*.glb "$data"/originals/godette.vrm; do
  [[ -f $f ]] || continue
  base=$(basename "$f") name=${base%.*} ext=${base##*.}
  "$retail" -q "$f" "$out/$name.$ext"
  # Blender's importer reads .vrm files as GLB only under a .glb name.
  [[ $ext == glb ]] || cp "$out/$name.$ext" "$out/$name.glb"
  log=$(blender -b --factory-startup --python "$here/check_output.py" -- "$out/$name.glb" \
    "$out/$name.reexport.glb" 2>&1) || true
  line=$(grep "^blender-check:" <<<"$log" || true)
  if [[ $line == "blender-check: ok:"* ]]; then
    echo "$line"
  else
    echo "${line:-blender-check: FAIL: $name: no result}"; echo "$log" | tail -20; status=1
  fi
done
exit $status

#!/usr/bin/env bash
# The retail Blender add-on (integrations/blender) in Blender 3.4 headless: builds its zip
# (twice: the same bytes), then per shared *-tail-on-legs.glb installs the zip, runs "Fix tail
# with retail" and checks the result (tests/blender/addon_test.py; the first file also checks
# three error cases). Usage: addon_test.sh RETAIL OUT_DIR SHARED_DATA
set -euo pipefail
retail=$1 out=$2 data=$3
here=$(cd "$(dirname "$0")" && pwd)
zip_script=$here/../../integrations/blender/make_zip.sh
if [[ ! -d $data/auto-rigged ]]; then echo "SKIPPED: no $data/auto-rigged"; exit 0; fi
command -v blender >/dev/null || { echo "blender not installed (scripts/setup.sh installs it)"; exit 1; }
rm -rf "$out" && mkdir -p "$out/tmp"
"$zip_script" "$out/retail_blender.zip" >/dev/null
"$zip_script" "$out/again.zip" >/dev/null
cmp "$out/retail_blender.zip" "$out/again.zip" || { echo "FAIL: the add-on zip is not reproducible"; exit 1; }
# Blender installs add-ons into its user scripts folder: keep it (and its config) in OUT_DIR.
export BLENDER_USER_SCRIPTS=$out/user-scripts BLENDER_USER_CONFIG=$out/user-config TMPDIR=$out/tmp
status=0 files=0 extra=errors
for f in "$data"/auto-rigged/*-tail-on-legs.glb; do
  [[ -f $f ]] || continue
  files=$((files + 1))
  name=$(basename "$f" .glb)
  mkdir -p "$out/$name"
  log=$(blender -b --factory-startup --python "$here/addon_test.py" -- "$out/retail_blender.zip" \
    "$retail" "$f" "$out/$name" $extra 2>&1) || true
  extra=
  line=$(grep "^addon-test:" <<<"$log" || true)
  if [[ $line == "addon-test: ok:"* ]]; then
    echo "$line"
  else
    echo "${line:-addon-test: FAIL: $name: no result}"; echo "$log" | tail -20; status=1
  fi
done
if ((files == 0)); then echo "FAIL: no *-tail-on-legs.glb in $data/auto-rigged"; exit 1; fi
exit $status

#!/usr/bin/env bash
# The retail Blender add-on (integrations/blender) in Debian's Blender 3.4 headless, installed
# from its zip with no patch from the test (the add-on brings its own numpy shim): builds the zip
# (twice: the same bytes); on a generated rig whose tail the harm check rejects (make_test_rig
# --thick-base --ponytail) runs "Fix tail with retail" four times (rejection reported with why,
# re-run replaces, Add adds, a hair selection) and opens the QA page; then per shared
# *-tail-on-legs.glb (skipped when ../shared is absent) runs it and checks the result
# (tests/blender/addon_test.py; the first shared file also checks three error cases).
# Usage: addon_test.sh RETAIL MAKE_TEST_RIG OUT_DIR SHARED_DATA
set -euo pipefail
retail=$1 make_rig=$2 out=$3 data=$4
here=$(cd "$(dirname "$0")" && pwd)
zip_script=$here/../../integrations/blender/make_zip.sh
command -v blender >/dev/null || { echo "blender not installed (scripts/setup.sh installs it)"; exit 1; }
rm -rf "$out" && mkdir -p "$out/tmp"
"$zip_script" "$out/retail_blender.zip" >/dev/null
"$zip_script" "$out/again.zip" >/dev/null
cmp "$out/retail_blender.zip" "$out/again.zip" || { echo "FAIL: the add-on zip is not reproducible"; exit 1; }
# Blender installs add-ons into its user scripts folder: keep it (and its config) in OUT_DIR.
export BLENDER_USER_SCRIPTS=$out/user-scripts BLENDER_USER_CONFIG=$out/user-config TMPDIR=$out/tmp
status=0

# run_case NAME IN.glb EXTRA...: one Blender process on IN.glb; prints its addon-test line.
run_case() {
  local name=$1 file=$2 log line
  shift 2
  mkdir -p "$out/$name"
  log=$(blender -b --factory-startup --python "$here/addon_test.py" -- "$out/retail_blender.zip" \
    "$retail" "$file" "$out/$name" "$@" 2>&1) || true
  line=$(grep "^addon-test:" <<<"$log" || true)
  if [[ $line == "addon-test: ok:"* ]]; then
    echo "$line"
  else
    echo "${line:-addon-test: FAIL: $name: no result}"; echo "$log" | tail -20; status=1
  fi
}

"$make_rig" "$out/thick-ponytail.glb" --thick-base --ponytail >/dev/null
run_case thick-ponytail "$out/thick-ponytail.glb" generated

if [[ ! -d $data/auto-rigged ]]; then
  echo "SKIPPED the shared files: no $data/auto-rigged"
  exit $status
fi
files=0 extra=errors
for f in "$data"/auto-rigged/*-tail-on-legs.glb; do
  [[ -f $f ]] || continue
  files=$((files + 1))
  run_case "$(basename "$f" .glb)" "$f" $extra
  extra=
done
if ((files == 0)); then echo "FAIL: no *-tail-on-legs.glb in $data/auto-rigged"; exit 1; fi
exit $status

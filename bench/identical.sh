#!/usr/bin/env bash
# Byte-identical check for refactors: runs two retail binaries on every shared model and on a
# generated ~1M-vertex rig, and compares what they write.
#   bench/identical.sh BASE_BIN NEW_BIN OUTDIR
# Per input: `retail IN OUT` (default options; the output and its .report.json, plus sidecars of
# .gltf inputs) byte for byte, the report with `timings_ms` and `work_ms` removed
# (docs/report-schema.md), the exit code; `retail report IN --json` and `retail info IN --json`
# as written; `retail batch` over each shared folder of GLBs (outputs, reports and the summary
# with its `ms` removed); every `--help` text. The 1M rig is made with make_test_rig beside
# NEW_BIN (MAKE_TEST_RIG to override) and kept in OUTDIR/inputs. SHARED (default ../shared beside
# the repo) holds the models.
# Exit 0 when everything is identical, 1 when anything differs (listed), 2 on usage.
set -uo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 BASE_BIN NEW_BIN OUTDIR" >&2; exit 2; }
base=$(realpath "$1") new=$(realpath "$2") outdir=$3
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$(realpath -m "$repo/../shared")}
make_rig=${MAKE_TEST_RIG:-$(dirname "$new")/make_test_rig}
mkdir -p "$outdir" && outdir=$(realpath "$outdir")
rm -rf "$outdir/base" "$outdir/new"
mkdir -p "$outdir/base" "$outdir/new" "$outdir/inputs"

inputs=()
if [[ -d $shared ]]; then
  shopt -s nullglob
  for f in "$shared"/data/auto-rigged/*.glb "$shared"/data/originals/*.glb \
    "$shared"/data/originals/*.vrm "$shared"/animals/auto-rigged/*.glb \
    "$shared"/animals/originals/*.glb "$shared"/real-rigger/*.glb \
    "$shared"/data/springbone-fixtures/*.gltf "$shared"/data/springbone-fixtures/*.glb; do
    inputs+=("$f")
  done
  shopt -u nullglob
else
  echo "identical: no shared folder at $shared: only the generated rig is compared" >&2
fi
rig="$outdir/inputs/rig-1m.glb"
if [[ ! -s $rig ]]; then
  "$make_rig" --segments 300 --subdivision 31 "$rig" >/dev/null 2>&1 ||
    { echo "identical: could not generate the 1M rig with $make_rig" >&2; exit 2; }
fi
inputs+=("$rig")

strip_times() { # the report's text without its timing objects (docs/report-schema.md)
  awk '/^  "(timings_ms|work_ms)": \{/ { skip = 1; next } skip && /^  \}/ { skip = 0; next }
       !skip' "$1"
}

diffs=0 files=0
same() { # same WHAT FILE_A FILE_B [json]
  files=$((files + 1))
  if [[ ${4:-} == json ]]; then
    cmp -s <(strip_times "$2") <(strip_times "$3")
  else
    cmp -s "$2" "$3"
  fi || { echo "DIFFERS: $1 ($2 vs $3)"; diffs=$((diffs + 1)); }
}

# run BIN DIR IN NAME: writes DIR/NAME/{out.EXT, out.report.json, report.json, info.json, rc}
run_one() {
  local bin=$1 dir=$2/$4 in=$3 ext=${3##*.}
  [[ $ext == vrm ]] && ext=glb
  mkdir -p "$dir"
  (cd "$dir" && "$bin" -q "$in" "out.$ext" >/dev/null 2>stderr.txt; echo $? >rc)
  (cd "$dir" && "$bin" report "$in" --json report.json >/dev/null 2>&1; echo $? >report.rc)
  (cd "$dir" && "$bin" info "$in" --json >info.json 2>/dev/null; echo $? >info.rc)
}

for in in "${inputs[@]}"; do
  name=$(basename "$(dirname "$in")")-$(basename "$in")
  run_one "$base" "$outdir/base" "$in" "$name"
  run_one "$new" "$outdir/new" "$in" "$name"
  a=$outdir/base/$name b=$outdir/new/$name
  for f in $(cd "$a" && find . -type f | sort); do
    if [[ ! -e $b/$f ]]; then
      echo "MISSING in new: $name/$f"; diffs=$((diffs + 1)); continue
    fi
    case $f in
      *.report.json) same "$name/$f" "$a/$f" "$b/$f" json ;;
      *) same "$name/$f" "$a/$f" "$b/$f" ;;
    esac
  done
  for f in $(cd "$b" && find . -type f | sort); do
    [[ -e $a/$f ]] || { echo "EXTRA in new: $name/$f"; diffs=$((diffs + 1)); }
  done
  echo "$name: rc $(cat "$a/rc")/$(cat "$b/rc")" >&2
done

# retail batch over each shared folder of models (summary `ms` is a time).
if [[ -d $shared ]]; then
  for d in "$shared"/data/auto-rigged "$shared"/animals/auto-rigged "$shared"/real-rigger; do
    [[ -d $d ]] || continue
    name=batch-$(basename "$(dirname "$d")")-$(basename "$d")
    for side in base new; do
      bin=$base; [[ $side == new ]] && bin=$new
      (cd "$outdir/$side" && "$bin" -q batch "$d" "$name" -j 2 --summary "$name.jsonl" \
        >/dev/null 2>&1; echo $? >"$name.rc")
      sed -E 's/"ms":[-0-9.e+]+,//' "$outdir/$side/$name.jsonl" >"$outdir/$side/$name.summary" 2>/dev/null
    done
    same "$name rc" "$outdir/base/$name.rc" "$outdir/new/$name.rc"
    same "$name summary" "$outdir/base/$name.summary" "$outdir/new/$name.summary"
    for f in $(cd "$outdir/base/$name" && find . -type f | sort); do
      case $f in
        *.report.json) same "$name/$f" "$outdir/base/$name/$f" "$outdir/new/$name/$f" json ;;
        *) same "$name/$f" "$outdir/base/$name/$f" "$outdir/new/$name/$f" ;;
      esac
    done
  done
fi

# The command line's own texts (option binding): every --help.
for cmd in "" info report batch; do
  name=help-${cmd:-run}
  for side in base new; do
    bin=$base; [[ $side == new ]] && bin=$new
    (exec -a retail "$bin" $cmd --help) >"$outdir/$side/$name.txt" 2>&1
    echo $? >>"$outdir/$side/$name.txt"
  done
  same "$name" "$outdir/base/$name.txt" "$outdir/new/$name.txt"
done

echo "identical: ${#inputs[@]} inputs, $files files compared, $diffs differ"
[[ $diffs -eq 0 ]]

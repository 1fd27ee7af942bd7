#!/usr/bin/env bash
# The sweep behind the ears kind's thresholds (include/retail/grow/ears.h; docs/detection.md
# "Ears"): per shared model and generated head piece, the best pair of head pieces with every
# gate of EarsParams opened (size ratio, mirror error, height above the head joint, smallest
# piece, the bone it rides), one line each, so each file's distance from the thresholds shows.
#   bench/ears_sweep.sh BUILD_DIR
# Runs the hidden Catch2 case "[.ears_sweep]" of BUILD_DIR/tests/retail_tests (the shared models
# from ../shared beside the repo, as every shared-model test).
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
"$1/tests/retail_tests" "[.ears_sweep]" 2>/dev/null | grep '^ears_sweep ' | sed 's/^ears_sweep //'

#!/usr/bin/env bash
# Fails (exit 1, naming the files) when a tracked C++ file is not formatted as .clang-format
# says. Fix with: git ls-files '*.cpp' '*.h' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check_format: clang-format is missing (scripts/setup.sh)" >&2; exit 2; }
bad=$(git ls-files -z '*.cpp' '*.h' | xargs -0 clang-format --dry-run 2>&1 | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: warning:.*/\1/p' | sort -u)
if [[ -n $bad ]]; then
  echo "check_format: not formatted (clang-format -i these):" >&2
  echo "$bad" >&2
  exit 1
fi
echo "check_format: $(git ls-files '*.cpp' '*.h' | wc -l) files formatted"

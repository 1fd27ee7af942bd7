#!/usr/bin/env bash
# Installs what retail needs to build and test, skipping what is already there (idempotent).
# Debian packages: compiler, CMake, the six libraries, GNU parallel (the sharded-batch test),
# clang (its libFuzzer builds the fuzz smoke), clang-format (CI's format check), python3 (the
# layering check), Blender 3.4 and numpy for its glTF importer (the
# Blender client test);
# Node.js + npm for the real-client tests
# (glTF-Validator), whose npm packages go to tests/js/node_modules from the committed lock file.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(cmake g++ make libtinygltf-dev libeigen3-dev libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev catch2
      parallel clang clang-format python3 blender python3-numpy chromium)
command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
command -v npm >/dev/null 2>&1 || pkgs+=(npm)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) != 0 ]] && sudo="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages for the client tests, only when the lock file changed since the last install.
stamp=tests/js/node_modules/.retail-lock
if [[ ! -f $stamp ]] || ! cmp -s tests/js/package-lock.json "$stamp"; then
  echo "setup: installing npm packages for the client tests" >&2
  (cd tests/js && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  cp tests/js/package-lock.json "$stamp"
fi

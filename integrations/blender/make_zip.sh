#!/usr/bin/env bash
# Builds the Blender add-on zip (Edit > Preferences > Add-ons > Install...) deterministically:
# the package's .py files in sorted order, stored, with a fixed timestamp and mode, so the same
# sources give the same bytes. Usage: make_zip.sh [OUT.zip]  (default: retail_blender.zip here)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/retail_blender.zip}
python3 - "$here" "$out" <<'PY'
import os, sys, zipfile
src, out = sys.argv[1], sys.argv[2]
files = sorted(f for f in os.listdir(os.path.join(src, "retail_blender")) if f.endswith(".py"))
tmp = out + ".tmp"
with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
    for name in files:
        info = zipfile.ZipInfo("retail_blender/" + name, date_time=(1980, 1, 1, 0, 0, 0))
        info.external_attr = 0o100644 << 16
        info.create_system = 3
        with open(os.path.join(src, "retail_blender", name), "rb") as f:
            z.writestr(info, f.read())
os.replace(tmp, out)
print(out)
PY

#!/usr/bin/env bash
# Fetches MapLibre GL JS for the browser check from PyPI's maplibre 0.3.6 wheel (pinned by its
# SHA-256) and unpacks its scripts into DIR (default .build/browser-check/maplibre-0.3.6):
# maplibre-gl.js (MapLibre GL JS 5.3.0) and pywidget.js (5.3.1 with the pmtiles:// protocol).
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-.build/browser-check/maplibre-0.3.6}
sha256=eeafab617d4a1b71c0c174c71405f67c4b4e494fe1b27968d4d2359bc160e277
[ -f "$dir/pywidget.js" ] && [ -f "$dir/maplibre-gl.js" ] && exit 0

wheels=$(dirname "$dir")/wheels
mkdir -p "$wheels"
wheel=$wheels/maplibre-0.3.6-py3-none-any.whl
if ! echo "$sha256  $wheel" | sha256sum --check --status 2>/dev/null; then
  rm -f "$wheel"
  echo "fetching the maplibre 0.3.6 wheel for the browser check" >&2
  /usr/bin/python3 -m pip download --quiet --no-deps --only-binary :all: --dest "$wheels" \
    maplibre==0.3.6
  echo "$sha256  $wheel" | sha256sum --check --status || {
    echo "error: $wheel does not have the expected SHA-256" >&2
    exit 1
  }
fi
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
/usr/bin/python3 - "$wheel" "$dir.tmp" <<'PY'
import sys, zipfile, os
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for name in ("maplibre-gl.js", "maplibre-gl.css", "pywidget.js"):
        with open(os.path.join(sys.argv[2], name), "wb") as f:
            f.write(wheel.read("maplibre/srcjs/" + name))
PY
rm -rf "$dir"
mv "$dir.tmp" "$dir"

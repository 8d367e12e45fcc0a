#!/usr/bin/env bash
# The browser check: geopipe's tilesets drawn by MapLibre GL JS in headless Chromium, pixels
# checked against the source data (see check.py and docs/formats.md).
#
# Usage: Scripts/browser-check/run.sh [GEOPIPE]   (default .build/debug/geopipe)
# Needs chromium, python3-shapely and python3-numpy (Scripts/install-deps.sh installs them) and
# fetches MapLibre from PyPI's maplibre wheel into .build/browser-check once.
set -euo pipefail
cd "$(dirname "$0")/../.."
geopipe=$(realpath "${1:-.build/debug/geopipe}")
work=.build/browser-check/work
js=.build/browser-check/maplibre-0.3.6
Scripts/browser-check/fetch-maplibre.sh "$js"

rm -rf "$work"
mkdir -p "$work"
countries=Fixtures/geometry/ne_110m_countries.geojson.gz
for ext in mbtiles pmtiles; do
  "$geopipe" read "$countries" | "$geopipe" tiles "$work/countries.$ext" --max-zoom 5 \
    --layer countries --quiet
  "$geopipe" read Fixtures/tiles/points.geojson | "$geopipe" tiles "$work/points.$ext" \
    --max-zoom 5 --layer points --quiet
  "$geopipe" read Fixtures/cluster/places.json | "$geopipe" cluster --all-zooms --quiet |
    "$geopipe" tiles "$work/clusters.$ext" --max-zoom 5 --layer clusters --quiet
done
cp Fixtures/tiles/points.geojson "$work/points.geojson"
"$geopipe" read Fixtures/cluster/places.json | "$geopipe" cluster --zoom 3 --quiet |
  "$geopipe" write "$work/clusters-z3.geojson" --quiet

exec /usr/bin/python3 -B Scripts/browser-check/check.py --work "$work" --js "$js" \
  --countries "$countries"

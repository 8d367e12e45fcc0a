#!/usr/bin/env bash
# Regenerates Fixtures/render/basemap (see its README): the raster MBTiles (GDAL), the vector
# PMTiles (geopipe) and, with --goldens, the SVG golden files that
# Tests/CLITests/BasemapCLITests.swift compares against. Run it on purpose only.
#
# Usage: Scripts/gen-basemap-fixtures.sh [GEOPIPE] [--goldens]
set -euo pipefail
cd "$(dirname "$0")/.."
geopipe=$(realpath "${1:-.build/debug/geopipe}")
out=Fixtures/render/basemap
countries=Fixtures/geometry/ne_110m_countries.geojson.gz
if [ "${2:-}" != --goldens ]; then
  Scripts/make-raster-tileset.sh "$countries" "$out/world.mbtiles" PNG 2 marked
  "$geopipe" read --quiet "$countries" |
    "$geopipe" tiles "$out/countries.pmtiles" --quiet --max-zoom 2 --layer countries
  exit 0
fi
view=(--center 5,20 --zoom 1.4 --size 400x300)
render() { "$geopipe" render "$out/$1" "${view[@]}" "${@:2}" </dev/null; }
render satellite.svg --bearing 20 --basemap "$out/world.mbtiles"
render hybrid.svg --map-type hybrid --basemap "$out/world.mbtiles" --basemap "$out/countries.pmtiles"
render standard.svg --basemap "$out/countries.pmtiles"
render standard-style.svg --basemap "$out/countries.pmtiles" --basemap-style "$out/style.yaml"

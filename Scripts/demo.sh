#!/usr/bin/env bash
# The demo: runs Pipelines/demo.yaml (places to visit, by name, geocoded against the default
# gazetteer, clustered, styled, written as GeoJSON and drawn as a PNG map), then summarises the
# layer it wrote; then draws the places as a hybrid map over tiles it builds itself: raster
# tiles of Natural Earth's land and sea (GDAL, Scripts/make-raster-tileset.sh) under the
# country boundaries of geopipe's own vector tiles.
set -euo pipefail
bin=${1:-.build/debug/geopipe}
mkdir -p out/demo
"$bin" run Pipelines/demo.yaml
echo
"$bin" info out/demo/clusters-z4.geojson
countries=Data/naturalearth/ne_110m_countries.geojson.gz
Scripts/make-raster-tileset.sh "$countries" out/demo/world.mbtiles PNG 4
"$bin" read --quiet "$countries" |
  "$bin" tiles out/demo/countries.pmtiles --quiet --max-zoom 5 --layer countries
"$bin" read --quiet out/demo/places.geojson |
  "$bin" style --quiet --title '{name}' \
    --marker-color 'match(kind, city: #4e79a7, beach: #f28e2b, mountains: #e15759)' |
  "$bin" render out/demo/hybrid.png --map-type hybrid --basemap out/demo/world.mbtiles \
    --basemap out/demo/countries.pmtiles --size 960x720
echo
echo "outputs: out/demo/places.geojson (geocoded places), out/demo/places.pmtiles (their vector"
echo "tiles, zooms 0-10), out/demo/clusters-z4.geojson (styled clusters and places at zoom 4),"
echo "out/demo/map.png (the map), out/demo/hybrid.png (the places over raster tiles and country"
echo "boundaries built from Natural Earth: out/demo/world.mbtiles, out/demo/countries.pmtiles)"

#!/usr/bin/env bash
# Makes a raster MBTiles of the world from country polygons with GDAL: sea, and land in an
# earthy colour per continent (or with `marked`, land in one colour and France, Brazil and
# Australia in colours of their own, for Scripts/check-basemaps.py), rasterised in Web Mercator with gdal_rasterize, tiled with
# `gdal_translate -of MBTILES` and given its lower zooms with gdaladdo, and an attribution in
# its metadata.
#
# Usage: Scripts/make-raster-tileset.sh COUNTRIES.geojson[.gz] OUT.mbtiles [PNG|JPEG|WEBP]
#          [MAXZOOM] [marked]
set -euo pipefail
countries=$1
out=$2
format=${3:-PNG}
maxzoom=${4:-4}
marked=${5:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case "$countries" in
  *.gz) source="/vsigzip/$(realpath "$countries")" ;;
  *) source=$(realpath "$countries") ;;
esac
# Web Mercator stops at ±85.0511°: clip there first.
ogr2ogr -f GeoJSON -t_srs EPSG:3857 -clipsrc -180 -85.0511 180 85.0511 \
  "$work/countries.geojson" "$source"
half=20037508.342789244
size=$((256 << maxzoom))
gdal_rasterize -q -ot Byte -a_srs EPSG:3857 -te -$half -$half $half $half -ts $size $size \
  -init 40 -init 90 -init 160 -burn 225 -burn 215 -burn 190 \
  "$work/countries.geojson" "$work/world.tif"
burn() { # FIELD VALUE R G B
  gdal_rasterize -q -b 1 -b 2 -b 3 -burn "$3" -burn "$4" -burn "$5" -where "$1 = '$2'" \
    "$work/countries.geojson" "$work/world.tif"
}
if [ "$marked" = marked ]; then
  burn name France 220 30 30
  burn name Brazil 30 170 60
  burn name Australia 240 150 20
else
  burn continent Africa 196 170 112
  burn continent Europe 132 156 96
  burn continent Asia 176 158 108
  burn continent 'North America' 118 146 88
  burn continent 'South America' 92 138 72
  burn continent Oceania 190 160 100
  burn continent Antarctica 236 238 242
fi
rm -f "$out"
gdal_translate -q -of MBTILES -co TILE_FORMAT="$format" -co NAME=countries \
  "$work/world.tif" "$out"
factors=()
for ((k = 1; k <= maxzoom; k++)); do factors+=($((1 << k))); done
if [ ${#factors[@]} -gt 0 ]; then gdaladdo -q -r nearest "$out" "${factors[@]}"; fi
sqlite3 "$out" "DELETE FROM metadata WHERE name = 'attribution';
  INSERT INTO metadata (name, value) VALUES ('attribution', 'Made with Natural Earth');"

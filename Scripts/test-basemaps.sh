#!/usr/bin/env bash
# Checks `geopipe render --map-type` against raster tilesets made by GDAL (PNG and JPEG MBTiles
# of Natural Earth countries, Scripts/make-raster-tileset.sh, and a WebP copy whose tiles GDAL's
# WEBP driver encodes), their PMTiles copy and XYZ/TMS folders, and geopipe's vector tiles of the same countries (Scripts/check-basemaps.py).
#
# Usage: Scripts/test-basemaps.sh [GEOPIPE]   (default .build/debug/geopipe)
# Installs pmtiles from PyPI into .build/basemap-oracle once (a venv over Debian's python3,
# which has GDAL's bindings and numpy).
set -euo pipefail
cd "$(dirname "$0")/.."
geopipe=$(realpath "${1:-.build/debug/geopipe}")
venv=.build/basemap-oracle
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import pmtiles, numpy, osgeo"; then
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install --quiet pmtiles
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gzip -dc Fixtures/geometry/ne_110m_countries.geojson.gz >"$work/countries.geojson"
for format in PNG JPEG; do
  lower=$(echo "$format" | tr '[:upper:]' '[:lower:]')
  Scripts/make-raster-tileset.sh "$work/countries.geojson" "$work/world-$lower.mbtiles" "$format" 4 marked
done
exec "$venv/bin/python" -B Scripts/check-basemaps.py "$geopipe" "$work"

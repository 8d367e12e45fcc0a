#!/usr/bin/env bash
# Installs the Debian packages geopipe builds against and its tests use, if any are missing, and
# MapLibre GL JS for the browser check.
set -euo pipefail

# gdal-bin, python3-gdal: tests read MBTiles, KML and GeoPackage back with GDAL's ogrinfo and
# ogr2ogr, write GeoPackages with ogr2ogr, and check geopipe's with validate_gpkg.py.
# gdal-bin: tests read MBTiles and KML back with GDAL's ogrinfo, and GPX and KML as GDAL reads them.
# libxml2-dev: GPX and KML are read with libxml2's streaming reader.
# python3-shapely: the tile checks compare polygons with the system GEOS through Debian's own
# Python. chromium, python3-numpy, python3-pip: the browser check (Scripts/browser-check) draws
# tiles with MapLibre GL JS in headless Chromium and decides land and sea with shapely.
# libjpeg62-turbo-dev, libwebp-dev: render decodes JPEG and WebP raster tiles.
# libpq-dev: the PostgreSQL format; postgresql-15, postgresql-15-postgis-3: the throwaway
# server the PostGIS tests and benchmarks run against (Scripts/with-postgres.sh).
packages=(pkg-config zlib1g-dev libproj-dev proj-data libgeos-dev libjemalloc-dev libyaml-dev
  libxml2-dev libsqlite3-dev libcairo2-dev libshp-dev fonts-dejavu-core gdal-bin python3-gdal
  chromium python3-shapely python3-numpy python3-pip libpq-dev postgresql-15
  postgresql-15-postgis-3 libjpeg62-turbo-dev libwebp-dev
  libsnappy-dev libzstd-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "installing: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# MapLibre GL JS for the browser check, from PyPI's maplibre wheel into .build/browser-check.
"$(dirname "$0")"/browser-check/fetch-maplibre.sh

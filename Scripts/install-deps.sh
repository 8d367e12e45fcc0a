#!/usr/bin/env bash
# Installs the Debian packages geopipe builds against, if any are missing.
set -euo pipefail

# gdal-bin: tests read MBTiles and KML back with GDAL's ogrinfo. python3-shapely: the tile
# checks compare polygons with the system GEOS through Debian's own Python.
packages=(pkg-config zlib1g-dev libproj-dev proj-data libgeos-dev libjemalloc-dev libyaml-dev
  libsqlite3-dev libcairo2-dev fonts-dejavu-core gdal-bin python3-shapely)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

#!/usr/bin/env bash
# Checks reverse-geocode's countries against GEOS (Scripts/check-country-polygons.py, through
# Debian's python3-shapely) on points near borders, near coasts and inside the Natural Earth
# countries of the default gazetteer.
#
# Usage: Scripts/test-countries.sh [GEOPIPE]   (default .build/debug/geopipe)
set -euo pipefail
cd "$(dirname "$0")/.."
geopipe=${1:-.build/debug/geopipe}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 Scripts/check-country-polygons.py "$(realpath "$geopipe")" "$work"

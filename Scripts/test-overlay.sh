#!/usr/bin/env bash
# Checks join, clip and dissolve against GEOS (Scripts/check-overlay.py, through Debian's
# python3-shapely) on the US states and Natural Earth countries in Fixtures/.
#
# Usage: Scripts/test-overlay.sh [GEOPIPE]   (default .build/debug/geopipe)
set -euo pipefail
cd "$(dirname "$0")/.."
geopipe=${1:-.build/debug/geopipe}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 Scripts/check-overlay.py "$(realpath "$geopipe")" "$work"

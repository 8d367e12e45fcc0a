#!/usr/bin/env bash
# Checks simplify's ranked methods: against a reference implementation written apart from
# geopipe's (Scripts/simplify-reference.py: Visvalingam, weighted Visvalingam, Douglas-Peucker
# ranks, --percentage, --keep-shapes, on the fixtures in Fixtures/geometry), and the US states
# simplified with --shared-borders for gaps, overlaps and lost states with GEOS
# (Scripts/check-shared-borders.py, through Debian's python3-shapely).
#
# Usage: Scripts/test-simplify.sh [GEOPIPE]   (default .build/debug/geopipe)
set -euo pipefail
cd "$(dirname "$0")/.."
geopipe=$(realpath "${1:-.build/debug/geopipe}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 Scripts/simplify-reference.py "$geopipe" "$work"
zcat Fixtures/tiles/us_states_500k.geojson.gz > "$work/states.geojson"
"$geopipe" read "$work/states.geojson" --quiet > "$work/states.geojsonl"
for options in "--percentage 5%" "--percentage 2% --method dp" "--tolerance 0.02 --method visvalingam"; do
  # shellcheck disable=SC2086 # the options are words
  "$geopipe" simplify --shared-borders $options --quiet < "$work/states.geojsonl" \
    > "$work/simplified.geojsonl"
  printf 'us_states_500k simplify --shared-borders %s: ' "$options"
  /usr/bin/python3 -W ignore Scripts/check-shared-borders.py --expect-clean \
    "$work/states.geojsonl" "$work/simplified.geojsonl"
done

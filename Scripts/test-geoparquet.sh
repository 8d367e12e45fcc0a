#!/usr/bin/env bash
# Reads the GeoParquet fixtures (Fixtures/geoparquet, written by pyarrow, GeoPandas and DuckDB
# with each codec, page version and encoding: Scripts/gen-geoparquet-fixtures.py) with geopipe
# and compares each feature with what pyarrow reads; writes GeoParquet with geopipe and checks
# that pyarrow, GeoPandas and DuckDB read the same features and a valid `geo` metadata
# (Scripts/check-geoparquet.py); and checks that corrupt files are data errors (exit 65).
#
# Usage: Scripts/test-geoparquet.sh [GEOPIPE]   (default .build/debug/geopipe)
# Installs pyarrow, geopandas, shapely, duckdb and jsonschema from PyPI into
# .build/geoparquet-oracle once.
set -euo pipefail
cd "$(dirname "$0")/.."
geopipe=$(realpath "${1:-.build/debug/geopipe}")
venv=.build/geoparquet-oracle
if ! "$venv/bin/python" -c "import pyarrow, geopandas, shapely, duckdb, jsonschema" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet pyarrow geopandas shapely duckdb jsonschema
fi
python="$venv/bin/python"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Files of other writers, read by geopipe.
for file in Fixtures/geoparquet/*.parquet; do
  "$geopipe" read "$file" --quiet >"$work/read.geojsonl"
  "$python" Scripts/check-geoparquet.py read "$file" "$work/read.geojsonl"
done

# Files geopipe writes, read by the others: points with every kind of property, and polygons;
# several row groups, each codec.
"$geopipe" read Fixtures/tiles/points.geojson --quiet >"$work/points.geojsonl"
gzip -dc Fixtures/geometry/ne_110m_countries.geojson.gz >"$work/countries.geojson"
"$geopipe" read "$work/countries.geojson" --quiet >"$work/countries.geojsonl"
for codec in zstd snappy gzip none; do
  "$geopipe" write "$work/points-$codec.parquet" --compression "$codec" --row-group-size 7 \
    --quiet <"$work/points.geojsonl"
  "$python" Scripts/check-geoparquet.py written "$work/points-$codec.parquet" \
    "$work/points.geojsonl"
done
"$geopipe" write "$work/countries.parquet" --quiet <"$work/countries.geojsonl"
"$python" Scripts/check-geoparquet.py written "$work/countries.parquet" "$work/countries.geojsonl"

# Round trip: geopipe reads back what it wrote.
"$geopipe" read "$work/countries.parquet" --quiet >"$work/back.geojsonl"
"$python" Scripts/check-geoparquet.py read "$work/countries.parquet" "$work/back.geojsonl"

# Corrupt files: exit 65 naming the file (and the row group and column where there is one).
expect_data_error() { # FILE PATTERN
  local status=0
  # shellcheck disable=SC2086 # FILE may carry options
  "$geopipe" read $1 --quiet >"$work/out" 2>"$work/err" || status=$?
  if [ "$status" -ne 65 ] || ! grep -q -- "$2" "$work/err"; then
    echo "expected exit 65 and '$2' for $1, got $status:" >&2
    cat "$work/err" >&2
    exit 1
  fi
}
good=Fixtures/geoparquet/pyarrow-none.parquet
size=$(stat -c %s "$good")
{ printf 'PAR2'; tail -c +5 "$good"; } >"$work/magic.parquet"
expect_data_error "$work/magic.parquet" "expected GeoParquet"
cp "$work/magic.parquet" "$work/magic.bin"
expect_data_error "$work/magic.bin --input-format parquet" "does not start with PAR1"
{ head -c $((size - 8)) "$good"; printf '\xff\xff\xff\x7fPAR1'; } >"$work/footer.parquet"
expect_data_error "$work/footer.parquet" "footer's length"
# A page whose header promises more bytes than its Zstandard data decompresses to.
"$python" - Fixtures/geoparquet/pyarrow-zstd.parquet "$work/page.parquet" <<'PY'
import sys
import pyarrow.parquet as pq
data = bytearray(open(sys.argv[1], "rb").read())
column = pq.ParquetFile(sys.argv[1]).metadata.row_group(0).column(2)
start = column.dictionary_page_offset or column.data_page_offset
# The header: field 1 (the page type), then field 2, the uncompressed size, as a varint.
assert data[start] == 0x15 and data[start + 2] == 0x15
at = start + 3
bit = next(b for b in [2, 4, 8, 16, 32, 64] if not data[at] & b)  # zigzag: not the sign
data[at] |= bit  # a larger size, in as many bytes
open(sys.argv[2], "wb").write(data)
PY
expect_data_error "$work/page.parquet" "row group 0, column name: .*decompresses to"
echo "ok corrupt files"

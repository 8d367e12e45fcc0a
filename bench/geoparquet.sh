#!/usr/bin/env bash
# Benchmark GeoParquet reading and writing against GeoPandas (pyarrow; GeoJSONSeq through
# pyogrio) on 1M generated points and generated polygons: GeoJSONSeq → GeoParquet and
# GeoParquet → GeoJSONSeq (each tool reading the file the other wrote too), with wall time,
# CPU time (user + sys) and peak memory; then the share of row groups a --bbox read of 1% of
# the area decodes from a file sorted with `sort --by-hilbert`. DuckDB is measured when its
# spatial extension installs (it needs the network: said in the table when it does not).
# Prints a Markdown table to stdout and writes it to $BENCH_WORK/geoparquet/results.md.
#
# Environment (paths relative to the repository root):
#   GEOPIPE            binary to test                     (.build/release/geopipe)
#   BENCH_WORK         scratch folder                     (bench/.work)
#   BENCH_RUNS         runs per measurement, best is kept (3)
#   BENCH_POINTS       points                             (1000000)
#   BENCH_POLYGON_MB   size of the generated polygon set  (100)
set -euo pipefail

BENCH_NAME="geoparquet bench"
source "$(dirname "$0")/common.sh"

RUNS=${BENCH_RUNS:-3}
POINTS=${BENCH_POINTS:-1000000}
POLYGON_MB=${BENCH_POLYGON_MB:-100}
W=$WORK/geoparquet
mkdir -p "$W"
command -v "$GEOPIPE" >/dev/null || die "no geopipe binary at $GEOPIPE"
[ -x /usr/bin/time ] || die "needs /usr/bin/time (apt-get install time)"
VENV=$ROOT/.build/geoparquet-oracle
if ! "$VENV/bin/python" -c "import geopandas, pyarrow, pyogrio, duckdb" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet pyarrow geopandas shapely pyogrio duckdb
fi
PY=$VENV/bin/python

points=$W/points-$POINTS.geojsonl
if [ ! -s "$points" ]; then
  log "generating $(basename "$points")"
  python3 "$BENCH/generate_points.py" --points "$POINTS" --seq "$points.tmp"
  mv "$points.tmp" "$points"
fi
polygons=$W/polygons-${POLYGON_MB}MB.geojsonl
if [ ! -s "$polygons" ]; then
  log "generating $(basename "$polygons")"
  python3 "$BENCH/generate_polygons.py" --megabytes "$POLYGON_MB" "$polygons.all"
  "$GEOPIPE" filter --quiet --geometry-type Polygon,MultiPolygon <"$polygons.all" >"$polygons.tmp"
  rm -f "$polygons.all"
  mv "$polygons.tmp" "$polygons"
fi

RESULTS=$W/results.tsv
: >"$RESULTS"
measure() { # CASE TOOL OUTPUT COMMAND...
  local case=$1 tool=$2 out=$3
  shift 3
  best_of "$case" "$tool" "$out" "$RUNS" "$RESULTS" "$@"
}
lines() { grep -c . "$1" || true; }

DUCKDB_NOTE="DuckDB: not measured, its spatial extension did not install (it is downloaded from extensions.duckdb.org)"
if "$PY" -c "import duckdb; duckdb.sql('INSTALL spatial; LOAD spatial')" >/dev/null 2>&1; then
  DUCKDB_NOTE=""
fi

for label in points polygons; do
  in=$points
  [ $label = polygons ] && in=$polygons
  n=$(lines "$in")
  ours=$W/$label-geopipe.parquet
  theirs=$W/$label-geopandas.parquet
  measure "$label GeoJSONSeq → GeoParquet" geopipe "$ours" "$GEOPIPE" convert --quiet "$in" "$ours"
  measure "$label GeoJSONSeq → GeoParquet" geopandas "$theirs" \
    "$PY" "$BENCH/geopandas_parquet.py" to-parquet "$in" "$theirs"
  for source in geopipe geopandas; do
    file=$W/$label-$source.parquet
    out=$W/$label-$source-by-geopipe.geojsonl
    measure "$label GeoParquet ($source's) → GeoJSONSeq" geopipe "$out" \
      "$GEOPIPE" convert --quiet "$file" "$out"
    [ "$(lines "$out")" = "$n" ] || die "geopipe read $(lines "$out") of $n features from $file"
    out=$W/$label-$source-by-geopandas.geojsonl
    measure "$label GeoParquet ($source's) → GeoJSONSeq" geopandas "$out" \
      "$PY" "$BENCH/geopandas_parquet.py" to-geojsonseq "$file" "$out"
    if [ -z "$DUCKDB_NOTE" ]; then
      out=$W/$label-$source-by-duckdb.geojsonl
      measure "$label GeoParquet ($source's) → GeoJSONSeq" duckdb "$out" "$PY" -c "
import duckdb; duckdb.sql('LOAD spatial')
duckdb.sql(\"COPY (SELECT * FROM '$file') TO '$out' (FORMAT gdal, DRIVER 'GeoJSONSeq')\")"
    fi
  done
done

# --bbox of 1% of the area (a tenth of the longitudes and of the latitudes) on the points,
# sorted along a Hilbert curve, in row groups of 10,000.
sorted=$W/points-hilbert.parquet
"$GEOPIPE" sort --quiet --by-hilbert <"$points" |
  "$GEOPIPE" write --quiet --row-group-size 10000 "$sorted"
"$GEOPIPE" read --bbox 10,10,46,28 "$sorted" >"$W/bbox.geojsonl" 2>"$W/bbox.err"
BBOX_NOTE=$(grep -o 'read [0-9]* of [0-9]* row groups' "$W/bbox.err" || true)
unsorted=$W/points-geopipe.parquet
"$GEOPIPE" read --bbox 10,10,46,28 "$unsorted" >/dev/null 2>"$W/bbox-unsorted.err"
UNSORTED_NOTE=$(grep -o 'read [0-9]* of [0-9]* row groups' "$W/bbox-unsorted.err" || true)

{
  echo "| case | tool | wall s | CPU s (user+sys) | peak RSS MB |"
  echo "| --- | --- | ---: | ---: | ---: |"
  awk -F'\t' '{ printf "| %s | %s | %.2f | %.2f | %d |\n", $1, $2, $3, $5, $4 / 1024 }' "$RESULTS"
  echo
  echo "--bbox 10,10,46,28 (1% of the area) on $POINTS points: Hilbert-sorted file, $BBOX_NOTE" \
    "($(lines "$W/bbox.geojsonl") features); input-order file, $UNSORTED_NOTE."
  [ -z "$DUCKDB_NOTE" ] || echo "$DUCKDB_NOTE."
  echo "Load while measuring: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min), $(nproc) cores."
} | tee "$W/results.md"

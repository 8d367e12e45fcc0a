#!/usr/bin/env bash
# Benchmark loading into and reading from PostGIS against ogr2ogr (GDAL's PostgreSQL driver,
# in its default COPY mode) and psycopg 3 COPY (bench/psycopg_copy.py): 1M generated points,
# the US states (polygons, 8.7 MB) and ~100 MB of generated polygons, GeoJSONSeq → table
# (each tool creating its table, GiST index included) and table → GeoJSONSeq, on a throwaway
# server. Prints a Markdown table to stdout and writes it to $BENCH_WORK/postgis/results.md.
#
# Run through the server script: Scripts/with-postgres.sh bench/postgis.sh
#
# Environment (paths relative to the repository root):
#   GEOPIPE               binary to test                (.build/release/geopipe)
#   BENCH_WORK            scratch folder                (bench/.work)
#   BENCH_RUNS            runs per measurement, best is kept (3)
#   BENCH_POINTS          points in the large set        (1000000)
#   BENCH_POLYGON_MB      size of the generated polygon set in MB (100)
set -euo pipefail

BENCH_NAME="postgis bench"
source "$(dirname "$0")/common.sh"

RUNS=${BENCH_RUNS:-3}
POINTS=${BENCH_POINTS:-1000000}
POLYGON_MB=${BENCH_POLYGON_MB:-100}
[ -n "${PGHOST:-}" ] || die "no server: run it as Scripts/with-postgres.sh bench/postgis.sh"
command -v "$GEOPIPE" >/dev/null || die "no geopipe binary at $GEOPIPE"
command -v ogr2ogr >/dev/null || die "needs ogr2ogr (apt-get install gdal-bin)"
[ -x /usr/bin/time ] || die "needs /usr/bin/time (apt-get install time)"
W=$WORK/postgis
mkdir -p "$W"
DB="postgresql:///$PGDATABASE"
PG="PG:dbname=$PGDATABASE"

# psycopg 3 from PyPI, in a virtual environment under the scratch folder.
VENV=$WORK/pg-venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import psycopg" 2>/dev/null; then
  log "installing psycopg 3 into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "psycopg[binary]"
fi

# --- data -------------------------------------------------------------------
POINTS_FILE=$W/points-$POINTS.geojsonl
[ -s "$POINTS_FILE" ] || python3 "$BENCH/generate_points.py" --points "$POINTS" --seq "$POINTS_FILE"
STATES=$W/us_states.geojsonl
[ -s "$STATES" ] || gzip -dc Fixtures/tiles/us_states_500k.geojson.gz |
  "$GEOPIPE" read --quiet --keep-crs --crs EPSG:4326 >"$STATES"
POLYS=$W/polygons-${POLYGON_MB}MB.geojsonl
if [ ! -s "$POLYS" ]; then
  python3 "$BENCH/generate_polygons.py" --megabytes "$POLYGON_MB" "$POLYS.all"
  "$GEOPIPE" filter --quiet --geometry-type Polygon,MultiPolygon <"$POLYS.all" >"$POLYS"
  rm -f "$POLYS.all"
fi

# --- measuring --------------------------------------------------------------
RESULTS=$W/results.tsv
: >"$RESULTS"
measure() { # CASE TOOL COMMAND...: best wall time, its peak memory and the least CPU time
  local case=$1 tool=$2
  shift 2
  best_of "$case" "$tool" "" "$RUNS" "$RESULTS" "$@"
}
rows() { psql -X -A -t -c "SELECT count(*) FROM $1"; }
check() { # TABLE EXPECTED
  local got
  got=$(rows "$1")
  [ "$got" = "$2" ] || die "$1 has $got rows, expected $2"
}

for label in points states polygons; do
  case $label in
    points) in=$POINTS_FILE ;;
    states) in=$STATES ;;
    polygons) in=$POLYS ;;
  esac
  n=$(grep -c . "$in")
  measure "$label → table" geopipe \
    "$GEOPIPE" convert --quiet "$in" "$DB" --table "gp_$label" --if-exists replace
  check "gp_$label" "$n"
  measure "$label → table" ogr2ogr ogr2ogr -f PostgreSQL "$PG" "$in" -nln "ogr_$label" -overwrite
  check "ogr_$label" "$n"
  measure "$label → table" psycopg "$VENV/bin/python" "$BENCH/psycopg_copy.py" "$in" "py_$label"
  check "py_$label" "$n"
  measure "table → GeoJSONSeq ($label)" geopipe \
    sh -c "\"\$0\" read --quiet \"\$1\" --table \"\$2\" >\"\$3\"" "$GEOPIPE" "$DB" "gp_$label" "$W/out.geojsonl"
  [ "$(grep -c . "$W/out.geojsonl")" = "$n" ] || die "geopipe read back the wrong number of features"
  measure "table → GeoJSONSeq ($label)" ogr2ogr \
    ogr2ogr -f GeoJSONSeq "$W/out-ogr.geojsonl" "$PG" "gp_$label"
  [ "$(grep -c . "$W/out-ogr.geojsonl")" = "$n" ] || die "ogr2ogr read back the wrong number of features"
done

{
  echo "| case | tool | best wall s | CPU s (user+sys) | peak RSS MB | speedup (wall) vs ogr2ogr |"
  echo "|---|---|---:|---:|---:|---:|"
  awk -F'\t' '
    { wall[$1 "|" $2] = $3; order[NR] = $1 "|" $2; tsv[NR] = $0 }
    END {
      for (i = 1; i <= NR; i++) {
        split(tsv[i], f, "\t")
        ref = wall[f[1] "|ogr2ogr"]
        printf "| %s | %s | %.2f | %.2f | %d | %s |\n", f[1], f[2], f[3], f[5], f[4] / 1024,
          (ref > 0 && f[3] > 0) ? sprintf("%.1f×", ref / f[3]) : "–"
      }
    }' "$RESULTS"
} | tee "$W/results.md"

#!/usr/bin/env bash
# The PostGIS tests, against the throwaway server of Scripts/with-postgres.sh: the CLI suite
# (Tests/CLITests/PostgreSQLTests.swift, skipped when no server is set up), GDAL's PostgreSQL
# driver as the oracle both ways (ogr2ogr reads a table geopipe wrote, geopipe reads a table
# ogr2ogr wrote, and both agree with the source to the bit), and loads that fail or are
# interrupted with SIGINT in the middle of their COPY leaving the database as it was.
#
# Usage: Scripts/with-postgres.sh Scripts/test-postgis.sh [GEOPIPE]   (default .build/debug/geopipe)
set -euo pipefail
cd "$(dirname "$0")/.."
geopipe=$(realpath "${1:-.build/debug/geopipe}")
if [ -z "${PGHOST:-}" ]; then
  echo "$0: no server: run it as Scripts/with-postgres.sh $0" >&2
  exit 64
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db="postgresql:///$PGDATABASE"
sql() { psql -X -A -t -v ON_ERROR_STOP=1 -c "$1"; }
fail() { echo "test-postgis: FAIL: $*" >&2; exit 1; }

echo "== CLI suite (PostgreSQLTests)"
${SWIFT:-swift} test --filter PostgreSQLTests 2>&1 | tail -n 15

# The US states without their NAD83 crs member, as WGS84 (so no datum shift is involved).
zcat Fixtures/tiles/us_states_500k.geojson.gz | /usr/bin/python3 -c '
import json, sys
collection = json.load(sys.stdin)
collection.pop("crs")
json.dump(collection, sys.stdout)' >"$work/states.geojson"

echo "== ogr2ogr reads a table geopipe wrote"
"$geopipe" convert "$work/states.geojson" "$db" --table gp_states
ogr2ogr -f GeoJSON "$work/ogr-reads-gp.geojson" PG:"dbname=$PGDATABASE" gp_states
/usr/bin/python3 Scripts/compare-features.py "$work/states.geojson" "$work/ogr-reads-gp.geojson" \
  --key GEOID

echo "== geopipe reads a table ogr2ogr wrote"
ogr2ogr -f PostgreSQL PG:"dbname=$PGDATABASE" "$work/states.geojson" -nln ogr_states \
  -lco LAUNDER=NO
"$geopipe" read "$db" --table ogr_states --fid-column ogc_fid >"$work/gp-reads-ogr.geojsonl"
ogr2ogr -f GeoJSON "$work/ogr-reads-ogr.geojson" PG:"dbname=$PGDATABASE" ogr_states
/usr/bin/python3 Scripts/compare-features.py "$work/states.geojson" "$work/gp-reads-ogr.geojsonl" \
  --key GEOID
/usr/bin/python3 Scripts/compare-features.py "$work/ogr-reads-ogr.geojson" \
  "$work/gp-reads-ogr.geojsonl" --key GEOID

echo "== SIGINT in the middle of a COPY leaves the old table"
/usr/bin/python3 bench/generate_points.py --seq "$work/points.geojsonl"
"$geopipe" write "$db" --table points <"$work/states.geojson"
before=$(sql "SELECT count(*) FROM points")
"$geopipe" write "$db" --table points --if-exists replace <"$work/points.geojsonl" >/dev/null &
pid=$!
for _ in $(seq 1 1800); do
  copying=$(sql "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY %FROM STDIN%'")
  [ "$copying" = 1 ] && break
  sleep 0.1
done
[ "$copying" = 1 ] || fail "the load never reached its COPY"
sleep 0.3
kill -INT "$pid"
status=0
wait "$pid" || status=$?
[ "$status" = 130 ] || fail "geopipe ended with $status after SIGINT, not 130"
sleep 0.5
after=$(sql "SELECT count(*) FROM points")
[ "$before" = "$after" ] || fail "points has $after rows after the interrupted load, not $before"
leftover=$(sql "SELECT count(*) FROM pg_tables WHERE tablename LIKE '%geopipe%'")
[ "$leftover" = 0 ] || fail "tables left behind by the interrupted load"
echo "ok: $after rows before and after"
echo "test-postgis: all passed"

#!/usr/bin/env bash
# The PostGIS tests, against the throwaway server of Scripts/with-postgres.sh: the CLI suite
# (Tests/CLITests/PostgreSQLTests.swift, skipped when no server is set up), GDAL's PostgreSQL
# driver as the oracle both ways (ogr2ogr reads a table geopipe wrote, geopipe reads a table
# ogr2ogr wrote, and both agree with the source to the bit), and loads that fail or are
# interrupted with SIGINT in the middle of their COPY leaving the database as it was, and a table
# read in shards merging to what one run reads.
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
echo "== a table read in 1, 2, 3 and 7 shards merges to the one-run output"
# Rows deleted and updated (an update moves a row to the table's end), so that the blocks hold
# uneven numbers of rows; a query source is read whole by one shard.
/usr/bin/python3 -c '
import json
for k in range(20000):
    print(json.dumps({"type": "Feature", "properties": {"k": k, "name": "point %d" % k},
                      "geometry": {"type": "Point", "coordinates": [k % 360 - 180 + 0.5, k % 170 - 85]}}))
' >"$work/sharded.geojsonl"
"$geopipe" write "$db" --table sharded <"$work/sharded.geojsonl"
sql "DELETE FROM sharded WHERE k % 7 = 3 OR k BETWEEN 4000 AND 6500" >/dev/null
sql "UPDATE sharded SET name = 'moved' WHERE k % 13 = 0" >/dev/null
cat >"$work/sharded.yaml" <<EOF
version: 1
vars:
  out: out
stages:
  - read: {path: "$db", table: sharded}
  - write: {path: "\${out}/table.geojsonl"}
  - read: {path: "$db", table: sharded, bbox: "-10,-10,10,10"}
  - write: {path: "\${out}/bbox.csv"}
  - read: {path: "$db", sql: "SELECT * FROM sharded WHERE k < 500"}
  - write: {path: "\${out}/query.geojsonl"}
EOF
"$geopipe" run "$work/sharded.yaml" --var out="$work/one" -q
rows=$(sql "SELECT count(*) FROM sharded")
[ "$(wc -l <"$work/one/table.geojsonl")" = "$rows" ] || fail "one run did not read $rows rows"
blocks=$(sql "SELECT pg_relation_size('sharded') / current_setting('block_size')::int")
for n in 1 2 3 7; do
  for i in $(seq $((n - 1)) -1 0); do
    "$geopipe" run "$work/sharded.yaml" --shard "$i/$n" --var out="$work/shards-$n" -q
  done
  "$geopipe" merge "$work/sharded.yaml" --shards "$n" --var out="$work/shards-$n" -q
  for output in table.geojsonl bbox.csv query.geojsonl; do
    cmp -s "$work/one/$output" "$work/shards-$n/$output" || fail "$output differs in $n shards"
  done
done
# Shard i of 7 reads the rows of about blocks [i·blocks/7, (i+1)·blocks/7), the last one to the
# end: each reads its blocks' rows and no more.
parts=0
for i in $(seq 0 6); do
  got=$(wc -l <"$work/shards-7/table.geojsonl.step2.part-$i-of-7.geojsonl")
  from=$((i * blocks / 7 - 1))
  [ "$from" -ge 0 ] || from=0
  most=$(sql "SELECT count(*) FROM sharded WHERE ctid >= '($from,0)'
    AND ctid < '($(((i + 1) * blocks / 7 + 1)),0)'")
  [ "$got" -gt 0 ] && [ "$got" -le "$most" ] ||
    fail "shard $i/7 read $got rows, not those of its seventh of the $blocks blocks"
  parts=$((parts + got))
done
[ "$parts" = "$rows" ] || fail "the 7 shards read $parts rows, not $rows"
echo "ok: $rows rows in $blocks blocks, in 1, 2, 3 and 7 shards"
echo "test-postgis: all passed"

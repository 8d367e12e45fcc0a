#!/usr/bin/env bash
# Benchmark spatial joins and countries from polygons: 1M points joined to the Natural Earth
# 1:10m countries end to end (GeoJSONSeq in, join, GeoJSONSeq out) by `geopipe join`,
# GeoPandas `sjoin` and DuckDB's spatial extension (both installed from PyPI into a virtual
# environment of the script's own), then `geopipe reverse-geocode` on the same points with the
# default gazetteer's country polygons and without them. Prints a Markdown table to stdout
# and writes it to $BENCH_WORK/join-results.md; raw measurements (tab-separated) go to
# $BENCH_WORK/join-results.tsv.
#
# Environment (paths relative to the repository root):
#   GEOPIPE        geopipe binary                            (BUILD_PATH/release/geopipe)
#   DATA           folder with cities145k.geojson.gz        (../shared/data)
#   BENCH_WORK     scratch folder                            (bench/.work)
#   BENCH_RUNS     runs per measurement, best is kept        (3)
#   JOIN_PEER_RUNS runs of the GeoPandas and DuckDB joins     (BENCH_RUNS)
#   DUCKDB_POINTS  points DuckDB joins: the first of the file (100000; a 1M-point run had
#                  written a fifth of its output after 8 minutes)
#   JOIN_POINTS    points                                    (1000000)
#   JOIN_SEED      seed of the points                        (7)
set -euo pipefail

BENCH_NAME="join bench"
source "$(dirname "$0")/common.sh"

RUNS=${BENCH_RUNS:-3}
PEER_RUNS=${JOIN_PEER_RUNS:-$RUNS}
DUCKDB_POINTS=${DUCKDB_POINTS:-100000}
POINTS=${JOIN_POINTS:-1000000}
SEED=${JOIN_SEED:-7}
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
command -v "$GEOPIPE" >/dev/null || die "no geopipe binary at $GEOPIPE (run 'make release' or set GEOPIPE)"
[ -x /usr/bin/time ] || die "needs /usr/bin/time (apt-get install time)"
mkdir -p "$WORK"

# --- the peers --------------------------------------------------------------
VENV=$WORK/join-venv
DUCKDB_VERSION=1.5.5
if ! "$VENV/bin/python" -c 'import geopandas, pyogrio, shapely' 2>/dev/null; then
  log "installing geopandas, pyogrio and shapely 2 from PyPI into $VENV"
  python3 -m venv --clear "$VENV" >&2
  "$VENV/bin/pip" install --quiet --disable-pip-version-check geopandas pyogrio 'shapely>=2' >&2
fi
DUCKDB_NOTE=""
if ! "$VENV/bin/python" -c 'import duckdb, duckdb_extension_spatial' 2>/dev/null; then
  log "installing duckdb $DUCKDB_VERSION and duckdb-extension-spatial from PyPI"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "duckdb==$DUCKDB_VERSION" \
    "duckdb-extension-spatial==$DUCKDB_VERSION" >&2 || DUCKDB_NOTE="pip install failed"
fi
SPATIAL=$("$VENV/bin/python" -c 'import duckdb_extension_spatial, glob, os
print(glob.glob(os.path.dirname(duckdb_extension_spatial.__file__) + "/extensions/*/spatial.duckdb_extension")[0])' \
  2>/dev/null || true)
PY=$VENV/bin/python
versions=$("$PY" -c 'import geopandas, shapely, pyogrio, pandas
print(f"geopandas {geopandas.__version__}, shapely {shapely.__version__} (GEOS {shapely.geos_version_string}), pyogrio {pyogrio.__version__} (GDAL {pyogrio.__gdal_version_string__}), pandas {pandas.__version__}")')

# --- data -------------------------------------------------------------------
N=$(( POINTS / 1000000 ))M
SEQ=$WORK/join-points-$N-seed$SEED.geojsonl
if [ ! -s "$SEQ" ]; then
  jittered=$(jittered_points "$POINTS" "$SEED" "$N")
  "$GEOPIPE" read -q "$jittered" >"$SEQ.tmp"
  mv "$SEQ.tmp" "$SEQ"
fi
COUNTRIES=$WORK/ne_10m_admin_0_countries.geojsonl
gzip -dc "$ROOT/Data/naturalearth/ne_10m_admin_0_countries.geojsonl.gz" >"$COUNTRIES"

RESULTS=$WORK/join-results.tsv
: >"$RESULTS"
put() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$RESULTS"; }
value() { awk -F '\t' -v n="$1" -v m="$2" '$1 == n && $2 == m { v = $3 } END { print v }' "$RESULTS"; }
timed() { # NAME RUNS COMMAND...: best wall, CPU (user + sys) of that run, peak RSS
  local name=$1 runs=$2 wall="" cpu="" peak=0 w u s m i
  shift 2
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f '%e %U %S %M' -o "$WORK/join-time.txt" "$@" || die "failed: $*"
    read -r w u s m < <(tail -n 1 "$WORK/join-time.txt")
    if [ -z "$wall" ] || awk -v a="$w" -v b="$wall" 'BEGIN { exit !(a + 0 < b + 0) }'; then
      wall=$w
      cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
    fi
    ((m > peak)) && peak=$m
  done
  put "$name" wall "$wall"
  put "$name" cpu "$cpu"
  put "$name" rss "$(awk -v k="$peak" 'BEGIN { printf "%.0f", k / 1024 }')"
}

# --- join -------------------------------------------------------------------
log "geopipe join ($RUNS runs)"
timed geopipe "$RUNS" bash -c '"$0" join -q --with "$1" --predicate intersects --matches all \
  --fields NAME,ISO_A2 <"$2" >"$3"' "$GEOPIPE" "$COUNTRIES" "$SEQ" "$WORK/join-geopipe.geojsonl"
log "geopandas sjoin ($PEER_RUNS runs)"
timed geopandas "$PEER_RUNS" bash -c 'rm -f "$4"; "$0" "$1" "$2" "$3" "$4"' "$PY" \
  "$BENCH/geopandas_sjoin.py" "$SEQ" "$COUNTRIES" "$WORK/join-geopandas.geojsonl"
SUBSET=$WORK/join-points-first$DUCKDB_POINTS.geojsonl
head -n "$DUCKDB_POINTS" "$SEQ" >"$SUBSET"
log "geopipe join, the first $DUCKDB_POINTS points ($RUNS runs)"
timed geopipe_subset "$RUNS" bash -c '"$0" join -q --with "$1" --predicate intersects \
  --matches all --fields NAME,ISO_A2 <"$2" >"$3"' "$GEOPIPE" "$COUNTRIES" "$SUBSET" \
  "$WORK/join-geopipe-subset.geojsonl"
if [ -n "$SPATIAL" ]; then
  log "duckdb spatial, the first $DUCKDB_POINTS points ($PEER_RUNS runs)"
  timed duckdb "$PEER_RUNS" bash -c 'rm -f "$5"; "$0" "$1" "$2" "$3" "$4" "$5"' "$PY" \
    "$BENCH/duckdb_join.py" "$SPATIAL" "$SUBSET" "$COUNTRIES" "$WORK/join-duckdb.geojsonl" \
    || DUCKDB_NOTE="the join failed"
else
  DUCKDB_NOTE=${DUCKDB_NOTE:-"duckdb-extension-spatial $DUCKDB_VERSION could not be installed"}
fi

# Every tool must give each country the same number of points.
counts() { # FILE: "ISO_A2 count" lines, sorted
  "$PY" - "$1" <<'PY'
import collections, json, sys
c = collections.Counter()
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        line = line.strip("\x1e\n")
        if line:
            c[json.loads(line)["properties"].get("ISO_A2")] += 1
for key, n in sorted(c.items(), key=lambda kv: str(kv[0])):
    print(key, n)
PY
}
counts "$WORK/join-geopipe.geojsonl" >"$WORK/join-counts-geopipe.txt"
counts "$WORK/join-geopandas.geojsonl" >"$WORK/join-counts-geopandas.txt"
cmp -s "$WORK/join-counts-geopipe.txt" "$WORK/join-counts-geopandas.txt" \
  || die "geopipe and GeoPandas give different points per country (see $WORK/join-counts-*.txt)"
put geopipe features "$(wc -l <"$WORK/join-geopipe.geojsonl")"
put geopandas features "$(wc -l <"$WORK/join-geopandas.geojsonl")"
if [ -z "$DUCKDB_NOTE" ]; then
  counts "$WORK/join-geopipe-subset.geojsonl" >"$WORK/join-counts-geopipe-subset.txt"
  counts "$WORK/join-duckdb.geojsonl" >"$WORK/join-counts-duckdb.txt"
  cmp -s "$WORK/join-counts-geopipe-subset.txt" "$WORK/join-counts-duckdb.txt" \
    || DUCKDB_NOTE="its answers differ from geopipe's and GeoPandas' (see $WORK/join-counts-duckdb.txt)"
fi

# --- reverse-geocode with and without polygons ---------------------------------
log "gazetteers with and without the country polygons"
"$GEOPIPE" gazetteer build --default -q "$WORK/join-with.gazetteer"
"$GEOPIPE" gazetteer build --default --no-boundaries -q "$WORK/join-without.gazetteer"
for variant in without with; do
  log "geopipe reverse-geocode, $variant polygons ($RUNS runs)"
  timed "reverse_$variant" "$RUNS" bash -c '"$0" reverse-geocode -q --gazetteer "$1" <"$2" >"$3"' \
    "$GEOPIPE" "$WORK/join-$variant.gazetteer" "$SEQ" "$WORK/join-reverse-$variant.geojsonl"
done
polygon_share=$(grep -c '"geocode_country_source":"polygon"' "$WORK/join-reverse-with.geojsonl" || true)

# --- report -----------------------------------------------------------------
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "–"; else printf "%.2f", a / b }'; }
{
  echo "1M points (cities145k places moved by N(0, 0.01°), seed $SEED) joined to the 244 + 6"
  echo "Natural Earth 1:10m countries; best of $RUNS runs (GeoPandas and DuckDB: $PEER_RUNS); load"
  echo "average at the start: $LOAD."
  echo "Peers: $versions; DuckDB $DUCKDB_VERSION with duckdb-extension-spatial $DUCKDB_VERSION."
  echo
  echo "| measurement | wall s | CPU s | peak RSS MiB | output features |"
  echo "|---|--:|--:|--:|--:|"
  echo "| \`geopipe join --predicate intersects --matches all\` | $(value geopipe wall) | $(value geopipe cpu) | $(value geopipe rss) | $(value geopipe features) |"
  echo "| GeoPandas \`sjoin(how=\"left\", predicate=\"intersects\")\` | $(value geopandas wall) | $(value geopandas cpu) | $(value geopandas rss) | $(value geopandas features) |"
  echo "| \`geopipe join\`, the first $DUCKDB_POINTS points | $(value geopipe_subset wall) | $(value geopipe_subset cpu) | $(value geopipe_subset rss) | $(wc -l <"$WORK/join-geopipe-subset.geojsonl") |"
  if [ -z "$DUCKDB_NOTE" ]; then
    echo "| DuckDB spatial, left join on \`ST_Intersects\`, the first $DUCKDB_POINTS points | $(value duckdb wall) | $(value duckdb cpu) | $(value duckdb rss) | $(wc -l <"$WORK/join-duckdb.geojsonl") |"
  else
    echo "| DuckDB spatial | – | – | – | not measured: $DUCKDB_NOTE |"
  fi
  echo "| \`geopipe reverse-geocode\`, gazetteer without polygons | $(value reverse_without wall) | $(value reverse_without cpu) | $(value reverse_without rss) | |"
  echo "| \`geopipe reverse-geocode\`, default gazetteer (countries from polygons) | $(value reverse_with wall) | $(value reverse_with cpu) | $(value reverse_with rss) | $polygon_share from polygons |"
  echo
  echo "join: geopipe is $(ratio "$(value geopandas wall)" "$(value geopipe wall)")× faster than GeoPandas in wall time ($(ratio "$(value geopandas cpu)" "$(value geopipe cpu)")× in CPU)$([ -z "$DUCKDB_NOTE" ] && echo "; on the first $DUCKDB_POINTS points $(ratio "$(value duckdb wall)" "$(value geopipe_subset wall)")× faster than DuckDB ($(ratio "$(value duckdb cpu)" "$(value geopipe_subset cpu)")× in CPU)")."
  echo "reverse-geocode with polygons takes $(ratio "$(value reverse_with wall)" "$(value reverse_without wall)")× the wall time without them ($(ratio "$(value reverse_with cpu)" "$(value reverse_without cpu)")× the CPU)."
} | tee "$WORK/join-results.md"

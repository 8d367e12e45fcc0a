#!/usr/bin/env bash
# Benchmark `geopipe filter --where` against `ogr2ogr -where` / `-sql` on 1M generated points
# (GeoJSONSeq in, GeoJSONSeq out), with a `like` and a function. Prints a Markdown table.
#
# OGR SQL (ogr2ogr -where) has LIKE and SUBSTR but no LENGTH, so the case with a function runs
# ogr2ogr twice: with -where and SUBSTR(name, 6, 1) <> '' (the same condition in OGR SQL), and
# with `-dialect SQLite -sql "SELECT * FROM points WHERE ..."` (the same text). SQLite's LIKE ignores ASCII case and geopipe's does not; the generated names
# are capitalised, so the counts agree, and the script checks that they do.
#
# Environment (paths relative to the repository root):
#   GEOPIPE             geopipe binary, a release build     (.build/release/geopipe)
#   BENCH_WORK          scratch folder                      (bench/.work)
#   BENCH_RUNS          runs per measurement, best is kept  (3)
#   EXPR_POINTS         points in the generated file        (1000000)
set -euo pipefail

BENCH_NAME="expressions bench"
source "$(dirname "$0")/common.sh"

RUNS=${BENCH_RUNS:-3}
POINTS=${EXPR_POINTS:-1000000}

command -v "$GEOPIPE" >/dev/null || die "no geopipe binary at $GEOPIPE (run 'make release')"
command -v ogr2ogr >/dev/null || die "ogr2ogr is missing (apt-get install gdal-bin)"
[ -x /usr/bin/time ] || die "GNU time is missing (apt-get install time)"

mkdir -p "$WORK/out"
input=$WORK/points.geojsonl
if [ ! -s "$input.$POINTS" ]; then
  log "generating $POINTS points"
  python3 "$BENCH/generate_points.py" --points "$POINTS" --seed 21 --seq "$input.tmp"
  mv "$input.tmp" "$input"
  touch "$input.$POINTS"
fi
bytes=$(stat -c %s "$input")

# measure LABEL TOOL OUT COMMAND...: the best wall time of RUNS runs, with CPU and memory.
measure() {
  local label=$1 tool=$2 out=$3 best="" line
  shift 3
  for _ in $(seq "$RUNS"); do
    rm -f "$out"
    /usr/bin/time -f '%e %U %S %M' -o "$WORK/expr-time.txt" "$@"
    line=$(tail -n 1 "$WORK/expr-time.txt")
    if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
      best=$line
    fi
  done
  echo "$label|$tool|$best|$(grep -c . "$out")"
}

# row LINE BASELINE: a table row; the speedup is BASELINE's wall time over this one's.
row() {
  IFS='|' read -r label tool times count <<< "$1"
  read -r wall user sys rss <<< "$times"
  IFS='|' read -r _ _ base _ <<< "$2"
  awk -v l="$label" -v t="$tool" -v w="$wall" -v c="$((${count}))" -v u="$user" -v s="$sys" \
    -v m="$rss" -v b="${base%% *}" -v n="$bytes" 'BEGIN {
      printf "| %s | %s | %d | %.2f | %.2f | %.0f | %.0f | %.1f× |\n",
        l, t, c, w, u + s, m / 1024, n / 1e6 / w, b / w }'
}

run_case() { # WHERE OGR-LABEL OGR-ARGS...: geopipe and ogr2ogr on one condition
  local where=$1 tool=$2
  shift 2
  local ours theirs
  ours=$(measure "\`$where\`" geopipe "$WORK/out/expr-geopipe.geojsonl" \
    sh -c '"$1" filter --where "$2" < "$3" > "$4"' sh "$GEOPIPE" "$where" "$input" \
    "$WORK/out/expr-geopipe.geojsonl")
  theirs=$(measure "\`$where\`" "ogr2ogr $tool" "$WORK/out/expr-ogr.geojsonl" \
    ogr2ogr -f GeoJSONSeq "$WORK/out/expr-ogr.geojsonl" "$input" "$@")
  local n=${ours##*|} m=${theirs##*|}
  [ "$n" = "$m" ] || die "$where: geopipe kept $n features, ogr2ogr $tool $m"
  row "$theirs" "$theirs"
  row "$ours" "$theirs"
}

like="name like 'San%'"
both="name like 'San%' and length(name) > 5"
echo "| condition | tool | features kept | wall s | CPU s | peak RSS MiB | input MB/s | speedup |"
echo "|---|---|--:|--:|--:|--:|--:|--:|"
# OGR SQL has SUBSTR but no LENGTH: SUBSTR(name, 6, 1) <> '' is length(name) > 5.
run_case "$both" "-where (OGR SQL, SUBSTR)" -where "name LIKE 'San%' AND SUBSTR(name, 6, 1) <> ''"
run_case "$both" "-dialect SQLite -sql" -dialect SQLite -sql "SELECT * FROM points WHERE $both"
run_case "$like" "-where" -where "$like"

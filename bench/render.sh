#!/usr/bin/env bash
# Benchmark `geopipe render`: 100k (and all 144,563) real places drawn as pins into a PNG,
# end to end (reading GeoJSONSeq from a file, placing, drawing, encoding, writing), and maps
# over raster MBTiles basemaps (PNG and JPEG tiles to zoom 5 made with GDAL by
# Scripts/make-raster-tileset.sh).
# Prints a Markdown table to stdout and writes it to $BENCH_WORK/render-results.md.
#
# Environment (paths relative to the repository root):
#   GEOPIPE           geopipe binary                         (.build/release/geopipe)
#   DATA              folder with cities145k.geojson.gz      (../shared/data)
#   BENCH_WORK        scratch folder                         (bench/.work)
#   BENCH_RUNS        runs per measurement, best is kept     (3)
set -euo pipefail

BENCH_NAME="render bench"
source "$(dirname "$0")/common.sh"

RUNS=${BENCH_RUNS:-3}

command -v "$GEOPIPE" >/dev/null || die "no geopipe binary at $GEOPIPE (run 'make release' or set GEOPIPE)"
[ -f "$DATA/cities145k.geojson.gz" ] || die "missing $DATA/cities145k.geojson.gz (set DATA)"
[ -x /usr/bin/time ] || die "needs /usr/bin/time (apt-get install time)"
[ -f "$DATA/lines/ne_110m_countries.geojson.gz" ] || die "missing $DATA/lines/ne_110m_countries.geojson.gz"

mkdir -p "$WORK/out"
# Inputs: the first 100,000 places and all of them, styled (a colour per country by a match
# rule, so several pin looks), as GeoJSONSeq; the same 100k with low priority (every marker
# is tested for collisions and most are dropped).
if [ ! -s "$WORK/render-100k.geojsonl" ]; then
  log "preparing inputs"
  "$GEOPIPE" read --quiet "$DATA/cities145k.geojson.gz" \
    | "$GEOPIPE" style --quiet --marker-color 'match(cc, US: #d33, IN: #36c, CN: #fc0, BR: #3a3, else: #777)' \
    > "$WORK/render-all.geojsonl"
  head -n 100000 "$WORK/render-all.geojsonl" > "$WORK/render-100k.geojsonl"
  "$GEOPIPE" style --quiet --priority low < "$WORK/render-100k.geojsonl" \
    > "$WORK/render-100k-low.geojsonl"
fi
for format in PNG JPEG; do
  tileset=$WORK/world-$format.mbtiles
  if [ ! -s "$tileset" ]; then
    log "making $tileset"
    "$(dirname "$0")/../Scripts/make-raster-tileset.sh" "$DATA/lines/ne_110m_countries.geojson.gz" \
      "$tileset" "$format" 5
  fi
done

# best_of CMD...: runs CMD $RUNS times; prints the best wall time (s), that run's CPU time
# (user + system, s) and its peak RSS (MB).
best_of() {
  local best="" cpu="" mem=""
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/stderr.txt" \
      || { cat "$WORK/stderr.txt" >&2; die "failed: $*"; }
    read -r wall user system rss < "$WORK/time.txt"
    if [ -z "$best" ] || awk "BEGIN { exit !($wall < $best) }"; then
      best=$wall
      cpu=$(awk "BEGIN { printf \"%.2f\", $user + $system }")
      mem=$rss
    fi
  done
  echo "$best $cpu $((mem / 1024))"
}

row() { # label, input, render arguments...
  local label=$1 input=$2
  shift 2
  log "$label"
  read -r wall cpu mb < <(best_of sh -c "exec \"\$0\" render --quiet \"\$@\" < '$input'" "$GEOPIPE" "$@")
  printf '| %s | %s | %s | %s |\n' "$label" "$wall" "$cpu" "$mb"
}

out=$WORK/out/render.png
{
  echo "| case | wall (s) | CPU (s) | peak memory (MB) |"
  echo "| --- | ---: | ---: | ---: |"
  row "100k pins, world fit, 1024x768 PNG" "$WORK/render-100k.geojsonl" "$out" --fit
  row "100k pins, 1024x768 PNG at --scale 2" "$WORK/render-100k.geojsonl" "$out" --fit --scale 2
  row "100k pins + Natural Earth basemap" "$WORK/render-100k.geojsonl" "$out" --fit \
    --basemap "$DATA/lines/ne_110m_countries.geojson.gz"
  row "100k low-priority pins (collisions tested)" "$WORK/render-100k-low.geojsonl" "$out" --fit
  row "100k pins, Europe at zoom 4.5" "$WORK/render-100k.geojsonl" "$out" --center 10,50 --zoom 4.5
  row "144,563 pins, world fit" "$WORK/render-all.geojsonl" "$out" --fit
  row "100k pins, world fit, SVG" "$WORK/render-100k.geojsonl" "$WORK/out/render.svg" --fit
  row "satellite, PNG MBTiles, 1024x768 at --scale 2" /dev/null "$out" --center 10,50 \
    --zoom 4.5 --scale 2 --basemap "$WORK/world-PNG.mbtiles"
  row "satellite, JPEG MBTiles, 1024x768 at --scale 2, bearing 30" /dev/null "$out" \
    --center 10,50 --zoom 4.5 --scale 2 --bearing 30 --basemap "$WORK/world-JPEG.mbtiles"
  row "100k pins over PNG MBTiles, 1024x768 at --scale 2" "$WORK/render-100k.geojsonl" "$out" \
    --center 10,50 --zoom 4.5 --scale 2 --basemap "$WORK/world-PNG.mbtiles"
} | tee "$WORK/render-results.md"

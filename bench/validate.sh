#!/usr/bin/env bash
# Benchmark `geopipe validate` on a generated 100 MB FeatureCollection of polygons and lines
# (bench/generate_polygons.py, seeded). Prints a Markdown table row per report format.
#
# Environment (paths relative to the repository root):
#   GEOPIPE             geopipe binary, a release build     (.build/release/geopipe)
#   BENCH_WORK          scratch folder                      (bench/.work)
#   BENCH_RUNS          runs per measurement, best is kept  (3)
#   VALIDATE_MB         size of the generated file in MB    (100)
#   VALIDATE_SEED       seed of the generated file          (7946)
set -euo pipefail

BENCH_NAME="validate bench"
source "$(dirname "$0")/common.sh"

RUNS=${BENCH_RUNS:-3}
MB=${VALIDATE_MB:-100}
SEED=${VALIDATE_SEED:-7946}

if [ ! -x /usr/bin/time ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  log "installing time"
  $sudo apt-get update -qq >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >&2
fi

mkdir -p "$WORK"
input="$WORK/validate-${MB}mb-seed$SEED.geojson"
if [ ! -s "$input" ]; then
  log "generating $input"
  python3 bench/generate_polygons.py --megabytes "$MB" --seed "$SEED" "$input"
fi
bytes=$(stat -c %s "$input")

measure() { # FORMAT: best wall time, CPU and peak memory of RUNS runs
  local format=$1 best="" line
  for _ in $(seq "$RUNS"); do
    set +e
    /usr/bin/time -f '%e %U %S %M' -o "$WORK/validate-time.txt" \
      "$GEOPIPE" validate --format "$format" "$input" > "$WORK/validate-report.txt"
    status=$?
    set -e
    # Exit 1 means findings, which the generated file has on purpose.
    if [ "$status" -ne 1 ]; then
      log "unexpected exit status $status"
      exit 1
    fi
    line=$(tail -n 1 "$WORK/validate-time.txt")
    if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
      best=$line
    fi
  done
  read -r wall user sys rss <<< "$best"
  findings=$(grep -c . "$WORK/validate-report.txt" || true)
  awk -v f="$format" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" -v b="$bytes" \
    -v n="$findings" 'BEGIN {
      printf "| %s | %.1f MB | %.2f s | %.2f s | %.0f MB/s | %.0f MB | %d |\n",
        f, b / 1e6, w, u + s, b / 1e6 / w, m / 1024, n }'
}

echo "| format | input | wall | CPU | throughput | peak memory | report lines |"
echo "|---|---|---|---|---|---|---|"
for format in text json; do
  measure "$format"
done

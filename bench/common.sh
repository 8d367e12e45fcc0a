# What the benchmark scripts share; each sources it after `set -euo pipefail`, with BENCH_NAME
# set for its error messages. Moves to the repository root and sets ROOT, BENCH, SWIFT,
# BUILD_PATH, GEOPIPE, DATA and WORK (from the environment, paths made absolute) and the
# helpers abspath, log and die.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BENCH=$ROOT/bench
abspath() { case $1 in /*) echo "$1" ;; *) echo "$ROOT/$1" ;; esac; }

SWIFT=${SWIFT:-swift}
BUILD_PATH=$(abspath "${BUILD_PATH:-.build}")
GEOPIPE=${GEOPIPE:-$BUILD_PATH/release/geopipe}
case $GEOPIPE in */*) GEOPIPE=$(abspath "$GEOPIPE") ;; esac
DATA=$(abspath "${DATA:-../shared/data}")
WORK=$(abspath "${BENCH_WORK:-bench/.work}")

log() { echo "==> $*" >&2; }
die() { echo "${BENCH_NAME:-bench}: error: $*" >&2; exit 1; }

# cities_geojson: decompresses $DATA/cities145k.geojson.gz into $WORK once and prints the path.
cities_geojson() {
  local cities=$WORK/cities145k.geojson
  [ -f "$DATA/cities145k.geojson.gz" ] || die "missing $DATA/cities145k.geojson.gz (set DATA)"
  if [ ! -s "$cities" ]; then
    mkdir -p "$WORK"
    log "decompressing cities145k.geojson.gz"
    gzip -dc "$DATA/cities145k.geojson.gz" >"$cities.tmp"
    mv "$cities.tmp" "$cities"
  fi
  echo "$cities"
}

# jittered_points POINTS SEED LABEL: the cities145k places moved by N(0, 0.01°)
# (bench/jitter_points.py), made once as $WORK/cities-jitter-LABEL-seedSEED.geojson; prints
# the path.
jittered_points() {
  local file=$WORK/cities-jitter-$3-seed$2.geojson cities
  cities=$(cities_geojson)
  if [ ! -s "$file" ]; then
    log "generating $(basename "$file"): $1 points near the cities, seed $2"
    python3 "$BENCH/jitter_points.py" "$cities" "$file.tmp" "$1" "$2"
    mv "$file.tmp" "$file"
    log "  $(($(stat -c %s "$file") / 1000000)) MB"
  fi
  echo "$file"
}

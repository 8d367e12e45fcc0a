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

# best_of CASE TOOL OUTPUT RUNS RESULTS COMMAND...: runs COMMAND RUNS times under GNU time,
# removing OUTPUT (unless empty; a shapefile's other files too) before each run, and appends
# to RESULTS the line CASE, TOOL, best wall seconds, peak RSS in KiB and best CPU (user + sys)
# seconds, tab-separated. Stops the script with COMMAND's output when it fails.
best_of() {
  local case=$1 tool=$2 out=$3 runs=$4 results=$5 best="" cpu="" peak=0 wall rss user sys i
  local scratch
  scratch=$(dirname "$results")
  shift 5
  log "$case: $tool"
  for ((i = 0; i < runs; i++)); do
    [ -z "$out" ] || rm -rf "$out"
    case $out in *.shp) rm -f "${out%.*}".{shx,dbf,prj,cpg} ;; esac
    if ! /usr/bin/time -f '%e %M %U %S' -o "$scratch/time.txt" "$@" >"$scratch/cmd.log" 2>&1; then
      tail -n 20 "$scratch/cmd.log" >&2
      die "$tool failed on '$case': $*"
    fi
    read -r wall rss user sys < <(tail -n 1 "$scratch/time.txt")
    best=$(awk -v a="$best" -v b="$wall" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
    cpu=$(awk -v a="$cpu" -v b="$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" \
      'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
    ((rss > peak)) && peak=$rss
  done
  printf '%s\t%s\t%s\t%s\t%s\n' "$case" "$tool" "$best" "$peak" "$cpu" >>"$results"
}

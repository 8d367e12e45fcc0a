#!/usr/bin/env bash
# Benchmark reading and writing GeoPackage, FlatGeobuf and Shapefile against ogr2ogr (GDAL):
# each format → GeoJSONSeq (from a file ogr2ogr wrote) and GeoJSONSeq → each format (GPX and
# KML, which geopipe only reads: → GeoJSONSeq), on
# generated points and polygons, with peak memory at two input sizes (flat memory), and the
# bytes a FlatGeobuf --bbox read of 1% of the area takes from the file.
# Prints a Markdown table to stdout and writes it to $BENCH_WORK/formats.md.
#
# Environment (paths relative to the repository root):
#   GEOPIPE               binary to test                (.build/release/geopipe)
#   DATA                  folder with lines/us_states_500k.geojson.gz (../shared/data)
#   BENCH_WORK            scratch folder                (bench/.work)
#   BENCH_RUNS            runs per measurement, best is kept (3)
#   BENCH_POINTS          points in the large set        (1000000)
#   BENCH_POLYGON_MB      size of the generated polygon set in MB (100)
#   BENCH_FORMATS         formats to measure both ways  (gpkg fgb shp)
#   BENCH_READ_FORMATS    formats to measure reading    (gpx kml)
set -euo pipefail

BENCH_NAME="formats bench"
source "$(dirname "$0")/common.sh"

RUNS=${BENCH_RUNS:-3}
POINTS=${BENCH_POINTS:-1000000}
SMALL_POINTS=$((POINTS / 4))
POLYGON_MB=${BENCH_POLYGON_MB:-100}
read -r -a FORMATS <<<"${BENCH_FORMATS:-gpkg fgb shp}"
read -r -a READ_FORMATS <<<"${BENCH_READ_FORMATS:-gpx kml}"

command -v "$GEOPIPE" >/dev/null || die "no geopipe binary at $GEOPIPE"
command -v ogr2ogr >/dev/null || die "needs ogr2ogr (apt-get install gdal-bin)"
command -v strace >/dev/null || die "needs strace (apt-get install strace)"
[ -x /usr/bin/time ] || die "needs /usr/bin/time (apt-get install time)"
[ -f "$DATA/lines/us_states_500k.geojson.gz" ] || die "missing $DATA/lines/us_states_500k.geojson.gz"
mkdir -p "$WORK/formats"
W=$WORK/formats

driver() {
  case $1 in
    gpkg) echo GPKG ;;
    fgb) echo FlatGeobuf ;;
    shp) echo "ESRI Shapefile" ;;
    gpx) echo GPX ;;
    kml) echo KML ;;
  esac
}
human() {
  if (($1 % 1000000 == 0)); then echo "$(($1 / 1000000))M"
  elif (($1 % 1000 == 0)); then echo "$(($1 / 1000))k"
  else echo "$1"; fi
}

# --- data -------------------------------------------------------------------
points() { # N: GeoJSONSeq points, made once
  local out=$W/points-$(human "$1").geojsonl
  if [ ! -s "$out" ]; then
    log "generating $(basename "$out")"
    python3 "$BENCH/generate_points.py" --points "$1" --seq "$out.tmp"
    mv "$out.tmp" "$out"
  fi
  echo "$out"
}
polygons() { # generated polygons (and a few lines and points: kept as polygons only)
  local out=$W/polygons-${POLYGON_MB}MB.geojsonl
  if [ ! -s "$out" ]; then
    log "generating $(basename "$out")"
    python3 "$BENCH/generate_polygons.py" --megabytes "$POLYGON_MB" "$out.all"
    # One geometry type a file, as a shapefile needs: the polygons alone, one per line; without
    # the ids (the set repeats some on purpose, and a GeoPackage's fid is unique).
    "$GEOPIPE" filter --quiet --geometry-type Polygon,MultiPolygon <"$out.all" |
      python3 -c 'import json, sys
for line in sys.stdin:
    feature = json.loads(line)
    feature.pop("id", None)
    sys.stdout.write(json.dumps(feature, ensure_ascii=False) + "\n")' >"$out.tmp"
    rm -f "$out.all"
    mv "$out.tmp" "$out"
  fi
  echo "$out"
}
states() {
  local out=$W/us_states.geojsonl
  [ -s "$out" ] || gzip -dc "$DATA/lines/us_states_500k.geojson.gz" | "$GEOPIPE" read --quiet >"$out"
  echo "$out"
}

# --- measuring --------------------------------------------------------------
RESULTS=$W/results.tsv
: >"$RESULTS"
measure() { # CASE TOOL INPUT OUTPUT RUNS COMMAND...
  local case=$1 tool=$2 out=$4 runs=$5
  shift 5
  best_of "$case" "$tool" "$out" "$runs" "$RESULTS" "$@"
}
count() { # FILE: features in it, as GDAL counts them
  case $1 in
    *.geojsonl) grep -c . "$1" || true ;;
    *) ogrinfo -ro -so -al "$1" | awk -F': ' '/^Feature Count/ { n += $2 } END { print n + 0 }' ;;
  esac
}
check() { # TOOL FILE EXPECTED
  local got
  got=$(count "$2")
  [ "$got" = "$3" ] || die "$1 wrote $got features to $2, expected $3"
}

# LABEL FORMAT REF N [LAYER]: both tools read REF (N features; ogr2ogr the layer LAYER) to
# GeoJSONSeq.
read_back() {
  local label=$1 fmt=$2 ref=$3 n=$4 layer=${5:-} out
  out=$W/$label-from-$fmt-geopipe.geojsonl
  measure "$label $fmt → GeoJSONSeq" geopipe "$ref" "$out" "$RUNS" \
    "$GEOPIPE" convert --quiet "$ref" "$out"
  check geopipe "$out" "$n"
  out=$W/$label-from-$fmt-ogr2ogr.geojsonl
  measure "$label $fmt → GeoJSONSeq" ogr2ogr "$ref" "$out" "$RUNS" \
    ogr2ogr -f GeoJSONSeq "$out" "$ref" ${layer:+"$layer"}
  check ogr2ogr "$out" "$n"
}

# LABEL FILE FORMAT: write FILE (GeoJSONSeq) as FORMAT with both tools, then read back the
# file ogr2ogr wrote with both tools.
both_ways() {
  local label=$1 in=$2 fmt=$3 n ref out
  n=$(count "$in")
  out=$W/$label-geopipe.$fmt
  measure "$label GeoJSONSeq → $fmt" geopipe "$in" "$out" "$RUNS" \
    "$GEOPIPE" convert --quiet "$in" "$out"
  check geopipe "$out" "$n"
  ref=$W/$label-ogr2ogr.$fmt
  measure "$label GeoJSONSeq → $fmt" ogr2ogr "$in" "$ref" "$RUNS" \
    ogr2ogr -f "$(driver "$fmt")" "$ref" "$in"
  check ogr2ogr "$ref" "$n"
  read_back "$label" "$fmt" "$ref" "$n"
}

# LABEL FILE FORMAT [LAYER]: ogr2ogr writes FILE (GeoJSONSeq) as FORMAT (GPX or KML, which
# geopipe reads but does not write), then both tools read it back (ogr2ogr the layer LAYER).
read_only() {
  local label=$1 in=$2 fmt=$3 layer=${4:-} n ref
  n=$(count "$in")
  ref=$W/$label-ogr2ogr.$fmt
  if [ ! -s "$ref" ]; then
    log "writing $(basename "$ref") with ogr2ogr"
    local options=()
    [ "$fmt" = gpx ] && options=(-dsco GPX_USE_EXTENSIONS=YES)
    ogr2ogr -f "$(driver "$fmt")" "${options[@]}" "$ref" "$in"
  fi
  read_back "$label" "$fmt" "$ref" "$n" "$layer"
}

BIG=$(points "$POINTS")
SMALL=$(points "$SMALL_POINTS")
POLYS=$(polygons)
STATES=$(states)
writes() { "$GEOPIPE" write --help | grep -q -- "$1"; }
for fmt in "${FORMATS[@]}"; do
  if ! writes "$fmt"; then
    log "skipping $fmt: this geopipe does not write it"
    continue
  fi
  both_ways "points-$(human "$POINTS")" "$BIG" "$fmt"
  both_ways "points-$(human "$SMALL_POINTS")" "$SMALL" "$fmt"
  both_ways "polygons-${POLYGON_MB}MB" "$POLYS" "$fmt"
  both_ways "us-states" "$STATES" "$fmt"
done
for fmt in "${READ_FORMATS[@]}"; do
  layer=""
  [ "$fmt" = gpx ] && layer=waypoints
  read_only "points-$(human "$POINTS")" "$BIG" "$fmt" "$layer"
  read_only "points-$(human "$SMALL_POINTS")" "$SMALL" "$fmt" "$layer"
  # GPX holds no polygons.
  [ "$fmt" = kml ] && read_only "us-states" "$STATES" "$fmt"
done

# --- FlatGeobuf: the bytes a bbox read takes ----------------------------------
BBOX_NOTE=""
if writes fgb; then
  fgb=$W/points-$(human "$POINTS")-ogr2ogr.fgb
  [ -s "$fgb" ] || ogr2ogr -f FlatGeobuf "$fgb" "$BIG"
  # 1% of the area: a tenth of the longitudes and of the latitudes.
  box=10,10,46,28
  strace -f -e trace=read,pread64 -o "$W/strace.txt" \
    "$GEOPIPE" read --quiet --bbox "$box" "$fgb" >"$W/bbox.geojsonl"
  taken=$(awk -F'= ' '/(read|pread64)\(/ && $NF ~ /^[0-9]+$/ { n += $NF } END { print n + 0 }' \
    "$W/strace.txt")
  size=$(stat -c %s "$fgb")
  got=$(grep -c . "$W/bbox.geojsonl" || true)
  want=$(ogrinfo -ro -so -al -spat 10 10 46 28 "$fgb" | awk -F': ' '/^Feature Count/ { print $2 }')
  BBOX_NOTE="FlatGeobuf --bbox $box on $(basename "$fgb") ($size bytes): $got features (ogrinfo -spat: $want), $taken bytes read = $(awk -v a="$taken" -v b="$size" 'BEGIN { printf "%.2f", 100 * a / b }')% of the file"
  log "$BBOX_NOTE"
fi

# --- report -----------------------------------------------------------------
cpu=$(grep -m1 -E '^(model name|Model|cpu model)' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)
report() {
  echo "## formats benchmark"
  echo
  echo "- machine: $(uname -m), $(nproc) CPUs, ${cpu:-unknown CPU}"
  echo "- geopipe: $("$GEOPIPE" --version 2>&1 | head -n 1 || echo unknown)"
  echo "- $(ogr2ogr --version)"
  echo "- best wall time and best CPU time (user + system) of $RUNS runs; peak RSS is the"
  echo "  highest of those runs"
  echo
  echo "| case | tool | wall s | CPU s | peak RSS MiB | wall speedup | CPU speedup |"
  echo "|---|---|--:|--:|--:|--:|--:|"
  awk -F '\t' '
    { c[NR] = $1; t[NR] = $2; w[NR] = $3; m[NR] = $4; u[NR] = $5
      if ($2 == "ogr2ogr") { ref[$1] = $3; refu[$1] = $5 } }
    END {
      for (i = 1; i <= NR; i++) {
        sp = (c[i] in ref && w[i] > 0) ? sprintf("%.1f×", ref[c[i]] / w[i]) : "–"
        su = (c[i] in refu && u[i] > 0) ? sprintf("%.1f×", refu[c[i]] / u[i]) : "–"
        printf "| %s | %s | %.2f | %.2f | %.0f | %s | %s |\n", c[i], t[i], w[i], u[i], m[i] / 1024, sp, su
      }
    }' "$RESULTS"
  if [ -n "$BBOX_NOTE" ]; then
    echo
    echo "$BBOX_NOTE"
  fi
}
report | tee "$WORK/formats.md"

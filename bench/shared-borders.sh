#!/usr/bin/env bash
# Benchmark simplify over a whole layer on the US states (1:500k, 294k vertices): geopipe's
# --percentage 5% with and without --shared-borders, and by tolerance, against
# `ogr2ogr -simplify` at a tolerance that keeps about as many vertices. Each output is then
# measured with Scripts/check-shared-borders.py (GEOS through Debian's python3-shapely):
# states kept, vertices, overlap between neighbours and gaps opened between them. Prints a
# Markdown table and writes it to $BENCH_WORK/shared-borders-results.md.
#
# Environment (paths relative to the repository root):
#   GEOPIPE          geopipe binary                                 (.build/release/geopipe)
#   DATA             folder with lines/us_states_500k.geojson.gz    (../shared/data)
#   BENCH_WORK       scratch folder                                 (bench/.work)
#   BENCH_RUNS       runs per measurement, best is kept             (3)
#   OGR_TOLERANCE    ogr2ogr -simplify tolerance in degrees         (0.02: about the vertices
#                    geopipe keeps at 5%)
set -euo pipefail

BENCH_NAME="shared-borders bench"
source "$(dirname "$0")/common.sh"

RUNS=${BENCH_RUNS:-3}
OGR_TOLERANCE=${OGR_TOLERANCE:-0.02}

[ -f "$DATA/lines/us_states_500k.geojson.gz" ] || die "no $DATA/lines/us_states_500k.geojson.gz (set DATA)"
command -v "$GEOPIPE" >/dev/null || die "no geopipe binary at $GEOPIPE (run 'make release' or set GEOPIPE)"
command -v ogr2ogr >/dev/null || die "ogr2ogr is missing (apt-get install gdal-bin)"
/usr/bin/python3 -c 'import shapely' 2>/dev/null || die "Debian's python3-shapely is missing"

mkdir -p "$WORK/shared-borders"
dir=$WORK/shared-borders
states=$dir/us_states_500k.geojson
gzip -dc "$DATA/lines/us_states_500k.geojson.gz" >"$states"
"$GEOPIPE" read --quiet "$states" >"$dir/states.geojsonl"

best() { # COMMAND...: best "wall cpu" seconds of RUNS runs (output in $dir/out.geojsonl)
  local wall="" cpu="" w u s c i
  for ((i = 0; i < RUNS; i++)); do
    /usr/bin/time -f '%e %U %S' -o "$dir/time.txt" "$@" 2>"$dir/err.txt" ||
      { cat "$dir/err.txt" >&2; die "failed: $*"; }
    read -r w u s < <(tail -n 1 "$dir/time.txt")
    c=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
    wall=$(awk -v a="$wall" -v b="$w" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
    cpu=$(awk -v a="$cpu" -v b="$c" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
  done
  echo "$wall $cpu"
}

table=$WORK/shared-borders-results.md
{
  echo "| tool and options | wall s | CPU s | result |"
  echo "|---|--:|--:|---|"
} >"$table"

row() { # LABEL COMMAND...: times the command (which writes $dir/out.geojsonl) and checks it
  local label=$1 times check
  shift
  log "$label"
  times=$(best "$@")
  check=$(/usr/bin/python3 -W ignore "$ROOT/Scripts/check-shared-borders.py" \
    "$dir/states.geojsonl" "$dir/out.geojsonl")
  echo "| $label | ${times% *} | ${times#* } | $check |" >>"$table"
}

geopipe_row() { # LABEL OPTIONS...: read + simplify from the FeatureCollection, as GeoJSONSeq
  local label=$1
  shift
  row "$label" bash -c 'g=$0 in=$1 out=$2; shift 2; "$g" read --quiet "$in" | "$g" simplify --quiet "$@" >"$out"' \
    "$GEOPIPE" "$states" "$dir/out.geojsonl" "$@"
}

geopipe_row "geopipe simplify --percentage 5% --shared-borders" --percentage 5% --shared-borders
geopipe_row "geopipe simplify --percentage 5%" --percentage 5%
geopipe_row "geopipe simplify --tolerance $OGR_TOLERANCE --shared-borders --method dp" \
  --tolerance "$OGR_TOLERANCE" --shared-borders --method dp
geopipe_row "geopipe simplify --tolerance $OGR_TOLERANCE --method topology" \
  --tolerance "$OGR_TOLERANCE" --method topology
row "ogr2ogr -simplify $OGR_TOLERANCE" sh -c \
  'rm -f "$2"; ogr2ogr -f GeoJSONSeq "$2" "$1" -simplify "$0"' \
  "$OGR_TOLERANCE" "$states" "$dir/out.geojsonl"

cat "$table"

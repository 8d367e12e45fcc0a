#!/usr/bin/env bash
# Benchmark geopipe against ogr2ogr (GDAL) and a Python + orjson script.
# Prints a Markdown table to stdout and writes it to $BENCH_WORK/results.md.
#
# Environment (paths relative to the repository root):
#   GEOPIPE           binary to test                (.build/release/geopipe)
#   DATA              folder with cities145k.geojson.gz (../shared/data)
#   BENCH_WORK        scratch folder                (bench/.work)
#   BENCH_RUNS        runs per measurement, best is kept (3)
#   BENCH_POINTS      size of the generated data sets (1000000)
#   BENCH_BIG         1 to run the ~1 GB peak-memory case, 0 to skip (1)
#   BENCH_BIG_POINTS  features in the big file      (5 x BENCH_POINTS)
#   BENCH_BIG_RUNS    runs for the big case         (1)
#   BENCH_BIG_OGR     0 to leave ogr2ogr out of the big case (slow) (1)
set -euo pipefail

BENCH_NAME="bench"
source "$(dirname "$0")/common.sh"

RUNS=${BENCH_RUNS:-3}
POINTS=${BENCH_POINTS:-1000000}
BIG=${BENCH_BIG:-1}
BIG_POINTS=${BENCH_BIG_POINTS:-$((POINTS * 5))}
BIG_RUNS=${BENCH_BIG_RUNS:-1}
BIG_OGR=${BENCH_BIG_OGR:-1}

# --- prerequisites ----------------------------------------------------------
command -v "$GEOPIPE" >/dev/null || die "no geopipe binary at $GEOPIPE (run 'swift build -c release' or set GEOPIPE)"
[ -f "$DATA/cities145k.geojson.gz" ] || die "missing $DATA/cities145k.geojson.gz (set DATA)"
if ! python3 -c 'import orjson' 2>/dev/null; then
  log "installing orjson"
  python3 -m pip install --quiet orjson
fi
pkgs=()
command -v ogr2ogr >/dev/null || pkgs+=(gdal-bin)
[ -x /usr/bin/time ] || pkgs+=(time)
if ((${#pkgs[@]})); then
  sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  log "installing ${pkgs[*]}"
  $sudo apt-get update -qq >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >&2
fi

# --- data -------------------------------------------------------------------
mkdir -p "$WORK/out"
human() { # 1000000 -> 1M, 20000 -> 20k
  if (($1 % 1000000 == 0)); then echo "$(($1 / 1000000))M"
  elif (($1 % 1000 == 0)); then echo "$(($1 / 1000))k"
  else echo "$1"; fi
}
megabytes() { echo $(($(stat -c %s "$1") / 1000000)); }
generate() { # OUT [generate_points.py options]
  local out=$1; shift
  [ -s "$out" ] && return
  log "generating $(basename "$out")"
  local t0=$SECONDS
  python3 "$BENCH/generate_points.py" "$@" "$out.tmp"
  mv "$out.tmp" "$out"
  log "  $(megabytes "$out") MB in $((SECONDS - t0)) s"
}

CITIES=$WORK/cities145k.geojson
if [ ! -s "$CITIES" ]; then
  log "decompressing cities145k.geojson.gz"
  gzip -dc "$DATA/cities145k.geojson.gz" >"$CITIES.tmp"
  mv "$CITIES.tmp" "$CITIES"
fi
N=$(human "$POINTS")
FC=$WORK/points-$N.geojson
SEQ=$WORK/points-$N.geojsonl
CSV=$WORK/points-$N.csv
generate "$FC" --points "$POINTS"
generate "$SEQ" --points "$POINTS" --seq
generate "$CSV" --points "$POINTS" --csv
BIG_N=$(human "$BIG_POINTS")
BIGFC=$WORK/points-$BIG_N.geojson
[ "$BIG" = 1 ] && generate "$BIGFC" --points "$BIG_POINTS"

# --- measuring --------------------------------------------------------------
RESULTS=$WORK/results.tsv
: >"$RESULTS"

measure() { # CASE TOOL INPUT OUTPUT|"" RUNS COMMAND...
  local case=$1 tool=$2 in=$3 out=$4 runs=$5 best="" peak=0 wall rss i
  shift 5
  log "$case: $tool"
  for ((i = 0; i < runs; i++)); do
    if [ -n "$out" ]; then rm -f "$out"; fi
    if ! /usr/bin/time -f '%e %M' -o "$WORK/time.txt" "$@" >"$WORK/cmd.log" 2>&1; then
      tail -n 20 "$WORK/cmd.log" >&2
      die "$tool failed on '$case': $*"
    fi
    read -r wall rss < <(tail -n 1 "$WORK/time.txt")
    best=$(awk -v a="$best" -v b="$wall" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
    ((rss > peak)) && peak=$rss
  done
  printf '%s\t%s\t%s\t%s\t%s\n' "$case" "$tool" "$best" "$peak" "$(stat -c %s "$in")" >>"$RESULTS"
}

count_features() {
  case $1 in
    *.geojsonl | *.geojsons) grep -c . "$1" || true ;;
    *) python3 "$BENCH/orjson_convert.py" --count "$1" ;;
  esac
}

check_count() { # TOOL OUTPUT EXPECTED
  local got
  got=$(count_features "$2")
  [ "$got" = "$3" ] || die "feature count mismatch: $1 wrote $got features to $2, expected $3"
  log "  $got features: ok"
  rm -f "$2"
}

convert_case() { # CASE INPUT OUT_EXT EXPECTED RUNS WITH_OGR OGR2OGR_OPTIONS...
  local case=$1 in=$2 ext=$3 expected=$4 runs=$5 with_ogr=$6 slug out
  shift 6
  slug=$(basename "${in%.*}")-to-$ext
  out=$WORK/out/$slug-geopipe.$ext
  measure "$case" geopipe "$in" "$out" "$runs" "$GEOPIPE" convert --quiet "$in" "$out"
  check_count geopipe "$out" "$expected"
  if [ "$with_ogr" = 1 ]; then
    out=$WORK/out/$slug-ogr2ogr.$ext
    measure "$case" ogr2ogr "$in" "$out" "$runs" ogr2ogr "$@" "$out" "$in"
    check_count ogr2ogr "$out" "$expected"
  fi
  out=$WORK/out/$slug-orjson.$ext
  measure "$case" orjson "$in" "$out" "$runs" python3 "$BENCH/orjson_convert.py" "$in" "$out"
  check_count orjson "$out" "$expected"
}

CITIES_COUNT=$(count_features "$CITIES")
convert_case "cities145k FC → GeoJSONSeq" "$CITIES" geojsonl "$CITIES_COUNT" "$RUNS" 1 -f GeoJSONSeq
convert_case "$N FC → GeoJSONSeq" "$FC" geojsonl "$POINTS" "$RUNS" 1 -f GeoJSONSeq
convert_case "$N GeoJSONSeq → FC" "$SEQ" geojson "$POINTS" "$RUNS" 1 -f GeoJSON
convert_case "$N CSV → GeoJSON FC" "$CSV" geojson "$POINTS" "$RUNS" 1 -f GeoJSON \
  -oo X_POSSIBLE_NAMES=longitude -oo Y_POSSIBLE_NAMES=latitude -oo KEEP_GEOM_COLUMNS=NO

PARSE="$N FC parse only"
measure "$PARSE" geopipe "$FC" "" "$RUNS" "$GEOPIPE" info --quiet "$FC"
grep -Eq "(^|[^0-9])$POINTS([^0-9]|$)" "$WORK/cmd.log" ||
  log "  warning: 'geopipe info' output does not mention $POINTS features"
measure "$PARSE" ogrinfo "$FC" "" "$RUNS" ogrinfo -ro -al -so "$FC"
measure "$PARSE" orjson "$FC" "" "$RUNS" python3 "$BENCH/orjson_convert.py" --count "$FC"

if [ "$BIG" = 1 ]; then
  convert_case "$BIG_N FC ($(megabytes "$BIGFC") MB) → GeoJSONSeq" "$BIGFC" geojsonl \
    "$BIG_POINTS" "$BIG_RUNS" "$BIG_OGR" -f GeoJSONSeq
fi

# --- report -----------------------------------------------------------------
cpu=$(grep -m1 -E '^(model name|Model|cpu model)' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)
report() {
  echo "## geopipe benchmark"
  echo
  echo "- machine: $(uname -m), $(nproc) CPUs, ${cpu:-unknown CPU}"
  echo "- geopipe: $("$GEOPIPE" --version 2>&1 | head -n 1 || echo unknown)"
  echo "- $(ogr2ogr --version)"
  echo "- $(python3 --version 2>&1), orjson $(python3 -c 'import orjson; print(orjson.__version__)')"
  echo "- best wall time of $RUNS runs (big file: $BIG_RUNS); peak RSS is the highest of those runs"
  echo
  echo "| case | tool | wall s | peak RSS MiB | input MB/s | speedup vs GDAL |"
  echo "|---|---|--:|--:|--:|--:|"
  awk -F '\t' '
    { c[NR] = $1; t[NR] = $2; w[NR] = $3; m[NR] = $4; b[NR] = $5
      if ($2 ~ /^ogr/) ref[$1] = $3 }
    END {
      for (i = 1; i <= NR; i++) {
        mbs = w[i] > 0 ? sprintf("%.1f", b[i] / 1e6 / w[i]) : "–"
        sp = (c[i] in ref && w[i] > 0) ? sprintf("%.2f×", ref[c[i]] / w[i]) : "–"
        printf "| %s | %s | %.2f | %.0f | %s | %s |\n", c[i], t[i], w[i], m[i] / 1024, mbs, sp
      }
    }' "$RESULTS"
}
report | tee "$WORK/results.md"

#!/usr/bin/env bash
# Benchmark the cluster index (the port of supercluster 8.0.1) on real and generated points.
# Prints a Markdown table to stdout and writes it to $BENCH_WORK/cluster-results.md; the raw
# measurements (tab-separated) go to $BENCH_WORK/cluster-results.tsv.
#
# Environment (paths relative to the repository root):
#   SWIFT               Swift driver                         (swift)
#   BUILD_PATH          SwiftPM scratch folder, as `make release` uses (.build)
#   CLUSTER_BUILD       0 to skip building ClusterBench      (1)
#   CLUSTERBENCH        ClusterBench binary                  (BUILD_PATH/release/ClusterBench)
#   GEOPIPE             geopipe binary                       (BUILD_PATH/release/geopipe)
#   DATA                folder with cities145k.geojson.gz    (../shared/data)
#   BENCH_WORK          scratch folder                       (bench/.work)
#   BENCH_RUNS          runs per measurement, best is kept   (3)
#   CLUSTER_POINTS      points in the generated file         (1000000)
#   CLUSTER_SEED        seed of the generated file           (145)
#   CLUSTER_E2E         0 to skip the end-to-end geopipe runs (1)
set -euo pipefail

BENCH_NAME="cluster bench"
source "$(dirname "$0")/common.sh"

CLUSTERBENCH=$(abspath "${CLUSTERBENCH:-$BUILD_PATH/release/ClusterBench}")
RUNS=${BENCH_RUNS:-3}
POINTS=${CLUSTER_POINTS:-1000000}
SEED=${CLUSTER_SEED:-145}
E2E=${CLUSTER_E2E:-1}

# --- prerequisites ----------------------------------------------------------
[ -f "$DATA/cities145k.geojson.gz" ] || die "missing $DATA/cities145k.geojson.gz (set DATA)"
if [ ! -x /usr/bin/time ]; then
  sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  log "installing time"
  $sudo apt-get update -qq >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >&2
fi
if [ "${CLUSTER_BUILD:-1}" = 1 ]; then
  log "building ClusterBench (release)"
  GEOPIPE_BENCH=1 "$SWIFT" build -c release --product ClusterBench --build-path "$BUILD_PATH" >&2
fi
[ -x "$CLUSTERBENCH" ] || die "no ClusterBench binary at $CLUSTERBENCH"
if [ "$E2E" = 1 ]; then
  command -v "$GEOPIPE" >/dev/null || die "no geopipe binary at $GEOPIPE (run 'make release' or set GEOPIPE)"
fi

# --- data -------------------------------------------------------------------
mkdir -p "$WORK"
human() { # 1000000 -> 1M, 20000 -> 20k
  if (($1 % 1000000 == 0)); then echo "$(($1 / 1000000))M"
  elif (($1 % 1000 == 0)); then echo "$(($1 / 1000))k"
  else echo "$1"; fi
}
N=$(human "$POINTS")
CITIES=$(cities_geojson)
JITTER=$(jittered_points "$POINTS" "$SEED" "$N")

# --- measuring --------------------------------------------------------------
RESULTS=$WORK/cluster-results.tsv
: >"$RESULTS"

bench() { # NAME FILE
  log "ClusterBench $1 ($RUNS runs)"
  "$CLUSTERBENCH" --name "$1" "$2" "$RUNS" >>"$RESULTS"
}

pipeline() { # NAME FILE CASE CLUSTER_OPTIONS...: best CPU (user + sys) and wall of RUNS runs
  local name=$1 file=$2 case=$3 cpu="" wall="" peak=0 w u s m i
  shift 3
  log "$name: geopipe read | geopipe cluster $*"
  for ((i = 0; i < RUNS; i++)); do
    /usr/bin/time -f '%e %U %S %M' -o "$WORK/cluster-time.txt" \
      bash -c 'set -o pipefail; "$0" read "$1" | "$0" cluster "${@:2}" >/dev/null' \
      "$GEOPIPE" "$file" "$@" ||
      die "geopipe failed: read $file | cluster $*"
    read -r w u s m < <(tail -n 1 "$WORK/cluster-time.txt")
    cpu=$(awk -v a="$cpu" -v b="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" \
      'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
    wall=$(awk -v a="$wall" -v b="$w" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
    ((m > peak)) && peak=$m
  done
  {
    printf '%s\t%s_cpu_s\t%s\n' "$name" "$case" "$cpu"
    printf '%s\t%s_wall_s\t%s\n' "$name" "$case" "$wall"
    printf '%s\t%s_peak_rss_mib\t%.1f\n' "$name" "$case" "$(awk -v k="$peak" 'BEGIN { print k / 1024 }')"
  } >>"$RESULTS"
}

value() { # NAME METRIC
  awk -F '\t' -v n="$1" -v m="$2" '$1 == n && $2 == m { v = $3 } END { print v }' "$RESULTS"
}

check_z8() { # NAME FILE: the CLI's z8 world box has as many features as ClusterBench's
  local got want
  got=$("$GEOPIPE" read "$2" | "$GEOPIPE" cluster --zoom 8 --bbox -180,-85,180,85 | grep -c .)
  want=$(value "$1" query_z8_features)
  [ "$got" = "$want" ] || die "$1: geopipe cluster --zoom 8 wrote $got features, ClusterBench $want"
  log "  z8 world box: $got features from both: ok"
}

bench cities145k "$CITIES"
bench "jitter$N" "$JITTER"
if [ "$E2E" = 1 ]; then
  for name in cities145k "jitter$N"; do
    file=$CITIES
    [ "$name" = cities145k ] || file=$JITTER
    check_z8 "$name" "$file"
    pipeline "$name" "$file" e2e_z8 --zoom 8
    pipeline "$name" "$file" e2e_all_zooms --all-zooms
  done
fi

# --- report -----------------------------------------------------------------
cpu=$(grep -m1 -E '^(model name|Model|cpu model)' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)
C=cities145k
M=jitter$N
verdict() { # VALUE LIMIT UNIT: "met" or "not met: N× the target"
  awk -v v="$1" -v t="$2" -v u="$3" 'BEGIN {
    if (v + 0 <= t + 0) print "met"
    else printf "not met: %.2f%s, %.1f× the target\n", v, u, v / t }'
}
queries() { # NAME [SUFFIX]: "a / b / c / d / e" CPU ms at z8..z12
  local z out=""
  for z in 8 9 10 11 12; do out+="${out:+ / }$(value "$1" "query_z${z}${2:-}_cpu_ms")"; done
  echo "$out"
}
slowest_query() { # NAME
  local z max=0 v
  for z in 8 9 10 11 12; do
    v=$(value "$1" "query_z${z}_cpu_ms")
    max=$(awk -v a="$max" -v b="$v" 'BEGIN { print (b + 0 > a + 0) ? b : a }')
  done
  echo "$max"
}
mb() { awk -v m="$1" 'BEGIN { printf "%.0f", m * 1.048576 }'; } # MiB -> MB
SC_BUILD="8.0–8.4" SC_PEAK="1160 (with the parsed features)" SC_PARSE="3.0–3.4"
if [ "$POINTS" != 1000000 ]; then # supercluster was measured on 1M points only
  SC_BUILD="– (8.0–8.4 at 1M)" SC_PEAK="– (1160 at 1M)" SC_PARSE=""
fi
report() {
  echo "## Clustering benchmark"
  echo
  echo "- machine: $(uname -m), $(nproc) CPUs, ${cpu:-unknown CPU}"
  [ "$E2E" = 1 ] && echo "- geopipe: $("$GEOPIPE" --version 2>&1 | head -n 1 || echo unknown)"
  echo "- data: cities145k ($(value $C points) points) and $M ($(value "$M" points) points:" \
    "cities145k places with N(0, 0.01°) jitter, seed $SEED)"
  echo "- CPU time is user + system; best of $RUNS runs (index builds, pipelines; queries: best of" \
    "at least 3); world box: -180,-85,180,85"
  echo "- supercluster 8.0.1 on node 20 (default options, same machine) was measured earlier:" \
    "it cannot be installed here"
  echo
  echo "| measurement | geopipe | supercluster 8.0.1 | target | result |"
  echo "|---|--:|--:|--:|---|"
  echo "| cities145k: index build, CPU s | $(value $C build_cpu_s) | 0.78–0.80 | ≤ 0.2 |" \
    "$(verdict "$(value $C build_cpu_s)" 0.2 " s") |"
  echo "| $M: index build, CPU s | $(value "$M" build_cpu_s) | $SC_BUILD | ≤ 2 |" \
    "$(verdict "$(value "$M" build_cpu_s)" 2 " s") |"
  echo "| cities145k: build and every zoom's kd-tree (what load() does), CPU s |" \
    "$(value $C build_with_trees_cpu_s) | 0.78–0.80 | – | – |"
  echo "| $M: build and every zoom's kd-tree, CPU s | $(value "$M" build_with_trees_cpu_s) |" \
    "$SC_BUILD | – | – |"
  echo "| cities145k / $M: build with \`--exact-order\`, CPU s |" \
    "$(value $C build_exact_order_cpu_s) / $(value "$M" build_exact_order_cpu_s) | – | – | – |"
  echo "| $M: peak memory after one build, MB | $(mb "$(value "$M" peak_rss_mib)") |" \
    "$SC_PEAK | < 300 |" \
    "$(verdict "$(mb "$(value "$M" peak_rss_mib)")" 300 " MB") |"
  echo "| cities145k: world box z8 / z9 / z10 / z11 / z12, CPU ms | $(queries $C) | – | < 100 each |" \
    "$(verdict "$(slowest_query $C)" 100 " ms") |"
  echo "| $M: world box z8 / z9 / z10 / z11 / z12, CPU ms | $(queries "$M") | – | < 100 each |" \
    "$(verdict "$(slowest_query "$M")" 100 " ms") |"
  echo "| cities145k: first world box at each zoom (builds its tree), CPU ms |" \
    "$(queries $C _first) | – | – | – |"
  echo "| $M: first world box at each zoom (builds its tree), CPU ms | $(queries "$M" _first) |" \
    "– | – | – |"
  echo
  echo "| data | build CPU s | build wall s | index MiB | peak RSS MiB | z8 | z9 | z10 | z11 | z12 |"
  echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
  local name z row
  for name in $C "$M"; do
    row="| $name | $(value "$name" build_cpu_s) | $(value "$name" build_wall_s)"
    row+=" | $(value "$name" index_rss_mib) | $(value "$name" peak_rss_mib)"
    for z in 8 9 10 11 12; do
      row+=" | $(value "$name" "query_z${z}_features") in $(value "$name" "query_z${z}_cpu_ms") ms"
    done
    echo "$row |"
  done
  if [ "$E2E" = 1 ]; then
    echo
    echo "| end to end (\`geopipe read FILE \\| geopipe cluster ...\`) | CPU s | wall s | peak RSS MiB |"
    echo "|---|--:|--:|--:|"
    for name in $C "$M"; do
      for case in e2e_z8:"--zoom 8" e2e_all_zooms:"--all-zooms"; do
        echo "| $name, \`${case#*:}\` | $(value "$name" "${case%%:*}_cpu_s") |" \
          "$(value "$name" "${case%%:*}_wall_s") | $(value "$name" "${case%%:*}_peak_rss_mib") |"
      done
    done
    if [ -n "$SC_PARSE" ]; then
      echo
      echo "supercluster, for comparison: parsing the $M file took $SC_PARSE s and load()" \
        "$SC_BUILD s CPU."
    fi
  fi
}
report | tee "$WORK/cluster-results.md"

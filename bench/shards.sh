#!/usr/bin/env bash
# Sharded runs on Dask against one run on this machine: reverse geocoding 1M points and forward
# geocoding 1M rows (CSV, bench/generate_points.py) and tiling the 1M jittered points
# (bench/jitter_points.py). Each pipeline runs through geopipe-dask (integrations/dask, installed
# with dask and distributed from PyPI into .build/dask-venv) on a LocalCluster of 1 worker
# process and of 2 (one thread each, one shard per worker, the merge included:
# bench/dask_scaling.py), and once as a plain `geopipe run` with one thread (skipped for the
# forward geocoding unless FORWARD_ONE_RUN=1: it takes as long as the 1-worker run). Checks that
# the outputs are byte for byte the same in every run (tiles: the same tiles, decoded), times
# the merge of the 2 shards' parts again on its own, and prints a Markdown table (also written
# to $BENCH_WORK/shards-results.md).
#
# Environment: GEOPIPE, DATA, BENCH_WORK (see bench/common.sh); SHARD_POINTS, the points
# reverse geocoded (1000000); FORWARD_ROWS, the rows geocoded (1000000); SHARD_PIPELINES, the
# pipelines to run ("reverse forward tiles"); SHARD_REPEAT, how many times the Dask runs of
# reverse geocoding and tiles are repeated (3; their best times give the speed-up, as `make
# bench` takes the best of 3; forward geocoding runs once, its runs take minutes).
set -euo pipefail

BENCH_NAME="shards bench"
source "$(dirname "$0")/common.sh"

POINTS=${SHARD_POINTS:-1000000}
ROWS=${FORWARD_ROWS:-1000000}
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
mkdir -p "$WORK/shards"
S=$WORK/shards
[ -x /usr/bin/time ] || die "needs /usr/bin/time (apt-get install time)"

if [ ! -s "$S/gazetteer.sqlite" ]; then
  log "building the default gazetteer"
  "$GEOPIPE" gazetteer build --default -q "$S/gazetteer.sqlite"
fi
if [ ! -s "$S/points.csv" ]; then
  log "generating $POINTS points"
  python3 "$BENCH/generate_points.py" --points "$POINTS" --csv "$S/points.csv"
fi
if [ ! -s "$S/rows-$ROWS.csv" ]; then
  log "generating $ROWS rows"
  python3 "$BENCH/generate_points.py" --points "$ROWS" --seed 11 --csv "$S/rows-$ROWS.csv"
fi
jittered=$(jittered_points 1000000 7 1m)
if [ ! -s "$S/jittered.geojsonl" ]; then
  "$GEOPIPE" read "$jittered" >"$S/jittered.geojsonl"
fi

cat >"$S/reverse.yaml" <<YAML
version: 1
vars: {out: out}
stages:
  - read: {path: "$S/points.csv"}
  - reverse-geocode: {}
  - write: {path: "\${out}/reverse.geojsonl"}
YAML
cat >"$S/forward.yaml" <<YAML
version: 1
vars: {out: out}
stages:
  - read: {path: "$S/rows-$ROWS.csv"}
  - geocode: {query: "{name}"}
  - write: {path: "\${out}/forward.csv"}
YAML
cat >"$S/tiles.yaml" <<YAML
version: 1
vars: {out: out}
stages:
  - read: {path: "$S/jittered.geojsonl"}
  - tiles: {path: "\${out}/points.pmtiles", max-zoom: 10}
YAML

# seconds WALL CPU from /usr/bin/time's output file
secs() { awk '/^wall/ {w=$2} /^cpu/ {c=$2} END {print w, c}' "$1"; }
timed() { # OUT CMD...: syncs the disk's pending writes, runs CMD, writes "wall S" and "cpu S" to OUT
  sync
  sleep 1
  /usr/bin/time -f 'wall %e\ncpu %U %S' -o "$1.t" "${@:2}"
  awk '/^wall/ {print} /^cpu/ {printf "cpu %.2f\n", $2 + $3}' "$1.t" >"$1"
}
same() { # A B: whether two output folders hold the same outputs (tilesets: the same tiles)
  local f g
  for f in "$1"/*; do
    case $f in *.part-* | *.share-*) continue ;; esac
    g=$2/$(basename "$f")
    case $f in
      *.pmtiles | *.mbtiles)
        cmp -s "$f" "$g" ||
          cmp -s <("$GEOPIPE" tiles decode "$f" -q | sort) <("$GEOPIPE" tiles decode "$g" -q | sort) ||
          return 1 ;;
      *) cmp -s "$f" "$g" || return 1 ;;
    esac
  done
}

venv=$ROOT/.build/dask-venv
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
"$venv/bin/pip" install --quiet "$ROOT/integrations/dask"

export GEOPIPE_GAZETTEER=$S/gazetteer.sqlite GEOPIPE_THREADS=1
results=$S/shards-results.md
{
  echo "| pipeline | one run, 1 thread: wall s / CPU s | Dask, 1 worker: best wall s | Dask, 2 workers: best wall s | speed-up, 2 workers against 1 | 2 workers against one run | merge of 2 parts: wall s / CPU s | outputs | every run: 1 worker; 2 workers |"
  echo "|---|--:|--:|--:|--:|--:|--:|---|---|"
} >"$results"
for name in ${SHARD_PIPELINES:-reverse forward tiles}; do
  one="–"
  w1=""
  if [ "$name" != forward ] || [ "${FORWARD_ONE_RUN:-0}" = 1 ]; then
    log "$name: one run"
    rm -rf "$S/$name-one"
    timed "$S/$name-one.time" "$GEOPIPE" run "$S/$name.yaml" --var out="$S/$name-one" -q
    read -r w1 c1 < <(secs "$S/$name-one.time")
    one="$w1 / $c1"
  fi
  log "$name: Dask, 1 worker and 2 workers"
  repeat=${SHARD_REPEAT:-3}
  [ "$name" = forward ] && repeat=1
  read -r d1 d2 a1 a2 < <("$venv/bin/python" "$BENCH/dask_scaling.py" --repeat "$repeat" \
    "$GEOPIPE" "$S/$name.yaml" "$S/$name-dask" 1 2 |
    awk '{t[$1] = $2; a[$1] = $3} END {print t[1], t[2], a[1], a[2]}')
  log "$name: the merge of the 2 shards' parts again"
  timed "$S/$name-merge.time" "$GEOPIPE" merge "$S/$name.yaml" --shards 2 \
    --var out="$S/$name-dask-2" -q
  read -r wm cm < <(secs "$S/$name-merge.time")
  outputs=identical
  same "$S/$name-dask-1" "$S/$name-dask-2" || outputs=DIFFERENT
  if [ -n "$w1" ] && ! same "$S/$name-one" "$S/$name-dask-2"; then outputs=DIFFERENT; fi
  against_one="–"
  [ -n "$w1" ] && against_one=$(printf '%.2f×' "$(echo "$w1 / $d2" | bc -l)")
  printf '| %s | %s | %.2f | %.2f | **%.2f×** | %s | %s / %s | %s | %s; %s |\n' "$name" "$one" \
    "$d1" "$d2" "$(echo "$d1 / $d2" | bc -l)" "$against_one" "$wm" "$cm" "$outputs" \
    "${a1//,/, }" "${a2//,/, }" >>"$results"
done
echo "" >>"$results"
echo "Load average before the run: $LOAD; $(nproc) processors." >>"$results"
cat "$results"

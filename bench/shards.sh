#!/usr/bin/env bash
# Sharded runs against one run on this machine: reverse geocoding 1M points and forward
# geocoding 1M rows (CSV, bench/generate_points.py) and tiling the 1M jittered points
# (bench/jitter_points.py), each as one run with one geopipe thread and as 2 shards run at
# once (one thread each) followed by the merge. Checks that the merged outputs are byte for
# byte those of the one run, and prints wall and CPU (user+sys) seconds, the merge's share and
# the speed-up as a Markdown table (also written to $BENCH_WORK/shards-results.md).
#
# Environment: GEOPIPE, DATA, BENCH_WORK (see bench/common.sh); SHARD_POINTS, the points
# reverse geocoded (1000000); FORWARD_ROWS, the rows geocoded (1000000).
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
timed() { # OUT CMD...: runs CMD, appends "wall S" and "cpu S" to OUT
  /usr/bin/time -f 'wall %e\ncpu %U %S' -o "$1.t" "${@:2}"
  awk '/^wall/ {print} /^cpu/ {printf "cpu %.2f\n", $2 + $3}' "$1.t" >"$1"
}

results=$S/shards-results.md
{
  echo "| pipeline | 1 run, 1 thread: wall s / CPU s | 2 shards at once: wall s / CPU s | merge: wall s / CPU s | speed-up (wall, merge included) | outputs |"
  echo "|---|--:|--:|--:|--:|---|"
} >"$results"
for name in reverse forward tiles; do
  log "$name: one run"
  rm -rf "$S/$name-one" "$S/$name-shards"
  GEOPIPE_GAZETTEER=$S/gazetteer.sqlite GEOPIPE_THREADS=1 \
    timed "$S/$name-one.time" "$GEOPIPE" run "$S/$name.yaml" --var out="$S/$name-one" -q
  log "$name: 2 shards, then the merge"
  start=$(date +%s.%N)
  for i in 0 1; do
    GEOPIPE_GAZETTEER=$S/gazetteer.sqlite GEOPIPE_THREADS=1 \
      timed "$S/$name-shard$i.time" "$GEOPIPE" run "$S/$name.yaml" --shard "$i/2" \
      --var out="$S/$name-shards" -q &
  done
  wait
  mid=$(date +%s.%N)
  GEOPIPE_GAZETTEER=$S/gazetteer.sqlite GEOPIPE_THREADS=1 \
    timed "$S/$name-merge.time" "$GEOPIPE" merge "$S/$name.yaml" --shards 2 \
    --var out="$S/$name-shards" -q
  end=$(date +%s.%N)
  same=identical
  for f in "$S/$name-one"/*; do
    cmp -s "$f" "$S/$name-shards/$(basename "$f")" || same=DIFFERENT
  done
  read -r w1 c1 < <(secs "$S/$name-one.time")
  read -r wm cm < <(secs "$S/$name-merge.time")
  c0=$(awk '/^cpu/ {print $2}' "$S/$name-shard0.time")
  c1s=$(awk '/^cpu/ {print $2}' "$S/$name-shard1.time")
  printf '| %s | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f× | %s |\n' "$name" "$w1" "$c1" \
    "$(echo "$mid - $start" | bc)" "$(echo "$c0 + $c1s" | bc)" "$wm" "$cm" \
    "$(echo "$w1 / ($end - $start)" | bc -l)" "$same" >>"$results"
done
echo "" >>"$results"
echo "Load average before the run: $LOAD; $(nproc) processors." >>"$results"
cat "$results"

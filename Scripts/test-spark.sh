#!/usr/bin/env bash
# Runs pipeline files as shards on a local Spark (integrations/spark/geopipe_spark.py) and
# checks that the merged outputs are byte for byte those of one `geopipe run`. Skipped, with a
# message, when pyspark or Java is not installed.
#
# Usage: Scripts/test-spark.sh [GEOPIPE]   (default .build/debug/geopipe)
set -euo pipefail
cd "$(dirname "$0")/.."
geopipe=$(realpath "${1:-.build/debug/geopipe}")
python=${PYTHON:-python3}
if ! command -v java >/dev/null || ! "$python" -c "import pyspark" 2>/dev/null; then
  echo "test-spark: skipped (needs pyspark and Java)"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A tileset, whose tiles are split into shares of the tile space in a second round.
cat >"$work/tiles.yaml" <<YAML
version: 1
vars: {out: out}
stages:
  - read: {path: "$PWD/Fixtures/places/places.csv"}
  - tiles: {path: "\${out}/places.pmtiles", max-zoom: 8}
YAML
for pipeline in Pipelines/filter-select-style.yaml Pipelines/branching.yaml Pipelines/clusters.yaml \
  "$work/tiles.yaml"; do
  name=$(basename "$pipeline" .yaml)
  "$geopipe" run "$pipeline" --var out="$work/$name-one" -q
  for shards in 1 3; do
    "$python" integrations/spark/geopipe_spark.py "$pipeline" --shards "$shards" \
      --geopipe "$geopipe" --master 'local[2,4]' --var out="$work/$name-$shards"
    rm -f "$work/$name-$shards"/*.part-* "$work/$name-$shards"/*.share-*
    diff -r "$work/$name-one" "$work/$name-$shards"
  done
  echo "ok: ${pipeline#"$work"/} on Spark in 1 and 3 shards gives the bytes of one run"
done

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
for pipeline in Pipelines/filter-select-style.yaml Pipelines/branching.yaml Pipelines/clusters.yaml; do
  name=$(basename "$pipeline" .yaml)
  "$geopipe" run "$pipeline" --var out="$work/$name-one" -q
  for shards in 1 3; do
    "$python" integrations/spark/geopipe_spark.py "$pipeline" --shards "$shards" \
      --geopipe "$geopipe" --master 'local[2,4]' --var out="$work/$name-$shards"
    rm -f "$work/$name-$shards"/*.part-*
    diff -r "$work/$name-one" "$work/$name-$shards"
  done
  echo "ok: $pipeline on Spark in 1 and 3 shards gives the bytes of one run"
done

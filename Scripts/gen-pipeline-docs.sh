#!/usr/bin/env bash
# Rewrites the stage reference at the end of docs/pipelines.md from the stage registry
# (`geopipe help --markdown`). Usage: Scripts/gen-pipeline-docs.sh [path/to/geopipe]
set -euo pipefail
bin=${1:-.build/debug/geopipe}
doc=docs/pipelines.md
marker='<!-- The stage reference below is generated: Scripts/gen-pipeline-docs.sh -->'
tmp=$(mktemp)
awk -v m="$marker" '{ print } $0 == m { found = 1; exit } END { exit !found }' "$doc" > "$tmp" \
  || { echo "error: $doc lacks the marker line" >&2; rm -f "$tmp"; exit 1; }
echo >> "$tmp"
"$bin" help --markdown >> "$tmp"
mv "$tmp" "$doc"

#!/usr/bin/env bash
# Stand-in for the geopipe binary, backed by GDAL, to test bench/run.sh
# before geopipe is built:  GEOPIPE=bench/geopipe-stub.sh bench/run.sh
set -euo pipefail
args=()
for a in "$@"; do [ "$a" = --quiet ] || args+=("$a"); done
set -- "${args[@]}"
case ${1:-} in
  --version) echo "geopipe-stub ($(ogr2ogr --version))" ;;
  info) ogrinfo -ro -al -so "$2" ;;
  convert)
    case $3 in
      *.geojsonl|*.geojsons) fmt=GeoJSONSeq ;;
      *.geojson) fmt=GeoJSON ;;
      *) echo "geopipe-stub: unsupported output $3" >&2; exit 2 ;;
    esac
    exec ogr2ogr -f "$fmt" -oo X_POSSIBLE_NAMES=longitude -oo Y_POSSIBLE_NAMES=latitude \
      -oo KEEP_GEOM_COLUMNS=NO "$3" "$2" ;;
  *) echo "usage: geopipe-stub convert IN OUT | info FILE" >&2; exit 2 ;;
esac

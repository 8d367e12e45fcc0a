#!/usr/bin/env python3
"""The GeoPandas side of bench/geoparquet.sh.

    geopandas_parquet.py to-parquet IN.geojsonl OUT.parquet
        geopandas.read_file (pyogrio) then GeoDataFrame.to_parquet (snappy, GeoPandas' default;
        the bbox covering column too, as geopipe writes one).
    geopandas_parquet.py to-geojsonseq IN.parquet OUT.geojsonl
        geopandas.read_parquet then GeoDataFrame.to_file(driver="GeoJSONSeq").
"""
import sys

import geopandas


def main():
    mode, source, target = sys.argv[1:4]
    if mode == "to-parquet":
        frame = geopandas.read_file(source)
        frame.to_parquet(target, write_covering_bbox=True)
    else:
        frame = geopandas.read_parquet(source)
        frame.to_file(target, driver="GeoJSONSeq")


if __name__ == "__main__":
    main()

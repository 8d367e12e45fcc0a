#!/usr/bin/env python3
"""The GeoPandas side of bench/join.sh: POINTS (GeoJSONSeq) joined to COUNTRIES with
`geopandas.sjoin(how="left", predicate="intersects")`, the countries' NAME and ISO_A2 added,
written as GeoJSONSeq, as `geopipe join --predicate intersects --matches all` does.

Usage: bench/geopandas_sjoin.py POINTS COUNTRIES OUT
"""
import sys

import geopandas

points_path, countries_path, out = sys.argv[1:4]
points = geopandas.read_file(points_path)
countries = geopandas.read_file(countries_path)[["NAME", "ISO_A2", "geometry"]]
joined = geopandas.sjoin(points, countries, how="left", predicate="intersects")
joined = joined.drop(columns=["index_right"])
joined.to_file(out, driver="GeoJSONSeq")
